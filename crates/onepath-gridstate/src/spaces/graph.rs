//! Graphs: the mutable [`Graph`] (edges with id, from, to, weight, alive flag; removal
//! marks an edge dead), and the immutable compiled forms [`CsrGraph`] (compressed sparse
//! rows, forward and reverse) and [`PointGraph`] (a CSR graph with node positions and the
//! Euclidean estimate).

use std::sync::Arc;

use crate::error::{invalid, out_of_range, GridError};
use crate::searches::astar::SearchGraph;
use crate::spaces::area::next_version;

/// The largest node count a graph may have (2^26, as in the state format).
pub const MAX_GRAPH_NODES: u32 = 1 << 26;

/// An edge id: the index of the edge in creation order (ids are never reused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EdgeId(pub u32);

/// One edge as stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edge {
    /// Tail node.
    pub from: u32,
    /// Head node.
    pub to: u32,
    /// Weight (finite, ≥ 0).
    pub weight: f64,
    /// False once removed.
    pub alive: bool,
}

/// A directed weighted graph over nodes `0..node_count`. Edges are kept in id order as
/// struct-of-arrays; a removed edge stays (dead) so ids and the saved layout are stable.
/// [`Graph::version`] grows with every change.
#[derive(Debug, Clone)]
pub struct Graph {
    node_count: u32,
    from: Vec<u32>,
    to: Vec<u32>,
    weight: Vec<f64>,
    alive: Vec<bool>,
    version: u32,
}

impl Graph {
    /// A graph of `node_count` nodes (≤ 2^26) and no edges. Isolated nodes cost nothing
    /// until the graph is compiled.
    pub fn new(node_count: u32) -> Result<Self, GridError> {
        if node_count > MAX_GRAPH_NODES {
            return Err(out_of_range(
                "node count",
                i64::from(node_count),
                0,
                i64::from(MAX_GRAPH_NODES),
            ));
        }
        Ok(Graph {
            node_count,
            from: Vec::new(),
            to: Vec::new(),
            weight: Vec::new(),
            alive: Vec::new(),
            version: 0,
        })
    }

    /// Number of nodes.
    pub fn node_count(&self) -> u32 {
        self.node_count
    }

    /// Number of edges ever added (dead ones included).
    pub fn edge_count(&self) -> u32 {
        self.from.len() as u32
    }

    /// The version: +1 per change (wraps to 0 after `i32::MAX`).
    pub fn version(&self) -> u32 {
        self.version
    }

    fn check_node(&self, what: &'static str, n: u32) -> Result<(), GridError> {
        if n < self.node_count {
            Ok(())
        } else {
            Err(out_of_range(
                what,
                i64::from(n),
                0,
                i64::from(self.node_count) - 1,
            ))
        }
    }

    /// Adds a directed edge.
    pub fn add_edge(&mut self, from: u32, to: u32, weight: f64) -> Result<EdgeId, GridError> {
        self.check_node("from", from)?;
        self.check_node("to", to)?;
        check_edge_weight(weight)?;
        if self.from.len() >= i32::MAX as usize {
            return Err(invalid("edge count", "the graph holds i32::MAX edges"));
        }
        let id = EdgeId(self.from.len() as u32);
        self.from.push(from);
        self.to.push(to);
        self.weight.push(weight);
        self.alive.push(true);
        self.version = next_version(self.version);
        Ok(id)
    }

    /// Adds two edges, `a → b` and `b → a`, with the same weight.
    pub fn add_undirected(
        &mut self,
        a: u32,
        b: u32,
        weight: f64,
    ) -> Result<(EdgeId, EdgeId), GridError> {
        self.check_node("from", a)?;
        self.check_node("to", b)?;
        check_edge_weight(weight)?;
        Ok((self.add_edge(a, b, weight)?, self.add_edge(b, a, weight)?))
    }

