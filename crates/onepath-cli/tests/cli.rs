//! The `onepath` command run as a user runs it (assert_cmd): exit codes, the messages for
//! bad input, JSON parsed and checked against the libraries, pictures checked element by
//! element and pixel by pixel.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;
use onepath_format::NavSettings;
use onepath_mesh::{NavMeshDebug, NavMeshSerializer, TiledNavMesh};
use predicates::prelude::*;
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn level() -> PathBuf {
    repo().join("levels/bridge.obj")
}

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("onepath-cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The shipped bridge level built by the library with the default settings, and its ONPM
/// file (built once per test run).
fn bridge() -> &'static (TiledNavMesh, PathBuf) {
    static MESH: OnceLock<(TiledNavMesh, PathBuf)> = OnceLock::new();
    MESH.get_or_init(|| {
        let soup = onepath_build3d::load_obj(level()).unwrap();
        let built = onepath_build3d::Mesh3DPipeline::from_settings(&NavSettings::default())
            .unwrap()
            .build_soup(&soup)
            .unwrap();
        let path = tmp("bridge.onpm");
        std::fs::write(&path, NavSerial::mesh(&built.mesh)).unwrap();
        (built.mesh, path)
    })
}

struct NavSerial;
impl NavSerial {
    fn mesh(m: &TiledNavMesh) -> Vec<u8> {
        NavMeshSerializer::write_mesh(m)
    }
}

/// The bridge level built with the layer partition (storeys and the bridge in layers of
/// their own), and its ONPM file.
fn bridge_layers() -> &'static (TiledNavMesh, PathBuf) {
    static MESH: OnceLock<(TiledNavMesh, PathBuf)> = OnceLock::new();
    MESH.get_or_init(|| {
        let soup = onepath_build3d::load_obj(level()).unwrap();
        let mut settings = NavSettings::default();
        settings.set_partition(onepath_format::Partition::Layers);
        let built = onepath_build3d::Mesh3DPipeline::from_settings(&settings)
            .unwrap()
            .build_soup(&soup)
            .unwrap();
        let path = tmp("bridge-layers.onpm");
        std::fs::write(&path, NavSerial::mesh(&built.mesh)).unwrap();
        (built.mesh, path)
    })
}

fn onepath() -> Command {
    Command::cargo_bin("onepath").unwrap()
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).expect("the output is JSON")
}

fn arena() -> Option<PathBuf> {
    let p = PathBuf::from(std::env::var_os("ONEPATH_DATA")?).join("movingai/arena.map");
    p.is_file().then_some(p)
}

/// A small Moving AI map written by the test: a 12 × 8 room with a wall across it and a gap.
fn small_map() -> PathBuf {
    static MAP: OnceLock<PathBuf> = OnceLock::new();
    MAP.get_or_init(write_small_map).clone()
}

fn write_small_map() -> PathBuf {
    let path = tmp("room.map");
    let rows = [
        "............",
        "............",
        ".....@......",
        ".....@......",
        ".....@......",
        ".....@......",
        "............",
        "............",
    ];
    let text = format!(
        "type octile\nheight 8\nwidth 12\nmap\n{}\n",
        rows.join("\n")
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn info_json_reports_what_the_library_reads() {
    let (mesh, file) = bridge();
    let out = onepath()
        .args(["info", "--json"])
        .arg(file)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    assert_eq!(v["kind"], "ONPM");
    assert_eq!(v["version"], 2);
    assert_eq!(v["tiles"], mesh.tile_count());
    assert_eq!(v["slots"], mesh.slot_count());
    let polys: usize = mesh.tiles().map(|t| t.tile().poly_count()).sum();
    assert_eq!(v["polygons"], polys);
    assert_eq!(v["fingerprint"], mesh.fingerprint().to_string());
    let list = v["tile_list"].as_array().unwrap();
    assert_eq!(list.len(), mesh.tile_count());
    for (t, j) in mesh.tiles().zip(list) {
        assert_eq!(j["content_id"], t.tile().content_id().to_string());
        assert_eq!(j["polygons"], t.tile().poly_count());
        assert_eq!(j["layer"], t.tile().position().2);
    }
    assert_eq!(v["params"]["cell_size"], mesh.params().cell_size);
}

#[test]
fn info_text_names_kind_tiles_and_polygons() {
    let (_, file) = bridge();
    onepath()
        .arg("info")
        .arg(file)
        .assert()
        .success()
        .stdout(predicate::str::contains("ONPM (tiled navigation mesh)"))
        .stdout(predicate::str::contains("fingerprint: "))
        .stdout(predicate::str::contains("content id"));
}

#[test]
fn a_missing_file_is_exit_1_naming_it() {
    onepath()
        .args(["info", "no/such/file.onpm"])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with(
            "onepath: no/such/file.onpm: cannot read:",
        ));
}

#[test]
fn a_file_of_no_known_kind_is_exit_1_naming_its_magic() {
    let path = tmp("junk.bin");
    std::fs::write(&path, b"JUNKJUNKJUNK").unwrap();
    onepath()
        .arg("info")
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
        "not a OnePath file: magic \"JUNK\" is none of ONPT, ONNM, ONNW, ONPM, ONPS, ONTK, OPGS",
    ));
}

