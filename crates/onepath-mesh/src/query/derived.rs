//! Derived per-tile data the path search reads on every expansion (polygon centres, edge
//! midpoints, the cost model's distances through them and through portal crossings), and
//! [`DerivedWalk`], the search's edges read from it. Never serialized, and it cannot change
//! an answer: it holds exactly the values [`PathGraph`] computes (the same primitives of
//! `poly.rs`, the same operation order).

use std::sync::Arc;

use smallvec::SmallVec;

use onepath_format::{PolyRef, TileGeometry};

use crate::mesh::MeshTile;
use crate::query::error::QueryError;
use crate::query::geom::{dist, Vec3};
use crate::query::graph::{crossing_cost, off_mesh_crossing, PathGraph, PolygonGraph, NO_ROW};
use crate::query::poly::{
    decode, midpoint, poly_centre, poly_passes, poly_verts, portal_segment, PolyVerts,
};
use crate::{Link, LinkKind};

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

/// A cached portal crossing as the expansion uses it (see [`DerivedTiles::portal`]).
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
pub(crate) struct DerivedTiles {
    slots: Vec<Option<TileDerived>>,
    /// The serial of the last entry built.
    last_serial: u64,
}

impl DerivedTiles {
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

/// The path search's edges read from the derived per-tile data: the edges of
/// [`PathGraph::for_each_edge`] in the same order with the same bits, reading polygon
/// centres, edge midpoints and the distances through them from `tiles` instead of
/// recomputing them. The departing position is the one [`PathGraph::node_pos`] gives.
///
/// A cached distance is used only where the uncached form measures between the very same
/// points (a polygon centre and a crossing midpoint), so `ca·out + cb·into` has the bits of
/// `ca·dist(pos(a), m) + cb·dist(m, pos(b))`; the search's ends, whose positions are not
/// centres, measure afresh.
pub(crate) struct DerivedWalk<'a, 'm> {
    /// The graph searched (mesh, filter, ends).
    pub(crate) graph: PathGraph<'m>,
    /// The derived data, built on first use of a tile.
    pub(crate) tiles: &'a mut DerivedTiles,
}

impl PolygonGraph for DerivedWalk<'_, '_> {
    const PREFETCH: bool = true;

    #[inline]
    fn prefetch(&self, r: PolyRef) {
        std::hint::black_box(self.tiles.touch(r));
    }

