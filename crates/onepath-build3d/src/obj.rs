//! Loading level geometry from Wavefront OBJ files (through the `tobj` crate).

use std::path::Path;

use crate::error::BuildError;
use crate::input::TriangleSoup;

/// Loads every object of an OBJ file into one triangle soup: positions as f64 (exactly
/// the file's float32 values), faces triangulated as fans (v0, vi−1, vi), objects in file
/// order. Materials are ignored (no material file is opened).
///
/// A file that cannot be read is [`BuildError::Io`] with the path and the I/O error; a file
/// that does not parse as OBJ is [`BuildError::InvalidInput`] naming the path and, where it
/// can be found, the line (1-based) and its text: `line 12: position parse error in
/// "v 1 abc 2"`.
pub fn load_obj(path: impl AsRef<Path>) -> Result<TriangleSoup, BuildError> {
    let path = path.as_ref();
    // Read first, so that an I/O failure keeps its cause (tobj reduces it to "open file
    // failed" / "read error").
    let bytes = std::fs::read(path).map_err(|e| BuildError::Io {
        path: path.to_path_buf(),
        source: e.into(),
    })?;
    let opts = tobj::LoadOptions {
        triangulate: true,
        single_index: true,
        ..tobj::LoadOptions::default()
    };
    let (models, _) = tobj::load_obj_buf(&mut bytes.as_slice(), &opts, |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .map_err(|e| BuildError::input(path.display().to_string(), locate(&bytes, &opts, e)))?;
    let mut soup = TriangleSoup::default();
    for m in &models {
        let base = soup.vertices.len() as u32;
        let pos = &m.mesh.positions;
        for p in pos.chunks_exact(3) {
            soup.vertices
                .push([f64::from(p[0]), f64::from(p[1]), f64::from(p[2])]);
        }
        for t in m.mesh.indices.chunks_exact(3) {
            soup.triangles.push([base + t[0], base + t[1], base + t[2]]);
        }
    }
    soup.validate()?;
    Ok(soup)
}

/// Says where tobj's error `e` lies in the file: the first line at which a prefix of the
/// file fails to parse with the same error (a parse error stays once its line is read, so
/// the shortest failing prefix ends at the faulty line; found by bisection over line
/// counts, each step one tobj parse), or, for a face index out of bounds, the first face
/// naming a position the file does not have. Falls back to tobj's message alone.
fn locate(bytes: &[u8], opts: &tobj::LoadOptions, e: tobj::LoadError) -> String {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return e.to_string();
    };
    let lines: Vec<&str> = text.lines().collect();
    let at = match e {
        tobj::LoadError::FaceVertexOutOfBounds => first_face_out_of_bounds(&lines),
        _ => {
            let fails = |n: usize| {
                let prefix = lines[..n].join("\n");
                tobj::load_obj_buf(&mut prefix.as_bytes(), opts, |_| {
                    Err(tobj::LoadError::OpenFileFailed)
                })
                .err()
                    == Some(e)
            };
            if fails(lines.len()) {
                // The smallest n with fails(n): fails(lo) is false, fails(hi) is true.
                let (mut lo, mut hi) = (0usize, lines.len());
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if fails(mid) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                Some(hi)
            } else {
                None
            }
        }
    };
    match at {
        Some(n) => format!("line {n}: {e} in {:?}", shorten(lines[n - 1].trim())),
        None => e.to_string(),
    }
}

/// The 1-based line of the first face (`f`) whose position index is 0, beyond the file's
/// positions or, relative (negative), before its first position.
fn first_face_out_of_bounds(lines: &[&str]) -> Option<usize> {
    let total = lines
        .iter()
        .filter(|l| l.split_whitespace().next() == Some("v"))
        .count() as i64;
    let mut seen = 0i64;
    for (i, line) in lines.iter().enumerate() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => seen += 1,
            Some("f") => {
                for w in words {
                    let Some(Ok(x)) = w.split('/').next().map(str::parse::<i64>) else {
                        continue;
                    };
                    let index = if x < 0 { seen + x } else { x - 1 };
                    if index < 0 || index >= total {
                        return Some(i + 1);
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// A line as quoted in a message: at most 60 characters.
fn shorten(line: &str) -> String {
    match line.char_indices().nth(60) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("onepath-obj-locate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{}.obj", text.len()));
        std::fs::write(&path, text).unwrap();
        let e = load_obj(&path).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        e.to_string()
    }

    #[test]
    fn a_malformed_line_is_named_by_number_and_text() {
        let good = "# a quad\nv 0 0 0\nv 0 0 4\nv 4 0 4\nv 4 0 0\n";
        let e = error_of(&format!("{good}v 1 zero 2\nf 1 2 3 4\n"));
        assert!(
            e.contains("line 6: position parse error in \"v 1 zero 2\""),
            "{e}"
        );
        let e = error_of(&format!("{good}f 1 2 3 4\nvn 0 one 0\n"));
        assert!(
            e.contains("line 7: normal parse error in \"vn 0 one 0\""),
            "{e}"
        );
        let e = error_of(&format!("{good}f 1 2 x 4\n"));
        assert!(
            e.contains("line 6: face parse error in \"f 1 2 x 4\""),
            "{e}"
        );
        // The first of two faults.
        let e = error_of(&format!("v 0 0 a\n{good}v 1 zero 2\n"));
        assert!(e.contains("line 1: position parse error"), "{e}");
    }

    #[test]
    fn a_face_naming_a_missing_position_is_named_by_line() {
        let good = "v 0 0 0\nv 0 0 4\nv 4 0 4\n";
        let e = error_of(&format!("{good}f 1 2 3\nf 1 2 9\n"));
        assert!(
            e.contains("line 5: face vertex index out of bounds in \"f 1 2 9\""),
            "{e}"
        );
        let e = error_of(&format!("{good}f -1 -2 -4\n"));
        assert!(e.contains("line 4: face vertex index out of bounds"), "{e}");
    }

    #[test]
    fn long_lines_are_shortened_in_the_message() {
        let long = format!("v 0 0 {}", "9".repeat(200) + "x");
        let e = error_of(&format!("{long}\n"));
        assert!(
            e.contains("line 1: position parse error in \"v 0 0 999"),
            "{e}"
        );
        assert!(e.contains("...\""), "{e}");
        assert!(e.len() < 200, "{e}");
    }
}
