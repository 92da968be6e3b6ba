//! Assembling the links of tiles in the prescribed order, and the restitch scope.

use std::collections::BTreeSet;

use onepath_format::{NavTile, PolyRef};

use crate::links::{Link, LinkKind, OffMeshConnection, TileLinks};
use crate::off_mesh::{attach_links_indexed, PolyIndexes};
use crate::portals::{
    neighbour_column, opposite_side, overlapping_pairs, portal_edges, portal_overlap, PortalEdge,
};
use crate::tiles::TileSet;

/// Off-mesh attachments of every tile plus the reverse links they produce, computed once
/// for a stitching pass.
struct OffMeshPass {
    /// Per slot: the attachments of the tile's own links.
    attached: Vec<Vec<OffMeshConnection>>,
    /// (end slot, end poly, owner slot, link index, start polygon), in (owner slot, link)
    /// order.
    reverse: Vec<(u32, u32, u32, u32, PolyRef)>,
}

impl OffMeshPass {
    fn new(set: &TileSet<'_>, cost: &mut StitchCost) -> OffMeshPass {
        let mut attached = vec![Vec::new(); set.slot_len()];
        let mut reverse = Vec::new();
        if set.has_off_mesh_links() {
            let indexes = PolyIndexes::new(set);
            for (slot, st) in set.occupied() {
                let conns = attach_links_indexed(set, slot, &indexes, &mut cost.polygons_scored);
                for (i, (c, l)) in conns.iter().zip(&st.tile.data().off_mesh_links).enumerate() {
                    if let (true, Some(s), Some(e)) = (l.bidirectional, c.start_poly, c.end_poly) {
                        reverse.push((e.slot(), e.poly(), slot, i as u32, s));
                    }
                }
                attached[slot as usize] = conns;
            }
            // Stable: keeps (owner slot, link) order within each end polygon.
            reverse.sort_by_key(|r| (r.0, r.1));
        }
        OffMeshPass { attached, reverse }
    }
}

/// Stitches every tile of the set. The result is indexed by slot (`None` for free slots).
pub fn stitch_all(set: &TileSet<'_>) -> Vec<Option<TileLinks>> {
    let slots: Vec<u32> = set.occupied().map(|(s, _)| s).collect();
    let mut out = vec![None; set.slot_len()];
    for (slot, links) in stitch_tiles(set, &slots) {
        out[slot as usize] = Some(links);
    }
    out
}

/// Stitches the tiles in `slots` (free slots are skipped) against the whole set; returns
/// `(slot, links)` in the order given. The links of a tile are the same whichever other
/// tiles are stitched with it.
pub fn stitch_tiles(set: &TileSet<'_>, slots: &[u32]) -> Vec<(u32, TileLinks)> {
    stitch_tiles_with_cost(set, slots).0
}

/// What a stitching pass did, counted in the steps whose number decides its cost (a
/// function of the tiles, like the links: the same on every machine and every run).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StitchCost {
    /// Pairs of facing portal edges put to the portal test ([`crate::portal_overlap`]).
    pub portal_tests: u64,
    /// Polygons scored while attaching off-mesh link ends ([`crate::polygon_score`]).
    pub polygons_scored: u64,
}

/// [`stitch_tiles`], also returning what the pass cost. Portal edges are matched by a
/// sweep over their sorted boundary intervals, so `portal_tests` grows with the edges and
/// the overlapping pairs, not with their product; link ends are attached through a
/// per-tile tree of polygon bounds, so `polygons_scored` grows with the polygons within
/// reach of each end, not with the tile.
pub fn stitch_tiles_with_cost(
    set: &TileSet<'_>,
    slots: &[u32],
) -> (Vec<(u32, TileLinks)>, StitchCost) {
    let mut cost = StitchCost::default();
    let pass = OffMeshPass::new(set, &mut cost);
    let links = slots
        .iter()
        .filter_map(|&slot| stitch_one(set, &pass, slot, &mut cost).map(|l| (slot, l)))
        .collect();
    (links, cost)
}

/// The slots whose links can change when the tiles in `changed_columns` change: every
/// occupied slot of those columns and of their four side neighbours; every occupied slot
/// when `off_mesh_involved` (some tile before or after the change has off-mesh links).
/// Ascending slot order.
pub fn restitch_scope(
    set: &TileSet<'_>,
    changed_columns: &[(i32, i32)],
    off_mesh_involved: bool,
) -> Vec<u32> {
    if off_mesh_involved || set.has_off_mesh_links() {
        return set.occupied().map(|(s, _)| s).collect();
    }
    let mut slots = BTreeSet::new();
    for &(x, z) in changed_columns {
        let cols = std::iter::once(Some((x, z))).chain((0..4).map(|s| neighbour_column(x, z, s)));
        for (cx, cz) in cols.flatten() {
            slots.extend(set.column(cx, cz).iter().map(|&(_, s)| s));
        }
    }
    slots.into_iter().collect()
}

