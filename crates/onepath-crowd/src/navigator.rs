//! The navigator structure of an agent (the shape an agent record holds; `docs/crowd.md`,
//! "Navigator"): transform and motion, a steering session with its path request, turning, and
//! a motor whose locomotion handler holds the required Move and Fall modes and the
//! optional Jump, Slide, Water, Fly, Climb and Platform modes, each with its configuration
//! and resumable state. Every field here is authoritative state; the crowd's caches
//! (corners, boundary, neighbours) live apart and are rebuilt.

use onepath_mesh::query::Vec3;

use crate::error::CrowdError;
use crate::heightmap::LayerName;

/// A stable agent id: assigned in increasing order by [`crate::Crowd::add_agent`], never
/// reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AgentId(pub u32);

/// Transform and motion of an agent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motion {
    /// Position (on the mesh surface while walking).
    pub position: Vec3,
    /// Position at the start of the last update.
    pub last_position: Vec3,
    /// Heading: `atan2(velocity.z, velocity.x)` of the direction faced, radians in (−π, π]
    /// (0 faces +X).
    pub rotation: f64,
    /// Velocity.
    pub velocity: Vec3,
    /// |velocity| in X/Z.
    pub speed: f64,
    /// Change of speed over the last update, per second.
    pub acceleration: f64,
    /// Size: radius and height.
    pub size: [f64; 2],
    /// Height of the feet under the position (the host's model offset).
    pub foot_offset: f64,
    /// The agent's id.
    pub id: AgentId,
    /// Occupant group (agents of one group may share a flow field).
    pub group_id: u32,
    /// Whether the agent is locked on a target (the host's meaning; kept as state).
    pub locked_on: bool,
    /// Below this speed, an agent that should move counts as stuck.
    pub stuck_threshold_speed: f64,
    /// Whether a guide (corridor) drives the agent.
    pub guided: bool,
}

/// What kind of search a path request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PathRequestKind {
    /// A polygon corridor on the navmesh (the crowd's own kind).
    NavMesh,
    /// A grid A* path (gridstate).
    GridAStar,
    /// A flow field shared per target by a movement group.
    FlowField,
    /// A voxel path for flyers.
    Voxel,
    /// A hybrid of the above: a grid A* path far away, a navmesh corridor within the
    /// switch-over distance.
    Hybrid,
    /// A grid path kept by an incremental replanner (gridstate's LPA* or D* Lite), repaired
    /// when its grid is edited.
    GridReplan,
}

/// The kind-specific settings of a path request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RequestSettings {
    /// Navmesh corridor: the largest number of search iterations in total (0: no limit).
    NavMesh {
        /// Iterations the whole request may use.
        max_iterations: u64,
    },
    /// Grid A*: the heuristic weight the crowd's sliced `GridAStar` runs with
    /// (`GridOptions::heuristic_weight`).
    GridAStar {
        /// Weight of the heuristic (finite, ≥ 0): 1 optimal A*, 0 Dijkstra order, above 1
        /// weighted A* (fewer cells expanded, a path costing at most weight × the optimum).
        heuristic_weight: f64,
    },
    /// Flow field: how far beyond the target's region the flood goes. Always 0: the
    /// shared field floods every cell reachable from its goal (nothing is left out for a
    /// range to add), so any other value is refused ([`RequestSettings::validate`]).
    FlowField {
        /// Extra flood range in cells (0 only).
        extra_flood_range: u32,
    },
    /// Voxel path: the highest climb. Always 0 (no limit): `VoxelAStar` has no climb
    /// rule, so any other value is refused ([`RequestSettings::validate`]).
    Voxel {
        /// Largest climb height (0 only: no limit).
        max_climb_height: f64,
    },
    /// Hybrid: the switch-over distance.
    Hybrid {
        /// Within this X/Z distance of the target the navmesh corridor takes over.
        switch_distance: f64,
    },
    /// Grid replanner: the algorithm.
    GridReplan {
        /// LPA* or D* Lite.
        algorithm: onepath_gridstate::ReplanAlgorithm,
    },
}

/// The request a steering session follows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathRequest {
    /// The kind of search.
    pub kind: PathRequestKind,
    /// Where the path starts.
    pub origin: Vec3,
    /// Where it goes.
    pub target: Vec3,
    /// The agent's radius the request is for: recorded (agent records, snapshots), never
    /// searched with (the mesh is built for one radius, and targets are placed with the
    /// crowd's placement box, [`crate::Crowd::placement_extents`]).
    pub unit_size: f64,
    /// Polygon flags used instead of the agent filter's include flags, if any, for the
    /// whole of a navmesh or hybrid request: its target is placed, its corridor planned,
    /// followed, checked and repaired and the agent moved with that filter until the next
    /// request ([`crate::Agent::corridor_filter`]); the grid A*, flow-field, replanner and
    /// voxel kinds have no polygon flags to apply it to.
    pub walkability_override: Option<u16>,
    /// The largest distance the target may lie from the origin (X/Z; 0: no limit).
    pub max_search_range: f64,
    /// Kind-specific settings.
    pub settings: RequestSettings,
    /// Whether a guide (the corridor) was built for this request.
    pub guide_active: bool,
    /// Index of the next waypoint of the guide (for a corridor, the polygons left in it;
    /// for a grid path or a flow field, the next cell of the path; for a voxel path, the
    /// next waypoint).
    pub waypoint_index: u32,
    /// The part of the world context the request plans on: for a grid A*, grid replanner,
    /// flow-field or hybrid request, the grid's id in [`crate::WorldContext::grids`]; for a
    /// voxel request, the voxel grid's id in [`crate::WorldContext::voxels`] (0 for the
    /// mesh).
    pub context_id: u32,
}

