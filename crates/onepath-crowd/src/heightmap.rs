//! [`Heightmap`]: a host-owned height layer that agents with heightmap grounding
//! ([`crate::HeightmapGrounding`]) put their feet on, registered by name on the
//! [`WorldContext`](crate::WorldContext) (`docs/crowd.md`, "Heightmap grounding").
//!
//! A heightmap is a world resource, never agent state: records and snapshots name a layer
//! by its [`LayerName`] and never carry its samples (the navigator serialization text:
//! heightmap samples are host/context-owned).

use onepath_format::COORD_BOUND;

use crate::error::CrowdError;

/// The longest layer name, in bytes of UTF-8.
pub const MAX_LAYER_NAME: usize = 32;

/// The name of a heightmap layer: 1 to [`MAX_LAYER_NAME`] bytes of UTF-8, held inline so
/// that the navigator stays a plain value (`Copy`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LayerName {
    len: u8,
    bytes: [u8; MAX_LAYER_NAME],
}

impl LayerName {
    /// The name `name`; [`CrowdError::InvalidLayerName`] when it is empty or longer than
    /// [`MAX_LAYER_NAME`] bytes.
    pub fn new(name: &str) -> Result<LayerName, CrowdError> {
        let b = name.as_bytes();
        if b.is_empty() || b.len() > MAX_LAYER_NAME {
            return Err(CrowdError::InvalidLayerName {
                name: name.to_owned(),
                rule: "1 to 32 bytes of UTF-8",
            });
        }
        let mut bytes = [0u8; MAX_LAYER_NAME];
        bytes[..b.len()].copy_from_slice(b);
        Ok(LayerName {
            len: b.len() as u8,
            bytes,
        })
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        // Built from a `&str` only, so the bytes are UTF-8; an empty name is never built.
        core::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl core::fmt::Debug for LayerName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl core::fmt::Display for LayerName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A regular grid of ground heights over the world's X/Z plane: sample (column `c`, row
/// `r`) is the ground's Y at `(origin_x + c × cell, origin_z + r × cell)`, stored row
/// after row (index `r × columns + c`).
///
/// Between samples the height is bilinear ([`Heightmap::height_at`]); outside the grid
/// there is none. The sampling uses `+ − × ÷ floor` only, in a fixed order, so the same
/// point gives the same height to the bit on every platform.
#[derive(Debug, Clone, PartialEq)]
pub struct Heightmap {
    origin: [f64; 2],
    cell_size: f64,
    columns: u32,
    rows: u32,
    samples: Vec<f32>,
}

fn invalid(what: &'static str, index: usize, value: f64, rule: &'static str) -> CrowdError {
    CrowdError::InvalidHeightmap {
        what,
        index,
        value,
        rule,
    }
}

impl Heightmap {
    /// A heightmap of `columns × rows` samples (row after row) whose first sample lies at
    /// `origin` (world X, Z), `cell_size` apart.
    ///
    /// [`CrowdError::InvalidHeightmap`] names the value that breaks a rule: the origin
    /// (finite, within ±2^21), the cell size (finite, > 0), the columns and rows (at least
    /// 2 each), the sample count (columns × rows) or a sample (finite; its index).
    pub fn new(
        origin: [f64; 2],
        cell_size: f64,
        columns: u32,
        rows: u32,
        samples: Vec<f32>,
    ) -> Result<Heightmap, CrowdError> {
        for (axis, &o) in origin.iter().enumerate() {
            if !(o.is_finite() && o.abs() < COORD_BOUND) {
                return Err(invalid("origin", axis, o, "finite and within ±2^21"));
            }
        }
        if !(cell_size.is_finite() && cell_size > 0.0) {
            return Err(invalid("cell size", 0, cell_size, "finite and > 0"));
        }
        if columns < 2 {
            return Err(invalid("columns", 0, f64::from(columns), "at least 2"));
        }
        if rows < 2 {
            return Err(invalid("rows", 0, f64::from(rows), "at least 2"));
        }
        let want = (columns as usize).checked_mul(rows as usize);
        if want != Some(samples.len()) {
            return Err(invalid(
                "sample count",
                0,
                samples.len() as f64,
                "columns × rows",
            ));
        }
        if let Some((i, &s)) = samples.iter().enumerate().find(|(_, s)| !s.is_finite()) {
            return Err(invalid("sample", i, f64::from(s), "finite"));
        }
        Ok(Heightmap {
            origin,
            cell_size,
            columns,
            rows,
            samples,
        })
    }

    /// World X, Z of sample (0, 0).
    pub fn origin(&self) -> [f64; 2] {
        self.origin
    }

    /// Distance between neighbouring samples.
    pub fn cell_size(&self) -> f64 {
        self.cell_size
    }

    /// Samples per row (along X).
    pub fn columns(&self) -> u32 {
        self.columns
    }

    /// Rows (along Z).
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// The samples, row after row.
    pub fn samples(&self) -> &[f32] {
        &self.samples
    }

    /// The ground height at world `(x, z)`: bilinear between the four samples of the cell
    /// the point lies in (`fx = (x − origin_x) ÷ cell`, column `i = min(floor(fx),
    /// columns − 2)`, `t = fx − i`, likewise `fz`, `j`, `u`; `a = h(i, j) + (h(i+1, j) −
    /// h(i, j)) × t`, `b` the same on row `j + 1`, height `a + (b − a) × u`). `None`
    /// outside `[0, columns − 1] × [0, rows − 1]` cells (edges included) or for a point
    /// that is not finite.
    pub fn height_at(&self, x: f64, z: f64) -> Option<f64> {
        let fx = (x - self.origin[0]) / self.cell_size;
        let fz = (z - self.origin[1]) / self.cell_size;
        let (cols, rows) = (f64::from(self.columns - 1), f64::from(self.rows - 1));
        // Written so that NaN fails both tests.
        if !(fx >= 0.0 && fx <= cols && fz >= 0.0 && fz <= rows) {
            return None;
        }
        let i = (fx.floor() as u32).min(self.columns - 2);
        let j = (fz.floor() as u32).min(self.rows - 2);
        let t = fx - f64::from(i);
        let u = fz - f64::from(j);
        let w = self.columns as usize;
        let at = |c: u32, r: u32| f64::from(self.samples[r as usize * w + c as usize]);
        let (h00, h10) = (at(i, j), at(i + 1, j));
        let (h01, h11) = (at(i, j + 1), at(i + 1, j + 1));
        let a = h00 + (h10 - h00) * t;
        let b = h01 + (h11 - h01) * t;
        Some(a + (b - a) * u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp() -> Heightmap {
        // 3 × 2 samples, one unit apart from (10, 20): height = x − 10 (a 45° ramp along X).
        Heightmap::new([10.0, 20.0], 1.0, 3, 2, vec![0.0, 1.0, 2.0, 0.0, 1.0, 2.0]).unwrap()
    }

    #[test]
    fn bilinear_between_samples_and_none_outside() {
        let h = ramp();
        assert_eq!(h.height_at(10.0, 20.0), Some(0.0));
        assert_eq!(h.height_at(11.25, 20.5), Some(1.25));
        assert_eq!(h.height_at(12.0, 21.0), Some(2.0));
        assert_eq!(h.height_at(12.001, 20.0), None);
        assert_eq!(h.height_at(9.999, 20.0), None);
        assert_eq!(h.height_at(11.0, 21.5), None);
        assert_eq!(h.height_at(f64::NAN, 20.0), None);
    }

    #[test]
    fn constructor_names_the_broken_value() {
        let bad = |r: Result<Heightmap, CrowdError>| match r {
            Err(CrowdError::InvalidHeightmap { what, index, .. }) => (what, index),
            other => panic!("expected InvalidHeightmap, got {other:?}"),
        };
        assert_eq!(
            bad(Heightmap::new([0.0; 2], 0.0, 2, 2, vec![0.0; 4])),
            ("cell size", 0)
        );
        assert_eq!(
            bad(Heightmap::new([0.0, f64::NAN], 1.0, 2, 2, vec![0.0; 4])),
            ("origin", 1)
        );
        assert_eq!(
            bad(Heightmap::new([0.0; 2], 1.0, 1, 2, vec![0.0; 2])),
            ("columns", 0)
        );
        assert_eq!(
            bad(Heightmap::new([0.0; 2], 1.0, 2, 2, vec![0.0; 3])),
            ("sample count", 0)
        );
        assert_eq!(
            bad(Heightmap::new(
                [0.0; 2],
                1.0,
                2,
                2,
                vec![0.0, 0.0, f32::INFINITY, 0.0]
            )),
            ("sample", 2)
        );
    }

    #[test]
    fn layer_names_are_one_to_32_bytes() {
        assert_eq!(LayerName::new("terrain").unwrap().as_str(), "terrain");
        assert!(matches!(
            LayerName::new(""),
            Err(CrowdError::InvalidLayerName { .. })
        ));
        assert!(LayerName::new(&"x".repeat(32)).is_ok());
        assert!(matches!(
            LayerName::new(&"x".repeat(33)),
            Err(CrowdError::InvalidLayerName { .. })
        ));
    }
}
