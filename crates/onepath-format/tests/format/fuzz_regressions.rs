//! Inputs found by fuzzing (`fuzz/`, target `tile_reader`) stay fixed: each committed
//! regression input must give a typed error or a tile whose bytes are the input, without
//! panicking. The committed fuzz seeds must stay valid tiles.

use std::path::{Path, PathBuf};

use onepath_format::{FormatError, NavTile};

use crate::gen;

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !matches!(p.extension(), Some(e) if e == "md"))
        .collect();
    v.sort();
    v
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn fuzz_regression_inputs_give_a_typed_error_or_a_canonical_tile() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz-regressions");
    for f in files(&dir) {
        let bytes = std::fs::read(&f).unwrap();
        match NavTile::from_bytes(&bytes, &gen::params()) {
            Ok(t) => assert_eq!(t.to_bytes(), bytes, "{}", f.display()),
            Err(
                FormatError::Malformed { .. }
                | FormatError::Version { .. }
                | FormatError::Fingerprint { .. },
            ) => {}
            Err(e) => panic!("{}: unexpected {e:?}", f.display()),
        }
    }
}

#[test]
fn fuzz_seeds_are_valid_tiles() {
    let dir = repo_root().join("fuzz/seeds/tile_reader");
    let seeds = files(&dir);
    assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
    for f in seeds {
        let bytes = std::fs::read(&f).unwrap();
        let t = NavTile::from_bytes(&bytes, &gen::params())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(t.to_bytes(), bytes);
    }
}

/// Writes the fuzz seeds (run with `ONEPATH_WRITE_FUZZ_SEEDS=1`); otherwise checks that
/// the committed seeds are exactly the ones this would write.
#[test]
fn fuzz_seeds_are_generated_tiles() {
    let dir = repo_root().join("fuzz/seeds/tile_reader");
    let want: Vec<(String, Vec<u8>)> = [
        (
            "one_triangle.onpt".to_string(),
            NavTile::create(&gen::params(), crate::snapshots::one_triangle())
                .unwrap()
                .to_bytes(),
        ),
        (
            "two_quads.onpt".to_string(),
            NavTile::create(&gen::params(), crate::snapshots::two_quads())
                .unwrap()
                .to_bytes(),
        ),
    ]
    .into_iter()
    .chain((1..=4u64).map(|s| (format!("generated_{s}.onpt"), gen::tile(s).to_bytes())))
    .collect();
    if std::env::var_os("ONEPATH_WRITE_FUZZ_SEEDS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in &want {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    for (name, bytes) in &want {
        let have = std::fs::read(dir.join(name))
            .unwrap_or_else(|e| panic!("{name}: {e} (write with ONEPATH_WRITE_FUZZ_SEEDS=1)"));
        assert_eq!(&have, bytes, "{name}");
    }
}
