//! Per-node search buffers (visited, closed, g, parent) with an epoch so a new search does
//! not clear every node.

/// "No parent" / "no node" in the u32 parent arrays (written as −1 by the state format).
pub const NO_NODE: u32 = u32::MAX;

/// Struct-of-arrays search buffers over `node_count` nodes. A node is *visited* when the
/// current search has given it a cost; the epoch that implements this is never saved
/// because it never affects a result.
#[derive(Debug, Clone, Default)]
pub struct SearchBuffers {
    stamp: Vec<u32>,
    epoch: u32,
    closed: Vec<bool>,
    g: Vec<f64>,
    parent: Vec<u32>,
}

impl SearchBuffers {
    /// Starts a new search over `node_count` nodes: nothing is visited afterwards.
    pub fn reset(&mut self, node_count: usize) {
        if self.stamp.len() != node_count {
            self.stamp = vec![0; node_count];
            self.closed = vec![false; node_count];
            self.g = vec![f64::INFINITY; node_count];
            self.parent = vec![NO_NODE; node_count];
            self.epoch = 0;
        }
        if self.epoch == u32::MAX {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 0;
        }
        self.epoch += 1;
    }

    /// True when the current search has seen `node`.
    #[inline]
    pub fn is_visited(&self, node: u32) -> bool {
        self.stamp.get(node as usize) == Some(&self.epoch)
    }

    /// True when `node` is visited and closed.
    #[inline]
    pub fn is_closed(&self, node: u32) -> bool {
        self.is_visited(node) && self.closed[node as usize]
    }

    /// The cost so far of `node` (+∞ when not visited).
    #[inline]
    pub fn g(&self, node: u32) -> f64 {
        if self.is_visited(node) {
            self.g[node as usize]
        } else {
            f64::INFINITY
        }
    }

    /// The parent of `node`, if visited and not the start.
    #[inline]
    pub fn parent(&self, node: u32) -> Option<u32> {
        if self.is_visited(node) && self.parent[node as usize] != NO_NODE {
            Some(self.parent[node as usize])
        } else {
            None
        }
    }

    /// Records (or improves) `node` with cost `g` and `parent` (NO_NODE for the start).
    #[inline]
    pub fn visit(&mut self, node: u32, g: f64, parent: u32) {
        let i = node as usize;
        if i >= self.stamp.len() {
            return;
        }
        if self.stamp[i] != self.epoch {
            self.stamp[i] = self.epoch;
            self.closed[i] = false;
        }
        self.g[i] = g;
        self.parent[i] = parent;
    }

    /// Marks a visited node closed.
    #[inline]
    pub fn close(&mut self, node: u32) {
        if self.is_visited(node) {
            self.closed[node as usize] = true;
        }
    }

    /// The visited nodes in increasing index (the order the state format writes them).
    pub fn visited_nodes(&self) -> impl Iterator<Item = u32> + '_ {
        let e = self.epoch;
        self.stamp
            .iter()
            .enumerate()
            .filter(move |(_, &s)| s == e)
            .map(|(i, _)| i as u32)
    }

    /// Starts a new search over `node_count` nodes and marks exactly `visited`
    /// (node, closed, g, parent) as seen; the caller has range-checked every node.
    pub(crate) fn restore(&mut self, node_count: usize, visited: &[(u32, bool, f64, u32)]) {
        self.reset(node_count);
        for &(node, closed, g, parent) in visited {
            let i = node as usize;
            if i < self.stamp.len() {
                self.stamp[i] = self.epoch;
                self.closed[i] = closed;
                self.g[i] = g;
                self.parent[i] = parent;
            }
        }
    }

    /// Follows parents from `node` back to the start and returns the nodes start first.
    /// Stops after `node_count` links so a corrupt buffer cannot loop.
    pub fn path_to(&self, node: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut cur = Some(node);
        while let Some(n) = cur {
            if out.len() > self.stamp.len() {
                break;
            }
            out.push(n);
            cur = self.parent(n);
        }
        out.reverse();
        out
    }
}
