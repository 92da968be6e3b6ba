//! Tile read (parse + every rule) and write throughput on a 64 × 64 grid of quads.
// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use onepath_format::{NavMeshParams, NavTile, NavTileAssembler};

fn grid_tile(params: &NavMeshParams, n: u32) -> NavTile {
    let step = params.tile_size / f64::from(n);
    let mut world = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            world.push([f64::from(i) * step, 0.0, f64::from(j) * step]);
        }
    }
    let id = |i: u32, j: u32| j * (n + 1) + i;
    let mut indices = Vec::new();
    for j in 0..n {
        for i in 0..n {
            indices.extend([id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    let sizes = vec![4u8; (n * n) as usize];
    let data =
        NavTileAssembler::from_polygons(params, 0, 0, 0, 0.0, &world, &sizes, &indices, None, None)
            .unwrap();
    NavTile::create(params, data).unwrap()
}

fn bench(c: &mut Criterion) {
    let params = NavMeshParams::new([0.0, 0.0, 0.0], 64.0, 0.25, 6);
    let tile = grid_tile(&params, 64);
    let bytes = tile.to_bytes();
    let mut g = c.benchmark_group("onpt_4096_quads");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("from_bytes", |b| {
        b.iter(|| NavTile::from_bytes(std::hint::black_box(&bytes), &params).unwrap())
    });
    g.bench_function("to_bytes", |b| {
        b.iter(|| std::hint::black_box(&tile).to_bytes())
    });
    g.bench_function("content_id", |b| {
        b.iter(|| std::hint::black_box(&tile).content_id())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
