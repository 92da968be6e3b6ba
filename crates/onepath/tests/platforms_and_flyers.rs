//! Moving platforms and voxel grids through the facade: registered on the `WorldCrowd`,
//! shared by its crowds at every update, path request and `WorldSnapshot::restore`, kept
//! across a restore; a restore naming one the world crowd lacks fails, changing nothing.
//! And the host's 2D grids passed to `update_with_grids` / `request_path_with_grids`.

mod common;

use onepath::build::Obstacle;
use onepath::crowd::{
    AgentParams, AgentState, Crowd, CrowdError, CrowdSettings, LocomotionHandler, LocomotionKind,
    WorldContext,
};
use onepath::grid::{Grid, VoxelGrid, VoxelSpace, WALL};
use onepath::prelude::*;

const DT: f64 = 1.0 / 30.0;
const PLATFORM: u32 = 4;
const VOXELS: u32 = 9;
/// Where the flyers hover: above the voxel wall's far side.
const SKY: [f64; 3] = [20.5, 6.5, 16.5];

fn radius(r: f32) -> NavSettings {
    let mut s = NavSettings::default();
    s.set_agent_radius(r).unwrap();
    s
}

/// 32 × 8 × 32 unit voxels from (0, −1, 0) over the 32 × 32 floor: the layer under the
/// ground solid, and a wall x = 16 from the ground up to height 5 over every z.
fn voxels() -> VoxelGrid {
    let mut v = VoxelGrid::new(32, 8, 32, 0).unwrap();
    v.set_space(VoxelSpace::new([0.0, -1.0, 0.0], 1.0).unwrap());
    for z in 0..32 {
        for x in 0..32 {
            v.set_area(x, 0, z, WALL).unwrap();
        }
        for y in 1..6 {
            v.set_area(16, y, z, WALL).unwrap();
        }
    }
    v
}

/// Whether `p` lies in a solid voxel of [`voxels`].
fn in_solid_voxel(v: &VoxelGrid, p: [f64; 3]) -> bool {
    let (x, y, z) = (p[0].floor(), (p[1] + 1.0).floor(), p[2].floor());
    let inside = |c: f64, n: u32| c >= 0.0 && c < f64::from(n);
    let s = v.size();
    inside(x, s[0]) && inside(y, s[1]) && inside(z, s[2]) && {
        v.area(x as u32, y as u32, z as u32).unwrap() == WALL
    }
}

/// The platform's position at step `k`: a ferry along X, 1.5 units a second.
fn ferry(k: usize) -> [f64; 3] {
    [4.0 + 0.05 * k as f64, 0.0, 6.0]
}

fn params(r: f64) -> AgentParams {
    let mut p = AgentParams::new(r);
    p.max_speed = 3.0;
    p
}

fn crowd_bytes(crowd: &Crowd) -> Vec<u8> {
    let mut out = Vec::new();
    crowd.write_state(&mut out);
    out
}

