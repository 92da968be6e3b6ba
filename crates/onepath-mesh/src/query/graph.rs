//! The polygon graph every search walks: the neighbours of a polygon under a filter (in a
//! fixed order), the path cost model shared by the A* search, the sliced search and any
//! reference search (the Dijkstra cross-check), and [`PolygonGraph`], the one interface of
//! the path search over its three edge sources: the tile walk ([`PathGraph`], here), the
//! derived per-tile data (`DerivedWalk`, `derived.rs`) and the compiled graph
//! (`CompiledWalk`, `compiled.rs`).

use smallvec::SmallVec;

use onepath_format::PolyRef;

use crate::mesh::{MeshTile, TiledNavMesh};
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{check_point, dist, Vec3};
use crate::query::poly::{
    decode, decode_passing, midpoint, poly_centre, poly_passes, poly_verts, portal_segment, world,
    PolyVerts,
};
use crate::query::raycast::RayCorner;
use crate::{Link, LinkKind};

/// The heuristic is `distance × smallest area cost × HEURISTIC_SCALE`. The scale keeps it
/// strictly below the true remaining cost even after the rounding of the sums along a
/// path, so the search stays exact (admissible) in floating point.
pub const HEURISTIC_SCALE: f64 = 0.999_999;

/// The `row` a [`PolygonGraph`] hands over for a neighbour that is no row of a compiled
/// graph (every neighbour of the tile walks).
pub(crate) const NO_ROW: usize = usize::MAX;

/// The polygon graph as the path search reads it: the edges leaving a polygon, in
/// neighbour order, first crossing per target, with the positions and costs of the cost
/// model ([`PathGraph`]). Every implementation gives the very calls of
/// [`PathGraph::for_each_edge`] for the same mesh, filter and ends, bit for bit; they differ
/// in speed only. The search is generic over it (monomorphised, no dynamic dispatch in its
/// inner loop).
pub(crate) trait PolygonGraph {
    /// Whether [`PolygonGraph::prefetch`] does anything (the search then peeks at the open
    /// list for the polygon likely expanded next).
    const PREFETCH: bool = false;

    /// A hint that polygon `r` is likely expanded next: starts loading its data. Never
    /// changes an answer.
    #[inline]
    fn prefetch(&self, _r: PolyRef) {}

    /// Calls `f(neighbour, neighbour position, edge cost, row)` for every edge leaving
    /// `from`, a polygon the search has reached (`row`: the neighbour's row in a compiled
    /// graph, or [`NO_ROW`]). An invalid `from` is [`QueryError::InvalidPolyRef`].
    fn edges_from(
        &mut self,
        from: PolyRef,
        f: impl FnMut(PolyRef, Vec3, f64, usize),
    ) -> Result<(), QueryError>;
}

/// The tile walk: every edge computed afresh from the tiles.
impl PolygonGraph for PathGraph<'_> {
    #[inline]
    fn edges_from(
        &mut self,
        from: PolyRef,
        mut f: impl FnMut(PolyRef, Vec3, f64, usize),
    ) -> Result<(), QueryError> {
        let from_pos = self.node_pos(from)?;
        self.for_each_edge(from, from_pos, |nb, pos, cost| {
            f(nb.target, pos, cost, NO_ROW)
        })
    }
}

/// How a path passes from one polygon to a neighbour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Crossing {
    /// Across a shared edge (in-tile) or the covered part of a portal edge. `left` and
    /// `right` are as seen moving from the polygon into the neighbour; both lie on the
    /// departing polygon's edge `edge`.
    Edge {
        /// Left end of the crossing segment.
        left: Vec3,
        /// Right end of the crossing segment.
        right: Vec3,
        /// Edge index in the departing polygon.
        edge: u8,
    },
    /// An off-mesh link, taken from `start` to `end` (a reverse link has them swapped).
    OffMesh {
        /// Departure point (world).
        start: Vec3,
        /// Arrival point (world).
        end: Vec3,
        /// The link's area.
        area: u8,
        /// The link's flags.
        flags: u16,
        /// Slot of the tile that owns the link.
        owner_slot: u32,
        /// Index of the link in its owner tile.
        link: u32,
    },
}

