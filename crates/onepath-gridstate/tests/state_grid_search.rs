//! OPGS kind 12 (GridSearch): modes 0 to 3, round trips, sliced = uninterrupted across a
//! save/restore, and every structural rule of modes 1 and 3 with hostile bytes.

mod common;

use common::{cases, grid_err, grid_from_bytes};

use onepath_format::bytes::{ByteReader, ByteWriter};
use onepath_format::FormatError;
use onepath_gridstate::{
    Grid, GridAlgorithm, GridEngine, GridError, GridOptions, GridPath, GridSearch, JumpFinder,
    SearchStatus, SlicedSearch, WALL,
};
use proptest::prelude::*;

fn maze() -> Grid {
    Grid::from_ascii(&[
        "............",
        ".####..###..",
        "....#....#..",
        ".##.#.##.#..",
        "..#......#..",
        "..#####.....",
    ])
    .unwrap()
}

fn search(alg: GridAlgorithm) -> GridSearch {
    GridSearch::new(alg, GridOptions::default()).unwrap()
}

fn stepped(alg: GridAlgorithm, grid: &Grid, n: u64) -> GridSearch {
    let mut s = search(alg);
    s.begin(grid, (0, 0), (11, 5)).unwrap();
    s.step(grid, n).unwrap();
    s
}

#[test]
fn grid_search_saving_twice_and_save_restore_save_give_the_same_bytes_in_every_mode() {
    let g = maze();
    let mut weighted = maze();
    weighted.set_area_cost(0, 1.5).unwrap();
    let cases: Vec<(GridSearch, &Grid, u8)> = vec![
        (search(GridAlgorithm::AStar), &g, 0),
        (stepped(GridAlgorithm::AStar, &g, 5), &g, 1),
        (stepped(GridAlgorithm::AStar, &weighted, 5), &weighted, 2),
        (stepped(GridAlgorithm::JumpPoint, &g, 2), &g, 3),
        (stepped(GridAlgorithm::JumpPointPlus, &g, 3), &g, 3),
        (stepped(GridAlgorithm::JumpPoint, &g, 1000), &g, 3),
    ];
    for (s, grid, mode) in cases {
        let bytes = s.save_state(grid);
        assert_eq!(bytes[8], mode);
        assert_eq!(bytes, s.save_state(grid));
        let mut t = GridSearch::new(s.algorithm(), GridOptions::default()).unwrap();
        t.restore_state(grid, &bytes).unwrap();
        assert_eq!(t.save_state(grid), bytes, "mode {mode}");
        assert_eq!(t.engine(), s.engine());
    }
}

#[test]
fn mode_3_saves_the_finder() {
    let g = maze();
    assert_eq!(
        stepped(GridAlgorithm::JumpPoint, &g, 1).save_state(&g)[17],
        0
    );
    assert_eq!(
        stepped(GridAlgorithm::JumpPointPlus, &g, 1).save_state(&g)[17],
        1
    );
}