/// Below this many pairs (own edges × facing edges of every layer) a side tests every pair:
/// an ordinary tile side has a handful of portal edges, and sorting them would cost more
/// than the tests it saves.
const DIRECT_PAIRS: usize = 1024;

/// The portal edges of one side of a tile and of the facing side of every layer of the
/// neighbouring column, with, for a side of many edges, the pairs worth testing.
struct SidePortals {
    /// The tile's own portal edges on the side, in portal order (polygon, then edge).
    own: Vec<PortalEdge>,
    /// Per layer of the neighbouring column, ascending: its slot and facing portal edges in
    /// portal order. Facing index `g` counts through them in this order.
    layers: Vec<(u32, Vec<PortalEdge>)>,
    /// `None`: test every pair (few edges, or most pairs overlap). Otherwise the pairs whose
    /// intervals overlap, placed by [`overlapping_by_own`].
    pairs: Option<Placed>,
}

/// Overlapping pairs grouped by own edge: own edge `i` against facing indexes
/// `by_own[first[i]..first[i + 1]]`, ascending; facing index `g` is edge
/// `g − layer_start[l]` of the last layer `l` with `layer_start[l] ≤ g`.
struct Placed {
    first: Vec<u32>,
    by_own: Vec<u32>,
    layer_start: Vec<u32>,
}

impl SidePortals {
    fn new(set: &TileSet<'_>, tile: &NavTile, side: u8) -> SidePortals {
        let own = portal_edges(tile, side);
        let d = tile.data();
        let layers: Vec<(u32, Vec<PortalEdge>)> = match neighbour_column(d.tile_x, d.tile_z, side) {
            Some((nx, nz)) if !own.is_empty() => set
                .column(nx, nz)
                .iter()
                .filter_map(|&(_, ns)| {
                    let nt = set.get(ns)?;
                    Some((ns, portal_edges(nt.tile, opposite_side(side))))
                })
                .collect(),
            _ => Vec::new(),
        };
        let facing: usize = layers.iter().map(|(_, e)| e.len()).sum();
        let pairs = if own.len().saturating_mul(facing) > DIRECT_PAIRS {
            overlapping_by_own(&own, &layers, facing)
        } else {
            None
        };
        SidePortals { own, layers, pairs }
    }

    /// Appends the portal links of own edge `i`, by (neighbour layer, neighbour portal
    /// order); counts the pairs tested in `tests`.
    fn links_of(
        &self,
        set: &TileSet<'_>,
        side: u8,
        i: usize,
        climb: f64,
        tests: &mut u64,
        out: &mut Vec<Link>,
    ) {
        let a = &self.own[i];
        let mut test = |ns: u32, b: &PortalEdge| {
            *tests += 1;
            if let Some(o) = portal_overlap(a, b, climb) {
                if let Some(target) = set.poly_ref(ns, b.poly) {
                    out.push(Link {
                        target,
                        kind: LinkKind::Portal {
                            side,
                            edge: a.edge,
                            neighbour_edge: b.edge,
                            range_min: o.range_min,
                            range_max: o.range_max,
                        },
                    });
                }
            }
        };
        match &self.pairs {
            None => {
                for (ns, edges) in &self.layers {
                    for b in edges {
                        test(*ns, b);
                    }
                }
            }
            Some(placed) => {
                let mut layer = 0;
                for &g in &placed.by_own[placed.first[i] as usize..placed.first[i + 1] as usize] {
                    // Ascending g: the layer only moves forward.
                    while placed.layer_start.get(layer + 1).is_some_and(|&s| s <= g) {
                        layer += 1;
                    }
                    let (ns, edges) = &self.layers[layer];
                    test(*ns, &edges[(g - placed.layer_start[layer]) as usize]);
                }
            }
        }
    }
}

