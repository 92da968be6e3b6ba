//! The per-tile portal link cap (`onepath_stitch::cap`) on every path by which a tile
//! enters a mesh: `add_tile`, `replace_tile`, streaming, `from_slots`, ONPM reading (and
//! `check_portal_link_cap`, the same check without the change). The
//! crafted case of issue 22 (4 000 nested thin triangles on each side of one boundary, 16 M
//! overlapping pairs against a cap of 512 000) is refused on each, naming the tile, and a
//! refused tile leaves the mesh exactly as it was (value, ONPM bytes, state id). The cost of
//! a refusal is bounded by the edges: no link is made (the stitched links would be 16 M).

#[path = "../../onepath-stitch/tests/crafted/mod.rs"]
mod crafted;

use onepath_format::bytes::ByteWriter;
use onepath_format::{FormatError, NavMeshParams, NavTile, FORMAT_VERSION};
use onepath_mesh::{MeshError, NavMeshSerializer, StreamOp, TileStreamer, TiledNavMesh};
use onepath_stitch::{StitchError, PORTAL_LINKS_PER_EDGE};

use crafted::{boundary_minus as minus, boundary_plus as plus, ordinary, BOUNDARY_TRIANGLES as N};

/// The refusal of the tile in `slot` at (x, 0, 0) across `side` from the tile in
/// `facing_slot`.
fn refused(slot: u32, x: i32, side: u8, facing_slot: u32) -> StitchError {
    let n = N as u64;
    StitchError::PortalLinkCap {
        slot,
        position: (x, 0, 0),
        side,
        facing_slot,
        facing_layer: 0,
        pairs: n * n,
        own_edges: n,
        facing_edges: n,
        bound: PORTAL_LINKS_PER_EDGE * 2 * n,
    }
}

/// The mesh the refusals are tried on: `plus` at (0, 0) in slot 0, ordinary tiles at
/// (−1, 0) and (5, 0), and a free slot left by a removal (the lowest free slot is the
/// one an added tile would take).
fn mesh() -> TiledNavMesh {
    let p = crafted::params();
    let mut m = TiledNavMesh::new(p).unwrap();
    m.add_tile(plus(&p)).unwrap();
    let gone = m.add_tile(ordinary(&p, 3)).unwrap();
    m.add_tile(ordinary(&p, -1)).unwrap();
    m.add_tile(ordinary(&p, 5)).unwrap();
    m.remove_tile(gone).unwrap();
    m
}

/// Everything observable of a mesh for the all-or-nothing checks.
fn observe(m: &TiledNavMesh) -> (TiledNavMesh, Vec<u8>, u64) {
    (m.clone(), NavMeshSerializer::write_mesh(m), m.state_id())
}

#[test]
fn add_tile_refuses_the_crafted_boundary_and_changes_nothing() {
    let p = crafted::params();
    let mut m = mesh();
    let before = observe(&m);
    let e = m.add_tile(minus(&p)).unwrap_err();
    // The slot it would have taken: the free slot 1.
    assert_eq!(e, MeshError::PortalLinkCap(refused(1, 1, 2, 0)));
    let message = e.to_string();
    assert!(
        message.contains("portal link cap")
            && message.contains("slot 1 at (1, 0, layer 0)")
            && message.contains("slot 0"),
        "{message}"
    );
    assert_eq!(observe(&m), before);
    // With no free slot, the slot it would have appended is not appended either.
    m.add_tile(ordinary(&p, 3)).unwrap();
    let before = observe(&m);
    let slots = m.slot_count();
    assert_eq!(
        m.add_tile(minus(&p)),
        Err(MeshError::PortalLinkCap(refused(slots, 1, 2, 0)))
    );
    assert_eq!(m.slot_count(), slots);
    assert_eq!(observe(&m), before);
    // The other way round: the tile facing it is the one refused on entry.
    let mut other = TiledNavMesh::new(p).unwrap();
    other.add_tile(minus(&p)).unwrap();
    assert_eq!(
        other.add_tile(plus(&p)),
        Err(MeshError::PortalLinkCap(refused(1, 0, 0, 0)))
    );
}

