//! Walkability as bit rows (and bit columns) with a one-cell wall border, and the block
//! scans of jump point search: a straight jump examines 64 cells per word operation.

use crate::spaces::area::WALL;
use crate::spaces::grid::Grid;

/// Padded bit rows and columns: bit `x + 1` of row `y + 1` is cell (x, y); the border
/// (x = −1, x = width, y = −1, y = height) is blocked.
#[derive(Debug, Clone, Default)]
pub(crate) struct BitGrid {
    key: Option<(u64, u32)>,
    pub(crate) width: i64,
    pub(crate) height: i64,
    wpr: usize,
    rows: Vec<u64>,
    wpc: usize,
    cols: Vec<u64>,
}

impl BitGrid {
    /// Rebuilds from `grid` when it is another grid or has changed.
    pub(crate) fn ensure(&mut self, grid: &Grid) {
        if self.key == Some(grid.cache_key()) {
            return;
        }
        self.key = Some(grid.cache_key());
        let w = grid.width() as usize;
        let h = grid.height() as usize;
        self.width = w as i64;
        self.height = h as i64;
        self.wpr = (w + 2).div_ceil(64);
        self.wpc = (h + 2).div_ceil(64);
        self.rows = vec![0; self.wpr * (h + 2)];
        self.cols = vec![0; self.wpc * (w + 2)];
        let cells = grid.cells();
        for y in 0..h {
            for x in 0..w {
                if cells[y * w + x] != WALL {
                    let (px, py) = (x + 1, y + 1);
                    self.rows[py * self.wpr + px / 64] |= 1 << (px % 64);
                    self.cols[px * self.wpc + py / 64] |= 1 << (py % 64);
                }
            }
        }
    }

    /// True when (x, y) is inside the grid and walkable (never fails).
    #[inline]
    pub(crate) fn free(&self, x: i64, y: i64) -> bool {
        if x < 0 || y < 0 || x >= self.width || y >= self.height {
            return false;
        }
        let (px, py) = ((x + 1) as usize, (y + 1) as usize);
        self.rows[py * self.wpr + px / 64] >> (px % 64) & 1 == 1
    }

    #[inline]
    fn row(&self, y: i64) -> &[u64] {
        let py = (y + 1) as usize;
        &self.rows[py * self.wpr..(py + 1) * self.wpr]
    }

    #[inline]
    fn col(&self, x: i64) -> &[u64] {
        let px = (x + 1) as usize;
        &self.cols[px * self.wpc..(px + 1) * self.wpc]
    }

    /// Straight scan from walkable (x, y) in direction (dx, dy) (one of them zero): the
    /// first cell ahead that is a jump point (it has a forced neighbour: a side cell free
    /// whose predecessor along the line is blocked) or the goal, with its distance; `None`
    /// when a wall comes first.
    #[inline]
    pub(crate) fn jump_straight(
        &self,
        x: i64,
        y: i64,
        dx: i64,
        dy: i64,
        goal: (i64, i64),
    ) -> Option<(i64, i64, u32)> {
        if dy == 0 {
            if y < 0 || y >= self.height {
                return None;
            }
            let (cur, s1, s2) = (self.row(y), self.row(y - 1), self.row(y + 1));
            let p0 = (x + 1) as usize;
            let (p, blocked) = if dx > 0 {
                scan_forward(cur, s1, s2, p0)
            } else {
                scan_backward(cur, s1, s2, p0)
            };
            let stop = p as i64 - 1;
            if goal.1 == y && (goal.0 - x) * dx > 0 && (stop - goal.0) * dx >= 0 {
                return Some((goal.0, y, (goal.0 - x).unsigned_abs() as u32));
            }
            if blocked {
                return None;
            }
            Some((stop, y, (stop - x).unsigned_abs() as u32))
        } else {
            if x < 0 || x >= self.width {
                return None;
            }
            let (cur, s1, s2) = (self.col(x), self.col(x - 1), self.col(x + 1));
            let p0 = (y + 1) as usize;
            let (p, blocked) = if dy > 0 {
                scan_forward(cur, s1, s2, p0)
            } else {
                scan_backward(cur, s1, s2, p0)
            };
            let stop = p as i64 - 1;
            if goal.0 == x && (goal.1 - y) * dy > 0 && (stop - goal.1) * dy >= 0 {
                return Some((x, goal.1, (goal.1 - y).unsigned_abs() as u32));
            }
            if blocked {
                return None;
            }
            Some((x, stop, (stop - y).unsigned_abs() as u32))
        }
    }

