//! Flow fields: integration costs from every cell to the nearest of several goals, and
//! the next step toward it, computed by a multi-goal Dijkstra over reversed moves, sliced
//! like every search, and repaired locally after edits.
//!
//! One iteration = one node popped from the [`OpenSet`] and settled (F = G = its cost,
//! so the tie-break is: smaller cost, then smaller node index).
//!
//! Repair: the edited cells (with the agent-size block they influence) and every node
//! whose next-step chain runs through one of them or their 3 × 3 neighbourhood are
//! *touched*: reset to +∞ and re-seeded from their untouched successors. The open set is
//! then run to exhaustion, lowering any node it can improve, untouched ones included;
//! since an untouched node's old cost is the cost of a path that still exists, the result
//! equals a full recomputation (up to the rounding of equal-cost sums).

use crate::error::{invalid, GridError};
use crate::open_lists::buffers::NO_NODE;
use crate::open_lists::heap::OpenSet;
use crate::searches::astar::SearchGraph;
use crate::searches::options::GridOptions;
use crate::searches::result::{GridPath, GridPathStatus};
use crate::spaces::grid::Grid;
use crate::spaces::grid_view::{GridCache, GridView};

/// Progress of a flow field computation (saved as the status byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FlowStatus {
    /// Nothing computed (0).
    #[default]
    NotStarted = 0,
    /// Computing or repairing (1).
    Running = 1,
    /// Costs and steps are final (2).
    Complete = 2,
}

/// The flow field search state (the layout the state format's "Flow field search" writes).
#[derive(Debug, Clone, Default)]
pub struct FlowCore {
    pub(crate) node_count: usize,
    pub(crate) status: FlowStatus,
    pub(crate) settled: u32,
    pub(crate) repairing: bool,
    pub(crate) goals: Vec<u32>,
    pub(crate) cost: Vec<f64>,
    pub(crate) next: Vec<u32>,
    pub(crate) open: OpenSet,
    pub(crate) touched: Vec<u32>,
    buf: Vec<(u32, f64)>,
}

impl FlowCore {
    /// A field over `node_count` nodes toward `goals` (sorted, deduplicated here).
    pub fn new(node_count: usize, goals: &[u32]) -> Self {
        let mut g = goals.to_vec();
        g.sort_unstable();
        g.dedup();
        FlowCore {
            node_count,
            goals: g,
            ..FlowCore::default()
        }
    }

    /// Starts a full computation.
    pub fn begin<G: SearchGraph>(&mut self, graph: &G) {
        let n = self.node_count;
        self.cost.clear();
        self.cost.resize(n, f64::INFINITY);
        self.next.clear();
        self.next.resize(n, NO_NODE);
        self.open.reset(n);
        self.touched.clear();
        self.repairing = false;
        self.settled = 0;
        self.status = FlowStatus::Running;
        for &g in &self.goals {
            if graph.is_passable(g) {
                self.cost[g as usize] = 0.0;
                self.open.push_or_decrease(g, 0.0, 0.0);
            }
        }
    }

