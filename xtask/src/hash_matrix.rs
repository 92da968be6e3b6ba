//! `cargo xtask hash-matrix`: determinism across runs, thread counts and machines.
//!
//! Each scenario is a scripted history that hashes (SHA-256) the serialized bytes at every
//! step. It runs once on a 1-thread rayon pool and once on a pool of several threads, in
//! this process; both runs must record the same steps and hashes, and those must equal the
//! committed expectations in `fixtures/hash-matrix/<scenario>.txt`. `--bless` rewrites the
//! expectations (a change to landed values is a format decision, never a test fix).

use std::fmt::Write as _;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

use crate::scenarios::{Scenario, SCENARIOS};

/// Collects the hashes of one run of a scenario.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Recorder {
    steps: Vec<(String, String)>,
}

impl Recorder {
    /// Records the SHA-256 of `bytes` under `step` (step names are unique per scenario).
    pub(crate) fn record(&mut self, step: impl Into<String>, bytes: &[u8]) {
        let step = step.into();
        assert!(
            !step.contains(char::is_whitespace),
            "step names have no spaces: {step:?}"
        );
        let digest = Sha256::digest(bytes);
        let mut hex = String::with_capacity(64);
        for b in digest {
            let _ = write!(hex, "{b:02x}");
        }
        self.steps.push((step, hex));
    }

    fn render(&self, scenario: &str) -> String {
        let mut out = format!(
            "# hash-matrix scenario {scenario}: SHA-256 of the serialized bytes at each step.\n\
             # Frozen once landed; rewritten only by `cargo xtask hash-matrix --bless`.\n"
        );
        for (s, h) in &self.steps {
            let _ = writeln!(out, "{s} {h}");
        }
        out
    }
}

fn expectations_path(scenario: &str) -> PathBuf {
    crate::workspace_root()
        .join("fixtures/hash-matrix")
        .join(format!("{scenario}.txt"))
}

fn parse_expectations(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some((it.next()?.to_string(), it.next()?.to_string()))
        })
        .collect()
}

fn run_on_pool(s: &Scenario, threads: usize) -> Result<Recorder, String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot build a {threads}-thread pool: {e}"))?;
    let mut rec = Recorder::default();
    pool.install(|| (s.run)(&mut rec))
        .map_err(|e| format!("{} at {threads} threads: {e}", s.name))?;
    Ok(rec)
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let bless = args.iter().any(|a| a == "--bless");
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned();
    // Several threads: more than this machine's 2 cores, so scheduling differs too.
    let many = 4;
    let mut failures = Vec::new();
    let mut ran = 0;
    for s in SCENARIOS {
        if only.as_deref().is_some_and(|o| o != s.name) {
            continue;
        }
        ran += 1;
        let one = run_on_pool(s, 1)?;
        let thread_counts: &[usize] = if s.parallel { &[2, many] } else { &[] };
        for &t in thread_counts {
            let other = run_on_pool(s, t)?;
            if other != one {
                failures.push(format!(
                    "{}: {t} threads give other hashes than 1 thread",
                    s.name
                ));
            }
        }
        let path = expectations_path(s.name);
        if bless {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            }
            std::fs::write(&path, one.render(s.name)).map_err(|e| e.to_string())?;
            println!(
                "hash-matrix: BLESSED {} ({} steps) -> {}",
                s.name,
                one.steps.len(),
                path.display()
            );
            continue;
        }
        let expected = match std::fs::read_to_string(&path) {
            Ok(t) => parse_expectations(&t),
            Err(_) => {
                failures.push(format!(
                    "{}: no expectations at {} (run with --bless once, and commit)",
                    s.name,
                    path.display()
                ));
                continue;
            }
        };
        if expected == one.steps {
            println!(
                "hash-matrix: ok {} ({} steps, threads 1{})",
                s.name,
                one.steps.len(),
                if s.parallel {
                    format!(", 2, {many}")
                } else {
                    String::new()
                }
            );
        } else {
            let mut msg = format!("{}: hashes differ from {}", s.name, path.display());
            let n = expected.len().max(one.steps.len());
            for i in 0..n {
                let e = expected.get(i);
                let g = one.steps.get(i);
                if e != g {
                    let _ = write!(
                        msg,
                        "\n  first difference at step {i}: expected {e:?}, got {g:?}"
                    );
                    break;
                }
            }
            failures.push(msg);
        }
    }
    if ran == 0 {
        return Err(format!("no scenario named {only:?}"));
    }
    if failures.is_empty() {
        println!("hash-matrix: {ran} scenarios, all equal");
        Ok(())
    } else {
        for f in &failures {
            eprintln!("hash-matrix: FAIL {f}");
        }
        Err(format!("{} scenarios failed", failures.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expectations_round_trip_through_render() {
        let mut r = Recorder::default();
        r.record("a", b"x");
        r.record("b", b"");
        assert_eq!(parse_expectations(&r.render("t")), r.steps);
        // SHA-256 of the empty string.
        assert_eq!(
            r.steps[1].1,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
