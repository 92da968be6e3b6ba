//! Tiles: the hand-built / builder-filled [`NavTileData`] and the validated, immutable
//! [`NavTile`].

use std::sync::Arc;

use crate::error::FormatError;
use crate::params::{Fingerprint, NavMeshParams};

/// Largest layer index of a tile column.
pub const MAX_LAYER: u16 = 1023;
/// Largest polygon area value.
pub const MAX_AREA: u8 = 63;
/// Edge portal side value meaning "not a portal".
pub const NO_PORTAL: u8 = 0xFF;

/// One polygon's detail sub-mesh: ranges into the tile's detail vertex and triangle arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DetailMesh {
    /// First detail vertex of this polygon.
    pub vertex_base: u32,
    /// Number of detail vertices of this polygon.
    pub vertex_count: u32,
    /// First detail triangle of this polygon.
    pub triangle_base: u32,
    /// Number of detail triangles of this polygon.
    pub triangle_count: u32,
}

/// One detail triangle: three vertex indices (polygon vertices first, then the polygon's
/// detail vertices) and edge flags (bit k: edge k lies on the polygon boundary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DetailTriangle {
    /// Vertex indices.
    pub v: [u8; 3],
    /// Edge flags.
    pub edge_flags: u8,
}

/// An off-mesh link slot as stored in a tile (tile-local coordinates).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OffMeshLinkSlot {
    /// Start point, tile-local (X/Z against the tile origin, Y against the tile's OriginY).
    pub start: [f32; 3],
    /// End point in the owning tile's frame (may lie in any tile).
    pub end: [f32; 3],
    /// Attachment radius, > 0.
    pub radius: f32,
    /// Area of the link, 0..=63.
    pub area: u8,
    /// Whether the link may also be taken from end to start.
    pub bidirectional: bool,
    /// Polygon flags of the link.
    pub flags: u16,
    /// Caller's id.
    pub user_id: u32,
}

/// The raw content of a tile, as a builder or a hand-written test fills it. Structure of
/// arrays, exactly the ONPT arrays. [`NavTile::create`] validates it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NavTileData {
    /// Tile column.
    pub tile_x: i32,
    /// Tile row.
    pub tile_z: i32,
    /// Layer, 0..=1023.
    pub layer: u16,
    /// World Y of the tile's local origin (finite, strictly within ±2^21).
    pub origin_y: f64,
    /// Vertices, tile-local.
    pub vertices: Vec<[f32; 3]>,
    /// Vertex count of each polygon (3..=MaxVertsPerPoly).
    pub poly_sizes: Vec<u8>,
    /// Area of each polygon (0..=63).
    pub poly_areas: Vec<u8>,
    /// Flags of each polygon.
    pub poly_flags: Vec<u16>,
    /// Corner vertex indices; polygon p owns the next `poly_sizes[p]` entries.
    pub corners: Vec<u16>,
    /// Per corner (edge k runs from corner k to k+1): 0 none, else in-tile polygon + 1.
    pub edge_neighbours: Vec<u32>,
    /// Per corner: [`NO_PORTAL`] or portal side 0..=3.
    pub edge_portal_sides: Vec<u8>,
    /// Per polygon detail mesh (empty, or one per polygon).
    pub detail_meshes: Vec<DetailMesh>,
    /// Detail vertices, tile-local.
    pub detail_vertices: Vec<[f32; 3]>,
    /// Detail triangles.
    pub detail_triangles: Vec<DetailTriangle>,
    /// Off-mesh link slots.
    pub off_mesh_links: Vec<OffMeshLinkSlot>,
}

/// The immutable part of a validated tile, shared (`Arc`) between every mesh and copy
/// that holds the tile.
#[derive(Debug, PartialEq)]
pub struct TileGeometry {
    /// The tile's data as validated. Areas and flags here are the as-built values.
    pub data: NavTileData,
    /// Derived: index of each polygon's first corner (prefix sums of `poly_sizes`), plus
    /// one final entry equal to the corner count.
    pub poly_first_corner: Vec<u32>,
    /// Derived: the portal edges on each side 0..=3 in portal order (polygon, then edge),
    /// found once when the tile is made, for stitching (which reads them whenever the tile
    /// or a neighbour is stitched).
    pub portal_edges: [Vec<PortalEdge>; 4],
}

/// One portal edge of a tile (an edge whose `edge_portal_sides` entry names a side 0..=3),
/// ready for stitching's overlap test: its coordinates along that side's boundary and its
/// world heights.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PortalEdge {
    /// Polygon index.
    pub poly: u32,
    /// Edge index within the polygon.
    pub edge: u8,
    /// Coordinate along the boundary of the edge's first vertex (tile-local, exact f32).
    pub u0: f64,
    /// Coordinate along the boundary of the edge's second vertex.
    pub u1: f64,
    /// World height of the first vertex: `OriginY + y`.
    pub h0: f64,
    /// World height of the second vertex.
    pub h1: f64,
}

