//! Repository tidiness: every document a source file or a doc refers to is one the repository
//! ships. The specification texts and design notes the project was started from live outside
//! the repository; code and docs cite the repository's own normative docs (`docs/`) instead,
//! so a reader of a clone (or of docs.rs) never meets a dangling reference.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Folders of the repository that hold code and docs (build output and fuzz corpora are not
/// walked).
const ROOTS: &[&str] = &[
    "crates",
    "docs",
    "xtask",
    "tests-conformance",
    "peers/src",
    "peers/benches",
    "peers/tests",
    "peers/README.md",
    "fuzz/fuzz_targets",
    "fuzz/README.md",
    "README.md",
    "clippy.toml",
    ".ci",
];

/// File endings whose text is checked.
const CHECKED: &[&str] = &["rs", "md", "toml", "sh"];

/// Names of the outside texts the project was specified in: they must never be cited as
/// files (their rules are written out in `docs/`).
const OUTSIDE: &[&str] = &[
    "build3d-runtime.txt",
    "grid-state.txt",
    "navigator-serialization.txt",
    "navmesh-format.txt",
    "navmesh-snapshot.txt",
    "format-decisions.md",
    "shared/spec",
    "shared/design",
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests-conformance lives one level below the root")
        .to_path_buf()
}

fn walk(path: &Path, out: &mut Vec<PathBuf>) {
    // Links (the crates' `docs/` and licence files point at the root's) are read where they
    // point, not twice.
    let Ok(meta) = fs::symlink_metadata(path) else {
        return;
    };
    if meta.file_type().is_symlink() {
        return;
    }
    if meta.is_file() {
        out.push(path.to_path_buf());
        return;
    }
    let Ok(entries) = fs::read_dir(path) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for e in entries {
        let name = e.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name == "target" || name.starts_with('.') && name != ".ci" {
            continue;
        }
        walk(&e, out);
    }
}

fn checked_files() -> Vec<PathBuf> {
    let root = repo_root();
    let mut files = Vec::new();
    for r in ROOTS {
        walk(&root.join(r), &mut files);
    }
    files.retain(|f| {
        let ext = f.extension().and_then(|e| e.to_str()).unwrap_or_default();
        CHECKED.contains(&ext)
            || f.parent()
                .and_then(|p| p.file_name())
                .is_some_and(|n| n == ".ci")
    });
    // This file names the outside texts on purpose.
    files.retain(|f| !f.ends_with("tests-conformance/tests/tidy.rs"));
    files
}

/// Every `*.txt` file name the repository holds (by base name).
fn shipped_txt() -> BTreeSet<String> {
    let mut all = Vec::new();
    let root = repo_root();
    for r in [
        "crates",
        "docs",
        "fixtures",
        "peers",
        "xtask",
        "tests-conformance",
        "fuzz",
    ] {
        walk(&root.join(r), &mut all);
    }
    all.iter()
        .filter(|f| f.extension().is_some_and(|e| e == "txt"))
        .filter_map(|f| f.file_name().and_then(|n| n.to_str()).map(str::to_string))
        .collect()
}

/// The `name.txt` tokens of a line (letters, digits, `_`, `-`, `.`, `/` before `.txt`).
fn txt_names(line: &str) -> Vec<String> {
    let mut names = Vec::new();
    let b = line.as_bytes();
    let mut i = 0;
    while let Some(off) = line[i..].find(".txt") {
        let end = i + off;
        let mut start = end;
        while start > 0 {
            let c = b[start - 1];
            if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/') {
                start -= 1;
            } else {
                break;
            }
        }
        let after = b.get(end + 4).copied();
        let word_ends = after.is_none_or(|c| !c.is_ascii_alphanumeric());
        if start < end && word_ends {
            let token = &line[start..end + 4];
            let base = token.rsplit('/').next().unwrap_or(token);
            if base.len() > 4 && !base.starts_with('*') {
                names.push(base.to_string());
            }
        }
        i = end + 4;
    }
    names
}

#[test]
fn no_reference_to_a_text_outside_the_repository() {
    let mut bad = Vec::new();
    for f in checked_files() {
        let Ok(text) = fs::read_to_string(&f) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            for o in OUTSIDE {
                if line.contains(o) {
                    bad.push(format!("{}:{}: cites `{o}`", f.display(), n + 1));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "references to texts outside the repository (cite the repository's own doc in docs/):\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_cited_txt_file_is_shipped() {
    let shipped = shipped_txt();
    let mut bad = Vec::new();
    for f in checked_files() {
        let Ok(text) = fs::read_to_string(&f) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            for name in txt_names(line) {
                if !shipped.contains(&name) {
                    bad.push(format!(
                        "{}:{}: `{name}` is not in the repository",
                        f.display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "dangling file references:\n{}",
        bad.join("\n")
    );
}

#[test]
fn txt_names_finds_what_a_reader_would() {
    assert_eq!(
        txt_names("see `fixtures/levels/golden-sha256.txt` and grid-state.txt, not a.txtx"),
        vec![
            "golden-sha256.txt".to_string(),
            "grid-state.txt".to_string()
        ]
    );
    assert!(txt_names("fixtures/hash-matrix/<scenario>.txt").is_empty());
    assert!(txt_names("no file here").is_empty());
}

#[test]
fn every_markdown_link_to_a_repository_file_resolves() {
    let root = repo_root();
    let mut bad = Vec::new();
    for f in checked_files() {
        if f.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let Ok(text) = fs::read_to_string(&f) else {
            continue;
        };
        let dir = f.parent().unwrap_or(&root);
        for (n, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(p) = rest.find("](") {
                let tail = &rest[p + 2..];
                let Some(close) = tail.find(')') else { break };
                let target = tail[..close].split('#').next().unwrap_or_default();
                rest = &tail[close..];
                if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                if !dir.join(target).exists() {
                    bad.push(format!("{}:{}: link to `{target}`", f.display(), n + 1));
                }
            }
        }
    }
    assert!(bad.is_empty(), "dangling links:\n{}", bad.join("\n"));
}
