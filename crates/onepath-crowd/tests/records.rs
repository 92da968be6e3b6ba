//! Agent records (`docs/agent-records.md`): round trips through JSON and postcard for every
//! record, mid jump, on a platform, swimming, climbing, flying; identical load behaviour
//! through both transports; canonical defaults (omitted on save, loaded when missing);
//! deep branches (absent: the shell's kept); load into a shell; guides re-acquired from
//! the request; fail closed (typed error, agent idle).
//!
//! The transports need the `serde` feature (on in the workspace through the crate's
//! dev-dependency on itself).
#![cfg(feature = "serde")]

mod common;
use common::*;

use onepath_crowd::records::{Record, Value};
use onepath_crowd::{
    AgentId, AgentParams, AgentState, Crowd, CrowdError, CrowdSettings, LocomotionHandler,
    LocomotionKind, PathRequestKind, TargetState, TravelMode,
};
use onepath_format::FormatError;
use onepath_gridstate::Grid;
use onepath_mesh::fixtures::bridge_and_building;
use onepath_mesh::TiledNavMesh;

fn state_bytes(crowd: &Crowd) -> Vec<u8> {
    let mut b = Vec::new();
    crowd.write_state(&mut b);
    b
}

/// A crowd of shells for the agents of `like`: the same ids, each a default agent with
/// only Move and Fall, standing on the ground at (2, 0, 2 + id / 4).
fn shells(mesh: &TiledNavMesh, like: &Crowd) -> Crowd {
    let mut c = Crowd::new(CrowdSettings {
        path_budget: 24,
        ..CrowdSettings::default()
    })
    .unwrap();
    let last = like.agents().last().unwrap().id().0;
    for k in 0..=last {
        let p = [2.0 + f64::from(k % 4), 0.0, 2.0 + f64::from(k / 4) * 0.5];
        c.add_agent(mesh, p, AgentParams::default()).unwrap();
    }
    let keep: Vec<AgentId> = like.agents().iter().map(|a| a.id()).collect();
    for k in 0..=last {
        if !keep.contains(&AgentId(k)) {
            c.remove_agent(AgentId(k)).unwrap();
        }
    }
    c
}

/// The busy crowd after `steps` updates.
fn busy_after(mesh: &TiledNavMesh, grid: &Grid, steps: u32) -> Crowd {
    let grids = [(GRID, grid)];
    let mut c = busy_crowd(mesh, grid);
    for step in 0..steps {
        let p = platform_at(step);
        c.update(&world(mesh, &p, &grids), DT).unwrap();
    }
    c
}

#[test]
fn every_record_round_trips_through_json_and_postcard_and_both_load_the_same() {
    let mesh = bridge_and_building();
    let grid = open_grid();
    let grids = [(GRID, &grid)];
    let (mut jump, mut climb, mut platform, mut swim, mut fly) =
        (false, false, false, false, false);
    for steps in [40u32, 75, 110] {
        let original = busy_after(&mesh, &grid, steps);
        let p = platform_at(steps);
        let w = world(&mesh, &p, &grids);
        let mut by_json = shells(&mesh, &original);
        let mut by_binary = shells(&mesh, &original);
        let mut by_record = shells(&mesh, &original);
        for a in original.agents() {
            let id = a.id();
            let h = &a.navigator().motor.handler;
            jump |= a.state() == AgentState::OffMesh && h.mode == LocomotionKind::Jump;
            climb |= a.state() == AgentState::OffMesh && h.mode == LocomotionKind::Climb;
            platform |= h.platform.is_some_and(|p| p.attached.is_some());
            swim |= h.mode == LocomotionKind::Water;
            fly |= h.fly.is_some_and(|f| f.is_flying);
            let rec = original.save_agent_record(id).unwrap();
            let json = original.save_agent_json(id).unwrap();
            let bin = original.save_agent_postcard(id).unwrap();
            assert_eq!(Record::from_json(&json).unwrap(), rec);
            assert_eq!(Record::from_postcard(&bin).unwrap(), rec);
            by_json.load_agent_json(&w, id, &json).unwrap();
            by_binary.load_agent_postcard(&w, id, &bin).unwrap();
            by_record.load_agent_record(&w, id, &rec).unwrap();
            // The loaded agent saves the same record (guides aside: re-acquired).
            let loaded = by_record.agent(id).unwrap();
            let n = loaded.navigator();
            let o = a.navigator();
            assert_eq!(n.motion, o.motion, "agent {id:?}: motion");
            assert_eq!(n.turning, o.turning, "agent {id:?}: turning");
            let mut want = o.motor;
            if want.handler.mode != LocomotionKind::Fly {
                // A mode not in control holds no transient state.
                if let Some(f) = want.handler.fly.as_mut() {
                    f.is_flying = false;
                }
            }
            assert_eq!(n.motor, want, "agent {id:?}: motor");
            assert_eq!(n.steering.tuning, o.steering.tuning);
            assert_eq!(n.steering.movement_group, o.steering.movement_group);
            assert_eq!(n.steering.travel_mode, o.steering.travel_mode);
            assert_eq!(
                n.steering.request.map(|r| (r.kind, r.target, r.context_id)),
                o.steering.request.map(|r| (r.kind, r.target, r.context_id)),
            );
            assert_eq!(loaded.state(), a.state());
        }
        assert_eq!(by_json.save_snapshot(), by_binary.save_snapshot());
        assert_eq!(by_json.save_snapshot(), by_record.save_snapshot());
        // And they simulate alike, step by step.
        for k in 0..300 {
            let p = platform_at(steps + k);
            let w = world(&mesh, &p, &grids);
            by_json.update(&w, DT).unwrap();
            by_binary.update(&w, DT).unwrap();
            assert_eq!(state_bytes(&by_json), state_bytes(&by_binary), "step {k}");
        }
    }
    assert!(
        jump && climb && platform && swim && fly,
        "{jump} {climb} {platform} {swim} {fly}"
    );
}

