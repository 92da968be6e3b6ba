//! The tile cache's rules, one test per sentence of `docs/tilecache.md`.

mod common;

use common::*;
use onepath_build3d::{
    BuildConfig, BuildError, ConvexVolume, Mesh3DPipeline, Obstacle, TriangleSoup,
};
use onepath_format::Partition;
use onepath_mesh::{MeshError, NavMeshSerializer, StitchError};
use onepath_tilecache::{ObstacleId, TileCache, TileCacheError, VolumeId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn building_with_a_cache_is_exactly_the_plain_build_on_the_generated_levels() {
    for (name, soup) in levels() {
        for (partition, p) in pipelines() {
            let plain = p.build_soup(&soup).unwrap();
            let cache = TileCache::build_soup(&p, &soup).unwrap();
            assert_eq!(cache.mesh(), &plain.mesh, "{name} {partition}");
            assert_eq!(
                tiles_of(cache.mesh()),
                tiles_of_list(&plain.tiles),
                "{name} {partition}"
            );
        }
    }
}

#[test]
fn a_tile_with_no_possibly_walkable_triangle_is_never_cached() {
    // A vertical wall alone (no walkable triangle) next to a floor: only the floor's tiles.
    let mut soup = onepath_build3d::TriangleSoup::default();
    onepath_build3d::generators::add_floor(&mut soup, 2.0, 2.0, 7.0, 7.0, 0.0);
    let base = soup.vertices.len() as u32;
    soup.vertices.extend([
        [30.0, 0.0, 30.0],
        [30.0, 5.0, 30.0],
        [35.0, 5.0, 30.0],
        [35.0, 0.0, 30.0],
    ]);
    soup.triangles.push([base, base + 1, base + 2]);
    soup.triangles.push([base, base + 2, base + 3]);
    let cache = TileCache::build_soup(&pipeline(Partition::Watershed), &soup).unwrap();
    let cached: Vec<_> = cache.cached_tiles().collect();
    assert_eq!(cached, [(0, 0)]);
}

#[test]
fn rebuilt_with_obstacles_equals_a_fresh_build_with_them_and_removing_all_gives_back_the_original()
{
    let (_, soup) = levels().swap_remove(0);
    for (partition, p) in pipelines() {
        let mut cache = TileCache::build_soup(&p, &soup).unwrap();
        let original = tiles_of(cache.mesh());
        let ids: Vec<ObstacleId> = three_obstacles()
            .into_iter()
            .map(|o| cache.add_obstacle(o).unwrap())
            .collect();
        assert_eq!(ids, [ObstacleId(1), ObstacleId(2), ObstacleId(3)]);
        cache.update_all().unwrap();
        let mut with = p.clone();
        with.obstacles = three_obstacles();
        let fresh = with.build_soup(&soup).unwrap();
        assert_ne!(
            tiles_of(cache.mesh()),
            original,
            "the obstacles change tiles"
        );
        assert_eq!(
            tiles_of(cache.mesh()),
            tiles_of_list(&fresh.tiles),
            "{partition}"
        );
        for id in ids {
            cache.remove_obstacle(id).unwrap();
        }
        cache.update_all().unwrap();
        assert_eq!(tiles_of(cache.mesh()), original, "{partition}");
        assert!(
            cache.stats().first_build > 0,
            "the first build's tiles were taken back"
        );
    }
}

#[test]
fn the_pipelines_own_obstacles_are_baked_and_a_cache_rebuild_adds_to_them() {
    let (_, soup) = levels().swap_remove(0);
    let mut p = pipeline(Partition::Monotone);
    let all = three_obstacles();
    p.obstacles = vec![all[0]];
    let mut cache = TileCache::build_soup(&p, &soup).unwrap();
    assert_eq!(cache.mesh(), &p.build_soup(&soup).unwrap().mesh);
    cache.add_obstacle(all[1]).unwrap();
    cache.add_obstacle(all[2]).unwrap();
    cache.update_all().unwrap();
    p.obstacles = all;
    assert_eq!(
        tiles_of(cache.mesh()),
        tiles_of_list(&p.build_soup(&soup).unwrap().tiles)
    );
}

fn swamp(area: u8) -> ConvexVolume {
    ConvexVolume {
        points: vec![[3.0, 3.0], [16.0, 4.0], [15.0, 17.0], [4.0, 14.0]],
        min_y: -2.0,
        max_y: 2.0,
        area,
    }
}

#[test]
fn a_run_time_volume_equals_the_same_volume_given_to_the_pipeline_and_the_later_wins() {
    let (_, soup) = levels().swap_remove(0);
    for (partition, mut p) in pipelines() {
        p.volumes = vec![ConvexVolume {
            points: vec![[10.0, 0.0], [30.0, 0.0], [30.0, 8.0], [10.0, 8.0]],
            min_y: -2.0,
            max_y: 2.0,
            area: 5,
        }];
        let mut cache = TileCache::build_soup(&p, &soup).unwrap();
        let a = cache.add_volume(swamp(9)).unwrap();
        let b = cache.add_volume(swamp(0)).unwrap();
        assert_eq!((a, b), (VolumeId(1), VolumeId(2)));
        cache.update_all().unwrap();
        let mut with = p.clone();
        with.volumes.push(swamp(9));
        with.volumes.push(swamp(0));
        assert_eq!(
            tiles_of(cache.mesh()),
            tiles_of_list(&with.build_soup(&soup).unwrap().tiles),
            "{partition}"
        );
        // Area 0 then 9 instead: the later (9) wins where they overlap.
        cache.remove_volume(b).unwrap();
        cache.remove_volume(a).unwrap();
        cache.add_volume(swamp(0)).unwrap();
        cache.add_volume(swamp(9)).unwrap();
        cache.update_all().unwrap();
        with.volumes.truncate(1);
        with.volumes.push(swamp(0));
        with.volumes.push(swamp(9));
        assert_eq!(
            tiles_of(cache.mesh()),
            tiles_of_list(&with.build_soup(&soup).unwrap().tiles),
            "{partition}"
        );
    }
}

#[test]
fn invalid_obstacles_and_volumes_are_errors_naming_the_value_and_change_nothing() {
    let (_, soup) = levels().swap_remove(0);
    let mut cache = TileCache::build_soup(&pipeline(Partition::Monotone), &soup).unwrap();
    let name = |e: TileCacheError| match e {
        TileCacheError::Build(BuildError::InvalidInput { what, .. }) => what,
        other => panic!("not an input error: {other:?}"),
    };
    let cyl = |center: [f64; 3], radius: f64, height: f64| Obstacle::Cylinder {
        center,
        radius,
        height,
    };
    let bad = [
        (cyl([1.0, 0.0, 1.0], 0.0, 1.0), "obstacle.radius"),
        (cyl([1.0, 0.0, 1.0], 1.0, -1.0), "obstacle.height"),
        (cyl([f64::NAN, 0.0, 1.0], 1.0, 1.0), "obstacle.center[0]"),
        (cyl([2097151.5, 0.0, 1.0], 1.0, 1.0), "obstacle.extent[1]"),
        (cyl([1.0, 0.0, 1.0], f64::INFINITY, 1.0), "obstacle.radius"),
        (
            Obstacle::Box {
                min: [1.0, 0.0, 1.0],
                max: [0.0, 1.0, 2.0],
            },
            "obstacle.max[0]",
        ),
        (
            Obstacle::OrientedBox {
                center: [1.0, 0.0, 1.0],
                half: [0.0, 1.0, 1.0],
                yaw: 0.0,
            },
            "obstacle.half",
        ),
        (
            Obstacle::OrientedBox {
                center: [1.0, 0.0, 1.0],
                half: [1.0, 1.0, 1.0],
                yaw: f64::NAN,
            },
            "obstacle.yaw",
        ),
    ];
    for (o, what) in bad {
        assert_eq!(name(cache.add_obstacle(o).unwrap_err()), what, "{o:?}");
    }
    assert_eq!(cache.next_obstacle_id(), ObstacleId(1), "no id was taken");
    assert_eq!(cache.queue().len(), 0);
    let mut v = swamp(70);
    assert_eq!(
        name(cache.add_volume(v.clone()).unwrap_err()),
        "volume.area"
    );
    v.area = 3;
    v.points.truncate(2);
    assert_eq!(
        name(cache.add_volume(v.clone()).unwrap_err()),
        "volume.points"
    );
    v.points = (0..257).map(|i| [f64::from(i), 0.0]).collect();
    assert_eq!(name(cache.add_volume(v).unwrap_err()), "volume.points");
    assert_eq!(cache.next_volume_id(), VolumeId(1));
    assert_eq!(
        cache.remove_obstacle(ObstacleId(1)),
        Err(TileCacheError::UnknownObstacle { id: ObstacleId(1) })
    );
    assert_eq!(
        cache.remove_volume(VolumeId(4)),
        Err(TileCacheError::UnknownVolume { id: VolumeId(4) })
    );
}

#[test]
fn ids_start_at_one_grow_by_one_and_are_never_reused() {
    let (_, soup) = levels().swap_remove(0);
    let mut cache = TileCache::build_soup(&pipeline(Partition::Monotone), &soup).unwrap();
    let o = three_obstacles();
    let a = cache.add_obstacle(o[0]).unwrap();
    cache.remove_obstacle(a).unwrap();
    let b = cache.add_obstacle(o[0]).unwrap();
    assert_eq!((a, b), (ObstacleId(1), ObstacleId(2)));
    assert_eq!(
        cache.remove_obstacle(a),
        Err(TileCacheError::UnknownObstacle { id: a })
    );
}

#[test]
fn the_queue_holds_the_overlapping_tiles_by_row_then_column_and_a_queued_tile_keeps_its_place() {
    let (_, soup) = levels().swap_remove(0);
    let p = pipeline(Partition::Monotone);
    let mut cache = TileCache::build_soup(&p, &soup).unwrap();
    let ts = cache.params().tile_size;
    let vc = p.config.voxel();
    let reach = f64::from(vc.border + vc.walkable_radius + 1) * vc.cs;
    // A small cylinder in the middle of tile (2, 3): its box reaches no other tile's
    // widened grid unless it lies within `reach` of the tile's edge.
    let (ox, oz) = cache.params().tile_origin(2, 3);
    cache
        .add_obstacle(Obstacle::Cylinder {
            center: [ox + ts / 2.0, 0.0, oz + ts / 2.0],
            radius: 0.1,
            height: 1.0,
        })
        .unwrap();
    assert!(ts / 2.0 - 0.1 > reach);
    assert_eq!(cache.queue().collect::<Vec<_>>(), [(2, 3)]);
    // A box over the corner of tiles (0..=1, 0..=1) queues them by row, then column; (2, 3)
    // stays at the front.
    let (cx, cz) = cache.params().tile_origin(1, 1);
    cache
        .add_obstacle(Obstacle::Box {
            min: [cx - 0.5, 0.0, cz - 0.5],
            max: [cx + 0.5, 1.0, cz + 0.5],
        })
        .unwrap();
    assert_eq!(
        cache.queue().collect::<Vec<_>>(),
        [(2, 3), (0, 0), (1, 0), (0, 1), (1, 1)]
    );
    assert_eq!(cache.update(2).unwrap().tiles, 2);
    assert_eq!(cache.queue().collect::<Vec<_>>(), [(1, 0), (0, 1), (1, 1)]);
}

#[test]
fn areas_equal_to_the_last_build_change_nothing_and_an_unchanged_layer_keeps_its_tile() {
    let (_, soup) = levels().swap_remove(0);
    let mut cache = TileCache::build_soup(&pipeline(Partition::Monotone), &soup).unwrap();
    // An obstacle high above the level marks nothing: every queued tile is unchanged.
    let before = cache.mesh().clone();
    let id = cache
        .add_obstacle(Obstacle::Cylinder {
            center: [20.0, 50.0, 20.0],
            radius: 3.0,
            height: 1.0,
        })
        .unwrap();
    let s = cache.update_all().unwrap();
    assert!(s.tiles > 0);
    assert_eq!(s.unchanged, s.tiles);
    assert_eq!(cache.mesh(), &before);
    // Its tiles were queued and found unchanged: references into them stay valid, and so do
    // their run-time polygon edits, through another such round.
    let near = cache.mesh().tile_at(2, 2, 0).unwrap().poly_ref(0).unwrap();
    cache.mesh_mut().set_poly_area(near, 17).unwrap();
    cache.remove_obstacle(id).unwrap();
    assert!(cache.queue().any(|c| c == (2, 2)));
    let s = cache.update_all().unwrap();
    assert_eq!(s.unchanged, s.tiles);
    assert!(cache.mesh().is_valid_poly_ref(near));
    assert_eq!(cache.mesh().poly_area(near), Ok(17));
    // A real obstacle: the tiles it cuts are replaced in their slots (new generation).
    cache.add_obstacle(three_obstacles()[0]).unwrap();
    let s = cache.update_all().unwrap();
    assert!(s.rebuilt > 0 && s.layers_replaced > 0);
}

/// One random operation of a history.
fn random_op(rng: &mut ChaCha8Rng, cache: &mut TileCache) {
    let obstacles: Vec<ObstacleId> = cache.obstacles().map(|(id, _)| id).collect();
    let volumes: Vec<VolumeId> = cache.volumes().map(|(id, _)| id).collect();
    let x = rng.gen_range(0.0..60.0);
    let z = rng.gen_range(0.0..60.0);
    match rng.gen_range(0..10) {
        0..=2 => {
            cache
                .add_obstacle(Obstacle::Cylinder {
                    center: [x, -1.0, z],
                    radius: rng.gen_range(0.3..2.5),
                    height: 3.0,
                })
                .unwrap();
        }
        3 => {
            cache
                .add_obstacle(Obstacle::Box {
                    min: [x, -1.0, z],
                    max: [
                        x + rng.gen_range(0.1..4.0),
                        2.0,
                        z + rng.gen_range(0.1..4.0),
                    ],
                })
                .unwrap();
        }
        4 => {
            cache
                .add_obstacle(Obstacle::OrientedBox {
                    center: [x, 0.0, z],
                    half: [rng.gen_range(0.2..3.0), 1.5, rng.gen_range(0.2..3.0)],
                    yaw: rng.gen_range(-4.0..4.0),
                })
                .unwrap();
        }
        5 => {
            let w = rng.gen_range(1.0..8.0);
            cache
                .add_volume(ConvexVolume {
                    points: vec![[x, z], [x + w, z], [x + w, z + w], [x, z + w]],
                    min_y: -2.0,
                    max_y: 2.0,
                    area: rng.gen_range(0..=63),
                })
                .unwrap();
        }
        6 if !volumes.is_empty() => {
            let id = volumes[rng.gen_range(0..volumes.len())];
            cache.remove_volume(id).unwrap();
        }
        _ if !obstacles.is_empty() => {
            let id = obstacles[rng.gen_range(0..obstacles.len())];
            cache.remove_obstacle(id).unwrap();
        }
        _ => {}
    }
}

fn history_cases() -> u64 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(6, |n: u64| n.min(64))
}

