//! Meshes, cases and helpers shared by the path-search tests (`query_path.rs`, model v1,
//! and `query_portals.rs`, model v2): generated grids with a costly swamp and jittered
//! triangle meshes with random areas, the walkable polygons with their corners, cases on the
//! bridge fixture with its layers and off-mesh links, and the tolerance for comparing costs
//! summed in another order.

use onepath_format::PolyRef;
use onepath_mesh::query::{
    generated_grid_mesh, NavMeshQuery, PathEnds, QueryFilter, Vec3, GENERATED_SWAMP_AREA,
};
use onepath_mesh::TiledNavMesh;

/// Polygons a default filter admits, in slot / polygon order, with their corners.
pub fn walkable(mesh: &TiledNavMesh) -> Vec<(PolyRef, Vec<Vec3>)> {
    let mut out = Vec::new();
    for t in mesh.tiles() {
        let d = t.tile().data();
        let o = t.origin();
        for p in 0..t.tile().poly_count() {
            if t.tile().flags()[p] == 0 {
                continue;
            }
            let verts = t
                .tile()
                .poly_corners(p)
                .map(|c| {
                    let v = d.vertices[usize::from(d.corners[c])];
                    [
                        o[0] + f64::from(v[0]),
                        o[1] + f64::from(v[1]),
                        o[2] + f64::from(v[2]),
                    ]
                })
                .collect();
            out.push((t.poly_ref(p as u32).unwrap(), verts));
        }
    }
    out
}

/// A point inside a square cell at fractions (u, v) of its sides.
pub fn in_cell(verts: &[Vec3], u: f64, v: f64) -> Vec3 {
    let (a, c) = (verts[0], verts[2]);
    [a[0] + (c[0] - a[0]) * u, a[1], a[2] + (c[2] - a[2]) * v]
}

