//! The only module with `unsafe`: owning wrappers over `recastnavigation-sys`.
//!
//! Every C++ object is held by a wrapper that frees it in `Drop` with the matching Recast or
//! Detour free function. Every call that follows indices (triangles, polygons, detail
//! meshes) is made only after the safe side checked them (`Level` indices here,
//! [`DetourTileInput::validate`] for tiles), so no input reachable from safe code makes C++
//! read out of bounds.

use std::marker::PhantomData;
use std::ptr::NonNull;

use recastnavigation_sys as sys;

use crate::error::PeerError;
use crate::mesh_data::{check_point, DetailMeshData, DetourTileInput, PolyMeshData};
use crate::settings::VoxelConfig;

/// `dtStatus` failure bit.
const DT_FAILURE: u32 = sys::DT_FAILURE;

fn dt_check(call: &'static str, status: u32) -> Result<u32, PeerError> {
    if status & DT_FAILURE != 0 {
        Err(PeerError::Detour { call, status })
    } else {
        Ok(status)
    }
}

/// An `rcContext` with logging and timers off, plus the tile being built (named in errors).
pub(crate) struct Context {
    ptr: NonNull<sys::rcContext>,
    tile: (i32, i32),
}

impl Context {
    pub(crate) fn new() -> Result<Self, PeerError> {
        // SAFETY: `CreateContext` is `new rcContext(false)`; it takes no pointers. The result is
        // owned here and released once by `DeleteContext` in `Drop`.
        let ptr = unsafe { sys::CreateContext(false) };
        let ptr = NonNull::new(ptr).ok_or(PeerError::Alloc { what: "rcContext" })?;
        Ok(Context { ptr, tile: (0, 0) })
    }

    /// The raw context, for the tile cache comparison's own calls (`crate::tilecache`).
    pub(crate) fn raw(&self) -> *mut sys::rcContext {
        self.ptr.as_ptr()
    }

    /// Names the tile that later failures are reported for.
    pub(crate) fn set_tile(&mut self, tile_x: i32, tile_z: i32) {
        self.tile = (tile_x, tile_z);
    }

    fn fail(&self, step: &'static str) -> PeerError {
        PeerError::Recast {
            step,
            tile_x: self.tile.0,
            tile_z: self.tile.1,
        }
    }

    fn check(&self, step: &'static str, ok: bool) -> Result<(), PeerError> {
        if ok {
            Ok(())
        } else {
            Err(self.fail(step))
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `CreateContext` and is deleted exactly once, here.
        unsafe { sys::DeleteContext(self.ptr.as_ptr()) }
    }
}

/// Declares an owning wrapper over a Recast object allocated by `$alloc` and freed by `$free`.
macro_rules! recast_owner {
    ($name:ident, $ty:ty, $alloc:ident, $free:ident) => {
        pub(crate) struct $name(NonNull<$ty>);

        impl $name {
            fn alloc(ctx: &Context) -> Result<Self, PeerError> {
                // SAFETY: the allocator takes no arguments and returns a default-constructed
                // object or null; ownership passes to the wrapper, freed once in `Drop`.
                let ptr = unsafe { sys::$alloc() };
                NonNull::new(ptr)
                    .map($name)
                    .ok_or_else(|| ctx.fail(stringify!($alloc)))
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: the pointer came from the matching allocator and is freed once, here.
                unsafe { sys::$free(self.0.as_ptr()) }
            }
        }
    };
}

recast_owner!(
    Heightfield,
    sys::rcHeightfield,
    rcAllocHeightfield,
    rcFreeHeightField
);
recast_owner!(
    CompactHeightfield,
    sys::rcCompactHeightfield,
    rcAllocCompactHeightfield,
    rcFreeCompactHeightfield
);
recast_owner!(
    ContourSet,
    sys::rcContourSet,
    rcAllocContourSet,
    rcFreeContourSet
);
recast_owner!(PolyMesh, sys::rcPolyMesh, rcAllocPolyMesh, rcFreePolyMesh);
recast_owner!(
    PolyMeshDetail,
    sys::rcPolyMeshDetail,
    rcAllocPolyMeshDetail,
    rcFreePolyMeshDetail
);

impl Heightfield {
    /// `rcCreateHeightfield` over `cfg.width` x `cfg.height` cells from `bmin`.
    pub(crate) fn new(
        ctx: &mut Context,
        cfg: &VoxelConfig,
        bmin: [f32; 3],
        bmax: [f32; 3],
    ) -> Result<Self, PeerError> {
        let hf = Heightfield::alloc(ctx)?;
        if cfg.width <= 0 || cfg.height <= 0 {
            return Err(PeerError::input(
                "heightfield size",
                "width and height must be > 0",
            ));
        }
        // SAFETY: `ctx` and `hf` are live objects; `bmin`/`bmax` point at 3 floats each that
        // outlive the call; Recast allocates `width * height` columns itself.
        let ok = unsafe {
            sys::rcCreateHeightfield(
                ctx.ptr.as_ptr(),
                hf.0.as_ptr(),
                cfg.width,
                cfg.height,
                bmin.as_ptr(),
                bmax.as_ptr(),
                cfg.cs,
                cfg.ch,
            )
        };
        ctx.check("rcCreateHeightfield", ok)?;
        Ok(hf)
    }

