//! onepath-stitch on its own: pure functions of a TileSet.

use onepath_format::{NavMeshParams, NavTile, NavTileData, OffMeshLinkSlot, NO_PORTAL};
use onepath_stitch::{
    portal_overlap, restitch_scope, stitch_all, stitch_tiles, LinkKind, PortalEdge, TileSet,
};
use proptest::prelude::*;

fn params() -> NavMeshParams {
    let mut p = NavMeshParams::new([0.0, 0.0, 0.0], 4.0, 0.25, 6);
    p.walkable_climb = 0.5;
    p
}

/// A tile at (x, z, layer) made of `k` strips along Z (polygon i covers x 0..4,
/// z i·4/k..(i+1)·4/k), every boundary edge a portal, at local height 0.
fn strips(
    x: i32,
    z: i32,
    layer: u16,
    origin_y: f64,
    k: u16,
    links: Vec<OffMeshLinkSlot>,
) -> NavTile {
    let k = usize::from(k);
    let step = 4.0 / k as f32;
    let mut vertices = Vec::new();
    for i in 0..=k {
        let zc = if i == k { 4.0 } else { step * i as f32 };
        vertices.push([0.0, 0.0, zc]);
        vertices.push([4.0, 0.0, zc]);
    }
    let mut corners = Vec::new();
    let mut nb = Vec::new();
    let mut sides = Vec::new();
    for i in 0..k {
        let (a, b, c, d) = (2 * i, 2 * i + 1, 2 * i + 3, 2 * i + 2);
        corners.extend([a as u16, b as u16, c as u16, d as u16]);
        // Edges: −Z, +X, +Z, −X.
        nb.extend([
            if i > 0 { i as u32 } else { 0 },
            0,
            if i + 1 < k { i as u32 + 2 } else { 0 },
            0,
        ]);
        sides.extend([
            if i == 0 { 3 } else { NO_PORTAL },
            0,
            if i + 1 == k { 1 } else { NO_PORTAL },
            2,
        ]);
    }
    NavTile::create(
        &params(),
        NavTileData {
            tile_x: x,
            tile_z: z,
            layer,
            origin_y,
            vertices,
            poly_sizes: vec![4; k],
            poly_areas: vec![0; k],
            poly_flags: vec![1; k],
            corners,
            edge_neighbours: nb,
            edge_portal_sides: sides,
            off_mesh_links: links,
            ..Default::default()
        },
    )
    .unwrap()
}

fn edge(u0: f64, u1: f64, h0: f64, h1: f64) -> PortalEdge {
    PortalEdge {
        poly: 0,
        edge: 0,
        u0,
        u1,
        h0,
        h1,
    }
}

fn small() -> impl Strategy<Value = f64> {
    (-64i32..=64).prop_map(|v| f64::from(v) / 8.0)
}

proptest! {
    #[test]
    fn the_portal_test_is_symmetric_and_ranges_stay_ordered(
        a in (small(), small(), small(), small()),
        b in (small(), small(), small(), small()),
        climb in 0u8..8,
    ) {
        let (a, b) = (edge(a.0, a.1, a.2, a.3), edge(b.0, b.1, b.2, b.3));
        let climb = f64::from(climb) / 4.0;
        let ab = portal_overlap(&a, &b, climb);
        let ba = portal_overlap(&b, &a, climb);
        prop_assert_eq!(ab.is_some(), ba.is_some());
        if let (Some(x), Some(y)) = (ab, ba) {
            prop_assert_eq!((x.lo, x.hi), (y.lo, y.hi));
            prop_assert!(x.range_min < x.range_max);
            prop_assert!(y.range_min < y.range_max);
        }
    }

    #[test]
    fn stitched_portal_links_come_in_symmetric_pairs(
        tiles in proptest::collection::vec((0i32..3, 0i32..3, 0u16..2, 0u8..4, 1u16..4), 1..10),
    ) {
        let p = params();
        let mut made: Vec<NavTile> = Vec::new();
        for (x, z, layer, h, k) in tiles {
            if made.iter().any(|t| t.position() == (x, z, layer)) {
                continue;
            }
            made.push(strips(x, z, layer, f64::from(h) * 0.375, k, Vec::new()));
        }
        let set = TileSet::new(&p, made.iter().enumerate().map(|(i, t)| (i as u32, 1, t)));
        let links = stitch_all(&set);
        for (slot, l) in links.iter().enumerate() {
            let l = l.as_ref().unwrap();
            for poly in 0..l.poly_count() {
                for link in l.poly_links(poly) {
                    let LinkKind::Portal { side, edge, neighbour_edge, .. } = link.kind else {
                        continue;
                    };
                    let back = links[link.target.slot() as usize].as_ref().unwrap();
                    let found = back.poly_links(link.target.poly() as usize).iter().any(|r| {
                        r.target.slot() == slot as u32
                            && r.target.poly() == poly as u32
                            && matches!(r.kind, LinkKind::Portal { side: s, edge: e, neighbour_edge: n, .. }
                                if s == side ^ 2 && e == neighbour_edge && n == edge)
                    });
                    prop_assert!(found);
                }
            }
        }
        // A tile's links do not depend on which other tiles are stitched in the same call.
        for (slot, l) in links.iter().enumerate() {
            let alone = stitch_tiles(&set, &[slot as u32]);
            prop_assert_eq!(&alone[0].1, l.as_ref().unwrap());
        }
    }
}

