//! # onepath-tilecache
//!
//! The half of OnePath's 3D builder that runs every frame: a level built once with
//! [`onepath_build3d::Mesh3DPipeline`] keeps, per tile, the part of the build that depends
//! only on the geometry (the eroded open-span heightfield and its span graph), and redoes
//! the rest when an obstacle or a run-time area volume appears or goes: doors that close,
//! barricades, destructible cover, swamps that spread.
//!
//! | piece | where | rule |
//! |---|---|---|
//! | building with a cache, what is kept per tile | [`TileCache::build_soup`], [`cache`] | `docs/tilecache.md`, "What is cached" |
//! | obstacles, run-time volumes, their checks | [`TileCache::add_obstacle`], [`TileCache::add_volume`], [`shapes`] | "Obstacles", "Area volumes" |
//! | the queue, [`TileCache::update`], the shortcuts, the swap | [`cache`] | "Which tiles rebuild", "Rebuilding" |
//! | layer-first tiles: split once, marked, compared and built one layer at a time | `layered` | "Layer-first tiles" |
//! | ONTK snapshots | [`TileCache::snapshot`], [`TileCache::restore`], [`snapshot`] | "Snapshot ONTK" |
//!
//! ## Invariants
//! - Building with a cache gives exactly the mesh the plain build gives (same tiles, same
//!   slots, byte for byte); the cache runs the pipeline's own stage code on a copy.
//! - A tile is a function of its areas: once the queue is empty the mesh's tiles equal,
//!   tile for tile and byte for byte, a fresh build with the cache's obstacles in the
//!   pipeline's `obstacles` and its volumes at the end of the pipeline's `volumes`, whatever
//!   the history and however [`TileCache::update`] was sliced. Removing everything gives
//!   back the first build's tiles.
//! - One tile is one iteration of [`TileCache::update`]; no clock is involved.
//! - Ids start at 1, grow by one and are never reused; a failed call changes nothing.
//! - ONTK bytes are canonical; the reader never panics, checks every count against the
//!   remaining bytes before allocating, puts every value through the shape checks again, and
//!   a failed restore leaves the cache and its mesh byte-identical.
//!
//! ## Example
//! ```
//! use onepath_build3d::{Mesh3DPipeline, Obstacle, TriangleSoup};
//! use onepath_format::NavSettings;
//! use onepath_snapshot::SnapshotMode;
//! use onepath_tilecache::TileCache;
//!
//! // A flat 25 x 25 floor, built with the Recast demo settings and a cache.
//! let soup = TriangleSoup {
//!     vertices: vec![[0.0, 0.0, 0.0], [0.0, 0.0, 25.0], [25.0, 0.0, 25.0], [25.0, 0.0, 0.0]],
//!     triangles: vec![[0, 1, 2], [0, 2, 3]],
//!     areas: None,
//! };
//! let pipeline = Mesh3DPipeline::from_settings(&NavSettings::default()).unwrap();
//! let mut cache = TileCache::build_soup(&pipeline, &soup).unwrap();
//! let plain = pipeline.build_soup(&soup).unwrap();
//! assert_eq!(cache.mesh(), &plain.mesh);
//!
//! // A barrel in the middle: the tiles near it are queued, then rebuilt one per iteration.
//! let barrel = cache
//!     .add_obstacle(Obstacle::Cylinder { center: [12.5, 0.0, 12.5], radius: 1.0, height: 1.5 })
//!     .unwrap();
//! assert_eq!(barrel.0, 1);
//! let saved = cache.snapshot(SnapshotMode::Full);
//! assert_eq!(cache.update(1).unwrap().tiles, 1);
//! cache.update_all().unwrap();
//! assert_eq!(cache.queue().len(), 0);
//!
//! // The same mesh as a fresh build with the barrel among the pipeline's obstacles.
//! let mut with_barrel = pipeline.clone();
//! with_barrel.obstacles.push(*cache.obstacles().next().unwrap().1);
//! let fresh = with_barrel.build_soup(&soup).unwrap();
//! for t in &fresh.tiles {
//!     let (x, z, l) = t.position();
//!     assert_eq!(cache.mesh().tile_at(x, z, l).unwrap().tile().to_bytes(), t.to_bytes());
//! }
//!
//! // Roll back to the snapshot (barrel added, nothing rebuilt yet), then take it away.
//! cache.restore_full(&saved).unwrap();
//! assert_eq!(cache.snapshot(SnapshotMode::Full), saved);
//! cache.remove_obstacle(barrel).unwrap();
//! cache.update_all().unwrap();
//! for t in &plain.tiles {
//!     let (x, z, l) = t.position();
//!     assert_eq!(cache.mesh().tile_at(x, z, l).unwrap().tile().to_bytes(), t.to_bytes());
//! }
//! ```
#![forbid(unsafe_code)]

pub mod cache;
mod error;
mod layered;
pub mod normative;
pub mod shapes;
pub mod snapshot;

pub use cache::{TileCache, TileColumn, UpdateStats};
pub use error::TileCacheError;
pub use shapes::{ObstacleId, VolumeId};
pub use snapshot::{PreparedRestore, ONTK_MAGIC, ONTK_VERSION};
