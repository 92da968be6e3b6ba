//! Hand-made fixtures: area costs, flags and off-mesh link switches change the route as
//! expected; nearest polygon, height, raycast and the surface queries on known layouts.

use onepath_format::{
    DetailMesh, DetailTriangle, NavMeshParams, NavTile, NavTileData, PolyRef, TileRef, NO_PORTAL,
};
use onepath_mesh::fixtures::{bridge_and_building, flat_grid_tile};
use onepath_mesh::query::{
    NavMeshQuery, PathStatus, QueryError, QueryFilter, StraightPathFlags, StraightPathOptions,
    StraightPathPoint, Vec3,
};
use onepath_mesh::TiledNavMesh;

const SWAMP: u8 = 5;
const DOOR: u16 = 2;

/// One 8 × 8 tile of 1 × 1 cells at the origin; polygon `j·8 + i` is cell (i, j).
fn grid() -> (TiledNavMesh, TileRef) {
    let params = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
    let mut mesh = TiledNavMesh::new(params).unwrap();
    let t = mesh
        .add_tile(flat_grid_tile(&params, 0, 0, 0, 0.0, 8).unwrap())
        .unwrap();
    (mesh, t)
}

fn cell(t: TileRef, i: u32, j: u32) -> PolyRef {
    t.poly(j * 8 + i).unwrap()
}

fn path_between(
    mesh: &TiledNavMesh,
    filter: &QueryFilter,
    a: (PolyRef, Vec3),
    b: (PolyRef, Vec3),
) -> (PathStatus, f64, Vec<PolyRef>) {
    let mut q = NavMeshQuery::new();
    let mut path = Vec::new();
    let r = q
        .find_path(mesh, a.0, b.0, a.1, b.1, filter, 10_000, &mut path)
        .unwrap();
    (r.status, r.cost, path)
}

fn straight(
    mesh: &TiledNavMesh,
    filter: &QueryFilter,
    a: Vec3,
    b: Vec3,
    path: &[PolyRef],
) -> Vec<StraightPathPoint> {
    let mut q = NavMeshQuery::new();
    let mut out = Vec::new();
    q.find_straight_path(
        mesh,
        a,
        b,
        path,
        filter,
        StraightPathOptions::default(),
        &mut out,
    )
    .unwrap();
    out
}

#[test]
fn a_swamp_area_is_crossed_when_cheap_and_avoided_when_costly() {
    let (mut mesh, t) = grid();
    // A swamp wall across column 4, rows 0..=6; row 7 stays dry.
    for j in 0..7 {
        mesh.set_poly_area(cell(t, 4, j), SWAMP).unwrap();
    }
    let a = (cell(t, 0, 0), [0.5, 0.0, 0.5]);
    let b = (cell(t, 7, 0), [7.5, 0.0, 0.5]);
    let mut filter = QueryFilter::new();
    let (s, cheap_cost, cheap) = path_between(&mesh, &filter, a, b);
    assert_eq!(s, PathStatus::Complete);
    assert!(cheap.contains(&cell(t, 4, 0)));
    assert_eq!(cheap.len(), 8);
    filter.set_area_cost(SWAMP, 100.0).unwrap();
    let (s, cost, around) = path_between(&mesh, &filter, a, b);
    assert_eq!(s, PathStatus::Complete);
    assert!(around.contains(&cell(t, 4, 7)));
    assert!((0..7).all(|j| !around.contains(&cell(t, 4, j))));
    assert!(cost > cheap_cost);
    // A raycast along row 0 pays the swamp cell at its cost.
    let hit = NavMeshQuery::new()
        .raycast(&mesh, a.0, a.1, b.1, &filter, &mut Vec::new())
        .unwrap();
    assert!(hit.reached_end());
    assert!(
        (hit.cost - (3.5 + 100.0 + 2.5)).abs() < 1e-9,
        "{}",
        hit.cost
    );
}