    /// The edge with this id.
    pub fn edge(&self, id: EdgeId) -> Option<Edge> {
        let i = id.0 as usize;
        Some(Edge {
            from: *self.from.get(i)?,
            to: self.to[i],
            weight: self.weight[i],
            alive: self.alive[i],
        })
    }

    fn check_edge(&self, id: EdgeId) -> Result<usize, GridError> {
        let i = id.0 as usize;
        if i < self.from.len() {
            Ok(i)
        } else {
            Err(out_of_range(
                "edge id",
                i64::from(id.0),
                0,
                self.from.len() as i64 - 1,
            ))
        }
    }

    /// Marks an edge dead (it keeps its id and slot). Returns false if it was already dead.
    pub fn remove_edge(&mut self, id: EdgeId) -> Result<bool, GridError> {
        let i = self.check_edge(id)?;
        if !self.alive[i] {
            return Ok(false);
        }
        self.alive[i] = false;
        self.version = next_version(self.version);
        Ok(true)
    }

    /// Changes an edge's weight.
    pub fn set_weight(&mut self, id: EdgeId, weight: f64) -> Result<(), GridError> {
        let i = self.check_edge(id)?;
        check_edge_weight(weight)?;
        if self.weight[i].to_bits() != weight.to_bits() {
            self.weight[i] = weight;
            self.version = next_version(self.version);
        }
        Ok(())
    }

    /// Compiles the live edges into an immutable [`CsrGraph`] (edges of a node in id
    /// order).
    pub fn compile(&self) -> CsrGraph {
        let n = self.node_count as usize;
        let live: Vec<usize> = (0..self.from.len()).filter(|&i| self.alive[i]).collect();
        let build = |key: &dyn Fn(usize) -> u32, other: &dyn Fn(usize) -> u32| {
            let mut offsets = vec![0u32; n + 1];
            for &i in &live {
                offsets[key(i) as usize + 1] += 1;
            }
            for k in 0..n {
                offsets[k + 1] += offsets[k];
            }
            let mut fill = offsets.clone();
            let mut nodes = vec![0u32; live.len()];
            let mut weights = vec![0f64; live.len()];
            let mut ids = vec![0u32; live.len()];
            for &i in &live {
                let slot = &mut fill[key(i) as usize];
                nodes[*slot as usize] = other(i);
                weights[*slot as usize] = self.weight[i];
                ids[*slot as usize] = i as u32;
                *slot += 1;
            }
            Adjacency {
                offsets,
                nodes,
                weights,
                ids,
            }
        };
        let forward = build(&|i| self.from[i], &|i| self.to[i]);
        let reverse = build(&|i| self.to[i], &|i| self.from[i]);
        CsrGraph {
            node_count: self.node_count,
            forward: Arc::new(forward),
            reverse: Arc::new(reverse),
        }
    }
}

pub(crate) fn check_edge_weight(w: f64) -> Result<(), GridError> {
    if w.is_finite() && w >= 0.0 {
        Ok(())
    } else {
        Err(invalid(
            "edge weight",
            format!("{w} is not finite and >= 0"),
        ))
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Adjacency {
    offsets: Vec<u32>,
    nodes: Vec<u32>,
    weights: Vec<f64>,
    ids: Vec<u32>,
}

impl Adjacency {
    #[inline]
    fn range(&self, node: u32) -> std::ops::Range<usize> {
        let i = node as usize;
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }
}

/// An immutable compiled graph: forward and reverse adjacency in compressed sparse rows.
/// As a [`SearchGraph`] its estimate is 0 (Dijkstra order); wrap it in a [`PointGraph`] or
/// use [`crate::LandmarkTable`] for an informed estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct CsrGraph {
    node_count: u32,
    forward: Arc<Adjacency>,
    reverse: Arc<Adjacency>,
}

impl CsrGraph {
    /// Number of nodes.
    pub fn node_count(&self) -> u32 {
        self.node_count
    }

    /// Number of (live) edges.
    pub fn edge_count(&self) -> usize {
        self.forward.nodes.len()
    }

    /// The outgoing edges of `node` as (head, weight, edge id), in id order.
    pub fn out_edges(&self, node: u32) -> impl Iterator<Item = (u32, f64, EdgeId)> + '_ {
        let f = &self.forward;
        f.range(node)
            .map(move |k| (f.nodes[k], f.weights[k], EdgeId(f.ids[k])))
    }

    /// The incoming edges of `node` as (tail, weight, edge id), in id order.
    pub fn in_edges(&self, node: u32) -> impl Iterator<Item = (u32, f64, EdgeId)> + '_ {
        let r = &self.reverse;
        r.range(node)
            .map(move |k| (r.nodes[k], r.weights[k], EdgeId(r.ids[k])))
    }
}