#[test]
fn the_restoring_search_must_pick_the_same_engine_and_finder() {
    let g = maze();
    let bytes = stepped(GridAlgorithm::JumpPoint, &g, 2).save_state(&g);
    let mut a = search(GridAlgorithm::AStar);
    assert_eq!(
        a.restore_state(&g, &bytes).unwrap_err(),
        grid_err("mode 3 but the options and grid select mode 1")
    );
    let mut p = search(GridAlgorithm::JumpPointPlus);
    assert_eq!(
        p.restore_state(&g, &bytes).unwrap_err(),
        grid_err("finder BlockScans does not match the search's Tables")
    );
    let mut zero = GridSearch::new(
        GridAlgorithm::JumpPoint,
        GridOptions {
            heuristic_weight: 0.0,
            ..GridOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        zero.restore_state(&g, &bytes).unwrap_err(),
        grid_err("zero estimate false does not match the search's heuristic weight")
    );
    let other = Grid::new(12, 7).unwrap();
    assert_eq!(
        search(GridAlgorithm::JumpPoint)
            .restore_state(&other, &bytes)
            .unwrap_err(),
        grid_err("size 12 x 6 does not match the grid's 12 x 7")
    );
    let mut b = bytes.clone();
    b[8] = 4;
    assert_eq!(
        search(GridAlgorithm::JumpPoint)
            .restore_state(&g, &b)
            .unwrap_err(),
        grid_err("mode 4 is undefined")
    );
}

#[test]
fn mode_2_embeds_an_astar_state_and_checks_its_kind() {
    let mut g = maze();
    g.set_area_cost(0, 2.0).unwrap();
    let s = stepped(GridAlgorithm::AStar, &g, 4);
    assert_eq!(s.engine(), GridEngine::Generic);
    let bytes = s.save_state(&g);
    // header 8, mode, w, h, 4 coordinates, length, then the embedded OPGS kind 8.
    assert_eq!(
        &bytes[17..33],
        &[0, 0, 0, 0, 0, 0, 0, 0, 11, 0, 0, 0, 5, 0, 0, 0]
    );
    assert_eq!(&bytes[37..45], &[0x4F, 0x50, 0x47, 0x53, 1, 0, 8, 0]);
    let mut b = bytes.clone();
    b[43] = 9;
    assert_eq!(
        search(GridAlgorithm::AStar)
            .restore_state(&g, &b)
            .unwrap_err(),
        grid_err("embedded state: kind 9 where kind 8 was expected")
    );
    let mut b = bytes.clone();
    b[25] = 10; // goal x 10 instead of 11
    assert_eq!(
        search(GridAlgorithm::AStar)
            .restore_state(&g, &b)
            .unwrap_err(),
        grid_err("embedded search (start 0, goal 71) is not the begun search from 0 to 70")
    );
    let mut b = bytes.clone();
    b[25] = 12;
    assert_eq!(
        search(GridAlgorithm::AStar)
            .restore_state(&g, &b)
            .unwrap_err(),
        grid_err("goal x 12 out of range 0..12")
    );
}

#[test]
fn restoring_a_grid_and_then_a_search_needs_no_extra_step() {
    let g = maze();
    let gb = g.save_state();
    let sb = stepped(GridAlgorithm::JumpPointPlus, &g, 3).save_state(&g);
    let g2 = Grid::from_state(&gb).unwrap();
    let mut t = search(GridAlgorithm::JumpPointPlus);
    t.restore_state(&g2, &sb).unwrap();
    assert_eq!(t.step(&g2, u64::MAX).unwrap(), SearchStatus::Found);
    // The search restored against g2 is stale for another grid object.
    let mut u = search(GridAlgorithm::JumpPointPlus);
    u.restore_state(&g2, &sb).unwrap();
    assert!(matches!(u.step(&g, 1), Err(GridError::Stale { .. })));
}

// ------------------------------------------------------------------ sliced = uninterrupted

fn no_expansions(mut r: GridPath) -> GridPath {
    r.expansions = None;
    r
}

fn random_grid(w: u32, h: u32, cells: &[u8], weighted: bool) -> Grid {
    let mut g = grid_from_bytes(w, h, cells, |c| if c % 4 == 0 { WALL } else { 0 });
    if weighted {
        g.set_area_cost(0, 1.25).unwrap();
    }
    g
}

fn algorithm(i: u8) -> GridAlgorithm {
    match i % 3 {
        0 => GridAlgorithm::AStar,
        1 => GridAlgorithm::JumpPoint,
        _ => GridAlgorithm::JumpPointPlus,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(96)))]

    #[test]
    fn grid_search_stepped_n_saved_restored_and_finished_equals_the_uninterrupted_search(
        w in 1u32..16, h in 1u32..16, cells in proptest::collection::vec(any::<u8>(), 256),
        alg in any::<u8>(), weighted in any::<bool>(), zero in any::<bool>(),
        s in any::<u32>(), t in any::<u32>(), n in 0u64..40,
    ) {
        let grid = random_grid(w, h, &cells, weighted);
        let opts = GridOptions {
            record_expansions: true,
            heuristic_weight: if zero { 0.0 } else { 1.0 },
            ..GridOptions::default()
        };
        let alg = algorithm(alg);
        let n_cells = w * h;
        let start = ((s % n_cells) % w, (s % n_cells) / w);
        let goal = ((t % n_cells) % w, (t % n_cells) / w);
        let mut full = GridSearch::new(alg, opts.clone()).unwrap();
        let expected = full.find_path(&grid, start, goal).unwrap();
        let mut a = GridSearch::new(alg, opts.clone()).unwrap();
        a.begin(&grid, start, goal).unwrap();
        a.step(&grid, n).unwrap();
        let before = a.result().unwrap().expansions.unwrap_or_default();
        let bytes = a.save_state(&grid);
        let grid2 = Grid::from_state(&grid.save_state()).unwrap();
        let mut b = GridSearch::new(alg, opts).unwrap();
        b.restore_state(&grid2, &bytes).unwrap();
        prop_assert_eq!(b.save_state(&grid2), bytes.clone());
        b.step(&grid2, u64::MAX).unwrap();
        let got = b.result().unwrap();
        let after = got.expansions.clone().unwrap_or_default();
        prop_assert_eq!(no_expansions(got.clone()), no_expansions(expected.clone()));
        // Expansion order: what was expanded before the save, then after the restore.
        let all = expected.expansions.unwrap_or_default();
        if bytes[8] == 2 {
            prop_assert_eq!(after, all);
        } else {
            let mut joined = before;
            joined.extend(after);
            prop_assert_eq!(joined, all);
        }
    }
}

