//! TiledNavMesh: slots, generations, references, ownership and edits.

use onepath_format::{
    FormatError, NavMeshParams, NavTile, OffMeshLinkSlot, PolyRef, TileRef, MAX_SALT, MAX_SLOTS,
};
use onepath_mesh::fixtures::{flat_grid_data, flat_grid_tile};
use onepath_mesh::{LinkKind, MeshError, TiledNavMesh};

fn params() -> NavMeshParams {
    let mut p = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
    p.walkable_climb = 0.5;
    p
}

fn tile(x: i32, z: i32, layer: u16, y: f64) -> NavTile {
    flat_grid_tile(&params(), x, z, layer, y, 2).unwrap()
}

fn mesh() -> TiledNavMesh {
    TiledNavMesh::new(params()).unwrap()
}

#[test]
fn a_new_tile_takes_the_lowest_free_slot() {
    let mut m = mesh();
    let a = m.add_tile(tile(0, 0, 0, 0.0)).unwrap();
    let b = m.add_tile(tile(1, 0, 0, 0.0)).unwrap();
    let c = m.add_tile(tile(2, 0, 0, 0.0)).unwrap();
    assert_eq!((a.slot, b.slot, c.slot), (0, 1, 2));
    m.remove_tile(c).unwrap();
    m.remove_tile(a).unwrap();
    let d = m.add_tile(tile(5, 5, 0, 0.0)).unwrap();
    assert_eq!(d, TileRef { salt: 2, slot: 0 });
    let e = m.add_tile(tile(6, 5, 0, 0.0)).unwrap();
    assert_eq!(e, TileRef { salt: 2, slot: 2 });
    let f = m.add_tile(tile(7, 5, 0, 0.0)).unwrap();
    assert_eq!(f, TileRef { salt: 1, slot: 3 });
    assert_eq!(m.slot_count(), 4);
}

#[test]
fn every_slot_generation_starts_at_1_and_advances_on_remove_and_replace() {
    let mut m = mesh();
    let a = m.add_tile(tile(0, 0, 0, 0.0)).unwrap();
    assert_eq!(m.slot_generation(0), Some(1));
    let (a2, old) = m.replace_tile(tile(0, 0, 0, 0.0)).unwrap();
    assert_eq!(a2, TileRef { salt: 2, slot: 0 });
    assert_eq!(old, tile(0, 0, 0, 0.0));
    assert!(m.tile(a).is_none());
    m.remove_tile(a2).unwrap();
    assert_eq!(m.slot_generation(0), Some(3));
    assert_eq!(m.slot_count(), 1);
    assert_eq!(m.free_slots().collect::<Vec<_>>(), vec![0]);
}

#[test]
fn the_salt_wraps_skipping_0() {
    let mut m =
        TiledNavMesh::from_slots(params(), vec![(MAX_SALT, Some(tile(0, 0, 0, 0.0)))]).unwrap();
    let r = TileRef {
        salt: MAX_SALT,
        slot: 0,
    };
    m.remove_tile(r).unwrap();
    assert_eq!(m.slot_generation(0), Some(1));
}

#[test]
fn replacing_a_tile_keeps_the_slot_and_rejects_old_references_even_if_identical() {
    let mut m = mesh();
    let a = m.add_tile(tile(0, 0, 0, 0.0)).unwrap();
    let p = a.poly(3).unwrap();
    assert!(m.is_valid_poly_ref(p));
    let (a2, _) = m.replace_tile(tile(0, 0, 0, 0.0)).unwrap();
    assert_eq!(a2.slot, a.slot);
    assert!(!m.is_valid_poly_ref(p));
    assert!(m.is_valid_poly_ref(a2.poly(3).unwrap()));
}

#[test]
fn stale_and_forged_poly_refs_are_invalid() {
    let mut m = mesh();
    let a = m.add_tile(tile(0, 0, 0, 0.0)).unwrap();
    let b = m.add_tile(tile(1, 0, 0, 0.0)).unwrap();
    m.remove_tile(b).unwrap();
    // Valid.
    assert!(m.is_valid_poly_ref(PolyRef::new(1, 0, 3).unwrap()));
    // Wrong salt.
    assert!(!m.is_valid_poly_ref(PolyRef::new(2, 0, 3).unwrap()));
    // Stale: the slot's tile was removed (generation advanced, slot free).
    let stale = b.poly(0).unwrap();
    assert!(!m.is_valid_poly_ref(stale));
    assert_eq!(m.poly(stale).unwrap_err(), MeshError::InvalidPolyRef(stale));
    // Free slot with the current generation.
    assert!(!m.is_valid_poly_ref(PolyRef::new(2, 1, 0).unwrap()));
    // Slot out of range.
    assert!(!m.is_valid_poly_ref(PolyRef::new(1, 2, 0).unwrap()));
    assert!(!m.is_valid_poly_ref(PolyRef::new(1, MAX_SLOTS, 0).unwrap()));
    // Polygon past the count (the tile has 4).
    assert!(!m.is_valid_poly_ref(PolyRef::new(1, 0, 4).unwrap()));
    // Salt 0, forged by hand (never issued); and the null reference.
    let salt0 = PolyRef(a.poly(0).unwrap().0 & ((1u64 << 40) - 1));
    assert_eq!(salt0.salt(), 0);
    assert!(!m.is_valid_poly_ref(salt0));
    assert!(!m.is_valid_poly_ref(PolyRef::NULL));
    assert_eq!(
        m.poly_area(salt0).unwrap_err(),
        MeshError::InvalidPolyRef(salt0)
    );
}

