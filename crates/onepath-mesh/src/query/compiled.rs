//! [`CompiledGraph`]: the polygon graph of one mesh state compiled for path searches, with
//! optional landmark distances for a sharper heuristic (the "ALT" lower bound: A*,
//! landmarks, triangle inequality).
//!
//! **The compiled graph.** A search that walks the tiles decodes a polygon reference, finds
//! the tile's derived data and validates every cross-tile portal entry at each expansion. The
//! compiled graph numbers the polygons once (rows, in slot then polygon order) and keeps, per
//! row, its reference, centre, area, flags and crossings in neighbour order with the cost
//! model's distances through them, so an expansion reads one contiguous block. It holds the
//! very values the derived per-tile data holds (same functions, same operation order), so a search
//! that walks it expands the same polygons in the same order with the same bits.
//!
//! **Landmarks.** The plain heuristic, straight-line distance × smallest area cost, is weak
//! wherever the cost model's paths bend. For a few polygons `L` chosen far apart the graph
//! can also store the cost-model distance from `L` to every polygon and from every polygon to
//! `L` (under the base filter). For any polygon `n` and goal `g` the triangle inequality
//! gives `d(n, g) ≥ d(L, g) − d(L, n)` and `d(n, g) ≥ d(n, L) − d(g, L)`; the largest of
//! these bounds over the search's active landmarks (the four that bound its start best),
//! scaled to the query's filter, is a better estimate that still never
//! overestimates: the path keeps its optimal cost and the search expands fewer polygons
//! (among paths of equal cost it may pick another one). On a grid of square polygons, where
//! the centre-to-centre model scores moves like Manhattan distance, every polygon of the
//! rectangle between start and goal lies on an optimal path, so *any* estimate short of exact
//! there expands it: landmarks halve the expansions but cannot remove that.
//!
//! **Exact table.** For small meshes ([`MAX_EXACT_POLYGONS`]),
//! [`CompiledGraph::build_exact`] stores the distance between every pair of polygons instead
//! of landmarks: a search's estimate is then its exact remaining distance (less the slack),
//! and it expands little more than the polygons of its optimal paths.
//!
//! A compiled graph is derived data: built from a `&TiledNavMesh` (no query object needed,
//! so it can be built on another thread), never serialized, shared between query objects
//! through an `Arc`
//! ([`NavMeshQuery::set_compiled_graph`](crate::query::NavMeshQuery::set_compiled_graph)).
//! It knows the mesh state it was built for ([`TiledNavMesh::state_id`]) and is used only
//! while the mesh is still in that state and the search's filter admits no more than the
//! base filter; otherwise the search walks the tiles and answers exactly as without it.

use onepath_format::PolyRef;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::mesh::TiledNavMesh;
use crate::query::derived::DerivedWalk;
use crate::query::error::QueryError;
use crate::query::filter::{QueryFilter, AREA_COUNT};
use crate::query::geom::{dist, Vec3};
use crate::query::graph::{crossing_cost, for_each_crossing_at, Crossing, PathEnds, PolygonGraph};
use crate::query::poly::{decode, poly_centre, poly_passes, poly_verts, slot_rows, PolyVerts};

/// Landmarks a search reads (of those the graph has): the ones that bound the start best.
const ACTIVE_LANDMARKS: usize = 4;

/// The most polygons [`CompiledGraph::build_exact`] accepts (its table is `4 × polygons²`
/// bytes: 16 MiB at this size).
pub const MAX_EXACT_POLYGONS: usize = 2048;

/// The most landmarks a compiled graph may have.
pub const MAX_LANDMARKS: usize = 32;

/// Slack taken off every table bound, relative to the table's largest finite distance `M`:
/// covers the rounding of the stored distances to `f32` (at most `2^-24·M` each) and of the
/// sums along a path (`2^-53` per edge, for up to `2^31` edges), so a bound never exceeds
/// the cost the search itself sums. It is one constant per table (not per polygon), so
/// polygons along equally good paths keep exactly equal estimates wherever the costs are
/// exact (a grid of square cells) and the search's tie rule (deeper first) walks them in a
/// line instead of widening.
const TABLE_SLACK: f64 = 1.0 / (1u64 << 20) as f64;

/// Finite distances above this are stored as NaN ("unknown", never used in a bound): `f32`
/// could not hold them as a bound that stays below the truth.
const TABLE_MAX: f64 = 1.0e30;