impl Crossing {
    /// The point the path cost model measures through: the midpoint of an edge crossing, the
    /// departure point of an off-mesh link.
    pub fn entry_point(&self) -> Vec3 {
        match *self {
            Crossing::Edge { left, right, .. } => midpoint(left, right),
            Crossing::OffMesh { start, .. } => start,
        }
    }

    /// The point where the path continues in the neighbour: the midpoint of an edge
    /// crossing, the arrival point of an off-mesh link.
    pub fn exit_point(&self) -> Vec3 {
        match *self {
            Crossing::Edge { left, right, .. } => midpoint(left, right),
            Crossing::OffMesh { end, .. } => end,
        }
    }
}

/// One neighbour of a polygon: the polygon reached and how.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Neighbour {
    /// The neighbouring polygon.
    pub target: PolyRef,
    /// How the path gets there.
    pub crossing: Crossing,
}

/// Calls `f` with every neighbour of polygon `p` of `tile` that `filter` allows, in this
/// order: in-tile neighbours by edge index, then the stitched links in stitching order
/// (portals, forward off-mesh links, reverse off-mesh links). Only the *first* crossing to
/// each target is reported, so the polygon graph has at most one edge per ordered pair.
///
/// A neighbour is allowed when its current flags pass the filter; an off-mesh link also
/// needs its own flags to pass and its run-time switch on.
pub(crate) fn for_each_neighbour(
    mesh: &TiledNavMesh,
    tile: &MeshTile,
    p: usize,
    filter: &QueryFilter,
    mut f: impl FnMut(Neighbour),
) {
    for_each_neighbour_at(mesh, tile, p, filter, |nb, _, _| f(nb));
}

/// [`for_each_neighbour`], also handing over the neighbour's tile and polygon index.
pub(crate) fn for_each_neighbour_at<'m>(
    mesh: &'m TiledNavMesh,
    tile: &'m MeshTile,
    p: usize,
    filter: &QueryFilter,
    f: impl FnMut(Neighbour, &'m MeshTile, usize),
) {
    scan_neighbours(mesh, tile, p, filter, true, f);
}

/// Every crossing of polygon `p` of `tile` that `filter` allows, in [`for_each_neighbour`]
/// order, *including* later crossings to a target already reported (a second shared edge,
/// a portal behind an off-mesh link). The landmark tables measure over these so that their
/// distances stay below those of any filter that hides the first crossing (an off-mesh
/// link's own flags) and so takes a later one.
pub(crate) fn for_each_crossing_at<'m>(
    mesh: &'m TiledNavMesh,
    tile: &'m MeshTile,
    p: usize,
    filter: &QueryFilter,
    f: impl FnMut(Neighbour, &'m MeshTile, usize),
) {
    scan_neighbours(mesh, tile, p, filter, false, f);
}

#[inline(always)]
fn scan_neighbours<'m>(
    mesh: &'m TiledNavMesh,
    tile: &'m MeshTile,
    p: usize,
    filter: &QueryFilter,
    first_only: bool,
    mut f: impl FnMut(Neighbour, &'m MeshTile, usize),
) {
    let d = tile.tile().data();
    let o = tile.origin();
    let corners = tile.tile().poly_corners(p);
    let n = corners.len();
    let mut seen: SmallVec<[PolyRef; 16]> = SmallVec::new();
    let vertex = |k: usize| world(o, d.vertices[usize::from(d.corners[corners.start + k % n])]);
    for k in 0..n {
        let nb = d.edge_neighbours[corners.start + k];
        if nb == 0 {
            continue;
        }
        let q = (nb - 1) as usize;
        let Some(target) = tile.poly_ref(nb - 1) else {
            continue;
        };
        if !poly_passes(tile, q, filter) || (first_only && seen.contains(&target)) {
            continue;
        }
        seen.push(target);
        f(
            Neighbour {
                target,
                crossing: Crossing::Edge {
                    left: vertex(k + 1),
                    right: vertex(k),
                    edge: k as u8,
                },
            },
            tile,
            q,
        );
    }
    for link in tile.poly_links(p) {
        if first_only && seen.contains(&link.target) {
            continue;
        }
        let Some((crossing, tt, tp)) = link_crossing(mesh, tile, p, link, filter) else {
            continue;
        };
        seen.push(link.target);
        f(
            Neighbour {
                target: link.target,
                crossing,
            },
            tt,
            tp,
        );
    }
}

