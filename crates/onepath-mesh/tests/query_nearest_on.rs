//! The nearest polygon is the one under the point: a point over a polygon (inside it in X/Z)
//! within the walkable climb of its surface counts as on it, however close another
//! polygon's edge is in 3D; beyond the climb the distance to the climb band competes with
//! the 3D distances of the polygons the point is not over. A raycast from such a point never
//! stops where it starts.

use onepath_format::{NavMeshParams, NavTile, NavTileAssembler, PolyRef};
use onepath_mesh::fixtures::bridge_and_building;
use onepath_mesh::query::{tie_key, NavMeshQuery, QueryFilter, Vec3};
use onepath_mesh::TiledNavMesh;
use proptest::prelude::*;

/// The half extents RecastDemo queries with.
const HALF: Vec3 = [2.0, 4.0, 2.0];
/// Walkable climb of the generated meshes.
const CLIMB: f32 = 0.5;

fn params(tile: f64) -> NavMeshParams {
    let mut p = NavMeshParams::new([0.0, 0.0, 0.0], tile, 0.25, 6);
    p.walkable_climb = CLIMB;
    p
}

/// One tile from world polygons (sizes, indices).
fn tile(p: &NavMeshParams, x: i32, verts: &[Vec3], sizes: &[u8], idx: &[u32]) -> NavTile {
    let data =
        NavTileAssembler::from_polygons(p, x, 0, 0, 0.0, verts, sizes, idx, None, None).unwrap();
    NavTile::create(p, data).unwrap()
}

/// A flat floor Q (x 0..4, y 0) meeting a steep ramp P (x 4..5, rising from y 0 to y 2)
/// along x = 4, both z 0..4. Polygon 0 is Q, polygon 1 is P.
fn floor_and_ramp() -> TiledNavMesh {
    let p = params(8.0);
    let verts = [
        [0.0, 0.0, 0.0],
        [4.0, 0.0, 0.0],
        [4.0, 0.0, 4.0],
        [0.0, 0.0, 4.0],
        [5.0, 2.0, 0.0],
        [5.0, 2.0, 4.0],
    ];
    let mut mesh = TiledNavMesh::new(p).unwrap();
    mesh.add_tile(tile(&p, 0, &verts, &[4, 4], &[0, 1, 2, 3, 1, 4, 5, 2]))
        .unwrap();
    mesh
}

fn poly(mesh: &TiledNavMesh, p: u32) -> PolyRef {
    mesh.tiles().next().unwrap().poly_ref(p).unwrap()
}

#[test]
fn a_point_over_a_steep_polygon_within_climb_is_on_it_though_an_edge_is_closer() {
    let mesh = floor_and_ramp();
    let (q_floor, p_ramp) = (poly(&mesh, 0), poly(&mesh, 1));
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    // Over the ramp at x 4.3 (surface y 0.6), 0.4 below it: within the climb of 0.5. The
    // floor's edge at x 4 is only sqrt(0.3² + 0.2²) ≈ 0.36 away in 3D.
    let c = [4.3, 0.2, 2.0];
    let to_floor = q.closest_point_on_poly(&mesh, q_floor, c).unwrap();
    let d2_floor: f64 = (0..3).map(|a| (to_floor.point[a] - c[a]).powi(2)).sum();
    assert!(
        d2_floor < 0.4 * 0.4,
        "the floor is nearer in 3D: {d2_floor}"
    );
    let n = q.find_nearest_poly(&mesh, c, HALF, &f).unwrap().unwrap();
    assert_eq!(n.poly, p_ramp);
    assert!(n.over_poly);
    assert_eq!([n.point[0], n.point[2]], [c[0], c[2]]);
    assert!((n.point[1] - 0.6).abs() < 1e-12, "{n:?}");
    // The squared 3D distance is still what it says: the vertical gap squared.
    assert_eq!(n.dist_sqr, (c[1] - n.point[1]).powi(2));

    // A raycast from there up the ramp runs on (it does not stop at t = 0).
    let mut visited = Vec::new();
    let hit = q
        .raycast(&mesh, n.poly, n.point, [4.9, 0.0, 2.0], &f, &mut visited)
        .unwrap();
    assert!(hit.reached_end(), "{hit:?}");
    assert_eq!(visited, vec![p_ramp]);
}