/// The polygon graph of one mesh state under one base filter, compiled for path searches,
/// with optional landmark distances (see the module docs).
///
/// Memory: per polygon about 40 bytes plus `8 × landmarks`, per crossing about 100 bytes,
/// per slot 4 bytes. Building it runs `2·landmarks + 1` Dijkstra searches over the whole mesh (none
/// without landmarks): about 20 ms for 16 384 polygons and 8 landmarks.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use onepath_mesh::query::{generated_grid_mesh, CompiledGraph, NavMeshQuery, QueryFilter};
///
/// let g = generated_grid_mesh(4, 4, 4, 7);
/// let filter = QueryFilter::new();
/// let graph = Arc::new(CompiledGraph::build(&g.mesh, &filter, 8).unwrap());
/// assert!(graph.applies_to(&g.mesh, &filter));
/// assert_eq!(graph.landmarks().len(), 8);
/// let mut q = NavMeshQuery::new();
/// q.set_compiled_graph(Some(Arc::clone(&graph)));
/// // Every path search of `q` on this mesh state now walks `graph` with its landmarks.
/// ```
#[derive(Debug, Clone)]
pub struct CompiledGraph {
    filter: QueryFilter,
    landmarks: Vec<PolyRef>,
    /// [`TiledNavMesh::state_id`] of the mesh state the graph was built for.
    state: u64,
    /// First row of each slot's polygons, `u32::MAX` for an empty slot.
    slot_base: Vec<u32>,
    /// Per polygon (row), `2·k` values: `d(L_i, n)` for every landmark, then `d(n, L_i)`;
    /// `INFINITY` where there is no path.
    table: Vec<f32>,
    /// Landmarks actually chosen (`landmarks.len()`).
    k: usize,
    /// With [`CompiledGraph::build_exact`]: `d(n, g)` at `g · rows + n` (`INFINITY` where
    /// there is no path, NaN for an unknown value); empty otherwise.
    exact: Vec<f32>,
    /// [`TABLE_SLACK`] × the largest finite distance stored.
    slack: f64,
    /// Every area cost of the base filter is 1.
    unit_costs: bool,
    /// The mesh's polygon graph under the base filter, compiled: per row its reference,
    /// centre, area and flags, and its crossings in neighbour order (`edges[lo..hi]` and
    /// `crossings[lo..hi]`, `lo..hi` its row's range). A search whose graph applies walks
    /// this instead of the tiles, with the same edges in the same order and the same bits.
    rows: Vec<Row>,
    edges: Vec<GraphEdge>,
    /// Per edge, the crossing itself: string pulling reads its ends, and a search measures
    /// from or to its own ends (whose positions are not centres) through
    /// [`Crossing::exit_point`], the very expression the graph was priced with.
    crossings: Vec<Crossing>,
}

/// One polygon of the compiled graph: what an expansion reads of a neighbour, in one place
/// (48 bytes), and the range of its own crossings.
#[derive(Debug, Clone, Copy)]
struct Row {
    centre: Vec3,
    r: PolyRef,
    /// Its crossings: `edges[lo..hi]`.
    lo: u32,
    hi: u32,
    flags: u16,
    area: u8,
}

/// One crossing of the compiled graph, with the cost model's distances through it between
/// the two centres, computed with [`dist`] exactly as the derived per-tile data computes them.
#[derive(Debug, Clone, Copy)]
struct GraphEdge {
    to: u32,
    /// An off-mesh link's own flags (0 for an edge crossing).
    link_flags: u16,
    /// An off-mesh link's area.
    link_area: u8,
    /// [`EDGE_LINK`], [`EDGE_REPEAT`].
    kind: u8,
    /// `|centre(from) − entry|`.
    out: f64,
    /// An off-mesh link's length `|start − end|` (0 for an edge crossing).
    mid: f64,
    /// `|exit − centre(to)|`.
    into: f64,
}

/// The crossing is an off-mesh link.
const EDGE_LINK: u8 = 1;
/// An earlier crossing of the same polygon leads to the same target (the search takes only
/// the first one its filter allows).
const EDGE_REPEAT: u8 = 2;

/// The goal side of a search with a compiled graph, fixed at its start.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LandmarkGoal {
    row: usize,
    /// The landmarks the bound reads: the [`ACTIVE_LANDMARKS`] with the largest bound at the
    /// start (ties: lower index).
    active: [u8; ACTIVE_LANDMARKS],
    n_active: usize,
    /// Smallest ratio of the query's area costs to the base filter's.
    scale: f64,
    /// The table's slack plus `cost(goal area) · |end_pos − centre(goal)|` (the table
    /// measures to the goal's centre, the search to `end_pos`).
    slack: f64,
}

/// Dijkstra priority: smallest distance first, then the lowest row.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Item(f64, u32);
impl Eq for Item {}
impl PartialOrd for Item {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Item {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
    }
}

/// A graph in compressed rows: the edges of row `u` are `start[u]..start[u + 1]`.
struct Csr {
    start: Vec<usize>,
    to: Vec<u32>,
    cost: Vec<f64>,
}

