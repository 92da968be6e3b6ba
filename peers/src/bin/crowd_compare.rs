//! OnePath's crowd beside DetourCrowd over the same polygons: 32, 128 and 512 agents,
//! 1 000 updates at 1/60 s, interleaved in blocks of 50 updates; ms per update, arrivals
//! and the path length ratio, on a generated level and (with `ONEPATH_DATA`) on nav_test.
//! `cargo run --release --bin crowd_compare [updates] [agent counts, e.g. 32,128]`.

use onepath_mesh::query::generated_grid_mesh;
use onepath_mesh::TiledNavMesh;
use onepath_peers::crowd::compare_crowds;
use onepath_peers::detour::DetourNavMesh;
use onepath_peers::level::nav_test_path;
use onepath_peers::onepath::{build_onepath, detour_mesh};
use onepath_peers::{Level, RecastSettings};

type Bounds = ([f64; 3], [f64; 3]);

fn table(
    name: &str,
    mesh: &TiledNavMesh,
    d: &DetourNavMesh,
    bounds: Bounds,
    updates: usize,
    sizes: &[usize],
) {
    println!("\n{name}\n");
    println!("| agents | updates | OnePath ms/update | Detour ms/update | ratio | OnePath arrived | Detour arrived | path length OnePath/Detour |");
    println!("|---|---|---|---|---|---|---|---|");
    for &agents in sizes {
        match compare_crowds(mesh, bounds, d, agents, updates, 50, 0x5EED ^ agents as u64) {
            Ok(c) => println!(
                "| {} | {} | {:.3} | {:.3} | {:.2}x | {} | {} | {:.3} |",
                c.agents,
                c.updates,
                c.onepath_ms,
                c.detour_ms,
                c.onepath_ms / c.detour_ms,
                c.onepath_arrived,
                c.detour_arrived,
                c.path_length_ratio
            ),
            Err(e) => {
                eprintln!("{name}, {agents} agents: {e}");
                std::process::exit(1);
            }
        }
    }
}

fn main() {
    let updates: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    // Optional: the agent counts (default 32, 128 and 512).
    let sizes: Vec<usize> = match std::env::args().nth(2) {
        Some(list) => list.split(',').filter_map(|s| s.parse().ok()).collect(),
        None => vec![32, 128, 512],
    };
    // 8 × 8 tiles of 16 units, 8 × 8 cells each: 4 096 polygons, 1 in 8 blocked.
    let g = generated_grid_mesh(8, 8, 8, 2026);
    let d = match detour_mesh(&g.mesh, 0.25, 0.0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("detour mesh: {e}");
            std::process::exit(1);
        }
    };
    table(
        "generated 8 x 8 tiles (4 096 cells, 1 in 8 blocked)",
        &g.mesh,
        &d,
        ([1.0, -1.0, 1.0], [127.0, 1.0, 127.0]),
        updates,
        &sizes,
    );
    if let Some(path) = nav_test_path() {
        let level = Level::load_obj(&path).expect("nav_test.obj reads");
        let built = build_onepath(&level, &RecastSettings::default()).expect("build");
        let d = built
            .detour_mesh(RecastSettings::default().cell_height, 1e-4)
            .expect("detour mesh");
        let (lo, hi) = level.bounds().expect("bounds");
        let b = (lo.map(f64::from), hi.map(f64::from));
        table("nav_test", &built.built.mesh, &d, b, updates, &sizes);
    } else {
        eprintln!("skipped nav_test: ONEPATH_DATA is not set or levels/nav_test.obj is absent");
    }
}
