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

use crate::area::AreaCosts;
use crate::buffers::{SearchBuffers, NO_NODE};
use crate::heap::{OpenSet, OpenSlot};
use crate::result::SearchStatus;
use crate::space::GridSpace;

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

// ---------------------------------------------------------------- Space and Areas

pub(crate) fn write_space(w: &mut ByteWriter, s: &GridSpace) {
    w.f64(s.origin_x());
    w.f64(s.origin_y());
    w.f64(s.cell_size());
}

pub(crate) fn read_space(r: &mut ByteReader<'_>) -> Result<GridSpace, FormatError> {
    let ox = r.f64("space origin x")?;
    let oy = r.f64("space origin y")?;
    let c = r.f64("space cell size")?;
    GridSpace::new(ox, oy, c).map_err(|e| Family::Grid.err(format!("space: {e}")))
}

pub(crate) fn write_areas(w: &mut ByteWriter, a: &AreaCosts) {
    write_u32_as_i32(w, a.version());
    for &m in a.multipliers().iter() {
        w.f64(m);
    }
}

pub(crate) fn read_areas(r: &mut ByteReader<'_>) -> Result<AreaCosts, FormatError> {
    let version = read_nonneg(r, Family::Grid, "areas version")?;
    r.check_fits("area multipliers", 255, 8)?;
    let mut m = [1.0f64; 255];
    for (i, slot) in m.iter_mut().enumerate() {
        let v = r.f64("area multiplier")?;
        if !(v.is_finite() && v > 0.0) {
            return Err(Family::Grid.err(format!("area {i} multiplier {v} is not finite and > 0")));
        }
        *slot = v;
    }
    Ok(AreaCosts::from_saved(version, m))
}

// ---------------------------------------------------------------- OpenSet

pub(crate) fn write_open_set(w: &mut ByteWriter, open: &OpenSet) {
    write_u32_as_i32(w, open.len() as u32);
    for s in open.slots() {
        write_u32_as_i32(w, s.node);
        w.f64(s.f);
        w.f64(s.g);
    }
}

/// Reads an OpenSet over `n` nodes: distinct nodes, F and G not NaN.
pub(crate) fn read_open_set(
    r: &mut ByteReader<'_>,
    fam: Family,
    n: usize,
) -> Result<Vec<OpenSlot>, FormatError> {
    let count = read_count(r, fam, "open set count", n, 20)?;
    let mut slots = Vec::with_capacity(count);
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..count {
        let node = read_node(r, fam, "open set node", n)?;
        let f = read_f64(r, fam, "open set F")?;
        let g = read_f64(r, fam, "open set G")?;
        if !seen.insert(node) {
            return Err(fam.err(format!("open set slot {i}: node {node} is listed twice")));
        }
        slots.push(OpenSlot { node, f, g });
    }
    Ok(slots)
}

// ---------------------------------------------------------------- search buffers

/// The saved search buffers: visited entries (increasing node), open slots, expansions.
#[derive(Debug, Clone, Default)]
pub(crate) struct BuffersState {
    pub visited: Vec<(u32, bool, f64, u32)>,
    pub open: Vec<OpenSlot>,
    pub expansions: Vec<u32>,
}

pub(crate) fn write_buffers(
    w: &mut ByteWriter,
    buffers: &SearchBuffers,
    open: &OpenSet,
    expansions: &[u32],
) {
    let visited: Vec<u32> = buffers.visited_nodes().collect();
    write_u32_as_i32(w, visited.len() as u32);
    for &v in &visited {
        write_u32_as_i32(w, v);
        w.u8(u8::from(buffers.is_closed(v)));
        w.f64(buffers.g(v));
        match buffers.parent(v) {
            Some(p) => write_u32_as_i32(w, p),
            None => w.i32(-1),
        }
    }
    write_open_set(w, open);
    write_u32_as_i32(w, expansions.len() as u32);
    for &e in expansions {
        write_u32_as_i32(w, e);
    }
}

/// Reads search buffers over `n` nodes and checks them: visited nodes strictly increasing
/// and in range, g finite and ≥ 0, parents −1 or a visited node that costs no more, no
/// cycle, open nodes visited and not closed.
pub(crate) fn read_buffers(
    r: &mut ByteReader<'_>,
    fam: Family,
    n: usize,
) -> Result<BuffersState, FormatError> {
    let count = read_count(r, fam, "visited count", n, 17)?;
    let mut visited: Vec<(u32, bool, f64, u32)> = Vec::with_capacity(count);
    for _ in 0..count {
        let node = read_node(r, fam, "visited node", n)?;
        if let Some(&(prev, ..)) = visited.last() {
            if node <= prev {
                return Err(fam.err(format!(
                    "visited node {node} does not follow {prev} in increasing order"
                )));
            }
        }
        let closed = read_flag(r, fam, "visited closed")?;
        let g = read_f64(r, fam, "visited g")?;
        if !(g.is_finite() && g >= 0.0) {
            return Err(fam.err(format!("visited node {node}: g {g} is not finite and >= 0")));
        }
        let p = r.i32("visited parent")?;
        let parent = if p == -1 {
            NO_NODE
        } else if p < 0 || p as usize >= n {
            return Err(fam.err(format!("visited node {node}: parent {p} out of range")));
        } else {
            p as u32
        };
        visited.push((node, closed, g, parent));
    }
    check_parents(fam, &visited)?;
    let open = read_open_set(r, fam, n)?;
    for s in &open {
        match find(&visited, s.node) {
            Some(i) if !visited[i].1 => {}
            Some(_) => return Err(fam.err(format!("open node {} is closed", s.node))),
            None => return Err(fam.err(format!("open node {} is not visited", s.node))),
        }
    }
    let ecount = read_count(r, fam, "expanded list count", n, 4)?;
    let mut expansions = Vec::with_capacity(ecount);
    for _ in 0..ecount {
        expansions.push(read_node(r, fam, "expanded list node", n)?);
    }
    Ok(BuffersState {
        visited,
        open,
        expansions,
    })
}

fn find(visited: &[(u32, bool, f64, u32)], node: u32) -> Option<usize> {
    visited.binary_search_by_key(&node, |e| e.0).ok()
}

/// Every parent is a visited node that costs no more, and following parents never loops.
fn check_parents(fam: Family, visited: &[(u32, bool, f64, u32)]) -> Result<(), FormatError> {
    let mut parent_idx = vec![usize::MAX; visited.len()];
    for (i, &(node, _, g, parent)) in visited.iter().enumerate() {
        if parent == NO_NODE {
            continue;
        }
        let Some(j) = find(visited, parent) else {
            return Err(fam.err(format!("node {node}: parent {parent} is not visited")));
        };
        if visited[j].2 > g {
            return Err(fam.err(format!(
                "node {node}: parent {parent} costs more ({} > {g})",
                visited[j].2
            )));
        }
        parent_idx[i] = j;
    }
    // 0 unknown, 1 on the current chain, 2 leads to a root.
    let mut mark = vec![0u8; visited.len()];
    let mut chain = Vec::new();
    for start in 0..visited.len() {
        let mut cur = start;
        chain.clear();
        loop {
            if cur == usize::MAX || mark[cur] == 2 {
                break;
            }
            if mark[cur] == 1 {
                return Err(fam.err(format!(
                    "parent links of node {} form a cycle",
                    visited[cur].0
                )));
            }
            mark[cur] = 1;
            chain.push(cur);
            cur = parent_idx[cur];
        }
        for &c in &chain {
            mark[c] = 2;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- generic searches (8-11)

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
