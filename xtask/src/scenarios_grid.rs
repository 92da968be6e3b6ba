//! The hash-matrix scenario `grid/state-bytes`: a scripted history over the objects that
//! save state, with every state saved at each step. `cargo xtask hash-matrix` hashes the
//! bytes; the same history must give the same bytes on every platform.

use onepath_gridstate::{
    CsrGraph, Graph, GraphAStar, GraphOptions, Grid, GridAStar, GridAlgorithm, GridError,
    GridOptions, GridSearch, GridSpace, SlicedSearch, ThetaStar,
};

use crate::hash_matrix::Recorder;

const ROWS: [&str; 12] = [
    "................",
    "..####....2222..",
    "..#..#....2..2..",
    "..#..#....2..2..",
    "..#.......2222..",
    "..#####.........",
    "........###.....",
    ".11111..#.#..3..",
    ".1...1..#.#..3..",
    ".11111..#....3..",
    "........#####...",
    "................",
];

/// A grid, replanners, a flow field, hex and voxel grids and sliced searches of every kind
/// over a scripted edit history; every saved OPGS state.
pub(crate) fn grid_state_bytes(rec: &mut Recorder) -> Result<(), String> {
    for (step, bytes) in hash_matrix_states() {
        rec.record(step.replace(char::is_whitespace, "_"), &bytes);
    }
    Ok(())
}

