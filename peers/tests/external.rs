//! External polygon data -> Detour navmesh -> Detour queries.

use onepath_format::{DetailMesh, DetailTriangle, NavMeshParams, NavTile, NavTileData, NO_PORTAL};
use onepath_peers::detour::DetourEngine;
use onepath_peers::external::{
    build_detour_mesh, from_onepath_tile, to_detour_input, EdgeLink, ExternalDetail, ExternalGrid,
    ExternalPolygon, ExternalTile, TileSide,
};
use onepath_peers::metrics::reachable_pairs;
use onepath_peers::{PathEngine, PeerError};

use EdgeLink::{Polygon, Portal, Wall};

/// Two unit squares sharing the edge x = 1 (counter-clockwise, X right, Z up), Y = `y`.
fn two_squares(y: f32) -> ExternalTile {
    ExternalTile {
        tile_x: 0,
        tile_z: 0,
        layer: 0,
        vertices: vec![
            [0.0, y, 0.0],
            [1.0, y, 0.0],
            [2.0, y, 0.0],
            [0.0, y, 1.0],
            [1.0, y, 1.0],
            [2.0, y, 1.0],
        ],
        polygons: vec![
            // Edges: 0-1, 1-4 (shared), 4-3, 3-0.
            ExternalPolygon::new(vec![0, 1, 4, 3], vec![Wall, Polygon(1), Wall, Wall]),
            // Edges: 1-2, 2-5, 5-4, 4-1 (shared).
            ExternalPolygon::new(vec![1, 2, 5, 4], vec![Wall, Wall, Wall, Polygon(0)]),
        ],
        detail: None,
    }
}

fn grid() -> ExternalGrid {
    ExternalGrid::new([0.0, 0.0, 0.0], 4.0, 0.25, 0.25)
}

fn input_error(r: Result<impl std::fmt::Debug, PeerError>) -> (String, String) {
    match r {
        Err(PeerError::Input { at, reason }) => (at, reason),
        other => panic!("expected PeerError::Input, got {other:?}"),
    }
}

#[test]
fn a_path_crosses_two_squares_sharing_an_edge() {
    let mesh = build_detour_mesh(&grid(), &[two_squares(0.0)]).unwrap();
    assert_eq!(mesh.counts(), (1, 2));
    let mut engine = DetourEngine::new(&mesh).unwrap();
    let path = engine
        .straight_path([0.25, 0.0, 0.5], [1.75, 0.0, 0.25])
        .unwrap()
        .unwrap();
    assert_eq!(path.corridor_len, 2);
    assert!(!path.partial);
    assert_eq!(path.corners, vec![[0.25, 0.0, 0.5], [1.75, 0.0, 0.25]]);
    assert_eq!(path.length(), (1.5f64 * 1.5 + 0.25 * 0.25).sqrt());
}

#[test]
fn a_point_off_the_mesh_does_not_snap() {
    let mesh = build_detour_mesh(&grid(), &[two_squares(0.0)]).unwrap();
    let mut engine = DetourEngine::new(&mesh).unwrap();
    // 10 units away along Z: outside the (2, 4, 2) search box.
    assert_eq!(
        engine
            .straight_path([0.5, 0.0, 12.0], [1.5, 0.0, 0.5])
            .unwrap(),
        None
    );
}

#[test]
fn a_wall_between_the_squares_leaves_no_path() {
    let mut tile = two_squares(0.0);
    tile.polygons[0].links[1] = Wall;
    tile.polygons[1].links[3] = Wall;
    let mesh = build_detour_mesh(&grid(), &[tile]).unwrap();
    let mut engine = DetourEngine::new(&mesh).unwrap();
    let path = engine
        .straight_path([0.5, 0.0, 0.5], [1.5, 0.0, 0.5])
        .unwrap()
        .unwrap();
    // Detour returns the partial corridor (the start polygon) and ends at its nearest point.
    assert!(path.partial);
    assert_eq!(path.corridor_len, 1);
    assert_eq!(path.corners.last(), Some(&[1.0, 0.0, 0.5]));
}

