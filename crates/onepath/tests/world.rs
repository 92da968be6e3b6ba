//! NavWorld (agent classes), WorldCrowd, streaming through the facade and WorldSnapshot.

mod common;

use onepath::build::generators::{city, CityParams};
use onepath::build::{Mesh3DPipeline, Obstacle, TriangleSoup};
use onepath::crowd::{AgentParams, CrowdSettings, TargetState};
use onepath::format::FormatError;
use onepath::grid::Grid;
use onepath::prelude::*;
use onepath::{ClassSnapshot, WORLD_STATE_FORMAT};

fn radius(r: f32) -> NavSettings {
    let mut s = NavSettings::default();
    s.set_agent_radius(r).unwrap();
    s
}

fn small_city() -> TriangleSoup {
    city(&CityParams {
        blocks: 2,
        ..CityParams::default()
    })
}

#[test]
fn class_i_is_byte_identical_to_a_single_class_build() {
    let soup = small_city();
    let classes = [radius(0.6), radius(0.3), radius(1.2)];
    let world = NavWorld::build(&classes, &soup).unwrap();
    assert_eq!(world.len(), 3);
    for (i, s) in classes.iter().enumerate() {
        let alone = Mesh3DPipeline::from_settings(s)
            .unwrap()
            .build_soup(&soup)
            .unwrap();
        assert!(world.class(i).unwrap().mesh() == &alone.mesh, "class {i}");
        assert!(world.class(i).unwrap().save() == NavMesh::build(s, &soup).unwrap().save());
        assert_eq!(world.class(i).unwrap().settings(), s);
    }
    // The classes differ (other agent radius, other tiles).
    assert!(world.class(0).unwrap().save() != world.class(2).unwrap().save());
    let back = NavWorld::load(&world.save()).unwrap();
    for i in 0..3 {
        assert!(back.class(i).unwrap().save() == world.class(i).unwrap().save());
    }
    assert_eq!(
        NavWorld::build(&[], &soup).unwrap_err(),
        Error::NoSuchClass { class: 0, count: 0 }
    );
    assert_eq!(
        world.class(3).unwrap_err(),
        Error::NoSuchClass { class: 3, count: 3 }
    );
}

#[test]
fn class_for_is_the_smallest_radius_that_fits_else_the_largest() {
    let world = NavWorld::build(
        &[
            radius(0.6),
            radius(0.3),
            radius(1.2),
            radius(0.3),
            radius(1.2),
        ],
        &common::floor(10.0),
    )
    .unwrap();
    assert_eq!(world.class_for(0.2), 1); // 0.3 twice: the lower index
    assert_eq!(world.class_for(0.3), 1);
    assert_eq!(world.class_for(0.31), 0);
    assert_eq!(world.class_for(0.6), 0);
    assert_eq!(world.class_for(0.7), 2);
    assert_eq!(world.class_for(1.2), 2);
    assert_eq!(world.class_for(5.0), 2); // none fits: the largest, lowest index
    assert_eq!(world.class_for(f64::NAN), 2);
    // AgentRadius is an f32: 0.3f32 is a little above 0.3.
    assert_eq!(world.class_for(f64::from(0.3f32)), 1);
}

fn corridor_world() -> NavWorld {
    NavWorld::build(&[radius(0.3), radius(0.9)], &common::floor(20.0)).unwrap()
}

/// Steps a world crowd `n` times at 1/30 s and returns the agents' positions per step.
fn walk(world: &NavWorld, agents: &[([f64; 3], [f64; 3], f64)], n: usize) -> Vec<Vec<[f64; 3]>> {
    let mut crowd = WorldCrowd::new(world, CrowdSettings::default()).unwrap();
    let ids: Vec<WorldAgent> = agents
        .iter()
        .map(|&(from, to, r)| {
            let a = crowd.add_agent(world, from, AgentParams::new(r)).unwrap();
            crowd.request_move_target(world, a, to).unwrap();
            a
        })
        .collect();
    (0..n)
        .map(|_| {
            crowd.update(world, 1.0 / 30.0).unwrap();
            ids.iter()
                .map(|&a| crowd.agent(a).unwrap().position())
                .collect()
        })
        .collect()
}

#[test]
fn agents_of_different_classes_walk_different_meshes_and_do_not_see_each_other() {
    let world = corridor_world();
    let small = ([2.0, 0.0, 10.0], [18.0, 0.0, 10.0], 0.3);
    let big = ([18.0, 0.0, 10.0], [2.0, 0.0, 10.0], 0.9);
    let together = walk(&world, &[small, big], 120);
    let small_alone = walk(&world, &[small], 120);
    let big_alone = walk(&world, &[big], 120);
    for (k, step) in together.iter().enumerate() {
        assert_eq!(step[0], small_alone[k][0], "step {k}");
        assert_eq!(step[1], big_alone[k][0], "step {k}");
    }
    // Two small agents head-on do see each other (the test above could fail).
    let other_small = ([18.0, 0.0, 10.0], [2.0, 0.0, 10.0], 0.3);
    let pair = walk(&world, &[small, other_small], 120);
    assert!(pair.iter().zip(&small_alone).any(|(a, b)| a[0] != b[0]));
}