#[test]
fn adding_into_an_occupied_position_is_an_error_and_changes_nothing() {
    let mut m = mesh();
    m.add_tile(tile(0, 0, 0, 0.0)).unwrap();
    m.add_tile(tile(0, 0, 1, 3.0)).unwrap();
    let before = m.clone();
    let e = m.add_tile(tile(0, 0, 1, 5.0)).unwrap_err();
    assert_eq!(
        e,
        MeshError::OccupiedPosition {
            x: 0,
            z: 0,
            layer: 1,
            slot: 1
        }
    );
    assert_eq!(m, before);
}

#[test]
fn the_fingerprint_check_comes_first_on_add_and_replace() {
    let mut m = mesh();
    m.add_tile(tile(0, 0, 0, 0.0)).unwrap();
    let before = m.clone();
    let mut other = params();
    other.settings_digest = 7;
    let foreign = flat_grid_tile(&other, 0, 0, 0, 0.0, 2).unwrap();
    // Occupied position too, but the fingerprint is checked before anything else.
    let e = m.add_tile(foreign.clone()).unwrap_err();
    let expected = FormatError::Fingerprint {
        at: "added tile".into(),
        found: other.fingerprint(),
        expected: params().fingerprint(),
    };
    assert_eq!(e, MeshError::Format(expected));
    let foreign_elsewhere = flat_grid_tile(&other, 9, 9, 0, 0.0, 2).unwrap();
    let e = m.replace_tile(foreign_elsewhere).unwrap_err();
    assert!(matches!(
        e,
        MeshError::Format(FormatError::Fingerprint { .. })
    ));
    assert_eq!(m, before);
}

#[test]
fn replace_needs_a_tile_at_the_position() {
    let mut m = mesh();
    let before = m.clone();
    let e = m.replace_tile(tile(3, 4, 2, 0.0)).unwrap_err();
    assert_eq!(
        e,
        MeshError::NoTileAtPosition {
            x: 3,
            z: 4,
            layer: 2
        }
    );
    assert_eq!(m, before);
}

#[test]
fn remove_with_a_stale_reference_is_an_error_and_changes_nothing() {
    let mut m = mesh();
    let a = m.add_tile(tile(0, 0, 0, 0.0)).unwrap();
    m.replace_tile(tile(0, 0, 0, 0.0)).unwrap();
    let before = m.clone();
    assert_eq!(m.remove_tile(a).unwrap_err(), MeshError::StaleTileRef(a));
    let forged = TileRef { salt: 1, slot: 99 };
    assert_eq!(
        m.remove_tile(forged).unwrap_err(),
        MeshError::StaleTileRef(forged)
    );
    assert_eq!(m, before);
}

#[test]
fn remove_column_removes_every_layer_lowest_first() {
    let mut m = mesh();
    m.add_tile(tile(0, 0, 2, 6.0)).unwrap();
    m.add_tile(tile(0, 0, 0, 0.0)).unwrap();
    m.add_tile(tile(1, 0, 0, 0.0)).unwrap();
    m.add_tile(tile(0, 0, 1, 3.0)).unwrap();
    let removed = m.remove_column(0, 0);
    let layers: Vec<u16> = removed.iter().map(|t| t.position().2).collect();
    assert_eq!(layers, vec![0, 1, 2]);
    assert_eq!(m.tile_count(), 1);
    assert_eq!(m.free_slots().collect::<Vec<_>>(), vec![0, 1, 3]);
    assert!((0..4).all(|s| m.slot_generation(s) == Some(if s == 2 { 1 } else { 2 })));
    assert!(m.remove_column(0, 0).is_empty());
}

