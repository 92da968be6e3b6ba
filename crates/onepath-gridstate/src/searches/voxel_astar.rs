//! A* on a [`VoxelGrid`]: its options, its moves and estimates, and its engine.
//!
//! **Keys.** A k-axis move costs √k times the entered voxel's area multiplier. When every
//! area multiplier is the same value m and the heuristic weight is 1 or 0 (*exact mode*),
//! a cost so far is kept as its step counts (a, b, c) — a unit, b √2 and c √3 steps, cost
//! m·(a + b√2 + c√3) — and so is the estimate, and keys are compared *exactly* (see
//! [`cmp_steps`]): equally good paths have equal keys whatever the order of their moves,
//! so the "larger g first" tie-break sends the search straight along a plateau instead of
//! over it (f64 sums of 1, √2 and √3 differ in their last bits along equally good paths,
//! never tie, and the search used to fan out over the whole plateau). Otherwise
//! (*f64 mode*: differing multipliers, or another weight) a cost so far is an f64 sum of
//! the move costs, f = g + weight × estimate × smallest multiplier, as the generic A* does.
//!
//! **Pop order** (both modes): the smaller f, then the larger g, then the smaller node
//! index. The open list is a binary heap with lazy deletion: an improved voxel is pushed
//! again (its new key comes first, the estimate being the same), an entry whose voxel is
//! already closed is dropped when met and is not an iteration.
//!
//! **Memory.** Per-voxel records (cost so far, the move that reached the voxel, open or
//! closed) live in pages of 4³ voxels taken when a search first touches them
//! (`open_lists/paged.rs`), kept and reused by the next search: a search costs memory in
//! proportion to the voxels it touches, not to the grid.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::f64::consts::SQRT_2;

use crate::error::GridError;
use crate::open_lists::paged::PagedRecords;
use crate::searches::options::{check_weight, DiagonalRule};
use crate::searches::result::{GridPath, GridPathStatus, SearchStatus};
use crate::searches::sliced::{Began, SlicedSearch, SpaceKey};
use crate::spaces::area::WALL;
use crate::spaces::voxel::VoxelGrid;

/// √3 as the f64 nearest to it (`3f64.sqrt()`, correctly rounded).
const SQRT_3: f64 = 1.732_050_807_568_877_2;

/// Neighbourhood of a voxel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum VoxelConnectivity {
    /// Faces (cost 1).
    Six,
    /// Faces and edges (cost √2 for an edge move).
    Eighteen,
    /// Faces, edges and corners (cost √3 for a corner move).
    #[default]
    TwentySix,
}

/// Options of a voxel query. The diagonal rule applies to multi-axis moves: the
/// *orthogonal neighbours* of a move are the cells reached by each strict, non-empty
/// subset of its axis steps; `Always` ignores them, `NoCornerCutting` needs at least one
/// passable, `BothOrthogonalFree` needs all passable (every voxel of the move's bounding
/// box free, the rule of the Moving AI 3D benchmark).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VoxelOptions {
    /// 6, 18 or 26 neighbours.
    pub connectivity: VoxelConnectivity,
    /// Multi-axis move rule.
    pub diagonal_rule: DiagonalRule,
    /// Heuristic weight (finite, ≥ 0).
    pub heuristic_weight: f64,
    /// Tier-1 iteration cap (0 = unlimited).
    pub iteration_budget: u64,
    /// Record expanded voxels.
    pub record_expansions: bool,
}

impl Default for VoxelOptions {
    fn default() -> Self {
        VoxelOptions {
            connectivity: VoxelConnectivity::TwentySix,
            diagonal_rule: DiagonalRule::BothOrthogonalFree,
            heuristic_weight: 1.0,
            iteration_budget: 0,
            record_expansions: false,
        }
    }
}

/// One move of the neighbourhood.
#[derive(Debug, Clone, Copy)]
struct Move {
    /// Index of the target in the 3 × 3 × 3 neighbourhood.
    cell: u8,
    /// Axes moved minus one (0: unit, 1: √2, 2: √3).
    class: u8,
    d: [i8; 3],
    /// Neighbourhood bits of the orthogonal neighbours (strict non-empty subsets).
    sides: u32,
}

/// "Reached by no move": the start.
const FROM_START: u8 = u8::MAX;

