//! Landmark lower bounds for path model v2 ([`crate::query::PathModel::Portals`]): the
//! "ALT" estimate (A*, landmarks, triangle inequality) over a **crossing-sample graph**
//! whose distances never exceed the costs of the v2 state graph.
//!
//! **The graph.** One node per sample of a crossing between two polygons, shared by both
//! directions (sample `i` of `k` from row `x` into row `y` and sample `k − 1 − i` from `y`
//! into `x`, the same point up to rounding, are one node), and one node for the off-mesh
//! links between two polygons. In polygon `X` a node has *points*: where the v2 states of
//! that sample lie, as either side computes them (a link: its departure point in the
//! polygon it leaves, its arrival point in the one it enters). Two nodes with points in `X`
//! are joined by an undirected arc of weight `min cost(area of X) · |a − b|` in X/Z over
//! their points there, the very expression the search prices an edge with. Every v2 edge
//! inside `X` (plus an off-mesh link's own cost, which is never negative) therefore costs
//! at least the arc between its states' nodes, so the graph distance `D` never exceeds the
//! v2 cost between two states. The graph is undirected (a one-way link counts both ways,
//! which only lowers `D`), so `D` is a metric and, for a landmark node `L`, the estimate
//! `|D(L, goal) − D(L, n)|` never exceeds `D(n, goal)`, hence never the v2 cost from state
//! `n` to the goal: admissible and consistent. The goal (and the start) join the graph as
//! points connected to the points of their polygon.
//!
//! **Rounding.** The stored distances are sums of rounded terms; the estimate takes off a
//! slack of `2^-30` times the largest finite distance of the table before the query's
//! [`HEURISTIC_SCALE`] (a relative `10^-6`), far more than that rounding, so an estimate
//! never exceeds the cost the search itself sums.
//!
//! **Lifetime.** A table is a function of the mesh state ([`TiledNavMesh::state_id`]), the
//! filter and the sampling only (not of any earlier search): the query object builds it
//! when a v2 search begins (or a sliced one steps) with a key the kept table was not built
//! for. Landmarks lie in the largest connected part, chosen by farthest-point selection
//! from its lowest node (ties: the lowest node number), so the table, the estimates and
//! the searches' answers depend on nothing else.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::BuildHasherDefault;

use crate::mesh::TiledNavMesh;
use crate::query::geom::{dist_sqr_2d, Vec3};
use crate::query::graph::{for_each_neighbour_at, Crossing, HEURISTIC_SCALE};
use crate::query::nodepool::RefHasher;
use crate::query::poly::{poly_passes, slot_rows};
use crate::query::portals::SampleKey;

/// Landmarks a table holds.
pub(crate) const LANDMARKS: usize = 8;
/// Landmarks a search reads: those that bound its start best.
pub(crate) const ACTIVE: usize = 4;
/// No node (a state without a crossing: the start and the goal, or no table).
pub(crate) const NO_NODE: u32 = u32::MAX;

/// A point of a crossing node inside one polygon: a sample of the crossing (as either
/// side computes it), or an off-mesh link's departure or arrival point.
#[derive(Debug, Clone, Copy)]
struct Piece {
    node: u32,
    a: Vec3,
}

/// A node's key: the two rows (smaller first), the sample count and the sample number
/// counted from the smaller row's side (so sample `i` from `x` into `y` and sample
/// `k − 1 − i` from `y` into `x`, the same point up to rounding, are one node); `k = 0`
/// for the off-mesh links between the two polygons.
type NodeKey = (u32, u32, u16);

fn node_key(x: u32, y: u32, k: u8, i: u8) -> NodeKey {
    let idx = if x <= y || k == 0 {
        i
    } else {
        k - 1 - i.min(k - 1)
    };
    (x.min(y), x.max(y), u16::from(k) << 8 | u16::from(idx))
}

/// The landmark table of one mesh state under one filter (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct PortalLandmarks {
    /// What the table was built for.
    key: SampleKey,
    /// Row of polygon 0 of each slot (`u32::MAX`: no tile).
    slot_base: Vec<u32>,
    /// Sample key ([`node_key`]) → node.
    nodes: HashMap<NodeKey, u32, BuildHasherDefault<RefHasher>>,
    /// Per row, its pieces: `pieces[piece_start[r]..piece_start[r + 1]]`.
    piece_start: Vec<u32>,
    pieces: Vec<Piece>,
    /// Area cost of each row under the filter (0 for a polygon the filter refuses).
    row_cost: Vec<f64>,
    /// `dist[node · count + k]`: `D(landmark k, node)`, `INFINITY` when not connected.
    dist: Vec<f64>,
    count: usize,
    /// Taken off every estimate (see "Rounding").
    slack: f64,
}

