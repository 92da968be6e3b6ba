//! The plane geometry of the interval search, in X/Z: the exact orientation predicate, the
//! split of a polygon edge into the parts a root sees through an interval and the parts it
//! does not, and the interval heuristic.
//!
//! Every decision that changes which successors exist is a sign of [`orient`], which is
//! exact for the f64 inputs it gets. Cut points (where a ray from the root meets an edge)
//! are rounded f64 values; later decisions are exact on those rounded points.

use crate::query::geom::Vec3;

/// Twice the signed area of (a, b, c) in X/Z with an exact sign (Shewchuk's adaptive
/// predicate): positive when `c` lies left of `a → b` (counter-clockwise, X right, Z up),
/// zero exactly when the three points are collinear.
#[inline]
pub(super) fn orient(a: Vec3, b: Vec3, c: Vec3) -> f64 {
    robust::orient2d(
        robust::Coord { x: a[0], y: a[2] },
        robust::Coord { x: b[0], y: b[2] },
        robust::Coord { x: c[0], y: c[2] },
    )
}

/// Euclidean distance in X/Z.
#[inline]
pub(super) fn dist_2d(a: Vec3, b: Vec3) -> f64 {
    let dx = b[0] - a[0];
    let dz = b[2] - a[2];
    (dx * dx + dz * dz).sqrt()
}

/// A closed parameter range `lo..=hi` along an edge, `0 <= lo <= hi <= 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Span {
    pub lo: f64,
    pub hi: f64,
}

/// Where the linear function through `sa` (at t = 0) and `sb` (at t = 1) is zero, for
/// values of opposite signs; clamped into 0..=1 against rounding.
fn cut(sa: f64, sb: f64) -> f64 {
    (sa / (sa - sb)).clamp(0.0, 1.0)
}

/// The part of 0..=1 where the linear function through `sa` (t = 0) and `sb` (t = 1) is
/// `>= 0` (`None` when empty).
fn nonneg(sa: f64, sb: f64) -> Option<Span> {
    match (sa >= 0.0, sb >= 0.0) {
        (true, true) => Some(Span { lo: 0.0, hi: 1.0 }),
        (false, false) => None,
        (false, true) => Some(Span {
            lo: cut(sa, sb),
            hi: 1.0,
        }),
        (true, false) => Some(Span {
            lo: 0.0,
            hi: cut(sa, sb),
        }),
    }
}

fn intersect(a: Option<Span>, b: Option<Span>) -> Option<Span> {
    let (a, b) = (a?, b?);
    let s = Span {
        lo: a.lo.max(b.lo),
        hi: a.hi.min(b.hi),
    };
    (s.lo <= s.hi).then_some(s)
}

/// How the segment `a → b` (a the right end, b the left end, as seen from `root`) splits
/// for a root looking through the interval from `right` to `left`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct EdgeSplit {
    /// Seen from the root through the interval: left of (or on) the ray root → right and
    /// right of (or on) the ray root → left.
    pub seen: Option<Span>,
    /// Right of (or on) the ray root → right, of positive length: reached by turning at
    /// `right`.
    pub right_hidden: Option<Span>,
    /// Left of (or on) the ray root → left, of positive length: reached by turning at
    /// `left`.
    pub left_hidden: Option<Span>,
}

/// Splits segment `a → b` of the polygon being entered for a root `root` looking through
/// the interval `right`..`left` (see [`EdgeSplit`]). A part lying on a ray (the root sees it
/// edge-on, so sees nothing through it) is both seen and hidden: the successor that keeps
/// the root is dropped as edge-on, the one that turns at the interval's end sees through.
pub(super) fn split_edge(root: Vec3, right: Vec3, left: Vec3, a: Vec3, b: Vec3) -> EdgeSplit {
    let (ra, rb) = (orient(root, right, a), orient(root, right, b));
    let (la, lb) = (orient(root, left, a), orient(root, left, b));
    let right_ok = nonneg(ra, rb);
    // Right of the left ray is where orient(root, left, x) <= 0.
    let left_ok = nonneg(-la, -lb);
    let proper = |s: Option<Span>| s.filter(|s| s.lo < s.hi);
    EdgeSplit {
        seen: intersect(right_ok, left_ok),
        right_hidden: proper(nonneg(-ra, -rb)),
        left_hidden: proper(nonneg(la, lb)),
    }
}

/// The point at parameter `t` of `a → b`: exactly `a` at 0 and `b` at 1.
pub(super) fn at(a: Vec3, b: Vec3, t: f64) -> Vec3 {
    if t <= 0.0 {
        a
    } else if t >= 1.0 {
        b
    } else {
        [
            a[0] + (b[0] - a[0]) * t,
            a[1] + (b[1] - a[1]) * t,
            a[2] + (b[2] - a[2]) * t,
        ]
    }
}

