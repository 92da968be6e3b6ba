//! Guides beyond the navmesh corridor and the plain grid A* path (`docs/crowd.md`,
//! "Guides"): flow fields shared per target by the agents of a movement group, voxel paths
//! that flyers follow with the Fly mode, hybrid guides (a grid path far away, a navmesh
//! corridor within the switch-over distance), and the replans of grid guides when their
//! grid is edited.
//!
//! The guide state of an agent ([`Guide`]) is authoritative (ONCS writes it in its guides
//! extension); the shared flow fields ([`GuideRuntime`]) are rebuilt from the grids, never
//! state: a field is a function of its grid, its goal cell and the grid options, computed
//! in full whenever its grid's version changes.

mod fly;

use std::collections::BTreeMap;

use onepath_format::PolyRef;
use onepath_gridstate::{
    Grid, GridFlowField, GridOptions, GridPath, GridPathStatus, GridReplanner, ReplanAlgorithm,
    SlicedSearch, VoxelAStar, VoxelGrid, VoxelOptions,
};
use onepath_mesh::query::Vec3;

use crate::agent::{Agent, AgentState, GridGuide, TargetState};
use crate::crowd::{set_valid, Crowd, UpdateStats};
use crate::error::CrowdError;
use crate::geom::dist_2d;
use crate::navigator::{AgentId, PathRequest, PathRequestKind, RequestSettings};
use crate::world::WorldContext;

/// A flow-field guide: the agent steers to the next cells of its group's shared field.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FlowGuide {
    /// The grid (id in [`WorldContext::grids`]).
    pub(crate) grid_id: u32,
    /// The goal cell.
    pub(crate) goal: (u32, u32),
    /// The movement group the field is shared by (0: the agent's own field).
    pub(crate) group: u32,
    /// The cell the waypoints were followed from when last built (`NO_CELL`: never).
    pub(crate) from: (u32, u32),
    /// The grid version the waypoints were built at.
    pub(crate) built: u32,
}

/// A voxel guide: the flyer's path of voxel centres (and landing point).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VoxelGuide {
    /// The voxel grid (id in [`WorldContext::voxels`]).
    pub(crate) voxel_id: u32,
    /// The goal voxel.
    pub(crate) goal: [u32; 3],
    /// The path: voxel centres, then the landing point when the flyer lands.
    pub(crate) waypoints: Vec<Vec3>,
    /// The waypoint the flyer moves to.
    pub(crate) next: usize,
    /// The polygon the flyer lands on at the end (none: it hovers at the end).
    pub(crate) landing: Option<PolyRef>,
}

/// A hybrid guide: far phase on the grid path, near phase on a navmesh corridor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct HybridGuide {
    /// The grid of the far phase.
    pub(crate) grid_id: u32,
    /// Within this X/Z distance of the target the corridor takes over.
    pub(crate) switch_distance: f64,
    /// Whether the corridor took over (never switches back).
    pub(crate) near: bool,
}

/// A replanner guide: the agent's own incremental grid replanner (LPA* or D* Lite).
#[derive(Debug, Clone)]
pub(crate) struct ReplanGuide {
    /// The grid.
    pub(crate) grid_id: u32,
    /// The goal cell.
    pub(crate) goal: (u32, u32),
    /// The algorithm.
    pub(crate) algorithm: ReplanAlgorithm,
    /// The grid version the path was last planned at.
    pub(crate) synced: u32,
    /// The replanner (none until the first plan).
    pub(crate) replanner: Option<Box<GridReplanner>>,
    /// A restored replanner's saved state (OPGS kind 5), installed by the restore.
    pub(crate) saved: Option<Vec<u8>>,
}

/// The state of a guide of the kinds this module serves.
#[derive(Debug, Clone)]
pub(crate) enum Guide {
    /// A flow field.
    Flow(FlowGuide),
    /// A voxel path.
    Voxel(VoxelGuide),
    /// A hybrid guide.
    Hybrid(HybridGuide),
    /// A replanner grid path.
    Replan(ReplanGuide),
}

/// "No cell yet".
pub(crate) const NO_CELL: (u32, u32) = (u32::MAX, u32::MAX);

/// A shared field's key: grid id, goal cell, movement group, and the owner agent for an
/// agent outside any group (`u32::MAX` for a group's field). A `BTreeMap` key: fields are
/// visited in key order.
type FlowKey = (u32, (u32, u32), u32, u32);

/// One shared flow field.
#[derive(Debug, Clone)]
struct SharedField {
    field: GridFlowField,
    /// The grid version it was computed at.
    version: u32,
    /// Built ahead by a pre-warm call and not yet used.
    prewarmed: bool,
}

