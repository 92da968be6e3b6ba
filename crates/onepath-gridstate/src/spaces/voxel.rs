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
    chunks: Vec<Option<Box<[u8; CHUNK_VOXELS]>>>,
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
            Some(chunk) => chunk[i],
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
        let chunk = self.chunks[c].get_or_insert_with(|| Box::new([d; CHUNK_VOXELS]));
        chunk[i] = area;
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
                            out[k..k + 3].copy_from_slice(&chunk[row..row + 3]);
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
        let inner =
            |v: u32, s: u32| v > 0 && v + 1 < s && (v % CHUNK) != 0 && (v % CHUNK) != CHUNK - 1;
        let x_row = inner(x, self.size[0]);
        if x_row && inner(y, self.size[1]) && inner(z, self.size[2]) {
            // One chunk holds the whole neighbourhood: nine rows of three voxels.
            let (c, i) = self.slot(x, y, z);
            let Some(chunk) = &self.chunks[c] else {
                return if self.default_area == WALL {
                    0
                } else {
                    (1 << 27) - 1
                };
            };
            let mut out = 0u32;
            for r in 0..9usize {
                let row = i + (r / 3) * 256 + (r % 3) * 16 - 256 - 16 - 1;
                if let Some(&[a, b, c]) = chunk.get(row..row + 3) {
                    out |= row_free([a, b, c]) << (3 * r);
                }
            }
            return out;
        }
        // Near a chunk face or the grid's: per axis, the chunk and the offset in it of
        // each of the three coordinates and which lie inside, then one read a voxel.
        let axis = |v: u32, s: u32, chunk_stride: u32, shift: u32| {
            let (mut chunk, mut local, mut inside) = ([0u32; 3], [0u32; 3], 0u32);
            for k in 0..3u32 {
                let n = (v + k).wrapping_sub(1); // v − 1 + k; below 0 wraps past the size
                if n < s {
                    inside |= 1 << k;
                    chunk[k as usize] = (n / CHUNK) * chunk_stride;
                    local[k as usize] = (n % CHUNK) << shift;
                }
            }
            (chunk, local, inside)
        };
        let [dx, dy, _] = self.chunks_dim;
        let (cx, lx, ix) = axis(x, self.size[0], 1, 0);
        let (cy, ly, iy) = axis(y, self.size[1], dx, 4);
        let (cz, lz, iz) = axis(z, self.size[2], dx * dy, 8);
        let mut out = 0u32;
        for kz in 0..3usize {
            if iz >> kz & 1 == 0 {
                continue;
            }
            for ky in 0..3usize {
                if iy >> ky & 1 == 0 {
                    continue;
                }
                let (row_chunk, row_local) = (cy[ky] + cz[kz], ly[ky] | lz[kz]);
                let mut cells = [WALL; 3];
                if x_row {
                    // The row's three voxels lie in one chunk, one after another.
                    let at = (lx[1] | row_local) as usize;
                    cells = match &self.chunks[(cx[1] + row_chunk) as usize] {
                        Some(chunk) => match chunk.get(at - 1..at + 2) {
                            Some(&[a, b, c]) => [a, b, c],
                            _ => [WALL; 3],
                        },
                        None => [self.default_area; 3],
                    };
                } else {
                    for (kx, cell) in cells.iter_mut().enumerate() {
                        if ix >> kx & 1 == 1 {
                            *cell = match &self.chunks[(cx[kx] + row_chunk) as usize] {
                                Some(chunk) => chunk[(lx[kx] | row_local) as usize],
                                None => self.default_area,
                            };
                        }
                    }
                }
                out |= row_free(cells) << (3 * (ky + 3 * kz));
            }
        }
        out
    }
}

/// Bits 0–2: which of three voxels are not [`WALL`] (a wall byte is 255: xor 255 makes it
/// the only zero byte, and bit 7 of `(t & 0x7f) + 0x7f | t` is set exactly for the bytes
/// that are not zero; one multiplication moves bits 7, 15 and 23 to 14, 15 and 16).
#[inline(always)]
fn row_free(cells: [u8; 3]) -> u32 {
    let t = u32::from_le_bytes([cells[0], cells[1], cells[2], 0]) ^ 0x00ff_ffff;
    let nonzero = (((t & 0x007f_7f7f) + 0x007f_7f7f) | t) & 0x0080_8080;
    ((nonzero >> 7).wrapping_mul(0x4081) >> 14) & 7
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
                    w.bytes(&chunk[..]);
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
            let mut chunk = Box::new([0u8; CHUNK_VOXELS]);
            chunk.copy_from_slice(b);
            chunks.push(Some(chunk));
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