#[test]
fn the_mesh_once_the_queue_is_empty_does_not_depend_on_the_slicing_of_random_histories() {
    let (_, soup) = levels().swap_remove(0);
    let cases = [
        ("monotone", pipeline(Partition::Monotone)),
        ("layers", pipeline(Partition::Layers)),
        ("layer-first", layer_first_pipeline()),
    ];
    for (partition, p) in cases {
        let built = TileCache::build_soup(&p, &soup).unwrap();
        let mut reused = 0;
        for seed in 0..history_cases() {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let steps = rng.gen_range(4..12);
            // Three caches, one history: budget 1 after every step, a random budget after
            // every step, and one update of everything at the end.
            let mut one = built.clone();
            let mut some = built.clone();
            let mut all = built.clone();
            for _ in 0..steps {
                let state = rng.clone();
                random_op(&mut rng, &mut one);
                for c in [&mut some, &mut all] {
                    let mut r = state.clone();
                    random_op(&mut r, c);
                }
                one.update(1).unwrap();
                some.update(rng.gen_range(0..4)).unwrap();
            }
            for c in [&mut one, &mut some, &mut all] {
                c.update_all().unwrap();
            }
            let expected = tiles_of(all.mesh());
            assert_eq!(tiles_of(one.mesh()), expected, "{partition} seed {seed}");
            assert_eq!(tiles_of(some.mesh()), expected, "{partition} seed {seed}");
            // And equal to a fresh build with the same obstacles and volumes.
            let mut fresh = p.clone();
            fresh.obstacles = all.obstacles().map(|(_, o)| *o).collect();
            fresh.volumes = all.volumes().map(|(_, v)| v.clone()).collect();
            let fresh = fresh.build_soup(&soup).unwrap();
            assert_eq!(
                expected,
                tiles_of_list(&fresh.tiles),
                "{partition} seed {seed}"
            );
            reused += one.stats().layers_reused + some.stats().layers_reused;
        }
        if partition != "monotone" {
            assert!(
                reused > 0,
                "{partition}: the kept layer results were exercised"
            );
        }
    }
}