    /// Starts a repair after edits of `changed` nodes (requires a complete field).
    pub fn begin_repair<G: SearchGraph>(&mut self, graph: &G, changed: &[u32]) {
        if self.status != FlowStatus::Complete {
            self.begin(graph);
            return;
        }
        let n = self.node_count;
        let mut mark = vec![false; n];
        let mut queue: Vec<u32> = Vec::new();
        let mut adj = Vec::new();
        for &c in changed {
            adj.clear();
            adj.push(c);
            graph.adjacent(c, &mut adj);
            for &v in &adj {
                if (v as usize) < n && !mark[v as usize] {
                    mark[v as usize] = true;
                    queue.push(v);
                }
            }
        }
        // Every node whose next-step chain reaches a marked node.
        let mut i = 0;
        while i < queue.len() {
            let u = queue[i];
            i += 1;
            adj.clear();
            graph.adjacent(u, &mut adj);
            for &p in &adj {
                if (p as usize) < n && !mark[p as usize] && self.next[p as usize] == u {
                    mark[p as usize] = true;
                    queue.push(p);
                }
            }
        }
        queue.sort_unstable();
        for &t in &queue {
            self.cost[t as usize] = f64::INFINITY;
            self.next[t as usize] = NO_NODE;
        }
        self.open.reset(n);
        for &t in &queue {
            let ti = t as usize;
            if self.goals.binary_search(&t).is_ok() && graph.is_passable(t) {
                self.cost[ti] = 0.0;
                self.open.push_or_decrease(t, 0.0, 0.0);
                continue;
            }
            self.buf.clear();
            graph.successors(t, &mut self.buf);
            for &(s, c) in &self.buf {
                if mark[s as usize] {
                    continue;
                }
                let v = self.cost[s as usize] + c;
                if v < self.cost[ti] {
                    self.cost[ti] = v;
                    self.next[ti] = s;
                }
            }
            if self.cost[ti].is_finite() {
                self.open.push_or_decrease(t, self.cost[ti], self.cost[ti]);
            }
        }
        self.touched = queue;
        self.repairing = true;
        self.settled = 0;
        self.status = FlowStatus::Running;
    }

    /// Settles at most `max_iterations` nodes.
    pub fn step<G: SearchGraph>(&mut self, graph: &G, max_iterations: u64) -> FlowStatus {
        let mut done = 0u64;
        while self.status == FlowStatus::Running {
            if self.open.is_empty() {
                self.status = FlowStatus::Complete;
                self.repairing = false;
                self.touched.clear();
                break;
            }
            if done >= max_iterations {
                break;
            }
            let Some(top) = self.open.pop() else { break };
            done += 1;
            self.settled = self.settled.saturating_add(1);
            self.buf.clear();
            graph.predecessors(top.node, &mut self.buf);
            for k in 0..self.buf.len() {
                let (p, c) = self.buf[k];
                let v = top.g + c;
                let pi = p as usize;
                if v < self.cost[pi] {
                    self.cost[pi] = v;
                    self.next[pi] = top.node;
                    self.open.push_or_decrease(p, v, v);
                }
            }
        }
        self.status
    }

    /// The integration cost of a node (+∞ when unreachable or not computed).
    pub fn cost(&self, node: u32) -> f64 {
        self.cost
            .get(node as usize)
            .copied()
            .unwrap_or(f64::INFINITY)
    }

    /// The next node toward the nearest goal.
    pub fn next(&self, node: u32) -> Option<u32> {
        self.next
            .get(node as usize)
            .copied()
            .filter(|&n| n != NO_NODE)
    }

    /// The goals (sorted).
    pub fn goals(&self) -> &[u32] {
        &self.goals
    }

    /// The status.
    pub fn status(&self) -> FlowStatus {
        self.status
    }
}

/// A flow field on a [`Grid`] toward several goals.
#[derive(Debug, Clone)]
pub struct GridFlowField {
    options: GridOptions,
    goals_given: Vec<u32>,
    core: FlowCore,
    cache: GridCache,
    seen: (u64, u32),
    area_version: u32,
    width: u32,
    height: u32,
    pending: Vec<u32>,
    full: bool,
}

impl GridFlowField {
    /// A field toward `goals` (at least one, each inside the grid).
    pub fn new(grid: &Grid, goals: &[(u32, u32)], options: GridOptions) -> Result<Self, GridError> {
        options.validate()?;
        if goals.is_empty() {
            return Err(invalid("goals", "a flow field needs at least one goal"));
        }
        let mut idx = Vec::with_capacity(goals.len());
        for &(x, y) in goals {
            idx.push(grid.index(x, y)?);
        }
        Ok(GridFlowField {
            options,
            core: FlowCore::new(grid.cell_count(), &idx),
            goals_given: idx,
            cache: GridCache::default(),
            seen: grid.cache_key(),
            area_version: grid.areas().version(),
            width: grid.width(),
            height: grid.height(),
            pending: Vec::new(),
            full: true,
        })
    }

