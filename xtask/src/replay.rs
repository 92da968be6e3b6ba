//! `cargo xtask replay-check [--frames N]`: replays across processes (issue 20).
//!
//! Run 1 (debug build, `RAYON_NUM_THREADS=1`) simulates the `ggrs_sync` example's game
//! (`crates/onepath/examples/ggrs_sync.rs`: the city with a tile cache, 64 agents, a grid
//! with a D* Lite replanner and a flow field) for N frames of seeded inputs and records the
//! inputs and the SHA-256 checksum of every frame's saved state to a file. Run 2, a second
//! process of another build profile (release) at another thread count
//! (`RAYON_NUM_THREADS=4`), reads the inputs back, simulates them and compares each frame's
//! checksum with the recorded one: the first differing frame fails the check, by number.

use std::path::PathBuf;

use crate::{cargo, workspace_root};

/// The frames of a check when `--frames` is not given (CI's size: a few hundred).
const DEFAULT_FRAMES: u32 = 300;

/// Runs the check; `args` may hold `--frames N`.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut frames = DEFAULT_FRAMES;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--frames" => {
                let n = it.next().ok_or("--frames needs a number")?;
                frames = n
                    .parse()
                    .map_err(|_| format!("--frames: `{n}` is not a number of frames"))?;
            }
            other => return Err(format!("replay-check: unknown argument `{other}`")),
        }
    }
    let dir = recording_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let file = dir.join("recording.log");
    if file.exists() {
        std::fs::remove_file(&file)
            .map_err(|e| format!("cannot remove the old {}: {e}", file.display()))?;
    }
    let file_arg = file.to_string_lossy().into_owned();
    let frames_arg = frames.to_string();
    eprintln!("replay-check: run 1 records {frames} frames (debug build, 1 thread)");
    cargo(
        &[
            "run",
            "-q",
            "-p",
            "onepath",
            "--example",
            "ggrs_sync",
            "--",
            "record",
            &file_arg,
            &frames_arg,
        ],
        &[("RAYON_NUM_THREADS", "1")],
    )?;
    if !file.exists() {
        return Err(format!("run 1 wrote no recording at {}", file.display()));
    }
    eprintln!("replay-check: run 2 replays them (release build, 4 threads)");
    cargo(
        &[
            "run",
            "-q",
            "--release",
            "-p",
            "onepath",
            "--example",
            "ggrs_sync",
            "--",
            "replay",
            &file_arg,
        ],
        &[("RAYON_NUM_THREADS", "4")],
    )
    .map_err(|e| {
        format!("the replay differs from the recording (its message above names the frame): {e}")
    })?;
    println!("replay-check: {frames} frames, debug at 1 thread = release at 4 threads");
    Ok(())
}

/// Where the recording goes: the target folder (`CARGO_TARGET_DIR` when set).
fn recording_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
        .join("replay-check")
}