#[test]
fn platforms_and_voxel_grids_are_registered_by_id_and_refusals_change_nothing() {
    let world = NavWorld::build(&[NavSettings::default()], &common::floor(32.0)).unwrap();
    let mut crowd = WorldCrowd::new(&world, CrowdSettings::default()).unwrap();
    assert_eq!(crowd.set_platform(7, [1.0, 0.0, 1.0]).unwrap(), None);
    assert_eq!(crowd.set_platform(2, [2.0, 0.0, 2.0]).unwrap(), None);
    // Moving a platform returns where it was; the listing ascends by id.
    assert_eq!(
        crowd.set_platform(7, [1.5, 0.0, 1.0]).unwrap(),
        Some([1.0, 0.0, 1.0])
    );
    let listed: Vec<(u32, [f64; 3])> = crowd.platforms().collect();
    assert_eq!(listed, [(2, [2.0, 0.0, 2.0]), (7, [1.5, 0.0, 1.0])]);
    // A position that is no world coordinate is refused naming the platform and axis.
    for (bad, axis) in [
        ([f64::NAN, 0.0, 0.0], "x"),
        ([0.0, f64::INFINITY, 0.0], "y"),
        ([0.0, 0.0, 3.0e6], "z"),
    ] {
        match crowd.set_platform(7, bad).unwrap_err() {
            Error::Coordinate(e) => assert_eq!(e.what, format!("platform 7.{axis}")),
            e => panic!("unexpected error {e}"),
        }
        assert!(matches!(
            crowd.set_platform(8, bad),
            Err(Error::Coordinate(_))
        ));
    }
    assert_eq!(crowd.platform(7), Some([1.5, 0.0, 1.0]));
    assert_eq!(crowd.platform(8), None);
    assert_eq!(crowd.remove_platform(2), Some([2.0, 0.0, 2.0]));
    assert_eq!(crowd.remove_platform(2), None);
    assert_eq!(crowd.platforms().count(), 1);

    // Voxel grids: replaced ones come back, edits reach the registered grid.
    assert!(crowd.set_voxel_grid(VOXELS, voxels()).is_none());
    assert!(crowd
        .set_voxel_grid(3, VoxelGrid::new(2, 2, 2, 0).unwrap())
        .is_none());
    let old = crowd.set_voxel_grid(3, VoxelGrid::new(4, 4, 4, 0).unwrap());
    assert_eq!(old.unwrap().size(), [2, 2, 2]);
    assert_eq!(crowd.voxel_grid_ids().collect::<Vec<_>>(), [3, VOXELS]);
    crowd
        .voxel_grid_mut(3)
        .unwrap()
        .set_area(1, 1, 1, WALL)
        .unwrap();
    assert_eq!(crowd.voxel_grid(3).unwrap().area(1, 1, 1).unwrap(), WALL);
    assert_eq!(crowd.remove_voxel_grid(3).unwrap().size(), [4, 4, 4]);
    assert!(crowd.remove_voxel_grid(3).is_none());
    assert!(crowd.voxel_grid(3).is_none());

    // Attaching: no such platform, no Platform locomotion, no such class.
    let walker = crowd
        .add_agent(&world, [3.0, 0.0, 3.0], params(0.4))
        .unwrap();
    let rider = crowd
        .add_agent_with(
            &world,
            [1.5, 0.0, 1.0],
            params(0.4),
            LocomotionHandler::with_all_modes(),
        )
        .unwrap();
    let before = WorldSnapshot::take(&world, &[], Some(&crowd));
    assert!(matches!(
        crowd.attach_platform(&world, rider, 2),
        Err(Error::Crowd(CrowdError::UnknownContext { what: "platform", id: 2, agent })) if agent == rider.id
    ));
    assert!(matches!(
        crowd.attach_platform(&world, walker, 7),
        Err(Error::Crowd(CrowdError::InvalidSetting {
            what: "platform locomotion",
            ..
        }))
    ));
    let ghost = WorldAgent {
        class: 1,
        id: rider.id,
    };
    assert!(matches!(
        crowd.attach_platform(&world, ghost, 7),
        Err(Error::NoSuchClass { class: 1, count: 1 })
    ));
    // Flights: not registered, in a wall, off the grid, without the Fly mode.
    assert!(matches!(
        crowd.request_flight(&world, rider, 5, SKY),
        Err(Error::Crowd(CrowdError::OffGrid { grid: 5, .. }))
    ));
    for t in [[16.5, 2.5, 16.5], [40.0, 2.5, 16.5]] {
        assert!(matches!(
            crowd.request_flight(&world, rider, VOXELS, t),
            Err(Error::Crowd(CrowdError::OffGrid { grid: VOXELS, .. }))
        ));
    }
    assert!(matches!(
        crowd.request_flight(&world, walker, VOXELS, SKY),
        Err(Error::Crowd(CrowdError::InvalidSetting {
            what: "fly locomotion",
            ..
        }))
    ));
    assert_eq!(WorldSnapshot::take(&world, &[], Some(&crowd)), before);
    // The lower calls through the facade's context: a class out of range never calls.
    let mut called = false;
    assert!(matches!(
        crowd.with_context(&world, 1, &[], |_, _| called = true),
        Err(Error::NoSuchClass { class: 1, count: 1 })
    ));
    assert!(!called);
    let seen = crowd
        .with_context(&world, 0, &[], |_, ctx| {
            (ctx.platform(7), ctx.voxel(VOXELS).map(|v| v.size()))
        })
        .unwrap();
    assert_eq!(seen, (Some([1.5, 0.0, 1.0]), Some([32, 8, 32])));
    crowd.attach_platform(&world, rider, 7).unwrap();
    let mode = |c: &WorldCrowd| c.agent(rider).unwrap().navigator().motor.handler.mode;
    assert_eq!(mode(&crowd), LocomotionKind::Platform);
    crowd.detach_platform(rider).unwrap();
    assert_eq!(mode(&crowd), LocomotionKind::Move);
}

