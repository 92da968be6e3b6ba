//! # Queries on a [`TiledNavMesh`](crate::TiledNavMesh)
//!
//! The query layer a game developer knows from Detour, deterministic to the bit:
//! [`QueryFilter`] (flags and 64 area costs), nearest polygon and polygons in a box over a
//! per-tile bounding-volume tree, closest point and height on a polygon, A* path search
//! (one-shot with an iteration budget, and sliced), string pulling, raycast along the
//! surface, constrained movement, distance to the nearest wall, wall segments, polygons
//! around a circle, the overlap-free local neighbourhood, random points from a caller's
//! random source, and the [`PathCorridor`] an agent follows. Opt-in: a [`CompiledGraph`]
//! (the polygon graph compiled for faster searches, with optional landmarks or, for small
//! meshes, an exact distance table for a sharper heuristic).
//!
//! ## Map
//! One file per concept. The public methods of [`NavMeshQuery`], by file:
//!
//! | file | methods of [`NavMeshQuery`] |
//! |---|---|
//! | `mod.rs` | [`new`](NavMeshQuery::new), [`set_path_model`](NavMeshQuery::set_path_model), [`path_model`](NavMeshQuery::path_model), [`set_portal_landmarks`](NavMeshQuery::set_portal_landmarks), [`portal_landmarks`](NavMeshQuery::portal_landmarks), [`set_compiled_graph`](NavMeshQuery::set_compiled_graph), [`compiled_graph`](NavMeshQuery::compiled_graph), [`clear_derived_data`](NavMeshQuery::clear_derived_data); with the `fixtures` feature (test support) `set_walk_tiles`, `set_plain_open_list` |
//! | `nearest.rs` | [`query_polygons`](NavMeshQuery::query_polygons), [`find_nearest_poly`](NavMeshQuery::find_nearest_poly), [`closest_point_on_poly`](NavMeshQuery::closest_point_on_poly), [`poly_height`](NavMeshQuery::poly_height) |
//! | `path.rs` | [`find_path`](NavMeshQuery::find_path), [`begin_path`](NavMeshQuery::begin_path), [`step_path`](NavMeshQuery::step_path), [`finish_path`](NavMeshQuery::finish_path), [`finish_path_partial`](NavMeshQuery::finish_path_partial), [`path_search_active`](NavMeshQuery::path_search_active) |
//! | `straight.rs` | [`find_straight_path`](NavMeshQuery::find_straight_path) |
//! | `raycast.rs` | [`raycast`](NavMeshQuery::raycast) |
//! | `surface/moving.rs` | [`move_along_surface`](NavMeshQuery::move_along_surface) |
//! | `surface/wall_distance.rs` | [`find_distance_to_wall`](NavMeshQuery::find_distance_to_wall) |
//! | `surface/walls.rs` | [`poly_wall_segments`](NavMeshQuery::poly_wall_segments) |
//! | `surface/around.rs` | [`polys_around_circle`](NavMeshQuery::polys_around_circle), [`polys_around_shape`](NavMeshQuery::polys_around_shape) |
//! | `surface/random.rs` | [`find_random_point`](NavMeshQuery::find_random_point), [`find_random_point_around_circle`](NavMeshQuery::find_random_point_around_circle) |
//! | `surface/local.rs` | [`find_local_neighbourhood`](NavMeshQuery::find_local_neighbourhood) |
//!
//! The other public types keep their methods in their own file: [`PathCorridor`] in
//! `corridor.rs`, [`CompiledGraph`] in `compiled.rs`, [`PathGraph`] and [`Crossing`] in
//! `graph.rs`, [`QueryFilter`] in `filter.rs`, [`BvTree`] in `bvtree.rs`, [`RaycastHit`] in
//! `raycast.rs`, [`StraightPathFlags`] in `straight.rs`, `PlainPolygons` (with the
//! `fixtures` feature) in `generated.rs`.
//!
//! The rest: `filter.rs` ([`QueryFilter`]), `error.rs`, `geom.rs` (vector arithmetic),
//! `poly.rs` (polygon primitives: corners, centre, crossing midpoint, portal segment,
//! reference decoding, [`tie_key`], the filter test), `bvtree.rs` (per-tile trees),
//! `portals.rs` (path model v2, opt-in: [`PathModel`], [`PortalSampling`], the search over
//! portal crossings), `portal_landmarks.rs` (the opt-in landmark estimates of model v2 over
//! its crossing-sample graph), `graph.rs` (neighbours, crossings, the path cost model [`PathGraph`], and the one
//! polygon-graph interface of the path search over its three edge sources: the tile walk,
//! the derived per-tile data of `derived.rs`, the compiled graph of `compiled.rs`
//! ([`CompiledGraph`], landmarks)), `nodepool.rs` (the search nodes and their index),
//! `openlist.rs` (the search's open list), `surface/mod.rs` (the bounded flood the surface
//! queries share), `corridor.rs` ([`PathCorridor`]), and, with the `fixtures` feature,
//! `generated.rs` (a large generated mesh and a plain-data export, test support).
//!
//! ## Invariants
//! - A [`NavMeshQuery`] only reads the mesh (`&TiledNavMesh`, passed to every call), so any
//!   number of query objects may read one mesh at once; each keeps its own reusable buffers
//!   (node pool, open list, per-tile trees), so a query in steady state does not allocate.
//! - Results depend only on the mesh's tiles, slots, current areas, flags and link switches
//!   and on the arguments: never on earlier queries, buffer capacity, hash order or thread
//!   count. After a snapshot restore every query answers exactly as before. A
//!   [`CompiledGraph`] without landmarks changes no answer; with landmarks, path searches it
//!   applies to keep their optimal cost but may expand other polygons and pick another of
//!   several equal-cost paths (a function of the mesh state, the base filter and the count).
//! - All arithmetic is f64 (world = tile origin + f64(local f32)) with a fixed operation
//!   order, `+ − × ÷ sqrt` only; every priority queue breaks ties explicitly.
//! - The per-tile trees and the per-tile search data (polygon centres, edge midpoints, the
//!   cost model's distances through edge and portal crossing midpoints) are derived data:
//!   built from a tile's immutable geometry on first use, never serialized, rebuilt when a
//!   slot holds other geometry (or the same at another origin); each cached value is
//!   bit-identical to the uncached computation.
//! - The open list pops in one total order (f, then larger g, then tie key, then node), so
//!   its layout never changes which polygon is expanded next.
//! - Every reference argument is checked; a stale or forged one is
//!   [`QueryError::InvalidPolyRef`]. Coordinates pass the coordinate rule (±2^21).
//!
//! The metric, tie rules and the sliced-search unit are written out in
//! `docs/navmesh-queries.md`.
//!
//! ## Example
//! ```
//! use onepath_mesh::fixtures::bridge_and_building;
//! use onepath_mesh::query::{NavMeshQuery, PathStatus, QueryFilter, StraightPathOptions};
//!
//! let mesh = bridge_and_building();
//! let mut q = NavMeshQuery::new();
//! let filter = QueryFilter::new();
//! let ext = [1.0, 2.0, 1.0];
//! // West of the bridge on the ground, to the far east side.
//! let a = q.find_nearest_poly(&mesh, [2.0, 0.0, 8.0], ext, &filter).unwrap().unwrap();
//! let b = q.find_nearest_poly(&mesh, [46.0, 0.0, 8.0], ext, &filter).unwrap().unwrap();
//! let mut path = Vec::new();
//! let r = q
//!     .find_path(&mesh, a.poly, b.poly, a.point, b.point, &filter, 1000, &mut path)
//!     .unwrap();
//! assert_eq!(r.status, PathStatus::Complete);
//! assert_eq!((path[0], *path.last().unwrap()), (a.poly, b.poly));
//!
//! let mut corners = Vec::new();
//! q.find_straight_path(&mesh, a.point, b.point, &path, &filter, StraightPathOptions::default(), &mut corners)
//!     .unwrap();
//! assert_eq!(corners.first().unwrap().pos, a.point);
//! assert_eq!(corners.last().unwrap().pos, b.point);
//! ```