#[test]
fn portals_connect_neighbouring_tiles() {
    // Tile (0, 0) holds [0, 4] x [0, 4]; tile (1, 0) holds [4, 8] x [0, 4]. The shared
    // border x = 4 is a portal on side XPlus of the first and XMinus of the second.
    let square = |tx: i32, x0: f32, side: usize, towards: TileSide| {
        let mut links = vec![Wall; 4];
        links[side] = Portal(towards);
        ExternalTile {
            tile_x: tx,
            tile_z: 0,
            layer: 0,
            vertices: vec![
                [x0, 1.0, 0.0],
                [x0 + 4.0, 1.0, 0.0],
                [x0 + 4.0, 1.0, 4.0],
                [x0, 1.0, 4.0],
            ],
            polygons: vec![ExternalPolygon::new(vec![0, 1, 2, 3], links)],
            detail: None,
        }
    };
    // Edge 1 (x0+4, 0) -> (x0+4, 4) is the east side; edge 3 (x0, 4) -> (x0, 0) the west.
    let tiles = [
        square(0, 0.0, 1, TileSide::XPlus),
        square(1, 4.0, 3, TileSide::XMinus),
    ];
    let mesh = build_detour_mesh(&grid(), &tiles).unwrap();
    assert_eq!(mesh.counts(), (2, 2));
    let mut engine = DetourEngine::new(&mesh).unwrap();
    let path = engine
        .straight_path([1.0, 1.0, 1.0], [7.0, 1.0, 3.0])
        .unwrap()
        .unwrap();
    assert_eq!(path.corridor_len, 2);
    assert!(!path.partial);
    assert_eq!(path.corners, vec![[1.0, 1.0, 1.0], [7.0, 1.0, 3.0]]);

    // Without the portal on the second tile Detour makes no link: the path stays partial.
    let walled = [square(0, 0.0, 1, TileSide::XPlus), {
        let mut t = square(1, 4.0, 3, TileSide::XMinus);
        t.polygons[0].links[3] = Wall;
        t
    }];
    let mesh = build_detour_mesh(&grid(), &walled).unwrap();
    let mut engine = DetourEngine::new(&mesh).unwrap();
    let path = engine
        .straight_path([1.0, 1.0, 1.0], [7.0, 1.0, 3.0])
        .unwrap()
        .unwrap();
    assert!(path.partial);
}

#[test]
fn detail_meshes_give_the_path_its_heights() {
    // One square 0..2 whose centre is raised to y = 1 by a detail vertex (4 fan triangles
    // around it). A path across the middle climbs over it.
    let detail = ExternalDetail {
        vertices: vec![[1.0, 1.0, 1.0]],
        triangles: vec![[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]],
        edge_flags: vec![0b001; 4],
    };
    let tile = ExternalTile {
        tile_x: 0,
        tile_z: 0,
        layer: 0,
        vertices: vec![
            [0.0, 0.0, 0.0],
            [2.0, 0.0, 0.0],
            [2.0, 0.0, 2.0],
            [0.0, 0.0, 2.0],
        ],
        polygons: vec![ExternalPolygon::new(vec![0, 1, 2, 3], vec![Wall; 4])],
        detail: Some(vec![detail]),
    };
    let mesh = build_detour_mesh(&grid(), std::slice::from_ref(&tile)).unwrap();
    let engine = DetourEngine::new(&mesh).unwrap();
    let centre = engine.snap([1.0, 0.5, 1.0]).unwrap().unwrap();
    assert_eq!(centre.pos, [1.0, 1.0, 1.0]);
    let edge = engine.snap([1.0, 0.5, 0.0]).unwrap().unwrap();
    assert_eq!(edge.pos, [1.0, 0.0, 0.0]);

    // The same square without detail is flat.
    let flat = ExternalTile {
        detail: None,
        ..tile
    };
    let mesh = build_detour_mesh(&grid(), &[flat]).unwrap();
    let engine = DetourEngine::new(&mesh).unwrap();
    assert_eq!(
        engine.snap([1.0, 0.5, 1.0]).unwrap().unwrap().pos,
        [1.0, 0.0, 1.0]
    );
}

#[test]
fn reachable_pairs_keep_only_pairs_on_connected_polygons() {
    let mut tile = two_squares(0.0);
    tile.polygons[0].links[1] = Wall;
    tile.polygons[1].links[3] = Wall;
    let mesh = build_detour_mesh(&grid(), &[tile.clone()]).unwrap();
    let mut engine = DetourEngine::new(&mesh).unwrap();
    let polygons: Vec<Vec<[f32; 3]>> = tile
        .polygons
        .iter()
        .map(|p| p.vertices.iter().map(|&v| tile.vertices[v]).collect())
        .collect();
    let pairs = reachable_pairs(&mut engine, &polygons, 20, 3, 1000).unwrap();
    assert_eq!(pairs.len(), 20);
    for (s, e) in &pairs {
        // Both ends in the same square (x below 1, or above 1).
        assert_eq!(s[0] < 1.0, e[0] < 1.0, "{s:?} {e:?}");
    }
    // With the squares joined again, pairs across the shared edge appear.
    let mesh = build_detour_mesh(&grid(), &[two_squares(0.0)]).unwrap();
    let mut engine = DetourEngine::new(&mesh).unwrap();
    let pairs = reachable_pairs(&mut engine, &polygons, 20, 3, 1000).unwrap();
    assert!(pairs.iter().any(|(s, e)| (s[0] < 1.0) != (e[0] < 1.0)));
}

