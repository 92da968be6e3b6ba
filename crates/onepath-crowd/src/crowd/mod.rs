//! [`Crowd`]: agents added and removed, targets requested, and the fixed-step update in
//! the order `docs/crowd.md` writes out.

use onepath_format::PolyRef;
use onepath_mesh::query::{
    NavMeshQuery, PathCorridor, PathStatus, QueryFilter, StraightPathFlags, Vec3,
};
use onepath_mesh::TiledNavMesh;

use crate::agent::{Agent, AgentState, GridGuide, TargetState};
use crate::avoidance::ObstacleAvoidance;
use crate::boundary::{BoundaryScratch, LocalBoundary};
use crate::error::CrowdError;
use crate::geom::{
    add, check_finite, dist_2d, dist_sqr_2d, len_2d, len_sqr, lerp, mad, normalize_2d, scale, sub,
    tri_area_2d, ZERO,
};
use crate::grid::ProximityGrid;
use crate::navigator::{
    AgentId, LinkTraversal, LocomotionHandler, LocomotionKind, Motion, Motor, Navigator,
    PathRequest, PathRequestKind, RequestSettings, Steering, TravelMode, TrekCondition, Turning,
};
use crate::params::{AgentParams, AvoidanceParams, AvoidanceType, UpdateFlags};
use crate::queue::{PathQueue, QueuedRequest};
use crate::world::WorldContext;
use onepath_gridstate::{GridAStar, GridOptions, SlicedSearch};

mod locomotion;
mod requests;
mod steer;

use locomotion::turn_towards;
#[cfg(test)]
use requests::remove_trackbacks;
pub(crate) use requests::{
    beyond_range, grid_search_for, poly_usable, request_filter, request_weight, set_request,
    set_valid,
};

/// Neighbours kept per agent.
pub const MAX_NEIGHBOURS: usize = 6;
/// Corners kept per agent.
pub const MAX_CORNERS: usize = 4;
/// Corridor polygons checked for staleness each update.
pub const CHECK_LOOKAHEAD: usize = 10;
/// Seconds between topology optimisations of one agent.
pub const TOPOLOGY_OPT_INTERVAL: f64 = 0.5;
/// Iterations of one topology optimisation.
pub const TOPOLOGY_OPT_ITERATIONS: u64 = 32;
/// Seconds after which a partial corridor that stopped short of the target is planned again.
pub const TARGET_REPLAN_DELAY: f64 = 1.0;
/// Iterations of the quick search a request makes from where the agent stands before it
/// is queued (not counted in the path budget).
pub const QUICK_SEARCH_ITERATIONS: u64 = 20;
/// Collision resolution passes per update.
pub const COLLISION_ITERATIONS: usize = 4;
/// Share of an overlap each pass resolves.
pub const COLLISION_RESOLVE_FACTOR: f64 = 0.7;
/// Seconds below the stuck threshold speed before an agent counts as stuck.
pub const STUCK_TIME: f64 = 1.0;
/// Seconds between replans asked for by a stuck agent.
pub const REPATH_COOLDOWN: f64 = 1.0;

/// The settings of a crowd.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrowdSettings {
    /// The largest number of agents at once.
    pub max_agents: usize,
    /// The largest agent radius (sets the proximity grid's cell, 3 radii, and the placement
    /// box).
    pub max_agent_radius: f64,
    /// Path search iterations per update over all queued requests (`u64::MAX`: no limit).
    /// One iteration is one polygon expanded by the sliced search (`step_path`).
    pub path_budget: u64,
    /// Agents whose corridor the topology optimisation may rework per update.
    pub topology_opt_per_update: usize,
    /// Iterations one queued request may use in all; a search that runs out ends with the
    /// path to the polygon closest to the target, which the agent walks and plans on from
    /// later (`u64::MAX`: no limit).
    pub max_request_iterations: u64,
}

impl Default for CrowdSettings {
    /// 512 agents, radius up to 0.6, 100 iterations per update, one topology optimisation
    /// per update (Detour's choices), 256 iterations per request (Detour's requests stop at
    /// 512 search nodes, open ones included: about 256 expanded polygons on its demo meshes,
    /// and the arrivals of the side-by-side runs agree at 256, `docs/perf/crowd.md`).
    fn default() -> Self {
        CrowdSettings {
            max_agents: 512,
            max_agent_radius: 0.6,
            path_budget: 100,
            topology_opt_per_update: 1,
            max_request_iterations: 256,
        }
    }
}

