//! ALT landmarks: exact shortest distances from and to a few landmark nodes, giving the
//! triangle-inequality estimate `max(d(L,t) − d(L,v), d(v,L) − d(t,L))`.

use crate::error::{invalid, out_of_range, GridError};
use crate::open_lists::heap::OpenSet;
use crate::searches::astar::SearchGraph;
use crate::spaces::graph::CsrGraph;

/// Landmark distance tables over one compiled graph (immutable).
#[derive(Debug, Clone, PartialEq)]
pub struct LandmarkTable {
    nodes: Vec<u32>,
    node_count: usize,
    /// `from[k * n + v]` = d(landmark k, v).
    from: Vec<f64>,
    /// `to[k * n + v]` = d(v, landmark k).
    to: Vec<f64>,
}

/// Plain Dijkstra distances from `source` (forward) or to it (`reverse`), with the
/// [`OpenSet`] tie-break.
pub(crate) fn distances(csr: &CsrGraph, source: u32, reverse: bool) -> Vec<f64> {
    let n = csr.node_count() as usize;
    let mut dist = vec![f64::INFINITY; n];
    let mut done = vec![false; n];
    let mut open = OpenSet::new(n);
    let mut buf = Vec::new();
    if (source as usize) >= n {
        return dist;
    }
    dist[source as usize] = 0.0;
    open.push_or_decrease(source, 0.0, 0.0);
    while let Some(s) = open.pop() {
        let u = s.node as usize;
        done[u] = true;
        buf.clear();
        if reverse {
            csr.predecessors(s.node, &mut buf);
        } else {
            csr.successors(s.node, &mut buf);
        }
        for &(v, w) in &buf {
            let d = s.g + w;
            if !done[v as usize] && d < dist[v as usize] {
                dist[v as usize] = d;
                open.push_or_decrease(v, d, d);
            }
        }
    }
    dist
}

impl LandmarkTable {
    /// Tables for the given landmark nodes (at least one, each a node of `csr`).
    pub fn new(csr: &CsrGraph, landmarks: &[u32]) -> Result<Self, GridError> {
        if landmarks.is_empty() {
            return Err(invalid("landmarks", "at least one landmark is needed"));
        }
        let n = csr.node_count() as usize;
        for &l in landmarks {
            if l as usize >= n {
                return Err(out_of_range("landmark", i64::from(l), 0, n as i64 - 1));
            }
        }
        let mut from = Vec::with_capacity(n * landmarks.len());
        let mut to = Vec::with_capacity(n * landmarks.len());
        for &l in landmarks {
            from.extend(distances(csr, l, false));
            to.extend(distances(csr, l, true));
        }
        Ok(LandmarkTable {
            nodes: landmarks.to_vec(),
            node_count: n,
            from,
            to,
        })
    }

    /// Chooses `count` landmarks by farthest selection: node 0 first (or the first node
    /// with an edge), then repeatedly the node whose smallest finite distance to the
    /// chosen ones is largest (ties: the smaller index). Deterministic.
    pub fn select(csr: &CsrGraph, count: usize) -> Result<Self, GridError> {
        let n = csr.node_count() as usize;
        if count == 0 || n == 0 {
            return Err(invalid(
                "landmark count",
                "need at least one landmark and one node",
            ));
        }
        let first = (0..csr.node_count())
            .find(|&v| csr.out_edges(v).next().is_some())
            .unwrap_or(0);
        let mut chosen = vec![first];
        let mut best = distances(csr, first, false);
        while chosen.len() < count.min(n) {
            let mut pick = None;
            let mut far = -1.0;
            for (v, &d) in best.iter().enumerate() {
                if d.is_finite() && d > far && !chosen.contains(&(v as u32)) {
                    far = d;
                    pick = Some(v as u32);
                }
            }
            let Some(p) = pick else { break };
            chosen.push(p);
            for (b, d) in best.iter_mut().zip(distances(csr, p, false)) {
                if d < *b {
                    *b = d;
                }
            }
        }
        LandmarkTable::new(csr, &chosen)
    }

    /// The landmark nodes.
    pub fn nodes(&self) -> &[u32] {
        &self.nodes
    }

    /// The ALT lower bound of d(v, t) (0 when nothing is known).
    pub fn estimate(&self, v: u32, t: u32) -> f64 {
        let (v, t) = (v as usize, t as usize);
        let n = self.node_count;
        if v >= n || t >= n {
            return 0.0;
        }
        let mut h: f64 = 0.0;
        for k in 0..self.nodes.len() {
            let (lv, lt) = (self.from[k * n + v], self.from[k * n + t]);
            if lv.is_finite() && lt.is_finite() && lt - lv > h {
                h = lt - lv;
            }
            let (vl, tl) = (self.to[k * n + v], self.to[k * n + t]);
            if vl.is_finite() && tl.is_finite() && vl - tl > h {
                h = vl - tl;
            }
        }
        // Differences of rounded sums can exceed the true bound by a few ulps.
        h * (1.0 - 1e-9)
    }
}

/// A compiled graph searched with the landmark estimate.
#[derive(Debug, Clone, Copy)]
pub struct LandmarkGuidedGraph<'a> {
    /// The graph.
    pub csr: &'a CsrGraph,
    /// Its landmarks (built on the same graph).
    pub landmarks: &'a LandmarkTable,
}

impl SearchGraph for LandmarkGuidedGraph<'_> {
    fn node_count(&self) -> usize {
        self.csr.node_count() as usize
    }

    fn is_passable(&self, node: u32) -> bool {
        node < self.csr.node_count()
    }

    fn successors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        self.csr.successors(node, out)
    }

    fn predecessors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        self.csr.predecessors(node, out)
    }

    fn estimate(&self, from: u32, to: u32) -> f64 {
        self.landmarks.estimate(from, to)
    }
}
