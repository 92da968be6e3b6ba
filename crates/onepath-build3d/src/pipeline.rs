//! [`Mesh3DPipeline`]: geometry in, tiles and a [`TiledNavMesh`] out. Tiles are built in
//! parallel (rayon) and merged in tile order, so the thread count never changes a byte.

use std::sync::atomic::{AtomicUsize, Ordering};

use onepath_format::{NavMeshParams, NavSettings, NavTile, NavTileData, Partition};
use onepath_mesh::TiledNavMesh;
use rayon::prelude::*;

use crate::chunky::ChunkyTriMesh;
use crate::compact::{CompactHeightfield, ConvexVolume};
use crate::config::{BuildConfig, VoxelConfig, MAX_HEIGHT_CELLS};
use crate::contour::build_contours;
use crate::detail::{build_detail_into, DetailScratch, PolyDetail};
use crate::error::BuildError;
use crate::handover::{convex_in_f32, to_tile_data_in, TileFrame, TileScratch};
use crate::heightfield::{Heightfield, ScratchPool};
use crate::input::{is_walkable_triangle, HeightGrid, TriangleSoup};
use crate::layers::{is_layer_first, LayerSplit};
use crate::obstacle::Obstacle;
use crate::offmesh::bake_off_mesh_links;
use crate::polymesh::{build_poly_mesh_into, PolyMesh, PolyScratch};
use crate::region;

/// The result of a build: the parameters, every tile in tile order (row `TileZ`, then
/// column `TileX`, then layer), and the mesh holding them (added in that order, so tile `i`
/// is in slot `i`).
#[derive(Debug, Clone)]
pub struct BuiltMesh {
    /// The parameters every tile was created against.
    pub params: NavMeshParams,
    /// The tiles.
    pub tiles: Vec<NavTile>,
    /// The stitched mesh.
    pub mesh: TiledNavMesh,
}

/// The vertical lattice of a build: world Y of cell height 0 and the number of cell heights.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VerticalGrid {
    /// World Y of cell height 0: `OriginY + floor((minY − OriginY) / ch) · ch`.
    pub base_y: f64,
    /// Cell heights covered.
    pub height_cells: i32,
}

/// The 3D builder: a [`BuildConfig`], build-time area volumes and obstacles, and the build
/// entry points ([`Mesh3DPipeline::build_soup`], [`Mesh3DPipeline::build_chunk`],
/// [`Mesh3DPipeline::build_heightfield`]).
#[derive(Debug, Clone, Default)]
pub struct Mesh3DPipeline {
    /// The settings.
    pub config: BuildConfig,
    /// Build-time convex area volumes, applied after erosion in list order (later wins).
    pub volumes: Vec<ConvexVolume>,
    /// Obstacles applied to every tile after erosion and the volumes, in list order
    /// (`docs/build3d-spans.md` §6).
    pub obstacles: Vec<Obstacle>,
}

/// Stages 1–3 of one tile (rasterized, filtered, compacted, eroded, build-time volumes
/// marked): what a tile cache keeps. Obstacles are not marked in it.
#[derive(Debug, Clone, PartialEq)]
pub struct ErodedTile {
    /// Tile column.
    pub tile_x: i32,
    /// Tile row.
    pub tile_z: i32,
    /// The build's vertical lattice.
    pub vgrid: VerticalGrid,
    /// The eroded open-span heightfield of the tile's grid (cells plus border).
    pub chf: CompactHeightfield,
    /// With layer-first tiles ([`is_layer_first`]): the tile's layers, decided on the eroded
    /// heightfield before the volumes and obstacles marked it.
    pub split: Option<LayerSplit>,
}

/// A progress callback: `(tiles done, tiles total)`. Called once per tile from the thread
/// that built it (so not necessarily in tile order); it never changes a result.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// One tile to build and the triangles (ascending) that touch its grid.
#[derive(Debug, Clone)]
pub(crate) struct TileJob {
    pub(crate) tile_x: i32,
    pub(crate) tile_z: i32,
    pub(crate) triangles: Vec<u32>,
}

impl Mesh3DPipeline {
    /// A pipeline with this configuration and no volumes or obstacles.
    pub fn new(config: BuildConfig) -> Self {
        Mesh3DPipeline {
            config,
            volumes: Vec::new(),
            obstacles: Vec::new(),
        }
    }

