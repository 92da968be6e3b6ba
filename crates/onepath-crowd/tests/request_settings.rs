//! The kind-specific settings of a path request reach the search they configure, or are
//! refused naming them (`docs/crowd.md`, "Path request settings"): a grid A* request's
//! heuristic weight is the weight the crowd's sliced grid search runs with (kept through a
//! snapshot taken mid-search and through an agent record); a flow field's extra flood range
//! and a voxel path's max climb height have no search knob and only 0 is accepted, by
//! `request_path`, by the record load and by the snapshot restore.

use onepath_crowd::records::Value;
use onepath_crowd::{
    AgentId, AgentParams, Crowd, CrowdError, CrowdSettings, PathRequest, PathRequestKind,
    RequestSettings, TargetState, WorldContext,
};
use onepath_format::FormatError;
use onepath_gridstate::{Grid, GridSpace};
use onepath_gridstate::{
    GridAStar, GridOptions, GridPath, GridPathStatus, SearchStatus, SlicedSearch,
};
use onepath_mesh::TiledNavMesh;

#[path = "common/flat.rs"]
mod flat;
use flat::flat_mesh;

const DT: f64 = 1.0 / 60.0;
const GRID: u32 = 3;
const START: [f64; 3] = [4.5, 0.0, 4.5];
const GOAL: [f64; 3] = [28.5, 0.0, 4.5];

/// A 32 × 32 grid of unit cells with a wall x = 16, z 0..24 between the start and the
/// goal (the way round is the gap at z 24..32): an optimal A* floods the pocket in front of
/// the wall, a weighted one goes for the gap sooner.
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

fn world<'a>(mesh: &'a TiledNavMesh, grids: &'a [(u32, &'a Grid)]) -> WorldContext<'a> {
    WorldContext {
        grids,
        ..WorldContext::new(mesh)
    }
}

/// The search the crowd must run for weight `w`: gridstate's grid A* with the default
/// options but the weight, from the start cell to the goal cell, run whole.
fn direct_search(grid: &Grid, w: f64) -> GridPath {
    let mut s = GridAStar::new(GridOptions {
        heuristic_weight: w,
        ..GridOptions::default()
    })
    .unwrap();
    s.begin(grid, (4, 4), (28, 4)).unwrap();
    assert_eq!(s.step(grid, u64::MAX).unwrap(), SearchStatus::Found);
    let p = s.result().unwrap();
    assert_eq!(p.status, GridPathStatus::Found);
    p
}

/// A crowd with one agent at [`START`] that asked for a grid A* path of weight `w` to
/// [`GOAL`] (not yet served).
fn weighted(mesh: &TiledNavMesh, grid: &Grid, w: f64, budget: u64) -> (Crowd, AgentId) {
    let mut crowd = Crowd::new(CrowdSettings {
        path_budget: budget,
        ..CrowdSettings::default()
    })
    .unwrap();
    let id = crowd.add_agent(mesh, START, AgentParams::new(0.3)).unwrap();
    let request = PathRequest::grid_astar(GRID, GOAL)
        .unwrap()
        .with_heuristic_weight(w)
        .unwrap();
    let grids = [(GRID, grid)];
    crowd
        .request_path(&world(mesh, &grids), id, request)
        .unwrap();
    (crowd, id)
}

/// Updates until the agent's grid request is served; the iterations it took in all.
fn serve(crowd: &mut Crowd, w: &WorldContext<'_>, id: AgentId) -> u64 {
    let mut used = 0;
    for _ in 0..400 {
        used += crowd.update(w, DT).unwrap().path_iterations;
        if crowd.agent(id).unwrap().target_state() == TargetState::Valid {
            return used;
        }
    }
    panic!("the grid request was never served");
}

fn weight_of(crowd: &Crowd, id: AgentId) -> RequestSettings {
    crowd
        .agent(id)
        .unwrap()
        .navigator()
        .steering
        .request
        .unwrap()
        .settings
}

