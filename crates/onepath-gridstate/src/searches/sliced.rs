//! The sliced-search contract every begin / step / result engine implements, and the one
//! guard that refuses a step or result before `begin` ("not begun") or on an object that
//! changed since (`Stale`).

use crate::error::GridError;
use crate::searches::result::{GridPath, SearchStatus};

/// A search that runs in slices: [`begin`](SlicedSearch::begin) once, then
/// [`step`](SlicedSearch::step) with any iteration budgets until the status is no longer
/// `InProgress`, then [`result`](SlicedSearch::result). Stepped with any budgets it returns
/// the result of the one-shot [`find_path`](SlicedSearch::find_path).
///
/// `S` is what is searched ([`Grid`](crate::Grid), [`HexGrid`](crate::HexGrid),
/// [`VoxelGrid`](crate::VoxelGrid), a [`SearchGraph`](crate::SearchGraph)); every step
/// must be given the object begun on, unchanged (else [`GridError::Stale`]).
///
/// ```
/// use onepath_gridstate::{Grid, GridOptions, SearchStatus, SlicedSearch, ThetaStar};
///
/// let grid = Grid::from_ascii(&["....", ".#..", "...."]).unwrap();
/// let mut search = ThetaStar::new(GridOptions::default()).unwrap();
/// let one_shot = search.find_path(&grid, (0, 0), (3, 2)).unwrap();
/// search.begin(&grid, (0, 0), (3, 2)).unwrap();
/// while search.step(&grid, 1).unwrap() == SearchStatus::InProgress {}
/// assert_eq!(search.result().unwrap(), one_shot);
/// ```
pub trait SlicedSearch<S: ?Sized> {
    /// A node as the caller names it: (x, y) on grids, (x, y, z) on voxel grids, the node
    /// index on graphs.
    type Point: Copy;

    /// Begins a search from `start` to `goal` (checked against `space`), dropping any
    /// search in progress.
    fn begin(&mut self, space: &S, start: Self::Point, goal: Self::Point) -> Result<(), GridError>;

    /// Runs at most `max_iterations` iterations (what one iteration is per engine:
    /// `docs/grid-search.md`). `NotBegun` before `begin`, `Stale` when `space` is not the
    /// object begun on or changed since.
    fn step(&mut self, space: &S, max_iterations: u64) -> Result<SearchStatus, GridError>;

    /// The result so far (`BudgetExhausted` while in progress); `NotBegun` before `begin`.
    fn result(&self) -> Result<GridPath, GridError>;

    /// The iteration cap of the one-shot form: the options' iteration budget, or
    /// `u64::MAX` when it is 0 (no cap).
    fn one_shot_budget(&self) -> u64;

    /// One-shot path from `start` to `goal`: `begin`, one `step` with
    /// [`one_shot_budget`](SlicedSearch::one_shot_budget), `result` (so a budget that runs
    /// out gives `BudgetExhausted`, which is not resumable).
    fn find_path(
        &mut self,
        space: &S,
        start: Self::Point,
        goal: Self::Point,
    ) -> Result<GridPath, GridError> {
        self.begin(space, start, goal)?;
        self.step(space, self.one_shot_budget())?;
        self.result()
    }
}

/// The iteration cap of a one-shot search whose options give `iteration_budget`: the
/// budget, or no cap when it is 0.
pub(crate) fn one_shot_cap(iteration_budget: u64) -> u64 {
    if iteration_budget == 0 {
        u64::MAX
    } else {
        iteration_budget
    }
}

/// What a sliced search remembers of the object it began on: an identity (0 where the
/// object kind has none) and a version that changes with every edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SpaceKey {
    pub(crate) identity: u64,
    pub(crate) version: u64,
}

/// The key of an object whose searches check only its version (hex and voxel grids).
pub(crate) fn version_key(version: u32) -> SpaceKey {
    SpaceKey {
        identity: 0,
        version: u64::from(version),
    }
}

/// The guard: whether a search has begun, and on which object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Began(Option<SpaceKey>);

impl Began {
    /// Begun on the object with this key.
    pub(crate) fn on(key: SpaceKey) -> Self {
        Began(Some(key))
    }

    /// Not begun (a restored state that never began).
    pub(crate) fn not_begun() -> Self {
        Began(None)
    }

    /// Begun on `key` when `started` (a restored state), else not begun.
    pub(crate) fn restored(started: bool, key: SpaceKey) -> Self {
        Began(started.then_some(key))
    }

    /// `NotBegun` unless a search has begun.
    pub(crate) fn begun(&self) -> Result<(), GridError> {
        match self.0 {
            Some(_) => Ok(()),
            None => Err(GridError::NotBegun),
        }
    }

    /// `NotBegun` unless a search has begun, `Stale` unless it began on the object whose
    /// key is `now` (the versions are reported).
    pub(crate) fn check(&self, now: SpaceKey) -> Result<(), GridError> {
        match self.0 {
            None => Err(GridError::NotBegun),
            Some(key) if key != now => Err(GridError::Stale {
                began: key.version,
                now: now.version,
            }),
            Some(_) => Ok(()),
        }
    }
}
