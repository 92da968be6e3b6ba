//! `mint` conversions (the `mint` feature). Every query already takes
//! `impl Into<[f64; 3]>`, which `mint::Point3<f64>` is; these give the results back as mint
//! points.

use crate::navmesh::{NearestPoint, PathPoint, Raycast};

impl From<NearestPoint> for mint::Point3<f64> {
    fn from(n: NearestPoint) -> Self {
        n.point.into()
    }
}

impl From<PathPoint> for mint::Point3<f64> {
    fn from(p: PathPoint) -> Self {
        p.position.into()
    }
}

impl From<Raycast> for mint::Point3<f64> {
    /// Where the ray stopped.
    fn from(r: Raycast) -> Self {
        r.point.into()
    }
}