#[test]
fn values_equal_to_their_defaults_are_omitted_and_missing_ones_load_the_default() {
    let mesh = bridge_and_building();
    let mut c = Crowd::new(CrowdSettings::default()).unwrap();
    let id = c
        .add_agent(&mesh, [2.0, 0.0, 2.0], AgentParams::default())
        .unwrap();
    let rec = c.save_agent_record(id).unwrap();
    // A fresh default agent: only its position and the branch marks differ from defaults.
    let values: Vec<&str> = rec
        .entries()
        .filter(|(_, v)| !matches!(v, Value::Branch | Value::Bool(false)))
        .map(|(k, _)| k)
        .collect();
    assert_eq!(values, vec!["last_position", "position"], "{rec:?}");
    // A shell whose values are all off their defaults loads the record's defaults, not
    // its own values.
    c.steering_mut(id).unwrap().tuning.braking = 7.0;
    c.turning_mut(id).unwrap().turn_rate = 0.5;
    let world = onepath_crowd::WorldContext::new(&mesh);
    c.load_agent_record(&world, id, &rec).unwrap();
    let n = c.agent(id).unwrap().navigator();
    assert_eq!(n.steering.tuning.braking, 2.0);
    assert_eq!(n.turning.turn_rate, core::f64::consts::TAU);
}

#[test]
fn an_absent_branch_keeps_the_shells_and_a_present_one_loads_whole() {
    let mesh = bridge_and_building();
    let world = onepath_crowd::WorldContext::new(&mesh);
    let mut c = Crowd::new(CrowdSettings::default()).unwrap();
    let id = c
        .add_agent_with(
            &mesh,
            [2.0, 0.0, 2.0],
            AgentParams::default(),
            LocomotionHandler::with_all_modes(),
        )
        .unwrap();
    c.turning_mut(id).unwrap().turn_rate = 0.5;
    c.steering_mut(id).unwrap().tuning.braking = 3.0;
    let mut rec = c.save_agent_record(id).unwrap();
    assert_eq!(rec.get("turning.turn_rate"), Some(&Value::F64(0.5)));
    // The shell changes; the payload lacks the turning branch and the tuning's braking.
    c.turning_mut(id).unwrap().turn_rate = 1.25;
    c.steering_mut(id).unwrap().tuning.braking = 9.0;
    rec.remove("turning");
    rec.remove("steering.tuning.braking");
    rec.remove("motor.handler.water");
    c.load_agent_record(&world, id, &rec).unwrap();
    let n = c.agent(id).unwrap().navigator();
    assert_eq!(n.turning.turn_rate, 1.25, "absent branch: the shell's");
    assert_eq!(n.steering.tuning.braking, 2.0, "missing value: the default");
    assert!(
        n.motor.handler.water.is_some(),
        "installed, branch absent: the shell's mode"
    );
}

