//! Bidirectional A*: a forward search from the start and a backward search from the goal
//! (over predecessors, estimating the distance from the start), alternating one pop each,
//! forward first. `best` is the cheapest start→goal cost seen through a node both sides
//! have reached; the search stops when either side's smallest F is ≥ best (with
//! consistent estimates neither side can then improve it), so the result is optimal.
//!
//! One iteration = one node popped and expanded on either side. Not saved by the state
//! format (two buffer sets and a meeting node; cheap to restart).

use crate::error::{out_of_range, GridError};
use crate::open_lists::buffers::{SearchBuffers, NO_NODE};
use crate::open_lists::heap::OpenSet;
use crate::searches::astar::SearchGraph;
use crate::searches::graph_astar::{graph_key, GraphOptions};
use crate::searches::options::GridOptions;
use crate::searches::result::{GridPath, GridPathStatus, SearchStatus};
use crate::searches::sliced::{Began, SlicedSearch};
use crate::spaces::grid::Grid;
use crate::spaces::grid_view::{GridCache, GridView};

/// Bidirectional A* over any [`SearchGraph`] (sliced through [`SlicedSearch`]; the
/// options' heuristic weight is not used: the search is always optimal).
#[derive(Debug, Clone, Default)]
pub struct BidirectionalAStar {
    options: GraphOptions,
    began: Began,
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
    /// A search with these options (`record_expansions` keeps the expanded nodes of both
    /// sides in pop order).
    pub fn new(options: GraphOptions) -> Self {
        BidirectionalAStar {
            options,
            ..BidirectionalAStar::default()
        }
    }

    /// The result so far (`BudgetExhausted` while in progress). The same as
    /// [`SlicedSearch::result`], callable without naming the graph type.
    pub fn result(&self) -> Result<GridPath, GridError> {
        self.began.begun()?;
        Ok(self.outcome())
    }

    /// Begins a search on `graph` (no guard: the callers keep theirs).
    fn start_search<G: SearchGraph>(
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
    fn advance<G: SearchGraph>(&mut self, graph: &G, max_iterations: u64) -> SearchStatus {
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

    /// The result so far (no guard).
    fn outcome(&self) -> GridPath {
        let status = GridPathStatus::of(self.status);
        let mut nodes = Vec::new();
        if status == GridPathStatus::Found {
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
        GridPath {
            status,
            nodes,
            cost: if status == GridPathStatus::Found {
                self.best
            } else {
                0.0
            },
            expanded: self.expanded,
            iterations: self.iterations,
            expansions: self.record.then(|| self.expansions.clone()),
        }
    }
}

/// Sliced bidirectional A* on any graph; nodes by index (the graph must be the one begun
/// on).
impl<G: SearchGraph> SlicedSearch<G> for BidirectionalAStar {
    type Point = u32;

    fn one_shot_budget(&self) -> u64 {
        crate::searches::sliced::one_shot_cap(self.options.iteration_budget)
    }

    fn begin(&mut self, graph: &G, start: u32, goal: u32) -> Result<(), GridError> {
        self.start_search(graph, start, goal, self.options.record_expansions)?;
        self.began = Began::on(graph_key(graph));
        Ok(())
    }

    fn step(&mut self, graph: &G, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.began.check(graph_key(graph))?;
        Ok(self.advance(graph, max_iterations))
    }

    fn result(&self) -> Result<GridPath, GridError> {
        BidirectionalAStar::result(self)
    }
}

/// Bidirectional A* on a [`Grid`] under [`GridOptions`] (the heuristic weight is not
/// used: the search is always optimal).
#[derive(Debug, Clone)]
pub struct GridBidirectional {
    options: GridOptions,
    engine: BidirectionalAStar,
    cache: GridCache,
    began: Began,
}

impl GridBidirectional {
    /// A search with these options.
    pub fn new(options: GridOptions) -> Result<Self, GridError> {
        options.validate()?;
        Ok(GridBidirectional {
            options,
            engine: BidirectionalAStar::default(),
            cache: GridCache::default(),
            began: Began::not_begun(),
        })
    }
}

/// Sliced bidirectional A* on a grid; cells as (x, y).
impl SlicedSearch<Grid> for GridBidirectional {
    type Point = (u32, u32);

    fn one_shot_budget(&self) -> u64 {
        self.options.step_budget()
    }

    /// Begins a sliced search.
    fn begin(&mut self, grid: &Grid, start: (u32, u32), goal: (u32, u32)) -> Result<(), GridError> {
        let s = grid.index(start.0, start.1)?;
        let g = grid.index(goal.0, goal.1)?;
        let view = GridView::new(grid, &self.options, &mut self.cache);
        self.engine
            .start_search(&view, s, g, self.options.record_expansions)?;
        self.began = Began::on(grid.space_key());
        Ok(())
    }

    /// Runs at most `max_iterations` iterations on the unchanged grid.
    fn step(&mut self, grid: &Grid, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.began.check(grid.space_key())?;
        let view = GridView::new(grid, &self.options, &mut self.cache);
        Ok(self.engine.advance(&view, max_iterations))
    }

    /// The result so far.
    fn result(&self) -> Result<GridPath, GridError> {
        self.began.begun()?;
        Ok(self.engine.outcome())
    }
}
