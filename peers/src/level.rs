//! The input of a build: a triangle soup ([`Level`]) and a small Wavefront OBJ reader.

use std::path::{Path, PathBuf};

use crate::error::PeerError;
use crate::sampling::SplitMix64;

/// Environment variable naming the folder of third-party data sets (see the project README).
pub const DATA_ENV: &str = "ONEPATH_DATA";

/// A level to build a navmesh from: world-space vertices (Y up) and triangles indexing them.
///
/// This is the common input of every builder the harness compares (Recast here; OnePath's
/// voxel builder later): both see exactly the same vertices and triangles in the same order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Level {
    /// Vertex positions, world units.
    pub vertices: Vec<[f32; 3]>,
    /// Triangles: three indices into `vertices` each.
    pub triangles: Vec<[u32; 3]>,
}

impl Level {
    /// Parses OBJ text: `v x y z` lines give vertices, `f` lines give polygons that are fanned
    /// into triangles `(0, i - 1, i)` exactly as RecastDemo's loader does. `f` entries may be
    /// `v`, `v/vt`, `v//vn` or `v/vt/vn`; only the vertex index is used; negative indices
    /// count back from the last vertex read. Every other line kind is ignored.
    ///
    /// Never panics: a malformed number, a non-finite coordinate, an index of 0 or out of
    /// range, or a face with fewer than 3 vertices is a [`PeerError::Obj`] naming the line.
    pub fn from_obj_str(text: &str) -> Result<Level, PeerError> {
        let mut level = Level::default();
        let mut face: Vec<u32> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |reason: String| PeerError::Obj { line, reason };
            let mut tokens = raw.split_whitespace();
            match tokens.next() {
                Some("v") => {
                    let mut p = [0f32; 3];
                    for (axis, slot) in p.iter_mut().enumerate() {
                        let t = tokens
                            .next()
                            .ok_or_else(|| err(format!("vertex has no coordinate {axis}")))?;
                        let v: f32 = t
                            .parse()
                            .map_err(|_| err(format!("coordinate {axis} {t:?} is not a number")))?;
                        if !v.is_finite() {
                            return Err(err(format!("coordinate {axis} {t:?} is not finite")));
                        }
                        *slot = v;
                    }
                    level.vertices.push(p);
                }
                Some("f") => {
                    face.clear();
                    for t in tokens {
                        face.push(resolve_index(t, level.vertices.len()).map_err(err)?);
                    }
                    if face.len() < 3 {
                        return Err(err(format!("face has {} vertices, needs 3", face.len())));
                    }
                    for k in 2..face.len() {
                        level.triangles.push([face[0], face[k - 1], face[k]]);
                    }
                }
                _ => {}
            }
        }
        Ok(level)
    }

    /// Reads and parses an OBJ file (see [`Level::from_obj_str`]).
    pub fn load_obj(path: &Path) -> Result<Level, PeerError> {
        let text = std::fs::read_to_string(path).map_err(|e| PeerError::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Level::from_obj_str(&text)
    }

    /// Axis-aligned bounds `(min, max)` of the vertices, or `None` for an empty level.
    pub fn bounds(&self) -> Option<([f32; 3], [f32; 3])> {
        let first = *self.vertices.first()?;
        let mut lo = first;
        let mut hi = first;
        for v in &self.vertices {
            for a in 0..3 {
                lo[a] = lo[a].min(v[a]);
                hi[a] = hi[a].max(v[a]);
            }
        }
        Some((lo, hi))
    }

    /// Flattened `x, y, z` coordinates, the layout Recast takes.
    pub fn flat_vertices(&self) -> Vec<f32> {
        self.vertices.iter().flatten().copied().collect()
    }
}

/// Resolves one `f` entry (`v`, `v/vt`, `v//vn`, `v/vt/vn`) to a 0-based vertex index.
fn resolve_index(token: &str, vertex_count: usize) -> Result<u32, String> {
    let head = token.split('/').next().unwrap_or(token);
    let v: i64 = head
        .parse()
        .map_err(|_| format!("face index {token:?} is not an integer"))?;
    let n = i64::try_from(vertex_count).map_err(|_| "too many vertices".to_string())?;
    // OBJ indices are 1-based; negative ones count back from the last vertex read so far.
    let index = match v {
        0 => {
            return Err(format!(
                "face index {token:?} is 0 (OBJ indices start at 1)"
            ))
        }
        v if v > 0 => v - 1,
        v => n + v,
    };
    if index < 0 || index >= n {
        return Err(format!(
            "face index {token:?} refers to vertex {index}, but only {n} are defined"
        ));
    }
    u32::try_from(index).map_err(|_| format!("face index {token:?} does not fit 32 bits"))
}

/// The path of Recast's demo level, `$ONEPATH_DATA/levels/nav_test.obj`, or `None` when
/// the variable is unset or the file is absent (callers then skip and say so).
pub fn nav_test_path() -> Option<PathBuf> {
    let dir = std::env::var_os(DATA_ENV)?;
    let path = Path::new(&dir).join("levels").join("nav_test.obj");
    path.is_file().then_some(path)
}

