//! The specialised A* of [`GridSearch`](crate::GridSearch) (saved as mode 1): unit area
//! costs, costs kept as exact (straight, diagonal) step pairs.
//!
//! Pop order: the smallest exact f pair, then the smaller h pair (= the larger g pair, the
//! deeper cell) first, then the smaller cell index — a total order over the open cells
//! (the visited cells that are not closed), so the pop order depends only on that set,
//! which is why the saved state needs no open list and why the search may change open
//! lists mid-way without changing any result. One iteration = one open cell popped and
//! closed.
//!
//! Exactness: on grids of at most 2^22 cells every pair component is below 2^23, where two
//! distinct pairs `a + b√2` provably differ by more than the rounding of their f64 values
//! (|p + q√2| ≥ 1/((1+√2)N) for integers |p|, |q| ≤ N), so comparing the f64 values *is*
//! the exact comparison and equal values mean equal pairs. On larger grids near-equal
//! values fall back to the exact integer comparison of the pairs, read from the cell
//! records.
//!
//! Open lists: up to 2^22 cells, a [`BucketRing`] of 128-bit keys packing f and h in
//! fixed point (2^-26, exact by the bound above) and the cell, buckets 1/64 of a unit of
//! f wide. The octile (or Manhattan) estimate is consistent, so every successor's f lies
//! between its parent's and 2√2 above it: every open f lies in a 4-unit window above the
//! smallest. Improving an open cell pushes a second entry; the first is met after the cell
//! is closed and dropped. If a successor ever falls outside the window (a restored state
//! can be inconsistent) the search moves, for good, to the indexed 4-ary heap (decrease-key,
//! a held slot for the successor that beats the heap's top), built from the open cells;
//! larger grids use that heap from the start.
//!
//! The per-cell record (a, b) is one 8-byte struct: every access reads them together.
//! Visited and closed live in the one-byte `flags` (bit 4 visited), reset when the next
//! search begins through the list of touched cells (or all at once when more than an
//! eighth of the cells were visited), so the common test "neighbour already closed" reads
//! one byte and no record. An expansion gathers the flags of its eight neighbours first
//! and visits only the allowed moves into cells not closed.

use std::cmp::Ordering;

use crate::open_lists::ring::BucketRing;
use crate::searches::octile::{cmp_pairs, cmp_pairs_fast, pair_f64};
use crate::searches::result::SearchStatus;
use crate::spaces::move_mask::PAIR_DIRS;

/// Grids up to this many cells compare f64 keys directly (see the module docs).
const FAST_EXACT_CELLS: usize = 1 << 22;

#[derive(Debug, Clone, Copy)]
struct Slot {
    f: f64,
    h: f64,
    cell: u32,
}

#[derive(Debug, Clone, Copy, Default)]
struct Rec {
    a: u32,
    b: u32,
}

/// Fixed-point scale of bucket-ring keys: 2^26.
const FIX_BITS: u32 = 26;
/// Pair components a ring key takes (below 2^23, so a fixed-point value is below 2^51).
const RING_PAIR_LIMIT: u32 = 1 << 23;
/// Bits of the cell in a ring key (cells are below 2^22 there).
const CELL_BITS: u32 = 22;
/// Bits of the fixed-point h.
const H_BITS: u32 = 51;

/// `round(b·√2·2^26)`: the product (below 2^50 for b < 2^23) is computed in f64 with an
/// error below 2^-4, √2 itself being correct to 2^-53, and rounded half up.
#[inline(always)]
fn sqrt2_fixed(b: u32) -> u64 {
    const SCALE: f64 = std::f64::consts::SQRT_2 * (1u64 << FIX_BITS) as f64;
    (f64::from(b) * SCALE + 0.5) as i64 as u64
}

/// Entries of the table of [`sqrt2_fixed`] (larger components compute it).
const SQRT2_TABLE: usize = 2048;

/// The fixed-point value `a·2^26 + round(b·√2·2^26)` of a pair (a, b), both below
/// [`RING_PAIR_LIMIT`]. It orders pairs exactly as their values `a + b√2`: two distinct
/// such pairs differ by at least 1/((1+√2)·2^23) > 2^-24.3, i.e. by more than 3.2 units
/// of 2^-26, while the fixed-point value is within 0.5 + 2^-3 units of the exact one;
/// equal pairs give equal values.
#[inline(always)]
fn fixed(table: &[u64], a: u32, b: u32) -> u64 {
    let s = match table.get(b as usize) {
        Some(&v) => v,
        None => sqrt2_fixed(b),
    };
    (u64::from(a) << FIX_BITS) + s
}