/// The first neighbour of polygon `p` of `tile`, in [`for_each_neighbour`] order, whose
/// crossing is an edge crossing on the departing edge `k` and which `accept(target, left,
/// right)` takes: exactly what scanning [`for_each_neighbour`] for it finds, but computing
/// only the crossings that can matter. Also hands over the neighbour's tile and polygon
/// index (the caller then needs no second decode).
///
/// The scan reports a crossing on edge `k` to `target` unless an earlier reported crossing
/// already named `target`. Earlier reported crossings to `target` are: an in-tile edge
/// neighbour `target` passing `filter` (edges before `k` for the in-tile neighbour on `k`;
/// any edge for a link, links coming after every edge), or an earlier link to `target` whose
/// crossing exists (an earlier link to `target` that is itself hidden is hidden by one still
/// earlier, which then has a crossing). So only the in-tile neighbour on `k` and the portals
/// on `k` are tried ([`first_portal_neighbour`]), and the hiding test runs for a candidate
/// only, over its own target.
///
/// The raycast makes the same steps itself ([`in_tile_edge_neighbour`] from its block,
/// whose crossing is the whole edge it already has, then, on a border edge only (the
/// block's `portal`), [`first_portal_neighbour`]); this composition, with the block's
/// entries, is what the tests check against the full scan.
#[cfg(test)]
pub(crate) fn first_edge_neighbour<'m>(
    mesh: &'m TiledNavMesh,
    tile: &'m MeshTile,
    p: usize,
    filter: &QueryFilter,
    k: usize,
    mut accept: impl FnMut(PolyRef, Vec3, Vec3) -> bool,
) -> Option<(PolyRef, &'m MeshTile, usize)> {
    let d = tile.tile().data();
    let corners = tile.tile().poly_corners(p);
    let n = corners.len();
    let vertex = |j: usize| {
        world(
            tile.origin(),
            d.vertices[usize::from(d.corners[corners.start + j % n])],
        )
    };
    let (first_corner, _, block) = tile.ray_block().poly(p)?;
    let edge = *block.get(k)?;
    if let Some((target, q)) = in_tile_edge_neighbour(tile, edge, filter) {
        if accept(target, vertex(k + 1), vertex(k)) {
            return Some((target, tile, q));
        }
    }
    if !edge.portal {
        return None;
    }
    first_portal_neighbour(mesh, tile, p, first_corner + k, filter, accept)
}

/// The in-tile neighbour across an edge (reference and index), read from the edge's entry
/// in the tile's raycast block, when it is what the neighbour scan reports on that edge: the
/// block names it only when no earlier edge names the same polygon (which would hide it
/// there, and passes `filter` exactly when it does), and it passes `filter`. Its crossing is
/// the whole edge, from corner `k + 1` (left) to corner `k` (right).
#[inline]
pub(crate) fn in_tile_edge_neighbour(
    tile: &MeshTile,
    edge: RayCorner,
    filter: &QueryFilter,
) -> Option<(PolyRef, usize)> {
    let nb = edge.neighbour.checked_sub(1)?;
    // The block's copy of the current flags (`None` past the polygons).
    if !filter.passes_flags(tile.ray_block().flags(nb as usize)?) {
        return None;
    }
    Some((tile.tile_ref().poly(nb)?, nb as usize))
}