/// The crowd's shared guide data: rebuilt from the world, never state.
#[derive(Debug, Clone, Default)]
pub(crate) struct GuideRuntime {
    fields: BTreeMap<FlowKey, SharedField>,
    /// Full flow field computations so far.
    computations: u64,
    /// Each grid's (id, version) at the last grid-edit check, ascending by id (the world
    /// context's order), refilled in place every update.
    seen: Vec<(u32, u32)>,
    /// The keys of the fields followed this update (a buffer kept between updates).
    used: Vec<FlowKey>,
}

fn flow_key(g: &FlowGuide, agent: AgentId) -> FlowKey {
    let owner = if g.group == 0 { agent.0 } else { u32::MAX };
    (g.grid_id, g.goal, g.group, owner)
}

/// The cell of `grid` under world point `p` (X/Z), if inside.
pub(crate) fn cell_of(grid: &Grid, p: Vec3) -> Option<(u32, u32)> {
    match grid.space().cell_at(p[0], p[2]) {
        Some((x, y))
            if x >= 0 && y >= 0 && x < i64::from(grid.width()) && y < i64::from(grid.height()) =>
        {
            Some((x as u32, y as u32))
        }
        _ => None,
    }
}

fn voxel_cell(v: &VoxelGrid) -> f64 {
    let c = v.space().cell_size();
    if c > 0.0 {
        c
    } else {
        1.0
    }
}

/// The voxel of `v` containing world point `p`, if inside.
pub(crate) fn voxel_at(v: &VoxelGrid, p: Vec3) -> Option<[u32; 3]> {
    let (o, c, s) = (v.space().origin(), voxel_cell(v), v.size());
    let mut out = [0u32; 3];
    for k in 0..3 {
        let q = ((p[k] - o[k]) / c).floor();
        if !(q >= 0.0 && q < f64::from(s[k])) {
            return None;
        }
        out[k] = q as u32;
    }
    Some(out)
}

/// The centre of voxel `x` of `v`.
pub(crate) fn voxel_center(v: &VoxelGrid, x: [u32; 3]) -> Vec3 {
    let (o, c) = (v.space().origin(), voxel_cell(v));
    [
        o[0] + (f64::from(x[0]) + 0.5) * c,
        o[1] + (f64::from(x[1]) + 0.5) * c,
        o[2] + (f64::from(x[2]) + 0.5) * c,
    ]
}

fn free(v: &VoxelGrid, x: [u32; 3]) -> bool {
    v.is_walkable(i64::from(x[0]), i64::from(x[1]), i64::from(x[2]))
}

/// The next waypoint of a flyer's voxel guide (its request's waypoint index).
pub(crate) fn voxel_next(guide: &Option<Guide>) -> Option<usize> {
    match guide {
        Some(Guide::Voxel(v)) => Some(v.next),
        _ => None,
    }
}

/// Appends a guide's state to [`Agent::write_state`] (nothing without one): a kind byte (1
/// flow, 2 voxel, 3 hybrid), then for a flow field the cell followed from and the grid
/// version, for a voxel path the next waypoint, the waypoint count and whether it lands,
/// for a hybrid guide whether the corridor took over, for a replanner the grid version it
/// planned at.
pub(crate) fn write_guide_state(a: &Agent, out: &mut Vec<u8>) {
    match &a.guide {
        None => {}
        Some(Guide::Flow(f)) => {
            out.push(1);
            out.extend_from_slice(&f.from.0.to_le_bytes());
            out.extend_from_slice(&f.from.1.to_le_bytes());
            out.extend_from_slice(&f.built.to_le_bytes());
        }
        Some(Guide::Voxel(v)) => {
            out.push(2);
            out.extend_from_slice(&(v.next as u32).to_le_bytes());
            out.extend_from_slice(&(v.waypoints.len() as u32).to_le_bytes());
            out.push(u8::from(v.landing.is_some()));
        }
        Some(Guide::Hybrid(h)) => {
            out.push(3);
            out.push(u8::from(h.near));
        }
        Some(Guide::Replan(r)) => {
            out.push(4);
            out.extend_from_slice(&r.synced.to_le_bytes());
        }
    }
}