    /// `rcMarkWalkableTriangles` then `rcRasterizeTriangles` of `triangles` (indices into
    /// `vertices`, flattened `x, y, z`). Indices are checked before anything reaches C++.
    pub(crate) fn rasterize(
        &mut self,
        ctx: &mut Context,
        cfg: &VoxelConfig,
        vertices: &[f32],
        triangles: &[i32],
    ) -> Result<(), PeerError> {
        if vertices.len() % 3 != 0 || triangles.len() % 3 != 0 {
            return Err(PeerError::input(
                "triangles",
                "lengths must be multiples of 3",
            ));
        }
        let nverts = i32::try_from(vertices.len() / 3)
            .map_err(|_| PeerError::input("vertices", "count does not fit an int"))?;
        let ntris = i32::try_from(triangles.len() / 3)
            .map_err(|_| PeerError::input("triangles", "count does not fit an int"))?;
        if let Some(t) = triangles.iter().position(|&i| i < 0 || i >= nverts) {
            return Err(PeerError::input(
                format!("triangle {}", t / 3),
                format!("index {} is not below {nverts}", triangles[t]),
            ));
        }
        let mut areas = vec![0u8; triangles.len() / 3];
        // SAFETY: `vertices` holds `nverts * 3` floats, `triangles` `ntris * 3` indices, each
        // checked to lie in `0..nverts`; `areas` holds `ntris` bytes for Recast to write.
        unsafe {
            sys::rcMarkWalkableTriangles(
                ctx.ptr.as_ptr(),
                cfg.walkable_slope_angle,
                vertices.as_ptr(),
                nverts,
                triangles.as_ptr(),
                ntris,
                areas.as_mut_ptr(),
            )
        };
        // SAFETY: same arrays as above (checked), `areas` now filled; `self` is a live
        // heightfield created by `rcCreateHeightfield`, which clips spans to its bounds.
        let ok = unsafe {
            sys::rcRasterizeTriangles(
                ctx.ptr.as_ptr(),
                vertices.as_ptr(),
                nverts,
                triangles.as_ptr(),
                areas.as_ptr(),
                ntris,
                self.0.as_ptr(),
                cfg.walkable_climb,
            )
        };
        ctx.check("rcRasterizeTriangles", ok)
    }

    /// The demo's three filters, in its order: low hanging obstacles, ledges, low height.
    pub(crate) fn filter(&mut self, ctx: &mut Context, cfg: &VoxelConfig) {
        // SAFETY: `ctx` and `self` are live; the filters only walk the heightfield's own spans.
        unsafe {
            sys::rcFilterLowHangingWalkableObstacles(
                ctx.ptr.as_ptr(),
                cfg.walkable_climb,
                self.0.as_ptr(),
            );
            sys::rcFilterLedgeSpans(
                ctx.ptr.as_ptr(),
                cfg.walkable_height,
                cfg.walkable_climb,
                self.0.as_ptr(),
            );
            sys::rcFilterWalkableLowHeightSpans(
                ctx.ptr.as_ptr(),
                cfg.walkable_height,
                self.0.as_ptr(),
            );
        }
    }
}

impl CompactHeightfield {
    /// The raw compact heightfield, for the tile cache comparison's own calls.
    pub(crate) fn raw(&self) -> *mut sys::rcCompactHeightfield {
        self.0.as_ptr()
    }

    /// `rcBuildCompactHeightfield` from a filtered heightfield.
    pub(crate) fn build(
        ctx: &mut Context,
        cfg: &VoxelConfig,
        hf: &Heightfield,
    ) -> Result<Self, PeerError> {
        let chf = CompactHeightfield::alloc(ctx)?;
        // SAFETY: all three objects are live; Recast reads `hf` and fills `chf`.
        let ok = unsafe {
            sys::rcBuildCompactHeightfield(
                ctx.ptr.as_ptr(),
                cfg.walkable_height,
                cfg.walkable_climb,
                hf.0.as_ptr(),
                chf.0.as_ptr(),
            )
        };
        ctx.check("rcBuildCompactHeightfield", ok)?;
        Ok(chf)
    }

    /// `rcErodeWalkableArea`, `rcBuildDistanceField`, `rcBuildRegions` (watershed).
    pub(crate) fn erode_and_partition(
        &mut self,
        ctx: &mut Context,
        cfg: &VoxelConfig,
    ) -> Result<(), PeerError> {
        // SAFETY: `ctx` and `self` are live; each call works on the compact heightfield's own
        // arrays, which `rcBuildCompactHeightfield` sized.
        let ok = unsafe {
            sys::rcErodeWalkableArea(ctx.ptr.as_ptr(), cfg.walkable_radius, self.0.as_ptr())
        };
        ctx.check("rcErodeWalkableArea", ok)?;
        // SAFETY: as above.
        let ok = unsafe { sys::rcBuildDistanceField(ctx.ptr.as_ptr(), self.0.as_ptr()) };
        ctx.check("rcBuildDistanceField", ok)?;
        // SAFETY: as above.
        let ok = unsafe {
            sys::rcBuildRegions(
                ctx.ptr.as_ptr(),
                self.0.as_ptr(),
                cfg.border_size,
                cfg.min_region_area,
                cfg.merge_region_area,
            )
        };
        ctx.check("rcBuildRegions", ok)
    }
}

impl ContourSet {
    /// `rcBuildContours` with the default flags (tessellate wall edges).
    pub(crate) fn build(
        ctx: &mut Context,
        cfg: &VoxelConfig,
        chf: &CompactHeightfield,
    ) -> Result<Self, PeerError> {
        let cset = ContourSet::alloc(ctx)?;
        // SAFETY: all objects are live; Recast reads `chf` and fills `cset`.
        let ok = unsafe {
            sys::rcBuildContours(
                ctx.ptr.as_ptr(),
                chf.0.as_ptr(),
                cfg.max_simplification_error,
                cfg.max_edge_len,
                cset.0.as_ptr(),
                sys::rcBuildContoursFlags_RC_CONTOUR_TESS_WALL_EDGES as i32,
            )
        };
        ctx.check("rcBuildContours", ok)?;
        Ok(cset)
    }

