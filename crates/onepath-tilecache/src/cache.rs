//! [`TileCache`]: the cached stage 3 of every tile, the obstacles and volumes in force, the
//! rebuild queue, and the mesh the rebuilt tiles are swapped into (`docs/tilecache.md`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use onepath_build3d::layers::split_layers;
use onepath_build3d::offmesh::bake_off_mesh_links;
use onepath_build3d::pipeline::number_layers;
use onepath_build3d::{
    BuildError, ChunkyTriMesh, CompactHeightfield, ConvexVolume, ErodedTile, HeightGrid,
    Mesh3DPipeline, Obstacle, Progress, TriangleSoup, VerticalGrid, VoxelConfig,
};
use onepath_format::{Fingerprint, NavMeshParams, NavTile, NavTileData, Partition};
use onepath_mesh::TiledNavMesh;
use rayon::prelude::*;

use crate::error::TileCacheError;
use crate::layered::{layer_results, mark_layers, undo_marks, CachedLayer, LayerChange, LayerMark};
use crate::shapes::{
    check_obstacle, check_volume, obstacle_box, volume_box, ObstacleId, VolumeId, MAX_ID,
};
use crate::snapshot::MAX_SNAPSHOT_SHAPES;

/// A tile position as the queue and ONTK name it: `(column, row)` = `(TileX, TileZ)`.
pub type TileColumn = (i32, i32);

/// What the cache keeps of one built tile.
#[derive(Debug, Clone)]
pub(crate) struct CachedTile {
    pub(crate) vgrid: VerticalGrid,
    /// Stage 3 with the pipeline's own volumes and obstacles; the span graph (links,
    /// columns) is built once and shared by every rebuild. Its `areas` are those of the last
    /// marking (scratch between rebuilds).
    pub(crate) chf: CompactHeightfield,
    /// The areas of the first build (after the pipeline's own volumes and obstacles).
    pub(crate) first_areas: Vec<u8>,
    /// Whether `chf.areas` are the areas the mesh's tiles of this column were last built
    /// from (false after a restore: the mesh may hold anything).
    pub(crate) last_known: bool,
    /// The first build's tiles of this column, by layer.
    pub(crate) first_tiles: Vec<NavTile>,
    /// With the Layers partition: each layer's heightfield of the last full rebuild and its
    /// tile data (before the dense renumbering). A layer is a function of its heightfield, so
    /// an equal one takes the kept data instead of regions, contours and polygons again.
    pub(crate) layer_memo: LayerMemo,
    /// With layer-first tiles: the tile's layers, split once at the first build.
    pub(crate) layers: Option<Vec<CachedLayer>>,
}

impl CachedTile {
    /// Forgets the areas the mesh's tiles of the column were last built from.
    pub(crate) fn forget_last(&mut self) {
        self.last_known = false;
        for l in self.layers.iter_mut().flatten() {
            l.forget_last();
        }
    }
}

/// Each layer's heightfield and its tile data, by layer.
pub(crate) type LayerMemo = Vec<(CompactHeightfield, Option<NavTileData>)>;

/// Counters of what [`TileCache::update`] did, summed since the cache was built (or over
/// one call, as its return value).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UpdateStats {
    /// Queued tiles processed (one tile is one iteration).
    pub tiles: usize,
    /// Tiles whose areas equalled the last build's: nothing done.
    pub unchanged: usize,
    /// Tiles whose areas equalled the first build's: the first build's tiles taken (with
    /// layer-first tiles: tiles that changed, but no layer of which needed building).
    pub first_build: usize,
    /// Tiles in which at least one layer was built again (regions, contours, polygons,
    /// detail, tile data).
    pub rebuilt: usize,
    /// Layers built (with or without a polygon): the layer builds of DetourTileCache's
    /// count.
    pub layers_built: usize,
    /// Layers of changed tiles taken without building: with layer-first tiles a layer whose
    /// areas equalled its last or first build's; on the general path a layer whose
    /// heightfield equalled the last full rebuild's.
    pub layers_reused: usize,
    /// Layers whose rebuilt tile equalled the mesh's: the mesh's tile kept.
    pub layers_kept: usize,
    /// Layers replaced in their slot.
    pub layers_replaced: usize,
    /// Layers added.
    pub layers_added: usize,
    /// Layers removed.
    pub layers_removed: usize,
    /// Layers built by repairing their first build (`docs/tilecache.md` §5, "Repairing a
    /// layer"); counted in `layers_built`.
    pub layers_repaired: usize,
    /// Layers built from scratch because repair is turned off
    /// ([`TileCache::set_repair`]) or the layer has nothing to repair from.
    pub scratch_repair_off: usize,
    /// Layers built from scratch because a span changed to an area other than 0
    /// (precondition (a)).
    pub scratch_not_only_removed: usize,
    /// Layers built from scratch because a region would fall below `MinRegionArea` or
    /// vanish, or a small region is next to a removed span (precondition (b)).
    pub scratch_small_region: usize,
    /// Layers built from scratch because a region that lost spans may be in pieces
    /// (precondition (c)).
    pub scratch_split: usize,
    /// Layers built from scratch because a region's rank among the first spans changed
    /// (precondition (d)).
    pub scratch_renumbered: usize,
}