/// A ring key: fixed-point f, then fixed-point h, then the cell, from the top.
#[inline(always)]
fn ring_key(f_fixed: u64, h_fixed: u64, cell: u32) -> u128 {
    (u128::from(f_fixed) << (H_BITS + CELL_BITS))
        | (u128::from(h_fixed) << CELL_BITS)
        | u128::from(cell)
}
/// Key bits below the bucket number: buckets are 2^20 units of 2^-26 (1/64) of f wide.
const RING_SHIFT: u32 = 20 + H_BITS + CELL_BITS;
const CELL_MASK: u32 = (1 << CELL_BITS) - 1;

/// `pos` of the held slot.
const HELD: u32 = u32::MAX;

/// Closed flag in `flags`; bits 1..=3 hold the direction to the parent.
pub(crate) const CLOSED: u8 = 1;
/// Visited flag (bit 4; not part of the saved flags).
pub(crate) const VISITED: u8 = 16;

/// The scalar fields of a mode-1 state.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairScalars {
    pub status: SearchStatus,
    pub zero_estimate: bool,
    pub four: bool,
    pub start: u32,
    pub goal: u32,
    pub expanded: u32,
    pub iterations: u32,
    pub path_a: u32,
    pub path_b: u32,
}

/// Mode-1 state.
#[derive(Debug, Clone, Default)]
pub(crate) struct PairAStar {
    pub(crate) status: SearchStatus,
    pub(crate) zero_estimate: bool,
    pub(crate) four: bool,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) start: u32,
    pub(crate) goal: u32,
    goal_x: i64,
    goal_y: i64,
    pub(crate) expanded: u32,
    pub(crate) iterations: u32,
    pub(crate) path_a: u32,
    pub(crate) path_b: u32,
    /// The visited cells, while there are at most `n / 8` of them; beyond that
    /// `touched_all` is set and the next reset clears every flag instead (a long list
    /// only pushes useful data out of the cache).
    touched: Vec<u32>,
    touched_all: bool,
    rec: Vec<Rec>,
    /// Heap position of every open cell (heap mode only; sized on entering it).
    pos: Vec<u32>,
    pub(crate) flags: Vec<u8>,
    heap: Vec<Slot>,
    /// One open slot held outside the heap: a successor that came before the heap's top
    /// when it was generated (very often the next cell popped, so it skips the heap).
    /// Pops take the smaller of it and the heap's top, so the pop order is unchanged.
    held: Option<Slot>,
    exact_fallback: bool,
    /// True while the open list is `queue` (the bucket ring) rather than `heap`
    /// and `held`; see the module docs.
    use_ring: bool,
    /// The bucket ring (keys by [`ring_key`]).
    queue: BucketRing<RING_SHIFT>,
    /// [`sqrt2_fixed`] of 0..[`SQRT2_TABLE`], filled on the first search.
    sqrt2: Vec<u64>,
    pub(crate) record: bool,
    pub(crate) expansions: Vec<u32>,
}

impl PairAStar {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn begin(
        &mut self,
        width: u32,
        height: u32,
        masks: &[u8],
        walkable: impl Fn(u32) -> bool,
        start: u32,
        goal: u32,
        zero_estimate: bool,
        four: bool,
        record: bool,
    ) {
        let n = masks.len();
        self.reset_cells(n);
        self.width = width;
        self.height = height;
        self.exact_fallback = n > FAST_EXACT_CELLS;
        self.zero_estimate = zero_estimate;
        self.four = four;
        self.start = start;
        self.goal = goal;
        self.goal_x = i64::from(goal % width);
        self.goal_y = i64::from(goal / width);
        self.expanded = 0;
        self.iterations = 0;
        self.path_a = 0;
        self.path_b = 0;
        self.heap.clear();
        self.held = None;
        self.queue.clear();
        self.use_ring = !self.exact_fallback;
        if self.sqrt2.is_empty() {
            self.sqrt2 = (0..SQRT2_TABLE as u32).map(sqrt2_fixed).collect();
        }
        if !self.use_ring {
            self.pos.resize(n, 0);
        }
        self.record = record;
        self.expansions.clear();
        self.status = SearchStatus::InProgress;
        if !walkable(start) || !walkable(goal) {
            self.status = SearchStatus::NoPath;
            return;
        }
        let s = start as usize;
        self.rec[s] = Rec { a: 0, b: 0 };
        self.flags[s] = VISITED;
        self.touch(start);
        let (ha, hb) = self.estimate_xy(i64::from(start % width), i64::from(start / width));
        let h = pair_f64(ha, hb);
        if self.use_ring {
            let key = self.ring_key_of(0, 0, ha, hb, start);
            self.queue.push(key);
        } else {
            self.heap.push(Slot {
                f: h,
                h,
                cell: start,
            });
        }
    }

