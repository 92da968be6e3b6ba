//! The tier-1 NavMesh: every geometry form, the progress callback, the tile cache, the
//! queries with plain points, streaming, serde and mint.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use onepath::build::{ChunkyTriMesh, HeightGrid, Mesh3DPipeline, Obstacle, TriangleSoup};
use onepath::grid::{VoxelGrid, VoxelSpace};
use onepath::mesh::NavMeshSerializer;
use onepath::prelude::*;
use onepath::{voxels_to_soup, BuildOptions, SOLID_VOXEL};

fn settings() -> NavSettings {
    NavSettings::default()
}

#[test]
fn build_is_the_pipelines_build_byte_for_byte() {
    let soup = common::floor(25.0);
    let nav = NavMesh::build(&settings(), &soup).unwrap();
    let plain = Mesh3DPipeline::from_settings(&settings())
        .unwrap()
        .build_soup(&soup)
        .unwrap();
    assert_eq!(nav.mesh(), &plain.mesh);
    assert_eq!(nav.mesh().tile_count(), 9);
}

#[test]
fn soup_chunky_and_obj_give_the_same_mesh() {
    let soup = common::floor(25.0);
    let a = NavMesh::build(&settings(), &soup).unwrap();
    let chunky = ChunkyTriMesh::new(soup.clone(), 8.0).unwrap();
    let b = NavMesh::build(&settings(), &chunky).unwrap();
    assert!(a.save() == b.save());
    let path = std::env::temp_dir().join(format!("onepath-facade-{}.obj", std::process::id()));
    std::fs::write(
        &path,
        "v 0 0 0\nv 0 0 25\nv 25 0 25\nv 25 0 0\nf 1 2 3\nf 1 3 4\n",
    )
    .unwrap();
    let c = NavMesh::build(&settings(), path.as_path());
    std::fs::remove_file(&path).unwrap();
    assert!(c.unwrap().save() == a.save());
    // A missing file is the builder's I/O error naming the file.
    let missing = std::path::Path::new("/nonexistent/level.obj");
    assert!(matches!(
        NavMesh::build(&settings(), missing).unwrap_err(),
        Error::Build(onepath::build::BuildError::Io { path, .. }) if path == missing
    ));
}

#[test]
fn height_grid_builds_as_the_pipelines_heightfield() {
    let grid = HeightGrid {
        origin: [0.0, 0.0],
        spacing: 1.0,
        columns: 21,
        rows: 21,
        heights: (0..21 * 21)
            .map(|i| f64::from(i % 21) * 0.1 + f64::from(i / 21) * 0.05)
            .collect(),
    };
    let nav = NavMesh::build(&settings(), &grid).unwrap();
    let plain = Mesh3DPipeline::from_settings(&settings())
        .unwrap()
        .build_heightfield(&grid)
        .unwrap();
    assert_eq!(nav.mesh(), &plain.mesh);
    assert!(nav.mesh().tile_count() > 0);
}

#[test]
fn voxels_become_their_faces_and_their_tops_are_walkable() {
    let mut one = VoxelGrid::new(1, 1, 1, 0).unwrap();
    one.set_area(0, 0, 0, SOLID_VOXEL).unwrap();
    let soup = voxels_to_soup(&one).unwrap();
    assert_eq!((soup.vertices.len(), soup.triangles.len()), (24, 12));
    // Every triangle's normal points out of the unit box centred at 0.5.
    for t in &soup.triangles {
        let [a, b, c] = t.map(|i| soup.vertices[i as usize]);
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let n = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        let out = [0, 1, 2].map(|k| (a[k] + b[k] + c[k]) / 3.0 - 0.5);
        assert!(n[0] * out[0] + n[1] * out[1] + n[2] * out[2] > 0.0, "{t:?}");
    }
    // A 24 x 2 x 24 slab of solid voxels of 0.5 at y = -1: a floor at y = 0.
    let mut g = VoxelGrid::new(24, 2, 24, 0).unwrap();
    g.set_space(VoxelSpace::new([0.0, -1.0, 0.0], 0.5).unwrap());
    for z in 0..24 {
        for x in 0..24 {
            for y in 0..2 {
                g.set_area(x, y, z, SOLID_VOXEL).unwrap();
            }
        }
    }
    let soup = voxels_to_soup(&g).unwrap();
    // Inner faces are dropped: top, bottom, and the four sides.
    assert_eq!(soup.triangles.len(), 2 * (2 * 24 * 24 + 4 * 24 * 2));
    let nav = NavMesh::build(&settings(), &g).unwrap();
    let p = nav.find_path([1.0, 0.0, 1.0], [11.0, 0.0, 10.0]).unwrap();
    assert_eq!(p.status, PathStatus::Complete);
    assert!(p.points.iter().all(|q| (q.position[1]).abs() < 0.3));
}

