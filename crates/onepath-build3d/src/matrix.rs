//! The generated levels of the hash matrix (`build3d/build`): every level built with every
//! partition, tile bytes in tile order.

use onepath_format::Partition;

use crate::config::BuildConfig;
use crate::error::BuildError;
use crate::generators::{building_with_bridge, city, rolling_terrain, CityParams, TerrainParams};
use crate::input::TriangleSoup;
use crate::pipeline::Mesh3DPipeline;

/// Seed of the building-with-bridge level in the matrix (`fixtures/levels/generated.json`).
pub const BRIDGE_SEED: u64 = 3;

/// The three generated levels of the matrix, by name: `city`, `terrain`, `bridge`, built
/// from the default parameters of their generators.
pub fn generated_levels() -> Result<Vec<(&'static str, TriangleSoup)>, BuildError> {
    Ok(vec![
        ("city", city(&CityParams::default())),
        (
            "terrain",
            rolling_terrain(&TerrainParams::default()).to_soup()?,
        ),
        ("bridge", building_with_bridge(BRIDGE_SEED)),
    ])
}

/// One build of the matrix: its name (`level/partition`) and its tiles' ONPT bytes.
pub type MatrixBuild = (String, Vec<Vec<u8>>);

/// Builds the three generated levels with the three partitions (default settings
/// otherwise) and returns, per build in that order (`city/watershed`, `city/monotone`,
/// `city/layers`, `terrain/...`, `bridge/...`), the ONPT bytes of its tiles in tile order.
pub fn hash_matrix_builds() -> Result<Vec<MatrixBuild>, BuildError> {
    let mut out = Vec::new();
    for (name, soup) in generated_levels()? {
        for (pname, partition) in [
            ("watershed", Partition::Watershed),
            ("monotone", Partition::Monotone),
            ("layers", Partition::Layers),
        ] {
            let cfg = BuildConfig {
                partition,
                ..BuildConfig::default()
            };
            let built = Mesh3DPipeline::new(cfg).build_soup(&soup)?;
            out.push((
                format!("{name}/{pname}"),
                built.tiles.iter().map(|t| t.to_bytes()).collect(),
            ));
        }
    }
    Ok(out)
}