/// The portal part of [`first_edge_neighbour`]: the first portal link on the edge of
/// polygon `p` at corner slot `corner` whose crossing exists, is not hidden by an earlier
/// reported crossing to the same target, and which `accept` takes. Reads the tile's portal
/// index (the covered parts cached when the tile was stitched, the very values
/// `link_crossing` computes), so only the links on that edge are looked at and no neighbour
/// edge is decoded; the polygon's earlier links are scanned only for an entry the index
/// marks as having an earlier link to the same target.
pub(crate) fn first_portal_neighbour<'m>(
    mesh: &'m TiledNavMesh,
    tile: &'m MeshTile,
    p: usize,
    corner: usize,
    filter: &QueryFilter,
    mut accept: impl FnMut(PolyRef, Vec3, Vec3) -> bool,
) -> Option<(PolyRef, &'m MeshTile, usize)> {
    let portals = tile.edge_portals(corner);
    if portals.is_empty() {
        return None;
    }
    // Whether an in-tile edge neighbour reported by the scan is `target`.
    let in_tile_names = |target: PolyRef| {
        tile.tile().data().edge_neighbours[tile.tile().poly_corners(p)]
            .iter()
            .any(|&nb| {
                nb != 0
                    && tile.poly_ref(nb - 1) == Some(target)
                    && poly_passes(tile, (nb - 1) as usize, filter)
            })
    };
    for e in portals {
        // `mesh.poly` and `poly_passes`, reading the target tile's raycast block (its
        // polygon count and current flags) rather than its geometry and state arrays.
        let Some(tt) = mesh.tile(e.target.tile()).filter(|_| e.target.salt() != 0) else {
            continue;
        };
        let tp = e.target.poly() as usize;
        if !tt
            .ray_block()
            .flags(tp)
            .is_some_and(|f| filter.passes_flags(f))
        {
            continue;
        }
        // An in-tile edge neighbour lies in this tile: a target in another one is none.
        let hidden = (std::ptr::eq(tt, tile) && in_tile_names(e.target))
            || (e.shadowed
                && tile
                    .poly_links(p)
                    .get(..e.link as usize)
                    .unwrap_or(&[])
                    .iter()
                    .any(|l| {
                        l.target == e.target && link_crossing(mesh, tile, p, l, filter).is_some()
                    }));
        if !hidden && accept(e.target, e.left, e.right) {
            return Some((e.target, tt, tp));
        }
    }
    None
}

/// The crossing of a stitched link of polygon `p` of `tile`, with the target's tile and
/// polygon index, when the target passes `filter` (and, for an off-mesh link, the link's
/// switch is on and its flags pass).
fn link_crossing<'m>(
    mesh: &'m TiledNavMesh,
    tile: &'m MeshTile,
    p: usize,
    link: &Link,
    filter: &QueryFilter,
) -> Option<(Crossing, &'m MeshTile, usize)> {
    let Ok((tt, tp)) = mesh.poly(link.target) else {
        return None;
    };
    if !poly_passes(tt, tp, filter) {
        return None;
    }
    let crossing = match link.kind {
        LinkKind::Portal {
            side,
            edge,
            neighbour_edge,
            ..
        } => {
            let (left, right) = portal_segment(tile, p, edge, side, tt, tp, neighbour_edge)?;
            Crossing::Edge { left, right, edge }
        }
        LinkKind::OffMesh { link: l } => off_mesh_crossing(tile, l, filter, false)?,
        LinkKind::OffMeshReverse {
            owner_slot,
            link: l,
        } => off_mesh_crossing(mesh.tile_at_slot(owner_slot)?, l, filter, true)?,
    };
    Some((crossing, tt, tp))
}

