//! Voxel A* (6, 18, 26 neighbours, every multi-axis rule, random area multipliers) equals
//! a plain Dijkstra; chunks are allocated on first changing write; sliced equals one-shot.

mod common;

use common::{cases, close, dijkstra, xorshift};
use onepath_gridstate::{
    DiagonalRule, GridPathStatus, SearchStatus, SlicedSearch, VoxelAStar, VoxelConnectivity,
    VoxelGrid, VoxelOptions, WALL,
};
use proptest::prelude::*;

fn ref_moves(g: &VoxelGrid, o: &VoxelOptions, u: usize) -> Vec<(usize, f64)> {
    let [sx, sy, _] = g.size();
    let (x, y, z) = g.xyz(u as u32);
    let (x, y, z) = (i64::from(x), i64::from(y), i64::from(z));
    let mut out = Vec::new();
    if !g.is_walkable(x, y, z) {
        return out;
    }
    let max = match o.connectivity {
        VoxelConnectivity::Six => 1,
        VoxelConnectivity::Eighteen => 2,
        VoxelConnectivity::TwentySix => 3,
    };
    for dz in -1i64..=1 {
        for dy in -1i64..=1 {
            for dx in -1i64..=1 {
                let d = [dx, dy, dz];
                let axes = d.iter().filter(|&&v| v != 0).count();
                if axes == 0 || axes > max || !g.is_walkable(x + dx, y + dy, z + dz) {
                    continue;
                }
                // Every cell reached by a strict non-empty subset of the axis steps.
                let mut subs = Vec::new();
                for m in 1..7usize {
                    let s: Vec<i64> = (0..3)
                        .map(|k| if m >> k & 1 == 1 { d[k] } else { 0 })
                        .collect();
                    let used = (0..3).filter(|&k| m >> k & 1 == 1).all(|k| d[k] != 0);
                    if used && s != d.to_vec() {
                        subs.push(g.is_walkable(x + s[0], y + s[1], z + s[2]));
                    }
                }
                let ok = match o.diagonal_rule {
                    DiagonalRule::Always => true,
                    DiagonalRule::NoCornerCutting => axes == 1 || subs.iter().any(|&b| b),
                    DiagonalRule::BothOrthogonalFree => subs.iter().all(|&b| b),
                };
                if !ok {
                    continue;
                }
                let len = (axes as f64).sqrt();
                let (nx, ny, nz) = ((x + dx) as u32, (y + dy) as u32, (z + dz) as u32);
                let m = g.areas().get(g.area(nx, ny, nz).unwrap());
                out.push(((nx + sx * (ny + sy * nz)) as usize, len * m));
            }
        }
    }
    out
}

#[allow(clippy::type_complexity)]
fn arb_case() -> impl Strategy<Value = (VoxelGrid, (u32, u32, u32), (u32, u32, u32), VoxelOptions)>
{
    (
        1u32..7,
        1u32..7,
        1u32..7,
        any::<u64>(),
        0usize..3,
        0usize..3,
    )
        .prop_map(|(a, b, c, seed, k, r)| {
            let mut next = xorshift(seed | 1);
            let mut g = VoxelGrid::new(a, b, c, 0).unwrap();
            for z in 0..c {
                for y in 0..b {
                    for x in 0..a {
                        let v = next() % 10;
                        g.set_area(x, y, z, if v < 3 { WALL } else { (v % 2) as u8 })
                            .unwrap();
                    }
                }
            }
            g.set_area_cost(1, 1.75).unwrap();
            let mut pt = || {
                (
                    (next() % u64::from(a)) as u32,
                    (next() % u64::from(b)) as u32,
                    (next() % u64::from(c)) as u32,
                )
            };
            let (s, t) = (pt(), pt());
            let o = VoxelOptions {
                connectivity: [
                    VoxelConnectivity::Six,
                    VoxelConnectivity::Eighteen,
                    VoxelConnectivity::TwentySix,
                ][k],
                diagonal_rule: [
                    DiagonalRule::Always,
                    DiagonalRule::NoCornerCutting,
                    DiagonalRule::BothOrthogonalFree,
                ][r],
                ..VoxelOptions::default()
            };
            (g, s, t, o)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(200)))]

    #[test]
    fn voxel_astar_equals_dijkstra((g, s, t, o) in arb_case()) {
        let si = g.index(s.0, s.1, s.2).unwrap() as usize;
        let ti = g.index(t.0, t.1, t.2).unwrap() as usize;
        let walk = |p: (u32, u32, u32)| g.is_walkable(i64::from(p.0), i64::from(p.1), i64::from(p.2));
        let want = if walk(s) && walk(t) { dijkstra(g.node_count(), si, |u| ref_moves(&g, &o, u))[ti] } else { f64::INFINITY };
        let r = VoxelAStar::new(o).unwrap().find_path(&g, s, t).unwrap();
        if want.is_finite() {
            prop_assert_eq!(r.status, GridPathStatus::Found);
            prop_assert!(close(r.cost, want), "{} vs {}", r.cost, want);
        } else {
            prop_assert_eq!(r.status, GridPathStatus::NoPath);
        }
    }

    #[test]
    fn voxel_sliced_equals_one_shot((g, s, t, o) in arb_case(), budget in 1u64..5) {
        let o = VoxelOptions { record_expansions: true, ..o };
        let want = VoxelAStar::new(o).unwrap().find_path(&g, s, t).unwrap();
        let mut a = VoxelAStar::new(o).unwrap();
        a.begin(&g, s, t).unwrap();
        while a.step(&g, budget).unwrap() == SearchStatus::InProgress {}
        prop_assert_eq!(a.result().unwrap(), want);
    }
}

#[test]
fn chunks_are_allocated_on_the_first_changing_write() {
    let mut g = VoxelGrid::new(40, 20, 17, 3).unwrap();
    assert_eq!(g.allocated_chunks(), 0);
    assert_eq!(g.area(39, 19, 16).unwrap(), 3);
    g.set_area(1, 1, 1, 3).unwrap(); // same as default: not an edit
    assert_eq!((g.allocated_chunks(), g.version()), (0, 0));
    g.set_area(33, 19, 16, WALL).unwrap();
    assert_eq!((g.allocated_chunks(), g.version()), (1, 1));
    assert_eq!(g.area(33, 19, 16).unwrap(), WALL);
    assert_eq!(g.area(32, 19, 16).unwrap(), 3);
    assert!(g.set_area(40, 0, 0, 1).is_err());
}