/// The moves allowed by the connectivity, in neighbourhood order (z, then y, then x).
fn move_table(connectivity: VoxelConnectivity) -> Vec<Move> {
    let max_axes = match connectivity {
        VoxelConnectivity::Six => 1,
        VoxelConnectivity::Eighteen => 2,
        VoxelConnectivity::TwentySix => 3,
    };
    let bit = |d: [i8; 3]| (d[0] + 1) as u32 + 3 * (d[1] + 1) as u32 + 9 * (d[2] + 1) as u32;
    let mut out = Vec::new();
    for dz in -1i8..=1 {
        for dy in -1i8..=1 {
            for dx in -1i8..=1 {
                let d = [dx, dy, dz];
                let axes = d.iter().filter(|&&v| v != 0).count();
                if axes == 0 || axes > max_axes {
                    continue;
                }
                let mut sides = 0u32;
                for mask in 1u32..7 {
                    let sub = [0, 1, 2].map(|k| if mask >> k & 1 == 1 { d[k] } else { 0 });
                    let uses_moved_axes_only = (0..3).all(|k| mask >> k & 1 == 0 || d[k] != 0);
                    if uses_moved_axes_only && sub != d {
                        sides |= 1 << bit(sub);
                    }
                }
                out.push(Move {
                    cell: bit(d) as u8,
                    class: (axes - 1) as u8,
                    d,
                    sides,
                });
            }
        }
    }
    out
}

/// The sign of p + q√2 (exact; |p|, |q| < 2^125).
fn sign_sqrt2(p: i128, q: i128) -> Ordering {
    match (p.cmp(&0), q.cmp(&0)) {
        (Ordering::Equal, s) | (s, Ordering::Equal) => s,
        (a, b) if a == b => a,
        (a, _) => {
            // Opposite signs: |p| against |q|√2, i.e. p² against 2q².
            let pp = wide_square(p.unsigned_abs(), 1);
            let qq = wide_square(q.unsigned_abs(), 2);
            match pp.cmp(&qq) {
                Ordering::Greater => a,
                Ordering::Less => a.reverse(),
                Ordering::Equal => Ordering::Equal,
            }
        }
    }
}

/// k·v² as a 256-bit (high, low) pair, for v < 2^126 and k ≤ 2.
fn wide_square(v: u128, k: u128) -> (u128, u128) {
    let w = v * k; // < 2^127
    let (a0, a1) = (v & u128::from(u64::MAX), v >> 64);
    let (b0, b1) = (w & u128::from(u64::MAX), w >> 64);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let mid = (p00 >> 64) + (p01 & u128::from(u64::MAX)) + (p10 & u128::from(u64::MAX));
    let lo = (p00 & u128::from(u64::MAX)) | (mid << 64);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (hi, lo)
}

/// The exact sign of p + q√2 + r√3 for |p|, |q|, |r| < 2^34.
///
/// First the f64 value: its error is below (|p| + 2|q| + 2|r|)·2^-51 (the constants
/// √2 and √3 are within 2^-53 relative, each product and sum adds a relative 2^-53),
/// so a value farther from 0 than twice that has the right sign. Nearer 0, exactly: with
/// A = p + q√2 and B = r√3, signs that agree (or a zero) decide; otherwise |A| against
/// |B| is the sign of A² − B² = (p² + 2q² − 3r²) + 2pq·√2, again the sign of m + n√2,
/// decided by comparing m² with 2n² in 256 bits. 1, √2 and √3 are linearly independent
/// over the rationals, so the value is 0 only when p = q = r = 0.
pub(crate) fn sign_steps(p: i64, q: i64, r: i64) -> Ordering {
    if p == 0 && q == 0 && r == 0 {
        return Ordering::Equal;
    }
    let v = p as f64 + q as f64 * SQRT_2 + r as f64 * SQRT_3;
    let bound = (p.unsigned_abs() + 2 * q.unsigned_abs() + 2 * r.unsigned_abs()) as f64
        * (1.0 / (1u64 << 50) as f64);
    if v > bound {
        return Ordering::Greater;
    }
    if v < -bound {
        return Ordering::Less;
    }
    exact_sign_steps(p, q, r)
}

