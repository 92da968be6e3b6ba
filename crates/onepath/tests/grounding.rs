//! Heightmap grounding through the facade: layers registered on the `WorldCrowd`, used by
//! its updates and by `WorldSnapshot::restore`.

mod common;

use std::sync::Arc;

use onepath::crowd::{
    AgentParams, CrowdError, CrowdSettings, GroundingMode, GroundingStatus, Heightmap,
    HeightmapGrounding,
};
use onepath::prelude::*;

const DT: f64 = 1.0 / 30.0;
const OFFSET: f64 = 0.1;

/// Terrain rising along X over the 25 × 25 floor: 26 × 26 samples one unit apart, the
/// sample of column `c` at `0.04 × c`.
fn slope() -> Heightmap {
    let samples = (0..26u8)
        .flat_map(|_| (0..26u8).map(|c| f32::from(c) * 0.04))
        .collect();
    Heightmap::new([0.0, 0.0], 1.0, 26, 26, samples).unwrap()
}

fn world() -> NavWorld {
    NavWorld::build(&[NavSettings::default()], &common::floor(25.0)).unwrap()
}

/// A crowd with one agent walking from (2, 12) to (22, 12), grounded on `terrain` when
/// `grounded`.
fn walker(world: &NavWorld, grounded: bool) -> (WorldCrowd, WorldAgent) {
    let mut crowd = WorldCrowd::new(world, CrowdSettings::default()).unwrap();
    let a = crowd
        .add_agent(world, [2.0, 0.0, 12.0], AgentParams::new(0.4))
        .unwrap();
    crowd
        .request_move_target(world, a, [22.0, 0.0, 12.0])
        .unwrap();
    if grounded {
        let g = HeightmapGrounding::new(GroundingMode::Always)
            .with_preferred_layer("terrain")
            .unwrap()
            .with_ground_offset(OFFSET)
            .unwrap();
        crowd.configure_heightmap_grounding(a, g).unwrap();
    }
    (crowd, a)
}

/// The grounded walker on the registered slope `terrain`, after `steps` updates.
fn grounded_on_terrain(steps: usize) -> (NavWorld, Arc<Heightmap>, WorldCrowd, WorldAgent) {
    let w = world();
    let terrain = Arc::new(slope());
    let (mut crowd, a) = walker(&w, true);
    crowd.set_heightmap("terrain", terrain.clone()).unwrap();
    for _ in 0..steps {
        crowd.update(&w, DT).unwrap();
    }
    (w, terrain, crowd, a)
}

fn state(crowd: &WorldCrowd) -> Vec<u8> {
    let mut out = Vec::new();
    crowd.write_state(&mut out);
    out
}

#[test]
fn layers_are_registered_by_name_ascending_and_replaced() {
    let w = world();
    let mut crowd = WorldCrowd::new(&w, CrowdSettings::default()).unwrap();
    let a = Arc::new(slope());
    let flat = Arc::new(Heightmap::new([0.0, 0.0], 1.0, 2, 2, vec![0.0; 4]).unwrap());
    assert!(crowd.set_heightmap("terrain", a.clone()).unwrap().is_none());
    assert!(crowd
        .set_heightmap("bridge", flat.clone())
        .unwrap()
        .is_none());
    let names: Vec<&str> = crowd.heightmaps().map(|(n, _)| n).collect();
    assert_eq!(names, ["bridge", "terrain"]);
    // Replacing returns the layer it replaces.
    let old = crowd
        .set_heightmap("terrain", flat.clone())
        .unwrap()
        .unwrap();
    assert!(Arc::ptr_eq(&old, &a));
    assert!(Arc::ptr_eq(crowd.heightmap("terrain").unwrap(), &flat));
    // A bad name is refused, naming it; nothing changes.
    let long = "x".repeat(33);
    for bad in ["", long.as_str()] {
        match crowd.set_heightmap(bad, a.clone()).unwrap_err() {
            Error::Crowd(CrowdError::InvalidLayerName { name, .. }) => assert_eq!(name, bad),
            e => panic!("unexpected error {e}"),
        }
    }
    assert_eq!(crowd.heightmaps().count(), 2);
    assert!(Arc::ptr_eq(
        &crowd.remove_heightmap("bridge").unwrap(),
        &flat
    ));
    assert!(crowd.remove_heightmap("bridge").is_none());
    assert!(crowd.heightmap("bridge").is_none());
    // An agent of no class.
    let ghost = WorldAgent {
        class: 3,
        id: onepath::crowd::AgentId(0),
    };
    assert!(matches!(
        crowd
            .configure_heightmap_grounding(ghost, HeightmapGrounding::default())
            .unwrap_err(),
        Error::NoSuchClass { class: 3, count: 1 }
    ));
}

