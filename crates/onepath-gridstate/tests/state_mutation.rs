//! "Hostile bytes never panic": valid OPGS states of each kind, mutated (bytes overwritten,
//! inserted, removed, truncated), restored, and when accepted, stepped to the end. The case
//! count comes from `ONEPATH_MUTATION_CASES` (default 1000; CI sets 10000).

use onepath_gridstate::{
    CsrGraph, Graph, GraphAStar, GraphOptions, Grid, GridAStar, GridAlgorithm, GridFlowField,
    GridOptions, GridReplanner, GridSearch, HexGrid, HexLayout, HexReplanner, JumpSearch,
    ReplanAlgorithm, SlicedSearch, ThetaStar, VoxelGrid,
};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("ONEPATH_MUTATION_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

#[derive(Debug, Clone)]
enum Mutation {
    Set(usize, u8),
    Insert(usize, u8),
    Remove(usize),
    Truncate(usize),
    SetI32(usize, i32),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Set(i, b)),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        1 => any::<usize>().prop_map(Mutation::Remove),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        3 => (any::<usize>(), prop_oneof![Just(-1i32), Just(0), Just(1), Just(2), Just(i32::MAX), any::<i32>()])
            .prop_map(|(i, v)| Mutation::SetI32(i, v)),
    ]
}

