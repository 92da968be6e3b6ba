//! # onepath-cli
//!
//! The `onepath` command, for level designers and build pipelines: bake a level's
//! navigation mesh, look at what a file holds, check a path, draw the mesh, and compare two
//! bakes by the hash of their canonical bytes.
//!
//! ```text
//! onepath build LEVEL.obj -o LEVEL.onnm      bake a level [--settings S.toml] [--tile-cache]
//! onepath build LEVEL.obj --settings A.toml --settings B.toml -o LEVEL.onnw
//!                                             bake a world: one agent class per settings file
//! onepath settings --default                 the build settings as TOML, every field
//! onepath info FILE [--json]                  what a file is (ONNM, ONNW, ONPT, ONPM, ONPS,
//!                                             ONTK, OPGS)
//! onepath verify FILE [--json]                canonical bytes: SHA-256, or first difference
//! onepath snapshot FILE -o OUT.onps           the mesh snapshot of a file, and its SHA-256
//! onepath render FILE -o OUT.svg|OUT.png      a top-down picture (mesh or grid)
//! onepath path FILE x y z x y z [--json]      nearest polygons, path, straight path, length
//! onepath grid MAP.map x y x y [--algo A]     a path on a Moving AI map
//! ```
//!
//! The binary (`src/main.rs`) parses the command line with [`cli::Cli`] and calls [`run`];
//! each subcommand lives in its own module, over the library crates' public API only.
//!
//! ## Invariants
//! - **Exit codes** say what happened: [`EXIT_OK`] (0), [`EXIT_INPUT`] (1: a file that
//!   cannot be read or breaks its format, a value out of range), [`EXIT_USAGE`] (2: a
//!   command line that does not parse, or names something that is not there: a layer, a
//!   cell outside the grid), [`EXIT_NEGATIVE`] (3: `verify` found non-canonical bytes,
//!   `path` / `grid` found no complete path), [`EXIT_OUTPUT`] (4: an output that cannot be
//!   written). Every failure prints one line to standard error naming the file and the
//!   field, row or value at fault.
//! - **No input panics**: every file goes through its format's validating reader; the few
//!   headers read here ([`load`]) use [`onepath_format::bytes::ByteReader`], whose reads
//!   check the bytes that remain and name their field.
//! - **Deterministic output**: the text, JSON and SVG a command writes depend only on its
//!   inputs (no hash-map order, no clock; JSON keys in a fixed order).
//!
//! ## Example
//! ```
//! use onepath_cli::{detect::FileKind, info, load};
//! use onepath_format::NavMeshParams;
//! use onepath_mesh::{NavMeshSerializer, TiledNavMesh};
//!
//! let params = NavMeshParams::new([0.0; 3], 16.0, 0.25, 6);
//! let mesh = TiledNavMesh::new(params).unwrap();
//! let bytes = NavMeshSerializer::write_mesh(&mesh);
//!
//! let (kind, loaded) = load::load(&bytes, &load::Context::default()).unwrap();
//! assert_eq!(kind, FileKind::Onpm);
//! let report = info::describe("empty.onpm", &bytes, kind, &loaded);
//! assert_eq!((report.tiles, report.polygons), (Some(0), Some(0)));
//! // The mesh writer gives the file's bytes back: it is canonical.
//! assert_eq!(load::rewrite(&bytes, &loaded), Some(bytes.clone()));
//! ```
#![forbid(unsafe_code)]

pub mod build;
pub mod cli;
pub mod detect;
pub mod error;
pub mod gridpath;
pub mod info;
pub mod load;
pub mod picture;
pub mod route;
pub mod settings;
pub mod verify;

use std::path::Path;

use cli::{Cli, Command};
use error::{read_file, write_file};
pub use error::{CliError, EXIT_INPUT, EXIT_NEGATIVE, EXIT_OK, EXIT_OUTPUT, EXIT_USAGE};
use load::{Context, Loaded};

