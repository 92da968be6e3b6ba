//! A* over polygons: one-shot with an iteration budget, and sliced (begin / step / finish)
//! through the very same code, so a sliced search gives the one-shot result for every
//! budget.

use std::cmp::Ordering;

use onepath_format::PolyRef;

use crate::mesh::TiledNavMesh;
use crate::query::compiled::{CompiledGraph, CompiledWalk, LandmarkGoal};
use crate::query::derived::DerivedWalk;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{dist, Vec3};
use crate::query::graph::{PathEnds, PathGraph, PolygonGraph, HEURISTIC_SCALE, NO_ROW};
use crate::query::nodepool::{NodePool, PathNode, NO_PARENT};
use crate::query::openlist::OpenList;
use crate::query::poly::tie_key;
use crate::query::portals::PathModel;
use crate::query::{EdgeSource, NavMeshQuery};

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
    pub iterations: u64,
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
    pub(crate) iterations: u64,
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
        max_iterations: u64,
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
        self.portal.cancel();
        let ends = PathEnds {
            start_ref,
            start_pos,
            end_ref,
            end_pos,
        };
        if let PathModel::Portals(sampling) = self.path_model {
            self.search_filter = *filter;
            return self.portal.begin(mesh, filter, ends, sampling);
        }
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
        self.pool.clear();
        self.open.reset(radix);
        let h = graph.heuristic(start_pos);
        let start = self.pool.add(PathNode {
            poly: start_ref,
            d: dist(start_pos, end_pos),
            g: 0.0,
            parent: NO_PARENT,
            closed: false,
        });
        self.open.push(h, 0.0, start_ref, start);
        self.search_filter = *filter;
        if alt.is_some() {
            // The start's own estimate is never read again (its cost, 0, cannot improve).
            self.pool.h.push(h);
        }
        self.search = Some(SearchState {
            ends,
            status: PathStatus::InProgress,
            best: start,
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
        max_iterations: u64,
    ) -> Result<(PathStatus, u64), QueryError> {
        if self.portal.active() {
            return self.portal.step(mesh, &self.search_filter, max_iterations);
        }
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
        let search = Search {
            pool: &mut self.pool,
            open: &mut self.open,
            st,
            table,
            h_scale: self.search_filter.min_area_cost(),
        };
        let tiles = DerivedWalk {
            graph,
            tiles: &mut self.derived,
        };
        // One monomorphised loop per edge source.
        let res = match (table, self.edge_source) {
            (Some((_, t)), EdgeSource::Fastest) => {
                // Whether the search's filter passes exactly the polygons and links the
                // table's does.
                let (a, b) = (t.filter(), &self.search_filter);
                let same_filter = a.include_flags() == b.include_flags()
                    && a.exclude_flags() == b.exclude_flags();
                let mut walk = CompiledWalk {
                    graph: t,
                    same_filter,
                    tiles,
                };
                search.run(&mut walk, max_iterations)
            }
            (_, EdgeSource::Tiles) => search.run(&mut { tiles.graph }, max_iterations),
            _ => search.run(&mut { tiles }, max_iterations),
        };
        if res.is_err() {
            self.search = None;
        }
        res
    }

    /// Ends the search and writes its path into `path` (cleared first). A search still in
    /// progress ends as [`PathStatus::BudgetExhausted`] with the path to the polygon closest
    /// to the goal position reached so far.
    pub fn finish_path(&mut self, path: &mut Vec<PolyRef>) -> Result<PathResult, QueryError> {
        if self.portal.active() {
            return self.portal.finish(None, path);
        }
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
        if self.portal.active() {
            return self.portal.finish(Some(existing), path);
        }
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
                let reached = existing.iter().rev().find_map(|r| self.pool.find(*r));
                (s, reached.unwrap_or(st.best))
            }
        };
        Ok(self.write_path(last, status, st.iterations, path))
    }

    fn write_path(
        &self,
        last: u32,
        status: PathStatus,
        iterations: u64,
        path: &mut Vec<PolyRef>,
    ) -> PathResult {
        path.clear();
        let mut i = last;
        while i != NO_PARENT {
            let n = &self.pool.nodes[i as usize];
            path.push(n.poly);
            i = n.parent;
        }
        path.reverse();
        PathResult {
            status,
            cost: self.pool.nodes[last as usize].g,
            iterations,
        }
    }

    /// True while a sliced search is begun and not finished.
    pub fn path_search_active(&self) -> bool {
        self.search.is_some() || self.portal.active()
    }
}

