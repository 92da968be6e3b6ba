//! The crowd on Recast's demo level (`$ONEPATH_DATA/levels/nav_test.obj`, OnePath's own
//! build) and beside DetourCrowd. Without the data set the nav_test tests say so and pass
//! as skipped.

use onepath_crowd::{AgentParams, AgentState, Crowd, CrowdSettings, WorldContext};
use onepath_mesh::query::{generated_grid_mesh, NavMeshQuery, PathStatus, QueryFilter};
use onepath_peers::crowd::compare_crowds;
use onepath_peers::level::nav_test_path;
use onepath_peers::onepath::{build_onepath, detour_mesh};
use onepath_peers::{Level, RecastSettings};

#[test]
fn agents_reach_their_targets_on_nav_test_and_never_leave_the_mesh() {
    let Some(path) = nav_test_path() else {
        eprintln!("skipped: ONEPATH_DATA is not set or levels/nav_test.obj is absent");
        return;
    };
    let level = Level::load_obj(&path).unwrap();
    let built = build_onepath(&level, &RecastSettings::default()).unwrap();
    let mesh = &built.built.mesh;
    let (lo, hi) = level.bounds().unwrap();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let mut goals = Vec::new();
    let mut s = 99u64;
    let mut next = |a: f32, b: f32| {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        f64::from(a) + ((s >> 33) as f64 / (1u64 << 31) as f64) * f64::from(b - a)
    };
    let ext = [0.5, f64::from(hi[1] - lo[1]), 0.5];
    let mid = f64::from(lo[1] + hi[1]) * 0.5;
    let mut tries = 0;
    while goals.len() < 24 && tries < 10_000 {
        tries += 1;
        let a = [next(lo[0], hi[0]), mid, next(lo[2], hi[2])];
        let b = [next(lo[0], hi[0]), mid, next(lo[2], hi[2])];
        let (Some(na), Some(nb)) = (
            q.find_nearest_poly(mesh, a, ext, &f).unwrap(),
            q.find_nearest_poly(mesh, b, ext, &f).unwrap(),
        ) else {
            continue;
        };
        let mut p = Vec::new();
        let r = q
            .find_path(
                mesh, na.poly, nb.poly, na.point, nb.point, &f, 100_000, &mut p,
            )
            .unwrap();
        if r.status != PathStatus::Complete {
            continue;
        }
        let Ok(id) = crowd.add_agent(mesh, na.point, AgentParams::new(0.6)) else {
            continue;
        };
        crowd.request_move_target(id, nb.poly, nb.point).unwrap();
        goals.push(id);
    }
    assert_eq!(goals.len(), 24);
    let world = WorldContext::new(mesh);
    for step in 0..60 * 120 {
        crowd.update(&world, 1.0 / 60.0).unwrap();
        for a in crowd.agents() {
            if a.state() == AgentState::Walking {
                let poly = a.corridor().first_poly();
                assert!(mesh.is_valid_poly_ref(poly));
                let h = q.poly_height(mesh, poly, a.position()).unwrap();
                assert!(h.is_some(), "step {step}: {:?} off its polygon", a.id());
            }
        }
        if crowd
            .agents()
            .iter()
            .all(|a| a.navigator().steering.at_destination)
        {
            break;
        }
    }
    for a in crowd.agents() {
        if !a.navigator().steering.at_destination {
            let c = a.corridor();
            eprintln!(
                "{:?} {:?} {:?} pos {:?} corridor target {:?} len {} d {:.2} stuck {} repath {} v {:?} corners {}",
                a.id(), a.state(), a.target_state(), a.position(), c.target(), c.path().len(),
                a.navigator().steering.distance_to_target, a.navigator().steering.stuck_count,
                a.navigator().steering.repath_count, a.velocity(), a.corners().len()
            );
        }
    }
    let arrived = crowd
        .agents()
        .iter()
        .filter(|a| a.navigator().steering.at_destination)
        .count();
    // Not always all: an agent that arrived stands where it is (as in DetourCrowd, arrived
    // agents do not yield), and in a passage narrower than two agents it blocks one coming
    // after it.
    assert!(arrived >= 22, "{arrived} of 24 arrived");
}

#[test]
fn the_side_by_side_run_moves_both_crowds() {
    let g = generated_grid_mesh(2, 2, 8, 3);
    let d = detour_mesh(&g.mesh, 0.25, 0.0).unwrap();
    let c = compare_crowds(
        &g.mesh,
        ([1.0, -1.0, 1.0], [31.0, 1.0, 31.0]),
        &d,
        8,
        600,
        50,
        7,
    )
    .unwrap();
    assert_eq!((c.agents, c.updates), (8, 600));
    assert!(c.onepath_ms > 0.0 && c.detour_ms > 0.0);
    assert!(c.onepath_arrived >= 6 && c.detour_arrived >= 6, "{c:?}");
    assert!(
        c.path_length_ratio > 0.8 && c.path_length_ratio < 1.25,
        "{c:?}"
    );
}

#[test]
fn the_detour_crowd_wrapper_refuses_unknown_agents_and_bad_input() {
    use onepath_peers::crowd::DetourCrowd;
    let g = generated_grid_mesh(2, 2, 8, 3);
    let d = detour_mesh(&g.mesh, 0.25, 0.0).unwrap();
    for (agents, radius) in [(0, 0.5), (4, f32::NAN)] {
        assert!(matches!(
            DetourCrowd::new(&d, agents, radius),
            Err(onepath_peers::PeerError::Input { ref at, .. }) if at == "crowd"
        ));
    }
    let mut c = DetourCrowd::new(&d, 4, 0.5).unwrap();
    let mut q = NavMeshQuery::new();
    let at = q
        .find_nearest_poly(
            &g.mesh,
            [4.5, 0.0, 4.5],
            [4.0, 1.0, 4.0],
            &QueryFilter::new(),
        )
        .unwrap()
        .unwrap()
        .point;
    let p = [at[0] as f32, at[1] as f32, at[2] as f32];
    let params = AgentParams::new(0.5);
    assert_eq!(c.add_agent([f32::NAN, 0.0, 0.0], &params), None);
    let i = c.add_agent(p, &params).unwrap();
    assert_eq!(c.position(i), Some(p));
    // Unknown agents: no position, no target; the crowd is left as it was.
    for bad in [-1, i + 1, 4, i32::MAX] {
        assert_eq!(c.position(bad), None, "agent {bad}");
        assert!(!c.request_target(bad, p), "agent {bad}");
    }
    assert!(!c.request_target(i, [f32::INFINITY, 0.0, 0.0]));
    assert!(c.request_target(i, [p[0] + 8.0, p[1], p[2]]));
    c.update(f32::NAN);
    c.update(-1.0);
    assert_eq!(c.position(i), Some(p), "refused steps move nothing");
    for _ in 0..60 {
        c.update(1.0 / 60.0);
    }
    let moved = c.position(i).unwrap();
    let walked = ((moved[0] - p[0]).powi(2) + (moved[2] - p[2]).powi(2)).sqrt();
    assert!(walked > 0.5, "{moved:?} from {p:?}");
}