/// The guide a fresh request of `kind` sets up on agent `a` (the grid or voxel goal
/// already checked), shared by the request and the record load.
pub(crate) fn fresh_guide(a: &Agent, req: &PathRequest, goal: [u32; 3]) -> Option<Guide> {
    match req.kind {
        PathRequestKind::FlowField => Some(Guide::Flow(FlowGuide {
            grid_id: req.context_id,
            goal: (goal[0], goal[1]),
            group: a.nav.steering.movement_group,
            from: NO_CELL,
            built: u32::MAX,
        })),
        PathRequestKind::Voxel => Some(Guide::Voxel(VoxelGuide {
            voxel_id: req.context_id,
            goal,
            waypoints: Vec::new(),
            next: 0,
            landing: None,
        })),
        PathRequestKind::Hybrid => Some(Guide::Hybrid(HybridGuide {
            grid_id: req.context_id,
            switch_distance: match req.settings {
                RequestSettings::Hybrid { switch_distance } => switch_distance,
                _ => 0.0,
            },
            near: false,
        })),
        PathRequestKind::GridReplan => Some(Guide::Replan(ReplanGuide {
            grid_id: req.context_id,
            goal: (goal[0], goal[1]),
            algorithm: match req.settings {
                RequestSettings::GridReplan { algorithm } => algorithm,
                _ => ReplanAlgorithm::DStarLite,
            },
            synced: u32::MAX,
            replanner: None,
            saved: None,
        })),
        _ => None,
    }
}

/// The goal of a request of a guide kind in `world`: the walkable grid cell (flow field,
/// hybrid) or free voxel (voxel) under its target; [`CrowdError::OffGrid`] when there is
/// none or the world lacks the grid.
pub(crate) fn guide_goal(
    world: &WorldContext<'_>,
    req: &PathRequest,
) -> Result<[u32; 3], CrowdError> {
    let t = req.target;
    let off = CrowdError::OffGrid {
        grid: req.context_id,
        x: t[0],
        z: t[2],
    };
    crate::geom::check_finite(["target.x", "target.y", "target.z"], t)?;
    match req.kind {
        PathRequestKind::Voxel => {
            let v = world.voxel(req.context_id).ok_or(off.clone())?;
            voxel_at(v, t).filter(|&x| free(v, x)).ok_or(off)
        }
        _ => {
            let g = world.grid(req.context_id).ok_or(off.clone())?;
            cell_of(g, t)
                .filter(|&(x, y)| g.is_walkable(i64::from(x), i64::from(y)))
                .map(|(x, y)| [x, y, 0])
                .ok_or(off)
        }
    }
}

/// The world must hold what agent `a`'s guide names (a restore's check): the flow field's
/// grid (goal inside it), the voxel grid (goal inside it), the hybrid's grid.
pub(crate) fn check_context(world: &WorldContext<'_>, a: &Agent) -> Result<(), CrowdError> {
    let agent = a.id();
    // The grid `id` with `goal` (named `what`) inside it.
    let grid_goal = |id: u32, goal: (u32, u32), what: &str| {
        let g = world.grid(id).ok_or(CrowdError::UnknownContext {
            agent,
            what: "grid",
            id,
        })?;
        if goal.0 >= g.width() || goal.1 >= g.height() {
            return Err(CrowdError::State(onepath_format::FormatError::State {
                format: "crowd",
                message: format!(
                    "agent {}: {what} goal ({}, {}) lies off grid {id}",
                    agent.0, goal.0, goal.1
                ),
            }));
        }
        Ok(())
    };
    match &a.guide {
        None => Ok(()),
        Some(Guide::Flow(f)) => grid_goal(f.grid_id, f.goal, "flow field"),
        Some(Guide::Replan(r)) => grid_goal(r.grid_id, r.goal, "replanner"),
        Some(Guide::Hybrid(h)) => grid_goal(h.grid_id, (0, 0), "hybrid"),
        Some(Guide::Voxel(v)) => {
            let g = world.voxel(v.voxel_id).ok_or(CrowdError::UnknownContext {
                agent,
                what: "voxel grid",
                id: v.voxel_id,
            })?;
            let s = g.size();
            if (0..3).any(|k| v.goal[k] >= s[k]) {
                return Err(CrowdError::State(onepath_format::FormatError::State {
                    format: "crowd",
                    message: format!(
                        "agent {}: voxel goal {:?} lies off voxel grid {}",
                        agent.0, v.goal, v.voxel_id
                    ),
                }));
            }
            Ok(())
        }
    }
}

