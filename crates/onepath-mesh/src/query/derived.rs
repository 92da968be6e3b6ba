//! Derived per-tile data the path search reads on every expansion, and the dense node
//! index of the search. Neither is ever serialized, and neither can change an answer: the
//! cache holds exactly the values [`PathGraph`](crate::query::PathGraph) computes (same
//! functions, same operation order), and the index maps a reference to the same node a
//! hash map would.

use std::sync::Arc;

use onepath_format::{PolyRef, TileGeometry};

use crate::mesh::MeshTile;
use crate::query::geom::{dist, Vec3};
use crate::query::graph::{midpoint, poly_centre, poly_verts, portal_segment, PolyVerts};
use crate::query::path::PathNode;
use crate::query::NodeIndex;

/// The derived data of one tile: polygon centres and in-tile edge midpoints, in world
/// space.
#[derive(Debug, Clone)]
pub(crate) struct TileDerived {
    geometry: Arc<TileGeometry>,
    origin: Vec3,
    /// Centre of every polygon ([`poly_centre`] of its world corners).
    pub(crate) centres: Vec<Vec3>,
    /// For every corner `c` of polygon `p`: the midpoint of edge `c` (corner `c` to the
    /// next corner of `p`), indexed like the tile's corner arrays.
    pub(crate) edge_mids: Vec<Vec3>,
    /// For every edge `k` of polygon `p`, at `p·stride + k` (so that an expansion reads one
    /// contiguous block and no corner offsets): the in-tile neighbour across the edge and the
    /// two distances of the cost model through the edge's midpoint, so that an expansion
    /// from a centre to a centre is two multiplies. Entries past the polygon's corner count
    /// are [`NO_EDGE`].
    edges: Vec<EdgeCost>,
    /// The most corners of any polygon of the tile (at least 1).
    stride: usize,
    /// Identifies this build of the entry among all the cache has made (never reused
    /// while the cache lives), so a portal entry of another tile can tell whether the
    /// neighbour's data is still the one it was computed against.
    serial: u64,
    /// Per link of the tile (index in the tile's link array): the portal crossing's costs
    /// last computed for it, with what they were computed from (filled on use; the links
    /// change with stitching, so every entry is validated on use).
    portals: Vec<PortalEntry>,
}

/// The in-tile neighbour across one edge and the distances of the cost model through the
/// edge's midpoint `m`, computed with [`dist`] exactly as the uncached cost is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EdgeCost {
    /// The neighbour's polygon index, or [`NO_EDGE`] when the edge has no in-tile
    /// neighbour, names none of the tile's polygons, or leads to the same neighbour as an
    /// earlier edge of the polygon (the neighbour scan reports only the first crossing to a
    /// target, and the filter, which reads the target's flags, passes both or neither).
    pub(crate) q: u32,
    /// `dist(centre(p), m)`.
    pub(crate) out: f64,
    /// `dist(m, centre(q))` (0 when `q` is [`NO_EDGE`]).
    pub(crate) into: f64,
}

/// [`EdgeCost::q`] of an edge the expansion skips.
pub(crate) const NO_EDGE: u32 = u32::MAX;

/// A cached portal crossing as the expansion uses it (see [`TileCache::portal`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PortalCost {
    /// `dist(centre(p), m)`, `m` the crossing's midpoint.
    pub(crate) out: f64,
    /// `dist(m, centre(tp))`.
    pub(crate) into: f64,
    /// `centre(tp)`.
    pub(crate) centre: Vec3,
}

/// A cached portal crossing, 32 bytes: valid while the neighbour's derived entry is the
/// build `serial` (the same geometry at the same origin, see [`TileDerived::is_for`]) and
/// `key` packs the same departing polygon, edge, side, neighbour polygon and neighbour edge:
/// the crossing is a function of exactly those and of the owning tile's geometry and
/// origin, which the enclosing entry is for.
#[derive(Debug, Clone, Copy, Default)]
struct PortalEntry {
    /// The neighbour's [`TileDerived::serial`]; 0 for an empty entry (serials start at 1).
    serial: u64,
    /// [`portal_key`], with [`NO_CROSSING`] set when the portal gives no crossing.
    key: u64,
    out: f64,
    into: f64,
}

/// Set in [`PortalEntry::key`] when the portal has no crossing.
const NO_CROSSING: u64 = 1 << 63;

/// Packs what a portal crossing is computed from (besides the two tiles), or `None` when a
/// part does not fit (such a portal is computed on every use, never cached).
fn portal_key(p: usize, edge: u8, side: u8, tp: usize, nedge: u8) -> Option<u64> {
    if p >= 1 << 24 || tp >= 1 << 24 || edge >= 1 << 6 || nedge >= 1 << 6 || side >= 1 << 2 {
        return None;
    }
    Some(
        p as u64
            | (tp as u64) << 24
            | u64::from(edge) << 48
            | u64::from(nedge) << 54
            | u64::from(side) << 60,
    )
}

