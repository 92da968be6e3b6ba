//! The canonical crowd snapshot (ONCS, `docs/agent-records.md`): a restored crowd continues
//! bit for bit as the crowd that never left (300 steps, taken mid jump, climb, drop, on a
//! platform, swimming, flying, grid-guided, with searches in progress); the same state
//! gives the same bytes; hostile bytes never panic and a failed restore changes nothing;
//! a corridor made stale by the mesh replans after the restore.

use onepath_crowd::{
    AgentId, AgentParams, AgentState, Crowd, CrowdError, CrowdSettings, GroundingMode,
    HeightmapGrounding, LocomotionHandler, LocomotionKind, PathRequestKind, WorldContext,
};
use onepath_format::FormatError;
use onepath_mesh::fixtures::{bridge_and_building, bridge_and_building_tiles};
use onepath_mesh::query::{generated_grid_mesh, NavMeshQuery, QueryFilter};
use onepath_mesh::TiledNavMesh;
use proptest::prelude::*;

mod common;
use common::*;

/// What a checkpoint's state covers.
#[derive(Debug, Default, Clone, Copy)]
struct Seen {
    jump: bool,
    climb: bool,
    drop: bool,
    platform: bool,
    swim: bool,
    fly: bool,
    grid: bool,
    searching: bool,
}

fn seen(crowd: &Crowd) -> Seen {
    let mut s = Seen {
        searching: !crowd.paths_idle(),
        ..Seen::default()
    };
    for a in crowd.agents() {
        let h = &a.navigator().motor.handler;
        s.jump |= a.state() == AgentState::OffMesh && h.mode == LocomotionKind::Jump;
        s.climb |= a.state() == AgentState::OffMesh && h.mode == LocomotionKind::Climb;
        s.drop |= a.state() == AgentState::Falling && h.fall.fall_end.is_some();
        s.platform |= h.platform.is_some_and(|p| p.attached.is_some());
        s.swim |= h.mode == LocomotionKind::Water;
        s.fly |= h.fly.is_some_and(|f| f.is_flying);
        s.grid |= a
            .navigator()
            .steering
            .request
            .is_some_and(|r| r.kind == PathRequestKind::GridAStar && r.guide_active);
    }
    s
}

fn state_bytes(crowd: &Crowd) -> Vec<u8> {
    let mut b = Vec::new();
    crowd.write_state(&mut b);
    b
}

#[test]
fn a_restored_crowd_continues_byte_identically_for_300_steps() {
    let mesh = bridge_and_building();
    let grid = open_grid();
    let grids = [(GRID, &grid)];
    let mut covered = Seen::default();
    for checkpoint in [40u32, 75, 110, 150] {
        // The crowd that never leaves: its history up to the checkpoint.
        let mut original = busy_crowd(&mesh, &grid);
        let mut rng = 0x00C0_FFEE_u64;
        for step in 0..checkpoint {
            if step + 1 == checkpoint {
                // New targets just before the checkpoint: searches are under way at it.
                let ids: Vec<AgentId> = original.agents().iter().take(16).map(|a| a.id()).collect();
                for id in ids {
                    let t = ground_point(&mut rng);
                    if let Some(n) = NavMeshQuery::new()
                        .find_nearest_poly(&mesh, t, [1.0, 2.0, 1.0], &QueryFilter::new())
                        .unwrap()
                    {
                        original.request_move_target(id, n.poly, n.point).unwrap();
                    }
                }
                // The grid walker plans again: its grid search runs over several updates.
                let p = platform_at(step);
                let walker = original.agents().last().unwrap().id();
                let from = original.agents().last().unwrap().position();
                let mut r = grid_request();
                r.origin = from;
                original
                    .request_path(&world(&mesh, &p, &grids), walker, r)
                    .unwrap();
            }
            let p = platform_at(step);
            original.update(&world(&mesh, &p, &grids), DT).unwrap();
        }
        let s = seen(&original);
        covered = Seen {
            jump: covered.jump | s.jump,
            climb: covered.climb | s.climb,
            drop: covered.drop | s.drop,
            platform: covered.platform | s.platform,
            swim: covered.swim | s.swim,
            fly: covered.fly | s.fly,
            grid: covered.grid | s.grid,
            searching: covered.searching | s.searching,
        };
        let saved = original.save_snapshot();
        // The shell: a crowd of other settings and agents; the restore replaces them.
        let mut restored = Crowd::new(CrowdSettings::default()).unwrap();
        restored
            .add_agent(&mesh, [2.0, 0.0, 2.0], AgentParams::new(0.5))
            .unwrap();
        let p = platform_at(checkpoint);
        let stale = restored
            .restore_snapshot(&world(&mesh, &p, &grids), &saved)
            .unwrap();
        assert_eq!(stale, 0, "nothing is stale on the same mesh");
        assert_eq!(restored.save_snapshot(), saved, "checkpoint {checkpoint}");
        for k in 0..300u32 {
            let p = platform_at(checkpoint + k);
            let w = world(&mesh, &p, &grids);
            let sa = original.update(&w, DT).unwrap();
            let sb = restored.update(&w, DT).unwrap();
            assert_eq!(sa, sb, "checkpoint {checkpoint}, step {k}: stats");
            assert_eq!(
                state_bytes(&original),
                state_bytes(&restored),
                "checkpoint {checkpoint}, step {k}: state"
            );
            if k % 50 == 49 {
                assert_eq!(
                    original.save_snapshot(),
                    restored.save_snapshot(),
                    "checkpoint {checkpoint}, step {k}: snapshot"
                );
            }
        }
    }
    assert!(
        covered.jump
            && covered.climb
            && covered.drop
            && covered.platform
            && covered.swim
            && covered.fly
            && covered.grid
            && covered.searching,
        "the checkpoints must catch every traversal: {covered:?}"
    );
}

