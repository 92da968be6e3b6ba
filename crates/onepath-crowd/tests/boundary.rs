//! The local boundary after a neighbour tile changes (`docs/crowd.md`, step 7): the walls
//! are a function of the boundary's recorded centre and the current mesh, so a crowd saved
//! and restored (ONCS) after a tile beside its agents gained or lost a portal, had flags
//! set or was streamed out and in continues with the same bytes and walls as the crowd
//! that never left, and a rollback (mesh and crowd restored in place) around the change
//! replays the same frames.

use onepath_crowd::{AgentParams, Crowd, CrowdSettings, WorldContext};
use onepath_format::{NavMeshParams, NavTile, NO_PORTAL};
use onepath_mesh::fixtures::flat_grid_data;
use onepath_mesh::query::{NavMeshQuery, QueryFilter};
use onepath_mesh::{SlotTable, TiledNavMesh};

const DT: f64 = 1.0 / 60.0;

fn params() -> NavMeshParams {
    NavMeshParams::new([0.0, 0.0, 0.0], 16.0, 0.25, 6)
}

/// Tile (x, 0) of 8 × 8 polygons; `open_west` false turns its −X border edges into plain
/// walls (no portal), so the tile west of it keeps a wall on their shared border.
fn tile(x: i32, open_west: bool) -> NavTile {
    let p = params();
    let mut d = flat_grid_data(&p, x, 0, 0, 0.0, 8);
    if !open_west {
        for (k, side) in d.edge_portal_sides.iter_mut().enumerate() {
            // Edge 3 of a polygon is its −X side; a portal there faces side 2.
            if k % 4 == 3 && *side == 2 {
                *side = NO_PORTAL;
            }
        }
    }
    NavTile::create(&p, d).unwrap()
}

/// Tiles (0, 0) and (1, 0): 32 × 16 units, the border at x = 16.
fn mesh(open: bool) -> TiledNavMesh {
    let mut mesh = TiledNavMesh::new(params()).unwrap();
    mesh.add_tile(tile(0, true)).unwrap();
    mesh.add_tile(tile(1, open)).unwrap();
    mesh
}

/// Agents walking along +Z just west of the border (their boundaries read the border
/// polygons of tile (0, 0)), one crossing it and one east of it.
fn crowd(mesh: &TiledNavMesh) -> Crowd {
    let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
    let mut q = NavMeshQuery::new();
    let f = QueryFilter::new();
    let walks = [
        ([15.3, 0.0, 1.5], [15.4, 0.0, 14.5]),
        ([14.2, 0.0, 2.5], [15.6, 0.0, 13.0]),
        ([13.0, 0.0, 1.0], [15.2, 0.0, 9.0]),
        ([15.6, 0.0, 6.0], [15.5, 0.0, 1.0]),
        ([12.0, 0.0, 8.0], [20.0, 0.0, 8.5]),
        ([18.0, 0.0, 3.0], [17.0, 0.0, 12.0]),
    ];
    for (from, to) in walks {
        let id = crowd.add_agent(mesh, from, AgentParams::new(0.5)).unwrap();
        let n = q
            .find_nearest_poly(mesh, to, [1.0, 1.0, 1.0], &f)
            .unwrap()
            .unwrap();
        crowd.request_move_target(id, n.poly, n.point).unwrap();
    }
    crowd
}

fn state_bytes(crowd: &Crowd) -> Vec<u8> {
    let mut b = Vec::new();
    crowd.write_state(&mut b);
    b
}

/// Every agent's wall segments, nearest first (derived, not in the state bytes).
fn walls(crowd: &Crowd) -> Vec<Vec<([f64; 3], [f64; 3])>> {
    crowd
        .agents()
        .iter()
        .map(|a| a.boundary_segments().collect())
        .collect()
}

/// `before` steps on the mesh with the border `open` or not, then `change` edits the mesh
/// beside the agents; the crowd that continues and the crowd restored from its snapshot
/// right after the change step on with the same bytes and walls.
fn restore_after(open: bool, before: u32, what: &str, change: &dyn Fn(&mut TiledNavMesh)) {
    let mut mesh = mesh(open);
    let mut live = crowd(&mesh);
    for _ in 0..before {
        live.update(&WorldContext::new(&mesh), DT).unwrap();
    }
    change(&mut mesh);
    let w = WorldContext::new(&mesh);
    let saved = live.save_snapshot();
    let mut restored = Crowd::new(CrowdSettings::default()).unwrap();
    restored.restore_snapshot(&w, &saved).unwrap();
    for k in 0..150 {
        let sa = live.update(&w, DT).unwrap();
        let sb = restored.update(&w, DT).unwrap();
        let at = format!("{what}, border open {open}, after {before} steps: step {k}");
        assert_eq!(sa, sb, "{at}: stats");
        assert_eq!(state_bytes(&live), state_bytes(&restored), "{at}: state");
        assert_eq!(walls(&live), walls(&restored), "{at}: walls");
    }
}

