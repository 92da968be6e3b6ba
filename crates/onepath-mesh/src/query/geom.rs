//! Plane geometry in X/Z (Y up) and heights, all in f64 with a fixed operation order.
//!
//! Every function here uses only `+ − × ÷ sqrt` and comparisons, evaluated in the order
//! written (never fused), so the same inputs give the same bits on every platform.

/// A world-space point (X, Y, Z).
pub type Vec3 = [f64; 3];

/// The coordinate rule for a world point
/// ([`NavMeshParams::check_point`](onepath_format::NavMeshParams::check_point), which builds
/// the error's name only when a component fails, so queries call it on every call).
#[inline]
pub(crate) fn check_point(what: &str, p: Vec3) -> Result<(), onepath_format::CoordinateError> {
    // The rule's test, inline for the common case (NaN and the infinities fail `<` too);
    // the format's check names the failing component.
    let inside = |v: f64| v.abs() < onepath_format::COORD_BOUND;
    if inside(p[0]) && inside(p[1]) && inside(p[2]) {
        return Ok(());
    }
    onepath_format::NavMeshParams::check_point(what, p)
}

/// A radius or extent argument: finite and not negative (NaN fails), else
/// [`QueryError::InvalidExtent`](crate::query::QueryError::InvalidExtent) naming it.
pub(crate) fn check_extent(what: &'static str, value: f64) -> Result<(), crate::query::QueryError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(crate::query::QueryError::InvalidExtent { what, value })
    }
}

/// `NavMeshParams::world_to_tile`, the same column for every input, without the call to
/// the platform `floor` (a library call on the x86-64 baseline, twice per call): the
/// quotient is computed by the same operations, then floored by truncation (exact for
/// every f64 below 2^63 in magnitude, and the larger ones are integers that saturate to
/// the same i32 either way; NaN gives 0 both ways).
#[inline]
pub(crate) fn world_to_tile(params: &onepath_format::NavMeshParams, x: f64, z: f64) -> (i32, i32) {
    #[inline(always)]
    fn floor_to_i32(v: f64) -> i32 {
        let t = v as i64 as f64;
        let f = if t > v { t - 1.0 } else { t };
        f as i32
    }
    (
        floor_to_i32((x - params.origin_x) / params.tile_size),
        floor_to_i32((z - params.origin_z) / params.tile_size),
    )
}

/// `b − a`.
pub(crate) fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [b[0] - a[0], b[1] - a[1], b[2] - a[2]]
}

