//! Results and statuses shared by every search.

/// The state of a sliced search (saved as the u8 `SearchStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SearchStatus {
    /// `begin` has not been called.
    #[default]
    NotStarted = 0,
    /// Begun and not finished: call `step` again.
    InProgress = 1,
    /// The goal was reached.
    Found = 2,
    /// Every reachable node was expanded without reaching the goal.
    NoPath = 3,
}

/// The outcome of a one-shot query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GridPathStatus {
    /// A path was found.
    Found,
    /// No path exists under the options.
    NoPath,
    /// The iteration budget ran out first (not resumable; use the sliced form).
    BudgetExhausted,
}

impl GridPathStatus {
    /// The outcome of a search in state `status`: `BudgetExhausted` until it finished.
    pub(crate) fn of(status: SearchStatus) -> Self {
        match status {
            SearchStatus::Found => GridPathStatus::Found,
            SearchStatus::NoPath => GridPathStatus::NoPath,
            SearchStatus::NotStarted | SearchStatus::InProgress => GridPathStatus::BudgetExhausted,
        }
    }
}

/// A path result. For grids a node is the cell index `y * width + x`.
#[derive(Debug, Clone, PartialEq)]
pub struct GridPath {
    /// Outcome.
    pub status: GridPathStatus,
    /// The nodes from start to goal, both included (empty unless found).
    pub nodes: Vec<u32>,
    /// The path cost (0 unless found).
    pub cost: f64,
    /// Nodes expanded (for the jump point engines: jump points expanded; the goal pop is
    /// not an expansion).
    pub expanded: u32,
    /// Iterations used (see docs/grid-search.md for what one iteration is per engine).
    pub iterations: u32,
    /// The expanded nodes in order when `record_expansions` is set (length = `expanded`).
    pub expansions: Option<Vec<u32>>,
}
