//! The per-tile bounding-volume tree: derived from a tile's immutable geometry, never
//! serialized, rebuilt by the same deterministic code wherever it is needed.

use std::sync::Arc;

use onepath_format::{NavTile, TileGeometry};

use crate::mesh::TiledNavMesh;

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
    /// The first node's box (kept next to the tree's handle, so that a query box missing
    /// the whole tile is told without reading the nodes); inverted for an empty tree.
    root_min: [f32; 3],
    root_max: [f32; 3],
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
        let (root_min, root_max) = nodes
            .first()
            .map_or(([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]), |n| {
                (n.min, n.max)
            });
        BvTree {
            nodes,
            root_min,
            root_max,
        }
    }

    /// Calls `f` with every polygon whose box overlaps the tile-local box `[min, max]`
    /// (closed intervals), in tree order.
    pub fn query(&self, min: [f64; 3], max: [f64; 3], mut f: impl FnMut(u32)) {
        let mut b = LocalBox::new(min, max);
        self.query_boxes(&mut b, |p, _, _, _| f(p));
    }

    /// [`BvTree::query`] over `query` (see [`LocalBox`]), handing `f` each polygon's box too
    /// (tile-local, over its corners and detail vertices) and the query box itself, which
    /// `f` may shrink: the rest of the walk then tests against the smaller box.
    pub(crate) fn query_boxes(
        &self,
        query: &mut LocalBox,
        mut f: impl FnMut(u32, [f32; 3], [f32; 3], &mut LocalBox),
    ) {
        let mut i = 0;
        while i < self.nodes.len() {
            let n = &self.nodes[i];
            // Each test is the f64 comparison of the query's bounds (see `LocalBox`); `&`
            // rather than `&&`: six comparisons without branches.
            let overlap = (n.min[0] <= query.max[0])
                & (n.min[1] <= query.max[1])
                & (n.min[2] <= query.max[2])
                & (n.max[0] >= query.min[0])
                & (n.max[1] >= query.min[1])
                & (n.max[2] >= query.min[2]);
            let leaf = n.poly != u32::MAX;
            if leaf && overlap {
                f(n.poly, n.min, n.max, query);
            }
            if overlap || leaf {
                i += 1;
            } else {
                i = n.escape as usize;
            }
        }
    }

    /// Whether the tile-local box `[min, max]` overlaps the tree's root box (closed
    /// intervals, compared in f64 as the walk does): false means no polygon can be found.
    pub(crate) fn root_overlaps(&self, min: [f64; 3], max: [f64; 3]) -> bool {
        (0..3)
            .all(|a| f64::from(self.root_min[a]) <= max[a] && f64::from(self.root_max[a]) >= min[a])
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
}

/// A tile-local query box in f32, rounded inward from its f64 bounds: `max` the largest f32
/// not above the f64 maximum, `min` the smallest f32 not below the f64 minimum. A node bound
/// `b` is an f32, so `b <= max` holds exactly when `f64(b) <= max64`, and `b >= min` exactly
/// when `f64(b) >= min64`: the f32 tests answer as the f64 ones would, at f32 cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LocalBox {
    pub(crate) min: [f32; 3],
    pub(crate) max: [f32; 3],
}

impl LocalBox {
    /// The box `[min, max]` (tile-local f64) for f32 comparisons.
    pub(crate) fn new(min: [f64; 3], max: [f64; 3]) -> LocalBox {
        LocalBox {
            min: min.map(f32_at_least),
            max: max.map(f32_at_most),
        }
    }
}

/// The largest f32 not above `x` (`x` not NaN).
fn f32_at_most(x: f64) -> f32 {
    let m = x as f32;
    if f64::from(m) > x {
        next_toward_neg_inf(m)
    } else {
        m
    }
}

/// The smallest f32 not below `x` (`x` not NaN).
fn f32_at_least(x: f64) -> f32 {
    let m = x as f32;
    if f64::from(m) < x {
        -next_toward_neg_inf(-m)
    } else {
        m
    }
}

