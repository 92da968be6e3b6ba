//! A Moving AI map (`$ONEPATH_DATA/movingai/arena.map`, or a small built-in map without the
//! data folder): jump point search, saved mid-search, resumed in fresh objects, the same
//! path as the one-shot search.
//!
//! `cargo run --release -p onepath --example grid`

use std::error::Error;
use std::path::PathBuf;

use onepath::grid::{Grid, GridAlgorithm, GridOptions, GridPathStatus, GridSearch, SlicedSearch};

const SMALL_MAP: &str = "type octile\nheight 6\nwidth 8\nmap\n\
........\n\
.@@@@@@.\n\
......@.\n\
.@@@@.@.\n\
.@....@.\n\
...@....\n";

/// Runs the example (also called by the crate's `tests/examples.rs`).
pub fn main() -> Result<(), Box<dyn Error>> {
    let arena = std::env::var_os("ONEPATH_DATA")
        .map(|d| PathBuf::from(d).join("movingai").join("arena.map"))
        .filter(|p| p.exists());
    let (grid, start, goal) = match &arena {
        // The last scenario of arena.map.scen (optimal length 62.1543).
        Some(p) => (Grid::from_movingai_path(p)?, (1, 7), (47, 46)),
        None => (Grid::from_movingai(SMALL_MAP)?, (0, 0), (2, 4)),
    };
    println!("map {}x{}", grid.width(), grid.height());
    let mut search = GridSearch::new(GridAlgorithm::JumpPoint, GridOptions::default())?;
    let one_shot = search.find_path(&grid, start, goal)?;
    assert_eq!(one_shot.status, GridPathStatus::Found);
    println!(
        "one-shot: {} nodes, cost {:.3}",
        one_shot.nodes.len(),
        one_shot.cost
    );

    // A few iterations, then save the grid and the search (OPGS) as a save game would.
    search.begin(&grid, start, goal)?;
    search.step(&grid, 3)?;
    let (grid_bytes, search_bytes) = (grid.save_state(), search.save_state(&grid));
    let grid2 = Grid::from_state(&grid_bytes)?;
    let mut search2 = GridSearch::new(GridAlgorithm::JumpPoint, GridOptions::default())?;
    search2.restore_state(&grid2, &search_bytes)?;
    search2.step(&grid2, u64::MAX)?;
    let resumed = search2.result()?;
    assert_eq!(resumed.nodes, one_shot.nodes);
    assert_eq!(resumed.cost, one_shot.cost);
    println!(
        "resumed after saving mid-search ({} + {} bytes): the same path",
        grid_bytes.len(),
        search_bytes.len()
    );
    for (x, y) in grid.path_xy(&resumed).into_iter().take(8) {
        println!("  ({x}, {y})");
    }
    Ok(())
}
