//! Path search: the A* cost equals a plain Dijkstra over the same polygon graph, the sliced
//! search equals the one-shot search for every budget, budgets and partial results, and
//! the straight path stays on the mesh and is no longer than the corridor's centre line.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};
use std::sync::Arc;

use onepath_format::PolyRef;
use onepath_mesh::query::{
    generated_grid_mesh, CompiledGraph, NavMeshQuery, PathEnds, PathGraph, PathStatus, QueryError,
    QueryFilter, StraightPathFlags, StraightPathOptions, Vec3, GENERATED_SWAMP_AREA,
};
use onepath_mesh::TiledNavMesh;
use proptest::prelude::*;

mod common;
use common::{bridge_case, case, cases, close, in_cell, triangle_case, walkable, Case};

#[derive(PartialEq)]
struct Entry(f64, PolyRef);
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
    }
}

/// A plain Dijkstra over the polygon graph, with the same edge cost function as the A*.
fn dijkstra(graph: &PathGraph<'_>) -> Option<f64> {
    let ends = *graph.ends();
    let mut best: BTreeMap<PolyRef, f64> = BTreeMap::new();
    let mut heap = BinaryHeap::new();
    best.insert(ends.start_ref, 0.0);
    heap.push(Entry(0.0, ends.start_ref));
    while let Some(Entry(g, r)) = heap.pop() {
        if best.get(&r).is_some_and(|&b| g > b) {
            continue;
        }
        if r == ends.end_ref {
            return Some(g);
        }
        let pos = graph.node_pos(r).unwrap();
        graph
            .for_each_edge(r, pos, |nb, _, cost| {
                let ng = g + cost;
                if best.get(&nb.target).map_or(true, |&b| ng < b) {
                    best.insert(nb.target, ng);
                    heap.push(Entry(ng, nb.target));
                }
            })
            .unwrap();
    }
    None
}

/// The cost of `path` edge by edge in the graph (None if consecutive polygons are not
/// neighbours).
fn path_cost(graph: &PathGraph<'_>, path: &[PolyRef]) -> Option<f64> {
    let mut g = 0.0;
    for w in path.windows(2) {
        let pos = graph.node_pos(w[0]).unwrap();
        let mut c = None;
        graph
            .for_each_edge(w[0], pos, |nb, _, cost| {
                if nb.target == w[1] {
                    c = Some(cost);
                }
            })
            .unwrap();
        g += c?;
    }
    Some(g)
}

fn dist(a: Vec3, b: Vec3) -> f64 {
    ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2) + (b[2] - a[2]).powi(2)).sqrt()
}

fn run(
    q: &mut NavMeshQuery,
    c: &Case,
    budget: u64,
    path: &mut Vec<PolyRef>,
) -> onepath_mesh::query::PathResult {
    q.find_path(
        &c.mesh,
        c.ends.start_ref,
        c.ends.end_ref,
        c.ends.start_pos,
        c.ends.end_pos,
        &c.filter,
        budget,
        path,
    )
    .unwrap()
}

/// Begins the sliced search of `c` on `q`.
fn begin(q: &mut NavMeshQuery, c: &Case) {
    let e = &c.ends;
    q.begin_path(
        &c.mesh,
        e.start_ref,
        e.end_ref,
        e.start_pos,
        e.end_pos,
        &c.filter,
    )
    .unwrap();
}

/// A search of `c` sliced `step` iterations at a time on `s` equals the one-shot search on `q`
/// (status, cost bits, iterations, path), and a one-shot search capped at N equals begin +
/// step(N) + finish for every N.
fn sliced_equals_one_shot(
    mut q: NavMeshQuery,
    mut s: NavMeshQuery,
    c: &Case,
    step: u64,
) -> Result<(), TestCaseError> {
    let mut one = Vec::new();
    let r = run(&mut q, c, u64::MAX, &mut one);
    // Sliced, `step` iterations at a time, on another query object.
    begin(&mut s, c);
    let mut total = 0;
    loop {
        let (st, done) = s.step_path(&c.mesh, step).unwrap();
        total += done;
        if st != PathStatus::InProgress {
            break;
        }
        prop_assert_eq!(done, step);
    }
    let mut sliced = Vec::new();
    let rs = s.finish_path(&mut sliced).unwrap();
    prop_assert_eq!(rs.status, r.status);
    prop_assert_eq!(rs.cost.to_bits(), r.cost.to_bits());
    prop_assert_eq!(rs.iterations, r.iterations);
    prop_assert_eq!(total, r.iterations);
    prop_assert_eq!(&sliced, &one);
    // A one-shot search capped at N equals begin + step(N) + finish, for every N.
    for n in 0..=r.iterations + 1 {
        let mut capped = Vec::new();
        let rc = run(&mut q, c, n, &mut capped);
        begin(&mut s, c);
        s.step_path(&c.mesh, n).unwrap();
        let mut manual = Vec::new();
        let rm = s.finish_path(&mut manual).unwrap();
        prop_assert_eq!(rc.status, rm.status);
        prop_assert_eq!(rc.cost.to_bits(), rm.cost.to_bits());
        prop_assert_eq!(&capped, &manual);
        if n < r.iterations {
            prop_assert_eq!(rc.status, PathStatus::BudgetExhausted);
            prop_assert_eq!(rc.iterations, n);
        } else {
            prop_assert_eq!(rc.status, r.status);
            prop_assert_eq!(&capped, &one);
        }
    }
    Ok(())
}

