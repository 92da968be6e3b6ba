//! `build3d/tilecache`: a rolling terrain built with a tile cache (the `build3d/build`
//! configuration, watershed, then layers),
//! then obstacles of all three shapes and a volume added, a sliced update, a snapshot, more
//! changes, a restore, and finally everything removed. The mesh (ONPM) and the cache
//! snapshots (ONTK, Full and Referenced) are hashed at each step. Tiles are built in
//! parallel, so this runs on 1, 2 and several threads.

use onepath_build3d::generators::{rolling_terrain, TerrainParams};
use onepath_build3d::{ConvexVolume, Mesh3DPipeline, Obstacle};
use onepath_format::Partition;
use onepath_mesh::NavMeshSerializer;
use onepath_snapshot::SnapshotMode;
use onepath_tilecache::TileCache;

use crate::hash_matrix::Recorder;
use crate::scenarios_build3d::matrix_config;

fn record(rec: &mut Recorder, prefix: &str, step: &str, cache: &TileCache) {
    rec.record(
        format!("{prefix}/{step}/mesh"),
        &NavMeshSerializer::write_mesh(cache.mesh()),
    );
    rec.record(
        format!("{prefix}/{step}/ontk-full"),
        &cache.snapshot(SnapshotMode::Full),
    );
    rec.record(
        format!("{prefix}/{step}/ontk-referenced"),
        &cache.snapshot(SnapshotMode::Referenced),
    );
}

/// The scenario.
pub(crate) fn build3d_tilecache(rec: &mut Recorder) -> Result<(), String> {
    let soup = rolling_terrain(&TerrainParams::default())
        .to_soup()
        .map_err(|e| e.to_string())?;
    let err = |e: onepath_tilecache::TileCacheError| e.to_string();
    for (name, partition) in [
        ("watershed", Partition::Watershed),
        ("layers", Partition::Layers),
    ] {
        let pipeline = Mesh3DPipeline::new(matrix_config(partition));
        let mut cache = TileCache::build_soup(&pipeline, &soup).map_err(err)?;
        record(rec, name, "built", &cache);
        let cylinder = cache
            .add_obstacle(Obstacle::Cylinder {
                center: [12.0, -5.0, 20.0],
                radius: 1.5,
                height: 12.0,
            })
            .map_err(err)?;
        let b = cache
            .add_obstacle(Obstacle::Box {
                min: [30.0, -5.0, 8.0],
                max: [33.5, 8.0, 10.0],
            })
            .map_err(err)?;
        let oriented = cache
            .add_obstacle(Obstacle::OrientedBox {
                center: [25.0, 0.0, 35.0],
                half: [3.0, 8.0, 0.7],
                yaw: 0.9,
            })
            .map_err(err)?;
        let swamp = cache
            .add_volume(ConvexVolume {
                points: vec![[5.0, 5.0], [18.0, 6.0], [16.0, 15.0], [6.0, 13.0]],
                min_y: -10.0,
                max_y: 10.0,
                area: 7,
            })
            .map_err(err)?;
        record(rec, name, "added", &cache);
        cache.update(3).map_err(err)?;
        record(rec, name, "sliced-3", &cache);
        let saved = cache.snapshot(SnapshotMode::Full);
        cache.update_all().map_err(err)?;
        record(rec, name, "updated", &cache);
        cache.remove_obstacle(b).map_err(err)?;
        cache
            .add_obstacle(Obstacle::Cylinder {
                center: [40.0, -5.0, 40.0],
                radius: 2.0,
                height: 12.0,
            })
            .map_err(err)?;
        cache.update(2).map_err(err)?;
        record(rec, name, "changed", &cache);
        cache.restore_full(&saved).map_err(|e| e.to_string())?;
        record(rec, name, "restored", &cache);
        cache.update_all().map_err(err)?;
        record(rec, name, "restored-updated", &cache);
        for id in [cylinder, b, oriented] {
            cache.remove_obstacle(id).map_err(err)?;
        }
        cache.remove_volume(swamp).map_err(err)?;
        cache.update_all().map_err(err)?;
        record(rec, name, "removed", &cache);
    }
    Ok(())
}

