//! The builder's error type.

use std::path::PathBuf;
use std::sync::Arc;

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
    /// An input file could not be read: its path and the I/O error.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: IoCause,
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

/// The I/O error of [`BuildError::Io`], shared so that the error stays `Clone`. Two are equal
/// when their kind and message are.
#[derive(Debug, Clone)]
pub struct IoCause(Arc<std::io::Error>);

impl IoCause {
    /// The error itself.
    pub fn get(&self) -> &std::io::Error {
        &self.0
    }
}

impl From<std::io::Error> for IoCause {
    fn from(e: std::io::Error) -> Self {
        IoCause(Arc::new(e))
    }
}

impl PartialEq for IoCause {
    fn eq(&self, other: &Self) -> bool {
        self.0.kind() == other.0.kind() && self.0.to_string() == other.0.to_string()
    }
}

impl std::fmt::Display for IoCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for IoCause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
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
