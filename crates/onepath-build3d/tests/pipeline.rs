//! End-to-end checks of the 3D builder: determinism across thread counts, tile validity,
//! stitching across tile borders, geometry sanity on generated levels.

use onepath_build3d::generators::{
    add_box, add_floor, building_with_bridge, city, rolling_terrain, CityParams, TerrainParams,
};
use onepath_build3d::{
    BuildConfig, BuildError, BuiltMesh, ChunkyTriMesh, Mesh3DPipeline, TriangleSoup,
};
use onepath_format::{NavTile, Partition};
use onepath_stitch::LinkKind;

fn floor(x0: f64, z0: f64, x1: f64, z1: f64, y: f64) -> TriangleSoup {
    let mut s = TriangleSoup::default();
    add_floor(&mut s, x0, z0, x1, z1, y);
    s
}

fn build(cfg: BuildConfig, soup: &TriangleSoup) -> BuiltMesh {
    Mesh3DPipeline::new(cfg).build_soup(soup).unwrap()
}

fn with_threads<T: Send>(n: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
        .install(f)
}

fn tile_bytes(b: &BuiltMesh) -> Vec<Vec<u8>> {
    b.tiles.iter().map(NavTile::to_bytes).collect()
}

/// Walkable area (X/Z) of every polygon of every tile.
fn walkable_area(b: &BuiltMesh) -> f64 {
    let mut area = 0.0;
    for t in &b.tiles {
        let d = t.data();
        for p in 0..t.poly_count() {
            let vs: Vec<[f32; 3]> = t
                .poly_corners(p)
                .map(|c| d.vertices[usize::from(d.corners[c])])
                .collect();
            for i in 0..vs.len() {
                let j = (i + 1) % vs.len();
                area += 0.5
                    * (f64::from(vs[i][0]) * f64::from(vs[j][2])
                        - f64::from(vs[j][0]) * f64::from(vs[i][2]));
            }
        }
    }
    area
}

fn small_city() -> TriangleSoup {
    city(&CityParams {
        seed: 7,
        blocks: 2,
        block_size: 14.0,
        street_width: 5.0,
    })
}

#[test]
fn same_build_at_1_2_and_4_threads_gives_identical_tile_bytes() {
    let soup = small_city();
    for partition in [Partition::Watershed, Partition::Monotone, Partition::Layers] {
        let cfg = BuildConfig {
            partition,
            ..BuildConfig::default()
        };
        let one = with_threads(1, || tile_bytes(&build(cfg.clone(), &soup)));
        assert!(one.len() > 4, "{partition:?}: {} tiles", one.len());
        for n in [2, 4] {
            let many = with_threads(n, || tile_bytes(&build(cfg.clone(), &soup)));
            assert_eq!(one, many, "{partition:?} at {n} threads");
        }
    }
}

#[test]
fn every_produced_tile_passes_nav_tile_create_and_round_trips_its_bytes() {
    let terrain = rolling_terrain(&TerrainParams::default())
        .to_soup()
        .unwrap();
    for soup in [small_city(), building_with_bridge(3), terrain] {
        for partition in [Partition::Watershed, Partition::Monotone, Partition::Layers] {
            let cfg = BuildConfig {
                partition,
                ..BuildConfig::default()
            };
            let b = build(cfg, &soup);
            for t in &b.tiles {
                let again = NavTile::create(&b.params, t.data().clone()).unwrap();
                assert_eq!(&again, t);
                let bytes = t.to_bytes();
                assert_eq!(
                    NavTile::from_bytes(&bytes, &b.params).unwrap().to_bytes(),
                    bytes
                );
            }
        }
    }
}

#[test]
fn walkable_area_of_a_flat_square_equals_the_eroded_area_within_one_cell() {
    // 20 x 20 floor; the agent radius (0.6, 2 cells) plus the ledge cell come off each side.
    let cfg = BuildConfig::default();
    let b = build(cfg.clone(), &floor(0.0, 0.0, 20.0, 20.0, 0.0));
    let cs = cfg.cell_size;
    let shrink = 0.6 + cs;
    let eroded = (20.0 - 2.0 * shrink) * (20.0 - 2.0 * shrink);
    let perimeter = 4.0 * (20.0 - 2.0 * shrink);
    let area = walkable_area(&b);
    assert!(
        (area - eroded).abs() <= perimeter * cs,
        "area {area}, eroded {eroded}"
    );
}