/// Runs one parsed command line; what it prints goes to standard output, and the exit code
/// is returned (an error is for the caller to print).
pub fn run(cli: Cli) -> Result<u8, CliError> {
    match cli.command {
        Command::Build {
            level,
            settings,
            tile_cache,
            threads,
            quiet,
            output,
            json,
        } => {
            let settings = if settings.is_empty() {
                vec![onepath::NavSettings::default()]
            } else {
                settings
                    .iter()
                    .map(|p| settings::read(p))
                    .collect::<Result<Vec<_>, _>>()?
            };
            let summary = build::run(&build::Request {
                level: &level,
                settings,
                tile_cache,
                threads: threads.map(usize::from),
                quiet,
                output: &output,
            })?;
            if json {
                println!("{}", to_json(&summary));
            } else {
                print!("{}", build::to_text(&summary));
            }
            Ok(EXIT_OK)
        }
        Command::Settings { default: _ } => {
            print!("{}", settings::to_toml(&onepath::NavSettings::default()));
            Ok(EXIT_OK)
        }
        Command::Info {
            file,
            json,
            reading,
        } => {
            let bytes = read_file(&file)?;
            let (kind, loaded) = open(&file, &bytes, &reading)?;
            let report = info::describe(&file.display().to_string(), &bytes, kind, &loaded);
            if json {
                println!("{}", to_json(&report));
            } else {
                print!("{}", info::to_text(&report));
            }
            Ok(EXIT_OK)
        }
        Command::Verify {
            file,
            json,
            reading,
        } => {
            let bytes = read_file(&file)?;
            let (kind, loaded) = open(&file, &bytes, &reading)?;
            let verdict = verify::check(&file.display().to_string(), &bytes, kind, &loaded)
                .map_err(|m| CliError::in_file(&file, m))?;
            if json {
                println!("{}", to_json(&verdict));
            } else {
                println!("{}", verify::to_text(&verdict));
            }
            Ok(if verdict.canonical {
                EXIT_OK
            } else {
                EXIT_NEGATIVE
            })
        }
        Command::Snapshot {
            file,
            output,
            referenced,
            reading,
        } => {
            let bytes = read_file(&file)?;
            let (_, loaded) = open(&file, &bytes, &reading)?;
            let mesh = mesh_in(&file, &loaded)?;
            let mode = if referenced {
                onepath_snapshot::SnapshotMode::Referenced
            } else {
                onepath_snapshot::SnapshotMode::Full
            };
            let snap = onepath_snapshot::NavMeshSnapshot::take(mesh, mode);
            write_file(&output, &snap)?;
            println!(
                "{}: ONPS ({}), {} bytes, sha256 {}",
                output.display(),
                info::mode_name(mode),
                snap.len(),
                verify::sha256_hex(&snap)
            );
            Ok(EXIT_OK)
        }
        Command::Render {
            file,
            output,
            path,
            layer,
            size,
            algo,
            reading,
        } => render(&file, &output, &path, layer, size, algo, &reading),
        Command::Path {
            file,
            x0,
            y0,
            z0,
            x1,
            y1,
            z1,
            json,
            reading,
        } => {
            let bytes = read_file(&file)?;
            let (_, loaded) = open(&file, &bytes, &reading)?;
            let mesh = mesh_in(&file, &loaded)?;
            let r = route::find(mesh, &filter_of(&loaded), [x0, y0, z0], [x1, y1, z1])
                .map_err(|e| CliError::usage(e.to_string()))?;
            if json {
                println!("{}", to_json(&r));
            } else {
                print!("{}", route::to_text(&r));
            }
            Ok(if r.status == "complete" {
                EXIT_OK
            } else {
                EXIT_NEGATIVE
            })
        }
        Command::Grid {
            map,
            x0,
            y0,
            x1,
            y1,
            algo,
            json,
        } => {
            let grid = gridpath::read_grid(&map)?;
            let r = gridpath::search(&grid, algo, (x0, y0), (x1, y1))?;
            if json {
                println!("{}", to_json(&r));
            } else {
                print!("{}", gridpath::to_text(&r));
            }
            Ok(if r.status == "found" {
                EXIT_OK
            } else {
                EXIT_NEGATIVE
            })
        }
    }
}

fn to_json(v: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(v).expect("plain data serialises")
}

/// The query filter of a loaded file: the facade mesh's own, else the default one.
fn filter_of(loaded: &Loaded) -> onepath_mesh::QueryFilter {
    match loaded {
        Loaded::NavMesh(nav) => *nav.filter(),
        Loaded::World(world, class) => world
            .class(*class)
            .map_or_else(|_| onepath_mesh::QueryFilter::new(), |c| *c.filter()),
        _ => onepath_mesh::QueryFilter::new(),
    }
}