    /// A pipeline for these settings ([`BuildConfig::from_settings`]).
    pub fn from_settings(settings: &NavSettings) -> Result<Self, BuildError> {
        Ok(Self::new(BuildConfig::from_settings(settings)?))
    }

    /// Builds every tile a triangle soup touches.
    pub fn build_soup(&self, soup: &TriangleSoup) -> Result<BuiltMesh, BuildError> {
        self.build_soup_with_progress(soup, &|_, _| {})
    }

    /// [`Mesh3DPipeline::build_soup`] with a progress callback.
    pub fn build_soup_with_progress(
        &self,
        soup: &TriangleSoup,
        progress: Progress<'_>,
    ) -> Result<BuiltMesh, BuildError> {
        self.check()?;
        soup.validate()?;
        let params = self.config.params();
        let Some((bmin, bmax)) = soup.bounds() else {
            return self.finish(params, Vec::new());
        };
        let jobs = tile_jobs_soup(&params, &self.config.voxel(), soup, bmin, bmax)?;
        self.run(soup, bmin, bmax, &jobs, progress)
    }

    /// Builds a chunked triangle mesh: each tile asks the spatial index for the triangles
    /// near it. Gives exactly the tiles [`Mesh3DPipeline::build_soup`] gives for the same
    /// triangles.
    pub fn build_chunk(&self, chunky: &ChunkyTriMesh) -> Result<BuiltMesh, BuildError> {
        self.build_chunk_with_progress(chunky, &|_, _| {})
    }

    /// [`Mesh3DPipeline::build_chunk`] with a progress callback.
    pub fn build_chunk_with_progress(
        &self,
        chunky: &ChunkyTriMesh,
        progress: Progress<'_>,
    ) -> Result<BuiltMesh, BuildError> {
        self.check()?;
        let soup = chunky.soup();
        soup.validate()?;
        let params = self.config.params();
        let Some((bmin, bmax)) = soup.bounds() else {
            return self.finish(params, Vec::new());
        };
        let vc = self.config.voxel();
        let pad = f64::from(vc.border + 1) * vc.cs;
        let (tx0, tz0, tx1, tz1) = tile_range(&params, bmin, bmax)?;
        let mut jobs = Vec::new();
        for tz in tz0..=tz1 {
            for tx in tx0..=tx1 {
                let (ox, oz) = params.tile_origin(tx, tz);
                let ts = params.tile_size;
                let tris =
                    chunky.triangles_in([ox - pad, oz - pad], [ox + ts + pad, oz + ts + pad]);
                if !tris.is_empty() {
                    jobs.push(TileJob {
                        tile_x: tx,
                        tile_z: tz,
                        triangles: tris,
                    });
                }
            }
        }
        self.run(soup, bmin, bmax, &jobs, progress)
    }

    /// Builds a height grid (terrain): each grid square is two triangles.
    pub fn build_heightfield(&self, grid: &HeightGrid) -> Result<BuiltMesh, BuildError> {
        self.build_heightfield_with_progress(grid, &|_, _| {})
    }

    /// [`Mesh3DPipeline::build_heightfield`] with a progress callback.
    pub fn build_heightfield_with_progress(
        &self,
        grid: &HeightGrid,
        progress: Progress<'_>,
    ) -> Result<BuiltMesh, BuildError> {
        let soup = grid.to_soup()?;
        self.build_soup_with_progress(&soup, progress)
    }

    /// Stages 1–3 of every tile a triangle soup touches, in tile order (built in parallel).
    pub fn eroded_tiles_soup(&self, soup: &TriangleSoup) -> Result<Vec<ErodedTile>, BuildError> {
        self.eroded_tiles_soup_where(soup, false, |_, _| true)
    }

