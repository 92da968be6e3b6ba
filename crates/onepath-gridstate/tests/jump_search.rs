//! The generic jump point search (`JumpSearch`, OPGS kind 9): optimal (equal to a plain
//! Dijkstra), sliced = one-shot for every budget, exact save/restore, and its place in
//! `GridSearch` mode 2.

mod common;

use std::sync::Arc;

use common::{cases, close, dijkstra, grid_moves, path_cost, random_cell, random_grid, xorshift};
use onepath_format::FormatError;
use onepath_gridstate::{
    Connectivity, DiagonalRule, Grid, GridAlgorithm, GridEngine, GridError, GridOptions,
    GridPathStatus, GridSearch, JumpSearch, SearchStatus, SlicedSearch, WALL,
};
use proptest::prelude::*;

/// A random grid (walls, one uniform multiplier), start and goal, agent size and whether a
/// passability hook closes every cell whose index is divisible by 7.
#[allow(clippy::type_complexity)]
fn arb_case() -> impl Strategy<Value = (Grid, (u32, u32), (u32, u32), u32, bool)> {
    (
        1u32..28,
        1u32..28,
        0u32..45,
        any::<u64>(),
        0usize..3,
        1u32..3,
        any::<bool>(),
    )
        .prop_map(|(w, h, wall_pct, seed, mi, size, hook)| {
            let mut next = xorshift(seed | 1);
            let mut g = random_grid(w, h, &mut next, |r| {
                if r % 100 < u64::from(wall_pct) {
                    WALL
                } else {
                    (r >> 8) as u8 % 3
                }
            });
            let m = [1.0, 2.5, 0.75][mi];
            for a in 0..=254u8 {
                g.set_area_cost(a, m).unwrap();
            }
            let s = random_cell(&mut next, w, h);
            let t = random_cell(&mut next, w, h);
            (g, s, t, size, hook)
        })
}

fn options(size: u32, hook: bool) -> GridOptions {
    GridOptions {
        agent_size: size,
        passable_hook: if hook {
            Some(Arc::new(|c: u32| c % 7 != 3))
        } else {
            None
        },
        record_expansions: true,
        ..GridOptions::default()
    }
}

/// The reference adjacency: the common moves, minus cells the hook closes.
fn reference_moves(grid: &Grid, opts: &GridOptions, cell: usize) -> Vec<(usize, f64)> {
    let open = |c: usize| opts.passable_hook.as_ref().map_or(true, |h| h(c as u32));
    if !open(cell) {
        return Vec::new();
    }
    let mut m = grid_moves(grid, opts, cell);
    m.retain(|&(n, _)| {
        if !open(n) {
            return false;
        }
        // A diagonal's orthogonal neighbours must be open too (BothOrthogonalFree).
        let w = grid.width() as usize;
        let (x, y, nx, ny) = (cell % w, cell / w, n % w, n / w);
        if x != nx && y != ny {
            open(y * w + nx) && open(ny * w + x)
        } else {
            true
        }
    });
    m
}

