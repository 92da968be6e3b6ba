//! Velocity-sampling obstacle avoidance with the adaptive pattern (Detour's algorithm,
//! written anew over f64): candidate velocities on rings of directions around the desired
//! one, each scored by its distance from the desired and current velocities, the side it
//! passes obstacles on and its time of impact; the best candidate is refined on a pattern
//! half the size, `adaptive_depth` times. Candidates are tried in pattern order and a
//! candidate replaces the best only when strictly better, so the first of equal scores wins.

use onepath_mesh::query::Vec3;

use crate::geom::{dist_2d, dist_pt_seg_sqr_2d, dot_2d, normalize_2d, perp_2d, sub, tri_area_2d};
use crate::params::AvoidanceParams;

/// Largest directions per ring and rings of the pattern.
const MAX_DIVS: usize = 32;
const MAX_RINGS: usize = 4;

/// A moving circle obstacle (a neighbour).
#[derive(Debug, Clone, Copy)]
struct Circle {
    p: Vec3,
    vel: Vec3,
    dvel: Vec3,
    rad: f64,
    /// Unit direction from the agent to the obstacle, and its side normal.
    dp: Vec3,
    np: Vec3,
    /// Offset from the agent and `|s|² − (r_agent + rad)²` (the sweep's constants).
    s: Vec3,
    c: f64,
}

/// A wall segment obstacle.
#[derive(Debug, Clone, Copy)]
struct Segment {
    p: Vec3,
    q: Vec3,
    /// The agent's centre touches the segment (within 0.01).
    touch: bool,
    /// The per-agent constants of the ray test (`isect_ray_seg`) and of the touch test:
    /// `q − p`, `pos − p`, `perp(q − p, pos − p)` and the outward normal `(v.z, −v.x)`.
    v: Vec3,
    w: Vec3,
    vw: f64,
    snorm: Vec3,
}

/// The obstacles around one agent and the sampling of its new velocity; buffers reused
/// between agents.
#[derive(Debug, Default, Clone)]
pub(crate) struct ObstacleAvoidance {
    circles: Vec<Circle>,
    segments: Vec<Segment>,
    pattern: Vec<(f64, f64)>,
    /// The pattern's rotations for one division count, computed once (the same `libm`
    /// values every time): divisions, `cos da`, `sin da`, `cos da/2`, `sin da/2`.
    turns: Option<(usize, f64, f64, f64, f64)>,
}

/// Time interval of the sweep of a circle moving at `v` against a still one, `s` the
/// offset between their centres and `c = |s|² − (r₀ + r₁)²`: `None` when they never touch
/// or `v` is (nearly) zero.
fn sweep_circle_circle(s: Vec3, c: f64, v: Vec3) -> Option<(f64, f64)> {
    const EPS: f64 = 0.0001;
    let a = dot_2d(v, v);
    if a < EPS {
        return None;
    }
    let b = dot_2d(v, s);
    let d = b * b - a * c;
    if d < 0.0 {
        return None;
    }
    let inv_a = 1.0 / a;
    let rd = d.sqrt();
    Some(((b - rd) * inv_a, (b + rd) * inv_a))
}

/// The parameter along ray `ap + u·t` where it crosses segment `bp → bq`, in 0..=1 on both.
#[cfg(test)]
fn isect_ray_seg(ap: Vec3, u: Vec3, bp: Vec3, bq: Vec3) -> Option<f64> {
    let v = sub(bq, bp);
    let w = sub(ap, bp);
    isect_ray_seg_with(u, v, w, perp_2d(v, w))
}

/// The crossing parameter of `isect_ray_seg`, with the terms that do not depend on the
/// ray given: `v = bq − bp`, `w = ap − bp`, `vw = perp(v, w)`.
#[inline]
fn isect_ray_seg_with(u: Vec3, v: Vec3, w: Vec3, vw: f64) -> Option<f64> {
    let d = perp_2d(u, v);
    if d.abs() < 1e-6 {
        return None;
    }
    let inv_d = 1.0 / d;
    let t = vw * inv_d;
    if !(0.0..=1.0).contains(&t) {
        return None;
    }
    let s = perp_2d(u, w) * inv_d;
    if !(0.0..=1.0).contains(&s) {
        return None;
    }
    Some(t)
}

/// Rotates `v` (X/Z) by the angle of cosine `c` and sine `s`.
fn rotate_2d(v: Vec3, c: f64, s: f64) -> Vec3 {
    [v[0] * c - v[2] * s, 0.0, v[0] * s + v[2] * c]
}

impl ObstacleAvoidance {
    /// Forgets every obstacle.
    pub(crate) fn reset(&mut self) {
        self.circles.clear();
        self.segments.clear();
    }

    /// A neighbour at `p` of radius `rad` moving at `vel`, wanting `dvel`.
    pub(crate) fn add_circle(&mut self, p: Vec3, rad: f64, vel: Vec3, dvel: Vec3) {
        self.circles.push(Circle {
            p,
            vel,
            dvel,
            rad,
            dp: [0.0; 3],
            np: [0.0; 3],
            s: [0.0; 3],
            c: 0.0,
        });
    }

