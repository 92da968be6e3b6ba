//! Criterion benches of streaming edits on a mesh of 1 024 tiles (32 × 32 tiles of 16
//! units, 4 × 4 cells each, the shape of `generated_grid_mesh(32, 32, 4, _)`): replacing
//! one tile, and removing one tile then adding it back, each with its restitch, on the
//! mesh without off-mesh links and with three links per tile (from cell 0 into the +X
//! neighbour, bidirectional; into the −X neighbour and inside the tile, one way).
//!
//! `cargo bench -p onepath-mesh --bench streaming -- --warm-up-time 1 --measurement-time 2`
// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use onepath_format::{NavMeshParams, NavTile, OffMeshLinkSlot};
use onepath_mesh::fixtures::flat_grid_data;
use onepath_mesh::TiledNavMesh;
use std::hint::black_box;

fn link(end: [f32; 3], bidirectional: bool) -> OffMeshLinkSlot {
    OffMeshLinkSlot {
        start: [2.0, 0.0, 2.0],
        end,
        radius: 1.0,
        area: 0,
        bidirectional,
        flags: 1,
        user_id: 0,
    }
}

fn tile(p: &NavMeshParams, x: i32, z: i32, links: bool) -> NavTile {
    let mut d = flat_grid_data(p, x, z, 0, 0.0, 4);
    if links {
        d.off_mesh_links = vec![
            link([18.0, 0.0, 6.0], true),
            link([-2.0, 0.0, 10.0], false),
            link([14.0, 0.0, 14.0], false),
        ];
    }
    NavTile::create(p, d).unwrap()
}

fn mesh(links: bool) -> TiledNavMesh {
    let p = NavMeshParams::new([0.0, 0.0, 0.0], 16.0, 0.25, 6);
    let slots = (0..32 * 32)
        .map(|i| (1, Some(tile(&p, i % 32, i / 32, links))))
        .collect();
    TiledNavMesh::from_slots(p, slots).unwrap()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("streaming_1024_tiles");
    for links in [false, true] {
        let name = if links { "links" } else { "no_links" };
        let mut m = mesh(links);
        let t = tile(m.params(), 16, 16, links);
        g.bench_function(format!("replace_one_tile/{name}"), |b| {
            b.iter(|| m.replace_tile(black_box(t.clone())).unwrap())
        });
        g.bench_function(format!("remove_and_add_one_tile/{name}"), |b| {
            b.iter(|| {
                m.remove_tile_at(16, 16, 0).unwrap();
                m.add_tile(black_box(t.clone())).unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
