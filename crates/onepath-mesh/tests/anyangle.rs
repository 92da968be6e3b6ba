//! Any-angle paths: the length equals a visibility-graph Dijkstra over the polygon corners
//! (the classic exact method) on random small meshes, one tile and several; every segment
//! of the path lies on the admitted polygons; the path is never longer than the straight
//! path of the polygon search; fixed cases (an L-shaped corridor, a hole, tile borders) have
//! the lengths worked out by hand; errors name what is wrong.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};

use onepath_format::{NavMeshParams, NavTile, NavTileData, PolyRef, NO_PORTAL};
use onepath_mesh::query::{
    generated_grid_mesh, AnyAngleError, AnyAngleQuery, AnyAngleStatus, NavMeshQuery, PathStatus,
    QueryError, QueryFilter, StraightPathFlags, StraightPathOptions, StraightPathPoint, Vec3,
    GENERATED_SWAMP_AREA,
};
use onepath_mesh::TiledNavMesh;
use proptest::prelude::*;

const TILE: f64 = 16.0;

fn params() -> NavMeshParams {
    NavMeshParams::new([0.0, 0.0, 0.0], TILE, 0.25, 6)
}

/// SplitMix64, for the random levels.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn unit(state: &mut u64) -> f64 {
    (next(state) >> 11) as f64 / (1u64 << 53) as f64
}

/// A level on a grid of `cells × cells` cells per tile over `tiles × tiles` tiles: `open`
/// per global cell (row-major, Z outer), `split` per cell (0 a square, 1 and 2 the two
/// diagonals), interior vertices off tile borders moved by `jitter(i, j)`.
struct Level {
    tiles: usize,
    cells: usize,
    open: Vec<bool>,
    split: Vec<u8>,
    jitter: Vec<[f32; 2]>,
}

impl Level {
    fn side(&self) -> usize {
        self.tiles * self.cells
    }

    fn open(&self, i: usize, j: usize) -> bool {
        self.open[j * self.side() + i]
    }