impl Csr {
    fn reversed(&self) -> Csr {
        let n = self.start.len() - 1;
        let mut count = vec![0usize; n + 1];
        for &v in &self.to {
            count[v as usize + 1] += 1;
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let start = count.clone();
        let mut fill = count;
        let mut to = vec![0u32; self.to.len()];
        let mut cost = vec![0.0; self.to.len()];
        for u in 0..n {
            for e in self.start[u]..self.start[u + 1] {
                let v = self.to[e] as usize;
                to[fill[v]] = u as u32;
                cost[fill[v]] = self.cost[e];
                fill[v] += 1;
            }
        }
        Csr { start, to, cost }
    }

    /// Distances from `src` to every row (`INFINITY` where unreachable). The values do not
    /// depend on the queue's tie order (a row's distance is the minimum over its settled
    /// predecessors); ties still break by row.
    fn dijkstra(&self, src: u32, dist: &mut Vec<f64>, heap: &mut BinaryHeap<Item>) {
        dist.clear();
        dist.resize(self.start.len() - 1, f64::INFINITY);
        heap.clear();
        dist[src as usize] = 0.0;
        heap.push(Item(0.0, src));
        while let Some(Item(d, u)) = heap.pop() {
            if d > dist[u as usize] {
                continue;
            }
            let u = u as usize;
            for e in self.start[u]..self.start[u + 1] {
                let v = self.to[e];
                let nd = d + self.cost[e];
                if nd < dist[v as usize] {
                    dist[v as usize] = nd;
                    heap.push(Item(nd, v));
                }
            }
        }
    }
}

impl CompiledGraph {
    /// Compiles the polygon graph of the mesh as it is now under `filter` (the base filter),
    /// with up to `count` landmarks (0..=[`MAX_LANDMARKS`]; 0 for the compiled graph alone,
    /// which changes no answer). Searches whose filter admits no polygon or link the base
    /// filter refuses may use it, whatever their area costs (landmark bounds are scaled by the
    /// smallest ratio of their costs to the base costs); compiling with the filter the
    /// searches use gives the sharpest bounds.
    ///
    /// Landmarks are chosen in the largest connected part of the mesh (ties: the part with
    /// the lowest polygon), far apart: the first is the polygon furthest from the part's
    /// first polygon, each next one the polygon furthest from all chosen so far (ties: slot,
    /// then polygon index). Fewer than `count` are chosen when the part has fewer
    /// polygons. Deterministic: the same mesh state and arguments give the same graph.
    ///
    /// Errors: [`QueryError::InvalidLandmarkCount`] above [`MAX_LANDMARKS`],
    /// [`QueryError::CompiledGraphTooLarge`] past 2^32 polygons or crossings.
    pub fn build(
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        count: usize,
    ) -> Result<CompiledGraph, QueryError> {
        if count > MAX_LANDMARKS {
            return Err(QueryError::InvalidLandmarkCount { count });
        }
        Self::build_inner(mesh, filter, count, false)
    }

    /// Compiles the polygon graph as [`CompiledGraph::build`] does, with the **exact**
    /// cost-model distance (centre to centre, base filter) from every polygon to every
    /// polygon instead of landmarks: the heuristic of a search becomes that distance (scaled
    /// and less the slack), so a search expands little more than the polygons of its optimal
    /// paths. For small meshes: `4 × polygons²` bytes and one Dijkstra search per polygon;
    /// [`QueryError::CompiledGraphTooLarge`] above [`MAX_EXACT_POLYGONS`] polygons.
    pub fn build_exact(
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
    ) -> Result<CompiledGraph, QueryError> {
        Self::build_inner(mesh, filter, 0, true)
    }

