//! A tiled Recast build of a [`Level`], step for step RecastDemo's `Sample_TileMesh`.
//!
//! Per tile: bounds expanded by a border of `walkableRadius + 3` cells,
//! `rcMarkWalkableTriangles`, `rcRasterizeTriangles`, the three span filters,
//! `rcBuildCompactHeightfield`, `rcErodeWalkableArea`, `rcBuildDistanceField` +
//! `rcBuildRegions` (watershed), `rcBuildContours`, `rcBuildPolyMesh`,
//! `rcBuildPolyMeshDetail`, the demo's area-to-flags rule, `dtCreateNavMeshData` and
//! `dtNavMesh::addTile`.
//!
//! A tile's triangles are picked as the demo picks them: through a chunky triangle mesh
//! ([`ChunkyTriMesh`], RecastDemo's `rcChunkyTriMesh` rebuilt in Rust: a bounding-box tree
//! over the triangles' X/Z bounds with leaves of at most 256 triangles), every leaf whose
//! bounds overlap the expanded tile (`rcGetChunksOverlappingRect`) rasterized in tree order.
//! The tree is built once per level, outside the tile loop, like the demo builds it when it
//! loads a mesh; [`build_tiled_chunky`] takes a prebuilt one (the build times of
//! `recast_report` and the benches use that, and give OnePath its prebuilt
//! `onepath_build3d::ChunkyTriMesh` alike: see `README.md`), [`build_tiled`] builds it first.

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

/// Detour's slab test (`overlapSlabs` in `DetourNavMesh.cpp`, as `connectExtLinks` calls it
/// with `px = 0.01` and `py = walkableClimb`) on two facing portal edges given as
/// `(u, height)` end points, `u` running along the boundary: the common interval shrunk by
/// `px` at both ends must be non-empty, and the edges cross inside it or differ in height
/// by at most `2 · py` at one of its ends.
pub fn detour_slabs_overlap(a: [(f64, f64); 2], b: [(f64, f64); 2], climb: f64) -> bool {
    const PX: f64 = 0.01;
    let sorted = |e: [(f64, f64); 2]| if e[0].0 <= e[1].0 { e } else { [e[1], e[0]] };
    let (a, b) = (sorted(a), sorted(b));
    let lo = (a[0].0 + PX).max(b[0].0 + PX);
    let hi = (a[1].0 - PX).min(b[1].0 - PX);
    if lo > hi {
        return false;
    }
    let y =
        |e: [(f64, f64); 2], u: f64| e[0].1 + (e[1].1 - e[0].1) * (u - e[0].0) / (e[1].0 - e[0].0);
    let dmin = y(b, lo) - y(a, lo);
    let dmax = y(b, hi) - y(a, hi);
    if dmin * dmax < 0.0 {
        return true;
    }
    let thr = (2.0 * climb) * (2.0 * climb);
    dmin * dmin <= thr || dmax * dmax <= thr
}

/// Recast's portal side codes (`rcBuildPolyMesh`): 0 at x = 0, 1 at z = max, 2 at x = max,
/// 3 at z = 0.
const RC_SIDE_X_MAX: u16 = 2;
const RC_SIDE_Z_MAX: u16 = 1;
const RC_SIDE_X_MIN: u16 = 0;
const RC_SIDE_Z_MIN: u16 = 3;

impl RecastTile {
    /// The portal edges of this tile on Recast side `side`, as `(u, world height)` end points
    /// (u: world Z on the X sides, world X on the Z sides).
    fn portal_edges(&self, side: u16) -> Vec<[(f64, f64); 2]> {
        let m = &self.mesh;
        let axis = if side == RC_SIDE_X_MIN || side == RC_SIDE_X_MAX {
            2
        } else {
            0
        };
        let mut out = Vec::new();
        for p in 0..m.poly_count() {
            let vs = m.poly_vertices(p);
            let nei = &m.polys[p * 2 * m.nvp + m.nvp..p * 2 * m.nvp + 2 * m.nvp];
            for k in 0..vs.len() {
                if nei[k] != crate::mesh_data::PORTAL_BIT | side {
                    continue;
                }
                let a = m.world_vertex(usize::from(vs[k]));
                let b = m.world_vertex(usize::from(vs[(k + 1) % vs.len()]));
                out.push([
                    (f64::from(a[axis]), f64::from(a[1])),
                    (f64::from(b[axis]), f64::from(b[1])),
                ]);
            }
        }
        out
    }
}

