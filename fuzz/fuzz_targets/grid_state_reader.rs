//! Fuzzes the OPGS readers (`onepath-gridstate`): the first input byte picks an object kind
//! (1 to 12), the rest is the state. Any bytes give a typed error or an accepted state, never a panic;
//! a failed restore of a grid, hex grid, voxel grid, graph or replanner leaves the object
//! exactly as it was; an accepted state is stepped with a bounded budget (never a hang)
//! and saved again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onepath_gridstate::{
    Graph, GraphAStar, GraphOptions, Grid, GridAStar, GridAlgorithm, GridFlowField, GridOptions,
    GridReplanner, GridSearch, HexGrid, HexLayout, HexReplanner, JumpSearch, ReplanAlgorithm,
    SlicedSearch, ThetaStar, VoxelGrid,
};

fn grid() -> Grid {
    let mut g = Grid::from_ascii(&["........", ".###.2..", "...#.2..", ".#...##.", ".#.1...."])
        .expect("valid rows");
    let _ = g.set_area_cost(2, 3.0);
    g
}

fn unit_grid() -> Grid {
    Grid::from_ascii(&["........", ".###....", "...#....", ".#...##.", ".#......"])
        .expect("valid rows")
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    match sel % 12 {
        0 => {
            let _ = Grid::from_state(bytes);
            let mut g = grid();
            let before = g.save_state();
            if g.restore_state(bytes).is_err() {
                assert_eq!(g.save_state(), before);
            } else {
                assert_eq!(Grid::from_state(&g.save_state()).map(|x| x.save_state()).ok(), Some(g.save_state()));
            }
        }
        1 => {
            let _ = HexGrid::from_state(bytes);
            let mut h = HexGrid::new(8, 5, HexLayout::OddRowsRight).expect("size");
            let before = h.save_state();
            if h.restore_state(bytes).is_err() {
                assert_eq!(h.save_state(), before);
            }
        }
        2 => {
            let _ = VoxelGrid::from_state(bytes);
            let mut v = VoxelGrid::new(18, 3, 2, 0).expect("size");
            let before = v.save_state();
            if v.restore_state(bytes).is_err() {
                assert_eq!(v.save_state(), before);
            }
        }
        3 => {
            let mut g = Graph::new(12).expect("size");
            let before = g.save_state();
            match g.restore_state(bytes) {
                Ok(()) => {
                    if g.node_count() <= 4096 {
                        let _ = g.compile();
                    }
                }
                Err(_) => assert_eq!(g.save_state(), before),
            }
        }
        4 | 5 => {
            let g = grid();
            let alg = if sel % 12 == 4 { ReplanAlgorithm::LpaStar } else { ReplanAlgorithm::DStarLite };
            if sel % 12 == 4 {
                let Ok(mut r) = GridReplanner::new(&g, alg, GridOptions::default(), (0, 0), (7, 4)) else {
                    return;
                };
                let before = r.save_state();
                match r.restore_state(&g, bytes) {
                    Ok(()) => {
                        let _ = r.step(&g, 10_000);
                        let _ = r.result(&g);
                        let _ = r.save_state();
                    }
                    Err(_) => assert_eq!(r.save_state(), before),
                }
            } else {
                let h = HexGrid::new(8, 5, HexLayout::EvenRowsRight).expect("size");
                let Ok(mut r) = HexReplanner::new(&h, alg, GridOptions::default(), (0, 0), (7, 4)) else {
                    return;
                };
                let before = r.save_state(&h);
                match r.restore_state(&h, bytes) {
                    Ok(()) => {
                        let _ = r.step(&h, 10_000);
                        let _ = r.result(&h);
                    }
                    Err(_) => assert_eq!(r.save_state(&h), before),
                }
            }
        }
        6 => {
            let g = grid();
            let Ok(mut f) = GridFlowField::new(&g, &[(7, 4), (0, 2)], GridOptions::default()) else {
                return;
            };
            if f.restore_state(&g, bytes).is_ok() {
                let _ = f.step(&g, 10_000);
                for y in 0..5 {
                    for x in 0..8 {
                        let _ = f.path_from(x, y);
                    }
                }
                let _ = f.save_state(&g);
            }
        }
        7 => {
            let g = grid();
            let Ok(mut s) = GridAStar::new(GridOptions { record_expansions: true, ..GridOptions::default() }) else {
                return;
            };
            if s.restore_state(&g, bytes).is_ok() {
                let _ = s.step(&g, 10_000);
                let _ = s.result();
                let _ = s.save_state(&g);
            }
        }
        8 => {
            // Kind 9: the generic jump point search needs uniform area costs.
            let g = unit_grid();
            let Ok(mut s) = JumpSearch::new(GridOptions::default()) else {
                return;
            };
            let before = s.save_state(&g);
            match s.restore_state(&g, bytes) {
                Ok(()) => {
                    let _ = s.step(&g, 10_000);
                    let _ = s.result();
                    let _ = s.save_state(&g);
                }
                Err(_) => assert_eq!(s.save_state(&g), before),
            }
        }
        9 => {
            let g = grid();
            let Ok(mut s) = ThetaStar::new(GridOptions::default()) else {
                return;
            };
            if s.restore_state(&g, bytes).is_ok() {
                let _ = s.step(&g, 10_000);
                let _ = s.result();
            }
        }
        10 => {
            let mut graph = Graph::new(12).expect("size");
            for i in 0..11 {
                let _ = graph.add_undirected(i, i + 1, 1.0 + f64::from(i % 3));
            }
            let csr = graph.compile();
            let Ok(mut s) = GraphAStar::new(GraphOptions::default()) else {
                return;
            };
            if s.restore_state(&csr, bytes).is_ok() {
                let _ = s.step(&csr, 10_000);
                let _ = s.result();
            }
        }
        _ => {
            // GridSearch: the second byte picks the algorithm and the grid (unit costs for
            // modes 1 and 3, weighted for mode 2).
            let Some((&pick, rest)) = bytes.split_first() else {
                return;
            };
            let alg = match pick % 3 {
                0 => GridAlgorithm::AStar,
                1 => GridAlgorithm::JumpPoint,
                _ => GridAlgorithm::JumpPointPlus,
            };
            let g = if pick & 4 != 0 { grid() } else { unit_grid() };
            let Ok(mut s) = GridSearch::new(alg, GridOptions::default()) else {
                return;
            };
            if s.restore_state(&g, rest).is_ok() {
                let _ = s.step(&g, 10_000);
                let _ = s.result();
                let _ = s.save_state(&g);
            }
        }
    }
});
