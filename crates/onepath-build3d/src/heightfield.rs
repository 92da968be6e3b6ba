//! The solid heightfield: rasterization of triangles into spans, and the three filters
//! (`docs/build3d-spans.md` §1–§3).

use crate::compact::CompactStorage;
use crate::config::MAX_HEIGHT_CELLS;

/// Spans a column of a reused heightfield is given room for when it is created (the size
/// `Vec` would first allocate for a `Span` anyway).
const FIRST_COLUMN_CAPACITY: usize = 4;

/// Area id of a span that is not walkable.
pub const NULL_AREA: u8 = 0;

/// A solid run of cells in one column: `[smin, smax)` in cell heights above the grid's
/// origin Y, with an area id (0 = not walkable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Bottom of the solid run (cells).
    pub smin: u16,
    /// Top of the solid run (cells); the floor an agent stands on.
    pub smax: u16,
    /// Area id (0 = not walkable).
    pub area: u8,
}

/// A grid of columns of solid spans, sorted bottom up, never overlapping.
#[derive(Debug, Clone, PartialEq)]
pub struct Heightfield {
    /// Columns along X.
    pub width: i32,
    /// Columns along Z.
    pub depth: i32,
    /// World position of the grid's minimum corner.
    pub origin: [f64; 3],
    /// Horizontal cell size.
    pub cs: f64,
    /// Vertical cell size.
    pub ch: f64,
    /// Height of the grid in cells (world extent `height_cells · ch`).
    pub height_cells: i32,
    /// Spans of each column (index `x + z·width`), bottom up.
    pub columns: Vec<Vec<Span>>,
    /// The memory of the last compact heightfield a builder handed back
    /// ([`Heightfield::recycle_compact`]), for the next one built from this heightfield: a
    /// reused heightfield carries it from tile to tile. Memory only: never read as content,
    /// and not part of the heightfield's value (equality ignores it).
    pub(crate) compact_storage: CompactStorage,
}

impl Heightfield {
    /// An empty heightfield.
    pub fn new(
        width: i32,
        depth: i32,
        origin: [f64; 3],
        cs: f64,
        ch: f64,
        height_cells: i32,
    ) -> Self {
        let n = (width.max(0) as usize) * (depth.max(0) as usize);
        Heightfield {
            width,
            depth,
            origin,
            cs,
            ch,
            height_cells: height_cells.clamp(1, MAX_HEIGHT_CELLS),
            columns: vec![Vec::new(); n],
            compact_storage: CompactStorage::default(),
        }
    }

    /// Keeps the memory of `chf` (a compact heightfield no longer needed, typically the one
    /// built from this heightfield for the tile just finished) for the next
    /// [`CompactHeightfield::build_in`](crate::CompactHeightfield::build_in) from this
    /// heightfield, so a builder's worker allocates the compact arrays once instead of once
    /// per tile. Only capacity is kept; the contents are dropped.
    pub fn recycle_compact(&mut self, chf: crate::CompactHeightfield) {
        self.compact_storage = CompactStorage::of(chf);
    }

    /// An empty 0 x 0 heightfield, to be [`Heightfield::reset`] before use.
    pub(crate) fn scratch() -> Self {
        Heightfield::new(0, 0, [0.0; 3], 1.0, 1.0, 1)
    }

    /// Empties the heightfield and gives it a new grid, keeping the memory of its columns:
    /// afterwards it equals [`Heightfield::new`] with the same arguments. A builder reuses
    /// one heightfield for the tiles of one thread, so the span storage of each column is
    /// allocated once per thread instead of once per tile.
    pub fn reset(
        &mut self,
        width: i32,
        depth: i32,
        origin: [f64; 3],
        cs: f64,
        ch: f64,
        height_cells: i32,
    ) {
        let n = (width.max(0) as usize) * (depth.max(0) as usize);
        self.width = width;
        self.depth = depth;
        self.origin = origin;
        self.cs = cs;
        self.ch = ch;
        self.height_cells = height_cells.clamp(1, MAX_HEIGHT_CELLS);
        for col in &mut self.columns {
            col.clear();
        }
        // New columns get their first span storage now, one after another in column order,
        // so the allocator tends to place them next to each other in that order: the passes
        // that walk the columns in order (filters, compaction) then read memory in address
        // order instead of in the order the rasterizer first touched each column.
        self.columns
            .resize_with(n, || Vec::with_capacity(FIRST_COLUMN_CAPACITY));
    }

    /// Adds the solid run `[smin, smax)` to column (x, z) by the merge rule: every existing
    /// span it overlaps or touches is absorbed (the union is kept); when the merged top is
    /// within `merge_climb` of an absorbed span's top, the larger area id wins, otherwise the
    /// new span's area stays.
    pub fn add_span(&mut self, x: i32, z: i32, smin: u16, smax: u16, area: u8, merge_climb: i32) {
        let col = &mut self.columns[(x + z * self.width) as usize];
        merge_span(col, Span { smin, smax, area }, merge_climb);
    }

    /// Rasterizes one triangle (world coordinates) with area id `area`.
    ///
    /// The triangle is cut into rows (along Z) and each row into cells (along X) by
    /// `split_rows` and `split_cell`; each cell's clipped polygon gives a span from its
    /// lowest to its highest point. Only what a later cut or the span needs is carried: a row
    /// keeps X and Y, a cell only its Y range (`docs/build3d-spans.md` §1).
    pub fn rasterize_triangle(&mut self, v: [[f64; 3]; 3], area: u8, merge_climb: i32) {
        self.rasterize_in(&mut ClipBuffers::new(), v, area, merge_climb);
    }

    /// Rasterizes triangles one after another (each as [`Heightfield::rasterize_triangle`]),
    /// with one set of clipping buffers for all of them.
    pub fn rasterize_triangles(
        &mut self,
        triangles: impl IntoIterator<Item = ([[f64; 3]; 3], u8)>,
        merge_climb: i32,
    ) {
        let mut buffers = ClipBuffers::new();
        for (v, area) in triangles {
            self.rasterize_in(&mut buffers, v, area, merge_climb);
        }
    }