    fn build_inner(
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        count: usize,
        exact: bool,
    ) -> Result<CompiledGraph, QueryError> {
        // Rows: the polygons in slot order, then polygon order.
        let (slot_base, rows) = slot_rows(mesh).ok_or(QueryError::CompiledGraphTooLarge)?;
        let mut centres: Vec<Vec3> = Vec::with_capacity(rows);
        let mut verts = PolyVerts::new();
        for t in mesh.tiles() {
            for p in 0..t.tile().poly_count() {
                poly_verts(t, p, &mut verts);
                centres.push(poly_centre(&verts));
            }
        }
        if exact && rows > MAX_EXACT_POLYGONS {
            return Err(QueryError::CompiledGraphTooLarge);
        }
        // The forward graph: every crossing the base filter allows, priced between centres.
        let mut fwd = Csr {
            start: Vec::with_capacity(rows + 1),
            to: Vec::new(),
            cost: Vec::new(),
        };
        let mut passes = vec![false; rows];
        let mut refs = Vec::with_capacity(rows);
        let mut row_areas = Vec::with_capacity(rows);
        let mut row_flags = Vec::with_capacity(rows);
        let mut edges: Vec<GraphEdge> = Vec::new();
        let mut crossings: Vec<Crossing> = Vec::new();
        for t in mesh.tiles() {
            let base = slot_base[t.slot() as usize] as usize;
            let areas = t.tile().areas();
            for p in 0..t.tile().poly_count() {
                refs.push(t.poly_ref(p as u32).unwrap_or(PolyRef::NULL));
                row_areas.push(areas[p]);
                row_flags.push(t.tile().flags()[p]);
                fwd.start.push(fwd.to.len());
                if !poly_passes(t, p, filter) {
                    continue;
                }
                passes[base + p] = true;
                let from = centres[base + p];
                let ca = filter.area_cost(areas[p]);
                let first = edges.len();
                for_each_crossing_at(mesh, t, p, filter, |nb, tt, tp| {
                    let v = slot_base[tt.slot() as usize] as usize + tp;
                    let cb = filter.area_cost(tt.tile().areas()[tp]);
                    let exit = nb.crossing.exit_point();
                    let mut e = GraphEdge {
                        to: v as u32,
                        link_flags: 0,
                        link_area: 0,
                        kind: 0,
                        out: dist(from, nb.crossing.entry_point()),
                        mid: 0.0,
                        into: dist(exit, centres[v]),
                    };
                    if let Crossing::OffMesh {
                        start,
                        end,
                        area,
                        flags,
                        ..
                    } = nb.crossing
                    {
                        e.kind = EDGE_LINK;
                        e.link_flags = flags;
                        e.link_area = area;
                        e.mid = dist(start, end);
                    }
                    if edges[first..].iter().any(|x| x.to == e.to) {
                        e.kind |= EDGE_REPEAT;
                    }
                    // The cost model's expression ([`crossing_cost`]), from these parts.
                    let c = edge_cost(&e, ca, cb, filter);
                    debug_assert_eq!(
                        c.to_bits(),
                        crossing_cost(filter, ca, from, nb.crossing, cb, centres[v]).to_bits()
                    );
                    fwd.to.push(v as u32);
                    fwd.cost.push(c);
                    edges.push(e);
                    crossings.push(nb.crossing);
                });
            }
        }
        fwd.start.push(fwd.to.len());
        let edge_start = fwd
            .start
            .iter()
            .map(|&x| u32::try_from(x).map_err(|_| QueryError::CompiledGraphTooLarge))
            .collect::<Result<Vec<u32>, _>>()?;
        let rev = fwd.reversed();

        let part = if count == 0 {
            Vec::new()
        } else {
            largest_part(&fwd, &rev, &passes)
        };
        let mut heap = BinaryHeap::new();
        let mut d = Vec::new();
        let mut chosen: Vec<u32> = Vec::new();
        let mut from_l: Vec<Vec<f64>> = Vec::new();
        if let Some(&seed) = part.first() {
            fwd.dijkstra(seed, &mut d, &mut heap);
            let mut nearest: Vec<f64> = d.clone();
            // The first landmark: furthest from the seed; later ones: furthest from all
            // chosen (a polygon no landmark reaches counts as infinitely far).
            let mut first = true;
            while chosen.len() < count {
                let mut best: Option<(f64, u32)> = None;
                for &v in &part {
                    let dv = nearest[v as usize];
                    if best.map_or(true, |(b, _)| dv > b) {
                        best = Some((dv, v));
                    }
                }
                let Some((far, v)) = best else { break };
                if !first && !(far > 0.0) {
                    break;
                }
                first = false;
                fwd.dijkstra(v, &mut d, &mut heap);
                if chosen.is_empty() {
                    nearest.copy_from_slice(&d);
                } else {
                    for (n, &x) in nearest.iter_mut().zip(&d) {
                        if x < *n {
                            *n = x;
                        }
                    }
                }
                chosen.push(v);
                from_l.push(d.clone());
            }
        }
        let k = chosen.len();
        let mut table = vec![f32::INFINITY; rows * 2 * k];
        let mut largest = 0.0f64;
        let mut store = |slot: &mut f32, x: f64| {
            *slot = if x.is_finite() && x > TABLE_MAX {
                f32::NAN
            } else {
                x as f32
            };
            if x.is_finite() && x <= TABLE_MAX && x > largest {
                largest = x;
            }
        };
        for (i, &l) in chosen.iter().enumerate() {
            for (r, &x) in from_l[i].iter().enumerate() {
                store(&mut table[r * 2 * k + i], x);
            }
            rev.dijkstra(l, &mut d, &mut heap);
            for (r, &x) in d.iter().enumerate() {
                store(&mut table[r * 2 * k + k + i], x);
            }
        }
        // The exact table: row `g` holds d(n, g) for every row n (a search reads its goal's).
        let mut exact_table = Vec::new();
        if exact {
            exact_table = vec![f32::INFINITY; rows * rows];
            for g in 0..rows {
                if !passes[g] {
                    continue;
                }
                rev.dijkstra(g as u32, &mut d, &mut heap);
                for (n, &x) in d.iter().enumerate() {
                    store(&mut exact_table[g * rows + n], x);
                }
            }
        }
        let slack = largest * TABLE_SLACK;
        let landmarks = chosen
            .iter()
            .map(|&row| poly_of_row(mesh, &slot_base, row))
            .collect();
        Ok(CompiledGraph {
            filter: *filter,
            landmarks,
            state: mesh.state_id(),
            slot_base,
            table,
            k,
            exact: exact_table,
            slack,
            unit_costs: filter.area_costs() == &[1.0; AREA_COUNT],
            rows: (0..rows)
                .map(|i| Row {
                    centre: centres[i],
                    r: refs[i],
                    lo: edge_start[i],
                    hi: edge_start[i + 1],
                    flags: row_flags[i],
                    area: row_areas[i],
                })
                .collect(),
            edges,
            crossings,
        })
    }

