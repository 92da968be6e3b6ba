//! A Detour navmesh from external polygon data: the way to hand the very same polygons to
//! OnePath's query layer and to Detour's and compare them query for query.
//!
//! Input is plain data ([`ExternalTile`]): world-space float32 vertices, polygons as vertex
//! index lists with one [`EdgeLink`] per edge, optional per-polygon detail meshes. Polygons
//! are given in OnePath's winding (counter-clockwise with X right and Z up: positive
//! Σ(xᵢ·zᵢ₊₁ − xᵢ₊₁·zᵢ)); Recast and Detour wind the other way, so the conversion reverses
//! each polygon (and remaps its edges and detail triangles). [`from_onepath_tile`] turns a
//! OnePath `NavTileData` into this form.
//!
//! Detour stores polygon vertices quantized: `bmin + q * cs` (Y: `* ch`), computed in
//! float32, with `bmin` the tile's corner `origin + tile * tile_size` (Y: the lowest vertex).
//! A vertex whose quantized value differs from the given one by more than
//! [`ExternalGrid::tolerance`] is refused, so by default (tolerance 0) both libraries see
//! bitwise the same vertices. Tile-border vertices must be exact for Detour to connect
//! neighbouring tiles (it matches portal edges by exact coordinate): choose a cell size that
//! divides the tile size and vertices on that grid (e.g. multiples of 1/64).

use onepath_format::{NavMeshParams, NavTileData, NO_PORTAL};

use crate::error::PeerError;
use crate::ffi::{self, DetourMeshParams, DetourNavMesh};
use crate::mesh_data::{
    DetailMeshData, DetourTileInput, PolyMeshData, DETOUR_MAX_VERTS_PER_POLY, NULL_INDEX,
    PORTAL_BIT,
};

/// A tile side, numbered as OnePath's portal sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileSide {
    /// Side 0: the edge lies on x = tile size (local).
    XPlus,
    /// Side 1: the edge lies on z = tile size.
    ZPlus,
    /// Side 2: the edge lies on x = 0.
    XMinus,
    /// Side 3: the edge lies on z = 0.
    ZMinus,
}

impl TileSide {
    /// OnePath's side number (0..=3).
    pub fn onepath_side(self) -> u8 {
        match self {
            TileSide::XPlus => 0,
            TileSide::ZPlus => 1,
            TileSide::XMinus => 2,
            TileSide::ZMinus => 3,
        }
    }

    /// The side for OnePath's side number, `None` above 3.
    pub fn from_onepath_side(side: u8) -> Option<TileSide> {
        match side {
            0 => Some(TileSide::XPlus),
            1 => Some(TileSide::ZPlus),
            2 => Some(TileSide::XMinus),
            3 => Some(TileSide::ZMinus),
            _ => None,
        }
    }

    /// Recast's portal direction (`rcPolyMesh` neighbour code low bits: 0 x-, 1 z+, 2 x+,
    /// 3 z-).
    fn recast_dir(self) -> u16 {
        match self {
            TileSide::XMinus => 0,
            TileSide::ZPlus => 1,
            TileSide::XPlus => 2,
            TileSide::ZMinus => 3,
        }
    }
}

/// What lies across one polygon edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeLink {
    /// Nothing: a wall.
    Wall,
    /// Another polygon of the same tile (its index in [`ExternalTile::polygons`]).
    Polygon(usize),
    /// The tile border on that side (Detour links it to the neighbouring tile).
    Portal(TileSide),
}

/// One convex polygon of an [`ExternalTile`].
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalPolygon {
    /// Corner indices into [`ExternalTile::vertices`], counter-clockwise (X right, Z up).
    pub vertices: Vec<usize>,
    /// Per edge k (corner k to corner k + 1): what lies across.
    pub links: Vec<EdgeLink>,
    /// Area id (0..=63).
    pub area: u8,
    /// Polygon flags.
    pub flags: u16,
}

impl ExternalPolygon {
    /// A polygon of area 0 with flags 1 (RecastDemo's walkable ground).
    pub fn new(vertices: Vec<usize>, links: Vec<EdgeLink>) -> Self {
        ExternalPolygon {
            vertices,
            links,
            area: 0,
            flags: 1,
        }
    }
}

