//! Fuzzes the ONTK reader (`onepath-tilecache`): any bytes give a typed error or a restored
//! cache, never a panic; a failed restore leaves the cache (its ONTK bytes, so its lists,
//! queue and mesh) byte-identical; an accepted snapshot snapshots back to the same bytes and
//! its queue can be processed. Each input is read twice: as given, and after a valid ONTK
//! header (magic, version, flags) so mutations reach the lists.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use onepath_build3d::{BuildConfig, Mesh3DPipeline, Obstacle, TriangleSoup};
use onepath_snapshot::SnapshotMode;
use onepath_tilecache::TileCache;

/// A 20 x 20 floor built with a cache, with one obstacle added and its tiles queued.
fn cache() -> &'static TileCache {
    static CACHE: OnceLock<TileCache> = OnceLock::new();
    CACHE.get_or_init(|| {
        let soup = TriangleSoup {
            vertices: vec![[0.0, 0.0, 0.0], [0.0, 0.0, 20.0], [20.0, 0.0, 20.0], [20.0, 0.0, 0.0]],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
            areas: None,
        };
        let pipeline = Mesh3DPipeline::new(BuildConfig::default());
        let mut c = TileCache::build_soup(&pipeline, &soup).expect("the seed level builds");
        c.add_obstacle(Obstacle::Cylinder {
            center: [10.0, 0.0, 10.0],
            radius: 1.0,
            height: 1.0,
        })
        .expect("a valid obstacle");
        c
    })
}

fn check(bytes: &[u8]) {
    let mut c = cache().clone();
    let before = c.snapshot(SnapshotMode::Full);
    match c.restore_full(bytes) {
        Ok(()) => {
            assert_eq!(c.snapshot(SnapshotMode::Full), bytes);
            c.update_all().expect("a restored queue rebuilds");
        }
        Err(_) => assert_eq!(c.snapshot(SnapshotMode::Full), before),
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    let mut framed = b"ONTK\x01\x00\x00\x00".to_vec();
    framed.extend_from_slice(data);
    check(&framed);
});
