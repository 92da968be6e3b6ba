//! The guides beyond the corridor (`docs/crowd.md`, "Guides"): flow fields shared by a
//! movement group, voxel paths flown by the Fly mode, hybrid guides, grid-edit replans;
//! their snapshots and records.

use onepath_crowd::{
    AgentId, AgentParams, AgentState, Crowd, CrowdError, CrowdSettings, LocomotionHandler,
    LocomotionKind, PathRequest, PathRequestKind, RequestSettings, TargetState, WorldContext,
};
use onepath_gridstate::{Grid, GridSpace, VoxelGrid, VoxelSpace, WALL};
use onepath_mesh::TiledNavMesh;
use proptest::prelude::*;

#[path = "common/flat.rs"]
mod flat;
use flat::{flat_mesh, voxels};

const DT: f64 = 1.0 / 60.0;
const GRID: u32 = 3;
const VOXELS: u32 = 9;
const GROUP: u32 = 5;

/// A 32 × 32 grid of unit cells over the mesh with a wall the mesh does not have: x = 16,
/// z 0..24 (a gap at z 24..32).
fn walled_grid() -> Grid {
    let rows: Vec<String> = (0..32)
        .map(|z| {
            (0..32)
                .map(|x| if x == 16 && z < 24 { '#' } else { '.' })
                .collect()
        })
        .collect();
    let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut grid = Grid::from_ascii(&refs).unwrap();
    grid.set_space(GridSpace::new(0.0, 0.0, 1.0).unwrap());
    grid
}

fn world<'a>(
    mesh: &'a TiledNavMesh,
    grids: &'a [(u32, &'a Grid)],
    voxels: &'a [(u32, &'a VoxelGrid)],
) -> WorldContext<'a> {
    WorldContext {
        grids,
        voxels,
        ..WorldContext::new(mesh)
    }
}

fn request(kind: PathRequestKind, target: [f64; 3], context_id: u32) -> PathRequest {
    PathRequest {
        kind,
        origin: [0.0; 3],
        target,
        unit_size: 0.3,
        walkability_override: None,
        max_search_range: 0.0,
        settings: match kind {
            PathRequestKind::FlowField => RequestSettings::FlowField {
                extra_flood_range: 0,
            },
            PathRequestKind::Voxel => RequestSettings::Voxel {
                max_climb_height: 0.0,
            },
            PathRequestKind::Hybrid => RequestSettings::Hybrid {
                switch_distance: 6.0,
            },
            PathRequestKind::GridReplan => RequestSettings::GridReplan {
                algorithm: onepath_gridstate::ReplanAlgorithm::DStarLite,
            },
            _ => RequestSettings::GridAStar {
                heuristic_weight: 1.0,
            },
        },
        guide_active: false,
        waypoint_index: 0,
        context_id,
    }
}

fn params() -> AgentParams {
    let mut p = AgentParams::new(0.3);
    p.max_speed = 3.0;
    p
}

/// Adds a group of `n` flow-field agents west of the wall heading for (28.5, 4.5).
fn add_flow_group(crowd: &mut Crowd, w: &WorldContext<'_>, n: u32) -> Vec<AgentId> {
    let mut ids = Vec::new();
    for k in 0..n {
        let p = [
            3.5 + f64::from(k % 3) * 1.5,
            0.0,
            4.5 + f64::from(k / 3) * 1.5,
        ];
        let id = crowd.add_agent(w.mesh, p, params()).unwrap();
        crowd.steering_mut(id).unwrap().movement_group = GROUP;
        crowd
            .request_path(
                w,
                id,
                request(PathRequestKind::FlowField, [28.5, 0.0, 4.5], GRID),
            )
            .unwrap();
        ids.push(id);
    }
    ids
}

fn add_flyer(crowd: &mut Crowd, w: &WorldContext<'_>, target: [f64; 3]) -> AgentId {
    let id = crowd
        .add_agent_with(
            w.mesh,
            [4.5, 0.0, 16.5],
            params(),
            LocomotionHandler::with_all_modes(),
        )
        .unwrap();
    crowd
        .request_path(w, id, request(PathRequestKind::Voxel, target, VOXELS))
        .unwrap();
    id
}

fn add_hybrid(crowd: &mut Crowd, w: &WorldContext<'_>) -> AgentId {
    let id = crowd.add_agent(w.mesh, [4.5, 0.0, 12.5], params()).unwrap();
    crowd
        .request_path(
            w,
            id,
            request(PathRequestKind::Hybrid, [26.5, 0.0, 12.5], GRID),
        )
        .unwrap();
    id
}

