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

/// The X/Z distance.
fn xz(a: [f64; 3], b: [f64; 3]) -> f64 {
    let (dx, dz) = (b[0] - a[0], b[2] - a[2]);
    (dx * dx + dz * dz).sqrt()
}

/// The point of crossing `a`–`b` the refined-points experiment moves to from `from`: where
/// the X/Z line from `from` towards `end` crosses it, else the end of the crossing with the
/// smaller `|from − e| + |e − end|`.
fn toward_goal(from: [f64; 3], a: [f64; 3], b: [f64; 3], end: [f64; 3]) -> [f64; 3] {
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
    if xz(from, a) + xz(a, end) <= xz(from, b) + xz(b, end) {
        a
    } else {
        b
    }
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
/// expansions against Detour's (`recast_report --paths` with `PATHS_REFINED=...`, one per
/// [`RefinedVariant`]).
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
    let d2 = xz;
    let (start, end) = (p.start_pos(), p.end_pos());
    let ends = PathEnds {
        start_ref: p.start_ref,
        start_pos: start,
        end_ref: p.end_ref,
        end_pos: end,
    };
    let graph = PathGraph::new(mesh, filter, ends).ok()?;
    let pick = |from, a, b| toward_goal(from, a, b, end);
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

/// One crossing of [`RefinedGraph`]: an edge crossing's ends, or an off-mesh link's start,
/// end and 3D length.
#[derive(Debug, Clone, Copy)]
enum Xing {
    Edge([f64; 3], [f64; 3]),
    Link([f64; 3], [f64; 3], f64),
}

/// **Experiment** (issue 14 item 3): the crossings of every polygon read once into flat
/// arrays (polygons numbered densely in slot then polygon order), so that the `cone` form of
/// [`refined_corridor`] can be timed as a table walk, as a library form would run.
#[derive(Debug)]
pub struct RefinedGraph {
    refs: Vec<PolyRef>,
    index: std::collections::HashMap<PolyRef, u32>,
    first: Vec<u32>,
    adj: Vec<(u32, Xing)>,
}

/// One state of [`RefinedSearch`]: the polygon, the polygon entered from, the point, `g`,
/// the anchor and its `g`, the cone (ends valid when `has_cone`), the parent.
#[derive(Debug, Clone, Copy)]
struct CState {
    poly: u32,
    from: u32,
    pos: [f64; 3],
    g: f64,
    anchor: [f64; 3],
    g_anchor: f64,
    cone: ([f64; 3], [f64; 3]),
    has_cone: bool,
    parent: u32,
    closed: bool,
}

/// Reused buffers of the table-driven `cone` search.
#[derive(Debug, Default)]
pub struct RefinedSearch {
    states: Vec<CState>,
    /// Per polygon: the search number and the first state of its list.
    head: Vec<(u32, u32)>,
    /// Next state of the same polygon.
    next: Vec<u32>,
    open: std::collections::BinaryHeap<ConeEntry>,
    search: u32,
}

/// Open entry: f, g (larger first on equal f), state number (lower first).
#[derive(Debug, PartialEq)]
pub struct ConeEntry(f64, f64, u32);
impl Eq for ConeEntry {}
impl PartialOrd for ConeEntry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for ConeEntry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.0.total_cmp(&self.0)
            .then(self.1.total_cmp(&o.1))
            .then(o.2.cmp(&self.2))
    }
}

impl RefinedGraph {
    /// Reads every polygon's crossings under `filter`.
    pub fn new(mesh: &TiledNavMesh, filter: &onepath_mesh::query::QueryFilter) -> RefinedGraph {
        use onepath_mesh::query::{Crossing, PathEnds, PathGraph};
        let mut refs = Vec::new();
        for t in mesh.tiles() {
            for p in 0..t.tile().poly_count() {
                if let Some(r) = t.poly_ref(p as u32) {
                    refs.push(r);
                }
            }
        }
        let index: std::collections::HashMap<PolyRef, u32> = refs
            .iter()
            .enumerate()
            .map(|(i, &r)| (r, i as u32))
            .collect();
        let (mut first, mut adj) = (Vec::with_capacity(refs.len() + 1), Vec::new());
        for &r in &refs {
            first.push(adj.len() as u32);
            let ends = PathEnds {
                start_ref: r,
                start_pos: [0.0; 3],
                end_ref: r,
                end_pos: [0.0; 3],
            };
            let Ok(graph) = PathGraph::new(mesh, filter, ends) else {
                continue;
            };
            let _ = graph.for_each_edge(r, [0.0; 3], |nb, _, _| {
                let Some(&t) = index.get(&nb.target) else {
                    return;
                };
                adj.push((
                    t,
                    match nb.crossing {
                        Crossing::Edge { left, right, .. } => Xing::Edge(left, right),
                        Crossing::OffMesh { start, end, .. } => {
                            let len = ((end[0] - start[0]).powi(2)
                                + (end[1] - start[1]).powi(2)
                                + (end[2] - start[2]).powi(2))
                            .sqrt();
                            Xing::Link(start, end, len)
                        }
                    },
                ));
            });
        }
        first.push(adj.len() as u32);
        RefinedGraph {
            refs,
            index,
            first,
            adj,
        }
    }

