//! The path request constructors (defaults of the agent records' "Path request" table,
//! values checked and named) and the world context's order check (every crowd call that
//! takes a context refuses lists out of order before anything moves).

mod common;

use common::{busy_crowd, grid_request, open_grid, platform_at, world, DT, GRID, PLATFORM};
use onepath_crowd::{
    CrowdError, Heightmap, PathRequest, PathRequestKind, RequestSettings, WorldContext,
};
use onepath_gridstate::ReplanAlgorithm;
use onepath_mesh::fixtures::bridge_and_building;

#[test]
fn each_constructor_gives_its_kind_with_the_documented_defaults() {
    let t = [4.0, 1.0, 2.0];
    let cases = [
        (
            PathRequest::navmesh(t).unwrap(),
            PathRequestKind::NavMesh,
            0,
            RequestSettings::NavMesh { max_iterations: 0 },
        ),
        (
            PathRequest::grid_astar(3, t).unwrap(),
            PathRequestKind::GridAStar,
            3,
            RequestSettings::GridAStar {
                heuristic_weight: 1.0,
            },
        ),
        (
            PathRequest::flow_field(4, t).unwrap(),
            PathRequestKind::FlowField,
            4,
            RequestSettings::FlowField {
                extra_flood_range: 0,
            },
        ),
        (
            PathRequest::voxel(5, t).unwrap(),
            PathRequestKind::Voxel,
            5,
            RequestSettings::Voxel {
                max_climb_height: 0.0,
            },
        ),
        (
            PathRequest::hybrid(6, t, 2.5).unwrap(),
            PathRequestKind::Hybrid,
            6,
            RequestSettings::Hybrid {
                switch_distance: 2.5,
            },
        ),
        (
            PathRequest::grid_replan(7, t, ReplanAlgorithm::LpaStar).unwrap(),
            PathRequestKind::GridReplan,
            7,
            RequestSettings::GridReplan {
                algorithm: ReplanAlgorithm::LpaStar,
            },
        ),
    ];
    for (r, kind, context_id, settings) in cases {
        assert_eq!(
            r,
            PathRequest {
                kind,
                origin: [0.0; 3],
                target: t,
                unit_size: 0.6,
                walkability_override: None,
                max_search_range: 0.0,
                settings,
                guide_active: false,
                waypoint_index: 0,
                context_id,
            }
        );
    }
    let r = PathRequest::navmesh(t)
        .unwrap()
        .with_unit_size(0.35)
        .unwrap()
        .with_max_search_range(12.0)
        .unwrap()
        .with_walkability_override(0x5)
        .with_max_iterations(64)
        .unwrap();
    assert_eq!(
        (r.unit_size, r.max_search_range, r.walkability_override),
        (0.35, 12.0, Some(5))
    );
    assert_eq!(r.settings, RequestSettings::NavMesh { max_iterations: 64 });
    let w = PathRequest::grid_astar(1, t)
        .unwrap()
        .with_heuristic_weight(0.0)
        .unwrap();
    assert_eq!(
        w.settings,
        RequestSettings::GridAStar {
            heuristic_weight: 0.0
        }
    );
}

#[test]
fn a_value_out_of_range_is_named() {
    let named = |r: Result<PathRequest, CrowdError>| match r {
        Err(CrowdError::InvalidRequest { what, .. }) => what,
        other => panic!("expected InvalidRequest, got {other:?}"),
    };
    assert_eq!(
        named(PathRequest::navmesh([f64::NAN, 0.0, 0.0])),
        "target.x"
    );
    assert_eq!(
        named(PathRequest::voxel(1, [0.0, f64::INFINITY, 0.0])),
        "target.y"
    );
    assert_eq!(
        named(PathRequest::grid_astar(1, [0.0, 0.0, f64::NEG_INFINITY])),
        "target.z"
    );
    assert_eq!(
        named(PathRequest::hybrid(1, [0.0; 3], -1.0)),
        "switch_distance"
    );
    assert_eq!(
        named(PathRequest::hybrid(1, [0.0; 3], f64::NAN)),
        "switch_distance"
    );
    let ok = PathRequest::flow_field(1, [0.0; 3]).unwrap();
    assert_eq!(named(ok.with_unit_size(-0.1)), "unit_size");
    assert_eq!(
        named(ok.with_max_search_range(f64::NAN)),
        "max_search_range"
    );
    assert_eq!(named(ok.with_max_iterations(3)), "max_iterations");
    assert_eq!(named(ok.with_heuristic_weight(1.0)), "heuristic_weight");
    let grid = PathRequest::grid_astar(1, [0.0; 3]).unwrap();
    assert_eq!(named(grid.with_heuristic_weight(-2.0)), "heuristic_weight");
    let e = PathRequest::hybrid(1, [0.0; 3], -1.0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "path request switch_distance = -1 must be finite and ≥ 0"
    );
}

