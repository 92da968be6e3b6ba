//! The OPGS state format (`docs/grid-state.md`, "Encoding"): the header and the
//! shared pieces (Space, Areas, the OpenSet heap, search buffers) plus the saved state of
//! the generic searches (kinds 8, 10 and 11).
//!
//! Every read names its field; every count is an i32 that must be ≥ 0, bounded by the
//! object's size and by the bytes left before anything is allocated. Structural checks fail
//! with [`FormatError::State`] whose `format` is [`GRID_STATE_FORMAT`] (grid kinds) or
//! [`GRAPH_STATE_FORMAT`] (graph kinds); short input fails with [`FormatError::Malformed`], an unknown version with
//! [`FormatError::Version`].

use onepath_format::bytes::{ByteReader, ByteWriter};
use onepath_format::FormatError;

mod pieces;
mod search;

pub(crate) use pieces::*;
pub(crate) use search::*;

/// The OPGS magic, "OPGS" (the u32 0x5347504F little-endian).
pub const STATE_MAGIC: [u8; 4] = *b"OPGS";
/// The OPGS format version this crate reads and writes.
pub const STATE_VERSION: u16 = 1;

/// The `format` of a [`FormatError::State`] from a grid-family OPGS state (kinds 1-3 and
/// 5-10, 12).
pub const GRID_STATE_FORMAT: &str = "grid";
/// The `format` of a [`FormatError::State`] from a graph-family OPGS state (kinds 4, 11).
pub const GRAPH_STATE_FORMAT: &str = "graph";

/// Object kinds of the OPGS header.
pub(crate) mod kind {
    pub const GRID: u16 = 1;
    pub const HEX_GRID: u16 = 2;
    pub const VOXEL_GRID: u16 = 3;
    pub const GRAPH: u16 = 4;
    pub const GRID_REPLANNER: u16 = 5;
    pub const HEX_REPLANNER: u16 = 6;
    pub const FLOW_FIELD: u16 = 7;
    pub const ASTAR: u16 = 8;
    pub const JUMP: u16 = 9;
    pub const THETA: u16 = 10;
    pub const GRAPH_ASTAR: u16 = 11;
    pub const GRID_SEARCH: u16 = 12;
}

/// Which error family a state belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Grid,
    Graph,
}

impl Family {
    pub(crate) fn err(self, message: impl Into<String>) -> FormatError {
        match self {
            Family::Grid => FormatError::State {
                format: GRID_STATE_FORMAT,
                message: message.into(),
            },
            Family::Graph => FormatError::State {
                format: GRAPH_STATE_FORMAT,
                message: message.into(),
            },
        }
    }
}

pub(crate) fn write_header(w: &mut ByteWriter, kind: u16) {
    w.bytes(&STATE_MAGIC);
    w.u16(STATE_VERSION);
    w.u16(kind);
}

pub(crate) fn read_header(
    r: &mut ByteReader<'_>,
    expected_kind: u16,
    fam: Family,
) -> Result<(), FormatError> {
    r.magic(&STATE_MAGIC, "OPGS magic")?;
    let v = r.u16("OPGS format version")?;
    if v != STATE_VERSION {
        return Err(FormatError::Version {
            what: "OPGS",
            found: v,
            expected: STATE_VERSION,
        });
    }
    let k = r.u16("OPGS kind")?;
    if k != expected_kind {
        return Err(fam.err(format!("kind {k} where kind {expected_kind} was expected")));
    }
    Ok(())
}

pub(crate) fn expect_end(r: &ByteReader<'_>) -> Result<(), FormatError> {
    r.expect_end("OPGS payload")
}

/// An i32 count in `0..=max` whose `item_size`-byte items fit in the bytes left.
pub(crate) fn read_count(
    r: &mut ByteReader<'_>,
    fam: Family,
    field: &str,
    max: usize,
    item_size: usize,
) -> Result<usize, FormatError> {
    let v = r.i32(field)?;
    if v < 0 {
        return Err(fam.err(format!("{field} {v} is negative")));
    }
    let n = v as usize;
    if n > max {
        return Err(fam.err(format!("{field} {n} exceeds {max}")));
    }
    r.check_fits(field, n, item_size)?;
    Ok(n)
}

/// A non-negative i32.
pub(crate) fn read_nonneg(
    r: &mut ByteReader<'_>,
    fam: Family,
    field: &str,
) -> Result<u32, FormatError> {
    let v = r.i32(field)?;
    if v < 0 {
        return Err(fam.err(format!("{field} {v} is negative")));
    }
    Ok(v as u32)
}

/// A node index in `0..n`.
pub(crate) fn read_node(
    r: &mut ByteReader<'_>,
    fam: Family,
    field: &str,
    n: usize,
) -> Result<u32, FormatError> {
    let v = r.i32(field)?;
    if v < 0 || v as usize >= n {
        return Err(fam.err(format!("{field} {v} out of range 0..{n}")));
    }
    Ok(v as u32)
}

/// An f64 that is not NaN.
pub(crate) fn read_f64(
    r: &mut ByteReader<'_>,
    fam: Family,
    field: &str,
) -> Result<f64, FormatError> {
    let v = r.f64(field)?;
    if v.is_nan() {
        return Err(fam.err(format!("{field} is NaN")));
    }
    Ok(v)
}

/// A u8 flag (0 or 1), as a state error.
pub(crate) fn read_flag(
    r: &mut ByteReader<'_>,
    fam: Family,
    field: &str,
) -> Result<bool, FormatError> {
    match r.u8(field)? {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(fam.err(format!("{field} flag {v} is not 0 or 1"))),
    }
}

pub(crate) fn write_u32_as_i32(w: &mut ByteWriter, v: u32) {
    w.i32(i32::try_from(v).unwrap_or(i32::MAX));
}
