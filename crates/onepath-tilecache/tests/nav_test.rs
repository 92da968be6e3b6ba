//! Recast's demo level `nav_test.obj` with a cache: exactly the plain build, and obstacles
//! rebuilt from the cache equal a fresh build with them. Needs
//! `$ONEPATH_DATA/levels/nav_test.obj`; without it the test is reported as ignored.

mod common;

use common::tiles_of;
use onepath_build3d::{load_obj, BuildConfig, Mesh3DPipeline, Obstacle, TriangleSoup};
use onepath_format::Partition;
use onepath_tilecache::TileCache;

fn nav_test_soup() -> Option<TriangleSoup> {
    let dir = std::env::var_os("ONEPATH_DATA")?;
    let path = std::path::Path::new(&dir).join("levels/nav_test.obj");
    path.exists().then(|| load_obj(&path).unwrap())
}

#[test]
#[cfg_attr(no_levels, ignore = "needs ONEPATH_DATA (levels/nav_test.obj)")]
fn nav_test_with_a_cache_is_the_plain_build_and_obstacles_equal_a_fresh_build() {
    let Some(soup) = nav_test_soup() else {
        eprintln!("skipped: $ONEPATH_DATA/levels/nav_test.obj is absent");
        return;
    };
    let (bmin, bmax) = soup.bounds().unwrap();
    let at = |fx: f64, fz: f64| {
        [
            bmin[0] + fx * (bmax[0] - bmin[0]),
            bmin[1],
            bmin[2] + fz * (bmax[2] - bmin[2]),
        ]
    };
    let obstacles = [
        Obstacle::Cylinder {
            center: at(0.5, 0.5),
            radius: 1.5,
            height: bmax[1] - bmin[1],
        },
        Obstacle::Box {
            min: at(0.3, 0.6),
            max: {
                let mut m = at(0.35, 0.65);
                m[1] = bmax[1];
                m
            },
        },
        Obstacle::OrientedBox {
            center: at(0.7, 0.3),
            half: [2.0, bmax[1] - bmin[1], 0.8],
            yaw: 0.4,
        },
    ];
    for (partition, detail) in [
        (
            Partition::Watershed,
            BuildConfig::default().detail_sample_distance,
        ),
        (
            Partition::Layers,
            BuildConfig::default().detail_sample_distance,
        ),
        // Layer-first tiles.
        (Partition::Layers, 0.0),
    ] {
        let p = Mesh3DPipeline::new(BuildConfig {
            origin: bmin,
            partition,
            detail_sample_distance: detail,
            ..BuildConfig::default()
        });
        let plain = p.build_soup(&soup).unwrap();
        let mut cache = TileCache::build_soup(&p, &soup).unwrap();
        assert_eq!(cache.mesh(), &plain.mesh, "{partition:?} detail {detail}");
        for o in obstacles {
            cache.add_obstacle(o).unwrap();
        }
        cache.update_all().unwrap();
        let mut with = p.clone();
        with.obstacles = obstacles.to_vec();
        let fresh = with.build_soup(&soup).unwrap();
        assert_ne!(tiles_of(cache.mesh()), tiles_of(&plain.mesh));
        assert_eq!(
            tiles_of(cache.mesh()),
            tiles_of(&fresh.mesh),
            "{partition:?} detail {detail}"
        );
    }
}
