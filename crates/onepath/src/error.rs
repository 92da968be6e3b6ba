//! The facade's one error type: every lower crate's error, plus the tier-1 API's own.

use onepath_build3d::BuildError;
use onepath_crowd::{AgentId, CrowdError};
use onepath_format::{CoordinateError, FormatError};
use onepath_gridstate::GridError;
use onepath_mesh::query::QueryError;
use onepath_mesh::MeshError;
use onepath_tilecache::TileCacheError;

/// Why a facade call failed. Each variant keeps the lower crate's error, which names the
/// value, field, tile or polygon at fault; the facade's own variants name the argument.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Bytes that break a format rule (ONNM, ONNW, ONPM, ONPS, ONTK, OPGS), or settings that
    /// do not fit a mesh.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// A world coordinate or another numeric argument out of its range.
    #[error(transparent)]
    Coordinate(#[from] CoordinateError),
    /// The build failed (settings, input geometry, authored links).
    #[error(transparent)]
    Build(#[from] BuildError),
    /// A mesh edit failed (streaming, tiles).
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// A query failed.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// A tile cache call failed.
    #[error(transparent)]
    TileCache(#[from] TileCacheError),
    /// A crowd call failed.
    #[error(transparent)]
    Crowd(#[from] CrowdError),
    /// A grid call failed, or the host's grids were given out of id order.
    #[error(transparent)]
    Grid(#[from] GridError),
    /// A point given to a query lies on no polygon within the search box around it.
    #[error("{what} {point:?} is not on the mesh (no polygon within {half_extents:?} of it)")]
    NotOnMesh {
        /// The argument (`start`, `end`, `point`).
        what: &'static str,
        /// The point given.
        point: [f64; 3],
        /// The half extents of the search box.
        half_extents: [f64; 3],
    },
    /// A tile-cache call on a mesh built without a tile cache.
    #[error("this NavMesh was built without a tile cache ({call} needs one)")]
    NoTileCache {
        /// The call made.
        call: &'static str,
    },
    /// A world or crowd call with no agent class, or an agent class index out of range.
    #[error("agent class {class} does not exist (the world has {count})")]
    NoSuchClass {
        /// The class asked for.
        class: usize,
        /// The number of classes.
        count: usize,
    },
    /// A [`WorldSnapshot::restore`](crate::WorldSnapshot::restore) whose crowd names a part
    /// of the world that the restore lacks: a platform or voxel grid not registered on the
    /// [`WorldCrowd`](crate::WorldCrowd), or a grid not among the grids given. Nothing was
    /// restored.
    #[error(
        "crowd {class}: agent {} names {what} {id}, which the world lacks (register platforms \
         and voxel grids on the WorldCrowd and pass the grids before restoring)",
        agent.0
    )]
    MissingContext {
        /// The agent class of the crowd.
        class: usize,
        /// The agent, in that class's crowd.
        agent: AgentId,
        /// What is missing: `"platform"`, `"voxel grid"` or `"grid"`.
        what: &'static str,
        /// The missing id.
        id: u32,
    },
    /// A [`NavWorld`](crate::NavWorld) that is not the one a
    /// [`WorldCrowd`](crate::WorldCrowd) was made for: the mesh of class `class` has other
    /// mesh parameters (settings digest and parameter block, what its build fingerprint
    /// covers) than the class the crowd's agents were placed on. Nothing changed.
    #[error(
        "agent class {class}: the world's mesh (fingerprint {found}) is not the one the world          crowd was made for (fingerprint {expected}); pass the NavWorld the crowd was made with"
    )]
    OtherWorld {
        /// The first class whose mesh differs.
        class: usize,
        /// The build fingerprint of the class the world crowd was made for.
        expected: onepath_format::Fingerprint,
        /// The build fingerprint of the given world's class.
        found: onepath_format::Fingerprint,
    },
}

/// The facade's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
