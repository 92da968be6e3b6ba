//! Per-query time of each grid engine on the Moving AI maps (arena, maze512-32-9), and the
//! `pathfinding` crate's `astar` on the same problems in the same run (no corner cutting:
//! a diagonal only when both orthogonal neighbours are free, the benchmark's rule): the
//! baseline is its fastest form, `common::PathfindingBaseline` (u32 cells, move masks,
//! exact fixed-point costs); `pathfinding_astar_closure` is the form used before.
//!
//! Data: `$ONEPATH_DATA/movingai`; without it the bench prints that it is skipped.
//! Each measured iteration runs a fixed sample of scenarios (the last, longest ones);
//! divide by the sample size for the per-query time (printed at start).

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

mod common;

use common::{load, pathfinding_astar, PathfindingBaseline};
use criterion::{criterion_group, criterion_main, Criterion};
use onepath_gridstate::{
    GridAStar, GridAlgorithm, GridBidirectional, GridOptions, GridSearch, HpaStar, SlicedSearch,
    ThetaStar,
};

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
    let baseline = PathfindingBaseline::new(&p.grid);
    group.bench_function("pathfinding_astar", |b| {
        b.iter(|| {
            let mut total = 0u64;
            for &(s, t, _) in &p.queries {
                total = total.wrapping_add(baseline.cost(s, t).unwrap_or(0));
            }
            total
        })
    });
    group.bench_function("pathfinding_astar_closure", |b| {
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
