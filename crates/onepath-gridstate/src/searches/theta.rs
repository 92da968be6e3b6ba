//! Theta*: any-angle A* on a grid. A successor s of the expanded cell u takes u's parent as
//! its own parent when the straight segment between their cell centres has line of sight,
//! else u; costs are Euclidean lengths between cell centres (area multipliers are not
//! applied; walls, agent size and the passability hook are). The moves tried are those of
//! the options (connectivity, diagonal rule).
//!
//! Line of sight is exact (integer arithmetic on doubled coordinates): the segment may
//! not enter a blocked cell, and where it passes exactly through a cell corner all four
//! cells around that corner must be passable (so every allowed diagonal move under
//! `BothOrthogonalFree` has line of sight, and no segment touches a wall).
//!
//! Theta* is near-optimal, not optimal: its paths are never longer than the optimal
//! 8-connected path in practice (checked on every Moving AI scenario) but not always the
//! shortest any-angle path. Open set tie-break as [`OpenSet`](crate::OpenSet). One
//! iteration = one cell popped.

use crate::error::GridError;
use crate::open_lists::buffers::{SearchBuffers, NO_NODE};
use crate::open_lists::heap::OpenSet;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use onepath_format::hash::SplitMix64Hasher;

use crate::searches::astar::SearchGraph;
use crate::searches::options::GridOptions;
use crate::searches::result::{GridPath, GridPathStatus, SearchStatus};
use crate::searches::sliced::{Began, SlicedSearch};
use crate::spaces::grid::Grid;
use crate::spaces::grid_view::{GridCache, GridView};

/// Exact line of sight between the centres of two cells, given a passability test.
pub fn line_of_sight(a: (i64, i64), b: (i64, i64), passable: impl Fn(i64, i64) -> bool) -> bool {
    let (mut x, mut y) = a;
    if !passable(x, y) {
        return false;
    }
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (sx, sy) = (dx.signum(), dy.signum());
    let (ax, ay) = (dx.abs(), dy.abs());
    let (mut i, mut j) = (0i64, 0i64);
    while i < ax || j < ay {
        // Crossing k of the x lines happens at t = (2k + 1) / (2 ax); compare exactly.
        let step = if i == ax {
            1
        } else if j == ay {
            -1
        } else {
            ((2 * i + 1) * ay).cmp(&((2 * j + 1) * ax)) as i64
        };
        match step {
            s if s < 0 => {
                x += sx;
                i += 1;
            }
            s if s > 0 => {
                y += sy;
                j += 1;
            }
            _ => {
                // Through a corner: the two side cells must be passable too.
                if !passable(x + sx, y) || !passable(x, y + sy) {
                    return false;
                }
                x += sx;
                y += sy;
                i += 1;
                j += 1;
            }
        }
        if !passable(x, y) {
            return false;
        }
    }
    true
}

/// Theta* on a [`Grid`].
#[derive(Debug, Clone)]
pub struct ThetaStar {
    options: GridOptions,
    buffers: SearchBuffers,
    open: OpenSet,
    cache: GridCache,
    status: SearchStatus,
    start: u32,
    goal: u32,
    expanded: u32,
    iterations: u32,
    path_cost: f64,
    expansions: Vec<u32>,
    began: Began,
    width: u32,
    scratch: Vec<(u32, f64)>,
    /// Line-of-sight answers of the current search, by (from, to) cell: a cell whose
    /// parent is `p` checks the line from `p` to each of its neighbours, and the children
    /// of one parent share most neighbours, so the same line comes up several times. Only
    /// lines of [`LOS_CACHE_FROM`] cells or more are kept, at most [`LOS_CACHE_MAX`] of
    /// them; cleared when a search begins or is restored (speed only: the answers are the
    /// ones the check gives).
    los: HashMap<u64, bool, BuildHasherDefault<SplitMix64Hasher>>,
}

/// Lines shorter than this (in cells along the longer axis) are checked, not looked up.
const LOS_CACHE_FROM: i64 = 6;
/// The most line-of-sight answers one search keeps.
const LOS_CACHE_MAX: usize = 1 << 20;

fn dist(w: u32, a: u32, b: u32) -> f64 {
    let (ax, ay) = (f64::from(a % w), f64::from(a / w));
    let (bx, by) = (f64::from(b % w), f64::from(b / w));
    let (dx, dy) = (ax - bx, ay - by);
    (dx * dx + dy * dy).sqrt()
}

impl ThetaStar {
    /// A search with these options (the heuristic weight scales the Euclidean estimate).
    pub fn new(options: GridOptions) -> Result<Self, GridError> {
        options.validate()?;
        Ok(ThetaStar {
            options,
            buffers: SearchBuffers::default(),
            open: OpenSet::default(),
            cache: GridCache::default(),
            status: SearchStatus::NotStarted,
            start: 0,
            goal: 0,
            expanded: 0,
            iterations: 0,
            path_cost: 0.0,
            expansions: Vec::new(),
            began: Began::not_begun(),
            width: 1,
            scratch: Vec::new(),
            los: HashMap::default(),
        })
    }
}

/// Sliced Theta* on a grid; cells as (x, y).
impl SlicedSearch<Grid> for ThetaStar {
    type Point = (u32, u32);

    fn one_shot_budget(&self) -> u64 {
        self.options.step_budget()
    }