/// One polygon's height detail: extra vertices and triangles over the polygon's corners
/// followed by those vertices (OnePath's convention).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExternalDetail {
    /// Extra vertices, world units.
    pub vertices: Vec<[f32; 3]>,
    /// Triangles: indices below the polygon's corner count name its corners (in the
    /// polygon's counter-clockwise order); index n + k names `vertices[k]`.
    pub triangles: Vec<[u8; 3]>,
    /// Per triangle: bit k set when edge k (index k to index k + 1) lies on the polygon
    /// boundary.
    pub edge_flags: Vec<u8>,
}

/// One tile of external polygon data.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalTile {
    /// Tile column.
    pub tile_x: i32,
    /// Tile row (along Z).
    pub tile_z: i32,
    /// Layer.
    pub layer: i32,
    /// Vertices, world units.
    pub vertices: Vec<[f32; 3]>,
    /// Polygons.
    pub polygons: Vec<ExternalPolygon>,
    /// One detail mesh per polygon, or `None` (Detour then fans each polygon).
    pub detail: Option<Vec<ExternalDetail>>,
}

/// The grid and agent the Detour mesh is made for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExternalGrid {
    /// World position of tile (0, 0)'s corner.
    pub origin: [f32; 3],
    /// Tile edge, world units.
    pub tile_size: f32,
    /// Quantization step of X and Z.
    pub cell_size: f32,
    /// Quantization step of Y.
    pub cell_height: f32,
    /// Largest distance allowed between a vertex and its quantized value (0: exact).
    pub tolerance: f32,
    /// Agent height, world units.
    pub walkable_height: f32,
    /// Agent radius, world units.
    pub walkable_radius: f32,
    /// Agent climb, world units.
    pub walkable_climb: f32,
}

impl ExternalGrid {
    /// A grid with exact quantization and RecastDemo's agent (height 2, radius 0.6,
    /// climb 0.9).
    pub fn new(origin: [f32; 3], tile_size: f32, cell_size: f32, cell_height: f32) -> Self {
        ExternalGrid {
            origin,
            tile_size,
            cell_size,
            cell_height,
            tolerance: 0.0,
            walkable_height: 2.0,
            walkable_radius: 0.6,
            walkable_climb: 0.9,
        }
    }

    /// The grid of a OnePath mesh: its origin, tile size and cell size (as float32), its
    /// agent (height, radius, climb), `cell_height` for Y and exact quantization. OnePath's
    /// Y values are free floats: raise [`ExternalGrid::tolerance`] (e.g. to `cell_height /
    /// 2`) when they do not lie on the Y grid.
    pub fn from_onepath(params: &NavMeshParams, cell_height: f32) -> Self {
        ExternalGrid {
            origin: [
                params.origin_x as f32,
                params.origin_y as f32,
                params.origin_z as f32,
            ],
            tile_size: params.tile_size_f32(),
            cell_size: params.cell_size as f32,
            cell_height,
            tolerance: 0.0,
            walkable_height: params.agent_height,
            walkable_radius: params.agent_radius,
            walkable_climb: params.walkable_climb,
        }
    }

    /// Corner of tile (x, z) in float32, as Detour's tile grid places it.
    fn tile_corner(&self, x: i32, z: i32) -> [f32; 2] {
        [
            self.origin[0] + x as f32 * self.tile_size,
            self.origin[2] + z as f32 * self.tile_size,
        ]
    }
}

/// Twice the signed X/Z area in OnePath's convention, float64.
fn signed_area2(points: &[[f32; 3]]) -> f64 {
    let n = points.len();
    (0..n)
        .map(|k| {
            let a = points[k];
            let b = points[(k + 1) % n];
            f64::from(a[0]) * f64::from(b[2]) - f64::from(b[0]) * f64::from(a[2])
        })
        .sum()
}

/// Quantizes `v` on `base + q * step` (float32), refusing values off the grid.
fn quantize(
    v: f32,
    base: f32,
    step: f32,
    tol: f32,
    at: &dyn Fn() -> String,
) -> Result<u16, PeerError> {
    let q = ((f64::from(v) - f64::from(base)) / f64::from(step)).round();
    if !(0.0..=f64::from(NULL_INDEX - 1)).contains(&q) {
        return Err(PeerError::input(
            at(),
            format!("{v} lies outside the tile's quantization range from {base}"),
        ));
    }
    let q = q as u16;
    let back = base + f32::from(q) * step;
    if (back - v).abs() > tol {
        return Err(PeerError::input(
            at(),
            format!("{v} is off the quantization grid (nearest {back}, tolerance {tol})"),
        ));
    }
    Ok(q)
}