impl SearchGraph for CsrGraph {
    fn node_count(&self) -> usize {
        self.node_count as usize
    }

    fn is_passable(&self, node: u32) -> bool {
        node < self.node_count
    }

    fn successors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        let f = &self.forward;
        for k in f.range(node) {
            out.push((f.nodes[k], f.weights[k]));
        }
    }

    fn predecessors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        let r = &self.reverse;
        for k in r.range(node) {
            out.push((r.nodes[k], r.weights[k]));
        }
    }

    fn estimate(&self, _from: u32, _to: u32) -> f64 {
        0.0
    }
}

/// A compiled graph whose nodes have positions; the estimate is the Euclidean distance
/// (`sqrt(dx² + dy² + dz²)`, IEEE-exact operations only). Creation checks that every edge
/// is at least as long as the straight line between its ends, so the estimate is
/// admissible and consistent.
#[derive(Debug, Clone, PartialEq)]
pub struct PointGraph {
    csr: CsrGraph,
    xs: Vec<f64>,
    ys: Vec<f64>,
    zs: Vec<f64>,
}

impl PointGraph {
    /// Compiles `graph` with one position per node.
    pub fn new(graph: &Graph, positions: &[[f64; 3]]) -> Result<Self, GridError> {
        if positions.len() != graph.node_count() as usize {
            return Err(invalid(
                "positions",
                format!(
                    "{} positions for {} nodes",
                    positions.len(),
                    graph.node_count()
                ),
            ));
        }
        if let Some(i) = positions
            .iter()
            .position(|p| !p.iter().all(|v| v.is_finite()))
        {
            return Err(invalid(
                "positions",
                format!("node {i} has a non-finite coordinate"),
            ));
        }
        let pg = PointGraph {
            csr: graph.compile(),
            xs: positions.iter().map(|p| p[0]).collect(),
            ys: positions.iter().map(|p| p[1]).collect(),
            zs: positions.iter().map(|p| p[2]).collect(),
        };
        for from in 0..graph.node_count() {
            for (to, w, id) in pg.csr.out_edges(from) {
                let d = pg.distance(from, to);
                if w < d {
                    return Err(invalid(
                        "edge weight",
                        format!(
                            "edge {} ({from} -> {to}) weighs {w}, shorter than the distance {d}",
                            id.0
                        ),
                    ));
                }
            }
        }
        Ok(pg)
    }

    /// The compiled graph.
    pub fn csr(&self) -> &CsrGraph {
        &self.csr
    }

    /// The position of a node.
    pub fn position(&self, node: u32) -> Option<[f64; 3]> {
        let i = node as usize;
        Some([*self.xs.get(i)?, self.ys[i], self.zs[i]])
    }

    /// Euclidean distance between two nodes (0 when out of range).
    pub fn distance(&self, a: u32, b: u32) -> f64 {
        let (a, b) = (a as usize, b as usize);
        if a >= self.xs.len() || b >= self.xs.len() {
            return 0.0;
        }
        let dx = self.xs[a] - self.xs[b];
        let dy = self.ys[a] - self.ys[b];
        let dz = self.zs[a] - self.zs[b];
        (dx * dx + dy * dy + dz * dz).sqrt()
    }
}