fn in_wall(p: [f64; 3]) -> bool {
    p[0] > 16.3 && p[0] < 16.7 && p[2] < 23.7
}

fn voxel_free(v: &VoxelGrid, p: [f64; 3]) -> bool {
    let q = [p[0].floor(), (p[1] + 1.0).floor(), p[2].floor()];
    v.is_walkable(q[0] as i64, q[1] as i64, q[2] as i64)
}

fn state(crowd: &Crowd) -> Vec<u8> {
    let mut out = Vec::new();
    crowd.write_state(&mut out);
    out
}

#[test]
fn a_movement_group_shares_one_flow_field_computed_once_and_every_member_arrives() {
    let mesh = flat_mesh();
    let grid = walled_grid();
    let grids = [(GRID, &grid)];
    let w = world(&mesh, &grids, &[]);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let ids = add_flow_group(&mut crowd, &w, 6);
    // An agent outside the group to the same target has a field of its own.
    let loner = crowd.add_agent(&mesh, [3.5, 0.0, 10.5], params()).unwrap();
    crowd
        .request_path(
            &w,
            loner,
            request(PathRequestKind::FlowField, [28.5, 0.0, 4.5], GRID),
        )
        .unwrap();
    crowd.update(&w, DT).unwrap();
    assert_eq!(crowd.flow_field_computations(), 2);
    assert_eq!(crowd.flow_field_count(), 2);
    for step in 0..60 * 40 {
        crowd.update(&w, DT).unwrap();
        for a in crowd.agents() {
            assert!(!in_wall(a.position()), "step {step}: {:?}", a.position());
        }
    }
    // Computed once for the whole history (the grid never changed).
    assert_eq!(crowd.flow_field_computations(), 2);
    for &id in ids.iter().chain([&loner]) {
        let a = crowd.agent(id).unwrap();
        assert_eq!(a.target_state(), TargetState::Valid);
        let p = a.position();
        let d = ((p[0] - 28.5).powi(2) + (p[2] - 4.5).powi(2)).sqrt();
        assert!(d < 2.5, "agent {} ends {d} from the goal at {p:?}", id.0);
        // It went round the wall's end (z 24 and above).
    }
    assert!(ids
        .iter()
        .any(|&id| crowd.agent(id).unwrap().navigator().steering.at_destination));
}

#[test]
fn a_prewarmed_field_is_used_by_the_group_and_not_computed_again() {
    let mesh = flat_mesh();
    let grid = walled_grid();
    let grids = [(GRID, &grid)];
    let w = world(&mesh, &grids, &[]);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    assert!(crowd
        .prewarm_flow_field(&w, GROUP, GRID, [28.5, 0.0, 4.5])
        .unwrap());
    assert!(!crowd
        .prewarm_flow_field(&w, GROUP, GRID, [28.2, 0.0, 4.9])
        .unwrap());
    assert_eq!(crowd.flow_field_computations(), 1);
    // Kept through updates until a member uses it.
    crowd.update(&w, DT).unwrap();
    assert_eq!(crowd.flow_field_count(), 1);
    add_flow_group(&mut crowd, &w, 3);
    for _ in 0..10 {
        crowd.update(&w, DT).unwrap();
    }
    assert_eq!(crowd.flow_field_computations(), 1);
    // The group pre-warm after a restore rebuilds the group's field before the update.
    let saved = crowd.save_snapshot();
    let mut other = Crowd::new(CrowdSettings::default()).unwrap();
    other.restore_snapshot(&w, &saved).unwrap();
    assert_eq!(other.prewarm_movement_group(&w, GROUP).unwrap(), 1);
    assert_eq!(other.prewarm_movement_group(&w, GROUP).unwrap(), 0);
    other.update(&w, DT).unwrap();
    assert_eq!(other.flow_field_computations(), 1);
    // Group 0, a target off the grid or on a wall is refused.
    assert!(matches!(
        crowd.prewarm_flow_field(&w, 0, GRID, [28.5, 0.0, 4.5]),
        Err(CrowdError::InvalidSetting {
            what: "movement group",
            ..
        })
    ));
    assert!(matches!(
        crowd.prewarm_flow_field(&w, GROUP, GRID, [16.5, 0.0, 2.5]),
        Err(CrowdError::OffGrid { grid: GRID, .. })
    ));
    assert!(matches!(
        crowd.prewarm_flow_field(&w, GROUP, 4, [6.5, 0.0, 2.5]),
        Err(CrowdError::OffGrid { grid: 4, .. })
    ));
}

