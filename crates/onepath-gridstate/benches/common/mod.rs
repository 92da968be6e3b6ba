//! What the Moving AI benches share: loading a map with a sample of its scenarios, and the
//! `pathfinding` crate's A* they are compared with: [`PathfindingBaseline`], the crate at
//! its fastest (u32 cell indexes, precomputed move masks, exact fixed-point costs), the
//! baseline of every ratio; [`pathfinding_astar`], the closure form the ratios used before
//! (kept to show what the baseline change is worth).
#![allow(dead_code)]

use std::path::PathBuf;

use onepath_gridstate::Grid;

/// (start, goal, listed optimal length).
pub type Query = ((u32, u32), (u32, u32), f64);

/// A map and a sample of its scenarios.
pub struct Problem {
    /// The map.
    pub grid: Grid,
    /// The sampled scenarios, in list order.
    pub queries: Vec<Query>,
}

/// `map` from `$ONEPATH_DATA/movingai` and `sample` of its scenarios evenly spread over the
/// list (`None` without the data).
pub fn load(map: &str, sample: usize) -> Option<Problem> {
    let dir = PathBuf::from(std::env::var_os("ONEPATH_DATA")?).join("movingai");
    let grid = Grid::from_movingai_path(dir.join(map)).ok()?;
    let scen = std::fs::read_to_string(dir.join(format!("{map}.scen"))).ok()?;
    let mut all = Vec::new();
    for line in scen.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 9 {
            continue;
        }
        let n = |i: usize| f[i].trim().parse::<u32>().unwrap_or(0);
        all.push((
            (n(4), n(5)),
            (n(6), n(7)),
            f[8].trim().parse().unwrap_or(0.0),
        ));
    }
    // An evenly spread sample over the scenario list (buckets grow in length).
    let step = (all.len() / sample).max(1);
    let queries = all.into_iter().step_by(step).take(sample).collect();
    Some(Problem { grid, queries })
}

/// One straight step in [`PathfindingBaseline`]'s fixed-point costs: 2^40.
pub const STRAIGHT: u64 = 1 << 40;

/// One diagonal step: √2 × 2^40 = 1 554 944 255 987.74 rounded to the nearest integer.
pub const DIAGONAL: u64 = 1_554_944_255_988;

/// Moves (dx, dy) of the move masks, bit k for move k: the straight moves first.
const MOVES: [(i64, i64); 8] = [
    (0, -1),
    (1, 0),
    (0, 1),
    (-1, 0),
    (1, -1),
    (1, 1),
    (-1, 1),
    (-1, -1),
];

/// The `pathfinding` crate's A* in its fastest form found, the baseline of every grid
/// ratio: nodes are u32 cell indexes `y * width + x`; each cell's allowed moves under the
/// rule the benchmarks use (a diagonal only when both orthogonal neighbours are free) are
/// a bit mask computed once per map, so an expansion allocates nothing (the successors are
/// an iterator over the mask's bits); costs are exact fixed-point integers, a straight step
/// [`STRAIGHT`] = 2^40 and a diagonal [`DIAGONAL`] = round(√2 × 2^40).
///
/// Why exact: a path of a straight and b diagonal steps costs a·2^40 + b·D with
/// |D − √2·2^40| ≤ 1/2, so the fixed-point cost is 2^40 times the real cost a + b√2 within
/// b/2. Two real costs with step counts up to N differ by 0 or by |m + k√2| ≥ 1/(N(1+√2))
/// (m² − 2k² is a non-zero integer), which 2^40 turns into more than the rounding 2·N/2
/// whenever 2^40 > (1+√2)·N², that is for paths of up to 674 000 steps (a 512 × 512 map
/// has 262 144 cells). So the integer costs order paths exactly as the real ones do, equal
/// real costs give equal integers, the octile estimate in the same units is consistent,
/// and the sums fit in u64 (N·D < 2^60). The 1000 / 1414 costs of [`pathfinding_astar`]
/// order some near-equal paths differently (1414 < 1000√2).
pub struct PathfindingBaseline {
    width: u32,
    /// Per cell: bit k set when move [`MOVES`]\[k\] is allowed (walls have no moves).
    masks: Vec<u8>,
}

