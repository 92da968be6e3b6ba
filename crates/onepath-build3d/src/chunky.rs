//! [`ChunkyTriMesh`]: a triangle soup with a uniform-grid spatial index, so each tile of a
//! large level touches only the triangles near it.

use std::collections::BTreeMap;

use crate::error::BuildError;
use crate::input::TriangleSoup;

/// The X/Z bounds (min, max) of one triangle.
pub(crate) fn triangle_bounds(soup: &TriangleSoup, tri: &[u32; 3]) -> ([f64; 2], [f64; 2]) {
    let v0 = soup.vertices[tri[0] as usize];
    let mut lo = [v0[0], v0[2]];
    let mut hi = lo;
    for &i in &tri[1..] {
        let v = soup.vertices[i as usize];
        lo[0] = lo[0].min(v[0]);
        lo[1] = lo[1].min(v[2]);
        hi[0] = hi[0].max(v[0]);
        hi[1] = hi[1].max(v[2]);
    }
    (lo, hi)
}

/// A chunked triangle mesh: every triangle is filed under the grid chunk holding the
/// minimum corner of its X/Z bounds; a query visits the chunks its rectangle (widened by
/// the largest triangle extent) covers and returns the overlapping triangles in ascending
/// index order, so rasterization order is the soup's order.
#[derive(Debug, Clone)]
pub struct ChunkyTriMesh {
    soup: TriangleSoup,
    chunk_size: f64,
    max_extent: f64,
    chunks: BTreeMap<(i64, i64), Vec<u32>>,
    /// Each triangle's X/Z bounds `[min x, min z, max x, max z]` ([`triangle_bounds`]),
    /// computed once here instead of on every query.
    bounds: Vec<[f64; 4]>,
}

impl ChunkyTriMesh {
    /// Indexes a soup with square chunks of `chunk_size` world units.
    pub fn new(soup: TriangleSoup, chunk_size: f64) -> Result<Self, BuildError> {
        soup.validate()?;
        if !(chunk_size.is_finite() && chunk_size > 0.0) {
            return Err(BuildError::input(
                "chunk_size",
                format!("{chunk_size} is not positive and finite"),
            ));
        }
        let mut chunks: BTreeMap<(i64, i64), Vec<u32>> = BTreeMap::new();
        let mut max_extent = 0.0f64;
        let mut bounds = Vec::with_capacity(soup.triangles.len());
        for (t, tri) in soup.triangles.iter().enumerate() {
            let (lo, hi) = triangle_bounds(&soup, tri);
            bounds.push([lo[0], lo[1], hi[0], hi[1]]);
            max_extent = max_extent.max(hi[0] - lo[0]).max(hi[1] - lo[1]);
            let key = (
                (lo[1] / chunk_size).floor() as i64,
                (lo[0] / chunk_size).floor() as i64,
            );
            chunks.entry(key).or_default().push(t as u32);
        }
        Ok(ChunkyTriMesh {
            soup,
            chunk_size,
            max_extent,
            chunks,
            bounds,
        })
    }

    /// The indexed soup.
    pub fn soup(&self) -> &TriangleSoup {
        &self.soup
    }

    /// Number of non-empty chunks.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Triangles whose X/Z bounds overlap the rectangle `[min, max]` (boundary included),
    /// ascending.
    pub fn triangles_in(&self, min: [f64; 2], max: [f64; 2]) -> Vec<u32> {
        let cs = self.chunk_size;
        let x0 = ((min[0] - self.max_extent) / cs).floor() as i64;
        let x1 = (max[0] / cs).floor() as i64;
        let z0 = ((min[1] - self.max_extent) / cs).floor() as i64;
        let z1 = (max[1] / cs).floor() as i64;
        let mut out = Vec::new();
        if z0 > z1 {
            return out;
        }
        // One ordered scan over the chunks of rows z0..=z1 (never more entries than there
        // are chunks, whatever the chunk size), keeping columns x0..=x1.
        for (&(_, x), tris) in self.chunks.range((z0, i64::MIN)..=(z1, i64::MAX)) {
            if x < x0 || x > x1 {
                continue;
            }
            for &t in tris {
                let [lx, lz, hx, hz] = self.bounds[t as usize];
                if hx >= min[0] && lx <= max[0] && hz >= min[1] && lz <= max[1] {
                    out.push(t);
                }
            }
        }
        out.sort_unstable();
        out
    }
}