#[test]
fn a_grounded_agent_follows_the_registered_layer_and_walks_as_without_grounding() {
    let w = world();
    let terrain = Arc::new(slope());
    let (mut crowd, a) = walker(&w, true);
    crowd.set_heightmap("terrain", terrain.clone()).unwrap();
    let (mut twin, _) = walker(&w, false);
    let start = crowd.agent(a).unwrap().position();
    for step in 0..150 {
        let stats = crowd.update(&w, DT).unwrap();
        twin.update(&w, DT).unwrap();
        assert_eq!(stats[0].grounding_missing_layers, 0);
        let agent = crowd.agent(a).unwrap();
        let g = agent.navigator().grounding;
        let p = agent.position();
        assert_eq!(g.status(), GroundingStatus::Grounded, "step {step}");
        assert_eq!(g.active_layer().unwrap().as_str(), "terrain");
        let h = terrain.height_at(p[0], p[2]).unwrap();
        assert_eq!(g.foot_height(), Some(h + OFFSET), "step {step}");
        // The navmesh position and everything on the mesh are the twin's.
        assert_eq!(state(&crowd), state(&twin), "step {step}");
    }
    let end = crowd.agent(a).unwrap().position();
    assert!(
        end[0] - start[0] > 10.0,
        "the agent walked {start:?} -> {end:?}"
    );
    let feet = crowd
        .agent(a)
        .unwrap()
        .navigator()
        .grounding
        .foot_height()
        .unwrap();
    // The layer rose under it: the feet are well above the flat floor.
    assert!(feet > 0.4 + OFFSET, "feet at {feet}");
}

#[test]
fn a_restore_without_the_layer_fails_cleanly_at_the_first_update() {
    let (w, terrain, mut crowd, a) = grounded_on_terrain(20);
    let saved = WorldSnapshot::take(&w, &[], Some(&crowd));
    // A game restarted without the layer: an empty crowd of the same classes.
    let mut w2 = world();
    let mut other = WorldCrowd::new(&w2, CrowdSettings::default()).unwrap();
    saved.restore(&mut w2, &mut [], Some(&mut other)).unwrap();
    // Layers are never in the snapshot: the restored crowd's bytes are the saved ones.
    assert_eq!(WorldSnapshot::take(&w2, &[], Some(&other)), saved);
    assert_eq!(state(&other), state(&crowd));
    let restored = other.agent(a).unwrap().navigator().grounding;
    assert_eq!(restored.status(), GroundingStatus::Off);
    assert_eq!(restored.foot_height(), None);

    // The first update: grounding fails cleanly, the agent walks on as the original.
    let stats = other.update(&w2, DT).unwrap();
    crowd.update(&w, DT).unwrap();
    assert_eq!(stats[0].grounding_missing_layers, 1);
    let g = other.agent(a).unwrap().navigator().grounding;
    assert_eq!(g.status(), GroundingStatus::MissingLayer);
    assert_eq!(g.foot_height(), None);
    assert_eq!(state(&other), state(&crowd));

    // Once the host registers the layer, the agent grounds as the original does.
    other.set_heightmap("terrain", terrain).unwrap();
    for _ in 0..5 {
        let stats = other.update(&w2, DT).unwrap();
        crowd.update(&w, DT).unwrap();
        assert_eq!(stats[0].grounding_missing_layers, 0);
        let mine = other.agent(a).unwrap().navigator().grounding;
        let theirs = crowd.agent(a).unwrap().navigator().grounding;
        assert_eq!(mine.status(), GroundingStatus::Grounded);
        assert_eq!(mine.foot_height(), theirs.foot_height());
        assert_eq!(state(&other), state(&crowd));
    }
}

#[test]
fn a_restore_keeps_the_layers_registered_on_the_world_crowd() {
    let (w, terrain, mut crowd, a) = grounded_on_terrain(10);
    let mut w2 = world();
    let saved = WorldSnapshot::take(&w, &[], Some(&crowd));
    for _ in 0..10 {
        crowd.update(&w, DT).unwrap();
    }
    // Roll the crowd itself back: its layer stays registered, the agent grounds at once.
    saved.restore(&mut w2, &mut [], Some(&mut crowd)).unwrap();
    assert!(Arc::ptr_eq(crowd.heightmap("terrain").unwrap(), &terrain));
    let stats = crowd.update(&w2, DT).unwrap();
    assert_eq!(stats[0].grounding_missing_layers, 0);
    let g = crowd.agent(a).unwrap().navigator().grounding;
    assert_eq!(g.status(), GroundingStatus::Grounded);
}
