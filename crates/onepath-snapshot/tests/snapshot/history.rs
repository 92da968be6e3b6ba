//! Random histories: snapshot, an excursion, restore; the restored mesh equals a mesh that
//! did the same operations without the excursion, and carrying on with the same operations
//! keeps the two byte-identical step by step.

use onepath_format::{NavMeshParams, NavTile, OffMeshLinkSlot};
use onepath_mesh::fixtures::{flat_grid_data, flat_grid_tile};
use onepath_mesh::{NavMeshSerializer, TiledNavMesh};
use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, SnapshotWriter, TileLibrary};
use proptest::prelude::*;

use crate::common::*;

/// Case count: `PROPTEST_CASES` when set (CI raises it), else `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Every tile a history may add: per column (0..3, 0..2) a 1 × 1 and a 2 × 2 flat tile, a
/// linked tile and a far-linked tile on layer 0, and a 2 × 2 flat and a linked tile on
/// layer 1 (4 units up).
fn pool(p: &NavMeshParams) -> Vec<NavTile> {
    let mut out = Vec::new();
    for x in 0..3 {
        for z in 0..2 {
            out.push(flat_grid_tile(p, x, z, 0, 0.0, 1).unwrap());
            out.push(flat_grid_tile(p, x, z, 0, 0.0, 2).unwrap());
            out.push(linked_tile(p, x, z, 0, 0.0));
            out.push(far_linked_tile(p, x, z));
            out.push(flat_grid_tile(p, x, z, 1, 4.0, 2).unwrap());
            out.push(linked_tile(p, x, z, 1, 4.0));
        }
    }
    out
}

/// Number of tiles of [`pool`].
const POOL: usize = 36;

/// A flat 2 × 2 tile on layer 0 whose two bidirectional links end two columns away, at +X
/// and at −X (in a column the pool may fill or not): its coming and going restitches the
/// tiles there, though they are not its neighbours.
fn far_linked_tile(p: &NavMeshParams, x: i32, z: i32) -> NavTile {
    let mut d = flat_grid_data(p, x, z, 0, 0.0, 2);
    let link = |end: [f32; 3], user_id| OffMeshLinkSlot {
        start: [2.0, 0.0, 2.0],
        end,
        radius: 1.0,
        area: 1,
        bidirectional: true,
        flags: 1,
        user_id,
    };
    d.off_mesh_links = vec![link([18.0, 0.0, 6.0], 1), link([-14.0, 0.0, 2.0], 2)];
    NavTile::create(p, d).unwrap()
}

#[derive(Debug, Clone)]
enum Op {
    Add(usize),
    Replace(usize),
    Remove(usize),
    RemoveColumn(i32, i32),
    /// Remove a tile and add the mesh's copy back (it carries its current values).
    Readd(usize),
    SetArea(usize, usize, u8),
    SetFlags(usize, usize, u16),
    SetLink(usize, usize, bool),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..POOL).prop_map(Op::Add),
        1 => (0..POOL).prop_map(Op::Replace),
        1 => any::<usize>().prop_map(Op::Remove),
        1 => (0..3i32, 0..2i32).prop_map(|(x, z)| Op::RemoveColumn(x, z)),
        1 => any::<usize>().prop_map(Op::Readd),
        2 => (any::<usize>(), any::<usize>(), prop_oneof![0..4u8, 60..65u8])
            .prop_map(|(t, p, a)| Op::SetArea(t, p, a)),
        2 => (any::<usize>(), any::<usize>(), 0..3u16).prop_map(|(t, p, f)| Op::SetFlags(t, p, f)),
        2 => (any::<usize>(), any::<usize>(), any::<bool>())
            .prop_map(|(t, l, on)| Op::SetLink(t, l, on)),
    ]
}