// `!(a < b)` is deliberate: it also rejects NaN along with the failing comparison.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod anyangle;
mod bvtree;
mod compiled;
mod corridor;
mod derived;
mod error;
mod filter;
#[cfg(feature = "fixtures")]
mod generated;
mod geom;
mod graph;
mod nearest;
mod nodepool;
mod openlist;
mod path;
mod poly;
mod portal_landmarks;
mod portals;
mod raycast;
mod straight;
mod surface;

use std::sync::Arc;

pub(crate) use poly::portal_index;
pub(crate) use raycast::RayBlock;

use onepath_format::PolyRef;

pub use anyangle::{AnyAngleError, AnyAngleQuery, AnyAngleResult, AnyAngleStatus};
pub use bvtree::BvTree;
pub use compiled::{CompiledGraph, MAX_EXACT_POLYGONS, MAX_LANDMARKS};
pub use corridor::PathCorridor;
pub use error::QueryError;
pub use filter::{QueryFilter, AREA_COUNT};
#[cfg(feature = "fixtures")]
pub use generated::{
    generated_grid_mesh, try_generated_grid_mesh, GeneratedMesh, PlainPolygon, PlainPolygons,
    GENERATED_SWAMP_AREA,
};
pub use geom::Vec3;
pub use graph::{Crossing, Neighbour, PathEnds, PathGraph, HEURISTIC_SCALE};
pub use nearest::{ClosestPoint, NearestPoly};
pub use path::{PathResult, PathStatus};
pub use poly::tie_key;
pub use portals::{PathModel, PortalSampling};
pub use raycast::RaycastHit;
pub use straight::{StraightPathFlags, StraightPathOptions, StraightPathPoint};
pub use surface::{CircleNode, LocalNode, MoveResult, WallHit, WallSegment};

