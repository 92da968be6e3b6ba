//! Heightmap grounding (`docs/crowd.md`, "Heightmap grounding") and the Fly and Climb
//! gravity compensation (`docs/crowd.md`, "Gravity compensation"): the feet follow a
//! host-registered layer within the snap tolerance while the navmesh position moves exactly
//! as without grounding; a missing layer fails cleanly; the settings and compensations
//! survive records (JSON, postcard) and ONCS without the layers' samples, and a restored
//! crowd steps on byte for byte.

use onepath_crowd::records::Value;
use onepath_crowd::{
    AgentId, AgentParams, AgentState, Crowd, CrowdError, CrowdSettings, GroundingMode,
    GroundingStatus, Heightmap, HeightmapGrounding, LocomotionHandler, PathRequest,
    PathRequestKind, RequestSettings, WorldContext,
};
use onepath_format::FormatError;
use onepath_gridstate::VoxelGrid;
use onepath_mesh::query::{NavMeshQuery, QueryFilter};
use onepath_mesh::TiledNavMesh;
use proptest::test_runner::{Config, TestRunner};

#[path = "common/flat.rs"]
mod flat;
use flat::{flat_mesh, voxels};

const DT: f64 = 1.0 / 60.0;
const VOXELS: u32 = 9;

/// 33 × 33 samples one unit apart over the mesh: `h = 0.05 x + 0.01 z + lift` (a slope
/// rising along X, a little along Z).
fn slope(lift: f32) -> Heightmap {
    let mut s = Vec::new();
    for z in 0..33 {
        for x in 0..33 {
            s.push(0.05 * x as f32 + 0.01 * z as f32 + lift);
        }
    }
    Heightmap::new([0.0, 0.0], 1.0, 33, 33, s).unwrap()
}

/// The world of `mesh` with `voxels` and heightmap `layers`.
fn world<'a>(
    mesh: &'a TiledNavMesh,
    voxels: &'a [(u32, &'a VoxelGrid)],
    layers: &'a [(&'a str, &'a Heightmap)],
) -> WorldContext<'a> {
    WorldContext {
        voxels,
        heightmaps: layers,
        ..WorldContext::new(mesh)
    }
}

fn state_bytes(crowd: &Crowd) -> Vec<u8> {
    let mut b = Vec::new();
    crowd.write_state(&mut b);
    b
}

/// Adds an agent of `params` and modes `h` at `from`, walking to the polygon nearest `to`.
fn agent_to(
    crowd: &mut Crowd,
    mesh: &TiledNavMesh,
    (from, to): ([f64; 3], [f64; 3]),
    params: AgentParams,
    h: LocomotionHandler,
) -> AgentId {
    let id = crowd.add_agent_with(mesh, from, params, h).unwrap();
    let n = NavMeshQuery::new()
        .find_nearest_poly(mesh, to, [1.0, 2.0, 1.0], &QueryFilter::new())
        .unwrap()
        .unwrap();
    crowd.request_move_target(id, n.poly, n.point).unwrap();
    id
}

fn walker(crowd: &mut Crowd, mesh: &TiledNavMesh, from: [f64; 3], to: [f64; 3]) -> AgentId {
    let h = LocomotionHandler::with_all_modes();
    agent_to(crowd, mesh, (from, to), AgentParams::new(0.4), h)
}

/// An agent of modes `h` at the foot of the bridge-and-building fixture's ladder (a climb
/// link from the ground to the roof), heading for the roof.
fn climber(crowd: &mut Crowd, mesh: &TiledNavMesh, h: LocomotionHandler) -> AgentId {
    let route = ([24.0, 0.0, 14.0], [27.0, 3.0, 8.0]);
    agent_to(crowd, mesh, route, AgentParams::new(0.3), h)
}

fn snap(layer: &str, tolerance: f64, offset: f64) -> HeightmapGrounding {
    HeightmapGrounding::new(GroundingMode::Snap)
        .with_preferred_layer(layer)
        .unwrap()
        .with_snap_tolerance(tolerance)
        .unwrap()
        .with_ground_offset(offset)
        .unwrap()
}

