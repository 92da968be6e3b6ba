//! Referenced snapshot and restore of a mesh of 1 000 tiles (40 × 25 columns, 16 polygons
//! each) with 1 % of its polygons edited (every 100th polygon in slot order), plus the Full
//! snapshot for comparison. The snapshot sizes are printed once.
// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use onepath_format::NavMeshParams;
use onepath_mesh::fixtures::flat_grid_tile;
use onepath_mesh::TiledNavMesh;
use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, SnapshotWriter, TileLibrary};
use std::hint::black_box;

fn thousand_tiles() -> (TiledNavMesh, TileLibrary) {
    let p = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
    let mut tiles = Vec::with_capacity(1000);
    for z in 0..25 {
        for x in 0..40 {
            tiles.push((1, Some(flat_grid_tile(&p, x, z, 0, 0.0, 4).unwrap())));
        }
    }
    let mut mesh = TiledNavMesh::from_slots(p, tiles).unwrap();
    let refs: Vec<_> = mesh
        .tiles()
        .flat_map(|t| (0..16).map(move |i| t.poly_ref(i).unwrap()))
        .step_by(100)
        .collect();
    for r in refs {
        mesh.set_poly_area(r, 7).unwrap();
    }
    let mut lib = TileLibrary::new(&p);
    lib.extend(mesh.tiles().map(|t| t.tile())).unwrap();
    (mesh, lib)
}

fn bench(c: &mut Criterion) {
    let (mesh, lib) = thousand_tiles();
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
}

criterion_group!(benches, bench);
criterion_main!(benches);