/// The search of `c` on `q` is complete with Dijkstra's cost (up to rounding) and a path from
/// the start to the goal whose edges sum to it, or partial (a path of neighbours from the
/// start) when Dijkstra finds no path.
fn cost_is_dijkstras(q: &mut NavMeshQuery, c: &Case) -> Result<(), TestCaseError> {
    let mut path = Vec::new();
    let r = run(q, c, u64::MAX, &mut path);
    let graph = PathGraph::new(&c.mesh, &c.filter, c.ends).unwrap();
    prop_assert_eq!(path[0], c.ends.start_ref);
    match dijkstra(&graph) {
        Some(best) => {
            prop_assert_eq!(r.status, PathStatus::Complete);
            prop_assert!(close(r.cost, best), "A* {} vs Dijkstra {}", r.cost, best);
            prop_assert_eq!(*path.last().unwrap(), c.ends.end_ref);
            let walked = path_cost(&graph, &path).expect("consecutive polygons are neighbours");
            prop_assert!(close(walked, r.cost));
        }
        None => {
            prop_assert_eq!(r.status, PathStatus::Partial);
            prop_assert!(path_cost(&graph, &path).is_some());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn path_cost_equals_a_plain_dijkstra_over_the_same_polygon_graph(
        tx in 1u16..=3, tz in 1u16..=3, cells in prop::sample::select(vec![2u16, 4]),
        seed in any::<u64>(), swamp in 0.25f64..6.0,
        pick in (any::<usize>(), any::<usize>()),
        uv in prop::array::uniform4(0.05f64..0.95),
    ) {
        let c = case((tx, tz), cells, seed, swamp, pick, uv);
        cost_is_dijkstras(&mut NavMeshQuery::new(), &c)?;
    }

    #[test]
    fn a_sliced_search_equals_the_one_shot_search_for_every_budget(
        seed in any::<u64>(), pick in (any::<usize>(), any::<usize>()),
        uv in prop::array::uniform4(0.05f64..0.95), step in 1u64..7,
    ) {
        let c = case((2, 2), 4, seed, 3.0, pick, uv);
        sliced_equals_one_shot(NavMeshQuery::new(), NavMeshQuery::new(), &c, step)?;
    }

    #[test]
    fn straight_paths_never_leave_the_mesh_and_are_no_longer_than_the_centre_line(
        tx in 1u16..=3, tz in 1u16..=2, seed in any::<u64>(),
        pick in (any::<usize>(), any::<usize>()),
        uv in prop::array::uniform4(0.05f64..0.95),
        crossings in any::<bool>(),
    ) {
        let c = case((tx, tz), 4, seed, 2.0, pick, uv);
        let mut q = NavMeshQuery::new();
        let mut path = Vec::new();
        let r = run(&mut q, &c, u64::MAX, &mut path);
        prop_assume!(r.status == PathStatus::Complete);
        let options = StraightPathOptions { all_crossings: crossings, area_crossings: false };
        let mut pts = Vec::new();
        q.find_straight_path(&c.mesh, c.ends.start_pos, c.ends.end_pos, &path, &c.filter, options, &mut pts).unwrap();
        prop_assert!(pts[0].flags.contains(StraightPathFlags::START));
        prop_assert!(pts.last().unwrap().flags.contains(StraightPathFlags::END));
        prop_assert_eq!(pts[0].pos, c.ends.start_pos);
        prop_assert_eq!(pts.last().unwrap().pos, c.ends.end_pos);
        let mut visited = Vec::new();
        for w in pts.windows(2) {
            let hit = q.raycast(&c.mesh, w[0].poly, w[0].pos, w[1].pos, &c.filter, &mut visited).unwrap();
            prop_assert!(hit.reached_end(), "segment {:?} -> {:?} hits a wall at t = {}", w[0].pos, w[1].pos, hit.t);
        }
        // The centre line: start, the midpoint of every crossing, end.
        let graph = PathGraph::new(&c.mesh, &c.filter, c.ends).unwrap();
        let mut line = vec![c.ends.start_pos];
        for w in path.windows(2) {
            let mut m = None;
            graph.for_each_edge(w[0], [0.0; 3], |nb, _, _| {
                if nb.target == w[1] { m = Some(nb.crossing.entry_point()); }
            }).unwrap();
            line.push(m.unwrap());
        }
        line.push(c.ends.end_pos);
        let len = |v: &[Vec3]| v.windows(2).map(|w| dist(w[0], w[1])).sum::<f64>();
        let straight: Vec<Vec3> = pts.iter().map(|p| p.pos).collect();
        prop_assert!(len(&straight) <= len(&line) + 1e-9, "{} > {}", len(&straight), len(&line));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn path_cost_equals_dijkstra_across_layers_and_off_mesh_links(
        a in (0.0f64..48.0, 0.0f64..32.0, 0usize..3), b in (0.0f64..48.0, 0.0f64..32.0, 0usize..3),
        costs in prop::array::uniform4(0.2f64..8.0), ladder in any::<bool>(), jump in any::<bool>(),
    ) {
        let Some(c) = bridge_case(a, b, costs, ladder, jump) else {
            return Ok(());
        };
        cost_is_dijkstras(&mut NavMeshQuery::new(), &c)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn on_jittered_triangle_meshes_the_cost_is_dijkstras_and_the_straight_path_stays_on_the_mesh(
        tiles in 1i32..=2, n in 2usize..=4, bits in prop::collection::vec(any::<u8>(), 64),
        pick in (any::<usize>(), any::<usize>()), w in prop::array::uniform3(0.05f64..0.9),
        costs in prop::array::uniform3(0.3f64..4.0),
    ) {
        let c = triangle_case(tiles, n, &bits, pick, w, costs);
        let ends = c.ends;
        let mut q = NavMeshQuery::new();
        let mut path = Vec::new();
        let r = run(&mut q, &c, u64::MAX, &mut path);
        let graph = PathGraph::new(&c.mesh, &c.filter, c.ends).unwrap();
        let best = dijkstra(&graph).expect("a connected mesh");
        prop_assert_eq!(r.status, PathStatus::Complete);
        prop_assert!(close(r.cost, best), "A* {} vs Dijkstra {}", r.cost, best);
        // String pulling on the same corridor.
        let mut pts = Vec::new();
        q.find_straight_path(&c.mesh, ends.start_pos, ends.end_pos, &path, &c.filter, StraightPathOptions::default(), &mut pts).unwrap();
        let mut visited = Vec::new();
        for s in pts.windows(2) {
            let hit = q.raycast(&c.mesh, s[0].poly, s[0].pos, s[1].pos, &c.filter, &mut visited).unwrap();
            prop_assert!(hit.reached_end(), "{:?} -> {:?} stops at t = {}", s[0], s[1], hit.t);
        }
        let mut line = vec![ends.start_pos];
        for p2 in path.windows(2) {
            let mut m = None;
            graph.for_each_edge(p2[0], [0.0; 3], |nb, _, _| {
                if nb.target == p2[1] { m = Some(nb.crossing.entry_point()); }
            }).unwrap();
            line.push(m.unwrap());
        }
        line.push(ends.end_pos);
        // Compare in X/Z: the funnel is a plane construction; heights follow the surface.
        let len2d = |v: &[Vec3]| v.windows(2).map(|w| ((w[1][0] - w[0][0]).powi(2) + (w[1][2] - w[0][2]).powi(2)).sqrt()).sum::<f64>();
        let straight: Vec<Vec3> = pts.iter().map(|p| p.pos).collect();
        prop_assert!(len2d(&straight) <= len2d(&line) + 1e-9);
    }
}

#[test]
fn a_budget_of_zero_expands_nothing_and_returns_the_start() {
    let c = case((2, 1), 4, 7, 1.0, (0, 1000), [0.5; 4]);
    let mut q = NavMeshQuery::new();
    let mut path = Vec::new();
    let r = run(&mut q, &c, 0, &mut path);
    assert_eq!(r.status, PathStatus::BudgetExhausted);
    assert_eq!((r.iterations, r.cost), (0, 0.0));
    assert_eq!(path, vec![c.ends.start_ref]);
}

#[test]
fn stepping_without_a_search_is_an_error() {
    let c = case((1, 1), 2, 1, 1.0, (0, 1), [0.5; 4]);
    let mut q = NavMeshQuery::new();
    assert_eq!(q.step_path(&c.mesh, 10), Err(QueryError::NoSlicedSearch));
    assert_eq!(
        q.finish_path(&mut Vec::new()),
        Err(QueryError::NoSlicedSearch)
    );
}

#[test]
fn a_stale_start_reference_is_rejected_by_name() {
    let c = case((1, 1), 2, 1, 1.0, (0, 1), [0.5; 4]);
    let mut q = NavMeshQuery::new();
    let forged = PolyRef::new(9, 0, 0).unwrap();
    let r = q.find_path(
        &c.mesh,
        forged,
        c.ends.end_ref,
        c.ends.start_pos,
        c.ends.end_pos,
        &c.filter,
        10,
        &mut Vec::new(),
    );
    assert_eq!(r, Err(QueryError::InvalidPolyRef(forged)));
    let far = [3.0e6, 0.0, 0.0];
    let r = q.find_path(
        &c.mesh,
        c.ends.start_ref,
        c.ends.end_ref,
        far,
        c.ends.end_pos,
        &c.filter,
        10,
        &mut Vec::new(),
    );
    assert!(matches!(r, Err(QueryError::CoordinateOutOfRange(e)) if e.what == "start_pos.x"));
}

#[test]
fn an_unreachable_goal_gives_the_path_to_the_closest_reachable_polygon() {
    // One 4 × 4 tile; wall off column i = 2 entirely (flags 0), start west, goal east.
    let g = generated_grid_mesh(1, 1, 4, 3);
    let mut mesh = g.mesh;
    let t = mesh.tile_at(0, 0, 0).unwrap().tile_ref();
    for j in 0..4 {
        mesh.set_poly_flags(t.poly(j * 4 + 2).unwrap(), 0).unwrap();
        for i in [0, 1, 3] {
            mesh.set_poly_flags(t.poly(j * 4 + i).unwrap(), 1).unwrap();
        }
    }
    let mut q = NavMeshQuery::new();
    let mut path = Vec::new();
    let filter = QueryFilter::new();
    let (s, e) = (t.poly(0).unwrap(), t.poly(15).unwrap());
    let r = q
        .find_path(
            &mesh,
            s,
            e,
            [2.0, 0.0, 2.0],
            [14.0, 0.0, 14.0],
            &filter,
            1000,
            &mut path,
        )
        .unwrap();
    assert_eq!(r.status, PathStatus::Partial);
    // The reachable polygon nearest (14, 14) is cell (1, 3): centre (6, 14).
    assert_eq!(*path.last().unwrap(), t.poly(13).unwrap());
}

#[test]
fn straight_paths_stay_on_the_mesh_across_tiles_and_layers() {
    let mesh = onepath_mesh::fixtures::bridge_and_building();
    let f = QueryFilter::new();
    let mut q = NavMeshQuery::new();
    let spots: Vec<Vec3> = vec![
        [2.0, 0.0, 2.0],
        [2.0, 0.0, 8.0],
        [20.0, 3.0, 8.0],
        [30.0, 3.0, 9.0],
        [24.0, 0.0, 13.0],
        [20.0, 0.0, 3.0],
        [46.0, 0.0, 8.0],
        [36.0, 1.5, 8.0],
        [10.0, 3.5, 24.0],
        [2.0, 0.0, 24.0],
        [28.0, 0.0, 30.0],
        [20.0, 1.7, 24.0],
    ];
    let ends: Vec<_> = spots
        .iter()
        .map(|&p| {
            q.find_nearest_poly(&mesh, p, [0.5, 0.6, 0.5], &f)
                .unwrap()
                .unwrap_or_else(|| panic!("no polygon near {p:?}"))
        })
        .collect();
    let (mut path, mut pts, mut visited) = (Vec::new(), Vec::new(), Vec::new());
    let mut checked = 0;
    for a in &ends {
        for b in &ends {
            let r = q
                .find_path(
                    &mesh, a.poly, b.poly, a.point, b.point, &f, 10_000, &mut path,
                )
                .unwrap();
            assert_eq!(r.status, PathStatus::Complete);
            q.find_straight_path(
                &mesh,
                a.point,
                b.point,
                &path,
                &f,
                StraightPathOptions::default(),
                &mut pts,
            )
            .unwrap();
            for w in pts.windows(2) {
                if w[0].flags.contains(StraightPathFlags::OFF_MESH_CONNECTION) {
                    continue;
                }
                let hit = q
                    .raycast(&mesh, w[0].poly, w[0].pos, w[1].pos, &f, &mut visited)
                    .unwrap();
                assert!(
                    hit.reached_end(),
                    "{:?} -> {:?} (path {:?} -> {:?})",
                    w[0],
                    w[1],
                    a.point,
                    b.point
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= ends.len() * ends.len());
}

#[test]
fn a_sliced_search_over_a_tile_removed_between_slices_fails_by_name() {
    let g = generated_grid_mesh(3, 1, 2, 0);
    let mut mesh = g.mesh;
    // Open every cell so the route is known to cross the middle tile.
    for slot in 0..3 {
        let t = mesh.tile_at_slot(slot).unwrap().tile_ref();
        for p in 0..4 {
            mesh.set_poly_flags(t.poly(p).unwrap(), 1).unwrap();
        }
    }
    let s = mesh.tile_at(0, 0, 0).unwrap().poly_ref(1).unwrap();
    let e = mesh.tile_at(2, 0, 0).unwrap().poly_ref(0).unwrap();
    let f = QueryFilter::new();
    let mut q = NavMeshQuery::new();
    q.begin_path(&mesh, s, e, [12.0, 0.0, 4.0], [36.0, 0.0, 4.0], &f)
        .unwrap();
    assert_eq!(q.step_path(&mesh, 1).unwrap(), (PathStatus::InProgress, 1));
    // The middle tile goes; its polygons are on the open list.
    let middle = mesh.tile_at(1, 0, 0).unwrap().tile_ref();
    mesh.remove_tile(middle).unwrap();
    let r = q.step_path(&mesh, 100);
    assert!(
        matches!(r, Err(QueryError::InvalidPolyRef(p)) if p.slot() == 1),
        "{r:?}"
    );
    assert!(!q.path_search_active());
    assert_eq!(
        q.finish_path(&mut Vec::new()),
        Err(QueryError::NoSlicedSearch)
    );
    // Removing the goal's tile fails the next step the same way.
    q.begin_path(&mesh, s, e, [12.0, 0.0, 4.0], [36.0, 0.0, 4.0], &f)
        .unwrap();
    let goal_tile = mesh.tile_at(2, 0, 0).unwrap().tile_ref();
    mesh.remove_tile(goal_tile).unwrap();
    assert_eq!(q.step_path(&mesh, 1), Err(QueryError::InvalidPolyRef(e)));
}

#[test]
fn a_partial_search_can_end_on_the_furthest_polygon_of_an_existing_corridor() {
    // One open 4 × 4 tile of 4 × 4 cells; polygon j·4 + i is cell (i, j).
    let g = generated_grid_mesh(1, 1, 4, 0);
    let mut mesh = g.mesh;
    let t = mesh.tile_at(0, 0, 0).unwrap().tile_ref();
    for p in 0..16 {
        mesh.set_poly_flags(t.poly(p).unwrap(), 1).unwrap();
    }
    let cell = |i: u32, j: u32| t.poly(j * 4 + i).unwrap();
    let f = QueryFilter::new();
    let mut q = NavMeshQuery::new();
    let (s, e) = ([2.0, 0.0, 2.0], [14.0, 0.0, 2.0]);
    // The old corridor runs along row 0; the search gets 2 expansions only.
    let existing = [cell(0, 0), cell(1, 0), cell(2, 0), cell(3, 0)];
    q.begin_path(&mesh, cell(0, 0), cell(3, 0), s, e, &f)
        .unwrap();
    q.step_path(&mesh, 2).unwrap();
    let mut path = Vec::new();
    let r = q.finish_path_partial(&existing, &mut path).unwrap();
    assert_eq!(r.status, PathStatus::BudgetExhausted);
    // After expanding (0, 0) and (1, 0), cell (2, 0) is reached (open): the furthest one.
    assert_eq!(path, vec![cell(0, 0), cell(1, 0), cell(2, 0)]);
    // With no common polygon it ends where finish_path would.
    q.begin_path(&mesh, cell(0, 0), cell(3, 0), s, e, &f)
        .unwrap();
    q.step_path(&mesh, 2).unwrap();
    let r2 = q.finish_path_partial(&[cell(3, 3)], &mut path).unwrap();
    let mut plain = Vec::new();
    q.begin_path(&mesh, cell(0, 0), cell(3, 0), s, e, &f)
        .unwrap();
    q.step_path(&mesh, 2).unwrap();
    assert_eq!(q.finish_path(&mut plain).unwrap(), r2);
    assert_eq!(path, plain);
}

/// The bridge-and-building fixture with flag 2 added to every polygon (its off-mesh links keep
/// flags 1 only, so a filter including only flag 2 refuses them), the ladder switched off
/// unless `ladder`, a filter with `costs` for areas 0, 2, 3, 1 that refuses the links when
/// `refuse_links`, and the ends at the polygons nearest to `a` and `b` (x, z, height index);
/// `None` when a point does not snap.
fn fixture_links_case(
    a: (f64, f64, usize),
    b: (f64, f64, usize),
    costs: [f64; 4],
    refuse_links: bool,
    ladder: bool,
) -> Option<Case> {
    let mut mesh = onepath_mesh::fixtures::bridge_and_building();
    if !ladder {
        let t = mesh.tile_at(1, 0, 1).unwrap().tile_ref();
        mesh.set_off_mesh_link_enabled(t, 0, false).unwrap();
    }
    let refs: Vec<PolyRef> = mesh
        .tiles()
        .flat_map(|t| {
            (0..t.tile().poly_count() as u32)
                .filter_map(|p| t.poly_ref(p))
                .collect::<Vec<_>>()
        })
        .collect();
    for r in refs {
        mesh.set_poly_flags(r, 3).unwrap();
    }
    let mut filter = QueryFilter::new();
    for (area, c) in [0u8, 2, 3, 1].into_iter().zip(costs) {
        filter.set_area_cost(area, c).unwrap();
    }
    if refuse_links {
        filter.set_include_flags(2);
    }
    let heights = [0.0, 3.0, 3.5];
    let mut q = NavMeshQuery::new();
    let mut find = |p: (f64, f64, usize)| {
        q.find_nearest_poly(&mesh, [p.0, heights[p.2], p.1], [2.0, 0.5, 2.0], &filter)
            .unwrap()
    };
    let (s, e) = (find(a)?, find(b)?);
    let ends = PathEnds {
        start_ref: s.poly,
        start_pos: s.point,
        end_ref: e.poly,
        end_pos: e.point,
    };
    Some(Case { mesh, filter, ends })
}

/// Gives every `every`-th walkable polygon of `c` (offset by `seed`), but its ends, flag 2 as
/// well; with `narrow`, `c`'s filter refuses flag 2.
fn flag_two(c: &mut Case, seed: u64, every: u64, narrow: bool) {
    let refs: Vec<PolyRef> = walkable(&c.mesh).iter().map(|p| p.0).collect();
    for (k, r) in refs.iter().enumerate() {
        if (k as u64 ^ seed) % every == 0 && *r != c.ends.start_ref && *r != c.ends.end_ref {
            c.mesh.set_poly_flags(*r, 3).unwrap();
        }
    }
    if narrow {
        c.filter.set_exclude_flags(2);
    }
}

/// A query object whose searches use a landmark table built now on `mesh` under `base`.
fn with_table(mesh: &TiledNavMesh, base: &QueryFilter, count: usize) -> NavMeshQuery {
    let mut q = NavMeshQuery::new();
    let table = if count == EXACT {
        CompiledGraph::build_exact(mesh, base).unwrap()
    } else {
        CompiledGraph::build(mesh, base, count).unwrap()
    };
    q.set_compiled_graph(Some(Arc::new(table)));
    q
}

/// `with_table`'s count for an exact distance table (`CompiledGraph::build_exact`).
const EXACT: usize = usize::MAX;

/// The count `with_table` gets: `count` landmarks, or the exact table when `exact`.
fn table_kind(count: usize, exact: bool) -> usize {
    if exact {
        EXACT
    } else {
        count
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// The table changes how the search gets there, never the cost it finds: on generated
    /// meshes with swamp costs, whether the base filter is the query's, unit costs, or
    /// cheaper swamp, and with 1 to 16 landmarks.
    #[test]
    fn with_a_landmark_table_the_path_cost_is_still_dijkstras(
        tx in 1u16..=3, tz in 1u16..=3, cells in prop::sample::select(vec![2u16, 4]),
        seed in any::<u64>(), swamp in 0.25f64..6.0, base_kind in 0u8..3, count in 1usize..=16,
        exact in any::<bool>(),
        pick in (any::<usize>(), any::<usize>()),
        uv in prop::array::uniform4(0.05f64..0.95),
    ) {
        let c = case((tx, tz), cells, seed, swamp, pick, uv);
        let base = match base_kind {
            0 => c.filter,
            1 => QueryFilter::new(),
            _ => {
                let mut f = QueryFilter::new();
                f.set_area_cost(GENERATED_SWAMP_AREA, swamp * 0.5).unwrap();
                f
            }
        };
        let mut q = with_table(&c.mesh, &base, table_kind(count, exact));
        prop_assert!(q.compiled_graph().unwrap().applies_to(&c.mesh, &c.filter));
        cost_is_dijkstras(&mut q, &c)?;
    }

    /// Across layers and off-mesh links, with a query filter that refuses the links (their
    /// own flags) while the base filter takes them: the table's distances are measured over
    /// every crossing, so they stay below the query's.
    #[test]
    fn with_a_landmark_table_the_cost_is_dijkstras_when_the_query_refuses_off_mesh_links(
        a in (0.0f64..48.0, 0.0f64..32.0, 0usize..3), b in (0.0f64..48.0, 0.0f64..32.0, 0usize..3),
        costs in prop::array::uniform4(0.2f64..8.0), refuse_links in any::<bool>(), count in 1usize..=8,
        exact in any::<bool>(),
    ) {
        let Some(c) = fixture_links_case(a, b, costs, refuse_links, true) else {
            return Ok(());
        };
        let mut q = with_table(&c.mesh, &QueryFilter::new(), table_kind(count, exact));
        prop_assert!(q.compiled_graph().unwrap().applies_to(&c.mesh, &c.filter));
        cost_is_dijkstras(&mut q, &c)?;
    }

    /// Jittered, raised triangles (irrational costs): the table still never overestimates.
    #[test]
    fn with_a_landmark_table_the_cost_is_dijkstras_on_jittered_triangle_meshes(
        tiles in 1i32..=2, n in 2usize..=4, bits in prop::collection::vec(any::<u8>(), 64),
        pick in (any::<usize>(), any::<usize>()), w in prop::array::uniform3(0.05f64..0.9),
        costs in prop::array::uniform3(0.3f64..4.0), count in 1usize..=8, exact in any::<bool>(),
    ) {
        let c = triangle_case(tiles, n, &bits, pick, w, costs);
        let mut q = with_table(&c.mesh, &c.filter, table_kind(count, exact));
        cost_is_dijkstras(&mut q, &c)?;
    }

    /// The sliced search with a table equals the one-shot search with it, for every budget.
    #[test]
    fn with_a_landmark_table_a_sliced_search_equals_the_one_shot_search(
        seed in any::<u64>(), pick in (any::<usize>(), any::<usize>()),
        uv in prop::array::uniform4(0.05f64..0.95), step in 1u64..7,
    ) {
        let c = case((2, 2), 4, seed, 3.0, pick, uv);
        let q = with_table(&c.mesh, &c.filter, 4);
        let mut s = NavMeshQuery::new();
        s.set_compiled_graph(q.compiled_graph().cloned());
        sliced_equals_one_shot(q, s, &c, step)?;
    }
}

#[test]
fn an_exact_table_expands_no_more_than_landmarks_and_refuses_large_meshes() {
    let c = case((4, 4), 4, 3, 1.0, (5, 180), [0.5; 4]);
    let mut path = Vec::new();
    let plain = run(&mut NavMeshQuery::new(), &c, u64::MAX, &mut path);
    let lm = run(
        &mut with_table(&c.mesh, &c.filter, 16),
        &c,
        u64::MAX,
        &mut path,
    );
    let mut q = with_table(&c.mesh, &c.filter, EXACT);
    assert!(q.compiled_graph().unwrap().is_exact());
    let ex = run(&mut q, &c, u64::MAX, &mut path);
    assert!(close(ex.cost, plain.cost));
    // (On a square grid even the exact estimate leaves the plateau of equally good
    // staircases: rounding, not the tie rule, orders their polygons.)
    assert!(
        ex.iterations <= lm.iterations && lm.iterations < plain.iterations,
        "exact {}, 16 landmarks {}, plain {}",
        ex.iterations,
        lm.iterations,
        plain.iterations
    );
    // 12 × 12 tiles of 16 polygons: 2 304 > MAX_EXACT_POLYGONS.
    let big = generated_grid_mesh(12, 12, 4, 1);
    assert_eq!(
        CompiledGraph::build_exact(&big.mesh, &c.filter).err(),
        Some(QueryError::CompiledGraphTooLarge)
    );
}

#[test]
fn a_landmark_table_expands_fewer_polygons_on_an_open_grid() {
    let c = case((4, 4), 4, 3, 1.0, (5, 180), [0.5; 4]);
    let mut path = Vec::new();
    let plain = run(&mut NavMeshQuery::new(), &c, u64::MAX, &mut path);
    let mut q = with_table(&c.mesh, &c.filter, 8);
    let r = run(&mut q, &c, u64::MAX, &mut path);
    assert_eq!(plain.status, PathStatus::Complete);
    assert_eq!(r.status, PathStatus::Complete);
    assert!(close(r.cost, plain.cost));
    assert!(
        r.iterations < plain.iterations,
        "{} expansions with the table, {} without",
        r.iterations,
        plain.iterations
    );
}

#[test]
fn a_stale_or_unfitting_table_is_not_used_and_the_search_answers_as_without_one() {
    let c = case((3, 3), 4, 11, 2.5, (3, 140), [0.3, 0.6, 0.7, 0.2]);
    let mut mesh = c.mesh.clone();
    let table = Arc::new(CompiledGraph::build(&mesh, &c.filter, 8).unwrap());
    // An unchanged clone keeps the table current.
    assert!(table.is_current(&c.mesh));
    // A filter that admits flags the base filter refuses: the table does not cover it.
    let mut narrow = c.filter;
    narrow.set_include_flags(1);
    let narrow_table = Arc::new(CompiledGraph::build(&mesh, &narrow, 8).unwrap());
    assert!(
        narrow_table.covers(&narrow)
            && !narrow_table.covers(&{
                let mut f = narrow;
                f.set_include_flags(3);
                f
            })
    );
    // Edit the mesh: the table goes stale.
    let far = mesh.tile_at_slot(8).unwrap().poly_ref(15).unwrap();
    mesh.set_poly_area(far, 0).unwrap();
    assert!(!table.is_current(&mesh));
    assert!(!table.applies_to(&mesh, &c.filter));
    let c2 = Case {
        mesh,
        filter: c.filter,
        ends: c.ends,
    };
    let mut plain_path = Vec::new();
    let plain = run(&mut NavMeshQuery::new(), &c2, u64::MAX, &mut plain_path);
    let mut q = NavMeshQuery::new();
    q.set_compiled_graph(Some(table));
    let mut path = Vec::new();
    let r = run(&mut q, &c2, u64::MAX, &mut path);
    assert_eq!(
        (r.status, r.iterations, r.cost.to_bits()),
        (plain.status, plain.iterations, plain.cost.to_bits())
    );
    assert_eq!(path, plain_path);
}

#[test]
fn a_table_going_stale_during_a_sliced_search_hands_over_to_the_plain_heuristic() {
    let c = case((3, 3), 4, 5, 2.0, (0, 143), [0.5; 4]);
    let mut mesh = c.mesh.clone();
    let mut q = with_table(&mesh, &c.filter, 8);
    q.begin_path(
        &mesh,
        c.ends.start_ref,
        c.ends.end_ref,
        c.ends.start_pos,
        c.ends.end_pos,
        &c.filter,
    )
    .unwrap();
    q.step_path(&mesh, 3).unwrap();
    // Block a polygon nowhere near the start: the rest of the search runs without the table.
    let far = mesh.tile_at_slot(4).unwrap().poly_ref(5).unwrap();
    if far != c.ends.end_ref {
        mesh.set_poly_flags(far, 0).unwrap();
    }
    assert!(!q.compiled_graph().unwrap().is_current(&mesh));
    loop {
        let (st, _) = q.step_path(&mesh, 7).unwrap();
        if st != PathStatus::InProgress {
            break;
        }
    }
    let mut path = Vec::new();
    let r = q.finish_path(&mut path).unwrap();
    let graph = PathGraph::new(&mesh, &c.filter, c.ends).unwrap();
    assert!(
        path_cost(&graph, &path).is_some(),
        "the path walks the edited mesh"
    );
    if let Some(best) = dijkstra(&graph) {
        assert_eq!(r.status, PathStatus::Complete);
        assert!(r.cost >= best - 1e-9 * best);
    }
}

#[test]
fn landmark_tables_are_deterministic_and_count_checked() {
    // Built on one thread, shared by query objects on others.
    fn shareable<T: Send + Sync>() {}
    shareable::<CompiledGraph>();
    shareable::<NavMeshQuery>();
    let g = generated_grid_mesh(4, 3, 4, 9);
    let f = QueryFilter::new();
    let a = CompiledGraph::build(&g.mesh, &f, 6).unwrap();
    let b = CompiledGraph::build(&g.mesh.clone(), &f, 6).unwrap();
    assert_eq!(a.landmarks(), b.landmarks());
    assert_eq!(a.landmarks().len(), 6);
    assert!(a.landmarks().iter().all(|&r| g.mesh.is_valid_poly_ref(r)));
    assert_eq!(
        format!("{:?}", a.landmarks()),
        format!("{:?}", b.landmarks())
    );
    for bad in [33, 1000] {
        assert_eq!(
            CompiledGraph::build(&g.mesh, &f, bad).err(),
            Some(QueryError::InvalidLandmarkCount { count: bad })
        );
    }
    // A filter no polygon passes: no landmarks (and no search can start under it).
    let mut none = QueryFilter::new();
    none.set_include_flags(0);
    let empty = CompiledGraph::build(&g.mesh, &none, 4).unwrap();
    assert!(empty.landmarks().is_empty());
    assert!(CompiledGraph::build(&g.mesh, &f, 0)
        .unwrap()
        .landmarks()
        .is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// A compiled graph without landmarks changes nothing but speed: every answer (status,
    /// cost bits, expansions, path) is the one of a query object without it, for every
    /// budget, under the base filter and under narrower filters with other costs.
    #[test]
    fn a_compiled_graph_without_landmarks_answers_exactly_as_no_graph(
        tx in 1u16..=3, tz in 1u16..=3, cells in prop::sample::select(vec![2u16, 4]),
        seed in any::<u64>(), swamp in 0.25f64..6.0, narrow in any::<bool>(),
        budget in prop::sample::select(vec![0u64, 1, 5, 40, u64::MAX]),
        pick in (any::<usize>(), any::<usize>()), uv in prop::array::uniform4(0.05f64..0.95),
    ) {
        let mut c = case((tx, tz), cells, seed, swamp, pick, uv);
        flag_two(&mut c, seed, 4, narrow);
        let mut q = with_table(&c.mesh, &QueryFilter::new(), 0);
        prop_assert!(q.compiled_graph().unwrap().applies_to(&c.mesh, &c.filter));
        let mut a = Vec::new();
        let ra = run(&mut q, &c, budget, &mut a);
        let mut b = Vec::new();
        let rb = run(&mut NavMeshQuery::new(), &c, budget, &mut b);
        prop_assert_eq!(ra.status, rb.status);
        prop_assert_eq!(ra.cost.to_bits(), rb.cost.to_bits());
        prop_assert_eq!(ra.iterations, rb.iterations);
        prop_assert_eq!(a, b);
    }
}

/// Runs `c` with the table `q` holds twice, walking the compiled graph and the tiles, and
/// checks both give the same answer bit for bit.
fn compiled_equals_tiles(q: &mut NavMeshQuery, c: &Case, budget: u64) -> Result<(), TestCaseError> {
    let mut a = Vec::new();
    q.set_walk_tiles(false);
    let ra = run(q, c, budget, &mut a);
    let mut b = Vec::new();
    q.set_walk_tiles(true);
    let rb = run(q, c, budget, &mut b);
    q.set_walk_tiles(false);
    prop_assert_eq!(ra.status, rb.status);
    prop_assert_eq!(ra.cost.to_bits(), rb.cost.to_bits());
    prop_assert_eq!(ra.iterations, rb.iterations);
    prop_assert_eq!(a, b);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// A search with a table walks the table's compiled graph: the very answers of walking
    /// the tiles, under the base filter and under narrower filters with other costs.
    #[test]
    fn the_compiled_graph_answers_exactly_as_the_tiles(
        tx in 1u16..=3, tz in 1u16..=3, seed in any::<u64>(), swamp in 0.25f64..6.0,
        narrow in any::<bool>(), budget in prop::sample::select(vec![3u64, 17, u64::MAX]),
        pick in (any::<usize>(), any::<usize>()), uv in prop::array::uniform4(0.05f64..0.95),
        exact in any::<bool>(),
    ) {
        let mut c = case((tx, tz), 4, seed, swamp, pick, uv);
        let base = QueryFilter::new();
        flag_two(&mut c, seed, 5, narrow);
        let mut q = with_table(&c.mesh, &base, table_kind(6, exact));
        compiled_equals_tiles(&mut q, &c, budget)?;
    }

    /// Across layers and off-mesh links, links refused by a query filter or not.
    #[test]
    fn the_compiled_graph_answers_exactly_as_the_tiles_across_off_mesh_links(
        a in (0.0f64..48.0, 0.0f64..32.0, 0usize..3), b in (0.0f64..48.0, 0.0f64..32.0, 0usize..3),
        costs in prop::array::uniform4(0.2f64..8.0), refuse_links in any::<bool>(), ladder in any::<bool>(),
        exact in any::<bool>(),
    ) {
        let Some(c) = fixture_links_case(a, b, costs, refuse_links, ladder) else {
            return Ok(());
        };
        let mut q = with_table(&c.mesh, &QueryFilter::new(), table_kind(4, exact));
        compiled_equals_tiles(&mut q, &c, u64::MAX)?;
    }
}

/// The straight path along `path` from a query object with the compiled graph `q` holds and
/// from one without: the same points, flags and polygons, bit for bit.
fn straight_equal(
    q: &mut NavMeshQuery,
    c: &Case,
    path: &[PolyRef],
    all_crossings: bool,
) -> Result<(), TestCaseError> {
    let options = StraightPathOptions {
        all_crossings,
        area_crossings: all_crossings,
    };
    let pull = |q: &mut NavMeshQuery, out: &mut Vec<_>| {
        let e = &c.ends;
        q.find_straight_path(
            &c.mesh,
            e.start_pos,
            e.end_pos,
            path,
            &c.filter,
            options,
            out,
        )
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let ra = pull(q, &mut a);
    let rb = pull(&mut NavMeshQuery::new(), &mut b);
    prop_assert_eq!(ra, rb);
    prop_assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        prop_assert_eq!(x.pos.map(f64::to_bits), y.pos.map(f64::to_bits));
        prop_assert_eq!(x.flags, y.flags);
        prop_assert_eq!(x.poly, y.poly);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// String pulling reads its crossings from a compiled graph that applies: the same
    /// straight paths, also along corridors cut short (a stale step), through polygons the
    /// base filter refuses, and under narrower filters.
    #[test]
    fn string_pulling_on_a_compiled_graph_answers_exactly_as_the_tiles(
        tx in 1u16..=3, tz in 1u16..=3, seed in any::<u64>(), swamp in 0.25f64..6.0,
        narrow in any::<bool>(), cut in any::<usize>(), crossings in any::<bool>(),
        pick in (any::<usize>(), any::<usize>()), uv in prop::array::uniform4(0.05f64..0.95),
    ) {
        let mut c = case((tx, tz), 4, seed, swamp, pick, uv);
        let refs: Vec<PolyRef> = walkable(&c.mesh).iter().map(|p| p.0).collect();
        for (k, r) in refs.iter().enumerate() {
            if (k as u64 ^ seed) % 5 == 0 {
                c.mesh.set_poly_flags(*r, 3).unwrap();
            }
        }
        let mut base = QueryFilter::new();
        if narrow {
            base.set_exclude_flags(2);
            c.filter.set_exclude_flags(2);
        }
        let mut q = with_table(&c.mesh, &base, 4);
        let mut path = Vec::new();
        let _ = q.find_path(&c.mesh, c.ends.start_ref, c.ends.end_ref, c.ends.start_pos, c.ends.end_pos, &QueryFilter::new(), u64::MAX, &mut path);
        straight_equal(&mut q, &c, &path, crossings)?;
        // A corridor with one polygon dropped (consecutive ones no longer neighbours).
        if path.len() > 2 {
            let mut broken = path.clone();
            broken.remove(1 + cut % (path.len() - 2));
            straight_equal(&mut q, &c, &broken, crossings)?;
        }
    }

    /// Across the fixture's layers and off-mesh links, links refused or not.
    #[test]
    fn string_pulling_on_a_compiled_graph_answers_exactly_as_the_tiles_across_off_mesh_links(
        a in (0.0f64..48.0, 0.0f64..32.0, 0usize..3), b in (0.0f64..48.0, 0.0f64..32.0, 0usize..3),
        refuse_links in any::<bool>(), crossings in any::<bool>(),
    ) {
        let Some(c) = fixture_links_case(a, b, [1.0; 4], refuse_links, true) else {
            return Ok(());
        };
        let mut q = with_table(&c.mesh, &QueryFilter::new(), 2);
        // The corridor found with links allowed, pulled under the (maybe refusing) filter.
        let mut path = Vec::new();
        let e = c.ends;
        q.find_path(&c.mesh, e.start_ref, e.end_ref, e.start_pos, e.end_pos, &QueryFilter::new(), u64::MAX, &mut path).unwrap();
        straight_equal(&mut q, &c, &path, crossings)?;
    }
}

/// Searches with landmarks on a large mesh grow their open list past the point where it turns
/// to a radix heap: the answers are those of the plain binary heap, bit for bit.
#[test]
fn the_radix_open_list_answers_exactly_as_the_binary_heap() {
    let g = generated_grid_mesh(16, 16, 4, 77);
    let polys = walkable(&g.mesh);
    let mut filter = QueryFilter::new();
    filter.set_area_cost(GENERATED_SWAMP_AREA, 2.5).unwrap();
    let mut q = with_table(&g.mesh, &filter, 8);
    let mut path_a = Vec::new();
    let mut path_b = Vec::new();
    let mut large = 0;
    for k in 0..24 {
        let (a, b) = (
            &polys[(k * 131) % polys.len()],
            &polys[(k * 977 + 501) % polys.len()],
        );
        let (pa, pb) = (in_cell(&a.1, 0.3, 0.6), in_cell(&b.1, 0.7, 0.2));
        for budget in [u64::MAX, 400] {
            q.set_plain_open_list(false);
            let ra = q
                .find_path(&g.mesh, a.0, b.0, pa, pb, &filter, budget, &mut path_a)
                .unwrap();
            q.set_plain_open_list(true);
            let rb = q
                .find_path(&g.mesh, a.0, b.0, pa, pb, &filter, budget, &mut path_b)
                .unwrap();
            assert_eq!(
                (ra.status, ra.cost.to_bits(), ra.iterations),
                (rb.status, rb.cost.to_bits(), rb.iterations)
            );
            assert_eq!(path_a, path_b);
            if ra.iterations > 200 {
                large += 1;
            }
        }
    }
    assert!(
        large > 5,
        "too few large searches ({large}) to reach the radix heap"
    );
}

/// The pattern the docs describe: clone the mesh, compile on a worker thread, hand the graph
/// to the game thread's query object. It applies while the mesh is still in the cloned state
/// and answers as the tile walk; after an edit it is not used.
#[test]
fn a_graph_built_on_a_worker_thread_from_a_clone_applies_until_the_mesh_changes() {
    let c = case((4, 4), 4, 21, 2.0, (7, 200), [0.4, 0.6, 0.5, 0.3]);
    let clone = c.mesh.clone();
    let filter = c.filter;
    let graph = std::thread::spawn(move || CompiledGraph::build(&clone, &filter, 8).unwrap())
        .join()
        .unwrap();
    let graph = Arc::new(graph);
    assert!(graph.applies_to(&c.mesh, &c.filter));
    let mut q = NavMeshQuery::new();
    q.set_compiled_graph(Some(Arc::clone(&graph)));
    let mut with = Vec::new();
    let r = run(&mut q, &c, u64::MAX, &mut with);
    let mut plain = Vec::new();
    let rp = run(&mut NavMeshQuery::new(), &c, u64::MAX, &mut plain);
    assert!(close(r.cost, rp.cost));
    let mut edited = c.mesh.clone();
    let r0 = edited.tile_at_slot(0).unwrap().poly_ref(0).unwrap();
    edited.set_poly_area(r0, 1).unwrap();
    assert!(!graph.applies_to(&edited, &c.filter));
}