// ------------------------------------------------------------------ hostile bytes, mode 1

#[derive(Clone)]
struct Mode1 {
    head: Vec<u8>, // header, mode, width, height
    status: u8,
    zero: u8,
    ints: [i32; 6], // start, goal, expanded, iterations, pathA, pathB
    cells: Vec<(i32, i32, i32, u8)>,
}

impl Mode1 {
    fn parse(b: &[u8]) -> Mode1 {
        let mut r = ByteReader::new(b);
        let head = r.bytes(17, "head").unwrap().to_vec();
        let status = r.u8("s").unwrap();
        let zero = r.u8("z").unwrap();
        let mut ints = [0; 6];
        for v in ints.iter_mut() {
            *v = r.i32("i").unwrap();
        }
        let n = r.i32("n").unwrap();
        let cells = (0..n)
            .map(|_| {
                (
                    r.i32("c").unwrap(),
                    r.i32("a").unwrap(),
                    r.i32("b").unwrap(),
                    r.u8("f").unwrap(),
                )
            })
            .collect();
        assert!(r.is_empty());
        Mode1 {
            head,
            status,
            zero,
            ints,
            cells,
        }
    }
    fn bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new();
        w.bytes(&self.head);
        w.u8(self.status);
        w.u8(self.zero);
        for v in self.ints {
            w.i32(v);
        }
        w.i32(self.cells.len() as i32);
        for &(c, a, b, f) in &self.cells {
            w.i32(c);
            w.i32(a);
            w.i32(b);
            w.u8(f);
        }
        w.into_vec()
    }
}

fn mode1_base() -> (Grid, Mode1) {
    let g = maze();
    let s = stepped(GridAlgorithm::AStar, &g, 6);
    let m = Mode1::parse(&s.save_state(&g));
    (g, m)
}

fn restore_mode1(g: &Grid, m: &Mode1) -> Result<(), FormatError> {
    search(GridAlgorithm::AStar).restore_state(g, &m.bytes())
}

