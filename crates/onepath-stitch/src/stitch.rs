//! Assembling the links of tiles in the prescribed order, and the restitch scope.

use std::cell::{Cell, OnceCell};
use std::collections::BTreeSet;

use smallvec::SmallVec;

use onepath_format::{NavTile, PolyRef};

use crate::links::{Link, LinkKind, OffMeshConnection, TileLinks};
use crate::off_mesh::{attach_one, PolyIndexes};
use crate::portals::{
    neighbour_column, opposite_side, overlapping_pairs, portal_overlap, PortalEdge,
};
use crate::tiles::TileSet;

/// The off-mesh attachments a stitching pass needs, each computed the first time it is
/// asked for and at most once: the links of the stitched tiles, and the bidirectional links
/// ending in their columns (for their reverse links). A link nothing stitched reaches is
/// never attached, so a pass over a few tiles costs what those tiles reach, not the mesh.
struct Attachments<'s, 'a> {
    set: &'s TileSet<'a>,
    indexes: PolyIndexes,
    /// Per slot, per link slot of its tile.
    slots: Vec<OnceCell<Box<[OnceCell<OffMeshConnection>]>>>,
    polygons_scored: Cell<u64>,
    links_attached: Cell<u64>,
}

impl<'s, 'a> Attachments<'s, 'a> {
    fn new(set: &'s TileSet<'a>) -> Attachments<'s, 'a> {
        let slots = if set.has_off_mesh_links() {
            (0..set.slot_len()).map(|_| OnceCell::new()).collect()
        } else {
            Vec::new()
        };
        Attachments {
            set,
            indexes: PolyIndexes::new(set),
            slots,
            polygons_scored: Cell::new(0),
            links_attached: Cell::new(0),
        }
    }

