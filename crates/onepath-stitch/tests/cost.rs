//! Crafted valid tiles whose stitching used to cost the product of their sizes: the cost
//! is now bounded by counts (portal tests, polygons scored), never by a time.

use onepath_format::{NavTile, OffMeshLinkSlot};
use onepath_stitch::{
    admit_tile_with, check_all as cap_check_all, check_tile, end_columns, restitch_scope,
    stitch_all, stitch_tiles_with_cost, try_stitch_tiles_with_cost, LinkKind, StitchError, TileSet,
    PORTAL_LINKS_PER_EDGE,
};

mod crafted;

#[test]
fn facing_thin_triangles_cost_their_overlapping_pairs_not_their_product() {
    let p = crafted::params();
    let n = 2000;
    // Tile A splits its +X boundary into n parts, tile B its −X boundary into n + 1 parts
    // offset by half a part: each edge overlaps at most two across, 2n overlapping pairs.
    let a = crafted::thin_triangles(&p, 0, 0, 0.0, &crafted::partition(&p, n, 0.0), &[], vec![]);
    let b = crafted::thin_triangles(&p, 1, 0, 0.0, &[], &crafted::partition(&p, n, 0.5), vec![]);
    let set = TileSet::new(&p, [(0, 1, &a), (1, 1, &b)]);
    let (links, cost) = stitch_tiles_with_cost(&set, &[0, 1]);
    let portal_links: usize = links
        .iter()
        .map(|(_, l)| {
            l.all_links()
                .iter()
                .filter(|k| matches!(k.kind, LinkKind::Portal { .. }))
                .count()
        })
        .sum();
    assert_eq!(portal_links, 2 * 2 * n);
    // Each tile tests exactly its overlapping pairs; every edge against every edge would
    // be 2·n·(n + 1) = 8 004 000 tests.
    assert_eq!(cost.portal_tests, 2 * 2 * n as u64);
    assert_eq!(cost.polygons_scored, 0);
}

#[test]
fn nested_thin_triangles_cost_one_test_per_link() {
    // Every edge overlaps every edge across: the links themselves are n² per tile, and the
    // matcher tests nothing else.
    let p = crafted::params();
    let n = 300;
    let a = crafted::thin_triangles(&p, 0, 0, 0.0, &crafted::nested(&p, n), &[], vec![]);
    let b = crafted::thin_triangles(&p, 1, 0, 0.0, &[], &crafted::nested(&p, n), vec![]);
    // A third tile at another height in the same column as B: its edges overlap A's
    // intervals but not within climb, so they are tested and give no link.
    let c = crafted::thin_triangles(&p, 1, 1, 5.0, &[], &crafted::nested(&p, n), vec![]);
    let set = TileSet::new(&p, [(0, 1, &a), (1, 1, &b), (2, 1, &c)]);
    let (links, cost) = stitch_tiles_with_cost(&set, &[0, 1, 2]);
    let total: usize = links.iter().map(|(_, l)| l.all_links().len()).sum();
    let n = n as u64;
    assert_eq!(total as u64, 2 * n * n);
    // A: n² pairs with B and n² with C; B and C: n² each with A.
    assert_eq!(cost.portal_tests, 4 * n * n);
}

#[test]
fn off_mesh_ends_score_only_the_polygons_within_reach() {
    let p = crafted::params();
    let cells = 64;
    let count = cells * cells;
    let tile = crafted::square_cells(
        &p,
        0,
        0,
        0,
        0.0,
        cells,
        crafted::cell_links(&p, cells, count),
    );
    let set = TileSet::new(&p, [(0, 1, &tile)]);
    let (links, cost) = stitch_tiles_with_cost(&set, &[0]);
    let l = &links[0].1;
    assert!(l.off_mesh().iter().all(|c| c.is_connected()));
    // Each end lies at a cell centre with a radius of 0.4 cells: only its own cell's bounds
    // are within reach, so one polygon is scored per end (the scan scored 2 × 4 096 × 4 096).
    assert_eq!(cost.polygons_scored, 2 * count as u64);
    for (i, c) in l.off_mesh().iter().enumerate() {
        assert_eq!(c.start_poly.unwrap().poly() as usize, i % count);
        assert_eq!(c.end_poly.unwrap().poly() as usize, (7 * i + 3) % count);
    }
}

