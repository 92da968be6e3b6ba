//! A ferry and a flyer: the host moves a platform each step and an agent rides it; another
//! agent flies over a wall of a voxel grid and lands on the far side. Both world resources
//! are registered on the WorldCrowd, which hands them to every update.
//!
//! `cargo run --release -p onepath --example platforms_and_flyers`

use std::error::Error;

use onepath::grid::{VoxelGrid, VoxelSpace, WALL};
use onepath::prelude::*;

const FERRY: u32 = 1;
const AIR: u32 = 1;

/// Runs the example (also called by the crate's `tests/examples.rs`).
pub fn main() -> Result<(), Box<dyn Error>> {
    let floor = TriangleSoup {
        vertices: vec![
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 32.0],
            [32.0, 0.0, 32.0],
            [32.0, 0.0, 0.0],
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
        areas: None,
    };
    let world = NavWorld::build(&[NavSettings::default()], &floor)?;
    let mut crowd = WorldCrowd::new(&world, CrowdSettings::default())?;

    // The air over the floor in unit voxels: the ground solid, a wall at x = 16 up to 5.
    let mut air = VoxelGrid::new(32, 8, 32, 0)?;
    air.set_space(VoxelSpace::new([0.0, -1.0, 0.0], 1.0)?);
    for z in 0..32 {
        for x in 0..32 {
            air.set_area(x, 0, z, WALL)?;
        }
        for y in 1..6 {
            air.set_area(16, y, z, WALL)?;
        }
    }
    crowd.set_voxel_grid(AIR, air);

    let ferry_at = |step: u32| [4.0 + 0.05 * f64::from(step.min(200)), 0.0, 6.0];
    crowd.set_platform(FERRY, ferry_at(0))?;
    let all_modes = LocomotionHandler::with_all_modes;
    let rider = crowd.add_agent_with(&world, ferry_at(0), AgentParams::new(0.4), all_modes())?;
    crowd.attach_platform(&world, rider, FERRY)?;

    let landing = [26.5, 0.0, 20.5];
    let flyer =
        crowd.add_agent_with(&world, [4.5, 0.0, 20.5], AgentParams::new(0.3), all_modes())?;
    crowd.request_flight(&world, flyer, AIR, landing)?;

    let mut flew = false;
    for step in 1..=300 {
        crowd.set_platform(FERRY, ferry_at(step))?;
        crowd.update(&world, 1.0 / 30.0)?;
        flew |= crowd.agent(flyer).ok_or("flyer gone")?.state() == AgentState::Flying;
    }
    let r = crowd.agent(rider).ok_or("rider gone")?.position();
    println!(
        "the rider stands at {r:.2?} on the ferry at {:.2?}",
        ferry_at(300)
    );
    assert!((r[0] - ferry_at(300)[0]).abs() < 1e-9);
    let f = crowd.agent(flyer).ok_or("flyer gone")?;
    println!(
        "the flyer flew: {flew}, now {:?} at {:.2?}",
        f.state(),
        f.position()
    );
    assert!(flew && f.state() == AgentState::Walking);
    assert!(
        (f.position()[0] - landing[0]).abs() < 0.5 && (f.position()[2] - landing[2]).abs() < 0.5
    );
    Ok(())
}
