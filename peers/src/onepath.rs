//! OnePath on the harness: its voxel builder (`onepath-build3d`) on the same [`Level`] with
//! the same settings as [`crate::recast::build_tiled`], its query layer (`onepath-mesh`) as a
//! [`PathEngine`] making the same calls as [`crate::detour::DetourEngine`], and the
//! conversion of any OnePath mesh into a Detour mesh over the very same polygons.
//!
//! Settings: [`build_config`] maps [`RecastSettings`] onto OnePath's [`BuildConfig`] field by
//! field. Float32 settings are widened through their shortest decimal form (0.3f32 becomes
//! 0.3, not 0.300000011920928955), which is the value a user typed and what OnePath's own
//! [`BuildConfig::default`] holds; the tile grid starts at the level's minimum corner, as the
//! demo places it.

use onepath_build3d::{BuildConfig, BuiltMesh, Mesh3DPipeline, TriangleSoup};
use onepath_format::{NavTileData, Partition, PolyRef, TileRef};
use onepath_mesh::query::{
    CompiledGraph, NavMeshQuery, NearestPoly, PathStatus, QueryError, QueryFilter, RaycastHit,
    StraightPathOptions, StraightPathPoint,
};
use onepath_mesh::TiledNavMesh;

use crate::detour::{HALF_EXTENTS, MAX_POLYS};
use crate::error::PeerError;
use crate::external::{build_detour_mesh, from_onepath_tile, ExternalGrid, ExternalTile};
use crate::ffi::DetourNavMesh;
use crate::metrics::{BuildMetrics, PathEngine, PathOutcome};
use crate::{Level, RecastSettings};

/// A float32 setting as the float64 of its shortest decimal form (`0.3f32` -> `0.3`).
fn decimal(v: f32) -> f64 {
    // The shortest round-trip text of a finite f32 always parses as f64.
    format!("{v}").parse().unwrap_or(f64::from(v))
}

/// A generated OnePath soup as a harness level: vertices rounded to float32 (as both builders
/// then read them), the same triangles in the same order (per-triangle areas dropped).
pub fn level_of(soup: &TriangleSoup) -> Level {
    Level {
        vertices: soup
            .vertices
            .iter()
            .map(|v| [v[0] as f32, v[1] as f32, v[2] as f32])
            .collect(),
        triangles: soup.triangles.clone(),
    }
}

/// The level as OnePath's triangle soup: the same vertices (widened exactly to float64) and
/// the same triangles in the same order, no per-triangle areas.
pub fn triangle_soup(level: &Level) -> TriangleSoup {
    TriangleSoup {
        vertices: level
            .vertices
            .iter()
            .map(|v| [f64::from(v[0]), f64::from(v[1]), f64::from(v[2])])
            .collect(),
        triangles: level.triangles.clone(),
        areas: None,
    }
}

/// OnePath's configuration for `settings` on `level`: the same cell sizes, agent, region
/// areas (`size²` spans), edge, polygon, detail and tile settings, watershed partitioning,
/// and the tile grid at the level's minimum corner. Polygons get area 63 (OnePath's 3D
/// default) and flags 1 (RecastDemo's walkable ground).
pub fn build_config(level: &Level, settings: &RecastSettings) -> Result<BuildConfig, PeerError> {
    settings.validate()?;
    let (bmin, _) = level
        .bounds()
        .ok_or_else(|| PeerError::input("level", "no vertices"))?;
    let area = |size: f32| {
        let a = f64::from(size) * f64::from(size);
        a as u32
    };
    let cfg = BuildConfig {
        origin: [f64::from(bmin[0]), f64::from(bmin[1]), f64::from(bmin[2])],
        cell_size: decimal(settings.cell_size),
        cell_height: decimal(settings.cell_height),
        tile_size: BuildConfig::tile_size_of_cells(
            settings.tile_size as u32,
            decimal(settings.cell_size),
        ),
        agent_height: settings.agent_height,
        agent_radius: settings.agent_radius,
        walkable_climb: settings.agent_max_climb,
        agent_max_slope: settings.agent_max_slope,
        min_region_area: area(settings.region_min_size),
        merge_region_area: area(settings.region_merge_size),
        max_edge_length: decimal(settings.edge_max_len),
        contour_max_error: settings.edge_max_error,
        max_verts_per_poly: settings.verts_per_poly as u16,
        detail_sample_distance: decimal(settings.detail_sample_dist),
        detail_max_error: decimal(settings.detail_sample_max_error),
        partition: Partition::Watershed,
        area: 63,
        flags: 1,
        off_mesh_links: Vec::new(),
        settings_digest: 0,
    };
    cfg.validate().map_err(|e| PeerError::OnePath {
        call: "BuildConfig::validate",
        reason: e.to_string(),
    })?;
    Ok(cfg)
}

