//! One agent of a crowd: its navigator, parameters, target, corridor and the caches the
//! update rebuilds.

use onepath_format::PolyRef;
use onepath_mesh::query::{PathCorridor, QueryFilter, StraightPathPoint, Vec3};

use crate::boundary::LocalBoundary;
use crate::navigator::{AgentId, Navigator, PathRequestKind};
use crate::params::AgentParams;

/// Where an agent is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentState {
    /// Not on the mesh (placed off it, fell off it, or its ground vanished and a fall ran
    /// out); it waits for the host to place it again.
    Invalid,
    /// On the mesh, walking (or standing).
    Walking,
    /// Crossing an off-mesh link.
    OffMesh,
    /// Falling: no ground under it.
    Falling,
    /// Flying along a voxel path (the Fly mode in control; `docs/crowd.md`, "Guides").
    Flying,
}

/// The state of an agent's target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TargetState {
    /// No target.
    None,
    /// The target could not be reached or placed (no polygon near it, for instance
    /// because its tiles streamed out); stays until the host requests again.
    NoPath,
    /// A corridor to the target is set.
    Valid,
    /// A request waits to be queued at the next update.
    Requesting,
    /// Queued; its search runs under the path budget.
    WaitingForPath,
    /// The agent moves at a velocity the host set.
    Velocity,
}

/// The plan of a grid-guided agent: the grid (by id in the world context), the goal cell
/// and the path's cell centres in world space, with the next one to steer to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GridGuide {
    pub(crate) grid_id: u32,
    pub(crate) goal: (u32, u32),
    pub(crate) waypoints: Vec<Vec3>,
    pub(crate) next: usize,
    /// A loaded guide's search starts here (the recorded request's origin cell) instead of
    /// the cell under the agent.
    pub(crate) start: Option<(u32, u32)>,
    /// A loaded guide's waypoint progress, restored when its path arrives.
    pub(crate) resume: Option<usize>,
}

/// An agent: navigator, parameters, target and corridor.
#[derive(Debug, Clone)]
pub struct Agent {
    pub(crate) nav: Navigator,
    pub(crate) params: AgentParams,
    pub(crate) state: AgentState,
    pub(crate) target_state: TargetState,
    /// The target polygon (for a velocity target, NULL).
    pub(crate) target_ref: PolyRef,
    /// The target point, or the velocity of a velocity target.
    pub(crate) target_pos: Vec3,
    /// Advances with every new target or replan; a queued request of another serial is
    /// stale.
    pub(crate) serial: u64,
    /// Seconds since the target was last planned.
    pub(crate) target_replan_time: f64,
    /// The pending request replans a corridor (its quick search keeps to the corridor).
    pub(crate) replanning: bool,
    pub(crate) topology_opt_time: f64,
    pub(crate) corridor: PathCorridor,
    /// Set for a grid-guided agent (a grid A* request); its corridor is then only the
    /// polygon it stands in.
    pub(crate) grid: Option<GridGuide>,
    /// The state of a flow-field, voxel or hybrid guide (`crate::guides`); none for a
    /// navmesh corridor or a plain grid A* path.
    pub(crate) guide: Option<crate::guides::Guide>,
    pub(crate) boundary: LocalBoundary,
    /// (squared X/Z distance, agent index) of the neighbours, nearest first, then by id.
    pub(crate) neighbours: Vec<(f64, u32)>,
    pub(crate) corners: Vec<StraightPathPoint>,
    pub(crate) desired_speed: f64,
    pub(crate) dvel: Vec3,
    pub(crate) nvel: Vec3,
    pub(crate) disp: Vec3,
}

impl Agent {
    /// The agent's id.
    pub fn id(&self) -> AgentId {
        self.nav.motion.id
    }

    /// The navigator (transform, steering, turning, motor).
    pub fn navigator(&self) -> &Navigator {
        &self.nav
    }

    /// The parameters.
    pub fn params(&self) -> &AgentParams {
        &self.params
    }