#[test]
fn a_payload_of_an_older_field_set_loads_with_defaults_for_the_new_fields() {
    let mesh = bridge_and_building();
    let world = onepath_crowd::WorldContext::new(&mesh);
    let mut c = Crowd::new(CrowdSettings::default()).unwrap();
    let id = c
        .add_agent(&mesh, [2.0, 0.0, 2.0], AgentParams::default())
        .unwrap();
    // Written by hand as an older writer would: a few values, a steering branch without
    // the fields added since (move_velocity, tuning, request).
    let old = r#"{"entries":{
        "position":{"Vec3":[3.0,0.0,2.5]},
        "rotation":{"F64":1.0},
        "steering":"Branch",
        "steering.stuck_count":{"U32":4}
    }}"#;
    c.load_agent_json(&world, id, old).unwrap();
    let a = c.agent(id).unwrap();
    let n = a.navigator();
    assert_eq!(n.motion.rotation, 1.0);
    assert_eq!(n.steering.stuck_count, 4);
    assert_eq!(n.steering.travel_mode, TravelMode::Idle);
    assert!(n.steering.request.is_none());
    assert_eq!(a.target_state(), TargetState::None);
    assert!((a.position()[0] - 3.0).abs() < 1e-9);
    assert_eq!(n.motion.size, [0.6, 2.0]);
}

/// Loads `rec` into agent `id`; it must fail with `want` and leave the agent idle where
/// it stood.
fn assert_fails_closed(
    c: &mut Crowd,
    w: &onepath_crowd::WorldContext<'_>,
    id: AgentId,
    rec: &Record,
    want: impl Fn(&CrowdError) -> bool,
) {
    let before = c.agent(id).unwrap().position();
    let e = c.load_agent_record(w, id, rec).unwrap_err();
    assert!(want(&e), "{e:?}");
    let a = c.agent(id).unwrap();
    assert_eq!(a.position(), before);
    assert_eq!(a.target_state(), TargetState::None);
    assert!(a.navigator().steering.request.is_none());
    assert!(!a.navigator().steering.should_move);
}

#[test]
fn unknown_context_ids_invalid_requests_and_bad_numbers_fail_closed() {
    let mesh = bridge_and_building();
    let grid = open_grid();
    let grids = [(GRID, &grid)];
    let original = busy_after(&mesh, &grid, 40);
    let p = platform_at(40);
    let w = world(&mesh, &p, &grids);
    let rider = original
        .agents()
        .iter()
        .find(|a| {
            a.navigator()
                .motor
                .handler
                .platform
                .is_some_and(|p| p.attached.is_some())
        })
        .unwrap()
        .id();
    let walker = original
        .agents()
        .iter()
        .find(|a| {
            a.navigator()
                .steering
                .request
                .is_some_and(|r| r.kind == PathRequestKind::GridAStar)
        })
        .unwrap()
        .id();
    let navmesh = original
        .agents()
        .iter()
        .find(|a| {
            a.state() == AgentState::Walking
                && a.navigator()
                    .steering
                    .request
                    .is_some_and(|r| r.kind == PathRequestKind::NavMesh)
        })
        .unwrap()
        .id();
    let mut c = shells(&mesh, &original);
    let ready = |c: &mut Crowd, id| {
        c.request_move_velocity(id, [0.5, 0.0, 0.0]).unwrap();
        original.save_agent_record(id).unwrap()
    };
    // A platform the world lacks.
    let rec = ready(&mut c, rider);
    let no_platform = world(&mesh, &[], &grids);
    assert_fails_closed(&mut c, &no_platform, rider, &rec, |e| {
        *e == CrowdError::UnknownContext {
            agent: rider,
            what: "platform",
            id: PLATFORM,
        }
    });
    // A grid the world lacks.
    let rec = ready(&mut c, walker);
    let no_grid = world(&mesh, &p, &[]);
    assert_fails_closed(&mut c, &no_grid, walker, &rec, |e| {
        matches!(
            e,
            CrowdError::UnknownContext {
                what: "grid",
                id: GRID,
                ..
            }
        )
    });
    // A mesh id other than the world's one mesh.
    let mut rec = ready(&mut c, navmesh);
    rec.insert("steering.request.context_id", Value::U32(5));
    assert_fails_closed(&mut c, &w, navmesh, &rec, |e| {
        matches!(
            e,
            CrowdError::UnknownContext {
                what: "mesh",
                id: 5,
                ..
            }
        )
    });
    // An invalid request: a kind code out of range, a flow field on a grid the world lacks.
    let mut rec = ready(&mut c, navmesh);
    rec.insert("steering.request.kind", Value::U32(9));
    assert_fails_closed(&mut c, &w, navmesh, &rec, |e| {
        matches!(e, CrowdError::State(FormatError::State { message, .. })
            if message.starts_with("steering.request.kind = 9"))
    });
    let mut rec = ready(&mut c, navmesh);
    rec.insert("steering.request.kind", Value::U32(2));
    assert_fails_closed(&mut c, &w, navmesh, &rec, |e| {
        matches!(
            e,
            CrowdError::UnknownContext {
                what: "grid",
                id: 0,
                ..
            }
        )
    });
    // Out-of-range numbers: NaN, a negative radius, a wrong type.
    for (path, v, says) in [
        ("radius", Value::F64(f64::NAN), "radius = NaN is not finite"),
        ("radius", Value::F64(-1.0), "radius = -1 must be > 0"),
        (
            "motor.handler.fall.gravity",
            Value::F64(f64::INFINITY),
            "motor.handler.fall.gravity = inf",
        ),
        (
            "steering.stuck_count",
            Value::F64(1.0),
            "steering.stuck_count holds F64(1.0), not a u32",
        ),
    ] {
        let mut rec = ready(&mut c, navmesh);
        rec.insert(path, v);
        assert_fails_closed(&mut c, &w, navmesh, &rec, |e| {
            matches!(e, CrowdError::State(FormatError::State { format: "agent record", message })
                if message.starts_with(says))
        });
    }
    // Loading never creates an agent.
    let rec = original.save_agent_record(navmesh).unwrap();
    assert_eq!(
        c.load_agent_record(&w, AgentId(9999), &rec),
        Err(CrowdError::UnknownAgent(AgentId(9999)))
    );
}

