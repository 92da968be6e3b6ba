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
//! One file per concept: `filter.rs`, `bvtree.rs` (per-tile trees), `graph.rs` (neighbours,
//! crossings, the path cost model), `tilecache.rs` (derived per-tile search data, dense
//! node index), `compiled.rs` (the compiled graph and landmarks), `nearest.rs`, `path.rs` (A*, sliced), `openlist.rs` (its 4-ary heap), `straight.rs`
//! (funnel), `raycast.rs`, `surface.rs` (move, walls, circles, random points),
//! `corridor.rs`, `generated.rs` (a large generated mesh and plain-data export), `geom.rs`.
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

mod bvtree;
mod compiled;
mod corridor;
mod error;
mod filter;
#[cfg(feature = "fixtures")]
mod generated;
mod geom;
mod graph;
mod nearest;
mod openlist;
mod path;
mod raycast;
mod straight;
mod surface;
mod tilecache;

use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use onepath_format::PolyRef;

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
pub use graph::{tie_key, Crossing, Neighbour, PathEnds, PathGraph, HEURISTIC_SCALE};
pub use nearest::{ClosestPoint, NearestPoly};
pub use path::{PathResult, PathStatus};
pub use raycast::RaycastHit;
pub use straight::{StraightPathFlags, StraightPathOptions, StraightPathPoint};
pub use surface::{CircleNode, LocalNode, MoveResult, WallHit, WallSegment};

/// A small mixing hasher for the node index (`PolyRef` keys). The index is only
/// looked up, never iterated, so the hash cannot reach an answer; it just has to be fast.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct RefHasher(u64);

impl Hasher for RefHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, v: u64) {
        // SplitMix64's finaliser: every input bit reaches the low bits the table indexes
        // with (a bare multiply would leave slot bits 20..40 out of them).
        let mut z = self.0 ^ v;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        self.0 = z ^ (z >> 31);
    }
}

/// PolyRef → node index.
pub(crate) type NodeIndex = HashMap<PolyRef, u32, BuildHasherDefault<RefHasher>>;

/// A query object: reusable buffers for the queries on a [`crate::TiledNavMesh`], and the
/// state of one sliced path search. Cheap to create; keep one per thread or agent system
/// and reuse it.
#[derive(Debug, Default)]
pub struct NavMeshQuery {
    bv: bvtree::BvCache,
    nodes: Vec<path::PathNode>,
    node_index: tilecache::DenseIndex,
    tiles: tilecache::TileCache,
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
    /// Per search node, its heuristic, while the search uses a compiled graph.
    node_h: Vec<f64>,
    /// Whether searches with a compiled graph walk the tiles instead (a test hook).
    walk_tiles: bool,
    /// Whether the open list keeps to the binary heap (a test hook).
    plain_open_list: bool,
    aux_nodes: Vec<path::Node>,
    aux_index: NodeIndex,
    aux_open: BinaryHeap<path::OpenEntry>,
    scratch_refs: Vec<PolyRef>,
    scratch_portals: Vec<straight::Portal>,
    scratch_circle: Vec<surface::CircleNode>,
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

    /// Test hook: with `true`, searches with a compiled graph read the tiles instead of
    /// the compiled graph (the two give the same answers bit for bit; the tests
    /// compare them).
    #[doc(hidden)]
    pub fn set_walk_tiles(&mut self, on: bool) {
        self.walk_tiles = on;
    }

    /// Test hook: with `true`, searches keep their open list a binary heap instead of
    /// turning to a radix heap when large (the pop order is the same; the tests compare).
    #[doc(hidden)]
    pub fn set_plain_open_list(&mut self, on: bool) {
        self.plain_open_list = on;
    }

    /// The compiled graph set with [`NavMeshQuery::set_compiled_graph`].
    pub fn compiled_graph(&self) -> Option<&Arc<CompiledGraph>> {
        self.graph.as_ref()
    }

    /// Drops the per-tile trees and the per-tile path search data (polygon centres, edge
    /// midpoints), and the tile geometry they keep alive, which may belong to tiles the
    /// mesh no longer holds; shrinks nothing else. Both are rebuilt on use.
    pub fn clear_tile_cache(&mut self) {
        self.bv = bvtree::BvCache::default();
        self.tiles = tilecache::TileCache::default();
    }
}
