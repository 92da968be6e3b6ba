//! Per-node records of a search over a 3D box of nodes, stored in pages of 4 × 4 × 4
//! nodes that a search allocates when it first touches one, so the memory of a search
//! follows what it touches, not the size of the grid.
//!
//! Two index levels, both allocated on touch: a top table with one u32 per block of
//! 32 × 32 × 32 nodes (1/8192 u32 per node), and per touched block a table of its 512
//! pages. Pages and block tables live in pools kept between searches: a new search
//! forgets the last one in O(blocks and pages touched) and takes them again in order, so
//! a sequence of searches allocates only when one touches more than every search before.

const PAGE_SHIFT: u32 = 2;
const PAGE_MASK: u32 = (1 << PAGE_SHIFT) - 1;
/// Nodes per page (4³).
const PAGE_NODES: usize = 1 << (3 * PAGE_SHIFT);
/// Pages per block side (8, so a block is 32 nodes a side).
const BLOCK_SHIFT: u32 = 3;
const BLOCK_MASK: u32 = (1 << BLOCK_SHIFT) - 1;
/// Pages per block (8³).
const BLOCK_PAGES: usize = 1 << (3 * BLOCK_SHIFT);
const NONE: u32 = u32::MAX;

/// Paged records of type `R` over a `size[0] × size[1] × size[2]` box; an untouched node
/// reads as `R::default()`.
#[derive(Debug, Clone, Default)]
pub(crate) struct PagedRecords<R> {
    /// The box.
    size: [u32; 3],
    /// Blocks per axis.
    blocks_dim: [u32; 3],
    /// Per block of the box: its table's place in `tables` (in tables), or NONE.
    top: Vec<u32>,
    /// The blocks touched by the current search, in order.
    touched: Vec<u32>,
    /// Block tables, one after another: per page of the block its place in `pool` (in
    /// pages), or NONE.
    tables: Vec<u32>,
    /// The records of the taken pages, page after page (capacity kept between searches).
    pool: Vec<R>,
    /// The last group [`PagedRecords::group_of`] returned: consecutive expansions are
    /// mostly neighbours with the same lowest page, whose pages it already walked to.
    last: PageGroup,
    /// The pages of `last` whose `base` is known (taken, or outside the box); 0 after a
    /// reset.
    last_known: u8,
}

impl<R: Copy + Default> PagedRecords<R> {
    /// Forgets every record (O(blocks touched)); sizes the top table for `size`.
    pub(crate) fn reset(&mut self, size: [u32; 3]) {
        self.size = size;
        let dim = size.map(|s| s.div_ceil(1 << (PAGE_SHIFT + BLOCK_SHIFT)));
        let blocks = dim.iter().map(|&d| d as usize).product::<usize>();
        if dim != self.blocks_dim || self.top.len() != blocks {
            self.blocks_dim = dim;
            self.top.clear();
            self.top.resize(blocks, NONE);
        } else {
            for &b in &self.touched {
                if let Some(slot) = self.top.get_mut(b as usize) {
                    *slot = NONE;
                }
            }
        }
        self.touched.clear();
        self.tables.clear();
        self.pool.clear();
        self.last_known = 0;
    }

    /// Number of pages the current search has taken.
    #[cfg(test)]
    pub(crate) fn pages_taken(&self) -> usize {
        self.pool.len() / PAGE_NODES
    }

    /// Number of records the current search has taken (its pages' nodes).
    pub(crate) fn records_taken(&self) -> usize {
        self.pool.len()
    }

    /// Bytes held (tables and pool capacity).
    pub(crate) fn bytes_held(&self) -> usize {
        (self.top.capacity() + self.touched.capacity() + self.tables.capacity()) * 4
            + self.pool.capacity() * size_of::<R>()
    }

    /// (block, page within the block, node within the page) of (x, y, z).
    #[inline(always)]
    fn place(&self, x: u32, y: u32, z: u32) -> (usize, usize, usize) {
        let s = PAGE_SHIFT + BLOCK_SHIFT;
        let [dx, dy, _] = self.blocks_dim;
        let block = ((x >> s) + dx * ((y >> s) + dy * (z >> s))) as usize;
        let (px, py, pz) = (x >> PAGE_SHIFT, y >> PAGE_SHIFT, z >> PAGE_SHIFT);
        let page = ((px & BLOCK_MASK)
            | ((py & BLOCK_MASK) << BLOCK_SHIFT)
            | ((pz & BLOCK_MASK) << (2 * BLOCK_SHIFT))) as usize;
        let node = ((x & PAGE_MASK)
            | ((y & PAGE_MASK) << PAGE_SHIFT)
            | ((z & PAGE_MASK) << (2 * PAGE_SHIFT))) as usize;
        (block, page, node)
    }

