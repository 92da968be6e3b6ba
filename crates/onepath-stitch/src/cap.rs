//! The per-tile cap on portal links: what one tile may cost to stitch, checked before
//! any link is made.
//!
//! The format lets a tile's polygons overlap, so n thin triangles facing n others along
//! one boundary make n² portal links (a 296 KB mesh of two such tiles held 32 M links).
//! Stitching finds them in O(n log n + links), but the links themselves stay quadratic. The
//! cap bounds them by the edges: for every tile and every tile facing it across a side
//! (every layer of the neighbouring column), the pairs of their portal edges whose boundary
//! intervals overlap (every pair the portal test can accept, so at least the links between
//! the two tiles) must not exceed [`PORTAL_LINKS_PER_EDGE`] × (the tile's portal edges on
//! that side + the facing tile's on the side facing back). Counting the pairs takes two
//! sorts and a binary search per edge, O(n log n) time and O(n) memory whatever the count,
//! so a hostile tile is refused for the price of reading its edges.
//!
//! The rule is one per pair of facing tiles, symmetric in the two: a pair over the cap
//! refuses both its tiles, and whether a pair passes depends on those two tiles only. So a
//! change that adds a tile needs to check only the pairs the new tile makes, a removal can
//! never put another pair over the cap, and every state a mesh reaches through checked
//! changes passes the check again when it is read back (ONPM, a snapshot).
//!
//! Why 64: the portal edges of one floor of a tile (polygons that do not overlap) have
//! intervals that do not overlap among themselves, and two such sets of n and m intervals
//! overlap in at most n + m − 1 pairs (each overlapping pair ends at least one of them in a
//! sweep). Two tiles of at most F floors each over one boundary have at most F·(n + m)
//! pairs: the cap admits every pair of tiles of up to 64 floors each, far beyond what a
//! build makes (the landed meshes stay well inside it: their stitching is unchanged, the
//! cap only refuses).

use onepath_format::NavTile;

use crate::portals::{neighbour_column, opposite_side, PortalEdge};
use crate::tiles::TileSet;

/// The cap's factor: per pair of facing tiles, overlapping pairs ≤ this × (own + facing
/// portal edges).
pub const PORTAL_LINKS_PER_EDGE: u64 = 64;

/// A tile refused by the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StitchError {
    /// A tile and a tile facing it have more overlapping portal edge pairs than the cap
    /// allows.
    PortalLinkCap {
        /// The tile's slot.
        slot: u32,
        /// Its column, row and layer.
        position: (i32, i32, u16),
        /// The side (0: +X, 1: +Z, 2: −X, 3: −Z).
        side: u8,
        /// The slot of the tile facing it across that side.
        facing_slot: u32,
        /// The facing tile's layer (its column is the neighbour across `side`).
        facing_layer: u16,
        /// Overlapping pairs between the two tiles (an upper bound of their portal links).
        pairs: u64,
        /// The tile's portal edges on that side.
        own_edges: u64,
        /// The facing tile's portal edges on the side facing back.
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
                facing_slot,
                facing_layer,
                pairs,
                own_edges,
                facing_edges,
                bound,
            } => write!(
                f,
                "tile in slot {slot} at ({}, {}, layer {}): side {side} would make up to \
                 {pairs} portal links with the tile in slot {facing_slot} (layer \
                 {facing_layer} across), from {own_edges} portal edges against its \
                 {facing_edges}, above the cap of {bound} ({PORTAL_LINKS_PER_EDGE} per edge)",
                position.0, position.1, position.2
            ),
        }
    }
}

impl std::error::Error for StitchError {}

/// What the cap found on the sides of a tile that passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TileCheck {
    /// Per side: overlapping portal edge pairs against every facing tile (an upper bound
    /// of the side's portal links).
    pub pairs: [u64; 4],
    /// Per side: the sum of the caps of its pairs of facing tiles.
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

/// One pair of facing tiles: `(slot, tile, side, its portal edges on the side)` and
/// `(slot, tile, its portal edges on the side facing back)`. Their overlapping pairs and
/// the cap of the pair, or the refusal of the first tile.
fn check_pair(
    (slot, tile, side, own): (u32, &NavTile, u8, &[PortalEdge]),
    (facing_slot, nt, facing): (u32, &NavTile, &[PortalEdge]),
) -> Result<(u64, u64), StitchError> {
    let (own_edges, facing_edges) = (own.len() as u64, facing.len() as u64);
    let bound = PORTAL_LINKS_PER_EDGE.saturating_mul(own_edges.saturating_add(facing_edges));
    let pairs = overlapping_pair_count(own, facing);
    if pairs > bound {
        return Err(StitchError::PortalLinkCap {
            slot,
            position: tile.position(),
            side,
            facing_slot,
            facing_layer: nt.position().2,
            pairs,
            own_edges,
            facing_edges,
            bound,
        });
    }
    Ok((pairs, bound))
}

