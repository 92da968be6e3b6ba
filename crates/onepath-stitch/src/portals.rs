//! Portal links: polygons of neighbouring tile columns joined along the shared tile
//! boundary ("Stitching (links)", "Portals").

pub use onepath_format::tile::{boundary_axis, PortalEdge};
use onepath_format::NavTile;

/// (dx, dz) of the neighbouring column across side 0..=3.
pub const SIDE_OFFSETS: [(i32, i32); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

/// The side facing `side` from the neighbouring column (`side ⊕ 2`).
pub fn opposite_side(side: u8) -> u8 {
    side ^ 2
}

/// The column across `side` of (x, z), or `None` when it is outside the i32 range.
pub fn neighbour_column(x: i32, z: i32, side: u8) -> Option<(i32, i32)> {
    let (dx, dz) = SIDE_OFFSETS[usize::from(side & 3)];
    Some((x.checked_add(dx)?, z.checked_add(dz)?))
}

/// The portal edges of `tile` on `side`, in portal order (corner order: polygon, then edge):
/// a copy of the tile's own table ([`NavTile::portal_edges`]).
pub fn portal_edges(tile: &NavTile, side: u8) -> Vec<PortalEdge> {
    tile.portal_edges(side).to_vec()
}

/// The portal edges of `tile` on each of its four sides: element `s` is exactly
/// [`portal_edges`]`(tile, s)`.
pub fn portal_edges_by_side(tile: &NavTile) -> [Vec<PortalEdge>; 4] {
    std::array::from_fn(|s| portal_edges(tile, s as u8))
}

/// Edge `k` of polygon `p` as a portal edge along `axis` (0 = X, 2 = Z; see
/// [`boundary_axis`]); `None` if an index is out of range
/// (a validated tile never has one).
pub fn edge_at(tile: &NavTile, p: usize, k: usize, axis: usize) -> Option<PortalEdge> {
    let d = tile.data();
    let corners = tile.poly_corners(p);
    let n = corners.len();
    let a = *d
        .vertices
        .get(usize::from(*d.corners.get(corners.start + k)?))?;
    let b = *d
        .vertices
        .get(usize::from(*d.corners.get(corners.start + (k + 1) % n)?))?;
    Some(PortalEdge::between(
        (p as u32, k as u8),
        a,
        b,
        axis,
        d.origin_y,
    ))
}

/// The result of the portal test between edge `a` and edge `b` of facing sides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PortalOverlap {
    /// Lower end of the common boundary interval.
    pub lo: f64,
    /// Upper end of the common boundary interval.
    pub hi: f64,
    /// Covered part of `a` from its first vertex, 1/255ths, floor.
    pub range_min: u8,
    /// Covered part of `a` from its first vertex, 1/255ths, ceil.
    pub range_max: u8,
}

/// The portal test of "Stitching (links)": the u intervals overlap with `hi > lo`, and the
/// interpolated world heights of both edges differ by at most `climb` at `lo` and at `hi`.
/// The test is symmetric in `a` and `b`; the ranges are measured along `a`.
pub fn portal_overlap(a: &PortalEdge, b: &PortalEdge, climb: f64) -> Option<PortalOverlap> {
    let lo = a.lo().max(b.lo());
    let hi = a.hi().min(b.hi());
    // `!(hi > lo)` also rejects NaN and zero-length edges before any division.
    if !(hi > lo) {
        return None;
    }
    for u in [lo, hi] {
        let diff = (a.height_at(u) - b.height_at(u)).abs();
        if !(diff <= climb) {
            return None;
        }
    }
    let t_lo = a.param_at(lo);
    let t_hi = a.param_at(hi);
    let (tmin, tmax) = if t_lo <= t_hi {
        (t_lo, t_hi)
    } else {
        (t_hi, t_lo)
    };
    Some(PortalOverlap {
        lo,
        hi,
        range_min: quantize((tmin * 255.0).floor()),
        range_max: quantize((tmax * 255.0).ceil()),
    })
}