#[test]
fn progress_is_called_once_per_tile_with_the_total() {
    let soup = common::floor(25.0);
    let calls = AtomicUsize::new(0);
    let total = AtomicUsize::new(0);
    let nav = NavMesh::build_with_progress(&settings(), &soup, &|_, t| {
        calls.fetch_add(1, Ordering::Relaxed);
        total.store(t, Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(calls.into_inner(), 9);
    assert_eq!(total.into_inner(), 9);
    assert!(nav.save() == NavMesh::build(&settings(), &soup).unwrap().save());
}

#[test]
fn a_tile_cache_build_reports_progress_once_per_cached_tile() {
    let soup = common::floor(25.0);
    let calls = AtomicUsize::new(0);
    let last = std::sync::Mutex::new((0, 0));
    let nav = NavMesh::build_with(
        &settings(),
        &soup,
        BuildOptions {
            progress: Some(&|d, t| {
                calls.fetch_add(1, Ordering::Relaxed);
                let mut l = last.lock().unwrap();
                *l = (l.0.max(d), t);
            }),
            tile_cache: true,
        },
    )
    .unwrap();
    assert!(nav.has_tile_cache());
    assert_eq!(calls.into_inner(), 9);
    assert_eq!(last.into_inner().unwrap(), (9, 9));
    assert!(nav.save() == NavMesh::build(&settings(), &soup).unwrap().save());
}

#[test]
fn queries_take_and_give_plain_points() {
    let nav = NavMesh::build(&settings(), &common::floor(25.0)).unwrap();
    let n = nav.nearest([3.0, 0.5, 4.0]).unwrap().unwrap();
    assert!((n.point[0] - 3.0).abs() < 1e-9 && (n.point[2] - 4.0).abs() < 1e-9);
    assert!(nav.nearest([3.0, 50.0, 4.0]).unwrap().is_none());

    let p = nav.find_path([2.0, 0.0, 2.0], [22.0, 0.0, 21.0]).unwrap();
    assert_eq!(p.status, PathStatus::Complete);
    assert!(p.polys.len() > 1);
    let (first, last) = (p.points.first().unwrap(), p.points.last().unwrap());
    assert!(first.start && last.end);
    assert!((last.position[0] - 22.0).abs() < 1e-6 && (last.position[2] - 21.0).abs() < 1e-6);
    assert_eq!(
        nav.find_path([2.0, 0.0, 2.0], [200.0, 0.0, 2.0])
            .unwrap_err(),
        Error::NotOnMesh {
            what: "end",
            point: [200.0, 0.0, 2.0],
            half_extents: onepath::DEFAULT_SEARCH_EXTENTS,
        }
    );

    // Inside the floor the ray reaches its end; towards the outside it meets the border.
    let r = nav.raycast([5.0, 0.0, 5.0], [10.0, 0.0, 6.0]).unwrap();
    assert_eq!(r.t, None);
    assert_eq!(r.point, [10.0, 0.0, 6.0]);
    let r = nav.raycast([5.0, 0.0, 5.0], [40.0, 0.0, 5.0]).unwrap();
    let t = r.t.unwrap();
    assert!(t > 0.5 && t < 0.7, "{t}");
    assert!(r.hit_normal[0] > 0.99);

    // Random points come from the caller's numbers: the same numbers, the same point.
    let seq = |k: u64| {
        let mut s = k;
        move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        }
    };
    let a = nav.random_point(&mut seq(1)).unwrap().unwrap();
    let b = nav.random_point(&mut seq(1)).unwrap().unwrap();
    assert_eq!(a, b);
    assert!((0.0..=25.0).contains(&a.point[0]) && (0.0..=25.0).contains(&a.point[2]));
    assert!(nav.mesh().is_valid_poly_ref(a.poly));
}

#[test]
fn search_extents_are_checked() {
    let mut nav = NavMesh::build(&settings(), &common::floor(10.0)).unwrap();
    assert!(matches!(
        nav.set_search_extents([1.0, f64::NAN, 1.0]).unwrap_err(),
        Error::Query(onepath::mesh::QueryError::InvalidExtent {
            what: "half_extents.y",
            ..
        })
    ));
    nav.set_search_extents([1.0, 60.0, 1.0]).unwrap();
    assert!(nav.nearest([3.0, 50.0, 4.0]).unwrap().is_some());
}

#[test]
fn query_points_that_are_no_world_coordinates_are_refused_naming_the_argument() {
    let nav = NavMesh::build(&settings(), &common::floor(10.0)).unwrap();
    let world = NavWorld::from_classes(vec![nav.clone()]).unwrap();
    let mut crowd = WorldCrowd::new(&world, onepath::crowd::CrowdSettings::default()).unwrap();
    let agent = crowd
        .add_agent(
            &world,
            [2.0, 0.0, 2.0],
            onepath::crowd::AgentParams::new(0.4),
        )
        .unwrap();
    let on = [5.0, 0.0, 5.0];
    for (bad, axis) in [
        ([f64::NAN, 0.0, 1.0], "x"),
        ([1.0, f64::INFINITY, 1.0], "y"),
        ([1.0, 0.0, -3.0e6], "z"),
    ] {
        let what = |e: Error| match e {
            Error::Coordinate(c) => c.what,
            e => panic!("unexpected error {e}"),
        };
        assert_eq!(what(nav.nearest(bad).unwrap_err()), format!("point.{axis}"));
        assert_eq!(
            what(nav.find_path(bad, on).unwrap_err()),
            format!("start.{axis}")
        );
        assert_eq!(
            what(nav.find_path(on, bad).unwrap_err()),
            format!("end.{axis}")
        );
        assert_eq!(
            what(nav.raycast(bad, on).unwrap_err()),
            format!("start.{axis}")
        );
        assert_eq!(
            what(nav.raycast(on, bad).unwrap_err()),
            format!("end.{axis}")
        );
        let params = onepath::crowd::AgentParams::new(0.4);
        let e = crowd.add_agent(&world, bad, params).unwrap_err();
        assert_eq!(what(e), format!("position.{axis}"));
        let e = crowd.request_move_target(&world, agent, bad).unwrap_err();
        assert_eq!(what(e), format!("target.{axis}"));
    }
    assert_eq!(crowd.crowd(0).unwrap().agents().len(), 1);
}

#[test]
fn tile_cache_obstacles_rebuild_and_removing_them_gives_the_first_build_back() {
    let soup = common::floor(25.0);
    let mut nav = NavMesh::build_with_tile_cache(&settings(), &soup).unwrap();
    let first = nav.save();
    assert!(first == NavMesh::build(&settings(), &soup).unwrap().save());
    let tiles =
        |n: &NavMesh| -> Vec<Vec<u8>> { n.mesh().tiles().map(|t| t.tile().to_bytes()).collect() };
    let first_tiles = tiles(&nav);
    let id = nav
        .add_obstacle(Obstacle::Box {
            min: [10.0, -0.5, 0.0],
            max: [12.0, 2.0, 25.0],
        })
        .unwrap();
    assert!(nav.update_all().unwrap().tiles > 0);
    // The wall cuts the floor in two.
    let p = nav.find_path([2.0, 0.0, 12.0], [22.0, 0.0, 12.0]).unwrap();
    assert_eq!(p.status, PathStatus::Partial);
    nav.remove_obstacle(id).unwrap();
    nav.update_all().unwrap();
    // The first build's tiles (the slots' generations moved on with each rebuild).
    assert!(tiles(&nav) == first_tiles);
    let p = nav.find_path([2.0, 0.0, 12.0], [22.0, 0.0, 12.0]).unwrap();
    assert_eq!(p.status, PathStatus::Complete);

    let mut plain = NavMesh::build(&settings(), &soup).unwrap();
    assert_eq!(
        plain.update(1).unwrap_err(),
        Error::NoTileCache { call: "update" }
    );
}

#[test]
fn a_streamed_tile_comes_back_with_its_bytes() {
    let mut nav = NavMesh::build(&settings(), &common::floor(25.0)).unwrap();
    let before = NavMeshSerializer::write_tile(nav.mesh().tile_at(1, 1, 0).unwrap().tile());
    let answer = nav.find_path([2.0, 0.0, 14.0], [22.0, 0.0, 14.0]).unwrap();
    nav.streamer_mut().queue_remove_column(1, 1);
    assert_eq!(nav.update_streaming(8).unwrap(), 1);
    assert!(nav.mesh().tile_at(1, 1, 0).is_none());
    nav.streamer_mut().queue_add(before.clone());
    assert_eq!(nav.update_streaming(8).unwrap(), 1);
    let after = NavMeshSerializer::write_tile(nav.mesh().tile_at(1, 1, 0).unwrap().tile());
    assert!(after == before);
    let again = nav.find_path([2.0, 0.0, 14.0], [22.0, 0.0, 14.0]).unwrap();
    assert_eq!(again.points.len(), answer.points.len());
    for (a, b) in again.points.iter().zip(&answer.points) {
        assert_eq!(a.position, b.position);
    }
    // A bad tile leaves the queue and changes nothing.
    nav.streamer_mut().queue_add(vec![1, 2, 3]);
    let saved = nav.save();
    assert!(matches!(nav.update_streaming(1), Err(Error::Mesh(_))));
    assert!(nav.streamer().is_empty());
    assert!(nav.save() == saved);
}

#[test]
fn serde_carries_settings_and_results() {
    let mut s = settings();
    s.set_agent_radius(0.45).unwrap();
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(serde_json::from_str::<NavSettings>(&json).unwrap(), s);
    let nav = NavMesh::build(&s, &common::floor(20.0)).unwrap();
    let p = nav.find_path([2.0, 0.0, 2.0], [18.0, 0.0, 17.0]).unwrap();
    let back: Path = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
    assert_eq!(back, p);
    let r = nav.raycast([5.0, 0.0, 5.0], [40.0, 0.0, 5.0]).unwrap();
    let back: Raycast = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back, r);
}

#[test]
fn mint_points_go_in_and_come_out() {
    let nav = NavMesh::build(&settings(), &common::floor(20.0)).unwrap();
    let a = mint::Point3 {
        x: 2.0,
        y: 0.0,
        z: 2.0,
    };
    let b = mint::Point3 {
        x: 18.0,
        y: 0.0,
        z: 17.0,
    };
    let p = nav.find_path(a, b).unwrap();
    assert_eq!(
        p,
        nav.find_path([2.0, 0.0, 2.0], [18.0, 0.0, 17.0]).unwrap()
    );
    let end: mint::Point3<f64> = (*p.points.last().unwrap()).into();
    assert!((end.x - 18.0).abs() < 1e-6);
    let n: mint::Point3<f64> = nav.nearest(a).unwrap().unwrap().into();
    assert!((n.z - 2.0).abs() < 1e-9);
}

#[test]
fn build_options_with_a_cache_and_a_soup_without_triangles() {
    let empty = TriangleSoup::default();
    let nav = NavMesh::build(&settings(), &empty).unwrap();
    assert_eq!(nav.mesh().tile_count(), 0);
    assert!(nav.random_point(&mut || 0.5).unwrap().is_none());
    let opts = BuildOptions {
        progress: None,
        tile_cache: true,
    };
    let cached = NavMesh::build_with(&settings(), &common::floor(10.0), opts).unwrap();
    assert!(cached.has_tile_cache() && cached.tile_cache().is_some());
}
