//! `VoxelAStar` against `pathfinding::astar` at its fastest on generated 3D levels of
//! 256 × 128 × 256 voxels, 26-connected, a move allowed when every voxel of its bounding
//! box is free (the Moving AI 3D rule; `DiagonalRule::BothOrthogonalFree`).
//!
//! The baseline, [`Baseline3d`]: u32 voxel indexes, each voxel's allowed moves as a 26-bit
//! mask computed once per level (an expansion allocates nothing), costs as fixed-point
//! integers (1, √2, √3 times 2^40, rounded). Two levels: *open* (about 4 % of the voxels
//! in boxes of 2 to 12 voxels a side: large empty plateaus) and *cluttered* (about 20 % in
//! boxes of 1 to 4). Four classes of query per level: short (goal within 24 voxels on
//! every axis) and long (at least 150 voxels apart on some axis), each drawn from a fixed
//! seed among the pairs a search connects. Before timing, every query's cost is checked
//! against the baseline's (the fixed-point cost over 2^40, within 1e-9 relative).
//!
//! Timing: every round runs both engines once over the same queries of a class,
//! interleaved, and each keeps its fastest round (`ONEPATH_BENCH_ROUNDS`, default 5).
//! Memory: a counting global allocator; the peak is the most bytes live at once during
//! the queries above what was live before them (the level and the baseline's masks are
//! built before; the `VoxelAStar` object is created before and kept across queries, so
//! what it keeps between searches is counted).
//!
//! `cargo bench -p onepath-gridstate --bench voxel` (`ONEPATH_VOXEL_QUERIES`: queries per
//! class, default 12; `ONEPATH_VOXEL_CLASS`, e.g. `cluttered short`: that class only, and
//! only its level built;
//! `ONEPATH_VOXEL_PROFILE`: no timing, each class's queries looped for 5 s under a profiler).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use onepath_gridstate::{GridPathStatus, SlicedSearch, VoxelAStar, VoxelGrid, VoxelOptions, WALL};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded to the system allocator with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `alloc` / `dealloc`; the old block is freed only when the new one exists.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            let now = LIVE.fetch_add(new_size, Ordering::Relaxed) + new_size;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Runs `f` and returns its result and the peak of live bytes above those live before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed) - before)
}

const SIZE: [u32; 3] = [256, 128, 256];