impl PathRequest {
    /// A request of `kind` to `target` on context part `context_id` with every other field
    /// at its documented default (agent records, "Path request"): origin 0 (the crowd sets
    /// it to where the agent stands when it takes the request), unit size 0.6, no
    /// walkability override, no search range limit, no guide built yet.
    fn of_kind(
        kind: PathRequestKind,
        context_id: u32,
        target: Vec3,
        settings: RequestSettings,
    ) -> Result<PathRequest, CrowdError> {
        for (what, v) in ["target.x", "target.y", "target.z"].into_iter().zip(target) {
            if !v.is_finite() {
                return Err(invalid_request(what, v, "finite"));
            }
        }
        Ok(PathRequest {
            kind,
            origin: [0.0; 3],
            target,
            unit_size: 0.6,
            walkability_override: None,
            max_search_range: 0.0,
            settings,
            guide_active: false,
            waypoint_index: 0,
            context_id,
        })
    }

    /// A navmesh corridor to `target` (the crowd places it on the mesh): no iteration
    /// limit of its own (0: the crowd's path budget alone), the defaults of the other
    /// fields. [`CrowdError::InvalidRequest`] naming the coordinate when `target` is not
    /// finite.
    ///
    /// ```
    /// use onepath_crowd::{PathRequest, PathRequestKind, RequestSettings};
    ///
    /// let r = PathRequest::navmesh([4.0, 0.0, 2.0])?.with_max_search_range(30.0)?;
    /// assert_eq!(r.kind, PathRequestKind::NavMesh);
    /// assert_eq!(r.settings, RequestSettings::NavMesh { max_iterations: 0 });
    /// assert!(matches!(
    ///     PathRequest::navmesh([f64::NAN, 0.0, 0.0]),
    ///     Err(onepath_crowd::CrowdError::InvalidRequest { what: "target.x", .. })
    /// ));
    /// # Ok::<(), onepath_crowd::CrowdError>(())
    /// ```
    pub fn navmesh(target: Vec3) -> Result<PathRequest, CrowdError> {
        Self::of_kind(
            PathRequestKind::NavMesh,
            0,
            target,
            RequestSettings::NavMesh { max_iterations: 0 },
        )
    }

    /// A grid A* path to `target` on grid `grid` of the world context, heuristic weight 1.
    /// [`CrowdError::InvalidRequest`] naming the coordinate when `target` is not finite.
    pub fn grid_astar(grid: u32, target: Vec3) -> Result<PathRequest, CrowdError> {
        Self::of_kind(
            PathRequestKind::GridAStar,
            grid,
            target,
            RequestSettings::GridAStar {
                heuristic_weight: 1.0,
            },
        )
    }

    /// A flow field toward `target` on grid `grid` (shared by the agent's movement group),
    /// no extra flood range. [`CrowdError::InvalidRequest`] naming the coordinate when
    /// `target` is not finite.
    pub fn flow_field(grid: u32, target: Vec3) -> Result<PathRequest, CrowdError> {
        Self::of_kind(
            PathRequestKind::FlowField,
            grid,
            target,
            RequestSettings::FlowField {
                extra_flood_range: 0,
            },
        )
    }

    /// A voxel path for a flyer to `target` through voxel grid `voxel_grid` of the world
    /// context, max climb height 0. [`CrowdError::InvalidRequest`] naming the coordinate
    /// when `target` is not finite.
    pub fn voxel(voxel_grid: u32, target: Vec3) -> Result<PathRequest, CrowdError> {
        Self::of_kind(
            PathRequestKind::Voxel,
            voxel_grid,
            target,
            RequestSettings::Voxel {
                max_climb_height: 0.0,
            },
        )
    }

    /// A hybrid path to `target`: grid A* on grid `grid` while the agent is farther than
    /// `switch_distance` (X/Z) from it, a navmesh corridor within it.
    /// [`CrowdError::InvalidRequest`] naming the value: a `target` coordinate that is not
    /// finite, a `switch_distance` that is not finite and ≥ 0.
    pub fn hybrid(
        grid: u32,
        target: Vec3,
        switch_distance: f64,
    ) -> Result<PathRequest, CrowdError> {
        non_negative("switch_distance", switch_distance)?;
        Self::of_kind(
            PathRequestKind::Hybrid,
            grid,
            target,
            RequestSettings::Hybrid { switch_distance },
        )
    }