fn mutate(mut b: Vec<u8>, ms: &[Mutation]) -> Vec<u8> {
    for m in ms {
        let len = b.len().max(1);
        match *m {
            Mutation::Set(i, v) => {
                if !b.is_empty() {
                    let i = i % b.len();
                    b[i] = v;
                }
            }
            Mutation::Insert(i, v) => b.insert(i % (b.len() + 1), v),
            Mutation::Remove(i) => {
                if !b.is_empty() {
                    b.remove(i % len);
                }
            }
            Mutation::Truncate(i) => b.truncate(i % len),
            Mutation::SetI32(i, v) => {
                if b.len() >= 4 {
                    let i = i % (b.len() - 3);
                    b[i..i + 4].copy_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    b
}

fn grid() -> Grid {
    let mut g =
        Grid::from_ascii(&["........", ".###.2..", "...#.2..", ".#...##.", ".#.1...."]).unwrap();
    g.set_area_cost(2, 3.0).unwrap();
    g
}

/// A grid with uniform multipliers (2.0) that the generic jump point search serves, with a
/// passability hook so that GridSearch selects it (mode 2, embedded kind 9).
fn jump_grid() -> (Grid, GridOptions) {
    let mut g =
        Grid::from_ascii(&["........", ".###....", "...#.#..", ".#...##.", ".#......"]).unwrap();
    for a in 0..=254u8 {
        g.set_area_cost(a, 2.0).unwrap();
    }
    let opts = GridOptions {
        record_expansions: true,
        passable_hook: Some(std::sync::Arc::new(|c: u32| c != 20)),
        ..GridOptions::default()
    };
    (g, opts)
}

fn graph() -> (Graph, CsrGraph) {
    let mut g = Graph::new(12).unwrap();
    for i in 0..11 {
        g.add_undirected(i, i + 1, 1.0 + f64::from(i % 3)).unwrap();
    }
    g.add_edge(0, 7, 4.0).unwrap();
    let c = g.compile();
    (g, c)
}

fn astar_state(steps: u64) -> Vec<u8> {
    let g = grid();
    let mut s = GridAStar::new(GridOptions {
        record_expansions: true,
        ..GridOptions::default()
    })
    .unwrap();
    s.begin(&g, (0, 0), (7, 4)).unwrap();
    s.step(&g, steps).unwrap();
    s.save_state(&g)
}

fn theta_state(steps: u64) -> Vec<u8> {
    let g = grid();
    let mut s = ThetaStar::new(GridOptions::default()).unwrap();
    s.begin(&g, (0, 4), (7, 0)).unwrap();
    s.step(&g, steps).unwrap();
    s.save_state(&g)
}

fn graph_astar_state(steps: u64) -> Vec<u8> {
    let (_, c) = graph();
    let mut s = GraphAStar::new(GraphOptions::default()).unwrap();
    s.begin(&c, 0, 11).unwrap();
    s.step(&c, steps).unwrap();
    s.save_state(&c)
}

fn grid_search_state(alg: GridAlgorithm, weighted: bool, steps: u64) -> (Grid, Vec<u8>) {
    let mut g = grid();
    if !weighted {
        g.set_area_cost(2, 1.0).unwrap();
    }
    let mut s = GridSearch::new(alg, GridOptions::default()).unwrap();
    s.begin(&g, (0, 0), (7, 4)).unwrap();
    s.step(&g, steps).unwrap();
    let b = s.save_state(&g);
    (g, b)
}

fn algorithm(i: u8) -> GridAlgorithm {
    match i % 3 {
        0 => GridAlgorithm::AStar,
        1 => GridAlgorithm::JumpPoint,
        _ => GridAlgorithm::JumpPointPlus,
    }
}

fn replanner(dstar: bool) -> GridReplanner {
    let alg = if dstar {
        ReplanAlgorithm::DStarLite
    } else {
        ReplanAlgorithm::LpaStar
    };
    GridReplanner::new(&grid(), alg, GridOptions::default(), (0, 0), (7, 4)).unwrap()
}

fn hex() -> HexGrid {
    let mut h = HexGrid::new(6, 5, HexLayout::EvenRowsRight).unwrap();
    h.grid_mut().set_blocked(2, 2, true).unwrap();
    h.grid_mut().set_blocked(3, 1, true).unwrap();
    h
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn mutated_replanner_states_never_panic_or_hang(
        dstar in any::<bool>(), steps in 0u64..40, edit in any::<bool>(),
        ms in proptest::collection::vec(mutation(), 1..4),
    ) {
        let mut g = grid();
        let mut r = replanner(dstar);
        r.step(&g, steps).unwrap();
        if edit {
            g.set_blocked(4, 0, true).unwrap();
            r.step(&g, 0).unwrap();
            g.set_blocked(6, 3, true).unwrap();
        }
        let bytes = mutate(r.save_state(), &ms);
        let mut t = replanner(dstar);
        let before = t.save_state();
        match t.restore_state(&g, &bytes) {
            Ok(()) => {
                let _ = t.step(&g, 1000);
                let _ = t.result(&g);
                let _ = t.save_state();
            }
            Err(_) => prop_assert_eq!(t.save_state(), before),
        }
    }

    #[test]
    fn mutated_flow_field_states_never_panic_or_hang(
        steps in 0u64..40, edit in any::<bool>(), ms in proptest::collection::vec(mutation(), 1..4),
    ) {
        let mut g = grid();
        let goals = [(7, 4), (0, 2)];
        let mut f = GridFlowField::new(&g, &goals, GridOptions::default()).unwrap();
        f.step(&g, steps).unwrap();
        if edit {
            f.compute(&g).unwrap();
            g.set_blocked(4, 0, true).unwrap();
            f.step(&g, steps / 4).unwrap();
        }
        let bytes = mutate(f.save_state(&g), &ms);
        let mut t = GridFlowField::new(&g, &goals, GridOptions::default()).unwrap();
        if t.restore_state(&g, &bytes).is_ok() {
            let _ = t.step(&g, 1000);
            for y in 0..5 {
                for x in 0..8 {
                    let _ = t.path_from(x, y);
                    let _ = t.next_step(x, y);
                }
            }
            let _ = t.save_state(&g);
        }
    }

    #[test]
    fn mutated_voxel_states_never_panic(ms in proptest::collection::vec(mutation(), 1..4)) {
        let mut v = VoxelGrid::new(18, 3, 2, 0).unwrap();
        v.set_area(17, 2, 1, 255).unwrap();
        let bytes = mutate(v.save_state(), &ms);
        let _ = VoxelGrid::from_state(&bytes);
        let before = v.save_state();
        if v.restore_state(&bytes).is_err() {
            prop_assert_eq!(v.save_state(), before);
        }
    }

    #[test]
    fn mutated_hex_states_never_panic_or_hang(
        steps in 0u64..20, ms in proptest::collection::vec(mutation(), 1..4), which in any::<bool>(),
    ) {
        let h = hex();
        if which {
            let bytes = mutate(h.save_state(), &ms);
            let _ = HexGrid::from_state(&bytes);
            let mut h2 = hex();
            let before = h2.save_state();
            if h2.restore_state(&bytes).is_err() {
                prop_assert_eq!(h2.save_state(), before);
            }
        } else {
            let mut r = HexReplanner::new(&h, ReplanAlgorithm::DStarLite, GridOptions::default(), (0, 0), (5, 4)).unwrap();
            r.step(&h, steps).unwrap();
            let bytes = mutate(r.save_state(&h), &ms);
            let mut t = HexReplanner::new(&h, ReplanAlgorithm::DStarLite, GridOptions::default(), (0, 0), (5, 4)).unwrap();
            let before = t.save_state(&h);
            match t.restore_state(&h, &bytes) {
                Ok(()) => {
                    let _ = t.step(&h, 1000);
                    let _ = t.result(&h);
                }
                Err(_) => prop_assert_eq!(t.save_state(&h), before),
            }
        }
    }

    #[test]
    fn mutated_grid_search_states_never_panic_or_hang(
        alg in any::<u8>(), weighted in any::<bool>(), steps in 0u64..20,
        ms in proptest::collection::vec(mutation(), 1..4),
    ) {
        let alg = algorithm(alg);
        let (g, bytes) = grid_search_state(alg, weighted, steps);
        let bytes = mutate(bytes, &ms);
        let mut s = GridSearch::new(alg, GridOptions::default()).unwrap();
        if s.restore_state(&g, &bytes).is_ok() {
            let _ = s.step(&g, 1000);
            let _ = s.result();
            let _ = s.save_state(&g);
        }
    }

    #[test]
    fn mutated_grid_states_never_panic(ms in proptest::collection::vec(mutation(), 1..4)) {
        let bytes = mutate(grid().save_state(), &ms);
        let _ = Grid::from_state(&bytes);
        let mut g = grid();
        let before = g.save_state();
        if g.restore_state(&bytes).is_err() {
            prop_assert_eq!(g.save_state(), before);
        }
    }

    #[test]
    fn mutated_graph_states_never_panic(ms in proptest::collection::vec(mutation(), 1..4)) {
        let (mut g, _) = graph();
        let bytes = mutate(g.save_state(), &ms);
        let before = g.save_state();
        match g.restore_state(&bytes) {
            Ok(()) => { let _ = g.compile(); }
            Err(_) => prop_assert_eq!(g.save_state(), before),
        }
    }

    #[test]
    fn mutated_astar_states_never_panic_or_hang(steps in 0u64..30, ms in proptest::collection::vec(mutation(), 1..4)) {
        let g = grid();
        let bytes = mutate(astar_state(steps), &ms);
        let mut s = GridAStar::new(GridOptions { record_expansions: true, ..GridOptions::default() }).unwrap();
        if s.restore_state(&g, &bytes).is_ok() {
            let _ = s.step(&g, 1000);
            let _ = s.result();
            let _ = s.save_state(&g);
        }
    }

    #[test]
    fn mutated_theta_states_never_panic_or_hang(steps in 0u64..30, ms in proptest::collection::vec(mutation(), 1..4)) {
        let g = grid();
        let bytes = mutate(theta_state(steps), &ms);
        let mut s = ThetaStar::new(GridOptions::default()).unwrap();
        if s.restore_state(&g, &bytes).is_ok() {
            let _ = s.step(&g, 1000);
            let _ = s.result();
        }
    }

    #[test]
    fn mutated_graph_astar_states_never_panic_or_hang(steps in 0u64..12, ms in proptest::collection::vec(mutation(), 1..4)) {
        let (_, c) = graph();
        let bytes = mutate(graph_astar_state(steps), &ms);
        let mut s = GraphAStar::new(GraphOptions::default()).unwrap();
        if s.restore_state(&c, &bytes).is_ok() {
            let _ = s.step(&c, 1000);
            let _ = s.result();
        }
    }

    #[test]
    fn mutated_jump_search_states_never_panic_or_hang(steps in 0u64..30, ms in proptest::collection::vec(mutation(), 1..4)) {
        let (g, opts) = jump_grid();
        let mut s = JumpSearch::new(opts.clone()).unwrap();
        s.begin(&g, (0, 0), (7, 4)).unwrap();
        s.step(&g, steps).unwrap();
        let bytes = mutate(s.save_state(&g), &ms);
        let mut r = JumpSearch::new(opts).unwrap();
        if r.restore_state(&g, &bytes).is_ok() {
            let _ = r.step(&g, 1000);
            let _ = r.result();
            let _ = r.save_state(&g);
        }
    }

    #[test]
    fn mutated_grid_search_generic_jump_states_never_panic_or_hang(steps in 0u64..30, ms in proptest::collection::vec(mutation(), 1..4)) {
        let (g, opts) = jump_grid();
        let mut s = GridSearch::new(GridAlgorithm::JumpPoint, opts.clone()).unwrap();
        s.begin(&g, (0, 0), (7, 4)).unwrap();
        s.step(&g, steps).unwrap();
        let bytes = mutate(s.save_state(&g), &ms);
        let mut r = GridSearch::new(GridAlgorithm::JumpPoint, opts).unwrap();
        if r.restore_state(&g, &bytes).is_ok() {
            let _ = r.step(&g, 1000);
            let _ = r.result();
            let _ = r.save_state(&g);
        }
    }
}