fn xorshift(mut s: u64) -> impl FnMut() -> u64 {
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// A level with walls in random boxes (sides `min_side..=max_side`) until about
/// `percent` % of the voxels are walls.
fn level(seed: u64, percent: u64, min_side: u32, max_side: u32) -> VoxelGrid {
    let mut g = VoxelGrid::new(SIZE[0], SIZE[1], SIZE[2], 0).expect("size");
    let mut next = xorshift(seed);
    let total = SIZE.iter().map(|&s| u64::from(s)).product::<u64>();
    let mut placed = 0u64;
    while placed * 100 < total * percent {
        let side = |n: &mut dyn FnMut() -> u64| {
            min_side + (n() % u64::from(max_side - min_side + 1)) as u32
        };
        let d = [side(&mut next), side(&mut next), side(&mut next)];
        let o: Vec<u32> = (0..3)
            .map(|k| (next() % u64::from(SIZE[k] - d[k] + 1)) as u32)
            .collect();
        for z in o[2]..o[2] + d[2] {
            for y in o[1]..o[1] + d[1] {
                for x in o[0]..o[0] + d[0] {
                    if g.area(x, y, z).expect("inside") != WALL {
                        g.set_area(x, y, z, WALL).expect("inside");
                        placed += 1;
                    }
                }
            }
        }
    }
    g
}

type P = (u32, u32, u32);

/// `count` (start, goal) pairs a search connects: short ones within 24 voxels on every
/// axis, long ones at least 150 voxels apart on some axis.
fn queries(g: &VoxelGrid, seed: u64, count: usize, long: bool) -> Vec<(P, P)> {
    let mut next = xorshift(seed);
    let mut search = VoxelAStar::new(VoxelOptions::default()).expect("options");
    let free = |p: P| g.is_walkable(i64::from(p.0), i64::from(p.1), i64::from(p.2));
    let mut out = Vec::new();
    while out.len() < count {
        let pick = |n: &mut dyn FnMut() -> u64| {
            (
                (n() % u64::from(SIZE[0])) as u32,
                (n() % u64::from(SIZE[1])) as u32,
                (n() % u64::from(SIZE[2])) as u32,
            )
        };
        let s = pick(&mut next);
        let t = if long {
            pick(&mut next)
        } else {
            let mut near = |c: u32, k: usize| {
                let lo = c.saturating_sub(24);
                let hi = (c + 24).min(SIZE[k] - 1);
                lo + (next() % u64::from(hi - lo + 1)) as u32
            };
            (near(s.0, 0), near(s.1, 1), near(s.2, 2))
        };
        let far =
            s.0.abs_diff(t.0)
                .max(s.1.abs_diff(t.1))
                .max(s.2.abs_diff(t.2));
        if !free(s) || !free(t) || s == t || (long && far < 150) {
            continue;
        }
        if search.find_path(g, s, t).map(|r| r.status) == Ok(GridPathStatus::Found) {
            out.push((s, t));
        }
    }
    out
}

/// The moves of the baseline: (dx, dy, dz), bit k of a mask for move k.
fn moves() -> Vec<(i64, i64, i64)> {
    let mut m = Vec::new();
    for dz in -1i64..=1 {
        for dy in -1i64..=1 {
            for dx in -1i64..=1 {
                if (dx, dy, dz) != (0, 0, 0) {
                    m.push((dx, dy, dz));
                }
            }
        }
    }
    m
}

/// Fixed-point units: one unit step is 2^40.
const UNIT: u64 = 1 << 40;

/// `pathfinding::astar` at its fastest on a voxel level: u32 voxel indexes, a 26-bit move
/// mask per voxel computed once, fixed-point costs `round(√k · 2^40)` for a k-axis move
/// (k = 1, 2, 3). Paths of up to N steps have costs a + b√2 + c√3 whose fixed-point sums
/// are within 3N/2 units of 2^40 times the real cost; the estimate is the same formula as
/// the real one (sorted axis distances lo ≤ mid ≤ hi: lo·√3 + (mid − lo)·√2 + hi − mid)
/// in these units, the exact cost in them of a path through free space, so it is
/// consistent and the search optimal for these integer costs.
struct Baseline3d {
    /// Expansions (calls of the successor function) since creation.
    expanded: std::cell::Cell<u64>,
    size: [u32; 3],
    masks: Vec<u32>,
    offsets: [i64; 26],
    costs: [u64; 26],
    step: [u64; 3],
}

impl Baseline3d {
    fn new(g: &VoxelGrid) -> Self {
        let [sx, sy, sz] = g.size().map(i64::from);
        // Free voxels with a wall border, so a neighbour test is one read.
        let (px, py) = (sx + 2, sy + 2);
        let mut open = vec![false; (px * py * (sz + 2)) as usize];
        for z in 0..sz {
            for y in 0..sy {
                for x in 0..sx {
                    open[((x + 1) + px * ((y + 1) + py * (z + 1))) as usize] =
                        g.is_walkable(x, y, z);
                }
            }
        }
        let free =
            |x: i64, y: i64, z: i64| open[((x + 1) + px * ((y + 1) + py * (z + 1))) as usize];
        let mv = moves();
        let mut masks = Vec::with_capacity((sx * sy * sz) as usize);
        for z in 0..sz {
            for y in 0..sy {
                for x in 0..sx {
                    let mut m = 0u32;
                    if free(x, y, z) {
                        for (k, &(dx, dy, dz)) in mv.iter().enumerate() {
                            // Every voxel of the move's bounding box free.
                            let mut ok = true;
                            for cz in [0, dz] {
                                for cy in [0, dy] {
                                    for cx in [0, dx] {
                                        ok &= free(x + cx, y + cy, z + cz);
                                    }
                                }
                            }
                            if ok {
                                m |= 1 << k;
                            }
                        }
                    }
                    masks.push(m);
                }
            }
        }
        let step = [
            UNIT,
            (std::f64::consts::SQRT_2 * UNIT as f64).round() as u64,
            (3f64.sqrt() * UNIT as f64).round() as u64,
        ];
        let mut offsets = [0i64; 26];
        let mut costs = [0u64; 26];
        for (k, &(dx, dy, dz)) in mv.iter().enumerate() {
            offsets[k] = dx + sx * (dy + sy * dz);
            costs[k] = step[(dx.abs() + dy.abs() + dz.abs()) as usize - 1];
        }
        Baseline3d {
            expanded: std::cell::Cell::new(0),
            size: g.size(),
            masks,
            offsets,
            costs,
            step,
        }
    }

    fn index(&self, p: P) -> u32 {
        p.0 + self.size[0] * (p.1 + self.size[1] * p.2)
    }

    /// The least cost in steps (fixed-point cost over 2^40), `None` without a path.
    fn cost(&self, s: P, t: P) -> Option<f64> {
        let goal = self.index(t);
        let [sx, sy, _] = self.size;
        let xyz = move |c: u32| (c % sx, (c / sx) % sy, c / (sx * sy));
        pathfinding::prelude::astar(
            &self.index(s),
            |&c| {
                self.expanded.set(self.expanded.get() + 1);
                let m = self.masks[c as usize];
                (0..26usize)
                    .filter(move |&k| m >> k & 1 == 1)
                    .map(move |k| ((i64::from(c) + self.offsets[k]) as u32, self.costs[k]))
            },
            |&c| {
                let (a, b) = (xyz(c), xyz(goal));
                let mut d =
                    [a.0.abs_diff(b.0), a.1.abs_diff(b.1), a.2.abs_diff(b.2)].map(u64::from);
                d.sort_unstable();
                d[0] * self.step[2] + (d[1] - d[0]) * self.step[1] + (d[2] - d[1]) * self.step[0]
            },
            |&c| c == goal,
        )
        .map(|(_, c)| c as f64 / UNIT as f64)
    }
}

fn main() {
    let rounds: usize = std::env::var("ONEPATH_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let count: usize = std::env::var("ONEPATH_VOXEL_QUERIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    for (name, seed, percent, lo, hi) in [
        ("open", 7u64, 4u64, 2u32, 12u32),
        ("cluttered", 11, 20, 1, 4),
    ] {
        let only = std::env::var("ONEPATH_VOXEL_CLASS").ok();
        if only
            .as_ref()
            .is_some_and(|c| !c.starts_with(&format!("{name} ")))
        {
            continue; // no class of this level asked for: not built
        }
        let t0 = Instant::now();
        let g = level(seed, percent, lo, hi);
        let base = Baseline3d::new(&g);
        println!(
            "level {name}: {} x {} x {} voxels, built in {:.1} s",
            SIZE[0],
            SIZE[1],
            SIZE[2],
            t0.elapsed().as_secs_f64()
        );
        for (class, long) in [("short", false), ("long", true)] {
            if std::env::var("ONEPATH_VOXEL_CLASS").is_ok_and(|c| c != format!("{name} {class}")) {
                continue;
            }
            let qs = queries(&g, seed * 31 + u64::from(long), count, long);
            let mut ours = VoxelAStar::new(VoxelOptions::default()).expect("options");
            let mut expanded = 0u64;
            let base_before = base.expanded.get();
            for &(s, t) in &qs {
                let r = ours.find_path(&g, s, t).expect("query");
                let b = base.cost(s, t).expect("baseline path");
                assert!(
                    (r.cost - b).abs() <= 1e-9 * b.max(1.0),
                    "{s:?} -> {t:?}: {} against the baseline's {b}",
                    r.cost
                );
                expanded += u64::from(r.expanded);
            }
            let base_expanded = base.expanded.get() - base_before;
            if std::env::var_os("ONEPATH_VOXEL_PROFILE").is_some() {
                let t = Instant::now();
                while t.elapsed().as_secs_f64() < 5.0 {
                    for &(s, t) in &qs {
                        let _ = ours.find_path(&g, s, t);
                    }
                }
                continue;
            }
            // Peak memory: a fresh engine, then the whole class.
            let mut ours = VoxelAStar::new(VoxelOptions::default()).expect("options");
            let (_, peak_ours) = peak_of(|| {
                for &(s, t) in &qs {
                    let _ = ours.find_path(&g, s, t);
                }
            });
            let held = ours.bytes_held();
            let (_, peak_base) = peak_of(|| {
                for &(s, t) in &qs {
                    let _ = base.cost(s, t);
                }
            });
            let (mut best_ours, mut best_base) = (f64::INFINITY, f64::INFINITY);
            let mut sink = 0.0;
            for _ in 0..rounds {
                let t = Instant::now();
                for &(s, t) in &qs {
                    sink += ours.find_path(&g, s, t).map_or(0.0, |r| r.cost);
                }
                best_ours = best_ours.min(t.elapsed().as_secs_f64());
                let t = Instant::now();
                for &(s, t) in &qs {
                    sink += base.cost(s, t).unwrap_or(0.0);
                }
                best_base = best_base.min(t.elapsed().as_secs_f64());
            }
            let n = qs.len() as f64;
            println!(
                "  {name} {class}: {} queries, expansions/query {:.0} (pathfinding {:.0}) (checksum {sink:.1})",
                qs.len(),
                expanded as f64 / n,
                base_expanded as f64 / n
            );
            println!(
                "    VoxelAStar  {:>10.1} µs/query  peak {:>8.2} MB (held between searches {:.2} MB)",
                best_ours / n * 1e6,
                peak_ours as f64 / 1e6,
                held as f64 / 1e6
            );
            println!(
                "    pathfinding {:>10.1} µs/query  peak {:>8.2} MB   ratio {:.2}",
                best_base / n * 1e6,
                peak_base as f64 / 1e6,
                best_base / best_ours
            );
        }
    }
}
