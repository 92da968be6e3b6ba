//! Criterion benches of the reference library on Recast's demo level: the whole tiled build
//! (single thread) and Detour path queries (path + straight path) on the seeded pairs.
//! Needs `ONEPATH_DATA`; without it every bench is skipped with a note.

use criterion::{criterion_group, criterion_main, Criterion};
use onepath_peers::detour::{DetourEngine, Snapped};
use onepath_peers::level::nav_test_path;
use onepath_peers::metrics::reachable_pairs;
use onepath_peers::recast::build_tiled;
use onepath_peers::sampling::{point_pairs, REPORT_PAIRS, REPORT_SEED};
use onepath_peers::{Level, RecastSettings};
use std::hint::black_box;

fn nav_test(c: &mut Criterion) {
    let Some(path) = nav_test_path() else {
        eprintln!("skipped: ONEPATH_DATA is not set or levels/nav_test.obj is absent");
        return;
    };
    let level = Level::load_obj(&path).expect("nav_test.obj reads");
    let settings = RecastSettings::default();

    c.bench_function("recast/nav_test build (single thread)", |b| {
        b.iter(|| build_tiled(black_box(&level), &settings).expect("build"))
    });

    let build = build_tiled(&level, &settings).expect("build");
    let pairs = point_pairs(&build.world_polygons(), REPORT_PAIRS, REPORT_SEED);
    let mut engine = DetourEngine::new(&build.navmesh).expect("query");
    let reachable = reachable_pairs(
        &mut engine,
        &build.world_polygons(),
        REPORT_PAIRS,
        REPORT_SEED,
        10_000,
    )
    .expect("reachable pairs");
    // Snapping is done once here so the path benches time findPath + findStraightPath only.
    let snap = |pairs: &[([f32; 3], [f32; 3])]| -> Vec<(Snapped, Snapped)> {
        pairs
            .iter()
            .filter_map(|&(s, e)| Some((engine.snap(s).ok()??, engine.snap(e).ok()??)))
            .collect()
    };
    let snapped = snap(&pairs);
    let snapped_reachable = snap(&reachable);

    c.bench_function("detour/nav_test findNearestPoly x100", |b| {
        b.iter(|| {
            for &(s, e) in &pairs {
                black_box(engine.snap(black_box(s)).expect("snap"));
                black_box(engine.snap(black_box(e)).expect("snap"));
            }
        })
    });
    c.bench_function("detour/nav_test findPath + findStraightPath x50", |b| {
        b.iter(|| {
            for &(s, e) in &snapped {
                black_box(engine.path(black_box(s), black_box(e)).expect("path"));
            }
        })
    });
    c.bench_function(
        "detour/nav_test findPath + findStraightPath x50 reachable",
        |b| {
            b.iter(|| {
                for &(s, e) in &snapped_reachable {
                    black_box(engine.path(black_box(s), black_box(e)).expect("path"));
                }
            })
        },
    );
    c.bench_function("detour/nav_test raycast x50", |b| {
        b.iter(|| {
            for &(s, e) in &snapped {
                black_box(engine.raycast(black_box(s), e.pos).expect("raycast"));
            }
        })
    });
}

/// `criterion_group!` generates an undocumented public function; it lives here.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, nav_test);
}
criterion_main!(group::benches);