#[test]
fn building_a_chunked_mesh_or_a_height_grid_with_a_cache_equals_the_plain_build() {
    let p = pipeline(Partition::Watershed);
    let grid = onepath_build3d::generators::rolling_terrain(
        &onepath_build3d::generators::TerrainParams::default(),
    );
    let cache = TileCache::build_heightfield(&p, &grid).unwrap();
    assert_eq!(cache.mesh(), &p.build_heightfield(&grid).unwrap().mesh);
    let (_, soup) = levels().swap_remove(0);
    let chunky = onepath_build3d::ChunkyTriMesh::new(soup, 8.0).unwrap();
    let cache = TileCache::build_chunk(&p, &chunky).unwrap();
    assert_eq!(cache.mesh(), &p.build_chunk(&chunky).unwrap().mesh);
}

#[test]
fn at_most_2_to_the_20_obstacles_and_volumes_are_in_force_and_one_more_changes_nothing() {
    // A single floor tile: every add queues the one tile.
    let mut soup = onepath_build3d::TriangleSoup::default();
    onepath_build3d::generators::add_floor(&mut soup, 1.0, 1.0, 5.0, 5.0, 0.0);
    let mut cache = TileCache::build_soup(&pipeline(Partition::Monotone), &soup).unwrap();
    const MAX: usize = 1 << 20;
    let o = Obstacle::Cylinder {
        center: [3.0, 0.0, 3.0],
        radius: 0.5,
        height: 1.0,
    };
    for _ in 0..MAX {
        cache.add_obstacle(o).unwrap();
    }
    let next = cache.next_obstacle_id();
    assert_eq!(
        cache.add_obstacle(o),
        Err(TileCacheError::TooMany {
            what: "obstacle",
            max: MAX
        })
    );
    assert_eq!(
        (cache.obstacles().len(), cache.next_obstacle_id()),
        (MAX, next)
    );
    // Removing one makes room again.
    cache.remove_obstacle(ObstacleId(7)).unwrap();
    assert_eq!(cache.add_obstacle(o).unwrap(), next);
    let v = swamp(3);
    for _ in 0..MAX {
        cache.add_volume(v.clone()).unwrap();
    }
    let next = cache.next_volume_id();
    assert_eq!(
        cache.add_volume(v.clone()),
        Err(TileCacheError::TooMany {
            what: "volume",
            max: MAX
        })
    );
    assert_eq!((cache.volumes().len(), cache.next_volume_id()), (MAX, next));
}

