//! The error family every OnePath reader shares.

use std::fmt;

use crate::params::Fingerprint;

/// A byte-level or rule-level failure: malformed input, an unknown version, or a tile
/// built against other parameters.
///
/// Every variant names where the failure is (a field, slot, polygon, edge or array), so a
/// message read out of a log is enough to find the offending byte.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// The bytes or data break a rule of the format. `at` names the field, slot, polygon or
    /// edge (outermost context first, e.g. `slot 3: tile: polygon 7: edge 2`).
    #[error("malformed {at}: {reason}")]
    Malformed {
        /// Where: field, slot, polygon, edge or array.
        at: String,
        /// What is wrong there.
        reason: String,
    },
    /// A version this reader does not know (for navmesh layouts: anything but 2).
    #[error("unsupported {what} version {found} (expected {expected})")]
    Version {
        /// Which layout (e.g. "ONPT").
        what: &'static str,
        /// The version found in the bytes.
        found: u16,
        /// The version this reader accepts.
        expected: u16,
    },
    /// A Referenced snapshot restored without a tile library (a Full-only restore).
    #[error("{at} holds a referenced tile: restoring it needs a tile library")]
    LibraryRequired {
        /// The first slot that names a tile by content id (`slot 3`).
        at: String,
    },
    /// A tile (or snapshot, or library tile) built against other parameters.
    #[error("fingerprint mismatch{}: found {found}, expected {expected}", at_suffix(.at))]
    Fingerprint {
        /// Where the mismatching tile was found (may be empty).
        at: String,
        /// The fingerprint the tile carries.
        found: Fingerprint,
        /// The fingerprint of the parameters it was checked against.
        expected: Fingerprint,
    },
    /// An object's saved state is inconsistent, or does not fit the object it is restored
    /// into. One variant serves every state format: `format` says which (the OPGS
    /// families of `onepath-gridstate` are `"grid"` and `"graph"`), so a new state format
    /// names itself here instead of adding a variant.
    #[error("{format} state error: {message}")]
    State {
        /// The state format (and family) the bytes were read as, e.g. `"grid"`.
        format: &'static str,
        /// Names the mismatch or the broken rule.
        message: String,
    },
}

fn at_suffix(at: &str) -> String {
    if at.is_empty() {
        String::new()
    } else {
        format!(" at {at}")
    }
}

/// The kind of a [`FormatError`], for callers that branch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FormatErrorKind {
    /// [`FormatError::Malformed`].
    Malformed,
    /// [`FormatError::Version`].
    Version,
    /// [`FormatError::LibraryRequired`].
    LibraryRequired,
    /// [`FormatError::Fingerprint`].
    Fingerprint,
    /// [`FormatError::State`].
    State,
}

impl FormatError {
    /// A malformed-input error at `at`.
    pub fn malformed(at: impl fmt::Display, reason: impl fmt::Display) -> Self {
        FormatError::Malformed {
            at: at.to_string(),
            reason: reason.to_string(),
        }
    }

    /// The error's kind.
    pub fn kind(&self) -> FormatErrorKind {
        match self {
            FormatError::Malformed { .. } => FormatErrorKind::Malformed,
            FormatError::Version { .. } => FormatErrorKind::Version,
            FormatError::LibraryRequired { .. } => FormatErrorKind::LibraryRequired,
            FormatError::Fingerprint { .. } => FormatErrorKind::Fingerprint,
            FormatError::State { .. } => FormatErrorKind::State,
        }
    }

    /// Prefixes the location with an outer context (`slot 3`, `tile`), so nested readers
    /// produce `slot 3: tile: polygon 7`.
    pub fn within(self, context: impl fmt::Display) -> Self {
        match self {
            FormatError::Malformed { at, reason } => FormatError::Malformed {
                at: format!("{context}: {at}"),
                reason,
            },
            FormatError::Fingerprint {
                at,
                found,
                expected,
            } => FormatError::Fingerprint {
                at: if at.is_empty() {
                    context.to_string()
                } else {
                    format!("{context}: {at}")
                },
                found,
                expected,
            },
            FormatError::State { format, message } => FormatError::State {
                format,
                message: format!("{context}: {message}"),
            },
            other => other,
        }
    }
}

/// A world coordinate (or another public numeric argument) outside its allowed range.
///
/// World positions must be finite and lie strictly within ±2^21 ([`crate::COORD_BOUND`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{what} = {value} is out of range (bound {bound})")]
pub struct CoordinateError {
    /// The argument, e.g. `start.x` or `OffMeshLinks[2].end.z`.
    pub what: String,
    /// The value given.
    pub value: f64,
    /// The bound it broke.
    pub bound: f64,
}

impl From<CoordinateError> for FormatError {
    /// A value out of range read from bytes is a format error naming it
    /// (`Malformed { at: what, .. }`).
    fn from(e: CoordinateError) -> Self {
        FormatError::malformed(
            &e.what,
            format!("{} is out of range (bound {})", e.value, e.bound),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_error_keeps_its_format_and_gains_the_context() {
        let e = FormatError::State {
            format: "graph",
            message: "node count 3 does not match 4".to_string(),
        };
        assert_eq!(e.kind(), FormatErrorKind::State);
        assert_eq!(
            e.to_string(),
            "graph state error: node count 3 does not match 4"
        );
        assert_eq!(
            e.within("embedded search"),
            FormatError::State {
                format: "graph",
                message: "embedded search: node count 3 does not match 4".to_string(),
            }
        );
    }
}
