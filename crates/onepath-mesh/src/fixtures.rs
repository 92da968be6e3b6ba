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

/// Parameters of [`bridge_and_building`]: origin (0, 0, 0), tiles of 16 units, cells of
/// 0.25, polygons of up to 6 vertices, climb 0.5, radius 0.5, height 2, slope 45°.
pub fn bridge_and_building_params() -> NavMeshParams {
    let mut p = NavMeshParams::new([0.0, 0.0, 0.0], 16.0, 0.25, 6);
    p.walkable_climb = 0.5;
    p.agent_radius = 0.5;
    p.agent_height = 2.0;
    p
}

/// Area of road polygons in [`bridge_and_building`].
pub const ROAD_AREA: u8 = 2;
/// Area of the building's floors in [`bridge_and_building`].
pub const INDOOR_AREA: u8 = 3;

/// World-space polygons of one tile, sharing vertices by exact position, handed to
/// `NavTileAssembler::from_polygons`.
#[derive(Default)]
struct TileSketch {
    vertices: Vec<[f64; 3]>,
    index: std::collections::BTreeMap<[u64; 3], u32>,
    sizes: Vec<u8>,
    indices: Vec<u32>,
    areas: Vec<u8>,
}

impl TileSketch {
    fn vertex(&mut self, v: [f64; 3]) -> u32 {
        let key = v.map(f64::to_bits);
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.vertices.len() as u32;
        self.vertices.push(v);
        self.index.insert(key, i);
        i
    }

    /// A polygon through world points (any winding; the assembler orients it).
    fn poly(&mut self, pts: &[[f64; 3]], area: u8) {
        for &p in pts {
            let i = self.vertex(p);
            self.indices.push(i);
        }
        self.sizes.push(pts.len() as u8);
        self.areas.push(area);
    }

    /// Flat rectangles at height `y` over the grid of world cuts, skipping cells for which
    /// `skip(x0, z0)` holds; `area(x0, z0)` gives each cell's area.
    fn flat_grid(
        &mut self,
        xs: &[f64],
        zs: &[f64],
        y: f64,
        skip: impl Fn(f64, f64) -> bool,
        area: impl Fn(f64, f64) -> u8,
    ) {
        for zw in zs.windows(2) {
            for xw in xs.windows(2) {
                let (x0, x1, z0, z1) = (xw[0], xw[1], zw[0], zw[1]);
                if skip(x0, z0) {
                    continue;
                }
                self.poly(
                    &[[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]],
                    area(x0, z0),
                );
            }
        }
    }

    fn build(
        self,
        params: &NavMeshParams,
        (x, z, layer): (i32, i32, u16),
        origin_y: f64,
        links: Vec<onepath_format::OffMeshLinkSlot>,
    ) -> Result<NavTile, FormatError> {
        let mut d = onepath_format::NavTileAssembler::from_polygons(
            params,
            x,
            z,
            layer,
            origin_y,
            &self.vertices,
            &self.sizes,
            &self.indices,
            Some(&self.areas),
            None,
        )?;
        d.off_mesh_links = links;
        NavTile::create(params, d)
    }
}