/// A link of a 4 × 4-cell tile of 16 units from the centre of cell 0 to `end` (tile-local).
fn cell_link(end: [f32; 3], bidirectional: bool) -> OffMeshLinkSlot {
    OffMeshLinkSlot {
        start: [2.0, 0.0, 2.0],
        end,
        radius: 1.0,
        area: 0,
        bidirectional,
        flags: 1,
        user_id: 0,
    }
}

#[test]
fn replacing_one_tile_of_1024_with_links_attaches_only_the_links_it_can_affect() {
    let p = crafted::params();
    // 32 × 32 tiles, slot = 32·z + x; each tile links from its cell 0 into the +X neighbour
    // (bidirectional), into the −X neighbour (one way) and inside itself (one way).
    let links = vec![
        cell_link([18.0, 0.0, 6.0], true),
        cell_link([-2.0, 0.0, 10.0], false),
        cell_link([14.0, 0.0, 14.0], false),
    ];
    let tiles: Vec<NavTile> = (0..32 * 32)
        .map(|i| crafted::square_cells(&p, i % 32, i / 32, 0, 0.0, 4, links.clone()))
        .collect();
    let (x, z) = (16, 16);
    let changed = (32 * z + x) as u32;
    // The replacement is the same tile in a new generation: every link to or from it changes.
    let before = TileSet::new(&p, tiles.iter().enumerate().map(|(i, t)| (i as u32, 1, t)));
    let after = TileSet::new(
        &p,
        tiles.iter().enumerate().map(|(i, t)| {
            let salt = if i as u32 == changed { 2 } else { 1 };
            (i as u32, salt, t)
        }),
    );
    let departed: Vec<(i32, i32)> = end_columns(&p, &tiles[changed as usize]).collect();
    let scope = restitch_scope(&after, &[(x, z)], &departed);
    // The tile and its four side neighbours; the owners of links ending at (16, 16) are the
    // tile itself and its −X and +X neighbours, and its links end in those columns too.
    assert_eq!(
        scope,
        vec![
            changed - 32,
            changed - 1,
            changed,
            changed + 1,
            changed + 32
        ]
    );
    let (fresh, cost) = stitch_tiles_with_cost(&after, &scope);
    // Each of the 5 tiles attaches its own 3 links; the reverse links of the 5 columns need
    // the bidirectional links ending there, of which those of (14, 16), (15, 15) and
    // (15, 17) belong to tiles outside the scope: 18 attachments (a full pass makes 3 072).
    assert_eq!(cost.links_attached, 5 * 3 + 3);
    // Every end lies inside one cell, within a radius of a quarter of a cell of no other.
    assert_eq!(cost.polygons_scored, 2 * cost.links_attached);
    let full = stitch_all(&after);
    for (slot, l) in &fresh {
        assert_eq!(Some(l), full[*slot as usize].as_ref());
    }
    // Outside the scope nothing changed.
    let old = stitch_all(&before);
    for slot in (0..32 * 32).filter(|s| !scope.contains(s)) {
        assert_eq!(old[slot as usize], full[slot as usize]);
    }
    let (_, all) = stitch_tiles_with_cost(&after, &(0..32 * 32).collect::<Vec<u32>>());
    assert_eq!(all.links_attached, 3 * 32 * 32);
}

