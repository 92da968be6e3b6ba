//! The record of the heightmap grounding settings (`docs/agent-records.md`, "Heightmap
//! grounding"): mode, preferred and active layer names, ground offset, snap tolerance.
//! The layers' samples are never recorded (they are the world context's), nor are the
//! derived status and feet height (rebuilt at the next update).

use onepath_format::FormatError;

use crate::heightmap::LayerName;
use crate::navigator::{GroundingMode, HeightmapGrounding};

use super::{broken, Reader, Writer};

fn mode_code(m: GroundingMode) -> u32 {
    match m {
        GroundingMode::Off => 0,
        GroundingMode::Snap => 1,
        GroundingMode::Always => 2,
    }
}

/// The mode of a code below 3.
pub(crate) fn grounding_mode(code: u32) -> GroundingMode {
    match code {
        0 => GroundingMode::Off,
        1 => GroundingMode::Snap,
        _ => GroundingMode::Always,
    }
}

/// Writes the settings' fields (the caller writes the branch only when they differ from
/// the defaults).
pub(crate) fn save_grounding(w: &mut Writer<'_>, g: &HeightmapGrounding) {
    let d = HeightmapGrounding::default();
    w.u32("mode", mode_code(g.mode()), mode_code(d.mode()));
    w.opt_text(
        "preferred_layer",
        g.preferred_layer().as_ref().map(LayerName::as_str),
    );
    w.opt_text(
        "active_layer",
        g.active_layer().as_ref().map(LayerName::as_str),
    );
    w.f64("ground_offset", g.ground_offset(), d.ground_offset());
    w.f64("snap_tolerance", g.snap_tolerance(), d.snap_tolerance());
}

fn layer(r: &Reader<'_>, name: &str) -> Result<Option<LayerName>, FormatError> {
    let Some(text) = r.opt_text(name)? else {
        return Ok(None);
    };
    LayerName::new(text).map(Some).map_err(|_| {
        broken(format!(
            "{} = {text:?} is not a layer name (1 to 32 bytes)",
            r.path_of(name)
        ))
    })
}

/// Reads the whole branch (missing values: defaults).
pub(crate) fn load_grounding(r: &Reader<'_>) -> Result<HeightmapGrounding, FormatError> {
    let d = HeightmapGrounding::default();
    Ok(HeightmapGrounding::from_parts(
        grounding_mode(r.code("mode", mode_code(d.mode()), 3)?),
        layer(r, "preferred_layer")?,
        layer(r, "active_layer")?,
        r.f64("ground_offset", d.ground_offset())?,
        r.non_negative("snap_tolerance", d.snap_tolerance())?,
    ))
}
