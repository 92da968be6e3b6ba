//! `onepath verify`: re-read a file, write it again with its own writer and compare.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::detect::FileKind;
use crate::load::{rewrite, GridObject, Loaded};

/// The outcome of a check.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The path given.
    pub file: String,
    /// The magic.
    pub kind: &'static str,
    /// SHA-256 of the canonical bytes (the writer's, equal to the file's when canonical).
    pub sha256: String,
    /// Whether the file is byte for byte what the writer gives.
    pub canonical: bool,
    /// The first offset where file and canonical bytes differ (the shorter length when one
    /// is a prefix of the other).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_difference: Option<usize>,
    /// File length.
    pub bytes: usize,
    /// Canonical length.
    pub canonical_bytes: usize,
}

/// SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::info::hex(&Sha256::digest(bytes))
}

/// Checks `bytes` (read as `loaded`) against its writer. Fails, naming why, when the file
/// cannot be written again without another object.
pub fn check(file: &str, bytes: &[u8], kind: FileKind, loaded: &Loaded) -> Result<Verdict, String> {
    let canonical = rewrite(bytes, loaded).ok_or_else(|| match loaded {
        Loaded::GridState(GridObject::Search(k)) => format!(
            "an OPGS {} state (kind {k}) is read against the object it searched; it cannot \
             be checked alone",
            crate::load::OPGS_KINDS[usize::from(k - 1)]
        ),
        _ => "a lone tile is read against its mesh's parameters: give the mesh with --with MESH"
            .to_string(),
    })?;
    let first_difference = if canonical == bytes {
        None
    } else {
        Some(
            canonical
                .iter()
                .zip(bytes)
                .position(|(a, b)| a != b)
                .unwrap_or(canonical.len().min(bytes.len())),
        )
    };
    Ok(Verdict {
        file: file.to_string(),
        kind: kind.magic(),
        sha256: sha256_hex(&canonical),
        canonical: first_difference.is_none(),
        first_difference,
        bytes: bytes.len(),
        canonical_bytes: canonical.len(),
    })
}

/// The verdict as one line.
pub fn to_text(v: &Verdict) -> String {
    match v.first_difference {
        None => format!("{}: {} canonical, sha256 {}", v.file, v.kind, v.sha256),
        Some(at) => format!(
            "{}: {} not canonical: first difference at byte {at} ({} bytes; canonical {} \
             bytes, sha256 {})",
            v.file, v.kind, v.bytes, v.canonical_bytes, v.sha256
        ),
    }
}
