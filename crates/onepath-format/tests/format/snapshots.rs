//! Byte layouts locked by insta snapshots (hex dumps): a layout change fails here.

use std::fmt::Write;

use onepath_format::{
    encode_settings, DetailMesh, DetailTriangle, NavMeshParams, NavSettings, NavTile, NavTileData,
    OffMeshLinkSlot, NO_PORTAL,
};

/// 16 bytes per line, offset first.
fn hex_dump(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (i, line) in bytes.chunks(16).enumerate() {
        write!(out, "{:04x}:", i * 16).unwrap();
        for b in line {
            write!(out, " {b:02x}").unwrap();
        }
        out.push('\n');
    }
    out
}

/// One triangle touching the −Z boundary; no detail, no links.
pub fn one_triangle() -> NavTileData {
    NavTileData {
        tile_x: -1,
        tile_z: 2,
        layer: 1,
        origin_y: 1.5,
        vertices: vec![[0.0, 0.0, 0.0], [8.0, 0.0, 0.0], [4.0, 1.0, 4.0]],
        poly_sizes: vec![3],
        poly_areas: vec![2],
        poly_flags: vec![0x0101],
        corners: vec![0, 1, 2],
        edge_neighbours: vec![0, 0, 0],
        edge_portal_sides: vec![3, NO_PORTAL, NO_PORTAL],
        ..NavTileData::default()
    }
}

// `params()` and `two_quads()` (with one detail mesh per polygon and one off-mesh link),
// shared with the crate's unit tests.
include!("../../src/test_tiles.rs");

#[test]
fn parameter_block_layout_is_locked() {
    let mut p = params();
    p.walkable_climb = 0.5;
    p.agent_radius = 0.25;
    p.agent_height = 2.0;
    p.settings_digest = 0x0102_0304_0506_0708;
    insta::assert_snapshot!(hex_dump(&p.to_block()));
    insta::assert_snapshot!("parameter_block_fingerprint", p.fingerprint().to_string());
}

#[test]
fn onpt_layout_of_one_triangle_is_locked() {
    let t = NavTile::create(&params(), one_triangle()).unwrap();
    insta::assert_snapshot!(hex_dump(&t.to_bytes()));
    insta::assert_snapshot!("one_triangle_content_id", t.content_id().to_string());
}

#[test]
fn onpt_layout_of_two_quads_with_detail_and_link_is_locked() {
    let t = NavTile::create(&params(), two_quads()).unwrap();
    insta::assert_snapshot!(hex_dump(&t.to_bytes()));
}

/// The defaults the settings encoding was first locked with: today's defaults but region
/// areas of 8 and 20 spans (issue 13 made them the Recast demo's 64 and 400 spans). ONNM
/// files written with the old defaults carry these bytes and this digest.
fn first_defaults() -> NavSettings {
    let mut s = NavSettings::default();
    s.set_min_region_area(8)
        .unwrap()
        .set_merge_region_area(20)
        .unwrap();
    s
}

/// Locks the layout and the digest on [`first_defaults`] (the snapshots are the landed ones);
/// `the_defaults_are_the_locked_encoding_with_the_demo_region_areas` ties today's defaults
/// to the same bytes.
#[test]
fn settings_encoding_of_the_defaults_is_locked() {
    let s = first_defaults();
    insta::assert_snapshot!(hex_dump(&encode_settings(&s)));
    insta::assert_snapshot!(
        "default_settings_digest",
        format!("{:016x}", s.settings_digest())
    );
}

#[test]
fn the_defaults_are_the_locked_encoding_with_the_demo_region_areas() {
    let mut want = encode_settings(&first_defaults());
    // MinRegionArea at 74, MergeRegionArea at 78 (docs/navmesh-format.md, settings encoding).
    want[74..78].copy_from_slice(&64i32.to_le_bytes());
    want[78..82].copy_from_slice(&400i32.to_le_bytes());
    let s = NavSettings::default();
    assert_eq!(encode_settings(&s), want);
    assert_eq!(
        (s.min_region_area(), s.merge_region_area()),
        (64, 400),
        "the Recast demo's regions of 8 / 20 cells wide, in spans"
    );
    assert_eq!(format!("{:016x}", s.settings_digest()), "3a0b4955c21fc1ba");
}
