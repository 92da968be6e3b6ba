//! Every optimal grid engine equals a plain Dijkstra; sliced equals one-shot.

mod common;

use common::{cases, close, dijkstra, grid_moves, path_cost, random_cell, random_grid, xorshift};
use onepath_gridstate::{
    Connectivity, DiagonalRule, Grid, GridAStar, GridAlgorithm, GridBidirectional, GridEngine,
    GridOptions, GridPathStatus, GridSearch, SearchStatus, SlicedSearch, WALL,
};
use proptest::prelude::*;

fn arb_grid(uniform: bool) -> impl Strategy<Value = (Grid, (u32, u32), (u32, u32))> {
    (1u32..32, 1u32..32, 0u32..45, any::<u64>()).prop_map(move |(w, h, wall_pct, seed)| {
        let mut next = xorshift(seed);
        let mut g = random_grid(w, h, &mut next, |r| {
            if r % 100 < u64::from(wall_pct) {
                WALL
            } else if uniform {
                0
            } else {
                (r >> 8) as u8 % 4
            }
        });
        if !uniform {
            for a in 0..4u8 {
                let m = 0.5 + (next() % 8) as f64 * 0.375;
                g.set_area_cost(a, m).unwrap();
            }
        }
        let s = random_cell(&mut next, w, h);
        let t = random_cell(&mut next, w, h);
        (g, s, t)
    })
}

fn arb_opts() -> impl Strategy<Value = GridOptions> {
    (0usize..2, 0usize..3, 1u32..3).prop_map(|(c, r, size)| GridOptions {
        connectivity: [Connectivity::Four, Connectivity::Eight][c],
        diagonal_rule: [
            DiagonalRule::Always,
            DiagonalRule::NoCornerCutting,
            DiagonalRule::BothOrthogonalFree,
        ][r],
        agent_size: size,
        ..GridOptions::default()
    })
}

fn reference(grid: &Grid, opts: &GridOptions, s: (u32, u32), t: (u32, u32)) -> f64 {
    let n = grid.cell_count();
    let si = grid.index(s.0, s.1).unwrap() as usize;
    let ti = grid.index(t.0, t.1).unwrap() as usize;
    let d = dijkstra(n, si, |u| grid_moves(grid, opts, u));
    if !common::passable(grid, i64::from(t.0), i64::from(t.1), opts.agent_size) {
        return f64::INFINITY;
    }
    d[ti]
}

