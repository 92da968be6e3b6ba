//! Prints the reference figures of recastnavigation on Recast's demo level
//! (`$ONEPATH_DATA/levels/nav_test.obj`, or the OBJ path given as the first argument):
//! the tiled build's tile count, polygon count and walkable area, its single-threaded build
//! time, and the Detour straight paths of the seeded point pairs; then OnePath against it:
//!
//! - issue 8: OnePath's build of the same level with the same settings (tiles, polygons,
//!   walkable area, build time on 1 thread and on all threads, ratios to Recast) and its
//!   straight paths on the same 50 reachable pairs, pair by pair;
//! - issue 4: Detour and OnePath's query layer on the very same polygons (OnePath's
//!   nav_test build, and OnePath's generated 32 x 32-tile mesh, each converted into a
//!   Detour mesh): straight-path lengths pair by pair and time ratios per query kind,
//!   measured interleaved in the same run (best of rounds).
//!
//! - issue 21 (`-- --levels [rounds]`, only this part): nav_test and the generated levels
//!   (steep rolling terrain, city, rolling terrain, building with bridge) at tiles of 32 and
//!   64 cells: tiles, polygons, walkable area, portal links per tile border, total
//!   straight-path length over 64 seeded reachable pairs against Detour, and build times on
//!   1 thread and all threads, interleaved with Recast's (each builder given its own
//!   prebuilt chunky triangle mesh, so neither times its index; see `README.md`).
//!
//! `cargo run --release --bin recast_report [-- <level.obj> [build runs]]`
//! - issue 14 item 3 (`-- --queries [rounds]`, only this part): nearest and raycast on the
//!   same polygons on nav_test (tiled, one tile), the generated grid and a sloped terrain,
//!   fresh and after 100 tile replacements (see `queries_section`).
//!
//! `cargo run --release --bin recast_report -- --levels [rounds]`
//! `cargo run --release --bin recast_report -- --queries [rounds]`
//! - issue 14 item 2 (`-- --paths [rounds]`, only this part): straight-path lengths and
//!   path + straight path timings against Detour on the same polygons and points, 64 seeded
//!   pairs per level, path models v1 and v2 (see `paths_section`).
//!
//! `cargo run --release --bin recast_report -- --paths [rounds]`

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use onepath_build3d::Mesh3DPipeline;
use onepath_format::{PolyRef, TileRef};
use onepath_mesh::query::generated_grid_mesh;
use onepath_mesh::query::NearestPoly;
use onepath_mesh::query::{PathModel, PortalSampling};
use onepath_mesh::TiledNavMesh;
use onepath_peers::compare::{interleaved_rounds, median, ratio, LengthComparison};
use onepath_peers::detour::{DetourEngine, DetourNavMesh, Snapped, HALF_EXTENTS};
use onepath_peers::level::{dungeon, nav_test_path, sloped_terrain};
use onepath_peers::metrics::{reachable_pairs, run_pairs};
use onepath_peers::onepath::{
    build_chunk, build_config, build_onepath, build_soup, detour_mesh, level_of, triangle_soup,
    world_polygons, OnePathBuild, OnePathEngine,
};
use onepath_peers::paths::{
    length_row, refined_corridor, same_pairs, LengthRow, RefinedGraph, RefinedSearch,
    RefinedVariant, LENGTH_PAIRS,
};
use onepath_peers::recast::{build_tiled, build_tiled_chunky, ChunkyTriMesh, TRIS_PER_CHUNK};
use onepath_peers::sampling::{
    point_pairs, sample_points, PointPair, SplitMix64, REPORT_PAIRS, REPORT_SEED,
};
use onepath_peers::{BuildMetrics, Level, PathMetrics, PeerError, RecastSettings};

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
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("--queries") {
        args.next();
        let rounds: usize = match args.next() {
            Some(r) => r
                .parse()
                .map_err(|_| PeerError::input("rounds", format!("{r:?} is not a count")))?,
            None => QUERY_ROUNDS,
        };
        return queries_section(rounds);
    }
    if args.peek().map(String::as_str) == Some("--paths") {
        args.next();
        let rounds: usize = match args.next() {
            Some(r) => r
                .parse()
                .map_err(|_| PeerError::input("rounds", format!("{r:?} is not a count")))?,
            None => PATH_ROUNDS,
        };
        return paths_section(rounds);
    }
    if args.peek().map(String::as_str) == Some("--levels") {
        args.next();
        let rounds: usize = match args.next() {
            Some(r) => r
                .parse()
                .map_err(|_| PeerError::input("rounds", format!("{r:?} is not a count")))?,
            None => BUILD_ROUNDS_MIN,
        };
        return levels_section(rounds);
    }
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

    let reachable_metrics = PathMetrics::from_results(&run_pairs(&mut engine, &reachable)?);
    drop(engine);
    let op = onepath_build_section(&level, &settings, &m, runs)?;
    onepath_paths_section(&op, &reachable, &reachable_metrics)?;
    let same = op.detour_mesh(settings.cell_height, SAME_POLYGONS_TOLERANCE)?;
    println!(
        "same polygons (issue 4): OnePath's nav_test build as a Detour mesh (cell height {}, \
         vertex tolerance {SAME_POLYGONS_TOLERANCE}): {:?} (tiles, polygons)",
        settings.cell_height,
        same.counts()
    );
    same_polygons_section(
        "nav_test",
        &op.built.mesh,
        &same,
        DetourEngine::new(&same)?,
        QUERY_ROUNDS,
    )?;
    let generated = generated_grid_mesh(32, 32, 4, GENERATED_SEED);
    let gen_detour = detour_mesh(&generated.mesh, 0.25, 0.0)?;
    println!(
        "same polygons (issue 4): generated_grid_mesh(32, 32, 4, {GENERATED_SEED:#x}) as a Detour \
         mesh (exact vertices): {:?} (tiles, polygons); Detour with 65535 nodes and 4096-polygon \
         corridors",
        gen_detour.counts()
    );
    same_polygons_section(
        "generated 32x32",
        &generated.mesh,
        &gen_detour,
        DetourEngine::with_limits(&gen_detour, 65_535, 4096)?,
        GENERATED_ROUNDS,
    )?;
    Ok(())
}

/// Vertex tolerance of the nav_test conversion (world units): OnePath's float32 world X/Z
/// differ from Detour's `bmin + q * cs` by float32 rounding (the largest needed on nav_test
/// lies between 1e-6 and 1e-5); one hundred times that leaves room.
const SAME_POLYGONS_TOLERANCE: f32 = 1e-4;
/// Seed of the generated mesh.
const GENERATED_SEED: u64 = 0x5EED_0004;
/// Interleaved timing rounds per query kind on nav_test.
const QUERY_ROUNDS: usize = 200;
/// Interleaved timing rounds per query kind on the generated mesh (far paths are slow).
const GENERATED_ROUNDS: usize = 20;
/// Interleaved build rounds (Recast, OnePath on 1 thread, OnePath on all threads).
const BUILD_ROUNDS_MIN: usize = 5;
/// Largest A* expansion budget given to OnePath (Detour's budget is its node pool).
const ONEPATH_ITERATIONS: u64 = 1 << 20;
/// The relative straight-path length tolerance of issue 8.
const LENGTH_GOAL: f64 = 0.02;

fn pct(r: f64) -> String {
    format!("{:+.2} %", (r - 1.0) * 100.0)
}