#[test]
fn the_feet_follow_a_sloped_heightmap_within_the_tolerance_and_the_navmesh_position_is_untouched() {
    let mesh = flat_mesh();
    let terrain = slope(0.0);
    let layers = [("terrain", &terrain)];
    let w = world(&mesh, &[], &layers);
    // The twin without grounding walks the same steps.
    let mut plain = Crowd::new(CrowdSettings::default()).unwrap();
    let mut grounded = Crowd::new(CrowdSettings::default()).unwrap();
    let (from, to) = ([2.5, 0.0, 16.5], [29.5, 0.0, 16.5]);
    walker(&mut plain, &mesh, from, to);
    let id = walker(&mut grounded, &mesh, from, to);
    grounded
        .configure_heightmap_grounding(id, snap("terrain", 0.6, 0.1))
        .unwrap();
    let (mut on, mut off) = (0, 0);
    for step in 0..60 * 15 {
        plain.update(&w, DT).unwrap();
        let stats = grounded.update(&w, DT).unwrap();
        assert_eq!(stats.grounding_missing_layers, 0);
        assert_eq!(
            state_bytes(&plain),
            state_bytes(&grounded),
            "step {step}: grounding moved the navmesh position"
        );
        let a = grounded.agent(id).unwrap();
        let p = a.position();
        let g = a.navigator().grounding;
        let h = terrain.height_at(p[0], p[2]).unwrap();
        assert_eq!(g.active_layer().unwrap().as_str(), "terrain");
        if (h - p[1]).abs() <= 0.6 {
            assert_eq!(g.status(), GroundingStatus::Grounded, "step {step}");
            assert_eq!(g.foot_height(), Some(h + 0.1), "step {step}");
            on += 1;
        } else {
            assert_eq!(g.status(), GroundingStatus::OutOfTolerance, "step {step}");
            assert_eq!(g.foot_height(), None);
            off += 1;
        }
    }
    assert!(
        on > 60 && off > 60,
        "both sides of the tolerance: {on} / {off}"
    );
    let a = grounded.agent(id).unwrap();
    assert!(a.navigator().steering.at_destination, "{:?}", a.position());
}

#[test]
fn a_layer_beyond_the_tolerance_does_not_snap_and_always_mode_follows_it() {
    let mesh = flat_mesh();
    // 2 units above the mesh everywhere (plus the slope).
    let high = slope(2.0);
    let layers = [("high", &high)];
    let w = world(&mesh, &[], &layers);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let a = walker(&mut crowd, &mesh, [2.5, 0.0, 4.5], [20.5, 0.0, 4.5]);
    let b = walker(&mut crowd, &mesh, [2.5, 0.0, 8.5], [20.5, 0.0, 8.5]);
    crowd
        .configure_heightmap_grounding(a, snap("high", 1.5, 0.0))
        .unwrap();
    let always = HeightmapGrounding::new(GroundingMode::Always)
        .with_preferred_layer("high")
        .unwrap();
    crowd.configure_heightmap_grounding(b, always).unwrap();
    for _ in 0..120 {
        crowd.update(&w, DT).unwrap();
        let ga = crowd.agent(a).unwrap().navigator().grounding;
        assert_eq!(ga.status(), GroundingStatus::OutOfTolerance);
        assert_eq!(ga.foot_height(), None);
        let bb = crowd.agent(b).unwrap();
        let p = bb.position();
        let gb = bb.navigator().grounding;
        assert_eq!(gb.status(), GroundingStatus::Grounded);
        assert_eq!(gb.foot_height(), high.height_at(p[0], p[2]));
    }
    // Off the layer's samples: the feet stand on the navmesh position.
    let small = Heightmap::new([0.0, 0.0], 1.0, 2, 2, vec![0.0; 4]).unwrap();
    let layers = [("high", &small)];
    let w = world(&mesh, &[], &layers);
    crowd.update(&w, DT).unwrap();
    let gb = crowd.agent(b).unwrap().navigator().grounding;
    assert_eq!(gb.status(), GroundingStatus::OffLayer);
    assert_eq!(gb.foot_height(), None);
}

#[test]
fn a_missing_layer_fails_cleanly_and_the_agent_walks_on_the_mesh() {
    let mesh = flat_mesh();
    let terrain = slope(0.0);
    let other = slope(0.25);
    let none = WorldContext::new(&mesh);
    let mut plain = Crowd::new(CrowdSettings::default()).unwrap();
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let (from, to) = ([2.5, 0.0, 16.5], [12.5, 0.0, 16.5]);
    walker(&mut plain, &mesh, from, to);
    let id = walker(&mut crowd, &mesh, from, to);
    crowd
        .configure_heightmap_grounding(id, snap("terrain", 1.0, 0.0))
        .unwrap();
    for _ in 0..60 * 8 {
        plain.update(&none, DT).unwrap();
        let stats = crowd.update(&none, DT).unwrap();
        assert_eq!(stats.grounding_missing_layers, 1);
        let g = crowd.agent(id).unwrap().navigator().grounding;
        assert_eq!(g.status(), GroundingStatus::MissingLayer);
        assert_eq!(g.foot_height(), None);
        assert_eq!(g.active_layer(), None, "nothing is chosen in its place");
        assert_eq!(state_bytes(&plain), state_bytes(&crowd));
    }
    assert!(crowd.agent(id).unwrap().navigator().steering.at_destination);
    // The active-layer rule: the preferred layer when registered (it becomes active) ...
    let both = [("other", &other), ("terrain", &terrain)];
    let w = world(&mesh, &[], &both);
    crowd.update(&w, DT).unwrap();
    let g = crowd.agent(id).unwrap().navigator().grounding;
    assert_eq!(g.status(), GroundingStatus::Grounded);
    assert_eq!(g.active_layer().unwrap().as_str(), "terrain");
    // ... else the active one while it is registered ...
    let settings = snap("elsewhere", 2.0, 0.0)
        .with_active_layer("other")
        .unwrap();
    crowd.configure_heightmap_grounding(id, settings).unwrap();
    assert_eq!(
        crowd.agent(id).unwrap().navigator().grounding.status(),
        GroundingStatus::Off,
        "until the next update"
    );
    crowd.update(&w, DT).unwrap();
    let a = crowd.agent(id).unwrap();
    let g = a.navigator().grounding;
    assert_eq!(g.active_layer().unwrap().as_str(), "other");
    let p = a.position();
    assert_eq!(g.foot_height(), other.height_at(p[0], p[2]));
    // ... else none: grounding fails, the active layer is kept for when it comes back.
    let only = [("terrain", &terrain)];
    let w = world(&mesh, &[], &only);
    assert_eq!(crowd.update(&w, DT).unwrap().grounding_missing_layers, 1);
    let g = crowd.agent(id).unwrap().navigator().grounding;
    assert_eq!(g.status(), GroundingStatus::MissingLayer);
    assert_eq!(g.active_layer().unwrap().as_str(), "other");
}