/// A rider standing on the ferry and a walker crossing its way: through a `WorldCrowd`
/// (`host`) and a bare crowd over the same mesh (`bare`), stepped with the same platform
/// positions. The ferry leaves the world at step 150 and the rider walks off.
#[test]
fn a_rider_through_the_world_crowd_equals_a_bare_crowd_bit_for_bit() {
    let world = NavWorld::build(&[NavSettings::default()], &common::floor(32.0)).unwrap();
    let mesh = world.class(0).unwrap().mesh();
    let mut host = WorldCrowd::new(&world, CrowdSettings::default()).unwrap();
    let mut bare = Crowd::new(CrowdSettings::default()).unwrap();
    let all = LocomotionHandler::with_all_modes;
    let rider = host
        .add_agent_with(&world, ferry(0), params(0.4), all())
        .unwrap();
    let walker = host
        .add_agent(&world, [10.0, 0.0, 2.0], params(0.4))
        .unwrap();
    assert_eq!(
        bare.add_agent_with(mesh, ferry(0), params(0.4), all()),
        Ok(rider.id)
    );
    assert_eq!(
        bare.add_agent(mesh, [10.0, 0.0, 2.0], params(0.4)),
        Ok(walker.id)
    );
    host.set_platform(PLATFORM, ferry(0)).unwrap();
    host.attach_platform(&world, rider, PLATFORM).unwrap();
    let platforms = [(PLATFORM, ferry(0))];
    let ctx = WorldContext {
        platforms: &platforms,
        ..WorldContext::new(mesh)
    };
    bare.attach_platform(&ctx, rider.id, PLATFORM).unwrap();
    let request = |host: &mut WorldCrowd, bare: &mut Crowd, a: WorldAgent, to: [f64; 3]| {
        host.request_move_target(&world, a, to).unwrap();
        let on = world.class(0).unwrap().nearest(to).unwrap().unwrap();
        bare.request_move_target(a.id, on.poly, on.point).unwrap();
    };
    request(&mut host, &mut bare, walker, [10.0, 0.0, 12.0]);
    assert_eq!(crowd_bytes(host.crowd(0).unwrap()), crowd_bytes(&bare));
    for k in 1..=360 {
        let platforms: Vec<(u32, [f64; 3])> = if k < 150 {
            host.set_platform(PLATFORM, ferry(k)).unwrap();
            vec![(PLATFORM, ferry(k))]
        } else {
            if k == 150 {
                // The ferry carried the standing rider: it leaves, the rider walks off.
                let p = host.agent(rider).unwrap().position();
                assert!((p[0] - ferry(149)[0]).abs() < 1e-9, "the rider at {p:?}");
                assert_eq!(host.remove_platform(PLATFORM), Some(ferry(149)));
                request(&mut host, &mut bare, rider, [11.0, 0.0, 20.0]);
            }
            vec![]
        };
        host.update(&world, DT).unwrap();
        let ctx = WorldContext {
            platforms: &platforms,
            ..WorldContext::new(mesh)
        };
        bare.update(&ctx, DT).unwrap();
        assert_eq!(
            crowd_bytes(host.crowd(0).unwrap()),
            crowd_bytes(&bare),
            "step {k}"
        );
        let a = host.agent(rider).unwrap();
        let pl = a.navigator().motor.handler.platform.unwrap();
        if k < 150 {
            assert_eq!(pl.attached, Some(PLATFORM), "step {k}");
            assert_eq!(a.navigator().motor.handler.mode, LocomotionKind::Platform);
            assert!((pl.tracked_velocity[0] - 1.5).abs() < 1e-9, "step {k}");
        } else {
            assert_eq!(pl.attached, None, "step {k}");
            assert_eq!(pl.previous, Some(PLATFORM));
        }
    }
    assert_eq!(host.crowd(0).unwrap().save_snapshot(), bare.save_snapshot());
    let p = host.agent(rider).unwrap().position();
    assert!(
        (p[0] - 11.0).abs() < 0.5 && (p[2] - 20.0).abs() < 0.5,
        "the rider ended at {p:?}"
    );
}

