//! The path request queue: requests served first come first served by one sliced path
//! search at a time, under an iteration budget per update.
//!
//! The search in progress is always the one a fresh `begin_path` on the current mesh
//! followed by the iterations it used gives (`docs/crowd.md`, step 4): when the mesh
//! changed since the search last ran (its [`TiledNavMesh::state_id`]), it is begun again on
//! the mesh and the iterations it had used are replayed (outside the budget) before it goes
//! on. A restored queue replays the same way at its next update, so a search saved at any
//! point continues exactly as the uninterrupted one, whatever changed the mesh meanwhile.

use std::collections::VecDeque;

use onepath_format::PolyRef;
use onepath_mesh::query::{NavMeshQuery, PathResult, PathStatus, QueryError, QueryFilter, Vec3};
use onepath_mesh::TiledNavMesh;

use crate::AgentId;

/// One queued request: a search from the end of the agent's corridor to its target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct QueuedRequest {
    pub(crate) agent: AgentId,
    /// The agent's request serial when it was queued (a later target makes it stale).
    pub(crate) serial: u64,
    pub(crate) start_ref: PolyRef,
    pub(crate) start_pos: Vec3,
    pub(crate) end_ref: PolyRef,
    pub(crate) end_pos: Vec3,
    pub(crate) filter: QueryFilter,
    /// Iterations the whole request may use (`u64::MAX`: no limit).
    pub(crate) max_iterations: u64,
}

/// A served request: the path found, or the error of its search.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Served {
    pub(crate) request: QueuedRequest,
    pub(crate) result: Result<(PathResult, Vec<PolyRef>), QueryError>,
}

/// The queue and its one search in progress.
#[derive(Debug, Default)]
pub(crate) struct PathQueue {
    pub(crate) pending: VecDeque<QueuedRequest>,
    /// The request whose search is begun in `query`, and the iterations it used.
    pub(crate) active: Option<(QueuedRequest, u64)>,
    pub(crate) query: NavMeshQuery,
    /// The mesh state ([`TiledNavMesh::state_id`]) the search in `query` last ran on;
    /// `None` when `query` does not hold the active search (after a restore).
    pub(crate) searched_on: Option<u64>,
}

impl PathQueue {
    pub(crate) fn push(&mut self, r: QueuedRequest) {
        self.pending.push_back(r);
    }

    /// True when nothing is queued or in progress.
    pub(crate) fn is_idle(&self) -> bool {
        self.pending.is_empty() && self.active.is_none()
    }

    /// Drops every request of `agent` (it was removed).
    pub(crate) fn forget(&mut self, agent: AgentId) {
        self.pending.retain(|r| r.agent != agent);
        if self.active.is_some_and(|(r, _)| r.agent == agent) {
            self.active = None;
        }
    }

    /// Runs up to `budget` search iterations over the queue, in order, and returns the
    /// requests finished, in the order they finished. `is_current(agent, serial)` tells
    /// whether a request still stands (stale ones are dropped without iterations).
    pub(crate) fn serve(
        &mut self,
        mesh: &TiledNavMesh,
        budget: u64,
        is_current: impl Fn(AgentId, u64) -> bool,
    ) -> (Vec<Served>, u64) {
        let mut out = Vec::new();
        let mut remaining = budget;
        let state = mesh.state_id();
        while remaining > 0 {
            let (req, used) = match self.active.take() {
                Some((r, used)) if is_current(r.agent, r.serial) => {
                    if self.searched_on != Some(state) {
                        // The mesh changed under the search (or the queue was restored):
                        // the search is the one the current mesh gives after `used`.
                        if let Err(e) = self.replay(mesh, &r, used) {
                            out.push(Served {
                                request: r,
                                result: Err(e),
                            });
                            continue;
                        }
                    }
                    (r, used)
                }
                Some(_) => continue,
                None => {
                    let Some(r) = self.pending.pop_front() else {
                        break;
                    };
                    if !is_current(r.agent, r.serial) {
                        continue;
                    }
                    if let Err(e) = self.begin(mesh, &r) {
                        out.push(Served {
                            request: r,
                            result: Err(e),
                        });
                        continue;
                    }
                    (r, 0)
                }
            };
            let step = remaining.min(req.max_iterations.saturating_sub(used));
            let stepped = if step > 0 {
                self.query.step_path(mesh, step)
            } else {
                Ok((PathStatus::BudgetExhausted, 0))
            };
            match stepped {
                Err(e) => out.push(Served {
                    request: req,
                    result: Err(e),
                }),
                Ok((status, n)) => {
                    remaining -= n.min(remaining);
                    let used = used + n;
                    if status == PathStatus::InProgress && used < req.max_iterations {
                        self.active = Some((req, used));
                        continue;
                    }
                    let mut path = Vec::new();
                    let result = self.query.finish_path(&mut path).map(|r| (r, path));
                    out.push(Served {
                        request: req,
                        result,
                    });
                }
            }
        }
        (out, budget - remaining)
    }

    /// Begins `r`'s search on `mesh`.
    fn begin(&mut self, mesh: &TiledNavMesh, r: &QueuedRequest) -> Result<(), QueryError> {
        self.searched_on = None;
        self.query.begin_path(
            mesh,
            r.start_ref,
            r.end_ref,
            r.start_pos,
            r.end_pos,
            &r.filter,
        )?;
        self.searched_on = Some(mesh.state_id());
        Ok(())
    }

