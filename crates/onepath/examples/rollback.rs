//! Rollback: snapshot the world (meshes or tile caches, grids, crowds), step, restore, step
//! again: the second run gives exactly the states of the first.
//!
//! `cargo run --release -p onepath --example rollback`

use std::error::Error;

use onepath::grid::Grid;
use onepath::prelude::*;

/// Runs the example (also called by the crate's `tests/examples.rs`).
pub fn main() -> Result<(), Box<dyn Error>> {
    let floor = TriangleSoup {
        vertices: vec![
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 25.0],
            [25.0, 0.0, 25.0],
            [25.0, 0.0, 0.0],
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
        areas: None,
    };
    let nav = NavMesh::build_with_tile_cache(&NavSettings::default(), &floor)?;
    let mut world = NavWorld::from_classes(vec![nav])?;
    let mut grid = Grid::new(25, 25)?;
    let mut crowd = WorldCrowd::new(&world, CrowdSettings::default())?;
    for (from, to) in [
        ([2.0, 0.0, 2.0], [22.0, 0.0, 22.0]),
        ([22.0, 0.0, 2.0], [2.0, 0.0, 22.0]),
    ] {
        let a = crowd.add_agent(&world, from, AgentParams::new(0.5))?;
        crowd.request_move_target(&world, a, to)?;
    }

    let saved = WorldSnapshot::take(&world, &[(1, &grid)], Some(&crowd));
    // The frames after the snapshot: a barrel drops, the grid changes, the agents walk.
    let frames = |world: &mut NavWorld, grid: &mut Grid, crowd: &mut WorldCrowd| {
        let mut states = Vec::new();
        for frame in 0..60 {
            if frame == 10 {
                let nav = world.class_mut(0)?;
                nav.add_obstacle(Obstacle::Cylinder {
                    center: [12.5, 0.0, 12.5],
                    radius: 1.5,
                    height: 2.0,
                })?;
                grid.set_area(12, 12, 255)?;
            }
            world.class_mut(0)?.update(4)?;
            crowd.update(world, 1.0 / 30.0)?;
            states.push(WorldSnapshot::take(world, &[(1, grid)], Some(crowd)));
        }
        Ok::<_, Box<dyn Error>>(states)
    };
    let first = frames(&mut world, &mut grid, &mut crowd)?;
    saved.restore(&mut world, &mut [(1, &mut grid)], Some(&mut crowd))?;
    assert_eq!(
        WorldSnapshot::take(&world, &[(1, &grid)], Some(&crowd)),
        saved
    );
    let second = frames(&mut world, &mut grid, &mut crowd)?;
    assert_eq!(first, second);
    let bytes: usize = saved.classes.iter().map(|c| c.bytes().len()).sum::<usize>()
        + saved.grids.iter().map(|g| g.1.len()).sum::<usize>()
        + saved.crowds.iter().map(Vec::len).sum::<usize>();
    println!("60 frames replayed after a rollback, identical; snapshot {bytes} bytes");
    Ok(())
}
