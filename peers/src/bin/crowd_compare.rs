//! OnePath's crowd beside DetourCrowd over the same polygons: 32, 128 and 512 agents,
//! 1 000 updates at 1/60 s, interleaved in blocks of 50 updates; ms per update, arrivals
//! and the path length ratio. `cargo run --release --bin crowd_compare [updates]`.

use onepath_mesh::query::generated_grid_mesh;
use onepath_peers::crowd::compare_crowds;
use onepath_peers::onepath::detour_mesh;

fn main() {
    let updates: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    // 8 × 8 tiles of 16 units, 8 × 8 cells each: 4 096 polygons, 1 in 8 blocked.
    let g = generated_grid_mesh(8, 8, 8, 2026);
    let d = match detour_mesh(&g.mesh, 0.25, 0.0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("detour mesh: {e}");
            std::process::exit(1);
        }
    };
    println!("| agents | updates | OnePath ms/update | Detour ms/update | ratio | OnePath arrived | Detour arrived | path length OnePath/Detour |");
    println!("|---|---|---|---|---|---|---|---|");
    for agents in [32usize, 128, 512] {
        match compare_crowds(&g.mesh, [128.0, 128.0], &d, agents, updates, 50, 0x5EED ^ agents as u64) {
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
                eprintln!("{agents} agents: {e}");
                std::process::exit(1);
            }
        }
    }
}