/// A flyer through a `WorldCrowd` with the registered voxel grid, and the same flyer in a
/// bare crowd: the same bytes at every step; it takes off, never enters a solid voxel,
/// crosses the wall and hovers at its target. A second flyer lands past the wall.
#[test]
fn a_flyer_through_the_world_crowd_follows_its_voxel_guide_as_a_bare_crowd() {
    let world = NavWorld::build(&[NavSettings::default()], &common::floor(32.0)).unwrap();
    let mesh = world.class(0).unwrap().mesh();
    let grid = voxels();
    let mut host = WorldCrowd::new(&world, CrowdSettings::default()).unwrap();
    host.set_voxel_grid(VOXELS, voxels());
    let mut bare = Crowd::new(CrowdSettings::default()).unwrap();
    let refs = [(VOXELS, &grid)];
    let ctx = WorldContext {
        voxels: &refs,
        ..WorldContext::new(mesh)
    };
    let landing = [26.5, 0.0, 10.5];
    let mut flyers = Vec::new();
    for (from, to) in [([4.5, 0.0, 16.5], SKY), ([4.5, 0.0, 10.5], landing)] {
        let all = LocomotionHandler::with_all_modes;
        let a = host
            .add_agent_with(&world, from, params(0.3), all())
            .unwrap();
        host.request_flight(&world, a, VOXELS, to).unwrap();
        bare.add_agent_with(mesh, from, params(0.3), all()).unwrap();
        let request = host.agent(a).unwrap().navigator().steering.request.unwrap();
        bare.request_path(&ctx, a.id, request).unwrap();
        flyers.push(a);
    }
    let mut flew = [false; 2];
    for k in 1..=600 {
        host.update(&world, DT).unwrap();
        bare.update(&ctx, DT).unwrap();
        assert_eq!(
            crowd_bytes(host.crowd(0).unwrap()),
            crowd_bytes(&bare),
            "step {k}"
        );
        for (i, a) in flyers.iter().enumerate() {
            let agent = host.agent(*a).unwrap();
            flew[i] |= agent.state() == AgentState::Flying;
            assert!(
                !in_solid_voxel(&grid, agent.position()),
                "flyer {i} at {:?}, step {k}",
                agent.position()
            );
        }
    }
    assert_eq!(flew, [true, true]);
    let hover = host.agent(flyers[0]).unwrap();
    assert_eq!(hover.state(), AgentState::Flying);
    assert_eq!(hover.position(), SKY);
    let lander = host.agent(flyers[1]).unwrap();
    assert_eq!(lander.state(), AgentState::Walking);
    let p = lander.position();
    assert!(
        (p[0] - landing[0]).abs() < 0.5 && (p[2] - landing[2]).abs() < 0.5,
        "the lander stands at {p:?}"
    );
}

/// A game of two classes (a plain mesh, a tile cache with an obstacle added at step 30), a
/// grid part, a rider on the ferry (class 0), a walker, and a flyer (class 1).
struct Game {
    world: NavWorld,
    grid: Grid,
    crowd: WorldCrowd,
    /// The steps taken.
    step: usize,
}

impl Game {
    fn new() -> Game {
        let floor = common::floor(32.0);
        let small = NavMesh::build(&radius(0.3), &floor).unwrap();
        let large = NavMesh::build_with_tile_cache(&radius(0.6), &floor).unwrap();
        let world = NavWorld::from_classes(vec![small, large]).unwrap();
        let mut crowd = WorldCrowd::new(&world, CrowdSettings::default()).unwrap();
        crowd.set_platform(PLATFORM, ferry(0)).unwrap();
        crowd.set_voxel_grid(VOXELS, voxels());
        let all = LocomotionHandler::with_all_modes;
        let rider = crowd
            .add_agent_with(&world, ferry(0), params(0.3), all())
            .unwrap();
        crowd.attach_platform(&world, rider, PLATFORM).unwrap();
        crowd
            .request_move_target(&world, rider, [4.0, 0.0, 20.0])
            .unwrap();
        let walker = crowd
            .add_agent(&world, [10.0, 0.0, 2.0], params(0.3))
            .unwrap();
        crowd
            .request_move_target(&world, walker, [10.0, 0.0, 14.0])
            .unwrap();
        let flyer = crowd
            .add_agent_with(&world, [4.5, 0.0, 16.5], params(0.6), all())
            .unwrap();
        assert_eq!((rider.class, walker.class, flyer.class), (0, 0, 1));
        crowd.request_flight(&world, flyer, VOXELS, SKY).unwrap();
        Game {
            world,
            grid: Grid::new(16, 16).unwrap(),
            crowd,
            step: 0,
        }
    }

