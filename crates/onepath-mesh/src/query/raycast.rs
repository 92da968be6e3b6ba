//! Raycast along the surface: walk the polygons a 2D (X/Z) segment crosses until it reaches
//! its end or meets a wall.

use onepath_format::PolyRef;

use crate::mesh::TiledNavMesh;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{
    check_point, clip_segment_poly_2d_leaving, closest_on_segment_2d, lerp, Vec3,
};
use crate::query::graph::{first_portal_neighbour, in_tile_edge_neighbour};
use crate::query::poly::decode_passing;
use crate::query::NavMeshQuery;

/// Parameter tolerance for "the segment leaves the polygon through several edges at once"
/// (it passes through a corner).
const T_EPS: f64 = 1e-9;
/// Squared distance tolerance for "the exit point lies on the crossing segment".
const ON_SEGMENT_EPS2: f64 = 1e-14;
/// Upper bound on the polygons one raycast visits (a guard; real rays stop far earlier).
const MAX_VISITED: usize = 1 << 16;
/// Most corners of a polygon (`NavMeshParams::max_verts_per_poly` is at most 16, which the
/// tile format's validation holds every polygon to).
const MAX_CORNERS: usize = 16;

/// The result of [`NavMeshQuery::raycast`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RaycastHit {
    /// Where the ray stopped, as a parameter along start → end: `f64::INFINITY` when it
    /// reached the end, else in 0..=1 (the hit point is `start + (end − start)·t`).
    pub t: f64,
    /// Outward normal (X/Z, unit length, Y 0) of the wall edge hit; zero when none.
    pub hit_normal: Vec3,
    /// Index of the wall edge hit in the last polygon.
    pub hit_edge: Option<u8>,
    /// The last polygon visited (where the ray stopped or ended).
    pub last_poly: PolyRef,
    /// Cost of the part of the ray walked: for each polygon crossed, its area cost times the
    /// X/Z length of the ray inside it, summed in order.
    pub cost: f64,
}

impl RaycastHit {
    /// True when the ray reached its end without meeting a wall.
    pub fn reached_end(&self) -> bool {
        self.t == f64::INFINITY
    }
}

impl NavMeshQuery {
    /// Casts a ray along the surface from `start_pos` (in polygon `start_ref`) towards
    /// `end_pos`, in X/Z. The ray moves into a neighbour through an edge only when the exit
    /// point lies on a crossing to a polygon passing `filter` (an in-tile neighbour, or the
    /// covered part of a portal); off-mesh links are not followed. When it leaves through a
    /// corner, every edge meeting there is tried, in edge order after the first exit edge.
    /// `visited` receives the polygons crossed, in order (cleared first).
    pub fn raycast(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        visited: &mut Vec<PolyRef>,
    ) -> Result<RaycastHit, QueryError> {
        check_point("start_pos", start_pos)?;
        check_point("end_pos", end_pos)?;
        visited.clear();
        // The current polygon: its reference, tile and index (an in-tile step keeps the tile).
        let (mut tile, mut p) = decode_passing(mesh, start_ref, filter)?;
        let mut cur = start_ref;
        // The current polygon's corners, X/Z only (world: origin + local, as everywhere),
        // and per edge the parameter where the segment's line leaves through it (for the
        // edges it leaves through), for the corner test.
        let mut verts = [[0.0f64; 2]; MAX_CORNERS];
        let mut leave_t = [0.0f64; MAX_CORNERS];
        let len = {
            let (dx, dz) = (end_pos[0] - start_pos[0], end_pos[2] - start_pos[2]);
            (dx * dx + dz * dz).sqrt()
        };
        // Parameter where the ray entered the current polygon, and the cost so far.
        let mut t_in = 0.0f64;
        let mut cost = 0.0f64;
        loop {
            let d = tile.tile().data();
            let o = tile.origin();
            let corners = tile.tile().poly_corners(p);
            let n = corners.len();
            visited.push(cur);
            if n > MAX_CORNERS {
                // Refused by the tile format's validation (at most 16 corners): unreachable,
                // but a stop rather than a panic.
                return Ok(RaycastHit {
                    t: t_in,
                    hit_normal: [0.0; 3],
                    hit_edge: None,
                    last_poly: cur,
                    cost,
                });
            }
            for (slot, c) in verts.iter_mut().zip(corners) {
                let v = d.vertices[usize::from(d.corners[c])];
                *slot = [o[0] + f64::from(v[0]), o[2] + f64::from(v[2])];
            }
            let verts = &verts[..n];
            // Bit k: the segment's line leaves through edge k (at `leave_t[k]`).
            let mut leaving = 0u32;
            let area_cost = filter.area_cost(tile.tile().areas()[p]);
            let Some((_, tmax, _, seg_max)) =
                clip_segment_poly_2d_leaving(start_pos, end_pos, verts, |k, t| {
                    leaving |= 1 << k;
                    leave_t[k] = t;
                })
            else {
                // The segment misses the polygon (the start is not over the start polygon,
                // or rounding at an entry corner): blocked where it entered.
                return Ok(RaycastHit {
                    t: t_in,
                    hit_normal: [0.0; 3],
                    hit_edge: None,
                    last_poly: cur,
                    cost,
                });
            };
            let Some(exit) = seg_max else {
                cost += area_cost * ((1.0 - t_in) * len);
                return Ok(RaycastHit {
                    t: f64::INFINITY,
                    hit_normal: [0.0; 3],
                    hit_edge: None,
                    last_poly: cur,
                    cost,
                });
            };
            // Every edge the segment leaves through at (about) tmax, the first exit edge
            // first, then in edge order (the others looked at only when the first leads
            // nowhere).
            let others = leaving & !(1 << exit);
            let candidates = std::iter::once(exit).chain(
                (0..n).filter(|&k| others >> k & 1 != 0 && (leave_t[k] - tmax).abs() <= T_EPS),
            );
            let x = lerp(start_pos, end_pos, tmax);
            let on_crossing = |target: PolyRef, left: Vec3, right: Vec3, visited: &[PolyRef]| {
                closest_on_segment_2d(x, right, left).1 <= ON_SEGMENT_EPS2
                    && !visited.contains(&target)
            };
            let corner = |k: usize| {
                let [x, z] = verts[k % n];
                [x, 0.0, z]
            };
            // The next polygon, with its tile and index.
            let mut next = None;
            for k in candidates {
                next = in_tile_edge_neighbour(tile, p, filter, k)
                    .filter(|&(r, _)| on_crossing(r, corner(k + 1), corner(k), visited))
                    .map(|(r, q)| (r, tile, q))
                    .or_else(|| {
                        first_portal_neighbour(mesh, tile, p, filter, k, |target, left, right| {
                            on_crossing(target, left, right, visited)
                        })
                    });
                if next.is_some() {
                    break;
                }
            }
            let t_out = tmax.max(t_in);
            cost += area_cost * ((t_out - t_in) * len);
            t_in = t_out;
            match next {
                Some((r, t, q)) if visited.len() < MAX_VISITED => {
                    cur = r;
                    (tile, p) = (t, q);
                }
                _ => {
                    let a = verts[exit];
                    let b = verts[(exit + 1) % n];
                    let (ex, ez) = (b[0] - a[0], b[1] - a[1]);
                    let len = (ex * ex + ez * ez).sqrt();
                    return Ok(RaycastHit {
                        t: tmax,
                        hit_normal: [ez / len, 0.0, -ex / len],
                        hit_edge: Some(exit as u8),
                        last_poly: cur,
                        cost,
                    });
                }
            }
        }
    }
}