    /// Begins `r`'s search again on `mesh` and runs the `used` iterations it had used.
    fn replay(
        &mut self,
        mesh: &TiledNavMesh,
        r: &QueuedRequest,
        used: u64,
    ) -> Result<(), QueryError> {
        self.begin(mesh, r)?;
        if used > 0 {
            if let Err(e) = self.query.step_path(mesh, used) {
                self.searched_on = None;
                return Err(e);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onepath_mesh::fixtures::bridge_and_building;

    fn request(mesh: &TiledNavMesh, agent: u32, from: Vec3, to: Vec3) -> QueuedRequest {
        let mut q = NavMeshQuery::new();
        let f = QueryFilter::new();
        let a = q
            .find_nearest_poly(mesh, from, [1.0, 2.0, 1.0], &f)
            .unwrap()
            .unwrap();
        let b = q
            .find_nearest_poly(mesh, to, [1.0, 2.0, 1.0], &f)
            .unwrap()
            .unwrap();
        QueuedRequest {
            agent: AgentId(agent),
            serial: 1,
            start_ref: a.poly,
            start_pos: a.point,
            end_ref: b.poly,
            end_pos: b.point,
            filter: f,
            max_iterations: u64::MAX,
        }
    }

    #[test]
    fn requests_are_served_in_order_under_the_budget_and_stale_ones_cost_nothing() {
        let mesh = bridge_and_building();
        let far = request(&mesh, 0, [2.0, 0.0, 2.0], [30.0, 0.0, 30.0]);
        let stale = request(&mesh, 1, [2.0, 0.0, 2.0], [46.0, 0.0, 2.0]);
        let near = request(&mesh, 2, [2.0, 0.0, 2.0], [6.0, 0.0, 2.0]);
        // The one-shot searches' iterations.
        let mut q = NavMeshQuery::new();
        let mut path = Vec::new();
        let cost = |r: &QueuedRequest, q: &mut NavMeshQuery, path: &mut Vec<PolyRef>| {
            q.find_path(
                &mesh,
                r.start_ref,
                r.end_ref,
                r.start_pos,
                r.end_pos,
                &r.filter,
                u64::MAX,
                path,
            )
            .unwrap()
        };
        let far_res = cost(&far, &mut q, &mut path);
        let far_path = path.clone();
        let near_res = cost(&near, &mut q, &mut path);
        assert!(far_res.iterations > 2 && near_res.iterations >= 1);
        let mut queue = PathQueue::default();
        for r in [far, stale, near] {
            queue.push(r);
        }
        let current = |a: AgentId, _| a != AgentId(1);
        // One iteration short of the far search: nothing finishes.
        let (served, used) = queue.serve(&mesh, far_res.iterations - 1, current);
        assert!(served.is_empty());
        assert_eq!(used, far_res.iterations - 1);
        // The rest of the far search and all of the near one; the stale one is skipped.
        let (served, used) = queue.serve(&mesh, 1 + near_res.iterations, current);
        assert_eq!(used, 1 + near_res.iterations);
        let agents: Vec<_> = served.iter().map(|s| s.request.agent).collect();
        assert_eq!(agents, vec![AgentId(0), AgentId(2)]);
        let (res, p) = served[0].result.clone().unwrap();
        assert_eq!(
            (res.status, res.iterations, p),
            (far_res.status, far_res.iterations, far_path)
        );
        assert!(queue.is_idle());
        assert_eq!(queue.serve(&mesh, 100, current).1, 0);
    }

    #[test]
    fn a_search_over_a_replaced_tile_goes_on_as_one_begun_on_the_new_mesh() {
        let mut mesh = bridge_and_building();
        let far = request(&mesh, 0, [2.0, 0.0, 2.0], [30.0, 0.0, 30.0]);
        let current = |_: AgentId, _| true;
        let mut live = PathQueue::default();
        live.push(far);
        let (served, used) = live.serve(&mesh, 3, current);
        assert!(served.is_empty() && used == 3);
        // A tile is replaced under the search in progress (its slot's generation advances).
        let tiles = onepath_mesh::fixtures::bridge_and_building_tiles().unwrap();
        let before = mesh.state_id();
        mesh.replace_tile(tiles[1].clone()).unwrap();
        assert_ne!(mesh.state_id(), before);
        // What a queue restored from (request, 3 iterations) does on the new mesh.
        let mut restored = PathQueue {
            active: live.active,
            ..PathQueue::default()
        };
        let a = live.serve(&mesh, u64::MAX, current);
        let b = restored.serve(&mesh, u64::MAX, current);
        assert_eq!(a, b);
        assert_eq!(a.0.len(), 1);
        // And both equal a search begun on the new mesh and run to its end.
        let mut q = NavMeshQuery::new();
        let mut path = Vec::new();
        let one_shot = q.find_path(
            &mesh,
            far.start_ref,
            far.end_ref,
            far.start_pos,
            far.end_pos,
            &far.filter,
            u64::MAX,
            &mut path,
        );
        match (&a.0[0].result, one_shot) {
            (Ok((r, p)), Ok(o)) => assert_eq!((r, p), (&o, &path)),
            (Err(e), Err(o)) => assert_eq!(e, &o),
            (x, y) => panic!("sliced {x:?} vs one-shot {y:?}"),
        }
    }
}
