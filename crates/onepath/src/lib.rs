//! # onepath
//!
//! OnePath is game navigation that is deterministic to the byte: the same level and
//! settings give the same mesh bytes, paths and crowd states on every machine and thread
//! count. This crate is the one import a game adds. Its tier-1 API:
//!
//! | type | what |
//! |---|---|
//! | [`NavMesh`] | one agent class: build from [`Geometry`] (triangle soup, chunked mesh, OBJ, height grid, voxels) with [`NavSettings`], progress callback, optional tile cache (obstacles, volumes, [`NavMesh::update`]); queries with `[f64; 3]` points (nearest, path + straight path, raycast, random point); streaming; [`NavMesh::save`] → ONNM, [`NavMesh::load`] |
//! | [`NavWorld`] | agent classes: one [`NavMesh`] per [`NavSettings`] over the same geometry, [`NavWorld::class_for`], ONNW |
//! | [`WorldCrowd`] | one crowd per class, stepped in class order; [`WorldCrowd::add_agent`] picks the class by radius; the host's world resources every class's crowd shares: heightmap layers ([`WorldCrowd::set_heightmap`]) that grounded agents put their feet on, moving platforms ([`WorldCrowd::set_platform`], [`WorldCrowd::attach_platform`]) that agents ride, voxel grids ([`WorldCrowd::set_voxel_grid`], [`WorldCrowd::request_flight`]) that flyers plan in |
//! | [`WorldSnapshot`] | meshes or tile caches, grids and crowds in one snapshot, restored all or nothing |
//!
//! Every lower-level type is one path away: [`format`](mod@format), [`mesh`], [`grid`], [`build`],
//! [`tilecache`], [`crowd`], [`snapshot`] re-export the crates `onepath-format`,
//! `onepath-mesh` (with `onepath-stitch`'s links), `onepath-gridstate`,
//! `onepath-build3d`, `onepath-tilecache`, `onepath-crowd` and `onepath-snapshot`.
//! [`prelude`] holds the tier-1 names.
//!
//! Features: `serde` (on [`NavSettings`], [`format::OffMeshLinkDefinition`], `PolyRef` and
//! the plain results [`NearestPoint`], [`Path`], [`PathPoint`], [`Raycast`]); `mint`
//! (conversions of the results to `mint::Point3<f64>`; every query takes
//! `impl Into<[f64; 3]>`, which `mint::Point3<f64>` and `glam::DVec3` already are).
//!
//! Examples (`cargo run --release -p onepath --example NAME`, each also run by the crate's
//! tests): `build_and_path` (OBJ → mesh → path → ONNM), `doors_and_barricades` (tile
//! cache), `crowd` (agents of two classes to their targets), `rollback` (snapshot, step,
//! restore, compare), `grid` (Moving AI map, jump point search saved mid-search, resumed),
//! `platforms_and_flyers` (an agent riding a platform the host moves, a flyer over a voxel
//! wall),
//! `ggrs_sync` (a `ggrs::SyncTestSession`, check distance 7, over the city with a tile
//! cache, a crowd, a grid replanner and a flow field; also records and replays runs for
//! `cargo xtask replay-check`; run by `tests/ggrs_sync.rs`).
//!
//! ## Invariants
//! - ONNM and ONNW are canonical (one mesh, one encoding) and their readers never panic:
//!   lengths are checked against the remaining bytes before anything is read, and every
//!   failure is a [`format::FormatError`] naming the field (`docs/navmesh-format.md`,
//!   "ONNM envelope"; module [`normative`]). Settings are read through their validating
//!   setters, and the parameter block they produce must equal the mesh's (else a
//!   fingerprint error), for caller-supplied settings too.
//! - Class `i` of a [`NavWorld`] is byte-identical to a [`NavMesh`] built alone with the
//!   world's settings `i`; classes never share state.
//! - A failed [`WorldSnapshot::restore`] leaves every part exactly as it was.
//! - The host's world resources (heightmap layers, platforms, voxel grids) are bound to
//!   the crowds by stable id or name, never part of a snapshot or of agent state.
//! - Nothing here adds arithmetic that reaches bytes or answers: the facade calls the lower
//!   crates, whose rules (no hash order, no `mul_add`, fixed merge order) it inherits.
//!
//! ## Example
//! ```
//! use onepath::prelude::*;
//!
//! // A 30 x 30 floor with the Recast demo settings.
//! let floor = TriangleSoup {
//!     vertices: vec![[0.0, 0.0, 0.0], [0.0, 0.0, 30.0], [30.0, 0.0, 30.0], [30.0, 0.0, 0.0]],
//!     triangles: vec![[0, 1, 2], [0, 2, 3]],
//!     areas: None,
//! };
//! let settings = NavSettings::default();
//! let nav = NavMesh::build(&settings, &floor).unwrap();
//! let path = nav.find_path([2.0, 0.0, 2.0], [27.0, 0.0, 25.0]).unwrap();
//! assert_eq!(path.status, PathStatus::Complete);
//! assert!(path.points.first().unwrap().start && path.points.last().unwrap().end);
//!
//! // Save as ONNM and load: the same bytes, the same answers.
//! let bytes = nav.save();
//! let again = NavMesh::load(&bytes).unwrap();
//! assert_eq!(again.save(), bytes);
//! assert_eq!(again.find_path([2.0, 0.0, 2.0], [27.0, 0.0, 25.0]).unwrap(), path);
//!
//! // Two agent classes over the same floor; a radius picks its class.
//! let mut big = settings.clone();
//! big.set_agent_radius(1.2).unwrap();
//! let world = NavWorld::build(&[settings, big], &floor).unwrap();
//! assert_eq!(world.class_for(0.5), 0);
//! assert_eq!(world.class_for(1.0), 1);
//! assert_eq!(world.class(0).unwrap().save(), bytes);
//! ```
#![forbid(unsafe_code)]

