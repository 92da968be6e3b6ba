//! SlotTable: the one check of a slot table, and the errors ONPM and `from_slots` give
//! through it.

use onepath_format::{FormatError, NavMeshParams, NavTile, MAX_SALT, MAX_SLOTS};
use onepath_mesh::fixtures::flat_grid_tile;
use onepath_mesh::{
    MeshError, NavMeshSerializer, SlotTable, SlotTableError, TiledNavMesh, ONPM_KINDS,
};

fn params() -> NavMeshParams {
    let mut p = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
    p.walkable_climb = 0.5;
    p
}

fn tile(x: i32, z: i32, layer: u16) -> NavTile {
    flat_grid_tile(&params(), x, z, layer, 0.0, 1).unwrap()
}

/// ONPM bytes of these slots (generation, tile bytes), written by hand with plain byte
/// pushes (independent of the crate's writer).
fn onpm(slots: &[(u32, Option<Vec<u8>>)]) -> Vec<u8> {
    let mut b = b"ONPM\x02\x00\x00\x00".to_vec();
    b.extend(params().to_block());
    b.extend((slots.len() as u32).to_le_bytes());
    for (generation, t) in slots {
        b.extend(generation.to_le_bytes());
        let Some(t) = t else {
            b.push(0); // free
            continue;
        };
        b.push(1); // a tile: length, then its ONPT bytes
        b.extend((t.len() as u32).to_le_bytes());
        b.extend(t);
    }
    b
}

#[test]
fn a_generation_outside_1_to_max_salt_is_the_same_error_from_onpm_and_from_slots() {
    for g in [0, MAX_SALT + 1, u32::MAX] {
        let table = SlotTable::new(&params(), 2).unwrap();
        assert_eq!(
            table.check_generation(g),
            Err(SlotTableError::Generation {
                slot: 0,
                generation: g
            })
        );
        let want = FormatError::malformed(
            "slot 1: generation",
            format!("{g} is not in 1..={MAX_SALT}"),
        );
        assert_eq!(
            NavMeshSerializer::read_mesh(&onpm(&[(1, None), (g, None)])).unwrap_err(),
            want
        );
        assert_eq!(
            TiledNavMesh::from_slots(params(), vec![(1, None), (g, None)]).unwrap_err(),
            MeshError::Format(want)
        );
    }
    let mut table = SlotTable::new(&params(), 1).unwrap();
    table.push(MAX_SALT, None).unwrap();
    assert_eq!(table.slots(), &[(MAX_SALT, None)]);
}

#[test]
fn a_repeated_position_names_both_slots_in_each_path() {
    let a = tile(2, 3, 1);
    let slots = vec![(1, Some(a.clone())), (1, None), (5, Some(a.clone()))];
    let mut table = SlotTable::new(&params(), 3).unwrap();
    table.push(1, Some(a.clone())).unwrap();
    table.push(1, None).unwrap();
    let err = SlotTableError::Position {
        slot: 2,
        x: 2,
        z: 3,
        layer: 1,
        other: 0,
    };
    assert_eq!(table.check_tile(&a), Err(err.clone()));
    assert_eq!(table.push(5, Some(a.clone())), Err(err.clone()));
    // A failed push leaves the table as it was: the next push gets the same slot index.
    assert_eq!(table.len(), 2);
    table.push(5, Some(tile(2, 3, 0))).unwrap();
    assert_eq!(table.len(), 3);

    assert_eq!(
        FormatError::from(err.clone()),
        FormatError::malformed(
            "slot 2: position",
            "(2, 3, layer 1) is also the position of slot 0"
        )
    );
    let bytes: Vec<_> = slots
        .iter()
        .map(|(g, t)| (*g, t.as_ref().map(NavTile::to_bytes)))
        .collect();
    assert_eq!(
        NavMeshSerializer::read_mesh(&onpm(&bytes)).unwrap_err(),
        FormatError::from(err)
    );
    assert_eq!(
        TiledNavMesh::from_slots(params(), slots).unwrap_err(),
        MeshError::OccupiedPosition {
            x: 2,
            z: 3,
            layer: 1,
            slot: 0
        }
    );
}