/// Slots 0..7: (0, 0), (1, 0), (1, 1), (0, 0) layer 1, (−1, 0), (0, −1), (0, 1).
fn around_the_origin() -> Vec<NavTile> {
    vec![
        strips(0, 0, 0, 0.0, 1, Vec::new()),
        strips(1, 0, 0, 0.0, 1, Vec::new()),
        strips(1, 1, 0, 0.0, 1, Vec::new()),
        strips(0, 0, 1, 3.0, 1, Vec::new()),
        strips(-1, 0, 0, 0.0, 1, Vec::new()),
        strips(0, -1, 0, 0.0, 1, Vec::new()),
        strips(0, 1, 0, 0.0, 1, Vec::new()),
    ]
}

#[test]
fn restitch_scope_is_the_column_and_its_four_side_neighbours() {
    let p = params();
    let tiles = around_the_origin();
    let set = TileSet::new(&p, tiles.iter().enumerate().map(|(i, t)| (i as u32, 1, t)));
    assert_eq!(restitch_scope(&set, &[(0, 0)], &[]), vec![0, 1, 3, 4, 5, 6]);
}

fn link_to(end: [f32; 3]) -> OffMeshLinkSlot {
    OffMeshLinkSlot {
        start: [1.0, 0.0, 1.0],
        end,
        radius: 0.5,
        area: 0,
        bidirectional: true,
        flags: 1,
        user_id: 0,
    }
}

#[test]
fn restitch_scope_adds_the_links_ending_in_a_changed_column_and_the_ends_of_its_tiles() {
    let p = params();
    // Slot 7 at column (5, 5) owns a link ending in column (0, 0) (-18 / 4 floors to -5)
    // and one ending in its own column; slot 8 at (9, 0) one ending in (1, 1).
    let mut tiles = around_the_origin();
    tiles.extend([
        strips(
            5,
            5,
            0,
            0.0,
            1,
            vec![link_to([-18.0, 0.0, -18.0]), link_to([2.0, 0.0, 2.0])],
        ),
        strips(9, 0, 0, 0.0, 1, vec![link_to([-30.0, 0.0, 5.0])]),
    ]);
    let set = TileSet::new(&p, tiles.iter().enumerate().map(|(i, t)| (i as u32, 1, t)));
    assert_eq!(set.link_ends_at(0, 0), &[(7, 0)]);
    assert_eq!(set.link_ends_at(5, 5), &[(7, 1)]);
    assert_eq!(set.link_ends_at(1, 1), &[(8, 0)]);
    // A change at (0, 0): its portal neighbours and the owner of the link ending there.
    assert_eq!(
        restitch_scope(&set, &[(0, 0)], &[]),
        vec![0, 1, 3, 4, 5, 6, 7]
    );
    // A change at (5, 5): the tiles where its links end (both layers of (0, 0)).
    assert_eq!(restitch_scope(&set, &[(5, 5)], &[]), vec![0, 3, 7]);
    // A tile with a link ending in (1, 1) left an empty column: the tiles there.
    assert_eq!(restitch_scope(&set, &[(20, 20)], &[(1, 1)]), vec![2]);
}
