//! The tile cache comparison (issue 15): DetourTileCache and `onepath-tilecache` on the
//! generated `city` level (tiles of 64 cells, Layers, no detail sampling) and, when
//! `$ONEPATH_DATA` holds it, on `nav_test.obj` (tiles of 48 cells): 16 cylinders added and
//! then removed one at a time, each followed by an update of everything. Prints ms per
//! cycle for both, measured in interleaved rounds in one run (the machine's load hits both
//! alike), their ratio, and the work per cycle (layer builds; OnePath's shortcuts).
//!
//! `cargo run --release --bin tilecache_report [-- <rounds>]`

use std::process::ExitCode;
use std::time::Duration;

use onepath_peers::compare::{interleaved_rounds, median, ratio};
use onepath_peers::level::nav_test_path;
use onepath_peers::tilecache::{
    city_level, cycle_cylinders, cycle_settings, DetourTileCacheRun, OnePathTileCacheRun,
};
use onepath_peers::{Level, PeerError};

/// Cycles per round: 16 additions and 16 removals.
const CYCLES: u32 = 32;

fn ms_per_cycle(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0 / f64::from(CYCLES)
}

/// Runs the comparison on a pool of one thread, both sides on that same thread: OnePath's
/// rayon calls stay on it (one thread, as DetourTileCache), and no round waits for another
/// thread to be woken (on a loaded machine that wait, once per round, cost OnePath more than
/// its own work on nav_test).
fn compare(name: &str, level: &Level, tile_cells: u32, rounds: usize) -> Result<(), PeerError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| PeerError::input("thread pool", e.to_string()))?;
    pool.install(|| compare_here(name, level, tile_cells, rounds))
}

fn compare_here(
    name: &str,
    level: &Level,
    tile_cells: u32,
    rounds: usize,
) -> Result<(), PeerError> {
    let settings = cycle_settings(tile_cells);
    let cylinders = cycle_cylinders(level)?;
    if let Ok(which) = std::env::var("TILECACHE_PROFILE") {
        return profile_one(name, level, &settings, &cylinders, &which, rounds);
    }
    let mut detour = DetourTileCacheRun::build(level, &settings)?;
    let mut onepath = OnePathTileCacheRun::build(level, &settings)?;
    // The same cache with repair turned off (every changed layer built from scratch; the
    // same bytes), interleaved with the other two.
    let mut scratch = OnePathTileCacheRun::build(level, &settings)?;
    scratch.cache.set_repair(false);
    scratch.cycles(&cylinders)?;
    // One warm-up round each, which also gives the work per round.
    let before = detour.layer_builds;
    detour.cycles(&cylinders)?;
    let detour_builds = detour.layer_builds - before;
    let s0 = onepath.cache.stats();
    onepath.cycles(&cylinders)?;
    let s = onepath.cache.stats();
    let mut failure = None;
    let times = {
        let mut run_detour = || {
            if let Err(e) = detour.cycles(&cylinders) {
                failure.get_or_insert(e);
            }
        };
        let mut failure2 = None;
        let mut run_onepath = || {
            if let Err(e) = onepath.cycles(&cylinders) {
                failure2.get_or_insert(e);
            }
        };
        let mut failure3 = None;
        let mut run_scratch = || {
            if let Err(e) = scratch.cycles(&cylinders) {
                failure3.get_or_insert(e);
            }
        };
        // Whichever OnePath run follows DetourTileCache pays for the caches it left, so
        // repair on and off take turns at that place, round by round.
        let mut t: Vec<Vec<_>> = (0..3).map(|_| Vec::with_capacity(rounds.max(1))).collect();
        for round in 0..rounds.max(1) {
            let r = if round % 2 == 0 {
                interleaved_rounds(
                    1,
                    &mut [&mut run_detour, &mut run_onepath, &mut run_scratch],
                )
            } else {
                let mut r = interleaved_rounds(
                    1,
                    &mut [&mut run_detour, &mut run_scratch, &mut run_onepath],
                );
                r.swap(1, 2);
                r
            };
            for (k, v) in r.into_iter().enumerate() {
                t[k].extend(v);
            }
        }
        for v in &mut t {
            v.sort();
        }
        if let Some(e) = failure2.or(failure3) {
            return Err(e);
        }
        t
    };
    if let Some(e) = failure {
        return Err(e);
    }
    let (d, o) = (median(&times[0]), median(&times[1]));
    let (tiles, polys) = detour.counts();
    println!("== {name} (tiles of {tile_cells} cells, Layers, no detail sampling) ==");
    println!(
        "DetourTileCache: {} layers, navmesh {tiles} tiles / {polys} polygons; \
         {:.2} layer builds per cycle",
        detour.layers,
        detour_builds as f64 / f64::from(CYCLES)
    );
    let mesh = onepath.cache.mesh();
    let opolys: usize = mesh.tiles().map(|t| t.tile().poly_count()).sum();
    let oarea: f64 = mesh.tiles().map(|t| walkable_area(t.tile().data())).sum();
    let per = |n: usize| n as f64 / f64::from(CYCLES);
    println!(
        "onepath-tilecache: {} cached tiles, mesh {} tiles / {opolys} polygons / walkable \
         area {oarea:.1} m²; per cycle: \
         {:.2} tiles processed, {:.2} rebuilt ({:.2} layer builds, {:.2} layers of changed \
         tiles taken without building), {:.2} first-build, {:.2} unchanged; layers kept {:.2}, \
         replaced {:.2}, added {:.2}, removed {:.2}",
        onepath.cache.cached_tiles().len(),
        mesh.tile_count(),
        per(s.tiles - s0.tiles),
        per(s.rebuilt - s0.rebuilt),
        per(s.layers_built - s0.layers_built),
        per(s.layers_reused - s0.layers_reused),
        per(s.first_build - s0.first_build),
        per(s.unchanged - s0.unchanged),
        per(s.layers_kept - s0.layers_kept),
        per(s.layers_replaced - s0.layers_replaced),
        per(s.layers_added - s0.layers_added),
        per(s.layers_removed - s0.layers_removed),
    );
    let layers = s.layers_built - s0.layers_built;
    println!(
        "onepath-tilecache layer builds per cycle {:.2}: repaired {:.2} ({:.0} %), from \
         scratch {:.2} (a: not only removed {:.2}, b: small region {:.2}, c: split {:.2}, \
         d: renumbered {:.2}, no memo {:.2})",
        per(layers),
        per(s.layers_repaired - s0.layers_repaired),
        100.0 * (s.layers_repaired - s0.layers_repaired) as f64 / layers.max(1) as f64,
        per(layers - (s.layers_repaired - s0.layers_repaired)),
        per(s.scratch_not_only_removed - s0.scratch_not_only_removed),
        per(s.scratch_small_region - s0.scratch_small_region),
        per(s.scratch_split - s0.scratch_split),
        per(s.scratch_renumbered - s0.scratch_renumbered),
        per(s.scratch_repair_off - s0.scratch_repair_off),
    );
    println!(
        "onepath-tilecache with repair off: {:.3} ms per cycle (best {:.3}); ratio to \
         DetourTileCache {:.2}; repair on / off {:.2}",
        ms_per_cycle(median(&times[2])),
        ms_per_cycle(times[2][0]),
        ratio(median(&times[2]), d),
        ratio(o, median(&times[2])),
    );
    println!(
        "ms per cycle, median of {rounds} interleaved rounds: DetourTileCache {:.3} \
         (best {:.3}), onepath-tilecache {:.3} (best {:.3}); ratio onepath / detour {:.2} \
         (best {:.2})",
        ms_per_cycle(d),
        ms_per_cycle(times[0][0]),
        ms_per_cycle(o),
        ms_per_cycle(times[1][0]),
        ratio(o, d),
        ratio(times[1][0], times[0][0]),
    );
    Ok(())
}

