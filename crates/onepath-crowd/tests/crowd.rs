//! The crowd's statements: agents reach their targets and stay on the mesh, head-on
//! agents keep apart, stale corridors replan, a streamed-out target has no path, the path
//! budget changes when paths arrive and never which, the same inputs give the same bits.

use onepath_crowd::{
    AgentId, AgentParams, AgentState, Crowd, CrowdError, CrowdSettings, LocomotionHandler,
    LocomotionKind, TargetState, UpdateFlags, WorldContext,
};
use onepath_format::NavMeshParams;
use onepath_mesh::fixtures::{bridge_and_building, flat_grid_tile};
use onepath_mesh::query::{generated_grid_mesh, NavMeshQuery, QueryFilter, GENERATED_SWAMP_AREA};
use onepath_mesh::TiledNavMesh;

const DT: f64 = 1.0 / 60.0;

/// A flat mesh of `nx × nz` tiles of 16 units, 8 × 8 cells each.
fn flat_mesh(nx: i32, nz: i32) -> TiledNavMesh {
    let params = NavMeshParams::new([0.0, 0.0, 0.0], 16.0, 0.25, 6);
    let mut mesh = TiledNavMesh::new(params).unwrap();
    for z in 0..nz {
        for x in 0..nx {
            mesh.add_tile(flat_grid_tile(&params, x, z, 0, 0.0, 8).unwrap())
                .unwrap();
        }
    }
    mesh
}

/// A crowd with one agent of `radius` at `pos`.
fn one_agent(mesh: &TiledNavMesh, pos: [f64; 3], radius: f64) -> (Crowd, AgentId) {
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = crowd
        .add_agent(mesh, pos, AgentParams::new(radius))
        .unwrap();
    (crowd, id)
}

/// `steps` updates of [`DT`].
fn run(crowd: &mut Crowd, world: &WorldContext<'_>, steps: usize) {
    for _ in 0..steps {
        crowd.update(world, DT).unwrap();
    }
}

fn target(crowd: &mut Crowd, mesh: &TiledNavMesh, id: AgentId, p: [f64; 3]) {
    let n = NavMeshQuery::new()
        .find_nearest_poly(mesh, p, [1.0, 2.0, 1.0], &QueryFilter::new())
        .unwrap()
        .expect("target on the mesh");
    crowd.request_move_target(id, n.poly, n.point).unwrap();
}

/// Every walking agent stands over its corridor's first polygon, which is valid and
/// passes its filter.
fn assert_on_mesh(crowd: &Crowd, mesh: &TiledNavMesh, step: usize) {
    let q = NavMeshQuery::new();
    for a in crowd.agents() {
        if a.state() != AgentState::Walking {
            continue;
        }
        let poly = a.corridor().first_poly();
        assert!(
            mesh.is_valid_poly_ref(poly),
            "step {step}: {:?} on a stale polygon",
            a.id()
        );
        let flags = mesh.poly_flags(poly).unwrap();
        assert!(
            a.params().filter.passes_flags(flags),
            "step {step}: filtered polygon"
        );
        let h = q.poly_height(mesh, poly, a.position()).unwrap();
        assert!(
            h.is_some(),
            "step {step}: {:?} at {:?} is off its polygon",
            a.id(),
            a.position()
        );
    }
}

fn arrived(crowd: &Crowd, id: AgentId) -> bool {
    crowd.agent(id).unwrap().navigator().steering.at_destination
}

#[test]
fn agents_reach_their_targets_on_a_generated_level_and_never_leave_the_mesh() {
    let g = generated_grid_mesh(4, 4, 8, 7);
    let mesh = &g.mesh;
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let mut ids = Vec::new();
    let mut goals = Vec::new();
    // A seeded stream of starts and goals on walkable cells.
    let mut s = 12345u64;
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 33) as f64 / (1u64 << 31) as f64) * 62.0 + 1.0
    };
    while ids.len() < 24 {
        let (x, z, gx, gz) = (next(), next(), next(), next());
        let Some(a) = q
            .find_nearest_poly(mesh, [x, 0.0, z], [0.5, 1.0, 0.5], &f)
            .unwrap()
        else {
            continue;
        };
        let Some(b) = q
            .find_nearest_poly(mesh, [gx, 0.0, gz], [0.5, 1.0, 0.5], &f)
            .unwrap()
        else {
            continue;
        };
        let mut path = Vec::new();
        let r = q
            .find_path(
                mesh, a.poly, b.poly, a.point, b.point, &f, 100_000, &mut path,
            )
            .unwrap();
        if r.status != onepath_mesh::query::PathStatus::Complete {
            continue;
        }
        let Ok(id) = crowd.add_agent(mesh, a.point, AgentParams::new(0.3)) else {
            continue;
        };
        crowd.request_move_target(id, b.poly, b.point).unwrap();
        ids.push(id);
        goals.push(b.point);
    }
    let world = WorldContext::new(mesh);
    for step in 0..60 * 90 {
        crowd.update(&world, DT).unwrap();
        assert_on_mesh(&crowd, mesh, step);
        if ids.iter().all(|&id| arrived(&crowd, id)) {
            break;
        }
    }
    for &id in &ids {
        let a = crowd.agent(id).unwrap();
        if !arrived(&crowd, id) {
            eprintln!(
                "{:?} {:?} {:?} pos {:?} target {:?} len {} last==target {} v {:?} stuck {}",
                id,
                a.state(),
                a.target_state(),
                a.position(),
                a.corridor().target(),
                a.corridor().path().len(),
                a.corridor().last_poly() == a.corridor().last_poly(),
                a.velocity(),
                a.navigator().steering.stuck_count
            );
        }
    }
    let done = ids.iter().filter(|&&id| arrived(&crowd, id)).count();
    assert_eq!(done, ids.len(), "only {done} of {} arrived", ids.len());
}

