//! The local boundary after a neighbour tile changes (`docs/crowd.md`, step 7): the walls
//! are a function of the boundary's recorded centre and the current mesh, so a crowd saved
//! and restored (ONCS) after a tile beside its agents gained or lost a portal continues with
//! the same bytes as the crowd that never left.

use onepath_crowd::{AgentParams, Crowd, CrowdSettings, WorldContext};
use onepath_format::{NavMeshParams, NavTile, NO_PORTAL};
use onepath_mesh::fixtures::flat_grid_data;
use onepath_mesh::query::{NavMeshQuery, QueryFilter};
use onepath_mesh::TiledNavMesh;

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

/// `before` steps on the mesh with the border `open` or not, then the east tile is replaced
/// by the other version; the crowd that continues and the crowd restored from its snapshot
/// right after the change step on with the same bytes.
fn restore_after_the_border_changes(open: bool, before: u32) {
    let mut mesh = mesh(open);
    let mut live = crowd(&mesh);
    for _ in 0..before {
        live.update(&WorldContext::new(&mesh), DT).unwrap();
    }
    // The east tile gains (or loses) the portal on the border: the polygons of tile (0, 0)
    // stay valid, their walls change.
    mesh.replace_tile(tile(1, !open)).unwrap();
    let w = WorldContext::new(&mesh);
    let saved = live.save_snapshot();
    let mut restored = Crowd::new(CrowdSettings::default()).unwrap();
    restored.restore_snapshot(&w, &saved).unwrap();
    for k in 0..150 {
        let sa = live.update(&w, DT).unwrap();
        let sb = restored.update(&w, DT).unwrap();
        assert_eq!(sa, sb, "border open {open}, after {before} steps: step {k} stats");
        assert_eq!(
            state_bytes(&live),
            state_bytes(&restored),
            "border open {open}, after {before} steps: step {k} state"
        );
        assert_eq!(
            walls(&live),
            walls(&restored),
            "border open {open}, after {before} steps: step {k} walls"
        );
    }
}

#[test]
fn a_restored_crowd_continues_as_the_live_one_after_the_border_loses_its_portal() {
    for before in [1, 20, 45] {
        restore_after_the_border_changes(true, before);
    }
}

#[test]
fn a_restored_crowd_continues_as_the_live_one_after_the_border_gains_a_portal() {
    for before in [1, 20, 45] {
        restore_after_the_border_changes(false, before);
    }
}
