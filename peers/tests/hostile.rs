//! Hostile input never crashes: mutated OBJ text and mutated Detour tile inputs are refused
//! with typed errors or built into meshes that answer queries.

use onepath_peers::detour::{create_tile_data, DetourEngine, DetourMeshParams, DetourNavMesh};
use onepath_peers::external::{
    to_detour_input, EdgeLink, ExternalDetail, ExternalGrid, ExternalPolygon, ExternalTile,
};
use onepath_peers::mesh_data::DetourTileInput;
use onepath_peers::{Level, PathEngine, PeerError};
use proptest::prelude::*;

/// Two squares sharing an edge, with a detail vertex in each, as Detour input.
fn valid_input() -> DetourTileInput {
    let d = |c: [f32; 3]| ExternalDetail {
        vertices: vec![c],
        triangles: vec![[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]],
        edge_flags: vec![1; 4],
    };
    let tile = ExternalTile {
        tile_x: 0,
        tile_z: 0,
        layer: 0,
        vertices: vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [2.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 1.0],
            [2.0, 0.0, 1.0],
        ],
        polygons: vec![
            ExternalPolygon::new(
                vec![0, 1, 4, 3],
                vec![
                    EdgeLink::Wall,
                    EdgeLink::Polygon(1),
                    EdgeLink::Wall,
                    EdgeLink::Wall,
                ],
            ),
            ExternalPolygon::new(
                vec![1, 2, 5, 4],
                vec![
                    EdgeLink::Wall,
                    EdgeLink::Wall,
                    EdgeLink::Wall,
                    EdgeLink::Polygon(0),
                ],
            ),
        ],
        detail: Some(vec![d([0.5, 0.25, 0.5]), d([1.5, 0.5, 0.5])]),
    };
    to_detour_input(&ExternalGrid::new([0.0, 0.0, 0.0], 4.0, 0.25, 0.25), &tile).unwrap()
}

/// Where a mutation lands.
#[derive(Debug, Clone)]
enum Mutation {
    Poly(usize, u16),
    Vertex(usize, usize, u16),
    Area(usize, u8),
    DetailMesh(usize, usize, u32),
    DetailTri(usize, usize, u8),
    DetailVertex(usize, usize, f32),
    Nvp(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0..16usize, any::<u16>()).prop_map(|(i, v)| Mutation::Poly(i, v)),
        (0..6usize, 0..3usize, any::<u16>()).prop_map(|(i, a, v)| Mutation::Vertex(i, a, v)),
        (0..2usize, any::<u8>()).prop_map(|(i, v)| Mutation::Area(i, v)),
        (0..2usize, 0..4usize, prop_oneof![0..12u32, any::<u32>()])
            .prop_map(|(i, k, v)| Mutation::DetailMesh(i, k, v)),
        (0..8usize, 0..4usize, any::<u8>()).prop_map(|(i, k, v)| Mutation::DetailTri(i, k, v)),
        (0..10usize, 0..3usize, any::<f32>()).prop_map(|(i, a, v)| Mutation::DetailVertex(i, a, v)),
        (0..9usize).prop_map(Mutation::Nvp),
    ]
}

fn apply(input: &mut DetourTileInput, m: &Mutation) {
    let mesh = &mut input.mesh;
    let detail = input.detail.as_mut().unwrap();
    match *m {
        Mutation::Poly(i, v) => {
            let n = mesh.polys.len();
            mesh.polys[i % n] = v;
        }
        Mutation::Vertex(i, a, v) => mesh.vertices[i][a] = v,
        Mutation::Area(i, v) => mesh.areas[i] = v,
        Mutation::DetailMesh(i, k, v) => detail.meshes[i][k] = v,
        Mutation::DetailTri(i, k, v) => detail.triangles[i][k] = v,
        Mutation::DetailVertex(i, a, v) => detail.vertices[i][a] = v,
        Mutation::Nvp(n) => mesh.nvp = n,
    }
}

proptest! {
    #[test]
    fn mutated_tile_inputs_are_refused_or_answer_queries(
        mutations in prop::collection::vec(mutation(), 1..4),
        a in prop::array::uniform3(-3.0f32..7.0),
        b in prop::array::uniform3(-3.0f32..7.0),
    ) {
        let mut input = valid_input();
        for m in &mutations {
            apply(&mut input, m);
        }
        match create_tile_data(&input) {
            Ok(tile) => {
                let mut mesh = DetourNavMesh::new(&DetourMeshParams {
                    origin: [0.0; 3],
                    tile_width: 4.0,
                    tile_height: 4.0,
                    max_tiles: 1,
                    max_polys: 4,
                })
                .unwrap();
                if mesh.add_tile(tile).is_ok() {
                    let mut engine = DetourEngine::new(&mesh).unwrap();
                    let _ = engine.straight_path([0.5, 0.0, 0.5], [1.5, 0.0, 0.5]);
                    let _ = engine.straight_path(a, b);
                    if let Ok(Some(start)) = engine.snap(a) {
                        let _ = engine.raycast(start, b);
                    }
                }
            }
            Err(PeerError::Input { .. }) | Err(PeerError::Detour { .. }) => {}
            Err(other) => prop_assert!(false, "unexpected error kind {other:?}"),
        }
    }

    #[test]
    fn obj_text_never_panics(lines in prop::collection::vec(
        prop_oneof![
            Just("v 0 0 0".to_string()),
            Just("v 1 0 1".to_string()),
            "v( -?[0-9]{1,3}(\\.[0-9])?| nan| x){0,4}",
            "f( -?[0-9]{1,2}(/[0-9]?)?(/[0-9])?){0,5}",
            "[a-z#]{0,3} [ -~]{0,12}",
        ],
        0..12,
    )) {
        match Level::from_obj_str(&lines.join("\n")) {
            Ok(level) => {
                for t in &level.triangles {
                    prop_assert!(t.iter().all(|&i| (i as usize) < level.vertices.len()));
                }
            }
            Err(PeerError::Obj { line, .. }) => prop_assert!(line >= 1 && line <= lines.len()),
            Err(other) => prop_assert!(false, "unexpected error kind {other:?}"),
        }
    }
}

