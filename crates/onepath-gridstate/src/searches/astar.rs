//! The generic A* engine (f64 costs, [`OpenSet`] tie-break) and its grid front end
//! [`GridAStar`].
//!
//! One iteration = one node popped from the open set: the goal (the search ends `Found`)
//! or a node that is then expanded. An empty open set ends the search `NoPath` without
//! using an iteration.

use crate::error::GridError;
use crate::open_lists::buffers::{SearchBuffers, NO_NODE};
use crate::open_lists::heap::OpenSet;
use crate::searches::options::GridOptions;
use crate::searches::result::{GridPath, GridPathStatus, SearchStatus};
use crate::searches::sliced::{Began, SlicedSearch};
use crate::spaces::grid::Grid;
use crate::spaces::grid_view::{GridCache, GridView};

/// A graph the generic engines can search: nodes `0..node_count`, weighted successors and
/// an admissible, consistent estimate of the remaining cost.
pub trait SearchGraph {
    /// Number of nodes.
    fn node_count(&self) -> usize;
    /// Whether `node` may be entered at all (start and goal must be).
    fn is_passable(&self, node: u32) -> bool;
    /// Appends `(successor, cost)` pairs of `node` to `out` (costs finite and ≥ 0).
    fn successors(&self, node: u32, out: &mut Vec<(u32, f64)>);
    /// Appends `(predecessor, cost of predecessor → node)` pairs (for backward searches).
    fn predecessors(&self, node: u32, out: &mut Vec<(u32, f64)>);
    /// A lower bound of the cost from `from` to `to` (unweighted).
    fn estimate(&self, from: u32, to: u32) -> f64;
    /// Appends every node whose edges may change when `node` changes (replanners
    /// re-examine them after an edit). Default: successors and predecessors.
    fn adjacent(&self, node: u32, out: &mut Vec<u32>) {
        let mut buf = Vec::new();
        self.successors(node, &mut buf);
        self.predecessors(node, &mut buf);
        out.extend(buf.iter().map(|e| e.0));
    }
}

/// The reusable A* state: buffers, open set, counters. Part 2 saves exactly these fields.
#[derive(Debug, Clone, Default)]
pub struct AStarCore {
    pub(crate) buffers: SearchBuffers,
    pub(crate) open: OpenSet,
    pub(crate) status: SearchStatus,
    pub(crate) weight: f64,
    pub(crate) start: u32,
    pub(crate) goal: u32,
    pub(crate) expanded: u32,
    pub(crate) iterations: u32,
    pub(crate) path_cost: f64,
    pub(crate) record: bool,
    pub(crate) expansions: Vec<u32>,
    scratch: Vec<(u32, f64)>,
}

impl AStarCore {
    /// Starts a search from `start` to `goal` over a graph of `node_count` nodes. The caller
    /// has range-checked both nodes.
    pub fn begin<G: SearchGraph>(
        &mut self,
        graph: &G,
        start: u32,
        goal: u32,
        weight: f64,
        record: bool,
    ) {
        let n = graph.node_count();
        self.buffers.reset(n);
        self.open.reset(n);
        self.status = SearchStatus::InProgress;
        self.weight = weight;
        self.start = start;
        self.goal = goal;
        self.expanded = 0;
        self.iterations = 0;
        self.path_cost = 0.0;
        self.record = record;
        self.expansions.clear();
        if !graph.is_passable(start) || !graph.is_passable(goal) {
            self.status = SearchStatus::NoPath;
            return;
        }
        self.buffers.visit(start, 0.0, NO_NODE);
        let h = weight * graph.estimate(start, goal);
        self.open.push_or_decrease(start, h, 0.0);
    }

    /// Runs at most `max_iterations` iterations and returns the status.
    pub fn step<G: SearchGraph>(&mut self, graph: &G, max_iterations: u64) -> SearchStatus {
        let mut done = 0u64;
        while self.status == SearchStatus::InProgress {
            if self.open.is_empty() {
                self.status = SearchStatus::NoPath;
                break;
            }
            if done >= max_iterations {
                break;
            }
            let Some(top) = self.open.pop() else { break };
            done += 1;
            self.iterations = self.iterations.saturating_add(1);
            let node = top.node;
            self.buffers.close(node);
            if node == self.goal {
                self.path_cost = top.g;
                self.status = SearchStatus::Found;
                break;
            }
            self.expanded = self.expanded.saturating_add(1);
            if self.record {
                self.expansions.push(node);
            }
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.clear();
            graph.successors(node, &mut scratch);
            for &(m, c) in &scratch {
                if self.buffers.is_closed(m) {
                    continue;
                }
                let g = top.g + c;
                if g < self.buffers.g(m) {
                    self.buffers.visit(m, g, node);
                    let f = g + self.weight * graph.estimate(m, self.goal);
                    self.open.push_or_decrease(m, f, g);
                }
            }
            self.scratch = scratch;
        }
        self.status
    }

    /// The status.
    pub fn status(&self) -> SearchStatus {
        self.status
    }

