//! The uniform proximity grid the neighbour search reads: each agent is registered in the
//! cell of its centre (a counting sort into a dense block of cells over the agents'
//! bounding box, rebuilt every update); a query returns the agents of the cells a box
//! covers, the box first widened by the largest radius. The crowd sorts what it reads (by
//! distance, then index), so the grid's order never reaches a result.

/// Cells of the dense block at most: four per agent, at least 256, at most 2^20 (the cell
/// size doubles from three radii until the block fits; the size changes how many agents a
/// query reads, never which ones it returns after the distance test).
const MAX_CELLS: usize = 1 << 20;

fn cell_limit(agents: usize) -> u64 {
    agents.saturating_mul(4).clamp(256, MAX_CELLS) as u64
}

/// A uniform grid of square cells over X/Z.
#[derive(Debug, Clone)]
pub(crate) struct ProximityGrid {
    base_cell: f64,
    inv_cell: f64,
    /// Largest radius registered (queries widen by it).
    pad: f64,
    /// The block: first cell column and row, width and height in cells.
    x0: i64,
    z0: i64,
    w: usize,
    h: usize,
    /// `starts[c]..starts[c + 1]` are the items of cell `c` (row-major).
    starts: Vec<u32>,
    items: Vec<u32>,
    fill: Vec<u32>,
    /// (index, x, z, radius) of the registrations before the build.
    pending: Vec<(u32, f64, f64, f64)>,
}

