//! `world/classes`: a NavWorld of three agent classes (radius 0.3, 0.6 and 1.2, the second
//! with an authored jump link) over the generated city, its ONNW bytes and each class's
//! ONNM, then a WorldCrowd of four agents per class walking the streets, every crowd's ONCS
//! snapshot hashed at each of 40 steps. Tiles are built in parallel, so this runs on 1, 2
//! and several threads.

use onepath::build::generators::{city, CityParams};
use onepath::crowd::{AgentParams, CrowdSettings};
use onepath::format::{NavSettings, OffMeshLinkDefinition, Partition};
use onepath::{NavWorld, WorldCrowd};

use crate::hash_matrix::Recorder;

/// The settings of a class, every value spelled out (so a change of a default cannot move
/// the matrix): the Recast demo's, with this agent radius.
fn class(radius: f32) -> Result<NavSettings, String> {
    let e = |e: onepath::format::CoordinateError| e.to_string();
    let mut s = NavSettings::default();
    s.set_origin([0.0, 0.0, 0.0]).map_err(e)?;
    s.set_tile_size(f64::from(9.6f32)).map_err(e)?;
    s.set_cell_size(0.3).map_err(e)?;
    s.set_cell_height(0.2).map_err(e)?;
    s.set_max_verts_per_poly(6).map_err(e)?;
    s.set_walkable_climb(0.9).map_err(e)?;
    s.set_agent_radius(radius).map_err(e)?;
    s.set_agent_height(2.0).map_err(e)?;
    s.set_agent_max_slope(45.0).map_err(e)?;
    s.set_snap_bits(-1).map_err(e)?;
    s.set_partition(Partition::Watershed);
    s.set_min_region_area(64).map_err(e)?;
    s.set_merge_region_area(400).map_err(e)?;
    s.set_contour_max_error(1.3).map_err(e)?;
    s.set_max_edge_length(12.0).map_err(e)?;
    s.set_detail_sample_distance(6.0).map_err(e)?;
    s.set_detail_max_error(1.0).map_err(e)?;
    s.set_height(0.0).map_err(e)?;
    s.set_area(63).map_err(e)?;
    s.set_flags(1);
    Ok(s)
}

/// SplitMix64, the scenario's seeded stream of street points.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A point on one of the city's streets (the default city: 3 blocks of 14, streets of 5,
/// so streets run along x and z at 0..5, 19..24, 38..43, 57..62).
fn street_point(rng: &mut u64) -> [f64; 3] {
    let u = (splitmix(rng) >> 11) as f64 / (1u64 << 53) as f64;
    let street = (splitmix(rng) % 4) as f64 * 19.0 + 2.5;
    let along = 2.0 + u * 58.0;
    if splitmix(rng) & 1 == 0 {
        [street, 0.0, along]
    } else {
        [along, 0.0, street]
    }
}

/// The scenario.
pub(crate) fn world_classes(rec: &mut Recorder) -> Result<(), String> {
    let e = |e: onepath::Error| e.to_string();
    let soup = city(&CityParams::default());
    let mut mid = class(0.6)?;
    mid.set_off_mesh_links(vec![OffMeshLinkDefinition {
        start: [2.5, 0.0, 10.0],
        end: [21.5, 0.0, 10.0],
        radius: 0.6,
        bidirectional: true,
        area: 5,
        flags: 1,
        user_id: 1,
    }])
    .map_err(|e| e.to_string())?;
    let classes = [class(0.3)?, mid, class(1.2)?];
    let world = NavWorld::build(&classes, &soup).map_err(e)?;
    rec.record("onnw", &world.save());
    for (i, c) in world.classes().iter().enumerate() {
        rec.record(format!("class-{i}/onnm"), &c.save());
    }
    let mut crowd = WorldCrowd::new(&world, CrowdSettings::default()).map_err(e)?;
    let mut rng = 18u64;
    for r in [0.3, 0.6, 1.2] {
        for _ in 0..4 {
            let from = street_point(&mut rng);
            let to = street_point(&mut rng);
            let a = crowd
                .add_agent(&world, from, AgentParams::new(r))
                .map_err(e)?;
            crowd.request_move_target(&world, a, to).map_err(e)?;
        }
    }
    for step in 0..40 {
        crowd.update(&world, 1.0 / 30.0).map_err(e)?;
        for (i, c) in crowd.crowds().iter().enumerate() {
            rec.record(format!("step-{step}/crowd-{i}"), &c.save_snapshot());
        }
    }
    Ok(())
}