#[test]
fn the_heuristic_weight_is_the_weight_the_grid_search_runs_with() {
    let (mesh, grid) = (flat_mesh(), walled_grid());
    let grids = [(GRID, &grid)];
    let w = world(&mesh, &grids);
    let (optimal, greedy) = (direct_search(&grid, 1.0), direct_search(&grid, 3.0));
    // The property the test rests on: a weight above 1 expands fewer cells here, for a
    // path that costs no less.
    assert!(
        greedy.iterations < optimal.iterations,
        "{greedy:?} vs {optimal:?}"
    );
    assert!(greedy.cost >= optimal.cost);
    for (weight, want) in [
        (1.0, &optimal),
        (3.0, &greedy),
        (0.0, &direct_search(&grid, 0.0)),
    ] {
        let (mut crowd, id) = weighted(&mesh, &grid, weight, u64::MAX);
        let used = serve(&mut crowd, &w, id);
        assert_eq!(used, u64::from(want.iterations), "weight {weight}");
        assert_eq!(
            weight_of(&crowd, id),
            RequestSettings::GridAStar {
                heuristic_weight: weight
            }
        );
    }
}

#[test]
fn agents_of_different_weights_each_search_with_their_own() {
    let (mesh, grid) = (flat_mesh(), walled_grid());
    let grids = [(GRID, &grid)];
    let w = world(&mesh, &grids);
    let mut crowd = Crowd::new(CrowdSettings {
        path_budget: u64::MAX,
        ..CrowdSettings::default()
    })
    .unwrap();
    let mut ids = Vec::new();
    for weight in [3.0, 1.0, 3.0] {
        let id = crowd
            .add_agent(&mesh, START, AgentParams::new(0.3))
            .unwrap();
        let r = PathRequest::grid_astar(GRID, GOAL)
            .unwrap()
            .with_heuristic_weight(weight)
            .unwrap();
        crowd.request_path(&w, id, r).unwrap();
        ids.push(id);
    }
    let used = serve(&mut crowd, &w, ids[2]);
    let (optimal, greedy) = (direct_search(&grid, 1.0), direct_search(&grid, 3.0));
    assert_eq!(
        used,
        u64::from(2 * greedy.iterations + optimal.iterations),
        "3, then 1, then 3 again"
    );
}

#[test]
fn a_weighted_search_in_progress_survives_a_snapshot() {
    let (mesh, grid) = (flat_mesh(), walled_grid());
    let grids = [(GRID, &grid)];
    let w = world(&mesh, &grids);
    let (mut crowd, id) = weighted(&mesh, &grid, 3.0, 5);
    // Three updates of 5 iterations: the search is in progress (it takes more).
    let greedy = direct_search(&grid, 3.0);
    assert!(greedy.iterations > 15);
    for _ in 0..3 {
        crowd.update(&w, DT).unwrap();
    }
    assert_eq!(
        crowd.agent(id).unwrap().target_state(),
        TargetState::WaitingForPath
    );
    let saved = crowd.save_snapshot();
    let mut other = Crowd::new(CrowdSettings::default()).unwrap();
    other.restore_snapshot(&w, &saved).unwrap();
    assert_eq!(other.save_snapshot(), saved);
    assert_eq!(
        weight_of(&other, id),
        RequestSettings::GridAStar {
            heuristic_weight: 3.0
        }
    );
    // The restored crowd goes on with the weighted search where it was (a replay with
    // another weight would expand other cells and give another path).
    let mut used = 15;
    for step in 0..400 {
        let a = crowd.update(&w, DT).unwrap();
        let b = other.update(&w, DT).unwrap();
        assert_eq!(a, b, "step {step}");
        assert_eq!(other.save_snapshot(), crowd.save_snapshot(), "step {step}");
        used += a.path_iterations;
        if crowd.agent(id).unwrap().target_state() == TargetState::Valid {
            break;
        }
    }
    assert_eq!(used, u64::from(greedy.iterations));
}