impl RecastBuild {
    /// `(borders, links)`: tile borders with tiles on both sides, and the portal-edge pairs
    /// across them that Detour links ([`detour_slabs_overlap`], one direction counted; Detour
    /// makes the reverse link too).
    pub fn portal_links(&self) -> (usize, usize) {
        let climb = f64::from(self.settings.agent_max_climb);
        let at = |x: i32, z: i32| self.tiles.iter().find(|t| t.tile_x == x && t.tile_z == z);
        let (mut borders, mut links) = (0, 0);
        for t in &self.tiles {
            for (dx, dz, mine, theirs) in [
                (1, 0, RC_SIDE_X_MAX, RC_SIDE_X_MIN),
                (0, 1, RC_SIDE_Z_MAX, RC_SIDE_Z_MIN),
            ] {
                let Some(n) = at(t.tile_x + dx, t.tile_z + dz) else {
                    continue;
                };
                borders += 1;
                let other = n.portal_edges(theirs);
                for a in t.portal_edges(mine) {
                    links += other
                        .iter()
                        .filter(|&&b| detour_slabs_overlap(a, b, climb))
                        .count();
                }
            }
        }
        (borders, links)
    }
}

/// Builds every tile of `level` single-threaded and adds it to a fresh Detour navmesh (the
/// chunky triangle mesh built first, [`ChunkyTriMesh::new`]).
pub fn build_tiled(level: &Level, settings: &RecastSettings) -> Result<RecastBuild, PeerError> {
    let chunky = ChunkyTriMesh::new(level, TRIS_PER_CHUNK)?;
    build_tiled_chunky(level, &chunky, settings)
}

/// [`build_tiled`] with a prebuilt chunky triangle mesh of `level`.
pub fn build_tiled_chunky(
    level: &Level,
    chunky: &ChunkyTriMesh,
    settings: &RecastSettings,
) -> Result<RecastBuild, PeerError> {
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
                build_tile_meshes(&mut ctx, &cfg, chunky, &vertices, bmin, bmax)?
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
    chunky: &ChunkyTriMesh,
    vertices: &[f32],
    tile_bmin: [f32; 3],
    tile_bmax: [f32; 3],
) -> Result<Option<(PolyMeshData, DetailMeshData)>, PeerError> {
    let (bmin, bmax) = grid_bounds(cfg, tile_bmin, tile_bmax);
    let triangles = chunky.triangles_overlapping([bmin[0], bmin[2]], [bmax[0], bmax[2]]);
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

/// RecastDemo's triangles per chunk (`rcCreateChunkyTriMesh(..., 256, ...)`).
pub const TRIS_PER_CHUNK: usize = 256;

/// One node of a [`ChunkyTriMesh`]: X/Z bounds, and either a leaf's triangle range or the
/// number of nodes to skip past its subtree.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ChunkNode {
    bmin: [f32; 2],
    bmax: [f32; 2],
    /// Leaf: the first triangle (index into `ChunkyTriMesh::tris`) and the count.
    /// Inner node: `None`, and `escape` nodes to skip.
    leaf: Option<(usize, usize)>,
    escape: usize,
}

/// RecastDemo's chunky triangle mesh (`ChunkyTriMesh.cpp`), rebuilt: the triangles' X/Z
/// bounds split recursively at the median of the longer axis (sorted by the bounds'
/// minimum, ties by triangle index) until at most `per_chunk` remain; nodes in depth-first
/// order, each inner node knowing how far its subtree reaches, so a rectangle query is one
/// forward walk.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkyTriMesh {
    nodes: Vec<ChunkNode>,
    /// Flattened triangle indices (three per triangle) in leaf order.
    tris: Vec<i32>,
}

impl ChunkyTriMesh {
    /// The tree over `level`'s triangles, leaves of at most `per_chunk` (at least 1).
    pub fn new(level: &Level, per_chunk: usize) -> Result<Self, PeerError> {
        let per_chunk = per_chunk.max(1);
        let mut items: Vec<(usize, [f32; 2], [f32; 2])> = Vec::with_capacity(level.triangles.len());
        for (t, tri) in level.triangles.iter().enumerate() {
            let mut lo = [f32::INFINITY; 2];
            let mut hi = [f32::NEG_INFINITY; 2];
            for &i in tri {
                let v = level.vertices.get(i as usize).ok_or_else(|| {
                    PeerError::input(
                        format!("triangle {t}"),
                        format!("index {i} is not below {}", level.vertices.len()),
                    )
                })?;
                lo = [lo[0].min(v[0]), lo[1].min(v[2])];
                hi = [hi[0].max(v[0]), hi[1].max(v[2])];
            }
            items.push((t, lo, hi));
        }
        let mut mesh = ChunkyTriMesh {
            nodes: Vec::new(),
            tris: Vec::with_capacity(level.triangles.len() * 3),
        };
        if !items.is_empty() {
            mesh.subdivide(level, &mut items, per_chunk);
        }
        Ok(mesh)
    }