/// Converts one tile to `dtCreateNavMeshData`'s input (reversing the winding to Detour's).
pub fn to_detour_input(
    grid: &ExternalGrid,
    tile: &ExternalTile,
) -> Result<DetourTileInput, PeerError> {
    let t = format!("tile ({}, {}, {})", tile.tile_x, tile.tile_z, tile.layer);
    let nvp = tile
        .polygons
        .iter()
        .map(|p| p.vertices.len())
        .max()
        .unwrap_or(3)
        .max(3);
    if nvp > DETOUR_MAX_VERTS_PER_POLY {
        return Err(PeerError::input(
            format!("{t}: polygons"),
            format!("a polygon has {nvp} vertices, Detour takes at most 6"),
        ));
    }
    if tile.polygons.len() >= usize::from(PORTAL_BIT) {
        return Err(PeerError::input(
            format!("{t}: polygons"),
            format!("{} polygons, at most 32767", tile.polygons.len()),
        ));
    }
    if !(grid.cell_size > 0.0 && grid.cell_height > 0.0 && grid.tile_size > 0.0) {
        return Err(PeerError::input(
            "grid",
            "tile size, cell size and height must be > 0",
        ));
    }
    if tile.vertices.len() >= usize::from(NULL_INDEX) {
        return Err(PeerError::input(
            format!("{t}: vertices"),
            format!("{} vertices, at most 65534", tile.vertices.len()),
        ));
    }
    let Some(y_min) = tile.vertices.iter().map(|v| v[1]).reduce(f32::min) else {
        return Err(PeerError::input(format!("{t}: vertices"), "no vertices"));
    };
    let corner = grid.tile_corner(tile.tile_x, tile.tile_z);
    let bmin = [corner[0], y_min, corner[1]];
    let detail_ys = tile
        .detail
        .iter()
        .flatten()
        .flat_map(|d| d.vertices.iter().map(|v| v[1]));
    let y_max = tile
        .vertices
        .iter()
        .map(|v| v[1])
        .chain(detail_ys)
        .fold(y_min, f32::max);
    let bmax = [
        corner[0] + grid.tile_size,
        y_max,
        corner[1] + grid.tile_size,
    ];

    let mut vertices = Vec::with_capacity(tile.vertices.len());
    for (i, v) in tile.vertices.iter().enumerate() {
        let mut q = [0u16; 3];
        for axis in 0..3 {
            let step = if axis == 1 {
                grid.cell_height
            } else {
                grid.cell_size
            };
            let at = || format!("{t}: vertex {i} axis {axis}");
            q[axis] = quantize(v[axis], bmin[axis], step, grid.tolerance, &at)?;
        }
        vertices.push(q);
    }

    let poly_count = tile.polygons.len();
    let mut polys = vec![NULL_INDEX; poly_count * 2 * nvp];
    for (p, poly) in tile.polygons.iter().enumerate() {
        let at = |what: &str| format!("{t}: polygon {p}: {what}");
        let n = poly.vertices.len();
        if n < 3 || poly.links.len() != n {
            return Err(PeerError::input(
                at("edges"),
                format!(
                    "{n} vertices and {} links (needs 3.. and one link per edge)",
                    poly.links.len()
                ),
            ));
        }
        let mut corners = Vec::with_capacity(n);
        for (k, &v) in poly.vertices.iter().enumerate() {
            let w = tile.vertices.get(v).ok_or_else(|| {
                PeerError::input(
                    at(&format!("vertex {k}")),
                    format!("index {v} is out of range"),
                )
            })?;
            corners.push(*w);
        }
        if signed_area2(&corners) <= 0.0 {
            return Err(PeerError::input(
                at("winding"),
                "not counter-clockwise (X right, Z up) or zero area",
            ));
        }
        let row = &mut polys[p * 2 * nvp..(p + 1) * 2 * nvp];
        // Reversed order: Detour corner j is our corner n-1-j; Detour edge j (corner j to
        // j+1) is our edge (n-2-j) mod n walked backwards.
        for j in 0..n {
            row[j] = poly.vertices[n - 1 - j] as u16;
            let link = poly.links[(2 * n - 2 - j) % n];
            row[nvp + j] = match link {
                EdgeLink::Wall => NULL_INDEX,
                EdgeLink::Polygon(q) if q < poly_count => q as u16,
                EdgeLink::Polygon(q) => {
                    return Err(PeerError::input(
                        at(&format!("edge {}", (2 * n - 2 - j) % n)),
                        format!("neighbour {q} is not below the polygon count {poly_count}"),
                    ))
                }
                EdgeLink::Portal(side) => PORTAL_BIT | side.recast_dir(),
            };
        }
    }

    let detail = match &tile.detail {
        None => None,
        Some(details) => Some(detail_input(&t, tile, details)?),
    };
    Ok(DetourTileInput {
        tile_x: tile.tile_x,
        tile_z: tile.tile_z,
        layer: tile.layer,
        mesh: PolyMeshData {
            bmin,
            bmax,
            cs: grid.cell_size,
            ch: grid.cell_height,
            nvp,
            vertices,
            polys,
            regions: vec![0; poly_count],
            flags: tile.polygons.iter().map(|p| p.flags).collect(),
            areas: tile.polygons.iter().map(|p| p.area).collect(),
        },
        detail,
        walkable_height: grid.walkable_height,
        walkable_radius: grid.walkable_radius,
        walkable_climb: grid.walkable_climb,
        build_bv_tree: true,
    })
}

