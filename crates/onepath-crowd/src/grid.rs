//! The uniform proximity grid the neighbour search reads: agents registered by the cells
//! their bounds cover; a query returns the agents of the cells a box covers. The crowd sorts
//! what it reads (by distance, then id), so the grid's own order never reaches a result.

/// A uniform grid of square cells over X/Z, rebuilt every update.
#[derive(Debug, Clone)]
pub(crate) struct ProximityGrid {
    inv_cell: f64,
    /// (cell x, cell z, agent index) of every registration, sorted after the build.
    items: Vec<(i32, i32, u32)>,
}

impl ProximityGrid {
    pub(crate) fn new(cell_size: f64) -> ProximityGrid {
        ProximityGrid {
            inv_cell: 1.0 / cell_size,
            items: Vec::new(),
        }
    }

    pub(crate) fn clear(&mut self) {
        self.items.clear();
    }

    fn cell(&self, v: f64) -> i32 {
        // Positions pass the mesh's coordinate rule (±2^21), so the cell fits an i32.
        (v * self.inv_cell).floor() as i32
    }

    /// Registers agent `index` over the box `(min_x, min_z) .. (max_x, max_z)`.
    pub(crate) fn add(&mut self, index: u32, min_x: f64, min_z: f64, max_x: f64, max_z: f64) {
        let (x0, z0, x1, z1) = (
            self.cell(min_x),
            self.cell(min_z),
            self.cell(max_x),
            self.cell(max_z),
        );
        for z in z0..=z1 {
            for x in x0..=x1 {
                self.items.push((x, z, index));
            }
        }
    }

    /// Sorts the registrations so that queries can binary-search them.
    pub(crate) fn finish(&mut self) {
        self.items.sort_unstable();
    }

    /// Writes into `out` (cleared first) each agent registered in a cell the box covers,
    /// once, ascending by index.
    pub(crate) fn query(&self, min_x: f64, min_z: f64, max_x: f64, max_z: f64, out: &mut Vec<u32>) {
        out.clear();
        let (x0, z0, x1, z1) = (
            self.cell(min_x),
            self.cell(min_z),
            self.cell(max_x),
            self.cell(max_z),
        );
        for z in z0..=z1 {
            for x in x0..=x1 {
                let from = self.items.partition_point(|&(ix, iz, _)| (ix, iz) < (x, z));
                for &(ix, iz, i) in &self.items[from..] {
                    if (ix, iz) != (x, z) {
                        break;
                    }
                    out.push(i);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_finds_the_agents_of_the_covered_cells_once() {
        let mut g = ProximityGrid::new(1.0);
        g.add(3, 0.2, 0.2, 1.4, 0.4);
        g.add(1, 5.0, 5.0, 5.5, 5.5);
        g.add(2, -0.5, -0.5, 0.1, 0.1);
        g.finish();
        let mut out = Vec::new();
        g.query(0.0, 0.0, 1.9, 0.9, &mut out);
        assert_eq!(out, vec![2, 3]);
        g.query(4.5, 4.5, 4.9, 4.9, &mut out);
        assert_eq!(out, Vec::<u32>::new());
    }
}
