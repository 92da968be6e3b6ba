//! `onepath grid`: a path on a Moving AI map or an OPGS grid with one of gridstate's
//! searches.

use std::path::Path;

use onepath_gridstate::{
    Grid, GridAlgorithm, GridOptions, GridPathStatus, GridSearch, HpaStar, SlicedSearch, ThetaStar,
};
use serde::Serialize;

use crate::cli::Algo;
use crate::error::{read_file, CliError};

/// HPA*'s cluster edge in cells (the conformance runs use 16).
pub const HPA_CLUSTER: u32 = 16;

/// A grid path as `grid` reports it.
#[derive(Debug, Clone, Serialize)]
pub struct GridRoute {
    /// The search's name on the command line.
    pub algo: &'static str,
    /// Grid width and height.
    pub size: [u32; 2],
    /// Start cell (x, y).
    pub start: [u32; 2],
    /// Goal cell (x, y).
    pub goal: [u32; 2],
    /// `found`, `no path` or `budget exhausted`.
    pub status: &'static str,
    /// The path cost (straight steps 1, diagonal √2, times area multipliers).
    pub cost: f64,
    /// Nodes expanded.
    pub expanded: u32,
    /// The cells from start to goal (for Theta*: the any-angle corners).
    pub cells: Vec<[u32; 2]>,
}

/// Reads a grid: a Moving AI map (text starting `type`) or an OPGS grid state. The error
/// names the file and what in it is wrong (the map row, the OPGS field).
pub fn read_grid(path: &Path) -> Result<Grid, CliError> {
    let bytes = read_file(path)?;
    if bytes.starts_with(&onepath_gridstate::STATE_MAGIC) {
        return Grid::from_state(&bytes).map_err(|e| CliError::in_file(path, e));
    }
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        CliError::in_file(
            path,
            format!(
                "neither an OPGS grid nor a Moving AI map (not UTF-8 text at byte {})",
                e.valid_up_to()
            ),
        )
    })?;
    Grid::from_movingai(text).map_err(|e| CliError::in_file(path, e))
}

/// The command-line name of a search.
pub fn algo_name(a: Algo) -> &'static str {
    match a {
        Algo::Astar => "astar",
        Algo::Jps => "jps",
        Algo::JpsPlus => "jps+",
        Algo::Theta => "theta",
        Algo::Hpa => "hpa",
    }
}

/// Runs `algo` on `grid` from `start` to `goal` (default options: 8 neighbours, no corner
/// cutting). A cell outside the grid or a wall is an error naming it.
pub fn search(
    grid: &Grid,
    algo: Algo,
    start: (u32, u32),
    goal: (u32, u32),
) -> Result<GridRoute, CliError> {
    for (what, (x, y)) in [("start", start), ("goal", goal)] {
        if x >= grid.width() || y >= grid.height() {
            return Err(CliError::usage(format!(
                "{what} ({x}, {y}) is outside the {} × {} grid",
                grid.width(),
                grid.height()
            )));
        }
        if !grid.is_walkable(i64::from(x), i64::from(y)) {
            return Err(CliError::usage(format!("{what} ({x}, {y}) is a wall")));
        }
    }
    let opts = GridOptions::default();
    let err = |e: onepath_gridstate::GridError| CliError::usage(e.to_string());
    let result = match algo {
        Algo::Astar | Algo::Jps | Algo::JpsPlus => {
            let a = match algo {
                Algo::Astar => GridAlgorithm::AStar,
                Algo::Jps => GridAlgorithm::JumpPoint,
                _ => GridAlgorithm::JumpPointPlus,
            };
            GridSearch::new(a, opts)
                .map_err(err)?
                .find_path(grid, start, goal)
        }
        Algo::Theta => ThetaStar::new(opts)
            .map_err(err)?
            .find_path(grid, start, goal),
        Algo::Hpa => HpaStar::new(grid, HPA_CLUSTER, opts)
            .map_err(err)?
            .find_path(grid, start, goal),
    }
    .map_err(err)?;
    Ok(GridRoute {
        algo: algo_name(algo),
        size: [grid.width(), grid.height()],
        start: [start.0, start.1],
        goal: [goal.0, goal.1],
        status: match result.status {
            GridPathStatus::Found => "found",
            GridPathStatus::NoPath => "no path",
            _ => "budget exhausted",
        },
        cost: result.cost,
        expanded: result.expanded,
        cells: grid
            .path_xy(&result)
            .into_iter()
            .map(|(x, y)| [x, y])
            .collect(),
    })
}

/// The route as text.
pub fn to_text(r: &GridRoute) -> String {
    let cells: Vec<String> = r
        .cells
        .iter()
        .map(|c| format!("({},{})", c[0], c[1]))
        .collect();
    format!(
        "{} on {} × {}: ({}, {}) -> ({}, {}): {}, cost {:.6}, {} cells, {} expanded\n{}\n",
        r.algo,
        r.size[0],
        r.size[1],
        r.start[0],
        r.start[1],
        r.goal[0],
        r.goal[1],
        r.status,
        r.cost,
        r.cells.len(),
        r.expanded,
        cells.join(" ")
    )
}
