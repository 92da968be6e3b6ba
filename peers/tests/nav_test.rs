//! Recast + Detour over Recast's demo level (`$ONEPATH_DATA/levels/nav_test.obj`). Without
//! the data set the tests say so and pass as skipped.

use onepath_peers::detour::DetourEngine;
use onepath_peers::level::nav_test_path;
use onepath_peers::metrics::{reachable_pairs, run_pairs};
use onepath_peers::recast::build_tiled;
use onepath_peers::sampling::point_pairs;
use onepath_peers::{Level, PathMetrics, PeerError, RecastSettings};

fn level() -> Option<Level> {
    let Some(path) = nav_test_path() else {
        eprintln!("skipped: ONEPATH_DATA is not set or levels/nav_test.obj is absent");
        return None;
    };
    Some(Level::load_obj(&path).unwrap())
}

#[test]
fn the_demo_level_reads_as_documented() {
    let Some(level) = level() else { return };
    // The data README: 884 vertices, 1 612 triangles.
    assert_eq!(level.vertices.len(), 884);
    assert_eq!(level.triangles.len(), 1612);
    let (lo, hi) = level.bounds().unwrap();
    assert!(lo[0] < -28.0 && hi[0] > 62.0 && lo[2] < -46.0 && hi[2] > 31.0);
}

#[test]
fn the_tiled_build_is_repeatable_and_queries_agree_with_geometry() {
    let Some(level) = level() else { return };
    let settings = RecastSettings::default();
    let a = build_tiled(&level, &settings).unwrap();
    let b = build_tiled(&level, &settings).unwrap();
    // Same input, same meshes (Recast is single-threaded and deterministic).
    assert_eq!(a.tiles, b.tiles);
    let m = a.metrics();
    assert_eq!(m, b.metrics());
    assert!(m.tile_count > 0 && m.polygon_count >= m.tile_count);
    assert_eq!(a.navmesh.counts(), (m.tile_count, m.polygon_count));
    // The walkable area cannot exceed the level's footprint.
    let g = a.grid;
    let footprint = f64::from(g.bmax[0] - g.bmin[0]) * f64::from(g.bmax[2] - g.bmin[2]);
    assert!(
        m.walkable_area > 0.0 && m.walkable_area < footprint,
        "{m:?}"
    );

    let polys = a.world_polygons();
    assert_eq!(polys.len(), m.polygon_count);
    let pairs = point_pairs(&polys, 50, 1);
    assert_eq!(pairs, point_pairs(&b.world_polygons(), 50, 1));
    let mut engine = DetourEngine::new(&a.navmesh).unwrap();
    let results = run_pairs(&mut engine, &pairs).unwrap();
    let mut complete = 0;
    for r in &results {
        // Points sampled on the polygons always snap.
        let out = r.outcome.as_ref().expect("a sampled point did not snap");
        assert!(out.corners.len() >= 2, "{r:?}");
        let first = out.corners[0];
        let last = *out.corners.last().unwrap();
        // A straight path is never shorter than the straight segment between its ends.
        let dx = f64::from(last[0]) - f64::from(first[0]);
        let dz = f64::from(last[2]) - f64::from(first[2]);
        assert!(out.length() >= (dx * dx + dz * dz).sqrt(), "{r:?}");
        if !out.partial {
            complete += 1;
            // It starts and ends at the requested points (X/Z; Y is snapped to the mesh).
            assert_eq!([first[0], first[2]], [r.start[0], r.start[2]], "{r:?}");
            assert_eq!([last[0], last[2]], [r.end[0], r.end[2]], "{r:?}");
        }
    }
    assert!(complete > 0);
    let figures = PathMetrics::from_results(&results);
    assert_eq!(figures.complete, complete);
    assert_eq!(figures.lengths.len(), 50);

    // Reachable pairs: every one completes, and they repeat for the seed.
    let reachable = reachable_pairs(&mut engine, &polys, 50, 1, 10_000).unwrap();
    assert_eq!(reachable.len(), 50);
    for r in run_pairs(&mut engine, &reachable).unwrap() {
        assert!(!r.outcome.unwrap().partial);
    }
    assert_eq!(
        reachable,
        reachable_pairs(&mut engine, &polys, 50, 1, 10_000).unwrap()
    );
    let mut engine_b = DetourEngine::new(&b.navmesh).unwrap();
    assert_eq!(results, run_pairs(&mut engine_b, &pairs).unwrap());
}

