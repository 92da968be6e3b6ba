//! The matchers against the plain scans they replace: the portal sweep against testing
//! every own portal edge against every facing edge of every neighbour layer, and the
//! indexed attachment against scoring every polygon. Same links, in the same order.

use onepath_format::{NavMeshParams, NavTile, OffMeshLinkSlot, PolyRef};
use onepath_stitch::{
    best_poly, neighbour_column, portal_edges, portal_overlap, stitch_all, Link, LinkKind,
    OffMeshConnection, TileSet,
};
use proptest::prelude::*;

mod crafted;

/// One tile's links by the plain scans: per polygon, then the off-mesh attachments.
type Plain = (Vec<Vec<Link>>, Vec<OffMeshConnection>);

fn poly_ref(set: &TileSet<'_>, slot: u32, poly: u32) -> Option<PolyRef> {
    PolyRef::new(set.get(slot)?.salt, slot, poly)
}

/// The attachment rule of "Off-mesh links", scoring every polygon of every candidate tile.
fn plain_attach(set: &TileSet<'_>, slot: u32) -> Vec<OffMeshConnection> {
    let p = set.params();
    let climb = f64::from(p.walkable_climb);
    let owner = set.get(slot).unwrap().tile;
    let d = owner.data();
    let (ox, oz) = p.tile_origin(d.tile_x, d.tile_z);
    d.off_mesh_links
        .iter()
        .map(|l| {
            let r = f64::from(l.radius);
            let y = |v: f32| d.origin_y + f64::from(v);
            let start = [f64::from(l.start[0]), y(l.start[1]), f64::from(l.start[2])];
            let start_poly =
                best_poly(owner, start, r, climb).and_then(|(q, _)| poly_ref(set, slot, q));
            let (ex, ez) = (f64::from(l.end[0]), f64::from(l.end[2]));
            let (dx, dz) = ((ex / p.tile_size).floor(), (ez / p.tile_size).floor());
            let (cx, cz) = (d.tile_x + dx as i32, d.tile_z + dz as i32);
            let local = [ex - dx * p.tile_size, y(l.end[1]), ez - dz * p.tile_size];
            let mut best: Option<(f64, PolyRef)> = None;
            for &(_, s) in set.column(cx, cz) {
                let t = set.get(s).unwrap().tile;
                if let Some((q, score)) = best_poly(t, local, r, climb) {
                    if best.map_or(true, |(b, _)| score < b) {
                        best = Some((score, poly_ref(set, s, q).unwrap()));
                    }
                }
            }
            OffMeshConnection {
                start: [
                    ox + f64::from(l.start[0]),
                    y(l.start[1]),
                    oz + f64::from(l.start[2]),
                ],
                end: [ox + ex, y(l.end[1]), oz + ez],
                start_poly,
                end_poly: best.map(|b| b.1),
            }
        })
        .collect()
}

