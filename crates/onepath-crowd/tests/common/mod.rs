//! Helpers shared by the state tests: the bridge-and-building fixture with a platform and
//! a grid, and a busy crowd on it.
#![allow(dead_code)]

use onepath_crowd::{
    AgentId, AgentParams, Crowd, CrowdSettings, LocomotionHandler, PathRequest, PathRequestKind,
    RequestSettings, WorldContext,
};
use onepath_gridstate::{Grid, GridSpace};
use onepath_mesh::query::{NavMeshQuery, QueryFilter};
use onepath_mesh::TiledNavMesh;

pub const DT: f64 = 1.0 / 60.0;
pub const PLATFORM: u32 = 7;
pub const GRID: u32 = 3;

pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub fn ground_point(rng: &mut u64) -> [f64; 3] {
    let u = (splitmix(rng) >> 11) as f64 / (1u64 << 53) as f64;
    let v = (splitmix(rng) >> 11) as f64 / (1u64 << 53) as f64;
    [0.5 + u * 47.0, 0.0, 0.5 + v * 31.0]
}

pub fn target(crowd: &mut Crowd, mesh: &TiledNavMesh, id: AgentId, p: [f64; 3]) {
    let n = NavMeshQuery::new()
        .find_nearest_poly(mesh, p, [3.0, 2.0, 3.0], &QueryFilter::new())
        .unwrap()
        .unwrap_or_else(|| panic!("target {p:?} is off the mesh"));
    crowd.request_move_target(id, n.poly, n.point).unwrap();
}

/// The platform's position at `step` (it glides along +X).
pub fn platform_at(step: u32) -> [(u32, [f64; 3]); 1] {
    [(PLATFORM, [30.0 + 0.01 * f64::from(step), 0.0, 28.0])]
}

/// An open 48 × 32 grid of unit cells over the fixture's ground.
pub fn open_grid() -> Grid {
    let rows: Vec<String> = (0..32).map(|_| ".".repeat(48)).collect();
    let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut grid = Grid::from_ascii(&refs).unwrap();
    grid.set_space(GridSpace::new(0.0, 0.0, 1.0).unwrap());
    grid
}

pub fn world<'a>(
    mesh: &'a TiledNavMesh,
    platforms: &'a [(u32, [f64; 3])],
    grids: &'a [(u32, &'a Grid)],
) -> WorldContext<'a> {
    WorldContext {
        mesh,
        platforms,
        grids,
        voxels: &[],
        heightmaps: &[],
    }
}

/// A busy crowd on the bridge-and-building fixture, under a small path budget (searches
/// run over several updates): ground walkers, agents on the upper floor bound over the
/// jump link, a climber up the ladder, a dropper without a jump mode, one on the platform,
/// a swimmer (water area = the ground's), a flyer, a grid-guided agent and one at a
/// velocity.
pub fn busy_crowd(mesh: &TiledNavMesh, grid: &Grid) -> Crowd {
    let mut crowd = Crowd::new(CrowdSettings {
        path_budget: 24,
        ..CrowdSettings::default()
    })
    .unwrap();
    let mut rng = 0x5EED_0001u64;
    let mut params = AgentParams::new(0.35);
    params.max_speed = 3.0;
    while crowd.agents().len() < 16 {
        let p = ground_point(&mut rng);
        let _ = crowd.add_agent_with(mesh, p, params, LocomotionHandler::with_all_modes());
    }
    for k in 0..3 {
        let p = [9.0 + 1.5 * f64::from(k), 3.5, 22.0 + 1.2 * f64::from(k)];
        let id = crowd
            .add_agent_with(mesh, p, params, LocomotionHandler::with_all_modes())
            .unwrap();
        target(&mut crowd, mesh, id, [1.0, 0.0, 24.0]);
    }
    let up = crowd
        .add_agent_with(
            mesh,
            [24.0, 0.0, 14.0],
            AgentParams::new(0.3),
            LocomotionHandler::with_all_modes(),
        )
        .unwrap();
    target(&mut crowd, mesh, up, [27.0, 3.0, 8.0]);
    let down = crowd
        .add_agent_with(
            mesh,
            [28.0, 3.0, 8.0],
            AgentParams::new(0.3),
            LocomotionHandler::new(),
        )
        .unwrap();
    target(&mut crowd, mesh, down, [24.0, 0.0, 14.5]);
    let rider = crowd
        .add_agent_with(
            mesh,
            [30.0, 0.0, 28.0],
            params,
            LocomotionHandler::with_all_modes(),
        )
        .unwrap();
    let platforms = platform_at(0);
    let grids = [(GRID, grid)];
    crowd
        .attach_platform(&world(mesh, &platforms, &grids), rider, PLATFORM)
        .unwrap();
    // The swimmer: its water is the ground's area.
    let mut q = NavMeshQuery::new();
    let ground = q
        .find_nearest_poly(mesh, [40.0, 0.0, 4.0], [1.0, 2.0, 1.0], &QueryFilter::new())
        .unwrap()
        .unwrap();
    let mut wet = LocomotionHandler::with_all_modes();
    wet.water.as_mut().unwrap().water_area = mesh.poly_area(ground.poly).unwrap();
    let swimmer = crowd
        .add_agent_with(mesh, [40.0, 0.0, 4.0], params, wet)
        .unwrap();
    target(&mut crowd, mesh, swimmer, [44.0, 0.0, 14.0]);
    let mut flying = LocomotionHandler::with_all_modes();
    flying.fly.as_mut().unwrap().is_flying = true;
    let flyer = crowd
        .add_agent_with(mesh, [20.0, 0.0, 30.0], params, flying)
        .unwrap();
    crowd
        .request_move_velocity(flyer, [-1.0, 0.0, 0.0])
        .unwrap();
    let walker = crowd
        .add_agent_with(
            mesh,
            [28.0, 0.0, 18.0],
            params,
            LocomotionHandler::with_all_modes(),
        )
        .unwrap();
    crowd
        .request_path(&world(mesh, &platforms, &grids), walker, grid_request())
        .unwrap();
    let ids: Vec<AgentId> = crowd.agents().iter().take(16).map(|a| a.id()).collect();
    for id in ids {
        let p = ground_point(&mut rng);
        if let Some(n) = q
            .find_nearest_poly(mesh, p, [1.0, 2.0, 1.0], &QueryFilter::new())
            .unwrap()
        {
            crowd.request_move_target(id, n.poly, n.point).unwrap();
        }
    }
    crowd
}

/// The grid walker's request: across the grid to the far corner of the ground.
pub fn grid_request() -> PathRequest {
    PathRequest {
        kind: PathRequestKind::GridAStar,
        origin: [28.0, 0.0, 18.0],
        target: [44.5, 0.0, 1.5],
        unit_size: 0.35,
        walkability_override: None,
        max_search_range: 0.0,
        settings: RequestSettings::GridAStar {
            heuristic_weight: 1.0,
        },
        guide_active: false,
        waypoint_index: 0,
        context_id: GRID,
    }
}
