//! The records of the agent (its navigator's transform and motion), the steering session,
//! the path request and turning, and the load of an agent record into an existing shell
//! (`docs/agent-records.md`, "Load into a shell").

use onepath_format::{FormatError, PolyRef};

use crate::agent::{Agent, AgentState, GridGuide, TargetState};
use crate::crowd::{request_filter, reset_target, set_valid, Crowd};
use crate::error::CrowdError;
use crate::geom::dist_2d;
use crate::navigator::{
    AgentId, LocomotionKind, PathRequest, PathRequestKind, RequestSettings, Steering,
    SteeringTuning, TravelMode, Turning,
};
use crate::world::WorldContext;
use onepath_gridstate::ReplanAlgorithm;

use super::locomotion::{load_motor, save_motor};
use super::{broken, Reader, Record, Value, Writer};

/// The version of the agent record's field set (a payload of an older set loads: the
/// fields it lacks take their defaults).
pub const AGENT_RECORD_VERSION: u32 = 1;

const ZERO: [f64; 3] = [0.0; 3];

/// Canonical defaults of the agent record (an agent of [`crate::AgentParams::default`]).
const RADIUS: f64 = 0.6;
const HEIGHT: f64 = 2.0;
const STUCK_THRESHOLD: f64 = 3.5 * 0.05;
/// The default request's unit size: the default radius.
const UNIT_SIZE: f64 = RADIUS;

fn kind_code(k: PathRequestKind) -> u32 {
    match k {
        PathRequestKind::NavMesh => 0,
        PathRequestKind::GridAStar => 1,
        PathRequestKind::FlowField => 2,
        PathRequestKind::Voxel => 3,
        PathRequestKind::Hybrid => 4,
        PathRequestKind::GridReplan => 5,
    }
}

fn kind_of(c: u32) -> PathRequestKind {
    match c {
        0 => PathRequestKind::NavMesh,
        1 => PathRequestKind::GridAStar,
        2 => PathRequestKind::FlowField,
        3 => PathRequestKind::Voxel,
        4 => PathRequestKind::Hybrid,
        _ => PathRequestKind::GridReplan,
    }
}

/// The path request's record; its settings follow its kind.
fn save_request(w: &mut Writer<'_>, r: &PathRequest) {
    w.u32("kind", kind_code(r.kind), 0);
    w.vec3("origin", r.origin, ZERO);
    w.vec3("target", r.target, ZERO);
    w.f64("unit_size", r.unit_size, UNIT_SIZE);
    if let Some(f) = r.walkability_override {
        let p = w.path("walkability_override");
        w.rec.entries.insert(p, Value::U32(u32::from(f)));
    }
    w.f64("max_search_range", r.max_search_range, 0.0);
    match r.settings {
        RequestSettings::NavMesh { max_iterations } => w.u64("max_iterations", max_iterations, 0),
        RequestSettings::GridAStar { heuristic_weight } => {
            w.f64("heuristic_weight", heuristic_weight, 1.0)
        }
        RequestSettings::FlowField { extra_flood_range } => {
            w.u32("extra_flood_range", extra_flood_range, 0)
        }
        RequestSettings::Voxel { max_climb_height } => {
            w.f64("max_climb_height", max_climb_height, 0.0)
        }
        RequestSettings::Hybrid { switch_distance } => {
            w.f64("switch_distance", switch_distance, 0.0)
        }
        RequestSettings::GridReplan { algorithm } => w.u32(
            "algorithm",
            algorithm as u32,
            ReplanAlgorithm::DStarLite as u32,
        ),
    }
    w.bool("guide_active", r.guide_active, false);
    w.u32("waypoint_index", r.waypoint_index, 0);
    w.u32("context_id", r.context_id, 0);
}