    /// A wall from `p` to `q`.
    pub(crate) fn add_segment(&mut self, p: Vec3, q: Vec3) {
        self.segments.push(Segment {
            p,
            q,
            touch: false,
            v: [0.0; 3],
            w: [0.0; 3],
            vw: 0.0,
            snorm: [0.0; 3],
        });
    }

    fn prepare(&mut self, pos: Vec3, rad: f64, dvel: Vec3) {
        for c in &mut self.circles {
            let dp = normalize_2d(sub(c.p, pos));
            let dv = sub(c.dvel, dvel);
            let a = tri_area_2d([0.0; 3], dp, dv);
            c.dp = dp;
            c.s = sub(c.p, pos);
            let r = rad + c.rad;
            c.c = dot_2d(c.s, c.s) - r * r;
            c.np = if a < 0.01 {
                [-dp[2], 0.0, dp[0]]
            } else {
                [dp[2], 0.0, -dp[0]]
            };
        }
        // The agent's centre within 0.01 of a wall touches it (Detour's constant).
        for s in &mut self.segments {
            s.touch = dist_pt_seg_sqr_2d(pos, s.p, s.q) < 0.01 * 0.01;
            s.v = sub(s.q, s.p);
            s.w = sub(pos, s.p);
            s.vw = perp_2d(s.v, s.w);
            s.snorm = [s.v[2], 0.0, -s.v[0]];
        }
    }

    /// The penalty of candidate velocity `vcand`, or `min_penalty` as soon as it cannot beat
    /// it.
    #[allow(clippy::too_many_arguments)]
    fn process_sample(
        &self,
        p: &AvoidanceParams,
        inv_vmax: f64,
        vcand: Vec3,
        vel: Vec3,
        dvel: Vec3,
        min_penalty: f64,
    ) -> f64 {
        let vpen = p.weight_desired_vel * (dist_2d(vcand, dvel) * inv_vmax);
        let vcpen = p.weight_current_vel * (dist_2d(vcand, vel) * inv_vmax);
        // The impact time below which this candidate cannot beat the best so far.
        let min_pen = min_penalty - vpen - vcpen;
        let t_threshold = (p.weight_toi / min_pen - 0.1) * p.horizon_time;
        if t_threshold - p.horizon_time > -f64::EPSILON {
            return min_penalty;
        }
        let mut tmin = p.horizon_time;
        let mut side = 0.0;
        let mut nside = 0u32;
        // Reciprocal: each side takes half of the avoidance (`2·vcand − vel − c.vel`, the
        // first difference shared by every circle).
        let (v2x, v2z) = (vcand[0] * 2.0 - vel[0], vcand[2] * 2.0 - vel[2]);
        for c in &self.circles {
            let vab = [v2x - c.vel[0], 0.0, v2z - c.vel[2]];
            side += (dot_2d(c.dp, vab) * 0.5 + 0.5)
                .min(dot_2d(c.np, vab) * 2.0)
                .clamp(0.0, 1.0);
            nside += 1;
            let Some((mut htmin, htmax)) = sweep_circle_circle(c.s, c.c, vab) else {
                continue;
            };
            // Already overlapping: the time to separate counts.
            if htmin < 0.0 && htmax > 0.0 {
                htmin = -htmin * 0.5;
            }
            if htmin >= 0.0 && htmin < tmin {
                tmin = htmin;
                if tmin < t_threshold {
                    return min_penalty;
                }
            }
        }
        for s in &self.segments {
            let htmin = if s.touch {
                // Touching: moving away from the wall is free, towards it an impact now.
                // The outward normal of a counter-clockwise polygon's edge.
                if dot_2d(s.snorm, vcand) < 0.0 {
                    continue;
                }
                0.0
            } else {
                match isect_ray_seg_with(vcand, s.v, s.w, s.vw) {
                    Some(t) => t,
                    None => continue,
                }
            };
            // Avoid less when facing walls.
            let htmin = htmin * 2.0;
            if htmin < tmin {
                tmin = htmin;
                if tmin < t_threshold {
                    return min_penalty;
                }
            }
        }
        if nside > 0 {
            side /= f64::from(nside);
        }
        let spen = p.weight_side * side;
        let tpen = p.weight_toi * (1.0 / (0.1 + tmin * (1.0 / p.horizon_time)));
        vpen + vcpen + spen + tpen
    }

