//! Deterministic, seeded level generators for tests and benchmarks: a city (streets,
//! blocks, buildings with stairs), rolling terrain, and a multi-storey building with a
//! bridge. `fixtures/levels/generated.json` records the parameters the tests use.
//!
//! Randomness is `ChaCha8Rng::seed_from_u64(seed)` drawing integers only; every coordinate
//! is an integer number of steps times a decimal constant, so the same seed gives the same
//! triangles everywhere.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::input::{HeightGrid, TriangleSoup};

/// Adds an axis-aligned box (closed; top faces up, bottom faces down).
pub fn add_box(soup: &mut TriangleSoup, min: [f64; 3], max: [f64; 3]) {
    let b = soup.vertices.len() as u32;
    let [x0, y0, z0] = min;
    let [x1, y1, z1] = max;
    soup.vertices.extend_from_slice(&[
        [x0, y0, z0],
        [x1, y0, z0],
        [x1, y0, z1],
        [x0, y0, z1],
        [x0, y1, z0],
        [x1, y1, z0],
        [x1, y1, z1],
        [x0, y1, z1],
    ]);
    let faces: [[u32; 3]; 12] = [
        [4, 7, 6],
        [4, 6, 5],
        [0, 2, 3],
        [0, 1, 2],
        [0, 5, 1],
        [0, 4, 5],
        [1, 6, 2],
        [1, 5, 6],
        [2, 7, 3],
        [2, 6, 7],
        [3, 4, 0],
        [3, 7, 4],
    ];
    soup.triangles
        .extend(faces.iter().map(|f| [b + f[0], b + f[1], b + f[2]]));
    if let Some(a) = soup.areas.as_mut() {
        a.extend(std::iter::repeat(63).take(12));
    }
}

/// Adds a flat quad at height `y` facing up.
pub fn add_floor(soup: &mut TriangleSoup, x0: f64, z0: f64, x1: f64, z1: f64, y: f64) {
    let b = soup.vertices.len() as u32;
    soup.vertices
        .extend_from_slice(&[[x0, y, z0], [x0, y, z1], [x1, y, z1], [x1, y, z0]]);
    soup.triangles.push([b, b + 1, b + 2]);
    soup.triangles.push([b, b + 2, b + 3]);
    if let Some(a) = soup.areas.as_mut() {
        a.extend([63, 63]);
    }
}

/// Adds a straight staircase along +x from `(x0, y0, z0)`: `steps` boxes of `run` by
/// `width`, each `rise` higher than the last.
#[allow(clippy::too_many_arguments)]
pub fn add_stairs(
    soup: &mut TriangleSoup,
    x0: f64,
    y0: f64,
    z0: f64,
    steps: u32,
    run: f64,
    rise: f64,
    width: f64,
) {
    for s in 0..steps {
        let xa = x0 + f64::from(s) * run;
        let top = y0 + f64::from(s + 1) * rise;
        add_box(soup, [xa, y0, z0], [xa + run, top, z0 + width]);
    }
}

/// Parameters of [`city`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CityParams {
    /// Seed.
    pub seed: u64,
    /// Blocks along X and Z.
    pub blocks: u32,
    /// Block edge (world).
    pub block_size: f64,
    /// Street width (world).
    pub street_width: f64,
}

impl Default for CityParams {
    fn default() -> Self {
        CityParams {
            seed: 7,
            blocks: 3,
            block_size: 14.0,
            street_width: 5.0,
        }
    }
}

/// A city: a ground plane, a grid of blocks (raised pavements 0.2 high) separated by
/// streets, each block with one or two buildings (boxes 3 to 12 high); every other building
/// has a staircase up to a first-floor terrace (a slab 2.4 high).
pub fn city(p: &CityParams) -> TriangleSoup {
    city_with_buildings(p).0
}

/// An axis-aligned box by its minimum and maximum corners.
pub type BoxCorners = ([f64; 3], [f64; 3]);

/// [`city`] and the boxes of its buildings, for checks against walls.
pub fn city_with_buildings(p: &CityParams) -> (TriangleSoup, Vec<BoxCorners>) {
    let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
    let mut soup = TriangleSoup::default();
    let mut buildings = Vec::new();
    let pitch = p.block_size + p.street_width;
    let extent = f64::from(p.blocks) * pitch + p.street_width;
    add_floor(&mut soup, 0.0, 0.0, extent, extent, 0.0);
    let mut n = 0u32;
    for bz in 0..p.blocks {
        for bx in 0..p.blocks {
            let x0 = p.street_width + f64::from(bx) * pitch;
            let z0 = p.street_width + f64::from(bz) * pitch;
            add_box(
                &mut soup,
                [x0, 0.0, z0],
                [x0 + p.block_size, 0.2, z0 + p.block_size],
            );
            let count = rng.gen_range(1..=2u32);
            for k in 0..count {
                // Building footprint inside the block's half, at least 1.5 from its edges.
                let half = p.block_size / f64::from(count);
                let bw = f64::from(rng.gen_range(8..=(half * 10.0 - 30.0).max(9.0) as u32)) / 10.0;
                let bd = f64::from(rng.gen_range(40..=(p.block_size * 10.0 - 30.0) as u32)) / 10.0;
                let hx = x0 + f64::from(k) * half + 1.5;
                let hz = z0 + 1.5;
                let height = f64::from(rng.gen_range(30..=120u32)) / 10.0;
                let (bmin, bmax) = (
                    [hx, 0.2, hz],
                    [
                        hx + bw.min(half - 2.0),
                        height,
                        hz + bd.min(p.block_size - 3.0),
                    ],
                );
                add_box(&mut soup, bmin, bmax);
                buildings.push((bmin, bmax));
                if n % 2 == 0 && bd + 4.5 < p.block_size {
                    // Stairs along +x in front of the building, up to a terrace 2.4 high.
                    let sz = hz + bd + 0.5;
                    add_stairs(&mut soup, hx, 0.2, sz, 11, 0.4, 0.2, 1.2);
                    add_box(&mut soup, [hx + 4.4, 0.2, sz], [hx + 7.4, 2.4, sz + 2.5]);
                }
                n += 1;
            }
        }
    }
    (soup, buildings)
}