/// A setting whose only value is 0 (`docs/agent-records.md`, "Path request"): another is
/// a format error naming it.
fn zero<T: Copy + PartialEq + Default + std::fmt::Display>(
    r: &Reader<'_>,
    name: &str,
    v: T,
) -> Result<T, FormatError> {
    if v == T::default() {
        Ok(v)
    } else {
        Err(broken(format!(
            "{} = {v} is not 0 (the search has no such bound)",
            r.path(name)
        )))
    }
}

fn load_request(r: &Reader<'_>) -> Result<PathRequest, FormatError> {
    let kind = kind_of(r.code("kind", 0, 6)?);
    let walkability_override = match r.look("walkability_override") {
        None => None,
        Some(_) => {
            let f = r.u32("walkability_override", 0)?;
            Some(u16::try_from(f).map_err(|_| {
                broken(format!(
                    "{}walkability_override = {f} is above 65535",
                    r.prefix
                ))
            })?)
        }
    };
    let settings = match kind {
        PathRequestKind::NavMesh => RequestSettings::NavMesh {
            max_iterations: r.u64("max_iterations", 0)?,
        },
        PathRequestKind::GridAStar => RequestSettings::GridAStar {
            heuristic_weight: r.non_negative("heuristic_weight", 1.0)?,
        },
        PathRequestKind::FlowField => RequestSettings::FlowField {
            extra_flood_range: zero(r, "extra_flood_range", r.u32("extra_flood_range", 0)?)?,
        },
        PathRequestKind::Voxel => RequestSettings::Voxel {
            max_climb_height: zero(
                r,
                "max_climb_height",
                r.non_negative("max_climb_height", 0.0)?,
            )?,
        },
        PathRequestKind::Hybrid => RequestSettings::Hybrid {
            switch_distance: r.non_negative("switch_distance", 0.0)?,
        },
        PathRequestKind::GridReplan => RequestSettings::GridReplan {
            algorithm: match r.code("algorithm", ReplanAlgorithm::DStarLite as u32, 2)? {
                0 => ReplanAlgorithm::LpaStar,
                _ => ReplanAlgorithm::DStarLite,
            },
        },
    };
    Ok(PathRequest {
        kind,
        origin: r.vec3("origin", ZERO)?,
        target: r.vec3("target", ZERO)?,
        unit_size: r.non_negative("unit_size", UNIT_SIZE)?,
        walkability_override,
        max_search_range: r.non_negative("max_search_range", 0.0)?,
        settings,
        guide_active: r.bool("guide_active", false)?,
        waypoint_index: r.u32("waypoint_index", 0)?,
        context_id: r.u32("context_id", 0)?,
    })
}

fn travel_code(t: TravelMode) -> u32 {
    match t {
        TravelMode::Idle => 0,
        TravelMode::Path => 1,
        TravelMode::Velocity => 2,
    }
}

/// The steering session's record. `move_velocity` is the velocity a velocity target asks
/// for (the agent's, not a steering field of its own).
fn save_steering(w: &mut Writer<'_>, s: &Steering, move_velocity: [f64; 3]) {
    let d = Steering::default();
    w.bool("should_move", s.should_move, d.should_move);
    w.bool("is_stuck", s.is_stuck, d.is_stuck);
    w.bool("at_destination", s.at_destination, d.at_destination);
    w.bool("line_of_sight", s.line_of_sight, d.line_of_sight);
    w.vec3("destination", s.destination, d.destination);
    w.vec3(
        "requested_destination",
        s.requested_destination,
        d.requested_destination,
    );
    w.vec3("target_direction", s.target_direction, d.target_direction);
    w.f64(
        "distance_to_target",
        s.distance_to_target,
        d.distance_to_target,
    );
    w.deep("tuning", |w| {
        let t = &s.tuning;
        let d = SteeringTuning::default();
        w.f64("stop_multiplier", t.stop_multiplier, d.stop_multiplier);
        w.f64("group_factor", t.group_factor, d.group_factor);
        w.f64("avoid_factor", t.avoid_factor, d.avoid_factor);
        w.f64("seek_weight", t.seek_weight, d.seek_weight);
        w.f64(
            "separation_weight",
            t.separation_weight,
            d.separation_weight,
        );
        w.f64("braking", t.braking, d.braking);
    });
    w.f64("repath_cooldown", s.repath_cooldown, d.repath_cooldown);
    w.f64("stuck_time", s.stuck_time, d.stuck_time);
    w.u32("stuck_count", s.stuck_count, d.stuck_count);
    w.u32("repath_count", s.repath_count, d.repath_count);
    w.bool("auto_stop", s.auto_stop, d.auto_stop);
    w.u32("movement_group", s.movement_group, d.movement_group);
    w.u32("travel_mode", travel_code(s.travel_mode), 0);
    w.vec3("move_velocity", move_velocity, ZERO);
    // A nullable deep field: always written, so that a loaded "none" clears the shell's.
    match &s.request {
        Some(r) => w.deep("request", |w| save_request(w, r)),
        None => {
            let p = w.path("request");
            w.rec.entries.insert(p, Value::Bool(false));
        }
    }
}

