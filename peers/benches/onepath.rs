//! Criterion benches of OnePath against Recast / Detour, each pair in the same run:
//!
//! - `build/nav_test`: Recast's tiled build (single thread), OnePath's `Mesh3DPipeline` in a
//!   1-thread rayon pool and in the default (all threads) pool; same level, same settings
//!   (issue 8). Needs `ONEPATH_DATA`.
//! - `same polygons/<mesh>`: Detour and OnePath's query layer over the very same polygons
//!   (OnePath's nav_test build, and `generated_grid_mesh(32, 32, 4, ..)` with 1 024 tiles),
//!   per query kind: nearest polygon (x100 points), path + string pulling (x50 pairs, points
//!   snapped beforehand), raycast (x50) (issue 4).
//!
//! `cargo bench --bench onepath` (warm-up 1 s, measurement 3 s are set here; the machine is
//! shared). OnePath / Detour ratios: divide the two estimates of one kind.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use onepath_build3d::Mesh3DPipeline;
use onepath_mesh::query::generated_grid_mesh;
use onepath_mesh::TiledNavMesh;
use onepath_peers::detour::DetourEngine;
use onepath_peers::level::nav_test_path;
use onepath_peers::metrics::reachable_pairs;
use onepath_peers::onepath::{
    build_chunk, build_config, build_onepath, detour_mesh, triangle_soup, world_polygons,
    OnePathEngine,
};
use onepath_peers::recast::{build_tiled_chunky, ChunkyTriMesh, TRIS_PER_CHUNK};
use onepath_peers::sampling::{REPORT_PAIRS, REPORT_SEED};
use onepath_peers::{Level, RecastSettings};
use std::hint::black_box;
use std::time::Duration;

fn build(c: &mut Criterion) {
    let Some(path) = nav_test_path() else {
        eprintln!("skipped: ONEPATH_DATA is not set or levels/nav_test.obj is absent");
        return;
    };
    let level = Level::load_obj(&path).expect("nav_test.obj reads");
    let settings = RecastSettings::default();
    let pipeline = Mesh3DPipeline::new(build_config(&level, &settings).expect("settings"));
    let soup = triangle_soup(&level);
    // Each builder's triangle index is built once, outside the timing (README.md).
    let rc_chunky = ChunkyTriMesh::new(&level, TRIS_PER_CHUNK).expect("chunky");
    let op_chunky =
        onepath_build3d::ChunkyTriMesh::new(soup, pipeline.config.tile_size).expect("chunky");
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let all = rayon::ThreadPoolBuilder::new().build().expect("pool");
    let mut g = c.benchmark_group("build/nav_test");
    g.sample_size(10);
    g.bench_function("recast (single thread)", |b| {
        b.iter(|| build_tiled_chunky(black_box(&level), &rc_chunky, &settings).expect("build"))
    });
    g.bench_function("onepath (1-thread pool)", |b| {
        b.iter(|| one.install(|| build_chunk(&pipeline, black_box(&op_chunky)).expect("build")))
    });
    g.bench_function(
        BenchmarkId::new("onepath (all threads)", all.current_num_threads()),
        |b| {
            b.iter(|| all.install(|| build_chunk(&pipeline, black_box(&op_chunky)).expect("build")))
        },
    );
    g.finish();
}

/// The query benches over one set of polygons held by both engines.
fn queries(c: &mut Criterion, name: &str, mesh: &TiledNavMesh, detour: DetourEngine<'_>) {
    let mut ours = OnePathEngine::new(mesh, 1 << 20);
    let pairs = reachable_pairs(
        &mut ours,
        &world_polygons(mesh),
        REPORT_PAIRS,
        REPORT_SEED,
        10_000,
    )
    .expect("pairs");
    let points: Vec<[f32; 3]> = pairs.iter().flat_map(|&(s, e)| [s, e]).collect();
    let mut snapped_d = Vec::new();
    let mut snapped_o = Vec::new();
    for &(s, e) in &pairs {
        let d = (detour.snap(s).expect("snap"), detour.snap(e).expect("snap"));
        let o = (ours.snap(s).expect("snap"), ours.snap(e).expect("snap"));
        if let ((Some(a), Some(b)), (Some(x), Some(y))) = (d, o) {
            snapped_d.push((a, b));
            snapped_o.push((x, y));
        }
    }
    let mut g = c.benchmark_group(format!("same polygons/{name}"));
    g.sample_size(10);
    g.bench_function(format!("nearest x{} detour", points.len()), |b| {
        b.iter(|| {
            for &p in &points {
                black_box(detour.snap(black_box(p)).expect("snap"));
            }
        })
    });
    g.bench_function(format!("nearest x{} onepath", points.len()), |b| {
        b.iter(|| {
            for &p in &points {
                black_box(ours.snap(black_box(p)).expect("snap"));
            }
        })
    });
    g.bench_function(
        format!("path + straight path x{} detour", snapped_d.len()),
        |b| {
            b.iter(|| {
                for &(s, e) in &snapped_d {
                    black_box(detour.path(black_box(s), black_box(e)).expect("path"));
                }
            })
        },
    );
    g.bench_function(
        format!("path + straight path x{} onepath", snapped_o.len()),
        |b| {
            b.iter(|| {
                for (s, e) in &snapped_o {
                    black_box(ours.path(black_box(s), black_box(e)).expect("path"));
                }
            })
        },
    );
    g.bench_function(format!("raycast x{} detour", snapped_d.len()), |b| {
        b.iter(|| {
            for &(s, e) in &snapped_d {
                black_box(detour.raycast(black_box(s), e.pos).expect("raycast"));
            }
        })
    });
    g.bench_function(format!("raycast x{} onepath", snapped_o.len()), |b| {
        b.iter(|| {
            for (s, e) in &snapped_o {
                black_box(ours.raycast(black_box(s), e.point).expect("raycast"));
            }
        })
    });
    g.finish();
}

fn same_polygons(c: &mut Criterion) {
    if let Some(path) = nav_test_path() {
        let level = Level::load_obj(&path).expect("nav_test.obj reads");
        let built = build_onepath(&level, &RecastSettings::default()).expect("build");
        let d = built
            .detour_mesh(RecastSettings::default().cell_height, 1e-4)
            .expect("detour mesh");
        let engine = DetourEngine::new(&d).expect("query");
        queries(c, "nav_test", &built.built.mesh, engine);
    } else {
        eprintln!("skipped nav_test: ONEPATH_DATA is not set or levels/nav_test.obj is absent");
    }
    let generated = generated_grid_mesh(32, 32, 4, 0x5EED_0004);
    let d = detour_mesh(&generated.mesh, 0.25, 0.0).expect("detour mesh");
    let engine = DetourEngine::with_limits(&d, 65_535, 4096).expect("query");
    queries(c, "generated 32x32", &generated.mesh, engine);
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

/// `criterion_group!` generates an undocumented public function; it lives here.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group! {
        name = benches;
        config = config();
        targets = build, same_polygons
    }
}
criterion_main!(group::benches);