    /// One step: the host moves the ferry, edits the mesh and the grid at step 30, steps
    /// the crowds.
    fn step(&mut self) {
        self.step += 1;
        self.crowd.set_platform(PLATFORM, ferry(self.step)).unwrap();
        if self.step == 30 {
            let nav = self.world.class_mut(1).unwrap();
            nav.add_obstacle(Obstacle::Cylinder {
                center: [24.0, 0.0, 24.0],
                radius: 1.0,
                height: 1.5,
            })
            .unwrap();
            self.grid.set_area(3, 3, 255).unwrap();
        }
        self.world.class_mut(1).unwrap().update(4).unwrap();
        self.crowd.update(&self.world, DT).unwrap();
    }

    fn state(&self) -> WorldSnapshot {
        WorldSnapshot::take(&self.world, &[(1, &self.grid)], Some(&self.crowd))
    }

    fn restore(&mut self, saved: &WorldSnapshot, step: usize) -> Result<(), Error> {
        saved.restore(
            &mut self.world,
            &mut [(1, &mut self.grid)],
            Some(&mut self.crowd),
        )?;
        self.step = step;
        Ok(())
    }

    /// The states of the next `n` steps, each with the crowds' state bytes.
    fn run(&mut self, n: usize) -> Vec<(WorldSnapshot, Vec<u8>)> {
        (0..n)
            .map(|_| {
                self.step();
                let mut bytes = Vec::new();
                self.crowd.write_state(&mut bytes);
                (self.state(), bytes)
            })
            .collect()
    }
}

#[test]
fn a_restore_mid_ride_and_mid_flight_continues_as_the_first_time() {
    let mut g = Game::new();
    g.run(20);
    let saved = g.state();
    let at = g.step;
    {
        let rider = g.crowd.crowd(0).unwrap().agents()[0].navigator();
        assert_eq!(rider.motor.handler.mode, LocomotionKind::Platform);
        let flyer = &g.crowd.crowd(1).unwrap().agents()[0];
        assert_eq!(flyer.state(), AgentState::Flying);
    }
    let first = g.run(130);
    // Roll back the world crowd itself: its platform and voxel grid stay registered.
    g.restore(&saved, at).unwrap();
    assert_eq!(g.state(), saved);
    assert_eq!(g.crowd.platforms().count(), 1);
    assert_eq!(g.crowd.voxel_grid_ids().collect::<Vec<_>>(), [VOXELS]);
    let second = g.run(130);
    for (k, (a, b)) in first.iter().zip(&second).enumerate() {
        assert!(a == b, "step {} after the restore differs", k + 1);
    }
    // A game restarted: a fresh world and world crowd with the same resources registered
    // (the ferry where it was at the snapshot's step).
    let mut h = Game::new();
    h.crowd.set_platform(PLATFORM, ferry(at)).unwrap();
    h.restore(&saved, at).unwrap();
    assert_eq!(h.state(), saved);
    let third = h.run(130);
    for (k, (a, b)) in first.iter().zip(&third).enumerate() {
        assert!(
            a == b,
            "step {} after the restore into a fresh game differs",
            k + 1
        );
    }
    // The flyer arrived and the ferry carried the rider meanwhile.
    let flyer = &h.crowd.crowd(1).unwrap().agents()[0];
    assert_eq!(flyer.position(), SKY);
}