fn reference_path_cost(grid: &Grid, opts: &GridOptions, nodes: &[u32]) -> Result<f64, String> {
    for pair in nodes.windows(2) {
        let ms = reference_moves(grid, opts, pair[0] as usize);
        if !ms.iter().any(|&(n, _)| n == pair[1] as usize) {
            return Err(format!("illegal move {} -> {}", pair[0], pair[1]));
        }
    }
    path_cost(grid, opts, nodes)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(192)))]

    /// "every engine returns a least-cost path for its options": jump point search equals
    /// a plain Dijkstra (walls, agent size, passability hook, uniform multipliers).
    #[test]
    fn jump_search_is_optimal_like_plain_dijkstra((grid, s, t, size, hook) in arb_case()) {
        let opts = options(size, hook);
        let n = grid.cell_count();
        let w = grid.width() as usize;
        let si = s.1 as usize * w + s.0 as usize;
        let ti = t.1 as usize * w + t.0 as usize;
        let open = |c: usize| {
            common::passable(&grid, (c % w) as i64, (c / w) as i64, size)
                && opts.passable_hook.as_ref().map_or(true, |h| h(c as u32))
        };
        let mut dist = dijkstra(n, si, |c| reference_moves(&grid, &opts, c));
        if !open(si) || !open(ti) {
            dist[ti] = f64::INFINITY;
        }
        let mut search = JumpSearch::new(opts.clone()).unwrap();
        let r = search.find_path(&grid, s, t).unwrap();
        if r.status == GridPathStatus::Found {
            prop_assert!(close(r.cost, dist[ti]), "cost {} vs dijkstra {}", r.cost, dist[ti]);
            prop_assert_eq!(r.nodes.first().copied(), Some(si as u32));
            prop_assert_eq!(r.nodes.last().copied(), Some(ti as u32));
            let walked = reference_path_cost(&grid, &opts, &r.nodes).map_err(TestCaseError::fail)?;
            prop_assert!(close(walked, r.cost), "walked {} vs cost {}", walked, r.cost);
            prop_assert_eq!(r.expansions.as_ref().map(Vec::len), Some(r.expanded as usize));
        } else {
            prop_assert_eq!(r.status, GridPathStatus::NoPath);
            prop_assert!(dist[ti].is_infinite(), "no path but dijkstra reaches the goal at {}", dist[ti]);
        }
    }

    /// "sliced = unsliced for every budget": stepping with any budget gives the one-shot
    /// result (path, cost, counters, expansions).
    #[test]
    fn sliced_jump_search_equals_one_shot_for_every_budget(
        (grid, s, t, size, hook) in arb_case(), budget in 1u64..6,
    ) {
        let opts = options(size, hook);
        let mut one = JumpSearch::new(opts.clone()).unwrap();
        let expected = one.find_path(&grid, s, t).unwrap();
        let mut sliced = JumpSearch::new(opts).unwrap();
        sliced.begin(&grid, s, t).unwrap();
        let mut rounds = 0u64;
        while sliced.step(&grid, budget).unwrap() == SearchStatus::InProgress {
            rounds += 1;
            prop_assert!(rounds <= grid.cell_count() as u64 + 1);
        }
        prop_assert_eq!(sliced.result().unwrap(), expected);
    }

    /// "a restored search finishes exactly as the uninterrupted one" and "save → restore →
    /// save gives the same bytes".
    #[test]
    fn interrupted_jump_search_equals_uninterrupted(
        (grid, s, t, size, hook) in arb_case(), first in 0u64..8,
    ) {
        let opts = options(size, hook);
        let mut one = JumpSearch::new(opts.clone()).unwrap();
        let expected = one.find_path(&grid, s, t).unwrap();
        let mut a = JumpSearch::new(opts.clone()).unwrap();
        a.begin(&grid, s, t).unwrap();
        a.step(&grid, first).unwrap();
        let bytes = a.save_state(&grid);
        prop_assert_eq!(&bytes, &a.save_state(&grid));
        let grid2 = Grid::from_state(&grid.save_state()).unwrap();
        let mut b = JumpSearch::new(opts).unwrap();
        b.restore_state(&grid2, &bytes).unwrap();
        prop_assert_eq!(&b.save_state(&grid2), &bytes);
        b.step(&grid2, u64::MAX).unwrap();
        prop_assert_eq!(b.result().unwrap(), expected);
    }

    /// "a restored search finishes exactly as the uninterrupted one" for GridSearch mode 2
    /// embedding kind 9 (and "save → restore → save gives the same bytes").
    #[test]
    fn interrupted_grid_search_generic_jump_equals_uninterrupted(
        (grid, s, t, size, hook) in arb_case(), first in 0u64..8, plus in any::<bool>(),
    ) {
        let alg = if plus { GridAlgorithm::JumpPointPlus } else { GridAlgorithm::JumpPoint };
        let opts = options(size, hook);
        let mut one = GridSearch::new(alg, opts.clone()).unwrap();
        let expected = one.find_path(&grid, s, t).unwrap();
        let mut a = GridSearch::new(alg, opts.clone()).unwrap();
        a.begin(&grid, s, t).unwrap();
        a.step(&grid, first).unwrap();
        let bytes = a.save_state(&grid);
        prop_assert_eq!(&bytes, &a.save_state(&grid));
        let grid2 = Grid::from_state(&grid.save_state()).unwrap();
        let mut b = GridSearch::new(alg, opts).unwrap();
        b.restore_state(&grid2, &bytes).unwrap();
        prop_assert_eq!(b.engine(), a.engine());
        prop_assert_eq!(&b.save_state(&grid2), &bytes);
        b.step(&grid2, u64::MAX).unwrap();
        let mut got = b.result().unwrap();
        let mut expected = expected;
        if b.engine() != GridEngine::GenericJump {
            // Mode 3 does not save its expansion list (docs/grid-state.md); kind 9 does.
            got.expansions = None;
            expected.expansions = None;
        }
        prop_assert_eq!(got, expected);
    }

    /// GridSearch with a jump point algorithm runs the generic jump point search when the
    /// specialised engine cannot serve the options, and stays optimal.
    #[test]
    fn grid_search_selects_the_generic_jump_point_search(
        (grid, s, t, size, hook) in arb_case(),
    ) {
        let opts = GridOptions { record_expansions: false, ..options(size, hook) };
        let mut gs = GridSearch::new(GridAlgorithm::JumpPoint, opts.clone()).unwrap();
        let r = gs.find_path(&grid, s, t).unwrap();
        let specialised = size == 1 && !hook && grid.areas().is_uniform_one();
        if specialised {
            prop_assert!(matches!(gs.engine(), GridEngine::SpecialisedJump(_)));
        } else {
            prop_assert_eq!(gs.engine(), GridEngine::GenericJump);
            let mut j = JumpSearch::new(opts).unwrap();
            prop_assert_eq!(j.find_path(&grid, s, t).unwrap(), r);
        }
    }
}