    /// The `cone` search of [`refined_corridor`] over the tables (same rules, states found
    /// through a per-polygon list instead of a map). Writes the corridor into `path`;
    /// returns the states expanded, or `None` when no path is found.
    pub fn cone_corridor(
        &self,
        s: &mut RefinedSearch,
        p: &SamePair,
        path: &mut Vec<PolyRef>,
    ) -> Option<usize> {
        const NONE: u32 = u32::MAX;
        let d2 = xz;
        let cr = |o: [f64; 3], a: [f64; 3], b: [f64; 3]| {
            (a[0] - o[0]) * (b[2] - o[2]) - (a[2] - o[2]) * (b[0] - o[0])
        };
        let (start, end) = (p.start_pos(), p.end_pos());
        let pick = |from, a, b| toward_goal(from, a, b, end);
        let inside = |st: &CState, q: [f64; 3]| {
            !st.has_cone || cr(st.anchor, st.cone.0, q) >= 0.0 && cr(st.anchor, q, st.cone.1) >= 0.0
        };
        let (&sp, &ep) = (self.index.get(&p.start_ref)?, self.index.get(&p.end_ref)?);
        s.search = s.search.wrapping_add(1);
        if s.head.len() != self.refs.len() || s.search == 0 {
            s.head = vec![(0, NONE); self.refs.len()];
            s.search = 1;
        }
        s.states.clear();
        s.next.clear();
        s.open.clear();
        let gen = s.search;
        s.states.push(CState {
            poly: sp,
            from: NONE,
            pos: start,
            g: 0.0,
            anchor: start,
            g_anchor: 0.0,
            cone: (start, start),
            has_cone: false,
            parent: NONE,
            closed: false,
        });
        s.next.push(NONE);
        s.head[sp as usize] = (gen, 0);
        s.open.push(ConeEntry(d2(start, end), 0.0, 0));
        let mut goal: Option<(f64, u32)> = None;
        let mut expanded = 0;
        while let Some(ConeEntry(f, g, i)) = s.open.pop() {
            if goal.is_some_and(|(gg, _)| gg <= f) {
                break;
            }
            let st = s.states[i as usize];
            if st.closed || st.g != g {
                continue;
            }
            expanded += 1;
            s.states[i as usize].closed = true;
            if st.poly == ep {
                let gg = if inside(&st, end) {
                    st.g_anchor + d2(st.anchor, end)
                } else {
                    g + d2(st.pos, end)
                };
                if goal.map_or(true, |(b, _)| gg < b) {
                    goal = Some((gg, i));
                }
            }
            let (a0, a1) = (
                self.first[st.poly as usize],
                self.first[st.poly as usize + 1],
            );
            for &(t, x) in &self.adj[a0 as usize..a1 as usize] {
                if t == st.from {
                    continue;
                }
                let (q, ng, anchor, g_anchor, cone, has_cone) = match x {
                    Xing::Edge(l, r) => {
                        let q = pick(st.anchor, l, r);
                        let (o, base, keep) = if inside(&st, q) {
                            (st.anchor, st.g_anchor, st.has_cone)
                        } else {
                            (st.pos, g, false)
                        };
                        let q = if keep || o == st.anchor {
                            q
                        } else {
                            pick(o, l, r)
                        };
                        let (l2, r2) = if cr(o, l, r) >= 0.0 { (l, r) } else { (r, l) };
                        let cone = if keep {
                            (
                                if cr(o, st.cone.0, l2) >= 0.0 {
                                    l2
                                } else {
                                    st.cone.0
                                },
                                if cr(o, r2, st.cone.1) >= 0.0 {
                                    r2
                                } else {
                                    st.cone.1
                                },
                            )
                        } else {
                            (l2, r2)
                        };
                        (q, base + d2(o, q), o, base, cone, true)
                    }
                    Xing::Link(a, b, len) => {
                        let ng = g + d2(st.pos, a) + len;
                        (b, ng, b, ng, (b, b), false)
                    }
                };
                // The state (t, entered from st.poly), through t's list.
                let mut at = if s.head[t as usize].0 == gen {
                    s.head[t as usize].1
                } else {
                    NONE
                };
                while at != NONE && s.states[at as usize].from != st.poly {
                    at = s.next[at as usize];
                }
                let new = CState {
                    poly: t,
                    from: st.poly,
                    pos: q,
                    g: ng,
                    anchor,
                    g_anchor,
                    cone,
                    has_cone,
                    parent: i,
                    closed: false,
                };
                let k = if at == NONE {
                    let k = s.states.len() as u32;
                    s.states.push(new);
                    let h = &mut s.head[t as usize];
                    s.next.push(if h.0 == gen { h.1 } else { NONE });
                    *h = (gen, k);
                    k
                } else {
                    let e = &mut s.states[at as usize];
                    if e.closed || ng.partial_cmp(&e.g) != Some(std::cmp::Ordering::Less) {
                        continue;
                    }
                    *e = new;
                    at
                };
                s.open.push(ConeEntry(ng + d2(q, end) * 0.999999, ng, k));
            }
        }
        let (_, last) = goal?;
        let mut chain = Vec::new();
        let mut at = last;
        while at != NONE {
            chain.push(self.refs[s.states[at as usize].poly as usize]);
            at = s.states[at as usize].parent;
        }
        path.clear();
        for &r in chain.iter().rev() {
            if let Some(k) = path.iter().position(|&q| q == r) {
                path.truncate(k + 1);
            } else {
                path.push(r);
            }
        }
        Some(expanded)
    }
}
