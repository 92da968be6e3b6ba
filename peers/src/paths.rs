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

/// Which state structure [`refined_corridor`] searches (an experiment, issue 14 item 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefinedVariant {
    /// One state per polygon (Detour's structure).
    Polygon,
    /// One state per (polygon, polygon it was entered from).
    Directed,
    /// Directed, and a state's cost measured from an anchor: the anchor is kept while the
    /// X/Z segment from it to the new point crosses the crossing the state was entered
    /// through (a one-step string pulling), else the state's own point becomes the anchor.
    Anchor,
    /// Directed, the point chosen from the anchor of [`RefinedVariant::Anchor`], the cost
    /// measured from the state's own point.
    AnchorPick,
    /// Directed, the anchor kept while the new point lies in the cone of directions from it
    /// through every crossing since it (a string pulling over all of them), else the
    /// state's own point becomes the anchor.
    Cone,
}

/// **Experiment** (issue 14 item 3, not a library model): an A* whose states hold a point on
/// the crossing they were last improved through, chosen from the parent's point (or anchor)
/// as where the X/Z line towards `end_pos` crosses the crossing, else the crossing's end
/// with the smaller detour; costs are X/Z distances between these points (uniform area
/// costs: the report's levels). Not exact for any fixed graph; measured for its lengths and
/// expansions against Detour's (`recast_report --paths` with `PATHS_REFINED=polygon|directed|anchor`).
/// `within`: only these polygons (for instance another engine's corridor, to price it).
/// Returns the corridor, the states expanded and the search's cost, or `None` when no path
/// is found.
pub fn refined_corridor(
    mesh: &TiledNavMesh,
    filter: &onepath_mesh::query::QueryFilter,
    p: &SamePair,
    variant: RefinedVariant,
    within: Option<&[PolyRef]>,
) -> Option<(Vec<PolyRef>, usize, f64)> {
    use onepath_mesh::query::{Crossing, PathEnds, PathGraph};
    use std::cmp::Ordering;
    use std::collections::{BTreeMap, BinaryHeap};
    type Key = (PolyRef, PolyRef);
    #[derive(Clone, Copy)]
    struct St {
        g: f64,
        pos: [f64; 3],
        parent: Option<Key>,
        closed: bool,
        anchor: [f64; 3],
        g_anchor: f64,
        entry: Option<([f64; 3], [f64; 3])>,
        /// [`RefinedVariant::Cone`]: the cone from the anchor (`None`: the anchor is the
        /// state's own point, every direction into the polygon is open).
        cone: Option<([f64; 3], [f64; 3])>,
    }
    /// Open entry: f, g (larger first on equal f), key (lower first).
    #[derive(PartialEq)]
    struct E(f64, f64, Key);
    impl Eq for E {}
    impl PartialOrd for E {
        fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
            Some(self.cmp(o))
        }
    }
    impl Ord for E {
        fn cmp(&self, o: &Self) -> Ordering {
            o.0.total_cmp(&self.0)
                .then(self.1.total_cmp(&o.1))
                .then((o.2 .0 .0, o.2 .1 .0).cmp(&(self.2 .0 .0, self.2 .1 .0)))
        }
    }
    let d2 = |a: [f64; 3], b: [f64; 3]| ((b[0] - a[0]).powi(2) + (b[2] - a[2]).powi(2)).sqrt();
    let (start, end) = (p.start_pos(), p.end_pos());
    let ends = PathEnds {
        start_ref: p.start_ref,
        start_pos: start,
        end_ref: p.end_ref,
        end_pos: end,
    };
    let graph = PathGraph::new(mesh, filter, ends).ok()?;
    let pick = |from: [f64; 3], a: [f64; 3], b: [f64; 3]| -> [f64; 3] {
        let (rx, rz) = (end[0] - from[0], end[2] - from[2]);
        let (sx, sz) = (b[0] - a[0], b[2] - a[2]);
        let den = rx * sz - rz * sx;
        if den != 0.0 {
            let (qx, qz) = (a[0] - from[0], a[2] - from[2]);
            let t = (qx * rz - qz * rx) / den;
            let u = (qx * sz - qz * sx) / den;
            if (0.0..=1.0).contains(&t) && u >= 0.0 {
                return [a[0] + sx * t, a[1] + (b[1] - a[1]) * t, a[2] + sz * t];
            }
        }
        if d2(from, a) + d2(a, end) <= d2(from, b) + d2(b, end) {
            a
        } else {
            b
        }
    };
    // Whether the X/Z segment u–v crosses the segment a–b (touching counts).
    let crosses = |u: [f64; 3], v: [f64; 3], a: [f64; 3], b: [f64; 3]| -> bool {
        let o = |p: [f64; 3], q: [f64; 3], r: [f64; 3]| {
            (q[0] - p[0]) * (r[2] - p[2]) - (q[2] - p[2]) * (r[0] - p[0])
        };
        o(u, v, a) * o(u, v, b) <= 0.0 && o(a, b, u) * o(a, b, v) <= 0.0
    };
    let cr = |o: [f64; 3], a: [f64; 3], b: [f64; 3]| {
        (a[0] - o[0]) * (b[2] - o[2]) - (a[2] - o[2]) * (b[0] - o[0])
    };
    let inside = |o: [f64; 3], cone: Option<([f64; 3], [f64; 3])>, q: [f64; 3]| {
        cone.map_or(true, |(c1, c2)| cr(o, c1, q) >= 0.0 && cr(o, q, c2) >= 0.0)
    };
    // The cone from `o` through segment l–r, cut by `cone`.
    let wedge = |o: [f64; 3], cone: Option<([f64; 3], [f64; 3])>, l: [f64; 3], r: [f64; 3]| {
        let (l2, r2) = if cr(o, l, r) >= 0.0 { (l, r) } else { (r, l) };
        Some(match cone {
            None => (l2, r2),
            Some((c1, c2)) => (
                if cr(o, c1, l2) >= 0.0 { l2 } else { c1 },
                if cr(o, r2, c2) >= 0.0 { r2 } else { c2 },
            ),
        })
    };
    let none = PolyRef(0);
    let start_key = (p.start_ref, none);
    let mut states: BTreeMap<Key, St> = BTreeMap::new();
    states.insert(
        start_key,
        St {
            g: 0.0,
            pos: start,
            parent: None,
            closed: false,
            anchor: start,
            g_anchor: 0.0,
            entry: None,
            cone: None,
        },
    );
    let mut open = BinaryHeap::new();
    open.push(E(d2(start, end), 0.0, start_key));
    let mut goal: Option<(f64, Key)> = None;
    let mut expanded = 0;
    let mut out = Vec::new();
    while let Some(E(f, g, r)) = open.pop() {
        if goal.is_some_and(|(gg, _)| gg <= f) {
            break;
        }
        let s = states[&r];
        if s.closed || s.g != g {
            continue;
        }
        expanded += 1;
        states.get_mut(&r)?.closed = true;
        if r.0 == p.end_ref {
            let gg = if variant == RefinedVariant::Anchor
                && s.entry.is_some_and(|(a, b)| crosses(s.anchor, end, a, b))
                || variant == RefinedVariant::Cone && inside(s.anchor, s.cone, end)
            {
                s.g_anchor + d2(s.anchor, end)
            } else {
                g + d2(s.pos, end)
            };
            if goal.map_or(true, |(b, _)| gg < b) {
                goal = Some((gg, r));
            }
        }
        out.clear();
        graph
            .for_each_edge(r.0, s.pos, |nb, _, _| match nb.crossing {
                Crossing::Edge { left, right, .. } => {
                    if variant == RefinedVariant::Cone {
                        let q = pick(s.anchor, left, right);
                        if inside(s.anchor, s.cone, q) {
                            let ng = s.g_anchor + d2(s.anchor, q);
                            let c = wedge(s.anchor, s.cone, left, right);
                            out.push((nb.target, q, ng, s.anchor, s.g_anchor, c));
                        } else {
                            let q = pick(s.pos, left, right);
                            let c = wedge(s.pos, None, left, right);
                            out.push((nb.target, q, g + d2(s.pos, q), s.pos, g, c));
                        }
                        return;
                    }
                    if matches!(variant, RefinedVariant::Anchor | RefinedVariant::AnchorPick) {
                        let q = pick(s.anchor, left, right);
                        if s.entry.is_some_and(|(a, b)| crosses(s.anchor, q, a, b)) {
                            let ng = if variant == RefinedVariant::Anchor {
                                s.g_anchor + d2(s.anchor, q)
                            } else {
                                g + d2(s.pos, q)
                            };
                            out.push((nb.target, q, ng, s.anchor, s.g_anchor, Some((left, right))));
                            return;
                        }
                    }
                    let q = pick(s.pos, left, right);
                    out.push((
                        nb.target,
                        q,
                        g + d2(s.pos, q),
                        s.pos,
                        g,
                        Some((left, right)),
                    ));
                }
                Crossing::OffMesh {
                    start: a, end: b, ..
                } => {
                    let len =
                        ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2) + (b[2] - a[2]).powi(2))
                            .sqrt();
                    let ng = g + d2(s.pos, a) + len;
                    out.push((nb.target, b, ng, b, ng, None));
                }
            })
            .ok()?;
        for &(t, q, ng, anchor, g_anchor, entry) in &out {
            if within.is_some_and(|w| !w.contains(&t)) {
                continue;
            }
            let key = match variant {
                RefinedVariant::Polygon => (t, none),
                _ => (t, r.0),
            };
            if Some(t) == s.parent.map(|k| k.0) && variant == RefinedVariant::Polygon || t == r.1 {
                continue;
            }
            // A closed state is final (no reopening), so the parent chains have no cycles.
            let better = states.get(&key).map_or(true, |e| !e.closed && ng < e.g);
            if better {
                states.insert(
                    key,
                    St {
                        g: ng,
                        pos: q,
                        parent: Some(r),
                        closed: false,
                        anchor,
                        g_anchor,
                        entry,
                        cone: entry,
                    },
                );
                open.push(E(ng + d2(q, end) * 0.999999, ng, key));
            }
        }
    }
    let (cost, last) = goal?;
    let mut corridor = vec![last.0];
    let mut at = last;
    while let Some(pr) = states[&at].parent {
        corridor.push(pr.0);
        at = pr;
        if corridor.len() > states.len() {
            return None;
        }
    }
    corridor.reverse();
    // Consecutive repeats merged and loops cut, as the library's path writing does.
    let mut path: Vec<PolyRef> = Vec::with_capacity(corridor.len());
    for r in corridor {
        if let Some(at) = path.iter().position(|&q| q == r) {
            path.truncate(at + 1);
        } else {
            path.push(r);
        }
    }
    Some((path, expanded, cost))
}