/// `build3d/layer-first`: layer-first tiles (the `build3d/build` configuration with Layers
/// and no detail sampling) on the city and the building with a bridge (several layers per
/// tile): the plain build, the plain build with obstacles in the pipeline, and a cache to
/// which the same obstacles and a volume are added (a sliced update, then everything), then
/// removed. The mesh (ONPM) is hashed at each step.
pub(crate) fn build3d_layer_first(rec: &mut Recorder) -> Result<(), String> {
    use onepath_build3d::generators::{building_with_bridge, city, CityParams};
    let err = |e: onepath_tilecache::TileCacheError| e.to_string();
    let config = onepath_build3d::BuildConfig {
        detail_sample_distance: 0.0,
        ..matrix_config(Partition::Layers)
    };
    for (name, soup) in [
        ("city", city(&CityParams::default())),
        ("bridge", building_with_bridge(3)),
    ] {
        let (lo, hi) = soup.bounds().ok_or("a level has triangles")?;
        let at = |fx: f64, fz: f64| {
            [
                lo[0] + fx * (hi[0] - lo[0]),
                lo[1] - 1.0,
                lo[2] + fz * (hi[2] - lo[2]),
            ]
        };
        let obstacles = vec![
            Obstacle::Cylinder {
                center: at(0.3, 0.4),
                radius: 1.5,
                height: hi[1] - lo[1] + 2.0,
            },
            Obstacle::Box {
                min: at(0.6, 0.2),
                max: {
                    let mut m = at(0.7, 0.25);
                    m[1] = hi[1] + 1.0;
                    m
                },
            },
            Obstacle::OrientedBox {
                center: at(0.5, 0.7),
                half: [2.5, hi[1] - lo[1] + 2.0, 0.7],
                yaw: 0.6,
            },
        ];
        let swamp = ConvexVolume {
            points: vec![
                [at(0.1, 0.1)[0], at(0.1, 0.1)[2]],
                [at(0.3, 0.1)[0], at(0.3, 0.1)[2]],
                [at(0.3, 0.3)[0], at(0.3, 0.3)[2]],
            ],
            min_y: lo[1] - 1.0,
            max_y: hi[1] + 1.0,
            area: 0,
        };
        let plain = Mesh3DPipeline::new(config.clone());
        let built = plain.build_soup(&soup).map_err(|e| e.to_string())?;
        rec.record(
            format!("{name}/plain"),
            &NavMeshSerializer::write_mesh(&built.mesh),
        );
        let mut with = plain.clone();
        with.obstacles = obstacles.clone();
        with.volumes = vec![swamp.clone()];
        let fresh = with.build_soup(&soup).map_err(|e| e.to_string())?;
        rec.record(
            format!("{name}/plain-with-obstacles"),
            &NavMeshSerializer::write_mesh(&fresh.mesh),
        );
        let mut cache = TileCache::build_soup(&plain, &soup).map_err(err)?;
        let mut ids = Vec::new();
        for o in obstacles {
            ids.push(cache.add_obstacle(o).map_err(err)?);
        }
        let v = cache.add_volume(swamp).map_err(err)?;
        cache.update(2).map_err(err)?;
        rec.record(
            format!("{name}/cache-sliced-2"),
            &NavMeshSerializer::write_mesh(cache.mesh()),
        );
        cache.update_all().map_err(err)?;
        rec.record(
            format!("{name}/cache-updated"),
            &NavMeshSerializer::write_mesh(cache.mesh()),
        );
        for id in ids {
            cache.remove_obstacle(id).map_err(err)?;
        }
        cache.remove_volume(v).map_err(err)?;
        cache.update_all().map_err(err)?;
        rec.record(
            format!("{name}/cache-removed"),
            &NavMeshSerializer::write_mesh(cache.mesh()),
        );
    }
    Ok(())
}
