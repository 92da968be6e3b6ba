//! Incremental replanners: LPA* (forward, from the start) and D* Lite (backward, from the
//! goal, with the key modifier km so the start can move without a restart), over any
//! [`SearchGraph`], and their grid front end [`GridReplanner`].
//!
//! Edits reach a replanner as *pending* entries — a node whose rhs must be recomputed, or
//! a node whose neighbours must be re-examined too — read from the grid's edit journal at
//! the next replan. Too many pending entries (more than [`MAX_PENDING`]), a journal that no
//! longer reaches back, or a change of area multipliers set the *overflow* flag: the next
//! replan restarts from scratch.
//!
//! Termination: while some open key is below the target's (widened by a relative 1e-9
//! against rounding, see `key_below_target`; not only the smallest key, see
//! `ReplanCore::open_below_target`) or the target is inconsistent.
//!
//! One iteration = one node popped from the [`ReplanOpenSet`]. A pop that settles the node
//! (overconsistent: g ← rhs) or resets it (underconsistent: g ← ∞) is an expansion; a D*
//! Lite pop whose key was outdated by km is re-queued and is not.

use crate::error::{invalid, GridError};
use crate::open_lists::buffers::NO_NODE;
use crate::open_lists::heap::ReplanOpenSet;
use crate::searches::astar::SearchGraph;
use crate::searches::options::GridOptions;
use crate::searches::result::{GridPath, GridPathStatus, SearchStatus};
use crate::spaces::grid::Grid;
use crate::spaces::grid_view::{GridCache, GridView};

/// Pending entries above this count set the overflow flag (a full restart is cheaper).
pub const MAX_PENDING: usize = 4096;

/// The replanning algorithm (saved as the replan search's mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ReplanAlgorithm {
    /// Lifelong Planning A*: forward search; moving the start restarts it.
    LpaStar = 0,
    /// D* Lite: backward search from the goal; the start moves freely.
    #[default]
    DStarLite = 1,
}

/// A pending edit entry: `node`, and whether its neighbours are re-examined too (saved as
/// the node or its bitwise complement).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingEntry {
    /// The node.
    pub node: u32,
    /// Re-examine its neighbours too.
    pub with_neighbours: bool,
}

/// The replan search state (the layout the state format's "Replan search" writes).
#[derive(Debug, Clone, Default)]
pub struct ReplanCore {
    pub(crate) mode: ReplanAlgorithm,
    pub(crate) node_count: usize,
    pub(crate) start: u32,
    pub(crate) goal: u32,
    pub(crate) initialized: bool,
    pub(crate) found: bool,
    pub(crate) iterations: u64,
    pub(crate) expanded: u64,
    pub(crate) last_expanded: u32,
    pub(crate) km: f64,
    pub(crate) overflow: bool,
    pub(crate) pending: Vec<PendingEntry>,
    pub(crate) g: Vec<f64>,
    pub(crate) rhs: Vec<f64>,
    pub(crate) open: ReplanOpenSet,
    computing: bool,
    record: bool,
    expansions: Vec<u32>,
    buf: Vec<(u32, f64)>,
    adj: Vec<u32>,
}

#[inline]
fn key_less(a: (f64, f64), b: (f64, f64)) -> bool {
    a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
}

/// The termination test "top key < target key", widened by a relative 1e-9 so a key that
/// ties the target's in exact arithmetic but rounds an ulp above it is still processed
/// (the correctness of the path walk needs every such node consistent). Processing extra
/// nodes is always safe.
#[inline]
fn key_below_target(top: (f64, f64), target: (f64, f64)) -> bool {
    let tol = key1_tolerance(target);
    if top.0 < target.0 - tol {
        return true;
    }
    if top.0 > target.0 + tol {
        return false;
    }
    let tol2 = 1e-9 * (1.0 + target.1.abs().min(1e300));
    top.1 < target.1 + tol2 && !(top.0 == target.0 && top.1 == target.1)
}

/// The width of the band around the target's key1 within which keys count as tied.
#[inline]
fn key1_tolerance(target: (f64, f64)) -> f64 {
    1e-9 * (1.0 + target.0.abs().min(1e300))
}

