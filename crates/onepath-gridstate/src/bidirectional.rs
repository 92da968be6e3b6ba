//! Bidirectional A*: a forward search from the start and a backward search from the goal
//! (over predecessors, estimating the distance from the start), alternating one pop each,
//! forward first. `best` is the cheapest start→goal cost seen through a node both sides
//! have reached; the search stops when either side's smallest F is ≥ best (with
//! consistent estimates neither side can then improve it), so the result is optimal.
//!
//! One iteration = one node popped and expanded on either side. Not saved by the state
//! format (two buffer sets and a meeting node; cheap to restart).

use crate::astar::SearchGraph;
use crate::buffers::{SearchBuffers, NO_NODE};
use crate::error::{out_of_range, GridError};
use crate::grid::Grid;
use crate::grid_view::{GridCache, GridView};
use crate::heap::OpenSet;
use crate::options::GridOptions;
use crate::result::{PathResult, PathStatus, SearchStatus};

/// The bidirectional engine over any [`SearchGraph`].
#[derive(Debug, Clone, Default)]
pub struct BidirectionalAStar {
    fwd: SearchBuffers,
    bwd: SearchBuffers,
    fopen: OpenSet,
    bopen: OpenSet,
    status: SearchStatus,
    start: u32,
    goal: u32,
    best: f64,
    meet: u32,
    expanded: u32,
    iterations: u32,
    record: bool,
    expansions: Vec<u32>,
    scratch: Vec<(u32, f64)>,
    node_count: usize,
}

impl BidirectionalAStar {
    /// Begins a search (`record`: keep the expanded nodes of both sides in pop order).
    pub fn begin<G: SearchGraph>(
        &mut self,
        graph: &G,
        start: u32,
        goal: u32,
        record: bool,
    ) -> Result<(), GridError> {
        let n = graph.node_count();
        for (what, v) in [("start", start), ("goal", goal)] {
            if v as usize >= n {
                return Err(out_of_range(what, i64::from(v), 0, n as i64 - 1));
            }
        }
        self.node_count = n;
        self.fwd.reset(n);
        self.bwd.reset(n);
        self.fopen.reset(n);
        self.bopen.reset(n);
        self.start = start;
        self.goal = goal;
        self.best = f64::INFINITY;
        self.meet = NO_NODE;
        self.expanded = 0;
        self.iterations = 0;
        self.record = record;
        self.expansions.clear();
        self.status = SearchStatus::InProgress;
        if !graph.is_passable(start) || !graph.is_passable(goal) {
            self.status = SearchStatus::NoPath;
            return Ok(());
        }
        let h = graph.estimate(start, goal);
        self.fwd.visit(start, 0.0, NO_NODE);
        self.fopen.push_or_decrease(start, h, 0.0);
        self.bwd.visit(goal, 0.0, NO_NODE);
        self.bopen.push_or_decrease(goal, h, 0.0);
        if start == goal {
            self.best = 0.0;
            self.meet = start;
        }
        Ok(())
    }

    /// Runs at most `max_iterations` iterations.
    pub fn step<G: SearchGraph>(&mut self, graph: &G, max_iterations: u64) -> SearchStatus {
        let mut done = 0u64;
        while self.status == SearchStatus::InProgress {
            let (Some(f), Some(b)) = (self.fopen.peek(), self.bopen.peek()) else {
                self.status = if self.best.is_finite() {
                    SearchStatus::Found
                } else {
                    SearchStatus::NoPath
                };
                break;
            };
            if f.f >= self.best || b.f >= self.best {
                self.status = SearchStatus::Found;
                break;
            }
            if done >= max_iterations {
                break;
            }
            done += 1;
            let forward = self.iterations % 2 == 0;
            self.iterations = self.iterations.saturating_add(1);
            let (open, mine, other) = if forward {
                (&mut self.fopen, &mut self.fwd, &self.bwd)
            } else {
                (&mut self.bopen, &mut self.bwd, &self.fwd)
            };
            let Some(top) = open.pop() else { break };
            mine.close(top.node);
            self.expanded = self.expanded.saturating_add(1);
            if self.record {
                self.expansions.push(top.node);
            }
            self.scratch.clear();
            if forward {
                graph.successors(top.node, &mut self.scratch);
            } else {
                graph.predecessors(top.node, &mut self.scratch);
            }
            for &(m, c) in &self.scratch {
                if mine.is_closed(m) {
                    continue;
                }
                let g = top.g + c;
                if g < mine.g(m) {
                    mine.visit(m, g, top.node);
                    let h = if forward {
                        graph.estimate(m, self.goal)
                    } else {
                        graph.estimate(self.start, m)
                    };
                    open.push_or_decrease(m, g + h, g);
                    if other.is_visited(m) {
                        let total = g + other.g(m);
                        if total < self.best {
                            self.best = total;
                            self.meet = m;
                        }
                    }
                }
            }
        }
        self.status
    }