    /// Stages 1–3 of the tiles of `soup` that `keep` accepts (given the tile's job and every
    /// triangle's area after the slope test), in tile order (built in parallel, merged in
    /// order); with `mark_obstacles` each heightfield then carries the pipeline's obstacles.
    pub(crate) fn eroded_tiles_soup_where(
        &self,
        soup: &TriangleSoup,
        mark_obstacles: bool,
        keep: impl Fn(&TileJob, &[u8]) -> bool,
    ) -> Result<Vec<ErodedTile>, BuildError> {
        self.check()?;
        soup.validate()?;
        let params = self.config.params();
        let vc = self.config.voxel();
        let Some((bmin, bmax)) = soup.bounds() else {
            return Ok(Vec::new());
        };
        let jobs = tile_jobs_soup(&params, &vc, soup, bmin, bmax)?;
        let vgrid = vertical_grid(&params, &vc, bmin[1], bmax[1])?;
        let areas = triangle_areas(soup, &vc, self.config.area);
        let kept: Vec<_> = jobs.into_iter().filter(|j| keep(j, &areas)).collect();
        let pool = ScratchPool::default();
        let take = || pool.take();
        Ok(kept
            .par_iter()
            .map_init(take, |hf, job| {
                let (mut chf, split) = self.eroded_heightfield_in(
                    hf,
                    &params,
                    &vc,
                    vgrid,
                    job.tile_x,
                    job.tile_z,
                    |hf| rasterize_job(hf, soup, &areas, &job.triangles, vc.walkable_climb),
                );
                if mark_obstacles {
                    for o in &self.obstacles {
                        o.mark(&mut chf, &vc);
                    }
                }
                ErodedTile {
                    tile_x: job.tile_x,
                    tile_z: job.tile_z,
                    vgrid,
                    chf,
                    split,
                }
            })
            .collect())
    }

    /// Stages 4–5 from eroded tiles (a copy of each is marked; the tiles are not changed):
    /// the pipeline's obstacles, then `obstacles` in order (a cache's own), then `volumes` in
    /// order (a cache's run-time volumes; the later wins), then regions, contours, polygons,
    /// detail, authored links, tiles and the mesh. With nothing extra this is exactly the plain
    /// build; obstacles are idempotent per span and volumes only mark walkable spans, so an
    /// extra obstacle equals one in [`Mesh3DPipeline::obstacles`] and an extra volume equals
    /// one at the end of [`Mesh3DPipeline::volumes`] (tested).
    pub fn build_from_eroded(
        &self,
        tiles: &[ErodedTile],
        obstacles: &[Obstacle],
        volumes: &[ConvexVolume],
    ) -> Result<BuiltMesh, BuildError> {
        self.check()?;
        for (i, o) in obstacles.iter().enumerate() {
            o.validate(i)?;
        }
        for (i, v) in volumes.iter().enumerate() {
            v.validate(i)?;
        }
        let params = self.config.params();
        let vc = self.config.voxel();
        let results: Vec<Result<Vec<NavTileData>, BuildError>> = tiles
            .par_iter()
            .map(|t| {
                let mut chf = t.chf.clone();
                for o in self.obstacles.iter().chain(obstacles) {
                    o.mark(&mut chf, &vc);
                }
                for v in volumes {
                    chf.mark_convex_volume(v);
                }
                self.tile_data_from_split(
                    &params,
                    &vc,
                    t.vgrid,
                    t.tile_x,
                    t.tile_z,
                    &chf,
                    t.split.as_ref(),
                )
            })
            .collect();
        let mut datas = Vec::new();
        for r in results {
            datas.extend(r?);
        }
        self.finish(params, datas)
    }

    pub(crate) fn check(&self) -> Result<(), BuildError> {
        self.config.validate()?;
        for (i, o) in self.obstacles.iter().enumerate() {
            o.validate(i)?;
        }
        for (i, v) in self.volumes.iter().enumerate() {
            v.validate(i)?;
        }
        Ok(())
    }

    fn run(
        &self,
        soup: &TriangleSoup,
        bmin: [f64; 3],
        bmax: [f64; 3],
        jobs: &[TileJob],
        progress: Progress<'_>,
    ) -> Result<BuiltMesh, BuildError> {
        let params = self.config.params();
        let vc = self.config.voxel();
        let vgrid = vertical_grid(&params, &vc, bmin[1], bmax[1])?;
        let areas = triangle_areas(soup, &vc, self.config.area);
        let total = jobs.len();
        let done = AtomicUsize::new(0);
        // One solid heightfield per worker (rayon's `map_init`, from one pool for the build),
        // reused tile after tile.
        let pool = ScratchPool::default();
        let take = || pool.take();
        let results: Vec<Result<Vec<NavTileData>, BuildError>> = jobs
            .par_iter()
            .map_init(take, |hf, job| {
                let r = self.build_tile_data_in(
                    hf,
                    &params,
                    &vc,
                    vgrid,
                    job.tile_x,
                    job.tile_z,
                    |hf| rasterize_job(hf, soup, &areas, &job.triangles, vc.walkable_climb),
                );
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                progress(n, total);
                r
            })
            .collect();
        let mut datas = Vec::new();
        for r in results {
            datas.extend(r?);
        }
        self.finish(params, datas)
    }