/// [`sign_steps`] without the f64 shortcut.
fn exact_sign_steps(p: i64, q: i64, r: i64) -> Ordering {
    let (p, q, r) = (i128::from(p), i128::from(q), i128::from(r));
    let a = sign_sqrt2(p, q);
    let b = r.cmp(&0);
    if a == Ordering::Equal || a == b {
        return b.then(a);
    }
    if b == Ordering::Equal {
        return a;
    }
    // Opposite signs: whichever of |A| and |B| is larger.
    match sign_sqrt2(p * p + 2 * q * q - 3 * r * r, 2 * p * q) {
        Ordering::Less => b,
        _ => a,
    }
}

/// Compares the costs a + b√2 + c√3 of two step counts exactly.
#[inline]
pub(crate) fn cmp_steps(x: [u64; 3], y: [u64; 3]) -> Ordering {
    sign_steps(
        x[0] as i64 - y[0] as i64,
        x[1] as i64 - y[1] as i64,
        x[2] as i64 - y[2] as i64,
    )
}

/// How a mode keeps a cost so far.
trait Cost: Copy + Default + PartialEq + std::fmt::Debug {
    /// The estimate's representation.
    type H: Copy + std::fmt::Debug;
    /// `self` plus one move of `class` into a voxel of multiplier `mult`.
    fn step(self, class: u8, mult: f64) -> Self;
    /// True when `self` is a strictly smaller cost than `other`.
    fn less(self, other: Self) -> bool;
    /// f order of (g, h) pairs, then the larger g first.
    fn key_cmp(a: (Self, Self::H), b: (Self, Self::H)) -> Ordering;
    /// The cost as an f64 (times `scale`).
    fn value(self, scale: f64) -> f64;
}

/// Exact mode: step counts (unit, √2, √3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Steps([u32; 3]);

impl Steps {
    #[inline]
    fn wide(self) -> [u64; 3] {
        self.0.map(u64::from)
    }
}

impl Cost for Steps {
    type H = Steps;

    #[inline]
    fn step(mut self, class: u8, _mult: f64) -> Self {
        let c = &mut self.0[usize::from(class)];
        *c = c.saturating_add(1);
        self
    }

    #[inline]
    fn less(self, other: Self) -> bool {
        cmp_steps(self.wide(), other.wide()) == Ordering::Less
    }

    #[inline]
    fn key_cmp(a: (Self, Steps), b: (Self, Steps)) -> Ordering {
        let fa = [0, 1, 2].map(|k| u64::from(a.0 .0[k]) + u64::from(a.1 .0[k]));
        let fb = [0, 1, 2].map(|k| u64::from(b.0 .0[k]) + u64::from(b.1 .0[k]));
        if fa != fb {
            let o = cmp_steps(fa, fb);
            if o != Ordering::Equal {
                return o;
            }
        }
        if a.0 == b.0 {
            return Ordering::Equal;
        }
        cmp_steps(b.0.wide(), a.0.wide())
    }

    fn value(self, scale: f64) -> f64 {
        let [a, b, c] = self.0.map(f64::from);
        (a + b * SQRT_2 + c * SQRT_3) * scale
    }
}

/// f64 mode: sums of move costs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Sum(f64);

impl Cost for Sum {
    type H = f64;

    #[inline]
    fn step(self, class: u8, mult: f64) -> Self {
        let base = match class {
            0 => 1.0,
            1 => SQRT_2,
            _ => SQRT_3,
        };
        Sum(self.0 + base * mult)
    }

    #[inline]
    fn less(self, other: Self) -> bool {
        self.0 < other.0
    }

    #[inline]
    fn key_cmp(a: (Self, f64), b: (Self, f64)) -> Ordering {
        let (fa, fb) = (a.0 .0 + a.1, b.0 .0 + b.1);
        fa.total_cmp(&fb).then(b.0 .0.total_cmp(&a.0 .0))
    }

    fn value(self, _scale: f64) -> f64 {
        self.0
    }
}

/// Record of a voxel the current search touched.
#[derive(Debug, Clone, Copy, Default)]
struct Rec<G> {
    g: G,
    /// Index in the move table of the move that reached the voxel, or [`FROM_START`].
    via: u8,
    /// 0 untouched, 1 open, 2 closed.
    state: u8,
}

const OPEN: u8 = 1;
const CLOSED: u8 = 2;

/// An open-list entry.
#[derive(Debug, Clone, Copy)]
struct Entry<G: Cost> {
    g: G,
    h: G::H,
    node: u32,
}