/// A whole-level OnePath build.
#[derive(Debug)]
pub struct OnePathBuild {
    /// What `Mesh3DPipeline::build_soup` returned (parameters, tiles, stitched mesh).
    pub built: BuiltMesh,
}

/// Builds `level` with OnePath's pipeline (tiles in the current rayon pool: run it inside a
/// one-thread pool for a single-threaded figure).
pub fn build_onepath(level: &Level, settings: &RecastSettings) -> Result<OnePathBuild, PeerError> {
    let cfg = build_config(level, settings)?;
    build_soup(&Mesh3DPipeline::new(cfg), &triangle_soup(level))
}

/// Runs a prepared pipeline on a prepared soup (what the build benches time).
pub fn build_soup(
    pipeline: &Mesh3DPipeline,
    soup: &TriangleSoup,
) -> Result<OnePathBuild, PeerError> {
    let built = pipeline.build_soup(soup).map_err(|e| PeerError::OnePath {
        call: "Mesh3DPipeline::build_soup",
        reason: e.to_string(),
    })?;
    Ok(OnePathBuild { built })
}

/// Runs a prepared pipeline on a prepared chunky triangle mesh (what `recast_report` times,
/// next to Recast's build from its own prebuilt chunky mesh).
pub fn build_chunk(
    pipeline: &Mesh3DPipeline,
    chunky: &onepath_build3d::ChunkyTriMesh,
) -> Result<OnePathBuild, PeerError> {
    let built = pipeline
        .build_chunk(chunky)
        .map_err(|e| PeerError::OnePath {
            call: "Mesh3DPipeline::build_chunk",
            reason: e.to_string(),
        })?;
    Ok(OnePathBuild { built })
}

/// Twice the X/Z area of one polygon given by tile-local float32 corners, float64 (each
/// product of two float32 values is exact in float64).
fn twice_area(data: &NavTileData, first: usize, n: usize) -> f64 {
    (0..n)
        .map(|k| {
            let a = data.vertices[usize::from(data.corners[first + k])];
            let b = data.vertices[usize::from(data.corners[first + (k + 1) % n])];
            f64::from(a[0]) * f64::from(b[2]) - f64::from(b[0]) * f64::from(a[2])
        })
        .sum()
}

impl OnePathBuild {
    /// `(borders, links)`: tile borders with tiles on both sides (any layers), and the
    /// stitcher's portal links across them leaving the +X and +Z sides (one direction
    /// counted, as [`crate::recast::RecastBuild::portal_links`] counts Detour's).
    pub fn portal_links(&self) -> (usize, usize) {
        let mesh = &self.built.mesh;
        let (mut borders, mut links) = (0, 0);
        for t in mesh.tiles() {
            let (x, z, _) = t.tile().position();
            for (side, dx, dz) in [(0u8, 1, 0), (1u8, 0, 1)] {
                borders += mesh.tiles_at(x + dx, z + dz).count();
                for p in 0..t.tile().poly_count() {
                    links += t
                        .poly_links(p)
                        .iter()
                        .filter(|l| matches!(l.kind, onepath_mesh::LinkKind::Portal { side: s, .. } if s == side))
                        .count();
                }
            }
        }
        (borders, links)
    }

    /// Tile count (tiles holding polygons), polygon count, vertex count (per tile, summed)
    /// and walkable area (X/Z shoelace of each polygon's tile-local corners, float64, halved
    /// once per polygon), comparable with [`crate::recast::RecastBuild::metrics`].
    pub fn metrics(&self) -> BuildMetrics {
        let mut m = BuildMetrics::default();
        for t in &self.built.tiles {
            let d = t.data();
            if d.poly_sizes.is_empty() {
                continue;
            }
            m.tile_count += 1;
            m.polygon_count += d.poly_sizes.len();
            m.vertex_count += d.vertices.len();
            let mut first = 0;
            for &n in &d.poly_sizes {
                m.walkable_area += 0.5 * twice_area(d, first, usize::from(n));
                first += usize::from(n);
            }
        }
        m
    }

    /// Every polygon's corners in world space (float32), tile by tile (the input of
    /// [`crate::sampling::sample_points`]).
    pub fn world_polygons(&self) -> Vec<Vec<[f32; 3]>> {
        world_polygons(&self.built.mesh)
    }