impl ReplanCore {
    /// A replanner over `node_count` nodes; nothing is planned until the first replan.
    pub fn new(
        mode: ReplanAlgorithm,
        node_count: usize,
        start: u32,
        goal: u32,
        record: bool,
    ) -> Self {
        ReplanCore {
            mode,
            node_count,
            start,
            goal,
            last_expanded: NO_NODE,
            record,
            ..ReplanCore::default()
        }
    }

    /// Forgets everything planned: the next replan starts from scratch.
    pub fn invalidate_all(&mut self) {
        self.initialized = false;
        self.found = false;
        self.overflow = false;
        self.pending.clear();
        self.computing = false;
    }

    /// Moves the start: D* Lite adds the estimate between the old and new start to km;
    /// LPA* restarts.
    pub fn set_start<G: SearchGraph>(&mut self, graph: &G, start: u32) {
        if start == self.start {
            return;
        }
        match self.mode {
            ReplanAlgorithm::DStarLite if self.initialized => {
                self.km += graph.estimate(self.start, start);
                self.start = start;
                // A new replan begins here: its expansion count starts now. The search
                // itself stays "computing" (nothing is pending), so that a state saved
                // before the next replan restores exactly (the restore infers the flag
                // from the pending list; `docs/grid-state.md`, "Not saved").
                self.expanded = 0;
                self.expansions.clear();
            }
            _ => {
                self.start = start;
                self.invalidate_all();
            }
        }
    }

    /// Sets a new goal (restarts).
    pub fn set_goal(&mut self, goal: u32) {
        if goal != self.goal {
            self.goal = goal;
            self.invalidate_all();
        }
    }

    /// Queues an edit of `node` (with its neighbours when its own passability or the
    /// cost of entering it changed).
    pub fn push_pending(&mut self, node: u32, with_neighbours: bool) {
        if self.overflow || !self.initialized {
            return;
        }
        if self.pending.len() >= MAX_PENDING {
            self.overflow = true;
            self.pending.clear();
            return;
        }
        self.pending.push(PendingEntry {
            node,
            with_neighbours,
        });
        self.computing = false;
    }

    fn source(&self) -> u32 {
        match self.mode {
            ReplanAlgorithm::LpaStar => self.start,
            ReplanAlgorithm::DStarLite => self.goal,
        }
    }

    fn target(&self) -> u32 {
        match self.mode {
            ReplanAlgorithm::LpaStar => self.goal,
            ReplanAlgorithm::DStarLite => self.start,
        }
    }

    fn key<G: SearchGraph>(&self, graph: &G, s: u32) -> (f64, f64) {
        let i = s as usize;
        let m = if self.g[i] < self.rhs[i] {
            self.g[i]
        } else {
            self.rhs[i]
        };
        match self.mode {
            ReplanAlgorithm::LpaStar => (m + graph.estimate(s, self.goal), m),
            ReplanAlgorithm::DStarLite => (m + graph.estimate(self.start, s) + self.km, m),
        }
    }

    /// Whether any open key, not only the smallest, is below the target's `kt` in the
    /// sense of `key_below_target`. The heap orders by the f64 key1, so a key whose key1
    /// ties the target's in exact arithmetic but rounds an ulp above it sits behind a top
    /// that ties the target exactly, even when its key2 is smaller: looking only at the top
    /// would stop with that node inconsistent, and its stale g would then mislead the path
    /// walk (issue 22: cycles and longer paths after the D* Lite start moved). Only the
    /// slots whose key1 is within the tolerance band are visited.
    fn open_below_target(&self, kt: (f64, f64)) -> bool {
        let bound = kt.0 + key1_tolerance(kt);
        self.open
            .any_up_to(bound, |s| key_below_target((s.key1, s.key2), kt))
    }

    fn initialize<G: SearchGraph>(&mut self, graph: &G) {
        let n = self.node_count;
        self.g.clear();
        self.g.resize(n, f64::INFINITY);
        self.rhs.clear();
        self.rhs.resize(n, f64::INFINITY);
        self.open.reset(n);
        self.km = 0.0;
        self.pending.clear();
        self.overflow = false;
        self.found = false;
        self.initialized = true;
        let src = self.source();
        if graph.is_passable(src) {
            self.rhs[src as usize] = 0.0;
            let (k1, k2) = self.key(graph, src);
            self.open.upsert(src, k1, k2);
        }
    }