#[test]
fn add_agent_picks_the_class_by_radius() {
    let world = corridor_world();
    let mut crowd = WorldCrowd::new(&world, CrowdSettings::default()).unwrap();
    let a = crowd
        .add_agent(&world, [5.0, 0.0, 5.0], AgentParams::new(0.25))
        .unwrap();
    let b = crowd
        .add_agent(&world, [6.0, 0.0, 5.0], AgentParams::new(0.5))
        .unwrap();
    let c = crowd
        .add_agent(&world, [7.0, 0.0, 5.0], AgentParams::new(3.0))
        .unwrap();
    assert_eq!((a.class, b.class, c.class), (0, 1, 1));
    assert_eq!(crowd.crowd(0).unwrap().agents().len(), 1);
    assert_eq!(crowd.crowd(1).unwrap().agents().len(), 2);
    assert!(matches!(
        crowd
            .request_move_target(&world, a, [500.0, 0.0, 5.0])
            .unwrap_err(),
        Error::NotOnMesh { what: "target", .. }
    ));
    assert!(matches!(
        crowd.update(&world, f64::NAN).unwrap_err(),
        Error::Crowd(onepath::crowd::CrowdError::NotFinite { what: "dt" })
    ));
}

#[test]
fn a_move_target_is_placed_with_the_crowds_placement_box_and_the_agents_filter() {
    let world = corridor_world();
    let mut crowd = WorldCrowd::new(&world, CrowdSettings::default()).unwrap();
    let a = crowd
        .add_agent(&world, [5.0, 0.0, 5.0], AgentParams::new(0.25))
        .unwrap();
    let boxed = crowd.crowd(0).unwrap().placement_extents();
    assert_eq!(
        boxed,
        [0.6 * 2.0, 0.6 * 1.5, 0.6 * 2.0],
        "2, 1.5, 2 × the default 0.6"
    );
    // Within the box above the floor: placed on the floor below.
    crowd
        .request_move_target(&world, a, [12.0, 0.8, 10.0])
        .unwrap();
    let r = crowd
        .agent(a)
        .unwrap()
        .navigator()
        .steering
        .requested_destination;
    assert!((r[0] - 12.0).abs() < 1e-9 && r[1].abs() < 0.3 && (r[2] - 10.0).abs() < 1e-9);
    // 2 above: outside the crowd's box (inside the mesh's search extents, 4 high, which a
    // crowd's stale target could never be placed again with): refused, naming the box.
    let high = [12.0, 2.0, 10.0];
    assert!(world.class(0).unwrap().nearest(high).unwrap().is_some());
    match crowd.request_move_target(&world, a, high).unwrap_err() {
        Error::NotOnMesh {
            what: "target",
            point,
            half_extents,
        } => assert_eq!((point, half_extents), (high, boxed)),
        other => panic!("expected NotOnMesh, got {other:?}"),
    }
    // The agent's filter: an agent that walks no polygon flag finds no target.
    let mut params = *crowd.agent(a).unwrap().params();
    params.filter.set_include_flags(0);
    crowd
        .crowd_mut(0)
        .unwrap()
        .set_params(a.id, params)
        .unwrap();
    assert!(matches!(
        crowd
            .request_move_target(&world, a, [12.0, 0.0, 10.0])
            .unwrap_err(),
        Error::NotOnMesh { what: "target", .. }
    ));
}

#[test]
fn a_crowd_whose_destination_streamed_out_reports_no_path() {
    let mut world = NavWorld::build(&[radius(0.3)], &common::floor(25.0)).unwrap();
    let mut crowd = WorldCrowd::new(&world, CrowdSettings::default()).unwrap();
    let a = crowd
        .add_agent(&world, [2.0, 0.0, 2.0], AgentParams::new(0.3))
        .unwrap();
    crowd
        .request_move_target(&world, a, [22.0, 0.0, 22.0])
        .unwrap();
    for _ in 0..10 {
        crowd.update(&world, 1.0 / 30.0).unwrap();
    }
    assert_eq!(crowd.agent(a).unwrap().target_state(), TargetState::Valid);
    // The destination's column (2, 2) streams out.
    let nav = world.class_mut(0).unwrap();
    nav.streamer_mut().queue_remove_column(2, 2);
    assert_eq!(nav.update_streaming(1).unwrap(), 1);
    for _ in 0..10 {
        crowd.update(&world, 1.0 / 30.0).unwrap();
    }
    assert_eq!(crowd.agent(a).unwrap().target_state(), TargetState::NoPath);
}

/// A world of two classes, the second with a tile cache and a barrel, a grid, and a crowd
/// walking: the state a rollback saves.
struct Game {
    world: NavWorld,
    grid: Grid,
    crowd: WorldCrowd,
}