#[test]
fn the_heuristic_weight_survives_an_agent_record() {
    let (mesh, grid) = (flat_mesh(), walled_grid());
    let grids = [(GRID, &grid)];
    let w = world(&mesh, &grids);
    let (crowd, id) = weighted(&mesh, &grid, 3.0, u64::MAX);
    let record = crowd.save_agent_record(id).unwrap();
    let json = crowd.save_agent_json(id).unwrap();
    assert!(json.contains("heuristic_weight"), "{json}");
    // A shell in another crowd takes the record and searches with its weight.
    let mut shell = Crowd::new(CrowdSettings {
        path_budget: u64::MAX,
        ..CrowdSettings::default()
    })
    .unwrap();
    let sid = shell
        .add_agent(&mesh, START, AgentParams::new(0.3))
        .unwrap();
    assert_eq!(sid, id);
    shell.load_agent_record(&w, sid, &record).unwrap();
    assert_eq!(
        weight_of(&shell, sid),
        RequestSettings::GridAStar {
            heuristic_weight: 3.0
        }
    );
    let used = serve(&mut shell, &w, sid);
    assert_eq!(used, u64::from(direct_search(&grid, 3.0).iterations));
}

fn refused_as(r: Result<(), CrowdError>) -> (&'static str, f64) {
    match r {
        Err(CrowdError::InvalidRequest { what, value, .. }) => (what, value),
        other => panic!("expected InvalidRequest, got {other:?}"),
    }
}

#[test]
fn settings_no_search_can_honour_are_refused_naming_them() {
    let (mesh, grid) = (flat_mesh(), walled_grid());
    let grids = [(GRID, &grid)];
    let w = world(&mesh, &grids);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = crowd
        .add_agent(&mesh, START, AgentParams::new(0.3))
        .unwrap();
    let before = crowd.save_snapshot();
    let mut flood = PathRequest::flow_field(GRID, GOAL).unwrap();
    flood.settings = RequestSettings::FlowField {
        extra_flood_range: 4,
    };
    assert_eq!(
        refused_as(crowd.request_path(&w, id, flood)),
        ("extra_flood_range", 4.0)
    );
    let mut climb = PathRequest::voxel(9, GOAL).unwrap();
    climb.settings = RequestSettings::Voxel {
        max_climb_height: 1.5,
    };
    assert_eq!(
        refused_as(crowd.request_path(&w, id, climb)),
        ("max_climb_height", 1.5)
    );
    // Settings of another kind than the request's (value: their kind's code).
    let mut other = PathRequest::grid_astar(GRID, GOAL).unwrap();
    other.settings = RequestSettings::NavMesh { max_iterations: 8 };
    assert_eq!(
        refused_as(crowd.request_path(&w, id, other)),
        ("settings", 0.0)
    );
    // Values a constructor would have refused.
    let mut bad = PathRequest::grid_astar(GRID, GOAL).unwrap();
    bad.settings = RequestSettings::GridAStar {
        heuristic_weight: -2.0,
    };
    assert_eq!(
        refused_as(crowd.request_path(&w, id, bad)),
        ("heuristic_weight", -2.0)
    );
    let mut far = PathRequest::navmesh(GOAL).unwrap();
    far.max_search_range = f64::NEG_INFINITY;
    assert_eq!(
        refused_as(crowd.request_path(&w, id, far)).0,
        "max_search_range"
    );
    assert_eq!(crowd.save_snapshot(), before, "nothing changed");
    // The zero values are served (the flow field's agent follows its field).
    crowd
        .request_path(&w, id, PathRequest::flow_field(GRID, GOAL).unwrap())
        .unwrap();
    crowd.update(&w, DT).unwrap();
    assert_eq!(crowd.agent(id).unwrap().target_state(), TargetState::Valid);
}

#[test]
fn a_record_with_a_flood_range_is_refused_naming_it() {
    let (mesh, grid) = (flat_mesh(), walled_grid());
    let grids = [(GRID, &grid)];
    let w = world(&mesh, &grids);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = crowd
        .add_agent(&mesh, START, AgentParams::new(0.3))
        .unwrap();
    crowd
        .request_path(&w, id, PathRequest::flow_field(GRID, GOAL).unwrap())
        .unwrap();
    let mut record = crowd.save_agent_record(id).unwrap();
    let kind = record
        .entries()
        .map(|(k, _)| k.to_string())
        .find(|k| k.ends_with("request.kind"))
        .expect("the request's kind is recorded");
    let path = kind.replace("request.kind", "request.extra_flood_range");
    // 0 is the default (not written); written as 0 it loads.
    record.insert(path.clone(), Value::U32(0));
    crowd.load_agent_record(&w, id, &record).unwrap();
    assert_eq!(
        crowd.agent(id).unwrap().target_state(),
        TargetState::Requesting
    );
    record.insert(path.clone(), Value::U32(2));
    match crowd.load_agent_record(&w, id, &record) {
        Err(CrowdError::State(FormatError::State { message, .. })) => {
            assert!(message.contains(&path), "{message}");
        }
        other => panic!("expected the field named, got {other:?}"),
    }
    // Failed closed: the shell stays, its steering session cleared (no target, no request).
    let a = crowd.agent(id).unwrap();
    assert_eq!(a.target_state(), TargetState::None);
    assert_eq!(a.navigator().steering.request, None);
}

