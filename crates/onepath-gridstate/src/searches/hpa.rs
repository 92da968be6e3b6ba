//! HPA*: hierarchical path-finding. The grid is cut into square clusters; each border
//! between two neighbouring clusters gets *transitions* (for every maximal run of cell
//! pairs that can cross the border with a straight move: one pair in the middle of a run
//! shorter than 6, two pairs at the ends of a longer run); the abstract graph has the
//! transition cells as nodes, inter-cluster edges across each transition and intra-cluster
//! edges with the exact cost of the cheapest path inside the cluster. A query links start
//! and goal to the nodes of their clusters, searches the abstract graph with A* (octile
//! estimate, [`OpenSet`] tie-break) and refines each abstract edge inside its cluster.
//!
//! Speed: the abstract graph of the transitions is kept between queries until the
//! hierarchy changes, and a query appends its start and goal nodes and edges after
//! everything else (exactly the graph a query-only build gives, edge lists in the same
//! order); the in-cluster Dijkstras of a query stop once their targets are settled; the
//! intra edges' Dijkstra trees are kept (a step per cell) and refinement walks them.
//!
//! Near-optimal: paths are valid and never shorter than optimal, and can be longer (the
//! bound on Moving AI maps is measured and asserted on every scenario by
//! `tests-conformance`). The refined path is smoothed: each window of at most one cluster
//! on a side is replaced by a cheaper path inside its box when one exists, which frees
//! the border crossings from the transition cells. When start and goal lie in the same or
//! neighbouring clusters, the exact path inside the rectangle of those clusters is also
//! computed at `begin` and the cheaper path is returned (short paths would otherwise
//! detour through transitions). The diagonal
//! rule `Always` is refused: a path could cross a border only diagonally and transitions
//! would not see it.
//!
//! Incremental repair: edits read from the grid's journal mark their cluster dirty (and
//! the neighbouring cluster when the cell lies on a border); the next query recomputes
//! the transitions of the borders of dirty clusters and the intra-cluster edges of the
//! clusters that touch them. An area multiplier change or a journal gap rebuilds all.
//!
//! One iteration of the abstract search = one abstract node popped; the expanded list is
//! the abstract nodes' cells.

use std::collections::BTreeMap;

use crate::error::{invalid, GridError};
use crate::open_lists::heap::OpenSet;
use crate::searches::astar::{AStarCore, SearchGraph};
use crate::searches::options::{Connectivity, DiagonalRule, GridOptions};
use crate::searches::result::{GridPath, GridPathStatus, SearchStatus};
use crate::searches::sliced::{Began, SlicedSearch};
use crate::spaces::grid::Grid;
use crate::spaces::grid_view::{GridCache, GridView};

#[derive(Debug, Clone, Copy)]
struct Bounds {
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
}

impl Bounds {
    fn contains(&self, w: u32, cell: u32) -> bool {
        let (x, y) = (cell % w, cell / w);
        x >= self.x0 && x < self.x1 && y >= self.y0 && y < self.y1
    }

    fn local(&self, w: u32, cell: u32) -> usize {
        let (x, y) = (cell % w, cell / w);
        ((y - self.y0) * (self.x1 - self.x0) + (x - self.x0)) as usize
    }

    fn global(&self, w: u32, i: usize) -> u32 {
        let cw = self.x1 - self.x0;
        (self.y0 + i as u32 / cw) * w + self.x0 + i as u32 % cw
    }

    fn size(&self) -> usize {
        ((self.x1 - self.x0) * (self.y1 - self.y0)) as usize
    }
}

/// The parents of an in-cluster Dijkstra as steps: for every cell of the cluster
/// (local index), the direction to its parent (an index into [`STEPS`]) or [`NO_PARENT`].
#[derive(Debug, Clone)]
struct ParentSteps(Vec<u8>);

/// Neighbour offsets (dx, dy) a parent step may take.
const STEPS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];
const NO_PARENT: u8 = u8::MAX;

impl ParentSteps {
    /// From the local parents of [`cluster_dijkstra`] over `b` (`u32::MAX`: none).
    fn new(b: Bounds, parent: &[u32]) -> ParentSteps {
        let cw = (b.x1 - b.x0) as i64;
        ParentSteps(
            parent
                .iter()
                .enumerate()
                .map(|(i, &p)| {
                    if p == u32::MAX {
                        return NO_PARENT;
                    }
                    let (dx, dy) = (
                        (i64::from(p) % cw - i as i64 % cw) as i32,
                        (i64::from(p) / cw - i as i64 / cw) as i32,
                    );
                    STEPS
                        .iter()
                        .position(|&s| s == (dx, dy))
                        .map_or(NO_PARENT, |k| k as u8)
                })
                .collect(),
        )
    }

    /// The local parent of local cell `i` (`u32::MAX`: none), as the search left it.
    fn parent(&self, b: Bounds, i: usize) -> u32 {
        let k = self.0[i];
        if k == NO_PARENT {
            return u32::MAX;
        }
        let cw = (b.x1 - b.x0) as i64;
        let (dx, dy) = STEPS[k as usize];
        (i as i64 + i64::from(dy) * cw + i64::from(dx)) as u32
    }
}

