//! Builds Recast's demo level (`$ONEPATH_DATA/levels/nav_test.obj`) with the Recast demo
//! settings, on one thread and on all threads (skipped with a message when the data is
//! absent), and the generated city the same way.

#![allow(missing_docs)] // criterion's macros generate undocumented items

use criterion::{criterion_group, criterion_main, Criterion};
use onepath_build3d::{load_obj, BuildConfig, Mesh3DPipeline};

fn nav_test(c: &mut Criterion) {
    let Some(dir) = std::env::var_os("ONEPATH_DATA") else {
        eprintln!("ONEPATH_DATA is not set: nav_test bench skipped");
        return;
    };
    let path = std::path::Path::new(&dir).join("levels/nav_test.obj");
    if !path.exists() {
        eprintln!("{} is absent: nav_test bench skipped", path.display());
        return;
    }
    let soup = load_obj(&path).unwrap();
    let (bmin, _) = soup.bounds().unwrap();
    // The Recast demo's settings (BuildConfig::default) with the tile grid at the level's
    // minimum corner, as the demo places it.
    let cfg = BuildConfig {
        origin: bmin,
        ..BuildConfig::default()
    };
    let pipeline = Mesh3DPipeline::new(cfg);
    let mut g = c.benchmark_group("nav_test");
    g.sample_size(10);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    g.bench_function("build_soup_1_thread", |b| {
        b.iter(|| one.install(|| pipeline.build_soup(&soup).unwrap()))
    });
    let all = rayon::ThreadPoolBuilder::new().build().unwrap();
    g.bench_function("build_soup_all_threads", |b| {
        b.iter(|| all.install(|| pipeline.build_soup(&soup).unwrap()))
    });
    g.finish();
}

/// The generated city of the hash matrix (no data needed), one thread and all threads.
fn city(c: &mut Criterion) {
    let soup =
        onepath_build3d::generators::city(&onepath_build3d::generators::CityParams::default());
    let pipeline = Mesh3DPipeline::new(BuildConfig::default());
    let mut g = c.benchmark_group("city");
    g.sample_size(10);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    g.bench_function("build_soup_1_thread", |b| {
        b.iter(|| one.install(|| pipeline.build_soup(&soup).unwrap()))
    });
    let all = rayon::ThreadPoolBuilder::new().build().unwrap();
    g.bench_function("build_soup_all_threads", |b| {
        b.iter(|| all.install(|| pipeline.build_soup(&soup).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, nav_test, city);
criterion_main!(benches);
