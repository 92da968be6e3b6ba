//! Small levels the facade's tests share.
#![allow(dead_code)]

use onepath::build::TriangleSoup;

/// A flat `size × size` floor at height 0 (two triangles facing up).
pub fn floor(size: f64) -> TriangleSoup {
    TriangleSoup {
        vertices: vec![
            [0.0, 0.0, 0.0],
            [0.0, 0.0, size],
            [size, 0.0, size],
            [size, 0.0, 0.0],
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
        areas: None,
    }
}

/// Appends a floor `[x0, x1] × [z0, z1]` at height `y` to `soup`.
pub fn add_floor(soup: &mut TriangleSoup, x0: f64, z0: f64, x1: f64, z1: f64, y: f64) {
    let b = soup.vertices.len() as u32;
    soup.vertices
        .extend([[x0, y, z0], [x0, y, z1], [x1, y, z1], [x1, y, z0]]);
    soup.triangles.push([b, b + 1, b + 2]);
    soup.triangles.push([b, b + 2, b + 3]);
}