#[test]
fn editing_never_changes_the_callers_tile_and_get_tile_returns_the_mesh_copy() {
    let mut m = mesh();
    let t = tile(0, 0, 0, 0.0);
    let a = m.add_tile(t.clone()).unwrap();
    let p = a.poly(2).unwrap();
    m.set_poly_area(p, 9).unwrap();
    m.set_poly_flags(p, 0x8001).unwrap();
    assert_eq!(t.areas()[2], 0);
    assert_eq!(t.flags()[2], 1);
    let copy = m.get_tile(a).unwrap();
    assert_eq!(copy.areas()[2], 9);
    assert_eq!(copy.flags()[2], 0x8001);
    assert_eq!(copy.as_built_areas()[2], 0);
    assert_eq!(
        (m.poly_area(p).unwrap(), m.poly_flags(p).unwrap()),
        (9, 0x8001)
    );
    let edits: Vec<_> = m.tile(a).unwrap().poly_edits().collect();
    assert_eq!(edits, vec![(2, 9, 0x8001)]);
}

#[test]
fn a_tile_taken_from_an_edited_mesh_carries_current_values_and_keeps_as_built_ones() {
    let mut m1 = mesh();
    let a = m1.add_tile(tile(0, 0, 0, 0.0)).unwrap();
    m1.set_poly_area(a.poly(1).unwrap(), 5).unwrap();
    let taken = m1.get_tile(a).unwrap().clone();
    let mut m2 = mesh();
    let b = m2.add_tile(taken).unwrap();
    assert_eq!(m2.poly_area(b.poly(1).unwrap()).unwrap(), 5);
    assert_eq!(m2.get_tile(b).unwrap().as_built_areas()[1], 0);
    // Editing the second mesh leaves the first alone.
    m2.set_poly_area(b.poly(1).unwrap(), 7).unwrap();
    assert_eq!(m1.poly_area(a.poly(1).unwrap()).unwrap(), 5);
}

#[test]
fn replace_tile_resets_the_positions_edits() {
    let mut m = mesh();
    let a = m.add_tile(tile(0, 0, 0, 0.0)).unwrap();
    m.set_poly_area(a.poly(0).unwrap(), 4).unwrap();
    let (a2, old) = m.replace_tile(tile(0, 0, 0, 0.0)).unwrap();
    assert_eq!(old.areas()[0], 4);
    assert_eq!(m.poly_area(a2.poly(0).unwrap()).unwrap(), 0);
    assert_eq!(m.tile(a2).unwrap().poly_edits().count(), 0);
}

#[test]
fn an_area_above_63_is_rejected_and_changes_nothing() {
    let mut m = mesh();
    let a = m.add_tile(tile(0, 0, 0, 0.0)).unwrap();
    let before = m.clone();
    let e = m.set_poly_area(a.poly(0).unwrap(), 64).unwrap_err();
    assert_eq!(e, MeshError::AreaOutOfRange { area: 64 });
    m.set_poly_area(a.poly(0).unwrap(), 63).unwrap();
    let bad = PolyRef::new(1, 0, 4).unwrap();
    assert_eq!(
        m.set_poly_flags(bad, 3).unwrap_err(),
        MeshError::InvalidPolyRef(bad)
    );
    let mut expected = before.clone();
    expected.set_poly_area(a.poly(0).unwrap(), 63).unwrap();
    assert_eq!(m, expected);
}

#[test]
fn off_mesh_links_start_enabled_and_switch_per_mesh() {
    let p = params();
    let mut d = flat_grid_data(&p, 0, 0, 0, 0.0, 2);
    d.off_mesh_links.push(OffMeshLinkSlot {
        start: [1.0, 0.0, 1.0],
        end: [7.0, 0.0, 7.0],
        radius: 0.5,
        area: 3,
        bidirectional: false,
        flags: 1,
        user_id: 42,
    });
    let t = NavTile::create(&p, d).unwrap();
    let mut m = mesh();
    let a = m.add_tile(t.clone()).unwrap();
    assert_eq!(m.off_mesh_link_enabled(a, 0), Ok(true));
    m.set_off_mesh_link_enabled(a, 0, false).unwrap();
    assert_eq!(m.off_mesh_link_enabled(a, 0), Ok(false));
    assert!(t.link_enabled()[0]);
    assert_eq!(
        m.tile(a).unwrap().disabled_links().collect::<Vec<_>>(),
        vec![0]
    );
    assert_eq!(
        m.set_off_mesh_link_enabled(a, 1, false).unwrap_err(),
        MeshError::LinkOutOfRange { link: 1, count: 1 }
    );
    // The switch does not change the stitched links.
    let l = m.poly_links(a.poly(0).unwrap()).unwrap();
    assert!(l.contains(&onepath_mesh::Link {
        target: a.poly(3).unwrap(),
        kind: LinkKind::OffMesh { link: 0 }
    }));
}

