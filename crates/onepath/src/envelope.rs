//! The tier-1 envelopes: ONNM (one mesh with the settings it was built with) and ONNW (a
//! world of agent classes, one ONNM per class). `docs/navmesh-format.md`, "ONNM envelope".
//!
//! Both readers never panic: every length is checked against the bytes that remain before
//! anything is read or allocated, and every failure is a [`FormatError`] naming the field.

use onepath_format::bytes::{ByteReader, ByteWriter};
use onepath_format::settings::{decode_settings, encode_settings};
use onepath_format::{FormatError, NavMeshParams, NavSettings};
use onepath_mesh::{NavMeshSerializer, TiledNavMesh, ONPM_MAGIC};

/// ONNM magic, "ONNM".
pub const ONNM_MAGIC: [u8; 4] = *b"ONNM";
/// The ONNM version this crate writes and reads.
pub const ONNM_VERSION: u16 = 1;
/// ONNW magic, "ONNW".
pub const ONNW_MAGIC: [u8; 4] = *b"ONNW";
/// The ONNW version this crate writes and reads.
pub const ONNW_VERSION: u16 = 1;
/// The smallest number of bytes one ONNW class can take, the bound of the class count
/// (`class count ≤ remaining bytes / 8`).
pub const ONNW_MIN_CLASS_LEN: usize = 8;

fn len_u32(n: usize) -> u32 {
    // A settings body or a mesh longer than 4 GiB cannot be written into a u32 length;
    // such a mesh exceeds the slot and tile limits long before.
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Writes an ONNM envelope: the settings encoding, then the ONPM bytes of `mesh`.
pub fn write_onnm(settings: &NavSettings, mesh: &TiledNavMesh) -> Vec<u8> {
    let body = encode_settings(settings);
    let onpm = NavMeshSerializer::write_mesh(mesh);
    let mut w = ByteWriter::with_capacity(16 + body.len() + onpm.len());
    w.bytes(&ONNM_MAGIC);
    w.u16(ONNM_VERSION);
    w.u16(0);
    w.u32(len_u32(body.len()));
    w.bytes(&body);
    w.u32(len_u32(onpm.len()));
    w.bytes(&onpm);
    w.into_vec()
}

/// Checks that `settings` produce exactly the mesh's parameter block (grid, agent class
/// and settings digest); otherwise a [`FormatError::Fingerprint`] at `at` with the
/// fingerprint the mesh's tiles carry (`found`) and the one the settings produce
/// (`expected`). Settings that produce no valid parameters are a
/// [`FormatError::Malformed`] naming the setting.
pub fn check_settings(
    settings: &NavSettings,
    mesh_params: &NavMeshParams,
    at: &str,
) -> Result<(), FormatError> {
    let want = settings.to_params()?;
    if want.to_block() != mesh_params.to_block() {
        return Err(FormatError::Fingerprint {
            at: at.to_string(),
            found: mesh_params.fingerprint(),
            expected: want.fingerprint(),
        });
    }
    Ok(())
}

/// Reads an ONNM envelope, in this order: magic, version (≠ 1 →
/// [`FormatError::Version`]), flags (0), the settings length and body (decoded through the
/// validating setters: a value out of range is `Malformed` naming it, within `settings`),
/// the mesh length and its ONPM bytes (within `mesh`), nothing after (`Malformed` at
/// `ONNM`), then the parameter block the settings produce against the mesh's
/// ([`FormatError::Fingerprint`] at `mesh parameters`).
pub fn read_onnm(bytes: &[u8]) -> Result<(NavSettings, TiledNavMesh), FormatError> {
    let mut r = ByteReader::new(bytes);
    r.header(&ONNM_MAGIC, "ONNM", ONNM_VERSION)?;
    let body = r.length_prefixed_bytes("settings length", "settings")?;
    let settings = decode_settings(body).map_err(|e| e.within("settings"))?;
    let onpm = r.length_prefixed_bytes("mesh length", "mesh")?;
    let mesh = NavMeshSerializer::read_mesh(onpm).map_err(|e| e.within("mesh"))?;
    r.expect_end("ONNM")?;
    check_settings(&settings, mesh.params(), "mesh parameters")?;
    Ok((settings, mesh))
}

/// Reads ONNM bytes, or bare ONPM bytes, against caller-supplied settings: the settings
/// must produce the mesh's parameter block ([`FormatError::Fingerprint`] at `settings`),
/// and for ONNM the envelope's own settings must as well ([`read_onnm`]).
pub fn read_with_settings(
    bytes: &[u8],
    settings: &NavSettings,
) -> Result<TiledNavMesh, FormatError> {
    let mesh = if bytes.starts_with(&ONPM_MAGIC) {
        NavMeshSerializer::read_mesh(bytes)?
    } else {
        read_onnm(bytes)?.1
    };
    check_settings(settings, mesh.params(), "settings")?;
    Ok(mesh)
}

/// Writes an ONNW envelope: the class count, then each class's ONNM envelope, length first.
pub fn write_onnw(classes: &[Vec<u8>]) -> Vec<u8> {
    let total: usize = classes.iter().map(|c| 4 + c.len()).sum();
    let mut w = ByteWriter::with_capacity(12 + total);
    w.bytes(&ONNW_MAGIC);
    w.u16(ONNW_VERSION);
    w.u16(0);
    w.u32(len_u32(classes.len()));
    for c in classes {
        w.u32(len_u32(c.len()));
        w.bytes(c);
    }
    w.into_vec()
}

/// Reads an ONNW envelope: magic, version (≠ 1 → [`FormatError::Version`]), flags (0), the
/// class count (at least 1, at most remaining bytes / 8), then per class `i` a length and
/// an ONNM envelope of that length (errors within `class i`), nothing after (`Malformed`
/// at `ONNW`). The classes keep their order.
pub fn read_onnw(bytes: &[u8]) -> Result<Vec<(NavSettings, TiledNavMesh)>, FormatError> {
    let mut r = ByteReader::new(bytes);
    r.header(&ONNW_MAGIC, "ONNW", ONNW_VERSION)?;
    let n = r.count("class count", ONNW_MIN_CLASS_LEN)?;
    if n == 0 {
        return Err(FormatError::malformed(
            "class count",
            "0 classes (a world has at least one)",
        ));
    }
    let mut classes = Vec::with_capacity(n);
    for i in 0..n {
        let body = r.length_prefixed_bytes(&format!("class {i}: length"), &format!("class {i}"))?;
        classes.push(read_onnm(body).map_err(|e| e.within(format!("class {i}")))?);
    }
    r.expect_end("ONNW")?;
    Ok(classes)
}
