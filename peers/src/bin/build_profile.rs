//! One builder on one level, for a profiler (issue 21's build speed): builds a level `runs`
//! times on one thread, OnePath (`onepath`, from its prebuilt `ChunkyTriMesh`, as
//! `recast_report --levels` times it) or Recast (`recast`, from its prebuilt chunky mesh), and
//! prints the tile and polygon counts once, after the last build. Under
//! `valgrind --tool=callgrind` the difference between `runs` = 2 and `runs` = 1 is the
//! instruction count of one build, independent of machine load. `time` instead runs `runs`
//! interleaved rounds of Recast (1 thread), OnePath (1 thread) and OnePath (all threads) and
//! prints min / median build times and OnePath / Recast ratios, as `recast_report --levels`,
//! both wall-clock and CPU time (Linux: every thread's run time from `/proc/self/task`; on a
//! loaded machine the wall-clock time of a build also holds the time its threads wait for a
//! core, which hits OnePath's hand-over to its rayon worker and not Recast's inline build).
//!
//! `cargo run --release --bin build_profile -- <nav_test|steep|city|terrain|bridge> <32|64>
//! <onepath|recast|time> [runs]`

use std::process::ExitCode;
use std::time::{Duration, Instant};

use onepath_build3d::generators::{
    building_with_bridge, city, rolling_terrain, CityParams, TerrainParams,
};
use onepath_build3d::Mesh3DPipeline;
use onepath_peers::compare::{median, ratio};
use onepath_peers::level::nav_test_path;
use onepath_peers::onepath::{build_chunk, build_config, level_of, triangle_soup};
use onepath_peers::recast::{build_tiled_chunky, ChunkyTriMesh, TRIS_PER_CHUNK};
use onepath_peers::{Level, PeerError, RecastSettings};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("build_profile: {e}");
            ExitCode::FAILURE
        }
    }
}

fn onepath_error(call: &'static str) -> impl Fn(onepath_build3d::BuildError) -> PeerError {
    move |e| PeerError::OnePath {
        call,
        reason: e.to_string(),
    }
}

fn level(name: &str) -> Result<Level, PeerError> {
    let grid = |p: &TerrainParams| {
        rolling_terrain(p)
            .to_soup()
            .map_err(onepath_error("HeightGrid::to_soup"))
    };
    Ok(match name {
        "nav_test" => {
            let p = nav_test_path()
                .ok_or_else(|| PeerError::input("level", "set ONEPATH_DATA for nav_test"))?;
            Level::load_obj(&p)?
        }
        "steep" => level_of(&grid(&TerrainParams::steep())?),
        "city" => level_of(&city(&CityParams::default())),
        "terrain" => level_of(&grid(&TerrainParams::default())?),
        "bridge" => level_of(&building_with_bridge(3)),
        other => {
            return Err(PeerError::input(
                "level",
                format!("{other:?} is not one of nav_test, steep, city, terrain, bridge"),
            ))
        }
    })
}

