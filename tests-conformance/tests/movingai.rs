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
//!
//! Each engine group is its own test (per map: the jump point engines, HPA*, and each
//! cell-by-cell engine), so the test harness runs them side by side: maze512's run is the
//! longest of the workspace's tests.

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

/// Which engines a run covers. The three parts of a map run as separate tests, so the test
/// harness runs them side by side (maze512's set is the longest test of the workspace).
#[derive(Clone, Copy, PartialEq)]
enum Part {
    /// The specialised jump point engines (jump point search, JPS+), every scenario.
    Jump,
    /// HPA* (clusters of 16), every scenario, its bound asserted on the whole set.
    Hpa,
    /// One of the engines that expand cell by cell, or the generic jump point search, every
    /// k-th scenario.
    CellByCell(CellEngine, Half),
}

/// Which of the every-k-th scenarios a cell-by-cell test checks.
#[derive(Clone, Copy, PartialEq)]
enum Half {
    /// All of them.
    All,
    /// The 1st, 3rd, 5th, ... of them.
    Even,
    /// The 2nd, 4th, 6th, ... of them.
    Odd,
}

/// The engines of [`Part::CellByCell`], one test each.
#[derive(Clone, Copy, PartialEq)]
enum CellEngine {
    /// GridSearch's specialised A*.
    AStar,
    /// The generic A* (`GridAStar`).
    GenericAStar,
    /// The generic jump point search, standalone and through GridSearch with a hook.
    GenericJump,
    /// Bidirectional A*.
    Bidirectional,
    /// Theta* (any-angle; never longer than the listed optimum).
    Theta,
}

fn run_map(map: &str, test: &str, default_stride: usize, part: Part) {
    let Some(dir) = data_dir("movingai", test) else {
        return;
    };
    let (grid, scens) = load(&dir, map);
    let opts = GridOptions {
        diagonal_rule: DiagonalRule::BothOrthogonalFree,
        ..GridOptions::default()
    };
    match part {
        Part::Jump => run_jump(&grid, &scens, &opts, test),
        Part::Hpa => run_hpa(&grid, &scens, &opts, test),
        Part::CellByCell(engine, half) => run_cell_by_cell(
            &grid,
            &scens,
            &opts,
            test,
            stride(default_stride),
            engine,
            half,
        ),
    }
}

fn run_jump(grid: &Grid, scens: &[Scenario], opts: &GridOptions, test: &str) {
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
    assert!(matches!(
        jump[0].1.engine_for(grid),
        GridEngine::SpecialisedJump(_)
    ));
    for (i, s) in scens.iter().enumerate() {
        for (name, e) in jump.iter_mut() {
            let r = e.find_path(grid, s.start, s.goal).unwrap();
            check_found(grid, &r, s, name, i);
        }
    }
    println!(
        "{test}: {} scenarios reproduced by the jump point engines",
        scens.len()
    );
}

