//! Nearest polygon: equal to a brute-force scan of every polygon (a polygon the point is on,
//! over it within climb, by the smaller vertical gap, before every other polygon, those by
//! the squared distance to the climb band of a polygon the point is over, else to the
//! closest point; then the lower slot and polygon index), for any box, including
//! boxes far larger than the mesh; the per-tile trees follow tile replacement.

use onepath_format::{NavMeshParams, PolyRef};
use onepath_mesh::fixtures::{bridge_and_building, flat_grid_tile};
use onepath_mesh::query::{generated_grid_mesh, tie_key, NavMeshQuery, QueryFilter, Vec3};
use onepath_mesh::TiledNavMesh;
use proptest::prelude::*;

/// Every polygon passing the filter whose box overlaps the query box, by brute force.
fn brute_force(
    mesh: &TiledNavMesh,
    q: &NavMeshQuery,
    c: Vec3,
    h: Vec3,
    f: &QueryFilter,
) -> Option<(PolyRef, f64)> {
    let climb = f64::from(mesh.params().walkable_climb);
    let mut best: Option<(PolyRef, (u8, f64), f64)> = None;
    for t in mesh.tiles() {
        let d = t.tile().data();
        let o = t.origin();
        for p in 0..t.tile().poly_count() {
            if !f.passes_flags(t.tile().flags()[p]) {
                continue;
            }
            let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
            for k in t.tile().poly_corners(p) {
                let v = d.vertices[usize::from(d.corners[k])];
                for a in 0..3 {
                    let w = o[a] + f64::from(v[a]);
                    lo[a] = lo[a].min(w);
                    hi[a] = hi[a].max(w);
                }
            }
            if (0..3).any(|a| lo[a] > c[a] + h[a] || hi[a] < c[a] - h[a]) {
                continue;
            }
            let r = t.poly_ref(p as u32).unwrap();
            let cp = q.closest_point_on_poly(mesh, r, c).unwrap();
            let d2 = (0..3)
                .map(|a| (cp.point[a] - c[a]) * (cp.point[a] - c[a]))
                .sum::<f64>();
            let gap = (c[1] - cp.point[1]).abs();
            // (0, vertical gap) for a polygon the point is on, (1, squared distance to the
            // climb band) for one it is over beyond climb, (1, squared distance) else.
            let key = if cp.over_poly && gap <= climb {
                (0, gap)
            } else if cp.over_poly {
                (1, (gap - climb) * (gap - climb))
            } else {
                (1, d2)
            };
            if best.map_or(true, |(b, bk, _)| {
                key.0 < bk.0
                    || (key.0 == bk.0
                        && (key.1 < bk.1 || (key.1 == bk.1 && tie_key(r) < tie_key(b))))
            }) {
                best = Some((r, key, d2));
            }
        }
    }
    best.map(|(r, _, d2)| (r, d2))
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_nearest_polygon_equals_a_brute_force_scan(
        fixture in any::<bool>(), seed in any::<u64>(),
        c in (-10.0f64..60.0, -1.0f64..5.0, -10.0f64..60.0),
        h in (0.0f64..4.0, 0.0f64..4.0, 0.0f64..4.0), huge in any::<bool>(),
    ) {
        let mesh = if fixture { bridge_and_building() } else { generated_grid_mesh(3, 2, 4, seed).mesh };
        let center = [c.0, c.1, c.2];
        let half = if huge { [1.0e6, 1.0e6, 1.0e6] } else { [h.0, h.1, h.2] };
        let f = QueryFilter::new();
        let mut q = NavMeshQuery::new();
        let got = q.find_nearest_poly(&mesh, center, half, &f).unwrap();
        let want = brute_force(&mesh, &q, center, half, &f);
        prop_assert_eq!(got.map(|n| (n.poly, n.dist_sqr)), want);
    }
}