#[test]
fn a_grid_edit_recomputes_the_shared_field_and_the_group_goes_round_the_new_wall() {
    let mesh = flat_mesh();
    let mut grid = walled_grid();
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let ids = {
        let grids = [(GRID, &grid)];
        let w = world(&mesh, &grids, &[]);
        let ids = add_flow_group(&mut crowd, &w, 3);
        for _ in 0..60 * 3 {
            crowd.update(&w, DT).unwrap();
        }
        ids
    };
    assert_eq!(crowd.flow_field_computations(), 1);
    // Close the gap at z 24..28: the way round is now past z 28.
    for z in 24..28 {
        grid.set_blocked(16, z, true).unwrap();
    }
    let grids = [(GRID, &grid)];
    let w = world(&mesh, &grids, &[]);
    for step in 0..60 * 40 {
        crowd.update(&w, DT).unwrap();
        for a in crowd.agents() {
            let p = a.position();
            assert!(
                !(p[0] > 16.3 && p[0] < 16.7 && p[2] < 27.7),
                "step {step}: {p:?}"
            );
        }
    }
    assert_eq!(crowd.flow_field_computations(), 2);
    for id in ids {
        let p = crowd.agent(id).unwrap().position();
        let d = ((p[0] - 28.5).powi(2) + (p[2] - 4.5).powi(2)).sqrt();
        assert!(d < 2.0, "agent {} ends {d} from the goal", id.0);
    }
}

#[test]
fn a_grid_a_star_agent_replans_when_an_edit_blocks_its_path() {
    let mesh = flat_mesh();
    let mut grid = walled_grid();
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = crowd.add_agent(&mesh, [3.5, 0.0, 20.5], params()).unwrap();
    {
        let grids = [(GRID, &grid)];
        let w = world(&mesh, &grids, &[]);
        crowd
            .request_path(
                &w,
                id,
                request(PathRequestKind::GridAStar, [28.5, 0.0, 20.5], GRID),
            )
            .unwrap();
        for _ in 0..30 {
            crowd.update(&w, DT).unwrap();
        }
    }
    assert_eq!(crowd.agent(id).unwrap().target_state(), TargetState::Valid);
    let before = crowd.agent(id).unwrap().navigator().steering.repath_count;
    // An edit off the path changes nothing; one across it replans.
    grid.set_blocked(2, 2, true).unwrap();
    {
        let grids = [(GRID, &grid)];
        let w = world(&mesh, &grids, &[]);
        let stats = crowd.update(&w, DT).unwrap();
        assert_eq!(stats.replans, 0);
    }
    for z in 24..28 {
        grid.set_blocked(16, z, true).unwrap();
    }
    let grids = [(GRID, &grid)];
    let w = world(&mesh, &grids, &[]);
    let stats = crowd.update(&w, DT).unwrap();
    assert_eq!(stats.replans, 1);
    assert_eq!(
        crowd.agent(id).unwrap().navigator().steering.repath_count,
        before + 1
    );
    for step in 0..60 * 40 {
        crowd.update(&w, DT).unwrap();
        let p = crowd.agent(id).unwrap().position();
        assert!(
            !(p[0] > 16.3 && p[0] < 16.7 && p[2] < 27.7),
            "step {step}: {p:?}"
        );
    }
    let a = crowd.agent(id).unwrap();
    assert!(a.navigator().steering.at_destination, "{:?}", a.position());
}