/// What one update did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UpdateStats {
    /// Path search iterations used.
    pub path_iterations: u64,
    /// Requests served (found a path or failed).
    pub requests_served: u32,
    /// Velocity candidates the avoidance scored.
    pub avoidance_samples: u64,
    /// Replans asked for because a corridor went stale.
    pub replans: u32,
    /// Agents whose heightmap grounding failed for want of a registered layer.
    pub grounding_missing_layers: u32,
}

/// A crowd of agents on one navmesh.
#[derive(Debug)]
pub struct Crowd {
    pub(crate) settings: CrowdSettings,
    /// Agents ascending by id: the update order.
    pub(crate) agents: Vec<Agent>,
    pub(crate) next_id: u32,
    pub(crate) queue: PathQueue,
    /// Grid-guided agents waiting for their grid search, first come first served, and the
    /// one whose search is begun (agent, serial, iterations used, start cell).
    pub(crate) grid_queue: std::collections::VecDeque<(AgentId, u64)>,
    pub(crate) grid_active: Option<(AgentId, u64, u64, (u32, u32))>,
    pub(crate) grid_search: GridAStar,
    pub(crate) query: NavMeshQuery,
    pub(crate) grid: ProximityGrid,
    pub(crate) avoidance: ObstacleAvoidance,
    pub(crate) boundary_scratch: BoundaryScratch,
    pub(crate) placement_extents: Vec3,
    /// The movement groups' shared flow fields and the guides' counters (rebuilt, never
    /// state).
    pub(crate) guides: crate::guides::GuideRuntime,
    /// The topology optimisation's list of agents due (a buffer kept between updates).
    pub(crate) topology_due: Vec<(f64, u32)>,
}

impl Crowd {
    /// An empty crowd: [`CrowdError::InvalidSetting`] when `max_agents` is 0 or the radius
    /// is not finite and > 0.
    pub fn new(settings: CrowdSettings) -> Result<Crowd, CrowdError> {
        if settings.max_agents == 0 {
            return Err(CrowdError::InvalidSetting {
                what: "max_agents",
                value: 0.0,
                rule: "at least 1",
            });
        }
        let r = settings.max_agent_radius;
        if !(r.is_finite() && r > 0.0) {
            return Err(CrowdError::InvalidSetting {
                what: "max_agent_radius",
                value: r,
                rule: "finite and > 0",
            });
        }
        Ok(Crowd {
            settings,
            agents: Vec::new(),
            next_id: 0,
            queue: PathQueue::default(),
            grid_queue: std::collections::VecDeque::new(),
            grid_active: None,
            grid_search: GridAStar::new(GridOptions::default()).map_err(|_| {
                CrowdError::InvalidSetting {
                    what: "grid search options",
                    value: 0.0,
                    rule: "the default grid options to validate",
                }
            })?,
            query: NavMeshQuery::new(),
            grid: ProximityGrid::new(r * 3.0),
            avoidance: ObstacleAvoidance::default(),
            boundary_scratch: BoundaryScratch::default(),
            placement_extents: [r * 2.0, r * 1.5, r * 2.0],
            guides: crate::guides::GuideRuntime::default(),
            topology_due: Vec::new(),
        })
    }

    /// The settings.
    pub fn settings(&self) -> &CrowdSettings {
        &self.settings
    }

    /// Sets the path budget (iterations per update; `u64::MAX`: no limit).
    pub fn set_path_budget(&mut self, budget: u64) {
        self.settings.path_budget = budget;
    }

    /// The half extents of the box agents and targets are placed with (2, 1.5, 2 max
    /// radii).
    pub fn placement_extents(&self) -> Vec3 {
        self.placement_extents
    }