/// Portal edges whose neighbour column holds a tile, and how many of them have no portal
/// link.
fn portal_edges_without_link(b: &BuiltMesh) -> (usize, usize) {
    let (mut total, mut unlinked) = (0, 0);
    for mt in b.mesh.tiles() {
        let t = mt.tile();
        let d = t.data();
        let (tx, tz, _) = t.position();
        for p in 0..t.poly_count() {
            let links = mt.poly_links(p);
            for (k, c) in t.poly_corners(p).enumerate() {
                let side = d.edge_portal_sides[c];
                if side == onepath_format::NO_PORTAL {
                    continue;
                }
                let (dx, dz) = [(1, 0), (0, 1), (-1, 0), (0, -1)][usize::from(side)];
                if b.mesh.tiles_at(tx + dx, tz + dz).next().is_none() {
                    continue;
                }
                total += 1;
                if !links.iter().any(
                    |l| matches!(l.kind, LinkKind::Portal { edge, .. } if usize::from(edge) == k),
                ) {
                    unlinked += 1;
                }
            }
        }
    }
    (total, unlinked)
}

#[test]
fn tiles_stitch_across_borders_with_no_gap_on_flat_ground() {
    let b = build(BuildConfig::default(), &floor(-3.0, -3.0, 30.0, 25.0, 1.0));
    assert!(b.tiles.len() >= 9);
    let (total, unlinked) = portal_edges_without_link(&b);
    assert!(total > 10);
    assert_eq!(unlinked, 0);
}

#[test]
fn tiles_stitch_across_borders_with_no_gap_on_rolling_terrain() {
    let soup = rolling_terrain(&TerrainParams::default())
        .to_soup()
        .unwrap();
    for partition in [Partition::Watershed, Partition::Layers] {
        let cfg = BuildConfig {
            partition,
            ..BuildConfig::default()
        };
        let (total, unlinked) = portal_edges_without_link(&build(cfg, &soup));
        assert!(total > 20);
        assert_eq!(unlinked, 0, "{partition:?}");
    }
}

#[test]
fn build_chunk_gives_the_tiles_build_soup_gives() {
    let soup = small_city();
    let cfg = BuildConfig::default();
    let a = tile_bytes(&build(cfg.clone(), &soup));
    let chunky = ChunkyTriMesh::new(soup, 4.0).unwrap();
    let b = tile_bytes(&Mesh3DPipeline::new(cfg).build_chunk(&chunky).unwrap());
    assert_eq!(a, b);
}

#[test]
fn overhangs_lower_than_the_agent_height_are_not_walkable() {
    // A floor with a low slab (1.2 above it, under the agent height of 2.0) over its middle.
    let mut soup = floor(0.0, 0.0, 9.0, 9.0, 0.0);
    add_box(&mut soup, [3.0, 1.2, 3.0], [6.0, 1.4, 6.0]);
    let b = build(BuildConfig::default(), &soup);
    for t in &b.tiles {
        let d = t.data();
        for p in 0..t.poly_count() {
            // Centroid of the polygon must not lie under the slab.
            let vs: Vec<[f32; 3]> = t
                .poly_corners(p)
                .map(|c| d.vertices[usize::from(d.corners[c])])
                .collect();
            let n = vs.len() as f32;
            let cx = vs.iter().map(|v| v[0]).sum::<f32>() / n;
            let cz = vs.iter().map(|v| v[2]).sum::<f32>() / n;
            let cy = d.origin_y as f32 + vs.iter().map(|v| v[1]).sum::<f32>() / n;
            let under = cx > 3.0 && cx < 6.0 && cz > 3.0 && cz < 6.0 && cy < 1.0;
            assert!(
                !under,
                "polygon {p} at ({cx}, {cy}, {cz}) lies under the low slab"
            );
        }
    }
}

#[test]
fn no_polygon_lies_over_a_wall() {
    // A wall 0.4 thick, 3 high across a floor: no polygon may cover the wall's footprint at
    // floor level, and the top (0.4 wide) is too narrow to keep after erosion.
    let mut soup = floor(0.0, 0.0, 9.0, 9.0, 0.0);
    add_box(&mut soup, [4.3, 0.0, 0.0], [4.7, 3.0, 9.0]);
    let b = build(BuildConfig::default(), &soup);
    for t in &b.tiles {
        let d = t.data();
        for p in 0..t.poly_count() {
            let xs: Vec<f32> = t
                .poly_corners(p)
                .map(|c| d.vertices[usize::from(d.corners[c])][0])
                .collect();
            let lo = xs.iter().cloned().fold(f32::INFINITY, f32::min);
            let hi = xs.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            assert!(
                hi <= 4.3 || lo >= 4.7,
                "polygon {p} spans x {lo}..{hi} across the wall"
            );
        }
    }
}