impl TileDerived {
    fn build(tile: &MeshTile) -> TileDerived {
        let t = tile.tile();
        let n_polys = t.poly_count();
        let mut centres = Vec::with_capacity(n_polys);
        let mut edge_mids = vec![[0.0; 3]; t.data().corners.len()];
        let mut verts = PolyVerts::new();
        for p in 0..n_polys {
            poly_verts(tile, p, &mut verts);
            centres.push(poly_centre(&verts));
            let corners = t.poly_corners(p);
            let n = verts.len();
            for k in 0..n {
                let right = verts[k];
                let left = verts[(k + 1) % n];
                // The same expression as the midpoint of `Crossing::Edge { left, right }`.
                edge_mids[corners.start + k] = [
                    (left[0] + right[0]) * 0.5,
                    (left[1] + right[1]) * 0.5,
                    (left[2] + right[2]) * 0.5,
                ];
            }
        }
        let neighbours = &t.data().edge_neighbours;
        let stride = (0..n_polys)
            .map(|p| t.poly_corners(p).len())
            .max()
            .unwrap_or(0)
            .max(1);
        let none = EdgeCost {
            q: NO_EDGE,
            out: 0.0,
            into: 0.0,
        };
        let mut edges = vec![none; n_polys * stride];
        for (p, &centre) in centres.iter().enumerate() {
            let corners = t.poly_corners(p);
            for c in corners.clone() {
                let nb = neighbours[c];
                let m = edge_mids[c];
                let out = dist(centre, m);
                let q = nb.wrapping_sub(1);
                let first = nb != 0
                    && (q as usize) < n_polys
                    && !(corners.start..c).any(|e| neighbours[e] == nb);
                edges[p * stride + (c - corners.start)] = if first {
                    EdgeCost {
                        q,
                        out,
                        into: dist(m, centres[q as usize]),
                    }
                } else {
                    none
                };
            }
        }
        TileDerived {
            geometry: Arc::clone(t.geometry()),
            origin: tile.origin(),
            centres,
            serial: 0,
            portals: Vec::new(),
            edge_mids,
            edges,
            stride,
        }
    }

    /// The edge entries of polygon `p` (edge `k` at index `k`), padded with [`NO_EDGE`].
    pub(crate) fn poly_edges(&self, p: usize) -> &[EdgeCost] {
        self.edges
            .get(p * self.stride..(p + 1) * self.stride)
            .unwrap_or(&[])
    }

    fn is_for(&self, tile: &MeshTile) -> bool {
        Arc::ptr_eq(&self.geometry, tile.tile().geometry()) && same_bits(self.origin, tile.origin())
    }
}

/// Bitwise equality of two points (−0 and +0 differ, as they may in a sum).
fn same_bits(a: Vec3, b: Vec3) -> bool {
    a.map(f64::to_bits) == b.map(f64::to_bits)
}

/// The derived data of the tiles a query object has searched, by slot. An entry is reused
/// while the slot holds a tile with the *same* shared geometry (`Arc::ptr_eq`, the entry
/// keeps the `Arc` alive) at the same origin, and rebuilt otherwise: the rule of the
/// per-tile trees.
#[derive(Debug, Default, Clone)]
pub(crate) struct TileCache {
    slots: Vec<Option<TileDerived>>,
    /// The serial of the last entry built.
    last_serial: u64,
}

impl TileCache {
    /// The derived data of `tile`, built on first use.
    pub(crate) fn get(&mut self, tile: &MeshTile) -> &TileDerived {
        let i = tile.slot() as usize;
        if self.slots.len() <= i {
            self.slots.resize(i + 1, None);
        }
        let fresh = matches!(&self.slots[i], Some(d) if d.is_for(tile));
        if !fresh {
            self.last_serial += 1;
            let mut d = TileDerived::build(tile);
            d.serial = self.last_serial;
            self.slots[i] = Some(d);
        }
        match &self.slots[i] {
            Some(d) => d,
            None => unreachable!("entry filled above"),
        }
    }

    /// Reads the first edge entry of polygon `r` if the cache holds its slot (whatever the
    /// tile there now is): a hint that brings the entry into the processor cache before it
    /// is needed. Returns the value read, for `black_box`; never an answer.
    pub(crate) fn touch(&self, r: PolyRef) -> u32 {
        match self.slots.get(r.slot() as usize) {
            Some(Some(d)) => d
                .edges
                .get((r.poly() as usize).wrapping_mul(d.stride))
                .map_or(0, |e| e.q),
            _ => 0,
        }
    }

