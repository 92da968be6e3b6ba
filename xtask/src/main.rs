//! `cargo xtask`: repository tasks.
//!
//! - `hash-matrix [--bless] [--only NAME]`: runs every determinism scenario at 1 and several
//!   threads and compares each step's SHA-256 with `fixtures/hash-matrix/`.
//! - `check-layers`: fails on a dependency edge between workspace crates that
//!   `docs/architecture.md` does not allow.
//! - `ci`: everything `.ci/run` runs (fmt, clippy, tests, docs, layers, hash matrix).

mod hash_matrix;
mod layers;
mod scenarios;
mod scenarios_grid;
mod scenarios_mesh;
mod scenarios_snapshot;

use std::path::PathBuf;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("hash-matrix") => hash_matrix::run(&args[1..]),
        Some("check-layers") => layers::run(),
        Some("ci") => ci(),
        _ => {
            eprintln!(
                "usage: cargo xtask <hash-matrix [--bless] [--only NAME] | check-layers | ci>"
            );
            Err("unknown task".to_string())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (the parent of this crate's manifest directory).
pub(crate) fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

fn cargo(args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    eprintln!("$ cargo {}", args.join(" "));
    let mut cmd = Command::new(cargo);
    cmd.args(args).current_dir(workspace_root());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo {} failed ({status})", args.join(" ")))
    }
}

fn ci() -> Result<(), String> {
    cargo(&["fmt", "--all", "--", "--check"], &[])?;
    cargo(
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    )?;
    cargo(&["test", "--workspace"], &[])?;
    cargo(
        &["doc", "--workspace", "--no-deps"],
        &[("RUSTDOCFLAGS", "-D warnings")],
    )?;
    layers::run()?;
    hash_matrix::run(&[])
}
