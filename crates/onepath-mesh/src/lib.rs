//! onepath-mesh (under construction).
#![forbid(unsafe_code)]
