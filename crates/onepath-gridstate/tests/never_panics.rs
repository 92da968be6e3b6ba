//! No public entry point panics on any input: arbitrary coordinates, sizes, weights and
//! call orders return a value or a typed error.

mod common;

use common::cases;
use onepath_gridstate::{
    BidirectionalAStar, Graph, GraphAStar, GraphOptions, Grid, GridAlgorithm, GridBidirectional,
    GridFlowField, GridOptions, GridReplanner, GridSearch, HexAStar, HexGrid, HexLayout, HpaStar,
    ReplanAlgorithm, SlicedSearch, ThetaStar, VoxelAStar, VoxelGrid, VoxelOptions,
};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(300)))]

    #[test]
    fn arbitrary_calls_never_panic(w in 0u32..12, h in 0u32..12, xs in prop::collection::vec(0u32..16, 8),
                                   weight in prop::num::f64::ANY, budget in 0u64..4, area in any::<u8>()) {
        let opts = GridOptions { heuristic_weight: weight, iteration_budget: budget, ..GridOptions::default() };
        let p = |i: usize| (xs[i], xs[(i + 1) % 8]);
        if let Ok(mut g) = Grid::new(w, h) {
            let _ = g.set_area(xs[0], xs[1], area);
            let _ = g.set_area_cost(area, weight);
            for alg in [GridAlgorithm::AStar, GridAlgorithm::JumpPoint, GridAlgorithm::JumpPointPlus] {
                if let Ok(mut s) = GridSearch::new(alg, opts.clone()) {
                    let _ = s.step(&g, 1);
                    let _ = s.result();
                    let _ = s.find_path(&g, p(0), p(2));
                    let _ = s.step(&g, 3);
                }
            }
            if let Ok(mut b) = GridBidirectional::new(opts.clone()) { let _ = b.find_path(&g, p(1), p(3)); }
            if let Ok(mut t) = ThetaStar::new(opts.clone()) { let _ = t.find_path(&g, p(2), p(4)); }
            if let Ok(mut r) = GridReplanner::new(&g, ReplanAlgorithm::DStarLite, opts.clone(), p(0), p(5)) {
                let _ = r.replan(&g);
                let _ = r.set_start(&g, p(6));
                let _ = g.set_area(xs[3], xs[4], area);
                let _ = r.replan(&g);
            }
            if let Ok(mut f) = GridFlowField::new(&g, &[p(1), p(2)], opts.clone()) {
                let _ = f.compute(&g);
                let _ = f.path_from(xs[5], xs[6]);
                let _ = f.next_step(xs[7], xs[0]);
            }
            if let Ok(mut hp) = HpaStar::new(&g, xs[2], opts.clone()) {
                let _ = hp.step(&g, 1);
                let _ = hp.find_path(&g, p(3), p(4));
            }
            let other = Grid::new(w.max(1) + 1, h.max(1)).unwrap();
            if let Ok(mut s) = GridSearch::new(GridAlgorithm::AStar, opts.clone()) {
                if s.begin(&g, p(0), p(1)).is_ok() {
                    let _ = s.step(&other, 5);
                }
            }
        }
        if let Ok(mut hex) = HexGrid::new(w, h, HexLayout::EvenRowsRight) {
            let _ = hex.grid_mut().set_area(xs[0], xs[1], area);
            if let Ok(mut a) = HexAStar::new(opts.clone()) { let _ = a.find_path(&hex, p(0), p(1)); }
        }
        if let Ok(v) = VoxelGrid::new(w, h, xs[0], area) {
            let vo = VoxelOptions { heuristic_weight: weight, iteration_budget: budget, ..VoxelOptions::default() };
            if let Ok(mut a) = VoxelAStar::new(vo) { let _ = a.find_path(&v, (xs[1], xs[2], xs[3]), (xs[4], xs[5], xs[6])); }
        }
        if let Ok(mut gr) = Graph::new(w) {
            let _ = gr.add_edge(xs[0], xs[1], weight);
            let _ = gr.add_edge(xs[2], xs[3], 1.0);
            let csr = gr.compile();
            if let Ok(mut a) = GraphAStar::new(GraphOptions { heuristic_weight: weight, ..GraphOptions::default() }) {
                let _ = a.find_path(&csr, xs[4], xs[5]);
            }
            let options = GraphOptions { iteration_budget: budget, record_expansions: true, ..GraphOptions::default() };
            let _ = BidirectionalAStar::new(options).find_path(&csr, xs[6], xs[7]);
        }
    }
}
