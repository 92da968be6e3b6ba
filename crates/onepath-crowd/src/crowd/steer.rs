//! Steps 7 to 10 of the update (`docs/crowd.md`): local boundary, corners, off-mesh link
//! trigger, desired velocity, separation, avoidance.

use super::locomotion::begin_link;
use super::*;

impl Crowd {
    /// 7 to 10. Per walking agent: local boundary, corners, visibility optimisation, off-mesh link
    ///    trigger, steering, separation, avoidance.
    pub(super) fn steer(&mut self, mesh: &TiledNavMesh, stats: &mut UpdateStats) {
        // Three passes, so that each reads every agent's state of the same phase: the
        // avoidance reads the neighbours' desired velocities of this update.
        for i in 0..self.agents.len() {
            if self.agents[i].state != AgentState::Walking {
                continue;
            }
            self.update_boundary(mesh, i);
            self.update_corners(mesh, i);
            self.trigger_link(mesh, i);
        }
        for i in 0..self.agents.len() {
            if self.agents[i].state == AgentState::Walking {
                self.desired_velocity(i);
            }
        }
        for i in 0..self.agents.len() {
            if self.agents[i].state == AgentState::Walking {
                self.separate(i);
            }
        }
        for i in 0..self.agents.len() {
            if self.agents[i].state == AgentState::Walking {
                stats.avoidance_samples += self.avoid(i);
            }
        }
    }

    /// Step 7's boundary rule: a pure function of the recorded centre and start polygon and
    /// the current mesh, so that a restored boundary (rebuilt from those inputs) and the live
    /// one agree.
    pub(super) fn update_boundary(&mut self, mesh: &TiledNavMesh, i: usize) {
        let a = &mut self.agents[i];
        let filter = a.corridor_filter();
        let range = a.params.collision_query_range;
        let pos = a.nav.motion.position;
        let thr = range * 0.25;
        let moved = a
            .boundary
            .center
            .map_or(true, |c| dist_sqr_2d(c, pos) > thr * thr);
        if !moved && !a.boundary.is_current(mesh) {
            // A tile it read changed: the same centre and start on the current mesh.
            if let Some((centre, start)) = a.boundary.inputs() {
                if a.boundary
                    .update(
                        &mut self.query,
                        mesh,
                        &filter,
                        start,
                        centre,
                        range,
                        &mut self.boundary_scratch,
                    )
                    .is_err()
                {
                    a.boundary.reset();
                }
            }
        }
        // Moved, or no boundary (never built, or its start polygon is gone): built anew
        // around the agent.
        if moved || a.boundary.center.is_none() {
            let first = a.corridor.first_poly();
            if a.boundary
                .update(
                    &mut self.query,
                    mesh,
                    &filter,
                    first,
                    pos,
                    range,
                    &mut self.boundary_scratch,
                )
                .is_err()
            {
                a.boundary.reset();
            }
        }
    }

    pub(super) fn update_corners(&mut self, mesh: &TiledNavMesh, i: usize) {
        let a = &mut self.agents[i];
        a.corners.clear();
        if a.grid.is_some() {
            return;
        }
        if !matches!(
            a.target_state,
            TargetState::Valid | TargetState::WaitingForPath | TargetState::Requesting
        ) {
            return;
        }
        let filter = &a.corridor_filter();
        if a.corridor
            .find_corners(&mut self.query, mesh, filter, &mut a.corners)
            .is_err()
        {
            a.corners.clear();
            return;
        }
        // Up to the first off-mesh departure, at most MAX_CORNERS.
        if let Some(k) = a
            .corners
            .iter()
            .position(|c| c.flags.contains(StraightPathFlags::OFF_MESH_CONNECTION))
        {
            a.corners.truncate(k + 1);
        }
        a.corners.truncate(MAX_CORNERS);
        if a.params
            .update_flags
            .contains(UpdateFlags::OPTIMIZE_VISIBILITY)
            && !a.corners.is_empty()
        {
            let next = a.corners[1.min(a.corners.len() - 1)].pos;
            let range = a.params.path_optimization_range;
            // A failed optimisation leaves the corridor as it was.
            let _ = a
                .corridor
                .optimize_path_visibility(&mut self.query, mesh, filter, next, range);
        }
    }

