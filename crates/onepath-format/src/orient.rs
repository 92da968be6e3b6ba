//! The exact orientation predicate every polygon rule (and the stitcher and queries) uses.
//!
//! Coordinates are `f32`; they convert to `f64` exactly and Shewchuk's adaptive predicate
//! (`robust::orient2d`) then evaluates the sign of the determinant exactly: every term of its
//! expansions is a multiple of 2^-298 and below 2^256 for finite `f32` input, so neither
//! underflow nor overflow can occur. The result is the same on every platform.

use std::cmp::Ordering;

/// The exact orientation of `c` relative to the directed line `a → b` in the X/Z plane
/// (`[x, z]` pairs, X right and Z up).
///
/// Returns [`Ordering::Greater`] when `c` lies strictly left of `a → b` (the triple turns
/// counter-clockwise: `(b − a) × (c − a) > 0`), [`Ordering::Less`] when strictly right, and
/// [`Ordering::Equal`] when the three points are collinear, all decided exactly. Inputs must
/// be finite (tile validation rejects NaN and infinities before it orients anything); for a
/// non-finite input the answer is unspecified but the function does not panic.
///
/// ```
/// use std::cmp::Ordering;
/// use onepath_format::orient2d_exact;
/// assert_eq!(orient2d_exact([0.0, 0.0], [1.0, 0.0], [0.0, 1.0]), Ordering::Greater);
/// assert_eq!(orient2d_exact([0.0, 0.0], [1.0, 1.0], [3.0, 3.0]), Ordering::Equal);
/// ```
pub fn orient2d_exact(a: [f32; 2], b: [f32; 2], c: [f32; 2]) -> Ordering {
    let det = robust::orient2d(
        robust::Coord {
            x: f64::from(a[0]),
            y: f64::from(a[1]),
        },
        robust::Coord {
            x: f64::from(b[0]),
            y: f64::from(b[1]),
        },
        robust::Coord {
            x: f64::from(c[0]),
            y: f64::from(c[1]),
        },
    );
    // `det` is exact in sign; NaN (non-finite input) compares as collinear.
    det.partial_cmp(&0.0).unwrap_or(Ordering::Equal)
}

/// The X/Z pair of a tile-local vertex.
pub(crate) fn xz(v: [f32; 3]) -> [f32; 2] {
    [v[0], v[2]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn left_right_and_collinear() {
        assert_eq!(
            orient2d_exact([0.0, 0.0], [2.0, 0.0], [1.0, -1.0]),
            Ordering::Less
        );
        assert_eq!(
            orient2d_exact([0.0, 0.0], [2.0, 0.0], [5.0, 0.0]),
            Ordering::Equal
        );
    }

    #[test]
    fn nearly_collinear_is_decided_exactly() {
        // c is one f32 ulp above the line z = x at x = 1 + ulp; a naive f32 evaluation
        // rounds the determinant to zero.
        let e = f32::EPSILON;
        let a = [0.5f32, 0.5];
        let b = [12.0f32, 12.0];
        let c = [1.0 + e, 1.0 + 2.0 * e];
        assert_eq!(orient2d_exact(a, b, c), Ordering::Greater);
        assert_eq!(orient2d_exact(a, c, b), Ordering::Less);
    }

    #[test]
    fn subnormal_coordinates_are_exact() {
        let t = f32::from_bits(1); // smallest subnormal
        assert_eq!(
            orient2d_exact([0.0, 0.0], [t, 0.0], [0.0, t]),
            Ordering::Greater
        );
    }
}