/// The buffers and state one [`NavMeshQuery::step_path`] call works on, apart from the
/// edge source (so that the source may borrow the query's derived per-tile data).
struct Search<'a> {
    pool: &'a mut NodePool,
    open: &'a mut OpenList,
    st: &'a mut SearchState,
    /// The goal side of the landmark bound and its compiled graph, while it applies.
    table: Option<(LandmarkGoal, &'a CompiledGraph)>,
    /// The filter's smallest area cost (the plain heuristic's factor).
    h_scale: f64,
}

impl Search<'_> {
    /// Up to `max_iterations` iterations over the edges of `graph`; returns the status and
    /// the iterations done. Generic over the edge source, so the inner loop has no dynamic
    /// dispatch.
    #[inline]
    fn run<G: PolygonGraph>(
        self,
        graph: &mut G,
        max_iterations: u64,
    ) -> Result<(PathStatus, u64), QueryError> {
        let Search {
            pool,
            open,
            st,
            table,
            h_scale,
        } = self;
        let mut done = 0;
        while done < max_iterations {
            let Some(e) = open.pop() else {
                st.status = PathStatus::Partial;
                break;
            };
            let node = pool.nodes[e.node as usize];
            if node.closed || e.g != node.g {
                continue;
            }
            done += 1;
            st.iterations += 1;
            // Start loading the data of the polygon likely expanded next while this one is
            // expanded (a hint only: nothing depends on the value read).
            if G::PREFETCH {
                if let Some(next) = open.peek() {
                    graph.prefetch(PolyRef(next.tie));
                }
            }
            pool.nodes[e.node as usize].closed = true;
            if node.poly == st.ends.end_ref {
                st.goal = Some(e.node);
                st.status = PathStatus::Complete;
                break;
            }
            let ends = st.ends;
            graph.edges_from(node.poly, |target, to_pos, cost, row| {
                let g = node.g + cost;
                let (i, d, f) = match pool.find(target) {
                    Some(i) => {
                        let n = &mut pool.nodes[i as usize];
                        if !(g < n.g) {
                            return;
                        }
                        // A cheaper way in: update, and reopen if it was closed. The
                        // position of a polygon never changes within a search, so its
                        // distance to the goal (and its estimate) is the one stored.
                        n.g = g;
                        n.parent = e.node;
                        n.closed = false;
                        let d = n.d;
                        let f = match table {
                            Some(_) => g + pool.h[i as usize],
                            None => g + d * h_scale * HEURISTIC_SCALE,
                        };
                        (i, d, f)
                    }
                    None => {
                        // The heuristic of `PathGraph::heuristic`, sharing the distance
                        // with the closest-node test below.
                        let d = dist(to_pos, ends.end_pos);
                        let i = pool.add(PathNode {
                            poly: target,
                            d,
                            g,
                            parent: e.node,
                            closed: false,
                        });
                        let plain = d * h_scale * HEURISTIC_SCALE;
                        let f = match table {
                            Some((goal, t)) => {
                                let b = if row == NO_ROW {
                                    t.bound(&goal, target)
                                } else {
                                    t.bound_row(&goal, row)
                                };
                                let h = if b > plain { b } else { plain };
                                pool.h.push(h);
                                g + h
                            }
                            None => g + plain,
                        };
                        (i, d, f)
                    }
                };
                open.push(f, g, target, i);
                let b = &pool.nodes[st.best as usize];
                let better = d
                    .total_cmp(&st.best_dist)
                    .then(g.total_cmp(&b.g))
                    .then(tie_key(target).cmp(&tie_key(b.poly)))
                    == Ordering::Less;
                if better {
                    st.best = i;
                    st.best_dist = d;
                }
            })?;
        }
        if st.status == PathStatus::InProgress {
            // Drop stale entries on top so that a search with nothing left to expand
            // ends now (Partial) instead of after one more step.
            while let Some(e) = open.peek() {
                let n = &pool.nodes[e.node as usize];
                if n.closed || e.g != n.g {
                    open.pop();
                } else {
                    break;
                }
            }
            if open.is_empty() {
                st.status = PathStatus::Partial;
            }
        }
        Ok((st.status, done))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::fixtures::bridge_and_building;
    use crate::query::poly::{poly_centre, poly_verts, PolyVerts};
    use crate::query::{generated_grid_mesh, GENERATED_SWAMP_AREA};

    /// Every polygon of `mesh` whose flags pass `filter`, with a point near its centre (off
    /// it, so that the search's ends measure afresh).
    fn polys(mesh: &TiledNavMesh, filter: &QueryFilter) -> Vec<(PolyRef, Vec3)> {
        let mut out = Vec::new();
        let mut verts = PolyVerts::new();
        for t in mesh.tiles() {
            for p in 0..t.tile().poly_count() {
                if filter.passes_flags(t.tile().flags()[p]) {
                    poly_verts(t, p, &mut verts);
                    let c = poly_centre(&verts);
                    let r = t.poly_ref(p as u32).unwrap();
                    out.push((r, [c[0] + 0.125, c[1], c[2] - 0.0625]));
                }
            }
        }
        out
    }

    /// The answer of one search, bit for bit.
    fn answer(
        q: &mut NavMeshQuery,
        mesh: &TiledNavMesh,
        a: (PolyRef, Vec3),
        b: (PolyRef, Vec3),
        filter: &QueryFilter,
        budget: u64,
    ) -> (PathStatus, u64, u64, Vec<PolyRef>) {
        let mut path = Vec::new();
        let r = q
            .find_path(mesh, a.0, b.0, a.1, b.1, filter, budget, &mut path)
            .unwrap();
        (r.status, r.cost.to_bits(), r.iterations, path)
    }

    #[test]
    fn every_edge_source_gives_the_same_search_bit_for_bit() {
        let generated = generated_grid_mesh(3, 3, 4, 11).mesh;
        let mut swamp = QueryFilter::new();
        swamp.set_area_cost(GENERATED_SWAMP_AREA, 2.5).unwrap();
        let mut compared = 0;
        for mesh in [&bridge_and_building(), &generated] {
            for landmarks in [None, Some(0), Some(4)] {
                let mut q = NavMeshQuery::new();
                if let Some(count) = landmarks {
                    let graph = CompiledGraph::build(mesh, &QueryFilter::new(), count).unwrap();
                    q.set_compiled_graph(Some(Arc::new(graph)));
                }
                for filter in [QueryFilter::new(), swamp] {
                    let ps = polys(mesh, &filter);
                    for k in 0..ps.len().min(40) {
                        let (a, b) = (ps[(k * 13) % ps.len()], ps[(k * 29 + 7) % ps.len()]);
                        for budget in [u64::MAX, 6] {
                            q.edge_source = EdgeSource::Fastest;
                            let fastest = answer(&mut q, mesh, a, b, &filter, budget);
                            q.edge_source = EdgeSource::Derived;
                            let derived = answer(&mut q, mesh, a, b, &filter, budget);
                            q.edge_source = EdgeSource::Tiles;
                            let tiles = answer(&mut q, mesh, a, b, &filter, budget);
                            assert_eq!(fastest, derived, "{a:?} → {b:?}");
                            assert_eq!(fastest, tiles, "{a:?} → {b:?}");
                            compared += usize::from(fastest.3.len() > 2);
                        }
                    }
                }
            }
        }
        assert!(compared > 100, "{compared}");
    }
}
