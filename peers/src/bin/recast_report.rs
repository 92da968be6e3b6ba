//! Prints the reference figures of recastnavigation on Recast's demo level
//! (`$ONEPATH_DATA/levels/nav_test.obj`, or the OBJ path given as the first argument):
//! the tiled build's tile count, polygon count and walkable area, its single-threaded build
//! time, and the Detour straight paths of the seeded point pairs.
//!
//! `cargo run --release --bin recast_report [-- <level.obj> [build runs]]`

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use onepath_peers::detour::DetourEngine;
use onepath_peers::level::nav_test_path;
use onepath_peers::metrics::reachable_pairs;
use onepath_peers::recast::build_tiled;
use onepath_peers::sampling::{point_pairs, REPORT_PAIRS, REPORT_SEED};
use onepath_peers::{Level, PeerError, RecastSettings};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("recast_report: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), PeerError> {
    let mut args = std::env::args().skip(1);
    let path = match args.next() {
        Some(p) => PathBuf::from(p),
        None => nav_test_path().ok_or_else(|| {
            PeerError::input(
                "level",
                "give an OBJ path or set ONEPATH_DATA (levels/nav_test.obj)",
            )
        })?,
    };
    let runs: usize = match args.next() {
        Some(r) => r
            .parse()
            .map_err(|_| PeerError::input("build runs", format!("{r:?} is not a count")))?,
        None => 5,
    };
    let level = Level::load_obj(&path)?;
    let settings = RecastSettings::default();
    let cfg = settings.voxel_config();
    println!("level: {}", path.display());
    println!(
        "  {} vertices, {} triangles",
        level.vertices.len(),
        level.triangles.len()
    );
    if let Some((lo, hi)) = level.bounds() {
        println!("  bounds {lo:?} .. {hi:?}");
    }
    println!("settings: RecastDemo defaults, Sample_TileMesh, watershed");
    println!(
        "  cs {} ch {} walkableHeight {} walkableClimb {} walkableRadius {} maxEdgeLen {} \
         minRegionArea {} mergeRegionArea {} nvp {} tileSize {} border {} \
         detailSampleDist {} detailSampleMaxError {}",
        cfg.cs,
        cfg.ch,
        cfg.walkable_height,
        cfg.walkable_climb,
        cfg.walkable_radius,
        cfg.max_edge_len,
        cfg.min_region_area,
        cfg.merge_region_area,
        cfg.max_verts_per_poly,
        cfg.tile_size,
        cfg.border_size,
        cfg.detail_sample_dist,
        cfg.detail_sample_max_error
    );

    let mut times: Vec<Duration> = Vec::with_capacity(runs.max(1));
    let mut build = None;
    for _ in 0..runs.max(1) {
        let t0 = Instant::now();
        let b = build_tiled(&level, &settings)?;
        times.push(t0.elapsed());
        build = Some(b);
    }
    let build = build.ok_or_else(|| PeerError::input("build runs", "none"))?;
    times.sort();
    let m = build.metrics();
    let bytes: usize = build.tiles.iter().map(|t| t.detour_bytes).sum();
    println!("build:");
    println!(
        "  grid {} x {} tiles of {} world units",
        build.grid.tiles_x, build.grid.tiles_z, build.grid.tile_world_size
    );
    println!("  tiles with polygons   {}", m.tile_count);
    println!("  polygons              {}", m.polygon_count);
    println!("  vertices (per tile)   {}", m.vertex_count);
    println!("  walkable area (XZ)    {:.6}", m.walkable_area);
    println!("  Detour tile bytes     {bytes}");
    println!(
        "  build time, single thread, {} runs: min {:.3} ms, median {:.3} ms",
        times.len(),
        times[0].as_secs_f64() * 1e3,
        times[times.len() / 2].as_secs_f64() * 1e3
    );

    let polygons = build.world_polygons();
    let mut engine = DetourEngine::new(&build.navmesh)?;
    let pairs = point_pairs(&polygons, REPORT_PAIRS, REPORT_SEED);
    println!(
        "queries: {} pairs, SplitMix64 seed {REPORT_SEED:#x}, area-weighted points on the polygons",
        pairs.len()
    );
    print_pairs(&engine, &pairs)?;
    let reachable = reachable_pairs(
        &mut engine,
        &polygons,
        REPORT_PAIRS,
        REPORT_SEED,
        REACHABLE_DRAWS,
    )?;
    println!(
        "reachable queries: the first {} pairs of the same stream whose Detour path is complete",
        reachable.len()
    );
    print_pairs(&engine, &reachable)?;
    Ok(())
}

/// Most pairs drawn while looking for reachable ones.
const REACHABLE_DRAWS: usize = 10_000;

/// One line per pair (corridor, corners, partial, straight-path length, raycast), then totals.
fn print_pairs(engine: &DetourEngine<'_>, pairs: &[([f32; 3], [f32; 3])]) -> Result<(), PeerError> {
    println!("  #  corridor corners partial  length      raycast_t  start -> end");
    let mut total = 0.0f64;
    let mut complete = 0usize;
    let mut clear_rays = 0usize;
    for (i, &(s, e)) in pairs.iter().enumerate() {
        let (Some(ss), Some(se)) = (engine.snap(s)?, engine.snap(e)?) else {
            println!("  {i:2} (a point did not snap) {s:?} -> {e:?}");
            continue;
        };
        let out = engine.path(ss, se)?;
        let ray = engine.raycast(ss, se.pos)?;
        if ray.t.is_none() {
            clear_rays += 1;
        }
        if !out.partial {
            complete += 1;
            total += out.length();
        }
        println!(
            "  {i:2} {:8} {:7} {:7} {:11.6} {:>10} {:?} -> {:?}",
            out.corridor_len,
            out.corners.len(),
            out.partial,
            out.length(),
            ray.t.map_or("clear".to_string(), |t| format!("{t:.6}")),
            ss.pos,
            se.pos
        );
    }
    println!(
        "  complete paths {complete} / {}, total length of complete paths {total:.6}, clear raycasts {clear_rays}",
        pairs.len()
    );
    Ok(())
}
