//! Reference implementations the engines are checked against: a plain Dijkstra written
//! independently of the crate's engines (std BinaryHeap, explicit neighbour rules).
#![allow(dead_code)]

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use onepath_gridstate::{Connectivity, DiagonalRule, Grid, GridOptions, WALL};

#[derive(PartialEq)]
struct Item(f64, usize);
impl Eq for Item {}
impl PartialOrd for Item {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Item {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.partial_cmp(&self.0)
            .unwrap_or(Ordering::Equal)
            .then(o.1.cmp(&self.1))
    }
}

/// Plain Dijkstra over explicit adjacency: returns the distance to every node.
pub fn dijkstra(n: usize, start: usize, adj: impl Fn(usize) -> Vec<(usize, f64)>) -> Vec<f64> {
    let mut dist = vec![f64::INFINITY; n];
    let mut heap = BinaryHeap::new();
    dist[start] = 0.0;
    heap.push(Item(0.0, start));
    while let Some(Item(d, u)) = heap.pop() {
        if d > dist[u] {
            continue;
        }
        for (v, c) in adj(u) {
            let nd = d + c;
            if nd < dist[v] {
                dist[v] = nd;
                heap.push(Item(nd, v));
            }
        }
    }
    dist
}

/// Whether a cell is passable for an agent of `size` (the size × size square whose
/// north-west corner it is lies inside and holds no wall).
pub fn passable(grid: &Grid, x: i64, y: i64, size: u32) -> bool {
    for oy in 0..i64::from(size) {
        for ox in 0..i64::from(size) {
            if !grid.is_walkable(x + ox, y + oy) {
                return false;
            }
        }
    }
    true
}

/// The moves of a cell under options, with their cost (entered cell's multiplier).
pub fn grid_moves(grid: &Grid, opts: &GridOptions, cell: usize) -> Vec<(usize, f64)> {
    let w = i64::from(grid.width());
    let (x, y) = (cell as i64 % w, cell as i64 / w);
    let mut out = Vec::new();
    if !passable(grid, x, y, opts.agent_size) {
        return out;
    }
    for dy in -1i64..=1 {
        for dx in -1i64..=1 {
            if dx == 0 && dy == 0 {
                continue;
            }
            let diag = dx != 0 && dy != 0;
            if diag && opts.connectivity == Connectivity::Four {
                continue;
            }
            let (nx, ny) = (x + dx, y + dy);
            if !passable(grid, nx, ny, opts.agent_size) {
                continue;
            }
            if diag {
                let a = passable(grid, nx, y, opts.agent_size);
                let b = passable(grid, x, ny, opts.agent_size);
                let ok = match opts.diagonal_rule {
                    DiagonalRule::Always => true,
                    DiagonalRule::NoCornerCutting => a || b,
                    DiagonalRule::BothOrthogonalFree => a && b,
                };
                if !ok {
                    continue;
                }
            }
            let area = grid.area(nx as u32, ny as u32).unwrap();
            assert_ne!(area, WALL);
            let base = if diag { std::f64::consts::SQRT_2 } else { 1.0 };
            out.push(((ny * w + nx) as usize, base * grid.areas().get(area)));
        }
    }
    out
}

/// The optimal cost from `s` to `t` by the plain Dijkstra (+∞ when there is no path; a
/// goal the agent cannot stand on has none, even from itself).
pub fn grid_cost(grid: &Grid, opts: &GridOptions, s: (u32, u32), t: (u32, u32)) -> f64 {
    let si = grid.index(s.0, s.1).unwrap() as usize;
    let ti = grid.index(t.0, t.1).unwrap() as usize;
    if !passable(grid, i64::from(t.0), i64::from(t.1), opts.agent_size) {
        return f64::INFINITY;
    }
    dijkstra(grid.cell_count(), si, |u| grid_moves(grid, opts, u))[ti]
}

/// Checks that `nodes` is a chain of allowed moves from start to goal and returns its cost.
pub fn path_cost(grid: &Grid, opts: &GridOptions, nodes: &[u32]) -> Result<f64, String> {
    let mut cost = 0.0;
    for pair in nodes.windows(2) {
        let m = grid_moves(grid, opts, pair[0] as usize);
        match m.iter().find(|(n, _)| *n == pair[1] as usize) {
            Some((_, c)) => cost += c,
            None => return Err(format!("illegal move {} -> {}", pair[0], pair[1])),
        }
    }
    Ok(cost)
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

/// Proptest case count: PROPTEST_CASES overrides `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A xorshift64 generator from `seed` (a zero seed stays zero): the one source of the
/// random grids, edits and queries of the property tests, so a case is its seed.
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut rng = seed;
    move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    }
}

/// A `w` × `h` grid whose cells, row by row, take `area(next())`.
pub fn random_grid(
    w: u32,
    h: u32,
    next: &mut impl FnMut() -> u64,
    mut area: impl FnMut(u64) -> u8,
) -> Grid {
    let mut grid = Grid::new(w, h).unwrap();
    for y in 0..h {
        for x in 0..w {
            grid.set_area(x, y, area(next())).unwrap();
        }
    }
    grid
}

/// A cell of a `w` × `h` grid drawn from `next` (x first, then y).
pub fn random_cell(next: &mut impl FnMut() -> u64, w: u32, h: u32) -> (u32, u32) {
    let x = (next() % u64::from(w)) as u32;
    let y = (next() % u64::from(h)) as u32;
    (x, y)
}

/// A `w` × `h` grid whose cells, row by row, take `area(byte)` from `cells` (cells past its
/// end stay area 0).
pub fn grid_from_bytes(w: u32, h: u32, cells: &[u8], area: impl Fn(u8) -> u8) -> Grid {
    let mut grid = Grid::new(w, h).unwrap();
    for (i, &c) in cells.iter().enumerate().take((w * h) as usize) {
        let i = i as u32;
        grid.set_area(i % w, i / w, area(c)).unwrap();
    }
    grid
}

/// The state error of a grid-family OPGS state with this message.
pub fn grid_err(message: &str) -> onepath_format::FormatError {
    onepath_format::FormatError::State {
        format: onepath_gridstate::GRID_STATE_FORMAT,
        message: message.to_string(),
    }
}

/// The state error of a graph-family OPGS state with this message.
pub fn graph_err(message: &str) -> onepath_format::FormatError {
    onepath_format::FormatError::State {
        format: onepath_gridstate::GRAPH_STATE_FORMAT,
        message: message.to_string(),
    }
}
