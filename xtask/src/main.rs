//! `cargo xtask`: repository tasks.
//!
//! - `hash-matrix [--bless] [--only NAME]`: runs every determinism scenario at 1 and several
//!   threads and compares each step's SHA-256 with `fixtures/hash-matrix/`.
//! - `cross-matrix [--arch aarch64,i686,s390x]`: the hash matrix built for other
//!   architectures with Debian's packages and run under `qemu-user-static` (`cross.rs`).
//! - `check-layers`: fails on a dependency edge between workspace crates that
//!   `docs/architecture.md` does not allow.
//! - `gen-levels [DIR]`: writes the generated levels as OBJ files into `levels/` (or DIR).
//! - `replay-check [--frames N]`: the inputs of a run recorded in one process (debug, 1
//!   thread), replayed in another (release, 4 threads), every frame's checksum compared
//!   (`replay.rs`).
//! - `ci`: the one CI definition (`.ci/run` calls it): fmt, layers, clippy, rustdoc, package,
//!   hash matrix, cross matrix (aarch64), replay check, tests (a data-set test ignored while
//!   `ONEPATH_DATA` is set fails the run), the README's main-job command.

mod cross;
mod gen_levels;
mod hash_matrix;
mod layers;
mod main_job;
mod replay;
mod scenarios;
mod scenarios_build3d;
mod scenarios_crowd;
mod scenarios_grid;
mod scenarios_grounding;
mod scenarios_guides;
mod scenarios_mesh;
mod scenarios_snapshot;
mod scenarios_tilecache;
mod scenarios_world;

use std::path::PathBuf;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("hash-matrix") => hash_matrix::run(&args[1..]),
        Some("cross-matrix") => cross::run(&args[1..]),
        Some("check-layers") => layers::run(),
        Some("replay-check") => replay::run(&args[1..]),
        Some("ci") => ci(),
        Some("gen-levels") => gen_levels::run(&args[1..]),
        _ => {
            eprintln!(
                "usage: cargo xtask <hash-matrix [--bless] [--only NAME] | cross-matrix [--arch \
                 aarch64,i686,s390x] | check-layers | gen-levels [DIR] | replay-check [--frames N] | ci>"
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

/// The one CI definition: `.ci/run` sets the environment (data folder, property-test case
/// counts) and calls this; a developer can run the same steps with `cargo xtask ci`.
fn ci() -> Result<(), String> {
    step("fmt");
    cargo(&["fmt", "--all", "--", "--check"], &[])?;
    step("layers");
    layers::run()?;
    step("clippy");
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
    step("rustdoc");
    cargo(
        &["doc", "--workspace", "--no-deps"],
        &[("RUSTDOCFLAGS", "-D warnings")],
    )?;
    step("package");
    forget_packaged_sources()?;
    // Cargo takes a registry crate of a known name and version as unchanged, so the verify
    // build gets a target folder of its own, new each time.
    let verify_target = workspace_root().join("target").join("package-verify");
    if verify_target.exists() {
        std::fs::remove_dir_all(&verify_target)
            .map_err(|e| format!("cannot remove {}: {e}", verify_target.display()))?;
    }
    let verify_target = verify_target.to_string_lossy().into_owned();
    cargo(
        &[
            "package",
            "--workspace",
            "--exclude",
            "xtask",
            "--exclude",
            "tests-conformance",
            "--allow-dirty",
        ],
        &[("CARGO_TARGET_DIR", &verify_target)],
    )?;
    step("hash matrix");
    hash_matrix::run(&[])?;
    // aarch64 fits CI's time; i686 and s390x are run by hand (README, "Other machines").
    step("cross matrix (aarch64)");
    cross::run(&["--arch".to_string(), "aarch64".to_string()])?;
    replay_check()?;
    step("tests");
    tests()?;
    step("README main job");
    main_job::run()?;
    step("done");
    Ok(())
}

/// CI's replay check: a few hundred frames, to keep CI's minutes small.
fn replay_check() -> Result<(), String> {
    step("replay check");
    replay::run(&[])
}

/// `cargo package --workspace` verifies each crate against the others through a local
/// registry overlay, and cargo reuses an overlay's extracted sources of the same name and
/// version (`$CARGO_HOME/registry/src/-<hash>/onepath-*-0.1.0`) from an earlier run: stale
/// sources would be verified instead of today's (and their compiled artifacts, hence the
/// verify build's own target folder). Removes those extractions (only our own
/// crates, only in overlay folders, whose names start with `-`).
fn forget_packaged_sources() -> Result<(), String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry").join("src")) else {
        return Ok(());
    };
    let Ok(registries) = std::fs::read_dir(&src) else {
        return Ok(());
    };
    for reg in registries.flatten() {
        if !reg.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        for krate in std::fs::read_dir(reg.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if krate.file_name().to_string_lossy().starts_with("onepath-") {
                std::fs::remove_dir_all(krate.path())
                    .map_err(|e| format!("cannot remove {}: {e}", krate.path().display()))?;
            }
        }
    }
    Ok(())
}

/// Prints a step's heading with the time since the first step, so a CI log shows where its
/// minutes go.
fn step(name: &str) {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let secs = START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs();
    println!("== {name} (at {}m{:02}s)", secs / 60, secs % 60);
}

/// What a data-set test prints as its ignore reason when `ONEPATH_DATA` (or the part of it
/// the test reads) is absent at build time (see each crate's `build.rs`).
const DATA_IGNORED: &str = "needs ONEPATH_DATA";

/// `cargo test --workspace`, its output passed through as it comes; when `ONEPATH_DATA` names
/// a folder, a data-set test still reported as ignored fails the run (the data was there, so
/// the test must have run).
fn tests() -> Result<(), String> {
    use std::io::{BufRead, BufReader};
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    eprintln!("$ cargo test --workspace");
    let mut child = Command::new(cargo)
        .args(["test", "--workspace"])
        .current_dir(workspace_root())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let data = std::env::var_os("ONEPATH_DATA").is_some_and(|d| PathBuf::from(d).is_dir());
    let mut ignored = Vec::new();
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines() {
            let line = line.map_err(|e| format!("reading cargo test output: {e}"))?;
            println!("{line}");
            if data && line.contains(DATA_IGNORED) {
                ignored.push(line);
            }
        }
    }
    let status = child.wait().map_err(|e| format!("cargo test: {e}"))?;
    if !status.success() {
        return Err(format!("cargo test --workspace failed ({status})"));
    }
    if !ignored.is_empty() {
        return Err(format!(
            "ONEPATH_DATA is set, yet {} data-set test(s) were ignored (a crate built without \
             seeing it?):\n{}",
            ignored.len(),
            ignored.join("\n")
        ));
    }
    Ok(())
}
