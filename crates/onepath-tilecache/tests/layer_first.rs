//! Layer-first tiles (`docs/tilecache.md` §5): a tile's layers are decided once, after
//! erosion, and every later stage runs one layer at a time. Against the general path (the
//! layers decided on the marked areas), a tile with one layer is byte-identical and a tile
//! with several has the same walkable area within 1 %.

mod common;

use common::*;
use onepath_build3d::{Mesh3DPipeline, Obstacle, TriangleSoup};
use onepath_format::NavTileData;

/// Cylinders on a lattice over the level: enough to cut streets, floors and ramps, so that
/// the marked areas split differently from the eroded ones.
fn lattice_obstacles(soup: &TriangleSoup, n: usize) -> Vec<Obstacle> {
    let (lo, hi) = soup.bounds().unwrap();
    let mut out = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let fx = (i as f64 + 0.5) / n as f64;
            let fz = (j as f64 + 0.5) / n as f64;
            out.push(Obstacle::Cylinder {
                center: [
                    lo[0] + fx * (hi[0] - lo[0]),
                    lo[1] - 1.0,
                    lo[2] + fz * (hi[2] - lo[2]),
                ],
                radius: 1.0 + (i + j) as f64 % 3.0,
                height: hi[1] - lo[1] + 2.0,
            });
        }
    }
    out
}

/// The polygons' area in x/z (shoelace over the stored positions), f64.
fn walkable_area(tiles: &[NavTileData]) -> f64 {
    let mut total = 0.0;
    for d in tiles {
        let mut at = 0;
        for &n in &d.poly_sizes {
            let corners = &d.corners[at..at + usize::from(n)];
            at += usize::from(n);
            let mut a = 0.0;
            for k in 0..corners.len() {
                let p = d.vertices[usize::from(corners[k])];
                let q = d.vertices[usize::from(corners[(k + 1) % corners.len()])];
                a += f64::from(p[0]) * f64::from(q[2]) - f64::from(q[0]) * f64::from(p[2]);
            }
            total += (a / 2.0).abs();
        }
    }
    total
}

/// Compares every tile of `soup` built layer first with the general path, both marked with
/// `p.obstacles`; returns (one-layer tiles compared, tiles whose layers moved, multi-layer
/// tiles compared).
fn compare_with_the_general_path(
    name: &str,
    p: &Mesh3DPipeline,
    soup: &TriangleSoup,
) -> [usize; 3] {
    let params = p.config.params();
    let vc = p.config.voxel();
    let mut counts = [0; 3];
    for t in p.eroded_tiles_soup(soup).unwrap() {
        let mut chf = t.chf.clone();
        for o in &p.obstacles {
            o.mark(&mut chf, &vc);
        }
        let split = t
            .split
            .as_ref()
            .expect("layer-first tiles keep their split");
        let general = p
            .tile_data_from_compact(&params, &vc, t.vgrid, t.tile_x, t.tile_z, &chf)
            .unwrap();
        let first = p
            .tile_data_from_split(&params, &vc, t.vgrid, t.tile_x, t.tile_z, &chf, Some(split))
            .unwrap();
        let at = (name, t.tile_x, t.tile_z);
        if onepath_build3d::layers::LayerSplit::of(&chf).count != split.count {
            counts[1] += 1;
        }
        if general.len() <= 1 && first.len() <= 1 {
            assert_eq!(first, general, "{at:?}: a tile with one layer");
            counts[0] += 1;
        } else {
            let (a, b) = (walkable_area(&first), walkable_area(&general));
            assert!(
                (a - b).abs() <= 0.01 * b.max(a),
                "{at:?}: walkable area {a} layer first, {b} general"
            );
            counts[2] += 1;
        }
    }
    counts
}

#[test]
fn one_layer_tiles_equal_the_general_path_and_several_layers_keep_their_area_within_one_percent() {
    let mut totals = [0; 3];
    for (name, soup) in levels() {
        let mut p = layer_first_pipeline();
        p.obstacles = lattice_obstacles(&soup, 6);
        let c = compare_with_the_general_path(name, &p, &soup);
        for k in 0..3 {
            totals[k] += c[k];
        }
    }
    assert!(totals[0] > 0, "one-layer tiles were compared: {totals:?}");
    assert!(totals[2] > 0, "multi-layer tiles were compared: {totals:?}");
    assert!(
        totals[1] > 0,
        "the obstacles moved layers somewhere, so the two paths differ: {totals:?}"
    );
}