    /// The costs of the crossing [`portal_segment`] gives for the portal on edge `edge` of
    /// polygon `p` of `tile` (side `side`) into polygon `tp` (edge `nedge`) of `other`: with
    /// `m` its midpoint, `dist(centre(p), m)`, `dist(m, centre(tp))` ([`dist`], the centres
    /// of [`poly_centre`]) and `centre(tp)`; `None` when it gives no crossing. Cached per
    /// link, `link` being the link's index in the tile's link array.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn portal(
        &mut self,
        tile: &MeshTile,
        link: usize,
        p: usize,
        edge: u8,
        side: u8,
        other: &MeshTile,
        tp: usize,
        nedge: u8,
    ) -> Option<PortalCost> {
        let (serial, centre) = {
            let o = self.get(other);
            (o.serial, o.centres[tp])
        };
        let links = tile.links().all_links().len();
        let key = portal_key(p, edge, side, tp, nedge).filter(|_| link < links);
        // A hit needs neither the crossing nor this polygon's centre.
        if let (Some(key), Some(Some(own))) = (key, self.slots.get(tile.slot() as usize)) {
            if own.is_for(tile) {
                if let Some(e) = own.portals.get(link) {
                    if e.serial == serial && e.key & !NO_CROSSING == key {
                        return (e.key & NO_CROSSING == 0).then_some(PortalCost {
                            out: e.out,
                            into: e.into,
                            centre,
                        });
                    }
                }
            }
        }
        let own_centre = self.get(tile).centres[p];
        let cost = portal_segment(tile, p, edge, side, other, tp, nedge).map(|(l, r)| {
            let mid = midpoint(l, r);
            PortalCost {
                out: dist(own_centre, mid),
                into: dist(mid, centre),
                centre,
            }
        });
        let Some(key) = key else {
            return cost;
        };
        let Some(Some(own)) = self.slots.get_mut(tile.slot() as usize) else {
            return cost;
        };
        if own.portals.len() < links {
            own.portals.resize(links, PortalEntry::default());
        }
        own.portals[link] = match cost {
            Some(c) => PortalEntry {
                serial,
                key,
                out: c.out,
                into: c.into,
            },
            None => PortalEntry {
                serial,
                key: key | NO_CROSSING,
                out: 0.0,
                into: 0.0,
            },
        };
        cost
    }
}

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
    use crate::fixtures::bridge_and_building;
    use crate::query::graph::{PathEnds, PathGraph};
    use crate::query::{generated_grid_mesh, QueryFilter, GENERATED_SWAMP_AREA};
    use crate::TiledNavMesh;

    /// Every edge of every polygon, as (target, position bits, cost bits), both ways.
    fn assert_cached_edges_equal(mesh: &TiledNavMesh, filter: &QueryFilter) {
        let refs: Vec<PolyRef> = mesh
            .tiles()
            .flat_map(|t| (0..t.tile().poly_count() as u32).map(move |p| t.poly_ref(p).unwrap()))
            .filter(|&r| {
                let (t, p) = mesh.poly(r).unwrap();
                filter.passes_flags(t.tile().flags()[p])
            })
            .collect();
        assert!(refs.len() > 2);
        let ends = PathEnds {
            start_ref: refs[0],
            start_pos: [0.25, 0.5, 0.75],
            end_ref: refs[refs.len() - 1],
            end_pos: [3.5, 0.25, 1.5],
        };
        let graph = PathGraph::new(mesh, filter, ends).unwrap();
        let mut cache = TileCache::default();
        let mut edges = 0;
        // Twice: the second pass reads the portal crossings the first one cached.
        for &r in refs.iter().chain(&refs) {
            let from = graph.node_pos(r).unwrap();
            let bits = |p: Vec3, c: f64| (p.map(f64::to_bits), c.to_bits());
            let mut expected = Vec::new();
            graph
                .for_each_edge(r, from, |nb, pos, cost| {
                    expected.push((nb.target, bits(pos, cost)))
                })
                .unwrap();
            let mut got = Vec::new();
            graph
                .for_each_edge_cached(&mut cache, r, |target, pos, cost| {
                    got.push((target, bits(pos, cost)))
                })
                .unwrap();
            assert_eq!(got, expected, "edges of {r:?}");
            edges += got.len();
        }
        assert!(edges > 2 * refs.len());
    }

    #[test]
    fn cached_edges_are_the_cost_model_edges_bit_for_bit() {
        let mesh = bridge_and_building();
        assert_cached_edges_equal(&mesh, &QueryFilter::new());
        let g = generated_grid_mesh(3, 3, 4, 7);
        let mut swamp = QueryFilter::new();
        swamp.set_area_cost(GENERATED_SWAMP_AREA, 3.5).unwrap();
        assert_cached_edges_equal(&g.mesh, &swamp);
    }

    #[test]
    fn a_slot_holding_other_geometry_rebuilds_its_entry() {
        let a = bridge_and_building();
        let b = generated_grid_mesh(1, 1, 4, 3).mesh;
        let (ta, tb) = (a.tile_at_slot(0).unwrap(), b.tile_at_slot(0).unwrap());
        let mut cache = TileCache::default();
        assert_eq!(cache.get(ta).centres, TileDerived::build(ta).centres);
        assert_eq!(cache.get(tb).centres, TileDerived::build(tb).centres);
        assert_eq!(cache.get(tb).edge_mids, TileDerived::build(tb).edge_mids);
        assert_ne!(
            TileDerived::build(ta).centres,
            TileDerived::build(tb).centres
        );
    }

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
