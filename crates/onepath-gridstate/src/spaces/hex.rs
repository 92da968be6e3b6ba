//! Hexagonal grids in offset coordinates and the view their searches read them through
//! (the searches: `searches/hex_search.rs`).
//!
//! Layouts (both "pointy-top" hexagons in rows, cell (x, y) in column x of row y):
//! - [`HexLayout::OddRowsRight`] ("odd-r"): odd rows are shifted half a cell east;
//! - [`HexLayout::EvenRowsRight`] ("even-r"): even rows are shifted half a cell east.
//!
//! Six neighbours, in the order E, W, then the two of the row above (north) west-first,
//! then the two of the row below (south) west-first. A move costs 1 × the entered cell's
//! area multiplier (or the cost hook); the estimate is the hex distance × the smallest
//! multiplier. Hex grids keep every other rule of [`Grid`] (areas, version, journal,
//! listeners): a [`HexGrid`] wraps one.

use crate::error::GridError;
use crate::searches::astar::SearchGraph;
use crate::searches::options::GridOptions;
use crate::spaces::area::WALL;
use crate::spaces::grid::{Grid, GridKind, ReadKind};

/// The offset layout of a [`HexGrid`] (saved as i32: 0 odd rows, 1 even rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum HexLayout {
    /// Odd rows shifted half a cell east ("odd-r").
    #[default]
    OddRowsRight = 0,
    /// Even rows shifted half a cell east ("even-r").
    EvenRowsRight = 1,
}

/// A hexagonal grid: a [`Grid`] of area bytes read with a hex layout.
#[derive(Debug, Clone)]
pub struct HexGrid {
    grid: Grid,
    layout: HexLayout,
}

impl HexGrid {
    /// `width × height` walkable hexes of area 0.
    pub fn new(width: u32, height: u32, layout: HexLayout) -> Result<Self, GridError> {
        Ok(HexGrid {
            grid: Grid::new(width, height)?,
            layout,
        })
    }

    /// The layout.
    pub fn layout(&self) -> HexLayout {
        self.layout
    }

    /// The underlying cells, areas, version, journal and listeners.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// Mutable access for edits (`set_area`, `set_area_cost`, listeners).
    pub fn grid_mut(&mut self) -> &mut Grid {
        &mut self.grid
    }

    /// The six neighbours of (x, y) that lie inside the grid, in the documented order.
    pub fn neighbours(&self, x: u32, y: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::with_capacity(6);
        for (dx, dy) in self.offsets(y) {
            let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
            if nx >= 0
                && ny >= 0
                && nx < i64::from(self.grid.width())
                && ny < i64::from(self.grid.height())
            {
                out.push((nx as u32, ny as u32));
            }
        }
        out
    }

    fn shifted(&self, y: u32) -> bool {
        match self.layout {
            HexLayout::OddRowsRight => y % 2 == 1,
            HexLayout::EvenRowsRight => y % 2 == 0,
        }
    }

    fn offsets(&self, y: u32) -> [(i64, i64); 6] {
        // A shifted row's diagonal neighbours are at x and x + 1; others at x − 1 and x.
        let (a, b) = if self.shifted(y) { (0, 1) } else { (-1, 0) };
        [(1, 0), (-1, 0), (a, -1), (b, -1), (a, 1), (b, 1)]
    }

    /// Cube coordinates of (x, y) (y ≥ 0), for distances.
    fn cube(&self, x: i64, y: i64) -> (i64, i64, i64) {
        let q = match self.layout {
            HexLayout::OddRowsRight => x - (y - (y & 1)) / 2,
            HexLayout::EvenRowsRight => x - (y + (y & 1)) / 2,
        };
        (q, y, -q - y)
    }

