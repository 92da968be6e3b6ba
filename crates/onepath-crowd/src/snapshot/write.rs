//! The ONCS writer: every field in the order of `docs/agent-records.md`, "Canonical crowd
//! snapshot", little-endian. Cannot fail.

use onepath_format::bytes::ByteWriter;
use onepath_mesh::query::{QueryFilter, Vec3};

use crate::agent::{Agent, AgentState, TargetState};
use crate::crowd::Crowd;
use crate::navigator::{
    LinkTraversal, LocomotionHandler, LocomotionKind, Motor, PathRequest, PathRequestKind,
    RequestSettings, Steering, TravelMode, TrekCondition,
};
use crate::params::{AvoidanceQuality, AvoidanceType};
use crate::queue::QueuedRequest;

use super::{ONCS_MAGIC, ONCS_VERSION};

/// The little-endian writer with the snapshot's compound values.
pub(super) struct W(pub(super) ByteWriter);

impl W {
    fn v3(&mut self, v: Vec3) {
        for c in v {
            self.0.f64(c);
        }
    }

    fn flag(&mut self, b: bool) {
        self.0.u8(u8::from(b));
    }

    fn opt_v3(&mut self, v: Option<Vec3>) {
        self.flag(v.is_some());
        if let Some(v) = v {
            self.v3(v);
        }
    }

    fn opt_u32(&mut self, v: Option<u32>) {
        self.flag(v.is_some());
        if let Some(v) = v {
            self.0.u32(v);
        }
    }

    /// Include and exclude flags, a mask of the area costs other than 1, those costs.
    pub(super) fn filter(&mut self, f: &QueryFilter) {
        self.0.u16(f.include_flags());
        self.0.u16(f.exclude_flags());
        let mut mask = 0u64;
        for area in 0..64u8 {
            if f.area_cost(area).to_bits() != 1.0f64.to_bits() {
                mask |= 1 << area;
            }
        }
        self.0.u64(mask);
        for area in 0..64u8 {
            if mask & (1 << area) != 0 {
                self.0.f64(f.area_cost(area));
            }
        }
    }

    fn traversal(&mut self, t: &Option<LinkTraversal>) {
        self.flag(t.is_some());
        if let Some(t) = t {
            self.v3(t.init_pos);
            self.v3(t.start);
            self.v3(t.end);
            self.0.f64(t.elapsed);
            self.0.f64(t.duration);
        }
    }

    pub(super) fn queued(&mut self, q: &QueuedRequest) {
        self.0.u32(q.agent.0);
        self.0.u64(q.serial);
        self.0.u64(q.start_ref.0);
        self.v3(q.start_pos);
        self.0.u64(q.end_ref.0);
        self.v3(q.end_pos);
        self.filter(&q.filter);
        self.0.u64(q.max_iterations);
    }

    pub(super) fn request(&mut self, r: &PathRequest) {
        self.0.u8(request_kind_code(r.kind));
        self.v3(r.origin);
        self.v3(r.target);
        self.0.f64(r.unit_size);
        self.flag(r.walkability_override.is_some());
        if let Some(f) = r.walkability_override {
            self.0.u16(f);
        }
        self.0.f64(r.max_search_range);
        match r.settings {
            RequestSettings::NavMesh { max_iterations } => {
                self.0.u8(0);
                self.0.u64(max_iterations);
            }
            RequestSettings::GridAStar { heuristic_weight } => {
                self.0.u8(1);
                self.0.f64(heuristic_weight);
            }
            RequestSettings::FlowField { extra_flood_range } => {
                self.0.u8(2);
                self.0.u32(extra_flood_range);
            }
            RequestSettings::Voxel { max_climb_height } => {
                self.0.u8(3);
                self.0.f64(max_climb_height);
            }
            RequestSettings::Hybrid { switch_distance } => {
                self.0.u8(4);
                self.0.f64(switch_distance);
            }
            RequestSettings::GridReplan { algorithm } => {
                self.0.u8(5);
                self.0.u8(algorithm as u8);
            }
        }
        self.flag(r.guide_active);
        self.0.u32(r.waypoint_index);
        self.0.u32(r.context_id);
    }

    fn steering(&mut self, s: &Steering) {
        let bits = u8::from(s.should_move)
            | u8::from(s.is_stuck) << 1
            | u8::from(s.at_destination) << 2
            | u8::from(s.line_of_sight) << 3
            | u8::from(s.auto_stop) << 4;
        self.0.u8(bits);
        self.v3(s.destination);
        self.v3(s.requested_destination);
        self.v3(s.target_direction);
        self.0.f64(s.distance_to_target);
        let t = &s.tuning;
        for v in [
            t.stop_multiplier,
            t.group_factor,
            t.avoid_factor,
            t.seek_weight,
            t.separation_weight,
            t.braking,
        ] {
            self.0.f64(v);
        }
        self.0.f64(s.repath_cooldown);
        self.0.f64(s.stuck_time);
        self.0.u32(s.stuck_count);
        self.0.u32(s.repath_count);
        self.0.u32(s.movement_group);
        self.0.u8(travel_mode_code(s.travel_mode));
        self.flag(s.request.is_some());
        if let Some(r) = &s.request {
            self.request(r);
        }
    }