#[test]
fn raycast_reports_the_wall_it_hits() {
    let mesh = build_detour_mesh(&grid(), &[two_squares(0.0)]).unwrap();
    let engine = DetourEngine::new(&mesh).unwrap();
    let start = engine.snap([0.5, 0.0, 0.5]).unwrap().unwrap();
    let clear = engine.raycast(start, [1.5, 0.0, 0.5]).unwrap();
    assert_eq!(clear.t, None);
    assert_eq!(clear.visited.len(), 2);
    // Toward x = 4: the wall x = 2 is a third of the way from 0.5... (1.5 / 3.5 of it).
    let hit = engine.raycast(start, [4.0, 0.0, 0.5]).unwrap();
    assert_eq!(hit.t, Some(1.5 / 3.5));
    assert_eq!(hit.normal, [-1.0, 0.0, 0.0]);
}

#[test]
fn clockwise_polygons_are_refused() {
    let mut tile = two_squares(0.0);
    tile.polygons[0].vertices.reverse();
    let (at, reason) = input_error(to_detour_input(&grid(), &tile));
    assert_eq!(at, "tile (0, 0, 0): polygon 0: winding");
    assert!(reason.contains("counter-clockwise"), "{reason}");
}

#[test]
fn vertices_off_the_quantization_grid_are_refused_unless_tolerated() {
    let mut tile = two_squares(0.0);
    tile.vertices[4][0] = 1.1;
    let (at, reason) = input_error(to_detour_input(&grid(), &tile));
    assert_eq!(at, "tile (0, 0, 0): vertex 4 axis 0");
    assert!(reason.contains("off the quantization grid"), "{reason}");
    let tolerant = ExternalGrid {
        tolerance: 0.125,
        ..grid()
    };
    let input = to_detour_input(&tolerant, &tile).unwrap();
    assert_eq!(input.mesh.vertices[4], [4, 0, 4]);

    // A vertex left of the tile cannot be quantized at all.
    let mut tile = two_squares(0.0);
    tile.vertices[0][0] = -1.0;
    let (at, reason) = input_error(to_detour_input(&grid(), &tile));
    assert_eq!(at, "tile (0, 0, 0): vertex 0 axis 0");
    assert!(reason.contains("outside"), "{reason}");
}

#[test]
fn bad_indices_are_refused_before_reaching_detour() {
    let mut tile = two_squares(0.0);
    tile.polygons[1].links[3] = Polygon(2);
    let (at, _) = input_error(to_detour_input(&grid(), &tile));
    assert_eq!(at, "tile (0, 0, 0): polygon 1: edge 3");

    let mut tile = two_squares(0.0);
    tile.polygons[1].vertices[2] = 6;
    let (at, _) = input_error(to_detour_input(&grid(), &tile));
    assert_eq!(at, "tile (0, 0, 0): polygon 1: vertex 2");

    let mut tile = two_squares(0.0);
    tile.polygons[0].links.pop();
    let (at, _) = input_error(to_detour_input(&grid(), &tile));
    assert_eq!(at, "tile (0, 0, 0): polygon 0: edges");

    let mut tile = two_squares(0.0);
    tile.polygons[0].vertices = (0..7).collect();
    tile.polygons[0].links = vec![Wall; 7];
    let (at, _) = input_error(to_detour_input(&grid(), &tile));
    assert_eq!(at, "tile (0, 0, 0): polygons");

    let mut tile = two_squares(0.0);
    tile.detail = Some(vec![ExternalDetail::default()]);
    let (at, _) = input_error(to_detour_input(&grid(), &tile));
    assert_eq!(at, "tile (0, 0, 0): detail");

    let mut tile = two_squares(0.0);
    let bad = ExternalDetail {
        vertices: vec![],
        triangles: vec![[0, 1, 4]],
        edge_flags: vec![0],
    };
    tile.detail = Some(vec![bad.clone(), bad]);
    let (at, reason) = input_error(to_detour_input(&grid(), &tile));
    assert_eq!(at, "tile (0, 0, 0): polygon 0: detail triangle");
    assert_eq!(reason, "index 4 is not below 4");
}