/// A restore's install of a replanner guide's saved state (after [`check_context`],
/// before anything changes): the replanner is created on its grid and its state restored
/// (checked); when the grid's version is not the one the path was planned at, the state is
/// only checked and the next replan plans from scratch.
pub(crate) fn install_replanner(world: &WorldContext<'_>, a: &mut Agent) -> Result<(), CrowdError> {
    let agent = a.id();
    let Some(Guide::Replan(r)) = a.guide.as_mut() else {
        return Ok(());
    };
    let Some(bytes) = r.saved.take() else {
        return Ok(());
    };
    let grid = world.grid(r.grid_id).ok_or(CrowdError::UnknownContext {
        agent,
        what: "grid",
        id: r.grid_id,
    })?;
    let bad = |m: String| {
        CrowdError::State(onepath_format::FormatError::State {
            format: "crowd",
            message: format!("agent {}: replanner state: {m}", agent.0),
        })
    };
    let mut rp = GridReplanner::new(grid, r.algorithm, GridOptions::default(), r.goal, r.goal)
        .map_err(|e| bad(e.to_string()))?;
    rp.restore_state(grid, &bytes)
        .map_err(|e| bad(e.to_string()))?;
    if grid.version() == r.synced {
        r.replanner = Some(Box::new(rp));
    } else {
        // The grid changed since the path was planned: the replanner could not read those
        // edits, so the next replan plans from scratch (the checked state is kept for the
        // snapshot's bytes).
        r.saved = Some(bytes);
    }
    Ok(())
}

impl Crowd {
    /// Serves [`Crowd::request_path`] for the flow field, voxel and hybrid kinds
    /// (`docs/crowd.md`, "Guides"). Nothing changes on error.
    pub(crate) fn request_guide(
        &mut self,
        world: &WorldContext<'_>,
        id: AgentId,
        request: PathRequest,
    ) -> Result<(), CrowdError> {
        let i = self
            .agents
            .binary_search_by_key(&id, |a| a.id())
            .map_err(|_| CrowdError::UnknownAgent(id))?;
        let goal = guide_goal(world, &request)?;
        match request.kind {
            PathRequestKind::Hybrid => {
                self.request_grid_path(world, id, request)?;
            }
            PathRequestKind::FlowField | PathRequestKind::GridReplan => {
                let g = world
                    .grid(request.context_id)
                    .ok_or(CrowdError::UnknownContext {
                        agent: id,
                        what: "grid",
                        id: request.context_id,
                    })?;
                let (cx, cz) = g.space().cell_center(goal[0], goal[1]);
                self.request_move_target(id, PolyRef::NULL, [cx, request.target[1], cz])?;
                let a = &mut self.agents[i];
                a.grid = Some(fresh_grid_guide(request.context_id, (goal[0], goal[1])));
            }
            PathRequestKind::Voxel => {
                let a = &self.agents[i];
                if a.nav.motor.handler.fly.is_none() {
                    return Err(CrowdError::InvalidSetting {
                        what: "fly locomotion",
                        value: 0.0,
                        rule: "installed on an agent that follows a voxel path",
                    });
                }
                if !matches!(a.state, AgentState::Walking | AgentState::Flying) {
                    return Err(CrowdError::InvalidSetting {
                        what: "agent state",
                        value: f64::from(a.state as u8),
                        rule: "walking or flying to take a voxel path",
                    });
                }
                let v = world
                    .voxel(request.context_id)
                    .ok_or(CrowdError::UnknownContext {
                        agent: id,
                        what: "voxel grid",
                        id: request.context_id,
                    })?;
                let p = a.nav.motion.position;
                if voxel_at(v, p).filter(|&x| free(v, x)).is_none() {
                    return Err(CrowdError::OffGrid {
                        grid: request.context_id,
                        x: p[0],
                        z: p[2],
                    });
                }
                self.request_move_target(id, PolyRef::NULL, request.target)?;
            }
            k => return Err(CrowdError::UnsupportedRequest(k)),
        }
        let a = &mut self.agents[i];
        let mut req = request;
        req.origin = a.nav.motion.position;
        crate::crowd::set_request(a, Some(req));
        a.guide = fresh_guide(a, &req, goal);
        Ok(())
    }

