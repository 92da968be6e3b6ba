//! Referenced snapshot and restore of a mesh of 1 000 tiles (40 × 25 columns, 16 polygons
//! each) with 1 % of its polygons edited (every 100th polygon in slot order), plus the Full
//! snapshot for comparison; then the growth with the edits (0.1 %, 1 %, 10 % of the
//! polygons) of a Referenced snapshot and of a rollback: an in-place Referenced restore
//! into the mesh after an excursion that edited other polygons, and after one that also
//! replaced one tile (a new generation, so the tiles around it restitch). The snapshot
//! sizes are printed once.
//!
//! `cargo bench -p onepath-snapshot --bench snapshot -- --warm-up-time 1 --measurement-time 2`
// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, SnapshotWriter};
use std::hint::black_box;

mod common;
use common::{edit, thousand_tiles};

fn bench(c: &mut Criterion) {
    let (mesh, lib) = thousand_tiles(100, 0);
    let referenced = NavMeshSnapshot::take(&mesh, SnapshotMode::Referenced);
    let full = NavMeshSnapshot::take(&mesh, SnapshotMode::Full);
    let edits: usize = mesh.tiles().map(|t| t.poly_edits().count()).sum();
    eprintln!(
        "1000 tiles, {edits} edited polygons: Referenced {} bytes, Full {} bytes",
        referenced.len(),
        full.len()
    );
    let mut g = c.benchmark_group("snapshot_1000_tiles");
    g.bench_function("take_referenced", |b| {
        b.iter(|| NavMeshSnapshot::take(black_box(&mesh), SnapshotMode::Referenced))
    });
    let mut writer = SnapshotWriter::new();
    g.bench_function("take_referenced_with_writer_cache", |b| {
        b.iter(|| writer.take(black_box(&mesh), SnapshotMode::Referenced))
    });
    g.bench_function("take_full", |b| {
        b.iter(|| NavMeshSnapshot::take(black_box(&mesh), SnapshotMode::Full))
    });
    g.bench_function("restore_referenced_new", |b| {
        b.iter(|| NavMeshSnapshot::restore(black_box(&referenced), &lib).unwrap())
    });
    let mut target = mesh.clone();
    g.bench_function("restore_referenced_in_place", |b| {
        b.iter(|| {
            NavMeshSnapshot::restore_in_place(&mut target, black_box(&referenced), &lib).unwrap()
        })
    });
    g.bench_function("restore_full_new", |b| {
        b.iter(|| NavMeshSnapshot::restore_full(black_box(&full)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("rollback_1000_tiles");
    for (name, step) in [("0.1%", 1000), ("1%", 100), ("10%", 10)] {
        let (mesh, lib) = thousand_tiles(step, 0);
        let saved = NavMeshSnapshot::take(&mesh, SnapshotMode::Referenced);
        let mut writer = SnapshotWriter::new();
        g.bench_function(format!("take_referenced_with_writer_cache/{name}"), |b| {
            b.iter(|| writer.take(black_box(&mesh), SnapshotMode::Referenced))
        });
        // The excursion: as many other polygons edited (another area), the saved edits
        // partly undone.
        let mut moved = mesh.clone();
        edit(&mut moved, step, step / 2, 9);
        edit(&mut moved, 2 * step, 0, 0);
        g.bench_function(format!("restore_in_place_after_edits/{name}"), |b| {
            b.iter_batched(
                || moved.clone(),
                |mut m| {
                    NavMeshSnapshot::restore_in_place(&mut m, black_box(&saved), &lib).unwrap();
                    m
                },
                BatchSize::LargeInput,
            )
        });
        let mut replaced = moved.clone();
        let t = replaced.tile_at(20, 12, 0).unwrap().tile().clone();
        replaced.replace_tile(t).unwrap();
        g.bench_function(
            format!("restore_in_place_after_edits_and_a_replace/{name}"),
            |b| {
                b.iter_batched(
                    || replaced.clone(),
                    |mut m| {
                        NavMeshSnapshot::restore_in_place(&mut m, black_box(&saved), &lib).unwrap();
                        m
                    },
                    BatchSize::LargeInput,
                )
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