    /// True for a graph built by [`CompiledGraph::build_exact`] (an exact distance table).
    pub fn is_exact(&self) -> bool {
        !self.exact.is_empty()
    }

    /// Whether searches on this graph use a table bound (landmarks or exact distances).
    pub(crate) fn has_bound(&self) -> bool {
        self.k > 0 || self.is_exact()
    }

    /// The chosen landmark polygons, in the order they were chosen.
    pub fn landmarks(&self) -> &[PolyRef] {
        &self.landmarks
    }

    /// The base filter the distances were measured under.
    pub fn filter(&self) -> &QueryFilter {
        &self.filter
    }

    /// True while `mesh` is in the state the graph was built for (its
    /// [`TiledNavMesh::state_id`] is unchanged): any change of the mesh (a tile added,
    /// removed or replaced, an area, flag or link switch set, a restore) makes the graph
    /// stale; an unchanged clone of the mesh keeps it current. `O(1)`.
    pub fn is_current(&self, mesh: &TiledNavMesh) -> bool {
        mesh.state_id() == self.state
    }

    /// True when `filter` admits no polygon or off-mesh link that the base filter refuses
    /// (checked on the include / exclude masks, exactly).
    pub fn covers(&self, filter: &QueryFilter) -> bool {
        let (qi, qe) = (filter.include_flags(), filter.exclude_flags());
        let (bi, be) = (self.filter.include_flags(), self.filter.exclude_flags());
        // A flag set passing `filter` exists iff `qi & !qe != 0`; one of them fails the base
        // filter iff it can avoid every base include flag or carry a base exclude flag.
        qi & !qe == 0 || (qi & !qe & !bi == 0 && be & !qe == 0)
    }

    /// True when a path search on `mesh` under `filter` would use the graph:
    /// [`CompiledGraph::is_current`] and [`CompiledGraph::covers`].
    pub fn applies_to(&self, mesh: &TiledNavMesh, filter: &QueryFilter) -> bool {
        self.covers(filter) && self.is_current(mesh)
    }

    /// The row of a polygon of the current mesh (the caller has checked the graph current
    /// and the reference valid).
    #[inline]
    pub(crate) fn row(&self, r: PolyRef) -> Option<usize> {
        let base = *self.slot_base.get(r.slot() as usize)?;
        if base == u32::MAX {
            return None;
        }
        Some(base as usize + r.poly() as usize)
    }

    /// The goal side of a search to `end_ref` at `end_pos` under `filter`, when the graph
    /// applies (see [`CompiledGraph::applies_to`]).
    pub(crate) fn goal(
        &self,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        start_ref: PolyRef,
        end_ref: PolyRef,
        end_pos: Vec3,
    ) -> Option<LandmarkGoal> {
        if !self.applies_to(mesh, filter) {
            return None;
        }
        let row = self.row(end_ref)?;
        // The goal's row (a valid reference in the graph's mesh state): its centre is
        // `poly_centre` of its corners, its area the current one.
        let goal = self.rows.get(row).filter(|g| g.r == end_ref)?;
        let (centre, area) = (goal.centre, goal.area);
        let scale = if self.unit_costs {
            // Unit base costs: the ratios are the query's costs.
            filter.min_area_cost()
        } else if filter.area_costs() == self.filter.area_costs() {
            1.0
        } else {
            let mut scale = f64::INFINITY;
            for (q, b) in filter.area_costs().iter().zip(self.filter.area_costs()) {
                let s = q / b;
                if s < scale {
                    scale = s;
                }
            }
            scale
        };
        let mut g = LandmarkGoal {
            row,
            active: [0; ACTIVE_LANDMARKS],
            n_active: 0,
            scale,
            slack: self.slack + filter.area_cost(area) * dist(end_pos, centre),
        };
        // The landmarks that bound the start best, largest first (ties: lower index).
        // Kept in order while the terms are computed (an insertion into at most
        // ACTIVE_LANDMARKS places: a later landmark passes an earlier one only when larger).
        let start = self.row(start_ref).unwrap_or(row);
        let mut top = [f64::NEG_INFINITY; ACTIVE_LANDMARKS];
        for i in 0..self.k {
            let t = self.term(start, row, i);
            let mut j = g.n_active;
            while j > 0 && top[j - 1].total_cmp(&t) == Ordering::Less {
                j -= 1;
            }
            if j < ACTIVE_LANDMARKS {
                let end = (g.n_active + 1).min(ACTIVE_LANDMARKS);
                top.copy_within(j..end - 1, j + 1);
                g.active.copy_within(j..end - 1, j + 1);
                top[j] = t;
                g.active[j] = i as u8;
                g.n_active = end;
            }
        }
        Some(g)
    }

