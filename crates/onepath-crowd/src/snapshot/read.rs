//! The ONCS reader: parse and validate every field (counts checked against the bytes that
//! remain before anything is allocated, every number finite, every enum in range, every
//! rule of `docs/agent-records.md`), building the crowd's parts aside; nothing here touches
//! a live crowd.

use onepath_format::bytes::ByteReader;
use onepath_format::{FormatError, PolyRef, COORD_BOUND};
use onepath_mesh::query::{PathCorridor, QueryFilter, Vec3};

use crate::agent::{Agent, AgentState, GridGuide, TargetState};
use crate::boundary::LocalBoundary;
use crate::crowd::CrowdSettings;
use crate::navigator::{
    AgentId, ClimbLocomotion, FallLocomotion, FlyLocomotion, JumpLocomotion, LinkTraversal,
    LocomotionHandler, LocomotionKind, Motion, Motor, MoveLocomotion, Navigator, PathRequest,
    PathRequestKind, PlatformLocomotion, RequestSettings, SlideLocomotion, Steering,
    SteeringTuning, TravelMode, TrekCondition, Turning, WaterLocomotion,
};
use crate::params::{AgentParams, AvoidanceQuality, AvoidanceType, UpdateFlags};
use crate::queue::QueuedRequest;

use super::{ONCS_MAGIC, ONCS_VERSION};

/// The format name in [`FormatError::State`].
pub(super) const FORMAT: &str = "crowd";

/// Counters past this bound are refused (the live crowd adds one to them; no history
/// reaches it).
const COUNTER_BOUND: u64 = 1 << 62;

/// A rule broken by a value read.
pub(super) fn broken(message: impl Into<String>) -> FormatError {
    FormatError::State {
        format: FORMAT,
        message: message.into(),
    }
}

/// An agent as read, with its boundary's inputs (centre, start polygon).
pub(super) struct ReadAgent {
    pub(super) agent: Agent,
    pub(super) boundary: Option<(Vec3, PolyRef)>,
}

/// Everything a snapshot holds, validated.
pub(super) struct ReadCrowd {
    pub(super) settings: CrowdSettings,
    pub(super) next_id: u32,
    pub(super) agents: Vec<ReadAgent>,
    pub(super) pending: Vec<QueuedRequest>,
    pub(super) active: Option<(QueuedRequest, u64)>,
    pub(super) grid_queue: Vec<(AgentId, u64)>,
    pub(super) grid_active: Option<(AgentId, u64, u64, (u32, u32))>,
}

/// The reader with the snapshot's compound values; every read names its field.
pub(super) struct R<'a>(pub(super) ByteReader<'a>);

impl<'a> R<'a> {
    /// A finite `f64`.
    pub(super) fn f(&mut self, field: &str) -> Result<f64, FormatError> {
        let v = self.0.f64(field)?;
        if !v.is_finite() {
            return Err(broken(format!("{field} = {v} is not finite")));
        }
        Ok(v)
    }

    /// A finite `f64` that is `>= 0`.
    fn f_non_negative(&mut self, field: &str) -> Result<f64, FormatError> {
        let v = self.f(field)?;
        if v < 0.0 {
            return Err(broken(format!("{field} = {v} is negative")));
        }
        Ok(v)
    }

    /// A vector whose every coordinate is finite and strictly within ±2^21 (the mesh's
    /// coordinate rule, which the proximity grid's cells rely on).
    pub(super) fn v3(&mut self, field: &str) -> Result<Vec3, FormatError> {
        let mut v = [0.0; 3];
        for (c, axis) in v.iter_mut().zip(["x", "y", "z"]) {
            // The coordinate's name ("{field} {axis}") is written out only for an error.
            let x = self.named(|| format!("{field} {axis}"), ByteReader::f64)?;
            if !x.is_finite() {
                return Err(broken(format!("{field} {axis} = {x} is not finite")));
            }
            if x.abs() >= COORD_BOUND {
                return Err(broken(format!(
                    "{field} {axis} = {x} lies outside ±2^21 (the coordinate rule)"
                )));
            }
            *c = x;
        }
        Ok(v)
    }

