//! OnePath against Recast / Detour: issue 8 (OnePath's build of Recast's demo level with the
//! demo settings) and issue 4 (both query layers on the very same polygons). Tests that need
//! `$ONEPATH_DATA/levels/nav_test.obj` say "skipped" and pass without it; the generated-mesh
//! tests always run.

use onepath_mesh::query::generated_grid_mesh;
use onepath_mesh::TiledNavMesh;
use onepath_peers::compare::{relative_diff, LengthComparison};
use onepath_peers::detour::{DetourEngine, DetourNavMesh};
use onepath_peers::level::nav_test_path;
use onepath_peers::metrics::{path_length, reachable_pairs, run_pairs};
use onepath_peers::onepath::{
    build_config, build_onepath, detour_mesh, world_polygons, DetourRefMap, OnePathEngine,
};
use onepath_peers::recast::build_tiled;
use onepath_peers::sampling::{point_pairs, PointPair, REPORT_PAIRS, REPORT_SEED};
use onepath_peers::{Level, PathEngine, PathMetrics, PeerError, RecastSettings};

/// The nav_test conversion's vertex tolerance (as in `recast_report`).
const TOLERANCE: f32 = 1e-4;

fn level() -> Option<Level> {
    let Some(path) = nav_test_path() else {
        eprintln!("skipped: ONEPATH_DATA is not set or levels/nav_test.obj is absent");
        return None;
    };
    Some(Level::load_obj(&path).unwrap())
}

fn within(a: f64, b: f64, goal: f64) -> bool {
    relative_diff(a, b) <= goal
}

#[test]
fn the_recast_demo_settings_map_onto_onepaths_demo_configuration() {
    let level = Level::from_obj_str("v -3 1 -5\nv 7 1 -5\nv 7 1 5\nf 1 3 2\n").unwrap();
    let cfg = build_config(&level, &RecastSettings::default()).unwrap();
    // OnePath's BuildConfig::default is the Recast demo; only the origin differs (the level's
    // minimum corner, where the demo puts its tile grid), and the peer's configuration is
    // hand-made (settings digest 0, where the default carries the default settings' digest).
    let expected = onepath_build3d::BuildConfig {
        origin: [-3.0, 1.0, -5.0],
        settings_digest: 0,
        ..onepath_build3d::BuildConfig::default()
    };
    assert_eq!(cfg, expected);
    assert_eq!(
        (cfg.voxel().walkable_radius, cfg.voxel().border),
        (2, 5),
        "the demo's cells"
    );
}

#[test]
fn settings_onepath_refuses_are_a_typed_error_naming_the_call() {
    let level = Level::from_obj_str("v 0 0 0\nv 1 0 0\nv 1 0 1\nf 1 3 2\n").unwrap();
    let settings = RecastSettings {
        // 400 cells of 0.3: above OnePath's 255-cell limit on the agent radius.
        agent_radius: 120.0,
        ..RecastSettings::default()
    };
    match build_config(&level, &settings) {
        Err(PeerError::OnePath { call, reason }) => {
            assert_eq!(call, "BuildConfig::validate");
            assert!(reason.contains("agent_radius"), "{reason}");
        }
        other => panic!("expected PeerError::OnePath, got {other:?}"),
    }
}

/// Issue 8: "walkable area (goal within 2 %), polygon count (goal within 15 %)".
#[test]
fn onepath_builds_nav_test_within_two_percent_of_recasts_area_and_fifteen_of_its_polygons() {
    let Some(level) = level() else { return };
    let settings = RecastSettings::default();
    let recast = build_tiled(&level, &settings).unwrap().metrics();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let ours = one.install(|| build_onepath(&level, &settings)).unwrap();
    let m = ours.metrics();
    assert!(
        within(recast.walkable_area, m.walkable_area, 0.02),
        "{recast:?} vs {m:?}"
    );
    assert!(
        within(recast.polygon_count as f64, m.polygon_count as f64, 0.15),
        "{recast:?} vs {m:?}"
    );
    assert_eq!(
        m.polygon_count,
        ours.built.mesh.tiles().map(|t| t.tile().poly_count()).sum()
    );
    // The same on all threads (OnePath's determinism; the figures must not depend on it).
    let all = build_onepath(&level, &settings).unwrap();
    assert_eq!(all.metrics(), m);
}

