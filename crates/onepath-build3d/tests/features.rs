//! Obstacles, area volumes, authored off-mesh links, progress, settings and the other
//! inputs.

use onepath_build3d::generators::{add_box, add_floor, rolling_terrain, TerrainParams};
use onepath_build3d::{
    BuildConfig, BuildError, BuiltMesh, ConvexVolume, Mesh3DPipeline, Obstacle, TriangleSoup,
};
use onepath_format::{NavSettings, NavTile, OffMeshLinkDefinition, Partition};

fn floor(x0: f64, z0: f64, x1: f64, z1: f64, y: f64) -> TriangleSoup {
    let mut s = TriangleSoup::default();
    add_floor(&mut s, x0, z0, x1, z1, y);
    s
}

/// World X/Z centroids (and world Y) of every polygon with its area.
fn polys(b: &BuiltMesh) -> Vec<([f64; 3], u8)> {
    let mut out = Vec::new();
    for t in &b.tiles {
        let d = t.data();
        let (ox, oz) = b.params.tile_origin(d.tile_x, d.tile_z);
        for p in 0..t.poly_count() {
            let vs: Vec<[f32; 3]> = t
                .poly_corners(p)
                .map(|c| d.vertices[usize::from(d.corners[c])])
                .collect();
            let n = vs.len() as f64;
            let c = [
                ox + vs.iter().map(|v| f64::from(v[0])).sum::<f64>() / n,
                d.origin_y + vs.iter().map(|v| f64::from(v[1])).sum::<f64>() / n,
                oz + vs.iter().map(|v| f64::from(v[2])).sum::<f64>() / n,
            ];
            out.push((c, d.poly_areas[p]));
        }
    }
    out
}

/// Whether some polygon of the build covers world (x, z) (X/Z, boundary included).
fn covered(b: &BuiltMesh, x: f64, z: f64) -> bool {
    for t in &b.tiles {
        let d = t.data();
        let (ox, oz) = b.params.tile_origin(d.tile_x, d.tile_z);
        for p in 0..t.poly_count() {
            let vs: Vec<[f64; 2]> = t
                .poly_corners(p)
                .map(|c| {
                    let v = d.vertices[usize::from(d.corners[c])];
                    [ox + f64::from(v[0]), oz + f64::from(v[2])]
                })
                .collect();
            let n = vs.len();
            if (0..n).all(|i| {
                let (a, bb) = (vs[i], vs[(i + 1) % n]);
                (bb[0] - a[0]) * (z - a[1]) - (bb[1] - a[1]) * (x - a[0]) >= 0.0
            }) {
                return true;
            }
        }
    }
    false
}

#[test]
fn obstacle_cylinder_removes_walkable_ground_grown_by_the_agent_radius() {
    let soup = floor(0.0, 0.0, 19.0, 19.0, 0.0);
    let mut p = Mesh3DPipeline::new(BuildConfig::default());
    let before = p.build_soup(&soup).unwrap();
    assert!(covered(&before, 9.5, 9.5));
    p.obstacles = vec![Obstacle::Cylinder {
        center: [9.5, -1.0, 9.5],
        radius: 1.0,
        height: 3.0,
    }];
    let after = p.build_soup(&soup).unwrap();
    // Inside radius + agent radius (1.6) nothing is walkable; well outside it still is.
    for (x, z) in [(9.5, 9.5), (10.9, 9.5), (9.5, 8.1)] {
        assert!(!covered(&after, x, z), "({x}, {z}) still walkable");
    }
    for (x, z) in [(12.5, 9.5), (9.5, 6.0)] {
        assert!(covered(&after, x, z), "({x}, {z}) lost");
    }
}

#[test]
fn obstacle_only_removes_floors_inside_its_height_range() {
    let soup = floor(0.0, 0.0, 19.0, 19.0, 0.0);
    let mut p = Mesh3DPipeline::new(BuildConfig::default());
    let before = p.build_soup(&soup).unwrap();
    // A box floating above the floor (floor height 0 is below min y 0.5): no change.
    p.obstacles = vec![Obstacle::Box {
        min: [8.0, 0.5, 8.0],
        max: [11.0, 3.0, 11.0],
    }];
    let above = p.build_soup(&soup).unwrap();
    let b = |m: &BuiltMesh| m.tiles.iter().map(NavTile::to_bytes).collect::<Vec<_>>();
    assert_eq!(b(&before), b(&above));
    // The same box reaching the floor height (min y 0) cuts it.
    p.obstacles = vec![Obstacle::Box {
        min: [8.0, 0.0, 8.0],
        max: [11.0, 3.0, 11.0],
    }];
    let cut = p.build_soup(&soup).unwrap();
    assert!(!covered(&cut, 9.5, 9.5));
}