/// The overlapping pairs of `own` against every layer of `layers` (`facing` edges in all),
/// grouped by own edge and, within one, ascending by facing index `g` (layers in order, each
/// in portal order). Two counting sorts, so no comparison sort: the sweep runs twice, first
/// to count the pairs of each facing edge, then to place each pair's own index under its
/// facing edge (the sweep visits the same pairs both times); reading those groups in
/// facing order then places every `g` under its own edge already ascending.
/// O((n + m) log(n + m) + pairs) time, four bytes per pair and per edge.
///
/// `None` when at least half of all pairs overlap: testing every pair then costs at most
/// twice the overlapping pairs, with no memory, and is faster than placing them.
fn overlapping_by_own(
    own: &[PortalEdge],
    layers: &[(u32, Vec<PortalEdge>)],
    facing: usize,
) -> Option<Placed> {
    // Indexes and counts are u32: a side too large for them (beyond anything a mesh can
    // hold in memory) tests every pair instead.
    if own.len() >= u32::MAX as usize || facing >= u32::MAX as usize {
        return None;
    }
    let mut by_facing_first = vec![0u32; facing + 1];
    let mut layer_start = Vec::with_capacity(layers.len());
    let mut base = 0usize;
    for (_, edges) in layers {
        layer_start.push(base as u32);
        overlapping_pairs(own, edges, |_, j| by_facing_first[base + j + 1] += 1);
        base += edges.len();
    }
    // A count per facing edge is at most `own.len()`; only the running total can overflow.
    for g in 0..facing {
        by_facing_first[g + 1] = by_facing_first[g + 1].checked_add(by_facing_first[g])?;
    }
    let pairs = by_facing_first[facing] as usize;
    if pairs.saturating_mul(2) >= own.len().saturating_mul(facing) {
        return None;
    }
    let mut fill = by_facing_first[..facing].to_vec();
    let mut by_facing = vec![0u32; pairs];
    let mut first = vec![0u32; own.len() + 1];
    base = 0;
    for (_, edges) in layers {
        overlapping_pairs(own, edges, |i, j| {
            let g = base + j;
            by_facing[fill[g] as usize] = i as u32;
            fill[g] += 1;
            first[i + 1] += 1;
        });
        base += edges.len();
    }
    for i in 0..own.len() {
        first[i + 1] += first[i];
    }
    let mut fill = first[..own.len()].to_vec();
    let mut by_own = vec![0u32; pairs];
    for g in 0..facing {
        for &i in &by_facing[by_facing_first[g] as usize..by_facing_first[g + 1] as usize] {
            by_own[fill[i as usize] as usize] = g as u32;
            fill[i as usize] += 1;
        }
    }
    Some(Placed {
        first,
        by_own,
        layer_start,
    })
}

fn stitch_one(
    set: &TileSet<'_>,
    pass: &OffMeshPass,
    slot: u32,
    cost: &mut StitchCost,
) -> Option<TileLinks> {
    let st = set.get(slot)?;
    let tile = st.tile;
    let climb = f64::from(set.params().walkable_climb);

    let sides: [SidePortals; 4] = std::array::from_fn(|s| SidePortals::new(set, tile, s as u8));

    let empty = Vec::new();
    let attached = pass.attached.get(slot as usize).unwrap_or(&empty);
    let r_lo = pass.reverse.partition_point(|r| r.0 < slot);
    let r_hi = pass.reverse.partition_point(|r| r.0 <= slot);
    let reverse = &pass.reverse[r_lo..r_hi];
    // Connected links as (start polygon, link index, end): sorted by start polygon, and
    // within one by link index, so each polygon reads its own run instead of every link.
    let mut forward: Vec<(u32, u32, PolyRef)> = attached
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Some((c.start_poly?.poly(), i as u32, c.end_poly?)))
        .collect();
    forward.sort_unstable_by_key(|f| (f.0, f.1));

    let links = TileLinks::from_rows(
        tile.poly_count(),
        |p, out| {
            // Portal links: (side, portal order, neighbour layer, neighbour portal order).
            for (side, sp) in sides.iter().enumerate() {
                let lo = sp.own.partition_point(|e| (e.poly as usize) < p);
                let hi = sp.own.partition_point(|e| (e.poly as usize) <= p);
                for i in lo..hi {
                    sp.links_of(set, side as u8, i, climb, &mut cost.portal_tests, out);
                }
            }
            // Forward off-mesh links in link order.
            let lo = forward.partition_point(|f| (f.0 as usize) < p);
            for f in forward[lo..].iter().take_while(|f| f.0 as usize == p) {
                out.push(Link {
                    target: f.2,
                    kind: LinkKind::OffMesh { link: f.1 },
                });
            }
            // Reverse off-mesh links in (owner slot, link index) order.
            let lo = reverse.partition_point(|r| (r.1 as usize) < p);
            for r in reverse[lo..].iter().take_while(|r| r.1 as usize == p) {
                out.push(Link {
                    target: r.4,
                    kind: LinkKind::OffMeshReverse {
                        owner_slot: r.2,
                        link: r.3,
                    },
                });
            }
        },
        attached.clone(),
    );
    Some(links)
}
