//! Hostile bytes at random: mutated valid snapshots never panic, a failed in-place restore
//! leaves the mesh byte-identical, and accepted bytes restore a consistent mesh.
//!
//! Case count: `ONEPATH_MUTATION_CASES` (default 1000; CI sets 10000).

use onepath_format::FormatError;
use onepath_mesh::fixtures::bridge_and_building;
use onepath_mesh::TiledNavMesh;
use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, TileLibrary};
use proptest::prelude::*;

use crate::common::*;

fn mutation_cases() -> u32 {
    std::env::var("ONEPATH_MUTATION_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

/// The valid snapshots mutated: the small mesh and the bridge-and-building fixture (with
/// an edit and a disabled link), each Full, Referenced, and a mixture.
fn seeds() -> Vec<(TiledNavMesh, TileLibrary, Vec<u8>)> {
    let mut bridge = bridge_and_building();
    let road = bridge.tile_at(1, 0, 0).unwrap().tile_ref();
    bridge.set_poly_area(road.poly(1).unwrap(), 12).unwrap();
    let deck = bridge.tile_at(1, 0, 1).unwrap().tile_ref();
    bridge.set_off_mesh_link_enabled(deck, 0, false).unwrap();
    let mut out = Vec::new();
    for m in [small_mesh(), bridge] {
        let lib = library_of(&m);
        let mut mixed = slots_of(&m, SnapshotMode::Full);
        let referenced = slots_of(&m, SnapshotMode::Referenced);
        for (i, s) in mixed.iter_mut().enumerate() {
            if i % 2 == 1 {
                s.entry = referenced[i].entry.clone();
            }
        }
        for bytes in [
            NavMeshSnapshot::take(&m, SnapshotMode::Full),
            NavMeshSnapshot::take(&m, SnapshotMode::Referenced),
            onps_slots(m.params(), &mixed),
        ] {
            out.push((m.clone(), lib.clone(), bytes));
        }
    }
    out
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    SetU32(usize, u32),
    Truncate(usize),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let interesting = prop_oneof![
        Just(0u32),
        Just(1),
        Just(2),
        Just(3),
        Just(63),
        Just(64),
        Just(0xFF_FFFF),
        Just(0x100_0000),
        Just(u32::MAX),
        any::<u32>(),
    ];
    prop_oneof![
        4 => (any::<usize>(), 1..=255u8).prop_map(|(i, x)| Mutation::Flip(i, x)),
        3 => (any::<usize>(), interesting).prop_map(|(i, v)| Mutation::SetU32(i, v)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), prop::collection::vec(any::<u8>(), 1..12))
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
        1 => (any::<usize>(), 1..16usize).prop_map(|(i, n)| Mutation::Delete(i, n)),
    ]
}

fn mutate(bytes: &mut Vec<u8>, m: &Mutation) {
    let n = bytes.len();
    if n == 0 {
        return;
    }
    match m {
        Mutation::Flip(i, x) => bytes[i % n] ^= x,
        Mutation::SetU32(i, v) => {
            let at = i % n;
            let end = (at + 4).min(n);
            bytes[at..end].copy_from_slice(&v.to_le_bytes()[..end - at]);
        }
        Mutation::Truncate(i) => bytes.truncate(i % n),
        Mutation::Insert(i, b) => {
            let at = i % (n + 1);
            bytes.splice(at..at, b.iter().copied());
        }
        Mutation::Delete(i, k) => {
            let at = i % n;
            bytes.drain(at..(at + k).min(n));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(mutation_cases()))]

    #[test]
    fn mutated_snapshots_never_panic_and_a_failed_restore_leaves_the_mesh_byte_identical(
        seed in 0..6usize,
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let (mesh, lib, mut bytes) = seeds().swap_remove(seed);
        for m in &mutations {
            mutate(&mut bytes, m);
        }
        let fresh = NavMeshSnapshot::restore(&bytes, &lib);
        // Without a library: the same mesh when no slot is referenced, else
        // LibraryRequired at the first referenced slot (everything before it was accepted);
        // a failed in-place restore changes nothing.
        let alone = NavMeshSnapshot::restore_full(&bytes);
        if let Ok(m) = &fresh {
            let kinds = slot_kinds(&bytes).expect("accepted bytes have a slots section");
            match kinds.iter().position(|&k| k == 2) {
                None => prop_assert_eq!(alone.as_ref(), Ok(m)),
                Some(i) => prop_assert_eq!(
                    alone.as_ref().err(),
                    Some(&FormatError::LibraryRequired { at: format!("slot {i}") })
                ),
            }
        }
        let mut alone_target = mesh.clone();
        if NavMeshSnapshot::restore_full_in_place(&mut alone_target, &bytes).is_err() {
            prop_assert_eq!(&alone_target, &mesh);
        }
        let mut target = mesh.clone();
        let before = observe(&target);
        match NavMeshSnapshot::restore_in_place(&mut target, &bytes, &lib) {
            Err(e) => {
                prop_assert_eq!(&target, &mesh);
                prop_assert_eq!(observe(&target), before);
                // The in-place form checks the parameters first; otherwise both forms
                // report the same error.
                if let Ok(m) = &fresh {
                    prop_assert!(!m.params().bitwise_eq(mesh.params()), "{e}");
                }
            }
            Ok(()) => {
                prop_assert_eq!(fresh.as_ref(), Ok(&target));
                // One state, one encoding: the accepted bytes are exactly the canonical
                // encoding of the restored state with the input's per-slot kinds.
                let kinds = slot_kinds(&bytes).expect("accepted bytes have a slots section");
                let full = slots_of(&target, SnapshotMode::Full);
                let referenced = slots_of(&target, SnapshotMode::Referenced);
                prop_assert_eq!(kinds.len(), full.len());
                let mixed: Vec<SlotBytes> = kinds
                    .iter()
                    .zip(full.into_iter().zip(referenced))
                    .map(|(&k, (f, r))| if k == 2 { r } else { f })
                    .collect();
                prop_assert_eq!(&onps_slots(target.params(), &mixed), &bytes);
                // The accepted state snapshots and restores again to itself.
                for mode in [SnapshotMode::Full, SnapshotMode::Referenced] {
                    let again = NavMeshSnapshot::take(&target, mode);
                    let back = NavMeshSnapshot::restore(&again, &lib_for(&target, &lib));
                    prop_assert_eq!(back.as_ref(), Ok(&target));
                }
            }
        }
    }
}

/// The kind byte of every slot of a snapshot the reader accepted (a minimal walk of the
/// layout: header, one section header, then each slot's fields skipped by their lengths).
fn slot_kinds(bytes: &[u8]) -> Option<Vec<u8>> {
    let u32_at = |at: usize| -> Option<usize> {
        Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize)
    };
    let mut at = 88;
    let count = u32_at(at)?;
    at += 4;
    let mut kinds = Vec::new();
    for _ in 0..count {
        let kind = *bytes.get(at + 4)?;
        at += 5;
        match kind {
            0 => {}
            1 => at += 4 + u32_at(at)?,
            _ => at += 32,
        }
        if kind != 0 {
            at += 4 + 7 * u32_at(at)?;
            at += 4 + 4 * u32_at(at)?;
        }
        kinds.push(kind);
    }
    Some(kinds)
}

/// A library for the tiles of `mesh` (an accepted mutation may carry an inline tile the
/// seed library lacks).
fn lib_for(mesh: &TiledNavMesh, seed: &TileLibrary) -> TileLibrary {
    let mut lib = seed.clone();
    lib.extend(mesh.tiles().map(|t| t.tile())).unwrap();
    lib
}

#[test]
fn both_restore_forms_report_the_same_error_when_the_parameters_are_equal() {
    // The in-place check is on top of the new-mesh checks: same error when the parameters
    // are equal.
    let (mesh, lib, bytes) = seeds().swap_remove(0);
    let mut b = bytes.clone();
    b.truncate(b.len() - 1);
    let mut target = mesh.clone();
    assert_eq!(
        NavMeshSnapshot::restore_in_place(&mut target, &b, &lib),
        NavMeshSnapshot::restore(&b, &lib).map(|_| ())
    );
    assert_eq!(target, mesh);
}