#[test]
fn oriented_box_obstacle_turns_by_its_yaw() {
    let soup = floor(0.0, 0.0, 19.0, 19.0, 0.0);
    let mut p = Mesh3DPipeline::new(BuildConfig::default());
    // A long thin box along +x, then turned a quarter turn: along +z.
    let bx = |yaw: f64| Obstacle::OrientedBox {
        center: [9.5, 0.0, 9.5],
        half: [5.0, 1.0, 0.2],
        yaw,
    };
    p.obstacles = vec![bx(0.0)];
    let along_x = p.build_soup(&soup).unwrap();
    p.obstacles = vec![bx(std::f64::consts::FRAC_PI_2)];
    let along_z = p.build_soup(&soup).unwrap();
    assert!(!covered(&along_x, 13.5, 9.5) && covered(&along_x, 9.5, 13.5));
    assert!(covered(&along_z, 13.5, 9.5) && !covered(&along_z, 9.5, 13.5));
}

#[test]
fn obstacle_with_a_non_positive_radius_is_rejected_naming_it() {
    let mut p = Mesh3DPipeline::new(BuildConfig::default());
    p.obstacles = vec![Obstacle::Cylinder {
        center: [0.0; 3],
        radius: 0.0,
        height: 1.0,
    }];
    let e = p.build_soup(&floor(0.0, 0.0, 5.0, 5.0, 0.0)).unwrap_err();
    assert!(
        matches!(e, BuildError::InvalidInput { ref what, .. } if what == "obstacles[0].radius"),
        "{e}"
    );
}

#[test]
fn convex_volume_sets_the_area_of_eroded_spans_and_the_later_volume_wins() {
    let soup = floor(0.0, 0.0, 19.0, 19.0, 0.0);
    let mut p = Mesh3DPipeline::new(BuildConfig::default());
    let square = |x0: f64, x1: f64, area: u8| ConvexVolume {
        points: vec![[x0, 2.0], [x1, 2.0], [x1, 17.0], [x0, 17.0]],
        min_y: -1.0,
        max_y: 1.0,
        area,
    };
    p.volumes = vec![square(2.0, 10.0, 5), square(6.0, 17.0, 9)];
    let b = p.build_soup(&soup).unwrap();
    let ps = polys(&b);
    let area_at = |x: f64, z: f64| {
        ps.iter()
            .filter(|(c, _)| (c[0] - x).abs() < 1.5 && (c[2] - z).abs() < 4.0)
            .map(|&(_, a)| a)
            .next()
    };
    assert_eq!(area_at(3.5, 9.5), Some(5));
    assert_eq!(area_at(12.0, 9.5), Some(9));
    assert!(
        ps.iter().any(|&(_, a)| a == 63),
        "the rest keeps the default area"
    );
    // Area 0 makes spans non-walkable without growing by the radius.
    p.volumes = vec![square(2.0, 10.0, 0)];
    let b = p.build_soup(&soup).unwrap();
    assert!(!covered(&b, 6.0, 9.5));
    assert!(covered(&b, 11.0, 9.5));
}

#[test]
fn authored_link_is_baked_into_the_tile_holding_its_start_in_definition_order() {
    let soup = floor(0.0, 0.0, 19.0, 9.0, 0.0);
    let link = |sx: f64, ex: f64, id: u32| OffMeshLinkDefinition {
        start: [sx, 0.0, 4.5],
        end: [ex, 0.0, 4.5],
        radius: 0.5,
        bidirectional: true,
        area: 7,
        flags: 3,
        user_id: id,
    };
    let cfg = BuildConfig {
        off_mesh_links: vec![
            link(3.0, 12.0, 1),
            link(15.0, 4.0, 2),
            link(5.0, 15.0, 3),
            link(100.0, 101.0, 4),
        ],
        ..BuildConfig::default()
    };
    let b = Mesh3DPipeline::new(cfg).build_soup(&soup).unwrap();
    let t0 = b.tiles.iter().find(|t| t.position() == (0, 0, 0)).unwrap();
    let t1 = b.tiles.iter().find(|t| t.position() == (1, 0, 0)).unwrap();
    let ids = |t: &NavTile| {
        t.data()
            .off_mesh_links
            .iter()
            .map(|l| l.user_id)
            .collect::<Vec<_>>()
    };
    // Link 4 starts where no tile was built: dropped.
    assert_eq!(ids(t0), vec![1, 3]);
    assert_eq!(ids(t1), vec![2]);
    let l = t1.data().off_mesh_links[0];
    let ts = b.params.tile_size;
    assert_eq!(
        l.start,
        [(15.0 - ts) as f32, (0.0 - t1.data().origin_y) as f32, 4.5]
    );
    assert_eq!(l.end[0], (4.0 - ts) as f32);
    assert_eq!(
        (l.area, l.flags, l.bidirectional, l.radius),
        (7, 3, true, 0.5)
    );
}