#[test]
fn mode_1_rules_each_have_their_error() {
    let (g, base) = mode1_base();
    assert_eq!(restore_mode1(&g, &base), Ok(()));
    // cell order and range
    let mut m = base.clone();
    m.cells.swap(0, 1);
    assert!(
        matches!(restore_mode1(&g, &m), Err(FormatError::State { format: "grid", ref message }) if message.contains("in increasing order"))
    );
    let mut m = base.clone();
    m.cells.push((72, 0, 0, 0));
    assert_eq!(
        restore_mode1(&g, &m),
        Err(grid_err("visited cell 72 out of range 0..72"))
    );
    // walls
    let mut m = base.clone();
    m.cells.push((13, 1, 0, 0));
    m.cells.sort_by_key(|c| c.0);
    assert_eq!(
        restore_mode1(&g, &m),
        Err(grid_err("visited cell 13 is a wall"))
    );
    // start costs 0
    let mut m = base.clone();
    m.cells[0].1 = 1;
    assert_eq!(
        restore_mode1(&g, &m),
        Err(grid_err("the start has cost (1, 0), not 0"))
    );
    // a parent one step cheaper, closed
    let mut m = base.clone();
    let i = m.cells.iter().position(|c| c.0 == 1).unwrap();
    m.cells[i].1 += 1;
    assert_eq!(
        restore_mode1(&g, &m),
        Err(grid_err(
            "cell 1: parent 0 is not a closed visited cell one step cheaper"
        ))
    );
    // a parent direction leaving the grid: cell 1 pointing north
    let mut m = base.clone();
    m.cells[i].3 = (m.cells[i].3 & 1) | (2 << 1);
    assert_eq!(
        restore_mode1(&g, &m),
        Err(grid_err("cell 1: the parent direction leaves the grid"))
    );
    // flags
    let mut m = base.clone();
    m.cells[i].3 |= 16;
    assert!(
        matches!(restore_mode1(&g, &m), Err(FormatError::State { format: "grid", ref message }) if message.ends_with("use bits above 3"))
    );
    // a found search has its goal closed with the reported pair
    let mut m = base.clone();
    m.status = 2;
    assert_eq!(
        restore_mode1(&g, &m),
        Err(grid_err(
            "a found search has its goal closed with the reported pair"
        ))
    );
    // counters
    let mut m = base.clone();
    m.ints[2] = m.ints[3] + 1;
    assert!(
        matches!(restore_mode1(&g, &m), Err(FormatError::State { format: "grid", ref message }) if message.starts_with("expanded"))
    );
    let mut m = base.clone();
    m.ints[4] = -1;
    assert_eq!(
        restore_mode1(&g, &m),
        Err(grid_err("path a -1 is negative"))
    );
    let mut m = base.clone();
    m.zero = 2;
    assert_eq!(
        restore_mode1(&g, &m),
        Err(grid_err("zero estimate flag 2 is not 0 or 1"))
    );
    let mut m = base.clone();
    m.status = 0;
    assert_eq!(
        restore_mode1(&g, &m),
        Err(grid_err(
            "a begun search has a status other than not started"
        ))
    );
    let mut m = base;
    m.cells = vec![(0, 0, 0, 0); 73];
    assert_eq!(
        restore_mode1(&g, &m),
        Err(grid_err("visited count 73 exceeds 72"))
    );
}

#[test]
fn a_failed_grid_search_restore_leaves_it_unchanged() {
    let (g, mut m) = mode1_base();
    let mut s = stepped(GridAlgorithm::AStar, &g, 3);
    let before = s.save_state(&g);
    m.status = 2;
    assert!(s.restore_state(&g, &m.bytes()).is_err());
    assert_eq!(s.save_state(&g), before);
}

// ------------------------------------------------------------------ hostile bytes, mode 3

#[derive(Clone)]
struct Mode3 {
    head: Vec<u8>, // header, mode, width, height, finder
    status: u8,
    zero: u8,
    ints: [i32; 6],
    cells: Vec<(i32, i32, i32, i32, u8)>,
    level: f64,
    heap: Vec<(f64, u64)>,
    stack: Vec<i32>,
}

