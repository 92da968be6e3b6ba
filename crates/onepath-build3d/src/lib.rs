//! # onepath-build3d
//!
//! OnePath's 3D (voxel) navmesh builder: level geometry in, tiles of the frozen navmesh
//! format out. It follows Recast's well-known pipeline — walkable-slope marking,
//! rasterization into a solid heightfield, the three filters, compaction with neighbour
//! links, erosion by the agent radius, area volumes, region partition (watershed, monotone),
//! contours, polygon mesh, hand-over into [`onepath_format::NavTileData`] — written as our
//! own deterministic code. `docs/build3d-spans.md`, `docs/build3d-regions.md` and
//! `docs/build3d-polys.md` give every stage's rule.
//!
//! ## Invariants
//! - Deterministic to the byte: the same geometry and settings give the same tiles on every
//!   machine and for every thread count. Only IEEE-exact `+ − × ÷ sqrt`, conversions and
//!   comparisons reach results (the slope threshold's cosine is `libm::cos`, once); no hash
//!   map is iterated where its order could reach an output; every choice among equals has an
//!   explicit tie-break; tiles are built in parallel and merged in tile order (row, column,
//!   layer).
//! - Every produced tile has passed [`onepath_format::NavTile::create`].
//! - Hostile input never panics: indices, areas and coordinates are checked first and every
//!   failure is a typed [`BuildError`] naming the value.
//!
//! ## Example
//! ```
//! use onepath_build3d::{BuildConfig, Mesh3DPipeline, TriangleSoup};
//!
//! // A flat 6 x 6 floor, two triangles facing up.
//! let soup = TriangleSoup {
//!     vertices: vec![[0.0, 0.0, 0.0], [0.0, 0.0, 6.0], [6.0, 0.0, 6.0], [6.0, 0.0, 0.0]],
//!     triangles: vec![[0, 1, 2], [0, 2, 3]],
//!     areas: None,
//! };
//! let built = Mesh3DPipeline::new(BuildConfig::default()).build_soup(&soup).unwrap();
//! assert!(!built.tiles.is_empty());
//! ```
#![forbid(unsafe_code)]
// The voxel stages index several parallel per-span arrays with one span index; iterator
// chains over one of them would hide that.
#![allow(clippy::needless_range_loop)]

pub mod chunky;
pub mod compact;
pub mod config;
pub mod contour;
pub mod detail;
mod error;
pub mod generators;
pub mod handover;
pub mod heightfield;
pub mod input;
pub mod layers;
pub mod matrix;
pub mod obj;
pub mod obstacle;
pub mod offmesh;
pub mod pipeline;
pub mod polymesh;
pub mod region;

pub use chunky::ChunkyTriMesh;
pub use compact::{CompactHeightfield, ConvexVolume};
pub use config::{BuildConfig, PartitionType, VoxelConfig};
pub use error::BuildError;
pub use input::{HeightGrid, TriangleSoup};
pub use matrix::hash_matrix_builds;
pub use obj::load_obj;
pub use obstacle::Obstacle;
pub use pipeline::{BuiltMesh, Mesh3DPipeline, Progress, VerticalGrid};