impl<G: Cost> PartialEq for Entry<G> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<G: Cost> Eq for Entry<G> {}
impl<G: Cost> PartialOrd for Entry<G> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<G: Cost> Ord for Entry<G> {
    /// Reversed (std's heap is a max-heap): the entry that pops first is the greatest.
    fn cmp(&self, other: &Self) -> Ordering {
        G::key_cmp((other.g, other.h), (self.g, self.h)).then(other.node.cmp(&self.node))
    }
}

/// The engine of one mode.
#[derive(Debug, Clone, Default)]
struct Engine<G: Cost> {
    records: PagedRecords<Rec<G>>,
    open: BinaryHeap<Entry<G>>,
}

/// What a search fixes at `begin`.
#[derive(Debug, Clone, Copy, Default)]
struct Query {
    size: [u32; 3],
    start: (u32, u32, u32),
    goal: (u32, u32, u32),
    goal_node: u32,
    /// Exact mode: the common multiplier; f64 mode: weight × smallest multiplier.
    scale: f64,
    status: SearchStatus,
    expanded: u32,
    iterations: u32,
    /// The goal's cost so far once found.
    cost: f64,
}

/// Sorted axis distances (lo, mid, hi) between two voxels.
#[inline]
fn sorted_distances(a: (u32, u32, u32), b: (u32, u32, u32)) -> [u32; 3] {
    let mut d = [a.0.abs_diff(b.0), a.1.abs_diff(b.1), a.2.abs_diff(b.2)];
    if d[0] > d[1] {
        d.swap(0, 1);
    }
    if d[1] > d[2] {
        d.swap(1, 2);
    }
    if d[0] > d[1] {
        d.swap(0, 1);
    }
    d
}

/// The least step counts between two voxels through free space: 6 — lo + mid + hi unit
/// steps; 18 — (lo + mid) √2 steps and hi − lo − mid unit steps when hi ≥ lo + mid,
/// else ⌊T/2⌋ √2 steps and T mod 2 unit steps (T = lo + mid + hi); 26 — lo √3 steps,
/// mid − lo √2 steps, hi − mid unit steps. A distance of the lattice, so consistent.
#[inline]
fn estimate_steps(c: VoxelConnectivity, a: (u32, u32, u32), b: (u32, u32, u32)) -> Steps {
    let [lo, mid, hi] = sorted_distances(a, b);
    match c {
        VoxelConnectivity::Six => Steps([lo.saturating_add(mid).saturating_add(hi), 0, 0]),
        VoxelConnectivity::Eighteen => {
            let pair = lo + mid; // each below 2^31 (the grid has at most i32::MAX voxels)
            if hi >= pair {
                Steps([hi - pair, pair, 0])
            } else {
                let t = u64::from(pair) + u64::from(hi);
                Steps([(t % 2) as u32, (t / 2) as u32, 0])
            }
        }
        VoxelConnectivity::TwentySix => Steps([hi - mid, mid - lo, lo]),
    }
}

/// The estimate of f64 mode: the step counts' cost times weight × smallest multiplier.
#[inline]
fn estimate_sum(c: VoxelConnectivity, a: (u32, u32, u32), b: (u32, u32, u32), scale: f64) -> f64 {
    if scale == 0.0 {
        return 0.0;
    }
    estimate_steps(c, a, b).value(1.0) * scale
}

impl<G: Cost> Engine<G> {
    fn begin(&mut self, q: &Query, start_h: G::H) {
        self.records.reset(q.size);
        self.open.clear();
        let (x, y, z) = q.start;
        if let Some(r) = self.records.get_mut(x, y, z) {
            *r = Rec {
                g: G::default(),
                via: FROM_START,
                state: OPEN,
            };
            self.open.push(Entry {
                g: G::default(),
                h: start_h,
                node: x + q.size[0] * (y + q.size[1] * z),
            });
        }
    }