    /// Builds ahead of time the flow field that agents of movement `group` requesting a
    /// flow field to `target` on grid `grid_id` will share (the field is kept until a
    /// member uses it, then while members use it). Returns whether a field was computed
    /// (false: it was already there). [`CrowdError::InvalidSetting`] for group 0 (an agent
    /// of no group has a field of its own), [`CrowdError::OffGrid`] for a grid the world
    /// lacks or a target off it or on a blocked cell.
    pub fn prewarm_flow_field(
        &mut self,
        world: &WorldContext<'_>,
        group: u32,
        grid_id: u32,
        target: Vec3,
    ) -> Result<bool, CrowdError> {
        world.check_order()?;
        let req = PathRequest {
            kind: PathRequestKind::FlowField,
            origin: target,
            target,
            unit_size: 0.0,
            walkability_override: None,
            max_search_range: 0.0,
            settings: RequestSettings::FlowField {
                extra_flood_range: 0,
            },
            guide_active: false,
            waypoint_index: 0,
            context_id: grid_id,
        };
        if group == 0 {
            return Err(CrowdError::InvalidSetting {
                what: "movement group",
                value: 0.0,
                rule: "a group id other than 0 (an agent of no group has a field of its own)",
            });
        }
        let goal = guide_goal(world, &req)?;
        let key = (grid_id, (goal[0], goal[1]), group, u32::MAX);
        let Some(grid) = world.grid(grid_id) else {
            return Ok(false);
        };
        let built = self.guides.ensure(key, grid)?;
        if let Some(f) = self.guides.fields.get_mut(&key) {
            f.prewarmed |= built;
        }
        Ok(built)
    }

    /// Builds the flow fields of every agent of movement `group` that follows a flow field
    /// (after a restore or a record load, for instance, so that the first update does not
    /// compute them). Returns the number of fields computed.
    pub fn prewarm_movement_group(
        &mut self,
        world: &WorldContext<'_>,
        group: u32,
    ) -> Result<usize, CrowdError> {
        world.check_order()?;
        let mut keys = Vec::new();
        for a in &self.agents {
            if let Some(Guide::Flow(f)) = &a.guide {
                if f.group == group {
                    keys.push(flow_key(f, a.id()));
                }
            }
        }
        keys.sort_unstable();
        keys.dedup();
        let mut built = 0;
        for key in keys {
            let Some(grid) = world.grid(key.0) else {
                continue;
            };
            if self.guides.ensure(key, grid)? {
                built += 1;
                if let Some(f) = self.guides.fields.get_mut(&key) {
                    f.prewarmed = true;
                }
            }
        }
        Ok(built)
    }

    /// How many flow fields the crowd computed so far (in full: at a first use, a
    /// pre-warm, or after their grid changed).
    pub fn flow_field_computations(&self) -> u64 {
        self.guides.computations
    }

    /// How many shared flow fields the crowd holds now.
    pub fn flow_field_count(&self) -> usize {
        self.guides.fields.len()
    }

    /// The guides' step of the update (after the platforms, before the path requests):
    /// grid-edit replans, hybrid switch-overs, flow fields, voxel paths, in that order,
    /// each over the agents in agent order.
    pub(crate) fn update_guides(&mut self, world: &WorldContext<'_>, stats: &mut UpdateStats) {
        self.replan_edited_grids(world, stats);
        self.follow_replanners(world, stats);
        self.switch_hybrids(world);
        self.follow_flow_fields(world);
        self.plan_voxel_paths(world);
    }

    /// A walking agent with a `Valid` grid path (grid A* or a hybrid's far phase) whose
    /// grid changed since the last update replans when a cell of the rest of its path
    /// (from the waypoint before the next one) is no longer walkable.
    fn replan_edited_grids(&mut self, world: &WorldContext<'_>, stats: &mut UpdateStats) {
        let seen = &self.guides.seen;
        let changed = |id: u32, g: &Grid| {
            seen.binary_search_by_key(&id, |&(k, _)| k)
                .map_or(true, |i| seen[i].1 != g.version())
        };
        for a in &mut self.agents {
            if a.state != AgentState::Walking || a.target_state != TargetState::Valid {
                continue;
            }
            if matches!(
                a.guide,
                Some(Guide::Flow(_)) | Some(Guide::Voxel(_)) | Some(Guide::Replan(_))
            ) {
                continue;
            }
            let Some(g) = a.grid.as_mut() else {
                continue;
            };
            let Some(grid) = world.grid(g.grid_id).filter(|&w| changed(g.grid_id, w)) else {
                continue;
            };
            let blocked = g.waypoints[g.next.saturating_sub(1).min(g.waypoints.len())..]
                .iter()
                .any(|&w| {
                    cell_of(grid, w)
                        .map_or(true, |(x, y)| !grid.is_walkable(i64::from(x), i64::from(y)))
                });
            if blocked {
                g.start = None;
                g.resume = None;
                a.serial += 1;
                a.target_state = TargetState::Requesting;
                a.nav.steering.repath_count += 1;
                stats.replans += 1;
            }
        }
        self.guides.seen.clear();
        self.guides
            .seen
            .extend(world.grids.iter().map(|&(id, g)| (id, g.version())));
    }

