//! [`NavMesh`]: the tier-1 mesh of one agent class. Built from [`Geometry`] with
//! [`NavSettings`], optionally with a tile cache; queried with plain `[f64; 3]` points;
//! saved as ONNM and loaded back (module [`crate::envelope`]).

use std::fmt;
use std::sync::{Mutex, MutexGuard};

use onepath_build3d::{ConvexVolume, Mesh3DPipeline, Obstacle};
use onepath_format::{FormatError, NavMeshParams, NavSettings, PolyRef};
use onepath_mesh::query::{
    NavMeshQuery, PathStatus as MeshPathStatus, QueryFilter, StraightPathFlags, StraightPathOptions,
};
use onepath_mesh::{TileStreamer, TiledNavMesh};
use onepath_tilecache::{ObstacleId, TileCache, UpdateStats, VolumeId};

use crate::envelope::{read_onnm, read_with_settings, write_onnm};
use crate::error::{Error, Result};
use crate::geometry::{Geometry, Prepared};

/// Half extents of the box [`NavMesh`] searches around a point to put it on the mesh,
/// until [`NavMesh::set_search_extents`] changes them (Detour's demo values).
pub const DEFAULT_SEARCH_EXTENTS: [f64; 3] = [2.0, 4.0, 2.0];

/// Polygons a [`NavMesh::find_path`] may expand, until [`NavMesh::set_max_iterations`]
/// changes it.
pub const DEFAULT_MAX_ITERATIONS: u64 = 1 << 20;

/// How to build: a progress callback and whether to keep a tile cache.
#[derive(Clone, Copy, Default)]
pub struct BuildOptions<'a> {
    /// Called once per tile with `(tiles done, tiles total)`, from the thread that built it
    /// (a tile-cache build calls it once per cached tile as its tiles are built). It never
    /// changes a result.
    pub progress: Option<&'a (dyn Fn(usize, usize) + Sync)>,
    /// Keep a tile cache (obstacles, volumes, [`NavMesh::update`]); the first mesh is the
    /// same either way, byte for byte.
    pub tile_cache: bool,
}

impl fmt::Debug for BuildOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuildOptions")
            .field("progress", &self.progress.is_some())
            .field("tile_cache", &self.tile_cache)
            .finish()
    }
}

/// Where the mesh lives: on its own, or inside a tile cache that rebuilds its tiles.
#[derive(Debug, Clone)]
pub(crate) enum Store {
    Plain(Box<TiledNavMesh>),
    Cached(Box<TileCache>),
}

/// The nearest point of the mesh to a query point.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NearestPoint {
    /// The polygon it lies on.
    pub poly: PolyRef,
    /// The point (on the polygon's surface).
    pub point: [f64; 3],
}

/// How a path search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PathStatus {
    /// The path reaches the end point's polygon.
    Complete,
    /// The end is unreachable; the path ends in the reachable polygon nearest it.
    Partial,
    /// The iteration limit ran out first; the path ends in the polygon nearest the end
    /// among those reached.
    BudgetExhausted,
}

/// One corner of a straight path.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PathPoint {
    /// World position.
    pub position: [f64; 3],
    /// The polygon the path runs in from here on.
    pub poly: PolyRef,
    /// The path's start.
    pub start: bool,
    /// The path's end (absent on a partial path).
    pub end: bool,
    /// The departure of an off-mesh link; the next point is its arrival.
    pub off_mesh_link: bool,
}

/// A path: the polygon corridor and its straight path (string-pulled corners).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Path {
    /// How the search ended.
    pub status: PathStatus,
    /// Cost of the corridor in the cost model.
    pub cost: f64,
    /// The polygons, start first.
    pub polys: Vec<PolyRef>,
    /// The corners, start first.
    pub points: Vec<PathPoint>,
}

