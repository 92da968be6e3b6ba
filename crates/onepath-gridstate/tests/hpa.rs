//! HPA*: finds a path exactly when one exists, never shorter than the optimum, every path
//! a chain of allowed moves at the reported cost; incremental repair after edits gives the
//! same answers as a hierarchy built from scratch.

mod common;

use common::{
    cases, close, dijkstra, grid_moves, passable, path_cost, random_cell, random_grid, xorshift,
};
use onepath_gridstate::{
    Connectivity, DiagonalRule, Grid, GridOptions, GridPathStatus, HpaStar, SearchStatus,
    SlicedSearch, WALL,
};
use proptest::prelude::*;

#[allow(clippy::type_complexity)]
fn arb_case() -> impl Strategy<
    Value = (
        Grid,
        Vec<((u32, u32), (u32, u32))>,
        Vec<(u32, u32, u8)>,
        u32,
        GridOptions,
    ),
> {
    (
        2u32..28,
        2u32..28,
        any::<u64>(),
        2u32..7,
        0usize..2,
        any::<bool>(),
        1u32..3,
    )
        .prop_map(|(w, h, seed, cs, c, both, size)| {
            let mut next = xorshift(seed | 1);
            let mut g = random_grid(w, h, &mut next, |r| {
                let v = r % 10;
                if v < 3 {
                    WALL
                } else {
                    (v % 2) as u8
                }
            });
            g.set_area_cost(1, 1.5).unwrap();
            let mut pt = || random_cell(&mut next, w, h);
            let queries = (0..4).map(|_| (pt(), pt())).collect();
            let edits = (0..5)
                .map(|_| {
                    let (x, y) = pt();
                    (x, y, [WALL, 0, 1][(x + y) as usize % 3])
                })
                .collect();
            let opts = GridOptions {
                connectivity: [Connectivity::Four, Connectivity::Eight][c],
                diagonal_rule: if both {
                    DiagonalRule::BothOrthogonalFree
                } else {
                    DiagonalRule::NoCornerCutting
                },
                agent_size: size,
                ..GridOptions::default()
            };
            (g, queries, edits, cs, opts)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(100)))]

    #[test]
    fn hpa_paths_are_valid_complete_and_never_shorter((grid, queries, edits, cs, opts) in arb_case()) {
        let mut grid = grid;
        let mut hpa = HpaStar::new(&grid, cs, opts.clone()).unwrap();
        for e in std::iter::once(None).chain(edits.into_iter().map(Some)) {
            if let Some((x, y, a)) = e {
                grid.set_area(x, y, a).unwrap();
            }
            let mut fresh = HpaStar::new(&grid, cs, opts.clone()).unwrap();
            for &(s, t) in &queries {
                let si = grid.index(s.0, s.1).unwrap() as usize;
                let ti = grid.index(t.0, t.1).unwrap() as usize;
                let ok = |p: (u32, u32)| passable(&grid, i64::from(p.0), i64::from(p.1), opts.agent_size);
                let want = if ok(s) && ok(t) { dijkstra(grid.cell_count(), si, |u| grid_moves(&grid, &opts, u))[ti] } else { f64::INFINITY };
                let r = hpa.find_path(&grid, s, t).unwrap();
                prop_assert_eq!(&r, &fresh.find_path(&grid, s, t).unwrap(), "incremental differs from fresh");
                if want.is_finite() {
                    prop_assert_eq!(r.status, GridPathStatus::Found);
                    prop_assert!(r.cost >= want - 1e-9, "hpa {} < optimum {}", r.cost, want);
                    let walked = path_cost(&grid, &opts, &r.nodes).map_err(TestCaseError::fail)?;
                    prop_assert!(close(walked, r.cost), "walked {} vs reported {}", walked, r.cost);
                    prop_assert_eq!(r.nodes.first().copied(), Some(si as u32));
                    prop_assert_eq!(r.nodes.last().copied(), Some(ti as u32));
                } else {
                    prop_assert_eq!(r.status, GridPathStatus::NoPath);
                }
            }
        }
    }

    #[test]
    fn hpa_sliced_equals_one_shot((grid, queries, _edits, cs, opts) in arb_case(), budget in 1u64..4) {
        let opts = GridOptions { record_expansions: true, ..opts };
        let mut one = HpaStar::new(&grid, cs, opts.clone()).unwrap();
        let mut sliced = HpaStar::new(&grid, cs, opts).unwrap();
        for &(s, t) in &queries {
            let want = one.find_path(&grid, s, t).unwrap();
            sliced.begin(&grid, s, t).unwrap();
            while sliced.step(&grid, budget).unwrap() == SearchStatus::InProgress {}
            let got = sliced.result().unwrap();
            prop_assert_eq!(got.expansions.as_ref().map(Vec::len), Some(got.expanded as usize));
            prop_assert_eq!(got, want);
        }
    }
}

#[test]
fn an_edit_rebuilds_only_nearby_clusters() {
    let mut grid = Grid::new(64, 64).unwrap();
    let mut hpa = HpaStar::new(&grid, 8, GridOptions::default()).unwrap();
    let full = hpa.rebuilt_clusters();
    assert_eq!(full, 64);
    grid.set_blocked(20, 20, true).unwrap();
    let r = hpa.find_path(&grid, (0, 0), (63, 63)).unwrap();
    assert_eq!(r.status, GridPathStatus::Found);
    let repaired = hpa.rebuilt_clusters() - full;
    assert!(repaired > 0 && repaired <= 9, "{repaired} clusters rebuilt");
}
