//! [`QueryFilter`]: which polygons and off-mesh links a query may use, and what each area
//! costs.

use crate::query::error::QueryError;

/// Number of polygon areas (0..=63).
pub const AREA_COUNT: usize = 64;

/// Which polygons (and off-mesh links) a query may use and the cost multiplier of each area.
///
/// A polygon passes when `flags & include != 0` and `flags & exclude == 0` (its *current*
/// flags, so run-time edits apply at once). An off-mesh link passes when its own flags pass
/// the same test, its run-time switch is on, and both its ends attached (the mesh has the
/// link only then). Area costs multiply distance; each is finite and `> 0`, so the
/// heuristic `distance × smallest cost` never overestimates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryFilter {
    include_flags: u16,
    exclude_flags: u16,
    area_costs: [f64; AREA_COUNT],
    min_cost: f64,
}

impl Default for QueryFilter {
    /// Every flag included, none excluded, every area cost 1.
    fn default() -> Self {
        QueryFilter {
            include_flags: 0xFFFF,
            exclude_flags: 0,
            area_costs: [1.0; AREA_COUNT],
            min_cost: 1.0,
        }
    }
}

impl QueryFilter {
    /// The default filter (see [`Default`]).
    pub fn new() -> QueryFilter {
        QueryFilter::default()
    }

    /// Flags of which at least one must be set on a polygon.
    pub fn include_flags(&self) -> u16 {
        self.include_flags
    }

    /// Flags of which none may be set on a polygon.
    pub fn exclude_flags(&self) -> u16 {
        self.exclude_flags
    }

    /// Sets the include flags.
    pub fn set_include_flags(&mut self, flags: u16) -> &mut Self {
        self.include_flags = flags;
        self
    }

    /// Sets the exclude flags.
    pub fn set_exclude_flags(&mut self, flags: u16) -> &mut Self {
        self.exclude_flags = flags;
        self
    }

    /// The cost multiplier of `area` (areas above 63 read as area 63's cost never happen:
    /// tiles reject them; `area & 63` is used so the call cannot panic).
    pub fn area_cost(&self, area: u8) -> f64 {
        self.area_costs[usize::from(area & 63)]
    }

    /// Sets the cost multiplier of `area`: [`QueryError::InvalidAreaCost`] unless
    /// `area <= 63` and `cost` is finite and `> 0`. On error nothing changes.
    pub fn set_area_cost(&mut self, area: u8, cost: f64) -> Result<&mut Self, QueryError> {
        if usize::from(area) >= AREA_COUNT || !(cost.is_finite() && cost > 0.0) {
            return Err(QueryError::InvalidAreaCost { area, cost });
        }
        self.area_costs[usize::from(area)] = cost;
        self.min_cost = self
            .area_costs
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        Ok(self)
    }

    /// All 64 area costs.
    pub(crate) fn area_costs(&self) -> &[f64; AREA_COUNT] {
        &self.area_costs
    }

    /// The smallest area cost (scales the path heuristic).
    pub fn min_area_cost(&self) -> f64 {
        self.min_cost
    }

    /// True when polygon (or link) flags pass the include / exclude test.
    pub fn passes_flags(&self, flags: u16) -> bool {
        flags & self.include_flags != 0 && flags & self.exclude_flags == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn area_costs_must_be_finite_and_positive() {
        let mut f = QueryFilter::new();
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                f.set_area_cost(3, bad),
                Err(QueryError::InvalidAreaCost { area: 3, .. })
            ));
        }
        assert!(matches!(
            f.set_area_cost(64, 1.0),
            Err(QueryError::InvalidAreaCost { area: 64, .. })
        ));
        assert_eq!(f.area_cost(3), 1.0);
        f.set_area_cost(3, 0.5).unwrap();
        assert_eq!((f.area_cost(3), f.min_area_cost()), (0.5, 0.5));
    }

    #[test]
    fn a_polygon_passes_with_an_included_and_no_excluded_flag() {
        let mut f = QueryFilter::new();
        f.set_include_flags(0b011).set_exclude_flags(0b100);
        assert!(f.passes_flags(0b001));
        assert!(!f.passes_flags(0b101));
        assert!(!f.passes_flags(0b1000));
    }
}