#[test]
fn a_crowd_restored_mid_search_continues_byte_identically() {
    // A larger generated mesh and a budget of 3 iterations per update: the sliced searches
    // of the queue run over many updates, and the snapshot holds one in progress.
    let g = generated_grid_mesh(3, 3, 8, 5);
    let mesh = &g.mesh;
    let w = WorldContext::new(mesh);
    let mut original = Crowd::new(CrowdSettings {
        path_budget: 3,
        ..CrowdSettings::default()
    })
    .unwrap();
    let mut rng = 99u64;
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    // The mesh covers x and z 0..48 at y 0.
    let point = |rng: &mut u64| {
        let u = (splitmix(rng) >> 11) as f64 / (1u64 << 53) as f64;
        let v = (splitmix(rng) >> 11) as f64 / (1u64 << 53) as f64;
        [0.5 + u * 47.0, 0.0, 0.5 + v * 47.0]
    };
    let mut tries = 0;
    while original.agents().len() < 12 && tries < 1000 {
        tries += 1;
        let p = point(&mut rng);
        let Some(n) = q.find_nearest_poly(mesh, p, [1.0, 4.0, 1.0], &f).unwrap() else {
            continue;
        };
        let Ok(id) = original.add_agent(mesh, n.point, AgentParams::new(0.3)) else {
            continue;
        };
        let t = point(&mut rng);
        if let Some(n) = q.find_nearest_poly(mesh, t, [1.0, 4.0, 1.0], &f).unwrap() {
            original.request_move_target(id, n.poly, n.point).unwrap();
        }
    }
    original.update(&w, DT).unwrap();
    original.update(&w, DT).unwrap();
    assert!(!original.paths_idle(), "a search is under way");
    let saved = original.save_snapshot();
    let mut restored = Crowd::new(CrowdSettings::default()).unwrap();
    restored.restore_snapshot(&w, &saved).unwrap();
    for k in 0..300 {
        let sa = original.update(&w, DT).unwrap();
        let sb = restored.update(&w, DT).unwrap();
        assert_eq!(sa, sb, "step {k}");
        assert_eq!(state_bytes(&original), state_bytes(&restored), "step {k}");
    }
    assert_eq!(original.save_snapshot(), restored.save_snapshot());
}

fn assert_rejected_and_untouched(
    crowd: &mut Crowd,
    w: &WorldContext<'_>,
    bytes: &[u8],
) -> CrowdError {
    let before = crowd.save_snapshot();
    let state = state_bytes(crowd);
    let e = crowd.restore_snapshot(w, bytes).unwrap_err();
    assert_eq!(crowd.save_snapshot(), before, "{e}");
    assert_eq!(state_bytes(crowd), state, "{e}");
    e
}

/// The offset of the first agent's radius: header 8, settings 40, cell 8, next id 4,
/// count 4, agent id 4.
const FIRST_RADIUS: usize = 8 + 40 + 8 + 4 + 4 + 4;

