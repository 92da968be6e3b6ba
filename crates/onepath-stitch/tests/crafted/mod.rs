//! Crafted valid tiles for the cost tests and the `stitch_cost` example: thin triangles
//! whose portal edges face each other across a tile boundary, and flat tiles of square
//! cells carrying many off-mesh links. Every tile goes through `NavTile::create`.
#![allow(dead_code)]

use onepath_format::{NavMeshParams, NavTile, NavTileData, OffMeshLinkSlot, NO_PORTAL};

/// Tiles of 16 units, cells of 0.25, polygons of up to 6 corners, climb 0.5.
pub fn params() -> NavMeshParams {
    let mut p = NavMeshParams::new([0.0, 0.0, 0.0], 16.0, 0.25, 6);
    p.walkable_climb = 0.5;
    p
}

/// One thin triangle: its portal edge covers `z0..z1` (z0 < z1) of the boundary at local
/// height `y`; its apex lies `depth` inside the tile.
#[derive(Debug, Clone, Copy)]
pub struct Thin {
    /// Lower end along the boundary.
    pub z0: f32,
    /// Upper end along the boundary.
    pub z1: f32,
    /// Local height of both boundary vertices.
    pub y: f32,
    /// Distance of the apex from the boundary (> 0).
    pub depth: f32,
}

/// A tile at (x, 0, layer) made of thin triangles, each with one portal edge on side 0 (+X)
/// for `plus` and on side 2 (−X) for `minus`. Triangles may overlap (the format allows it).
pub fn thin_triangles(
    params: &NavMeshParams,
    x: i32,
    layer: u16,
    origin_y: f64,
    plus: &[Thin],
    minus: &[Thin],
    links: Vec<OffMeshLinkSlot>,
) -> NavTile {
    let ts = params.tile_size_f32();
    let mut vertices = Vec::new();
    let mut corners = Vec::new();
    let mut sides = Vec::new();
    for (t, side) in plus
        .iter()
        .map(|t| (t, 0u8))
        .chain(minus.iter().map(|t| (t, 2u8)))
    {
        let zm = t.z0 + (t.z1 - t.z0) * 0.5;
        // Counter-clockwise with the portal edge first: up the +X boundary, down the −X one.
        let tri = if side == 0 {
            [[ts, t.y, t.z0], [ts, t.y, t.z1], [ts - t.depth, t.y, zm]]
        } else {
            [[0.0, t.y, t.z1], [0.0, t.y, t.z0], [t.depth, t.y, zm]]
        };
        let base = vertices.len() as u16;
        vertices.extend(tri);
        corners.extend([base, base + 1, base + 2]);
        sides.extend([side, NO_PORTAL, NO_PORTAL]);
    }
    let position = (x, 0, layer, origin_y);
    polygons(params, position, vertices, 3, corners, sides, links)
}

/// `n` thin triangles whose edges split the boundary `0..TileSize` into `n` equal parts,
/// shifted by `shift` parts (0 ≤ shift < 1; the first and last part absorb the shift).
pub fn partition(params: &NavMeshParams, n: usize, shift: f32) -> Vec<Thin> {
    let ts = params.tile_size_f32();
    let step = ts / n as f32;
    let mut cuts: Vec<f32> = vec![0.0];
    cuts.extend(
        (0..n)
            .map(|i| (i as f32 + shift) * step)
            .filter(|&c| c > 0.0),
    );
    cuts.push(ts);
    cuts.windows(2)
        .map(|w| Thin {
            z0: w[0],
            z1: w[1],
            y: 0.0,
            depth: 8.0,
        })
        .collect()
}

/// `n` thin triangles whose edges all cover the middle of the boundary: edge `i` covers
/// `i·δ..TileSize − i·δ` with δ = TileSize / (2n + 2). Every pair across the boundary links.
pub fn nested(params: &NavMeshParams, n: usize) -> Vec<Thin> {
    let ts = params.tile_size_f32();
    let delta = ts / (2 * n + 2) as f32;
    (0..n)
        .map(|i| Thin {
            z0: delta * i as f32,
            z1: ts - delta * i as f32,
            y: 0.0,
            depth: 8.0,
        })
        .collect()
}