/// The result of [`NavMesh::raycast`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Raycast {
    /// Where along start → end the ray met a wall (0..=1), `None` when it reached the end.
    pub t: Option<f64>,
    /// Where it stopped: the hit point, or the end.
    pub point: [f64; 3],
    /// The outward normal of the wall hit (X/Z, unit length); zero when none.
    pub hit_normal: [f64; 3],
    /// The last polygon visited.
    pub last_poly: PolyRef,
    /// Cost of the part walked.
    pub cost: f64,
}

/// A navigation mesh for one agent class (tier 1): the [`TiledNavMesh`] built with a
/// [`NavSettings`], the settings themselves (saved with it in ONNM), an optional tile
/// cache, a [`TileStreamer`], and the query state (kept inside, so queries take `&self`).
///
/// ```
/// use onepath::prelude::*;
///
/// let floor = TriangleSoup {
///     vertices: vec![[0.0, 0.0, 0.0], [0.0, 0.0, 20.0], [20.0, 0.0, 20.0], [20.0, 0.0, 0.0]],
///     triangles: vec![[0, 1, 2], [0, 2, 3]],
///     areas: None,
/// };
/// let nav = NavMesh::build(&NavSettings::default(), &floor).unwrap();
/// let path = nav.find_path([2.0, 0.0, 2.0], [18.0, 0.0, 17.0]).unwrap();
/// assert_eq!(path.status, PathStatus::Complete);
/// let loaded = NavMesh::load(&nav.save()).unwrap();
/// assert_eq!(loaded.save(), nav.save());
/// ```
pub struct NavMesh {
    settings: NavSettings,
    pub(crate) store: Store,
    streamer: TileStreamer,
    query: Mutex<NavMeshQuery>,
    filter: QueryFilter,
    extents: [f64; 3],
    max_iterations: u64,
}

impl fmt::Debug for NavMesh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NavMesh")
            .field("settings", &self.settings)
            .field("tiles", &self.mesh().tile_count())
            .field("tile_cache", &self.has_tile_cache())
            .field("streaming", &self.streamer.len())
            .finish_non_exhaustive()
    }
}

impl Clone for NavMesh {
    /// A copy with fresh query state (queries answer the same).
    fn clone(&self) -> Self {
        NavMesh {
            settings: self.settings.clone(),
            store: self.store.clone(),
            streamer: self.streamer.clone(),
            query: Mutex::new(NavMeshQuery::new()),
            filter: self.filter,
            extents: self.extents,
            max_iterations: self.max_iterations,
        }
    }
}

fn flag(f: StraightPathFlags, bit: StraightPathFlags) -> bool {
    f.contains(bit)
}

