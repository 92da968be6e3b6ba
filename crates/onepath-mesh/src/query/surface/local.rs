//! [`NavMeshQuery::find_local_neighbourhood`]: the overlap-free polygons around an agent,
//! a bounded flood.

use onepath_format::PolyRef;
use smallvec::SmallVec;

use crate::mesh::TiledNavMesh;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{check_extent, check_point, Vec3};
use crate::query::graph::{for_each_neighbour, Crossing};
use crate::query::poly::{decode, decode_passing, poly_verts, PolyVerts};
use crate::query::surface::walls::segment_dist2;
use crate::query::NavMeshQuery;

/// One polygon found by [`NavMeshQuery::find_local_neighbourhood`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalNode {
    /// The polygon.
    pub poly: PolyRef,
    /// The polygon it was reached from (`PolyRef::NULL` for the start).
    pub parent: PolyRef,
}

/// True when two convex polygons overlap in X/Z by more than `eps` along every separating
/// axis candidate (their edge normals); polygons that only touch do not overlap.
fn overlap_poly_poly_2d(a: &[Vec3], b: &[Vec3], eps: f64) -> bool {
    let project = |p: &[Vec3], ax: (f64, f64)| {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for v in p {
            let d = v[0] * ax.0 + v[2] * ax.1;
            lo = lo.min(d);
            hi = hi.max(d);
        }
        (lo, hi)
    };
    // The edge normals of `a`, then of `b`, each tried as it is formed (nothing collected).
    let separated_by_edges_of = |p: &[Vec3]| {
        let n = p.len();
        (0..n).any(|k| {
            let (u, v) = (p[k], p[(k + 1) % n]);
            let ax = (v[2] - u[2], -(v[0] - u[0]));
            let (amin, amax) = project(a, ax);
            let (bmin, bmax) = project(b, ax);
            amin + eps > bmax || amax - eps < bmin
        })
    };
    !(separated_by_edges_of(a) || separated_by_edges_of(b))
}

impl NavMeshQuery {
    /// The polygons around `center` an agent of `radius` may touch, without overlaps: a
    /// breadth-first search from `start_ref` through edge crossings within `radius` (X/Z),
    /// in neighbour order, skipping any polygon that overlaps (in X/Z, by more than `1e-4`
    /// world units along some axis) a polygon already found — so of two layers over the same
    /// ground only the one reached first counts. At most `max_results` polygons, start first.
    #[allow(clippy::too_many_arguments)]
    pub fn find_local_neighbourhood(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        center: Vec3,
        radius: f64,
        filter: &QueryFilter,
        max_results: usize,
        out: &mut Vec<LocalNode>,
    ) -> Result<(), QueryError> {
        check_point("center", center)?;
        check_extent("radius", radius)?;
        out.clear();
        decode_passing(mesh, start_ref, filter)?;
        if max_results == 0 {
            return Ok(());
        }
        let r2 = radius * radius;
        let flood = &mut self.flood;
        flood.reset(start_ref, center);
        out.push(LocalNode {
            poly: start_ref,
            parent: PolyRef::NULL,
        });
        let mut va = PolyVerts::new();
        // The corners of each polygon found, in `out` order (read once, not per candidate).
        let mut found: Vec<PolyVerts> = Vec::with_capacity(max_results.min(64));
        let (st, sp) = decode(mesh, start_ref)?;
        poly_verts(st, sp, &mut va);
        found.push(va.clone());
        let mut candidates: SmallVec<[PolyRef; 16]> = SmallVec::new();
        flood.breadth_first(mesh, |flood, i, tile, p| {
            let cur = flood.poly(i);
            candidates.clear();
            for_each_neighbour(mesh, tile, p, filter, |nb| {
                if let Crossing::Edge { left, right, .. } = nb.crossing {
                    if segment_dist2(center, right, left) <= r2 {
                        candidates.push(nb.target);
                    }
                }
            });
            for &target in &candidates {
                if flood.visited(target) {
                    continue;
                }
                // Visited either way: an overlapping polygon is not tried again.
                flood.mark(target);
                let (tt, tp) = decode(mesh, target)?;
                poly_verts(tt, tp, &mut va);
                if found.iter().any(|vb| overlap_poly_poly_2d(&va, vb, 1e-4)) {
                    continue;
                }
                found.push(va.clone());
                flood.reach(target, i);
                out.push(LocalNode {
                    poly: target,
                    parent: cur,
                });
                if out.len() >= max_results {
                    return Ok(false);
                }
            }
            Ok(true)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x: f64, z: f64, s: f64) -> [Vec3; 4] {
        [
            [x, 0.0, z],
            [x + s, 0.0, z],
            [x + s, 0.0, z + s],
            [x, 0.0, z + s],
        ]
    }

    #[test]
    fn touching_polygons_do_not_overlap_and_stacked_ones_do() {
        assert!(!overlap_poly_poly_2d(
            &square(0.0, 0.0, 1.0),
            &square(1.0, 0.0, 1.0),
            1e-4
        ));
        assert!(!overlap_poly_poly_2d(
            &square(0.0, 0.0, 1.0),
            &square(1.0, 1.0, 1.0),
            1e-4
        ));
        assert!(overlap_poly_poly_2d(
            &square(0.0, 0.0, 1.0),
            &square(0.5, 0.5, 1.0),
            1e-4
        ));
        // A layer above: same outline, other height.
        let mut up = square(0.0, 0.0, 1.0);
        for v in &mut up {
            v[1] = 3.0;
        }
        assert!(overlap_poly_poly_2d(&square(0.0, 0.0, 1.0), &up, 1e-4));
    }
}