    fn handler(&mut self, h: &LocomotionHandler) {
        self.flag(h.in_control);
        self.0.u8(h.installed);
        self.0.u8(h.mode as u8);
        let present = present_bits(h);
        self.0.u8(present);
        self.0.f64(h.walk.speed_factor);
        self.v3(h.walk.frame_velocity);
        let f = &h.fall;
        self.0.f64(f.gravity);
        self.0.f64(f.max_fall_speed);
        self.0.f64(f.max_fall_distance);
        self.flag(f.falling);
        self.v3(f.fall_start);
        self.opt_v3(f.fall_end);
        self.0.f64(f.vertical_speed);
        if let Some(j) = &h.jump {
            self.0.f64(j.arc_per_length);
            self.0.f64(j.cooldown);
            self.traversal(&j.active);
            self.0.f64(j.cooldown_left);
        }
        if let Some(s) = &h.slide {
            self.0.u8(s.slope_area);
            self.0.f64(s.speed_factor);
            self.flag(s.is_sliding);
        }
        if let Some(w) = &h.water {
            self.0.u8(w.water_area);
            self.0.f64(w.speed_factor);
            self.0.f64(w.swim_time);
            self.0.f64(w.total_swim_time);
        }
        if let Some(f) = &h.fly {
            self.0.f64(f.speed);
            self.0.f64(f.acceleration);
            self.flag(f.is_flying);
        }
        if let Some(c) = &h.climb {
            self.0.f64(c.min_height);
            self.0.f64(c.speed);
            self.traversal(&c.active);
        }
        if let Some(p) = &h.platform {
            self.opt_u32(p.attached);
            self.opt_u32(p.previous);
            self.v3(p.local_offset);
            self.v3(p.last_platform_pos);
            self.v3(p.tracked_velocity);
        }
    }

    fn motor(&mut self, m: &Motor) {
        self.0.u8(trek_code(m.condition));
        self.0.u8(trek_code(m.previous_condition));
        self.flag(m.initialized);
        self.handler(&m.handler);
    }

    fn agent(&mut self, a: &Agent) {
        self.0.u32(a.id().0);
        let p = &a.params;
        for v in [
            p.radius,
            p.height,
            p.max_speed,
            p.max_acceleration,
            p.collision_query_range,
            p.path_optimization_range,
            p.separation_weight,
        ] {
            self.0.f64(v);
        }
        self.0.u8(p.update_flags.0);
        self.0.u8(avoidance_code(p.avoidance));
        self.filter(&p.filter);
        self.0.u8(life_code(a.state));
        self.0.u8(target_code(a.target_state));
        self.0.u64(a.target_ref.0);
        self.v3(a.target_pos);
        self.0.u64(a.serial);
        self.0.f64(a.target_replan_time);
        self.flag(a.replanning);
        self.0.f64(a.topology_opt_time);
        self.v3(a.corridor.pos());
        self.v3(a.corridor.target());
        self.0.u32(a.corridor.path().len() as u32);
        for r in a.corridor.path() {
            self.0.u64(r.0);
        }
        self.flag(a.grid.is_some());
        if let Some(g) = &a.grid {
            self.0.u32(g.grid_id);
            self.0.u32(g.goal.0);
            self.0.u32(g.goal.1);
            self.0.u32(g.waypoints.len() as u32);
            for &w in &g.waypoints {
                self.v3(w);
            }
            self.0.u32(g.next as u32);
            self.flag(g.start.is_some());
            if let Some((x, y)) = g.start {
                self.0.u32(x);
                self.0.u32(y);
            }
            self.opt_u32(g.resume.map(|k| k as u32));
        }
        // The boundary's inputs (centre and start polygon), never its walls.
        let boundary = a.boundary.inputs();
        self.flag(boundary.is_some());
        if let Some((c, start)) = boundary {
            self.v3(c);
            self.0.u64(start.0);
        }
        self.v3(a.dvel);
        self.v3(a.nvel);
        let m = &a.nav.motion;
        self.v3(m.position);
        self.v3(m.last_position);
        self.0.f64(m.rotation);
        self.v3(m.velocity);
        self.0.f64(m.speed);
        self.0.f64(m.acceleration);
        self.0.f64(m.size[0]);
        self.0.f64(m.size[1]);
        self.0.f64(m.foot_offset);
        self.0.u32(m.group_id);
        self.flag(m.locked_on);
        self.0.f64(m.stuck_threshold_speed);
        self.flag(m.guided);
        self.steering(&a.nav.steering);
        self.flag(a.nav.turning.can_turn);
        self.0.f64(a.nav.turning.turn_rate);
        self.motor(&a.nav.motor);
    }
}