#[test]
fn a_layer_first_build_decides_its_layers_before_any_obstacle_and_equals_marking_each_layer() {
    // The plain build with obstacles in the pipeline and a cache built without them, the
    // obstacles then added at run time: the same tiles (the split saw neither).
    let (_, soup) = levels().swap_remove(0);
    let obstacles = lattice_obstacles(&soup, 6);
    let mut with = layer_first_pipeline();
    with.obstacles = obstacles.clone();
    let fresh = with.build_soup(&soup).unwrap();
    let mut cache =
        onepath_tilecache::TileCache::build_soup(&layer_first_pipeline(), &soup).unwrap();
    for o in obstacles {
        cache.add_obstacle(o).unwrap();
    }
    cache.update_all().unwrap();
    assert_eq!(tiles_of(cache.mesh()), tiles_of_list(&fresh.tiles));
    let s = cache.stats();
    assert!(s.layers_built > 0 && s.layers_reused > 0, "{s:?}");
}

#[test]
fn an_obstacle_marks_exactly_the_spans_whose_cell_centre_and_floor_the_rule_names() {
    // `Obstacle::mark` only visits the columns of the grown footprint's box; the rule
    // itself, tested column by column over the whole grid, must agree.
    use rand::{Rng, SeedableRng};
    let (_, soup) = levels().swap_remove(0);
    let p = layer_first_pipeline();
    let vc = p.config.voxel();
    let tiles = p.eroded_tiles_soup(&soup).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(15);
    let g = f64::from(vc.walkable_radius) * vc.cs;
    for k in 0..200 {
        let t = &tiles[k % tiles.len()];
        let c = &t.chf;
        let w = f64::from(c.width) * c.cs;
        let at = |f: f64, o: f64| o - 2.0 + f * (w + 4.0);
        let cx = at(rng.gen(), c.origin[0]);
        let cz = at(rng.gen(), c.origin[2]);
        let o = match k % 3 {
            0 => Obstacle::Cylinder {
                center: [cx, -1.0, cz],
                radius: rng.gen_range(0.1..4.0),
                height: 5.0,
            },
            1 => Obstacle::Box {
                min: [cx, -1.0, cz],
                max: [
                    cx + rng.gen_range(0.0..5.0),
                    4.0,
                    cz + rng.gen_range(0.0..5.0),
                ],
            },
            _ => Obstacle::OrientedBox {
                center: [cx, 1.0, cz],
                half: [rng.gen_range(0.1..4.0), 3.0, rng.gen_range(0.1..4.0)],
                yaw: rng.gen_range(-4.0..4.0),
            },
        };
        let mut marked = c.clone();
        o.mark(&mut marked, &vc);
        for i in 0..c.span_count() {
            let x = c.origin[0] + (f64::from(c.span_x[i]) + 0.5) * c.cs;
            let z = c.origin[2] + (f64::from(c.span_z[i]) + 0.5) * c.cs;
            let y = c.origin[1] + f64::from(c.spans[i].y) * c.ch;
            let (inside, ylo, yhi) = match o {
                Obstacle::Cylinder {
                    center,
                    radius,
                    height,
                } => {
                    let (dx, dz) = (x - center[0], z - center[2]);
                    let r = radius + g;
                    (dx * dx + dz * dz <= r * r, center[1], center[1] + height)
                }
                Obstacle::Box { min, max } => (
                    x >= min[0] - g && x <= max[0] + g && z >= min[2] - g && z <= max[2] + g,
                    min[1],
                    max[1],
                ),
                Obstacle::OrientedBox { center, half, yaw } => {
                    let (s, co) = libm::sincos(yaw);
                    let (dx, dz) = (x - center[0], z - center[2]);
                    let u = dx * co + dz * s;
                    let v = dz * co - dx * s;
                    (
                        u.abs() <= half[0] + g && v.abs() <= half[2] + g,
                        center[1] - half[1],
                        center[1] + half[1],
                    )
                }
            };
            let expected = if c.areas[i] != 0 && inside && y >= ylo && y <= yhi {
                0
            } else {
                c.areas[i]
            };
            assert_eq!(marked.areas[i], expected, "obstacle {k} {o:?}, span {i}");
        }
    }
}
