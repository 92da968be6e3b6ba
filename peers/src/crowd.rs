//! DetourCrowd beside the OnePath crowd over the very same polygons (the mesh converted by
//! [`detour_mesh`](crate::onepath::detour_mesh)): the same starts, targets and agent
//! parameters (high-quality adaptive avoidance, every update flag), stepped in interleaved
//! blocks of updates so that both see the same machine load. No `unsafe` here: the
//! `dtCrowd` is owned and called through the safe wrapper of `ffi.rs`.

use std::time::{Duration, Instant};

use onepath_crowd::{AgentParams, Crowd, CrowdSettings, WorldContext};
use onepath_mesh::query::{NavMeshQuery, QueryFilter};
use onepath_mesh::TiledNavMesh;
use recastnavigation_sys as sys;

use crate::detour::DetourNavMesh;
use crate::error::PeerError;
use crate::ffi::DtCrowd;

/// Detour's update flags: anticipate turns, avoidance, separation, visibility and topology
/// optimisation.
const DT_ALL_FLAGS: u8 = 1 | 2 | 4 | 8 | 16;

/// A `dtCrowd` over a mesh it borrows.
pub struct DetourCrowd<'m> {
    crowd: DtCrowd<'m>,
}

impl std::fmt::Debug for DetourCrowd<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DetourCrowd")
    }
}

impl<'m> DetourCrowd<'m> {
    /// `dtAllocCrowd` + `init(max_agents, max_radius, mesh)`, with avoidance preset 0 set to
    /// the demo's high quality (7 divisions, 3 rings, depth 3).
    pub fn new(
        mesh: &'m DetourNavMesh,
        max_agents: i32,
        max_radius: f32,
    ) -> Result<Self, PeerError> {
        let mut crowd = DtCrowd::new(mesh, max_agents, max_radius)?;
        let set = crowd.edit_avoidance_params(0, |p| {
            p.velBias = 0.5;
            p.adaptiveDivs = 7;
            p.adaptiveRings = 3;
            p.adaptiveDepth = 3;
        });
        if !set {
            return Err(PeerError::input(
                "crowd",
                "avoidance preset 0 could not be set".to_string(),
            ));
        }
        Ok(DetourCrowd { crowd })
    }

    /// Adds an agent with OnePath's parameters (as f32) and avoidance preset 0; its index.
    pub fn add_agent(&mut self, pos: [f32; 3], p: &AgentParams) -> Option<i32> {
        let params = sys::dtCrowdAgentParams {
            radius: p.radius as f32,
            height: p.height as f32,
            maxAcceleration: p.max_acceleration as f32,
            maxSpeed: p.max_speed as f32,
            collisionQueryRange: p.collision_query_range as f32,
            pathOptimizationRange: p.path_optimization_range as f32,
            separationWeight: p.separation_weight as f32,
            updateFlags: DT_ALL_FLAGS,
            obstacleAvoidanceType: 0,
            queryFilterType: 0,
            userData: std::ptr::null_mut(),
        };
        self.crowd.add_agent(pos, &params)
    }

    /// Snaps `pos` with the crowd's query (half extents 2, 4, 2, default filter) and asks
    /// agent `idx` to go there; false when nothing is near (or `idx` is no agent).
    pub fn request_target(&mut self, idx: i32, pos: [f32; 3]) -> bool {
        self.crowd
            .request_move_target_near(idx, pos, [2.0, 4.0, 2.0])
    }

    /// One update of `dt` (a `dt` that is not finite or is negative is ignored).
    pub fn update(&mut self, dt: f32) {
        self.crowd.update(dt);
    }

    /// The position of agent `idx` (`None` for an index that is no agent of this crowd).
    pub fn position(&self, idx: i32) -> Option<[f32; 3]> {
        self.crowd.position(idx)
    }
}

/// One side-by-side run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrowdComparison {
    /// Agents in each crowd.
    pub agents: usize,
    /// Updates of each.
    pub updates: usize,
    /// Mean milliseconds per OnePath update.
    pub onepath_ms: f64,
    /// Mean milliseconds per DetourCrowd update.
    pub detour_ms: f64,
    /// OnePath agents within 1.5 radii of their target at the end.
    pub onepath_arrived: usize,
    /// Detour agents within 1.5 radii of their target at the end.
    pub detour_arrived: usize,
    /// Mean over agents of (OnePath distance walked) / (Detour distance walked).
    pub path_length_ratio: f64,
}

/// SplitMix64.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn dist2d(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]) * (a[0] - b[0]) + (a[2] - b[2]) * (a[2] - b[2])).sqrt()
}