    /// [`Heightfield::rasterize_triangle`] in given buffers (their old contents never read).
    fn rasterize_in(
        &mut self,
        buffers: &mut ClipBuffers,
        v: [[f64; 3]; 3],
        area: u8,
        merge_climb: i32,
    ) {
        let cs = self.cs;
        let ch = self.ch;
        let bmin = self.origin;
        let bmax = [
            bmin[0] + f64::from(self.width) * cs,
            bmin[1] + f64::from(self.height_cells) * ch,
            bmin[2] + f64::from(self.depth) * cs,
        ];
        let mut tmin = v[0];
        let mut tmax = v[0];
        for p in &v[1..] {
            for k in 0..3 {
                tmin[k] = tmin[k].min(p[k]);
                tmax[k] = tmax[k].max(p[k]);
            }
        }
        if tmin[0] > bmax[0] || tmax[0] < bmin[0] || tmin[2] > bmax[2] || tmax[2] < bmin[2] {
            return;
        }
        if tmin[1] > bmax[1] || tmax[1] < bmin[1] {
            return;
        }
        let w = self.width;
        let h = self.depth;
        let by = bmax[1] - bmin[1];
        let z0 = floor_i32((tmin[2] - bmin[2]) / cs).clamp(-1, h - 1);
        let z1 = floor_i32((tmax[2] - bmin[2]) / cs).clamp(0, h - 1);

        // Buffers reused across cuts: the triangle's rest after each row cut (two in turn,
        // swapped by reference), the row, and the row's rest after each cell cut (two in
        // turn; the row itself is the first source).
        let ClipBuffers {
            tri_a,
            tri_b,
            row_a,
            row_b,
        } = buffers;
        tri_a.v[..3].copy_from_slice(&v);
        tri_a.n = 3;
        let (mut tri_in, mut tri_rest) = (tri_a, tri_b);
        for z in z0..=z1 {
            let cell_z = bmin[2] + f64::from(z) * cs;
            // The last row's rest is never read: that cut skips writing it.
            if z < z1 {
                split_rows::<true>(tri_in, cell_z + cs, row_a, tri_rest);
            } else {
                split_rows::<false>(tri_in, cell_z + cs, row_a, tri_rest);
            }
            std::mem::swap(&mut tri_in, &mut tri_rest);
            if row_a.n < 3 || z < 0 {
                continue;
            }
            let mut min_x = row_a.x[0];
            let mut max_x = row_a.x[0];
            for &x in &row_a.x[1..row_a.n] {
                min_x = min_x.min(x);
                max_x = max_x.max(x);
            }
            let x0 = floor_i32((min_x - bmin[0]) / cs);
            let x1 = floor_i32((max_x - bmin[0]) / cs);
            if x1 < 0 || x0 >= w {
                continue;
            }
            let x0 = x0.clamp(-1, w - 1);
            let x1 = x1.clamp(0, w - 1);
            let (mut row_in, mut row_rest) = (&mut *row_a, &mut *row_b);
            for x in x0..=x1 {
                let cx = bmin[0] + f64::from(x) * cs;
                // Likewise the row's rest after its last cell.
                let cell = if x < x1 {
                    split_cell::<true>(row_in, cx + cs, row_rest)
                } else {
                    split_cell::<false>(row_in, cx + cs, row_rest)
                };
                std::mem::swap(&mut row_in, &mut row_rest);
                let Some((smin, smax)) = cell else {
                    continue;
                };
                if x < 0 {
                    continue;
                }
                let smin = smin - bmin[1];
                let smax = smax - bmin[1];
                if smax < 0.0 || smin > by {
                    continue;
                }
                let smin = smin.max(0.0);
                let smax = smax.min(by);
                // Truncation, not floor: the two differ only on negative quotients, which
                // the clamp to 0 takes to the same value (NaN gives 0 either way).
                let ismin = ((smin / ch) as i32).clamp(0, MAX_HEIGHT_CELLS);
                let ismax = ceil_i32(smax / ch).clamp(ismin + 1, MAX_HEIGHT_CELLS);
                let span = Span {
                    smin: ismin as u16,
                    smax: ismax as u16,
                    area,
                };
                merge_span(&mut self.columns[(x + z * w) as usize], span, merge_climb);
            }
        }
    }

    /// The three filters of `docs/build3d-spans.md` §3 in one pass over the columns: the same
    /// result as [`Heightfield::filter_low_hanging_obstacles`],
    /// [`Heightfield::filter_ledge_spans`] and [`Heightfield::filter_low_height_spans`] one
    /// after another. Filter 1 reads and writes only its own column; filters 2 and 3 read the
    /// columns' heights, which no filter changes, and a span's own area, which only filter 1
    /// changes before them (filter 3's verdict does not depend on filter 2's, and a span either
    /// of them clears ends non-walkable whichever clears it first); so each column can be taken
    /// through all three before the next.
    pub fn filter_walkable(&mut self, walkable_height: i32, climb: i32) {
        let w = self.width;
        let h = self.depth;
        let max_h = MAX_HEIGHT_CELLS;
        let mut cleared = Vec::new();
        for z in 0..h {
            for x in 0..w {
                let c = (x + z * w) as usize;
                match self.columns[c].len() {
                    0 => continue,
                    // Filter 1 needs a span below another.
                    1 => {}
                    _ => low_hanging_in_column(&mut self.columns[c], climb),
                }
                let columns = &self.columns;
                // Open ground inside the grid: one span here and in each neighbour (most
                // columns of a terrain), tested without collecting verdicts; the free height
                // above the only span reaches the grid's top.
                if x > 0 && z > 0 && x + 1 < w && z + 1 < h {
                    let wu = w as usize;
                    let near = [c - 1, c + wu, c + 1, c - wu].map(|n| columns[n].as_slice());
                    if let (&[s], [&[a], &[b], &[cc], &[d]]) = (columns[c].as_slice(), near) {
                        if is_ledge_single(s, [a, b, cc, d], walkable_height, climb)
                            || max_h - i32::from(s.smax) < walkable_height
                        {
                            self.columns[c][0].area = NULL_AREA;
                        }
                        continue;
                    }
                }
                // Everything else (stacked spans, the grid's outer ring) the general way.
                let neighbours = self.neighbour_columns(x, z);
                let col = columns[c].as_slice();
                // A span already not walkable is left alone (clearing it changes nothing).
                let clears = |si: usize| {
                    let top = col.get(si + 1).map_or(max_h, |n| i32::from(n.smin));
                    col[si].area != NULL_AREA
                        && (top - i32::from(col[si].smax) < walkable_height
                            || is_ledge(col, si, &neighbours, walkable_height, climb))
                };
                if col.len() <= 64 {
                    // The verdicts as bits (no list to fill).
                    let bits = (0..col.len())
                        .filter(|&si| clears(si))
                        .fold(0u64, |b, si| b | 1 << si);
                    let col = &mut self.columns[c];
                    let mut rest = bits;
                    while rest != 0 {
                        col[rest.trailing_zeros() as usize].area = NULL_AREA;
                        rest &= rest - 1;
                    }
                    continue;
                }
                cleared.clear();
                cleared.extend((0..col.len()).filter(|&si| clears(si)));
                for &si in &cleared {
                    self.columns[c][si].area = NULL_AREA;
                }
            }
        }
    }