#[test]
fn the_per_tile_tree_follows_a_replaced_tile() {
    let params = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
    let mut mesh = TiledNavMesh::new(params).unwrap();
    mesh.add_tile(flat_grid_tile(&params, 0, 0, 0, 0.0, 2).unwrap())
        .unwrap();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let n = q
        .find_nearest_poly(&mesh, [7.0, 0.0, 7.0], [0.5; 3], &f)
        .unwrap()
        .unwrap();
    assert_eq!(n.poly.poly(), 3);
    // Same slot, finer grid: the same query object must see the new polygons.
    let (t, _) = mesh
        .replace_tile(flat_grid_tile(&params, 0, 0, 0, 0.0, 8).unwrap())
        .unwrap();
    let n = q
        .find_nearest_poly(&mesh, [7.5, 0.0, 7.5], [0.25; 3], &f)
        .unwrap()
        .unwrap();
    assert_eq!(n.poly, t.poly(63).unwrap());
    // And the tile raised by 2: the box at the old height finds nothing.
    mesh.replace_tile(flat_grid_tile(&params, 0, 0, 0, 2.0, 8).unwrap())
        .unwrap();
    assert_eq!(
        q.find_nearest_poly(&mesh, [7.5, 0.0, 7.5], [0.25; 3], &f),
        Ok(None)
    );
}

/// The tiles of column (x, z) by the definition: every tile there, ascending by layer.
fn column_by_scan(mesh: &TiledNavMesh, x: i32, z: i32) -> Vec<(u32, u16)> {
    let mut v: Vec<(u32, u16)> = mesh
        .tiles()
        .filter(|t| {
            let (tx, tz, _) = t.tile().position();
            (tx, tz) == (x, z)
        })
        .map(|t| (t.slot(), t.tile().position().2))
        .collect();
    v.sort_by_key(|&(_, layer)| layer);
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// "Tile columns searched: those under the box and one more on each side": the column
    /// lookup the nearest search uses (`tiles_at`, over a dense grid kept in step with the
    /// tiles) names exactly the tiles of each column, in layer order, through any sequence of
    /// additions, removals and replacements, near and far (a sparse mesh outgrows the grid).
    #[test]
    fn the_tiles_of_a_column_are_exactly_the_tiles_placed_there(
        ops in proptest::collection::vec((0u8..4, -3i32..4, -3i32..4, 0u16..3, any::<bool>()), 1..40),
    ) {
        let params = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
        let mut mesh = TiledNavMesh::new(params).unwrap();
        let mut q = NavMeshQuery::new();
        let f = QueryFilter::new();
        for (op, x, z, layer, far) in ops {
            // Far columns make the occupied rectangle sparse.
            let (x, z) = if far { (x * 5000, z * 3000) } else { (x, z) };
            let y = f64::from(layer) * 4.0;
            match op {
                0 | 1 => {
                    let _ = mesh.add_tile(flat_grid_tile(&params, x, z, layer, y, 2).unwrap());
                }
                2 => {
                    let _ = mesh.remove_tile_at(x, z, layer);
                }
                _ => {
                    let _ = mesh.replace_tile(flat_grid_tile(&params, x, z, layer, y, 4).unwrap());
                }
            }
            for (cx, cz) in (-4..5).flat_map(|a| (-4..5).map(move |b| (a, b))).chain([(x, z), (x + 1, z), (x, z - 1)]) {
                let got: Vec<(u32, u16)> = mesh
                    .tiles_at(cx, cz)
                    .map(|t| (t.slot(), t.tile().position().2))
                    .collect();
                prop_assert_eq!(got, column_by_scan(&mesh, cx, cz), "column ({}, {})", cx, cz);
            }
            // And the nearest search over it agrees with the brute-force scan.
            let c = [f64::from(x) * 8.0 + 3.3, y, f64::from(z) * 8.0 + 4.1];
            let got = q.find_nearest_poly(&mesh, c, [2.0, 1.0, 2.0], &f).unwrap();
            prop_assert_eq!(got.map(|n| (n.poly, n.dist_sqr)), brute_force(&mesh, &q, c, [2.0, 1.0, 2.0], &f));
        }
    }
}
