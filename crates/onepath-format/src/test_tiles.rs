// Tile fixtures shared by the crate's unit tests (`validate.rs`) and the integration tests
// (`tests/format/snapshots.rs`), pulled in with `include!` where `NavMeshParams`,
// `NavTileData`, `DetailMesh`, `DetailTriangle`, `OffMeshLinkSlot` and `NO_PORTAL` are in
// scope. Not a module of the library.

pub fn params() -> NavMeshParams {
    NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6)
}

/// Two quads sharing edge 1 → 4, every boundary edge a portal, one detail mesh per
/// polygon and one off-mesh link.
pub fn two_quads() -> NavTileData {
    NavTileData {
        tile_x: 0,
        tile_z: 0,
        layer: 0,
        origin_y: 0.0,
        vertices: vec![
            [0.0, 0.0, 0.0],
            [4.0, 0.0, 0.0],
            [8.0, 0.0, 0.0],
            [8.0, 0.0, 8.0],
            [4.0, 0.0, 8.0],
            [0.0, 0.0, 8.0],
        ],
        poly_sizes: vec![4, 4],
        poly_areas: vec![0, 5],
        poly_flags: vec![1, 1],
        corners: vec![0, 1, 4, 5, 1, 2, 3, 4],
        edge_neighbours: vec![0, 2, 0, 0, 0, 0, 0, 1],
        edge_portal_sides: vec![3, NO_PORTAL, 1, 2, 3, 0, 1, NO_PORTAL],
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
        detail_vertices: vec![[6.0, 0.5, 4.0]],
        detail_triangles: vec![
            DetailTriangle {
                v: [0, 1, 2],
                edge_flags: 3,
            },
            DetailTriangle {
                v: [0, 2, 3],
                edge_flags: 6,
            },
            DetailTriangle {
                v: [0, 1, 4],
                edge_flags: 1,
            },
        ],
        off_mesh_links: vec![OffMeshLinkSlot {
            start: [1.0, 0.0, 1.0],
            end: [6.0, 0.0, 6.0],
            radius: 0.5,
            area: 3,
            bidirectional: true,
            flags: 1,
            user_id: 7,
        }],
    }
}
