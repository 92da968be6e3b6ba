//! [`JumpSearch`]: the generic jump point search (OPGS kind 9).
//!
//! It serves the options the specialised jump point engine of
//! [`GridSearch`](crate::GridSearch) cannot, as long as jump point pruning stays exact:
//! 8-connectivity, the [`DiagonalRule::BothOrthogonalFree`] rule, no cost hook, heuristic
//! weight 1, and a grid whose 255 area multipliers are all equal (any value `m`: every
//! straight step costs `m`, every diagonal `√2·m`). Walls, the agent size (clearance) and
//! the passability hook are honoured: pruning needs only a passability predicate. Other
//! options are refused ([`GridError::Invalid`]); non-uniform costs break the pruning
//! (a jump may pass a cheaper cell), so [`GridSearch`](crate::GridSearch) runs A* there.
//!
//! Pruning (no corner is ever touched): after a straight move d a cell keeps d and, per
//! side s whose cell is passable while the cell behind it (s − d) is not (a *forced*
//! side), s and d + s; after a diagonal move it keeps the two components and the diagonal;
//! the start keeps all eight. A straight jump stops at the goal or at a cell with a forced
//! side; a diagonal jump stops at the goal or where a straight jump along either component
//! finds a jump point. Directions are tried in the order N, E, S, W, NE, SE, SW, NW.
//!
//! Costs are f64: a hop of k straight steps costs `k·m`, of k diagonal steps `k·√2·m`,
//! added to the parent's cost; the estimate is the octile distance times `m`. The open set
//! is the generic [`OpenSet`](crate::OpenSet) (F, then larger G, then smaller node).
//!
//! One iteration = one node popped from the open set: the goal (the search ends `Found`)
//! or a jump point that is then expanded (its jumps scanned). An empty open set ends the
//! search `NoPath` without using an iteration. The expanded list holds the jump points
//! expanded, in order.

use std::f64::consts::SQRT_2;

use crate::error::{invalid, GridError};
use crate::open_lists::buffers::NO_NODE;
use crate::searches::astar::{AStarCore, SearchGraph};
use crate::searches::options::{Connectivity, DiagonalRule, GridOptions};
use crate::searches::result::{GridPath, SearchStatus};
use crate::searches::sliced::{Began, SlicedSearch};
use crate::spaces::grid::Grid;
use crate::spaces::grid_view::{GridCache, GridView, MOVES};

/// Generic jump point search on a [`Grid`] (module docs: the options it serves, pruning,
/// what one iteration is). One-shot [`JumpSearch::find_path`] or sliced
/// [`JumpSearch::begin`] / [`JumpSearch::step`] / [`JumpSearch::result`]; state saved as
/// OPGS kind 9.
///
/// ```
/// use onepath_gridstate::{Grid, GridOptions, GridPathStatus, JumpSearch, SlicedSearch};
///
/// let rows = [".......", ".......", ".####..", ".......", "......."];
/// let mut grid = Grid::from_ascii(&rows).unwrap();
/// for area in 0..=254 {
///     grid.set_area_cost(area, 2.0).unwrap(); // uniform costs other than 1 are served
/// }
/// let options = GridOptions { agent_size: 2, ..GridOptions::default() };
/// let mut search = JumpSearch::new(options).unwrap();
/// // A 2 × 2 agent (cell = its north-west corner) passes the wall row on the right only,
/// // in straight steps (a diagonal would touch the wall): 1 east, 3 south, 1 west.
/// let r = search.find_path(&grid, (4, 0), (4, 3)).unwrap();
/// assert_eq!(r.status, GridPathStatus::Found);
/// assert_eq!(r.cost, 2.0 * 5.0);
/// assert_eq!(r.nodes, vec![4, 5, 12, 19, 26, 25]);
/// ```
#[derive(Debug, Clone)]
pub struct JumpSearch {
    options: GridOptions,
    core: AStarCore,
    cache: GridCache,
    began: Began,
    width: u32,
    scratch: Vec<(u32, f64)>,
}

/// Whether `options` are ones the generic jump point search serves (the grid must also have
/// uniform area multipliers, [`uniform_multiplier`]).
fn check_options(options: &GridOptions) -> Result<(), GridError> {
    if options.connectivity != Connectivity::Eight {
        return Err(invalid(
            "connectivity",
            "jump point search needs 8-connectivity",
        ));
    }
    if options.diagonal_rule != DiagonalRule::BothOrthogonalFree {
        return Err(invalid(
            "diagonal rule",
            "jump point search needs BothOrthogonalFree",
        ));
    }
    if options.cost_hook.is_some() {
        return Err(invalid(
            "cost hook",
            "jump point search needs uniform costs",
        ));
    }
    if options.heuristic_weight != 1.0 {
        return Err(invalid(
            "heuristic weight",
            format!(
                "{} (jump point search runs with 1)",
                options.heuristic_weight
            ),
        ));
    }
    Ok(())
}