    /// Drops closed entries from the top; true when an open voxel is listed.
    fn has_open(&mut self, q: &Query) -> bool {
        while let Some(top) = self.open.peek() {
            let (x, y, z) = xyz(q.size, top.node);
            if self.records.get(x, y, z).state != CLOSED {
                return true;
            }
            self.open.pop();
        }
        false
    }

    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        grid: &VoxelGrid,
        q: &mut Query,
        moves: &[Move],
        rule: DiagonalRule,
        record: &mut Option<Vec<u32>>,
        max_iterations: u64,
        h: impl Fn((u32, u32, u32)) -> G::H,
    ) {
        let mut done = 0u64;
        let [sx, sy, _] = q.size;
        while q.status == SearchStatus::InProgress {
            if !self.has_open(q) {
                q.status = SearchStatus::NoPath;
                break;
            }
            if done >= max_iterations {
                break;
            }
            let Some(top) = self.open.pop() else { break };
            done += 1;
            q.iterations = q.iterations.saturating_add(1);
            let node = top.node;
            let (x, y, z) = xyz(q.size, node);
            if let Some(r) = self.records.get_mut(x, y, z) {
                r.state = CLOSED;
            }
            if node == q.goal_node {
                q.cost = top.g.value(q.scale);
                q.status = SearchStatus::Found;
                break;
            }
            q.expanded = q.expanded.saturating_add(1);
            if let Some(list) = record.as_mut() {
                list.push(node);
            }
            let areas = grid.neighbourhood(x, y, z);
            let mut free = 0u32;
            for (k, &a) in areas.iter().enumerate() {
                free |= u32::from(a != WALL) << k;
            }
            for (k, m) in moves.iter().enumerate() {
                if free >> m.cell & 1 == 0 {
                    continue;
                }
                let ok = m.class == 0
                    || match rule {
                        DiagonalRule::Always => true,
                        DiagonalRule::NoCornerCutting => free & m.sides != 0,
                        DiagonalRule::BothOrthogonalFree => free & m.sides == m.sides,
                    };
                if !ok {
                    continue;
                }
                // Inside the grid: the neighbourhood reads outside voxels as walls.
                let t = (
                    x.wrapping_add_signed(i32::from(m.d[0])),
                    y.wrapping_add_signed(i32::from(m.d[1])),
                    z.wrapping_add_signed(i32::from(m.d[2])),
                );
                let mult = grid.areas().get(areas[usize::from(m.cell)]);
                let Some(r) = self.records.get_mut(t.0, t.1, t.2) else {
                    continue;
                };
                if r.state == CLOSED {
                    continue;
                }
                let g = top.g.step(m.class, mult);
                if r.state == OPEN && !g.less(r.g) {
                    continue;
                }
                *r = Rec {
                    g,
                    via: k as u8,
                    state: OPEN,
                };
                self.open.push(Entry {
                    g,
                    h: h(t),
                    node: t.0 + sx * (t.1 + sy * t.2),
                });
            }
        }
    }

    /// The voxels from the start to the goal (the goal's record reached).
    fn path(&self, q: &Query, moves: &[Move]) -> Vec<u32> {
        let [sx, sy, _] = q.size;
        let mut out = Vec::new();
        let mut p = q.goal;
        let limit = self.records.pages_taken() * 64;
        loop {
            out.push(p.0 + sx * (p.1 + sy * p.2));
            let r = self.records.get(p.0, p.1, p.2);
            let Some(m) = moves.get(usize::from(r.via)) else {
                break;
            };
            if out.len() > limit {
                break;
            }
            p = (
                p.0.wrapping_add_signed(-i32::from(m.d[0])),
                p.1.wrapping_add_signed(-i32::from(m.d[1])),
                p.2.wrapping_add_signed(-i32::from(m.d[2])),
            );
        }
        out.reverse();
        out
    }
}

#[inline]
fn xyz(size: [u32; 3], node: u32) -> (u32, u32, u32) {
    let x = node % size[0];
    let r = node / size[0];
    (x, r % size[1], r / size[1])
}

/// Which mode the current search runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Mode {
    #[default]
    Exact,
    Sum,
}

/// A* on a [`VoxelGrid`].
#[derive(Debug, Clone)]
pub struct VoxelAStar {
    options: VoxelOptions,
    moves: Vec<Move>,
    mode: Mode,
    query: Query,
    exact: Engine<Steps>,
    sum: Engine<Sum>,
    expansions: Option<Vec<u32>>,
    began: Began,
}

impl VoxelAStar {
    /// A search with these options.
    pub fn new(options: VoxelOptions) -> Result<Self, GridError> {
        check_weight(options.heuristic_weight)?;
        Ok(VoxelAStar {
            options,
            moves: move_table(options.connectivity),
            mode: Mode::Exact,
            query: Query::default(),
            exact: Engine::default(),
            sum: Engine::default(),
            expansions: None,
            began: Began::not_begun(),
        })
    }

