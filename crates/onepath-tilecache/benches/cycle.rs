//! The tile cache's obstacle cycle (`docs/perf/tilecache.md`): on the generated city
//! (tiles of 64 cells, Layers partition, no detail sampling) 16 cylinders are added and then
//! removed one at a time, each followed by `update_all`. One iteration is those 32 cycles.
//! With `$ONEPATH_DATA/levels/nav_test.obj` present the same runs on nav_test (tiles of 48
//! cells, Layers). Keep it short on a shared machine:
//! `cargo bench -p onepath-tilecache --bench cycle -- --warm-up-time 1 --measurement-time 2`.

use criterion::{criterion_group, criterion_main, Criterion};
use onepath_build3d::generators::{city, CityParams};
use onepath_build3d::{load_obj, BuildConfig, Mesh3DPipeline, Obstacle, TriangleSoup};
use onepath_format::Partition;
use onepath_tilecache::TileCache;

/// The cycle's configuration: the demo settings with `cells`-cell tiles, Layers, no detail
/// sampling, grid at `origin`.
fn config(cells: u32, origin: [f64; 3]) -> BuildConfig {
    BuildConfig {
        origin,
        tile_size: BuildConfig::tile_size_of_cells(cells, 0.3),
        partition: Partition::Layers,
        detail_sample_distance: 0.0,
        ..BuildConfig::default()
    }
}

/// 16 cylinders on a 4 x 4 lattice over the level's x/z bounds (radius 1, tall enough to
/// cover every floor).
fn cylinders(soup: &TriangleSoup) -> Vec<Obstacle> {
    let (lo, hi) = soup.bounds().expect("a level has triangles");
    (0..16)
        .map(|i| {
            let fx = (f64::from(i % 4) + 0.5) / 4.0;
            let fz = (f64::from(i / 4) + 0.5) / 4.0;
            Obstacle::Cylinder {
                center: [
                    lo[0] + fx * (hi[0] - lo[0]),
                    lo[1] - 1.0,
                    lo[2] + fz * (hi[2] - lo[2]),
                ],
                radius: 1.0,
                height: hi[1] - lo[1] + 2.0,
            }
        })
        .collect()
}

/// 32 cycles: add each cylinder, update all; remove each, update all.
fn cycles(cache: &mut TileCache, obstacles: &[Obstacle]) {
    let mut ids = Vec::with_capacity(obstacles.len());
    for o in obstacles {
        ids.push(cache.add_obstacle(*o).unwrap());
        cache.update_all().unwrap();
    }
    for id in ids {
        cache.remove_obstacle(id).unwrap();
        cache.update_all().unwrap();
    }
}

fn level(c: &mut Criterion, name: &str, soup: &TriangleSoup, cells: u32, origin: [f64; 3]) {
    let pipeline = Mesh3DPipeline::new(config(cells, origin));
    let obstacles = cylinders(soup);
    let mut cache = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| TileCache::build_soup(&pipeline, soup).unwrap());
    let before = cache.stats();
    cycles(&mut cache, &obstacles);
    let s = cache.stats();
    eprintln!(
        "{name}: per 32 cycles: {} tiles processed, {} rebuilt, {} first-build, {} unchanged; \
         layers kept {}, replaced {}, added {}, removed {}",
        s.tiles - before.tiles,
        s.rebuilt - before.rebuilt,
        s.first_build - before.first_build,
        s.unchanged - before.unchanged,
        s.layers_kept - before.layers_kept,
        s.layers_replaced - before.layers_replaced,
        s.layers_added - before.layers_added,
        s.layers_removed - before.layers_removed,
    );
    c.bench_function(&format!("tilecache/{name}_32_cycles"), |b| {
        b.iter(|| cycles(&mut cache, &obstacles))
    });
}

fn bench(c: &mut Criterion) {
    let soup = city(&CityParams::default());
    level(c, "city_tile64_layers", &soup, 64, [0.0; 3]);
    if let Some(dir) = std::env::var_os("ONEPATH_DATA") {
        let path = std::path::Path::new(&dir).join("levels/nav_test.obj");
        if path.exists() {
            let soup = load_obj(&path).unwrap();
            let origin = soup.bounds().unwrap().0;
            level(c, "nav_test_tile48_layers", &soup, 48, origin);
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
