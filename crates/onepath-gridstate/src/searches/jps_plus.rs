//! JPS+: per cell and direction, the distance to the next jump point (> 0) or minus the
//! number of free steps before a wall (≤ 0), precomputed from a grid and rebuilt when its
//! identity or version changes. Queries then jump in O(1) per direction, with the goal
//! handled at query time ("target jump points").

use crate::searches::jps::JUMP_DIRS;
use crate::spaces::bitgrid::BitGrid;
use crate::spaces::grid::Grid;

/// The jump tables of one grid (8 i32 per cell, in [`JUMP_DIRS`] order).
#[derive(Debug, Clone, Default)]
pub(crate) struct JumpTables {
    key: Option<(u64, u32)>,
    width: i64,
    dist: Vec<i32>,
}

#[inline]
fn extend(t: i32) -> i32 {
    if t > 0 {
        t.saturating_add(1)
    } else {
        t.saturating_sub(1)
    }
}

impl JumpTables {
    /// Rebuilds the tables when `grid` is another grid or has changed.
    pub(crate) fn ensure(&mut self, grid: &Grid, bits: &BitGrid) {
        if self.key == Some(grid.cache_key()) {
            return;
        }
        self.key = Some(grid.cache_key());
        let w = i64::from(grid.width());
        let h = i64::from(grid.height());
        self.width = w;
        self.dist.clear();
        self.dist.resize(grid.cell_count() * 8, 0);
        let idx = |x: i64, y: i64, d: usize| ((y * w + x) * 8) as usize + d;
        // Straight directions first: each cell looks at the cell ahead, processed earlier.
        for (d, &(dx, dy)) in JUMP_DIRS.iter().enumerate().take(4) {
            let (dx, dy) = (i64::from(dx), i64::from(dy));
            let xs: Vec<i64> = if dx > 0 {
                (0..w).rev().collect()
            } else {
                (0..w).collect()
            };
            let ys: Vec<i64> = if dy > 0 {
                (0..h).rev().collect()
            } else {
                (0..h).collect()
            };
            for &y in &ys {
                for &x in &xs {
                    if !bits.free(x, y) {
                        continue;
                    }
                    let (nx, ny) = (x + dx, y + dy);
                    let v = if !bits.free(nx, ny) {
                        0
                    } else if forced(bits, nx, ny, dx, dy) {
                        1
                    } else {
                        extend(self.dist[idx(nx, ny, d)])
                    };
                    self.dist[idx(x, y, d)] = v;
                }
            }
        }
        for (d, &(dx, dy)) in JUMP_DIRS.iter().enumerate().skip(4) {
            let (dx, dy) = (i64::from(dx), i64::from(dy));
            let dh = dir_index(dx, 0);
            let dv = dir_index(0, dy);
            let xs: Vec<i64> = if dx > 0 {
                (0..w).rev().collect()
            } else {
                (0..w).collect()
            };
            let ys: Vec<i64> = if dy > 0 {
                (0..h).rev().collect()
            } else {
                (0..h).collect()
            };
            for &y in &ys {
                for &x in &xs {
                    if !bits.free(x, y) {
                        continue;
                    }
                    let (nx, ny) = (x + dx, y + dy);
                    let v = if !(bits.free(nx, y) && bits.free(x, ny) && bits.free(nx, ny)) {
                        0
                    } else if self.dist[idx(nx, ny, dh)] > 0 || self.dist[idx(nx, ny, dv)] > 0 {
                        1
                    } else {
                        extend(self.dist[idx(nx, ny, d)])
                    };
                    self.dist[idx(x, y, d)] = v;
                }
            }
        }
    }

    /// The successor of walkable (x, y) in direction `d`, goal-aware: (x, y, steps).
    #[inline]
    pub(crate) fn successor(
        &self,
        x: i64,
        y: i64,
        d: usize,
        goal: (i64, i64),
    ) -> Option<(i64, i64, u32)> {
        let t = self.dist[((y * self.width + x) * 8) as usize + d];
        let reach = i64::from(t.unsigned_abs());
        let (dx, dy) = JUMP_DIRS[d];
        let (dx, dy) = (i64::from(dx), i64::from(dy));
        if d < 4 {
            // Goal on this ray within reach.
            let on_ray = if dy == 0 {
                goal.1 == y && (goal.0 - x) * dx > 0
            } else {
                goal.0 == x && (goal.1 - y) * dy > 0
            };
            if on_ray {
                let k = (goal.0 - x).abs() + (goal.1 - y).abs();
                if k <= reach {
                    return Some((goal.0, goal.1, k as u32));
                }
            }
        } else {
            let rx = (goal.0 - x) * dx;
            let ry = (goal.1 - y) * dy;
            if rx > 0 && ry > 0 {
                let m = rx.min(ry);
                if m <= reach {
                    return Some((x + m * dx, y + m * dy, m as u32));
                }
            }
        }
        if t > 0 {
            let k = i64::from(t);
            Some((x + k * dx, y + k * dy, t as u32))
        } else {
            None
        }
    }
}

/// Whether walkable (x, y), reached by a straight move (dx, dy), has a forced neighbour.
#[inline]
pub(crate) fn forced(bits: &BitGrid, x: i64, y: i64, dx: i64, dy: i64) -> bool {
    let (sx, sy) = (dy, dx); // a perpendicular
    (bits.free(x + sx, y + sy) && !bits.free(x + sx - dx, y + sy - dy))
        || (bits.free(x - sx, y - sy) && !bits.free(x - sx - dx, y - sy - dy))
}

/// The index in [`JUMP_DIRS`] of a unit direction.
#[inline]
pub(crate) fn dir_index(dx: i64, dy: i64) -> usize {
    match (dx, dy) {
        (0, -1) => 0,
        (1, 0) => 1,
        (0, 1) => 2,
        (-1, 0) => 3,
        (1, -1) => 4,
        (1, 1) => 5,
        (-1, 1) => 6,
        _ => 7,
    }
}