/// The steering session as loaded, and the velocity of a velocity target.
fn load_steering(r: &Reader<'_>, shell: &Steering) -> Result<(Steering, [f64; 3]), FormatError> {
    let d = Steering::default();
    let tuning = match r.deep("tuning")? {
        Some(t) => {
            let d = SteeringTuning::default();
            SteeringTuning {
                stop_multiplier: t.non_negative("stop_multiplier", d.stop_multiplier)?,
                group_factor: t.f64("group_factor", d.group_factor)?,
                avoid_factor: t.f64("avoid_factor", d.avoid_factor)?,
                seek_weight: t.f64("seek_weight", d.seek_weight)?,
                separation_weight: t.f64("separation_weight", d.separation_weight)?,
                braking: t.non_negative("braking", d.braking)?,
            }
        }
        None => shell.tuning,
    };
    let request = match r.look("request") {
        Some((_, Value::Bool(false))) => None,
        _ => match r.deep("request")? {
            Some(b) => Some(load_request(&b)?),
            None => shell.request,
        },
    };
    let travel_mode = match r.code("travel_mode", 0, 3)? {
        0 => TravelMode::Idle,
        1 => TravelMode::Path,
        _ => TravelMode::Velocity,
    };
    Ok((
        Steering {
            should_move: r.bool("should_move", d.should_move)?,
            is_stuck: r.bool("is_stuck", d.is_stuck)?,
            at_destination: r.bool("at_destination", d.at_destination)?,
            line_of_sight: r.bool("line_of_sight", d.line_of_sight)?,
            destination: r.vec3("destination", d.destination)?,
            requested_destination: r.vec3("requested_destination", d.requested_destination)?,
            target_direction: r.vec3("target_direction", d.target_direction)?,
            distance_to_target: r.non_negative("distance_to_target", d.distance_to_target)?,
            tuning,
            repath_cooldown: r.non_negative("repath_cooldown", d.repath_cooldown)?,
            stuck_time: r.non_negative("stuck_time", d.stuck_time)?,
            stuck_count: counter(r, "stuck_count")?,
            repath_count: counter(r, "repath_count")?,
            auto_stop: r.bool("auto_stop", d.auto_stop)?,
            movement_group: r.u32("movement_group", d.movement_group)?,
            travel_mode,
            request,
        },
        r.vec3("move_velocity", ZERO)?,
    ))
}

/// A counter the crowd adds one to: below 2^31 (no history reaches it).
fn counter(r: &Reader<'_>, name: &str) -> Result<u32, FormatError> {
    let n = r.u32(name, 0)?;
    if n >= 1 << 31 {
        return Err(broken(format!(
            "{}{name} = {n} is at or past 2^31",
            r.prefix
        )));
    }
    Ok(n)
}

fn save_turning(w: &mut Writer<'_>, t: &Turning) {
    let d = Turning::default();
    w.bool("can_turn", t.can_turn, d.can_turn);
    w.f64("turn_rate", t.turn_rate, d.turn_rate);
}