#[test]
fn grounding_settings_and_compensations_are_validated_with_typed_errors() {
    let bad = |r: Result<HeightmapGrounding, CrowdError>| match r {
        Err(CrowdError::InvalidParameter { what, .. }) => what,
        other => panic!("expected InvalidParameter, got {other:?}"),
    };
    let g = HeightmapGrounding::new(GroundingMode::Snap);
    assert_eq!(bad(g.with_snap_tolerance(-0.1)), "snap_tolerance");
    assert_eq!(bad(g.with_snap_tolerance(f64::NAN)), "snap_tolerance");
    assert_eq!(bad(g.with_ground_offset(f64::NAN)), "ground_offset");
    assert_eq!(bad(g.with_ground_offset(f64::INFINITY)), "ground_offset");
    assert!(matches!(
        g.with_preferred_layer(""),
        Err(CrowdError::InvalidLayerName { .. })
    ));
    assert!(matches!(
        g.with_active_layer(&"long".repeat(9)),
        Err(CrowdError::InvalidLayerName { .. })
    ));
    assert_eq!(g.with_snap_tolerance(0.0).unwrap().snap_tolerance(), 0.0);
    let mesh = flat_mesh();
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    assert_eq!(
        crowd.configure_heightmap_grounding(AgentId(3), g),
        Err(CrowdError::UnknownAgent(AgentId(3)))
    );
    for (fly, climb, what) in [
        (1.5, 1.0, "fly gravity_compensation"),
        (f64::NAN, 1.0, "fly gravity_compensation"),
        (1.0, -0.5, "climb gravity_compensation"),
    ] {
        let mut h = LocomotionHandler::with_all_modes();
        h.fly.as_mut().unwrap().gravity_compensation = fly;
        h.climb.as_mut().unwrap().gravity_compensation = climb;
        match crowd.add_agent_with(&mesh, [2.5, 0.0, 2.5], AgentParams::new(0.4), h) {
            Err(CrowdError::InvalidParameter { what: w, .. }) => assert_eq!(w, what),
            other => panic!("expected InvalidParameter, got {other:?}"),
        }
    }
    assert!(crowd.agents().is_empty(), "a refused agent is not added");
}

fn voxel_request(target: [f64; 3]) -> PathRequest {
    PathRequest {
        kind: PathRequestKind::Voxel,
        origin: [0.0; 3],
        target,
        unit_size: 0.3,
        walkability_override: None,
        max_search_range: 0.0,
        settings: RequestSettings::Voxel {
            max_climb_height: 0.0,
        },
        guide_active: false,
        waypoint_index: 0,
        context_id: VOXELS,
    }
}

/// A flyer over the wall to (28.5, 0, 16.5) with flight `acceleration` and compensation.
fn flyer(crowd: &mut Crowd, w: &WorldContext<'_>, acceleration: f64, comp: f64) -> AgentId {
    let mut h = LocomotionHandler::with_all_modes();
    let f = h.fly.as_mut().unwrap();
    f.acceleration = acceleration;
    f.gravity_compensation = comp;
    let mut p = AgentParams::new(0.3);
    p.max_speed = 3.0;
    let id = crowd
        .add_agent_with(w.mesh, [4.5, 0.0, 16.5], p, h)
        .unwrap();
    crowd
        .request_path(w, id, voxel_request([28.5, 0.0, 16.5]))
        .unwrap();
    id
}

