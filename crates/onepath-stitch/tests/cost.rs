//! Crafted valid tiles whose stitching used to cost the product of their sizes: the cost
//! is now bounded by counts (portal tests, polygons scored), never by a time.

use onepath_stitch::{stitch_tiles_with_cost, LinkKind, TileSet};

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
