//! Replanner histories: after any sequence of replans, start moves, goal changes and cell
//! edits, LPA* and D* Lite answer as a fresh search does (grids and hex grids, unit-cost
//! and multiplied costs). Issue 22 item 7: D* Lite stopped while nodes whose first key tied
//! the start's in exact arithmetic (but rounded an ulp above it) were still open.

mod common;

use onepath_gridstate::{Grid, GridOptions, GridPathStatus, GridReplanner, ReplanAlgorithm};

/// The smallest case the history fuzz of issue 22 found: the last replan reported
/// "direction field contains a cycle" where a fresh search finds no path.
#[test]
fn d_star_lite_after_the_start_returns_equals_a_fresh_search() {
    let mut grid =
        Grid::from_ascii(&["......", "..#...", "....##", "S..#..", "......", "#.###G"]).unwrap();
    let opts = GridOptions::default();
    let mut rp =
        GridReplanner::new(&grid, ReplanAlgorithm::DStarLite, opts.clone(), (0, 3), (5, 5))
            .unwrap();
    assert_eq!(rp.replan(&grid).unwrap().status, GridPathStatus::Found);
    rp.set_start(&grid, (2, 0)).unwrap();
    assert_eq!(rp.replan(&grid).unwrap().status, GridPathStatus::Found);
    rp.set_start(&grid, (0, 3)).unwrap();
    grid.set_blocked(3, 4, true).unwrap();
    let last = rp.replan(&grid).unwrap();
    assert_eq!(last.status, GridPathStatus::NoPath);
    assert!(last.nodes.is_empty());
}