/// Issue 8: "straight-path lengths between the 50 seeded reachable point pairs (goal within
/// 2 %)". Measured: 45 of 50 pairs within 2 %, the total within 0.7 %; the other pairs take
/// another corridor (the cost metrics differ, see README "Findings"). Since border-vertex
/// removal (issue 21) changed OnePath's polygons: 44 of 50 within 2 %, the total within
/// 0.64 %. The test holds the measured level: every pair complete, at least 44 within 2 %,
/// the total within 2 %.
#[test]
fn onepath_paths_on_recasts_fifty_reachable_pairs_are_within_two_percent() {
    let Some(level) = level() else { return };
    let settings = RecastSettings::default();
    let recast = build_tiled(&level, &settings).unwrap();
    let mut detour = DetourEngine::new(&recast.navmesh).unwrap();
    let pairs = reachable_pairs(
        &mut detour,
        &recast.world_polygons(),
        REPORT_PAIRS,
        REPORT_SEED,
        10_000,
    )
    .unwrap();
    assert_eq!(pairs.len(), REPORT_PAIRS);
    let d = PathMetrics::from_results(&run_pairs(&mut detour, &pairs).unwrap());
    let ours = build_onepath(&level, &settings).unwrap();
    let mut engine = OnePathEngine::new(&ours.built.mesh, 1 << 20);
    let o = PathMetrics::from_results(&run_pairs(&mut engine, &pairs).unwrap());
    let c = LengthComparison::new(&d, &o, 0.02);
    assert_eq!(c.both_complete, REPORT_PAIRS, "{c:?}");
    assert!(c.within_tolerance >= 44, "{c:?}");
    assert!(within(c.total_first, c.total_second, 0.02), "{c:?}");
}

/// Pairs on `mesh`'s polygons whose OnePath path completes.
fn onepath_pairs(mesh: &TiledNavMesh, n: usize, seed: u64) -> Vec<PointPair> {
    let mut engine = OnePathEngine::new(mesh, 1 << 20);
    reachable_pairs(&mut engine, &world_polygons(mesh), n, seed, 10_000).unwrap()
}

/// Every OnePath polygon, found by Detour at its centre, maps back to itself.
fn check_ref_map(mesh: &TiledNavMesh, detour_mesh: &DetourNavMesh) {
    let map = DetourRefMap::new(mesh);
    let detour = DetourEngine::new(detour_mesh).unwrap();
    let mut checked = 0;
    for t in mesh.tiles() {
        for p in 0..t.tile().poly_count() {
            let r = t.poly_ref(p as u32).unwrap();
            let corners: Vec<[f64; 3]> = t.poly_world_vertices(p).collect();
            let n = corners.len() as f64;
            let c = [0, 1, 2].map(|a| (corners.iter().map(|v| v[a]).sum::<f64>() / n) as f32);
            let d = map.to_detour(mesh, r).unwrap();
            assert_eq!(map.to_onepath(mesh, d), Some(r));
            // Detour's nearest polygon at the centre is this one (or, on a stacked level,
            // one vertically nearer; then only check the round trip of that one).
            let s = detour.snap(c).unwrap().unwrap();
            if s.poly == d {
                checked += 1;
            } else {
                assert!(map.to_onepath(mesh, s.poly).is_some());
            }
        }
    }
    let total: usize = mesh.tiles().map(|t| t.tile().poly_count()).sum();
    assert!(checked * 10 >= total * 9, "{checked} of {total}");
    assert_eq!(map.to_onepath(mesh, 0), None);
}

/// X/Z length of a corner list (both funnels run in X/Z).
fn length_2d(corners: &[[f32; 3]]) -> f64 {
    let flat: Vec<[f32; 3]> = corners.iter().map(|c| [c[0], 0.0, c[2]]).collect();
    path_length(&flat)
}