fn room() -> Grid {
    let mut g = Grid::from_ascii(&[
        "..........",
        ".####.....",
        "....#..##.",
        ".##.#...#.",
        "..#......#",
        "..........",
    ])
    .unwrap();
    for a in 0..=254u8 {
        g.set_area_cost(a, 2.0).unwrap();
    }
    g
}

fn weighted_room() -> Grid {
    let mut g = room();
    g.set_area_cost(3, 5.0).unwrap();
    g
}

#[test]
fn jump_search_refuses_options_it_cannot_serve_naming_the_option() {
    let cases: [(GridOptions, &str); 4] = [
        (
            GridOptions {
                connectivity: Connectivity::Four,
                ..GridOptions::default()
            },
            "connectivity",
        ),
        (
            GridOptions {
                diagonal_rule: DiagonalRule::Always,
                ..GridOptions::default()
            },
            "diagonal rule",
        ),
        (
            GridOptions {
                heuristic_weight: 1.5,
                ..GridOptions::default()
            },
            "heuristic weight",
        ),
        (
            GridOptions {
                cost_hook: Some(Arc::new(|_, _, c| c)),
                ..GridOptions::default()
            },
            "cost hook",
        ),
    ];
    for (opts, what) in cases {
        match JumpSearch::new(opts) {
            Err(GridError::Invalid { what: w, .. }) => assert_eq!(w, what),
            other => panic!("expected Invalid({what}), got {other:?}"),
        }
    }
}

#[test]
fn jump_search_needs_uniform_area_multipliers() {
    let grid = weighted_room();
    let mut s = JumpSearch::new(GridOptions::default()).unwrap();
    match s.begin(&grid, (0, 0), (9, 5)) {
        Err(GridError::Invalid { what, .. }) => assert_eq!(what, "area costs"),
        other => panic!("expected Invalid(area costs), got {other:?}"),
    }
    assert_eq!(s.result(), Err(GridError::NotBegun));
    assert!(!JumpSearch::serves(&GridOptions::default(), &grid));
    assert!(JumpSearch::serves(&GridOptions::default(), &room()));
}