    /// The spans of the four neighbour columns of (x, z) in the order of [`DIR_X`] (`None`:
    /// outside the grid).
    fn neighbour_columns(&self, x: i32, z: i32) -> [Option<&[Span]>; 4] {
        let (w, h) = (self.width, self.depth);
        std::array::from_fn(|dir| {
            let (dx, dz) = (x + DIR_X[dir], z + DIR_Z[dir]);
            (dx >= 0 && dz >= 0 && dx < w && dz < h)
                .then(|| self.columns[(dx + dz * w) as usize].as_slice())
        })
    }

    /// Filter 1 (low-hanging obstacles): a non-walkable span whose top is within `climb`
    /// of the top of the walkable span right below it takes that span's area.
    pub fn filter_low_hanging_obstacles(&mut self, climb: i32) {
        for col in &mut self.columns {
            low_hanging_in_column(col, climb);
        }
    }

    /// Filter 2 (ledges): a walkable span becomes non-walkable when a neighbour floor
    /// (or the grid's outside) lies more than `climb` below it with room to stand, or when the
    /// reachable neighbour floors differ among themselves by more than `climb`.
    pub fn filter_ledge_spans(&mut self, walkable_height: i32, climb: i32) {
        let w = self.width;
        let h = self.depth;
        let mut ledges = Vec::new();
        for z in 0..h {
            for x in 0..w {
                let c = (x + z * w) as usize;
                if self.columns[c].is_empty() {
                    continue;
                }
                // The four neighbour columns once per column (`None`: outside the grid).
                let neighbours = self.neighbour_columns(x, z);
                let col = self.columns[c].as_slice();
                ledges.clear();
                if let (&[s], [Some(&[a]), Some(&[b]), Some(&[c]), Some(&[d])]) = (col, neighbours)
                {
                    // The common case of open ground: one span here and in each neighbour.
                    if is_ledge_single(s, [a, b, c, d], walkable_height, climb) {
                        ledges.push(0);
                    }
                } else {
                    ledges.extend(
                        (0..col.len())
                            .filter(|&si| is_ledge(col, si, &neighbours, walkable_height, climb)),
                    );
                }
                // The test reads the neighbours' heights and only this span's own area, so
                // clearing after the column is the same as clearing after the whole grid.
                for &si in &ledges {
                    self.columns[c][si].area = NULL_AREA;
                }
            }
        }
    }

    /// Filter 3 (low clearance): a walkable span with less than `walkable_height` cells of
    /// free space above its top becomes non-walkable.
    pub fn filter_low_height_spans(&mut self, walkable_height: i32) {
        for col in &mut self.columns {
            for si in 0..col.len() {
                let bot = i32::from(col[si].smax);
                let top = col
                    .get(si + 1)
                    .map_or(MAX_HEIGHT_CELLS, |n| i32::from(n.smin));
                if top - bot < walkable_height {
                    col[si].area = NULL_AREA;
                }
            }
        }
    }
}

/// The solid heightfields of one build, handed from one piece of a parallel tile loop to the
/// next. Rayon's `map_init` makes a fresh state for every piece it splits the tiles into (two
/// per build even on one thread), and a heightfield's first use allocates the storage of all
/// its columns; taking from this pool instead makes that once per worker and build. Which
/// heightfield a piece gets depends on scheduling, but each is reset before use, so only
/// memory is shared, never content.
#[derive(Default)]
pub(crate) struct ScratchPool {
    free: std::sync::Mutex<Vec<Heightfield>>,
}

impl ScratchPool {
    /// A heightfield from the pool (a new empty one when none is free), returned to the
    /// pool when the guard is dropped.
    pub(crate) fn take(&self) -> PooledHeightfield<'_> {
        let hf = self
            .free
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop();
        PooledHeightfield {
            hf: hf.unwrap_or_else(Heightfield::scratch),
            pool: self,
        }
    }
}

/// A heightfield taken from a [`ScratchPool`]; dropping it gives it back.
pub(crate) struct PooledHeightfield<'a> {
    hf: Heightfield,
    pool: &'a ScratchPool,
}

impl std::ops::Deref for PooledHeightfield<'_> {
    type Target = Heightfield;
    fn deref(&self) -> &Heightfield {
        &self.hf
    }
}

impl std::ops::DerefMut for PooledHeightfield<'_> {
    fn deref_mut(&mut self) -> &mut Heightfield {
        &mut self.hf
    }
}

impl Drop for PooledHeightfield<'_> {
    fn drop(&mut self) {
        let hf = std::mem::replace(&mut self.hf, Heightfield::scratch());
        self.pool
            .free
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(hf);
    }
}

/// [`Heightfield::add_span`] on one column (inlined into the rasterizer).
#[inline(always)]
fn merge_span(col: &mut Vec<Span>, mut s: Span, merge_climb: i32) {
    if col.is_empty() {
        // The first span of a column (what the general case does with no span to pass).
        col.push(s);
        return;
    }
    if let [cur] = col.as_mut_slice() {
        // One span so far (most columns of open ground): the steps below for one span.
        if cur.smax < s.smin {
            col.push(s);
        } else if cur.smin > s.smax {
            col.insert(0, s);
        } else {
            s.smin = s.smin.min(cur.smin);
            s.smax = s.smax.max(cur.smax);
            if (i32::from(s.smax) - i32::from(cur.smax)).abs() <= merge_climb {
                s.area = s.area.max(cur.area);
            }
            *cur = s;
        }
        return;
    }
    // Spans below the new one, then the run it absorbs (bottom up, in that order).
    let first = col.iter().take_while(|c| c.smax < s.smin).count();
    let mut end = first;
    while let Some(&cur) = col.get(end) {
        if cur.smin > s.smax {
            break;
        }
        if cur.smin < s.smin {
            s.smin = cur.smin;
        }
        if cur.smax > s.smax {
            s.smax = cur.smax;
        }
        if (i32::from(s.smax) - i32::from(cur.smax)).abs() <= merge_climb {
            s.area = s.area.max(cur.area);
        }
        end += 1;
    }
    if end == first {
        col.insert(first, s);
    } else {
        col[first] = s;
        // One absorbed span (the usual case when triangles share a cell) leaves nothing
        // to remove.
        if end > first + 1 {
            col.drain(first + 1..end);
        }
    }
}

/// Filter 1 on one column (bottom up; walkability judged before the filter).
fn low_hanging_in_column(col: &mut [Span], climb: i32) {
    let mut prev_walkable = false;
    let mut prev_area = NULL_AREA;
    let mut prev_top = 0i32;
    for s in col.iter_mut() {
        let walkable = s.area != NULL_AREA;
        if !walkable && prev_walkable && (i32::from(s.smax) - prev_top).abs() <= climb {
            s.area = prev_area;
        }
        prev_walkable = walkable;
        prev_area = s.area;
        prev_top = i32::from(s.smax);
    }
}