/// Calls `visit(i, j)` exactly once for every pair of `a[i]` and `b[j]` whose boundary
/// intervals overlap with `hi > lo` (the first condition of [`portal_overlap`], so every
/// pair that test accepts is among them), and for no other pair: a sweep over the sorted
/// interval ends, O((n + m) log(n + m) + pairs).
///
/// The order of the visits is unspecified but a function of the inputs; callers sort what
/// they keep.
pub(crate) fn overlapping_pairs(
    a: &[PortalEdge],
    b: &[PortalEdge],
    mut visit: impl FnMut(usize, usize),
) {
    // (coordinate, 0 for an end / 1 for a start, 0 for `a` / 1 for `b`, index). `+ 0.0`
    // turns −0.0 into +0.0 so that `total_cmp` orders equal coordinates together; at an
    // equal coordinate ends come first, so touching intervals never meet.
    let mut events: Vec<(f64, u8, u8, u32)> = Vec::with_capacity(2 * (a.len() + b.len()));
    for (set, edges) in [(0u8, a), (1u8, b)] {
        for (i, e) in edges.iter().enumerate() {
            let (lo, hi) = (e.lo(), e.hi());
            // Zero-length (or NaN) intervals never link: `portal_overlap` needs `hi > lo`.
            if hi > lo {
                events.push((lo + 0.0, 1, set, i as u32));
                events.push((hi + 0.0, 0, set, i as u32));
            }
        }
    }
    events.sort_unstable_by(|x, y| {
        x.0.total_cmp(&y.0)
            .then(x.1.cmp(&y.1))
            .then(x.2.cmp(&y.2))
            .then(x.3.cmp(&y.3))
    });
    // The open intervals of each side, with each member's place for O(1) removal.
    let mut open: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
    let mut place: [Vec<u32>; 2] = [vec![0; a.len()], vec![0; b.len()]];
    for &(_, kind, set, i) in &events {
        let s = usize::from(set);
        if kind == 1 {
            // Every interval still open on the other side started at or before this one and
            // ends after it starts: an overlap with hi > lo.
            for &j in &open[1 - s] {
                if s == 0 {
                    visit(i as usize, j as usize);
                } else {
                    visit(j as usize, i as usize);
                }
            }
            place[s][i as usize] = open[s].len() as u32;
            open[s].push(i);
        } else {
            let at = place[s][i as usize] as usize;
            open[s].swap_remove(at);
            if let Some(&moved) = open[s].get(at) {
                place[s][moved as usize] = at as u32;
            }
        }
    }
}

fn quantize(v: f64) -> u8 {
    if v <= 0.0 {
        0
    } else if v >= 255.0 {
        255
    } else {
        v as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(u0: f64, u1: f64, h0: f64, h1: f64) -> PortalEdge {
        PortalEdge {
            poly: 0,
            edge: 0,
            u0,
            u1,
            h0,
            h1,
        }
    }

    #[test]
    fn range_is_floor_and_ceil_of_the_covered_parameters_from_the_first_vertex() {
        // A runs from u = 0 to u = 10; B covers 3..7: t = 0.3 and 0.7.
        // 0.3·255 = 76.5 -> floor 76; 0.7·255 = 178.5 -> ceil 179.
        let a = edge(0.0, 10.0, 0.0, 0.0);
        let b = edge(7.0, 3.0, 0.0, 0.0);
        let o = portal_overlap(&a, &b, 0.0).unwrap();
        assert_eq!((o.lo, o.hi), (3.0, 7.0));
        assert_eq!((o.range_min, o.range_max), (76, 179));
        // Measured from A's first vertex: reversing A mirrors the range.
        let a_rev = edge(10.0, 0.0, 0.0, 0.0);
        let o = portal_overlap(&a_rev, &b, 0.0).unwrap();
        assert_eq!((o.range_min, o.range_max), (76, 179));
        let b2 = edge(0.0, 2.0, 0.0, 0.0);
        let o = portal_overlap(&a_rev, &b2, 0.0).unwrap();
        // t from 10 down: u=0 -> 1.0, u=2 -> 0.8: 204..255.
        assert_eq!((o.range_min, o.range_max), (204, 255));
    }

    #[test]
    fn full_cover_is_0_to_255() {
        let a = edge(2.0, 6.0, 1.0, 1.0);
        let b = edge(8.0, 0.0, 1.0, 1.0);
        let o = portal_overlap(&a, &b, 0.0).unwrap();
        assert_eq!((o.range_min, o.range_max), (0, 255));
    }

    #[test]
    fn touching_intervals_do_not_link() {
        let a = edge(0.0, 4.0, 0.0, 0.0);
        let b = edge(4.0, 8.0, 0.0, 0.0);
        assert_eq!(portal_overlap(&a, &b, 1.0), None);
    }

    #[test]
    fn climb_is_checked_at_both_ends_of_the_overlap() {
        // A is flat at 0; B rises from 0 at u=0 to 2 at u=4; overlap 0..4.
        let a = edge(0.0, 4.0, 0.0, 0.0);
        let b = edge(4.0, 0.0, 2.0, 0.0);
        assert_eq!(portal_overlap(&a, &b, 1.5), None);
        assert!(portal_overlap(&a, &b, 2.0).is_some());
        // Interpolated: B covering only 0..2 of a rising A (0 -> 4 over 0..4) at height 0.
        let a = edge(0.0, 4.0, 0.0, 4.0);
        let b = edge(2.0, 0.0, 0.0, 0.0);
        assert!(portal_overlap(&a, &b, 2.0).is_some());
        assert_eq!(portal_overlap(&a, &b, 1.999), None);
    }

    #[test]
    fn test_is_symmetric() {
        let a = edge(0.5, 9.25, 3.0, 1.0);
        let b = edge(12.0, 1.0, 2.5, 2.0);
        for climb in [0.0, 0.5, 1.0, 2.0] {
            assert_eq!(
                portal_overlap(&a, &b, climb).is_some(),
                portal_overlap(&b, &a, climb).is_some()
            );
        }
    }
}