    /// True when the search begun last compares exact step counts (every area
    /// multiplier equal, heuristic weight 1 or 0); false for f64 sums.
    pub fn exact_keys(&self) -> bool {
        self.mode == Mode::Exact
    }

    /// Bytes the search holds between searches (its page tables and pages, the open
    /// list's capacity): what the largest search so far touched, not the grid's size.
    pub fn bytes_held(&self) -> usize {
        self.exact.records.bytes_held()
            + self.sum.records.bytes_held()
            + self.exact.open.capacity() * size_of::<Entry<Steps>>()
            + self.sum.open.capacity() * size_of::<Entry<Sum>>()
    }
}

/// The key of a voxel grid for the stale check: its version and its area multipliers'.
fn space_key(grid: &VoxelGrid) -> SpaceKey {
    SpaceKey {
        identity: u64::from(grid.areas().version()),
        version: u64::from(grid.version()),
    }
}

/// Sliced A* on a voxel grid; cells as (x, y, z).
impl SlicedSearch<VoxelGrid> for VoxelAStar {
    type Point = (u32, u32, u32);

    fn one_shot_budget(&self) -> u64 {
        crate::searches::sliced::one_shot_cap(self.options.iteration_budget)
    }

    /// Begins a sliced search.
    fn begin(
        &mut self,
        grid: &VoxelGrid,
        start: (u32, u32, u32),
        goal: (u32, u32, u32),
    ) -> Result<(), GridError> {
        grid.index(start.0, start.1, start.2)?;
        let goal_node = grid.index(goal.0, goal.1, goal.2)?;
        let areas = grid.areas();
        let m = areas.multipliers()[0];
        let w = self.options.heuristic_weight;
        let uniform = areas.multipliers().iter().all(|&v| v == m);
        self.mode = if uniform && (w == 1.0 || w == 0.0) {
            Mode::Exact
        } else {
            Mode::Sum
        };
        self.query = Query {
            size: grid.size(),
            start,
            goal,
            goal_node,
            scale: match self.mode {
                Mode::Exact => m,
                Mode::Sum => w * areas.min_multiplier(),
            },
            status: SearchStatus::InProgress,
            ..Query::default()
        };
        self.expansions = self.options.record_expansions.then(Vec::new);
        let walk =
            |p: (u32, u32, u32)| grid.is_walkable(i64::from(p.0), i64::from(p.1), i64::from(p.2));
        let c = self.options.connectivity;
        if !walk(start) || !walk(goal) {
            self.query.status = SearchStatus::NoPath;
            self.exact.records.reset(grid.size());
            self.exact.open.clear();
            self.sum.records.reset(grid.size());
            self.sum.open.clear();
        } else {
            match self.mode {
                Mode::Exact => {
                    let h = if w == 0.0 {
                        Steps::default()
                    } else {
                        estimate_steps(c, start, goal)
                    };
                    self.exact.begin(&self.query, h);
                }
                Mode::Sum => {
                    let h = estimate_sum(c, start, goal, self.query.scale);
                    self.sum.begin(&self.query, h);
                }
            }
        }
        self.began = Began::on(space_key(grid));
        Ok(())
    }

    /// Runs at most `max_iterations` iterations.
    fn step(&mut self, grid: &VoxelGrid, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.began.check(space_key(grid))?;
        let c = self.options.connectivity;
        let goal = self.query.goal;
        let rule = self.options.diagonal_rule;
        match self.mode {
            Mode::Exact => {
                let zero = self.options.heuristic_weight == 0.0;
                self.exact.step(
                    grid,
                    &mut self.query,
                    &self.moves,
                    rule,
                    &mut self.expansions,
                    max_iterations,
                    |t| {
                        if zero {
                            Steps::default()
                        } else {
                            estimate_steps(c, t, goal)
                        }
                    },
                )
            }
            Mode::Sum => {
                let scale = self.query.scale;
                self.sum.step(
                    grid,
                    &mut self.query,
                    &self.moves,
                    rule,
                    &mut self.expansions,
                    max_iterations,
                    |t| estimate_sum(c, t, goal, scale),
                )
            }
        }
        Ok(self.query.status)
    }

