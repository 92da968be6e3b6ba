//! OBJ -> NavMesh -> path. Builds `$ONEPATH_DATA/levels/nav_test.obj` (Recast's demo level)
//! when the data folder is there, else a small level written as OBJ on the fly; finds a
//! path, saves the mesh as ONNM and loads it back.
//!
//! `cargo run --release -p onepath --example build_and_path`

use std::error::Error;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use onepath::prelude::*;

/// A 30 x 30 floor with a 2 m high wall across the middle and a gap at one end.
const SMALL_LEVEL: &str = "\
v 0 0 0\nv 0 0 30\nv 30 0 30\nv 30 0 0\n\
v 14 0 0\nv 14 0 24\nv 16 0 24\nv 16 0 0\n\
v 14 2 0\nv 14 2 24\nv 16 2 24\nv 16 2 0\n\
f 1 2 3\nf 1 3 4\n\
f 9 10 11\nf 9 11 12\n\
f 5 6 10\nf 5 10 9\nf 7 8 12\nf 7 12 11\nf 6 7 11\nf 6 11 10\n";

/// Runs the example (also called by the crate's `tests/examples.rs`).
pub fn main() -> Result<(), Box<dyn Error>> {
    let data = std::env::var_os("ONEPATH_DATA").map(PathBuf::from);
    let nav_test = data.map(|d| d.join("levels").join("nav_test.obj"));
    let (path, from, to, written) = match nav_test.filter(|p| p.exists()) {
        Some(p) => (p, [55.2, -0.3, 21.2], [45.3, 7.8, 21.2], false),
        None => {
            let p =
                std::env::temp_dir().join(format!("onepath-example-{}.obj", std::process::id()));
            std::fs::write(&p, SMALL_LEVEL)?;
            (p, [5.0, 0.0, 5.0], [25.0, 0.0, 5.0], true)
        }
    };

    let settings = NavSettings::default();
    let done = AtomicUsize::new(0);
    let nav = NavMesh::build_with_progress(&settings, &path, &|_, _| {
        done.fetch_add(1, Ordering::Relaxed);
    });
    if written {
        std::fs::remove_file(&path)?;
    }
    let nav = nav?;
    println!(
        "built {} ({} tiles, progress called {} times)",
        path.display(),
        nav.mesh().tile_count(),
        done.load(Ordering::Relaxed)
    );

    let found = nav.find_path(from, to)?;
    println!(
        "path: {:?}, {} corners, cost {:.2}",
        found.status,
        found.points.len(),
        found.cost
    );
    for p in &found.points {
        println!("  {:.2?}", p.position);
    }
    assert_eq!(found.status, PathStatus::Complete);

    let bytes = nav.save();
    let loaded = NavMesh::load(&bytes)?;
    assert_eq!(loaded.find_path(from, to)?, found);
    println!(
        "ONNM: {} bytes, loaded back with the same path",
        bytes.len()
    );
    Ok(())
}
