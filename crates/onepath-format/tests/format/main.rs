//! Integration tests of onepath-format: round trips and never-panic properties of the tile
//! reader, the exact orientation predicate against an exact integer reference, the byte
//! layouts locked by snapshots, the settings encoding, and fuzz regression inputs.

mod fuzz_regressions;
mod gen;
mod onpt_props;
mod orient_exact;
mod settings_props;
mod snapshots;
