//! The stitched links of one tile: per-polygon link lists (compressed rows) and the
//! attachment of the tile's own off-mesh links.

use onepath_format::PolyRef;

/// What kind of connection a link is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LinkKind {
    /// A portal link across a tile boundary.
    Portal {
        /// The side of the owning tile the portal lies on (0: +X, 1: +Z, 2: −X, 3: −Z).
        side: u8,
        /// Edge index within the owning polygon (edge k runs from corner k to corner k+1).
        edge: u8,
        /// Edge index within the target polygon of the matching portal edge.
        neighbour_edge: u8,
        /// Start of the covered part of the owning edge, in 1/255ths from its first vertex
        /// (floor, clamped to 0..=255).
        range_min: u8,
        /// End of the covered part of the owning edge, in 1/255ths from its first vertex
        /// (ceil, clamped to 0..=255).
        range_max: u8,
    },
    /// A forward off-mesh link leaving its start polygon.
    OffMesh {
        /// Index of the link slot in the owning tile (the tile of this polygon).
        link: u32,
    },
    /// The reverse direction of a bidirectional off-mesh link, leaving its end polygon.
    OffMeshReverse {
        /// Slot of the tile that owns the link.
        owner_slot: u32,
        /// Index of the link slot in the owning tile.
        link: u32,
    },
}

/// One directed link from a polygon to the polygon `target`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Link {
    /// The polygon the link leads to.
    pub target: PolyRef,
    /// What connects them.
    pub kind: LinkKind,
}

/// Where one off-mesh link slot of a tile attached (the result of off-mesh stitching).
///
/// Points are world-space: X/Z against the owning tile's origin, Y against its OriginY, all
/// in f64 (`origin + f64::from(local)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OffMeshConnection {
    /// The link's start point, world space.
    pub start: [f64; 3],
    /// The link's end point, world space.
    pub end: [f64; 3],
    /// The polygon of the owning tile the start attached to (`None`: no polygon qualified).
    pub start_poly: Option<PolyRef>,
    /// The polygon (of any layer of the column under the end) the end attached to.
    pub end_poly: Option<PolyRef>,
}

impl OffMeshConnection {
    /// True when both ends attached, so the link (and, if bidirectional, its reverse) exists.
    pub fn is_connected(&self) -> bool {
        self.start_poly.is_some() && self.end_poly.is_some()
    }
}

/// The links of one tile: for polygon `p`, `links()[first[p]..first[p + 1]]`, in the
/// order "Stitching (links)" prescribes; plus the attachment of each of the tile's own
/// off-mesh link slots, in slot order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TileLinks {
    first: Vec<u32>,
    links: Vec<Link>,
    off_mesh: Vec<OffMeshConnection>,
}

impl TileLinks {
    /// Builds the rows from per-polygon lists (already ordered); `capacity` is the expected
    /// number of links (only an allocation hint).
    pub(crate) fn from_rows(
        poly_count: usize,
        capacity: usize,
        mut rows: impl FnMut(usize, &mut Vec<Link>),
        off_mesh: Vec<OffMeshConnection>,
    ) -> TileLinks {
        let mut first = Vec::with_capacity(poly_count + 1);
        let mut links = Vec::with_capacity(capacity);
        for p in 0..poly_count {
            first.push(links.len() as u32);
            rows(p, &mut links);
        }
        first.push(links.len() as u32);
        TileLinks {
            first,
            links,
            off_mesh,
        }
    }

    /// Number of polygons the rows cover.
    pub fn poly_count(&self) -> usize {
        self.first.len().saturating_sub(1)
    }

    /// The links leaving polygon `p` (empty when `p` is out of range).
    pub fn poly_links(&self, p: usize) -> &[Link] {
        match (self.first.get(p), self.first.get(p + 1)) {
            (Some(&a), Some(&b)) => &self.links[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Every link of the tile, polygon by polygon.
    pub fn all_links(&self) -> &[Link] {
        &self.links
    }

    /// The attachment of each of the tile's off-mesh link slots, in slot order.
    pub fn off_mesh(&self) -> &[OffMeshConnection] {
        &self.off_mesh
    }
}
