//! onepath-stitch (under construction).
#![forbid(unsafe_code)]
