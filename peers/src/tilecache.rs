//! The tile cache comparison: DetourTileCache (`recastnavigation-sys` feature
//! `detour_tile_cache`) and `onepath-tilecache` on the same level with the same settings and
//! the same obstacle history — 16 cylinders added and then removed one at a time, each
//! followed by an update of everything (`docs/perf/tilecache.md` in the main repository).
//!
//! The DetourTileCache side follows RecastDemo's `Sample_TempObstacles`: per tile, rasterize
//! (tile plus border), the three filters, compaction, erosion, `rcBuildHeightfieldLayers`,
//! one `dtBuildTileCacheLayer` per layer, `dtTileCache::addTile`, then
//! `buildNavMeshTilesAt`; an obstacle is `addObstacle` / `removeObstacle`, and an update is
//! `dtTileCache::update` until it reports up to date (one layer per call). One deliberate
//! difference: the layers are stored uncompressed (an identity compressor instead of the
//! demo's FastLZ), which saves DetourTileCache a decompression per rebuilt layer.
//!
//! Like the private `ffi` module, this module owns every C++ object it creates through a
//! wrapper freed once in `Drop`; its `unsafe` blocks each carry a SAFETY comment.

use std::os::raw::{c_int, c_uchar, c_void};
use std::ptr::NonNull;

use onepath_build3d::generators::{city, CityParams};
use onepath_build3d::{Mesh3DPipeline, Obstacle};
use onepath_format::Partition;
use onepath_tilecache::{ObstacleId, TileCache};
use recastnavigation_sys as sys;

use crate::error::PeerError;
use crate::ffi::{CompactHeightfield, Context, DetourMeshParams, DetourNavMesh, Heightfield};
use crate::level::Level;
use crate::onepath::{build_config, triangle_soup};
use crate::recast::{grid_bounds, ChunkyTriMesh, TileGrid, TRIS_PER_CHUNK};
use crate::settings::RecastSettings;

/// Layers per tile the Detour grid makes room for (the demo's `EXPECTED_LAYERS_PER_TILE`).
const LAYERS_PER_TILE: i32 = 4;
/// Obstacles DetourTileCache holds at once.
const MAX_OBSTACLES: i32 = 128;

/// The generated `city` level (build3d's generator, default parameters) as a harness level.
pub fn city_level() -> Level {
    let soup = city(&CityParams::default());
    Level {
        vertices: soup
            .vertices
            .iter()
            .map(|v| [v[0] as f32, v[1] as f32, v[2] as f32])
            .collect(),
        triangles: soup.triangles,
    }
}

/// The comparison's settings: the demo's with tiles of `tile_cells` cells and no detail
/// sampling (the cheap setting for a host that adds and removes obstacles often).
pub fn cycle_settings(tile_cells: u32) -> RecastSettings {
    RecastSettings {
        tile_size: tile_cells as f32,
        detail_sample_dist: 0.0,
        ..RecastSettings::default()
    }
}

/// The 16 cylinders of the cycle: a 4 x 4 lattice over the level's x/z bounds, radius 1,
/// from below the lowest floor to above the highest.
pub fn cycle_cylinders(level: &Level) -> Result<Vec<([f32; 3], f32, f32)>, PeerError> {
    let (lo, hi) = level
        .bounds()
        .ok_or_else(|| PeerError::input("level", "no vertices"))?;
    Ok((0..16)
        .map(|i| {
            let fx = ((i % 4) as f32 + 0.5) / 4.0;
            let fz = ((i / 4) as f32 + 0.5) / 4.0;
            (
                [
                    lo[0] + fx * (hi[0] - lo[0]),
                    lo[1] - 1.0,
                    lo[2] + fz * (hi[2] - lo[2]),
                ],
                1.0,
                hi[1] - lo[1] + 2.0,
            )
        })
        .collect())
}

fn dt_check(call: &'static str, status: u32) -> Result<(), PeerError> {
    if status & sys::DT_FAILURE != 0 {
        Err(PeerError::Detour { call, status })
    } else {
        Ok(())
    }
}

