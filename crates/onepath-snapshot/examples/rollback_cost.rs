//! A fixed amount of rollback work on the mesh of the `snapshot` bench (1 000 tiles of 16
//! polygons, `EDIT_STEP`-th polygon edited, default every 100th: 1 %), for instruction
//! counts that machine load does not move (`valgrind --tool=callgrind`):
//!
//! `cargo run --release -p onepath-snapshot --example rollback_cost -- WHAT [ROUNDS]`
//!
//! WHAT is `take` (Referenced snapshots through one `SnapshotWriter`), `restore` (in-place
//! Referenced restores into a mesh equal to the snapshot), `rollback` (in-place restores
//! into the mesh after an excursion of other edits and one replaced tile, a clone of it
//! included), `clone` (that clone alone) or `setup` (only the mesh), to subtract.
use std::hint::black_box;
use std::time::Instant;

use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, SnapshotWriter};

#[path = "../benches/common/mod.rs"]
mod common;
use common::{edit, thousand_tiles};

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().unwrap_or_else(|| "take".to_string());
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let step: usize = std::env::var("EDIT_STEP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let (mut mesh, lib) = thousand_tiles(step, 0);
    let saved = NavMeshSnapshot::take(&mesh, SnapshotMode::Referenced);
    let mut moved = mesh.clone();
    edit(&mut moved, step, step / 2, 9);
    let t = moved.tile_at(20, 12, 0).unwrap().tile().clone();
    moved.replace_tile(t).unwrap();
    let mut writer = SnapshotWriter::new();
    let start = Instant::now();
    for _ in 0..rounds {
        match what.as_str() {
            "take" => {
                black_box(writer.take(&mesh, SnapshotMode::Referenced));
            }
            "restore" => {
                NavMeshSnapshot::restore_in_place(&mut mesh, black_box(&saved), &lib).unwrap();
            }
            "rollback" => {
                let mut m = moved.clone();
                NavMeshSnapshot::restore_in_place(&mut m, black_box(&saved), &lib).unwrap();
                black_box(m);
            }
            "clone" => {
                black_box(moved.clone());
            }
            _ => {}
        }
    }
    let per = start.elapsed().as_secs_f64() / rounds as f64;
    println!("{what}: {rounds} rounds, {:.1} us a round", per * 1e6);
}