/// Runs the scripted history of the `grid/state-bytes` scenario and returns, in order,
/// `(step name, state bytes)` for every saved state.
///
/// The history: GridSearch in modes 0 to 3 begun, stepped, restored, finished, then a
/// grid edit and rollback; LPA* and D* Lite replanners and a two-goal flow field sliced,
/// restored into fresh objects and driven through six edits and a start move; a hex grid
/// with a D* Lite replanner; a chunked voxel grid written and rolled back; a 16 × 12 grid with area costs and a world placement, sliced searches of
/// each kind that saves state (grid A* recording expansions, Theta*, graph A* over a
/// 64-node graph built from an 8 × 8 lattice) begun, stepped a few iterations at a time,
/// saved, restored into fresh objects, interrupted by grid edits and area cost changes
/// (which make them begin again), a grid rollback, and graph edits. Every object's state
/// is saved after every step, so any change to a byte of the format shows up in the hash.
///
pub(crate) fn hash_matrix_states() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let Ok(mut grid) = Grid::from_ascii(&ROWS) else {
        return out;
    };
    let space = GridSpace::new(-8.0, 4.0, 0.5);
    if let Ok(s) = space {
        grid.set_space(s);
    }
    let _ = grid.set_area_cost(2, 2.5);
    let _ = grid.set_area_cost(3, 0.75);
    let options = GridOptions {
        record_expansions: true,
        ..GridOptions::default()
    };
    let (Ok(mut astar), Ok(mut theta)) = (
        GridAStar::new(options.clone()),
        ThetaStar::new(GridOptions::default()),
    ) else {
        return out;
    };
    let Ok(mut graph) = lattice_graph() else {
        return out;
    };
    let Ok(mut gsearch) = GraphAStar::new(GraphOptions {
        record_expansions: true,
        ..GraphOptions::default()
    }) else {
        return out;
    };
    let mut compiled = graph.compile();
    // GridSearch in every mode: specialised A*, block scans, JPS+ (on a unit-cost copy of
    // the grid) and the generic fallback (on the weighted grid).
    let Ok(mut unit) = Grid::from_ascii(&ROWS) else {
        return out;
    };
    let mut searches: Vec<(&str, bool, GridSearch)> = Vec::new();
    for (name, alg, on_unit) in [
        ("grid search A*", GridAlgorithm::AStar, true),
        ("grid search JPS", GridAlgorithm::JumpPoint, true),
        ("grid search JPS+", GridAlgorithm::JumpPointPlus, true),
        ("grid search generic", GridAlgorithm::AStar, false),
    ] {
        if let Ok(s) = GridSearch::new(alg, GridOptions::default()) {
            searches.push((name, on_unit, s));
        }
    }
    let save_searches = |label: &str,
                         out: &mut Vec<(String, Vec<u8>)>,
                         unit: &Grid,
                         grid: &Grid,
                         searches: &[(&str, bool, GridSearch)]| {
        out.push((format!("{label}: unit grid"), unit.save_state()));
        for (name, on_unit, s) in searches {
            let g = if *on_unit { unit } else { grid };
            out.push((format!("{label}: {name}"), s.save_state(g)));
        }
    };
    save_searches("0 created", &mut out, &unit, &grid, &searches);
    for (_, on_unit, s) in searches.iter_mut() {
        let g = if *on_unit { &unit } else { &grid };
        let _ = s.begin(g, (0, 0), (15, 11));
    }
    for step in 1..5u64 {
        for (_, on_unit, s) in searches.iter_mut() {
            let g = if *on_unit { &unit } else { &grid };
            let _ = s.step(g, step * 2);
        }
        save_searches(
            &format!("{step} searched"),
            &mut out,
            &unit,
            &grid,
            &searches,
        );
    }
    // Restore each search into a fresh one and finish; then edit the unit grid, roll it
    // back, and search again.
    let unit_before = unit.save_state();
    for (name, on_unit, s) in searches.iter_mut() {
        let g = if *on_unit { &unit } else { &grid };
        let bytes = s.save_state(g);
        if let Ok(mut fresh) = GridSearch::new(s.algorithm(), GridOptions::default()) {
            if fresh.restore_state(g, &bytes).is_ok() {
                *s = fresh;
            }
        }
        let _ = s.step(g, u64::MAX);
        let _ = name;
    }
    save_searches("5 finished", &mut out, &unit, &grid, &searches);
    let _ = unit.set_blocked(12, 10, true);
    let _ = unit.set_blocked(0, 3, true);
    save_searches("6 unit grid edited", &mut out, &unit, &grid, &searches);
    let _ = unit.restore_state(&unit_before);
    for (_, on_unit, s) in searches.iter_mut() {
        let g = if *on_unit { &unit } else { &grid };
        let _ = s.begin(g, (15, 0), (0, 11));
        let _ = s.step(g, 5);
    }
    save_searches("7 unit grid rolled back", &mut out, &unit, &grid, &searches);
    // Grid A*, Theta*, graph and graph A*.

    let save_all = |label: &str,
                    out: &mut Vec<(String, Vec<u8>)>,
                    grid: &Grid,
                    astar: &GridAStar,
                    theta: &ThetaStar,
                    graph: &Graph,
                    gsearch: &GraphAStar,
                    compiled: &CsrGraph| {
        out.push((format!("{label}: grid"), grid.save_state()));
        out.push((format!("{label}: grid A*"), astar.save_state(grid)));
        out.push((format!("{label}: theta*"), theta.save_state(grid)));
        out.push((format!("{label}: graph"), graph.save_state()));
        out.push((format!("{label}: graph A*"), gsearch.save_state(compiled)));
    };

    save_all(
        "0 created",
        &mut out,
        &grid,
        &astar,
        &theta,
        &graph,
        &gsearch,
        &compiled,
    );
    let _ = astar.begin(&grid, (0, 0), (15, 11));
    let _ = theta.begin(&grid, (0, 11), (15, 0));
    let _ = gsearch.begin(&compiled, 0, 63);
    save_all(
        "1 begun", &mut out, &grid, &astar, &theta, &graph, &gsearch, &compiled,
    );
    let rollback = grid.save_state();
    for step in 2..6 {
        let _ = astar.step(&grid, 7);
        let _ = theta.step(&grid, 5);
        let _ = gsearch.step(&compiled, 4);
        save_all(
            &format!("{step} stepped"),
            &mut out,
            &grid,
            &astar,
            &theta,
            &graph,
            &gsearch,
            &compiled,
        );
    }
    // Restore every search into fresh objects and go on from there.
    let (a_bytes, t_bytes, g_bytes) = (
        astar.save_state(&grid),
        theta.save_state(&grid),
        gsearch.save_state(&compiled),
    );
    if let (Ok(mut a2), Ok(mut t2), Ok(mut g2)) = (
        GridAStar::new(options.clone()),
        ThetaStar::new(GridOptions::default()),
        GraphAStar::new(GraphOptions {
            record_expansions: true,
            ..GraphOptions::default()
        }),
    ) {
        if a2.restore_state(&grid, &a_bytes).is_ok()
            && t2.restore_state(&grid, &t_bytes).is_ok()
            && g2.restore_state(&compiled, &g_bytes).is_ok()
        {
            astar = a2;
            theta = t2;
            gsearch = g2;
        }
    }
    save_all(
        "6 restored",
        &mut out,
        &grid,
        &astar,
        &theta,
        &graph,
        &gsearch,
        &compiled,
    );
    // Edits: walls, an area change, a cost change; searches begin again.
    let _ = grid.set_blocked(7, 0, true);
    let _ = grid.set_area(4, 6, 2);
    let _ = grid.set_area_cost(1, 3.0);
    let _ = graph.add_undirected(5, 60, 0.5);
    if let Ok(id) = graph.add_edge(62, 63, 9.0) {
        let _ = graph.remove_edge(id);
    }
    compiled = graph.compile();
    let _ = astar.begin(&grid, (0, 0), (15, 11));
    let _ = theta.begin(&grid, (0, 11), (15, 0));
    let _ = gsearch.begin(&compiled, 0, 63);
    save_all(
        "7 edited", &mut out, &grid, &astar, &theta, &graph, &gsearch, &compiled,
    );
    for step in 8..10 {
        let _ = astar.step(&grid, 11);
        let _ = theta.step(&grid, 9);
        let _ = gsearch.step(&compiled, 6);
        save_all(
            &format!("{step} stepped"),
            &mut out,
            &grid,
            &astar,
            &theta,
            &graph,
            &gsearch,
            &compiled,
        );
    }
    let _ = astar.step(&grid, u64::MAX);
    let _ = theta.step(&grid, u64::MAX);
    let _ = gsearch.step(&compiled, u64::MAX);
    save_all(
        "10 finished",
        &mut out,
        &grid,
        &astar,
        &theta,
        &graph,
        &gsearch,
        &compiled,
    );
    // Roll the grid back and search again on the old timeline.
    let _ = grid.restore_state(&rollback);
    let _ = astar.begin(&grid, (3, 3), (12, 8));
    let _ = astar.step(&grid, u64::MAX);
    let _ = theta.begin(&grid, (3, 3), (12, 8));
    let _ = theta.step(&grid, u64::MAX);
    save_all(
        "11 rolled back",
        &mut out,
        &grid,
        &astar,
        &theta,
        &graph,
        &gsearch,
        &compiled,
    );
    dependents(&mut out);
    jump_steps(&mut out);
    out
}