/// `maxCompressedSize` of the identity compressor.
unsafe extern "C" fn identity_max(_object: *mut c_void, buffer_size: c_int) -> c_int {
    buffer_size
}

/// `compress` and `decompress` of the identity compressor: a bounded copy.
unsafe extern "C" fn identity_copy(
    _object: *mut c_void,
    src: *const c_uchar,
    src_size: c_int,
    dst: *mut c_uchar,
    dst_capacity: c_int,
    dst_size: *mut c_int,
) -> u32 {
    if src_size < 0 || src_size > dst_capacity || src.is_null() || dst.is_null() {
        return sys::DT_FAILURE | sys::DT_BUFFER_TOO_SMALL;
    }
    // SAFETY: DetourTileCache passes `src` with `src_size` readable bytes and `dst` with
    // `dst_capacity` writable bytes (checked above to hold `src_size`); they do not overlap
    // (separate allocations); `dst_size` points at one int.
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, src_size as usize);
        *dst_size = src_size;
    }
    sys::DT_SUCCESS
}

/// DetourTileCache over a Detour navmesh, built from a level.
pub struct DetourTileCacheRun {
    tc: NonNull<sys::dtTileCache>,
    alloc: NonNull<sys::dtTileCacheAlloc>,
    comp: NonNull<sys::dtTileCacheCompressor>,
    navmesh: DetourNavMesh,
    /// Layers (compressed tiles) held.
    pub layers: usize,
    /// `update` calls made by [`DetourTileCacheRun::update_all`] so far (= layer builds).
    pub layer_builds: usize,
}

impl std::fmt::Debug for DetourTileCacheRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DetourTileCacheRun")
            .field("layers", &self.layers)
            .field("layer_builds", &self.layer_builds)
            .finish_non_exhaustive()
    }
}

impl Drop for DetourTileCacheRun {
    fn drop(&mut self) {
        // SAFETY: each pointer came from its allocator and is freed once, the tile cache first
        // (it frees its layers with the allocator and uses the compressor while alive).
        unsafe {
            sys::dtFreeTileCache(self.tc.as_ptr());
            sys::DeleteTileCacheCompressor(self.comp.as_ptr());
            sys::DeleteTileCacheAlloc(self.alloc.as_ptr());
        }
    }
}

