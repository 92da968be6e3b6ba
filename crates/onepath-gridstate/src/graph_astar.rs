//! [`GraphAStar`]: A* over any [`SearchGraph`] (compiled graphs, point graphs, landmark
//! graphs), one-shot or sliced. One iteration = one node popped (see [`AStarCore`]).

use crate::astar::{run_budgeted, AStarCore, SearchGraph};
use crate::error::{out_of_range, GridError};
use crate::options::check_weight;
use crate::result::{PathResult, SearchStatus};

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
    began: bool,
    node_count: usize,
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

    /// One-shot path.
    pub fn find_path<G: SearchGraph>(
        &mut self,
        graph: &G,
        start: u32,
        goal: u32,
    ) -> Result<PathResult, GridError> {
        self.begin(graph, start, goal)?;
        Ok(run_budgeted(
            &mut self.core,
            graph,
            self.options.iteration_budget,
        ))
    }

    /// Begins a sliced search.
    pub fn begin<G: SearchGraph>(
        &mut self,
        graph: &G,
        start: u32,
        goal: u32,
    ) -> Result<(), GridError> {
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
        self.began = true;
        self.node_count = n;
        Ok(())
    }

    /// Runs at most `max_iterations` iterations (the graph must be the one begun on).
    pub fn step<G: SearchGraph>(
        &mut self,
        graph: &G,
        max_iterations: u64,
    ) -> Result<SearchStatus, GridError> {
        if !self.began {
            return Err(GridError::NotBegun);
        }
        if graph.node_count() != self.node_count {
            return Err(GridError::Stale {
                began: self.node_count as u64,
                now: graph.node_count() as u64,
            });
        }
        Ok(self.core.step(graph, max_iterations))
    }

    /// The result so far.
    pub fn result(&self) -> Result<PathResult, GridError> {
        if !self.began {
            return Err(GridError::NotBegun);
        }
        Ok(self.core.result())
    }

    /// The engine state.
    pub fn core(&self) -> &AStarCore {
        &self.core
    }
}

/// Save and restore (OPGS kind 11, `docs/grid-state.md`; errors are
/// [`onepath_format::FormatError::GraphState`]).
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
        self.began = st.status != SearchStatus::NotStarted;
        self.node_count = n;
        self.core.install(st, n, self.options.record_expansions);
        Ok(())
    }
}