#[test]
fn a_truncated_mesh_is_exit_1_naming_the_field() {
    let (_, file) = bridge();
    let bytes = std::fs::read(file).unwrap();
    let path = tmp("truncated.onpm");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    onepath()
        .arg("verify")
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("truncated.onpm: malformed slot "));
}

#[test]
fn a_bad_version_is_exit_1_naming_it() {
    let (_, file) = bridge();
    let mut bytes = std::fs::read(file).unwrap();
    bytes[4] = 9;
    let path = tmp("version9.onpm");
    std::fs::write(&path, &bytes).unwrap();
    onepath()
        .arg("info")
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "unsupported ONPM version 9 (expected 2)",
        ));
}

#[test]
fn verify_prints_the_sha256_of_canonical_bytes() {
    let (_, file) = bridge();
    let bytes = std::fs::read(file).unwrap();
    let want = onepath_cli::verify::sha256_hex(&bytes);
    let out = onepath()
        .args(["verify", "--json"])
        .arg(file)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    assert_eq!(v["canonical"], true);
    assert_eq!(v["sha256"], want);
    assert!(v.get("first_difference").is_none());
    onepath()
        .arg("verify")
        .arg(file)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!(
            "ONPM canonical, sha256 {want}"
        )));
}

#[test]
fn snapshot_full_and_referenced_read_back_as_the_same_mesh() {
    let (mesh, file) = bridge();
    let full = tmp("bridge-full.onps");
    onepath()
        .arg("snapshot")
        .arg(file)
        .arg("-o")
        .arg(&full)
        .assert()
        .success()
        .stdout(predicate::str::contains("ONPS (full)"));
    let want = onepath_snapshot::NavMeshSnapshot::take(mesh, onepath_snapshot::SnapshotMode::Full);
    assert_eq!(std::fs::read(&full).unwrap(), want);
    onepath().arg("verify").arg(&full).assert().code(0);

    let referenced = tmp("bridge-ref.onps");
    onepath()
        .arg("snapshot")
        .arg(file)
        .arg("-o")
        .arg(&referenced)
        .arg("--referenced")
        .assert()
        .success();
    // Without the tiles it names, a Referenced snapshot says what it needs.
    onepath()
        .arg("info")
        .arg(&referenced)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "slot 0 names its tile by content id (a Referenced snapshot): give the mesh that \
             holds the tiles with --with MESH",
        ));
    let out = onepath()
        .args(["info", "--json"])
        .arg(&referenced)
        .arg("--with")
        .arg(file)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    assert_eq!(v["details"]["mode"], "referenced");
    assert_eq!(v["tiles"], mesh.tile_count());
    onepath()
        .arg("verify")
        .arg(&referenced)
        .arg("--with")
        .arg(file)
        .assert()
        .code(0);
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

