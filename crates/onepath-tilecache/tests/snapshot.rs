//! ONTK: the byte layout, round trips, all-or-nothing restore, and hostile bytes.

mod common;

use common::*;
use onepath_build3d::{ConvexVolume, Mesh3DPipeline, Obstacle};
use onepath_format::{FormatError, Partition};
use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, TileLibrary};
use onepath_tilecache::{TileCache, ONTK_MAGIC};
use proptest::prelude::*;

fn city_cache_with(p: &Mesh3DPipeline) -> TileCache {
    let (_, soup) = levels().swap_remove(0);
    TileCache::build_soup(p, &soup).unwrap()
}

/// The general Layers path and layer-first tiles.
fn both_layer_paths() -> [Mesh3DPipeline; 2] {
    [pipeline(Partition::Layers), layer_first_pipeline()]
}

fn swamp() -> ConvexVolume {
    ConvexVolume {
        points: vec![[3.0, 3.0], [16.0, 4.0], [15.0, 17.0]],
        min_y: -2.0,
        max_y: 2.0,
        area: 9,
    }
}

/// A cache with all three shapes (one removed), a volume, a partly processed queue.
fn busy_cache() -> TileCache {
    busy_cache_with(&pipeline(Partition::Layers))
}

fn busy_cache_with(p: &Mesh3DPipeline) -> TileCache {
    let mut c = city_cache_with(p);
    let ids: Vec<_> = three_obstacles()
        .into_iter()
        .map(|o| c.add_obstacle(o).unwrap())
        .collect();
    c.add_volume(swamp()).unwrap();
    c.update(3).unwrap();
    c.remove_obstacle(ids[1]).unwrap();
    c
}