#[test]
fn two_agents_crossing_head_on_keep_apart() {
    let mesh = flat_mesh(2, 1);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let p = AgentParams::new(0.5);
    let a = crowd.add_agent(&mesh, [4.0, 0.0, 8.0], p).unwrap();
    let b = crowd.add_agent(&mesh, [28.0, 0.0, 8.0], p).unwrap();
    target(&mut crowd, &mesh, a, [28.0, 0.0, 8.0]);
    target(&mut crowd, &mesh, b, [4.0, 0.0, 8.0]);
    let world = WorldContext::new(&mesh);
    let mut min_sep = f64::INFINITY;
    for _ in 0..60 * 30 {
        crowd.update(&world, DT).unwrap();
        let (pa, pb) = (
            crowd.agent(a).unwrap().position(),
            crowd.agent(b).unwrap().position(),
        );
        let d = ((pa[0] - pb[0]).powi(2) + (pa[2] - pb[2]).powi(2)).sqrt();
        min_sep = min_sep.min(d);
    }
    assert!(min_sep >= 1.0 - 0.05, "closest approach {min_sep}");
    assert!(arrived(&crowd, a) && arrived(&crowd, b));
    // They passed each other: each ended on the other's side.
    assert!(crowd.agent(a).unwrap().position()[0] > 27.0);
    assert!(crowd.agent(b).unwrap().position()[0] < 5.0);
}

#[test]
fn a_corridor_made_stale_by_a_replaced_tile_replans() {
    let mut mesh = flat_mesh(3, 1);
    let params = *mesh.params();
    let (mut crowd, id) = one_agent(&mesh, [2.0, 0.0, 8.0], 0.4);
    target(&mut crowd, &mesh, id, [46.0, 0.0, 8.0]);
    for _ in 0..30 {
        crowd.update(&WorldContext::new(&mesh), DT).unwrap();
    }
    let before = crowd.agent(id).unwrap().navigator().steering.repath_count;
    assert_eq!(crowd.agent(id).unwrap().target_state(), TargetState::Valid);
    // The middle tile is rebuilt: its slot's generation advances, the corridor is stale.
    mesh.replace_tile(flat_grid_tile(&params, 1, 0, 0, 0.0, 8).unwrap())
        .unwrap();
    assert!(!crowd
        .agent(id)
        .unwrap()
        .corridor()
        .is_valid(&mesh, &QueryFilter::new(), 64));
    let world = WorldContext::new(&mesh);
    crowd.update(&world, DT).unwrap();
    assert_eq!(
        crowd.agent(id).unwrap().navigator().steering.repath_count,
        before + 1
    );
    run(&mut crowd, &world, 60 * 30);
    assert!(arrived(&crowd, id));
    assert!(crowd
        .agent(id)
        .unwrap()
        .corridor()
        .is_valid(&mesh, &QueryFilter::new(), 64));
}

#[test]
fn a_polygon_whose_flags_changed_is_planned_around() {
    let mut mesh = flat_mesh(1, 1);
    let (mut crowd, id) = one_agent(&mesh, [1.0, 0.0, 7.0], 0.3);
    target(&mut crowd, &mesh, id, [15.0, 0.0, 7.0]);
    crowd.update(&WorldContext::new(&mesh), DT).unwrap();
    let path = crowd.agent(id).unwrap().corridor().path().to_vec();
    assert!(path.len() >= 4);
    // Close a polygon in the middle of the corridor.
    let closed = path[path.len() / 2];
    mesh.set_poly_flags(closed, 0).unwrap();
    let world = WorldContext::new(&mesh);
    crowd.update(&world, DT).unwrap();
    assert!(!crowd.agent(id).unwrap().corridor().path().contains(&closed));
    for _ in 0..60 * 20 {
        crowd.update(&world, DT).unwrap();
        assert!(!crowd.agent(id).unwrap().corridor().path().contains(&closed));
        assert_on_mesh(&crowd, &mesh, 0);
    }
    assert!(arrived(&crowd, id));
}

