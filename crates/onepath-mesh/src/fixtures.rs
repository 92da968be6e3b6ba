//! Small meshes and tiles for tests, examples, benches and other crates' tests.
//!
//! Everything here is deterministic and built through the public validation path
//! (`NavTile::create`), so a fixture is a valid input by construction.

use onepath_format::{FormatError, NavMeshParams, NavTile, NavTileData, NO_PORTAL};

/// A flat tile at (x, z, layer) covered by `n × n` square polygons (local height 0, world
/// height `origin_y`), with in-tile adjacency and every boundary edge a portal. Polygon
/// `j·n + i` is the cell at column `i` (X) and row `j` (Z); its edges are, in order, the −Z,
/// +X, +Z and −X sides of the cell. `n` must divide the tile size exactly in f32 (a power of
/// two does).
pub fn flat_grid_tile(
    params: &NavMeshParams,
    x: i32,
    z: i32,
    layer: u16,
    origin_y: f64,
    n: u16,
) -> Result<NavTile, FormatError> {
    NavTile::create(params, flat_grid_data(params, x, z, layer, origin_y, n))
}

/// The data of [`flat_grid_tile`] (not validated), for tests that change it first.
pub fn flat_grid_data(
    params: &NavMeshParams,
    x: i32,
    z: i32,
    layer: u16,
    origin_y: f64,
    n: u16,
) -> NavTileData {
    let n = usize::from(n.max(1));
    let ts = params.tile_size_f32();
    let cell = ts / n as f32;
    let coord = |i: usize| if i == n { ts } else { cell * i as f32 };
    let mut vertices = Vec::with_capacity((n + 1) * (n + 1));
    for j in 0..=n {
        for i in 0..=n {
            vertices.push([coord(i), 0.0, coord(j)]);
        }
    }
    let v = |i: usize, j: usize| (j * (n + 1) + i) as u16;
    let poly = |i: usize, j: usize| (j * n + i) as u32 + 1;
    let mut corners = Vec::with_capacity(n * n * 4);
    let mut edge_neighbours = Vec::with_capacity(n * n * 4);
    let mut edge_portal_sides = Vec::with_capacity(n * n * 4);
    for j in 0..n {
        for i in 0..n {
            corners.extend([v(i, j), v(i + 1, j), v(i + 1, j + 1), v(i, j + 1)]);
            let sides = [
                (j == 0, 3u8, if j > 0 { poly(i, j - 1) } else { 0 }),
                (i + 1 == n, 0, if i + 1 < n { poly(i + 1, j) } else { 0 }),
                (j + 1 == n, 1, if j + 1 < n { poly(i, j + 1) } else { 0 }),
                (i == 0, 2, if i > 0 { poly(i - 1, j) } else { 0 }),
            ];
            for (boundary, side, nb) in sides {
                edge_neighbours.push(nb);
                edge_portal_sides.push(if boundary { side } else { NO_PORTAL });
            }
        }
    }
    NavTileData {
        tile_x: x,
        tile_z: z,
        layer,
        origin_y,
        vertices,
        poly_sizes: vec![4; n * n],
        poly_areas: vec![0; n * n],
        poly_flags: vec![1; n * n],
        corners,
        edge_neighbours,
        edge_portal_sides,
        ..Default::default()
    }
}
