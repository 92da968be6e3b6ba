//! Fuzzes the tier-1 envelope readers (`onepath`): `NavMesh::load` (ONNM) and
//! `NavWorld::load` (ONNW) give a typed error or a mesh / world, never a panic; an accepted
//! input saves back to the same bytes (both layouts are canonical). Each input is read as
//! given and after a valid header (ONNM / ONNW magic, version 1, flags 0) so mutations
//! reach the lengths, the settings and the mesh.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onepath::{NavMesh, NavWorld};

fn check(bytes: &[u8]) {
    if let Ok(m) = NavMesh::load(bytes) {
        assert_eq!(m.save(), bytes);
    }
    if let Ok(w) = NavWorld::load(bytes) {
        assert_eq!(w.save(), bytes);
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    for magic in [b"ONNM", b"ONNW"] {
        let mut framed = magic.to_vec();
        framed.extend_from_slice(&[1, 0, 0, 0]);
        framed.extend_from_slice(data);
        check(&framed);
    }
});