#[test]
fn beyond_climb_the_distance_to_the_climb_band_competes_with_3d_distances() {
    let mesh = floor_and_ramp();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let (floor, ramp) = (poly(&mesh, 0), poly(&mesh, 1));
    // 0.6 below the ramp's surface (y 0.6 at x 4.3; climb 0.5): 0.1 beyond the climb band,
    // nearer than the floor's edge (0.3 away): the ramp.
    let n = q
        .find_nearest_poly(&mesh, [4.3, 0.0, 2.0], HALF, &f)
        .unwrap()
        .unwrap();
    assert_eq!(n.poly, ramp);
    assert!(n.over_poly);
    // The reported distance is the 3D one, the gap.
    assert!((n.dist_sqr - 0.36).abs() < 1e-12, "{n:?}");
    // 1.2 below: 0.7 beyond the band, while the floor's edge is sqrt(0.3² + 0.6²) ≈ 0.67
    // away: the floor.
    let n = q
        .find_nearest_poly(&mesh, [4.3, -0.6, 2.0], HALF, &f)
        .unwrap()
        .unwrap();
    assert_eq!(n.poly, floor);
    assert!(!n.over_poly);
    assert!((n.dist_sqr - 0.45).abs() < 1e-12, "{n:?}");
}

#[test]
fn a_point_on_the_shared_edge_goes_to_the_lower_tie_key() {
    let mesh = floor_and_ramp();
    let mut q = NavMeshQuery::new();
    let n = q
        .find_nearest_poly(&mesh, [4.0, 0.1, 2.0], HALF, &QueryFilter::new())
        .unwrap()
        .unwrap();
    // Over both, both at gap 0.1: the lower polygon index.
    assert_eq!(n.poly, poly(&mesh, 0));
    assert!(n.over_poly);
}

#[test]
fn on_stacked_layers_the_point_goes_to_the_layer_within_climb() {
    // The bridge deck (y 3) over the road (y 0) in column 1: a point 0.4 under the deck is
    // on the deck; 0.4 over the road is on the road.
    let mesh = bridge_and_building();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let on_deck = q
        .find_nearest_poly(&mesh, [20.0, 2.6, 8.0], HALF, &f)
        .unwrap()
        .unwrap();
    assert_eq!(mesh.poly(on_deck.poly).unwrap().0.tile().position().2, 1);
    assert!((on_deck.point[1] - 3.0).abs() < 1e-9, "{on_deck:?}");
    let on_road = q
        .find_nearest_poly(&mesh, [20.0, 0.4, 8.0], HALF, &f)
        .unwrap()
        .unwrap();
    assert_eq!(mesh.poly(on_road.poly).unwrap().0.tile().position().2, 0);
    assert!(on_road.point[1].abs() < 1e-9, "{on_road:?}");
}

/// `tiles` tiles in a row (tile size 8), each an `n × n` grid of cells split into two
/// triangles along a random diagonal, interior vertices jittered in X/Z and raised by up to
/// `rise` (slopes far steeper than the climb), boundary vertices at height 0 so tiles
/// stitch.
fn sloped_mesh(tiles: i32, n: usize, rise: f64, bits: &[u8]) -> TiledNavMesh {
    let p = params(8.0);
    let mut mesh = TiledNavMesh::new(p).unwrap();
    let mut b = bits.iter().cycle().copied();
    let mut unit = move || f64::from(b.next().unwrap()) / 255.0;
    let cell = 8.0 / n as f64;
    for tx in 0..tiles {
        let ox = f64::from(tx) * 8.0;
        let mut verts = Vec::new();
        for j in 0..=n {
            for i in 0..=n {
                let interior = i > 0 && i < n && j > 0 && j < n;
                let (mut x, mut z, mut y) = (ox + i as f64 * cell, j as f64 * cell, 0.0);
                if interior {
                    x += (unit() - 0.5) * 0.5 * cell;
                    z += (unit() - 0.5) * 0.5 * cell;
                    y = unit() * rise;
                }
                verts.push([x, y, z]);
            }
        }
        let v = |i: usize, j: usize| (j * (n + 1) + i) as u32;
        let (mut sizes, mut idx) = (Vec::new(), Vec::new());
        for j in 0..n {
            for i in 0..n {
                let (a, bb, c, d) = (v(i, j), v(i + 1, j), v(i + 1, j + 1), v(i, j + 1));
                let tris = if unit() < 0.5 {
                    [[a, bb, c], [a, c, d]]
                } else {
                    [[a, bb, d], [bb, c, d]]
                };
                for t in tris {
                    sizes.push(3u8);
                    idx.extend(t);
                }
            }
        }
        mesh.add_tile(tile(&p, tx, &verts, &sizes, &idx)).unwrap();
    }
    mesh
}

/// Every polygon of `mesh` with its world corners.
fn polygons(mesh: &TiledNavMesh) -> Vec<(PolyRef, Vec<Vec3>)> {
    let mut out = Vec::new();
    for t in mesh.tiles() {
        let d = t.tile().data();
        let o = t.origin();
        for p in 0..t.tile().poly_count() {
            let verts = t
                .tile()
                .poly_corners(p)
                .map(|c| {
                    let v = d.vertices[usize::from(d.corners[c])];
                    [0, 1, 2].map(|a| o[a] + f64::from(v[a]))
                })
                .collect();
            out.push((t.poly_ref(p as u32).unwrap(), verts));
        }
    }
    out
}

