//! Moving AI benchmark scenarios (arena, maze512-32-9): every scenario's listed optimal
//! length is reproduced by every optimal grid engine under the octile rule the benchmark
//! uses, which is `DiagonalRule::BothOrthogonalFree` (a diagonal move only when both
//! orthogonal neighbours are free). Data: `$ONEPATH_DATA/movingai`; skipped when absent.
//!
//! The jump point engines run every scenario. The engines that expand cell by cell
//! (GridSearch A*, generic A*, bidirectional A*) and the generic jump point search
//! (`JumpSearch`, also through GridSearch) run every scenario of arena and every
//! k-th scenario of maze512, k = `ONEPATH_MOVINGAI_STRIDE` (default 16, because the test
//! profile is barely optimised; `ONEPATH_MOVINGAI_STRIDE=1 cargo test --release` runs them
//! all, as recorded in docs/grid-search.md).
//!
//! HPA* (clusters of 16) runs every scenario of both maps in every build, the debug test
//! run of CI included (the grid crate is built with optimisations in the test profile;
//! the 8010 maze512 queries take 15 to 30 s on the shared 2-core machine): its bound is
//! asserted on the whole set, not on a sample, because a sample missed the worst cases
//! (every 16th maze512 scenario stayed within 1.2 while the full set reached 1.246 before
//! the refinement was smoothed).

use std::path::Path;

use onepath_gridstate::{
    DiagonalRule, Grid, GridAStar, GridAlgorithm, GridBidirectional, GridEngine, GridOptions,
    GridPath, GridPathStatus, GridSearch, HpaStar, JumpSearch, SlicedSearch, ThetaStar,
};
use tests_conformance::data_dir;

struct Scenario {
    start: (u32, u32),
    goal: (u32, u32),
    optimal: f64,
}

fn load(dir: &Path, map: &str) -> (Grid, Vec<Scenario>) {
    let grid = Grid::from_movingai_path(dir.join(map)).expect("map readable and parses");
    let scen = std::fs::read_to_string(dir.join(format!("{map}.scen"))).expect("scen readable");
    let mut out = Vec::new();
    for line in scen.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 9 {
            continue;
        }
        let n = |i: usize| f[i].trim().parse::<u32>().expect("coordinate");
        out.push(Scenario {
            start: (n(4), n(5)),
            goal: (n(6), n(7)),
            optimal: f[8].trim().parse().expect("length"),
        });
    }
    assert!(!out.is_empty(), "{map}: no scenarios");
    (grid, out)
}

/// The bound docs/grid-search.md states for HPA* with clusters of 16 on these maps: at
/// most this factor times the listed optimum, on every scenario.
const HPA_BOUND: f64 = 1.2;

fn stride(default: usize) -> usize {
    std::env::var("ONEPATH_MOVINGAI_STRIDE")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&k| k > 0)
        .unwrap_or(default)
}

fn check_found(grid: &Grid, r: &GridPath, s: &Scenario, what: &str, i: usize) {
    assert_eq!(
        r.status,
        GridPathStatus::Found,
        "{what}: scenario {i} not found"
    );
    let cells = grid.path_xy(r);
    assert_eq!(
        (cells.first(), cells.last()),
        (Some(&s.start), Some(&s.goal)),
        "{what}: scenario {i} path ends"
    );
    assert!(
        (r.cost - s.optimal).abs() <= 1e-4,
        "{what}: scenario {i} {:?}->{:?}: cost {} listed {}",
        s.start,
        s.goal,
        r.cost,
        s.optimal
    );
}