/// A query object: reusable buffers for the queries on a [`crate::TiledNavMesh`], and the
/// state of one sliced path search. Cheap to create; keep one per thread or agent system
/// and reuse it.
#[derive(Debug, Default)]
pub struct NavMeshQuery {
    bv: bvtree::BvCache,
    /// The nodes of the path search.
    pool: nodepool::NodePool,
    /// The derived per-tile data of the path search.
    derived: derived::DerivedTiles,
    open: openlist::OpenList,
    search: Option<path::SearchState>,
    /// The filter of the search in `search` (kept apart so that a step borrows it while
    /// changing the state).
    search_filter: QueryFilter,
    /// The compiled graph path searches use when it applies
    /// ([`NavMeshQuery::set_compiled_graph`]).
    graph: Option<Arc<compiled::CompiledGraph>>,
    /// The graph of the search in `search` (a later `set_compiled_graph` does not change it).
    search_graph: Option<Arc<compiled::CompiledGraph>>,
    /// The edges path searches read (a knob of the tests: every source gives the same
    /// answers).
    edge_source: EdgeSource,
    /// Whether the open list keeps to the binary heap (a knob of the tests: the pop order
    /// is the same).
    plain_open_list: bool,
    /// The node pool of the surface queries' floods.
    flood: surface::Flood,
    scratch_refs: Vec<PolyRef>,
    scratch_portals: Vec<straight::Portal>,
    scratch_circle: Vec<surface::CircleNode>,
    /// The cost model of path searches begun from now on.
    path_model: PathModel,
    /// The buffers and state of a search under [`PathModel::Portals`].
    portal: portals::PortalSearch,
}

impl NavMeshQuery {
    /// A query object with empty buffers.
    pub fn new() -> NavMeshQuery {
        NavMeshQuery::default()
    }

    /// Gives path searches begun from now on a [`CompiledGraph`] (the polygon graph compiled
    /// under a base filter, with optional landmark distances); `None` goes back to walking
    /// the tiles. A search uses it only when it [applies](CompiledGraph::applies_to) to the
    /// mesh and the search's filter, and otherwise answers exactly as without one; if the
    /// mesh changes during a sliced search so that it no longer applies, the rest of that
    /// search walks the tiles with the plain heuristic.
    ///
    /// Without landmarks a compiled graph changes nothing but speed: every answer is the one
    /// of the search without it, bit for bit. With landmarks the path cost is still the
    /// optimum of the cost model, but the search expands fewer polygons and, among paths of
    /// equal cost, may return another one.
    pub fn set_compiled_graph(&mut self, graph: Option<Arc<CompiledGraph>>) {
        self.graph = graph;
    }