    /// Number of contours.
    pub(crate) fn len(&self) -> usize {
        // SAFETY: `self` is a live contour set; reading a plain field.
        let n = unsafe { self.0.as_ref().nconts };
        usize::try_from(n).unwrap_or(0)
    }
}

/// A slice over a C++ array, empty when the pointer is null or the count is not positive.
///
/// # Safety
/// When `ptr` is non-null and `count * stride > 0`, it must point at that many initialized
/// elements that stay alive and unchanged for `'a`.
unsafe fn c_slice<'a, T>(ptr: *const T, count: i32, stride: usize) -> &'a [T] {
    let n = usize::try_from(count).unwrap_or(0) * stride;
    if ptr.is_null() || n == 0 {
        &[]
    } else {
        // SAFETY: guaranteed by the caller (see above).
        unsafe { std::slice::from_raw_parts(ptr, n) }
    }
}

impl PolyMesh {
    /// `rcBuildPolyMesh` with `cfg.max_verts_per_poly`.
    pub(crate) fn build(
        ctx: &mut Context,
        cfg: &VoxelConfig,
        cset: &ContourSet,
    ) -> Result<Self, PeerError> {
        let pmesh = PolyMesh::alloc(ctx)?;
        // SAFETY: all objects are live; Recast reads `cset` and fills `pmesh`.
        let ok = unsafe {
            sys::rcBuildPolyMesh(
                ctx.ptr.as_ptr(),
                cset.0.as_ptr(),
                cfg.max_verts_per_poly,
                pmesh.0.as_ptr(),
            )
        };
        ctx.check("rcBuildPolyMesh", ok)?;
        Ok(pmesh)
    }

    /// Copies the mesh out of C++.
    pub(crate) fn to_data(&self) -> PolyMeshData {
        // SAFETY: `self` is live and was filled by `rcBuildPolyMesh`, which allocates `verts`
        // with `nverts * 3` entries, `polys` with `maxpolys * 2 * nvp` (npolys <= maxpolys),
        // and `regs`, `flags`, `areas` with `maxpolys` entries each.
        unsafe {
            let m = self.0.as_ref();
            let nvp = usize::try_from(m.nvp).unwrap_or(0);
            let verts = c_slice(m.verts, m.nverts, 3);
            PolyMeshData {
                bmin: m.bmin,
                bmax: m.bmax,
                cs: m.cs,
                ch: m.ch,
                nvp,
                vertices: verts.chunks_exact(3).map(|v| [v[0], v[1], v[2]]).collect(),
                polys: c_slice(m.polys, m.npolys, 2 * nvp).to_vec(),
                regions: c_slice(m.regs, m.npolys, 1).to_vec(),
                flags: c_slice(m.flags, m.npolys, 1).to_vec(),
                areas: c_slice(m.areas, m.npolys, 1).to_vec(),
            }
        }
    }
}

impl PolyMeshDetail {
    /// `rcBuildPolyMeshDetail` over `pmesh` sampling `chf`.
    pub(crate) fn build(
        ctx: &mut Context,
        cfg: &VoxelConfig,
        pmesh: &PolyMesh,
        chf: &CompactHeightfield,
    ) -> Result<Self, PeerError> {
        let dmesh = PolyMeshDetail::alloc(ctx)?;
        // SAFETY: all objects are live; Recast reads `pmesh` and `chf` and fills `dmesh`.
        let ok = unsafe {
            sys::rcBuildPolyMeshDetail(
                ctx.ptr.as_ptr(),
                pmesh.0.as_ptr(),
                chf.0.as_ptr(),
                cfg.detail_sample_dist,
                cfg.detail_sample_max_error,
                dmesh.0.as_ptr(),
            )
        };
        ctx.check("rcBuildPolyMeshDetail", ok)?;
        Ok(dmesh)
    }