fn load_turning(r: &Reader<'_>) -> Result<Turning, FormatError> {
    let d = Turning::default();
    Ok(Turning {
        can_turn: r.bool("can_turn", d.can_turn)?,
        turn_rate: r.non_negative("turn_rate", d.turn_rate)?,
        // Buffered turn state is rebuilt after the load, never read.
        target_rotation: None,
    })
}

fn life_code(s: AgentState) -> u32 {
    match s {
        AgentState::Invalid => 0,
        AgentState::Walking => 1,
        AgentState::OffMesh => 2,
        AgentState::Falling => 3,
        AgentState::Flying => 4,
    }
}

/// The agent's record: the navigator's transform and motion as values, the deep
/// `steering`, `turning` and `motor`.
fn save_agent(w: &mut Writer<'_>, a: &Agent) {
    let m = &a.nav.motion;
    w.u32("version", AGENT_RECORD_VERSION, AGENT_RECORD_VERSION);
    w.u32("state", life_code(a.state), 1);
    w.vec3("position", m.position, ZERO);
    w.vec3("last_position", m.last_position, ZERO);
    w.f64("rotation", m.rotation, 0.0);
    w.vec3("velocity", m.velocity, ZERO);
    w.f64("speed", m.speed, 0.0);
    w.f64("acceleration", m.acceleration, 0.0);
    w.f64("radius", m.size[0], RADIUS);
    w.f64("height", m.size[1], HEIGHT);
    w.f64("foot_offset", m.foot_offset, 0.0);
    w.u32("group_id", m.group_id, 0);
    w.bool("locked_on", m.locked_on, false);
    w.f64(
        "stuck_threshold_speed",
        m.stuck_threshold_speed,
        STUCK_THRESHOLD,
    );
    w.bool("guided", m.guided, false);
    let velocity_target = if a.target_state == TargetState::Velocity {
        a.target_pos
    } else {
        ZERO
    };
    w.deep("steering", |w| {
        save_steering(w, &a.nav.steering, velocity_target)
    });
    w.deep("turning", |w| save_turning(w, &a.nav.turning));
    w.deep("motor", |w| save_motor(w, &a.nav.motor));
    if !a.nav.grounding.is_default_settings() {
        w.deep("grounding", |w| {
            super::grounding::save_grounding(w, &a.nav.grounding)
        });
    }
}

impl Crowd {
    /// The record of agent `id` (`docs/agent-records.md`): authoritative state only, values
    /// equal to their canonical defaults left out. [`CrowdError::UnknownAgent`] when the
    /// crowd has no such agent.
    pub fn save_agent_record(&self, id: AgentId) -> Result<Record, CrowdError> {
        let a = self.agent(id).ok_or(CrowdError::UnknownAgent(id))?;
        let mut rec = Record::new();
        save_agent(&mut Writer::root(&mut rec), a);
        Ok(rec)
    }

    /// Loads `record` into the existing agent `id` (the shell the host created and bound
    /// to `world`): values missing from the record take their canonical defaults, deep
    /// branches missing keep the shell's, present ones are loaded whole. Derived values are
    /// rebuilt (the buffered turn, the parameters' radius and height from the size, the
    /// boundary, neighbours and corners), and the guide is re-acquired from the recorded
    /// request (a navmesh corridor from where the agent stands, at once when the search
    /// completes within the crowd's request limit, else by a request on the next update; a
    /// grid guide by a request on the next update, from the request's origin cell, its
    /// waypoint progress restored when the path arrives).
    ///
    /// Fails closed: a value out of range ([`CrowdError::State`] naming the field's path), a
    /// request of a kind the crowd does not serve ([`CrowdError::UnsupportedRequest`]), a
    /// grid, platform or mesh id the world lacks ([`CrowdError::UnknownContext`]), a grid
    /// target off its grid ([`CrowdError::OffGrid`]), a walking agent with no polygon under
    /// it ([`CrowdError::OffMesh`]): the agent keeps its shell state with its steering
    /// session cleared (idle: no target, no request), never half-loaded.
    pub fn load_agent_record(
        &mut self,
        world: &WorldContext<'_>,
        id: AgentId,
        record: &Record,
    ) -> Result<(), CrowdError> {
        // A context out of order changes nothing (not even the shell's steering).
        world.check_order()?;
        let i = self
            .agents
            .binary_search_by_key(&id, |a| a.id())
            .map_err(|_| CrowdError::UnknownAgent(id))?;
        match self.stage_agent(world, i, record) {
            Ok(a) => {
                self.agents[i] = a;
                Ok(())
            }
            Err(e) => {
                let a = &mut self.agents[i];
                reset_target(a);
                a.nav.steering = Steering {
                    tuning: a.nav.steering.tuning,
                    ..Steering::default()
                };
                Err(e)
            }
        }
    }

