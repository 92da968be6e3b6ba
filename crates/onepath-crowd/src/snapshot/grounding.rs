//! The ONCS navigator extension (`docs/agent-records.md`, "Navigator extension"): per agent,
//! the heightmap grounding settings and the Fly and Climb gravity compensations, after the
//! guides extension. Written only when some agent has grounding settings other than the
//! defaults or a compensation other than 1, so that every other crowd gives the bytes it
//! gave before; read when the bytes that remain open with its tag. The layers' samples are
//! never written (they are the world context's).

use onepath_format::FormatError;

use crate::agent::Agent;
use crate::crowd::Crowd;
use crate::heightmap::{LayerName, MAX_LAYER_NAME};
use crate::navigator::{GroundingMode, HeightmapGrounding};
use crate::records::grounding::grounding_mode;

use super::read::{broken, ReadAgent, R};
use super::write::W;

/// The tag that opens the navigator extension.
pub(super) const NAVIGATOR_TAG: u8 = 2;

const PART_GROUNDING: u8 = 1;
const PART_FLY: u8 = 2;
const PART_CLIMB: u8 = 4;

fn not_one(c: f64) -> bool {
    c.to_bits() != 1.0f64.to_bits()
}

/// The parts of agent `a` the extension carries.
fn parts(a: &Agent) -> u8 {
    let h = &a.nav.motor.handler;
    let mut bits = 0;
    if !a.nav.grounding.is_default_settings() {
        bits |= PART_GROUNDING;
    }
    if h.fly.is_some_and(|f| not_one(f.gravity_compensation)) {
        bits |= PART_FLY;
    }
    if h.climb.is_some_and(|c| not_one(c.gravity_compensation)) {
        bits |= PART_CLIMB;
    }
    bits
}

fn mode_code(m: GroundingMode) -> u8 {
    match m {
        GroundingMode::Off => 0,
        GroundingMode::Snap => 1,
        GroundingMode::Always => 2,
    }
}

fn write_name(w: &mut W, n: Option<LayerName>) {
    w.0.u8(u8::from(n.is_some()));
    if let Some(n) = n {
        w.0.u8(n.as_str().len() as u8);
        w.0.bytes(n.as_str().as_bytes());
    }
}

/// Appends the extension when an agent carries one of its parts.
pub(super) fn write_navigator_ext(w: &mut W, crowd: &Crowd) {
    let n = crowd.agents.iter().filter(|a| parts(a) != 0).count();
    if n == 0 {
        return;
    }
    w.0.u8(NAVIGATOR_TAG);
    w.0.u32(n as u32);
    for a in &crowd.agents {
        let bits = parts(a);
        if bits == 0 {
            continue;
        }
        w.0.u32(a.id().0);
        w.0.u8(bits);
        if bits & PART_GROUNDING != 0 {
            let g = &a.nav.grounding;
            w.0.u8(mode_code(g.mode()));
            write_name(w, g.preferred_layer());
            write_name(w, g.active_layer());
            w.0.f64(g.ground_offset());
            w.0.f64(g.snap_tolerance());
        }
        let h = &a.nav.motor.handler;
        if let Some(f) = h.fly.filter(|_| bits & PART_FLY != 0) {
            w.0.f64(f.gravity_compensation);
        }
        if let Some(c) = h.climb.filter(|_| bits & PART_CLIMB != 0) {
            w.0.f64(c.gravity_compensation);
        }
    }
}

fn read_name(r: &mut R<'_>, field: &str) -> Result<Option<LayerName>, FormatError> {
    if !r.flag(&format!("{field} present"))? {
        return Ok(None);
    }
    let len = usize::from(r.0.u8(&format!("{field} length"))?);
    if len == 0 || len > MAX_LAYER_NAME {
        return Err(broken(format!(
            "{field} length = {len} is not 1..={MAX_LAYER_NAME}"
        )));
    }
    let bytes = r.0.bytes(len, field)?;
    let text = core::str::from_utf8(bytes).map_err(|_| broken(format!("{field} is not UTF-8")))?;
    LayerName::new(text)
        .map(Some)
        .map_err(|_| broken(format!("{field} {text:?} is not a layer name")))
}