    fn subdivide(
        &mut self,
        level: &Level,
        items: &mut [(usize, [f32; 2], [f32; 2])],
        per_chunk: usize,
    ) {
        let mut bmin = [f32::INFINITY; 2];
        let mut bmax = [f32::NEG_INFINITY; 2];
        for it in items.iter() {
            bmin = [bmin[0].min(it.1[0]), bmin[1].min(it.1[1])];
            bmax = [bmax[0].max(it.2[0]), bmax[1].max(it.2[1])];
        }
        let at = self.nodes.len();
        self.nodes.push(ChunkNode {
            bmin,
            bmax,
            leaf: None,
            escape: 1,
        });
        if items.len() <= per_chunk {
            let first = self.tris.len() / 3;
            for it in items.iter() {
                self.tris
                    .extend(level.triangles[it.0].iter().map(|&i| i as i32));
            }
            self.nodes[at].leaf = Some((first, items.len()));
            return;
        }
        // The demo's longestAxis: Z (its "y") only when strictly longer.
        let axis = usize::from(bmax[1] - bmin[1] > bmax[0] - bmin[0]);
        items.sort_by(|a, b| a.1[axis].total_cmp(&b.1[axis]).then(a.0.cmp(&b.0)));
        let split = items.len() / 2;
        let (left, right) = items.split_at_mut(split);
        self.subdivide(level, left, per_chunk);
        self.subdivide(level, right, per_chunk);
        self.nodes[at].escape = self.nodes.len() - at;
    }

    /// Number of leaves (chunks).
    pub fn chunk_count(&self) -> usize {
        self.nodes.iter().filter(|n| n.leaf.is_some()).count()
    }

    /// `rcGetChunksOverlappingRect`: the flattened triangles of every leaf whose X/Z bounds
    /// overlap `[min, max]` (boundaries included), leaves in tree order.
    pub fn triangles_overlapping(&self, min: [f32; 2], max: [f32; 2]) -> Vec<i32> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.nodes.len() {
            let n = &self.nodes[i];
            let overlap = !(min[0] > n.bmax[0]
                || max[0] < n.bmin[0]
                || min[1] > n.bmax[1]
                || max[1] < n.bmin[1]);
            match n.leaf {
                Some((first, count)) => {
                    if overlap {
                        out.extend_from_slice(&self.tris[first * 3..(first + count) * 3]);
                    }
                    i += 1;
                }
                None if overlap => i += 1,
                None => i += n.escape,
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of `n` unit right triangles along X, triangle t over x in t..t+1.
    fn strip(n: u32) -> Level {
        let mut vertices = Vec::new();
        let mut triangles = Vec::new();
        for t in 0..n {
            let x = t as f32;
            let b = vertices.len() as u32;
            vertices.extend([[x, 0.0, 0.0], [x + 1.0, 0.0, 0.0], [x, 0.0, 1.0]]);
            triangles.push([b, b + 1, b + 2]);
        }
        Level {
            vertices,
            triangles,
        }
    }

    #[test]
    fn chunks_hold_at_most_the_limit_and_every_triangle_once() {
        let level = strip(1000);
        let c = ChunkyTriMesh::new(&level, 256).unwrap();
        assert!(c.chunk_count() >= 4);
        let all = c.triangles_overlapping([-1.0, -1.0], [2000.0, 2.0]);
        let mut firsts: Vec<i32> = all.chunks(3).map(|t| t[0]).collect();
        firsts.sort_unstable();
        let expected: Vec<i32> = (0..1000).map(|t| t * 3).collect();
        assert_eq!(firsts, expected);
    }

    #[test]
    fn a_rectangle_gets_the_chunks_it_overlaps_and_no_far_chunk() {
        let level = strip(1000);
        let c = ChunkyTriMesh::new(&level, 256).unwrap();
        let near = c.triangles_overlapping([10.5, 0.0], [11.5, 1.0]);
        let tris: Vec<i32> = near.chunks(3).map(|t| t[0] / 3).collect();
        // Triangles 10 and 11 are there; chunks far along X are not.
        assert!(tris.contains(&10) && tris.contains(&11));
        assert!(tris.len() <= 256);
        assert!(tris.iter().all(|&t| t < 600));
        assert!(c
            .triangles_overlapping([5000.0, 0.0], [5001.0, 1.0])
            .is_empty());
    }
}
