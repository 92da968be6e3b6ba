//! Path lengths on the same polygons (issue 14 item 2): seeded pairs snapped by Detour, the
//! very same start and end polygons and points handed to OnePath (mapped through
//! [`DetourRefMap`]), and per level the table `recast_report --paths` prints and the
//! conformance test bounds: pairs found by each engine, corridor polygons, total
//! straight-path length of each and the worst pair's excess of OnePath over Detour.

use onepath_format::PolyRef;
use onepath_mesh::TiledNavMesh;

use crate::detour::{DetourEngine, Snapped};
use crate::error::PeerError;
use crate::onepath::{world_polygons, DetourRefMap, OnePathEngine};
use crate::sampling::{sample_points, SplitMix64};

/// Pairs per level (item 2).
pub const LENGTH_PAIRS: usize = 64;
/// Pairs drawn at most per level while looking for [`LENGTH_PAIRS`] that Detour completes.
pub const LENGTH_DRAWS: usize = 4096;

/// One pair of the length table: where Detour snapped both points, and the same polygons
/// as OnePath references.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamePair {
    /// Detour's start.
    pub start: Snapped,
    /// Detour's end.
    pub end: Snapped,
    /// The start polygon as a OnePath reference.
    pub start_ref: PolyRef,
    /// The end polygon as a OnePath reference.
    pub end_ref: PolyRef,
}

impl SamePair {
    /// The start point in f64 (Detour's float32 point, exactly).
    pub fn start_pos(&self) -> [f64; 3] {
        self.start.pos.map(f64::from)
    }

    /// The end point in f64.
    pub fn end_pos(&self) -> [f64; 3] {
        self.end.pos.map(f64::from)
    }
}

/// Up to `n` seeded pairs (two [`sample_points`] draws each, from one SplitMix64 stream
/// seeded with `seed`, in draw order) whose points Detour snaps and whose Detour path is
/// complete (its corridor ends in the end polygon), with distinct start and end polygons.
pub fn same_pairs(
    mesh: &TiledNavMesh,
    detour: &DetourEngine<'_>,
    n: usize,
    seed: u64,
) -> Result<Vec<SamePair>, PeerError> {
    let map = DetourRefMap::new(mesh);
    let polygons = world_polygons(mesh);
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(n);
    for _ in 0..LENGTH_DRAWS {
        if out.len() == n {
            break;
        }
        let pts = sample_points(&polygons, 2, &mut rng);
        let [s, e] = pts[..] else { break };
        let (Some(a), Some(b)) = (detour.snap(s)?, detour.snap(e)?) else {
            continue;
        };
        if a.poly == b.poly {
            continue;
        }
        let (Some(ra), Some(rb)) = (map.to_onepath(mesh, a.poly), map.to_onepath(mesh, b.poly))
        else {
            return Err(PeerError::input(
                "same pairs",
                "a Detour polygon does not map back",
            ));
        };
        let (corridor, partial) = detour.corridor(a, b)?;
        if partial || corridor.last() != Some(&b.poly) {
            continue;
        }
        out.push(SamePair {
            start: a,
            end: b,
            start_ref: ra,
            end_ref: rb,
        });
    }
    Ok(out)
}

/// One level's row of the length table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LengthRow {
    /// Pairs compared.
    pub pairs: usize,
    /// Pairs OnePath completed.
    pub found_onepath: usize,
    /// Pairs Detour completed (every pair, by construction of [`same_pairs`]).
    pub found_detour: usize,
    /// Corridor polygons over all pairs, OnePath.
    pub polys_onepath: usize,
    /// Corridor polygons over all pairs, Detour.
    pub polys_detour: usize,
    /// Total straight-path length over the pairs both completed, OnePath.
    pub total_onepath: f64,
    /// Total straight-path length over the pairs both completed, Detour.
    pub total_detour: f64,
    /// Largest `(onepath − detour) / detour` over the pairs both completed (negative when
    /// every OnePath path is shorter).
    pub worst_excess: f64,
    /// The pair of `worst_excess`.
    pub worst_pair: usize,
    /// Pairs where OnePath's path is more than 1 % longer than Detour's.
    pub over_one_percent: usize,
    /// Polygons OnePath's searches expanded (iterations) over all pairs.
    pub iterations: u64,
}

impl LengthRow {
    /// `total_onepath / total_detour` (1 for two zero totals).
    pub fn total_ratio(&self) -> f64 {
        if self.total_detour == 0.0 {
            if self.total_onepath == 0.0 {
                1.0
            } else {
                f64::INFINITY
            }
        } else {
            self.total_onepath / self.total_detour
        }
    }

    /// Item 2's bound: every pair found by both, total no longer than Detour's and no pair
    /// more than 1 % longer.
    pub fn meets_bound(&self) -> bool {
        self.found_onepath == self.pairs
            && self.total_onepath <= self.total_detour
            && self.over_one_percent == 0
    }
}

/// Runs both engines over `pairs` and fills the row (OnePath with whatever path model
/// `ours` is set to).
pub fn length_row(
    detour: &DetourEngine<'_>,
    ours: &mut OnePathEngine<'_>,
    pairs: &[SamePair],
) -> Result<LengthRow, PeerError> {
    let mut row = LengthRow {
        pairs: pairs.len(),
        worst_excess: f64::NEG_INFINITY,
        ..LengthRow::default()
    };
    for (k, p) in pairs.iter().enumerate() {
        let d = detour.path(p.start, p.end)?;
        let (o, r) = ours.path_between(p.start_ref, p.start_pos(), p.end_ref, p.end_pos())?;
        row.iterations += r.iterations;
        row.polys_detour += d.corridor_len;
        row.polys_onepath += o.corridor_len;
        row.found_detour += usize::from(!d.partial);
        row.found_onepath += usize::from(!o.partial);
        if d.partial || o.partial {
            continue;
        }
        let (ld, lo) = (d.length(), o.length());
        row.total_detour += ld;
        row.total_onepath += lo;
        let excess = if ld > 0.0 { (lo - ld) / ld } else { 0.0 };
        if excess > row.worst_excess {
            row.worst_excess = excess;
            row.worst_pair = k;
        }
        row.over_one_percent += usize::from(excess > 0.01);
    }
    Ok(row)
}
