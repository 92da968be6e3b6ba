//! Fuzzes the crowd's state readers (`onepath-crowd`): the first input byte picks the
//! reader, the rest is the input. 0: the canonical crowd snapshot (ONCS) restored into a
//! crowd on the bridge-and-building fixture, in a world with a grid (id 3: 48 × 32 open
//! unit cells) and a voxel grid (id 9: 48 × 8 × 32 unit voxels from (0, −1, 0), the layer
//! under the ground solid) so that snapshots with flow-field, voxel and hybrid guides (the
//! ONCS guides extension) can be accepted, and a heightmap layer "terrain" (49 × 33 unit
//! samples, a gentle slope) so that restored agents with heightmap grounding (the ONCS
//! navigator extension) ground on it as they step; 1: an agent record through the binary transport
//! (postcard) loaded into an agent shell. Any bytes give a typed error or an
//! accepted state, never a panic; a failed ONCS restore leaves the crowd exactly as it
//! was; an accepted state is stepped a few times (never a hang) and saved again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onepath_crowd::{
    AgentParams, Crowd, CrowdSettings, Heightmap, LocomotionHandler, WorldContext,
};
use onepath_gridstate::{Grid, GridSpace, VoxelGrid, VoxelSpace, WALL};
use onepath_mesh::fixtures::bridge_and_building;
use onepath_mesh::TiledNavMesh;

fn crowd(mesh: &TiledNavMesh) -> Crowd {
    let mut c = Crowd::new(CrowdSettings::default()).expect("default settings");
    for p in [[2.0, 0.0, 2.0], [10.0, 3.5, 24.0], [24.0, 0.0, 14.0]] {
        let _ = c.add_agent_with(mesh, p, AgentParams::new(0.3), LocomotionHandler::with_all_modes());
    }
    c
}

fn grid() -> Grid {
    let mut g = Grid::new(48, 32).expect("grid size");
    g.set_space(GridSpace::new(0.0, 0.0, 1.0).expect("grid space"));
    g
}

fn voxels() -> VoxelGrid {
    let mut v = VoxelGrid::new(48, 8, 32, 0).expect("voxel size");
    v.set_space(VoxelSpace::new([0.0, -1.0, 0.0], 1.0).expect("voxel space"));
    for z in 0..32 {
        for x in 0..48 {
            v.set_area(x, 0, z, WALL).expect("inside");
        }
    }
    v
}

fn terrain() -> Heightmap {
    let samples = (0..33 * 49).map(|i| 0.02 * (i % 49) as f32).collect();
    Heightmap::new([0.0, 0.0], 1.0, 49, 33, samples).expect("heightmap")
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let mesh = bridge_and_building();
    let (g, v) = (grid(), voxels());
    let grids = [(3, &g)];
    let voxel_grids = [(9, &v)];
    let layer = terrain();
    let layers = [("terrain", &layer)];
    let world = WorldContext {
        grids: &grids,
        voxels: &voxel_grids,
        heightmaps: &layers,
        ..WorldContext::new(&mesh)
    };
    let mut c = crowd(&mesh);
    match sel % 2 {
        0 => {
            let before = c.save_snapshot();
            match c.restore_snapshot(&world, bytes) {
                Ok(_) => {
                    for _ in 0..3 {
                        let _ = c.update(&world, 1.0 / 60.0);
                    }
                    let again = c.save_snapshot();
                    let mut d = crowd(&mesh);
                    assert!(d.restore_snapshot(&world, &again).is_ok());
                }
                Err(_) => assert_eq!(c.save_snapshot(), before),
            }
        }
        _ => {
            let Some(id) = c.agents().first().map(|a| a.id()) else {
                return;
            };
            if c.load_agent_postcard(&world, id, bytes).is_ok() {
                for _ in 0..3 {
                    let _ = c.update(&world, 1.0 / 60.0);
                }
                let _ = c.save_agent_postcard(id);
            }
        }
    }
});