#[test]
fn the_per_tile_cap_refuses_the_quadratic_boundary_before_making_a_link() {
    // The shape of the 296 KB mesh of issue 22: n thin triangles on each side of one
    // boundary, every edge covering the middle, n² overlapping pairs.
    let p = crafted::params();
    let n = 4000;
    let a = crafted::thin_triangles(&p, 0, 0, 0.0, &crafted::nested(&p, n), &[], vec![]);
    let b = crafted::thin_triangles(&p, 1, 0, 0.0, &[], &crafted::nested(&p, n), vec![]);
    let set = TileSet::new(&p, [(0, 1, &a), (1, 1, &b)]);
    let n = n as u64;
    let want = |slot: u32, x: i32, side: u8| StitchError::PortalLinkCap {
        slot,
        position: (x, 0, 0),
        side,
        facing_slot: 1 - slot,
        facing_layer: 0,
        pairs: n * n,
        own_edges: n,
        facing_edges: n,
        bound: PORTAL_LINKS_PER_EDGE * 2 * n,
    };
    // Both tiles of the boundary are refused (the count and the cap are symmetric).
    assert_eq!(check_tile(&set, 0), Err(want(0, 0, 0)));
    assert_eq!(check_tile(&set, 1), Err(want(1, 1, 2)));
    // The checked pass refuses the first tile and makes nothing (16 M links otherwise).
    assert_eq!(
        try_stitch_tiles_with_cost(&set, &[0, 1]).err(),
        Some(want(0, 0, 0))
    );
    let message = want(0, 0, 0).to_string();
    assert!(
        message.contains("slot 0") && message.contains("side 0"),
        "{message}"
    );
}

#[test]
fn the_cap_admits_ordinary_boundaries_and_stitches_them_unchanged() {
    let p = crafted::params();
    let n = 2000;
    // Two partitions of the boundary: 2n overlapping pairs from 2n + 1 edges.
    let a = crafted::thin_triangles(&p, 0, 0, 0.0, &crafted::partition(&p, n, 0.0), &[], vec![]);
    let b = crafted::thin_triangles(&p, 1, 0, 0.0, &[], &crafted::partition(&p, n, 0.5), vec![]);
    let set = TileSet::new(&p, [(0, 1, &a), (1, 1, &b)]);
    let check = check_tile(&set, 0).unwrap();
    assert_eq!(check.pairs[0], 2 * n as u64);
    assert_eq!(check.bound[0], PORTAL_LINKS_PER_EDGE * (2 * n as u64 + 1));
    let checked = try_stitch_tiles_with_cost(&set, &[0, 1]).unwrap();
    assert_eq!(checked, stitch_tiles_with_cost(&set, &[0, 1]));
    // 64 nested edges a side: 4 096 pairs against a cap of 64 × 128, admitted.
    let a = crafted::thin_triangles(&p, 0, 0, 0.0, &crafted::nested(&p, 64), &[], vec![]);
    let b = crafted::thin_triangles(&p, 1, 0, 0.0, &[], &crafted::nested(&p, 64), vec![]);
    let set = TileSet::new(&p, [(0, 1, &a), (1, 1, &b)]);
    assert_eq!(check_tile(&set, 0).unwrap().pairs[0], 64 * 64);
    // 129 a side: 16 641 pairs above 64 × 258 = 16 512, refused.
    let a = crafted::thin_triangles(&p, 0, 0, 0.0, &crafted::nested(&p, 129), &[], vec![]);
    let b = crafted::thin_triangles(&p, 1, 0, 0.0, &[], &crafted::nested(&p, 129), vec![]);
    let set = TileSet::new(&p, [(0, 1, &a), (1, 1, &b)]);
    assert!(matches!(
        check_tile(&set, 0),
        Err(StitchError::PortalLinkCap {
            pairs: 16_641,
            bound: 16_512,
            ..
        })
    ));
}

