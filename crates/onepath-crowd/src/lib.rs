//! # onepath-crowd
//!
//! A crowd of agents that walk a [`TiledNavMesh`](onepath_mesh::TiledNavMesh), deterministic
//! to the bit: a game adds agents, gives them targets (a point on the mesh or a velocity)
//! and steps the crowd at a fixed rate with [`Crowd::update`]. Each update serves path
//! requests from a queue under an iteration budget (sliced searches, first come first
//! served), follows and trims each agent's [`PathCorridor`](onepath_mesh::query::PathCorridor),
//! optimises corridors (visibility every step, topology at a budgeted rate), keeps a local
//! boundary of walls, finds neighbours in a uniform proximity grid, steers towards the next
//! corners, separates, chooses a velocity by velocity-sampling obstacle avoidance (Detour's
//! adaptive pattern), integrates, resolves collisions, moves along the surface, crosses
//! off-mesh links, and replans corridors that went stale (a tile replaced or streamed out,
//! polygon flags changed). Agents may also be guided by a grid path (`onepath-gridstate`'s
//! sliced grid A*, under the same budget, replanned when its grid is edited across it), a
//! flow field shared per target by the agents of a movement group (computed once per
//! group, pre-warmable: [`Crowd::prewarm_movement_group`]), a hybrid guide (grid far away,
//! corridor within a switch-over distance), or, for flyers, a voxel path flown by the Fly
//! mode (take-off, flight that never enters a solid voxel, landing or hovering;
//! `docs/crowd.md`, "Guides").
//!
//! Each agent carries a navigator ([`Navigator`]: transform and motion, steering session
//! with its path request, turning, motor with its locomotion modes chosen by the ground,
//! heightmap grounding settings; `docs/crowd.md`, "Navigator"), the authoritative state a
//! record of the agent holds. An agent may put its feet on a host-owned [`Heightmap`]
//! layer registered by name on the [`WorldContext`]
//! ([`Crowd::configure_heightmap_grounding`]): the last step of the update gives its feet
//! height, and the navmesh position moves exactly as without it (`docs/crowd.md`,
//! "Heightmap grounding"). Fly and Climb carry a gravity compensation (default 1: as
//! before; `docs/crowd.md`, "Gravity compensation").
//!
//! ## Saving state (`docs/agent-records.md`, module [`normative`])
//! - [`Crowd::save_snapshot`] / [`Crowd::restore_snapshot`]: ONCS, the canonical binary
//!   snapshot of the whole crowd for rollback (every agent in id order, the path queue and
//!   the search in progress, the proximity grid's input, never its contents).
//! - [`records`]: one agent's record, authoritative state only, canonical defaults left
//!   out, loaded into an agent shell the host created; guides re-acquired from the recorded
//!   request. The `serde` feature carries records as JSON and as postcard binary.
//!
//! ## Invariants
//! - Agents are updated in ascending id order; ids are handed out in increasing order and
//!   never reused. No hash order reaches a result: neighbours are sorted by distance, then
//!   id; every tie-break is written out in `docs/crowd.md` (module [`normative`]).
//! - Only `+ − × ÷ sqrt` reach positions and velocities, in a fixed order; the trigonometry
//!   of the avoidance pattern and the heading comes from `libm`. The same inputs give the
//!   same states to the bit on every platform and thread count.
//! - The path budget changes when a path arrives, never which path: a sliced search answers
//!   as the one-shot one, so a crowd stepped with a budget of 1 holds the same corridors as
//!   with no limit once every request is served.
//! - A walking agent ends every update on a polygon of the mesh passing its filter (the
//!   corridor's constrained move), never inside a wall. A flying agent is always on the
//!   segments of its voxel path, never in a solid voxel.
//! - A movement group's flow field is a function of its grid, goal cell and options,
//!   computed once per grid version and shared by every member; guides' shared data is
//!   rebuilt, never state.
//! - An agent whose target's polygon is gone and cannot be placed again reports
//!   [`TargetState::NoPath`] until the host requests again.
//! - A failed call (bad parameter, unknown agent, a position off the mesh, a bad `dt`)
//!   returns a typed error and changes nothing.
//! - A crowd restored from its snapshot on the same mesh and world steps on bit for bit as
//!   the crowd that never left; the same state gives the same snapshot bytes on every
//!   platform. Hostile snapshot or record bytes never panic: a failed restore leaves the
//!   crowd exactly as it was, a failed record load leaves the agent as its shell was, idle.
//!
//! ## Example
//! ```
//! use onepath_crowd::{AgentParams, Crowd, CrowdSettings, TargetState, WorldContext};
//! use onepath_mesh::fixtures::bridge_and_building;
//! use onepath_mesh::query::{NavMeshQuery, QueryFilter};
//!
//! let mesh = bridge_and_building();
//! let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
//! let id = crowd.add_agent(&mesh, [2.0, 0.0, 2.0], AgentParams::new(0.4)).unwrap();
//! let goal = NavMeshQuery::new()
//!     .find_nearest_poly(&mesh, [44.0, 0.0, 2.0], [1.0, 2.0, 1.0], &QueryFilter::new())
//!     .unwrap()
//!     .unwrap();
//! crowd.request_move_target(id, goal.poly, goal.point).unwrap();
//! let world = WorldContext::new(&mesh);
//! for _ in 0..60 * 20 {
//!     crowd.update(&world, 1.0 / 60.0).unwrap();
//! }
//! let agent = crowd.agent(id).unwrap();
//! assert_eq!(agent.target_state(), TargetState::Valid);
//! assert!(agent.navigator().steering.at_destination);
//!
//! // Rollback: the snapshot restores into any crowd shell, bit for bit.
//! let saved = crowd.save_snapshot();
//! let mut other = Crowd::new(CrowdSettings::default()).unwrap();
//! other.restore_snapshot(&world, &saved).unwrap();
//! assert_eq!(other.save_snapshot(), saved);
//! ```

mod agent;
mod avoidance;
mod boundary;
mod crowd;
mod error;
mod geom;
mod grid;
mod guides;
mod heightmap;
mod navigator;
pub mod normative;
mod params;
mod queue;
pub mod records;
pub mod snapshot;
mod world;

pub use agent::{Agent, AgentState, TargetState};
pub use crowd::{
    Crowd, CrowdSettings, UpdateStats, CHECK_LOOKAHEAD, COLLISION_ITERATIONS,
    COLLISION_RESOLVE_FACTOR, MAX_CORNERS, MAX_NEIGHBOURS, QUICK_SEARCH_ITERATIONS,
    REPATH_COOLDOWN, STUCK_TIME, TARGET_REPLAN_DELAY, TOPOLOGY_OPT_INTERVAL,
    TOPOLOGY_OPT_ITERATIONS,
};
pub use error::CrowdError;
pub use heightmap::{Heightmap, LayerName, MAX_LAYER_NAME};
pub use navigator::{
    AgentId, ClimbLocomotion, FallLocomotion, FlyLocomotion, GroundingMode, GroundingStatus,
    HeightmapGrounding, JumpLocomotion, LinkTraversal, LocomotionHandler, LocomotionKind, Motion,
    Motor, MoveLocomotion, Navigator, PathRequest, PathRequestKind, PlatformLocomotion,
    RequestSettings, SlideLocomotion, Steering, SteeringTuning, TravelMode, TrekCondition, Turning,
    WaterLocomotion,
};
pub use params::{AgentParams, AvoidanceParams, AvoidanceQuality, AvoidanceType, UpdateFlags};
pub use world::WorldContext;