/// Detour's detail input: per polygon its corners (in Detour's order) then its extra
/// vertices; triangles remapped to the reversed corners and flipped, edge flags moved to
/// Detour's two bits per edge.
fn detail_input(
    t: &str,
    tile: &ExternalTile,
    details: &[ExternalDetail],
) -> Result<DetailMeshData, PeerError> {
    if details.len() != tile.polygons.len() {
        return Err(PeerError::input(
            format!("{t}: detail"),
            format!(
                "{} detail meshes for {} polygons",
                details.len(),
                tile.polygons.len()
            ),
        ));
    }
    let mut out = DetailMeshData::default();
    for (p, (poly, d)) in tile.polygons.iter().zip(details).enumerate() {
        let at = |what: &str| format!("{t}: polygon {p}: detail {what}");
        let n = poly.vertices.len();
        if d.edge_flags.len() != d.triangles.len() {
            return Err(PeerError::input(
                at("edge flags"),
                format!(
                    "{} flags for {} triangles",
                    d.edge_flags.len(),
                    d.triangles.len()
                ),
            ));
        }
        let total = n + d.vertices.len();
        let vb = u32::try_from(out.vertices.len())
            .map_err(|_| PeerError::input(at("vertices"), "too many"))?;
        let tb = u32::try_from(out.triangles.len())
            .map_err(|_| PeerError::input(at("triangles"), "too many"))?;
        for j in 0..n {
            // Corner indices were checked by the polygon pass.
            out.vertices.push(tile.vertices[poly.vertices[n - 1 - j]]);
        }
        out.vertices.extend_from_slice(&d.vertices);
        let remap = |i: u8| -> Result<u8, PeerError> {
            let i = usize::from(i);
            if i >= total {
                return Err(PeerError::input(
                    at("triangle"),
                    format!("index {i} is not below {total}"),
                ));
            }
            // Corners are reversed; extra vertices keep their place after them.
            let r = if i < n { n - 1 - i } else { i };
            u8::try_from(r).map_err(|_| {
                PeerError::input(at("triangle"), format!("index {r} does not fit a byte"))
            })
        };
        for (tri, &given) in d.triangles.iter().zip(&d.edge_flags) {
            // An edge between consecutive corners lies on the boundary whatever the caller
            // marked (OnePath builders may leave the flags 0; Detour needs them).
            let mut flags = given;
            for k in 0..3 {
                let (i, j) = (usize::from(tri[k]), usize::from(tri[(k + 1) % 3]));
                if i < n && j < n && (j == (i + 1) % n || i == (j + 1) % n) {
                    flags |= 1 << k;
                }
            }
            let [a, b, c] = [remap(tri[0])?, remap(tri[1])?, remap(tri[2])?];
            // (a, b, c) becomes (a, c, b): new edge 0 is old edge 2, 1 stays 1, 2 is old 0.
            let bit = |k: u8| (flags >> k) & 1;
            let detour_flags = bit(2) | (bit(1) << 2) | (bit(0) << 4);
            out.triangles.push([a, c, b, detour_flags]);
        }
        out.meshes
            .push([vb, total as u32, tb, d.triangles.len() as u32]);
    }
    Ok(out)
}

