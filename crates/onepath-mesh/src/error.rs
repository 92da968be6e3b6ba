//! Errors of the mesh API.

use onepath_format::{CoordinateError, FormatError, PolyRef, TileRef};
use onepath_stitch::StitchError;

/// A failed mesh operation. A failed operation leaves the mesh exactly as it was.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MeshError {
    /// A tile is already at this (column, row, layer).
    #[error("tile position ({x}, {z}, layer {layer}) is already occupied (slot {slot})")]
    OccupiedPosition {
        /// Tile column.
        x: i32,
        /// Tile row.
        z: i32,
        /// Layer.
        layer: u16,
        /// The slot holding the tile already there.
        slot: u32,
    },
    /// No tile at this (column, row, layer) (replace needs one).
    #[error("no tile at position ({x}, {z}, layer {layer})")]
    NoTileAtPosition {
        /// Tile column.
        x: i32,
        /// Tile row.
        z: i32,
        /// Layer.
        layer: u16,
    },
    /// The tile reference's slot is out of range, free, or of another generation.
    #[error("stale or unknown tile reference (salt {}, slot {})", .0.salt, .0.slot)]
    StaleTileRef(TileRef),
    /// The polygon reference is not valid in this mesh (stale salt, free or out-of-range
    /// slot, polygon index past the tile's count, or the null reference).
    #[error("invalid polygon reference {0:?}")]
    InvalidPolyRef(PolyRef),
    /// Every one of the 1 048 575 slots holds a tile.
    #[error("all {} tile slots are in use", onepath_format::MAX_SLOTS)]
    SlotsExhausted,
    /// A format error: a tile built against other parameters ([`FormatError::Fingerprint`]),
    /// or malformed data.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// A world coordinate outside ±2^21.
    #[error(transparent)]
    CoordinateOutOfRange(#[from] CoordinateError),
    /// A polygon area above 63.
    #[error("area {area} is above 63")]
    AreaOutOfRange {
        /// The area given.
        area: u8,
    },
    /// An off-mesh link index past the tile's link count.
    #[error("off-mesh link {link} is out of range (the tile has {count})")]
    LinkOutOfRange {
        /// The link index given.
        link: u32,
        /// The tile's off-mesh link count.
        count: u32,
    },
    /// A tile refused by the per-tile portal link cap: it and a tile facing it across a
    /// side would have more overlapping portal edge pairs than
    /// [`onepath_stitch::PORTAL_LINKS_PER_EDGE`] × their portal edges on that boundary
    /// ([`onepath_stitch::cap`]). The stitch error names the refused tile (its slot and
    /// position), the side, the facing tile, the counts and the bound. Checked for every
    /// tile that enters a mesh (add, replace, streaming, [`TiledNavMesh::from_slots`]),
    /// before anything changes.
    ///
    /// [`TiledNavMesh::from_slots`]: crate::TiledNavMesh::from_slots
    #[error("tile refused by the portal link cap: {0}")]
    PortalLinkCap(StitchError),
}
