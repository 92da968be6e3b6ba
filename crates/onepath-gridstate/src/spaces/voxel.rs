//! Voxel grids: `size_x × size_y × size_z` area bytes stored in 16³ chunks that are
//! allocated on the first write that changes a voxel (unallocated chunks read as the
//! default area), and the 3 × 3 × 3 neighbourhood the voxel A* reads (its moves, rules
//! and estimates: `searches/voxel_astar.rs`).

use crate::error::{invalid, out_of_range, GridError};
use crate::spaces::area::{next_version, AreaCosts, WALL};
use crate::spaces::space::{refuse_negative_zero, SPACE_LIMIT};

/// Chunk edge length.
pub const CHUNK: u32 = 16;
const CHUNK_VOXELS: usize = 4096;

/// An allocated chunk: its area bytes (index x | y << 4 | z << 8) and, per row of 16
/// voxels along x (index y | z << 4), the voxels of the row that are not [`WALL`] (bit x),
/// kept with the bytes so that [`VoxelGrid::free_mask`] reads three bits a row.
#[derive(Clone)]
struct Chunk {
    areas: [u8; CHUNK_VOXELS],
    free: [u16; CHUNK_VOXELS / CHUNK as usize],
}

impl Chunk {
    /// A chunk of `area` everywhere.
    fn filled(area: u8) -> Box<Chunk> {
        Box::new(Chunk {
            areas: [area; CHUNK_VOXELS],
            free: [if area == WALL { 0 } else { u16::MAX }; CHUNK_VOXELS / CHUNK as usize],
        })
    }

    /// A chunk of these area bytes (`CHUNK_VOXELS` of them).
    fn of_bytes(bytes: &[u8]) -> Box<Chunk> {
        let mut c = Chunk::filled(0);
        c.areas.copy_from_slice(bytes);
        for (row, cells) in c.free.iter_mut().zip(bytes.chunks_exact(CHUNK as usize)) {
            *row = cells
                .iter()
                .enumerate()
                .fold(0u16, |m, (k, &a)| m | u16::from(a != WALL) << k);
        }
        c
    }

    /// Sets voxel `i` to `area`.
    #[inline]
    fn set(&mut self, i: usize, area: u8) {
        self.areas[i] = area;
        let (row, bit) = (i >> 4, i & 15);
        self.free[row] = (self.free[row] & !(1 << bit)) | u16::from(area != WALL) << bit;
    }
}

/// World placement of a voxel grid: origin x, y, z and cell size; all zero = unassigned
/// (unit cells at the origin), otherwise |origin| ≤ 2^21 and 0 < cell size ≤ 2^21. A zero
/// is stored as +0.0 whichever sign it is given with (the state reader refuses -0.0).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VoxelSpace {
    origin: [f64; 3],
    cell_size: f64,
}

impl VoxelSpace {
    /// A checked space (a -0.0 origin coordinate is stored as +0.0).
    pub fn new(origin: [f64; 3], cell_size: f64) -> Result<Self, GridError> {
        if origin == [0.0; 3] && cell_size == 0.0 {
            return Ok(VoxelSpace::default());
        }
        // x + 0.0 is x for every x but -0.0, which becomes +0.0.
        let origin = origin.map(|v| v + 0.0);
        if origin
            .iter()
            .any(|v| !(v.is_finite() && v.abs() <= SPACE_LIMIT))
        {
            return Err(invalid(
                "origin",
                "every coordinate must be finite with |v| <= 2^21",
            ));
        }
        if !(cell_size.is_finite() && cell_size > 0.0 && cell_size <= SPACE_LIMIT) {
            return Err(invalid(
                "cell size",
                format!("{cell_size} is not in (0, 2^21]"),
            ));
        }
        Ok(VoxelSpace { origin, cell_size })
    }

    /// The origin.
    pub fn origin(&self) -> [f64; 3] {
        self.origin
    }

    /// The stored cell size (0 when unassigned).
    pub fn cell_size(&self) -> f64 {
        self.cell_size
    }
}

/// A voxel edit as told to listeners: node index `x + sx·(y + sy·z)`, old and new area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VoxelEdit {
    /// The voxel's node index.
    pub node: u32,
    /// Area before.
    pub old_area: u8,
    /// Area after.
    pub new_area: u8,
}

type VoxelListener = Box<dyn FnMut(&VoxelEdit) + Send>;