#[test]
fn a_tile_of_other_parameters_is_a_fingerprint_error_naming_the_slot() {
    let mut other = params();
    other.agent_radius = 0.75;
    let foreign = flat_grid_tile(&other, 0, 0, 0, 0.0, 1).unwrap();
    let table = SlotTable::new(&params(), 1).unwrap();
    let err = SlotTableError::Fingerprint {
        slot: 0,
        found: other.fingerprint(),
        expected: params().fingerprint(),
    };
    assert_eq!(table.check_tile(&foreign), Err(err.clone()));
    assert_eq!(
        TiledNavMesh::from_slots(params(), vec![(1, Some(foreign))]).unwrap_err(),
        MeshError::Format(FormatError::Fingerprint {
            at: "slot 0".into(),
            found: other.fingerprint(),
            expected: params().fingerprint(),
        })
    );
    assert_eq!(MeshError::from(err.clone()), MeshError::Format(err.into()));
}

#[test]
fn more_than_max_slots_is_too_many_slots() {
    let err = SlotTable::new(&params(), MAX_SLOTS as usize + 1).unwrap_err();
    assert_eq!(
        err,
        SlotTableError::TooManySlots {
            count: MAX_SLOTS as usize + 1
        }
    );
    assert_eq!(
        FormatError::from(err.clone()),
        FormatError::malformed("slot count", "1048576 is above 1048575")
    );
    assert_eq!(MeshError::from(err), MeshError::SlotsExhausted);
    assert!(SlotTable::new(&params(), MAX_SLOTS as usize).is_ok());
}

#[test]
fn invalid_parameters_are_checked_before_the_slot_count() {
    let mut bad = params();
    bad.max_verts_per_poly = 2;
    let e = SlotTable::new(&bad, MAX_SLOTS as usize + 1).unwrap_err();
    let SlotTableError::Parameters(inner) = e.clone() else {
        panic!("expected a parameter error, got {e:?}");
    };
    assert_eq!(inner, bad.validate().unwrap_err());
    assert_eq!(FormatError::from(e), inner);
    assert_eq!(
        TiledNavMesh::from_slots(bad, Vec::new()).unwrap_err(),
        MeshError::Format(inner)
    );
}

#[test]
fn a_kind_is_checked_against_the_names_of_the_layout() {
    let table = SlotTable::new(&params(), 1).unwrap();
    assert_eq!(table.check_kind(0, ONPM_KINDS), Ok(0));
    assert_eq!(table.check_kind(1, ONPM_KINDS), Ok(1));
    let e = table.check_kind(2, ONPM_KINDS).unwrap_err();
    assert_eq!(
        FormatError::from(e.clone()),
        FormatError::malformed("slot 0: kind", "2 is not 0 (free) or 1 (tile)")
    );
    assert_eq!(e.to_string(), FormatError::from(e).to_string());
    const THREE: &[&str] = &["free", "inline tile", "referenced tile"];
    assert_eq!(table.check_kind(2, THREE), Ok(2));
    assert_eq!(
        FormatError::from(table.check_kind(7, THREE).unwrap_err()),
        FormatError::malformed(
            "slot 0: kind",
            "7 is not 0 (free), 1 (inline tile) or 2 (referenced tile)"
        )
    );
}

#[test]
fn into_mesh_equals_from_slots_and_keeps_free_slots_and_generations() {
    let slots = vec![
        (3, None),
        (7, Some(tile(0, 0, 0))),
        (1, Some(tile(1, 0, 0))),
        (9, None),
    ];
    let mut table = SlotTable::new(&params(), slots.len()).unwrap();
    for (g, t) in slots.clone() {
        table.push(g, t).unwrap();
    }
    let mesh = table.into_mesh().unwrap();
    assert_eq!(mesh, TiledNavMesh::from_slots(params(), slots).unwrap());
    assert_eq!(
        mesh.slots().map(|s| s.generation).collect::<Vec<_>>(),
        vec![3, 7, 1, 9]
    );
    assert_eq!(mesh.free_slots().collect::<Vec<_>>(), vec![0, 3]);
    assert_eq!(
        NavMeshSerializer::read_mesh(&NavMeshSerializer::write_mesh(&mesh)).unwrap(),
        mesh
    );
}