    /// The record of (x, y, z) (the default when its page is untouched or it lies outside).
    #[inline(always)]
    pub(crate) fn get(&self, x: u32, y: u32, z: u32) -> R {
        let (b, p, n) = self.place(x, y, z);
        let Some(&t) = self.top.get(b) else {
            return R::default();
        };
        if t == NONE {
            return R::default();
        }
        match self.tables.get(t as usize * BLOCK_PAGES + p) {
            Some(&q) if q != NONE => self.pool[q as usize * PAGE_NODES + n],
            _ => R::default(),
        }
    }

    /// The record of (x, y, z), its block table and page taken if needed; the caller
    /// passes a node inside the box (`None` when its block is not).
    #[inline(always)]
    pub(crate) fn get_mut(&mut self, x: u32, y: u32, z: u32) -> Option<&mut R> {
        let (_, _, n) = self.place(x, y, z);
        let base = self.take_page(x, y, z)?;
        self.pool.get_mut(base + n)
    }

    /// The pool offset (in records) of the page holding (x, y, z), its block table and
    /// page taken if needed: one walk of the tables. `None` when its block lies outside.
    #[inline(always)]
    fn take_page(&mut self, x: u32, y: u32, z: u32) -> Option<usize> {
        let (b, p, _) = self.place(x, y, z);
        let mut t = *self.top.get(b)?;
        if t == NONE {
            t = (self.tables.len() / BLOCK_PAGES) as u32;
            self.top[b] = t;
            self.touched.push(b as u32);
            self.tables.resize(self.tables.len() + BLOCK_PAGES, NONE);
        }
        let slot = t as usize * BLOCK_PAGES + p;
        let mut q = *self.tables.get(slot)?;
        if q == NONE {
            q = (self.pool.len() / PAGE_NODES) as u32;
            self.tables[slot] = q;
            self.pool.resize(self.pool.len() + PAGE_NODES, R::default());
        }
        Some(q as usize * PAGE_NODES)
    }
}

/// Per axis and offset d + 1 (d in −1..=1), the cells `(dx + 1) + 3·(dy + 1) + 9·(dz + 1)`
/// of a 3 × 3 × 3 neighbourhood whose offset on that axis is d.
const PLANES: [[u32; 3]; 3] = {
    let mut out = [[0u32; 3]; 3];
    let mut c = 0;
    while c < 27 {
        out[0][c % 3] |= 1 << c;
        out[1][(c / 3) % 3] |= 1 << c;
        out[2][c / 9] |= 1 << c;
        c += 1;
    }
    out
};

/// The pages around a node: the (up to) 2 × 2 × 2 pages holding its 3 × 3 × 3
/// neighbourhood, taken, so each neighbour's record is one index away.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PageGroup {
    /// Page coordinates of the neighbourhood's lowest corner.
    low: [u32; 3],
    /// Pool offsets (in records) of the pages, bit 0 = x high, bit 1 = y, bit 2 = z;
    /// `usize::MAX` for a page outside the box.
    base: [usize; 8],
}

impl<R: Copy + Default> PagedRecords<R> {
    /// The pages around (x, y, z) (inside the box), taken.
    #[inline]
    #[cfg(test)]
    pub(crate) fn group(&mut self, x: u32, y: u32, z: u32) -> PageGroup {
        self.group_of(x, y, z, u8::MAX)
    }

    /// Which of the pages of (x, y, z)'s group holds its neighbour (x, y, z) + d (a bit
    /// for the `wanted` mask of [`PagedRecords::group_of`]; the reference of
    /// [`PagedRecords::wanted_pages`]).
    #[cfg(test)]
    pub(crate) fn corner_bit(x: u32, y: u32, z: u32, d: [i8; 3]) -> u8 {
        let mut k = 0;
        for (a, v) in [x, y, z].into_iter().enumerate() {
            let low = v.saturating_sub(1) >> PAGE_SHIFT;
            k |= u8::from(v.wrapping_add_signed(i32::from(d[a])) >> PAGE_SHIFT != low) << a;
        }
        1 << k
    }