#[test]
fn a_cached_build_reports_progress_once_per_tile_and_the_same_mesh() {
    use std::sync::Mutex;
    let (_, soup) = levels().swap_remove(0);
    let p = layer_first_pipeline();
    let calls = Mutex::new(Vec::new());
    let cache = TileCache::build_soup_with_progress(&p, &soup, &|done, total| {
        calls.lock().unwrap().push((done, total))
    })
    .unwrap();
    let mut calls = calls.into_inner().unwrap();
    calls.sort_unstable();
    let n = cache.cached_tiles().len();
    assert_eq!(calls, (1..=n).map(|k| (k, n)).collect::<Vec<_>>());
    assert_eq!(cache.mesh(), &p.build_soup(&soup).unwrap().mesh);
}

#[path = "../../onepath-stitch/tests/crafted/mod.rs"]
mod crafted;

/// A flat floor of two tiles of 160 cells along x, agent radius 0, layer-first tiles.
fn comb_cache() -> TileCache {
    let size = 160.0 * 0.3;
    let soup = TriangleSoup {
        vertices: vec![
            [0.0, 0.0, 0.0],
            [2.0 * size, 0.0, 0.0],
            [2.0 * size, 0.0, size],
            [0.0, 0.0, size],
        ],
        triangles: vec![[0, 2, 1], [0, 3, 2]],
        areas: None,
    };
    let config = BuildConfig {
        tile_size: size,
        agent_radius: 0.0,
        ..layer_first_config()
    };
    TileCache::build_soup(&Mesh3DPipeline::new(config), &soup).unwrap()
}

