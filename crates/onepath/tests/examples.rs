//! Runs every example of `examples/` (CI runs the tests; an example that stops working
//! fails here). Each example's `main` asserts what it shows.

#[path = "../examples/build_and_path.rs"]
mod build_and_path;
#[path = "../examples/crowd.rs"]
mod crowd;
#[path = "../examples/doors_and_barricades.rs"]
mod doors_and_barricades;
#[path = "../examples/grid.rs"]
mod grid;
#[path = "../examples/platforms_and_flyers.rs"]
mod platforms_and_flyers;
#[path = "../examples/rollback.rs"]
mod rollback;

#[test]
fn example_build_and_path() {
    build_and_path::main().unwrap();
}

#[test]
fn example_doors_and_barricades() {
    doors_and_barricades::main().unwrap();
}

#[test]
fn example_crowd() {
    crowd::main().unwrap();
}

#[test]
fn example_rollback() {
    rollback::main().unwrap();
}

#[test]
fn example_grid() {
    grid::main().unwrap();
}

#[test]
fn example_platforms_and_flyers() {
    platforms_and_flyers::main().unwrap();
}