#[test]
fn a_door_flag_excluded_by_the_filter_forces_the_way_round() {
    let (mut mesh, t) = grid();
    // A wall across column 4 (flags 0) with a door at row 0 and a gap at row 7.
    for j in 1..7 {
        mesh.set_poly_flags(cell(t, 4, j), 0).unwrap();
    }
    mesh.set_poly_flags(cell(t, 4, 0), 1 | DOOR).unwrap();
    let a = (cell(t, 0, 0), [0.5, 0.0, 0.5]);
    let b = (cell(t, 7, 0), [7.5, 0.0, 0.5]);
    let mut filter = QueryFilter::new();
    let (_, _, through) = path_between(&mesh, &filter, a, b);
    assert!(through.contains(&cell(t, 4, 0)));
    filter.set_exclude_flags(DOOR);
    let (s, _, around) = path_between(&mesh, &filter, a, b);
    assert_eq!(s, PathStatus::Complete);
    assert!(!around.contains(&cell(t, 4, 0)));
    assert!(around.contains(&cell(t, 4, 7)));
    // Close the gap too: the goal is unreachable, the path ends west of the wall.
    mesh.set_poly_flags(cell(t, 4, 7), 0).unwrap();
    let (s, _, partial) = path_between(&mesh, &filter, a, b);
    assert_eq!(s, PathStatus::Partial);
    assert_eq!(*partial.last().unwrap(), cell(t, 3, 0));
    // A raycast through the closed door stops at its edge (x = 4), facing west.
    let mut q = NavMeshQuery::new();
    let hit = q
        .raycast(&mesh, a.0, a.1, b.1, &filter, &mut Vec::new())
        .unwrap();
    assert_eq!(hit.t, 3.5 / 7.0);
    assert_eq!(hit.hit_normal, [1.0, 0.0, 0.0]);
    assert!((hit.cost - 3.5).abs() < 1e-12, "{}", hit.cost);
    assert_eq!(hit.last_poly, cell(t, 3, 0));
}

fn nearest(mesh: &TiledNavMesh, p: Vec3) -> (PolyRef, Vec3) {
    let mut q = NavMeshQuery::new();
    let n = q
        .find_nearest_poly(mesh, p, [0.5, 0.5, 0.5], &QueryFilter::new())
        .unwrap()
        .unwrap();
    (n.poly, n.point)
}

fn uses_off_mesh(points: &[StraightPathPoint]) -> bool {
    points
        .iter()
        .any(|p| p.flags.contains(StraightPathFlags::OFF_MESH_CONNECTION))
}

#[test]
fn an_off_mesh_link_switched_off_forces_a_detour() {
    let mut mesh = bridge_and_building();
    let filter = QueryFilter::new();
    let deck = nearest(&mesh, [24.0, 3.0, 8.0]);
    let road = nearest(&mesh, [24.0, 0.0, 13.0]);
    assert_eq!(mesh.poly(deck.0).unwrap().0.tile().position(), (1, 0, 1));
    assert_eq!(mesh.poly(road.0).unwrap().0.tile().position(), (1, 0, 0));
    let (s, ladder_cost, ladder) = path_between(&mesh, &filter, deck, road);
    assert_eq!(s, PathStatus::Complete);
    assert_eq!(ladder, vec![deck.0, road.0]);
    let pts = straight(&mesh, &filter, deck.1, road.1, &ladder);
    assert!(uses_off_mesh(&pts));
    assert_eq!(
        pts.iter().map(|p| p.pos).collect::<Vec<_>>(),
        vec![deck.1, deck.1, [24.0, 0.0, 12.0], road.1]
            .into_iter()
            .fold(Vec::new(), |mut v: Vec<Vec3>, p| {
                if v.last() != Some(&p) {
                    v.push(p);
                }
                v
            })
    );
    // Switch the ladder off: down a ramp and back along the ground.
    let deck_tile = mesh.tile_at(1, 0, 1).unwrap().tile_ref();
    mesh.set_off_mesh_link_enabled(deck_tile, 0, false).unwrap();
    let (s, cost, detour) = path_between(&mesh, &filter, deck, road);
    assert_eq!(s, PathStatus::Complete);
    assert!(detour.len() > 3);
    assert!(cost > ladder_cost);
    let positions: Vec<_> = detour
        .iter()
        .map(|&r| mesh.poly(r).unwrap().0.tile().position())
        .collect();
    assert!(positions.contains(&(0, 0, 0)) || positions.contains(&(2, 0, 0)));
    assert!(!uses_off_mesh(&straight(
        &mesh, &filter, deck.1, road.1, &detour
    )));
}

