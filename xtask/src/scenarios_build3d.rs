//! `build3d/build`: the generated levels (city, terrain, building with bridge), each built
//! with every partition; every tile's ONPT bytes in tile order. Tiles are built in parallel,
//! so this runs on 1, 2 and several threads.

use onepath_build3d::generators::{
    building_with_bridge, city, rolling_terrain, CityParams, TerrainParams,
};
use onepath_build3d::{BuildConfig, BuildError, Mesh3DPipeline, TriangleSoup};
use onepath_format::Partition;

use crate::hash_matrix::Recorder;

/// Seed of the building-with-bridge level in the matrix (`fixtures/levels/generated.json`).
const BRIDGE_SEED: u64 = 3;

/// The three generated levels of the matrix, by name: `city`, `terrain`, `bridge`, built
/// from the default parameters of their generators.
fn generated_levels() -> Result<Vec<(&'static str, TriangleSoup)>, BuildError> {
    Ok(vec![
        ("city", city(&CityParams::default())),
        (
            "terrain",
            rolling_terrain(&TerrainParams::default()).to_soup()?,
        ),
        ("bridge", building_with_bridge(BRIDGE_SEED)),
    ])
}

/// The configuration of every matrix build but its partition, spelled out: the Recast demo's
/// values as the landed expectations were made with them, with settings digest 0 (a
/// hand-made configuration), so a change of a default cannot move the matrix.
pub(crate) fn matrix_config(partition: Partition) -> BuildConfig {
    BuildConfig {
        origin: [0.0, 0.0, 0.0],
        cell_size: 0.3,
        cell_height: 0.2,
        tile_size: BuildConfig::tile_size_of_cells(32, 0.3),
        agent_height: 2.0,
        agent_radius: 0.6,
        walkable_climb: 0.9,
        agent_max_slope: 45.0,
        min_region_area: 64,
        merge_region_area: 400,
        max_edge_length: 12.0,
        contour_max_error: 1.3,
        max_verts_per_poly: 6,
        detail_sample_distance: 6.0,
        detail_max_error: 1.0,
        partition,
        area: 63,
        flags: 1,
        off_mesh_links: Vec::new(),
        settings_digest: 0,
    }
}

/// One build of the matrix: its name (`level/partition`) and its tiles' ONPT bytes.
type MatrixBuild = (String, Vec<Vec<u8>>);

/// Builds the three generated levels with the three partitions ([`matrix_config`]
/// otherwise) and returns, per build in that order (`city/watershed`, `city/monotone`,
/// `city/layers`, `terrain/...`, `bridge/...`), the ONPT bytes of its tiles in tile order.
fn hash_matrix_builds() -> Result<Vec<MatrixBuild>, BuildError> {
    let mut out = Vec::new();
    for (name, soup) in generated_levels()? {
        for (pname, partition) in [
            ("watershed", Partition::Watershed),
            ("monotone", Partition::Monotone),
            ("layers", Partition::Layers),
        ] {
            let built = Mesh3DPipeline::new(matrix_config(partition)).build_soup(&soup)?;
            out.push((
                format!("{name}/{pname}"),
                built.tiles.iter().map(|t| t.to_bytes()).collect(),
            ));
        }
    }
    Ok(out)
}

/// The scenario: per build, every tile's bytes and then all of them length-prefixed.
pub(crate) fn build3d_build(rec: &mut Recorder) -> Result<(), String> {
    let builds = hash_matrix_builds().map_err(|e| e.to_string())?;
    for (name, tiles) in builds {
        let mut all = Vec::new();
        for (i, t) in tiles.iter().enumerate() {
            rec.record(format!("{name}/tile-{i}"), t);
            all.extend_from_slice(&(t.len() as u64).to_le_bytes());
            all.extend_from_slice(t);
        }
        rec.record(format!("{name}/all-{}", tiles.len()), &all);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace_root;

    fn sha256_hex(parts: &[Vec<u8>]) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for p in parts {
            h.update((p.len() as u64).to_le_bytes());
            h.update(p);
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The SHA-256 of every hash-matrix build's tile bytes, against the values committed in
    /// `fixtures/levels/golden-sha256.txt` (written when `ONEPATH_BLESS=1`). A difference on
    /// another machine, build profile or thread count is a determinism bug; after an intended
    /// change of the builder, bless the new values.
    #[test]
    fn hash_matrix_builds_match_the_committed_golden_hashes() {
        let path = workspace_root().join("fixtures/levels/golden-sha256.txt");
        let actual: String = hash_matrix_builds()
            .unwrap()
            .iter()
            .map(|(name, tiles)| format!("{name} {} {}\n", tiles.len(), sha256_hex(tiles)))
            .collect();
        if std::env::var("ONEPATH_BLESS").as_deref() == Ok("1") {
            std::fs::write(&path, &actual).unwrap();
        }
        let expected = std::fs::read_to_string(&path).unwrap();
        assert_eq!(actual, expected);
    }

    #[test]
    fn generated_levels_match_the_parameters_kept_in_fixtures() {
        let text = std::fs::read_to_string(workspace_root().join("fixtures/levels/generated.json"))
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let c = CityParams::default();
        assert_eq!(v["city"]["seed"], c.seed);
        assert_eq!(v["city"]["blocks"], c.blocks);
        assert_eq!(v["city"]["block_size"], c.block_size);
        assert_eq!(v["city"]["street_width"], c.street_width);
        let t = TerrainParams::default();
        assert_eq!(v["terrain"]["seed"], t.seed);
        assert_eq!(v["terrain"]["samples"], t.samples);
        assert_eq!(v["terrain"]["spacing"], t.spacing);
        assert_eq!(v["terrain"]["amplitude"], t.amplitude);
        assert_eq!(v["bridge"]["seed"], BRIDGE_SEED);
        // The generators are deterministic: same parameters, same triangles.
        assert_eq!(city(&c), city(&c));
        assert_eq!(rolling_terrain(&t), rolling_terrain(&t));
        assert_eq!(
            building_with_bridge(BRIDGE_SEED),
            building_with_bridge(BRIDGE_SEED)
        );
    }

    #[test]
    fn hash_matrix_builds_all_nine_level_and_partition_pairs_in_order() {
        let builds = hash_matrix_builds().unwrap();
        let names: Vec<&str> = builds.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "city/watershed",
                "city/monotone",
                "city/layers",
                "terrain/watershed",
                "terrain/monotone",
                "terrain/layers",
                "bridge/watershed",
                "bridge/monotone",
                "bridge/layers"
            ]
        );
        assert!(builds.iter().all(|(_, tiles)| !tiles.is_empty()));
    }
}
