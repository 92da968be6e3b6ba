//! The bridge-and-building fixture: built with NavTileAssembler, committed as ONPM bytes.

use std::path::PathBuf;

use onepath_format::PolyRef;
use onepath_mesh::fixtures::{bridge_and_building, bridge_and_building_tiles, ROAD_AREA};
use onepath_mesh::{LinkKind, MeshTile, NavMeshDebug, NavMeshSerializer, TiledNavMesh};

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/meshes/bridge_and_building.onpm")
}

fn tile(m: &TiledNavMesh, x: i32, z: i32, layer: u16) -> &MeshTile {
    m.tile_at(x, z, layer).unwrap()
}

/// Slots of every tile some polygon of `t` links to by a portal.
fn portal_neighbours(m: &TiledNavMesh, t: &MeshTile) -> Vec<(i32, i32, u16)> {
    let mut v: Vec<_> = t
        .links()
        .all_links()
        .iter()
        .filter(|l| matches!(l.kind, LinkKind::Portal { .. }))
        .map(|l| m.poly(l.target).unwrap().0.tile().position())
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn the_committed_onpm_bytes_match_the_fixture_code() {
    let bytes = NavMeshSerializer::write_mesh(&bridge_and_building());
    let path = committed_path();
    if std::env::var_os("ONEPATH_BLESS").is_some() {
        std::fs::write(&path, &bytes).unwrap();
    }
    let committed = std::fs::read(&path)
        .expect("fixtures/meshes/bridge_and_building.onpm (ONEPATH_BLESS=1 writes it)");
    assert!(
        committed == bytes,
        "fixture bytes differ from the committed file"
    );
    let read = NavMeshSerializer::read_mesh(&committed).unwrap();
    assert_eq!(read, bridge_and_building());
}

#[test]
fn the_fixture_has_seven_tiles_over_two_layers() {
    let m = bridge_and_building();
    let pos: Vec<_> = m.tiles().map(|t| t.tile().position()).collect();
    assert_eq!(
        pos,
        vec![
            (0, 0, 0),
            (1, 0, 0),
            (1, 0, 1),
            (2, 0, 0),
            (0, 1, 0),
            (0, 1, 1),
            (1, 1, 0)
        ]
    );
    assert_eq!(bridge_and_building_tiles().unwrap().len(), 7);
}

#[test]
fn the_bridge_deck_meets_both_ramps_and_the_road_passes_under_it() {
    let m = bridge_and_building();
    let deck = tile(&m, 1, 0, 1);
    assert_eq!(portal_neighbours(&m, deck), vec![(0, 0, 0), (2, 0, 0)]);
    // The deck's links land on the ramp polygons (the ones whose boundary end is at y 3).
    for l in deck.links().all_links() {
        if let LinkKind::Portal { .. } = l.kind {
            let (t, p) = m.poly(l.target).unwrap();
            let d = t.tile().data();
            let ys: Vec<f32> = t
                .tile()
                .poly_corners(p)
                .map(|c| d.vertices[usize::from(d.corners[c])][1])
                .collect();
            assert!(ys.contains(&3.0), "{ys:?}");
        }
    }
    // The road tile links to ground on both sides and to row 1, never to the ramps' tops.
    let road = tile(&m, 1, 0, 0);
    assert_eq!(
        portal_neighbours(&m, road),
        vec![(0, 0, 0), (1, 1, 0), (2, 0, 0)]
    );
    let road_polys: Vec<usize> = (0..road.tile().poly_count())
        .filter(|&p| road.tile().areas()[p] == ROAD_AREA)
        .collect();
    assert_eq!(road_polys.len(), 3);
}

#[test]
fn the_stairs_lead_to_the_upper_floor_and_not_to_the_ground_floor() {
    let m = bridge_and_building();
    let upper = tile(&m, 0, 1, 1);
    assert_eq!(portal_neighbours(&m, upper), vec![(1, 1, 0)]);
    let stairs_tile = tile(&m, 1, 1, 0);
    let upper_ref = upper.poly_ref(0).unwrap();
    let into_upper: Vec<PolyRef> = (0..stairs_tile.tile().poly_count())
        .filter(|&p| {
            stairs_tile
                .poly_links(p)
                .iter()
                .any(|l| l.target == upper_ref)
        })
        .map(|p| stairs_tile.poly_ref(p as u32).unwrap())
        .collect();
    assert_eq!(into_upper.len(), 1);
    // That polygon (the stairs) has no portal into the ground floor of (0, 1, 0).
    let ground = tile(&m, 0, 1, 0).tile_ref();
    assert!(m
        .poly_links(into_upper[0])
        .unwrap()
        .iter()
        .all(|l| l.target.tile() != ground));
}

#[test]
fn the_ladder_and_the_jump_connect() {
    let m = bridge_and_building();
    let deck = tile(&m, 1, 0, 1);
    let ladder = m.off_mesh_connection(deck.tile_ref(), 0).unwrap();
    assert_eq!(ladder.start, [24.0, 3.0, 8.0]);
    assert_eq!(ladder.end, [24.0, 0.0, 12.0]);
    let (road, p) = m.poly(ladder.end_poly.unwrap()).unwrap();
    assert_eq!(road.tile().position(), (1, 0, 0));
    assert_eq!(road.tile().areas()[p], ROAD_AREA);
    // Bidirectional: the road polygon has the reverse link.
    assert!(m
        .poly_links(ladder.end_poly.unwrap())
        .unwrap()
        .iter()
        .any(|l| l.kind
            == LinkKind::OffMeshReverse {
                owner_slot: deck.slot(),
                link: 0
            }));
    let upper = tile(&m, 0, 1, 1);
    let jump = m.off_mesh_connection(upper.tile_ref(), 0).unwrap();
    let (ground, _) = m.poly(jump.end_poly.unwrap()).unwrap();
    assert_eq!(ground.tile().position(), (0, 1, 0));
    // One-way: nothing leads back up.
    assert!(m
        .poly_links(jump.end_poly.unwrap())
        .unwrap()
        .iter()
        .all(|l| !matches!(l.kind, LinkKind::OffMeshReverse { .. })));
}

#[test]
fn the_fixture_links_are_a_full_restitch() {
    let m = bridge_and_building();
    let mut full = m.clone();
    full.restitch_all();
    assert_eq!(full, m);
}

#[test]
fn debug_geometry_of_the_fixture() {
    let d = NavMeshDebug::collect(&bridge_and_building());
    let mut s = String::new();
    for p in &d.polygons {
        s.push_str(&format!(
            "poly {:?} area {} flags {} {:?}\n",
            p.poly, p.area, p.flags, p.outline
        ));
    }
    for l in &d.links {
        s.push_str(&format!(
            "link {:?} -> {:?} {:?} {:?} {:?}\n",
            l.from, l.to, l.kind, l.a, l.b
        ));
    }
    insta::assert_snapshot!(s);
}