/// Applies `op` to `m`; the outcome (success or the error) is returned for comparison.
fn apply(m: &mut TiledNavMesh, pool: &[NavTile], op: &Op) -> String {
    let pick = |m: &TiledNavMesh, i: usize| {
        let n = m.tile_count();
        (n > 0).then(|| m.tiles().nth(i % n).unwrap().tile_ref())
    };
    match *op {
        Op::Add(i) => format!("{:?}", m.add_tile(pool[i].clone())),
        Op::Replace(i) => format!("{:?}", m.replace_tile(pool[i].clone()).map(|r| r.0)),
        Op::Remove(i) => match pick(m, i) {
            Some(r) => format!("{:?}", m.remove_tile(r).map(|t| t.position())),
            None => "empty".into(),
        },
        Op::RemoveColumn(x, z) => format!("{}", m.remove_column(x, z).len()),
        Op::Readd(i) => match pick(m, i) {
            Some(r) => {
                let t = m.remove_tile(r).unwrap();
                format!("{:?}", m.add_tile(t))
            }
            None => "empty".into(),
        },
        Op::SetArea(t, p, a) => match pick(m, t) {
            Some(r) => {
                let n = m.tile(r).unwrap().tile().poly_count();
                format!("{:?}", m.set_poly_area(r.poly((p % n) as u32).unwrap(), a))
            }
            None => "empty".into(),
        },
        Op::SetFlags(t, p, f) => match pick(m, t) {
            Some(r) => {
                let n = m.tile(r).unwrap().tile().poly_count();
                format!("{:?}", m.set_poly_flags(r.poly((p % n) as u32).unwrap(), f))
            }
            None => "empty".into(),
        },
        Op::SetLink(t, l, on) => match pick(m, t) {
            Some(r) => format!("{:?}", m.set_off_mesh_link_enabled(r, (l % 3) as u32, on)),
            None => "empty".into(),
        },
    }
}

fn library(p: &NavMeshParams, pool: &[NavTile]) -> TileLibrary {
    let mut lib = TileLibrary::new(p);
    lib.extend(pool).unwrap();
    lib
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    #[test]
    fn carrying_on_after_a_restore_keeps_both_meshes_byte_identical_step_by_step(
        prefix in prop::collection::vec(op(), 0..24),
        excursion in prop::collection::vec(op(), 1..16),
        suffix in prop::collection::vec(op(), 0..12),
        referenced in any::<bool>(),
        in_place in any::<bool>(),
    ) {
        let p = params();
        let pool = pool(&p);
        let lib = library(&p, &pool);
        let mode = if referenced { SnapshotMode::Referenced } else { SnapshotMode::Full };
        let mut a = TiledNavMesh::new(p).unwrap();
        let mut b = TiledNavMesh::new(p).unwrap();
        let mut writer = SnapshotWriter::new();
        for o in &prefix {
            prop_assert_eq!(apply(&mut a, &pool, o), apply(&mut b, &pool, o));
            prop_assert_eq!(
                writer.take(&a, SnapshotMode::Referenced),
                NavMeshSnapshot::take(&a, SnapshotMode::Referenced)
            );
        }
        let saved = NavMeshSnapshot::take(&a, mode);
        for o in &excursion {
            apply(&mut a, &pool, o);
        }
        if in_place {
            NavMeshSnapshot::restore_in_place(&mut a, &saved, &lib).unwrap();
        } else {
            a = NavMeshSnapshot::restore(&saved, &lib).unwrap();
        }
        prop_assert_eq!(NavMeshSnapshot::take(&a, mode), saved);
        let refs = probe_refs(&[&a, &b]);
        prop_assert_eq!(ref_behaviour(&a, &refs), ref_behaviour(&b, &refs));
        prop_assert_eq!(observe(&a), observe(&b));
        prop_assert_eq!(&a, &b);
        let points = probe_points(&b, 6);
        prop_assert_eq!(query_battery(&a, &points), query_battery(&b, &points));
        for o in &suffix {
            prop_assert_eq!(apply(&mut a, &pool, o), apply(&mut b, &pool, o));
            prop_assert_eq!(observe(&a), observe(&b));
            prop_assert_eq!(writer.take(&a, mode), NavMeshSnapshot::take(&b, mode));
        }
        prop_assert_eq!(&a, &b);
        let points = probe_points(&b, 6);
        prop_assert_eq!(query_battery(&a, &points), query_battery(&b, &points));
    }
}