    /// `read` under a field name built only when the read fails: the read runs on a copy
    /// of the cursor with no name; on failure it runs again on the cursor under `name()`,
    /// which fails the same way and so gives the error the named read gives.
    fn named<T>(
        &mut self,
        name: impl FnOnce() -> String,
        read: impl Fn(&mut ByteReader<'a>, &str) -> Result<T, FormatError>,
    ) -> Result<T, FormatError> {
        let mut ahead = self.0.clone();
        match read(&mut ahead, "") {
            Ok(v) => {
                self.0 = ahead;
                Ok(v)
            }
            Err(_) => read(&mut self.0, &name()),
        }
    }

    /// A flag named `{field} present`.
    fn present(&mut self, field: &str) -> Result<bool, FormatError> {
        self.named(|| format!("{field} present"), ByteReader::bool_u8)
    }

    pub(super) fn flag(&mut self, field: &str) -> Result<bool, FormatError> {
        self.0.bool_u8(field)
    }

    fn opt_v3(&mut self, field: &str) -> Result<Option<Vec3>, FormatError> {
        Ok(if self.present(field)? {
            Some(self.v3(field)?)
        } else {
            None
        })
    }

    fn opt_u32(&mut self, field: &str) -> Result<Option<u32>, FormatError> {
        Ok(if self.present(field)? {
            Some(self.0.u32(field)?)
        } else {
            None
        })
    }

    fn counter(&mut self, field: &str) -> Result<u64, FormatError> {
        let v = self.0.u64(field)?;
        if v >= COUNTER_BOUND {
            return Err(broken(format!("{field} = {v} is at or past 2^62")));
        }
        Ok(v)
    }

    fn counter32(&mut self, field: &str) -> Result<u32, FormatError> {
        let v = self.0.u32(field)?;
        if v >= 1 << 31 {
            return Err(broken(format!("{field} = {v} is at or past 2^31")));
        }
        Ok(v)
    }

    /// A code in `0..n`.
    fn code(&mut self, field: &str, n: u8) -> Result<u8, FormatError> {
        let v = self.0.u8(field)?;
        if v >= n {
            return Err(broken(format!("{field} = {v} is not one of 0..{n}")));
        }
        Ok(v)
    }

    pub(super) fn filter(&mut self, field: &str) -> Result<QueryFilter, FormatError> {
        let mut f = QueryFilter::new();
        f.set_include_flags(self.named(|| format!("{field} include flags"), ByteReader::u16)?);
        f.set_exclude_flags(self.named(|| format!("{field} exclude flags"), ByteReader::u16)?);
        let mask = self.named(|| format!("{field} area cost mask"), ByteReader::u64)?;
        for area in 0..64u8 {
            if mask & (1 << area) == 0 {
                continue;
            }
            let what = format!("{field} area {area} cost");
            let cost = self.f(&what)?;
            if cost.to_bits() == 1.0f64.to_bits() {
                return Err(broken(format!(
                    "{what} is 1, which the mask must leave out (canonical bytes)"
                )));
            }
            f.set_area_cost(area, cost)
                .map_err(|_| broken(format!("{what} = {cost} must be > 0")))?;
        }
        Ok(f)
    }

    fn traversal(&mut self, field: &str) -> Result<Option<LinkTraversal>, FormatError> {
        if !self.present(field)? {
            return Ok(None);
        }
        let t = LinkTraversal {
            init_pos: self.v3(&format!("{field} init position"))?,
            start: self.v3(&format!("{field} start"))?,
            end: self.v3(&format!("{field} end"))?,
            elapsed: self.f_non_negative(&format!("{field} elapsed"))?,
            duration: self.f(&format!("{field} duration"))?,
        };
        if t.duration <= 0.0 {
            return Err(broken(format!(
                "{field} duration = {} must be > 0",
                t.duration
            )));
        }
        Ok(Some(t))
    }

    pub(super) fn queued(&mut self, field: &str) -> Result<QueuedRequest, FormatError> {
        Ok(QueuedRequest {
            agent: AgentId(self.0.u32(&format!("{field} agent"))?),
            serial: self.counter(&format!("{field} serial"))?,
            start_ref: PolyRef(self.0.u64(&format!("{field} start polygon"))?),
            start_pos: self.v3(&format!("{field} start position"))?,
            end_ref: PolyRef(self.0.u64(&format!("{field} end polygon"))?),
            end_pos: self.v3(&format!("{field} end position"))?,
            filter: self.filter(&format!("{field} filter"))?,
            max_iterations: self.0.u64(&format!("{field} max iterations"))?,
        })
    }

    pub(super) fn request(&mut self) -> Result<PathRequest, FormatError> {
        let kind = request_kind(self.code("request kind", 6)?);
        let origin = self.v3("request origin")?;
        let target = self.v3("request target")?;
        let unit_size = self.f_non_negative("request unit size")?;
        let walkability_override = if self.flag("request walkability override present")? {
            Some(self.0.u16("request walkability override")?)
        } else {
            None
        };
        let max_search_range = self.f_non_negative("request max search range")?;
        let settings_kind = self.code("request settings kind", 6)?;
        if settings_kind != super::write::request_kind_code(kind) {
            return Err(broken(format!(
                "request settings kind = {settings_kind} is not the request kind's ({})",
                super::write::request_kind_code(kind)
            )));
        }
        let settings = match settings_kind {
            0 => RequestSettings::NavMesh {
                max_iterations: self.0.u64("request max iterations")?,
            },
            1 => RequestSettings::GridAStar {
                heuristic_weight: self.f_non_negative("request heuristic weight")?,
            },
            2 => match self.0.u32("request extra flood range")? {
                0 => RequestSettings::FlowField {
                    extra_flood_range: 0,
                },
                v => {
                    return Err(broken(format!(
                        "request extra flood range = {v} is not 0 (a flow field floods every reachable cell)"
                    )))
                }
            },
            3 => match self.f_non_negative("request max climb height")? {
                v if v == 0.0 => RequestSettings::Voxel {
                    max_climb_height: v,
                },
                v => {
                    return Err(broken(format!(
                        "request max climb height = {v} is not 0 (a voxel path has no climb limit)"
                    )))
                }
            },
            4 => RequestSettings::Hybrid {
                switch_distance: self.f_non_negative("request switch distance")?,
            },
            _ => RequestSettings::GridReplan {
                algorithm: match self.code("request replan algorithm", 2)? {
                    0 => onepath_gridstate::ReplanAlgorithm::LpaStar,
                    _ => onepath_gridstate::ReplanAlgorithm::DStarLite,
                },
            },
        };
        Ok(PathRequest {
            kind,
            origin,
            target,
            unit_size,
            walkability_override,
            max_search_range,
            settings,
            guide_active: self.flag("request guide active")?,
            waypoint_index: self.0.u32("request waypoint index")?,
            context_id: self.0.u32("request context id")?,
        })
    }

    fn steering(&mut self) -> Result<Steering, FormatError> {
        let bits = self.0.u8("steering flags")?;
        if bits >= 1 << 5 {
            return Err(broken(format!(
                "steering flags {bits:#04x} set bits above the five defined"
            )));
        }
        let destination = self.v3("steering destination")?;
        let requested_destination = self.v3("steering requested destination")?;
        let target_direction = self.v3("steering target direction")?;
        let distance_to_target = self.f_non_negative("steering distance to target")?;
        let tuning = SteeringTuning {
            stop_multiplier: self.f_non_negative("steering stop multiplier")?,
            group_factor: self.f("steering group factor")?,
            avoid_factor: self.f("steering avoid factor")?,
            seek_weight: self.f("steering seek weight")?,
            separation_weight: self.f("steering separation weight")?,
            braking: self.f_non_negative("steering braking")?,
        };
        let repath_cooldown = self.f_non_negative("steering repath cooldown")?;
        let stuck_time = self.f_non_negative("steering stuck time")?;
        let stuck_count = self.counter32("steering stuck count")?;
        let repath_count = self.counter32("steering repath count")?;
        let movement_group = self.0.u32("steering movement group")?;
        let travel_mode = match self.code("steering travel mode", 3)? {
            0 => TravelMode::Idle,
            1 => TravelMode::Path,
            _ => TravelMode::Velocity,
        };
        let request = if self.flag("steering request present")? {
            Some(self.request()?)
        } else {
            None
        };
        Ok(Steering {
            should_move: bits & 1 != 0,
            is_stuck: bits & 2 != 0,
            at_destination: bits & 4 != 0,
            line_of_sight: bits & 8 != 0,
            destination,
            requested_destination,
            target_direction,
            distance_to_target,
            tuning,
            repath_cooldown,
            stuck_time,
            stuck_count,
            repath_count,
            auto_stop: bits & 16 != 0,
            movement_group,
            travel_mode,
            request,
        })
    }

    fn handler(&mut self) -> Result<LocomotionHandler, FormatError> {
        let in_control = self.flag("locomotion in control")?;
        let installed = self.0.u8("locomotion installed kinds")?;
        let required = LocomotionKind::Move.bit() | LocomotionKind::Fall.bit();
        if installed & required != required {
            return Err(broken(format!(
                "locomotion installed kinds {installed:#04x} lack Move or Fall"
            )));
        }
        let mode = locomotion_kind(self.code("locomotion mode", 8)?);
        let present = self.0.u8("locomotion modes present")?;
        if present & required != 0 {
            return Err(broken(format!(
                "locomotion modes present {present:#04x} name Move or Fall (always written)"
            )));
        }
        let walk = MoveLocomotion {
            speed_factor: self.f_non_negative("move speed factor")?,
            frame_velocity: self.v3("move frame velocity")?,
        };
        let fall = FallLocomotion {
            gravity: self.f("fall gravity")?,
            max_fall_speed: self.f_non_negative("fall max speed")?,
            max_fall_distance: self.f_non_negative("fall max distance")?,
            falling: self.flag("fall falling")?,
            fall_start: self.v3("fall start")?,
            fall_end: self.opt_v3("fall end")?,
            vertical_speed: self.f("fall vertical speed")?,
        };
        let on = |k: LocomotionKind| present & k.bit() != 0;
        let jump = if on(LocomotionKind::Jump) {
            Some(JumpLocomotion {
                arc_per_length: self.f("jump arc per length")?,
                cooldown: self.f_non_negative("jump cooldown")?,
                active: self.traversal("jump")?,
                cooldown_left: self.f_non_negative("jump cooldown left")?,
            })
        } else {
            None
        };
        let slide = if on(LocomotionKind::Slide) {
            Some(SlideLocomotion {
                slope_area: self.0.u8("slide slope area")?,
                speed_factor: self.f_non_negative("slide speed factor")?,
                is_sliding: self.flag("slide sliding")?,
            })
        } else {
            None
        };
        let water = if on(LocomotionKind::Water) {
            Some(WaterLocomotion {
                water_area: self.0.u8("water area")?,
                speed_factor: self.f_non_negative("water speed factor")?,
                swim_time: self.f_non_negative("water swim time")?,
                total_swim_time: self.f_non_negative("water total swim time")?,
            })
        } else {
            None
        };
        let fly = if on(LocomotionKind::Fly) {
            Some(FlyLocomotion {
                speed: self.f_non_negative("fly speed")?,
                acceleration: self.f_non_negative("fly acceleration")?,
                // Not 1: the navigator extension carries it.
                gravity_compensation: 1.0,
                is_flying: self.flag("fly flying")?,
            })
        } else {
            None
        };
        let climb = if on(LocomotionKind::Climb) {
            Some(ClimbLocomotion {
                min_height: self.f("climb min height")?,
                speed: self.f_non_negative("climb speed")?,
                gravity_compensation: 1.0,
                active: self.traversal("climb")?,
            })
        } else {
            None
        };
        let platform = if on(LocomotionKind::Platform) {
            Some(PlatformLocomotion {
                attached: self.opt_u32("platform attached")?,
                previous: self.opt_u32("platform previous")?,
                local_offset: self.v3("platform local offset")?,
                last_platform_pos: self.v3("platform last position")?,
                tracked_velocity: self.v3("platform tracked velocity")?,
            })
        } else {
            None
        };
        Ok(LocomotionHandler {
            in_control,
            installed,
            mode,
            walk,
            fall,
            jump,
            slide,
            water,
            fly,
            climb,
            platform,
        })
    }

    fn motor(&mut self) -> Result<Motor, FormatError> {
        Ok(Motor {
            condition: trek(self.code("motor condition", 4)?),
            previous_condition: trek(self.code("motor previous condition", 4)?),
            initialized: self.flag("motor initialized")?,
            handler: self.handler()?,
        })
    }

    fn params(&mut self) -> Result<AgentParams, FormatError> {
        let mut p = AgentParams::new(1.0);
        p.radius = self.f("radius")?;
        p.height = self.f("height")?;
        p.max_speed = self.f("max speed")?;
        p.max_acceleration = self.f("max acceleration")?;
        p.collision_query_range = self.f("collision query range")?;
        p.path_optimization_range = self.f("path optimization range")?;
        p.separation_weight = self.f("separation weight")?;
        let flags = self.0.u8("update flags")?;
        if flags & !UpdateFlags::ALL.0 != 0 {
            return Err(broken(format!(
                "update flags {flags:#04x} set bits above the five defined"
            )));
        }
        p.update_flags = UpdateFlags(flags);
        p.avoidance = match self.code("avoidance", 5)? {
            0 => AvoidanceType::None,
            1 => AvoidanceType::Adaptive(AvoidanceQuality::Low),
            2 => AvoidanceType::Adaptive(AvoidanceQuality::Medium),
            3 => AvoidanceType::Adaptive(AvoidanceQuality::Good),
            _ => AvoidanceType::Adaptive(AvoidanceQuality::High),
        };
        p.filter = self.filter("filter")?;
        p.validate().map_err(|e| broken(e.to_string()))?;
        Ok(p)
    }

    fn agent(&mut self) -> Result<ReadAgent, FormatError> {
        let id = AgentId(self.0.u32("agent id")?);
        self.agent_body(id)
            .map_err(|e| e.within(format!("agent {}", id.0)))
    }

    fn agent_body(&mut self, id: AgentId) -> Result<ReadAgent, FormatError> {
        let params = self.params()?;
        let state = match self.code("life state", 5)? {
            0 => AgentState::Invalid,
            1 => AgentState::Walking,
            2 => AgentState::OffMesh,
            3 => AgentState::Falling,
            _ => AgentState::Flying,
        };
        let target_state = match self.code("target state", 6)? {
            0 => TargetState::None,
            1 => TargetState::NoPath,
            2 => TargetState::Valid,
            3 => TargetState::Requesting,
            4 => TargetState::WaitingForPath,
            _ => TargetState::Velocity,
        };
        let target_ref = PolyRef(self.0.u64("target polygon")?);
        let target_pos = self.v3("target position")?;
        let serial = self.counter("request serial")?;
        let target_replan_time = self.f_non_negative("target replan time")?;
        let replanning = self.flag("replanning")?;
        let topology_opt_time = self.f_non_negative("topology optimisation time")?;
        let cpos = self.v3("corridor position")?;
        let ctarget = self.v3("corridor target")?;
        let n = self.0.count("corridor polygon count", 8)?;
        if n == 0 {
            return Err(broken(
                "corridor polygon count is 0 (a corridor holds at least the agent's polygon)",
            ));
        }
        let path: Vec<PolyRef> = self
            .0
            .chunks::<8>(n, "corridor polygons")?
            .map(|b| PolyRef(u64::from_le_bytes(b)))
            .collect();
        let mut corridor = PathCorridor::new();
        corridor.reset(path[0], cpos);
        corridor.set_corridor(ctarget, &path);
        let grid = if self.flag("grid guide present")? {
            let grid_id = self.0.u32("grid guide grid id")?;
            let goal = (
                self.0.u32("grid guide goal x")?,
                self.0.u32("grid guide goal y")?,
            );
            let count = self.0.count("grid guide waypoint count", 24)?;
            let mut waypoints = Vec::with_capacity(count);
            for k in 0..count {
                waypoints.push(self.v3(&format!("grid guide waypoint {k}"))?);
            }
            let next = self.0.u32("grid guide next waypoint")? as usize;
            if next >= count.max(1) {
                return Err(broken(format!(
                    "grid guide next waypoint {next} is past its {count} waypoints"
                )));
            }
            let start = if self.flag("grid guide start present")? {
                Some((
                    self.0.u32("grid guide start x")?,
                    self.0.u32("grid guide start y")?,
                ))
            } else {
                None
            };
            let resume = self.opt_u32("grid guide resume")?.map(|k| k as usize);
            Some(GridGuide {
                grid_id,
                goal,
                waypoints,
                next,
                start,
                resume,
            })
        } else {
            None
        };
        let boundary = if self.flag("boundary present")? {
            Some((
                self.v3("boundary centre")?,
                PolyRef(self.0.u64("boundary start polygon")?),
            ))
        } else {
            None
        };
        let dvel = self.v3("desired velocity")?;
        let nvel = self.v3("new velocity")?;
        let motion = Motion {
            position: self.v3("position")?,
            last_position: self.v3("last position")?,
            rotation: self.f("rotation")?,
            velocity: self.v3("velocity")?,
            speed: self.f_non_negative("speed")?,
            acceleration: self.f("acceleration")?,
            size: [self.f("size radius")?, self.f("size height")?],
            foot_offset: self.f("foot offset")?,
            id,
            group_id: self.0.u32("group id")?,
            locked_on: self.flag("locked on")?,
            stuck_threshold_speed: self.f_non_negative("stuck threshold speed")?,
            guided: self.flag("guided")?,
        };
        if !(motion.size[0] > 0.0 && motion.size[1] > 0.0) {
            return Err(broken(format!(
                "size [{}, {}] must be > 0",
                motion.size[0], motion.size[1]
            )));
        }
        let steering = self.steering()?;
        let can_turn = self.flag("turning can turn")?;
        let turn_rate = self.f_non_negative("turning turn rate")?;
        let motor = self.motor()?;
        let turning = Turning {
            can_turn,
            turn_rate,
            target_rotation: rebuilt_turn(can_turn, &motion),
        };
        Ok(ReadAgent {
            agent: Agent {
                nav: Navigator {
                    motion,
                    steering,
                    turning,
                    motor,
                    grounding: crate::HeightmapGrounding::default(),
                },
                params,
                state,
                target_state,
                target_ref,
                target_pos,
                serial,
                target_replan_time,
                replanning,
                topology_opt_time,
                corridor,
                grid,
                guide: None,
                boundary: LocalBoundary::default(),
                neighbours: Vec::new(),
                corners: Vec::new(),
                desired_speed: 0.0,
                dvel,
                nvel,
                disp: [0.0; 3],
            },
            boundary,
        })
    }
}

/// The buffered turn, rebuilt: the heading the velocity faces, as the last update left it.
pub(crate) fn rebuilt_turn(can_turn: bool, m: &Motion) -> Option<f64> {
    let speed = crate::geom::len_2d(m.velocity);
    (can_turn && speed > 0.0001).then(|| libm::atan2(m.velocity[2], m.velocity[0]))
}

pub(super) fn request_kind(code: u8) -> PathRequestKind {
    match code {
        0 => PathRequestKind::NavMesh,
        1 => PathRequestKind::GridAStar,
        2 => PathRequestKind::FlowField,
        3 => PathRequestKind::Voxel,
        4 => PathRequestKind::Hybrid,
        _ => PathRequestKind::GridReplan,
    }
}

fn trek(code: u8) -> TrekCondition {
    match code {
        0 => TrekCondition::Grounded,
        1 => TrekCondition::Airborne,
        2 => TrekCondition::OnLink,
        _ => TrekCondition::OnPlatform,
    }
}

pub(super) fn locomotion_kind(code: u8) -> LocomotionKind {
    match code {
        0 => LocomotionKind::Move,
        1 => LocomotionKind::Fall,
        2 => LocomotionKind::Jump,
        3 => LocomotionKind::Slide,
        4 => LocomotionKind::Water,
        5 => LocomotionKind::Fly,
        6 => LocomotionKind::Climb,
        _ => LocomotionKind::Platform,
    }
}

fn usize_field(r: &mut R<'_>, field: &str, max: u64) -> Result<u64, FormatError> {
    let v = r.0.u64(field)?;
    if v > max {
        return Err(broken(format!("{field} = {v} is above {max}")));
    }
    Ok(v)
}

/// Parses and validates a whole snapshot.
pub(super) fn read_crowd(bytes: &[u8]) -> Result<ReadCrowd, FormatError> {
    let mut r = R(ByteReader::new(bytes));
    r.0.header(ONCS_MAGIC, "ONCS", ONCS_VERSION)?;
    let settings = CrowdSettings {
        max_agents: usize_field(&mut r, "max agents", u64::from(u32::MAX))? as usize,
        max_agent_radius: r.f("max agent radius")?,
        path_budget: r.0.u64("path budget")?,
        topology_opt_per_update: usize_field(
            &mut r,
            "topology optimisations per update",
            u64::from(u32::MAX),
        )? as usize,
        max_request_iterations: r.0.u64("max request iterations")?,
    };
    if settings.max_agents == 0 {
        return Err(broken("max agents is 0 (at least 1)"));
    }
    if settings.max_agent_radius <= 0.0 {
        return Err(broken(format!(
            "max agent radius = {} must be > 0",
            settings.max_agent_radius
        )));
    }
    let cell = r.f("proximity grid cell size")?;
    if cell.to_bits() != (settings.max_agent_radius * 3.0).to_bits() {
        return Err(broken(format!(
            "proximity grid cell size = {cell} is not 3 × max agent radius ({})",
            settings.max_agent_radius * 3.0
        )));
    }
    let next_id = r.0.u32("next agent id")?;
    // An agent takes at least this many bytes (id, parameters, states, one polygon, the
    // navigator): a count no larger than the bytes can back is allocated.
    const MIN_AGENT_BYTES: usize = 400;
    let count = r.0.count("agent count", MIN_AGENT_BYTES)?;
    if count > settings.max_agents {
        return Err(broken(format!(
            "agent count {count} is above max agents {}",
            settings.max_agents
        )));
    }
    let mut agents: Vec<ReadAgent> = Vec::with_capacity(count);
    for k in 0..count {
        let a = r.agent()?;
        let id = a.agent.id();
        if id.0 >= next_id {
            return Err(broken(format!(
                "agent {} (at position {k}) is not below the next agent id {next_id}",
                id.0
            )));
        }
        if let Some(prev) = agents.last() {
            if prev.agent.id() >= id {
                return Err(broken(format!(
                    "agent {} follows agent {}: agents must ascend by id",
                    id.0,
                    prev.agent.id().0
                )));
            }
        }
        agents.push(a);
    }
    // A queued request takes at least 4 + 8 + 8 + 24 + 8 + 24 + 12 + 8 bytes.
    let n = r.0.count("path queue length", 96)?;
    let mut pending = Vec::with_capacity(n);
    for k in 0..n {
        pending.push(r.queued(&format!("path queue entry {k}"))?);
    }
    let active = if r.flag("path search active")? {
        let q = r.queued("active path search")?;
        Some((q, r.0.u64("active path search iterations used")?))
    } else {
        None
    };
    let n = r.0.count("grid queue length", 12)?;
    let mut grid_queue = Vec::with_capacity(n);
    for k in 0..n {
        grid_queue.push((
            AgentId(r.0.u32(&format!("grid queue entry {k} agent"))?),
            r.counter(&format!("grid queue entry {k} serial"))?,
        ));
    }
    let grid_active = if r.flag("grid search active")? {
        Some((
            AgentId(r.0.u32("active grid search agent")?),
            r.counter("active grid search serial")?,
            match r.0.u64("active grid search iterations used")? {
                u64::MAX => {
                    return Err(broken(
                        "active grid search iterations used is 2^64 - 1 (the mark of a search not begun)",
                    ))
                }
                used => used,
            },
            (
                r.0.u32("active grid search start x")?,
                r.0.u32("active grid search start y")?,
            ),
        ))
    } else {
        None
    };
    super::guides::read_guides(&mut r, &mut agents)?;
    super::grounding::read_navigator_ext(&mut r, &mut agents)?;
    r.0.expect_end("ONCS")?;
    Ok(ReadCrowd {
        settings,
        next_id,
        agents,
        pending,
        active,
        grid_queue,
        grid_active,
    })
}
