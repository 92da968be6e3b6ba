//! Any-angle paths: OnePath's `AnyAngleQuery` against the crates.io `polyanya` crate (the
//! reference Rust implementation of Polyanya) on the very same convex polygons, interleaved:
//! each side runs twice in one group (`r1`, `r2`), alternating, so that uneven machine load
//! shows as a spread between rounds instead of a bias.
//!
//! Levels: nav_test as OnePath builds it (`ONEPATH_DATA`), tiled (32 cells) and as one
//! tile, and `generated_grid_mesh(8, 8, 4,
//! ..)` (64 tiles, 1 024 square polygons, an eighth blocked). Both sides get the same
//! polygons (every polygon the default filter admits, vertices shared by exact position) and
//! the same start and end points with their polygons found beforehand (the snap is not
//! timed on either side). Before timing, the setup prints the lengths of both answers, and
//! the length of OnePath's polygon search + string pulling (the Detour-style path) on the
//! same pairs.
//!
//! `cargo bench --bench anyangle -- --warm-up-time 1 --measurement-time 2`. The ratio is
//! OnePath / polyanya of one round's estimates.

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec2;
use onepath_mesh::query::{
    generated_grid_mesh, AnyAngleQuery, AnyAngleStatus, NearestPoly, PlainPolygons, QueryFilter,
};
use onepath_mesh::TiledNavMesh;
use onepath_peers::level::nav_test_path;
use onepath_peers::metrics::reachable_pairs;
use onepath_peers::onepath::{build_onepath, world_polygons, OnePathEngine};
use onepath_peers::sampling::REPORT_SEED;
use onepath_peers::{Level, RecastSettings};
use std::collections::BTreeMap;
use std::hint::black_box;

/// Pairs per level.
const PAIRS: usize = 64;

/// The admitted polygons of `mesh` as a polyanya mesh, and the polyanya index of each
/// OnePath polygon.
fn polyanya_mesh(mesh: &TiledNavMesh) -> (polyanya::Mesh, BTreeMap<u64, u32>) {
    let plain = PlainPolygons::from_mesh(mesh);
    let filter = QueryFilter::new();
    let admitted: Vec<_> = plain
        .polygons
        .iter()
        .filter(|p| filter.passes_flags(p.flags))
        .collect();
    let index: BTreeMap<u64, u32> = admitted
        .iter()
        .enumerate()
        .map(|(i, p)| (p.poly.0, i as u32))
        .collect();
    // Per vertex: the polygons using it, with the corner it is in each.
    let mut around: Vec<Vec<(u32, usize)>> = vec![Vec::new(); plain.vertices.len()];
    for (i, p) in admitted.iter().enumerate() {
        for (k, &v) in p.vertices.iter().enumerate() {
            around[v as usize].push((i as u32, k));
        }
    }
    let vertices = plain
        .vertices
        .iter()
        .enumerate()
        .map(|(v, pos)| {
            // Counter-clockwise by the direction to each polygon's centre, with a gap
            // (u32::MAX) wherever the next polygon is not across the shared edge.
            let mut polys: Vec<(f64, u32, usize)> = around[v]
                .iter()
                .map(|&(i, k)| {
                    let p = admitted[i as usize];
                    let n = p.vertices.len() as f64;
                    let (mut cx, mut cz) = (0.0, 0.0);
                    for &w in &p.vertices {
                        cx += plain.vertices[w as usize][0] / n;
                        cz += plain.vertices[w as usize][2] / n;
                    }
                    (diamond_angle(cx - pos[0], cz - pos[2]), i, k)
                })
                .collect();
            polys.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let mut list = Vec::new();
            for j in 0..polys.len() {
                let (_, i, k) = polys[j];
                list.push(i);
                let (_, next, _) = polys[(j + 1) % polys.len()];
                // The edge on the counter-clockwise side of corner k is edge k - 1.
                let p = admitted[i as usize];
                let e = (k + p.vertices.len() - 1) % p.vertices.len();
                let joined = p.neighbours[e]
                    .iter()
                    .any(|r| index.get(&r.0) == Some(&next));
                if !joined || polys.len() == 1 {
                    list.push(u32::MAX);
                }
            }
            polyanya::Vertex::new(Vec2::new(pos[0] as f32, pos[2] as f32), list)
        })
        .collect();
    let polygons = admitted
        .iter()
        .map(|p| {
            let open = p.neighbours.iter().filter(|n| !n.is_empty()).count();
            polyanya::Polygon::new(p.vertices.clone(), open == 1)
        })
        .collect();
    (
        polyanya::Mesh::new(vertices, polygons).expect("polyanya mesh"),
        index,
    )
}

/// A number that grows with the angle of (dx, dz) counter-clockwise from +X, in 0..4 (the
/// "diamond angle": monotone like the angle, no trigonometry).
fn diamond_angle(dx: f64, dz: f64) -> f64 {
    if dz >= 0.0 {
        if dx >= 0.0 {
            dz / (dx + dz)
        } else {
            1.0 - dx / (-dx + dz)
        }
    } else if dx < 0.0 {
        2.0 - dz / (-dx - dz)
    } else {
        3.0 + dx / (dx - dz)
    }
}