/// Reads `bytes` (from `file`) with the optional mesh of `--with` and the class radius of
/// `--class` (which only a world takes).
fn open(
    file: &Path,
    bytes: &[u8],
    reading: &cli::Reading,
) -> Result<(detect::FileKind, Loaded), CliError> {
    let class = reading.class;
    if let Some(r) = class {
        if !(r.is_finite() && r >= 0.0) {
            return Err(CliError::usage(format!(
                "--class {r}: an agent radius is a finite number ≥ 0"
            )));
        }
        if !bytes.starts_with(&onepath::envelope::ONNW_MAGIC) {
            return Err(CliError::usage(format!(
                "--class applies to worlds of agent classes (ONNW); {} is not one",
                file.display()
            )));
        }
    }
    let mut ctx = Context {
        class_radius: class,
        ..Context::default()
    };
    if let Some(w) = reading.with.as_deref() {
        let wb = read_file(w)?;
        let (_, l) = load::load(&wb, &Context::default()).map_err(|m| CliError::in_file(w, m))?;
        let Some(mesh) = load::mesh_of(&l) else {
            return Err(CliError::in_file(
                w,
                "--with needs a file holding a mesh (ONNM, ONNW, ONPM, ONPS, ONTK)",
            ));
        };
        ctx.mesh = Some(mesh.clone());
    }
    load::load(bytes, &ctx).map_err(|m| CliError::in_file(file, m))
}

fn mesh_in<'a>(
    file: &Path,
    loaded: &'a Loaded,
) -> Result<&'a onepath_mesh::TiledNavMesh, CliError> {
    load::mesh_of(loaded).ok_or_else(|| {
        CliError::in_file(
            file,
            "holds no mesh (a mesh is in ONNM, ONNW, ONPM, ONPS and ONTK files)",
        )
    })
}

fn render(
    file: &Path,
    output: &Path,
    path: &[f64],
    layer: Option<u16>,
    size: u32,
    algo: cli::Algo,
    reading: &cli::Reading,
) -> Result<u8, CliError> {
    let ext = output
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let png = match ext.as_deref() {
        Some("svg") => false,
        Some("png") => true,
        _ => {
            return Err(CliError::usage(format!(
                "{}: the picture's name must end in .svg or .png",
                output.display()
            )))
        }
    };
    let bytes = read_file(file)?;
    let is_grid = bytes.starts_with(&onepath_gridstate::STATE_MAGIC)
        || file.extension().is_some_and(|e| e == "map");
    let svg = if is_grid {
        if layer.is_some() {
            return Err(CliError::usage("--layer applies to meshes, not to grids"));
        }
        let grid = gridpath::read_grid(file)?;
        let cells = match path {
            [] => Vec::new(),
            &[x0, y0, x1, y1] => {
                let cell = |v: f64, what: &str| -> Result<u32, CliError> {
                    if v >= 0.0 && v.fract() == 0.0 && v <= f64::from(u32::MAX) {
                        Ok(v as u32)
                    } else {
                        Err(CliError::usage(format!(
                            "--path {what} {v} is not a cell index (a whole number ≥ 0)"
                        )))
                    }
                };
                let r = gridpath::search(
                    &grid,
                    algo,
                    (cell(x0, "x")?, cell(y0, "y")?),
                    (cell(x1, "x")?, cell(y1, "y")?),
                )?;
                r.cells
                    .iter()
                    .map(|c| [f64::from(c[0]), 0.0, f64::from(c[1])])
                    .collect()
            }
            _ => {
                return Err(CliError::usage(format!(
                    "--path on a grid takes 4 numbers (x y x y), {} given",
                    path.len()
                )))
            }
        };
        picture::grid_svg(
            &grid,
            &picture::Options {
                size,
                layer: None,
                path: cells,
            },
        )
    } else {
        let (_, loaded) = open(file, &bytes, reading)?;
        let mesh = mesh_in(file, &loaded)?;
        let points = match path {
            [] => Vec::new(),
            &[x0, y0, z0, x1, y1, z1] => {
                route::find(mesh, &filter_of(&loaded), [x0, y0, z0], [x1, y1, z1])
                    .map_err(|e| CliError::usage(format!("--path: {e}")))?
                    .straight
            }
            _ => {
                return Err(CliError::usage(format!(
                    "--path on a mesh takes 6 numbers (x y z x y z), {} given",
                    path.len()
                )))
            }
        };
        picture::mesh_svg(
            mesh,
            &picture::Options {
                size,
                layer,
                path: points,
            },
        )
        .map_err(CliError::usage)?
    };
    let out = if png {
        picture::png(&svg).map_err(|e| CliError::output(output, e))?
    } else {
        svg.into_bytes()
    };
    write_file(output, &out)?;
    println!("{}: {} bytes", output.display(), out.len());
    Ok(EXIT_OK)
}