    /// A grid path to `target` on grid `grid` kept by the agent's own incremental
    /// replanner running `algorithm` (the default, D* Lite, moves its start freely).
    /// [`CrowdError::InvalidRequest`] naming the coordinate when `target` is not finite.
    pub fn grid_replan(
        grid: u32,
        target: Vec3,
        algorithm: onepath_gridstate::ReplanAlgorithm,
    ) -> Result<PathRequest, CrowdError> {
        Self::of_kind(
            PathRequestKind::GridReplan,
            grid,
            target,
            RequestSettings::GridReplan { algorithm },
        )
    }

    /// The request recorded as one for an agent of radius `unit_size` (finite, ≥ 0, else
    /// [`CrowdError::InvalidRequest`] naming `unit_size`); it changes no search and no
    /// placement ([`PathRequest::unit_size`]).
    pub fn with_unit_size(mut self, unit_size: f64) -> Result<PathRequest, CrowdError> {
        non_negative("unit_size", unit_size)?;
        self.unit_size = unit_size;
        Ok(self)
    }

    /// The request with a largest X/Z distance from the agent to the target
    /// (`max_search_range`: finite, ≥ 0, 0 for no limit, else
    /// [`CrowdError::InvalidRequest`] naming it); a target farther away has no path.
    pub fn with_max_search_range(mut self, range: f64) -> Result<PathRequest, CrowdError> {
        non_negative("max_search_range", range)?;
        self.max_search_range = range;
        Ok(self)
    }

    /// The request with polygon flags `flags` in place of the agent filter's include
    /// flags for the request's placement, corridor and moves
    /// ([`PathRequest::walkability_override`]).
    pub fn with_walkability_override(mut self, flags: u16) -> PathRequest {
        self.walkability_override = Some(flags);
        self
    }

    /// A navmesh request whose search may use at most `max_iterations` iterations in total
    /// (0: the crowd's limit alone); [`CrowdError::InvalidRequest`] naming
    /// `max_iterations` for a request of another kind.
    pub fn with_max_iterations(mut self, max_iterations: u64) -> Result<PathRequest, CrowdError> {
        match self.settings {
            RequestSettings::NavMesh { .. } => {
                self.settings = RequestSettings::NavMesh { max_iterations };
                Ok(self)
            }
            _ => Err(invalid_request(
                "max_iterations",
                max_iterations as f64,
                "set on a navmesh request only",
            )),
        }
    }

    /// A grid A* request with heuristic weight `weight` (finite, ≥ 0: 1 optimal, 0
    /// Dijkstra order, above 1 weighted A*); [`CrowdError::InvalidRequest`] naming
    /// `heuristic_weight` for a weight out of range or a request of another kind.
    pub fn with_heuristic_weight(mut self, weight: f64) -> Result<PathRequest, CrowdError> {
        non_negative("heuristic_weight", weight)?;
        match self.settings {
            RequestSettings::GridAStar { .. } => {
                self.settings = RequestSettings::GridAStar {
                    heuristic_weight: weight,
                };
                Ok(self)
            }
            _ => Err(invalid_request(
                "heuristic_weight",
                weight,
                "set on a grid A* request only",
            )),
        }
    }
}

impl RequestSettings {
    /// The kind of request these settings belong to.
    pub fn kind(&self) -> PathRequestKind {
        match self {
            RequestSettings::NavMesh { .. } => PathRequestKind::NavMesh,
            RequestSettings::GridAStar { .. } => PathRequestKind::GridAStar,
            RequestSettings::FlowField { .. } => PathRequestKind::FlowField,
            RequestSettings::Voxel { .. } => PathRequestKind::Voxel,
            RequestSettings::Hybrid { .. } => PathRequestKind::Hybrid,
            RequestSettings::GridReplan { .. } => PathRequestKind::GridReplan,
        }
    }

    /// Checks the settings' own values ([`CrowdError::InvalidRequest`] naming the first bad
    /// one): a heuristic weight or a switch distance finite and ≥ 0; an extra flood range
    /// and a max climb height of 0, the only values the searches they belong to can honour
    /// (`docs/crowd.md`, "Path request settings"): a flow field floods every cell reachable
    /// from its goal (`onepath-gridstate`'s `GridFlowField` has no flood bound, and the
    /// field is shared by a whole movement group), and `VoxelAStar` has no climb limit (a
    /// flyer rises freely through free voxels).
    pub fn validate(&self) -> Result<(), CrowdError> {
        match *self {
            RequestSettings::GridAStar { heuristic_weight } => {
                non_negative("heuristic_weight", heuristic_weight)
            }
            RequestSettings::Hybrid { switch_distance } => {
                non_negative("switch_distance", switch_distance)
            }
            RequestSettings::FlowField { extra_flood_range } if extra_flood_range != 0 => {
                Err(invalid_request(
                    "extra_flood_range",
                    f64::from(extra_flood_range),
                    "0: a flow field always floods every cell reachable from its goal",
                ))
            }
            RequestSettings::Voxel { max_climb_height } if max_climb_height != 0.0 => {
                Err(invalid_request(
                    "max_climb_height",
                    max_climb_height,
                    "0: a voxel path has no climb limit (VoxelAStar offers none)",
                ))
            }
            _ => Ok(()),
        }
    }
}