    /// The goals in the order given at creation.
    pub fn goals(&self) -> &[u32] {
        &self.goals_given
    }

    /// The search state.
    pub fn core(&self) -> &FlowCore {
        &self.core
    }

    fn sync(&mut self, grid: &Grid) -> Result<(), GridError> {
        if grid.width() != self.width || grid.height() != self.height {
            return Err(invalid(
                "grid",
                "not the size the flow field was created for",
            ));
        }
        if grid.areas().version() != self.area_version {
            self.area_version = grid.areas().version();
            self.full = true;
        }
        let key = grid.cache_key();
        if key != self.seen {
            let edits = if key.0 == self.seen.0 {
                grid.edits_since(self.seen.1)
            } else {
                None
            };
            self.seen = key;
            match edits {
                Some(e) => {
                    let k = i64::from(self.options.agent_size);
                    for edit in e {
                        let (x, y) = grid.xy(edit.cell);
                        for oy in 0..k {
                            for ox in 0..k {
                                let (px, py) = (i64::from(x) - ox, i64::from(y) - oy);
                                if px >= 0 && py >= 0 {
                                    self.pending.push((py * i64::from(self.width) + px) as u32);
                                }
                            }
                        }
                    }
                }
                None => self.full = true,
            }
        }
        Ok(())
    }

    /// Forces a full recomputation at the next step.
    pub fn recompute(&mut self) {
        self.full = true;
    }

    /// Computes or repairs at most `max_iterations` settles.
    pub fn step(&mut self, grid: &Grid, max_iterations: u64) -> Result<FlowStatus, GridError> {
        self.sync(grid)?;
        let view = GridView::new(grid, &self.options, &mut self.cache);
        if self.full || (self.core.status == FlowStatus::Running && !self.pending.is_empty()) {
            self.full = false;
            self.pending.clear();
            self.core.begin(&view);
        } else if !self.pending.is_empty() {
            let mut changed = std::mem::take(&mut self.pending);
            changed.sort_unstable();
            changed.dedup();
            self.core.begin_repair(&view, &changed);
        } else if self.core.status == FlowStatus::NotStarted {
            self.core.begin(&view);
        }
        Ok(self.core.step(&view, max_iterations))
    }

    /// Computes (or repairs) to completion.
    pub fn compute(&mut self, grid: &Grid) -> Result<(), GridError> {
        self.step(grid, u64::MAX)?;
        Ok(())
    }

    /// The integration cost of (x, y) (+∞ when unreachable or outside).
    pub fn cost(&self, x: u32, y: u32) -> f64 {
        if x >= self.width || y >= self.height {
            return f64::INFINITY;
        }
        self.core.cost(y * self.width + x)
    }

    /// The next cell toward the nearest goal.
    pub fn next_step(&self, x: u32, y: u32) -> Option<(u32, u32)> {
        if x >= self.width || y >= self.height {
            return None;
        }
        self.core
            .next(y * self.width + x)
            .map(|n| (n % self.width, n / self.width))
    }

    /// Follows the next steps from (x, y) to a goal.
    pub fn path_from(&self, x: u32, y: u32) -> Result<GridPath, GridError> {
        if self.core.status != FlowStatus::Complete {
            return Err(invalid("flow field", "not complete"));
        }
        if x >= self.width || y >= self.height {
            return Err(crate::error::out_of_range(
                "x or y",
                i64::from(x.max(y)),
                0,
                i64::from(self.width.max(self.height)) - 1,
            ));
        }
        let mut cur = y * self.width + x;
        let cost = self.core.cost(cur);
        if !cost.is_finite() {
            return Ok(GridPath {
                status: GridPathStatus::NoPath,
                nodes: Vec::new(),
                cost: 0.0,
                expanded: 0,
                iterations: 0,
                expansions: None,
            });
        }
        let mut nodes = vec![cur];
        while self.core.goals.binary_search(&cur).is_err() {
            let Some(n) = self.core.next(cur) else {
                return Err(invalid("flow field", "has a cost but no path"));
            };
            if nodes.len() > self.core.node_count {
                return Err(invalid("flow field", "direction field contains a cycle"));
            }
            cur = n;
            nodes.push(cur);
        }
        Ok(GridPath {
            status: GridPathStatus::Found,
            nodes,
            cost,
            expanded: 0,
            iterations: self.core.settled,
            expansions: None,
        })
    }
}