fn check(
    grid: &Grid,
    opts: &GridOptions,
    s: (u32, u32),
    t: (u32, u32),
    r: &onepath_gridstate::GridPath,
) -> Result<(), TestCaseError> {
    let want = reference(grid, opts, s, t);
    if want.is_finite() {
        prop_assert_eq!(r.status, GridPathStatus::Found);
        prop_assert!(close(r.cost, want), "cost {} vs dijkstra {}", r.cost, want);
        prop_assert_eq!(
            r.nodes.first().copied(),
            Some(grid.index(s.0, s.1).unwrap())
        );
        prop_assert_eq!(r.nodes.last().copied(), Some(grid.index(t.0, t.1).unwrap()));
        let walked = path_cost(grid, opts, &r.nodes).map_err(TestCaseError::fail)?;
        prop_assert!(close(walked, want), "walked {} vs {}", walked, want);
    } else {
        prop_assert_eq!(r.status, GridPathStatus::NoPath);
        prop_assert!(r.nodes.is_empty());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(200)))]

    #[test]
    fn generic_astar_equals_dijkstra_with_random_area_multipliers((grid, s, t) in arb_grid(false), opts in arb_opts()) {
        let mut a = GridAStar::new(opts.clone()).unwrap();
        let r = a.find_path(&grid, s, t).unwrap();
        check(&grid, &opts, s, t, &r)?;
    }

    #[test]
    fn grid_search_engines_equal_dijkstra((grid, s, t) in arb_grid(true), opts in arb_opts()) {
        for alg in [GridAlgorithm::AStar, GridAlgorithm::JumpPoint, GridAlgorithm::JumpPointPlus] {
            let mut gs = GridSearch::new(alg, opts.clone()).unwrap();
            let r = gs.find_path(&grid, s, t).unwrap();
            check(&grid, &opts, s, t, &r)?;
        }
    }

    #[test]
    fn jump_tables_are_rebuilt_after_edits((grid, s, t) in arb_grid(true), edits in prop::collection::vec((0u32..32, 0u32..32, any::<bool>()), 1..8)) {
        // The same JPS+ search object across edits: its tables follow the grid.
        let mut grid = grid;
        let opts = GridOptions::default();
        let mut jpp = GridSearch::new(GridAlgorithm::JumpPointPlus, opts.clone()).unwrap();
        let mut jps = GridSearch::new(GridAlgorithm::JumpPoint, opts.clone()).unwrap();
        for (x, y, wall) in edits {
            let (x, y) = (x % grid.width(), y % grid.height());
            grid.set_blocked(x, y, wall).unwrap();
            check(&grid, &opts, s, t, &jpp.find_path(&grid, s, t).unwrap())?;
            check(&grid, &opts, s, t, &jps.find_path(&grid, s, t).unwrap())?;
        }
    }

    #[test]
    fn zero_weight_engines_equal_dijkstra((grid, s, t) in arb_grid(true), opts in arb_opts()) {
        // Weight 0: Dijkstra order, in the specialised engines (zero estimate) too.
        let opts = GridOptions { heuristic_weight: 0.0, ..opts };
        for alg in [GridAlgorithm::AStar, GridAlgorithm::JumpPoint, GridAlgorithm::JumpPointPlus] {
            let mut gs = GridSearch::new(alg, opts.clone()).unwrap();
            let r = gs.find_path(&grid, s, t).unwrap();
            check(&grid, &opts, s, t, &r)?;
        }
    }

    #[test]
    fn weighted_astar_is_within_its_weight((grid, s, t) in arb_grid(false), opts in arb_opts(), w in 1.0f64..3.0) {
        let want = reference(&grid, &opts, s, t);
        let mut a = GridAStar::new(GridOptions { heuristic_weight: w, ..opts.clone() }).unwrap();
        let r = a.find_path(&grid, s, t).unwrap();
        if want.is_finite() {
            prop_assert_eq!(r.status, GridPathStatus::Found);
            prop_assert!(r.cost <= w * want + 1e-9, "cost {} > {} x {}", r.cost, w, want);
            let walked = path_cost(&grid, &opts, &r.nodes).map_err(TestCaseError::fail)?;
            prop_assert!(close(walked, r.cost));
        } else {
            prop_assert_eq!(r.status, GridPathStatus::NoPath);
        }
    }

    #[test]
    fn grid_bidirectional_equals_dijkstra((grid, s, t) in arb_grid(false), opts in arb_opts()) {
        let mut b = GridBidirectional::new(opts.clone()).unwrap();
        let r = b.find_path(&grid, s, t).unwrap();
        check(&grid, &opts, s, t, &r)?;
    }

    #[test]
    fn jump_point_engines_equal_dijkstra_on_open_grids((grid, s, t) in arb_grid(true)) {
        // Default options select the specialised jump engine (8-connected, both free).
        let opts = GridOptions::default();
        for alg in [GridAlgorithm::JumpPoint, GridAlgorithm::JumpPointPlus] {
            let mut gs = GridSearch::new(alg, opts.clone()).unwrap();
            let r = gs.find_path(&grid, s, t).unwrap();
            prop_assert!(matches!(gs.engine(), GridEngine::SpecialisedJump(_)));
            check(&grid, &opts, s, t, &r)?;
        }
    }

    #[test]
    fn sliced_equals_one_shot_for_every_budget((grid, s, t) in arb_grid(true), opts in arb_opts(),
                                              budget in 1u64..6, alg in 0usize..3, weighted in any::<bool>()) {
        let alg = [GridAlgorithm::AStar, GridAlgorithm::JumpPoint, GridAlgorithm::JumpPointPlus][alg];
        let mut grid = grid;
        if weighted {
            grid.set_area_cost(0, 1.5).unwrap(); // forces the generic engine
        }
        let mut one = GridSearch::new(alg, GridOptions { record_expansions: true, ..opts.clone() }).unwrap();
        let want = one.find_path(&grid, s, t).unwrap();
        let mut sliced = GridSearch::new(alg, GridOptions { record_expansions: true, ..opts }).unwrap();
        sliced.begin(&grid, s, t).unwrap();
        let mut guard = 0;
        while sliced.step(&grid, budget).unwrap() == SearchStatus::InProgress {
            guard += 1;
            prop_assert!(guard < 100_000);
        }
        let got = sliced.result().unwrap();
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(got.expansions.as_ref().map(Vec::len), Some(got.expanded as usize));
    }

    #[test]
    fn budget_exhausted_exactly_when_the_unlimited_query_needs_more((grid, s, t) in arb_grid(true), budget in 1u64..20, alg in 0usize..3) {
        let alg = [GridAlgorithm::AStar, GridAlgorithm::JumpPoint, GridAlgorithm::JumpPointPlus][alg];
        let mut full = GridSearch::new(alg, GridOptions::default()).unwrap();
        let want = full.find_path(&grid, s, t).unwrap();
        let mut capped = GridSearch::new(alg, GridOptions { iteration_budget: budget, ..GridOptions::default() }).unwrap();
        let got = capped.find_path(&grid, s, t).unwrap();
        if u64::from(want.iterations) <= budget {
            prop_assert_eq!(got, want);
        } else {
            prop_assert_eq!(got.status, GridPathStatus::BudgetExhausted);
            prop_assert_eq!(u64::from(got.iterations), budget);
        }
    }
}