impl PortalEdge {
    /// Edge `edge` of polygon `poly`, from tile-local vertex `a` to `b`, along `axis`
    /// (0 = X, 2 = Z), with world heights over `origin_y`.
    pub fn between(
        (poly, edge): (u32, u8),
        a: [f32; 3],
        b: [f32; 3],
        axis: usize,
        origin_y: f64,
    ) -> PortalEdge {
        PortalEdge {
            poly,
            edge,
            u0: f64::from(a[axis]),
            u1: f64::from(b[axis]),
            h0: origin_y + f64::from(a[1]),
            h1: origin_y + f64::from(b[1]),
        }
    }

    /// World height at boundary coordinate `u`, linearly interpolated from the first vertex:
    /// `h0 + (h1 − h0)·((u − u0)/(u1 − u0))`, exact at both vertices.
    pub fn height_at(&self, u: f64) -> f64 {
        if u == self.u0 {
            self.h0
        } else if u == self.u1 {
            self.h1
        } else {
            self.h0 + (self.h1 - self.h0) * ((u - self.u0) / (self.u1 - self.u0))
        }
    }

    /// Edge parameter of `u` measured from the first vertex: `(u − u0)/(u1 − u0)`.
    pub fn param_at(&self, u: f64) -> f64 {
        (u - self.u0) / (self.u1 - self.u0)
    }

    /// The lower end of the edge's interval along the boundary.
    pub fn lo(&self) -> f64 {
        self.u0.min(self.u1)
    }

    /// The upper end of the edge's interval along the boundary.
    pub fn hi(&self) -> f64 {
        self.u0.max(self.u1)
    }
}

/// The coordinate index (0 = X, 2 = Z) that runs along the boundary of `side`.
pub fn boundary_axis(side: u8) -> usize {
    if side & 1 == 0 {
        2
    } else {
        0
    }
}

/// The portal edges of each side (see [`TileGeometry::portal_edges`]): one count pass over
/// the side bytes (each side allocated once), then one over the polygons.
fn portal_edges_of(data: &NavTileData, first_corner: &[u32]) -> [Vec<PortalEdge>; 4] {
    let mut count = [0usize; 4];
    for &s in &data.edge_portal_sides {
        if s < 4 {
            count[usize::from(s)] += 1;
        }
    }
    let mut out: [Vec<PortalEdge>; 4] = count.map(Vec::with_capacity);
    for (p, w) in first_corner.windows(2).enumerate() {
        let (start, end) = (w[0] as usize, w[1] as usize);
        let n = end - start;
        for k in 0..n {
            let c = start + k;
            let side = data.edge_portal_sides.get(c).copied().unwrap_or(NO_PORTAL);
            if side >= 4 {
                continue;
            }
            let vertex = |c: usize| {
                data.corners
                    .get(c)
                    .and_then(|&v| data.vertices.get(usize::from(v)))
                    .copied()
            };
            // A validated tile has every corner and vertex.
            let (Some(a), Some(b)) = (vertex(c), vertex(start + (k + 1) % n)) else {
                continue;
            };
            out[usize::from(side)].push(PortalEdge::between(
                (p as u32, k as u8),
                a,
                b,
                boundary_axis(side),
                data.origin_y,
            ));
        }
    }
    out
}

/// A validated tile. Immutable geometry is shared; the tile also carries *current* areas,
/// flags and off-mesh link switches (equal to the as-built values for a freshly created
/// or read tile; a tile taken from an edited mesh carries that mesh's current values).
#[derive(Debug, Clone, PartialEq)]
pub struct NavTile {
    fingerprint: Fingerprint,
    geometry: Arc<TileGeometry>,
    areas: Arc<[u8]>,
    flags: Arc<[u16]>,
    link_enabled: Arc<[bool]>,
}

impl NavTile {
    /// Validates `data` against `params` (every tile rule, in the order listed in
    /// `docs/navmesh-format.md`; the error names the array, polygon, edge or link) and
    /// creates the tile, which records `params.fingerprint()`. Invalid `params` are an error
    /// too (prefixed `parameters:`).
    pub fn create(params: &NavMeshParams, data: NavTileData) -> Result<NavTile, FormatError> {
        Self::create_with_fingerprint(params, params.fingerprint(), data)
    }