/// Dijkstra inside a cluster from `source`, forward (costs source → cell) or backward
/// (cell → source). Returns local distances and local parents.
fn cluster_dijkstra(
    view: &GridView<'_>,
    w: u32,
    b: Bounds,
    source: u32,
    backward: bool,
) -> (Vec<f64>, Vec<u32>) {
    cluster_dijkstra_until(view, w, b, source, backward, None, |_| 0.0)
}

/// [`cluster_dijkstra`] that stops once every cell of `targets` (global cells) inside
/// the bounds is settled (`None`: run to the end). A settled cell's distance and parent
/// chain are final, so for the targets (and every cell on their parent chains) the result
/// is bit for bit the full search's.
///
/// `estimate` (global cell → estimate of the cost to the one target) turns the search
/// into A*. With a consistent estimate a settled cell is still final; with a weighted one
/// (the smoothing's) every distance is still the cost of its parent chain, summed in
/// order, though not always the least. `|_| 0.0` is Dijkstra: every key is `d + 0.0 = d`,
/// the same bits as without an estimate.
fn cluster_dijkstra_until(
    view: &GridView<'_>,
    w: u32,
    b: Bounds,
    source: u32,
    backward: bool,
    targets: Option<&[u32]>,
    estimate: impl Fn(u32) -> f64,
) -> (Vec<f64>, Vec<u32>) {
    let n = b.size();
    // Local target marks and how many distinct targets are still unsettled.
    let mut wanted = vec![false; if targets.is_some() { n } else { 0 }];
    let mut left = usize::MAX;
    if let Some(ts) = targets {
        left = 0;
        for &t in ts {
            if b.contains(w, t) && !wanted[b.local(w, t)] {
                wanted[b.local(w, t)] = true;
                left += 1;
            }
        }
    }
    let mut dist = vec![f64::INFINITY; n];
    let mut parent = vec![u32::MAX; n];
    let mut done = vec![false; n];
    let mut open = OpenSet::new(n);
    let mut buf = Vec::new();
    if !b.contains(w, source) || !view.is_passable(source) {
        return (dist, parent);
    }
    let s = b.local(w, source);
    dist[s] = 0.0;
    open.push_or_decrease(s as u32, estimate(source), 0.0);
    while left > 0 {
        let Some(top) = open.pop() else {
            break;
        };
        let u = top.node as usize;
        done[u] = true;
        if !wanted.is_empty() && wanted[u] {
            left -= 1;
            if left == 0 {
                break;
            }
        }
        buf.clear();
        let g = b.global(w, u);
        if backward {
            view.predecessors(g, &mut buf);
        } else {
            view.successors(g, &mut buf);
        }
        for &(m, c) in &buf {
            if !b.contains(w, m) {
                continue;
            }
            let l = b.local(w, m);
            let d = top.g + c;
            if !done[l] && d < dist[l] {
                dist[l] = d;
                parent[l] = u as u32;
                open.push_or_decrease(l as u32, d + estimate(m), d);
            }
        }
    }
    (dist, parent)
}

/// The cells from `s` to `t` along the local parents of a search over `b` from `s`
/// (`None` when the chain breaks before reaching `s`).
fn parent_chain(w: u32, b: Bounds, parent: &[u32], s: u32, t: u32) -> Option<Vec<u32>> {
    let mut nodes = vec![t];
    let mut cur = b.local(w, t);
    let start = b.local(w, s);
    while cur != start && nodes.len() <= b.size() {
        let p = parent[cur];
        if p == u32::MAX {
            return None;
        }
        cur = p as usize;
        nodes.push(b.global(w, cur));
    }
    nodes.reverse();
    Some(nodes)
}

/// The cost of walking `cells` move by move, summed in order (infinite when two
/// consecutive cells are not a move).
fn path_cost(view: &GridView<'_>, cells: &[u32]) -> f64 {
    let mut buf = Vec::new();
    let mut cost = 0.0;
    for step in cells.windows(2) {
        buf.clear();
        view.successors(step[0], &mut buf);
        cost += buf
            .iter()
            .find(|e| e.0 == step[1])
            .map_or(f64::INFINITY, |e| e.1);
    }
    cost
}

/// The weight of the octile estimate in the smoothing searches. Along equally good
/// diagonal-and-straight paths the f64 keys differ in their last bits, so an unweighted
/// search would spread over the whole plateau of a window; a weight just above 1 makes
/// the deeper node win (a path within 0.1 % of the window's optimum, which is all the
/// smoothing needs: it keeps a path only when it is cheaper).
const SMOOTH_WEIGHT: f64 = 1.001;

/// The abstract graph of one query.
#[derive(Debug, Clone)]
struct Abstract {
    cells: Vec<u32>,
    fwd: Vec<Vec<(u32, f64)>>,
    bwd: Vec<Vec<(u32, f64)>>,
    width: u32,
    eight: bool,
    min_mult: f64,
}

impl SearchGraph for Abstract {
    fn node_count(&self) -> usize {
        self.cells.len()
    }

    fn is_passable(&self, node: u32) -> bool {
        (node as usize) < self.cells.len()
    }