    /// Starts crossing an off-mesh link when the agent is within 2.25 radii of its
    /// departure and stands in the polygon it departs from.
    pub(super) fn trigger_link(&mut self, mesh: &TiledNavMesh, i: usize) -> bool {
        let a = &mut self.agents[i];
        let Some(last) = a.corners.last() else {
            return false;
        };
        if !last.flags.contains(StraightPathFlags::OFF_MESH_CONNECTION) {
            return false;
        }
        let trigger = a.params.radius * 2.25;
        let pos = a.nav.motion.position;
        if dist_sqr_2d(pos, last.pos) >= trigger * trigger {
            return false;
        }
        let filter = a.corridor_filter();
        let Ok(Some((start, end))) = a.corridor.move_over_off_mesh_connection(mesh, &filter) else {
            return false;
        };
        begin_link(a, pos, start, end);
        a.corners.clear();
        a.neighbours.clear();
        true
    }

    pub(super) fn desired_velocity(&mut self, i: usize) {
        let a = &mut self.agents[i];
        let factor = a.nav.motor.handler.speed_factor();
        let max_speed = a.params.max_speed * factor;
        let s = &mut a.nav.steering;
        match a.target_state {
            TargetState::Velocity => {
                a.dvel = [a.target_pos[0], 0.0, a.target_pos[2]];
                a.desired_speed = len_2d(a.dvel);
                s.target_direction = normalize_2d(a.dvel);
                s.distance_to_target = 0.0;
                s.line_of_sight = true;
            }
            _ if a.target_state == TargetState::Valid
                && a.grid.as_ref().is_some_and(|g| !g.waypoints.is_empty()) =>
            {
                let pos = a.nav.motion.position;
                let r = a.params.radius;
                let Some(g) = a.grid.as_mut() else {
                    return;
                };
                // Waypoints within a radius are passed (never the last).
                while g.next + 1 < g.waypoints.len() && dist_2d(pos, g.waypoints[g.next]) <= r {
                    g.next += 1;
                }
                let wp = g.waypoints[g.next];
                let last = g.next + 1 == g.waypoints.len();
                let dir = normalize_2d(sub(wp, pos));
                let slow = r * s.tuning.braking;
                let to_goal = if last {
                    dist_2d(pos, wp).min(slow)
                } else {
                    slow
                };
                let speed_scale = if slow > 0.0 { to_goal / slow } else { 1.0 };
                a.desired_speed = max_speed;
                a.dvel = scale(dir, max_speed * speed_scale * s.tuning.seek_weight);
                s.target_direction = dir;
                s.line_of_sight = last;
            }
            _ if a.corners.is_empty() => {
                a.dvel = ZERO;
                a.desired_speed = 0.0;
                s.line_of_sight = false;
            }
            _ => {
                let pos = a.nav.motion.position;
                let dir = if a
                    .params
                    .update_flags
                    .contains(UpdateFlags::ANTICIPATE_TURNS)
                {
                    smooth_direction(pos, &a.corners)
                } else {
                    normalize_2d(sub(a.corners[0].pos, pos))
                };
                let last = a.corners[a.corners.len() - 1];
                let end = last.flags.contains(StraightPathFlags::END);
                let slow = a.params.radius * s.tuning.braking;
                let to_goal = if end {
                    dist_2d(pos, last.pos).min(slow)
                } else {
                    slow
                };
                let speed_scale = if slow > 0.0 { to_goal / slow } else { 1.0 };
                a.desired_speed = max_speed;
                a.dvel = scale(dir, max_speed * speed_scale * s.tuning.seek_weight);
                s.target_direction = dir;
                s.line_of_sight = end && a.corners.len() == 1;
                s.distance_to_target = dist_2d(pos, a.corridor.target());
            }
        }
    }