    /// The `wanted` mask of [`PagedRecords::group_of`] for the neighbours of (x, y, z)
    /// whose bits are set in `cells` (bit `(dx + 1) + 3·(dy + 1) + 9·(dz + 1)` for the
    /// neighbour (x + dx, y + dy, z + dz)): the union of their
    /// [`PagedRecords::corner_bit`]s, without a loop over the neighbours. Per axis, the
    /// offsets whose coordinate leaves the group's low page give a mask of the
    /// neighbourhood's planes on the high side; a page is wanted when `cells` meets the
    /// intersection of its three sides.
    #[inline(always)]
    pub(crate) fn wanted_pages(x: u32, y: u32, z: u32, cells: u32) -> u8 {
        // Per axis, the high side depends on the coordinate modulo 4 (the lowest page is
        // that of v − 1): v ≡ 0 — offsets 0 and +1 (v > 0), v ≡ 3 (the mask) — offset +1, else none;
        // at v = 0 the lowest page is v's own and offset −1 wraps to the high side.
        let high_side = |v: u32, a: usize| {
            let planes = &PLANES[a];
            match (v, v & PAGE_MASK) {
                (0, _) => planes[0],
                (_, 0) => planes[1] | planes[2],
                (_, PAGE_MASK) => planes[2],
                _ => 0,
            }
        };
        let all = (1u32 << 27) - 1;
        let (hx, hy, hz) = (high_side(x, 0), high_side(y, 1), high_side(z, 2));
        let (x0, x1) = (cells & !hx, cells & hx);
        let (y0, y1) = (all & !hy, hy);
        let (z0, z1) = (all & !hz, hz);
        let pages = [
            x0 & y0 & z0,
            x1 & y0 & z0,
            x0 & y1 & z0,
            x1 & y1 & z0,
            x0 & y0 & z1,
            x1 & y0 & z1,
            x0 & y1 & z1,
            x1 & y1 & z1,
        ];
        let mut wanted = 0u8;
        for (k, page) in pages.into_iter().enumerate() {
            wanted |= u8::from(page != 0) << k;
        }
        wanted
    }

    /// [`PagedRecords::group`], taking only the pages whose bit is set in `wanted` (bit k
    /// for page k: bit 0 of k = x high, bit 1 = y, bit 2 = z); the others read as outside.
    /// One table walk per wanted page, none for the pages the last group of the same
    /// lowest page already found (a page's place in the pool does not change until the
    /// next reset, and with the same lowest page, page k of the group is the same page
    /// whenever the neighbourhood spans it: the neighbourhood spans at most two pages
    /// per axis).
    #[inline]
    pub(crate) fn group_of(&mut self, x: u32, y: u32, z: u32, wanted: u8) -> PageGroup {
        let low = [
            x.saturating_sub(1) >> PAGE_SHIFT,
            y.saturating_sub(1) >> PAGE_SHIFT,
            z.saturating_sub(1) >> PAGE_SHIFT,
        ];
        if low != self.last.low {
            self.last = PageGroup {
                low,
                base: [usize::MAX; 8],
            };
            self.last_known = 0;
        }
        let mut base = self.last.base;
        let mut known = self.last_known;
        let high = [
            (x + 1) >> PAGE_SHIFT,
            (y + 1) >> PAGE_SHIFT,
            (z + 1) >> PAGE_SHIFT,
        ];
        // The pages the neighbourhood spans: an axis bit only where it crosses a page.
        let crosses = u32::from(high[0] != low[0])
            | u32::from(high[1] != low[1]) << 1
            | u32::from(high[2] != low[2]) << 2;
        let mut rest = u32::from(wanted & !known);
        while rest != 0 {
            let k = rest.trailing_zeros();
            rest &= rest - 1;
            if k & !crosses != 0 {
                continue;
            }
            known |= 1 << k;
            let pick = |a: usize| (if k >> a & 1 == 1 { high[a] } else { low[a] }) << PAGE_SHIFT;
            let (cx, cy, cz) = (pick(0), pick(1), pick(2));
            // A page of the box (its lowest node inside) is taken; others are MAX.
            let inside = cx < self.size[0] && cy < self.size[1] && cz < self.size[2];
            let taken = if inside {
                self.take_page(cx, cy, cz)
            } else {
                None
            };
            if let Some(slot) = base.get_mut(k as usize) {
                *slot = taken.unwrap_or(usize::MAX);
            }
        }
        self.last = PageGroup { low, base };
        self.last_known = known;
        self.last
    }