    /// Begins a sliced search.
    fn begin(&mut self, grid: &Grid, start: (u32, u32), goal: (u32, u32)) -> Result<(), GridError> {
        let s = grid.index(start.0, start.1)?;
        let g = grid.index(goal.0, goal.1)?;
        let n = grid.cell_count();
        self.buffers.reset(n);
        self.open.reset(n);
        self.start = s;
        self.goal = g;
        self.width = grid.width();
        self.expanded = 0;
        self.iterations = 0;
        self.path_cost = 0.0;
        self.expansions.clear();
        self.los.clear();
        self.status = SearchStatus::InProgress;
        self.began = Began::on(grid.space_key());
        let view = GridView::new(grid, &self.options, &mut self.cache);
        if !view.is_passable(s) || !view.is_passable(g) {
            self.status = SearchStatus::NoPath;
            return Ok(());
        }
        self.buffers.visit(s, 0.0, NO_NODE);
        let h = self.options.heuristic_weight * dist(self.width, s, g);
        self.open.push_or_decrease(s, h, 0.0);
        Ok(())
    }

    /// Runs at most `max_iterations` iterations.
    fn step(&mut self, grid: &Grid, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.began.check(grid.space_key())?;
        let w = self.width;
        let weight = self.options.heuristic_weight;
        let view = GridView::new(grid, &self.options, &mut self.cache);
        let passable = |x: i64, y: i64| {
            x >= 0
                && y >= 0
                && x < i64::from(w)
                && y < i64::from(grid.height())
                && view.is_passable((y * i64::from(w) + x) as u32)
        };
        let xy = |c: u32| (i64::from(c % w), i64::from(c / w));
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
            let u = top.node;
            self.buffers.close(u);
            // The cell's `g` from the buffers, not the entry's: a cell improved to a `g`
            // whose `f` rounds to the same value keeps its open entry (the open list only
            // moves an entry forward, and on equal `f` the larger `g` comes first), while
            // the buffers hold the improved `g` and parent.
            let gu = self.buffers.g(u);
            if u == self.goal {
                self.path_cost = gu;
                self.status = SearchStatus::Found;
                break;
            }
            self.expanded = self.expanded.saturating_add(1);
            if self.options.record_expansions {
                self.expansions.push(u);
            }
            self.scratch.clear();
            view.successors(u, &mut self.scratch);
            let pu = self.buffers.parent(u);
            for k in 0..self.scratch.len() {
                let s = self.scratch[k].0;
                if self.buffers.is_closed(s) {
                    continue;
                }
                let sees = |p: u32, los: &mut HashMap<u64, bool, _>| {
                    let (a, b) = (xy(p), xy(s));
                    if (a.0 - b.0).abs().max((a.1 - b.1).abs()) < LOS_CACHE_FROM {
                        return line_of_sight(a, b, passable);
                    }
                    let key = u64::from(p) << 32 | u64::from(s);
                    if let Some(&v) = los.get(&key) {
                        return v;
                    }
                    let v = line_of_sight(a, b, passable);
                    if los.len() < LOS_CACHE_MAX {
                        los.insert(key, v);
                    }
                    v
                };
                let (via, g) = match pu {
                    Some(p) if sees(p, &mut self.los) => (p, self.buffers.g(p) + dist(w, p, s)),
                    _ => (u, gu + dist(w, u, s)),
                };
                if g < self.buffers.g(s) {
                    self.buffers.visit(s, g, via);
                    self.open
                        .push_or_decrease(s, g + weight * dist(w, s, self.goal), g);
                }
            }
        }
        Ok(self.status)
    }

    /// The result so far.
    fn result(&self) -> Result<GridPath, GridError> {
        self.began.begun()?;
        let status = GridPathStatus::of(self.status);
        Ok(GridPath {
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
            expansions: self
                .options
                .record_expansions
                .then(|| self.expansions.clone()),
        })
    }
}

/// Save and restore (OPGS kind 10, `docs/grid-state.md`).
impl ThetaStar {
    /// The search's state (kind 10), laid out as kind 8 (parents are any-angle: a visited
    /// node that costs no more).
    pub fn save_state(&self, grid: &Grid) -> Vec<u8> {
        use crate::state::*;
        let mut w = onepath_format::bytes::ByteWriter::new();
        write_header(&mut w, kind::THETA);
        write_search(
            &mut w,
            &SearchView {
                node_count: grid.cell_count(),
                status: self.status,
                weight: self.options.heuristic_weight,
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
        w.into_vec()
    }

    /// Restores a saved state in place (same grid size and heuristic weight). Checked
    /// before anything changes.
    pub fn restore_state(
        &mut self,
        grid: &Grid,
        bytes: &[u8],
    ) -> Result<(), onepath_format::FormatError> {
        use crate::state::*;
        let mut r = onepath_format::bytes::ByteReader::new(bytes);
        read_header(&mut r, kind::THETA, Family::Grid)?;
        let n = grid.cell_count();
        let st = read_search(&mut r, Family::Grid, n, self.options.heuristic_weight)?;
        expect_end(&r)?;
        st.install(n, &mut self.buffers, &mut self.open);
        self.began = Began::restored(st.status != SearchStatus::NotStarted, grid.space_key());
        self.los.clear();
        self.status = st.status;
        self.start = st.start;
        self.goal = st.goal;
        self.width = grid.width();
        self.expanded = st.expanded;
        self.iterations = st.iterations;
        self.path_cost = st.path_cost;
        self.expansions = if self.options.record_expansions {
            st.buffers.expansions
        } else {
            Vec::new()
        };
        Ok(())
    }
}
