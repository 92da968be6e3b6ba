//! Steps 3, 14, 15 and 17 of the update (`docs/crowd.md`): platforms, falls and off-mesh
//! link traversals, the heading's turn, and heightmap grounding.

use super::*;
use crate::navigator::{GroundingMode, GroundingStatus, HeightmapGrounding};

impl Crowd {
    /// Configures the agent's heightmap grounding (the navigator serialization text's
    /// `ConfigureHeightmapGrounding`): mode, preferred and active layer, ground offset and
    /// snap tolerance, each checked when `grounding` was built. The layers are looked up
    /// on the world context at each update (`docs/crowd.md`, "Heightmap grounding"); until
    /// the next update the status is [`GroundingStatus::Off`].
    /// [`CrowdError::UnknownAgent`] (nothing changes) when there is no such agent.
    pub fn configure_heightmap_grounding(
        &mut self,
        id: AgentId,
        grounding: HeightmapGrounding,
    ) -> Result<(), CrowdError> {
        let i = self.index_or_err(id)?;
        self.agents[i].nav.grounding = grounding.settings_only();
        Ok(())
    }

    /// 17. Heightmap grounding, last: each agent's feet height from its active layer
    ///     ([`ground`]). Returns the number of agents whose layer is missing.
    pub(super) fn update_grounding(&mut self, world: &WorldContext<'_>) -> u32 {
        let mut missing = 0;
        for a in &mut self.agents {
            missing += u32::from(ground(world, a));
        }
        missing
    }

    /// 3. Platforms: attached agents move by their platform's displacement.
    pub(super) fn update_platforms(&mut self, world: &WorldContext<'_>, dt: f64) {
        for a in &mut self.agents {
            let Some(pl) = a.nav.motor.handler.platform.as_mut() else {
                continue;
            };
            let Some(id) = pl.attached else {
                continue;
            };
            let Some(ppos) = world.platform(id) else {
                // The platform left the world: the agent stands where it is.
                pl.previous = pl.attached.take();
                pl.tracked_velocity = ZERO;
                a.nav.motor.handler.mode = LocomotionKind::Move;
                continue;
            };
            let delta = sub(ppos, pl.last_platform_pos);
            pl.tracked_velocity = if dt > 0.0 {
                scale(delta, 1.0 / dt)
            } else {
                ZERO
            };
            pl.last_platform_pos = ppos;
            let pos = add(a.nav.motion.position, delta);
            pl.local_offset = sub(pos, ppos);
            a.nav.motion.position = pos;
            a.nav.motor.condition = TrekCondition::OnPlatform;
        }
    }

    /// 14. Falls: gravity on falling agents; they land on the first polygon met under them,
    ///     or become invalid past the fall limit.
    pub(super) fn update_falls(&mut self, mesh: &TiledNavMesh, dt: f64) {
        let ext = self.placement_extents;
        for a in &mut self.agents {
            if a.state != AgentState::Falling {
                continue;
            }
            let filter = a.corridor_filter();
            let fall = &mut a.nav.motor.handler.fall;
            fall.vertical_speed =
                (fall.vertical_speed + fall.gravity * dt).min(fall.max_fall_speed);
            let m = &mut a.nav.motion;
            let y0 = m.position[1];
            let mut pos = m.position;
            pos[0] += m.velocity[0] * dt;
            pos[2] += m.velocity[2] * dt;
            pos[1] = y0 - fall.vertical_speed * dt;
            if let Some(end) = fall.fall_end {
                // A drop link: straight over its arrival, never below it.
                pos[0] = end[0];
                pos[2] = end[2];
                pos[1] = pos[1].max(end[1]);
            }
            if let Some(end) = fall.fall_end {
                // A drop lands on the link's arrival, already the corridor's polygon.
                m.position = pos;
                if pos[1] <= end[1] {
                    land(a, end);
                }
                continue;
            }
            // Search the column swept this step (plus the placement box).
            let half_y = (y0 - pos[1]) * 0.5 + ext[1];
            let center = [pos[0], (y0 + pos[1]) * 0.5, pos[2]];
            let landed =
                match self
                    .query
                    .find_nearest_poly(mesh, center, [ext[0], half_y, ext[2]], &filter)
                {
                    Ok(Some(n)) if n.point[1] <= y0 + ext[1] => Some(n),
                    _ => None,
                };
            m.position = pos;
            if let Some(n) = landed {
                a.corridor.reset(n.poly, n.point);
                land(a, n.point);
                if matches!(
                    a.target_state,
                    TargetState::Valid | TargetState::WaitingForPath
                ) {
                    a.serial += 1;
                    a.target_state = TargetState::Requesting;
                }
            } else if fall.fall_start[1] - pos[1] > fall.max_fall_distance {
                fall.falling = false;
                a.state = AgentState::Invalid;
                a.nav.motor.condition = TrekCondition::Airborne;
            }
        }
    }