/// The crossing of off-mesh link `l` of `owner`, when its switch is on and its flags pass.
pub(crate) fn off_mesh_crossing(
    owner: &MeshTile,
    l: u32,
    filter: &QueryFilter,
    reverse: bool,
) -> Option<Crossing> {
    let i = l as usize;
    let slot = owner.tile().data().off_mesh_links.get(i)?;
    let conn = owner.off_mesh_connections().get(i)?;
    let on = owner.tile().link_enabled().get(i).copied().unwrap_or(false);
    if !on || !conn.is_connected() || !filter.passes_flags(slot.flags) {
        return None;
    }
    let (start, end) = if reverse {
        (conn.end, conn.start)
    } else {
        (conn.start, conn.end)
    };
    Some(Crossing::OffMesh {
        start,
        end,
        area: slot.area,
        flags: slot.flags,
        owner_slot: owner.slot(),
        link: l,
    })
}

/// The two ends of a path search and the positions the cost model uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathEnds {
    /// The start polygon.
    pub start_ref: PolyRef,
    /// The start position (inside or near the start polygon).
    pub start_pos: Vec3,
    /// The goal polygon.
    pub end_ref: PolyRef,
    /// The goal position.
    pub end_pos: Vec3,
}

/// The path cost model as a graph with fixed edge costs (see `docs/navmesh-queries.md`).
///
/// Every polygon has one position: `start_pos` for the start polygon, `end_pos` for the
/// goal polygon, its centre otherwise. The edge from `a` to a neighbour `b` costs
/// `cost(a)·|pos(a) − m| + cost(b)·|m − pos(b)|` through the crossing's midpoint `m`; an
/// off-mesh link costs `cost(a)·|pos(a) − start| + cost(link)·|start − end| +
/// cost(b)·|end − pos(b)|`. Distances are 3D Euclidean in f64. A path's cost is the sum of
/// its edges, added from the start; the start polygon's share is measured from
/// `start_pos` and the goal polygon's share up to `end_pos`.
#[derive(Debug, Clone, Copy)]
pub struct PathGraph<'m> {
    mesh: &'m TiledNavMesh,
    filter: &'m QueryFilter,
    ends: PathEnds,
}

impl<'m> PathGraph<'m> {
    /// The graph for one search. Checks both references, that both polygons pass the
    /// filter and both positions pass the coordinate rule.
    pub fn new(
        mesh: &'m TiledNavMesh,
        filter: &'m QueryFilter,
        ends: PathEnds,
    ) -> Result<PathGraph<'m>, QueryError> {
        check_point("start_pos", ends.start_pos)?;
        check_point("end_pos", ends.end_pos)?;
        for r in [ends.start_ref, ends.end_ref] {
            decode_passing(mesh, r, filter)?;
        }
        Ok(PathGraph { mesh, filter, ends })
    }

    /// The graph for a search whose ends [`PathGraph::new`] has already checked on this very
    /// mesh state (the same [`TiledNavMesh::state_id`]): the checks would pass again.
    pub(crate) fn checked_before(
        mesh: &'m TiledNavMesh,
        filter: &'m QueryFilter,
        ends: PathEnds,
    ) -> PathGraph<'m> {
        PathGraph { mesh, filter, ends }
    }

    /// The search's ends.
    pub fn ends(&self) -> &PathEnds {
        &self.ends
    }

    /// The filter.
    pub fn filter(&self) -> &QueryFilter {
        self.filter
    }

    /// The position of polygon `r` in the cost model.
    pub fn node_pos(&self, r: PolyRef) -> Result<Vec3, QueryError> {
        if r == self.ends.start_ref {
            return Ok(self.ends.start_pos);
        }
        if r == self.ends.end_ref {
            return Ok(self.ends.end_pos);
        }
        let (t, p) = decode(self.mesh, r)?;
        let mut v = PolyVerts::new();
        poly_verts(t, p, &mut v);
        Ok(poly_centre(&v))
    }

    /// The heuristic of a polygon at `pos`: `|pos − end_pos| × smallest cost ×`
    /// [`HEURISTIC_SCALE`]; never above the cost of any path from there.
    pub fn heuristic(&self, pos: Vec3) -> f64 {
        dist(pos, self.ends.end_pos) * self.filter.min_area_cost() * HEURISTIC_SCALE
    }

    /// Calls `f(neighbour, neighbour position, edge cost)` for every edge leaving `from`
    /// (whose position is `from_pos`), in the order of the polygon's neighbours.
    pub fn for_each_edge(
        &self,
        from: PolyRef,
        from_pos: Vec3,
        mut f: impl FnMut(&Neighbour, Vec3, f64),
    ) -> Result<(), QueryError> {
        let (t, p) = decode(self.mesh, from)?;
        let ca = self.filter.area_cost(t.tile().areas()[p]);
        let mut verts = PolyVerts::new();
        for_each_neighbour_at(self.mesh, t, p, self.filter, |nb, tt, tp| {
            let to_pos = if nb.target == self.ends.start_ref {
                self.ends.start_pos
            } else if nb.target == self.ends.end_ref {
                self.ends.end_pos
            } else {
                poly_verts(tt, tp, &mut verts);
                poly_centre(&verts)
            };
            let cb = self.filter.area_cost(tt.tile().areas()[tp]);
            let cost = crossing_cost(self.filter, ca, from_pos, nb.crossing, cb, to_pos);
            f(&nb, to_pos, cost);
        });
        Ok(())
    }
}