/// A checked "Flow field search" state.
#[derive(Debug, Clone)]
pub(crate) struct FlowSaved {
    status: FlowStatus,
    settled: u32,
    repairing: bool,
    reached: Vec<(u32, f64)>,
    steps: Vec<(u32, u32)>,
    open: Vec<crate::open_lists::heap::OpenSlot>,
    touched: Vec<u32>,
}

impl FlowCore {
    /// Writes the "Flow field search" layout.
    /// Writes this core as a search that has not started (same node count and goals,
    /// nothing reached, an empty open set): what a field whose next step starts over
    /// saves, so that its restored copy starts over too.
    pub(crate) fn write_not_started_state(&self, w: &mut onepath_format::bytes::ByteWriter) {
        use crate::state::*;
        write_u32_as_i32(w, self.node_count as u32);
        w.u8(FlowStatus::NotStarted as u8);
        write_u32_as_i32(w, 0);
        w.u8(0);
        write_u32_as_i32(w, self.goals.len() as u32);
        for &g in &self.goals {
            write_u32_as_i32(w, g);
        }
        write_u32_as_i32(w, 0); // reached
        write_u32_as_i32(w, 0); // steps
        write_u32_as_i32(w, 0); // open set
    }

    pub(crate) fn write_state(&self, w: &mut onepath_format::bytes::ByteWriter) {
        use crate::state::*;
        write_u32_as_i32(w, self.node_count as u32);
        w.u8(self.status as u8);
        write_u32_as_i32(w, self.settled);
        w.u8(u8::from(self.repairing));
        write_u32_as_i32(w, self.goals.len() as u32);
        for &g in &self.goals {
            write_u32_as_i32(w, g);
        }
        let reached: Vec<usize> = (0..self.cost.len())
            .filter(|&i| self.cost[i].is_finite())
            .collect();
        write_u32_as_i32(w, reached.len() as u32);
        for i in reached {
            write_u32_as_i32(w, i as u32);
            w.f64(self.cost[i]);
        }
        let steps: Vec<usize> = (0..self.next.len())
            .filter(|&i| self.next[i] != NO_NODE)
            .collect();
        write_u32_as_i32(w, steps.len() as u32);
        for i in steps {
            write_u32_as_i32(w, i as u32);
            write_u32_as_i32(w, self.next[i]);
        }
        write_open_set(w, &self.open);
        if self.repairing {
            write_u32_as_i32(w, self.touched.len() as u32);
            for &t in &self.touched {
                write_u32_as_i32(w, t);
            }
        }
    }

