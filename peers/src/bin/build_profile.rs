//! One builder on one level, for a profiler (issue 21's build speed): builds a level `runs`
//! times on one thread, OnePath (`onepath`, from its prebuilt `ChunkyTriMesh`, as
//! `recast_report --levels` times it) or Recast (`recast`, from its prebuilt chunky mesh), and
//! prints the tile and polygon counts once, after the last build. Under
//! `valgrind --tool=callgrind` the difference between `runs` = 2 and `runs` = 1 is the
//! instruction count of one build, independent of machine load.
//!
//! `cargo run --release --bin build_profile -- <nav_test|steep|city|terrain|bridge> <32|64>
//! <onepath|recast> [runs]`

use std::process::ExitCode;

use onepath_build3d::generators::{
    building_with_bridge, city, rolling_terrain, CityParams, TerrainParams,
};
use onepath_build3d::{Mesh3DPipeline, TriangleSoup};
use onepath_peers::level::nav_test_path;
use onepath_peers::onepath::{build_chunk, build_config, triangle_soup};
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

/// A generated soup as a harness level (vertices rounded to float32), as `recast_report` does.
fn level_of(soup: &TriangleSoup) -> Level {
    Level {
        vertices: soup
            .vertices
            .iter()
            .map(|v| [v[0] as f32, v[1] as f32, v[2] as f32])
            .collect(),
        triangles: soup.triangles.clone(),
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
            "<nav_test|steep|city|terrain|bridge> <tile cells> <onepath|recast> [runs]",
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
    match args[2].as_str() {
        "onepath" => {
            let pipeline = Mesh3DPipeline::new(build_config(&level, &settings)?);
            let soup = triangle_soup(&level);
            let chunky = onepath_build3d::ChunkyTriMesh::new(soup, pipeline.config.tile_size)
                .map_err(onepath_error("ChunkyTriMesh::new"))?;
            let one = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .map_err(|e| PeerError::input("rayon pool", e.to_string()))?;
            let mut last = None;
            for _ in 0..runs {
                last = Some(one.install(|| build_chunk(&pipeline, &chunky))?);
            }
            if let Some(b) = last {
                let m = b.metrics();
                println!("onepath: {} tiles, {} polygons", m.tile_count, m.polygon_count);
            }
        }
        "recast" => {
            let chunky = ChunkyTriMesh::new(&level, TRIS_PER_CHUNK)?;
            let mut last = None;
            for _ in 0..runs {
                last = Some(build_tiled_chunky(&level, &chunky, &settings)?);
            }
            if let Some(b) = last {
                let m = b.metrics();
                println!("recast: {} tiles, {} polygons", m.tile_count, m.polygon_count);
            }
        }
        other => {
            return Err(PeerError::input(
                "builder",
                format!("{other:?} is neither onepath nor recast"),
            ))
        }
    }
    Ok(())
}