impl Mode3 {
    fn parse(b: &[u8]) -> Mode3 {
        let mut r = ByteReader::new(b);
        let head = r.bytes(18, "head").unwrap().to_vec();
        let status = r.u8("s").unwrap();
        let zero = r.u8("z").unwrap();
        let mut ints = [0; 6];
        for v in ints.iter_mut() {
            *v = r.i32("i").unwrap();
        }
        let n = r.i32("n").unwrap();
        let cells = (0..n)
            .map(|_| {
                (
                    r.i32("c").unwrap(),
                    r.i32("a").unwrap(),
                    r.i32("b").unwrap(),
                    r.i32("p").unwrap(),
                    r.u8("f").unwrap(),
                )
            })
            .collect();
        let level = r.f64("l").unwrap();
        let hn = r.i32("hn").unwrap();
        let heap = (0..hn)
            .map(|_| (r.f64("f").unwrap(), r.u64("t").unwrap()))
            .collect();
        let sn = r.i32("sn").unwrap();
        let stack = (0..sn).map(|_| r.i32("c").unwrap()).collect();
        assert!(r.is_empty());
        Mode3 {
            head,
            status,
            zero,
            ints,
            cells,
            level,
            heap,
            stack,
        }
    }
    fn bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new();
        w.bytes(&self.head);
        w.u8(self.status);
        w.u8(self.zero);
        for v in self.ints {
            w.i32(v);
        }
        w.i32(self.cells.len() as i32);
        for &(c, a, b, p, f) in &self.cells {
            w.i32(c);
            w.i32(a);
            w.i32(b);
            w.i32(p);
            w.u8(f);
        }
        w.f64(self.level);
        w.i32(self.heap.len() as i32);
        for &(f, t) in &self.heap {
            w.f64(f);
            w.u64(t);
        }
        w.i32(self.stack.len() as i32);
        for &c in &self.stack {
            w.i32(c);
        }
        w.into_vec()
    }
}

fn mode3_base(steps: u64) -> (Grid, Mode3) {
    let g = maze();
    let s = stepped(GridAlgorithm::JumpPoint, &g, steps);
    let m = Mode3::parse(&s.save_state(&g));
    (g, m)
}

fn restore_mode3(g: &Grid, m: &Mode3) -> Result<(), FormatError> {
    search(GridAlgorithm::JumpPoint).restore_state(g, &m.bytes())
}