#[test]
fn bad_bytes_give_typed_errors_naming_the_field_and_the_agent_and_change_nothing() {
    let mesh = bridge_and_building();
    let grid = open_grid();
    let grids = [(GRID, &grid)];
    let p = platform_at(0);
    let w = world(&mesh, &p, &grids);
    let source = busy_crowd(&mesh, &grid);
    let good = source.save_snapshot();
    let mut crowd = busy_crowd(&mesh, &grid);
    crowd.update(&w, DT).unwrap();
    // Magic.
    let mut b = good.clone();
    b[0] = b'X';
    assert!(matches!(
        assert_rejected_and_untouched(&mut crowd, &w, &b),
        CrowdError::State(FormatError::Malformed { ref at, .. }) if at == "ONCS magic"
    ));
    // Version.
    let mut b = good.clone();
    b[4] = 9;
    assert!(matches!(
        assert_rejected_and_untouched(&mut crowd, &w, &b),
        CrowdError::State(FormatError::Version {
            what: "ONCS",
            found: 9,
            expected: 1
        })
    ));
    // A negative radius, then NaN: the first agent named.
    let id0 = source.agents()[0].id().0;
    for bad in [-1.0f64, f64::NAN] {
        let mut b = good.clone();
        b[FIRST_RADIUS..FIRST_RADIUS + 8].copy_from_slice(&bad.to_le_bytes());
        match assert_rejected_and_untouched(&mut crowd, &w, &b) {
            CrowdError::State(FormatError::State {
                format: "crowd",
                message,
            }) => {
                assert!(
                    message.starts_with(&format!("agent {id0}: ")) && message.contains("radius = "),
                    "{message}"
                );
            }
            e => panic!("{e:?}"),
        }
    }
    // Truncated anywhere: a malformed field, never a panic.
    for cut in [10, 60, 200, good.len() / 2, good.len() - 1] {
        assert!(matches!(
            assert_rejected_and_untouched(&mut crowd, &w, &good[..cut]),
            CrowdError::State(FormatError::Malformed { .. } | FormatError::State { .. })
        ));
    }
    // Trailing bytes.
    let mut b = good.clone();
    b.push(0);
    assert!(matches!(
        assert_rejected_and_untouched(&mut crowd, &w, &b),
        CrowdError::State(FormatError::Malformed { ref at, .. }) if at == "ONCS"
    ));
    // An agent count the bytes cannot back is refused before allocating.
    let mut b = good.clone();
    b[60..64].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        assert_rejected_and_untouched(&mut crowd, &w, &b),
        CrowdError::State(FormatError::Malformed { ref at, .. }) if at == "agent count"
    ));
}

#[test]
fn a_snapshot_naming_a_platform_or_grid_the_world_lacks_fails_closed() {
    let mesh = bridge_and_building();
    let grid = open_grid();
    let grids = [(GRID, &grid)];
    let p = platform_at(0);
    let source = busy_crowd(&mesh, &grid);
    let good = source.save_snapshot();
    let mut crowd = busy_crowd(&mesh, &grid);
    let rider = source
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
    let no_platform = world(&mesh, &[], &grids);
    assert_eq!(
        assert_rejected_and_untouched(&mut crowd, &no_platform, &good),
        CrowdError::UnknownContext {
            agent: rider,
            what: "platform",
            id: PLATFORM
        }
    );
    let no_grid = world(&mesh, &p, &[]);
    assert!(matches!(
        assert_rejected_and_untouched(&mut crowd, &no_grid, &good),
        CrowdError::UnknownContext {
            what: "grid",
            id: GRID,
            ..
        }
    ));
}

#[test]
fn a_corridor_made_stale_by_the_mesh_replans_after_the_restore() {
    let mut mesh = bridge_and_building();
    let grid = open_grid();
    let grids = [(GRID, &grid)];
    let mut crowd = busy_crowd(&mesh, &grid);
    for step in 0..30 {
        let p = platform_at(step);
        crowd.update(&world(&mesh, &p, &grids), DT).unwrap();
    }
    let saved = crowd.save_snapshot();
    // The road tile under the bridge is rebuilt: every reference into it is stale.
    let tiles = bridge_and_building_tiles().unwrap();
    mesh.replace_tile(tiles[1].clone()).unwrap();
    let p = platform_at(30);
    let w = world(&mesh, &p, &grids);
    let mut restored = Crowd::new(CrowdSettings::default()).unwrap();
    let stale = restored.restore_snapshot(&w, &saved).unwrap();
    assert!(stale > 0, "some corridor ran through the rebuilt tile");
    // The restore keeps the corridors as saved; the update's rule (the first
    // CHECK_LOOKAHEAD polygons) trims and replans them.
    let repaths = |c: &Crowd| -> Vec<u32> {
        c.agents()
            .iter()
            .map(|a| a.navigator().steering.repath_count)
            .collect()
    };
    let before = repaths(&restored);
    restored.update(&w, DT).unwrap();
    let after = repaths(&restored);
    assert!(
        before.iter().zip(&after).any(|(b, a)| a > b),
        "a corridor through the rebuilt tile planned again"
    );
    for step in 0..600 {
        let p = platform_at(30 + step);
        restored.update(&world(&mesh, &p, &grids), DT).unwrap();
    }
    for a in restored.agents() {
        assert!(a
            .corridor()
            .path()
            .iter()
            .all(|&r| mesh.is_valid_poly_ref(r) || a.state() != AgentState::Walking));
    }
}

