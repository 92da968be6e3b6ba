//! Criterion benches of the query layer: nearest polygon, path + string pulling and raycast,
//! on the bridge-and-building fixture and on a generated mesh of 1 024 tiles.
//!
//! `cargo bench -p onepath-mesh --bench queries -- --measurement-time 2`
//!
//! On a loaded machine wall-clock figures drift; `QUERIES_FIXED=path|nearest|raycast` (with
//! `QUERIES_ROUNDS`, default 20) instead runs a fixed amount of work on the generated mesh
//! and exits (`QUERIES_MESH=fixture` on the fixture instead; `QUERIES_LANDMARKS=n` on a compiled graph with `n`
//! landmarks, 0 for the graph alone), for `perf stat -e instructions:u,cycles:u` or callgrind on the bench binary;
//! `QUERIES_FIXED=digest` prints a digest of many query answers (to compare two builds; with
//! `QUERIES_COMPILED=1` on a compiled graph without landmarks, which must print the same).
//! The path benches also run on a compiled graph alone and with 8 landmarks.
// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, BatchSize, Criterion};
use onepath_format::PolyRef;
use onepath_mesh::fixtures::bridge_and_building;
use std::sync::Arc;

use onepath_mesh::query::{
    generated_grid_mesh, CompiledGraph, NavMeshQuery, QueryFilter, StraightPathOptions,
    StraightPathPoint, Vec3,
};
use onepath_mesh::TiledNavMesh;