#[test]
fn specialised_engine_is_picked_only_for_plain_options() {
    let mut grid = Grid::new(4, 4).unwrap();
    let gs = GridSearch::new(GridAlgorithm::JumpPointPlus, GridOptions::default()).unwrap();
    assert_eq!(
        gs.engine_for(&grid),
        GridEngine::SpecialisedJump(onepath_gridstate::JumpFinder::Tables)
    );
    let gs = GridSearch::new(
        GridAlgorithm::JumpPoint,
        GridOptions {
            diagonal_rule: DiagonalRule::Always,
            ..GridOptions::default()
        },
    )
    .unwrap();
    assert_eq!(gs.engine_for(&grid), GridEngine::SpecialisedAStar);
    grid.set_area_cost(3, 2.0).unwrap();
    assert_eq!(gs.engine_for(&grid), GridEngine::Generic);
}

#[test]
fn step_after_an_edit_reports_a_stale_grid() {
    let mut grid = Grid::new(8, 8).unwrap();
    let mut gs = GridSearch::new(GridAlgorithm::AStar, GridOptions::default()).unwrap();
    gs.begin(&grid, (0, 0), (7, 7)).unwrap();
    grid.set_blocked(3, 3, true).unwrap();
    assert!(matches!(
        gs.step(&grid, 10),
        Err(onepath_gridstate::GridError::Stale { began: 0, now: 1 })
    ));
}

#[test]
fn out_of_range_start_is_an_error_not_a_panic() {
    let grid = Grid::new(8, 8).unwrap();
    let mut gs = GridSearch::new(GridAlgorithm::AStar, GridOptions::default()).unwrap();
    assert_eq!(
        gs.find_path(&grid, (8, 0), (1, 1)).unwrap_err(),
        onepath_gridstate::GridError::OutOfRange {
            what: "x",
            value: 8,
            min: 0,
            max: 7
        }
    );
    assert_eq!(
        gs.result().unwrap_err(),
        onepath_gridstate::GridError::NotBegun
    );
}
