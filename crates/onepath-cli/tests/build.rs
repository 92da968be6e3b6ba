//! `onepath build`, `onepath settings` and the facade's files (ONNM, ONNW) through every
//! command, run as a user runs them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;
use onepath::{NavMesh, NavSettings, NavWorld, Partition};
use predicates::prelude::*;
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn level(name: &str) -> PathBuf {
    repo().join("levels").join(name)
}

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("onepath-cli-build-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn onepath() -> Command {
    Command::cargo_bin("onepath").unwrap()
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).expect("the output is JSON")
}

const SETTINGS: &str = "# a smaller agent, the layer partition\n\
                        agent_radius = 0.4\n\
                        partition = \"Layers\"\n\
                        max_edge_length = 10.0\n";

/// Writes `text` to the file `name` once per test run and returns its path: tests run in
/// parallel, and rewriting a file another test's command is reading races (a truncated file
/// reads as the default settings).
fn written_once(cell: &'static OnceLock<PathBuf>, name: &str, text: &str) -> PathBuf {
    cell.get_or_init(|| {
        let p = tmp(name);
        std::fs::write(&p, text).unwrap();
        p
    })
    .clone()
}

fn settings_file() -> PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    written_once(&FILE, "small-agent.toml", SETTINGS)
}

fn small_agent() -> NavSettings {
    let mut s = NavSettings::default();
    s.set_agent_radius(0.4).unwrap();
    s.set_partition(Partition::Layers);
    s.set_max_edge_length(10.0).unwrap();
    s
}

#[test]
fn build_output_equals_the_library_build_byte_for_byte() {
    let want = NavMesh::build(&small_agent(), level("bridge.obj").as_path())
        .unwrap()
        .save();
    for (name, extra) in [
        ("plain", &[][..]),
        ("one-thread", &["--threads", "1"][..]),
        ("three-threads", &["--threads", "3"][..]),
        ("tile-cache", &["--tile-cache"][..]),
    ] {
        let out = tmp(&format!("bridge-{name}.onnm"));
        let stdout = onepath()
            .arg("build")
            .arg(level("bridge.obj"))
            .arg("--settings")
            .arg(settings_file())
            .arg("-o")
            .arg(&out)
            .args(extra)
            .arg("--json")
            .assert()
            .code(0)
            // Not a terminal: no progress bar.
            .stderr("")
            .get_output()
            .stdout
            .clone();
        assert!(std::fs::read(&out).unwrap() == want, "{name}: bytes differ");
        let v = json_of(&stdout);
        let nav = NavMesh::load(&want).unwrap();
        assert_eq!(v["tiles"], nav.mesh().tile_count(), "{name}");
        let polys: usize = nav.mesh().tiles().map(|t| t.tile().poly_count()).sum();
        assert_eq!(v["polygons"], polys, "{name}");
        assert_eq!(v["fingerprint"], nav.mesh().fingerprint().to_string());
        assert_eq!(v["sha256"], onepath_cli::verify::sha256_hex(&want));
        assert_eq!(
            v["walkable_area"].as_f64().unwrap(),
            onepath_cli::build::walkable_area(nav.mesh())
        );
        assert!(v["walkable_area"].as_f64().unwrap() > 100.0);
    }
}

#[test]
fn build_without_settings_uses_the_defaults_and_prints_a_summary() {
    let out = tmp("city.onnm");
    onepath()
        .arg("build")
        .arg(level("city.obj"))
        .arg("-o")
        .arg(&out)
        .arg("--quiet")
        .assert()
        .code(0)
        .stdout(predicate::str::is_match(
            r"city\.onnm: \d+ tiles, \d+ polygons, walkable area [0-9.]+ m², built in [0-9.]+ s, fingerprint [0-9a-f]{32}\nwrote \d+ bytes \(ONNM\), sha256 [0-9a-f]{64}\n",
        ).unwrap());
    let want = NavMesh::build(&NavSettings::default(), level("city.obj").as_path())
        .unwrap()
        .save();
    assert!(std::fs::read(&out).unwrap() == want);
}