/// Appended after every earlier step (their bytes are unchanged): the generic jump point
/// search (kind 9) on the scenario grid with all multipliers 1.5 and a 2 × 2 agent, begun,
/// stepped, restored into a fresh object and finished; then a [`GridSearch`] whose options
/// select it (mode 2 embedding kind 9), stepped, restored and finished.
fn jump_steps(out: &mut Vec<(String, Vec<u8>)>) {
    use onepath_gridstate::JumpSearch;
    let Ok(mut grid) = Grid::from_ascii(&ROWS) else {
        return;
    };
    for a in 0..=254u8 {
        let _ = grid.set_area_cost(a, 1.5);
    }
    let options = GridOptions {
        agent_size: 2,
        record_expansions: true,
        ..GridOptions::default()
    };
    let (Ok(mut jump), Ok(mut gs)) = (
        JumpSearch::new(options.clone()),
        GridSearch::new(GridAlgorithm::JumpPoint, options.clone()),
    ) else {
        return;
    };
    out.push(("j0: jump grid".into(), grid.save_state()));
    out.push(("j0: jump search".into(), jump.save_state(&grid)));
    let _ = jump.begin(&grid, (14, 10), (6, 2));
    let _ = gs.begin(&grid, (6, 2), (14, 10));
    for step in 1..4u64 {
        let _ = jump.step(&grid, step);
        let _ = gs.step(&grid, step);
        out.push((format!("j{step}: jump search"), jump.save_state(&grid)));
        out.push((
            format!("j{step}: grid search generic jump"),
            gs.save_state(&grid),
        ));
    }
    let (jb, gb) = (jump.save_state(&grid), gs.save_state(&grid));
    if let (Ok(mut j2), Ok(mut g2)) = (
        JumpSearch::new(options.clone()),
        GridSearch::new(GridAlgorithm::JumpPoint, options),
    ) {
        if j2.restore_state(&grid, &jb).is_ok() && g2.restore_state(&grid, &gb).is_ok() {
            jump = j2;
            gs = g2;
        }
    }
    let _ = jump.step(&grid, u64::MAX);
    let _ = gs.step(&grid, u64::MAX);
    out.push(("j4: jump search finished".into(), jump.save_state(&grid)));
    out.push((
        "j4: grid search generic jump finished".into(),
        gs.save_state(&grid),
    ));
}

