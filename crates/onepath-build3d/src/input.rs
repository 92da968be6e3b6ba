//! Build inputs: the triangle soup and its validation.

use onepath_format::NavMeshParams;

use crate::error::BuildError;

/// Level geometry as a triangle soup: world vertices, triangles as vertex-index triples,
/// and an optional area id per triangle (0 = never walkable, 1..=63).
///
/// A triangle is walkable when it faces up: its normal `(v1 − v0) × (v2 − v0)` (right-handed)
/// points up within the slope.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TriangleSoup {
    /// World vertices.
    pub vertices: Vec<[f64; 3]>,
    /// Triangles.
    pub triangles: Vec<[u32; 3]>,
    /// Area id of each triangle (`None`: the build's default area for all).
    pub areas: Option<Vec<u8>>,
}

impl TriangleSoup {
    /// Checks the soup: every vertex within the coordinate rule, every index in range, one
    /// area (0..=63) per triangle when areas are given. The error names the vertex or
    /// triangle.
    pub fn validate(&self) -> Result<(), BuildError> {
        for (i, v) in self.vertices.iter().enumerate() {
            // The vertex's name is written only for the error (a build validates every vertex
            // each time; formatting a name per vertex cost more than the check).
            if NavMeshParams::check_point("vertex", *v).is_err() {
                NavMeshParams::check_point(&format!("vertices[{i}]"), *v)?;
            }
        }
        let nv = self.vertices.len();
        for (t, tri) in self.triangles.iter().enumerate() {
            for (k, &i) in tri.iter().enumerate() {
                if i as usize >= nv {
                    return Err(BuildError::input(
                        format!("triangle {t}: index {k}"),
                        format!("vertex {i} is past the {nv} vertices"),
                    ));
                }
            }
        }
        if let Some(a) = &self.areas {
            if a.len() != self.triangles.len() {
                return Err(BuildError::input(
                    "areas",
                    format!("{} areas for {} triangles", a.len(), self.triangles.len()),
                ));
            }
            if let Some(t) = a.iter().position(|&x| x > 63) {
                return Err(BuildError::input(
                    format!("triangle {t}: area"),
                    format!("{} is above 63", a[t]),
                ));
            }
        }
        Ok(())
    }

    /// Bounds (min, max) of the vertices used by triangles, or `None` without triangles.
    pub fn bounds(&self) -> Option<([f64; 3], [f64; 3])> {
        let mut it = self.triangles.iter().flatten();
        let first = self.vertices[*it.next()? as usize];
        let mut bmin = first;
        let mut bmax = first;
        for &i in self.triangles.iter().flatten() {
            let v = self.vertices[i as usize];
            for k in 0..3 {
                bmin[k] = bmin[k].min(v[k]);
                bmax[k] = bmax[k].max(v[k]);
            }
        }
        Some((bmin, bmax))
    }

    /// Appends another soup (its indices shifted).
    pub fn append(&mut self, other: &TriangleSoup, default_area: u8) {
        let base = self.vertices.len() as u32;
        let had = self.areas.is_some() || other.areas.is_some();
        if had && self.areas.is_none() {
            self.areas = Some(vec![default_area; self.triangles.len()]);
        }
        self.vertices.extend_from_slice(&other.vertices);
        self.triangles.extend(
            other
                .triangles
                .iter()
                .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
        );
        if let Some(a) = self.areas.as_mut() {
            match &other.areas {
                Some(o) => a.extend_from_slice(o),
                None => a.extend(std::iter::repeat(default_area).take(other.triangles.len())),
            }
        }
    }
}

/// Whether a triangle is walkable: its unit normal's Y exceeds `slope_cos` (f64 cross
/// product and `sqrt`; degenerate triangles are not walkable).
pub fn is_walkable_triangle(v: [[f64; 3]; 3], slope_cos: f64) -> bool {
    let e0 = [v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2]];
    let e1 = [v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2]];
    let n = [
        e0[1] * e1[2] - e0[2] * e1[1],
        e0[2] * e1[0] - e0[0] * e1[2],
        e0[0] * e1[1] - e0[1] * e1[0],
    ];
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len <= 0.0 {
        return false;
    }
    n[1] / len > slope_cos
}

/// A height grid (terrain): `columns × rows` samples `spacing` apart from `origin` (X, Z),
/// heights row by row (Z outer, X inner). Each grid square becomes two triangles facing up
/// (split along the diagonal from its −x−z corner to its +x+z corner).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HeightGrid {
    /// World X and Z of sample (0, 0).
    pub origin: [f64; 2],
    /// Distance between samples.
    pub spacing: f64,
    /// Samples along X.
    pub columns: u32,
    /// Samples along Z.
    pub rows: u32,
    /// Heights, `rows · columns` of them.
    pub heights: Vec<f64>,
}

impl HeightGrid {
    /// The grid as a triangle soup (checked: sizes, spacing, every height and corner within
    /// the coordinate rule).
    pub fn to_soup(&self) -> Result<TriangleSoup, BuildError> {
        if !(self.spacing.is_finite() && self.spacing > 0.0) {
            return Err(BuildError::input(
                "spacing",
                format!("{} is not positive and finite", self.spacing),
            ));
        }
        let (c, r) = (self.columns as usize, self.rows as usize);
        if c < 2 || r < 2 {
            return Err(BuildError::input(
                "columns",
                "a height grid needs at least 2 × 2 samples",
            ));
        }
        let n = c.checked_mul(r).filter(|&n| n <= u32::MAX as usize / 2);
        if n != Some(self.heights.len()) {
            return Err(BuildError::input(
                "heights",
                format!("{} heights for {} × {} samples", self.heights.len(), c, r),
            ));
        }
        let mut soup = TriangleSoup::default();
        for j in 0..r {
            for i in 0..c {
                let p = [
                    self.origin[0] + i as f64 * self.spacing,
                    self.heights[j * c + i],
                    self.origin[1] + j as f64 * self.spacing,
                ];
                NavMeshParams::check_point(&format!("heights[{}]", j * c + i), p)?;
                soup.vertices.push(p);
            }
        }
        for j in 0..r - 1 {
            for i in 0..c - 1 {
                let a = (j * c + i) as u32;
                let b = ((j + 1) * c + i) as u32;
                let cc = ((j + 1) * c + i + 1) as u32;
                let d = (j * c + i + 1) as u32;
                soup.triangles.push([a, b, cc]);
                soup.triangles.push([a, cc, d]);
            }
        }
        Ok(soup)
    }
}
