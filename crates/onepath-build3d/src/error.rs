//! The builder's error type.

use onepath_format::{CoordinateError, FormatError};
use onepath_mesh::MeshError;

/// Why a build failed. Every variant names the value or item at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A setting is out of its range (`what` names the setting).
    #[error("invalid setting {what}: {reason}")]
    InvalidSetting {
        /// The setting's name.
        what: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The input geometry breaks a rule (`what` names the array, triangle or vertex).
    #[error("invalid input {what}: {reason}")]
    InvalidInput {
        /// Where the fault is (e.g. `triangle 7: index 2`).
        what: String,
        /// What is wrong there.
        reason: String,
    },
    /// A world coordinate outside the coordinate rule (finite, strictly within ±2^21).
    #[error(transparent)]
    Coordinate(#[from] CoordinateError),
    /// A produced tile failed the format's validation (a builder bug; reported, never hidden).
    #[error("tile ({tile_x}, {tile_z}, layer {layer}) failed validation: {source}")]
    Tile {
        /// Tile column.
        tile_x: i32,
        /// Tile row.
        tile_z: i32,
        /// Tile layer.
        layer: u16,
        /// The format's error.
        source: FormatError,
    },
    /// The parameters derived from the settings are not valid mesh parameters.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// Adding a built tile to the mesh failed (a builder bug; reported, never hidden).
    #[error(transparent)]
    Mesh(#[from] MeshError),
}

impl BuildError {
    pub(crate) fn input(what: impl Into<String>, reason: impl Into<String>) -> Self {
        BuildError::InvalidInput {
            what: what.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn setting(what: &'static str, reason: impl Into<String>) -> Self {
        BuildError::InvalidSetting {
            what,
            reason: reason.into(),
        }
    }
}