    /// The result so far.
    fn result(&self) -> Result<GridPath, GridError> {
        self.began.begun()?;
        let q = &self.query;
        let status = GridPathStatus::of(q.status);
        let found = status == GridPathStatus::Found;
        Ok(GridPath {
            status,
            nodes: match (found, self.mode) {
                (false, _) => Vec::new(),
                (true, Mode::Exact) => self.exact.path(q, &self.moves),
                (true, Mode::Sum) => self.sum.path(q, &self.moves),
            },
            cost: if found { q.cost } else { 0.0 },
            expanded: q.expanded,
            iterations: q.iterations,
            expansions: self.expansions.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_square_is_the_full_product() {
        assert_eq!(wide_square(1 << 69, 1), (1 << 10, 0));
        assert_eq!(wide_square(1 << 69, 2), (1 << 11, 0));
        let v = (1u128 << 64) + 3;
        // (2^64 + 3)² = 2^128 + 6·2^64 + 9.
        assert_eq!(wide_square(v, 1), (1, (6u128 << 64) + 9));
        assert_eq!(wide_square(u128::from(u64::MAX), 1).0, 0);
    }

    #[test]
    fn exact_sign_agrees_with_f64_where_the_value_is_far_from_zero() {
        for p in -12i64..=12 {
            for q in -12i64..=12 {
                for r in -12i64..=12 {
                    let v = p as f64 + q as f64 * SQRT_2 + r as f64 * SQRT_3;
                    let want = if v.abs() < 1e-9 {
                        Ordering::Equal
                    } else if v > 0.0 {
                        Ordering::Greater
                    } else {
                        Ordering::Less
                    };
                    assert_eq!(exact_sign_steps(p, q, r), want, "{p} {q} {r}");
                    assert_eq!(sign_steps(p, q, r), want, "{p} {q} {r}");
                }
            }
        }
    }

    #[test]
    fn near_ties_are_ordered_exactly() {
        // Pell: 665857² − 2·470832² = 1, so 665857 − 470832√2 ≈ 7.5e-7 > 0.
        assert_eq!(sign_sqrt2(665_857, -470_832), Ordering::Greater);
        assert_eq!(sign_sqrt2(-665_857, 470_832), Ordering::Less);
        // Near 2^33: 10 812 186 007² − 2·7 645 370 045² = −1, so p + q√2 ≈ −4.6e-11, far
        // below the f64 rounding of terms near 10^10: the exact branch decides.
        let (p, q) = (10_812_186_007i64, -7_645_370_045i64);
        assert_eq!(sign_steps(p, q, 0), Ordering::Less);
        assert_eq!(sign_steps(-p, -q, 0), Ordering::Greater);
        assert_eq!(exact_sign_steps(p, q, 0), Ordering::Less);
        assert_eq!(
            exact_sign_steps(4_478_554_083, -3_166_815_962, 0),
            Ordering::Greater
        );
        // With √3: r√3 against the same near-zero pair.
        assert_eq!(exact_sign_steps(p, q, 1), Ordering::Greater);
        assert_eq!(exact_sign_steps(p, q, -1), Ordering::Less);
    }

    #[test]
    fn the_move_table_holds_the_bounding_box_sides() {
        let t = move_table(VoxelConnectivity::TwentySix);
        assert_eq!(t.len(), 26);
        let corner = t.iter().find(|m| m.d == [1, 1, 1]).unwrap();
        assert_eq!((corner.class, corner.sides.count_ones()), (2, 6));
        let edge = t.iter().find(|m| m.d == [1, -1, 0]).unwrap();
        assert_eq!((edge.class, edge.sides.count_ones()), (1, 2));
        assert_eq!(move_table(VoxelConnectivity::Eighteen).len(), 18);
        assert_eq!(move_table(VoxelConnectivity::Six).len(), 6);
    }

    #[test]
    fn the_18_estimate_is_the_free_space_distance() {
        let e = |d: (u32, u32, u32)| estimate_steps(VoxelConnectivity::Eighteen, (0, 0, 0), d).0;
        assert_eq!(e((5, 1, 1)), [3, 2, 0]);
        assert_eq!(e((2, 2, 2)), [0, 3, 0]);
        assert_eq!(e((3, 2, 2)), [1, 3, 0]);
    }
}
