//! Nearest polygon, polygons in a box, closest point on a polygon and polygon height.

use std::cell::Cell;

use onepath_format::PolyRef;

use crate::mesh::{MeshTile, TiledNavMesh};
use crate::query::bvtree::LocalBox;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{
    check_extent, check_point, closest_on_segment_2d, dist_sqr, lerp, point_in_poly_2d,
    triangle_height, world_to_tile, Vec3,
};
use crate::query::poly::{decode, poly_passes, poly_verts, tie_key, world, PolyVerts};
use crate::query::NavMeshQuery;

/// The result of [`NavMeshQuery::find_nearest_poly`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NearestPoly {
    /// The nearest polygon.
    pub poly: PolyRef,
    /// The point of that polygon nearest the query point.
    pub point: Vec3,
    /// True when the query point lies over the polygon (inside it in X/Z).
    pub over_poly: bool,
    /// Squared 3D distance from the query point to `point`.
    pub dist_sqr: f64,
}

/// The result of [`NavMeshQuery::closest_point_on_poly`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClosestPoint {
    /// The closest point on the polygon's surface.
    pub point: Vec3,
    /// True when the query point lies over the polygon (inside it in X/Z); the point is
    /// then straight below or above it, on the surface.
    pub over_poly: bool,
}

fn check_extents(half: Vec3) -> Result<(), QueryError> {
    for (what, v) in [
        ("half_extents.x", half[0]),
        ("half_extents.y", half[1]),
        ("half_extents.z", half[2]),
    ] {
        check_extent(what, v)?;
    }
    Ok(())
}

/// The surface height of polygon `p` at (pos.x, pos.z) when the point lies over it: the
/// detail triangles when the tile has a detail mesh, else the polygon's triangle fan from
/// corner 0. `None` when the point is not over the polygon.
pub(crate) fn height_over_poly(
    tile: &MeshTile,
    p: usize,
    verts: &[Vec3],
    pos: Vec3,
) -> Option<f64> {
    if !point_in_poly_2d(pos, verts) {
        return None;
    }
    let d = tile.tile().data();
    if let Some(m) = d.detail_meshes.get(p) {
        let n = verts.len();
        let o = tile.origin();
        let vertex = |i: u8| -> Option<Vec3> {
            let i = usize::from(i);
            if i < n {
                Some(verts[i])
            } else {
                let k = m.vertex_base as usize + (i - n);
                d.detail_vertices.get(k).map(|&v| world(o, v))
            }
        };
        let base = m.triangle_base as usize;
        for t in &d.detail_triangles[base..base + m.triangle_count as usize] {
            if let (Some(a), Some(b), Some(c)) = (vertex(t.v[0]), vertex(t.v[1]), vertex(t.v[2])) {
                if let Some(h) = triangle_height(pos, a, b, c) {
                    return Some(h);
                }
            }
        }
    }
    for k in 1..verts.len() - 1 {
        if let Some(h) = triangle_height(pos, verts[0], verts[k], verts[k + 1]) {
            return Some(h);
        }
    }
    // Inside by the edge test but in no triangle by rounding: the closest corner's height.
    let mut best = (f64::INFINITY, verts[0][1]);
    for v in verts {
        let d2 = (v[0] - pos[0]) * (v[0] - pos[0]) + (v[2] - pos[2]) * (v[2] - pos[2]);
        if d2 < best.0 {
            best = (d2, v[1]);
        }
    }
    Some(best.1)
}