impl SearchGraph for PointGraph {
    fn node_count(&self) -> usize {
        self.csr.node_count as usize
    }

    fn is_passable(&self, node: u32) -> bool {
        node < self.csr.node_count
    }

    fn successors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        self.csr.successors(node, out)
    }

    fn predecessors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        self.csr.predecessors(node, out)
    }

    fn estimate(&self, from: u32, to: u32) -> f64 {
        // The rounded distance can exceed the rounded edge sum by an ulp; shave a
        // relative 1e-12 so the estimate stays a lower bound.
        self.distance(from, to) * (1.0 - 1e-12)
    }
}

/// Save and restore (OPGS kind 4, `docs/grid-state.md`).
impl Graph {
    /// The graph's state: i32 node count, i32 edge count, then per edge in id order i32
    /// from, i32 to, f64 weight, u8 alive. The version is not saved.
    pub fn save_state(&self) -> Vec<u8> {
        use crate::state::*;
        let mut w = onepath_format::bytes::ByteWriter::with_capacity(16 + 17 * self.from.len());
        write_header(&mut w, kind::GRAPH);
        write_u32_as_i32(&mut w, self.node_count);
        write_u32_as_i32(&mut w, self.from.len() as u32);
        for i in 0..self.from.len() {
            write_u32_as_i32(&mut w, self.from[i]);
            write_u32_as_i32(&mut w, self.to[i]);
            w.f64(self.weight[i]);
            w.u8(u8::from(self.alive[i]));
        }
        w.into_vec()
    }

    /// A new graph from a saved state (version 0).
    pub fn from_state(bytes: &[u8]) -> Result<Graph, onepath_format::FormatError> {
        let mut g = read_graph(bytes)?;
        g.version = 0;
        Ok(g)
    }

    /// Restores a saved state in place (any node count up to 2^26: a graph state names its
    /// own). Checked before anything changes: on error the graph is unchanged. The version
    /// grows by one so dependents notice the change.
    pub fn restore_state(&mut self, bytes: &[u8]) -> Result<(), onepath_format::FormatError> {
        let mut g = read_graph(bytes)?;
        g.version = next_version(self.version);
        *self = g;
        Ok(())
    }
}

fn read_graph(bytes: &[u8]) -> Result<Graph, onepath_format::FormatError> {
    use crate::state::*;
    let fam = Family::Graph;
    let mut r = onepath_format::bytes::ByteReader::new(bytes);
    read_header(&mut r, kind::GRAPH, fam)?;
    let n = r.i32("node count")?;
    if n < 0 || n as u32 > MAX_GRAPH_NODES {
        return Err(fam.err(format!("node count {n} out of range 0..=2^26")));
    }
    let m = read_count(&mut r, fam, "edge count", i32::MAX as usize, 17)?;
    let n = n as usize;
    let mut g = Graph {
        node_count: n as u32,
        from: Vec::with_capacity(m),
        to: Vec::with_capacity(m),
        weight: Vec::with_capacity(m),
        alive: Vec::with_capacity(m),
        version: 0,
    };
    for e in 0..m {
        let from =
            read_node(&mut r, fam, "edge from", n).map_err(|x| x.within(format!("edge {e}")))?;
        let to = read_node(&mut r, fam, "edge to", n).map_err(|x| x.within(format!("edge {e}")))?;
        let w = r.f64("edge weight")?;
        if !(w.is_finite() && w >= 0.0) {
            return Err(fam.err(format!("edge {e}: weight {w} is not finite and >= 0")));
        }
        let alive =
            read_flag(&mut r, fam, "edge alive").map_err(|x| x.within(format!("edge {e}")))?;
        g.from.push(from);
        g.to.push(to);
        g.weight.push(w);
        g.alive.push(alive);
    }
    expect_end(&r)?;
    Ok(g)
}