/// A point inside the convex polygon `verts`: the average of its corners, corner k weighted
/// `w[k % 3]`; and the smallest normalised weight (how far inside the point lies).
fn inside(verts: &[Vec3], w: [f64; 3]) -> (Vec3, f64) {
    let weights: Vec<f64> = (0..verts.len()).map(|k| w[k % 3]).collect();
    let s: f64 = weights.iter().sum();
    let mut p = [0.0; 3];
    for (v, wk) in verts.iter().zip(&weights) {
        for a in 0..3 {
            p[a] += v[a] * wk / s;
        }
    }
    let min = weights.iter().fold(f64::INFINITY, |m, &x| m.min(x)) / s;
    (p, min)
}

/// Checks the rule for a point over polygon `under` at `gap_under` from its surface (within
/// climb): the answer is a polygon the point is on, no farther vertically, and `under`
/// itself unless another polygon the point is over comes first by (gap, tie key); when the
/// point lies well inside `under` on a single-layer mesh, exactly `under`. Then a raycast
/// from the answer in direction `dir` does not stop at t = 0.
fn check_on(
    mesh: &TiledNavMesh,
    q: &mut NavMeshQuery,
    under: PolyRef,
    c: Vec3,
    well_inside: bool,
    dir: Vec3,
) -> Result<(), TestCaseError> {
    let f = QueryFilter::new();
    let climb = f64::from(mesh.params().walkable_climb);
    let at_under = q.closest_point_on_poly(mesh, under, c).unwrap();
    prop_assert!(at_under.over_poly);
    let gap_under = (c[1] - at_under.point[1]).abs();
    prop_assert!(gap_under <= climb);
    let n = q.find_nearest_poly(mesh, c, HALF, &f).unwrap().unwrap();
    prop_assert!(n.over_poly, "{:?}", n);
    let gap = (c[1] - n.point[1]).abs();
    prop_assert!(gap <= climb, "{:?}", n);
    prop_assert!(
        n.poly == under || (gap, tie_key(n.poly)) < (gap_under, tie_key(under)),
        "{:?} instead of {:?} at gap {}",
        n,
        under,
        gap_under
    );
    if well_inside {
        prop_assert_eq!(n.poly, under);
    }
    if well_inside {
        let end = [c[0] + dir[0], c[1], c[2] + dir[2]];
        let mut visited = Vec::new();
        let hit = q
            .raycast(mesh, n.poly, n.point, end, &f, &mut visited)
            .unwrap();
        prop_assert!(hit.t > 0.0, "{:?} from {:?}", hit, n);
    }
    Ok(())
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
    fn random_points_over_sloped_polygons_snap_to_the_polygon_under_them(
        tiles in 1i32..=2, n in 2usize..=6, rise in 0.5f64..4.0,
        bits in prop::collection::vec(any::<u8>(), 64),
        pick in any::<prop::sample::Index>(), w in [0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0],
        off in -0.999f64..0.999, dir in (-6.0f64..6.0, -6.0f64..6.0),
    ) {
        let mesh = sloped_mesh(tiles, n, rise, &bits);
        let polys = polygons(&mesh);
        let (r, verts) = &polys[pick.index(polys.len())];
        let (p, min_w) = inside(verts, [w[0] + 0.01, w[1] + 0.01, w[2] + 0.01]);
        let mut q = NavMeshQuery::new();
        let h = q.poly_height(&mesh, *r, p).unwrap().unwrap();
        let c = [p[0], h + off * f64::from(CLIMB), p[2]];
        check_on(&mesh, &mut q, *r, c, min_w > 1e-3, [dir.0, 0.0, dir.1])?;
    }

    #[test]
    fn random_points_over_the_fixtures_layers_snap_to_the_polygon_under_them(
        pick in any::<prop::sample::Index>(), w in [0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0],
        off in -0.999f64..0.999,
    ) {
        let mesh = bridge_and_building();
        let polys: Vec<_> = polygons(&mesh)
            .into_iter()
            .filter(|(r, _)| mesh.poly(*r).unwrap().0.tile().flags()[r.poly() as usize] != 0)
            .collect();
        let (r, verts) = &polys[pick.index(polys.len())];
        let (p, _) = inside(verts, [w[0] + 0.01, w[1] + 0.01, w[2] + 0.01]);
        let mut q = NavMeshQuery::new();
        let h = q.poly_height(&mesh, *r, p).unwrap().unwrap();
        let climb = f64::from(mesh.params().walkable_climb);
        let c = [p[0], h + off * climb, p[2]];
        // Polygons of a tile may share edges and layers overlap: the general rule only.
        check_on(&mesh, &mut q, *r, c, false, [0.0; 3])?;
    }
}
