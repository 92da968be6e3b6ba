//! [`GridSearch`]: the specialised grid engine. With unit costs (no hooks, agent size 1,
//! every area multiplier 1.0, heuristic weight 1 or 0) it counts costs as exact
//! (straight, diagonal) step pairs — specialised A* (mode 1) or jump point search with
//! block scans or JPS+ tables (mode 3) — and otherwise falls back to the generic
//! [`GridAStar`] (mode 2).

use crate::astar::GridAStar;
use crate::bitgrid::BitGrid;
use crate::error::GridError;
use crate::grid::Grid;
use crate::jps::{JumpFinder, JumpSearch};
use crate::jps_plus::JumpTables;
use crate::move_mask::MoveMasks;
use crate::octile::StepPair;
use crate::options::{Connectivity, DiagonalRule, GridOptions};
use crate::pair_astar::PairAStar;
use crate::result::{PathResult, PathStatus, SearchStatus};

/// The algorithm a [`GridSearch`] is asked to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GridAlgorithm {
    /// A*.
    #[default]
    AStar,
    /// Jump point search with block scans on bit rows.
    JumpPoint,
    /// JPS+ (precomputed jump tables, rebuilt after an edit).
    JumpPointPlus,
}

/// The engine a [`GridSearch`] picked for its options and grid (the saved `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GridEngine {
    /// Nothing begun yet (mode 0).
    #[default]
    NotBegun,
    /// Specialised A* on exact step pairs (mode 1).
    SpecialisedAStar,
    /// The generic f64 A* (mode 2).
    Generic,
    /// Specialised jump point search (mode 3) with this finder.
    SpecialisedJump(JumpFinder),
}

/// The grid search engine: one-shot [`GridSearch::find_path`] or sliced
/// [`GridSearch::begin`] / [`GridSearch::step`] / [`GridSearch::result`].
///
/// Engine choice (documented in docs/grid-search.md): with plain options
/// ([`GridOptions::is_plain`]) and all area multipliers 1.0, `JumpPoint`/`JumpPointPlus`
/// run the jump point engine when the connectivity is 8 and the diagonal rule
/// `BothOrthogonalFree`, else the specialised A*; `AStar` runs the specialised A*. Any
/// other options run the generic A*.
#[derive(Debug, Clone)]
pub struct GridSearch {
    algorithm: GridAlgorithm,
    options: GridOptions,
    engine: GridEngine,
    pair: PairAStar,
    jump: JumpSearch,
    generic: GridAStar,
    masks: MoveMasks,
    bits: BitGrid,
    tables: JumpTables,
    began: Option<(u64, u32)>,
}

impl GridSearch {
    /// A search running `algorithm` with `options`.
    pub fn new(algorithm: GridAlgorithm, options: GridOptions) -> Result<Self, GridError> {
        options.validate()?;
        Ok(GridSearch {
            algorithm,
            generic: GridAStar::new(options.clone())?,
            options,
            engine: GridEngine::NotBegun,
            pair: PairAStar::default(),
            jump: JumpSearch::default(),
            masks: MoveMasks::default(),
            bits: BitGrid::default(),
            tables: JumpTables::default(),
            began: None,
        })
    }

    /// The requested algorithm.
    pub fn algorithm(&self) -> GridAlgorithm {
        self.algorithm
    }
    /// The options.
    pub fn options(&self) -> &GridOptions {
        &self.options
    }
    /// The engine picked by the last `begin`.
    pub fn engine(&self) -> GridEngine {
        self.engine
    }

    /// The engine these options pick for `grid`.
    pub fn engine_for(&self, grid: &Grid) -> GridEngine {
        if !(self.options.is_plain() && grid.areas().is_uniform_one()) {
            return GridEngine::Generic;
        }
        let jump_ok = self.options.connectivity == Connectivity::Eight
            && self.options.diagonal_rule == DiagonalRule::BothOrthogonalFree;
        match self.algorithm {
            GridAlgorithm::JumpPoint if jump_ok => {
                GridEngine::SpecialisedJump(JumpFinder::BlockScans)
            }
            GridAlgorithm::JumpPointPlus if jump_ok => {
                GridEngine::SpecialisedJump(JumpFinder::Tables)
            }
            _ => GridEngine::SpecialisedAStar,
        }
    }