impl PathRequest {
    /// Checks a request built field by field as [`crate::Crowd::request_path`] does before
    /// anything changes ([`CrowdError::InvalidRequest`] naming the first bad value): a
    /// target coordinate not finite (`target.x`), a unit size or search range not finite
    /// and ≥ 0, settings of another kind than the request's (`settings`, the value the
    /// settings' kind code 0..5 in [`PathRequestKind`] order), or settings out of range
    /// ([`RequestSettings::validate`]).
    pub fn validate(&self) -> Result<(), CrowdError> {
        for (what, v) in ["target.x", "target.y", "target.z"]
            .into_iter()
            .zip(self.target)
        {
            if !v.is_finite() {
                return Err(invalid_request(what, v, "finite"));
            }
        }
        non_negative("unit_size", self.unit_size)?;
        non_negative("max_search_range", self.max_search_range)?;
        if self.settings.kind() != self.kind {
            return Err(invalid_request(
                "settings",
                f64::from(self.settings.kind() as u8),
                "the settings of the request's own kind",
            ));
        }
        self.settings.validate()
    }
}

fn invalid_request(what: &'static str, value: f64, rule: &'static str) -> CrowdError {
    CrowdError::InvalidRequest { what, value, rule }
}

/// [`CrowdError::InvalidRequest`] naming `what` unless `v` is finite and ≥ 0.
fn non_negative(what: &'static str, v: f64) -> Result<(), CrowdError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(invalid_request(what, v, "finite and ≥ 0"))
    }
}

/// How the steering moves the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TravelMode {
    /// No target.
    Idle,
    /// Along a path to a point.
    Path,
    /// At a velocity the host sets.
    Velocity,
}

/// The tuning of the steering.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteeringTuning {
    /// Within `stop_multiplier × radius` of the destination (X/Z) the agent is at it
    /// (default 1.5: the avoidance keeps an agent's body out of walls, so a destination in
    /// a corner is reached up to √2 radii away).
    pub stop_multiplier: f64,
    /// Scale of the separation from agents of the same movement group.
    pub group_factor: f64,
    /// Scale of the separation from other agents.
    pub avoid_factor: f64,
    /// Weight of the seek (path) direction in the desired velocity.
    pub seek_weight: f64,
    /// Weight of the separation in the desired velocity.
    pub separation_weight: f64,
    /// Slow-down radius at the end of the path, in radii (Detour: 2).
    pub braking: f64,
}

impl Default for SteeringTuning {
    fn default() -> Self {
        SteeringTuning {
            stop_multiplier: 1.5,
            group_factor: 1.0,
            avoid_factor: 1.0,
            seek_weight: 1.0,
            separation_weight: 1.0,
            braking: 2.0,
        }
    }
}

/// The steering session of an agent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Steering {
    /// The agent has a target to move to.
    pub should_move: bool,
    /// The agent has been slower than its stuck threshold for longer than the stuck time.
    pub is_stuck: bool,
    /// The agent stands at its destination.
    pub at_destination: bool,
    /// The next corner is the destination (nothing left to turn around).
    pub line_of_sight: bool,
    /// Where the corridor ends (the reachable end of the request).
    pub destination: Vec3,
    /// Where the host asked to go.
    pub requested_destination: Vec3,
    /// Unit X/Z direction the agent steers in.
    pub target_direction: Vec3,
    /// X/Z distance to the destination along the straight line.
    pub distance_to_target: f64,
    /// Tuning.
    pub tuning: SteeringTuning,
    /// Seconds before the next replan may be asked for.
    pub repath_cooldown: f64,
    /// Seconds spent below the stuck threshold speed.
    pub stuck_time: f64,
    /// Times the agent became stuck.
    pub stuck_count: u32,
    /// Replans asked for (stale corridor, stuck, target moved).
    pub repath_count: u32,
    /// Stop and drop the target on arrival.
    pub auto_stop: bool,
    /// Movement group id (0: none).
    pub movement_group: u32,
    /// How the agent travels.
    pub travel_mode: TravelMode,
    /// The active request.
    pub request: Option<PathRequest>,
}

impl Default for Steering {
    fn default() -> Self {
        Steering {
            should_move: false,
            is_stuck: false,
            at_destination: false,
            line_of_sight: false,
            destination: [0.0; 3],
            requested_destination: [0.0; 3],
            target_direction: [0.0; 3],
            distance_to_target: 0.0,
            tuning: SteeringTuning::default(),
            repath_cooldown: 0.0,
            stuck_time: 0.0,
            stuck_count: 0,
            repath_count: 0,
            auto_stop: false,
            movement_group: 0,
            travel_mode: TravelMode::Idle,
            request: None,
        }
    }
}

/// Turning: the heading follows the velocity at a limited rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Turning {
    /// Whether the agent turns at all.
    pub can_turn: bool,
    /// Largest turn per second, radians (0: turn at once).
    pub turn_rate: f64,
    /// The heading being turned to (frame-local buffered state, rebuilt on load).
    pub target_rotation: Option<f64>,
}

impl Default for Turning {
    fn default() -> Self {
        Turning {
            can_turn: true,
            turn_rate: core::f64::consts::TAU,
            target_rotation: None,
        }
    }
}

