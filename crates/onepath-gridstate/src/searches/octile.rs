//! Exact octile costs: a cost is a pair (a, b) meaning `a + b·√2` (a straight steps, b
//! diagonal steps), compared exactly with integer arithmetic.

use std::cmp::Ordering;
use std::f64::consts::SQRT_2;

/// `a + b·√2` for non-negative step counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StepPair {
    /// Straight steps.
    pub straight: u32,
    /// Diagonal steps.
    pub diagonal: u32,
}

impl StepPair {
    /// A pair.
    pub const fn new(straight: u32, diagonal: u32) -> Self {
        StepPair { straight, diagonal }
    }

    /// The cost as f64: `straight + diagonal × √2` (one rounding of each operation).
    #[inline]
    pub fn to_f64(self) -> f64 {
        pair_f64(self.straight, self.diagonal)
    }

    /// Exact comparison of the two real numbers.
    #[inline]
    pub fn cmp_exact(self, other: StepPair) -> Ordering {
        cmp_pairs(self.straight, self.diagonal, other.straight, other.diagonal)
    }

    /// The octile distance between two cells `(dx, dy)` apart under 8-connectivity.
    #[inline]
    pub fn octile(dx: u32, dy: u32) -> Self {
        let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
        StepPair {
            straight: hi - lo,
            diagonal: lo,
        }
    }

    /// Saturating sum.
    #[inline]
    pub fn saturating_add(self, o: StepPair) -> Self {
        StepPair {
            straight: self.straight.saturating_add(o.straight),
            diagonal: self.diagonal.saturating_add(o.diagonal),
        }
    }
}

/// `a + b·√2` as f64.
#[inline]
pub(crate) fn pair_f64(a: u32, b: u32) -> f64 {
    f64::from(a) + f64::from(b) * SQRT_2
}

/// Exact order of `a1 + b1·√2` and `a2 + b2·√2`.
#[inline]
pub(crate) fn cmp_pairs(a1: u32, b1: u32, a2: u32, b2: u32) -> Ordering {
    // a1 + b1√2 ? a2 + b2√2  ⇔  da ? db·√2 with da = a1 − a2, db = b2 − b1.
    let da = i64::from(a1) - i64::from(a2);
    let db = i64::from(b2) - i64::from(b1);
    if da == 0 && db == 0 {
        return Ordering::Equal;
    }
    if da >= 0 && db <= 0 {
        return Ordering::Greater;
    }
    if da <= 0 && db >= 0 {
        return Ordering::Less;
    }
    // Same signs: compare squares (|da|, |db| < 2^32, so da² < 2^64 fits in i128 safely).
    let l = i128::from(da) * i128::from(da);
    let r = 2 * i128::from(db) * i128::from(db);
    if da > 0 {
        l.cmp(&r)
    } else {
        r.cmp(&l)
    }
}

/// Exact order with a fast path: the f64 approximations decide when they differ by far
/// more than their rounding error.
#[inline]
pub(crate) fn cmp_pairs_fast(f1: f64, a1: u32, b1: u32, f2: f64, a2: u32, b2: u32) -> Ordering {
    let d = f1 - f2;
    let margin = 1e-9 * (1.0 + f1.abs());
    if d > margin {
        Ordering::Greater
    } else if d < -margin {
        Ordering::Less
    } else {
        cmp_pairs(a1, b1, a2, b2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn close_pairs_compare_exactly() {
        // 99 + 70√2 ≈ 197.9949 and 198: 70√2 ≈ 98.99495 < 99.
        assert_eq!(cmp_pairs(99, 70, 198, 0), Ordering::Less);
        assert_eq!(cmp_pairs(0, 70, 99, 0), Ordering::Less);
        assert_eq!(cmp_pairs(0, 29, 41, 0), Ordering::Greater); // 29√2 ≈ 41.012
        assert_eq!(cmp_pairs(3, 4, 3, 4), Ordering::Equal);
    }

    proptest! {
        #[test]
        fn exact_order_matches_high_precision(a1 in 0u32..100_000, b1 in 0u32..100_000,
                                              a2 in 0u32..100_000, b2 in 0u32..100_000) {
            // For these magnitudes distinct pairs differ by > 1e-6, far above f64 error.
            let f1 = pair_f64(a1, b1);
            let f2 = pair_f64(a2, b2);
            let want = if (a1, b1) == (a2, b2) { Ordering::Equal } else { f1.partial_cmp(&f2).unwrap() };
            prop_assert_eq!(cmp_pairs(a1, b1, a2, b2), want);
            prop_assert_eq!(cmp_pairs_fast(f1, a1, b1, f2, a2, b2), want);
        }
    }
}