#[test]
fn the_unmutated_input_builds_and_routes() {
    let mut mesh = DetourNavMesh::new(&DetourMeshParams {
        origin: [0.0; 3],
        tile_width: 4.0,
        tile_height: 4.0,
        max_tiles: 1,
        max_polys: 4,
    })
    .unwrap();
    mesh.add_tile(create_tile_data(&valid_input()).unwrap())
        .unwrap();
    let mut engine = DetourEngine::new(&mesh).unwrap();
    let path = engine
        .straight_path([0.5, 0.0, 0.5], [1.5, 0.0, 0.5])
        .unwrap()
        .unwrap();
    assert_eq!(path.corridor_len, 2);
}

#[test]
fn navmesh_parameters_out_of_range_are_refused() {
    let bad = DetourMeshParams {
        origin: [0.0, f32::NAN, 0.0],
        tile_width: 4.0,
        tile_height: 4.0,
        max_tiles: 1,
        max_polys: 4,
    };
    assert!(
        matches!(DetourNavMesh::new(&bad), Err(PeerError::Input { at, .. }) if at == "navmesh params")
    );
    let bad = DetourMeshParams {
        origin: [0.0; 3],
        max_tiles: 0,
        ..bad
    };
    assert!(
        matches!(DetourNavMesh::new(&bad), Err(PeerError::Input { at, .. }) if at == "navmesh params")
    );
}

#[test]
fn a_polygon_without_detail_triangles_is_refused() {
    // Regression (found by the property test above): Detour dereferences a null pointer in
    // its closest-point search when a polygon has no detail triangle.
    let mut input = valid_input();
    input.detail.as_mut().unwrap().meshes[1][3] = 0;
    match create_tile_data(&input) {
        Err(PeerError::Input { at, reason }) => {
            assert_eq!(at, "polygon 1: detail edge flags");
            assert!(reason.contains("boundary"), "{reason}");
        }
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn a_polygon_whose_detail_marks_no_boundary_edge_is_refused() {
    let mut input = valid_input();
    let detail = input.detail.as_mut().unwrap();
    for t in &mut detail.triangles[4..] {
        t[3] = 0;
    }
    match create_tile_data(&input) {
        Err(PeerError::Input { at, .. }) => assert_eq!(at, "polygon 1: detail edge flags"),
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn query_points_beyond_the_coordinate_bound_are_refused() {
    let mut mesh = DetourNavMesh::new(&DetourMeshParams {
        origin: [0.0; 3],
        tile_width: 4.0,
        tile_height: 4.0,
        max_tiles: 1,
        max_polys: 4,
    })
    .unwrap();
    mesh.add_tile(create_tile_data(&valid_input()).unwrap())
        .unwrap();
    let mut engine = DetourEngine::new(&mesh).unwrap();
    // 1e30 squared overflows float32: Detour would compare only infinities.
    match engine.straight_path([1e30, 0.0, 0.5], [1.5, 0.0, 0.5]) {
        Err(PeerError::Input { at, reason }) => {
            assert_eq!(at, "center");
            assert!(
                reason.contains("1000000000000000000000000000000"),
                "{reason}"
            );
        }
        other => panic!("expected an input error, got {other:?}"),
    }
    let start = engine.snap([0.5, 0.0, 0.5]).unwrap().unwrap();
    match engine.raycast(start, [0.5, f32::INFINITY, 0.5]) {
        Err(PeerError::Input { at, .. }) => assert_eq!(at, "end"),
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn tile_vertices_beyond_the_coordinate_bound_are_refused() {
    let mut input = valid_input();
    input.mesh.cs = 1.0e6;
    match create_tile_data(&input) {
        Err(PeerError::Input { at, .. }) => assert_eq!(at, "vertex 1"),
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn a_query_node_pool_out_of_range_is_refused() {
    let mesh = DetourNavMesh::new(&DetourMeshParams {
        origin: [0.0; 3],
        tile_width: 4.0,
        tile_height: 4.0,
        max_tiles: 1,
        max_polys: 4,
    })
    .unwrap();
    for n in [0, -1, 65536] {
        match onepath_peers::detour::DetourQuery::new(&mesh, n) {
            Err(PeerError::Input { at, .. }) => assert_eq!(at, "max_nodes"),
            other => panic!("{n}: expected an input error, got {other:?}"),
        }
    }
    assert!(onepath_peers::detour::DetourQuery::new(&mesh, 1).is_ok());
}