    /// Where link slot `link` of the tile in `slot` attached (`None`: no such link).
    fn get(&self, slot: u32, link: u32) -> Option<&OffMeshConnection> {
        let links = self.slots.get(slot as usize)?.get_or_init(|| {
            let count = self
                .set
                .get(slot)
                .map_or(0, |t| t.tile.data().off_mesh_links.len());
            (0..count).map(|_| OnceCell::new()).collect()
        });
        let cell = links.get(link as usize)?;
        if let Some(c) = cell.get() {
            return Some(c);
        }
        let mut scored = 0;
        let c = attach_one(self.set, &self.indexes, slot, link as usize, &mut scored)?;
        self.polygons_scored
            .set(self.polygons_scored.get() + scored);
        self.links_attached.set(self.links_attached.get() + 1);
        Some(cell.get_or_init(|| c))
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
    /// Off-mesh link slots attached (each at most once a pass): those of the stitched
    /// tiles and the bidirectional links ending in their columns.
    pub links_attached: u64,
}

/// [`stitch_tiles`], also returning what the pass cost. Portal edges are matched by a
/// sweep over their sorted boundary intervals, so `portal_tests` grows with the edges and
/// the overlapping pairs, not with their product; link ends are attached through a
/// per-tile tree of polygon bounds, so `polygons_scored` grows with the polygons within
/// reach of each end, not with the tile; only the links the stitched tiles own or that end
/// in their columns are attached (`links_attached`).
pub fn stitch_tiles_with_cost(
    set: &TileSet<'_>,
    slots: &[u32],
) -> (Vec<(u32, TileLinks)>, StitchCost) {
    let mut cost = StitchCost::default();
    let pass = Attachments::new(set);
    let links = slots
        .iter()
        .filter_map(|&slot| stitch_one(set, &pass, slot, &mut cost).map(|l| (slot, l)))
        .collect();
    cost.polygons_scored = pass.polygons_scored.get();
    cost.links_attached = pass.links_attached.get();
    (links, cost)
}

/// [`stitch_tiles`] for a pass after a change in one column whose other tiles cannot
/// change: the tiles of `full` are stitched whole, and each `(slot, side, old)` of `sides`
/// keeps its links `old` except the portal links of side `side`, which are stitched again
/// (in their place: a row lists its portal links by side, then its off-mesh links). Returns
/// `(slot, links)`, `full` first, then `sides`, in the order given (free slots skipped).
///
/// The result equals [`stitch_tiles`]'s for those slots when every `old` was the tile's
/// links (in its slot) before the change, the change was to the tiles of the one column
/// each such side faces, and no off-mesh link can have moved (the set has none, and the
/// tiles that left had none): a tile's portal links on a side are a function of the tile
/// and of the column that side faces, and nothing else of a row can change then.
pub fn stitch_tiles_and_sides(
    set: &TileSet<'_>,
    full: &[u32],
    sides: &[(u32, u8, &TileLinks)],
) -> Vec<(u32, TileLinks)> {
    let mut cost = StitchCost::default();
    let pass = Attachments::new(set);
    let mut out: Vec<(u32, TileLinks)> = full
        .iter()
        .filter_map(|&slot| stitch_one(set, &pass, slot, &mut cost).map(|l| (slot, l)))
        .collect();
    out.extend(
        sides
            .iter()
            .filter_map(|&(slot, side, old)| stitch_side(set, slot, side, old).map(|l| (slot, l))),
    );
    out
}

/// The links `old` of the tile in `slot` with the portal links of `side` stitched again
/// ([`stitch_tiles_and_sides`]).
fn stitch_side(set: &TileSet<'_>, slot: u32, side: u8, old: &TileLinks) -> Option<TileLinks> {
    let tile = set.get(slot)?.tile;
    let climb = f64::from(set.params().walkable_climb);
    let sp = SidePortals::new(set, tile, side);
    let mut tests = 0;
    let is_side = |l: &Link, below: bool| match l.kind {
        LinkKind::Portal { side: s, .. } => {
            if below {
                s < side
            } else {
                s == side
            }
        }
        _ => false,
    };
    Some(TileLinks::from_rows(
        tile.poly_count(),
        old.all_links().len(),
        |p, out| {
            let row = old.poly_links(p);
            let start = row.iter().take_while(|l| is_side(l, true)).count();
            let end = start
                + row[start..]
                    .iter()
                    .take_while(|l| is_side(l, false))
                    .count();
            out.extend_from_slice(&row[..start]);
            let lo = sp.own().partition_point(|e| (e.poly as usize) < p);
            let hi = sp.own().partition_point(|e| (e.poly as usize) <= p);
            for i in lo..hi {
                sp.links_of(set, side, i, climb, &mut tests, out);
            }
            out.extend_from_slice(&row[end..]);
        },
        old.off_mesh().to_vec(),
    ))
}

/// [`stitch_tiles_with_cost`] behind the per-tile cap ([`crate::cap`]): every tile of
/// `slots` is checked first (O(n log n) per tile, no link made), and the first one over the
/// cap is refused with nothing stitched. Below the cap the result is exactly
/// [`stitch_tiles_with_cost`]'s.
pub fn try_stitch_tiles_with_cost(
    set: &TileSet<'_>,
    slots: &[u32],
) -> Result<(Vec<(u32, TileLinks)>, StitchCost), crate::cap::StitchError> {
    crate::cap::check_tiles(set, slots)?;
    Ok(stitch_tiles_with_cost(set, slots))
}

/// The slots whose links can change when the tiles in `changed_columns` change (tiles
/// added, replaced or removed there), in ascending order. `set` is the set after the
/// change; `departed_ends` are the end columns of the off-mesh links of the tiles that left
/// ([`crate::end_columns`] of each removed or replaced tile). The scope is every occupied
/// slot of:
/// - a changed column and its four side neighbours (portal links);
/// - the owners of the links that end in a changed column (their attachments);
/// - the end columns of the links of the tiles now in a changed column, and the departed
///   ends (the reverse links there).
///
/// Links outside the scope stay exactly what they were: a link's attachment is a function
/// of its owner and of the tiles of its end column, and a tile's reverse links of the
/// attachments of the links ending in its column.
pub fn restitch_scope(
    set: &TileSet<'_>,
    changed_columns: &[(i32, i32)],
    departed_ends: &[(i32, i32)],
) -> Vec<u32> {
    let mut slots = BTreeSet::new();
    let mut end_columns = BTreeSet::new();
    end_columns.extend(departed_ends.iter().copied());
    for &(x, z) in changed_columns {
        let cols = std::iter::once(Some((x, z))).chain((0..4).map(|s| neighbour_column(x, z, s)));
        for (cx, cz) in cols.flatten() {
            slots.extend(set.column(cx, cz).iter().map(|&(_, s)| s));
        }
        slots.extend(set.link_ends_at(x, z).iter().map(|&(owner, _)| owner));
        for &(_, s) in set.column(x, z) {
            if let Some(t) = set.get(s) {
                end_columns.extend(crate::tiles::end_columns(set.params(), t.tile));
            }
        }
    }
    for (x, z) in end_columns {
        slots.extend(set.column(x, z).iter().map(|&(_, s)| s));
    }
    slots.into_iter().collect()
}

/// A tile's portal edges on each of its four sides (its own table,
/// [`NavTile::portal_edges`]).
type SideEdges<'a> = &'a [Vec<PortalEdge>; 4];

/// Below this many pairs (own edges × facing edges of every layer) a side tests every pair:
/// an ordinary tile side has a handful of portal edges, and sorting them would cost more
/// than the tests it saves.
const DIRECT_PAIRS: usize = 1024;

/// The portal edges of one side of a tile and of the facing side of every layer of the
/// neighbouring column, with, for a side of many edges, the pairs worth testing.
struct SidePortals<'a> {
    /// The side.
    side: u8,
    /// The tile's own portal edges; those on `side`, in portal order (polygon, then edge),
    /// are [`SidePortals::own`].
    own: SideEdges<'a>,
    /// Per layer of the neighbouring column, ascending: its slot and facing portal edges in
    /// portal order. Facing index `g` counts through them in this order. (A column has one
    /// or two layers almost always: kept inline up to two.)
    layers: SmallVec<[(u32, SideEdges<'a>); 2]>,
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

impl<'a> SidePortals<'a> {
    fn new(set: &TileSet<'a>, tile: &'a NavTile, side: u8) -> SidePortals<'a> {
        let own: SideEdges<'a> = &tile.geometry().portal_edges;
        let mine = &own[usize::from(side)];
        let d = tile.data();
        let facing_side = usize::from(opposite_side(side));
        let layers: SmallVec<[(u32, SideEdges<'a>); 2]> =
            match neighbour_column(d.tile_x, d.tile_z, side) {
                Some((nx, nz)) if !mine.is_empty() => set
                    .column(nx, nz)
                    .iter()
                    .filter_map(|&(_, ns)| {
                        let nt = set.get(ns)?;
                        Some((ns, &nt.tile.geometry().portal_edges))
                    })
                    .collect(),
                _ => SmallVec::new(),
            };
        let facing: usize = layers.iter().map(|(_, e)| e[facing_side].len()).sum();
        let pairs = if mine.len().saturating_mul(facing) > DIRECT_PAIRS {
            let views: Vec<(u32, &[PortalEdge])> = layers
                .iter()
                .map(|(ns, e)| (*ns, e[facing_side].as_slice()))
                .collect();
            overlapping_by_own(mine, &views, facing)
        } else {
            None
        };
        SidePortals {
            side,
            own,
            layers,
            pairs,
        }
    }

    /// The tile's own portal edges on the side, in portal order.
    fn own(&self) -> &[PortalEdge] {
        &self.own[usize::from(self.side)]
    }

    /// The facing portal edges of neighbour layer `l`, in portal order.
    fn facing(&self, l: usize) -> &[PortalEdge] {
        &self.layers[l].1[usize::from(opposite_side(self.side))]
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
        let a = &self.own()[i];
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
                for (l, (ns, _)) in self.layers.iter().enumerate() {
                    for b in self.facing(l) {
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
                    let ns = self.layers[layer].0;
                    test(
                        ns,
                        &self.facing(layer)[(g - placed.layer_start[layer]) as usize],
                    );
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
    layers: &[(u32, &[PortalEdge])],
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
    pass: &Attachments<'_, '_>,
    slot: u32,
    cost: &mut StitchCost,
) -> Option<TileLinks> {
    let st = set.get(slot)?;
    let tile = st.tile;
    let d = tile.data();
    let climb = f64::from(set.params().walkable_climb);

    let sides: [SidePortals<'_>; 4] = std::array::from_fn(|s| SidePortals::new(set, tile, s as u8));

    let attached: Vec<OffMeshConnection> = (0..d.off_mesh_links.len() as u32)
        .filter_map(|i| pass.get(slot, i).copied())
        .collect();
    // Reverse links: the bidirectional links ending in this column whose both ends attached
    // and whose end is a polygon of this tile, as (end polygon, owner slot, link index,
    // start polygon). The index lists them by (owner slot, link index); the stable sort by
    // end polygon keeps that order within one polygon.
    let mut reverse: Vec<(u32, u32, u32, PolyRef)> = set
        .link_ends_at(d.tile_x, d.tile_z)
        .iter()
        .filter_map(|&(owner, i)| {
            let l = set.get(owner)?.tile.data().off_mesh_links.get(i as usize)?;
            if !l.bidirectional {
                return None;
            }
            let c = pass.get(owner, i)?;
            let (s, e) = (c.start_poly?, c.end_poly?);
            (e.slot() == slot).then_some((e.poly(), owner, i, s))
        })
        .collect();
    reverse.sort_by_key(|r| r.0);
    // Connected links as (start polygon, link index, end): sorted by start polygon, and
    // within one by link index, so each polygon reads its own run instead of every link.
    let mut forward: Vec<(u32, u32, PolyRef)> = attached
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Some((c.start_poly?.poly(), i as u32, c.end_poly?)))
        .collect();
    forward.sort_unstable_by_key(|f| (f.0, f.1));

    // Most portal edges have one link: a capacity that is usually exact.
    let capacity =
        sides.iter().map(|sp| sp.own().len()).sum::<usize>() + forward.len() + reverse.len();
    let links = TileLinks::from_rows(
        tile.poly_count(),
        capacity,
        |p, out| {
            // Portal links: (side, portal order, neighbour layer, neighbour portal order).
            for (side, sp) in sides.iter().enumerate() {
                let lo = sp.own().partition_point(|e| (e.poly as usize) < p);
                let hi = sp.own().partition_point(|e| (e.poly as usize) <= p);
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
            let lo = reverse.partition_point(|r| (r.0 as usize) < p);
            for r in reverse[lo..].iter().take_while(|r| r.0 as usize == p) {
                out.push(Link {
                    target: r.3,
                    kind: LinkKind::OffMeshReverse {
                        owner_slot: r.1,
                        link: r.2,
                    },
                });
            }
        },
        attached,
    );
    Some(links)
}
