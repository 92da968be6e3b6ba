//! LPA* and D* Lite replanners equal a plain Dijkstra after every edit, start move and
//! goal change; a sliced replan equals the one-shot replan.

mod common;

use common::{cases, close, grid_cost, path_cost, random_cell, random_grid, xorshift};
use onepath_gridstate::{
    Connectivity, DiagonalRule, Grid, GridOptions, GridPathStatus, GridReplanner, ReplanAlgorithm,
    SearchStatus, WALL,
};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Edit(u32, u32, u8),
    MoveStart(u32, u32),
    SetGoal(u32, u32),
}

#[allow(clippy::type_complexity)]
fn arb_case() -> impl Strategy<
    Value = (
        Grid,
        (u32, u32),
        (u32, u32),
        Vec<Op>,
        GridOptions,
        ReplanAlgorithm,
    ),
> {
    (
        2u32..14,
        2u32..14,
        any::<u64>(),
        0usize..2,
        0usize..3,
        1u32..3,
        any::<bool>(),
    )
        .prop_map(|(w, h, seed, c, r, size, lpa)| {
            let mut next = xorshift(seed | 1);
            let mut grid = random_grid(w, h, &mut next, |r| {
                let v = r % 10;
                if v < 3 {
                    WALL
                } else {
                    (v % 3) as u8
                }
            });
            grid.set_area_cost(1, 2.5).unwrap();
            grid.set_area_cost(2, 0.75).unwrap();
            let mut pt = || random_cell(&mut next, w, h);
            let (s, t) = (pt(), pt());
            let mut ops = Vec::new();
            for _ in 0..12 {
                let k = next() % 10;
                let (x, y) = (
                    (next() % u64::from(w)) as u32,
                    (next() % u64::from(h)) as u32,
                );
                ops.push(match k {
                    0..=5 => Op::Edit(x, y, [WALL, 0, 1, 2][(next() % 4) as usize]),
                    6..=8 => Op::MoveStart(x, y),
                    _ => Op::SetGoal(x, y),
                });
            }
            let opts = GridOptions {
                connectivity: [Connectivity::Four, Connectivity::Eight][c],
                diagonal_rule: [
                    DiagonalRule::Always,
                    DiagonalRule::NoCornerCutting,
                    DiagonalRule::BothOrthogonalFree,
                ][r],
                agent_size: size,
                ..GridOptions::default()
            };
            let alg = if lpa {
                ReplanAlgorithm::LpaStar
            } else {
                ReplanAlgorithm::DStarLite
            };
            (grid, s, t, ops, opts, alg)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(120)))]

    #[test]
    fn replanners_equal_dijkstra_after_every_change((grid, s, t, ops, opts, alg) in arb_case()) {
        let mut grid = grid;
        let (mut s, mut t) = (s, t);
        let mut rp = GridReplanner::new(&grid, alg, opts.clone(), s, t).unwrap();
        for op in std::iter::once(None).chain(ops.into_iter().map(Some)) {
            match op {
                Some(Op::Edit(x, y, a)) => grid.set_area(x, y, a).unwrap(),
                Some(Op::MoveStart(x, y)) => { s = (x, y); rp.set_start(&grid, s).unwrap(); }
                Some(Op::SetGoal(x, y)) => { t = (x, y); rp.set_goal(&grid, t).unwrap(); }
                None => {}
            }
            let r = rp.replan(&grid).unwrap();
            let want = grid_cost(&grid, &opts, s, t);
            if want.is_finite() {
                prop_assert_eq!(r.status, GridPathStatus::Found);
                prop_assert!(close(r.cost, want), "{:?}: cost {} vs dijkstra {}", alg, r.cost, want);
                let walked = path_cost(&grid, &opts, &r.nodes).map_err(TestCaseError::fail)?;
                prop_assert!(close(walked, want));
                prop_assert_eq!(r.nodes.first().copied(), Some(grid.index(s.0, s.1).unwrap()));
                prop_assert_eq!(r.nodes.last().copied(), Some(grid.index(t.0, t.1).unwrap()));
            } else {
                prop_assert_eq!(r.status, GridPathStatus::NoPath);
            }
        }
    }

    #[test]
    fn sliced_replan_equals_one_shot((grid, s, t, ops, opts, alg) in arb_case(), budget in 1u64..6) {
        let mut grid = grid;
        let opts = GridOptions { record_expansions: true, ..opts };
        let mut one = GridReplanner::new(&grid, alg, opts.clone(), s, t).unwrap();
        let mut sliced = GridReplanner::new(&grid, alg, opts, s, t).unwrap();
        for op in std::iter::once(None).chain(ops.into_iter().map(Some)) {
            match op {
                Some(Op::Edit(x, y, a)) => grid.set_area(x, y, a).unwrap(),
                Some(Op::MoveStart(x, y)) => { one.set_start(&grid, (x, y)).unwrap(); sliced.set_start(&grid, (x, y)).unwrap(); }
                Some(Op::SetGoal(x, y)) => { one.set_goal(&grid, (x, y)).unwrap(); sliced.set_goal(&grid, (x, y)).unwrap(); }
                None => {}
            }
            let want = one.replan(&grid).unwrap();
            while sliced.step(&grid, budget).unwrap() == SearchStatus::InProgress {}
            let got = sliced.result(&grid).unwrap();
            prop_assert_eq!(got.expansions.as_ref().map(Vec::len), Some(got.expanded as usize));
            prop_assert_eq!(got, want);
        }
    }
}

#[test]
fn d_star_lite_moves_the_start_and_repairs_locally() {
    let mut grid = Grid::new(32, 32).unwrap();
    let mut rp = GridReplanner::new(
        &grid,
        ReplanAlgorithm::DStarLite,
        GridOptions::default(),
        (0, 0),
        (31, 31),
    )
    .unwrap();
    let first = rp.replan(&grid).unwrap();
    assert_eq!(first.status, GridPathStatus::Found);
    // Step along the path, then wall off a far corner the plan never looked at.
    let next = grid.xy(first.nodes[1]);
    rp.set_start(&grid, next).unwrap();
    grid.set_blocked(31, 0, true).unwrap();
    let second = rp.replan(&grid).unwrap();
    assert_eq!(second.nodes[..], first.nodes[1..]);
    assert!(
        second.expanded < first.expanded,
        "{} vs {}",
        second.expanded,
        first.expanded
    );
    assert!(rp.core().pending().is_empty());
}
