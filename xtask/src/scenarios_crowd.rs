//! The hash-matrix scenario `crowd/steps`: a crowd of 64 agents on the bridge-and-building
//! fixture stepped 300 times at 1/60 s, every agent's state hashed at every step.

use onepath_crowd::{
    AgentParams, AgentState, Crowd, CrowdSettings, LocomotionHandler, WorldContext,
};
use onepath_mesh::fixtures::{bridge_and_building, bridge_and_building_tiles};
use onepath_mesh::query::{NavMeshQuery, QueryFilter};
use onepath_mesh::TiledNavMesh;

use crate::hash_matrix::Recorder;

/// SplitMix64 (the scenario's seeded stream of targets).
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A ground point in the fixture's outdoor area (x 0..48, z 0..32, off the ramps and
/// the building).
fn ground_point(rng: &mut u64) -> [f64; 3] {
    let u = (splitmix(rng) >> 11) as f64 / (1u64 << 53) as f64;
    let v = (splitmix(rng) >> 11) as f64 / (1u64 << 53) as f64;
    [0.5 + u * 47.0, 0.0, 0.5 + v * 31.0]
}

/// Targets every agent at a point of the stream (placed on the mesh); agents on the
/// building's upper floor head for the ground west of it, over the jump link.
fn retarget(crowd: &mut Crowd, mesh: &TiledNavMesh, rng: &mut u64) -> Result<(), String> {
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let ids: Vec<_> = crowd
        .agents()
        .iter()
        .map(|a| (a.id(), a.position()))
        .collect();
    for (id, pos) in ids {
        let p = if pos[1] > 3.0 && pos[0] < 16.0 && pos[2] > 20.0 {
            [1.0, 0.0, 24.0]
        } else {
            ground_point(rng)
        };
        let near = q
            .find_nearest_poly(mesh, p, [1.0, 2.0, 1.0], &f)
            .map_err(|e| e.to_string())?;
        if let Some(n) = near {
            crowd
                .request_move_target(id, n.poly, n.point)
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// The history: 60 agents placed from the seeded stream on the ground and 4 on the upper
/// floor of the building; targets at step 0 and again at step 120; at step 180 the road
/// tile under the bridge is rebuilt (replaced by the same tile: every corridor through it
/// goes stale and replans); the upper-floor agents take the one-way jump link down. Every
/// step records the crowd's state bytes (`Crowd::write_state`).
pub(crate) fn crowd_steps(rec: &mut Recorder) -> Result<(), String> {
    let mut mesh = bridge_and_building();
    let tiles = bridge_and_building_tiles().map_err(|e| e.to_string())?;
    let mut crowd = Crowd::new(CrowdSettings {
        path_budget: 200,
        ..CrowdSettings::default()
    })
    .map_err(|e| e.to_string())?;
    let mut rng = 0x0C70_4D5Eu64;
    let mut params = AgentParams::new(0.35);
    params.max_speed = 3.0;
    while crowd.agents().len() < 60 {
        let p = ground_point(&mut rng);
        // Points off the mesh or on the building's footprint are skipped.
        let _ = crowd.add_agent_with(&mesh, p, params, LocomotionHandler::with_all_modes());
    }
    for k in 0..4 {
        let p = [9.0 + 1.5 * f64::from(k), 3.5, 22.0 + 1.2 * f64::from(k)];
        crowd
            .add_agent_with(&mesh, p, params, LocomotionHandler::with_all_modes())
            .map_err(|e| e.to_string())?;
    }
    retarget(&mut crowd, &mesh, &mut rng)?;
    let dt = 1.0 / 60.0;
    let mut bytes = Vec::new();
    let (mut jumped, mut replans_after_rebuild) = (false, 0);
    for step in 0..300u32 {
        if step == 120 {
            retarget(&mut crowd, &mesh, &mut rng)?;
        }
        if step == 180 {
            mesh.replace_tile(tiles[1].clone())
                .map_err(|e| e.to_string())?;
        }
        let stats = crowd
            .update(&WorldContext::new(&mesh), dt)
            .map_err(|e| e.to_string())?;
        if step == 180 {
            replans_after_rebuild = stats.replans;
        }
        jumped |= crowd
            .agents()
            .iter()
            .any(|a| a.state() == AgentState::OffMesh);
        bytes.clear();
        crowd.write_state(&mut bytes);
        rec.record(format!("step_{step:03}"), &bytes);
    }
    // The history must do what it says.
    if !jumped {
        return Err("no agent crossed the jump link".into());
    }
    if replans_after_rebuild == 0 {
        return Err("no corridor replanned after the tile rebuild".into());
    }
    Ok(())
}

/// The history of `crowd/snapshot-bytes`: the crowd of `crowd/steps` (60 ground agents, 4
/// on the upper floor bound over the jump link) under a budget of 40 iterations per update.
/// At step 60 its canonical snapshot (ONCS) is taken; it steps on to 150 (a new set of
/// targets at 90); then it is restored from the snapshot into a fresh crowd shell and
/// continues 90 steps, each of which must give the state bytes the first run gave; a
/// restore into the stepped-on crowd itself (rollback) must give the same snapshot. Records
/// the snapshot bytes, each continued step's state bytes and every 30th step's snapshot.
pub(crate) fn crowd_snapshot_bytes(rec: &mut Recorder) -> Result<(), String> {
    let mesh = bridge_and_building();
    let world = WorldContext::new(&mesh);
    let mut crowd = Crowd::new(CrowdSettings {
        path_budget: 40,
        ..CrowdSettings::default()
    })
    .map_err(|e| e.to_string())?;
    let mut rng = 0x0C70_4D5Eu64;
    let mut params = AgentParams::new(0.35);
    params.max_speed = 3.0;
    while crowd.agents().len() < 60 {
        let p = ground_point(&mut rng);
        let _ = crowd.add_agent_with(&mesh, p, params, LocomotionHandler::with_all_modes());
    }
    for k in 0..4 {
        let p = [9.0 + 1.5 * f64::from(k), 3.5, 22.0 + 1.2 * f64::from(k)];
        crowd
            .add_agent_with(&mesh, p, params, LocomotionHandler::with_all_modes())
            .map_err(|e| e.to_string())?;
    }
    retarget(&mut crowd, &mesh, &mut rng)?;
    let dt = 1.0 / 60.0;
    for _ in 0..60 {
        crowd.update(&world, dt).map_err(|e| e.to_string())?;
    }
    let saved = crowd.save_snapshot();
    rec.record("snapshot_060", &saved);
    let rng_at_save = rng;
    let mut first = Vec::new();
    let mut bytes = Vec::new();
    for step in 60..150u32 {
        if step == 90 {
            retarget(&mut crowd, &mesh, &mut rng)?;
        }
        crowd.update(&world, dt).map_err(|e| e.to_string())?;
        bytes.clear();
        crowd.write_state(&mut bytes);
        first.push(bytes.clone());
    }
    // Rollback into the crowd itself.
    crowd
        .restore_snapshot(&world, &saved)
        .map_err(|e| e.to_string())?;
    if crowd.save_snapshot() != saved {
        return Err("a rolled-back crowd gives other snapshot bytes".into());
    }
    // Restore into a fresh shell and continue.
    let mut restored = Crowd::new(CrowdSettings::default()).map_err(|e| e.to_string())?;
    restored
        .restore_snapshot(&world, &saved)
        .map_err(|e| e.to_string())?;
    let mut rng = rng_at_save;
    let mut offmesh = false;
    for (k, step) in (60..150u32).enumerate() {
        if step == 90 {
            retarget(&mut restored, &mesh, &mut rng)?;
        }
        restored.update(&world, dt).map_err(|e| e.to_string())?;
        offmesh |= restored
            .agents()
            .iter()
            .any(|a| a.state() == AgentState::OffMesh);
        bytes.clear();
        restored.write_state(&mut bytes);
        if bytes != first[k] {
            return Err(format!(
                "step {step}: the restored crowd left the first run's states"
            ));
        }
        rec.record(format!("step_{step:03}"), &bytes);
        if step % 30 == 29 {
            rec.record(format!("snapshot_{step:03}"), &restored.save_snapshot());
        }
    }
    if !offmesh {
        return Err("no agent crossed the jump link after the restore".into());
    }
    Ok(())
}
