//! Errors for misuse of the grid and search API (bytes errors are `onepath_format::FormatError`).

/// A call that the arguments make impossible. Never a panic: every public entry point
/// checks its inputs and returns one of these.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GridError {
    /// A coordinate, size, node or area lies outside its allowed range.
    #[error("{what} {value} out of range (allowed {min}..={max})")]
    OutOfRange {
        /// Which argument (e.g. "x", "start node").
        what: &'static str,
        /// The value given.
        value: i64,
        /// The smallest allowed value.
        min: i64,
        /// The largest allowed value.
        max: i64,
    },
    /// An argument breaks a rule other than a range (NaN, negative weight, bad option).
    #[error("invalid {what}: {reason}")]
    Invalid {
        /// Which argument.
        what: &'static str,
        /// The broken rule.
        reason: String,
    },
    /// A sliced search was stepped with a grid or graph that changed (or is another object)
    /// since `begin`; begin again.
    #[error("the searched object changed since begin (version {began}, now {now})")]
    Stale {
        /// The version seen at `begin`.
        began: u64,
        /// The version seen now.
        now: u64,
    },
    /// An input file or reader could not be read (the message says why).
    #[error("cannot read {what}: {reason}")]
    Unreadable {
        /// The path read, or "reader".
        what: String,
        /// The I/O error.
        reason: String,
    },
    /// `step` or `result` was called before `begin`.
    #[error("no search has begun")]
    NotBegun,
}

pub(crate) fn out_of_range(what: &'static str, value: i64, min: i64, max: i64) -> GridError {
    GridError::OutOfRange {
        what,
        value,
        min,
        max,
    }
}

pub(crate) fn invalid(what: &'static str, reason: impl Into<String>) -> GridError {
    GridError::Invalid {
        what,
        reason: reason.into(),
    }
}