    /// Copies the detail mesh out of C++.
    pub(crate) fn to_data(&self) -> DetailMeshData {
        // SAFETY: `self` is live and was filled by `rcBuildPolyMeshDetail`: `meshes` holds
        // `nmeshes * 4` entries, `verts` `nverts * 3`, `tris` `ntris * 4`.
        unsafe {
            let d = self.0.as_ref();
            let meshes = c_slice(d.meshes, d.nmeshes, 4);
            let verts = c_slice(d.verts, d.nverts, 3);
            let tris = c_slice(d.tris, d.ntris, 4);
            DetailMeshData {
                meshes: meshes
                    .chunks_exact(4)
                    .map(|m| [m[0], m[1], m[2], m[3]])
                    .collect(),
                vertices: verts.chunks_exact(3).map(|v| [v[0], v[1], v[2]]).collect(),
                triangles: tris
                    .chunks_exact(4)
                    .map(|t| [t[0], t[1], t[2], t[3]])
                    .collect(),
            }
        }
    }
}

/// A Detour tile blob made by `dtCreateNavMeshData` (allocated with `dtAlloc`).
#[derive(Debug)]
pub struct TileData {
    ptr: NonNull<u8>,
    len: i32,
}

impl TileData {
    /// The tile's bytes (Detour's in-memory tile layout, native endianness).
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` points at `len` bytes that `dtCreateNavMeshData` allocated and
        // initialized; they live until `Drop` (or until a mesh takes them).
        unsafe { c_slice(self.ptr.as_ptr(), self.len, 1) }
    }
}

impl Drop for TileData {
    fn drop(&mut self) {
        // SAFETY: allocated by `dtAlloc` inside `dtCreateNavMeshData`, not owned by any mesh
        // (`DetourNavMesh::add_tile` forgets the wrapper when the mesh takes it), freed once.
        unsafe { sys::dtFree(self.ptr.as_ptr().cast()) }
    }
}

/// `dtCreateNavMeshData` for a validated tile input (no off-mesh links).
pub(crate) fn create_nav_mesh_data(input: &DetourTileInput) -> Result<TileData, PeerError> {
    input.validate()?;
    let m = &input.mesh;
    let flat_verts: Vec<u16> = m.vertices.iter().flatten().copied().collect();
    let (detail_meshes, detail_verts, detail_tris) = match &input.detail {
        Some(d) => (
            d.meshes.iter().flatten().copied().collect::<Vec<u32>>(),
            d.vertices.iter().flatten().copied().collect::<Vec<f32>>(),
            d.triangles.iter().flatten().copied().collect::<Vec<u8>>(),
        ),
        None => (Vec::new(), Vec::new(), Vec::new()),
    };
    let has_detail = input.detail.is_some();
    // Counts below were checked to fit an int by `validate`.
    let params = sys::dtNavMeshCreateParams {
        verts: flat_verts.as_ptr(),
        vertCount: m.vertices.len() as i32,
        polys: m.polys.as_ptr(),
        polyFlags: m.flags.as_ptr(),
        polyAreas: m.areas.as_ptr(),
        polyCount: m.areas.len() as i32,
        nvp: m.nvp as i32,
        detailMeshes: if has_detail {
            detail_meshes.as_ptr()
        } else {
            std::ptr::null()
        },
        detailVerts: if has_detail {
            detail_verts.as_ptr()
        } else {
            std::ptr::null()
        },
        detailVertsCount: (detail_verts.len() / 3) as i32,
        detailTris: if has_detail {
            detail_tris.as_ptr()
        } else {
            std::ptr::null()
        },
        detailTriCount: (detail_tris.len() / 4) as i32,
        offMeshConVerts: std::ptr::null(),
        offMeshConRad: std::ptr::null(),
        offMeshConFlags: std::ptr::null(),
        offMeshConAreas: std::ptr::null(),
        offMeshConDir: std::ptr::null(),
        offMeshConUserID: std::ptr::null(),
        offMeshConCount: 0,
        userId: 0,
        tileX: input.tile_x,
        tileY: input.tile_z,
        tileLayer: input.layer,
        bmin: m.bmin,
        bmax: m.bmax,
        walkableHeight: input.walkable_height,
        walkableRadius: input.walkable_radius,
        walkableClimb: input.walkable_climb,
        cs: m.cs,
        ch: m.ch,
        buildBvTree: input.build_bv_tree,
    };
    let mut params = params;
    let mut out: *mut u8 = std::ptr::null_mut();
    let mut out_len: i32 = 0;
    // SAFETY: every array in `params` lives until the call returns and holds the counts
    // stated next to it; `validate` checked every index C++ follows (polygon vertices,
    // neighbours, detail ranges and triangle indices). Off-mesh arrays are null with count 0.
    let ok = unsafe { sys::dtCreateNavMeshData(&mut params, &mut out, &mut out_len) };
    let ptr = NonNull::new(out);
    match (ok, ptr) {
        (true, Some(ptr)) if out_len > 0 => Ok(TileData { ptr, len: out_len }),
        (_, Some(ptr)) => {
            // Free a blob returned alongside a failure so it does not leak.
            drop(TileData { ptr, len: out_len });
            Err(PeerError::Detour {
                call: "dtCreateNavMeshData",
                status: DT_FAILURE,
            })
        }
        (_, None) => Err(PeerError::Detour {
            call: "dtCreateNavMeshData",
            status: DT_FAILURE,
        }),
    }
}

/// The grid of a Detour navmesh (`dtNavMeshParams`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetourMeshParams {
    /// World origin of tile (0, 0).
    pub origin: [f32; 3],
    /// Tile width (X), world units.
    pub tile_width: f32,
    /// Tile height (Z), world units.
    pub tile_height: f32,
    /// Largest number of tiles.
    pub max_tiles: i32,
    /// Largest number of polygons per tile.
    pub max_polys: i32,
}

/// An owned `dtNavMesh`; it owns the tiles added to it.
#[derive(Debug)]
pub struct DetourNavMesh {
    ptr: NonNull<sys::dtNavMesh>,
}

impl DetourNavMesh {
    /// `dtAllocNavMesh` + `dtNavMesh::init`.
    pub fn new(params: &DetourMeshParams) -> Result<Self, PeerError> {
        let finite = params.origin.iter().all(|v| v.is_finite());
        let sizes_ok = params.tile_width > 0.0
            && params.tile_height > 0.0
            && params.tile_width.is_finite()
            && params.tile_height.is_finite();
        if !finite || !sizes_ok || params.max_tiles < 1 || params.max_polys < 1 {
            return Err(PeerError::input(
                "navmesh params",
                "origin must be finite, tile sizes positive, max tiles and polygons >= 1",
            ));
        }
        // SAFETY: no arguments; the result is owned here and freed by `dtFreeNavMesh` in Drop.
        let ptr = unsafe { sys::dtAllocNavMesh() };
        let mesh = DetourNavMesh {
            ptr: NonNull::new(ptr).ok_or(PeerError::Alloc { what: "dtNavMesh" })?,
        };
        let p = sys::dtNavMeshParams {
            orig: params.origin,
            tileWidth: params.tile_width,
            tileHeight: params.tile_height,
            maxTiles: params.max_tiles,
            maxPolys: params.max_polys,
        };
        // SAFETY: `mesh` is live; `p` is a complete parameter struct read during the call.
        let status = unsafe { sys::dtNavMesh_init(mesh.ptr.as_ptr(), &p) };
        dt_check("dtNavMesh::init", status)?;
        Ok(mesh)
    }

    /// The raw navmesh, for the tile cache comparison (`crate::tilecache`), which adds and
    /// replaces tiles through DetourTileCache.
    pub(crate) fn raw(&mut self) -> *mut sys::dtNavMesh {
        self.ptr.as_ptr()
    }

    /// `dtNavMesh::addTile`; on success the mesh owns (and will free) the tile's bytes.
    /// Returns the tile reference.
    pub fn add_tile(&mut self, tile: TileData) -> Result<u32, PeerError> {
        let mut tile_ref: u32 = 0;
        // SAFETY: `tile` holds a blob made by `dtCreateNavMeshData` (valid magic, version and
        // internal offsets); with `DT_TILE_FREE_DATA` the mesh frees it with `dtFree` on
        // success, so the wrapper is forgotten then; on failure it stays ours and is freed.
        let status = unsafe {
            sys::dtNavMesh_addTile(
                self.ptr.as_ptr(),
                tile.ptr.as_ptr(),
                tile.len,
                sys::dtTileFlags_DT_TILE_FREE_DATA as i32,
                0,
                &mut tile_ref,
            )
        };
        dt_check("dtNavMesh::addTile", status)?;
        std::mem::forget(tile);
        Ok(tile_ref)
    }

    /// Number of tiles and total number of polygons held.
    pub fn counts(&self) -> (usize, usize) {
        let mut tiles = 0;
        let mut polys = 0;
        // SAFETY: `self` is live; `getMaxTiles` / `getTile(i)` for `i` below it return
        // pointers into the mesh's tile array; a tile is in use iff its header is non-null.
        unsafe {
            let mesh = self.ptr.as_ptr() as *const sys::dtNavMesh;
            for i in 0..sys::dtNavMesh_getMaxTiles(mesh) {
                let t = sys::dtNavMesh_getTile(mesh, i);
                if let Some(header) = t.as_ref().and_then(|t| t.header.as_ref()) {
                    tiles += 1;
                    polys += usize::try_from(header.polyCount).unwrap_or(0);
                }
            }
        }
        (tiles, polys)
    }
}

impl Drop for DetourNavMesh {
    fn drop(&mut self) {
        // SAFETY: allocated by `dtAllocNavMesh`, freed once; it frees the tiles it owns.
        unsafe { sys::dtFreeNavMesh(self.ptr.as_ptr()) }
    }
}

/// A Detour query filter (`dtQueryFilter`): include/exclude flags and per-area costs.
#[derive(Debug, Clone, Copy)]
pub struct QueryFilter(sys::dtQueryFilter);

impl Default for QueryFilter {
    /// Detour's constructor: every area costs 1, include all flags, exclude none.
    fn default() -> Self {
        // SAFETY: the C++ constructor only writes the struct's own fields.
        QueryFilter(unsafe { sys::dtQueryFilter::new() })
    }
}

impl QueryFilter {
    /// Sets the flags a polygon must have one of to be visited.
    pub fn set_include_flags(&mut self, flags: u16) {
        self.0.m_includeFlags = flags;
    }

    /// Sets the traversal cost factor of an area (ignored for areas above 63).
    pub fn set_area_cost(&mut self, area: u8, cost: f32) {
        if let Some(c) = self.0.m_areaCost.get_mut(usize::from(area)) {
            *c = cost;
        }
    }
}

/// A Detour straight-path corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StraightPoint {
    /// Position, world units.
    pub pos: [f32; 3],
    /// `DT_STRAIGHTPATH_*` flags (1 start, 2 end, 4 off-mesh).
    pub flags: u8,
    /// The polygon entered at this point (0 at the end).
    pub poly: u32,
}

/// What `dtNavMeshQuery::raycast` reports.
#[derive(Debug, Clone, PartialEq)]
pub struct RaycastResult {
    /// Hit parameter along start -> end; `None` when no wall was hit (Detour's FLT_MAX).
    pub t: Option<f32>,
    /// Normal of the wall hit (zero when none).
    pub normal: [f32; 3],
    /// Polygons visited.
    pub visited: Vec<u32>,
}

/// A `dtNavMeshQuery` bound to a mesh (which it borrows for its lifetime).
#[derive(Debug)]
pub struct DetourQuery<'m> {
    ptr: NonNull<sys::dtNavMeshQuery>,
    _mesh: PhantomData<&'m DetourNavMesh>,
}

impl<'m> DetourQuery<'m> {
    /// `dtAllocNavMeshQuery` + `init(mesh, max_nodes)` (RecastDemo uses 2048 nodes;
    /// 1..=65535 allowed).
    pub fn new(mesh: &'m DetourNavMesh, max_nodes: i32) -> Result<Self, PeerError> {
        // Detour refuses more than 65535 nodes and misbehaves with none.
        if !(1..=65535).contains(&max_nodes) {
            return Err(PeerError::input(
                "max_nodes",
                format!("{max_nodes} is not in 1..=65535"),
            ));
        }
        // SAFETY: no arguments; owned here and freed by `dtFreeNavMeshQuery` in Drop.
        let ptr = unsafe { sys::dtAllocNavMeshQuery() };
        let query = DetourQuery {
            ptr: NonNull::new(ptr).ok_or(PeerError::Alloc {
                what: "dtNavMeshQuery",
            })?,
            _mesh: PhantomData,
        };
        // SAFETY: `query` and `mesh` are live; the borrow `'m` keeps the mesh alive and
        // unmodified (no `&mut` to it) for as long as the query exists.
        let status =
            unsafe { sys::dtNavMeshQuery_init(query.ptr.as_ptr(), mesh.ptr.as_ptr(), max_nodes) };
        dt_check("dtNavMeshQuery::init", status)?;
        Ok(query)
    }