/// On one corridor both string pullers agree: Detour's corridor run through OnePath's
/// `find_straight_path`, and OnePath's through Detour's `findStraightPath`, give the same
/// X/Z straight-path length within 1e-5 (relative) as the other engine on that corridor,
/// and the same 3D length within 0.5 %: heights may differ where an end point is clamped to
/// a polygon it is not over (Detour takes the boundary edge's height, OnePath the detail
/// surface's).
fn check_same_corridor_same_length(
    mesh: &TiledNavMesh,
    detour_mesh: &DetourNavMesh,
    pairs: &[PointPair],
) {
    let map = DetourRefMap::new(mesh);
    let mut detour = DetourEngine::with_limits(detour_mesh, 65_535, 4096).unwrap();
    let mut ours = OnePathEngine::new(mesh, 1 << 20);
    let mut compared = 0;
    for &(s, e) in pairs {
        let (Some(ds), Some(de)) = (detour.snap(s).unwrap(), detour.snap(e).unwrap()) else {
            panic!("a point on the polygons did not snap in Detour: {s:?} {e:?}");
        };
        let (Some(os), Some(oe)) = (ours.snap(s).unwrap(), ours.snap(e).unwrap()) else {
            panic!("a point on the polygons did not snap in OnePath: {s:?} {e:?}");
        };
        // Detour's corridor through both.
        let (dc, partial) = detour.corridor(ds, de).unwrap();
        assert!(!partial);
        // Detour's sliced search (which counts its iterations) completes too, from and to the
        // same polygons. It may return another corridor than `findPath` (seen on the
        // generated grid), so only its ends are compared.
        let (sliced, sliced_partial, iterations) = detour.corridor_counted(ds, de).unwrap();
        assert!(!sliced_partial);
        assert_eq!((sliced.first(), sliced.last()), (dc.first(), dc.last()));
        assert!(
            iterations + 1 >= sliced.len(),
            "{iterations} iterations, {sliced:?}"
        );
        let d_len = path_length(&detour.straight_path_along(ds.pos, de.pos, &dc).unwrap());
        let mapped: Vec<_> = dc
            .iter()
            .map(|&r| map.to_onepath(mesh, r).unwrap())
            .collect();
        let from = ds.pos.map(f64::from);
        let to = de.pos.map(f64::from);
        let o_len = path_length(&ours.straight_path_along(from, to, &mapped).unwrap());
        assert!(
            within(d_len, o_len, 1e-5),
            "Detour corridor: {d_len} vs {o_len}"
        );
        // OnePath's corridor through both.
        let out = ours.path(&os, &oe).unwrap();
        assert!(!out.partial);
        let oc: Vec<u32> = ours
            .corridor()
            .iter()
            .map(|&r| map.to_detour(mesh, r).unwrap())
            .collect();
        let start = out.corners[0];
        let end = *out.corners.last().unwrap();
        let d_path = detour.straight_path_along(start, end, &oc).unwrap();
        let (d2, o2) = (length_2d(&d_path), length_2d(&out.corners));
        assert!(within(d2, o2, 1e-5), "OnePath corridor, X/Z: {d2} vs {o2}");
        let (d3, o3) = (path_length(&d_path), out.length());
        assert!(within(d3, o3, 0.005), "OnePath corridor, 3D: {d3} vs {o3}");
        compared += 1;
    }
    assert_eq!(compared, pairs.len());
}

#[test]
fn detour_references_map_back_to_the_same_onepath_polygons() {
    let generated = generated_grid_mesh(4, 4, 4, 7);
    let d = detour_mesh(&generated.mesh, 0.25, 0.0).unwrap();
    assert_eq!(d.counts(), (16, 256));
    check_ref_map(&generated.mesh, &d);

    let Some(level) = level() else { return };
    let ours = build_onepath(&level, &RecastSettings::default()).unwrap();
    let d = ours.detour_mesh(0.2, TOLERANCE).unwrap();
    let m = ours.metrics();
    assert_eq!(d.counts(), (m.tile_count, m.polygon_count));
    check_ref_map(&ours.built.mesh, &d);
}

/// Issue 4: "both engines find paths of equal length within a small tolerance on the same
/// polygons". The A* cost metrics differ (OnePath: polygon centres and crossing midpoints,
/// fixed edge costs; Detour: edge midpoints, a node's position fixed by its first parent),
/// so the corridors may differ; on one corridor the string pullers agree to 1e-5.
#[test]
fn on_the_same_polygons_and_corridor_both_engines_give_equal_straight_path_lengths() {
    let generated = generated_grid_mesh(8, 8, 4, 0x5EED_0004);
    let d = detour_mesh(&generated.mesh, 0.25, 0.0).unwrap();
    let pairs = onepath_pairs(&generated.mesh, 20, REPORT_SEED);
    assert_eq!(pairs.len(), 20);
    check_same_corridor_same_length(&generated.mesh, &d, &pairs);

    let Some(level) = level() else { return };
    let ours = build_onepath(&level, &RecastSettings::default()).unwrap();
    let d = ours.detour_mesh(0.2, TOLERANCE).unwrap();
    let pairs = onepath_pairs(&ours.built.mesh, REPORT_PAIRS, REPORT_SEED);
    assert_eq!(pairs.len(), REPORT_PAIRS);
    check_same_corridor_same_length(&ours.built.mesh, &d, &pairs);
}