    /// Replanner guides (any state but invalid, target requested or valid, agent order): an agent
    /// that asked creates its replanner (LPA* or D* Lite, default grid options) from the
    /// cell under it to the goal and plans; one whose grid's version differs from the one
    /// its path was planned at moves the replanner's start to the cell under it and replans
    /// incrementally (the replanner reads the grid's edits; counted in the replans). The
    /// path's cell centres become its waypoints, the first one passed; no cell under it or
    /// no path: `NoPath`. Replans run whole (not under the path budget).
    fn follow_replanners(&mut self, world: &WorldContext<'_>, stats: &mut UpdateStats) {
        for a in &mut self.agents {
            let Some(Guide::Replan(r)) = a.guide.as_mut() else {
                continue;
            };
            if a.state == AgentState::Invalid
                || !matches!(a.target_state, TargetState::Requesting | TargetState::Valid)
            {
                continue;
            }
            let asked = a.target_state == TargetState::Requesting;
            if asked && crate::crowd::beyond_range(a.nav.steering.request) {
                no_path(a);
                continue;
            }
            let Some(grid) = world.grid(r.grid_id) else {
                no_path(a);
                continue;
            };
            if !asked && grid.version() == r.synced {
                continue;
            }
            let pos = a.nav.motion.position;
            let Some(cell) = cell_of(grid, pos) else {
                no_path(a);
                continue;
            };
            let planned = match r.replanner.as_mut().filter(|_| !asked) {
                Some(rp) => rp.set_start(grid, cell).and_then(|_| rp.replan(grid)),
                None => GridReplanner::new(grid, r.algorithm, GridOptions::default(), cell, r.goal)
                    .and_then(|mut rp| {
                        let p = rp.replan(grid);
                        r.replanner = Some(Box::new(rp));
                        r.saved = None;
                        p
                    }),
            };
            r.synced = grid.version();
            let Some(path) = planned
                .ok()
                .filter(|p: &GridPath| p.status == GridPathStatus::Found && !p.nodes.is_empty())
            else {
                no_path(a);
                continue;
            };
            let Some(g) = a.grid.as_mut() else {
                no_path(a);
                continue;
            };
            follow_cells(g, grid, &path.nodes, pos[1]);
            if asked {
                set_valid(a);
            } else {
                a.nav.steering.repath_count += 1;
                stats.replans += 1;
            }
        }
    }

    /// A hybrid agent in its far phase within the switch-over distance (X/Z, to the
    /// request's target) drops its grid path and requests a navmesh corridor to the target
    /// placed on the mesh (none: no path).
    fn switch_hybrids(&mut self, world: &WorldContext<'_>) {
        let ext = self.placement_extents;
        for a in &mut self.agents {
            let Some(Guide::Hybrid(h)) = a.guide.as_mut() else {
                continue;
            };
            let Some(req) = a.nav.steering.request else {
                continue;
            };
            if h.near
                || a.state != AgentState::Walking
                || !matches!(
                    a.target_state,
                    TargetState::Valid | TargetState::Requesting | TargetState::WaitingForPath
                )
                || dist_2d(a.nav.motion.position, req.target) > h.switch_distance
            {
                continue;
            }
            h.near = true;
            a.grid = None;
            a.serial += 1;
            a.replanning = false;
            let filter = crate::crowd::request_filter(&a.params.filter, &req);
            let (first, pos) = (a.corridor.first_poly(), a.corridor.pos());
            a.corridor.reset(first, pos);
            match self
                .query
                .find_nearest_poly(world.mesh, req.target, ext, &filter)
            {
                Ok(Some(n)) => {
                    a.target_ref = n.poly;
                    a.target_pos = n.point;
                    a.target_state = TargetState::Requesting;
                }
                _ => {
                    a.target_state = TargetState::NoPath;
                    a.nav.steering.should_move = false;
                }
            }
        }
    }