/// Issue 8, build: OnePath's figures next to Recast's, and build times interleaved.
fn onepath_build_section(
    level: &Level,
    settings: &RecastSettings,
    recast: &BuildMetrics,
    runs: usize,
) -> Result<OnePathBuild, PeerError> {
    let cfg = build_config(level, settings)?;
    let pipeline = Mesh3DPipeline::new(cfg);
    let soup = triangle_soup(level);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| PeerError::input("rayon pool", e.to_string()))?;
    let all = rayon::ThreadPoolBuilder::new()
        .build()
        .map_err(|e| PeerError::input("rayon pool", e.to_string()))?;
    let op = one.install(|| build_soup(&pipeline, &soup))?;
    let m = op.metrics();
    println!("OnePath build (issue 8): onepath-build3d, the same settings, grid origin at the level's minimum corner");
    println!("  figure                Recast        OnePath       OnePath / Recast");
    println!(
        "  tiles with polygons   {:<13} {:<13} {}",
        recast.tile_count,
        m.tile_count,
        pct(m.tile_count as f64 / recast.tile_count as f64)
    );
    println!(
        "  polygons              {:<13} {:<13} {}",
        recast.polygon_count,
        m.polygon_count,
        pct(m.polygon_count as f64 / recast.polygon_count as f64)
    );
    println!(
        "  vertices (per tile)   {:<13} {:<13} {}",
        recast.vertex_count,
        m.vertex_count,
        pct(m.vertex_count as f64 / recast.vertex_count as f64)
    );
    println!(
        "  walkable area (XZ)    {:<13.6} {:<13.6} {}",
        recast.walkable_area,
        m.walkable_area,
        pct(m.walkable_area / recast.walkable_area)
    );
    let failure = std::cell::RefCell::new(None);
    let record = |r: Result<(), PeerError>| {
        if let Err(e) = r {
            failure.borrow_mut().get_or_insert(e);
        }
    };
    let rounds = runs.max(BUILD_ROUNDS_MIN);
    // Each builder's triangle index is built once, outside the timing (README.md).
    let rc_chunky = ChunkyTriMesh::new(level, TRIS_PER_CHUNK)?;
    let op_chunky = onepath_chunky(&soup, &pipeline)?;
    let times = interleaved_rounds(
        rounds,
        &mut [
            &mut || record(build_tiled_chunky(level, &rc_chunky, settings).map(drop)),
            &mut || record(one.install(|| build_chunk(&pipeline, &op_chunky)).map(drop)),
            &mut || record(all.install(|| build_chunk(&pipeline, &op_chunky)).map(drop)),
        ],
    );
    if let Some(e) = failure.into_inner() {
        return Err(e);
    }
    println!(
        "  build time, {rounds} interleaved rounds (Recast single thread, OnePath in a 1-thread \
         pool, OnePath in a {}-thread pool):",
        all.current_num_threads()
    );
    let names = [
        "Recast, 1 thread",
        "OnePath, 1 thread",
        "OnePath, all threads",
    ];
    for (name, t) in names.iter().zip(&times) {
        println!(
            "    {name:<22} min {:8.3} ms  median {:8.3} ms  min ratio to Recast {:.3}  median ratio {:.3}",
            t[0].as_secs_f64() * 1e3,
            median(t).as_secs_f64() * 1e3,
            ratio(t[0], times[0][0]),
            ratio(median(t), median(&times[0]))
        );
    }
    Ok(op)
}

/// OnePath's chunky triangle mesh of `soup`, chunks one tile wide.
fn onepath_chunky(
    soup: &onepath_build3d::TriangleSoup,
    pipeline: &Mesh3DPipeline,
) -> Result<onepath_build3d::ChunkyTriMesh, PeerError> {
    onepath_build3d::ChunkyTriMesh::new(soup.clone(), pipeline.config.tile_size).map_err(|e| {
        PeerError::OnePath {
            call: "ChunkyTriMesh::new",
            reason: e.to_string(),
        }
    })
}

/// Seeded reachable pairs per level of the issue 21 table.
const LEVEL_PAIRS: usize = 64;
/// The straight-path length goal of issue 21 (total over the pairs).
const LEVEL_LENGTH_GOAL: f64 = 0.01;

/// Issue 21: nav_test (when `ONEPATH_DATA` has it) and the generated levels at tiles of 32
/// and 64 cells, OnePath against Recast / Detour.
fn levels_section(rounds: usize) -> Result<(), PeerError> {
    use onepath_build3d::generators::{
        building_with_bridge, city, rolling_terrain, CityParams, TerrainParams,
    };
    let grid = |p: &TerrainParams| {
        rolling_terrain(p)
            .to_soup()
            .map_err(|e| PeerError::OnePath {
                call: "HeightGrid::to_soup",
                reason: e.to_string(),
            })
    };
    let mut levels: Vec<(&str, Level)> = Vec::new();
    if let Some(p) = nav_test_path() {
        levels.push(("nav_test", Level::load_obj(&p)?));
    }
    levels.push(("steep terrain", level_of(&grid(&TerrainParams::steep())?)));
    levels.push(("city", level_of(&city(&CityParams::default()))));
    levels.push(("terrain", level_of(&grid(&TerrainParams::default())?)));
    levels.push(("bridge", level_of(&building_with_bridge(3))));
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| PeerError::input("rayon pool", e.to_string()))?;
    let all = rayon::ThreadPoolBuilder::new()
        .build()
        .map_err(|e| PeerError::input("rayon pool", e.to_string()))?;
    println!(
        "issue 21: OnePath / Recast per level and tile size; build times best (min) and median of \
         {rounds} interleaved rounds (Recast 1 thread, OnePath 1 thread, OnePath {} threads), \
         each builder from its own prebuilt chunky triangle mesh; links: portal links leaving \
         the +X/+Z sides (Detour's: portal-edge pairs passing its slab rule) per tile border",
        all.current_num_threads()
    );
    for (name, level) in &levels {
        for cells in [32u16, 64] {
            let settings = RecastSettings {
                tile_size: f32::from(cells),
                ..RecastSettings::default()
            };
            let pipeline = Mesh3DPipeline::new(build_config(level, &settings)?);
            let soup = triangle_soup(level);
            let rc_chunky = ChunkyTriMesh::new(level, TRIS_PER_CHUNK)?;
            let op_chunky = onepath_chunky(&soup, &pipeline)?;
            let rc = build_tiled_chunky(level, &rc_chunky, &settings)?;
            let op = one.install(|| build_chunk(&pipeline, &op_chunky))?;
            let (rm, om) = (rc.metrics(), op.metrics());
            let (rb, rl) = rc.portal_links();
            let (ob, ol) = op.portal_links();
            let per = |l: usize, b: usize| if b == 0 { 0.0 } else { l as f64 / b as f64 };
            println!("  {name}, tile {cells}:");
            println!(
                "    tiles {} / {}, polygons {} / {} ({}), walkable area {:.3} / {:.3} ({})",
                om.tile_count,
                rm.tile_count,
                om.polygon_count,
                rm.polygon_count,
                pct(om.polygon_count as f64 / rm.polygon_count as f64),
                om.walkable_area,
                rm.walkable_area,
                pct(om.walkable_area / rm.walkable_area)
            );
            println!(
                "    links per border {:.3} ({ol} over {ob}) / {:.3} ({rl} over {rb})",
                per(ol, ob),
                per(rl, rb)
            );
            let polygons = rc.world_polygons();
            let mut detour = DetourEngine::new(&rc.navmesh)?;
            let pairs = reachable_pairs(
                &mut detour,
                &polygons,
                LEVEL_PAIRS,
                REPORT_SEED,
                REACHABLE_DRAWS,
            )?;
            let dm = PathMetrics::from_results(&run_pairs(&mut detour, &pairs)?);
            drop(detour);
            let mut engine = OnePathEngine::new(&op.built.mesh, ONEPATH_ITERATIONS);
            let omp = PathMetrics::from_results(&run_pairs(&mut engine, &pairs)?);
            let c = LengthComparison::new(&dm, &omp, LEVEL_LENGTH_GOAL);
            println!(
                "    paths: {} pairs, both complete {}, only Detour {}, only OnePath {}; total \
                 length {:.3} / {:.3} ({}), within 1 % pair by pair {}, largest difference {:.1} %",
                pairs.len(),
                c.both_complete,
                c.only_first,
                c.only_second,
                c.total_second,
                c.total_first,
                pct(c.total_ratio()),
                c.within_tolerance,
                c.max_relative_diff * 100.0
            );
            let failure = std::cell::RefCell::new(None);
            let record = |r: Result<(), PeerError>| {
                if let Err(e) = r {
                    failure.borrow_mut().get_or_insert(e);
                }
            };
            let times = interleaved_rounds(
                rounds,
                &mut [
                    &mut || record(build_tiled_chunky(level, &rc_chunky, &settings).map(drop)),
                    &mut || record(one.install(|| build_chunk(&pipeline, &op_chunky)).map(drop)),
                    &mut || record(all.install(|| build_chunk(&pipeline, &op_chunky)).map(drop)),
                ],
            );
            if let Some(e) = failure.into_inner() {
                return Err(e);
            }
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            println!(
                "    build ms min / median: Recast {:.2} / {:.2}; OnePath 1 thread {:.2} / {:.2} \
                 (x{:.3} / x{:.3}); all threads {:.2} / {:.2} (x{:.3} / x{:.3})",
                ms(times[0][0]),
                ms(median(&times[0])),
                ms(times[1][0]),
                ms(median(&times[1])),
                ratio(times[1][0], times[0][0]),
                ratio(median(&times[1]), median(&times[0])),
                ms(times[2][0]),
                ms(median(&times[2])),
                ratio(times[2][0], times[0][0]),
                ratio(median(&times[2]), median(&times[0]))
            );
        }
    }
    Ok(())
}

