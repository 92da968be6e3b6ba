//! Errors of the query layer.

use onepath_format::{CoordinateError, PolyRef};

/// A query that could not run. Queries never change the mesh.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// The polygon reference is not valid in this mesh (stale, forged or null).
    #[error("invalid polygon reference {0:?}")]
    InvalidPolyRef(PolyRef),
    /// A world coordinate outside ±2^21 or not finite (names the argument).
    #[error(transparent)]
    CoordinateOutOfRange(#[from] CoordinateError),
    /// An area cost that is not finite and positive, or an area above 63.
    #[error("area {area}: cost {cost} is not finite and > 0 (or the area is above 63)")]
    InvalidAreaCost {
        /// The area given.
        area: u8,
        /// The cost given.
        cost: f64,
    },
    /// A search box half extent or a radius that is negative or not finite.
    #[error("{what} = {value} is not finite and non-negative")]
    InvalidExtent {
        /// The argument, e.g. `half_extents.y` or `radius`.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// The polygon does not pass the query filter.
    #[error("polygon {0:?} does not pass the filter")]
    FilteredOut(PolyRef),
    /// A sliced path search step or finish without a search begun.
    #[error("no sliced path search in progress")]
    NoSlicedSearch,
    /// A landmark count above [`MAX_LANDMARKS`](crate::query::MAX_LANDMARKS).
    #[error("landmark count {count} is above 32")]
    InvalidLandmarkCount {
        /// The count given.
        count: usize,
    },
    /// The mesh has more polygons or crossings than a compiled graph can number (2^32).
    #[error("the mesh has too many polygons or crossings for a compiled graph")]
    CompiledGraphTooLarge,
}
