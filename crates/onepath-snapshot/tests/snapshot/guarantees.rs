//! The layout, the canonical writer, the tile library and the guarantees of
//! `docs/navmesh-snapshot.md`.

use onepath_format::{FormatError, NavMeshParams, PolyRef, TileRef};
use onepath_mesh::fixtures::{bridge_and_building, flat_grid_tile};
use onepath_mesh::TiledNavMesh;
use onepath_snapshot::{
    NavMeshSnapshot, SnapshotMode, SnapshotWriter, TileLibrary, TiledNavMeshSnapshotExt,
};

use crate::common::*;

const MODES: [SnapshotMode; 2] = [SnapshotMode::Full, SnapshotMode::Referenced];

fn hex(bytes: &[u8]) -> String {
    bytes
        .chunks(16)
        .enumerate()
        .map(|(i, c)| {
            let h: Vec<String> = c.iter().map(|b| format!("{b:02x}")).collect();
            format!("{:06x}: {}\n", i * 16, h.join(" "))
        })
        .collect()
}

#[test]
fn the_byte_layout_is_exactly_as_specified_in_both_modes() {
    let m = small_mesh();
    for mode in MODES {
        let expected = onps_slots(m.params(), &slots_of(&m, mode));
        assert_eq!(NavMeshSnapshot::take(&m, mode), expected, "{mode:?}");
    }
    // The header fields by offset.
    let b = NavMeshSnapshot::take(&m, SnapshotMode::Referenced);
    assert_eq!(&b[0..4], &[0x4F, 0x4E, 0x50, 0x53]);
    assert_eq!(&b[4..6], &[2, 0]);
    assert_eq!(&b[6..8], &[0, 0]);
    assert_eq!(&b[8..76], &m.params().to_block()[..]);
    assert_eq!(&b[76..80], &[1, 0, 0, 0]);
    assert_eq!(&b[80..84], &[1, 0, 0, 0]);
    assert_eq!(
        b.len(),
        88 + u32::from_le_bytes(b[84..88].try_into().unwrap()) as usize
    );
}

#[test]
fn referenced_snapshot_bytes_of_a_small_mesh() {
    insta::assert_snapshot!(hex(&NavMeshSnapshot::take(
        &small_mesh(),
        SnapshotMode::Referenced
    )));
}

#[test]
fn an_edit_is_written_only_where_current_values_differ_from_as_built() {
    let mut m = small_mesh();
    let a = m.tile_at(0, 0, 0).unwrap().tile_ref();
    let p = a.poly(1).unwrap();
    // Setting the value back to the as-built one removes the edit from the snapshot.
    m.set_poly_area(p, 0).unwrap();
    let slots = slots_of(&m, SnapshotMode::Full);
    assert!(slots[0].edits.is_empty());
    assert_eq!(
        NavMeshSnapshot::take(&m, SnapshotMode::Full),
        onps_slots(m.params(), &slots)
    );
    // And turning the link back on removes the switch.
    let b = m.tile_at(1, 0, 0).unwrap().tile_ref();
    m.set_off_mesh_link_enabled(b, 1, true).unwrap();
    assert!(slots_of(&m, SnapshotMode::Full)[1].disabled.is_empty());
}

#[test]
fn the_writer_is_canonical_same_state_same_mode_same_bytes() {
    // Two different histories reaching the same state.
    let p = params();
    let mut a = TiledNavMesh::new(p).unwrap();
    let t = a.add_tile(linked_tile(&p, 0, 0, 0, 0.0)).unwrap();
    a.set_poly_area(t.poly(2).unwrap(), 7).unwrap();
    a.set_poly_area(t.poly(2).unwrap(), 9).unwrap();
    a.set_off_mesh_link_enabled(t, 0, false).unwrap();
    let mut b = TiledNavMesh::new(p).unwrap();
    let t = b.add_tile(linked_tile(&p, 0, 0, 0, 0.0)).unwrap();
    b.set_off_mesh_link_enabled(t, 0, false).unwrap();
    b.set_poly_flags(t.poly(2).unwrap(), 3).unwrap();
    b.set_poly_flags(t.poly(2).unwrap(), 1).unwrap();
    b.set_poly_area(t.poly(2).unwrap(), 9).unwrap();
    for mode in MODES {
        assert_eq!(
            NavMeshSnapshot::take(&a, mode),
            NavMeshSnapshot::take(&b, mode)
        );
    }
}