impl PortalLandmarks {
    /// True when this table was built for `key`.
    pub(crate) fn fits(&self, key: &SampleKey) -> bool {
        self.key == *key
    }

    /// Builds the table of `mesh` under `key`'s filter and sampling (`key.state` is
    /// `mesh.state_id()`). A mesh whose polygons do not fit in `u32` rows gets an empty
    /// table (no landmark: the straight-line estimate only).
    pub(crate) fn build(mesh: &TiledNavMesh, key: SampleKey) -> PortalLandmarks {
        let (filter, sampling) = (&key.filter, key.sampling);
        let (slot_base, rows) = slot_rows(mesh).unwrap_or_default();
        let mut nodes: HashMap<NodeKey, u32, BuildHasherDefault<RefHasher>> = HashMap::default();
        // (row, piece) in scan order: departure pieces under the scanned polygon's row,
        // arrival pieces under the target's.
        let mut raw: Vec<(u32, Piece)> = Vec::new();
        let mut row_cost = vec![0.0; rows];
        for t in mesh.tiles().filter(|_| rows > 0) {
            let base = slot_base[t.slot() as usize];
            for p in 0..t.tile().poly_count() {
                if !poly_passes(t, p, filter) {
                    continue;
                }
                let x = base + p as u32;
                row_cost[x as usize] = filter.area_cost(t.tile().areas()[p]);
                for_each_neighbour_at(mesh, t, p, filter, |nb, tt, tp| {
                    let y = slot_base[tt.slot() as usize] + tp as u32;
                    let mut node_of = |k: u8, i: u8| {
                        let next = nodes.len() as u32;
                        *nodes.entry(node_key(x, y, k, i)).or_insert(next)
                    };
                    match nb.crossing {
                        Crossing::Edge { left, right, .. } => {
                            // The very samples of the v2 search (the same function).
                            sampling.for_each_sample(left, right, |k, i, a| {
                                let node = node_of(k, i);
                                raw.push((x, Piece { node, a }));
                                raw.push((y, Piece { node, a }));
                            });
                        }
                        Crossing::OffMesh { start, end, .. } => {
                            let node = node_of(0, 0);
                            raw.push((x, Piece { node, a: start }));
                            raw.push((y, Piece { node, a: end }));
                        }
                    }
                });
            }
        }
        // Group the pieces by row (a counting sort: scan order within a row).
        let mut piece_start = vec![0u32; rows + 1];
        for &(r, _) in &raw {
            piece_start[r as usize + 1] += 1;
        }
        for r in 0..rows {
            piece_start[r + 1] += piece_start[r];
        }
        let mut fill: Vec<u32> = piece_start[..rows].to_vec();
        let mut pieces = vec![
            Piece {
                node: 0,
                a: [0.0; 3]
            };
            raw.len()
        ];
        for &(r, pc) in &raw {
            pieces[fill[r as usize] as usize] = pc;
            fill[r as usize] += 1;
        }
        drop(raw);
        // Arcs: per polygon, between each two of its nodes, the smallest price the v2
        // search gives an edge between a point of one and a point of the other
        // (`cost · |a − b|` in X/Z, the same expression), both ways. (The distances do
        // not depend on the order of the arcs.)
        let n = nodes.len();
        let mut arcs: Vec<(u32, u32, f64)> = Vec::new();
        let mut degree = vec![0u32; n + 1];
        // Per polygon: its distinct nodes, each point's index among them, and the smallest
        // price between each two of them.
        let mut local: Vec<u32> = Vec::new();
        let mut at: Vec<usize> = Vec::new();
        let mut w: Vec<f64> = Vec::new();
        for r in 0..rows {
            let ps = &pieces[piece_start[r] as usize..piece_start[r + 1] as usize];
            let c = row_cost[r];
            local.clear();
            at.clear();
            for pc in ps {
                let li = match local.iter().position(|&v| v == pc.node) {
                    Some(li) => li,
                    None => {
                        local.push(pc.node);
                        local.len() - 1
                    }
                };
                at.push(li);
            }
            let m = local.len();
            w.clear();
            w.resize(m * m, f64::INFINITY);
            for (i, u) in ps.iter().enumerate() {
                for (j, v) in ps.iter().enumerate().skip(i + 1) {
                    let (a, b) = (at[i].min(at[j]), at[i].max(at[j]));
                    if a != b {
                        let x = c * dist_sqr_2d(u.a, v.a).sqrt();
                        w[a * m + b] = w[a * m + b].min(x);
                    }
                }
            }
            for a in 0..m {
                for b in a + 1..m {
                    let x = w[a * m + b];
                    if x.is_finite() {
                        arcs.push((local[a], local[b], x));
                        degree[local[a] as usize + 1] += 1;
                        degree[local[b] as usize + 1] += 1;
                    }
                }
            }
        }
        for u in 0..n {
            degree[u + 1] += degree[u];
        }
        let adj_start: Vec<usize> = degree.iter().map(|&x| x as usize).collect();
        let mut fill: Vec<usize> = adj_start[..n].to_vec();
        let mut adj: Vec<(u32, f64)> = vec![(0, 0.0); arcs.len() * 2];
        for &(u, v, w) in &arcs {
            adj[fill[u as usize]] = (v, w);
            fill[u as usize] += 1;
            adj[fill[v as usize]] = (u, w);
            fill[v as usize] += 1;
        }
        drop(arcs);

        let count = LANDMARKS.min(n);
        let mut dist = vec![f64::INFINITY; n * count];
        let mut d = vec![f64::INFINITY; n];
        let mut heap = BinaryHeap::new();
        let mut max_finite: f64 = 0.0;
        // Landmarks in the largest connected part (other parts get the straight-line
        // estimate only): the first furthest from the part's first node, each next one
        // furthest from all chosen (ties: the lowest node number).
        let part = largest_part(&adj_start, &adj, n);
        if let Some(&seed) = part.first() {
            dijkstra(&adj_start, &adj, seed, &mut d, &mut heap);
            let mut nearest = d.clone();
            for k in 0..count {
                let mut best = seed as usize;
                for &v in &part {
                    if nearest[v as usize] > nearest[best] {
                        best = v as usize;
                    }
                }
                dijkstra(&adj_start, &adj, best as u32, &mut d, &mut heap);
                for v in 0..n {
                    dist[v * count + k] = d[v];
                    if d[v] < nearest[v] {
                        nearest[v] = d[v];
                    }
                    if d[v].is_finite() {
                        max_finite = max_finite.max(d[v]);
                    }
                }
            }
        }
        PortalLandmarks {
            key,
            slot_base,
            nodes,
            piece_start,
            pieces,
            row_cost,
            dist,
            count,
            slack: max_finite / (1u64 << 30) as f64,
        }
    }