impl PathfindingBaseline {
    /// The move masks of `grid`.
    pub fn new(grid: &Grid) -> PathfindingBaseline {
        let (w, h) = (i64::from(grid.width()), i64::from(grid.height()));
        let free = |x: i64, y: i64| grid.is_walkable(x, y);
        let mut masks = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                let mut m = 0u8;
                if free(x, y) {
                    for (k, &(dx, dy)) in MOVES.iter().enumerate() {
                        let (nx, ny) = (x + dx, y + dy);
                        let inside = nx >= 0 && ny >= 0 && nx < w && ny < h;
                        let corners = dx == 0 || dy == 0 || (free(nx, y) && free(x, ny));
                        if inside && free(nx, ny) && corners {
                            m |= 1 << k;
                        }
                    }
                }
                masks.push(m);
            }
        }
        PathfindingBaseline {
            width: grid.width(),
            masks,
        }
    }

    /// The least cost from `s` to `t` in fixed-point units (`None` without a path).
    pub fn cost(&self, s: (u32, u32), t: (u32, u32)) -> Option<u64> {
        let w = self.width;
        let goal = t.1 * w + t.0;
        let offsets = MOVES.map(|(dx, dy)| (dy * i64::from(w) + dx) as i32);
        pathfinding::prelude::astar(
            &(s.1 * w + s.0),
            |&c| {
                let m = self.masks[c as usize];
                (0..8u32).filter(move |k| m >> k & 1 == 1).map(move |k| {
                    let next = c.wrapping_add_signed(offsets[k as usize]);
                    (next, if k < 4 { STRAIGHT } else { DIAGONAL })
                })
            },
            |&c| {
                let dx = u64::from((c % w).abs_diff(goal % w));
                let dy = u64::from((c / w).abs_diff(goal / w));
                let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
                (hi - lo) * STRAIGHT + lo * DIAGONAL
            },
            |&c| c == goal,
        )
        .map(|(_, c)| c)
    }

    /// [`PathfindingBaseline::cost`] in steps (the fixed-point cost over 2^40), as the
    /// scenario files list lengths.
    pub fn length(&self, s: (u32, u32), t: (u32, u32)) -> Option<f64> {
        self.cost(s, t).map(|c| c as f64 / STRAIGHT as f64)
    }
}

/// The `pathfinding` crate's A* under the same rule (a diagonal only when both orthogonal
/// neighbours are free), in the closure form the ratios used before 2026-12-01: (i64, i64)
/// nodes, a `Vec` per expansion, costs 1000 / 1414. The cost in thousandths of a step,
/// `None` without a path.
pub fn pathfinding_astar(grid: &Grid, s: (u32, u32), t: (u32, u32)) -> Option<u64> {
    // Costs in thousandths of a step (1000 straight, 1414 diagonal), as integer weights.
    let (w, h) = (i64::from(grid.width()), i64::from(grid.height()));
    let free = |x: i64, y: i64| grid.is_walkable(x, y);
    let goal = (i64::from(t.0), i64::from(t.1));
    pathfinding::prelude::astar(
        &(i64::from(s.0), i64::from(s.1)),
        |&(x, y)| {
            let mut v: Vec<((i64, i64), u64)> = Vec::with_capacity(8);
            for (dx, dy) in MOVES {
                let (nx, ny) = (x + dx, y + dy);
                if nx < 0 || ny < 0 || nx >= w || ny >= h || !free(nx, ny) {
                    continue;
                }
                if dx != 0 && dy != 0 {
                    if !(free(nx, y) && free(x, ny)) {
                        continue;
                    }
                    v.push(((nx, ny), 1414));
                } else {
                    v.push(((nx, ny), 1000));
                }
            }
            v
        },
        |&(x, y)| {
            let (dx, dy) = ((x - goal.0).unsigned_abs(), (y - goal.1).unsigned_abs());
            let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
            (hi - lo) * 1000 + lo * 1414
        },
        |&p| p == goal,
    )
    .map(|(_, c)| c)
}