#[test]
fn snapshot_mutate_restore_snapshot_gives_identical_bytes_in_both_modes() {
    for mode in MODES {
        let mut m = bridge_and_building();
        let lib = library_of(&m);
        let road = m.tile_at(1, 0, 0).unwrap().tile_ref();
        m.set_poly_area(road.poly(1).unwrap(), 9).unwrap();
        let bridge = m.tile_at(1, 0, 1).unwrap().tile_ref();
        m.set_off_mesh_link_enabled(bridge, 0, false).unwrap();
        let saved = NavMeshSnapshot::take(&m, mode);
        let before = m.clone();

        m.remove_tile(bridge).unwrap();
        m.set_poly_flags(road.poly(0).unwrap(), 0).unwrap();
        let up = m.tile_at(0, 1, 1).unwrap().tile().clone();
        m.replace_tile(up).unwrap();
        assert_ne!(NavMeshSnapshot::take(&m, mode), saved);

        m.restore(&saved, &lib).unwrap();
        assert_eq!(NavMeshSnapshot::take(&m, mode), saved, "{mode:?}");
        assert_eq!(
            m, before,
            "{mode:?}: the restored state equals the saved one"
        );
        let fresh = NavMeshSnapshot::restore(&saved, &lib).unwrap();
        assert_eq!(fresh, before);
    }
}

#[test]
fn every_query_the_links_and_references_after_a_restore_equal_those_of_a_mesh_without_the_excursion(
) {
    for mode in MODES {
        let mut excursion = bridge_and_building();
        let mut straight = bridge_and_building();
        let lib = library_of(&excursion);
        let ops = |m: &mut TiledNavMesh| {
            let r = m.tile_at(0, 1, 0).unwrap().tile_ref();
            m.set_poly_flags(r.poly(2).unwrap(), 0x8).unwrap();
            m.remove_tile_at(2, 0, 0).unwrap();
        };
        ops(&mut excursion);
        ops(&mut straight);
        let saved = excursion.snapshot(mode);
        // The excursion: tiles removed, re-added into other slots, edits, switches.
        let building: Vec<TileRef> = excursion
            .tiles()
            .filter(|t| t.tile().position().1 == 1)
            .map(|t| t.tile_ref())
            .collect();
        for r in building {
            excursion.remove_tile(r).unwrap();
        }
        let p = excursion.params().to_owned();
        excursion
            .add_tile(flat_grid_tile(&p, 5, 5, 0, 0.0, 2).unwrap())
            .unwrap();
        let t = excursion.tile_at(1, 0, 1).unwrap().tile_ref();
        excursion.set_off_mesh_link_enabled(t, 0, false).unwrap();
        excursion.restore(&saved, &lib).unwrap();

        let refs = probe_refs(&[&excursion, &straight]);
        let points = probe_points(&straight, 16);
        let queries = query_battery(&straight, &points);
        assert!(queries.iter().any(|q| q.contains("Complete")));
        assert_eq!(query_battery(&excursion, &points), queries, "{mode:?}");
        assert_eq!(observe(&excursion), observe(&straight), "{mode:?}");
        assert_eq!(
            ref_behaviour(&excursion, &refs),
            ref_behaviour(&straight, &refs),
            "{mode:?}"
        );
        for (a, b) in excursion.tiles().zip(straight.tiles()) {
            assert_eq!(a.links(), b.links());
            assert_eq!(a.off_mesh_connections(), b.off_mesh_connections());
        }
        assert_eq!(excursion, straight);
    }
}