/// A flat tile at (x, z, layer) of `cells × cells` square polygons (no in-tile adjacency, no
/// portals) with the off-mesh link slots `links`. `cells` a power of two.
pub fn square_cells(
    params: &NavMeshParams,
    x: i32,
    z: i32,
    layer: u16,
    origin_y: f64,
    cells: usize,
    links: Vec<OffMeshLinkSlot>,
) -> NavTile {
    let ts = params.tile_size_f32();
    let cell = ts / cells as f32;
    let mut vertices = Vec::with_capacity((cells + 1) * (cells + 1));
    for j in 0..=cells {
        for i in 0..=cells {
            vertices.push([cell * i as f32, 0.0, cell * j as f32]);
        }
    }
    let v = |i: usize, j: usize| (j * (cells + 1) + i) as u16;
    let mut corners = Vec::with_capacity(cells * cells * 4);
    for j in 0..cells {
        for i in 0..cells {
            corners.extend([v(i, j), v(i + 1, j), v(i + 1, j + 1), v(i, j + 1)]);
        }
    }
    let sides = vec![NO_PORTAL; corners.len()];
    polygons(
        params,
        (x, z, layer, origin_y),
        vertices,
        4,
        corners,
        sides,
        links,
    )
}

/// The valid tile at (x, z, layer, OriginY) of polygons of `size` corners each, listed in
/// `corners`, without in-tile adjacency, area 0 and flags 1.
fn polygons(
    params: &NavMeshParams,
    (x, z, layer, origin_y): (i32, i32, u16, f64),
    vertices: Vec<[f32; 3]>,
    size: u8,
    corners: Vec<u16>,
    edge_portal_sides: Vec<u8>,
    off_mesh_links: Vec<OffMeshLinkSlot>,
) -> NavTile {
    let n = corners.len() / usize::from(size);
    NavTile::create(
        params,
        NavTileData {
            tile_x: x,
            tile_z: z,
            layer,
            origin_y,
            vertices,
            poly_sizes: vec![size; n],
            poly_areas: vec![0; n],
            poly_flags: vec![1; n],
            edge_neighbours: vec![0; corners.len()],
            corners,
            edge_portal_sides,
            off_mesh_links,
            ..Default::default()
        },
    )
    .expect("crafted polygons make a valid tile")
}

/// `count` off-mesh links between cell centres of a `cells × cells` tile (link `i` from cell
/// `i mod P` to cell `(7·i + 3) mod P`), radius 0.4 cells, bidirectional every other one.
pub fn cell_links(params: &NavMeshParams, cells: usize, count: usize) -> Vec<OffMeshLinkSlot> {
    let cell = params.tile_size_f32() / cells as f32;
    let p = cells * cells;
    let centre = |c: usize| {
        [
            cell * ((c % cells) as f32 + 0.5),
            0.0,
            cell * ((c / cells) as f32 + 0.5),
        ]
    };
    (0..count)
        .map(|i| OffMeshLinkSlot {
            start: centre(i % p),
            end: centre((7 * i + 3) % p),
            radius: 0.4 * cell,
            area: 0,
            bidirectional: i % 2 == 0,
            flags: 1,
            user_id: i as u32,
        })
        .collect()
}

/// Thin triangles per side of the crafted boundary of issue 22 (4 000 nested ones facing 4 000:
/// 16 M overlapping pairs against a cap of 512 000).
pub const BOUNDARY_TRIANGLES: usize = 4000;

/// Tile (0, 0) with [`BOUNDARY_TRIANGLES`] nested thin triangles on its +X side (accepted
/// alone).
pub fn boundary_plus(p: &NavMeshParams) -> NavTile {
    thin_triangles(p, 0, 0, 0.0, &nested(p, BOUNDARY_TRIANGLES), &[], vec![])
}

/// Tile (1, 0) with [`BOUNDARY_TRIANGLES`] nested thin triangles on its −X side, facing
/// [`boundary_plus`].
pub fn boundary_minus(p: &NavMeshParams) -> NavTile {
    thin_triangles(p, 1, 0, 0.0, &[], &nested(p, BOUNDARY_TRIANGLES), vec![])
}

/// An ordinary tile of column (x, 0): two floors of a partition of its ±X sides.
pub fn ordinary(p: &NavMeshParams, x: i32) -> NavTile {
    let part = partition(p, 8, 0.0);
    thin_triangles(p, x, 0, 0.0, &part, &part, vec![])
}
