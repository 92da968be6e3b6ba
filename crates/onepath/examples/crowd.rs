//! Agents of two sizes walk to their targets: a NavWorld of two agent classes and a
//! WorldCrowd with one crowd per class.
//!
//! `cargo run --release -p onepath --example crowd`

use std::error::Error;

use onepath::prelude::*;

/// X/Z distance.
fn dist_2d(a: [f64; 3], b: [f64; 3]) -> f64 {
    let (dx, dz) = (a[0] - b[0], a[2] - b[2]);
    (dx * dx + dz * dz).sqrt()
}

/// Runs the example (also called by the crate's `tests/examples.rs`).
pub fn main() -> Result<(), Box<dyn Error>> {
    let floor = TriangleSoup {
        vertices: vec![
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 30.0],
            [30.0, 0.0, 30.0],
            [30.0, 0.0, 0.0],
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
        areas: None,
    };
    let mut small = NavSettings::default();
    small.set_agent_radius(0.4)?;
    let mut large = NavSettings::default();
    large.set_agent_radius(1.0)?;
    let world = NavWorld::build(&[small, large], &floor)?;

    let mut crowd = WorldCrowd::new(&world, CrowdSettings::default())?;
    let mut agents = Vec::new();
    for (k, r) in [0.3, 0.4, 0.9, 0.35].into_iter().enumerate() {
        let z = 4.0 + 6.0 * k as f64;
        let a = crowd.add_agent(&world, [3.0, 0.0, z], AgentParams::new(r))?;
        crowd.request_move_target(&world, a, [27.0, 0.0, 30.0 - z])?;
        println!("agent {:?} (radius {r}) walks class {}", a.id, a.class);
        agents.push((a, [27.0, 0.0, 30.0 - z]));
    }
    let mut steps = 0;
    while steps < 30 * 30 {
        crowd.update(&world, 1.0 / 30.0)?;
        steps += 1;
        let arrived = agents.iter().all(|(a, to)| {
            let p = crowd.agent(*a).map(|g| g.position()).unwrap_or([0.0; 3]);
            dist_2d(p, *to) < 0.5
        });
        if arrived {
            break;
        }
    }
    for (a, to) in &agents {
        let p = crowd.agent(*a).ok_or("agent gone")?.position();
        println!("agent {:?} at {:.2?} (target {:.1?})", a.id, p, to);
        assert!(dist_2d(p, *to) < 0.5);
    }
    println!("all arrived after {steps} steps");
    Ok(())
}
