//! [`NavMeshQuery::move_along_surface`]: constrained movement, a bounded flood.

use onepath_format::PolyRef;

use crate::mesh::TiledNavMesh;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{check_point, closest_on_segment_2d, dist, lerp, point_in_poly_2d, Vec3};
use crate::query::nearest::height_over_poly;
use crate::query::poly::{decode, decode_passing, poly_verts, PolyVerts};
use crate::query::surface::walls::{edge_point, for_each_boundary_piece, segment_dist2};
use crate::query::NavMeshQuery;

/// The result of [`NavMeshQuery::move_along_surface`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveResult {
    /// Where the movement ended (on the surface of `poly`).
    pub pos: Vec3,
    /// The polygon the movement ended in.
    pub poly: PolyRef,
}

impl NavMeshQuery {
    /// Moves from `start_pos` (in `start_ref`) towards `end_pos`, staying on the surface:
    /// a breadth-first search (neighbours in neighbour order) over polygons whose crossing
    /// lies within the circle through both points; if `end_pos` is over a reached polygon
    /// the move ends there, otherwise at the wall point closest to `end_pos` (smaller
    /// distance wins, the first found among equals). Edges without a passable crossing are
    /// walls. `visited` receives the polygons from the start to the end polygon.
    pub fn move_along_surface(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        visited: &mut Vec<PolyRef>,
    ) -> Result<MoveResult, QueryError> {
        check_point("start_pos", start_pos)?;
        check_point("end_pos", end_pos)?;
        visited.clear();
        decode_passing(mesh, start_ref, filter)?;
        let mid = lerp(start_pos, end_pos, 0.5);
        let radius = dist(start_pos, end_pos) * 0.5 + 0.001;
        let r2 = radius * radius;
        let flood = &mut self.flood;
        flood.reset(start_ref, start_pos);
        let mut best = (f64::INFINITY, 0u32, start_pos);
        let mut verts = PolyVerts::new();
        flood.breadth_first(mesh, |flood, i, tile, p| {
            poly_verts(tile, p, &mut verts);
            if point_in_poly_2d(end_pos, &verts) {
                best = (0.0, i, end_pos);
                return Ok(false);
            }
            for_each_boundary_piece(mesh, tile, p, &verts, filter, |w| match w.neighbour {
                None => {
                    let (t, d2) = closest_on_segment_2d(end_pos, w.start, w.end);
                    if d2 < best.0 {
                        best = (d2, i, edge_point(w.start, w.end, t));
                    }
                }
                Some(target) => {
                    if flood.visited(target) || segment_dist2(mid, w.start, w.end) > r2 {
                        return;
                    }
                    flood.reach(target, i);
                }
            });
            Ok(true)
        })?;
        let (_, node, mut pos) = best;
        flood.path_to(node, visited);
        let poly = flood.poly(node);
        let (t, p) = decode(mesh, poly)?;
        poly_verts(t, p, &mut verts);
        if let Some(h) = height_over_poly(t, p, &verts, pos) {
            pos[1] = h;
        }
        Ok(MoveResult { pos, poly })
    }
}