#[test]
fn check_portal_link_cap_answers_as_add_and_replace_would_and_changes_nothing() {
    let p = crafted::params();
    let mut m = mesh();
    let before = observe(&m);
    // As add_tile: the free slot 1 named.
    assert_eq!(
        m.check_portal_link_cap(&minus(&p)),
        Err(MeshError::PortalLinkCap(refused(1, 1, 2, 0)))
    );
    assert_eq!(m.check_portal_link_cap(&ordinary(&p, 1)), Ok(()));
    assert_eq!(observe(&m), before);
    // As replace_tile: the slot the position holds named.
    m.add_tile(ordinary(&p, 1)).unwrap();
    let slot = m.tile_at(1, 0, 0).unwrap().slot();
    let before = observe(&m);
    assert_eq!(
        m.check_portal_link_cap(&minus(&p)),
        m.clone().replace_tile(minus(&p)).map(|_| ())
    );
    assert_eq!(
        m.check_portal_link_cap(&minus(&p)),
        Err(MeshError::PortalLinkCap(refused(slot, 1, 2, 0)))
    );
    assert_eq!(observe(&m), before);
}

#[test]
fn replace_tile_refuses_the_crafted_boundary_and_changes_nothing() {
    let p = crafted::params();
    let mut m = mesh();
    m.add_tile(ordinary(&p, 1)).unwrap();
    let before = observe(&m);
    let slot = m.tile_at(1, 0, 0).unwrap().slot();
    assert_eq!(
        m.replace_tile(minus(&p)),
        Err(MeshError::PortalLinkCap(refused(slot, 1, 2, 0)))
    );
    assert_eq!(observe(&m), before);
    // A replacement under the cap goes through (the ordinary tile again).
    m.replace_tile(ordinary(&p, 1)).unwrap();
}

#[test]
fn streaming_refuses_the_crafted_tile_on_add_replace_and_load() {
    let p = crafted::params();
    let bytes = NavMeshSerializer::write_tile(&minus(&p));
    for (op, occupied) in [
        (StreamOp::Add(bytes.clone()), false),
        (StreamOp::Load(bytes.clone()), false),
        (StreamOp::Replace(bytes.clone()), true),
        (StreamOp::Load(bytes.clone()), true),
    ] {
        let mut m = mesh();
        if occupied {
            m.add_tile(ordinary(&p, 1)).unwrap();
        }
        let slot = m.tile_at(1, 0, 0).map_or(1, |t| t.slot());
        let before = observe(&m);
        let mut s = TileStreamer::new();
        s.push(op.clone());
        s.queue_remove_column(5, 0);
        assert_eq!(
            s.update(&mut m, 2),
            Err(MeshError::PortalLinkCap(refused(slot, 1, 2, 0))),
            "{op:?}"
        );
        assert_eq!(observe(&m), before, "{op:?}");
        // The failed operation left the queue; the one behind it stays and applies.
        assert_eq!(s.len(), 1);
        assert_eq!(s.update(&mut m, 1), Ok(1));
        assert!(m.tile_at(5, 0, 0).is_none());
    }
}

#[test]
fn from_slots_refuses_the_crafted_boundary_naming_the_lowest_slot() {
    let p = crafted::params();
    let slots = vec![
        (1, Some(ordinary(&p, 5))),
        (4, Some(minus(&p))),
        (2, None),
        (3, Some(plus(&p))),
    ];
    assert_eq!(
        TiledNavMesh::from_slots(p, slots),
        Err(MeshError::PortalLinkCap(refused(1, 1, 2, 3)))
    );
}

