//! [`NavMeshQuery::find_random_point`] and [`NavMeshQuery::find_random_point_around_circle`]:
//! random points from a caller's random source.

use onepath_format::PolyRef;

use crate::mesh::{MeshTile, TiledNavMesh};
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{cross_2d, Vec3};
use crate::query::nearest::height_over_poly;
use crate::query::poly::{decode, poly_passes, poly_verts, PolyVerts};
use crate::query::surface::poly_area_2d;
use crate::query::NavMeshQuery;

impl NavMeshQuery {
    /// A random point on the mesh: a polygon passing `filter` chosen with probability
    /// proportional to its X/Z area (slot, then polygon order), then a triangle of its fan by
    /// area, then a uniform point in the triangle, at the surface height. `rand` must return
    /// numbers in `[0, 1)` (values outside are clamped; NaN reads as 0); it is called exactly
    /// four times when a point is found. `None` when no polygon passes the filter.
    pub fn find_random_point(
        &mut self,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        rand: &mut impl FnMut() -> f64,
    ) -> Result<Option<(PolyRef, Vec3)>, QueryError> {
        let mut next = || unit(rand());
        let mut verts = PolyVerts::new();
        let area_of = |verts: &PolyVerts| poly_area_2d(verts);
        let mut total = 0.0;
        for t in mesh.tiles() {
            for p in 0..t.tile().poly_count() {
                if poly_passes(t, p, filter) {
                    poly_verts(t, p, &mut verts);
                    total += area_of(&verts);
                }
            }
        }
        if !(total > 0.0) {
            return Ok(None);
        }
        let target = next() * total;
        let mut acc = 0.0;
        let mut chosen = None;
        'tiles: for t in mesh.tiles() {
            for p in 0..t.tile().poly_count() {
                if poly_passes(t, p, filter) {
                    poly_verts(t, p, &mut verts);
                    acc += area_of(&verts);
                    chosen = Some((t, p));
                    if target < acc {
                        break 'tiles;
                    }
                }
            }
        }
        let Some((t, p)) = chosen else {
            return Ok(None);
        };
        Ok(Some(random_point_in_poly(t, p, &mut next)?))
    }

    /// A random point in a polygon reachable from `start_ref` within `radius` of `center`
    /// (the polygons of [`NavMeshQuery::polys_around_circle`]): a polygon chosen with
    /// probability proportional to its X/Z area, in settle order, then a point in it as for
    /// [`NavMeshQuery::find_random_point`] (the point itself may lie outside the circle).
    /// `rand` is called exactly four times.
    pub fn find_random_point_around_circle(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        center: Vec3,
        radius: f64,
        filter: &QueryFilter,
        rand: &mut impl FnMut() -> f64,
    ) -> Result<(PolyRef, Vec3), QueryError> {
        let mut found = std::mem::take(&mut self.scratch_circle);
        let r = self.polys_around_circle(mesh, start_ref, center, radius, filter, &mut found);
        let result = r.and_then(|()| {
            let mut next = || unit(rand());
            let mut verts = PolyVerts::new();
            let mut total = 0.0;
            for n in &found {
                let (t, p) = decode(mesh, n.poly)?;
                poly_verts(t, p, &mut verts);
                total += poly_area_2d(&verts);
            }
            let target = next() * total;
            let mut acc = 0.0;
            let mut chosen = start_ref;
            for n in &found {
                let (t, p) = decode(mesh, n.poly)?;
                poly_verts(t, p, &mut verts);
                acc += poly_area_2d(&verts);
                chosen = n.poly;
                if target < acc {
                    break;
                }
            }
            let (t, p) = decode(mesh, chosen)?;
            random_point_in_poly(t, p, &mut next)
        });
        self.scratch_circle = found;
        result
    }
}

/// A caller's random number clamped to `[0, 1]` (NaN reads as 0).
fn unit(v: f64) -> f64 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(0.0, 1.0)
    }
}

/// A point in polygon `p`: a fan triangle by area (one random number), then a uniform point
/// in it (two), at the surface height.
fn random_point_in_poly(
    t: &MeshTile,
    p: usize,
    next: &mut impl FnMut() -> f64,
) -> Result<(PolyRef, Vec3), QueryError> {
    let mut verts = PolyVerts::new();
    poly_verts(t, p, &mut verts);
    let pick = next() * poly_area_2d(&verts);
    let mut acc = 0.0;
    let mut k = 1;
    while k + 2 < verts.len() {
        acc += cross_2d(verts[0], verts[k], verts[k + 1]) * 0.5;
        if pick < acc {
            break;
        }
        k += 1;
    }
    let (a, b, c) = (verts[0], verts[k], verts[k + 1]);
    let s = next();
    let r = next();
    let sq = s.sqrt();
    let (wa, wb, wc) = (1.0 - sq, sq * (1.0 - r), sq * r);
    let mut pt = [
        a[0] * wa + b[0] * wb + c[0] * wc,
        a[1] * wa + b[1] * wb + c[1] * wc,
        a[2] * wa + b[2] * wb + c[2] * wc,
    ];
    if let Some(h) = height_over_poly(t, p, &verts, pt) {
        pt[1] = h;
    }
    let r = t
        .poly_ref(p as u32)
        .ok_or(QueryError::InvalidPolyRef(PolyRef::NULL))?;
    Ok((r, pt))
}
