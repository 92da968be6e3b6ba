//! # onepath-gridstate
//!
//! Grids, graphs and the searches that run on them, one-shot (tier 1) or sliced
//! (tier 2: [`SlicedSearch`]'s `begin` / `step(n)` / `result`), designed so that the OPGS
//! state format (`docs/grid-state.md`) can save and restore every search byte for byte.
//!
//! ## What is here
//! - objects: [`Grid`] (area bytes, [`AreaCosts`], [`GridSpace`], version, listeners and
//!   an edit journal), [`HexGrid`] (odd-r / even-r), [`VoxelGrid`] (16³ chunks allocated on
//!   first write), [`Graph`] (edges with id and alive flag), [`CsrGraph`] and
//!   [`PointGraph`] (immutable, compiled), [`LandmarkTable`] (ALT tables);
//! - searches, each one-shot and sliced through [`SlicedSearch`] (one guard refuses a
//!   step before `begin` and a step on an object that changed since): [`GridSearch`] (specialised A*, jump point search
//!   with block scans, JPS+, generic fallbacks), [`JumpSearch`] (generic jump point search:
//!   agent size, passability hook, uniform non-unit multipliers), [`GridAStar`], [`ThetaStar`],
//!   [`GraphAStar`], [`GridBidirectional`], [`HexAStar`], [`VoxelAStar`], [`HpaStar`];
//!   the replanners [`GridReplanner`] / [`HexReplanner`]
//!   (LPA*, D* Lite) and [`GridFlowField`];
//! - [`GridDebug::describe`]: a result as plain data;
//! - the OPGS state format (`docs/grid-state.md`): `save_state` / `restore_state` on every
//!   mutable object (grids, graph, replanners, flow field, A*, jump point search, Theta*, graph A*,
//!   [`GridSearch`] in every mode), `from_state` on [`Grid`], [`HexGrid`], [`VoxelGrid`] and
//!   [`Graph`]; a failed restore is a `FormatError::State` whose format is
//!   [`GRID_STATE_FORMAT`] or [`GRAPH_STATE_FORMAT`].
//!
//! Paths are [`GridPath`]s of cell indices (`y * width + x`); [`Grid::path_xy`] reads them
//! back as (x, y). Moving AI maps load from text, a reader or a path
//! ([`Grid::from_movingai`], [`Grid::from_movingai_reader`], [`Grid::from_movingai_path`]).
//!
//! Options, movement rules, tie-breaks and what one iteration is for each engine:
//! `docs/grid-search.md`.
//!
//! ## Layout of the source
//! - `spaces/`: what is searched (grid, hex and voxel grids, graphs, area costs, the world
//!   placement) and the views and derived caches the searches read it through;
//! - `searches/`: the [`SlicedSearch`] contract and its guard, the engines, their options
//!   and results;
//! - `open_lists/`: the heaps, the bucket ring, the per-node buffers and the paged records
//!   of the voxel A* (crate-private);
//! - `state/`: the OPGS header, the pieces several kinds share and the generic searches'
//!   state (each object's own save / restore sits beside the object).
//!
//! ## Invariants
//! - **Deterministic**: only IEEE-exact arithmetic (+ − × ÷ √) reaches a result; every
//!   priority queue has a documented total tie-break; no hash-map order reaches an output.
//!   The same inputs give the same path, cost, counters and expansion order everywhere.
//! - **Sliced = one-shot**: a search stepped with any budgets returns the result of the
//!   one-shot query (one iteration is defined per engine in `docs/grid-search.md`).
//! - **Exact octile costs**: the specialised engines of [`GridSearch`] count costs as
//!   (straight, diagonal) step pairs ([`StepPair`]) compared exactly.
//! - **Optimal**: every engine returns a least-cost path for its options (a heuristic
//!   weight above 1 bounds the cost by weight × optimum instead).
//! - **No panics on public input**: misuse returns a [`GridError`]; no `unsafe`.
//! - **Exact restore**: save → restore → save gives the same bytes, a restored search
//!   finishes exactly as the uninterrupted one, and a failed restore (any hostile bytes:
//!   a typed `onepath_format::FormatError`, never a panic) changes nothing.
//!
//! ## Example
//! ```
//! use onepath_gridstate::{
//!     Grid, GridAlgorithm, GridOptions, GridPathStatus, GridSearch, SlicedSearch,
//! };
//!
//! let grid = Grid::from_ascii(&[
//!     ".....",
//!     ".##..",
//!     ".....",
//! ]).unwrap();
//! let mut search = GridSearch::new(GridAlgorithm::JumpPoint, GridOptions::default()).unwrap();
//! let result = search.find_path(&grid, (0, 0), (4, 2)).unwrap();
//! assert_eq!(result.status, GridPathStatus::Found);
//! // 4 straight steps and 1 diagonal step (no corner of a wall is touched): 4 + √2.
//! assert_eq!(result.cost, 4.0 + std::f64::consts::SQRT_2);
//! assert_eq!(result.nodes.first(), Some(&0));
//! assert_eq!(result.nodes.last(), Some(&(2 * 5 + 4)));
//!
//! // Save mid-search, restore grid and search into fresh objects, finish there.
//! search.begin(&grid, (0, 0), (4, 2)).unwrap();
//! search.step(&grid, 2).unwrap();
//! let (grid_bytes, search_bytes) = (grid.save_state(), search.save_state(&grid));
//! let grid2 = Grid::from_state(&grid_bytes).unwrap();
//! let mut search2 = GridSearch::new(GridAlgorithm::JumpPoint, GridOptions::default()).unwrap();
//! search2.restore_state(&grid2, &search_bytes).unwrap();
//! search2.step(&grid2, u64::MAX).unwrap();
//! assert_eq!(search2.result().unwrap().nodes, result.nodes);
//! ```
#![forbid(unsafe_code)]

