//! Every validation rule of the reader, with hand-built hostile bytes: the exact error
//! (naming the section, slot, edit or field), the same from both restore forms, and a
//! failed in-place restore leaves the mesh untouched.

use onepath_format::bytes::ByteWriter;
use onepath_format::{FormatError, NavTile, MAX_SLOTS};
use onepath_mesh::fixtures::flat_grid_tile;
use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, TileLibrary, TiledNavMeshSnapshotExt};

use crate::common::*;

/// Restores `bytes` every way: with `lib` as a new mesh and in place, and without a library
/// (`restore_full`) as a new mesh and in place. Each pair must fail with the same error; the
/// in-place target (the small mesh) must be untouched: equal value, ONPM, snapshots and
/// debug geometry. Without a library the error is the one with an empty library, except
/// that a referenced tile the empty library lacks is `LibraryRequired` naming that slot.
#[track_caller]
fn reject(bytes: &[u8], lib: &TileLibrary) -> FormatError {
    let fresh = NavMeshSnapshot::restore(bytes, lib).unwrap_err();
    let mut m = small_mesh();
    let before = observe(&m);
    let copy = m.clone();
    let in_place = NavMeshSnapshot::restore_in_place(&mut m, bytes, lib).unwrap_err();
    assert_eq!(in_place, fresh);
    assert_eq!(m, copy, "a failed restore leaves the mesh untouched");
    assert_eq!(observe(&m), before);
    let no_library = NavMeshSnapshot::restore_full(bytes).unwrap_err();
    let in_place = NavMeshSnapshot::restore_full_in_place(&mut m, bytes).unwrap_err();
    assert_eq!(in_place, no_library);
    assert_eq!(m, copy, "a failed restore_full leaves the mesh untouched");
    assert_eq!(observe(&m), before);
    let with_empty = NavMeshSnapshot::restore(bytes, &empty_lib()).unwrap_err();
    let expected = match with_empty {
        FormatError::Malformed { at, reason } if reason.ends_with("is not in the tile library") => {
            let slot = at
                .strip_suffix(": content id")
                .expect("the content id field");
            FormatError::LibraryRequired {
                at: slot.to_string(),
            }
        }
        other => other,
    };
    assert_eq!(no_library, expected);
    fresh
}

#[track_caller]
fn reject_at(bytes: &[u8], lib: &TileLibrary, at: &str) {
    assert_malformed_at(Err::<(), _>(reject(bytes, lib)), at);
}

fn base() -> (Vec<SlotBytes>, TileLibrary) {
    let m = small_mesh();
    (slots_of(&m, SnapshotMode::Full), library_of(&m))
}

fn full() -> Vec<u8> {
    NavMeshSnapshot::take(&small_mesh(), SnapshotMode::Full)
}

#[test]
fn the_hand_built_base_is_accepted() {
    let (slots, lib) = base();
    let bytes = onps_slots(&params(), &slots);
    assert_eq!(
        NavMeshSnapshot::restore(&bytes, &lib).unwrap(),
        small_mesh()
    );
}

#[test]
fn a_bad_magic_is_rejected() {
    let mut b = full();
    b[3] = b'M';
    reject_at(&b, &TileLibrary::new(&params()), "ONPS magic");
}

#[test]
fn a_version_other_than_2_is_a_version_error() {
    for v in [0u16, 1, 3, 0xFFFF] {
        let mut b = full();
        b[4..6].copy_from_slice(&v.to_le_bytes());
        assert_eq!(
            reject(&b, &TileLibrary::new(&params())),
            FormatError::Version {
                what: "ONPS",
                found: v,
                expected: 2
            }
        );
    }
}

#[test]
fn flags_other_than_0_are_rejected() {
    let mut b = full();
    b[6] = 1;
    reject_at(&b, &TileLibrary::new(&params()), "ONPS flags");
}