    /// Flow fields: the fields of the agents following one (any state but invalid, target
    /// requested or valid) are made current (computed in full when missing or when their
    /// grid's version changed), in key order; then each such agent, in agent order,
    /// rebuilds its waypoints along its field when it asked, stands in another cell than
    /// the one they were built from, or the field was computed at another grid version.
    /// Fields no agent follows are dropped unless pre-warmed and not yet used.
    fn follow_flow_fields(&mut self, world: &WorldContext<'_>) {
        let mut used = std::mem::take(&mut self.guides.used);
        used.clear();
        for a in &self.agents {
            if let Some(Guide::Flow(f)) = &a.guide {
                let refused = a.target_state == TargetState::Requesting
                    && crate::crowd::beyond_range(a.nav.steering.request);
                if a.state != AgentState::Invalid
                    && !refused
                    && matches!(a.target_state, TargetState::Requesting | TargetState::Valid)
                {
                    used.push(flow_key(f, a.id()));
                }
            }
        }
        used.sort_unstable();
        used.dedup();
        for &key in &used {
            if let Some(grid) = world.grid(key.0) {
                // A grid of another size than the field's is left to the agents (no path).
                let _ = self.guides.ensure(key, grid);
            }
        }
        let fields = &mut self.guides.fields;
        for a in &mut self.agents {
            let Some(Guide::Flow(f)) = a.guide.as_mut() else {
                continue;
            };
            if a.state == AgentState::Invalid
                || !matches!(a.target_state, TargetState::Requesting | TargetState::Valid)
            {
                continue;
            }
            let owner = if f.group == 0 {
                a.nav.motion.id.0
            } else {
                u32::MAX
            };
            let key = (f.grid_id, f.goal, f.group, owner);
            let (Some(shared), Some(grid)) = (fields.get_mut(&key), world.grid(f.grid_id)) else {
                no_path(a);
                continue;
            };
            shared.prewarmed = false;
            let pos = a.nav.motion.position;
            let Some(cell) = cell_of(grid, pos) else {
                no_path(a);
                continue;
            };
            let asked = a.target_state == TargetState::Requesting;
            if asked && crate::crowd::beyond_range(a.nav.steering.request) {
                no_path(a);
                continue;
            }
            if !asked && cell == f.from && f.built == shared.version {
                continue;
            }
            let path = shared.field.path_from(cell.0, cell.1);
            let Ok(path) = path.map_err(drop).and_then(|p| {
                if p.status == GridPathStatus::Found && !p.nodes.is_empty() {
                    Ok(p)
                } else {
                    Err(())
                }
            }) else {
                no_path(a);
                continue;
            };
            f.from = cell;
            f.built = shared.version;
            let Some(g) = a.grid.as_mut() else {
                no_path(a);
                continue;
            };
            follow_cells(g, grid, &path.nodes, pos[1]);
            if asked {
                set_valid(a);
            }
        }
        fields.retain(|k, f| f.prewarmed || used.binary_search(k).is_ok());
        self.guides.used = used;
    }

    /// Voxel paths: each agent with a voxel guide that asked (agent order) gets a path by
    /// voxel A* (`onepath-gridstate`'s `VoxelAStar`, 26 neighbours, every voxel of a move's
    /// box free, run whole: a voxel search is not sliced under the path budget) from the
    /// voxel it is in to the goal voxel. Its waypoints are the path's voxel centres, then
    /// the landing point when the target lies on a polygon of the mesh (placement box)
    /// inside the goal voxel. A walking agent takes off (state `Flying`, mode Fly). No free
    /// voxel under the agent, no path, a missing voxel grid, or an agent neither walking nor
    /// flying: no path.
    fn plan_voxel_paths(&mut self, world: &WorldContext<'_>) {
        let ext = self.placement_extents;
        for a in &mut self.agents {
            let Some(Guide::Voxel(v)) = a.guide.as_mut() else {
                continue;
            };
            if a.target_state != TargetState::Requesting {
                continue;
            }
            if crate::crowd::beyond_range(a.nav.steering.request) {
                no_path(a);
                continue;
            }
            let Some(vox) = world.voxel(v.voxel_id) else {
                no_path(a);
                continue;
            };
            let pos = a.nav.motion.position;
            let start = voxel_at(vox, pos).filter(|&x| free(vox, x));
            let (Some(start), true) = (
                start,
                matches!(a.state, AgentState::Walking | AgentState::Flying)
                    && a.nav.motor.handler.fly.is_some(),
            ) else {
                no_path(a);
                continue;
            };
            let options = VoxelOptions::default();
            let found = VoxelAStar::new(options).and_then(|mut s| {
                s.find_path(
                    vox,
                    (start[0], start[1], start[2]),
                    (v.goal[0], v.goal[1], v.goal[2]),
                )
            });
            let Ok(path) = found else {
                no_path(a);
                continue;
            };
            if path.status != GridPathStatus::Found || path.nodes.is_empty() {
                no_path(a);
                continue;
            }
            v.waypoints = path
                .nodes
                .iter()
                .map(|&n| {
                    let (x, y, z) = vox.xyz(n);
                    voxel_center(vox, [x, y, z])
                })
                .collect();
            v.next = 0;
            v.landing = None;
            let target = a.nav.steering.request.map_or(a.target_pos, |r| r.target);
            let filter = a.params.filter;
            if let Ok(Some(n)) = self
                .query
                .find_nearest_poly(world.mesh, target, ext, &filter)
            {
                if voxel_at(vox, n.point) == Some(v.goal) {
                    v.landing = Some(n.poly);
                    v.waypoints.push(n.point);
                }
            }
            let end = v.waypoints[v.waypoints.len() - 1];
            set_valid(a);
            a.nav.steering.destination = end;
            if a.state == AgentState::Walking {
                fly::take_off(a);
            }
        }
    }
}