    fn update_vertex<G: SearchGraph>(&mut self, graph: &G, u: u32) {
        let i = u as usize;
        if i >= self.node_count {
            return;
        }
        if u != self.source() {
            let mut buf = std::mem::take(&mut self.buf);
            buf.clear();
            match self.mode {
                ReplanAlgorithm::LpaStar => graph.predecessors(u, &mut buf),
                ReplanAlgorithm::DStarLite => graph.successors(u, &mut buf),
            }
            let mut best = f64::INFINITY;
            for &(v, c) in &buf {
                let t = self.g[v as usize] + c;
                if t < best {
                    best = t;
                }
            }
            self.buf = buf;
            self.rhs[i] = best;
        } else {
            self.rhs[i] = if graph.is_passable(u) {
                0.0
            } else {
                f64::INFINITY
            };
        }
        if self.g[i] != self.rhs[i] {
            let (k1, k2) = self.key(graph, u);
            self.open.upsert(u, k1, k2);
        } else {
            self.open.remove(u);
        }
    }

    fn update_around<G: SearchGraph>(&mut self, graph: &G, u: u32) {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        match self.mode {
            ReplanAlgorithm::LpaStar => graph.successors(u, &mut buf),
            ReplanAlgorithm::DStarLite => graph.predecessors(u, &mut buf),
        }
        let nodes: Vec<u32> = buf.iter().map(|e| e.0).collect();
        self.buf = buf;
        for v in nodes {
            self.update_vertex(graph, v);
        }
    }

    /// Whether the replan must expand more before `target` is settled.
    fn work_left<G: SearchGraph>(&self, graph: &G, target: u32) -> bool {
        let t = target as usize;
        let kt = self.key(graph, target);
        match self.open.peek() {
            Some(top) => {
                key_below_target((top.key1, top.key2), kt)
                    || self.rhs[t] != self.g[t]
                    || self.open_below_target(kt)
            }
            None => false,
        }
    }

    /// Whether a settled search reaches `target`.
    fn reaches<G: SearchGraph>(&self, graph: &G, target: u32) -> bool {
        self.g[target as usize].is_finite() && graph.is_passable(target)
    }

    /// Runs at most `max_iterations` iterations of the current replan: initialises when
    /// needed, applies pending edits, then computes until the target is consistent.
    pub fn step<G: SearchGraph>(&mut self, graph: &G, max_iterations: u64) -> SearchStatus {
        if !self.initialized || self.overflow {
            self.initialize(graph);
        }
        if !self.computing {
            self.computing = true;
            self.expanded = 0;
            self.expansions.clear();
            let pending = std::mem::take(&mut self.pending);
            for e in &pending {
                self.update_vertex(graph, e.node);
                if e.with_neighbours {
                    let mut adj = std::mem::take(&mut self.adj);
                    adj.clear();
                    graph.adjacent(e.node, &mut adj);
                    for &v in &adj {
                        self.update_vertex(graph, v);
                    }
                    self.adj = adj;
                }
            }
        }
        let target = self.target();
        let mut done = 0u64;
        loop {
            if !self.work_left(graph, target) {
                self.found = self.reaches(graph, target);
                return if self.found {
                    SearchStatus::Found
                } else {
                    SearchStatus::NoPath
                };
            }
            if done >= max_iterations {
                return SearchStatus::InProgress;
            }
            let Some(top) = self.open.pop() else { continue };
            done += 1;
            self.iterations = self.iterations.saturating_add(1);
            self.last_expanded = top.node;
            let u = top.node;
            let i = u as usize;
            let knew = self.key(graph, u);
            if key_less((top.key1, top.key2), knew) {
                self.open.upsert(u, knew.0, knew.1);
                continue;
            }
            self.expanded = self.expanded.saturating_add(1);
            if self.record {
                self.expansions.push(u);
            }
            if self.g[i] > self.rhs[i] {
                self.g[i] = self.rhs[i];
                self.update_around(graph, u);
            } else {
                self.g[i] = f64::INFINITY;
                self.update_vertex(graph, u);
                self.update_around(graph, u);
            }
        }
    }

