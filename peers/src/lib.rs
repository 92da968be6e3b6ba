//! # onepath-peers
//!
//! The comparison harness between OnePath and the reference C++ library recastnavigation
//! (through the crates.io package `recastnavigation-sys`, which vendors and builds it). It
//! produces the reference figures OnePath is measured against, and measures OnePath against
//! them (measured tables: `README.md`):
//!
//! - [`recast`]: a tiled Recast build of a triangle soup ([`Level`], read from OBJ), step for
//!   step RecastDemo's `Sample_TileMesh` with the demo's default settings
//!   ([`RecastSettings::default`]), into a Detour navmesh; [`BuildMetrics`] gives the tile
//!   count, polygon count and walkable area.
//! - [`detour`]: Detour queries (nearest polygon, path, straight path, raycast) over it, on
//!   point pairs drawn by a seeded generator ([`sampling`], SplitMix64), through the
//!   [`PathEngine`] trait a OnePath query layer will implement too.
//! - [`external`]: a Detour navmesh made from arbitrary polygon data (vertices, polygons with
//!   neighbour information, optional detail meshes), so the very same polygons can be given
//!   to OnePath's query layer and to Detour's and compared query for query.
//! - [`onepath`]: OnePath itself on the harness: its voxel builder on the same [`Level`] with
//!   the same settings, its query layer as a [`PathEngine`] ([`onepath::OnePathEngine`]), and
//!   any OnePath mesh as a Detour mesh over the same polygons ([`onepath::detour_mesh`],
//!   with [`onepath::DetourRefMap`] between the two kinds of reference); [`compare`] holds
//!   the pair-by-pair length comparison and the interleaved timer.
//!
//! The crate has its own workspace: the main workspace's `cargo test` never builds it (it
//! needs cmake and libclang; see `README.md`).
//!
//! ## Invariants
//! - `unsafe` lives in the private module `ffi` and, for DetourTileCache, in [`tilecache`],
//!   each block with a SAFETY comment. Every
//!   index C++ would follow (triangle indices, polygon vertices and neighbours, detail
//!   ranges) is checked on the Rust side first ([`mesh_data::DetourTileInput::validate`]);
//!   bad input is a [`PeerError`], never undefined behaviour or a panic.
//! - Every C++ object is owned by a wrapper that frees it exactly once; a Detour query
//!   borrows its navmesh, so the mesh cannot change or go away under it.
//! - Query points are deterministic: the same seed gives the same points on every platform
//!   (SplitMix64 and float64 `+ - * /` only). Figures that reach a report (areas, lengths)
//!   use exact integer sums or float64 `+ - * sqrt`.
//!
//! ## Example
//! ```
//! use onepath_peers::external::{EdgeLink, ExternalGrid, ExternalPolygon, ExternalTile};
//! use onepath_peers::detour::DetourEngine;
//! use onepath_peers::PathEngine;
//!
//! // Two unit squares sharing the edge x = 1, as external polygon data.
//! let tile = ExternalTile {
//!     tile_x: 0,
//!     tile_z: 0,
//!     layer: 0,
//!     vertices: vec![
//!         [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0],
//!         [0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [2.0, 0.0, 1.0],
//!     ],
//!     polygons: vec![
//!         ExternalPolygon::new(vec![0, 1, 4, 3], vec![EdgeLink::Wall, EdgeLink::Polygon(1), EdgeLink::Wall, EdgeLink::Wall]),
//!         ExternalPolygon::new(vec![1, 2, 5, 4], vec![EdgeLink::Wall, EdgeLink::Wall, EdgeLink::Wall, EdgeLink::Polygon(0)]),
//!     ],
//!     detail: None,
//! };
//! let grid = ExternalGrid::new([0.0, 0.0, 0.0], 4.0, 0.25, 0.25);
//! let mesh = onepath_peers::external::build_detour_mesh(&grid, &[tile]).unwrap();
//! let mut engine = DetourEngine::new(&mesh).unwrap();
//! let path = engine.straight_path([0.5, 0.0, 0.5], [1.5, 0.0, 0.5]).unwrap().unwrap();
//! assert_eq!(path.corridor_len, 2);
//! assert_eq!(path.length(), 1.0);
//! ```
#![deny(unsafe_code)]

pub mod compare;
pub mod crowd;
pub mod detour;
pub mod error;
pub mod external;
#[allow(unsafe_code)]
mod ffi;
pub mod level;
pub mod mesh_data;
pub mod metrics;
pub mod onepath;
pub mod paths;
pub mod recast;
pub mod sampling;
pub mod settings;
#[allow(unsafe_code)]
pub mod tilecache;

pub use error::PeerError;
pub use level::Level;
pub use metrics::{BuildMetrics, Metrics, PairResult, PathEngine, PathMetrics, PathOutcome};
pub use settings::{RecastSettings, VoxelConfig};