    /// The new velocity of an agent at `pos` (radius `rad`, speed limit `vmax`) moving at
    /// `vel` and wanting `dvel`, among the obstacles added; returns it and the number of
    /// candidates scored.
    pub(crate) fn sample_velocity_adaptive(
        &mut self,
        params: &AvoidanceParams,
        pos: Vec3,
        rad: f64,
        vmax: f64,
        vel: Vec3,
        dvel: Vec3,
    ) -> (Vec3, usize) {
        self.prepare(pos, rad, dvel);
        let inv_vmax = if vmax > 0.0 { 1.0 / vmax } else { 0.0 };
        let ndivs = usize::from(params.adaptive_divs).clamp(1, MAX_DIVS);
        let nrings = usize::from(params.adaptive_rings).clamp(1, MAX_RINGS);
        let depth = usize::from(params.adaptive_depth).clamp(1, 8);
        let (ca, sa, ch, sh) = match self.turns {
            Some((n, ca, sa, ch, sh)) if n == ndivs => (ca, sa, ch, sh),
            _ => {
                let da = core::f64::consts::PI * 2.0 / ndivs as f64;
                let t = (libm::cos(da), libm::sin(da));
                let h = (libm::cos(da * 0.5), libm::sin(da * 0.5));
                self.turns = Some((ndivs, t.0, t.1, h.0, h.1));
                (t.0, t.1, h.0, h.1)
            }
        };
        // The two start directions: the desired direction and it turned by half a step.
        let d0 = normalize_2d(dvel);
        let d1 = rotate_2d(d0, ch, sh);
        let pat = &mut self.pattern;
        pat.clear();
        pat.push((0.0, 0.0));
        for j in 0..nrings {
            let r = (nrings - j) as f64 / nrings as f64;
            let d = if j % 2 == 0 { d0 } else { d1 };
            let first = (d[0] * r, d[2] * r);
            pat.push(first);
            let (mut right, mut left) = (first, first);
            let mut i = 1;
            while i + 1 < ndivs {
                right = (right.0 * ca + right.1 * sa, -right.0 * sa + right.1 * ca);
                left = (left.0 * ca - left.1 * sa, left.0 * sa + left.1 * ca);
                pat.push(right);
                pat.push(left);
                i += 2;
            }
            if ndivs % 2 == 0 {
                pat.push((left.0 * ca - left.1 * sa, left.0 * sa + left.1 * ca));
            }
        }
        let mut cr = vmax * (1.0 - params.vel_bias);
        let mut res = [dvel[0] * params.vel_bias, 0.0, dvel[2] * params.vel_bias];
        let mut samples = 0;
        let limit = (vmax + 0.001) * (vmax + 0.001);
        for _ in 0..depth {
            let mut min_penalty = f64::MAX;
            let mut best = [0.0; 3];
            for &(px, pz) in self.pattern.iter() {
                let vcand = [res[0] + px * cr, 0.0, res[2] + pz * cr];
                if vcand[0] * vcand[0] + vcand[2] * vcand[2] > limit {
                    continue;
                }
                let penalty = self.process_sample(params, inv_vmax, vcand, vel, dvel, min_penalty);
                samples += 1;
                if penalty < min_penalty {
                    min_penalty = penalty;
                    best = vcand;
                }
            }
            res = best;
            cr *= 0.5;
        }
        (res, samples)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::AvoidanceQuality;

    #[test]
    fn without_obstacles_the_desired_velocity_is_kept_closely() {
        let mut oa = ObstacleAvoidance::default();
        let p = AvoidanceParams::preset(AvoidanceQuality::High);
        let (v, n) = oa.sample_velocity_adaptive(&p, [0.0; 3], 0.5, 2.0, [0.0; 3], [2.0, 0.0, 0.0]);
        assert!(n > 0);
        assert!(dist_2d(v, [2.0, 0.0, 0.0]) < 0.3, "{v:?}");
    }

    #[test]
    fn an_agent_ahead_turns_the_velocity_aside() {
        let mut oa = ObstacleAvoidance::default();
        let p = AvoidanceParams::preset(AvoidanceQuality::High);
        oa.add_circle([1.5, 0.0, 0.0], 0.5, [-2.0, 0.0, 0.0], [-2.0, 0.0, 0.0]);
        let (v, _) =
            oa.sample_velocity_adaptive(&p, [0.0; 3], 0.5, 2.0, [2.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
        assert!(v[2].abs() > 0.2, "the head-on velocity must bend: {v:?}");
    }

    #[test]
    fn the_same_obstacles_give_the_same_bits() {
        let run = || {
            let mut oa = ObstacleAvoidance::default();
            let p = AvoidanceParams::preset(AvoidanceQuality::Good);
            oa.add_circle([1.0, 0.0, 0.3], 0.4, [-1.0, 0.0, 0.0], [-1.0, 0.0, 0.1]);
            oa.add_segment([2.0, 0.0, -3.0], [2.0, 0.0, 3.0]);
            oa.sample_velocity_adaptive(&p, [0.0; 3], 0.5, 2.0, [1.0, 0.0, 0.0], [2.0, 0.0, 0.5])
        };
        let (a, b) = (run(), run());
        assert_eq!(a.0.map(f64::to_bits), b.0.map(f64::to_bits));
        assert_eq!(a.1, b.1);
    }

    #[test]
    fn a_ray_crosses_a_segment_only_within_both() {
        let t = isect_ray_seg([0.0; 3], [2.0, 0.0, 0.0], [1.0, 0.0, -1.0], [1.0, 0.0, 1.0]);
        assert_eq!(t, Some(0.5));
        assert_eq!(
            isect_ray_seg([0.0; 3], [0.5, 0.0, 0.0], [1.0, 0.0, -1.0], [1.0, 0.0, 1.0]),
            None
        );
    }
}