pub fn close(a: f64, b: f64) -> bool {
    // Equal-cost paths may sum their edges in another order: allow rounding only.
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// 48 cases by default; CI raises it with `PROPTEST_CASES`.
pub fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

pub struct Case {
    pub mesh: TiledNavMesh,
    pub filter: QueryFilter,
    pub ends: PathEnds,
}

pub fn case(
    tiles: (u16, u16),
    cells: u16,
    seed: u64,
    swamp: f64,
    pick: (usize, usize),
    uv: [f64; 4],
) -> Case {
    let mut g = generated_grid_mesh(tiles.0, tiles.1, cells, seed);
    if walkable(&g.mesh).is_empty() {
        // Every cell blocked (possible on the smallest meshes): open the first one.
        let r = g.mesh.tile_at_slot(0).unwrap().poly_ref(0).unwrap();
        g.mesh.set_poly_flags(r, 1).unwrap();
    }
    let polys = walkable(&g.mesh);
    let (a, b) = (&polys[pick.0 % polys.len()], &polys[pick.1 % polys.len()]);
    let mut filter = QueryFilter::new();
    filter.set_area_cost(GENERATED_SWAMP_AREA, swamp).unwrap();
    let ends = PathEnds {
        start_ref: a.0,
        start_pos: in_cell(&a.1, uv[0], uv[1]),
        end_ref: b.0,
        end_pos: in_cell(&b.1, uv[2], uv[3]),
    };
    Case {
        mesh: g.mesh,
        filter,
        ends,
    }
}

/// A mesh of `tiles` tiles in a row (tile size 8), each an `n × n` grid of cells split
/// into two triangles along a random diagonal, interior vertices jittered in X/Z and raised
/// at random (boundary vertices stay on the boundary at height 0 so tiles stitch), random
/// areas. Built through `NavTileAssembler`.
fn triangle_mesh(tiles: i32, n: usize, bits: &[u8]) -> TiledNavMesh {
    use onepath_format::{NavMeshParams, NavTile, NavTileAssembler};
    let params = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
    let mut mesh = TiledNavMesh::new(params).unwrap();
    let mut b = bits.iter().cycle().copied();
    let cell = 8.0 / n as f64;
    for tx in 0..tiles {
        let ox = f64::from(tx) * 8.0;
        let mut verts = Vec::new();
        for j in 0..=n {
            for i in 0..=n {
                let interior = i > 0 && i < n && j > 0 && j < n;
                let (mut x, mut z, mut y) = (ox + i as f64 * cell, j as f64 * cell, 0.0);
                if interior {
                    x += (f64::from(b.next().unwrap()) / 255.0 - 0.5) * 0.5 * cell;
                    z += (f64::from(b.next().unwrap()) / 255.0 - 0.5) * 0.5 * cell;
                    y = f64::from(b.next().unwrap()) / 255.0;
                }
                verts.push([x, y, z]);
            }
        }
        let v = |i: usize, j: usize| (j * (n + 1) + i) as u32;
        let (mut sizes, mut idx, mut areas) = (Vec::new(), Vec::new(), Vec::new());
        for j in 0..n {
            for i in 0..n {
                let (a, bb, c, d) = (v(i, j), v(i + 1, j), v(i + 1, j + 1), v(i, j + 1));
                let tris = if b.next().unwrap() & 1 == 0 {
                    [[a, bb, c], [a, c, d]]
                } else {
                    [[a, bb, d], [bb, c, d]]
                };
                for t in tris {
                    sizes.push(3u8);
                    idx.extend(t);
                    areas.push(b.next().unwrap() % 3);
                }
            }
        }
        let data = NavTileAssembler::from_polygons(
            &params,
            tx,
            0,
            0,
            0.0,
            &verts,
            &sizes,
            &idx,
            Some(&areas),
            None,
        )
        .unwrap();
        mesh.add_tile(NavTile::create(&params, data).unwrap())
            .unwrap();
    }
    mesh
}

/// A search case on `triangle_mesh(tiles, n, bits)`: area costs `costs` for areas 0..3, the
/// polygons picked by `pick`, points inside them by the barycentric weights `w` (normalised;
/// rotated for the end).
pub fn triangle_case(
    tiles: i32,
    n: usize,
    bits: &[u8],
    pick: (usize, usize),
    w: [f64; 3],
    costs: [f64; 3],
) -> Case {
    let mesh = triangle_mesh(tiles, n, bits);
    let mut filter = QueryFilter::new();
    for (a, c) in costs.iter().enumerate() {
        filter.set_area_cost(a as u8, *c).unwrap();
    }
    let polys = walkable(&mesh);
    let (a, b) = (&polys[pick.0 % polys.len()], &polys[pick.1 % polys.len()]);
    let inside = |t: &[Vec3], w: [f64; 3]| {
        let s = w[0] + w[1] + w[2];
        let f = |k: usize| (t[0][k] * w[0] + t[1][k] * w[1] + t[2][k] * w[2]) / s;
        [f(0), f(1), f(2)]
    };
    let ends = PathEnds {
        start_ref: a.0,
        start_pos: inside(&a.1, w),
        end_ref: b.0,
        end_pos: inside(&b.1, [w[2], w[0], w[1]]),
    };
    Case { mesh, filter, ends }
}

/// A search case on the bridge-and-building fixture (two floors, a bridge, a ladder and a
/// jump as off-mesh links, each link switched on or off): area costs `costs` for areas 0, 2,
/// 3 and 1, the ends the polygons nearest to `a` and `b` (x, z, floor: heights 0, 3 and 3.5);
/// `None` when either lies off the mesh.
pub fn bridge_case(
    a: (f64, f64, usize),
    b: (f64, f64, usize),
    costs: [f64; 4],
    ladder: bool,
    jump: bool,
) -> Option<Case> {
    let mut mesh = onepath_mesh::fixtures::bridge_and_building();
    if !ladder {
        let t = mesh.tile_at(1, 0, 1).unwrap().tile_ref();
        mesh.set_off_mesh_link_enabled(t, 0, false).unwrap();
    }
    if !jump {
        let t = mesh.tile_at(0, 1, 1).unwrap().tile_ref();
        mesh.set_off_mesh_link_enabled(t, 0, false).unwrap();
    }
    let mut filter = QueryFilter::new();
    for (area, c) in [0u8, 2, 3, 1].into_iter().zip(costs) {
        filter.set_area_cost(area, c).unwrap();
    }
    let heights = [0.0, 3.0, 3.5];
    let mut q = NavMeshQuery::new();
    let find = |q: &mut NavMeshQuery, p: (f64, f64, usize)| {
        q.find_nearest_poly(&mesh, [p.0, heights[p.2], p.1], [2.0, 0.5, 2.0], &filter)
            .unwrap()
    };
    let (Some(s), Some(e)) = (find(&mut q, a), find(&mut q, b)) else {
        return None;
    };
    Some(Case {
        mesh: mesh.clone(),
        filter,
        ends: PathEnds {
            start_ref: s.poly,
            start_pos: s.point,
            end_ref: e.poly,
            end_pos: e.point,
        },
    })
}