#[test]
fn a_disabled_mode_clears_its_transient_state_on_load() {
    let mesh = bridge_and_building();
    let world = onepath_crowd::WorldContext::new(&mesh);
    let mut c = Crowd::new(CrowdSettings::default()).unwrap();
    let id = c
        .add_agent_with(
            &mesh,
            [2.0, 0.0, 2.0],
            AgentParams::default(),
            LocomotionHandler::with_all_modes(),
        )
        .unwrap();
    let mut rec = c.save_agent_record(id).unwrap();
    // Stale transient state of modes not in control (the mode is Move).
    rec.insert("motor.handler.jump.active", Value::Branch);
    rec.insert("motor.handler.jump.active.duration", Value::F64(1.0));
    rec.insert("motor.handler.water.swim_time", Value::F64(3.0));
    rec.insert("motor.handler.slide.is_sliding", Value::Bool(true));
    rec.insert("motor.handler.fly.is_flying", Value::Bool(true));
    c.load_agent_record(&world, id, &rec).unwrap();
    let h = c.agent(id).unwrap().navigator().motor.handler;
    assert_eq!(h.mode, LocomotionKind::Move);
    assert!(h.jump.unwrap().active.is_none());
    assert_eq!(h.water.unwrap().swim_time, 0.0);
    assert!(!h.slide.unwrap().is_sliding);
    assert!(!h.fly.unwrap().is_flying);
    // In control, the same state is kept.
    rec.insert("motor.handler.mode", Value::U32(LocomotionKind::Fly as u32));
    c.load_agent_record(&world, id, &rec).unwrap();
    assert!(
        c.agent(id)
            .unwrap()
            .navigator()
            .motor
            .handler
            .fly
            .unwrap()
            .is_flying
    );
}