fn len(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

#[test]
fn an_uncompensated_share_of_gravity_slows_climbing_flyers_and_full_compensation_changes_nothing() {
    let mesh = flat_mesh();
    let vox = voxels();
    let voxel_list = [(VOXELS, &vox)];
    let w = world(&mesh, &voxel_list, &[]);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    // Acceleration 0: the flight speed at once, then gravity's pull along the segment.
    let half = flyer(&mut crowd, &w, 0.0, 0.5);
    let full = flyer(&mut crowd, &w, 0.0, 1.0);
    let mut checked = 0;
    let mut climbing = 0;
    let mut landed = [false; 2];
    for _ in 0..60 * 20 {
        crowd.update(&w, DT).unwrap();
        for (k, id) in [half, full].into_iter().enumerate() {
            let a = crowd.agent(id).unwrap();
            landed[k] |= a.state() == AgentState::Walking && a.position()[0] > 28.0;
            if a.state() != AgentState::Flying {
                continue;
            }
            let v = a.velocity();
            let s = len(v);
            assert!(s <= 5.0 + 1e-9, "within the flight speed: {s}");
            if id == full {
                continue;
            }
            // Within one segment the velocity points along it: its rise is v_y / |v| (a step
            // that passes a waypoint flies a chord and does not match).
            if s > 0.0 {
                let rise = v[1] / s;
                let want = (5.0 - 0.5 * 9.81 * rise * DT).min(5.0);
                if (s - want).abs() < 1e-9 {
                    checked += 1;
                }
                if rise > 0.01 {
                    climbing += 1;
                    assert!(s < 5.0 - 1e-6, "a climb is slowed: {s}");
                }
            }
        }
    }
    assert!(checked > 60, "steps matching the rule: {checked}");
    assert!(climbing > 5, "climbing steps: {climbing}");
    assert_eq!(landed, [true, true], "both land at the target");
}

#[test]
fn a_flyer_whose_acceleration_cannot_carry_the_climb_stalls_in_free_space() {
    let mesh = flat_mesh();
    let vox = voxels();
    let voxel_list = [(VOXELS, &vox)];
    let w = world(&mesh, &voxel_list, &[]);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    // No compensation and an acceleration of 2 (< 9.81): no steep climb is possible.
    let id = flyer(&mut crowd, &w, 2.0, 0.0);
    let mut top: f64 = 0.0;
    for _ in 0..60 * 20 {
        crowd.update(&w, DT).unwrap();
        let p = crowd.agent(id).unwrap().position();
        let q = [p[0].floor(), (p[1] + 1.0).floor(), p[2].floor()];
        assert!(vox.is_walkable(q[0] as i64, q[1] as i64, q[2] as i64));
        top = top.max(p[1]);
    }
    let a = crowd.agent(id).unwrap();
    assert_eq!(a.state(), AgentState::Flying, "never got over the wall");
    assert!(top < 5.0, "top {top}");
    assert_eq!(len(a.velocity()), 0.0, "stalled");
}

#[test]
fn an_uncompensated_climber_takes_longer_up_the_ladder() {
    let mesh = onepath_mesh::fixtures::bridge_and_building();
    let w = WorldContext::new(&mesh);
    let mut durations = Vec::new();
    for comp in [1.0, 0.5] {
        let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
        let mut h = LocomotionHandler::with_all_modes();
        h.climb.as_mut().unwrap().gravity_compensation = comp;
        let id = climber(&mut crowd, &mesh, h);
        let mut found = None;
        for _ in 0..60 * 20 {
            crowd.update(&w, DT).unwrap();
            let a = crowd.agent(id).unwrap();
            if let Some(t) = a.navigator().motor.handler.climb.unwrap().active {
                found = Some((t, a.params().max_speed));
                break;
            }
        }
        let (t, max_speed) = found.expect("the agent climbs");
        let rise = t.end[1] - t.start[1];
        let flat = ((t.end[0] - t.start[0]).powi(2) + (t.end[2] - t.start[2]).powi(2)).sqrt();
        assert_eq!(
            t.duration,
            (rise / (1.5 * comp) + flat / max_speed).max(0.01),
            "compensation {comp}"
        );
        durations.push(t.duration);
    }
    assert!(durations[1] > durations[0]);
}

/// A crowd with a grounded walker, a compensated flyer and a compensated climber.
fn mixed(w: &WorldContext<'_>) -> (Crowd, [AgentId; 3]) {
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let g = walker(&mut crowd, w.mesh, [2.5, 0.0, 4.5], [28.5, 0.0, 6.5]);
    crowd
        .configure_heightmap_grounding(g, snap("terrain", 0.6, 0.05))
        .unwrap();
    let f = flyer(&mut crowd, w, 10.0, 0.7);
    let mut h = LocomotionHandler::with_all_modes();
    h.climb.as_mut().unwrap().gravity_compensation = 0.25;
    let c = crowd
        .add_agent_with(w.mesh, [8.5, 0.0, 28.5], AgentParams::new(0.3), h)
        .unwrap();
    (crowd, [g, f, c])
}

#[test]
fn a_restored_crowd_with_grounding_and_compensated_flyers_steps_on_byte_for_byte() {
    let mesh = flat_mesh();
    let vox = voxels();
    let terrain = slope(0.0);
    let voxel_list = [(VOXELS, &vox)];
    let layers = [("terrain", &terrain)];
    let w = world(&mesh, &voxel_list, &layers);
    let (mut original, ids) = mixed(&w);
    for _ in 0..90 {
        original.update(&w, DT).unwrap();
    }
    let saved = original.save_snapshot();
    let mut restored = Crowd::new(CrowdSettings::default()).unwrap();
    restored.restore_snapshot(&w, &saved).unwrap();
    assert_eq!(restored.save_snapshot(), saved);
    for id in ids {
        let (a, b) = (original.agent(id).unwrap(), restored.agent(id).unwrap());
        let (ga, gb) = (a.navigator().grounding, b.navigator().grounding);
        assert_eq!(ga.mode(), gb.mode());
        assert_eq!(ga.preferred_layer(), gb.preferred_layer());
        assert_eq!(ga.active_layer(), gb.active_layer());
        assert_eq!(ga.ground_offset().to_bits(), gb.ground_offset().to_bits());
        assert_eq!(ga.snap_tolerance().to_bits(), gb.snap_tolerance().to_bits());
        assert_eq!(a.navigator().motor, b.navigator().motor);
    }
    for step in 0..300 {
        original.update(&w, DT).unwrap();
        restored.update(&w, DT).unwrap();
        assert_eq!(
            state_bytes(&original),
            state_bytes(&restored),
            "step {step}"
        );
        for id in ids {
            assert_eq!(
                original.agent(id).unwrap().navigator().grounding,
                restored.agent(id).unwrap().navigator().grounding,
                "step {step}"
            );
        }
        if step % 50 == 49 {
            assert_eq!(original.save_snapshot(), restored.save_snapshot());
        }
    }
}

#[test]
fn a_crowd_without_grounding_or_compensation_writes_no_navigator_extension() {
    let mesh = flat_mesh();
    let w = WorldContext::new(&mesh);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = walker(&mut crowd, &mesh, [2.5, 0.0, 4.5], [20.5, 0.0, 4.5]);
    let plain = crowd.save_snapshot();
    crowd
        .configure_heightmap_grounding(id, snap("terrain", 0.6, 0.0))
        .unwrap();
    let with = crowd.save_snapshot();
    assert_eq!(
        &with[..plain.len()],
        &plain[..],
        "the extension is appended"
    );
    assert_eq!(with[plain.len()], 2, "the navigator extension's tag");
    // Configured back to the defaults: the bytes of before.
    crowd
        .configure_heightmap_grounding(id, HeightmapGrounding::default())
        .unwrap();
    assert_eq!(crowd.save_snapshot(), plain);
    crowd.update(&w, DT).unwrap();
}

#[test]
fn a_restore_with_a_missing_layer_succeeds_and_grounding_fails_cleanly_after_it() {
    let mesh = flat_mesh();
    let terrain = slope(0.0);
    let layers = [("terrain", &terrain)];
    let w = world(&mesh, &[], &layers);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = walker(&mut crowd, &mesh, [2.5, 0.0, 4.5], [20.5, 0.0, 4.5]);
    crowd
        .configure_heightmap_grounding(id, snap("terrain", 0.6, 0.0))
        .unwrap();
    for _ in 0..30 {
        crowd.update(&w, DT).unwrap();
    }
    assert_eq!(
        crowd.agent(id).unwrap().navigator().grounding.status(),
        GroundingStatus::Grounded
    );
    let saved = crowd.save_snapshot();
    let bare = WorldContext::new(&mesh);
    let mut shell = Crowd::new(CrowdSettings::default()).unwrap();
    shell.restore_snapshot(&bare, &saved).unwrap();
    let g = shell.agent(id).unwrap().navigator().grounding;
    assert_eq!(
        g.status(),
        GroundingStatus::Off,
        "derived, rebuilt by the update"
    );
    assert_eq!(g.preferred_layer().unwrap().as_str(), "terrain");
    for _ in 0..60 {
        crowd.update(&bare, DT).unwrap();
        let stats = shell.update(&bare, DT).unwrap();
        assert_eq!(stats.grounding_missing_layers, 1);
        assert_eq!(state_bytes(&crowd), state_bytes(&shell));
    }
    let g = shell.agent(id).unwrap().navigator().grounding;
    assert_eq!(g.status(), GroundingStatus::MissingLayer);
    assert_eq!(g.foot_height(), None);
    // The layer registered again: grounding resumes.
    shell.update(&w, DT).unwrap();
    assert_eq!(
        shell.agent(id).unwrap().navigator().grounding.status(),
        GroundingStatus::Grounded
    );
}

#[test]
fn grounding_and_compensation_records_round_trip_through_json_and_postcard() {
    let mesh = flat_mesh();
    let vox = voxels();
    let terrain = slope(0.0);
    let voxel_list = [(VOXELS, &vox)];
    let layers = [("terrain", &terrain)];
    let w = world(&mesh, &voxel_list, &layers);
    let (mut crowd, [g, f, c]) = mixed(&w);
    for _ in 0..20 {
        crowd.update(&w, DT).unwrap();
    }
    let rec = crowd.save_agent_record(g).unwrap();
    assert_eq!(rec.get("grounding"), Some(&Value::Branch));
    assert_eq!(rec.get("grounding.mode"), Some(&Value::U32(1)));
    assert_eq!(
        rec.get("grounding.preferred_layer"),
        Some(&Value::Text("terrain".into()))
    );
    assert_eq!(
        rec.get("grounding.active_layer"),
        Some(&Value::Text("terrain".into()))
    );
    assert_eq!(rec.get("grounding.snap_tolerance"), Some(&Value::F64(0.6)));
    assert_eq!(rec.get("grounding.ground_offset"), Some(&Value::F64(0.05)));
    let fr = crowd.save_agent_record(f).unwrap();
    assert_eq!(fr.get("grounding"), None, "default grounding is omitted");
    assert_eq!(
        fr.get("motor.handler.fly.gravity_compensation"),
        Some(&Value::F64(0.7))
    );
    assert_eq!(fr.get("motor.handler.climb.gravity_compensation"), None);
    let cr = crowd.save_agent_record(c).unwrap();
    assert_eq!(
        cr.get("motor.handler.climb.gravity_compensation"),
        Some(&Value::F64(0.25))
    );
    for (id, r) in [(g, &rec), (f, &fr), (c, &cr)] {
        let json = onepath_crowd::records::Record::from_json(&r.to_json().unwrap()).unwrap();
        let bin = onepath_crowd::records::Record::from_postcard(&r.to_postcard().unwrap()).unwrap();
        assert_eq!(&json, r);
        assert_eq!(&bin, r);
        // Loaded into a fresh shell of the same agents: the same settings.
        let (mut shell, _) = mixed(&w);
        shell.load_agent_record(&w, id, &bin).unwrap();
        let (a, b) = (crowd.agent(id).unwrap(), shell.agent(id).unwrap());
        assert_eq!(
            a.navigator().grounding.preferred_layer(),
            b.navigator().grounding.preferred_layer()
        );
        assert_eq!(
            a.navigator().grounding.snap_tolerance(),
            b.navigator().grounding.snap_tolerance()
        );
        assert_eq!(
            a.navigator()
                .motor
                .handler
                .fly
                .unwrap()
                .gravity_compensation,
            b.navigator()
                .motor
                .handler
                .fly
                .unwrap()
                .gravity_compensation
        );
        assert_eq!(
            a.navigator()
                .motor
                .handler
                .climb
                .unwrap()
                .gravity_compensation,
            b.navigator()
                .motor
                .handler
                .climb
                .unwrap()
                .gravity_compensation
        );
        assert_eq!(
            shell.save_agent_record(id).unwrap().get("grounding"),
            r.get("grounding")
        );
    }
}

#[test]
fn a_missing_grounding_branch_keeps_the_shells_and_a_partial_one_loads_defaults() {
    let mesh = flat_mesh();
    let w = WorldContext::new(&mesh);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = walker(&mut crowd, &mesh, [2.5, 0.0, 4.5], [20.5, 0.0, 4.5]);
    let mut rec = crowd.save_agent_record(id).unwrap();
    assert_eq!(rec.get("grounding"), None);
    // The shell's grounding stays when the branch is absent.
    let mine = snap("mine", 0.2, 0.3);
    crowd.configure_heightmap_grounding(id, mine).unwrap();
    crowd.load_agent_record(&w, id, &rec).unwrap();
    let g = crowd.agent(id).unwrap().navigator().grounding;
    assert_eq!(g.preferred_layer().unwrap().as_str(), "mine");
    assert_eq!(g.snap_tolerance(), 0.2);
    // A present branch is loaded whole: its missing values take the defaults.
    rec.insert("grounding", Value::Branch);
    rec.insert("grounding.mode", Value::U32(2));
    crowd.load_agent_record(&w, id, &rec).unwrap();
    let g = crowd.agent(id).unwrap().navigator().grounding;
    assert_eq!(g.mode(), GroundingMode::Always);
    assert_eq!(g.preferred_layer(), None);
    assert_eq!(g.active_layer(), None);
    assert_eq!(g.ground_offset(), 0.0);
    assert_eq!(
        g.snap_tolerance(),
        HeightmapGrounding::DEFAULT_SNAP_TOLERANCE
    );
    // An older payload (no compensation values) loads compensation 1.
    let mut h = LocomotionHandler::with_all_modes();
    h.fly.as_mut().unwrap().gravity_compensation = 0.3;
    let other = crowd
        .add_agent_with(&mesh, [6.5, 0.0, 8.5], AgentParams::new(0.4), h)
        .unwrap();
    let mut old = crowd.save_agent_record(other).unwrap();
    old.remove("motor.handler.fly.gravity_compensation");
    crowd.load_agent_record(&w, other, &old).unwrap();
    let fly = crowd
        .agent(other)
        .unwrap()
        .navigator()
        .motor
        .handler
        .fly
        .unwrap();
    assert_eq!(fly.gravity_compensation, 1.0);
}

fn record_error(
    crowd: &mut Crowd,
    w: &WorldContext<'_>,
    id: AgentId,
    path: &str,
    v: Value,
) -> String {
    let mut rec = crowd.save_agent_record(id).unwrap();
    rec.insert("grounding", Value::Branch);
    rec.insert(path, v);
    let before = crowd.agent(id).unwrap().navigator().grounding;
    match crowd.load_agent_record(w, id, &rec) {
        Err(CrowdError::State(FormatError::State { message, .. })) => {
            let a = crowd.agent(id).unwrap();
            assert_eq!(a.navigator().grounding, before, "fail closed: {message}");
            assert!(!a.navigator().steering.should_move);
            message
        }
        other => panic!("{path}: expected a state error, got {other:?}"),
    }
}

#[test]
fn bad_grounding_and_compensation_values_fail_closed_naming_the_field() {
    let mesh = flat_mesh();
    let w = WorldContext::new(&mesh);
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let id = walker(&mut crowd, &mesh, [2.5, 0.0, 4.5], [20.5, 0.0, 4.5]);
    for (path, v, says) in [
        ("grounding.mode", Value::U32(3), "grounding.mode = 3"),
        (
            "grounding.snap_tolerance",
            Value::F64(-1.0),
            "grounding.snap_tolerance = -1",
        ),
        (
            "grounding.ground_offset",
            Value::F64(f64::NAN),
            "grounding.ground_offset = NaN",
        ),
        (
            "grounding.preferred_layer",
            Value::Text(String::new()),
            "grounding.preferred_layer",
        ),
        (
            "grounding.active_layer",
            Value::Text("x".repeat(33)),
            "grounding.active_layer",
        ),
        (
            "grounding.preferred_layer",
            Value::U32(1),
            "grounding.preferred_layer",
        ),
        (
            "motor.handler.fly.gravity_compensation",
            Value::F64(1.5),
            "motor.handler.fly.gravity_compensation = 1.5",
        ),
        (
            "motor.handler.climb.gravity_compensation",
            Value::F64(-0.25),
            "motor.handler.climb.gravity_compensation = -0.25",
        ),
    ] {
        let msg = record_error(&mut crowd, &w, id, path, v);
        assert!(msg.contains(says), "{path}: {msg}");
    }
}

/// The snapshot of [`mixed`] after 40 steps (heightmap registered, so the walker's
/// active layer is set), and the offset of its navigator extension.
fn extension_seed() -> (TiledNavMesh, VoxelGrid, Vec<u8>, usize) {
    let mesh = flat_mesh();
    let vox = voxels();
    let terrain = slope(0.0);
    let bytes = {
        let voxel_list = [(VOXELS, &vox)];
        let layers = [("terrain", &terrain)];
        let w = world(&mesh, &voxel_list, &layers);
        let (mut crowd, _) = mixed(&w);
        for _ in 0..40 {
            crowd.update(&w, DT).unwrap();
        }
        crowd.save_snapshot()
    };
    // The extension: tag, count, then the grounded walker (id, parts, mode, two names of
    // 1 + 1 + 7 bytes, offset, tolerance), the flyer and the climber (id, parts, f64).
    let len = 1 + 4 + (4 + 1 + 1 + 9 + 9 + 16) + (4 + 1 + 8) + (4 + 1 + 8);
    let start = bytes.len() - len;
    (mesh, vox, bytes, start)
}

#[test]
fn mutated_navigator_extensions_never_panic_and_a_failed_restore_changes_nothing() {
    let (mesh, vox, good, start) = extension_seed();
    assert_eq!(good[start], 2, "the extension's tag");
    let voxel_list = [(VOXELS, &vox)];
    let w = world(&mesh, &voxel_list, &[]);
    // Cheap cases (a restore of three agents and three updates); ONEPATH_GROUNDING_CASES
    // raises the count (the CI's PROPTEST_CASES does not reach an explicit runner).
    let cases = std::env::var("ONEPATH_GROUNDING_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let tail = good.len() - start;
    let strategy = (
        proptest::collection::vec((0..tail, 1u8..=255), 1..4),
        proptest::option::of(0..tail),
    );
    runner
        .run(&strategy, |(flips, cut)| {
            let mut bytes = good.clone();
            for (i, b) in flips {
                bytes[start + i] ^= b;
            }
            if let Some(c) = cut {
                bytes.truncate(start + c);
            }
            let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
            crowd.restore_snapshot(&w, &good).unwrap();
            let before = crowd.save_snapshot();
            match crowd.restore_snapshot(&w, &bytes) {
                Err(_) => proptest::prop_assert_eq!(crowd.save_snapshot(), before),
                Ok(_) => {
                    for _ in 0..3 {
                        crowd.update(&w, DT).unwrap();
                    }
                }
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn bad_navigator_extension_bytes_give_typed_errors_naming_the_field() {
    let (mesh, vox, good, start) = extension_seed();
    let voxel_list = [(VOXELS, &vox)];
    let w = world(&mesh, &voxel_list, &[]);
    let check = |edit: &dyn Fn(&mut Vec<u8>), says: &str| {
        let mut bytes = good.clone();
        edit(&mut bytes);
        let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
        crowd.restore_snapshot(&w, &good).unwrap();
        let before = crowd.save_snapshot();
        let err = crowd.restore_snapshot(&w, &bytes).unwrap_err();
        assert!(err.to_string().contains(says), "{says}: {err}");
        assert_eq!(crowd.save_snapshot(), before);
    };
    // tag u8, count u32, then the walker: id u32, parts u8, mode u8, ...
    let entry = start + 5;
    check(&|b| b[start] = 7, "trailing bytes");
    check(
        &|b| b[start + 1..start + 5].copy_from_slice(&0u32.to_le_bytes()),
        "count is 0",
    );
    check(
        &|b| b[start + 1..start + 5].copy_from_slice(&900u32.to_le_bytes()),
        "navigator extension count",
    );
    check(&|b| b[entry] = 99, "agent 99 is not in the snapshot");
    check(&|b| b[entry + 4] = 8, "parts = 0x08");
    check(&|b| b[entry + 5] = 3, "grounding mode = 3");
    check(
        &|b| b[entry + 7] = 0,
        "grounding preferred layer length = 0",
    );
    check(
        &|b| b[entry + 8] = 0xFF,
        "grounding preferred layer is not UTF-8",
    );
    check(&|b| b.truncate(b.len() - 3), "climb gravity compensation");
    let last = good.len() - 8;
    check(
        &|b| b[last..].copy_from_slice(&1.0f64.to_le_bytes()),
        "climb gravity compensation = 1",
    );
    check(
        &|b| b[last..].copy_from_slice(&f64::NAN.to_le_bytes()),
        "climb gravity compensation = NaN",
    );
    check(&|b| b.push(0), "trailing bytes");
}

/// The fuzz target's navigator seed (`fuzz/seeds/crowd_state_reader/oncs_navigator`:
/// selector 0, then an ONCS snapshot with the navigator extension, on the
/// bridge-and-building fixture: a grounded walker, a compensated flyer and climber) must
/// still load; `ONEPATH_WRITE_FUZZ_SEEDS=1` writes it anew.
#[test]
fn the_fuzz_navigator_seed_still_loads() {
    let mesh = onepath_mesh::fixtures::bridge_and_building();
    let w = WorldContext::new(&mesh);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/seeds/crowd_state_reader/oncs_navigator");
    if std::env::var_os("ONEPATH_WRITE_FUZZ_SEEDS").is_some() {
        let mut c = Crowd::new(CrowdSettings::default()).unwrap();
        let g = walker(&mut c, &mesh, [2.0, 0.0, 2.0], [20.0, 0.0, 4.0]);
        c.configure_heightmap_grounding(
            g,
            snap("terrain", 0.6, 0.05)
                .with_active_layer("rock")
                .unwrap(),
        )
        .unwrap();
        let mut h = LocomotionHandler::with_all_modes();
        h.fly.as_mut().unwrap().gravity_compensation = 0.5;
        h.climb.as_mut().unwrap().gravity_compensation = 0.25;
        climber(&mut c, &mesh, h);
        for _ in 0..30 {
            c.update(&w, DT).unwrap();
        }
        let mut bytes = vec![0u8];
        bytes.extend(c.save_snapshot());
        std::fs::write(&path, bytes).unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes[0], 0);
    let mut c = Crowd::new(CrowdSettings::default()).unwrap();
    c.restore_snapshot(&w, &bytes[1..]).unwrap();
    assert_eq!(c.save_snapshot(), &bytes[1..]);
    let a = &c.agents()[0];
    assert_eq!(
        a.navigator().grounding.preferred_layer().unwrap().as_str(),
        "terrain"
    );
    let h = c.agents()[1].navigator().motor.handler;
    assert_eq!(h.fly.unwrap().gravity_compensation, 0.5);
    assert_eq!(h.climb.unwrap().gravity_compensation, 0.25);
}