#[test]
fn a_swap_the_portal_link_cap_refuses_leaves_the_mesh_and_the_cache_as_they_were() {
    let mut cache = comb_cache();
    let p = *cache.params();
    let ts = p.tile_size_f32();
    // Facing tile (0, 0)'s +x side: 2 000 thin triangles whose portal edges all cover the
    // whole boundary, as layer 1 of column (1, 0) at the floor's height. Tile (0, 0)'s floor
    // meets that side in a few edges, far inside the cap.
    let at = cache
        .mesh()
        .tile_at(0, 0, 0)
        .unwrap()
        .tile()
        .data()
        .origin_y;
    let thin: Vec<crafted::Thin> = (0..2000)
        .map(|i| crafted::Thin {
            z0: 0.0001 * i as f32,
            z1: ts - 0.0001 * i as f32,
            y: 0.0,
            depth: 8.0,
        })
        .collect();
    let facing = crafted::thin_triangles(&p, 1, 1, at, &[], &thin, Vec::new());
    cache.mesh_mut().add_tile(facing).unwrap();
    // One-cell walls every other cell along tile (0, 0)'s +x border cut its floor into a
    // comb of 80 teeth: 80 portal edges, each overlapping all 2 000 (pairs 160 000 over the
    // cap of 64 × 2 080).
    for j in (1..160).step_by(2) {
        let z = f64::from(j) * 0.3;
        cache
            .add_obstacle(Obstacle::Box {
                min: [47.0, -1.0, z + 0.05],
                max: [48.2, 1.0, z + 0.25],
            })
            .unwrap();
    }
    let before_mesh = (
        cache.mesh().clone(),
        NavMeshSerializer::write_mesh(cache.mesh()),
        cache.mesh().state_id(),
    );
    let before_queue: Vec<_> = cache.queue().collect();
    let mut twin = cache.clone();
    let e = cache.update_all().unwrap_err();
    assert!(
        matches!(
            e,
            TileCacheError::Mesh(MeshError::PortalLinkCap(StitchError::PortalLinkCap {
                position: (0, 0, 0),
                side: 0,
                facing_layer: 1,
                ..
            }))
        ),
        "{e:?}"
    );
    // The mesh exactly as it was (value, bytes, state), the column still queued first.
    let after = (
        cache.mesh().clone(),
        NavMeshSerializer::write_mesh(cache.mesh()),
        cache.mesh().state_id(),
    );
    assert_eq!(after, before_mesh);
    assert_eq!(cache.queue().collect::<Vec<_>>(), before_queue);
    assert_eq!(before_queue.first(), Some(&(0, 0)));
    // And the cache's own state too: with the facing tile gone, it rebuilds exactly as a
    // copy taken before the refused update.
    for c in [&mut cache, &mut twin] {
        c.mesh_mut().remove_tile_at(1, 0, 1).unwrap();
        let s = c.update_all().unwrap();
        assert!(s.layers_replaced > 0);
    }
    assert_eq!(tiles_of(cache.mesh()), tiles_of(twin.mesh()));
    assert_eq!(cache.mesh(), twin.mesh());
}