impl UpdateStats {
    fn add(&mut self, o: &UpdateStats) {
        self.tiles += o.tiles;
        self.unchanged += o.unchanged;
        self.first_build += o.first_build;
        self.rebuilt += o.rebuilt;
        self.layers_built += o.layers_built;
        self.layers_reused += o.layers_reused;
        self.layers_kept += o.layers_kept;
        self.layers_replaced += o.layers_replaced;
        self.layers_added += o.layers_added;
        self.layers_removed += o.layers_removed;
        self.layers_repaired += o.layers_repaired;
        self.scratch_repair_off += o.scratch_repair_off;
        self.scratch_not_only_removed += o.scratch_not_only_removed;
        self.scratch_small_region += o.scratch_small_region;
        self.scratch_split += o.scratch_split;
        self.scratch_renumbered += o.scratch_renumbered;
    }
}

/// A tile cache: a level built once with [`Mesh3DPipeline`], then changed while the game runs
/// by obstacles ([`TileCache::add_obstacle`]) and run-time area volumes
/// ([`TileCache::add_volume`]), whose tiles are rebuilt from the cached stage 3 by
/// [`TileCache::update`] and swapped into [`TileCache::mesh`] layer by layer.
///
/// The mesh once the queue is empty depends only on the obstacles and volumes in force,
/// never on how the work was sliced, and equals a fresh build with the obstacles in
/// [`Mesh3DPipeline::obstacles`] and the volumes at the end of [`Mesh3DPipeline::volumes`],
/// tile for tile and byte for byte.
#[derive(Debug, Clone)]
pub struct TileCache {
    pub(crate) pipeline: Mesh3DPipeline,
    pub(crate) params: NavMeshParams,
    pub(crate) vc: VoxelConfig,
    /// Cached tiles by (row, column): iteration is queueing order.
    pub(crate) tiles: BTreeMap<(i32, i32), CachedTile>,
    pub(crate) obstacles: BTreeMap<ObstacleId, Obstacle>,
    pub(crate) volumes: BTreeMap<VolumeId, ConvexVolume>,
    pub(crate) next_obstacle: u32,
    pub(crate) next_volume: u32,
    /// Queued tiles as (column, row), front first.
    pub(crate) queue: VecDeque<TileColumn>,
    pub(crate) queued: BTreeSet<TileColumn>,
    pub(crate) mesh: TiledNavMesh,
    pub(crate) stats: UpdateStats,
    /// Whether changed layer-first layers are repaired from their first build (on by
    /// default; off builds every changed layer from scratch, with the same bytes).
    pub(crate) repair: bool,
}

impl TileCache {
    /// Builds a triangle soup with a cache: the mesh is exactly the one
    /// [`Mesh3DPipeline::build_soup`] gives. The pipeline (its settings, volumes and
    /// obstacles) is copied and fixed: a built cache never reads it again.
    pub fn build_soup(
        pipeline: &Mesh3DPipeline,
        soup: &TriangleSoup,
    ) -> Result<TileCache, TileCacheError> {
        Self::build_soup_with_progress(pipeline, soup, &|_, _| {})
    }

    /// [`TileCache::build_soup`] with a progress callback: `(tiles built, tiles to build)`,
    /// called once per cached tile when its tiles are built, from the thread that built it
    /// (so not necessarily in tile order). It never changes a result.
    pub fn build_soup_with_progress(
        pipeline: &Mesh3DPipeline,
        soup: &TriangleSoup,
        progress: Progress<'_>,
    ) -> Result<TileCache, TileCacheError> {
        let eroded = pipeline.cached_tiles_soup(soup)?;
        Self::from_eroded(pipeline, eroded, progress)
    }