/// ONPM bytes of these slots, written by hand (the writer only writes meshes that exist).
fn onpm(p: &NavMeshParams, slots: &[(u32, Option<&NavTile>)]) -> Vec<u8> {
    let mut w = ByteWriter::new();
    w.bytes(b"ONPM");
    w.u16(FORMAT_VERSION);
    w.u16(0);
    p.write_block(&mut w);
    w.u32(slots.len() as u32);
    for (generation, tile) in slots {
        w.u32(*generation);
        match tile {
            None => w.u8(0),
            Some(t) => {
                let b = t.to_bytes_current();
                w.u8(1);
                w.u32(b.len() as u32);
                w.bytes(&b);
            }
        }
    }
    w.into_vec()
}

#[test]
fn reading_onpm_refuses_the_crafted_mesh_naming_the_slot() {
    let p = crafted::params();
    let (a, b, c) = (plus(&p), minus(&p), ordinary(&p, 5));
    // The shape of the 296 KB mesh of issue 22 (here about 300 KB): 16 M links if read.
    let bytes = onpm(
        &p,
        &[(1, Some(&c)), (2, None), (1, Some(&b)), (7, Some(&a))],
    );
    assert!(bytes.len() > 250_000, "{}", bytes.len());
    let e = NavMeshSerializer::read_mesh(&bytes).unwrap_err();
    let reason = refused(2, 1, 2, 3).to_string();
    assert_eq!(
        e,
        FormatError::Malformed {
            at: "slot 2: portal links".to_string(),
            reason
        }
    );
    // The same tiles apart (no shared boundary) read, and write back the same bytes.
    let far = crafted::thin_triangles(&p, 9, 0, 0.0, &[], &crafted::nested(&p, N), vec![]);
    let bytes = onpm(
        &p,
        &[(1, Some(&c)), (2, None), (1, Some(&far)), (7, Some(&a))],
    );
    let m = NavMeshSerializer::read_mesh(&bytes).unwrap();
    assert_eq!(NavMeshSerializer::write_mesh(&m), bytes);
}

#[test]
fn a_state_reached_through_checked_changes_always_reads_back() {
    // The rule is one per pair of facing tiles: taking a tile away never puts another pair
    // over the cap, so whatever a history of checked changes reaches is written and read
    // back whole. Here a column of two layers faces a tile of nested edges, and each layer
    // in turn is taken away.
    let p = crafted::params();
    let a = crafted::thin_triangles(&p, 0, 0, 0.0, &crafted::nested(&p, 100), &[], vec![]);
    let b0 = crafted::thin_triangles(&p, 1, 0, 0.0, &[], &crafted::partition(&p, 60, 0.5), vec![]);
    let b1 = crafted::thin_triangles(&p, 1, 1, 4.0, &[], &crafted::nested(&p, 60), vec![]);
    for gone in [0u16, 1] {
        let mut m = TiledNavMesh::new(p).unwrap();
        for t in [&a, &b0, &b1] {
            m.add_tile(t.clone()).unwrap();
        }
        m.remove_tile_at(1, 0, gone).unwrap();
        let bytes = NavMeshSerializer::write_mesh(&m);
        assert_eq!(NavMeshSerializer::read_mesh(&bytes).unwrap(), m);
    }
}

#[test]
fn the_fixture_and_generated_tiles_stay_far_inside_the_cap() {
    // Every landed mesh is admitted unchanged (the hash matrix checks their bytes); here the
    // fixture's tiles, re-added one by one, pass with their pairs well below the bound.
    let m = onepath_mesh::fixtures::bridge_and_building();
    let tiles: Vec<NavTile> = m.tiles().map(|t| t.tile().clone()).collect();
    let mut again = TiledNavMesh::new(*m.params()).unwrap();
    for t in tiles {
        again.add_tile(t).unwrap();
    }
    assert_eq!(
        NavMeshSerializer::write_mesh(&again),
        NavMeshSerializer::write_mesh(&m)
    );
}
