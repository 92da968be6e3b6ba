//! Graph engines (A* with zero, Euclidean and landmark estimates; bidirectional A*) equal a
//! plain Dijkstra; sliced equals one-shot; dead edges are not used.

mod common;

use common::{cases, close, dijkstra, xorshift};
use onepath_gridstate::{
    BidirectionalAStar, CsrGraph, EdgeId, Graph, GraphAStar, GraphOptions, GridError, GridPath,
    GridPathStatus, LandmarkGuidedGraph, LandmarkTable, PointGraph, SearchGraph, SearchStatus,
    SlicedSearch,
};
use proptest::prelude::*;

#[derive(Debug)]
struct Case {
    graph: Graph,
    points: Vec<[f64; 3]>,
    start: u32,
    goal: u32,
}

fn arb_case() -> impl Strategy<Value = Case> {
    (1u32..40, 0usize..160, any::<u64>()).prop_map(|(n, m, seed)| {
        let mut next = xorshift(seed | 1);
        let points: Vec<[f64; 3]> = (0..n)
            .map(|_| {
                [
                    (next() % 100) as f64,
                    (next() % 100) as f64,
                    (next() % 3) as f64,
                ]
            })
            .collect();
        let mut graph = Graph::new(n).unwrap();
        let mut ids = Vec::new();
        for _ in 0..m {
            let a = (next() % u64::from(n)) as u32;
            let b = (next() % u64::from(n)) as u32;
            let d = {
                let (p, q) = (points[a as usize], points[b as usize]);
                ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
            };
            // At least the straight-line distance, so the Euclidean estimate is admissible.
            let w = d * (1.0 + (next() % 4) as f64 * 0.25) + (next() % 3) as f64;
            ids.push(graph.add_edge(a, b, w).unwrap());
        }
        // Kill a few edges: removal marks them dead.
        for (k, id) in ids.iter().enumerate() {
            if k % 7 == 3 {
                graph.remove_edge(*id).unwrap();
            }
        }
        let start = (next() % u64::from(n)) as u32;
        let goal = (next() % u64::from(n)) as u32;
        Case {
            graph,
            points,
            start,
            goal,
        }
    })
}

fn reference(g: &Graph, s: u32, t: u32) -> f64 {
    let n = g.node_count() as usize;
    let live: Vec<(u32, u32, f64)> = (0..g.edge_count())
        .filter_map(|i| g.edge(EdgeId(i)))
        .filter(|e| e.alive)
        .map(|e| (e.from, e.to, e.weight))
        .collect();
    dijkstra(n, s as usize, |u| {
        live.iter()
            .filter(|e| e.0 as usize == u)
            .map(|e| (e.1 as usize, e.2))
            .collect()
    })[t as usize]
}