impl DetourTileCacheRun {
    /// Builds every tile's layers and their navmesh tiles (single thread).
    pub fn build(level: &Level, settings: &RecastSettings) -> Result<Self, PeerError> {
        let grid = TileGrid::new(level, settings)?;
        let cfg = settings.voxel_config();
        if cfg.width > 255 {
            return Err(PeerError::input(
                "tile size",
                "layers are at most 255 cells wide",
            ));
        }
        let tiles = grid.tiles_x * grid.tiles_z * LAYERS_PER_TILE;
        let tile_bits = (tiles.max(1) as u32)
            .next_power_of_two()
            .trailing_zeros()
            .min(14);
        let navmesh = DetourNavMesh::new(&DetourMeshParams {
            origin: grid.bmin,
            tile_width: grid.tile_world_size,
            tile_height: grid.tile_world_size,
            max_tiles: 1 << tile_bits,
            max_polys: 1 << (22 - tile_bits),
        })?;
        // SAFETY: the constructors take plain values (null object pointers: the callbacks use
        // none); each result is owned by the run and freed once in `Drop`.
        let (alloc, comp, tc) = unsafe {
            (
                sys::CreateDefaultTileCacheAlloc(),
                sys::CreateForwardedTileCacheCompressor(
                    std::ptr::null_mut(),
                    Some(identity_max),
                    Some(identity_copy),
                    Some(identity_copy),
                ),
                sys::dtAllocTileCache(),
            )
        };
        let alloc = NonNull::new(alloc).ok_or(PeerError::Alloc {
            what: "dtTileCacheAlloc",
        })?;
        let comp = NonNull::new(comp).ok_or(PeerError::Alloc {
            what: "dtTileCacheCompressor",
        })?;
        let tc = NonNull::new(tc).ok_or(PeerError::Alloc {
            what: "dtTileCache",
        })?;
        let mut run = DetourTileCacheRun {
            tc,
            alloc,
            comp,
            navmesh,
            layers: 0,
            layer_builds: 0,
        };
        let params = sys::dtTileCacheParams {
            orig: grid.bmin,
            cs: cfg.cs,
            ch: cfg.ch,
            width: cfg.tile_size,
            height: cfg.tile_size,
            walkableHeight: settings.agent_height,
            walkableRadius: settings.agent_radius,
            walkableClimb: settings.agent_max_climb,
            maxSimplificationError: settings.edge_max_error,
            maxTiles: tiles,
            maxObstacles: MAX_OBSTACLES,
        };
        // SAFETY: all objects are live; `params` is read during the call; the mesh process
        // may be null (DetourTileCache checks it).
        let status = unsafe {
            sys::dtTileCache_init(
                run.tc.as_ptr(),
                &params,
                run.alloc.as_ptr(),
                run.comp.as_ptr(),
                std::ptr::null_mut(),
            )
        };
        dt_check("dtTileCache::init", status)?;
        let vertices = level.flat_vertices();
        let chunky = ChunkyTriMesh::new(level, TRIS_PER_CHUNK)?;
        let mut ctx = Context::new()?;
        for z in 0..grid.tiles_z {
            for x in 0..grid.tiles_x {
                ctx.set_tile(x, z);
                run.add_tile_layers(&mut ctx, &grid, settings, &chunky, &vertices, x, z)?;
                // SAFETY: the tile cache and navmesh are live; the call reads the layers added
                // at (x, z) and adds their tiles to the navmesh.
                let status = unsafe {
                    sys::dtTileCache_buildNavMeshTilesAt(run.tc.as_ptr(), x, z, run.navmesh.raw())
                };
                dt_check("dtTileCache::buildNavMeshTilesAt", status)?;
            }
        }
        Ok(run)
    }

    #[allow(clippy::too_many_arguments)]
    fn add_tile_layers(
        &mut self,
        ctx: &mut Context,
        grid: &TileGrid,
        settings: &RecastSettings,
        chunky: &ChunkyTriMesh,
        vertices: &[f32],
        x: i32,
        z: i32,
    ) -> Result<(), PeerError> {
        let cfg = settings.voxel_config();
        let (tile_bmin, tile_bmax) = grid.tile_bounds(x, z);
        let (bmin, bmax) = grid_bounds(&cfg, tile_bmin, tile_bmax);
        let triangles = chunky.triangles_overlapping([bmin[0], bmin[2]], [bmax[0], bmax[2]]);
        if triangles.is_empty() {
            return Ok(());
        }
        let mut solid = Heightfield::new(ctx, &cfg, bmin, bmax)?;
        solid.rasterize(ctx, &cfg, vertices, &triangles)?;
        solid.filter(ctx, &cfg);
        let chf = CompactHeightfield::build(ctx, &cfg, &solid)?;
        drop(solid);
        // SAFETY: `ctx` and `chf` are live; erosion works on the heightfield's own arrays.
        let ok = unsafe { sys::rcErodeWalkableArea(ctx.raw(), cfg.walkable_radius, chf.raw()) };
        if !ok {
            return Err(PeerError::Recast {
                step: "rcErodeWalkableArea",
                tile_x: x,
                tile_z: z,
            });
        }
        // SAFETY: no arguments; freed below with `rcFreeHeightfieldLayerSet` on every path.
        let lset = unsafe { sys::rcAllocHeightfieldLayerSet() };
        let Some(lset) = NonNull::new(lset) else {
            return Err(PeerError::Alloc {
                what: "rcHeightfieldLayerSet",
            });
        };
        let result = self.add_layers(ctx, &cfg, &chf, lset, x, z);
        // SAFETY: allocated above, freed once here (it frees its layers' arrays).
        unsafe { sys::rcFreeHeightfieldLayerSet(lset.as_ptr()) };
        result
    }

