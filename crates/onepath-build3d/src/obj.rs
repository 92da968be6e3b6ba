//! Loading level geometry from Wavefront OBJ files (through the `tobj` crate).

use std::path::Path;

use crate::error::BuildError;
use crate::input::TriangleSoup;

/// Loads every object of an OBJ file into one triangle soup: positions as f64 (exactly
/// the file's float32 values), faces triangulated as fans (v0, vi−1, vi), objects in file
/// order. Materials are ignored (no material file is opened).
///
/// A file that cannot be read is [`BuildError::Io`] with the path and the I/O error; a file
/// that does not parse as OBJ is [`BuildError::InvalidInput`] naming the path.
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
    .map_err(|e| BuildError::input(path.display().to_string(), e.to_string()))?;
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