/// Whether polygons lie on the terrace (above 2.2) and on the ground (below 0.5), and every
/// terrace polygon is connected to the ground over in-tile and portal links.
fn terrace_connects_to_ground(soup: &TriangleSoup) -> bool {
    let b = build(BuildConfig::default(), soup);
    let tiles: Vec<_> = b.mesh.tiles().collect();
    let ids: Vec<(usize, usize)> = tiles
        .iter()
        .enumerate()
        .flat_map(|(ti, mt)| (0..mt.tile().poly_count()).map(move |p| (ti, p)))
        .collect();
    let index_of = |slot: u32, p: u32| {
        ids.iter()
            .position(|&(t, q)| tiles[t].slot() == slot && q == p as usize)
    };
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut x = x;
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut parent: Vec<usize> = (0..ids.len()).collect();
    for (k, &(t, p)) in ids.iter().enumerate() {
        let mt = tiles[t];
        let d = mt.tile().data();
        let mut joined = Vec::new();
        for c in mt.tile().poly_corners(p) {
            if d.edge_neighbours[c] != 0 {
                joined.push(index_of(mt.slot(), d.edge_neighbours[c] - 1).unwrap());
            }
        }
        for l in mt.poly_links(p) {
            joined.push(index_of(l.target.slot(), l.target.poly()).unwrap());
        }
        for j in joined {
            let (a, bb) = (find(&mut parent, k), find(&mut parent, j));
            parent[a] = bb;
        }
    }
    let height = |k: usize| {
        let (t, p) = ids[k];
        let tile = tiles[t].tile();
        let d = tile.data();
        tile.poly_corners(p)
            .map(|c| d.origin_y + f64::from(d.vertices[usize::from(d.corners[c])][1]))
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let terrace: Vec<usize> = (0..ids.len()).filter(|&k| height(k) > 2.2).collect();
    let ground: Vec<usize> = (0..ids.len()).filter(|&k| height(k) < 0.5).collect();
    assert!(!terrace.is_empty() && !ground.is_empty());
    let g = find(&mut parent, ground[0]);
    terrace.iter().all(|&k| find(&mut parent, k) == g)
}

#[test]
fn stairs_within_the_climb_connect_floor_and_terrace() {
    // Steps of 0.2 (climb 0.9) up to a terrace 2.4 high.
    let mut soup = floor(0.0, 0.0, 16.0, 8.0, 0.0);
    onepath_build3d::generators::add_stairs(&mut soup, 2.0, 0.0, 2.0, 12, 0.4, 0.2, 3.0);
    add_box(&mut soup, [6.8, 0.0, 1.0], [12.0, 2.4, 7.0]);
    assert!(terrace_connects_to_ground(&soup));
}

#[test]
fn steps_higher_than_the_climb_do_not_connect() {
    // Two steps of 1.2 (climb 0.9) up to the same terrace.
    let mut soup = floor(0.0, 0.0, 16.0, 8.0, 0.0);
    onepath_build3d::generators::add_stairs(&mut soup, 2.0, 0.0, 2.0, 2, 2.4, 1.2, 3.0);
    add_box(&mut soup, [6.8, 0.0, 1.0], [12.0, 2.4, 7.0]);
    assert!(!terrace_connects_to_ground(&soup));
}

#[test]
fn ramps_within_the_slope_connect_floor_and_terrace() {
    // A ramp rising 2.4 over 6.0 (about 22°, under the 45° slope) onto a terrace.
    let mut soup = floor(0.0, 0.0, 16.0, 8.0, 0.0);
    let b = soup.vertices.len() as u32;
    soup.vertices.extend_from_slice(&[
        [0.8, 0.0, 2.0],
        [0.8, 0.0, 5.0],
        [6.8, 2.4, 5.0],
        [6.8, 2.4, 2.0],
    ]);
    soup.triangles
        .extend_from_slice(&[[b, b + 1, b + 2], [b, b + 2, b + 3]]);
    add_box(&mut soup, [6.8, 0.0, 1.0], [12.0, 2.4, 7.0]);
    assert!(terrace_connects_to_ground(&soup));
}

#[test]
fn bridge_over_a_road_gives_several_layers_with_the_layer_partition() {
    let soup = building_with_bridge(3);
    let cfg = BuildConfig {
        partition: Partition::Layers,
        ..BuildConfig::default()
    };
    let b = build(cfg, &soup);
    assert!(
        b.tiles.iter().any(|t| t.position().2 > 0),
        "no tile above layer 0"
    );
    // The layer partition cuts the same walkable area (within 1 %) into more tiles.
    let watershed = build(BuildConfig::default(), &soup);
    let (a, w) = (walkable_area(&b), walkable_area(&watershed));
    assert!((a - w).abs() <= 0.01 * w, "layers {a} vs watershed {w}");
}

#[test]
fn bad_triangle_index_is_rejected_naming_the_triangle() {
    let soup = TriangleSoup {
        vertices: vec![[0.0; 3]; 3],
        triangles: vec![[0, 1, 2], [0, 1, 3]],
        areas: None,
    };
    let e = Mesh3DPipeline::new(BuildConfig::default())
        .build_soup(&soup)
        .unwrap_err();
    assert!(
        matches!(e, BuildError::InvalidInput { ref what, .. } if what == "triangle 1: index 2"),
        "{e}"
    );
}

#[test]
fn coordinate_beyond_the_bound_is_rejected_naming_the_vertex() {
    let soup = TriangleSoup {
        vertices: vec![[0.0; 3], [3e6, 0.0, 0.0], [0.0, 0.0, 1.0]],
        triangles: vec![[0, 1, 2]],
        areas: None,
    };
    let e = Mesh3DPipeline::new(BuildConfig::default())
        .build_soup(&soup)
        .unwrap_err();
    assert!(
        matches!(e, BuildError::Coordinate(ref c) if c.what == "vertices[1].x"),
        "{e}"
    );
}

#[test]
fn no_polygon_of_the_generated_city_lies_over_a_building_wall() {
    // Every polygon vertex keeps off each building's walls by the agent radius (less half a
    // cell of rasterization), inside (interior floors of the closed boxes) or outside; no
    // polygon has vertices on both sides of a wall.
    let (soup, buildings) =
        onepath_build3d::generators::city_with_buildings(&CityParams::default());
    let b = build(BuildConfig::default(), &soup);
    let keep_off = 0.6 - 0.15;
    let mut checked = 0;
    for t in &b.tiles {
        let d = t.data();
        let (ox, oz) = b.params.tile_origin(d.tile_x, d.tile_z);
        for p in 0..t.poly_count() {
            let vs: Vec<[f64; 3]> = t
                .poly_corners(p)
                .map(|c| {
                    let v = d.vertices[usize::from(d.corners[c])];
                    [
                        ox + f64::from(v[0]),
                        d.origin_y + f64::from(v[1]),
                        oz + f64::from(v[2]),
                    ]
                })
                .collect();
            for (lo, hi) in &buildings {
                // Only polygons below the roof meet the walls.
                if vs.iter().all(|v| v[1] > hi[1] - 0.5) {
                    continue;
                }
                let inside =
                    |v: &[f64; 3]| v[0] > lo[0] && v[0] < hi[0] && v[2] > lo[2] && v[2] < hi[2];
                let wall_distance = |v: &[f64; 3]| {
                    let dx = (v[0] - lo[0]).abs().min((v[0] - hi[0]).abs());
                    let dz = (v[2] - lo[2]).abs().min((v[2] - hi[2]).abs());
                    let within_z = v[2] >= lo[2] - keep_off && v[2] <= hi[2] + keep_off;
                    let within_x = v[0] >= lo[0] - keep_off && v[0] <= hi[0] + keep_off;
                    let mut d = f64::INFINITY;
                    if within_z {
                        d = d.min(dx);
                    }
                    if within_x {
                        d = d.min(dz);
                    }
                    d
                };
                let n_in = vs.iter().filter(|v| inside(v)).count();
                assert!(
                    n_in == 0 || n_in == vs.len(),
                    "polygon {p} of tile {:?} straddles a wall of {lo:?}..{hi:?}",
                    t.position()
                );
                for v in &vs {
                    assert!(
                        wall_distance(v) >= keep_off - 1e-3,
                        "vertex {v:?} within {keep_off} of a wall of {lo:?}..{hi:?}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100);
}
