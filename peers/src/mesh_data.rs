//! Plain, owned copies of Recast's polygon and detail meshes, and the input of
//! `dtCreateNavMeshData` ([`DetourTileInput`]) with the checks that make handing it to C++
//! sound.

use crate::error::PeerError;

/// `rcPolyMesh` / `dtNavMeshCreateParams` "no vertex" and "no neighbour" value.
pub const NULL_INDEX: u16 = 0xffff;
/// Neighbour-code bit marking a tile-border edge (low 4 bits: 0 x-, 1 z+, 2 x+, 3 z-,
/// 0xf: border without portal).
pub const PORTAL_BIT: u16 = 0x8000;
/// Detour's largest polygon vertex count (`DT_VERTS_PER_POLYGON`).
pub const DETOUR_MAX_VERTS_PER_POLY: usize = 6;
/// Largest area id Detour stores (6 bits).
pub const MAX_AREA: u8 = 63;
/// Every world coordinate handed to Detour (tile bounds, vertices, detail vertices, query
/// points) must lie strictly within ±this (OnePath's coordinate bound, 2^21). It keeps every
/// squared distance Detour forms finite: Detour dereferences a null pointer when all the
/// distances it compares are infinite.
pub const COORD_LIMIT: f64 = onepath_format::COORD_BOUND;
/// Detour's detail-edge "on the polygon boundary" bit for each of the 3 edges (2 bits each).
pub const DETAIL_BOUNDARY_BITS: u8 = 0b01_01_01;

/// Checks that a world point is finite and strictly within ±[`COORD_LIMIT`].
pub fn check_point(at: &str, p: [f32; 3]) -> Result<(), PeerError> {
    match p
        .iter()
        .find(|v| !(v.is_finite() && f64::from(v.abs()) < COORD_LIMIT))
    {
        Some(v) => Err(PeerError::input(
            at,
            format!("coordinate {v} is not finite and strictly within ±{COORD_LIMIT}"),
        )),
        None => Ok(()),
    }
}

/// One tile's polygon mesh as `rcBuildPolyMesh` leaves it, copied out of C++.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolyMeshData {
    /// Minimum bounds (the tile's, without the border), world units.
    pub bmin: [f32; 3],
    /// Maximum bounds, world units.
    pub bmax: [f32; 3],
    /// Cell size, world units.
    pub cs: f32,
    /// Cell height, world units.
    pub ch: f32,
    /// Largest vertex count per polygon (stride of `polys` is `2 * nvp`).
    pub nvp: usize,
    /// Vertices in voxel units from `bmin`: world = bmin + v * (cs, ch, cs).
    pub vertices: Vec<[u16; 3]>,
    /// Per polygon: `nvp` vertex indices ([`NULL_INDEX`] padded), then `nvp` neighbour codes
    /// (polygon index, [`NULL_INDEX`], or [`PORTAL_BIT`] | side).
    pub polys: Vec<u16>,
    /// Region id of each polygon.
    pub regions: Vec<u16>,
    /// Flags of each polygon.
    pub flags: Vec<u16>,
    /// Area id of each polygon.
    pub areas: Vec<u8>,
}

impl PolyMeshData {
    /// Number of polygons.
    pub fn poly_count(&self) -> usize {
        self.areas.len()
    }

    /// The vertex indices of polygon `p` (without padding). Panics if `p` is out of range.
    pub fn poly_vertices(&self, p: usize) -> &[u16] {
        let row = &self.polys[p * 2 * self.nvp..p * 2 * self.nvp + self.nvp];
        let n = row
            .iter()
            .position(|&v| v == NULL_INDEX)
            .unwrap_or(self.nvp);
        &row[..n]
    }

    /// World position of vertex `v`, computed in float32 exactly as `dtCreateNavMeshData`
    /// dequantizes it. Panics if `v` is out of range.
    pub fn world_vertex(&self, v: usize) -> [f32; 3] {
        let q = self.vertices[v];
        [
            self.bmin[0] + f32::from(q[0]) * self.cs,
            self.bmin[1] + f32::from(q[1]) * self.ch,
            self.bmin[2] + f32::from(q[2]) * self.cs,
        ]
    }

    /// Sum of the polygons' areas in the X/Z plane, world units². Computed exactly in
    /// integer voxel units (shoelace), then scaled once by `cs²` in float64.
    pub fn walkable_area(&self) -> f64 {
        let mut twice: i64 = 0;
        for p in 0..self.poly_count() {
            let vs = self.poly_vertices(p);
            let mut s: i64 = 0;
            for k in 0..vs.len() {
                let a = self.vertices[usize::from(vs[k])];
                let b = self.vertices[usize::from(vs[(k + 1) % vs.len()])];
                s += i64::from(a[0]) * i64::from(b[2]) - i64::from(b[0]) * i64::from(a[2]);
            }
            twice += s.abs();
        }
        let cs = f64::from(self.cs);
        twice as f64 * 0.5 * cs * cs
    }
}

