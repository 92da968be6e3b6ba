//! `cargo xtask check-layers`: the crate layering of docs/architecture.md as a test.
//!
//! Dependencies point down, never up or sideways:
//! format <- stitch <- mesh <- snapshot <- build3d <- tilecache; gridstate <- format;
//! crowd <- mesh, gridstate; the facade `onepath` over every library crate; cli, xtask,
//! tests-conformance and peers on top, with nothing depending on them. Every kind of
//! dependency (normal, build, dev) is checked.

use std::collections::BTreeMap;
use std::process::Command;

/// Library crates each crate may depend on (other workspace crates only).
fn allowed(krate: &str) -> Option<&'static [&'static str]> {
    const CHAIN: [&str; 6] = [
        "onepath-format",
        "onepath-stitch",
        "onepath-mesh",
        "onepath-snapshot",
        "onepath-build3d",
        "onepath-tilecache",
    ];
    const LIBS: &[&str] = &[
        "onepath-format",
        "onepath-stitch",
        "onepath-mesh",
        "onepath-snapshot",
        "onepath-build3d",
        "onepath-tilecache",
        "onepath-gridstate",
        "onepath-crowd",
    ];
    const ALL: &[&str] = &[
        "onepath-format",
        "onepath-stitch",
        "onepath-mesh",
        "onepath-snapshot",
        "onepath-build3d",
        "onepath-tilecache",
        "onepath-gridstate",
        "onepath-crowd",
        "onepath",
    ];
    if let Some(i) = CHAIN.iter().position(|c| *c == krate) {
        return Some(&CHAIN[..i]);
    }
    match krate {
        "onepath-gridstate" => Some(&CHAIN[..1]),
        "onepath-crowd" => Some(&[
            "onepath-format",
            "onepath-stitch",
            "onepath-mesh",
            "onepath-gridstate",
        ]),
        "onepath" => Some(LIBS),
        "onepath-cli" | "xtask" | "tests-conformance" | "onepath-peers" | "onepath-fuzz" => {
            Some(ALL)
        }
        _ => None,
    }
}

pub(crate) fn run() -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(crate::workspace_root())
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("bad cargo metadata: {e}"))?;
    let packages = meta["packages"].as_array().ok_or("no packages")?;
    let members: Vec<String> = packages
        .iter()
        .filter_map(|p| p["name"].as_str().map(str::to_string))
        .collect();
    let mut edges: BTreeMap<(String, String), String> = BTreeMap::new();
    for p in packages {
        let name = p["name"].as_str().unwrap_or_default().to_string();
        for d in p["dependencies"].as_array().into_iter().flatten() {
            let dep = d["name"].as_str().unwrap_or_default().to_string();
            // A crate's dev-dependency on itself only turns on its own `fixtures` feature
            // for its integration tests; it is no edge between crates.
            if members.contains(&dep) && dep != name {
                let kind = d["kind"].as_str().unwrap_or("normal").to_string();
                edges.insert((name.clone(), dep), kind);
            }
        }
    }
    let mut bad = Vec::new();
    for ((from, to), kind) in &edges {
        match allowed(from) {
            None => bad.push(format!(
                "{from} is not in the layer table of docs/architecture.md"
            )),
            Some(ok) if !ok.contains(&to.as_str()) => {
                bad.push(format!("{from} -> {to} ({kind} dependency) is not allowed"))
            }
            Some(_) => {}
        }
    }
    for m in &members {
        if allowed(m).is_none() {
            let msg = format!("{m} is not in the layer table of docs/architecture.md");
            if !bad.contains(&msg) {
                bad.push(msg);
            }
        }
    }
    if bad.is_empty() {
        println!(
            "check-layers: {} crates, {} internal edges, all point down",
            members.len(),
            edges.len()
        );
        Ok(())
    } else {
        for b in &bad {
            eprintln!("check-layers: {b}");
        }
        Err(format!("{} layering violations", bad.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::allowed;

    #[test]
    fn upward_edges_are_refused() {
        assert!(!allowed("onepath-format").unwrap().contains(&"onepath-mesh"));
        assert!(!allowed("onepath-mesh")
            .unwrap()
            .contains(&"onepath-snapshot"));
        assert!(!allowed("onepath-gridstate")
            .unwrap()
            .contains(&"onepath-mesh"));
        assert!(allowed("onepath-snapshot")
            .unwrap()
            .contains(&"onepath-mesh"));
        assert!(allowed("onepath-gridstate")
            .unwrap()
            .contains(&"onepath-format"));
    }

    #[test]
    fn unknown_crates_have_no_layer() {
        assert!(allowed("some-new-crate").is_none());
    }
}