/// Issue 8, paths: OnePath's straight paths on Recast's 50 reachable pairs, each point
/// snapped onto OnePath's mesh with Detour's half extents.
fn onepath_paths_section(
    op: &OnePathBuild,
    reachable: &[PointPair],
    detour: &PathMetrics,
) -> Result<(), PeerError> {
    let mut engine = OnePathEngine::new(&op.built.mesh, ONEPATH_ITERATIONS);
    let results = run_pairs(&mut engine, reachable)?;
    let ours = PathMetrics::from_results(&results);
    let c = LengthComparison::new(detour, &ours, LENGTH_GOAL);
    println!(
        "OnePath paths (issue 8) on the {} reachable pairs above, snapped with half extents {HALF_EXTENTS:?}",
        reachable.len()
    );
    println!("  #  Detour      OnePath     OnePath/Detour  OnePath corridor corners");
    for (i, (r, pc)) in results.iter().zip(&c.per_pair).enumerate() {
        let (corridor, corners, status) = match &r.outcome {
            None => (0, 0, "no snap"),
            Some(o) if o.partial => (o.corridor_len, o.corners.len(), "partial"),
            Some(o) => (o.corridor_len, o.corners.len(), ""),
        };
        match pc {
            Some((a, b)) => println!(
                "  {i:2} {a:11.6} {b:11.6} {:>14} {corridor:8} {corners:7}",
                pct(b / a)
            ),
            None => println!(
                "  {i:2} {:>11} {:>11} {:>14} {corridor:8} {corners:7} {status}",
                detour
                    .lengths
                    .get(i)
                    .copied()
                    .flatten()
                    .map_or("-".into(), |l| format!("{l:.6}")),
                ours.lengths
                    .get(i)
                    .copied()
                    .flatten()
                    .map_or("-".into(), |l| format!("{l:.6}")),
                "-"
            ),
        }
    }
    println!(
        "  complete in both {} / {}, only Detour {}, only OnePath {}; within {:.0} %: {} / {}; \
         largest difference {:.2} %",
        c.both_complete,
        reachable.len(),
        c.only_first,
        c.only_second,
        LENGTH_GOAL * 100.0,
        c.within_tolerance,
        c.both_complete,
        c.max_relative_diff * 100.0
    );
    println!(
        "  total over pairs complete in both: Detour {:.6}, OnePath {:.6}, ratio {}",
        c.total_first,
        c.total_second,
        pct(c.total_ratio())
    );
    Ok(())
}

