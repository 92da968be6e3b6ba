//! Path model v2 (opt-in, [`PathModel::Portals`]): A* over **portal crossings** instead of
//! polygon centres. A state is a point on a crossing between two polygons (one of `k`
//! samples spread along the edge crossing, `k` chosen from the crossing's length), together
//! with the polygon the path has just entered there. Leaving a state through another
//! crossing of that polygon costs `cost(area) · |from − sample|`, so a path's cost is the
//! length (weighted by area cost) of a polyline from `start_pos` through one sample per
//! crossing to `end_pos`. The graph is fixed for a search (it depends on the mesh, the
//! filter and the ends only), so the answer is the optimum of that graph and equals a plain
//! Dijkstra's (tested). Sliced and one-shot searches run the same code.
//!
//! The written rules are in `docs/navmesh-queries.md` ("Cost model v2: portal crossings").

use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

use onepath_format::PolyRef;

use crate::mesh::TiledNavMesh;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{dist as dist_3d, dist_sqr_2d, lerp, Vec3};

/// The X/Z distance: the metric of model v2 inside polygons (the one the string pulling
/// shortens).
#[inline]
fn dist(a: Vec3, b: Vec3) -> f64 {
    dist_sqr_2d(a, b).sqrt()
}
use crate::query::graph::{for_each_neighbour_at, Crossing, PathEnds, PathGraph, HEURISTIC_SCALE};
use crate::query::nodepool::{RefHasher, NO_PARENT};
use crate::query::openlist::RunOpenList;
use crate::query::path::{PathResult, PathStatus};
use crate::query::poly::{decode, tie_key};
use crate::query::portal_landmarks::{Active, PortalLandmarks, NO_NODE};

/// Which cost model the path searches of a [`crate::query::NavMeshQuery`] optimise
/// ([`crate::query::NavMeshQuery::set_path_model`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum PathModel {
    /// Model v1: one position per polygon (its centre; `start_pos` / `end_pos` for the
    /// ends), edges through crossing midpoints (`docs/navmesh-queries.md`, "Cost model").
    #[default]
    Centres,
    /// Model v2: states on the portal crossings, sampled as [`PortalSampling`] says.
    Portals(PortalSampling),
}

/// How model v2 places its samples on an edge crossing of length `len` (a portal's covered
/// part, or a whole shared edge): `k = 1` when `len <= spacing`, otherwise
/// `k = min(max_samples, ceil(len / spacing))`; sample `i` (of `0..k`) lies at
/// `left + (right − left) · (2i + 1) / (2k)` (a single sample is the midpoint). An off-mesh
/// link has one state, at its arrival point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PortalSampling {
    /// Crossing length per sample, world units (> 0, finite; anything else counts as
    /// "one sample per crossing").
    pub spacing: f64,
    /// Most samples on one crossing (0 counts as 1).
    pub max_samples: u8,
}

impl PortalSampling {
    /// The documented default for a mesh built for agents of radius `agent_radius`:
    /// `spacing = SPACING_RADII × agent_radius` (or [`PortalSampling::FALLBACK_SPACING`] when
    /// the radius is not positive), [`PortalSampling::MAX_SAMPLES`] samples at most.
    pub fn for_agent_radius(agent_radius: f64) -> PortalSampling {
        let spacing = if agent_radius > 0.0 && agent_radius.is_finite() {
            agent_radius * Self::SPACING_RADII
        } else {
            Self::FALLBACK_SPACING
        };
        PortalSampling {
            spacing,
            max_samples: Self::MAX_SAMPLES,
        }
    }

    /// The default spacing in agent radii.
    pub const SPACING_RADII: f64 = 2.0;
    /// The spacing when the mesh records no agent radius (world units).
    pub const FALLBACK_SPACING: f64 = 1.2;
    /// The default cap of samples per crossing.
    pub const MAX_SAMPLES: u8 = 8;