    /// The agents, ascending by id (the update order).
    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }

    /// The agent `id`, if in the crowd.
    pub fn agent(&self, id: AgentId) -> Option<&Agent> {
        self.index(id).map(|i| &self.agents[i])
    }

    fn index(&self, id: AgentId) -> Option<usize> {
        self.agents.binary_search_by_key(&id, |a| a.id()).ok()
    }

    fn index_or_err(&self, id: AgentId) -> Result<usize, CrowdError> {
        self.index(id).ok_or(CrowdError::UnknownAgent(id))
    }

    /// True when no request is queued or searching.
    pub fn paths_idle(&self) -> bool {
        self.queue.is_idle()
            && self.agents.iter().all(|a| {
                !matches!(
                    a.target_state,
                    TargetState::Requesting | TargetState::WaitingForPath
                )
            })
    }

    /// Adds an agent at the mesh point nearest `pos` (within [`Crowd::placement_extents`])
    /// with the Move and Fall locomotions; see [`Crowd::add_agent_with`].
    pub fn add_agent(
        &mut self,
        mesh: &TiledNavMesh,
        pos: Vec3,
        params: AgentParams,
    ) -> Result<AgentId, CrowdError> {
        self.add_agent_with(mesh, pos, params, LocomotionHandler::new())
    }

    /// Adds an agent with the given locomotion modes. Ids are handed out in increasing
    /// order and never reused. A position off the mesh is refused
    /// ([`CrowdError::OffMesh`]); nothing changes on error.
    pub fn add_agent_with(
        &mut self,
        mesh: &TiledNavMesh,
        pos: Vec3,
        params: AgentParams,
        handler: LocomotionHandler,
    ) -> Result<AgentId, CrowdError> {
        params.validate()?;
        handler.validate()?;
        check_finite(["pos.x", "pos.y", "pos.z"], pos)?;
        if self.agents.len() >= self.settings.max_agents {
            return Err(CrowdError::Full {
                max: self.settings.max_agents,
            });
        }
        if self.next_id == u32::MAX {
            return Err(CrowdError::InvalidSetting {
                what: "agent ids",
                value: f64::from(u32::MAX),
                rule: "fewer than 2^32 - 1 agents over the crowd's life",
            });
        }
        let near = self
            .query
            .find_nearest_poly(mesh, pos, self.placement_extents, &params.filter)?
            .ok_or(CrowdError::OffMesh {
                x: pos[0],
                y: pos[1],
                z: pos[2],
            })?;
        let id = AgentId(self.next_id);
        self.next_id += 1;
        let mut corridor = PathCorridor::new();
        corridor.reset(near.poly, near.point);
        let motion = Motion {
            position: near.point,
            last_position: near.point,
            rotation: 0.0,
            velocity: ZERO,
            speed: 0.0,
            acceleration: 0.0,
            size: [params.radius, params.height],
            foot_offset: 0.0,
            id,
            group_id: 0,
            locked_on: false,
            stuck_threshold_speed: params.max_speed * 0.05,
            guided: false,
        };
        self.agents.push(Agent {
            nav: Navigator {
                motion,
                steering: Steering::default(),
                turning: Turning::default(),
                motor: Motor::new(handler),
                grounding: crate::HeightmapGrounding::default(),
            },
            params,
            state: AgentState::Walking,
            target_state: TargetState::None,
            target_ref: PolyRef::NULL,
            target_pos: ZERO,
            serial: 0,
            target_replan_time: 0.0,
            replanning: false,
            topology_opt_time: 0.0,
            corridor,
            grid: None,
            guide: None,
            boundary: LocalBoundary::default(),
            neighbours: Vec::new(),
            corners: Vec::new(),
            desired_speed: 0.0,
            dvel: ZERO,
            nvel: ZERO,
            disp: ZERO,
        });
        Ok(id)
    }

    /// Removes an agent (its id is never handed out again) and its queued requests.
    pub fn remove_agent(&mut self, id: AgentId) -> Result<(), CrowdError> {
        let i = self.index_or_err(id)?;
        self.agents.remove(i);
        self.queue.forget(id);
        Ok(())
    }

    /// Changes an agent's parameters ([`AgentParams::validate`] first).
    pub fn set_params(&mut self, id: AgentId, params: AgentParams) -> Result<(), CrowdError> {
        params.validate()?;
        let i = self.index_or_err(id)?;
        let a = &mut self.agents[i];
        a.params = params;
        a.nav.motion.size = [params.radius, params.height];
        a.boundary.reset();
        Ok(())
    }

    /// The agent's steering tuning and session flags, for the host to adjust (auto-stop,
    /// movement group, tuning).
    pub fn steering_mut(&mut self, id: AgentId) -> Result<&mut Steering, CrowdError> {
        let i = self.index_or_err(id)?;
        Ok(&mut self.agents[i].nav.steering)
    }

    /// The agent's turning configuration.
    pub fn turning_mut(&mut self, id: AgentId) -> Result<&mut Turning, CrowdError> {
        let i = self.index_or_err(id)?;
        Ok(&mut self.agents[i].nav.turning)
    }

    /// Asks the agent to walk to `target` in polygon `target_ref` (for example from
    /// `find_nearest_poly`). The request is queued at the next update; until its path is
    /// found the agent waits.
    pub fn request_move_target(
        &mut self,
        id: AgentId,
        target_ref: PolyRef,
        target: Vec3,
    ) -> Result<(), CrowdError> {
        check_finite(["target.x", "target.y", "target.z"], target)?;
        let i = self.index_or_err(id)?;
        let a = &mut self.agents[i];
        a.target_ref = target_ref;
        a.target_pos = target;
        a.serial += 1;
        a.target_state = TargetState::Requesting;
        a.target_replan_time = 0.0;
        a.replanning = false;
        a.grid = None;
        a.guide = None;
        // A new target plans from where the agent stands.
        let first = a.corridor.first_poly();
        let pos = a.corridor.pos();
        if !first.is_null() {
            a.corridor.reset(first, pos);
        }
        let s = &mut a.nav.steering;
        s.should_move = true;
        s.at_destination = false;
        s.is_stuck = false;
        s.stuck_time = 0.0;
        s.requested_destination = target;
        s.travel_mode = TravelMode::Path;
        let unit_size = a.params.radius;
        set_request(
            a,
            Some(PathRequest {
                kind: PathRequestKind::NavMesh,
                origin: pos,
                target,
                unit_size,
                walkability_override: None,
                max_search_range: 0.0,
                settings: RequestSettings::NavMesh { max_iterations: 0 },
                guide_active: false,
                waypoint_index: 0,
                context_id: 0,
            }),
        );
        Ok(())
    }

    /// Asks the agent to follow a path request of its own shape. The request is checked
    /// first ([`PathRequest::validate`]: a value out of range, settings of another kind, a
    /// flow field's extra flood range or a voxel path's climb height other than 0 are
    /// [`CrowdError::InvalidRequest`] naming the value).
    ///
    /// [`PathRequestKind::NavMesh`]: the target is placed with
    /// [`Crowd::placement_extents`]; the request's walkability override replaces the
    /// filter's include flags for this request (placement, corridor, checks and moves:
    /// [`Agent::corridor_filter`]), its iteration limit caps the search, and its
    /// search range refuses far targets ([`TargetState::NoPath`]).
    ///
    /// [`PathRequestKind::GridAStar`]: the path is planned by grid A* (`onepath-gridstate`,
    /// sliced under the same path budget) on grid `context_id` of `world`, from the cell
    /// under the agent to the cell under the target ([`CrowdError::OffGrid`] when that cell
    /// is missing or blocked), with the request's heuristic weight (1 optimal; above 1 fewer
    /// cells expanded for a path of at most weight × the optimal cost); the agent steers
    /// through the path's cell centres and still moves on the mesh.
    ///
    /// [`PathRequestKind::FlowField`], [`PathRequestKind::Voxel`],
    /// [`PathRequestKind::Hybrid`]: a flow field shared by the agent's movement group, a
    /// voxel path flown with the Fly mode, a grid path far away and a corridor within the
    /// switch distance (`docs/crowd.md`, "Guides"; [`CrowdError::OffGrid`] for a grid or
    /// voxel grid the world lacks or a target off it or on a wall,
    /// [`CrowdError::InvalidSetting`] for a voxel path without the Fly mode;
    /// [`CrowdError::ContextOrder`] for a `world` whose lists do not ascend). Nothing
    /// changes on error.
    pub fn request_path(
        &mut self,
        world: &WorldContext<'_>,
        id: AgentId,
        request: PathRequest,
    ) -> Result<(), CrowdError> {
        world.check_order()?;
        request.validate()?;
        let mesh = world.mesh;
        if request.kind == PathRequestKind::GridAStar {
            return self.request_grid_path(world, id, request);
        }
        if request.kind != PathRequestKind::NavMesh {
            return self.request_guide(world, id, request);
        }
        let i = self.index_or_err(id)?;
        let filter = request_filter(&self.agents[i].params.filter, &request);
        let near =
            self.query
                .find_nearest_poly(mesh, request.target, self.placement_extents, &filter)?;
        let target_ref = near.map_or(PolyRef::NULL, |n| n.poly);
        let target = near.map_or(request.target, |n| n.point);
        self.request_move_target(id, target_ref, target)?;
        let a = &mut self.agents[i];
        let mut req = request;
        req.origin = a.corridor.pos();
        set_request(a, Some(req));
        Ok(())
    }

    pub(crate) fn request_grid_path(
        &mut self,
        world: &WorldContext<'_>,
        id: AgentId,
        request: PathRequest,
    ) -> Result<(), CrowdError> {
        let i = self.index_or_err(id)?;
        let t = request.target;
        let off = CrowdError::OffGrid {
            grid: request.context_id,
            x: t[0],
            z: t[2],
        };
        let grid = world.grid(request.context_id).ok_or(off.clone())?;
        let goal = match grid.space().cell_at(t[0], t[2]) {
            Some((x, y))
                if x >= 0
                    && y >= 0
                    && x < i64::from(grid.width())
                    && y < i64::from(grid.height())
                    && grid.is_walkable(x, y) =>
            {
                (x as u32, y as u32)
            }
            _ => return Err(off),
        };
        check_finite(["target.x", "target.y", "target.z"], t)?;
        let (cx, cz) = grid.space().cell_center(goal.0, goal.1);
        self.request_move_target(id, PolyRef::NULL, [cx, t[1], cz])?;
        let a = &mut self.agents[i];
        let mut req = request;
        req.origin = a.corridor.pos();
        set_request(a, Some(req));
        a.grid = Some(GridGuide {
            grid_id: request.context_id,
            goal,
            waypoints: Vec::new(),
            next: 0,
            start: None,
            resume: None,
        });
        Ok(())
    }

    /// Asks the agent to move at `velocity` (X/Z), with no path.
    pub fn request_move_velocity(&mut self, id: AgentId, velocity: Vec3) -> Result<(), CrowdError> {
        check_finite(["velocity.x", "velocity.y", "velocity.z"], velocity)?;
        let i = self.index_or_err(id)?;
        let a = &mut self.agents[i];
        a.target_ref = PolyRef::NULL;
        a.target_pos = velocity;
        a.serial += 1;
        a.target_state = TargetState::Velocity;
        a.grid = None;
        a.guide = None;
        let s = &mut a.nav.steering;
        s.should_move = true;
        s.at_destination = false;
        s.travel_mode = TravelMode::Velocity;
        set_request(a, None);
        Ok(())
    }

    /// Drops the agent's target: it brakes to a stop where it is.
    pub fn reset_move_target(&mut self, id: AgentId) -> Result<(), CrowdError> {
        let i = self.index_or_err(id)?;
        let a = &mut self.agents[i];
        reset_target(a);
        Ok(())
    }

    /// Attaches the agent to platform `platform` of `world` (it then moves with it until
    /// [`Crowd::detach_platform`]). Errors (nothing changes): [`CrowdError::UnknownContext`]
    /// naming the platform id when the world has no such platform,
    /// [`CrowdError::InvalidSetting`] when the agent has no platform locomotion,
    /// [`CrowdError::ContextOrder`] when a list of `world` does not ascend.
    pub fn attach_platform(
        &mut self,
        world: &WorldContext<'_>,
        id: AgentId,
        platform: u32,
    ) -> Result<(), CrowdError> {
        world.check_order()?;
        let i = self.index_or_err(id)?;
        let Some(ppos) = world.platform(platform) else {
            return Err(CrowdError::UnknownContext {
                agent: id,
                what: "platform",
                id: platform,
            });
        };
        let a = &mut self.agents[i];
        let pos = a.nav.motion.position;
        let Some(pl) = a.nav.motor.handler.platform.as_mut() else {
            return Err(CrowdError::InvalidSetting {
                what: "platform locomotion",
                value: 0.0,
                rule: "installed on the agent",
            });
        };
        pl.previous = pl.attached;
        pl.attached = Some(platform);
        pl.local_offset = sub(pos, ppos);
        pl.last_platform_pos = ppos;
        pl.tracked_velocity = ZERO;
        a.nav.motor.handler.mode = LocomotionKind::Platform;
        Ok(())
    }

    /// Detaches the agent from its platform (it walks again from where it stands).
    pub fn detach_platform(&mut self, id: AgentId) -> Result<(), CrowdError> {
        let i = self.index_or_err(id)?;
        let h = &mut self.agents[i].nav.motor.handler;
        if let Some(pl) = h.platform.as_mut() {
            if pl.attached.is_some() {
                pl.previous = pl.attached.take();
                pl.tracked_velocity = ZERO;
            }
        }
        if h.mode == LocomotionKind::Platform {
            h.mode = LocomotionKind::Move;
        }
        Ok(())
    }

    /// Appends every agent's state ([`Agent::write_state`]) to `out`, in agent order.
    pub fn write_state(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.agents.len() as u32).to_le_bytes());
        for a in &self.agents {
            a.write_state(out);
        }
    }

    /// One fixed step of `dt` seconds over the mesh of `world`, in the order of
    /// `docs/crowd.md`. [`CrowdError::NotFinite`] (nothing changes) when `dt` is not
    /// finite or is negative, [`CrowdError::ContextOrder`] (nothing changes) when a list of
    /// `world` does not ascend ([`WorldContext::check_order`]).
    pub fn update(&mut self, world: &WorldContext<'_>, dt: f64) -> Result<UpdateStats, CrowdError> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(CrowdError::NotFinite { what: "dt" });
        }
        world.check_order()?;
        let mesh = world.mesh;
        let mut stats = UpdateStats::default();
        for a in &mut self.agents {
            a.nav.motion.last_position = a.nav.motion.position;
        }
        self.check_path_validity(mesh, dt, &mut stats);
        self.update_platforms(world, dt);
        self.update_guides(world, &mut stats);
        self.update_move_requests(mesh, &mut stats);
        self.update_grid_requests(world, &mut stats);
        self.update_topology_optimization(mesh, dt);
        self.find_neighbours();
        self.steer(mesh, &mut stats);
        self.integrate(dt);
        self.resolve_collisions();
        self.move_on_surface(mesh);
        self.update_falls(mesh, dt);
        self.update_links(dt);
        self.update_flyers(world, dt);
        self.finish_motion(dt);
        stats.grounding_missing_layers = self.update_grounding(world);
        Ok(stats)
    }

    /// 6. Neighbours: every agent on the mesh registered in the proximity grid; each walking
    ///    agent keeps the [`MAX_NEIGHBOURS`] nearest within its query range whose heights
    ///    overlap, by distance, then id.
    fn find_neighbours(&mut self) {
        self.grid.clear();
        for (i, a) in self.agents.iter().enumerate() {
            if a.state == AgentState::Invalid {
                continue;
            }
            let p = a.nav.motion.position;
            self.grid.add(i as u32, p[0], p[2], a.params.radius);
        }
        self.grid.finish();
        for i in 0..self.agents.len() {
            let mut neis = std::mem::take(&mut self.agents[i].neighbours);
            neis.clear();
            let a = &self.agents[i];
            if a.state == AgentState::Walking {
                let (p, range, h) = (
                    a.nav.motion.position,
                    a.params.collision_query_range,
                    a.params.height,
                );
                let agents = &self.agents;
                self.grid.query(
                    p[0] - range,
                    p[2] - range,
                    p[0] + range,
                    p[2] + range,
                    |j| {
                        if j as usize == i {
                            return;
                        }
                        let b = &agents[j as usize];
                        let q = b.nav.motion.position;
                        if (q[1] - p[1]).abs() >= (h + b.params.height) * 0.5 {
                            return;
                        }
                        let d2 = dist_sqr_2d(p, q);
                        if d2 > range * range {
                            return;
                        }
                        neis.push((d2, j));
                    },
                );
                // Agent indices ascend with ids, so the index breaks distance ties by id.
                neis.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
                neis.truncate(MAX_NEIGHBOURS);
            }
            self.agents[i].neighbours = neis;
        }
    }

    /// 11. Integration: the velocity moves towards the new one by at most max acceleration
    ///     × dt, then the position by velocity × dt.
    fn integrate(&mut self, dt: f64) {
        for a in &mut self.agents {
            if a.state != AgentState::Walking {
                continue;
            }
            let m = &mut a.nav.motion;
            let mut dv = sub(a.nvel, m.velocity);
            dv[1] = 0.0;
            let ds = len_2d(dv);
            let max_delta = a.params.max_acceleration * dt;
            if ds > max_delta && ds > 0.0 {
                dv = scale(dv, max_delta / ds);
            }
            m.velocity = add(m.velocity, dv);
            if len_2d(m.velocity) > 0.0001 {
                m.position = mad(m.position, m.velocity, dt);
            } else {
                m.velocity = ZERO;
            }
        }
    }

    /// 12. Collisions: [`COLLISION_ITERATIONS`] passes; each computes every walking agent's
    ///     push-out from its overlapping neighbours from the positions at the start of the
    ///     pass, then applies them all.
    fn resolve_collisions(&mut self) {
        for _ in 0..COLLISION_ITERATIONS {
            for i in 0..self.agents.len() {
                let a = &self.agents[i];
                let mut disp = ZERO;
                let mut w = 0.0;
                if a.state == AgentState::Walking {
                    let p = a.nav.motion.position;
                    for &(_, j) in &a.neighbours {
                        let b = &self.agents[j as usize];
                        let q = b.nav.motion.position;
                        let mut diff = [p[0] - q[0], 0.0, p[2] - q[2]];
                        let d2 = len_sqr(diff);
                        let rr = a.params.radius + b.params.radius;
                        if d2 > rr * rr {
                            continue;
                        }
                        let d = d2.sqrt();
                        let pen;
                        if d < 0.0001 {
                            // On top of each other: diverge sideways of the desired
                            // velocity, the two agents to opposite sides (by id order).
                            diff = if i > j as usize {
                                [-a.dvel[2], 0.0, a.dvel[0]]
                            } else {
                                [a.dvel[2], 0.0, -a.dvel[0]]
                            };
                            pen = 0.01;
                        } else {
                            pen = (1.0 / d) * ((rr - d) * 0.5) * COLLISION_RESOLVE_FACTOR;
                        }
                        disp = mad(disp, diff, pen);
                        w += 1.0;
                    }
                    if w > 0.0001 {
                        disp = scale(disp, 1.0 / w);
                    }
                }
                self.agents[i].disp = disp;
            }
            for a in &mut self.agents {
                if a.state == AgentState::Walking {
                    a.nav.motion.position = add(a.nav.motion.position, a.disp);
                }
            }
        }
    }

    /// 13. Move along the surface: the corridor walks to the new position, constrained by
    ///     walls; the agent takes the corridor's position (on the surface).
    fn move_on_surface(&mut self, mesh: &TiledNavMesh) {
        for a in &mut self.agents {
            if a.state != AgentState::Walking {
                continue;
            }
            let want = a.nav.motion.position;
            let filter = a.corridor_filter();
            match a
                .corridor
                .move_position(&mut self.query, mesh, &filter, want)
            {
                Ok(_) => a.nav.motion.position = a.corridor.pos(),
                Err(_) => a.nav.motion.position = a.corridor.pos(),
            }
            if a.grid.is_some()
                || matches!(
                    a.target_state,
                    TargetState::None | TargetState::Velocity | TargetState::NoPath
                )
            {
                let (f, p) = (a.corridor.first_poly(), a.corridor.pos());
                a.corridor.reset(f, p);
            }
            // The ground chooses the mode: area ids of water and slope.
            let area = mesh.poly_area(a.corridor.first_poly()).ok();
            let h = &mut a.nav.motor.handler;
            if h.mode == LocomotionKind::Platform {
                continue;
            }
            let water = h.water.is_some_and(|w| Some(w.water_area) == area);
            let slide = h.slide.is_some_and(|s| Some(s.slope_area) == area);
            h.mode = if water {
                LocomotionKind::Water
            } else if slide {
                LocomotionKind::Slide
            } else {
                LocomotionKind::Move
            };
            if let Some(s) = h.slide.as_mut() {
                s.is_sliding = slide;
            }
            if let Some(w) = h.water.as_mut() {
                if !water {
                    w.swim_time = 0.0;
                }
            }
            h.walk.frame_velocity = a.nav.motion.velocity;
            a.nav.motor.condition = TrekCondition::Grounded;
        }
    }

    /// 16. Motion: speed, acceleration, heading (turning at its rate), arrival, stuck
    ///     detection.
    fn finish_motion(&mut self, dt: f64) {
        for a in &mut self.agents {
            let m = &mut a.nav.motion;
            let speed = len_2d(m.velocity);
            m.acceleration = if dt > 0.0 {
                (speed - m.speed) / dt
            } else {
                0.0
            };
            m.speed = speed;
            if let Some(j) = a.nav.motor.handler.jump.as_mut() {
                j.cooldown_left = (j.cooldown_left - dt).max(0.0);
            }
            if let Some(w) = a.nav.motor.handler.water.as_mut() {
                if a.nav.motor.handler.mode == LocomotionKind::Water {
                    w.swim_time += dt;
                    w.total_swim_time += dt;
                }
            }
            a.nav.motor.previous_condition = a.nav.motor.condition;
            a.nav.motor.initialized = true;
            let tr = &mut a.nav.turning;
            if tr.can_turn && speed > 0.0001 {
                let want = libm::atan2(m.velocity[2], m.velocity[0]);
                tr.target_rotation = Some(want);
                m.rotation = turn_towards(m.rotation, want, tr.turn_rate * dt, tr.turn_rate);
            } else {
                tr.target_rotation = None;
            }
            let s = &mut a.nav.steering;
            s.repath_cooldown = (s.repath_cooldown - dt).max(0.0);
            if let Some(r) = s.request.as_mut() {
                r.waypoint_index = match (&a.grid, crate::guides::voxel_next(&a.guide)) {
                    (_, Some(next)) => next as u32,
                    (Some(g), None) => g.next as u32,
                    (None, None) => a.corridor.path().len() as u32,
                };
            }
            if a.target_state == TargetState::Valid && a.state == AgentState::Walking {
                let stop = a.params.radius * s.tuning.stop_multiplier;
                let arrived = match &a.grid {
                    Some(g) => {
                        let end = g.waypoints.last().copied().unwrap_or(m.position);
                        let d = dist_2d(m.position, end);
                        s.distance_to_target = d;
                        s.destination = end;
                        g.next + 1 >= g.waypoints.len() && d <= stop
                    }
                    None => {
                        let d = dist_2d(m.position, a.corridor.target());
                        s.distance_to_target = d;
                        s.destination = a.corridor.target();
                        a.corridor.last_poly() == a.target_ref && d <= stop
                    }
                };
                s.at_destination = arrived;
                if arrived && s.auto_stop {
                    reset_target(a);
                    continue;
                }
                let s = &mut a.nav.steering;
                if !arrived && speed < m.stuck_threshold_speed {
                    s.stuck_time += dt;
                    if s.stuck_time > STUCK_TIME && !s.is_stuck {
                        s.is_stuck = true;
                        s.stuck_count += 1;
                        if s.repath_cooldown <= 0.0 {
                            s.repath_cooldown = REPATH_COOLDOWN;
                            s.repath_count += 1;
                            a.replanning = true;
                            a.serial += 1;
                            a.target_state = TargetState::Requesting;
                        }
                    }
                } else {
                    s.stuck_time = 0.0;
                    s.is_stuck = false;
                }
            }
        }
    }
}