    fn raw(&self) -> *const sys::dtNavMeshQuery {
        self.ptr.as_ptr()
    }

    /// `findNearestPoly`: the nearest polygon within the box `center ± half_extents` and the
    /// nearest point on it, or `None`.
    pub fn find_nearest_poly(
        &self,
        center: [f32; 3],
        half_extents: [f32; 3],
        filter: &QueryFilter,
    ) -> Result<Option<(u32, [f32; 3])>, PeerError> {
        check_point("center", center)?;
        check_point("half extents", half_extents)?;
        let mut poly: u32 = 0;
        let mut point = center;
        // SAFETY: the query is live; all pointers are to locals of the stated sizes (3
        // floats, one ref) that outlive the call.
        let status = unsafe {
            sys::dtNavMeshQuery_findNearestPoly(
                self.raw(),
                center.as_ptr(),
                half_extents.as_ptr(),
                &filter.0,
                &mut poly,
                point.as_mut_ptr(),
            )
        };
        dt_check("dtNavMeshQuery::findNearestPoly", status)?;
        Ok((poly != 0).then_some((poly, point)))
    }

    /// `closestPointOnPoly`: the point of polygon `poly` nearest to `pos` (using the detail
    /// mesh for height).
    pub fn closest_point_on_poly(&self, poly: u32, pos: [f32; 3]) -> Result<[f32; 3], PeerError> {
        check_point("position", pos)?;
        let mut closest = pos;
        // SAFETY: the query is live; `pos` and `closest` hold 3 floats; the over-polygon flag
        // is optional (null); the ref is validated by Detour.
        let status = unsafe {
            sys::dtNavMeshQuery_closestPointOnPoly(
                self.raw(),
                poly,
                pos.as_ptr(),
                closest.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        dt_check("dtNavMeshQuery::closestPointOnPoly", status)?;
        Ok(closest)
    }

    /// `findPath`: the polygon corridor from `start_ref` to `end_ref` (at most `max_path`
    /// polygons) and whether Detour marked it partial.
    pub fn find_path(
        &self,
        start_ref: u32,
        end_ref: u32,
        start: [f32; 3],
        end: [f32; 3],
        filter: &QueryFilter,
        max_path: usize,
    ) -> Result<(Vec<u32>, bool), PeerError> {
        check_point("start", start)?;
        check_point("end", end)?;
        let cap = i32::try_from(max_path.max(1))
            .map_err(|_| PeerError::input("max_path", "does not fit an int"))?;
        let mut path = vec![0u32; cap as usize];
        let mut count: i32 = 0;
        // SAFETY: the query is live; `path` holds `cap` refs and Detour writes at most `cap`;
        // refs are validated by Detour (`isValidPolyRef`) before use.
        let status = unsafe {
            sys::dtNavMeshQuery_findPath(
                self.raw(),
                start_ref,
                end_ref,
                start.as_ptr(),
                end.as_ptr(),
                &filter.0,
                path.as_mut_ptr(),
                &mut count,
                cap,
            )
        };
        let status = dt_check("dtNavMeshQuery::findPath", status)?;
        path.truncate(usize::try_from(count).unwrap_or(0).min(path.len()));
        Ok((path, status & sys::DT_PARTIAL_RESULT != 0))
    }

    /// Detour's sliced path search (`initSlicedFindPath`, `updateSlicedFindPath` until it is
    /// no longer in progress, `finalizeSlicedFindPath`, no options): the same A* as
    /// `findPath` (though it may return another corridor: seen on a square grid), and it
    /// reports its iterations (nodes taken from the open list). Returns
    /// the corridor (at most `max_path` polygons), whether Detour marked it partial, and the
    /// iteration count.
    pub fn find_path_counted(
        &mut self,
        start_ref: u32,
        end_ref: u32,
        start: [f32; 3],
        end: [f32; 3],
        filter: &QueryFilter,
        max_path: usize,
    ) -> Result<(Vec<u32>, bool, usize), PeerError> {
        check_point("start", start)?;
        check_point("end", end)?;
        let cap = i32::try_from(max_path.max(1))
            .map_err(|_| PeerError::input("max_path", "does not fit an int"))?;
        // SAFETY: the query is live and exclusively borrowed; the positions hold 3 floats;
        // Detour keeps the filter pointer for the sliced search, and `filter` outlives every
        // call below (all made before this function returns); refs are validated by Detour.
        let status = unsafe {
            sys::dtNavMeshQuery_initSlicedFindPath(
                self.ptr.as_ptr(),
                start_ref,
                end_ref,
                start.as_ptr(),
                end.as_ptr(),
                &filter.0,
                0,
            )
        };
        let mut status = dt_check("dtNavMeshQuery::initSlicedFindPath", status)?;
        let mut iterations = 0usize;
        while status & sys::DT_IN_PROGRESS != 0 {
            let mut done: i32 = 0;
            // SAFETY: as above; `done` is a live int Detour writes once.
            let s = unsafe {
                sys::dtNavMeshQuery_updateSlicedFindPath(self.ptr.as_ptr(), i32::MAX, &mut done)
            };
            status = dt_check("dtNavMeshQuery::updateSlicedFindPath", s)?;
            iterations += usize::try_from(done).unwrap_or(0);
        }
        let mut path = vec![0u32; cap as usize];
        let mut count: i32 = 0;
        // SAFETY: as above; `path` holds `cap` refs and Detour writes at most `cap`.
        let status = unsafe {
            sys::dtNavMeshQuery_finalizeSlicedFindPath(
                self.ptr.as_ptr(),
                path.as_mut_ptr(),
                &mut count,
                cap,
            )
        };
        let status = dt_check("dtNavMeshQuery::finalizeSlicedFindPath", status)?;
        path.truncate(usize::try_from(count).unwrap_or(0).min(path.len()));
        Ok((path, status & sys::DT_PARTIAL_RESULT != 0, iterations))
    }

    /// `findStraightPath` along `corridor` (at most `max_points` corners; `options` are
    /// `DT_STRAIGHTPATH_*` crossing options, 0 for none).
    pub fn find_straight_path(
        &self,
        start: [f32; 3],
        end: [f32; 3],
        corridor: &[u32],
        max_points: usize,
        options: i32,
    ) -> Result<Vec<StraightPoint>, PeerError> {
        check_point("start", start)?;
        check_point("end", end)?;
        let n = i32::try_from(corridor.len())
            .map_err(|_| PeerError::input("corridor", "length does not fit an int"))?;
        let cap = i32::try_from(max_points.max(1))
            .map_err(|_| PeerError::input("max_points", "does not fit an int"))?;
        let cap_usize = cap as usize;
        let mut pts = vec![0f32; cap_usize * 3];
        let mut flags = vec![0u8; cap_usize];
        let mut refs = vec![0u32; cap_usize];
        let mut count: i32 = 0;
        // SAFETY: the query is live; `corridor` holds `n` refs (each validated by Detour
        // before use); the output arrays hold `cap` points / flags / refs.
        let status = unsafe {
            sys::dtNavMeshQuery_findStraightPath(
                self.raw(),
                start.as_ptr(),
                end.as_ptr(),
                corridor.as_ptr(),
                n,
                pts.as_mut_ptr(),
                flags.as_mut_ptr(),
                refs.as_mut_ptr(),
                &mut count,
                cap,
                options,
            )
        };
        dt_check("dtNavMeshQuery::findStraightPath", status)?;
        let count = usize::try_from(count).unwrap_or(0).min(cap_usize);
        Ok((0..count)
            .map(|i| StraightPoint {
                pos: [pts[i * 3], pts[i * 3 + 1], pts[i * 3 + 2]],
                flags: flags[i],
                poly: refs[i],
            })
            .collect())
    }

    /// `raycast` (the classic form) from `start` in `start_ref` toward `end`, recording up to
    /// `max_visited` polygons.
    pub fn raycast(
        &self,
        start_ref: u32,
        start: [f32; 3],
        end: [f32; 3],
        filter: &QueryFilter,
        max_visited: usize,
    ) -> Result<RaycastResult, PeerError> {
        check_point("start", start)?;
        check_point("end", end)?;
        let cap = i32::try_from(max_visited.max(1))
            .map_err(|_| PeerError::input("max_visited", "does not fit an int"))?;
        let mut t: f32 = 0.0;
        let mut normal = [0f32; 3];
        let mut visited = vec![0u32; cap as usize];
        let mut count: i32 = 0;
        // SAFETY: the query is live; `normal` holds 3 floats, `visited` `cap` refs; the start
        // ref is validated by Detour.
        let status = unsafe {
            sys::dtNavMeshQuery_raycast(
                self.raw(),
                start_ref,
                start.as_ptr(),
                end.as_ptr(),
                &filter.0,
                &mut t,
                normal.as_mut_ptr(),
                visited.as_mut_ptr(),
                &mut count,
                cap,
            )
        };
        dt_check("dtNavMeshQuery::raycast", status)?;
        visited.truncate(usize::try_from(count).unwrap_or(0).min(visited.len()));
        Ok(RaycastResult {
            t: (t != f32::MAX).then_some(t),
            normal,
            visited,
        })
    }
}

impl Drop for DetourQuery<'_> {
    fn drop(&mut self) {
        // SAFETY: allocated by `dtAllocNavMeshQuery`, freed once; it does not own the mesh.
        unsafe { sys::dtFreeNavMeshQuery(self.ptr.as_ptr()) }
    }
}

/// An owned `dtCrowd` over a mesh it borrows (the safe side of `crate::crowd`): every call
/// into DetourCrowd goes through one of these methods, each checking what C++ would
/// follow (agent indices, finite inputs) first.
pub(crate) struct DtCrowd<'m> {
    ptr: NonNull<sys::dtCrowd>,
    _mesh: PhantomData<&'m DetourNavMesh>,
}

