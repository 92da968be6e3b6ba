//! The generic engines' view of a grid under options: passability (walls, agent size,
//! hook), moves (connectivity, diagonal rule) and costs (area multipliers or the hook).

use std::f64::consts::SQRT_2;

use crate::searches::astar::SearchGraph;
use crate::searches::options::{Connectivity, GridOptions};
use crate::spaces::area::WALL;
use crate::spaces::grid::Grid;

/// The eight moves in the order the generic engines try them: N, E, S, W, NE, SE, SW, NW
/// (y grows south).
pub(crate) const MOVES: [(i32, i32); 8] = [
    (0, -1),
    (1, 0),
    (0, 1),
    (-1, 0),
    (1, -1),
    (1, 1),
    (-1, 1),
    (-1, -1),
];

/// Derived per-grid data the generic view needs (the clearance map for agents larger than
/// one cell), rebuilt when the grid's identity or version changes.
#[derive(Debug, Clone, Default)]
pub(crate) struct GridCache {
    key: Option<(u64, u32)>,
    clearance: Vec<u32>,
}

impl GridCache {
    fn clearance(&mut self, grid: &Grid) -> &[u32] {
        if self.key != Some(grid.cache_key()) {
            self.clearance = clearance_map(grid);
            self.key = Some(grid.cache_key());
        }
        &self.clearance
    }
}

/// For each cell, the side of the largest wall-free square whose north-west corner it is.
pub(crate) fn clearance_map(grid: &Grid) -> Vec<u32> {
    let w = grid.width() as usize;
    let h = grid.height() as usize;
    let cells = grid.cells();
    let mut c = vec![0u32; w * h];
    for y in (0..h).rev() {
        for x in (0..w).rev() {
            let i = y * w + x;
            if cells[i] == WALL {
                continue;
            }
            let right = if x + 1 < w { c[i + 1] } else { 0 };
            let down = if y + 1 < h { c[i + w] } else { 0 };
            let diag = if x + 1 < w && y + 1 < h {
                c[i + w + 1]
            } else {
                0
            };
            c[i] = 1 + right.min(down).min(diag);
        }
    }
    c
}

/// A grid seen through options.
pub(crate) struct GridView<'a> {
    grid: &'a Grid,
    options: &'a GridOptions,
    clearance: Option<&'a [u32]>,
    width: i64,
    height: i64,
    min_mult: f64,
}

impl<'a> GridView<'a> {
    pub(crate) fn new(grid: &'a Grid, options: &'a GridOptions, cache: &'a mut GridCache) -> Self {
        let clearance = if options.agent_size > 1 {
            Some(cache.clearance(grid))
        } else {
            None
        };
        GridView {
            grid,
            options,
            clearance,
            width: i64::from(grid.width()),
            height: i64::from(grid.height()),
            min_mult: grid.areas().min_multiplier(),
        }
    }

    pub(crate) fn heuristic_weight(&self) -> f64 {
        self.options.heuristic_weight
    }

    #[inline]
    pub(crate) fn passable_xy(&self, x: i64, y: i64) -> bool {
        if x < 0 || y < 0 || x >= self.width || y >= self.height {
            return false;
        }
        let i = (y * self.width + x) as u32;
        self.passable_index(i)
    }

    #[inline]
    fn passable_index(&self, i: u32) -> bool {
        let Some(&area) = self.grid.cells().get(i as usize) else {
            return false;
        };
        if area == WALL {
            return false;
        }
        if let Some(c) = self.clearance {
            if c[i as usize] < self.options.agent_size {
                return false;
            }
        }
        if let Some(h) = &self.options.passable_hook {
            return h(i);
        }
        true
    }

    /// Appends the moves of `node` as (neighbour, cost of node → neighbour) when `forward`,
    /// else (neighbour, cost of neighbour → node).
    fn moves(&self, node: u32, forward: bool, out: &mut Vec<(u32, f64)>) {
        if !self.passable_index(node) {
            return;
        }
        let x = i64::from(node) % self.width;
        let y = i64::from(node) / self.width;
        let n = match self.options.connectivity {
            Connectivity::Four => 4,
            Connectivity::Eight => 8,
        };
        for (k, &(dx, dy)) in MOVES.iter().enumerate().take(n) {
            let (nx, ny) = (x + i64::from(dx), y + i64::from(dy));
            if !self.passable_xy(nx, ny) {
                continue;
            }
            let base = if k >= 4 {
                let a = self.passable_xy(nx, y);
                let b = self.passable_xy(x, ny);
                if !self.options.diagonal_rule.allows(a, b) {
                    continue;
                }
                SQRT_2
            } else {
                1.0
            };
            let m = (ny * self.width + nx) as u32;
            let (from, to) = if forward { (node, m) } else { (m, node) };
            let area = self.grid.cells()[to as usize];
            let default = base * self.grid.areas().get(area);
            let cost = match &self.options.cost_hook {
                Some(hook) => hook(from, to, default),
                None => default,
            };
            if cost.is_finite() && cost >= 0.0 {
                out.push((m, cost));
            }
        }
    }
}

impl SearchGraph for GridView<'_> {
    fn node_count(&self) -> usize {
        self.grid.cell_count()
    }

    fn is_passable(&self, node: u32) -> bool {
        self.passable_index(node)
    }

    fn successors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        self.moves(node, true, out);
    }

    fn predecessors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        self.moves(node, false, out);
    }

    fn adjacent(&self, node: u32, out: &mut Vec<u32>) {
        // Every cell of the 3 × 3 block: a cell's passability also decides the diagonal
        // moves between its neighbours, whose ends are both in this block.
        let x = i64::from(node) % self.width;
        let y = i64::from(node) / self.width;
        for (dx, dy) in MOVES {
            let (nx, ny) = (x + i64::from(dx), y + i64::from(dy));
            if nx >= 0 && ny >= 0 && nx < self.width && ny < self.height {
                out.push((ny * self.width + nx) as u32);
            }
        }
    }

    fn estimate(&self, from: u32, to: u32) -> f64 {
        if self.options.cost_hook.is_some() {
            return 0.0;
        }
        let (ax, ay) = (i64::from(from) % self.width, i64::from(from) / self.width);
        let (bx, by) = (i64::from(to) % self.width, i64::from(to) / self.width);
        let dx = (ax - bx).abs();
        let dy = (ay - by).abs();
        let base = match self.options.connectivity {
            Connectivity::Four => (dx + dy) as f64,
            Connectivity::Eight => {
                let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
                (hi - lo) as f64 + lo as f64 * SQRT_2
            }
        };
        base * self.min_mult
    }
}
