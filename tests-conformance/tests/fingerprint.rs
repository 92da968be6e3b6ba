//! "Build fingerprint" (docs/navmesh-format.md, "Build fingerprint"): the first 16 bytes of SHA-256 over "ONFP",
//! u16 2 and the 68-byte parameter block. The expected values were computed outside the
//! project (Python's struct + hashlib over the layout of docs/navmesh-format.md), so this
//! test pins the block layout and the hash input independently of our own writer.

use onepath_format::NavMeshParams;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn fingerprint_of_hand_built_parameters_matches_an_independent_computation() {
    let p = NavMeshParams::new([0.0, 0.0, 0.0], 32.0, 0.25, 6);
    assert_eq!(hex(&p.fingerprint().0), "070af0d0722d536e2c63d629cee2783f");
}

#[test]
fn fingerprint_covers_agent_values_and_settings_digest() {
    let mut p = NavMeshParams::new([100.0, -5.0, 100.0], 64.0, 0.5, 16);
    p.walkable_climb = 0.9;
    p.agent_radius = 0.6;
    p.agent_height = 2.0;
    p.agent_max_slope = 45.0;
    p.settings_digest = 0x0123_4567_89AB_CDEF;
    assert_eq!(hex(&p.fingerprint().0), "9c7974e55199736a191245ed69b1009b");
}

#[test]
fn parameter_block_field_offsets() {
    let mut p = NavMeshParams::new([1.0, 2.0, 3.0], 32.0, 0.25, 7);
    p.walkable_climb = 0.5;
    p.settings_digest = 0xAABB;
    let b = p.to_block();
    assert_eq!(&b[0..8], &1.0f64.to_le_bytes()); // OriginX
    assert_eq!(&b[8..16], &2.0f64.to_le_bytes()); // OriginY
    assert_eq!(&b[16..24], &3.0f64.to_le_bytes()); // OriginZ
    assert_eq!(&b[24..32], &32.0f64.to_le_bytes()); // TileSize
    assert_eq!(&b[32..40], &0.25f64.to_le_bytes()); // CellSize
    assert_eq!(&b[40..42], &7u16.to_le_bytes()); // MaxVertsPerPoly
    assert_eq!(&b[42..44], &[0, 0]); // reserved
    assert_eq!(&b[44..48], &0.5f32.to_le_bytes()); // WalkableClimb
    assert_eq!(&b[56..60], &45.0f32.to_le_bytes()); // AgentMaxSlope
    assert_eq!(&b[60..68], &0xAABBu64.to_le_bytes()); // SettingsDigest
}