impl NavMesh {
    /// Builds the geometry with these settings (every authored off-mesh link of the
    /// settings baked in). The same geometry and settings give the same bytes on every
    /// machine and thread count.
    ///
    /// Errors: [`Error::Build`]: settings the builder refuses (`InvalidSetting` naming the
    /// setting), an OBJ file that cannot be read (`Io` naming the path) or a geometry the
    /// builder refuses (`InvalidInput`, a coordinate out of range, an authored link
    /// rejected as "Authoring" says), each naming what and where.
    pub fn build<'g>(settings: &NavSettings, geometry: impl Into<Geometry<'g>>) -> Result<Self> {
        Self::build_with(settings, geometry, BuildOptions::default())
    }

    /// [`NavMesh::build`] with a progress callback (called once per tile with `(tiles
    /// done, tiles total)`; see [`BuildOptions::progress`]). Errors as [`NavMesh::build`]'s.
    pub fn build_with_progress<'g>(
        settings: &NavSettings,
        geometry: impl Into<Geometry<'g>>,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Self> {
        Self::build_with(
            settings,
            geometry,
            BuildOptions {
                progress: Some(progress),
                tile_cache: false,
            },
        )
    }

    /// [`NavMesh::build`] with a tile cache: obstacles, run-time volumes and
    /// [`NavMesh::update`] work on it; the first mesh is byte for byte the one
    /// [`NavMesh::build`] gives. Errors as [`NavMesh::build`]'s, or [`Error::TileCache`].
    pub fn build_with_tile_cache<'g>(
        settings: &NavSettings,
        geometry: impl Into<Geometry<'g>>,
    ) -> Result<Self> {
        Self::build_with(
            settings,
            geometry,
            BuildOptions {
                progress: None,
                tile_cache: true,
            },
        )
    }

    /// Builds with [`BuildOptions`] (progress callback, tile cache). Errors as
    /// [`NavMesh::build_with_tile_cache`]'s.
    pub fn build_with<'g>(
        settings: &NavSettings,
        geometry: impl Into<Geometry<'g>>,
        options: BuildOptions<'_>,
    ) -> Result<Self> {
        let prepared = geometry.into().prepare()?;
        Self::build_prepared(settings, &prepared, options)
    }

    pub(crate) fn build_prepared(
        settings: &NavSettings,
        prepared: &Prepared<'_>,
        options: BuildOptions<'_>,
    ) -> Result<Self> {
        let pipeline = Mesh3DPipeline::from_settings(settings)?;
        let progress = options.progress.unwrap_or(&|_, _| {});
        let store = if options.tile_cache {
            Store::Cached(Box::new(TileCache::build_soup_with_progress(
                &pipeline,
                prepared.soup(),
                progress,
            )?))
        } else {
            let built = match prepared {
                Prepared::Soup(s) => pipeline.build_soup_with_progress(s, progress)?,
                Prepared::Chunky(c) => pipeline.build_chunk_with_progress(c, progress)?,
            };
            Store::Plain(Box::new(built.mesh))
        };
        Ok(Self::from_parts(settings.clone(), store))
    }

    pub(crate) fn from_parts(settings: NavSettings, store: Store) -> Self {
        NavMesh {
            settings,
            store,
            streamer: TileStreamer::new(),
            query: Mutex::new(NavMeshQuery::new()),
            filter: QueryFilter::new(),
            extents: DEFAULT_SEARCH_EXTENTS,
            max_iterations: DEFAULT_MAX_ITERATIONS,
        }
    }

    /// A tier-1 mesh over a mesh built elsewhere: `settings` must produce its parameter
    /// block (else [`FormatError::Fingerprint`] at `settings`).
    pub fn from_mesh(settings: &NavSettings, mesh: TiledNavMesh) -> Result<Self, FormatError> {
        crate::envelope::check_settings(settings, mesh.params(), "settings")?;
        Ok(Self::from_parts(
            settings.clone(),
            Store::Plain(Box::new(mesh)),
        ))
    }

    /// The ONNM bytes of the mesh and its settings (the tile cache's obstacles, volumes and
    /// queue, and the streamer's queue, are not part of them).
    pub fn save(&self) -> Vec<u8> {
        write_onnm(&self.settings, self.mesh())
    }

    /// Reads ONNM bytes ([`crate::envelope::read_onnm`]: settings through their validating
    /// setters, the mesh, nothing after, the settings' parameter block equal to the mesh's).
    /// Bare ONPM bytes need the settings: [`NavMesh::load_with_settings`].
    pub fn load(bytes: &[u8]) -> Result<Self, FormatError> {
        if bytes.starts_with(&onepath_mesh::ONPM_MAGIC) {
            return Err(FormatError::malformed(
                "ONNM magic",
                "these are bare ONPM mesh bytes: load them with NavMesh::load_with_settings",
            ));
        }
        let (settings, mesh) = read_onnm(bytes)?;
        Ok(Self::from_parts(settings, Store::Plain(Box::new(mesh))))
    }

    /// Reads ONNM or bare ONPM bytes with the caller's settings, which must produce the
    /// mesh's parameter block ([`FormatError::Fingerprint`] at `settings`).
    pub fn load_with_settings(bytes: &[u8], settings: &NavSettings) -> Result<Self, FormatError> {
        let mesh = read_with_settings(bytes, settings)?;
        Ok(Self::from_parts(
            settings.clone(),
            Store::Plain(Box::new(mesh)),
        ))
    }

    /// The settings the mesh was built with.
    pub fn settings(&self) -> &NavSettings {
        &self.settings
    }

    /// The mesh.
    pub fn mesh(&self) -> &TiledNavMesh {
        match &self.store {
            Store::Plain(m) => m,
            Store::Cached(c) => c.mesh(),
        }
    }

    /// The mesh, for edits of the lower API (areas, flags, link switches, tiles).
    pub fn mesh_mut(&mut self) -> &mut TiledNavMesh {
        match &mut self.store {
            Store::Plain(m) => m,
            Store::Cached(c) => c.mesh_mut(),
        }
    }

    /// Whether the mesh was built with a tile cache.
    pub fn has_tile_cache(&self) -> bool {
        matches!(self.store, Store::Cached(_))
    }

    /// The tile cache, if the mesh has one.
    pub fn tile_cache(&self) -> Option<&TileCache> {
        match &self.store {
            Store::Cached(c) => Some(c),
            Store::Plain(_) => None,
        }
    }

    /// The tile cache, if the mesh has one (for its own snapshots and restores).
    pub fn tile_cache_mut(&mut self) -> Option<&mut TileCache> {
        match &mut self.store {
            Store::Cached(c) => Some(c),
            Store::Plain(_) => None,
        }
    }

    fn cache(&mut self, call: &'static str) -> Result<&mut TileCache> {
        self.tile_cache_mut().ok_or(Error::NoTileCache { call })
    }

    /// Adds an obstacle (queued: the tiles it touches rebuild on [`NavMesh::update`]) and
    /// returns its id. Errors: a mesh without a tile cache ([`Error::NoTileCache`]), an
    /// obstacle the cache refuses ([`Error::TileCache`] naming the value); nothing changes
    /// on error.
    pub fn add_obstacle(&mut self, obstacle: Obstacle) -> Result<ObstacleId> {
        Ok(self.cache("add_obstacle")?.add_obstacle(obstacle)?)
    }

    /// Removes an obstacle (queued: its tiles rebuild on [`NavMesh::update`]) and returns
    /// it. Errors: no tile cache ([`Error::NoTileCache`]), an id the cache does not hold
    /// ([`Error::TileCache`] naming it).
    pub fn remove_obstacle(&mut self, id: ObstacleId) -> Result<Obstacle> {
        Ok(self.cache("remove_obstacle")?.remove_obstacle(id)?)
    }

    /// Adds a run-time area volume (queued, as [`NavMesh::add_obstacle`]) and returns its
    /// id. Errors: no tile cache ([`Error::NoTileCache`]), a volume the cache refuses
    /// ([`Error::TileCache`] naming the value); nothing changes on error.
    pub fn add_volume(&mut self, volume: ConvexVolume) -> Result<VolumeId> {
        Ok(self.cache("add_volume")?.add_volume(volume)?)
    }

    /// Removes a run-time area volume (queued) and returns it. Errors: no tile cache
    /// ([`Error::NoTileCache`]), an id the cache does not hold ([`Error::TileCache`]).
    pub fn remove_volume(&mut self, id: VolumeId) -> Result<ConvexVolume> {
        Ok(self.cache("remove_volume")?.remove_volume(id)?)
    }

    /// Rebuilds at most `max_tiles` queued tiles (authored links baked into each), in queue
    /// order, and swaps them into the mesh. Errors: no tile cache ([`Error::NoTileCache`]),
    /// a rebuild that fails ([`Error::TileCache`] naming the tile).
    pub fn update(&mut self, max_tiles: usize) -> Result<UpdateStats> {
        Ok(self.cache("update")?.update(max_tiles)?)
    }

    /// Rebuilds every queued tile. Errors as [`NavMesh::update`]'s.
    pub fn update_all(&mut self) -> Result<UpdateStats> {
        Ok(self.cache("update_all")?.update_all()?)
    }

    /// The streaming queue (add, replace, remove column; applied by
    /// [`NavMesh::update_streaming`]).
    pub fn streamer_mut(&mut self) -> &mut TileStreamer {
        &mut self.streamer
    }

    /// The streaming queue.
    pub fn streamer(&self) -> &TileStreamer {
        &self.streamer
    }

    /// Applies at most `max_operations` queued streaming operations in queue order; returns
    /// how many were applied. A failing operation ([`Error::Mesh`] naming the tile) leaves
    /// the queue before its error returns, and the mesh unchanged.
    pub fn update_streaming(&mut self, max_operations: usize) -> Result<usize> {
        let mut streamer = std::mem::take(&mut self.streamer);
        let r = streamer.update(self.mesh_mut(), max_operations);
        self.streamer = streamer;
        Ok(r?)
    }

    /// The query filter of every query (default: every polygon, unit costs).
    pub fn filter(&self) -> &QueryFilter {
        &self.filter
    }

    /// Sets the query filter.
    pub fn set_filter(&mut self, filter: QueryFilter) {
        self.filter = filter;
    }

    /// The half extents of the box searched around a point to put it on the mesh.
    pub fn search_extents(&self) -> [f64; 3] {
        self.extents
    }

    /// Sets the search extents (each finite and ≥ 0, else the error names the axis).
    pub fn set_search_extents(&mut self, half_extents: [f64; 3]) -> Result<()> {
        for (k, v) in half_extents.into_iter().enumerate() {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::Query(onepath_mesh::QueryError::InvalidExtent {
                    what: ["half_extents.x", "half_extents.y", "half_extents.z"][k],
                    value: v,
                }));
            }
        }
        self.extents = half_extents;
        Ok(())
    }

    /// Sets how many polygons a path search may expand.
    pub fn set_max_iterations(&mut self, max_iterations: u64) {
        self.max_iterations = max_iterations;
    }

    fn query(&self) -> MutexGuard<'_, NavMeshQuery> {
        // A panic in another thread's query leaves nothing half-done that a later query
        // reads (every query starts afresh), so a poisoned lock is taken over.
        self.query.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The nearest point of the mesh within the search extents of `point`, `None` when no
    /// polygon is in the box. A point that is not a world coordinate (finite, within
    /// ±2^21) is [`Error::Coordinate`] naming the axis (`point.x`, `.y`, `.z`).
    pub fn nearest(&self, point: impl Into<[f64; 3]>) -> Result<Option<NearestPoint>> {
        self.nearest_as("point", point.into())
    }

    /// [`NavMesh::nearest`] with the caller's name for the point in its errors.
    pub(crate) fn nearest_as(
        &self,
        what: &'static str,
        point: [f64; 3],
    ) -> Result<Option<NearestPoint>> {
        NavMeshParams::check_point(what, point)?;
        let n = self
            .query()
            .find_nearest_poly(self.mesh(), point, self.extents, &self.filter)?;
        Ok(n.map(|n| NearestPoint {
            poly: n.poly,
            point: n.point,
        }))
    }

    /// The point of the mesh nearest `point` (named `what` in errors) within `half_extents`
    /// for `filter` (a crowd's placement box and an agent's filter), which must exist.
    pub(crate) fn place_with(
        &self,
        what: &'static str,
        point: [f64; 3],
        half_extents: [f64; 3],
        filter: &QueryFilter,
    ) -> Result<NearestPoint> {
        NavMeshParams::check_point(what, point)?;
        let n = self
            .query()
            .find_nearest_poly(self.mesh(), point, half_extents, filter)?;
        n.map(|n| NearestPoint {
            poly: n.poly,
            point: n.point,
        })
        .ok_or(Error::NotOnMesh {
            what,
            point,
            half_extents,
        })
    }

    /// The point of the mesh nearest `point` (named `what` in errors), which must exist.
    pub(crate) fn place(&self, what: &'static str, point: [f64; 3]) -> Result<NearestPoint> {
        self.nearest_as(what, point)?.ok_or(Error::NotOnMesh {
            what,
            point,
            half_extents: self.extents,
        })
    }

    /// The path from `start` to `end`: both put on the mesh ([`NavMesh::nearest`]; off the
    /// mesh is [`Error::NotOnMesh`] naming `start` or `end`), the polygon corridor, and its
    /// straight path. An unreachable end is no error: the path is
    /// [`PathStatus::Partial`]. A point that is not a world coordinate is
    /// [`Error::Coordinate`] naming it (`start.x`, `end.z`).
    pub fn find_path(&self, start: impl Into<[f64; 3]>, end: impl Into<[f64; 3]>) -> Result<Path> {
        let s = self.place("start", start.into())?;
        let e = self.place("end", end.into())?;
        let mut q = self.query();
        let mut polys = Vec::new();
        let r = q.find_path(
            self.mesh(),
            s.poly,
            e.poly,
            s.point,
            e.point,
            &self.filter,
            self.max_iterations,
            &mut polys,
        )?;
        let status = match r.status {
            MeshPathStatus::Complete => PathStatus::Complete,
            MeshPathStatus::Partial => PathStatus::Partial,
            // One-shot search: it ends complete, partial or out of budget.
            MeshPathStatus::BudgetExhausted | MeshPathStatus::InProgress => {
                PathStatus::BudgetExhausted
            }
        };
        let mut corners = Vec::new();
        q.find_straight_path(
            self.mesh(),
            s.point,
            e.point,
            &polys,
            &self.filter,
            StraightPathOptions::default(),
            &mut corners,
        )?;
        let points = corners
            .iter()
            .map(|c| PathPoint {
                position: c.pos,
                poly: c.poly,
                start: flag(c.flags, StraightPathFlags::START),
                end: flag(c.flags, StraightPathFlags::END),
                off_mesh_link: flag(c.flags, StraightPathFlags::OFF_MESH_CONNECTION),
            })
            .collect();
        Ok(Path {
            status,
            cost: r.cost,
            polys,
            points,
        })
    }

    /// Casts a ray along the surface from `start` (put on the mesh) towards `end`, in X/Z.
    /// Errors: `start` off the mesh ([`Error::NotOnMesh`]), a point that is not a world
    /// coordinate ([`Error::Coordinate`] naming it, `start.x` or `end.z`).
    pub fn raycast(&self, start: impl Into<[f64; 3]>, end: impl Into<[f64; 3]>) -> Result<Raycast> {
        let s = self.place("start", start.into())?;
        let end = end.into();
        NavMeshParams::check_point("end", end)?;
        let mut visited = Vec::new();
        let hit = self.query().raycast(
            self.mesh(),
            s.poly,
            s.point,
            end,
            &self.filter,
            &mut visited,
        )?;
        let (t, point) = if hit.reached_end() {
            (None, end)
        } else {
            let p = [0, 1, 2].map(|k| s.point[k] + (end[k] - s.point[k]) * hit.t);
            (Some(hit.t), p)
        };
        Ok(Raycast {
            t,
            point,
            hit_normal: hit.hit_normal,
            last_poly: hit.last_poly,
            cost: hit.cost,
        })
    }

    /// A random point on the mesh (polygons by area), from `rand`, which must return
    /// numbers in `[0, 1)` (values outside are clamped, NaN reads as 0); `None` when no
    /// polygon passes the filter. The same numbers give the same point.
    pub fn random_point(&self, rand: &mut impl FnMut() -> f64) -> Result<Option<NearestPoint>> {
        let r = self
            .query()
            .find_random_point(self.mesh(), &self.filter, rand)?;
        Ok(r.map(|(poly, point)| NearestPoint { poly, point }))
    }
}