    /// A random level from `seed`: about `blocked` of the cells blocked, then unblocked
    /// where two open cells would touch at a corner only (the reference below measures on
    /// the union of the polygons, which joins there, while the mesh does not).
    fn random(seed: u64, tiles: usize, cells: usize, blocked: f64) -> Level {
        let mut s = seed;
        let side = tiles * cells;
        let mut open: Vec<bool> = (0..side * side).map(|_| unit(&mut s) >= blocked).collect();
        loop {
            let mut changed = false;
            for j in 1..side {
                for i in 1..side {
                    let [a, b, c, d] = [
                        (j - 1) * side + i - 1,
                        (j - 1) * side + i,
                        j * side + i - 1,
                        j * side + i,
                    ];
                    if open[a] && open[d] && !open[b] && !open[c] {
                        open[b] = true;
                        changed = true;
                    }
                    if open[b] && open[c] && !open[a] && !open[d] {
                        open[a] = true;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let split = (0..side * side).map(|_| (next(&mut s) % 3) as u8).collect();
        let cell = TILE / cells as f64;
        let jitter = (0..(side + 1) * (side + 1))
            .map(|_| {
                let d = 0.2 * cell;
                [
                    ((unit(&mut s) * 2.0 - 1.0) * d) as f32,
                    ((unit(&mut s) * 2.0 - 1.0) * d) as f32,
                ]
            })
            .collect();
        Level {
            tiles,
            cells,
            open,
            split,
            jitter,
        }
    }

    /// A level of square cells with the given open map (`#` blocked), one tile.
    fn from_rows(cells: usize, rows: &[&str]) -> Level {
        let open = rows
            .iter()
            .flat_map(|r| r.chars().map(|c| c != '#'))
            .collect::<Vec<_>>();
        assert_eq!(open.len(), cells * cells);
        Level {
            tiles: 1,
            cells,
            open,
            split: vec![0; cells * cells],
            jitter: vec![[0.0; 2]; (cells + 1) * (cells + 1)],
        }
    }

    /// Tile-local vertex (i, j) of tile (tx, tz).
    fn vertex(&self, tx: usize, tz: usize, i: usize, j: usize) -> [f32; 3] {
        let cell = (TILE / self.cells as f64) as f32;
        let (gi, gj) = (tx * self.cells + i, tz * self.cells + j);
        let border = i == 0 || j == 0 || i == self.cells || j == self.cells;
        let d = if border {
            [0.0; 2]
        } else {
            self.jitter[gj * (self.side() + 1) + gi]
        };
        [cell * i as f32 + d[0], 0.0, cell * j as f32 + d[1]]
    }

    fn tile(&self, tx: usize, tz: usize) -> NavTileData {
        let n = self.cells;
        let mut vertices = Vec::new();
        for j in 0..=n {
            for i in 0..=n {
                vertices.push(self.vertex(tx, tz, i, j));
            }
        }
        let v = |i: usize, j: usize| (j * (n + 1) + i) as u16;
        let mut polys: Vec<(Vec<u16>, bool)> = Vec::new();
        for j in 0..n {
            for i in 0..n {
                let (gi, gj) = (tx * n + i, tz * n + j);
                let open = self.open(gi, gj);
                let (a, b, c, d) = (v(i, j), v(i + 1, j), v(i + 1, j + 1), v(i, j + 1));
                match self.split[gj * self.side() + gi] {
                    0 => polys.push((vec![a, b, c, d], open)),
                    1 => {
                        polys.push((vec![a, b, c], open));
                        polys.push((vec![a, c, d], open));
                    }
                    _ => {
                        polys.push((vec![a, b, d], open));
                        polys.push((vec![b, c, d], open));
                    }
                }
            }
        }
        let mut by_edge: BTreeMap<(u16, u16), Vec<u32>> = BTreeMap::new();
        for (p, (vs, _)) in polys.iter().enumerate() {
            for k in 0..vs.len() {
                let (a, b) = (vs[k], vs[(k + 1) % vs.len()]);
                by_edge
                    .entry((a.min(b), a.max(b)))
                    .or_default()
                    .push(p as u32);
            }
        }
        let (mut corners, mut nbs, mut sides) = (Vec::new(), Vec::new(), Vec::new());
        for (p, (vs, _)) in polys.iter().enumerate() {
            for k in 0..vs.len() {
                let (a, b) = (vs[k], vs[(k + 1) % vs.len()]);
                corners.push(a);
                let other = by_edge[&(a.min(b), a.max(b))]
                    .iter()
                    .copied()
                    .find(|&q| q != p as u32);
                nbs.push(other.map_or(0, |q| q + 1));
                let (ai, aj) = (usize::from(a) % (n + 1), usize::from(a) / (n + 1));
                let (bi, bj) = (usize::from(b) % (n + 1), usize::from(b) / (n + 1));
                let side = if aj == 0 && bj == 0 {
                    3
                } else if ai == n && bi == n {
                    0
                } else if aj == n && bj == n {
                    1
                } else if ai == 0 && bi == 0 {
                    2
                } else {
                    NO_PORTAL
                };
                sides.push(side);
            }
        }
        NavTileData {
            tile_x: tx as i32,
            tile_z: tz as i32,
            layer: 0,
            origin_y: 0.0,
            vertices,
            poly_sizes: polys.iter().map(|(vs, _)| vs.len() as u8).collect(),
            poly_areas: vec![0; polys.len()],
            poly_flags: polys.iter().map(|&(_, o)| u16::from(o)).collect(),
            corners,
            edge_neighbours: nbs,
            edge_portal_sides: sides,
            ..Default::default()
        }
    }

    fn mesh(&self) -> TiledNavMesh {
        let p = params();
        let mut mesh = TiledNavMesh::new(p).unwrap();
        for tz in 0..self.tiles {
            for tx in 0..self.tiles {
                mesh.add_tile(NavTile::create(&p, self.tile(tx, tz)).unwrap())
                    .unwrap();
            }
        }
        mesh
    }
}

/// Polygons a default filter admits, with their world corners (counter-clockwise).
fn walkable(mesh: &TiledNavMesh) -> Vec<(PolyRef, Vec<Vec3>)> {
    let mut out = Vec::new();
    for t in mesh.tiles() {
        for p in 0..t.tile().poly_count() {
            if t.tile().flags()[p] == 0 {
                continue;
            }
            let verts = t
                .tile()
                .poly_corners(p)
                .map(|c| {
                    t.vertex_world(usize::from(t.tile().data().corners[c]))
                        .unwrap()
                })
                .collect();
            out.push((t.poly_ref(p as u32).unwrap(), verts));
        }
    }
    out
}

fn cross(a: Vec3, b: Vec3, c: Vec3) -> f64 {
    (b[0] - a[0]) * (c[2] - a[2]) - (b[2] - a[2]) * (c[0] - a[0])
}

fn len_2d(a: Vec3, b: Vec3) -> f64 {
    ((b[0] - a[0]).powi(2) + (b[2] - a[2]).powi(2)).sqrt()
}

/// The parameter range of `p → q` inside the convex polygon (with a 1e-9 tolerance).
fn clip(p: Vec3, q: Vec3, poly: &[Vec3]) -> Option<(f64, f64)> {
    const EPS: f64 = 1e-9;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for k in 0..poly.len() {
        let (a, b) = (poly[k], poly[(k + 1) % poly.len()]);
        let c0 = cross(a, b, p) + EPS;
        let c1 = cross(a, b, q) + EPS;
        if c0 < 0.0 && c1 < 0.0 {
            return None;
        }
        if c0 < 0.0 {
            lo = lo.max(c0 / (c0 - c1));
        } else if c1 < 0.0 {
            hi = hi.min(c0 / (c0 - c1));
        }
    }
    (lo <= hi).then_some((lo, hi))
}

/// True when segment `p → q` lies on the union of the polygons (in X/Z).
fn visible(p: Vec3, q: Vec3, polys: &[(PolyRef, Vec<Vec3>)]) -> bool {
    let mut spans: Vec<(f64, f64)> = polys.iter().filter_map(|(_, v)| clip(p, q, v)).collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut reach = 0.0f64;
    for (lo, hi) in spans {
        if lo > reach + 1e-9 {
            break;
        }
        reach = reach.max(hi);
    }
    reach >= 1.0 - 1e-9
}

#[derive(PartialEq)]
struct Entry(f64, usize);
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
    }
}

/// The shortest path length from `a` to `b` on the union of `polys` by Dijkstra over the
/// visibility graph of the polygon corners (`None`: unreachable).
fn visibility_graph_length(a: Vec3, b: Vec3, polys: &[(PolyRef, Vec<Vec3>)]) -> Option<f64> {
    let mut pts: Vec<Vec3> = vec![a, b];
    let mut seen = BTreeMap::new();
    for (_, vs) in polys {
        for v in vs {
            if seen.insert([v[0].to_bits(), v[2].to_bits()], ()).is_none() {
                pts.push(*v);
            }
        }
    }
    let mut dist = vec![f64::INFINITY; pts.len()];
    let mut done = vec![false; pts.len()];
    let mut heap = BinaryHeap::new();
    dist[0] = 0.0;
    heap.push(Entry(0.0, 0));
    while let Some(Entry(d, i)) = heap.pop() {
        if done[i] {
            continue;
        }
        done[i] = true;
        if i == 1 {
            return Some(d);
        }
        for j in 0..pts.len() {
            if done[j] || !visible(pts[i], pts[j], polys) {
                continue;
            }
            let nd = d + len_2d(pts[i], pts[j]);
            if nd < dist[j] {
                dist[j] = nd;
                heap.push(Entry(nd, j));
            }
        }
    }
    None
}

/// A point inside the polygon from three weights.
fn inside(verts: &[Vec3], w: [f64; 3]) -> Vec3 {
    let (a, b, c) = (verts[0], verts[verts.len() / 2], verts[verts.len() - 1]);
    let s = w[0] + w[1] + w[2];
    let mut p = [0.0; 3];
    for k in 0..3 {
        p[k] = (a[k] * w[0] + b[k] * w[1] + c[k] * w[2]) / s;
    }
    p
}

fn any_angle(
    mesh: &TiledNavMesh,
    a: (PolyRef, Vec3),
    b: (PolyRef, Vec3),
) -> (AnyAngleStatus, f64, Vec<StraightPathPoint>) {
    let mut q = AnyAngleQuery::new();
    let mut out = Vec::new();
    let r = q
        .find_path(
            mesh,
            a.0,
            b.0,
            a.1,
            b.1,
            &QueryFilter::new(),
            1_000_000,
            &mut out,
        )
        .unwrap();
    (r.status, r.length, out)
}

/// Checks the path against the reference: same reachability, same length, every segment on
/// the polygons, the ends where asked, the turns at polygon corners, the length the sum of
/// the segments.
fn check_against_reference(mesh: &TiledNavMesh, a: (PolyRef, Vec3), b: (PolyRef, Vec3)) -> f64 {
    let polys = walkable(mesh);
    let (status, length, path) = any_angle(mesh, a, b);
    let reference = visibility_graph_length(a.1, b.1, &polys);
    let Some(reference) = reference else {
        assert_eq!(status, AnyAngleStatus::Unreachable);
        assert!(path.is_empty());
        return f64::INFINITY;
    };
    assert_eq!(status, AnyAngleStatus::Complete);
    assert!(
        (length - reference).abs() <= 1e-9 * reference.max(1.0),
        "any-angle {length} vs visibility graph {reference} from {a:?} to {b:?}: {path:?}"
    );
    assert_eq!(path.first().unwrap().pos, a.1);
    assert_eq!(path.last().unwrap().pos, b.1);
    assert_eq!(path.first().unwrap().flags, StraightPathFlags::START);
    assert_eq!(path.last().unwrap().flags, StraightPathFlags::END);
    assert_eq!(path.last().unwrap().poly, b.0);
    let corners: Vec<Vec3> = polys.iter().flat_map(|(_, v)| v.iter().copied()).collect();
    let mut sum = 0.0;
    for w in path.windows(2) {
        assert!(
            visible(w[0].pos, w[1].pos, &polys),
            "segment off the mesh: {w:?}"
        );
        sum += len_2d(w[0].pos, w[1].pos);
    }
    for p in &path[1..path.len() - 1] {
        assert!(
            corners.contains(&p.pos),
            "turn at {:?}, not a corner",
            p.pos
        );
    }
    assert!((sum - length).abs() <= 1e-9 * length.max(1.0));
    length
}

/// The X/Z length of the straight path of the polygon search between the same points.
fn straight_path_length(mesh: &TiledNavMesh, a: (PolyRef, Vec3), b: (PolyRef, Vec3)) -> f64 {
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let mut path = Vec::new();
    let r = q
        .find_path(mesh, a.0, b.0, a.1, b.1, &f, 1_000_000, &mut path)
        .unwrap();
    assert_eq!(r.status, PathStatus::Complete);
    let mut corners = Vec::new();
    q.find_straight_path(
        mesh,
        a.1,
        b.1,
        &path,
        &f,
        StraightPathOptions::default(),
        &mut corners,
    )
    .unwrap();
    corners.windows(2).map(|w| len_2d(w[0].pos, w[1].pos)).sum()
}

fn pick(polys: &[(PolyRef, Vec<Vec3>)], seed: &mut u64) -> (PolyRef, Vec3) {
    let (r, v) = &polys[(next(seed) % polys.len() as u64) as usize];
    let w = [0.05 + unit(seed), 0.05 + unit(seed), 0.05 + unit(seed)];
    (*r, inside(v, w))
}

fn random_pairs(level: &Level, seed: u64, pairs: usize) {
    let mesh = level.mesh();
    let polys = walkable(&mesh);
    if polys.is_empty() {
        return;
    }
    let mut s = seed ^ 0xA5A5;
    for _ in 0..pairs {
        let (a, b) = (pick(&polys, &mut s), pick(&polys, &mut s));
        let len = check_against_reference(&mesh, a, b);
        if len.is_finite() {
            assert!(len <= straight_path_length(&mesh, a, b) + 1e-9);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn length_equals_visibility_graph_dijkstra_on_random_one_tile_meshes(
        seed in any::<u64>(),
        cells in 3usize..8,
    ) {
        random_pairs(&Level::random(seed, 1, cells, 0.3), seed, 3);
    }

    #[test]
    fn length_equals_visibility_graph_dijkstra_across_tile_borders(
        seed in any::<u64>(),
        cells in 2usize..4,
    ) {
        random_pairs(&Level::random(seed, 2, cells, 0.25), seed, 3);
    }
}

/// A point at (x, z) on the level and the polygon under it.
fn at(mesh: &TiledNavMesh, x: f64, z: f64) -> (PolyRef, Vec3) {
    let p = [x, 0.0, z];
    let poly = walkable(mesh)
        .into_iter()
        .find(|(_, v)| clip(p, p, v).is_some())
        .unwrap()
        .0;
    (poly, p)
}

#[test]
fn an_l_shaped_corridor_turns_once_at_the_inner_corner() {
    // Cells of 4 units; the corridor runs up the left column and along the top row.
    let level = Level::from_rows(4, &[".###", ".###", ".###", "...."]);
    let mesh = level.mesh();
    let (a, b) = (at(&mesh, 2.0, 2.0), at(&mesh, 14.0, 14.0));
    let (status, length, path) = any_angle(&mesh, a, b);
    assert_eq!(status, AnyAngleStatus::Complete);
    let corner = [4.0, 0.0, 12.0];
    let points: Vec<Vec3> = path.iter().map(|p| p.pos).collect();
    assert_eq!(points, vec![a.1, corner, b.1]);
    let expected = len_2d(a.1, corner) + len_2d(corner, b.1);
    assert!((length - expected).abs() < 1e-12);
    check_against_reference(&mesh, a, b);
}

#[test]
fn a_hole_is_passed_on_the_shorter_side() {
    // A 2×2 block in the middle of a 6×6 grid of cells of 16/6 units.
    let level = Level::from_rows(
        6,
        &["......", "......", "..##..", "..##..", "......", "......"],
    );
    let mesh = level.mesh();
    let c = TILE / 6.0;
    // From left of the hole, a little low, to right of it: round the lower corners.
    let (a, b) = (at(&mesh, 0.5 * c, 2.9 * c), at(&mesh, 5.5 * c, 2.9 * c));
    let (status, length, path) = any_angle(&mesh, a, b);
    assert_eq!(status, AnyAngleStatus::Complete);
    let (p, q) = (
        [(2.0 * c) as f32 as f64, 0.0, (2.0 * c) as f32 as f64],
        [(4.0 * c) as f32 as f64, 0.0, (2.0 * c) as f32 as f64],
    );
    let points: Vec<Vec3> = path.iter().map(|p| p.pos).collect();
    assert_eq!(points, vec![a.1, p, q, b.1]);
    let expected = len_2d(a.1, p) + len_2d(p, q) + len_2d(q, b.1);
    assert!((length - expected).abs() < 1e-12);
    check_against_reference(&mesh, a, b);
}

#[test]
fn a_straight_line_crosses_tile_borders_without_turning() {
    let mesh = generated_grid_mesh(3, 3, 4, 7).mesh;
    // Rows across all three tile columns, from x = 1 to x = 47, where both ends are open.
    let polys = walkable(&mesh);
    let open_at = |x: f64, z: f64| {
        let p = [x, 0.0, z];
        polys
            .iter()
            .find(|(_, v)| clip(p, p, v).is_some())
            .map(|(r, _)| (*r, p))
    };
    let mut checked = 0;
    for z in [2.0, 6.0, 10.0, 18.0, 26.0, 34.0, 42.0] {
        let (Some(a), Some(b)) = (open_at(1.0, z), open_at(47.0, z)) else {
            continue;
        };
        let len = check_against_reference(&mesh, a, b);
        if visible(a.1, b.1, &polys) {
            assert!((len - 46.0).abs() < 1e-12);
        }
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn answers_do_not_depend_on_earlier_searches() {
    let level = Level::random(99, 2, 3, 0.25);
    let mesh = level.mesh();
    let polys = walkable(&mesh);
    let mut s = 5u64;
    let pairs: Vec<_> = (0..12)
        .map(|_| (pick(&polys, &mut s), pick(&polys, &mut s)))
        .collect();
    let mut reused = AnyAngleQuery::new();
    let f = QueryFilter::new();
    for &(a, b) in &pairs {
        let mut out = Vec::new();
        let r = reused
            .find_path(&mesh, a.0, b.0, a.1, b.1, &f, 1_000_000, &mut out)
            .unwrap();
        let (status, length, fresh) = any_angle(&mesh, a, b);
        assert_eq!((r.status, r.length.to_bits()), (status, length.to_bits()));
        assert_eq!(out, fresh);
    }
}

#[test]
fn another_area_cost_on_the_way_is_a_typed_error() {
    let mesh = generated_grid_mesh(2, 2, 4, 3).mesh;
    let mut filter = QueryFilter::new();
    filter.set_area_cost(GENERATED_SWAMP_AREA, 3.0).unwrap();
    let polys = walkable(&mesh);
    let swamp = polys
        .iter()
        .find(|(r, _)| mesh.poly_area(*r).unwrap() == GENERATED_SWAMP_AREA)
        .unwrap();
    let dry = polys
        .iter()
        .find(|(r, _)| mesh.poly_area(*r).unwrap() == 0)
        .unwrap();
    let mut q = AnyAngleQuery::new();
    let mut out = Vec::new();
    let p = |v: &Vec<Vec3>| inside(v, [1.0, 1.0, 1.0]);
    let err = q
        .find_path(
            &mesh,
            dry.0,
            swamp.0,
            p(&dry.1),
            p(&swamp.1),
            &filter,
            1000,
            &mut out,
        )
        .unwrap_err();
    assert_eq!(
        err,
        AnyAngleError::MixedAreaCosts {
            poly: swamp.0,
            area: GENERATED_SWAMP_AREA,
            cost: 3.0,
            expected: 1.0
        }
    );
    assert!(out.is_empty());
    // With one cost for both areas the same search answers.
    let r = q
        .find_path(
            &mesh,
            dry.0,
            swamp.0,
            p(&dry.1),
            p(&swamp.1),
            &QueryFilter::new(),
            100_000,
            &mut out,
        )
        .unwrap();
    assert_ne!(r.status, AnyAngleStatus::BudgetExhausted);
}

#[test]
fn bad_arguments_are_the_query_layers_errors() {
    let mesh = generated_grid_mesh(1, 1, 4, 1).mesh;
    let polys = walkable(&mesh);
    let (r, v) = &polys[0];
    let p = inside(v, [1.0, 1.0, 1.0]);
    let mut q = AnyAngleQuery::new();
    let mut out = Vec::new();
    let f = QueryFilter::new();
    let forged = PolyRef(r.0 ^ (1 << 50));
    assert_eq!(
        q.find_path(&mesh, forged, *r, p, p, &f, 10, &mut out),
        Err(AnyAngleError::Query(QueryError::InvalidPolyRef(forged)))
    );
    let far = [1e9, 0.0, 0.0];
    assert!(matches!(
        q.find_path(&mesh, *r, *r, far, p, &f, 10, &mut out),
        Err(AnyAngleError::Query(QueryError::CoordinateOutOfRange(_)))
    ));
    let mut only_two = QueryFilter::new();
    only_two.set_include_flags(2);
    assert_eq!(
        q.find_path(&mesh, *r, *r, p, p, &only_two, 10, &mut out),
        Err(AnyAngleError::Query(QueryError::FilteredOut(*r)))
    );
}

#[test]
fn the_budget_stops_the_search_and_leaves_no_path() {
    let level = Level::from_rows(4, &[".###", ".###", ".###", "...."]);
    let mesh = level.mesh();
    let (a, b) = (at(&mesh, 2.0, 2.0), at(&mesh, 14.0, 14.0));
    let mut q = AnyAngleQuery::new();
    let mut out = Vec::new();
    let f = QueryFilter::new();
    let r = q
        .find_path(&mesh, a.0, b.0, a.1, b.1, &f, 1, &mut out)
        .unwrap();
    assert_eq!((r.status, r.expanded), (AnyAngleStatus::BudgetExhausted, 1));
    assert!(out.is_empty());
    let full = q
        .find_path(&mesh, a.0, b.0, a.1, b.1, &f, 1000, &mut out)
        .unwrap();
    assert_eq!(full.status, AnyAngleStatus::Complete);
    assert!(full.expanded > 1);
}

#[test]
fn an_unreachable_goal_is_reported_as_such() {
    let level = Level::from_rows(4, &["..#.", "..#.", "..#.", "..#."]);
    let mesh = level.mesh();
    let (a, b) = (at(&mesh, 2.0, 2.0), at(&mesh, 14.0, 14.0));
    let (status, length, path) = any_angle(&mesh, a, b);
    assert_eq!((status, length), (AnyAngleStatus::Unreachable, 0.0));
    assert!(path.is_empty());
}

/// Two tiles whose border vertices do not match: tile (0, 0) of 2 × 2 cells of 8 units, tile
/// (1, 0) of 4 × 4 cells of 4, so the border at x = 16 has T-junctions at z = 4 and 12.
/// Blocked: the cell 8..16 × 8..16 of the first tile and 16..20 × 0..4 of the second.
fn t_junction_mesh() -> TiledNavMesh {
    let p = params();
    let mut mesh = TiledNavMesh::new(p).unwrap();
    let mut coarse = onepath_mesh::fixtures::flat_grid_data(&p, 0, 0, 0, 0.0, 2);
    coarse.poly_flags[3] = 0;
    let mut fine = onepath_mesh::fixtures::flat_grid_data(&p, 1, 0, 0, 0.0, 4);
    fine.poly_flags[0] = 0;
    for d in [coarse, fine] {
        mesh.add_tile(NavTile::create(&p, d).unwrap()).unwrap();
    }
    mesh
}

#[test]
fn a_path_turns_at_a_t_junction_of_a_tile_border() {
    let mesh = t_junction_mesh();
    let (a, b) = (at(&mesh, 10.0, 2.0), at(&mesh, 30.0, 2.0));
    let (status, _, path) = any_angle(&mesh, a, b);
    assert_eq!(status, AnyAngleStatus::Complete);
    // Round the blocked cell 16..20 × 0..4: its corner (16, 4) is a vertex of the fine tile
    // only, inside an edge of the coarse one.
    let points: Vec<Vec3> = path.iter().map(|p| p.pos).collect();
    assert_eq!(points, vec![a.1, [16.0, 0.0, 4.0], [20.0, 0.0, 4.0], b.1]);
    check_against_reference(&mesh, a, b);
}

#[test]
fn length_equals_visibility_graph_dijkstra_across_t_junctions() {
    let mesh = t_junction_mesh();
    let polys = walkable(&mesh);
    let mut s = 0x7_1C7u64;
    for _ in 0..24 {
        let (a, b) = (pick(&polys, &mut s), pick(&polys, &mut s));
        check_against_reference(&mesh, a, b);
    }
}

#[test]
fn points_are_lifted_as_the_straight_path_lifts_them() {
    // Ground, bridge and building: the ends on the detail surface (closest point), every
    // turn at a polygon corner with that corner's height.
    let mesh = onepath_mesh::fixtures::bridge_and_building();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let ext = [1.0, 2.0, 1.0];
    let corners: Vec<Vec3> = walkable(&mesh)
        .into_iter()
        .flat_map(|(_, v)| v.into_iter())
        .collect();
    for (s, e) in [
        ([2.0, 0.0, 8.0], [46.0, 0.0, 8.0]),
        ([2.0, 0.0, 2.0], [40.0, 0.0, 14.0]),
        ([8.0, 0.0, 14.0], [44.0, 0.0, 2.0]),
    ] {
        let a = q.find_nearest_poly(&mesh, s, ext, &f).unwrap().unwrap();
        let b = q.find_nearest_poly(&mesh, e, ext, &f).unwrap().unwrap();
        let (status, _, path) = any_angle(&mesh, (a.poly, a.point), (b.poly, b.point));
        assert_eq!(status, AnyAngleStatus::Complete);
        let on_start = q.closest_point_on_poly(&mesh, a.poly, a.point).unwrap();
        let on_end = q.closest_point_on_poly(&mesh, b.poly, b.point).unwrap();
        assert_eq!(path.first().unwrap().pos, on_start.point);
        assert_eq!(path.last().unwrap().pos, on_end.point);
        for p in &path[1..path.len() - 1] {
            assert!(corners.contains(&p.pos), "{:?} is no polygon corner", p.pos);
        }
    }
}