    /// 15. Off-mesh links: the traversal advances by dt; at its end the agent stands on the
    ///     arrival point and walks on.
    pub(super) fn update_links(&mut self, dt: f64) {
        for a in &mut self.agents {
            if a.state != AgentState::OffMesh {
                continue;
            }
            let h = &mut a.nav.motor.handler;
            let (kind, t) = match (
                h.jump.and_then(|j| j.active),
                h.climb.and_then(|c| c.active),
            ) {
                (Some(t), _) => (LocomotionKind::Jump, t),
                (None, Some(t)) => (LocomotionKind::Climb, t),
                (None, None) => {
                    a.state = AgentState::Walking;
                    continue;
                }
            };
            let mut t = t;
            t.elapsed += dt;
            let arc = h.jump.map_or(0.0, |j| j.arc_per_length);
            let done = t.elapsed >= t.duration;
            let pos = if done {
                t.end
            } else {
                traversal_point(kind, &t, arc)
            };
            a.nav.motion.velocity = ZERO;
            a.dvel = ZERO;
            a.nav.motion.position = pos;
            let slot = match kind {
                LocomotionKind::Jump => h.jump.as_mut().map(|j| &mut j.active),
                _ => h.climb.as_mut().map(|c| &mut c.active),
            };
            if let Some(slot) = slot {
                *slot = if done { None } else { Some(t) };
            }
            if done {
                if let Some(j) = h.jump.as_mut() {
                    if kind == LocomotionKind::Jump {
                        j.cooldown_left = j.cooldown;
                    }
                }
                h.mode = LocomotionKind::Move;
                a.state = AgentState::Walking;
                a.nav.motor.condition = TrekCondition::Grounded;
                a.boundary.reset();
            }
        }
    }
}

/// Begins the crossing of a link from `init` via `start` to `end`: a climb when it rises
/// more than the climb height, a drop (a fall) when it falls more than the agent's height,
/// otherwise a jump; without the mode installed, a jump's timing on a straight line.
pub(super) fn begin_link(a: &mut Agent, init: Vec3, start: Vec3, end: Vec3) {
    let h = &mut a.nav.motor.handler;
    let rise = end[1] - start[1];
    let speed = a.params.max_speed.max(0.01);
    let flat = dist_2d(start, end);
    a.nav.motor.condition = TrekCondition::OnLink;
    if let Some(c) = h.climb.as_mut().filter(|c| rise > c.min_height) {
        // The uncompensated share of gravity slows the rise (a compensation of 1 keeps the
        // climb speed exactly).
        let rise_speed = (c.speed * c.gravity_compensation).max(0.01);
        let duration = (rise / rise_speed + flat / speed).max(0.01);
        c.active = Some(LinkTraversal {
            init_pos: init,
            start,
            end,
            elapsed: 0.0,
            duration,
        });
        h.mode = LocomotionKind::Climb;
        a.state = AgentState::OffMesh;
        return;
    }
    if -rise > a.params.height && h.jump.is_none() {
        // A drop: the agent falls from the departure to the arrival.
        a.nav.motion.position = start;
        a.nav.motion.velocity = ZERO;
        start_fall(a, Some(end));
        return;
    }
    // Detour's timing: half the time of walking the link, 15 % of it to reach the start.
    let duration = (flat / speed * 0.5).max(0.01);
    let t = LinkTraversal {
        init_pos: init,
        start,
        end,
        elapsed: 0.0,
        duration,
    };
    match h.jump.as_mut() {
        Some(j) => j.active = Some(t),
        None => {
            // No jump mode: the Move mode crosses the link on the straight line.
            h.jump = Some(crate::navigator::JumpLocomotion {
                arc_per_length: 0.0,
                cooldown: 0.0,
                active: Some(t),
                cooldown_left: 0.0,
            });
        }
    }
    h.mode = LocomotionKind::Jump;
    a.state = AgentState::OffMesh;
}