pub(crate) fn reset_target(a: &mut Agent) {
    a.target_state = TargetState::None;
    a.grid = None;
    a.guide = None;
    a.target_ref = PolyRef::NULL;
    a.target_pos = ZERO;
    a.serial += 1;
    a.dvel = ZERO;
    let (f, p) = (a.corridor.first_poly(), a.corridor.pos());
    if !f.is_null() {
        a.corridor.reset(f, p);
    }
    let s = &mut a.nav.steering;
    s.should_move = false;
    s.travel_mode = TravelMode::Idle;
    set_request(a, None);
    a.nav.motion.guided = false;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(i: u32) -> PolyRef {
        PolyRef::new(1, 0, i).unwrap()
    }

    #[test]
    fn trackbacks_are_removed() {
        let mut p = vec![r(0), r(1), r(2), r(1), r(3)];
        remove_trackbacks(&mut p);
        assert_eq!(p, vec![r(0), r(1), r(3)]);
        let mut p = vec![r(0), r(1), r(0), r(1), r(2)];
        remove_trackbacks(&mut p);
        assert_eq!(p, vec![r(0), r(1), r(2)]);
    }

    #[test]
    fn turning_is_limited_by_the_rate_and_wraps() {
        let t = turn_towards(0.0, 1.0, 0.25, 1.0);
        assert_eq!(t, 0.25);
        let t = turn_towards(3.0, -3.0, 0.1, 1.0);
        assert!(t > 3.0 && t <= core::f64::consts::PI, "{t}");
        assert_eq!(turn_towards(0.5, 2.0, 0.0, 0.0), 2.0);
    }
}