    /// The agent `i` with `record` loaded, built aside.
    fn stage_agent(
        &mut self,
        world: &WorldContext<'_>,
        i: usize,
        record: &Record,
    ) -> Result<Agent, CrowdError> {
        let shell = &self.agents[i];
        let mut a = shell.clone();
        let r = Reader::root(record);
        let st = CrowdError::State;
        let version = r.u32("version", AGENT_RECORD_VERSION).map_err(st)?;
        if version > AGENT_RECORD_VERSION {
            return Err(st(broken(format!(
                "version {version} is newer than this reader's {AGENT_RECORD_VERSION}"
            ))));
        }
        a.state = match r.code("state", 1, 5).map_err(st)? {
            0 => AgentState::Invalid,
            1 => AgentState::Walking,
            2 => AgentState::OffMesh,
            3 => AgentState::Falling,
            _ => AgentState::Flying,
        };
        let m = &mut a.nav.motion;
        m.position = r.vec3("position", ZERO).map_err(st)?;
        m.last_position = r.vec3("last_position", ZERO).map_err(st)?;
        m.rotation = r.f64("rotation", 0.0).map_err(st)?;
        m.velocity = r.vec3("velocity", ZERO).map_err(st)?;
        m.speed = r.non_negative("speed", 0.0).map_err(st)?;
        m.acceleration = r.f64("acceleration", 0.0).map_err(st)?;
        m.size = [
            r.positive("radius", RADIUS).map_err(st)?,
            r.positive("height", HEIGHT).map_err(st)?,
        ];
        m.foot_offset = r.f64("foot_offset", 0.0).map_err(st)?;
        m.group_id = r.u32("group_id", 0).map_err(st)?;
        m.locked_on = r.bool("locked_on", false).map_err(st)?;
        m.stuck_threshold_speed = r
            .non_negative("stuck_threshold_speed", STUCK_THRESHOLD)
            .map_err(st)?;
        m.guided = r.bool("guided", false).map_err(st)?;
        let mut velocity_target = ZERO;
        if let Some(b) = r.deep("steering").map_err(st)? {
            let (s, v) = load_steering(&b, &shell.nav.steering).map_err(st)?;
            a.nav.steering = s;
            velocity_target = v;
        }
        if let Some(b) = r.deep("turning").map_err(st)? {
            a.nav.turning = load_turning(&b).map_err(st)?;
        }
        if let Some(b) = r.deep("motor").map_err(st)? {
            a.nav.motor = load_motor(&b, &shell.nav.motor).map_err(st)?;
        }
        if let Some(b) = r.deep("grounding").map_err(st)? {
            a.nav.grounding = super::grounding::load_grounding(&b).map_err(st)?;
        }
        // Derived values, rebuilt.
        a.params.radius = a.nav.motion.size[0];
        a.params.height = a.nav.motion.size[1];
        a.params.validate()?;
        a.nav.turning.target_rotation =
            crate::snapshot::rebuilt_turn(a.nav.turning.can_turn, &a.nav.motion);
        a.boundary.reset();
        a.neighbours.clear();
        a.corners.clear();
        a.desired_speed = 0.0;
        a.dvel = ZERO;
        a.nvel = ZERO;
        a.disp = ZERO;
        a.replanning = false;
        a.topology_opt_time = 0.0;
        a.target_replan_time = 0.0;
        self.check_context(world, &a)?;
        self.place(world, &mut a)?;
        self.reacquire(world, &mut a, velocity_target)?;
        Ok(a)
    }

