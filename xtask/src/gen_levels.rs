//! `cargo xtask gen-levels [DIR]`: writes the seeded levels of
//! `onepath_build3d::generators` (with the parameters of `fixtures/levels/generated.json`)
//! as Wavefront OBJ files into `levels/` (or DIR), so that the `onepath` command and the
//! README have levels to bake without any download.
//!
//! The text is a pure function of the generators: vertices in soup order as the shortest
//! decimal of their f32 value (what `onepath_build3d::load_obj` reads back, exactly), faces
//! 1-based. A test checks that the committed files are byte for byte what this writes.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use onepath_build3d::generators::{
    building_with_bridge, city, rolling_terrain, CityParams, TerrainParams,
};
use onepath_build3d::TriangleSoup;

/// The levels, by file name: what each is and its triangles.
pub(crate) fn levels() -> Vec<(&'static str, String, TriangleSoup)> {
    let terrain = rolling_terrain(&TerrainParams::default())
        .to_soup()
        .expect("the default terrain is within the coordinate rule");
    vec![
        (
            "bridge.obj",
            "building_with_bridge(seed 3): a two-storey building, a bridge over a road, stairs"
                .to_string(),
            building_with_bridge(3),
        ),
        (
            "city.obj",
            format!("city({:?})", CityParams::default()),
            city(&CityParams::default()),
        ),
        (
            "terrain.obj",
            format!("rolling_terrain({:?})", TerrainParams::default()),
            terrain,
        ),
    ]
}

/// The OBJ text of a soup.
pub(crate) fn obj_text(what: &str, soup: &TriangleSoup) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# OnePath level, written by `cargo xtask gen-levels` from onepath_build3d::generators::{what}"
    );
    let _ = writeln!(
        s,
        "# {} vertices, {} triangles",
        soup.vertices.len(),
        soup.triangles.len()
    );
    let _ = writeln!(s, "o level");
    for v in &soup.vertices {
        // The builder reads OBJ positions as f32: write the f32 the reader will see.
        let _ = writeln!(s, "v {} {} {}", v[0] as f32, v[1] as f32, v[2] as f32);
    }
    for t in &soup.triangles {
        let _ = writeln!(s, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    s
}

/// The folder the levels go to by default.
pub(crate) fn default_dir() -> PathBuf {
    crate::workspace_root().join("levels")
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let dir = match args {
        [] => default_dir(),
        [d] => PathBuf::from(d),
        _ => return Err("usage: cargo xtask gen-levels [DIR]".to_string()),
    };
    write_all(&dir)
}

fn write_all(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (name, what, soup) in levels() {
        let path = dir.join(name);
        let text = obj_text(&what, &soup);
        std::fs::write(&path, &text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!(
            "{}: {} vertices, {} triangles, {} bytes",
            path.display(),
            soup.vertices.len(),
            soup.triangles.len(),
            text.len()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gen_levels_reproduces_the_committed_levels_byte_for_byte() {
        let dir = default_dir();
        let mut checked = 0;
        for (name, what, soup) in levels() {
            let path = dir.join(name);
            let Ok(committed) = std::fs::read_to_string(&path) else {
                continue;
            };
            assert!(
                committed == obj_text(&what, &soup),
                "{} differs from what `cargo xtask gen-levels` writes",
                path.display()
            );
            checked += 1;
        }
        // The README's level is committed; the others may be.
        assert!(
            dir.join("bridge.obj").is_file(),
            "levels/bridge.obj is missing"
        );
        assert!(checked >= 1);
    }

    #[test]
    fn the_obj_text_loads_back_to_the_f32_of_every_vertex() {
        let (_, what, soup) = levels().remove(0);
        let dir = std::env::temp_dir().join(format!("onepath-gen-levels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bridge.obj");
        std::fs::write(&path, obj_text(&what, &soup)).unwrap();
        let back = onepath_build3d::load_obj(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        // The OBJ reader numbers vertices in order of first use: compare the triangles'
        // corners.
        let corners = |s: &TriangleSoup| -> Vec<[[f64; 3]; 3]> {
            s.triangles
                .iter()
                .map(|t| t.map(|i| s.vertices[i as usize].map(|c| f64::from(c as f32))))
                .collect()
        };
        assert_eq!(corners(&back), corners(&soup));
    }
}
