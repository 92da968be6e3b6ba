//! Theta*: never longer than the optimal 8-connected path (both orthogonal neighbours
//! free), never shorter than the straight line, every segment clear of walls (checked by
//! an independent exact segment/square test), sliced equals one-shot.

mod common;

use common::{cases, close, dijkstra, grid_moves, random_cell, random_grid, xorshift};
use onepath_gridstate::{
    line_of_sight, Grid, GridOptions, GridPathStatus, SearchStatus, SlicedSearch, ThetaStar, WALL,
};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Theta* written out plainly (every line of sight checked afresh, a lazy binary heap with
/// the engine's order: smaller `f`, then larger `g`, then lower cell): (found, cost, cells,
/// expanded).
fn reference_theta(grid: &Grid, s: (u32, u32), t: (u32, u32)) -> (bool, f64, Vec<u32>, u32) {
    let opts = GridOptions::default();
    let w = grid.width();
    let n = grid.cell_count();
    let (si, ti) = (grid.index(s.0, s.1).unwrap(), grid.index(t.0, t.1).unwrap());
    let walk = |x: i64, y: i64| grid.is_walkable(x, y);
    if !walk(i64::from(s.0), i64::from(s.1)) || !walk(i64::from(t.0), i64::from(t.1)) {
        return (false, 0.0, Vec::new(), 0);
    }
    let xy = |c: u32| (i64::from(c % w), i64::from(c / w));
    let dist = |a: u32, b: u32| {
        let ((ax, ay), (bx, by)) = (xy(a), xy(b));
        let (dx, dy) = ((ax - bx) as f64, (ay - by) as f64);
        (dx * dx + dy * dy).sqrt()
    };
    let mut g = vec![f64::INFINITY; n];
    let mut parent = vec![u32::MAX; n];
    let mut closed = vec![false; n];
    // Keys: (f bits, !g bits, cell); non-negative finite values order as their bits.
    let mut heap = BinaryHeap::new();
    g[si as usize] = 0.0;
    heap.push(Reverse((dist(si, ti).to_bits(), !0f64.to_bits(), si)));
    let mut expanded = 0;
    while let Some(Reverse((fb, gb, u))) = heap.pop() {
        let gu = f64::from_bits(!gb);
        if closed[u as usize] || gu != g[u as usize] || fb != (gu + dist(u, ti)).to_bits() {
            continue;
        }
        closed[u as usize] = true;
        if u == ti {
            let mut cells = vec![u];
            let mut c = u;
            while parent[c as usize] != u32::MAX {
                c = parent[c as usize];
                cells.push(c);
            }
            cells.reverse();
            return (true, gu, cells, expanded);
        }
        expanded += 1;
        let pu = parent[u as usize];
        for (v, _) in grid_moves(grid, &opts, u as usize) {
            let v = v as u32;
            if closed[v as usize] {
                continue;
            }
            let (via, gv) = if pu != u32::MAX && line_of_sight(xy(pu), xy(v), walk) {
                (pu, g[pu as usize] + dist(pu, v))
            } else {
                (u, gu + dist(u, v))
            };
            if gv < g[v as usize] {
                g[v as usize] = gv;
                parent[v as usize] = via;
                heap.push(Reverse(((gv + dist(v, ti)).to_bits(), !gv.to_bits(), v)));
            }
        }
    }
    (false, 0.0, Vec::new(), expanded)
}
use proptest::prelude::*;

/// Whether the closed segment between two cell centres meets the closed square of cell c
/// (doubled integer coordinates: centres are odd, square corners even).
fn touches(a: (i64, i64), b: (i64, i64), c: (i64, i64)) -> bool {
    let (px, py, qx, qy) = (2 * a.0 + 1, 2 * a.1 + 1, 2 * b.0 + 1, 2 * b.1 + 1);
    let (x0, y0, x1, y1) = (2 * c.0, 2 * c.1, 2 * c.0 + 2, 2 * c.1 + 2);
    if px.max(qx) < x0 || px.min(qx) > x1 || py.max(qy) < y0 || py.min(qy) > y1 {
        return false;
    }
    let side = |x: i64, y: i64| ((qx - px) * (y - py) - (qy - py) * (x - px)).signum();
    let s = [side(x0, y0), side(x1, y0), side(x0, y1), side(x1, y1)];
    !(s.iter().all(|&v| v > 0) || s.iter().all(|&v| v < 0))
}

fn arb_grid() -> impl Strategy<Value = (Grid, (u32, u32), (u32, u32))> {
    (1u32..24, 1u32..24, 0u32..40, any::<u64>()).prop_map(|(w, h, pct, seed)| {
        let mut next = xorshift(seed | 1);
        let g = random_grid(w, h, &mut next, |r| {
            if r % 100 < u64::from(pct) {
                WALL
            } else {
                0
            }
        });
        let s = random_cell(&mut next, w, h);
        let t = random_cell(&mut next, w, h);
        (g, s, t)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(200)))]

    #[test]
    fn theta_star_is_never_longer_than_the_grid_optimum((grid, s, t) in arb_grid()) {
        let opts = GridOptions::default();
        let si = grid.index(s.0, s.1).unwrap() as usize;
        let ti = grid.index(t.0, t.1).unwrap() as usize;
        let walkable = |p: (u32, u32)| grid.is_walkable(i64::from(p.0), i64::from(p.1));
        let want = if walkable(s) && walkable(t) {
            dijkstra(grid.cell_count(), si, |u| grid_moves(&grid, &opts, u))[ti]
        } else {
            f64::INFINITY
        };
        let r = ThetaStar::new(opts).unwrap().find_path(&grid, s, t).unwrap();
        if !want.is_finite() {
            prop_assert_eq!(r.status, GridPathStatus::NoPath);
            return Ok(());
        }
        let rows: Vec<String> = (0..grid.height())
            .map(|y| (0..grid.width()).map(|x| if grid.is_walkable(i64::from(x), i64::from(y)) { '.' } else { '#' }).collect())
            .collect();
        prop_assert_eq!(r.status, GridPathStatus::Found, "grid {:?} s {:?} t {:?}", rows, s, t);
        prop_assert!(r.cost <= want + 1e-9, "theta {} > grid optimum {}", r.cost, want);
        let (dx, dy) = (f64::from(s.0) - f64::from(t.0), f64::from(s.1) - f64::from(t.1));
        prop_assert!(r.cost >= (dx * dx + dy * dy).sqrt() - 1e-9);
        let mut sum = 0.0;
        for seg in r.nodes.windows(2) {
            let (a, b) = (grid.xy(seg[0]), grid.xy(seg[1]));
            let (a, b) = ((i64::from(a.0), i64::from(a.1)), (i64::from(b.0), i64::from(b.1)));
            for y in a.1.min(b.1)..=a.1.max(b.1) {
                for x in a.0.min(b.0)..=a.0.max(b.0) {
                    if !grid.is_walkable(x, y) {
                        prop_assert!(!touches(a, b, (x, y)), "segment {:?}-{:?} touches wall {:?}", a, b, (x, y));
                    }
                }
            }
            let (ex, ey) = ((a.0 - b.0) as f64, (a.1 - b.1) as f64);
            sum += (ex * ex + ey * ey).sqrt();
        }
        prop_assert!(close(sum, r.cost));
    }

    /// The engine (with its line-of-sight cache, reused across queries) answers exactly as
    /// the plain reference: status, cost bits, cells and expansions.
    #[test]
    fn theta_star_equals_a_plain_theta_star((grid, s, t) in arb_grid(), (s2, t2) in (any::<u64>(), any::<u64>())) {
        let mut th = ThetaStar::new(GridOptions::default()).unwrap();
        let mut next = xorshift(s2 | 1);
        let mut next2 = xorshift(t2 | 1);
        let more = [(s, t), (random_cell(&mut next, grid.width(), grid.height()), random_cell(&mut next2, grid.width(), grid.height()))];
        for (a, b) in more {
            let r = th.find_path(&grid, a, b).unwrap();
            let (found, cost, cells, expanded) = reference_theta(&grid, a, b);
            prop_assert_eq!(r.status == GridPathStatus::Found, found);
            if found {
                prop_assert_eq!(r.cost.to_bits(), cost.to_bits());
                prop_assert_eq!(&r.nodes, &cells);
                prop_assert_eq!(r.expanded, expanded);
            }
        }
    }

    #[test]
    fn theta_sliced_equals_one_shot((grid, s, t) in arb_grid(), budget in 1u64..5) {
        let opts = GridOptions { record_expansions: true, ..GridOptions::default() };
        let want = ThetaStar::new(opts.clone()).unwrap().find_path(&grid, s, t).unwrap();
        let mut th = ThetaStar::new(opts).unwrap();
        th.begin(&grid, s, t).unwrap();
        while th.step(&grid, budget).unwrap() == SearchStatus::InProgress {}
        prop_assert_eq!(th.result().unwrap(), want);
    }
}

#[test]
fn theta_star_takes_the_straight_line_in_the_open() {
    let grid = Grid::new(10, 10).unwrap();
    let r = ThetaStar::new(GridOptions::default())
        .unwrap()
        .find_path(&grid, (0, 0), (9, 4))
        .unwrap();
    assert_eq!(r.nodes, vec![0, 4 * 10 + 9]);
    assert_eq!(r.cost, (81.0f64 + 16.0).sqrt());
}
