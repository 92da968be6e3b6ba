//! Debug descriptions: a result copied into plain immutable data for drawing or logging.

use crate::searches::result::{GridPath, GridPathStatus};
use crate::spaces::grid::Grid;

/// A grid result as plain data: cells as (x, y), the cost, and the expanded cells when the
/// query recorded them (`record_expansions`; the list's length equals `expanded_count`).
#[derive(Debug, Clone, PartialEq)]
pub struct GridDebugInfo {
    /// Outcome.
    pub status: GridPathStatus,
    /// Path cells from start to goal.
    pub path: Vec<(u32, u32)>,
    /// Path cost.
    pub cost: f64,
    /// Number of expanded cells.
    pub expanded_count: u32,
    /// Iterations used.
    pub iterations: u32,
    /// The expanded cells in order, when recorded.
    pub expanded: Option<Vec<(u32, u32)>>,
}

/// Builds [`GridDebugInfo`].
#[derive(Debug, Clone, Copy)]
pub struct GridDebug;

impl GridDebug {
    /// Copies `result` (whose nodes are cells of `grid`) into plain data.
    pub fn describe(grid: &Grid, result: &GridPath) -> GridDebugInfo {
        let xy = |c: &u32| grid.xy(*c);
        GridDebugInfo {
            status: result.status,
            path: result.nodes.iter().map(xy).collect(),
            cost: result.cost,
            expanded_count: result.expanded,
            iterations: result.iterations,
            expanded: result
                .expansions
                .as_ref()
                .map(|e| e.iter().map(xy).collect()),
        }
    }
}
