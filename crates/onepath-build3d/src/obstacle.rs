//! Obstacles (`docs/build3d-spans.md` §6): shapes with a height range that take
//! walkability away after erosion, grown by the agent radius instead of eroded.

use onepath_format::COORD_BOUND;

use crate::compact::CompactHeightfield;
use crate::config::VoxelConfig;
use crate::error::BuildError;
use crate::heightfield::NULL_AREA;

/// An obstacle shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Obstacle {
    /// A vertical cylinder: base centre, radius > 0, height ≥ 0; heights `[y, y + h]`.
    Cylinder {
        /// Base centre (x, y, z).
        center: [f64; 3],
        /// Radius.
        radius: f64,
        /// Height.
        height: f64,
    },
    /// An axis-aligned box by its corners; heights `[min y, max y]`.
    Box {
        /// Minimum corner.
        min: [f64; 3],
        /// Maximum corner.
        max: [f64; 3],
    },
    /// A box turned by `yaw` (radians, from +x towards +z) about its vertical axis; heights
    /// `[y − hy, y + hy]`.
    OrientedBox {
        /// Centre.
        center: [f64; 3],
        /// Half sizes (hx > 0, hy ≥ 0, hz > 0).
        half: [f64; 3],
        /// Yaw in radians.
        yaw: f64,
    },
}

/// Checks one number; the name of the value is built only for the error (the valid path
/// allocates nothing).
fn check(what: impl FnOnce() -> String, v: f64) -> Result<(), BuildError> {
    if v.is_finite() && v.abs() < COORD_BOUND {
        Ok(())
    } else {
        Err(BuildError::input(
            what(),
            format!("{v} is not finite and strictly within ±2^21"),
        ))
    }
}

/// `obstacles[index]`, written out only when an error names it.
struct ObstacleName(usize);

impl std::fmt::Display for ObstacleName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "obstacles[{}]", self.0)
    }
}

impl Obstacle {
    /// Checks every number (finite, within ±2^21, extents too) and the size rules; the
    /// error names `obstacles[index]` and the value.
    pub fn validate(&self, index: usize) -> Result<(), BuildError> {
        let name = ObstacleName(index);
        match *self {
            Obstacle::Cylinder {
                center,
                radius,
                height,
            } => {
                for (k, c) in center.iter().enumerate() {
                    check(|| format!("{name}.center[{k}]"), *c)?;
                }
                check(|| format!("{name}.radius"), radius)?;
                check(|| format!("{name}.height"), height)?;
                if radius <= 0.0 {
                    return Err(BuildError::input(
                        format!("{name}.radius"),
                        format!("{radius} is not above 0"),
                    ));
                }
                if height < 0.0 {
                    return Err(BuildError::input(
                        format!("{name}.height"),
                        format!("{height} is negative"),
                    ));
                }
                for (k, e) in [
                    center[0] - radius,
                    center[0] + radius,
                    center[2] - radius,
                    center[2] + radius,
                    center[1] + height,
                ]
                .into_iter()
                .enumerate()
                {
                    check(|| format!("{name}.extent[{k}]"), e)?;
                }
            }
            Obstacle::Box { min, max } => {
                for k in 0..3 {
                    check(|| format!("{name}.min[{k}]"), min[k])?;
                    check(|| format!("{name}.max[{k}]"), max[k])?;
                    if min[k] > max[k] {
                        return Err(BuildError::input(
                            format!("{name}.max[{k}]"),
                            format!("{} is below min {}", max[k], min[k]),
                        ));
                    }
                }
            }
            Obstacle::OrientedBox { center, half, yaw } => {
                for k in 0..3 {
                    check(|| format!("{name}.center[{k}]"), center[k])?;
                    check(|| format!("{name}.half[{k}]"), half[k])?;
                }
                check(|| format!("{name}.yaw"), yaw)?;
                if half[0] <= 0.0 || half[2] <= 0.0 || half[1] < 0.0 {
                    return Err(BuildError::input(
                        format!("{name}.half"),
                        "hx and hz must be above 0, hy at least 0",
                    ));
                }
                let r = half[0] + half[2];
                for (k, e) in [
                    center[0] - r,
                    center[0] + r,
                    center[2] - r,
                    center[2] + r,
                    center[1] - half[1],
                    center[1] + half[1],
                ]
                .into_iter()
                .enumerate()
                {
                    check(|| format!("{name}.extent[{k}]"), e)?;
                }
            }
        }
        Ok(())
    }