    /// Reads a "Flow field search" for this core (same node count and goals).
    pub(crate) fn read_state(
        &self,
        r: &mut onepath_format::bytes::ByteReader<'_>,
    ) -> Result<FlowSaved, onepath_format::FormatError> {
        use crate::state::*;
        let fam = Family::Grid;
        let n = self.node_count;
        let saved_n = r.i32("flow node count")?;
        if saved_n < 0 || saved_n as usize != n {
            return Err(fam.err(format!(
                "flow node count {saved_n} does not match the field's {n}"
            )));
        }
        let status = match r.u8("flow status")? {
            0 => FlowStatus::NotStarted,
            1 => FlowStatus::Running,
            2 => FlowStatus::Complete,
            v => return Err(fam.err(format!("flow status {v} is undefined"))),
        };
        let settled = read_nonneg(r, fam, "settled")?;
        let repairing = read_flag(r, fam, "repairing")?;
        if repairing && status != FlowStatus::Running {
            return Err(fam.err("only a running field is repairing"));
        }
        let gc = read_count(r, fam, "flow goal count", n, 4)?;
        let mut goals = Vec::with_capacity(gc);
        for _ in 0..gc {
            let g = read_node(r, fam, "flow goal", n)?;
            if goals.last().is_some_and(|&p| g <= p) {
                return Err(fam.err("flow goals are not strictly increasing"));
            }
            goals.push(g);
        }
        if goals != self.goals {
            return Err(fam.err("the saved goals are not the field's goals"));
        }
        let rc = read_count(r, fam, "reached count", n, 12)?;
        let mut reached: Vec<(u32, f64)> = Vec::with_capacity(rc);
        for _ in 0..rc {
            let node = read_node(r, fam, "reached node", n)?;
            if let Some(&(p, _)) = reached.last() {
                if node <= p {
                    return Err(fam.err(format!(
                        "reached node {node} does not follow {p} in increasing order"
                    )));
                }
            }
            let c = read_f64(r, fam, "reached cost")?;
            if !(c.is_finite() && c >= 0.0) {
                return Err(fam.err(format!("node {node}: cost {c} is not finite and >= 0")));
            }
            reached.push((node, c));
        }
        let cost_of = |node: u32| {
            reached
                .binary_search_by_key(&node, |e| e.0)
                .ok()
                .map(|i| reached[i].1)
        };
        let sc = read_count(r, fam, "step count", n, 8)?;
        let mut steps: Vec<(u32, u32)> = Vec::with_capacity(sc);
        for _ in 0..sc {
            let node = read_node(r, fam, "step node", n)?;
            if let Some(&(p, _)) = steps.last() {
                if node <= p {
                    return Err(fam.err(format!(
                        "step node {node} does not follow {p} in increasing order"
                    )));
                }
            }
            let next = read_node(r, fam, "step next", n)?;
            match (cost_of(node), cost_of(next)) {
                (Some(cn), Some(cx)) if cx <= cn => {}
                _ => {
                    return Err(fam.err(format!(
                        "node {node}: next {next} is not reached at no more cost"
                    )))
                }
            }
            steps.push((node, next));
        }
        let open = read_open_set(r, fam, n)?;
        let mut touched = Vec::new();
        if repairing {
            let tc = read_count(r, fam, "touched count", n, 4)?;
            let mut seen = std::collections::BTreeSet::new();
            for _ in 0..tc {
                let t = read_node(r, fam, "touched node", n)?;
                if !seen.insert(t) {
                    return Err(fam.err(format!("touched node {t} is listed twice")));
                }
                touched.push(t);
            }
        }
        Ok(FlowSaved {
            status,
            settled,
            repairing,
            reached,
            steps,
            open,
            touched,
        })
    }

    pub(crate) fn install(&mut self, s: FlowSaved) {
        let n = self.node_count;
        self.status = s.status;
        self.settled = s.settled;
        self.repairing = s.repairing;
        self.cost.clear();
        self.next.clear();
        if s.status != FlowStatus::NotStarted || !s.reached.is_empty() || !s.steps.is_empty() {
            self.cost.resize(n, f64::INFINITY);
            self.next.resize(n, NO_NODE);
        }
        for (node, c) in s.reached {
            if let Some(v) = self.cost.get_mut(node as usize) {
                *v = c;
            }
        }
        for (node, next) in s.steps {
            if let Some(v) = self.next.get_mut(node as usize) {
                *v = next;
            }
        }
        self.open.restore(n, &s.open);
        self.touched = s.touched;
    }
}