mod debug;
mod error;
pub mod normative;
mod open_lists;
mod searches;
mod spaces;
mod state;

pub use debug::{GridDebug, GridDebugInfo};
pub use error::GridError;
pub use searches::astar::{AStarCore, GridAStar, SearchGraph};
pub use searches::bidirectional::{BidirectionalAStar, GridBidirectional};
pub use searches::flow::{FlowCore, FlowStatus, GridFlowField};
pub use searches::graph_astar::{GraphAStar, GraphOptions};
pub use searches::grid_search::{GridAlgorithm, GridEngine, GridSearch};
pub use searches::hex_search::{HexAStar, HexReplanner};
pub use searches::hpa::HpaStar;
pub use searches::jps::JumpFinder;
pub use searches::jump_search::JumpSearch;
pub use searches::landmarks::{LandmarkGuidedGraph, LandmarkTable};
pub use searches::octile::StepPair;
pub use searches::options::{Connectivity, CostHook, DiagonalRule, GridOptions, PassableHook};
pub use searches::replan::{GridReplanner, PendingEntry, ReplanAlgorithm, ReplanCore, MAX_PENDING};
pub use searches::result::{GridPath, GridPathStatus, SearchStatus};
pub use searches::sliced::SlicedSearch;
pub use searches::theta::{line_of_sight, ThetaStar};
pub use searches::voxel_astar::{VoxelAStar, VoxelConnectivity, VoxelOptions};
pub use spaces::area::{AreaCosts, WALL};
pub use spaces::graph::{CsrGraph, Edge, EdgeId, Graph, PointGraph, MAX_GRAPH_NODES};
pub use spaces::grid::{CellEdit, Grid, ListenerId, EDIT_JOURNAL_LEN, MAX_CELLS};
pub use spaces::hex::{HexGrid, HexLayout};
pub use spaces::space::{GridSpace, SPACE_LIMIT};
pub use spaces::voxel::{VoxelEdit, VoxelGrid, VoxelSpace, CHUNK};
pub use state::{GRAPH_STATE_FORMAT, GRID_STATE_FORMAT, STATE_MAGIC, STATE_VERSION};