    fn successors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        out.extend_from_slice(&self.fwd[node as usize]);
    }

    fn predecessors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        out.extend_from_slice(&self.bwd[node as usize]);
    }

    fn estimate(&self, from: u32, to: u32) -> f64 {
        self.estimate_cells(self.cells[from as usize], self.cells[to as usize])
    }
}

impl Abstract {
    /// The octile (or Manhattan) distance between two cells times the smallest multiplier.
    fn estimate_cells(&self, a: u32, b: u32) -> f64 {
        let dx = (a % self.width).abs_diff(b % self.width);
        let dy = (a / self.width).abs_diff(b / self.width);
        let base = if self.eight {
            let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
            f64::from(hi - lo) + f64::from(lo) * std::f64::consts::SQRT_2
        } else {
            f64::from(dx + dy)
        };
        base * self.min_mult
    }
}

/// What a query adds to the kept abstract graph: its start and goal nodes (new nodes
/// after the transition cells unless they are transition cells themselves) and their
/// edges. Searching `base` with these edges appended is searching the graph the query
/// would build from scratch: the same nodes, numbered alike, and every node's edge lists
/// in the same order (the query's edges come last, start edges before goal edges).
#[derive(Debug, Clone)]
struct QueryNodes {
    /// Cells of the nodes numbered from `base.cells.len()` on.
    cells: Vec<u32>,
    start: u32,
    goal: u32,
    /// Edges start → node, in order.
    from_start: Vec<(u32, f64)>,
    /// Edges node → goal, in order.
    to_goal: Vec<(u32, f64)>,
    /// The in-cluster Dijkstra from the start (for the refinement of the first hop).
    start_tree: ParentSteps,
}

/// The abstract graph of one query: the kept graph plus the query's nodes and edges.
struct QueryGraph<'a> {
    base: &'a Abstract,
    q: &'a QueryNodes,
}

impl QueryGraph<'_> {
    fn cell(&self, node: u32) -> u32 {
        let n = self.base.cells.len();
        match self.base.cells.get(node as usize) {
            Some(&c) => c,
            None => self.q.cells[node as usize - n],
        }
    }
}

impl SearchGraph for QueryGraph<'_> {
    fn node_count(&self) -> usize {
        self.base.cells.len() + self.q.cells.len()
    }

    fn is_passable(&self, node: u32) -> bool {
        (node as usize) < self.node_count()
    }

    fn successors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        if let Some(f) = self.base.fwd.get(node as usize) {
            out.extend_from_slice(f);
        }
        if node == self.q.start {
            out.extend_from_slice(&self.q.from_start);
        }
        for &(z, d) in &self.q.to_goal {
            if z == node {
                out.push((self.q.goal, d));
            }
        }
    }

    fn predecessors(&self, node: u32, out: &mut Vec<(u32, f64)>) {
        if let Some(b) = self.base.bwd.get(node as usize) {
            out.extend_from_slice(b);
        }
        for &(z, d) in &self.q.from_start {
            if z == node {
                out.push((self.q.start, d));
            }
        }
        if node == self.q.goal {
            out.extend_from_slice(&self.q.to_goal);
        }
    }

    fn estimate(&self, from: u32, to: u32) -> f64 {
        self.base.estimate_cells(self.cell(from), self.cell(to))
    }
}

/// An HPA* hierarchy over one grid.
#[derive(Debug, Clone)]
pub struct HpaStar {
    options: GridOptions,
    cluster: u32,
    width: u32,
    height: u32,
    cx: u32,
    cy: u32,
    /// Transitions across the border east of cluster (i, j), index j * cx + i.
    east: Vec<Vec<(u32, u32)>>,
    /// Transitions across the border south of cluster (i, j).
    south: Vec<Vec<(u32, u32)>>,
    /// Intra-cluster edges per cluster: (from cell, to cell, cost).
    intra: Vec<Vec<(u32, u32, f64)>>,
    /// Per cluster, per node (sorted by cell): the parent steps of the in-cluster
    /// Dijkstra from that node, kept from the build of the intra edges so a query's
    /// refinement walks them instead of searching again.
    trees: Vec<Vec<(u32, ParentSteps)>>,
    /// The abstract graph of the transitions (without a query's start and goal) and the
    /// node of every transition cell: built by the first query after the hierarchy
    /// changed, kept until it changes again.
    base: Option<(Abstract, BTreeMap<u32, u32>)>,
    seen: (u64, u32),
    area_version: u32,
    cache: GridCache,
    core: AStarCore,
    rebuilt_clusters: u64,
    query: Option<HpaQuery>,
    began: Began,
}

impl HpaStar {
    /// Builds the hierarchy of `grid` with square clusters of `cluster_size` (≥ 2) cells.
    pub fn new(grid: &Grid, cluster_size: u32, options: GridOptions) -> Result<Self, GridError> {
        options.validate()?;
        if cluster_size < 2 {
            return Err(invalid("cluster size", "must be at least 2"));
        }
        if options.connectivity == Connectivity::Eight
            && options.diagonal_rule == DiagonalRule::Always
        {
            return Err(invalid(
                "diagonal rule",
                "HPA* needs NoCornerCutting or BothOrthogonalFree",
            ));
        }
        let cx = grid.width().div_ceil(cluster_size);
        let cy = grid.height().div_ceil(cluster_size);
        let n = (cx * cy) as usize;
        let mut h = HpaStar {
            options,
            cluster: cluster_size,
            width: grid.width(),
            height: grid.height(),
            cx,
            cy,
            east: vec![Vec::new(); n],
            south: vec![Vec::new(); n],
            intra: vec![Vec::new(); n],
            trees: vec![Vec::new(); n],
            base: None,
            seen: grid.cache_key(),
            area_version: grid.areas().version(),
            cache: GridCache::default(),
            core: AStarCore::default(),
            rebuilt_clusters: 0,
            query: None,
            began: Began::not_begun(),
        };
        h.rebuild_all(grid);
        Ok(h)
    }