    /// The table's lower bound on the cost from polygon `r` (at its centre) to the goal
    /// position, `0` when the table knows nothing better.
    ///
    /// `max_i (d(L_i, g) − d(L_i, n), d(n, L_i) − d(g, L_i)) × scale − slack`. A term whose
    /// positive side is infinite while the other is finite is `+∞`: the polygon cannot reach
    /// the goal (in the base graph, which holds the query's), so it is expanded last. A term
    /// with an unknown (NaN) or two infinite sides is NaN and never taken.
    #[inline]
    pub(crate) fn bound(&self, goal: &LandmarkGoal, r: PolyRef) -> f64 {
        match self.row(r) {
            Some(row) => self.bound_row(goal, row),
            None => 0.0,
        }
    }

    /// Landmark `i`'s bound from row `n` to row `g` (the larger of its two terms; NaN and
    /// missing values read as −∞).
    fn term(&self, n: usize, g: usize, i: usize) -> f64 {
        let k = self.k;
        let at = |r: usize, j: usize| {
            f64::from(self.table.get(r * 2 * k + j).copied().unwrap_or(f32::NAN))
        };
        let a = at(g, i) - at(n, i);
        let b = at(n, k + i) - at(g, k + i);
        let m = if b > a { b } else { a };
        if m.is_nan() {
            f64::NEG_INFINITY
        } else {
            m
        }
    }

    /// [`CompiledGraph::bound`] of the polygon of `row`.
    #[inline]
    pub(crate) fn bound_row(&self, goal: &LandmarkGoal, row: usize) -> f64 {
        if !self.exact.is_empty() {
            // d(n, g) itself; +∞ (cannot reach the goal) stays, NaN (unknown) gives 0.
            let n = self.rows.len();
            let Some(&v) = self.exact.get(goal.row * n + row) else {
                return 0.0;
            };
            let h = f64::from(v) * goal.scale - goal.slack;
            return if h > 0.0 { h } else { 0.0 };
        }
        let k = self.k;
        if k == 0 {
            return 0.0;
        }
        let (Some(n), Some(g)) = (
            self.table.get(row * 2 * k..row * 2 * k + 2 * k),
            self.table.get(goal.row * 2 * k..goal.row * 2 * k + 2 * k),
        ) else {
            return 0.0;
        };
        let (n_from, n_to) = n.split_at(k);
        let (g_from, g_to) = g.split_at(k);
        let mut best = 0.0f64;
        for &i in &goal.active[..goal.n_active] {
            let i = usize::from(i);
            // d(L, g) − d(L, n) and d(n, L) − d(g, L).
            let t = f64::from(g_from[i]) - f64::from(n_from[i]);
            if t > best {
                best = t;
            }
            let t = f64::from(n_to[i]) - f64::from(g_to[i]);
            if t > best {
                best = t;
            }
        }
        let h = best * goal.scale - goal.slack;
        if h > 0.0 {
            h
        } else {
            0.0
        }
    }
}

/// The cost of edge `e` from a polygon of area cost `ca` to one of `cb` between centres:
/// `ca·out + cb·into` through an edge crossing, `ca·out + cost(link)·mid + cb·into` over an
/// off-mesh link (the operations and order of [`crossing_cost`]).
#[inline]
fn edge_cost(e: &GraphEdge, ca: f64, cb: f64, filter: &QueryFilter) -> f64 {
    if e.kind & EDGE_LINK == 0 {
        ca * e.out + cb * e.into
    } else {
        ca * e.out + filter.area_cost(e.link_area) * e.mid + cb * e.into
    }
}

impl CompiledGraph {
    /// The first crossing (in neighbour order) from `from` to `to` that `filter` (covered by
    /// the base filter) allows: exactly what the tile walk's `crossing_between` answers on
    /// the current mesh, `InvalidPolyRef` for an invalid `from` included. `None` when the
    /// graph cannot tell: `from` fails the base filter, so the graph keeps no crossing of it
    /// (the tile walk does not test the departing polygon).
    pub(crate) fn crossing_between(
        &self,
        mesh: &TiledNavMesh,
        from: PolyRef,
        to: PolyRef,
        filter: &QueryFilter,
    ) -> Option<Result<Option<&Crossing>, QueryError>> {
        if let Err(e) = decode(mesh, from) {
            return Some(Err(e));
        }
        let row = self.row(from)?;
        let from_row = self.rows.get(row)?;
        if !self.filter.passes_flags(from_row.flags) {
            return None;
        }
        let (lo, hi) = (from_row.lo as usize, from_row.hi as usize);
        for (j, e) in self.edges.get(lo..hi)?.iter().enumerate() {
            let t = &self.rows[e.to as usize];
            if t.r != to
                || !filter.passes_flags(t.flags)
                || (e.kind & EDGE_LINK != 0 && !filter.passes_flags(e.link_flags))
            {
                continue;
            }
            return Some(Ok(Some(&self.crossings[lo + j])));
        }
        Some(Ok(None))
    }

