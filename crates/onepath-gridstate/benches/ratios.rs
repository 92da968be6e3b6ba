//! Speed ratios against the `pathfinding` crate, robust to a shared, noisy machine: every
//! round runs every engine once over the same sample of Moving AI queries, interleaved,
//! and each engine keeps its fastest round. Prints per-query times and the ratio
//! `baseline time / engine time`.
//!
//! The baseline is `pathfinding::astar` at its best, `common::PathfindingBaseline`: u32
//! cell indexes, move masks computed once per map (no allocation per expansion) and exact
//! fixed-point costs (2^40 straight, round(√2 × 2^40) diagonal). The closure form the
//! ratios used before ((i64, i64) nodes, a `Vec` per expansion, costs 1000 / 1414) is
//! timed too, as `pathfinding (closure)`, to show the difference. Before timing, the
//! baseline's cost of every sampled query is checked against the listed optimal length
//! (the only assertion: the baseline must be an optimal search).
//!
//! `cargo bench -p onepath-gridstate --bench ratios` (needs `ONEPATH_DATA`; the number of
//! rounds is `ONEPATH_BENCH_ROUNDS`, default 7).

mod common;

use std::time::Instant;

use common::{load, pathfinding_astar, PathfindingBaseline};

use onepath_gridstate::{
    GridAStar, GridAlgorithm, GridBidirectional, GridOptions, GridSearch, HpaStar, JumpSearch,
    SlicedSearch, ThetaStar,
};

/// (start, goal).
type Query = ((u32, u32), (u32, u32));

type Engine<'a> = (&'static str, Box<dyn FnMut(Query) -> f64 + 'a>);

fn run(map: &str, sample: usize, rounds: usize) {
    let Some(common::Problem { grid, queries }) = load(map, sample) else {
        println!("ratios {map}: skipped (ONEPATH_DATA/movingai not found)");
        return;
    };
    let baseline = PathfindingBaseline::new(&grid);
    for &(s, t, listed) in &queries {
        let got = baseline.length(s, t).unwrap_or(f64::INFINITY);
        assert!(
            (got - listed).abs() <= 1e-4,
            "baseline {s:?} -> {t:?}: {got} against listed {listed}"
        );
    }
    let queries: Vec<Query> = queries.into_iter().map(|(s, t, _)| (s, t)).collect();
    let baseline = &baseline;
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
            "pathfinding (fastest)",
            Box::new(move |(s, t)| baseline.length(s, t).unwrap_or(0.0)),
        ),
        (
            "pathfinding (closure)",
            Box::new(move |(s, t)| pathfinding_astar(g, s, t).unwrap_or(0) as f64 / 1000.0),
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
            "  {name:<22} {:>12.3} µs/query   ratio {:>9.2}",
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