/// The next f32 below `m` (not NaN, not −∞: the callers only step a value that lies above
/// another one).
fn next_toward_neg_inf(m: f32) -> f32 {
    if m == 0.0 {
        -f32::from_bits(1)
    } else if m > 0.0 {
        f32::from_bits(m.to_bits() - 1)
    } else {
        f32::from_bits(m.to_bits() + 1)
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
///
/// It also keeps the mesh's **reach**: how far (world units, in X or Z) any tile's vertex
/// lies outside its own tile column (the format allows up to one tile), the largest over the
/// mesh's tiles, for the mesh state it was computed for ([`TiledNavMesh::state_id`]). A box
/// query then searches only the columns a tile can reach the box from: for meshes whose
/// tiles stay inside their columns (Recast-style builds) the columns under the box alone.
#[derive(Debug, Default, Clone)]
pub(crate) struct BvCache {
    slots: Vec<Option<Entry>>,
    /// (state id, reach) of the last mesh state asked about.
    reach: Option<(u64, f64)>,
}

/// What the cache keeps for one slot's geometry; tree and reach are computed on first use.
#[derive(Debug, Clone)]
struct Entry {
    geometry: Arc<TileGeometry>,
    tree: Option<BvTree>,
    reach: Option<f64>,
}

impl BvCache {
    /// The entry of `tile` in `slot`, emptied when the slot holds other geometry.
    fn entry(&mut self, slot: u32, tile: &NavTile) -> &mut Entry {
        let i = slot as usize;
        if self.slots.len() <= i {
            self.slots.resize(i + 1, None);
        }
        let e = &mut self.slots[i];
        if !matches!(e, Some(x) if Arc::ptr_eq(&x.geometry, tile.geometry())) {
            *e = None;
        }
        e.get_or_insert_with(|| Entry {
            geometry: Arc::clone(tile.geometry()),
            tree: None,
            reach: None,
        })
    }

    /// The tree of `tile` in `slot`, built on first use.
    pub(crate) fn get(&mut self, slot: u32, tile: &NavTile) -> &BvTree {
        self.entry(slot, tile)
            .tree
            .get_or_insert_with(|| BvTree::build(tile))
    }

    /// The reach of `mesh` (see [`BvCache`]): kept while the mesh's state id stays the same;
    /// after a change, one pass over the tiles (pointer comparisons, plus one pass over the
    /// vertices of each tile not seen before).
    pub(crate) fn mesh_reach(&mut self, mesh: &TiledNavMesh) -> f64 {
        let id = mesh.state_id();
        if let Some((s, r)) = self.reach {
            if s == id {
                return r;
            }
        }
        let size = mesh.params().tile_size;
        let mut r = 0.0f64;
        for t in mesh.tiles() {
            let e = self.entry(t.slot(), t.tile());
            r = r.max(*e.reach.get_or_insert_with(|| tile_reach(t.tile(), size)));
        }
        self.reach = Some((id, r));
        r
    }
}

/// How far any vertex of `tile` (polygon or detail) lies outside `[0, size]` in local X or
/// Z: 0 when all lie inside.
fn tile_reach(tile: &NavTile, size: f64) -> f64 {
    let d = tile.data();
    let mut r = 0.0f64;
    for v in d.vertices.iter().chain(&d.detail_vertices) {
        for a in [0, 2] {
            let x = f64::from(v[a]);
            r = r.max(-x).max(x - size);
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::flat_grid_tile;
    use onepath_format::NavMeshParams;

    #[test]
    fn the_f32_box_compares_as_its_f64_bounds_do() {
        let values = [
            0.0,
            -0.0,
            1.0,
            0.1,
            -0.1,
            1.0e-40,
            -1.0e-40,
            3.000_000_1,
            -2.999_999_9,
            1.0e300,
            -1.0e300,
            2_097_151.9,
        ];
        for &x in &values {
            let lo = f32_at_most(x);
            let hi = f32_at_least(x);
            assert!(f64::from(lo) <= x && f64::from(hi) >= x, "{x}");
            // No f32 lies strictly between the rounded value and `x`.
            for b in [lo, hi].into_iter().filter(|b| b.is_finite()) {
                for n in [next_toward_neg_inf(b), -next_toward_neg_inf(-b), b] {
                    assert_eq!(n <= lo, f64::from(n) <= x, "{x} {n}");
                    assert_eq!(n >= hi, f64::from(n) >= x, "{x} {n}");
                }
            }
        }
    }

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
