//! Hex grids (both layouts): A* and the replanners equal a plain Dijkstra over the
//! documented six neighbours; the hex distance is exact on open grids.

mod common;

use common::{cases, close, dijkstra, xorshift};
use onepath_gridstate::{
    GridOptions, GridPathStatus, HexAStar, HexGrid, HexLayout, HexReplanner, ReplanAlgorithm,
    SearchStatus, SlicedSearch, WALL,
};
use proptest::prelude::*;

/// Reference neighbours written from the layout definition (cube coordinates).
fn cube(layout: HexLayout, x: i64, y: i64) -> (i64, i64) {
    let q = match layout {
        HexLayout::OddRowsRight => x - (y - (y & 1)) / 2,
        HexLayout::EvenRowsRight => x - (y + (y & 1)) / 2,
    };
    (q, y)
}

fn ref_moves(hex: &HexGrid, u: usize) -> Vec<(usize, f64)> {
    let g = hex.grid();
    let (w, h) = (i64::from(g.width()), i64::from(g.height()));
    let (x, y) = (u as i64 % w, u as i64 / w);
    if !g.is_walkable(x, y) {
        return Vec::new();
    }
    let (q, r) = cube(hex.layout(), x, y);
    let mut out = Vec::new();
    for ny in (y - 1).max(0)..=(y + 1).min(h - 1) {
        for nx in (x - 1).max(0)..=(x + 1).min(w - 1) {
            let (nq, nr) = cube(hex.layout(), nx, ny);
            let (dq, dr) = (nq - q, nr - r);
            let d = dq.abs().max(dr.abs()).max((dq + dr).abs());
            if d == 1 && g.is_walkable(nx, ny) {
                let area = g.area(nx as u32, ny as u32).unwrap();
                out.push(((ny * w + nx) as usize, g.areas().get(area)));
            }
        }
    }
    out
}

#[allow(clippy::type_complexity)]
fn arb_hex() -> impl Strategy<Value = (HexGrid, (u32, u32), (u32, u32), Vec<(u32, u32, u8)>)> {
    (1u32..16, 1u32..16, any::<bool>(), any::<u64>()).prop_map(|(w, h, odd, seed)| {
        let mut next = xorshift(seed | 1);
        let layout = if odd {
            HexLayout::OddRowsRight
        } else {
            HexLayout::EvenRowsRight
        };
        let mut hex = HexGrid::new(w, h, layout).unwrap();
        for y in 0..h {
            for x in 0..w {
                let v = next() % 10;
                hex.grid_mut()
                    .set_area(x, y, if v < 3 { WALL } else { (v % 2) as u8 })
                    .unwrap();
            }
        }
        hex.grid_mut().set_area_cost(1, 2.5).unwrap();
        let mut pt = || {
            (
                (next() % u64::from(w)) as u32,
                (next() % u64::from(h)) as u32,
            )
        };
        let (s, t) = (pt(), pt());
        let edits = (0..6)
            .map(|_| {
                let (x, y) = pt();
                (x, y, [WALL, 0, 1][(x + y) as usize % 3])
            })
            .collect();
        (hex, s, t, edits)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(200)))]

    #[test]
    fn hex_engines_equal_dijkstra((hex, s, t, edits) in arb_hex(), lpa in any::<bool>()) {
        let mut hex = hex;
        let alg = if lpa { ReplanAlgorithm::LpaStar } else { ReplanAlgorithm::DStarLite };
        let mut rp = HexReplanner::new(&hex, alg, GridOptions::default(), s, t).unwrap();
        for e in std::iter::once(None).chain(edits.into_iter().map(Some)) {
            if let Some((x, y, a)) = e {
                hex.grid_mut().set_area(x, y, a).unwrap();
            }
            let g = hex.grid();
            let si = g.index(s.0, s.1).unwrap() as usize;
            let ti = g.index(t.0, t.1).unwrap() as usize;
            let want = if g.is_walkable(i64::from(t.0), i64::from(t.1)) {
                dijkstra(g.cell_count(), si, |u| ref_moves(&hex, u))[ti]
            } else {
                f64::INFINITY
            };
            let a = HexAStar::new(GridOptions::default()).unwrap().find_path(&hex, s, t).unwrap();
            let r = rp.replan(&hex).unwrap();
            for (what, res) in [("A*", &a), ("replanner", &r)] {
                if want.is_finite() {
                    prop_assert_eq!(res.status, GridPathStatus::Found, "{}", what);
                    prop_assert!(close(res.cost, want), "{}: {} vs {}", what, res.cost, want);
                } else {
                    prop_assert_eq!(res.status, GridPathStatus::NoPath, "{}", what);
                }
            }
        }
    }

    #[test]
    fn hex_distance_is_the_open_grid_move_count(w in 1u32..12, h in 1u32..12, odd in any::<bool>(),
                                                 a in (0u32..12, 0u32..12), b in (0u32..12, 0u32..12)) {
        let layout = if odd { HexLayout::OddRowsRight } else { HexLayout::EvenRowsRight };
        let hex = HexGrid::new(12, 12, layout).unwrap();
        let _ = (w, h);
        let g = hex.grid();
        let d = dijkstra(g.cell_count(), g.index(a.0, a.1).unwrap() as usize, |u| ref_moves(&hex, u));
        // On an open 12 × 12 grid the distance is at least the hex distance (equal
        // whenever the straight hex line stays inside, always for the centre cells).
        let want = d[g.index(b.0, b.1).unwrap() as usize];
        prop_assert!(f64::from(hex.distance(a, b)) <= want);
    }

    #[test]
    fn hex_sliced_equals_one_shot((hex, s, t, _e) in arb_hex(), budget in 1u64..4) {
        let opts = GridOptions { record_expansions: true, ..GridOptions::default() };
        let want = HexAStar::new(opts.clone()).unwrap().find_path(&hex, s, t).unwrap();
        let mut a = HexAStar::new(opts).unwrap();
        a.begin(&hex, s, t).unwrap();
        while a.step(&hex, budget).unwrap() == SearchStatus::InProgress {}
        prop_assert_eq!(a.result().unwrap(), want);
    }
}

#[test]
fn neighbours_follow_the_documented_layouts() {
    let odd = HexGrid::new(5, 5, HexLayout::OddRowsRight).unwrap();
    assert_eq!(
        odd.neighbours(2, 1),
        vec![(3, 1), (1, 1), (2, 0), (3, 0), (2, 2), (3, 2)]
    );
    assert_eq!(
        odd.neighbours(2, 2),
        vec![(3, 2), (1, 2), (1, 1), (2, 1), (1, 3), (2, 3)]
    );
    let even = HexGrid::new(5, 5, HexLayout::EvenRowsRight).unwrap();
    assert_eq!(
        even.neighbours(2, 2),
        vec![(3, 2), (1, 2), (2, 1), (3, 1), (2, 3), (3, 3)]
    );
    assert_eq!(odd.distance((0, 0), (4, 4)), 6);
}
