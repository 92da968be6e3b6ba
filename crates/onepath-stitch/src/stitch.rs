//! Assembling the links of tiles in the prescribed order, and the restitch scope.

use std::collections::BTreeSet;

use onepath_format::PolyRef;

use crate::links::{Link, LinkKind, OffMeshConnection, TileLinks};
use crate::off_mesh::attach_links;
use crate::portals::{neighbour_column, opposite_side, portal_edges, portal_overlap, PortalEdge};
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
    fn new(set: &TileSet<'_>) -> OffMeshPass {
        let mut attached = vec![Vec::new(); set.slot_len()];
        let mut reverse = Vec::new();
        if set.has_off_mesh_links() {
            for (slot, st) in set.occupied() {
                let conns = attach_links(set, slot);
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
    let pass = OffMeshPass::new(set);
    slots
        .iter()
        .filter_map(|&slot| stitch_one(set, &pass, slot).map(|l| (slot, l)))
        .collect()
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

fn stitch_one(set: &TileSet<'_>, pass: &OffMeshPass, slot: u32) -> Option<TileLinks> {
    let st = set.get(slot)?;
    let tile = st.tile;
    let d = tile.data();
    let climb = f64::from(set.params().walkable_climb);

    // Own portal edges per side, and the facing portal edges of each neighbour layer.
    let own: [Vec<PortalEdge>; 4] = std::array::from_fn(|s| portal_edges(tile, s as u8));
    let facing: [Vec<(u32, Vec<PortalEdge>)>; 4] = std::array::from_fn(|s| {
        let s = s as u8;
        if own[usize::from(s)].is_empty() {
            return Vec::new();
        }
        let Some((nx, nz)) = neighbour_column(d.tile_x, d.tile_z, s) else {
            return Vec::new();
        };
        set.column(nx, nz)
            .iter()
            .filter_map(|&(_, ns)| {
                let nt = set.get(ns)?;
                Some((ns, portal_edges(nt.tile, opposite_side(s))))
            })
            .collect()
    });

    let empty = Vec::new();
    let attached = pass.attached.get(slot as usize).unwrap_or(&empty);
    let r_lo = pass.reverse.partition_point(|r| r.0 < slot);
    let r_hi = pass.reverse.partition_point(|r| r.0 <= slot);
    let reverse = &pass.reverse[r_lo..r_hi];

    let links = TileLinks::from_rows(
        tile.poly_count(),
        |p, out| {
            // Portal links: (side, portal order, neighbour layer, neighbour portal order).
            for side in 0..4u8 {
                let edges = &own[usize::from(side)];
                let lo = edges.partition_point(|e| (e.poly as usize) < p);
                let hi = edges.partition_point(|e| (e.poly as usize) <= p);
                for a in &edges[lo..hi] {
                    for (ns, edges) in &facing[usize::from(side)] {
                        for b in edges {
                            if let Some(o) = portal_overlap(a, b, climb) {
                                if let Some(target) = set.poly_ref(*ns, b.poly) {
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
                        }
                    }
                }
            }
            // Forward off-mesh links in link order.
            for (i, c) in attached.iter().enumerate() {
                if let (Some(s), Some(e)) = (c.start_poly, c.end_poly) {
                    if s.poly() as usize == p {
                        out.push(Link {
                            target: e,
                            kind: LinkKind::OffMesh { link: i as u32 },
                        });
                    }
                }
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
