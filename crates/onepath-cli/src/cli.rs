//! The command line, as clap's derive API reads it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// `onepath`: bake, inspect, check and draw OnePath navigation data.
#[derive(Debug, Parser)]
#[command(name = "onepath", version, about, long_about = None)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Bakes a level (Wavefront OBJ) into a navigation mesh file (ONNM), or into a world of
    /// several agent classes (ONNW) when `--settings` is given more than once.
    Build {
        /// The level.
        level: PathBuf,
        /// Build settings (TOML, every field named as in NavSettings; see
        /// `onepath settings --default`). Default: NavSettings' defaults. Give it once per
        /// agent class, in class order: two or more build a world (ONNW).
        #[arg(long, value_name = "settings.toml")]
        settings: Vec<PathBuf>,
        /// Keep a tile cache while building (the mesh written is the same).
        #[arg(long)]
        tile_cache: bool,
        /// Worker threads (default: one per core; the bytes do not depend on it).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: Option<u16>,
        /// No progress bar.
        #[arg(short, long)]
        quiet: bool,
        /// The file to write: an ONNM for one class, an ONNW for several (a name ending in
        /// `.onnw` writes a world of one class too).
        #[arg(short, long, value_name = "LEVEL.onnm")]
        output: PathBuf,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Prints build settings as TOML.
    Settings {
        /// The defaults (every field).
        #[arg(long, required = true)]
        default: bool,
    },
    /// What a file is: kind, version, parameters, fingerprint, tiles, polygons, slots,
    /// content ids.
    Info {
        /// An ONNM, ONNW, ONPT, ONPM, ONPS, ONTK or OPGS file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Where the file's mesh comes from.
        #[command(flatten)]
        reading: Reading,
    },
    /// Re-reads and re-writes a file: prints the SHA-256 of its canonical bytes and
    /// "canonical", or the first offset where the file differs (exit code 3).
    Verify {
        /// The file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Where the file's mesh comes from.
        #[command(flatten)]
        reading: Reading,
    },
    /// Writes the snapshot (ONPS) of the mesh a file holds and prints its SHA-256.
    Snapshot {
        /// A file holding a mesh (ONPM, ONPS, ONTK).
        file: PathBuf,
        /// Where to write the snapshot.
        #[arg(short, long, value_name = "OUT.onps")]
        output: PathBuf,
        /// Name tiles by content id instead of holding them (a Referenced snapshot).
        #[arg(long)]
        referenced: bool,
        /// Where the file's mesh comes from.
        #[command(flatten)]
        reading: Reading,
    },
    /// Draws a mesh or a grid from above, as SVG or PNG (by the output's extension).
    Render {
        /// A mesh file (ONPM, ONPS, ONTK), a grid (OPGS) or a Moving AI map (.map).
        file: PathBuf,
        /// The picture: `.svg` or `.png`.
        #[arg(short, long, value_name = "OUT.svg|OUT.png")]
        output: PathBuf,
        /// A path to draw: x y z x y z on a mesh, x y x y (cells) on a grid.
        #[arg(long, num_args = 4..=6, value_name = "COORD", allow_negative_numbers = true)]
        path: Vec<f64>,
        /// Draw only this layer (default: every layer, half transparent).
        #[arg(long)]
        layer: Option<u16>,
        /// Picture width in pixels.
        #[arg(long, default_value_t = 800, value_parser = clap::value_parser!(u32).range(64..=16384))]
        size: u32,
        /// The search a grid path uses.
        #[arg(long, value_enum, default_value_t = Algo::Astar)]
        algo: Algo,
        /// Where the file's mesh comes from.
        #[command(flatten)]
        reading: Reading,
    },
    /// A path on a mesh: nearest polygons, the polygon path, the straight path and its
    /// length.
    #[command(allow_negative_numbers = true)]
    Path {
        /// A file holding a mesh.
        file: PathBuf,
        /// Start x.
        x0: f64,
        /// Start y.
        y0: f64,
        /// Start z.
        z0: f64,
        /// Goal x.
        x1: f64,
        /// Goal y.
        y1: f64,
        /// Goal z.
        z1: f64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Where the file's mesh comes from.
        #[command(flatten)]
        reading: Reading,
    },
    /// A path on a Moving AI map (or an OPGS grid): the cells and the cost.
    Grid {
        /// A Moving AI `.map` file or an OPGS grid state.
        map: PathBuf,
        /// Start column.
        x0: u32,
        /// Start row.
        y0: u32,
        /// Goal column.
        x1: u32,
        /// Goal row.
        y1: u32,
        /// The search.
        #[arg(long, value_enum, default_value_t = Algo::Astar)]
        algo: Algo,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// How a file is read: the mesh a lone tile or a Referenced snapshot needs, the class of a
/// world.
#[derive(Debug, Clone, Default, Args)]
pub struct Reading {
    /// In a world (ONNW): the class for agents of this radius (default: class 0).
    #[arg(long, value_name = "R")]
    pub class: Option<f64>,
    /// A mesh file whose parameters check a lone tile (ONPT) and whose tiles a Referenced
    /// snapshot names.
    #[arg(long = "with", value_name = "MESH")]
    pub with: Option<PathBuf>,
}

/// The grid searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Algo {
    /// A* (octile, 8 neighbours, no corner cutting).
    Astar,
    /// Jump point search.
    Jps,
    /// JPS+ (precomputed jump tables).
    #[value(name = "jps+")]
    JpsPlus,
    /// Theta* (any-angle).
    Theta,
    /// HPA* (hierarchical, clusters of 16; near-optimal).
    Hpa,
}