#[test]
fn the_cap_is_one_rule_per_pair_of_facing_tiles_whatever_else_faces_them() {
    // A side of 200 nested edges against a column of two layers: 200 nested edges (40 000
    // pairs, above 64 × 400) and a partition of 100 edges (about 10 000 pairs, below
    // 64 × 300). The pair over the cap is refused from either of its tiles, and only it:
    // the other pair passes, and the state without the refused tile passes (so taking a
    // tile away never puts another pair over the cap).
    let p = crafted::params();
    let a = crafted::thin_triangles(&p, 0, 0, 0.0, &crafted::nested(&p, 200), &[], vec![]);
    let b0 = crafted::thin_triangles(&p, 1, 0, 0.0, &[], &crafted::nested(&p, 200), vec![]);
    let b1 = crafted::thin_triangles(
        &p,
        1,
        1,
        4.0,
        &[],
        &crafted::partition(&p, 100, 0.5),
        vec![],
    );
    let set = TileSet::new(&p, [(0, 1, &a), (1, 1, &b1), (2, 1, &b0)]);
    let refused = |slot: u32, side: u8, facing_slot: u32, x: i32| StitchError::PortalLinkCap {
        slot,
        position: (x, 0, 0),
        side,
        facing_slot,
        facing_layer: 0,
        pairs: 40_000,
        own_edges: 200,
        facing_edges: 200,
        bound: PORTAL_LINKS_PER_EDGE * 400,
    };
    assert_eq!(check_tile(&set, 0), Err(refused(0, 0, 2, 0)));
    assert_eq!(check_tile(&set, 2), Err(refused(2, 2, 0, 1)));
    assert_eq!(cap_check_all(&set), Err(refused(0, 0, 2, 0)));
    // The other pair passes on its own, and so does the tile facing only it.
    let check = check_tile(&set, 1).unwrap();
    assert_eq!(check.bound[2], PORTAL_LINKS_PER_EDGE * 301);
    assert!(
        check.pairs[2] > 5_000 && check.pairs[2] <= check.bound[2],
        "{check:?}"
    );
    let without = TileSet::new(&p, [(0, 1, &a), (1, 1, &b1)]);
    assert!(cap_check_all(&without).is_ok());
}

#[test]
fn admitting_skips_only_pairs_that_cannot_exceed_the_cap_and_refuses_as_the_check() {
    // Sides of 30 to 200 edges, nested (every pair overlaps) or a partition (few do), in
    // columns of one or two layers: `admit_tile_with` (what the mesh runs) accepts and
    // refuses exactly as `check_tile`, with the same error.
    let p = crafted::params();
    let shapes = |n: usize, nested: bool| {
        if nested {
            crafted::nested(&p, n)
        } else {
            crafted::partition(&p, n, 0.25)
        }
    };
    let mut refusals = 0;
    for (n, m, k) in [
        (30, 200, 0),
        (64, 200, 200),
        (129, 129, 0),
        (100, 100, 129),
        (200, 65, 70),
        (150, 300, 130),
    ] {
        for nested in [true, false] {
            let a = crafted::thin_triangles(&p, 0, 0, 0.0, &shapes(n, nested), &[], vec![]);
            let b0 = crafted::thin_triangles(&p, 1, 0, 0.0, &[], &shapes(m, true), vec![]);
            let b1 =
                crafted::thin_triangles(&p, 1, 1, 4.0, &[], &shapes(k.max(1), !nested), vec![]);
            let set = TileSet::new(&p, [(0, 1, &a), (1, 1, &b1), (2, 1, &b0)]);
            for slot in 0..3u32 {
                let t = set.get(slot).unwrap().tile;
                let facing = |x: i32, z: i32| {
                    set.column(x, z)
                        .iter()
                        .map(|&(_, s)| (s, set.get(s).unwrap().tile))
                        .collect::<Vec<_>>()
                };
                let checked = check_tile(&set, slot).map(|_| ());
                assert_eq!(
                    admit_tile_with(slot, t, facing),
                    checked,
                    "{n} {m} {k} {nested}"
                );
                refusals += usize::from(checked.is_err());
            }
            assert_eq!(
                cap_check_all(&set),
                check_tile(&set, 0)
                    .and(check_tile(&set, 1))
                    .and(check_tile(&set, 2))
                    .map(|_| ())
            );
        }
    }
    assert!(refusals >= 4, "{refusals}");
}
