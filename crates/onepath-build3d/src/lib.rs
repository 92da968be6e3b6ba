//! onepath-build3d (under construction).
#![forbid(unsafe_code)]
