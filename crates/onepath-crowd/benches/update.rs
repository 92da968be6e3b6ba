//! The crowd update alone, as `peers`' `crowd_compare` runs it on its generated level
//! (`generated_grid_mesh(8, 8, 8, 2026)`: 64 tiles of 16 units, 1 in 8 cells blocked):
//! 32, 128 and 512 agents of radius 0.5 with every update flag and high-quality adaptive
//! avoidance, starts and targets from one seeded stream (SplitMix64) snapped on the mesh,
//! 60 updates in (the first path requests served); criterion times one update of 1/60 s
//! (the crowd walks on from bench iteration to iteration). `tile_change_512_agents` times
//! the update that follows a tile change under 512 agents: before each timed update, the
//! tile at column (3, 3) is replaced by itself (untimed): every reference into it goes
//! stale, its four neighbours are restitched, and the boundaries that read any of those
//! slots are recomputed.
//!
//! The side-by-side figures against DetourCrowd come from `crowd_compare` (`peers/`); this
//! bench is for changes inside the crowd. `CROWD_UPDATE_STEPS=N` skips criterion and runs
//! `N` updates of 32 agents (one group: `CROWD_UPDATE_AGENTS`), for a profiler (callgrind
//! counts instructions, so its figures do not depend on the machine's load); with
//! `CROWD_UPDATE_TILE_CHANGE=1` the tile at column (3, 3) is replaced by itself before each
//! of them.

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use onepath_crowd::{AgentParams, Crowd, CrowdSettings, WorldContext};
use onepath_mesh::query::{generated_grid_mesh, NavMeshQuery, QueryFilter};
use onepath_mesh::TiledNavMesh;

const DT: f64 = 1.0 / 60.0;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A point of the seeded stream in the level's box, snapped on the mesh.
fn point(mesh: &TiledNavMesh, q: &mut NavMeshQuery, rng: &mut u64) -> Option<[f64; 3]> {
    let u = (splitmix(rng) >> 11) as f64 / (1u64 << 53) as f64;
    let v = (splitmix(rng) >> 11) as f64 / (1u64 << 53) as f64;
    let p = [1.0 + u * 126.0, 0.0, 1.0 + v * 126.0];
    q.find_nearest_poly(mesh, p, [0.5, 2.0, 0.5], &QueryFilter::new())
        .ok()
        .flatten()
        .map(|n| n.point)
}

fn crowd_of(mesh: &TiledNavMesh, agents: usize) -> Crowd {
    let mut crowd = Crowd::new(CrowdSettings {
        max_agents: agents,
        max_agent_radius: 0.5,
        ..CrowdSettings::default()
    })
    .expect("settings");
    let mut q = NavMeshQuery::new();
    let mut rng = 0x5EED ^ agents as u64;
    while crowd.agents().len() < agents {
        let (Some(s), Some(t)) = (point(mesh, &mut q, &mut rng), point(mesh, &mut q, &mut rng))
        else {
            continue;
        };
        let Ok(id) = crowd.add_agent(mesh, s, AgentParams::new(0.5)) else {
            continue;
        };
        let n = q
            .find_nearest_poly(mesh, t, [0.5, 0.5, 0.5], &QueryFilter::new())
            .expect("target query")
            .expect("a snapped target is on the mesh");
        crowd
            .request_move_target(id, n.poly, n.point)
            .expect("target");
    }
    let world = WorldContext::new(mesh);
    for _ in 0..60 {
        crowd.update(&world, DT).expect("update");
    }
    crowd
}

fn bench(c: &mut Criterion) {
    let mut mesh = generated_grid_mesh(8, 8, 8, 2026).mesh;
    if let Some(steps) = std::env::var("CROWD_UPDATE_STEPS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    {
        let agents = std::env::var("CROWD_UPDATE_AGENTS")
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
            .unwrap_or(32);
        let change = std::env::var("CROWD_UPDATE_TILE_CHANGE").is_ok_and(|v| v == "1");
        let mut crowd = crowd_of(&mesh, agents);
        let tile = mesh.tile_at(3, 3, 0).expect("column (3, 3)").tile().clone();
        let mut samples = 0;
        for _ in 0..steps {
            if change {
                mesh.replace_tile(tile.clone()).expect("the same tile fits");
            }
            let world = WorldContext::new(&mesh);
            samples += crowd.update(&world, DT).expect("update").avoidance_samples;
        }
        println!("{agents} agents, {steps} updates, {samples} avoidance samples");
        return;
    }
    let mut group = c.benchmark_group("crowd_update");
    for agents in [32, 128, 512] {
        let mut crowd = crowd_of(&mesh, agents);
        let world = WorldContext::new(&mesh);
        group.bench_function(format!("{agents}_agents"), |b| {
            b.iter(|| crowd.update(&world, DT).expect("update"))
        });
    }
    let mut crowd = crowd_of(&mesh, 512);
    let tile = mesh
        .tile_at(3, 3, 0)
        .expect("the level has column (3, 3)")
        .tile()
        .clone();
    group.bench_function("tile_change_512_agents", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                mesh.replace_tile(tile.clone()).expect("the same tile fits");
                let world = WorldContext::new(&mesh);
                let t = Instant::now();
                crowd.update(&world, DT).expect("update");
                total += t.elapsed();
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