    /// Diagonal jump from (x, y): steps while the diagonal move is allowed (both
    /// orthogonal neighbours and the target free) and stops at the goal or at a cell from
    /// which a straight scan along either component finds something.
    pub(crate) fn jump_diagonal(
        &self,
        mut x: i64,
        mut y: i64,
        dx: i64,
        dy: i64,
        goal: (i64, i64),
    ) -> Option<(i64, i64, u32)> {
        let mut k = 0u32;
        loop {
            let (nx, ny) = (x + dx, y + dy);
            if !(self.free(nx, y) && self.free(x, ny) && self.free(nx, ny)) {
                return None;
            }
            x = nx;
            y = ny;
            k += 1;
            if (x, y) == goal
                || self.jump_straight(x, y, dx, 0, goal).is_some()
                || self.jump_straight(x, y, 0, dy, goal).is_some()
            {
                return Some((x, y, k));
            }
        }
    }
}

/// First position p > p0 where `cur` is clear (blocked) or a side line turns free after a
/// blocked predecessor (forced neighbour). Returns (p, blocked). The padding guarantees a
/// stop before the end of the line.
#[inline]
pub(crate) fn scan_forward(cur: &[u64], s1: &[u64], s2: &[u64], p0: usize) -> (usize, bool) {
    let start = p0 + 1;
    let mut k = start / 64;
    let mut mask = u64::MAX << (start % 64);
    while k < cur.len() {
        let c = cur[k];
        let (a, b) = (s1[k], s2[k]);
        let carry_a = if k > 0 { s1[k - 1] >> 63 } else { 0 };
        let carry_b = if k > 0 { s2[k - 1] >> 63 } else { 0 };
        let ap = (a << 1) | carry_a;
        let bp = (b << 1) | carry_b;
        let stop = (!c | (a & !ap) | (b & !bp)) & mask;
        if stop != 0 {
            let t = stop.trailing_zeros() as usize;
            return (k * 64 + t, (c >> t) & 1 == 0);
        }
        mask = u64::MAX;
        k += 1;
    }
    (cur.len() * 64, true)
}

/// Last position p < p0 where `cur` is clear or a side line turns free after a blocked
/// successor. Returns (p, blocked).
#[inline]
pub(crate) fn scan_backward(cur: &[u64], s1: &[u64], s2: &[u64], p0: usize) -> (usize, bool) {
    if p0 == 0 {
        return (0, true);
    }
    let target = p0 - 1;
    let mut k = target / 64;
    let bit = target % 64;
    let mut mask = if bit == 63 {
        u64::MAX
    } else {
        (1u64 << (bit + 1)) - 1
    };
    loop {
        let c = cur[k];
        let (a, b) = (s1[k], s2[k]);
        let carry_a = if k + 1 < s1.len() { s1[k + 1] << 63 } else { 0 };
        let carry_b = if k + 1 < s2.len() { s2[k + 1] << 63 } else { 0 };
        let an = (a >> 1) | carry_a;
        let bn = (b >> 1) | carry_b;
        let stop = (!c | (a & !an) | (b & !bn)) & mask;
        if stop != 0 {
            let t = 63 - stop.leading_zeros() as usize;
            return (k * 64 + t, (c >> t) & 1 == 0);
        }
        if k == 0 {
            return (0, true);
        }
        mask = u64::MAX;
        k -= 1;
    }
}