/// The closest point of polygon `p` (corners `verts`) to `pos`.
pub(crate) fn closest_point(tile: &MeshTile, p: usize, verts: &[Vec3], pos: Vec3) -> ClosestPoint {
    if let Some(h) = height_over_poly(tile, p, verts, pos) {
        return ClosestPoint {
            point: [pos[0], h, pos[2]],
            over_poly: true,
        };
    }
    // Outside: the nearest boundary point in X/Z (lowest edge among equals), its height
    // from the surface there.
    let n = verts.len();
    let mut best = (f64::INFINITY, 0usize, 0.0f64);
    for k in 0..n {
        let (t, d2) = closest_on_segment_2d(pos, verts[k], verts[(k + 1) % n]);
        if d2 < best.0 {
            best = (d2, k, t);
        }
    }
    let (_, k, t) = best;
    let q = lerp(verts[k], verts[(k + 1) % n], t);
    let y = height_over_poly(tile, p, verts, q).unwrap_or(q[1]);
    ClosestPoint {
        point: [q[0], y, q[2]],
        over_poly: false,
    }
}

/// Where a candidate stands in [`NavMeshQuery::find_nearest_poly`]'s order.
#[derive(Debug, Clone, Copy)]
enum Rank {
    /// The point is over the polygon within climb of its surface, `gap` away vertically.
    On { gap: f64, tie: u64 },
    /// Any other polygon: `d2` the squared 3D distance to its closest point, or, when the
    /// point is over it beyond the climb, the squared distance to the band within climb of
    /// its surface, `(gap − climb)²`.
    Off { d2: f64, tie: u64 },
}

impl Rank {
    /// True when `self` comes strictly before `other`: "on" before "off", then the smaller
    /// gap or distance, then the lower tie key.
    fn before(&self, other: &Rank) -> bool {
        match (*self, *other) {
            (Rank::On { .. }, Rank::Off { .. }) => true,
            (Rank::Off { .. }, Rank::On { .. }) => false,
            (Rank::On { gap: a, tie: ta }, Rank::On { gap: b, tie: tb })
            | (Rank::Off { d2: a, tie: ta }, Rank::Off { d2: b, tie: tb }) => {
                a < b || (a == b && ta < tb)
            }
        }
    }

    /// What a later candidate's bounding box must allow to possibly come before `self`.
    fn bound(&self) -> Bound {
        match *self {
            Rank::On { gap, .. } => Bound::On { gap },
            Rank::Off { d2, .. } => Bound::Near {
                dist: d2.sqrt() + BOX_SLACK,
            },
        }
    }
}

/// A necessary condition on a candidate's bounding box for it to beat the best so far, so
/// that most candidates are dismissed by their box alone. The box covers the polygon's
/// corners and detail vertices, hence its surface and every closest point; `BOX_SLACK`
/// covers the rounding of the interpolations that compute those points, so a skipped
/// candidate could never have won, not even a tie: skipping changes no answer.
#[derive(Debug, Clone, Copy)]
enum Bound {
    /// Nothing found yet.
    Any,
    /// The best is a polygon the point is on, `gap` below or above it: only a polygon the
    /// point is over, at most as far vertically, can beat it.
    On { gap: f64 },
    /// The best is `dist` away (slack included): only a polygon at most that far, or one
    /// the point may be over within `climb + dist` of, can beat it.
    Near { dist: f64 },
}

/// World units of slack in the box tests of [`Bound`]: far above the rounding of a few
/// operations on coordinates within ±2^21 (an ulp there is below 5e-10), far below
/// anything a query distinguishes.
const BOX_SLACK: f64 = 1e-6;

impl Bound {
    /// The part of `whole` (the query box around `c`) where a polygon's box must reach to
    /// possibly hold a better candidate: the centre's X/Z (with slack) and the gap for
    /// `On`; the best distance around the centre, and the climb in Y, for `Near`.
    fn shrink(&self, whole: &WorldBox, c: Vec3, climb: f64) -> WorldBox {
        let (xz, y) = match *self {
            Bound::Any => return *whole,
            Bound::On { gap } => (BOX_SLACK, gap + BOX_SLACK),
            Bound::Near { dist } => (dist, climb + dist),
        };
        let h = [xz, y, xz];
        WorldBox {
            min: [0, 1, 2].map(|a| whole.min[a].max(c[a] - h[a])),
            max: [0, 1, 2].map(|a| whole.max[a].min(c[a] + h[a])),
        }
    }