    /// Builds a chunked triangle mesh with a cache: the mesh [`Mesh3DPipeline::build_chunk`]
    /// gives (equal to [`TileCache::build_soup`] of the same triangles).
    pub fn build_chunk(
        pipeline: &Mesh3DPipeline,
        chunky: &ChunkyTriMesh,
    ) -> Result<TileCache, TileCacheError> {
        Self::build_soup(pipeline, chunky.soup())
    }

    /// Builds a height grid with a cache: the mesh [`Mesh3DPipeline::build_heightfield`]
    /// gives.
    pub fn build_heightfield(
        pipeline: &Mesh3DPipeline,
        grid: &HeightGrid,
    ) -> Result<TileCache, TileCacheError> {
        Self::build_soup(pipeline, &grid.to_soup()?)
    }

    fn from_eroded(
        pipeline: &Mesh3DPipeline,
        eroded: Vec<ErodedTile>,
        progress: Progress<'_>,
    ) -> Result<TileCache, TileCacheError> {
        let total = eroded.len();
        let done = AtomicUsize::new(0);
        let tick = || progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
        let params = pipeline.config.params();
        let vc = pipeline.config.voxel();
        // With Layers each layer's heightfield and data are kept from the start (the memo of
        // later rebuilds); the tiles are the plain build's either way (tested).
        // Layer-first tiles keep their layers instead: split once, each layer built on its
        // own by the plain build's driver.
        type Built = Result<
            (
                Vec<NavTileData>,
                Option<LayerMemo>,
                Option<Vec<CachedLayer>>,
            ),
            BuildError,
        >;
        let built: Vec<Built> = eroded
            .par_iter()
            .map(|t| {
                let column = (t.tile_x, t.tile_z);
                if let Some(split) = &t.split {
                    let mut layers = Vec::with_capacity(usize::from(split.count));
                    let mut results = Vec::with_capacity(usize::from(split.count));
                    for (l, sub) in split.apply(&t.chf).into_iter().enumerate() {
                        let d = pipeline.layer_tile_data(
                            &params, &vc, t.vgrid, column.0, column.1, l as u16, &sub,
                        )?;
                        results.push(d.clone());
                        layers.push(CachedLayer::new(pipeline, &vc, sub, d));
                    }
                    tick();
                    return Ok((number_layers(results), None, Some(layers)));
                }
                let (d, memo, _) =
                    column_data(pipeline, &params, &vc, t.vgrid, column, &t.chf, &[])?;
                tick();
                Ok((d, memo, None))
            })
            .collect();
        let mut datas = Vec::new();
        let mut counts = Vec::with_capacity(built.len());
        let mut memos = Vec::with_capacity(built.len());
        let mut layered = Vec::with_capacity(built.len());
        for r in built {
            let (d, memo, layers) = r?;
            counts.push(d.len());
            memos.push(memo.unwrap_or_default());
            layered.push(layers);
            datas.extend(d);
        }
        let links = !pipeline.config.off_mesh_links.is_empty();
        bake_off_mesh_links(&params, &pipeline.config.off_mesh_links, &mut datas)?;
        let fingerprint = params.fingerprint();
        let created: Vec<Result<NavTile, BuildError>> = datas
            .into_par_iter()
            .map(|d| create(&params, fingerprint, d))
            .collect();
        let mut mesh = TiledNavMesh::new(params).map_err(BuildError::from)?;
        let mut created = created.into_iter();
        let mut tiles = BTreeMap::new();
        for (((t, n), layer_memo), mut layers) in
            eroded.into_iter().zip(counts).zip(memos).zip(layered)
        {
            let mut first_tiles = Vec::with_capacity(n);
            for c in created.by_ref().take(n) {
                let tile = c?;
                mesh.add_tile(tile.clone()).map_err(BuildError::from)?;
                first_tiles.push(tile);
            }
            if let (Some(layers), false) = (layers.as_mut(), links) {
                let mut numbered = first_tiles.iter();
                for l in layers.iter_mut().filter(|l| l.first_data.is_some()) {
                    l.first_tile = numbered.next().cloned();
                    l.last_tile = l.first_tile.clone();
                }
            }
            let first_areas = t.chf.areas.clone();
            tiles.insert(
                (t.tile_z, t.tile_x),
                CachedTile {
                    vgrid: t.vgrid,
                    chf: t.chf,
                    first_areas,
                    last_known: true,
                    first_tiles,
                    layer_memo,
                    layers,
                },
            );
        }
        Ok(TileCache {
            pipeline: pipeline.clone(),
            params,
            vc,
            tiles,
            obstacles: BTreeMap::new(),
            volumes: BTreeMap::new(),
            next_obstacle: 1,
            next_volume: 1,
            queue: VecDeque::new(),
            queued: BTreeSet::new(),
            mesh,
            stats: UpdateStats::default(),
            repair: true,
        })
    }

