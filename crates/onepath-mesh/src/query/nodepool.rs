//! The node pools of the searches: the nodes of the path search with their index
//! ([`NodePool`]: PolyRef → node, dense by slot and polygon, and the hasher of its
//! overflow map), and the nodes of the bounded floods of the surface queries ([`Node`],
//! indexed by a [`NodeIndex`]). An index is only looked up, never iterated, so neither its
//! layout nor its hash can reach an answer.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use onepath_format::PolyRef;

use crate::query::geom::Vec3;

/// The parent of a search's first node.
pub(crate) const NO_PARENT: u32 = u32::MAX;

/// One node of a surface query's flood (or its Dijkstra search): a polygon reached, with
/// its best known cost.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    pub(crate) poly: PolyRef,
    pub(crate) pos: Vec3,
    pub(crate) g: f64,
    pub(crate) f: f64,
    pub(crate) parent: u32,
    pub(crate) closed: bool,
}

/// One node of the path search (32 bytes: two per cache line).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PathNode {
    pub(crate) poly: PolyRef,
    pub(crate) g: f64,
    /// Distance from the polygon's position in the cost model to the goal position (the
    /// heuristic's distance, computed once per node: a polygon's position never changes
    /// within a search).
    pub(crate) d: f64,
    pub(crate) parent: u32,
    pub(crate) closed: bool,
}

/// The nodes of one path search, their index, and (while the search uses a compiled graph)
/// each node's heuristic. Starting a search clears it in O(1) and keeps every capacity.
#[derive(Debug, Default, Clone)]
pub(crate) struct NodePool {
    /// The nodes, in the order the search reached them (node `i` at index `i`).
    pub(crate) nodes: Vec<PathNode>,
    /// PolyRef → node.
    index: DenseIndex,
    /// Per node, its heuristic, while the search uses a compiled graph (empty otherwise).
    pub(crate) h: Vec<f64>,
}

impl NodePool {
    /// Forgets every node, keeping the capacity.
    pub(crate) fn clear(&mut self) {
        self.nodes.clear();
        self.index.clear();
        self.h.clear();
    }

    /// The node of `r`, if the search has reached it.
    #[inline]
    pub(crate) fn find(&self, r: PolyRef) -> Option<u32> {
        self.index.get(r, &self.nodes)
    }

    /// Adds `node` for a polygon [`NodePool::find`] does not know; returns its index.
    #[inline]
    pub(crate) fn add(&mut self, node: PathNode) -> u32 {
        let i = self.nodes.len() as u32;
        self.nodes.push(node);
        self.index.insert(node.poly, i, &self.nodes);
        i
    }
}

/// The hasher of the query layer's lookup tables (see [`onepath_format::hash::SplitMix64Hasher`]).
pub(crate) type RefHasher = onepath_format::hash::SplitMix64Hasher;

/// PolyRef → node index.
pub(crate) type NodeIndex = HashMap<PolyRef, u32, BuildHasherDefault<RefHasher>>;

/// PolyRef → node index of the current search, dense by (slot, polygon) with a
/// generation stamp per entry, so that starting a search clears nothing. A reference whose
/// (slot, polygon) entry already holds another salt (a tile replaced during a sliced
/// search) goes to a small hash map, so the index answers exactly as a map keyed by the
/// whole reference.
#[derive(Debug, Default, Clone)]
pub(crate) struct DenseIndex {
    stamp: u32,
    /// Per slot, per polygon: (stamp, node). An entry counts only with the current stamp.
    slots: Vec<Vec<(u32, u32)>>,
    overflow: NodeIndex,
}

impl DenseIndex {
    /// Forgets every entry (in O(1) but for the rare stamp wrap-around).
    pub(crate) fn clear(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            for s in &mut self.slots {
                s.fill((0, 0));
            }
            self.stamp = 1;
        }
        self.overflow.clear();
    }

    /// The node of `r`, if the current search has one. Never allocates; any reference is
    /// accepted.
    pub(crate) fn get(&self, r: PolyRef, nodes: &[PathNode]) -> Option<u32> {
        let entry = self
            .slots
            .get(r.slot() as usize)
            .and_then(|s| s.get(r.poly() as usize));
        match entry {
            Some(&(stamp, i)) if stamp == self.stamp => {
                if nodes[i as usize].poly == r {
                    Some(i)
                } else {
                    self.overflow.get(&r).copied()
                }
            }
            _ => None,
        }
    }

    /// Records node `i` for `r`, which [`DenseIndex::get`] did not find. `r` is a valid
    /// reference of the mesh searched, so the entry grows the index by at most the mesh's
    /// own size.
    pub(crate) fn insert(&mut self, r: PolyRef, i: u32, nodes: &[PathNode]) {
        let (slot, poly) = (r.slot() as usize, r.poly() as usize);
        if self.slots.len() <= slot {
            self.slots.resize_with(slot + 1, Vec::new);
        }
        let s = &mut self.slots[slot];
        if s.len() <= poly {
            s.resize(poly + 1, (0, 0));
        }
        let e = &mut s[poly];
        if e.0 == self.stamp && nodes[e.1 as usize].poly != r {
            self.overflow.insert(r, i);
        } else {
            *e = (self.stamp, i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(poly: PolyRef) -> PathNode {
        PathNode {
            poly,
            g: 0.0,
            d: 0.0,
            parent: 0,
            closed: false,
        }
    }

    #[test]
    fn a_reference_with_another_salt_gets_its_own_node() {
        let old = PolyRef::new(1, 5, 9).unwrap();
        let new = PolyRef::new(2, 5, 9).unwrap();
        let other = PolyRef::new(1, 5, 10).unwrap();
        let nodes = vec![node(old), node(new), node(other)];
        let mut index = DenseIndex::default();
        index.clear();
        assert_eq!(index.get(old, &nodes), None);
        index.insert(old, 0, &nodes);
        assert_eq!(index.get(new, &nodes), None);
        index.insert(new, 1, &nodes);
        index.insert(other, 2, &nodes);
        assert_eq!(
            [old, new, other].map(|r| index.get(r, &nodes)),
            [Some(0), Some(1), Some(2)]
        );
        // Past the index's extent, and after clearing: nothing.
        assert_eq!(index.get(PolyRef::new(1, 900, 9).unwrap(), &nodes), None);
        index.clear();
        assert_eq!([old, new].map(|r| index.get(r, &nodes)), [None, None]);
    }
}