/// Column offsets of the four directions, in the order −x, +z, +x, −z.
pub const DIR_X: [i32; 4] = [-1, 0, 1, 0];
/// Row offsets of the four directions, in the order −x, +z, +x, −z.
pub const DIR_Z: [i32; 4] = [0, 1, 0, -1];

/// [`is_ledge`] for a column of one span whose four neighbours (all inside the grid) hold
/// one span each: the same steps with the scans of one span unrolled.
#[inline(always)]
fn is_ledge_single(s: Span, neighbours: [Span; 4], walkable_height: i32, climb: i32) -> bool {
    let max_h = MAX_HEIGHT_CELLS;
    if s.area == NULL_AREA {
        return false;
    }
    let bot = i32::from(s.smax);
    let no_room = max_h - walkable_height;
    let mut minh = max_h;
    let mut asmin = bot;
    let mut asmax = bot;
    // No early exit once a ledge is found (as `is_ledge` has): `minh` only falls, so the
    // verdict is the same, and four straight passes branch less.
    for n in neighbours {
        // The ground below the neighbour's span, then the span's floor (the grid's top above).
        if max_h.min(i32::from(n.smin)) - bot.max(-climb) > walkable_height {
            minh = minh.min(-climb - bot);
        }
        let nbot = i32::from(n.smax);
        if nbot < no_room && max_h - bot.max(nbot) > walkable_height {
            minh = minh.min(nbot - bot);
            if (nbot - bot).abs() <= climb {
                asmin = asmin.min(nbot);
                asmax = asmax.max(nbot);
            }
        }
    }
    minh < -climb || asmax - asmin > climb
}

/// Filter 2's verdict on span `si` of column `col` (false for a non-walkable span), given its
/// four neighbour columns in the order of [`DIR_X`] (`None`: outside the grid).
fn is_ledge(
    col: &[Span],
    si: usize,
    neighbours: &[Option<&[Span]>; 4],
    walkable_height: i32,
    climb: i32,
) -> bool {
    let max_h = MAX_HEIGHT_CELLS;
    let s = col[si];
    if s.area == NULL_AREA {
        return false;
    }
    let bot = i32::from(s.smax);
    let top = col.get(si + 1).map_or(max_h, |n| i32::from(n.smin));
    // A neighbour floor at or above this height leaves no room to stand next to the span (the
    // free interval is at most `walkable_height`); floors are sorted, so the scan of a
    // neighbour column stops there.
    let no_room = top - walkable_height;
    let mut minh = max_h;
    let mut asmin = bot;
    let mut asmax = bot;
    for ncol in neighbours {
        // Already a ledge: the other directions cannot change that.
        if minh < -climb {
            break;
        }
        let Some(ncol) = ncol else {
            minh = minh.min(-climb - bot);
            continue;
        };
        let nbot = -climb;
        let ntop = ncol.first().map_or(max_h, |n| i32::from(n.smin));
        if top.min(ntop) - bot.max(nbot) > walkable_height {
            minh = minh.min(nbot - bot);
        }
        for (ni, ns) in ncol.iter().enumerate() {
            let nbot = i32::from(ns.smax);
            if nbot >= no_room {
                break;
            }
            let ntop = ncol.get(ni + 1).map_or(max_h, |n| i32::from(n.smin));
            if top.min(ntop) - bot.max(nbot) > walkable_height {
                minh = minh.min(nbot - bot);
                if (nbot - bot).abs() <= climb {
                    asmin = asmin.min(nbot);
                    asmax = asmax.max(nbot);
                }
            }
        }
    }
    minh < -climb || asmax - asmin > climb
}

/// Most vertices a clipped polygon keeps. A convex polygon cut by an axis line gains at most
/// one vertex per cut; a triangle cut by two row lines and two cell lines has at most 7, so
/// the slots never run out (a push beyond them would be dropped, never written out of bounds).
const POLY_SLOTS: usize = 12;

/// The clipping buffers of the rasterizer: the triangle's rest (two in turn) and the row's
/// rest (two in turn; the row itself is the first).
struct ClipBuffers {
    tri_a: Poly3,
    tri_b: Poly3,
    row_a: Poly2,
    row_b: Poly2,
}

impl ClipBuffers {
    fn new() -> Self {
        ClipBuffers {
            tri_a: Poly3::EMPTY,
            tri_b: Poly3::EMPTY,
            row_a: Poly2::EMPTY,
            row_b: Poly2::EMPTY,
        }
    }
}

/// A convex polygon with X, Y and Z (the triangle's rest while rows are cut off it).
#[derive(Clone, Copy)]
struct Poly3 {
    v: [[f64; 3]; POLY_SLOTS],
    n: usize,
}

impl Poly3 {
    const EMPTY: Poly3 = Poly3 {
        v: [[0.0; 3]; POLY_SLOTS],
        n: 0,
    };
}

/// A convex polygon with X and Y only (a row: cells are cut off it along X and a cell needs
/// only its Y range).
#[derive(Clone, Copy)]
struct Poly2 {
    x: [f64; POLY_SLOTS],
    y: [f64; POLY_SLOTS],
    n: usize,
}

impl Poly2 {
    const EMPTY: Poly2 = Poly2 {
        x: [0.0; POLY_SLOTS],
        y: [0.0; POLY_SLOTS],
        n: 0,
    };

    #[inline]
    fn push(&mut self, x: f64, y: f64) {
        if self.n < POLY_SLOTS {
            self.x[self.n] = x;
            self.y[self.n] = y;
            self.n += 1;
        }
    }
}

/// Writes a [`Poly2`] from its first slot on, keeping the count in a local until
/// [`Fill2::finish`] stores it (a push beyond the slots is dropped, as [`Poly2::push`]).
struct Fill2<'a> {
    poly: &'a mut Poly2,
    n: usize,
}

impl<'a> Fill2<'a> {
    #[inline(always)]
    fn new(poly: &'a mut Poly2) -> Self {
        Fill2 { poly, n: 0 }
    }

    #[inline(always)]
    fn push(&mut self, x: f64, y: f64) {
        if self.n < POLY_SLOTS {
            self.poly.x[self.n] = x;
            self.poly.y[self.n] = y;
            self.n += 1;
        }
    }

    #[inline(always)]
    fn finish(self) {
        self.poly.n = self.n;
    }
}

/// [`Fill2`] for a [`Poly3`].
struct Fill3<'a> {
    poly: &'a mut Poly3,
    n: usize,
}

impl<'a> Fill3<'a> {
    #[inline(always)]
    fn new(poly: &'a mut Poly3) -> Self {
        Fill3 { poly, n: 0 }
    }