#[test]
fn a_non_uniform_grid_makes_grid_search_fall_back_to_a_star() {
    let grid = weighted_room();
    let mut gs = GridSearch::new(GridAlgorithm::JumpPoint, GridOptions::default()).unwrap();
    gs.find_path(&grid, (0, 0), (9, 5)).unwrap();
    assert_eq!(gs.engine(), GridEngine::Generic);
    let bytes = gs.save_state(&grid);
    // mode 2, 4 coordinates, length, then the embedded header: kind 8.
    let at = 8 + 1 + 8 + 16 + 4 + 6;
    assert_eq!(u16::from_le_bytes([bytes[at], bytes[at + 1]]), 8);
}

#[test]
fn step_before_begin_and_after_an_edit_are_errors() {
    let mut grid = room();
    let mut s = JumpSearch::new(GridOptions::default()).unwrap();
    assert_eq!(s.step(&grid, 1), Err(GridError::NotBegun));
    s.begin(&grid, (0, 0), (9, 5)).unwrap();
    grid.set_blocked(9, 0, true).unwrap();
    assert!(matches!(s.step(&grid, 1), Err(GridError::Stale { .. })));
}

#[test]
fn one_iteration_pops_one_node_and_the_expanded_list_names_jump_points() {
    let grid = room();
    let mut s = JumpSearch::new(GridOptions {
        record_expansions: true,
        ..GridOptions::default()
    })
    .unwrap();
    let r = s.find_path(&grid, (0, 0), (9, 5)).unwrap();
    assert_eq!(r.status, GridPathStatus::Found);
    assert_eq!(r.iterations, r.expanded + 1);
    let mut sliced = JumpSearch::new(s.options().clone()).unwrap();
    sliced.begin(&grid, (0, 0), (9, 5)).unwrap();
    for i in 1..=u64::from(r.iterations) {
        sliced.step(&grid, 1).unwrap();
        assert_eq!(u64::from(sliced.result().unwrap().iterations), i);
    }
    assert_eq!(sliced.status(), SearchStatus::Found);
    // Fewer nodes are expanded than cells on the path's rows: jumps skip cells.
    assert!(r.expanded < 20, "expanded {}", r.expanded);
}

fn jump_state(steps: u64) -> (Grid, Vec<u8>) {
    let grid = room();
    let mut s = JumpSearch::new(GridOptions::default()).unwrap();
    s.begin(&grid, (0, 0), (9, 5)).unwrap();
    s.step(&grid, steps).unwrap();
    let b = s.save_state(&grid);
    (grid, b)
}

fn grid_state_err(r: Result<(), FormatError>) -> String {
    match r {
        Err(FormatError::State {
            format: "grid",
            message,
        }) => message,
        other => panic!("expected a grid state error, got {other:?}"),
    }
}

#[test]
fn kind_9_state_is_laid_out_as_kind_8_with_weight_one() {
    let (grid, b) = jump_state(2);
    assert_eq!(&b[..4], b"OPGS");
    assert_eq!(u16::from_le_bytes([b[6], b[7]]), 9);
    assert_eq!(
        i32::from_le_bytes(b[8..12].try_into().unwrap()) as usize,
        grid.cell_count()
    );
    assert_eq!(b[12], 1, "status running");
    assert_eq!(f64::from_le_bytes(b[13..21].try_into().unwrap()), 1.0);
    let not_started = JumpSearch::new(GridOptions::default())
        .unwrap()
        .save_state(&grid);
    assert_eq!(not_started.len(), 8 + 4 + 1 + 8 + 16 + 8);
}

#[test]
fn a_restore_refuses_another_kind_a_wrong_size_and_non_uniform_areas_and_changes_nothing() {
    let (grid, bytes) = jump_state(3);
    let mut s = JumpSearch::new(GridOptions::default()).unwrap();
    s.begin(&grid, (9, 0), (0, 5)).unwrap();
    s.step(&grid, 2).unwrap();
    let before = s.save_state(&grid);
    let mut other = bytes.clone();
    other[6] = 8;
    let m = grid_state_err(s.restore_state(&grid, &other));
    assert!(m.contains("kind 8"), "{m}");
    let small = Grid::new(3, 3).unwrap();
    let m = grid_state_err(s.restore_state(&small, &bytes));
    assert!(m.contains("node count"), "{m}");
    let weighted = weighted_room();
    let m = grid_state_err(s.restore_state(&weighted, &bytes));
    assert!(m.contains("area multipliers"), "{m}");
    let mut weight = bytes.clone();
    weight[13..21].copy_from_slice(&2.0f64.to_le_bytes());
    let m = grid_state_err(s.restore_state(&grid, &weight));
    assert!(m.contains("heuristic weight"), "{m}");
    assert_eq!(s.save_state(&grid), before);
}

