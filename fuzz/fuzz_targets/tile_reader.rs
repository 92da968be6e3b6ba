//! Fuzzes the ONPT reader: any bytes give a typed error or a tile whose canonical bytes
//! are the input. Each input is read twice: as given, and with the fingerprint patched to
//! the parameters' (so mutations get past the fingerprint check to the tile rules).
#![no_main]

use libfuzzer_sys::fuzz_target;
use onepath_format::{NavMeshParams, NavTile};

fuzz_target!(|data: &[u8]| {
    // The parameters the seeds in fuzz/seeds/tile_reader were written against.
    let params = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
    check(data, &params);
    if data.len() >= 24 {
        let mut patched = data.to_vec();
        patched[8..24].copy_from_slice(&params.fingerprint().0);
        check(&patched, &params);
    }
});

fn check(bytes: &[u8], params: &NavMeshParams) {
    if let Ok(tile) = NavTile::from_bytes(bytes, params) {
        assert_eq!(tile.to_bytes(), bytes, "accepted bytes must be canonical");
        assert_eq!(tile.to_bytes_current(), bytes);
    }
}