#[test]
fn a_reference_issued_before_the_snapshot_is_valid_exactly_when_it_was() {
    let mut m = small_mesh();
    let lib = library_of(&m);
    let saved = m.snapshot(SnapshotMode::Referenced);
    let live = m.tile_at(1, 0, 0).unwrap().poly_ref(0).unwrap();
    let stale = PolyRef::new(1, 0, 0).unwrap(); // slot 0 was replaced: generation 2
    let free = PolyRef::new(2, 2, 0).unwrap(); // slot 2 is free
    assert!(m.is_valid_poly_ref(live));
    assert!(!m.is_valid_poly_ref(stale));
    m.remove_tile(live.tile()).unwrap();
    let r = m.add_tile(flat_grid_tile(m.params(), 3, 3, 0, 0.0, 1).unwrap());
    let r = r.unwrap();
    assert_eq!(r.slot, 1);
    assert!(!m.is_valid_poly_ref(live));
    m.restore(&saved, &lib).unwrap();
    assert!(m.is_valid_poly_ref(live));
    assert!(!m.is_valid_poly_ref(stale));
    assert!(!m.is_valid_poly_ref(free));
    assert!(!m.is_valid_poly_ref(r.poly(0).unwrap()));
    assert_eq!(m.free_slots().collect::<Vec<_>>(), vec![2]);
}

#[test]
fn full_and_referenced_snapshots_restore_the_same_mesh() {
    let m = small_mesh();
    let lib = library_of(&m);
    let full = NavMeshSnapshot::restore(&m.snapshot(SnapshotMode::Full), &lib).unwrap();
    let empty = TileLibrary::new(m.params());
    let full_alone = NavMeshSnapshot::restore(&m.snapshot(SnapshotMode::Full), &empty).unwrap();
    let referenced = NavMeshSnapshot::restore(&m.snapshot(SnapshotMode::Referenced), &lib).unwrap();
    assert_eq!(full, m);
    assert_eq!(full_alone, m);
    assert_eq!(referenced, m);
}

#[test]
fn a_full_snapshot_restores_without_a_library_in_both_forms() {
    let m = small_mesh();
    let full = m.snapshot(SnapshotMode::Full);
    let alone = NavMeshSnapshot::restore_full(&full).unwrap();
    assert_eq!(alone, m);
    assert_eq!(alone.snapshot(SnapshotMode::Full), full);
    assert_eq!(
        NavMeshSnapshot::restore(&full, &library_of(&m)).unwrap(),
        alone
    );
    // In place, through NavMeshSnapshot and through the mesh's own method.
    let mut target = TiledNavMesh::new(*m.params()).unwrap();
    NavMeshSnapshot::restore_full_in_place(&mut target, &full).unwrap();
    assert_eq!(target, m);
    let mut target = TiledNavMesh::new(*m.params()).unwrap();
    target.restore_full(&full).unwrap();
    assert_eq!(target, m);
    assert_eq!(
        target.snapshot(SnapshotMode::Referenced),
        m.snapshot(SnapshotMode::Referenced)
    );
}

#[test]
fn a_reader_also_accepts_a_mixture_of_full_and_referenced_entries() {
    let m = small_mesh();
    let lib = library_of(&m);
    let mut slots = slots_of(&m, SnapshotMode::Full);
    let referenced = slots_of(&m, SnapshotMode::Referenced);
    slots[1].entry = referenced[1].entry.clone();
    let mixed = onps_slots(m.params(), &slots);
    let back = NavMeshSnapshot::restore(&mixed, &lib).unwrap();
    assert_eq!(back, m);
    // Taken again it is all one mode.
    assert_eq!(
        back.snapshot(SnapshotMode::Full),
        m.snapshot(SnapshotMode::Full)
    );
}

#[test]
fn restore_in_place_keeps_the_object() {
    let mut m = small_mesh();
    let lib = library_of(&m);
    let saved = m.snapshot(SnapshotMode::Full);
    let other = bridge_and_building();
    let mut target = TiledNavMesh::new(*m.params()).unwrap();
    NavMeshSnapshot::restore_in_place(&mut target, &saved, &lib).unwrap();
    assert_eq!(target, m);
    // An empty mesh snapshots and restores too.
    let empty = TiledNavMesh::new(*other.params()).unwrap();
    let saved_empty = empty.snapshot(SnapshotMode::Referenced);
    assert_eq!(saved_empty.len(), 80 + 8 + 4);
    m = bridge_and_building();
    m.restore(&saved_empty, &TileLibrary::new(other.params()))
        .unwrap();
    assert_eq!(m, empty);
}