    #[inline]
    fn edges_from(
        &mut self,
        from: PolyRef,
        mut f: impl FnMut(PolyRef, Vec3, f64, usize),
    ) -> Result<(), QueryError> {
        let graph = &self.graph;
        let mesh = graph.mesh();
        let (t, p) = decode(mesh, from)?;
        let filter = graph.filter();
        let ends = graph.ends();
        let areas = t.tile().areas();
        let flags = t.tile().flags();
        let ca = filter.area_cost(areas[p]);
        let links = t.poly_links(p);
        let mut seen: SmallVec<[PolyRef; 16]> = SmallVec::new();
        let own = self.tiles.get(t);
        // `from_pos` is the centre unless `from` is one of the ends.
        let from_end = from == ends.start_ref || from == ends.end_ref;
        let from_pos = graph.node_pos_with(from, own.centres[p]);
        for (k, &e) in own.poly_edges(p).iter().enumerate() {
            if e.q == NO_EDGE {
                continue;
            }
            let q = e.q as usize;
            if !filter.passes_flags(flags[q]) {
                continue;
            }
            let Some(target) = t.poly_ref(e.q) else {
                continue;
            };
            if !links.is_empty() {
                seen.push(target);
            }
            let cb = filter.area_cost(areas[q]);
            let to_end = target == ends.start_ref || target == ends.end_ref;
            if !(from_end || to_end) {
                f(target, own.centres[q], ca * e.out + cb * e.into, NO_ROW);
            } else {
                let m = own.edge_mids[t.tile().poly_corners(p).start + k];
                let to_pos = graph.node_pos_with(target, own.centres[q]);
                let a = if from_end { dist(from_pos, m) } else { e.out };
                let b = if to_end { dist(m, to_pos) } else { e.into };
                f(target, to_pos, ca * a + cb * b, NO_ROW);
            }
        }
        if links.is_empty() {
            return Ok(());
        }
        // Index of the polygon's first link in the tile's link array (`poly_links` is a
        // subslice of it).
        let first_link = (links.as_ptr() as usize)
            .wrapping_sub(t.links().all_links().as_ptr() as usize)
            / std::mem::size_of::<Link>();
        for (j, link) in links.iter().enumerate() {
            if seen.contains(&link.target) {
                continue;
            }
            // The steps of the tile walk's link crossing, with the portal crossing from the
            // derived data.
            let Ok((tt, tp)) = mesh.poly(link.target) else {
                continue;
            };
            if !poly_passes(tt, tp, filter) {
                continue;
            }
            let to_end = link.target == ends.start_ref || link.target == ends.end_ref;
            let cb = filter.area_cost(tt.tile().areas()[tp]);
            match link.kind {
                LinkKind::Portal {
                    side,
                    edge,
                    neighbour_edge,
                    ..
                } => {
                    let Some(pc) =
                        self.tiles
                            .portal(t, first_link + j, p, edge, side, tt, tp, neighbour_edge)
                    else {
                        continue;
                    };
                    seen.push(link.target);
                    let to_pos = graph.node_pos_with(link.target, pc.centre);
                    let cost = if from_end || to_end {
                        // Measured afresh from / to an end, through the crossing's midpoint
                        // (the cache has just given a crossing for these very arguments).
                        let Some((l, r)) = portal_segment(t, p, edge, side, tt, tp, neighbour_edge)
                        else {
                            continue;
                        };
                        let m = midpoint(l, r);
                        let a = if from_end { dist(from_pos, m) } else { pc.out };
                        let b = if to_end { dist(m, to_pos) } else { pc.into };
                        ca * a + cb * b
                    } else {
                        ca * pc.out + cb * pc.into
                    };
                    f(link.target, to_pos, cost, NO_ROW);
                }
                LinkKind::OffMesh { .. } | LinkKind::OffMeshReverse { .. } => {
                    // The link's crossing, from the tile that owns its slot.
                    let crossing = match link.kind {
                        LinkKind::OffMeshReverse {
                            owner_slot,
                            link: l,
                        } => mesh
                            .tile_at_slot(owner_slot)
                            .and_then(|owner| off_mesh_crossing(owner, l, filter, true)),
                        LinkKind::OffMesh { link: l } => off_mesh_crossing(t, l, filter, false),
                        LinkKind::Portal { .. } => None,
                    };
                    let Some(crossing) = crossing else {
                        continue;
                    };
                    seen.push(link.target);
                    let to_pos = if link.target == ends.start_ref {
                        ends.start_pos
                    } else if link.target == ends.end_ref {
                        ends.end_pos
                    } else {
                        self.tiles.get(tt).centres[tp]
                    };
                    f(
                        link.target,
                        to_pos,
                        crossing_cost(filter, ca, from_pos, crossing, cb, to_pos),
                        NO_ROW,
                    );
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::bridge_and_building;
    use crate::query::graph::PathEnds;
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
        let mut cache = DerivedTiles::default();
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
            DerivedWalk {
                graph,
                tiles: &mut cache,
            }
            .edges_from(r, |target, pos, cost, row| {
                assert_eq!(row, NO_ROW);
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
        let mut cache = DerivedTiles::default();
        assert_eq!(cache.get(ta).centres, TileDerived::build(ta).centres);
        assert_eq!(cache.get(tb).centres, TileDerived::build(tb).centres);
        assert_eq!(cache.get(tb).edge_mids, TileDerived::build(tb).edge_mids);
        assert_ne!(
            TileDerived::build(ta).centres,
            TileDerived::build(tb).centres
        );
    }
}