/// `a + (b − a)·t`, per component.
pub(crate) fn lerp(a: Vec3, b: Vec3, t: f64) -> Vec3 {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// Euclidean distance in 3D.
pub(crate) fn dist(a: Vec3, b: Vec3) -> f64 {
    dist_sqr(a, b).sqrt()
}

/// Squared Euclidean distance in 3D.
pub(crate) fn dist_sqr(a: Vec3, b: Vec3) -> f64 {
    let d = sub(a, b);
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
}

/// Squared distance in X/Z.
pub(crate) fn dist_sqr_2d(a: Vec3, b: Vec3) -> f64 {
    let dx = b[0] - a[0];
    let dz = b[2] - a[2];
    dx * dx + dz * dz
}

/// Twice the signed area of the triangle (a, b, c) in X/Z: positive when `c` lies left of
/// `a → b` (the spec's counter-clockwise sense, X right and Z up).
pub(crate) fn cross_2d(a: Vec3, b: Vec3, c: Vec3) -> f64 {
    (b[0] - a[0]) * (c[2] - a[2]) - (b[2] - a[2]) * (c[0] - a[0])
}

/// True when `p` lies inside or on the boundary of the convex counter-clockwise polygon
/// `verts` in X/Z.
pub(crate) fn point_in_poly_2d(p: Vec3, verts: &[Vec3]) -> bool {
    let n = verts.len();
    (0..n).all(|k| cross_2d(verts[k], verts[(k + 1) % n], p) >= 0.0)
}

/// The parameter in 0..=1 of the point of segment `a → b` closest to `p` in X/Z, and the
/// squared X/Z distance to it.
#[inline]
pub(crate) fn closest_on_segment_2d(p: Vec3, a: Vec3, b: Vec3) -> (f64, f64) {
    let ex = b[0] - a[0];
    let ez = b[2] - a[2];
    let px = p[0] - a[0];
    let pz = p[2] - a[2];
    let len2 = ex * ex + ez * ez;
    let t = if len2 > 0.0 {
        ((px * ex + pz * ez) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let qx = px - ex * t;
    let qz = pz - ez * t;
    (t, qx * qx + qz * qz)
}

/// The height at (p.x, p.z) of the plane through triangle (a, b, c) when the point lies
/// inside or on the triangle in X/Z (either winding); `None` otherwise or for a degenerate
/// triangle.
pub(crate) fn triangle_height(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> Option<f64> {
    let det = cross_2d(a, b, c);
    if det == 0.0 {
        return None;
    }
    // Barycentric weights of b and c, normalised by the signed area.
    let u = cross_2d(a, p, c) / det;
    let v = cross_2d(a, b, p) / det;
    // A small tolerance keeps points exactly on a shared triangle edge inside.
    const EPS: f64 = 1e-12;
    if u < -EPS || v < -EPS || u + v > 1.0 + EPS {
        return None;
    }
    Some(a[1] + (b[1] - a[1]) * u + (c[1] - a[1]) * v)
}

/// Parameter tolerance of [`clip_segment_poly_2d`] for points rounded just outside an edge.
pub(crate) const CLIP_EPS: f64 = 1e-9;

/// Clips segment `p0 → p1` against the convex counter-clockwise polygon in X/Z
/// (Cyrus–Beck). Returns `(tmin, tmax, entry edge, exit edge)` of the part inside, or
/// `None` when the segment misses the polygon. A segment running along an edge counts as
/// inside. Edge `k` runs from `verts[k]` to `verts[k + 1]`.
pub(crate) fn clip_segment_poly_2d(
    p0: Vec3,
    p1: Vec3,
    verts: &[Vec3],
) -> Option<(f64, f64, Option<usize>, Option<usize>)> {
    clip_segment_poly_2d_leaving(p0, p1, verts, |_, _| {})
}

/// A polygon corner as the X/Z clip reads it: a world point, or its X/Z alone (the raycast
/// keeps only those).
pub(crate) trait CornerXz: Copy {
    /// (X, Z).
    fn xz(self) -> (f64, f64);
}

impl CornerXz for Vec3 {
    #[inline(always)]
    fn xz(self) -> (f64, f64) {
        (self[0], self[2])
    }
}

impl CornerXz for [f64; 2] {
    #[inline(always)]
    fn xz(self) -> (f64, f64) {
        (self[0], self[1])
    }
}

/// [`clip_segment_poly_2d`], also calling `leaving(k, t)` for every edge `k` the segment's
/// line leaves the polygon through, with its parameter `t` (in edge order; the exit edge is
/// among them). The corners may be world points or their X/Z alone: the same operations
/// either way.
#[inline]
pub(crate) fn clip_segment_poly_2d_leaving<C: CornerXz>(
    p0: Vec3,
    p1: Vec3,
    verts: &[C],
    mut leaving: impl FnMut(usize, f64),
) -> Option<(f64, f64, Option<usize>, Option<usize>)> {
    let mut tmin = 0.0f64;
    let mut tmax = 1.0f64;
    let mut seg_min = None;
    let mut seg_max = None;
    let dx = p1[0] - p0[0];
    let dz = p1[2] - p0[2];
    let n = verts.len();
    for k in 0..n {
        // Edge k runs from corner k to corner k + 1 (the last back to corner 0).
        let (ax, az) = verts[k].xz();
        let (bx, bz) = if k + 1 < n { verts[k + 1] } else { verts[0] }.xz();
        let ex = bx - ax;
        let ez = bz - az;
        // Inside is left of the edge: cross(e, p − a) ≥ 0.
        let num = ex * (p0[2] - az) - ez * (p0[0] - ax);
        let den = ex * dz - ez * dx;
        if den == 0.0 {
            // Parallel: inside or outside the whole way.
            if num < 0.0 {
                return None;
            }
            continue;
        }
        let t = -num / den;
        if den < 0.0 {
            // Moving to the right of the edge: leaving.
            leaving(k, t);
            if t < tmax {
                tmax = t;
                seg_max = Some(k);
            }
        } else if t > tmin {
            // Moving to the left: entering.
            tmin = t;
            seg_min = Some(k);
        }
    }
    // A start rounded just outside an edge it lies on still counts as inside.
    if tmax < tmin - CLIP_EPS {
        return None;
    }
    Some((tmin, tmax.max(tmin), seg_min, seg_max))
}

/// The 2D intersection parameters of segments `a0 → a1` and `b0 → b1` in X/Z: `(s, t)`
/// with the crossing at `a0 + (a1 − a0)·s = b0 + (b1 − b0)·t`; `None` when parallel.
pub(crate) fn intersect_segments_2d(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> Option<(f64, f64)> {
    let ux = a1[0] - a0[0];
    let uz = a1[2] - a0[2];
    let vx = b1[0] - b0[0];
    let vz = b1[2] - b0[2];
    let wx = a0[0] - b0[0];
    let wz = a0[2] - b0[2];
    let d = ux * vz - uz * vx;
    if d == 0.0 {
        return None;
    }
    let s = (vx * wz - vz * wx) / d;
    let t = (ux * wz - uz * wx) / d;
    Some((s, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_to_tile_gives_the_format_s_column_for_every_value() {
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            1e-300,
            -1e-300,
            4_194_303.9,
            -4_194_304.0,
            2f64.powi(52) + 0.5,
            -(2f64.powi(53)),
            2f64.powi(62),
            -(2f64.powi(63)),
            2f64.powi(64),
            -(2f64.powi(70)),
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        let mut state = 0x5EEDu64;
        for _ in 0..20_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            // Random bit patterns (every exponent) and values near tile borders.
            values.push(f64::from_bits(state));
            values.push(((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 4096.0);
            values.push(((state >> 40) as i64 - (1 << 23)) as f64 * 0.25);
        }
        for (origin, size) in [(0.0, 1.0), (-3.7, 9.6), (12.5, 0.3), (-1e6, 64.0)] {
            let mut p = onepath_format::NavMeshParams::new([origin, 0.0, -origin], size, 0.25, 6);
            p.walkable_climb = 0.5;
            for &v in &values {
                assert_eq!(
                    world_to_tile(&p, v, -v),
                    p.world_to_tile(v, -v),
                    "{v:e} (origin {origin}, tile size {size})"
                );
            }
        }
    }

    const SQUARE: [Vec3; 4] = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0],
    ];

    #[test]
    fn the_coordinate_rule_answers_as_the_format_does() {
        let b = onepath_format::COORD_BOUND;
        let values = [
            0.0,
            -0.0,
            1.5,
            b,
            -b,
            b - 1.0,
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
        ];
        for &x in &values {
            for &z in &values {
                for p in [[x, 0.0, z], [0.0, x, z], [z, x, 0.0]] {
                    // Debug text: a NaN value compares unequal to itself.
                    assert_eq!(
                        format!("{:?}", check_point("pos", p)),
                        format!("{:?}", onepath_format::NavMeshParams::check_point("pos", p))
                    );
                }
            }
        }
    }

    #[test]
    fn counter_clockwise_interior_is_left_of_every_edge() {
        assert!(point_in_poly_2d([0.5, 0.0, 0.5], &SQUARE));
        assert!(point_in_poly_2d([1.0, 0.0, 0.5], &SQUARE));
        assert!(!point_in_poly_2d([1.5, 0.0, 0.5], &SQUARE));
    }

    #[test]
    fn clipping_names_the_exit_edge() {
        let (tmin, tmax, _, exit) =
            clip_segment_poly_2d([0.5, 0.0, 0.5], [2.5, 0.0, 0.5], &SQUARE).unwrap();
        assert_eq!((tmin, tmax, exit), (0.0, 0.25, Some(1)));
        assert!(clip_segment_poly_2d([2.0, 0.0, 0.0], [3.0, 0.0, 1.0], &SQUARE).is_none());
    }

    #[test]
    fn triangle_height_interpolates_the_plane() {
        let h = triangle_height(
            [0.25, 0.0, 0.25],
            [0.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 2.0, 1.0],
        );
        assert_eq!(h, Some(0.75));
        assert_eq!(
            triangle_height([2.0, 0.0, 2.0], [0.0; 3], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
            None
        );
    }

    #[test]
    fn segments_cross_at_their_parameters() {
        let (s, t) = intersect_segments_2d(
            [0.0, 0.0, 0.0],
            [2.0, 0.0, 0.0],
            [1.0, 0.0, -1.0],
            [1.0, 0.0, 3.0],
        )
        .unwrap();
        assert_eq!((s, t), (0.5, 0.25));
    }
}
