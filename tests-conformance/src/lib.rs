//! Conformance tests for the OnePath specification: the spec's statements that cross
//! crates, golden byte vectors, and runs over the real data sets (Moving AI benchmark maps,
//! Recast's demo level) found through the environment variable `ONEPATH_DATA`.
//!
//! The tests live in `tests/`; this library holds the helpers they share.

use std::path::PathBuf;

/// The data folder named by `ONEPATH_DATA`, or `None` (after printing that the calling
/// test is skipped) when it is unset or missing `sub`.
pub fn data_dir(sub: &str, test: &str) -> Option<PathBuf> {
    match std::env::var_os("ONEPATH_DATA") {
        Some(d) => {
            let p = PathBuf::from(d).join(sub);
            if p.exists() {
                Some(p)
            } else {
                println!("{test}: skipped ({} not found under ONEPATH_DATA)", sub);
                None
            }
        }
        None => {
            println!("{test}: skipped (ONEPATH_DATA is not set)");
            None
        }
    }
}