#[test]
fn reversal_keeps_each_edge_with_its_neighbour() {
    // Polygon 0 = [0, 1, 4, 3] reversed is [3, 4, 1, 0]; its edge 4 -> 1 (Detour edge 1) is
    // our edge 1 -> 4, the shared one.
    let input = to_detour_input(&grid(), &two_squares(0.0)).unwrap();
    let nvp = input.mesh.nvp;
    assert_eq!(nvp, 4);
    let p0 = &input.mesh.polys[..2 * nvp];
    assert_eq!(&p0[..4], &[3, 4, 1, 0]);
    assert_eq!(&p0[4..], &[0xffff, 1, 0xffff, 0xffff]);
    let p1 = &input.mesh.polys[2 * nvp..];
    assert_eq!(&p1[..4], &[4, 5, 2, 1]);
    assert_eq!(&p1[4..], &[0xffff, 0xffff, 0xffff, 0]);
}

#[test]
fn a_onepath_tile_converts_to_the_same_polygons() {
    // The two squares as a OnePath tile at (1, 2) of a grid with origin (10, 0, 20), tile
    // size 2: tile-local vertices, neighbours as polygon + 1, portals on x = 0 and x = 2,
    // one detail vertex in polygon 1. `NavTile::create` validates it as OnePath does
    // (counter-clockwise polygons, portal edges on the tile border, detail ranges).
    let params = NavMeshParams::new([10.0, 0.0, 20.0], 2.0, 0.25, 6);
    let data = NavTileData {
        tile_x: 1,
        tile_z: 2,
        layer: 0,
        origin_y: 3.0,
        vertices: two_squares(0.0).vertices,
        poly_sizes: vec![4, 4],
        poly_areas: vec![0, 5],
        poly_flags: vec![1, 3],
        corners: vec![0, 1, 4, 3, 1, 2, 5, 4],
        edge_neighbours: vec![0, 2, 0, 0, 0, 0, 0, 1],
        edge_portal_sides: vec![
            NO_PORTAL, NO_PORTAL, NO_PORTAL, 2, NO_PORTAL, 0, NO_PORTAL, NO_PORTAL,
        ],
        detail_meshes: vec![
            DetailMesh {
                vertex_base: 0,
                vertex_count: 0,
                triangle_base: 0,
                triangle_count: 2,
            },
            DetailMesh {
                vertex_base: 0,
                vertex_count: 1,
                triangle_base: 2,
                triangle_count: 1,
            },
        ],
        detail_vertices: vec![[1.5, 0.5, 0.5]],
        detail_triangles: vec![
            DetailTriangle {
                v: [0, 1, 2],
                edge_flags: 0b011,
            },
            DetailTriangle {
                v: [0, 2, 3],
                edge_flags: 0b110,
            },
            DetailTriangle {
                v: [0, 1, 4],
                edge_flags: 0b001,
            },
        ],
        off_mesh_links: vec![],
    };
    let onepath_tile = NavTile::create(&params, data).unwrap();
    let tile = from_onepath_tile(&params, onepath_tile.data()).unwrap();
    assert_eq!((tile.tile_x, tile.tile_z, tile.layer), (1, 2, 0));
    assert_eq!(tile.vertices[5], [14.0, 3.0, 25.0]);
    assert_eq!(
        tile.polygons[0].links,
        vec![Wall, Polygon(1), Wall, Portal(TileSide::XMinus)]
    );
    assert_eq!(
        tile.polygons[1].links,
        vec![Wall, Portal(TileSide::XPlus), Wall, Polygon(0)]
    );
    assert_eq!((tile.polygons[1].area, tile.polygons[1].flags), (5, 3));
    let detail = tile.detail.as_ref().unwrap();
    assert_eq!(detail[1].vertices, vec![[13.5, 3.5, 24.5]]);
    assert_eq!(detail[0].edge_flags, vec![0b011, 0b110]);

    // Detour's form: corners reversed, triangle (0, 1, 2) -> corners (3, 2, 1) flipped to
    // (3, 1, 2); flags 0b011 (edges 0, 1) -> Detour edges 2 and 1 -> 0b01_01_00.
    let grid = ExternalGrid::from_onepath(&params, 0.25);
    assert_eq!(grid.origin, [10.0, 0.0, 20.0]);
    assert_eq!((grid.tile_size, grid.cell_size), (2.0, 0.25));
    let input = to_detour_input(&grid, &tile).unwrap();
    let d = input.detail.as_ref().unwrap();
    assert_eq!(d.triangles[0], [3, 1, 2, 0b01_01_00]);
    assert_eq!(d.meshes[1], [4, 5, 2, 1]);
    assert_eq!(d.vertices[4], [13.0, 3.0, 25.0]);

    let mesh = build_detour_mesh(&grid, &[tile]).unwrap();
    let mut engine = DetourEngine::new(&mesh).unwrap();
    let path = engine
        .straight_path([12.5, 3.0, 24.5], [13.9, 3.0, 24.1])
        .unwrap()
        .unwrap();
    assert_eq!(path.corridor_len, 2);
}