    /// [`PagedRecords::get_mut`] for a node inside the box, without the table walk when
    /// its page is one the last group found (an expansion pops, mostly, a neighbour of
    /// the voxel expanded before it).
    #[inline(always)]
    pub(crate) fn get_mut_near(&mut self, x: u32, y: u32, z: u32) -> Option<&mut R> {
        let [lx, ly, lz] = self.last.low;
        let (dx, dy, dz) = (
            (x >> PAGE_SHIFT).wrapping_sub(lx),
            (y >> PAGE_SHIFT).wrapping_sub(ly),
            (z >> PAGE_SHIFT).wrapping_sub(lz),
        );
        if dx | dy | dz <= 1 {
            let k = (dx | dy << 1 | dz << 2) as usize;
            let base = self.last.base[k];
            if self.last_known >> k & 1 == 1 && base != usize::MAX {
                let within = ((x & PAGE_MASK)
                    | ((y & PAGE_MASK) << PAGE_SHIFT)
                    | ((z & PAGE_MASK) << (2 * PAGE_SHIFT))) as usize;
                return self.pool.get_mut(base + within);
            }
        }
        self.get_mut(x, y, z)
    }

    /// The record of (x, y, z), a node of `group`'s neighbourhood inside the box.
    #[inline(always)]
    pub(crate) fn in_group(&mut self, group: &PageGroup, x: u32, y: u32, z: u32) -> Option<&mut R> {
        let k = usize::from(x >> PAGE_SHIFT != group.low[0])
            | usize::from(y >> PAGE_SHIFT != group.low[1]) << 1
            | usize::from(z >> PAGE_SHIFT != group.low[2]) << 2;
        let base = group.base[k];
        let within = ((x & PAGE_MASK)
            | ((y & PAGE_MASK) << PAGE_SHIFT)
            | ((z & PAGE_MASK) << (2 * PAGE_SHIFT))) as usize;
        // A page outside the box has base `usize::MAX`: the checked add makes its voxels no
        // record at all instead of wrapping to another page's.
        base.checked_add(within).and_then(|i| self.pool.get_mut(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_live_in_pages_taken_on_first_write_and_forgotten_by_reset() {
        let mut r = PagedRecords::<u32>::default();
        r.reset([70, 9, 40]);
        assert_eq!(r.get(3, 3, 3), 0);
        *r.get_mut(3, 3, 3).unwrap() = 7;
        *r.get_mut(0, 0, 0).unwrap() = 5; // same page
        *r.get_mut(69, 8, 39).unwrap() = 9; // the last page of the last block
        *r.get_mut(4, 3, 3).unwrap() = 2; // the next page of the first block
        assert_eq!(
            (
                r.get(3, 3, 3),
                r.get(0, 0, 0),
                r.get(69, 8, 39),
                r.get(4, 3, 3)
            ),
            (7, 5, 9, 2)
        );
        assert_eq!((r.get(5, 3, 3), r.get(68, 8, 39)), (0, 0));
        assert_eq!(r.pages_taken(), 3);
        let held = r.bytes_held();
        r.reset([70, 9, 40]);
        assert_eq!(
            (r.get(3, 3, 3), r.get(69, 8, 39), r.pages_taken()),
            (0, 0, 0)
        );
        *r.get_mut(69, 8, 39).unwrap() = 1;
        assert_eq!(r.get(69, 8, 39), 1);
        // The pools are reused: no growth for a search touching fewer pages.
        assert_eq!(r.bytes_held(), held);
    }

    #[test]
    fn a_page_group_reaches_every_neighbour_as_get_mut_does() {
        // Page faces, and block faces (every 32 nodes) on every axis.
        group_matches_get_mut([9, 6, 13]);
        group_matches_get_mut([37, 34, 35]);
    }

    fn group_matches_get_mut(size: [u32; 3]) {
        let mut r = PagedRecords::<u32>::default();
        r.reset(size);
        let mut n = 0;
        for z in 0..size[2] {
            for y in 0..size[1] {
                for x in 0..size[0] {
                    n += 1;
                    *r.get_mut(x, y, z).unwrap() = n;
                }
            }
        }
        for z in 0..size[2] {
            for y in 0..size[1] {
                for x in 0..size[0] {
                    let group = r.group(x, y, z);
                    for dz in -1i32..=1 {
                        for dy in -1i32..=1 {
                            for dx in -1i32..=1 {
                                let (nx, ny, nz) = (x as i32 + dx, y as i32 + dy, z as i32 + dz);
                                let inside = nx >= 0
                                    && ny >= 0
                                    && nz >= 0
                                    && (nx as u32) < size[0]
                                    && (ny as u32) < size[1]
                                    && (nz as u32) < size[2];
                                if !inside {
                                    continue;
                                }
                                let (nx, ny, nz) = (nx as u32, ny as u32, nz as u32);
                                let want = r.get(nx, ny, nz);
                                assert_eq!(r.in_group(&group, nx, ny, nz).copied(), Some(want));
                                assert_eq!(r.get_mut_near(nx, ny, nz).copied(), Some(want));
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_last_group_is_forgotten_by_reset() {
        let mut r = PagedRecords::<u32>::default();
        r.reset([20, 20, 20]);
        *r.get_mut(5, 5, 5).unwrap() = 3;
        let _ = r.group(5, 5, 5);
        assert_eq!(r.get_mut_near(6, 6, 6).copied(), Some(0));
        assert_eq!(r.get_mut_near(5, 5, 5).copied(), Some(3));
        r.reset([20, 20, 20]);
        // The same lowest page as before the reset: the pages are taken again, empty.
        assert_eq!(r.get_mut_near(5, 5, 5).copied(), Some(0));
        let group = r.group(5, 5, 5);
        assert_eq!(r.in_group(&group, 4, 4, 4).copied(), Some(0));
        *r.in_group(&group, 4, 4, 4).unwrap() = 8;
        assert_eq!((r.get(4, 4, 4), r.get(5, 5, 5)), (8, 0));
        // Far from the last group: the table walk.
        assert_eq!(r.get_mut_near(19, 0, 19).copied(), Some(0));
    }

    #[test]
    fn a_page_of_the_group_outside_the_box_holds_no_record() {
        // Pages of 4: the group of (7, 7, 7) spans pages 1 and 2 on each axis, and page 2
        // (coordinates 8..11) lies outside the 8-voxel box. Its voxels must read as no
        // record, never as another page's (a wrapped index would land in page 1's records).
        let mut r = PagedRecords::<u32>::default();
        r.reset([8, 8, 8]);
        for z in 4..8 {
            for y in 4..8 {
                for x in 4..8 {
                    *r.get_mut(x, y, z).unwrap() = 1 + x + 8 * y + 64 * z;
                }
            }
        }
        let group = r.group(7, 7, 7);
        assert_eq!(r.in_group(&group, 7, 7, 7).copied(), Some(1 + 7 + 56 + 448));
        assert_eq!(r.in_group(&group, 8, 7, 7).copied(), None);
        assert_eq!(r.in_group(&group, 7, 8, 7).copied(), None);
        assert_eq!(r.in_group(&group, 8, 8, 8).copied(), None);
    }

    #[test]
    fn wanted_pages_is_the_union_of_the_corner_bits() {
        // Coordinates around page faces (0, 3, 4, 5, 7, 8) and far from them, every cell
        // alone and a few mixtures.
        let coords = [0u32, 1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 32, 33];
        let mixtures = [
            0u32,
            (1 << 27) - 1,
            0x0155_5555,
            0x02aa_aaaa,
            0x0000_1ff0,
            0x07fc_0001,
        ];
        let mut checked = 0;
        for &z in &coords {
            for &y in &coords {
                for &x in &coords {
                    let cells = (0..27).map(|c| 1u32 << c).chain(mixtures);
                    for cells in cells {
                        let mut want = 0u8;
                        for c in 0..27i8 {
                            if cells >> c & 1 == 1 {
                                let d = [c % 3 - 1, (c / 3) % 3 - 1, c / 9 - 1];
                                want |= PagedRecords::<u32>::corner_bit(x, y, z, d);
                            }
                        }
                        let got = PagedRecords::<u32>::wanted_pages(x, y, z, cells);
                        assert_eq!(got, want, "({x}, {y}, {z}) cells {cells:#x}");
                        checked += u32::from(want != 0);
                    }
                }
            }
        }
        // Every coordinate triple has non-empty masks (each lone cell sets one bit).
        assert!(checked > 13 * 13 * 13 * 27);
    }
}
