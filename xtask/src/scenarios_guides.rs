//! The hash-matrix scenario `crowd/guides`: the guides beyond the corridor on a flat
//! 32 × 32 mesh with a grid and a voxel grid that have a wall the mesh lacks.

use onepath_crowd::{
    AgentId, AgentParams, AgentState, Crowd, CrowdSettings, LocomotionHandler, PathRequest,
    PathRequestKind, RequestSettings, WorldContext,
};
use onepath_format::NavMeshParams;
use onepath_gridstate::{Grid, GridSpace, VoxelGrid, VoxelSpace, WALL};
use onepath_mesh::fixtures::flat_grid_tile;
use onepath_mesh::TiledNavMesh;

use crate::hash_matrix::Recorder;

const GRID: u32 = 3;
const VOXELS: u32 = 9;
const GROUP: u32 = 5;

fn s(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn flat_mesh() -> Result<TiledNavMesh, String> {
    let params = NavMeshParams::new([0.0, 0.0, 0.0], 16.0, 0.25, 6);
    let mut mesh = TiledNavMesh::new(params).map_err(s)?;
    for z in 0..2 {
        for x in 0..2 {
            mesh.add_tile(flat_grid_tile(&params, x, z, 0, 0.0, 8).map_err(s)?)
                .map_err(s)?;
        }
    }
    Ok(mesh)
}

/// 32 × 32 unit cells, a wall at x = 16 for z 0..24.
fn grid() -> Result<Grid, String> {
    let rows: Vec<String> = (0..32)
        .map(|z| {
            (0..32)
                .map(|x| if x == 16 && z < 24 { '#' } else { '.' })
                .collect()
        })
        .collect();
    let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut grid = Grid::from_ascii(&refs).map_err(s)?;
    grid.set_space(GridSpace::new(0.0, 0.0, 1.0).map_err(s)?);
    Ok(grid)
}

/// 32 × 8 × 32 unit voxels from (0, −1, 0): solid under the ground and a wall x = 16 up to
/// height 5.
fn voxels() -> Result<VoxelGrid, String> {
    let mut v = VoxelGrid::new(32, 8, 32, 0).map_err(s)?;
    v.set_space(VoxelSpace::new([0.0, -1.0, 0.0], 1.0).map_err(s)?);
    for z in 0..32 {
        for x in 0..32 {
            v.set_area(x, 0, z, WALL).map_err(s)?;
        }
        for y in 1..6 {
            v.set_area(16, y, z, WALL).map_err(s)?;
        }
    }
    Ok(v)
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

/// The history: 8 agents of one movement group sharing a flow field to (28.5, 4.5), a
/// flyer on a voxel path over the voxel wall to (28.5, 0, 16.5) where it lands, a hybrid
/// agent (grid far, corridor within 6 units), a grid A* agent, a D* Lite replanner agent;
/// 1 200 steps at 1/60 s; at step 200 the grid's gap is narrowed (the shared field is
/// recomputed, the grid A* agent replans, the replanner repairs its path); at step 300 the crowd's snapshot (ONCS) is restored into a fresh crowd shell,
/// which carries on (its states checked equal to those of the crowd that never left).
/// Every step records the crowd's state bytes. The history must do what it says: the flyer
/// flies and lands, the field is computed twice (once, then after the edit), a grid agent
/// replans, the hybrid, grid A* and replanner agents arrive.
pub(crate) fn crowd_guides(rec: &mut Recorder) -> Result<(), String> {
    let mesh = flat_mesh()?;
    let mut grid = grid()?;
    let vox = voxels()?;
    let voxel_list = [(VOXELS, &vox)];
    let mut crowd = Crowd::new(CrowdSettings {
        path_budget: 40,
        ..CrowdSettings::default()
    })
    .map_err(s)?;
    let mut params = AgentParams::new(0.3);
    params.max_speed = 3.0;
    let (flyer, hybrid, astar, replanner) = {
        let grids = [(GRID, &grid)];
        let w = WorldContext {
            grids: &grids,
            voxels: &voxel_list,
            ..WorldContext::new(&mesh)
        };
        for k in 0..8u32 {
            let p = [
                2.5 + f64::from(k % 4) * 1.5,
                0.0,
                3.5 + f64::from(k / 4) * 1.5,
            ];
            let id = crowd.add_agent(&mesh, p, params).map_err(s)?;
            crowd.steering_mut(id).map_err(s)?.movement_group = GROUP;
            crowd
                .request_path(
                    &w,
                    id,
                    request(PathRequestKind::FlowField, [28.5, 0.0, 4.5], GRID),
                )
                .map_err(s)?;
        }
        let flyer = crowd
            .add_agent_with(
                &mesh,
                [4.5, 0.0, 16.5],
                params,
                LocomotionHandler::with_all_modes(),
            )
            .map_err(s)?;
        crowd
            .request_path(
                &w,
                flyer,
                request(PathRequestKind::Voxel, [28.5, 0.0, 16.5], VOXELS),
            )
            .map_err(s)?;
        let hybrid = crowd
            .add_agent(&mesh, [4.5, 0.0, 12.5], params)
            .map_err(s)?;
        crowd
            .request_path(
                &w,
                hybrid,
                request(PathRequestKind::Hybrid, [26.5, 0.0, 12.5], GRID),
            )
            .map_err(s)?;
        let astar = crowd
            .add_agent(&mesh, [3.5, 0.0, 20.5], params)
            .map_err(s)?;
        crowd
            .request_path(
                &w,
                astar,
                request(PathRequestKind::GridAStar, [28.5, 0.0, 20.5], GRID),
            )
            .map_err(s)?;
        let replanner = crowd
            .add_agent(&mesh, [3.5, 0.0, 26.5], params)
            .map_err(s)?;
        crowd
            .request_path(
                &w,
                replanner,
                request(PathRequestKind::GridReplan, [28.5, 0.0, 26.5], GRID),
            )
            .map_err(s)?;
        (flyer, hybrid, astar, replanner)
    };
    let dt = 1.0 / 60.0;
    let mut bytes = Vec::new();
    let mut other = Vec::new();
    let mut restored: Option<Crowd> = None;
    let (mut flew, mut replans) = (false, 0);
    let mut arrived = [false; 3];
    for step in 0..1200u32 {
        if step == 200 {
            for z in 24..28 {
                grid.set_blocked(16, z, true).map_err(s)?;
            }
        }
        let grids = [(GRID, &grid)];
        let w = WorldContext {
            grids: &grids,
            voxels: &voxel_list,
            ..WorldContext::new(&mesh)
        };
        if step == 300 {
            let saved = crowd.save_snapshot();
            rec.record("snapshot_300", &saved);
            let mut fresh = Crowd::new(CrowdSettings::default()).map_err(s)?;
            fresh.restore_snapshot(&w, &saved).map_err(s)?;
            restored = Some(fresh);
        }
        let stats = crowd.update(&w, dt).map_err(s)?;
        replans += stats.replans;
        flew |= crowd
            .agent(flyer)
            .is_some_and(|a| a.state() == AgentState::Flying);
        for (k, id) in [hybrid, astar, replanner].into_iter().enumerate() {
            arrived[k] |= crowd
                .agent(id)
                .is_some_and(|a| a.navigator().steering.at_destination);
        }
        bytes.clear();
        crowd.write_state(&mut bytes);
        if let Some(r) = restored.as_mut() {
            r.update(&w, dt).map_err(s)?;
            other.clear();
            r.write_state(&mut other);
            if other != bytes {
                return Err(format!(
                    "step {step}: the restored crowd left the states of the crowd that never left"
                ));
            }
        }
        rec.record(format!("step_{step:04}"), &bytes);
    }
    // The history must do what it says.
    let walking = |id: AgentId| {
        crowd
            .agent(id)
            .is_some_and(|a| a.state() == AgentState::Walking)
    };
    if !flew || !walking(flyer) {
        return Err("the flyer did not fly and land".into());
    }
    if crowd.flow_field_computations() != 2 {
        return Err(format!(
            "the group's field was computed {} times (once, then once after the edit)",
            crowd.flow_field_computations()
        ));
    }
    if replans == 0 {
        return Err("no grid agent replanned after the edit".into());
    }
    for (k, id) in [hybrid, astar, replanner].into_iter().enumerate() {
        if !arrived[k] {
            return Err(format!("agent {} never arrived", id.0));
        }
    }
    Ok(())
}
