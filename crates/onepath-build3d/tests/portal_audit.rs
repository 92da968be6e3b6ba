//! The portal audit (issue 21, `docs/build3d-polys.md` §2 "Border vertices"): on every level
//! built here, with each partition, at tiles of 32 and 64 cells, every pair of facing portal edges of
//! neighbouring tiles whose surfaces meet within the climb by Detour's slab rule
//! (`dtNavMesh`'s `overlapSlabs`: the intervals overlap by more than 0.01 at each end, and
//! the two edges cross or come within twice the climb at an end of the common interval) is
//! linked by the stitcher, both ways. Before border vertices were removed, the steep terrain
//! at tile 64 left dozens of such pairs unlinked.

use onepath_build3d::generators::{
    building_with_bridge, city, rolling_terrain, CityParams, TerrainParams,
};
use onepath_build3d::{load_obj, BuildConfig, BuiltMesh, Mesh3DPipeline, TriangleSoup};
use onepath_format::Partition;
use onepath_mesh::MeshTile;
use onepath_stitch::portals::{
    neighbour_column, opposite_side, portal_edges, portal_edges_by_side, PortalEdge,
};
use onepath_stitch::LinkKind;

/// Detour's slab test on two facing portal edges (boundary coordinate u, world height):
/// shrink the common interval by `px` at both ends; linked when it is still non-empty and
/// the edges cross inside it or their heights differ by at most `2 · climb` at one end.
fn detour_slabs_overlap(a: &PortalEdge, b: &PortalEdge, climb: f64) -> bool {
    const PX: f64 = 0.01;
    let ends = |e: &PortalEdge| {
        if e.u0 <= e.u1 {
            ((e.u0, e.h0), (e.u1, e.h1))
        } else {
            ((e.u1, e.h1), (e.u0, e.h0))
        }
    };
    let (amin, amax) = ends(a);
    let (bmin, bmax) = ends(b);
    let lo = (amin.0 + PX).max(bmin.0 + PX);
    let hi = (amax.0 - PX).min(bmax.0 - PX);
    if lo > hi {
        return false;
    }
    let y = |(p, q): ((f64, f64), (f64, f64)), u: f64| p.1 + (q.1 - p.1) * (u - p.0) / (q.0 - p.0);
    let dmin = y((bmin, bmax), lo) - y((amin, amax), lo);
    let dmax = y((bmin, bmax), hi) - y((amin, amax), hi);
    if dmin * dmax < 0.0 {
        return true;
    }
    let thr = (2.0 * climb) * (2.0 * climb);
    dmin * dmin <= thr || dmax * dmax <= thr
}

/// Whether polygon `a.poly` of `from` has a portal link on `side`, edge `a.edge`, to edge
/// `b.edge` of polygon `b.poly` of `to`.
fn linked(from: &MeshTile, side: u8, a: &PortalEdge, to: &MeshTile, b: &PortalEdge) -> bool {
    let Some(target) = to.poly_ref(b.poly) else {
        return false;
    };
    from.poly_links(a.poly as usize).iter().any(|l| {
        l.target == target
            && matches!(l.kind, LinkKind::Portal { side: s, edge, neighbour_edge, .. }
                if s == side && edge == a.edge && neighbour_edge == b.edge)
    })
}

/// Facing pairs that should link, and the ones that do not (described).
fn audit(built: &BuiltMesh) -> (usize, Vec<String>) {
    let climb = f64::from(built.params.walkable_climb);
    let mut facing = 0;
    let mut unlinked = Vec::new();
    for t in built.mesh.tiles() {
        let (x, z, layer) = t.tile().position();
        // The one-pass form the stitcher reads finds each side's edges in the same order.
        let by_side = portal_edges_by_side(t.tile());
        for (side, edges) in by_side.iter().enumerate() {
            assert_eq!(edges, &portal_edges(t.tile(), side as u8), "side {side}");
        }
        // Sides +X and +Z only: each boundary once.
        for side in [0u8, 1] {
            let Some((nx, nz)) = neighbour_column(x, z, side) else {
                continue;
            };
            let mine = portal_edges(t.tile(), side);
            for n in built.mesh.tiles_at(nx, nz) {
                let theirs = portal_edges(n.tile(), opposite_side(side));
                for a in &mine {
                    for b in &theirs {
                        if !detour_slabs_overlap(a, b, climb) {
                            continue;
                        }
                        facing += 1;
                        let there = linked(t, side, a, n, b);
                        let back = linked(n, opposite_side(side), b, t, a);
                        if !(there && back) {
                            unlinked.push(format!(
                                "tile ({x}, {z}, {layer}) side {side} poly {} edge {} \
                                 [u {}..{}, y {}..{}] / tile ({nx}, {nz}, {}) poly {} edge {} \
                                 [u {}..{}, y {}..{}] (linked: {there} / {back})",
                                a.poly,
                                a.edge,
                                a.u0,
                                a.u1,
                                a.h0,
                                a.h1,
                                n.tile().position().2,
                                b.poly,
                                b.edge,
                                b.u0,
                                b.u1,
                                b.h0,
                                b.h1
                            ));
                        }
                    }
                }
            }
        }
    }
    (facing, unlinked)
}

