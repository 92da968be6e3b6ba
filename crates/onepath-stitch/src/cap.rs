//! The per-tile cap on portal links: what one tile may cost to stitch, checked before
//! any link is made.
//!
//! The format lets a tile's polygons overlap, so n thin triangles facing n others along
//! one boundary make n² portal links (a 296 KB mesh of two such tiles held 32 M links).
//! Stitching finds them in O(n log n + links), but the links themselves stay quadratic. The
//! cap bounds them by the edges: on every side of a tile, the pairs of portal edges whose
//! boundary intervals overlap (every pair the portal test can accept, so at least the
//! links) must not exceed [`PORTAL_LINKS_PER_EDGE`] × (own portal edges + facing portal
//! edges of every layer across). Counting the pairs takes two sorts and a binary search
//! per edge, O(n log n) time and O(n) memory whatever the count, so a hostile tile is
//! refused for the price of reading its edges. The pairs and the bound are symmetric in
//! the two sides of a boundary: a boundary over the cap fails for both its tiles.
//!
//! Why 64: the portal edges of one floor of a tile (polygons that do not overlap) have
//! intervals that do not overlap among themselves, and two such sets of n and m intervals
//! overlap in at most n + m − 1 pairs (each overlapping pair ends at least one of them in a
//! sweep). A side of F floors against a column of at most F floors across has at most
//! F·(own + facing) pairs: the cap admits every tile of up to 64 floors stacked over one
//! boundary, far beyond what a build makes (the landed meshes stay well inside it: their
//! stitching is unchanged, the cap only refuses).

use crate::portals::{neighbour_column, opposite_side, portal_edges, PortalEdge};
use crate::tiles::TileSet;

/// The cap's factor: per side, overlapping pairs ≤ this × (own + facing portal edges).
pub const PORTAL_LINKS_PER_EDGE: u64 = 64;

/// A tile refused by the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StitchError {
    /// A side of a tile has more overlapping portal edge pairs than the cap allows.
    PortalLinkCap {
        /// The tile's slot.
        slot: u32,
        /// Its column, row and layer.
        position: (i32, i32, u16),
        /// The side (0: +X, 1: +Z, 2: −X, 3: −Z).
        side: u8,
        /// Overlapping pairs on that side (an upper bound of its portal links).
        pairs: u64,
        /// The side's own portal edges.
        own_edges: u64,
        /// The facing portal edges of every layer across.
        facing_edges: u64,
        /// The cap: [`PORTAL_LINKS_PER_EDGE`] × (own + facing edges).
        bound: u64,
    },
}

impl std::fmt::Display for StitchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            StitchError::PortalLinkCap {
                slot,
                position,
                side,
                pairs,
                own_edges,
                facing_edges,
                bound,
            } => write!(
                f,
                "tile in slot {slot} at ({}, {}, layer {}): side {side} would make up to \
                 {pairs} portal links from {own_edges} portal edges against {facing_edges} \
                 across, above the cap of {bound} ({PORTAL_LINKS_PER_EDGE} per edge)",
                position.0, position.1, position.2
            ),
        }
    }
}

impl std::error::Error for StitchError {}

/// What the cap found on the sides of a tile that passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TileCheck {
    /// Per side: overlapping portal edge pairs (an upper bound of its portal links).
    pub pairs: [u64; 4],
    /// Per side: the cap.
    pub bound: [u64; 4],
}

/// The boundary interval [lo, hi] of an edge when it can link (hi > lo; NaN never can).
fn interval(e: &PortalEdge) -> Option<(f64, f64)> {
    let (lo, hi) = (e.u0.min(e.u1), e.u0.max(e.u1));
    (hi > lo).then_some((lo, hi))
}

