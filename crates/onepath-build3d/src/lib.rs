//! # onepath-build3d
//!
//! OnePath's 3D (voxel) navmesh builder: level geometry in, tiles of the frozen navmesh
//! format and a stitched [`onepath_mesh::TiledNavMesh`] out. It follows Recast's well-known
//! pipeline, written as our own deterministic code:
//!
//! | stage | module | rule |
//! |---|---|---|
//! | inputs: triangle soup, chunked mesh, height grid, OBJ | [`input`], [`chunky`], [`obj`] | `docs/build3d-spans.md` §1–2 |
//! | walkable slope, rasterization, span merge, three filters | [`heightfield`] | `build3d-spans.md` §1–3 |
//! | compaction and links, erosion, area volumes, obstacles | [`compact`], [`obstacle`] | `build3d-spans.md` §4–6 |
//! | watershed / monotone regions, layer partition | [`region`], [`layers`] | `docs/build3d-regions.md` §1–5 |
//! | contours (simplified, split, holes joined) | [`contour`] | `build3d-regions.md` §6 |
//! | polygons, detail mesh, tile data, authored links | [`polymesh`], [`detail`], [`handover`], [`offmesh`] | `docs/build3d-polys.md` |
//! | tiles in parallel, merged in tile order, mesh | [`pipeline`] ([`Mesh3DPipeline`]) | `build3d-polys.md` §6 |
//!
//! Seeded level generators (`generators`, behind the `fixtures` cargo feature) serve tests,
//! benchmarks and the hash matrix (`build3d/build`, scripted in xtask); a game's build does
//! not carry them. The tile cache (`onepath-tilecache`) keeps stage 3 per tile
//! ([`Mesh3DPipeline::cached_tiles_soup`] → [`ErodedTile`], module [`cached`]) and rebuilds
//! from it ([`Mesh3DPipeline::tile_data_from_compact`], with layer-first tiles
//! [`Mesh3DPipeline::tile_data_from_split`] one layer at a time; [`Mesh3DPipeline::build_from_eroded`]
//! for a whole level, equal to the plain build), with the span graph of
//! [`CompactHeightfield`] built once.
//!
//! ## Invariants
//! - Deterministic to the byte: the same geometry and settings give the same tiles on every
//!   machine and for every thread count. Only IEEE-exact `+ − × ÷ sqrt`, conversions and
//!   comparisons reach results (the slope threshold's cosine and the generators' and oriented
//!   boxes' sines are `libm`); no hash map is iterated where its order could reach an output;
//!   every choice among equals has an explicit tie-break; tiles are built in parallel and
//!   merged in tile order (row, column, layer).
//! - Every produced tile has passed [`onepath_format::NavTile::create`]; polygons are convex
//!   in their stored float32 positions by the exact predicate.
//! - Hostile input never panics: indices, areas, settings and coordinates are checked first,
//!   the tile count is bounded before anything is allocated for it, and every failure is a
//!   typed [`BuildError`] naming the value.
//!
//! ## Example
//! ```
//! use onepath_build3d::{Mesh3DPipeline, TriangleSoup};
//! use onepath_format::NavSettings;
//!
//! // A flat 25 x 25 floor (two triangles facing up), built with the Recast demo settings.
//! let soup = TriangleSoup {
//!     vertices: vec![[0.0, 0.0, 0.0], [0.0, 0.0, 25.0], [25.0, 0.0, 25.0], [25.0, 0.0, 0.0]],
//!     triangles: vec![[0, 1, 2], [0, 2, 3]],
//!     areas: None,
//! };
//! let built = Mesh3DPipeline::from_settings(&NavSettings::default())
//!     .unwrap()
//!     .build_soup(&soup)
//!     .unwrap();
//! // Tiles of 9.6: a 3 x 3 grid of tiles, all in the mesh, in tile order.
//! assert_eq!(built.tiles.len(), 9);
//! assert_eq!(built.mesh.tile_count(), 9);
//! assert_eq!(built.tiles[1].position(), (1, 0, 0));
//! ```
#![forbid(unsafe_code)]
// The voxel stages index several parallel per-span arrays with one span index; iterator
// chains over one of them would hide that.
#![allow(clippy::needless_range_loop)]

mod border_vertices;
pub mod cached;
pub mod chunky;
pub mod compact;
pub mod config;
pub mod contour;
pub mod detail;
mod error;
#[cfg(feature = "fixtures")]
pub mod generators;
pub mod handover;
pub mod heightfield;
pub mod input;
pub mod layers;
pub mod normative;
pub mod obj;
pub mod obstacle;
pub mod offmesh;
pub mod pipeline;
pub mod polymesh;
pub mod region;
pub mod repair;

pub use chunky::ChunkyTriMesh;
pub use compact::{CompactHeightfield, ConvexVolume};
pub use config::{BuildConfig, VoxelConfig};
pub use error::{BuildError, IoCause};
pub use input::{HeightGrid, TriangleSoup};
pub use obj::load_obj;
pub use obstacle::Obstacle;
pub use pipeline::{BuiltMesh, ErodedTile, Mesh3DPipeline, Progress, VerticalGrid};