fn config(tile_cells: u32, origin: [f64; 3], partition: Partition) -> BuildConfig {
    let base = BuildConfig::default();
    BuildConfig {
        origin,
        tile_size: BuildConfig::tile_size_of_cells(tile_cells, base.cell_size),
        partition,
        ..base
    }
}

/// Builds `soup` with each partition at tiles of 32 and 64 cells (grid at `origin`) and
/// asserts the audit.
fn assert_every_facing_pair_links(name: &str, soup: &TriangleSoup, origin: [f64; 3]) {
    for partition in [Partition::Watershed, Partition::Monotone, Partition::Layers] {
        for cells in [32, 64] {
            let built = Mesh3DPipeline::new(config(cells, origin, partition))
                .build_soup(soup)
                .unwrap();
            let (facing, unlinked) = audit(&built);
            let what = format!("{name}, {partition:?}, tile {cells}");
            eprintln!(
                "{what}: {} tiles, {facing} facing portal pairs, {} unlinked",
                built.tiles.len(),
                unlinked.len()
            );
            assert!(facing > 0, "{what}: no facing portal pairs at all");
            assert!(
                unlinked.is_empty(),
                "{what}: {} of {facing} facing portal pairs are not linked:\n{}",
                unlinked.len(),
                unlinked.join("\n")
            );
        }
    }
}

#[test]
fn facing_portal_edges_link_on_the_city() {
    let soup = city(&CityParams::default());
    assert_every_facing_pair_links("city", &soup, [0.0; 3]);
}

#[test]
fn facing_portal_edges_link_on_the_rolling_terrain() {
    let soup = rolling_terrain(&TerrainParams::default())
        .to_soup()
        .unwrap();
    assert_every_facing_pair_links("terrain", &soup, [0.0; 3]);
}

#[test]
fn facing_portal_edges_link_on_the_building_with_bridge() {
    let soup = building_with_bridge(3);
    assert_every_facing_pair_links("bridge", &soup, [0.0; 3]);
}

#[test]
fn facing_portal_edges_link_on_the_steep_rolling_terrain() {
    let soup = rolling_terrain(&TerrainParams::steep()).to_soup().unwrap();
    assert_every_facing_pair_links("steep terrain", &soup, [0.0; 3]);
}

#[test]
#[cfg_attr(no_levels, ignore = "needs ONEPATH_DATA (levels/nav_test.obj)")]
fn facing_portal_edges_link_on_nav_test() {
    let Some(dir) = std::env::var_os("ONEPATH_DATA") else {
        eprintln!("skipped: ONEPATH_DATA is not set");
        return;
    };
    let path = std::path::Path::new(&dir).join("levels/nav_test.obj");
    if !path.exists() {
        eprintln!("skipped: {} is absent", path.display());
        return;
    }
    let soup = load_obj(&path).unwrap();
    let (bmin, _) = soup.bounds().unwrap();
    assert_every_facing_pair_links("nav_test", &soup, bmin);
}

#[test]
fn the_slab_rule_links_crossing_and_near_edges_only() {
    let e = |u0: f64, u1: f64, h0: f64, h1: f64| PortalEdge {
        poly: 0,
        edge: 0,
        u0,
        u1,
        h0,
        h1,
    };
    let climb = 0.9;
    // Crossing edges link whatever their end heights.
    assert!(detour_slabs_overlap(
        &e(0.0, 4.0, 0.0, 8.0),
        &e(4.0, 0.0, 0.0, 8.0),
        climb
    ));
    // Parallel edges 1.8 apart are within twice the climb; 1.9 apart they are not.
    assert!(detour_slabs_overlap(
        &e(0.0, 4.0, 0.0, 0.0),
        &e(0.0, 4.0, 1.8, 1.8),
        climb
    ));
    assert!(!detour_slabs_overlap(
        &e(0.0, 4.0, 0.0, 0.0),
        &e(0.0, 4.0, 1.9, 1.9),
        climb
    ));
    // Intervals that only touch (or overlap by under 0.02) never link.
    assert!(!detour_slabs_overlap(
        &e(0.0, 4.0, 0.0, 0.0),
        &e(4.0, 8.0, 0.0, 0.0),
        climb
    ));
    assert!(!detour_slabs_overlap(
        &e(0.0, 4.0, 0.0, 0.0),
        &e(3.99, 8.0, 0.0, 0.0),
        climb
    ));
}