impl ProximityGrid {
    pub(crate) fn new(cell_size: f64) -> ProximityGrid {
        ProximityGrid {
            base_cell: cell_size,
            inv_cell: 1.0 / cell_size,
            pad: 0.0,
            x0: 0,
            z0: 0,
            w: 0,
            h: 0,
            starts: Vec::new(),
            items: Vec::new(),
            fill: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// The base cell size (the grid's one input; its contents are rebuilt every update).
    pub(crate) fn cell_size(&self) -> f64 {
        self.base_cell
    }

    pub(crate) fn clear(&mut self) {
        self.pending.clear();
        self.items.clear();
        self.starts.clear();
        self.w = 0;
        self.h = 0;
        self.pad = 0.0;
    }

    fn cell(&self, v: f64) -> i64 {
        // Positions pass the mesh's coordinate rule (±2^21), so the cell fits an i64 and
        // `x` converts to an integer exactly: truncation, one down below zero, is `floor`
        // (without a call to the `floor` routine, which the baseline x86-64 target makes).
        let x = v * self.inv_cell;
        let t = x as i64;
        if (t as f64) > x {
            t.saturating_sub(1)
        } else {
            t
        }
    }

    /// Registers agent `index` at (x, z) with `radius`.
    pub(crate) fn add(&mut self, index: u32, x: f64, z: f64, radius: f64) {
        self.pending.push((index, x, z, radius));
    }

    /// Builds the block from the registrations.
    pub(crate) fn finish(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut cell = self.base_cell;
        loop {
            self.inv_cell = 1.0 / cell;
            let (mut x0, mut z0, mut x1, mut z1) = (i64::MAX, i64::MAX, i64::MIN, i64::MIN);
            for &(_, x, z, _) in &self.pending {
                let (cx, cz) = (self.cell(x), self.cell(z));
                x0 = x0.min(cx);
                z0 = z0.min(cz);
                x1 = x1.max(cx);
                z1 = z1.max(cz);
            }
            let (w, h) = ((x1 - x0 + 1) as u64, (z1 - z0 + 1) as u64);
            if w.saturating_mul(h) <= cell_limit(self.pending.len()) {
                (self.x0, self.z0, self.w, self.h) = (x0, z0, w as usize, h as usize);
                break;
            }
            cell *= 2.0;
        }
        let n = self.w * self.h;
        self.starts.clear();
        self.starts.resize(n + 1, 0);
        let slot = |g: &ProximityGrid, x: f64, z: f64| {
            ((g.cell(z) - g.z0) as usize) * g.w + (g.cell(x) - g.x0) as usize
        };
        for k in 0..self.pending.len() {
            let (_, x, z, r) = self.pending[k];
            let c = slot(self, x, z);
            self.starts[c + 1] += 1;
            self.pad = self.pad.max(r);
        }
        for c in 0..n {
            self.starts[c + 1] += self.starts[c];
        }
        self.items.clear();
        self.items.resize(self.pending.len(), 0);
        let mut fill = std::mem::take(&mut self.fill);
        fill.clear();
        fill.extend_from_slice(&self.starts);
        for &(i, x, z, _) in &self.pending {
            let c = slot(self, x, z);
            self.items[fill[c] as usize] = i;
            fill[c] += 1;
        }
        self.fill = fill;
    }

    /// Calls `f` with each agent whose centre lies in a cell that the box
    /// `(min_x, min_z) .. (max_x, max_z)` widened by the largest radius covers, once each.
    pub(crate) fn query(
        &self,
        min_x: f64,
        min_z: f64,
        max_x: f64,
        max_z: f64,
        mut f: impl FnMut(u32),
    ) {
        if self.w == 0 {
            return;
        }
        let p = self.pad;
        // Saturating: a huge radius or range reaches the ends of the i64 cells.
        let cx0 = self.cell(min_x - p).saturating_sub(self.x0).max(0);
        let cz0 = self.cell(min_z - p).saturating_sub(self.z0).max(0);
        let cx1 = self
            .cell(max_x + p)
            .saturating_sub(self.x0)
            .min(self.w as i64 - 1);
        let cz1 = self
            .cell(max_z + p)
            .saturating_sub(self.z0)
            .min(self.h as i64 - 1);
        if cx0 > cx1 || cz0 > cz1 {
            return;
        }
        for z in cz0 as usize..=cz1 as usize {
            let row = z * self.w;
            let (a, b) = (
                self.starts[row + cx0 as usize] as usize,
                self.starts[row + cx1 as usize + 1] as usize,
            );
            for &i in &self.items[a..b] {
                f(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(g: &ProximityGrid, b: [f64; 4]) -> Vec<u32> {
        let mut out = Vec::new();
        g.query(b[0], b[1], b[2], b[3], |i| out.push(i));
        out.sort_unstable();
        out
    }

    #[test]
    fn a_query_finds_the_agents_of_the_covered_cells_once() {
        let mut g = ProximityGrid::new(1.0);
        g.add(3, 0.8, 0.3, 0.2);
        g.add(1, 5.2, 5.2, 0.2);
        g.add(2, -0.2, -0.2, 0.2);
        g.finish();
        assert_eq!(collect(&g, [0.0, 0.0, 1.9, 0.9]), vec![2, 3]);
        assert_eq!(collect(&g, [8.5, 8.5, 9.9, 9.9]), Vec::<u32>::new());
        assert_eq!(collect(&g, [-100.0, -100.0, 100.0, 100.0]), vec![1, 2, 3]);
    }

    #[test]
    fn a_cell_is_the_floor_of_the_scaled_coordinate() {
        for cell in [1.5, 1.0, 0.3, 3.0e-7] {
            let g = ProximityGrid::new(cell);
            for v in [
                0.0,
                -0.0,
                1.5,
                -1.5,
                0.1,
                -0.1,
                4.5,
                -4.5,
                2.0e6,
                -2.0e6,
                1.0e300,
                -1.0e300,
                f64::MIN_POSITIVE,
                -f64::MIN_POSITIVE,
                3.0 - f64::EPSILON,
                -3.0 + f64::EPSILON,
            ] {
                let want = (v * g.inv_cell).floor() as i64;
                assert_eq!(g.cell(v), want, "cell {cell}, v {v}");
            }
        }
    }

    #[test]
    fn far_apart_agents_coarsen_the_cells_and_are_still_found() {
        let mut g = ProximityGrid::new(1.0);
        g.add(0, 0.0, 0.0, 0.5);
        g.add(1, 1.0e6, 1.0e6, 0.5);
        g.finish();
        assert!(g.w * g.h <= MAX_CELLS);
        assert_eq!(collect(&g, [-1.0, -1.0, 1.0, 1.0]), vec![0]);
        assert_eq!(
            collect(&g, [1.0e6 - 1.0, 1.0e6 - 1.0, 1.0e6, 1.0e6]),
            vec![1]
        );
    }
}