    /// Whether a polygon with tile-local box `[bmin, bmax]` in a tile at `origin` may come
    /// before the best so far for the query point `c` (climb `climb`).
    fn may_hold(
        &self,
        origin: [f64; 3],
        bmin: [f32; 3],
        bmax: [f32; 3],
        c: Vec3,
        climb: f64,
    ) -> bool {
        let gap = |a: usize| {
            let lo = origin[a] + f64::from(bmin[a]);
            let hi = origin[a] + f64::from(bmax[a]);
            (lo - c[a]).max(c[a] - hi).max(0.0)
        };
        let (gx, gy, gz) = (gap(0), gap(1), gap(2));
        let over = gx <= BOX_SLACK && gz <= BOX_SLACK;
        match *self {
            Bound::Any => true,
            Bound::On { gap } => over && gy <= gap + BOX_SLACK,
            Bound::Near { dist } => {
                (over && gy <= climb + dist) || gx * gx + gy * gy + gz * gz <= dist * dist
            }
        }
    }
}

/// A world-space query box; [`NavMeshQuery::find_nearest_poly`] shrinks it around the centre
/// as better candidates turn up.
#[derive(Debug, Clone, Copy)]
struct WorldBox {
    min: Vec3,
    max: Vec3,
}

impl WorldBox {
    /// Whether `other` lies inside this box.
    fn contains(&self, other: &WorldBox) -> bool {
        (0..3).all(|a| self.min[a] <= other.min[a] && other.max[a] <= self.max[a])
    }

    /// The box in the tile-local frame of a tile at `o` (min, max). The
    /// subtraction is the one every test of a tile-local box has used, so the polygons
    /// found are those the f64 tile-local comparison finds.
    fn local(&self, o: [f64; 3]) -> ([f64; 3], [f64; 3]) {
        (
            [self.min[0] - o[0], self.min[1] - o[1], self.min[2] - o[2]],
            [self.max[0] - o[0], self.max[1] - o[1], self.max[2] - o[2]],
        )
    }
}