    /// Calls `f(k, i, sample)` for each of the `k` samples `i` of the edge crossing from
    /// `left` to `right` (the search's and the landmark table's one expression).
    pub(crate) fn for_each_sample(&self, left: Vec3, right: Vec3, mut f: impl FnMut(u8, u8, Vec3)) {
        let k = self.samples(dist_3d(left, right));
        let kf = f64::from(k);
        for i in 0..k {
            let t = (2.0 * f64::from(i) + 1.0) / (2.0 * kf);
            f(k, i, lerp(left, right, t));
        }
    }

    /// The number of samples on a crossing of length `len`.
    pub fn samples(&self, len: f64) -> u8 {
        let max = self.max_samples.max(1);
        if !(self.spacing > 0.0 && self.spacing.is_finite() && len > self.spacing) {
            return 1;
        }
        let k = (len / self.spacing).ceil();
        if k >= f64::from(max) {
            max
        } else {
            // 1 < k < max <= 255: exact.
            k as u8
        }
    }
}

/// The "from" of the start state and of the goal state (no real polygon has reference 0).
const NO_POLY: PolyRef = PolyRef(0);
/// The sample number of the goal state.
const GOAL_SAMPLE: u8 = u8::MAX;

/// One state of the v2 search.
#[derive(Debug, Clone, Copy)]
struct PortalNode {
    /// The polygon the path is in at this state.
    poly: PolyRef,
    /// The polygon it came from ([`NO_POLY`] for the start and the goal): the state has no
    /// edge back into it.
    came_from: PolyRef,
    /// The sample number of the state (0 for the start, [`GOAL_SAMPLE`] for the goal).
    i: u8,
    /// The state's point (a sample on the crossing into `poly`, `start_pos`, `end_pos`).
    pos: Vec3,
    g: f64,
    /// `|pos − end_pos|`.
    d: f64,
    /// The estimate the state's open entries carry: the straight-line estimate until the
    /// state is first popped, then the larger of it and the landmark estimate.
    h: f64,
    /// The crossing-graph node whose landmark estimate is still to be taken when the state
    /// is first popped ([`NO_NODE`]: none, or taken).
    xing: u32,
    parent: u32,
    closed: bool,
}

/// A state's key: (polygon entered, polygon left, sample).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StateKey(PolyRef, PolyRef, u8);

impl Hash for StateKey {
    #[inline]
    fn hash<H: Hasher>(&self, h: &mut H) {
        // One mixing round (the index is only looked up, never iterated).
        h.write_u64(self.0 .0 ^ self.1 .0.rotate_left(29) ^ (u64::from(self.2) << 56));
    }
}

/// State key → node: only used to re-attach the states of a search whose mesh changed
/// while it was sliced (the dense index lives in [`Sample::state`]).
type StateIndex = HashMap<StateKey, u32, BuildHasherDefault<RefHasher>>;

/// One sample of a crossing of an expanded polygon, as the search reads it: the target
/// polygon, the sample number, the point measured from (`depart`: the sample, or a link's
/// departure point), the state's point (`arrive`: the sample, or the link's arrival) and
/// the fixed part of the cost (0, or `cost(link)·|start − end|`).
#[derive(Debug, Clone, Copy)]
struct Sample {
    target: PolyRef,
    i: u8,
    /// The offset (within its polygon's block) of the first sample of the block with the
    /// same `(target, i)`: the slot that holds the state of this key.
    canon: u32,
    /// The dense state index: the node of the state `(target, expanded polygon, i)` in
    /// the search numbered `stamp` (any other stamp: no node yet in the current search;
    /// only read on the canonical sample of a key).
    state: u32,
    /// The [`PortalSearch::search`] number `state` belongs to.
    stamp: u32,
    /// The crossing-graph node of the crossing ([`NO_NODE`] for none).
    node: u32,
    depart: Vec3,
    arrive: Vec3,
    extra: f64,
}

