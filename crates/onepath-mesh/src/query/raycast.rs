//! Raycast along the surface: walk the polygons a 2D (X/Z) segment crosses until it reaches
//! its end or meets a wall.

use onepath_format::{NavTile, PolyRef, NO_PORTAL};

use crate::mesh::TiledNavMesh;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{
    check_point, clip_segment_poly_2d_leaving, closest_on_segment_2d, lerp, CornerXz, Vec3,
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

/// One corner of a polygon as the raycast reads it, with the edge that starts there (edge k
/// runs from corner k to corner k + 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RayCorner {
    /// World X of the corner: `origin.x + f64(local.x)`, the value `poly_verts` computes.
    pub(crate) x: f64,
    /// World Z of the corner.
    pub(crate) z: f64,
    /// The in-tile neighbour across the edge as the neighbour scan reports it there (its
    /// index + 1), 0 when none: no neighbour, or one an earlier edge already names (the
    /// scan reports a polygon on its first edge only). The filter is not applied (flags
    /// change at run time; the reader tests them).
    pub(crate) neighbour: u32,
    /// Whether the edge lies on the tile's border (it has a portal side): only such an edge
    /// can carry portal links.
    pub(crate) portal: bool,
}

impl CornerXz for RayCorner {
    #[inline(always)]
    fn xz(self) -> (f64, f64) {
        (self.x, self.z)
    }
}

/// The raycast's per-polygon block of a mesh tile: every polygon's corners (world X/Z) and
/// per edge the in-tile neighbour the scan reports and whether it can carry portals, side
/// by side in one array, so that a step of the ray reads one run of memory instead of the
/// tile's corner, vertex and edge arrays, and converts nothing. A function of the tile's
/// geometry and world origin only (the current areas and flags, which change at run time,
/// are read from the tile; the portal links from the portal index): built when the mesh
/// takes the tile in (add, replace, restore, stream, a tile-cache rebuild: every way a tile
/// enters a slot), never patched afterwards because nothing it holds can change while the
/// tile stays; part of the mesh's equality.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct RayBlock {
    /// Polygon `p`'s corners are `corners[first[p]..first[p + 1]]` (the tile's corner
    /// slots, so corner slot `c` is `corners[c]`).
    first: Vec<u32>,
    corners: Vec<RayCorner>,
}

impl RayBlock {
    /// The block of a (validated) tile whose world origin is `origin`.
    pub(crate) fn build(tile: &NavTile, origin: [f64; 3]) -> RayBlock {
        let d = tile.data();
        let mut block = RayBlock {
            first: Vec::with_capacity(tile.poly_count() + 1),
            corners: Vec::with_capacity(d.corners.len()),
        };
        for p in 0..tile.poly_count() {
            let range = tile.poly_corners(p);
            block.first.push(block.corners.len() as u32);
            for c in range.clone() {
                let v = d.vertices[usize::from(d.corners[c])];
                let nb = d.edge_neighbours[c];
                let hidden = nb == 0 || d.edge_neighbours[range.start..c].contains(&nb);
                block.corners.push(RayCorner {
                    x: origin[0] + f64::from(v[0]),
                    z: origin[2] + f64::from(v[2]),
                    neighbour: if hidden { 0 } else { nb },
                    portal: d.edge_portal_sides[c] != NO_PORTAL,
                });
            }
        }
        block.first.push(block.corners.len() as u32);
        block
    }

