//! The integration tests of onepath-snapshot, one binary: the round trip and its guarantees,
//! every validation rule with hand-built hostile bytes, random histories and mutated bytes.

mod common;
mod guarantees;
mod history;
mod hostile;
mod mutation;
mod portal_cap;
