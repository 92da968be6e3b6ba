//! The one error type of the harness.

/// Why a build, a conversion or a query of the harness failed.
///
/// Every variant names where: the OBJ line, the tile, the polygon, the vertex or the Recast
/// or Detour call that refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PeerError {
    /// The OBJ text is malformed at `line` (1-based).
    #[error("OBJ line {line}: {reason}")]
    Obj {
        /// 1-based line number.
        line: usize,
        /// What is wrong on that line.
        reason: String,
    },
    /// A file could not be read.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// The path that was read.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// Input data handed to a wrapper breaks a precondition of the C++ call (an index out of
    /// range, a count that does not fit, a value off the quantization grid). Nothing was
    /// passed to C++.
    #[error("invalid input at {at}: {reason}")]
    Input {
        /// Where: array, tile, polygon, edge or vertex.
        at: String,
        /// What is wrong there.
        reason: String,
    },
    /// A Recast build step returned failure.
    #[error("Recast {step} failed for tile ({tile_x}, {tile_z})")]
    Recast {
        /// The Recast function that failed.
        step: &'static str,
        /// Tile column.
        tile_x: i32,
        /// Tile row.
        tile_z: i32,
    },
    /// A Detour call returned a failure status.
    #[error("Detour {call} failed with status {status:#010x}")]
    Detour {
        /// The Detour function that failed.
        call: &'static str,
        /// The raw `dtStatus` (failure bit and detail bits).
        status: u32,
    },
    /// A OnePath build or query refused (its own typed error, as text).
    #[error("OnePath {call} failed: {reason}")]
    OnePath {
        /// The OnePath function that failed.
        call: &'static str,
        /// OnePath's error message.
        reason: String,
    },
    /// A Recast or Detour allocation returned null.
    #[error("allocation of {what} failed")]
    Alloc {
        /// What was allocated.
        what: &'static str,
    },
}

impl PeerError {
    /// Shorthand for [`PeerError::Input`].
    pub fn input(at: impl Into<String>, reason: impl Into<String>) -> Self {
        PeerError::Input {
            at: at.into(),
            reason: reason.into(),
        }
    }
}