    /// True when the polygon of `row` has an off-mesh link among its crossings.
    pub(crate) fn row_has_links(&self, row: usize) -> bool {
        self.rows.get(row).is_some_and(|r| {
            self.edges[r.lo as usize..r.hi as usize]
                .iter()
                .any(|e| e.kind & EDGE_LINK != 0)
        })
    }

    /// Calls `f(neighbour, neighbour position, edge cost, neighbour row)` for every edge
    /// leaving the polygon of `row` under `filter` (covered by the base filter), in neighbour
    /// order, first crossing per target: exactly the calls the tile walk
    /// ([`PathGraph::for_each_edge`](crate::query::PathGraph::for_each_edge)) makes for it on
    /// the current mesh, with the same bits. The polygon is at its centre, or at `from_pos` when
    /// it is the search's start (then it must have no off-mesh link,
    /// [`CompiledGraph::row_has_links`]: the graph keeps no link's departure point).
    #[inline]
    pub(crate) fn for_each_edge(
        &self,
        row: usize,
        from_pos: Option<Vec3>,
        filter: &QueryFilter,
        same_filter: bool,
        ends: &PathEnds,
        mut f: impl FnMut(PolyRef, Vec3, f64, usize),
    ) {
        let Some(from_row) = self.rows.get(row) else {
            return;
        };
        let (lo, hi) = (from_row.lo as usize, from_row.hi as usize);
        let ca = filter.area_cost(from_row.area);
        for (j, e) in self.edges[lo..hi].iter().enumerate() {
            let to = e.to as usize;
            if !same_filter {
                let ok = |x: &GraphEdge| {
                    filter.passes_flags(self.rows[x.to as usize].flags)
                        && (x.kind & EDGE_LINK == 0 || filter.passes_flags(x.link_flags))
                };
                if !ok(e) {
                    continue;
                }
                // A repeated target is skipped when an earlier crossing to it passes.
                if e.kind & EDGE_REPEAT != 0
                    && self.edges[lo..lo + j].iter().any(|x| x.to == e.to && ok(x))
                {
                    continue;
                }
            } else if e.kind & EDGE_REPEAT != 0 {
                continue;
            }
            let to_row = &self.rows[to];
            let target = to_row.r;
            let cb = filter.area_cost(to_row.area);
            let to_end = target == ends.start_ref || target == ends.end_ref;
            if from_pos.is_none() && !to_end {
                f(target, to_row.centre, edge_cost(e, ca, cb, filter), to);
                continue;
            }
            // Measured afresh from or to an end, as the tiles' walk does: an edge crossing's
            // entry point is its exit point (the midpoint).
            let a = match from_pos {
                Some(p) => dist(p, self.crossings[lo + j].exit_point()),
                None => e.out,
            };
            let to_pos = if target == ends.start_ref {
                ends.start_pos
            } else if target == ends.end_ref {
                ends.end_pos
            } else {
                to_row.centre
            };
            let b = if to_end {
                dist(self.crossings[lo + j].exit_point(), to_pos)
            } else {
                e.into
            };
            let cost = if e.kind & EDGE_LINK == 0 {
                ca * a + cb * b
            } else {
                ca * a + filter.area_cost(e.link_area) * e.mid + cb * b
            };
            f(target, to_pos, cost, to);
        }
    }
}

/// The path search's edges read from a compiled graph that applies to the search: the
/// very calls of the tile walk, bit for bit. A polygon the graph cannot expand (none of its
/// rows, or the search's start when it has an off-mesh link: the graph keeps no link's
/// departure point) is expanded from the derived per-tile data instead.
pub(crate) struct CompiledWalk<'a, 'm> {
    /// The compiled graph (current for the mesh searched, covering its filter).
    pub(crate) graph: &'a CompiledGraph,
    /// Whether the search's filter passes exactly the polygons and links the graph's does.
    pub(crate) same_filter: bool,
    /// The walk for the polygons the graph cannot expand.
    pub(crate) tiles: DerivedWalk<'a, 'm>,
}

impl PolygonGraph for CompiledWalk<'_, '_> {
    #[inline]
    fn edges_from(
        &mut self,
        from: PolyRef,
        mut f: impl FnMut(PolyRef, Vec3, f64, usize),
    ) -> Result<(), QueryError> {
        let ends = *self.tiles.graph.ends();
        let row = self.graph.row(from).and_then(|row| {
            if from != ends.start_ref {
                Some((row, None))
            } else if self.graph.row_has_links(row) {
                None
            } else {
                Some((row, Some(ends.start_pos)))
            }
        });
        match row {
            Some((row, from_pos)) => {
                let filter = self.tiles.graph.filter();
                self.graph
                    .for_each_edge(row, from_pos, filter, self.same_filter, &ends, &mut f);
                Ok(())
            }
            None => self.tiles.edges_from(from, f),
        }
    }
}

/// The polygons of the largest connected part (edges taken both ways) among those that pass,
/// in row order. Ties: the part with the lowest row.
fn largest_part(fwd: &Csr, rev: &Csr, passes: &[bool]) -> Vec<u32> {
    let n = passes.len();
    let mut part_of = vec![u32::MAX; n];
    let mut best: Vec<u32> = Vec::new();
    let mut stack = Vec::new();
    let mut members = Vec::new();
    for s in 0..n {
        if !passes[s] || part_of[s] != u32::MAX {
            continue;
        }
        members.clear();
        part_of[s] = s as u32;
        stack.push(s as u32);
        while let Some(u) = stack.pop() {
            members.push(u);
            let u = u as usize;
            for g in [fwd, rev] {
                for &v in &g.to[g.start[u]..g.start[u + 1]] {
                    if part_of[v as usize] == u32::MAX && passes[v as usize] {
                        part_of[v as usize] = s as u32;
                        stack.push(v);
                    }
                }
            }
        }
        if members.len() > best.len() {
            members.sort_unstable();
            best.clone_from(&members);
        }
    }
    best
}

fn poly_of_row(mesh: &TiledNavMesh, slot_base: &[u32], row: u32) -> PolyRef {
    // The slot whose base is the largest not above `row` (empty slots have u32::MAX).
    let mut found = PolyRef::NULL;
    for (s, &b) in slot_base.iter().enumerate() {
        if b != u32::MAX && b <= row {
            if let Some(r) = mesh
                .tile_at_slot(s as u32)
                .and_then(|t| t.poly_ref(row - b))
            {
                found = r;
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::generated_grid_mesh;

    /// The active landmarks are the `ACTIVE_LANDMARKS` largest start bounds, ties to the lower
    /// index: the insertion `goal` makes equals a full sort.
    #[test]
    fn the_active_landmarks_are_the_best_bounds_at_the_start() {
        let g = generated_grid_mesh(4, 4, 4, 3);
        let f = QueryFilter::new();
        for count in [1, 3, 4, 5, 16] {
            let graph = CompiledGraph::build(&g.mesh, &f, count).unwrap();
            let refs: Vec<PolyRef> = graph.rows.iter().map(|r| r.r).collect();
            for (n, &a) in refs.iter().enumerate().step_by(7) {
                let b = refs[(n * 31 + 11) % refs.len()];
                let Some(goal) = graph.goal(&g.mesh, &f, a, b, [0.0; 3]) else {
                    continue;
                };
                let (sa, sb) = (graph.row(a).unwrap(), graph.row(b).unwrap());
                let mut terms: Vec<(f64, usize)> =
                    (0..graph.k).map(|i| (graph.term(sa, sb, i), i)).collect();
                terms.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
                let want: Vec<u8> = terms
                    .iter()
                    .take(ACTIVE_LANDMARKS)
                    .map(|t| t.1 as u8)
                    .collect();
                assert_eq!(&goal.active[..goal.n_active], &want[..]);
            }
        }
    }

    /// `covers` is exact: it holds iff every flag set the query passes, the base passes.
    #[test]
    fn covers_is_the_exact_subset_test_of_the_two_filters() {
        let g = generated_grid_mesh(1, 1, 2, 1);
        // Masks over the low 4 bits (every subset relation among them occurs).
        for (bi, be) in (0u16..16).flat_map(|i| (0u16..16).map(move |e| (i, e))) {
            let mut base = QueryFilter::new();
            base.set_include_flags(bi).set_exclude_flags(be);
            let table = CompiledGraph::build(&g.mesh, &base, 1).unwrap();
            for (qi, qe) in (0u16..16).flat_map(|i| (0u16..16).map(move |e| (i, e))) {
                let mut q = QueryFilter::new();
                q.set_include_flags(qi).set_exclude_flags(qe);
                let subset = (0u16..16).all(|f| !q.passes_flags(f) || base.passes_flags(f));
                assert_eq!(
                    table.covers(&q),
                    subset,
                    "base {bi:#x}/{be:#x} query {qi:#x}/{qe:#x}"
                );
            }
        }
    }
}
