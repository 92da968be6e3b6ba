//! ONPM: the mesh as a file.

use onepath_format::bytes::ByteWriter;
use onepath_format::{FormatError, NavMeshParams, NavTile, OffMeshLinkSlot, PolyRef, TileRef};
use onepath_mesh::fixtures::{flat_grid_data, flat_grid_tile};
use onepath_mesh::{NavMeshSerializer, TiledNavMesh};
use proptest::prelude::*;

fn params() -> NavMeshParams {
    let mut p = NavMeshParams::new([-4.0, 1.5, 2.0], 8.0, 0.25, 6);
    p.walkable_climb = 0.5;
    p
}

/// Slots 0 (tile, generation 2), 1 (free, generation 3), 2 (tile with an off-mesh link),
/// with an area edit, a flags edit and a disabled link.
fn small_mesh() -> TiledNavMesh {
    let p = params();
    let mut m = TiledNavMesh::new(p).unwrap();
    let a = m
        .add_tile(flat_grid_tile(&p, 0, 0, 0, 0.0, 1).unwrap())
        .unwrap();
    let b = m
        .add_tile(flat_grid_tile(&p, 1, 0, 0, 0.25, 1).unwrap())
        .unwrap();
    let mut d = flat_grid_data(&p, 0, 1, 0, 0.0, 1);
    d.off_mesh_links.push(OffMeshLinkSlot {
        start: [4.0, 0.0, 4.0],
        end: [4.0, 0.0, -4.0],
        radius: 1.0,
        area: 2,
        bidirectional: true,
        flags: 4,
        user_id: 7,
    });
    let c = m.add_tile(NavTile::create(&p, d).unwrap()).unwrap();
    m.replace_tile(flat_grid_tile(&p, 0, 0, 0, 0.0, 1).unwrap())
        .unwrap();
    m.remove_tile(b).unwrap();
    m.remove_tile(TileRef { salt: 2, slot: 1 }).unwrap_err();
    let a2 = TileRef {
        salt: 2,
        slot: a.slot,
    };
    m.set_poly_area(a2.poly(0).unwrap(), 5).unwrap();
    m.set_poly_flags(c.poly(0).unwrap(), 0x10).unwrap();
    m.set_off_mesh_link_enabled(c, 0, false).unwrap();
    m
}

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
fn onpm_round_trip_is_byte_identical() {
    let m = small_mesh();
    let bytes = NavMeshSerializer::write_mesh(&m);
    let back = NavMeshSerializer::read_mesh(&bytes).unwrap();
    assert_eq!(NavMeshSerializer::write_mesh(&back), bytes);
}

#[test]
fn reading_restores_slots_free_slots_and_generations_exactly() {
    let m = small_mesh();
    let back = NavMeshSerializer::read_mesh(&NavMeshSerializer::write_mesh(&m)).unwrap();
    let gens = |m: &TiledNavMesh| {
        m.slots()
            .map(|s| (s.generation, s.tile.is_some()))
            .collect::<Vec<_>>()
    };
    assert_eq!(gens(&back), gens(&m));
    assert_eq!(gens(&back), vec![(2, true), (2, false), (1, true)]);
    assert_eq!(back.free_slots().collect::<Vec<_>>(), vec![1]);
    // Stitched once: the links equal the original mesh's.
    for (x, y) in m.tiles().zip(back.tiles()) {
        assert_eq!(x.links(), y.links());
    }
}

#[test]
fn reading_makes_current_values_the_as_built_ones_and_drops_link_switches() {
    let m = small_mesh();
    let back = NavMeshSerializer::read_mesh(&NavMeshSerializer::write_mesh(&m)).unwrap();
    let p = PolyRef::new(2, 0, 0).unwrap();
    assert_eq!(back.poly_area(p).unwrap(), 5);
    let t = back.tile_at_slot(0).unwrap().tile();
    assert_eq!(t.as_built_areas()[0], 5);
    assert_eq!(back.tile_at_slot(0).unwrap().poly_edits().count(), 0);
    let c = TileRef { salt: 1, slot: 2 };
    assert_eq!(back.off_mesh_link_enabled(c, 0), Ok(true));
    assert_eq!(back.poly_flags(c.poly(0).unwrap()).unwrap(), 0x10);
}

#[test]
fn onpm_bytes_of_a_small_mesh() {
    insta::assert_snapshot!(hex(&NavMeshSerializer::write_mesh(&small_mesh())));
}

fn header(slot_count: u32) -> ByteWriter {
    let mut w = ByteWriter::new();
    w.bytes(b"ONPM");
    w.u16(2);
    w.u16(0);
    params().write_block(&mut w);
    w.u32(slot_count);
    w
}

#[test]
fn an_unknown_version_is_a_version_error() {
    let mut b = NavMeshSerializer::write_mesh(&small_mesh());
    b[4] = 1;
    assert_eq!(
        NavMeshSerializer::read_mesh(&b).unwrap_err(),
        FormatError::Version {
            what: "ONPM",
            found: 1,
            expected: 2
        }
    );
}

#[test]
fn a_slot_count_larger_than_the_bytes_is_rejected_before_allocating() {
    let b = header(0xFFFF_FFFF).into_vec();
    let e = NavMeshSerializer::read_mesh(&b).unwrap_err();
    assert!(
        matches!(e, FormatError::Malformed { ref at, .. } if at == "slot count"),
        "{e}"
    );
}