    #[inline(always)]
    fn push(&mut self, p: [f64; 3]) {
        if self.n < POLY_SLOTS {
            self.poly.v[self.n] = p;
            self.n += 1;
        }
    }

    #[inline(always)]
    fn finish(self) {
        self.poly.n = self.n;
    }
}

/// Splits the triangle's rest by the line `z = offset` into the row below (`<=`, X and Y
/// kept) and the rest above. Points on the line go to both. A cut point is
/// `a + (b − a) · s` per coordinate with `s = d(a) / (d(a) − d(b))`, `d(p) = offset − p.z`:
/// the rule of `docs/build3d-spans.md` §1, so dropping Z from the row changes no X or Y.
///
/// With `REST` false the rest is not written (`above` is left as it was): the caller reads
/// only the row; `below` is the same either way.
fn split_rows<const REST: bool>(input: &Poly3, offset: f64, below: &mut Poly2, above: &mut Poly3) {
    below.n = 0;
    if REST {
        above.n = 0;
    }
    let n = input.n;
    if n == 0 {
        return;
    }
    let mut d = [0.0f64; POLY_SLOTS];
    for i in 0..n {
        d[i] = offset - input.v[i][2];
    }
    let mut below = Fill2::new(below);
    let mut above = Fill3::new(above);
    let mut j = n - 1;
    for i in 0..n {
        let (dj, di) = (d[j], d[i]);
        let b = input.v[i];
        if (dj >= 0.0) != (di >= 0.0) {
            let s = dj / (dj - di);
            let a = input.v[j];
            let p = [
                a[0] + (b[0] - a[0]) * s,
                a[1] + (b[1] - a[1]) * s,
                a[2] + (b[2] - a[2]) * s,
            ];
            below.push(p[0], p[1]);
            if REST {
                above.push(p);
            }
            if di > 0.0 {
                below.push(b[0], b[1]);
            } else if di < 0.0 && REST {
                above.push(b);
            }
        } else if di > 0.0 {
            below.push(b[0], b[1]);
        } else if di == 0.0 {
            below.push(b[0], b[1]);
            if REST {
                above.push(b);
            }
        } else if REST {
            above.push(b);
        }
        j = i;
    }
    below.finish();
    if REST {
        above.finish();
    }
}

/// Cuts the cell below `x = offset` off a row: writes the rest above into `above` and
/// returns the cell's lowest and highest Y, or `None` when the cell keeps fewer than three
/// points (no area). The same cut rule as [`split_rows`], along X.
///
/// A row is convex, so its points below the line (`d ≥ 0`, `d = offset − x`) form one run
/// in cyclic order and those above another: the cut replaces the run below by the two cut
/// points (and any point of the run exactly on the line after its first) and keeps the run
/// above as it is. That is computed directly from the two crossing edges; the rest is the
/// one [`split_cell_generic`] writes, rotated (same cyclic order, so every later cut point and
/// Y range is the same; a Y range is a min / max, independent of order). Rounding can make a
/// row non-convex by an ulp (more than two crossings): such a cut, and any other case, goes
/// to the generic walk.
///
/// With `REST` false the rest need not be written (the caller reads only the cell's Y range;
/// `above` may be left as anything): the Y range is the same either way.
fn split_cell<const REST: bool>(
    input: &Poly2,
    offset: f64,
    above: &mut Poly2,
) -> Option<(f64, f64)> {
    let n = input.n;
    // Fewer than three points make no cell; the slots hold every point a cut can add.
    if n < 3 || n + 2 > POLY_SLOTS {
        return split_cell_generic(input, offset, above);
    }
    let mut d = [0.0f64; POLY_SLOTS];
    // Bit i: point i is below the line (`d ≥ 0`); `prev` holds the same for each point's
    // predecessor (cyclic), so an edge crosses the line where the two differ.
    let mut inside = 0u32;
    for i in 0..n {
        d[i] = offset - input.x[i];
        inside |= u32::from(d[i] >= 0.0) << i;
    }
    let full = (1u32 << n) - 1;
    let prev = ((inside << 1) | (inside >> (n - 1))) & full;
    let crossings = (inside ^ prev).count_ones();
    // `first_in`: a point below whose predecessor is above (out -> in); `first_out`: a point
    // above whose predecessor is below (in -> out). Each is unique when there are two
    // crossings, the only case that reads them.
    let first_in = (inside & !prev).trailing_zeros() as usize;
    let first_out = (!inside & prev).trailing_zeros() as usize;
    if crossings == 0 {
        if d[0] < 0.0 {
            // All above: no cell, the rest is the row.
            if REST {
                *above = *input;
            }
            return None;
        }
        // All below: the cell is the whole row; points on the line stay in the rest too.
        let mut above = Fill2::new(above);
        let (mut ymin, mut ymax) = (input.y[0], input.y[0]);
        for i in 0..n {
            if i > 0 {
                ymin = ymin.min(input.y[i]);
                ymax = ymax.max(input.y[i]);
            }
            if REST && d[i] == 0.0 {
                above.push(input.x[i], input.y[i]);
            }
        }
        above.finish();
        return Some((ymin, ymax));
    }
    if crossings != 2 {
        // Not convex (by rounding): the generic walk.
        return split_cell_generic(input, offset, above);
    }
    let cut = |a: usize, b: usize| {
        let (dj, di) = (d[a], d[b]);
        let s = dj / (dj - di);
        let (ax, ay) = (input.x[a], input.y[a]);
        (ax + (input.x[b] - ax) * s, ay + (input.y[b] - ay) * s)
    };
    let prev = |k: usize| if k == 0 { n - 1 } else { k - 1 };
    let next = |k: usize| if k + 1 == n { 0 } else { k + 1 };
    // Entering the run below: the edge (point above -> first point below).
    let (ix, iy) = cut(prev(first_in), first_in);
    // Leaving it: the edge (last point below -> first point above).
    let last_in = prev(first_out);
    let (ox, oy) = cut(last_in, first_out);
    let mut above = Fill2::new(above);
    if REST {
        above.push(ix, iy);
    }
    let (mut ymin, mut ymax) = (iy, iy);
    let mut count = 1usize;
    // The first point below joins the cell unless it lies on the line (the cut point,
    // pushed above, stands for it).
    if d[first_in] > 0.0 {
        ymin = ymin.min(input.y[first_in]);
        ymax = ymax.max(input.y[first_in]);
        count += 1;
    }
    if first_in != last_in {
        let mut k = next(first_in);
        loop {
            let y = input.y[k];
            ymin = ymin.min(y);
            ymax = ymax.max(y);
            count += 1;
            if REST && d[k] == 0.0 {
                above.push(input.x[k], y);
            }
            if k == last_in {
                break;
            }
            k = next(k);
        }
    }
    ymin = ymin.min(oy);
    ymax = ymax.max(oy);
    count += 1;
    if REST {
        above.push(ox, oy);
        let mut k = first_out;
        while k != first_in {
            above.push(input.x[k], input.y[k]);
            k = next(k);
        }
    }
    above.finish();
    // At most `n + 2` points: within the slots whenever the generic walk's are.
    (count >= 3).then_some((ymin, ymax))
}

