//! The tile cache's error type.

use onepath_build3d::BuildError;
use onepath_mesh::MeshError;

use crate::shapes::{ObstacleId, VolumeId};

/// Why a tile cache operation failed. Every variant names the value or item at fault; a
/// failed operation changes nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TileCacheError {
    /// The build, or a shape's or volume's value, broke a rule of the builder: the error
    /// names the value (`obstacle.radius`, `volume.points[2]`).
    #[error(transparent)]
    Build(#[from] BuildError),
    /// `remove_obstacle` of an id the cache does not hold (never given, or removed).
    #[error("no obstacle with id {id} in the tile cache")]
    UnknownObstacle {
        /// The id asked for.
        id: ObstacleId,
    },
    /// `remove_volume` of an id the cache does not hold (never given, or removed).
    #[error("no area volume with id {id} in the tile cache")]
    UnknownVolume {
        /// The id asked for.
        id: VolumeId,
    },
    /// Every id up to 2^31 − 1 has been given out (ids are never reused).
    #[error("the tile cache has given out every {what} id (up to 2^31 - 1); ids are never reused")]
    IdsExhausted {
        /// `"obstacle"` or `"volume"`.
        what: &'static str,
    },
    /// 2^20 obstacles (or volumes) are in force already, the most an ONTK snapshot holds.
    #[error("the tile cache holds {max} {what}s already, the most a snapshot can hold")]
    TooMany {
        /// `"obstacle"` or `"volume"`.
        what: &'static str,
        /// The limit (2^20).
        max: usize,
    },
    /// Swapping a rebuilt tile into the mesh failed (a cache bug; reported, never hidden).
    #[error("swapping a rebuilt tile into the mesh failed: {0}")]
    Mesh(#[from] MeshError),
}