/// A generated sloped terrain (the query conformance test's and `recast_report --queries`'): 48 × 48 cells of 1.25 over a smooth height field (slopes up to about
/// 35°, under the 45° limit, and some steeper spots the builder leaves out), seeded phases.
pub fn sloped_terrain(seed: u64) -> Level {
    let mut rng = SplitMix64::new(seed);
    let (a, b) = (rng.next_f64() * 6.0, rng.next_f64() * 6.0);
    let n = 48usize;
    let cell = 1.25f64;
    // Platform sin / cos (the workspace asks for libm, which this crate does not depend
    // on): only the input geometry depends on them, and both engines then query the very
    // same built polygons, so the comparison does not.
    #[allow(clippy::disallowed_methods)]
    let y = |i: usize, j: usize| {
        let (x, z) = (i as f64 * cell, j as f64 * cell);
        (3.0 * (x / 7.0 + a).sin() * (z / 9.0 + b).cos() + 1.5 * ((x + z) / 5.0).sin()) as f32
    };
    let mut level = Level::default();
    for j in 0..=n {
        for i in 0..=n {
            level
                .vertices
                .push([(i as f64 * cell) as f32, y(i, j), (j as f64 * cell) as f32]);
        }
    }
    let v = |i: usize, j: usize| (j * (n + 1) + i) as u32;
    for j in 0..n {
        for i in 0..n {
            level.triangles.push([v(i, j), v(i, j + 1), v(i + 1, j)]);
            level
                .triangles
                .push([v(i + 1, j), v(i, j + 1), v(i + 1, j + 1)]);
        }
    }
    level
}

/// A level from quads, each given by its corners in order around it, (x0, z0), (x1, z0),
/// (x1, z1), (x0, z1) with x1 > x0 and z1 > z0; each becomes two triangles wound so that
/// their normal points up (Recast's walkable test).
pub fn quads_level(quads: &[[[f32; 3]; 4]]) -> Level {
    let mut level = Level::default();
    for q in quads {
        let base = level.vertices.len() as u32;
        level.vertices.extend_from_slice(q);
        level.triangles.push([base, base + 2, base + 1]);
        level.triangles.push([base, base + 3, base + 2]);
    }
    level
}

/// An axis-aligned floor quad x0..x1, z0..z1 at heights `y` (corners (x0, z0), (x1, z0),
/// (x1, z1), (x0, z1)).
pub fn floor(x0: f32, z0: f32, x1: f32, z1: f32, y: [f32; 4]) -> [[f32; 3]; 4] {
    [
        [x0, y[0], z0],
        [x1, y[1], z0],
        [x1, y[2], z1],
        [x0, y[3], z1],
    ]
}

/// A dungeon (the query conformance test's and `recast_report --paths`'): a 4 × 3 grid of 9 × 9 rooms at heights 0, 0.6 or 1.2 (seeded), joined by
/// corridors 3 wide; a corridor between rooms at different heights is a ramp.
pub fn dungeon(seed: u64) -> Level {
    let mut rng = SplitMix64::new(seed);
    let (nx, nz) = (4, 3);
    let height: Vec<f32> = (0..nx * nz)
        .map(|_| (rng.next_u64() % 3) as f32 * 0.6)
        .collect();
    let h = |i: usize, j: usize| height[j * nx + i];
    let mut quads = Vec::new();
    for j in 0..nz {
        for i in 0..nx {
            let (x, z) = (i as f32 * 14.0, j as f32 * 14.0);
            let y = h(i, j);
            quads.push(floor(x, z, x + 9.0, z + 9.0, [y; 4]));
            // Corridor east (skipped at random, keeping the first row whole so all connect).
            if i + 1 < nx && (j == 0 || rng.next_u64() % 4 != 0) {
                let y1 = h(i + 1, j);
                quads.push(floor(x + 9.0, z + 3.0, x + 14.0, z + 6.0, [y, y1, y1, y]));
            }
            // Corridor south.
            if j + 1 < nz && (i == 0 || rng.next_u64() % 3 != 0) {
                let y1 = h(i, j + 1);
                quads.push(floor(x + 3.0, z + 9.0, x + 6.0, z + 14.0, [y, y, y1, y1]));
            }
        }
    }
    quads_level(&quads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_are_fanned_like_recast_demo() {
        let obj = "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nf 1 2 3 4\n";
        let level = Level::from_obj_str(obj).unwrap();
        assert_eq!(level.triangles, vec![[0, 1, 2], [0, 2, 3]]);
    }

    #[test]
    fn slashed_negative_and_crlf_entries_resolve() {
        let obj = "v 0 0 0\r\nv 1 0 0\r\nv 1 0 1\r\nvn 0 1 0\r\nf -3/1/1 -2//1 3/2 \r\n";
        let level = Level::from_obj_str(obj).unwrap();
        assert_eq!(level.triangles, vec![[0, 1, 2]]);
        assert_eq!(level.bounds(), Some(([0.0, 0.0, 0.0], [1.0, 0.0, 1.0])));
    }

    #[test]
    fn bad_lines_are_errors_naming_the_line() {
        let cases = [
            ("v 0 0\n", 1, "no coordinate 2"),
            ("v 0 x 0\n", 1, "not a number"),
            ("v 0 inf 0\n", 1, "not finite"),
            ("v 0 0 0\nf 1 1\n", 2, "needs 3"),
            ("v 0 0 0\nf 1 0 1\n", 2, "is 0"),
            ("v 0 0 0\nf 1 2 1\n", 2, "only 1 are defined"),
            ("v 0 0 0\n\nf 1 -2 1\n", 3, "only 1 are defined"),
            ("f 1/2 a 3\n", 1, "only 0 are defined"),
        ];
        for (text, line, needle) in cases {
            match Level::from_obj_str(text) {
                Err(PeerError::Obj { line: l, reason }) => {
                    assert_eq!(l, line, "{text:?}");
                    assert!(reason.contains(needle), "{text:?}: {reason}");
                }
                other => panic!("{text:?}: expected an OBJ error, got {other:?}"),
            }
        }
    }
}