/// [`split_cell`] by walking every edge (the cut rule of [`split_rows`] along X).
fn split_cell_generic(input: &Poly2, offset: f64, above: &mut Poly2) -> Option<(f64, f64)> {
    above.n = 0;
    let n = input.n;
    if n == 0 {
        return None;
    }
    let mut d = [0.0f64; POLY_SLOTS];
    for i in 0..n {
        d[i] = offset - input.x[i];
    }
    // The cell's points are only counted (up to the slots, as a polygon would keep them) and
    // folded into the Y range.
    let mut count = 0usize;
    let mut ymin = f64::INFINITY;
    let mut ymax = f64::NEG_INFINITY;
    let mut below = |y: f64| {
        if count < POLY_SLOTS {
            if count == 0 {
                ymin = y;
                ymax = y;
            } else {
                ymin = ymin.min(y);
                ymax = ymax.max(y);
            }
            count += 1;
        }
    };
    let mut j = n - 1;
    for i in 0..n {
        let (dj, di) = (d[j], d[i]);
        let (bx, by) = (input.x[i], input.y[i]);
        if (dj >= 0.0) != (di >= 0.0) {
            let s = dj / (dj - di);
            let (ax, ay) = (input.x[j], input.y[j]);
            let px = ax + (bx - ax) * s;
            let py = ay + (by - ay) * s;
            below(py);
            above.push(px, py);
            if di > 0.0 {
                below(by);
            } else if di < 0.0 {
                above.push(bx, by);
            }
        } else if di > 0.0 {
            below(by);
        } else if di == 0.0 {
            below(by);
            above.push(bx, by);
        } else {
            above.push(bx, by);
        }
        j = i;
    }
    (count >= 3).then_some((ymin, ymax))
}

/// `x.floor() as i32` (saturating, NaN → 0) without the libm call: truncate, then step
/// down when truncation rounded up. Exact: both conversions are exact or saturate alike.
#[inline]
fn floor_i32(x: f64) -> i32 {
    let t = x as i32;
    if f64::from(t) > x {
        t.saturating_sub(1)
    } else {
        t
    }
}

