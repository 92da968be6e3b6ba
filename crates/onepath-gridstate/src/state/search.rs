//! The saved state of the generic searches: A*, jump point search, Theta*, graph A*
//! (kinds 8 to 11, `docs/grid-state.md`).

use onepath_format::bytes::{ByteReader, ByteWriter};
use onepath_format::FormatError;

use super::*;
use crate::open_lists::buffers::SearchBuffers;
use crate::open_lists::heap::OpenSet;
use crate::searches::result::SearchStatus;

/// The saved state of a generic search (A*, jump point, Theta*, graph A*).
#[derive(Debug, Clone)]
pub(crate) struct SearchState {
    pub status: SearchStatus,
    pub weight: f64,
    pub start: u32,
    pub goal: u32,
    pub expanded: u32,
    pub iterations: u32,
    pub path_cost: f64,
    pub buffers: BuffersState,
}

/// The live fields of a generic search, borrowed for saving.
pub(crate) struct SearchView<'a> {
    pub node_count: usize,
    pub status: SearchStatus,
    pub weight: f64,
    pub start: u32,
    pub goal: u32,
    pub expanded: u32,
    pub iterations: u32,
    pub path_cost: f64,
    pub buffers: &'a SearchBuffers,
    pub open: &'a OpenSet,
    pub expansions: &'a [u32],
}

pub(crate) fn status_code(s: SearchStatus) -> u8 {
    match s {
        SearchStatus::NotStarted => 0,
        SearchStatus::InProgress => 1,
        SearchStatus::Found => 2,
        SearchStatus::NoPath => 3,
    }
}

pub(crate) fn read_status(
    r: &mut ByteReader<'_>,
    fam: Family,
) -> Result<SearchStatus, FormatError> {
    match r.u8("search status")? {
        0 => Ok(SearchStatus::NotStarted),
        1 => Ok(SearchStatus::InProgress),
        2 => Ok(SearchStatus::Found),
        3 => Ok(SearchStatus::NoPath),
        v => Err(fam.err(format!("search status {v} is undefined"))),
    }
}

/// Writes the body of kinds 8-11 (after the header).
pub(crate) fn write_search(w: &mut ByteWriter, s: &SearchView<'_>) {
    write_u32_as_i32(w, s.node_count as u32);
    w.u8(status_code(s.status));
    w.f64(s.weight);
    if s.status == SearchStatus::NotStarted {
        w.i32(-1);
        w.i32(-1);
    } else {
        write_u32_as_i32(w, s.start);
        write_u32_as_i32(w, s.goal);
    }
    write_u32_as_i32(w, s.expanded);
    write_u32_as_i32(w, s.iterations);
    w.f64(s.path_cost);
    if s.status != SearchStatus::NotStarted {
        write_buffers(w, s.buffers, s.open, s.expansions);
    }
}

/// Reads the body of kinds 8-11 for a search over `n` nodes whose weight is `weight`.
pub(crate) fn read_search(
    r: &mut ByteReader<'_>,
    fam: Family,
    n: usize,
    weight: f64,
) -> Result<SearchState, FormatError> {
    let saved_n = r.i32("node count")?;
    if saved_n < 0 || saved_n as usize != n {
        return Err(fam.err(format!(
            "node count {saved_n} does not match the search's {n}"
        )));
    }
    let status = read_status(r, fam)?;
    let w = read_f64(r, fam, "heuristic weight")?;
    if w.to_bits() != weight.to_bits() {
        return Err(fam.err(format!(
            "heuristic weight {w} does not match the search's {weight}"
        )));
    }
    let not_started = status == SearchStatus::NotStarted;
    let (start, goal) = if not_started {
        let s = r.i32("start")?;
        let g = r.i32("goal")?;
        if s != -1 || g != -1 {
            return Err(fam.err("a search that has not started has start and goal -1"));
        }
        (0, 0)
    } else {
        (
            read_node(r, fam, "start", n)?,
            read_node(r, fam, "goal", n)?,
        )
    };
    let expanded = read_nonneg(r, fam, "expanded")?;
    let iterations = read_nonneg(r, fam, "iterations")?;
    if expanded > iterations {
        return Err(fam.err(format!(
            "expanded {expanded} exceeds iterations {iterations}"
        )));
    }
    let path_cost = read_f64(r, fam, "path cost")?;
    let buffers = if not_started {
        BuffersState::default()
    } else {
        read_buffers(r, fam, n)?
    };
    if status == SearchStatus::Found {
        match find(&buffers.visited, goal) {
            Some(i) if buffers.visited[i].1 => {}
            _ => return Err(fam.err("a found search has its goal closed")),
        }
    }
    if buffers.expansions.len() > expanded as usize {
        return Err(fam.err(format!(
            "expanded list holds {} nodes, more than expanded {expanded}",
            buffers.expansions.len()
        )));
    }
    Ok(SearchState {
        status,
        weight: w,
        start,
        goal,
        expanded,
        iterations,
        path_cost,
        buffers,
    })
}

impl SearchState {
    /// Puts the buffers and open set back (the scalars are copied by the caller).
    pub(crate) fn install(&self, n: usize, buffers: &mut SearchBuffers, open: &mut OpenSet) {
        buffers.restore(n, &self.buffers.visited);
        open.restore(n, &self.buffers.open);
    }
}