/// Builds a Detour navmesh holding `tiles`, its grid sized to fit them (tile and polygon
/// bits as small as the data allows).
pub fn build_detour_mesh(
    grid: &ExternalGrid,
    tiles: &[ExternalTile],
) -> Result<DetourNavMesh, PeerError> {
    let inputs = tiles
        .iter()
        .map(|t| to_detour_input(grid, t))
        .collect::<Result<Vec<_>, _>>()?;
    let bits = |n: usize| (n.max(1) as u64).next_power_of_two().trailing_zeros();
    let tile_bits = bits(tiles.len());
    let poly_bits = bits(
        inputs
            .iter()
            .map(|i| i.mesh.poly_count())
            .max()
            .unwrap_or(1),
    );
    if tile_bits + poly_bits > 22 {
        return Err(PeerError::input(
            "tiles",
            format!(
                "{} tiles of up to 2^{poly_bits} polygons exceed Detour's 22 reference bits",
                tiles.len()
            ),
        ));
    }
    let mut mesh = DetourNavMesh::new(&DetourMeshParams {
        origin: grid.origin,
        tile_width: grid.tile_size,
        tile_height: grid.tile_size,
        max_tiles: 1 << tile_bits,
        max_polys: 1 << poly_bits,
    })?;
    for input in &inputs {
        mesh.add_tile(ffi::create_nav_mesh_data(input)?)?;
    }
    Ok(mesh)
}

/// A OnePath tile as external data: world vertices (tile origin + local, rounded to
/// float32), polygons with their in-tile neighbours and portal sides, and the detail meshes.
pub fn from_onepath_tile(
    params: &NavMeshParams,
    data: &NavTileData,
) -> Result<ExternalTile, PeerError> {
    let at = format!(
        "OnePath tile ({}, {}, {})",
        data.tile_x, data.tile_z, data.layer
    );
    let (ox, oz) = params.tile_origin(data.tile_x, data.tile_z);
    let world = |v: &[f32; 3]| {
        [
            (ox + f64::from(v[0])) as f32,
            (data.origin_y + f64::from(v[1])) as f32,
            (oz + f64::from(v[2])) as f32,
        ]
    };
    let n_polys = data.poly_sizes.len();
    let corners_needed: usize = data.poly_sizes.iter().map(|&s| usize::from(s)).sum();
    if data.corners.len() != corners_needed
        || data.edge_neighbours.len() != corners_needed
        || data.edge_portal_sides.len() != corners_needed
        || data.poly_areas.len() != n_polys
        || data.poly_flags.len() != n_polys
    {
        return Err(PeerError::input(
            at,
            "array lengths do not match the polygon sizes",
        ));
    }
    let mut polygons = Vec::with_capacity(n_polys);
    let mut first = 0;
    for p in 0..n_polys {
        let n = usize::from(data.poly_sizes[p]);
        let range = first..first + n;
        first += n;
        let mut links = Vec::with_capacity(n);
        for c in range.clone() {
            let nei = data.edge_neighbours[c];
            let side = data.edge_portal_sides[c];
            links.push(if nei != 0 {
                EdgeLink::Polygon(nei as usize - 1)
            } else if side == NO_PORTAL {
                EdgeLink::Wall
            } else {
                EdgeLink::Portal(TileSide::from_onepath_side(side).ok_or_else(|| {
                    PeerError::input(
                        format!("{at}: polygon {p}: corner {c}"),
                        format!("portal side {side}"),
                    )
                })?)
            });
        }
        polygons.push(ExternalPolygon {
            vertices: data.corners[range]
                .iter()
                .map(|&v| usize::from(v))
                .collect(),
            links,
            area: data.poly_areas[p],
            flags: data.poly_flags[p],
        });
    }
    let detail = if data.detail_meshes.is_empty() {
        None
    } else {
        let mut out = Vec::with_capacity(data.detail_meshes.len());
        for (p, m) in data.detail_meshes.iter().enumerate() {
            let vs = m.vertex_base as usize..m.vertex_base as usize + m.vertex_count as usize;
            let ts = m.triangle_base as usize..m.triangle_base as usize + m.triangle_count as usize;
            let (Some(dv), Some(dt)) =
                (data.detail_vertices.get(vs), data.detail_triangles.get(ts))
            else {
                return Err(PeerError::input(
                    format!("{at}: polygon {p}: detail"),
                    "range outside the arrays",
                ));
            };
            out.push(ExternalDetail {
                vertices: dv.iter().map(world).collect(),
                triangles: dt.iter().map(|t| t.v).collect(),
                edge_flags: dt.iter().map(|t| t.edge_flags).collect(),
            });
        }
        Some(out)
    };
    Ok(ExternalTile {
        tile_x: data.tile_x,
        tile_z: data.tile_z,
        layer: i32::from(data.layer),
        vertices: data.vertices.iter().map(world).collect(),
        polygons,
        detail,
    })
}