    /// The result so far.
    pub fn result(&self) -> PathResult {
        let status = match self.status {
            SearchStatus::Found => PathStatus::Found,
            SearchStatus::NoPath => PathStatus::NoPath,
            _ => PathStatus::BudgetExhausted,
        };
        let mut nodes = Vec::new();
        if status == PathStatus::Found {
            nodes = self.fwd.path_to(self.meet);
            let mut cur = self.bwd.parent(self.meet);
            while let Some(n) = cur {
                if nodes.len() > self.node_count {
                    break;
                }
                nodes.push(n);
                cur = self.bwd.parent(n);
            }
        }
        PathResult {
            status,
            nodes,
            cost: if status == PathStatus::Found {
                self.best
            } else {
                0.0
            },
            expanded: self.expanded,
            iterations: self.iterations,
            expansions: if self.record {
                Some(self.expansions.clone())
            } else {
                None
            },
        }
    }

    /// One-shot with a tier-1 budget (0 = unlimited).
    pub fn find_path<G: SearchGraph>(
        &mut self,
        graph: &G,
        start: u32,
        goal: u32,
        budget: u64,
        record: bool,
    ) -> Result<PathResult, GridError> {
        self.begin(graph, start, goal, record)?;
        self.step(graph, if budget == 0 { u64::MAX } else { budget });
        Ok(self.result())
    }
}

/// Bidirectional A* on a [`Grid`] under [`GridOptions`] (the heuristic weight is not
/// used: the search is always optimal).
#[derive(Debug, Clone)]
pub struct GridBidirectional {
    options: GridOptions,
    engine: BidirectionalAStar,
    cache: GridCache,
    began: Option<(u64, u32)>,
}

impl GridBidirectional {
    /// A search with these options.
    pub fn new(options: GridOptions) -> Result<Self, GridError> {
        options.validate()?;
        Ok(GridBidirectional {
            options,
            engine: BidirectionalAStar::default(),
            cache: GridCache::default(),
            began: None,
        })
    }

    /// One-shot path (cells as (x, y)).
    pub fn find_path(
        &mut self,
        grid: &Grid,
        start: (u32, u32),
        goal: (u32, u32),
    ) -> Result<PathResult, GridError> {
        self.begin(grid, start, goal)?;
        self.step(grid, self.options.step_budget())?;
        self.result()
    }

    /// Begins a sliced search.
    pub fn begin(
        &mut self,
        grid: &Grid,
        start: (u32, u32),
        goal: (u32, u32),
    ) -> Result<(), GridError> {
        let s = grid.index(start.0, start.1)?;
        let g = grid.index(goal.0, goal.1)?;
        let view = GridView::new(grid, &self.options, &mut self.cache);
        self.engine
            .begin(&view, s, g, self.options.record_expansions)?;
        self.began = Some(grid.cache_key());
        Ok(())
    }

    /// Runs at most `max_iterations` iterations on the unchanged grid.
    pub fn step(&mut self, grid: &Grid, max_iterations: u64) -> Result<SearchStatus, GridError> {
        let Some(key) = self.began else {
            return Err(GridError::NotBegun);
        };
        if key != grid.cache_key() {
            return Err(GridError::Stale {
                began: u64::from(key.1),
                now: u64::from(grid.version()),
            });
        }
        let view = GridView::new(grid, &self.options, &mut self.cache);
        Ok(self.engine.step(&view, max_iterations))
    }

    /// The result so far.
    pub fn result(&self) -> Result<PathResult, GridError> {
        if self.began.is_none() {
            return Err(GridError::NotBegun);
        }
        Ok(self.engine.result())
    }
}