impl<'m> DtCrowd<'m> {
    /// `dtAllocCrowd` + `init(max_agents, max_radius, mesh)`.
    pub(crate) fn new(
        mesh: &'m DetourNavMesh,
        max_agents: i32,
        max_radius: f32,
    ) -> Result<Self, PeerError> {
        if max_agents < 1 || !(max_radius.is_finite() && max_radius > 0.0) {
            return Err(PeerError::input(
                "crowd",
                "max_agents >= 1 and radius > 0".to_string(),
            ));
        }
        // SAFETY: no arguments; the result is owned by the wrapper and freed once in Drop.
        let ptr = unsafe { sys::dtAllocCrowd() };
        let crowd = DtCrowd {
            ptr: NonNull::new(ptr).ok_or(PeerError::Alloc { what: "dtCrowd" })?,
            _mesh: PhantomData,
        };
        // SAFETY: both pointers are live; the borrow 'm keeps the mesh alive and unchanged
        // (no `&mut` to it can exist) while the crowd exists. `init` only reads the mesh.
        let ok = unsafe {
            sys::dtCrowd_init(
                crowd.ptr.as_ptr(),
                max_agents,
                max_radius,
                mesh.ptr.as_ptr(),
            )
        };
        if !ok {
            return Err(PeerError::Alloc {
                what: "dtCrowd::init",
            });
        }
        Ok(crowd)
    }