    /// The filter the agent follows, checks and repairs its corridor with, and moves on
    /// the mesh with: while a navmesh or hybrid request stands (until the next request,
    /// [`crate::Crowd::reset_move_target`] or an arrival that stops), the filter that request
    /// planned with (the agent's, with the request's walkability override, if any, as
    /// include flags); otherwise the agent's own ([`AgentParams::filter`]).
    pub fn corridor_filter(&self) -> QueryFilter {
        let mut f = self.params.filter;
        if let Some(r) = self.nav.steering.request {
            if matches!(r.kind, PathRequestKind::NavMesh | PathRequestKind::Hybrid) {
                if let Some(flags) = r.walkability_override {
                    f.set_include_flags(flags);
                }
            }
        }
        f
    }

    /// The position.
    pub fn position(&self) -> Vec3 {
        self.nav.motion.position
    }

    /// The velocity.
    pub fn velocity(&self) -> Vec3 {
        self.nav.motion.velocity
    }

    /// The desired velocity of the last update (steering and separation, before
    /// avoidance).
    pub fn desired_velocity(&self) -> Vec3 {
        self.dvel
    }

    /// Where the agent is in its life.
    pub fn state(&self) -> AgentState {
        self.state
    }

    /// The state of the target.
    pub fn target_state(&self) -> TargetState {
        self.target_state
    }

    /// The corridor (position, target, polygons).
    pub fn corridor(&self) -> &PathCorridor {
        &self.corridor
    }

    /// The corners the agent steers along (at most four, up to an off-mesh departure).
    pub fn corners(&self) -> &[StraightPathPoint] {
        &self.corners
    }

    /// The ids of the neighbours considered, nearest first.
    pub fn neighbour_count(&self) -> usize {
        self.neighbours.len()
    }

    /// The wall segments of the local boundary, nearest first.
    pub fn boundary_segments(&self) -> impl Iterator<Item = (Vec3, Vec3)> + '_ {
        self.boundary.segments.iter().map(|s| (s.1, s.2))
    }

    /// Appends the agent's authoritative state to `out` in a fixed little-endian layout
    /// (what the hash matrix hashes each step): id, life and target states, positions,
    /// velocities, heading, the corridor, the locomotion mode and its traversal, a grid
    /// guide's progress, then the state of a flow-field, voxel, hybrid or replanner guide
    /// (nothing without one; `docs/crowd.md`, "State").
    pub fn write_state(&self, out: &mut Vec<u8>) {
        let m = &self.nav.motion;
        let f = |out: &mut Vec<u8>, v: f64| out.extend_from_slice(&v.to_bits().to_le_bytes());
        let v3 = |out: &mut Vec<u8>, v: Vec3| {
            for c in v {
                f(out, c);
            }
        };
        out.extend_from_slice(&m.id.0.to_le_bytes());
        out.push(self.state as u8);
        out.push(self.target_state as u8);
        v3(out, m.position);
        v3(out, m.last_position);
        v3(out, m.velocity);
        f(out, m.rotation);
        f(out, m.speed);
        v3(out, self.dvel);
        v3(out, self.nvel);
        v3(out, self.target_pos);
        out.extend_from_slice(&self.target_ref.0.to_le_bytes());
        v3(out, self.corridor.pos());
        v3(out, self.corridor.target());
        out.extend_from_slice(&(self.corridor.path().len() as u32).to_le_bytes());
        for r in self.corridor.path() {
            out.extend_from_slice(&r.0.to_le_bytes());
        }
        let s = &self.nav.steering;
        out.push(u8::from(s.at_destination) | u8::from(s.is_stuck) << 1);
        out.extend_from_slice(&s.repath_count.to_le_bytes());
        let h = &self.nav.motor.handler;
        out.push(h.mode as u8);
        let traversal = h
            .jump
            .and_then(|j| j.active)
            .or(h.climb.and_then(|c| c.active));
        if let Some(t) = traversal {
            f(out, t.elapsed);
            f(out, t.duration);
        }
        if h.fall.falling {
            f(out, h.fall.vertical_speed);
        }
        if let Some(g) = &self.grid {
            out.extend_from_slice(&g.grid_id.to_le_bytes());
            out.extend_from_slice(&(g.next as u32).to_le_bytes());
            out.extend_from_slice(&(g.waypoints.len() as u32).to_le_bytes());
        }
        crate::guides::write_guide_state(self, out);
    }
}