/// Where the bytes of agent `id`'s flow-field request's settings lie in `snapshot`: the
/// settings kind byte, then the flood range (u32).
fn flood_settings_at(crowd: &Crowd, id: AgentId, snapshot: &[u8]) -> usize {
    let r = crowd
        .agent(id)
        .unwrap()
        .navigator()
        .steering
        .request
        .unwrap();
    assert_eq!(r.kind, PathRequestKind::FlowField);
    let mut pattern = vec![2u8];
    for v in r.origin.into_iter().chain(r.target).chain([r.unit_size]) {
        pattern.extend_from_slice(&v.to_le_bytes());
    }
    pattern.push(0);
    pattern.extend_from_slice(&r.max_search_range.to_le_bytes());
    pattern.push(2);
    pattern.extend_from_slice(&0u32.to_le_bytes());
    let hits: Vec<usize> = snapshot
        .windows(pattern.len())
        .enumerate()
        .filter(|(_, w)| *w == pattern.as_slice())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(hits.len(), 1, "the request's bytes are found once");
    hits[0] + pattern.len() - 5
}

#[test]
fn a_snapshot_with_a_flood_range_or_settings_of_another_kind_is_refused() {
    let (mesh, grid) = (flat_mesh(), walled_grid());
    let grids = [(GRID, &grid)];
    let w = world(&mesh, &grids);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = crowd
        .add_agent(&mesh, START, AgentParams::new(0.3))
        .unwrap();
    crowd
        .request_path(&w, id, PathRequest::flow_field(GRID, GOAL).unwrap())
        .unwrap();
    let saved = crowd.save_snapshot();
    let at = flood_settings_at(&crowd, id, &saved);
    let mut other = Crowd::new(CrowdSettings::default()).unwrap();
    other.restore_snapshot(&w, &saved).unwrap();
    let refused = |bytes: &[u8]| {
        let mut c = Crowd::new(CrowdSettings::default()).unwrap();
        match c.restore_snapshot(&w, bytes) {
            Err(CrowdError::State(FormatError::State { message, .. })) => message,
            other => panic!("expected a state error, got {other:?}"),
        }
    };
    let mut flood = saved.clone();
    flood[at + 1..at + 5].copy_from_slice(&3u32.to_le_bytes());
    let m = refused(&flood);
    assert!(m.contains("request extra flood range = 3"), "{m}");
    let mut kind = saved.clone();
    kind[at] = 1;
    let m = refused(&kind);
    assert!(m.contains("request settings kind = 1"), "{m}");
}

/// A crowd with one agent at [`START`] that asked for `request` (not yet served), and the
/// agent's record saved at once.
fn recorded(
    mesh: &TiledNavMesh,
    request: PathRequest,
) -> (Crowd, AgentId, onepath_crowd::records::Record) {
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = crowd.add_agent(mesh, START, AgentParams::new(0.3)).unwrap();
    crowd
        .request_path(&WorldContext::new(mesh), id, request)
        .unwrap();
    let record = crowd.save_agent_record(id).unwrap();
    (crowd, id, record)
}