/// A locomotion mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LocomotionKind {
    /// Walking on the mesh (required).
    Move,
    /// Falling without ground (required); also drops down off-mesh links.
    Fall,
    /// Jumping along an off-mesh link.
    Jump,
    /// Sliding on steep-slope polygons.
    Slide,
    /// Swimming on water polygons.
    Water,
    /// Flying along a voxel path (`docs/crowd.md`, "Voxel guide and the Fly mode").
    Fly,
    /// Climbing up an off-mesh link.
    Climb,
    /// Standing on a platform the host moves.
    Platform,
}

impl LocomotionKind {
    /// The bit of this kind in [`LocomotionHandler::installed`].
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// The crossing of an off-mesh link: from where the agent stood, to the link's departure,
/// to its arrival, over `duration` seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkTraversal {
    /// Where the agent stood when it began.
    pub init_pos: Vec3,
    /// The link's departure point.
    pub start: Vec3,
    /// The link's arrival point.
    pub end: Vec3,
    /// Seconds since it began.
    pub elapsed: f64,
    /// Seconds it takes.
    pub duration: f64,
}

/// Walking: configuration and frame velocity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveLocomotion {
    /// Scale of the agent's max speed while walking.
    pub speed_factor: f64,
    /// The velocity of the last walking step.
    pub frame_velocity: Vec3,
}

/// Falling: configuration and the fall in progress.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FallLocomotion {
    /// Gravity, units per second² (positive, pulls towards −Y).
    pub gravity: f64,
    /// Largest downward speed.
    pub max_fall_speed: f64,
    /// A fall longer than this many units leaves the agent invalid (it fell off the world).
    pub max_fall_distance: f64,
    /// Whether a fall is in progress.
    pub falling: bool,
    /// Where it began.
    pub fall_start: Vec3,
    /// Where it must end (a drop link's arrival), if known.
    pub fall_end: Option<Vec3>,
    /// Current downward speed.
    pub vertical_speed: f64,
}

/// Jumping along off-mesh links: configuration, the jump in progress and its cooldown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JumpLocomotion {
    /// Height of the arc over the straight line, per unit of X/Z length.
    pub arc_per_length: f64,
    /// Seconds after a jump before the next.
    pub cooldown: f64,
    /// The jump in progress.
    pub active: Option<LinkTraversal>,
    /// Seconds left of the cooldown.
    pub cooldown_left: f64,
}

/// Sliding: the slope area and the slide state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlideLocomotion {
    /// Polygons of this area are steep slopes.
    pub slope_area: u8,
    /// Scale of the max speed while sliding.
    pub speed_factor: f64,
    /// Whether the agent is sliding.
    pub is_sliding: bool,
}

/// Swimming: the water area and the swim timers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WaterLocomotion {
    /// Polygons of this area are water.
    pub water_area: u8,
    /// Scale of the max speed while swimming.
    pub speed_factor: f64,
    /// Seconds since the agent entered the water (0 out of it).
    pub swim_time: f64,
    /// Total seconds spent swimming.
    pub total_swim_time: f64,
}

/// Flying: configuration and state (driven by a voxel guide: the flyer's speed along its
/// path moves towards `speed` by at most `acceleration` per second; `docs/crowd.md`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlyLocomotion {
    /// Flight speed.
    pub speed: f64,
    /// Flight acceleration.
    pub acceleration: f64,
    /// The share of gravity (the Fall mode's) the flight carries, in `[0, 1]` (default 1:
    /// weightless flight). The rest, `(1 − c) × gravity`, pulls on the flyer along its
    /// path: each step its speed along the segment it flies loses `(1 − c) × gravity ×
    /// dir_y × dt` after the acceleration's step (`dir_y` the segment's rise per unit of
    /// length), so climbs slow and descents speed up, within `[0, speed]`
    /// (`docs/crowd.md`, "Gravity compensation").
    pub gravity_compensation: f64,
    /// Whether the agent flies.
    pub is_flying: bool,
}

/// Climbing up off-mesh links: configuration and the climb in progress.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClimbLocomotion {
    /// A link rising more than this is climbed rather than jumped.
    pub min_height: f64,
    /// Climbing speed (units per second along the link).
    pub speed: f64,
    /// The share of gravity (the Fall mode's) the climber's grip carries, in `[0, 1]`
    /// (default 1). The rest slows the rise: the link's height is climbed at `speed × c`
    /// (at least 0.01 units per second), its level part at the agent's max speed
    /// (`docs/crowd.md`, "Gravity compensation").
    pub gravity_compensation: f64,
    /// The climb in progress.
    pub active: Option<LinkTraversal>,
}

/// Standing on a platform the host moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlatformLocomotion {
    /// The platform's id in the world context, when attached.
    pub attached: Option<u32>,
    /// The platform attached before (kept after detaching).
    pub previous: Option<u32>,
    /// The agent's offset from the platform's position.
    pub local_offset: Vec3,
    /// The platform's position at the last update.
    pub last_platform_pos: Vec3,
    /// The platform's velocity over the last update.
    pub tracked_velocity: Vec3,
}