/// Issue 4, whole queries: on the same polygons both engines complete the same pairs, and
/// the totals of their straight paths (each through its own corridor) stay within 5 %
/// (measured: +1.3 % on nav_test and +3.1 % on the 32 x 32 generated mesh for OnePath).
#[test]
fn on_the_same_polygons_both_engines_complete_the_same_pairs_with_totals_within_five_percent() {
    let generated = generated_grid_mesh(8, 8, 4, 0x5EED_0004);
    let d = detour_mesh(&generated.mesh, 0.25, 0.0).unwrap();
    let polys = world_polygons(&generated.mesh);
    // Raw pairs: some land on blocked cells or in closed pockets; both must agree on which.
    let pairs = point_pairs(&polys, 40, REPORT_SEED);
    let mut detour = DetourEngine::with_limits(&d, 65_535, 4096).unwrap();
    let mut ours = OnePathEngine::new(&generated.mesh, 1 << 20);
    let dm = PathMetrics::from_results(&run_pairs(&mut detour, &pairs).unwrap());
    let om = PathMetrics::from_results(&run_pairs(&mut ours, &pairs).unwrap());
    let c = LengthComparison::new(&dm, &om, 0.001);
    assert_eq!((c.only_first, c.only_second), (0, 0), "{c:?}");
    assert!(c.both_complete > 20, "{c:?}");
    assert!(within(c.total_first, c.total_second, 0.05), "{c:?}");

    let Some(level) = level() else { return };
    let built = build_onepath(&level, &RecastSettings::default()).unwrap();
    let d = built.detour_mesh(0.2, TOLERANCE).unwrap();
    let pairs = point_pairs(&built.world_polygons(), REPORT_PAIRS, REPORT_SEED);
    let mut detour = DetourEngine::new(&d).unwrap();
    let mut ours = OnePathEngine::new(&built.built.mesh, 1 << 20);
    let dm = PathMetrics::from_results(&run_pairs(&mut detour, &pairs).unwrap());
    let om = PathMetrics::from_results(&run_pairs(&mut ours, &pairs).unwrap());
    let c = LengthComparison::new(&dm, &om, 0.001);
    assert_eq!((c.only_first, c.only_second), (0, 0), "{c:?}");
    assert!(within(c.total_first, c.total_second, 0.05), "{c:?}");
    // Same answer through the PathEngine trait object.
    let engine: &mut dyn PathEngine = &mut ours;
    assert_eq!(
        PathMetrics::from_results(&run_pairs(engine, &pairs).unwrap()),
        om
    );
}

#[test]
fn forged_references_map_to_nothing_and_detour_refuses_them_by_name() {
    let generated = generated_grid_mesh(2, 2, 2, 3);
    let d = detour_mesh(&generated.mesh, 0.25, 0.0).unwrap();
    let map = DetourRefMap::new(&generated.mesh);
    let real = map
        .to_detour(
            &generated.mesh,
            generated.mesh.tiles().next().unwrap().poly_ref(0).unwrap(),
        )
        .unwrap();
    // 4 tiles of 4 polygons: 2 tile bits, 2 polygon bits, salt 1 above them.
    assert_eq!(real, 1 << 4);
    assert_eq!(
        map.to_onepath(&generated.mesh, real + 3),
        generated.mesh.tiles().next().unwrap().poly_ref(3)
    );
    // Salt 2, or salt 1 with no polygon bits room left: nothing.
    assert_eq!(map.to_onepath(&generated.mesh, 2 << 4), None);
    assert_eq!(map.to_onepath(&generated.mesh, u32::MAX), None);

    let mut detour = DetourEngine::new(&d).unwrap();
    let s = detour.snap([1.0, 0.0, 1.0]).unwrap().unwrap();
    let forged = onepath_peers::detour::Snapped {
        poly: s.poly ^ (1 << 30),
        pos: s.pos,
    };
    match detour.corridor_counted(s, forged) {
        Err(PeerError::Detour { call, .. }) => {
            assert_eq!(call, "dtNavMeshQuery::initSlicedFindPath")
        }
        other => panic!("expected a Detour error, got {other:?}"),
    }
    // The query still answers afterwards. Start = end: Detour's sliced search is done at
    // once (no iteration).
    let (c, partial, iterations) = detour.corridor_counted(s, s).unwrap();
    assert_eq!((c, partial, iterations), (vec![s.poly], false, 0));
}