/// A grid guide on `grid_id` to `goal` with no path yet.
fn fresh_grid_guide(grid_id: u32, goal: (u32, u32)) -> GridGuide {
    GridGuide {
        grid_id,
        goal,
        waypoints: Vec::new(),
        next: 0,
        start: None,
        resume: None,
    }
}

/// The guide's waypoints become the centres of `nodes` (cells of `grid`) at height `y`,
/// the first one passed.
fn follow_cells(g: &mut GridGuide, grid: &Grid, nodes: &[u32], y: f64) {
    g.waypoints = nodes
        .iter()
        .map(|&n| {
            let (x, z) = grid.xy(n);
            let (cx, cz) = grid.space().cell_center(x, z);
            [cx, y, cz]
        })
        .collect();
    g.next = usize::from(g.waypoints.len() > 1);
}

fn no_path(a: &mut Agent) {
    a.target_state = TargetState::NoPath;
    a.nav.steering.should_move = false;
}

impl Crowd {
    /// A record load's guide of a flow field, voxel or hybrid request (`docs/agent-records.md`,
    /// "Load into a shell", step 5): its goal checked in the world, the guide set up fresh
    /// and requested on the next update. Returns true when the request goes on as a grid
    /// path request (a hybrid's far phase, re-acquired as a grid A* guide is).
    pub(crate) fn reacquire_guide(
        &mut self,
        world: &WorldContext<'_>,
        a: &mut Agent,
        req: &PathRequest,
    ) -> Result<bool, CrowdError> {
        let goal = guide_goal(world, req)?;
        a.guide = fresh_guide(a, req, goal);
        match a.guide.as_mut() {
            Some(Guide::Flow(_)) | Some(Guide::Replan(_)) => {
                let g = world
                    .grid(req.context_id)
                    .ok_or(CrowdError::UnknownContext {
                        agent: a.id(),
                        what: "grid",
                        id: req.context_id,
                    })?;
                let (cx, cz) = g.space().cell_center(goal[0], goal[1]);
                a.target_pos = [cx, req.target[1], cz];
                a.grid = Some(fresh_grid_guide(req.context_id, (goal[0], goal[1])));
                Ok(false)
            }
            Some(Guide::Voxel(_)) => {
                if a.nav.motor.handler.fly.is_none() {
                    return Err(CrowdError::InvalidSetting {
                        what: "fly locomotion",
                        value: 0.0,
                        rule: "installed on an agent that follows a voxel path",
                    });
                }
                a.target_pos = req.target;
                Ok(false)
            }
            Some(Guide::Hybrid(h)) => {
                if dist_2d(a.nav.motion.position, req.target) > h.switch_distance {
                    return Ok(true);
                }
                // Near: a navmesh corridor to the target (placed; none: no path).
                h.near = true;
                let filter = crate::crowd::request_filter(&a.params.filter, req);
                if let Some(n) = self.query.find_nearest_poly(
                    world.mesh,
                    req.target,
                    self.placement_extents,
                    &filter,
                )? {
                    a.target_ref = n.poly;
                    a.target_pos = n.point;
                }
                Ok(false)
            }
            None => Ok(false),
        }
    }
}

impl GuideRuntime {
    /// Drops every shared field (they are rebuilt at their next use).
    pub(crate) fn forget_fields(&mut self) {
        self.fields.clear();
        self.seen.clear();
    }

    /// Makes the field `key` current on `grid`; returns whether it was computed now.
    fn ensure(&mut self, key: FlowKey, grid: &Grid) -> Result<bool, CrowdError> {
        let version = grid.version();
        if let Some(f) = self.fields.get(&key) {
            if f.version == version {
                return Ok(false);
            }
        }
        let off = |_| CrowdError::OffGrid {
            grid: key.0,
            x: f64::from(key.1 .0),
            z: f64::from(key.1 .1),
        };
        let mut field = GridFlowField::new(grid, &[key.1], GridOptions::default()).map_err(off)?;
        field.compute(grid).map_err(off)?;
        self.computations += 1;
        let prewarmed = self.fields.get(&key).is_some_and(|f| f.prewarmed);
        self.fields.insert(
            key,
            SharedField {
                field,
                version,
                prewarmed,
            },
        );
        Ok(true)
    }
}