#[test]
fn from_slots_restores_slots_free_slots_and_generations_exactly() {
    let m = TiledNavMesh::from_slots(
        params(),
        vec![
            (4, None),
            (9, Some(tile(0, 0, 0, 0.0))),
            (1, None),
            (2, Some(tile(1, 0, 0, 0.0))),
        ],
    )
    .unwrap();
    assert_eq!(m.slot_count(), 4);
    assert_eq!(m.free_slots().collect::<Vec<_>>(), vec![0, 2]);
    let gens: Vec<u32> = m.slots().map(|s| s.generation).collect();
    assert_eq!(gens, vec![4, 9, 1, 2]);
    let l = m.poly_links(PolyRef::new(9, 1, 1).unwrap()).unwrap();
    assert_eq!(l[0].target, PolyRef::new(2, 3, 0).unwrap());
}

#[test]
fn from_slots_rejects_duplicate_positions_and_generation_0() {
    let e = TiledNavMesh::from_slots(
        params(),
        vec![(1, Some(tile(0, 0, 0, 0.0))), (1, Some(tile(0, 0, 0, 2.0)))],
    )
    .unwrap_err();
    assert_eq!(
        e,
        MeshError::OccupiedPosition {
            x: 0,
            z: 0,
            layer: 0,
            slot: 0
        }
    );
    let e = TiledNavMesh::from_slots(params(), vec![(0, None)]).unwrap_err();
    assert_eq!(
        e,
        MeshError::Format(FormatError::malformed(
            "slot 0: generation",
            "0 is not in 1..=16777215"
        ))
    );
}

#[test]
fn world_coordinates_beyond_the_bound_are_rejected_naming_the_value() {
    let m = mesh();
    assert_eq!(m.column_at_point(9.0, -1.0), Ok((1, -1)));
    assert_eq!(
        m.column_at_point(2_097_152.0, 0.0).unwrap_err(),
        MeshError::CoordinateOutOfRange(onepath_format::CoordinateError {
            what: "x".into(),
            value: 2_097_152.0,
            bound: 2_097_152.0
        })
    );
    assert!(matches!(
        m.column_at_point(0.0, f64::NAN).unwrap_err(),
        MeshError::CoordinateOutOfRange(ref e) if e.what == "z"
    ));
}

#[test]
fn link_switches_and_connections_need_a_current_tile_reference() {
    let p = params();
    let mut d = flat_grid_data(&p, 0, 0, 0, 0.0, 1);
    d.off_mesh_links.push(OffMeshLinkSlot {
        start: [1.0, 0.0, 1.0],
        end: [2.0, 0.0, 2.0],
        radius: 0.5,
        area: 0,
        bidirectional: false,
        flags: 1,
        user_id: 0,
    });
    let mut m = mesh();
    let a = m.add_tile(NavTile::create(&p, d.clone()).unwrap()).unwrap();
    let (a2, _) = m.replace_tile(NavTile::create(&p, d).unwrap()).unwrap();
    let before = m.clone();
    assert_eq!(
        m.set_off_mesh_link_enabled(a, 0, false).unwrap_err(),
        MeshError::StaleTileRef(a)
    );
    assert_eq!(
        m.off_mesh_link_enabled(a, 0).unwrap_err(),
        MeshError::StaleTileRef(a)
    );
    assert_eq!(
        m.off_mesh_connection(a, 0).unwrap_err(),
        MeshError::StaleTileRef(a)
    );
    assert_eq!(
        m.off_mesh_connection(a2, 1).unwrap_err(),
        MeshError::LinkOutOfRange { link: 1, count: 1 }
    );
    assert_eq!(m, before);
}

#[test]
fn polygon_world_vertices_are_the_tile_origin_plus_local() {
    let mut p = params();
    p.origin_x = 10.0;
    p.origin_z = -20.0;
    let mut m = TiledNavMesh::new(p).unwrap();
    let a = m
        .add_tile(flat_grid_tile(&p, 1, 2, 0, 5.0, 2).unwrap())
        .unwrap();
    let t = m.tile(a).unwrap();
    assert_eq!(t.origin(), [18.0, 5.0, -4.0]);
    let v: Vec<_> = t.poly_world_vertices(3).collect();
    assert_eq!(
        v,
        vec![
            [22.0, 5.0, 0.0],
            [26.0, 5.0, 0.0],
            [26.0, 5.0, 4.0],
            [22.0, 5.0, 4.0]
        ]
    );
    assert_eq!(t.poly_world_vertices(4).count(), 0);
}