    /// Every context id the loaded agent names must be in `world`.
    fn check_context(&self, world: &WorldContext<'_>, a: &Agent) -> Result<(), CrowdError> {
        let agent = a.id();
        if let Some(p) = a.nav.motor.handler.platform.and_then(|p| p.attached) {
            if world.platform(p).is_none() {
                return Err(CrowdError::UnknownContext {
                    agent,
                    what: "platform",
                    id: p,
                });
            }
        }
        if let Some(req) = &a.nav.steering.request {
            match req.kind {
                PathRequestKind::NavMesh if req.context_id != 0 => {
                    return Err(CrowdError::UnknownContext {
                        agent,
                        what: "mesh",
                        id: req.context_id,
                    })
                }
                PathRequestKind::NavMesh => {}
                PathRequestKind::GridAStar => {
                    if world.grid(req.context_id).is_none() {
                        return Err(CrowdError::UnknownContext {
                            agent,
                            what: "grid",
                            id: req.context_id,
                        });
                    }
                }
                PathRequestKind::FlowField
                | PathRequestKind::Hybrid
                | PathRequestKind::GridReplan => {
                    if world.grid(req.context_id).is_none() {
                        return Err(CrowdError::UnknownContext {
                            agent,
                            what: "grid",
                            id: req.context_id,
                        });
                    }
                }
                PathRequestKind::Voxel => {
                    if world.voxel(req.context_id).is_none() {
                        return Err(CrowdError::UnknownContext {
                            agent,
                            what: "voxel grid",
                            id: req.context_id,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The corridor of the loaded agent: the polygon under it (walking), at the arrival of
    /// its traversal (crossing a link) or of its drop (falling down a link).
    fn place(&mut self, world: &WorldContext<'_>, a: &mut Agent) -> Result<(), CrowdError> {
        let h = &a.nav.motor.handler;
        let traversal = match h.mode {
            LocomotionKind::Jump => h.jump.and_then(|j| j.active),
            LocomotionKind::Climb => h.climb.and_then(|c| c.active),
            _ => None,
        };
        let at = match a.state {
            AgentState::Walking => Some(a.nav.motion.position),
            AgentState::OffMesh => match traversal {
                Some(t) => Some(t.end),
                None => {
                    return Err(CrowdError::State(broken(
                        "state is OffMesh but the mode in control has no traversal",
                    )))
                }
            },
            AgentState::Falling => {
                if !h.fall.falling {
                    return Err(CrowdError::State(broken(
                        "state is Falling but motor.handler.fall.falling is false",
                    )));
                }
                h.fall.fall_end
            }
            AgentState::Flying if h.mode != LocomotionKind::Fly => {
                return Err(CrowdError::State(broken(
                    "state is Flying but the mode in control is not Fly",
                )))
            }
            AgentState::Invalid | AgentState::Flying => None,
        };
        let Some(p) = at else {
            return Ok(());
        };
        // The filter of the recorded request (its override included), as the update uses.
        let filter = a.corridor_filter();
        let near = self
            .query
            .find_nearest_poly(world.mesh, p, self.placement_extents, &filter)?
            .ok_or(CrowdError::OffMesh {
                x: p[0],
                y: p[1],
                z: p[2],
            })?;
        a.corridor.reset(near.poly, near.point);
        if a.state == AgentState::Walking {
            a.nav.motion.position = near.point;
        }
        Ok(())
    }

    /// The guide, re-acquired from the recorded request (never read from the record).
    fn reacquire(
        &mut self,
        world: &WorldContext<'_>,
        a: &mut Agent,
        velocity_target: [f64; 3],
    ) -> Result<(), CrowdError> {
        a.grid = None;
        a.guide = None;
        a.serial += 1;
        a.target_ref = PolyRef::NULL;
        a.target_pos = ZERO;
        let s = &a.nav.steering;
        let request = s
            .request
            .filter(|_| s.should_move && s.travel_mode == TravelMode::Path);
        if s.should_move && s.travel_mode == TravelMode::Velocity {
            a.target_state = TargetState::Velocity;
            a.target_pos = velocity_target;
            return Ok(());
        }
        let Some(req) = request else {
            a.target_state = TargetState::None;
            return Ok(());
        };
        a.target_state = TargetState::Requesting;
        if matches!(
            req.kind,
            PathRequestKind::FlowField
                | PathRequestKind::Voxel
                | PathRequestKind::Hybrid
                | PathRequestKind::GridReplan
        ) && !self.reacquire_guide(world, a, &req)?
        {
            return Ok(());
        }
        if req.kind == PathRequestKind::GridAStar || req.kind == PathRequestKind::Hybrid {
            let Some(grid) = world.grid(req.context_id) else {
                return Err(CrowdError::UnknownContext {
                    agent: a.id(),
                    what: "grid",
                    id: req.context_id,
                });
            };
            let off = CrowdError::OffGrid {
                grid: req.context_id,
                x: req.target[0],
                z: req.target[2],
            };
            let cell = |p: [f64; 3]| match grid.space().cell_at(p[0], p[2]) {
                Some((x, y))
                    if x >= 0
                        && y >= 0
                        && x < i64::from(grid.width())
                        && y < i64::from(grid.height()) =>
                {
                    Some((x as u32, y as u32))
                }
                _ => None,
            };
            let goal = cell(req.target)
                .filter(|&(x, y)| grid.is_walkable(i64::from(x), i64::from(y)))
                .ok_or(off)?;
            let (cx, cz) = grid.space().cell_center(goal.0, goal.1);
            a.target_pos = [cx, req.target[1], cz];
            a.grid = Some(GridGuide {
                grid_id: req.context_id,
                goal,
                waypoints: Vec::new(),
                next: 0,
                start: cell(req.origin),
                resume: req.guide_active.then_some(req.waypoint_index as usize),
            });
            return Ok(());
        }
        // A navmesh corridor: a new path from where the agent stands.
        let filter = request_filter(&a.params.filter, &req);
        let mesh = world.mesh;
        let Some(n) =
            self.query
                .find_nearest_poly(mesh, req.target, self.placement_extents, &filter)?
        else {
            // No polygon at the target: the next update reports no path.
            return Ok(());
        };
        a.target_ref = n.poly;
        a.target_pos = n.point;
        if a.state != AgentState::Walking {
            // Mid link or falling: planned when the agent walks again (next update).
            return Ok(());
        }
        if req.max_search_range > 0.0 && dist_2d(req.origin, n.point) > req.max_search_range {
            // Beyond the request's range: the next update reports no path, as it does for
            // a live request.
            return Ok(());
        }
        // The request's own iteration limit caps the search, as in the queue.
        let limit = match req.settings {
            RequestSettings::NavMesh { max_iterations } if max_iterations > 0 => {
                max_iterations.min(self.settings.max_request_iterations)
            }
            _ => self.settings.max_request_iterations,
        };
        let (first, pos) = (a.corridor.first_poly(), a.corridor.pos());
        let mut path = Vec::new();
        let found = self
            .query
            .find_path(mesh, first, n.poly, pos, n.point, &filter, limit, &mut path);
        if found.is_ok() && path.last() == Some(&n.poly) {
            a.corridor.set_corridor(n.point, &path);
            set_valid(a);
        }
        Ok(())
    }
}
