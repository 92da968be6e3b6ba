//! The Fly driver (`docs/crowd.md`, "Voxel guide and the Fly mode"): take-off, flight
//! along the voxel path, landing or hovering at its end.

use onepath_mesh::query::Vec3;

use super::Guide;
use crate::agent::{Agent, AgentState, TargetState};
use crate::crowd::{reset_target, Crowd};
use crate::geom::{add, len_sqr, scale, sub, ZERO};
use crate::navigator::{
    LocomotionKind, PathRequest, PathRequestKind, RequestSettings, TrekCondition,
};
use crate::world::WorldContext;

fn dist(a: Vec3, b: Vec3) -> f64 {
    len_sqr(sub(a, b)).sqrt()
}

/// The agent leaves the mesh: state `Flying`, mode Fly, airborne; its corridor keeps the
/// polygon it took off from.
pub(super) fn take_off(a: &mut Agent) {
    a.state = AgentState::Flying;
    let h = &mut a.nav.motor.handler;
    h.mode = LocomotionKind::Fly;
    if let Some(f) = h.fly.as_mut() {
        f.is_flying = true;
    }
    a.nav.motor.condition = TrekCondition::Airborne;
    a.boundary.reset();
    a.neighbours.clear();
    a.corners.clear();
    a.dvel = ZERO;
    a.nvel = ZERO;
}

/// The flyer stands on polygon `poly` at `pos`: it walks again, its target reached there
/// (its request becomes a navmesh request to the landing point).
fn land(a: &mut Agent, poly: onepath_format::PolyRef, pos: Vec3) {
    a.state = AgentState::Walking;
    a.guide = None;
    a.nav.motion.position = pos;
    a.nav.motion.velocity = ZERO;
    let h = &mut a.nav.motor.handler;
    h.mode = LocomotionKind::Move;
    if let Some(f) = h.fly.as_mut() {
        f.is_flying = false;
    }
    a.nav.motor.condition = TrekCondition::Grounded;
    a.corridor.reset(poly, pos);
    a.target_ref = poly;
    a.target_pos = pos;
    a.boundary.reset();
    let s = &mut a.nav.steering;
    s.destination = pos;
    if let Some(r) = s.request.as_mut() {
        *r = PathRequest {
            kind: PathRequestKind::NavMesh,
            origin: pos,
            target: pos,
            settings: RequestSettings::NavMesh { max_iterations: 0 },
            guide_active: true,
            waypoint_index: 0,
            context_id: 0,
            ..*r
        };
    }
}

impl Crowd {
    /// 15b. Flyers (state `Flying`), after the links: a flyer with a `Valid` voxel path
    /// moves along it (never off it: the path's segments join voxel centres whose moves
    /// have every voxel of their box free, so the flyer never enters a solid voxel). Its
    /// speed along the path moves towards `min(fly speed, √(2 · acceleration · distance
    /// left))` by at most `acceleration × dt` (an acceleration of 0: at once), and it
    /// travels that speed × dt along the segments, passing waypoints it reaches; the
    /// velocity is the displacement ÷ dt. With a gravity compensation `c` below 1, the
    /// speed then loses `(1 − c) × gravity × rise × dt` (`rise` the vertical share of the
    /// direction to the next waypoint) and is kept within `[0, fly speed]`: climbs slow,
    /// descents speed up, and a flyer whose acceleration cannot carry a climb stalls there
    /// (speed 0) until its target changes. At the end it lands on the landing polygon (state
    /// `Walking`, mode Move) or, with none, hovers there at its destination. A flyer with
    /// no path hovers (velocity zero).
    pub(crate) fn update_flyers(&mut self, _world: &WorldContext<'_>, dt: f64) {
        for a in &mut self.agents {
            if a.state != AgentState::Flying {
                continue;
            }
            let fly = a.nav.motor.handler.fly;
            let gravity = a.nav.motor.handler.fall.gravity;
            let (Some(fly), Some(Guide::Voxel(v)), TargetState::Valid) =
                (fly, a.guide.as_mut(), a.target_state)
            else {
                a.nav.motion.velocity = ZERO;
                continue;
            };
            if v.waypoints.is_empty() || dt <= 0.0 {
                a.nav.motion.velocity = ZERO;
                continue;
            }
            let m = &mut a.nav.motion;
            let old = m.position;
            let last = v.waypoints.len() - 1;
            let mut next = v.next.min(last);
            let mut left = dist(old, v.waypoints[next]);
            for k in next..last {
                left += dist(v.waypoints[k], v.waypoints[k + 1]);
            }
            let v0 = len_sqr(m.velocity).sqrt();
            let speed = if fly.acceleration > 0.0 {
                let want = fly.speed.min((2.0 * fly.acceleration * left).sqrt());
                let step = fly.acceleration * dt;
                (v0 + (want - v0).clamp(-step, step)).max(0.0)
            } else {
                fly.speed
            };
            // Gravity compensation below 1: the rest of gravity pulls along the segment
            // flown (a compensation of 1, the default, leaves the speed exactly as is).
            let speed = if fly.gravity_compensation < 1.0 {
                let w = v.waypoints[next];
                let d = dist(old, w);
                let rise = if d > 0.0 { (w[1] - old[1]) / d } else { 0.0 };
                let pull = (1.0 - fly.gravity_compensation) * gravity;
                (speed - pull * rise * dt).min(fly.speed).max(0.0)
            } else {
                speed
            };
            let mut travel = speed * dt;
            let mut pos = old;
            let mut arrived = false;
            loop {
                let w = v.waypoints[next];
                let d = dist(pos, w);
                if travel >= d {
                    pos = w;
                    travel -= d;
                    if next == last {
                        arrived = true;
                        break;
                    }
                    next += 1;
                } else {
                    if d > 0.0 {
                        pos = add(pos, scale(sub(w, pos), travel / d));
                    }
                    break;
                }
            }
            v.next = next;
            m.position = pos;
            m.velocity = scale(sub(pos, old), 1.0 / dt);
            let s = &mut a.nav.steering;
            s.distance_to_target = dist(pos, v.waypoints[last]);
            s.line_of_sight = next == last;
            if !arrived {
                continue;
            }
            m.velocity = ZERO;
            s.at_destination = true;
            let landing = v.landing;
            match landing {
                Some(poly) => land(a, poly, pos),
                None if s.auto_stop => reset_target(a),
                None => {}
            }
        }
    }
}
