//! Voxel A* (6, 18, 26 neighbours, every multi-axis rule, random area multipliers, one
//! multiplier for every area (exact keys) or several (f64 keys)) equals a plain Dijkstra;
//! on plateaus of equally good paths its expansions stay close to those of
//! `pathfinding::astar` with exact integer costs (issue 22 item 5); chunks are allocated
//! on first changing write; sliced equals one-shot.

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
        0usize..3,
    )
        .prop_map(|(a, b, c, seed, k, r, costs)| {
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
            match costs {
                // Two multipliers: f64 keys.
                0 => g.set_area_cost(1, 1.75).unwrap(),
                // Every multiplier 1: exact keys.
                1 => {}
                // Every multiplier 1.3: exact keys scaled.
                _ => {
                    for area in 0..WALL {
                        g.set_area_cost(area, 1.3).unwrap();
                    }
                }
            }
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
        let mut a = VoxelAStar::new(o).unwrap();
        let r = a.find_path(&g, s, t).unwrap();
        let uniform = g.areas().multipliers().iter().all(|&m| m == g.areas().multipliers()[0]);
        prop_assert_eq!(a.exact_keys(), uniform);
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

/// Larger grids under the default options (26 neighbours, the bounding-box rule, one
/// multiplier): the canonically pruned search keeps Dijkstra's cost, on every pair of a
/// grid, and its path is a chain of allowed moves of that cost.
fn pruned_case(size: [u32; 3], seed: u64, walls: u64, cubes: bool) {
    let mut g = VoxelGrid::new(size[0], size[1], size[2], 0).unwrap();
    let mut next = xorshift(seed | 1);
    let n = g.node_count() as u64;
    let mut placed = 0;
    while placed * 100 < n * walls {
        let side = if cubes { 1 + (next() % 3) as u32 } else { 1 };
        let o = [0, 1, 2].map(|k| (next() % u64::from(size[k])) as u32);
        for z in o[2]..(o[2] + side).min(size[2]) {
            for y in o[1]..(o[1] + side).min(size[1]) {
                for x in o[0]..(o[0] + side).min(size[0]) {
                    g.set_area(x, y, z, WALL).unwrap();
                }
            }
        }
        placed += u64::from(side * side * side);
    }
    let o = VoxelOptions::default();
    let mut a = VoxelAStar::new(o).unwrap();
    let mut pt = || {
        let v = next() % n;
        g.xyz(v as u32)
    };
    for _ in 0..6 {
        let s = pt();
        let si = g.index(s.0, s.1, s.2).unwrap() as usize;
        let dist = dijkstra(g.node_count(), si, |u| ref_moves(&g, &o, u));
        for _ in 0..6 {
            let t = pt();
            let ti = g.index(t.0, t.1, t.2).unwrap() as usize;
            let walk =
                |p: (u32, u32, u32)| g.is_walkable(i64::from(p.0), i64::from(p.1), i64::from(p.2));
            let r = a.find_path(&g, s, t).unwrap();
            let want = if walk(s) && walk(t) {
                dist[ti]
            } else {
                f64::INFINITY
            };
            if !want.is_finite() {
                assert_eq!(r.status, GridPathStatus::NoPath, "{s:?} -> {t:?}");
                continue;
            }
            assert_eq!(r.status, GridPathStatus::Found, "{s:?} -> {t:?}");
            assert!(close(r.cost, want), "{s:?} -> {t:?}: {} vs {want}", r.cost);
            let mut sum = 0.0;
            for w in r.nodes.windows(2) {
                let m = ref_moves(&g, &o, w[0] as usize);
                let step = m.iter().find(|m| m.0 == w[1] as usize);
                assert!(step.is_some(), "{s:?} -> {t:?}: not a move");
                sum += step.map_or(0.0, |m| m.1);
            }
            assert!(close(sum, want), "{s:?} -> {t:?}: path of {sum} vs {want}");
        }
    }
}

/// Run with an explicit `TestRunner` rather than `proptest!`: the macro lets the CI's
/// global `PROPTEST_CASES` (10 000) override the count, and each case here runs six
/// Dijkstras over up to 17³ voxels. Cases: `ONEPATH_VOXEL_CASES` when set, else 24; failures
/// persist to `voxel_dijkstra.proptest-regressions` as with the macro.
#[test]
fn the_pruned_search_keeps_dijkstras_cost() {
    let cases = std::env::var("ONEPATH_VOXEL_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    let config = ProptestConfig {
        cases,
        source_file: Some(file!()),
        test_name: Some("the_pruned_search_keeps_dijkstras_cost"),
        ..ProptestConfig::default()
    };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let strategy = (
        6u32..18,
        6u32..18,
        6u32..18,
        any::<u64>(),
        0u64..40,
        any::<bool>(),
    );
    let result = runner.run(&strategy, |(sx, sy, sz, seed, walls, cubes)| {
        pruned_case([sx, sy, sz], seed, walls, cubes);
        Ok(())
    });
    if let Err(e) = result {
        panic!("the_pruned_search_keeps_dijkstras_cost: {e}\n{runner}");
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

/// Expansions of `pathfinding::astar` under the same rule with exact fixed-point costs
/// (round(√k · 2^40) for a k-axis move), counted as calls of its successor function.
fn pathfinding_expansions(g: &VoxelGrid, o: &VoxelOptions, s: usize, t: usize) -> (u64, f64) {
    let scale = (1u64 << 40) as f64;
    let calls = std::cell::Cell::new(0u64);
    let [sx, sy, _] = g.size();
    let xyz = |c: usize| {
        let c = c as u32;
        (c % sx, (c / sx) % sy, c / (sx * sy))
    };
    let goal = xyz(t);
    let steps = [1.0f64, 2f64.sqrt(), 3f64.sqrt()].map(|v| (v * scale).round() as u64);
    let found = pathfinding::prelude::astar(
        &s,
        |&u| {
            calls.set(calls.get() + 1);
            ref_moves(g, o, u)
                .into_iter()
                .map(|(v, c)| (v, steps[((c * c).round() as usize).clamp(1, 3) - 1]))
                .collect::<Vec<_>>()
        },
        |&u| {
            let p = xyz(u);
            let mut d = [
                p.0.abs_diff(goal.0),
                p.1.abs_diff(goal.1),
                p.2.abs_diff(goal.2),
            ]
            .map(u64::from);
            d.sort_unstable();
            d[0] * steps[2] + (d[1] - d[0]) * steps[1] + (d[2] - d[1]) * steps[0]
        },
        |&u| u == t,
    )
    .expect("a path");
    (calls.get(), found.1 as f64 / scale)
}

/// A plateau case: the expansions are bounded by pathfinding's (counts, not time), the
/// cost equals a plain Dijkstra's.
fn plateau_case(g: &VoxelGrid, s: (u32, u32, u32), t: (u32, u32, u32)) {
    let o = VoxelOptions {
        record_expansions: true,
        ..VoxelOptions::default()
    };
    let mut a = VoxelAStar::new(o).unwrap();
    let r = a.find_path(g, s, t).unwrap();
    assert!(a.exact_keys());
    assert_eq!(r.status, GridPathStatus::Found);
    let si = g.index(s.0, s.1, s.2).unwrap() as usize;
    let ti = g.index(t.0, t.1, t.2).unwrap() as usize;
    let want = dijkstra(g.node_count(), si, |u| ref_moves(g, &o, u))[ti];
    assert!(close(r.cost, want), "{} against Dijkstra's {want}", r.cost);
    let (theirs, their_cost) = pathfinding_expansions(g, &o, si, ti);
    assert!(close(their_cost, want), "{their_cost} against {want}");
    // The path is a valid chain of moves from s to t.
    assert_eq!(r.nodes.first(), Some(&(si as u32)));
    assert_eq!(r.nodes.last(), Some(&(ti as u32)));
    for w in r.nodes.windows(2) {
        assert!(ref_moves(g, &o, w[0] as usize)
            .iter()
            .any(|m| m.0 == w[1] as usize));
    }
    let bound = theirs + theirs / 2 + 8;
    println!(
        "{s:?} -> {t:?}: {} expansions, pathfinding {theirs}",
        r.expanded
    );
    assert!(
        u64::from(r.expanded) <= bound,
        "{} expansions against pathfinding's {theirs} (bound {bound})",
        r.expanded
    );
    assert_eq!(r.expansions.map(|e| e.len()), Some(r.expanded as usize));
}

#[test]
fn an_empty_box_is_crossed_without_fanning_out() {
    // Every path of the optimal step counts ties: with f64 sums the search used to
    // expand most of the box (tens of thousands of voxels here).
    let g = VoxelGrid::new(40, 40, 40, 0).unwrap();
    plateau_case(&g, (0, 0, 0), (39, 25, 11));
    plateau_case(&g, (3, 38, 20), (36, 1, 21));
    plateau_case(&g, (20, 20, 0), (20, 20, 39));
}

#[test]
fn a_box_with_pillars_and_a_wall_is_crossed_without_fanning_out() {
    let mut g = VoxelGrid::new(40, 24, 40, 0).unwrap();
    let mut next = xorshift(99);
    for _ in 0..60 {
        let (x, z) = ((next() % 38) as u32, (next() % 38) as u32);
        for y in 0..24 {
            g.set_area(x, y, z, WALL).unwrap();
            g.set_area(x + 1, y, z, WALL).unwrap();
        }
    }
    // A wall across the box with a hole high up.
    for y in 0..24 {
        for x in 0..40 {
            if !(y >= 18 && (16..20).contains(&x)) {
                g.set_area(x, y, 20, WALL).unwrap();
            }
        }
    }
    let pairs = [((1, 1, 1), (38, 2, 38)), ((30, 5, 2), (2, 20, 37))];
    for (s, t) in pairs {
        g.set_area(s.0, s.1, s.2, 0).unwrap();
        g.set_area(t.0, t.1, t.2, 0).unwrap();
    }
    for (s, t) in pairs {
        plateau_case(&g, s, t);
    }
}

#[test]
fn a_short_query_on_a_huge_grid_holds_memory_for_what_it_touches() {
    // 2^29 voxels: whole-grid buffers of 21 bytes a voxel would take 11 GB. (N ≥ 2^28, so
    // the exact keys are compared by the exact comparison, not fixed-point.)
    let g = VoxelGrid::new(1024, 512, 1024, 0).unwrap();
    let mut a = VoxelAStar::new(VoxelOptions::default()).unwrap();
    let r = a.find_path(&g, (500, 200, 500), (520, 210, 490)).unwrap();
    assert_eq!(r.status, GridPathStatus::Found);
    assert!(a.exact_keys());
    assert!(close(r.cost, 10.0 * 3f64.sqrt() + 10.0), "{}", r.cost);
    assert!(r.expanded <= 30, "{} expansions", r.expanded);
    let held = a.bytes_held();
    assert!(held < 1 << 20, "{held} bytes held");
    // A second search reuses what the first took.
    let r2 = a.find_path(&g, (100, 100, 100), (110, 105, 95)).unwrap();
    assert_eq!(r2.status, GridPathStatus::Found);
    assert_eq!(a.bytes_held(), held);
}