/// Polygon → (first sample, sample count, area cost) for the mesh state, filter and sampling
/// of [`SampleKey`].
type PolyCache = HashMap<PolyRef, (u32, u32, f64), BuildHasherDefault<RefHasher>>;

/// What the sample blocks of [`PortalSearch`] are a function of: the mesh state
/// ([`TiledNavMesh::state_id`], process-unique), the filter and the sampling.
/// The landmark table of `portal_landmarks` is keyed the same way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SampleKey {
    pub(crate) state: u64,
    pub(crate) filter: QueryFilter,
    pub(crate) sampling: PortalSampling,
}

#[derive(Debug, Clone, Copy)]
struct PortalState {
    ends: PathEnds,
    sampling: PortalSampling,
    status: PathStatus,
    best: u32,
    /// The closest state's `d`, `g` and polygon tie key (kept with `best`, so that the
    /// closest-state rule reads no node).
    best_d: f64,
    best_g: f64,
    best_tie: u64,
    goal: Option<u32>,
    /// The `f` of the goal state's newest open entry (meaningful once `goal` is set).
    goal_f: f64,
    iterations: u64,
    checked_state: u64,
}

/// The buffers and the state of one v2 search (kept in the query object, reused).
#[derive(Debug, Default, Clone)]
pub(crate) struct PortalSearch {
    nodes: Vec<PortalNode>,
    index: StateIndex,
    open: RunOpenList,
    state: Option<PortalState>,
    scratch: Vec<PolyRef>,
    /// The samples of the crossings of every polygon expanded so far (computed once per
    /// polygon and kept across searches while [`PortalSearch::key`] stays the same; dropped
    /// when a search begins or steps with another mesh state, filter or sampling). Each
    /// holds the node of its state in the current search, so a relaxation reads its state
    /// without hashing.
    samples: Vec<Sample>,
    polys: PolyCache,
    /// What `samples` and `polys` were computed for (`None`: nothing cached).
    key: Option<SampleKey>,
    /// The number of the current search (stamps [`Sample::state`]; advanced on every
    /// begin, so that no per-search clear of the blocks is needed).
    search: u32,
    /// The landmark table of the mesh state and filter of `key` (built with the blocks'
    /// key; see `portal_landmarks`).
    landmarks: Option<Box<PortalLandmarks>>,
    /// The current search's active landmarks.
    active: Active,
    /// Landmark estimates are on ([`PortalSearch::set_landmarks`]).
    use_landmarks: bool,
}

/// The relaxation of the successors of one expanded state (a function rather than a
/// closure so that it is inlined into the sample loop).
struct Relax<'a> {
    nodes: &'a mut Vec<PortalNode>,
    open: &'a mut RunOpenList,
    /// The expanded state and its `g`.
    parent: u32,
    parent_g: f64,
    end_pos: Vec3,
    h_scale: f64,
    has_table: bool,
}