/// The locomotion modes of an agent and which one is in control.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocomotionHandler {
    /// Whether the handler drives the agent (false: the host does).
    pub in_control: bool,
    /// Bits of the installed kinds ([`LocomotionKind::bit`]); Move and Fall always.
    pub installed: u8,
    /// The mode in control.
    pub mode: LocomotionKind,
    /// Walking (required).
    pub walk: MoveLocomotion,
    /// Falling (required).
    pub fall: FallLocomotion,
    /// Jumping.
    pub jump: Option<JumpLocomotion>,
    /// Sliding.
    pub slide: Option<SlideLocomotion>,
    /// Swimming.
    pub water: Option<WaterLocomotion>,
    /// Flying.
    pub fly: Option<FlyLocomotion>,
    /// Climbing.
    pub climb: Option<ClimbLocomotion>,
    /// Platforms.
    pub platform: Option<PlatformLocomotion>,
}

impl LocomotionHandler {
    /// Move and Fall only (gravity 9.81, fall speed up to 50, falls up to 100 units).
    pub fn new() -> LocomotionHandler {
        LocomotionHandler {
            in_control: true,
            installed: LocomotionKind::Move.bit() | LocomotionKind::Fall.bit(),
            mode: LocomotionKind::Move,
            walk: MoveLocomotion {
                speed_factor: 1.0,
                frame_velocity: [0.0; 3],
            },
            fall: FallLocomotion {
                gravity: 9.81,
                max_fall_speed: 50.0,
                max_fall_distance: 100.0,
                falling: false,
                fall_start: [0.0; 3],
                fall_end: None,
                vertical_speed: 0.0,
            },
            jump: None,
            slide: None,
            water: None,
            fly: None,
            climb: None,
            platform: None,
        }
    }

    /// Every mode installed with its default configuration: jumps (arc 0.25 per unit,
    /// cooldown 0), climbs above 1.5 units at speed 1.5, water area 5 at 0.5 speed, slope
    /// area 6 at 1.5 speed, flight at speed 5.
    pub fn with_all_modes() -> LocomotionHandler {
        let mut h = LocomotionHandler::new();
        h.jump = Some(JumpLocomotion {
            arc_per_length: 0.25,
            cooldown: 0.0,
            active: None,
            cooldown_left: 0.0,
        });
        h.slide = Some(SlideLocomotion {
            slope_area: 6,
            speed_factor: 1.5,
            is_sliding: false,
        });
        h.water = Some(WaterLocomotion {
            water_area: 5,
            speed_factor: 0.5,
            swim_time: 0.0,
            total_swim_time: 0.0,
        });
        h.fly = Some(FlyLocomotion {
            speed: 5.0,
            acceleration: 10.0,
            gravity_compensation: 1.0,
            is_flying: false,
        });
        h.climb = Some(ClimbLocomotion {
            min_height: 1.5,
            speed: 1.5,
            gravity_compensation: 1.0,
            active: None,
        });
        h.platform = Some(PlatformLocomotion {
            attached: None,
            previous: None,
            local_offset: [0.0; 3],
            last_platform_pos: [0.0; 3],
            tracked_velocity: [0.0; 3],
        });
        h.refresh_installed();
        h
    }

    /// Recomputes [`LocomotionHandler::installed`] from the modes present.
    pub fn refresh_installed(&mut self) {
        let mut bits = LocomotionKind::Move.bit() | LocomotionKind::Fall.bit();
        for (on, k) in [
            (self.jump.is_some(), LocomotionKind::Jump),
            (self.slide.is_some(), LocomotionKind::Slide),
            (self.water.is_some(), LocomotionKind::Water),
            (self.fly.is_some(), LocomotionKind::Fly),
            (self.climb.is_some(), LocomotionKind::Climb),
            (self.platform.is_some(), LocomotionKind::Platform),
        ] {
            if on {
                bits |= k.bit();
            }
        }
        self.installed = bits;
    }

    /// Checks the configuration the update relies on: each mode's gravity compensation in
    /// `[0, 1]` ([`CrowdError::InvalidParameter`] naming it).
    pub fn validate(&self) -> Result<(), CrowdError> {
        let comps = [
            (
                "fly gravity_compensation",
                self.fly.map(|f| f.gravity_compensation),
            ),
            (
                "climb gravity_compensation",
                self.climb.map(|c| c.gravity_compensation),
            ),
        ];
        for (what, c) in comps {
            if let Some(c) = c.filter(|c| !(0.0..=1.0).contains(c)) {
                return Err(CrowdError::InvalidParameter {
                    what,
                    value: c,
                    rule: "within [0, 1]",
                });
            }
        }
        Ok(())
    }

    /// The scale of the max speed in the current mode.
    pub fn speed_factor(&self) -> f64 {
        match self.mode {
            LocomotionKind::Water => self.water.map_or(1.0, |w| w.speed_factor),
            LocomotionKind::Slide => self.slide.map_or(1.0, |s| s.speed_factor),
            _ => self.walk.speed_factor,
        }
    }
}

impl Default for LocomotionHandler {
    fn default() -> Self {
        LocomotionHandler::new()
    }
}