    /// How many clusters have been (re)built so far (full builds count every cluster).
    pub fn rebuilt_clusters(&self) -> u64 {
        self.rebuilt_clusters
    }

    fn bounds(&self, c: u32) -> Bounds {
        let (i, j) = (c % self.cx, c / self.cx);
        Bounds {
            x0: i * self.cluster,
            y0: j * self.cluster,
            x1: ((i + 1) * self.cluster).min(self.width),
            y1: ((j + 1) * self.cluster).min(self.height),
        }
    }

    fn cluster_of(&self, cell: u32) -> u32 {
        let (x, y) = (cell % self.width, cell / self.width);
        (y / self.cluster) * self.cx + x / self.cluster
    }

    fn rebuild_all(&mut self, grid: &Grid) {
        let all: Vec<u32> = (0..self.cx * self.cy).collect();
        self.rebuild(grid, &all);
    }

    /// Recomputes the borders of `dirty` clusters and the intra edges of every cluster
    /// touching them.
    fn rebuild(&mut self, grid: &Grid, dirty: &[u32]) {
        let mut cache = std::mem::take(&mut self.cache);
        let options = self.options.clone();
        self.rebuild_with(grid, dirty, &GridView::new(grid, &options, &mut cache));
        self.cache = cache;
    }

    fn rebuild_with(&mut self, grid: &Grid, dirty: &[u32], view: &GridView<'_>) {
        let _ = grid;
        self.base = None;
        let w = self.width;
        let mut touched = std::collections::BTreeSet::new();
        for &c in dirty {
            let (i, j) = (c % self.cx, c / self.cx);
            touched.insert(c);
            // Own east/south borders and the neighbours' borders facing this cluster.
            let mut borders = vec![(c, true), (c, false)];
            if i > 0 {
                borders.push((c - 1, true));
                touched.insert(c - 1);
            }
            if j > 0 {
                borders.push((c - self.cx, false));
                touched.insert(c - self.cx);
            }
            if i + 1 < self.cx {
                touched.insert(c + 1);
            }
            if j + 1 < self.cy {
                touched.insert(c + self.cx);
            }
            for (b, east) in borders {
                let t = self.transitions(view, b, east);
                if east {
                    self.east[b as usize] = t;
                } else {
                    self.south[b as usize] = t;
                }
            }
        }
        for &c in &touched {
            let nodes = self.nodes_of(c);
            let b = self.bounds(c);
            let mut edges = Vec::new();
            let mut trees = Vec::with_capacity(nodes.len());
            for &a in &nodes {
                let (dist, parent) = cluster_dijkstra(view, w, b, a, false);
                for &z in &nodes {
                    let d = dist[b.local(w, z)];
                    if z != a && d.is_finite() {
                        edges.push((a, z, d));
                    }
                }
                trees.push((a, ParentSteps::new(b, &parent)));
            }
            self.intra[c as usize] = edges;
            self.trees[c as usize] = trees;
            self.rebuilt_clusters += 1;
        }
    }

    /// Transitions across the east (or south) border of cluster `c`.
    fn transitions(&self, view: &GridView<'_>, c: u32, east: bool) -> Vec<(u32, u32)> {
        let (i, j) = (c % self.cx, c / self.cx);
        if (east && i + 1 >= self.cx) || (!east && j + 1 >= self.cy) {
            return Vec::new();
        }
        let b = self.bounds(c);
        let w = self.width;
        let mut buf = Vec::new();
        let pairs: Vec<(u32, u32)> = if east {
            (b.y0..b.y1)
                .map(|y| (y * w + b.x1 - 1, y * w + b.x1))
                .collect()
        } else {
            (b.x0..b.x1)
                .map(|x| ((b.y1 - 1) * w + x, b.y1 * w + x))
                .collect()
        };
        let crossable = |p: (u32, u32), buf: &mut Vec<(u32, f64)>| {
            buf.clear();
            view.successors(p.0, buf);
            let there = buf.iter().any(|e| e.0 == p.1);
            buf.clear();
            view.successors(p.1, buf);
            there && buf.iter().any(|e| e.0 == p.0)
        };
        let mut out = Vec::new();
        let mut k = 0;
        while k < pairs.len() {
            if !crossable(pairs[k], &mut buf) {
                k += 1;
                continue;
            }
            let start = k;
            while k < pairs.len() && crossable(pairs[k], &mut buf) {
                k += 1;
            }
            let len = k - start;
            if len < 6 {
                out.push(pairs[start + len / 2]);
            } else {
                out.push(pairs[start]);
                out.push(pairs[k - 1]);
            }
        }
        out
    }