    #[inline(always)]
    fn estimate_xy(&self, x: i64, y: i64) -> (u32, u32) {
        if self.zero_estimate {
            return (0, 0);
        }
        let dx = x.abs_diff(self.goal_x) as u32;
        let dy = y.abs_diff(self.goal_y) as u32;
        if self.four {
            return (dx + dy, 0);
        }
        let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
        (hi - lo, lo)
    }

    /// The ring key of a cell with cost so far (a, b) and estimate (ha, hb).
    #[inline(always)]
    fn ring_key_of(&self, a: u32, b: u32, ha: u32, hb: u32, cell: u32) -> u128 {
        ring_key(
            fixed(&self.sqrt2, a + ha, b + hb),
            fixed(&self.sqrt2, ha, hb),
            cell,
        )
    }

    /// True when the current search has seen `cell`.
    #[inline]
    pub(crate) fn is_visited(&self, cell: u32) -> bool {
        self.flags
            .get(cell as usize)
            .is_some_and(|f| f & VISITED != 0)
    }

    /// The (straight, diagonal) cost so far of a visited cell.
    #[allow(dead_code)]
    pub(crate) fn pair_of(&self, cell: u32) -> Option<(u32, u32)> {
        let r = self.rec.get(cell as usize)?;
        self.is_visited(cell).then_some((r.a, r.b))
    }