/// Save and restore (OPGS kind 7, `docs/grid-state.md`).
impl GridFlowField {
    /// The field's state (kind 7): i32 width, height, area version, the goals in the order
    /// given at creation, the pending edited cells, then the flow field search.
    ///
    /// Saves the field as it stands against `grid`: edits the grid made since
    /// the field's last step are written as pending cells, exactly as the next step would
    /// take them, so a copy restored over the same grid continues as this field would. A
    /// field whose next step starts over (`recompute`, new area costs, another grid or
    /// edits past the journal) is saved as not started, and its restored copy starts over
    /// too.
    pub fn save_state(&self, grid: &Grid) -> Vec<u8> {
        use crate::state::*;
        let mut w = onepath_format::bytes::ByteWriter::new();
        write_header(&mut w, kind::FLOW_FIELD);
        write_u32_as_i32(&mut w, self.width);
        write_u32_as_i32(&mut w, self.height);
        let same_size = grid.width() == self.width && grid.height() == self.height;
        let area_version = if same_size {
            grid.areas().version()
        } else {
            self.area_version
        };
        write_u32_as_i32(&mut w, area_version);
        write_u32_as_i32(&mut w, self.goals_given.len() as u32);
        for &g in &self.goals_given {
            write_u32_as_i32(&mut w, g);
        }
        // What the next step's sync would do, without changing the field.
        let key = grid.cache_key();
        let new_edits = if !same_size || key == self.seen {
            Some(Vec::new())
        } else if key.0 == self.seen.0 {
            grid.edits_since(self.seen.1)
        } else {
            None
        };
        let starts_over = self.full || area_version != self.area_version || new_edits.is_none();
        match new_edits {
            Some(edits) if !starts_over => {
                let mut pending = self.pending.clone();
                let k = i64::from(self.options.agent_size);
                for edit in edits {
                    let (x, y) = grid.xy(edit.cell);
                    for oy in 0..k {
                        for ox in 0..k {
                            let (px, py) = (i64::from(x) - ox, i64::from(y) - oy);
                            if px >= 0 && py >= 0 {
                                pending.push((py * i64::from(self.width) + px) as u32);
                            }
                        }
                    }
                }
                write_u32_as_i32(&mut w, pending.len() as u32);
                for &p in &pending {
                    write_u32_as_i32(&mut w, p);
                }
                self.core.write_state(&mut w);
            }
            _ => {
                write_u32_as_i32(&mut w, 0);
                self.core.write_not_started_state(&mut w);
            }
        }
        w.into_vec()
    }

    /// Restores a saved state in place into a field created the same way (same grid size
    /// and goals); `grid` is the (restored) grid. The saved state replaces the rebuild a
    /// grid restore asks for; edits after this call are repaired as usual. Checked before
    /// anything changes.
    pub fn restore_state(
        &mut self,
        grid: &Grid,
        bytes: &[u8],
    ) -> Result<(), onepath_format::FormatError> {
        use crate::state::*;
        let fam = Family::Grid;
        let mut r = onepath_format::bytes::ByteReader::new(bytes);
        read_header(&mut r, kind::FLOW_FIELD, fam)?;
        let w = r.i32("width")?;
        let h = r.i32("height")?;
        if i64::from(w) != i64::from(self.width)
            || i64::from(h) != i64::from(self.height)
            || grid.width() != self.width
            || grid.height() != self.height
        {
            return Err(fam.err(format!(
                "size {w} x {h} does not match the field's {} x {}",
                self.width, self.height
            )));
        }
        let n = self.core.node_count;
        let area_version = read_nonneg(&mut r, fam, "area version")?;
        let gc = read_count(&mut r, fam, "goal count", n, 4)?;
        let mut goals = Vec::with_capacity(gc);
        for _ in 0..gc {
            goals.push(read_node(&mut r, fam, "goal", n)?);
        }
        if goals != self.goals_given {
            return Err(fam.err("the saved goals are not the field's goals"));
        }
        let pc = read_count(&mut r, fam, "pending count", usize::MAX, 4)?;
        let mut pending = Vec::with_capacity(pc);
        for _ in 0..pc {
            pending.push(read_node(&mut r, fam, "pending cell", n)?);
        }
        let saved = self.core.read_state(&mut r)?;
        expect_end(&r)?;
        self.core.install(saved);
        self.pending = pending;
        self.area_version = area_version;
        self.full = false;
        self.seen = grid.cache_key();
        Ok(())
    }
}
