//! The specialised A* of [`GridSearch`](crate::GridSearch) (saved as mode 1): unit area
//! costs, costs kept as exact (straight, diagonal) step pairs, struct-of-arrays cell data.
//!
//! Open list: a binary heap of entries with lazy deletion, ordered by the exact f pair,
//! then the larger g pair first, then the smaller cell index — a total order, so the pop
//! order depends only on the set of open cells (the visited cells that are not closed),
//! which is why the saved state needs no heap. One iteration = one open cell popped and
//! closed (stale entries are discarded without counting).

use std::cmp::Ordering;

use crate::move_mask::PAIR_DIRS;
use crate::octile::{cmp_pairs, cmp_pairs_fast, pair_f64};
use crate::result::SearchStatus;

#[derive(Debug, Clone, Copy)]
struct Entry {
    fk: f64,
    fa: u32,
    fb: u32,
    ga: u32,
    gb: u32,
    cell: u32,
}

#[inline]
fn before(x: &Entry, y: &Entry) -> bool {
    match cmp_pairs_fast(x.fk, x.fa, x.fb, y.fk, y.fa, y.fb) {
        Ordering::Less => true,
        Ordering::Greater => false,
        Ordering::Equal => match cmp_pairs(x.ga, x.gb, y.ga, y.gb) {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal => x.cell < y.cell,
        },
    }
}

/// Closed flag in `flags`; bits 1..=3 hold the direction to the parent.
pub(crate) const CLOSED: u8 = 1;

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
    pub(crate) expanded: u32,
    pub(crate) iterations: u32,
    pub(crate) path_a: u32,
    pub(crate) path_b: u32,
    stamp: Vec<u32>,
    epoch: u32,
    pub(crate) a: Vec<u32>,
    pub(crate) b: Vec<u32>,
    pub(crate) flags: Vec<u8>,
    heap: Vec<Entry>,
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
        if self.stamp.len() != n {
            self.stamp = vec![0; n];
            self.a = vec![0; n];
            self.b = vec![0; n];
            self.flags = vec![0; n];
            self.epoch = 0;
        }
        if self.epoch == u32::MAX {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 0;
        }
        self.epoch += 1;
        self.width = width;
        self.height = height;
        self.zero_estimate = zero_estimate;
        self.four = four;
        self.start = start;
        self.goal = goal;
        self.expanded = 0;
        self.iterations = 0;
        self.path_a = 0;
        self.path_b = 0;
        self.heap.clear();
        self.record = record;
        self.expansions.clear();
        self.status = SearchStatus::InProgress;
        if !walkable(start) || !walkable(goal) {
            self.status = SearchStatus::NoPath;
            return;
        }
        let s = start as usize;
        self.stamp[s] = self.epoch;
        self.a[s] = 0;
        self.b[s] = 0;
        self.flags[s] = 0;
        let (ha, hb) = self.estimate(start);
        self.push(Entry {
            fk: pair_f64(ha, hb),
            fa: ha,
            fb: hb,
            ga: 0,
            gb: 0,
            cell: start,
        });
    }

    #[inline]
    fn estimate(&self, cell: u32) -> (u32, u32) {
        if self.zero_estimate {
            return (0, 0);
        }
        let (x, y) = (cell % self.width, cell / self.width);
        let (gx, gy) = (self.goal % self.width, self.goal / self.width);
        let dx = x.abs_diff(gx);
        let dy = y.abs_diff(gy);
        if self.four {
            return (dx + dy, 0);
        }
        let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
        (hi - lo, lo)
    }

    #[inline]
    pub(crate) fn is_visited(&self, cell: u32) -> bool {
        self.stamp.get(cell as usize) == Some(&self.epoch)
    }

    #[inline]
    fn is_closed(&self, cell: u32) -> bool {
        self.is_visited(cell) && self.flags[cell as usize] & CLOSED != 0
    }

    fn discard_stale(&mut self) {
        while let Some(top) = self.heap.first() {
            let c = top.cell as usize;
            if self.is_closed(top.cell) || self.a[c] != top.ga || self.b[c] != top.gb {
                self.pop();
            } else {
                break;
            }
        }
    }

    pub(crate) fn step(&mut self, masks: &[u8], max_iterations: u64) -> SearchStatus {
        let w = self.width as i64;
        let offsets: [i64; 8] = PAIR_DIRS.map(|(dx, dy)| i64::from(dy) * w + i64::from(dx));
        let mut done = 0u64;
        while self.status == SearchStatus::InProgress {
            self.discard_stale();
            if self.heap.is_empty() {
                self.status = SearchStatus::NoPath;
                break;
            }
            if done >= max_iterations {
                break;
            }
            let Some(top) = self.pop() else { break };
            done += 1;
            self.iterations = self.iterations.saturating_add(1);
            let c = top.cell as usize;
            self.flags[c] |= CLOSED;
            if top.cell == self.goal {
                self.path_a = top.ga;
                self.path_b = top.gb;
                self.status = SearchStatus::Found;
                break;
            }
            self.expanded = self.expanded.saturating_add(1);
            if self.record {
                self.expansions.push(top.cell);
            }
            let mut bits = masks[c];
            while bits != 0 {
                let d = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let n = (c as i64 + offsets[d]) as usize;
                let (na, nb) = if d < 4 {
                    (top.ga + 1, top.gb)
                } else {
                    (top.ga, top.gb + 1)
                };
                if self.stamp[n] == self.epoch {
                    if self.flags[n] & CLOSED != 0 {
                        continue;
                    }
                    if cmp_pairs(na, nb, self.a[n], self.b[n]) != Ordering::Less {
                        continue;
                    }
                } else {
                    self.stamp[n] = self.epoch;
                }
                self.a[n] = na;
                self.b[n] = nb;
                self.flags[n] = ((d as u8) ^ 2) << 1;
                let (ha, hb) = self.estimate(n as u32);
                let (fa, fb) = (na + ha, nb + hb);
                self.push(Entry {
                    fk: pair_f64(fa, fb),
                    fa,
                    fb,
                    ga: na,
                    gb: nb,
                    cell: n as u32,
                });
            }
        }
        self.status
    }

    /// The path start first (only meaningful when found).
    pub(crate) fn path(&self) -> Vec<u32> {
        let w = self.width as i64;
        let mut out = vec![self.goal];
        let mut cur = self.goal;
        while cur != self.start && out.len() <= self.stamp.len() {
            let d = usize::from((self.flags[cur as usize] >> 1) & 7);
            let (dx, dy) = PAIR_DIRS[d];
            cur = (i64::from(cur) + i64::from(dy) * w + i64::from(dx)) as u32;
            out.push(cur);
        }
        out.reverse();
        out
    }

    /// Visited cells in increasing index (what the state format writes).
    #[allow(dead_code)]
    pub(crate) fn visited_cells(&self) -> impl Iterator<Item = u32> + '_ {
        let e = self.epoch;
        self.stamp
            .iter()
            .enumerate()
            .filter(move |(_, &s)| s == e)
            .map(|(i, _)| i as u32)
    }

    fn push(&mut self, e: Entry) {
        self.heap.push(e);
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let p = (i - 1) / 2;
            if before(&e, &self.heap[p]) {
                self.heap[i] = self.heap[p];
                i = p;
            } else {
                break;
            }
        }
        self.heap[i] = e;
    }

    fn pop(&mut self) -> Option<Entry> {
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
                let c = if r < n && before(&self.heap[r], &self.heap[l]) {
                    r
                } else {
                    l
                };
                if before(&self.heap[c], &last) {
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
