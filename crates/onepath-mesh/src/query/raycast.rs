//! Raycast along the surface: walk the polygons a 2D (X/Z) segment crosses until it reaches
//! its end or meets a wall.

use onepath_format::PolyRef;
use smallvec::SmallVec;

use crate::mesh::MeshTile;
use crate::mesh::TiledNavMesh;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{
    check_point, clip_segment_poly_2d_leaving, closest_on_segment_2d, lerp, Vec3,
};
use crate::query::graph::first_edge_neighbour;
use crate::query::poly::{decode_passing, poly_passes, poly_verts, PolyVerts};
use crate::query::NavMeshQuery;

/// Parameter tolerance for "the segment leaves the polygon through several edges at once"
/// (it passes through a corner).
const T_EPS: f64 = 1e-9;
/// Squared distance tolerance for "the exit point lies on the crossing segment".
const ON_SEGMENT_EPS2: f64 = 1e-14;
/// Upper bound on the polygons one raycast visits (a guard; real rays stop far earlier).
const MAX_VISITED: usize = 1 << 16;

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
        let mut verts = PolyVerts::new();
        let len = {
            let (dx, dz) = (end_pos[0] - start_pos[0], end_pos[2] - start_pos[2]);
            (dx * dx + dz * dz).sqrt()
        };
        // Parameter where the ray entered the current polygon, and the cost so far.
        let mut t_in = 0.0f64;
        let mut cost = 0.0f64;
        loop {
            poly_verts(tile, p, &mut verts);
            visited.push(cur);
            let area_cost = filter.area_cost(tile.tile().areas()[p]);
            // The parameters of the edges the segment leaves through, for the corner test.
            let mut leaves: SmallVec<[(usize, f64); 16]> = SmallVec::new();
            let Some((_, tmax, _, seg_max)) =
                clip_segment_poly_2d_leaving(start_pos, end_pos, &verts, |k, t| {
                    leaves.push((k, t))
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
            // first, then in edge order.
            let n = verts.len();
            let mut candidates: SmallVec<[usize; 4]> = SmallVec::new();
            candidates.push(exit);
            for &(k, t) in &leaves {
                if k != exit && (t - tmax).abs() <= T_EPS {
                    candidates.push(k);
                }
            }
            let x = lerp(start_pos, end_pos, tmax);
            let on_crossing = |target: PolyRef, left: Vec3, right: Vec3, visited: &[PolyRef]| {
                closest_on_segment_2d(x, right, left).1 <= ON_SEGMENT_EPS2
                    && !visited.contains(&target)
            };
            // The next polygon, with its tile and index.
            let mut next = None;
            for &k in &candidates {
                next = in_tile_neighbour(tile, p, filter, k)
                    .filter(|&(r, _)| on_crossing(r, verts[(k + 1) % n], verts[k], visited))
                    .map(|(r, q)| (r, tile, q))
                    .or_else(|| {
                        first_edge_neighbour(mesh, tile, p, filter, k, |target, left, right| {
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
                    let (ex, ez) = (b[0] - a[0], b[2] - a[2]);
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

/// The in-tile neighbour across edge `k` of polygon `p` (reference and index) when it is what
/// [`first_edge_neighbour`] reports first for that edge: it passes `filter` and no earlier
/// edge names the same polygon (which would hide it there). `None` otherwise, and the
/// caller asks [`first_edge_neighbour`]; the in-tile crossing is the whole edge, whose
/// corners the caller has.
fn in_tile_neighbour(
    tile: &MeshTile,
    p: usize,
    filter: &QueryFilter,
    k: usize,
) -> Option<(PolyRef, usize)> {
    let d = tile.tile().data();
    let base = tile.tile().poly_corners(p).start;
    let nb = d.edge_neighbours[base + k];
    if nb == 0 || d.edge_neighbours[base..base + k].contains(&nb) {
        return None;
    }
    if !poly_passes(tile, (nb - 1) as usize, filter) {
        return None;
    }
    Some((tile.poly_ref(nb - 1)?, (nb - 1) as usize))
}
