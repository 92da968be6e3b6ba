//! The mesh of the `snapshot` bench and the `rollback_cost` example: 1 000 tiles (40 × 25
//! columns of flat 4 × 4-polygon tiles), with a tile library of them.

use onepath_format::NavMeshParams;
use onepath_mesh::fixtures::flat_grid_tile;
use onepath_mesh::TiledNavMesh;
use onepath_snapshot::TileLibrary;

/// The 1 000 tiles, every `step`-th polygon (in slot order, from `offset`) set to area 7.
pub fn thousand_tiles(step: usize, offset: usize) -> (TiledNavMesh, TileLibrary) {
    let p = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
    let mut tiles = Vec::with_capacity(1000);
    for z in 0..25 {
        for x in 0..40 {
            tiles.push((1, Some(flat_grid_tile(&p, x, z, 0, 0.0, 4).unwrap())));
        }
    }
    let mut mesh = TiledNavMesh::from_slots(p, tiles).unwrap();
    edit(&mut mesh, step, offset, 7);
    let mut lib = TileLibrary::new(&p);
    lib.extend(mesh.tiles().map(|t| t.tile())).unwrap();
    (mesh, lib)
}

/// Sets every `step`-th polygon from `offset` to `area`.
pub fn edit(mesh: &mut TiledNavMesh, step: usize, offset: usize, area: u8) {
    let refs: Vec<_> = mesh
        .tiles()
        .flat_map(|t| (0..16).map(move |i| t.poly_ref(i).unwrap()))
        .skip(offset)
        .step_by(step)
        .collect();
    for r in refs {
        mesh.set_poly_area(r, area).unwrap();
    }
}