/// A busy cache of each layer path, with a library of its tiles, once per snapshot mode.
fn busy_caches_in_both_modes() -> Vec<(TileCache, TileLibrary, SnapshotMode)> {
    both_layer_paths()
        .into_iter()
        .flat_map(|p| {
            [
                (p.clone(), SnapshotMode::Full),
                (p, SnapshotMode::Referenced),
            ]
        })
        .map(|(p, mode)| {
            let c = busy_cache_with(&p);
            let mut library = TileLibrary::new(c.params());
            library.extend(c.mesh().tiles().map(|t| t.tile())).unwrap();
            (c, library, mode)
        })
        .collect()
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn f64_at(b: &[u8], at: usize) -> f64 {
    f64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

#[test]
fn ontk_bytes_are_laid_out_as_the_table_says() {
    let c = busy_cache();
    let b = c.snapshot(SnapshotMode::Full);
    assert_eq!(b[0..4], ONTK_MAGIC);
    assert_eq!(u16::from_le_bytes([b[4], b[5]]), 1, "version");
    assert_eq!(u16::from_le_bytes([b[6], b[7]]), 0, "flags");
    assert_eq!(
        (u32_at(&b, 8), u32_at(&b, 12)),
        (4, 2),
        "next obstacle id, next volume id"
    );
    assert_eq!(u32_at(&b, 16), 2, "obstacle count");
    // Obstacle 1: the cylinder (shape 1, 5 f64).
    assert_eq!((u32_at(&b, 20), b[24]), (1, 1));
    assert_eq!(
        (0..5).map(|k| f64_at(&b, 25 + 8 * k)).collect::<Vec<_>>(),
        [21.5, 0.0, 10.0, 1.2, 2.0]
    );
    // Obstacle 3: the oriented box (shape 3, 7 f64), ascending id.
    let at = 25 + 40;
    assert_eq!((u32_at(&b, at), b[at + 4]), (3, 3));
    assert_eq!(f64_at(&b, at + 5 + 48), 0.7, "yaw");
    // The volume: id, area, min y, max y, corner count, corners.
    let at = at + 5 + 56;
    assert_eq!(u32_at(&b, at), 1, "volume count");
    assert_eq!((u32_at(&b, at + 4), b[at + 8]), (1, 9));
    assert_eq!((f64_at(&b, at + 9), f64_at(&b, at + 17)), (-2.0, 2.0));
    assert_eq!(u32_at(&b, at + 25), 3);
    assert_eq!((f64_at(&b, at + 29), f64_at(&b, at + 37)), (3.0, 3.0));
    // The queue, front first, then the mesh snapshot.
    let at = at + 29 + 48;
    let q = u32_at(&b, at) as usize;
    let queue: Vec<(i32, i32)> = (0..q)
        .map(|i| {
            let p = at + 4 + 8 * i;
            (u32_at(&b, p) as i32, u32_at(&b, p + 4) as i32)
        })
        .collect();
    assert_eq!(queue, c.queue().collect::<Vec<_>>());
    let at = at + 4 + 8 * q;
    let len = u32_at(&b, at) as usize;
    assert_eq!(
        &b[at + 4..],
        NavMeshSnapshot::take(c.mesh(), SnapshotMode::Full)
    );
    assert_eq!(b.len(), at + 4 + len);
}

#[test]
fn snapshot_mutate_restore_snapshot_gives_identical_bytes_and_the_same_future() {
    for (mut a, library, mode) in busy_caches_in_both_modes() {
        let saved = a.snapshot(mode);
        let mut b = a.clone();
        // Mutate a: more obstacles, a full update, a removal.
        let extra = a
            .add_obstacle(Obstacle::Box {
                min: [30.0, -1.0, 50.0],
                max: [33.0, 2.0, 52.0],
            })
            .unwrap();
        a.update_all().unwrap();
        a.remove_obstacle(extra).unwrap();
        a.restore(&saved, &library).unwrap();
        assert_eq!(a.snapshot(mode), saved);
        assert_eq!(a.mesh(), b.mesh());
        // Carrying on with the same operations keeps them byte-identical, step by step.
        for c in [&mut a, &mut b] {
            c.add_volume(swamp()).unwrap();
        }
        for _ in 0..4 {
            a.update(2).unwrap();
            b.update(2).unwrap();
            assert_eq!(
                a.snapshot(SnapshotMode::Full),
                b.snapshot(SnapshotMode::Full)
            );
        }
        a.update_all().unwrap();
        b.update_all().unwrap();
        assert_eq!(
            a.snapshot(SnapshotMode::Full),
            b.snapshot(SnapshotMode::Full)
        );
    }
}

#[test]
fn after_a_restore_the_last_built_areas_are_forgotten_and_equal_layers_keep_their_tiles() {
    for p in both_layer_paths() {
        let mut c = busy_cache_with(&p);
        c.update_all().unwrap();
        let saved = c.snapshot(SnapshotMode::Full);
        let refs: Vec<_> = c.mesh().tiles().map(|t| t.poly_ref(0).unwrap()).collect();
        c.restore_full(&saved).unwrap();
        // Re-queue every tile by a volume over the whole level that marks nothing (area 63 is
        // the level's own): every tile runs in full, and every layer equals the mesh's.
        let v = c
            .add_volume(ConvexVolume {
                points: vec![[-5.0, -5.0], [80.0, -5.0], [80.0, 80.0], [-5.0, 80.0]],
                min_y: 100.0,
                max_y: 101.0,
                area: 3,
            })
            .unwrap();
        let before = c.stats();
        let s = c.update_all().unwrap();
        assert_eq!(s.unchanged, 0, "nothing is known about the restored mesh");
        assert_eq!(s.tiles, c.cached_tiles().len());
        assert_eq!(s.layers_replaced + s.layers_added + s.layers_removed, 0);
        assert!(s.layers_kept > 0);
        assert!(refs.iter().all(|&r| c.mesh().is_valid_poly_ref(r)));
        // Once rebuilt, the areas are known again.
        c.remove_volume(v).unwrap();
        let s = c.update_all().unwrap();
        assert_eq!(s.unchanged, s.tiles);
        assert!(c.stats().tiles > before.tiles);
    }
}

#[test]
fn a_two_phase_restore_changes_nothing_until_applied_and_then_equals_a_restore() {
    for (mut a, library, mode) in busy_caches_in_both_modes() {
        let saved = a.snapshot(mode);
        a.add_obstacle(Obstacle::Box {
            min: [30.0, -1.0, 50.0],
            max: [33.0, 2.0, 52.0],
        })
        .unwrap();
        a.update_all().unwrap();
        let mut b = a.clone();
        b.restore(&saved, &library).unwrap();
        // The first half changes nothing; its mesh is the restored one.
        let before = a.snapshot(SnapshotMode::Full);
        let prepared = match mode {
            SnapshotMode::Full => a.prepare_restore_full(&saved).unwrap(),
            SnapshotMode::Referenced => a.prepare_restore(&saved, &library).unwrap(),
        };
        assert_eq!(a.snapshot(SnapshotMode::Full), before);
        assert_eq!(prepared.mesh(), b.mesh());
        // The second half gives exactly what a restore gives, now and later.
        a.apply_restore(prepared).unwrap();
        assert_eq!(a.snapshot(mode), saved);
        for c in [&mut a, &mut b] {
            c.add_volume(swamp()).unwrap();
            c.update_all().unwrap();
        }
        assert_eq!(
            a.snapshot(SnapshotMode::Full),
            b.snapshot(SnapshotMode::Full)
        );
    }
}

#[test]
fn a_prepared_restore_is_refused_by_a_cache_with_other_tiles_and_a_bad_one_is_refused_at_once() {
    let c = busy_cache();
    let saved = c.snapshot(SnapshotMode::Full);
    let prepared = c.prepare_restore_full(&saved).unwrap();
    // Another level: other tiles.
    let (_, soup) = levels().swap_remove(1);
    let mut other = TileCache::build_soup(&pipeline(Partition::Layers), &soup).unwrap();
    let before = other.snapshot(SnapshotMode::Full);
    let m = state_message(other.apply_restore(prepared).unwrap_err());
    assert!(m.contains("other tiles or settings"), "{m}");
    assert_eq!(other.snapshot(SnapshotMode::Full), before);
    // A broken snapshot fails in the first half, naming what failed, as a restore does.
    let mut b = saved.clone();
    b[4] = 2;
    assert!(matches!(
        c.prepare_restore_full(&b),
        Err(FormatError::Version { found: 2, .. })
    ));
    let mut b = saved.clone();
    let n = b.len();
    b.truncate(n - 1);
    assert!(matches!(
        c.prepare_restore_full(&b),
        Err(FormatError::Malformed { ref at, .. }) if at == "mesh snapshot"
    ));
    assert_eq!(c.snapshot(SnapshotMode::Full), saved);
}

fn assert_rejected_and_untouched(c: &mut TileCache, bytes: &[u8]) -> FormatError {
    let before = c.snapshot(SnapshotMode::Full);
    let mesh = c.mesh().clone();
    let e = c.restore_full(bytes).unwrap_err();
    assert_eq!(c.snapshot(SnapshotMode::Full), before);
    assert_eq!(c.mesh(), &mesh);
    e
}

fn state_message(e: FormatError) -> String {
    match e {
        FormatError::State { message, .. } => message,
        other => panic!("not a state error: {other:?}"),
    }
}

#[test]
fn a_failed_restore_leaves_the_cache_and_its_mesh_byte_identical() {
    let mut c = busy_cache();
    let good = c.snapshot(SnapshotMode::Full);
    c.update_all().unwrap();
    // Trailing byte.
    let mut b = good.clone();
    b.push(0);
    assert!(matches!(
        assert_rejected_and_untouched(&mut c, &b),
        FormatError::Malformed { ref at, .. } if at == "ONTK"
    ));
    // Version 2.
    let mut b = good.clone();
    b[4] = 2;
    assert!(matches!(
        assert_rejected_and_untouched(&mut c, &b),
        FormatError::Version {
            found: 2,
            expected: 1,
            ..
        }
    ));
    // A cylinder radius of 0 goes through the obstacle's check again.
    let mut b = good.clone();
    b[25 + 24..25 + 32].copy_from_slice(&0.0f64.to_le_bytes());
    let m = state_message(assert_rejected_and_untouched(&mut c, &b));
    assert!(
        m.contains("obstacle 0 (id 1)") && m.contains("obstacle.radius"),
        "{m}"
    );
    // An obstacle id at or above the next id.
    let mut b = good.clone();
    b[8..12].copy_from_slice(&3u32.to_le_bytes());
    let m = state_message(assert_rejected_and_untouched(&mut c, &b));
    assert!(m.contains("obstacle 1: id 3"), "{m}");
    // A queued tile the cache has no data for.
    let q_at = 25 + 40 + 5 + 56 + 29 + 48;
    assert!(u32_at(&good, q_at) > 0);
    let mut b = good.clone();
    b[q_at + 4..q_at + 8].copy_from_slice(&99i32.to_le_bytes());
    let m = state_message(assert_rejected_and_untouched(&mut c, &b));
    assert!(
        m.contains("queued tile 0") && m.contains("not a tile this cache holds"),
        "{m}"
    );
    // A broken mesh snapshot fails after everything else was accepted: still untouched.
    let mut b = good.clone();
    let n = b.len();
    b[n - 1] ^= 0xFF;
    b.truncate(n - 1);
    assert_rejected_and_untouched(&mut c, &b);
    // A Referenced snapshot without a library.
    let r = busy_cache().snapshot(SnapshotMode::Referenced);
    assert!(matches!(
        assert_rejected_and_untouched(&mut c, &r),
        FormatError::LibraryRequired { .. }
    ));
}

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

/// Mutations land in the ONTK part (the header, the lists, the queue) three times in four:
/// the mesh snapshot's own reader has its own proptest.
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(mutation_cases()))]

    #[test]
    fn mutated_ontk_bytes_never_panic_and_a_failed_restore_changes_nothing(
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        thread_local! {
            static SEED: (TileCache, Vec<u8>, Vec<u8>, usize) = {
                let mut c = busy_cache();
                let good = c.snapshot(SnapshotMode::Full);
                let head = good.len() - NavMeshSnapshot::take(c.mesh(), SnapshotMode::Full).len();
                c.update_all().unwrap();
                let now = c.snapshot(SnapshotMode::Full);
                (c, good, now, head)
            };
        }
        SEED.with(|(cache, good, now, head)| {
            let mut bytes = good.clone();
            for m in &mutations {
                mutate(&mut bytes, m, *head);
            }
            let mut c = cache.clone();
            match c.restore_full(&bytes) {
                Ok(()) => {
                    // Accepted bytes are a consistent state that snapshots back to them.
                    prop_assert_eq!(c.snapshot(SnapshotMode::Full), bytes);
                    c.update_all().unwrap();
                }
                Err(_) => prop_assert_eq!(&c.snapshot(SnapshotMode::Full), now),
            }
            Ok(())
        })?;
    }
}
