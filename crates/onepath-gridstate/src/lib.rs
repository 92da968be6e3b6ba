//! onepath-gridstate (under construction).
#![forbid(unsafe_code)]
