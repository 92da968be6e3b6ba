//! A tiled Recast build of a [`Level`], step for step RecastDemo's `Sample_TileMesh`.
//!
//! Per tile: bounds expanded by a border of `walkableRadius + 3` cells,
//! `rcMarkWalkableTriangles`, `rcRasterizeTriangles`, the three span filters,
//! `rcBuildCompactHeightfield`, `rcErodeWalkableArea`, `rcBuildDistanceField` +
//! `rcBuildRegions` (watershed), `rcBuildContours`, `rcBuildPolyMesh`,
//! `rcBuildPolyMeshDetail`, the demo's area-to-flags rule, `dtCreateNavMeshData` and
//! `dtNavMesh::addTile`.
//!
//! One deliberate difference: the demo picks a tile's triangles through its chunky
//! triangle mesh (chunks of up to 256 triangles whose bounds overlap the tile); here every
//! triangle whose own X/Z bounds overlap the expanded tile is rasterized, in level order.
//! Triangles outside a tile add nothing to its heightfield, so the spans only differ where
//! `rcAddSpan`'s area merge depends on the order in which overlapping spans arrive.

use crate::error::PeerError;
use crate::ffi::{
    self, CompactHeightfield, Context, ContourSet, DetourMeshParams, DetourNavMesh, Heightfield,
    PolyMesh, PolyMeshDetail,
};
use crate::level::Level;
use crate::mesh_data::{check_point, DetailMeshData, DetourTileInput, PolyMeshData};
use crate::metrics::BuildMetrics;
use crate::settings::{RecastSettings, VoxelConfig};

/// RecastDemo's `RC_WALKABLE_AREA` -> `SAMPLE_POLYAREA_GROUND`.
pub const SAMPLE_POLYAREA_GROUND: u8 = 0;
/// RecastDemo's `SAMPLE_POLYFLAGS_WALK`.
pub const SAMPLE_POLYFLAGS_WALK: u16 = 0x01;
/// Recast's `RC_WALKABLE_AREA`.
const RC_WALKABLE_AREA: u8 = 63;

/// One built tile: the polygon and detail meshes Recast produced (after the demo's
/// area/flags update) and the size of the Detour tile made from them.
#[derive(Debug, Clone, PartialEq)]
pub struct RecastTile {
    /// Tile column.
    pub tile_x: i32,
    /// Tile row (along Z).
    pub tile_z: i32,
    /// The polygon mesh.
    pub mesh: PolyMeshData,
    /// The detail mesh.
    pub detail: DetailMeshData,
    /// Bytes of the Detour tile blob.
    pub detour_bytes: usize,
}

/// The grid a tiled build runs over: the level's bounds cut into square tiles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TileGrid {
    /// Level bounds minimum (the navmesh origin).
    pub bmin: [f32; 3],
    /// Level bounds maximum.
    pub bmax: [f32; 3],
    /// Tiles along X.
    pub tiles_x: i32,
    /// Tiles along Z.
    pub tiles_z: i32,
    /// Tile edge, world units (`tile_size * cell_size`, float32).
    pub tile_world_size: f32,
}

impl TileGrid {
    /// The demo's grid: `rcCalcGridSize` cells (`(int)((max - min) / cs + 0.5)`), rounded up
    /// to whole tiles.
    pub fn new(level: &Level, settings: &RecastSettings) -> Result<TileGrid, PeerError> {
        settings.validate()?;
        for (i, v) in level.vertices.iter().enumerate() {
            check_point(&format!("level vertex {i}"), *v)?;
        }
        let (bmin, bmax) = level
            .bounds()
            .ok_or_else(|| PeerError::input("level", "no vertices"))?;
        let cfg = settings.voxel_config();
        // Cells per axis in float64 first: a small cell over a wide level must not wrap.
        let cells = |lo: f32, hi: f32| (f64::from(hi - lo) / f64::from(cfg.cs) + 0.5).floor();
        let limit = f64::from(1 << 24);
        if cells(bmin[0], bmax[0]) > limit || cells(bmin[2], bmax[2]) > limit {
            return Err(PeerError::input(
                "level",
                "more than 2^24 cells along an axis",
            ));
        }
        let gw = ((bmax[0] - bmin[0]) / cfg.cs + 0.5) as i32;
        let gh = ((bmax[2] - bmin[2]) / cfg.cs + 0.5) as i32;
        let ts = cfg.tile_size;
        let (tiles_x, tiles_z) = ((gw + ts - 1) / ts, (gh + ts - 1) / ts);
        // The demo's Detour layout has at most 14 tile bits.
        if i64::from(tiles_x) * i64::from(tiles_z) > 1 << 14 {
            return Err(PeerError::input(
                "level",
                format!("{tiles_x} x {tiles_z} tiles, at most 16384"),
            ));
        }
        Ok(TileGrid {
            bmin,
            bmax,
            tiles_x,
            tiles_z,
            tile_world_size: settings.tile_world_size(),
        })
    }

