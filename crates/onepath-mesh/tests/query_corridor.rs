//! PathCorridor: following a corridor, trimming it as polygons are crossed, moving the
//! target, optimising it, crossing an off-mesh link, and noticing a stale corridor.

use onepath_format::{NavMeshParams, PolyRef, TileRef};
use onepath_mesh::fixtures::{bridge_and_building, flat_grid_tile};
use onepath_mesh::query::{NavMeshQuery, PathCorridor, QueryFilter, StraightPathFlags, Vec3};
use onepath_mesh::TiledNavMesh;

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

fn corridor(
    mesh: &TiledNavMesh,
    q: &mut NavMeshQuery,
    a: (PolyRef, Vec3),
    b: (PolyRef, Vec3),
) -> PathCorridor {
    let mut path = Vec::new();
    q.find_path(
        mesh,
        a.0,
        b.0,
        a.1,
        b.1,
        &QueryFilter::new(),
        10_000,
        &mut path,
    )
    .unwrap();
    let mut c = PathCorridor::new();
    c.reset(a.0, a.1);
    c.set_corridor(b.1, &path);
    c
}

#[test]
fn moving_the_position_trims_the_polygons_crossed() {
    let (mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let mut c = corridor(
        &mesh,
        &mut q,
        (cell(t, 0, 0), [0.5, 0.0, 0.5]),
        (cell(t, 7, 0), [7.5, 0.0, 0.5]),
    );
    assert_eq!(c.path().len(), 8);
    assert!(c
        .move_position(&mut q, &mesh, &f, [3.25, 0.0, 0.5])
        .unwrap());
    assert_eq!(c.pos(), [3.25, 0.0, 0.5]);
    assert_eq!(c.first_poly(), cell(t, 3, 0));
    assert_eq!(c.path(), (3..8).map(|i| cell(t, i, 0)).collect::<Vec<_>>());
    // Into a wall: the position slides along it and stays on the mesh.
    assert!(c
        .move_position(&mut q, &mesh, &f, [3.25, 0.0, -2.0])
        .unwrap());
    assert_eq!(c.pos(), [3.25, 0.0, 0.0]);
    let mut corners = Vec::new();
    c.find_corners(&mut q, &mesh, &f, &mut corners).unwrap();
    assert_eq!(corners.len(), 1);
    assert_eq!(corners[0].pos, [7.5, 0.0, 0.5]);
    assert!(corners[0].flags.contains(StraightPathFlags::END));
}

#[test]
fn moving_the_target_extends_or_shortens_the_corridor_end() {
    let (mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let mut c = corridor(
        &mesh,
        &mut q,
        (cell(t, 0, 0), [0.5, 0.0, 0.5]),
        (cell(t, 3, 0), [3.5, 0.0, 0.5]),
    );
    assert!(c.move_target(&mut q, &mesh, &f, [5.5, 0.0, 0.5]).unwrap());
    assert_eq!(c.target(), [5.5, 0.0, 0.5]);
    assert_eq!(c.last_poly(), cell(t, 5, 0));
    assert_eq!(c.path(), (0..6).map(|i| cell(t, i, 0)).collect::<Vec<_>>());
}

#[test]
fn visibility_optimisation_replaces_a_detour_by_the_visible_shortcut() {
    let (mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    // A hand-made corridor that wanders: up column 0, then along row 3, then down.
    let wander: Vec<PolyRef> = [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 3),
        (2, 3),
        (3, 3),
        (3, 2),
        (3, 1),
        (3, 0),
    ]
    .iter()
    .map(|&(i, j)| cell(t, i, j))
    .collect();
    let mut c = PathCorridor::new();
    c.reset(wander[0], [0.5, 0.0, 0.5]);
    c.set_corridor([3.5, 0.0, 0.5], &wander);
    c.optimize_path_visibility(&mut q, &mesh, &f, [3.5, 0.0, 0.5], 30.0)
        .unwrap();
    assert_eq!(c.path(), (0..4).map(|i| cell(t, i, 0)).collect::<Vec<_>>());
}

#[test]
fn topology_optimisation_finds_a_cheaper_corridor_start() {
    let (mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let wander: Vec<PolyRef> = [(0, 0), (0, 1), (1, 1), (2, 1), (2, 0), (3, 0)]
        .iter()
        .map(|&(i, j)| cell(t, i, j))
        .collect();
    let mut c = PathCorridor::new();
    c.reset(wander[0], [0.5, 0.0, 0.5]);
    c.set_corridor([3.5, 0.0, 0.5], &wander);
    assert!(c.optimize_path_topology(&mut q, &mesh, &f, 64).unwrap());
    assert_eq!(c.path(), (0..4).map(|i| cell(t, i, 0)).collect::<Vec<_>>());
    assert!(!c.optimize_path_topology(&mut q, &mesh, &f, 64).unwrap());
}

#[test]
fn crossing_an_off_mesh_link_moves_the_agent_to_its_arrival() {
    let mesh = bridge_and_building();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let up = q
        .find_nearest_poly(&mesh, [6.0, 3.5, 24.0], [0.5; 3], &f)
        .unwrap()
        .unwrap();
    let down = q
        .find_nearest_poly(&mesh, [2.0, 0.0, 24.0], [0.5; 3], &f)
        .unwrap()
        .unwrap();
    let mut c = corridor(&mesh, &mut q, (up.poly, up.point), (down.poly, down.point));
    let mut corners = Vec::new();
    c.find_corners(&mut q, &mesh, &f, &mut corners).unwrap();
    // Standing on the departure point: it stays the first corner, flagged, then the arrival.
    assert_eq!(corners[0].pos, [6.0, 3.5, 24.0]);
    assert!(corners[0]
        .flags
        .contains(StraightPathFlags::OFF_MESH_CONNECTION));
    assert_eq!(corners[1].pos, [2.0, 0.0, 24.0]);
    assert_eq!(
        c.move_over_off_mesh_connection(&mesh, &f).unwrap(),
        Some(([6.0, 3.5, 24.0], [2.0, 0.0, 24.0]))
    );
    assert_eq!(c.path(), &[down.poly]);
    assert_eq!(c.pos(), [2.0, 0.0, 24.0]);
    assert_eq!(c.move_over_off_mesh_connection(&mesh, &f).unwrap(), None);
}

#[test]
fn a_corridor_through_a_closed_door_is_stale() {
    let (mut mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let c = corridor(
        &mesh,
        &mut q,
        (cell(t, 0, 0), [0.5, 0.0, 0.5]),
        (cell(t, 7, 0), [7.5, 0.0, 0.5]),
    );
    assert!(c.is_valid(&mesh, &f, usize::MAX));
    mesh.set_poly_flags(cell(t, 4, 0), 0).unwrap();
    assert!(c.is_valid(&mesh, &f, 3));
    assert!(!c.is_valid(&mesh, &f, 5));
}

#[test]
fn trimming_keeps_the_valid_prefix_and_moves_the_target_onto_it() {
    let (mut mesh, t) = grid();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let mut c = corridor(
        &mesh,
        &mut q,
        (cell(t, 0, 0), [0.5, 0.0, 0.5]),
        (cell(t, 7, 0), [7.5, 0.0, 0.5]),
    );
    assert!(!c
        .trim_invalid_path(&q, &mesh, &f, cell(t, 0, 0), [0.5, 0.0, 0.5])
        .unwrap());
    mesh.set_poly_flags(cell(t, 4, 0), 0).unwrap();
    assert!(c
        .trim_invalid_path(&q, &mesh, &f, cell(t, 0, 0), [0.5, 0.0, 0.5])
        .unwrap());
    assert_eq!(c.path(), (0..4).map(|i| cell(t, i, 0)).collect::<Vec<_>>());
    assert_eq!(c.target(), [4.0, 0.0, 0.5]);
    // The first polygon closed too: the corridor falls back to the safe polygon.
    mesh.set_poly_flags(cell(t, 0, 0), 0).unwrap();
    assert!(c
        .trim_invalid_path(&q, &mesh, &f, cell(t, 0, 1), [0.5, 0.0, 1.5])
        .unwrap());
    assert_eq!((c.path(), c.pos()), (&[cell(t, 0, 1)][..], [0.5, 0.0, 1.5]));
}