/// Checks `tile`, as it would sit in `slot`, against every tile facing it: `facing(x, z)`
/// lists `(slot, tile)` of the tiles of column (x, z) in the state to check, ascending
/// layer. Sides in order 0..=3, facing tiles in the order given; the first pair over the
/// cap is the error. The tile's own column is never asked for, so a caller can check a
/// tile before it enters (or replaces the tile at its position) without changing anything.
pub fn check_tile_with<'t, I>(
    slot: u32,
    tile: &NavTile,
    mut facing: impl FnMut(i32, i32) -> I,
) -> Result<TileCheck, StitchError>
where
    I: IntoIterator<Item = (u32, &'t NavTile)>,
{
    let mut out = TileCheck::default();
    let d = tile.data();
    for side in 0..4u8 {
        let own = tile.portal_edges(side);
        if own.is_empty() {
            continue;
        }
        let Some((nx, nz)) = neighbour_column(d.tile_x, d.tile_z, side) else {
            continue;
        };
        let (mut pairs, mut bound) = (0u64, 0u64);
        for (facing_slot, nt) in facing(nx, nz) {
            let edges = nt.portal_edges(opposite_side(side));
            let (n, pair_bound) = check_pair((slot, tile, side, own), (facing_slot, nt, edges))?;
            pairs = pairs.saturating_add(n);
            bound = bound.saturating_add(pair_bound);
        }
        out.pairs[usize::from(side)] = pairs;
        out.bound[usize::from(side)] = bound;
    }
    Ok(out)
}

/// The number of portal edges of `tile` per side (0..=3): the lengths of its own table
/// ([`NavTile::portal_edges`]).
fn side_counts(tile: &NavTile) -> [u64; 4] {
    std::array::from_fn(|s| tile.portal_edges(s as u8).len() as u64)
}

/// Accepts or refuses `tile` in `slot` exactly as [`check_tile_with`] does (the same
/// error, the first refused pair in the same order), without the counts of the pairs that
/// cannot exceed the cap: two sides of n and m edges have at most n·m overlapping pairs,
/// which is within 64·(n + m) whenever n ≤ 64 or m ≤ 64, so only a pair of two sides of
/// more than 64 portal edges each is counted (and its edges listed). What the mesh runs
/// on every tile that enters it: for ordinary tiles, a count of edges.
pub fn admit_tile_with<'t, I>(
    slot: u32,
    tile: &NavTile,
    mut facing: impl FnMut(i32, i32) -> I,
) -> Result<(), StitchError>
where
    I: IntoIterator<Item = (u32, &'t NavTile)>,
{
    admit_counted(slot, tile, side_counts(tile), |x, z| {
        facing(x, z)
            .into_iter()
            .map(|(s, t)| (s, t, side_counts(t)))
    })
}

/// [`admit_tile_with`] with the tiles' edge counts per side ([`side_counts`]) given.
fn admit_counted<'t, I>(
    slot: u32,
    tile: &NavTile,
    counts: [u64; 4],
    mut facing: impl FnMut(i32, i32) -> I,
) -> Result<(), StitchError>
where
    I: IntoIterator<Item = (u32, &'t NavTile, [u64; 4])>,
{
    let d = tile.data();
    for side in 0..4u8 {
        let own_edges = counts[usize::from(side)];
        if own_edges == 0 {
            continue;
        }
        let Some((nx, nz)) = neighbour_column(d.tile_x, d.tile_z, side) else {
            continue;
        };
        for (facing_slot, nt, facing_counts) in facing(nx, nz) {
            let facing_edges = facing_counts[usize::from(opposite_side(side))];
            let bound =
                PORTAL_LINKS_PER_EDGE.saturating_mul(own_edges.saturating_add(facing_edges));
            if own_edges.saturating_mul(facing_edges) <= bound {
                continue;
            }
            let own = tile.portal_edges(side);
            let edges = nt.portal_edges(opposite_side(side));
            check_pair((slot, tile, side, own), (facing_slot, nt, edges))?;
        }
    }
    Ok(())
}

/// The tiles of column (x, z) of `set` as `(slot, tile)`, ascending layer.
fn set_column<'s, 'a>(
    set: &'s TileSet<'a>,
    x: i32,
    z: i32,
) -> impl Iterator<Item = (u32, &'a NavTile)> + 's {
    set.column(x, z)
        .iter()
        .filter_map(|&(_, s)| set.get(s).map(|t| (s, t.tile)))
}

/// Checks the tile in `slot` of `set` against the cap (a free slot passes with zero
/// counts): [`check_tile_with`] against the tiles of the set.
pub fn check_tile(set: &TileSet<'_>, slot: u32) -> Result<TileCheck, StitchError> {
    let Some(st) = set.get(slot) else {
        return Ok(TileCheck::default());
    };
    check_tile_with(slot, st.tile, |x, z| set_column(set, x, z))
}

/// Checks every tile of `slots` against the cap, in the order given; the first refused
/// tile's error.
pub fn check_tiles(set: &TileSet<'_>, slots: &[u32]) -> Result<(), StitchError> {
    for &slot in slots {
        check_tile(set, slot)?;
    }
    Ok(())
}

/// Checks every tile of `set` in slot order: the error [`check_tiles`] gives over every
/// occupied slot, ascending. Since the rule is one per pair, a state passes exactly when
/// every pair of facing tiles does.
pub fn check_all(set: &TileSet<'_>) -> Result<(), StitchError> {
    // Each tile's edges counted once, not once per tile facing it.
    let counts: Vec<[u64; 4]> = (0..set.slot_len() as u32)
        .map(|s| set.get(s).map_or([0; 4], |t| side_counts(t.tile)))
        .collect();
    let count = |s: u32| counts.get(s as usize).copied().unwrap_or_default();
    for (slot, st) in set.occupied() {
        admit_counted(slot, st.tile, count(slot), |x, z| {
            set_column(set, x, z).map(|(s, t)| (s, t, count(s)))
        })?;
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
