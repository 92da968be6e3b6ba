//! Flow fields equal a multi-goal Dijkstra after every edit (repair = recomputation), the
//! next steps lead to a goal at the integration cost, and sliced equals one-shot.

mod common;

use common::{cases, close, dijkstra, grid_moves, random_cell, random_grid, xorshift};
use onepath_gridstate::{
    Connectivity, DiagonalRule, FlowStatus, Grid, GridFlowField, GridOptions, WALL,
};
use proptest::prelude::*;

fn reference(grid: &Grid, opts: &GridOptions, goals: &[(u32, u32)]) -> Vec<f64> {
    // Reverse every move, add a virtual source joined to the goals at cost 0.
    let n = grid.cell_count();
    let mut rev: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n + 1];
    for u in 0..n {
        for (v, c) in grid_moves(grid, opts, u) {
            rev[v].push((u, c));
        }
    }
    for &(x, y) in goals {
        let g = grid.index(x, y).unwrap() as usize;
        if common::passable(grid, i64::from(x), i64::from(y), opts.agent_size) {
            rev[n].push((g, 0.0));
        }
    }
    let mut d = dijkstra(n + 1, n, |u| rev[u].clone());
    d.pop();
    d
}

#[allow(clippy::type_complexity)]
fn arb_case() -> impl Strategy<Value = (Grid, Vec<(u32, u32)>, Vec<(u32, u32, u8)>, GridOptions)> {
    (
        2u32..16,
        2u32..16,
        any::<u64>(),
        1usize..4,
        0usize..2,
        0usize..3,
        1u32..3,
    )
        .prop_map(|(w, h, seed, ng, c, r, size)| {
            let mut next = xorshift(seed | 1);
            let mut grid = random_grid(w, h, &mut next, |r| {
                let v = r % 10;
                if v < 3 {
                    WALL
                } else {
                    (v % 3) as u8
                }
            });
            grid.set_area_cost(1, 3.0).unwrap();
            grid.set_area_cost(2, 0.5).unwrap();
            let mut pt = || random_cell(&mut next, w, h);
            let goals: Vec<(u32, u32)> = (0..ng).map(|_| pt()).collect();
            let edits = (0..10)
                .map(|_| {
                    let (x, y) = pt();
                    (x, y, [WALL, 0, 1, 2][(x as usize + y as usize) % 4])
                })
                .collect();
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
            (grid, goals, edits, opts)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(120)))]

    #[test]
    fn flow_field_equals_dijkstra_after_every_repair((grid, goals, edits, opts) in arb_case()) {
        let mut grid = grid;
        let mut field = GridFlowField::new(&grid, &goals, opts.clone()).unwrap();
        for e in std::iter::once(None).chain(edits.into_iter().map(Some)) {
            if let Some((x, y, a)) = e {
                grid.set_area(x, y, a).unwrap();
            }
            field.compute(&grid).unwrap();
            prop_assert_eq!(field.core().status(), FlowStatus::Complete);
            let want = reference(&grid, &opts, &goals);
            for cell in 0..grid.cell_count() as u32 {
                let (x, y) = grid.xy(cell);
                let got = field.cost(x, y);
                let w = want[cell as usize];
                prop_assert!(got == w || close(got, w), "cell {:?}: {} vs {}", (x, y), got, w);
                if w.is_finite() {
                    let p = field.path_from(x, y).unwrap();
                    let walked = common::path_cost(&grid, &opts, &p.nodes).map_err(TestCaseError::fail)?;
                    prop_assert!(close(walked, w), "walk from {:?}: {} vs {}", (x, y), walked, w);
                }
            }
        }
    }

    #[test]
    fn sliced_flow_field_equals_one_shot((grid, goals, edits, opts) in arb_case(), budget in 1u64..9) {
        let mut grid = grid;
        let mut one = GridFlowField::new(&grid, &goals, opts.clone()).unwrap();
        let mut sliced = GridFlowField::new(&grid, &goals, opts).unwrap();
        for e in std::iter::once(None).chain(edits.into_iter().map(Some)) {
            if let Some((x, y, a)) = e {
                grid.set_area(x, y, a).unwrap();
            }
            one.compute(&grid).unwrap();
            while sliced.step(&grid, budget).unwrap() != FlowStatus::Complete {}
            for cell in 0..grid.cell_count() as u32 {
                let (x, y) = grid.xy(cell);
                prop_assert_eq!(one.cost(x, y).to_bits(), sliced.cost(x, y).to_bits());
                prop_assert_eq!(one.next_step(x, y), sliced.next_step(x, y));
            }
        }
    }
}

#[test]
fn flow_field_with_two_goals_steps_toward_the_nearer() {
    let grid = Grid::new(9, 1).unwrap();
    let mut f = GridFlowField::new(&grid, &[(0, 0), (8, 0)], GridOptions::default()).unwrap();
    f.compute(&grid).unwrap();
    assert_eq!(f.next_step(2, 0), Some((1, 0)));
    assert_eq!(f.next_step(6, 0), Some((7, 0)));
    assert_eq!(f.cost(4, 0), 4.0);
    assert_eq!(f.next_step(0, 0), None);
}