    /// Bakes the authored links, validates every tile (in parallel, merged in order) and
    /// adds them to a new mesh in tile order.
    fn finish(
        &self,
        params: NavMeshParams,
        mut datas: Vec<NavTileData>,
    ) -> Result<BuiltMesh, BuildError> {
        bake_off_mesh_links(&params, &self.config.off_mesh_links, &mut datas)?;
        let created: Vec<Result<NavTile, BuildError>> = datas
            .into_par_iter()
            .map(|d| {
                let (tile_x, tile_z, layer) = (d.tile_x, d.tile_z, d.layer);
                NavTile::create(&params, d).map_err(|source| BuildError::Tile {
                    tile_x,
                    tile_z,
                    layer,
                    source,
                })
            })
            .collect();
        let mut tiles = Vec::with_capacity(created.len());
        for t in created {
            tiles.push(t?);
        }
        let mut mesh = TiledNavMesh::new(params)?;
        for t in &tiles {
            mesh.add_tile(t.clone())?;
        }
        Ok(BuiltMesh {
            params,
            tiles,
            mesh,
        })
    }

    /// Builds one tile's data (every layer): `rasterize` fills the tile's solid heightfield
    /// (its cells plus the border), then every later stage runs. Off-mesh links are not
    /// baked here (they need the whole column).
    pub fn build_tile_data(
        &self,
        params: &NavMeshParams,
        vc: &VoxelConfig,
        vgrid: VerticalGrid,
        tile_x: i32,
        tile_z: i32,
        rasterize: impl FnOnce(&mut Heightfield),
    ) -> Result<Vec<NavTileData>, BuildError> {
        let mut hf = Heightfield::scratch();
        self.build_tile_data_in(&mut hf, params, vc, vgrid, tile_x, tile_z, rasterize)
    }

    /// [`Mesh3DPipeline::build_tile_data`] in a reused solid heightfield.
    #[allow(clippy::too_many_arguments)]
    fn build_tile_data_in(
        &self,
        hf: &mut Heightfield,
        params: &NavMeshParams,
        vc: &VoxelConfig,
        vgrid: VerticalGrid,
        tile_x: i32,
        tile_z: i32,
        rasterize: impl FnOnce(&mut Heightfield),
    ) -> Result<Vec<NavTileData>, BuildError> {
        let (mut chf, split) =
            self.eroded_heightfield_in(hf, params, vc, vgrid, tile_x, tile_z, rasterize);
        for o in &self.obstacles {
            o.mark(&mut chf, vc);
        }
        let r = self.tile_data_from_split(params, vc, vgrid, tile_x, tile_z, &chf, split.as_ref());
        hf.recycle_compact(chf);
        r
    }

    /// Stages 1–3 of a tile: rasterize, filter, compact, erode, build-time volumes. This is
    /// what a tile cache keeps.
    pub fn eroded_heightfield(
        &self,
        params: &NavMeshParams,
        vc: &VoxelConfig,
        vgrid: VerticalGrid,
        tile_x: i32,
        tile_z: i32,
        rasterize: impl FnOnce(&mut Heightfield),
    ) -> CompactHeightfield {
        let mut hf = Heightfield::scratch();
        self.eroded_heightfield_in(&mut hf, params, vc, vgrid, tile_x, tile_z, rasterize)
            .0
    }