impl Relax<'_> {
    /// Relaxes the state `key` (`GOAL`: it is the goal state; `slot`: its node, [`NO_PARENT`] for none yet, written when it
    /// is made; `pos`: its point; `xing`: its crossing-graph node) over an edge of `cost`.
    #[inline(always)]
    fn relax<const GOAL: bool>(
        &mut self,
        key: StateKey,
        slot: &mut u32,
        pos: Vec3,
        xing: u32,
        cost: f64,
        st: &mut PortalState,
    ) {
        let nodes = &mut *self.nodes;
        let g = self.parent_g + cost;
        let (i, d, h) = match *slot {
            i if i != NO_PARENT => {
                let n = &mut nodes[i as usize];
                if !(g < n.g) {
                    return;
                }
                n.g = g;
                n.parent = self.parent;
                n.closed = false;
                (i, n.d, n.h)
            }
            _ => {
                let d = dist(pos, self.end_pos);
                let h = d * self.h_scale;
                let i = nodes.len() as u32;
                nodes.push(PortalNode {
                    poly: key.0,
                    came_from: key.1,
                    i: key.2,
                    pos,
                    g,
                    d,
                    h,
                    xing: if self.has_table { xing } else { NO_NODE },
                    parent: self.parent,
                    closed: false,
                });
                *slot = i;
                (i, d, h)
            }
        };
        let f = g + h;
        if GOAL {
            st.goal = Some(i);
            st.goal_f = f;
            self.open.add(f, g, key.0, i);
        } else if st.goal.is_none() || f.total_cmp(&st.goal_f) != Ordering::Greater {
            self.open.add(f, g, key.0, i);
        }
        // Otherwise the entry is not pushed: the open list pops in `f` order first
        // (`order_key`, i.e. `total_cmp`), so the goal's entry (whose `f` only decreases: a
        // goal improved is pushed again with a smaller one) pops before this one would and
        // the search ends there. The state itself is recorded as before (its `g` and parent
        // count for later relaxations, the closest state and a budget-ended search's path),
        // so no pop, iteration or answer changes.
        // `best_*` are the closest state's values: its `g` can only change here, and a
        // state improved that is the closest one compares as closer than its old values
        // (same `d`, smaller `g`), so they are updated with it.
        let tie = tie_key(key.0);
        let better = d
            .total_cmp(&st.best_d)
            .then(g.total_cmp(&st.best_g))
            .then(tie.cmp(&st.best_tie))
            == Ordering::Less;
        if better {
            st.best = i;
            st.best_d = d;
            st.best_g = g;
            st.best_tie = tie;
        }
    }
}

impl PortalSearch {
    /// True while a v2 search is begun and not finished.
    pub(crate) fn active(&self) -> bool {
        self.state.is_some()
    }

    /// Turns landmark estimates on or off for searches begun from now on (off drops the
    /// table; the kept sample blocks are dropped either way, since they carry the table's
    /// node numbers).
    pub(crate) fn set_landmarks(&mut self, on: bool) {
        if on != self.use_landmarks {
            self.use_landmarks = on;
            self.landmarks = None;
            self.samples.clear();
            self.polys.clear();
            self.key = None;
        }
    }

    /// Whether landmark estimates are on.
    pub(crate) fn landmarks_on(&self) -> bool {
        self.use_landmarks
    }

    /// Drops the current search, if any.
    pub(crate) fn cancel(&mut self) {
        self.state = None;
    }

    /// Begins a search (the ends are checked by `PathGraph::new`).
    pub(crate) fn begin(
        &mut self,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        ends: PathEnds,
        sampling: PortalSampling,
    ) -> Result<PathStatus, QueryError> {
        self.state = None;
        PathGraph::new(mesh, filter, ends)?;
        self.nodes.clear();
        self.index.clear();
        let key = SampleKey {
            state: mesh.state_id(),
            filter: *filter,
            sampling,
        };
        self.search = self.search.wrapping_add(1);
        if self.key != Some(key) || self.search == 0 {
            // Another graph (or the stamps wrapped): no block can be reused.
            self.samples.clear();
            self.polys.clear();
            self.key = Some(key);
            self.search = 1;
        }
        self.fit_landmarks(mesh, key, ends);
        self.open.reset();
        let d = dist(ends.start_pos, ends.end_pos);
        self.nodes.push(PortalNode {
            poly: ends.start_ref,
            came_from: NO_POLY,
            i: 0,
            pos: ends.start_pos,
            g: 0.0,
            d,
            h: d * filter.min_area_cost() * HEURISTIC_SCALE,
            xing: NO_NODE,
            parent: NO_PARENT,
            closed: false,
        });
        let h = d * filter.min_area_cost() * HEURISTIC_SCALE;
        self.open.add(h, 0.0, ends.start_ref, 0);
        self.open.push_run();
        self.state = Some(PortalState {
            ends,
            sampling,
            status: PathStatus::InProgress,
            best: 0,
            best_d: d,
            best_g: 0.0,
            best_tie: tie_key(ends.start_ref),
            goal: None,
            goal_f: f64::INFINITY,
            iterations: 0,
            checked_state: mesh.state_id(),
        });
        Ok(PathStatus::InProgress)
    }