    /// Tile bounds exactly as `Sample_TileMesh::buildAllTiles` computes them (float32).
    pub fn tile_bounds(&self, x: i32, z: i32) -> ([f32; 3], [f32; 3]) {
        let t = self.tile_world_size;
        (
            [
                self.bmin[0] + x as f32 * t,
                self.bmin[1],
                self.bmin[2] + z as f32 * t,
            ],
            [
                self.bmin[0] + (x + 1) as f32 * t,
                self.bmax[1],
                self.bmin[2] + (z + 1) as f32 * t,
            ],
        )
    }

    /// The demo's Detour grid: tile bits `min(log2(nextPow2(tiles)), 14)`, polygon bits the
    /// rest of 22.
    pub fn detour_params(&self) -> DetourMeshParams {
        let tiles = (self.tiles_x.max(1) as u32).saturating_mul(self.tiles_z.max(1) as u32);
        let tile_bits = tiles.next_power_of_two().trailing_zeros().min(14);
        let poly_bits = 22 - tile_bits;
        DetourMeshParams {
            origin: self.bmin,
            tile_width: self.tile_world_size,
            tile_height: self.tile_world_size,
            max_tiles: 1 << tile_bits,
            max_polys: 1 << poly_bits,
        }
    }
}

/// A whole-level tiled build: the Detour navmesh and every tile's Recast meshes.
#[derive(Debug)]
pub struct RecastBuild {
    /// The grid built over.
    pub grid: TileGrid,
    /// The settings used.
    pub settings: RecastSettings,
    /// Tiles that produced polygons, in build order (rows of Z, then X).
    pub tiles: Vec<RecastTile>,
    /// The Detour navmesh holding those tiles.
    pub navmesh: DetourNavMesh,
}

impl RecastBuild {
    /// The figures the harness compares (tile count, polygon count, walkable area).
    pub fn metrics(&self) -> BuildMetrics {
        BuildMetrics {
            tile_count: self.tiles.len(),
            polygon_count: self.tiles.iter().map(|t| t.mesh.poly_count()).sum(),
            vertex_count: self.tiles.iter().map(|t| t.mesh.vertices.len()).sum(),
            walkable_area: self.tiles.iter().map(|t| t.mesh.walkable_area()).sum(),
        }
    }

    /// Every polygon's corners in world space (float32, as Detour dequantizes them), tile by
    /// tile. The common input of [`crate::sampling::sample_points`].
    pub fn world_polygons(&self) -> Vec<Vec<[f32; 3]>> {
        let mut out = Vec::new();
        for t in &self.tiles {
            for p in 0..t.mesh.poly_count() {
                let corners = t.mesh.poly_vertices(p);
                out.push(
                    corners
                        .iter()
                        .map(|&v| t.mesh.world_vertex(usize::from(v)))
                        .collect(),
                );
            }
        }
        out
    }
}

/// Builds every tile of `level` single-threaded and adds it to a fresh Detour navmesh.
pub fn build_tiled(level: &Level, settings: &RecastSettings) -> Result<RecastBuild, PeerError> {
    let grid = TileGrid::new(level, settings)?;
    let cfg = settings.voxel_config();
    let mut navmesh = DetourNavMesh::new(&grid.detour_params())?;
    let vertices = level.flat_vertices();
    let mut ctx = Context::new()?;
    let mut tiles = Vec::new();
    for z in 0..grid.tiles_z {
        for x in 0..grid.tiles_x {
            ctx.set_tile(x, z);
            let (bmin, bmax) = grid.tile_bounds(x, z);
            let Some((mesh, detail)) =
                build_tile_meshes(&mut ctx, &cfg, level, &vertices, bmin, bmax)?
            else {
                continue;
            };
            let input = DetourTileInput {
                tile_x: x,
                tile_z: z,
                layer: 0,
                mesh,
                detail: Some(detail),
                walkable_height: settings.agent_height,
                walkable_radius: settings.agent_radius,
                walkable_climb: settings.agent_max_climb,
                build_bv_tree: true,
            };
            let data = ffi::create_nav_mesh_data(&input)?;
            let detour_bytes = data.bytes().len();
            navmesh.add_tile(data)?;
            let DetourTileInput { mesh, detail, .. } = input;
            tiles.push(RecastTile {
                tile_x: x,
                tile_z: z,
                mesh,
                detail: detail.unwrap_or_default(),
                detour_bytes,
            });
        }
    }
    Ok(RecastBuild {
        grid,
        settings: *settings,
        tiles,
        navmesh,
    })
}