#[test]
fn an_agent_whose_target_streamed_out_reports_no_path_until_asked_again() {
    let mut mesh = flat_mesh(3, 1);
    let params = *mesh.params();
    let (mut crowd, id) = one_agent(&mesh, [2.0, 0.0, 8.0], 0.4);
    target(&mut crowd, &mesh, id, [44.0, 0.0, 8.0]);
    for _ in 0..10 {
        crowd.update(&WorldContext::new(&mesh), DT).unwrap();
    }
    let removed = mesh.remove_tile_at(2, 0, 0).expect("the target's tile");
    for _ in 0..60 {
        crowd.update(&WorldContext::new(&mesh), DT).unwrap();
        assert_eq!(crowd.agent(id).unwrap().target_state(), TargetState::NoPath);
    }
    // Streamed in again: still no path until the host asks.
    mesh.add_tile(removed).unwrap();
    crowd.update(&WorldContext::new(&mesh), DT).unwrap();
    assert_eq!(crowd.agent(id).unwrap().target_state(), TargetState::NoPath);
    target(&mut crowd, &mesh, id, [44.0, 0.0, 8.0]);
    for _ in 0..60 * 30 {
        crowd.update(&WorldContext::new(&mesh), DT).unwrap();
    }
    assert_eq!(crowd.agent(id).unwrap().target_state(), TargetState::Valid);
    assert!(arrived(&crowd, id));
    let _ = params;
}

/// A crowd of 16 agents with far targets on the generated level.
fn budget_crowd(mesh: &TiledNavMesh, budget: u64, flags: UpdateFlags) -> Crowd {
    let mut crowd = Crowd::new(CrowdSettings {
        path_budget: budget,
        ..CrowdSettings::default()
    })
    .unwrap();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    for k in 0..16 {
        let s = [2.0 + 3.7 * k as f64, 0.0, 3.0];
        let t = [60.0 - 3.1 * k as f64, 0.0, 60.0];
        let (Some(a), Some(b)) = (
            q.find_nearest_poly(mesh, s, [2.0, 1.0, 2.0], &f).unwrap(),
            q.find_nearest_poly(mesh, t, [2.0, 1.0, 2.0], &f).unwrap(),
        ) else {
            continue;
        };
        let mut p = AgentParams::new(0.3);
        p.update_flags = flags;
        let id = crowd.add_agent(mesh, a.point, p).unwrap();
        crowd.request_move_target(id, b.poly, b.point).unwrap();
    }
    crowd
}

