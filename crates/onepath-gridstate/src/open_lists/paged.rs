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

/// The pages around a node: the (up to) 2 × 2 × 2 pages holding its 3 × 3 × 3
/// neighbourhood, taken, so each neighbour's record is one index away.
#[derive(Debug, Clone, Copy)]
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
    /// for the `wanted` mask of [`PagedRecords::group_of`]).
    #[inline(always)]
    pub(crate) fn corner_bit(x: u32, y: u32, z: u32, d: [i8; 3]) -> u8 {
        let mut k = 0;
        for (a, v) in [x, y, z].into_iter().enumerate() {
            let low = v.saturating_sub(1) >> PAGE_SHIFT;
            k |= u8::from(v.wrapping_add_signed(i32::from(d[a])) >> PAGE_SHIFT != low) << a;
        }
        1 << k
    }

    /// [`PagedRecords::group`], taking only the pages whose bit is set in `wanted` (bit k
    /// for page k: bit 0 of k = x high, bit 1 = y, bit 2 = z); the others read as outside.
    /// One table walk per wanted page.
    #[inline]
    pub(crate) fn group_of(&mut self, x: u32, y: u32, z: u32, wanted: u8) -> PageGroup {
        let low = [
            x.saturating_sub(1) >> PAGE_SHIFT,
            y.saturating_sub(1) >> PAGE_SHIFT,
            z.saturating_sub(1) >> PAGE_SHIFT,
        ];
        let high = [
            (x + 1) >> PAGE_SHIFT,
            (y + 1) >> PAGE_SHIFT,
            (z + 1) >> PAGE_SHIFT,
        ];
        // The pages the neighbourhood spans: an axis bit only where it crosses a page.
        let crosses = u32::from(high[0] != low[0])
            | u32::from(high[1] != low[1]) << 1
            | u32::from(high[2] != low[2]) << 2;
        let mut base = [usize::MAX; 8];
        let mut rest = u32::from(wanted);
        while rest != 0 {
            let k = rest.trailing_zeros();
            rest &= rest - 1;
            if k & !crosses != 0 {
                continue;
            }
            let pick = |a: usize| (if k >> a & 1 == 1 { high[a] } else { low[a] }) << PAGE_SHIFT;
            let (cx, cy, cz) = (pick(0), pick(1), pick(2));
            // A page of the box (its lowest node inside) is taken; others stay MAX.
            if cx < self.size[0] && cy < self.size[1] && cz < self.size[2] {
                if let (Some(b), Some(slot)) =
                    (self.take_page(cx, cy, cz), base.get_mut(k as usize))
                {
                    *slot = b;
                }
            }
        }
        PageGroup { low, base }
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
        self.pool.get_mut(base.wrapping_add(within))
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
        let size = [9u32, 6, 13];
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
                            }
                        }
                    }
                }
            }
        }
    }
}