    /// One-shot path (cells as (x, y)), honouring `iteration_budget`.
    pub fn find_path(
        &mut self,
        grid: &Grid,
        start: (u32, u32),
        goal: (u32, u32),
    ) -> Result<PathResult, GridError> {
        self.begin(grid, start, goal)?;
        let budget = if self.options.iteration_budget == 0 {
            u64::MAX
        } else {
            self.options.iteration_budget
        };
        self.step(grid, budget)?;
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
        let engine = self.engine_for(grid);
        let zero = self.options.heuristic_weight == 0.0;
        let record = self.options.record_expansions;
        match engine {
            GridEngine::Generic | GridEngine::NotBegun => self.generic.begin(grid, start, goal)?,
            GridEngine::SpecialisedAStar => {
                self.masks
                    .ensure(grid, self.options.connectivity, self.options.diagonal_rule);
                let cells = grid.cells();
                let four = self.options.connectivity == Connectivity::Four;
                self.pair.begin(
                    grid.width(),
                    grid.height(),
                    &self.masks.masks,
                    |c| cells[c as usize] != crate::area::WALL,
                    s,
                    g,
                    zero,
                    four,
                    record,
                );
            }
            GridEngine::SpecialisedJump(finder) => {
                self.bits.ensure(grid);
                if finder == JumpFinder::Tables {
                    self.tables.ensure(grid, &self.bits);
                }
                self.jump.begin(&self.bits, finder, s, g, zero, record);
            }
        }
        self.engine = engine;
        self.began = Some(grid.cache_key());
        Ok(())
    }

    /// Runs at most `max_iterations` iterations on the same (unchanged) grid.
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
        Ok(match self.engine {
            GridEngine::Generic | GridEngine::NotBegun => {
                self.generic.step(grid, max_iterations)?
            }
            GridEngine::SpecialisedAStar => self.pair.step(&self.masks.masks, max_iterations),
            GridEngine::SpecialisedJump(finder) => {
                let tables = if finder == JumpFinder::Tables {
                    Some(&self.tables)
                } else {
                    None
                };
                self.jump.step(&self.bits, tables, max_iterations)
            }
        })
    }

    /// The status of the current search.
    pub fn status(&self) -> SearchStatus {
        match self.engine {
            GridEngine::NotBegun => SearchStatus::NotStarted,
            GridEngine::Generic => self.generic.core().status(),
            GridEngine::SpecialisedAStar => self.pair.status,
            GridEngine::SpecialisedJump(_) => self.jump.status,
        }
    }

    /// The exact cost of the found path as a step pair (specialised engines only).
    pub fn path_pair(&self) -> Option<StepPair> {
        match (self.engine, self.status()) {
            (GridEngine::SpecialisedAStar, SearchStatus::Found) => {
                Some(StepPair::new(self.pair.path_a, self.pair.path_b))
            }
            (GridEngine::SpecialisedJump(_), SearchStatus::Found) => {
                Some(StepPair::new(self.jump.path_a, self.jump.path_b))
            }
            _ => None,
        }
    }

    /// The result so far (`BudgetExhausted` while in progress).
    pub fn result(&self) -> Result<PathResult, GridError> {
        if self.began.is_none() {
            return Err(GridError::NotBegun);
        }
        let (status, expanded, iterations, record, expansions) = match self.engine {
            GridEngine::Generic | GridEngine::NotBegun => return self.generic.result(),
            GridEngine::SpecialisedAStar => {
                let p = &self.pair;
                (p.status, p.expanded, p.iterations, p.record, &p.expansions)
            }
            GridEngine::SpecialisedJump(_) => {
                let j = &self.jump;
                (j.status, j.expanded, j.iterations, j.record, &j.expansions)
            }
        };
        let status = match status {
            SearchStatus::Found => PathStatus::Found,
            SearchStatus::NoPath => PathStatus::NoPath,
            _ => PathStatus::BudgetExhausted,
        };
        let (nodes, cost) = if status == PathStatus::Found {
            let nodes = match self.engine {
                GridEngine::SpecialisedAStar => self.pair.path(),
                _ => self.jump.path(),
            };
            (nodes, self.path_pair().map_or(0.0, StepPair::to_f64))
        } else {
            (Vec::new(), 0.0)
        };
        Ok(PathResult {
            status,
            nodes,
            cost,
            expanded,
            iterations,
            expansions: if record {
                Some(expansions.clone())
            } else {
                None
            },
        })
    }
}