#[test]
fn authored_link_whose_end_is_beyond_max_local_extent_is_rejected_naming_it() {
    let cfg = BuildConfig {
        off_mesh_links: vec![OffMeshLinkDefinition {
            start: [1.0, 0.0, 1.0],
            end: [1.0 + 16384.0 * 0.3 + 1.0, 0.0, 1.0],
            radius: 0.5,
            bidirectional: false,
            area: 0,
            flags: 1,
            user_id: 9,
        }],
        ..BuildConfig::default()
    };
    let e = Mesh3DPipeline::new(cfg)
        .build_soup(&floor(0.0, 0.0, 9.0, 9.0, 0.0))
        .unwrap_err();
    assert!(
        matches!(e, BuildError::Coordinate(ref c) if c.what == "OffMeshLinks[0].end.x"),
        "{e}"
    );
}

#[test]
fn authored_link_goes_to_the_layer_nearest_its_start() {
    // Two floors in one column (0 and 4.0 high), Layers partition: a link starting on the
    // upper floor is baked into the upper floor's layer.
    let mut soup = floor(0.0, 0.0, 9.0, 9.0, 0.0);
    add_box(&mut soup, [0.5, 3.8, 0.5], [8.5, 4.0, 8.5]);
    let cfg = BuildConfig {
        partition: Partition::Layers,
        off_mesh_links: vec![OffMeshLinkDefinition {
            start: [4.5, 4.0, 4.5],
            end: [4.5, 0.0, 4.5],
            radius: 0.5,
            bidirectional: false,
            area: 1,
            flags: 1,
            user_id: 5,
        }],
        ..BuildConfig::default()
    };
    let b = Mesh3DPipeline::new(cfg).build_soup(&soup).unwrap();
    let with_link: Vec<_> = b
        .tiles
        .iter()
        .filter(|t| !t.data().off_mesh_links.is_empty())
        .collect();
    assert_eq!(with_link.len(), 1);
    let t = with_link[0];
    assert!(
        t.data().origin_y > 3.0,
        "link baked into the layer at {}",
        t.data().origin_y
    );
    assert!(
        b.tiles
            .iter()
            .filter(|u| u.position().0 == 0 && u.position().1 == 0)
            .count()
            >= 2
    );
}

#[test]
fn progress_reports_every_tile_once_up_to_the_total() {
    let soup = floor(0.0, 0.0, 30.0, 20.0, 0.0);
    let seen = std::sync::Mutex::new(Vec::new());
    let p = Mesh3DPipeline::new(BuildConfig::default());
    let b = p
        .build_soup_with_progress(&soup, &|done, total| {
            seen.lock().unwrap().push((done, total))
        })
        .unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort_unstable();
    let total = seen[0].1;
    assert!(total >= b.tiles.len());
    assert_eq!(seen, (1..=total).map(|d| (d, total)).collect::<Vec<_>>());
}

#[test]
fn settings_map_to_the_same_parameters_and_digest() {
    let mut s = NavSettings::default();
    s.set_min_region_area(64)
        .unwrap()
        .set_merge_region_area(400)
        .unwrap();
    let p = Mesh3DPipeline::from_settings(&s).unwrap();
    assert!(p.config.params().bitwise_eq(&s.to_params().unwrap()));
    assert_eq!(p.config.area, 63, "area 0 means the 3D default");
    let b = p.build_soup(&floor(0.0, 0.0, 9.0, 9.0, 0.0)).unwrap();
    assert_eq!(
        b.tiles[0].fingerprint(),
        s.to_params().unwrap().fingerprint()
    );
}