/// Issue 4: both query layers on the very same polygons. Pairs are the first 50 of the
/// report seed's stream whose OnePath path completes (points on OnePath's polygons).
fn same_polygons_section(
    name: &str,
    mesh: &TiledNavMesh,
    detour_mesh: &DetourNavMesh,
    mut detour: DetourEngine<'_>,
    rounds: usize,
) -> Result<(), PeerError> {
    let mut ours = OnePathEngine::new(mesh, ONEPATH_ITERATIONS);
    let polygons = world_polygons(mesh);
    let pairs = reachable_pairs(
        &mut ours,
        &polygons,
        REPORT_PAIRS,
        REPORT_SEED,
        REACHABLE_DRAWS,
    )?;
    let d = PathMetrics::from_results(&run_pairs(&mut detour, &pairs)?);
    let o = PathMetrics::from_results(&run_pairs(&mut ours, &pairs)?);
    let c = LengthComparison::new(&d, &o, SAME_POLYGON_LENGTH_TOLERANCE);
    println!(
        "  {name}: {} pairs complete in OnePath; complete in both {}, only Detour {}, only OnePath {}",
        pairs.len(),
        c.both_complete,
        c.only_first,
        c.only_second
    );
    println!(
        "  {name}: straight-path lengths within {:.1} %: {} / {}, largest difference {:.3} %, \
         totals Detour {:.6} OnePath {:.6} ({})",
        SAME_POLYGON_LENGTH_TOLERANCE * 100.0,
        c.within_tolerance,
        c.both_complete,
        c.max_relative_diff * 100.0,
        c.total_first,
        c.total_second,
        pct(c.total_ratio())
    );
    let _ = detour_mesh;

    // Snap once per engine; the path and raycast timings then cover only those calls.
    let mut snapped_d = Vec::new();
    let mut snapped_o = Vec::new();
    for &(s, e) in &pairs {
        if let (Some(a), Some(b), Some(x), Some(y)) = (
            detour.snap(s)?,
            detour.snap(e)?,
            ours.snap(s)?,
            ours.snap(e)?,
        ) {
            snapped_d.push((a, b));
            snapped_o.push((x, y));
        }
    }
    let points: Vec<[f32; 3]> = pairs.iter().flat_map(|&(s, e)| [s, e]).collect();
    let mut failure: Option<PeerError> = None;
    let mut note = |r: Result<(), PeerError>| {
        if let Err(e) = r {
            failure.get_or_insert(e);
        }
    };
    // Each engine's own corridors, for timing the string pulling alone.
    let mut corridors_d = Vec::with_capacity(snapped_d.len());
    let mut corridors_o = Vec::with_capacity(snapped_o.len());
    let mut iterations = 0u64;
    let mut detour_iterations = 0usize;
    for ((a, b), (x, y)) in snapped_d.iter().zip(&snapped_o) {
        let (c, _, n) = detour.corridor_counted(*a, *b)?;
        detour_iterations += n;
        corridors_d.push(c);
        iterations += ours.search(x, y)?.iterations;
        corridors_o.push(ours.corridor().to_vec());
    }
    let corridor_polys: usize = corridors_o.iter().map(Vec::len).sum();
    println!(
        "  {name}: polygons expanded by the searches: OnePath {iterations} (corridors of \
         {corridor_polys} polygons in all), Detour {detour_iterations} (sliced findPath; corridors \
         of {} polygons)",
        corridors_d.iter().map(Vec::len).sum::<usize>()
    );
    // The same searches on a compiled graph: alone (the same answers, checked here) and with
    // landmarks (an opt-in sharper heuristic: the same costs, fewer expansions).
    let mut compiled = OnePathEngine::new(mesh, ONEPATH_ITERATIONS);
    let build0 = compiled.use_compiled_graph(0)?;
    let mut alt = OnePathEngine::new(mesh, ONEPATH_ITERATIONS);
    let build = alt.use_compiled_graph(LANDMARKS)?;
    let mut exact = OnePathEngine::new(mesh, ONEPATH_ITERATIONS);
    let build_x = exact.use_exact_graph()?;
    let mut x_iterations = 0u64;
    let mut alt_iterations = 0u64;
    let mut alt_cost_diff = 0.0f64;
    for (x, y) in &snapped_o {
        let plain = ours.search(x, y)?;
        let same = compiled.search(x, y)?;
        if same != plain || compiled.corridor() != ours.corridor() {
            return Err(PeerError::input(
                "compiled graph",
                "an answer differs from the search without it",
            ));
        }
        let r = alt.search(x, y)?;
        alt_iterations += r.iterations;
        alt_cost_diff = alt_cost_diff.max((r.cost - plain.cost).abs() / plain.cost.max(1.0));
        if build_x.is_some() {
            let r = exact.search(x, y)?;
            x_iterations += r.iterations;
            alt_cost_diff = alt_cost_diff.max((r.cost - plain.cost).abs() / plain.cost.max(1.0));
        }
    }
    println!(
        "  {name}: compiled graph (built in {:.3} ms): every answer equal; with {LANDMARKS} \
         landmarks (built in {:.3} ms): polygons expanded {alt_iterations}, largest relative cost \
         difference to the plain search {alt_cost_diff:.1e}",
        build0.as_secs_f64() * 1e3,
        build.as_secs_f64() * 1e3
    );
    match build_x {
        Some(t) => println!(
            "  {name}: with the exact distance table (built in {:.3} ms): polygons expanded \
             {x_iterations}",
            t.as_secs_f64() * 1e3
        ),
        None => println!(
            "  {name}: no exact distance table (more polygons than MAX_EXACT_POLYGONS): no CG+X \
             rows"
        ),
    }
    let kinds: [(&str, usize); 11] = [
        ("nearest", points.len()),
        ("path + straight path", snapped_d.len()),
        ("raycast", snapped_d.len()),
        ("  path search alone", snapped_d.len()),
        ("  straight path alone", snapped_d.len()),
        ("path + straight (CG)", snapped_d.len()),
        ("  path search (CG)", snapped_d.len()),
        ("path + straight (CG+L)", snapped_d.len()),
        ("  path search (CG+L)", snapped_d.len()),
        ("path + straight (CG+X)", snapped_d.len()),
        ("  path search (CG+X)", snapped_d.len()),
    ];
    let mut rows = Vec::new();
    {
        let d = std::cell::RefCell::new(&mut detour);
        let o = std::cell::RefCell::new(&mut ours);
        let l = std::cell::RefCell::new(&mut alt);
        let cg = std::cell::RefCell::new(&mut compiled);
        let cx = std::cell::RefCell::new(&mut exact);
        let has_x = build_x.is_some();
        let note = std::cell::RefCell::new(&mut note);
        let keep = |r: Result<(), PeerError>| (note.borrow_mut())(r);
        let t = interleaved_rounds(
            rounds,
            &mut [
                &mut || {
                    for &p in &points {
                        keep(d.borrow().snap(p).map(sink));
                    }
                },
                &mut || {
                    for &p in &points {
                        keep(o.borrow_mut().snap(p).map(sink));
                    }
                },
                &mut || {
                    for &(a, b) in &snapped_d {
                        keep(d.borrow().path(a, b).map(sink));
                    }
                },
                &mut || {
                    for (a, b) in &snapped_o {
                        keep(o.borrow_mut().path(a, b).map(sink));
                    }
                },
                &mut || {
                    for &(a, b) in &snapped_d {
                        keep(d.borrow().raycast(a, b.pos).map(sink));
                    }
                },
                &mut || {
                    for (a, b) in &snapped_o {
                        keep(o.borrow_mut().raycast(a, b.point).map(sink));
                    }
                },
                &mut || {
                    for &(a, b) in &snapped_d {
                        keep(d.borrow().corridor(a, b).map(sink));
                    }
                },
                &mut || {
                    for (a, b) in &snapped_o {
                        keep(o.borrow_mut().search(a, b).map(sink));
                    }
                },
                &mut || {
                    for (&(a, b), c) in snapped_d.iter().zip(&corridors_d) {
                        keep(d.borrow().straight_path_along(a.pos, b.pos, c).map(sink));
                    }
                },
                &mut || {
                    for ((a, b), c) in snapped_o.iter().zip(&corridors_o) {
                        keep(
                            o.borrow_mut()
                                .straight_path_along(a.point, b.point, c)
                                .map(sink),
                        );
                    }
                },
                &mut || {
                    for &(a, b) in &snapped_d {
                        keep(d.borrow().path(a, b).map(sink));
                    }
                },
                &mut || {
                    for (a, b) in &snapped_o {
                        keep(cg.borrow_mut().path(a, b).map(sink));
                    }
                },
                &mut || {
                    for &(a, b) in &snapped_d {
                        keep(d.borrow().corridor(a, b).map(sink));
                    }
                },
                &mut || {
                    for (a, b) in &snapped_o {
                        keep(cg.borrow_mut().search(a, b).map(sink));
                    }
                },
                &mut || {
                    for &(a, b) in &snapped_d {
                        keep(d.borrow().path(a, b).map(sink));
                    }
                },
                &mut || {
                    for (a, b) in &snapped_o {
                        keep(l.borrow_mut().path(a, b).map(sink));
                    }
                },
                &mut || {
                    for &(a, b) in &snapped_d {
                        keep(d.borrow().corridor(a, b).map(sink));
                    }
                },
                &mut || {
                    for (a, b) in &snapped_o {
                        keep(l.borrow_mut().search(a, b).map(sink));
                    }
                },
                &mut || {
                    for &(a, b) in &snapped_d {
                        keep(d.borrow().path(a, b).map(sink));
                    }
                },
                &mut || {
                    for (a, b) in snapped_o.iter().filter(|_| has_x) {
                        keep(cx.borrow_mut().path(a, b).map(sink));
                    }
                },
                &mut || {
                    for &(a, b) in &snapped_d {
                        keep(d.borrow().corridor(a, b).map(sink));
                    }
                },
                &mut || {
                    for (a, b) in snapped_o.iter().filter(|_| has_x) {
                        keep(cx.borrow_mut().search(a, b).map(sink));
                    }
                },
            ],
        );
        for (k, (kind, n)) in kinds.iter().enumerate() {
            rows.push((*kind, *n, t[2 * k].clone(), t[2 * k + 1].clone()));
        }
    }
    if let Some(e) = failure {
        return Err(e);
    }
    println!(
        "  {name}: time per query, {rounds} interleaved rounds (min / median of the rounds; \
         ratio OnePath / Detour)"
    );
    for (kind, n, td, to) in rows {
        if build_x.is_none() && kind.contains("CG+X") {
            continue;
        }
        let per = |t: std::time::Duration| t.as_secs_f64() * 1e6 / n.max(1) as f64;
        println!(
            "    {kind:<22} x{n:<4} Detour {:9.3} / {:9.3} us   OnePath {:9.3} / {:9.3} us   ratio min {:.3} median {:.3}",
            per(td[0]),
            per(median(&td)),
            per(to[0]),
            per(median(&to)),
            ratio(to[0], td[0]),
            ratio(median(&to), median(&td))
        );
    }
    Ok(())
}

/// Landmarks of the compiled graph of the report's "CG+L" rows (a search reads the 4 that
/// bound its start best).
const LANDMARKS: usize = 16;

/// Relative straight-path length tolerance on the same polygons.
const SAME_POLYGON_LENGTH_TOLERANCE: f64 = 0.001;

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

/// Keeps a query result from being optimised away.
fn sink<T>(x: T) {
    std::hint::black_box(x);
}

