//! Mutation property test of the readers the command runs (`onepath_cli::load`: the ONPT
//! and ONTK walks and the OPGS kind read here, and every library reader behind them): any
//! mutation of a valid file gives an error or a file that `info` describes and that is
//! canonical (its writer gives exactly its bytes); never a panic. CI runs `PROPTEST_CASES`
//! (≥ 10 000) cases.

use std::sync::OnceLock;

use onepath_build3d::{BuildConfig, Mesh3DPipeline, Obstacle, TriangleSoup};
use onepath_cli::load::{self, Context};
use onepath_cli::{info, verify};
use onepath_mesh::{NavMeshSerializer, TiledNavMesh};
use onepath_snapshot::SnapshotMode;
use onepath_tilecache::TileCache;
use proptest::prelude::*;

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

/// Mutations land in the first `head` bytes (the structure read here) three times in four.
fn mutate(bytes: &mut Vec<u8>, m: &Mutation, head: usize) {
    let n = bytes.len();
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

struct Seeds {
    mesh: TiledNavMesh,
    /// (bytes, head length) per kind.
    files: Vec<(Vec<u8>, usize)>,
}

/// A 20 × 20 floor built with a tile cache, one obstacle queued: its ONPM, one tile's ONPT,
/// the cache's ONTK (Full), a Full ONPS, and an OPGS grid.
fn seeds() -> &'static Seeds {
    static SEEDS: OnceLock<Seeds> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let soup = TriangleSoup {
            vertices: vec![
                [0.0, 0.0, 0.0],
                [0.0, 0.0, 20.0],
                [20.0, 0.0, 20.0],
                [20.0, 0.0, 0.0],
            ],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
            areas: None,
        };
        let pipeline = Mesh3DPipeline::new(BuildConfig::default());
        let mut cache = TileCache::build_soup(&pipeline, &soup).unwrap();
        cache
            .add_obstacle(Obstacle::Cylinder {
                center: [10.0, 0.0, 10.0],
                radius: 1.0,
                height: 1.0,
            })
            .unwrap();
        let mesh = cache.mesh().clone();
        let onpm = NavMeshSerializer::write_mesh(&mesh);
        let onpt = NavMeshSerializer::write_tile(mesh.tiles().next().unwrap().tile());
        let ontk = cache.snapshot(SnapshotMode::Full);
        let ontk_head = load::tile_cache_summary(&ontk).unwrap().mesh_span.0 + 80;
        let onps = onepath_snapshot::NavMeshSnapshot::take(&mesh, SnapshotMode::Full);
        let grid = onepath_gridstate::Grid::from_ascii(&["..#..", ".1#2.", "....."])
            .unwrap()
            .save_state();
        Seeds {
            files: vec![
                (onpm, 96),
                (onpt, 72),
                (ontk, ontk_head),
                (onps, 96),
                (grid, 64),
            ],
            mesh,
        }
    })
}

fn check(bytes: &[u8], ctx: &Context) {
    let Ok((kind, loaded)) = load::load(bytes, ctx) else {
        return;
    };
    let report = info::describe("mutated", bytes, kind, &loaded);
    assert_eq!(report.bytes, bytes.len());
    if let Ok(v) = verify::check("mutated", bytes, kind, &loaded) {
        assert!(v.canonical, "an accepted {:?} file is canonical", kind);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn a_mutated_file_is_an_error_or_canonical(which in 0..5usize, m in mutation()) {
        let seeds = seeds();
        let (bytes, head) = &seeds.files[which];
        let mut bytes = bytes.clone();
        mutate(&mut bytes, &m, *head);
        check(&bytes, &Context::default());
        check(&bytes, &Context { mesh: Some(seeds.mesh.clone()), class_radius: None });
    }
}

#[test]
fn every_seed_reads_and_is_canonical() {
    let seeds = seeds();
    let ctx = Context {
        mesh: Some(seeds.mesh.clone()),
        class_radius: None,
    };
    for (bytes, _) in &seeds.files {
        let (kind, loaded) = load::load(bytes, &ctx).unwrap();
        let v = verify::check("seed", bytes, kind, &loaded).unwrap();
        assert!(v.canonical, "{kind:?}");
    }
    // The ONTK lists were walked: one obstacle, its tiles queued.
    let s = load::tile_cache_summary(&seeds.files[2].0).unwrap();
    assert_eq!((s.obstacles, s.volumes), (1, 0));
    assert!(s.queued > 0);
}

#[test]
fn a_changed_byte_is_reported_at_its_offset() {
    // `verify` of bytes that read as another file's content: the first differing offset.
    let seeds = seeds();
    let (bytes, _) = &seeds.files[0];
    let (kind, loaded) = load::load(bytes, &Context::default()).unwrap();
    let mut other = bytes.clone();
    let at = other.len() - 3;
    other[at] ^= 0x10;
    let v = verify::check("other", &other, kind, &loaded).unwrap();
    assert!(!v.canonical);
    assert_eq!(v.first_difference, Some(at));
    let mut short = bytes.clone();
    short.push(0);
    let v = verify::check("longer", &short, kind, &loaded).unwrap();
    assert_eq!(v.first_difference, Some(bytes.len()));
}