#[test]
fn a_loaded_navmesh_request_keeps_its_iteration_limit_and_search_range() {
    let mesh = flat_mesh();
    let w = WorldContext::new(&mesh);
    let far = [28.5, 0.0, 28.5];
    // Without limits the load searches at once and the target is valid.
    let (mut crowd, id, record) = recorded(&mesh, PathRequest::navmesh(far).unwrap());
    crowd.load_agent_record(&w, id, &record).unwrap();
    assert_eq!(crowd.agent(id).unwrap().target_state(), TargetState::Valid);
    // A limit of 2 iterations cannot reach the target: the load leaves it to the queue.
    let limited = PathRequest::navmesh(far)
        .unwrap()
        .with_max_iterations(2)
        .unwrap();
    let (mut crowd, id, record) = recorded(&mesh, limited);
    crowd.load_agent_record(&w, id, &record).unwrap();
    assert_eq!(
        crowd.agent(id).unwrap().target_state(),
        TargetState::Requesting
    );
    // A target beyond the search range is not searched: no path at the next update, as
    // for the live request.
    let ranged = PathRequest::navmesh(far)
        .unwrap()
        .with_max_search_range(10.0)
        .unwrap();
    let (mut crowd, id, record) = recorded(&mesh, ranged);
    let mut live = Crowd::new(CrowdSettings::default()).unwrap();
    let lid = live.add_agent(&mesh, START, AgentParams::new(0.3)).unwrap();
    live.request_path(&w, lid, ranged).unwrap();
    live.update(&w, DT).unwrap();
    assert_eq!(live.agent(lid).unwrap().target_state(), TargetState::NoPath);
    crowd.load_agent_record(&w, id, &record).unwrap();
    assert_eq!(
        crowd.agent(id).unwrap().target_state(),
        TargetState::Requesting
    );
    crowd.update(&w, DT).unwrap();
    assert_eq!(crowd.agent(id).unwrap().target_state(), TargetState::NoPath);
}

#[test]
fn a_guide_request_beyond_its_search_range_has_no_path() {
    use onepath_crowd::LocomotionHandler;
    let (mesh, grid, vox) = (flat_mesh(), walled_grid(), flat::voxels());
    let grids = [(GRID, &grid)];
    let voxels = [(9u32, &vox)];
    let w = WorldContext {
        grids: &grids,
        voxels: &voxels,
        ..WorldContext::new(&mesh)
    };
    let (from, to) = ([4.5, 0.0, 16.5], [28.5, 0.0, 16.5]);
    let kinds = [
        PathRequest::grid_astar(GRID, to).unwrap(),
        PathRequest::flow_field(GRID, to).unwrap(),
        PathRequest::grid_replan(GRID, to, onepath_gridstate::ReplanAlgorithm::DStarLite).unwrap(),
        PathRequest::hybrid(GRID, to, 3.0).unwrap(),
        PathRequest::voxel(9, to).unwrap(),
    ];
    for request in kinds {
        let mut states = Vec::new();
        for range in [20.0, 30.0] {
            let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
            let id = crowd
                .add_agent_with(
                    &mesh,
                    from,
                    AgentParams::new(0.3),
                    LocomotionHandler::with_all_modes(),
                )
                .unwrap();
            let r = request.with_max_search_range(range).unwrap();
            crowd.request_path(&w, id, r).unwrap();
            for _ in 0..3 {
                crowd.update(&w, DT).unwrap();
            }
            states.push(crowd.agent(id).unwrap().target_state());
        }
        assert_eq!(states[0], TargetState::NoPath, "{:?} at 20", request.kind);
        assert_eq!(states[1], TargetState::Valid, "{:?} at 30", request.kind);
    }
}

#[test]
fn a_coordinate_that_is_not_finite_is_named() {
    use onepath_format::PolyRef;
    let mesh = flat_mesh();
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = crowd
        .add_agent(&mesh, START, AgentParams::new(0.3))
        .unwrap();
    let named = |r: Result<(), CrowdError>| match r {
        Err(CrowdError::NotFinite { what }) => what,
        other => panic!("expected NotFinite, got {other:?}"),
    };
    assert_eq!(
        named(crowd.request_move_target(id, PolyRef::NULL, [1.0, f64::NAN, 1.0])),
        "target.y"
    );
    assert_eq!(
        named(crowd.request_move_velocity(id, [0.0, 0.0, f64::INFINITY])),
        "velocity.z"
    );
    assert_eq!(
        named(
            crowd
                .add_agent(&mesh, [f64::NAN, 0.0, 0.0], AgentParams::new(0.3))
                .map(drop)
        ),
        "pos.x"
    );
}
