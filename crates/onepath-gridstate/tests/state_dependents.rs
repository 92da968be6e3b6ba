//! OPGS kinds 2, 5, 6 and 7: HexGrid, GridReplanner, HexReplanner and GridFlowField —
//! round trips, restored mid-way = never interrupted (through later edits too), the
//! listener/rebuild order, and hostile bytes.

mod common;

use common::{cases, grid_err, grid_from_bytes};

use onepath_format::bytes::ByteWriter;
use onepath_format::FormatError;
use onepath_gridstate::{
    FlowStatus, Grid, GridFlowField, GridOptions, GridPath, GridReplanner, HexGrid, HexLayout,
    HexReplanner, ReplanAlgorithm, SearchStatus, SlicedSearch, WALL,
};
use proptest::prelude::*;

fn random_grid(w: u32, h: u32, cells: &[u8]) -> Grid {
    let mut g = grid_from_bytes(w, h, cells, |c| match c % 6 {
        0 => WALL,
        1 => 1,
        _ => 0,
    });
    g.set_area_cost(1, 2.0).unwrap();
    g
}

fn alg(b: bool) -> ReplanAlgorithm {
    if b {
        ReplanAlgorithm::DStarLite
    } else {
        ReplanAlgorithm::LpaStar
    }
}

fn path_only(
    r: Result<GridPath, onepath_gridstate::GridError>,
) -> Result<(onepath_gridstate::GridPathStatus, Vec<u32>, u64), onepath_gridstate::GridError> {
    r.map(|r| (r.status, r.nodes, r.cost.to_bits()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    #[test]
    fn replanners_restored_mid_way_answer_as_if_never_interrupted_through_later_edits(
        w in 2u32..10, h in 2u32..10, cells in proptest::collection::vec(any::<u8>(), 100),
        dstar in any::<bool>(), n in 0u64..30,
        edits in proptest::collection::vec((any::<u32>(), any::<bool>()), 0..6),
        moves in proptest::collection::vec(any::<u32>(), 0..3),
    ) {
        let grid = random_grid(w, h, &cells);
        let (start, goal) = ((0, 0), (w - 1, h - 1));
        let mut a = GridReplanner::new(&grid, alg(dstar), GridOptions::default(), start, goal).unwrap();
        let mut g1 = grid.clone();
        a.step(&g1, n).unwrap();
        // Save grid + replanner, restore into fresh objects.
        let gb = g1.save_state();
        let rb = a.save_state();
        prop_assert_eq!(a.save_state(), rb.clone());
        let mut g2 = Grid::from_state(&gb).unwrap();
        let mut b = GridReplanner::new(&g2, alg(dstar), GridOptions::default(), start, goal).unwrap();
        b.restore_state(&g2, &rb).unwrap();
        prop_assert_eq!(b.save_state(), rb);
        prop_assert_eq!(path_only(a.replan(&g1)), path_only(b.replan(&g2)));
        for (k, &(c, wall)) in edits.iter().enumerate() {
            let c = c % (w * h);
            for g in [&mut g1, &mut g2] {
                g.set_area(c % w, c / w, if wall { WALL } else { 0 }).unwrap();
            }
            if let Some(&m) = moves.get(k) {
                let m = m % (w * h);
                a.set_start(&g1, (m % w, m / w)).unwrap();
                b.set_start(&g2, (m % w, m / w)).unwrap();
            }
            let ra = a.replan(&g1);
            let rb = b.replan(&g2);
            prop_assert_eq!(path_only(ra), path_only(rb));
            prop_assert_eq!(a.save_state(), b.save_state());
        }
    }

    #[test]
    fn flow_fields_restored_mid_way_answer_as_if_never_interrupted_through_later_edits(
        w in 2u32..10, h in 2u32..10, cells in proptest::collection::vec(any::<u8>(), 100),
        n in 0u64..40, edits in proptest::collection::vec((any::<u32>(), any::<bool>()), 0..5),
    ) {
        let grid = random_grid(w, h, &cells);
        let goals = [(w - 1, h - 1), (0, h / 2)];
        let mut g1 = grid.clone();
        let mut a = GridFlowField::new(&g1, &goals, GridOptions::default()).unwrap();
        a.step(&g1, n).unwrap();
        let gb = g1.save_state();
        let fb = a.save_state(&g1);
        prop_assert_eq!(a.save_state(&g1), fb.clone());
        let mut g2 = Grid::from_state(&gb).unwrap();
        let mut b = GridFlowField::new(&g2, &goals, GridOptions::default()).unwrap();
        b.restore_state(&g2, &fb).unwrap();
        prop_assert_eq!(b.save_state(&g2), fb);
        let check = |a: &GridFlowField, b: &GridFlowField| -> Result<(), TestCaseError> {
            for y in 0..h {
                for x in 0..w {
                    prop_assert_eq!(a.cost(x, y).to_bits(), b.cost(x, y).to_bits());
                    prop_assert_eq!(a.next_step(x, y), b.next_step(x, y));
                    prop_assert_eq!(a.path_from(x, y), b.path_from(x, y));
                }
            }
            Ok(())
        };
        a.compute(&g1).unwrap();
        b.compute(&g2).unwrap();
        check(&a, &b)?;
        for &(c, wall) in &edits {
            let c = c % (w * h);
            for g in [&mut g1, &mut g2] {
                g.set_area(c % w, c / w, if wall { WALL } else { 1 }).unwrap();
            }
            a.compute(&g1).unwrap();
            b.compute(&g2).unwrap();
            check(&a, &b)?;
            prop_assert_eq!(a.save_state(&g1), b.save_state(&g2));
        }
    }
}

// ------------------------------------------------------------------ order and listeners

#[test]
fn restoring_a_grid_drops_what_a_flow_field_derived_and_restoring_it_afterwards_replaces_the_rebuild(
) {
    let mut g = Grid::new(6, 4).unwrap();
    let saved_grid = g.save_state();
    let mut f = GridFlowField::new(&g, &[(5, 3)], GridOptions::default()).unwrap();
    f.compute(&g).unwrap();
    let saved_field = f.save_state(&g);
    // Another timeline: a wall, recomputed.
    g.set_blocked(4, 3, true).unwrap();
    f.compute(&g).unwrap();
    assert_eq!(f.cost(4, 3), f64::INFINITY);
    // Restore the grid only: the field rebuilds from scratch at its next use.
    g.restore_state(&saved_grid).unwrap();
    f.step(&g, 0).unwrap();
    assert_eq!(f.core().status(), FlowStatus::Running);
    f.compute(&g).unwrap();
    assert_eq!(f.save_state(&g), saved_field);
    // Restore grid then field: the field's saved state is used as is.
    g.set_blocked(1, 1, true).unwrap();
    f.compute(&g).unwrap();
    g.restore_state(&saved_grid).unwrap();
    f.restore_state(&g, &saved_field).unwrap();
    assert_eq!(f.save_state(&g), saved_field);
    f.step(&g, 0).unwrap();
    assert_eq!(f.core().status(), FlowStatus::Complete);
}

// ------------------------------------------------------------------ hostile bytes

fn replanner_bytes() -> (Grid, GridReplanner, Vec<u8>) {
    let g = random_grid(
        5,
        4,
        &[2, 3, 0, 3, 2, 2, 2, 2, 0, 2, 2, 3, 2, 2, 2, 2, 2, 2, 2, 2],
    );
    let mut r = GridReplanner::new(
        &g,
        ReplanAlgorithm::DStarLite,
        GridOptions::default(),
        (0, 0),
        (4, 3),
    )
    .unwrap();
    r.step(&g, 4).unwrap();
    let b = r.save_state();
    (g, r, b)
}

// Offsets: header 8, width 8..12, height 12..16, algorithm 16, area version 17..21,
// start 21..25, goal 25..29; replan search: node count 29..33, mode 33, start 34..38,
// goal 38..42, initialized 42, found 43, iterations 44..52, expanded 52..60,
// last expanded 60..64, km 64..72, overflow 72, pending count 73..77, planned count 77..81.
#[test]
fn replanner_rules_each_have_their_error_and_leave_it_unchanged() {
    let (g, mut r, base) = replanner_bytes();
    assert_eq!(r.save_state(), base);
    let before = r.save_state();
    let set = |at: usize, v: &[u8]| {
        let mut b = base.clone();
        b[at..at + v.len()].copy_from_slice(v);
        b
    };
    let cases: Vec<(Vec<u8>, FormatError)> = vec![
        (
            set(8, &6i32.to_le_bytes()),
            grid_err("size 6 x 4 does not match the replanner's 5 x 4"),
        ),
        (
            set(16, &[0]),
            grid_err("algorithm 0 does not match the replanner's 1"),
        ),
        (
            set(17, &(-1i32).to_le_bytes()),
            grid_err("area version -1 is negative"),
        ),
        (
            set(21, &20i32.to_le_bytes()),
            grid_err("start 20 out of range 0..20"),
        ),
        (
            set(25, &3i32.to_le_bytes()),
            grid_err("the replan search's start and goal are not the replanner's"),
        ),
        (
            set(29, &21i32.to_le_bytes()),
            grid_err("replan node count 21 does not match the grid's 20"),
        ),
        (
            set(33, &[0]),
            grid_err("replan mode 0 does not match the replanner's 1"),
        ),
        (set(42, &[2]), grid_err("initialized flag 2 is not 0 or 1")),
        (
            set(44, &(-1i64).to_le_bytes()),
            grid_err("replan iterations and expanded are not negative"),
        ),
        (
            set(60, &(-2i32).to_le_bytes()),
            grid_err("last expanded -2 out of range"),
        ),
        (set(64, &f64::NAN.to_le_bytes()), grid_err("km is NaN")),
        (
            set(64, &(-1.0f64).to_le_bytes()),
            grid_err("km -1 is not finite and >= 0"),
        ),
        (
            set(72, &[1, 1, 0, 0, 0]),
            grid_err("an overflowed replan search lists no pending entries"),
        ),
        (
            set(73, &4097i32.to_le_bytes()),
            grid_err("pending count 4097 exceeds 4096"),
        ),
        (
            set(77, &21i32.to_le_bytes()),
            grid_err("planned count 21 exceeds 20"),
        ),
    ];
    for (bytes, err) in cases {
        assert_eq!(r.restore_state(&g, &bytes).unwrap_err(), err);
        assert_eq!(r.save_state(), before);
    }
    // Planned entries: order, NaN, a node with neither value finite; the open set.
    let planned = i32::from_le_bytes(base[77..81].try_into().unwrap()) as usize;
    assert!(planned >= 2);
    let e0 = 81;
    let mut b = base.clone();
    b[e0..e0 + 4].copy_from_slice(&19i32.to_le_bytes());
    assert!(
        matches!(r.restore_state(&g, &b), Err(FormatError::State { format: "grid", ref message }) if message.contains("increasing order"))
    );
    let mut b = base.clone();
    b[e0 + 4..e0 + 12].copy_from_slice(&f64::NAN.to_le_bytes());
    assert_eq!(
        r.restore_state(&g, &b).unwrap_err(),
        grid_err("planned g is NaN")
    );
    let mut b = base.clone();
    b[e0 + 4..e0 + 12].copy_from_slice(&f64::INFINITY.to_le_bytes());
    b[e0 + 12..e0 + 20].copy_from_slice(&f64::INFINITY.to_le_bytes());
    assert!(
        matches!(r.restore_state(&g, &b), Err(FormatError::State { format: "grid", ref message }) if message.ends_with("are not >= 0 with one finite"))
    );
    let open_at = e0 + 20 * planned;
    let oc = i32::from_le_bytes(base[open_at..open_at + 4].try_into().unwrap());
    assert!(oc >= 2);
    let mut b = base.clone();
    let first: [u8; 4] = b[open_at + 4..open_at + 8].try_into().unwrap();
    b[open_at + 24..open_at + 28].copy_from_slice(&first);
    assert!(
        matches!(r.restore_state(&g, &b), Err(FormatError::State { format: "grid", ref message }) if message.ends_with("is listed twice"))
    );
    let mut b = base.clone();
    b[open_at + 8..open_at + 16].copy_from_slice(&f64::NAN.to_le_bytes());
    assert_eq!(
        r.restore_state(&g, &b).unwrap_err(),
        grid_err("replan open key1 is NaN")
    );
    let mut b = base.clone();
    b.push(0);
    assert_eq!(
        r.restore_state(&g, &b).unwrap_err(),
        FormatError::malformed("OPGS payload", "1 trailing bytes")
    );
    assert_eq!(r.save_state(), before);
}

#[test]
fn an_uninitialised_replan_search_stores_nothing_more() {
    let g = Grid::new(4, 4).unwrap();
    let r = GridReplanner::new(
        &g,
        ReplanAlgorithm::LpaStar,
        GridOptions::default(),
        (0, 0),
        (3, 3),
    )
    .unwrap();
    let b = r.save_state();
    assert_eq!(
        b.len(),
        8 + 4 + 4 + 1 + 4 + 4 + 4 + (4 + 1 + 4 + 4 + 1 + 1 + 8 + 8 + 4)
    );
    assert_eq!(b[b.len() - 4..], (-1i32).to_le_bytes());
    let mut b2 = b.clone();
    b2[43] = 1; // found without being initialised
    let mut r2 = r.clone();
    assert_eq!(
        r2.restore_state(&g, &b2).unwrap_err(),
        grid_err("an uninitialised replan search has not found a path")
    );
}

fn flow_bytes() -> (Grid, GridFlowField, Vec<u8>) {
    let g = Grid::from_ascii(&["....", ".#..", "...."]).unwrap();
    let mut f = GridFlowField::new(&g, &[(3, 2), (0, 0)], GridOptions::default()).unwrap();
    f.step(&g, 3).unwrap();
    let b = f.save_state(&g);
    (g, f, b)
}

/// Hand-built kind 7 bytes over the 4 × 3 grid above (goals (3, 2) = 11 and (0, 0) = 0).
#[allow(clippy::type_complexity)]
fn flow_built(
    status: u8,
    repairing: u8,
    goals: &[i32],
    reached: &[(i32, f64)],
    steps: &[(i32, i32)],
    open: &[(i32, f64, f64)],
    touched: &[i32],
) -> Vec<u8> {
    let mut w = ByteWriter::new();
    w.bytes(b"OPGS");
    w.u16(1);
    w.u16(7);
    w.i32(4);
    w.i32(3);
    w.i32(0);
    w.i32(2);
    w.i32(11);
    w.i32(0);
    w.i32(0); // pending
    w.i32(12);
    w.u8(status);
    w.i32(1);
    w.u8(repairing);
    w.i32(goals.len() as i32);
    goals.iter().for_each(|&g| w.i32(g));
    w.i32(reached.len() as i32);
    for &(n, c) in reached {
        w.i32(n);
        w.f64(c);
    }
    w.i32(steps.len() as i32);
    for &(n, x) in steps {
        w.i32(n);
        w.i32(x);
    }
    w.i32(open.len() as i32);
    for &(n, f, g) in open {
        w.i32(n);
        w.f64(f);
        w.f64(g);
    }
    if repairing == 1 {
        w.i32(touched.len() as i32);
        touched.iter().for_each(|&t| w.i32(t));
    }
    w.into_vec()
}

#[test]
fn flow_field_rules_each_have_their_error() {
    let (g, mut f, base) = flow_bytes();
    assert_eq!(f.save_state(&g), base);
    let ok = flow_built(
        1,
        0,
        &[0, 11],
        &[(0, 0.0), (1, 1.0), (11, 0.0)],
        &[(1, 0)],
        &[(1, 1.0, 1.0)],
        &[],
    );
    f.restore_state(&g, &ok).unwrap();
    assert_eq!(f.save_state(&g), ok);
    let cases: Vec<(Vec<u8>, FormatError)> = vec![
        (
            flow_built(3, 0, &[0, 11], &[], &[], &[], &[]),
            grid_err("flow status 3 is undefined"),
        ),
        (
            flow_built(2, 1, &[0, 11], &[], &[], &[], &[]),
            grid_err("only a running field is repairing"),
        ),
        (
            flow_built(1, 0, &[11, 0], &[], &[], &[], &[]),
            grid_err("flow goals are not strictly increasing"),
        ),
        (
            flow_built(1, 0, &[0], &[], &[], &[], &[]),
            grid_err("the saved goals are not the field's goals"),
        ),
        (
            flow_built(1, 0, &[0, 11], &[(1, 1.0), (0, 0.0)], &[], &[], &[]),
            grid_err("reached node 0 does not follow 1 in increasing order"),
        ),
        (
            flow_built(1, 0, &[0, 11], &[(0, f64::NAN)], &[], &[], &[]),
            grid_err("reached cost is NaN"),
        ),
        (
            flow_built(1, 0, &[0, 11], &[(0, -1.0)], &[], &[], &[]),
            grid_err("node 0: cost -1 is not finite and >= 0"),
        ),
        (
            flow_built(1, 0, &[0, 11], &[(0, 0.0), (1, 1.0)], &[(1, 2)], &[], &[]),
            grid_err("node 1: next 2 is not reached at no more cost"),
        ),
        (
            flow_built(1, 0, &[0, 11], &[(0, 2.0), (1, 1.0)], &[(1, 0)], &[], &[]),
            grid_err("node 1: next 0 is not reached at no more cost"),
        ),
        (
            flow_built(1, 0, &[0, 11], &[(0, 0.0)], &[(0, 12)], &[], &[]),
            grid_err("step next 12 out of range 0..12"),
        ),
        (
            flow_built(
                1,
                0,
                &[0, 11],
                &[],
                &[],
                &[(1, 1.0, 1.0), (1, 1.0, 1.0)],
                &[],
            ),
            grid_err("open set slot 1: node 1 is listed twice"),
        ),
        (
            flow_built(1, 1, &[0, 11], &[], &[], &[], &[3, 3]),
            grid_err("touched node 3 is listed twice"),
        ),
        (
            flow_built(1, 1, &[0, 11], &[], &[], &[], &[-1]),
            grid_err("touched node -1 out of range 0..12"),
        ),
    ];
    for (bytes, err) in cases {
        assert_eq!(f.restore_state(&g, &bytes).unwrap_err(), err);
    }
    let other = GridFlowField::new(&g, &[(0, 0), (3, 2)], GridOptions::default()).unwrap();
    let mut other2 = other.clone();
    assert_eq!(
        other2.restore_state(&g, &base).unwrap_err(),
        grid_err("the saved goals are not the field's goals")
    );
}

#[test]
fn an_inconsistent_cost_field_reports_an_error_but_never_panics() {
    let (g, mut f, _) = flow_bytes();
    // Nodes 1 and 2 point at each other at equal cost: a cycle the checks let through.
    let b = flow_built(
        2,
        0,
        &[0, 11],
        &[(1, 1.0), (2, 1.0)],
        &[(1, 2), (2, 1)],
        &[],
        &[],
    );
    f.restore_state(&g, &b).unwrap();
    assert_eq!(
        f.path_from(1, 0).unwrap_err(),
        onepath_gridstate::GridError::Invalid {
            what: "flow field",
            reason: "direction field contains a cycle".into()
        }
    );
}

// ------------------------------------------------------------------ hex

#[test]
fn hex_grid_round_trip_and_layout_check() {
    let mut h = HexGrid::new(5, 3, HexLayout::EvenRowsRight).unwrap();
    h.grid_mut().set_blocked(2, 1, true).unwrap();
    let b = h.save_state();
    assert_eq!(&b[..8], &[0x4F, 0x50, 0x47, 0x53, 1, 0, 2, 0]);
    assert_eq!(&b[16..20], &1i32.to_le_bytes());
    assert_eq!(b, h.save_state());
    let h2 = HexGrid::from_state(&b).unwrap();
    assert_eq!(h2.layout(), HexLayout::EvenRowsRight);
    assert_eq!(h2.save_state(), b);
    let mut odd = HexGrid::new(5, 3, HexLayout::OddRowsRight).unwrap();
    let before = odd.save_state();
    assert_eq!(
        odd.restore_state(&b).unwrap_err(),
        grid_err("layout 1 does not match the hex grid's 0")
    );
    assert_eq!(odd.save_state(), before);
    let mut bad = b.clone();
    bad[16] = 7;
    assert_eq!(
        HexGrid::from_state(&bad).unwrap_err(),
        grid_err("layout 7 is undefined")
    );
    let mut same = HexGrid::new(5, 3, HexLayout::EvenRowsRight).unwrap();
    same.restore_state(&b).unwrap();
    assert_eq!(same.save_state(), b);
}

#[test]
fn hex_replanner_restored_mid_way_answers_as_if_never_interrupted() {
    for alg in [ReplanAlgorithm::LpaStar, ReplanAlgorithm::DStarLite] {
        let mut h = HexGrid::new(7, 6, HexLayout::OddRowsRight).unwrap();
        for (x, y) in [(3, 0), (3, 1), (3, 2), (3, 3), (1, 4)] {
            h.grid_mut().set_blocked(x, y, true).unwrap();
        }
        let mut a = HexReplanner::new(&h, alg, GridOptions::default(), (0, 0), (6, 0)).unwrap();
        assert_eq!(a.step(&h, 5).unwrap(), SearchStatus::InProgress);
        let hb = h.save_state();
        let rb = a.save_state(&h);
        let mut h2 = HexGrid::from_state(&hb).unwrap();
        let mut b = HexReplanner::new(&h2, alg, GridOptions::default(), (0, 0), (6, 0)).unwrap();
        b.restore_state(&h2, &rb).unwrap();
        assert_eq!(b.save_state(&h2), rb);
        let mut h1 = h;
        assert_eq!(a.replan(&h1).unwrap(), b.replan(&h2).unwrap());
        h1.grid_mut().set_blocked(3, 4, true).unwrap();
        h2.grid_mut().set_blocked(3, 4, true).unwrap();
        assert_eq!(a.replan(&h1).unwrap(), b.replan(&h2).unwrap());
        assert_eq!(a.save_state(&h1), b.save_state(&h2));
        let mut wrong = HexReplanner::new(
            &h2,
            if alg == ReplanAlgorithm::LpaStar {
                ReplanAlgorithm::DStarLite
            } else {
                ReplanAlgorithm::LpaStar
            },
            GridOptions::default(),
            (0, 0),
            (6, 0),
        )
        .unwrap();
        assert!(matches!(
            wrong.restore_state(&h2, &rb),
            Err(FormatError::State { format: "grid", ref message }) if message.starts_with("algorithm")
        ));
    }
}

// ------------------------------------------------------------------ voxel (3)

use onepath_gridstate::{VoxelEdit, VoxelGrid, VoxelSpace};
use std::sync::{Arc, Mutex};

fn voxels() -> VoxelGrid {
    let mut v = VoxelGrid::new(20, 5, 17, 3).unwrap();
    v.set_area(1, 1, 1, WALL).unwrap();
    v.set_area(19, 4, 16, 7).unwrap();
    v.set_area_cost(7, 4.5).unwrap();
    v.set_space(VoxelSpace::new([1.0, 2.0, -3.0], 0.5).unwrap());
    v
}

#[test]
fn voxel_grid_round_trip_and_chunk_layout() {
    let v = voxels();
    let b = v.save_state();
    assert_eq!(b, v.save_state());
    // 2 x 1 x 2 chunks: chunk 0 (x 0..16, z 0..16) and chunk 3 (x 16.., z 16..) allocated.
    let head = 8 + 12 + 1 + 4 + 32 + 4 + 255 * 8;
    assert_eq!(b.len(), head + 4 + 2 * 4096);
    assert_eq!(b[head], 1);
    assert_eq!(b[head + 1 + 4096], 0);
    assert_eq!(b[head + 2 + 4096], 0);
    assert_eq!(b[head + 3 + 4096], 1);
    let v2 = VoxelGrid::from_state(&b).unwrap();
    assert_eq!(v2.save_state(), b);
    assert_eq!(v2.area(19, 4, 16).unwrap(), 7);
    let mut v3 = VoxelGrid::new(20, 5, 17, 3).unwrap();
    v3.restore_state(&b).unwrap();
    assert_eq!(v3.save_state(), b);
}

#[test]
fn voxel_restore_requires_the_same_size_and_default_area_and_is_checked_first() {
    let b = voxels().save_state();
    let mut other = VoxelGrid::new(20, 5, 17, 0).unwrap();
    let before = other.save_state();
    assert_eq!(
        other.restore_state(&b).unwrap_err(),
        grid_err("default area 3 does not match the grid's 0")
    );
    let mut small = VoxelGrid::new(20, 5, 16, 3).unwrap();
    assert_eq!(
        small.restore_state(&b).unwrap_err(),
        grid_err("size 20 x 5 x 17 does not match the grid's 20 x 5 x 16")
    );
    let mut bad = b.clone();
    let head = 8 + 12 + 1 + 4 + 32 + 4 + 255 * 8;
    bad[head + 1 + 4096] = 2;
    assert_eq!(
        other
            .restore_state(&{
                let mut x = bad.clone();
                x[20] = 0;
                x
            })
            .unwrap_err(),
        grid_err("chunk 1: chunk flag flag 2 is not 0 or 1")
    );
    assert_eq!(other.save_state(), before);
    // A huge size with few bytes fails before anything is allocated.
    let mut huge = b.clone();
    huge[8..12].copy_from_slice(&1i32.to_le_bytes());
    huge[12..16].copy_from_slice(&1i32.to_le_bytes());
    huge[16..20].copy_from_slice(&i32::MAX.to_le_bytes());
    assert!(matches!(
        VoxelGrid::from_state(&huge),
        Err(FormatError::Malformed { ref at, .. }) if at == "chunks"
    ));
}

#[test]
fn restoring_a_voxel_grid_tells_listeners_each_differing_voxel_in_ascending_node_order() {
    let target = voxels().save_state();
    let mut v = VoxelGrid::new(20, 5, 17, 3).unwrap();
    v.set_area(0, 0, 0, 9).unwrap();
    v.set_area(1, 1, 1, WALL).unwrap(); // same as the target
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    v.add_listener(move |e: &VoxelEdit| s.lock().unwrap().push(*e));
    v.restore_state(&target).unwrap();
    let e = |node, old_area, new_area| VoxelEdit {
        node,
        old_area,
        new_area,
    };
    assert_eq!(
        *seen.lock().unwrap(),
        vec![e(0, 9, 3), e(19 + 20 * (4 + 5 * 16), 3, 7)]
    );
}

#[test]
fn restoring_a_grid_makes_a_replanner_that_is_not_restored_rebuild_from_scratch() {
    let mut g = Grid::new(8, 6).unwrap();
    let saved = g.save_state();
    let mut r = GridReplanner::new(
        &g,
        ReplanAlgorithm::DStarLite,
        GridOptions::default(),
        (0, 0),
        (7, 5),
    )
    .unwrap();
    r.replan(&g).unwrap();
    g.set_blocked(3, 3, true).unwrap();
    r.replan(&g).unwrap();
    // Roll the grid back and edit once: the version repeats on another timeline.
    g.restore_state(&saved).unwrap();
    g.set_blocked(4, 2, true).unwrap();
    let after = r.replan(&g).unwrap();
    let mut fresh = GridReplanner::new(
        &g,
        ReplanAlgorithm::DStarLite,
        GridOptions::default(),
        (0, 0),
        (7, 5),
    )
    .unwrap();
    let expected = fresh.replan(&g).unwrap();
    assert_eq!(after.nodes, expected.nodes);
    assert_eq!(after.cost, expected.cost);
    // A rebuild from scratch expands what a fresh replanner expands.
    assert_eq!(after.expanded, expected.expanded);
}

#[test]
fn restoring_a_grid_makes_an_hpa_hierarchy_rebuild_every_cluster() {
    use onepath_gridstate::HpaStar;
    let mut g = Grid::new(32, 32).unwrap();
    let mut hpa = HpaStar::new(&g, 8, GridOptions::default()).unwrap();
    let built = hpa.rebuilt_clusters();
    assert_eq!(built, 16);
    let mut other = Grid::new(32, 32).unwrap();
    for y in 0..30 {
        other.set_blocked(16, y, true).unwrap();
    }
    g.restore_state(&other.save_state()).unwrap();
    let r = hpa.find_path(&g, (0, 0), (31, 0)).unwrap();
    // Every cluster was rebuilt (a restore is not a journalled edit), and the path goes
    // around the restored wall.
    assert_eq!(hpa.rebuilt_clusters(), built + 16);
    let mut fresh = HpaStar::new(&g, 8, GridOptions::default()).unwrap();
    let f = fresh.find_path(&g, (0, 0), (31, 0)).unwrap();
    assert_eq!(r.nodes, f.nodes);
    assert!(r.nodes.iter().all(|&c| !(c % 32 == 16 && c / 32 < 30)));
}

/// Fuzz finding (grid_state_reader, kind 3): sizes whose product overflows u64 must be a
/// grid state error, not an arithmetic overflow. These are the fuzzer's exact bytes after
/// its selector byte: header, then size x 0x09FF_FF08, y and z 0x1515_1515.
#[test]
fn voxel_grid_sizes_whose_product_overflows_are_a_grid_state_error() {
    let mut bytes = vec![
        0x4F, 0x50, 0x47, 0x53, 0x01, 0x00, 0x03, 0x00, 0x08, 0xFF, 0xFF, 0x09,
    ];
    bytes.extend(std::iter::repeat_n(0x15u8, 105));
    let e = onepath_gridstate::VoxelGrid::from_state(&bytes).unwrap_err();
    assert_eq!(
        e,
        grid_err("size 167771912 x 353703189 x 353703189 holds more than i32::MAX voxels")
    );
    // The largest sizes, each 2^31 - 1, overflow u64 in the product too.
    let mut w = ByteWriter::new();
    w.bytes(b"OPGS");
    w.u16(1);
    w.u16(3);
    for _ in 0..3 {
        w.i32(i32::MAX);
    }
    w.u8(0);
    let e = onepath_gridstate::VoxelGrid::from_state(w.as_slice()).unwrap_err();
    assert_eq!(
        e,
        grid_err("size 2147483647 x 2147483647 x 2147483647 holds more than i32::MAX voxels")
    );
}

fn assert_same_field(g: &Grid, a: &GridFlowField, b: &GridFlowField) {
    assert_eq!(a.save_state(g), b.save_state(g));
    for y in 0..3 {
        for x in 0..4 {
            assert_eq!(
                a.cost(x, y).to_bits(),
                b.cost(x, y).to_bits(),
                "cost of ({x}, {y})"
            );
        }
    }
}

/// A field whose next step starts over (`recompute` was called) is saved as not started,
/// so its restored copy starts over as well and both give the same answers, also when the
/// grid changed since the field's last step.
#[test]
fn a_field_saved_after_recompute_starts_over_when_restored_too() {
    let mut g = Grid::from_ascii(&["....", ".#..", "...."]).unwrap();
    let mut f = GridFlowField::new(&g, &[(3, 2)], GridOptions::default()).unwrap();
    f.compute(&g).unwrap();
    g.set_area(1, 0, WALL).unwrap();
    g.set_area(2, 1, WALL).unwrap();
    f.recompute();
    let saved = f.save_state(&g);
    let mut restored = GridFlowField::new(&g, &[(3, 2)], GridOptions::default()).unwrap();
    restored.restore_state(&g, &saved).unwrap();
    assert_eq!(restored.save_state(&g), saved);
    f.compute(&g).unwrap();
    restored.compute(&g).unwrap();
    assert_same_field(&g, &f, &restored);
}

/// Edits made after the field's last step and before the save reach the restored copy too.
#[test]
fn edits_after_the_last_step_reach_a_restored_field() {
    let mut g = Grid::from_ascii(&["....", ".#..", "...."]).unwrap();
    let mut f = GridFlowField::new(&g, &[(3, 2)], GridOptions::default()).unwrap();
    f.compute(&g).unwrap();
    g.set_area(1, 0, WALL).unwrap();
    g.set_area(2, 1, WALL).unwrap();
    let saved = f.save_state(&g);
    let mut restored = GridFlowField::new(&g, &[(3, 2)], GridOptions::default()).unwrap();
    restored.restore_state(&g, &saved).unwrap();
    f.compute(&g).unwrap();
    restored.compute(&g).unwrap();
    assert_same_field(&g, &f, &restored);
}

/// The replanner's counterpart of the flow-field case: edits made after its last step and
/// before the save reach the restored copy.
#[test]
fn edits_after_the_last_step_reach_a_restored_replanner() {
    for alg in [ReplanAlgorithm::LpaStar, ReplanAlgorithm::DStarLite] {
        let mut g = Grid::from_ascii(&["......", ".#....", "......", "...#.."]).unwrap();
        let mut r = GridReplanner::new(&g, alg, GridOptions::default(), (0, 0), (5, 3)).unwrap();
        r.result(&g).unwrap();
        g.set_area(1, 0, WALL).unwrap();
        g.set_area(4, 2, WALL).unwrap();
        let saved = r.save_state();
        let mut restored =
            GridReplanner::new(&g, alg, GridOptions::default(), (0, 0), (5, 3)).unwrap();
        restored.restore_state(&g, &saved).unwrap();
        let a = r.result(&g).unwrap();
        let b = restored.result(&g).unwrap();
        assert_eq!(a, b, "{alg:?}");
        assert_eq!(r.save_state(), restored.save_state(), "{alg:?}");
    }
}
