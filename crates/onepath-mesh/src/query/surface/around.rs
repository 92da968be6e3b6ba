//! [`NavMeshQuery::polys_around_circle`] and [`NavMeshQuery::polys_around_shape`]: the
//! polygons a Dijkstra flood settles through the crossings within a circle or a shape.

use onepath_format::PolyRef;

use crate::mesh::TiledNavMesh;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{
    check_extent, check_point, clip_segment_poly_2d, dist, point_in_poly_2d, Vec3,
};
use crate::query::graph::{for_each_neighbour, Crossing};
use crate::query::nodepool::{Node, NO_PARENT};
use crate::query::openlist::OpenEntry;
use crate::query::poly::{decode, decode_passing, poly_centre, PolyVerts};
use crate::query::surface::walls::segment_dist2;
use crate::query::surface::{poly_area_2d, Flood};
use crate::query::NavMeshQuery;

/// One polygon found by [`NavMeshQuery::polys_around_circle`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CircleNode {
    /// The polygon.
    pub poly: PolyRef,
    /// The polygon it was reached from (`PolyRef::NULL` for the start).
    pub parent: PolyRef,
    /// The cost of reaching it (area-weighted distance through crossing midpoints).
    pub cost: f64,
}

impl NavMeshQuery {
    /// The polygons reachable from `start_ref` through crossings within `radius` of
    /// `center` (X/Z; an off-mesh link counts when its departure point is within), in the
    /// order a Dijkstra search settles them (cost: area cost × distance between crossing
    /// points, starting at `center`; ties: lower cost, then lower slot and polygon index). Written into
    /// `out` (cleared first).
    pub fn polys_around_circle(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        center: Vec3,
        radius: f64,
        filter: &QueryFilter,
        out: &mut Vec<CircleNode>,
    ) -> Result<(), QueryError> {
        check_point("center", center)?;
        check_extent("radius", radius)?;
        out.clear();
        decode_passing(mesh, start_ref, filter)?;
        let r2 = radius * radius;
        self.flood
            .settle(mesh, start_ref, center, filter, out, |c| match *c {
                Crossing::Edge { left, right, .. } => segment_dist2(center, right, left) <= r2,
                Crossing::OffMesh { start, .. } => {
                    let dx = start[0] - center[0];
                    let dz = start[2] - center[2];
                    dx * dx + dz * dz <= r2
                }
            })
    }

    /// The polygons reachable from `start_ref` through crossings that touch the convex
    /// polygon `shape` (X/Z, either winding; an off-mesh link counts when its departure point
    /// is inside), in Dijkstra settle order from the shape's centre (corner average), as
    /// [`NavMeshQuery::polys_around_circle`]. A shape of fewer than 3 corners or zero area is
    /// [`QueryError::InvalidExtent`] (`shape`).
    pub fn polys_around_shape(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        shape: &[Vec3],
        filter: &QueryFilter,
        out: &mut Vec<CircleNode>,
    ) -> Result<(), QueryError> {
        out.clear();
        for v in shape {
            check_point("shape", *v)?;
        }
        let mut ccw: PolyVerts = shape.iter().copied().collect();
        let area = if ccw.len() >= 3 {
            poly_area_2d(&ccw)
        } else {
            0.0
        };
        if area == 0.0 {
            return Err(QueryError::InvalidExtent {
                what: "shape",
                value: area,
            });
        }
        if area < 0.0 {
            ccw.reverse();
        }
        decode_passing(mesh, start_ref, filter)?;
        let center = poly_centre(&ccw);
        self.flood
            .settle(mesh, start_ref, center, filter, out, |c| match *c {
                Crossing::Edge { left, right, .. } => {
                    clip_segment_poly_2d(right, left, &ccw).is_some()
                }
                Crossing::OffMesh { start, .. } => point_in_poly_2d(start, &ccw),
            })
    }
}

impl Flood {
    /// The Dijkstra flood of [`NavMeshQuery::polys_around_circle`] from `center` in
    /// `start_ref` through the crossings `within` accepts: the polygons in settle order,
    /// written into `out`.
    fn settle(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        center: Vec3,
        filter: &QueryFilter,
        out: &mut Vec<CircleNode>,
        within: impl Fn(&Crossing) -> bool,
    ) -> Result<(), QueryError> {
        self.reset(start_ref, center);
        self.open.push(OpenEntry {
            f: 0.0,
            g: 0.0,
            poly: start_ref,
            node: 0,
        });
        while let Some(e) = self.open.pop() {
            let node = self.nodes[e.node as usize];
            if node.closed || e.g != node.g {
                continue;
            }
            self.nodes[e.node as usize].closed = true;
            out.push(CircleNode {
                poly: node.poly,
                parent: if node.parent == NO_PARENT {
                    PolyRef::NULL
                } else {
                    self.nodes[node.parent as usize].poly
                },
                cost: node.g,
            });
            let (tile, p) = decode(mesh, node.poly)?;
            let ca = filter.area_cost(tile.tile().areas()[p]);
            let nodes = &mut self.nodes;
            let index = &mut self.index;
            let open = &mut self.open;
            for_each_neighbour(mesh, tile, p, filter, |nb| {
                if !within(&nb.crossing) {
                    return;
                }
                let entry = nb.crossing.entry_point();
                let mut g = node.g + ca * dist(node.pos, entry);
                if let Crossing::OffMesh {
                    start, end, area, ..
                } = nb.crossing
                {
                    g += filter.area_cost(area) * dist(start, end);
                }
                let pos = nb.crossing.exit_point();
                let i = match index.get(&nb.target) {
                    Some(&i) => {
                        let n = &mut nodes[i as usize];
                        if n.closed || !(g < n.g) {
                            return;
                        }
                        n.g = g;
                        n.f = g;
                        n.pos = pos;
                        n.parent = e.node;
                        i
                    }
                    None => {
                        let i = nodes.len() as u32;
                        nodes.push(Node {
                            poly: nb.target,
                            pos,
                            g,
                            f: g,
                            parent: e.node,
                            closed: false,
                        });
                        index.insert(nb.target, i);
                        i
                    }
                };
                open.push(OpenEntry {
                    f: g,
                    g,
                    poly: nb.target,
                    node: i,
                });
            });
        }
        Ok(())
    }
}