    /// Up to `max_iterations` iterations (one state popped and expanded each).
    pub(crate) fn step(
        &mut self,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        max_iterations: u64,
    ) -> Result<(PathStatus, u64), QueryError> {
        let Some(mut st) = self.state else {
            return Err(QueryError::NoSlicedSearch);
        };
        if st.status != PathStatus::InProgress {
            return Ok((st.status, 0));
        }
        if mesh.state_id() != st.checked_state {
            if let Err(e) = PathGraph::new(mesh, filter, st.ends) {
                self.state = None;
                return Err(e);
            }
            st.checked_state = mesh.state_id();
            self.samples.clear();
            self.polys.clear();
            self.refit_mid_search(
                mesh,
                SampleKey {
                    state: mesh.state_id(),
                    filter: *filter,
                    sampling: st.sampling,
                },
                st.ends,
            );
            self.key = Some(SampleKey {
                state: st.checked_state,
                filter: *filter,
                sampling: st.sampling,
            });
            // The blocks rebuilt from now on find their states here.
            self.index.clear();
            for (i, n) in self.nodes.iter().enumerate() {
                if n.came_from != NO_POLY {
                    self.index
                        .insert(StateKey(n.poly, n.came_from, n.i), i as u32);
                }
            }
        }
        let res = self.run(mesh, filter, &mut st, max_iterations);
        match res {
            Ok(_) => self.state = Some(st),
            Err(_) => self.state = None,
        }
        res
    }