    /// [`NavTile::create`] with `params.fingerprint()` given (every check made, the same
    /// tile), for a host that creates many tiles against one parameter block and hashed it
    /// once. Not a public interface: a `fingerprint` other than `params.fingerprint()` would
    /// make a tile that claims other parameters (checked in debug builds).
    #[doc(hidden)]
    pub fn create_with_fingerprint(
        params: &NavMeshParams,
        fingerprint: Fingerprint,
        data: NavTileData,
    ) -> Result<NavTile, FormatError> {
        params.validate().map_err(|e| e.within("parameters"))?;
        debug_assert_eq!(fingerprint, params.fingerprint());
        crate::validate::validate_tile(params, &data)?;
        Ok(Self::from_valid(fingerprint, data))
    }

    /// Builds the tile from data already validated.
    pub(crate) fn from_valid(fingerprint: Fingerprint, data: NavTileData) -> NavTile {
        let mut poly_first_corner = Vec::with_capacity(data.poly_sizes.len() + 1);
        let mut acc = 0u32;
        for &s in &data.poly_sizes {
            poly_first_corner.push(acc);
            acc += u32::from(s);
        }
        poly_first_corner.push(acc);
        let areas: Arc<[u8]> = Arc::from(data.poly_areas.as_slice());
        let flags: Arc<[u16]> = Arc::from(data.poly_flags.as_slice());
        let link_enabled: Arc<[bool]> = vec![true; data.off_mesh_links.len()].into();
        NavTile {
            fingerprint,
            geometry: Arc::new(TileGeometry {
                portal_edges: portal_edges_of(&data, &poly_first_corner),
                data,
                poly_first_corner,
            }),
            areas,
            flags,
            link_enabled,
        }
    }

    /// The same tile with other current areas, flags and link switches (what a mesh hands out
    /// from `get_tile`). The as-built values are unchanged. Fails when a length differs from
    /// the tile's counts or an area is above 63.
    pub fn with_current_state(
        &self,
        areas: Arc<[u8]>,
        flags: Arc<[u16]>,
        link_enabled: Arc<[bool]>,
    ) -> Result<NavTile, FormatError> {
        let n = self.poly_count();
        if areas.len() != n {
            return Err(FormatError::malformed(
                "areas",
                format!("{} values for {n} polygons", areas.len()),
            ));
        }
        if flags.len() != n {
            return Err(FormatError::malformed(
                "flags",
                format!("{} values for {n} polygons", flags.len()),
            ));
        }
        if let Some(p) = areas.iter().position(|&a| a > MAX_AREA) {
            return Err(FormatError::malformed(
                format!("polygon {p}: area"),
                format!("{} is above {MAX_AREA}", areas[p]),
            ));
        }
        let l = self.data().off_mesh_links.len();
        if link_enabled.len() != l {
            return Err(FormatError::malformed(
                "link switches",
                format!("{} values for {l} off-mesh links", link_enabled.len()),
            ));
        }
        Ok(NavTile {
            fingerprint: self.fingerprint,
            geometry: Arc::clone(&self.geometry),
            areas,
            flags,
            link_enabled,
        })
    }

    /// The fingerprint of the parameters the tile was created against.
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// The shared immutable geometry.
    pub fn geometry(&self) -> &Arc<TileGeometry> {
        &self.geometry
    }

    /// The tile's portal edges on `side` (0..=3; any other side has none), in portal order
    /// (polygon, then edge).
    pub fn portal_edges(&self, side: u8) -> &[PortalEdge] {
        self.geometry
            .portal_edges
            .get(usize::from(side))
            .map_or(&[], Vec::as_slice)
    }

    /// The tile's data (areas and flags in it are the as-built values).
    pub fn data(&self) -> &NavTileData {
        &self.geometry.data
    }

    /// (TileX, TileZ, Layer).
    pub fn position(&self) -> (i32, i32, u16) {
        let d = &self.geometry.data;
        (d.tile_x, d.tile_z, d.layer)
    }

    /// Number of polygons.
    pub fn poly_count(&self) -> usize {
        self.geometry.data.poly_sizes.len()
    }

    /// The corner range of polygon `p` (indices into `corners`, `edge_neighbours`,
    /// `edge_portal_sides`). Panics if `p` is out of range.
    pub fn poly_corners(&self, p: usize) -> std::ops::Range<usize> {
        let f = &self.geometry.poly_first_corner;
        f[p] as usize..f[p + 1] as usize
    }

    /// Current areas.
    pub fn areas(&self) -> &Arc<[u8]> {
        &self.areas
    }

    /// Current flags.
    pub fn flags(&self) -> &Arc<[u16]> {
        &self.flags
    }

    /// Current off-mesh link switches (true = enabled).
    pub fn link_enabled(&self) -> &Arc<[bool]> {
        &self.link_enabled
    }

    /// As-built areas.
    pub fn as_built_areas(&self) -> &[u8] {
        &self.geometry.data.poly_areas
    }

    /// As-built flags.
    pub fn as_built_flags(&self) -> &[u16] {
        &self.geometry.data.poly_flags
    }
}