/// A chunked voxel grid.
pub struct VoxelGrid {
    size: [u32; 3],
    chunks_dim: [u32; 3],
    chunks: Vec<Option<Box<Chunk>>>,
    default_area: u8,
    version: u32,
    areas: AreaCosts,
    space: VoxelSpace,
    listeners: Vec<VoxelListener>,
}

impl std::fmt::Debug for VoxelGrid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VoxelGrid")
            .field("size", &self.size)
            .field("default_area", &self.default_area)
            .field("version", &self.version)
            .field("allocated_chunks", &self.allocated_chunks())
            .finish_non_exhaustive()
    }
}

impl VoxelGrid {
    /// A grid of the given size (each ≥ 1, at most `i32::MAX` voxels) filled with
    /// `default_area`; no chunk is allocated.
    pub fn new(size_x: u32, size_y: u32, size_z: u32, default_area: u8) -> Result<Self, GridError> {
        for (what, v) in [("size x", size_x), ("size y", size_y), ("size z", size_z)] {
            if v == 0 {
                return Err(out_of_range(what, 0, 1, i64::from(i32::MAX)));
            }
        }
        let n = u64::from(size_x) * u64::from(size_y) * u64::from(size_z);
        if n > i32::MAX as u64 {
            return Err(invalid("size", format!("{n} voxels exceed i32::MAX")));
        }
        let dim = [
            size_x.div_ceil(CHUNK),
            size_y.div_ceil(CHUNK),
            size_z.div_ceil(CHUNK),
        ];
        let count = (dim[0] * dim[1] * dim[2]) as usize;
        Ok(VoxelGrid {
            size: [size_x, size_y, size_z],
            chunks_dim: dim,
            chunks: (0..count).map(|_| None).collect(),
            default_area,
            version: 0,
            areas: AreaCosts::new(),
            space: VoxelSpace::default(),
            listeners: Vec::new(),
        })
    }

    /// The size.
    pub fn size(&self) -> [u32; 3] {
        self.size
    }

    /// The default area of unallocated chunks.
    pub fn default_area(&self) -> u8 {
        self.default_area
    }

    /// Version: +1 per changing write.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Area multipliers.
    pub fn areas(&self) -> &AreaCosts {
        &self.areas
    }

    /// Sets one area multiplier.
    pub fn set_area_cost(&mut self, area: u8, m: f64) -> Result<(), GridError> {
        self.areas.set(area, m)
    }

    /// World placement.
    pub fn space(&self) -> VoxelSpace {
        self.space
    }

    /// Replaces the world placement.
    pub fn set_space(&mut self, s: VoxelSpace) {
        self.space = s;
    }

    /// Number of voxels.
    pub fn node_count(&self) -> usize {
        (u64::from(self.size[0]) * u64::from(self.size[1]) * u64::from(self.size[2])) as usize
    }

    /// Number of allocated chunks.
    pub fn allocated_chunks(&self) -> usize {
        self.chunks.iter().filter(|c| c.is_some()).count()
    }

    /// Registers a listener told every voxel edit.
    pub fn add_listener(&mut self, f: impl FnMut(&VoxelEdit) + Send + 'static) {
        self.listeners.push(Box::new(f));
    }

    /// The node index of (x, y, z), checked.
    pub fn index(&self, x: u32, y: u32, z: u32) -> Result<u32, GridError> {
        for (what, v, s) in [
            ("x", x, self.size[0]),
            ("y", y, self.size[1]),
            ("z", z, self.size[2]),
        ] {
            if v >= s {
                return Err(out_of_range(what, i64::from(v), 0, i64::from(s) - 1));
            }
        }
        Ok(x + self.size[0] * (y + self.size[1] * z))
    }

    /// (x, y, z) of a node index.
    pub fn xyz(&self, node: u32) -> (u32, u32, u32) {
        let x = node % self.size[0];
        let r = node / self.size[0];
        (x, r % self.size[1], r / self.size[1])
    }

    #[inline]
    fn slot(&self, x: u32, y: u32, z: u32) -> (usize, usize) {
        let c = (x / CHUNK) + self.chunks_dim[0] * ((y / CHUNK) + self.chunks_dim[1] * (z / CHUNK));
        let i = (x % CHUNK) | ((y % CHUNK) << 4) | ((z % CHUNK) << 8);
        (c as usize, i as usize)
    }

    /// The area of (x, y, z).
    pub fn area(&self, x: u32, y: u32, z: u32) -> Result<u8, GridError> {
        self.index(x, y, z)?;
        Ok(self.area_unchecked(x, y, z))
    }