/// SplitMix64 in [0, 1): the same points on every run.
fn unit(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

/// Up to `n` points on the mesh (nearest to random points in `[0, w] × [0, d]` at height `y`).
fn points(mesh: &TiledNavMesh, n: usize, w: f64, d: f64, ys: &[f64]) -> Vec<(PolyRef, Vec3)> {
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let mut s = 42;
    let mut out = Vec::new();
    while out.len() < n {
        let y = ys[out.len() % ys.len()];
        let p = [unit(&mut s) * w, y, unit(&mut s) * d];
        if let Some(h) = q.find_nearest_poly(mesh, p, [2.0, 1.0, 2.0], &f).unwrap() {
            out.push((h.poly, h.point));
        }
    }
    out
}

/// `find_path` from `a` to `e` then `find_straight_path` along it (default filter); returns
/// the iterations plus the corners.
fn path_and_straight(
    q: &mut NavMeshQuery,
    mesh: &TiledNavMesh,
    a: (PolyRef, Vec3),
    e: (PolyRef, Vec3),
    path: &mut Vec<PolyRef>,
    corners: &mut Vec<StraightPathPoint>,
) -> u64 {
    let f = QueryFilter::new();
    let r = q
        .find_path(mesh, a.0, e.0, a.1, e.1, &f, 1 << 20, path)
        .unwrap();
    q.find_straight_path(
        mesh,
        a.1,
        e.1,
        path,
        &f,
        StraightPathOptions::default(),
        corners,
    )
    .unwrap();
    r.iterations + corners.len() as u64
}

/// Path + straight path between pairs of `pts` (pair `k`: points `k` and `7k + 3`), on `q`.
fn bench_path(
    c: &mut Criterion,
    id: &str,
    mesh: &TiledNavMesh,
    pts: &[(PolyRef, Vec3)],
    q: &mut NavMeshQuery,
) {
    let (mut path, mut corners) = (Vec::new(), Vec::new());
    let mut k = 0;
    c.bench_function(id, |b| {
        b.iter_batched(
            || {
                k = (k + 1) % pts.len();
                (pts[k], pts[(k * 7 + 3) % pts.len()])
            },
            |(a, e)| path_and_straight(q, mesh, a, e, &mut path, &mut corners),
            BatchSize::SmallInput,
        )
    });
}

fn bench_mesh(c: &mut Criterion, name: &str, mesh: &TiledNavMesh, w: f64, d: f64, ys: &[f64]) {
    let f = QueryFilter::new();
    let pts = points(mesh, 64, w, d, ys);
    let mut q = NavMeshQuery::new();
    let mut i = 0;
    c.bench_function(&format!("{name}/nearest"), |b| {
        b.iter(|| {
            i = (i + 1) % pts.len();
            q.find_nearest_poly(mesh, pts[i].1, [2.0, 1.0, 2.0], &f)
                .unwrap()
        })
    });
    bench_path(c, &format!("{name}/path+straight"), mesh, &pts, &mut q);
    // The same searches on a compiled graph, alone (the same answers) and with 8 landmarks.
    for (label, landmarks) in [("compiled", 0usize), ("compiled+8L", 8)] {
        let graph = CompiledGraph::build(mesh, &f, landmarks).unwrap();
        let mut qc = NavMeshQuery::new();
        qc.set_compiled_graph(Some(Arc::new(graph)));
        bench_path(
            c,
            &format!("{name}/path+straight {label}"),
            mesh,
            &pts,
            &mut qc,
        );
    }
    // With the exact distance table, where the mesh is small enough for one.
    if let Ok(graph) = CompiledGraph::build_exact(mesh, &f) {
        let mut qc = NavMeshQuery::new();
        qc.set_compiled_graph(Some(Arc::new(graph)));
        let id = format!("{name}/path+straight compiled exact");
        bench_path(c, &id, mesh, &pts, &mut qc);
    }
    c.bench_function(&format!("{name}/compile graph, 8 landmarks"), |b| {
        b.iter(|| CompiledGraph::build(mesh, &f, 8).unwrap())
    });
    let mut visited = Vec::new();
    let mut r = 0;
    c.bench_function(&format!("{name}/raycast"), |b| {
        b.iter(|| {
            r = (r + 1) % pts.len();
            let (a, e) = (pts[r], pts[(r * 5 + 1) % pts.len()]);
            q.raycast(mesh, a.0, a.1, e.1, &f, &mut visited).unwrap()
        })
    });
}

fn fixture(c: &mut Criterion) {
    let mesh = bridge_and_building();
    bench_mesh(
        c,
        "bridge_and_building",
        &mesh,
        48.0,
        32.0,
        &[0.0, 3.0, 3.5],
    );
}

fn generated(c: &mut Criterion) {
    let g = generated_grid_mesh(32, 32, 4, 1);
    assert_eq!(g.mesh.tile_count(), 1024);
    bench_mesh(c, "generated_32x32", &g.mesh, 512.0, 512.0, &[0.0]);
}

/// The fixed-work mode: `rounds` passes over 64 point pairs on the generated mesh (on the
/// bridge-and-building fixture with `QUERIES_MESH=fixture`).
fn fixed(kind: &str, rounds: usize) {
    let fixture = std::env::var("QUERIES_MESH").is_ok_and(|m| m == "fixture");
    let (mesh, pts) = if fixture {
        let mesh = bridge_and_building();
        let pts = points(&mesh, 64, 48.0, 32.0, &[0.0, 3.0, 3.5]);
        (mesh, pts)
    } else {
        let mesh = generated_grid_mesh(32, 32, 4, 1).mesh;
        let pts = points(&mesh, 64, 512.0, 512.0, &[0.0]);
        (mesh, pts)
    };
    let mesh = &mesh;
    let f = QueryFilter::new();
    let mut q = NavMeshQuery::new();
    // `QUERIES_LANDMARKS=n`: on a compiled graph with `n` landmarks (0: the graph alone).
    if let Some(n) = std::env::var("QUERIES_LANDMARKS")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        let graph = CompiledGraph::build(mesh, &f, n).unwrap();
        q.set_compiled_graph(Some(Arc::new(graph)));
    }
    let (mut path, mut corners, mut visited) = (Vec::new(), Vec::new(), Vec::new());
    let mut sum = 0u64;
    for _ in 0..rounds {
        for k in 0..pts.len() {
            let (a, e) = (pts[k], pts[(k * 7 + 3) % pts.len()]);
            sum += match kind {
                "path" => path_and_straight(&mut q, mesh, a, e, &mut path, &mut corners),
                "nearest" => q
                    .find_nearest_poly(mesh, a.1, [2.0, 1.0, 2.0], &f)
                    .unwrap()
                    .map_or(0, |h| h.poly.0 & 1),
                "raycast" => {
                    q.raycast(mesh, a.0, a.1, e.1, &f, &mut visited).unwrap();
                    visited.len() as u64
                }
                other => panic!("QUERIES_FIXED={other}: expected path, nearest or raycast"),
            };
        }
    }
    println!(
        "{kind}: {rounds} rounds of {} queries, checksum {sum}",
        pts.len()
    );
}