fn run_hpa(grid: &Grid, scens: &[Scenario], opts: &GridOptions, test: &str) {
    let mut hpa = HpaStar::new(grid, 16, opts.clone()).unwrap();
    // The largest HPA* cost / listed optimum and its scenario.
    let mut hpa_worst: (f64, usize) = (1.0, 0);
    for (i, s) in scens.iter().enumerate() {
        // Found, never shorter, within the bound docs/grid-search.md states.
        let r = hpa.find_path(grid, s.start, s.goal).unwrap();
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
    }
    println!(
        "{test}: HPA* (clusters of 16, all {} scenarios) at most {:.4} x listed (scenario {})",
        scens.len(),
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

fn run_cell_by_cell(
    grid: &Grid,
    scens: &[Scenario],
    opts: &GridOptions,
    test: &str,
    k: usize,
    engine: CellEngine,
    half: Half,
) {
    let mut astar = GridSearch::new(GridAlgorithm::AStar, opts.clone()).unwrap();
    assert_eq!(astar.engine_for(grid), GridEngine::SpecialisedAStar);
    let mut generic = GridAStar::new(opts.clone()).unwrap();
    // The generic jump point search (kind 9), standalone and as GridSearch picks it when a
    // passability hook keeps the specialised engine out.
    let mut generic_jump = JumpSearch::new(opts.clone()).unwrap();
    let hooked = GridOptions {
        passable_hook: Some(std::sync::Arc::new(|_| true)),
        ..opts.clone()
    };
    let mut hooked_jump = GridSearch::new(GridAlgorithm::JumpPoint, hooked).unwrap();
    assert_eq!(hooked_jump.engine_for(grid), GridEngine::GenericJump);
    let mut bidirectional = GridBidirectional::new(opts.clone()).unwrap();
    let mut theta = ThetaStar::new(opts.clone()).unwrap();
    let mut theta_gain: f64 = 0.0;
    let mut slow = 0;
    let (skip, every) = match half {
        Half::All => (0, 1),
        Half::Even => (0, 2),
        Half::Odd => (1, 2),
    };
    for (i, s) in scens
        .iter()
        .enumerate()
        .step_by(k)
        .skip(skip)
        .step_by(every)
    {
        slow += 1;
        match engine {
            CellEngine::AStar => check_found(
                grid,
                &astar.find_path(grid, s.start, s.goal).unwrap(),
                s,
                "GridSearch A*",
                i,
            ),
            CellEngine::GenericAStar => check_found(
                grid,
                &generic.find_path(grid, s.start, s.goal).unwrap(),
                s,
                "generic A*",
                i,
            ),
            CellEngine::GenericJump => {
                let r = generic_jump.find_path(grid, s.start, s.goal).unwrap();
                check_found(grid, &r, s, "generic jump point search", i);
                let h = hooked_jump.find_path(grid, s.start, s.goal).unwrap();
                assert_eq!(h, r, "GridSearch generic jump: scenario {i}");
            }
            CellEngine::Bidirectional => {
                let r = bidirectional.find_path(grid, s.start, s.goal).unwrap();
                check_found(grid, &r, s, "bidirectional A*", i);
            }
            CellEngine::Theta => {
                // Theta* (any-angle) is never longer than the listed 8-connected optimum.
                let r = theta.find_path(grid, s.start, s.goal).unwrap();
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
    }
    let which = match half {
        Half::All => "",
        Half::Even => ", the first of each two",
        Half::Odd => ", the second of each two",
    };
    println!("{test}: {slow} scenarios reproduced (every {k}th{which})");
    if engine == CellEngine::Theta {
        println!(
            "{test}: Theta* at most {:.2}% shorter than listed",
            theta_gain * 100.0
        );
    }
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn arena_scenarios_are_reproduced_by_the_jump_point_engines() {
    run_map(
        "arena.map",
        "arena_scenarios_are_reproduced_by_the_jump_point_engines",
        1,
        Part::Jump,
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn arena_hpa_star_paths_stay_within_the_bound() {
    run_map(
        "arena.map",
        "arena_hpa_star_paths_stay_within_the_bound",
        1,
        Part::Hpa,
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn arena_scenarios_are_reproduced_by_grid_search_astar() {
    run_map(
        "arena.map",
        "arena_scenarios_are_reproduced_by_grid_search_astar",
        1,
        Part::CellByCell(CellEngine::AStar, Half::All),
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn arena_scenarios_are_reproduced_by_generic_astar() {
    run_map(
        "arena.map",
        "arena_scenarios_are_reproduced_by_generic_astar",
        1,
        Part::CellByCell(CellEngine::GenericAStar, Half::All),
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn arena_scenarios_are_reproduced_by_the_generic_jump_point_search() {
    run_map(
        "arena.map",
        "arena_scenarios_are_reproduced_by_the_generic_jump_point_search",
        1,
        Part::CellByCell(CellEngine::GenericJump, Half::All),
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn arena_scenarios_are_reproduced_by_bidirectional_astar() {
    run_map(
        "arena.map",
        "arena_scenarios_are_reproduced_by_bidirectional_astar",
        1,
        Part::CellByCell(CellEngine::Bidirectional, Half::All),
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn arena_theta_star_is_never_longer_than_listed() {
    run_map(
        "arena.map",
        "arena_theta_star_is_never_longer_than_listed",
        1,
        Part::CellByCell(CellEngine::Theta, Half::All),
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn maze512_scenarios_are_reproduced_by_the_jump_point_engines() {
    run_map(
        "maze512-32-9.map",
        "maze512_scenarios_are_reproduced_by_the_jump_point_engines",
        16,
        Part::Jump,
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn maze512_hpa_star_paths_stay_within_the_bound() {
    run_map(
        "maze512-32-9.map",
        "maze512_hpa_star_paths_stay_within_the_bound",
        16,
        Part::Hpa,
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn maze512_scenarios_are_reproduced_by_grid_search_astar() {
    run_map(
        "maze512-32-9.map",
        "maze512_scenarios_are_reproduced_by_grid_search_astar",
        16,
        Part::CellByCell(CellEngine::AStar, Half::All),
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn maze512_scenarios_are_reproduced_by_generic_astar() {
    run_map(
        "maze512-32-9.map",
        "maze512_scenarios_are_reproduced_by_generic_astar",
        16,
        Part::CellByCell(CellEngine::GenericAStar, Half::All),
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn maze512_scenarios_are_reproduced_by_the_generic_jump_point_search() {
    run_map(
        "maze512-32-9.map",
        "maze512_scenarios_are_reproduced_by_the_generic_jump_point_search",
        16,
        Part::CellByCell(CellEngine::GenericJump, Half::All),
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn maze512_scenarios_are_reproduced_by_bidirectional_astar() {
    run_map(
        "maze512-32-9.map",
        "maze512_scenarios_are_reproduced_by_bidirectional_astar",
        16,
        Part::CellByCell(CellEngine::Bidirectional, Half::All),
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn maze512_theta_star_is_never_longer_than_listed_even_half() {
    // Theta* on maze512 is the slowest case of this file (its line-of-sight tests run along
    // long corridors); its every-16th scenarios are split into two halves so that the two
    // test threads share them. Together the halves cover exactly the every-16th set.
    run_map(
        "maze512-32-9.map",
        "maze512_theta_star_is_never_longer_than_listed_even_half",
        16,
        Part::CellByCell(CellEngine::Theta, Half::Even),
    );
}

#[test]
#[cfg_attr(no_movingai, ignore = "needs ONEPATH_DATA (movingai/)")]
fn maze512_theta_star_is_never_longer_than_listed_odd_half() {
    run_map(
        "maze512-32-9.map",
        "maze512_theta_star_is_never_longer_than_listed_odd_half",
        16,
        Part::CellByCell(CellEngine::Theta, Half::Odd),
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
