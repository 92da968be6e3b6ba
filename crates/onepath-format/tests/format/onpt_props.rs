//! ONPT properties: write → read → write is byte-identical; mutated bytes give a typed
//! error or a valid tile (whose bytes are the input) and never panic.

use onepath_format::{onpt_len, FormatError, NavTile};
use proptest::prelude::*;

use crate::gen::{self, Rng};

/// Reads `bytes`; a tile that reads must write the same bytes back (the writer is
/// canonical and the reader accepts only canonical bytes).
fn read_is_error_or_canonical(bytes: &[u8]) -> Result<(), TestCaseError> {
    match NavTile::from_bytes(bytes, &gen::params()) {
        Ok(t) => prop_assert_eq!(t.to_bytes(), bytes.to_vec()),
        Err(
            FormatError::Malformed { .. }
            | FormatError::Version { .. }
            | FormatError::Fingerprint { .. },
        ) => {}
        Err(e) => prop_assert!(false, "unexpected error kind {e:?}"),
    }
    Ok(())
}

/// One mutation of a valid tile's bytes, chosen by the generator.
fn mutate(bytes: &mut Vec<u8>, rng: &mut Rng) {
    let len = bytes.len() as u64;
    // Header-field mutations need the whole header.
    let kinds = if len > 72 { 6 } else { 4 };
    match rng.below(kinds) {
        0 => {
            // Flip a few bits.
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(len) as usize;
                bytes[i] ^= 1 << rng.below(8);
            }
        }
        1 => bytes.truncate(rng.below(len) as usize),
        2 => {
            for _ in 0..1 + rng.below(40) {
                bytes.push(rng.next() as u8);
            }
        }
        3 => {
            // Splice random bytes over a random range.
            let at = rng.below(len) as usize;
            let n = (1 + rng.below(16) as usize).min(bytes.len() - at);
            for b in &mut bytes[at..at + n] {
                *b = rng.next() as u8;
            }
        }
        4 => {
            // A huge or shifted count, with the length patched to follow or not.
            let field = 44 + 4 * rng.below(7) as usize;
            let v = match rng.below(3) {
                0 => u32::MAX - rng.below(4) as u32,
                1 => 1 << rng.below(32),
                _ => {
                    let old = u32::from_le_bytes(bytes[field..field + 4].try_into().unwrap());
                    old.wrapping_add(rng.below(3) as u32).wrapping_sub(1)
                }
            };
            bytes[field..field + 4].copy_from_slice(&v.to_le_bytes());
        }
        _ => {
            // Overwrite a small integer with one of its neighbours (indices, sizes, sides).
            let i = 72 + rng.below(len - 72) as usize;
            bytes[i] = bytes[i].wrapping_add(1 + rng.below(2) as u8);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(gen::cases(256)))]

    #[test]
    fn write_read_write_is_byte_identical(seed in any::<u64>()) {
        let t = gen::tile(seed);
        let b = t.to_bytes();
        let d = t.data();
        prop_assert_eq!(
            Some(b.len()),
            onpt_len(
                d.vertices.len(),
                d.poly_sizes.len(),
                d.corners.len(),
                d.detail_meshes.len(),
                d.detail_vertices.len(),
                d.detail_triangles.len(),
                d.off_mesh_links.len()
            )
        );
        let back = NavTile::from_bytes(&b, &gen::params()).unwrap();
        prop_assert_eq!(back.data(), t.data());
        prop_assert_eq!(back.to_bytes(), b);
        prop_assert_eq!(back.content_id(), t.content_id());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(gen::cases(1000)))]

    #[test]
    fn mutated_bytes_never_panic_and_give_a_typed_error_or_a_valid_tile(
        seed in any::<u64>(),
        mutation in any::<u64>(),
    ) {
        let mut bytes = gen::tile(seed).to_bytes();
        let mut rng = Rng::new(mutation);
        for _ in 0..1 + rng.below(3) {
            if bytes.is_empty() {
                break;
            }
            mutate(&mut bytes, &mut rng);
        }
        read_is_error_or_canonical(&bytes)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        read_is_error_or_canonical(&bytes)?;
    }
}

#[test]
fn a_tile_records_the_fingerprint_of_its_parameters() {
    let t = gen::tile(1);
    assert_eq!(t.fingerprint(), gen::params().fingerprint());
    assert_eq!(&t.to_bytes()[8..24], &gen::params().fingerprint().0);
}
