//! Levels, configurations and comparisons shared by the tile cache's tests.
#![allow(dead_code)]

use std::collections::BTreeMap;

use onepath_build3d::generators::{
    building_with_bridge, city, rolling_terrain, CityParams, TerrainParams,
};
use onepath_build3d::{BuildConfig, Mesh3DPipeline, Obstacle, TriangleSoup};
use onepath_format::{NavTile, Partition};
use onepath_mesh::TiledNavMesh;

/// The three generated levels, by name.
pub fn levels() -> Vec<(&'static str, TriangleSoup)> {
    vec![
        ("city", city(&CityParams::default())),
        (
            "terrain",
            rolling_terrain(&TerrainParams::default())
                .to_soup()
                .unwrap(),
        ),
        ("bridge", building_with_bridge(3)),
    ]
}

/// The Recast demo configuration (tiles of 32 cells) with this partition.
pub fn config(partition: Partition) -> BuildConfig {
    BuildConfig {
        partition,
        ..BuildConfig::default()
    }
}

/// A pipeline with this partition and nothing else.
pub fn pipeline(partition: Partition) -> Mesh3DPipeline {
    Mesh3DPipeline::new(config(partition))
}

/// The demo configuration with layer-first tiles: Layers and no detail sampling.
pub fn layer_first_config() -> BuildConfig {
    BuildConfig {
        detail_sample_distance: 0.0,
        ..config(Partition::Layers)
    }
}

/// A pipeline with layer-first tiles and nothing else.
pub fn layer_first_pipeline() -> Mesh3DPipeline {
    Mesh3DPipeline::new(layer_first_config())
}

/// Every partition (Layers with detail sampling: the general path), then layer-first
/// tiles, by name.
pub fn pipelines() -> Vec<(&'static str, Mesh3DPipeline)> {
    vec![
        ("watershed", pipeline(Partition::Watershed)),
        ("monotone", pipeline(Partition::Monotone)),
        ("layers", pipeline(Partition::Layers)),
        ("layer-first", layer_first_pipeline()),
    ]
}

/// Every tile of a mesh by (column, row, layer), as its as-built ONPT bytes.
pub fn tiles_of(mesh: &TiledNavMesh) -> BTreeMap<(i32, i32, u16), Vec<u8>> {
    mesh.tiles()
        .map(|t| (t.tile().position(), t.tile().to_bytes()))
        .collect()
}

/// The tiles of a build by position.
pub fn tiles_of_list(tiles: &[NavTile]) -> BTreeMap<(i32, i32, u16), Vec<u8>> {
    tiles.iter().map(|t| (t.position(), t.to_bytes())).collect()
}

/// Obstacles of the three shapes across the city's streets.
pub fn three_obstacles() -> Vec<Obstacle> {
    vec![
        Obstacle::Cylinder {
            center: [21.5, 0.0, 10.0],
            radius: 1.2,
            height: 2.0,
        },
        Obstacle::Box {
            min: [2.0, -0.5, 39.0],
            max: [6.0, 1.5, 41.5],
        },
        Obstacle::OrientedBox {
            center: [40.5, 0.5, 30.0],
            half: [2.5, 1.0, 0.6],
            yaw: 0.7,
        },
    ]
}