/// The common multiplier when all 255 area multipliers are equal.
fn uniform_multiplier(grid: &Grid) -> Option<f64> {
    let m = grid.areas().multipliers();
    let first = m[0];
    m.iter().all(|&v| v == first).then_some(first)
}

impl JumpSearch {
    /// A search with these options: 8-connectivity, [`DiagonalRule::BothOrthogonalFree`],
    /// no cost hook and heuristic weight 1, else [`GridError::Invalid`] names the option.
    pub fn new(options: GridOptions) -> Result<Self, GridError> {
        options.validate()?;
        check_options(&options)?;
        Ok(JumpSearch {
            options,
            core: AStarCore::default(),
            cache: GridCache::default(),
            began: Began::not_begun(),
            width: 1,
            scratch: Vec::new(),
        })
    }

    /// Whether a jump search with `options` can run on `grid` (the options are served and
    /// all area multipliers of the grid are equal).
    pub fn serves(options: &GridOptions, grid: &Grid) -> bool {
        options.validate().is_ok()
            && check_options(options).is_ok()
            && uniform_multiplier(grid).is_some()
    }

    /// The options.
    pub fn options(&self) -> &GridOptions {
        &self.options
    }

    /// The status of the current search.
    pub fn status(&self) -> SearchStatus {
        self.core.status()
    }

    /// The engine state (buffers, open set, counters).
    pub fn core(&self) -> &AStarCore {
        &self.core
    }

    pub(crate) fn start_goal(&self) -> (u32, u32) {
        (self.core.start, self.core.goal)
    }
}

/// Sliced generic jump point search on a grid; cells as (x, y).
impl SlicedSearch<Grid> for JumpSearch {
    type Point = (u32, u32);

    fn one_shot_budget(&self) -> u64 {
        self.options.step_budget()
    }

    /// Begins a sliced search. [`GridError::Invalid`] when the grid's area multipliers are
    /// not all equal.
    fn begin(&mut self, grid: &Grid, start: (u32, u32), goal: (u32, u32)) -> Result<(), GridError> {
        let s = grid.index(start.0, start.1)?;
        let g = grid.index(goal.0, goal.1)?;
        if uniform_multiplier(grid).is_none() {
            return Err(invalid(
                "area costs",
                "jump point search needs all area multipliers equal",
            ));
        }
        let view = GridView::new(grid, &self.options, &mut self.cache);
        self.core
            .begin(&view, s, g, 1.0, self.options.record_expansions);
        self.began = Began::on(grid.space_key());
        self.width = grid.width().max(1);
        Ok(())
    }

    /// Runs at most `max_iterations` iterations on the same (unchanged) grid.
    fn step(&mut self, grid: &Grid, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.began.check(grid.space_key())?;
        // Begun on this grid version, so the multipliers are uniform (a restore checks too).
        let m = uniform_multiplier(grid).unwrap_or(1.0);
        let view = GridView::new(grid, &self.options, &mut self.cache);
        let jumper = Jumper {
            view: &view,
            width: i64::from(grid.width()),
            goal: (
                i64::from(self.core.goal) % i64::from(grid.width().max(1)),
                i64::from(self.core.goal) / i64::from(grid.width().max(1)),
            ),
            m,
        };
        let mut scratch = std::mem::take(&mut self.scratch);
        let status = step_core(&mut self.core, &jumper, &mut scratch, max_iterations);
        self.scratch = scratch;
        Ok(status)
    }

    /// The result so far (`BudgetExhausted` while in progress). The path lists every cell
    /// (each hop between jump points filled in: straight or diagonal steps); the expanded
    /// list names the jump points expanded.
    fn result(&self) -> Result<GridPath, GridError> {
        self.began.begun()?;
        let mut r = self.core.result();
        r.nodes = fill_hops(&r.nodes, self.width);
        Ok(r)
    }
}

