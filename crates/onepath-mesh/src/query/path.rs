//! A* over polygons: one-shot with an iteration budget, and sliced (begin / step / finish)
//! through the very same code, so a sliced search gives the one-shot result for every
//! budget.

use std::cmp::Ordering;

use onepath_format::PolyRef;

use crate::mesh::TiledNavMesh;
use crate::query::compiled::LandmarkGoal;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{dist, Vec3};
use crate::query::graph::{tie_key, PathEnds, PathGraph, HEURISTIC_SCALE};
use crate::query::NavMeshQuery;

/// How a path search ended (or that it has not yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PathStatus {
    /// A sliced search that needs more steps.
    InProgress,
    /// The goal polygon was reached; the path ends in it.
    Complete,
    /// The goal is unreachable under the filter; the path ends in the reachable polygon
    /// closest to the goal position.
    Partial,
    /// The iteration budget ran out first; the path ends in the polygon closest to the
    /// goal position among those reached so far.
    BudgetExhausted,
}

/// The result of a path search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathResult {
    /// How the search ended.
    pub status: PathStatus,
    /// Cost of the returned path in the cost model (for a complete path, up to the goal
    /// position; otherwise up to the last polygon's position).
    pub cost: f64,
    /// Polygons expanded (iterations used).
    pub iterations: usize,
}

pub(crate) const NO_PARENT: u32 = u32::MAX;

/// One search node: a polygon reached, with its best known cost.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    pub(crate) poly: PolyRef,
    pub(crate) pos: Vec3,
    pub(crate) g: f64,
    pub(crate) f: f64,
    pub(crate) parent: u32,
    pub(crate) closed: bool,
}

/// One node of the path search (32 bytes: two per cache line).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PathNode {
    pub(crate) poly: PolyRef,
    pub(crate) g: f64,
    /// Distance from the polygon's position in the cost model to the goal position (the
    /// heuristic's distance, computed once per node: a polygon's position never changes
    /// within a search).
    pub(crate) d: f64,
    pub(crate) parent: u32,
    pub(crate) closed: bool,
}

/// An open-list entry. The heap pops the smallest `f`, then the largest `g` (the deeper
/// node), then the lowest (slot, polygon) ([`tie_key`]). Entries made stale by a later improvement stay in the
/// heap and are skipped when popped.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpenEntry {
    pub(crate) f: f64,
    pub(crate) g: f64,
    pub(crate) poly: PolyRef,
    pub(crate) node: u32,
}

impl PartialEq for OpenEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for OpenEntry {}
impl PartialOrd for OpenEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OpenEntry {
    /// "Greater" pops first (BinaryHeap is a max-heap).
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .f
            .total_cmp(&self.f)
            .then(self.g.total_cmp(&other.g))
            .then(tie_key(other.poly).cmp(&tie_key(self.poly)))
            .then(other.node.cmp(&self.node))
    }
}

/// The state of a search between steps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SearchState {
    pub(crate) ends: PathEnds,
    pub(crate) status: PathStatus,
    /// The node closest to the goal position: (distance, g, poly) smallest.
    pub(crate) best: u32,
    pub(crate) best_dist: f64,
    pub(crate) goal: Option<u32>,
    pub(crate) iterations: usize,
    /// The goal side of the landmark bound while the search uses a table.
    pub(crate) alt: Option<LandmarkGoal>,
    /// [`TiledNavMesh::state_id`] of the mesh when its ends were last checked.
    pub(crate) checked_state: u64,
}

impl NavMeshQuery {
    /// Finds the polygon path from `start_ref` (at `start_pos`) to `end_ref` (at `end_pos`)
    /// under `filter`, expanding at most `max_iterations` polygons. Writes the polygons,
    /// start first, into `path` (cleared first).
    ///
    /// This is exactly [`NavMeshQuery::begin_path`], one [`NavMeshQuery::step_path`] of
    /// `max_iterations`, then [`NavMeshQuery::finish_path`].
    #[allow(clippy::too_many_arguments)]
    pub fn find_path(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        end_ref: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        max_iterations: usize,
        path: &mut Vec<PolyRef>,
    ) -> Result<PathResult, QueryError> {
        path.clear();
        self.begin_path(mesh, start_ref, end_ref, start_pos, end_pos, filter)?;
        self.step_path(mesh, max_iterations)?;
        self.finish_path(path)
    }