/// What the ground under the agent is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TrekCondition {
    /// On a walkable polygon.
    Grounded,
    /// No polygon under the agent.
    Airborne,
    /// Crossing an off-mesh link.
    OnLink,
    /// On a platform the host moves.
    OnPlatform,
}

/// The motor: the locomotion handler and the ground conditions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motor {
    /// The modes.
    pub handler: LocomotionHandler,
    /// The ground now.
    pub condition: TrekCondition,
    /// The ground at the update before.
    pub previous_condition: TrekCondition,
    /// Whether the motor has run once.
    pub initialized: bool,
}

impl Motor {
    /// A motor over `handler`, grounded, not yet run.
    pub fn new(handler: LocomotionHandler) -> Motor {
        Motor {
            handler,
            condition: TrekCondition::Grounded,
            previous_condition: TrekCondition::Grounded,
            initialized: false,
        }
    }
}

/// How an agent's feet follow a heightmap layer ([`HeightmapGrounding`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GroundingMode {
    /// No grounding (the default): the feet stand on the navmesh position.
    #[default]
    Off,
    /// The feet follow the layer where its height lies within the snap tolerance of the
    /// navmesh position's height; elsewhere they stand on the navmesh position.
    Snap,
    /// The feet follow the layer wherever the agent stands over it.
    Always,
}

/// What the last grounding of an agent found (derived at every update, never recorded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GroundingStatus {
    /// Grounding is off, or has not run since the agent was configured or loaded.
    #[default]
    Off,
    /// The agent does not walk (it crosses a link, falls, flies or is invalid): its feet
    /// are where its position is.
    NotWalking,
    /// The feet stand on the active layer: [`HeightmapGrounding::foot_height`].
    Grounded,
    /// Snap mode: the layer lies farther from the navmesh height than the snap tolerance.
    OutOfTolerance,
    /// The agent stands outside the active layer's samples.
    OffLayer,
    /// Neither the preferred nor the active layer is registered on the world context:
    /// grounding failed (counted in [`crate::UpdateStats::grounding_missing_layers`]);
    /// nothing was built in the layer's place, the agent walks on the mesh.
    MissingLayer,
}

/// The heightmap grounding of an agent (the navigator serialization text's
/// "NavigatorHeightmapGroundingSettings"): mode, preferred layer, active layer, ground
/// offset and snap tolerance, configured with [`crate::Crowd::configure_heightmap_grounding`].
///
/// Grounding changes one value only, [`HeightmapGrounding::foot_height`] (the Y the host
/// puts the agent's feet at); the navmesh position and every rule on it (the corridor,
/// collisions, the surface move) stay as they are. The active-layer rule: the preferred
/// layer when the world context registers it (it becomes the active layer); else the
/// active layer when registered; else grounding fails ([`GroundingStatus::MissingLayer`]).
///
/// ```
/// use onepath_crowd::{
///     AgentParams, Crowd, CrowdSettings, GroundingMode, GroundingStatus, Heightmap,
///     HeightmapGrounding, WorldContext,
/// };
/// use onepath_mesh::fixtures::bridge_and_building;
///
/// let mesh = bridge_and_building();
/// // The host's layer: 8 × 8 samples 0.25 above the ground around the agent.
/// let terrain = Heightmap::new([0.0, 0.0], 1.0, 8, 8, vec![0.25; 64])?;
/// let layers = [("terrain", &terrain)];
/// let world = WorldContext { heightmaps: &layers, ..WorldContext::new(&mesh) };
/// let mut crowd = Crowd::new(CrowdSettings::default())?;
/// let id = crowd.add_agent(&mesh, [2.0, 0.0, 2.0], AgentParams::new(0.4))?;
/// let grounding = HeightmapGrounding::new(GroundingMode::Snap)
///     .with_preferred_layer("terrain")?
///     .with_snap_tolerance(0.5)?;
/// crowd.configure_heightmap_grounding(id, grounding)?;
/// crowd.update(&world, 1.0 / 60.0)?;
/// let agent = crowd.agent(id).unwrap();
/// let g = agent.navigator().grounding;
/// assert_eq!(g.status(), GroundingStatus::Grounded);
/// assert_eq!(g.foot_height(), Some(0.25));
/// // The navmesh position is the mesh's, as without grounding.
/// assert!(agent.position()[1].abs() < 0.25);
///
/// // Without the layer, grounding fails cleanly and the agent walks on.
/// let stats = crowd.update(&WorldContext::new(&mesh), 1.0 / 60.0)?;
/// assert_eq!(stats.grounding_missing_layers, 1);
/// # Ok::<(), onepath_crowd::CrowdError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeightmapGrounding {
    mode: GroundingMode,
    preferred_layer: Option<LayerName>,
    active_layer: Option<LayerName>,
    ground_offset: f64,
    snap_tolerance: f64,
    status: GroundingStatus,
    foot_height: Option<f64>,
}

impl Default for HeightmapGrounding {
    fn default() -> Self {
        HeightmapGrounding::new(GroundingMode::Off)
    }
}

impl HeightmapGrounding {
    /// The canonical default snap tolerance.
    pub const DEFAULT_SNAP_TOLERANCE: f64 = 0.5;