    /// The row of polygon `p` of the tile in `slot`.
    #[inline]
    pub(crate) fn row(&self, slot: u32, p: usize) -> u32 {
        self.slot_base
            .get(slot as usize)
            .map_or(u32::MAX, |&b| b.wrapping_add(p as u32))
    }

    /// The node of sample `i` of `k` on the crossing from row `x` into row `y` (`k = 0`:
    /// an off-mesh link), [`NO_NODE`] when the table has none.
    #[inline]
    pub(crate) fn node(&self, x: u32, y: u32, k: u8, i: u8) -> u32 {
        self.nodes
            .get(&node_key(x, y, k, i))
            .copied()
            .unwrap_or(NO_NODE)
    }

    /// `D(landmark k, point)` for every landmark `k`, for a point inside row `r`: through
    /// the nearest reachable point of the row (`INFINITY` when the row has none or the
    /// filter refuses it). One distance per point of the row, whatever the landmark count.
    fn point_dists(&self, r: u32, pos: Vec3) -> [f64; LANDMARKS] {
        let mut out = [f64::INFINITY; LANDMARKS];
        let r = r as usize;
        if r + 1 >= self.piece_start.len() {
            return out;
        }
        let c = self.row_cost[r];
        for pc in &self.pieces[self.piece_start[r] as usize..self.piece_start[r + 1] as usize] {
            let leg = c * dist_sqr_2d(pos, pc.a).sqrt();
            let row = &self.dist[pc.node as usize * self.count..][..self.count];
            for (o, &d) in out.iter_mut().zip(row) {
                *o = o.min(d + leg);
            }
        }
        out
    }