    /// Polygon `p`'s first corner slot and its corners (`None` past the polygons).
    #[inline]
    pub(crate) fn poly(&self, p: usize) -> Option<(usize, &[RayCorner])> {
        let (a, b) = (
            *self.first.get(p)? as usize,
            *self.first.get(p + 1)? as usize,
        );
        Some((a, self.corners.get(a..b)?))
    }
}

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
        // Per edge of the current polygon, the parameter where the segment's line leaves
        // through it (for the edges it leaves through), for the corner test. The corners
        // come from the tile's raycast block (world X/Z, origin + local, as everywhere).
        let mut leave_t = [0.0f64; MAX_CORNERS];
        let len = {
            let (dx, dz) = (end_pos[0] - start_pos[0], end_pos[2] - start_pos[2]);
            (dx * dx + dz * dz).sqrt()
        };
        // Parameter where the ray entered the current polygon, and the cost so far.
        let mut t_in = 0.0f64;
        let mut cost = 0.0f64;
        loop {
            let corners = tile.ray_block().poly(p);
            let n = corners.map_or(0, |(_, c)| c.len());
            visited.push(cur);
            let Some((first_corner, verts)) = corners.filter(|_| n <= MAX_CORNERS) else {
                // Past the block's polygons, or more than 16 corners (refused by the tile
                // format's validation): unreachable, but a stop rather than a panic.
                return Ok(RaycastHit {
                    t: t_in,
                    hit_normal: [0.0; 3],
                    hit_edge: None,
                    last_poly: cur,
                    cost,
                });
            };
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
            // Corner `k` for `k` up to `n` (corner `n` is corner 0), without a division.
            let corner = |k: usize| {
                let c = verts[if k < n { k } else { k - n }];
                [c.x, 0.0, c.z]
            };
            // The next polygon, with its tile and index.
            let mut next = None;
            for k in candidates {
                let edge = verts[k];
                next = in_tile_edge_neighbour(tile, edge, filter)
                    .filter(|&(r, _)| on_crossing(r, corner(k + 1), corner(k), visited))
                    .map(|(r, q)| (r, tile, q))
                    .or_else(|| {
                        // Only a border edge carries portal links.
                        edge.portal
                            .then(|| {
                                first_portal_neighbour(
                                    mesh,
                                    tile,
                                    p,
                                    first_corner + k,
                                    filter,
                                    |target, left, right| on_crossing(target, left, right, visited),
                                )
                            })
                            .flatten()
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
                    let b = verts[if exit + 1 < n { exit + 1 } else { 0 }];
                    let (ex, ez) = (b.x - a.x, b.z - a.z);
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

#[cfg(test)]
mod tests {
    use crate::fixtures::bridge_and_building;
    use crate::query::generated_grid_mesh;
    use crate::query::poly::{poly_verts, PolyVerts};

    /// The block holds what the raycast read from the tile before it existed: the corner
    /// slots, every corner's world X/Z bit for bit, per edge the first naming of an in-tile
    /// neighbour, and a border mark on every edge that carries portal entries.
    #[test]
    fn the_ray_block_holds_the_tile_s_corners_neighbours_and_borders() {
        let generated = generated_grid_mesh(3, 3, 4, 5).mesh;
        let (mut polys, mut portal_edges) = (0, 0);
        for mesh in [&bridge_and_building(), &generated] {
            for t in mesh.tiles() {
                let d = t.tile().data();
                let mut verts = PolyVerts::new();
                for p in 0..t.tile().poly_count() {
                    let range = t.tile().poly_corners(p);
                    let (first, block) = t.ray_block().poly(p).unwrap();
                    assert_eq!(first, range.start);
                    poly_verts(t, p, &mut verts);
                    assert_eq!(block.len(), verts.len());
                    for (k, (c, v)) in block.iter().zip(&verts).enumerate() {
                        assert_eq!(c.x.to_bits(), v[0].to_bits());
                        assert_eq!(c.z.to_bits(), v[2].to_bits());
                        let nb = d.edge_neighbours[range.start + k];
                        let first_naming = nb != 0
                            && !d.edge_neighbours[range.start..range.start + k].contains(&nb);
                        assert_eq!(c.neighbour, if first_naming { nb } else { 0 });
                        if !t.edge_portals(range.start + k).is_empty() {
                            assert!(c.portal);
                            portal_edges += 1;
                        }
                    }
                    polys += 1;
                }
                assert!(t.ray_block().poly(t.tile().poly_count()).is_none());
            }
        }
        assert!(polys > 100 && portal_edges > 20);
    }
}
