//! Per-query time of each grid engine on the Moving AI maps (arena, maze512-32-9), and the
//! `pathfinding` crate's `astar` on the same problems in the same run (no corner cutting:
//! a diagonal only when both orthogonal neighbours are free, the benchmark's rule).
//!
//! Data: `$ONEPATH_DATA/movingai`; without it the bench prints that it is skipped.
//! Each measured iteration runs a fixed sample of scenarios (the last, longest ones);
//! divide by the sample size for the per-query time (printed at start).

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use onepath_gridstate::{
    Grid, GridAStar, GridAlgorithm, GridBidirectional, GridOptions, GridSearch, HpaStar,
    SlicedSearch, ThetaStar,
};

/// (start, goal, listed optimal length).
type Query = ((u32, u32), (u32, u32), f64);

struct Problem {
    grid: Grid,
    queries: Vec<Query>,
}

fn load(map: &str, sample: usize) -> Option<Problem> {
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

fn pathfinding_astar(grid: &Grid, s: (u32, u32), t: (u32, u32)) -> Option<u64> {
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

fn bench_map(c: &mut Criterion, map: &str, sample: usize) {
    let Some(p) = load(map, sample) else {
        println!("movingai bench {map}: skipped (ONEPATH_DATA/movingai not found)");
        return;
    };
    println!(
        "movingai bench {map}: {} queries per iteration",
        p.queries.len()
    );
    let mut group = c.benchmark_group(map.trim_end_matches(".map"));
    let opts = GridOptions::default();
    for (name, alg) in [
        ("gridsearch_astar", GridAlgorithm::AStar),
        ("jump_point", GridAlgorithm::JumpPoint),
        ("jps_plus", GridAlgorithm::JumpPointPlus),
    ] {
        let mut e = GridSearch::new(alg, opts.clone()).expect("options");
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut total = 0.0;
                for &(s, t, _) in &p.queries {
                    total += e.find_path(&p.grid, s, t).map(|r| r.cost).unwrap_or(0.0);
                }
                total
            })
        });
    }
    let mut generic = GridAStar::new(opts.clone()).expect("options");
    group.bench_function("generic_astar", |b| {
        b.iter(|| {
            let mut total = 0.0;
            for &(s, t, _) in &p.queries {
                total += generic
                    .find_path(&p.grid, s, t)
                    .map(|r| r.cost)
                    .unwrap_or(0.0);
            }
            total
        })
    });
    let mut bidirectional = GridBidirectional::new(opts.clone()).expect("options");
    group.bench_function("bidirectional_astar", |b| {
        b.iter(|| {
            let mut total = 0.0;
            for &(s, t, _) in &p.queries {
                total += bidirectional
                    .find_path(&p.grid, s, t)
                    .map(|r| r.cost)
                    .unwrap_or(0.0);
            }
            total
        })
    });
    let mut theta = ThetaStar::new(opts.clone()).expect("options");
    group.bench_function("theta_star", |b| {
        b.iter(|| {
            let mut total = 0.0;
            for &(s, t, _) in &p.queries {
                total += theta
                    .find_path(&p.grid, s, t)
                    .map(|r| r.cost)
                    .unwrap_or(0.0);
            }
            total
        })
    });
    let mut hpa = HpaStar::new(&p.grid, 16, opts.clone()).expect("options");
    group.bench_function("hpa_star_16", |b| {
        b.iter(|| {
            let mut total = 0.0;
            for &(s, t, _) in &p.queries {
                total += hpa.find_path(&p.grid, s, t).map(|r| r.cost).unwrap_or(0.0);
            }
            total
        })
    });
    group.bench_function("pathfinding_astar", |b| {
        b.iter(|| {
            let mut total = 0u64;
            for &(s, t, _) in &p.queries {
                total += pathfinding_astar(&p.grid, s, t).unwrap_or(0);
            }
            total
        })
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench_map(c, "arena.map", 40);
    bench_map(c, "maze512-32-9.map", 8);
}

criterion_group! {
    name = movingai;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = benches
}
criterion_main!(movingai);