impl PathGraph<'_> {
    /// The mesh searched.
    #[inline]
    pub(crate) fn mesh(&self) -> &TiledNavMesh {
        self.mesh
    }

    /// The position of `r` given its centre: the search's ends keep their own positions.
    #[inline]
    pub(crate) fn node_pos_with(&self, r: PolyRef, centre: Vec3) -> Vec3 {
        if r == self.ends.start_ref {
            self.ends.start_pos
        } else if r == self.ends.end_ref {
            self.ends.end_pos
        } else {
            centre
        }
    }
}

/// The cost model's price of going from `from_pos` (area cost `ca`) through `crossing` to
/// `to_pos` (area cost `cb`): `ca·|from − m| + cb·|m − to|` through an edge crossing's
/// midpoint `m`, `ca·|from − start| + cost(link)·|start − end| + cb·|end − to|` over an
/// off-mesh link. The one expression every search and table of the crate evaluates.
#[inline]
pub(crate) fn crossing_cost(
    filter: &QueryFilter,
    ca: f64,
    from_pos: Vec3,
    crossing: Crossing,
    cb: f64,
    to_pos: Vec3,
) -> f64 {
    match crossing {
        Crossing::Edge { left, right, .. } => {
            let m = midpoint(left, right);
            ca * dist(from_pos, m) + cb * dist(m, to_pos)
        }
        Crossing::OffMesh {
            start, end, area, ..
        } => {
            ca * dist(from_pos, start)
                + filter.area_cost(area) * dist(start, end)
                + cb * dist(end, to_pos)
        }
    }
}