#[test]
fn mode_3_rules_each_have_their_error() {
    let (g, base) = mode3_base(2);
    assert_eq!(restore_mode3(&g, &base), Ok(()));
    assert!(base.cells.len() >= 3 && !base.heap.is_empty());
    let ci = base.cells.iter().position(|c| c.0 != 0).unwrap();
    let cell = base.cells[ci].0;
    // walkable, in the grid, listed once in increasing order
    let mut m = base.clone();
    m.cells.push((13, 1, 0, 0, 0));
    m.cells.sort_by_key(|c| c.0);
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err("visited cell 13 is a wall"))
    );
    let mut m = base.clone();
    m.cells.push(m.cells[m.cells.len() - 1]);
    assert!(
        matches!(restore_mode3(&g, &m), Err(FormatError::State { format: "grid", ref message }) if message.contains("in increasing order"))
    );
    // the start: cost 0, no parent, closed once something has popped
    let mut m = base.clone();
    m.cells[0].3 = 1;
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err("the start has cost 0 and no parent"))
    );
    let mut m = base.clone();
    m.cells[0].4 &= !1;
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err(
            "the start is closed exactly when something has popped"
        ))
    );
    // parents
    let mut m = base.clone();
    m.cells[ci].3 = -1;
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err(&format!(
            "cell {cell}: parent 4294967295 is not visited"
        )))
    );
    let mut m = base.clone();
    m.cells[ci].3 = 99;
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err(&format!("cell {cell}: parent 99 out of range")))
    );
    let mut m = base.clone();
    m.cells[ci].1 += 1;
    assert!(
        matches!(restore_mode3(&g, &m), Err(FormatError::State { format: "grid", ref message }) if message.contains("not a valid hop"))
    );
    let mut m = base.clone();
    m.cells[ci].4 ^= 4 << 1; // another direction
    assert!(
        matches!(restore_mode3(&g, &m), Err(FormatError::State { format: "grid", ref message }) if message.contains("not a valid hop"))
    );
    // the goal closed exactly when found; counters equal the closed cells
    let mut m = base.clone();
    m.status = 2;
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err(
            "the goal is closed exactly when the status is found"
        ))
    );
    let mut m = base.clone();
    m.ints[3] += 1;
    m.ints[2] += 1;
    assert!(
        matches!(restore_mode3(&g, &m), Err(FormatError::State { format: "grid", ref message }) if message.contains("closed cells"))
    );
    let mut m = base.clone();
    m.ints[2] -= 1;
    assert!(
        matches!(restore_mode3(&g, &m), Err(FormatError::State { format: "grid", ref message }) if message.starts_with("expanded"))
    );
    // the level
    let mut m = base.clone();
    m.level = f64::NAN;
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err("the level is NaN exactly when nothing has popped"))
    );
    // entries
    let mut m = base.clone();
    m.heap[0].1 = (m.heap[0].1 & !0xFFFF_FFFF) | 71;
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err("heap slot 0 names cell 71, not visited"))
    );
    let mut m = base.clone();
    m.heap[0].0 = f64::NAN;
    assert_eq!(restore_mode3(&g, &m), Err(grid_err("heap F is NaN")));
    let mut m = base.clone();
    m.heap.push((-1.0, m.heap[0].1));
    assert!(
        matches!(restore_mode3(&g, &m), Err(FormatError::State { format: "grid", ref message }) if message.ends_with("comes before its parent slot"))
    );
    let mut m = base.clone();
    let removed = m.heap.remove(0);
    let open_cell = removed.1 as u32;
    m.heap.retain(|e| e.1 as u32 != open_cell);
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err(&format!("open cell {open_cell} has no entry")))
    );
    let mut m = base.clone();
    m.stack.push(71);
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err(&format!(
            "stack entry {} names cell 71, not visited",
            base.stack.len()
        )))
    );
    let mut m = base.clone();
    m.stack.push(-3);
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err("stack cell -3 out of range 0..72"))
    );
    // At most 1 + 8 entries per closed cell (the start's, and one per jump).
    let mut m = base.clone();
    let slot = m.heap[m.heap.len() - 1];
    let limit = 1 + 8 * m.ints[3] as usize;
    while m.heap.len() <= limit {
        m.heap.push(slot);
    }
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err(&format!(
            "heap count {} exceeds {limit}",
            m.heap.len()
        )))
    );
    let mut m = base.clone();
    m.head[17] = 2;
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err("finder 2 is undefined"))
    );
    // a search that ran out of cells has no entries
    let mut walled = maze();
    walled.set_blocked(11, 4, true).unwrap();
    walled.set_blocked(10, 5, true).unwrap();
    walled.set_blocked(10, 4, true).unwrap();
    let mut s = search(GridAlgorithm::JumpPoint);
    s.begin(&walled, (0, 0), (11, 5)).unwrap();
    assert_eq!(s.step(&walled, u64::MAX).unwrap(), SearchStatus::NoPath);
    let mut m = Mode3::parse(&s.save_state(&walled));
    assert_eq!(restore_mode3(&walled, &m), Ok(()));
    m.stack.push(0);
    assert_eq!(
        restore_mode3(&walled, &m),
        Err(grid_err("a search that ran out of cells has no entries"))
    );
}

#[test]
fn mode_3_found_search_reports_the_goal_pair() {
    let (g, base) = mode3_base(1000);
    assert_eq!(base.status, 2);
    assert_eq!(restore_mode3(&g, &base), Ok(()));
    let mut m = base;
    m.ints[4] += 1;
    assert_eq!(
        restore_mode3(&g, &m),
        Err(grid_err("the goal's pair is not the reported path pair"))
    );
    let _ = JumpFinder::Tables;
}
