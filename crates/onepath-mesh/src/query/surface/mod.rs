//! Local searches over the surface, one file per query:
//!
//! | file | queries |
//! |---|---|
//! | `moving.rs` | [`NavMeshQuery::move_along_surface`] |
//! | `wall_distance.rs` | [`NavMeshQuery::find_distance_to_wall`] |
//! | `walls.rs` | [`NavMeshQuery::poly_wall_segments`] (and the boundary pieces the others read) |
//! | `around.rs` | [`NavMeshQuery::polys_around_circle`], [`NavMeshQuery::polys_around_shape`] |
//! | `random.rs` | [`NavMeshQuery::find_random_point`], [`NavMeshQuery::find_random_point_around_circle`] |
//! | `local.rs` | [`NavMeshQuery::find_local_neighbourhood`] |
//!
//! All but the random point over the whole mesh and the wall segments of one polygon are a
//! *bounded flood* from a start polygon: [`Flood`], the node pool they share, visits the
//! polygons breadth-first (in the order reached, neighbours in neighbour order) through
//! the crossings each query's bound admits, or settles them in Dijkstra order
//! ([`Flood::settle`], for the polygons around a circle or a shape).

use std::collections::BinaryHeap;

use onepath_format::PolyRef;

use crate::mesh::{MeshTile, TiledNavMesh};
use crate::query::error::QueryError;
use crate::query::geom::{cross_2d, Vec3};
use crate::query::nodepool::{Node, NodeIndex, NO_PARENT};
use crate::query::openlist::OpenEntry;
use crate::query::poly::decode;
#[cfg(doc)]
use crate::query::NavMeshQuery;

mod around;
mod local;
mod moving;
mod random;
mod wall_distance;
mod walls;

pub use around::CircleNode;
pub use local::LocalNode;
pub use moving::MoveResult;
pub use wall_distance::WallHit;
pub use walls::WallSegment;

/// The node pool of the bounded floods (reused by every surface query of a query object):
/// the polygons reached with their parents (and, for [`Flood::settle`], their costs and
/// positions), the index of those reached, and the Dijkstra open list.
#[derive(Debug, Default)]
pub(crate) struct Flood {
    nodes: Vec<Node>,
    index: NodeIndex,
    open: BinaryHeap<OpenEntry>,
}

impl Flood {
    /// Starts a flood at `start` (at `pos`, cost 0): node 0.
    fn reset(&mut self, start: PolyRef, pos: Vec3) {
        self.nodes.clear();
        self.index.clear();
        self.open.clear();
        self.nodes.push(Node {
            poly: start,
            pos,
            g: 0.0,
            f: 0.0,
            parent: NO_PARENT,
            closed: false,
        });
        self.index.insert(start, 0);
    }

    /// True when `r` was reached (or marked) since the flood started.
    fn visited(&self, r: PolyRef) -> bool {
        self.index.contains_key(&r)
    }

    /// Marks `r` as visited without reaching it (it is never reached after).
    fn mark(&mut self, r: PolyRef) {
        self.index.insert(r, self.nodes.len() as u32);
    }

    /// Reaches `r` from node `parent`: the next node of the breadth-first order. `r` must
    /// not be reached yet; it may be marked.
    fn reach(&mut self, r: PolyRef, parent: u32) {
        self.index.insert(r, self.nodes.len() as u32);
        self.nodes.push(Node {
            poly: r,
            pos: [0.0; 3],
            g: 0.0,
            f: 0.0,
            parent,
            closed: false,
        });
    }

    /// The polygon of node `i`.
    fn poly(&self, i: u32) -> PolyRef {
        self.nodes[i as usize].poly
    }

    /// The polygons from the start to node `i`, written into `out` (appended).
    fn path_to(&self, i: u32, out: &mut Vec<PolyRef>) {
        let from = out.len();
        let mut j = i;
        while j != NO_PARENT {
            out.push(self.nodes[j as usize].poly);
            j = self.nodes[j as usize].parent;
        }
        out[from..].reverse();
    }

    /// The breadth-first flood: calls `visit(flood, node, tile, polygon)` for every node in
    /// the order reached, from the start; `visit` reaches further polygons
    /// ([`Flood::reach`]) through the crossings its query admits, and returns `false` to stop.
    fn breadth_first(
        &mut self,
        mesh: &TiledNavMesh,
        mut visit: impl FnMut(&mut Flood, u32, &MeshTile, usize) -> Result<bool, QueryError>,
    ) -> Result<(), QueryError> {
        let mut i = 0;
        while i < self.nodes.len() {
            let (tile, p) = decode(mesh, self.nodes[i].poly)?;
            if !visit(self, i as u32, tile, p)? {
                break;
            }
            i += 1;
        }
        Ok(())
    }
}

/// The X/Z area of a convex counter-clockwise polygon (its fan, summed in order).
fn poly_area_2d(verts: &[Vec3]) -> f64 {
    let mut a = 0.0;
    for k in 1..verts.len() - 1 {
        a += cross_2d(verts[0], verts[k], verts[k + 1]) * 0.5;
    }
    a
}
