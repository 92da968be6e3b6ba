//! Errors of the crowd.

use onepath_format::FormatError;
use onepath_mesh::query::QueryError;

use crate::AgentId;

/// A crowd call that could not run; the crowd is left exactly as it was.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CrowdError {
    /// An agent parameter outside its range.
    #[error("agent parameter {what} = {value} must be {rule}")]
    InvalidParameter {
        /// The parameter, e.g. `radius`.
        what: &'static str,
        /// The value given.
        value: f64,
        /// What it must be.
        rule: &'static str,
    },
    /// A crowd setting outside its range.
    #[error("crowd setting {what} = {value} must be {rule}")]
    InvalidSetting {
        /// The setting, e.g. `max_agents`.
        what: &'static str,
        /// The value given.
        value: f64,
        /// What it must be.
        rule: &'static str,
    },
    /// The crowd already holds its largest number of agents.
    #[error("the crowd is full ({max} agents)")]
    Full {
        /// The crowd's capacity.
        max: usize,
    },
    /// No agent has this id (never added, or removed).
    #[error("no agent {0:?} in the crowd")]
    UnknownAgent(AgentId),
    /// No polygon within the search box around the position.
    #[error("no walkable polygon within the search box around ({x}, {y}, {z})")]
    OffMesh {
        /// X of the position.
        x: f64,
        /// Y of the position.
        y: f64,
        /// Z of the position.
        z: f64,
    },
    /// A position, velocity or time step that is not finite.
    #[error("{what} is not finite")]
    NotFinite {
        /// The argument or its coordinate, e.g. `dt` or `target.x`.
        what: &'static str,
    },
    /// A grid A* request whose grid is not in the world context, or whose target is off the
    /// grid or on a blocked cell.
    #[error("grid {grid}: no walkable cell at ({x}, {z})")]
    OffGrid {
        /// The grid id.
        grid: u32,
        /// X of the target.
        x: f64,
        /// Z of the target.
        z: f64,
    },
    /// A path request kind the crowd does not serve (every kind of [`crate::PathRequestKind`]
    /// is served now; kept for hosts that match on it).
    #[error("path request kind {0:?} is not served by the navmesh crowd")]
    UnsupportedRequest(crate::PathRequestKind),
    /// Saved crowd or agent state that could not be read: malformed bytes
    /// ([`FormatError::Malformed`] naming the field, e.g. `agent 3: corridor polygon
    /// count`), an unknown version, or values that break a rule
    /// ([`FormatError::State`] with format `"crowd"` or `"agent record"`).
    #[error("crowd state could not be restored: {0}")]
    State(FormatError),
    /// Saved state names a part of the world context the context lacks (a grid, a platform
    /// or a mesh region); the host binds the context before it loads.
    #[error("agent {agent:?}: the world context has no {what} {id}")]
    UnknownContext {
        /// The agent whose state names it.
        agent: AgentId,
        /// What is missing: `"grid"`, `"voxel grid"`, `"platform"` or `"mesh"`.
        what: &'static str,
        /// The id named.
        id: u32,
    },
    /// A list of the world context out of its order: `platforms`, `grids` and `voxels`
    /// must ascend by id and `heightmaps` by name (byte order), each id or name once
    /// ([`crate::WorldContext::check_order`]; checked before anything moves).
    #[error(
        "world context {list}: {next} follows {previous}, but the {list} must ascend, each once"
    )]
    ContextOrder {
        /// The list: `"platforms"`, `"grids"`, `"voxels"` or `"heightmaps"`.
        list: &'static str,
        /// The id (or layer name) before.
        previous: String,
        /// The id (or layer name) that is not greater than it.
        next: String,
    },
    /// A path request value outside its range (the [`crate::PathRequest`] constructors).
    #[error("path request {what} = {value} must be {rule}")]
    InvalidRequest {
        /// The value, e.g. `switch_distance` or `target.x`.
        what: &'static str,
        /// The value given.
        value: f64,
        /// What it must be.
        rule: &'static str,
    },
    /// A heightmap layer name that is empty or too long.
    #[error("heightmap layer name {name:?} must be {rule}")]
    InvalidLayerName {
        /// The name given.
        name: String,
        /// What it must be.
        rule: &'static str,
    },
    /// A heightmap value outside its range ([`crate::Heightmap::new`]).
    #[error("heightmap {what} [{index}] = {value} must be {rule}")]
    InvalidHeightmap {
        /// The value, e.g. `cell size` or `sample`.
        what: &'static str,
        /// Its index (the sample's, the origin's axis; 0 for a single value).
        index: usize,
        /// The value given.
        value: f64,
        /// What it must be.
        rule: &'static str,
    },
    /// A mesh query failed (a bad reference or coordinate).
    #[error(transparent)]
    Query(#[from] QueryError),
}