    /// Begins a sliced path search (see [`NavMeshQuery::find_path`]). Checks the references
    /// (valid, passing the filter) and positions; the previous search, if any, is dropped.
    pub fn begin_path(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        end_ref: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
    ) -> Result<PathStatus, QueryError> {
        self.search = None;
        let ends = PathEnds {
            start_ref,
            start_pos,
            end_ref,
            end_pos,
        };
        let graph = PathGraph::new(mesh, filter, ends)?;
        self.search_graph.clone_from(&self.graph);
        let alt = self
            .search_graph
            .as_ref()
            .and_then(|l| l.goal(mesh, filter, start_ref, end_ref, end_pos));
        // Landmark estimates put many entries on few exact `f` values: the radix open list
        // (same pop order) is faster there, the binary heap otherwise.
        let radix = !self.plain_open_list
            && alt.is_some()
            && self.search_graph.as_ref().is_some_and(|g| g.has_bound());
        self.nodes.clear();
        self.node_index.clear();
        self.open.reset(radix);
        let h = graph.heuristic(start_pos);
        self.nodes.push(PathNode {
            poly: start_ref,
            d: dist(start_pos, end_pos),
            g: 0.0,
            parent: NO_PARENT,
            closed: false,
        });
        self.node_index.insert(start_ref, 0, &self.nodes);
        self.open.push(h, 0.0, start_ref, 0);
        self.search_filter = *filter;
        self.node_h.clear();
        if alt.is_some() {
            // The start's own estimate is never read again (its cost, 0, cannot improve).
            self.node_h.push(h);
        }
        self.search = Some(SearchState {
            ends,
            status: PathStatus::InProgress,
            best: 0,
            best_dist: dist(start_pos, end_pos),
            goal: None,
            iterations: 0,
            alt,
            checked_state: mesh.state_id(),
        });
        Ok(PathStatus::InProgress)
    }

