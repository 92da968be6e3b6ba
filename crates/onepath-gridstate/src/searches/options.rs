//! Search options shared by the grid engines.

use std::sync::Arc;

use crate::error::{invalid, GridError};

/// Which neighbours a cell has on a square grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Connectivity {
    /// North, east, south, west.
    Four,
    /// The four above plus the four diagonals, under a [`DiagonalRule`].
    #[default]
    Eight,
}

/// When a diagonal move from (x, y) to (x+dx, y+dy) is allowed (the target must always be
/// passable). The two *orthogonal neighbours* of the move are (x+dx, y) and (x, y+dy).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DiagonalRule {
    /// Always allowed: the move may pass between two walls that touch at the corner.
    Always,
    /// No corner cutting through a closed corner: allowed when at least one orthogonal
    /// neighbour is passable, so the move never squeezes between two walls touching at the
    /// corner (it may brush one wall's corner).
    NoCornerCutting,
    /// Only when both orthogonal neighbours are passable: the move never touches a wall's
    /// corner. This is the rule of the Moving AI octile benchmarks (it reproduces every
    /// listed optimal length of arena and maze512-32-9).
    #[default]
    BothOrthogonalFree,
}

impl DiagonalRule {
    /// Whether the rule allows a diagonal given the passability of its two orthogonal
    /// neighbours.
    #[inline]
    pub fn allows(self, side_a: bool, side_b: bool) -> bool {
        match self {
            DiagonalRule::Always => true,
            DiagonalRule::NoCornerCutting => side_a || side_b,
            DiagonalRule::BothOrthogonalFree => side_a && side_b,
        }
    }
}

/// A cost hook: `(from_cell, to_cell, default_cost) -> cost` for one move. Cells are
/// `y * width + x`; `default_cost` is the step length (1 or √2) times the entered cell's
/// area multiplier. A result that is not finite and ≥ 0 makes the move impassable. Hooks
/// must be pure functions for results to be deterministic.
pub type CostHook = Arc<dyn Fn(u32, u32, f64) -> f64 + Send + Sync>;

/// A passability hook: `(cell) -> passable`, applied on top of walls and agent size.
pub type PassableHook = Arc<dyn Fn(u32) -> bool + Send + Sync>;

/// Options of a grid query.
#[derive(Clone)]
pub struct GridOptions {
    /// 4 or 8 neighbours.
    pub connectivity: Connectivity,
    /// The diagonal rule (8-connectivity only).
    pub diagonal_rule: DiagonalRule,
    /// Agent size in cells (≥ 1): a cell is passable when the `size × size` square whose
    /// north-west corner it is lies inside the grid and holds no wall.
    pub agent_size: u32,
    /// Heuristic weight (finite, ≥ 0). 1 is optimal A*, 0 is Dijkstra, above 1 trades
    /// optimality (cost ≤ weight × optimum) for speed.
    pub heuristic_weight: f64,
    /// Optional move cost hook. With a hook the heuristic is 0 (the hook may lower costs,
    /// so no estimate is admissible) and the generic engine runs.
    pub cost_hook: Option<CostHook>,
    /// Optional passability hook.
    pub passable_hook: Option<PassableHook>,
    /// Tier-1 iteration cap: 0 = unlimited; otherwise a query that has not finished after
    /// this many iterations returns `GridPathStatus::BudgetExhausted` (not resumable; use the
    /// sliced form to resume).
    pub iteration_budget: u64,
    /// Record the expanded nodes in order (the list's length equals the expanded count).
    pub record_expansions: bool,
}

impl Default for GridOptions {
    fn default() -> Self {
        GridOptions {
            connectivity: Connectivity::Eight,
            diagonal_rule: DiagonalRule::BothOrthogonalFree,
            agent_size: 1,
            heuristic_weight: 1.0,
            cost_hook: None,
            passable_hook: None,
            iteration_budget: 0,
            record_expansions: false,
        }
    }
}

impl std::fmt::Debug for GridOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GridOptions")
            .field("connectivity", &self.connectivity)
            .field("diagonal_rule", &self.diagonal_rule)
            .field("agent_size", &self.agent_size)
            .field("heuristic_weight", &self.heuristic_weight)
            .field("cost_hook", &self.cost_hook.is_some())
            .field("passable_hook", &self.passable_hook.is_some())
            .field("iteration_budget", &self.iteration_budget)
            .field("record_expansions", &self.record_expansions)
            .finish()
    }
}

impl GridOptions {
    /// The iteration cap a one-shot search passes to its single step: the budget, or no
    /// cap when it is 0.
    pub(crate) fn step_budget(&self) -> u64 {
        crate::searches::sliced::one_shot_cap(self.iteration_budget)
    }

    /// Checks the option values.
    pub fn validate(&self) -> Result<(), GridError> {
        if self.agent_size == 0 {
            return Err(invalid("agent size", "must be at least 1"));
        }
        check_weight(self.heuristic_weight)
    }

    /// True when the options leave costs as plain step counts (no hook, unit agent,
    /// weight 0 or 1), which the specialised engines require together with uniform areas.
    pub fn is_plain(&self) -> bool {
        self.cost_hook.is_none()
            && self.passable_hook.is_none()
            && self.agent_size == 1
            && (self.heuristic_weight == 1.0 || self.heuristic_weight == 0.0)
    }
}

pub(crate) fn check_weight(w: f64) -> Result<(), GridError> {
    if !(w.is_finite() && w >= 0.0) {
        return Err(invalid(
            "heuristic weight",
            format!("{w} is not finite and >= 0"),
        ));
    }
    Ok(())
}