    /// Sets obstacle avoidance preset `index` (below `DT_CROWD_MAX_OBSTAVOIDANCE_PARAMS`)
    /// to what `edit` makes of the current one; false for an index out of range.
    pub(crate) fn edit_avoidance_params(
        &mut self,
        index: usize,
        edit: impl FnOnce(&mut sys::dtObstacleAvoidanceParams),
    ) -> bool {
        if index >= sys::DT_CROWD_MAX_OBSTAVOIDANCE_PARAMS as usize {
            return false;
        }
        // SAFETY: the crowd is initialised and `index` is in range, so the getter returns a
        // pointer to one of its parameter slots (copied out at once); the setter copies
        // `p`, which lives through the call.
        unsafe {
            let cur = sys::dtCrowd_getObstacleAvoidanceParams(self.ptr.as_ptr(), index as i32);
            let Some(&base) = cur.as_ref() else {
                return false;
            };
            let mut p = base;
            edit(&mut p);
            sys::dtCrowd_setObstacleAvoidanceParams(self.ptr.as_ptr(), index as i32, &p);
        }
        true
    }

    /// `addAgent`: the agent's index, `None` when the crowd is full, the position is not
    /// finite or the parameters name an avoidance preset or filter out of range.
    pub(crate) fn add_agent(
        &mut self,
        pos: [f32; 3],
        params: &sys::dtCrowdAgentParams,
    ) -> Option<i32> {
        if !pos.iter().all(|v| v.is_finite())
            || usize::from(params.obstacleAvoidanceType)
                >= sys::DT_CROWD_MAX_OBSTAVOIDANCE_PARAMS as usize
            || usize::from(params.queryFilterType) >= sys::DT_CROWD_MAX_QUERY_FILTER_TYPE as usize
        {
            return None;
        }
        // SAFETY: live crowd; `pos` (3 floats) and `params` are read during the call only.
        let i = unsafe { sys::dtCrowd_addAgent(self.ptr.as_ptr(), pos.as_ptr(), params) };
        (i >= 0).then_some(i)
    }