#[test]
fn a_budget_of_one_iteration_ends_as_no_limit_once_every_request_is_served() {
    let g = generated_grid_mesh(4, 4, 8, 3);
    let world = WorldContext::new(&g.mesh);
    // Without the corridor optimisations, which run every update and so would run more
    // often in the crowd that waits longer.
    let flags = UpdateFlags(
        UpdateFlags::ALL.0
            & !(UpdateFlags::OPTIMIZE_VISIBILITY.0 | UpdateFlags::OPTIMIZE_TOPOLOGY.0),
    );
    let mut unlimited = budget_crowd(&g.mesh, u64::MAX, flags);
    let mut one = budget_crowd(&g.mesh, 1, flags);
    // dt = 0: nobody moves while the requests are served.
    let first = unlimited.update(&world, 0.0).unwrap();
    assert!(unlimited.paths_idle());
    let mut iterations = 0;
    let mut updates = 0;
    while !one.paths_idle() {
        let s = one.update(&world, 0.0).unwrap();
        assert!(s.path_iterations <= 1);
        iterations += s.path_iterations;
        updates += 1;
        assert!(updates < 1_000_000);
    }
    assert_eq!(iterations, first.path_iterations);
    assert!(updates > 16);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    unlimited.write_state(&mut a);
    one.write_state(&mut b);
    for (x, y) in unlimited.agents().iter().zip(one.agents()) {
        assert_eq!(format!("{x:?}"), format!("{y:?}"));
    }
    assert!(a == b, "the same states once every request is served");
    // And the same from there on.
    for _ in 0..600 {
        unlimited.update(&world, DT).unwrap();
        one.update(&world, DT).unwrap();
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    unlimited.write_state(&mut a);
    one.write_state(&mut b);
    assert!(a == b, "the same states after walking");
}

#[test]
fn the_same_history_gives_the_same_bits() {
    let run = || {
        let g = generated_grid_mesh(4, 4, 8, 5);
        let mut crowd = budget_crowd(&g.mesh, 50, UpdateFlags::ALL);
        let world = WorldContext::new(&g.mesh);
        let mut out = Vec::new();
        for _ in 0..400 {
            crowd.update(&world, DT).unwrap();
            crowd.write_state(&mut out);
        }
        out
    };
    assert_eq!(run(), run());
}

#[test]
fn an_agent_crosses_an_off_mesh_link() {
    let mesh = bridge_and_building();
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    // On the upper floor, bound for the ground west of the building: the jump link.
    let id = crowd
        .add_agent_with(
            &mesh,
            [10.0, 3.5, 24.0],
            AgentParams::new(0.3),
            LocomotionHandler::with_all_modes(),
        )
        .unwrap();
    target(&mut crowd, &mesh, id, [1.0, 0.0, 24.0]);
    let world = WorldContext::new(&mesh);
    let mut crossed = false;
    let mut mode_seen = None;
    for _ in 0..60 * 20 {
        crowd.update(&world, DT).unwrap();
        let a = crowd.agent(id).unwrap();
        if a.state() == AgentState::OffMesh {
            crossed = true;
            mode_seen = Some(a.navigator().motor.handler.mode);
        }
    }
    assert!(crossed, "the agent never took the link");
    assert_eq!(mode_seen, Some(LocomotionKind::Jump));
    assert!(arrived(&crowd, id));
    let p = crowd.agent(id).unwrap().position();
    assert!(p[1].abs() < 0.01 && p[0] < 2.0, "{p:?}");
}

#[test]
fn an_agent_without_ground_falls_and_lands_when_the_tile_returns() {
    let mut mesh = flat_mesh(2, 1);
    let (mut crowd, id) = one_agent(&mesh, [4.0, 0.0, 8.0], 0.4);
    crowd.update(&WorldContext::new(&mesh), DT).unwrap();
    let tile = mesh.remove_tile_at(0, 0, 0).unwrap();
    crowd.update(&WorldContext::new(&mesh), DT).unwrap();
    let a = crowd.agent(id).unwrap();
    assert_eq!(a.state(), AgentState::Falling);
    assert_eq!(a.navigator().motor.handler.mode, LocomotionKind::Fall);
    crowd.update(&WorldContext::new(&mesh), DT).unwrap();
    assert!(crowd.agent(id).unwrap().position()[1] < 0.0);
    mesh.add_tile(tile).unwrap();
    crowd.update(&WorldContext::new(&mesh), DT).unwrap();
    let a = crowd.agent(id).unwrap();
    assert_eq!(a.state(), AgentState::Walking);
    assert_eq!(a.navigator().motor.handler.mode, LocomotionKind::Move);
    assert_eq!(a.position()[1], 0.0);
}

#[test]
fn a_fall_past_its_limit_leaves_the_agent_invalid() {
    let mut mesh = flat_mesh(1, 1);
    let (mut crowd, id) = one_agent(&mesh, [4.0, 0.0, 8.0], 0.4);
    mesh.remove_tile_at(0, 0, 0).unwrap();
    let world = WorldContext::new(&mesh);
    run(&mut crowd, &world, 60 * 10);
    assert_eq!(crowd.agent(id).unwrap().state(), AgentState::Invalid);
}

#[test]
fn water_polygons_switch_the_agent_to_swimming_at_its_speed() {
    let g = generated_grid_mesh(2, 2, 8, 11);
    let mesh = &g.mesh;
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    // A swamp cell serves as water.
    let tile = mesh.tiles().next().unwrap();
    let p = (0..tile.tile().areas().len())
        .find(|&p| {
            tile.tile().areas()[p] == GENERATED_SWAMP_AREA
                && mesh.poly_flags(tile.poly_ref(p as u32).unwrap()).unwrap() != 0
        })
        .unwrap();
    let r = tile.poly_ref(p as u32).unwrap();
    let c = tile.poly_world_vertices(p).fold([0.0; 3], |s, v| {
        [s[0] + v[0] / 4.0, s[1] + v[1] / 4.0, s[2] + v[2] / 4.0]
    });
    let mut handler = LocomotionHandler::with_all_modes();
    handler.water.as_mut().unwrap().water_area = GENERATED_SWAMP_AREA;
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = crowd
        .add_agent_with(mesh, c, AgentParams::new(0.2), handler)
        .unwrap();
    assert_eq!(crowd.agent(id).unwrap().corridor().first_poly(), r);
    crowd.request_move_velocity(id, [0.01, 0.0, 0.0]).unwrap();
    crowd.update(&WorldContext::new(mesh), DT).unwrap();
    let a = crowd.agent(id).unwrap();
    assert_eq!(a.navigator().motor.handler.mode, LocomotionKind::Water);
    assert_eq!(a.navigator().motor.handler.speed_factor(), 0.5);
    let _ = q.find_nearest_poly(mesh, c, [0.1, 0.1, 0.1], &f);
}

#[test]
fn an_attached_agent_moves_with_its_platform() {
    let mesh = flat_mesh(2, 1);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = crowd
        .add_agent_with(
            &mesh,
            [4.0, 0.0, 8.0],
            AgentParams::new(0.4),
            LocomotionHandler::with_all_modes(),
        )
        .unwrap();
    let platforms = [(7u32, [4.0, 0.0, 8.0])];
    let world = WorldContext {
        platforms: &platforms,
        ..WorldContext::new(&mesh)
    };
    crowd.attach_platform(&world, id, 7).unwrap();
    assert!(matches!(
        crowd.attach_platform(&world, id, 8),
        Err(CrowdError::UnknownContext {
            what: "platform",
            id: 8,
            ..
        })
    ));
    for k in 1..=60 {
        let platforms = [(7u32, [4.0 + 0.05 * k as f64, 0.0, 8.0])];
        let world = WorldContext {
            platforms: &platforms,
            ..WorldContext::new(&mesh)
        };
        crowd.update(&world, DT).unwrap();
    }
    let a = crowd.agent(id).unwrap();
    assert!((a.position()[0] - 7.0).abs() < 1e-9, "{:?}", a.position());
    let pl = a.navigator().motor.handler.platform.unwrap();
    assert_eq!(pl.attached, Some(7));
    assert!((pl.tracked_velocity[0] - 3.0).abs() < 1e-6);
    assert_eq!(a.navigator().motor.handler.mode, LocomotionKind::Platform);
    crowd.detach_platform(id).unwrap();
    assert_eq!(
        crowd.agent(id).unwrap().navigator().motor.handler.mode,
        LocomotionKind::Move
    );
}

#[test]
fn ids_are_never_reused_and_failed_calls_change_nothing() {
    let mesh = flat_mesh(1, 1);
    let mut crowd = Crowd::new(CrowdSettings {
        max_agents: 2,
        ..CrowdSettings::default()
    })
    .unwrap();
    let p = AgentParams::new(0.4);
    let a = crowd.add_agent(&mesh, [2.0, 0.0, 2.0], p).unwrap();
    let b = crowd.add_agent(&mesh, [4.0, 0.0, 2.0], p).unwrap();
    assert_eq!(
        crowd.add_agent(&mesh, [6.0, 0.0, 2.0], p),
        Err(CrowdError::Full { max: 2 })
    );
    crowd.remove_agent(a).unwrap();
    let c = crowd.add_agent(&mesh, [6.0, 0.0, 2.0], p).unwrap();
    assert!(c > b && c != a);
    assert_eq!(crowd.remove_agent(a), Err(CrowdError::UnknownAgent(a)));
    let ids: Vec<_> = crowd.agents().iter().map(|x| x.id()).collect();
    assert_eq!(ids, vec![b, c]);
    crowd.remove_agent(c).unwrap();
    let before = format!("{:?}", crowd.agents());
    assert!(matches!(
        crowd.add_agent(&mesh, [100.0, 0.0, 100.0], p),
        Err(CrowdError::OffMesh { .. })
    ));
    let mut bad = p;
    bad.radius = -1.0;
    assert!(matches!(
        crowd.add_agent(&mesh, [2.0, 0.0, 2.0], bad),
        Err(CrowdError::InvalidParameter { what: "radius", .. })
    ));
    assert_eq!(
        crowd.update(&WorldContext::new(&mesh), f64::NAN),
        Err(CrowdError::NotFinite { what: "dt" })
    );
    assert_eq!(format!("{:?}", crowd.agents()), before);
}

#[test]
fn a_velocity_target_moves_the_agent_without_a_path_and_reset_stops_it() {
    let mesh = flat_mesh(2, 1);
    let (mut crowd, id) = one_agent(&mesh, [4.0, 0.0, 8.0], 0.4);
    crowd.request_move_velocity(id, [2.0, 0.0, 0.0]).unwrap();
    let world = WorldContext::new(&mesh);
    run(&mut crowd, &world, 120);
    let a = crowd.agent(id).unwrap();
    assert_eq!(a.target_state(), TargetState::Velocity);
    assert!(a.position()[0] > 6.5, "{:?}", a.position());
    assert!((a.navigator().motion.rotation).abs() < 1e-9);
    crowd.reset_move_target(id).unwrap();
    run(&mut crowd, &world, 120);
    let a = crowd.agent(id).unwrap();
    assert_eq!(a.velocity(), [0.0; 3]);
    assert_eq!(a.target_state(), TargetState::None);
}

#[test]
fn an_agent_walking_into_a_wall_stays_out_of_it() {
    let mesh = flat_mesh(1, 1);
    let (mut crowd, id) = one_agent(&mesh, [8.0, 0.0, 8.0], 0.4);
    crowd.request_move_velocity(id, [3.0, 0.0, 1.0]).unwrap();
    let world = WorldContext::new(&mesh);
    for step in 0..600 {
        crowd.update(&world, DT).unwrap();
        assert_on_mesh(&crowd, &mesh, step);
        let p = crowd.agent(id).unwrap().position();
        assert!(p[0] <= 16.0 && p[2] <= 16.0, "{p:?}");
    }
}

#[test]
fn a_rising_link_is_climbed_and_a_falling_one_dropped_without_a_jump_mode() {
    let mesh = bridge_and_building();
    let world = WorldContext::new(&mesh);
    // The ladder joins the road (24, 0, 12) and the bridge deck (24, 3, 8).
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let up = crowd
        .add_agent_with(
            &mesh,
            [24.0, 0.0, 14.0],
            AgentParams::new(0.3),
            LocomotionHandler::with_all_modes(),
        )
        .unwrap();
    let down = crowd
        .add_agent_with(
            &mesh,
            [28.0, 3.0, 8.0],
            AgentParams::new(0.3),
            LocomotionHandler::new(),
        )
        .unwrap();
    target(&mut crowd, &mesh, up, [27.0, 3.0, 8.0]);
    target(&mut crowd, &mesh, down, [24.0, 0.0, 14.5]);
    let (mut climbed, mut dropped) = (false, false);
    for _ in 0..60 * 20 {
        crowd.update(&world, DT).unwrap();
        let a = crowd.agent(up).unwrap();
        climbed |= a.state() == AgentState::OffMesh
            && a.navigator().motor.handler.mode == LocomotionKind::Climb;
        let b = crowd.agent(down).unwrap();
        dropped |=
            b.state() == AgentState::Falling && b.navigator().motor.handler.fall.fall_end.is_some();
    }
    assert!(climbed, "the ladder was not climbed");
    assert!(dropped, "the drop was not a fall");
    for id in [up, down] {
        assert!(
            arrived(&crowd, id),
            "{id:?} at {:?}",
            crowd.agent(id).unwrap().position()
        );
    }
    assert!((crowd.agent(up).unwrap().position()[1] - 3.0).abs() < 1e-6);
    assert!(crowd.agent(down).unwrap().position()[1].abs() < 1e-6);
}

#[test]
fn the_heading_turns_towards_the_velocity_at_the_turn_rate() {
    let mesh = flat_mesh(2, 1);
    let (mut crowd, id) = one_agent(&mesh, [8.0, 0.0, 8.0], 0.4);
    crowd.turning_mut(id).unwrap().turn_rate = 1.0;
    // Walk towards +Z: the heading must reach π/2 from 0 at one radian per second.
    crowd.request_move_velocity(id, [0.0, 0.0, 2.0]).unwrap();
    let world = WorldContext::new(&mesh);
    let mut last = 0.0;
    for step in 0..120 {
        crowd.update(&world, DT).unwrap();
        let r = crowd.agent(id).unwrap().navigator().motion.rotation;
        assert!(
            r - last <= DT * 1.0 + 1e-12,
            "step {step}: turned {} in one step",
            r - last
        );
        last = r;
    }
    assert!((last - core::f64::consts::FRAC_PI_2).abs() < 1e-9, "{last}");
}

#[test]
fn a_grid_guided_agent_follows_its_grid_path_around_grid_walls() {
    use onepath_crowd::{PathRequest, PathRequestKind, RequestSettings};
    use onepath_gridstate::{Grid, GridSpace};
    // A 16 × 16 grid of unit cells over the open 16 × 16 mesh, with a wall the mesh does
    // not have: x = 8, z 0..13.
    let rows: Vec<String> = (0..16)
        .map(|z| {
            (0..16)
                .map(|x| if x == 8 && z < 13 { '#' } else { '.' })
                .collect()
        })
        .collect();
    let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut grid = Grid::from_ascii(&refs).unwrap();
    grid.set_space(GridSpace::new(0.0, 0.0, 1.0).unwrap());
    let mesh = flat_mesh(1, 1);
    let grids = [(3u32, &grid)];
    let world = WorldContext {
        grids: &grids,
        ..WorldContext::new(&mesh)
    };
    let (mut crowd, id) = one_agent(&mesh, [2.5, 0.0, 2.5], 0.3);
    crowd.set_path_budget(1);
    let request = PathRequest {
        kind: PathRequestKind::GridAStar,
        origin: [2.5, 0.0, 2.5],
        target: [13.5, 0.0, 2.5],
        unit_size: 0.3,
        walkability_override: None,
        max_search_range: 0.0,
        settings: RequestSettings::GridAStar {
            heuristic_weight: 1.0,
        },
        guide_active: false,
        waypoint_index: 0,
        context_id: 3,
    };
    // A target on a grid wall, or a grid the world does not have, is refused.
    let mut on_wall = request;
    on_wall.target = [8.5, 0.0, 2.5];
    assert!(matches!(
        crowd.request_path(&world, id, on_wall),
        Err(CrowdError::OffGrid { grid: 3, .. })
    ));
    let mut no_grid = request;
    no_grid.context_id = 4;
    assert!(matches!(
        crowd.request_path(&world, id, no_grid),
        Err(CrowdError::OffGrid { grid: 4, .. })
    ));
    // A voxel path needs a voxel grid of the world.
    let mut voxel = request;
    voxel.kind = PathRequestKind::Voxel;
    voxel.settings = RequestSettings::Voxel {
        max_climb_height: 0.0,
    };
    assert!(matches!(
        crowd.request_path(&world, id, voxel),
        Err(CrowdError::OffGrid { grid: 3, .. })
    ));
    crowd.request_path(&world, id, request).unwrap();
    let mut max_z: f64 = 0.0;
    for step in 0..60 * 30 {
        crowd.update(&world, DT).unwrap();
        let a = crowd.agent(id).unwrap();
        let p = a.position();
        max_z = max_z.max(p[2]);
        // Never through the grid wall (the cells x = 8 below z = 13).
        assert!(
            !(p[0] > 8.0 && p[0] < 9.0 && p[2] < 12.7),
            "step {step}: {p:?}"
        );
        if arrived(&crowd, id) {
            break;
        }
    }
    let a = crowd.agent(id).unwrap();
    assert!(arrived(&crowd, id), "{:?}", a.position());
    assert!(
        max_z > 12.5,
        "the agent went around the wall's end: {max_z}"
    );
    assert_eq!(a.target_state(), TargetState::Valid);
    assert!(a.navigator().steering.request.unwrap().guide_active);
}

/// A flat tile whose cell columns 3 and 4 (x 6..10, every row) carry flag 0x2 only: an
/// agent whose filter includes 0x1 alone cannot cross them.
fn gated_mesh() -> TiledNavMesh {
    let mut mesh = flat_mesh(1, 1);
    let refs: Vec<_> = {
        let t = mesh.tile_at(0, 0, 0).unwrap();
        (0..8)
            .flat_map(|z| [3, 4].map(|x| t.poly_ref(z * 8 + x).unwrap()))
            .collect()
    };
    for r in refs {
        mesh.set_poly_flags(r, 0x2).unwrap();
    }
    mesh
}

/// The agent's polygon carries flag 0x2 (it stands in the gate).
fn in_gate(crowd: &Crowd, mesh: &TiledNavMesh, id: AgentId) -> bool {
    let a = crowd.agent(id).unwrap();
    a.state() == AgentState::Walking && mesh.poly_flags(a.corridor().first_poly()).unwrap() == 0x2
}

/// Runs the gated walk until the agent arrives (at most 20 s): the replans the updates
/// counted, and the requests they served.
fn walk_gate(crowd: &mut Crowd, mesh: &TiledNavMesh, id: AgentId) -> (u32, u32) {
    let world = WorldContext::new(mesh);
    let (mut replans, mut served) = (0, 0);
    for _ in 0..60 * 20 {
        let s = crowd.update(&world, DT).unwrap();
        replans += s.replans;
        served += s.requests_served;
        let a = crowd.agent(id).unwrap();
        // Always on a polygon the request's filter admits.
        let flags = mesh.poly_flags(a.corridor().first_poly()).unwrap();
        assert!(a.corridor_filter().passes_flags(flags), "flags {flags}");
        if arrived(crowd, id) {
            break;
        }
    }
    (replans, served)
}

#[test]
fn a_walkability_override_is_the_filter_the_corridor_is_walked_and_checked_with() {
    let mesh = gated_mesh();
    let world = WorldContext::new(&mesh);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let mut p = AgentParams::new(0.3);
    p.filter.set_include_flags(0x1);
    let id = crowd.add_agent(&mesh, [1.0, 0.0, 7.0], p).unwrap();
    let request = onepath_crowd::PathRequest::navmesh([15.0, 0.0, 7.0])
        .unwrap()
        .with_walkability_override(0x3);
    crowd.request_path(&world, id, request).unwrap();
    assert_eq!(
        crowd.agent(id).unwrap().corridor_filter().include_flags(),
        0x3
    );
    // Walk into the gate; a snapshot and an agent record are taken there.
    let mut steps = 0;
    while !in_gate(&crowd, &mesh, id) {
        let s = crowd.update(&world, DT).unwrap();
        assert_eq!(s.replans, 0, "step {steps}: replanned before the gate");
        steps += 1;
        assert!(steps < 60 * 10, "never entered the gate");
    }
    let saved = crowd.save_snapshot();
    let record = crowd.save_agent_record(id).unwrap();
    let mut restored = Crowd::new(CrowdSettings::default()).unwrap();
    restored.restore_snapshot(&world, &saved).unwrap();
    // The live agent walks through the gate to the target, one request served (the
    // first, or none when the quick search reached the target), never replanning.
    let (replans, served) = walk_gate(&mut crowd, &mesh, id);
    let a = crowd.agent(id).unwrap();
    assert!(arrived(&crowd, id), "stopped at {:?}", a.position());
    assert_eq!((replans, served), (0, 0));
    assert_eq!(a.navigator().steering.repath_count, 0);
    // The restored crowd does the same, bit for bit.
    let world = WorldContext::new(&mesh);
    let mut steps = 0;
    while !arrived(&restored, id) {
        restored.update(&world, DT).unwrap();
        steps += 1;
        assert!(steps < 60 * 20, "the restored agent never arrived");
    }
    let (mut live, mut back) = (Vec::new(), Vec::new());
    crowd.write_state(&mut live);
    restored.write_state(&mut back);
    assert_eq!(live, back);
    // A record loaded into a fresh shell keeps the agent in the gate (placed with the
    // request's filter) and walks on from there without replanning.
    let mut loaded = Crowd::new(CrowdSettings::default()).unwrap();
    let shell = loaded.add_agent(&mesh, [1.0, 0.0, 7.0], p).unwrap();
    assert_eq!(shell, id);
    loaded.load_agent_record(&world, shell, &record).unwrap();
    assert!(in_gate(&loaded, &mesh, shell));
    let (replans, _) = walk_gate(&mut loaded, &mesh, shell);
    assert!(arrived(&loaded, shell));
    assert_eq!(replans, 0);
    // The agent's own filter, with no override, never crosses the gate.
    let mut own = Crowd::new(CrowdSettings::default()).unwrap();
    let id = own.add_agent(&mesh, [1.0, 0.0, 7.0], p).unwrap();
    let plain = onepath_crowd::PathRequest::navmesh([15.0, 0.0, 7.0]).unwrap();
    own.request_path(&world, id, plain).unwrap();
    for step in 0..60 * 10 {
        own.update(&world, DT).unwrap();
        assert!(!in_gate(&own, &mesh, id), "step {step}: in the gate");
    }
    assert!(!arrived(&own, id));
}

#[test]
fn a_crowd_restored_after_its_override_ends_walks_on_as_the_live_one() {
    let mesh = gated_mesh();
    let world = WorldContext::new(&mesh);
    let mut q = NavMeshQuery::new();
    let mut p = AgentParams::new(0.3);
    p.filter.set_include_flags(0x1);
    let walls = |c: &Crowd| -> Vec<Vec<([f64; 3], [f64; 3])>> {
        c.agents()
            .iter()
            .map(|a| a.boundary_segments().collect())
            .collect()
    };
    let state = |c: &Crowd| {
        let mut b = Vec::new();
        c.write_state(&mut b);
        b
    };
    // Each way the request (and its override) ends: a new target, a velocity, a reset.
    for end in 0..3 {
        let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
        let id = crowd.add_agent(&mesh, [1.0, 0.0, 7.0], p).unwrap();
        let request = onepath_crowd::PathRequest::navmesh([15.0, 0.0, 7.0])
            .unwrap()
            .with_walkability_override(0x3);
        crowd.request_path(&world, id, request).unwrap();
        // Up to the gate on a polygon of flag 0x1, the gate's polygons open in its walls.
        let mut steps = 0;
        while crowd.agent(id).unwrap().position()[0] < 5.0 {
            crowd.update(&world, DT).unwrap();
            steps += 1;
            assert!(steps < 60 * 10, "never reached the gate");
        }
        assert!(!in_gate(&crowd, &mesh, id));
        let back = q
            .find_nearest_poly(&mesh, [1.0, 0.0, 7.0], [1.0, 1.0, 1.0], &p.filter)
            .unwrap()
            .unwrap();
        match end {
            0 => crowd
                .request_move_target(id, back.poly, back.point)
                .unwrap(),
            1 => crowd.request_move_velocity(id, [-1.0, 0.0, 0.0]).unwrap(),
            _ => crowd.reset_move_target(id).unwrap(),
        }
        assert_eq!(crowd.agent(id).unwrap().corridor_filter(), p.filter);
        let saved = crowd.save_snapshot();
        let mut restored = Crowd::new(CrowdSettings::default()).unwrap();
        restored.restore_snapshot(&world, &saved).unwrap();
        assert_eq!(
            walls(&crowd),
            walls(&restored),
            "end {end}: walls at the restore"
        );
        for k in 0..120 {
            let sa = crowd.update(&world, DT).unwrap();
            let sb = restored.update(&world, DT).unwrap();
            assert_eq!(sa, sb, "end {end}, step {k}: stats");
            assert_eq!(
                state(&crowd),
                state(&restored),
                "end {end}, step {k}: state"
            );
            assert_eq!(
                walls(&crowd),
                walls(&restored),
                "end {end}, step {k}: walls"
            );
        }
    }
}

#[test]
fn a_hybrid_request_walks_its_far_phase_through_polygons_only_its_override_admits() {
    use onepath_gridstate::{Grid, GridSpace};
    let mesh = gated_mesh();
    let rows: Vec<String> = (0..16).map(|_| ".".repeat(16)).collect();
    let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut grid = Grid::from_ascii(&refs).unwrap();
    grid.set_space(GridSpace::new(0.0, 0.0, 1.0).unwrap());
    let grids = [(3u32, &grid)];
    let world = WorldContext {
        grids: &grids,
        ..WorldContext::new(&mesh)
    };
    let mut p = AgentParams::new(0.3);
    p.filter.set_include_flags(0x1);
    // With the override the agent crosses the gate on its grid path (far phase) and walks
    // its corridor (near phase, within 3 of the target) to the target; with its own filter
    // alone the gate's polygons stop it.
    for (flags, crosses) in [(Some(0x3), true), (None, false)] {
        let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
        let id = crowd.add_agent(&mesh, [1.5, 0.0, 7.5], p).unwrap();
        let mut request = onepath_crowd::PathRequest::hybrid(3, [14.5, 0.0, 7.5], 3.0).unwrap();
        request.walkability_override = flags;
        crowd.request_path(&world, id, request).unwrap();
        let (mut gate, mut replans) = (false, 0);
        for _ in 0..60 * 20 {
            replans += crowd.update(&world, DT).unwrap().replans;
            gate |= in_gate(&crowd, &mesh, id);
            if arrived(&crowd, id) {
                break;
            }
        }
        assert_eq!((gate, arrived(&crowd, id)), (crosses, crosses), "{flags:?}");
        if crosses {
            assert_eq!(replans, 0);
        }
    }
}