    /// The active landmarks of a search from `start` (in row `sr`) to `goal` (in row `gr`):
    /// up to [`ACTIVE`] of them, the ones whose bound at the start is largest (ties: lower
    /// landmark number), each with `D(landmark, goal)`.
    pub(crate) fn activate(&self, sr: u32, start: Vec3, gr: u32, goal: Vec3) -> Active {
        let dg = self.point_dists(gr, goal);
        let ds = self.point_dists(sr, start);
        let mut cand: Vec<(f64, usize, f64)> = Vec::with_capacity(self.count);
        for k in 0..self.count {
            if dg[k].is_finite() && ds[k].is_finite() {
                cand.push(((dg[k] - ds[k]).abs(), k, dg[k]));
            }
        }
        cand.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut act = Active::default();
        for &(_, k, dg) in cand.iter().take(ACTIVE) {
            act.k[act.len] = k as u32;
            act.dg[act.len] = dg;
            act.len += 1;
        }
        act
    }

    /// The estimate of the cost from a state on crossing `node` to the goal of `act`
    /// (0 without a node or active landmarks).
    #[inline]
    pub(crate) fn estimate(&self, act: &Active, node: u32) -> f64 {
        if node == NO_NODE || act.len == 0 {
            return 0.0;
        }
        let Some(row) = self.dist.get(node as usize * self.count..) else {
            return 0.0;
        };
        let mut best: f64 = 0.0;
        for i in 0..act.len {
            let dn = row.get(act.k[i] as usize).copied().unwrap_or(f64::INFINITY);
            if dn.is_finite() {
                best = best.max((act.dg[i] - dn).abs());
            }
        }
        ((best - self.slack) * HEURISTIC_SCALE).max(0.0)
    }
}

/// The active landmarks of one search ([`PortalLandmarks::activate`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Active {
    k: [u32; ACTIVE],
    dg: [f64; ACTIVE],
    len: usize,
}

/// The nodes of the largest connected part of the undirected graph, ascending (ties: the
/// part holding the lowest node number).
fn largest_part(adj_start: &[usize], adj: &[(u32, f64)], n: usize) -> Vec<u32> {
    let mut part_of = vec![u32::MAX; n];
    let mut best: (usize, u32) = (0, 0);
    let mut stack = Vec::new();
    let mut parts = 0u32;
    for s in 0..n {
        if part_of[s] != u32::MAX {
            continue;
        }
        let id = parts;
        parts += 1;
        part_of[s] = id;
        stack.push(s as u32);
        let mut size = 0usize;
        while let Some(u) = stack.pop() {
            size += 1;
            for &(v, _) in &adj[adj_start[u as usize]..adj_start[u as usize + 1]] {
                if part_of[v as usize] == u32::MAX {
                    part_of[v as usize] = id;
                    stack.push(v);
                }
            }
        }
        if size > best.0 {
            best = (size, id);
        }
    }
    (0..n as u32)
        .filter(|&v| part_of[v as usize] == best.1 && best.0 > 0)
        .collect()
}

/// Plain Dijkstra over the undirected crossing graph from `source` into `d` (ties: the
/// lower node number first).
fn dijkstra(
    adj_start: &[usize],
    adj: &[(u32, f64)],
    source: u32,
    d: &mut [f64],
    heap: &mut BinaryHeap<Reverse<(u64, u32)>>,
) {
    d.fill(f64::INFINITY);
    heap.clear();
    d[source as usize] = 0.0;
    heap.push(Reverse((0f64.to_bits(), source)));
    while let Some(Reverse((bits, u))) = heap.pop() {
        let g = f64::from_bits(bits);
        if g > d[u as usize] {
            continue;
        }
        for &(v, w) in &adj[adj_start[u as usize]..adj_start[u as usize + 1]] {
            let ng = g + w;
            if ng < d[v as usize] {
                d[v as usize] = ng;
                // Non-negative finite values order as their bit patterns.
                heap.push(Reverse((ng.to_bits(), v)));
            }
        }
    }
}