impl NavMeshQuery {
    /// Calls `f(tile, polygon, box min, box max)` (the box tile-local) for every polygon
    /// passing `filter` whose bounding box overlaps the box `center ± half_extents`, the
    /// tiles of the centre's column first, then in no promised order (callers break ties by
    /// explicit keys). Columns next to the box are searched too when the mesh's tiles reach
    /// out of their columns (up to one tile, see `BvCache`). When `f` returns a box (inside the current
    /// one), the rest of the walk looks only for polygons overlapping that box. With a
    /// `probe` (a box inside the query box), the centre's column is first searched within
    /// it, so `f` may see a polygon twice.
    fn for_each_poly_in_box(
        &mut self,
        mesh: &TiledNavMesh,
        center: Vec3,
        half_extents: Vec3,
        filter: &QueryFilter,
        probe: Option<WorldBox>,
        mut f: impl FnMut(&MeshTile, usize, [f32; 3], [f32; 3]) -> Option<WorldBox>,
    ) -> Result<(), QueryError> {
        check_point("center", center)?;
        check_extents(half_extents)?;
        let world = Cell::new(WorldBox {
            min: [
                center[0] - half_extents[0],
                center[1] - half_extents[1],
                center[2] - half_extents[2],
            ],
            max: [
                center[0] + half_extents[0],
                center[1] + half_extents[1],
                center[2] + half_extents[2],
            ],
        });
        let params = *mesh.params();
        // The columns whose tiles can reach the box: those under it widened by the mesh's
        // reach (with slack for a polygon touching the box at a column boundary).
        let reach = self.bv.mesh_reach(mesh) + BOX_SLACK;
        let whole = world.get();
        let (x0, z0) = world_to_tile(&params, whole.min[0] - reach, whole.min[2] - reach);
        let (x1, z1) = world_to_tile(&params, whole.max[0] + reach, whole.max[2] + reach);
        let (x0, z0, x1, z1) = (i64::from(x0), i64::from(z0), i64::from(x1), i64::from(z1));
        let mut visit = |t: &MeshTile, within: Option<WorldBox>| {
            let o = t.origin();
            let (lmin, lmax) = within.unwrap_or(world.get()).local(o);
            let tree = self.bv.get(t.slot(), t.tile());
            if !tree.root_overlaps(lmin, lmax) {
                return;
            }
            let mut local = LocalBox::new(lmin, lmax);
            tree.query_boxes(&mut local, |p, bmin, bmax, local| {
                if poly_passes(t, p as usize, filter) {
                    if let Some(smaller) = f(t, p as usize, bmin, bmax) {
                        world.set(smaller);
                        let (lmin, lmax) = smaller.local(o);
                        *local = LocalBox::new(lmin, lmax);
                    }
                }
            });
        };
        // A box wider than the mesh has tiles walks the tiles instead of the columns, so a
        // huge box costs O(tiles), not O(columns).
        let columns = (x1 - x0 + 1).saturating_mul(z1 - z0 + 1);
        if columns > mesh.tile_count() as i64 {
            for t in mesh.tiles() {
                let (x, z, _) = t.tile().position();
                if (x0..=x1).contains(&i64::from(x)) && (z0..=z1).contains(&i64::from(z)) {
                    visit(t, None);
                }
            }
            return Ok(());
        }
        // The centre's column first, within `probe` and then within the box: the polygon
        // under the point, found early, shrinks the box to the point for every other tile.
        let (cx, cz) = world_to_tile(&params, center[0], center[2]);
        if let Some(probe) = probe {
            for t in mesh.tiles_at(cx, cz) {
                visit(t, Some(probe));
            }
        }
        // Every polygon of the column overlapping the box as it is now has been seen when the
        // probe covers the box (the box only shrinks): no second walk of the column then.
        let covered = probe.is_some_and(|p| p.contains(&world.get()));
        if !covered {
            for t in mesh.tiles_at(cx, cz) {
                visit(t, None);
            }
        }
        for x in x0..=x1 {
            for z in z0..=z1 {
                let (Ok(x), Ok(z)) = (i32::try_from(x), i32::try_from(z)) else {
                    continue;
                };
                if (x, z) == (cx, cz) {
                    continue;
                }
                for t in mesh.tiles_at(x, z) {
                    visit(t, None);
                }
            }
        }
        Ok(())
    }

    /// Writes into `out` (cleared first) every polygon passing `filter` whose bounding box
    /// overlaps the box `center ± half_extents`, ascending by slot, then polygon index.
    pub fn query_polygons(
        &mut self,
        mesh: &TiledNavMesh,
        center: Vec3,
        half_extents: Vec3,
        filter: &QueryFilter,
        out: &mut Vec<PolyRef>,
    ) -> Result<(), QueryError> {
        out.clear();
        self.for_each_poly_in_box(mesh, center, half_extents, filter, None, |t, p, _, _| {
            if let Some(r) = t.poly_ref(p as u32) {
                out.push(r);
            }
            None
        })?;
        out.sort_unstable_by_key(|&r| tie_key(r));
        Ok(())
    }