    fn add_layers(
        &mut self,
        ctx: &mut Context,
        cfg: &crate::settings::VoxelConfig,
        chf: &CompactHeightfield,
        lset: NonNull<sys::rcHeightfieldLayerSet>,
        x: i32,
        z: i32,
    ) -> Result<(), PeerError> {
        // SAFETY: `ctx`, `chf` and `lset` are live; Recast fills `lset`.
        let ok = unsafe {
            sys::rcBuildHeightfieldLayers(
                ctx.raw(),
                chf.raw(),
                cfg.border_size,
                cfg.walkable_height,
                lset.as_ptr(),
            )
        };
        if !ok {
            return Err(PeerError::Recast {
                step: "rcBuildHeightfieldLayers",
                tile_x: x,
                tile_z: z,
            });
        }
        // SAFETY: `lset` was filled by Recast: `layers` points at `nlayers` layers.
        let layers = unsafe {
            let set = lset.as_ref();
            let n = usize::try_from(set.nlayers).unwrap_or(0);
            if set.layers.is_null() || n == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(set.layers, n)
            }
        };
        for (i, layer) in layers.iter().enumerate() {
            let mut header = sys::dtTileCacheLayerHeader {
                magic: sys::DT_TILECACHE_MAGIC,
                version: sys::DT_TILECACHE_VERSION,
                tx: x,
                ty: z,
                tlayer: i as c_int,
                bmin: layer.bmin,
                bmax: layer.bmax,
                hmin: layer.hmin as u16,
                hmax: layer.hmax as u16,
                width: layer.width as u8,
                height: layer.height as u8,
                minx: layer.minx as u8,
                maxx: layer.maxx as u8,
                miny: layer.miny as u8,
                maxy: layer.maxy as u8,
            };
            let mut data: *mut c_uchar = std::ptr::null_mut();
            let mut size: c_int = 0;
            // SAFETY: the layer's `heights`, `areas`, `cons` hold `width * height` bytes each
            // (Recast sized them for this header's width and height); the output blob is
            // allocated by Detour and handed to the tile cache below, which frees it.
            let status = unsafe {
                sys::dtBuildTileCacheLayer(
                    self.comp.as_ptr(),
                    &mut header,
                    layer.heights,
                    layer.areas,
                    layer.cons,
                    &mut data,
                    &mut size,
                )
            };
            dt_check("dtBuildTileCacheLayer", status)?;
            let mut tile_ref = 0;
            // SAFETY: `data` is a layer blob of `size` bytes from `dtBuildTileCacheLayer`; with
            // `DT_COMPRESSEDTILE_FREE_DATA` the tile cache frees it; on failure we free it.
            let status = unsafe {
                sys::dtTileCache_addTile(
                    self.tc.as_ptr(),
                    data,
                    size,
                    sys::dtCompressedTileFlags_DT_COMPRESSEDTILE_FREE_DATA as c_uchar,
                    &mut tile_ref,
                )
            };
            if status & sys::DT_FAILURE != 0 {
                // SAFETY: the blob was not taken; it came from `dtAlloc`.
                unsafe { sys::dtFree(data as *mut c_void) };
                return Err(PeerError::Detour {
                    call: "dtTileCache::addTile",
                    status,
                });
            }
            self.layers += 1;
        }
        Ok(())
    }

    /// `addObstacle`: a cylinder (base centre, radius, height). Returns its reference.
    pub fn add_cylinder(
        &mut self,
        pos: [f32; 3],
        radius: f32,
        height: f32,
    ) -> Result<u32, PeerError> {
        let mut r = 0;
        // SAFETY: the tile cache is live; `pos` holds 3 floats read during the call.
        let status = unsafe {
            sys::dtTileCache_addObstacle(self.tc.as_ptr(), pos.as_ptr(), radius, height, &mut r)
        };
        dt_check("dtTileCache::addObstacle", status)?;
        Ok(r)
    }

    /// `removeObstacle`.
    pub fn remove(&mut self, obstacle: u32) -> Result<(), PeerError> {
        // SAFETY: the tile cache is live; a stale reference is reported by status.
        let status = unsafe { sys::dtTileCache_removeObstacle(self.tc.as_ptr(), obstacle) };
        dt_check("dtTileCache::removeObstacle", status)
    }

    /// `update` until up to date; returns the number of calls. Each call builds at most one
    /// layer, and the call that builds the last one already reports up to date, so after an
    /// obstacle request that touches a layer the calls are the layer builds.
    pub fn update_all(&mut self) -> Result<usize, PeerError> {
        let mut calls = 0;
        loop {
            let mut up_to_date = false;
            // SAFETY: the tile cache and navmesh are live; `up_to_date` is one bool.
            let status = unsafe {
                sys::dtTileCache_update(self.tc.as_ptr(), 0.0, self.navmesh.raw(), &mut up_to_date)
            };
            dt_check("dtTileCache::update", status)?;
            calls += 1;
            if up_to_date {
                break;
            }
        }
        self.layer_builds += calls;
        Ok(calls)
    }

    /// Number of navmesh tiles and polygons.
    pub fn counts(&self) -> (usize, usize) {
        self.navmesh.counts()
    }

    /// The cycle: add each cylinder, update all; remove each, update all.
    pub fn cycles(&mut self, cylinders: &[([f32; 3], f32, f32)]) -> Result<(), PeerError> {
        let mut refs = Vec::with_capacity(cylinders.len());
        for &(p, r, h) in cylinders {
            refs.push(self.add_cylinder(p, r, h)?);
            self.update_all()?;
        }
        for r in refs {
            self.remove(r)?;
            self.update_all()?;
        }
        Ok(())
    }
}