#[test]
fn settings_default_prints_every_field_and_reads_back() {
    let out = onepath()
        .args(["settings", "--default"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let back: NavSettings = toml::from_str(&text).unwrap();
    assert_eq!(back, NavSettings::default());
    assert_eq!(text.lines().filter(|l| l.contains(" = ")).count(), 21);
    // The printed defaults are a settings file `build` takes.
    let p = tmp("defaults.toml");
    std::fs::write(&p, &text).unwrap();
    onepath()
        .arg("build")
        .arg(level("bridge.obj"))
        .arg("--settings")
        .arg(&p)
        .arg("-o")
        .arg(tmp("bridge-defaults.onnm"))
        .assert()
        .code(0);
    onepath().arg("settings").assert().code(2);
}

fn build_with_settings(text: &str, name: &str) -> assert_cmd::assert::Assert {
    let p = tmp(name);
    std::fs::write(&p, text).unwrap();
    onepath()
        .arg("build")
        .arg(level("bridge.obj"))
        .arg("--settings")
        .arg(&p)
        .arg("-o")
        .arg(tmp("never.onnm"))
        .assert()
}

#[test]
fn bad_settings_name_the_file_line_and_value() {
    build_with_settings("cell_size = 0.3\nagent_radius = \"wide\"\n", "type.toml")
        .code(1)
        .stderr(predicate::str::contains("type.toml: line 2: "));
    build_with_settings("cell_size = 0.3\ncolour = 3\n", "unknown.toml")
        .code(1)
        .stderr(predicate::str::contains("unknown.toml: line 2: "))
        .stderr(predicate::str::contains("colour"));
    build_with_settings("agent_max_slope = 91.0\n", "range.toml")
        .code(1)
        .stderr(predicate::str::contains("range.toml: "))
        .stderr(predicate::str::contains("91"));
    build_with_settings("cell_size = [\n", "syntax.toml")
        .code(1)
        .stderr(predicate::str::contains("syntax.toml: line "));
    onepath()
        .arg("build")
        .arg(level("bridge.obj"))
        .args(["--settings", "no/such.toml", "-o"])
        .arg(tmp("never.onnm"))
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with(
            "onepath: no/such.toml: cannot read:",
        ));
}

/// `onepath build LEVEL -o never.onnm` on a level written by the test as `name`.
fn build_level_text(text: &str, name: &str) -> assert_cmd::assert::Assert {
    let level = tmp(name);
    std::fs::write(&level, text).unwrap();
    onepath()
        .arg("build")
        .arg(&level)
        .arg("-o")
        .arg(tmp("never.onnm"))
        .assert()
}

#[test]
fn bad_levels_name_the_file() {
    onepath()
        .args(["build", "no/such/level.obj", "-o"])
        .arg(tmp("never.onnm"))
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with(
            "onepath: no/such/level.obj: cannot read:",
        ));
    build_level_text("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 9\n", "bad.obj")
        .code(1)
        .stderr(predicate::str::contains("bad.obj"))
        .stderr(predicate::str::contains(
            "line 4: face vertex index out of bounds in \"f 1 2 9\"",
        ));
    build_level_text("v 0 0 0\nv 1 0 0\nv 0 zero 1\nf 1 2 3\n", "garbled.obj")
        .code(1)
        .stderr(predicate::str::contains(
            "garbled.obj: line 3: position parse error in \"v 0 zero 1\"",
        ));
    onepath()
        .arg("build")
        .arg(level("bridge.obj"))
        .args(["--threads", "0", "-o"])
        .arg(tmp("never.onnm"))
        .assert()
        .code(2);
}