#[test]
fn a_restore_naming_a_platform_or_voxel_grid_the_world_crowd_lacks_changes_no_part() {
    let mut g = Game::new();
    g.run(20);
    let saved = g.state();
    let at = g.step;
    g.run(40);
    let now = g.state();
    let mut now_bytes = Vec::new();
    g.crowd.write_state(&mut now_bytes);
    let unchanged = |g: &Game| {
        let mut bytes = Vec::new();
        g.crowd.write_state(&mut bytes);
        assert!(g.state() == now && bytes == now_bytes, "a part changed");
    };
    // The ferry gone: the rider (class 0, agent 0) names it.
    let ferry_now = g.crowd.remove_platform(PLATFORM).unwrap();
    let e = g.restore(&saved, at).unwrap_err();
    assert_eq!(
        e,
        Error::MissingContext {
            class: 0,
            agent: onepath::crowd::AgentId(0),
            what: "platform",
            id: PLATFORM,
        }
    );
    assert!(e.to_string().contains("platform 4"), "{e}");
    unchanged(&g);
    assert_eq!(g.crowd.platforms().count(), 0);
    // The ferry back, the voxel grid gone: the flyer (class 1, agent 0) names it. The
    // meshes (class 1 restored on its tile cache's copy) and the grid, restored before the
    // crowds, are not swapped in.
    g.crowd.set_platform(PLATFORM, ferry_now).unwrap();
    let grid = g.crowd.remove_voxel_grid(VOXELS).unwrap();
    let e = g.restore(&saved, at).unwrap_err();
    assert_eq!(
        e,
        Error::MissingContext {
            class: 1,
            agent: onepath::crowd::AgentId(0),
            what: "voxel grid",
            id: VOXELS,
        }
    );
    assert!(e.to_string().contains("voxel grid 9"), "{e}");
    unchanged(&g);
    assert_eq!(g.crowd.platform(PLATFORM), Some(ferry_now));
    // Both registered again: the restore succeeds and keeps them.
    g.crowd.set_voxel_grid(VOXELS, grid);
    g.restore(&saved, at).unwrap();
    assert_eq!(g.state(), saved);
    assert_eq!(g.crowd.platform(PLATFORM), Some(ferry_now));
}

/// A grid A* request through `request_path_with_grids` and `update_with_grids` walks as in
/// a bare crowd given the same grids; grids out of id order are refused before anything
/// moves.
#[test]
fn a_grid_guided_agent_walks_as_in_a_bare_crowd_and_grid_ids_must_ascend() {
    use onepath::crowd::PathRequest;
    use onepath::grid::GridSpace;

    let world = NavWorld::build(&[NavSettings::default()], &common::floor(32.0)).unwrap();
    let mesh = world.class(0).unwrap().mesh();
    // A wall the mesh does not have: x = 16, z 0..24.
    let rows: Vec<String> = (0..32)
        .map(|z| {
            (0..32)
                .map(|x| if x == 16 && z < 24 { '#' } else { '.' })
                .collect()
        })
        .collect();
    let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut walled = Grid::from_ascii(&refs).unwrap();
    walled.set_space(GridSpace::new(0.0, 0.0, 1.0).unwrap());
    let other = Grid::new(4, 4).unwrap();
    let grids = [(2, &other), (3, &walled)];
    let request = PathRequest::grid_astar(3, [28.5, 0.0, 4.5])
        .unwrap()
        .with_unit_size(0.3)
        .unwrap();
    let mut host = WorldCrowd::new(&world, CrowdSettings::default()).unwrap();
    let mut bare = Crowd::new(CrowdSettings::default()).unwrap();
    let a = host
        .add_agent(&world, [4.5, 0.0, 4.5], params(0.3))
        .unwrap();
    bare.add_agent(mesh, [4.5, 0.0, 4.5], params(0.3)).unwrap();
    let unordered = [(3, &walled), (2, &other)];
    let twice = [(3, &walled), (3, &walled)];
    for bad in [&unordered[..], &twice[..]] {
        match host
            .request_path_with_grids(&world, bad, a, request)
            .unwrap_err()
        {
            Error::Grid(onepath::grid::GridError::Invalid { what, reason }) => {
                assert_eq!(what, "grids");
                assert!(reason.contains("id 3"), "{reason}");
            }
            e => panic!("unexpected error {e}"),
        }
    }
    host.request_path_with_grids(&world, &grids, a, request)
        .unwrap();
    let ctx = WorldContext {
        grids: &grids,
        ..WorldContext::new(mesh)
    };
    bare.request_path(&ctx, a.id, request).unwrap();
    let before = crowd_bytes(host.crowd(0).unwrap());
    assert!(matches!(
        host.update_with_grids(&world, &unordered, DT),
        Err(Error::Grid(_))
    ));
    assert_eq!(crowd_bytes(host.crowd(0).unwrap()), before);
    let mut east_of_wall = false;
    for k in 1..=600 {
        host.update_with_grids(&world, &grids, DT).unwrap();
        bare.update(&ctx, DT).unwrap();
        assert_eq!(
            crowd_bytes(host.crowd(0).unwrap()),
            crowd_bytes(&bare),
            "step {k}"
        );
        let p = host.agent(a).unwrap().position();
        assert!(
            !(p[0] > 16.0 && p[0] < 17.0 && p[2] < 24.0),
            "in the wall at {p:?}"
        );
        east_of_wall |= p[0] > 20.0;
    }
    assert!(east_of_wall, "the agent went round the grid's wall");
}