fn run() -> Result<(), PeerError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        return Err(PeerError::input(
            "arguments",
            "<nav_test|steep|city|terrain|bridge> <tile cells> <onepath|recast|time> [runs]",
        ));
    }
    let level = level(&args[0])?;
    let cells: u16 = args[1]
        .parse()
        .map_err(|_| PeerError::input("tile cells", format!("{:?} is not a count", args[1])))?;
    let runs: usize = match args.get(3) {
        Some(r) => r
            .parse()
            .map_err(|_| PeerError::input("runs", format!("{r:?} is not a count")))?,
        None => 1,
    };
    let settings = RecastSettings {
        tile_size: f32::from(cells),
        ..RecastSettings::default()
    };
    let pipeline = Mesh3DPipeline::new(build_config(&level, &settings)?);
    let op_chunky =
        onepath_build3d::ChunkyTriMesh::new(triangle_soup(&level), pipeline.config.tile_size)
            .map_err(onepath_error("ChunkyTriMesh::new"))?;
    let rc_chunky = ChunkyTriMesh::new(&level, TRIS_PER_CHUNK)?;
    let pool = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| PeerError::input("rayon pool", e.to_string()))
    };
    let one = pool(1)?;
    let onepath = || one.install(|| build_chunk(&pipeline, &op_chunky));
    let recast = || build_tiled_chunky(&level, &rc_chunky, &settings);
    match args[2].as_str() {
        "onepath" => {
            let mut last = None;
            for _ in 0..runs {
                last = Some(onepath()?);
            }
            if let Some(b) = last {
                let m = b.metrics();
                println!(
                    "onepath: {} tiles, {} polygons",
                    m.tile_count, m.polygon_count
                );
            }
        }
        "recast" => {
            let mut last = None;
            for _ in 0..runs {
                last = Some(recast()?);
            }
            if let Some(b) = last {
                let m = b.metrics();
                println!(
                    "recast: {} tiles, {} polygons",
                    m.tile_count, m.polygon_count
                );
            }
        }
        "time" => {
            let all = pool(0)?;
            let mut tasks: [&mut dyn FnMut() -> Result<(), PeerError>; 3] = [
                &mut || recast().map(drop),
                &mut || onepath().map(drop),
                &mut || all.install(|| build_chunk(&pipeline, &op_chunky)).map(drop),
            ];
            // Wall-clock and CPU time (all threads of the process) of each task, round by
            // round, the tasks interleaved within a round.
            let mut wall = vec![Vec::new(); tasks.len()];
            let mut cpu = vec![Vec::new(); tasks.len()];
            for _ in 0..runs.max(1) {
                for (k, task) in tasks.iter_mut().enumerate() {
                    let (c0, t0) = (cpu_time()?, Instant::now());
                    task()?;
                    wall[k].push(t0.elapsed());
                    cpu[k].push(cpu_time()?.saturating_sub(c0));
                }
            }
            for t in wall.iter_mut().chain(cpu.iter_mut()) {
                t.sort();
            }
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            for (what, times) in [("wall-clock", &wall), ("CPU time", &cpu)] {
                println!(
                    "{} tile {cells}, {} interleaved rounds, {what} ms min / median: Recast \
                     {:.2} / {:.2}; OnePath 1 thread {:.2} / {:.2} (x{:.3} / x{:.3}); {} \
                     threads {:.2} / {:.2} (x{:.3} / x{:.3})",
                    args[0],
                    runs.max(1),
                    ms(times[0][0]),
                    ms(median(&times[0])),
                    ms(times[1][0]),
                    ms(median(&times[1])),
                    ratio(times[1][0], times[0][0]),
                    ratio(median(&times[1]), median(&times[0])),
                    all.current_num_threads(),
                    ms(times[2][0]),
                    ms(median(&times[2])),
                    ratio(times[2][0], times[0][0]),
                    ratio(median(&times[2]), median(&times[0]))
                );
            }
        }
        other => {
            return Err(PeerError::input(
                "builder",
                format!("{other:?} is none of onepath, recast, time"),
            ))
        }
    }
    Ok(())
}

/// CPU time of every thread of this process so far: the sum of the first field of
/// `/proc/self/task/*/schedstat` (nanoseconds on a CPU; time spent waiting for one, which a
/// loaded machine adds to wall-clock figures, is not counted). The kernel brings a running
/// thread's figure up to date only at scheduler events, so the calling thread yields first;
/// the workers are asleep between builds, their figures current.
fn cpu_time() -> Result<Duration, PeerError> {
    std::thread::yield_now();
    let io = |e: std::io::Error| PeerError::input("/proc/self/task", e.to_string());
    let mut ns = 0u64;
    for entry in std::fs::read_dir("/proc/self/task").map_err(io)? {
        let path = entry.map_err(io)?.path().join("schedstat");
        // A thread may end between the listing and the read: it then counts nothing.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let first = text.split_whitespace().next().unwrap_or("0");
        ns += first.parse::<u64>().map_err(|_| {
            PeerError::input(
                "schedstat",
                format!("{}: {first:?} is not a count", path.display()),
            )
        })?;
    }
    Ok(Duration::from_nanos(ns))
}