/// The tiles of [`bridge_and_building`], in the order the fixture adds them.
///
/// World layout (Y up; tiles of 16 × 16; row 0 is z 0..16, row 1 is z 16..32):
/// - Row 0, a road crossing a bridge. Column 1 (x 16..32) holds the road: ground at y 0
///   (layer 0) with a road strip x 22..26 (area [`ROAD_AREA`]); above it, layer 1 is the
///   bridge deck x 16..32, z 6..10 at y 3. Columns 0 and 2 (layer 0) are ground at y 0
///   with ramps (x 8..16 rising to y 3, x 32..40 falling from y 3) in z 6..10, so the deck
///   meets the ramps at the column boundaries and the road passes under it. A bidirectional
///   off-mesh link (a ladder) joins the deck at (24, 3, 8) and the road at (24, 0, 12).
/// - Row 1, a two-storey building. Column 0: ground floor at y 0 (layer 0; indoor area
///   [`INDOOR_AREA`] over x 4..16, z 20..28) and an upper floor x 4..16, z 20..28 at
///   y 3.5 (layer 1). Column 1 (layer 0): ground at y 0 with stairs x 16..24, z 22..26
///   rising from y 0 at x 24 to y 3.5 at x 16, where they meet the upper floor across the
///   column boundary. A one-way off-mesh link jumps from the upper floor at (6, 3.5, 24)
///   down to the ground at (2, 0, 24).
pub fn bridge_and_building_tiles() -> Result<Vec<NavTile>, FormatError> {
    let p = bridge_and_building_params();
    let mut tiles = Vec::new();
    let z_row0 = [0.0, 6.0, 10.0, 16.0];
    let ramp = |s: &mut TileSketch, xa: f64, ya: f64, xb: f64, yb: f64| {
        s.poly(
            &[[xa, ya, 6.0], [xb, yb, 6.0], [xb, yb, 10.0], [xa, ya, 10.0]],
            0,
        );
    };
    // (0, 0, 0): ground with the west ramp.
    let mut s = TileSketch::default();
    s.flat_grid(
        &[0.0, 8.0, 16.0],
        &z_row0,
        0.0,
        |x, z| x == 8.0 && z == 6.0,
        |_, _| 0,
    );
    ramp(&mut s, 8.0, 0.0, 16.0, 3.0);
    tiles.push(s.build(&p, (0, 0, 0), 0.0, Vec::new())?);
    // (1, 0, 0): ground and road under the bridge.
    let mut s = TileSketch::default();
    s.flat_grid(
        &[16.0, 22.0, 26.0, 32.0],
        &z_row0,
        0.0,
        |_, _| false,
        |x, _| if x == 22.0 { ROAD_AREA } else { 0 },
    );
    tiles.push(s.build(&p, (1, 0, 0), 0.0, Vec::new())?);
    // (1, 0, 1): the bridge deck, with the ladder down to the road.
    let mut s = TileSketch::default();
    s.poly(
        &[
            [16.0, 3.0, 6.0],
            [32.0, 3.0, 6.0],
            [32.0, 3.0, 10.0],
            [16.0, 3.0, 10.0],
        ],
        0,
    );
    let ladder = onepath_format::OffMeshLinkSlot {
        start: [8.0, 0.0, 8.0],
        end: [8.0, -3.0, 12.0],
        radius: 1.0,
        area: 0,
        bidirectional: true,
        flags: 1,
        user_id: 1,
    };
    tiles.push(s.build(&p, (1, 0, 1), 3.0, vec![ladder])?);
    // (2, 0, 0): ground with the east ramp.
    let mut s = TileSketch::default();
    s.flat_grid(
        &[32.0, 40.0, 48.0],
        &z_row0,
        0.0,
        |x, z| x == 32.0 && z == 6.0,
        |_, _| 0,
    );
    ramp(&mut s, 32.0, 3.0, 40.0, 0.0);
    tiles.push(s.build(&p, (2, 0, 0), 0.0, Vec::new())?);
    // (0, 1, 0): the building's ground floor and its surroundings.
    let mut s = TileSketch::default();
    s.flat_grid(
        &[0.0, 4.0, 16.0],
        &[16.0, 20.0, 28.0, 32.0],
        0.0,
        |_, _| false,
        |x, z| {
            if x == 4.0 && z == 20.0 {
                INDOOR_AREA
            } else {
                0
            }
        },
    );
    tiles.push(s.build(&p, (0, 1, 0), 0.0, Vec::new())?);
    // (0, 1, 1): the upper floor, with the jump down outside.
    let mut s = TileSketch::default();
    s.poly(
        &[
            [4.0, 3.5, 20.0],
            [16.0, 3.5, 20.0],
            [16.0, 3.5, 28.0],
            [4.0, 3.5, 28.0],
        ],
        INDOOR_AREA,
    );
    let jump = onepath_format::OffMeshLinkSlot {
        start: [6.0, 0.0, 8.0],
        end: [2.0, -3.5, 8.0],
        radius: 0.5,
        area: 0,
        bidirectional: false,
        flags: 1,
        user_id: 2,
    };
    tiles.push(s.build(&p, (0, 1, 1), 3.5, vec![jump])?);
    // (1, 1, 0): ground with the stairs up to the upper floor.
    let mut s = TileSketch::default();
    s.flat_grid(
        &[16.0, 24.0, 32.0],
        &[16.0, 22.0, 26.0, 32.0],
        0.0,
        |x, z| x == 16.0 && z == 22.0,
        |_, _| 0,
    );
    s.poly(
        &[
            [16.0, 3.5, 22.0],
            [24.0, 0.0, 22.0],
            [24.0, 0.0, 26.0],
            [16.0, 3.5, 26.0],
        ],
        INDOOR_AREA,
    );
    tiles.push(s.build(&p, (1, 1, 0), 0.0, Vec::new())?);
    Ok(tiles)
}

/// A multi-tile, multi-layer mesh: a bridge over a road and a two-storey building with
/// stairs (see [`bridge_and_building_tiles`] for the layout), tiles added in that order
/// into slots 0..=6, all with generation 1. Its ONPM bytes are committed as
/// `fixtures/meshes/bridge_and_building.onpm`, and a test checks they still match.
pub fn bridge_and_building() -> crate::TiledNavMesh {
    let build = || -> Result<crate::TiledNavMesh, crate::MeshError> {
        let mut m = crate::TiledNavMesh::new(bridge_and_building_params())?;
        for t in bridge_and_building_tiles()? {
            m.add_tile(t)?;
        }
        Ok(m)
    };
    // Fixed inputs: a failure here is a bug, caught by the fixture's tests.
    build().expect("the bridge_and_building fixture is valid")
}