#[test]
fn a_parent_cycle_in_a_kind_9_state_is_refused() {
    // Two visited nodes that name each other as parent (same cost) form a cycle.
    let grid = room();
    let mut s = JumpSearch::new(GridOptions::default()).unwrap();
    s.begin(&grid, (0, 0), (9, 5)).unwrap();
    s.step(&grid, 1).unwrap();
    let b = s.save_state(&grid);
    let body = 8 + 4 + 1 + 8 + 16 + 8;
    let visited = i32::from_le_bytes(b[body..body + 4].try_into().unwrap()) as usize;
    assert!(visited >= 3);
    // Entries: i32 node, u8 closed, f64 g, i32 parent (17 bytes). Point entries 1 and 2 at
    // each other with equal cost.
    let e = |i: usize| body + 4 + 17 * i;
    let mut m = b.clone();
    let n1 = m[e(1)..e(1) + 4].to_vec();
    let n2 = m[e(2)..e(2) + 4].to_vec();
    m[e(1) + 13..e(1) + 17].copy_from_slice(&n2);
    m[e(2) + 13..e(2) + 17].copy_from_slice(&n1);
    let g = 5.0f64.to_le_bytes();
    m[e(1) + 5..e(1) + 13].copy_from_slice(&g);
    m[e(2) + 5..e(2) + 13].copy_from_slice(&g);
    let before = s.save_state(&grid);
    grid_state_err(s.restore_state(&grid, &m));
    assert_eq!(s.save_state(&grid), before);
}

#[test]
fn grid_search_mode_2_embeds_kind_9_and_checks_the_embedded_kind() {
    let grid = room();
    let opts = GridOptions::default();
    let mut gs = GridSearch::new(GridAlgorithm::JumpPointPlus, opts.clone()).unwrap();
    let expected = gs.find_path(&grid, (0, 0), (9, 5)).unwrap();
    assert_eq!(gs.engine(), GridEngine::GenericJump);
    gs.begin(&grid, (0, 0), (9, 5)).unwrap();
    gs.step(&grid, 2).unwrap();
    let bytes = gs.save_state(&grid);
    assert_eq!(bytes[8], 2, "mode 2");
    let at = 8 + 1 + 8 + 16 + 4 + 6;
    assert_eq!(u16::from_le_bytes([bytes[at], bytes[at + 1]]), 9);
    let grid2 = Grid::from_state(&grid.save_state()).unwrap();
    let mut back = GridSearch::new(GridAlgorithm::JumpPointPlus, opts.clone()).unwrap();
    back.restore_state(&grid2, &bytes).unwrap();
    assert_eq!(back.save_state(&grid2), bytes);
    back.step(&grid2, u64::MAX).unwrap();
    assert_eq!(back.result().unwrap(), expected);
    // The same bytes with the embedded kind changed to 8 are refused.
    let mut wrong = bytes.clone();
    wrong[at] = 8;
    let mut fresh = GridSearch::new(GridAlgorithm::JumpPoint, opts).unwrap();
    let m = grid_state_err(fresh.restore_state(&grid2, &wrong));
    assert!(m.contains("kind 8 where kind 9"), "{m}");
    assert_eq!(fresh.engine(), GridEngine::NotBegun);
    // An A* search on the same grid and options selects kind 8 and refuses kind 9.
    let mut astar = GridSearch::new(GridAlgorithm::AStar, GridOptions::default()).unwrap();
    let m = grid_state_err(astar.restore_state(&grid2, &bytes));
    assert!(m.contains("kind 9 where kind 8"), "{m}");
}