    fn area_unchecked(&self, x: u32, y: u32, z: u32) -> u8 {
        let (c, i) = self.slot(x, y, z);
        match &self.chunks[c] {
            Some(chunk) => chunk.areas[i],
            None => self.default_area,
        }
    }

    /// True when (x, y, z) is inside and not a wall. Never fails.
    pub fn is_walkable(&self, x: i64, y: i64, z: i64) -> bool {
        if x < 0 || y < 0 || z < 0 {
            return false;
        }
        if x >= i64::from(self.size[0])
            || y >= i64::from(self.size[1])
            || z >= i64::from(self.size[2])
        {
            return false;
        }
        self.area_unchecked(x as u32, y as u32, z as u32) != WALL
    }

    /// Sets the area of (x, y, z); a change allocates the chunk (filled with the default
    /// area) if needed, bumps the version and tells the listeners.
    pub fn set_area(&mut self, x: u32, y: u32, z: u32, area: u8) -> Result<(), GridError> {
        let node = self.index(x, y, z)?;
        let old = self.area_unchecked(x, y, z);
        if old == area {
            return Ok(());
        }
        let (c, i) = self.slot(x, y, z);
        let d = self.default_area;
        let chunk = self.chunks[c].get_or_insert_with(|| Chunk::filled(d));
        chunk.set(i, area);
        self.version = next_version(self.version);
        let e = VoxelEdit {
            node,
            old_area: old,
            new_area: area,
        };
        for l in self.listeners.iter_mut() {
            l(&e);
        }
        Ok(())
    }
}