mod positions {
    //! The position index (ascending positions in a run, the others in a map) against a
    //! plain map, over orders that mix both: the same duplicate found, naming the same
    //! earlier slot, at the same push.
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn every_repeated_position_is_found_whatever_the_order(
            order in proptest::collection::vec((0i32..4, -1i32..3, 0u16..2, any::<bool>()), 1..40),
        ) {
            let mut tiles: BTreeMap<(i32, i32, u16), NavTile> = BTreeMap::new();
            let mut table = SlotTable::new(&params(), order.len()).unwrap();
            let mut model: BTreeMap<(i32, i32, u16), u32> = BTreeMap::new();
            for (x, z, layer, free) in order {
                let slot = table.len() as u32;
                if free {
                    table.push(1, None).unwrap();
                    continue;
                }
                let t = tiles
                    .entry((x, z, layer))
                    .or_insert_with(|| tile(x, z, layer))
                    .clone();
                let want = match model.get(&(x, z, layer)) {
                    Some(&other) => Err(SlotTableError::Position { slot, x, z, layer, other }),
                    None => Ok(()),
                };
                prop_assert_eq!(table.check_tile(&t), want.clone());
                prop_assert_eq!(table.push(1, Some(t)), want.clone());
                if want.is_ok() {
                    model.insert((x, z, layer), slot);
                } else {
                    prop_assert_eq!(table.len() as u32, slot, "a failed push changes nothing");
                }
            }
        }
    }
}

#[test]
fn set_last_state_changes_only_the_current_state_of_the_last_tile() {
    let mut table = SlotTable::new(&params(), 2).unwrap();
    let none = |_: &NavTile| Ok(None);
    assert!(
        matches!(
            table.set_last_state(none),
            Err(FormatError::Malformed { ref at, .. }) if at == "slot table"
        ),
        "no slot pushed"
    );
    table.push(1, None).unwrap();
    assert_eq!(
        table.set_last_state(none),
        Err(FormatError::malformed(
            "slot table",
            "the last of 1 slots holds no tile to give a current state"
        ))
    );
    let t = tile(0, 0, 0);
    table.push(2, Some(t.clone())).unwrap();
    table.set_last_state(none).unwrap();
    assert_eq!(table.slots()[1], (2, Some(t.clone())));
    // The tile's flags and switches with these areas.
    let with_areas = |areas: &std::sync::Arc<[u8]>| {
        let areas = areas.clone();
        move |tile: &NavTile| {
            Ok(Some((
                areas,
                std::sync::Arc::clone(tile.flags()),
                std::sync::Arc::clone(tile.link_enabled()),
            )))
        }
    };
    let areas: std::sync::Arc<[u8]> = vec![9; t.poly_count()].into();
    table.set_last_state(with_areas(&areas)).unwrap();
    let (_, Some(now)) = &table.slots()[1] else {
        panic!("slot 1 holds its tile");
    };
    assert_eq!(&now.areas()[..], &areas[..]);
    assert_eq!(now.as_built_areas(), t.as_built_areas());
    assert!(std::sync::Arc::ptr_eq(now.geometry(), t.geometry()));
    // Lengths the tile does not have are the tile's error, within the slot; nothing changes.
    let short: std::sync::Arc<[u8]> = vec![9; t.poly_count() + 1].into();
    let e = table.set_last_state(with_areas(&short)).unwrap_err();
    assert!(e.to_string().contains("slot 1"), "{e}");
    assert_eq!(
        &table.slots()[1].1.as_ref().unwrap().areas()[..],
        &areas[..]
    );
}