    /// The result so far (a path only when found).
    pub fn result(&self) -> GridPath {
        let status = GridPathStatus::of(self.status);
        GridPath {
            status,
            nodes: if status == GridPathStatus::Found {
                self.buffers.path_to(self.goal)
            } else {
                Vec::new()
            },
            cost: if status == GridPathStatus::Found {
                self.path_cost
            } else {
                0.0
            },
            expanded: self.expanded,
            iterations: self.iterations,
            expansions: self.record.then(|| self.expansions.clone()),
        }
    }
}

/// A* on a [`Grid`] with any [`GridOptions`] (f64 costs: step length × the entered cell's
/// area multiplier, or the cost hook).
#[derive(Debug, Clone)]
pub struct GridAStar {
    options: GridOptions,
    core: AStarCore,
    cache: GridCache,
    began: Began,
}

impl GridAStar {
    /// A search with these options.
    pub fn new(options: GridOptions) -> Result<Self, GridError> {
        options.validate()?;
        Ok(GridAStar {
            options,
            core: AStarCore::default(),
            cache: GridCache::default(),
            began: Began::not_begun(),
        })
    }

    /// The options.
    pub fn options(&self) -> &GridOptions {
        &self.options
    }

    /// The engine state (buffers, open set, counters).
    pub fn core(&self) -> &AStarCore {
        &self.core
    }
}

/// Sliced A* on a grid; cells as (x, y).
impl SlicedSearch<Grid> for GridAStar {
    type Point = (u32, u32);

    fn begin(&mut self, grid: &Grid, start: (u32, u32), goal: (u32, u32)) -> Result<(), GridError> {
        let s = grid.index(start.0, start.1)?;
        let g = grid.index(goal.0, goal.1)?;
        let view = GridView::new(grid, &self.options, &mut self.cache);
        let w = view.heuristic_weight();
        self.core
            .begin(&view, s, g, w, self.options.record_expansions);
        self.began = Began::on(grid.space_key());
        Ok(())
    }

    fn step(&mut self, grid: &Grid, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.began.check(grid.space_key())?;
        let view = GridView::new(grid, &self.options, &mut self.cache);
        Ok(self.core.step(&view, max_iterations))
    }

    fn result(&self) -> Result<GridPath, GridError> {
        self.began.begun()?;
        Ok(self.core.result())
    }

    fn one_shot_budget(&self) -> u64 {
        self.options.step_budget()
    }
}

impl AStarCore {
    /// Writes the kind 8-11 body for a search over `node_count` nodes; `weight` is the
    /// searcher's heuristic weight (written as is).
    pub(crate) fn write_state(
        &self,
        w: &mut onepath_format::bytes::ByteWriter,
        node_count: usize,
        weight: f64,
    ) {
        crate::state::write_search(
            w,
            &crate::state::SearchView {
                node_count,
                status: self.status,
                weight,
                start: self.start,
                goal: self.goal,
                expanded: self.expanded,
                iterations: self.iterations,
                path_cost: self.path_cost,
                buffers: &self.buffers,
                open: &self.open,
                expansions: &self.expansions,
            },
        );
    }

    /// Installs a checked state over `node_count` nodes.
    pub(crate) fn install(
        &mut self,
        st: crate::state::SearchState,
        node_count: usize,
        record: bool,
    ) {
        st.install(node_count, &mut self.buffers, &mut self.open);
        self.status = st.status;
        self.weight = st.weight;
        self.start = st.start;
        self.goal = st.goal;
        self.expanded = st.expanded;
        self.iterations = st.iterations;
        self.path_cost = st.path_cost;
        self.record = record;
        self.expansions = if record {
            st.buffers.expansions
        } else {
            Vec::new()
        };
    }
}

/// Save and restore (OPGS kind 8, `docs/grid-state.md`).
impl GridAStar {
    /// The search's state (kind 8): i32 node count, u8 status, f64 heuristic weight,
    /// i32 start, goal, expanded, iterations, f64 path cost, then (once begun) the search
    /// buffers. `grid` is the grid searched (it gives the node count).
    pub fn save_state(&self, grid: &Grid) -> Vec<u8> {
        let mut w = onepath_format::bytes::ByteWriter::new();
        crate::state::write_header(&mut w, crate::state::kind::ASTAR);
        self.core
            .write_state(&mut w, grid.cell_count(), self.options.heuristic_weight);
        w.into_vec()
    }

    /// Restores a saved state in place. `grid` must be the (restored) grid the search
    /// runs on; the node count and heuristic weight must match
    /// ([`onepath_format::FormatError::State`] names the mismatch). Checked before
    /// anything changes. Afterwards `step` continues exactly where the saved search was.
    pub fn restore_state(
        &mut self,
        grid: &Grid,
        bytes: &[u8],
    ) -> Result<(), onepath_format::FormatError> {
        use crate::state::*;
        let mut r = onepath_format::bytes::ByteReader::new(bytes);
        read_header(&mut r, kind::ASTAR, Family::Grid)?;
        let n = grid.cell_count();
        let st = read_search(&mut r, Family::Grid, n, self.options.heuristic_weight)?;
        expect_end(&r)?;
        self.install_state(grid, st);
        Ok(())
    }

    pub(crate) fn install_state(&mut self, grid: &Grid, st: crate::state::SearchState) {
        let started = st.status != SearchStatus::NotStarted;
        self.core
            .install(st, grid.cell_count(), self.options.record_expansions);
        self.began = Began::restored(started, grid.space_key());
    }
}