    /// The current path (start first) and its cost, if the last replan found one.
    pub fn path<G: SearchGraph>(&self, graph: &G) -> Result<(Vec<u32>, f64), GridError> {
        if !self.initialized || !self.found {
            return Err(invalid("replanner", "no path has been planned"));
        }
        let mut buf = Vec::new();
        let (from, to) = (self.start, self.goal);
        let mut nodes = vec![];
        let mut cost = 0.0;
        match self.mode {
            ReplanAlgorithm::DStarLite => {
                // Downhill in g from the start: argmin c(s, s') + g(s') (ties: first).
                let mut cur = from;
                nodes.push(cur);
                while cur != to {
                    if nodes.len() > self.node_count {
                        return Err(invalid("replanner", "direction field contains a cycle"));
                    }
                    buf.clear();
                    graph.successors(cur, &mut buf);
                    let mut best = (f64::INFINITY, NO_NODE, 0.0);
                    for &(v, c) in &buf {
                        let t = c + self.g[v as usize];
                        if t < best.0 {
                            best = (t, v, c);
                        }
                    }
                    if best.1 == NO_NODE {
                        return Err(invalid("replanner", "has a cost but no path"));
                    }
                    cost += best.2;
                    cur = best.1;
                    nodes.push(cur);
                }
            }
            ReplanAlgorithm::LpaStar => {
                let mut cur = to;
                nodes.push(cur);
                while cur != from {
                    if nodes.len() > self.node_count {
                        return Err(invalid("replanner", "direction field contains a cycle"));
                    }
                    buf.clear();
                    graph.predecessors(cur, &mut buf);
                    let mut best = (f64::INFINITY, NO_NODE, 0.0);
                    for &(v, c) in &buf {
                        let t = self.g[v as usize] + c;
                        if t < best.0 {
                            best = (t, v, c);
                        }
                    }
                    if best.1 == NO_NODE {
                        return Err(invalid("replanner", "has a cost but no path"));
                    }
                    cost += best.2;
                    cur = best.1;
                    nodes.push(cur);
                }
                nodes.reverse();
            }
        }
        Ok((nodes, cost))
    }

    /// The result of the last replan.
    pub fn result<G: SearchGraph>(
        &self,
        graph: &G,
        status: SearchStatus,
    ) -> Result<GridPath, GridError> {
        let mut r = GridPath {
            status: GridPathStatus::of(status),
            nodes: Vec::new(),
            cost: 0.0,
            expanded: self.expanded.min(u64::from(u32::MAX)) as u32,
            iterations: self.iterations.min(u64::from(u32::MAX)) as u32,
            expansions: self.record.then(|| self.expansions.clone()),
        };
        if status == SearchStatus::Found {
            let (nodes, cost) = self.path(graph)?;
            r.nodes = nodes;
            r.cost = cost;
        }
        Ok(r)
    }

    /// g of a node (+∞ when unknown).
    pub fn g(&self, node: u32) -> f64 {
        self.g.get(node as usize).copied().unwrap_or(f64::INFINITY)
    }

    /// rhs of a node (+∞ when unknown).
    pub fn rhs(&self, node: u32) -> f64 {
        self.rhs
            .get(node as usize)
            .copied()
            .unwrap_or(f64::INFINITY)
    }

    /// The pending edits.
    pub fn pending(&self) -> &[PendingEntry] {
        &self.pending
    }
}

/// A replanner on a [`Grid`]: move the start, set the goal, edit cells of the grid, and
/// replan incrementally. Edits are read from the grid's journal at the next replan.
#[derive(Debug, Clone)]
pub struct GridReplanner {
    options: GridOptions,
    core: ReplanCore,
    cache: GridCache,
    seen: (u64, u32),
    area_version: u32,
    width: u32,
    height: u32,
    status: SearchStatus,
}