#[test]
fn an_invalid_parameter_block_names_the_parameter() {
    let lib = TileLibrary::new(&params());
    let mut b = full();
    b[8 + 40..8 + 42].copy_from_slice(&2u16.to_le_bytes());
    reject_at(&b, &lib, "parameters: MaxVertsPerPoly");
    let mut b = full();
    b[8 + 42] = 1;
    reject_at(&b, &lib, "parameters: reserved");
    let mut b = full();
    b[8 + 24..8 + 32].copy_from_slice(&f64::NAN.to_le_bytes());
    reject_at(&b, &lib, "parameters: TileSize");
}

#[test]
fn in_place_restore_requires_bitwise_equal_parameters_as_a_fingerprint_error() {
    let mut other = params();
    other.agent_height = 1.5;
    let mut m = onepath_mesh::TiledNavMesh::new(other).unwrap();
    m.add_tile(flat_grid_tile(&other, 0, 0, 0, 0.0, 1).unwrap())
        .unwrap();
    let bytes = NavMeshSnapshot::take(&m, SnapshotMode::Full);
    // Readable as a new mesh, but not into a mesh with other parameters.
    assert_eq!(
        NavMeshSnapshot::restore(&bytes, &TileLibrary::new(&other)).unwrap(),
        m
    );
    let mut target = small_mesh();
    assert_eq!(
        NavMeshSnapshot::restore_in_place(&mut target, &bytes, &TileLibrary::new(&other)),
        Err(FormatError::Fingerprint {
            at: "parameters".to_string(),
            found: other.fingerprint(),
            expected: params().fingerprint(),
        })
    );
    assert_eq!(target, small_mesh());
    // -0.0 and 0.0 are different parameters.
    let mut neg = params();
    neg.origin_x = -0.0;
    let empty = onepath_mesh::TiledNavMesh::new(neg).unwrap();
    let bytes = NavMeshSnapshot::take(&empty, SnapshotMode::Full);
    assert!(matches!(
        NavMeshSnapshot::restore_in_place(&mut target, &bytes, &TileLibrary::new(&neg)),
        Err(FormatError::Fingerprint { ref at, .. }) if at == "parameters"
    ));
    assert_eq!(target, small_mesh());
}

#[test]
fn the_section_count_is_checked_against_the_remaining_bytes() {
    let mut b = full();
    let remaining = (b.len() - 80) as u32;
    b[76..80].copy_from_slice(&(remaining / 8 + 1).to_le_bytes());
    reject_at(&b, &TileLibrary::new(&params()), "section count");
    let mut b = full();
    b[76..80].copy_from_slice(&u32::MAX.to_le_bytes());
    reject_at(&b, &TileLibrary::new(&params()), "section count");
}

#[test]
fn a_snapshot_must_contain_section_1() {
    reject_at(
        &onps(&params(), &[]),
        &TileLibrary::new(&params()),
        "section 1 (slots)",
    );
}

#[test]
fn unknown_section_ids_are_rejected_not_skipped() {
    let (slots, lib) = base();
    let body = slots_body(&slots);
    let p = params();
    reject_at(&onps(&p, &[(2, 0, Vec::new())]), &lib, "section 0: id");
    reject_at(&onps(&p, &[(0, 0, body.clone())]), &lib, "section 0: id");
    reject_at(
        &onps(&p, &[(1, 0, body.clone()), (2, 0, vec![0; 4])]),
        &lib,
        "section 1: id",
    );
}

#[test]
fn sections_appear_in_strictly_ascending_id_order_each_at_most_once() {
    let (slots, lib) = base();
    let body = slots_body(&slots);
    let e = reject(
        &onps(&params(), &[(1, 0, body.clone()), (1, 0, body)]),
        &lib,
    );
    assert_eq!(
        e,
        FormatError::malformed(
            "section 1: id",
            "id 1 follows id 1 (ids must be strictly ascending)"
        )
    );
}

#[test]
fn the_reserved_field_of_a_section_header_must_be_0() {
    let (slots, lib) = base();
    reject_at(
        &onps(&params(), &[(1, 7, slots_body(&slots))]),
        &lib,
        "section 0: reserved",
    );
}

#[test]
fn a_section_body_longer_than_the_remaining_bytes_is_rejected() {
    let mut b = full();
    let len = u32::from_le_bytes(b[84..88].try_into().unwrap());
    b[84..88].copy_from_slice(&(len + 1).to_le_bytes());
    reject_at(&b, &TileLibrary::new(&params()), "section 0: body length");
}