fn check<G: SearchGraph>(
    g: &G,
    graph: &Graph,
    want: f64,
    r: &GridPath,
    what: &str,
) -> Result<(), TestCaseError> {
    if want.is_finite() {
        prop_assert_eq!(r.status, GridPathStatus::Found, "{}", what);
        prop_assert!(
            close(r.cost, want),
            "{}: cost {} vs dijkstra {}",
            what,
            r.cost,
            want
        );
        // The path is a chain of live edges whose weights add up to the cost.
        let mut sum = 0.0;
        let mut buf = Vec::new();
        for p in r.nodes.windows(2) {
            buf.clear();
            g.successors(p[0], &mut buf);
            let w = buf
                .iter()
                .filter(|e| e.0 == p[1])
                .map(|e| e.1)
                .fold(f64::INFINITY, f64::min);
            prop_assert!(w.is_finite(), "{}: no edge {} -> {}", what, p[0], p[1]);
            sum += w;
        }
        prop_assert!(close(sum, want), "{}: walked {} vs {}", what, sum, want);
        let _ = graph;
    } else {
        prop_assert_eq!(r.status, GridPathStatus::NoPath, "{}", what);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(200)))]

    #[test]
    fn graph_engines_equal_dijkstra(c in arb_case()) {
        let want = reference(&c.graph, c.start, c.goal);
        let csr: CsrGraph = c.graph.compile();
        let pg = PointGraph::new(&c.graph, &c.points).unwrap();
        let lm = LandmarkTable::select(&csr, 3).unwrap();
        let lg = LandmarkGuidedGraph { csr: &csr, landmarks: &lm };
        let mut a = GraphAStar::new(GraphOptions::default()).unwrap();
        check(&csr, &c.graph, want, &a.find_path(&csr, c.start, c.goal).unwrap(), "zero estimate")?;
        check(&pg, &c.graph, want, &a.find_path(&pg, c.start, c.goal).unwrap(), "euclidean")?;
        check(&lg, &c.graph, want, &a.find_path(&lg, c.start, c.goal).unwrap(), "landmarks")?;
        let mut b = BidirectionalAStar::new(GraphOptions::default());
        check(&csr, &c.graph, want, &b.find_path(&csr, c.start, c.goal).unwrap(), "bidirectional")?;
        check(&pg, &c.graph, want, &b.find_path(&pg, c.start, c.goal).unwrap(), "bidirectional euclidean")?;
        check(&lg, &c.graph, want, &b.find_path(&lg, c.start, c.goal).unwrap(), "bidirectional landmarks")?;
    }

    #[test]
    fn graph_sliced_equals_one_shot(c in arb_case(), budget in 1u64..5) {
        let pg = PointGraph::new(&c.graph, &c.points).unwrap();
        let opts = GraphOptions { record_expansions: true, ..GraphOptions::default() };
        let want = GraphAStar::new(opts).unwrap().find_path(&pg, c.start, c.goal).unwrap();
        let mut s = GraphAStar::new(opts).unwrap();
        s.begin(&pg, c.start, c.goal).unwrap();
        while s.step(&pg, budget).unwrap() == SearchStatus::InProgress {}
        let got = s.result().unwrap();
        prop_assert_eq!(got.expansions.as_ref().map(Vec::len), Some(got.expanded as usize));
        prop_assert_eq!(got, want);

        let want = BidirectionalAStar::new(opts).find_path(&pg, c.start, c.goal).unwrap();
        let mut b = BidirectionalAStar::new(opts);
        prop_assert_eq!(b.result(), Err(GridError::NotBegun));
        b.begin(&pg, c.start, c.goal).unwrap();
        while b.step(&pg, budget).unwrap() == SearchStatus::InProgress {}
        prop_assert_eq!(b.result().unwrap(), want);
    }
}

#[test]
fn removed_edge_is_not_used() {
    let mut g = Graph::new(3).unwrap();
    let direct = g.add_edge(0, 2, 1.0).unwrap();
    g.add_edge(0, 1, 1.0).unwrap();
    g.add_edge(1, 2, 1.0).unwrap();
    let mut a = GraphAStar::new(GraphOptions::default()).unwrap();
    assert_eq!(a.find_path(&g.compile(), 0, 2).unwrap().nodes, vec![0, 2]);
    assert!(g.remove_edge(direct).unwrap());
    assert!(!g.remove_edge(direct).unwrap());
    assert_eq!(g.edge(direct).map(|e| e.alive), Some(false));
    let r = a.find_path(&g.compile(), 0, 2).unwrap();
    assert_eq!((r.nodes, r.cost), (vec![0, 1, 2], 2.0));
}

#[test]
fn graph_misuse_is_a_typed_error() {
    let mut g = Graph::new(2).unwrap();
    assert_eq!(
        g.add_edge(0, 2, 1.0).unwrap_err(),
        GridError::OutOfRange {
            what: "to",
            value: 2,
            min: 0,
            max: 1
        }
    );
    assert!(matches!(
        g.add_edge(0, 1, f64::NAN),
        Err(GridError::Invalid {
            what: "edge weight",
            ..
        })
    ));
    assert!(matches!(
        g.add_edge(0, 1, -1.0),
        Err(GridError::Invalid {
            what: "edge weight",
            ..
        })
    ));
    assert!(matches!(
        Graph::new((1 << 26) + 1),
        Err(GridError::OutOfRange {
            what: "node count",
            ..
        })
    ));
    let mut a = GraphAStar::new(GraphOptions::default()).unwrap();
    assert_eq!(
        a.find_path(&g.compile(), 0, 5).unwrap_err(),
        GridError::OutOfRange {
            what: "goal",
            value: 5,
            min: 0,
            max: 1
        }
    );
    g.add_edge(0, 1, 0.5).unwrap();
    assert!(matches!(
        PointGraph::new(&g, &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]),
        Err(GridError::Invalid {
            what: "edge weight",
            ..
        })
    ));
}