    /// [`Mesh3DPipeline::eroded_heightfield`] in a reused solid heightfield (reset first, so
    /// its old contents never matter; only its memory is reused), with layer-first tiles
    /// also the tile's layers, decided after erosion and before the volumes.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn eroded_heightfield_in(
        &self,
        hf: &mut Heightfield,
        params: &NavMeshParams,
        vc: &VoxelConfig,
        vgrid: VerticalGrid,
        tile_x: i32,
        tile_z: i32,
        rasterize: impl FnOnce(&mut Heightfield),
    ) -> (CompactHeightfield, Option<LayerSplit>) {
        let b = vc.border;
        let w = vc.tile_cells + 2 * b;
        let (ox, oz) = params.tile_origin(tile_x, tile_z);
        let bcs = f64::from(b) * vc.cs;
        let origin = [ox - bcs, vgrid.base_y, oz - bcs];
        hf.reset(w, w, origin, vc.cs, vc.ch, vgrid.height_cells);
        rasterize(hf);
        hf.filter_walkable(vc.walkable_height, vc.walkable_climb);
        let mut chf = CompactHeightfield::build_in(hf, b, vc.walkable_height, vc.walkable_climb);
        chf.erode(vc.walkable_radius);
        // The split is a function of the geometry alone: no volume or obstacle, the
        // pipeline's or a cache's, moves a span to another layer.
        let split = is_layer_first(vc).then(|| LayerSplit::of(&chf));
        for v in &self.volumes {
            chf.mark_convex_volume(v);
        }
        (chf, split)
    }

    /// Stage 5 of a tile from its (marked) compact heightfield: regions, contours,
    /// polygons, detail, tile data (one per layer). With the Layers partition this is the
    /// *general path*: the layers are decided on the marked areas. The builds themselves
    /// use [`Mesh3DPipeline::tile_data_from_split`], which with layer-first tiles keeps the
    /// layers decided after erosion.
    pub fn tile_data_from_compact(
        &self,
        params: &NavMeshParams,
        vc: &VoxelConfig,
        vgrid: VerticalGrid,
        tile_x: i32,
        tile_z: i32,
        chf: &CompactHeightfield,
    ) -> Result<Vec<NavTileData>, BuildError> {
        let frame = tile_frame(params, vc, vgrid);
        let regions = match vc.partition {
            Partition::Monotone => region::monotone(chf, vc.min_region_area, vc.merge_region_area),
            Partition::Layers => {
                let split = LayerSplit::of(chf);
                return self.tile_data_of_layers(params, vc, vgrid, tile_x, tile_z, chf, &split);
            }
            Partition::Watershed => {
                region::watershed(chf, vc.min_region_area, vc.merge_region_area)
            }
        };
        Ok(self
            .polygons_to_data(params, vc, &frame, tile_x, tile_z, 0, chf, &regions.ids)?
            .into_iter()
            .collect())
    }

    /// Stage 5 of a tile from its marked compact heightfield and, with layer-first tiles,
    /// the layers decided after erosion (`split`, from [`ErodedTile::split`]): each layer
    /// goes through regions, contours, polygons, detail and tile data on its own
    /// ([`Mesh3DPipeline::layer_tile_data`]) and the layers with a polygon are numbered
    /// densely ([`number_layers`]). Without a split this is
    /// [`Mesh3DPipeline::tile_data_from_compact`].
    #[allow(clippy::too_many_arguments)]
    pub fn tile_data_from_split(
        &self,
        params: &NavMeshParams,
        vc: &VoxelConfig,
        vgrid: VerticalGrid,
        tile_x: i32,
        tile_z: i32,
        chf: &CompactHeightfield,
        split: Option<&LayerSplit>,
    ) -> Result<Vec<NavTileData>, BuildError> {
        match split {
            Some(split) => self.tile_data_of_layers(params, vc, vgrid, tile_x, tile_z, chf, split),
            None => self.tile_data_from_compact(params, vc, vgrid, tile_x, tile_z, chf),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn tile_data_of_layers(
        &self,
        params: &NavMeshParams,
        vc: &VoxelConfig,
        vgrid: VerticalGrid,
        tile_x: i32,
        tile_z: i32,
        chf: &CompactHeightfield,
        split: &LayerSplit,
    ) -> Result<Vec<NavTileData>, BuildError> {
        let mut out = Vec::with_capacity(usize::from(split.count));
        for (layer, sub) in split.apply(chf).iter().enumerate() {
            out.push(self.layer_tile_data(params, vc, vgrid, tile_x, tile_z, layer as u16, sub)?);
        }
        Ok(number_layers(out))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn polygons_to_data(
        &self,
        params: &NavMeshParams,
        vc: &VoxelConfig,
        frame: &TileFrame,
        tile_x: i32,
        tile_z: i32,
        layer: u16,
        chf: &CompactHeightfield,
        regions: &[u16],
    ) -> Result<Option<NavTileData>, BuildError> {
        let contours = build_contours(chf, regions, vc.contour_max_error, vc.max_edge_length);
        self.contours_to_data(
            params, vc, frame, tile_x, tile_z, layer, chf, regions, &contours,
        )
    }

    /// [`Mesh3DPipeline::polygons_to_data`] from the regions' contours.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn contours_to_data<'c, I>(
        &self,
        params: &NavMeshParams,
        vc: &VoxelConfig,
        frame: &TileFrame,
        tile_x: i32,
        tile_z: i32,
        layer: u16,
        chf: &CompactHeightfield,
        regions: &[u16],
        contours: I,
    ) -> Result<Option<NavTileData>, BuildError>
    where
        I: IntoIterator<Item = &'c crate::contour::Contour>,
        I::IntoIter: Clone,
    {
        let convex_ok = |verts: &[[i32; 3]], poly: &[u32]| convex_in_f32(frame, verts, poly);
        POLYGON_STAGES.with_borrow_mut(|sc| {
            let PolygonStageScratch {
                poly,
                mesh,
                detail,
                details,
                tile,
            } = sc;
            build_poly_mesh_into(poly, mesh, contours, vc.nvp, &convex_ok);
            build_detail_into(detail, details, mesh, chf, regions, frame, vc);
            to_tile_data_in(
                tile,
                params,
                frame,
                tile_x,
                tile_z,
                layer,
                mesh,
                Some(&details[..mesh.polys.len()]),
                self.config.flags,
            )
        })
    }
}

/// The working buffers of the polygon, detail and hand-over stages
/// ([`Mesh3DPipeline::contours_to_data`]), kept per thread so that one layer after another
/// (a plain build's tiles, a tile cache's rebuilds) reuses them instead of allocating them
/// again. Every stage clears what it uses first: what a buffer held before never reaches a
/// result.
#[derive(Default)]
struct PolygonStageScratch {
    poly: PolyScratch,
    /// The polygon mesh of the last layer (its lists reused by the next).
    mesh: PolyMesh,
    detail: DetailScratch,
    /// The detail of the last layer's polygons (and possibly more entries from an earlier
    /// layer; only the first `mesh.polys.len()` are the last layer's).
    details: Vec<PolyDetail>,
    tile: TileScratch,
}

thread_local! {
    static POLYGON_STAGES: std::cell::RefCell<PolygonStageScratch> = std::cell::RefCell::default();
}

/// The tiles of a column from its layers' results in layer order: layers without a
/// polygon take no number, the others are numbered densely from 0.
pub fn number_layers(layers: Vec<Option<NavTileData>>) -> Vec<NavTileData> {
    let mut out: Vec<NavTileData> = layers.into_iter().flatten().collect();
    for (k, d) in out.iter_mut().enumerate() {
        d.layer = k as u16;
    }
    out
}

/// Rasterizes the listed triangles (ascending) with their areas.
pub(crate) fn rasterize_job(
    hf: &mut Heightfield,
    soup: &TriangleSoup,
    areas: &[u8],
    triangles: &[u32],
    climb: i32,
) {
    let triangles = triangles.iter().map(|&t| {
        let tri = soup.triangles[t as usize];
        let v = [
            soup.vertices[tri[0] as usize],
            soup.vertices[tri[1] as usize],
            soup.vertices[tri[2] as usize],
        ];
        (v, areas[t as usize])
    });
    hf.rasterize_triangles(triangles, climb);
}

/// Most tiles the X/Z bounds of one build may cover (4 194 304); a larger level is
/// rejected before anything is allocated for it.
pub const MAX_BUILD_TILES: u64 = 1 << 22;

/// The tile range `(tx0, tz0, tx1, tz1)` of the bounds, checked against [`MAX_BUILD_TILES`].
fn tile_range(
    params: &NavMeshParams,
    bmin: [f64; 3],
    bmax: [f64; 3],
) -> Result<(i32, i32, i32, i32), BuildError> {
    let (tx0, tz0) = params.world_to_tile(bmin[0], bmin[2]);
    let (tx1, tz1) = params.world_to_tile(bmax[0], bmax[2]);
    let n =
        (i64::from(tx1) - i64::from(tx0) + 1) as u64 * (i64::from(tz1) - i64::from(tz0) + 1) as u64;
    if n > MAX_BUILD_TILES {
        return Err(BuildError::input(
            "vertices",
            format!("the level covers {n} tiles; at most {MAX_BUILD_TILES} are built at once"),
        ));
    }
    Ok((tx0, tz0, tx1, tz1))
}

/// The vertical lattice for geometry spanning `min_y..=max_y`.
pub fn vertical_grid(
    params: &NavMeshParams,
    vc: &VoxelConfig,
    min_y: f64,
    max_y: f64,
) -> Result<VerticalGrid, BuildError> {
    let base_y = params.origin_y + ((min_y - params.origin_y) / vc.ch).floor() * vc.ch;
    let cells = ((max_y - base_y) / vc.ch).ceil() + 1.0;
    let most = MAX_HEIGHT_CELLS - 1 - vc.walkable_height;
    if cells.is_nan() || cells > f64::from(most) {
        return Err(BuildError::input(
            "vertices",
            format!("the level is {cells} cell heights tall; at most {most} fit"),
        ));
    }
    Ok(VerticalGrid {
        base_y,
        height_cells: cells as i32,
    })
}

/// The area each triangle rasterizes with: its own (or the default) when walkable, else 0.
pub fn triangle_areas(soup: &TriangleSoup, vc: &VoxelConfig, default_area: u8) -> Vec<u8> {
    soup.triangles
        .iter()
        .enumerate()
        .map(|(t, tri)| {
            let v = [
                soup.vertices[tri[0] as usize],
                soup.vertices[tri[1] as usize],
                soup.vertices[tri[2] as usize],
            ];
            let a = soup.areas.as_ref().map_or(default_area, |a| a[t]);
            if a != 0 && is_walkable_triangle(v, vc.walkable_slope_cos) {
                a
            } else {
                0
            }
        })
        .collect()
}

/// Tiles whose cells overlap the geometry's bounds, in tile order, each with the triangles
/// whose bounds touch the tile's grid (cells plus border, one cell of slack).
pub(crate) fn tile_jobs_soup(
    params: &NavMeshParams,
    vc: &VoxelConfig,
    soup: &TriangleSoup,
    bmin: [f64; 3],
    bmax: [f64; 3],
) -> Result<Vec<TileJob>, BuildError> {
    let (tx0, tz0, tx1, tz1) = tile_range(params, bmin, bmax)?;
    let nx = (i64::from(tx1) - i64::from(tx0) + 1) as usize;
    let nz = (i64::from(tz1) - i64::from(tz0) + 1) as usize;
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); nx * nz];
    let pad = f64::from(vc.border + 1) * vc.cs;
    for (t, tri) in soup.triangles.iter().enumerate() {
        let (lo, hi) = crate::chunky::triangle_bounds(soup, tri);
        let (ax, az) = params.world_to_tile(lo[0] - pad, lo[1] - pad);
        let (bx, bz) = params.world_to_tile(hi[0] + pad, hi[1] + pad);
        for tz in az.max(tz0)..=bz.min(tz1) {
            for tx in ax.max(tx0)..=bx.min(tx1) {
                lists[(tz - tz0) as usize * nx + (tx - tx0) as usize].push(t as u32);
            }
        }
    }
    let mut jobs = Vec::new();
    for tz in tz0..=tz1 {
        for tx in tx0..=tx1 {
            let tris = std::mem::take(&mut lists[(tz - tz0) as usize * nx + (tx - tx0) as usize]);
            if !tris.is_empty() {
                jobs.push(TileJob {
                    tile_x: tx,
                    tile_z: tz,
                    triangles: tris,
                });
            }
        }
    }
    Ok(jobs)
}

/// The tile frame stage 5 writes tile data in: the voxel grid's cell sizes and tile edge,
/// the vertical grid's base and the parameters' `(float)TileSize`.
pub(crate) fn tile_frame(
    params: &NavMeshParams,
    vc: &VoxelConfig,
    vgrid: VerticalGrid,
) -> TileFrame {
    TileFrame {
        tile_cells: vc.tile_cells,
        cs: vc.cs,
        ch: vc.ch,
        base_y: vgrid.base_y,
        tile_size_f32: params.tile_size_f32(),
    }
}