fn run_map(map: &str, test: &str, default_stride: usize) {
    let Some(dir) = data_dir("movingai", test) else {
        return;
    };
    let (grid, scens) = load(&dir, map);
    let opts = GridOptions {
        diagonal_rule: DiagonalRule::BothOrthogonalFree,
        ..GridOptions::default()
    };
    let mut jump: Vec<(&str, GridSearch)> = vec![
        (
            "jump point search",
            GridSearch::new(GridAlgorithm::JumpPoint, opts.clone()).unwrap(),
        ),
        (
            "JPS+",
            GridSearch::new(GridAlgorithm::JumpPointPlus, opts.clone()).unwrap(),
        ),
    ];
    let mut astar = GridSearch::new(GridAlgorithm::AStar, opts.clone()).unwrap();
    assert_eq!(astar.engine_for(&grid), GridEngine::SpecialisedAStar);
    assert!(matches!(
        jump[0].1.engine_for(&grid),
        GridEngine::SpecialisedJump(_)
    ));
    let mut generic = GridAStar::new(opts.clone()).unwrap();
    // The generic jump point search (kind 9), standalone and as GridSearch picks it when a
    // passability hook keeps the specialised engine out.
    let mut generic_jump = JumpSearch::new(opts.clone()).unwrap();
    let hooked = GridOptions {
        passable_hook: Some(std::sync::Arc::new(|_| true)),
        ..opts.clone()
    };
    let mut hooked_jump = GridSearch::new(GridAlgorithm::JumpPoint, hooked).unwrap();
    assert_eq!(hooked_jump.engine_for(&grid), GridEngine::GenericJump);
    let mut bidirectional = GridBidirectional::new(opts.clone()).unwrap();
    let mut theta = ThetaStar::new(opts.clone()).unwrap();
    let mut theta_gain: f64 = 0.0;
    let mut hpa = HpaStar::new(&grid, 16, opts.clone()).unwrap();
    // The largest HPA* cost / listed optimum and its scenario.
    let mut hpa_worst: (f64, usize) = (1.0, 0);
    let k = stride(default_stride);
    let mut slow = 0;
    for (i, s) in scens.iter().enumerate() {
        for (name, e) in jump.iter_mut() {
            let r = e.find_path(&grid, s.start, s.goal).unwrap();
            check_found(&grid, &r, s, name, i);
        }
        // HPA* (clusters of 16) on every scenario (the crate is optimised in the test
        // profile): found, never shorter, within the bound docs/grid-search.md states.
        let r = hpa.find_path(&grid, s.start, s.goal).unwrap();
        assert_eq!(r.status, GridPathStatus::Found, "HPA*: scenario {i}");
        assert!(
            r.cost >= s.optimal - 1e-4,
            "HPA*: scenario {i}: {} < listed {}",
            r.cost,
            s.optimal
        );
        if s.optimal > 0.0 && r.cost / s.optimal > hpa_worst.0 {
            hpa_worst = (r.cost / s.optimal, i);
        }
        if i % k == 0 {
            slow += 1;
            check_found(
                &grid,
                &astar.find_path(&grid, s.start, s.goal).unwrap(),
                s,
                "GridSearch A*",
                i,
            );
            check_found(
                &grid,
                &generic.find_path(&grid, s.start, s.goal).unwrap(),
                s,
                "generic A*",
                i,
            );
            let r = generic_jump.find_path(&grid, s.start, s.goal).unwrap();
            check_found(&grid, &r, s, "generic jump point search", i);
            let h = hooked_jump.find_path(&grid, s.start, s.goal).unwrap();
            assert_eq!(h, r, "GridSearch generic jump: scenario {i}");
            let r = bidirectional.find_path(&grid, s.start, s.goal).unwrap();
            check_found(&grid, &r, s, "bidirectional A*", i);
            // Theta* (any-angle) is never longer than the listed 8-connected optimum.
            let r = theta.find_path(&grid, s.start, s.goal).unwrap();
            assert_eq!(r.status, GridPathStatus::Found, "Theta*: scenario {i}");
            assert!(
                r.cost <= s.optimal + 1e-4,
                "Theta*: scenario {i}: {} > listed {}",
                r.cost,
                s.optimal
            );
            if s.optimal > 0.0 {
                theta_gain = theta_gain.max(1.0 - r.cost / s.optimal);
            }
        }
    }
    println!(
        "{test}: {} scenarios reproduced by the jump point engines, {slow} by the A* engines; \
         Theta* at most {:.2}% shorter than listed; HPA* (clusters of 16, every scenario) at most \
         {:.4} x listed (scenario {})",
        scens.len(),
        theta_gain * 100.0,
        hpa_worst.0,
        hpa_worst.1
    );
    // The bound this run establishes (docs/grid-search.md records the measured factors).
    assert!(
        hpa_worst.0 <= HPA_BOUND,
        "HPA* factor {} on scenario {} above {HPA_BOUND}",
        hpa_worst.0,
        hpa_worst.1
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn arena_scenarios_are_reproduced_by_every_optimal_engine() {
    run_map(
        "arena.map",
        "arena_scenarios_are_reproduced_by_every_optimal_engine",
        1,
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn maze512_scenarios_are_reproduced_by_every_optimal_engine() {
    run_map(
        "maze512-32-9.map",
        "maze512_scenarios_are_reproduced_by_every_optimal_engine",
        16,
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn only_the_both_orthogonal_free_rule_reproduces_arena() {
    let test = "only_the_both_orthogonal_free_rule_reproduces_arena";
    let Some(dir) = data_dir("movingai", test) else {
        return;
    };
    let (grid, scens) = load(&dir, "arena.map");
    for rule in [DiagonalRule::Always, DiagonalRule::NoCornerCutting] {
        let mut e = GridSearch::new(
            GridAlgorithm::AStar,
            GridOptions {
                diagonal_rule: rule,
                ..GridOptions::default()
            },
        )
        .unwrap();
        let shorter = scens
            .iter()
            .filter(|s| e.find_path(&grid, s.start, s.goal).unwrap().cost < s.optimal - 1e-4)
            .count();
        println!(
            "{test}: {rule:?} is shorter than listed on {shorter} of {} scenarios",
            scens.len()
        );
        assert!(shorter > 0, "{rule:?} reproduces arena too");
    }
}