#[test]
fn adding_a_tile_taken_from_an_edited_mesh_keeps_the_original_as_built_values() {
    let mut src = small_mesh();
    let slot0 = src.tile_at(0, 0, 0).unwrap().tile_ref();
    let taken = src.remove_tile(slot0).unwrap();
    assert_eq!(taken.areas()[1], 5);
    let p = params();
    let mut dst = TiledNavMesh::new(p).unwrap();
    dst.add_tile(taken.clone()).unwrap();
    // The content id and the inline bytes are the as-built ones; the edit is a difference.
    let fresh = flat_grid_tile(&p, 0, 0, 0, 0.0, 2).unwrap();
    assert_eq!(taken.content_id(), fresh.content_id());
    let slots = slots_of(&dst, SnapshotMode::Referenced);
    assert_eq!(slots[0].edits, vec![(1, 5, 1)]);
    assert_eq!(
        dst.snapshot(SnapshotMode::Referenced),
        onps_slots(&p, &slots)
    );
    let mut lib = TileLibrary::new(&p);
    lib.add(&taken).unwrap();
    assert_eq!(
        NavMeshSnapshot::restore(&dst.snapshot(SnapshotMode::Referenced), &lib).unwrap(),
        dst
    );
}

#[test]
fn tile_library_finds_tiles_by_content_id_as_built() {
    let m = small_mesh();
    let edited = m.tile_at(0, 0, 0).unwrap().tile();
    let mut lib = TileLibrary::new(m.params());
    assert!(lib.is_empty());
    let id = lib.add(edited).unwrap();
    assert_eq!(id, edited.content_id());
    assert!(lib.contains(&id));
    let stored = lib.get(&id).unwrap();
    assert_eq!(stored.areas().as_ref(), stored.as_built_areas());
    assert_eq!(stored.to_bytes(), edited.to_bytes());
    // Adding the same tile again keeps one copy.
    assert_eq!(lib.add(edited).unwrap(), id);
    assert_eq!(lib.len(), 1);
    let linked = m.tile_at(1, 0, 0).unwrap().tile();
    let id2 = lib.add(linked).unwrap();
    assert!(lib.get(&id2).unwrap().link_enabled().iter().all(|&on| on));
    let ids: Vec<_> = lib.iter().map(|(id, _)| *id).collect();
    let mut sorted = vec![id, id2];
    sorted.sort();
    assert_eq!(ids, sorted);
    assert_eq!(lib.remove(&id).map(|t| t.content_id()), Some(id));
    assert!(!lib.contains(&id));
}

#[test]
fn tile_library_rejects_a_tile_built_against_other_parameters_as_a_fingerprint_error() {
    let p = params();
    let mut other = p;
    other.agent_radius = 0.75;
    let foreign = flat_grid_tile(&other, 0, 0, 0, 0.0, 1).unwrap();
    let mut lib = TileLibrary::new(&p);
    assert_eq!(
        lib.add(&foreign),
        Err(FormatError::Fingerprint {
            at: "library tile".to_string(),
            found: other.fingerprint(),
            expected: p.fingerprint(),
        })
    );
    assert!(lib.is_empty());
    assert_eq!(lib.fingerprint(), p.fingerprint());
    let _: &NavMeshParams = &p;
}

#[test]
fn a_snapshot_writer_gives_the_same_bytes_and_forgets_tiles_no_longer_in_the_mesh() {
    let mut m = bridge_and_building();
    let mut w = SnapshotWriter::new();
    for mode in MODES {
        assert_eq!(w.take(&m, mode), NavMeshSnapshot::take(&m, mode));
    }
    assert_eq!(w.cached(), 7);
    // An edit keeps the geometry, so the cached id is still the tile's.
    let r = m.tile_at(1, 0, 0).unwrap().tile_ref();
    m.set_poly_area(r.poly(0).unwrap(), 11).unwrap();
    assert_eq!(
        w.take(&m, SnapshotMode::Referenced),
        NavMeshSnapshot::take(&m, SnapshotMode::Referenced)
    );
    assert_eq!(w.cached(), 7);
    // Replacing with a tile of the same content keeps the id; removing drops the entry.
    let same = flat_grid_tile(m.params(), 9, 9, 0, 0.0, 1).unwrap();
    m.add_tile(same.clone()).unwrap();
    m.replace_tile(same).unwrap();
    m.remove_tile_at(2, 0, 0).unwrap();
    m.remove_tile_at(1, 0, 1).unwrap();
    assert_eq!(
        w.take(&m, SnapshotMode::Referenced),
        NavMeshSnapshot::take(&m, SnapshotMode::Referenced)
    );
    assert_eq!(w.cached(), 6);
    w.clear();
    assert_eq!(w.cached(), 0);
}