/// One tile's detail mesh as `rcBuildPolyMeshDetail` leaves it, copied out of C++.
/// Each polygon's vertex range starts with the polygon's own vertices.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DetailMeshData {
    /// Per polygon: vertex base, vertex count, triangle base, triangle count.
    pub meshes: Vec<[u32; 4]>,
    /// Vertices, world units.
    pub vertices: Vec<[f32; 3]>,
    /// Triangles: three indices relative to the polygon's vertex base, then edge flags.
    pub triangles: Vec<[u8; 4]>,
}

/// Everything `dtCreateNavMeshData` reads for one tile without off-mesh links, owned.
/// [`DetourTileInput::validate`] checks every index and count C++ would follow.
#[derive(Debug, Clone, PartialEq)]
pub struct DetourTileInput {
    /// Tile column.
    pub tile_x: i32,
    /// Tile row (Detour's `tileY`, along Z).
    pub tile_z: i32,
    /// Tile layer.
    pub layer: i32,
    /// Polygon mesh (vertices in voxel units from `bmin`).
    pub mesh: PolyMeshData,
    /// Height detail; `None` lets Detour fan-triangulate each polygon.
    pub detail: Option<DetailMeshData>,
    /// Agent height, world units.
    pub walkable_height: f32,
    /// Agent radius, world units.
    pub walkable_radius: f32,
    /// Agent climb, world units.
    pub walkable_climb: f32,
    /// Whether Detour builds the tile's bounding-volume tree.
    pub build_bv_tree: bool,
}

fn fits_i32(what: &str, n: usize) -> Result<i32, PeerError> {
    i32::try_from(n).map_err(|_| PeerError::input(what, format!("{n} does not fit an int")))
}

impl DetourTileInput {
    /// Checks every precondition of `dtCreateNavMeshData` and of the queries that later
    /// follow the tile's indices: counts that fit, vertex indices in range, neighbour codes
    /// naming existing polygons or a valid side, areas ≤ 63, detail ranges inside their
    /// arrays and detail triangle indices inside their polygon's range.
    pub fn validate(&self) -> Result<(), PeerError> {
        let m = &self.mesh;
        let nvp = m.nvp;
        if !(3..=DETOUR_MAX_VERTS_PER_POLY).contains(&nvp) {
            return Err(PeerError::input("nvp", format!("{nvp} is not in 3..=6")));
        }
        let vert_count = m.vertices.len();
        if vert_count == 0 || vert_count >= usize::from(NULL_INDEX) {
            return Err(PeerError::input(
                "vertices",
                format!("{vert_count} vertices, needs 1..65535"),
            ));
        }
        let poly_count = m.areas.len();
        if poly_count == 0 {
            return Err(PeerError::input("polygons", "no polygons"));
        }
        fits_i32("polygon count", poly_count)?;
        if m.flags.len() != poly_count {
            return Err(PeerError::input(
                "flags",
                format!("{} values for {poly_count} polygons", m.flags.len()),
            ));
        }
        let stride = 2 * nvp;
        if poly_count.checked_mul(stride) != Some(m.polys.len()) {
            return Err(PeerError::input(
                "polys",
                format!(
                    "{} entries for {poly_count} polygons of stride {stride}",
                    m.polys.len()
                ),
            ));
        }
        let finite = m.bmin.iter().chain(&m.bmax).all(|v| v.is_finite());
        let steps_ok = m.cs > 0.0 && m.cs.is_finite() && m.ch > 0.0 && m.ch.is_finite();
        if !(finite && steps_ok) {
            return Err(PeerError::input(
                "bounds",
                "bmin, bmax must be finite, cs and ch positive",
            ));
        }
        check_point("bmin", m.bmin)?;
        check_point("bmax", m.bmax)?;
        for (i, v) in m.vertices.iter().enumerate() {
            let world = [
                f64::from(m.bmin[0]) + f64::from(v[0]) * f64::from(m.cs),
                f64::from(m.bmin[1]) + f64::from(v[1]) * f64::from(m.ch),
                f64::from(m.bmin[2]) + f64::from(v[2]) * f64::from(m.cs),
            ];
            if world.iter().any(|c| c.abs() >= COORD_LIMIT) {
                return Err(PeerError::input(
                    format!("vertex {i}"),
                    format!("world position {world:?} is not strictly within ±{COORD_LIMIT}"),
                ));
            }
        }
        for p in 0..poly_count {
            let row = &m.polys[p * stride..(p + 1) * stride];
            let nv = row[..nvp]
                .iter()
                .position(|&v| v == NULL_INDEX)
                .unwrap_or(nvp);
            let at = |what: &str| format!("polygon {p}: {what}");
            if nv < 3 {
                return Err(PeerError::input(
                    at("vertices"),
                    format!("{nv} vertices, needs 3"),
                ));
            }
            if let Some(k) = row[nv..nvp].iter().position(|&v| v != NULL_INDEX) {
                return Err(PeerError::input(
                    at(&format!("vertex slot {}", nv + k)),
                    "padding after the first null index is not null",
                ));
            }
            for (k, &v) in row[..nv].iter().enumerate() {
                if usize::from(v) >= vert_count {
                    return Err(PeerError::input(
                        at(&format!("vertex {k}")),
                        format!("index {v} is not below the vertex count {vert_count}"),
                    ));
                }
            }
            for (k, &code) in row[nvp..nvp + nv].iter().enumerate() {
                let ok = if code & PORTAL_BIT != 0 {
                    matches!(code & 0xf, 0..=3 | 0xf)
                } else {
                    usize::from(code) < poly_count
                };
                if !ok {
                    return Err(PeerError::input(
                        at(&format!("edge {k}")),
                        format!("neighbour code {code:#06x} names no polygon and no side"),
                    ));
                }
            }
            if m.areas[p] > MAX_AREA {
                return Err(PeerError::input(
                    at("area"),
                    format!("{} is above 63", m.areas[p]),
                ));
            }
        }
        if let Some(d) = &self.detail {
            self.validate_detail(d)?;
        }
        Ok(())
    }

