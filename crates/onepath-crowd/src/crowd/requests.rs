//! Steps 2, 4 and 5 of the update (`docs/crowd.md`): stale corridors, path requests (the quick
//! search and the queue under the budget) and topology optimisation.

use super::locomotion::start_fall;
use super::*;
use onepath_gridstate::{GridPathStatus, SearchStatus};

impl Crowd {
    /// 2. Stale corridors: an agent whose polygon is gone is placed again (or falls); a
    ///    target whose polygon is gone is placed again (or the target has no path); a
    ///    corridor whose look-ahead is stale is trimmed and planned again.
    pub(super) fn check_path_validity(
        &mut self,
        mesh: &TiledNavMesh,
        dt: f64,
        stats: &mut UpdateStats,
    ) {
        let ext = self.placement_extents;
        for a in &mut self.agents {
            if a.state != AgentState::Walking {
                continue;
            }
            a.target_replan_time += dt;
            // The filter the corridor was planned with (a request's override included).
            let filter = &a.corridor_filter();
            let mut replan = false;
            let first = a.corridor.first_poly();
            let pos = a.nav.motion.position;
            if !poly_usable(mesh, first, filter) {
                match self.query.find_nearest_poly(mesh, pos, ext, filter) {
                    Ok(Some(n)) => {
                        a.corridor.reset(n.poly, n.point);
                        a.nav.motion.position = n.point;
                        a.boundary.reset();
                        replan = true;
                    }
                    _ => {
                        // No ground: the agent falls.
                        start_fall(a, None);
                        continue;
                    }
                }
            }
            if a.grid.is_some() || crate::guides::voxel_next(&a.guide).is_some() {
                // A grid path (or a voxel path) is kept until the host asks again; the
                // corridor is the agent's polygon only.
                continue;
            }
            if matches!(
                a.target_state,
                TargetState::Valid | TargetState::WaitingForPath | TargetState::Requesting
            ) && !poly_usable(mesh, a.target_ref, filter)
            {
                match self
                    .query
                    .find_nearest_poly(mesh, a.target_pos, ext, filter)
                {
                    Ok(Some(n)) => {
                        a.target_ref = n.poly;
                        a.target_pos = n.point;
                        replan = true;
                    }
                    _ => {
                        // The target streamed out: no path until the host asks again.
                        a.target_state = TargetState::NoPath;
                        a.serial += 1;
                        let (p, first) = (a.corridor.pos(), a.corridor.first_poly());
                        a.corridor.reset(first, p);
                        a.nav.steering.should_move = false;
                    }
                }
            }
            if !a.corridor.is_valid(mesh, filter, CHECK_LOOKAHEAD) {
                let (p, f) = (a.corridor.pos(), a.corridor.first_poly());
                if a.corridor
                    .trim_invalid_path(&self.query, mesh, filter, f, p)
                    .is_err()
                {
                    a.corridor.reset(f, p);
                }
                a.boundary.reset();
                replan = true;
            }
            if a.target_state == TargetState::Valid
                && a.target_replan_time > TARGET_REPLAN_DELAY
                && a.corridor.path().len() < CHECK_LOOKAHEAD
                && a.corridor.last_poly() != a.target_ref
            {
                replan = true;
            }
            if replan
                && matches!(
                    a.target_state,
                    TargetState::Valid | TargetState::WaitingForPath
                )
            {
                ask_replan(a);
                stats.replans += 1;
            }
        }
    }