/// A replanner of each algorithm and a flow field over one grid through an edit history
/// with a save/restore in the middle; a hex grid with a replanner; a voxel grid.
fn dependents(out: &mut Vec<(String, Vec<u8>)>) {
    use onepath_gridstate::{
        GridFlowField, GridReplanner, HexGrid, HexLayout, HexReplanner, ReplanAlgorithm, VoxelGrid,
    };
    let Ok(mut grid) = Grid::from_ascii(&ROWS) else {
        return;
    };
    let opts = GridOptions::default;
    let (Ok(mut lpa), Ok(mut dstar), Ok(mut flow)) = (
        GridReplanner::new(&grid, ReplanAlgorithm::LpaStar, opts(), (0, 0), (15, 11)),
        GridReplanner::new(&grid, ReplanAlgorithm::DStarLite, opts(), (0, 11), (15, 0)),
        GridFlowField::new(&grid, &[(15, 11), (0, 0)], opts()),
    ) else {
        return;
    };
    let edits: [(u32, u32, u8); 6] = [
        (4, 4, 255),
        (10, 0, 255),
        (12, 6, 2),
        (4, 4, 0),
        (7, 9, 255),
        (14, 10, 255),
    ];
    let save = |label: &str,
                out: &mut Vec<(String, Vec<u8>)>,
                grid: &Grid,
                lpa: &GridReplanner,
                dstar: &GridReplanner,
                flow: &GridFlowField| {
        out.push((format!("{label}: dependents grid"), grid.save_state()));
        out.push((format!("{label}: LPA*"), lpa.save_state()));
        out.push((format!("{label}: D* Lite"), dstar.save_state()));
        out.push((format!("{label}: flow field"), flow.save_state(grid)));
    };
    save("d0 created", out, &grid, &lpa, &dstar, &flow);
    let _ = lpa.step(&grid, 9);
    let _ = dstar.step(&grid, 9);
    let _ = flow.step(&grid, 20);
    save("d1 sliced", out, &grid, &lpa, &dstar, &flow);
    // Restore everything into fresh objects (grid first) and go on from there.
    let (gb, lb, db, fb) = (
        grid.save_state(),
        lpa.save_state(),
        dstar.save_state(),
        flow.save_state(&grid),
    );
    if let Ok(g2) = Grid::from_state(&gb) {
        if let (Ok(mut l2), Ok(mut d2), Ok(mut f2)) = (
            GridReplanner::new(&g2, ReplanAlgorithm::LpaStar, opts(), (0, 0), (15, 11)),
            GridReplanner::new(&g2, ReplanAlgorithm::DStarLite, opts(), (0, 11), (15, 0)),
            GridFlowField::new(&g2, &[(15, 11), (0, 0)], opts()),
        ) {
            if l2.restore_state(&g2, &lb).is_ok()
                && d2.restore_state(&g2, &db).is_ok()
                && f2.restore_state(&g2, &fb).is_ok()
            {
                grid = g2;
                lpa = l2;
                dstar = d2;
                flow = f2;
            }
        }
    }
    save("d2 restored", out, &grid, &lpa, &dstar, &flow);
    for (k, &(x, y, a)) in edits.iter().enumerate() {
        let _ = grid.set_area(x, y, a);
        if k == 2 {
            let _ = dstar.set_start(&grid, (1, 10));
        }
        let _ = lpa.replan(&grid);
        let _ = dstar.replan(&grid);
        let _ = flow.compute(&grid);
        save(
            &format!("d{} edit {k}", k + 3),
            out,
            &grid,
            &lpa,
            &dstar,
            &flow,
        );
    }
    // Hex grid and its replanner.
    let Ok(mut hex) = HexGrid::new(9, 7, HexLayout::EvenRowsRight) else {
        return;
    };
    for (x, y) in [(4, 0), (4, 1), (4, 2), (4, 3), (2, 5)] {
        let _ = hex.grid_mut().set_blocked(x, y, true);
    }
    if let Ok(mut hr) = HexReplanner::new(&hex, ReplanAlgorithm::DStarLite, opts(), (0, 0), (8, 0))
    {
        out.push(("h0: hex grid".into(), hex.save_state()));
        out.push(("h0: hex replanner".into(), hr.save_state(&hex)));
        let _ = hr.step(&hex, 6);
        out.push(("h1: hex replanner".into(), hr.save_state(&hex)));
        let _ = hr.replan(&hex);
        let _ = hex.grid_mut().set_blocked(4, 5, true);
        let _ = hr.replan(&hex);
        out.push(("h2: hex grid".into(), hex.save_state()));
        out.push(("h2: hex replanner".into(), hr.save_state(&hex)));
    }
    // Voxel grid: chunks allocated by writes, a rollback.
    if let Ok(mut v) = VoxelGrid::new(20, 6, 18, 1) {
        out.push(("v0: voxel grid".into(), v.save_state()));
        let before = v.save_state();
        let _ = v.set_area(3, 2, 1, 255);
        let _ = v.set_area(19, 5, 17, 4);
        let _ = v.set_area_cost(4, 2.5);
        out.push(("v1: voxel grid".into(), v.save_state()));
        let _ = v.restore_state(&before);
        out.push(("v2: voxel grid rolled back".into(), v.save_state()));
    }
}

