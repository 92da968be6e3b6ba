//! Per-cell masks of the allowed moves for the specialised A* engine, derived from a grid
//! and rebuilt when its identity or version changes.

use crate::searches::options::{Connectivity, DiagonalRule};
use crate::spaces::area::WALL;
use crate::spaces::grid::Grid;

/// Move directions of the specialised A* in the order of its saved parent directions:
/// 0 south, 1 west, 2 north, 3 east, 4 south-west, 5 north-west, 6 north-east,
/// 7 south-east (y grows south). The reverse of direction d is d ^ 2.
pub(crate) const PAIR_DIRS: [(i32, i32); 8] = [
    (0, 1),
    (-1, 0),
    (0, -1),
    (1, 0),
    (-1, 1),
    (-1, -1),
    (1, -1),
    (1, 1),
];

/// Bit d of `masks[cell]` is set when the move from `cell` in `PAIR_DIRS[d]` is allowed.
#[derive(Debug, Clone, Default)]
pub(crate) struct MoveMasks {
    key: Option<(u64, u32, Connectivity, DiagonalRule)>,
    pub(crate) masks: Vec<u8>,
}

impl MoveMasks {
    pub(crate) fn ensure(&mut self, grid: &Grid, conn: Connectivity, rule: DiagonalRule) {
        let (uid, ver) = grid.cache_key();
        let key = Some((uid, ver, conn, rule));
        if self.key == key {
            return;
        }
        self.key = key;
        let w = grid.width() as i64;
        let h = grid.height() as i64;
        let cells = grid.cells();
        let free = |x: i64, y: i64| {
            x >= 0 && y >= 0 && x < w && y < h && cells[(y * w + x) as usize] != WALL
        };
        self.masks.clear();
        self.masks.resize(cells.len(), 0);
        for y in 0..h {
            for x in 0..w {
                if !free(x, y) {
                    continue;
                }
                let mut m = 0u8;
                for (d, &(dx, dy)) in PAIR_DIRS.iter().enumerate() {
                    let (nx, ny) = (x + i64::from(dx), y + i64::from(dy));
                    if !free(nx, ny) {
                        continue;
                    }
                    if d >= 4
                        && (conn == Connectivity::Four || !rule.allows(free(nx, y), free(x, ny)))
                    {
                        continue;
                    }
                    m |= 1 << d;
                }
                self.masks[(y * w + x) as usize] = m;
            }
        }
    }
}