    fn validate_detail(&self, d: &DetailMeshData) -> Result<(), PeerError> {
        let m = &self.mesh;
        if d.meshes.len() != m.poly_count() {
            return Err(PeerError::input(
                "detail meshes",
                format!("{} for {} polygons", d.meshes.len(), m.poly_count()),
            ));
        }
        fits_i32("detail vertex count", d.vertices.len())?;
        fits_i32("detail triangle count", d.triangles.len())?;
        for (i, v) in d.vertices.iter().enumerate() {
            check_point(&format!("detail vertex {i}"), *v)?;
        }
        let mut unique: usize = 0;
        for (p, &[vb, nd, tb, nt]) in d.meshes.iter().enumerate() {
            let at = |what: &str| format!("polygon {p}: detail {what}");
            let nv = m.poly_vertices(p).len();
            let (vb, nd, tb, nt) = (vb as usize, nd as usize, tb as usize, nt as usize);
            if nd < nv || nd - nv > 255 {
                return Err(PeerError::input(
                    at("vertex count"),
                    format!(
                        "{nd} for a polygon of {nv} vertices (needs {nv}..={})",
                        nv + 255
                    ),
                ));
            }
            if vb
                .checked_add(nd)
                .map_or(true, |end| end > d.vertices.len())
            {
                return Err(PeerError::input(
                    at("vertex range"),
                    format!("{vb}+{nd} exceeds {} vertices", d.vertices.len()),
                ));
            }
            if nt > 255
                || tb
                    .checked_add(nt)
                    .map_or(true, |end| end > d.triangles.len())
            {
                return Err(PeerError::input(
                    at("triangle range"),
                    format!("{tb}+{nt} exceeds {} triangles or 255", d.triangles.len()),
                ));
            }
            for (t, tri) in d.triangles[tb..tb + nt].iter().enumerate() {
                if let Some(k) = tri[..3].iter().position(|&i| usize::from(i) >= nd) {
                    return Err(PeerError::input(
                        at(&format!("triangle {t}")),
                        format!("index {} is not below {nd}", tri[k]),
                    ));
                }
            }
            // Detour's closest-point search starts from a boundary edge of the detail mesh
            // and dereferences a null pointer when a polygon has none.
            if !d.triangles[tb..tb + nt]
                .iter()
                .any(|t| t[3] & DETAIL_BOUNDARY_BITS != 0)
            {
                return Err(PeerError::input(
                    at("edge flags"),
                    "no detail triangle edge is marked as polygon boundary (Detour needs one)",
                ));
            }
            unique += nd - nv;
        }
        // Detour counts the unique detail vertices of a tile in an unsigned short.
        if unique > usize::from(u16::MAX) {
            return Err(PeerError::input(
                "detail vertices",
                format!("{unique} unique detail vertices, at most 65535"),
            ));
        }
        Ok(())
    }
}