#[test]
fn tile_size_that_is_not_a_whole_number_of_cells_is_rejected() {
    let mut s = NavSettings::default();
    s.set_tile_size(10.0).unwrap();
    let e = Mesh3DPipeline::from_settings(&s).unwrap_err();
    assert!(
        matches!(
            e,
            BuildError::InvalidSetting {
                what: "TileSize",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn height_grid_builds_like_its_triangle_soup() {
    let grid = rolling_terrain(&TerrainParams::default());
    let p = Mesh3DPipeline::new(BuildConfig::default());
    let a = p.build_heightfield(&grid).unwrap();
    let b = p.build_soup(&grid.to_soup().unwrap()).unwrap();
    let bytes = |m: &BuiltMesh| m.tiles.iter().map(NavTile::to_bytes).collect::<Vec<_>>();
    assert_eq!(bytes(&a), bytes(&b));
    assert_eq!(a.tiles.len(), 25);
}

#[test]
fn detail_mesh_follows_the_terrain_within_the_max_error() {
    // Sample the detail surface at the centroid of each detail triangle and compare it with
    // the terrain's height there: within max error (0.2) + one cell height + the curvature
    // between samples (0.6 in all; measured 0.33 with sampling, 0.86 without).
    let grid = rolling_terrain(&TerrainParams::default());
    let b = Mesh3DPipeline::new(BuildConfig::default())
        .build_heightfield(&grid)
        .unwrap();
    let height = |x: f64, z: f64| {
        let (i, j) = (x.floor().clamp(0.0, 47.0), z.floor().clamp(0.0, 47.0));
        let (fx, fz) = (x - i, z - j);
        let h = |a: f64, c: f64| grid.heights[(c as usize) * 49 + a as usize];
        // The two triangles of the square (split along its diagonal).
        if fz >= fx {
            h(i, j) + (h(i + 1.0, j + 1.0) - h(i, j + 1.0)) * fx + (h(i, j + 1.0) - h(i, j)) * fz
        } else {
            h(i, j) + (h(i + 1.0, j) - h(i, j)) * fx + (h(i + 1.0, j + 1.0) - h(i + 1.0, j)) * fz
        }
    };
    let mut worst: f64 = 0.0;
    for t in &b.tiles {
        let d = t.data();
        let (ox, oz) = b.params.tile_origin(d.tile_x, d.tile_z);
        for p in 0..t.poly_count() {
            let dm = d.detail_meshes[p];
            let corners: Vec<usize> = t
                .poly_corners(p)
                .map(|c| usize::from(d.corners[c]))
                .collect();
            let vert = |i: u8| {
                let i = usize::from(i);
                if i < corners.len() {
                    d.vertices[corners[i]]
                } else {
                    d.detail_vertices[dm.vertex_base as usize + i - corners.len()]
                }
            };
            for k in 0..dm.triangle_count as usize {
                let tri = d.detail_triangles[dm.triangle_base as usize + k];
                let vs = tri.v.map(vert);
                let c = [0, 1, 2].map(|a| vs.iter().map(|v| f64::from(v[a])).sum::<f64>() / 3.0);
                let err = (d.origin_y + c[1] - height(ox + c[0], oz + c[2])).abs();
                worst = worst.max(err);
            }
        }
    }
    assert!(worst < 0.6, "worst detail height error {worst}");
}

#[test]
fn a_level_covering_too_many_tiles_is_rejected_before_allocating() {
    let soup = TriangleSoup {
        vertices: vec![
            [-2.0e6, 0.0, -2.0e6],
            [-2.0e6, 0.0, 2.0e6],
            [2.0e6, 0.0, 2.0e6],
        ],
        triangles: vec![[0, 1, 2]],
        areas: None,
    };
    let e = Mesh3DPipeline::new(BuildConfig::default())
        .build_soup(&soup)
        .unwrap_err();
    assert!(
        matches!(e, BuildError::InvalidInput { ref what, .. } if what == "vertices"),
        "{e}"
    );
}

#[test]
fn obj_faces_load_as_fans_in_file_order() {
    let dir = std::env::temp_dir().join(format!("onepath-build3d-obj-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("quad.obj");
    std::fs::write(&path, "v 0 0 0\nv 0 0 4\nv 4 0 4\nv 4 0 0\nf 1 2 3 4\n").unwrap();
    let soup = onepath_build3d::load_obj(&path).unwrap();
    assert_eq!(soup.vertices.len(), 4);
    assert_eq!(soup.triangles, vec![[0, 1, 2], [0, 2, 3]]);
    let missing = dir.join("absent.obj");
    let e = onepath_build3d::load_obj(&missing).unwrap_err();
    assert!(
        matches!(
            e,
            BuildError::Io { ref path, ref source }
                if path == &missing && source.get().kind() == std::io::ErrorKind::NotFound
        ),
        "{e}"
    );
    assert!(
        e.to_string().contains(&missing.display().to_string()),
        "{e}"
    );
    let garbled = dir.join("garbled.obj");
    std::fs::write(&garbled, "v 0 zero 0\n").unwrap();
    let e = onepath_build3d::load_obj(&garbled).unwrap_err();
    assert!(
        matches!(e, BuildError::InvalidInput { ref what, .. } if what == &garbled.display().to_string()),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tiles_come_in_tile_order_and_tile_i_is_in_slot_i() {
    let b = Mesh3DPipeline::new(BuildConfig {
        partition: Partition::Layers,
        ..BuildConfig::default()
    })
    .build_soup(&onepath_build3d::generators::building_with_bridge(3))
    .unwrap();
    let keys: Vec<(i32, i32, u16)> = b
        .tiles
        .iter()
        .map(|t| (t.position().1, t.position().0, t.position().2))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys, sorted);
    for (i, t) in b.tiles.iter().enumerate() {
        assert_eq!(
            b.mesh.tile_at_slot(i as u32).unwrap().tile().data(),
            t.data()
        );
    }
}

#[test]
fn building_from_the_eroded_tiles_equals_the_plain_build() {
    let soup =
        onepath_build3d::generators::city(&onepath_build3d::generators::CityParams::default());
    let obstacles = vec![
        Obstacle::Cylinder {
            center: [12.0, 0.0, 3.0],
            radius: 1.0,
            height: 2.0,
        },
        Obstacle::Box {
            min: [30.0, 0.0, 2.0],
            max: [33.0, 1.0, 4.0],
        },
    ];
    let bytes = |m: &BuiltMesh| m.tiles.iter().map(NavTile::to_bytes).collect::<Vec<_>>();
    let mut p = Mesh3DPipeline::new(BuildConfig::default());
    let eroded = p.eroded_tiles_soup(&soup).unwrap();
    let plain = bytes(&p.build_soup(&soup).unwrap());
    assert_eq!(
        bytes(&p.build_from_eroded(&eroded, &[], &[]).unwrap()),
        plain
    );
    // Obstacles given at rebuild time equal the same obstacles baked into the pipeline.
    let rebuilt = p.build_from_eroded(&eroded, &obstacles, &[]).unwrap();
    assert_ne!(bytes(&rebuilt), plain, "the obstacles cut the street");
    p.obstacles = obstacles;
    let fresh = p.build_soup(&soup).unwrap();
    assert_eq!(bytes(&rebuilt), bytes(&fresh));
    // A run-time volume equals the same volume among the pipeline's own.
    let volume = ConvexVolume {
        points: vec![[5.0, 5.0], [12.0, 5.0], [12.0, 12.0], [5.0, 12.0]],
        min_y: -1.0,
        max_y: 1.0,
        area: 9,
    };
    p.obstacles.clear();
    let with_runtime_volume = p
        .build_from_eroded(&eroded, &[], std::slice::from_ref(&volume))
        .unwrap();
    assert_ne!(
        bytes(&with_runtime_volume),
        plain,
        "the volume changes an area"
    );
    p.volumes = vec![volume];
    assert_eq!(
        bytes(&with_runtime_volume),
        bytes(&p.build_soup(&soup).unwrap())
    );
    // The eroded tiles were not changed by any rebuild.
    assert_eq!(
        Mesh3DPipeline::new(BuildConfig::default())
            .eroded_tiles_soup(&soup)
            .unwrap(),
        eroded
    );
}

#[test]
fn chunk_queries_return_the_overlapping_triangles_for_any_chunk_size() {
    let soup =
        onepath_build3d::generators::city(&onepath_build3d::generators::CityParams::default());
    let brute = |min: [f64; 2], max: [f64; 2]| -> Vec<u32> {
        (0..soup.triangles.len() as u32)
            .filter(|&t| {
                let tri = soup.triangles[t as usize];
                let xs = tri.map(|i| soup.vertices[i as usize][0]);
                let zs = tri.map(|i| soup.vertices[i as usize][2]);
                let (lx, hx) = (
                    xs.iter().cloned().fold(f64::INFINITY, f64::min),
                    xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
                );
                let (lz, hz) = (
                    zs.iter().cloned().fold(f64::INFINITY, f64::min),
                    zs.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
                );
                hx >= min[0] && lx <= max[0] && hz >= min[1] && lz <= max[1]
            })
            .collect()
    };
    for size in [1e-6, 0.5, 7.0, 1000.0] {
        let chunky = onepath_build3d::ChunkyTriMesh::new(soup.clone(), size).unwrap();
        for (min, max) in [
            ([10.0, 10.0], [20.0, 14.0]),
            ([-5.0, -5.0], [0.0, 0.0]),
            ([30.0, 30.0], [20.0, 20.0]),
        ] {
            assert_eq!(
                chunky.triangles_in(min, max),
                brute(min, max),
                "chunk size {size}"
            );
        }
    }
}