impl GridReplanner {
    /// A replanner for `grid` from `start` to `goal`.
    pub fn new(
        grid: &Grid,
        algorithm: ReplanAlgorithm,
        options: GridOptions,
        start: (u32, u32),
        goal: (u32, u32),
    ) -> Result<Self, GridError> {
        options.validate()?;
        let s = grid.index(start.0, start.1)?;
        let g = grid.index(goal.0, goal.1)?;
        let record = options.record_expansions;
        Ok(GridReplanner {
            options,
            core: ReplanCore::new(algorithm, grid.cell_count(), s, g, record),
            cache: GridCache::default(),
            seen: grid.cache_key(),
            area_version: grid.areas().version(),
            width: grid.width(),
            height: grid.height(),
            status: SearchStatus::NotStarted,
        })
    }

    /// The algorithm.
    pub fn algorithm(&self) -> ReplanAlgorithm {
        self.core.mode
    }

    /// The search state.
    pub fn core(&self) -> &ReplanCore {
        &self.core
    }

    fn check_grid(&self, grid: &Grid) -> Result<(), GridError> {
        if grid.width() != self.width || grid.height() != self.height {
            return Err(invalid(
                "grid",
                format!(
                    "{}x{} is not the replanner's {}x{}",
                    grid.width(),
                    grid.height(),
                    self.width,
                    self.height
                ),
            ));
        }
        Ok(())
    }

    /// Reads the grid's edits since the last replan into pending entries, as the next
    /// replan or step does first (so calling it changes nothing else the replanner will
    /// do). Call it before [`GridReplanner::save_state`] when the grid was edited after
    /// the last replan: a restore empties the grid's edit journal, so edits the replanner
    /// has not read yet would be lost to the restored replanner.
    pub fn sync(&mut self, grid: &Grid) -> Result<(), GridError> {
        self.check_grid(grid)?;
        let key = grid.cache_key();
        if grid.areas().version() != self.area_version {
            self.area_version = grid.areas().version();
            self.core.invalidate_all();
        }
        if key == self.seen {
            return Ok(());
        }
        let edits = if key.0 == self.seen.0 {
            grid.edits_since(self.seen.1)
        } else {
            None
        };
        self.seen = key;
        let Some(edits) = edits else {
            self.core.invalidate_all();
            return Ok(());
        };
        let k = i64::from(self.options.agent_size);
        for e in edits {
            // A cell's wall state changes the passability of the agent-size block whose
            // squares contain it, and every move touching those cells.
            let (x, y) = grid.xy(e.cell);
            let (x, y) = (i64::from(x), i64::from(y));
            for oy in 0..k {
                for ox in 0..k {
                    let (px, py) = (x - ox, y - oy);
                    if px >= 0 && py >= 0 {
                        self.core
                            .push_pending((py * i64::from(self.width) + px) as u32, true);
                    }
                }
            }
        }
        Ok(())
    }

    /// Moves the start.
    pub fn set_start(&mut self, grid: &Grid, start: (u32, u32)) -> Result<(), GridError> {
        self.check_grid(grid)?;
        let s = grid.index(start.0, start.1)?;
        let view = GridView::new(grid, &self.options, &mut self.cache);
        self.core.set_start(&view, s);
        Ok(())
    }

    /// Sets the goal (the next replan starts from scratch).
    pub fn set_goal(&mut self, grid: &Grid, goal: (u32, u32)) -> Result<(), GridError> {
        self.check_grid(grid)?;
        let g = grid.index(goal.0, goal.1)?;
        self.core.set_goal(g);
        Ok(())
    }

    /// Forgets everything planned.
    pub fn invalidate_all(&mut self) {
        self.core.invalidate_all();
    }

    /// Runs at most `max_iterations` iterations of the replan (sliced form).
    pub fn step(&mut self, grid: &Grid, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.sync(grid)?;
        let view = GridView::new(grid, &self.options, &mut self.cache);
        self.status = self.core.step(&view, max_iterations);
        Ok(self.status)
    }

    /// Replans to completion (or the options' iteration budget) and returns the path.
    pub fn replan(&mut self, grid: &Grid) -> Result<GridPath, GridError> {
        self.step(grid, self.options.step_budget())?;
        self.result(grid)
    }