    fn run(
        &mut self,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        st: &mut PortalState,
        max_iterations: u64,
    ) -> Result<(PathStatus, u64), QueryError> {
        let h_scale = filter.min_area_cost() * HEURISTIC_SCALE;
        let ends = st.ends;
        let sampling = st.sampling;
        let gen = self.search;
        if self.key
            != Some(SampleKey {
                state: mesh.state_id(),
                filter: *filter,
                sampling,
            })
        {
            // Stepped with another filter than the search began with: its blocks are not
            // the cached ones (the states of this search re-attach through the index).
            self.samples.clear();
            self.polys.clear();
            self.refit_mid_search(
                mesh,
                SampleKey {
                    state: mesh.state_id(),
                    filter: *filter,
                    sampling,
                },
                ends,
            );
            self.index.clear();
            for (i, n) in self.nodes.iter().enumerate() {
                if n.came_from != NO_POLY {
                    self.index
                        .insert(StateKey(n.poly, n.came_from, n.i), i as u32);
                }
            }
            self.key = Some(SampleKey {
                state: mesh.state_id(),
                filter: *filter,
                sampling,
            });
        }
        let mut done = 0;
        while done < max_iterations {
            let Some(e) = self.open.pop() else {
                st.status = PathStatus::Partial;
                break;
            };
            let node = self.nodes[e.node as usize];
            if node.closed || e.g != node.g {
                continue;
            }
            if node.xing != NO_NODE {
                // The landmark estimate, taken the first time the state comes up (most
                // states never do): when it is larger, the state goes back with it.
                let n = &mut self.nodes[e.node as usize];
                n.xing = NO_NODE;
                if let Some(t) = self.landmarks.as_deref() {
                    let h = t.estimate(&self.active, node.xing);
                    if h > node.h {
                        n.h = h;
                        self.open.add(node.g + h, node.g, node.poly, e.node);
                        self.open.push_run();
                        continue;
                    }
                }
            }
            done += 1;
            st.iterations += 1;
            self.nodes[e.node as usize].closed = true;
            if st.goal == Some(e.node) {
                st.status = PathStatus::Complete;
                break;
            }
            let from = node.poly;
            let (first, count, ca) = match self.polys.get(&from) {
                Some(&c) => c,
                None => {
                    let (tile, p) = decode(mesh, from)?;
                    let ca = filter.area_cost(tile.tile().areas()[p]);
                    let first = self.samples.len() as u32;
                    let samples = &mut self.samples;
                    let table = self.landmarks.as_deref();
                    let row = table.map_or(NO_NODE, |t| t.row(tile.slot(), p));
                    for_each_neighbour_at(mesh, tile, p, filter, |nb, tt, tp| {
                        let trow = table.map_or(NO_NODE, |t| t.row(tt.slot(), tp));
                        let node_of =
                            |k: u8, i: u8| table.map_or(NO_NODE, |t| t.node(row, trow, k, i));
                        match nb.crossing {
                            Crossing::Edge { left, right, .. } => {
                                sampling.for_each_sample(left, right, |k, i, s| {
                                    samples.push(Sample {
                                        target: nb.target,
                                        i,
                                        canon: 0,
                                        state: NO_PARENT,
                                        stamp: gen,
                                        node: node_of(k, i),
                                        depart: s,
                                        arrive: s,
                                        extra: 0.0,
                                    });
                                });
                            }
                            Crossing::OffMesh {
                                start, end, area, ..
                            } => samples.push(Sample {
                                target: nb.target,
                                i: 0,
                                canon: 0,
                                state: NO_PARENT,
                                stamp: gen,
                                node: node_of(0, 0),
                                depart: start,
                                arrive: end,
                                extra: filter.area_cost(area) * dist_3d(start, end),
                            }),
                        }
                    });
                    let block = &mut self.samples[first as usize..];
                    for j in 0..block.len() {
                        let (t, i) = (block[j].target, block[j].i);
                        let canon = block[..j]
                            .iter()
                            .position(|o| o.target == t && o.i == i)
                            .unwrap_or(j);
                        block[j].canon = canon as u32;
                        if canon == j && !self.index.is_empty() {
                            if let Some(&n) = self.index.get(&StateKey(t, from, i)) {
                                block[j].state = n;
                                block[j].stamp = gen;
                            }
                        }
                    }
                    let c = (first, self.samples.len() as u32 - first, ca);
                    self.polys.insert(from, c);
                    c
                }
            };
            let mut relax = Relax {
                nodes: &mut self.nodes,
                open: &mut self.open,
                parent: e.node,
                parent_g: node.g,
                end_pos: ends.end_pos,
                h_scale,
                has_table: self.landmarks.is_some(),
            };
            if from == ends.end_ref {
                let cost = ca * dist(node.pos, ends.end_pos);
                let mut slot = st.goal.unwrap_or(NO_PARENT);
                let key = StateKey(from, NO_POLY, GOAL_SAMPLE);
                relax.relax::<true>(key, &mut slot, ends.end_pos, NO_NODE, cost, st);
            }
            let back = node.came_from;
            let block = &mut self.samples[first as usize..(first + count) as usize];
            for j in 0..block.len() {
                let s = block[j];
                if s.target != back {
                    let cost = ca * dist(node.pos, s.depart) + s.extra;
                    let c = &mut block[s.canon as usize];
                    let mut slot = if c.stamp == gen { c.state } else { NO_PARENT };
                    let was = slot;
                    relax.relax::<false>(
                        StateKey(s.target, from, s.i),
                        &mut slot,
                        s.arrive,
                        s.node,
                        cost,
                        st,
                    );
                    if slot != was {
                        c.state = slot;
                        c.stamp = gen;
                    }
                }
            }
            // The expansion's entries enter the open list as one run (same pop order).
            self.open.push_run();
        }
        if st.status == PathStatus::InProgress {
            while let Some(e) = self.open.peek() {
                let n = &self.nodes[e.node as usize];
                if n.closed || e.g != n.g {
                    self.open.pop();
                } else {
                    break;
                }
            }
            if self.open.is_empty() {
                st.status = PathStatus::Partial;
            }
        }
        Ok((st.status, done))
    }