#[test]
fn a_flyer_takes_off_flies_over_the_wall_never_in_a_solid_voxel_and_lands() {
    let mesh = flat_mesh();
    let vox = voxels();
    let voxels = [(VOXELS, &vox)];
    let w = world(&mesh, &[], &voxels);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = add_flyer(&mut crowd, &w, [28.5, 0.0, 16.5]);
    let mut flew = 0;
    let mut top: f64 = 0.0;
    for step in 0..60 * 30 {
        crowd.update(&w, DT).unwrap();
        let a = crowd.agent(id).unwrap();
        let p = a.position();
        assert!(
            voxel_free(&vox, p),
            "step {step}: in a solid voxel at {p:?}"
        );
        if a.state() == AgentState::Flying {
            flew += 1;
            assert_eq!(a.navigator().motor.handler.mode, LocomotionKind::Fly);
            assert!(a.navigator().motor.handler.fly.unwrap().is_flying);
            let fly = a.navigator().motor.handler.fly.unwrap();
            let v = a.velocity();
            let s = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            assert!(s <= fly.speed + 1e-9, "step {step}: speed {s}");
        }
        top = top.max(p[1]);
        if a.state() == AgentState::Walking && flew > 0 {
            break;
        }
    }
    assert!(flew > 60, "flew {flew} steps");
    assert!(top >= 5.0, "went over the wall: top {top}");
    let a = crowd.agent(id).unwrap();
    assert_eq!(a.state(), AgentState::Walking);
    assert_eq!(a.navigator().motor.handler.mode, LocomotionKind::Move);
    assert!(!a.navigator().motor.handler.fly.unwrap().is_flying);
    let p = a.position();
    assert!(
        (p[0] - 28.5).abs() < 1e-9 && p[1] == 0.0 && (p[2] - 16.5).abs() < 1e-9,
        "{p:?}"
    );
    crowd.update(&w, DT).unwrap();
    assert!(crowd.agent(id).unwrap().navigator().steering.at_destination);
}

#[test]
fn a_flyer_hovers_at_an_aerial_target_and_refusals_change_nothing() {
    let mesh = flat_mesh();
    let vox = voxels();
    let voxels = [(VOXELS, &vox)];
    let w = world(&mesh, &[], &voxels);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    // A walker without the Fly mode, a target in a solid voxel or off the grid: refused.
    let walker = crowd.add_agent(&mesh, [4.5, 0.0, 4.5], params()).unwrap();
    assert!(matches!(
        crowd.request_path(
            &w,
            walker,
            request(PathRequestKind::Voxel, [20.5, 6.5, 4.5], VOXELS)
        ),
        Err(CrowdError::InvalidSetting {
            what: "fly locomotion",
            ..
        })
    ));
    let id = add_flyer(&mut crowd, &w, [20.5, 6.5, 16.5]);
    let before = crowd.save_snapshot();
    for t in [[16.5, 2.5, 16.5], [40.0, 2.5, 16.5]] {
        assert!(matches!(
            crowd.request_path(&w, id, request(PathRequestKind::Voxel, t, VOXELS)),
            Err(CrowdError::OffGrid { grid: VOXELS, .. })
        ));
    }
    assert_eq!(crowd.save_snapshot(), before);
    for _ in 0..60 * 20 {
        crowd.update(&w, DT).unwrap();
    }
    let a = crowd.agent(id).unwrap();
    assert_eq!(a.state(), AgentState::Flying);
    assert!(a.navigator().steering.at_destination);
    assert_eq!(a.position(), [20.5, 6.5, 16.5]);
    assert_eq!(a.velocity(), [0.0; 3]);
}

#[test]
fn a_hybrid_agent_follows_the_grid_far_away_and_the_corridor_within_the_switch_distance() {
    let mesh = flat_mesh();
    let grid = walled_grid();
    let grids = [(GRID, &grid)];
    let w = world(&mesh, &grids, &[]);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = add_hybrid(&mut crowd, &w);
    let target = [26.5, 0.0, 12.5];
    let dist = |p: [f64; 3]| ((p[0] - target[0]).powi(2) + (p[2] - target[2]).powi(2)).sqrt();
    let mut switched_at = None;
    for step in 0..60 * 40 {
        crowd.update(&w, DT).unwrap();
        let a = crowd.agent(id).unwrap();
        let p = a.position();
        assert!(!in_wall(p), "step {step}: {p:?}");
        let near = dist(a.corridor().target()) < 1e-9;
        match switched_at {
            None if near => {
                // The corridor took over within the switch distance (one step of slack).
                assert!(dist(p) <= 6.0 + 3.0 * DT + 1e-9, "switched at {}", dist(p));
                switched_at = Some(step);
            }
            None => assert!(
                dist(p) > 6.0 - 3.0 * DT,
                "step {step}: no switch at {}",
                dist(p)
            ),
            Some(_) => assert!(near, "step {step}: switched back"),
        }
        if a.navigator().steering.at_destination {
            break;
        }
    }
    assert!(switched_at.is_some());
    let a = crowd.agent(id).unwrap();
    assert!(a.navigator().steering.at_destination, "{:?}", a.position());
    assert_eq!(
        a.navigator().steering.request.unwrap().kind,
        PathRequestKind::Hybrid
    );
}

