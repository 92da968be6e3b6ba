//! A tile cache: a door closes a corridor, a barricade blocks the detour, a swamp makes a
//! room expensive; each change rebuilds only the tiles it touches.
//!
//! `cargo run --release -p onepath --example doors_and_barricades`

use std::error::Error;

use onepath::build::ConvexVolume;
use onepath::prelude::*;

/// Two rooms (x 0..12 and 18..30, z 0..30) joined by two corridors (z 4..8 and 22..26).
fn level() -> TriangleSoup {
    let mut soup = TriangleSoup::default();
    let mut floor = |x0: f64, z0: f64, x1: f64, z1: f64| {
        let b = soup.vertices.len() as u32;
        soup.vertices
            .extend([[x0, 0.0, z0], [x0, 0.0, z1], [x1, 0.0, z1], [x1, 0.0, z0]]);
        soup.triangles.push([b, b + 1, b + 2]);
        soup.triangles.push([b, b + 2, b + 3]);
    };
    floor(0.0, 0.0, 12.0, 30.0);
    floor(18.0, 0.0, 30.0, 30.0);
    floor(12.0, 4.0, 18.0, 8.0);
    floor(12.0, 22.0, 18.0, 26.0);
    soup
}

fn report(nav: &NavMesh, what: &str) -> Result<Path, Box<dyn Error>> {
    let p = nav.find_path([3.0, 0.0, 6.0], [27.0, 0.0, 6.0])?;
    println!(
        "{what}: {:?}, cost {:.2}, {} corners",
        p.status,
        p.cost,
        p.points.len()
    );
    Ok(p)
}

/// Runs the example (also called by the crate's `tests/examples.rs`).
pub fn main() -> Result<(), Box<dyn Error>> {
    let mut nav = NavMesh::build_with_tile_cache(&NavSettings::default(), &level())?;
    let open = report(&nav, "doors open")?;
    assert_eq!(open.status, PathStatus::Complete);

    // The door of the lower corridor closes.
    let door = nav.add_obstacle(Obstacle::Box {
        min: [14.5, -0.5, 3.5],
        max: [15.5, 2.5, 8.5],
    })?;
    let stats = nav.update_all()?;
    println!("door closed: {} tiles rebuilt", stats.rebuilt);
    let detour = report(&nav, "door closed")?;
    assert_eq!(detour.status, PathStatus::Complete);
    assert!(detour.cost > open.cost);

    // A barricade in the upper corridor too: no way through.
    let barricade = nav.add_obstacle(Obstacle::Cylinder {
        center: [15.0, 0.0, 24.0],
        radius: 3.0,
        height: 2.0,
    })?;
    nav.update_all()?;
    assert_eq!(report(&nav, "barricaded")?.status, PathStatus::Partial);

    // Reopen the door; the left room turns to swamp (area 2, five times the cost).
    nav.remove_obstacle(door)?;
    nav.remove_obstacle(barricade)?;
    nav.add_volume(ConvexVolume {
        points: vec![[0.0, 0.0], [0.0, 30.0], [12.0, 30.0], [12.0, 0.0]],
        min_y: -1.0,
        max_y: 1.0,
        area: 2,
    })?;
    nav.update_all()?;
    let mut filter = *nav.filter();
    filter.set_area_cost(2, 5.0)?;
    nav.set_filter(filter);
    let swamp = report(&nav, "door open, swamp")?;
    assert_eq!(swamp.status, PathStatus::Complete);
    assert!(swamp.cost > open.cost);
    Ok(())
}