    /// The polygon nearest `center` among those passing `filter` whose bounding box overlaps
    /// the box `center ± half_extents`, with the nearest point on it (heights from the detail
    /// mesh when the tile has one).
    ///
    /// A polygon the point is **on** comes first: the point lies over it (inside or on its
    /// boundary in X/Z) and within the mesh's walkable climb of its surface, straight above or
    /// below (a point a little off a slope or a step stays on its polygon, as in Detour).
    /// Among such polygons the smaller vertical gap wins. The others rank by a squared
    /// distance: for a polygon the point is over (beyond the climb) the distance to the band
    /// within climb of its surface, `(gap − climb)²` (Detour's measure), for any other the 3D
    /// distance from `center` to the polygon's closest point. Equal values go to the lower
    /// slot, then the lower polygon index ([`tie_key`]). `None` when no polygon is in the
    /// box. [`NearestPoly::dist_sqr`] is always the squared 3D distance.
    pub fn find_nearest_poly(
        &mut self,
        mesh: &TiledNavMesh,
        center: Vec3,
        half_extents: Vec3,
        filter: &QueryFilter,
    ) -> Result<Option<NearestPoly>, QueryError> {
        let climb = f64::from(mesh.params().walkable_climb);
        let mut best: Option<(Rank, NearestPoly)> = None;
        // What a candidate's box must reach to possibly beat `best` (see `Rank::bound`).
        let mut bound = Bound::Any;
        let mut verts = PolyVerts::new();
        let whole = WorldBox {
            min: [0, 1, 2].map(|a| center[a] - half_extents[a]),
            max: [0, 1, 2].map(|a| center[a] + half_extents[a]),
        };
        // First the polygons right under the point (within climb), the likely answer.
        let probe = Bound::On {
            gap: climb.min(half_extents[1]),
        }
        .shrink(&whole, center, climb);
        self.for_each_poly_in_box(
            mesh,
            center,
            half_extents,
            filter,
            Some(probe),
            |t, p, bmin, bmax| {
                if !bound.may_hold(t.origin(), bmin, bmax, center, climb) {
                    return None;
                }
                let r = t.poly_ref(p as u32)?;
                poly_verts(t, p, &mut verts);
                let cp = closest_point(t, p, &verts, center);
                let d2 = dist_sqr(center, cp.point);
                let gap = (center[1] - cp.point[1]).abs();
                let rank = if cp.over_poly && gap <= climb {
                    Rank::On {
                        gap,
                        tie: tie_key(r),
                    }
                } else if cp.over_poly {
                    // Over it beyond the climb: the distance to the band within climb of
                    // the surface (Detour's measure), so a point far off a curved surface
                    // still goes to the polygon it is over before a neighbour's edge that
                    // is not much nearer.
                    Rank::Off {
                        d2: (gap - climb) * (gap - climb),
                        tie: tie_key(r),
                    }
                } else {
                    Rank::Off {
                        d2,
                        tie: tie_key(r),
                    }
                };
                if !best.as_ref().map_or(true, |(b, _)| rank.before(b)) {
                    return None;
                }
                bound = rank.bound();
                best = Some((
                    rank,
                    NearestPoly {
                        poly: r,
                        point: cp.point,
                        over_poly: cp.over_poly,
                        dist_sqr: d2,
                    },
                ));
                Some(bound.shrink(&whole, center, climb))
            },
        )?;
        Ok(best.map(|(_, n)| n))
    }

    /// The point of polygon `r` closest to `pos`: straight above or below `pos` on the
    /// surface when `pos` is over the polygon, else the nearest boundary point in X/Z (lowest
    /// edge among equals) at the surface height there.
    pub fn closest_point_on_poly(
        &self,
        mesh: &TiledNavMesh,
        r: PolyRef,
        pos: Vec3,
    ) -> Result<ClosestPoint, QueryError> {
        check_point("pos", pos)?;
        let (t, p) = decode(mesh, r)?;
        let mut verts = PolyVerts::new();
        poly_verts(t, p, &mut verts);
        Ok(closest_point(t, p, &verts, pos))
    }

    /// The surface height of polygon `r` at (pos.x, pos.z), from the detail mesh when the
    /// tile has one; `None` when the point is not over the polygon.
    pub fn poly_height(
        &self,
        mesh: &TiledNavMesh,
        r: PolyRef,
        pos: Vec3,
    ) -> Result<Option<f64>, QueryError> {
        check_point("pos", pos)?;
        let (t, p) = decode(mesh, r)?;
        let mut verts = PolyVerts::new();
        poly_verts(t, p, &mut verts);
        Ok(height_over_poly(t, p, &verts, pos))
    }
}
