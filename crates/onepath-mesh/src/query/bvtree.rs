//! The per-tile bounding-volume tree: derived from a tile's immutable geometry, never
//! serialized, rebuilt by the same deterministic code wherever it is needed.

use std::sync::Arc;

use onepath_format::{NavTile, TileGeometry};

/// One node of the flattened tree, in depth-first order. A leaf holds one polygon; an
/// inner node holds the index just past its subtree (`escape`), so a query skips a subtree
/// whose box misses in one step.
#[derive(Debug, Clone, Copy, PartialEq)]
struct BvNode {
    min: [f32; 3],
    max: [f32; 3],
    /// Leaf: the polygon index. Inner: `u32::MAX`.
    poly: u32,
    /// Inner: index of the first node after the subtree. Leaf: unused (0).
    escape: u32,
}

/// A bounding-volume tree over the polygons of one tile, in tile-local coordinates (the
/// boxes cover each polygon's vertices and its detail vertices).
///
/// Built by median split along the longest axis of the node's box; equal centres are
/// ordered by polygon index, so the tree is a function of the tile only.
#[derive(Debug, Clone, PartialEq)]
pub struct BvTree {
    nodes: Vec<BvNode>,
}

impl BvTree {
    /// Builds the tree of `tile`.
    pub fn build(tile: &NavTile) -> BvTree {
        let d = tile.data();
        let mut items: Vec<(u32, [f32; 3], [f32; 3])> = (0..tile.poly_count())
            .map(|p| {
                let mut min = [f32::INFINITY; 3];
                let mut max = [f32::NEG_INFINITY; 3];
                let mut add = |v: [f32; 3]| {
                    for a in 0..3 {
                        min[a] = min[a].min(v[a]);
                        max[a] = max[a].max(v[a]);
                    }
                };
                for c in tile.poly_corners(p) {
                    add(d.vertices[usize::from(d.corners[c])]);
                }
                if let Some(m) = d.detail_meshes.get(p) {
                    let base = m.vertex_base as usize;
                    for v in &d.detail_vertices[base..base + m.vertex_count as usize] {
                        add(*v);
                    }
                }
                (p as u32, min, max)
            })
            .collect();
        let mut nodes = Vec::with_capacity(items.len() * 2);
        subdivide(&mut items, &mut nodes);
        BvTree { nodes }
    }

    /// Calls `f` with every polygon whose box overlaps the tile-local box `[min, max]`
    /// (closed intervals), in tree order.
    pub fn query(&self, min: [f64; 3], max: [f64; 3], mut f: impl FnMut(u32)) {
        self.query_boxes(min, max, |p, _, _| f(p));
    }

    /// [`BvTree::query`] handing over each polygon's box too (tile-local, over its corners
    /// and detail vertices), so that a caller can skip a polygon the box says cannot matter.
    pub(crate) fn query_boxes(
        &self,
        min: [f64; 3],
        max: [f64; 3],
        mut f: impl FnMut(u32, [f32; 3], [f32; 3]),
    ) {
        let mut i = 0;
        while i < self.nodes.len() {
            let n = &self.nodes[i];
            let overlap =
                (0..3).all(|a| f64::from(n.min[a]) <= max[a] && f64::from(n.max[a]) >= min[a]);
            let leaf = n.poly != u32::MAX;
            if leaf && overlap {
                f(n.poly, n.min, n.max);
            }
            if overlap || leaf {
                i += 1;
            } else {
                i = n.escape as usize;
            }
        }
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
}

fn subdivide(items: &mut [(u32, [f32; 3], [f32; 3])], nodes: &mut Vec<BvNode>) {
    if let [(poly, min, max)] = items {
        nodes.push(BvNode {
            min: *min,
            max: *max,
            poly: *poly,
            escape: 0,
        });
        return;
    }
    if items.is_empty() {
        return;
    }
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for (_, a, b) in items.iter() {
        for k in 0..3 {
            min[k] = min[k].min(a[k]);
            max[k] = max[k].max(b[k]);
        }
    }
    let at = nodes.len();
    nodes.push(BvNode {
        min,
        max,
        poly: u32::MAX,
        escape: 0,
    });
    let ext = [max[0] - min[0], max[1] - min[1], max[2] - min[2]];
    // Longest axis; X wins ties over Z, Z over Y (the walkable plane first).
    let axis = if ext[0] >= ext[2] && ext[0] >= ext[1] {
        0
    } else if ext[2] >= ext[1] {
        2
    } else {
        1
    };
    // Sort by the centre (sum of min and max: exact in f64) then by polygon index.
    items.sort_by(|a, b| {
        let ca = f64::from(a.1[axis]) + f64::from(a.2[axis]);
        let cb = f64::from(b.1[axis]) + f64::from(b.2[axis]);
        ca.total_cmp(&cb).then(a.0.cmp(&b.0))
    });
    let half = items.len() / 2;
    let (lo, hi) = items.split_at_mut(half);
    subdivide(lo, nodes);
    subdivide(hi, nodes);
    nodes[at].escape = nodes.len() as u32;
}

/// The trees a query object keeps, by slot. An entry is reused while the slot holds a tile
/// with the *same* shared geometry (`Arc::ptr_eq`; the entry keeps the `Arc` alive, so the
/// comparison cannot be fooled by a freed address), and rebuilt otherwise: after a
/// replace, a removal and re-add, a stream in, or a snapshot restore.
#[derive(Debug, Default, Clone)]
pub(crate) struct BvCache {
    slots: Vec<Option<(Arc<TileGeometry>, BvTree)>>,
}

impl BvCache {
    /// The tree of `tile` in `slot`, built on first use.
    pub(crate) fn get(&mut self, slot: u32, tile: &NavTile) -> &BvTree {
        let i = slot as usize;
        if self.slots.len() <= i {
            self.slots.resize(i + 1, None);
        }
        let fresh = matches!(&self.slots[i], Some((g, _)) if Arc::ptr_eq(g, tile.geometry()));
        if !fresh {
            self.slots[i] = Some((Arc::clone(tile.geometry()), BvTree::build(tile)));
        }
        match &self.slots[i] {
            Some((_, t)) => t,
            None => unreachable!("entry filled above"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::flat_grid_tile;
    use onepath_format::NavMeshParams;

    #[test]
    fn the_tree_finds_exactly_the_polygons_whose_box_overlaps() {
        let params = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
        let tile = flat_grid_tile(&params, 0, 0, 0, 0.0, 4).unwrap();
        let tree = BvTree::build(&tile);
        assert_eq!(tree.node_count(), 31);
        let mut found = Vec::new();
        // Cells are 2 × 2; the box touches cells (1, 1), (2, 1), (1, 2), (2, 2) only.
        tree.query([3.0, -1.0, 3.0], [5.0, 1.0, 5.0], |p| found.push(p));
        found.sort_unstable();
        assert_eq!(found, vec![5, 6, 9, 10]);
        found.clear();
        tree.query([9.0, -1.0, 9.0], [10.0, 1.0, 10.0], |p| found.push(p));
        assert!(found.is_empty());
    }
}