#[test]
fn onnm_through_info_verify_render_and_path() {
    let file = tmp("bridge-facade.onnm");
    let nav = NavMesh::build(&small_agent(), level("bridge.obj").as_path()).unwrap();
    std::fs::write(&file, nav.save()).unwrap();
    let v = json_of(
        &onepath()
            .args(["info", "--json"])
            .arg(&file)
            .assert()
            .code(0)
            .get_output()
            .stdout,
    );
    assert_eq!(v["kind"], "ONNM");
    assert_eq!(v["version"], 1);
    assert_eq!(v["tiles"], nav.mesh().tile_count());
    assert_eq!(v["details"]["settings"]["partition"], "Layers");
    assert_eq!(
        v["details"]["settings"]["agent_radius"].as_f64().unwrap(),
        f64::from(0.4f32)
    );
    onepath()
        .arg("verify")
        .arg(&file)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("ONNM canonical"));
    let svg = tmp("bridge-facade.svg");
    onepath()
        .arg("render")
        .arg(&file)
        .arg("-o")
        .arg(&svg)
        .assert()
        .code(0);
    let polys: usize = nav.mesh().tiles().map(|t| t.tile().poly_count()).sum();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(text.matches("<polygon ").count(), polys);
    // `path` answers as the facade's find_path.
    let want = nav.find_path([2.0, 0.0, 2.0], [36.0, 3.0, 11.0]).unwrap();
    let v = json_of(
        &onepath()
            .args(["path", "--json"])
            .arg(&file)
            .args(["2", "0", "2", "36", "3", "11"])
            .assert()
            .code(0)
            .get_output()
            .stdout,
    );
    let got: Vec<[f64; 3]> = serde_json::from_value(v["straight"].clone()).unwrap();
    let want_points: Vec<[f64; 3]> = want.points.iter().map(|p| p.position).collect();
    assert_eq!(got, want_points);
    let corridor: Vec<u64> = serde_json::from_value(v["corridor"].clone()).unwrap();
    assert_eq!(corridor, want.polys.iter().map(|p| p.0).collect::<Vec<_>>());
    assert_eq!(v["cost"].as_f64().unwrap(), want.cost);
    onepath()
        .arg("path")
        .arg(&file)
        .args(["2", "0", "2", "36", "3", "11", "--class", "0.5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--class applies to worlds of agent classes (ONNW)",
        ));
}

#[test]
fn onnw_classes_are_picked_by_radius() {
    let mut big = NavSettings::default();
    big.set_agent_radius(1.2).unwrap();
    let world = NavWorld::build(
        &[NavSettings::default(), big],
        level("bridge.obj").as_path(),
    )
    .unwrap();
    let file = tmp("bridge.onnw");
    std::fs::write(&file, world.save()).unwrap();
    for (radius, class) in [("0.5", 0usize), ("1.0", 1)] {
        let v = json_of(
            &onepath()
                .args(["info", "--json", "--class", radius])
                .arg(&file)
                .assert()
                .code(0)
                .get_output()
                .stdout,
        );
        assert_eq!(v["kind"], "ONNW");
        assert_eq!(v["details"]["class"], class);
        assert_eq!(v["details"]["classes"].as_array().unwrap().len(), 2);
        let c = world.class(class).unwrap();
        assert_eq!(v["tiles"], c.mesh().tile_count());
        assert_eq!(v["fingerprint"], c.mesh().fingerprint().to_string());
        let want = c.find_path([2.0, 0.0, 2.0], [36.0, 3.0, 11.0]).unwrap();
        let p = json_of(
            &onepath()
                .args(["path", "--json", "--class", radius])
                .arg(&file)
                .args(["2", "0", "2", "36", "3", "11"])
                .assert()
                .get_output()
                .stdout,
        );
        let got: Vec<[f64; 3]> = serde_json::from_value(p["straight"].clone()).unwrap();
        let want_points: Vec<[f64; 3]> = want.points.iter().map(|p| p.position).collect();
        assert_eq!(got, want_points, "class {class}");
    }
    onepath()
        .arg("verify")
        .arg(&file)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("ONNW canonical"));
    onepath()
        .arg("render")
        .arg(&file)
        .arg("-o")
        .arg(tmp("bridge-world.png"))
        .args(["--class", "1.0", "--size", "200"])
        .assert()
        .code(0);
}