/// The number of pairs of `a` × `b` whose boundary intervals overlap with hi > lo (the
/// pairs [`crate::portal_overlap`] puts to its height test), counted without visiting
/// them: for an interval (lo, hi) of `a`, the intervals of `b` starting below hi minus
/// those ending at or below lo (all of which start below hi too). O((n + m) log m).
pub fn overlapping_pair_count(a: &[PortalEdge], b: &[PortalEdge]) -> u64 {
    let mut starts: Vec<f64> = Vec::with_capacity(b.len());
    let mut ends: Vec<f64> = Vec::with_capacity(b.len());
    for (lo, hi) in b.iter().filter_map(interval) {
        starts.push(lo);
        ends.push(hi);
    }
    starts.sort_unstable_by(f64::total_cmp);
    ends.sort_unstable_by(f64::total_cmp);
    a.iter()
        .filter_map(interval)
        .map(|(lo, hi)| {
            // `<` on finite values; −0.0 and +0.0 compare equal here, as in the test.
            let started = starts.partition_point(|&s| s < hi);
            let ended = ends.partition_point(|&e| e <= lo);
            (started - ended) as u64
        })
        .sum()
}

/// Checks the tile in `slot` against the cap (a free slot passes with zero counts).
pub fn check_tile(set: &TileSet<'_>, slot: u32) -> Result<TileCheck, StitchError> {
    let mut out = TileCheck::default();
    let Some(st) = set.get(slot) else {
        return Ok(out);
    };
    let d = st.tile.data();
    for side in 0..4u8 {
        let own = portal_edges(st.tile, side);
        if own.is_empty() {
            continue;
        }
        let Some((nx, nz)) = neighbour_column(d.tile_x, d.tile_z, side) else {
            continue;
        };
        let (mut pairs, mut facing) = (0u64, 0u64);
        for &(_, ns) in set.column(nx, nz) {
            if let Some(nt) = set.get(ns) {
                let edges = portal_edges(nt.tile, opposite_side(side));
                facing += edges.len() as u64;
                pairs = pairs.saturating_add(overlapping_pair_count(&own, &edges));
            }
        }
        let own_edges = own.len() as u64;
        let bound = PORTAL_LINKS_PER_EDGE.saturating_mul(own_edges.saturating_add(facing));
        if pairs > bound {
            return Err(StitchError::PortalLinkCap {
                slot,
                position: st.tile.position(),
                side,
                pairs,
                own_edges,
                facing_edges: facing,
                bound,
            });
        }
        out.pairs[usize::from(side)] = pairs;
        out.bound[usize::from(side)] = bound;
    }
    Ok(out)
}

/// Checks every tile of `slots` against the cap, in the order given; the first refused
/// tile's error.
pub fn check_tiles(set: &TileSet<'_>, slots: &[u32]) -> Result<(), StitchError> {
    for &slot in slots {
        check_tile(set, slot)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::portals::overlapping_pairs;

    fn edge(u0: f64, u1: f64) -> PortalEdge {
        PortalEdge {
            poly: 0,
            edge: 0,
            u0,
            u1,
            h0: 0.0,
            h1: 0.0,
        }
    }

    #[test]
    fn the_count_equals_the_pairs_the_sweep_visits() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..200 {
            // Coarse coordinates, so that touching, equal and zero-length intervals occur;
            // a NaN and signed zeros now and then.
            let mut pick = |n: u64| -> Vec<PortalEdge> {
                (0..n)
                    .map(|_| {
                        let u = |v: u64| match v % 13 {
                            0 => -0.0,
                            1 => f64::NAN,
                            w => (w % 9) as f64 - 4.0,
                        };
                        edge(u(next()), u(next()))
                    })
                    .collect()
            };
            let (a, b) = (pick(case % 17), pick(case % 23));
            let mut visited = 0u64;
            overlapping_pairs(&a, &b, |_, _| visited += 1);
            assert_eq!(overlapping_pair_count(&a, &b), visited, "case {case}");
            assert_eq!(overlapping_pair_count(&b, &a), visited, "case {case}");
        }
    }

    #[test]
    fn touching_intervals_are_not_counted() {
        let a = [edge(0.0, 1.0), edge(2.0, 1.0)];
        let b = [edge(1.0, 2.0), edge(-0.0, 0.0), edge(0.5, 1.5)];
        // (0,1)–(0.5,1.5), (1,2)–(1,2), (1,2)–(0.5,1.5).
        assert_eq!(overlapping_pair_count(&a, &b), 3);
    }
}