    /// The very same polygons as a Detour mesh (see [`detour_mesh`]).
    pub fn detour_mesh(
        &self,
        cell_height: f32,
        tolerance: f32,
    ) -> Result<DetourNavMesh, PeerError> {
        detour_mesh(&self.built.mesh, cell_height, tolerance)
    }
}

/// Every polygon's world corners (float32) of `mesh`, in slot then polygon order.
pub fn world_polygons(mesh: &TiledNavMesh) -> Vec<Vec<[f32; 3]>> {
    let mut out = Vec::new();
    for t in mesh.tiles() {
        for p in 0..t.tile().poly_count() {
            out.push(
                t.poly_world_vertices(p)
                    .map(|v| [v[0] as f32, v[1] as f32, v[2] as f32])
                    .collect(),
            );
        }
    }
    out
}

/// The tiles of `mesh` holding polygons, as external data ([`from_onepath_tile`]).
pub fn external_tiles(mesh: &TiledNavMesh) -> Result<Vec<ExternalTile>, PeerError> {
    mesh.tiles()
        .filter(|t| t.tile().poly_count() > 0)
        .map(|t| from_onepath_tile(mesh.params(), t.tile().data()))
        .collect()
}

/// A Detour mesh over exactly the polygons of `mesh` (its as-built areas and flags, its
/// detail meshes), on OnePath's tile grid ([`ExternalGrid::from_onepath`]) with Y quantized
/// by `cell_height` and vertices allowed `tolerance` world units from their quantized value
/// (OnePath's vertices are free floats: X/Z come out within float32 rounding of the grid,
/// Y within rounding of the voxel layers).
pub fn detour_mesh(
    mesh: &TiledNavMesh,
    cell_height: f32,
    tolerance: f32,
) -> Result<DetourNavMesh, PeerError> {
    let mut grid = ExternalGrid::from_onepath(mesh.params(), cell_height);
    grid.tolerance = tolerance;
    build_detour_mesh(&grid, &external_tiles(mesh)?)
}

/// Which Detour polygon reference names which OnePath polygon in a mesh made by
/// [`detour_mesh`]: tiles are added in OnePath's tile order (only those holding polygons),
/// each OnePath polygon keeps its index, and [`build_detour_mesh`] sizes the tile and
/// polygon bits as small as the data allows; a fresh Detour mesh hands out tile indices 0,
/// 1, 2, ... with salt 1.
#[derive(Debug, Clone, PartialEq)]
pub struct DetourRefMap {
    tiles: Vec<TileRef>,
    tile_bits: u32,
    poly_bits: u32,
}

impl DetourRefMap {
    /// The map for `detour_mesh(mesh, ..)` of this very mesh.
    pub fn new(mesh: &TiledNavMesh) -> DetourRefMap {
        let tiles: Vec<&onepath_mesh::MeshTile> =
            mesh.tiles().filter(|t| t.tile().poly_count() > 0).collect();
        let bits = |n: usize| (n.max(1) as u64).next_power_of_two().trailing_zeros();
        DetourRefMap {
            tile_bits: bits(tiles.len()),
            poly_bits: bits(
                tiles
                    .iter()
                    .map(|t| t.tile().poly_count())
                    .max()
                    .unwrap_or(1),
            ),
            tiles: tiles.iter().map(|t| t.tile_ref()).collect(),
        }
    }

    /// The OnePath polygon of Detour reference `r`, `None` when it names no polygon of the
    /// mesh.
    pub fn to_onepath(&self, mesh: &TiledNavMesh, r: u32) -> Option<PolyRef> {
        // More than 31 reference bits: no Detour mesh of this layout exists (Detour refuses
        // it), so no reference names anything.
        let salt_shift = self.poly_bits + self.tile_bits;
        if salt_shift > 31 {
            return None;
        }
        let poly = r & ((1u32 << self.poly_bits) - 1);
        let tile = (r >> self.poly_bits) & ((1u32 << self.tile_bits) - 1);
        if r >> salt_shift != 1 {
            return None;
        }
        let t = mesh.tile(*self.tiles.get(tile as usize)?)?;
        if poly as usize >= t.tile().poly_count() {
            return None;
        }
        t.poly_ref(poly)
    }

    /// The Detour reference of OnePath polygon `r`, `None` when its tile is not in the map
    /// (or the layout needs more than 31 bits, which Detour refuses).
    pub fn to_detour(&self, mesh: &TiledNavMesh, r: PolyRef) -> Option<u32> {
        let salt_shift = self.poly_bits + self.tile_bits;
        if salt_shift > 31 {
            return None;
        }
        let (t, p) = mesh.poly(r).ok()?;
        let index = self.tiles.iter().position(|&x| x == t.tile_ref())?;
        // index < 2^tile_bits and p < 2^poly_bits by construction of the map.
        Some((1u32 << salt_shift) | ((index as u32) << self.poly_bits) | p as u32)
    }
}