/// Grounds agent `a` on its layer of `world` (`docs/crowd.md`, "Heightmap grounding"): the
/// preferred layer when registered (it becomes the active one), else the active layer when
/// registered; a walking agent over the layer gets its feet height (the layer's height at
/// its X/Z plus the ground offset), in Snap mode only when the layer lies within the snap
/// tolerance of its navmesh height. Only the grounding's status, active layer and feet
/// height change.
/// Returns true when grounding is on and no layer is registered (the failure is the
/// status [`GroundingStatus::MissingLayer`]; nothing is built in the layer's place).
pub(crate) fn ground(world: &WorldContext<'_>, a: &mut Agent) -> bool {
    let g = &mut a.nav.grounding;
    let active = g.active_layer();
    if g.mode() == GroundingMode::Off {
        g.set_outcome(GroundingStatus::Off, active, None);
        return false;
    }
    if a.state != AgentState::Walking {
        g.set_outcome(GroundingStatus::NotWalking, active, None);
        return false;
    }
    let registered =
        |n: Option<crate::LayerName>| n.and_then(|n| world.heightmap(n.as_str()).map(|h| (n, h)));
    let Some((name, layer)) = registered(g.preferred_layer()).or_else(|| registered(active)) else {
        g.set_outcome(GroundingStatus::MissingLayer, active, None);
        return true;
    };
    let p = a.nav.motion.position;
    let (status, foot) = match layer.height_at(p[0], p[2]) {
        None => (GroundingStatus::OffLayer, None),
        // Heights and positions are finite: the comparison has no NaN case.
        Some(h) if g.mode() == GroundingMode::Snap && (h - p[1]).abs() > g.snap_tolerance() => {
            (GroundingStatus::OutOfTolerance, None)
        }
        Some(h) => (GroundingStatus::Grounded, Some(h + g.ground_offset())),
    };
    g.set_outcome(status, Some(name), foot);
    false
}

/// The fall ends at `pos`: the agent walks on from there.
fn land(a: &mut Agent, pos: Vec3) {
    a.nav.motion.position = pos;
    a.nav.motion.velocity = ZERO;
    let fall = &mut a.nav.motor.handler.fall;
    fall.falling = false;
    fall.fall_end = None;
    fall.vertical_speed = 0.0;
    a.state = AgentState::Walking;
    a.nav.motor.handler.mode = LocomotionKind::Move;
    a.nav.motor.condition = TrekCondition::Grounded;
    a.boundary.reset();
}

pub(super) fn start_fall(a: &mut Agent, end: Option<Vec3>) {
    let fall = &mut a.nav.motor.handler.fall;
    fall.falling = true;
    fall.fall_start = a.nav.motion.position;
    fall.fall_end = end;
    fall.vertical_speed = 0.0;
    a.nav.motor.handler.mode = LocomotionKind::Fall;
    a.nav.motor.condition = TrekCondition::Airborne;
    a.state = AgentState::Falling;
    a.boundary.reset();
    a.neighbours.clear();
}

/// The point of a traversal: the first 15 % of the time to the departure, then along the
/// link (a jump with an arc of `arc` per unit of length; a climb up first, then across).
pub(super) fn traversal_point(kind: LocomotionKind, t: &LinkTraversal, arc: f64) -> Vec3 {
    let ta = t.duration * 0.15;
    if t.elapsed < ta {
        return lerp(t.init_pos, t.start, t.elapsed / ta);
    }
    let u = ((t.elapsed - ta) / (t.duration - ta)).clamp(0.0, 1.0);
    match kind {
        LocomotionKind::Climb => {
            let rise = t.end[1] - t.start[1];
            let flat = dist_2d(t.start, t.end);
            let total = rise + flat;
            let s = u * total;
            if s < rise || flat == 0.0 {
                [t.start[0], t.start[1] + s.min(rise), t.start[2]]
            } else {
                let top = [t.start[0], t.end[1], t.start[2]];
                lerp(top, t.end, (s - rise) / flat)
            }
        }
        _ => {
            let mut p = lerp(t.start, t.end, u);
            p[1] += arc * dist_2d(t.start, t.end) * 4.0 * u * (1.0 - u);
            p
        }
    }
}

/// Turns heading `from` towards `to` by at most `max_step` radians (a rate of 0 turns at
/// once); the result lies in (−π, π].
pub(super) fn turn_towards(from: f64, to: f64, max_step: f64, rate: f64) -> f64 {
    use core::f64::consts::{PI, TAU};
    let mut d = libm::remainder(to - from, TAU);
    if d <= -PI {
        d += TAU;
    }
    let step = if rate <= 0.0 || d.abs() <= max_step {
        d
    } else {
        max_step.copysign(d)
    };
    let mut r = libm::remainder(from + step, TAU);
    if r <= -PI {
        r += TAU;
    }
    r
}