    pub(super) fn separate(&mut self, i: usize) {
        let a = &self.agents[i];
        if !a.params.update_flags.contains(UpdateFlags::SEPARATION) {
            return;
        }
        let range = a.params.collision_query_range;
        let inv = 1.0 / range;
        let pos = a.nav.motion.position;
        let tuning = a.nav.steering.tuning;
        let group = a.nav.steering.movement_group;
        let weight = a.params.separation_weight * tuning.separation_weight;
        let mut disp = ZERO;
        let mut w = 0.0;
        for &(_, j) in &a.neighbours {
            let b = &self.agents[j as usize];
            let q = b.nav.motion.position;
            let diff = [pos[0] - q[0], 0.0, pos[2] - q[2]];
            let d2 = len_sqr(diff);
            if d2 < 0.00001 || d2 > range * range {
                continue;
            }
            let d = d2.sqrt();
            let factor = if group != 0 && b.nav.steering.movement_group == group {
                tuning.group_factor
            } else {
                tuning.avoid_factor
            };
            let t = d * inv;
            let wgt = weight * factor * (1.0 - t * t);
            disp = mad(disp, diff, wgt / d);
            w += 1.0;
        }
        if w > 0.0001 {
            let a = &mut self.agents[i];
            a.dvel = mad(a.dvel, disp, 1.0 / w);
            // The separation never speeds the agent above its desired speed.
            let sp2 = len_sqr(a.dvel);
            let des2 = a.desired_speed * a.desired_speed;
            if sp2 > des2 && sp2 > 0.0 {
                a.dvel = scale(a.dvel, des2 / sp2);
            }
        }
    }

    /// The new velocity: sampled among neighbours and walls, or the desired one. Returns
    /// the samples scored.
    pub(super) fn avoid(&mut self, i: usize) -> u64 {
        let a = &self.agents[i];
        let AvoidanceType::Adaptive(quality) = a.params.avoidance else {
            self.agents[i].nvel = self.agents[i].dvel;
            return 0;
        };
        if !a
            .params
            .update_flags
            .contains(UpdateFlags::OBSTACLE_AVOIDANCE)
        {
            self.agents[i].nvel = self.agents[i].dvel;
            return 0;
        }
        let oa = &mut self.avoidance;
        oa.reset();
        let pos = a.nav.motion.position;
        for &(_, j) in &a.neighbours {
            let b = &self.agents[j as usize];
            oa.add_circle(
                b.nav.motion.position,
                b.params.radius,
                b.nav.motion.velocity,
                b.dvel,
            );
        }
        for &(_, s, e) in &a.boundary.segments {
            // Only walls facing the agent: OnePath polygons turn counter-clockwise in X/Z,
            // so the agent lies to the left of the walls in front of it.
            if tri_area_2d(pos, s, e) > 0.0 {
                continue;
            }
            oa.add_segment(s, e);
        }
        let params = AvoidanceParams::preset(quality);
        let vmax = a.desired_speed;
        let (nvel, n) = oa.sample_velocity_adaptive(
            &params,
            pos,
            a.params.radius,
            vmax,
            a.nav.motion.velocity,
            a.dvel,
        );
        self.agents[i].nvel = nvel;
        n as u64
    }
}

/// Steering with the turn in view: towards the first corner, pulled away from the second.
pub(super) fn smooth_direction(
    pos: Vec3,
    corners: &[onepath_mesh::query::StraightPathPoint],
) -> Vec3 {
    let p0 = corners[0].pos;
    let p1 = corners[1.min(corners.len() - 1)].pos;
    let d0 = [p0[0] - pos[0], 0.0, p0[2] - pos[2]];
    let mut d1 = [p1[0] - pos[0], 0.0, p1[2] - pos[2]];
    let (l0, l1) = (len_2d(d0), len_2d(d1));
    if l1 > 0.001 {
        d1 = scale(d1, 1.0 / l1);
    }
    normalize_2d([d0[0] - d1[0] * l0 * 0.5, 0.0, d0[2] - d1[2] * l0 * 0.5])
}