    /// The mesh the rebuilt tiles are swapped into. Queries and corridors on it see each
    /// swap at once.
    pub fn mesh(&self) -> &TiledNavMesh {
        &self.mesh
    }

    /// The mesh, for run-time polygon edits and off-mesh link switches (they stay on a tile
    /// the cache keeps). Tiles added or removed here are what a later swap finds.
    pub fn mesh_mut(&mut self) -> &mut TiledNavMesh {
        &mut self.mesh
    }

    /// The pipeline the cache was built with (a copy, fixed at build time).
    pub fn pipeline(&self) -> &Mesh3DPipeline {
        &self.pipeline
    }

    /// The mesh parameters.
    pub fn params(&self) -> &NavMeshParams {
        &self.params
    }

    /// The cached tiles as (column, row), by row then column.
    pub fn cached_tiles(&self) -> impl ExactSizeIterator<Item = TileColumn> + '_ {
        self.tiles.keys().map(|&(z, x)| (x, z))
    }

    /// Whether the cache holds stage 3 of tile (column, row).
    pub fn is_cached(&self, column: TileColumn) -> bool {
        self.tiles.contains_key(&(column.1, column.0))
    }

    /// The first build's tiles of (column, row), by layer (empty when it is not cached).
    pub fn first_build_tiles(&self, column: TileColumn) -> &[NavTile] {
        self.tiles
            .get(&(column.1, column.0))
            .map_or(&[], |t| t.first_tiles.as_slice())
    }

    /// The obstacles in force, ascending id.
    pub fn obstacles(&self) -> impl ExactSizeIterator<Item = (ObstacleId, &Obstacle)> + '_ {
        self.obstacles.iter().map(|(&id, o)| (id, o))
    }

    /// The run-time area volumes in force, in the order they apply (ascending id).
    pub fn volumes(&self) -> impl ExactSizeIterator<Item = (VolumeId, &ConvexVolume)> + '_ {
        self.volumes.iter().map(|(&id, v)| (id, v))
    }

    /// The id the next obstacle gets.
    pub fn next_obstacle_id(&self) -> ObstacleId {
        ObstacleId(self.next_obstacle)
    }

    /// The id the next volume gets.
    pub fn next_volume_id(&self) -> VolumeId {
        VolumeId(self.next_volume)
    }

    /// The queued tiles as (column, row), front first.
    pub fn queue(&self) -> impl ExactSizeIterator<Item = TileColumn> + '_ {
        self.queue.iter().copied()
    }

    /// What every [`TileCache::update`] since the build did, summed.
    pub fn stats(&self) -> UpdateStats {
        self.stats
    }

    /// Turns the repair of layer-first layers on (the default) or off. Either way every
    /// rebuild gives the same bytes; off, every changed layer is built from scratch (for
    /// tests and measurement). [`UpdateStats::layers_repaired`] and the `scratch_*` counters
    /// say how each built layer was made.
    pub fn set_repair(&mut self, on: bool) {
        self.repair = on;
    }

    /// Whether layers are repaired ([`TileCache::set_repair`]).
    pub fn repair(&self) -> bool {
        self.repair
    }

    /// Adds an obstacle and queues the tiles it may touch. Every number must be finite and
    /// within ±2^21 (extents too), with the shape's size rules; else
    /// [`TileCacheError::Build`] naming the value, and nothing changes. At most 2^20
    /// obstacles are in force at once ([`TileCacheError::TooMany`]).
    pub fn add_obstacle(&mut self, obstacle: Obstacle) -> Result<ObstacleId, TileCacheError> {
        check_obstacle(&obstacle)?;
        if self.obstacles.len() >= MAX_SNAPSHOT_SHAPES {
            return Err(TileCacheError::TooMany {
                what: "obstacle",
                max: MAX_SNAPSHOT_SHAPES,
            });
        }
        let id = ObstacleId(take_id(&mut self.next_obstacle, "obstacle")?);
        self.obstacles.insert(id, obstacle);
        self.enqueue(obstacle_box(&obstacle));
        Ok(id)
    }

    /// Removes an obstacle and queues the tiles it may have touched. An unknown id is
    /// [`TileCacheError::UnknownObstacle`], and nothing changes.
    pub fn remove_obstacle(&mut self, id: ObstacleId) -> Result<Obstacle, TileCacheError> {
        let o = self
            .obstacles
            .remove(&id)
            .ok_or(TileCacheError::UnknownObstacle { id })?;
        self.enqueue(obstacle_box(&o));
        Ok(o)
    }

    /// Adds a run-time area volume (applied after the pipeline's own and the earlier ones;
    /// the later wins; area 0 removes walkability without growth) and queues the tiles it
    /// may touch. 3 to 256 corners, numbers finite and within ±2^21, `min_y ≤ max_y`, area
    /// 0 to 63; else [`TileCacheError::Build`] naming the value, and nothing changes.
    pub fn add_volume(&mut self, volume: ConvexVolume) -> Result<VolumeId, TileCacheError> {
        check_volume(&volume)?;
        if self.volumes.len() >= MAX_SNAPSHOT_SHAPES {
            return Err(TileCacheError::TooMany {
                what: "volume",
                max: MAX_SNAPSHOT_SHAPES,
            });
        }
        let id = VolumeId(take_id(&mut self.next_volume, "volume")?);
        let b = volume_box(&volume);
        self.volumes.insert(id, volume);
        self.enqueue(b);
        Ok(id)
    }

    /// Removes a run-time area volume and queues the tiles it may have touched. An unknown
    /// id is [`TileCacheError::UnknownVolume`], and nothing changes.
    pub fn remove_volume(&mut self, id: VolumeId) -> Result<ConvexVolume, TileCacheError> {
        let v = self
            .volumes
            .remove(&id)
            .ok_or(TileCacheError::UnknownVolume { id })?;
        self.enqueue(volume_box(&v));
        Ok(v)
    }

    /// Queues every cached tile whose build grid (cells plus border), widened by the agent
    /// radius and one cell, overlaps the box in x and z, by row then column; a queued tile
    /// keeps its place.
    fn enqueue(&mut self, (lo, hi): ([f64; 2], [f64; 2])) {
        let cs = self.vc.cs;
        let pad = f64::from(self.vc.border + self.vc.walkable_radius + 1) * cs;
        let ts = self.params.tile_size;
        for &(z, x) in self.tiles.keys() {
            let (ox, oz) = self.params.tile_origin(x, z);
            let overlaps = ox - pad <= hi[0]
                && ox + ts + pad >= lo[0]
                && oz - pad <= hi[1]
                && oz + ts + pad >= lo[1];
            if overlaps && self.queued.insert((x, z)) {
                self.queue.push_back((x, z));
            }
        }
    }

    /// Rebuilds up to `max_tiles` tiles from the front of the queue (one tile is one
    /// iteration; no clock is involved), each from the obstacles and volumes in force now,
    /// and swaps them into the mesh. Returns what this call did.
    ///
    /// An error (a builder or mesh bug, never an input) leaves the failing tile at the front
    /// of the queue; the tiles processed before it stay swapped in.
    pub fn update(&mut self, max_tiles: usize) -> Result<UpdateStats, TileCacheError> {
        let mut done = UpdateStats::default();
        while done.tiles < max_tiles {
            let Some(&column) = self.queue.front() else {
                break;
            };
            let r = self.rebuild(column);
            match r {
                Ok(s) => {
                    self.queue.pop_front();
                    self.queued.remove(&column);
                    done.add(&s);
                }
                Err(e) => {
                    self.stats.add(&done);
                    return Err(e);
                }
            }
        }
        self.stats.add(&done);
        Ok(done)
    }

    /// [`TileCache::update`] until the queue is empty.
    pub fn update_all(&mut self) -> Result<UpdateStats, TileCacheError> {
        self.update(usize::MAX)
    }

    /// Marks a copy of the first-build areas of `column`'s tile with the cache's obstacles
    /// (ascending id; each is idempotent per span) and then its volumes (in the order added).
    fn mark(&mut self, key: (i32, i32)) -> Vec<u8> {
        let t = self.tiles.get_mut(&key).expect("queued tiles are cached");
        let previous = std::mem::replace(&mut t.chf.areas, t.first_areas.clone());
        // A shape whose box (grown by the agent radius, plus a cell of slack for rounding)
        // misses the tile's grid has no cell centre inside it: skipping it changes nothing.
        let cs = self.vc.cs;
        let lo = [t.chf.origin[0], t.chf.origin[2]];
        let hi = [
            lo[0] + f64::from(t.chf.width) * cs,
            lo[1] + f64::from(t.chf.depth) * cs,
        ];
        let touches = |(blo, bhi): ([f64; 2], [f64; 2]), pad: f64| {
            blo[0] - pad <= hi[0]
                && bhi[0] + pad >= lo[0]
                && blo[1] - pad <= hi[1]
                && bhi[1] + pad >= lo[1]
        };
        let grown = f64::from(self.vc.walkable_radius + 1) * cs;
        for o in self.obstacles.values() {
            if touches(obstacle_box(o), grown) {
                o.mark(&mut t.chf, &self.vc);
            }
        }
        for v in self.volumes.values() {
            if touches(volume_box(v), cs) {
                t.chf.mark_convex_volume(v);
            }
        }
        previous
    }

    fn rebuild(&mut self, column: TileColumn) -> Result<UpdateStats, TileCacheError> {
        let key = (column.1, column.0);
        if self.tiles[&key].layers.is_some() {
            return self.rebuild_layers(column);
        }
        let previous = self.mark(key);
        let mut s = UpdateStats {
            tiles: 1,
            ..UpdateStats::default()
        };
        let t = &self.tiles[&key];
        if t.last_known && t.chf.areas == previous {
            s.unchanged = 1;
            return Ok(s);
        }
        let mut memo = None;
        let built = if t.chf.areas == t.first_areas {
            s.first_build = 1;
            Ok(t.first_tiles.clone())
        } else {
            s.rebuilt = 1;
            self.build_column(column, t).map(|(tiles, m, reused)| {
                s.layers_built = m.as_ref().map_or(1, |m| m.len() - reused);
                s.layers_reused = reused;
                memo = m;
                tiles
            })
        };
        let result = built.and_then(|tiles| self.swap(column, tiles, &mut s));
        let t = self.tiles.get_mut(&key).expect("queued tiles are cached");
        match result {
            Ok(()) => {
                t.last_known = true;
                if let Some(m) = memo {
                    t.layer_memo = m;
                }
                Ok(s)
            }
            Err(e) => {
                t.chf.areas = previous;
                Err(e)
            }
        }
    }

    /// A layer-first rebuild: every layer marked (only by the shapes that reach it); if any
    /// changed, each layer's result (kept, first build's or built again), the layers
    /// numbered densely, the authored links baked, the tiles made (an unchanged layer's kept
    /// tile reused when its number is the same and no link is authored) and swapped in.
    fn rebuild_layers(&mut self, column: TileColumn) -> Result<UpdateStats, TileCacheError> {
        let key = (column.1, column.0);
        let mut s = UpdateStats {
            tiles: 1,
            ..UpdateStats::default()
        };
        let links = !self.pipeline.config.off_mesh_links.is_empty();
        let t = self.tiles.get_mut(&key).expect("queued tiles are cached");
        let layers = t.layers.as_mut().expect("a layer-first tile");
        let changes = mark_layers(
            layers,
            self.obstacles.values(),
            self.volumes.values(),
            &self.vc,
        );
        if changes.iter().all(|c| c.1 == LayerChange::Unchanged) {
            s.unchanged = 1;
            return Ok(s);
        }
        let t = &self.tiles[&key];
        let layers = t.layers.as_deref().expect("a layer-first tile");
        let result = layer_results(
            &self.pipeline,
            &self.params,
            &self.vc,
            t.vgrid,
            column,
            layers,
            &changes,
            self.repair,
        )
        .map_err(TileCacheError::from)
        .and_then(|(results, built, how)| {
            s.layers_repaired = how.repaired;
            s.scratch_repair_off = how.off;
            s.scratch_not_only_removed = how.not_only_removed;
            s.scratch_small_region = how.small_region;
            s.scratch_split = how.split;
            s.scratch_renumbered = how.renumbered;
            if built == 0 {
                s.first_build = 1;
            } else {
                s.rebuilt = 1;
            }
            s.layers_built = built;
            s.layers_reused = results.len() - built;
            let tiles = self.layer_tiles(layers, &changes, &results, links)?;
            Ok((results, tiles))
        });
        let result = result.and_then(|(results, (tiles, made))| {
            self.swap(column, tiles, &mut s)?;
            Ok((results, made))
        });
        let t = self.tiles.get_mut(&key).expect("queued tiles are cached");
        let layers = t.layers.as_mut().expect("a layer-first tile");
        match result {
            Ok((results, made)) => {
                for ((l, r), tile) in layers.iter_mut().zip(results).zip(made) {
                    l.last_data = Some(r);
                    l.last_tile = if links { None } else { tile };
                }
                t.last_known = true;
                Ok(s)
            }
            Err(e) => {
                undo_marks(layers, &changes);
                Err(e)
            }
        }
    }

    /// The tiles of a layer-first column from its layers' results: numbered densely from
    /// 0, the authored links baked, each made (or, without links, an unchanged layer's kept
    /// tile, or a layer at its first build's areas the first build's tile, when its number
    /// is the same). Returns the tiles and, per layer of the split, the tile it made
    /// (`None` for a layer without polygon, and with links).
    fn layer_tiles(
        &self,
        layers: &[CachedLayer],
        changes: &[LayerMark],
        results: &[crate::layered::LayerResult],
        links: bool,
    ) -> Result<(Vec<NavTile>, Vec<Option<NavTile>>), TileCacheError> {
        if links {
            let mut datas = number_layers(results.iter().map(|r| r.as_deref().cloned()).collect());
            bake_off_mesh_links(
                &self.params,
                &self.pipeline.config.off_mesh_links,
                &mut datas,
            )?;
            let mut out = Vec::with_capacity(datas.len());
            for d in datas {
                out.push(create(&self.params, self.mesh.fingerprint(), d)?);
            }
            return Ok((out, vec![None; layers.len()]));
        }
        let mut out = Vec::with_capacity(results.len());
        let mut made = Vec::with_capacity(layers.len());
        for ((l, (_, change)), r) in layers.iter().zip(changes).zip(results) {
            let Some(d) = r else {
                made.push(None);
                continue;
            };
            let number = out.len() as u16;
            let kept = match change {
                LayerChange::Unchanged => l.last_tile.as_ref(),
                LayerChange::FirstBuild => l.first_tile.as_ref(),
                LayerChange::Changed => None,
            }
            .filter(|t| t.position().2 == number);
            let tile = match kept {
                Some(t) => t.clone(),
                None => {
                    let mut d = NavTileData::clone(d);
                    d.layer = number;
                    create(&self.params, self.mesh.fingerprint(), d)?
                }
            };
            out.push(tile.clone());
            made.push(Some(tile));
        }
        Ok((out, made))
    }

    /// Stage 5 of a column from its marked heightfield, the authored links that start in
    /// it, and its tiles.
    fn build_column(
        &self,
        column: TileColumn,
        t: &CachedTile,
    ) -> Result<(Vec<NavTile>, Option<LayerMemo>, usize), TileCacheError> {
        let (mut datas, memo, reused) = column_data(
            &self.pipeline,
            &self.params,
            &self.vc,
            t.vgrid,
            column,
            &t.chf,
            &t.layer_memo,
        )?;
        bake_off_mesh_links(
            &self.params,
            &self.pipeline.config.off_mesh_links,
            &mut datas,
        )?;
        let mut out = Vec::with_capacity(datas.len());
        for d in datas {
            out.push(create(&self.params, self.mesh.fingerprint(), d)?);
        }
        Ok((out, memo, reused))
    }

    /// Swaps a column's rebuilt tiles (layers 0, 1, …) into the mesh, layer by layer from the
    /// lowest: equal as built → the mesh's tile stays (references and edits too); changed →
    /// replaced in its slot; new → added; gone → removed.
    fn swap(
        &mut self,
        (x, z): TileColumn,
        tiles: Vec<NavTile>,
        s: &mut UpdateStats,
    ) -> Result<(), TileCacheError> {
        // One past the column's highest layer now in the mesh.
        let old_top = self
            .mesh
            .tiles_at(x, z)
            .map(|t| usize::from(t.tile().position().2) + 1)
            .max()
            .unwrap_or(0);
        let new_top = tiles.len();
        // All or nothing: every new layer that will be added or replaced passes the mesh's
        // portal link cap first (a tile faces only tiles of the four side columns, which this
        // swap does not change), so a refused layer leaves the whole column as it was.
        for f in &tiles {
            let (_, _, l) = f.position();
            let existing = self.mesh.tile_at(x, z, l).map(|t| t.tile());
            if !existing.is_some_and(|e| same_as_built(f, e)) {
                self.mesh.check_portal_link_cap(f)?;
            }
        }
        let mut tiles = tiles.into_iter();
        let top = old_top.max(new_top);
        for layer in 0..top {
            let l = layer as u16;
            let fresh = if layer < new_top { tiles.next() } else { None };
            let existing = self.mesh.tile_at(x, z, l).map(|t| t.tile());
            match (fresh, existing) {
                (Some(f), Some(e)) => {
                    if same_as_built(&f, e) {
                        s.layers_kept += 1;
                    } else {
                        // Checked against the cap above (the side columns have not changed
                        // since; the slot is the position's in both).
                        self.mesh.replace_tile_cap_checked(f)?;
                        s.layers_replaced += 1;
                    }
                }
                (Some(f), None) => {
                    self.mesh.add_tile(f)?;
                    s.layers_added += 1;
                }
                (None, Some(_)) => {
                    self.mesh.remove_tile_at(x, z, l);
                    s.layers_removed += 1;
                }
                (None, None) => {}
            }
        }
        Ok(())
    }
}

