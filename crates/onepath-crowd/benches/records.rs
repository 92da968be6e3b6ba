//! Sizes and times of agent state: bytes per agent (records as JSON and as postcard, the
//! canonical snapshot), save and load of 512 agents.
fn main() {}
