//! A* on a [`VoxelGrid`] and its options (the moves and the estimate are those of
//! `spaces/voxel.rs`).

use crate::error::GridError;
use crate::searches::astar::AStarCore;
use crate::searches::options::{check_weight, DiagonalRule};
use crate::searches::result::{GridPath, SearchStatus};
use crate::searches::sliced::{version_key, Began, SlicedSearch};
use crate::spaces::voxel::{VoxelGrid, VoxelView};

/// Neighbourhood of a voxel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum VoxelConnectivity {
    /// Faces (cost 1).
    Six,
    /// Faces and edges (cost √2 for an edge move).
    Eighteen,
    /// Faces, edges and corners (cost √3 for a corner move).
    #[default]
    TwentySix,
}

/// Options of a voxel query. The diagonal rule applies to multi-axis moves: the
/// *orthogonal neighbours* of a move are the cells reached by each strict, non-empty
/// subset of its axis steps; `Always` ignores them, `NoCornerCutting` needs at least one
/// passable, `BothOrthogonalFree` needs all passable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VoxelOptions {
    /// 6, 18 or 26 neighbours.
    pub connectivity: VoxelConnectivity,
    /// Multi-axis move rule.
    pub diagonal_rule: DiagonalRule,
    /// Heuristic weight (finite, ≥ 0).
    pub heuristic_weight: f64,
    /// Tier-1 iteration cap (0 = unlimited).
    pub iteration_budget: u64,
    /// Record expanded voxels.
    pub record_expansions: bool,
}

impl Default for VoxelOptions {
    fn default() -> Self {
        VoxelOptions {
            connectivity: VoxelConnectivity::TwentySix,
            diagonal_rule: DiagonalRule::BothOrthogonalFree,
            heuristic_weight: 1.0,
            iteration_budget: 0,
            record_expansions: false,
        }
    }
}

/// A* on a [`VoxelGrid`].
#[derive(Debug, Clone)]
pub struct VoxelAStar {
    options: VoxelOptions,
    core: AStarCore,
    began: Began,
}

impl VoxelAStar {
    /// A search with these options.
    pub fn new(options: VoxelOptions) -> Result<Self, GridError> {
        check_weight(options.heuristic_weight)?;
        Ok(VoxelAStar {
            options,
            core: AStarCore::default(),
            began: Began::not_begun(),
        })
    }
}

/// Sliced A* on a voxel grid; cells as (x, y, z).
impl SlicedSearch<VoxelGrid> for VoxelAStar {
    type Point = (u32, u32, u32);

    fn one_shot_budget(&self) -> u64 {
        crate::searches::sliced::one_shot_cap(self.options.iteration_budget)
    }

    /// Begins a sliced search.
    fn begin(
        &mut self,
        grid: &VoxelGrid,
        start: (u32, u32, u32),
        goal: (u32, u32, u32),
    ) -> Result<(), GridError> {
        let s = grid.index(start.0, start.1, start.2)?;
        let g = grid.index(goal.0, goal.1, goal.2)?;
        let view = VoxelView::new(grid, &self.options);
        self.core.begin(
            &view,
            s,
            g,
            self.options.heuristic_weight,
            self.options.record_expansions,
        );
        self.began = Began::on(version_key(grid.version()));
        Ok(())
    }

    /// Runs at most `max_iterations` iterations.
    fn step(&mut self, grid: &VoxelGrid, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.began.check(version_key(grid.version()))?;
        let view = VoxelView::new(grid, &self.options);
        Ok(self.core.step(&view, max_iterations))
    }

    /// The result so far.
    fn result(&self) -> Result<GridPath, GridError> {
        self.began.begun()?;
        Ok(self.core.result())
    }
}
