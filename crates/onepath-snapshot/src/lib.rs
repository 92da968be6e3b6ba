//! onepath-snapshot (under construction).
#![forbid(unsafe_code)]