#[test]
fn a_section_body_not_consumed_exactly_is_rejected() {
    let (slots, lib) = base();
    let mut body = slots_body(&slots);
    body.push(0);
    reject_at(
        &onps(&params(), &[(1, 0, body)]),
        &lib,
        "section 1 (slots): body",
    );
}

#[test]
fn trailing_bytes_after_the_last_section_are_rejected() {
    let mut b = full();
    b.extend_from_slice(&[0, 0, 0, 0]);
    assert_eq!(
        reject(&b, &TileLibrary::new(&params())),
        FormatError::malformed("ONPS", "4 trailing bytes")
    );
}

#[test]
fn every_truncation_is_a_typed_error() {
    let b = full();
    let lib = TileLibrary::new(&params());
    for len in 0..b.len() {
        assert!(matches!(
            NavMeshSnapshot::restore(&b[..len], &lib),
            Err(FormatError::Malformed { .. })
        ));
    }
    // In place, a sample of them (each compares the whole observed state).
    for len in [0, 3, 8, 75, 79, 87, 91, 96, b.len() / 2, b.len() - 1] {
        assert!(matches!(
            reject(&b[..len], &lib),
            FormatError::Malformed { .. }
        ));
    }
}

#[test]
fn the_slot_count_is_checked_against_the_remaining_bytes() {
    let (slots, lib) = base();
    let mut body = slots_body(&slots);
    let n = (body.len() / 5 + 1) as u32;
    body[0..4].copy_from_slice(&n.to_le_bytes());
    reject_at(&onps(&params(), &[(1, 0, body)]), &lib, "slot count");
}

#[test]
fn more_than_1_048_575_slots_are_rejected() {
    let n = MAX_SLOTS as usize + 1;
    let mut w = ByteWriter::with_capacity(4 + 5 * n);
    w.u32(n as u32);
    for _ in 0..n {
        w.u32(1);
        w.u8(0);
    }
    let e = reject(
        &onps(&params(), &[(1, 0, w.into_vec())]),
        &TileLibrary::new(&params()),
    );
    assert_eq!(
        e,
        FormatError::malformed("slot count", "1048576 is above 1048575")
    );
}

#[test]
fn a_generation_outside_1_to_16_777_215_is_rejected() {
    let (mut slots, lib) = base();
    for g in [0, 0x100_0000, u32::MAX] {
        slots[2].generation = g;
        reject_at(&onps_slots(&params(), &slots), &lib, "slot 2: generation");
    }
}

#[test]
fn an_unknown_slot_kind_is_rejected() {
    let (slots, lib) = base();
    let mut body = slots_body(&slots[..1]);
    body[8] = 3; // count u32, generation u32, kind
    reject_at(&onps(&params(), &[(1, 0, body)]), &lib, "slot 0: kind");
}

#[test]
fn an_inline_tile_longer_than_the_remaining_bytes_is_rejected() {
    let (slots, lib) = base();
    let mut body = slots_body(&slots[..1]);
    let len = u32::from_le_bytes(body[9..13].try_into().unwrap());
    body[9..13].copy_from_slice(&(len + 100).to_le_bytes());
    reject_at(&onps(&params(), &[(1, 0, body)]), &lib, "slot 0: tile");
}

#[test]
fn every_inline_tile_is_validated_completely() {
    let (mut slots, lib) = base();
    let Entry::Inline(tile) = &mut slots[1].entry else {
        panic!("slot 1 holds a tile")
    };
    // Polygon 0's as-built area (ONPT: 72-byte header, 9 vertices, then 4 sizes, 4 areas).
    let area_at = 72 + 12 * 9 + 4;
    assert_eq!(tile[area_at], 0);
    tile[area_at] = 64;
    let expected = NavTile::from_bytes(tile, &params())
        .unwrap_err()
        .within("slot 1: tile");
    assert!(
        matches!(expected, FormatError::Malformed { ref at, .. } if at.starts_with("slot 1: tile: "))
    );
    assert_eq!(reject(&onps_slots(&params(), &slots), &lib), expected);
    let Entry::Inline(tile) = &mut slots[1].entry else {
        panic!("slot 1 holds a tile")
    };
    tile[0] = b'X';
    reject_at(
        &onps_slots(&params(), &slots),
        &lib,
        "slot 1: tile: ONPT magic",
    );
}

