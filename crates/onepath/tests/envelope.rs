//! ONNM and ONNW: the byte tables of `docs/navmesh-format.md` ("ONNM envelope") and every
//! rule with its exact error.

mod common;

use onepath::envelope::{read_onnm, read_onnw, write_onnw, ONNM_MAGIC, ONNW_MAGIC};
use onepath::format::settings::{decode_settings, encode_settings};
use onepath::format::{FormatError, NavSettings};
use onepath::mesh::NavMeshSerializer;
use onepath::{NavMesh, NavWorld};

fn settings() -> NavSettings {
    NavSettings::default()
}

fn nav() -> NavMesh {
    NavMesh::build(&settings(), &common::floor(15.0)).unwrap()
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

fn malformed_at(e: FormatError) -> String {
    match e {
        FormatError::Malformed { at, .. } => at,
        other => panic!("expected Malformed, got {other:?}"),
    }
}

#[test]
fn onnm_is_magic_version_flags_settings_then_the_frozen_mesh_bytes() {
    let n = nav();
    let b = n.save();
    assert_eq!(&b[0..4], &ONNM_MAGIC);
    assert_eq!(&b[4..6], &1u16.to_le_bytes());
    assert_eq!(&b[6..8], &0u16.to_le_bytes());
    let sl = u32_at(&b, 8);
    assert_eq!(&b[12..12 + sl], encode_settings(n.settings()).as_slice());
    let ml = u32_at(&b, 12 + sl);
    let onpm = &b[16 + sl..];
    assert_eq!(ml, onpm.len());
    assert_eq!(onpm, NavMeshSerializer::write_mesh(n.mesh()).as_slice());
    let loaded = NavMesh::load(&b).unwrap();
    assert_eq!(loaded.settings(), n.settings());
    assert_eq!(loaded.mesh(), n.mesh());
    assert_eq!(loaded.save(), b);
}

#[test]
fn onnm_version_other_than_1_is_a_version_error() {
    let mut b = nav().save();
    b[4..6].copy_from_slice(&2u16.to_le_bytes());
    assert_eq!(
        NavMesh::load(&b).unwrap_err(),
        FormatError::Version {
            what: "ONNM",
            found: 2,
            expected: 1
        }
    );
}

#[test]
fn onnm_flags_bad_magic_and_bare_onpm_name_the_field() {
    let good = nav().save();
    let mut b = good.clone();
    b[6] = 1;
    assert_eq!(malformed_at(NavMesh::load(&b).unwrap_err()), "ONNM flags");
    let mut b = good.clone();
    b[0] = b'X';
    assert_eq!(malformed_at(NavMesh::load(&b).unwrap_err()), "ONNM magic");
    let onpm = NavMeshSerializer::write_mesh(nav().mesh());
    assert_eq!(
        malformed_at(NavMesh::load(&onpm).unwrap_err()),
        "ONNM magic"
    );
}

#[test]
fn a_setting_out_of_range_is_malformed_naming_it() {
    let b = nav().save();
    // AgentMaxSlope sits at settings offset 54.
    let mut bad = b.clone();
    bad[12 + 54..12 + 58].copy_from_slice(&91.0f32.to_le_bytes());
    assert_eq!(
        malformed_at(NavMesh::load(&bad).unwrap_err()),
        "settings: AgentMaxSlope"
    );
    // MaxVertsPerPoly at 40.
    let mut bad = b.clone();
    bad[12 + 40..12 + 42].copy_from_slice(&2u16.to_le_bytes());
    assert_eq!(
        malformed_at(NavMesh::load(&bad).unwrap_err()),
        "settings: MaxVertsPerPoly"
    );
    // Area 64 at 118.
    let mut bad = b.clone();
    bad[12 + 118] = 64;
    assert_eq!(
        malformed_at(NavMesh::load(&bad).unwrap_err()),
        "settings: Area"
    );
    // An authored link's radius (the last link field group: 7 f64 after the link count).
    let mut with_link = NavSettings::default();
    with_link
        .set_off_mesh_links(vec![onepath::OffMeshLinkDefinition {
            start: [1.0, 0.0, 1.0],
            end: [3.0, 0.0, 1.0],
            radius: 0.5,
            bidirectional: false,
            area: 1,
            flags: 1,
            user_id: 3,
        }])
        .unwrap();
    let mut linked = NavMesh::build(&with_link, &common::floor(15.0))
        .unwrap()
        .save();
    let radius_at = 12 + 121 + 4 + 6 * 8;
    linked[radius_at..radius_at + 8].copy_from_slice(&0.0f64.to_le_bytes());
    assert_eq!(
        malformed_at(NavMesh::load(&linked).unwrap_err()),
        "settings: OffMeshLinks[0].radius"
    );
    // TileSize above 8192 cells: checked across fields after every setter passed.
    let mut bad = b.clone();
    bad[12 + 32..12 + 40].copy_from_slice(&0.001f64.to_le_bytes());
    assert_eq!(
        malformed_at(NavMesh::load(&bad).unwrap_err()),
        "settings: TileSize"
    );
}

/// Changes one setting in the ONNM bytes (valid settings, same length).
fn with_settings(b: &[u8], f: impl FnOnce(&mut NavSettings)) -> Vec<u8> {
    let sl = u32_at(b, 8);
    let mut s = decode_settings(&b[12..12 + sl]).unwrap();
    f(&mut s);
    let body = encode_settings(&s);
    assert_eq!(body.len(), sl);
    let mut out = b.to_vec();
    out[12..12 + sl].copy_from_slice(&body);
    out
}

fn fingerprint_at(e: FormatError) -> String {
    match e {
        FormatError::Fingerprint {
            at,
            found,
            expected,
        } => {
            assert_ne!(found, expected);
            at
        }
        other => panic!("expected Fingerprint, got {other:?}"),
    }
}

#[test]
fn a_settings_digest_mismatch_is_a_fingerprint_error() {
    // Flags are not a parameter field: only the settings digest differs.
    let b = with_settings(&nav().save(), |s| {
        s.set_flags(7);
    });
    assert_eq!(
        fingerprint_at(NavMesh::load(&b).unwrap_err()),
        "mesh parameters"
    );
}

#[test]
fn an_agent_class_or_grid_mismatch_is_a_fingerprint_error() {
    let good = nav().save();
    let b = with_settings(&good, |s| {
        s.set_agent_radius(0.9).unwrap();
    });
    assert_eq!(
        fingerprint_at(NavMesh::load(&b).unwrap_err()),
        "mesh parameters"
    );
    let b = with_settings(&good, |s| {
        s.set_origin([1.0, 0.0, 0.0]).unwrap();
    });
    assert_eq!(
        fingerprint_at(NavMesh::load(&b).unwrap_err()),
        "mesh parameters"
    );
}

#[test]
fn caller_settings_are_checked_the_same_way_for_onnm_and_bare_onpm() {
    let n = nav();
    let onnm = n.save();
    let onpm = NavMeshSerializer::write_mesh(n.mesh());
    let ok = NavMesh::load_with_settings(&onpm, n.settings()).unwrap();
    assert_eq!(ok.save(), onnm);
    let ok = NavMesh::load_with_settings(&onnm, n.settings()).unwrap();
    assert_eq!(ok.save(), onnm);
    let mut other = settings();
    other.set_agent_height(1.5).unwrap();
    assert_eq!(
        fingerprint_at(NavMesh::load_with_settings(&onpm, &other).unwrap_err()),
        "settings"
    );
    assert_eq!(
        fingerprint_at(NavMesh::load_with_settings(&onnm, &other).unwrap_err()),
        "settings"
    );
    let mut digest_only = settings();
    digest_only.set_min_region_area(10).unwrap();
    assert_eq!(
        fingerprint_at(NavMesh::load_with_settings(&onpm, &digest_only).unwrap_err()),
        "settings"
    );
}

#[test]
fn trailing_bytes_and_lengths_past_the_end_are_malformed() {
    let good = nav().save();
    let mut b = good.clone();
    b.push(0);
    assert_eq!(malformed_at(NavMesh::load(&b).unwrap_err()), "ONNM");
    let mut b = good.clone();
    b[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(malformed_at(NavMesh::load(&b).unwrap_err()), "settings");
    let sl = u32_at(&good, 8);
    let mut b = good.clone();
    b[12 + sl..16 + sl].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(malformed_at(NavMesh::load(&b).unwrap_err()), "mesh");
    // A settings length one short: the settings body ends inside the last field.
    let mut b = good.clone();
    b[8..12].copy_from_slice(&((sl - 1) as u32).to_le_bytes());
    assert!(malformed_at(NavMesh::load(&b).unwrap_err()).starts_with("settings: "));
    // A mesh error is named within `mesh`.
    let mut b = good.clone();
    b[16 + sl + 4] = 9;
    assert_eq!(
        NavMesh::load(&b).unwrap_err(),
        FormatError::Version {
            what: "ONPM",
            found: 9,
            expected: 2
        }
    );
    let mut b = good;
    b.truncate(b.len() - 1);
    assert_eq!(malformed_at(NavMesh::load(&b).unwrap_err()), "mesh");
}

fn world() -> NavWorld {
    let mut big = settings();
    big.set_agent_radius(1.2).unwrap();
    NavWorld::build(&[settings(), big], &common::floor(15.0)).unwrap()
}

#[test]
fn onnw_is_magic_version_flags_count_then_length_prefixed_onnm() {
    let w = world();
    let b = w.save();
    assert_eq!(&b[0..4], &ONNW_MAGIC);
    assert_eq!(&b[4..6], &1u16.to_le_bytes());
    assert_eq!(&b[6..8], &0u16.to_le_bytes());
    assert_eq!(u32_at(&b, 8), 2);
    let mut at = 12;
    for c in w.classes() {
        let len = u32_at(&b, at);
        assert_eq!(&b[at + 4..at + 4 + len], c.save().as_slice());
        at += 4 + len;
    }
    assert_eq!(at, b.len());
    let back = NavWorld::load(&b).unwrap();
    assert_eq!(back.save(), b);
    assert_eq!(read_onnw(&b).unwrap().len(), 2);
}

#[test]
fn onnw_rules_name_the_field() {
    let good = world().save();
    let mut b = good.clone();
    b[4..6].copy_from_slice(&0u16.to_le_bytes());
    assert_eq!(
        NavWorld::load(&b).unwrap_err(),
        FormatError::Version {
            what: "ONNW",
            found: 0,
            expected: 1
        }
    );
    let mut b = good.clone();
    b[7] = 0x80;
    assert_eq!(malformed_at(NavWorld::load(&b).unwrap_err()), "ONNW flags");
    // No class.
    assert_eq!(
        malformed_at(NavWorld::load(&write_onnw(&[])).unwrap_err()),
        "class count"
    );
    // A class count over the bytes left / 8.
    let mut b = good.clone();
    let over = ((good.len() - 12) / 8 + 1) as u32;
    b[8..12].copy_from_slice(&over.to_le_bytes());
    assert_eq!(malformed_at(NavWorld::load(&b).unwrap_err()), "class count");
    // A count that fits but names more classes than there are.
    let mut b = good.clone();
    b[8..12].copy_from_slice(&3u32.to_le_bytes());
    assert_eq!(
        malformed_at(NavWorld::load(&b).unwrap_err()),
        "class 2: length"
    );
    // Trailing bytes.
    let mut b = good.clone();
    b.extend_from_slice(&[0; 3]);
    assert_eq!(malformed_at(NavWorld::load(&b).unwrap_err()), "ONNW");
    // An error inside a class is named within it.
    let l0 = u32_at(&good, 12);
    let mut b = good.clone();
    b[16 + l0 + 4 + 4] = 5; // class 1's ONNM version
    assert_eq!(
        NavWorld::load(&b).unwrap_err(),
        FormatError::Version {
            what: "ONNM",
            found: 5,
            expected: 1
        }
    );
    let mut b = good;
    let s1 = 16 + l0 + 4 + 12; // class 1's settings
    b[s1 + 54..s1 + 58].copy_from_slice(&(-1.0f32).to_le_bytes());
    assert_eq!(
        malformed_at(NavWorld::load(&b).unwrap_err()),
        "class 1: settings: AgentMaxSlope"
    );
}

#[test]
fn read_onnm_returns_the_settings_and_the_mesh() {
    let n = nav();
    let (s, m) = read_onnm(&n.save()).unwrap();
    assert_eq!(&s, n.settings());
    assert_eq!(&m, n.mesh());
}