/// An 8 × 8 lattice with weights that vary by position (4-neighbour, undirected).
fn lattice_graph() -> Result<Graph, GridError> {
    let mut g = Graph::new(64)?;
    for y in 0..8u32 {
        for x in 0..8u32 {
            let n = y * 8 + x;
            let w = 1.0 + f64::from((x * 3 + y * 5) % 4) * 0.25;
            if x + 1 < 8 {
                g.add_undirected(n, n + 1, w)?;
            }
            if y + 1 < 8 {
                g.add_undirected(n, n + 8, w + 0.5)?;
            }
        }
    }
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::hash_matrix_states;

    #[test]
    fn hash_matrix_states_are_repeatable_and_restorable() {
        let a = hash_matrix_states();
        let b = hash_matrix_states();
        assert_eq!(a, b);
        for (name, bytes) in &a {
            assert_eq!(&bytes[..4], b"OPGS", "{name}");
        }
        // Every kind the crate saves appears.
        let mut kinds: Vec<u16> = a
            .iter()
            .map(|(_, b)| u16::from_le_bytes([b[6], b[7]]))
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds, vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        // GridSearch appears in every mode.
        let mut modes: Vec<u8> = a
            .iter()
            .filter(|(_, b)| b[6] == 12)
            .map(|(_, b)| b[8])
            .collect();
        modes.sort_unstable();
        modes.dedup();
        assert_eq!(modes, vec![0, 1, 2, 3]);
    }

    #[test]
    fn hash_matrix_bytes_are_pinned() {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        let states = hash_matrix_states();
        for (name, bytes) in &states {
            h.update(name.as_bytes());
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        }
        let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        println!("{} states, sha256 {hex}", states.len());
        assert_eq!(hex, PINNED_MATRIX_SHA256);
    }

    /// "do not change existing steps' bytes": the steps that existed before the jump point
    /// search steps were appended hash as before.
    #[test]
    fn hash_matrix_steps_before_the_jump_steps_keep_their_bytes() {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        let states = hash_matrix_states();
        let first_jump = states
            .iter()
            .position(|(name, _)| name.starts_with("j0: "))
            .expect("the jump steps are present");
        assert!(states[first_jump..]
            .iter()
            .all(|(name, _)| name.starts_with('j')));
        for (name, bytes) in &states[..first_jump] {
            h.update(name.as_bytes());
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        }
        let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(first_jump, PRE_JUMP_STATES);
        assert_eq!(hex, PRE_JUMP_MATRIX_SHA256);
        // The appended GridSearch is in mode 2 with an embedded kind 9 that found its path,
        // as is the standalone kind 9 search.
        let (_, gs) = states.last().expect("states");
        assert_eq!((gs[6], gs[8]), (12, 2));
        let at = 8 + 1 + 8 + 16 + 4;
        assert_eq!(u16::from_le_bytes([gs[at + 6], gs[at + 7]]), 9);
        assert_eq!(gs[at + 12], 2, "embedded status found");
        let (_, js) = &states[states.len() - 2];
        assert_eq!((js[6], js[12]), (9, 2));
    }

    /// The history before the jump point steps: its state count and SHA-256 (the pin of
    /// commit 9e3a7d0, before kind 9 existed).
    const PRE_JUMP_STATES: usize = 144;
    const PRE_JUMP_MATRIX_SHA256: &str =
        "9211b92b2c27d0079365bf9854a05c474b829d05c15e206880ba7f14d022b2e3";

    /// The SHA-256 of the `grid/state-bytes` history (names, lengths and bytes), pinned so any
    /// change to the format or to a search's order shows up.
    const PINNED_MATRIX_SHA256: &str =
        "87fe1de2f909dbca382761bf2d52f4696bb13543c50e011f6d5f2662554dedd8";
}