/// Every kind of guide at once: a flow group, a flyer, a hybrid agent, a grid A* agent, a
/// D* Lite replanner agent.
fn mixed(crowd: &mut Crowd, w: &WorldContext<'_>) {
    add_flow_group(crowd, w, 4);
    add_flyer(crowd, w, [28.5, 0.0, 16.5]);
    add_hybrid(crowd, w);
    let id = crowd.add_agent(w.mesh, [3.5, 0.0, 20.5], params()).unwrap();
    crowd
        .request_path(
            w,
            id,
            request(PathRequestKind::GridAStar, [28.5, 0.0, 20.5], GRID),
        )
        .unwrap();
    let id = crowd.add_agent(w.mesh, [3.5, 0.0, 26.5], params()).unwrap();
    crowd
        .request_path(
            w,
            id,
            request(PathRequestKind::GridReplan, [28.5, 0.0, 26.5], GRID),
        )
        .unwrap();
}

#[test]
fn a_replanner_agent_repairs_its_path_on_a_grid_edit_and_arrives() {
    let mesh = flat_mesh();
    let mut grid = walled_grid();
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let mut ids = Vec::new();
    {
        let grids = [(GRID, &grid)];
        let w = world(&mesh, &grids, &[]);
        for (k, algorithm) in [
            onepath_gridstate::ReplanAlgorithm::DStarLite,
            onepath_gridstate::ReplanAlgorithm::LpaStar,
        ]
        .into_iter()
        .enumerate()
        {
            let z = 18.5 + 3.0 * k as f64;
            let id = crowd.add_agent(&mesh, [3.5, 0.0, z], params()).unwrap();
            let mut r = request(PathRequestKind::GridReplan, [28.5, 0.0, z], GRID);
            r.settings = RequestSettings::GridReplan { algorithm };
            crowd.request_path(&w, id, r).unwrap();
            ids.push(id);
        }
        // A target on a wall is refused.
        let on_wall = request(PathRequestKind::GridReplan, [16.5, 0.0, 3.5], GRID);
        assert!(matches!(
            crowd.request_path(&w, ids[0], on_wall),
            Err(CrowdError::OffGrid { grid: GRID, .. })
        ));
        for _ in 0..30 {
            crowd.update(&w, DT).unwrap();
        }
    }
    for &id in &ids {
        assert_eq!(crowd.agent(id).unwrap().target_state(), TargetState::Valid);
    }
    for z in 24..28 {
        grid.set_blocked(16, z, true).unwrap();
    }
    let grids = [(GRID, &grid)];
    let w = world(&mesh, &grids, &[]);
    let stats = crowd.update(&w, DT).unwrap();
    assert_eq!(stats.replans, 2);
    for step in 0..60 * 40 {
        crowd.update(&w, DT).unwrap();
        for &id in &ids {
            let p = crowd.agent(id).unwrap().position();
            assert!(
                !(p[0] > 16.3 && p[0] < 16.7 && p[2] < 27.7),
                "step {step}: {p:?}"
            );
        }
    }
    for &id in &ids {
        let a = crowd.agent(id).unwrap();
        assert!(a.navigator().steering.at_destination, "{:?}", a.position());
        assert_eq!(a.navigator().steering.repath_count, 1);
    }
}

#[test]
fn a_restored_crowd_with_every_guide_steps_on_as_the_crowd_that_never_left() {
    let mesh = flat_mesh();
    let mut grid = walled_grid();
    let vox = voxels();
    let voxels = [(VOXELS, &vox)];
    let mut crowd = Crowd::new(CrowdSettings {
        path_budget: 40,
        ..CrowdSettings::default()
    })
    .unwrap();
    {
        let grids = [(GRID, &grid)];
        let w = world(&mesh, &grids, &voxels);
        mixed(&mut crowd, &w);
    }
    let mut checkpoints = 0;
    let mut copy: Option<Crowd> = None;
    for step in 0..60 * 12 {
        if step == 200 {
            for z in 24..28 {
                grid.set_blocked(16, z, true).unwrap();
            }
        }
        let grids = [(GRID, &grid)];
        let w = world(&mesh, &grids, &voxels);
        if step % 90 == 45 {
            // Save, restore into a fresh crowd, and run both side by side from here.
            let saved = crowd.save_snapshot();
            let mut other = Crowd::new(CrowdSettings::default()).unwrap();
            other.restore_snapshot(&w, &saved).unwrap();
            assert_eq!(other.save_snapshot(), saved, "step {step}");
            copy = Some(other);
            checkpoints += 1;
        }
        crowd.update(&w, DT).unwrap();
        if let Some(c) = copy.as_mut() {
            c.update(&w, DT).unwrap();
            assert_eq!(state(c), state(&crowd), "step {step}");
            assert_eq!(c.save_snapshot(), crowd.save_snapshot(), "step {step}");
        }
    }
    assert!(checkpoints >= 7);
    // The flyer flew and landed, the hybrid switched, the group arrived.
    assert!(crowd
        .agents()
        .iter()
        .all(|a| a.state() == AgentState::Walking));
}