    /// 4. Requests: agents that asked are queued in agent order, then the queue is served
    ///    under the budget, first come first served.
    pub(super) fn update_move_requests(&mut self, mesh: &TiledNavMesh, stats: &mut UpdateStats) {
        for a in &mut self.agents {
            if a.target_state != TargetState::Requesting || a.state == AgentState::Invalid {
                continue;
            }
            if a.grid.is_some() && beyond_range(a.nav.steering.request) {
                a.target_state = TargetState::NoPath;
                a.nav.steering.should_move = false;
                continue;
            }
            if a.grid.is_some() {
                self.grid_queue.push_back((a.id(), a.serial));
                a.target_state = TargetState::WaitingForPath;
                continue;
            }
            let req = a.nav.steering.request;
            let filter = a.corridor_filter();
            let too_far = req.is_some_and(|r| {
                r.max_search_range > 0.0 && dist_2d(r.origin, a.target_pos) > r.max_search_range
            });
            if a.target_ref.is_null() || too_far || a.corridor.path().is_empty() {
                a.target_state = TargetState::NoPath;
                a.nav.steering.should_move = false;
                continue;
            }
            let max_iterations = match req.map(|r| r.settings) {
                Some(RequestSettings::NavMesh { max_iterations }) if max_iterations > 0 => {
                    max_iterations.min(self.settings.max_request_iterations)
                }
                _ => self.settings.max_request_iterations,
            };
            // A quick search from where the agent stands, so that it walks at once; a
            // replan keeps to the furthest polygon of its corridor the search reached.
            let first = a.corridor.first_poly();
            let pos = a.corridor.pos();
            let mut quick = Vec::new();
            let quick_ok = self
                .query
                .begin_path(mesh, first, a.target_ref, pos, a.target_pos, &filter)
                .is_ok()
                && self.query.step_path(mesh, QUICK_SEARCH_ITERATIONS).is_ok()
                && if a.replanning {
                    self.query
                        .finish_path_partial(a.corridor.path(), &mut quick)
                } else {
                    self.query.finish_path(&mut quick)
                }
                .is_ok();
            a.replanning = false;
            let quick_end = match quick.last() {
                Some(&last) if quick_ok && last == a.target_ref => Some(a.target_pos),
                Some(&last) if quick_ok => self
                    .query
                    .closest_point_on_poly(mesh, last, a.target_pos)
                    .ok()
                    .map(|c| c.point),
                _ => None,
            };
            match quick_end {
                Some(end) => a.corridor.set_corridor(end, &quick),
                None => a.corridor.reset(first, pos),
            }
            a.boundary.reset();
            if a.corridor.last_poly() == a.target_ref {
                set_valid(a);
                continue;
            }
            self.queue.push(QueuedRequest {
                agent: a.id(),
                serial: a.serial,
                start_ref: a.corridor.last_poly(),
                start_pos: a.corridor.target(),
                end_ref: a.target_ref,
                end_pos: a.target_pos,
                filter,
                max_iterations,
            });
            a.target_state = TargetState::WaitingForPath;
        }
        let agents = &self.agents;
        let current = |id: AgentId, serial: u64| {
            agents.binary_search_by_key(&id, |a| a.id()).is_ok_and(|i| {
                agents[i].serial == serial && agents[i].target_state == TargetState::WaitingForPath
            })
        };
        let (served, used) = self.queue.serve(mesh, self.settings.path_budget, current);
        stats.path_iterations += used;
        for s in served {
            stats.requests_served += 1;
            let Ok(i) = self
                .agents
                .binary_search_by_key(&s.request.agent, |a| a.id())
            else {
                continue;
            };
            let a = &mut self.agents[i];
            let ok = match s.result {
                Ok((res, path)) if !path.is_empty() && res.status != PathStatus::InProgress => {
                    Some(path)
                }
                _ => None,
            };
            let Some(found) = ok else {
                // The search failed (the mesh changed under it): plan again.
                a.replanning = true;
                a.serial += 1;
                a.target_state = TargetState::Requesting;
                continue;
            };
            if a.corridor.last_poly() != s.request.start_ref {
                // The corridor changed end meanwhile: plan again from the new end.
                a.replanning = true;
                a.serial += 1;
                a.target_state = TargetState::Requesting;
                continue;
            }
            // The old corridor, then the new path after its first polygon (the old end).
            let mut res: Vec<PolyRef> = a.corridor.path().to_vec();
            res.extend_from_slice(&found[1..]);
            remove_trackbacks(&mut res);
            let last = res[res.len() - 1];
            let target = if last == a.target_ref {
                a.target_pos
            } else {
                // A partial path: the target moves inside its last polygon.
                match self.query.closest_point_on_poly(mesh, last, a.target_pos) {
                    Ok(c) => c.point,
                    Err(_) => a.corridor.target(),
                }
            };
            a.corridor.set_corridor(target, &res);
            a.boundary.reset();
            set_valid(a);
        }
    }