impl VoxelGrid {
    /// The areas of the 3 × 3 × 3 voxels around (x, y, z), index `(dx + 1) + 3·(dy + 1) +
    /// 9·(dz + 1)`; a voxel outside the grid reads as [`WALL`]. (x, y, z) lies inside.
    #[inline]
    pub(crate) fn neighbourhood(&self, x: u32, y: u32, z: u32) -> [u8; 27] {
        let mut out = [WALL; 27];
        let inner =
            |v: u32, s: u32| v > 0 && v + 1 < s && (v % CHUNK) != 0 && (v % CHUNK) != CHUNK - 1;
        if inner(x, self.size[0]) && inner(y, self.size[1]) && inner(z, self.size[2]) {
            // One chunk holds the whole neighbourhood.
            let (c, i) = self.slot(x, y, z);
            match &self.chunks[c] {
                Some(chunk) => {
                    let mut k = 0;
                    for dz in 0..3usize {
                        for dy in 0..3usize {
                            let row = i + dz * 256 + dy * 16 - 256 - 16 - 1;
                            out[k..k + 3].copy_from_slice(&chunk.areas[row..row + 3]);
                            k += 3;
                        }
                    }
                }
                None => out = [self.default_area; 27],
            }
            return out;
        }
        let (x, y, z) = (i64::from(x), i64::from(y), i64::from(z));
        let mut k = 0;
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let (nx, ny, nz) = (x + dx, y + dy, z + dz);
                    let inside = nx >= 0
                        && ny >= 0
                        && nz >= 0
                        && nx < i64::from(self.size[0])
                        && ny < i64::from(self.size[1])
                        && nz < i64::from(self.size[2]);
                    if inside {
                        out[k] = self.area_unchecked(nx as u32, ny as u32, nz as u32);
                    }
                    k += 1;
                }
            }
        }
        out
    }

    /// The free voxels of the 3 × 3 × 3 neighbourhood of (x, y, z) as bits: bit
    /// `(dx + 1) + 3·(dy + 1) + 9·(dz + 1)` set when that voxel lies inside and is not a
    /// [`WALL`] (the cells of [`VoxelGrid::neighbourhood`] that are not walls, without the
    /// 27-byte copy). (x, y, z) lies inside.
    #[inline]
    pub(crate) fn free_mask(&self, x: u32, y: u32, z: u32) -> u32 {
        // The free bits of a chunk's row (an unallocated chunk: the default area's).
        let default_row = if self.default_area == WALL {
            0
        } else {
            u32::from(u16::MAX)
        };
        let row_of = |c: u32, row: u32| match self.chunks.get(c as usize) {
            Some(Some(chunk)) => u32::from(chunk.free[row as usize & 255]),
            Some(None) => default_row,
            None => 0,
        };
        let [sx, sy, sz] = self.size;
        let [dx, dy, _] = self.chunks_dim;
        let (cx, lx) = (x / CHUNK, x % CHUNK);
        // v − 1, v and v + 1 inside the grid and in v's chunk: v mod 16 in 1..=14 (v − 1
        // wraps to 15 mod 16 for v = 0).
        let inner = |v: u32, s: u32| (v.wrapping_sub(1) % CHUNK) < CHUNK - 2 && v + 1 < s;
        if inner(x, sx) && inner(y, sy) && inner(z, sz) {
            // One chunk holds the whole neighbourhood: nine rows, three bits each, the
            // rows (y − 1.., z − 1..) at 0, 1, 2, 16, 17, 18, 32, 33 and 34 from the first.
            let (c, _) = self.slot(x, y, z);
            let Some(chunk) = &self.chunks[c] else {
                return if default_row == 0 { 0 } else { (1 << 27) - 1 };
            };
            let first = ((y % CHUNK) | (z % CHUNK) << 4) as usize - 16 - 1;
            let Some(w) = chunk.free.get(first..first + 35) else {
                return 0; // not reached: first + 35 ≤ 14 + 16·14 − 17 + 35 = 256
            };
            let sh = lx - 1;
            let row = |k: usize| (u32::from(w[k]) >> sh) & 7;
            return row(0)
                | row(1) << 3
                | row(2) << 6
                | row(16) << 9
                | row(17) << 12
                | row(18) << 15
                | row(32) << 18
                | row(33) << 21
                | row(34) << 24;
        }
        // Near a chunk face or the grid's: per row (inside the grid) the bits of x − 1,
        // x and x + 1 from the chunk of x and, on an x face, its neighbour's: an 18-bit
        // row (bit 0 the last voxel of the chunk before, bits 1–16 the chunk's, bit 17 the
        // first of the chunk after) read at lx.
        let x_inside = u32::from(x > 0) | 2 | u32::from(x + 1 < sx) << 2;
        let (left, right) = (lx == 0 && x > 0, lx == CHUNK - 1 && x + 1 < sx);
        let mut out = 0u32;
        let mut kz = 0u32;
        while kz < 3 {
            let nz = (z + kz).wrapping_sub(1); // z − 1 + kz; below 0 wraps past the size
            if nz < sz {
                let (cz, lz) = ((nz / CHUNK) * dx * dy, (nz % CHUNK) << 4);
                let mut ky = 0u32;
                while ky < 3 {
                    let ny = (y + ky).wrapping_sub(1);
                    if ny < sy {
                        let (c, row) = (cx + (ny / CHUNK) * dx + cz, (ny % CHUNK) | lz);
                        let mut ext = row_of(c, row) << 1;
                        if left {
                            ext |= row_of(c.wrapping_sub(1), row) >> 15 & 1;
                        }
                        if right {
                            ext |= (row_of(c + 1, row) & 1) << 17;
                        }
                        out |= (ext >> lx & 7 & x_inside) << (3 * (ky + 3 * kz));
                    }
                    ky += 1;
                }
            }
            kz += 1;
        }
        out
    }
}

/// Save and restore (OPGS kind 3, `docs/grid-state.md`).
impl VoxelGrid {
    /// The voxel grid's state (kind 3): i32 size x, y, z, u8 default area, i32 version,
    /// VoxelSpace (origin x, y, z, cell size), Areas, then per chunk (x fastest, then y,
    /// then z) u8 allocated flag and, when 1, its 4096 bytes (index x | y<<4 | z<<8,
    /// padding past the grid edge included).
    pub fn save_state(&self) -> Vec<u8> {
        use crate::state::*;
        let mut w = onepath_format::bytes::ByteWriter::new();
        write_header(&mut w, kind::VOXEL_GRID);
        for s in self.size {
            write_u32_as_i32(&mut w, s);
        }
        w.u8(self.default_area);
        write_u32_as_i32(&mut w, self.version);
        for o in self.space.origin {
            w.f64(o);
        }
        w.f64(self.space.cell_size);
        write_areas(&mut w, &self.areas);
        for c in &self.chunks {
            match c {
                Some(chunk) => {
                    w.u8(1);
                    w.bytes(&chunk.areas[..]);
                }
                None => w.u8(0),
            }
        }
        w.into_vec()
    }

    /// A new voxel grid from a saved state (no listeners).
    pub fn from_state(bytes: &[u8]) -> Result<VoxelGrid, onepath_format::FormatError> {
        read_voxel(bytes, None)
    }