    /// Sets area 0 on every span with a non-zero area whose column centre
    /// (`origin + (index + 0.5)·cs`) lies in the footprint grown by the agent radius
    /// (`walkable_radius · cs`, boundary included) and whose floor (`originY + y·ch`) lies in
    /// the height range (both ends included).
    pub fn mark(&self, chf: &mut CompactHeightfield, vc: &VoxelConfig) {
        let g = f64::from(vc.walkable_radius) * vc.cs;
        let (sin, cos) = match *self {
            Obstacle::OrientedBox { yaw, .. } => libm::sincos(yaw),
            _ => (0.0, 1.0),
        };
        let (ymin, ymax) = match *self {
            Obstacle::Cylinder { center, height, .. } => (center[1], center[1] + height),
            Obstacle::Box { min, max } => (min[1], max[1]),
            Obstacle::OrientedBox { center, half, .. } => {
                (center[1] - half[1], center[1] + half[1])
            }
        };
        // Only the columns of the grown footprint's box (one column of slack each side for
        // rounding) can pass the test below: the loop skips the others, which changes nothing.
        let (lo, hi) = match *self {
            Obstacle::Cylinder { center, radius, .. } => {
                let r = radius + g;
                (
                    [center[0] - r, center[2] - r],
                    [center[0] + r, center[2] + r],
                )
            }
            Obstacle::Box { min, max } => ([min[0] - g, min[2] - g], [max[0] + g, max[2] + g]),
            Obstacle::OrientedBox { center, half, .. } => {
                let r = half[0] + half[2] + 2.0 * g;
                (
                    [center[0] - r, center[2] - r],
                    [center[0] + r, center[2] + r],
                )
            }
        };
        let cells = |v: f64, o: f64, n: i32| {
            (((v - o) / chf.cs).floor() as i64).clamp(-1, i64::from(n)) as i32
        };
        let (x0, x1) = (
            (cells(lo[0], chf.origin[0], chf.width) - 1).max(0),
            (cells(hi[0], chf.origin[0], chf.width) + 1).min(chf.width - 1),
        );
        let (z0, z1) = (
            (cells(lo[1], chf.origin[2], chf.depth) - 1).max(0),
            (cells(hi[1], chf.origin[2], chf.depth) + 1).min(chf.depth - 1),
        );
        for z in z0..=z1 {
            let cz = chf.origin[2] + (f64::from(z) + 0.5) * chf.cs;
            for x in x0..=x1 {
                let cx = chf.origin[0] + (f64::from(x) + 0.5) * chf.cs;
                let inside = match *self {
                    Obstacle::Cylinder { center, radius, .. } => {
                        let dx = cx - center[0];
                        let dz = cz - center[2];
                        let r = radius + g;
                        dx * dx + dz * dz <= r * r
                    }
                    Obstacle::Box { min, max } => {
                        cx >= min[0] - g && cx <= max[0] + g && cz >= min[2] - g && cz <= max[2] + g
                    }
                    Obstacle::OrientedBox { center, half, .. } => {
                        let dx = cx - center[0];
                        let dz = cz - center[2];
                        let u = dx * cos + dz * sin;
                        let v = dz * cos - dx * sin;
                        u.abs() <= half[0] + g && v.abs() <= half[2] + g
                    }
                };
                if !inside {
                    continue;
                }
                for i in chf.column(x, z) {
                    if chf.areas[i] == NULL_AREA {
                        continue;
                    }
                    let fy = chf.origin[1] + f64::from(chf.spans[i].y) * chf.ch;
                    if fy >= ymin && fy <= ymax {
                        chf.areas[i] = NULL_AREA;
                    }
                }
            }
        }
    }
}