fn mutation_cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Truncate(usize),
    Insert(usize, u8),
    Remove(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), 1..=255u8).prop_map(|(i, b)| Mutation::Flip(i, b)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        1 => (any::<usize>(), 1..16usize).prop_map(|(i, k)| Mutation::Remove(i, k)),
    ]
}

fn mutate(bytes: &mut Vec<u8>, m: &Mutation) {
    let n = bytes.len();
    if n == 0 {
        return;
    }
    match *m {
        Mutation::Flip(i, b) => bytes[i % n] ^= b,
        Mutation::Truncate(i) => bytes.truncate(i % n),
        Mutation::Insert(i, b) => bytes.insert(i % n, b),
        Mutation::Remove(i, k) => {
            let i = i % n;
            bytes.drain(i..(i + k).min(n));
        }
    }
}

/// A small crowd mid-history (a jump in progress, searches queued, one agent with heightmap
/// grounding, compensated flyers and climbers: the navigator extension) and its snapshot.
fn small_seed() -> (TiledNavMesh, Vec<u8>) {
    let mesh = bridge_and_building();
    let mut crowd = Crowd::new(CrowdSettings {
        path_budget: 8,
        ..CrowdSettings::default()
    })
    .unwrap();
    let mut rng = 7u64;
    for k in 0..2 {
        let p = [9.0 + 1.5 * f64::from(k), 3.5, 22.0];
        // Compensated flight and climbing: the snapshot carries the navigator extension.
        let mut h = LocomotionHandler::with_all_modes();
        h.fly.as_mut().unwrap().gravity_compensation = 0.5;
        h.climb.as_mut().unwrap().gravity_compensation = 0.75;
        let id = crowd
            .add_agent_with(&mesh, p, AgentParams::new(0.3), h)
            .unwrap();
        target(&mut crowd, &mesh, id, [1.0, 0.0, 24.0]);
    }
    let grounding = HeightmapGrounding::new(GroundingMode::Snap)
        .with_preferred_layer("terrain")
        .unwrap()
        .with_active_layer("fallback")
        .unwrap();
    crowd
        .configure_heightmap_grounding(AgentId(0), grounding)
        .unwrap();
    while crowd.agents().len() < 5 {
        let p = ground_point(&mut rng);
        if let Ok(id) = crowd.add_agent(&mesh, p, AgentParams::new(0.3)) {
            let t = ground_point(&mut rng);
            if let Some(n) = NavMeshQuery::new()
                .find_nearest_poly(&mesh, t, [1.0, 2.0, 1.0], &QueryFilter::new())
                .unwrap()
            {
                crowd.request_move_target(id, n.poly, n.point).unwrap();
            }
        }
    }
    for _ in 0..40 {
        crowd.update(&WorldContext::new(&mesh), DT).unwrap();
    }
    let bytes = crowd.save_snapshot();
    // The seed carries the navigator extension (the grounding and the compensations).
    let mut check = Crowd::new(CrowdSettings::default()).unwrap();
    check
        .restore_snapshot(&WorldContext::new(&mesh), &bytes)
        .unwrap();
    let g = check.agent(AgentId(0)).unwrap().navigator().grounding;
    assert_eq!(g.preferred_layer().unwrap().as_str(), "terrain");
    let fly = check
        .agent(AgentId(0))
        .unwrap()
        .navigator()
        .motor
        .handler
        .fly;
    assert_eq!(fly.unwrap().gravity_compensation, 0.5);
    (mesh, bytes)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(mutation_cases()))]

    #[test]
    fn mutated_snapshot_bytes_never_panic_and_a_failed_restore_changes_nothing(
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        thread_local! {
            static SEED: (TiledNavMesh, Vec<u8>) = small_seed();
        }
        SEED.with(|(mesh, good)| {
            let mut bytes = good.clone();
            for m in &mutations {
                mutate(&mut bytes, m);
            }
            let w = WorldContext::new(mesh);
            let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
            crowd.restore_snapshot(&w, good).unwrap();
            let before = crowd.save_snapshot();
            match crowd.restore_snapshot(&w, &bytes) {
                Err(_) => prop_assert_eq!(crowd.save_snapshot(), before),
                Ok(_) => {
                    // Whatever was accepted keeps running.
                    for _ in 0..3 {
                        crowd.update(&w, DT).unwrap();
                    }
                }
            }
            Ok(())
        })?;
    }
}