    /// The result of the last replan (`BudgetExhausted` while a sliced replan is running).
    pub fn result(&mut self, grid: &Grid) -> Result<GridPath, GridError> {
        self.check_grid(grid)?;
        let view = GridView::new(grid, &self.options, &mut self.cache);
        self.core.result(&view, self.status)
    }
}

/// A checked "Replan search" state.
#[derive(Debug, Clone)]
pub(crate) struct ReplanSaved {
    start: u32,
    goal: u32,
    initialized: bool,
    found: bool,
    iterations: u64,
    expanded: u64,
    last_expanded: u32,
    km: f64,
    overflow: bool,
    pending: Vec<PendingEntry>,
    planned: Vec<(u32, f64, f64)>,
    open: Vec<crate::open_lists::heap::ReplanSlot>,
}

impl ReplanCore {
    /// Writes the "Replan search" layout.
    pub(crate) fn write_state(&self, w: &mut onepath_format::bytes::ByteWriter) {
        use crate::state::write_u32_as_i32;
        write_u32_as_i32(w, self.node_count as u32);
        w.u8(self.mode as u8);
        write_u32_as_i32(w, self.start);
        write_u32_as_i32(w, self.goal);
        w.u8(u8::from(self.initialized));
        w.u8(u8::from(self.found));
        w.i64(self.iterations.min(i64::MAX as u64) as i64);
        w.i64(self.expanded.min(i64::MAX as u64) as i64);
        if self.last_expanded == NO_NODE {
            w.i32(-1);
        } else {
            write_u32_as_i32(w, self.last_expanded);
        }
        if !self.initialized {
            return;
        }
        w.f64(self.km);
        w.u8(u8::from(self.overflow));
        write_u32_as_i32(w, self.pending.len() as u32);
        for p in &self.pending {
            let v = self.pending_code(p);
            w.i32(v);
        }
        let planned: Vec<usize> = (0..self.node_count)
            .filter(|&i| self.g[i].is_finite() || self.rhs[i].is_finite())
            .collect();
        write_u32_as_i32(w, planned.len() as u32);
        for i in planned {
            write_u32_as_i32(w, i as u32);
            w.f64(self.g[i]);
            w.f64(self.rhs[i]);
        }
        write_u32_as_i32(w, self.open.len() as u32);
        for s in self.open.slots() {
            write_u32_as_i32(w, s.node);
            w.f64(s.key1);
            w.f64(s.key2);
        }
    }

    fn pending_code(&self, p: &PendingEntry) -> i32 {
        let v = i32::try_from(p.node).unwrap_or(i32::MAX);
        if p.with_neighbours {
            !v
        } else {
            v
        }
    }

