//! The small X/Z vector arithmetic of the crowd: `+ − × ÷ sqrt` only, in a fixed order.

use onepath_mesh::query::Vec3;

pub(crate) const ZERO: Vec3 = [0.0, 0.0, 0.0];

pub(crate) fn add(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub(crate) fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn scale(a: Vec3, s: f64) -> Vec3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// `a + b·s`, as two operations (never a fused multiply-add).
pub(crate) fn mad(a: Vec3, b: Vec3, s: f64) -> Vec3 {
    [a[0] + b[0] * s, a[1] + b[1] * s, a[2] + b[2] * s]
}

pub(crate) fn lerp(a: Vec3, b: Vec3, t: f64) -> Vec3 {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

pub(crate) fn len_sqr(a: Vec3) -> f64 {
    a[0] * a[0] + a[1] * a[1] + a[2] * a[2]
}

pub(crate) fn dot_2d(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[2] * b[2]
}

/// `a.z·b.x − a.x·b.z`.
pub(crate) fn perp_2d(a: Vec3, b: Vec3) -> f64 {
    a[2] * b[0] - a[0] * b[2]
}

pub(crate) fn dist_sqr_2d(a: Vec3, b: Vec3) -> f64 {
    let (dx, dz) = (b[0] - a[0], b[2] - a[2]);
    dx * dx + dz * dz
}

pub(crate) fn dist_2d(a: Vec3, b: Vec3) -> f64 {
    dist_sqr_2d(a, b).sqrt()
}

pub(crate) fn len_2d(a: Vec3) -> f64 {
    (a[0] * a[0] + a[2] * a[2]).sqrt()
}

/// The X/Z part of `a` scaled to unit length (zero stays zero); Y is 0.
pub(crate) fn normalize_2d(a: Vec3) -> Vec3 {
    let l = len_2d(a);
    if l > 0.0 {
        [a[0] / l, 0.0, a[2] / l]
    } else {
        ZERO
    }
}

/// Twice the signed area of triangle `a b c` in X/Z (positive when `c` is left of `a → b`
/// in the crowd's convention, which is Detour's).
pub(crate) fn tri_area_2d(a: Vec3, b: Vec3, c: Vec3) -> f64 {
    let (abx, abz) = (b[0] - a[0], b[2] - a[2]);
    let (acx, acz) = (c[0] - a[0], c[2] - a[2]);
    acx * abz - abx * acz
}

/// Squared X/Z distance from `p` to segment `a → b`.
pub(crate) fn dist_pt_seg_sqr_2d(p: Vec3, a: Vec3, b: Vec3) -> f64 {
    let (abx, abz) = (b[0] - a[0], b[2] - a[2]);
    let (dx, dz) = (p[0] - a[0], p[2] - a[2]);
    let d = abx * abx + abz * abz;
    let mut t = abx * dx + abz * dz;
    if d > 0.0 {
        t /= d;
    }
    let t = t.clamp(0.0, 1.0);
    let (ex, ez) = (a[0] + t * abx - p[0], a[2] + t * abz - p[2]);
    ex * ex + ez * ez
}

/// [`crate::CrowdError::NotFinite`] naming the first coordinate of `a` that is not finite
/// (`names`: the argument's axes, e.g. `target.x`, `target.y`, `target.z`).
pub(crate) fn check_finite(names: [&'static str; 3], a: Vec3) -> Result<(), crate::CrowdError> {
    match names.into_iter().zip(a).find(|(_, v)| !v.is_finite()) {
        Some((what, _)) => Err(crate::CrowdError::NotFinite { what }),
        None => Ok(()),
    }
}
