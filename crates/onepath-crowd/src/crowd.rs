//! [`Crowd`]: agents added and removed, targets requested, and the fixed-step update in
//! the order `docs/crowd.md` writes out.

use onepath_format::PolyRef;
use onepath_mesh::query::{
    NavMeshQuery, PathCorridor, PathStatus, QueryFilter, StraightPathFlags, Vec3,
};
use onepath_mesh::TiledNavMesh;

use crate::agent::{Agent, AgentState, TargetState};
use crate::avoidance::ObstacleAvoidance;
use crate::boundary::{BoundaryScratch, LocalBoundary};
use crate::error::CrowdError;
use crate::geom::{
    add, dist_2d, dist_sqr_2d, finite, len_2d, len_sqr, lerp, mad, normalize_2d, scale, sub,
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
    /// per update, 512 iterations per request (Detour's choices; its requests stop at 512
    /// search nodes).
    fn default() -> Self {
        CrowdSettings {
            max_agents: 512,
            max_agent_radius: 0.6,
            path_budget: 100,
            topology_opt_per_update: 1,
            max_request_iterations: 512,
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
}

/// A crowd of agents on one navmesh.
#[derive(Debug)]
pub struct Crowd {
    settings: CrowdSettings,
    /// Agents ascending by id: the update order.
    agents: Vec<Agent>,
    next_id: u32,
    queue: PathQueue,
    query: NavMeshQuery,
    grid: ProximityGrid,
    avoidance: ObstacleAvoidance,
    boundary_scratch: BoundaryScratch,
    placement_extents: Vec3,
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
            query: NavMeshQuery::new(),
            grid: ProximityGrid::new(r * 3.0),
            avoidance: ObstacleAvoidance::default(),
            boundary_scratch: BoundaryScratch::default(),
            placement_extents: [r * 2.0, r * 1.5, r * 2.0],
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
        if !finite(pos) {
            return Err(CrowdError::NotFinite { what: "pos" });
        }
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
        if !finite(target) {
            return Err(CrowdError::NotFinite { what: "target" });
        }
        let i = self.index_or_err(id)?;
        let a = &mut self.agents[i];
        a.target_ref = target_ref;
        a.target_pos = target;
        a.serial += 1;
        a.target_state = TargetState::Requesting;
        a.target_replan_time = 0.0;
        a.replanning = false;
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
        s.request = Some(PathRequest {
            kind: PathRequestKind::NavMesh,
            origin: pos,
            target,
            unit_size: a.params.radius,
            walkability_override: None,
            max_search_range: 0.0,
            settings: RequestSettings::NavMesh { max_iterations: 0 },
            guide_active: false,
            waypoint_index: 0,
        });
        Ok(())
    }

    /// Asks the agent to follow a path request of its own shape; only
    /// [`PathRequestKind::NavMesh`] is served here ([`CrowdError::UnsupportedRequest`]
    /// otherwise). The target is placed with [`Crowd::placement_extents`]; the request's
    /// walkability override replaces the filter's include flags for this request, its
    /// iteration limit caps the search, and its search range refuses far targets
    /// ([`TargetState::NoPath`]).
    pub fn request_path(
        &mut self,
        mesh: &TiledNavMesh,
        id: AgentId,
        request: PathRequest,
    ) -> Result<(), CrowdError> {
        if request.kind != PathRequestKind::NavMesh {
            return Err(CrowdError::UnsupportedRequest(request.kind));
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
        a.nav.steering.request = Some(req);
        Ok(())
    }

    /// Asks the agent to move at `velocity` (X/Z), with no path.
    pub fn request_move_velocity(&mut self, id: AgentId, velocity: Vec3) -> Result<(), CrowdError> {
        if !finite(velocity) {
            return Err(CrowdError::NotFinite { what: "velocity" });
        }
        let i = self.index_or_err(id)?;
        let a = &mut self.agents[i];
        a.target_ref = PolyRef::NULL;
        a.target_pos = velocity;
        a.serial += 1;
        a.target_state = TargetState::Velocity;
        let s = &mut a.nav.steering;
        s.should_move = true;
        s.at_destination = false;
        s.travel_mode = TravelMode::Velocity;
        s.request = None;
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
    /// [`Crowd::detach_platform`]); [`CrowdError::InvalidSetting`] when the world has no
    /// such platform or the agent has no platform locomotion.
    pub fn attach_platform(
        &mut self,
        world: &WorldContext<'_>,
        id: AgentId,
        platform: u32,
    ) -> Result<(), CrowdError> {
        let i = self.index_or_err(id)?;
        let Some(ppos) = world.platform(platform) else {
            return Err(CrowdError::InvalidSetting {
                what: "platform id",
                value: f64::from(platform),
                rule: "a platform of the world context",
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
    /// finite or is negative.
    pub fn update(&mut self, world: &WorldContext<'_>, dt: f64) -> Result<UpdateStats, CrowdError> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(CrowdError::NotFinite { what: "dt" });
        }
        let mesh = world.mesh;
        let mut stats = UpdateStats::default();
        for a in &mut self.agents {
            a.nav.motion.last_position = a.nav.motion.position;
        }
        self.check_path_validity(mesh, dt, &mut stats);
        self.update_platforms(world, dt);
        self.update_move_requests(mesh, &mut stats);
        self.update_topology_optimization(mesh, dt);
        self.find_neighbours();
        self.steer(mesh, &mut stats);
        self.integrate(dt);
        self.resolve_collisions();
        self.move_on_surface(mesh);
        self.update_falls(mesh, dt);
        self.update_links(dt);
        self.finish_motion(dt);
        Ok(stats)
    }

    /// 1. Stale corridors: an agent whose polygon is gone is placed again (or falls); a
    ///    target whose polygon is gone is placed again (or the target has no path); a
    ///    corridor whose look-ahead is stale is trimmed and planned again.
    fn check_path_validity(&mut self, mesh: &TiledNavMesh, dt: f64, stats: &mut UpdateStats) {
        let ext = self.placement_extents;
        for a in &mut self.agents {
            if a.state != AgentState::Walking {
                continue;
            }
            a.target_replan_time += dt;
            let filter = a.params.filter;
            let mut replan = false;
            let first = a.corridor.first_poly();
            let pos = a.nav.motion.position;
            if !poly_usable(mesh, first, &filter) {
                match self.query.find_nearest_poly(mesh, pos, ext, &filter) {
                    Ok(Some(n)) => {
                        a.corridor.reset(n.poly, n.point);
                        a.nav.motion.position = n.point;
                        a.boundary.reset();
                        replan = true;
                    }
                    _ => {
                        // No ground: the agent falls.
                        start_fall(a, None);
                        continue;
                    }
                }
            }
            if matches!(
                a.target_state,
                TargetState::Valid | TargetState::WaitingForPath | TargetState::Requesting
            ) && !poly_usable(mesh, a.target_ref, &filter)
            {
                match self
                    .query
                    .find_nearest_poly(mesh, a.target_pos, ext, &filter)
                {
                    Ok(Some(n)) => {
                        a.target_ref = n.poly;
                        a.target_pos = n.point;
                        replan = true;
                    }
                    _ => {
                        // The target streamed out: no path until the host asks again.
                        a.target_state = TargetState::NoPath;
                        a.serial += 1;
                        let (p, first) = (a.corridor.pos(), a.corridor.first_poly());
                        a.corridor.reset(first, p);
                        a.nav.steering.should_move = false;
                    }
                }
            }
            if !a.corridor.is_valid(mesh, &filter, CHECK_LOOKAHEAD) {
                let (p, f) = (a.corridor.pos(), a.corridor.first_poly());
                if a.corridor
                    .trim_invalid_path(&self.query, mesh, &filter, f, p)
                    .is_err()
                {
                    a.corridor.reset(f, p);
                }
                a.boundary.reset();
                replan = true;
            }
            if a.target_state == TargetState::Valid
                && a.target_replan_time > TARGET_REPLAN_DELAY
                && a.corridor.path().len() < CHECK_LOOKAHEAD
                && a.corridor.last_poly() != a.target_ref
            {
                replan = true;
            }
            if replan
                && matches!(
                    a.target_state,
                    TargetState::Valid | TargetState::WaitingForPath
                )
            {
                a.replanning = true;
                a.serial += 1;
                a.target_state = TargetState::Requesting;
                a.target_replan_time = 0.0;
                a.nav.steering.repath_count += 1;
                stats.replans += 1;
            }
        }
    }

    /// 2. Platforms: attached agents move by their platform's displacement.
    fn update_platforms(&mut self, world: &WorldContext<'_>, dt: f64) {
        for a in &mut self.agents {
            let Some(pl) = a.nav.motor.handler.platform.as_mut() else {
                continue;
            };
            let Some(id) = pl.attached else {
                continue;
            };
            let Some(ppos) = world.platform(id) else {
                // The platform left the world: the agent stands where it is.
                pl.previous = pl.attached.take();
                pl.tracked_velocity = ZERO;
                a.nav.motor.handler.mode = LocomotionKind::Move;
                continue;
            };
            let delta = sub(ppos, pl.last_platform_pos);
            pl.tracked_velocity = if dt > 0.0 {
                scale(delta, 1.0 / dt)
            } else {
                ZERO
            };
            pl.last_platform_pos = ppos;
            let pos = add(a.nav.motion.position, delta);
            pl.local_offset = sub(pos, ppos);
            a.nav.motion.position = pos;
            a.nav.motor.condition = TrekCondition::OnPlatform;
        }
    }

    /// 3. Requests: agents that asked are queued in agent order, then the queue is served
    ///    under the budget, first come first served.
    fn update_move_requests(&mut self, mesh: &TiledNavMesh, stats: &mut UpdateStats) {
        for a in &mut self.agents {
            if a.target_state != TargetState::Requesting || a.state == AgentState::Invalid {
                continue;
            }
            let req = a.nav.steering.request;
            let filter = req.map_or(a.params.filter, |r| request_filter(&a.params.filter, &r));
            let too_far = req.is_some_and(|r| {
                r.max_search_range > 0.0 && dist_2d(r.origin, a.target_pos) > r.max_search_range
            });
            if a.target_ref.is_null() || too_far || a.corridor.path().is_empty() {
                a.target_state = TargetState::NoPath;
                a.nav.steering.should_move = false;
                continue;
            }
            let max_iterations = match req.map(|r| r.settings) {
                Some(RequestSettings::NavMesh { max_iterations }) if max_iterations > 0 => {
                    max_iterations.min(self.settings.max_request_iterations)
                }
                _ => self.settings.max_request_iterations,
            };
            // A quick search from where the agent stands, so that it walks at once; a
            // replan keeps to the furthest polygon of its corridor the search reached.
            let first = a.corridor.first_poly();
            let pos = a.corridor.pos();
            let mut quick = Vec::new();
            let quick_ok = self
                .query
                .begin_path(mesh, first, a.target_ref, pos, a.target_pos, &filter)
                .is_ok()
                && self.query.step_path(mesh, QUICK_SEARCH_ITERATIONS).is_ok()
                && if a.replanning {
                    self.query
                        .finish_path_partial(a.corridor.path(), &mut quick)
                } else {
                    self.query.finish_path(&mut quick)
                }
                .is_ok();
            a.replanning = false;
            let quick_end = match quick.last() {
                Some(&last) if quick_ok && last == a.target_ref => Some(a.target_pos),
                Some(&last) if quick_ok => self
                    .query
                    .closest_point_on_poly(mesh, last, a.target_pos)
                    .ok()
                    .map(|c| c.point),
                _ => None,
            };
            match quick_end {
                Some(end) => a.corridor.set_corridor(end, &quick),
                None => a.corridor.reset(first, pos),
            }
            a.boundary.reset();
            if a.corridor.last_poly() == a.target_ref {
                set_valid(a);
                continue;
            }
            self.queue.push(QueuedRequest {
                agent: a.id(),
                serial: a.serial,
                start_ref: a.corridor.last_poly(),
                start_pos: a.corridor.target(),
                end_ref: a.target_ref,
                end_pos: a.target_pos,
                filter,
                max_iterations,
            });
            a.target_state = TargetState::WaitingForPath;
        }
        let agents = &self.agents;
        let current = |id: AgentId, serial: u64| {
            agents.binary_search_by_key(&id, |a| a.id()).is_ok_and(|i| {
                agents[i].serial == serial && agents[i].target_state == TargetState::WaitingForPath
            })
        };
        let (served, used) = self.queue.serve(mesh, self.settings.path_budget, current);
        stats.path_iterations += used;
        for s in served {
            stats.requests_served += 1;
            let Ok(i) = self
                .agents
                .binary_search_by_key(&s.request.agent, |a| a.id())
            else {
                continue;
            };
            let a = &mut self.agents[i];
            let ok = match s.result {
                Ok((res, path)) if !path.is_empty() && res.status != PathStatus::InProgress => {
                    Some(path)
                }
                _ => None,
            };
            let Some(found) = ok else {
                // The search failed (the mesh changed under it): plan again.
                a.replanning = true;
                a.serial += 1;
                a.target_state = TargetState::Requesting;
                continue;
            };
            if a.corridor.last_poly() != s.request.start_ref {
                // The corridor changed end meanwhile: plan again from the new end.
                a.replanning = true;
                a.serial += 1;
                a.target_state = TargetState::Requesting;
                continue;
            }
            // The old corridor, then the new path after its first polygon (the old end).
            let mut res: Vec<PolyRef> = a.corridor.path().to_vec();
            res.extend_from_slice(&found[1..]);
            remove_trackbacks(&mut res);
            let last = res[res.len() - 1];
            let target = if last == a.target_ref {
                a.target_pos
            } else {
                // A partial path: the target moves inside its last polygon.
                match self.query.closest_point_on_poly(mesh, last, a.target_pos) {
                    Ok(c) => c.point,
                    Err(_) => a.corridor.target(),
                }
            };
            a.corridor.set_corridor(target, &res);
            a.boundary.reset();
            set_valid(a);
        }
    }

    /// 4. Topology optimisation: agents due (every [`TOPOLOGY_OPT_INTERVAL`]) longest
    ///    waiting first, then by id, at most `topology_opt_per_update` of them.
    fn update_topology_optimization(&mut self, mesh: &TiledNavMesh, dt: f64) {
        let mut due: Vec<(f64, u32)> = Vec::new();
        for (i, a) in self.agents.iter_mut().enumerate() {
            if a.state != AgentState::Walking
                || !matches!(a.target_state, TargetState::Valid)
                || !a
                    .params
                    .update_flags
                    .contains(UpdateFlags::OPTIMIZE_TOPOLOGY)
            {
                continue;
            }
            a.topology_opt_time += dt;
            if a.topology_opt_time >= TOPOLOGY_OPT_INTERVAL {
                due.push((a.topology_opt_time, i as u32));
            }
        }
        due.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        for &(_, i) in due.iter().take(self.settings.topology_opt_per_update) {
            let a = &mut self.agents[i as usize];
            let filter = a.params.filter;
            // A failed optimisation leaves the corridor as it was.
            let _ = a.corridor.optimize_path_topology(
                &mut self.query,
                mesh,
                &filter,
                TOPOLOGY_OPT_ITERATIONS,
            );
            a.topology_opt_time = 0.0;
        }
    }

    /// 5. Neighbours: every agent on the mesh registered in the proximity grid; each walking
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

    /// 6. Per walking agent: local boundary, corners, visibility optimisation, off-mesh link
    ///    trigger, steering, separation, avoidance.
    fn steer(&mut self, mesh: &TiledNavMesh, stats: &mut UpdateStats) {
        // Three passes, so that each reads every agent's state of the same phase: the
        // avoidance reads the neighbours' desired velocities of this update.
        for i in 0..self.agents.len() {
            if self.agents[i].state != AgentState::Walking {
                continue;
            }
            self.update_boundary(mesh, i);
            self.update_corners(mesh, i);
            self.trigger_link(mesh, i);
        }
        for i in 0..self.agents.len() {
            if self.agents[i].state == AgentState::Walking {
                self.desired_velocity(i);
            }
        }
        for i in 0..self.agents.len() {
            if self.agents[i].state == AgentState::Walking {
                self.separate(i);
            }
        }
        for i in 0..self.agents.len() {
            if self.agents[i].state == AgentState::Walking {
                stats.avoidance_samples += self.avoid(i);
            }
        }
    }

    fn update_boundary(&mut self, mesh: &TiledNavMesh, i: usize) {
        let a = &mut self.agents[i];
        let range = a.params.collision_query_range;
        let pos = a.nav.motion.position;
        let thr = range * 0.25;
        let moved = a
            .boundary
            .center
            .map_or(true, |c| dist_sqr_2d(c, pos) > thr * thr);
        if moved || !a.boundary.is_valid(mesh, &a.params.filter) {
            let filter = a.params.filter;
            let first = a.corridor.first_poly();
            if a.boundary
                .update(
                    &mut self.query,
                    mesh,
                    &filter,
                    first,
                    pos,
                    range,
                    &mut self.boundary_scratch,
                )
                .is_err()
            {
                a.boundary.reset();
            }
        }
    }

    fn update_corners(&mut self, mesh: &TiledNavMesh, i: usize) {
        let a = &mut self.agents[i];
        a.corners.clear();
        if !matches!(
            a.target_state,
            TargetState::Valid | TargetState::WaitingForPath | TargetState::Requesting
        ) {
            return;
        }
        let filter = a.params.filter;
        if a.corridor
            .find_corners(&mut self.query, mesh, &filter, &mut a.corners)
            .is_err()
        {
            a.corners.clear();
            return;
        }
        // Up to the first off-mesh departure, at most MAX_CORNERS.
        if let Some(k) = a
            .corners
            .iter()
            .position(|c| c.flags.contains(StraightPathFlags::OFF_MESH_CONNECTION))
        {
            a.corners.truncate(k + 1);
        }
        a.corners.truncate(MAX_CORNERS);
        if a.params
            .update_flags
            .contains(UpdateFlags::OPTIMIZE_VISIBILITY)
            && !a.corners.is_empty()
        {
            let next = a.corners[1.min(a.corners.len() - 1)].pos;
            let range = a.params.path_optimization_range;
            // A failed optimisation leaves the corridor as it was.
            let _ =
                a.corridor
                    .optimize_path_visibility(&mut self.query, mesh, &filter, next, range);
        }
    }

    /// Starts crossing an off-mesh link when the agent is within 2.25 radii of its
    /// departure and stands in the polygon it departs from.
    fn trigger_link(&mut self, mesh: &TiledNavMesh, i: usize) -> bool {
        let a = &mut self.agents[i];
        let Some(last) = a.corners.last() else {
            return false;
        };
        if !last.flags.contains(StraightPathFlags::OFF_MESH_CONNECTION) {
            return false;
        }
        let trigger = a.params.radius * 2.25;
        let pos = a.nav.motion.position;
        if dist_sqr_2d(pos, last.pos) >= trigger * trigger {
            return false;
        }
        let filter = a.params.filter;
        let Ok(Some((start, end))) = a.corridor.move_over_off_mesh_connection(mesh, &filter) else {
            return false;
        };
        begin_link(a, pos, start, end);
        a.corners.clear();
        a.neighbours.clear();
        true
    }

    fn desired_velocity(&mut self, i: usize) {
        let a = &mut self.agents[i];
        let factor = a.nav.motor.handler.speed_factor();
        let max_speed = a.params.max_speed * factor;
        let s = &mut a.nav.steering;
        match a.target_state {
            TargetState::Velocity => {
                a.dvel = [a.target_pos[0], 0.0, a.target_pos[2]];
                a.desired_speed = len_2d(a.dvel);
                s.target_direction = normalize_2d(a.dvel);
                s.distance_to_target = 0.0;
                s.line_of_sight = true;
            }
            _ if a.corners.is_empty() => {
                a.dvel = ZERO;
                a.desired_speed = 0.0;
                s.line_of_sight = false;
            }
            _ => {
                let pos = a.nav.motion.position;
                let dir = if a
                    .params
                    .update_flags
                    .contains(UpdateFlags::ANTICIPATE_TURNS)
                {
                    smooth_direction(pos, &a.corners)
                } else {
                    normalize_2d(sub(a.corners[0].pos, pos))
                };
                let last = a.corners[a.corners.len() - 1];
                let end = last.flags.contains(StraightPathFlags::END);
                let slow = a.params.radius * s.tuning.braking;
                let to_goal = if end {
                    dist_2d(pos, last.pos).min(slow)
                } else {
                    slow
                };
                let speed_scale = if slow > 0.0 { to_goal / slow } else { 1.0 };
                a.desired_speed = max_speed;
                a.dvel = scale(dir, max_speed * speed_scale * s.tuning.seek_weight);
                s.target_direction = dir;
                s.line_of_sight = end && a.corners.len() == 1;
                s.distance_to_target = dist_2d(pos, a.corridor.target());
            }
        }
    }

    fn separate(&mut self, i: usize) {
        let a = &self.agents[i];
        if !a.params.update_flags.contains(UpdateFlags::SEPARATION) {
            return;
        }
        let range = a.params.collision_query_range;
        let inv = 1.0 / range;
        let pos = a.nav.motion.position;
        let tuning = a.nav.steering.tuning;
        let group = a.nav.steering.movement_group;
        let weight = a.params.separation_weight * tuning.separation_weight;
        let mut disp = ZERO;
        let mut w = 0.0;
        for &(_, j) in &a.neighbours {
            let b = &self.agents[j as usize];
            let q = b.nav.motion.position;
            let diff = [pos[0] - q[0], 0.0, pos[2] - q[2]];
            let d2 = len_sqr(diff);
            if d2 < 0.00001 || d2 > range * range {
                continue;
            }
            let d = d2.sqrt();
            let factor = if group != 0 && b.nav.steering.movement_group == group {
                tuning.group_factor
            } else {
                tuning.avoid_factor
            };
            let t = d * inv;
            let wgt = weight * factor * (1.0 - t * t);
            disp = mad(disp, diff, wgt / d);
            w += 1.0;
        }
        if w > 0.0001 {
            let a = &mut self.agents[i];
            a.dvel = mad(a.dvel, disp, 1.0 / w);
            // The separation never speeds the agent above its desired speed.
            let sp2 = len_sqr(a.dvel);
            let des2 = a.desired_speed * a.desired_speed;
            if sp2 > des2 && sp2 > 0.0 {
                a.dvel = scale(a.dvel, des2 / sp2);
            }
        }
    }

    /// The new velocity: sampled among neighbours and walls, or the desired one. Returns
    /// the samples scored.
    fn avoid(&mut self, i: usize) -> u64 {
        let a = &self.agents[i];
        let AvoidanceType::Adaptive(quality) = a.params.avoidance else {
            self.agents[i].nvel = self.agents[i].dvel;
            return 0;
        };
        if !a
            .params
            .update_flags
            .contains(UpdateFlags::OBSTACLE_AVOIDANCE)
        {
            self.agents[i].nvel = self.agents[i].dvel;
            return 0;
        }
        let oa = &mut self.avoidance;
        oa.reset();
        let pos = a.nav.motion.position;
        for &(_, j) in &a.neighbours {
            let b = &self.agents[j as usize];
            oa.add_circle(
                b.nav.motion.position,
                b.params.radius,
                b.nav.motion.velocity,
                b.dvel,
            );
        }
        for &(_, s, e) in &a.boundary.segments {
            // Only walls facing the agent: OnePath polygons turn counter-clockwise in X/Z,
            // so the agent lies to the left of the walls in front of it.
            if tri_area_2d(pos, s, e) > 0.0 {
                continue;
            }
            oa.add_segment(s, e);
        }
        let params = AvoidanceParams::preset(quality);
        let vmax = a.desired_speed;
        let (nvel, n) = oa.sample_velocity_adaptive(
            &params,
            pos,
            a.params.radius,
            vmax,
            a.nav.motion.velocity,
            a.dvel,
        );
        self.agents[i].nvel = nvel;
        n as u64
    }

    /// 7. Integration: the velocity moves towards the new one by at most max acceleration
    ///    × dt, then the position by velocity × dt.
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

    /// 8. Collisions: [`COLLISION_ITERATIONS`] passes; each computes every walking agent's
    ///    push-out from its overlapping neighbours from the positions at the start of the
    ///    pass, then applies them all.
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

    /// 9. Move along the surface: the corridor walks to the new position, constrained by
    ///    walls; the agent takes the corridor's position (on the surface).
    fn move_on_surface(&mut self, mesh: &TiledNavMesh) {
        for a in &mut self.agents {
            if a.state != AgentState::Walking {
                continue;
            }
            let filter = a.params.filter;
            let want = a.nav.motion.position;
            match a
                .corridor
                .move_position(&mut self.query, mesh, &filter, want)
            {
                Ok(_) => a.nav.motion.position = a.corridor.pos(),
                Err(_) => a.nav.motion.position = a.corridor.pos(),
            }
            if matches!(
                a.target_state,
                TargetState::None | TargetState::Velocity | TargetState::NoPath
            ) {
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

    /// 10. Falls: gravity on falling agents; they land on the first polygon met under them,
    ///     or become invalid past the fall limit.
    fn update_falls(&mut self, mesh: &TiledNavMesh, dt: f64) {
        let ext = self.placement_extents;
        for a in &mut self.agents {
            if a.state != AgentState::Falling {
                continue;
            }
            let filter = a.params.filter;
            let fall = &mut a.nav.motor.handler.fall;
            fall.vertical_speed =
                (fall.vertical_speed + fall.gravity * dt).min(fall.max_fall_speed);
            let m = &mut a.nav.motion;
            let y0 = m.position[1];
            let mut pos = m.position;
            pos[0] += m.velocity[0] * dt;
            pos[2] += m.velocity[2] * dt;
            pos[1] = y0 - fall.vertical_speed * dt;
            if let Some(end) = fall.fall_end {
                // A drop link: straight over its arrival, never below it.
                pos[0] = end[0];
                pos[2] = end[2];
                pos[1] = pos[1].max(end[1]);
            }
            if let Some(end) = fall.fall_end {
                // A drop lands on the link's arrival, already the corridor's polygon.
                m.position = pos;
                if pos[1] <= end[1] {
                    m.position = end;
                    m.velocity = ZERO;
                    fall.falling = false;
                    fall.fall_end = None;
                    fall.vertical_speed = 0.0;
                    a.state = AgentState::Walking;
                    a.nav.motor.handler.mode = LocomotionKind::Move;
                    a.nav.motor.condition = TrekCondition::Grounded;
                    a.boundary.reset();
                }
                continue;
            }
            // Search the column swept this step (plus the placement box).
            let half_y = (y0 - pos[1]) * 0.5 + ext[1];
            let center = [pos[0], (y0 + pos[1]) * 0.5, pos[2]];
            let landed =
                match self
                    .query
                    .find_nearest_poly(mesh, center, [ext[0], half_y, ext[2]], &filter)
                {
                    Ok(Some(n)) if n.point[1] <= y0 + ext[1] => Some(n),
                    _ => None,
                };
            m.position = pos;
            if let Some(n) = landed {
                m.position = n.point;
                m.velocity = ZERO;
                a.corridor.reset(n.poly, n.point);
                a.boundary.reset();
                fall.falling = false;
                fall.fall_end = None;
                fall.vertical_speed = 0.0;
                a.state = AgentState::Walking;
                a.nav.motor.handler.mode = LocomotionKind::Move;
                a.nav.motor.condition = TrekCondition::Grounded;
                if matches!(
                    a.target_state,
                    TargetState::Valid | TargetState::WaitingForPath
                ) {
                    a.serial += 1;
                    a.target_state = TargetState::Requesting;
                }
            } else if fall.fall_start[1] - pos[1] > fall.max_fall_distance {
                fall.falling = false;
                a.state = AgentState::Invalid;
                a.nav.motor.condition = TrekCondition::Airborne;
            }
        }
    }

    /// 11. Off-mesh links: the traversal advances by dt; at its end the agent stands on the
    ///     arrival point and walks on.
    fn update_links(&mut self, dt: f64) {
        for a in &mut self.agents {
            if a.state != AgentState::OffMesh {
                continue;
            }
            let h = &mut a.nav.motor.handler;
            let (kind, t) = match (
                h.jump.and_then(|j| j.active),
                h.climb.and_then(|c| c.active),
            ) {
                (Some(t), _) => (LocomotionKind::Jump, t),
                (None, Some(t)) => (LocomotionKind::Climb, t),
                (None, None) => {
                    a.state = AgentState::Walking;
                    continue;
                }
            };
            let mut t = t;
            t.elapsed += dt;
            let arc = h.jump.map_or(0.0, |j| j.arc_per_length);
            let done = t.elapsed >= t.duration;
            let pos = if done {
                t.end
            } else {
                traversal_point(kind, &t, arc)
            };
            a.nav.motion.velocity = ZERO;
            a.dvel = ZERO;
            a.nav.motion.position = pos;
            let slot = match kind {
                LocomotionKind::Jump => h.jump.as_mut().map(|j| &mut j.active),
                _ => h.climb.as_mut().map(|c| &mut c.active),
            };
            if let Some(slot) = slot {
                *slot = if done { None } else { Some(t) };
            }
            if done {
                if let Some(j) = h.jump.as_mut() {
                    if kind == LocomotionKind::Jump {
                        j.cooldown_left = j.cooldown;
                    }
                }
                h.mode = LocomotionKind::Move;
                a.state = AgentState::Walking;
                a.nav.motor.condition = TrekCondition::Grounded;
                a.boundary.reset();
            }
        }
    }

    /// 12. Motion: speed, acceleration, heading (turning at its rate), arrival, stuck
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
                r.waypoint_index = a.corridor.path().len() as u32;
            }
            if a.target_state == TargetState::Valid && a.state == AgentState::Walking {
                let d = dist_2d(m.position, a.corridor.target());
                s.distance_to_target = d;
                s.destination = a.corridor.target();
                let arrived = a.corridor.last_poly() == a.target_ref
                    && d <= a.params.radius * s.tuning.stop_multiplier;
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

/// The agent's corridor is set for its target: the target is valid.
fn set_valid(a: &mut Agent) {
    a.target_state = TargetState::Valid;
    a.target_replan_time = 0.0;
    a.nav.motion.guided = true;
    if let Some(r) = a.nav.steering.request.as_mut() {
        r.guide_active = true;
        r.waypoint_index = 0;
    }
    a.nav.steering.destination = a.corridor.target();
}

/// The filter of a request: the agent's, with the walkability override as include flags.
fn request_filter(base: &QueryFilter, r: &PathRequest) -> QueryFilter {
    let mut f = *base;
    if let Some(flags) = r.walkability_override {
        f.set_include_flags(flags);
    }
    f
}

fn poly_usable(mesh: &TiledNavMesh, r: PolyRef, filter: &QueryFilter) -> bool {
    !r.is_null()
        && mesh.is_valid_poly_ref(r)
        && mesh.poly_flags(r).is_ok_and(|f| filter.passes_flags(f))
}

fn reset_target(a: &mut Agent) {
    a.target_state = TargetState::None;
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
    s.request = None;
    a.nav.motion.guided = false;
}

/// Removes `a b a` back-and-forths from a corridor.
fn remove_trackbacks(path: &mut Vec<PolyRef>) {
    let mut j = 1;
    while j + 1 < path.len() {
        if path[j - 1] == path[j + 1] {
            path.drain(j..j + 2);
            j = j.saturating_sub(1).max(1);
        } else {
            j += 1;
        }
    }
}

/// Steering with the turn in view: towards the first corner, pulled away from the second.
fn smooth_direction(pos: Vec3, corners: &[onepath_mesh::query::StraightPathPoint]) -> Vec3 {
    let p0 = corners[0].pos;
    let p1 = corners[1.min(corners.len() - 1)].pos;
    let d0 = [p0[0] - pos[0], 0.0, p0[2] - pos[2]];
    let mut d1 = [p1[0] - pos[0], 0.0, p1[2] - pos[2]];
    let (l0, l1) = (len_2d(d0), len_2d(d1));
    if l1 > 0.001 {
        d1 = scale(d1, 1.0 / l1);
    }
    normalize_2d([d0[0] - d1[0] * l0 * 0.5, 0.0, d0[2] - d1[2] * l0 * 0.5])
}

/// Begins the crossing of a link from `init` via `start` to `end`: a climb when it rises
/// more than the climb height, a drop (a fall) when it falls more than the agent's height,
/// otherwise a jump; without the mode installed, a jump's timing on a straight line.
fn begin_link(a: &mut Agent, init: Vec3, start: Vec3, end: Vec3) {
    let h = &mut a.nav.motor.handler;
    let rise = end[1] - start[1];
    let speed = a.params.max_speed.max(0.01);
    let flat = dist_2d(start, end);
    a.nav.motor.condition = TrekCondition::OnLink;
    if let Some(c) = h.climb.as_mut().filter(|c| rise > c.min_height) {
        let duration = (rise / c.speed.max(0.01) + flat / speed).max(0.01);
        c.active = Some(LinkTraversal {
            init_pos: init,
            start,
            end,
            elapsed: 0.0,
            duration,
        });
        h.mode = LocomotionKind::Climb;
        a.state = AgentState::OffMesh;
        return;
    }
    if -rise > a.params.height && h.jump.is_none() {
        // A drop: the agent falls from the departure to the arrival.
        a.nav.motion.position = start;
        a.nav.motion.velocity = ZERO;
        start_fall(a, Some(end));
        return;
    }
    // Detour's timing: half the time of walking the link, 15 % of it to reach the start.
    let duration = (flat / speed * 0.5).max(0.01);
    let t = LinkTraversal {
        init_pos: init,
        start,
        end,
        elapsed: 0.0,
        duration,
    };
    match h.jump.as_mut() {
        Some(j) => j.active = Some(t),
        None => {
            // No jump mode: the Move mode crosses the link on the straight line.
            h.jump = Some(crate::navigator::JumpLocomotion {
                arc_per_length: 0.0,
                cooldown: 0.0,
                active: Some(t),
                cooldown_left: 0.0,
            });
        }
    }
    h.mode = LocomotionKind::Jump;
    a.state = AgentState::OffMesh;
}

fn start_fall(a: &mut Agent, end: Option<Vec3>) {
    let fall = &mut a.nav.motor.handler.fall;
    fall.falling = true;
    fall.fall_start = a.nav.motion.position;
    fall.fall_end = end;
    fall.vertical_speed = 0.0;
    a.nav.motor.handler.mode = LocomotionKind::Fall;
    a.nav.motor.condition = TrekCondition::Airborne;
    a.state = AgentState::Falling;
    a.boundary.reset();
    a.neighbours.clear();
}

/// The point of a traversal: the first 15 % of the time to the departure, then along the
/// link (a jump with an arc of `arc` per unit of length; a climb up first, then across).
fn traversal_point(kind: LocomotionKind, t: &LinkTraversal, arc: f64) -> Vec3 {
    let ta = t.duration * 0.15;
    if t.elapsed < ta {
        return lerp(t.init_pos, t.start, t.elapsed / ta);
    }
    let u = ((t.elapsed - ta) / (t.duration - ta)).clamp(0.0, 1.0);
    match kind {
        LocomotionKind::Climb => {
            let rise = t.end[1] - t.start[1];
            let flat = dist_2d(t.start, t.end);
            let total = rise + flat;
            let s = u * total;
            if s < rise || flat == 0.0 {
                [t.start[0], t.start[1] + s.min(rise), t.start[2]]
            } else {
                let top = [t.start[0], t.end[1], t.start[2]];
                lerp(top, t.end, (s - rise) / flat)
            }
        }
        _ => {
            let mut p = lerp(t.start, t.end, u);
            p[1] += arc * dist_2d(t.start, t.end) * 4.0 * u * (1.0 - u);
            p
        }
    }
}

/// Turns heading `from` towards `to` by at most `max_step` radians (a rate of 0 turns at
/// once); the result lies in (−π, π].
fn turn_towards(from: f64, to: f64, max_step: f64, rate: f64) -> f64 {
    use core::f64::consts::{PI, TAU};
    let mut d = libm::remainder(to - from, TAU);
    if d <= -PI {
        d += TAU;
    }
    let step = if rate <= 0.0 || d.abs() <= max_step {
        d
    } else {
        max_step.copysign(d)
    };
    let mut r = libm::remainder(from + step, TAU);
    if r <= -PI {
        r += TAU;
    }
    r
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