    /// Reads a "Replan search" over `n` nodes for a replanner running `mode`.
    pub(crate) fn read_state(
        r: &mut onepath_format::bytes::ByteReader<'_>,
        n: usize,
        mode: ReplanAlgorithm,
    ) -> Result<ReplanSaved, onepath_format::FormatError> {
        use crate::state::*;
        let fam = Family::Grid;
        let saved_n = r.i32("node count")?;
        if saved_n < 0 || saved_n as usize != n {
            return Err(fam.err(format!(
                "replan node count {saved_n} does not match the grid's {n}"
            )));
        }
        let m = r.u8("replan mode")?;
        if m != mode as u8 {
            return Err(fam.err(format!(
                "replan mode {m} does not match the replanner's {}",
                mode as u8
            )));
        }
        let start = read_node(r, fam, "replan start", n)?;
        let goal = read_node(r, fam, "replan goal", n)?;
        let initialized = read_flag(r, fam, "initialized")?;
        let found = read_flag(r, fam, "found")?;
        let iterations = r.i64("replan iterations")?;
        let expanded = r.i64("replan expanded")?;
        if iterations < 0 || expanded < 0 {
            return Err(fam.err("replan iterations and expanded are not negative"));
        }
        let le = r.i32("last expanded")?;
        let last_expanded = if le == -1 {
            NO_NODE
        } else if le < 0 || le as usize >= n {
            return Err(fam.err(format!("last expanded {le} out of range")));
        } else {
            le as u32
        };
        let mut saved = ReplanSaved {
            start,
            goal,
            initialized,
            found,
            iterations: iterations as u64,
            expanded: expanded as u64,
            last_expanded,
            km: 0.0,
            overflow: false,
            pending: Vec::new(),
            planned: Vec::new(),
            open: Vec::new(),
        };
        if !initialized {
            if found {
                return Err(fam.err("an uninitialised replan search has not found a path"));
            }
            return Ok(saved);
        }
        let km = read_f64(r, fam, "km")?;
        if !(km.is_finite() && km >= 0.0) {
            return Err(fam.err(format!("km {km} is not finite and >= 0")));
        }
        saved.km = km;
        saved.overflow = read_flag(r, fam, "overflow")?;
        let pc = read_count(r, fam, "pending count", MAX_PENDING, 4)?;
        if saved.overflow && pc > 0 {
            return Err(fam.err("an overflowed replan search lists no pending entries"));
        }
        for _ in 0..pc {
            let v = r.i32("pending entry")?;
            let (node, with_neighbours) = if v < 0 { (!v, true) } else { (v, false) };
            if node as usize >= n {
                return Err(fam.err(format!("pending node {node} out of range 0..{n}")));
            }
            saved.pending.push(PendingEntry {
                node: node as u32,
                with_neighbours,
            });
        }
        let plc = read_count(r, fam, "planned count", n, 20)?;
        for _ in 0..plc {
            let node = read_node(r, fam, "planned node", n)?;
            if let Some(&(prev, ..)) = saved.planned.last() {
                if node <= prev {
                    return Err(fam.err(format!(
                        "planned node {node} does not follow {prev} in increasing order"
                    )));
                }
            }
            let g = read_f64(r, fam, "planned g")?;
            let rhs = read_f64(r, fam, "planned rhs")?;
            if g < 0.0 || rhs < 0.0 || !(g.is_finite() || rhs.is_finite()) {
                return Err(fam.err(format!(
                    "planned node {node}: g {g} and rhs {rhs} are not >= 0 with one finite"
                )));
            }
            saved.planned.push((node, g, rhs));
        }
        let oc = read_count(r, fam, "replan open count", n, 20)?;
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..oc {
            let node = read_node(r, fam, "replan open node", n)?;
            let key1 = read_f64(r, fam, "replan open key1")?;
            let key2 = read_f64(r, fam, "replan open key2")?;
            if !seen.insert(node) {
                return Err(fam.err(format!("replan open slot {i}: node {node} is listed twice")));
            }
            saved
                .open
                .push(crate::open_lists::heap::ReplanSlot { node, key1, key2 });
        }
        Ok(saved)
    }

    /// Installs a checked state (the node count was checked against this core's).
    pub(crate) fn install(&mut self, s: ReplanSaved) {
        let n = self.node_count;
        self.start = s.start;
        self.goal = s.goal;
        self.initialized = s.initialized;
        self.found = s.found;
        self.iterations = s.iterations;
        self.expanded = s.expanded;
        self.last_expanded = s.last_expanded;
        self.km = s.km;
        self.overflow = s.overflow;
        self.g.clear();
        self.g.resize(n, f64::INFINITY);
        self.rhs.clear();
        self.rhs.resize(n, f64::INFINITY);
        for &(node, g, rhs) in &s.planned {
            self.g[node as usize] = g;
            self.rhs[node as usize] = rhs;
        }
        self.open.restore(n, &s.open);
        // The "computing" flag is not saved: a replan is under way (its pending entries
        // already applied) exactly when nothing is pending.
        self.computing = s.initialized && !s.overflow && s.pending.is_empty();
        self.pending = s.pending;
        self.expansions.clear();
    }

