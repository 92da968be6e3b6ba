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

/// One polygon of a [`RayBlock`]: where its corners start, and the polygon's current area
/// and flags (copies of the tile's, which run-time edits change).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct RayPoly {
    /// First corner slot (the next polygon's is the end; a last entry closes the list).
    first: u32,
    /// Current flags (the filter tests them).
    flags: u16,
    /// Current area (its cost weighs the ray's length inside the polygon).
    area: u8,
}

/// The raycast's per-polygon block of a mesh tile: every polygon's corners (world X/Z) and
/// per edge the in-tile neighbour the scan reports and whether it can carry portals, side
/// by side in one array, so that a step of the ray reads one run of memory instead of the
/// tile's corner, vertex and edge arrays, and converts nothing; per polygon its first
/// corner with a copy of its current area and flags, so that the step (and a tile border
/// crossing, which checks the target's flags) reads them there instead of following the
/// tile's shared state arrays. The corners and neighbours are a function of the tile's
/// geometry and world origin, built when the mesh takes the tile in (add, replace,
/// restore, stream, a tile-cache rebuild: every way a tile enters a slot); the areas and
/// flags are copied again whenever the tile's current state changes (`set_poly_area`,
/// `set_poly_flags`, the edits of a slot-table restore; the mesh's `set_state` is the one
/// place that changes it). The portal links come from the portal index. Part of the mesh's
/// equality.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct RayBlock {
    /// Polygon `p`'s corners are `corners[polys[p].first..polys[p + 1].first]` (the tile's
    /// corner slots, so corner slot `c` is `corners[c]`); one entry more than polygons.
    polys: Vec<RayPoly>,
    corners: Vec<RayCorner>,
}

impl RayBlock {
    /// The block of a (validated) tile whose world origin is `origin`.
    pub(crate) fn build(tile: &NavTile, origin: [f64; 3]) -> RayBlock {
        let d = tile.data();
        let (areas, flags) = (tile.areas(), tile.flags());
        let mut block = RayBlock {
            polys: Vec::with_capacity(tile.poly_count() + 1),
            corners: Vec::with_capacity(d.corners.len()),
        };
        for p in 0..tile.poly_count() {
            let range = tile.poly_corners(p);
            block.polys.push(RayPoly {
                first: block.corners.len() as u32,
                flags: flags[p],
                area: areas[p],
            });
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
        block.polys.push(RayPoly {
            first: block.corners.len() as u32,
            ..RayPoly::default()
        });
        block
    }

    /// Copies the current areas and flags of `tile` (the tile the block was built from,
    /// with another current state).
    pub(crate) fn copy_state(&mut self, tile: &NavTile) {
        for ((poly, &area), &flags) in self
            .polys
            .iter_mut()
            .zip(&tile.areas()[..])
            .zip(&tile.flags()[..])
        {
            poly.area = area;
            poly.flags = flags;
        }
    }

    /// Polygon `p`'s first corner slot, current area and corners (`None` past the
    /// polygons).
    #[inline]
    pub(crate) fn poly(&self, p: usize) -> Option<(usize, u8, &[RayCorner])> {
        let (a, b) = (self.polys.get(p)?, self.polys.get(p + 1)?);
        let (first, end) = (a.first as usize, b.first as usize);
        Some((first, a.area, self.corners.get(first..end)?))
    }

    /// Polygon `p`'s current flags (`None` past the polygons).
    #[inline]
    pub(crate) fn flags(&self, p: usize) -> Option<u16> {
        if p + 1 < self.polys.len() {
            Some(self.polys[p].flags)
        } else {
            None
        }
    }
}

/// The bit of `r`'s class in the raycast's filter of visited polygons.
#[inline(always)]
fn seen_bit(r: PolyRef) -> u64 {
    1 << ((r.poly() ^ (r.slot().wrapping_mul(0x9E37_79B9) >> 26)) & 63)
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
        // A filter of the polygons in `visited` (a bit per hash class): a target whose bit
        // is clear was not visited, so the list is scanned only when the bit is set.
        let mut seen = 0u64;
        loop {
            let corners = tile.ray_block().poly(p);
            let n = corners.map_or(0, |(_, _, c)| c.len());
            visited.push(cur);
            seen |= seen_bit(cur);
            let Some((first_corner, area, verts)) = corners.filter(|_| n <= MAX_CORNERS) else {
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
            let area_cost = filter.area_cost(area);
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
            let x = lerp(start_pos, end_pos, tmax);
            // Whether the exit point lies on the crossing `right → left` to a polygon not
            // visited yet (the filter of `seen` first: most targets are not in it).
            let on_crossing = |target: PolyRef, left: Vec3, right: Vec3, visited: &[PolyRef]| {
                closest_on_segment_2d(x, right, left).1 <= ON_SEGMENT_EPS2
                    && (seen & seen_bit(target) == 0 || !visited.contains(&target))
            };
            // Corner `k` for `k` up to `n` (corner `n` is corner 0), without a division.
            let corner = |k: usize| {
                let c = verts[if k < n { k } else { k - n }];
                [c.x, 0.0, c.z]
            };
            // The next polygon, with its tile and index: across the first exit edge, or
            // when that leads nowhere, across every other edge the segment leaves through
            // at (about) tmax, in edge order (a corner exit).
            let mut others = leaving & !(1 << exit);
            let mut k = exit;
            let next = loop {
                // The polygon across edge `k` if the exit point lies on a crossing to it:
                // the in-tile neighbour, else (only a border edge carries portal links) a
                // portal's.
                let edge = verts[k];
                let found = in_tile_edge_neighbour(tile, edge, filter)
                    .filter(|&(r, _)| on_crossing(r, corner(k + 1), corner(k), visited))
                    .map(|(r, q)| (r, tile, q))
                    .or_else(|| {
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
                if found.is_some() {
                    break found;
                }
                // The next edge left through at about tmax, if any.
                let mut candidate = None;
                while others != 0 {
                    let j = others.trailing_zeros() as usize;
                    others &= others - 1;
                    if (leave_t[j] - tmax).abs() <= T_EPS {
                        candidate = Some(j);
                        break;
                    }
                }
                match candidate {
                    Some(j) => k = j,
                    None => break None,
                }
            };
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
                    let (first, area, block) = t.ray_block().poly(p).unwrap();
                    assert_eq!(first, range.start);
                    assert_eq!(area, t.tile().areas()[p]);
                    assert_eq!(t.ray_block().flags(p), Some(t.tile().flags()[p]));
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
                assert!(t.ray_block().flags(t.tile().poly_count()).is_none());
            }
        }
        assert!(polys > 100 && portal_edges > 20);
    }
}