#[test]
fn a_constructed_request_plans_as_the_hand_built_one() {
    let mesh = bridge_and_building();
    let grid = open_grid();
    let grids = [(GRID, &grid)];
    let platforms = platform_at(0);
    let w = world(&mesh, &platforms, &grids);
    let mut by_hand = busy_crowd(&mesh, &grid);
    let mut built = busy_crowd(&mesh, &grid);
    let walker = by_hand.agents().last().unwrap().id();
    let hand = grid_request();
    let request = PathRequest::grid_astar(GRID, hand.target)
        .unwrap()
        .with_unit_size(hand.unit_size)
        .unwrap();
    built.request_path(&w, walker, request).unwrap();
    by_hand.request_path(&w, walker, hand).unwrap();
    for step in 0..60 {
        let platforms = platform_at(step);
        let w = world(&mesh, &platforms, &grids);
        by_hand.update(&w, DT).unwrap();
        built.update(&w, DT).unwrap();
    }
    assert_eq!(built.save_snapshot(), by_hand.save_snapshot());
}

#[test]
fn attaching_to_a_platform_the_world_lacks_names_it() {
    let mesh = bridge_and_building();
    let grid = open_grid();
    let mut crowd = busy_crowd(&mesh, &grid);
    let before = crowd.save_snapshot();
    let id = crowd.agents()[0].id();
    let platforms = platform_at(0);
    let w = world(&mesh, &platforms, &[]);
    let e = crowd.attach_platform(&w, id, PLATFORM + 1).unwrap_err();
    assert_eq!(
        e,
        CrowdError::UnknownContext {
            agent: id,
            what: "platform",
            id: PLATFORM + 1,
        }
    );
    assert_eq!(
        e.to_string(),
        format!("agent {id:?}: the world context has no platform 8")
    );
    assert_eq!(crowd.save_snapshot(), before);
}

/// Every call that takes `w` refuses it with `expected`, and the crowd is unchanged.
fn refused_everywhere(w: &WorldContext<'_>, expected: &CrowdError) {
    let mesh = bridge_and_building();
    let grid = open_grid();
    let mut crowd = busy_crowd(&mesh, &grid);
    let saved = crowd.save_snapshot();
    let id = crowd.agents()[0].id();
    let record = crowd.save_agent_record(id).unwrap();
    let request = PathRequest::navmesh([4.0, 0.0, 4.0]).unwrap();
    let grid_target = [20.5, 0.0, 20.5];
    let results = [
        crowd.update(w, DT).map(|_| ()),
        crowd.request_path(w, id, request),
        crowd.attach_platform(w, id, PLATFORM),
        crowd.load_agent_record(w, id, &record),
        crowd.restore_snapshot(w, &saved).map(|_| ()),
        crowd
            .prewarm_flow_field(w, 1, GRID, grid_target)
            .map(|_| ()),
        crowd.prewarm_movement_group(w, 1).map(|_| ()),
    ];
    for (call, r) in results.into_iter().enumerate() {
        assert_eq!(r.as_ref().err(), Some(expected), "call {call}");
    }
    assert_eq!(crowd.save_snapshot(), saved);
}

#[test]
fn a_world_context_out_of_order_is_refused_before_anything_moves() {
    let mesh = bridge_and_building();
    let grid = open_grid();
    let other = open_grid();
    let order = |list, previous: &str, next: &str| CrowdError::ContextOrder {
        list,
        previous: previous.to_string(),
        next: next.to_string(),
    };
    let base = WorldContext::new(&mesh);
    // Platforms descending, then a duplicate.
    let platforms = [(PLATFORM, [30.0, 0.0, 28.0]), (2, [1.0, 0.0, 1.0])];
    let e = order("platforms", "7", "2");
    refused_everywhere(
        &WorldContext {
            platforms: &platforms,
            ..base
        },
        &e,
    );
    assert_eq!(
        e.to_string(),
        "world context platforms: 2 follows 7, but the platforms must ascend, each once"
    );
    let twice = [(PLATFORM, [30.0, 0.0, 28.0]), (PLATFORM, [30.0, 0.0, 28.0])];
    refused_everywhere(
        &WorldContext {
            platforms: &twice,
            ..base
        },
        &order("platforms", "7", "7"),
    );
    // Grids, voxel grids and layers likewise.
    let grids = [(GRID, &grid), (GRID, &other)];
    refused_everywhere(
        &WorldContext {
            grids: &grids,
            ..base
        },
        &order("grids", "3", "3"),
    );
    let voxel = onepath_gridstate::VoxelGrid::new(2, 2, 2, 1).unwrap();
    let voxels = [(9, &voxel), (1, &voxel)];
    refused_everywhere(
        &WorldContext {
            voxels: &voxels,
            ..base
        },
        &order("voxels", "9", "1"),
    );
    let layer = Heightmap::new([0.0, 0.0], 1.0, 2, 2, vec![0.0; 4]).unwrap();
    let heightmaps = [("terrain", &layer), ("rock", &layer)];
    refused_everywhere(
        &WorldContext {
            heightmaps: &heightmaps,
            ..base
        },
        &order("heightmaps", "terrain", "rock"),
    );
    // Ascending lists pass the check.
    let ok_grids = [(1, &other), (GRID, &grid)];
    let platforms = platform_at(0);
    let ok = WorldContext {
        grids: &ok_grids,
        ..world(&mesh, &platforms, &[])
    };
    assert_eq!(ok.check_order(), Ok(()));
}
