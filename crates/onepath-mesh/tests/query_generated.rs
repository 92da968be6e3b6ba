//! The generated mesh for benches and the Detour comparison, and its plain-data view.

use onepath_mesh::fixtures::bridge_and_building;
use onepath_mesh::query::{generated_grid_mesh, PlainPolygons, GENERATED_SWAMP_AREA};

#[test]
fn the_generated_mesh_has_a_thousand_tiles_and_is_a_function_of_its_seed() {
    let g = generated_grid_mesh(32, 32, 4, 1);
    assert_eq!(g.mesh.tile_count(), 1024);
    let plain = PlainPolygons::from_mesh(&g.mesh);
    assert_eq!(plain.polygons.len(), 1024 * 16);
    // Shared corners appear once: (32·4 + 1)² grid points.
    assert_eq!(plain.vertices.len(), 129 * 129);
    let blocked = plain.polygons.iter().filter(|p| p.flags == 0).count();
    let swamp = plain
        .polygons
        .iter()
        .filter(|p| p.area == GENERATED_SWAMP_AREA)
        .count();
    assert!(blocked > 1000 && blocked < 3000, "{blocked}");
    assert!(swamp > 1500 && swamp < 4000, "{swamp}");
    assert_eq!(
        PlainPolygons::from_mesh(&generated_grid_mesh(32, 32, 4, 1).mesh),
        plain
    );
    assert_ne!(
        PlainPolygons::from_mesh(&generated_grid_mesh(32, 32, 4, 2).mesh),
        plain
    );
}

#[test]
fn plain_polygons_list_symmetric_neighbours_and_off_mesh_links() {
    let mesh = bridge_and_building();
    let plain = PlainPolygons::from_mesh(&mesh);
    let count: usize = mesh.tiles().map(|t| t.tile().poly_count()).sum();
    assert_eq!(plain.polygons.len(), count);
    for p in &plain.polygons {
        assert!(p
            .vertices
            .iter()
            .all(|&v| (v as usize) < plain.vertices.len()));
        for (k, nbs) in p.neighbours.iter().enumerate() {
            for &n in nbs {
                let other = plain.polygons.iter().find(|q| q.poly == n).unwrap();
                // The neighbour lists this polygon back across one of its edges.
                assert!(
                    other.neighbours.iter().any(|e| e.contains(&p.poly)),
                    "{:?} edge {k} -> {:?} not reciprocated",
                    p.poly,
                    n
                );
            }
        }
    }
    // The ladder (both ways) and the one-way jump: three off-mesh departures.
    let off: usize = plain.polygons.iter().map(|p| p.off_mesh.len()).sum();
    assert_eq!(off, 3);
}

#[test]
fn a_generated_tile_too_large_for_the_format_is_an_error_not_a_panic() {
    use onepath_mesh::query::try_generated_grid_mesh;
    use onepath_mesh::MeshError;
    // 256 × 256 cells: 257² vertices, above the 65 535 a tile may hold.
    let r = try_generated_grid_mesh(1, 1, 256, 0);
    assert!(
        matches!(r, Err(MeshError::Format(_))),
        "{:?}",
        r.map(|g| g.cells)
    );
    assert_eq!(
        try_generated_grid_mesh(2, 1, 8, 5)
            .unwrap()
            .mesh
            .tile_count(),
        2
    );
}
