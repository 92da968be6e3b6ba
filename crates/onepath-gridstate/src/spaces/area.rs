//! Area multipliers: the cost factor of entering a cell of each area (0..=254; 255 is the wall).

use crate::error::{invalid, GridError};

/// The wall area: a cell of this area is never walkable and has no multiplier.
pub const WALL: u8 = 255;

/// Cost multipliers for areas 0..=254, each finite and > 0, with their own version that
/// grows with every change (saved as "Areas" in the grid state).
#[derive(Debug, Clone, PartialEq)]
pub struct AreaCosts {
    version: u32,
    multipliers: Box<[f64; 255]>,
    min: f64,
    uniform_one: bool,
    /// Every multiplier the same value (kept by `refresh`).
    uniform: bool,
}

impl Default for AreaCosts {
    fn default() -> Self {
        AreaCosts {
            version: 0,
            multipliers: Box::new([1.0; 255]),
            min: 1.0,
            uniform_one: true,
            uniform: true,
        }
    }
}

impl AreaCosts {
    /// All multipliers 1.0, version 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// The multiplier of `area`; the wall (255) reports `f64::INFINITY`.
    pub fn get(&self, area: u8) -> f64 {
        match self.multipliers.get(usize::from(area)) {
            Some(&m) => m,
            None => f64::INFINITY,
        }
    }

    /// Sets the multiplier of `area` (0..=254) to `multiplier` (finite, > 0). The version
    /// grows when the value changes.
    pub fn set(&mut self, area: u8, multiplier: f64) -> Result<(), GridError> {
        if area == WALL {
            return Err(invalid("area", "255 is the wall and has no multiplier"));
        }
        if !(multiplier.is_finite() && multiplier > 0.0) {
            return Err(invalid(
                "area multiplier",
                format!("{multiplier} is not finite and > 0"),
            ));
        }
        let slot = &mut self.multipliers[usize::from(area)];
        if slot.to_bits() != multiplier.to_bits() {
            *slot = multiplier;
            self.version = next_version(self.version);
            self.refresh();
        }
        Ok(())
    }

    /// The version: 0 at creation, one more for every change (wraps to 0 after `i32::MAX`,
    /// so it always fits the saved i32).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// All 255 multipliers, area 0 first.
    pub fn multipliers(&self) -> &[f64; 255] {
        &self.multipliers
    }

    /// The smallest multiplier: heuristics are scaled by it so they stay admissible.
    pub fn min_multiplier(&self) -> f64 {
        self.min
    }

    /// True when every multiplier is exactly 1.0 (the specialised grid engines need this).
    pub fn is_uniform_one(&self) -> bool {
        self.uniform_one
    }

    /// True when every multiplier is the same value (kept when a multiplier changes, so a
    /// search's set-up reads one flag instead of the 255 values).
    pub(crate) fn is_uniform(&self) -> bool {
        self.uniform
    }

    /// Areas as saved (the caller has checked the version and every multiplier).
    pub(crate) fn from_saved(version: u32, multipliers: [f64; 255]) -> Self {
        let mut a = AreaCosts {
            version,
            multipliers: Box::new(multipliers),
            min: 1.0,
            uniform_one: true,
            uniform: true,
        };
        a.refresh();
        a
    }

    fn refresh(&mut self) {
        let mut min = f64::INFINITY;
        let mut one = true;
        let first = self.multipliers[0];
        let mut same = true;
        for &m in self.multipliers.iter() {
            if m < min {
                min = m;
            }
            one &= m == 1.0;
            same &= m == first;
        }
        self.min = min;
        self.uniform_one = one;
        self.uniform = same;
    }
}

/// The next value of a version counter that must fit a non-negative i32.
pub(crate) fn next_version(v: u32) -> u32 {
    if v >= i32::MAX as u32 {
        0
    } else {
        v + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_follows_every_change_of_a_multiplier() {
        let mut a = AreaCosts::new();
        assert!(a.is_uniform() && a.is_uniform_one());
        a.set(7, 2.0).unwrap();
        assert_eq!((a.is_uniform(), a.is_uniform_one()), (false, false));
        a.set(7, 1.0).unwrap();
        assert_eq!((a.is_uniform(), a.is_uniform_one()), (true, true));
        // Every area at 3: uniform, not one; the last change decides.
        for area in 0..=253u8 {
            a.set(area, 3.0).unwrap();
            assert!(!a.is_uniform(), "area {area}");
        }
        a.set(254, 3.0).unwrap();
        assert_eq!((a.is_uniform(), a.is_uniform_one()), (true, false));
        let saved = AreaCosts::from_saved(a.version(), *a.multipliers());
        assert_eq!(saved, a);
        let mut mixed = *a.multipliers();
        mixed[0] = 0.5;
        assert!(!AreaCosts::from_saved(1, mixed).is_uniform());
    }
}