/// Bits of the optional modes whose records follow, in kind order.
pub(super) fn present_bits(h: &LocomotionHandler) -> u8 {
    let mut bits = 0;
    for (on, k) in [
        (h.jump.is_some(), LocomotionKind::Jump),
        (h.slide.is_some(), LocomotionKind::Slide),
        (h.water.is_some(), LocomotionKind::Water),
        (h.fly.is_some(), LocomotionKind::Fly),
        (h.climb.is_some(), LocomotionKind::Climb),
        (h.platform.is_some(), LocomotionKind::Platform),
    ] {
        if on {
            bits |= k.bit();
        }
    }
    bits
}

pub(super) fn request_kind_code(k: PathRequestKind) -> u8 {
    match k {
        PathRequestKind::NavMesh => 0,
        PathRequestKind::GridAStar => 1,
        PathRequestKind::FlowField => 2,
        PathRequestKind::Voxel => 3,
        PathRequestKind::Hybrid => 4,
        PathRequestKind::GridReplan => 5,
    }
}

fn travel_mode_code(t: TravelMode) -> u8 {
    match t {
        TravelMode::Idle => 0,
        TravelMode::Path => 1,
        TravelMode::Velocity => 2,
    }
}

fn trek_code(t: TrekCondition) -> u8 {
    match t {
        TrekCondition::Grounded => 0,
        TrekCondition::Airborne => 1,
        TrekCondition::OnLink => 2,
        TrekCondition::OnPlatform => 3,
    }
}

fn avoidance_code(a: AvoidanceType) -> u8 {
    match a {
        AvoidanceType::None => 0,
        AvoidanceType::Adaptive(AvoidanceQuality::Low) => 1,
        AvoidanceType::Adaptive(AvoidanceQuality::Medium) => 2,
        AvoidanceType::Adaptive(AvoidanceQuality::Good) => 3,
        AvoidanceType::Adaptive(AvoidanceQuality::High) => 4,
    }
}

fn life_code(s: AgentState) -> u8 {
    match s {
        AgentState::Invalid => 0,
        AgentState::Walking => 1,
        AgentState::OffMesh => 2,
        AgentState::Falling => 3,
        AgentState::Flying => 4,
    }
}

fn target_code(s: TargetState) -> u8 {
    match s {
        TargetState::None => 0,
        TargetState::NoPath => 1,
        TargetState::Valid => 2,
        TargetState::Requesting => 3,
        TargetState::WaitingForPath => 4,
        TargetState::Velocity => 5,
    }
}

/// The whole snapshot of `crowd`.
pub(super) fn write_crowd(crowd: &Crowd) -> Vec<u8> {
    let mut w = W(ByteWriter::with_capacity(64 + crowd.agents.len() * 700));
    w.0.bytes(ONCS_MAGIC);
    w.0.u16(ONCS_VERSION);
    w.0.u16(0);
    let s = &crowd.settings;
    w.0.u64(s.max_agents as u64);
    w.0.f64(s.max_agent_radius);
    w.0.u64(s.path_budget);
    w.0.u64(s.topology_opt_per_update as u64);
    w.0.u64(s.max_request_iterations);
    // The proximity grid's input (its cell size); its contents are rebuilt every update.
    w.0.f64(crowd.grid.cell_size());
    w.0.u32(crowd.next_id);
    w.0.u32(crowd.agents.len() as u32);
    for a in &crowd.agents {
        w.agent(a);
    }
    w.0.u32(crowd.queue.pending.len() as u32);
    for q in &crowd.queue.pending {
        w.queued(q);
    }
    w.flag(crowd.queue.active.is_some());
    if let Some((q, used)) = &crowd.queue.active {
        w.queued(q);
        w.0.u64(*used);
    }
    w.0.u32(crowd.grid_queue.len() as u32);
    for (id, serial) in &crowd.grid_queue {
        w.0.u32(id.0);
        w.0.u64(*serial);
    }
    w.flag(crowd.grid_active.is_some());
    if let Some((id, serial, used, start)) = crowd.grid_active {
        w.0.u32(id.0);
        w.0.u64(serial);
        w.0.u64(used);
        w.0.u32(start.0);
        w.0.u32(start.1);
    }
    super::guides::write_guides(&mut w, crowd);
    super::grounding::write_navigator_ext(&mut w, crowd);
    w.0.into_vec()
}
