//! Which OnePath file a byte string is, by its four-byte magic.

use serde::Serialize;

/// The file kinds the command reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FileKind {
    /// One tile (ONPT).
    Onpt,
    /// A navigation mesh with the settings it was built with (ONNM).
    Onnm,
    /// A world of agent classes, one ONNM per class (ONNW).
    Onnw,
    /// A tiled navigation mesh (ONPM).
    Onpm,
    /// A navigation mesh snapshot (ONPS).
    Onps,
    /// A tile cache snapshot (ONTK).
    Ontk,
    /// A grid or graph state (OPGS).
    Opgs,
}

impl FileKind {
    /// Every kind with its magic, in this order.
    pub const ALL: [(FileKind, [u8; 4]); 7] = [
        (FileKind::Onpt, onepath_format::ONPT_MAGIC),
        (FileKind::Onnm, onepath::envelope::ONNM_MAGIC),
        (FileKind::Onnw, onepath::envelope::ONNW_MAGIC),
        (FileKind::Onpm, onepath_mesh::ONPM_MAGIC),
        (FileKind::Onps, onepath_snapshot::ONPS_MAGIC),
        (FileKind::Ontk, onepath_tilecache::ONTK_MAGIC),
        (FileKind::Opgs, onepath_gridstate::STATE_MAGIC),
    ];

    /// The kind whose magic `bytes` start with.
    pub fn detect(bytes: &[u8]) -> Option<FileKind> {
        let head = bytes.get(..4)?;
        Self::ALL
            .iter()
            .find(|(_, m)| head == m.as_slice())
            .map(|&(k, _)| k)
    }

    /// The magic as text (`"ONPM"`).
    pub fn magic(self) -> &'static str {
        match self {
            FileKind::Onpt => "ONPT",
            FileKind::Onnm => "ONNM",
            FileKind::Onnw => "ONNW",
            FileKind::Onpm => "ONPM",
            FileKind::Onps => "ONPS",
            FileKind::Ontk => "ONTK",
            FileKind::Opgs => "OPGS",
        }
    }

    /// What the kind holds, in words.
    pub fn description(self) -> &'static str {
        match self {
            FileKind::Onpt => "navigation mesh tile",
            FileKind::Onnm => "navigation mesh with its settings",
            FileKind::Onnw => "navigation world of agent classes",
            FileKind::Onpm => "tiled navigation mesh",
            FileKind::Onps => "navigation mesh snapshot",
            FileKind::Ontk => "tile cache snapshot",
            FileKind::Opgs => "grid or graph state",
        }
    }
}

/// The "not a OnePath file" message: what the first bytes are and which magics are known.
pub fn unknown_magic(bytes: &[u8]) -> String {
    let known: Vec<&str> = FileKind::ALL.iter().map(|(k, _)| k.magic()).collect();
    match bytes.get(..4) {
        None => format!(
            "{} bytes is too short for a OnePath file (4-byte magic: one of {})",
            bytes.len(),
            known.join(", ")
        ),
        Some(head) => format!(
            "not a OnePath file: magic {} is none of {}",
            show_magic(head),
            known.join(", ")
        ),
    }
}

fn show_magic(head: &[u8]) -> String {
    if head.iter().all(|b| b.is_ascii_graphic()) {
        format!("\"{}\"", String::from_utf8_lossy(head))
    } else {
        let hex: Vec<String> = head.iter().map(|b| format!("{b:02x}")).collect();
        format!("0x{}", hex.join(""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_magic_is_detected_and_nothing_else() {
        for (k, m) in FileKind::ALL {
            assert_eq!(FileKind::detect(&m), Some(k));
            assert_eq!(k.magic().as_bytes(), m);
        }
        assert_eq!(FileKind::detect(b"ONP"), None);
        assert_eq!(FileKind::detect(b"XXXXYYYY"), None);
        assert_eq!(
            unknown_magic(b"\x00\x01\x02\x03"),
            "not a OnePath file: magic 0x00010203 is none of ONPT, ONNM, ONNW, ONPM, ONPS, ONTK, OPGS"
        );
    }
}