#[test]
fn an_inline_tile_built_against_other_parameters_is_a_fingerprint_error() {
    let (mut slots, lib) = base();
    let mut other = params();
    other.cell_size = 0.5;
    slots[0].entry = Entry::Inline(flat_grid_tile(&other, 0, 0, 0, 0.0, 2).unwrap().to_bytes());
    assert_eq!(
        reject(&onps_slots(&params(), &slots), &lib),
        FormatError::Fingerprint {
            at: "slot 0: tile".to_string(),
            found: other.fingerprint(),
            expected: params().fingerprint(),
        }
    );
}

#[test]
fn a_referenced_tile_missing_from_the_library_is_rejected() {
    let m = small_mesh();
    let slots = slots_of(&m, SnapshotMode::Referenced);
    let mut lib = library_of(&m);
    let id = m.tile_at(1, 0, 0).unwrap().tile().content_id();
    lib.remove(&id);
    reject_at(&onps_slots(&params(), &slots), &lib, "slot 1: content id");
    reject_at(
        &onps_slots(&params(), &slots),
        &TileLibrary::new(&params()),
        "slot 0: content id",
    );
}

#[test]
fn a_referenced_tile_without_a_library_names_the_first_slot_that_needs_one() {
    // Slot 0 inline, slot 1 referenced, slot 2 free.
    let m = small_mesh();
    let mut slots = slots_of(&m, SnapshotMode::Full);
    slots[1].entry = slots_of(&m, SnapshotMode::Referenced)[1].entry.clone();
    let mixed = onps_slots(&params(), &slots);
    let needs = FormatError::LibraryRequired {
        at: "slot 1".to_string(),
    };
    assert_eq!(
        reject(&mixed, &empty_lib()),
        FormatError::malformed(
            "slot 1: content id",
            format!(
                "tile {} is not in the tile library",
                m.tile_at(1, 0, 0).unwrap().tile().content_id()
            ),
        )
    );
    assert_eq!(NavMeshSnapshot::restore_full(&mixed), Err(needs.clone()));
    // All referenced: slot 0 is the first.
    assert_eq!(
        NavMeshSnapshot::restore_full(&m.snapshot(SnapshotMode::Referenced)),
        Err(FormatError::LibraryRequired {
            at: "slot 0".to_string(),
        })
    );
    // Everything before the referenced slot is checked first: a broken generation of slot 0
    // is reported, not the missing library.
    slots[0].generation = 0;
    assert_malformed_at(
        NavMeshSnapshot::restore_full(&onps_slots(&params(), &slots)),
        "slot 0: generation",
    );
    // In place, the target is untouched.
    let mut target = small_mesh();
    target
        .set_poly_area(target.tile_at(1, 0, 0).unwrap().poly_ref(0).unwrap(), 9)
        .unwrap();
    let copy = target.clone();
    assert_eq!(
        NavMeshSnapshot::restore_full_in_place(&mut target, &mixed),
        Err(needs)
    );
    assert_eq!(target, copy);
    assert_eq!(
        FormatError::LibraryRequired {
            at: "slot 1".to_string()
        }
        .kind(),
        onepath_format::FormatErrorKind::LibraryRequired
    );
}

#[test]
fn a_library_tile_built_against_other_parameters_is_a_fingerprint_error() {
    let mut other = params();
    other.walkable_climb = 0.25;
    let foreign = flat_grid_tile(&other, 0, 0, 0, 0.0, 2).unwrap();
    let mut lib = TileLibrary::new(&other);
    let id = lib.add(&foreign).unwrap();
    let slots = vec![SlotBytes {
        generation: 1,
        entry: Entry::Referenced(id.0),
        edits: Vec::new(),
        disabled: Vec::new(),
    }];
    assert_eq!(
        reject(&onps_slots(&params(), &slots), &lib),
        FormatError::Fingerprint {
            at: "slot 0: referenced tile".to_string(),
            found: other.fingerprint(),
            expected: params().fingerprint(),
        }
    );
}