fn query_error(call: &'static str) -> impl Fn(onepath_mesh::query::QueryError) -> PeerError {
    move |e| PeerError::OnePath {
        call,
        reason: e.to_string(),
    }
}

fn to_f64(p: [f32; 3]) -> [f64; 3] {
    [f64::from(p[0]), f64::from(p[1]), f64::from(p[2])]
}

fn to_f32(p: [f64; 3]) -> [f32; 3] {
    [p[0] as f32, p[1] as f32, p[2] as f32]
}

/// OnePath's query layer making the tester tool's calls, like [`crate::detour::DetourEngine`]:
/// `find_nearest_poly` within [`HALF_EXTENTS`], `find_path` (default filter: every area
/// costs 1, every flag included) then `find_straight_path` without crossing points, and
/// `raycast`. Buffers are kept and reused between queries.
#[derive(Debug)]
pub struct OnePathEngine<'m> {
    mesh: &'m TiledNavMesh,
    query: NavMeshQuery,
    filter: QueryFilter,
    max_iterations: u64,
    corridor: Vec<PolyRef>,
    corners: Vec<StraightPathPoint>,
    visited: Vec<PolyRef>,
}

impl<'m> OnePathEngine<'m> {
    /// An engine over `mesh` whose searches expand at most `max_iterations` polygons.
    pub fn new(mesh: &'m TiledNavMesh, max_iterations: u64) -> Self {
        OnePathEngine {
            mesh,
            query: NavMeshQuery::new(),
            filter: QueryFilter::new(),
            max_iterations,
            corridor: Vec::with_capacity(MAX_POLYS),
            corners: Vec::with_capacity(MAX_POLYS),
            visited: Vec::with_capacity(MAX_POLYS),
        }
    }

    /// Gives the engine's searches a compiled polygon graph with `landmarks` landmarks,
    /// built now under its filter (see `onepath_mesh::query::CompiledGraph`; with 0
    /// landmarks every answer stays the same); returns the time the build took.
    pub fn use_compiled_graph(
        &mut self,
        landmarks: usize,
    ) -> Result<std::time::Duration, PeerError> {
        let t = std::time::Instant::now();
        let graph = CompiledGraph::build(self.mesh, &self.filter, landmarks)
            .map_err(query_error("CompiledGraph::build"))?;
        let took = t.elapsed();
        self.query
            .set_compiled_graph(Some(std::sync::Arc::new(graph)));
        Ok(took)
    }

    /// Gives the engine's searches a compiled graph with the exact distance table
    /// (`CompiledGraph::build_exact`); `None` when the mesh has too many polygons for it.
    /// Returns the time the build took.
    pub fn use_exact_graph(&mut self) -> Result<Option<std::time::Duration>, PeerError> {
        let t = std::time::Instant::now();
        let graph = match CompiledGraph::build_exact(self.mesh, &self.filter) {
            Ok(g) => g,
            Err(QueryError::CompiledGraphTooLarge) => return Ok(None),
            Err(e) => return Err(query_error("CompiledGraph::build_exact")(e)),
        };
        let took = t.elapsed();
        self.query
            .set_compiled_graph(Some(std::sync::Arc::new(graph)));
        Ok(Some(took))
    }

    /// Sets the cost model of the engine's path searches
    /// (`onepath_mesh::query::NavMeshQuery::set_path_model`).
    pub fn set_path_model(&mut self, model: onepath_mesh::query::PathModel) {
        self.query.set_path_model(model);
    }

    /// Turns model v2's landmark estimates on or off (`NavMeshQuery::set_portal_landmarks`).
    pub fn set_portal_landmarks(&mut self, on: bool) {
        self.query.set_portal_landmarks(on);
    }