/// FNV-1a over 64-bit words: a digest of query answers, to compare two builds bit for bit.
struct Digest(u64);

impl Digest {
    fn word(&mut self, w: u64) {
        for b in w.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    fn point(&mut self, p: Vec3) {
        p.iter().for_each(|c| self.word(c.to_bits()));
    }
}

/// `QUERIES_FIXED=digest`: every answer (path polygons, status, cost bits, iterations,
/// straight-path points, nearest, raycast) over many pairs on the fixture and the generated
/// mesh, with the default filter and with a costly swamp, hashed into one number. Two builds
/// printing the same digest answered every one of these queries identically. With
/// `QUERIES_COMPILED=1` the searches run on a compiled graph without landmarks, which must
/// print the same digest.
fn digest() {
    use onepath_mesh::query::GENERATED_SWAMP_AREA;
    let g = generated_grid_mesh(32, 32, 4, 1);
    let fixture = bridge_and_building();
    let meshes: [(&TiledNavMesh, f64, f64, &[f64]); 2] = [
        (&fixture, 48.0, 32.0, &[0.0, 3.0, 3.5]),
        (&g.mesh, 512.0, 512.0, &[0.0]),
    ];
    let mut swamp = QueryFilter::new();
    swamp.set_area_cost(GENERATED_SWAMP_AREA, 4.5).unwrap();
    let mut d = Digest(0xCBF2_9CE4_8422_2325);
    let mut q = NavMeshQuery::new();
    let compiled = std::env::var("QUERIES_COMPILED").is_ok();
    let (mut path, mut corners, mut visited) = (Vec::new(), Vec::new(), Vec::new());
    for (mesh, w, dd, ys) in meshes {
        let pts = points(mesh, 96, w, dd, ys);
        if compiled {
            // A compiled graph without landmarks: the digest must not change.
            let graph = CompiledGraph::build(mesh, &QueryFilter::new(), 0).unwrap();
            q.set_compiled_graph(Some(Arc::new(graph)));
        }
        for f in [QueryFilter::new(), swamp] {
            for k in 0..pts.len() {
                let (a, e) = (pts[k], pts[(k * 7 + 3) % pts.len()]);
                for cap in [1 << 20, 50] {
                    let r = q
                        .find_path(mesh, a.0, e.0, a.1, e.1, &f, cap, &mut path)
                        .unwrap();
                    d.word(r.status as u64);
                    d.word(r.cost.to_bits());
                    d.word(r.iterations);
                    path.iter().for_each(|p| d.word(p.0));
                    q.find_straight_path(
                        mesh,
                        a.1,
                        e.1,
                        &path,
                        &f,
                        StraightPathOptions::default(),
                        &mut corners,
                    )
                    .unwrap();
                    for c in &corners {
                        d.point(c.pos);
                        d.word(c.poly.0);
                    }
                }
                let h = q.raycast(mesh, a.0, a.1, e.1, &f, &mut visited).unwrap();
                d.word(h.t.to_bits());
                visited.iter().for_each(|p| d.word(p.0));
                for ext in [[2.0, 1.0, 2.0], [0.3, 0.5, 0.3], [9.0, 4.0, 9.0]] {
                    let c = [e.1[0] + 0.37, e.1[1], e.1[2] - 0.61];
                    if let Some(n) = q.find_nearest_poly(mesh, c, ext, &f).unwrap() {
                        d.word(n.poly.0);
                        d.point(n.point);
                    }
                }
            }
        }
    }
    println!("digest: {:016x}", d.0);
}

criterion_group!(benches, fixture, generated);

fn main() {
    if let Ok(kind) = std::env::var("QUERIES_FIXED") {
        if kind == "digest" {
            digest();
            return;
        }
        let rounds = std::env::var("QUERIES_ROUNDS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(20);
        fixed(&kind, rounds);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
