//! [`NavMeshQuery::find_distance_to_wall`]: the nearest wall, a bounded flood whose bound
//! shrinks with every wall found.

use onepath_format::PolyRef;

use crate::mesh::TiledNavMesh;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{check_extent, check_point, closest_on_segment_2d, Vec3};
use crate::query::poly::{decode_passing, poly_verts, PolyVerts};
use crate::query::surface::walls::{edge_point, for_each_boundary_piece, segment_dist2};
use crate::query::NavMeshQuery;

/// The result of [`NavMeshQuery::find_distance_to_wall`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallHit {
    /// Distance (X/Z) from the centre to the nearest wall point, or the search radius when
    /// no wall is within it.
    pub distance: f64,
    /// The nearest wall point (the centre when none was found).
    pub point: Vec3,
    /// Unit X/Z direction from the wall point to the centre (zero when none was found).
    pub normal: Vec3,
}

impl NavMeshQuery {
    /// The distance from `center` (in `start_ref`) to the nearest wall within `max_radius`
    /// (in X/Z), searching breadth-first through crossings within the current best radius.
    /// A wall is an edge without a passable crossing. Equal distances keep the first found.
    pub fn find_distance_to_wall(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        center: Vec3,
        max_radius: f64,
        filter: &QueryFilter,
    ) -> Result<WallHit, QueryError> {
        check_point("center", center)?;
        check_extent("max_radius", max_radius)?;
        decode_passing(mesh, start_ref, filter)?;
        let flood = &mut self.flood;
        flood.reset(start_ref, center);
        let mut r2 = max_radius * max_radius;
        let mut hit: Option<Vec3> = None;
        let mut verts = PolyVerts::new();
        flood.breadth_first(mesh, |flood, i, tile, p| {
            poly_verts(tile, p, &mut verts);
            // Walls first (they shrink the radius), then the crossings within it.
            for_each_boundary_piece(mesh, tile, p, &verts, filter, |w| {
                if w.neighbour.is_none() {
                    let (t, d2) = closest_on_segment_2d(center, w.start, w.end);
                    if d2 < r2 {
                        r2 = d2;
                        hit = Some(edge_point(w.start, w.end, t));
                    }
                }
            });
            for_each_boundary_piece(mesh, tile, p, &verts, filter, |w| {
                let Some(target) = w.neighbour else {
                    return;
                };
                if flood.visited(target) || segment_dist2(center, w.start, w.end) > r2 {
                    return;
                }
                flood.reach(target, i);
            });
            Ok(true)
        })?;
        Ok(match hit {
            None => WallHit {
                distance: max_radius,
                point: center,
                normal: [0.0; 3],
            },
            Some(point) => {
                let d = r2.sqrt();
                let normal = if d > 0.0 {
                    [(center[0] - point[0]) / d, 0.0, (center[2] - point[2]) / d]
                } else {
                    [0.0; 3]
                };
                WallHit {
                    distance: d,
                    point,
                    normal,
                }
            }
        })
    }
}