fn game() -> Game {
    let soup = common::floor(25.0);
    let a = NavMesh::build(&radius(0.3), &soup).unwrap();
    let mut b = NavMesh::build_with_tile_cache(&radius(0.9), &soup).unwrap();
    b.add_obstacle(Obstacle::Cylinder {
        center: [12.0, 0.0, 12.0],
        radius: 1.0,
        height: 1.5,
    })
    .unwrap();
    let world = NavWorld::from_classes(vec![a, b]).unwrap();
    let grid = Grid::new(16, 16).unwrap();
    let mut crowd = WorldCrowd::new(&world, CrowdSettings::default()).unwrap();
    for (from, to, r) in [
        ([2.0, 0.0, 2.0], [22.0, 0.0, 22.0], 0.3),
        ([22.0, 0.0, 2.0], [2.0, 0.0, 22.0], 0.9),
        ([2.0, 0.0, 22.0], [22.0, 0.0, 2.0], 0.3),
    ] {
        let id = crowd.add_agent(&world, from, AgentParams::new(r)).unwrap();
        crowd.request_move_target(&world, id, to).unwrap();
    }
    Game { world, grid, crowd }
}

fn state(g: &Game) -> WorldSnapshot {
    WorldSnapshot::take(&g.world, &[(1, &g.grid)], Some(&g.crowd))
}

fn step(g: &mut Game, n: usize) {
    for _ in 0..n {
        g.crowd.update(&g.world, 1.0 / 30.0).unwrap();
    }
}

#[test]
fn rollback_continues_exactly_as_the_first_time() {
    let mut g = game();
    step(&mut g, 5);
    let saved = state(&g);
    assert!(matches!(saved.classes[0], ClassSnapshot::Mesh(_)));
    assert!(matches!(saved.classes[1], ClassSnapshot::TileCache(_)));
    step(&mut g, 30);
    g.world.class_mut(1).unwrap().update_all().unwrap();
    g.grid.set_area(3, 3, 255).unwrap();
    let first = state(&g);
    saved
        .restore(&mut g.world, &mut [(1, &mut g.grid)], Some(&mut g.crowd))
        .unwrap();
    assert_eq!(state(&g), saved);
    step(&mut g, 30);
    g.world.class_mut(1).unwrap().update_all().unwrap();
    g.grid.set_area(3, 3, 255).unwrap();
    assert_eq!(state(&g), first);
}

#[test]
fn a_failed_restore_changes_no_part() {
    let mut g = game();
    step(&mut g, 5);
    let saved = state(&g);
    step(&mut g, 10);
    g.world.class_mut(1).unwrap().update(1).unwrap();
    let now = state(&g);
    let check = |g: &mut Game, bad: &WorldSnapshot, want: &dyn Fn(&Error) -> bool| {
        let e = bad
            .restore(&mut g.world, &mut [(1, &mut g.grid)], Some(&mut g.crowd))
            .unwrap_err();
        assert!(want(&e), "{e:?}");
        assert_eq!(state(g), now);
    };
    // The last part (a crowd) broken: the meshes and the grid restored before it on copies
    // are not swapped in.
    let mut bad = saved.clone();
    bad.crowds[1].truncate(10);
    check(&mut g, &bad, &|e| {
        matches!(e, Error::Format(FormatError::State { message, .. }) if message.starts_with("crowd 1"))
            || matches!(e, Error::Format(FormatError::Malformed { at, .. }) if at.starts_with("crowd 1"))
    });
    // A grid of another size.
    let mut bad = saved.clone();
    bad.grids[0].1 = Grid::new(8, 8).unwrap().save_state();
    check(&mut g, &bad, &|e| matches!(e, Error::Format(_)));
    // A grid id that does not match.
    let mut bad = saved.clone();
    bad.grids[0].0 = 2;
    check(
        &mut g,
        &bad,
        &|e| matches!(e, Error::Format(FormatError::State { format, .. }) if format == &WORLD_STATE_FORMAT),
    );
    // A broken tile cache part.
    let mut bad = saved.clone();
    let ClassSnapshot::TileCache(b) = &mut bad.classes[1] else {
        panic!("class 1 has a cache")
    };
    b.truncate(b.len() - 1);
    check(
        &mut g,
        &bad,
        &|e| matches!(e, Error::Format(FormatError::Malformed { at, .. }) if at.starts_with("class 1")),
    );
    // A mesh part where the class has a cache.
    let mut bad = saved.clone();
    bad.classes.swap(0, 1);
    check(
        &mut g,
        &bad,
        &|e| matches!(e, Error::Format(FormatError::State { format, .. }) if format == &WORLD_STATE_FORMAT),
    );
    // Crowds in the snapshot, none given.
    assert!(matches!(
        saved.restore(&mut g.world, &mut [(1, &mut g.grid)], None),
        Err(Error::Format(FormatError::State { format, ref message }))
            if format == WORLD_STATE_FORMAT && message.contains("no crowd given")
    ));
    assert_eq!(state(&g), now);
    // And the good snapshot still restores.
    saved
        .restore(&mut g.world, &mut [(1, &mut g.grid)], Some(&mut g.crowd))
        .unwrap();
    assert_eq!(state(&g), saved);
}