/// `onepath-tilecache` on the same level with the same settings (Layers partition).
#[derive(Debug)]
pub struct OnePathTileCacheRun {
    /// The cache.
    pub cache: TileCache,
}

impl OnePathTileCacheRun {
    /// Builds the level with a cache (on the calling rayon pool).
    pub fn build(level: &Level, settings: &RecastSettings) -> Result<Self, PeerError> {
        let mut cfg = build_config(level, settings)?;
        cfg.partition = Partition::Layers;
        let err = |e: onepath_tilecache::TileCacheError| PeerError::OnePath {
            call: "TileCache::build_soup",
            reason: e.to_string(),
        };
        let cache =
            TileCache::build_soup(&Mesh3DPipeline::new(cfg), &triangle_soup(level)).map_err(err)?;
        Ok(OnePathTileCacheRun { cache })
    }

    /// The cycle: add each cylinder, update all; remove each, update all.
    pub fn cycles(&mut self, cylinders: &[([f32; 3], f32, f32)]) -> Result<(), PeerError> {
        let err = |call: &'static str| {
            move |e: onepath_tilecache::TileCacheError| PeerError::OnePath {
                call,
                reason: e.to_string(),
            }
        };
        let mut ids: Vec<ObstacleId> = Vec::with_capacity(cylinders.len());
        for &(p, r, h) in cylinders {
            let o = Obstacle::Cylinder {
                center: [f64::from(p[0]), f64::from(p[1]), f64::from(p[2])],
                radius: f64::from(r),
                height: f64::from(h),
            };
            ids.push(self.cache.add_obstacle(o).map_err(err("add_obstacle"))?);
            self.cache.update_all().map_err(err("update_all"))?;
        }
        for id in ids {
            self.cache
                .remove_obstacle(id)
                .map_err(err("remove_obstacle"))?;
            self.cache.update_all().map_err(err("update_all"))?;
        }
        Ok(())
    }
}