/// `m` after a full restitch (links recomputed from scratch).
fn restitched(m: &TiledNavMesh) -> TiledNavMesh {
    let mut full = m.clone();
    full.restitch_all();
    full
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(96)))]

    #[test]
    fn an_in_place_restore_equals_a_full_restore_whatever_the_mesh_went_through(
        prefix in prop::collection::vec(op(), 0..24),
        excursion in prop::collection::vec(op(), 0..8),
        referenced in any::<bool>(),
        target_kind in 0..3u8,
        flip in any::<(usize, u8)>(),
    ) {
        let p = params();
        let pool = pool(&p);
        let lib = library(&p, &pool);
        let mode = if referenced { SnapshotMode::Referenced } else { SnapshotMode::Full };
        let mut a = TiledNavMesh::new(p).unwrap();
        for o in &prefix {
            apply(&mut a, &pool, o);
        }
        let saved = NavMeshSnapshot::take(&a, mode);
        let expected = NavMeshSnapshot::restore(&saved, &lib).unwrap();
        // The mesh restored into: the same mesh after an excursion (its tiles are the
        // pool's, compared by value), a restored copy after an excursion (its tiles share
        // the library's geometry), or a mesh with only the excursion's history.
        let mut target = match target_kind {
            0 => a.clone(),
            1 => NavMeshSnapshot::restore(&saved, &lib).unwrap(),
            _ => TiledNavMesh::new(p).unwrap(),
        };
        for o in &excursion {
            apply(&mut target, &pool, o);
        }
        // A broken copy of the snapshot: a failed restore leaves the mesh exactly as it was,
        // an accepted one is the full restore of the same bytes.
        let mut broken = saved.clone();
        let at = flip.0 % broken.len();
        broken[at] ^= flip.1.max(1);
        let before = target.clone();
        let mut tried = target.clone();
        match NavMeshSnapshot::restore_in_place(&mut tried, &broken, &lib) {
            Err(_) => {
                prop_assert_eq!(&tried, &before);
                prop_assert_eq!(observe(&tried), observe(&before));
                prop_assert_eq!(
                    NavMeshSerializer::write_mesh(&tried),
                    NavMeshSerializer::write_mesh(&before)
                );
            }
            Ok(()) => {
                let fresh = NavMeshSnapshot::restore(&broken, &lib);
                prop_assert_eq!(Ok(&tried), fresh.as_ref());
            }
        }
        NavMeshSnapshot::restore_in_place(&mut target, &saved, &lib).unwrap();
        prop_assert_eq!(&target, &expected);
        prop_assert_eq!(&restitched(&target), &target);
        prop_assert_eq!(
            NavMeshSerializer::write_mesh(&target),
            NavMeshSerializer::write_mesh(&expected)
        );
        for mode in [SnapshotMode::Full, SnapshotMode::Referenced] {
            prop_assert_eq!(
                NavMeshSnapshot::take(&target, mode),
                NavMeshSnapshot::take(&expected, mode)
            );
        }
        let refs = probe_refs(&[&target, &expected, &a]);
        prop_assert_eq!(ref_behaviour(&target, &refs), ref_behaviour(&expected, &refs));
        // Restoring the same snapshot again changes nothing.
        NavMeshSnapshot::restore_in_place(&mut target, &saved, &lib).unwrap();
        prop_assert_eq!(&target, &expected);
    }
}

#[test]
fn an_in_place_restore_without_a_far_linked_tile_removes_its_reverse_links_two_columns_away() {
    let p = params();
    let mut m = TiledNavMesh::new(p).unwrap();
    for (x, z) in [(1, 0), (2, 0), (0, 1), (1, 1), (2, 1)] {
        m.add_tile(flat_grid_tile(&p, x, z, 0, 0.0, 2).unwrap())
            .unwrap();
    }
    let saved = NavMeshSnapshot::take(&m, SnapshotMode::Referenced);
    let far = m.add_tile(far_linked_tile(&p, 0, 0)).unwrap();
    // The link to +X ends on (2, 0), whose polygon carries the reverse link.
    let end = m.off_mesh_connection(far, 0).unwrap().end_poly.unwrap();
    assert_eq!(m.tile(end.tile()).unwrap().tile().position(), (2, 0, 0));
    assert!(m
        .poly_links(end)
        .unwrap()
        .iter()
        .any(|l| l.target.tile() == far));
    let mut lib = library(&p, &pool(&p));
    lib.extend(m.tiles().map(|t| t.tile())).unwrap();
    NavMeshSnapshot::restore_in_place(&mut m, &saved, &lib).unwrap();
    assert!(m
        .poly_links(end)
        .unwrap()
        .iter()
        .all(|l| l.target.tile() != far));
    assert_eq!(m, NavMeshSnapshot::restore(&saved, &lib).unwrap());
    assert_eq!(restitched(&m), m);
}