#[test]
fn a_one_way_link_is_taken_down_but_never_up() {
    let mesh = bridge_and_building();
    let filter = QueryFilter::new();
    let upper = nearest(&mesh, [6.0, 3.5, 24.0]);
    let ground = nearest(&mesh, [2.0, 0.0, 24.0]);
    assert_eq!(mesh.poly(upper.0).unwrap().0.tile().position(), (0, 1, 1));
    let (_, _, down) = path_between(&mesh, &filter, upper, ground);
    assert_eq!(down, vec![upper.0, ground.0]);
    assert!(uses_off_mesh(&straight(
        &mesh, &filter, upper.1, ground.1, &down
    )));
    let (s, _, up) = path_between(&mesh, &filter, ground, upper);
    assert_eq!(s, PathStatus::Complete);
    assert!(up.len() > 2);
    // Up goes by the stairs in column (1, 1).
    assert!(up
        .iter()
        .any(|&r| mesh.poly(r).unwrap().0.tile().position() == (1, 1, 0)));
    assert!(!uses_off_mesh(&straight(
        &mesh, &filter, ground.1, upper.1, &up
    )));
}

#[test]
fn the_nearest_polygon_follows_the_query_height_across_layers() {
    let mesh = bridge_and_building();
    let deck = nearest(&mesh, [20.0, 2.9, 8.0]);
    let under = nearest(&mesh, [20.0, 0.1, 8.0]);
    assert_eq!(mesh.poly(deck.0).unwrap().0.tile().position(), (1, 0, 1));
    assert_eq!(deck.1, [20.0, 3.0, 8.0]);
    assert_eq!(mesh.poly(under.0).unwrap().0.tile().position(), (1, 0, 0));
    assert_eq!(under.1, [20.0, 0.0, 8.0]);
}

