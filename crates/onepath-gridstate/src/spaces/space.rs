//! World placement of a grid: origin and cell size.

use crate::error::{invalid, GridError};

/// The largest |origin| and cell size a space accepts (2^21, as in the state format).
pub const SPACE_LIMIT: f64 = 2_097_152.0;

/// Where a grid lies in the world: cell (x, y) covers
/// `[origin_x + x*cell, origin_x + (x+1)*cell) × [origin_y + y*cell, ...)`.
///
/// All three zero is the unassigned default and behaves as unit cells at the origin.
/// Otherwise |origin| ≤ 2^21 and 0 < cell_size ≤ 2^21, all finite. A zero is stored as
/// +0.0 whichever sign it is given with, so one placement has one encoding (the state
/// readers refuse -0.0).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GridSpace {
    origin_x: f64,
    origin_y: f64,
    cell_size: f64,
}

/// The state readers' rule for the fields of a Space or VoxelSpace: no -0.0. A zero is
/// written +0.0; a -0.0 would read as the same placement and be written back as +0.0, so
/// one state would have two encodings (issue 22, item 6). The error names the field.
pub(crate) fn refuse_negative_zero(fields: &[(&'static str, f64)]) -> Result<(), GridError> {
    match fields
        .iter()
        .find(|(_, v)| *v == 0.0 && v.is_sign_negative())
    {
        Some(&(what, _)) => Err(invalid(
            what,
            "is -0.0; a zero is written +0.0 (one state, one encoding)",
        )),
        None => Ok(()),
    }
}

impl GridSpace {
    /// A checked space (a -0.0 origin coordinate is stored as +0.0).
    pub fn new(origin_x: f64, origin_y: f64, cell_size: f64) -> Result<Self, GridError> {
        if origin_x == 0.0 && origin_y == 0.0 && cell_size == 0.0 {
            return Ok(GridSpace::default());
        }
        // x + 0.0 is x for every x but -0.0, which becomes +0.0.
        let (origin_x, origin_y) = (origin_x + 0.0, origin_y + 0.0);
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
