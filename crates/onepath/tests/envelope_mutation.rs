//! Mutation property test of the ONNM and ONNW readers: any mutation of valid bytes gives a
//! typed error or a mesh / world that saves back to exactly those bytes; never a panic.
//! CI runs `PROPTEST_CASES` (≥ 10 000) cases.

mod common;

use onepath::format::{NavSettings, OffMeshLinkDefinition};
use onepath::{NavMesh, NavWorld};
use proptest::prelude::*;

fn mutation_cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Truncate(usize),
    Insert(usize, u8),
    Remove(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(i, b)| Mutation::Flip(i, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<usize>(), 1..16usize).prop_map(|(i, k)| Mutation::Remove(i, k)),
    ]
}

/// Mutations land in the envelope part (headers, lengths, settings) three times in four:
/// the mesh reader has its own proptest.
fn mutate(bytes: &mut Vec<u8>, m: &Mutation, head: usize) {
    let n = bytes.len();
    if n == 0 {
        return;
    }
    let at = |i: usize| if i % 4 == 0 { i % n } else { i % head.min(n) };
    match *m {
        Mutation::Flip(i, b) => {
            let i = at(i);
            bytes[i] ^= b;
        }
        Mutation::Truncate(i) => bytes.truncate(at(i)),
        Mutation::Insert(i, b) => bytes.insert(at(i), b),
        Mutation::Remove(i, k) => {
            let i = at(i);
            bytes.drain(i..(i + k).min(n));
        }
    }
}

/// Two classes over a 15 x 15 floor, the first with an authored link, as ONNM (class 0) and
/// ONNW, with the length of their envelope heads.
fn seeds() -> (Vec<u8>, usize, Vec<u8>, usize) {
    let mut a = NavSettings::default();
    a.set_off_mesh_links(vec![OffMeshLinkDefinition {
        start: [2.0, 0.0, 2.0],
        end: [12.0, 0.0, 12.0],
        radius: 0.5,
        bidirectional: true,
        area: 3,
        flags: 1,
        user_id: 42,
    }])
    .unwrap();
    let mut b = NavSettings::default();
    b.set_agent_radius(1.0).unwrap();
    let w = NavWorld::build(&[a, b], &common::floor(15.0)).unwrap();
    let onnm = w.class(0).unwrap().save();
    let sl = u32::from_le_bytes(onnm[8..12].try_into().unwrap()) as usize;
    // ONNM head: header, settings length and body, mesh length, the ONPM header and params.
    let onnm_head = 12 + sl + 4 + 76;
    let onnw = w.save();
    (onnm, onnm_head, onnw, 12 + 4 + onnm_head)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(mutation_cases()))]

    #[test]
    fn mutated_onnm_and_onnw_bytes_never_panic_and_accepted_bytes_are_canonical(
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        thread_local! {
            static SEEDS: (Vec<u8>, usize, Vec<u8>, usize) = seeds();
        }
        SEEDS.with(|(onnm, onnm_head, onnw, onnw_head)| {
            let mut b = onnm.clone();
            for m in &mutations {
                mutate(&mut b, m, *onnm_head);
            }
            if let Ok(m) = NavMesh::load(&b) {
                prop_assert!(m.save() == b);
            }
            let mut b = onnw.clone();
            for m in &mutations {
                mutate(&mut b, m, *onnw_head);
            }
            if let Ok(w) = NavWorld::load(&b) {
                prop_assert!(w.save() == b);
            }
            Ok(())
        })?;
    }
}