/// Runs `agents` agents in both crowds over `mesh` (and its Detour copy `detour`) for
/// `updates` updates of 1/60 s, in blocks of `block` updates alternating between the two:
/// starts and targets are points of the seeded stream in the X/Z box `lo .. hi` (at height
/// `lo[1] .. hi[1]`) snapped on OnePath's mesh (the same coordinates given to both).
pub fn compare_crowds(
    mesh: &TiledNavMesh,
    (lo, hi): ([f64; 3], [f64; 3]),
    detour: &DetourNavMesh,
    agents: usize,
    updates: usize,
    block: usize,
    seed: u64,
) -> Result<CrowdComparison, PeerError> {
    let params = AgentParams::new(0.5);
    let mut one = Crowd::new(CrowdSettings {
        max_agents: agents,
        max_agent_radius: 0.5,
        ..CrowdSettings::default()
    })
    .map_err(|e| PeerError::input("crowd", e.to_string()))?;
    let mut dt_crowd = DetourCrowd::new(detour, agents as i32, 0.5)?;
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let mut rng = seed;
    let mut point = |q: &mut NavMeshQuery| -> Result<Option<[f64; 3]>, PeerError> {
        let u = (splitmix(&mut rng) >> 11) as f64 / (1u64 << 53) as f64;
        let v = (splitmix(&mut rng) >> 11) as f64 / (1u64 << 53) as f64;
        let y = (lo[1] + hi[1]) * 0.5;
        let p = [lo[0] + u * (hi[0] - lo[0]), y, lo[2] + v * (hi[2] - lo[2])];
        let half_y = (hi[1] - lo[1]) * 0.5 + 1.0;
        let n = q
            .find_nearest_poly(mesh, p, [0.5, half_y, 0.5], &f)
            .map_err(|e| PeerError::input("point", e.to_string()))?;
        Ok(n.map(|n| n.point))
    };
    let mut pairs = Vec::new();
    let mut guard = 0;
    while pairs.len() < agents {
        guard += 1;
        if guard > agents * 100 {
            return Err(PeerError::input(
                "crowd",
                "too few walkable points".to_string(),
            ));
        }
        let (Some(s), Some(t)) = (point(&mut q)?, point(&mut q)?) else {
            continue;
        };
        let f32p = |p: [f64; 3]| [p[0] as f32, p[1] as f32, p[2] as f32];
        let Some(di) = dt_crowd.add_agent(f32p(s), &params) else {
            continue;
        };
        let id = one
            .add_agent(mesh, s, params)
            .map_err(|e| PeerError::input("agent", e.to_string()))?;
        let tn = q
            .find_nearest_poly(mesh, t, [0.5, 0.5, 0.5], &f)
            .map_err(|e| PeerError::input("target", e.to_string()))?
            .ok_or_else(|| PeerError::input("target", "off the mesh".to_string()))?;
        one.request_move_target(id, tn.poly, tn.point)
            .map_err(|e| PeerError::input("target", e.to_string()))?;
        dt_crowd.request_target(di, f32p(t));
        pairs.push((id, di, t));
    }
    let world = WorldContext::new(mesh);
    let dt = 1.0 / 60.0;
    let (mut t_one, mut t_dt) = (Duration::ZERO, Duration::ZERO);
    let mut walked = vec![(0.0f64, 0.0f64); pairs.len()];
    let detour_pos = |c: &DetourCrowd<'_>, di: i32| {
        c.position(di).map(|p| p.map(f64::from)).ok_or_else(|| {
            PeerError::input("detour agent", format!("agent {di} is not in the crowd"))
        })
    };
    let mut last: Vec<([f64; 3], [f64; 3])> = pairs
        .iter()
        .map(|&(id, di, _)| {
            Ok((
                one.agent(id).map_or([0.0; 3], |a| a.position()),
                detour_pos(&dt_crowd, di)?,
            ))
        })
        .collect::<Result<_, PeerError>>()?;
    let mut done = 0;
    while done < updates {
        let n = block.min(updates - done);
        let start = Instant::now();
        for _ in 0..n {
            one.update(&world, dt)
                .map_err(|e| PeerError::input("update", e.to_string()))?;
        }
        t_one += start.elapsed();
        let start = Instant::now();
        for _ in 0..n {
            dt_crowd.update(dt as f32);
        }
        t_dt += start.elapsed();
        done += n;
        for (k, &(id, di, _)) in pairs.iter().enumerate() {
            let a = one.agent(id).map_or([0.0; 3], |a| a.position());
            let d = detour_pos(&dt_crowd, di)?;
            walked[k].0 += dist2d(last[k].0, a);
            walked[k].1 += dist2d(last[k].1, d);
            last[k] = (a, d);
        }
    }
    let tol = params.radius * 1.5;
    let onepath_arrived = pairs
        .iter()
        .zip(&last)
        .filter(|((_, _, t), (a, _))| dist2d(*a, *t) <= tol)
        .count();
    let detour_arrived = pairs
        .iter()
        .zip(&last)
        .filter(|((_, _, t), (_, d))| dist2d(*d, *t) <= tol)
        .count();
    let ratios: Vec<f64> = walked
        .iter()
        .filter(|w| w.1 > 0.0)
        .map(|w| w.0 / w.1)
        .collect();
    Ok(CrowdComparison {
        agents: pairs.len(),
        updates,
        onepath_ms: t_one.as_secs_f64() * 1e3 / updates as f64,
        detour_ms: t_dt.as_secs_f64() * 1e3 / updates as f64,
        onepath_arrived,
        detour_arrived,
        path_length_ratio: ratios.iter().sum::<f64>() / ratios.len().max(1) as f64,
    })
}