#[test]
fn positions_must_be_unique() {
    let (mut slots, lib) = base();
    slots[2] = slots[0].clone();
    let e = reject(&onps_slots(&params(), &slots), &lib);
    assert_eq!(
        e,
        FormatError::malformed(
            "slot 2: position",
            "(0, 0, layer 0) is also the position of slot 0"
        )
    );
}

/// One slot holding the linked tile (4 polygons, 2 links), with raw edit and link bytes.
fn linked_slot(edit_count: u32, edits: &[u8], link_count: u32, links: &[u8]) -> Vec<u8> {
    let tile = linked_tile(&params(), 1, 0, 0, 0.0).to_bytes();
    let mut w = ByteWriter::new();
    w.u32(1);
    w.u32(1);
    w.u8(1);
    w.u32(tile.len() as u32);
    w.bytes(&tile);
    w.u32(edit_count);
    w.bytes(edits);
    w.u32(link_count);
    w.bytes(links);
    onps(&params(), &[(1, 0, w.into_vec())])
}

fn edit(p: u32, area: u8, flags: u16) -> Vec<u8> {
    let mut w = ByteWriter::new();
    w.u32(p);
    w.u8(area);
    w.u16(flags);
    w.into_vec()
}

fn empty_lib() -> TileLibrary {
    TileLibrary::new(&params())
}

#[test]
fn the_hand_built_linked_slot_is_accepted() {
    let mut link = Vec::new();
    link.extend_from_slice(&0u32.to_le_bytes());
    link.extend_from_slice(&1u32.to_le_bytes());
    let bytes = linked_slot(2, &[edit(0, 1, 1), edit(3, 0, 2)].concat(), 2, &link);
    let m = NavMeshSnapshot::restore(&bytes, &empty_lib()).unwrap();
    let r = m.tile_at_slot(0).unwrap().tile_ref();
    assert_eq!(m.poly_area(r.poly(0).unwrap()), Ok(1));
    assert_eq!(m.poly_flags(r.poly(3).unwrap()), Ok(2));
    assert_eq!(m.off_mesh_link_enabled(r, 1), Ok(false));
    assert_eq!(NavMeshSnapshot::take(&m, SnapshotMode::Full), bytes);
}

#[test]
fn the_edit_count_is_checked_against_the_remaining_bytes() {
    reject_at(
        &linked_slot(3, &edit(0, 1, 1), 0, &[]),
        &empty_lib(),
        "slot 0: edit count",
    );
    reject_at(
        &linked_slot(u32::MAX, &[], 0, &[]),
        &empty_lib(),
        "slot 0: edit count",
    );
}

#[test]
fn the_edit_count_is_at_most_the_polygon_count() {
    let edits: Vec<u8> = (0..5).flat_map(|p| edit(p, 9, 1)).collect();
    let e = reject(&linked_slot(5, &edits, 0, &[]), &empty_lib());
    assert_eq!(
        e,
        FormatError::malformed("slot 0: edit count", "5 edits for a tile of 4 polygons")
    );
}

#[test]
fn an_edit_polygon_past_the_polygon_count_is_rejected() {
    reject_at(
        &linked_slot(1, &edit(4, 9, 1), 0, &[]),
        &empty_lib(),
        "slot 0: edit 0: polygon",
    );
}

#[test]
fn edits_must_be_in_strictly_ascending_polygon_order() {
    let descending = [edit(2, 9, 1), edit(1, 9, 1)].concat();
    reject_at(
        &linked_slot(2, &descending, 0, &[]),
        &empty_lib(),
        "slot 0: edit 1: polygon",
    );
    let twice = [edit(1, 9, 1), edit(1, 8, 1)].concat();
    reject_at(
        &linked_slot(2, &twice, 0, &[]),
        &empty_lib(),
        "slot 0: edit 1: polygon",
    );
}