    /// Restores a saved state in place (same size and default area). Listeners are told
    /// each voxel that differs, in ascending node order. Checked before anything changes.
    pub fn restore_state(&mut self, bytes: &[u8]) -> Result<(), onepath_format::FormatError> {
        let mut v = read_voxel(bytes, Some((self.size, self.default_area)))?;
        if !self.listeners.is_empty() {
            let [sx, sy, sz] = self.size;
            let mut node = 0u32;
            for z in 0..sz {
                for y in 0..sy {
                    for x in 0..sx {
                        let old = self.area_unchecked(x, y, z);
                        let new = v.area_unchecked(x, y, z);
                        if old != new {
                            let e = VoxelEdit {
                                node,
                                old_area: old,
                                new_area: new,
                            };
                            for l in self.listeners.iter_mut() {
                                l(&e);
                            }
                        }
                        node = node.wrapping_add(1);
                    }
                }
            }
        }
        v.listeners = std::mem::take(&mut self.listeners);
        *self = v;
        Ok(())
    }
}

fn read_voxel(
    bytes: &[u8],
    expect: Option<([u32; 3], u8)>,
) -> Result<VoxelGrid, onepath_format::FormatError> {
    use crate::state::*;
    let fam = Family::Grid;
    let mut r = onepath_format::bytes::ByteReader::new(bytes);
    read_header(&mut r, kind::VOXEL_GRID, fam)?;
    let sx = r.i32("size x")?;
    let sy = r.i32("size y")?;
    let sz = r.i32("size z")?;
    let default_area = r.u8("default area")?;
    if let Some((size, d)) = expect {
        if [i64::from(sx), i64::from(sy), i64::from(sz)]
            != [i64::from(size[0]), i64::from(size[1]), i64::from(size[2])]
        {
            return Err(fam.err(format!(
                "size {sx} x {sy} x {sz} does not match the grid's {} x {} x {}",
                size[0], size[1], size[2]
            )));
        }
        if default_area != d {
            return Err(fam.err(format!(
                "default area {default_area} does not match the grid's {d}"
            )));
        }
    }
    if sx < 1 || sy < 1 || sz < 1 {
        return Err(fam.err(format!("size {sx} x {sy} x {sz} is not at least 1 x 1 x 1")));
    }
    // Three sizes up to 2^31 each: the product can overflow u64 (fuzz finding).
    let n = (sx as u64)
        .checked_mul(sy as u64)
        .and_then(|v| v.checked_mul(sz as u64))
        .filter(|&n| n <= i32::MAX as u64);
    if n.is_none() {
        return Err(fam.err(format!(
            "size {sx} x {sy} x {sz} holds more than i32::MAX voxels"
        )));
    }
    // Every chunk costs at least its flag byte: check before allocating the chunk table.
    let chunk_count = [sx, sy, sz]
        .iter()
        .map(|&s| u64::from((s as u32).div_ceil(CHUNK)))
        .product::<u64>() as usize;
    r.check_fits("chunks", chunk_count, 1)?;
    let mut grid = VoxelGrid::new(sx as u32, sy as u32, sz as u32, default_area)
        .map_err(|e| fam.err(e.to_string()))?;
    let version = read_nonneg(&mut r, fam, "version")?;
    let ox = r.f64("space origin x")?;
    let oy = r.f64("space origin y")?;
    let oz = r.f64("space origin z")?;
    let c = r.f64("space cell size")?;
    let space_err = |e: GridError| fam.err(format!("space: {e}"));
    refuse_negative_zero(&[
        ("space origin x", ox),
        ("space origin y", oy),
        ("space origin z", oz),
        ("space cell size", c),
    ])
    .map_err(space_err)?;
    let space = VoxelSpace::new([ox, oy, oz], c).map_err(space_err)?;
    let areas = read_areas(&mut r)?;
    let mut chunks = Vec::with_capacity(chunk_count);
    for i in 0..chunk_count {
        if read_flag(&mut r, fam, "chunk flag").map_err(|e| e.within(format!("chunk {i}")))? {
            let b = r.bytes(CHUNK_VOXELS, "chunk voxels")?;
            chunks.push(Some(Chunk::of_bytes(b)));
        } else {
            chunks.push(None);
        }
    }
    expect_end(&r)?;
    grid.chunks = chunks;
    grid.version = version;
    grid.space = space;
    grid.areas = areas;
    Ok(grid)
}