/// "Stitching (links)" by the plain scans, every tile of the set.
fn plain_stitch(set: &TileSet<'_>) -> Vec<Option<Plain>> {
    let climb = f64::from(set.params().walkable_climb);
    let mut attached = vec![Vec::new(); set.slot_len()];
    let mut reverse = Vec::new();
    for (slot, st) in set.occupied() {
        let conns = plain_attach(set, slot);
        for (i, (c, l)) in conns.iter().zip(&st.tile.data().off_mesh_links).enumerate() {
            if let (true, Some(s), Some(e)) = (l.bidirectional, c.start_poly, c.end_poly) {
                reverse.push((e.slot(), e.poly(), slot, i as u32, s));
            }
        }
        attached[slot as usize] = conns;
    }
    reverse.sort_by_key(|r| (r.0, r.1));
    let mut out = vec![None; set.slot_len()];
    for (slot, st) in set.occupied() {
        let tile = st.tile;
        let d = tile.data();
        let mut rows = vec![Vec::new(); tile.poly_count()];
        for (poly, row) in rows.iter_mut().enumerate() {
            for side in 0..4u8 {
                let Some((nx, nz)) = neighbour_column(d.tile_x, d.tile_z, side) else {
                    continue;
                };
                for a in portal_edges(tile, side)
                    .iter()
                    .filter(|e| e.poly as usize == poly)
                {
                    for &(_, ns) in set.column(nx, nz) {
                        for b in portal_edges(set.get(ns).unwrap().tile, side ^ 2) {
                            if let Some(o) = portal_overlap(a, &b, climb) {
                                row.push(Link {
                                    target: poly_ref(set, ns, b.poly).unwrap(),
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
            for (i, c) in attached[slot as usize].iter().enumerate() {
                if let (Some(s), Some(e)) = (c.start_poly, c.end_poly) {
                    if s.poly() as usize == poly {
                        row.push(Link {
                            target: e,
                            kind: LinkKind::OffMesh { link: i as u32 },
                        });
                    }
                }
            }
            for r in reverse
                .iter()
                .filter(|r| r.0 == slot && r.1 as usize == poly)
            {
                row.push(Link {
                    target: r.4,
                    kind: LinkKind::OffMeshReverse {
                        owner_slot: r.2,
                        link: r.3,
                    },
                });
            }
        }
        out[slot as usize] = Some((rows, attached[slot as usize].clone()));
    }
    out
}

/// Asserts that `stitch_all` gives every tile exactly the links of the plain scans.
fn assert_same_as_plain(set: &TileSet<'_>) -> Result<(), TestCaseError> {
    let fast = stitch_all(set);
    let plain = plain_stitch(set);
    prop_assert_eq!(fast.len(), plain.len());
    for (f, p) in fast.iter().zip(&plain) {
        match (f, p) {
            (None, None) => {}
            (Some(f), Some((rows, off_mesh))) => {
                prop_assert_eq!(f.poly_count(), rows.len());
                for (poly, row) in rows.iter().enumerate() {
                    prop_assert_eq!(f.poly_links(poly), row.as_slice());
                }
                prop_assert_eq!(
                    f.all_links().len(),
                    rows.iter().map(Vec::len).sum::<usize>()
                );
                prop_assert_eq!(f.off_mesh(), off_mesh.as_slice());
            }
            _ => prop_assert!(false, "occupied slots differ"),
        }
    }
    Ok(())
}

/// A coordinate on a quarter-unit grid, so that interval ends often coincide exactly.
fn quarter(lo: i32, hi: i32) -> impl Strategy<Value = f32> {
    (lo * 4..=hi * 4).prop_map(|v| v as f32 / 4.0)
}

/// A thin triangle whose edge starts on the quarter grid and is mostly short (so that both
/// sparse sides, which place their overlapping pairs, and dense ones occur).
fn thin() -> impl Strategy<Value = crafted::Thin> {
    (
        (0i32..64).prop_map(|v| v as f32 / 4.0),
        prop_oneof![4 => 1i32..8, 1 => 1i32..64].prop_map(|v| v as f32 / 4.0),
        0u8..4,
        1u8..16,
    )
        .prop_map(|(z0, len, y, depth)| crafted::Thin {
            z0,
            z1: (z0 + len).min(16.0),
            y: f32::from(y) * 0.25,
            depth: f32::from(depth) * 0.5,
        })
}

fn link() -> impl Strategy<Value = OffMeshLinkSlot> {
    (
        (quarter(-4, 20), quarter(-1, 1), quarter(0, 16)),
        (quarter(-4, 20), quarter(-1, 1), quarter(-4, 20)),
        1u8..24,
        any::<bool>(),
    )
        .prop_map(|(s, e, r, bidirectional)| OffMeshLinkSlot {
            start: [s.0, s.1, s.2],
            end: [e.0, e.1, e.2],
            radius: f32::from(r) * 0.25,
            area: 0,
            bidirectional,
            flags: 1,
            user_id: 0,
        })
}

/// One random thin-triangle tile: column, layer, height step, +X and −X triangles, links.
type ThinTile = (
    i32,
    u16,
    u8,
    Vec<crafted::Thin>,
    Vec<crafted::Thin>,
    Vec<OffMeshLinkSlot>,
);

/// Tiles of thin triangles with portal edges on both X sides, in columns 0..3 of row 0,
/// several layers each, some with off-mesh links.
fn thin_tiles() -> impl Strategy<Value = Vec<ThinTile>> {
    proptest::collection::vec(
        (
            0i32..3,
            0u16..3,
            0u8..3,
            proptest::collection::vec(thin(), 0..80),
            proptest::collection::vec(thin(), 0..80),
            proptest::collection::vec(link(), 0..4),
        ),
        1..7,
    )
}

fn build_thin(p: &NavMeshParams, tiles: Vec<ThinTile>) -> Vec<NavTile> {
    let mut made: Vec<NavTile> = Vec::new();
    for (x, layer, h, plus, minus, links) in tiles {
        if plus.is_empty() && minus.is_empty() || made.iter().any(|t| t.position() == (x, 0, layer))
        {
            continue;
        }
        let origin_y = f64::from(h) * 0.375;
        made.push(crafted::thin_triangles(
            p, x, layer, origin_y, &plus, &minus, links,
        ));
    }
    made
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_portal_sweep_and_indexed_attachment_give_the_links_of_the_plain_scans(
        tiles in thin_tiles(),
        salt in 1u32..5,
    ) {
        let p = crafted::params();
        let made = build_thin(&p, tiles);
        // Spread over slots with gaps, so free slots and salts take part.
        let set = TileSet::new(&p, made.iter().enumerate().map(|(i, t)| (2 * i as u32, salt, t)));
        assert_same_as_plain(&set)?;
    }

    #[test]
    fn indexed_attachment_keeps_the_scan_tie_breaks_on_cell_grids(
        grids in proptest::collection::vec((0i32..2, 0i32..2, 0u16..3, 0u8..3, 0u32..5), 1..8),
        links in proptest::collection::vec(link(), 1..24),
    ) {
        // Ends on cell edges and corners score 0 in several cells (lowest index wins);
        // equal layers at equal heights tie (lowest layer wins).
        let p = crafted::params();
        let mut made: Vec<NavTile> = Vec::new();
        for (i, (x, z, layer, h, cells)) in grids.into_iter().enumerate() {
            if made.iter().any(|t| t.position() == (x, z, layer)) {
                continue;
            }
            let mine = if i == 0 { links.clone() } else { links.iter().rev().cloned().collect() };
            let origin_y = f64::from(h) * 0.5;
            made.push(crafted::square_cells(&p, x, z, layer, origin_y, 1 << cells, mine));
        }
        let set = TileSet::new(&p, made.iter().enumerate().map(|(i, t)| (i as u32, 1, t)));
        assert_same_as_plain(&set)?;
    }
}
