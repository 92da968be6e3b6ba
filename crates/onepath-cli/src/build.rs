//! `onepath build`: bakes a level (Wavefront OBJ) into an ONNM file with
//! [`onepath::NavMesh`], or into an ONNW file with [`onepath::NavWorld`] when several agent
//! classes are given (or the output's name ends in `.onnw`), showing a progress bar over
//! tiles and a summary at the end.

use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use onepath::{BuildOptions, NavMesh, NavSettings, NavWorld};
use onepath_mesh::{NavMeshDebug, TiledNavMesh};
use serde::Serialize;

use crate::error::{write_file, CliError};

/// What `build` was asked for.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The level.
    pub level: &'a Path,
    /// The settings, one per agent class in class order (at least one).
    pub settings: Vec<NavSettings>,
    /// Keep a tile cache while building (the mesh is the same either way).
    pub tile_cache: bool,
    /// Worker threads (`None`: rayon's default, one per core).
    pub threads: Option<usize>,
    /// No progress bar.
    pub quiet: bool,
    /// The file to write (ONNM for one class, ONNW for several or a `.onnw` name).
    pub output: &'a Path,
}

impl Request<'_> {
    /// Whether the output is a world (ONNW): several classes, or a name ending in `.onnw`.
    pub fn writes_world(&self) -> bool {
        self.settings.len() > 1 || has_extension(self.output, "onnw")
    }
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// One agent class of the summary.
#[derive(Debug, Clone, Serialize)]
pub struct ClassSummary {
    /// The class's agent radius (as the settings store it).
    pub agent_radius: f32,
    /// Tiles built.
    pub tiles: usize,
    /// Polygons of all tiles.
    pub polygons: usize,
    /// Walkable area seen from above (square world units).
    pub walkable_area: f64,
    /// The class's parameters' fingerprint.
    pub fingerprint: String,
}

impl ClassSummary {
    fn of(nav: &NavMesh) -> Self {
        let mesh = nav.mesh();
        ClassSummary {
            agent_radius: nav.settings().agent_radius(),
            tiles: mesh.tile_count(),
            polygons: mesh.tiles().map(|t| t.tile().poly_count()).sum(),
            walkable_area: walkable_area(mesh),
            fingerprint: mesh.fingerprint().to_string(),
        }
    }
}

/// The build's summary. Tiles, polygons and area are totals over the classes; the
/// fingerprint is the first class's (each class's is in `classes`).
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The file written.
    pub output: String,
    /// What it is: `"ONNM"` (one mesh) or `"ONNW"` (a world of agent classes).
    pub kind: &'static str,
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
    /// The first class's parameters' fingerprint.
    pub fingerprint: String,
    /// Per agent class, in class order.
    pub classes: Vec<ClassSummary>,
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
    let bar = if req.quiet || !std::io::stderr().is_terminal() {
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
    let world = req.writes_world();
    if world && has_extension(req.output, "onnm") {
        return Err(CliError::usage(format!(
            "{}: {} agent classes make a world (ONNW): name the output *.onnw",
            req.output.display(),
            req.settings.len()
        )));
    }
    let started = Instant::now();
    let options = BuildOptions {
        progress: Some(&progress),
        tile_cache: req.tile_cache,
    };
    enum Built {
        Mesh(Box<NavMesh>),
        World(NavWorld),
    }
    let build = || -> onepath::Result<Built> {
        Ok(if world {
            Built::World(NavWorld::build_with(&req.settings, req.level, options)?)
        } else {
            Built::Mesh(Box::new(NavMesh::build_with(
                &req.settings[0],
                req.level,
                options,
            )?))
        })
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
    let built = built.map_err(|e| CliError::input(e.to_string()))?;
    let seconds = started.elapsed().as_secs_f64();
    let (classes, bytes): (Vec<ClassSummary>, Vec<u8>) = match &built {
        Built::Mesh(nav) => (vec![ClassSummary::of(nav)], nav.save()),
        Built::World(w) => (w.classes().iter().map(ClassSummary::of).collect(), w.save()),
    };
    write_file(req.output, &bytes)?;
    Ok(Summary {
        output: req.output.display().to_string(),
        kind: if world { "ONNW" } else { "ONNM" },
        bytes: bytes.len(),
        sha256: crate::verify::sha256_hex(&bytes),
        tiles: classes.iter().map(|c| c.tiles).sum(),
        polygons: classes.iter().map(|c| c.polygons).sum(),
        walkable_area: classes.iter().map(|c| c.walkable_area).sum(),
        seconds,
        fingerprint: classes[0].fingerprint.clone(),
        classes,
    })
}

/// The summary as text.
pub fn to_text(s: &Summary) -> String {
    let mut text = if s.classes.len() > 1 {
        let mut t = format!(
            "{}: a world of {} agent classes, built in {:.2} s\n",
            s.output,
            s.classes.len(),
            s.seconds
        );
        for (i, c) in s.classes.iter().enumerate() {
            t.push_str(&format!(
                "  class {i} (agent radius {}): {} tiles, {} polygons, walkable area {:.1} m², \
                 fingerprint {}\n",
                c.agent_radius, c.tiles, c.polygons, c.walkable_area, c.fingerprint
            ));
        }
        t
    } else {
        format!(
            "{}: {} tiles, {} polygons, walkable area {:.1} m², built in {:.2} s, fingerprint {}\n",
            s.output, s.tiles, s.polygons, s.walkable_area, s.seconds, s.fingerprint
        )
    };
    text.push_str(&format!(
        "wrote {} bytes ({}), sha256 {}\n",
        s.bytes, s.kind, s.sha256
    ));
    text
}