/// `TILECACHE_PROFILE=onepath|detour`: builds only that side's cache and runs its cycles
/// `rounds` times, nothing else (for instruction and allocation counts under callgrind or
/// heaptrack, where the other side and the interleaving would only blur the picture).
fn profile_one(
    name: &str,
    level: &Level,
    settings: &onepath_peers::RecastSettings,
    cylinders: &[([f32; 3], f32, f32)],
    which: &str,
    rounds: usize,
) -> Result<(), PeerError> {
    let start = std::time::Instant::now();
    match which {
        "onepath" => {
            let mut run = OnePathTileCacheRun::build(level, settings)?;
            for _ in 0..rounds {
                run.cycles(cylinders)?;
            }
        }
        "detour" => {
            let mut run = DetourTileCacheRun::build(level, settings)?;
            for _ in 0..rounds {
                run.cycles(cylinders)?;
            }
        }
        other => {
            return Err(PeerError::input(
                "TILECACHE_PROFILE",
                format!("{other:?}: expected onepath or detour"),
            ))
        }
    }
    println!(
        "{name}: {which}, {rounds} rounds of {CYCLES} cycles after the build, {:.1} ms in all",
        start.elapsed().as_secs_f64() * 1000.0
    );
    Ok(())
}

/// Sum of a tile's polygon areas in the X/Z plane (world units², shoelace on the stored
/// positions in f64), for comparing partitions: a partition changes how the walkable
/// surface is cut, not how much of it there is.
fn walkable_area(data: &onepath_format::NavTileData) -> f64 {
    let mut first = 0;
    let mut twice = 0.0;
    for &n in &data.poly_sizes {
        let corners = &data.corners[first..first + usize::from(n)];
        first += usize::from(n);
        let mut s = 0.0;
        for k in 0..corners.len() {
            let a = data.vertices[usize::from(corners[k])];
            let b = data.vertices[usize::from(corners[(k + 1) % corners.len()])];
            s += f64::from(a[0]) * f64::from(b[2]) - f64::from(b[0]) * f64::from(a[2]);
        }
        twice += f64::abs(s);
    }
    twice * 0.5
}

fn main() -> ExitCode {
    let rounds = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(15);
    let run = || -> Result<(), PeerError> {
        compare("city", &city_level(), 64, rounds)?;
        match nav_test_path() {
            Some(path) => compare("nav_test", &Level::load_obj(&path)?, 48, rounds)?,
            None => println!("nav_test skipped: ONEPATH_DATA is not set or the level is absent"),
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tilecache_report: {e}");
            ExitCode::FAILURE
        }
    }
}
