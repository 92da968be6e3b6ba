//! Generated valid tiles for the property tests: a grid of cells with random split lines,
//! some cells merged into hexagons with collinear vertices, some split into triangles,
//! some polygons handed over clockwise, plus detail meshes and off-mesh links.

use onepath_format::{
    DetailMesh, DetailTriangle, NavMeshParams, NavTile, NavTileAssembler, NavTileData,
    OffMeshLinkSlot,
};

/// The parameters every generated tile is created against.
pub fn params() -> NavMeshParams {
    NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6)
}

/// splitmix64: a tiny deterministic generator so that a proptest seed is the whole input.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// A float in [lo, hi) on a 1/1024 grid (exact in f32 for the ranges used).
    pub fn grid(&mut self, lo: f32, hi: f32) -> f32 {
        let steps = ((hi - lo) * 1024.0) as u64;
        lo + self.below(steps.max(1)) as f32 / 1024.0
    }
}

/// Sorted, distinct split coordinates 0 = s0 < s1 < … < sn = TileSize.
fn splits(rng: &mut Rng, n: usize, ts: f32) -> Vec<f32> {
    let mut v = vec![0.0f32, ts];
    while v.len() < n + 1 {
        let c = rng.grid(0.0, ts);
        if !v.contains(&c) {
            v.push(c);
        }
    }
    v.sort_by(f32::total_cmp);
    v
}

/// A valid tile's data, derived from `seed`.
pub fn tile_data(seed: u64) -> NavTileData {
    let mut rng = Rng::new(seed);
    let p = params();
    let ts = p.tile_size as f32;
    let nx = 1 + rng.below(4) as usize;
    let nz = 1 + rng.below(4) as usize;
    let xs = splits(&mut rng, nx, ts);
    let zs = splits(&mut rng, nz, ts);
    let id = |i: usize, j: usize| (j * (nx + 1) + i) as u32;
    let mut world = Vec::new();
    for z in &zs {
        for x in &xs {
            world.push([f64::from(*x), f64::from(rng.grid(-4.0, 4.0)), f64::from(*z)]);
        }
    }
    let mut sizes: Vec<u8> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    let mut push = |rng: &mut Rng, poly: Vec<u32>| {
        let mut poly = poly;
        let r = rng.below(poly.len() as u64) as usize;
        poly.rotate_left(r);
        if rng.chance(20) {
            poly.reverse(); // handed over clockwise
        }
        sizes.push(poly.len() as u8);
        indices.extend(poly);
    };
    for j in 0..nz {
        let mut i = 0;
        while i < nx {
            if i + 1 < nx && rng.chance(25) {
                // Two cells as one hexagon with collinear vertices.
                push(
                    &mut rng,
                    vec![
                        id(i, j),
                        id(i + 1, j),
                        id(i + 2, j),
                        id(i + 2, j + 1),
                        id(i + 1, j + 1),
                        id(i, j + 1),
                    ],
                );
                i += 2;
                continue;
            }
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            if rng.chance(30) {
                push(&mut rng, vec![a, b, c]);
                push(&mut rng, vec![a, c, d]);
            } else {
                push(&mut rng, vec![a, b, c, d]);
            }
            i += 1;
        }
    }
    let n = sizes.len();
    let areas: Vec<u8> = (0..n).map(|_| rng.below(64) as u8).collect();
    let flags: Vec<u16> = (0..n).map(|_| rng.next() as u16).collect();
    let mut d = NavTileAssembler::from_polygons(
        &p,
        0,
        0,
        0,
        0.0,
        &world,
        &sizes,
        &indices,
        Some(&areas),
        Some(&flags),
    )
    .expect("generated polygons hand over");
    d.tile_x = rng.next() as i32;
    d.tile_z = rng.next() as i32;
    d.layer = rng.below(1024) as u16;
    d.origin_y = f64::from(rng.grid(-1000.0, 1000.0));
    if rng.chance(60) {
        for (p, &s) in d.poly_sizes.iter().enumerate() {
            let vc = rng.below(3) as u32;
            let tc = 1 + rng.below(4) as u32;
            d.detail_meshes.push(DetailMesh {
                vertex_base: d.detail_vertices.len() as u32,
                vertex_count: vc,
                triangle_base: d.detail_triangles.len() as u32,
                triangle_count: tc,
            });
            let _ = p;
            for _ in 0..vc {
                d.detail_vertices
                    .push([rng.grid(0.0, ts), rng.grid(-4.0, 4.0), rng.grid(0.0, ts)]);
            }
            let limit = u64::from(s) + u64::from(vc);
            for _ in 0..tc {
                d.detail_triangles.push(DetailTriangle {
                    v: [
                        rng.below(limit) as u8,
                        rng.below(limit) as u8,
                        rng.below(limit) as u8,
                    ],
                    edge_flags: rng.below(8) as u8,
                });
            }
        }
    }
    for _ in 0..rng.below(4) {
        d.off_mesh_links.push(OffMeshLinkSlot {
            start: [rng.grid(0.0, ts), rng.grid(-4.0, 4.0), rng.grid(0.0, ts)],
            end: [
                rng.grid(-20.0, 20.0),
                rng.grid(-4.0, 4.0),
                rng.grid(-20.0, 20.0),
            ],
            radius: rng.grid(0.0, 2.0) + 1.0 / 1024.0,
            area: rng.below(64) as u8,
            bidirectional: rng.chance(50),
            flags: rng.next() as u16,
            user_id: rng.next() as u32,
        });
    }
    d
}

/// A valid tile, derived from `seed`.
pub fn tile(seed: u64) -> NavTile {
    NavTile::create(&params(), tile_data(seed)).expect("generated tile is valid")
}

/// The proptest case count: `PROPTEST_CASES` when set (CI sets 10 000 or more), else
/// `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