    /// The agent `idx` if it is one of this crowd's active agents.
    fn agent(&self, idx: i32) -> Option<&sys::dtCrowdAgent> {
        // SAFETY: live crowd; `getAgent` bounds-checks `idx` (null outside 0..max agents)
        // and otherwise points into the crowd's agent array, which lives as long as `self`
        // and is changed only through `&mut self`.
        let a = unsafe { sys::dtCrowd_getAgent(self.ptr.as_ptr(), idx).as_ref() }?;
        a.active.then_some(a)
    }

    /// Snaps `pos` with the crowd's own query (half extents `ext`, every flag included, every
    /// area cost 1) and asks agent `idx` to go there; false when the agent is unknown, the
    /// input not finite, nothing is near, or Detour refuses the request.
    pub(crate) fn request_move_target_near(
        &mut self,
        idx: i32,
        pos: [f32; 3],
        ext: [f32; 3],
    ) -> bool {
        if self.agent(idx).is_none() || !pos.iter().chain(&ext).all(|v| v.is_finite()) {
            return false;
        }
        let mut r: sys::dtPolyRef = 0;
        let mut pt = [0.0f32; 3];
        let f = sys::dtQueryFilter {
            m_areaCost: [1.0; 64],
            m_includeFlags: 0xffff,
            m_excludeFlags: 0,
        };
        // SAFETY: live, initialised crowd: `m_navquery` is the query `init` made over the
        // borrowed mesh; every pointer given is to a local read or written during the call.
        // `idx` is an active agent of this crowd (checked above).
        unsafe {
            let c = self.ptr.as_ptr();
            let q = (*c).m_navquery;
            if q.is_null() {
                return false;
            }
            let st = sys::dtNavMeshQuery_findNearestPoly(
                q,
                pos.as_ptr(),
                ext.as_ptr(),
                &f,
                &mut r,
                pt.as_mut_ptr(),
            );
            if st & DT_FAILURE != 0 || r == 0 {
                return false;
            }
            sys::dtCrowd_requestMoveTarget(c, idx, r, pt.as_ptr())
        }
    }

    /// One `update(dt)` without debug output (a `dt` that is not finite or is negative
    /// is refused: false).
    pub(crate) fn update(&mut self, dt: f32) -> bool {
        if !(dt.is_finite() && dt >= 0.0) {
            return false;
        }
        // SAFETY: live crowd over a live mesh; null is Detour's "no debug info".
        unsafe { sys::dtCrowd_update(self.ptr.as_ptr(), dt, std::ptr::null_mut()) };
        true
    }

    /// The position of agent `idx` (`None` for an index that is not an active agent).
    pub(crate) fn position(&self, idx: i32) -> Option<[f32; 3]> {
        self.agent(idx).map(|a| a.npos)
    }
}

impl Drop for DtCrowd<'_> {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `dtAllocCrowd` and is freed once, here.
        unsafe { sys::dtFreeCrowd(self.ptr.as_ptr()) }
    }
}
