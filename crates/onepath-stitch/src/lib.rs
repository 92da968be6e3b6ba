//! # onepath-stitch
//!
//! Links as a pure function of tiles: given the tiles of a mesh in their slots (a
//! [`TileSet`]), compute every tile's [`TileLinks`] — portal links across tile boundaries
//! and off-mesh links — exactly as "Stitching (links)" of the navmesh format specifies.
//! `onepath-mesh` calls this after every add, remove and replace; nothing here keeps state.
//!
//! ## Invariants
//! - The links are a function of the set of (slot, salt, tile) only: any history that ends
//!   with the same tiles in the same slots gives the same links, in the same order.
//! - Portal links come in symmetric pairs (the test is symmetric in both edges).
//! - Link order per polygon: portal links by (side, portal order of the tile, neighbour
//!   layer, neighbour portal order), then forward off-mesh links in link order, then
//!   reverse off-mesh links by (owner slot, link index).
//! - Only IEEE-exact operations (+ − × ÷ sqrt, conversions, comparisons) decide a link;
//!   nothing depends on hash order or thread count.
//! - Off-mesh link switches do not change links (the query layer reads the switches).
//! - What one tile may cost is capped ([`cap`]): [`check_tile`] refuses, in O(n log n) and
//!   before any link is made, a tile and a tile facing it whose overlapping portal edge
//!   pairs exceed [`PORTAL_LINKS_PER_EDGE`] × their portal edges on that boundary
//!   ([`StitchError::PortalLinkCap`]); [`try_stitch_tiles_with_cost`] checks, then stitches.
//!   The rule is one per pair of facing tiles, so removing a tile never puts another over
//!   it. `onepath-mesh` checks every tile that enters a mesh (add, replace, streaming, ONPM,
//!   snapshot restore). The unchecked functions never refuse and their links are unchanged.
//!
//! ## Example
//! ```
//! use onepath_format::{NavMeshParams, NavTile, NavTileData, NO_PORTAL};
//! use onepath_stitch::{stitch_all, LinkKind, TileSet};
//!
//! let params = NavMeshParams::new([0.0, 0.0, 0.0], 4.0, 0.25, 6);
//! // A 4×4 square tile at (x, 0) whose +X edge (side 0) and −X edge (side 2) are portals.
//! let square = |x: i32| {
//!     NavTile::create(&params, NavTileData {
//!         tile_x: x,
//!         vertices: vec![[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [4.0, 0.0, 4.0], [0.0, 0.0, 4.0]],
//!         poly_sizes: vec![4],
//!         poly_areas: vec![0],
//!         poly_flags: vec![1],
//!         // Counter-clockwise (X right, Z up); edge k runs from corner k to k + 1.
//!         corners: vec![1, 2, 3, 0],
//!         edge_neighbours: vec![0; 4],
//!         edge_portal_sides: vec![0, NO_PORTAL, 2, NO_PORTAL],
//!         ..Default::default()
//!     })
//!     .unwrap()
//! };
//! let (a, b) = (square(0), square(1));
//! let set = TileSet::new(&params, [(0, 1, &a), (1, 1, &b)]);
//! let links = stitch_all(&set);
//! let l = links[0].as_ref().unwrap().poly_links(0);
//! assert_eq!(l.len(), 1);
//! assert_eq!(l[0].target.slot(), 1);
//! assert!(matches!(l[0].kind, LinkKind::Portal { side: 0, range_min: 0, range_max: 255, .. }));
//! ```
#![forbid(unsafe_code)]
// `!(a <= b)` is deliberate throughout: it rejects NaN along with the failing comparison.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod cap;
pub mod links;
pub mod normative;
pub mod off_mesh;
pub mod portals;
pub mod stitch;
pub mod tiles;

pub use cap::{
    admit_tile_with, check_all, check_tile, check_tile_with, check_tiles, overlapping_pair_count,
    StitchError, TileCheck, PORTAL_LINKS_PER_EDGE,
};
pub use links::{Link, LinkKind, OffMeshConnection, TileLinks};
pub use off_mesh::{
    attach_links, attach_score, best_poly, best_poly_in_data, link_end_column, polygon_score,
};
pub use portals::{
    boundary_axis, edge_at, neighbour_column, portal_edges, portal_edges_by_side, portal_overlap,
    PortalEdge, PortalOverlap,
};
pub use stitch::{
    restitch_scope, stitch_all, stitch_tiles, stitch_tiles_and_sides, stitch_tiles_with_cost,
    try_stitch_tiles_with_cost, StitchCost,
};
pub use tiles::{end_columns, ColumnIndex, LinkEndIndex, SlotTile, TileSet};