/// Issue 14 item 3 (`-- --queries [rounds]`, only this part): nearest and raycast, OnePath
/// against Detour on the very same polygons, on nav_test tiled and as one tile (both
/// data-gated), the generated 32 x 32-tile grid and a generated sloped terrain; then the
/// same on a copy of each OnePath mesh after a seeded sequence of 100 tile replacements
/// (each a `replace_tile` of the tile's own data, or every fifth a remove and add), whose
/// answers are checked equal to the fresh mesh's first. Points are drawn on the polygons
/// and moved up or down by up to 0.8 of the climb (as the conformance test draws them); the
/// rays run between consecutive snapped points.
///
/// `QUERIES_PROFILE=nearest|raycast` (with `QUERIES_LEVEL=nav_test|one_tile|generated|
/// sloped`) instead runs OnePath's side alone, `rounds` times, for a profiler.
fn queries_section(rounds: usize) -> Result<(), PeerError> {
    let profile = std::env::var("QUERIES_PROFILE").ok();
    let only = std::env::var("QUERIES_LEVEL").ok();
    let wanted = |name: &str| only.as_deref().map_or(true, |o| o == name);
    let settings = RecastSettings::default();
    let mut levels: Vec<(&str, TiledNavMesh, DetourNavMesh)> = Vec::new();
    let nav_test = nav_test_path().map(|p| Level::load_obj(&p)).transpose()?;
    if let Some(level) = &nav_test {
        if wanted("nav_test") {
            let op = build_onepath(level, &settings)?;
            let dt = op.detour_mesh(settings.cell_height, SAME_POLYGONS_TOLERANCE)?;
            levels.push(("nav_test", op.built.mesh, dt));
        }
        if wanted("one_tile") {
            // 400 cells of 0.3 = 120 world units: the whole level in one tile.
            let one = RecastSettings {
                tile_size: 400.0,
                ..RecastSettings::default()
            };
            let op = build_onepath(level, &one)?;
            let dt = op.detour_mesh(one.cell_height, SAME_POLYGONS_TOLERANCE)?;
            levels.push(("one_tile", op.built.mesh, dt));
        }
    } else {
        println!(
            "queries: nav_test skipped (ONEPATH_DATA is not set or levels/nav_test.obj is absent)"
        );
    }
    if wanted("generated") {
        let g = generated_grid_mesh(32, 32, 4, GENERATED_SEED);
        let dt = detour_mesh(&g.mesh, 0.25, 0.0)?;
        levels.push(("generated", g.mesh, dt));
    }
    if wanted("sloped") {
        let op = build_onepath(&sloped_terrain(SLOPED_SEED), &settings)?;
        let dt = op.detour_mesh(settings.cell_height, SAME_POLYGONS_TOLERANCE)?;
        levels.push(("sloped", op.built.mesh, dt));
    }
    for (name, mesh, dt) in &levels {
        let detour = DetourEngine::new(dt)?;
        let mut ours = OnePathEngine::new(mesh, ONEPATH_ITERATIONS);
        let climb = f64::from(mesh.params().walkable_climb);
        let mut rng = SplitMix64::new(QUERIES_SEED);
        let drawn = sample_points(&world_polygons(mesh), QUERY_POINTS, &mut rng);
        let points: Vec<[f32; 3]> = drawn
            .iter()
            .map(|p| {
                let off = (rng.next_f64() * 2.0 - 1.0) * 0.8 * climb;
                [p[0], (f64::from(p[1]) + off) as f32, p[2]]
            })
            .collect();
        let mut snapped = Vec::new();
        for &p in &points {
            if let (Some(o), Some(d)) = (ours.snap(p)?, detour.snap(p)?) {
                snapped.push((p, o, d));
            }
        }
        let rays_o: Vec<(NearestPoly, [f64; 3])> = snapped
            .chunks_exact(2)
            .map(|w| (w[0].1, w[1].0.map(f64::from)))
            .collect();
        let rays_d: Vec<(Snapped, [f32; 3])> =
            snapped.chunks_exact(2).map(|w| (w[0].2, w[1].0)).collect();
        // The churned copy: 100 seeded tile replacements, answers checked against the fresh
        // mesh's before any timing.
        let mut churned = mesh.clone();
        churn(&mut churned, CHURN_STEPS, QUERIES_SEED ^ 0xC0FF_EE00)?;
        let mut fresh_q = OnePathEngine::new(mesh, ONEPATH_ITERATIONS);
        let mut churned_q = OnePathEngine::new(&churned, ONEPATH_ITERATIONS);
        for &p in &points {
            let a = fresh_q.snap(p)?;
            let b = churned_q.snap(p)?;
            if a.map(|n| (identity(mesh, n.poly), n.point.map(f64::to_bits)))
                != b.map(|n| (identity(&churned, n.poly), n.point.map(f64::to_bits)))
            {
                return Err(PeerError::input(
                    "churned mesh",
                    format!(
                        "{name}: the nearest polygon of {p:?} differs after the tile replacements"
                    ),
                ));
            }
        }
        let mut rays_c = Vec::with_capacity(rays_o.len());
        for (w, (start, end)) in snapped.chunks_exact(2).zip(&rays_o) {
            let Some(cs) = churned_q.snap(w[0].0)? else {
                return Err(PeerError::input(
                    "churned mesh",
                    format!("{name}: a ray start found no polygon"),
                ));
            };
            let ra = fresh_q.raycast(start, *end)?;
            let rb = churned_q.raycast(&cs, *end)?;
            if ra.t.to_bits() != rb.t.to_bits()
                || identity(mesh, ra.last_poly) != identity(&churned, rb.last_poly)
                || ra.cost.to_bits() != rb.cost.to_bits()
            {
                return Err(PeerError::input(
                    "churned mesh",
                    format!(
                        "{name}: the raycast from {:?} differs after the tile replacements",
                        start.point
                    ),
                ));
            }
            rays_c.push((cs, *end));
        }
        let mut churned_engine = OnePathEngine::new(&churned, ONEPATH_ITERATIONS);
        if let Some(kind) = &profile {
            let mut n = 0usize;
            for _ in 0..rounds.max(1) {
                match kind.as_str() {
                    "nearest" => {
                        for &p in &points {
                            n += usize::from(ours.snap(p)?.is_some());
                        }
                    }
                    "raycast" => {
                        for (s, e) in &rays_o {
                            n += usize::from(ours.raycast(s, *e)?.reached_end());
                        }
                    }
                    other => {
                        return Err(PeerError::input(
                            "QUERIES_PROFILE",
                            format!("{other:?}: expected nearest or raycast"),
                        ))
                    }
                }
            }
            println!("{name}: profiled {kind} x{rounds}: {n}");
            continue;
        }
        let mut failure: Option<PeerError> = None;
        let t = {
            let o = std::cell::RefCell::new(&mut ours);
            let c = std::cell::RefCell::new(&mut churned_engine);
            let note = std::cell::RefCell::new(&mut failure);
            let keep = |r: Result<(), PeerError>| {
                if let Err(e) = r {
                    note.borrow_mut().get_or_insert(e);
                }
            };
            interleaved_rounds(
                rounds,
                &mut [
                    &mut || {
                        for &p in &points {
                            keep(c.borrow_mut().snap(p).map(sink));
                        }
                    },
                    &mut || {
                        for &p in &points {
                            keep(detour.snap(p).map(sink));
                        }
                    },
                    &mut || {
                        for &p in &points {
                            keep(o.borrow_mut().snap(p).map(sink));
                        }
                    },
                    &mut || {
                        for (s, e) in &rays_c {
                            keep(c.borrow_mut().raycast(s, *e).map(sink));
                        }
                    },
                    &mut || {
                        for &(s, e) in &rays_d {
                            keep(detour.raycast(s, e).map(sink));
                        }
                    },
                    &mut || {
                        for (s, e) in &rays_o {
                            keep(o.borrow_mut().raycast(s, *e).map(sink));
                        }
                    },
                ],
            )
        };
        if let Some(e) = failure {
            return Err(e);
        }
        let us = |d: Duration, n: usize| d.as_secs_f64() * 1e6 / n.max(1) as f64;
        let rows = [("nearest", points.len(), 0), ("raycast", rays_d.len(), 3)];
        println!(
            "queries {name}: {} tiles, {} points, {} rays, {rounds} interleaved rounds",
            mesh.tile_count(),
            points.len(),
            rays_d.len()
        );
        // Per kind: the churned mesh, Detour, the fresh mesh (each task follows another kind
        // of work or the other engine, never the same rays on the same code).
        for (kind, n, i) in rows {
            let (d, f, c) = (i + 1, i + 2, i);
            println!(
                "  {kind:8} x{n:<4} Detour {:.3} / {:.3} us  OnePath {:.3} / {:.3} us (ratio min {:.3} \
                 median {:.3})  after {CHURN_STEPS} replacements {:.3} / {:.3} us (ratio min {:.3} median {:.3})",
                us(t[d][0], n),
                us(median(&t[d]), n),
                us(t[f][0], n),
                us(median(&t[f]), n),
                ratio(t[f][0], t[d][0]),
                ratio(median(&t[f]), median(&t[d])),
                us(t[c][0], n),
                us(median(&t[c]), n),
                ratio(t[c][0], t[d][0]),
                ratio(median(&t[c]), median(&t[d])),
            );
        }
    }
    Ok(())
}