/// Parameters of [`rolling_terrain`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TerrainParams {
    /// Seed.
    pub seed: u64,
    /// Samples along each axis.
    pub samples: u32,
    /// Distance between samples.
    pub spacing: f64,
    /// Largest hill amplitude.
    pub amplitude: f64,
}

impl Default for TerrainParams {
    fn default() -> Self {
        TerrainParams {
            seed: 11,
            samples: 49,
            spacing: 1.0,
            amplitude: 3.0,
        }
    }
}

impl TerrainParams {
    /// A steep rolling terrain for the portal audit (`tests/portal_audit.rs`) and the
    /// comparison with Recast: 97 × 97 samples 1.0 apart (96 × 96 units: 10 × 10 tiles of
    /// 32 cells, 5 × 5 of 64) and hills of amplitude 20 (heights within about ±12), so the
    /// steepest flanks are not walkable (walls and several regions inside a tile) and the
    /// surface along a tile boundary is far from straight. Before border vertices were
    /// removed, 14 of its 54 facing portal pairs at tiles of 64 cells did not link.
    pub fn steep() -> Self {
        TerrainParams {
            seed: 11,
            samples: 97,
            spacing: 1.0,
            amplitude: 20.0,
        }
    }
}

/// Rolling terrain: a sum of four seeded sine waves (libm's `sin`, so the heights are the
/// same everywhere).
pub fn rolling_terrain(p: &TerrainParams) -> HeightGrid {
    let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
    let waves: Vec<(f64, f64, f64, f64)> = (0..4)
        .map(|_| {
            let kx = f64::from(rng.gen_range(1..=8u32)) / 40.0;
            let kz = f64::from(rng.gen_range(1..=8u32)) / 40.0;
            let phase = f64::from(rng.gen_range(0..628u32)) / 100.0;
            let amp = f64::from(rng.gen_range(25..=100u32)) / 100.0;
            (kx, kz, phase, amp)
        })
        .collect();
    let n = p.samples;
    let mut heights = Vec::with_capacity((n * n) as usize);
    for j in 0..n {
        for i in 0..n {
            let x = f64::from(i) * p.spacing;
            let z = f64::from(j) * p.spacing;
            let mut h = 0.0;
            for &(kx, kz, ph, a) in &waves {
                h += a * libm::sin(kx * x + kz * z + ph);
            }
            heights.push(h * p.amplitude / 4.0);
        }
    }
    HeightGrid {
        origin: [0.0, 0.0],
        spacing: p.spacing,
        columns: n,
        rows: n,
        heights,
    }
}

/// A multi-storey building with a bridge: a ground plane 40 × 24; a building with a ground
/// floor and an upper floor slab at 3.0 reached by a straight staircase; a road along Z at
/// x 24..30 and a bridge deck at 3.0 from the upper floor across the road to a platform,
/// which has stairs back down. Floors overlap in columns (bridge over road, storey over
/// storey), so the layer partition gives several layers.
pub fn building_with_bridge(seed: u64) -> TriangleSoup {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut soup = TriangleSoup::default();
    add_floor(&mut soup, 0.0, 0.0, 40.0, 24.0, 0.0);
    // Upper floor slab of the building (x 2..22, z 4..20), 0.2 thick, top at 3.0.
    let slab_z1 = 20.0 - f64::from(rng.gen_range(0..=4u32)) * 0.5;
    add_box(&mut soup, [2.0, 2.8, 4.0], [22.0, 3.0, slab_z1]);
    // Staircase from the ground up to the slab along +x, beside the slab (z 0.8..2.8 is
    // outside the slab, then a landing joins it).
    add_stairs(&mut soup, 4.0, 0.0, 1.2, 15, 0.4, 0.2, 2.4);
    add_box(&mut soup, [10.0, 2.8, 1.2], [14.0, 3.0, 4.0]);
    // Bridge deck across the road (x 22..32) at the slab's height, z 10..13.
    add_box(&mut soup, [22.0, 2.8, 10.0], [32.0, 3.0, 13.0]);
    // Platform on the far side and stairs down along −x... built as stairs along +x from
    // the ground to the platform's edge.
    add_box(&mut soup, [32.0, 0.0, 8.0], [38.0, 3.0, 15.0]);
    add_stairs(&mut soup, 32.0 - 15.0 * 0.4, 0.0, 16.0, 15, 0.4, 0.2, 2.0);
    soup
}
