//! Jump point search for 8-connected grids under the
//! [`DiagonalRule::BothOrthogonalFree`](crate::DiagonalRule) rule with unit costs (the
//! specialised jump point engine of [`GridSearch`](crate::GridSearch), saved as mode 3).
//!
//! Two finders share one search: block scans on bit rows ([`BitGrid`]) and JPS+ tables
//! ([`JumpTables`]). Pruning (no corner cutting): after a straight move (dx, dy) a cell
//! keeps its natural successor and, per side s whose cell is free while the cell behind it
//! is blocked (a *forced* side), the moves s and (dx, dy) + s; after a diagonal move it
//! keeps the two components and the diagonal. A straight jump stops at a cell with a
//! forced side; a diagonal jump stops where a straight jump along either component finds
//! something. Costs are exact step pairs.
//!
//! Open list: a heap of (F, T) slots — F the f64 estimate, T the bitwise complement of the
//! cost so far as f32 in the high 32 bits and the cell in the low 32 (so on equal F the
//! deeper entry pops first, then the smaller cell) — plus a *level* (the F of the last
//! heap pop; NaN before) and a stack: an entry pushed with F equal to the level goes on
//! the stack and pops before the heap, last in first out. One iteration = one jump point
//! popped (stale entries of closed cells are discarded without counting).

use std::cmp::Ordering;

use crate::open_lists::buffers::NO_NODE;
use crate::searches::jps_plus::{dir_index, JumpTables};
use crate::searches::octile::{cmp_pairs, pair_f64};
use crate::searches::result::SearchStatus;
use crate::spaces::bitgrid::BitGrid;

/// Directions of the jump point engines, in the order of their saved "last move"
/// direction: 0 north, 1 east, 2 south, 3 west, 4 north-east, 5 south-east, 6 south-west,
/// 7 north-west (y grows south).
pub(crate) const JUMP_DIRS: [(i32, i32); 8] = [
    (0, -1),
    (1, 0),
    (0, 1),
    (-1, 0),
    (1, -1),
    (1, 1),
    (-1, 1),
    (-1, -1),
];

/// Which jump finder the jump point engine of [`GridSearch`](crate::GridSearch) uses (saved
/// as the mode-3 `finder` byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum JumpFinder {
    /// Online jumps with block scans on bit rows (0).
    #[default]
    BlockScans = 0,
    /// Precomputed JPS+ jump tables (1).
    Tables = 1,
}

const CLOSED: u8 = 1;

/// A checked mode-3 state (see `docs/grid-state.md`, "Kind 12: GridSearch", mode 3).
#[derive(Debug, Clone)]
pub(crate) struct JumpState {
    pub finder: JumpFinder,
    pub status: SearchStatus,
    pub zero_estimate: bool,
    pub start: u32,
    pub goal: u32,
    pub expanded: u32,
    pub iterations: u32,
    pub path_a: u32,
    pub path_b: u32,
    /// (cell, a, b, parent or NO_NODE, flags) in increasing cell order.
    pub entries: Vec<(u32, u32, u32, u32, u8)>,
    pub level: f64,
    pub heap: Vec<(f64, u64)>,
    pub stack: Vec<u32>,
}

/// The heap order of mode-3 slots (F, then T).
pub(crate) fn jump_slot_before(x: &(f64, u64), y: &(f64, u64)) -> bool {
    slot_before(x, y)
}

/// Mode-3 state.
#[derive(Debug, Clone, Default)]
pub(crate) struct JumpEngine {
    pub(crate) status: SearchStatus,
    pub(crate) finder: JumpFinder,
    pub(crate) zero_estimate: bool,
    pub(crate) width: u32,
    pub(crate) start: u32,
    pub(crate) goal: u32,
    pub(crate) expanded: u32,
    pub(crate) iterations: u32,
    pub(crate) path_a: u32,
    pub(crate) path_b: u32,
    stamp: Vec<u32>,
    epoch: u32,
    pub(crate) a: Vec<u32>,
    pub(crate) b: Vec<u32>,
    pub(crate) parent: Vec<u32>,
    pub(crate) flags: Vec<u8>,
    pub(crate) level: f64,
    pub(crate) heap: Vec<(f64, u64)>,
    pub(crate) stack: Vec<u32>,
    pub(crate) record: bool,
    pub(crate) expansions: Vec<u32>,
}

#[inline]
fn slot_before(x: &(f64, u64), y: &(f64, u64)) -> bool {
    match x.0.partial_cmp(&y.0) {
        Some(Ordering::Less) => true,
        Some(Ordering::Greater) => false,
        _ => x.1 < y.1,
    }
}