    /// The hex distance (number of moves on an open grid) between two cells.
    pub fn distance(&self, a: (u32, u32), b: (u32, u32)) -> u32 {
        let (aq, ar, as_) = self.cube(i64::from(a.0), i64::from(a.1));
        let (bq, br, bs) = self.cube(i64::from(b.0), i64::from(b.1));
        ((aq - bq).abs().max((ar - br).abs()).max((as_ - bs).abs())) as u32
    }
}

/// The generic engines' view of a hex grid under options.
pub(crate) struct HexView<'a> {
    hex: &'a HexGrid,
    options: &'a GridOptions,
    min_mult: f64,
}

impl<'a> HexView<'a> {
    pub(crate) fn new(hex: &'a HexGrid, options: &'a GridOptions) -> Self {
        HexView {
            hex,
            options,
            min_mult: hex.grid.areas().min_multiplier(),
        }
    }

    fn passable(&self, i: u32) -> bool {
        match self.hex.grid.cells().get(i as usize) {
            Some(&a) if a != WALL => self.options.passable_hook.as_ref().map_or(true, |h| h(i)),
            _ => false,
        }
    }

    fn moves(&self, node: u32, forward: bool, out: &mut Vec<(u32, f64)>) {
        if !self.passable(node) {
            return;
        }
        let (x, y) = self.hex.grid.xy(node);
        let w = self.hex.grid.width();
        for (nx, ny) in self.hex.neighbours(x, y) {
            let m = ny * w + nx;
            if !self.passable(m) {
                continue;
            }
            let (from, to) = if forward { (node, m) } else { (m, node) };
            let default = self
                .hex
                .grid
                .areas()
                .get(self.hex.grid.cells()[to as usize]);
            let cost = match &self.options.cost_hook {
                Some(h) => h(from, to, default),
                None => default,
            };
            if cost.is_finite() && cost >= 0.0 {
                out.push((m, cost));
            }
        }
    }
}

impl SearchGraph for HexView<'_> {
    fn node_count(&self) -> usize {
        self.hex.grid.cell_count()
    }

    fn is_passable(&self, node: u32) -> bool {
        self.passable(node)
    }

    fn successors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        self.moves(node, true, out)
    }

    fn predecessors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        self.moves(node, false, out)
    }

    fn adjacent(&self, node: u32, out: &mut Vec<u32>) {
        let (x, y) = self.hex.grid.xy(node);
        let w = self.hex.grid.width();
        out.extend(
            self.hex
                .neighbours(x, y)
                .into_iter()
                .map(|(nx, ny)| ny * w + nx),
        );
    }

    fn estimate(&self, from: u32, to: u32) -> f64 {
        if self.options.cost_hook.is_some() {
            return 0.0;
        }
        f64::from(
            self.hex
                .distance(self.hex.grid.xy(from), self.hex.grid.xy(to)),
        ) * self.min_mult
    }
}

/// Save and restore (OPGS kind 2, `docs/grid-state.md`).
impl HexGrid {
    /// The hex grid's state (kind 2): i32 width, height, layout, version, Space, Areas,
    /// cells.
    pub fn save_state(&self) -> Vec<u8> {
        self.grid.save_as(GridKind::Hex(self.layout))
    }

    /// A new hex grid from a saved state.
    pub fn from_state(bytes: &[u8]) -> Result<HexGrid, onepath_format::FormatError> {
        let (grid, layout) = Grid::from_state_as(bytes, ReadKind::AnyHex)?;
        Ok(HexGrid { grid, layout })
    }

    /// Restores a saved state in place (same width, height and layout); listeners are told
    /// each differing cell as for [`Grid::restore_state`]. Checked before anything changes.
    pub fn restore_state(&mut self, bytes: &[u8]) -> Result<(), onepath_format::FormatError> {
        self.grid.restore_as(bytes, GridKind::Hex(self.layout))
    }
}

pub(crate) fn layout_from_i32(v: i32) -> Option<HexLayout> {
    match v {
        0 => Some(HexLayout::OddRowsRight),
        1 => Some(HexLayout::EvenRowsRight),
        _ => None,
    }
}