fn len_2d(points: impl Iterator<Item = [f64; 2]>) -> f64 {
    let pts: Vec<[f64; 2]> = points.collect();
    pts.windows(2)
        .map(|w| ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2)).sqrt())
        .sum()
}

fn level(c: &mut Criterion, name: &str, mesh: &TiledNavMesh) {
    let mut engine = OnePathEngine::new(mesh, 1 << 20);
    let pairs = reachable_pairs(
        &mut engine,
        &world_polygons(mesh),
        PAIRS,
        REPORT_SEED,
        10_000,
    )
    .expect("pairs");
    let mut snapped: Vec<(NearestPoly, NearestPoly)> = Vec::new();
    for &(s, e) in &pairs {
        if let (Some(a), Some(b)) = (engine.snap(s).expect("snap"), engine.snap(e).expect("snap")) {
            snapped.push((a, b));
        }
    }
    let (pa, index) = polyanya_mesh(mesh);
    let filter = QueryFilter::new();
    let mut any = AnyAngleQuery::new();
    let mut out = Vec::new();
    let mut coords = Vec::new();
    // The pairs both sides answer: the timed set.
    let mut both = Vec::new();
    let (mut ours_total, mut pa_total, mut funnel_total) = (0.0, 0.0, 0.0);
    let (mut ours_expanded, mut differ, mut pa_missing) = (0usize, 0usize, 0usize);
    for (a, b) in &snapped {
        let r = any
            .find_path(
                mesh,
                a.poly,
                b.poly,
                a.point,
                b.point,
                &filter,
                1 << 22,
                &mut out,
            )
            .expect("any-angle path");
        assert_eq!(r.status, AnyAngleStatus::Complete, "{name}: {a:?} -> {b:?}");
        let funnel = engine.path(a, b).expect("path");
        assert!(!funnel.partial);
        let funnel_len = len_2d(
            funnel
                .corners
                .iter()
                .map(|c| [f64::from(c[0]), f64::from(c[2])]),
        );
        let on = |p: &NearestPoly| {
            let at = Vec2::new(p.point[0] as f32, p.point[2] as f32);
            let want = index[&p.poly.0];
            // The snap that lands on the same polygon as OnePath's (overlapping floors).
            pa.get_closest_points(at)
                .into_iter()
                .find(|c| c.polygon() == want)
                .or_else(|| pa.get_closest_point_at_height(at, p.point[1] as f32))
        };
        let (Some(s), Some(e)) = (on(a), on(b)) else {
            pa_missing += 1;
            continue;
        };
        match pa.path(s, e) {
            Some(p) => {
                let l = f64::from(p.length);
                pa_total += l;
                ours_total += r.length;
                ours_expanded += r.expanded;
                funnel_total += funnel_len;
                if (l - r.length).abs() > 1e-3 * r.length.max(1.0) {
                    differ += 1;
                    eprintln!(
                        "  another length: {a:?} -> {b:?}: ours {} polyanya {l}",
                        r.length
                    );
                }
                coords.push((s, e));
                both.push((*a, *b));
            }
            None => pa_missing += 1,
        }
    }
    eprintln!(
        "{name}: {} pairs, {pa_missing} without a polyanya path; on the {} others: any-angle \
         {ours_total:.3} (expanded {ours_expanded}), polyanya {pa_total:.3} ({differ} pairs with \
         another length, > 0.1 %), polygon search + string pulling {funnel_total:.3} ({:+.3} %)",
        snapped.len(),
        both.len(),
        100.0 * (funnel_total / ours_total - 1.0),
    );

    let mut g = c.benchmark_group(format!("anyangle/{name}"));
    g.sample_size(10);
    for round in ["r1", "r2"] {
        g.bench_function(format!("onepath x{} {round}", both.len()), |bch| {
            bch.iter(|| {
                for (a, b) in &both {
                    black_box(
                        any.find_path(
                            mesh,
                            a.poly,
                            b.poly,
                            a.point,
                            b.point,
                            &filter,
                            1 << 22,
                            &mut out,
                        )
                        .expect("path"),
                    );
                }
            })
        });
        g.bench_function(format!("polyanya x{} {round}", coords.len()), |bch| {
            bch.iter(|| {
                for &(s, e) in &coords {
                    black_box(pa.path(black_box(s), black_box(e)));
                }
            })
        });
    }
    g.finish();
}

fn levels(c: &mut Criterion) {
    if let Some(path) = nav_test_path() {
        let lvl = Level::load_obj(&path).expect("nav_test.obj reads");
        let built = build_onepath(&lvl, &RecastSettings::default()).expect("build");
        level(c, "nav_test", &built.built.mesh);
        // One big tile: no tile borders, so no T-junctions, which polyanya (adjacency by
        // shared vertices) cannot cross.
        let one = RecastSettings {
            tile_size: 1024.0,
            ..RecastSettings::default()
        };
        let built = build_onepath(&lvl, &one).expect("build");
        level(c, "nav_test one tile", &built.built.mesh);
    } else {
        eprintln!("skipped nav_test: ONEPATH_DATA is not set or levels/nav_test.obj is absent");
    }
    let generated = generated_grid_mesh(8, 8, 4, 0x5EED_0014);
    level(c, "generated 8x8", &generated.mesh);
}

/// `criterion_group!` generates an undocumented public function; it lives here.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, levels);
}
criterion_main!(group::benches);
