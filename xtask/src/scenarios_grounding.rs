//! The hash-matrix scenario `crowd/grounding`: heightmap grounding (snap and always modes,
//! the active-layer rule, a missing layer that the host registers later) and the Fly and
//! Climb gravity compensations, on the bridge-and-building fixture.

use onepath_crowd::{
    AgentId, AgentParams, AgentState, Crowd, CrowdSettings, GroundingMode, GroundingStatus,
    Heightmap, HeightmapGrounding, LocomotionHandler, PathRequest, PathRequestKind,
    RequestSettings, WorldContext,
};
use onepath_gridstate::{VoxelGrid, VoxelSpace, WALL};
use onepath_mesh::fixtures::bridge_and_building;
use onepath_mesh::query::{NavMeshQuery, QueryFilter};
use onepath_mesh::TiledNavMesh;

use crate::hash_matrix::Recorder;

const VOXELS: u32 = 4;
const DT: f64 = 1.0 / 20.0;
const STEPS: u32 = 300;
/// The step at which the crowd's snapshot is restored into a fresh crowd.
const RESTORE_AT: u32 = 120;
/// The step from which the host registers the layer `mud`.
const MUD_AT: u32 = 200;

fn s(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// `terrain`: 41 × 33 samples one unit apart over x 0..40, z 0..32, `h = 0.02 x + 0.01 z`
/// (a slope rising along X, a little along Z).
fn terrain() -> Result<Heightmap, String> {
    let mut samples = Vec::with_capacity(41 * 33);
    for z in 0..33u8 {
        for x in 0..41u8 {
            samples.push(0.02 * f32::from(x) + 0.01 * f32::from(z));
        }
    }
    Heightmap::new([0.0, 0.0], 1.0, 41, 33, samples).map_err(s)
}

/// `mud`: 0.1 over x 0..16, z 16..32, half-unit cells.
fn mud() -> Result<Heightmap, String> {
    Heightmap::new([0.0, 16.0], 0.5, 33, 33, vec![0.1; 33 * 33]).map_err(s)
}

/// 48 × 8 × 32 unit voxels from (0, −1, 0): the layer under the ground solid and a wall
/// x = 41 up to height 4 over every z (the mesh does not have it), which the flyer crosses.
fn voxels() -> Result<VoxelGrid, String> {
    let mut v = VoxelGrid::new(48, 8, 32, 0).map_err(s)?;
    v.set_space(VoxelSpace::new([0.0, -1.0, 0.0], 1.0).map_err(s)?);
    for z in 0..32 {
        for x in 0..48 {
            v.set_area(x, 0, z, WALL).map_err(s)?;
        }
        for y in 1..5 {
            v.set_area(41, y, z, WALL).map_err(s)?;
        }
    }
    Ok(v)
}

/// Adds an agent of `params` and modes `h` at `from`, walking to the polygon nearest `to`.
fn walker(
    crowd: &mut Crowd,
    mesh: &TiledNavMesh,
    (from, to): ([f64; 3], [f64; 3]),
    params: AgentParams,
    h: LocomotionHandler,
) -> Result<AgentId, String> {
    let id = crowd.add_agent_with(mesh, from, params, h).map_err(s)?;
    let n = NavMeshQuery::new()
        .find_nearest_poly(mesh, to, [1.0, 1.0, 1.0], &QueryFilter::new())
        .map_err(s)?
        .ok_or_else(|| format!("no polygon near {to:?}"))?;
    crowd.request_move_target(id, n.poly, n.point).map_err(s)?;
    Ok(id)
}

fn grounding(
    mode: GroundingMode,
    preferred: &str,
    active: Option<&str>,
    offset: f64,
) -> Result<HeightmapGrounding, String> {
    let mut g = HeightmapGrounding::new(mode)
        .with_preferred_layer(preferred)
        .map_err(s)?
        .with_ground_offset(offset)
        .map_err(s)?
        .with_snap_tolerance(0.5)
        .map_err(s)?;
    if let Some(a) = active {
        g = g.with_active_layer(a).map_err(s)?;
    }
    Ok(g)
}

/// The agents, in the order they are added.
struct Cast {
    /// Snap on `terrain` along z = 4 from x 10 to 44: grounded, then out of tolerance
    /// (the layer rises more than 0.5 above the ground past x ≈ 23), then off the layer.
    snapper: AgentId,
    /// Always, preferred `rocks` (never registered), active `terrain`: up the stairs.
    always: AgentId,
    /// Snap on `mud`, registered from step [`MUD_AT`] only.
    mudder: AgentId,
    /// Snap on `terrain`; climbs the ladder to the bridge with compensation 0.5.
    climber: AgentId,
    /// Always on `terrain`; flies over the voxel wall with compensation 0.7 (not walking
    /// meanwhile) and lands beyond the layer.
    flyer: AgentId,
}

fn cast(crowd: &mut Crowd, w: &WorldContext<'_>) -> Result<Cast, String> {
    let mesh = w.mesh;
    let all = LocomotionHandler::with_all_modes;
    let p = AgentParams::new(0.4);
    let snapper = walker(crowd, mesh, ([10.0, 0.0, 4.0], [44.0, 0.0, 4.0]), p, all())?;
    let g = grounding(GroundingMode::Snap, "terrain", None, 0.05)?;
    crowd.configure_heightmap_grounding(snapper, g).map_err(s)?;
    let route = ([28.0, 0.0, 24.0], [10.0, 3.5, 24.0]);
    let always = walker(crowd, mesh, route, p, all())?;
    let g = grounding(GroundingMode::Always, "rocks", Some("terrain"), -0.02)?;
    crowd.configure_heightmap_grounding(always, g).map_err(s)?;
    let mudder = walker(crowd, mesh, ([2.0, 0.0, 17.0], [2.0, 0.0, 30.0]), p, all())?;
    let g = grounding(GroundingMode::Snap, "mud", None, 0.0)?;
    crowd.configure_heightmap_grounding(mudder, g).map_err(s)?;
    let mut h = all();
    h.climb
        .as_mut()
        .ok_or("no climb mode")?
        .gravity_compensation = 0.5;
    let route = ([24.0, 0.0, 14.0], [27.0, 3.0, 8.0]);
    let climber = walker(crowd, mesh, route, AgentParams::new(0.3), h)?;
    let g = grounding(GroundingMode::Snap, "terrain", None, 0.0)?;
    crowd.configure_heightmap_grounding(climber, g).map_err(s)?;
    let mut h = all();
    let fly = h.fly.as_mut().ok_or("no fly mode")?;
    fly.acceleration = 10.0;
    fly.gravity_compensation = 0.7;
    let mut fp = AgentParams::new(0.3);
    fp.max_speed = 3.0;
    let flyer = crowd
        .add_agent_with(mesh, [36.0, 0.0, 13.0], fp, h)
        .map_err(s)?;
    let request = PathRequest {
        kind: PathRequestKind::Voxel,
        origin: [0.0; 3],
        target: [46.0, 0.0, 13.0],
        unit_size: 0.3,
        walkability_override: None,
        max_search_range: 0.0,
        settings: RequestSettings::Voxel {
            max_climb_height: 0.0,
        },
        guide_active: false,
        waypoint_index: 0,
        context_id: VOXELS,
    };
    crowd.request_path(w, flyer, request).map_err(s)?;
    let g = grounding(GroundingMode::Always, "terrain", None, 0.0)?;
    crowd.configure_heightmap_grounding(flyer, g).map_err(s)?;
    Ok(Cast {
        snapper,
        always,
        mudder,
        climber,
        flyer,
    })
}

fn status_byte(g: GroundingStatus) -> u8 {
    match g {
        GroundingStatus::Off => 0,
        GroundingStatus::NotWalking => 1,
        GroundingStatus::Grounded => 2,
        GroundingStatus::OutOfTolerance => 3,
        GroundingStatus::OffLayer => 4,
        GroundingStatus::MissingLayer => 5,
    }
}

/// The crowd's state bytes, then per agent in order what the state bytes do not hold:
/// id (u32), grounding status (u8), active layer (length u8, 0 for none, and its bytes),
/// feet height (0, or 1 and the f64), then the update's missing-layer count (u32).
fn bytes(crowd: &Crowd, missing: u32, out: &mut Vec<u8>) {
    out.clear();
    crowd.write_state(out);
    for a in crowd.agents() {
        let g = a.navigator().grounding;
        out.extend_from_slice(&a.id().0.to_le_bytes());
        out.push(status_byte(g.status()));
        match g.active_layer() {
            Some(n) => {
                out.push(n.as_str().len() as u8);
                out.extend_from_slice(n.as_str().as_bytes());
            }
            None => out.push(0),
        }
        match g.foot_height() {
            Some(y) => {
                out.push(1);
                out.extend_from_slice(&y.to_le_bytes());
            }
            None => out.push(0),
        }
    }
    out.extend_from_slice(&missing.to_le_bytes());
}

/// The history: the five agents of [`Cast`], [`STEPS`] steps of 1/20 s with the layers
/// `terrain` (from the start) and `mud` (from step [`MUD_AT`]) and the voxel grid; at step
/// [`RESTORE_AT`] the crowd's snapshot (ONCS) is restored into a fresh crowd, which carries
/// on (its bytes, grounding included, checked equal to those of the crowd that never
/// left). Every step records [`bytes`]. The history must do what it says: the snapper is
/// grounded, out of tolerance and off the layer in turn; the always agent grounds on its
/// active layer; the mudder's layer is missing until step [`MUD_AT`], then it grounds; the
/// climber climbs (not walking meanwhile) and the flyer flies and lands.
pub(crate) fn crowd_grounding(rec: &mut Recorder) -> Result<(), String> {
    let mesh = bridge_and_building();
    let vox = voxels()?;
    let voxel_list = [(VOXELS, &vox)];
    let (terrain, mud) = (terrain()?, mud()?);
    let early = [("terrain", &terrain)];
    let late = [("mud", &mud), ("terrain", &terrain)];
    let world = |step: u32| WorldContext {
        voxels: &voxel_list,
        heightmaps: if step < MUD_AT { &early } else { &late },
        ..WorldContext::new(&mesh)
    };
    let mut crowd = Crowd::new(CrowdSettings::default()).map_err(s)?;
    let c = cast(&mut crowd, &world(0))?;
    let mut seen: Vec<(AgentId, GroundingStatus)> = Vec::new();
    let (mut climbed, mut flew, mut missing_total) = (false, false, 0);
    let mut restored: Option<Crowd> = None;
    let (mut mine, mut theirs) = (Vec::new(), Vec::new());
    for step in 0..STEPS {
        let w = world(step);
        if step == RESTORE_AT {
            let saved = crowd.save_snapshot();
            rec.record(format!("snapshot_{RESTORE_AT}"), &saved);
            let mut fresh = Crowd::new(CrowdSettings::default()).map_err(s)?;
            fresh.restore_snapshot(&w, &saved).map_err(s)?;
            restored = Some(fresh);
        }
        let stats = crowd.update(&w, DT).map_err(s)?;
        missing_total += stats.grounding_missing_layers;
        bytes(&crowd, stats.grounding_missing_layers, &mut mine);
        if let Some(r) = restored.as_mut() {
            let rs = r.update(&w, DT).map_err(s)?;
            bytes(r, rs.grounding_missing_layers, &mut theirs);
            if theirs != mine {
                return Err(format!(
                    "step {step}: the restored crowd left the bytes of the crowd that never left"
                ));
            }
        }
        rec.record(format!("step_{step:04}"), &mine);
        for a in crowd.agents() {
            let k = (a.id(), a.navigator().grounding.status());
            if !seen.contains(&k) {
                seen.push(k);
            }
        }
        let climber = crowd.agent(c.climber).ok_or("the climber left")?;
        climbed |= climber
            .navigator()
            .motor
            .handler
            .climb
            .is_some_and(|cl| cl.active.is_some());
        flew |= crowd
            .agent(c.flyer)
            .is_some_and(|a| a.state() == AgentState::Flying);
        if step == MUD_AT - 1 {
            let g = crowd.agent(c.mudder).ok_or("the mudder left")?;
            if g.navigator().grounding.status() != GroundingStatus::MissingLayer {
                return Err("the mudder's layer was not missing before it was registered".into());
            }
        }
    }
    // The history must do what it says.
    use GroundingStatus::*;
    let expect = [
        (c.snapper, Grounded, "the snapper grounded"),
        (c.snapper, OutOfTolerance, "the snapper out of tolerance"),
        (c.snapper, OffLayer, "the snapper off the layer"),
        (c.always, Grounded, "the always agent grounded"),
        (c.mudder, MissingLayer, "the mudder's layer missing"),
        (c.mudder, Grounded, "the mudder grounded"),
        (c.climber, NotWalking, "the climber not walking"),
        (c.flyer, NotWalking, "the flyer not walking"),
        (c.flyer, OffLayer, "the flyer off the layer after landing"),
    ];
    for (id, status, what) in expect {
        if !seen.contains(&(id, status)) {
            return Err(format!("never seen: {what} (seen {seen:?})"));
        }
    }
    let active = crowd
        .agent(c.always)
        .and_then(|a| a.navigator().grounding.active_layer());
    if active.map(|n| n.to_string()).as_deref() != Some("terrain") {
        return Err(format!("the always agent's active layer is {active:?}"));
    }
    let up = crowd.agent(c.always).map(|a| a.position()[1]);
    if !up.is_some_and(|y| y > 3.0) {
        return Err(format!(
            "the always agent did not climb the stairs (y {up:?})"
        ));
    }
    if missing_total < MUD_AT {
        return Err(format!("{missing_total} missing layers counted"));
    }
    if !climbed {
        return Err("the climber never climbed".into());
    }
    let landed = crowd
        .agent(c.flyer)
        .is_some_and(|a| a.state() == AgentState::Walking);
    if !flew || !landed {
        return Err("the flyer did not fly and land".into());
    }
    Ok(())
}