    /// Exact slot order (used only on grids above the fast-exact size, for near ties).
    fn exact_before(&self, x: &Slot, y: &Slot) -> bool {
        let pair = |s: &Slot| {
            let r = self.rec[s.cell as usize];
            let (ha, hb) = self.estimate_xy(
                i64::from(s.cell % self.width),
                i64::from(s.cell / self.width),
            );
            (r.a + ha, r.b + hb, ha, hb)
        };
        let (xfa, xfb, xha, xhb) = pair(x);
        let (yfa, yfb, yha, yhb) = pair(y);
        match cmp_pairs(xfa, xfb, yfa, yfb) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => match cmp_pairs(xha, xhb, yha, yhb) {
                Ordering::Less => true,
                Ordering::Greater => false,
                Ordering::Equal => x.cell < y.cell,
            },
        }
    }

    #[inline(always)]
    fn before(&self, x: &Slot, y: &Slot) -> bool {
        if self.exact_fallback {
            let m = 1e-9 * (1.0 + x.f);
            if (x.f - y.f).abs() <= m {
                return self.exact_before(x, y);
            }
        }
        // Branch-free lexicographic (f, h, cell): ties are common, so branches mispredict.
        (x.f < y.f) | ((x.f == y.f) & ((x.h < y.h) | ((x.h == y.h) & (x.cell < y.cell))))
    }

    /// Runs up to `max_iterations` iterations (see the module docs for one iteration).
    pub(crate) fn step(&mut self, masks: &[u8], max_iterations: u64) -> SearchStatus {
        let mut done = 0;
        if self.use_ring {
            done = self.step_ring(masks, max_iterations);
        }
        if !self.use_ring {
            self.step_heap(masks, max_iterations, done);
        }
        self.status
    }

    /// One iteration's bookkeeping for the popped open `cell`: closes it and counts it.
    /// Returns its cost pair to expand from, or `None` when it is the goal (the search
    /// has then ended `Found`).
    #[inline(always)]
    fn close(&mut self, cell: u32) -> Option<(u32, u32)> {
        self.iterations = self.iterations.saturating_add(1);
        let c = cell as usize;
        self.flags[c] |= CLOSED;
        let Rec { a, b } = self.rec[c];
        if cell == self.goal {
            self.path_a = a;
            self.path_b = b;
            self.status = SearchStatus::Found;
            return None;
        }
        self.expanded = self.expanded.saturating_add(1);
        if self.record {
            self.expansions.push(cell);
        }
        Some((a, b))
    }

    /// [`PairAStar::step`] on the heap, `done` iterations of the budget already used.
    fn step_heap(&mut self, masks: &[u8], max_iterations: u64, mut done: u64) {
        let w = self.width as i64;
        let offsets: [i64; 8] = PAIR_DIRS.map(|(dx, dy)| i64::from(dy) * w + i64::from(dx));
        while self.status == SearchStatus::InProgress {
            if self.heap.is_empty() && self.held.is_none() {
                self.status = SearchStatus::NoPath;
                break;
            }
            if done >= max_iterations {
                break;
            }
            let Some(top) = self.pop_min() else { break };
            done += 1;
            let c = top.cell as usize;
            let Some((ga, gb)) = self.close(top.cell) else {
                break;
            };
            let (cx, cy) = (c as i64 % w, c as i64 / w);
            let g_here = pair_f64(ga, gb);
            let mut bits = masks[c];
            while bits != 0 {
                let d = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let n = (c as i64 + offsets[d]) as usize;
                let (na, nb) = if d < 4 { (ga + 1, gb) } else { (ga, gb + 1) };
                let fl = self.flags[n];
                if fl & CLOSED != 0 {
                    continue;
                }
                let listed = fl & VISITED != 0;
                // Only an open cell's record is read (a new cell's is written below).
                let pos = if listed {
                    let r = self.rec[n];
                    let ng = if d < 4 {
                        g_here + 1.0
                    } else {
                        g_here + std::f64::consts::SQRT_2
                    };
                    if cmp_pairs_fast(ng, na, nb, pair_f64(r.a, r.b), r.a, r.b) != Ordering::Less {
                        continue;
                    }
                    self.pos[n]
                } else {
                    0
                };
                let (dx, dy) = PAIR_DIRS[d];
                let (ha, hb) = self.estimate_xy(cx + i64::from(dx), cy + i64::from(dy));
                let h = pair_f64(ha, hb);
                let slot = Slot {
                    f: pair_f64(na + ha, nb + hb),
                    h,
                    cell: n as u32,
                };
                self.flags[n] = VISITED | (((d as u8) ^ 2) << 1);
                if listed {
                    // Open and improved: its key only decreases.
                    self.rec[n].a = na;
                    self.rec[n].b = nb;
                    if pos == HELD {
                        self.held = Some(slot);
                    } else {
                        self.sift_up(pos as usize, slot);
                    }
                } else {
                    self.rec[n] = Rec { a: na, b: nb };
                    self.touch(n as u32);
                    self.push_new(slot);
                }
            }
        }
    }

    /// [`PairAStar::step`] on the bucket ring. Returns the iterations used; leaves
    /// `use_ring` false (with the heap built from the open cells) if a successor's f fell
    /// outside the ring's window, which a consistent estimate never gives but a restored
    /// state may.
    fn step_ring(&mut self, masks: &[u8], max_iterations: u64) -> u64 {
        let w = self.width as i64;
        let offsets: [i64; 8] = PAIR_DIRS.map(|(dx, dy)| i64::from(dy) * w + i64::from(dx));
        let mut done = 0u64;
        while self.status == SearchStatus::InProgress {
            let flags = &self.flags;
            let Some(key) = self
                .queue
                .peek(|k| flags[(k as u32 & CELL_MASK) as usize] & CLOSED != 0)
            else {
                self.status = SearchStatus::NoPath;
                break;
            };
            if done >= max_iterations {
                break;
            }
            self.queue.pop_peeked();
            let cell = key as u32 & CELL_MASK;
            done += 1;
            let c = cell as usize;
            let Some((ga, gb)) = self.close(cell) else {
                break;
            };
            // 32-bit division (cells are below 2^22 here): cheaper than 64-bit.
            let (cx, cy) = (i64::from(cell % self.width), i64::from(cell / self.width));
            let mut below = false;
            // The allowed moves into cells not closed, gathered without branches (a move
            // that leaves the grid reads a clamped cell and is masked off anyway).
            let last = self.flags.len() as i64 - 1;
            let mut open_bits = 0u8;
            let mut around = [0u8; 8];
            for (d, off) in offsets.iter().enumerate() {
                let n = (c as i64 + off).clamp(0, last) as usize;
                around[d] = self.flags[n];
                open_bits |= (!around[d] & CLOSED) << d;
            }
            let bits = masks[c] & open_bits;
            // Diagonal moves, then straight ones, in two loops (`relax` is inlined at
            // each): their branches behave differently (new cells are nearly all reached
            // diagonally first, and the improvements nearly all come from straight moves),
            // and separate loops give the predictor separate branches. (The order of the
            // two loops changes no answer: they relax different cells; diagonal first
            // measured ~2 % faster.)
            below |= self.relax(bits & 0xF0, c, (cx, cy), (ga, gb + 1), &offsets, &around);
            below |= self.relax(bits & 0x0F, c, (cx, cy), (ga + 1, gb), &offsets, &around);
            if below {
                self.switch_to_heap();
                break;
            }
        }
        done
    }

    /// Relaxes the moves in `bits` (all straight or all diagonal, giving the successors'
    /// cost pair `(na, nb)`) out of cell `c` at `(cx, cy)` whose neighbours' flags are
    /// `around`. Returns true if a successor fell outside the ring's window.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn relax(
        &mut self,
        mut bits: u8,
        c: usize,
        (cx, cy): (i64, i64),
        (na, nb): (u32, u32),
        offsets: &[i64; 8],
        around: &[u8; 8],
    ) -> bool {
        let mut below = false;
        let g_new = pair_f64(na, nb);
        while bits != 0 {
            let d = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let n = (c as i64 + offsets[d]) as usize;
            let fresh = around[d] & VISITED == 0;
            // Below the fast-exact size (the ring's domain) comparing the f64 values of
            // two pairs is comparing the pairs. A fresh cell's record is stale data, read
            // only to keep this free of branches.
            let r = self.rec[n];
            if !(fresh | (g_new < pair_f64(r.a, r.b))) {
                continue;
            }
            // A fresh cell is remembered for the reset; an improved one keeps its old
            // entry queued, dropped when met (its cell is closed by then, the new f being
            // smaller).
            if fresh {
                self.touch(n as u32);
            }
            self.rec[n] = Rec { a: na, b: nb };
            self.flags[n] = VISITED | (((d as u8) ^ 2) << 1);
            let (dx, dy) = PAIR_DIRS[d];
            let (ha, hb) = self.estimate_xy(cx + i64::from(dx), cy + i64::from(dy));
            let key = self.ring_key_of(na, nb, ha, hb, n as u32);
            below |= !self.queue.push(key);
        }
        below
    }

    /// Leaves the monotone queue for the heap, which is built from the open cells (the
    /// pop order depends only on that set).
    #[cold]
    fn switch_to_heap(&mut self) {
        self.use_ring = false;
        self.pos.resize(self.rec.len(), 0);
        self.queue.clear();
        self.heap.clear();
        self.held = None;
        let open: Vec<u32> = if self.touched_all {
            self.visited_cells().collect()
        } else {
            self.touched.clone()
        };
        for c in open {
            if self.flags[c as usize] & CLOSED == 0 {
                let slot = self.slot_of(c);
                self.heap_push(slot);
            }
        }
    }

    /// Sizes the per-cell arrays for `n` cells and marks every cell unvisited.
    fn reset_cells(&mut self, n: usize) {
        if self.rec.len() != n {
            self.rec = vec![Rec::default(); n];
            self.flags = vec![0; n];
        } else if self.touched_all {
            self.flags.fill(0);
        } else {
            for &c in &self.touched {
                self.flags[c as usize] = 0;
            }
        }
        self.touched.clear();
        self.touched_all = false;
    }

    /// Remembers a newly visited cell for the next reset.
    #[inline(always)]
    fn touch(&mut self, c: u32) {
        if self.touched.len() < self.flags.len() / 8 {
            self.touched.push(c);
        } else {
            self.touched_all = true;
        }
    }

    /// The open-list slot of visited cell `c`.
    fn slot_of(&self, c: u32) -> Slot {
        let r = self.rec[c as usize];
        let (ha, hb) = self.estimate_xy(i64::from(c % self.width), i64::from(c / self.width));
        Slot {
            f: pair_f64(r.a.saturating_add(ha), r.b.saturating_add(hb)),
            h: pair_f64(ha, hb),
            cell: c,
        }
    }

    /// The path start first (only meaningful when found).
    pub(crate) fn path(&self) -> Vec<u32> {
        let w = i64::from(self.width);
        let mut out = vec![self.goal];
        let mut cur = self.goal;
        while cur != self.start && out.len() <= self.rec.len() {
            let d = usize::from((self.flags[cur as usize] >> 1) & 7);
            let (dx, dy) = PAIR_DIRS[d];
            cur = (i64::from(cur) + i64::from(dy) * w + i64::from(dx)) as u32;
            out.push(cur);
        }
        out.reverse();
        out
    }

    /// Visited cells in increasing index (what the state format writes).
    pub(crate) fn visited_cells(&self) -> impl Iterator<Item = u32> + '_ {
        self.flags
            .iter()
            .enumerate()
            .filter(|(_, &f)| f & VISITED != 0)
            .map(|(i, _)| i as u32)
    }

    /// Puts a checked mode-1 state back: `entries` are the visited cells in increasing
    /// order as (cell, a, b, saved flags); the open list is rebuilt from the cells that are
    /// not closed (the pop order depends only on that set, see the module docs).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn restore(
        &mut self,
        width: u32,
        height: u32,
        n: usize,
        scalars: PairScalars,
        record: bool,
        entries: &[(u32, u32, u32, u8)],
    ) {
        self.reset_cells(n);
        self.width = width;
        self.height = height;
        self.exact_fallback = n > FAST_EXACT_CELLS;
        self.zero_estimate = scalars.zero_estimate;
        self.four = scalars.four;
        self.start = scalars.start;
        self.goal = scalars.goal;
        self.goal_x = i64::from(scalars.goal % width);
        self.goal_y = i64::from(scalars.goal / width);
        self.expanded = scalars.expanded;
        self.iterations = scalars.iterations;
        self.path_a = scalars.path_a;
        self.path_b = scalars.path_b;
        self.status = scalars.status;
        self.heap.clear();
        self.held = None;
        self.queue.clear();
        self.use_ring = !self.exact_fallback;
        if self.sqrt2.is_empty() {
            self.sqrt2 = (0..SQRT2_TABLE as u32).map(sqrt2_fixed).collect();
        }
        self.record = record;
        self.expansions.clear();
        for &(c, a, b, f) in entries {
            let i = c as usize;
            if i >= n {
                continue;
            }
            self.rec[i] = Rec { a, b };
            self.flags[i] = VISITED | (f & 15);
            self.touch(c);
        }
        let open = |&&(c, _, _, f): &&(u32, u32, u32, u8)| f & CLOSED == 0 && (c as usize) < n;
        if self.use_ring {
            // The ring starts at the smallest open key; a state with pair components
            // beyond the ring's keys or open f values spread wider than its window goes
            // to the heap.
            let mut keys = Vec::new();
            for &(c, ..) in entries.iter().filter(open) {
                let r = self.rec[c as usize];
                let (ha, hb) = self.estimate_xy(i64::from(c % width), i64::from(c / width));
                let fits = [r.a, r.b, ha, hb].iter().all(|&v| v < RING_PAIR_LIMIT / 2);
                if !fits {
                    keys.clear();
                    self.switch_to_heap();
                    break;
                }
                keys.push(self.ring_key_of(r.a, r.b, ha, hb, c));
            }
            if let Some(&min) = keys.iter().min() {
                self.queue.reset_at(min);
            }
            for &k in &keys {
                if !self.queue.push(k) {
                    self.switch_to_heap();
                    break;
                }
            }
        } else {
            self.pos.resize(n, 0);
            for &(c, ..) in entries.iter().filter(open) {
                let slot = self.slot_of(c);
                self.heap_push(slot);
            }
        }
    }

    /// The saved fields of a visited cell: (a, b, flags bits 0..=3).
    pub(crate) fn saved_entry(&self, cell: u32) -> (u32, u32, u8) {
        let r = self.rec[cell as usize];
        (r.a, r.b, self.flags[cell as usize] & 15)
    }

    /// Adds a slot for a newly opened cell: held when it comes before everything open.
    #[inline]
    fn push_new(&mut self, e: Slot) {
        let beats_top = match self.heap.first() {
            Some(top) => self.before(&e, top),
            None => true,
        };
        match self.held {
            None if beats_top => {
                self.held = Some(e);
                self.pos[e.cell as usize] = HELD;
            }
            Some(h) if beats_top && self.before(&e, &h) => {
                self.held = Some(e);
                self.pos[e.cell as usize] = HELD;
                self.heap_push(h);
            }
            _ => self.heap_push(e),
        }
    }

    #[inline]
    fn heap_push(&mut self, e: Slot) {
        self.heap.push(e);
        let i = self.heap.len() - 1;
        self.sift_up(i, e);
    }

    /// Pops the smallest open slot (the held one or the heap's top).
    #[inline]
    fn pop_min(&mut self) -> Option<Slot> {
        if let Some(h) = self.held {
            let take_held = match self.heap.first() {
                Some(top) => self.before(&h, top),
                None => true,
            };
            if take_held {
                self.held = None;
                return Some(h);
            }
        }
        self.pop()
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize, e: Slot) {
        while i > 0 {
            let p = (i - 1) / 4;
            if self.before(&e, &self.heap[p]) {
                self.heap[i] = self.heap[p];
                self.pos[self.heap[i].cell as usize] = i as u32;
                i = p;
            } else {
                break;
            }
        }
        self.heap[i] = e;
        self.pos[e.cell as usize] = i as u32;
    }

    #[inline]
    fn pop(&mut self) -> Option<Slot> {
        let top = *self.heap.first()?;
        let last = self.heap.pop()?;
        let n = self.heap.len();
        if n > 0 {
            // Floyd's pop on a 4-ary heap: walk the hole down to a leaf along the smallest
            // children (the last slot usually belongs near the bottom, so comparing it on
            // the way down is wasted), then sift the last slot up from there.
            let mut i = 0;
            loop {
                let first = 4 * i + 1;
                if first >= n {
                    break;
                }
                let end = (first + 4).min(n);
                let mut c = first;
                for k in first + 1..end {
                    if self.before(&self.heap[k], &self.heap[c]) {
                        c = k;
                    }
                }
                self.heap[i] = self.heap[c];
                self.pos[self.heap[i].cell as usize] = i as u32;
                i = c;
            }
            self.sift_up(i, last);
        }
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::searches::octile::cmp_pairs;
    use crate::searches::options::{Connectivity, DiagonalRule};
    use crate::spaces::grid::Grid;
    use crate::spaces::move_mask::MoveMasks;
    use proptest::prelude::*;

    /// Which open list a test search runs on.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Open {
        /// The bucket ring (the default below 2^22 cells).
        Ring,
        /// The heap comparing f64 keys.
        Heap,
        /// The heap with the exact integer comparison of near ties (above 2^22 cells).
        HeapExact,
    }

    type Outcome = (SearchStatus, u32, u32, u32, Vec<u32>, Vec<u32>);

    fn masks_of(grid: &Grid, conn: Connectivity) -> MoveMasks {
        let mut masks = MoveMasks::default();
        masks.ensure(grid, conn, DiagonalRule::BothOrthogonalFree);
        masks
    }

    fn begin(
        p: &mut PairAStar,
        grid: &Grid,
        masks: &MoveMasks,
        s: u32,
        t: u32,
        four: bool,
        open: Open,
    ) {
        let cells = grid.cells();
        p.begin(
            grid.width(),
            grid.height(),
            &masks.masks,
            |c| cells[c as usize] != WALL_AREA,
            s,
            t,
            false,
            four,
            true,
        );
        if open != Open::Ring {
            p.exact_fallback = open == Open::HeapExact;
            p.switch_to_heap();
        }
    }

    fn outcome(p: &PairAStar) -> Outcome {
        let path = if p.status == SearchStatus::Found {
            p.path()
        } else {
            Vec::new()
        };
        (
            p.status,
            p.path_a,
            p.path_b,
            p.expanded,
            p.expansions.clone(),
            path,
        )
    }

    fn run(grid: &Grid, s: u32, t: u32, four: bool, open: Open) -> Outcome {
        let conn = if four {
            Connectivity::Four
        } else {
            Connectivity::Eight
        };
        let masks = masks_of(grid, conn);
        let mut p = PairAStar::default();
        begin(&mut p, grid, &masks, s, t, four, open);
        p.step(&masks.masks, u64::MAX);
        outcome(&p)
    }

    const WALL_AREA: u8 = crate::spaces::area::WALL;

    fn random_grid(w: u32, h: u32, seed: u64, density: u64) -> Grid {
        let mut g = Grid::new(w, h).unwrap();
        let mut r = seed | 1;
        for y in 0..h {
            for x in 0..w {
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                if r % density == 0 {
                    g.set_blocked(x, y, true).unwrap();
                }
            }
        }
        g
    }

    proptest! {
        // The three open lists pop in the same order: the bucket ring, the heap on f64
        // keys, and the heap's integer fallback used on grids above 2^22 cells.
        #[test]
        fn every_open_list_pops_in_the_same_order(w in 1u32..40, h in 1u32..40, seed in any::<u64>(), density in 2u64..6, four in any::<bool>()) {
            let g = random_grid(w, h, seed, density);
            let n = w * h;
            let (s, t) = ((seed % u64::from(n)) as u32, ((seed >> 20) % u64::from(n)) as u32);
            let ring = run(&g, s, t, four, Open::Ring);
            prop_assert_eq!(&ring, &run(&g, s, t, four, Open::Heap));
            prop_assert_eq!(&ring, &run(&g, s, t, four, Open::HeapExact));
        }

        // A search saved part way (its visited cells) and put back continues exactly as
        // the uninterrupted one, whichever open list it left and whichever it resumes on.
        #[test]
        fn a_restored_search_continues_on_either_open_list(w in 2u32..30, h in 2u32..30, seed in any::<u64>(), cut in 0u64..200, resume_on_heap in any::<bool>()) {
            let g = random_grid(w, h, seed, 4);
            let n = w * h;
            let (s, t) = ((seed % u64::from(n)) as u32, ((seed >> 20) % u64::from(n)) as u32);
            let whole = run(&g, s, t, false, Open::Ring);
            let masks = masks_of(&g, Connectivity::Eight);
            let mut p = PairAStar::default();
            begin(&mut p, &g, &masks, s, t, false, Open::Ring);
            p.step(&masks.masks, cut);
            let entries: Vec<(u32, u32, u32, u8)> = p
                .visited_cells()
                .map(|c| {
                    let (a, b, f) = p.saved_entry(c);
                    (c, a, b, f)
                })
                .collect();
            let scalars = PairScalars {
                status: p.status,
                zero_estimate: false,
                four: false,
                start: s,
                goal: t,
                expanded: p.expanded,
                iterations: p.iterations,
                path_a: p.path_a,
                path_b: p.path_b,
            };
            let before = p.expansions.clone();
            let mut q = PairAStar::default();
            q.restore(w, h, n as usize, scalars, true, &entries);
            if resume_on_heap {
                q.switch_to_heap();
            }
            q.step(&masks.masks, u64::MAX);
            let mut got = outcome(&q);
            got.4 = [before, got.4].concat();
            prop_assert_eq!(got, whole);
        }
    }

    #[test]
    fn a_search_after_one_that_visited_most_cells_starts_clean() {
        // The first search visits far more than an eighth of the cells, so the reset
        // clears every flag instead of walking the touched list.
        let g = random_grid(60, 60, 7, 5);
        let masks = masks_of(&g, Connectivity::Eight);
        let cells = g.cells();
        let walkable = (0..3600u32).filter(|&c| cells[c as usize] != WALL_AREA);
        let (s1, t1) = (
            walkable.clone().next().unwrap(),
            walkable.clone().next_back().unwrap(),
        );
        let (s2, t2) = (
            walkable.clone().nth(1000).unwrap(),
            walkable.clone().nth(1010).unwrap(),
        );
        let mut p = PairAStar::default();
        begin(&mut p, &g, &masks, s1, t1, false, Open::Ring);
        p.step(&masks.masks, u64::MAX);
        assert!(
            p.touched_all,
            "the first search should overflow the touched list"
        );
        for open in [Open::Ring, Open::Heap] {
            begin(&mut p, &g, &masks, s2, t2, false, open);
            p.step(&masks.masks, u64::MAX);
            assert_eq!(outcome(&p), run(&g, s2, t2, false, open));
            assert_eq!(p.visited_cells().count(), {
                let mut fresh = PairAStar::default();
                begin(&mut fresh, &g, &masks, s2, t2, false, open);
                fresh.step(&masks.masks, u64::MAX);
                fresh.visited_cells().count()
            });
        }
    }

    #[test]
    fn ring_keys_order_near_ties_like_the_exact_pair_comparison() {
        // Pell pairs: p − q√2 = ±1/(p + q√2), the closest approaches of a + b√2 to each
        // other for components of their size, up to the ring's limit of 2^23.
        let table: Vec<u64> = (0..SQRT2_TABLE as u32).map(sqrt2_fixed).collect();
        let (mut p, mut q) = (1u32, 1u32);
        while q < RING_PAIR_LIMIT {
            for (x, y) in [
                (0, 0),
                (RING_PAIR_LIMIT.saturating_sub(1 + p), 0),
                (0, RING_PAIR_LIMIT.saturating_sub(1 + q)),
                (5, 7),
            ] {
                let (l, r) = ((p + x, y), (x, q + y));
                if l.0 >= RING_PAIR_LIMIT || r.1 >= RING_PAIR_LIMIT || l.1 >= RING_PAIR_LIMIT {
                    continue;
                }
                for t in [&table[..], &[][..]] {
                    let got = fixed(t, l.0, l.1).cmp(&fixed(t, r.0, r.1));
                    assert_eq!(got, cmp_pairs(l.0, l.1, r.0, r.1), "{l:?} vs {r:?}");
                }
            }
            (p, q) = (p + 2 * q, p + q);
        }
    }

    proptest! {
        #[test]
        fn ring_keys_order_pairs_like_the_exact_comparison(a1 in 0u32..RING_PAIR_LIMIT, b1 in 0u32..RING_PAIR_LIMIT, da in -3000i64..3000, db in -3000i64..3000) {
            let a2 = (i64::from(a1) + da).clamp(0, i64::from(RING_PAIR_LIMIT) - 1) as u32;
            let b2 = (i64::from(b1) + db).clamp(0, i64::from(RING_PAIR_LIMIT) - 1) as u32;
            let table: Vec<u64> = (0..SQRT2_TABLE as u32).map(sqrt2_fixed).collect();
            prop_assert_eq!(fixed(&table, a1, b1).cmp(&fixed(&table, a2, b2)), cmp_pairs(a1, b1, a2, b2));
        }
    }

    #[test]
    fn a_restored_state_whose_open_f_values_spread_wider_than_the_ring_uses_the_heap() {
        // An open corridor; the state claims cell 0 open at g = 0 and cell 9 open at a
        // g far beyond the ring's window: a state a consistent search never makes, which
        // restore accepts when the searches' own checks pass.
        let g = Grid::new(10, 1).unwrap();
        let masks = masks_of(&g, Connectivity::Eight);
        let scalars = PairScalars {
            status: SearchStatus::InProgress,
            zero_estimate: false,
            four: false,
            start: 0,
            goal: 5,
            expanded: 0,
            iterations: 0,
            path_a: 0,
            path_b: 0,
        };
        let entries = [(0, 0, 0, 0), (9, 40, 0, 0)];
        let mut p = PairAStar::default();
        p.restore(10, 1, 10, scalars, false, &entries);
        assert!(!p.use_ring);
        assert_eq!(p.step(&masks.masks, u64::MAX), SearchStatus::Found);
        assert_eq!((p.path_a, p.path_b), (5, 0));
        assert_eq!(p.path(), vec![0, 1, 2, 3, 4, 5]);
    }
}