/// The cells of a jump point chain: each hop walked one step at a time, diagonally while
/// both coordinates differ, then straight.
fn fill_hops(points: &[u32], width: u32) -> Vec<u32> {
    let w = i64::from(width.max(1));
    let mut out = Vec::with_capacity(points.len());
    if let Some(&first) = points.first() {
        out.push(first);
    }
    for pair in points.windows(2) {
        let (mut x, mut y) = (i64::from(pair[0]) % w, i64::from(pair[0]) / w);
        let (tx, ty) = (i64::from(pair[1]) % w, i64::from(pair[1]) / w);
        while (x, y) != (tx, ty) {
            x += (tx - x).signum();
            y += (ty - y).signum();
            out.push((y * w + x) as u32);
        }
    }
    out
}

/// The grid seen by the jumps.
struct Jumper<'a> {
    view: &'a GridView<'a>,
    width: i64,
    goal: (i64, i64),
    m: f64,
}

impl Jumper<'_> {
    #[inline]
    fn free(&self, x: i64, y: i64) -> bool {
        self.view.passable_xy(x, y)
    }

    /// Whether a straight move (dx, dy) into (x, y) leaves a forced side there.
    #[inline]
    fn forced_straight(&self, x: i64, y: i64, dx: i64, dy: i64) -> bool {
        let (sx, sy) = (dy, dx); // one perpendicular; the other is its negation
        (self.free(x + sx, y + sy) && !self.free(x + sx - dx, y + sy - dy))
            || (self.free(x - sx, y - sy) && !self.free(x - sx - dx, y - sy - dy))
    }

    /// Jumps straight from (x, y) along (dx, dy): the jump point and the steps taken.
    fn jump_straight(&self, mut x: i64, mut y: i64, dx: i64, dy: i64) -> Option<(i64, i64, u32)> {
        let mut k = 0u32;
        loop {
            x += dx;
            y += dy;
            k = k.saturating_add(1);
            if !self.free(x, y) {
                return None;
            }
            if (x, y) == self.goal || self.forced_straight(x, y, dx, dy) {
                return Some((x, y, k));
            }
        }
    }

    /// Whether the diagonal move (dx, dy) from (x, y) is allowed (no corner touched).
    #[inline]
    fn diagonal_ok(&self, x: i64, y: i64, dx: i64, dy: i64) -> bool {
        self.free(x + dx, y + dy) && self.free(x + dx, y) && self.free(x, y + dy)
    }

    /// Jumps diagonally from (x, y) along (dx, dy).
    fn jump_diagonal(&self, mut x: i64, mut y: i64, dx: i64, dy: i64) -> Option<(i64, i64, u32)> {
        let mut k = 0u32;
        loop {
            if !self.diagonal_ok(x, y, dx, dy) {
                return None;
            }
            x += dx;
            y += dy;
            k = k.saturating_add(1);
            if (x, y) == self.goal
                || self.jump_straight(x, y, dx, 0).is_some()
                || self.jump_straight(x, y, 0, dy).is_some()
            {
                return Some((x, y, k));
            }
        }
    }

    /// The directions (bits over `MOVES`) kept at (x, y) entered by the move (dx, dy)
    /// (each component −1, 0 or 1; (0, 0) for the start).
    fn kept(&self, x: i64, y: i64, dx: i64, dy: i64) -> u8 {
        let bit = |ddx: i64, ddy: i64| -> u8 {
            MOVES
                .iter()
                .position(|&(mx, my)| i64::from(mx) == ddx && i64::from(my) == ddy)
                .map_or(0, |i| 1u8 << i)
        };
        match (dx, dy) {
            (0, 0) => 0xff,
            (0, _) | (_, 0) => {
                let mut k = bit(dx, dy);
                let (sx, sy) = (dy, dx);
                for (px, py) in [(sx, sy), (-sx, -sy)] {
                    if self.free(x + px, y + py) && !self.free(x + px - dx, y + py - dy) {
                        k |= bit(px, py) | bit(dx + px, dy + py);
                    }
                }
                k
            }
            _ => bit(dx, 0) | bit(0, dy) | bit(dx, dy),
        }
    }

    /// Appends the jump points reachable from `node` (entered from `parent`) with the hop
    /// costs.
    fn successors(&self, node: u32, parent: u32, out: &mut Vec<(u32, f64)>) {
        let (x, y) = (i64::from(node) % self.width, i64::from(node) / self.width);
        let (dx, dy) = if parent == NO_NODE {
            (0, 0)
        } else {
            let (px, py) = (
                i64::from(parent) % self.width,
                i64::from(parent) / self.width,
            );
            ((x - px).signum(), (y - py).signum())
        };
        let kept = self.kept(x, y, dx, dy);
        for (i, &(mx, my)) in MOVES.iter().enumerate() {
            if kept & (1 << i) == 0 {
                continue;
            }
            let (mx, my) = (i64::from(mx), i64::from(my));
            let hop = if i < 4 {
                self.jump_straight(x, y, mx, my)
                    .map(|(jx, jy, k)| (jx, jy, f64::from(k) * self.m))
            } else {
                self.jump_diagonal(x, y, mx, my)
                    .map(|(jx, jy, k)| (jx, jy, f64::from(k) * SQRT_2 * self.m))
            };
            if let Some((jx, jy, c)) = hop {
                out.push(((jy * self.width + jx) as u32, c));
            }
        }
    }
}