#[test]
fn a_triangle_index_out_of_range_is_an_error_not_a_crash() {
    let level = Level {
        vertices: vec![[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 0.0, 10.0]],
        triangles: vec![[0, 1, 2], [0, 1, 7]],
    };
    match build_tiled(&level, &RecastSettings::default()) {
        Err(PeerError::Input { at, reason }) => {
            assert_eq!(at, "triangle 1");
            assert_eq!(reason, "index 7 is not below 3");
        }
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn a_flat_square_builds_into_walkable_polygons_inside_its_eroded_border() {
    // A 20 x 20 floor: Recast erodes the agent radius (2 cells of 0.3) from its border, so
    // the walkable area lies between (20 - 2 * 0.6 - 2 * 0.3)^2 and 20^2.
    let level = Level {
        vertices: vec![
            [0.0, 0.0, 0.0],
            [20.0, 0.0, 0.0],
            [20.0, 0.0, 20.0],
            [0.0, 0.0, 20.0],
        ],
        triangles: vec![[0, 2, 1], [0, 3, 2]],
    };
    let build = build_tiled(&level, &RecastSettings::default()).unwrap();
    let m = build.metrics();
    // 20 / 0.3 = 67 cells -> 3 x 3 tiles of 32 cells.
    assert_eq!((build.grid.tiles_x, build.grid.tiles_z), (3, 3));
    // The third column and row (from 19.2) keep a strip one cell wide after erosion, fewer
    // cells than the minimum region area (8 x 8): Recast drops it, so only 2 x 2 tiles hold
    // polygons, covering about [0.6, 19.2]^2.
    assert_eq!(m.tile_count, 4);
    let inner = 19.2 - 0.6 - 0.3;
    assert!(
        m.walkable_area > inner * inner && m.walkable_area < 19.2 * 19.2,
        "{m:?}"
    );
    let mut engine = DetourEngine::new(&build.navmesh).unwrap();
    let path =
        onepath_peers::PathEngine::straight_path(&mut engine, [2.0, 0.0, 2.0], [18.0, 0.0, 18.0])
            .unwrap()
            .unwrap();
    // Open floor: the straight path is the diagonal itself.
    assert_eq!(path.corners.len(), 2);
    assert!(!path.partial);
}

#[test]
fn levels_beyond_the_coordinate_bound_or_tile_budget_are_refused() {
    let mut level = Level {
        vertices: vec![[0.0, 0.0, 0.0], [1e30, 0.0, 0.0], [0.0, 0.0, 10.0]],
        triangles: vec![[0, 1, 2]],
    };
    match build_tiled(&level, &RecastSettings::default()) {
        Err(PeerError::Input { at, .. }) => assert_eq!(at, "level vertex 1"),
        other => panic!("expected an input error, got {other:?}"),
    }
    // 1e6 units at 0.3 per cell and 32 cells per tile: about 10^4 x 10^4 tiles.
    level.vertices[1][0] = 1.0e6;
    level.vertices[2][2] = 1.0e6;
    match build_tiled(&level, &RecastSettings::default()) {
        Err(PeerError::Input { at, reason }) => {
            assert_eq!(at, "level");
            assert!(reason.contains("at most 16384"), "{reason}");
        }
        other => panic!("expected an input error, got {other:?}"),
    }
    let bad = RecastSettings {
        cell_size: -1.0,
        ..RecastSettings::default()
    };
    match build_tiled(&level, &bad) {
        Err(PeerError::Input { at, .. }) => assert_eq!(at, "cell_size"),
        other => panic!("expected an input error, got {other:?}"),
    }
}
