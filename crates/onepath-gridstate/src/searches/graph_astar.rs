//! [`GraphAStar`]: A* over any [`SearchGraph`] (compiled graphs, point graphs, landmark
//! graphs), one-shot or sliced. One iteration = one node popped (see [`AStarCore`]).

use crate::error::{out_of_range, GridError};
use crate::searches::astar::{AStarCore, SearchGraph};
use crate::searches::options::check_weight;
use crate::searches::result::{GridPath, SearchStatus};
use crate::searches::sliced::{Began, SlicedSearch, SpaceKey};

/// Options of a graph query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GraphOptions {
    /// Heuristic weight (finite, ≥ 0; 1 = optimal).
    pub heuristic_weight: f64,
    /// Tier-1 iteration cap (0 = unlimited; otherwise `BudgetExhausted`, not resumable).
    pub iteration_budget: u64,
    /// Record expanded nodes.
    pub record_expansions: bool,
}

impl Default for GraphOptions {
    fn default() -> Self {
        GraphOptions {
            heuristic_weight: 1.0,
            iteration_budget: 0,
            record_expansions: false,
        }
    }
}

/// Graph A*.
#[derive(Debug, Clone, Default)]
pub struct GraphAStar {
    options: GraphOptions,
    core: AStarCore,
    began: Began,
}

/// A graph search's stale check: the node count (graphs have no version a search sees).
pub(crate) fn graph_key<G: SearchGraph>(graph: &G) -> SpaceKey {
    SpaceKey {
        identity: 0,
        version: graph.node_count() as u64,
    }
}

fn check(what: &'static str, node: u32, n: usize) -> Result<(), GridError> {
    if (node as usize) < n {
        Ok(())
    } else {
        Err(out_of_range(what, i64::from(node), 0, n as i64 - 1))
    }
}

impl GraphAStar {
    /// A search with these options.
    pub fn new(options: GraphOptions) -> Result<Self, GridError> {
        check_weight(options.heuristic_weight)?;
        Ok(GraphAStar {
            options,
            ..GraphAStar::default()
        })
    }

    /// The result so far (`BudgetExhausted` while in progress). The same as
    /// [`SlicedSearch::result`], callable without naming the graph type.
    pub fn result(&self) -> Result<GridPath, GridError> {
        self.began.begun()?;
        Ok(self.core.result())
    }

    /// The engine state.
    pub fn core(&self) -> &AStarCore {
        &self.core
    }
}

/// Sliced A* on any graph; nodes by index (the graph must be the one begun on).
impl<G: SearchGraph> SlicedSearch<G> for GraphAStar {
    type Point = u32;

    fn one_shot_budget(&self) -> u64 {
        crate::searches::sliced::one_shot_cap(self.options.iteration_budget)
    }

    /// Begins a sliced search.
    fn begin(&mut self, graph: &G, start: u32, goal: u32) -> Result<(), GridError> {
        let n = graph.node_count();
        check("start", start, n)?;
        check("goal", goal, n)?;
        self.core.begin(
            graph,
            start,
            goal,
            self.options.heuristic_weight,
            self.options.record_expansions,
        );
        self.began = Began::on(graph_key(graph));
        Ok(())
    }

    /// Runs at most `max_iterations` iterations (the graph must be the one begun on).
    fn step(&mut self, graph: &G, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.began.check(graph_key(graph))?;
        Ok(self.core.step(graph, max_iterations))
    }

    fn result(&self) -> Result<GridPath, GridError> {
        GraphAStar::result(self)
    }
}

/// Save and restore (OPGS kind 11, `docs/grid-state.md`; errors are
/// [`onepath_format::FormatError::State`] of format `"graph"`).
impl GraphAStar {
    /// The search's state (kind 11), laid out as kind 8. `graph` is the graph searched (it
    /// gives the node count). The saved weight is the options' heuristic weight (1.0 by
    /// default, the value the spec names for graph A*).
    pub fn save_state<G: SearchGraph>(&self, graph: &G) -> Vec<u8> {
        let mut w = onepath_format::bytes::ByteWriter::new();
        crate::state::write_header(&mut w, crate::state::kind::GRAPH_ASTAR);
        self.core
            .write_state(&mut w, graph.node_count(), self.options.heuristic_weight);
        w.into_vec()
    }

    /// Restores a saved state in place; the node count and heuristic weight must match
    /// the graph and options. Checked before anything changes.
    pub fn restore_state<G: SearchGraph>(
        &mut self,
        graph: &G,
        bytes: &[u8],
    ) -> Result<(), onepath_format::FormatError> {
        use crate::state::*;
        let mut r = onepath_format::bytes::ByteReader::new(bytes);
        read_header(&mut r, kind::GRAPH_ASTAR, Family::Graph)?;
        let n = graph.node_count();
        let st = read_search(&mut r, Family::Graph, n, self.options.heuristic_weight)?;
        expect_end(&r)?;
        self.began = Began::restored(st.status != SearchStatus::NotStarted, graph_key(graph));
        self.core.install(st, n, self.options.record_expansions);
        Ok(())
    }
}
