//! Obstacles and run-time area volumes as the cache holds them: their ids, their checks
//! (`docs/tilecache.md`, "Obstacles" and "Area volumes") and the x/z box that decides which
//! tiles a change queues.

use std::fmt;

use onepath_build3d::{BuildError, ConvexVolume, Obstacle};

/// Most corners of a run-time area volume.
pub const MAX_VOLUME_CORNERS: usize = 256;

/// The id of an obstacle of a tile cache: 1, 2, 3, … in the order they were added, never
/// reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObstacleId(pub u32);

/// The id of a run-time area volume of a tile cache: 1, 2, 3, … in the order they were
/// added, never reused. Volumes apply in id order (the later wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VolumeId(pub u32);

impl fmt::Display for ObstacleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Display for VolumeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The largest id (2^31 − 1); the next-id counters stay in `1..=MAX_ID`.
pub const MAX_ID: u32 = (1 << 31) - 1;

/// Renames the builder's list-element name (`obstacles[0]`) to the run-time one.
fn renamed(e: BuildError, list: &str, single: &str) -> BuildError {
    match e {
        BuildError::InvalidInput { what, reason } => BuildError::InvalidInput {
            what: what.replacen(list, single, 1),
            reason,
        },
        other => other,
    }
}

/// Checks an obstacle the way the builder checks its own (every number finite and within
/// ±2^21, extents too; cylinder r > 0, h ≥ 0; box min ≤ max; oriented box hx, hz > 0,
/// hy ≥ 0); the error names the value (`obstacle.radius`).
pub fn check_obstacle(o: &Obstacle) -> Result<(), BuildError> {
    o.validate(0)
        .map_err(|e| renamed(e, "obstacles[0]", "obstacle"))
}

/// Checks a run-time area volume: 3 to 256 corners, every number finite and within ±2^21,
/// `min_y ≤ max_y`, area 0 to 63; the error names the value (`volume.points[2]`).
pub fn check_volume(v: &ConvexVolume) -> Result<(), BuildError> {
    if v.points.len() > MAX_VOLUME_CORNERS {
        return Err(BuildError::InvalidInput {
            what: "volume.points".to_string(),
            reason: format!("{} corners; at most {MAX_VOLUME_CORNERS}", v.points.len()),
        });
    }
    v.validate(0)
        .map_err(|e| renamed(e, "volumes[0]", "volume"))
}

/// The x/z box `([min x, min z], [max x, max z])` of a checked obstacle's footprint (not
/// grown: the queueing rule widens the tiles instead).
pub fn obstacle_box(o: &Obstacle) -> ([f64; 2], [f64; 2]) {
    match *o {
        Obstacle::Cylinder { center, radius, .. } => (
            [center[0] - radius, center[2] - radius],
            [center[0] + radius, center[2] + radius],
        ),
        Obstacle::Box { min, max } => ([min[0], min[2]], [max[0], max[2]]),
        Obstacle::OrientedBox { center, half, yaw } => {
            // The corners are centre ± hx·(c, s) ± hz·(−s, c) (yaw from +x towards +z).
            let (s, c) = libm::sincos(yaw);
            let ex = (half[0] * c).abs() + (half[2] * s).abs();
            let ez = (half[0] * s).abs() + (half[2] * c).abs();
            (
                [center[0] - ex, center[2] - ez],
                [center[0] + ex, center[2] + ez],
            )
        }
    }
}

/// The x/z box of a checked volume's corners.
pub fn volume_box(v: &ConvexVolume) -> ([f64; 2], [f64; 2]) {
    let mut lo = [f64::INFINITY; 2];
    let mut hi = [f64::NEG_INFINITY; 2];
    for p in &v.points {
        for k in 0..2 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    (lo, hi)
}
