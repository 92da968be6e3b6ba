//! `onepath build`: bakes a level (Wavefront OBJ) into an ONNM file with
//! [`onepath::NavMesh`], showing a progress bar over tiles and a summary at the end.

use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use onepath::{BuildOptions, NavMesh, NavSettings};
use onepath_mesh::{NavMeshDebug, TiledNavMesh};
use serde::Serialize;

use crate::error::{write_file, CliError};

/// What `build` was asked for.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The level.
    pub level: &'a Path,
    /// The settings.
    pub settings: NavSettings,
    /// Keep a tile cache while building (the mesh is the same either way).
    pub tile_cache: bool,
    /// Worker threads (`None`: rayon's default, one per core).
    pub threads: Option<usize>,
    /// No progress bar.
    pub quiet: bool,
    /// The ONNM file to write.
    pub output: &'a Path,
}

/// The build's summary.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The ONNM written.
    pub output: String,
    /// Its length.
    pub bytes: usize,
    /// SHA-256 of its bytes.
    pub sha256: String,
    /// Tiles built.
    pub tiles: usize,
    /// Polygons of all tiles.
    pub polygons: usize,
    /// Walkable area: the polygons' area seen from above (square world units).
    pub walkable_area: f64,
    /// Wall-clock build time in seconds (not part of the file).
    pub seconds: f64,
    /// The parameters' fingerprint.
    pub fingerprint: String,
}

/// The walkable area of a mesh seen from above: the sum of its polygons' X/Z areas.
pub fn walkable_area(mesh: &TiledNavMesh) -> f64 {
    NavMeshDebug::collect(mesh)
        .polygons
        .iter()
        .map(|p| {
            let n = p.outline.len();
            let twice: f64 = (0..n)
                .map(|i| {
                    let (a, b) = (p.outline[i], p.outline[(i + 1) % n]);
                    a[0] * b[2] - b[0] * a[2]
                })
                .sum();
            twice.abs() / 2.0
        })
        .sum()
}

/// Builds, writes and summarises.
pub fn run(req: &Request<'_>) -> Result<Summary, CliError> {
    if !req.level.is_file() {
        return Err(CliError::in_file(
            req.level,
            match std::fs::metadata(req.level) {
                Err(e) => format!("cannot read: {e}"),
                Ok(_) => "is not a file".to_string(),
            },
        ));
    }
    let bar = if req.quiet || !std::io::stderr().is_terminal() || req.tile_cache {
        // A tile-cache build reports no progress (it builds its cache first).
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{spinner} building tiles {bar:40} {pos}/{len} {elapsed}")
                .expect("a valid template"),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    };
    let progress = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let started = Instant::now();
    let build = || {
        NavMesh::build_with(
            &req.settings,
            req.level,
            BuildOptions {
                progress: Some(&progress),
                tile_cache: req.tile_cache,
            },
        )
    };
    let built = match req.threads {
        None => build(),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| CliError::usage(format!("--threads {n}: {e}")))?
            .install(build),
    };
    bar.finish_and_clear();
    let nav = built.map_err(|e| CliError::input(e.to_string()))?;
    let seconds = started.elapsed().as_secs_f64();
    let bytes = nav.save();
    write_file(req.output, &bytes)?;
    let mesh = nav.mesh();
    Ok(Summary {
        output: req.output.display().to_string(),
        bytes: bytes.len(),
        sha256: crate::verify::sha256_hex(&bytes),
        tiles: mesh.tile_count(),
        polygons: mesh.tiles().map(|t| t.tile().poly_count()).sum(),
        walkable_area: walkable_area(mesh),
        seconds,
        fingerprint: mesh.fingerprint().to_string(),
    })
}

/// The summary as text.
pub fn to_text(s: &Summary) -> String {
    format!(
        "{}: {} tiles, {} polygons, walkable area {:.1} m², built in {:.2} s, fingerprint {}\n\
         wrote {} bytes, sha256 {}\n",
        s.output, s.tiles, s.polygons, s.walkable_area, s.seconds, s.fingerprint, s.bytes, s.sha256
    )
}