/// The Recast part of `Sample_TileMesh::buildTileMesh` for one tile. `None` when the tile
/// has no triangles, no contours or no polygons (the demo adds no tile then).
fn build_tile_meshes(
    ctx: &mut Context,
    cfg: &VoxelConfig,
    level: &Level,
    vertices: &[f32],
    tile_bmin: [f32; 3],
    tile_bmax: [f32; 3],
) -> Result<Option<(PolyMeshData, DetailMeshData)>, PeerError> {
    let (bmin, bmax) = grid_bounds(cfg, tile_bmin, tile_bmax);
    let triangles = triangles_overlapping(level, bmin, bmax);
    if triangles.is_empty() {
        return Ok(None);
    }
    let mut solid = Heightfield::new(ctx, cfg, bmin, bmax)?;
    solid.rasterize(ctx, cfg, vertices, &triangles)?;
    solid.filter(ctx, cfg);
    let mut chf = CompactHeightfield::build(ctx, cfg, &solid)?;
    drop(solid);
    chf.erode_and_partition(ctx, cfg)?;
    let cset = ContourSet::build(ctx, cfg, &chf)?;
    if cset.len() == 0 {
        return Ok(None);
    }
    let pmesh = PolyMesh::build(ctx, cfg, &cset)?;
    let dmesh = PolyMeshDetail::build(ctx, cfg, &pmesh, &chf)?;
    let mut mesh = pmesh.to_data();
    if mesh.poly_count() == 0 {
        return Ok(None);
    }
    apply_demo_area_flags(&mut mesh);
    Ok(Some((mesh, dmesh.to_data())))
}

/// A tile's bounds widened by the border (`border_size` cells) on X and Z: the grid that is
/// rasterized.
pub(crate) fn grid_bounds(
    cfg: &VoxelConfig,
    tile_bmin: [f32; 3],
    tile_bmax: [f32; 3],
) -> ([f32; 3], [f32; 3]) {
    let border = cfg.border_size as f32 * cfg.cs;
    let mut bmin = tile_bmin;
    let mut bmax = tile_bmax;
    bmin[0] -= border;
    bmin[2] -= border;
    bmax[0] += border;
    bmax[2] += border;
    (bmin, bmax)
}

/// The demo's "update poly flags from areas": walkable becomes ground, ground walks.
fn apply_demo_area_flags(mesh: &mut PolyMeshData) {
    for (area, flags) in mesh.areas.iter_mut().zip(mesh.flags.iter_mut()) {
        if *area == RC_WALKABLE_AREA {
            *area = SAMPLE_POLYAREA_GROUND;
        }
        if *area == SAMPLE_POLYAREA_GROUND {
            *flags = SAMPLE_POLYFLAGS_WALK;
        }
    }
}

/// Flattened indices of the triangles whose X/Z bounds overlap `[bmin, bmax]` (inclusive),
/// in level order.
pub(crate) fn triangles_overlapping(level: &Level, bmin: [f32; 3], bmax: [f32; 3]) -> Vec<i32> {
    let mut out = Vec::new();
    for tri in &level.triangles {
        let Some(vs) = tri
            .iter()
            .map(|&i| level.vertices.get(i as usize))
            .collect::<Option<Vec<_>>>()
        else {
            // An index out of range is left in so `Heightfield::rasterize` reports it.
            out.extend(tri.iter().map(|&i| i32::try_from(i).unwrap_or(-1)));
            continue;
        };
        let lo_x = vs[0][0].min(vs[1][0]).min(vs[2][0]);
        let hi_x = vs[0][0].max(vs[1][0]).max(vs[2][0]);
        let lo_z = vs[0][2].min(vs[1][2]).min(vs[2][2]);
        let hi_z = vs[0][2].max(vs[1][2]).max(vs[2][2]);
        if lo_x <= bmax[0] && hi_x >= bmin[0] && lo_z <= bmax[2] && hi_z >= bmin[2] {
            out.extend(tri.iter().map(|&i| i32::try_from(i).unwrap_or(-1)));
        }
    }
    out
}