    /// Grounding in `mode`, no layer named, ground offset 0, snap tolerance
    /// [`HeightmapGrounding::DEFAULT_SNAP_TOLERANCE`].
    pub fn new(mode: GroundingMode) -> HeightmapGrounding {
        HeightmapGrounding {
            mode,
            preferred_layer: None,
            active_layer: None,
            ground_offset: 0.0,
            snap_tolerance: Self::DEFAULT_SNAP_TOLERANCE,
            status: GroundingStatus::Off,
            foot_height: None,
        }
    }

    /// With `name` as the preferred layer ([`CrowdError::InvalidLayerName`]).
    pub fn with_preferred_layer(mut self, name: &str) -> Result<Self, CrowdError> {
        self.preferred_layer = Some(LayerName::new(name)?);
        Ok(self)
    }

    /// With `name` as the active layer (the one used while the preferred one is not
    /// registered; [`CrowdError::InvalidLayerName`]).
    pub fn with_active_layer(mut self, name: &str) -> Result<Self, CrowdError> {
        self.active_layer = Some(LayerName::new(name)?);
        Ok(self)
    }

    /// With the feet `offset` above the layer ([`CrowdError::InvalidParameter`] naming
    /// `ground_offset` when not finite).
    pub fn with_ground_offset(mut self, offset: f64) -> Result<Self, CrowdError> {
        if !offset.is_finite() {
            return Err(CrowdError::InvalidParameter {
                what: "ground_offset",
                value: offset,
                rule: "finite",
            });
        }
        self.ground_offset = offset;
        Ok(self)
    }

    /// With the snap tolerance `tolerance` ([`CrowdError::InvalidParameter`] naming
    /// `snap_tolerance` when not finite or negative).
    pub fn with_snap_tolerance(mut self, tolerance: f64) -> Result<Self, CrowdError> {
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            return Err(CrowdError::InvalidParameter {
                what: "snap_tolerance",
                value: tolerance,
                rule: "finite and >= 0",
            });
        }
        self.snap_tolerance = tolerance;
        Ok(self)
    }

    /// The mode.
    pub fn mode(&self) -> GroundingMode {
        self.mode
    }

    /// The layer the host prefers.
    pub fn preferred_layer(&self) -> Option<LayerName> {
        self.preferred_layer
    }

    /// The layer grounding uses while the preferred one is not registered (set to the
    /// preferred one whenever that one is used).
    pub fn active_layer(&self) -> Option<LayerName> {
        self.active_layer
    }

    /// Height of the feet above the layer.
    pub fn ground_offset(&self) -> f64 {
        self.ground_offset
    }

    /// Snap mode: the largest distance between the layer and the navmesh height at which
    /// the feet follow the layer.
    pub fn snap_tolerance(&self) -> f64 {
        self.snap_tolerance
    }

    /// What the last grounding found.
    pub fn status(&self) -> GroundingStatus {
        self.status
    }

    /// The Y of the agent's feet on the layer (layer height + ground offset) when
    /// [`GroundingStatus::Grounded`]; otherwise `None` (the feet stand on the navmesh
    /// position).
    pub fn foot_height(&self) -> Option<f64> {
        self.foot_height
    }

    /// True when the settings (not the derived status and height) are the canonical
    /// defaults.
    pub fn is_default_settings(&self) -> bool {
        let d = HeightmapGrounding::default();
        self.mode == d.mode
            && self.preferred_layer == d.preferred_layer
            && self.active_layer == d.active_layer
            && self.ground_offset.to_bits() == d.ground_offset.to_bits()
            && self.snap_tolerance.to_bits() == d.snap_tolerance.to_bits()
    }

    /// The settings with the derived status and height cleared (what a configure call, a
    /// record or a snapshot installs).
    pub(crate) fn settings_only(self) -> HeightmapGrounding {
        HeightmapGrounding {
            status: GroundingStatus::Off,
            foot_height: None,
            ..self
        }
    }

    /// Settings as read (records, ONCS), every value already checked.
    pub(crate) fn from_parts(
        mode: GroundingMode,
        preferred_layer: Option<LayerName>,
        active_layer: Option<LayerName>,
        ground_offset: f64,
        snap_tolerance: f64,
    ) -> HeightmapGrounding {
        HeightmapGrounding {
            mode,
            preferred_layer,
            active_layer,
            ground_offset,
            snap_tolerance,
            status: GroundingStatus::Off,
            foot_height: None,
        }
    }

    /// Records what a grounding found.
    pub(crate) fn set_outcome(
        &mut self,
        status: GroundingStatus,
        active: Option<LayerName>,
        foot_height: Option<f64>,
    ) {
        self.status = status;
        self.active_layer = active;
        self.foot_height = foot_height;
    }
}

/// The navigator of one agent: transform and motion, steering, turning, motor, and the
/// heightmap grounding settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Navigator {
    /// Transform and motion.
    pub motion: Motion,
    /// The steering session.
    pub steering: Steering,
    /// Turning.
    pub turning: Turning,
    /// The motor.
    pub motor: Motor,
    /// Heightmap grounding (off by default).
    pub grounding: HeightmapGrounding,
}