#[test]
fn records_of_guided_agents_reacquire_their_guides_and_reach_the_targets() {
    let mesh = flat_mesh();
    let grid = walled_grid();
    let vox = voxels();
    let grids = [(GRID, &grid)];
    let voxels = [(VOXELS, &vox)];
    let w = world(&mesh, &grids, &voxels);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    mixed(&mut crowd, &w);
    for _ in 0..60 * 2 {
        crowd.update(&w, DT).unwrap();
    }
    // Shells at the same places, loaded from the records.
    let mut shells = Crowd::new(CrowdSettings::default()).unwrap();
    for a in crowd.agents() {
        let id = shells
            .add_agent_with(
                &mesh,
                [4.5, 0.0, 16.5],
                params(),
                LocomotionHandler::with_all_modes(),
            )
            .unwrap();
        assert_eq!(id, a.id());
        let rec = crowd.save_agent_record(a.id()).unwrap();
        shells.load_agent_record(&w, id, &rec).unwrap();
        let json = crowd.save_agent_json(a.id()).unwrap();
        let mut again = Crowd::new(CrowdSettings::default()).unwrap();
        let j = again
            .add_agent_with(
                &mesh,
                [4.5, 0.0, 16.5],
                params(),
                LocomotionHandler::with_all_modes(),
            )
            .unwrap();
        again.load_agent_json(&w, j, &json).unwrap();
        assert_eq!(
            again.save_agent_record(j).unwrap(),
            shells.save_agent_record(id).unwrap()
        );
    }
    let flyer = crowd
        .agents()
        .iter()
        .find(|a| a.state() == AgentState::Flying)
        .map(|a| a.id())
        .expect("the flyer is in the air");
    assert_eq!(shells.agent(flyer).unwrap().state(), AgentState::Flying);
    for step in 0..60 * 40 {
        shells.update(&w, DT).unwrap();
        for a in shells.agents() {
            if a.state() == AgentState::Flying {
                assert!(voxel_free(&vox, a.position()), "step {step}");
            } else {
                assert!(!in_wall(a.position()), "step {step}");
            }
        }
    }
    for a in shells.agents() {
        assert_eq!(a.state(), AgentState::Walking, "agent {}", a.id().0);
        assert_eq!(a.target_state(), TargetState::Valid, "agent {}", a.id().0);
    }
    // A record naming a voxel grid the world lacks fails closed: the agent is idle.
    let rec = crowd.save_agent_record(flyer).unwrap();
    let bare = world(&mesh, &grids, &[]);
    assert_eq!(
        shells.load_agent_record(&bare, flyer, &rec),
        Err(CrowdError::UnknownContext {
            agent: flyer,
            what: "voxel grid",
            id: VOXELS
        })
    );
    assert_eq!(
        shells.agent(flyer).unwrap().target_state(),
        TargetState::None
    );
}

