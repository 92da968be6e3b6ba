//! What the Moving AI benches share: loading a map with a sample of its scenarios, and the
//! `pathfinding` crate's A* they are compared with.
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

/// The `pathfinding` crate's A* under the same rule (a diagonal only when both orthogonal
/// neighbours are free): the cost in thousandths of a step, `None` without a path.
pub fn pathfinding_astar(grid: &Grid, s: (u32, u32), t: (u32, u32)) -> Option<u64> {
    // Costs in thousandths of a step (1000 straight, 1414 diagonal), as integer weights.
    let (w, h) = (i64::from(grid.width()), i64::from(grid.height()));
    let free = |x: i64, y: i64| grid.is_walkable(x, y);
    let goal = (i64::from(t.0), i64::from(t.1));
    pathfinding::prelude::astar(
        &(i64::from(s.0), i64::from(s.1)),
        |&(x, y)| {
            let mut v: Vec<((i64, i64), u64)> = Vec::with_capacity(8);
            for (dx, dy) in [
                (0i64, -1i64),
                (1, 0),
                (0, 1),
                (-1, 0),
                (1, -1),
                (1, 1),
                (-1, 1),
                (-1, -1),
            ] {
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