#[test]
fn render_svg_holds_one_polygon_element_per_polygon() {
    let (mesh, file) = bridge();
    let out = tmp("bridge.svg");
    onepath()
        .arg("render")
        .arg(file)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    let debug = NavMeshDebug::collect(mesh);
    assert_eq!(count(&svg, "<polygon "), debug.polygons.len());
    // Every polygon of the library's debug geometry is there, by reference.
    for p in &debug.polygons {
        assert!(svg.contains(&format!("data-poly=\"{}\"", p.poly.0)));
    }
    for group in [
        "tile-borders",
        "portals",
        "off-mesh-links",
        "scale-bar",
        "legend",
    ] {
        assert!(svg.contains(&format!("<g id=\"{group}\"")), "{group}");
    }
    // The picture parses as SVG.
    resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default()).unwrap();
}

#[test]
fn render_one_layer_draws_only_its_polygons() {
    let (mesh, file) = bridge_layers();
    let layers: std::collections::BTreeSet<u16> =
        mesh.tiles().map(|t| t.tile().position().2).collect();
    assert!(layers.len() > 1, "the bridge level has several layers");
    for &l in &layers {
        let out = tmp(&format!("bridge-layer{l}.svg"));
        onepath()
            .arg("render")
            .arg(file)
            .arg("-o")
            .arg(&out)
            .args(["--layer", &l.to_string()])
            .assert()
            .success();
        let svg = std::fs::read_to_string(&out).unwrap();
        let want: usize = mesh
            .tiles()
            .filter(|t| t.tile().position().2 == l)
            .map(|t| t.tile().poly_count())
            .sum();
        assert_eq!(count(&svg, "<polygon "), want, "layer {l}");
    }
    onepath()
        .arg("render")
        .arg(file)
        .arg("-o")
        .arg(tmp("none.svg"))
        .args(["--layer", "99"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--layer 99: the mesh has no tile in layer 99",
        ));
}