/// A polygon named independently of slot generations: its tile's position and its index.
fn identity(mesh: &TiledNavMesh, r: PolyRef) -> Option<((i32, i32, u16), usize)> {
    let (t, i) = mesh.poly(r).ok()?;
    Some((t.tile().position(), i))
}

/// `steps` seeded tile replacements on `mesh`: each picks a tile and replaces it with its
/// own data (`replace_tile`), every fifth instead removes it and adds it back.
fn churn(mesh: &mut TiledNavMesh, steps: usize, seed: u64) -> Result<(), PeerError> {
    let mut rng = SplitMix64::new(seed);
    let mesh_error =
        |e: onepath_mesh::MeshError| PeerError::input("tile replacement", e.to_string());
    for step in 0..steps {
        let tiles: Vec<TileRef> = mesh.tiles().map(|t| t.tile_ref()).collect();
        let Some(&r) = tiles.get((rng.next_u64() % tiles.len().max(1) as u64) as usize) else {
            return Ok(());
        };
        if step % 5 == 4 {
            let tile = mesh.remove_tile(r).map_err(mesh_error)?;
            mesh.add_tile(tile).map_err(mesh_error)?;
        } else {
            let tile = mesh
                .tile(r)
                .map(|t| t.tile().clone())
                .ok_or_else(|| PeerError::input("tile replacement", "a listed tile is gone"))?;
            mesh.replace_tile(tile).map_err(mesh_error)?;
        }
    }
    Ok(())
}

/// Points per level of the query section (nearest over all, rays between consecutive ones).
const QUERY_POINTS: usize = 200;
/// Seed of the query section's points.
const QUERIES_SEED: u64 = 0x14_0300;
/// Seed of the sloped terrain (the conformance test's level).
const SLOPED_SEED: u64 = 0x14_0005;
/// Tile replacements before the churned measurement.
const CHURN_STEPS: usize = 100;

/// The X/Z length of a corner list (float64 sums).
fn xz_length(corners: &[[f32; 3]]) -> f64 {
    corners
        .windows(2)
        .map(|w| {
            let dx = f64::from(w[1][0]) - f64::from(w[0][0]);
            let dz = f64::from(w[1][2]) - f64::from(w[0][2]);
            (dx * dx + dz * dz).sqrt()
        })
        .sum()
}

