//! Speed ratios against the `pathfinding` crate, robust to a shared, noisy machine: every
//! round runs every engine once over the same sample of Moving AI queries, interleaved,
//! and each engine keeps its fastest round. Prints per-query times and the ratio
//! `pathfinding::astar time / engine time`. Not a timed test: it asserts nothing.
//!
//! `cargo bench -p onepath-gridstate --bench ratios` (needs `ONEPATH_DATA`; the number of
//! rounds is `ONEPATH_BENCH_ROUNDS`, default 7).

use std::path::PathBuf;
use std::time::Instant;

use onepath_gridstate::{
    Grid, GridAStar, GridAlgorithm, GridBidirectional, GridOptions, GridSearch, HpaStar,
    JumpSearch, SlicedSearch, ThetaStar,
};

/// (start, goal).
type Query = ((u32, u32), (u32, u32));

fn load(map: &str, sample: usize) -> Option<(Grid, Vec<Query>)> {
    let dir = PathBuf::from(std::env::var_os("ONEPATH_DATA")?).join("movingai");
    let grid = Grid::from_movingai_path(dir.join(map)).ok()?;
    let scen = std::fs::read_to_string(dir.join(format!("{map}.scen"))).ok()?;
    let mut all = Vec::new();
    for line in scen.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() >= 9 {
            let n = |i: usize| f[i].trim().parse::<u32>().unwrap_or(0);
            all.push(((n(4), n(5)), (n(6), n(7))));
        }
    }
    let step = (all.len() / sample).max(1);
    Some((grid, all.into_iter().step_by(step).take(sample).collect()))
}

fn pathfinding_astar(grid: &Grid, s: (u32, u32), t: (u32, u32)) -> u64 {
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
                    if free(nx, y) && free(x, ny) {
                        v.push(((nx, ny), 1414));
                    }
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
    .map_or(0, |(_, c)| c)
}

type Engine<'a> = (&'static str, Box<dyn FnMut(Query) -> f64 + 'a>);

fn run(map: &str, sample: usize, rounds: usize) {
    let Some((grid, queries)) = load(map, sample) else {
        println!("ratios {map}: skipped (ONEPATH_DATA/movingai not found)");
        return;
    };
    let opts = GridOptions::default();
    let g = &grid;
    let mut gs = GridSearch::new(GridAlgorithm::AStar, opts.clone()).expect("options");
    let mut jps = GridSearch::new(GridAlgorithm::JumpPoint, opts.clone()).expect("options");
    let mut jpp = GridSearch::new(GridAlgorithm::JumpPointPlus, opts.clone()).expect("options");
    let mut generic = GridAStar::new(opts.clone()).expect("options");
    let mut generic_jump = JumpSearch::new(opts.clone()).expect("options");
    let mut bi = GridBidirectional::new(opts.clone()).expect("options");
    let mut theta = ThetaStar::new(opts.clone()).expect("options");
    let mut hpa = HpaStar::new(g, 16, opts.clone()).expect("options");
    let cost = |r: Result<onepath_gridstate::GridPath, onepath_gridstate::GridError>| {
        r.map_or(0.0, |r| r.cost)
    };
    let mut engines: Vec<Engine<'_>> = vec![
        (
            "pathfinding::astar",
            Box::new(move |(s, t)| pathfinding_astar(g, s, t) as f64),
        ),
        (
            "GridSearch A*",
            Box::new(move |(s, t)| cost(gs.find_path(g, s, t))),
        ),
        (
            "jump point search",
            Box::new(move |(s, t)| cost(jps.find_path(g, s, t))),
        ),
        ("JPS+", Box::new(move |(s, t)| cost(jpp.find_path(g, s, t)))),
        (
            "generic A*",
            Box::new(move |(s, t)| cost(generic.find_path(g, s, t))),
        ),
        (
            "JumpSearch (generic)",
            Box::new(move |(s, t)| cost(generic_jump.find_path(g, s, t))),
        ),
        (
            "bidirectional A*",
            Box::new(move |(s, t)| cost(bi.find_path(g, s, t))),
        ),
        (
            "Theta*",
            Box::new(move |(s, t)| cost(theta.find_path(g, s, t))),
        ),
        (
            "HPA* (16)",
            Box::new(move |(s, t)| cost(hpa.find_path(g, s, t))),
        ),
    ];
    let mut best = vec![f64::INFINITY; engines.len()];
    let mut sink = 0.0;
    for _ in 0..rounds {
        for (k, (_, f)) in engines.iter_mut().enumerate() {
            let t0 = Instant::now();
            for &q in &queries {
                sink += f(q);
            }
            best[k] = best[k].min(t0.elapsed().as_secs_f64());
        }
    }
    println!(
        "ratios {map}: {} queries, best of {rounds} interleaved rounds (checksum {sink:.1})",
        queries.len()
    );
    for (k, (name, _)) in engines.iter().enumerate() {
        let per = best[k] / queries.len() as f64;
        println!(
            "  {name:<20} {:>12.3} µs/query   ratio {:>9.2}",
            per * 1e6,
            best[0] / best[k]
        );
    }
}

fn main() {
    let rounds = std::env::var("ONEPATH_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    run("arena.map", 40, rounds);
    run("maze512-32-9.map", 8, rounds);
}
