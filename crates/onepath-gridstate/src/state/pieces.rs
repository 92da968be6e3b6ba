//! The pieces several kinds share: Space, Areas, the OpenSet heap and the search buffers
//! (`docs/grid-state.md`, "Pieces").

use onepath_format::bytes::{ByteReader, ByteWriter};
use onepath_format::FormatError;

use super::*;
use crate::open_lists::buffers::{SearchBuffers, NO_NODE};
use crate::open_lists::heap::{OpenSet, OpenSlot};
use crate::spaces::area::AreaCosts;
use crate::spaces::space::{refuse_negative_zero, GridSpace};

pub(crate) fn write_space(w: &mut ByteWriter, s: &GridSpace) {
    w.f64(s.origin_x());
    w.f64(s.origin_y());
    w.f64(s.cell_size());
}

pub(crate) fn read_space(r: &mut ByteReader<'_>) -> Result<GridSpace, FormatError> {
    let ox = r.f64("space origin x")?;
    let oy = r.f64("space origin y")?;
    let c = r.f64("space cell size")?;
    let space_err = |e: crate::error::GridError| Family::Grid.err(format!("space: {e}"));
    refuse_negative_zero(&[
        ("space origin x", ox),
        ("space origin y", oy),
        ("space cell size", c),
    ])
    .map_err(space_err)?;
    GridSpace::new(ox, oy, c).map_err(space_err)
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

pub(super) fn find(visited: &[(u32, bool, f64, u32)], node: u32) -> Option<usize> {
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