    /// Corridor and straight path from `start_pos` on `start_ref` to `end_pos` on `end_ref`
    /// (for instance the polygons and points Detour snapped to, mapped through
    /// [`DetourRefMap`]), as [`OnePathEngine::path`] makes them, with the search's answer.
    pub fn path_between(
        &mut self,
        start_ref: PolyRef,
        start_pos: [f64; 3],
        end_ref: PolyRef,
        end_pos: [f64; 3],
    ) -> Result<(PathOutcome, onepath_mesh::query::PathResult), PeerError> {
        let r = self
            .query
            .find_path(
                self.mesh,
                start_ref,
                end_ref,
                start_pos,
                end_pos,
                &self.filter,
                self.max_iterations,
                &mut self.corridor,
            )
            .map_err(query_error("find_path"))?;
        self.query
            .find_straight_path(
                self.mesh,
                start_pos,
                end_pos,
                &self.corridor,
                &self.filter,
                StraightPathOptions::default(),
                &mut self.corners,
            )
            .map_err(query_error("find_straight_path"))?;
        Ok((
            PathOutcome {
                corridor_len: self.corridor.len(),
                partial: r.status != PathStatus::Complete,
                corners: self.corners.iter().map(|c| to_f32(c.pos)).collect(),
            },
            r,
        ))
    }

    /// `find_nearest_poly` within [`HALF_EXTENTS`].
    pub fn snap(&mut self, p: [f32; 3]) -> Result<Option<NearestPoly>, PeerError> {
        let ext = to_f64(HALF_EXTENTS);
        self.query
            .find_nearest_poly(self.mesh, to_f64(p), ext, &self.filter)
            .map_err(query_error("find_nearest_poly"))
    }

    /// Corridor (`find_path`) and straight path (`find_straight_path`) between two snapped
    /// points. A partial path's straight path ends at the point of its last polygon closest
    /// to the end (OnePath's `find_straight_path` moves it there, as the tester tool does for
    /// Detour). Corners are rounded to float32 for [`PathOutcome`].
    pub fn path(
        &mut self,
        start: &NearestPoly,
        end: &NearestPoly,
    ) -> Result<PathOutcome, PeerError> {
        let r = self
            .query
            .find_path(
                self.mesh,
                start.poly,
                end.poly,
                start.point,
                end.point,
                &self.filter,
                self.max_iterations,
                &mut self.corridor,
            )
            .map_err(query_error("find_path"))?;
        self.query
            .find_straight_path(
                self.mesh,
                start.point,
                end.point,
                &self.corridor,
                &self.filter,
                StraightPathOptions::default(),
                &mut self.corners,
            )
            .map_err(query_error("find_straight_path"))?;
        Ok(PathOutcome {
            corridor_len: self.corridor.len(),
            partial: r.status != PathStatus::Complete,
            corners: self.corners.iter().map(|c| to_f32(c.pos)).collect(),
        })
    }

    /// `find_path` alone (the corridor is kept, see [`OnePathEngine::corridor`]): what the
    /// search reported (status, cost, polygons expanded).
    pub fn search(
        &mut self,
        start: &NearestPoly,
        end: &NearestPoly,
    ) -> Result<onepath_mesh::query::PathResult, PeerError> {
        self.query
            .find_path(
                self.mesh,
                start.poly,
                end.poly,
                start.point,
                end.point,
                &self.filter,
                self.max_iterations,
                &mut self.corridor,
            )
            .map_err(query_error("find_path"))
    }

    /// The last corridor found by [`OnePathEngine::path`] or [`OnePathEngine::search`].
    pub fn corridor(&self) -> &[PolyRef] {
        &self.corridor
    }

    /// The straight path along a given `corridor` (for instance Detour's corridor mapped
    /// through [`DetourRefMap`]), from `start` to `end`, corners rounded to float32.
    pub fn straight_path_along(
        &mut self,
        start: [f64; 3],
        end: [f64; 3],
        corridor: &[PolyRef],
    ) -> Result<Vec<[f32; 3]>, PeerError> {
        self.query
            .find_straight_path(
                self.mesh,
                start,
                end,
                corridor,
                &self.filter,
                StraightPathOptions::default(),
                &mut self.corners,
            )
            .map_err(query_error("find_straight_path"))?;
        Ok(self.corners.iter().map(|c| to_f32(c.pos)).collect())
    }

    /// `raycast` from a snapped point toward `end`.
    pub fn raycast(&mut self, start: &NearestPoly, end: [f64; 3]) -> Result<RaycastHit, PeerError> {
        self.query
            .raycast(
                self.mesh,
                start.poly,
                start.point,
                end,
                &self.filter,
                &mut self.visited,
            )
            .map_err(query_error("raycast"))
    }
}

impl PathEngine for OnePathEngine<'_> {
    fn straight_path(
        &mut self,
        start: [f32; 3],
        end: [f32; 3],
    ) -> Result<Option<PathOutcome>, PeerError> {
        let (Some(s), Some(e)) = (self.snap(start)?, self.snap(end)?) else {
            return Ok(None);
        };
        self.path(&s, &e).map(Some)
    }
}