/// Issue 14 item 2 (`-- --paths [rounds]`, only this part): per level (nav_test tiled and as
/// one tile, both data-gated; a generated dungeon; a generated sloped terrain; the generated
/// 32 x 32-tile grid) 64 seeded pairs snapped by Detour whose Detour path completes, the
/// same polygons and points handed to OnePath (`onepath_peers::paths`); for each path model
/// (v1: polygon centres, v2: portal crossings) the length table (pairs found, corridor
/// polygons, total straight-path length against Detour's, the worst pair's excess, pairs
/// more than 1 % longer, polygons expanded); then path + straight path timed, Detour and
/// both models interleaved, median (min) ratio OnePath / Detour.
///
/// `PATHS_SPACING` (world units) and `PATHS_MAX` override model v2's sampling, for tuning;
/// `PATHS_PROFILE=v1|v2` runs only that OnePath model's path + straight path, `rounds` times
/// (for a profiler);
/// `PATHS_LEVEL=nav_test|one_tile|dungeon|sloped|generated` runs one level;
/// `PATHS_REFINED=polygon|directed|anchor|anchor_pick|cone` adds the lengths of the refined-points experiment
/// (`onepath_peers::paths::refined_corridor`), `PATHS_REFINED_SHOW=x` prints its pairs more
/// than the fraction `x` longer than Detour's, with both corridors' cost in that search;
/// `PATHS_PAIRS_SEED=<hex>` draws other pairs than the length table's.
fn paths_section(rounds: usize) -> Result<(), PeerError> {
    let only = std::env::var("PATHS_LEVEL").ok();
    let wanted = |name: &str| only.as_deref().map_or(true, |o| o == name);
    let settings = RecastSettings::default();
    let mut levels: Vec<(&str, TiledNavMesh, DetourNavMesh, bool)> = Vec::new();
    let nav_test = nav_test_path().map(|p| Level::load_obj(&p)).transpose()?;
    if let Some(level) = &nav_test {
        if wanted("nav_test") {
            let op = build_onepath(level, &settings)?;
            let dt = op.detour_mesh(settings.cell_height, SAME_POLYGONS_TOLERANCE)?;
            levels.push(("nav_test", op.built.mesh, dt, false));
        }
        if wanted("one_tile") {
            let one = RecastSettings {
                tile_size: 400.0,
                ..RecastSettings::default()
            };
            let op = build_onepath(level, &one)?;
            let dt = op.detour_mesh(one.cell_height, SAME_POLYGONS_TOLERANCE)?;
            levels.push(("one_tile", op.built.mesh, dt, false));
        }
    } else {
        println!(
            "paths: nav_test skipped (ONEPATH_DATA is not set or levels/nav_test.obj is absent)"
        );
    }
    if wanted("dungeon") {
        let op = build_onepath(&dungeon(DUNGEON_SEED), &settings)?;
        let dt = op.detour_mesh(settings.cell_height, SAME_POLYGONS_TOLERANCE)?;
        levels.push(("dungeon", op.built.mesh, dt, false));
    }
    if wanted("sloped") {
        let op = build_onepath(&sloped_terrain(SLOPED_SEED), &settings)?;
        let dt = op.detour_mesh(settings.cell_height, SAME_POLYGONS_TOLERANCE)?;
        levels.push(("sloped", op.built.mesh, dt, false));
    }
    if wanted("generated") {
        let g = generated_grid_mesh(32, 32, 4, GENERATED_SEED);
        let dt = detour_mesh(&g.mesh, 0.25, 0.0)?;
        levels.push(("generated", g.mesh, dt, true));
    }
    let env_f64 = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<f64>().ok());
    for (name, mesh, dt, large) in &levels {
        let mut detour = if *large {
            DetourEngine::with_limits(dt, 65_535, 4096)?
        } else {
            DetourEngine::new(dt)?
        };
        let mut sampling = PortalSampling::for_agent_radius(f64::from(mesh.params().agent_radius));
        if let Some(s) = env_f64("PATHS_SPACING") {
            sampling.spacing = s;
        }
        if let Some(m) = env_f64("PATHS_MAX") {
            sampling.max_samples = m as u8;
        }
        // `PATHS_PAIRS_SEED` (hexadecimal) draws other pairs, for a robustness look.
        let seed = std::env::var("PATHS_PAIRS_SEED")
            .ok()
            .and_then(|v| u64::from_str_radix(v.trim_start_matches("0x"), 16).ok())
            .unwrap_or(PATHS_SEED);
        let pairs = same_pairs(mesh, &detour, LENGTH_PAIRS, seed)?;
        let mut v1 = OnePathEngine::new(mesh, ONEPATH_ITERATIONS);
        let mut v2 = OnePathEngine::new(mesh, ONEPATH_ITERATIONS);
        v2.set_path_model(PathModel::Portals(sampling));
        // Model v2 with landmark estimates (opt-in; its table is built by its first search).
        let mut v2l = OnePathEngine::new(mesh, ONEPATH_ITERATIONS);
        v2l.set_path_model(PathModel::Portals(sampling));
        v2l.set_portal_landmarks(true);
        let mut detour_iterations = 0usize;
        for p in &pairs {
            detour_iterations += detour.corridor_counted(p.start, p.end)?.2;
        }
        println!(
            "paths {name}: {} tiles, {} pairs (Detour expanded {detour_iterations}); v2 sampling: \
             spacing {:.3}, at most {} per crossing",
            mesh.tile_count(),
            pairs.len(),
            sampling.spacing,
            sampling.max_samples
        );
        let row1 = length_row(&detour, &mut v1, &pairs)?;
        let row2 = length_row(&detour, &mut v2, &pairs)?;
        let row3 = length_row(&detour, &mut v2l, &pairs)?;
        for (model, row) in [
            ("v1 centres", &row1),
            ("v2 portals", &row2),
            ("v2 + landmarks", &row3),
        ] {
            print_length_row(model, row);
        }
        // Every v2 answer (status, cost bits, iterations, corridor by tile position and index,
        // corners) folded into one FNV-1a digest: equal digests across commits = equal answers.
        let mut digest = 0xCBF2_9CE4_8422_2325u64;
        for p in &pairs {
            let (o, r) = v2.path_between(p.start_ref, p.start_pos(), p.end_ref, p.end_pos())?;
            let c: Vec<_> = v2.corridor().iter().map(|&r| identity(mesh, r)).collect();
            let text = format!(
                "{:?} {:016x} {} {:?} {:?}",
                r.status,
                r.cost.to_bits(),
                r.iterations,
                c,
                o.corners
            );
            for byte in text.bytes() {
                digest = (digest ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3);
            }
        }
        println!("  v2 answers digest: {digest:016x}");
        if let Some(variant) = std::env::var("PATHS_REFINED")
            .ok()
            .and_then(|v| match v.as_str() {
                "polygon" => Some(RefinedVariant::Polygon),
                "directed" => Some(RefinedVariant::Directed),
                "anchor" => Some(RefinedVariant::Anchor),
                "anchor_pick" => Some(RefinedVariant::AnchorPick),
                "cone" => Some(RefinedVariant::Cone),
                _ => None,
            })
        {
            let filter = onepath_mesh::query::QueryFilter::new();
            let (mut td, mut tr, mut worst, mut over, mut exp, mut found) =
                (0.0, 0.0, f64::NEG_INFINITY, 0usize, 0usize, 0usize);
            for p in &pairs {
                let d = detour.path(p.start, p.end)?;
                let Some((corr, e, cost)) = refined_corridor(mesh, &filter, p, variant, None)
                else {
                    continue;
                };
                found += 1;
                exp += e;
                if d.partial {
                    continue;
                }
                let corners = v1.straight_path_along(p.start_pos(), p.end_pos(), &corr)?;
                let (ld, lr) = (d.length(), onepath_peers::metrics::path_length(&corners));
                td += ld;
                tr += lr;
                let x = if ld > 0.0 { (lr - ld) / ld } else { 0.0 };
                if x > std::env::var("PATHS_REFINED_SHOW")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(f64::INFINITY)
                {
                    println!(
                        "    pair {:?} -> {:?}: refined {lr:.3} ({} polygons, X/Z {:.3}), Detour {ld:.3} ({} polygons, X/Z {:.3})",
                        p.start_pos(),
                        p.end_pos(),
                        corr.len(),
                        xz_length(&corners),
                        d.corridor_len,
                        xz_length(&d.corners)
                    );
                    // The search's own cost of its corridor and of Detour's.
                    let map = onepath_peers::onepath::DetourRefMap::new(mesh);
                    let dc: Vec<PolyRef> = detour
                        .corridor(p.start, p.end)?
                        .0
                        .iter()
                        .filter_map(|&r| map.to_onepath(mesh, r))
                        .collect();
                    let on_detour = refined_corridor(mesh, &filter, p, variant, Some(&dc))
                        .map(|(c, _, k)| (c.len(), k));
                    println!("      search cost {cost:.3}; within Detour's corridor {on_detour:?}");
                }
                worst = f64::max(worst, x);
                over += usize::from(x > 0.01);
            }
            println!(
                "  refined {variant:?} (experiment): found {found}, expanded {exp}, length {tr:.3} against \
                 Detour {td:.3} ({:+.2} %), worst pair {:+.3} %, pairs over +1 %: {over}",
                (tr - td) / td * 100.0,
                worst * 100.0
            );
            if rounds > 0 {
                // The experiment's path + straight path against Detour's, interleaved (the
                // experiment keeps its states in a BTreeMap and allocates per search: an
                // upper bound of what the structure costs).
                let mut run_refined = || {
                    for p in &pairs {
                        if let Some((corr, _, _)) =
                            refined_corridor(mesh, &filter, p, variant, None)
                        {
                            let _ = v1.straight_path_along(p.start_pos(), p.end_pos(), &corr);
                        }
                    }
                };
                let mut run_detour = || {
                    for p in &pairs {
                        let _ = detour.path(p.start, p.end);
                    }
                };
                // The `cone` form over flat tables (crossings read once per mesh).
                let table = RefinedGraph::new(mesh, &filter);
                let mut v1b = OnePathEngine::new(mesh, ONEPATH_ITERATIONS);
                let mut search = RefinedSearch::default();
                let mut corridor = Vec::new();
                let (mut tl, mut tdl, mut texp, mut tover) = (0.0, 0.0, 0usize, 0usize);
                for p in &pairs {
                    let d = detour.path(p.start, p.end)?;
                    if let Some(e) = table.cone_corridor(&mut search, p, &mut corridor) {
                        texp += e;
                        let c = v1b.straight_path_along(p.start_pos(), p.end_pos(), &corridor)?;
                        let (ld, lr) = (d.length(), onepath_peers::metrics::path_length(&c));
                        tl += lr;
                        tdl += ld;
                        tover += usize::from(ld > 0.0 && (lr - ld) / ld > 0.01);
                    }
                }
                println!(
                    "  cone over tables: expanded {texp}, length {tl:.3} against Detour {tdl:.3} ({:+.2} %), pairs over +1 %: {tover}",
                    (tl - tdl) / tdl * 100.0
                );
                let mut run_table = || {
                    for p in &pairs {
                        if table.cone_corridor(&mut search, p, &mut corridor).is_some() {
                            let _ = v1b.straight_path_along(p.start_pos(), p.end_pos(), &corridor);
                        }
                    }
                };
                let times = interleaved_rounds(
                    rounds,
                    &mut [&mut run_detour, &mut run_refined, &mut run_table],
                );
                let us =
                    |t: &[std::time::Duration]| median(t).as_secs_f64() * 1e6 / pairs.len() as f64;
                println!(
                    "  refined {variant:?} path + straight path: {:.2} us per query (ratio {:.3}); cone over tables {:.2} us (ratio {:.3}); Detour {:.2} us",
                    us(&times[1]),
                    us(&times[1]) / us(&times[0]),
                    us(&times[2]),
                    us(&times[2]) / us(&times[0]),
                    us(&times[0]),
                );
            }
        }
        // Landmark estimates are admissible, so both searches find the optimum of the same
        // graph: equal costs up to rounding (the sums are taken in another order only when a
        // tie picks another path). A pair cheaper with landmarks means the plain search is
        // wrong; dearer, the estimate is not admissible.
        let (mut same, mut other_path, mut worst) = (0usize, 0usize, 0.0f64);
        for p in &pairs {
            let (_, a) = v2.path_between(p.start_ref, p.start_pos(), p.end_ref, p.end_pos())?;
            let ca: Vec<_> = v2.corridor().to_vec();
            let (_, b) = v2l.path_between(p.start_ref, p.start_pos(), p.end_ref, p.end_pos())?;
            same += usize::from(a.cost.to_bits() == b.cost.to_bits());
            other_path += usize::from(ca.as_slice() != v2l.corridor());
            if a.cost > 0.0 {
                worst = worst.max(((b.cost - a.cost) / a.cost).abs());
            }
        }
        println!(
            "  v2 + landmarks against v2: cost bits equal {same}/{}, other corridor {other_path}, \
             largest relative cost difference {worst:.3e}",
            pairs.len()
        );
        if worst > 1e-12 {
            println!("  v2 + landmarks: COST DIFFERS beyond rounding (estimate not admissible?)");
        }
        if rounds == 0 {
            continue;
        }
        if let Ok(which) = std::env::var("PATHS_PROFILE") {
            let e = match which.as_str() {
                "v1" => &mut v1,
                "v2l" => &mut v2l,
                _ => &mut v2,
            };
            let mut n = 0usize;
            for _ in 0..rounds {
                for p in &pairs {
                    let (o, _) =
                        e.path_between(p.start_ref, p.start_pos(), p.end_ref, p.end_pos())?;
                    n += o.corners.len();
                }
            }
            println!("  profiled {which} x{rounds}: {n} corners");
            continue;
        }
        // The churned copy: 100 seeded tile replacements; every v2 answer (status, cost bits,
        // iterations, corridor by tile position and index, corners) checked equal to the
        // fresh mesh's before timing.
        let mut churned = mesh.clone();
        churn(&mut churned, CHURN_STEPS, PATHS_SEED ^ 0xC0FF_EE00)?;
        let remap = |r: PolyRef| -> Result<PolyRef, PeerError> {
            identity(mesh, r)
                .and_then(|((x, z, l), i)| churned.tile_at(x, z, l)?.poly_ref(i as u32))
                .ok_or_else(|| PeerError::input("churned mesh", "a polygon has no counterpart"))
        };
        let mut churned_pairs = Vec::with_capacity(pairs.len());
        for p in &pairs {
            churned_pairs.push((
                remap(p.start_ref)?,
                p.start_pos(),
                remap(p.end_ref)?,
                p.end_pos(),
            ));
        }
        let mut v2c = OnePathEngine::new(&churned, ONEPATH_ITERATIONS);
        v2c.set_path_model(PathModel::Portals(sampling));
        for (p, c) in pairs.iter().zip(&churned_pairs) {
            let (oa, ra) = v2.path_between(p.start_ref, p.start_pos(), p.end_ref, p.end_pos())?;
            let ca: Vec<_> = v2.corridor().iter().map(|&r| identity(mesh, r)).collect();
            let (ob, rb) = v2c.path_between(c.0, c.1, c.2, c.3)?;
            let cb: Vec<_> = v2c
                .corridor()
                .iter()
                .map(|&r| identity(&churned, r))
                .collect();
            if (
                ra.status,
                ra.cost.to_bits(),
                ra.iterations,
                &ca,
                &oa.corners,
            ) != (
                rb.status,
                rb.cost.to_bits(),
                rb.iterations,
                &cb,
                &ob.corners,
            ) {
                return Err(PeerError::input(
                    "churned mesh",
                    format!("{name}: a v2 path differs after the tile replacements"),
                ));
            }
        }
        let mut failure: Option<PeerError> = None;
        let t = {
            let a = std::cell::RefCell::new(&mut v1);
            let b = std::cell::RefCell::new(&mut v2);
            let bc = std::cell::RefCell::new(&mut v2c);
            let bl = std::cell::RefCell::new(&mut v2l);
            let note = std::cell::RefCell::new(&mut failure);
            let keep = |r: Result<(), PeerError>| {
                if let Err(e) = r {
                    note.borrow_mut().get_or_insert(e);
                }
            };
            // One OnePath engine over the level's pairs.
            let onepath = |e: &std::cell::RefCell<&mut OnePathEngine<'_>>| {
                for p in &pairs {
                    keep(
                        e.borrow_mut()
                            .path_between(p.start_ref, p.start_pos(), p.end_ref, p.end_pos())
                            .map(sink),
                    );
                }
            };
            interleaved_rounds(
                rounds,
                &mut [
                    &mut || {
                        for p in &pairs {
                            keep(detour.path(p.start, p.end).map(sink));
                        }
                    },
                    &mut || onepath(&a),
                    &mut || onepath(&b),
                    &mut || {
                        for c in &churned_pairs {
                            keep(bc.borrow_mut().path_between(c.0, c.1, c.2, c.3).map(sink));
                        }
                    },
                    &mut || onepath(&bl),
                ],
            )
        };
        if let Some(e) = failure {
            return Err(e);
        }
        let n = pairs.len().max(1) as f64;
        let us = |d: Duration| d.as_secs_f64() * 1e6 / n;
        println!(
            "  path + straight path x{} ({rounds} interleaved rounds): Detour {:.2} us; v1 {:.2} us \
             (ratio median {:.3}, min {:.3}); v2 {:.2} us (ratio median {:.3}, min {:.3}); v2 after \
             {CHURN_STEPS} tile replacements {:.2} us (ratio median {:.3}, min {:.3}); v2 + \
             landmarks {:.2} us (ratio median {:.3}, min {:.3})",
            pairs.len(),
            us(median(&t[0])),
            us(median(&t[1])),
            ratio(median(&t[1]), median(&t[0])),
            ratio(t[1][0], t[0][0]),
            us(median(&t[2])),
            ratio(median(&t[2]), median(&t[0])),
            ratio(t[2][0], t[0][0]),
            us(median(&t[3])),
            ratio(median(&t[3]), median(&t[0])),
            ratio(t[3][0], t[0][0]),
            us(median(&t[4])),
            ratio(median(&t[4]), median(&t[0])),
            ratio(t[4][0], t[0][0]),
        );
    }
    Ok(())
}

fn print_length_row(model: &str, r: &LengthRow) {
    println!(
        "  {model}: found {}/{} (Detour {}), polygons {} (Detour {}), expanded {}, length {:.3} \
         against Detour {:.3} ({}), worst pair {} {:+.3} %, pairs over +1 %: {}{}",
        r.found_onepath,
        r.pairs,
        r.found_detour,
        r.polys_onepath,
        r.polys_detour,
        r.iterations,
        r.total_onepath,
        r.total_detour,
        pct(r.total_ratio()),
        r.worst_pair,
        r.worst_excess * 100.0,
        r.over_one_percent,
        if r.meets_bound() {
            "  [bound holds]"
        } else {
            "  [bound FAILS]"
        }
    );
}

/// Default rounds of `--paths`.
const PATH_ROUNDS: usize = 30;
/// Seed of the `--paths` pairs.
const PATHS_SEED: u64 = 0x14_0200;
/// Seed of the dungeon (the conformance test's level).
const DUNGEON_SEED: u64 = 0x14_0003;
