//! # onepath-mesh
//!
//! The tiled navigation mesh of OnePath ([`TiledNavMesh`]): tiles in numbered slots, each
//! slot with a generation (salt) embedded in every polygon reference, the stitched links
//! between tiles (computed by `onepath-stitch`), and run-time edits of polygon areas, flags
//! and off-mesh link switches.
//!
//! ## Invariants
//! - Slots: at most 1 048 575. A new tile takes the lowest free slot. A slot's generation
//!   starts at 1 and advances (`(g + 1) & 0xFFFFFF`, skipping 0) whenever its tile is
//!   removed or replaced; slots are never dropped, so free slots keep their generation.
//! - A [`PolyRef`](onepath_format::PolyRef) is valid iff its slot exists, holds a tile, has
//!   the reference's salt, and the tile has that polygon index. Stale and forged references
//!   (wrong salt, salt 0, slot out of range, polygon past the count) are invalid.
//! - Positions (column, row, layer) are unique. Every add and replace checks the tile's
//!   fingerprint first.
//! - What a tile may cost to stitch is capped: every tile that enters a mesh (add,
//!   replace, streaming, [`TiledNavMesh::from_slots`], ONPM, snapshot restore) is checked
//!   against the per-tile portal link cap of `onepath-stitch` with the tiles facing it,
//!   before anything changes ([`MeshError::PortalLinkCap`]; `slot i: portal links` from the
//!   readers). The rule is one per pair of facing tiles, so a removal never breaks it and a
//!   mesh's ONPM and snapshots always read back.
//! - Links are a function of the tiles in their slots: each edit restitches only what it
//!   can affect (the changed column and its four side neighbours, the owners of off-mesh
//!   links ending in the column, and the tiles where the changed tiles' links end), and
//!   the result always equals [`TiledNavMesh::restitch_all`].
//! - The mesh owns its areas, flags and link switches (copy on write): editing never changes
//!   a caller's `NavTile`; a failed operation leaves the mesh exactly as it was.
//!
//! ## Modules
//! - [`mesh`]: [`TiledNavMesh`] and its per-tile view [`MeshTile`];
//! - [`serializer`]: ONPM (the mesh as a file) and ONPT through [`NavMeshSerializer`];
//! - [`slot_table`]: [`SlotTable`], the one check of a slot table (generations, kinds,
//!   fingerprints, unique positions) that ONPM, ONPS and [`TiledNavMesh::from_slots`] share;
//! - [`debug`]: [`NavMeshDebug::collect`], world-space polygons and links as plain data;
//! - [`streamer`]: [`TileStreamer`], queued add / replace / remove-column operations;
//! - `fixtures` (only with the `fixtures` cargo feature, which a game's build never turns
//!   on): small deterministic meshes for tests, benches and tools, among them
//!   `fixtures::bridge_and_building`.
//!
//! The rules are written out in `docs/navmesh-stitching.md`.
//!
//! ## Example
//! ```
//! use onepath_format::{NavMeshParams, NavTile, NavTileAssembler};
//! use onepath_mesh::TiledNavMesh;
//!
//! let params = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
//! // One square polygon covering tile column (x, 0); its boundary edges become portals.
//! let square = |x: i32| {
//!     let (x0, x1) = (8.0 * f64::from(x), 8.0 * f64::from(x + 1));
//!     let world = [[x0, 0.0, 0.0], [x1, 0.0, 0.0], [x1, 0.0, 8.0], [x0, 0.0, 8.0]];
//!     let data = NavTileAssembler::from_polygons(
//!         &params, x, 0, 0, 0.0, &world, &[4], &[0, 3, 2, 1], None, None,
//!     )
//!     .unwrap();
//!     NavTile::create(&params, data).unwrap()
//! };
//! let mut mesh = TiledNavMesh::new(params).unwrap();
//! let a = mesh.add_tile(square(0)).unwrap();
//! let b = mesh.add_tile(square(1)).unwrap();
//! assert_eq!((a.slot, a.salt, b.slot), (0, 1, 1));
//!
//! // The polygon of tile a touches tile b's polygon across side 0 (x = TileSize).
//! let p = a.poly(0).unwrap();
//! let links = mesh.poly_links(p).unwrap();
//! assert_eq!(links.len(), 1);
//! assert_eq!(links[0].target, b.poly(0).unwrap());
//!
//! // Removing a tile advances its slot's generation: old references become invalid.
//! mesh.remove_tile(b).unwrap();
//! assert!(!mesh.is_valid_poly_ref(b.poly(0).unwrap()));
//! assert!(mesh.poly_links(p).unwrap().is_empty());
//! ```
#![forbid(unsafe_code)]

pub mod debug;
pub mod error;
#[cfg(feature = "fixtures")]
pub mod fixtures;
pub mod mesh;
pub mod normative;
pub mod query;
pub mod serializer;
pub mod slot_table;
pub mod streamer;

pub use debug::{DebugLink, DebugPolygon, NavMeshDebug};
pub use error::MeshError;
pub use mesh::{same_geometry, MeshTile, SlotView, TiledNavMesh};
pub use onepath_stitch::{
    Link, LinkKind, OffMeshConnection, StitchError, TileLinks, PORTAL_LINKS_PER_EDGE,
};
pub use query::{NavMeshQuery, PathCorridor, QueryError, QueryFilter};
pub use serializer::{NavMeshSerializer, ONPM_HEADER_LEN, ONPM_KINDS, ONPM_MAGIC};
pub use slot_table::{SlotTable, SlotTableError};
pub use streamer::{StreamOp, TileStreamer};
