//! Sizes and times of agent state: bytes per agent of the agent records (JSON and postcard)
//! and of the canonical crowd snapshot (ONCS), and the save and load of 512 agents through
//! each. The crowd: 512 agents with every locomotion mode on a generated 4 × 4-tile mesh,
//! each walking to a target, 30 updates in (corridors, searches and timers under way). The
//! sizes are printed at start; the times are criterion's. `crowd_restore` times the ONCS
//! restore of the same kind of crowd at 64 and 512 agents.

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use onepath_crowd::records::Record;
use onepath_crowd::{AgentId, AgentParams, Crowd, CrowdSettings, LocomotionHandler, WorldContext};
use onepath_mesh::query::{generated_grid_mesh, NavMeshQuery, QueryFilter};
use onepath_mesh::TiledNavMesh;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn point(rng: &mut u64) -> [f64; 3] {
    let u = (splitmix(rng) >> 11) as f64 / (1u64 << 53) as f64;
    let v = (splitmix(rng) >> 11) as f64 / (1u64 << 53) as f64;
    [0.5 + u * 63.0, 0.0, 0.5 + v * 63.0]
}

fn crowd_of(mesh: &TiledNavMesh, agents: usize) -> Crowd {
    let mut crowd = Crowd::new(CrowdSettings::default()).expect("settings");
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let mut rng = 512u64;
    while crowd.agents().len() < agents {
        let Ok(id) = crowd.add_agent_with(
            mesh,
            point(&mut rng),
            AgentParams::new(0.3),
            LocomotionHandler::with_all_modes(),
        ) else {
            continue;
        };
        if let Ok(Some(n)) = q.find_nearest_poly(mesh, point(&mut rng), [1.0, 1.0, 1.0], &f) {
            let _ = crowd.request_move_target(id, n.poly, n.point);
        }
    }
    let world = WorldContext::new(mesh);
    for _ in 0..30 {
        crowd.update(&world, 1.0 / 60.0).expect("update");
    }
    crowd
}

fn ids(c: &Crowd) -> Vec<AgentId> {
    c.agents().iter().map(|a| a.id()).collect()
}

fn bench(c: &mut Criterion) {
    let mesh = generated_grid_mesh(4, 4, 8, 7).mesh;
    let world = WorldContext::new(&mesh);
    let crowd = crowd_of(&mesh, 512);
    let ids = ids(&crowd);
    let n = ids.len() as f64;
    let json: Vec<String> = ids
        .iter()
        .map(|&id| crowd.save_agent_json(id).expect("json"))
        .collect();
    let bin: Vec<Vec<u8>> = ids
        .iter()
        .map(|&id| crowd.save_agent_postcard(id).expect("bin"))
        .collect();
    let snapshot = crowd.save_snapshot();
    println!(
        "records bench: {} agents; bytes per agent: JSON {:.0}, postcard {:.0}, ONCS {:.0} \
         (snapshot {} bytes in all)",
        ids.len(),
        json.iter().map(String::len).sum::<usize>() as f64 / n,
        bin.iter().map(Vec::len).sum::<usize>() as f64 / n,
        snapshot.len() as f64 / n,
        snapshot.len()
    );
    let mut group = c.benchmark_group("crowd_state_512");
    group.bench_function("save_snapshot", |b| b.iter(|| crowd.save_snapshot()));
    let mut target = Crowd::new(CrowdSettings::default()).expect("settings");
    group.bench_function("restore_snapshot", |b| {
        b.iter(|| target.restore_snapshot(&world, &snapshot).expect("restore"))
    });
    group.bench_function("save_records", |b| {
        b.iter(|| {
            ids.iter()
                .map(|&id| crowd.save_agent_record(id).expect("record").len())
                .sum::<usize>()
        })
    });
    group.bench_function("save_json", |b| {
        b.iter(|| {
            ids.iter()
                .map(|&id| crowd.save_agent_json(id).expect("json").len())
                .sum::<usize>()
        })
    });
    group.bench_function("save_postcard", |b| {
        b.iter(|| {
            ids.iter()
                .map(|&id| crowd.save_agent_postcard(id).expect("bin").len())
                .sum::<usize>()
        })
    });
    // Loads go into shells: the crowd itself, rolled back before each run.
    let mut shells = Crowd::new(CrowdSettings::default()).expect("settings");
    shells.restore_snapshot(&world, &snapshot).expect("restore");
    group.bench_function("load_json", |b| {
        b.iter(|| {
            for (&id, text) in ids.iter().zip(&json) {
                shells.load_agent_json(&world, id, text).expect("load");
            }
        })
    });
    group.bench_function("load_postcard", |b| {
        b.iter(|| {
            for (&id, bytes) in ids.iter().zip(&bin) {
                shells.load_agent_postcard(&world, id, bytes).expect("load");
            }
        })
    });
    let records: Vec<Record> = bin
        .iter()
        .map(|b| Record::from_postcard(b).expect("record"))
        .collect();
    group.bench_function("load_records", |b| {
        b.iter(|| {
            for (&id, rec) in ids.iter().zip(&records) {
                shells.load_agent_record(&world, id, rec).expect("load");
            }
        })
    });
    group.finish();
    // ONCS restore at two sizes (issue 17: restore cost proportional to what is saved).
    let mut group = c.benchmark_group("crowd_restore");
    for n in [64, 512] {
        let crowd = crowd_of(&mesh, n);
        let snapshot = crowd.save_snapshot();
        let mut target = Crowd::new(CrowdSettings::default()).expect("settings");
        group.bench_function(format!("restore_snapshot_{n}"), |b| {
            b.iter(|| target.restore_snapshot(&world, &snapshot).expect("restore"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
