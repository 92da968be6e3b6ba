//! Crafted valid tiles whose stitching used to cost the product of their sizes: the cost
//! is now bounded by counts (portal tests, polygons scored), never by a time.

use onepath_format::{NavTile, OffMeshLinkSlot};
use onepath_stitch::{
    end_columns, restitch_scope, stitch_all, stitch_tiles_with_cost, LinkKind, TileSet,
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