    /// The abstract nodes (transition cells) of cluster `c`, sorted.
    fn nodes_of(&self, c: u32) -> Vec<u32> {
        let (i, j) = (c % self.cx, c / self.cx);
        let mut v: Vec<u32> = self.east[c as usize].iter().map(|p| p.0).collect();
        v.extend(self.south[c as usize].iter().map(|p| p.0));
        if i > 0 {
            v.extend(self.east[(c - 1) as usize].iter().map(|p| p.1));
        }
        if j > 0 {
            v.extend(self.south[(c - self.cx) as usize].iter().map(|p| p.1));
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Reads the grid's edits since the last query and repairs the hierarchy.
    fn sync(&mut self, grid: &Grid) -> Result<(), GridError> {
        if grid.width() != self.width || grid.height() != self.height {
            return Err(invalid("grid", "not the size the hierarchy was built for"));
        }
        let key = grid.cache_key();
        if grid.areas().version() != self.area_version {
            self.area_version = grid.areas().version();
            self.seen = key;
            self.rebuild_all(grid);
            return Ok(());
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
            self.rebuild_all(grid);
            return Ok(());
        };
        let k = self.options.agent_size;
        let mut dirty = std::collections::BTreeSet::new();
        for e in edits {
            let (x, y) = grid.xy(e.cell);
            // The agent-size block whose passability the cell decides, one cell wider for
            // the diagonal rule.
            for yy in y.saturating_sub(k)..=(y + 1).min(self.height - 1) {
                for xx in x.saturating_sub(k)..=(x + 1).min(self.width - 1) {
                    dirty.insert(self.cluster_of(yy * self.width + xx));
                }
            }
        }
        let dirty: Vec<u32> = dirty.into_iter().collect();
        self.rebuild(grid, &dirty);
        Ok(())
    }

    /// The exact path inside the rectangle of the start's and goal's clusters when they
    /// are the same or neighbours (8-neighbourhood): short paths would otherwise detour
    /// through transitions. Computed at `begin`; not counted as iterations.
    fn direct_path(&self, view: &GridView<'_>, s: u32, t: u32) -> Option<(f64, Vec<u32>)> {
        let w = self.width;
        let (cs, ct) = (self.cluster_of(s), self.cluster_of(t));
        if (cs % self.cx).abs_diff(ct % self.cx) > 1 || (cs / self.cx).abs_diff(ct / self.cx) > 1 {
            return None;
        }
        let (a, b) = (self.bounds(cs), self.bounds(ct));
        let r = Bounds {
            x0: a.x0.min(b.x0),
            y0: a.y0.min(b.y0),
            x1: a.x1.max(b.x1),
            y1: a.y1.max(b.y1),
        };
        let (dist, parent) = cluster_dijkstra_until(view, w, r, s, false, Some(&[t]), |_| 0.0);
        let d = dist[r.local(w, t)];
        if !d.is_finite() {
            return None;
        }
        Some((d, parent_chain(w, r, &parent, s, t)?))
    }

    /// Shortens a refined path window by window, in place; returns whether it changed.
    ///
    /// A refined path is forced through a transition cell at every border it crosses, so
    /// it can bend where the optimum goes straight across (on maze512, clusters of 16, up
    /// to 1.246 x the optimum without this pass, 1.151 with it). A window is the longest
    /// piece `nodes[i..=j]` whose bounding box is at most one cluster on a side (so it
    /// straddles the borders the piece crosses); a piece already as cheap as the octile
    /// estimate between its ends is kept, otherwise the path from `nodes[i]` to `nodes[j]`
    /// inside the box found by A* (estimate weighted [`SMOOTH_WEIGHT`]) replaces the piece
    /// when it is strictly cheaper. The next window starts halfway through this one, so
    /// every border crossing lies inside a window with room on both sides. Each
    /// replacement only lowers the cost and the search moves as the grid does, so the
    /// result is a chain of allowed moves never longer than the refined path. Not counted
    /// as iterations.
    fn smooth(&self, view: &GridView<'_>, base: &Abstract, nodes: &mut Vec<u32>) -> bool {
        let w = self.width;
        let span = self.cluster;
        let mut changed = false;
        let mut i = 0;
        while i + 1 < nodes.len() {
            let (x, y) = (nodes[i] % w, nodes[i] / w);
            let (mut x0, mut y0, mut x1, mut y1) = (x, y, x, y);
            let mut j = i;
            while let Some(&c) = nodes.get(j + 1) {
                let (cx, cy) = (c % w, c / w);
                let (nx0, ny0, nx1, ny1) = (x0.min(cx), y0.min(cy), x1.max(cx), y1.max(cy));
                if nx1 - nx0 >= span || ny1 - ny0 >= span {
                    break;
                }
                (x0, y0, x1, y1) = (nx0, ny0, nx1, ny1);
                j += 1;
            }
            if j <= i + 1 {
                // A single move (or none fits the span): nothing to shorten here.
                i += 1;
                continue;
            }
            let b = Bounds {
                x0,
                y0,
                x1: x1 + 1,
                y1: y1 + 1,
            };
            let (a, t) = (nodes[i], nodes[j]);
            let old = path_cost(view, &nodes[i..=j]);
            let least = base.estimate_cells(a, t);
            if old - least <= 1e-9 * least {
                // Already as short as the estimate (a straight or octile piece): no
                // search can shorten it by more than rounding.
                if j + 1 >= nodes.len() {
                    break;
                }
                i = (i + j) / 2;
                continue;
            }
            let (dist, parent) = cluster_dijkstra_until(view, w, b, a, false, Some(&[t]), |c| {
                base.estimate_cells(c, t) * SMOOTH_WEIGHT
            });
            let d = dist[b.local(w, t)];
            if d < old {
                if let Some(piece) = parent_chain(w, b, &parent, a, t).filter(|p| p[0] == a) {
                    let len = piece.len();
                    nodes.splice(i..=j, piece);
                    j = i + len - 1;
                    changed = true;
                }
            }
            if j + 1 >= nodes.len() {
                break;
            }
            i = (i + j) / 2;
        }
        changed
    }

    /// The abstract graph of the transitions: every transition cell a node (numbered in
    /// the order the clusters' east then south transitions list them), the edges across
    /// each transition, then the intra-cluster edges, cluster by cluster.
    fn build_base(&self, grid: &Grid, view: &GridView<'_>) -> (Abstract, BTreeMap<u32, u32>) {
        let mut index: BTreeMap<u32, u32> = BTreeMap::new();
        let mut cells = Vec::new();
        let add = |cell: u32, index: &mut BTreeMap<u32, u32>, cells: &mut Vec<u32>| -> u32 {
            *index.entry(cell).or_insert_with(|| {
                cells.push(cell);
                (cells.len() - 1) as u32
            })
        };
        let mut edges: Vec<(u32, u32, f64)> = Vec::new();
        let mut buf = Vec::new();
        for c in 0..(self.cx * self.cy) as usize {
            for &(a, b) in self.east[c].iter().chain(self.south[c].iter()) {
                let (ia, ib) = (
                    add(a, &mut index, &mut cells),
                    add(b, &mut index, &mut cells),
                );
                for (p, q, ip, iq) in [(a, b, ia, ib), (b, a, ib, ia)] {
                    buf.clear();
                    view.successors(p, &mut buf);
                    if let Some(&(_, cost)) = buf.iter().find(|e| e.0 == q) {
                        edges.push((ip, iq, cost));
                    }
                }
            }
        }
        for c in 0..(self.cx * self.cy) as usize {
            for &(a, b, d) in &self.intra[c] {
                let (ia, ib) = (
                    add(a, &mut index, &mut cells),
                    add(b, &mut index, &mut cells),
                );
                edges.push((ia, ib, d));
            }
        }
        let n = cells.len();
        let mut fwd = vec![Vec::new(); n];
        let mut bwd = vec![Vec::new(); n];
        for &(a, b, d) in &edges {
            fwd[a as usize].push((b, d));
            bwd[b as usize].push((a, d));
        }
        let abs = Abstract {
            cells,
            fwd,
            bwd,
            width: self.width,
            eight: self.options.connectivity == Connectivity::Eight,
            min_mult: grid.areas().min_multiplier(),
        };
        (abs, index)
    }

    /// A query's start and goal nodes and their edges (`None` when start or goal is
    /// impassable): start to the nodes of its cluster (and to the goal when it lies
    /// there), the nodes of the goal's cluster to the goal, by in-cluster Dijkstra.
    fn query_nodes(
        &self,
        view: &GridView<'_>,
        base: &(Abstract, BTreeMap<u32, u32>),
        s: u32,
        t: u32,
    ) -> Option<QueryNodes> {
        let w = self.width;
        if !view.is_passable(s) || !view.is_passable(t) {
            return None;
        }
        let (abs, index) = base;
        let n = abs.cells.len() as u32;
        let mut cells = Vec::new();
        let node_of = |cell: u32, cells: &mut Vec<u32>| -> u32 {
            if let Some(&i) = index.get(&cell) {
                return i;
            }
            match cells.iter().position(|&c| c == cell) {
                Some(k) => n + k as u32,
                None => {
                    cells.push(cell);
                    n + cells.len() as u32 - 1
                }
            }
        };
        let is = node_of(s, &mut cells);
        let it = node_of(t, &mut cells);
        let (cs, ct) = (self.cluster_of(s), self.cluster_of(t));
        let (bs, bt) = (self.bounds(cs), self.bounds(ct));
        let mut from_start = Vec::new();
        let start_targets: Vec<u32> = self
            .nodes_of(cs)
            .into_iter()
            .chain(std::iter::once(t))
            .collect();
        let (from_s, parent_s) =
            cluster_dijkstra_until(view, w, bs, s, false, Some(&start_targets), |_| 0.0);
        for &z in &start_targets {
            if bs.contains(w, z) && z != s {
                let d = from_s[bs.local(w, z)];
                if d.is_finite() {
                    from_start.push((node_of(z, &mut cells), d));
                }
            }
        }
        let mut to_goal = Vec::new();
        let goal_targets = self.nodes_of(ct);
        let (to_t, _) = cluster_dijkstra_until(view, w, bt, t, true, Some(&goal_targets), |_| 0.0);
        for &z in &goal_targets {
            if z != t {
                let d = to_t[bt.local(w, z)];
                if d.is_finite() {
                    to_goal.push((node_of(z, &mut cells), d));
                }
            }
        }
        Some(QueryNodes {
            cells,
            start: is,
            goal: it,
            from_start,
            to_goal,
            start_tree: ParentSteps::new(bs, &parent_s),
        })
    }

    fn refine_on(&mut self, grid: &Grid, q: &HpaQuery) -> GridPath {
        let mut cache = std::mem::take(&mut self.cache);
        let options = self.options.clone();
        let view = GridView::new(grid, &options, &mut cache);
        let r = self.refine(&view, q);
        self.cache = cache;
        r
    }

    /// The result of the query without refining: the abstract search's counters and
    /// status (the direct path when the abstract search found none), and the abstract
    /// result when it found a path, which [`HpaStar::refine`] turns into cells.
    fn unfinished(&self, q: &HpaQuery) -> (GridPath, Option<GridPath>) {
        let mut none = GridPath {
            status: GridPathStatus::NoPath,
            nodes: Vec::new(),
            cost: 0.0,
            expanded: 0,
            iterations: 0,
            expansions: self.options.record_expansions.then(Vec::new),
        };
        let (Some(qn), Some((base, _))) = (&q.abs, &self.base) else {
            return (none, None);
        };
        let abs = QueryGraph { base, q: qn };
        let ar = self.core.result();
        none.expanded = ar.expanded;
        none.iterations = ar.iterations;
        none.expansions = ar
            .expansions
            .as_ref()
            .map(|e| e.iter().map(|&i| abs.cell(i)).collect());
        if ar.status != GridPathStatus::Found {
            none.status = ar.status;
            if ar.status == GridPathStatus::NoPath {
                if let Some((c, n)) = &q.direct {
                    none.status = GridPathStatus::Found;
                    none.cost = *c;
                    none.nodes = n.clone();
                }
            }
            return (none, None);
        }
        // Found: the caller refines; `none` keeps the counters for a failed refinement.
        none.status = GridPathStatus::NoPath;
        (none, Some(ar))
    }

    fn refine(&self, view: &GridView<'_>, q: &HpaQuery) -> GridPath {
        let w = self.width;
        let s = q.start;
        let mut buf = Vec::new();
        let (none, found) = self.unfinished(q);
        let (Some(ar), Some(qn), Some((base, _))) = (found, &q.abs, &self.base) else {
            return none;
        };
        let abs = QueryGraph { base, q: qn };
        // Refine: each abstract hop inside one cluster (or across one transition).
        let mut nodes = vec![s];
        let mut cost = 0.0;
        for hop in ar.nodes.windows(2) {
            let (a, b) = (abs.cell(hop[0]), abs.cell(hop[1]));
            let ca = self.cluster_of(a);
            let bounds = self.bounds(ca);
            if !bounds.contains(w, b) {
                buf.clear();
                view.successors(a, &mut buf);
                let c = buf.iter().find(|e| e.0 == b).map_or(0.0, |e| e.1);
                cost += c;
                nodes.push(b);
                continue;
            }
            // The in-cluster Dijkstra from `a`: kept from the hierarchy's build for a
            // transition cell, from `begin` for the start.
            let tree = self.trees[ca as usize]
                .binary_search_by_key(&a, |t| t.0)
                .ok()
                .map(|k| &self.trees[ca as usize][k].1)
                .or((a == s).then_some(&qn.start_tree));
            let Some(tree) = tree else {
                // Not reached: every hop starts at the start or a transition cell.
                return none;
            };
            let mut seg = Vec::new();
            let mut cur = bounds.local(w, b);
            let start_local = bounds.local(w, a);
            let mut reached = true;
            while cur != start_local && seg.len() <= bounds.size() {
                seg.push(bounds.global(w, cur));
                let p = tree.parent(bounds, cur);
                if p == u32::MAX {
                    reached = false;
                    break;
                }
                cur = p as usize;
            }
            seg.reverse();
            // The search's distance to `b`, summed again along its parent chain from `a`
            // in the search's own order: bit for bit the same value.
            let mut d = 0.0;
            let mut prev = a;
            for &q in &seg {
                buf.clear();
                view.successors(prev, &mut buf);
                d += buf.iter().find(|e| e.0 == q).map_or(f64::INFINITY, |e| e.1);
                prev = q;
            }
            cost += if reached { d } else { f64::INFINITY };
            nodes.extend(seg);
        }
        if cost.is_finite() && self.smooth(view, base, &mut nodes) {
            cost = path_cost(view, &nodes);
        }
        if let Some((c, n)) = &q.direct {
            if *c <= cost {
                nodes = n.clone();
                cost = *c;
            }
        }
        GridPath {
            status: GridPathStatus::Found,
            nodes,
            cost,
            expanded: none.expanded,
            iterations: none.iterations,
            expansions: none.expansions,
        }
    }
}

/// Sliced HPA* on a grid; cells as (x, y).
impl SlicedSearch<Grid> for HpaStar {
    type Point = (u32, u32);

    fn one_shot_budget(&self) -> u64 {
        self.options.step_budget()
    }

    /// Begins a sliced query: repairs the hierarchy if the grid was edited, links start
    /// and goal into the abstract graph and starts the abstract search.
    fn begin(&mut self, grid: &Grid, start: (u32, u32), goal: (u32, u32)) -> Result<(), GridError> {
        self.sync(grid)?;
        let s = grid.index(start.0, start.1)?;
        let t = grid.index(goal.0, goal.1)?;
        let mut cache = std::mem::take(&mut self.cache);
        let options = self.options.clone();
        let view = GridView::new(grid, &options, &mut cache);
        if self.base.is_none() {
            self.base = Some(self.build_base(grid, &view));
        }
        let abs = match &self.base {
            Some(base) => self.query_nodes(&view, base, s, t),
            None => None,
        };
        let direct = if abs.is_some() {
            self.direct_path(&view, s, t)
        } else {
            None
        };
        self.cache = cache;
        if let (Some(q), Some((base, _))) = (&abs, &self.base) {
            let g = QueryGraph { base, q };
            self.core
                .begin(&g, q.start, q.goal, 1.0, self.options.record_expansions);
        }
        let mut q = HpaQuery {
            start: s,
            abs,
            direct,
            finished: None,
        };
        if q.abs.is_none() {
            // No abstract search to run: the answer is known now.
            q.finished = Some(self.refine_on(grid, &q));
        }
        self.query = Some(q);
        self.began = Began::on(grid.space_key());
        Ok(())
    }

    /// Runs at most `max_iterations` iterations of the abstract search; a finished search
    /// is refined into cells here, while the grid is at hand.
    fn step(&mut self, grid: &Grid, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.began.check(grid.space_key())?;
        let Some(mut q) = self.query.take() else {
            return Err(GridError::NotBegun);
        };
        let status = match (&q.abs, &self.base) {
            (Some(q), Some((base, _))) => self.core.step(&QueryGraph { base, q }, max_iterations),
            _ => SearchStatus::NoPath,
        };
        if status != SearchStatus::InProgress && q.finished.is_none() {
            q.finished = Some(self.refine_on(grid, &q));
        }
        self.query = Some(q);
        Ok(status)
    }

    /// The result so far: the refined path once the search finished, else the abstract
    /// search's counters (`BudgetExhausted`).
    fn result(&self) -> Result<GridPath, GridError> {
        self.began.begun()?;
        let Some(q) = &self.query else {
            return Err(GridError::NotBegun);
        };
        Ok(match &q.finished {
            Some(r) => r.clone(),
            None => self.unfinished(q).0,
        })
    }
}

/// The state of one HPA* query.
#[derive(Debug, Clone)]
struct HpaQuery {
    start: u32,
    /// Start and goal in the abstract graph (`None` when either is impassable).
    abs: Option<QueryNodes>,
    /// For start and goal in the same or neighbouring clusters: the exact path inside the
    /// rectangle of their clusters (cost, cells), found at `begin`.
    direct: Option<(f64, Vec<u32>)>,
    /// The result, once the search finished (refined when `step` finished it).
    finished: Option<GridPath>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An open 16 × 48 grid, clusters of 16: every border is one run of 16 crossable
    /// pairs, so its transitions are its two end pairs (x = 0 and x = 15). From (8, 14) to
    /// (8, 33) (clusters that are not neighbours, so no direct path is searched) the
    /// refined path walks out to a corner transition at both borders: (8, 14) to (15, 15)
    /// (6 + √2), across, down x = 15 to (15, 32) (17), back to (8, 33) (6 + √2), 31.83
    /// against the optimum 19. The first smoothing window (the piece up to (15, 29), one
    /// cluster high) is cheaper cut diagonally, and so on: the answer must be cheaper
    /// than the refined path, a chain of moves, from start to goal.
    #[test]
    fn smoothing_frees_border_crossings_from_the_transition_cells() {
        let grid = Grid::new(16, 48).unwrap();
        let mut hpa = HpaStar::new(&grid, 16, GridOptions::default()).unwrap();
        assert_eq!(hpa.east[0], Vec::new());
        assert_eq!(
            hpa.south[0],
            vec![(15 * 16, 16 * 16), (15 * 16 + 15, 16 * 16 + 15)]
        );
        let r = hpa.find_path(&grid, (8, 14), (8, 33)).unwrap();
        assert_eq!(r.status, GridPathStatus::Found);
        let refined = 2.0 * (6.0 + std::f64::consts::SQRT_2) + 17.0;
        assert!(r.cost < refined - 1.0, "{} not below {refined}", r.cost);
        assert!(r.cost >= 19.0);
        let xy = grid.path_xy(&r);
        assert_eq!((xy[0], xy[xy.len() - 1]), ((8, 14), (8, 33)));
        let walked: f64 = xy
            .windows(2)
            .map(|m| {
                let (dx, dy) = (m[0].0.abs_diff(m[1].0), m[0].1.abs_diff(m[1].1));
                assert!(dx <= 1 && dy <= 1 && dx + dy > 0, "not a move: {m:?}");
                if dx + dy == 2 {
                    std::f64::consts::SQRT_2
                } else {
                    1.0
                }
            })
            .sum();
        assert!(
            (walked - r.cost).abs() < 1e-9,
            "walked {walked}, reported {}",
            r.cost
        );
    }
}
