//! The `SlicedSearch` contract, engine by engine: `step` and `result` before `begin` are
//! `NotBegun`; a step on an object that is not the one begun on (or changed since) is
//! `Stale` and leaves the search as it was; stepping one iteration at a time ends with the
//! one-shot result.

use onepath_gridstate::{
    BidirectionalAStar, CsrGraph, Graph, GraphAStar, GraphOptions, Grid, GridAStar, GridAlgorithm,
    GridBidirectional, GridError, GridOptions, GridPathStatus, GridSearch, HexAStar, HexGrid,
    HexLayout, HpaStar, JumpSearch, SearchStatus, SlicedSearch, ThetaStar, VoxelAStar, VoxelGrid,
    VoxelOptions, WALL,
};

fn holds_the_contract<S, E: SlicedSearch<S>>(
    mut fresh: impl FnMut() -> E,
    space: &S,
    changed: &S,
    start: E::Point,
    goal: E::Point,
    what: &str,
) {
    let mut e = fresh();
    assert_eq!(e.result(), Err(GridError::NotBegun), "{what}: result");
    assert_eq!(e.step(space, 1), Err(GridError::NotBegun), "{what}: step");

    let want = fresh().find_path(space, start, goal).unwrap();
    assert_eq!(want.status, GridPathStatus::Found, "{what}: one-shot");

    e.begin(space, start, goal).unwrap();
    assert!(
        matches!(e.step(changed, 1), Err(GridError::Stale { .. })),
        "{what}: stale step"
    );
    let mut steps = 0u64;
    while e.step(space, 1).unwrap() == SearchStatus::InProgress {
        steps += 1;
        assert!(steps < 100_000, "{what}: never finishes");
    }
    assert_eq!(e.result().unwrap(), want, "{what}: sliced = one-shot");
}

fn rows() -> [&'static str; 6] {
    [
        "..........",
        ".####.....",
        "....#..#..",
        ".##.#..#..",
        "....#..#..",
        "..........",
    ]
}

/// The grid and a copy with one more wall (a new object, and a new version).
fn grids() -> (Grid, Grid) {
    let grid = Grid::from_ascii(&rows()).unwrap();
    let mut changed = grid.clone();
    changed.set_area(9, 0, WALL).unwrap();
    (grid, changed)
}

#[test]
fn every_grid_engine_keeps_the_sliced_contract() {
    let (grid, changed) = grids();
    let (s, t) = ((0, 0), (9, 5));
    let opts = GridOptions {
        record_expansions: true,
        ..GridOptions::default()
    };
    for algorithm in [
        GridAlgorithm::AStar,
        GridAlgorithm::JumpPoint,
        GridAlgorithm::JumpPointPlus,
    ] {
        holds_the_contract(
            || GridSearch::new(algorithm, opts.clone()).unwrap(),
            &grid,
            &changed,
            s,
            t,
            &format!("GridSearch {algorithm:?}"),
        );
    }
    let o = || opts.clone();
    holds_the_contract(
        || GridAStar::new(o()).unwrap(),
        &grid,
        &changed,
        s,
        t,
        "GridAStar",
    );
    holds_the_contract(
        || JumpSearch::new(o()).unwrap(),
        &grid,
        &changed,
        s,
        t,
        "JumpSearch",
    );
    holds_the_contract(
        || ThetaStar::new(o()).unwrap(),
        &grid,
        &changed,
        s,
        t,
        "ThetaStar",
    );
    holds_the_contract(
        || GridBidirectional::new(o()).unwrap(),
        &grid,
        &changed,
        s,
        t,
        "GridBidirectional",
    );
    holds_the_contract(
        || HpaStar::new(&grid, 4, o()).unwrap(),
        &grid,
        &changed,
        s,
        t,
        "HpaStar",
    );
}

#[test]
fn hex_and_voxel_searches_keep_the_sliced_contract() {
    let mut hex = HexGrid::new(8, 6, HexLayout::OddRowsRight).unwrap();
    for y in 1..5 {
        hex.grid_mut().set_area(3, y, WALL).unwrap();
    }
    let mut changed = hex.clone();
    changed.grid_mut().set_area(7, 0, WALL).unwrap();
    holds_the_contract(
        || HexAStar::new(GridOptions::default()).unwrap(),
        &hex,
        &changed,
        (0, 3),
        (7, 3),
        "HexAStar",
    );

    let walled = || {
        let mut v = VoxelGrid::new(6, 4, 3, 0).unwrap();
        for y in 0..3 {
            v.set_area(2, y, 1, WALL).unwrap();
        }
        v
    };
    let voxels = walled();
    let mut changed = walled();
    changed.set_area(0, 3, 2, WALL).unwrap();
    holds_the_contract(
        || VoxelAStar::new(VoxelOptions::default()).unwrap(),
        &voxels,
        &changed,
        (0, 0, 0),
        (5, 3, 2),
        "VoxelAStar",
    );
}

/// A ring of `n` nodes with a chord, compiled.
fn ring(n: u32) -> CsrGraph {
    let mut g = Graph::new(n).unwrap();
    for i in 0..n {
        g.add_edge(i, (i + 1) % n, 1.0 + f64::from(i % 3)).unwrap();
    }
    g.add_edge(0, n / 2, 2.5).unwrap();
    g.compile()
}

#[test]
fn graph_searches_keep_the_sliced_contract() {
    let (graph, other) = (ring(12), ring(13));
    let opts = GraphOptions {
        record_expansions: true,
        ..GraphOptions::default()
    };
    holds_the_contract(
        || GraphAStar::new(opts).unwrap(),
        &graph,
        &other,
        1,
        9,
        "GraphAStar",
    );
    holds_the_contract(
        || BidirectionalAStar::new(opts),
        &graph,
        &other,
        1,
        9,
        "BidirectionalAStar",
    );
}

#[test]
fn a_one_shot_budget_that_runs_out_is_budget_exhausted() {
    let (grid, _) = grids();
    let opts = GridOptions {
        iteration_budget: 2,
        ..GridOptions::default()
    };
    let mut search = GridAStar::new(opts).unwrap();
    assert_eq!(search.one_shot_budget(), 2);
    let r = search.find_path(&grid, (0, 0), (9, 5)).unwrap();
    assert_eq!(
        (r.status, r.iterations),
        (GridPathStatus::BudgetExhausted, 2)
    );
    assert!(r.nodes.is_empty());
    assert_eq!(
        GridAStar::new(GridOptions::default())
            .unwrap()
            .one_shot_budget(),
        u64::MAX
    );
}
