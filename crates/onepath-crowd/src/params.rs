//! Agent parameters, update flags and the obstacle avoidance presets.

use onepath_mesh::query::QueryFilter;

use crate::error::CrowdError;

/// Which parts of the update run for an agent (a set of bits, Detour's meaning).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UpdateFlags(pub u8);

impl UpdateFlags {
    /// Steer with the turn ahead in view (towards a point between the next two corners).
    pub const ANTICIPATE_TURNS: UpdateFlags = UpdateFlags(1);
    /// Velocity-sampling obstacle avoidance.
    pub const OBSTACLE_AVOIDANCE: UpdateFlags = UpdateFlags(2);
    /// Separation from neighbours.
    pub const SEPARATION: UpdateFlags = UpdateFlags(4);
    /// Visibility optimisation of the corridor towards the next corner.
    pub const OPTIMIZE_VISIBILITY: UpdateFlags = UpdateFlags(8);
    /// Topology optimisation of the corridor (a short path search) at a budgeted rate.
    pub const OPTIMIZE_TOPOLOGY: UpdateFlags = UpdateFlags(16);
    /// Every flag.
    pub const ALL: UpdateFlags = UpdateFlags(31);

    /// True when every bit of `other` is set.
    pub fn contains(self, other: UpdateFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

/// The avoidance quality presets (Detour's four: low, medium, good, high).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AvoidanceQuality {
    /// 5 directions, 2 rings, 1 refinement.
    Low,
    /// 5 directions, 2 rings, 2 refinements.
    Medium,
    /// 7 directions, 2 rings, 3 refinements.
    Good,
    /// 7 directions, 3 rings, 3 refinements.
    High,
}

/// How an agent chooses its velocity among obstacles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AvoidanceType {
    /// The desired velocity as is (neighbours still separate and collide).
    None,
    /// Velocity sampling with the adaptive pattern at the given quality.
    Adaptive(AvoidanceQuality),
}

/// The weights and pattern of the velocity-sampling obstacle avoidance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AvoidanceParams {
    /// How far the sampling centre moves towards the desired velocity (0..=1).
    pub vel_bias: f64,
    /// Weight of the distance from the desired velocity.
    pub weight_desired_vel: f64,
    /// Weight of the distance from the current velocity.
    pub weight_current_vel: f64,
    /// Weight of passing obstacles on the wrong side.
    pub weight_side: f64,
    /// Weight of the time of impact.
    pub weight_toi: f64,
    /// Time horizon of impacts, seconds.
    pub horizon_time: f64,
    /// Directions per ring (1..=32).
    pub adaptive_divs: u8,
    /// Rings (1..=4).
    pub adaptive_rings: u8,
    /// Refinements (1..=8).
    pub adaptive_depth: u8,
}

impl AvoidanceParams {
    /// The preset of a quality: Detour's weights (bias 0.4, desired 2, current 0.75,
    /// side 0.75, impact 2.5, horizon 2.5 s) and the quality's pattern.
    pub fn preset(q: AvoidanceQuality) -> AvoidanceParams {
        let (divs, rings, depth) = match q {
            AvoidanceQuality::Low => (5, 2, 1),
            AvoidanceQuality::Medium => (5, 2, 2),
            AvoidanceQuality::Good => (7, 2, 3),
            AvoidanceQuality::High => (7, 3, 3),
        };
        AvoidanceParams {
            vel_bias: 0.4,
            weight_desired_vel: 2.0,
            weight_current_vel: 0.75,
            weight_side: 0.75,
            weight_toi: 2.5,
            horizon_time: 2.5,
            adaptive_divs: divs,
            adaptive_rings: rings,
            adaptive_depth: depth,
        }
    }
}

/// The parameters of one agent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AgentParams {
    /// Radius, > 0.
    pub radius: f64,
    /// Height, > 0.
    pub height: f64,
    /// Largest speed, ≥ 0.
    pub max_speed: f64,
    /// Largest change of velocity per second, ≥ 0.
    pub max_acceleration: f64,
    /// Neighbours and walls within this range (X/Z) are considered, > 0.
    pub collision_query_range: f64,
    /// How far ahead the visibility optimisation looks, > 0.
    pub path_optimization_range: f64,
    /// Strength of the separation from neighbours, ≥ 0.
    pub separation_weight: f64,
    /// Which parts of the update run.
    pub update_flags: UpdateFlags,
    /// How the agent avoids obstacles.
    pub avoidance: AvoidanceType,
    /// Which polygons the agent may walk (flags) and what each area costs.
    pub filter: QueryFilter,
}

impl AgentParams {
    /// Parameters for an agent of `radius`: height 2, max speed 3.5, acceleration 8,
    /// query range 12 radii, optimisation range 30 radii, separation 2, every update
    /// flag, high-quality adaptive avoidance, the default filter (Detour's demo agent).
    pub fn new(radius: f64) -> AgentParams {
        AgentParams {
            radius,
            height: 2.0,
            max_speed: 3.5,
            max_acceleration: 8.0,
            collision_query_range: radius * 12.0,
            path_optimization_range: radius * 30.0,
            separation_weight: 2.0,
            update_flags: UpdateFlags::ALL,
            avoidance: AvoidanceType::Adaptive(AvoidanceQuality::High),
            filter: QueryFilter::new(),
        }
    }

    /// Checks every number: [`CrowdError::InvalidParameter`] naming the first bad one.
    pub fn validate(&self) -> Result<(), CrowdError> {
        let positive = [
            ("radius", self.radius),
            ("height", self.height),
            ("collision_query_range", self.collision_query_range),
            ("path_optimization_range", self.path_optimization_range),
        ];
        for (what, v) in positive {
            if !(v.is_finite() && v > 0.0) {
                return Err(CrowdError::InvalidParameter {
                    what,
                    value: v,
                    rule: "finite and > 0",
                });
            }
        }
        let non_negative = [
            ("max_speed", self.max_speed),
            ("max_acceleration", self.max_acceleration),
            ("separation_weight", self.separation_weight),
        ];
        for (what, v) in non_negative {
            if !(v.is_finite() && v >= 0.0) {
                return Err(CrowdError::InvalidParameter {
                    what,
                    value: v,
                    rule: "finite and >= 0",
                });
            }
        }
        Ok(())
    }
}

impl Default for AgentParams {
    /// [`AgentParams::new`] with radius 0.6.
    fn default() -> Self {
        AgentParams::new(0.6)
    }
}