#[test]
fn equally_near_polygons_go_to_the_lower_slot_and_polygon_index() {
    let (mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    // On the edge between cells (0, 0) and (1, 0), and on the corner of four cells.
    let n = q
        .find_nearest_poly(&mesh, [1.0, 0.0, 0.5], [0.5; 3], &f)
        .unwrap()
        .unwrap();
    assert_eq!((n.poly, n.dist_sqr), (cell(t, 0, 0), 0.0));
    let n = q
        .find_nearest_poly(&mesh, [3.0, 0.0, 3.0], [0.5; 3], &f)
        .unwrap()
        .unwrap();
    assert_eq!(n.poly, cell(t, 2, 2));
    // Off the mesh: the closest boundary point.
    let n = q
        .find_nearest_poly(&mesh, [-0.5, 0.25, 2.5], [1.0; 3], &f)
        .unwrap()
        .unwrap();
    assert_eq!(
        (n.poly, n.point, n.over_poly),
        (cell(t, 0, 2), [0.0, 0.0, 2.5], false)
    );
    assert_eq!(
        q.find_nearest_poly(&mesh, [20.0, 0.0, 20.0], [1.0; 3], &f),
        Ok(None)
    );
    assert_eq!(
        q.find_nearest_poly(&mesh, [1.0, 0.0, 1.0], [1.0, -1.0, 1.0], &f),
        Err(QueryError::InvalidExtent {
            what: "half_extents.y",
            value: -1.0
        })
    );
}

#[test]
fn query_polygons_lists_the_box_in_slot_and_polygon_order() {
    let (mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let mut out = Vec::new();
    q.query_polygons(
        &mesh,
        [4.0, 0.0, 4.0],
        [0.5, 0.5, 0.5],
        &QueryFilter::new(),
        &mut out,
    )
    .unwrap();
    assert_eq!(
        out,
        vec![cell(t, 3, 3), cell(t, 4, 3), cell(t, 3, 4), cell(t, 4, 4)]
    );
}

/// A 4 × 4 square tile whose detail mesh lifts the centre to y = 1.
fn peaked_tile() -> (TiledNavMesh, PolyRef) {
    let params = NavMeshParams::new([0.0, 0.0, 0.0], 4.0, 0.25, 6);
    let data = NavTileData {
        vertices: vec![
            [0.0, 0.0, 0.0],
            [4.0, 0.0, 0.0],
            [4.0, 0.0, 4.0],
            [0.0, 0.0, 4.0],
        ],
        poly_sizes: vec![4],
        poly_areas: vec![0],
        poly_flags: vec![1],
        corners: vec![0, 1, 2, 3],
        edge_neighbours: vec![0; 4],
        edge_portal_sides: vec![NO_PORTAL; 4],
        detail_meshes: vec![DetailMesh {
            vertex_base: 0,
            vertex_count: 1,
            triangle_base: 0,
            triangle_count: 4,
        }],
        detail_vertices: vec![[2.0, 1.0, 2.0]],
        detail_triangles: (0..4u8)
            .map(|k| DetailTriangle {
                v: [k, (k + 1) % 4, 4],
                edge_flags: 1,
            })
            .collect(),
        ..Default::default()
    };
    let mut mesh = TiledNavMesh::new(params).unwrap();
    let t = mesh
        .add_tile(NavTile::create(&params, data).unwrap())
        .unwrap();
    (mesh, t.poly(0).unwrap())
}

#[test]
fn heights_come_from_the_detail_mesh_when_present() {
    let (mesh, p) = peaked_tile();
    let q = NavMeshQuery::new();
    assert_eq!(q.poly_height(&mesh, p, [2.0, 9.0, 2.0]), Ok(Some(1.0)));
    assert_eq!(q.poly_height(&mesh, p, [1.0, 0.0, 2.0]), Ok(Some(0.5)));
    assert_eq!(q.poly_height(&mesh, p, [5.0, 0.0, 2.0]), Ok(None));
    let c = q.closest_point_on_poly(&mesh, p, [2.0, 5.0, 2.0]).unwrap();
    assert_eq!((c.point, c.over_poly), ([2.0, 1.0, 2.0], true));
    let c = q.closest_point_on_poly(&mesh, p, [6.0, 0.0, 2.0]).unwrap();
    assert_eq!((c.point, c.over_poly), ([4.0, 0.0, 2.0], false));
    let forged = PolyRef::new(1, 0, 1).unwrap();
    assert_eq!(
        q.poly_height(&mesh, forged, [2.0, 0.0, 2.0]),
        Err(QueryError::InvalidPolyRef(forged))
    );
}

#[test]
fn moving_along_the_surface_slides_to_the_wall() {
    let (mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let mut visited = Vec::new();
    let m = q
        .move_along_surface(
            &mesh,
            cell(t, 0, 0),
            [0.5, 0.0, 0.5],
            [10.0, 0.0, 0.5],
            &QueryFilter::new(),
            &mut visited,
        )
        .unwrap();
    assert_eq!((m.poly, m.pos), (cell(t, 7, 0), [8.0, 0.0, 0.5]));
    assert_eq!(visited, (0..8).map(|i| cell(t, i, 0)).collect::<Vec<_>>());
    // Inside the mesh the move reaches its end.
    let m = q
        .move_along_surface(
            &mesh,
            cell(t, 0, 0),
            [0.5, 0.0, 0.5],
            [2.5, 0.0, 1.5],
            &QueryFilter::new(),
            &mut visited,
        )
        .unwrap();
    assert_eq!((m.poly, m.pos), (cell(t, 2, 1), [2.5, 0.0, 1.5]));
}

#[test]
fn the_distance_to_the_nearest_wall_is_measured_through_open_edges() {
    let (mut mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let w = q
        .find_distance_to_wall(&mesh, cell(t, 1, 4), [1.25, 0.0, 4.5], 5.0, &f)
        .unwrap();
    assert_eq!(
        (w.distance, w.point, w.normal),
        (1.25, [0.0, 0.0, 4.5], [1.0, 0.0, 0.0])
    );
    // A blocked cell east of the centre is nearer.
    mesh.set_poly_flags(cell(t, 2, 4), 0).unwrap();
    let w = q
        .find_distance_to_wall(&mesh, cell(t, 1, 4), [1.25, 0.0, 4.5], 5.0, &f)
        .unwrap();
    assert_eq!(
        (w.distance, w.point, w.normal),
        (0.75, [2.0, 0.0, 4.5], [-1.0, 0.0, 0.0])
    );
    // Nothing within the radius.
    let w = q
        .find_distance_to_wall(&mesh, cell(t, 4, 4), [4.5, 0.0, 4.5], 0.25, &f)
        .unwrap();
    assert_eq!((w.distance, w.normal), (0.25, [0.0; 3]));
}

#[test]
fn polys_around_a_circle_are_those_reached_through_crossings_inside_it() {
    let (mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let mut out = Vec::new();
    q.polys_around_circle(
        &mesh,
        cell(t, 4, 4),
        [4.5, 0.0, 4.5],
        0.6,
        &QueryFilter::new(),
        &mut out,
    )
    .unwrap();
    assert_eq!(
        (out[0].poly, out[0].parent, out[0].cost),
        (cell(t, 4, 4), PolyRef::NULL, 0.0)
    );
    let mut found: Vec<_> = out.iter().map(|n| n.poly).collect();
    found.sort();
    let mut expected = vec![
        cell(t, 4, 4),
        cell(t, 3, 4),
        cell(t, 5, 4),
        cell(t, 4, 3),
        cell(t, 4, 5),
    ];
    expected.sort();
    assert_eq!(found, expected);
    assert!(out[1..]
        .iter()
        .all(|n| n.parent == cell(t, 4, 4) && n.cost == 0.5));
}

#[test]
fn a_random_point_depends_only_on_the_callers_random_source() {
    let (mut mesh, t) = grid();
    for j in 0..8 {
        for i in 0..8 {
            if (i, j) != (5, 6) {
                mesh.set_poly_flags(cell(t, i, j), 0).unwrap();
            }
        }
    }
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let seq = [0.3, 0.9, 0.25, 0.5];
    let mut i = 0;
    let mut rng = || {
        i += 1;
        seq[(i - 1) % 4]
    };
    let (p, pos) = q.find_random_point(&mesh, &f, &mut rng).unwrap().unwrap();
    assert_eq!(p, cell(t, 5, 6));
    assert!(pos[0] >= 5.0 && pos[0] <= 6.0 && pos[2] >= 6.0 && pos[2] <= 7.0 && pos[1] == 0.0);
    let mut j = 0;
    let mut again = || {
        j += 1;
        seq[(j - 1) % 4]
    };
    assert_eq!(
        q.find_random_point(&mesh, &f, &mut again).unwrap(),
        Some((p, pos))
    );
    let mut none = QueryFilter::new();
    none.set_include_flags(0x8000);
    assert_eq!(
        q.find_random_point(&mesh, &none, &mut || 0.5).unwrap(),
        None
    );
}

/// Tile (0, 0): one 8 × 8 square. Tile (1, 0): 2 × 2 cells of 4, the cell touching the
/// square's upper half (z 4..8) blocked, so the square's east edge is crossed on z 0..4 only.
fn half_open_portal() -> (TiledNavMesh, PolyRef, PolyRef) {
    let params = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
    let mut mesh = TiledNavMesh::new(params).unwrap();
    let a = mesh
        .add_tile(flat_grid_tile(&params, 0, 0, 0, 0.0, 1).unwrap())
        .unwrap();
    let b = mesh
        .add_tile(flat_grid_tile(&params, 1, 0, 0, 0.0, 2).unwrap())
        .unwrap();
    mesh.set_poly_flags(b.poly(2).unwrap(), 0).unwrap();
    (mesh, a.poly(0).unwrap(), b.poly(0).unwrap())
}

#[test]
fn wall_segments_split_a_partly_crossed_portal_edge() {
    let (mesh, a, b0) = half_open_portal();
    let q = NavMeshQuery::new();
    let mut out = Vec::new();
    q.poly_wall_segments(&mesh, a, &QueryFilter::new(), &mut out)
        .unwrap();
    let pieces: Vec<_> = out
        .iter()
        .map(|w| (w.edge, w.start, w.end, w.neighbour))
        .collect();
    assert_eq!(
        pieces,
        vec![
            (0, [0.0, 0.0, 0.0], [8.0, 0.0, 0.0], None),
            (1, [8.0, 0.0, 0.0], [8.0, 0.0, 4.0], Some(b0)),
            (1, [8.0, 0.0, 4.0], [8.0, 0.0, 8.0], None),
            (2, [8.0, 0.0, 8.0], [0.0, 0.0, 8.0], None),
            (3, [0.0, 0.0, 8.0], [0.0, 0.0, 0.0], None),
        ]
    );
}

#[test]
fn the_uncovered_part_of_a_portal_edge_is_a_wall() {
    let (mesh, a, b0) = half_open_portal();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let w = q
        .find_distance_to_wall(&mesh, a, [7.0, 0.0, 6.0], 5.0, &f)
        .unwrap();
    assert_eq!((w.distance, w.point), (1.0, [8.0, 0.0, 6.0]));
    // Moving east: through the open half, against the wall in the other.
    let mut visited = Vec::new();
    let m = q
        .move_along_surface(&mesh, a, [7.0, 0.0, 6.0], [9.0, 0.0, 6.0], &f, &mut visited)
        .unwrap();
    assert_eq!((m.poly, m.pos), (a, [8.0, 0.0, 6.0]));
    let m = q
        .move_along_surface(&mesh, a, [7.0, 0.0, 2.0], [9.0, 0.0, 2.0], &f, &mut visited)
        .unwrap();
    assert_eq!((m.poly, m.pos), (b0, [9.0, 0.0, 2.0]));
    assert_eq!(visited, vec![a, b0]);
}

#[test]
fn a_random_point_around_a_circle_comes_from_a_reached_polygon() {
    let (mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let seq = [0.7, 0.2, 0.6, 0.3];
    let run = |q: &mut NavMeshQuery| {
        let mut i = 0;
        q.find_random_point_around_circle(
            &mesh,
            cell(t, 4, 4),
            [4.5, 0.0, 4.5],
            0.6,
            &f,
            &mut || {
                i += 1;
                seq[i - 1]
            },
        )
        .unwrap()
    };
    let (p, pos) = run(&mut q);
    let around = [
        cell(t, 4, 4),
        cell(t, 3, 4),
        cell(t, 5, 4),
        cell(t, 4, 3),
        cell(t, 4, 5),
    ];
    assert!(around.contains(&p));
    let c = q.closest_point_on_poly(&mesh, p, pos).unwrap();
    assert!(c.over_poly);
    assert_eq!(run(&mut NavMeshQuery::new()), (p, pos));
}

#[test]
fn the_local_neighbourhood_is_the_polygons_reached_within_the_radius_without_overlaps() {
    let (mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let mut out = Vec::new();
    q.find_local_neighbourhood(&mesh, cell(t, 4, 4), [4.5, 0.0, 4.5], 0.6, &f, 16, &mut out)
        .unwrap();
    let got: Vec<_> = out.iter().map(|n| (n.poly, n.parent)).collect();
    // Start first, then the neighbours in neighbour (edge) order: −Z, +X, +Z, −X.
    let c = cell(t, 4, 4);
    assert_eq!(
        got,
        vec![
            (c, PolyRef::NULL),
            (cell(t, 4, 3), c),
            (cell(t, 5, 4), c),
            (cell(t, 4, 5), c),
            (cell(t, 3, 4), c),
        ]
    );
    q.find_local_neighbourhood(&mesh, c, [4.5, 0.0, 4.5], 0.6, &f, 3, &mut out)
        .unwrap();
    assert_eq!(out.len(), 3);
}

#[test]
fn portal_crossings_are_added_on_request() {
    let (mut mesh, t) = grid();
    mesh.set_poly_area(cell(t, 4, 0), SWAMP).unwrap();
    let f = QueryFilter::new();
    let a = (cell(t, 0, 0), [0.5, 0.0, 0.5]);
    let b = (cell(t, 7, 0), [7.5, 0.0, 0.5]);
    let (_, _, path) = path_between(&mesh, &f, a, b);
    let mut q = NavMeshQuery::new();
    let mut out = Vec::new();
    let xs = |out: &[StraightPathPoint]| -> Vec<(f64, u8)> {
        out.iter().map(|p| (p.pos[0], p.flags.0)).collect()
    };
    q.find_straight_path(
        &mesh,
        a.1,
        b.1,
        &path,
        &f,
        StraightPathOptions::default(),
        &mut out,
    )
    .unwrap();
    assert_eq!(xs(&out), vec![(0.5, 1), (7.5, 2)]);
    let all = StraightPathOptions {
        all_crossings: true,
        area_crossings: false,
    };
    q.find_straight_path(&mesh, a.1, b.1, &path, &f, all, &mut out)
        .unwrap();
    let mut want = vec![(0.5, 1)];
    want.extend((1..8).map(|x| (f64::from(x), 8)));
    want.push((7.5, 2));
    assert_eq!(xs(&out), want);
    assert!(out.iter().all(|p| p.pos[2] == 0.5));
    // Crossing into the swamp cell (x = 4) and out of it (x = 5) change the area.
    let area = StraightPathOptions {
        all_crossings: false,
        area_crossings: true,
    };
    q.find_straight_path(&mesh, a.1, b.1, &path, &f, area, &mut out)
        .unwrap();
    assert_eq!(xs(&out), vec![(0.5, 1), (4.0, 8), (5.0, 8), (7.5, 2)]);
    assert_eq!((out[1].poly, out[2].poly), (cell(t, 4, 0), cell(t, 5, 0)));
}

#[test]
fn polys_around_a_shape_are_those_reached_through_crossings_touching_it() {
    let (mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    // A 2 × 2 square centred on cell (4, 4), given clockwise.
    let shape = [
        [3.5, 0.0, 3.5],
        [3.5, 0.0, 5.5],
        [5.5, 0.0, 5.5],
        [5.5, 0.0, 3.5],
    ];
    let mut out = Vec::new();
    q.polys_around_shape(&mesh, cell(t, 4, 4), &shape, &f, &mut out)
        .unwrap();
    assert_eq!(out[0].poly, cell(t, 4, 4));
    let mut got: Vec<_> = out.iter().map(|n| n.poly).collect();
    got.sort();
    let mut want: Vec<_> = (3..6)
        .flat_map(|j| (3..6).map(move |i| cell(t, i, j)))
        .collect();
    want.sort();
    assert_eq!(got, want);
    let flat = [[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [2.0, 0.0, 2.0]];
    assert_eq!(
        q.polys_around_shape(&mesh, cell(t, 4, 4), &flat, &f, &mut out),
        Err(QueryError::InvalidExtent {
            what: "shape",
            value: 0.0
        })
    );
}