    /// Makes the landmark table fit `key` (building it when the kept one was built for
    /// another; none while landmarks are off) and activates the landmarks for `ends`.
    fn fit_landmarks(&mut self, mesh: &TiledNavMesh, key: SampleKey, ends: PathEnds) {
        if !self.use_landmarks {
            self.landmarks = None;
        } else if !self.landmarks.as_ref().is_some_and(|t| t.fits(&key)) {
            self.landmarks = Some(Box::new(PortalLandmarks::build(mesh, key)));
        }
        self.active = Active::default();
        // The ends were checked by `PathGraph::new`; an end that no longer decodes (a
        // sliced search on a changed mesh) activates nothing.
        if let (Some(t), Ok((st, sp)), Ok((gt, gp))) = (
            &self.landmarks,
            decode(mesh, ends.start_ref),
            decode(mesh, ends.end_ref),
        ) {
            self.active = t.activate(
                t.row(st.slot(), sp),
                ends.start_pos,
                t.row(gt.slot(), gp),
                ends.end_pos,
            );
        }
    }

    /// After the mesh or the filter changed during a sliced search: the table of the new
    /// key (the blocks built from now on carry its nodes) and the landmarks activated
    /// again. The states reached before keep the estimates they carry and take no landmark
    /// estimate later: their nodes were the old table's.
    fn refit_mid_search(&mut self, mesh: &TiledNavMesh, key: SampleKey, ends: PathEnds) {
        for n in &mut self.nodes {
            n.xing = NO_NODE;
        }
        self.fit_landmarks(mesh, key, ends);
    }

    /// Ends the search and writes its polygon path (see `NavMeshQuery::finish_path`).
    pub(crate) fn finish(
        &mut self,
        existing: Option<&[PolyRef]>,
        path: &mut Vec<PolyRef>,
    ) -> Result<PathResult, QueryError> {
        let Some(st) = self.state.take() else {
            return Err(QueryError::NoSlicedSearch);
        };
        let (status, last) = match (st.status, st.goal) {
            (PathStatus::Complete, Some(g)) => (PathStatus::Complete, g),
            (s, _) => {
                let s = if s == PathStatus::InProgress {
                    PathStatus::BudgetExhausted
                } else {
                    s
                };
                let reached =
                    existing.and_then(|ex| ex.iter().rev().find_map(|r| self.cheapest_in(*r)));
                (s, reached.unwrap_or(st.best))
            }
        };
        self.write_path(last, path);
        Ok(PathResult {
            status,
            cost: self.nodes[last as usize].g,
            iterations: st.iterations,
        })
    }

    /// The reached state of polygon `r` with the smallest `g` (then the earliest reached).
    fn cheapest_in(&self, r: PolyRef) -> Option<u32> {
        let mut best: Option<u32> = None;
        for (i, n) in self.nodes.iter().enumerate() {
            if n.poly == r && best.map_or(true, |b| n.g < self.nodes[b as usize].g) {
                best = Some(i as u32);
            }
        }
        best
    }

    /// The polygons of the states from the start to `last`, consecutive repeats merged and
    /// loops cut (a polygon met again continues from its first occurrence).
    fn write_path(&mut self, last: u32, path: &mut Vec<PolyRef>) {
        let chain = &mut self.scratch;
        chain.clear();
        let mut i = last;
        while i != NO_PARENT {
            let n = &self.nodes[i as usize];
            chain.push(n.poly);
            i = n.parent;
        }
        path.clear();
        for &r in chain.iter().rev() {
            if let Some(at) = path.iter().position(|&q| q == r) {
                path.truncate(at + 1);
            } else {
                path.push(r);
            }
        }
    }
}