fn default_settings_file() -> PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    written_once(&FILE, "default-agent.toml", "agent_radius = 0.6\n")
}

#[test]
fn build_with_two_settings_writes_the_world_the_library_builds() {
    let mut big = NavSettings::default();
    big.set_agent_radius(0.6).unwrap();
    let want = NavWorld::build(&[small_agent(), big], level("bridge.obj").as_path())
        .unwrap()
        .save();
    let out = tmp("bridge-world.onnw");
    let stdout = onepath()
        .arg("build")
        .arg(level("bridge.obj"))
        .arg("--settings")
        .arg(settings_file())
        .arg("--settings")
        .arg(default_settings_file())
        .arg("-o")
        .arg(&out)
        .arg("--json")
        .assert()
        .code(0)
        .stderr("")
        .get_output()
        .stdout
        .clone();
    assert!(std::fs::read(&out).unwrap() == want, "world bytes differ");
    let v = json_of(&stdout);
    assert_eq!(v["kind"], "ONNW");
    let world = NavWorld::load(&want).unwrap();
    let classes = v["classes"].as_array().unwrap();
    assert_eq!(classes.len(), 2);
    let mut tiles = 0;
    for (c, nav) in classes.iter().zip(world.classes()) {
        assert_eq!(c["tiles"], nav.mesh().tile_count());
        assert_eq!(c["fingerprint"], nav.mesh().fingerprint().to_string());
        // JSON holds the shortest decimal of the stored f32.
        assert_eq!(
            c["agent_radius"].as_f64().unwrap() as f32,
            nav.settings().agent_radius()
        );
        tiles += nav.mesh().tile_count();
    }
    assert_eq!(v["tiles"], tiles);
    assert_ne!(classes[0]["fingerprint"], classes[1]["fingerprint"]);
    // The text summary names every class.
    onepath()
        .arg("build")
        .arg(level("bridge.obj"))
        .arg("--settings")
        .arg(settings_file())
        .arg("--settings")
        .arg(default_settings_file())
        .arg("-o")
        .arg(&out)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("a world of 2 agent classes"))
        .stdout(predicate::str::contains("class 0 (agent radius 0.4)"))
        .stdout(predicate::str::contains("class 1 (agent radius 0.6)"))
        .stdout(predicate::str::contains("(ONNW)"));
    // Every command reads it: the second class's path.
    onepath()
        .arg("path")
        .arg(&out)
        .args(["2", "0", "2", "20", "0", "2", "--class", "0.6", "--json"])
        .assert()
        .code(predicate::in_iter([0, 3]));
}

#[test]
fn build_of_one_class_into_an_onnw_name_writes_a_world_of_one_class() {
    let want = NavWorld::build(&[small_agent()], level("bridge.obj").as_path())
        .unwrap()
        .save();
    let out = tmp("bridge-one.onnw");
    onepath()
        .arg("build")
        .arg(level("bridge.obj"))
        .arg("--settings")
        .arg(settings_file())
        .arg("-o")
        .arg(&out)
        .arg("--quiet")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("(ONNW)"));
    assert!(std::fs::read(&out).unwrap() == want);
}

#[test]
fn build_of_two_classes_into_an_onnm_name_is_a_usage_error_that_writes_nothing() {
    let out = tmp("two-classes.onnm");
    let _ = std::fs::remove_file(&out);
    onepath()
        .arg("build")
        .arg(level("bridge.obj"))
        .arg("--settings")
        .arg(settings_file())
        .arg("--settings")
        .arg(default_settings_file())
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "2 agent classes make a world (ONNW): name the output *.onnw",
        ));
    assert!(!out.exists());
}
