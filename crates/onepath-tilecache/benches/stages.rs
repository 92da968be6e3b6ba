//! The cost split of a layer rebuild (`docs/perf/tilecache.md`): the layers the obstacle
//! cycle of `cycle.rs` builds on the generated city (tiles of 64 cells, layer-first tiles),
//! collected once, then each stage timed on its own over all of them: marking (a copy of the
//! first-build areas marked by the obstacle), regions, contours, polygons, the whole layer
//! build (the remainder is detail and tile data), tile creation and swapping into the mesh
//! (stitching). Divide by the layer count printed to get the cost per layer build.
//! `cargo bench -p onepath-tilecache --bench stages -- --warm-up-time 1 --measurement-time 2`

use criterion::{criterion_group, criterion_main, Criterion};
use onepath_build3d::contour::build_contours;
use onepath_build3d::generators::{city, CityParams};
use onepath_build3d::handover::{convex_in_f32, TileFrame};
use onepath_build3d::polymesh::build_poly_mesh;
use onepath_build3d::region::monotone;
use onepath_build3d::{BuildConfig, CompactHeightfield, Mesh3DPipeline, Obstacle, VerticalGrid};
use onepath_format::{NavTile, Partition};

/// One layer an obstacle of the cycle changes: the tile, its layer number, the layer as
/// first built and as marked.
struct Work {
    tile: (i32, i32),
    vgrid: VerticalGrid,
    layer: u16,
    first: CompactHeightfield,
    marked: CompactHeightfield,
    obstacle: Obstacle,
}

fn bench(c: &mut Criterion) {
    let soup = city(&CityParams::default());
    let config = BuildConfig {
        tile_size: BuildConfig::tile_size_of_cells(64, 0.3),
        partition: Partition::Layers,
        detail_sample_distance: 0.0,
        ..BuildConfig::default()
    };
    let p = Mesh3DPipeline::new(config);
    let params = p.config.params();
    let vc = p.config.voxel();
    let (lo, hi) = soup.bounds().unwrap();
    let cylinders: Vec<Obstacle> = (0..16)
        .map(|i| Obstacle::Cylinder {
            center: [
                lo[0] + (f64::from(i % 4) + 0.5) / 4.0 * (hi[0] - lo[0]),
                lo[1] - 1.0,
                lo[2] + (f64::from(i / 4) + 0.5) / 4.0 * (hi[2] - lo[2]),
            ],
            radius: 1.0,
            height: hi[1] - lo[1] + 2.0,
        })
        .collect();
    let mut work = Vec::new();
    for t in p.cached_tiles_soup(&soup).unwrap() {
        let split = t.split.as_ref().unwrap();
        for (l, first) in split.apply(&t.chf).into_iter().enumerate() {
            for o in &cylinders {
                let mut marked = first.clone();
                o.mark(&mut marked, &vc);
                if marked.areas != first.areas {
                    work.push(Work {
                        tile: (t.tile_x, t.tile_z),
                        vgrid: t.vgrid,
                        layer: l as u16,
                        first: first.clone(),
                        marked,
                        obstacle: *o,
                    });
                }
            }
        }
    }
    eprintln!("stages: {} layer builds per iteration", work.len());
    let frame = |w: &Work| TileFrame {
        tile_cells: vc.tile_cells,
        cs: vc.cs,
        ch: vc.ch,
        base_y: w.vgrid.base_y,
        tile_size_f32: params.tile_size_f32(),
    };
    let regions: Vec<_> = work
        .iter()
        .map(|w| monotone(&w.marked, vc.min_region_area, vc.merge_region_area).ids)
        .collect();
    let contours: Vec<_> = work
        .iter()
        .zip(&regions)
        .map(|(w, r)| build_contours(&w.marked, r, vc.contour_max_error, vc.max_edge_length))
        .collect();
    let layer_data = |w: &Work| {
        p.layer_tile_data(
            &params, &vc, w.vgrid, w.tile.0, w.tile.1, w.layer, &w.marked,
        )
        .unwrap()
    };
    let datas: Vec<_> = work.iter().filter_map(layer_data).collect();
    let mut g = c.benchmark_group("tilecache_stages");
    // Marking as the cache does it: the first-build areas copied into the layer, then marked.
    let mut scratch: Vec<CompactHeightfield> = work.iter().map(|w| w.first.clone()).collect();
    g.bench_function("marking", |b| {
        b.iter(|| {
            for (w, m) in work.iter().zip(scratch.iter_mut()) {
                m.areas.clone_from(&w.first.areas);
                w.obstacle.mark(m, &vc);
                std::hint::black_box(&m.areas);
            }
        })
    });
    g.bench_function("regions", |b| {
        b.iter(|| {
            for w in &work {
                std::hint::black_box(monotone(
                    &w.marked,
                    vc.min_region_area,
                    vc.merge_region_area,
                ));
            }
        })
    });
    g.bench_function("contours", |b| {
        b.iter(|| {
            for (w, r) in work.iter().zip(&regions) {
                std::hint::black_box(build_contours(
                    &w.marked,
                    r,
                    vc.contour_max_error,
                    vc.max_edge_length,
                ));
            }
        })
    });
    g.bench_function("polygons", |b| {
        b.iter(|| {
            for (w, cs) in work.iter().zip(&contours) {
                let f = frame(w);
                let convex_ok = |verts: &[[i32; 3]], poly: &[u32]| convex_in_f32(&f, verts, poly);
                std::hint::black_box(build_poly_mesh(cs, vc.nvp, &convex_ok));
            }
        })
    });
    g.bench_function("whole_layer_build", |b| {
        b.iter(|| {
            for w in &work {
                std::hint::black_box(layer_data(w));
            }
        })
    });
    g.bench_function("tile_creation", |b| {
        b.iter(|| {
            for d in &datas {
                std::hint::black_box(NavTile::create(&params, d.clone()).unwrap());
            }
        })
    });
    // Stitching: each rebuilt tile swapped into the first build's mesh and back.
    let built = p.build_soup(&soup).unwrap();
    let mut mesh = built.mesh;
    let swaps: Vec<(NavTile, NavTile)> = datas
        .iter()
        .filter_map(|d| {
            let old = mesh.tile_at(d.tile_x, d.tile_z, d.layer)?.tile().clone();
            Some((NavTile::create(&params, d.clone()).unwrap(), old))
        })
        .collect();
    eprintln!("stages: {} swaps (twice each) per iteration", swaps.len());
    g.bench_function("stitching_twice", |b| {
        b.iter(|| {
            for (new, old) in &swaps {
                mesh.replace_tile(new.clone()).unwrap();
                mesh.replace_tile(old.clone()).unwrap();
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