/// The first crossing (in neighbour order) from `from` to `to` allowed by `filter`: what
/// scanning [`for_each_neighbour`] for `to` finds. Only the entries leading to `to` are looked
/// at (the first one reported is the answer, and entries to other targets cannot hide it), so
/// no other link's crossing is computed.
pub(crate) fn crossing_between(
    mesh: &TiledNavMesh,
    from: PolyRef,
    to: PolyRef,
    filter: &QueryFilter,
) -> Result<Option<Crossing>, QueryError> {
    let (tile, p) = decode(mesh, from)?;
    let d = tile.tile().data();
    let o = tile.origin();
    let corners = tile.tile().poly_corners(p);
    let n = corners.len();
    let vertex = |j: usize| world(o, d.vertices[usize::from(d.corners[corners.start + j % n])]);
    for k in 0..n {
        let nb = d.edge_neighbours[corners.start + k];
        if nb == 0 || tile.poly_ref(nb - 1) != Some(to) {
            continue;
        }
        if poly_passes(tile, (nb - 1) as usize, filter) {
            return Ok(Some(Crossing::Edge {
                left: vertex(k + 1),
                right: vertex(k),
                edge: k as u8,
            }));
        }
    }
    for link in tile.poly_links(p) {
        if link.target != to {
            continue;
        }
        if let Some((crossing, _, _)) = link_crossing(mesh, tile, p, link, filter) {
            return Ok(Some(crossing));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::bridge_and_building;
    use crate::query::generated_grid_mesh;

    /// The scan `first_edge_neighbour` replaces.
    fn scan(
        mesh: &TiledNavMesh,
        tile: &MeshTile,
        p: usize,
        filter: &QueryFilter,
        k: usize,
        accept: impl Fn(PolyRef, Vec3, Vec3) -> bool,
    ) -> Option<PolyRef> {
        let mut next = None;
        for_each_neighbour(mesh, tile, p, filter, |nb| {
            if let (None, Crossing::Edge { left, right, edge }) = (next, nb.crossing) {
                if usize::from(edge) == k && accept(nb.target, left, right) {
                    next = Some(nb.target);
                }
            }
        });
        next
    }

    #[test]
    fn the_crossing_between_two_polygons_is_the_first_the_neighbour_scan_reports() {
        let generated = generated_grid_mesh(3, 3, 4, 5).mesh;
        let mut filter = QueryFilter::new();
        filter.set_exclude_flags(0x8);
        let mut found = 0;
        for mesh in [&bridge_and_building(), &generated] {
            let refs: Vec<PolyRef> = mesh
                .tiles()
                .flat_map(|t| (0..t.tile().poly_count() as u32).filter_map(|p| t.poly_ref(p)))
                .collect();
            for &from in &refs {
                let (t, p) = mesh.poly(from).unwrap();
                for f in [&QueryFilter::new(), &filter] {
                    // Every neighbour the scan reports, and a polygon that is none.
                    let mut targets = vec![refs[0]];
                    for_each_neighbour(mesh, t, p, f, |nb| targets.push(nb.target));
                    for &to in &targets {
                        let mut expected = None;
                        for_each_neighbour(mesh, t, p, f, |nb| {
                            if expected.is_none() && nb.target == to {
                                expected = Some(nb.crossing);
                            }
                        });
                        found += usize::from(expected.is_some());
                        assert_eq!(crossing_between(mesh, from, to, f).unwrap(), expected);
                    }
                }
            }
        }
        assert!(found > 100);
    }

    #[test]
    fn the_first_edge_neighbour_is_the_one_the_full_neighbour_scan_finds() {
        let generated = generated_grid_mesh(3, 3, 4, 5).mesh;
        let mut filter = QueryFilter::new();
        filter.set_exclude_flags(0x8);
        let mut found = 0;
        for mesh in [&bridge_and_building(), &generated] {
            for t in mesh.tiles() {
                for p in 0..t.tile().poly_count() {
                    for k in 0..t.tile().poly_corners(p).len() {
                        // Every neighbour, then only some (by reference and crossing).
                        let all = |_: PolyRef, _: Vec3, _: Vec3| true;
                        let some = |r: PolyRef, l: Vec3, _: Vec3| (r.0 ^ l[0].to_bits()) & 1 == 0;
                        for f in [&QueryFilter::new(), &filter] {
                            // The reference, and the tile and index it decodes to.
                            let first = |accept: &dyn Fn(PolyRef, Vec3, Vec3) -> bool| {
                                first_edge_neighbour(mesh, t, p, f, k, accept).map(|(r, tt, tp)| {
                                    let (dt, dp) = mesh.poly(r).unwrap();
                                    assert!(std::ptr::eq(dt, tt) && dp == tp);
                                    r
                                })
                            };
                            let expected = scan(mesh, t, p, f, k, all);
                            assert_eq!(first(&all), expected);
                            found += usize::from(expected.is_some());
                            assert_eq!(first(&some), scan(mesh, t, p, f, k, some));
                        }
                    }
                }
            }
        }
        assert!(found > 100);
    }
}