#[test]
fn a_snapshot_naming_a_missing_voxel_grid_is_refused_and_changes_nothing() {
    let mesh = flat_mesh();
    let grid = walled_grid();
    let vox = voxels();
    let grids = [(GRID, &grid)];
    let voxels = [(VOXELS, &vox)];
    let w = world(&mesh, &grids, &voxels);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    mixed(&mut crowd, &w);
    for _ in 0..30 {
        crowd.update(&w, DT).unwrap();
    }
    let saved = crowd.save_snapshot();
    let mut other = Crowd::new(CrowdSettings::default()).unwrap();
    let before = other.save_snapshot();
    let e = other
        .restore_snapshot(&world(&mesh, &grids, &[]), &saved)
        .unwrap_err();
    assert!(
        matches!(
            e,
            CrowdError::UnknownContext {
                what: "voxel grid",
                id: VOXELS,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(other.save_snapshot(), before);
    // Without any guide the snapshot has no extension: the bytes of ONCS 1 as before.
    let mut plain = Crowd::new(CrowdSettings::default()).unwrap();
    plain.add_agent(&mesh, [4.5, 0.0, 4.5], params()).unwrap();
    let bytes = plain.save_snapshot();
    let mut back = Crowd::new(CrowdSettings::default()).unwrap();
    back.restore_snapshot(&w, &bytes).unwrap();
    assert_eq!(back.save_snapshot(), bytes);
}

fn guides_seed() -> (TiledNavMesh, Grid, VoxelGrid, Vec<u8>) {
    let mesh = flat_mesh();
    let grid = walled_grid();
    let vox = voxels();
    let bytes = {
        let grids = [(GRID, &grid)];
        let voxels = [(VOXELS, &vox)];
        let w = world(&mesh, &grids, &voxels);
        let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
        mixed(&mut crowd, &w);
        for _ in 0..40 {
            crowd.update(&w, DT).unwrap();
        }
        crowd.save_snapshot()
    };
    (mesh, grid, vox, bytes)
}

fn mutation_cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(mutation_cases()))]

    /// Mutations of a snapshot with every guide (the guides extension at its end): typed
    /// errors and an untouched crowd, or an accepted state that keeps running.
    #[test]
    fn mutated_guide_snapshots_never_panic_and_a_failed_restore_changes_nothing(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..4),
    ) {
        thread_local! {
            static SEED: (TiledNavMesh, Grid, VoxelGrid, Vec<u8>) = guides_seed();
        }
        SEED.with(|(mesh, grid, vox, good)| {
            let mut bytes = good.clone();
            for (at, v, how) in &edits {
                // Bias towards the extension at the end: half the edits fall in its bytes.
                let len = bytes.len();
                let i = if at.index(2) == 0 { at.index(len) } else { len - 1 - at.index(len.min(400)) };
                match how {
                    0 => bytes[i] = *v,
                    1 => bytes[i] ^= 1 << (v % 8),
                    _ => bytes.truncate(i),
                }
                if bytes.is_empty() {
                    break;
                }
            }
            let grids = [(GRID, grid)];
            let voxels = [(VOXELS, vox)];
            let w = world(mesh, &grids, &voxels);
            let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
            crowd.restore_snapshot(&w, good).unwrap();
            let before = crowd.save_snapshot();
            match crowd.restore_snapshot(&w, &bytes) {
                Err(_) => prop_assert_eq!(crowd.save_snapshot(), before),
                Ok(_) => {
                    for _ in 0..3 {
                        crowd.update(&w, DT).unwrap();
                    }
                }
            }
            Ok(())
        })?;
    }
}

