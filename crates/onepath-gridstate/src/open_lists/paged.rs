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
    pub(crate) fn pages_taken(&self) -> usize {
        self.pool.len() / PAGE_NODES
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
        let (b, p, n) = self.place(x, y, z);
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
        self.pool.get_mut(q as usize * PAGE_NODES + n)
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
}