#[test]
fn a_query_object_used_before_and_during_the_excursion_answers_as_a_fresh_one_after_restore() {
    let mut m = bridge_and_building();
    let lib = library_of(&m);
    let reference = m.clone();
    let points = probe_points(&reference, 16);
    let expected = query_battery(&reference, &points);
    let mut q = onepath_mesh::query::NavMeshQuery::new();
    assert_eq!(query_battery_with(&mut q, &m, &points), expected);
    let saved = m.snapshot(SnapshotMode::Referenced);
    // The excursion puts other geometry into the same slots.
    let p = *m.params();
    for t in m.tiles().map(|t| t.tile_ref()).collect::<Vec<_>>() {
        m.remove_tile(t).unwrap();
    }
    for (i, (x, z)) in [(0, 0), (1, 0), (2, 0), (0, 1)].into_iter().enumerate() {
        let r = m
            .add_tile(flat_grid_tile(&p, x, z, 0, 0.5, 2).unwrap())
            .unwrap();
        assert_eq!(r.slot, i as u32);
    }
    query_battery_with(&mut q, &m, &points);
    m.restore(&saved, &lib).unwrap();
    assert_eq!(query_battery_with(&mut q, &m, &points), expected);
}

/// The current state arrays (areas, flags, switches) of every tile, as pointers: which
/// arrays a mesh holds, not what they hold.
fn state_arrays(m: &TiledNavMesh) -> Vec<[*const u8; 3]> {
    m.tiles()
        .map(|t| {
            let t = t.tile();
            [
                std::sync::Arc::as_ptr(t.areas()).cast::<u8>(),
                std::sync::Arc::as_ptr(t.flags()).cast::<u8>(),
                std::sync::Arc::as_ptr(t.link_enabled()).cast::<u8>(),
            ]
        })
        .collect()
}

#[test]
fn an_in_place_restore_of_the_live_state_keeps_its_arrays_and_a_different_state_replaces_them() {
    // The small mesh has an edited area, edited flags and a disabled link.
    let mut m = small_mesh();
    let lib = library_of(&m);
    for mode in [SnapshotMode::Referenced, SnapshotMode::Full] {
        let saved = m.snapshot(mode);
        let before = state_arrays(&m);
        let copy = m.clone();
        NavMeshSnapshot::restore_in_place(&mut m, &saved, &lib).unwrap();
        assert_eq!(m, copy);
        assert_eq!(
            state_arrays(&m),
            before,
            "{mode:?}: the live arrays are kept"
        );
    }
    // Into a mesh whose edits differ: the snapshot's state, in arrays of its own, and the
    // mesh it changed keeps its values (copy on write).
    let saved = m.snapshot(SnapshotMode::Referenced);
    let mut other = m.clone();
    let a = other.tile_at(0, 0, 0).unwrap().tile_ref();
    let b = other.tile_at(1, 0, 0).unwrap().tile_ref();
    other.set_poly_area(a.poly(1).unwrap(), 6).unwrap();
    other.set_off_mesh_link_enabled(b, 1, true).unwrap();
    other.set_off_mesh_link_enabled(b, 0, false).unwrap();
    let edited = other.clone();
    NavMeshSnapshot::restore_in_place(&mut other, &saved, &lib).unwrap();
    assert_eq!(other, m);
    assert_eq!(other.snapshot(SnapshotMode::Referenced), saved);
    assert_eq!(edited.poly_area(a.poly(1).unwrap()), Ok(6));
    assert_eq!(edited.off_mesh_link_enabled(b, 0), Ok(false));
    assert_eq!(other.poly_area(a.poly(1).unwrap()), Ok(5));
    assert_eq!(other.off_mesh_link_enabled(b, 0), Ok(true));
    assert_eq!(other.off_mesh_link_enabled(b, 1), Ok(false));
}