pub mod envelope;
mod error;
mod geometry;
#[cfg(feature = "mint")]
mod interop;
mod navmesh;
pub mod normative;
mod world;
mod world_crowd;
mod world_snapshot;

pub use error::{Error, Result};
pub use geometry::{voxels_to_soup, Geometry, SOLID_VOXEL};
pub use navmesh::{
    BuildOptions, NavMesh, NearestPoint, Path, PathPoint, PathStatus, Raycast,
    DEFAULT_MAX_ITERATIONS, DEFAULT_SEARCH_EXTENTS,
};
pub use onepath_format::{NavSettings, OffMeshLinkDefinition, Partition};
pub use world::NavWorld;
pub use world_crowd::{WorldAgent, WorldCrowd};
pub use world_snapshot::{ClassSnapshot, WorldSnapshot, WORLD_STATE_FORMAT};

/// The mesh format: parameters, settings, tiles, references, errors, the byte reader
/// (`onepath-format`).
pub mod format {
    pub use onepath_format::*;
}

/// The tiled mesh, its queries, streaming, debug geometry (`onepath-mesh`) and the links
/// stitching computes (`onepath-stitch`).
pub mod mesh {
    pub use onepath_mesh::*;
    /// Stitching: links as a pure function of tiles (`onepath-stitch`).
    pub mod stitch {
        pub use onepath_stitch::*;
    }
}

/// Grids, graphs, their searches and OPGS state (`onepath-gridstate`).
pub mod grid {
    pub use onepath_gridstate::*;
}

/// The voxel builder: inputs, pipeline, obstacles, volumes (`onepath-build3d`).
pub mod build {
    pub use onepath_build3d::*;
}

/// Obstacles, run-time volumes, the rebuild queue, ONTK (`onepath-tilecache`).
pub mod tilecache {
    pub use onepath_tilecache::*;
}

/// Agents on the mesh (`onepath-crowd`).
pub mod crowd {
    pub use onepath_crowd::*;
}

/// Mesh snapshots (ONPS) and tile libraries (`onepath-snapshot`).
pub mod snapshot {
    pub use onepath_snapshot::*;
}

/// The tier-1 names: `use onepath::prelude::*;`. The facade's types, the geometry a game
/// builds from ([`TriangleSoup`](crate::build::TriangleSoup)), the tile cache's obstacles
/// ([`Obstacle`](crate::build::Obstacle)), and what a crowd's agents need:
/// [`CrowdSettings`](crate::crowd::CrowdSettings), [`AgentParams`](crate::crowd::AgentParams),
/// [`LocomotionHandler`](crate::crowd::LocomotionHandler) (platforms, flight, jumps) and
/// the agent's [`AgentState`](crate::crowd::AgentState) and
/// [`TargetState`](crate::crowd::TargetState), and the
/// [`PathRequest`](crate::crowd::PathRequest) its constructors build
/// (`PathRequest::navmesh`, `voxel`, `grid_astar`, …).
pub mod prelude {
    pub use crate::{
        Error, Geometry, NavMesh, NavSettings, NavWorld, NearestPoint, OffMeshLinkDefinition, Path,
        PathPoint, PathStatus, Raycast, WorldAgent, WorldCrowd, WorldSnapshot,
    };
    pub use onepath_build3d::{Obstacle, TriangleSoup};
    pub use onepath_crowd::{
        AgentParams, AgentState, CrowdSettings, LocomotionHandler, PathRequest, TargetState,
    };
}