    /// Grid requests, after the mesh's: the budget left over, first come first served, one
    /// sliced grid A* at a time from the cell under the agent to its goal cell.
    pub(super) fn update_grid_requests(
        &mut self,
        world: &WorldContext<'_>,
        stats: &mut UpdateStats,
    ) {
        let mut remaining = self
            .settings
            .path_budget
            .saturating_sub(stats.path_iterations);
        while remaining > 0 {
            let (id, serial, used, mut start) = match self.grid_active.take() {
                Some(x) => x,
                None => {
                    let Some((id, serial)) = self.grid_queue.pop_front() else {
                        break;
                    };
                    (id, serial, u64::MAX, (0, 0))
                }
            };
            let Ok(i) = self.agents.binary_search_by_key(&id, |a| a.id()) else {
                continue;
            };
            let a = &mut self.agents[i];
            if a.serial != serial || a.target_state != TargetState::WaitingForPath {
                continue;
            }
            // The request's heuristic weight (a hybrid's far phase: 1).
            let weight = request_weight(a);
            let Some(guide) = a.grid.as_mut() else {
                continue;
            };
            let Some(grid) = world.grid(guide.grid_id) else {
                a.target_state = TargetState::NoPath;
                a.nav.steering.should_move = false;
                continue;
            };
            let used = if used == u64::MAX {
                // Begin: from the cell under the agent (a loaded guide: its recorded start).
                let p = a.nav.motion.position;
                let from = guide.start.map(|(x, y)| (i64::from(x), i64::from(y)));
                start = match from.or_else(|| grid.space().cell_at(p[0], p[2])) {
                    Some((x, y))
                        if x >= 0
                            && y >= 0
                            && x < i64::from(grid.width())
                            && y < i64::from(grid.height()) =>
                    {
                        (x as u32, y as u32)
                    }
                    _ => {
                        a.target_state = TargetState::NoPath;
                        a.nav.steering.should_move = false;
                        continue;
                    }
                };
                let weighted = grid_search_for(&mut self.grid_search, weight);
                if weighted.is_err() || self.grid_search.begin(grid, start, guide.goal).is_err() {
                    a.target_state = TargetState::NoPath;
                    a.nav.steering.should_move = false;
                    continue;
                }
                0
            } else {
                used
            };
            let status = match self.grid_search.step(grid, remaining) {
                Ok(s) => s,
                Err(_) => {
                    // The grid changed since the search began: begin again.
                    self.grid_queue.push_back((id, serial));
                    continue;
                }
            };
            let Ok(result) = self.grid_search.result() else {
                continue;
            };
            let total = u64::from(result.iterations);
            let step_used = total.saturating_sub(used).min(remaining);
            remaining -= step_used;
            stats.path_iterations += step_used;
            if status == SearchStatus::InProgress {
                self.grid_active = Some((id, serial, total, start));
                continue;
            }
            stats.requests_served += 1;
            if result.status != GridPathStatus::Found || result.nodes.is_empty() {
                a.target_state = TargetState::NoPath;
                a.nav.steering.should_move = false;
                continue;
            }
            let y = a.nav.motion.position[1];
            guide.waypoints = result
                .nodes
                .iter()
                .map(|&n| {
                    let (x, z) = grid.xy(n);
                    let (cx, cz) = grid.space().cell_center(x, z);
                    [cx, y, cz]
                })
                .collect();
            guide.next = match guide.resume.take() {
                // A loaded guide resumes its recorded progress.
                Some(k) => k.min(guide.waypoints.len() - 1),
                None => usize::from(guide.waypoints.len() > 1),
            };
            guide.start = None;
            set_valid(a);
        }
    }

    /// 5. Topology optimisation: agents due (every [`TOPOLOGY_OPT_INTERVAL`]) longest
    ///    waiting first, then by id, at most `topology_opt_per_update` of them.
    pub(super) fn update_topology_optimization(&mut self, mesh: &TiledNavMesh, dt: f64) {
        let mut due = std::mem::take(&mut self.topology_due);
        due.clear();
        for (i, a) in self.agents.iter_mut().enumerate() {
            if a.state != AgentState::Walking
                || !matches!(a.target_state, TargetState::Valid)
                || !a
                    .params
                    .update_flags
                    .contains(UpdateFlags::OPTIMIZE_TOPOLOGY)
            {
                continue;
            }
            a.topology_opt_time += dt;
            if a.topology_opt_time >= TOPOLOGY_OPT_INTERVAL {
                due.push((a.topology_opt_time, i as u32));
            }
        }
        due.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        for &(_, i) in due.iter().take(self.settings.topology_opt_per_update) {
            let a = &mut self.agents[i as usize];
            let filter = a.corridor_filter();
            // A failed optimisation leaves the corridor as it was.
            let _ = a.corridor.optimize_path_topology(
                &mut self.query,
                mesh,
                &filter,
                TOPOLOGY_OPT_ITERATIONS,
            );
            a.topology_opt_time = 0.0;
        }
        self.topology_due = due;
    }
}

