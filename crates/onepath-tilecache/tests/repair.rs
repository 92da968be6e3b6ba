//! Repairing a layer (`docs/tilecache.md` §5, "Repairing a layer"): a cache that repairs its
//! changed layer-first layers gives, after every update, exactly the mesh bytes of a cache
//! that builds every changed layer from scratch, over random obstacle histories on the city.

mod common;

use common::*;
use onepath_build3d::Obstacle;
use onepath_tilecache::{ObstacleId, TileCache, UpdateStats};
use proptest::test_runner::{Config, TestRunner};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One random obstacle operation: a cylinder, box or oriented box added, or one removed.
fn random_obstacle_op(rng: &mut ChaCha8Rng, cache: &mut TileCache) {
    let ids: Vec<ObstacleId> = cache.obstacles().map(|(id, _)| id).collect();
    let x = rng.gen_range(0.0..60.0);
    let z = rng.gen_range(0.0..60.0);
    let o = match rng.gen_range(0..8) {
        0..=2 => Obstacle::Cylinder {
            center: [x, -1.0, z],
            radius: rng.gen_range(0.3..2.5),
            height: 3.0,
        },
        3 => Obstacle::Box {
            min: [x, -1.0, z],
            max: [
                x + rng.gen_range(0.1..4.0),
                2.0,
                z + rng.gen_range(0.1..4.0),
            ],
        },
        4 => Obstacle::OrientedBox {
            center: [x, 0.0, z],
            half: [rng.gen_range(0.2..3.0), 1.5, rng.gen_range(0.2..3.0)],
            yaw: rng.gen_range(-4.0..4.0),
        },
        _ if !ids.is_empty() => {
            cache
                .remove_obstacle(ids[rng.gen_range(0..ids.len())])
                .unwrap();
            return;
        }
        _ => return,
    };
    cache.add_obstacle(o).unwrap();
}

fn built_layers(s: &UpdateStats) -> usize {
    s.layers_repaired
        + s.scratch_repair_off
        + s.scratch_not_only_removed
        + s.scratch_small_region
        + s.scratch_split
        + s.scratch_renumbered
}

#[test]
fn repaired_layers_equal_layers_built_from_scratch_after_every_update_of_random_histories() {
    let (_, soup) = levels().swap_remove(0);
    let on = TileCache::build_soup(&layer_first_pipeline(), &soup).unwrap();
    assert!(on.repair(), "repair is on by default");
    let mut off = on.clone();
    off.set_repair(false);
    // Expensive: a fixed case count of its own (not PROPTEST_CASES).
    let mut runner = TestRunner::new(Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    });
    let totals = std::cell::RefCell::new([0usize; 3]);
    runner
        .run(&(0u64..u64::MAX, 1usize..3), |(seed, budget_kind)| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let (mut a, mut b) = (on.clone(), off.clone());
            for step in 0..rng.gen_range(4..14) {
                let state = rng.clone();
                random_obstacle_op(&mut rng, &mut a);
                random_obstacle_op(&mut state.clone(), &mut b);
                // Budget 1 per step, or everything at once.
                let (sa, sb) = if budget_kind == 1 {
                    (a.update(1).unwrap(), b.update(1).unwrap())
                } else {
                    (a.update_all().unwrap(), b.update_all().unwrap())
                };
                assert_eq!(
                    tiles_of(a.mesh()),
                    tiles_of(b.mesh()),
                    "seed {seed}, budget kind {budget_kind}, step {step}"
                );
                assert_eq!(sa.layers_built, sb.layers_built);
                assert_eq!(built_layers(&sa), sa.layers_built);
                assert_eq!(sb.scratch_repair_off, sb.layers_built);
            }
            a.update_all().unwrap();
            b.update_all().unwrap();
            assert_eq!(
                tiles_of(a.mesh()),
                tiles_of(b.mesh()),
                "seed {seed}, drained"
            );
            let mut t = totals.borrow_mut();
            t[0] += a.stats().layers_repaired;
            t[1] += b.stats().layers_repaired;
            t[2] += a.stats().layers_built;
            Ok(())
        })
        .unwrap();
    let t = totals.into_inner();
    eprintln!("layers built {}, of them repaired {}", t[2], t[0]);
    assert!(t[0] > 0, "layers were repaired: {t:?}");
    assert_eq!(t[1], 0);
}
