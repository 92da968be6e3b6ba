//! The per-tile portal link cap on restore: a snapshot whose tiles make the crafted
//! boundary of issue 22 (4 000 nested thin triangles facing 4 000, 16 M overlapping pairs
//! against a cap of 512 000) is refused by every restore form with the same error, naming
//! the lowest slot of the refused pair (`slot i: portal links`), and a failed in-place
//! restore leaves the mesh untouched, whether it keeps most slots (the check covers only
//! the pairs the differing slots make) or would rebuild them all.

#[path = "../../../onepath-stitch/tests/crafted/mod.rs"]
mod crafted;

use onepath_format::{FormatError, NavTile};
use onepath_mesh::{NavMeshSerializer, TiledNavMesh};
use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, TileLibrary};
use onepath_stitch::{StitchError, PORTAL_LINKS_PER_EDGE};

use crate::common::{onps_slots, Entry, SlotBytes};

use crafted::{boundary_minus as minus, boundary_plus as plus, ordinary, BOUNDARY_TRIANGLES as N};

fn slot(generation: u32, tile: &NavTile, mode: SnapshotMode) -> SlotBytes {
    SlotBytes {
        generation,
        entry: match mode {
            SnapshotMode::Full => Entry::Inline(tile.to_bytes()),
            SnapshotMode::Referenced => Entry::Referenced(tile.content_id().0),
        },
        edits: Vec::new(),
        disabled: Vec::new(),
    }
}

fn observe(m: &TiledNavMesh) -> (TiledNavMesh, Vec<u8>, Vec<u8>) {
    (
        m.clone(),
        NavMeshSerializer::write_mesh(m),
        NavMeshSnapshot::take(m, SnapshotMode::Full),
    )
}

#[test]
fn every_restore_form_refuses_the_crafted_boundary_with_the_same_error() {
    let p = crafted::params();
    let (a, b, c, d) = (plus(&p), minus(&p), ordinary(&p, 5), ordinary(&p, -3));
    let mut library = TileLibrary::new(&p);
    library.extend([&a, &b, &c, &d]).unwrap();
    let n = N as u64;
    // Slot 0 (the tile at (0, 0)) is the lowest slot of the refused pair.
    let reason = StitchError::PortalLinkCap {
        slot: 0,
        position: (0, 0, 0),
        side: 0,
        facing_slot: 2,
        facing_layer: 0,
        pairs: n * n,
        own_edges: n,
        facing_edges: n,
        bound: PORTAL_LINKS_PER_EDGE * 2 * n,
    }
    .to_string();
    let want = FormatError::Malformed {
        at: "slot 0: portal links".to_string(),
        reason,
    };
    // Targets: one holding slots 0, 1 and 3 as the snapshot has them (only slot 2
    // differs, so the check is the incremental one and the refused pair's lowest slot is
    // an unchanged one), and an empty one (everything differs: the whole check).
    let kept = TiledNavMesh::from_slots(
        p,
        vec![
            (1, Some(a.clone())),
            (1, Some(c.clone())),
            (1, None),
            (1, Some(d.clone())),
        ],
    )
    .unwrap();
    let empty = TiledNavMesh::new(p).unwrap();
    for mode in [SnapshotMode::Full, SnapshotMode::Referenced] {
        // Slot 3 holds the tile at (−3, 0) with generation 1, as `kept` holds it.
        let bytes = onps_slots(
            &p,
            &[
                slot(1, &a, mode),
                slot(1, &c, mode),
                slot(1, &b, mode),
                slot(1, &d, mode),
            ],
        );
        assert_eq!(
            NavMeshSnapshot::restore(&bytes, &library),
            Err(want.clone())
        );
        if mode == SnapshotMode::Full {
            assert_eq!(NavMeshSnapshot::restore_full(&bytes), Err(want.clone()));
        }
        for target in [&kept, &empty] {
            let mut m = target.clone();
            let before = observe(&m);
            assert_eq!(
                NavMeshSnapshot::restore_in_place(&mut m, &bytes, &library),
                Err(want.clone()),
                "{mode:?}"
            );
            assert_eq!(
                observe(&m),
                before,
                "a failed restore leaves the mesh untouched"
            );
            if mode == SnapshotMode::Full {
                assert_eq!(
                    NavMeshSnapshot::restore_full_in_place(&mut m, &bytes),
                    Err(want.clone())
                );
                assert_eq!(observe(&m), before);
            }
        }
    }
}

#[test]
fn a_snapshot_of_tiles_under_the_cap_restores_as_before() {
    let p = crafted::params();
    let mut m = TiledNavMesh::new(p).unwrap();
    for x in 0..4 {
        m.add_tile(ordinary(&p, x)).unwrap();
    }
    let saved = NavMeshSnapshot::take(&m, SnapshotMode::Full);
    let copy = NavMeshSnapshot::restore_full(&saved).unwrap();
    assert_eq!(copy, m);
    let mut target = TiledNavMesh::new(p).unwrap();
    target.add_tile(ordinary(&p, 0)).unwrap();
    NavMeshSnapshot::restore_full_in_place(&mut target, &saved).unwrap();
    assert_eq!(target, m);
}
