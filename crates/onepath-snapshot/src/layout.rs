//! The ONPS layout constants and the snapshot modes ("Byte layout", "Modes").

use onepath_format::PARAMS_BLOCK_LEN;

/// The ONPS magic, "ONPS" (`4F 4E 50 53`).
pub const ONPS_MAGIC: [u8; 4] = *b"ONPS";
/// The ONPS version: the same as the mesh format's (2).
pub const ONPS_VERSION: u16 = onepath_format::FORMAT_VERSION;
/// Bytes before the section count: magic, version, flags, the 68-byte parameter block.
pub const ONPS_HEADER_LEN: usize = 8 + PARAMS_BLOCK_LEN;
/// Bytes of a section header: id u16, reserved u16, body length u32.
pub const SECTION_HEADER_LEN: usize = 8;
/// Id of the slots section, the only section of version 2.
pub const SECTION_SLOTS: u16 = 1;
/// Slot kind: a free slot.
pub const KIND_FREE: u8 = 0;
/// Slot kind: a tile stored inline (its as-built ONPT bytes).
pub const KIND_INLINE: u8 = 1;
/// Slot kind: a tile named by its 32-byte content id.
pub const KIND_REFERENCED: u8 = 2;
/// The slot kinds of ONPS, kind 0 first (what a slot's kind byte may be).
pub const ONPS_KINDS: &[&str] = &["free", "inline tile", "referenced tile"];
/// Bytes of one polygon edit: polygon u32, area u8, flags u16.
pub const EDIT_LEN: usize = 7;

/// How a snapshot stores the tiles of occupied slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SnapshotMode {
    /// Each tile's as-built ONPT bytes inline: the snapshot is self-contained (save files).
    #[default]
    Full,
    /// Each tile's 32-byte content id: restoring needs a
    /// [`TileLibrary`](crate::TileLibrary) holding every named tile (cheap per-frame
    /// snapshots for a host that keeps its tiles).
    Referenced,
}
