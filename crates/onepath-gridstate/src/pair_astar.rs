//! The specialised A* of [`GridSearch`](crate::GridSearch) (saved as mode 1): unit area
//! costs, costs kept as exact (straight, diagonal) step pairs.
//!
//! Open list: an indexed 4-ary heap (one slot per open cell, decrease-key) ordered by
//! the exact f pair, then the smaller h pair (= the larger g pair, the deeper cell) first,
//! then the smaller cell index — a total order, so the pop order depends only on the set
//! of open cells (the visited cells that are not closed), which is why the saved state
//! needs no heap. One iteration = one open cell popped and closed.
//!
//! Speed: a slot holds f and h as f64. On grids of at most 2^22 cells every pair
//! component is below 2^23, where two distinct pairs `a + b√2` provably differ by more
//! than the rounding of their f64 values (|p + q√2| ≥ 1/((1+√2)N) for integers
//! |p|, |q| ≤ N), so comparing the f64 values *is* the exact comparison and equal values
//! mean equal pairs. On larger grids near-equal values fall back to the exact integer
//! comparison of the pairs, read from the cell records.
//!
//! The per-cell record (a, b, heap position) is one 12-byte struct: every access reads
//! them together. Visited and closed live in the one-byte `flags` (bit 4 visited), reset
//! through the list of touched cells when the next search begins, so the common test
//! "neighbour already closed" reads one byte and no record.

use std::cmp::Ordering;

use crate::move_mask::PAIR_DIRS;
use crate::octile::{cmp_pairs, cmp_pairs_fast, pair_f64};
use crate::result::SearchStatus;

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
    pos: u32,
}

/// `Rec::pos` of the held slot.
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
    touched: Vec<u32>,
    rec: Vec<Rec>,
    pub(crate) flags: Vec<u8>,
    heap: Vec<Slot>,
    /// One open slot held outside the heap: a successor that came before the heap's top
    /// when it was generated (very often the next cell popped, so it skips the heap).
    /// Pops take the smaller of it and the heap's top, so the pop order is unchanged.
    held: Option<Slot>,
    exact_fallback: bool,
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
        if self.rec.len() != n {
            self.rec = vec![Rec::default(); n];
            self.flags = vec![0; n];
            self.touched.clear();
        }
        for &c in &self.touched {
            self.flags[c as usize] = 0;
        }
        self.touched.clear();
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
        self.record = record;
        self.expansions.clear();
        self.status = SearchStatus::InProgress;
        if !walkable(start) || !walkable(goal) {
            self.status = SearchStatus::NoPath;
            return;
        }
        let s = start as usize;
        self.rec[s] = Rec { a: 0, b: 0, pos: 0 };
        self.flags[s] = VISITED;
        self.touched.push(start);
        let (ha, hb) = self.estimate_xy(i64::from(start % width), i64::from(start / width));
        let h = pair_f64(ha, hb);
        self.heap.push(Slot {
            f: h,
            h,
            cell: start,
        });
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

    pub(crate) fn step(&mut self, masks: &[u8], max_iterations: u64) -> SearchStatus {
        let w = self.width as i64;
        let offsets: [i64; 8] = PAIR_DIRS.map(|(dx, dy)| i64::from(dy) * w + i64::from(dx));
        let mut done = 0u64;
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
            self.iterations = self.iterations.saturating_add(1);
            let c = top.cell as usize;
            self.flags[c] |= CLOSED;
            let Rec { a: ga, b: gb, .. } = self.rec[c];
            if top.cell == self.goal {
                self.path_a = ga;
                self.path_b = gb;
                self.status = SearchStatus::Found;
                break;
            }
            self.expanded = self.expanded.saturating_add(1);
            if self.record {
                self.expansions.push(top.cell);
            }
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
                    r.pos
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
                    self.rec[n] = Rec {
                        a: na,
                        b: nb,
                        pos: 0,
                    };
                    self.touched.push(n as u32);
                    self.push_new(slot);
                }
            }
        }
        self.status
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
        if self.rec.len() != n {
            self.rec = vec![Rec::default(); n];
            self.flags = vec![0; n];
            self.touched.clear();
        }
        for &c in &self.touched {
            self.flags[c as usize] = 0;
        }
        self.touched.clear();
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
        self.record = record;
        self.expansions.clear();
        for &(c, a, b, f) in entries {
            let i = c as usize;
            if i >= n {
                continue;
            }
            self.rec[i] = Rec { a, b, pos: 0 };
            self.flags[i] = VISITED | (f & 15);
            self.touched.push(c);
        }
        for &(c, a, b, f) in entries {
            if f & CLOSED != 0 || c as usize >= n {
                continue;
            }
            let (ha, hb) = self.estimate_xy(i64::from(c % width), i64::from(c / width));
            let slot = Slot {
                f: pair_f64(a.saturating_add(ha), b.saturating_add(hb)),
                h: pair_f64(ha, hb),
                cell: c,
            };
            self.heap_push(slot);
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
                self.rec[e.cell as usize].pos = HELD;
            }
            Some(h) if beats_top && self.before(&e, &h) => {
                self.held = Some(e);
                self.rec[e.cell as usize].pos = HELD;
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
                self.rec[self.heap[i].cell as usize].pos = i as u32;
                i = p;
            } else {
                break;
            }
        }
        self.heap[i] = e;
        self.rec[e.cell as usize].pos = i as u32;
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
                self.rec[self.heap[i].cell as usize].pos = i as u32;
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
    use crate::grid::Grid;
    use crate::move_mask::MoveMasks;
    use crate::options::{Connectivity, DiagonalRule};
    use proptest::prelude::*;

    fn run(grid: &Grid, s: u32, t: u32, exact: bool) -> (SearchStatus, u32, u32, u32, Vec<u32>) {
        let mut masks = MoveMasks::default();
        masks.ensure(grid, Connectivity::Eight, DiagonalRule::BothOrthogonalFree);
        let mut p = PairAStar::default();
        let cells = grid.cells();
        p.begin(
            grid.width(),
            grid.height(),
            &masks.masks,
            |c| cells[c as usize] != WALL_AREA,
            s,
            t,
            false,
            false,
            true,
        );
        p.exact_fallback = exact;
        let st = p.step(&masks.masks, u64::MAX);
        (st, p.path_a, p.path_b, p.expanded, p.expansions.clone())
    }

    const WALL_AREA: u8 = crate::area::WALL;

    proptest! {
        // The integer fallback used on grids above 2^22 cells orders slots exactly as the
        // f64 fast path does below that size.
        #[test]
        fn exact_fallback_orders_like_the_fast_path(w in 1u32..24, h in 1u32..24, seed in any::<u64>()) {
            let mut g = Grid::new(w, h).unwrap();
            let mut r = seed | 1;
            for y in 0..h {
                for x in 0..w {
                    r ^= r << 13; r ^= r >> 7; r ^= r << 17;
                    if r % 4 == 0 { g.set_blocked(x, y, true).unwrap(); }
                }
            }
            let n = w * h;
            let (s, t) = ((seed % u64::from(n)) as u32, ((seed >> 20) % u64::from(n)) as u32);
            prop_assert_eq!(run(&g, s, t, false), run(&g, s, t, true));
        }
    }
}