/// The agent's corridor went stale: it plans again from its corridor (a replan keeps to
/// the furthest polygon the quick search reaches), and counts the replan.
pub(crate) fn ask_replan(a: &mut Agent) {
    a.replanning = true;
    a.serial += 1;
    a.target_state = TargetState::Requesting;
    a.target_replan_time = 0.0;
    a.nav.steering.repath_count += 1;
}

/// The agent's corridor is set for its target: the target is valid.
pub(crate) fn set_valid(a: &mut Agent) {
    a.target_state = TargetState::Valid;
    a.target_replan_time = 0.0;
    a.nav.motion.guided = true;
    if let Some(r) = a.nav.steering.request.as_mut() {
        r.guide_active = true;
        r.waypoint_index = 0;
    }
    a.nav.steering.destination = a.corridor.target();
}

/// Whether `request` has a search range (> 0) and its target lies farther (X/Z) from its
/// origin: such a guide request has no path (`docs/crowd.md`, "Path request settings").
pub(crate) fn beyond_range(request: Option<PathRequest>) -> bool {
    request.is_some_and(|r| {
        r.max_search_range > 0.0 && dist_2d(r.origin, r.target) > r.max_search_range
    })
}

/// The heuristic weight of agent `a`'s grid search: its grid A* request's weight, 1 for
/// any other request (a hybrid's far phase).
pub(crate) fn request_weight(a: &Agent) -> f64 {
    match a.nav.steering.request.map(|r| r.settings) {
        Some(RequestSettings::GridAStar { heuristic_weight }) => heuristic_weight,
        _ => 1.0,
    }
}

/// Makes `search` a grid A* with heuristic weight `weight` and the default grid options
/// otherwise: kept as it is when its weight is that one (bit for bit), else replaced by a
/// new search (a weight that is not finite and ≥ 0 is refused and `search` is kept).
pub(crate) fn grid_search_for(
    search: &mut GridAStar,
    weight: f64,
) -> Result<(), onepath_gridstate::GridError> {
    if search.options().heuristic_weight.to_bits() != weight.to_bits() {
        *search = GridAStar::new(GridOptions {
            heuristic_weight: weight,
            ..GridOptions::default()
        })?;
    }
    Ok(())
}

/// Makes `request` agent `a`'s standing request. When that changes its corridor filter
/// ([`Agent::corridor_filter`]: another walkability override, or none), the local boundary,
/// built with the old filter, is cleared and built anew with the new one at the next
/// update, so that a boundary rebuilt after a restore (with the restored request's filter)
/// holds the walls of the live one.
pub(crate) fn set_request(a: &mut Agent, request: Option<PathRequest>) {
    let before = a.corridor_filter();
    a.nav.steering.request = request;
    if a.corridor_filter() != before {
        a.boundary.reset();
    }
}

/// The filter of a request: the agent's, with the walkability override as include flags.
pub(crate) fn request_filter(base: &QueryFilter, r: &PathRequest) -> QueryFilter {
    let mut f = *base;
    if let Some(flags) = r.walkability_override {
        f.set_include_flags(flags);
    }
    f
}

pub(crate) fn poly_usable(mesh: &TiledNavMesh, r: PolyRef, filter: &QueryFilter) -> bool {
    // `poly_flags` fails exactly where `is_valid_poly_ref` is false (both decode the
    // reference with `TiledNavMesh::poly`): one decode.
    !r.is_null() && mesh.poly_flags(r).is_ok_and(|f| filter.passes_flags(f))
}

/// Removes `a b a` back-and-forths from a corridor.
pub(super) fn remove_trackbacks(path: &mut Vec<PolyRef>) {
    let mut j = 1;
    while j + 1 < path.len() {
        if path[j - 1] == path[j + 1] {
            path.drain(j..j + 2);
            j = j.saturating_sub(1).max(1);
        } else {
            j += 1;
        }
    }
}
