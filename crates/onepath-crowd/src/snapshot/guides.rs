//! The ONCS guides extension (`docs/agent-records.md`, "Guides extension"): the state of the
//! flow-field, voxel and hybrid guides, after the grid queue. Written only when an agent
//! has such a guide, so that a crowd without one gives the bytes of ONCS version 1 as
//! before; read when the bytes after the grid queue open with its tag.

use onepath_format::{FormatError, PolyRef};

use crate::crowd::Crowd;
use crate::guides::{FlowGuide, Guide, HybridGuide, ReplanGuide, VoxelGuide};
use onepath_gridstate::ReplanAlgorithm;

use super::read::{broken, ReadAgent, R};
use super::write::W;

/// The tag that opens the guides extension.
pub(super) const GUIDES_TAG: u8 = 1;

/// Appends the extension when an agent has a guide of these kinds.
pub(super) fn write_guides(w: &mut W, crowd: &Crowd) {
    let n = crowd.agents.iter().filter(|a| a.guide.is_some()).count();
    if n == 0 {
        return;
    }
    w.0.u8(GUIDES_TAG);
    w.0.u32(n as u32);
    for a in &crowd.agents {
        let Some(g) = &a.guide else {
            continue;
        };
        w.0.u32(a.id().0);
        match g {
            Guide::Flow(f) => {
                w.0.u8(1);
                w.0.u32(f.grid_id);
                w.0.u32(f.goal.0);
                w.0.u32(f.goal.1);
                w.0.u32(f.group);
                w.0.u32(f.from.0);
                w.0.u32(f.from.1);
                w.0.u32(f.built);
            }
            Guide::Voxel(v) => {
                w.0.u8(2);
                w.0.u32(v.voxel_id);
                for c in v.goal {
                    w.0.u32(c);
                }
                w.0.u32(v.waypoints.len() as u32);
                for p in &v.waypoints {
                    for c in p {
                        w.0.f64(*c);
                    }
                }
                w.0.u32(v.next as u32);
                w.0.u8(u8::from(v.landing.is_some()));
                if let Some(p) = v.landing {
                    w.0.u64(p.0);
                }
            }
            Guide::Hybrid(h) => {
                w.0.u8(3);
                w.0.u32(h.grid_id);
                w.0.f64(h.switch_distance);
                w.0.u8(u8::from(h.near));
            }
            Guide::Replan(r) => {
                w.0.u8(4);
                w.0.u32(r.grid_id);
                w.0.u32(r.goal.0);
                w.0.u32(r.goal.1);
                w.0.u8(r.algorithm as u8);
                w.0.u32(r.synced);
                // The replanner's own state (OPGS kind 5), or the one a restore has not
                // installed yet.
                let state = r
                    .replanner
                    .as_ref()
                    .map(|rp| rp.save_state())
                    .or_else(|| r.saved.clone());
                w.0.u8(u8::from(state.is_some()));
                if let Some(b) = state {
                    w.0.u32(b.len() as u32);
                    w.0.bytes(&b);
                }
            }
        }
    }
}

/// Reads the extension, when the bytes that remain open with its tag, into the agents read
/// (ascending id, each named agent present, one guide each).
pub(super) fn read_guides(r: &mut R<'_>, agents: &mut [ReadAgent]) -> Result<(), FormatError> {
    // Not this extension (none, or a later one): the next reader decides.
    if r.0.clone().u8("extension tag").ok() != Some(GUIDES_TAG) {
        return Ok(());
    }
    r.0.u8("extension tag")?;
    // An entry takes at least 4 + 1 + 13 bytes (a hybrid guide).
    let n = r.0.count("guide count", 18)?;
    if n == 0 {
        return Err(broken(
            "guide count is 0 (the extension is written only with guides)",
        ));
    }
    let mut last: Option<u32> = None;
    for k in 0..n {
        let id = r.0.u32(&format!("guide {k} agent"))?;
        if last.is_some_and(|l| l >= id) {
            return Err(broken(format!(
                "guide {k}: agent {id} does not ascend (guides are in agent id order)"
            )));
        }
        last = Some(id);
        let Ok(i) = agents.binary_search_by_key(&id, |a| a.agent.id().0) else {
            return Err(broken(format!(
                "guide {k}: agent {id} is not in the snapshot"
            )));
        };
        let g = read_guide(r).map_err(|e| e.within(format!("agent {id} guide")))?;
        agents[i].agent.guide = Some(g);
    }
    Ok(())
}

fn read_guide(r: &mut R<'_>) -> Result<Guide, FormatError> {
    match r.0.u8("kind")? {
        1 => Ok(Guide::Flow(FlowGuide {
            grid_id: r.0.u32("grid id")?,
            goal: (r.0.u32("goal x")?, r.0.u32("goal y")?),
            group: r.0.u32("movement group")?,
            from: (r.0.u32("from x")?, r.0.u32("from y")?),
            built: r.0.u32("built at grid version")?,
        })),
        2 => {
            let voxel_id = r.0.u32("voxel grid id")?;
            let goal = [r.0.u32("goal x")?, r.0.u32("goal y")?, r.0.u32("goal z")?];
            let n = r.0.count("waypoint count", 24)?;
            let mut waypoints = Vec::with_capacity(n);
            for _ in 0..n {
                waypoints.push(r.v3("waypoint")?);
            }
            let next = r.0.u32("next waypoint")? as usize;
            if next >= n.max(1) {
                return Err(broken(format!(
                    "next waypoint = {next} is not below the waypoint count {n}"
                )));
            }
            let landing = if r.flag("landing")? {
                Some(PolyRef(r.0.u64("landing polygon")?))
            } else {
                None
            };
            if landing.is_some() && n == 0 {
                return Err(broken("a landing without waypoints"));
            }
            Ok(Guide::Voxel(VoxelGuide {
                voxel_id,
                goal,
                waypoints,
                next,
                landing,
            }))
        }
        3 => {
            let grid_id = r.0.u32("grid id")?;
            let switch_distance = r.f("switch distance")?;
            if switch_distance < 0.0 {
                return Err(broken(format!(
                    "switch distance = {switch_distance} must be >= 0"
                )));
            }
            Ok(Guide::Hybrid(HybridGuide {
                grid_id,
                switch_distance,
                near: r.flag("near")?,
            }))
        }
        4 => {
            let grid_id = r.0.u32("grid id")?;
            let goal = (r.0.u32("goal x")?, r.0.u32("goal y")?);
            let algorithm = match r.0.u8("algorithm")? {
                0 => ReplanAlgorithm::LpaStar,
                1 => ReplanAlgorithm::DStarLite,
                k => return Err(broken(format!("algorithm = {k} is not one of 0..2"))),
            };
            let synced = r.0.u32("planned at grid version")?;
            let saved = if r.flag("replanner state present")? {
                let n = r.0.count("replanner state length", 1)?;
                Some(r.0.bytes(n, "replanner state")?.to_vec())
            } else {
                None
            };
            Ok(Guide::Replan(ReplanGuide {
                grid_id,
                goal,
                algorithm,
                synced,
                replanner: None,
                saved,
            }))
        }
        k => Err(broken(format!("kind = {k} is not one of 1..5"))),
    }
}
