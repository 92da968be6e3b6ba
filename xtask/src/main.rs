//! cargo xtask: repository tasks (under construction).
fn main() {}