#[test]
fn an_edit_equal_to_the_as_built_values_is_rejected() {
    // As built: area 0, flags 1.
    let e = reject(&linked_slot(1, &edit(2, 0, 1), 0, &[]), &empty_lib());
    assert_eq!(
        e,
        FormatError::malformed(
            "slot 0: edit 0: polygon",
            "the edit of polygon 2 equals its as-built area and flags"
        )
    );
}

#[test]
fn an_area_above_63_is_rejected() {
    reject_at(
        &linked_slot(1, &edit(2, 64, 1), 0, &[]),
        &empty_lib(),
        "slot 0: edit 0: area",
    );
    reject_at(
        &linked_slot(1, &edit(2, 255, 7), 0, &[]),
        &empty_lib(),
        "slot 0: edit 0: area",
    );
}

fn link_bytes(indices: &[u32]) -> Vec<u8> {
    indices.iter().flat_map(|i| i.to_le_bytes()).collect()
}

#[test]
fn the_disabled_link_count_is_checked_against_the_remaining_bytes_and_the_link_count() {
    reject_at(
        &linked_slot(0, &[], 2, &link_bytes(&[0])),
        &empty_lib(),
        "slot 0: disabled link count",
    );
    let e = reject(
        &linked_slot(0, &[], 3, &link_bytes(&[0, 1, 2])),
        &empty_lib(),
    );
    assert_eq!(
        e,
        FormatError::malformed(
            "slot 0: disabled link count",
            "3 disabled links for a tile of 2 off-mesh links"
        )
    );
    // A tile without links has none to disable.
    let (mut slots, lib) = base();
    slots[0].disabled = vec![0];
    reject_at(
        &onps_slots(&params(), &slots),
        &lib,
        "slot 0: disabled link count",
    );
}

#[test]
fn a_disabled_link_index_past_the_link_count_is_rejected() {
    reject_at(
        &linked_slot(0, &[], 1, &link_bytes(&[2])),
        &empty_lib(),
        "slot 0: disabled link 0",
    );
}

#[test]
fn disabled_link_indices_must_be_strictly_ascending() {
    reject_at(
        &linked_slot(0, &[], 2, &link_bytes(&[1, 0])),
        &empty_lib(),
        "slot 0: disabled link 1",
    );
    reject_at(
        &linked_slot(0, &[], 2, &link_bytes(&[1, 1])),
        &empty_lib(),
        "slot 0: disabled link 1",
    );
}

#[test]
fn a_slot_cut_short_names_the_field_it_stops_in() {
    let lib = empty_lib();
    let cut = |body: &[u8]| onps(&params(), &[(1, 0, body.to_vec())]);
    let head = |kind: u8| {
        let mut b = Vec::new();
        b.extend_from_slice(&1u32.to_le_bytes()); // slot count
        b.extend_from_slice(&1u32.to_le_bytes()); // generation
        b.push(kind);
        b
    };
    reject_at(
        &cut(&[head(1), vec![9, 0]].concat()),
        &lib,
        "slot 0: tile length",
    );
    reject_at(
        &cut(&[head(2), vec![0; 31]].concat()),
        &lib,
        "slot 0: content id",
    );
    // The linked slot's body, cut inside its first edit and inside its link list: the
    // counts are checked against the remaining bytes first, so they are what is named.
    let full = linked_slot(1, &edit(0, 9, 1), 1, &link_bytes(&[1]));
    let body = &full[88..];
    reject_at(
        &cut(&body[..body.len() - 8 - 1]),
        &lib,
        "slot 0: edit count",
    );
    reject_at(
        &cut(&body[..body.len() - 6]),
        &lib,
        "slot 0: disabled link count",
    );
    reject_at(
        &cut(&body[..body.len() - 2]),
        &lib,
        "slot 0: disabled link count",
    );
    assert!(NavMeshSnapshot::restore(&cut(body), &lib).is_ok());
    // A second slot after it, cut in its generation or before its kind.
    let two = [&2u32.to_le_bytes()[..], &body[4..]].concat();
    reject_at(
        &cut(&[&two[..], &[1, 0]].concat()),
        &lib,
        "slot 1: generation",
    );
    reject_at(
        &cut(&[&two[..], &[1, 0, 0, 0]].concat()),
        &lib,
        "slot 1: kind",
    );
}