impl JumpEngine {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn begin(
        &mut self,
        bits: &BitGrid,
        finder: JumpFinder,
        start: u32,
        goal: u32,
        zero_estimate: bool,
        record: bool,
    ) {
        let n = (bits.width * bits.height) as usize;
        if self.stamp.len() != n {
            self.stamp = vec![0; n];
            self.a = vec![0; n];
            self.b = vec![0; n];
            self.parent = vec![NO_NODE; n];
            self.flags = vec![0; n];
            self.epoch = 0;
        }
        if self.epoch == u32::MAX {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 0;
        }
        self.epoch += 1;
        self.finder = finder;
        self.zero_estimate = zero_estimate;
        self.width = bits.width as u32;
        self.start = start;
        self.goal = goal;
        self.expanded = 0;
        self.iterations = 0;
        self.path_a = 0;
        self.path_b = 0;
        self.level = f64::NAN;
        self.heap.clear();
        self.stack.clear();
        self.record = record;
        self.expansions.clear();
        self.status = SearchStatus::InProgress;
        let (sx, sy) = self.xy(start);
        let (gx, gy) = self.xy(goal);
        if !bits.free(sx, sy) || !bits.free(gx, gy) {
            self.status = SearchStatus::NoPath;
            return;
        }
        self.relax(start, 0, 0, NO_NODE, 0);
    }

    #[inline]
    fn xy(&self, cell: u32) -> (i64, i64) {
        (i64::from(cell % self.width), i64::from(cell / self.width))
    }

    #[inline]
    fn is_closed(&self, cell: u32) -> bool {
        self.stamp[cell as usize] == self.epoch && self.flags[cell as usize] & CLOSED != 0
    }

    fn relax(&mut self, cell: u32, na: u32, nb: u32, parent: u32, dir: usize) {
        let c = cell as usize;
        if self.stamp[c] == self.epoch {
            if self.flags[c] & CLOSED != 0
                || cmp_pairs(na, nb, self.a[c], self.b[c]) != Ordering::Less
            {
                return;
            }
        } else {
            self.stamp[c] = self.epoch;
        }
        self.a[c] = na;
        self.b[c] = nb;
        self.parent[c] = parent;
        self.flags[c] = (dir as u8) << 1;
        let (ha, hb) = if self.zero_estimate {
            (0, 0)
        } else {
            let (x, y) = self.xy(cell);
            let (gx, gy) = self.xy(self.goal);
            let (dx, dy) = (x.abs_diff(gx) as u32, y.abs_diff(gy) as u32);
            let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
            (hi - lo, lo)
        };
        let f = pair_f64(na + ha, nb + hb);
        if f == self.level {
            self.stack.push(cell);
        } else {
            let g32 = pair_f64(na, nb) as f32;
            let t = (u64::from(!g32.to_bits()) << 32) | u64::from(cell);
            self.heap_push((f, t));
        }
    }

    fn discard_stale(&mut self) {
        while let Some(&c) = self.stack.last() {
            if self.is_closed(c) {
                self.stack.pop();
            } else {
                return;
            }
        }
        if !self.stack.is_empty() {
            return;
        }
        while let Some(&(_, t)) = self.heap.first() {
            if self.is_closed(t as u32) {
                self.heap_pop();
            } else {
                return;
            }
        }
    }

    fn pop_live(&mut self) -> Option<u32> {
        if let Some(c) = self.stack.pop() {
            return Some(c);
        }
        let (f, t) = self.heap_pop()?;
        self.level = f;
        Some(t as u32)
    }

    pub(crate) fn step(
        &mut self,
        bits: &BitGrid,
        tables: Option<&JumpTables>,
        max_iterations: u64,
    ) -> SearchStatus {
        let mut done = 0u64;
        let goal_xy = self.xy(self.goal);
        while self.status == SearchStatus::InProgress {
            self.discard_stale();
            if self.stack.is_empty() && self.heap.is_empty() {
                self.status = SearchStatus::NoPath;
                break;
            }
            if done >= max_iterations {
                break;
            }
            let Some(cell) = self.pop_live() else { break };
            done += 1;
            self.iterations = self.iterations.saturating_add(1);
            let c = cell as usize;
            self.flags[c] |= CLOSED;
            let (ga, gb) = (self.a[c], self.b[c]);
            if cell == self.goal {
                self.path_a = ga;
                self.path_b = gb;
                self.status = SearchStatus::Found;
                break;
            }
            self.expanded = self.expanded.saturating_add(1);
            if self.record {
                self.expansions.push(cell);
            }
            let (x, y) = self.xy(cell);
            let dirs = if cell == self.start {
                0xFF
            } else {
                pruned(bits, x, y, usize::from(self.flags[c] >> 1) & 7)
            };
            let mut m = dirs;
            while m != 0 {
                let d = m.trailing_zeros() as usize;
                m &= m - 1;
                let (dx, dy) = (i64::from(JUMP_DIRS[d].0), i64::from(JUMP_DIRS[d].1));
                let found = match (self.finder, tables) {
                    (JumpFinder::Tables, Some(t)) => t.successor(x, y, d, goal_xy),
                    _ if d < 4 => bits.jump_straight(x, y, dx, dy, goal_xy),
                    _ => bits.jump_diagonal(x, y, dx, dy, goal_xy),
                };
                if let Some((nx, ny, k)) = found {
                    let n = (ny * i64::from(self.width) + nx) as u32;
                    let (na, nb) = if d < 4 {
                        (ga.saturating_add(k), gb)
                    } else {
                        (ga, gb.saturating_add(k))
                    };
                    self.relax(n, na, nb, cell, d);
                }
            }
        }
        self.status
    }

