//! A `WorldCrowd` belongs to the `NavWorld` it was made with: every call that takes a world
//! refuses another one (another class count, a class built with other settings: another
//! parameter block or only another settings digest) naming the class, before anything
//! moves; the same world rebuilt, or saved and loaded again, is accepted.

mod common;

use onepath::prelude::*;

const DT: f64 = 1.0 / 30.0;

fn world_of(settings: &[NavSettings]) -> NavWorld {
    NavWorld::build(settings, &common::floor(16.0)).unwrap()
}

fn state(crowd: &WorldCrowd) -> Vec<u8> {
    let mut out = Vec::new();
    crowd.write_state(&mut out);
    out
}

/// Every call of `crowd` that takes a world refuses `other` with an error `check` accepts,
/// and changes nothing.
fn refused(crowd: &mut WorldCrowd, agent: WorldAgent, other: &NavWorld, check: impl Fn(&Error)) {
    let before = state(crowd);
    let all = LocomotionHandler::with_all_modes();
    let errors = [
        crowd.update(other, DT).unwrap_err(),
        crowd
            .add_agent_with(other, [3.0, 0.0, 3.0], AgentParams::new(0.4), all)
            .unwrap_err(),
        crowd
            .request_move_target(other, agent, [12.0, 0.0, 12.0])
            .unwrap_err(),
        crowd
            .request_path(
                other,
                agent,
                PathRequest::navmesh([12.0, 0.0, 3.0]).unwrap(),
            )
            .unwrap_err(),
        crowd
            .request_flight(other, agent, 1, [8.0, 4.0, 8.0])
            .unwrap_err(),
        crowd.attach_platform(other, agent, 1).unwrap_err(),
        crowd.with_context(other, 0, &[], |_, _| ()).unwrap_err(),
    ];
    for (call, e) in errors.iter().enumerate() {
        check(e);
        assert!(!e.to_string().is_empty(), "call {call}");
    }
    assert_eq!(state(crowd), before);
}

/// A world crowd of `world` with one agent walking toward (12, 0, 12), stepped once.
fn walking_crowd(world: &NavWorld) -> (WorldCrowd, WorldAgent) {
    let mut crowd = WorldCrowd::new(world, CrowdSettings::default()).unwrap();
    let agent = crowd
        .add_agent(world, [3.0, 0.0, 3.0], AgentParams::new(0.4))
        .unwrap();
    crowd
        .request_move_target(world, agent, [12.0, 0.0, 12.0])
        .unwrap();
    crowd.update(world, DT).unwrap();
    (crowd, agent)
}

#[test]
fn a_world_crowd_refuses_a_world_it_was_not_made_for() {
    let world = world_of(&[NavSettings::default()]);
    let (mut crowd, agent) = walking_crowd(&world);
    crowd.set_platform(1, [3.0, 0.0, 3.0]).unwrap();
    let made = world.class(0).unwrap().mesh().params().fingerprint();

    // Another parameter block (agent radius), and only another settings digest (the
    // detail mesh's error): both name class 0 and both fingerprints.
    let mut wide = NavSettings::default();
    wide.set_agent_radius(0.9).unwrap();
    let mut detailed = NavSettings::default();
    detailed.set_detail_max_error(0.5).unwrap();
    for settings in [wide.clone(), detailed.clone()] {
        let other = world_of(&[settings]);
        let found = other.class(0).unwrap().mesh().params().fingerprint();
        assert_ne!(found, made);
        refused(&mut crowd, agent, &other, |e| {
            assert_eq!(
                *e,
                Error::OtherWorld {
                    class: 0,
                    expected: made,
                    found,
                }
            );
        });
        let text = Error::OtherWorld {
            class: 0,
            expected: made,
            found,
        }
        .to_string();
        assert!(
            text.starts_with("agent class 0: the world's mesh (fingerprint "),
            "{text}"
        );
        assert!(text.contains(&made.to_string()) && text.contains(&found.to_string()));
    }
    // Another class count.
    let two = world_of(&[NavSettings::default(), wide]);
    refused(&mut crowd, agent, &two, |e| {
        assert!(matches!(e, Error::NoSuchClass { count: 2, .. }), "{e:?}");
    });
    // The second class differs: the error names class 1.
    let made_two = WorldCrowd::new(&two, CrowdSettings::default()).unwrap();
    let mut other_second = made_two;
    let swapped = world_of(&[NavSettings::default(), detailed]);
    let e = other_second.update(&swapped, DT).unwrap_err();
    assert!(matches!(e, Error::OtherWorld { class: 1, .. }), "{e:?}");

    // The same world built again, and saved and loaded: accepted, and it steps on as the
    // original does.
    let rebuilt = world_of(&[NavSettings::default()]);
    let loaded = NavWorld::load(&world.save()).unwrap();
    let mut twin = WorldCrowd::new(&world, CrowdSettings::default()).unwrap();
    twin.set_platform(1, [3.0, 0.0, 3.0]).unwrap();
    let a2 = twin
        .add_agent(&world, [3.0, 0.0, 3.0], AgentParams::new(0.4))
        .unwrap();
    twin.request_move_target(&world, a2, [12.0, 0.0, 12.0])
        .unwrap();
    twin.update(&world, DT).unwrap();
    for w in [&rebuilt, &loaded] {
        crowd.update(w, DT).unwrap();
        twin.update(&world, DT).unwrap();
    }
    assert_eq!(state(&crowd), state(&twin));
}

#[test]
fn a_snapshot_restore_with_a_world_crowd_of_another_world_changes_nothing() {
    let world = world_of(&[NavSettings::default()]);
    let (mut crowd, _) = walking_crowd(&world);
    let mut wide = NavSettings::default();
    wide.set_agent_radius(0.9).unwrap();
    let mut other = world_of(&[wide]);
    let snap = WorldSnapshot::take(&other, &[], Some(&crowd));
    let world_before = other.save();
    let crowd_before = state(&crowd);
    let e = snap
        .restore(&mut other, &mut [], Some(&mut crowd))
        .unwrap_err();
    assert!(matches!(e, Error::OtherWorld { class: 0, .. }), "{e:?}");
    assert_eq!(other.save(), world_before);
    assert_eq!(state(&crowd), crowd_before);
    // Its own world restores.
    let mut own = world;
    let snap = WorldSnapshot::take(&own, &[], Some(&crowd));
    snap.restore(&mut own, &mut [], Some(&mut crowd)).unwrap();
    assert_eq!(state(&crowd), crowd_before);
}