#[test]
fn generation_0_is_rejected_naming_the_slot() {
    let mut w = header(2);
    w.u32(1);
    w.u8(0);
    w.u32(0);
    w.u8(0);
    let e = NavMeshSerializer::read_mesh(&w.into_vec()).unwrap_err();
    assert_eq!(
        e,
        FormatError::malformed("slot 1: generation", "0 is not in 1..=16777215")
    );
}

#[test]
fn an_unknown_slot_kind_is_rejected() {
    let mut w = header(1);
    w.u32(1);
    w.u8(2);
    let e = NavMeshSerializer::read_mesh(&w.into_vec()).unwrap_err();
    assert_eq!(
        e,
        FormatError::malformed("slot 0: kind", "2 is not 0 (free) or 1 (tile)")
    );
}

#[test]
fn duplicate_positions_are_an_error() {
    let t = flat_grid_tile(&params(), 3, 3, 1, 0.0, 1)
        .unwrap()
        .to_bytes();
    let mut w = header(2);
    for _ in 0..2 {
        w.u32(1);
        w.u8(1);
        w.u32(t.len() as u32);
        w.bytes(&t);
    }
    let e = NavMeshSerializer::read_mesh(&w.into_vec()).unwrap_err();
    assert_eq!(
        e,
        FormatError::malformed(
            "slot 1: position",
            "(3, 3, layer 1) is also the position of slot 0"
        )
    );
}

#[test]
fn a_tile_built_with_other_settings_is_a_fingerprint_error_naming_the_slot() {
    let mut other = params();
    other.settings_digest = 99;
    let t = flat_grid_tile(&other, 0, 0, 0, 0.0, 1).unwrap().to_bytes();
    let mut w = header(1);
    w.u32(1);
    w.u8(1);
    w.u32(t.len() as u32);
    w.bytes(&t);
    let e = NavMeshSerializer::read_mesh(&w.into_vec()).unwrap_err();
    assert_eq!(
        e,
        FormatError::Fingerprint {
            at: "slot 0: tile".into(),
            found: other.fingerprint(),
            expected: params().fingerprint()
        }
    );
}

#[test]
fn trailing_bytes_are_an_error() {
    let mut b = NavMeshSerializer::write_mesh(&small_mesh());
    b.push(0);
    assert_eq!(
        NavMeshSerializer::read_mesh(&b).unwrap_err(),
        FormatError::malformed("ONPM", "1 trailing bytes")
    );
}

#[test]
fn a_truncated_file_names_the_field() {
    let b = NavMeshSerializer::write_mesh(&small_mesh());
    let e = NavMeshSerializer::read_mesh(&b[..b.len() - 3]).unwrap_err();
    assert!(
        matches!(e, FormatError::Malformed { ref at, .. } if at == "slot 2: tile"),
        "{e}"
    );
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Truncate(usize),
    Insert(usize, Vec<u8>),
    Remove(usize, usize),
    /// Overwrite 4 bytes (a count or length) with a chosen value.
    Word(usize, u32),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), 1u8..=255).prop_map(|(i, x)| Mutation::Flip(i, x)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(i, v)| Mutation::Insert(i, v)),
        1 => (any::<usize>(), 1usize..16).prop_map(|(i, n)| Mutation::Remove(i, n)),
        2 => (any::<usize>(), prop_oneof![Just(0u32), Just(1), Just(2), Just(0xFFFF_FFFF), Just(0x8000_0000), any::<u32>()])
            .prop_map(|(i, v)| Mutation::Word(i, v)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let n = bytes.len();
    match *m {
        Mutation::Flip(i, x) => bytes[i % n] ^= x,
        Mutation::Truncate(i) => bytes.truncate(i % n),
        Mutation::Insert(i, ref v) => {
            let at = i % (n + 1);
            bytes.splice(at..at, v.iter().copied());
        }
        Mutation::Remove(i, k) => {
            let at = i % n;
            let end = (at + k).min(n);
            bytes.drain(at..end);
        }
        Mutation::Word(i, v) => {
            if n >= 4 {
                let at = i % (n - 3);
                bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn mutated_onpm_bytes_never_panic(muts in proptest::collection::vec(mutation(), 1..4)) {
        let mut bytes = NavMeshSerializer::write_mesh(&small_mesh());
        for m in &muts {
            if bytes.is_empty() {
                break;
            }
            apply(&mut bytes, m);
        }
        check_read(&bytes)?;
    }

    #[test]
    fn mutated_bytes_of_the_multi_layer_fixture_never_panic(muts in proptest::collection::vec(mutation(), 1..4)) {
        let mut bytes = NavMeshSerializer::write_mesh(&onepath_mesh::fixtures::bridge_and_building());
        for m in &muts {
            if bytes.is_empty() {
                break;
            }
            apply(&mut bytes, m);
        }
        check_read(&bytes)?;
    }
}

/// Either a typed error, or a mesh that writes canonical bytes which read back equal.
fn check_read(bytes: &[u8]) -> Result<(), TestCaseError> {
    if let Ok(mesh) = NavMeshSerializer::read_mesh(bytes) {
        let again = NavMeshSerializer::write_mesh(&mesh);
        let back = NavMeshSerializer::read_mesh(&again).unwrap();
        prop_assert_eq!(NavMeshSerializer::write_mesh(&back), again);
    }
    Ok(())
}