/// The east tile replaced by the other version: the border gains (or loses) its portal; the
/// polygons of tile (0, 0) stay valid, their walls change.
fn swap_east(open: bool) -> impl Fn(&mut TiledNavMesh) {
    move |mesh: &mut TiledNavMesh| {
        mesh.replace_tile(tile(1, !open)).unwrap();
    }
}

#[test]
fn a_restored_crowd_continues_as_the_live_one_after_the_border_loses_its_portal() {
    for before in [1, 20, 45] {
        restore_after(true, before, "replaced", &swap_east(true));
    }
}

#[test]
fn a_restored_crowd_continues_as_the_live_one_after_the_border_gains_a_portal() {
    for before in [1, 20, 45] {
        restore_after(false, before, "replaced", &swap_east(false));
    }
}

#[test]
fn a_restored_crowd_continues_as_the_live_one_after_flags_or_streaming_beside_it() {
    // The east tile's border column refused by the filter (flags 0): a flag of another
    // tile's polygon turns the border of tile (0, 0) into walls.
    let refuse_border = |mesh: &mut TiledNavMesh| {
        let refs: Vec<_> = {
            let t = mesh.tile_at(1, 0, 0).unwrap();
            (0..8).map(|j| t.poly_ref(j * 8).unwrap()).collect()
        };
        for r in refs {
            mesh.set_poly_flags(r, 0).unwrap();
        }
    };
    // Streamed out, and out and in again (a new generation, the same walls as before).
    let stream_out = |mesh: &mut TiledNavMesh| {
        mesh.remove_tile_at(1, 0, 0).unwrap();
    };
    let stream_back = |mesh: &mut TiledNavMesh| {
        mesh.remove_tile_at(1, 0, 0).unwrap();
        mesh.add_tile(tile(1, true)).unwrap();
    };
    for before in [1, 30] {
        restore_after(true, before, "flags", &refuse_border);
        restore_after(true, before, "streamed out", &stream_out);
        restore_after(true, before, "streamed back", &stream_back);
    }
}

/// The slots of `mesh` restored into `into` in place (what a world snapshot's restore does).
fn restore_mesh(into: &mut TiledNavMesh, from: &TiledNavMesh) {
    let mut table = SlotTable::new(from.params(), from.slot_count() as usize).unwrap();
    for s in from.slots() {
        table
            .push(s.generation, s.tile.map(|t| t.tile().clone()))
            .unwrap();
    }
    table.restore_into(into).unwrap();
}

#[test]
fn a_rollback_around_the_change_replays_the_same_frames() {
    // The reference run: the border changes before frame 30. The rollback runs save mesh
    // and crowd at frame `save` (before the change, or just after it while boundaries built
    // before it are live), run on to frame 60, restore both in place and run frames `save`
    // to 100 again: every frame's bytes and walls are those of the reference.
    for open in [true, false] {
        let change = swap_east(open);
        let run = |frames: std::ops::Range<u32>, mesh: &mut TiledNavMesh, c: &mut Crowd| {
            let mut out = Vec::new();
            for f in frames {
                if f == 30 {
                    change(mesh);
                }
                c.update(&WorldContext::new(mesh), DT).unwrap();
                out.push((state_bytes(c), walls(c)));
            }
            out
        };
        let mut mesh_a = mesh(open);
        let mut a = crowd(&mesh_a);
        let reference = run(0..100, &mut mesh_a, &mut a);
        for save in [20, 31] {
            let mut mesh_b = mesh(open);
            let mut b = crowd(&mesh_b);
            run(0..save, &mut mesh_b, &mut b);
            let saved_mesh = mesh_b.clone();
            let saved = b.save_snapshot();
            run(save..60, &mut mesh_b, &mut b);
            restore_mesh(&mut mesh_b, &saved_mesh);
            b.restore_snapshot(&WorldContext::new(&mesh_b), &saved)
                .unwrap();
            let replayed = run(save..100, &mut mesh_b, &mut b);
            let from = save as usize;
            for (k, (r, p)) in reference[from..].iter().zip(&replayed).enumerate() {
                assert_eq!(
                    r,
                    p,
                    "border open {open}, saved at {save}: frame {}",
                    from + k
                );
            }
        }
    }
}