#[test]
fn guides_are_reacquired_from_the_request_not_read() {
    let mesh = bridge_and_building();
    let grid = open_grid();
    let grids = [(GRID, &grid)];
    let original = busy_after(&mesh, &grid, 75);
    let p = platform_at(75);
    let w = world(&mesh, &p, &grids);
    let mut c = shells(&mesh, &original);
    for a in original.agents() {
        c.load_agent_record(&w, a.id(), &original.save_agent_record(a.id()).unwrap())
            .unwrap();
    }
    // Navmesh walkers: a corridor to their target at once.
    for a in original.agents() {
        let loaded = c.agent(a.id()).unwrap();
        let req = a.navigator().steering.request;
        if a.state() == AgentState::Walking
            && a.target_state() == TargetState::Valid
            && req.is_some_and(|r| r.kind == PathRequestKind::NavMesh)
        {
            assert_eq!(loaded.corridor().last_poly(), a.corridor().last_poly());
        }
    }
    let walker = original
        .agents()
        .iter()
        .find(|a| {
            a.navigator()
                .steering
                .request
                .is_some_and(|r| r.kind == PathRequestKind::GridAStar && r.guide_active)
        })
        .unwrap();
    let progress = walker.navigator().steering.request.unwrap().waypoint_index;
    assert!(progress > 1, "the walker is under way: {progress}");
    // The grid guide is requested again (from the request's origin cell) and resumes its
    // waypoint progress when the path arrives.
    assert_eq!(
        c.agent(walker.id()).unwrap().target_state(),
        TargetState::Requesting
    );
    for k in 0..30 {
        let p = platform_at(75 + k);
        c.update(&world(&mesh, &p, &grids), DT).unwrap();
        if c.agent(walker.id()).unwrap().target_state() == TargetState::Valid {
            break;
        }
    }
    let r = c
        .agent(walker.id())
        .unwrap()
        .navigator()
        .steering
        .request
        .unwrap();
    assert_eq!(
        c.agent(walker.id()).unwrap().target_state(),
        TargetState::Valid
    );
    assert!(
        r.waypoint_index >= progress,
        "{} < {progress}",
        r.waypoint_index
    );
}

fn mutation_cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// A mid-history agent record (the jumper's, in postcard form) and the crowd it loads into.
fn binary_seed() -> (TiledNavMesh, Vec<u8>) {
    let mesh = bridge_and_building();
    let mut c = Crowd::new(CrowdSettings::default()).unwrap();
    let id = c
        .add_agent_with(
            &mesh,
            [10.0, 3.5, 24.0],
            AgentParams::new(0.3),
            LocomotionHandler::with_all_modes(),
        )
        .unwrap();
    target(&mut c, &mesh, id, [1.0, 0.0, 24.0]);
    // Grounding settings: the record carries the `grounding` branch and its names.
    let g = onepath_crowd::HeightmapGrounding::new(onepath_crowd::GroundingMode::Snap)
        .with_preferred_layer("terrain")
        .unwrap()
        .with_active_layer("rock")
        .unwrap()
        .with_ground_offset(0.1)
        .unwrap();
    c.configure_heightmap_grounding(id, g).unwrap();
    let w = onepath_crowd::WorldContext::new(&mesh);
    for _ in 0..200 {
        c.update(&w, DT).unwrap();
        if c.agent(id).unwrap().state() == AgentState::OffMesh {
            break;
        }
    }
    let bytes = c.save_agent_postcard(id).unwrap();
    (mesh, bytes)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(mutation_cases()))]

    #[test]
    fn mutated_binary_records_never_panic_and_a_failed_load_leaves_the_agent_idle(
        flips in proptest::collection::vec((0usize..4096, 1u8..=255), 1..4),
        cut in proptest::option::of(0usize..4096),
    ) {
        thread_local! {
            static SEED: (TiledNavMesh, Vec<u8>) = binary_seed();
        }
        SEED.with(|(mesh, good)| {
            let mut bytes = good.clone();
            for &(i, b) in &flips {
                let n = bytes.len();
                bytes[i % n] ^= b;
            }
            if let Some(k) = cut {
                let n = bytes.len();
                bytes.truncate(k % n);
            }
            let w = onepath_crowd::WorldContext::new(mesh);
            let mut c = Crowd::new(CrowdSettings::default()).unwrap();
            let id = c
                .add_agent_with(mesh, [2.0, 0.0, 2.0], AgentParams::default(), LocomotionHandler::with_all_modes())
                .unwrap();
            let before = c.agent(id).unwrap().position();
            match c.load_agent_postcard(&w, id, &bytes) {
                Ok(()) => {
                    for _ in 0..3 {
                        c.update(&w, DT).unwrap();
                    }
                }
                Err(_) => {
                    let a = c.agent(id).unwrap();
                    proptest::prop_assert_eq!(a.position(), before);
                    proptest::prop_assert_eq!(a.target_state(), TargetState::None);
                }
            }
            Ok(())
        })?;
    }
}