    /// Chooses the cost model of path searches begun from now on (a search in progress
    /// keeps its own). [`PathModel::Centres`] (model v1) is the default;
    /// [`PathModel::Portals`] (model v2) searches over samples on the portal crossings and
    /// ignores any compiled graph (`docs/navmesh-queries.md`, "Cost model v2").
    pub fn set_path_model(&mut self, model: PathModel) {
        self.path_model = model;
    }

    /// Model v2 only: whether its searches use landmark estimates (off by default). When
    /// on, the query object keeps a landmark table of the v2 crossing graph for the mesh
    /// state, filter and sampling of its latest v2 search, built by the first v2 search on
    /// a new state (or with another filter or sampling): 11.7 M instructions on nav_test
    /// (66 tiles) and 1.5 G on a 16 384-polygon grid (callgrind; some milliseconds and
    /// about half a second). The searches then expand fewer states (nav_test −37 %, a
    /// dungeon level −49 %, the grid −32 %; `docs/perf/queries.md`).
    /// The path cost is still the optimum of model v2; among paths of equal cost another
    /// one may be returned. The table is rebuilt after every change of the mesh, so turn
    /// it on for meshes that stay the same across many searches.
    pub fn set_portal_landmarks(&mut self, on: bool) {
        self.portal.set_landmarks(on);
    }

    /// Whether model v2 searches use landmark estimates
    /// ([`NavMeshQuery::set_portal_landmarks`]).
    pub fn portal_landmarks(&self) -> bool {
        self.portal.landmarks_on()
    }

    /// The cost model set with [`NavMeshQuery::set_path_model`].
    pub fn path_model(&self) -> PathModel {
        self.path_model
    }

    /// The compiled graph set with [`NavMeshQuery::set_compiled_graph`].
    pub fn compiled_graph(&self) -> Option<&Arc<CompiledGraph>> {
        self.graph.as_ref()
    }

    /// Drops the data the query object derives from tiles: the per-tile trees and the
    /// per-tile path search data (polygon centres, edge midpoints, crossing distances), and
    /// the tile geometry they keep alive, which may belong to tiles the mesh no longer
    /// holds; shrinks nothing else. Both are rebuilt on use and never change an answer.
    pub fn clear_derived_data(&mut self) {
        self.bv = bvtree::BvCache::default();
        self.derived = derived::DerivedTiles::default();
    }
}

/// Test support (the `fixtures` feature): knobs that change how path searches compute,
/// never what they answer, so that tests can compare the ways.
#[cfg(feature = "fixtures")]
impl NavMeshQuery {
    /// With `true`, searches with a compiled graph read the derived per-tile data instead
    /// of the compiled graph (the two give the same answers bit for bit; the tests compare
    /// them).
    pub fn set_walk_tiles(&mut self, on: bool) {
        self.edge_source = if on {
            EdgeSource::Derived
        } else {
            EdgeSource::Fastest
        };
    }

    /// With `true`, searches keep their open list a binary heap instead of turning to a
    /// radix heap when large (the pop order is the same; the tests compare).
    pub fn set_plain_open_list(&mut self, on: bool) {
        self.plain_open_list = on;
    }
}

/// The edges a path search reads (every source gives the very same calls, bit for bit).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EdgeSource {
    /// The compiled graph when it applies, else the derived per-tile data.
    #[default]
    Fastest,
    /// The derived per-tile data (`derived.rs`).
    #[cfg_attr(not(any(test, feature = "fixtures")), allow(dead_code))]
    Derived,
    /// The tile walk, every edge computed afresh ([`PathGraph`]).
    #[cfg_attr(not(test), allow(dead_code))]
    Tiles,
}