/// The A* loop of kind 9: as [`AStarCore::step`] with jump point successors.
fn step_core(
    core: &mut AStarCore,
    jumper: &Jumper<'_>,
    scratch: &mut Vec<(u32, f64)>,
    max_iterations: u64,
) -> SearchStatus {
    let mut done = 0u64;
    while core.status == SearchStatus::InProgress {
        if core.open.is_empty() {
            core.status = SearchStatus::NoPath;
            break;
        }
        if done >= max_iterations {
            break;
        }
        let Some(top) = core.open.pop() else { break };
        done += 1;
        core.iterations = core.iterations.saturating_add(1);
        let node = top.node;
        core.buffers.close(node);
        if node == core.goal {
            core.path_cost = top.g;
            core.status = SearchStatus::Found;
            break;
        }
        core.expanded = core.expanded.saturating_add(1);
        if core.record {
            core.expansions.push(node);
        }
        scratch.clear();
        let parent = core.buffers.parent(node).unwrap_or(NO_NODE);
        jumper.successors(node, parent, scratch);
        for &(j, c) in scratch.iter() {
            if core.buffers.is_closed(j) {
                continue;
            }
            let g = top.g + c;
            if g < core.buffers.g(j) {
                core.buffers.visit(j, g, node);
                let f = g + jumper.view.estimate(j, core.goal);
                core.open.push_or_decrease(j, f, g);
            }
        }
    }
    core.status
}

/// Save and restore (OPGS kind 9, `docs/grid-state.md`).
impl JumpSearch {
    /// The search's state (kind 9), laid out as kind 8: i32 node count, u8 status, f64
    /// heuristic weight (always 1.0), i32 start, goal, expanded, iterations, f64 path cost,
    /// then (once begun) the search buffers (visited/closed/g/parent, the open set in heap
    /// order, the expanded list). `grid` is the grid searched.
    pub fn save_state(&self, grid: &Grid) -> Vec<u8> {
        let mut w = onepath_format::bytes::ByteWriter::new();
        crate::state::write_header(&mut w, crate::state::kind::JUMP);
        self.core.write_state(&mut w, grid.cell_count(), 1.0);
        w.into_vec()
    }

    /// Restores a saved state in place. `grid` must be the (restored) grid the search runs
    /// on: the node count must match, the weight must be 1.0 and, for a begun search, the
    /// grid's area multipliers must all be equal
    /// ([`onepath_format::FormatError::State`] names the mismatch). Checked before
    /// anything changes. Afterwards `step` continues exactly where the saved search was.
    pub fn restore_state(
        &mut self,
        grid: &Grid,
        bytes: &[u8],
    ) -> Result<(), onepath_format::FormatError> {
        use crate::state::*;
        let mut r = onepath_format::bytes::ByteReader::new(bytes);
        read_header(&mut r, kind::JUMP, Family::Grid)?;
        let st = read_search(&mut r, Family::Grid, grid.cell_count(), 1.0)?;
        expect_end(&r)?;
        self.check_grid(grid, &st)?;
        self.install_state(grid, st);
        Ok(())
    }

    pub(crate) fn check_grid(
        &self,
        grid: &Grid,
        st: &crate::state::SearchState,
    ) -> Result<(), onepath_format::FormatError> {
        if st.status != SearchStatus::NotStarted && uniform_multiplier(grid).is_none() {
            return Err(crate::state::Family::Grid
                .err("a begun jump point search needs a grid whose area multipliers are equal"));
        }
        Ok(())
    }

    pub(crate) fn install_state(&mut self, grid: &Grid, st: crate::state::SearchState) {
        let started = st.status != SearchStatus::NotStarted;
        self.width = grid.width().max(1);
        self.core
            .install(st, grid.cell_count(), self.options.record_expansions);
        self.began = Began::restored(started, grid.space_key());
    }
}