    /// The path start first, every cell included (only meaningful when found).
    pub(crate) fn path(&self) -> Vec<u32> {
        let mut out = vec![self.goal];
        let mut cur = self.goal;
        let w = i64::from(self.width);
        while cur != self.start && out.len() <= self.stamp.len() {
            let p = self.parent[cur as usize];
            if p == NO_NODE {
                break;
            }
            let (cx, cy) = self.xy(cur);
            let (px, py) = self.xy(p);
            let (sx, sy) = ((px - cx).signum(), (py - cy).signum());
            let (mut x, mut y) = (cx, cy);
            while (x, y) != (px, py) {
                // Hops are straight or diagonal lines; the last steps straighten out.
                if x != px {
                    x += sx;
                }
                if y != py {
                    y += sy;
                }
                out.push((y * w + x) as u32);
            }
            cur = p;
        }
        out.reverse();
        out
    }

    /// Visited cells in increasing index with (a, b, parent, flags).
    pub(crate) fn saved_entries(&self) -> Vec<(u32, u32, u32, u32, u8)> {
        let e = self.epoch;
        self.stamp
            .iter()
            .enumerate()
            .filter(|(_, &s)| s == e)
            .map(|(i, _)| {
                (
                    i as u32,
                    self.a[i],
                    self.b[i],
                    self.parent[i],
                    self.flags[i],
                )
            })
            .collect()
    }

    /// Puts a checked mode-3 state back over `n` cells of a grid `width` wide.
    pub(crate) fn restore(&mut self, n: usize, width: u32, st: JumpState, record: bool) {
        if self.stamp.len() != n {
            self.stamp = vec![0; n];
            self.a = vec![0; n];
            self.b = vec![0; n];
            self.parent = vec![NO_NODE; n];
            self.flags = vec![0; n];
            self.epoch = 0;
        }
        if self.epoch == u32::MAX {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 0;
        }
        self.epoch += 1;
        for &(c, a, b, p, f) in &st.entries {
            let i = c as usize;
            if i < n {
                self.stamp[i] = self.epoch;
                self.a[i] = a;
                self.b[i] = b;
                self.parent[i] = p;
                self.flags[i] = f;
            }
        }
        self.finder = st.finder;
        self.zero_estimate = st.zero_estimate;
        self.width = width;
        self.start = st.start;
        self.goal = st.goal;
        self.expanded = st.expanded;
        self.iterations = st.iterations;
        self.path_a = st.path_a;
        self.path_b = st.path_b;
        self.level = st.level;
        self.heap = st.heap;
        self.stack = st.stack;
        self.status = st.status;
        self.record = record;
        self.expansions.clear();
    }

    fn heap_push(&mut self, e: (f64, u64)) {
        self.heap.push(e);
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let p = (i - 1) / 2;
            if slot_before(&e, &self.heap[p]) {
                self.heap[i] = self.heap[p];
                i = p;
            } else {
                break;
            }
        }
        self.heap[i] = e;
    }

    fn heap_pop(&mut self) -> Option<(f64, u64)> {
        let top = *self.heap.first()?;
        let last = self.heap.pop()?;
        let n = self.heap.len();
        if n > 0 {
            let mut i = 0;
            loop {
                let l = 2 * i + 1;
                if l >= n {
                    break;
                }
                let r = l + 1;
                let c = if r < n && slot_before(&self.heap[r], &self.heap[l]) {
                    r
                } else {
                    l
                };
                if slot_before(&self.heap[c], &last) {
                    self.heap[i] = self.heap[c];
                    i = c;
                } else {
                    break;
                }
            }
            self.heap[i] = last;
        }
        Some(top)
    }
}

/// The directions kept after arriving at (x, y) by a move in direction `d`.
#[inline]
fn pruned(bits: &BitGrid, x: i64, y: i64, d: usize) -> u8 {
    let (dx, dy) = (i64::from(JUMP_DIRS[d].0), i64::from(JUMP_DIRS[d].1));
    if d >= 4 {
        return (1 << dir_index(dx, 0)) | (1 << dir_index(0, dy)) | (1 << d);
    }
    let mut m = 1u8 << d;
    for s in [-1i64, 1] {
        // Side s is perpendicular to (dx, dy).
        let (sx, sy) = (dy * s, dx * s);
        if bits.free(x + sx, y + sy) && !bits.free(x + sx - dx, y + sy - dy) {
            m |= 1 << dir_index(sx, sy);
            m |= 1 << dir_index(dx + sx, dy + sy);
        }
    }
    m
}
