//! The flat world of the guide and grounding tests: a 32 × 32 mesh at height 0 and a
//! voxel grid over it with a wall.
#![allow(dead_code)]

use onepath_format::NavMeshParams;
use onepath_gridstate::{VoxelGrid, VoxelSpace, WALL};
use onepath_mesh::fixtures::flat_grid_tile;
use onepath_mesh::TiledNavMesh;

/// A flat 32 × 32 mesh at height 0.
pub fn flat_mesh() -> TiledNavMesh {
    let params = NavMeshParams::new([0.0, 0.0, 0.0], 16.0, 0.25, 6);
    let mut mesh = TiledNavMesh::new(params).unwrap();
    for z in 0..2 {
        for x in 0..2 {
            mesh.add_tile(flat_grid_tile(&params, x, z, 0, 0.0, 8).unwrap())
                .unwrap();
        }
    }
    mesh
}

/// 32 × 8 × 32 unit voxels from (0, −1, 0): the layer under the ground solid, and a solid
/// wall x = 16 from the ground up to height 5 over every z (free above).
pub fn voxels() -> VoxelGrid {
    let mut v = VoxelGrid::new(32, 8, 32, 0).unwrap();
    v.set_space(VoxelSpace::new([0.0, -1.0, 0.0], 1.0).unwrap());
    for z in 0..32 {
        for x in 0..32 {
            v.set_area(x, 0, z, WALL).unwrap();
        }
        for y in 1..6 {
            v.set_area(16, y, z, WALL).unwrap();
        }
    }
    v
}