/// `x.ceil() as i32` (saturating, NaN → 0) without the libm call.
#[inline]
fn ceil_i32(x: f64) -> i32 {
    let t = x as i32;
    if f64::from(t) < x {
        t.saturating_add(1)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The rasterizer before the row / cell specialisation (one generic 3D cut for both axes),
    // kept as the reference the specialised one must equal span for span.
    #[derive(Clone, Copy)]
    struct Poly {
        v: [[f64; 3]; 12],
        n: usize,
    }

    impl Poly {
        const EMPTY: Poly = Poly {
            v: [[0.0; 3]; 12],
            n: 0,
        };
        fn push(&mut self, p: [f64; 3]) {
            if self.n < self.v.len() {
                self.v[self.n] = p;
                self.n += 1;
            }
        }
    }

    fn divide_poly(input: &Poly, offset: f64, axis: usize, below: &mut Poly, above: &mut Poly) {
        below.n = 0;
        above.n = 0;
        let n = input.n;
        if n == 0 {
            return;
        }
        let mut d = [0.0f64; 12];
        for i in 0..n {
            d[i] = offset - input.v[i][axis];
        }
        let mut j = n - 1;
        for i in 0..n {
            let ina = d[j] >= 0.0;
            let inb = d[i] >= 0.0;
            if ina != inb {
                let s = d[j] / (d[j] - d[i]);
                let a = input.v[j];
                let b = input.v[i];
                let p = [
                    a[0] + (b[0] - a[0]) * s,
                    a[1] + (b[1] - a[1]) * s,
                    a[2] + (b[2] - a[2]) * s,
                ];
                below.push(p);
                above.push(p);
                if d[i] > 0.0 {
                    below.push(b);
                } else if d[i] < 0.0 {
                    above.push(b);
                }
            } else {
                if d[i] >= 0.0 {
                    below.push(input.v[i]);
                    if d[i] != 0.0 {
                        j = i;
                        continue;
                    }
                }
                above.push(input.v[i]);
            }
            j = i;
        }
    }

    fn reference_rasterize(hf: &mut Heightfield, v: [[f64; 3]; 3], area: u8, merge_climb: i32) {
        let (cs, ch, bmin) = (hf.cs, hf.ch, hf.origin);
        let bmax = [
            bmin[0] + f64::from(hf.width) * cs,
            bmin[1] + f64::from(hf.height_cells) * ch,
            bmin[2] + f64::from(hf.depth) * cs,
        ];
        let mut tmin = v[0];
        let mut tmax = v[0];
        for p in &v[1..] {
            for k in 0..3 {
                tmin[k] = tmin[k].min(p[k]);
                tmax[k] = tmax[k].max(p[k]);
            }
        }
        if tmin[0] > bmax[0] || tmax[0] < bmin[0] || tmin[2] > bmax[2] || tmax[2] < bmin[2] {
            return;
        }
        if tmin[1] > bmax[1] || tmax[1] < bmin[1] {
            return;
        }
        let (w, h) = (hf.width, hf.depth);
        let by = bmax[1] - bmin[1];
        let z0 = floor_i32((tmin[2] - bmin[2]) / cs).clamp(-1, h - 1);
        let z1 = floor_i32((tmax[2] - bmin[2]) / cs).clamp(0, h - 1);
        let mut rest = Poly::EMPTY;
        rest.v[..3].copy_from_slice(&v);
        rest.n = 3;
        for z in z0..=z1 {
            let cell_z = bmin[2] + f64::from(z) * cs;
            let (mut row, mut next) = (Poly::EMPTY, Poly::EMPTY);
            divide_poly(&rest, cell_z + cs, 2, &mut row, &mut next);
            rest = next;
            if row.n < 3 || z < 0 {
                continue;
            }
            let mut min_x = row.v[0][0];
            let mut max_x = row.v[0][0];
            for p in &row.v[1..row.n] {
                min_x = min_x.min(p[0]);
                max_x = max_x.max(p[0]);
            }
            let x0 = floor_i32((min_x - bmin[0]) / cs);
            let x1 = floor_i32((max_x - bmin[0]) / cs);
            if x1 < 0 || x0 >= w {
                continue;
            }
            for x in x0.clamp(-1, w - 1)..=x1.clamp(0, w - 1) {
                let cx = bmin[0] + f64::from(x) * cs;
                let (mut cell, mut next) = (Poly::EMPTY, Poly::EMPTY);
                divide_poly(&row, cx + cs, 0, &mut cell, &mut next);
                row = next;
                if cell.n < 3 || x < 0 {
                    continue;
                }
                let mut smin = cell.v[0][1];
                let mut smax = cell.v[0][1];
                for p in &cell.v[1..cell.n] {
                    smin = smin.min(p[1]);
                    smax = smax.max(p[1]);
                }
                smin -= bmin[1];
                smax -= bmin[1];
                if smax < 0.0 || smin > by {
                    continue;
                }
                let ismin = floor_i32(smin.max(0.0) / ch).clamp(0, MAX_HEIGHT_CELLS);
                let ismax = ceil_i32(smax.min(by) / ch).clamp(ismin + 1, MAX_HEIGHT_CELLS);
                hf.add_span(x, z, ismin as u16, ismax as u16, area, merge_climb);
            }
        }
    }

    // The span merge before it found the absorbed run first (one remove per absorbed span,
    // then an insert), kept as the reference of `add_span`.
    fn reference_add_span(col: &mut Vec<Span>, smin: u16, smax: u16, area: u8, climb: i32) {
        let mut s = Span { smin, smax, area };
        let mut i = 0;
        while i < col.len() {
            let cur = col[i];
            if cur.smin > s.smax {
                break;
            }
            if cur.smax < s.smin {
                i += 1;
                continue;
            }
            s.smin = s.smin.min(cur.smin);
            s.smax = s.smax.max(cur.smax);
            if (i32::from(s.smax) - i32::from(cur.smax)).abs() <= climb {
                s.area = s.area.max(cur.area);
            }
            col.remove(i);
        }
        col.insert(i, s);
    }

    // Filter 2 as it was (verdicts collected first, cleared afterwards; every neighbour span
    // scanned), the reference of `filter_ledge_spans`.
    fn reference_ledge_filter(hf: &mut Heightfield, walkable_height: i32, climb: i32) {
        let (w, h, max_h) = (hf.width, hf.depth, MAX_HEIGHT_CELLS);
        let mut to_clear = Vec::new();
        for z in 0..h {
            for x in 0..w {
                let col = &hf.columns[(x + z * w) as usize];
                for (si, s) in col.iter().enumerate() {
                    if s.area == NULL_AREA {
                        continue;
                    }
                    let bot = i32::from(s.smax);
                    let top = col.get(si + 1).map_or(max_h, |n| i32::from(n.smin));
                    let (mut minh, mut asmin, mut asmax) = (max_h, bot, bot);
                    for dir in 0..4 {
                        let (dx, dz) = (x + DIR_X[dir], z + DIR_Z[dir]);
                        if dx < 0 || dz < 0 || dx >= w || dz >= h {
                            minh = minh.min(-climb - bot);
                            continue;
                        }
                        let ncol = &hf.columns[(dx + dz * w) as usize];
                        let ntop = ncol.first().map_or(max_h, |n| i32::from(n.smin));
                        if top.min(ntop) - bot.max(-climb) > walkable_height {
                            minh = minh.min(-climb - bot);
                        }
                        for (ni, ns) in ncol.iter().enumerate() {
                            let nbot = i32::from(ns.smax);
                            let ntop = ncol.get(ni + 1).map_or(max_h, |n| i32::from(n.smin));
                            if top.min(ntop) - bot.max(nbot) > walkable_height {
                                minh = minh.min(nbot - bot);
                                if (nbot - bot).abs() <= climb {
                                    asmin = asmin.min(nbot);
                                    asmax = asmax.max(nbot);
                                }
                            }
                        }
                    }
                    if minh < -climb || asmax - asmin > climb {
                        to_clear.push(((x + z * w) as usize, si));
                    }
                }
            }
        }
        for (c, si) in to_clear {
            hf.columns[c][si].area = NULL_AREA;
        }
    }

    proptest::proptest! {
        // Random columns of stacked floors (some not walkable) on a 5 x 4 grid, heights
        // close enough for every case of the rule (climb 3, height 6): the same verdicts.
        #[test]
        fn ledge_filter_equals_the_reference(
            runs in proptest::collection::vec((0i32..5, 0i32..4, 0u16..40, 1u16..6, 0u8..3), 0..60),
        ) {
            let mut hf = Heightfield::new(5, 4, [0.0; 3], 1.0, 1.0, 100);
            for (x, z, smin, len, area) in runs {
                hf.add_span(x, z, smin, smin + len, area, 1);
            }
            let mut reference = hf.clone();
            hf.filter_ledge_spans(6, 3);
            reference_ledge_filter(&mut reference, 6, 3);
            proptest::prop_assert_eq!(hf, reference);
        }

        // Random stacks (walkable and not, as filter 1 needs) and open ground: the fused pass
        // leaves exactly what the three filters one after another leave.
        #[test]
        fn fused_filters_equal_the_three_in_order(
            runs in proptest::collection::vec((0i32..5, 0i32..4, 0u16..40, 1u16..6, 0u8..3), 0..60),
            ground in proptest::collection::vec((0u16..12, 1u16..4, 0u8..3), 20),
            height in 1i32..8,
            climb in 0i32..4,
            open in proptest::bool::ANY,
        ) {
            let mut hf = Heightfield::new(5, 4, [0.0; 3], 1.0, 1.0, 100);
            if open {
                for (c, (smin, len, area)) in ground.into_iter().enumerate() {
                    hf.add_span(c as i32 % 5, c as i32 / 5, smin, smin + len, area, 1);
                }
            } else {
                for (x, z, smin, len, area) in runs {
                    hf.add_span(x, z, smin, smin + len, area, 1);
                }
            }
            let mut reference = hf.clone();
            hf.filter_walkable(height, climb);
            reference.filter_low_hanging_obstacles(climb);
            reference.filter_ledge_spans(height, climb);
            reference.filter_low_height_spans(height);
            proptest::prop_assert_eq!(hf, reference);
        }

        // Open ground (one span per column, as on a terrain), where the filter takes its
        // one-span path on the interior columns: the same verdicts.
        #[test]
        fn ledge_filter_on_open_ground_equals_the_reference(
            columns in proptest::collection::vec((0u16..12, 1u16..4, 0u8..3), 20),
            height in 1i32..8,
            climb in 0i32..4,
        ) {
            let mut hf = Heightfield::new(5, 4, [0.0; 3], 1.0, 1.0, 100);
            for (c, (smin, len, area)) in columns.into_iter().enumerate() {
                hf.add_span(c as i32 % 5, c as i32 / 5, smin, smin + len, area, 1);
            }
            let mut reference = hf.clone();
            hf.filter_ledge_spans(height, climb);
            reference_ledge_filter(&mut reference, height, climb);
            proptest::prop_assert_eq!(hf, reference);
        }
    }

    proptest::proptest! {
        // Random runs into one column: the same spans, in the same order, as the reference.
        #[test]
        fn add_span_equals_the_reference_merge(
            runs in proptest::collection::vec((0u16..80, 1u16..12, 0u8..4), 1..40),
        ) {
            let mut hf = Heightfield::new(1, 1, [0.0; 3], 1.0, 1.0, 100);
            let mut reference = Vec::new();
            for (smin, len, area) in runs {
                hf.add_span(0, 0, smin, smin + len, area, 2);
                reference_add_span(&mut reference, smin, smin + len, area, 2);
                proptest::prop_assert_eq!(&hf.columns[0], &reference);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
        // Triangles anywhere around a small grid (inside, across its edges, outside, on cell
        // lines: coordinates on a 1/8-cell lattice hit the lines exactly), rasterized one
        // after another into one heightfield: the specialised rasterizer leaves exactly the
        // spans of the generic reference.
        #[test]
        fn rasterizer_equals_the_generic_reference(
            tris in proptest::collection::vec(
                (proptest::array::uniform9(-5.0f64..12.0), 0u8..3, proptest::bool::ANY),
                1..12,
            ),
        ) {
            let mut fast = Heightfield::new(9, 7, [0.375, -1.0, -0.75], 0.75, 0.25, 60);
            let mut reference = fast.clone();
            let mut batch = fast.clone();
            let mut all = Vec::new();
            for (c, area, lattice) in tris {
                let q = |k: usize| if lattice { (c[k] * 8.0 / 0.75).round() * 0.75 / 8.0 } else { c[k] };
                let v = [[q(0), q(1), q(2)], [q(3), q(4), q(5)], [q(6), q(7), q(8)]];
                fast.rasterize_triangle(v, area, 2);
                reference_rasterize(&mut reference, v, area, 2);
                all.push((v, area));
            }
            // One set of buffers for every triangle: the same as fresh ones for each.
            batch.rasterize_triangles(all, 2);
            proptest::prop_assert_eq!(&fast, &reference);
            proptest::prop_assert_eq!(&batch, &reference);
        }
    }

    #[test]
    fn floor_and_ceil_to_i32_equal_the_libm_forms_with_saturation() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999_999_999_999_999_6,
            -2.999_999_999_999_999_6,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::from(i32::MAX),
            f64::from(i32::MAX) + 0.5,
            f64::from(i32::MAX) + 1.0,
            f64::from(i32::MIN),
            f64::from(i32::MIN) - 0.5,
            f64::from(i32::MIN) + 0.5,
            f64::from(i32::MIN) - 1.0,
            1e300,
            -1e300,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
        ];
        for k in -2000..2000 {
            let x = f64::from(k) * 0.3 / 0.7 + 1e-3;
            xs.extend([
                x,
                f64::from_bits(x.to_bits() + 1),
                f64::from_bits(x.to_bits() - 1),
            ]);
        }
        for x in xs {
            assert_eq!(floor_i32(x), x.floor() as i32, "floor {x}");
            assert_eq!(ceil_i32(x), x.ceil() as i32, "ceil {x}");
        }
    }

    #[test]
    fn overlapping_spans_merge_into_their_union() {
        let mut hf = Heightfield::new(1, 1, [0.0; 3], 1.0, 1.0, 100);
        hf.add_span(0, 0, 0, 5, 0, 1);
        hf.add_span(0, 0, 10, 12, 0, 1);
        hf.add_span(0, 0, 4, 10, 7, 1);
        assert_eq!(
            hf.columns[0],
            vec![Span {
                smin: 0,
                smax: 12,
                area: 7
            }]
        );
    }

    #[test]
    fn merged_span_keeps_larger_area_only_when_tops_are_within_climb() {
        let mut hf = Heightfield::new(1, 1, [0.0; 3], 1.0, 1.0, 100);
        hf.add_span(0, 0, 0, 10, 9, 1);
        hf.add_span(0, 0, 2, 4, 3, 1);
        // The merged top is 10, equal to the absorbed span's top: the larger area (9) wins.
        assert_eq!(hf.columns[0][0].area, 9);
        let mut hf = Heightfield::new(1, 1, [0.0; 3], 1.0, 1.0, 100);
        hf.add_span(0, 0, 0, 4, 9, 1);
        hf.add_span(0, 0, 2, 10, 3, 1);
        assert_eq!(
            hf.columns[0][0],
            Span {
                smin: 0,
                smax: 10,
                area: 3
            }
        );
    }

    #[test]
    fn flat_triangle_rasterizes_one_span_per_covered_cell() {
        let mut hf = Heightfield::new(4, 4, [0.0; 3], 1.0, 0.5, 100);
        hf.rasterize_triangle([[0.0, 1.0, 0.0], [0.0, 1.0, 4.0], [4.0, 1.0, 0.0]], 5, 1);
        let filled = hf.columns.iter().filter(|c| !c.is_empty()).count();
        // Every cell the triangle touches with positive area (the 10 cells on or below the
        // diagonal) gets exactly one span with top at 1.0 / 0.5 = 2.
        assert_eq!(filled, 10);
        for c in hf.columns.iter().filter(|c| !c.is_empty()) {
            assert_eq!(c.len(), 1);
            assert_eq!(c[0].smax, 3);
            assert_eq!(c[0].smin, 2);
        }
    }

    #[test]
    fn the_scratch_pool_hands_a_returned_heightfield_out_again() {
        let pool = ScratchPool::default();
        {
            let mut hf = pool.take();
            hf.reset(3, 2, [0.0; 3], 1.0, 1.0, 10);
            hf.add_span(2, 1, 0, 4, 7, 1);
        }
        let mut a = pool.take();
        // The one returned (its columns' storage kept), and a fresh one while it is out.
        assert_eq!(a.columns.len(), 6);
        assert!(a.columns[5].capacity() > 0);
        assert!(pool.take().columns.is_empty());
        a.reset(2, 2, [1.0; 3], 0.5, 0.5, 4);
        assert_eq!(*a, Heightfield::new(2, 2, [1.0; 3], 0.5, 0.5, 4));
    }

    #[test]
    fn low_clearance_spans_are_not_walkable() {
        let mut hf = Heightfield::new(1, 1, [0.0; 3], 1.0, 1.0, 100);
        hf.add_span(0, 0, 0, 1, 63, 1);
        hf.add_span(0, 0, 5, 6, 63, 1);
        hf.filter_low_height_spans(5);
        assert_eq!(hf.columns[0][0].area, NULL_AREA);
        assert_eq!(hf.columns[0][1].area, 63);
    }
}