    /// The status the last step reported, recomputed without work after a restore.
    ///
    /// Reads the search and changes nothing (a zero-budget step would also write `found`,
    /// which after a start move differs from the saved one until the next replan).
    pub(crate) fn restored_status<G: SearchGraph>(&self, graph: &G) -> SearchStatus {
        if !self.initialized {
            return SearchStatus::NotStarted;
        }
        if !self.computing {
            return SearchStatus::InProgress;
        }
        let target = self.target();
        if self.work_left(graph, target) {
            SearchStatus::InProgress
        } else if self.reaches(graph, target) {
            SearchStatus::Found
        } else {
            SearchStatus::NoPath
        }
    }
}

/// The header fields shared by GridReplanner and HexReplanner (kinds 5 and 6).
pub(crate) struct ReplannerHead {
    pub area_version: u32,
    pub saved: ReplanSaved,
}

pub(crate) fn write_replanner(
    kind: u16,
    width: u32,
    height: u32,
    area_version: u32,
    core: &ReplanCore,
) -> Vec<u8> {
    use crate::state::*;
    let mut w = onepath_format::bytes::ByteWriter::new();
    write_header(&mut w, kind);
    write_u32_as_i32(&mut w, width);
    write_u32_as_i32(&mut w, height);
    w.u8(core.mode as u8);
    write_u32_as_i32(&mut w, area_version);
    write_u32_as_i32(&mut w, core.start);
    write_u32_as_i32(&mut w, core.goal);
    core.write_state(&mut w);
    w.into_vec()
}

pub(crate) fn read_replanner(
    bytes: &[u8],
    kind: u16,
    width: u32,
    height: u32,
    mode: ReplanAlgorithm,
) -> Result<ReplannerHead, onepath_format::FormatError> {
    use crate::state::*;
    let fam = Family::Grid;
    let mut r = onepath_format::bytes::ByteReader::new(bytes);
    read_header(&mut r, kind, fam)?;
    let w = r.i32("width")?;
    let h = r.i32("height")?;
    if i64::from(w) != i64::from(width) || i64::from(h) != i64::from(height) {
        return Err(fam.err(format!(
            "size {w} x {h} does not match the replanner's {width} x {height}"
        )));
    }
    let alg = r.u8("algorithm")?;
    if alg != mode as u8 {
        return Err(fam.err(format!(
            "algorithm {alg} does not match the replanner's {}",
            mode as u8
        )));
    }
    let area_version = read_nonneg(&mut r, fam, "area version")?;
    let n = (width as usize) * (height as usize);
    let start = read_node(&mut r, fam, "start", n)?;
    let goal = read_node(&mut r, fam, "goal", n)?;
    let saved = ReplanCore::read_state(&mut r, n, mode)?;
    expect_end(&r)?;
    if saved.start != start || saved.goal != goal {
        return Err(fam.err("the replan search's start and goal are not the replanner's"));
    }
    Ok(ReplannerHead {
        area_version,
        saved,
    })
}

/// Save and restore (OPGS kind 5, `docs/grid-state.md`).
impl GridReplanner {
    /// The replanner's state (kind 5): i32 width, height, u8 algorithm, i32 area version,
    /// i32 start, goal, then the replan search.
    pub fn save_state(&self) -> Vec<u8> {
        write_replanner(
            crate::state::kind::GRID_REPLANNER,
            self.width,
            self.height,
            self.area_version,
            &self.core,
        )
    }

    /// Restores a saved state in place into a replanner created the same way (same grid
    /// size and algorithm); `grid` is the (restored) grid. Checked before anything changes:
    /// on error the replanner is unchanged. Edits made to the grid after this call are
    /// picked up by the next replan as usual.
    pub fn restore_state(
        &mut self,
        grid: &Grid,
        bytes: &[u8],
    ) -> Result<(), onepath_format::FormatError> {
        let head = read_replanner(
            bytes,
            crate::state::kind::GRID_REPLANNER,
            self.width,
            self.height,
            self.core.mode,
        )?;
        if grid.width() != self.width || grid.height() != self.height {
            return Err(crate::state::Family::Grid.err("the grid is not the replanner's size"));
        }
        self.core.install(head.saved);
        self.area_version = head.area_version;
        self.seen = grid.cache_key();
        let view = GridView::new(grid, &self.options, &mut self.cache);
        self.status = self.core.restored_status(&view);
        Ok(())
    }
}