/// Stage 5 of a column from its marked heightfield (its tile data before the authored links).
/// With the Layers partition one layer at a time, exactly as
/// [`Mesh3DPipeline::tile_data_from_compact`] does, a layer whose heightfield equals the one
/// kept in `memo` taking its data; then also returns the new memo and how many layers were
/// taken from it.
fn column_data(
    p: &Mesh3DPipeline,
    params: &NavMeshParams,
    vc: &VoxelConfig,
    vgrid: VerticalGrid,
    column: TileColumn,
    chf: &CompactHeightfield,
    old: &[(CompactHeightfield, Option<NavTileData>)],
) -> Result<(Vec<NavTileData>, Option<LayerMemo>, usize), BuildError> {
    if vc.partition != Partition::Layers {
        let datas = p.tile_data_from_compact(params, vc, vgrid, column.0, column.1, chf)?;
        return Ok((datas, None, 0));
    }
    let mut memo = Vec::new();
    let mut datas = Vec::new();
    let mut reused = 0;
    for (l, sub) in split_layers(chf).into_iter().enumerate() {
        let data = match old.get(l) {
            Some((kept, data)) if *kept == sub => {
                reused += 1;
                data.clone()
            }
            _ => p.layer_tile_data(params, vc, vgrid, column.0, column.1, l as u16, &sub)?,
        };
        if let Some(mut d) = data.clone() {
            // Layers without polygons take no number: renumbered densely from 0.
            d.layer = datas.len() as u16;
            datas.push(d);
        }
        memo.push((sub, data));
    }
    Ok((datas, Some(memo), reused))
}

/// Equal as-built content: the same content id, without hashing (the same ONPT bytes).
fn same_as_built(a: &NavTile, b: &NavTile) -> bool {
    // Equal bytes, compared field by field rather than written out twice.
    Arc::ptr_eq(a.geometry(), b.geometry()) || onepath_mesh::same_geometry(a, b)
}

/// [`NavTile::create`] against the cache's parameters, whose `fingerprint` (the mesh's)
/// was hashed once.
fn create(
    params: &NavMeshParams,
    fingerprint: Fingerprint,
    d: NavTileData,
) -> Result<NavTile, BuildError> {
    let (tile_x, tile_z, layer) = (d.tile_x, d.tile_z, d.layer);
    NavTile::create_with_fingerprint(params, fingerprint, d).map_err(|source| BuildError::Tile {
        tile_x,
        tile_z,
        layer,
        source,
    })
}

fn take_id(next: &mut u32, what: &'static str) -> Result<u32, TileCacheError> {
    // The counter itself stays within 1..=MAX_ID (ONTK stores it), so the last id given
    // out is MAX_ID − 1.
    let id = *next;
    if id >= MAX_ID {
        return Err(TileCacheError::IdsExhausted { what });
    }
    *next = id + 1;
    Ok(id)
}
