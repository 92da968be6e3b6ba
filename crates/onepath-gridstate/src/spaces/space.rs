//! World placement of a grid: origin and cell size.

use crate::error::{invalid, GridError};

/// The largest |origin| and cell size a space accepts (2^21, as in the state format).
pub const SPACE_LIMIT: f64 = 2_097_152.0;

/// Where a grid lies in the world: cell (x, y) covers
/// `[origin_x + x*cell, origin_x + (x+1)*cell) × [origin_y + y*cell, ...)`.
///
/// All three zero is the unassigned default and behaves as unit cells at the origin.
/// Otherwise |origin| ≤ 2^21 and 0 < cell_size ≤ 2^21, all finite.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GridSpace {
    origin_x: f64,
    origin_y: f64,
    cell_size: f64,
}

impl GridSpace {
    /// A checked space.
    pub fn new(origin_x: f64, origin_y: f64, cell_size: f64) -> Result<Self, GridError> {
        if origin_x == 0.0 && origin_y == 0.0 && cell_size == 0.0 {
            return Ok(GridSpace::default());
        }
        for (what, v) in [("origin x", origin_x), ("origin y", origin_y)] {
            if !(v.is_finite() && v.abs() <= SPACE_LIMIT) {
                return Err(invalid(what, format!("{v} is not finite with |v| <= 2^21")));
            }
        }
        if !(cell_size.is_finite() && cell_size > 0.0 && cell_size <= SPACE_LIMIT) {
            return Err(invalid(
                "cell size",
                format!("{cell_size} is not in (0, 2^21]"),
            ));
        }
        Ok(GridSpace {
            origin_x,
            origin_y,
            cell_size,
        })
    }

    /// Origin x.
    pub fn origin_x(&self) -> f64 {
        self.origin_x
    }

    /// Origin y.
    pub fn origin_y(&self) -> f64 {
        self.origin_y
    }

    /// The stored cell size (0 when unassigned).
    pub fn cell_size(&self) -> f64 {
        self.cell_size
    }

    /// The cell size in effect (1 when unassigned).
    pub fn effective_cell_size(&self) -> f64 {
        if self.cell_size == 0.0 {
            1.0
        } else {
            self.cell_size
        }
    }

    /// The world position of the centre of cell (x, y).
    pub fn cell_center(&self, x: u32, y: u32) -> (f64, f64) {
        let c = self.effective_cell_size();
        (
            self.origin_x + (f64::from(x) + 0.5) * c,
            self.origin_y + (f64::from(y) + 0.5) * c,
        )
    }

    /// The cell containing world point (wx, wy), if the coordinates are finite (the result
    /// may lie outside a grid; check it against the grid's size).
    pub fn cell_at(&self, wx: f64, wy: f64) -> Option<(i64, i64)> {
        let c = self.effective_cell_size();
        let fx = ((wx - self.origin_x) / c).floor();
        let fy = ((wy - self.origin_y) / c).floor();
        if !(fx.is_finite() && fy.is_finite()) || fx.abs() > 9.0e15 || fy.abs() > 9.0e15 {
            return None;
        }
        Some((fx as i64, fy as i64))
    }
}