/// The fuzz target's guides seed (`fuzz/seeds/crowd_state_reader/oncs_guides`: selector 0,
/// then an ONCS snapshot with the guides extension, in the target's world: the
/// bridge-and-building fixture, grid 3 of 48 × 32 open unit cells, voxel grid 9 of
/// 48 × 8 × 32 unit voxels from (0, −1, 0) with the layer under the ground solid) must still
/// load; `ONEPATH_WRITE_FUZZ_SEEDS=1` writes it anew.
#[test]
fn the_fuzz_guides_seed_still_loads() {
    use onepath_mesh::fixtures::bridge_and_building;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/seeds/crowd_state_reader/oncs_guides");
    let mesh = bridge_and_building();
    let mut g = Grid::new(48, 32).unwrap();
    g.set_space(GridSpace::new(0.0, 0.0, 1.0).unwrap());
    let mut v = VoxelGrid::new(48, 8, 32, 0).unwrap();
    v.set_space(VoxelSpace::new([0.0, -1.0, 0.0], 1.0).unwrap());
    for z in 0..32 {
        for x in 0..48 {
            v.set_area(x, 0, z, WALL).unwrap();
        }
    }
    let grids = [(GRID, &g)];
    let voxels = [(VOXELS, &v)];
    let w = world(&mesh, &grids, &voxels);
    if std::env::var_os("ONEPATH_WRITE_FUZZ_SEEDS").is_some() {
        let mut c = Crowd::new(CrowdSettings::default()).unwrap();
        let mut all = |p| {
            c.add_agent_with(&mesh, p, params(), LocomotionHandler::with_all_modes())
                .unwrap()
        };
        let (a, b, f, h) = (
            all([2.0, 0.0, 2.0]),
            all([3.0, 0.0, 3.5]),
            all([24.0, 0.0, 14.0]),
            all([40.0, 0.0, 4.0]),
        );
        for id in [a, b] {
            c.steering_mut(id).unwrap().movement_group = GROUP;
            c.request_path(
                &w,
                id,
                request(PathRequestKind::FlowField, [20.5, 0.0, 4.5], GRID),
            )
            .unwrap();
        }
        c.request_path(
            &w,
            f,
            request(PathRequestKind::Voxel, [30.5, 4.5, 14.5], VOXELS),
        )
        .unwrap();
        c.request_path(
            &w,
            h,
            request(PathRequestKind::Hybrid, [30.5, 0.0, 4.5], GRID),
        )
        .unwrap();
        let r = c.add_agent(&mesh, [2.0, 0.0, 30.0], params()).unwrap();
        let rq = request(PathRequestKind::GridReplan, [20.5, 0.0, 30.5], GRID);
        c.request_path(&w, r, rq).unwrap();
        for _ in 0..30 {
            c.update(&w, DT).unwrap();
        }
        let mut bytes = vec![0u8];
        bytes.extend(c.save_snapshot());
        std::fs::write(&path, bytes).unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes[0], 0);
    let mut c = Crowd::new(CrowdSettings::default()).unwrap();
    c.restore_snapshot(&w, &bytes[1..]).unwrap();
    assert!(c.agents().iter().any(|a| a.state() == AgentState::Flying));
    assert_eq!(c.save_snapshot(), bytes[1..]);
}

/// The postcard records of every guided agent of [`mixed`] mid-history (flow field, voxel
/// while flying, hybrid, grid A*, replanner).
fn record_seeds() -> (TiledNavMesh, Grid, VoxelGrid, Vec<Vec<u8>>) {
    let mesh = flat_mesh();
    let grid = walled_grid();
    let vox = voxels();
    let records = {
        let grids = [(GRID, &grid)];
        let voxels = [(VOXELS, &vox)];
        let w = world(&mesh, &grids, &voxels);
        let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
        mixed(&mut crowd, &w);
        for _ in 0..90 {
            crowd.update(&w, DT).unwrap();
        }
        assert!(crowd
            .agents()
            .iter()
            .any(|a| a.state() == AgentState::Flying));
        crowd
            .agents()
            .iter()
            .skip(3)
            .map(|a| crowd.save_agent_postcard(a.id()).unwrap())
            .collect()
    };
    (mesh, grid, vox, records)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(mutation_cases()))]

    /// Mutated records of guided agents: a typed error leaving the shell idle where it
    /// stood, or a loaded agent that keeps running.
    #[test]
    fn mutated_guided_agent_records_never_panic_and_a_failed_load_leaves_the_agent_idle(
        which in 0usize..16,
        flips in prop::collection::vec((0usize..4096, 1u8..=255), 1..4),
        cut in prop::option::of(0usize..4096),
    ) {
        thread_local! {
            static SEED: (TiledNavMesh, Grid, VoxelGrid, Vec<Vec<u8>>) = record_seeds();
        }
        SEED.with(|(mesh, grid, vox, records)| {
            let mut bytes = records[which % records.len()].clone();
            for &(i, b) in &flips {
                let n = bytes.len();
                bytes[i % n] ^= b;
            }
            if let Some(k) = cut {
                let n = bytes.len();
                bytes.truncate(k % n);
            }
            let grids = [(GRID, grid)];
            let voxels = [(VOXELS, vox)];
            let w = world(mesh, &grids, &voxels);
            let mut c = Crowd::new(CrowdSettings::default()).unwrap();
            let id = c
                .add_agent_with(mesh, [4.5, 0.0, 16.5], params(), LocomotionHandler::with_all_modes())
                .unwrap();
            let before = c.agent(id).unwrap().position();
            match c.load_agent_postcard(&w, id, &bytes) {
                Ok(()) => {
                    for _ in 0..3 {
                        c.update(&w, DT).unwrap();
                    }
                }
                Err(_) => {
                    let a = c.agent(id).unwrap();
                    prop_assert_eq!(a.position(), before);
                    prop_assert_eq!(a.target_state(), TargetState::None);
                }
            }
            Ok(())
        })?;
    }
}