fn any_value() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let num = prop_oneof![
        4 => -50.0f64..50.0,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(-1.0e300),
        1 => Just(0.0),
        1 => Just(3.0e6),
    ];
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        prop_oneof![0u32..10, Just(u32::MAX), any::<u32>()].prop_map(Value::U32),
        any::<u64>().prop_map(Value::U64),
        num.clone().prop_map(Value::F64),
        (num.clone(), num.clone(), num).prop_map(|(x, y, z)| Value::Vec3([x, y, z])),
        Just(Value::Branch),
        prop_oneof![
            Just(String::new()),
            "[a-z]{1,40}",
            Just("\u{e9}".repeat(17))
        ]
        .prop_map(Value::Text),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(mutation_cases()))]

    #[test]
    fn records_with_hostile_values_never_panic_and_fail_closed(
        edits in proptest::collection::vec((0usize..64, proptest::option::of(any_value())), 1..6),
    ) {
        thread_local! {
            static SEED: (TiledNavMesh, Vec<u8>) = binary_seed();
        }
        SEED.with(|(mesh, good)| {
            let mut rec = Record::from_postcard(good).unwrap();
            let paths: Vec<String> = rec.entries().map(|(k, _)| k.to_string()).collect();
            for (i, v) in &edits {
                let path = &paths[i % paths.len()];
                match v {
                    Some(v) => rec.insert(path.clone(), v.clone()),
                    None => rec.remove(path),
                }
            }
            let w = onepath_crowd::WorldContext::new(mesh);
            let mut c = Crowd::new(CrowdSettings::default()).unwrap();
            let id = c
                .add_agent_with(mesh, [2.0, 0.0, 2.0], AgentParams::default(), LocomotionHandler::with_all_modes())
                .unwrap();
            let before = c.agent(id).unwrap().position();
            match c.load_agent_record(&w, id, &rec) {
                Ok(()) => {}
                Err(_) => {
                    let a = c.agent(id).unwrap();
                    proptest::prop_assert_eq!(a.position(), before);
                    proptest::prop_assert_eq!(a.target_state(), TargetState::None);
                }
            }
            for _ in 0..3 {
                c.update(&w, DT).unwrap();
            }
            Ok(())
        })?;
    }
}

/// The fuzz target's seeds (`fuzz/seeds/crowd_state_reader/`: a selector byte, then an
/// ONCS snapshot or a postcard agent record of the bridge-and-building crowd) must still
/// load; `ONEPATH_WRITE_FUZZ_SEEDS=1` writes them anew.
#[test]
fn fuzz_seeds_still_load() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/seeds/crowd_state_reader");
    let mesh = bridge_and_building();
    let w = onepath_crowd::WorldContext::new(&mesh);
    let make = || {
        let mut c = Crowd::new(CrowdSettings::default()).unwrap();
        for p in [[2.0, 0.0, 2.0], [10.0, 3.5, 24.0], [24.0, 0.0, 14.0]] {
            c.add_agent_with(
                &mesh,
                p,
                AgentParams::new(0.3),
                LocomotionHandler::with_all_modes(),
            )
            .unwrap();
        }
        c
    };
    if std::env::var_os("ONEPATH_WRITE_FUZZ_SEEDS").is_some() {
        let mut c = make();
        let id = AgentId(1);
        target(&mut c, &mesh, id, [1.0, 0.0, 24.0]);
        target(&mut c, &mesh, AgentId(2), [27.0, 3.0, 8.0]);
        for _ in 0..90 {
            c.update(&w, DT).unwrap();
        }
        std::fs::create_dir_all(&dir).unwrap();
        let mut oncs = vec![0u8];
        oncs.extend(c.save_snapshot());
        std::fs::write(dir.join("oncs"), oncs).unwrap();
        let mut rec = vec![1u8];
        rec.extend(c.save_agent_postcard(id).unwrap());
        std::fs::write(dir.join("record"), rec).unwrap();
    }
    let oncs = std::fs::read(dir.join("oncs")).unwrap();
    let rec = std::fs::read(dir.join("record")).unwrap();
    let mut c = make();
    assert_eq!(oncs[0], 0);
    c.restore_snapshot(&w, &oncs[1..]).unwrap();
    let first = c.agents()[0].id();
    assert_eq!(rec[0], 1);
    let mut shell = make();
    shell.load_agent_postcard(&w, first, &rec[1..]).unwrap();
}