/// True when `p` lies on the closed segment `a`..`b` it is collinear with (a bounding-box
/// test; the caller has checked collinearity exactly).
pub(super) fn within(p: Vec3, a: Vec3, b: Vec3) -> bool {
    p[0] >= a[0].min(b[0])
        && p[0] <= a[0].max(b[0])
        && p[2] >= a[2].min(b[2])
        && p[2] <= a[2].max(b[2])
}

/// True when `p` is seen from `root` through the interval `right`..`left`: left of (or on)
/// the ray root → right and right of (or on) the ray root → left.
pub(super) fn in_cone(root: Vec3, right: Vec3, left: Vec3, p: Vec3) -> bool {
    orient(root, right, p) >= 0.0 && orient(root, left, p) <= 0.0
}

/// A lower bound of the length of any path from `root` through the segment `right`..`left`
/// to `goal` (Polyanya's interval heuristic): the goal is mirrored across the segment's line
/// when it lies on the root's side; the bound is the straight distance when the line to the
/// (mirrored) goal passes through the segment, else the distance through the nearer end.
pub(super) fn interval_heuristic(root: Vec3, right: Vec3, left: Vec3, goal: Vec3) -> f64 {
    let side_root = orient(right, left, root);
    let side_goal = orient(right, left, goal);
    let g = if (side_root > 0.0 && side_goal > 0.0) || (side_root < 0.0 && side_goal < 0.0) {
        mirror(goal, right, left)
    } else {
        goal
    };
    // Float signs suffice here: either branch is a lower bound up to rounding, which the
    // search's heuristic scale absorbs.
    let cr = cross(root, right, g);
    let cl = cross(root, left, g);
    if cr >= 0.0 && cl <= 0.0 {
        dist_2d(root, g)
    } else if cr < 0.0 {
        dist_2d(root, right) + dist_2d(right, g)
    } else {
        dist_2d(root, left) + dist_2d(left, g)
    }
}

fn cross(a: Vec3, b: Vec3, c: Vec3) -> f64 {
    (b[0] - a[0]) * (c[2] - a[2]) - (b[2] - a[2]) * (c[0] - a[0])
}

/// `p` mirrored across the line through `a` and `b` (in X/Z; `a != b`).
fn mirror(p: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    let dx = b[0] - a[0];
    let dz = b[2] - a[2];
    let len2 = dx * dx + dz * dz;
    if !(len2 > 0.0) {
        return p;
    }
    let t = ((p[0] - a[0]) * dx + (p[2] - a[2]) * dz) / len2;
    let fx = a[0] + dx * t;
    let fz = a[2] + dz * t;
    [fx + (fx - p[0]), p[1], fz + (fz - p[2])]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orient_is_positive_counter_clockwise_and_exactly_zero_when_collinear() {
        assert!(orient([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]) > 0.0);
        assert!(orient([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]) < 0.0);
        // 0.1 + 0.2 != 0.3 in f64, yet the points are collinear exactly as given.
        let a = [0.1, 0.0, 0.1];
        let b = [0.2, 0.0, 0.2];
        let c = [0.7, 0.0, 0.7];
        assert_eq!(orient(a, b, c), 0.0);
    }

    #[test]
    fn a_far_edge_splits_into_right_hidden_seen_and_left_hidden_parts() {
        // Root below the entry segment (0,0)..(2,0) looking up through (0.5,0)..(1.5,0);
        // the far edge runs from (4,2) (right end) to (-2,2) (left end).
        let root = [1.0, 0.0, -1.0];
        let (right, left) = ([1.5, 0.0, 0.0], [0.5, 0.0, 0.0]);
        let s = split_edge(root, right, left, [4.0, 0.0, 2.0], [-2.0, 0.0, 2.0]);
        // Rays cross z = 2 at x = 2.5 and x = -0.5: t = 1.5 / 6 and 4.5 / 6.
        let seen = s.seen.unwrap();
        assert!((seen.lo - 0.25).abs() < 1e-15 && (seen.hi - 0.75).abs() < 1e-15);
        assert_eq!(s.right_hidden.unwrap().lo, 0.0);
        assert_eq!(s.left_hidden.unwrap().hi, 1.0);
    }

    #[test]
    fn the_heuristic_is_straight_through_the_interval_and_bends_round_its_ends() {
        let root = [0.0, 0.0, 0.0];
        let (right, left) = ([1.0, 0.0, 1.0], [-1.0, 0.0, 1.0]);
        assert_eq!(interval_heuristic(root, right, left, [0.0, 0.0, 3.0]), 3.0);
        // The goal on the root's side is mirrored to (0, 2).
        assert_eq!(interval_heuristic(root, right, left, [0.0, 0.0, 0.0]), 2.0);
        // Right of the cone: through the right end.
        let h = interval_heuristic(root, right, left, [4.0, 0.0, 1.0]);
        assert_eq!(h, 2f64.sqrt() + 3.0);
    }
}