fn png_pixels(path: &Path) -> resvg::tiny_skia::Pixmap {
    resvg::tiny_skia::Pixmap::decode_png(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn render_png_has_the_given_width_and_more_than_one_colour() {
    let (_, file) = bridge();
    let out = tmp("bridge.png");
    onepath()
        .arg("render")
        .arg(file)
        .arg("-o")
        .arg(&out)
        .args(["--size", "320", "--path", "2", "0", "2", "36", "3", "11"])
        .assert()
        .success();
    let png = png_pixels(&out);
    assert_eq!(png.width(), 320);
    assert!(png.height() > 100);
    let first = png.pixels()[0];
    assert!(png.pixels().iter().any(|p| *p != first));
    // The path is drawn: the SVG of the same command has it.
    let svg = tmp("bridge-path.svg");
    onepath()
        .arg("render")
        .arg(file)
        .arg("-o")
        .arg(&svg)
        .args(["--path", "2", "0", "2", "36", "3", "11"])
        .assert()
        .success();
    assert!(std::fs::read_to_string(&svg)
        .unwrap()
        .contains("<g id=\"path\""));
}

#[test]
fn render_refuses_an_unknown_picture_type() {
    let (_, file) = bridge();
    onepath()
        .arg("render")
        .arg(file)
        .args(["-o", "out.gif"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "out.gif: the picture's name must end in .svg or .png",
        ));
}

#[test]
fn path_json_matches_the_library_query() {
    let (mesh, file) = bridge();
    let out = onepath()
        .args(["path", "--json"])
        .arg(file)
        .args(["2", "0", "2", "36", "3", "11"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    let want = onepath_cli::route::find(
        mesh,
        &onepath_mesh::QueryFilter::new(),
        [2.0, 0.0, 2.0],
        [36.0, 3.0, 11.0],
    )
    .unwrap();
    assert_eq!(v["status"], "complete");
    assert_eq!(v["corridor"].as_array().unwrap().len(), want.corridor.len());
    let straight = v["straight"].as_array().unwrap();
    assert_eq!(straight.len(), want.straight.len());
    assert!(straight.len() >= 2);
    assert_eq!(v["length"].as_f64().unwrap(), want.length);
    // The straight path starts at the start's nearest point and ends at the goal's.
    assert_eq!(straight[0], v["start"]["point"]);
    assert_eq!(straight[straight.len() - 1], v["goal"]["point"]);
    onepath()
        .arg("path")
        .arg(file)
        .args(["2", "0", "2", "36", "3", "11"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("path: complete"));
}

#[test]
fn path_far_from_the_mesh_is_exit_2_naming_the_point() {
    let (_, file) = bridge();
    onepath()
        .arg("path")
        .arg(file)
        .args(["-500", "0", "-500", "36", "3", "11"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("of the start (-500, 0, -500)"));
}

#[test]
fn path_on_a_grid_state_says_it_holds_no_mesh() {
    let grid = onepath_gridstate::Grid::from_ascii(&["...", "..."]).unwrap();
    let path = tmp("grid.opgs");
    std::fs::write(&path, grid.save_state()).unwrap();
    onepath()
        .arg("path")
        .arg(&path)
        .args(["0", "0", "0", "1", "0", "1"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("holds no mesh"));
    let out = onepath()
        .args(["info", "--json"])
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    assert_eq!(v["kind"], "OPGS");
    assert_eq!(v["details"]["object"], "grid");
    assert_eq!(v["details"]["width"], 3);
    onepath().arg("verify").arg(&path).assert().code(0);
}

#[test]
fn grid_every_algorithm_finds_the_path_around_the_wall() {
    let map = small_map();
    let grid = onepath_gridstate::Grid::from_movingai_path(&map).unwrap();
    for algo in ["astar", "jps", "jps+", "theta", "hpa"] {
        let out = onepath()
            .arg("grid")
            .arg(&map)
            .args(["1", "3", "10", "3", "--algo", algo, "--json"])
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone();
        let v = json_of(&out);
        assert_eq!(v["status"], "found", "{algo}");
        assert_eq!(v["algo"], algo);
        let cells = v["cells"].as_array().unwrap();
        assert_eq!(cells[0], serde_json::json!([1, 3]));
        assert_eq!(cells[cells.len() - 1], serde_json::json!([10, 3]));
        // No cell of the path is a wall.
        for c in cells {
            let (x, y) = (c[0].as_i64().unwrap(), c[1].as_i64().unwrap());
            assert!(grid.is_walkable(x, y), "{algo}: ({x}, {y})");
        }
        let cost = v["cost"].as_f64().unwrap();
        // Around the wall: longer than the straight 9 cells.
        assert!(cost > 9.0, "{algo}: {cost}");
    }
}

#[test]
fn grid_astar_cost_is_the_library_cost() {
    let map = small_map();
    let grid = onepath_gridstate::Grid::from_movingai_path(&map).unwrap();
    let want = onepath_cli::gridpath::search(&grid, onepath_cli::cli::Algo::Astar, (1, 3), (10, 3))
        .unwrap();
    onepath()
        .arg("grid")
        .arg(&map)
        .args(["1", "3", "10", "3"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!("cost {:.6}", want.cost)));
}

#[test]
fn grid_bad_inputs_name_what_is_wrong() {
    let map = small_map();
    onepath()
        .arg("grid")
        .arg(&map)
        .args(["5", "3", "10", "3"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("start (5, 3) is a wall"));
    onepath()
        .arg("grid")
        .arg(&map)
        .args(["1", "3", "40", "3"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "goal (40, 3) is outside the 12 × 8 grid",
        ));
    let bad = tmp("short-row.map");
    std::fs::write(&bad, "type octile\nheight 2\nwidth 4\nmap\n....\n...\n").unwrap();
    onepath()
        .arg("grid")
        .arg(&bad)
        .args(["0", "0", "1", "0"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("short-row.map: "))
        .stderr(predicate::str::contains("row 1 has 3 cells, not 4"));
    onepath()
        .arg("grid")
        .arg(&map)
        .args(["1", "3", "10", "3", "--algo", "dijkstra"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid value 'dijkstra'"));
}

#[test]
fn grid_with_a_closed_wall_is_exit_3() {
    let path = tmp("closed.map");
    std::fs::write(
        &path,
        "type octile\nheight 3\nwidth 3\nmap\n.@.\n.@.\n.@.\n",
    )
    .unwrap();
    onepath()
        .arg("grid")
        .arg(&path)
        .args(["0", "0", "2", "0"])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("no path"));
}

#[test]
fn render_a_grid_to_png() {
    let map = arena().unwrap_or_else(small_map);
    let out = tmp("grid.png");
    let args: &[&str] = if map.ends_with("arena.map") {
        &["--path", "3", "5", "45", "40", "--algo", "theta"]
    } else {
        &["--path", "1", "3", "10", "3"]
    };
    onepath()
        .arg("render")
        .arg(&map)
        .arg("-o")
        .arg(&out)
        .args(["--size", "256"])
        .args(args)
        .assert()
        .success();
    let png = png_pixels(&out);
    assert_eq!(png.width(), 256);
    let first = png.pixels()[0];
    assert!(png.pixels().iter().any(|p| *p != first));
    onepath()
        .arg("render")
        .arg(&map)
        .arg("-o")
        .arg(tmp("grid-layer.svg"))
        .args(["--layer", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--layer applies to meshes"));
}

#[test]
fn a_command_line_that_does_not_parse_is_exit_2() {
    onepath().arg("frobnicate").assert().code(2);
    onepath().args(["render", "x.onpm"]).assert().code(2);
    onepath()
        .args(["render", "x.onpm", "-o", "x.svg", "--size", "10"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("10 is not in 64..=16384"));
}

#[test]
fn a_lone_tile_needs_its_mesh_to_be_checked() {
    let (mesh, file) = bridge();
    let tile = mesh.tiles().nth(1).unwrap().tile();
    let path = tmp("tile1.onpt");
    std::fs::write(&path, NavMeshSerializer::write_tile(tile)).unwrap();
    let v = json_of(
        &onepath()
            .args(["info", "--json"])
            .arg(&path)
            .assert()
            .code(0)
            .get_output()
            .stdout,
    );
    assert_eq!(v["kind"], "ONPT");
    assert_eq!(v["fingerprint"], mesh.fingerprint().to_string());
    assert_eq!(v["polygons"], tile.poly_count());
    let (x, z, layer) = tile.position();
    assert_eq!(v["tile_list"][0]["x"], x);
    assert_eq!(v["tile_list"][0]["z"], z);
    assert_eq!(v["tile_list"][0]["layer"], layer);
    // Without the mesh's parameters there is no content id and no canonical check.
    assert!(v["tile_list"][0].get("content_id").is_none());
    onepath()
        .arg("verify")
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("give the mesh with --with MESH"));
    onepath()
        .arg("verify")
        .arg(&path)
        .arg("--with")
        .arg(file)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("ONPT canonical"));
    let v = json_of(
        &onepath()
            .args(["info", "--json", "--with"])
            .arg(file)
            .arg(&path)
            .assert()
            .code(0)
            .get_output()
            .stdout,
    );
    assert_eq!(
        v["tile_list"][0]["content_id"],
        tile.content_id().to_string()
    );
}

#[test]
fn a_tile_cache_snapshot_reports_its_lists_and_mesh() {
    let soup = onepath_build3d::load_obj(level()).unwrap();
    let pipeline = onepath_build3d::Mesh3DPipeline::from_settings(&NavSettings::default()).unwrap();
    let mut cache = onepath_tilecache::TileCache::build_soup(&pipeline, &soup).unwrap();
    cache
        .add_obstacle(onepath_build3d::Obstacle::Cylinder {
            center: [8.0, 0.0, 10.0],
            radius: 1.0,
            height: 2.0,
        })
        .unwrap();
    let path = tmp("bridge.ontk");
    std::fs::write(&path, cache.snapshot(onepath_snapshot::SnapshotMode::Full)).unwrap();
    let v = json_of(
        &onepath()
            .args(["info", "--json"])
            .arg(&path)
            .assert()
            .code(0)
            .get_output()
            .stdout,
    );
    assert_eq!(v["kind"], "ONTK");
    assert_eq!(v["details"]["obstacles"], 1);
    assert_eq!(v["details"]["queued_tiles"], cache.queue().len());
    assert_eq!(v["tiles"], cache.mesh().tile_count());
    onepath().arg("verify").arg(&path).assert().code(0);
    let svg = tmp("bridge-ontk.svg");
    onepath()
        .arg("render")
        .arg(&path)
        .arg("-o")
        .arg(&svg)
        .assert()
        .code(0);
    let polys: usize = cache.mesh().tiles().map(|t| t.tile().poly_count()).sum();
    assert_eq!(
        count(&std::fs::read_to_string(&svg).unwrap(), "<polygon "),
        polys
    );
}