fn compensation(r: &mut R<'_>, field: &str) -> Result<f64, FormatError> {
    let c = r.f(field)?;
    if !(0.0..=1.0).contains(&c) || !not_one(c) {
        return Err(broken(format!(
            "{field} = {c} is not within [0, 1) (1 is never written)"
        )));
    }
    Ok(c)
}

fn read_grounding(r: &mut R<'_>) -> Result<HeightmapGrounding, FormatError> {
    let mode = match r.0.u8("grounding mode")? {
        c @ 0..=2 => grounding_mode(u32::from(c)),
        c => return Err(broken(format!("grounding mode = {c} is not one of 0..3"))),
    };
    let preferred = read_name(r, "grounding preferred layer")?;
    let active = read_name(r, "grounding active layer")?;
    let offset = r.f("grounding ground offset")?;
    let tolerance = r.f("grounding snap tolerance")?;
    if tolerance < 0.0 {
        return Err(broken(format!(
            "grounding snap tolerance = {tolerance} is negative"
        )));
    }
    let g = HeightmapGrounding::from_parts(mode, preferred, active, offset, tolerance);
    if g.is_default_settings() {
        return Err(broken(
            "grounding equals the defaults (it is written only when it differs)",
        ));
    }
    Ok(g)
}

fn read_entry(r: &mut R<'_>, bits: u8, a: &mut Agent) -> Result<(), FormatError> {
    if bits == 0 || bits & !(PART_GROUNDING | PART_FLY | PART_CLIMB) != 0 {
        return Err(broken(format!(
            "parts = {bits:#04x} is not a nonzero mask of 1, 2, 4"
        )));
    }
    let grounding = if bits & PART_GROUNDING != 0 {
        Some(read_grounding(r)?)
    } else {
        None
    };
    let fly = if bits & PART_FLY != 0 {
        Some(compensation(r, "fly gravity compensation")?)
    } else {
        None
    };
    let climb = if bits & PART_CLIMB != 0 {
        Some(compensation(r, "climb gravity compensation")?)
    } else {
        None
    };
    let h = &mut a.nav.motor.handler;
    if let Some(c) = fly {
        let f = h
            .fly
            .as_mut()
            .ok_or_else(|| broken("a fly gravity compensation without the Fly mode"))?;
        f.gravity_compensation = c;
    }
    if let Some(c) = climb {
        let m = h
            .climb
            .as_mut()
            .ok_or_else(|| broken("a climb gravity compensation without the Climb mode"))?;
        m.gravity_compensation = c;
    }
    if let Some(g) = grounding {
        a.nav.grounding = g;
    }
    Ok(())
}

/// Reads the extension, when bytes remain, into the agents read (ascending id, each named
/// agent present, once). Bytes that do not open with its tag are trailing bytes.
pub(super) fn read_navigator_ext(
    r: &mut R<'_>,
    agents: &mut [ReadAgent],
) -> Result<(), FormatError> {
    if r.0.is_empty() {
        return Ok(());
    }
    let tag = r.0.u8("extension tag")?;
    if tag != NAVIGATOR_TAG {
        return Err(FormatError::malformed(
            "ONCS",
            format!("{} trailing bytes", r.0.remaining() + 1),
        ));
    }
    // An entry takes at least 4 + 1 + 8 bytes (one compensation).
    let n = r.0.count("navigator extension count", 13)?;
    if n == 0 {
        return Err(broken(
            "navigator extension count is 0 (the extension is written only with entries)",
        ));
    }
    let mut last: Option<u32> = None;
    for k in 0..n {
        let id = r.0.u32(&format!("navigator entry {k} agent"))?;
        if last.is_some_and(|l| l >= id) {
            return Err(broken(format!(
                "navigator entry {k}: agent {id} does not ascend (entries are in agent id order)"
            )));
        }
        last = Some(id);
        let Ok(i) = agents.binary_search_by_key(&id, |a| a.agent.id().0) else {
            return Err(broken(format!(
                "navigator entry {k}: agent {id} is not in the snapshot"
            )));
        };
        let bits = r.0.u8(&format!("agent {id} navigator parts"))?;
        read_entry(r, bits, &mut agents[i].agent)
            .map_err(|e| e.within(format!("agent {id} navigator")))?;
    }
    Ok(())
}