    /// Runs up to `max_iterations` iterations of the search begun by
    /// [`NavMeshQuery::begin_path`]. One iteration pops the best open polygon and, unless it
    /// is the goal, expands it (relaxes every neighbour). Returns the status and the
    /// iterations used by this call.
    ///
    /// If the mesh changed since the search began so that a polygon about to be expanded is
    /// no longer valid, the search ends with [`QueryError::InvalidPolyRef`].
    pub fn step_path(
        &mut self,
        mesh: &TiledNavMesh,
        max_iterations: usize,
    ) -> Result<(PathStatus, usize), QueryError> {
        // The state is changed in place (not copied out and back: the filter alone is
        // over 500 bytes), and the filter is borrowed from its own field.
        let Some(st) = self.search.as_mut() else {
            return Err(QueryError::NoSlicedSearch);
        };
        if st.status != PathStatus::InProgress {
            return Ok((st.status, 0));
        }
        // The ends are checked again only if the mesh changed since they last were.
        let graph = if mesh.state_id() == st.checked_state {
            PathGraph::checked_before(mesh, &self.search_filter, st.ends)
        } else {
            match PathGraph::new(mesh, &self.search_filter, st.ends) {
                Ok(g) => {
                    st.checked_state = mesh.state_id();
                    g
                }
                Err(err) => {
                    self.search = None;
                    return Err(err);
                }
            }
        };
        // The landmark bound, while its table still applies to the mesh.
        let table = match (st.alt, self.search_graph.as_deref()) {
            (Some(goal), Some(t)) if t.is_current(mesh) => Some((goal, t)),
            _ => {
                st.alt = None;
                None
            }
        };
        // Whether the search's filter passes exactly the polygons and links the table's does.
        let same_filter = table.is_some_and(|(_, t)| {
            let (a, b) = (t.filter(), &self.search_filter);
            a.include_flags() == b.include_flags() && a.exclude_flags() == b.exclude_flags()
        });
        let walk_tiles = self.walk_tiles;
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
            done += 1;
            st.iterations += 1;
            // Start loading the data of the polygon likely expanded next while this one is
            // expanded (a hint only: nothing depends on the value read).
            if let (None, Some(next)) = (table, self.open.peek()) {
                std::hint::black_box(self.tiles.touch(PolyRef(next.tie)));
            }
            self.nodes[e.node as usize].closed = true;
            if node.poly == st.ends.end_ref {
                st.goal = Some(e.node);
                st.status = PathStatus::Complete;
                break;
            }
            let nodes = &mut self.nodes;
            let index = &mut self.node_index;
            let open = &mut self.open;
            let node_h = &mut self.node_h;
            let h_scale = self.search_filter.min_area_cost();
            let ends = st.ends;
            let mut relax = |target: PolyRef, to_pos: Vec3, cost: f64, row: usize| {
                let g = node.g + cost;
                let (i, d, f) = match index.get(target, nodes) {
                    Some(i) => {
                        let n = &mut nodes[i as usize];
                        if !(g < n.g) {
                            return;
                        }
                        // A cheaper way in: update, and reopen if it was closed. The
                        // position of a polygon never changes within a search, so its
                        // distance to the goal (and its estimate) is the one stored.
                        n.g = g;
                        n.parent = e.node;
                        n.closed = false;
                        let f = match table {
                            Some(_) => g + node_h[i as usize],
                            None => g + n.d * h_scale * HEURISTIC_SCALE,
                        };
                        (i, n.d, f)
                    }
                    None => {
                        // The heuristic of `PathGraph::heuristic`, sharing the distance
                        // with the closest-node test below.
                        let d = dist(to_pos, ends.end_pos);
                        let i = nodes.len() as u32;
                        nodes.push(PathNode {
                            poly: target,
                            d,
                            g,
                            parent: e.node,
                            closed: false,
                        });
                        index.insert(target, i, nodes);
                        let plain = d * h_scale * HEURISTIC_SCALE;
                        let f = match table {
                            Some((goal, t)) => {
                                let b = if row == usize::MAX {
                                    t.bound(&goal, target)
                                } else {
                                    t.bound_row(&goal, row)
                                };
                                let h = if b > plain { b } else { plain };
                                node_h.push(h);
                                g + h
                            }
                            None => g + plain,
                        };
                        (i, d, f)
                    }
                };
                open.push(f, g, target, i);
                let b = &nodes[st.best as usize];
                let better = d
                    .total_cmp(&st.best_dist)
                    .then(g.total_cmp(&b.g))
                    .then(tie_key(target).cmp(&tie_key(b.poly)))
                    == Ordering::Less;
                if better {
                    st.best = i;
                    st.best_dist = d;
                }
            };
            // With a compiled graph, its edges (the same, in the same order, with the same
            // bits); the start from the tiles when it has an off-mesh link (the graph keeps
            // no link's departure point).
            let compiled = match table {
                Some((_, t)) if !walk_tiles => t.row(node.poly).and_then(|row| {
                    if node.poly != ends.start_ref {
                        Some((t, row, None))
                    } else if t.row_has_links(row) {
                        None
                    } else {
                        Some((t, row, Some(ends.start_pos)))
                    }
                }),
                _ => None,
            };
            let res = match compiled {
                Some((t, row, from)) => {
                    t.for_each_edge(
                        row,
                        from,
                        &self.search_filter,
                        same_filter,
                        &ends,
                        &mut relax,
                    );
                    Ok(())
                }
                None => graph.for_each_edge_cached(&mut self.tiles, node.poly, |r, p, c| {
                    relax(r, p, c, usize::MAX)
                }),
            };
            if let Err(err) = res {
                self.search = None;
                return Err(err);
            }
        }
        if st.status == PathStatus::InProgress {
            // Drop stale entries on top so that a search with nothing left to expand
            // ends now (Partial) instead of after one more step.
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

    /// Ends the search and writes its path into `path` (cleared first). A search still in
    /// progress ends as [`PathStatus::BudgetExhausted`] with the path to the polygon closest
    /// to the goal position reached so far.
    pub fn finish_path(&mut self, path: &mut Vec<PolyRef>) -> Result<PathResult, QueryError> {
        let Some(st) = self.search.take() else {
            return Err(QueryError::NoSlicedSearch);
        };
        let (status, last) = match (st.status, st.goal) {
            (PathStatus::Complete, Some(g)) => (PathStatus::Complete, g),
            (PathStatus::InProgress, _) => (PathStatus::BudgetExhausted, st.best),
            (s, _) => (s, st.best),
        };
        Ok(self.write_path(last, status, st.iterations, path))
    }

    /// Ends the search like [`NavMeshQuery::finish_path`], but when it did not reach the goal
    /// the path ends at the *furthest* polygon of `existing` (an agent's current corridor)
    /// that the search reached, so the agent can splice the new start onto its old corridor;
    /// when it reached none of them, at the polygon closest to the goal as `finish_path`
    /// does.
    pub fn finish_path_partial(
        &mut self,
        existing: &[PolyRef],
        path: &mut Vec<PolyRef>,
    ) -> Result<PathResult, QueryError> {
        let Some(st) = self.search.take() else {
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
                let reached = existing
                    .iter()
                    .rev()
                    .find_map(|r| self.node_index.get(*r, &self.nodes));
                (s, reached.unwrap_or(st.best))
            }
        };
        Ok(self.write_path(last, status, st.iterations, path))
    }

    fn write_path(
        &self,
        last: u32,
        status: PathStatus,
        iterations: usize,
        path: &mut Vec<PolyRef>,
    ) -> PathResult {
        path.clear();
        let mut i = last;
        while i != NO_PARENT {
            let n = &self.nodes[i as usize];
            path.push(n.poly);
            i = n.parent;
        }
        path.reverse();
        PathResult {
            status,
            cost: self.nodes[last as usize].g,
            iterations,
        }
    }

    /// True while a sliced search is begun and not finished.
    pub fn path_search_active(&self) -> bool {
        self.search.is_some()
    }
}
