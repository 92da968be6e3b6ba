//! Path model v2 ([`PathModel::Portals`], states on the portal crossings): the A* cost equals
//! a plain Dijkstra over the same crossing graph (generated grids with a costly swamp,
//! jittered triangle meshes with random area costs, the bridge fixture's layers and off-mesh
//! links), the sliced search equals the one-shot search for every budget, a query object
//! that searched a mesh before its tiles were replaced answers as a fresh one, and paths
//! are corridors of neighbours from the start polygon to the goal.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};

use onepath_format::PolyRef;
use onepath_mesh::query::{
    generated_grid_mesh, Crossing, NavMeshQuery, PathGraph, PathModel, PathStatus, PortalSampling,
    QueryFilter, Vec3,
};
use proptest::prelude::*;

mod common;
use common::{bridge_case, case, cases, close, in_cell, triangle_case, walkable, Case};

/// X/Z distance (model v2 inside polygons).
fn d2(a: Vec3, b: Vec3) -> f64 {
    ((b[0] - a[0]) * (b[0] - a[0]) + (b[2] - a[2]) * (b[2] - a[2])).sqrt()
}

/// 3D distance (an off-mesh link's own length).
fn d3(a: Vec3, b: Vec3) -> f64 {
    ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2) + (b[2] - a[2]).powi(2)).sqrt()
}

/// A state of the reference search: polygon entered, polygon left (0: start / goal),
/// sample (255: goal).
type Key = (u64, u64, u8);

#[derive(PartialEq)]
struct Entry(f64, Key);
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

/// The crossing graph of model v2 written out independently: from a state at `pos` in
/// polygon `r` entered from polygon `back`, every neighbour's crossing but `back`'s (first per target, through the public
/// neighbour scan of `PathGraph::for_each_edge`) at each of its samples, costing
/// `cost(area r) · |pos − sample|` in X/Z; an off-mesh link arrives at its end point,
/// costing `cost(r) · |pos − start| + cost(link) · |start − end|` (3D); the goal polygon
/// leads to the goal at `cost · |pos − end_pos|`.
fn edges(
    c: &Case,
    sampling: PortalSampling,
    r: PolyRef,
    back: u64,
    pos: Vec3,
    mut f: impl FnMut(Key, Vec3, f64),
) {
    let graph = PathGraph::new(&c.mesh, &c.filter, c.ends).unwrap();
    let (t, p) = c.mesh.poly(r).unwrap();
    let ca = c.filter.area_cost(t.tile().areas()[p]);
    if r == c.ends.end_ref {
        f((r.0, 0, 255), c.ends.end_pos, ca * d2(pos, c.ends.end_pos));
    }
    graph
        .for_each_edge(r, pos, |nb, _, _| match nb.crossing {
            _ if nb.target.0 == back => {}
            Crossing::Edge { left, right, .. } => {
                let k = sampling.samples(d3(left, right));
                for i in 0..k {
                    let t = (2.0 * f64::from(i) + 1.0) / (2.0 * f64::from(k));
                    let s = [0, 1, 2].map(|a| left[a] + (right[a] - left[a]) * t);
                    f((nb.target.0, r.0, i), s, ca * d2(pos, s));
                }
            }
            Crossing::OffMesh {
                start, end, area, ..
            } => f(
                (nb.target.0, r.0, 0),
                end,
                ca * d2(pos, start) + c.filter.area_cost(area) * d3(start, end),
            ),
        })
        .unwrap();
}

/// A plain Dijkstra over the crossing graph: the cost to the goal, or `None`.
fn dijkstra(c: &Case, sampling: PortalSampling) -> Option<f64> {
    let start: Key = (c.ends.start_ref.0, 0, 0);
    let mut best: BTreeMap<Key, (f64, Vec3)> = BTreeMap::new();
    let mut heap = BinaryHeap::new();
    best.insert(start, (0.0, c.ends.start_pos));
    heap.push(Entry(0.0, start));
    while let Some(Entry(g, k)) = heap.pop() {
        let (bg, pos) = best[&k];
        if g > bg {
            continue;
        }
        if k.2 == 255 && k.1 == 0 {
            return Some(g);
        }
        edges(c, sampling, PolyRef(k.0), k.1, pos, |nk, np, cost| {
            let ng = g + cost;
            if best.get(&nk).map_or(true, |&(b, _)| ng < b) {
                best.insert(nk, (ng, np));
                heap.push(Entry(ng, nk));
            }
        });
    }
    None
}

fn v2(sampling: PortalSampling) -> NavMeshQuery {
    v2_with(sampling, false)
}

/// A model v2 query object, with landmark estimates when `landmarks`.
fn v2_with(sampling: PortalSampling, landmarks: bool) -> NavMeshQuery {
    let mut q = NavMeshQuery::new();
    q.set_path_model(PathModel::Portals(sampling));
    q.set_portal_landmarks(landmarks);
    assert_eq!(q.portal_landmarks(), landmarks);
    q
}

fn run(
    q: &mut NavMeshQuery,
    c: &Case,
    budget: u64,
    path: &mut Vec<PolyRef>,
) -> onepath_mesh::query::PathResult {
    let e = &c.ends;
    q.find_path(
        &c.mesh,
        e.start_ref,
        e.end_ref,
        e.start_pos,
        e.end_pos,
        &c.filter,
        budget,
        path,
    )
    .unwrap()
}

/// Whether consecutive polygons of `path` are neighbours under the case's filter.
fn is_corridor(c: &Case, path: &[PolyRef]) -> bool {
    let graph = PathGraph::new(&c.mesh, &c.filter, c.ends).unwrap();
    path.windows(2).all(|w| {
        let mut found = false;
        graph
            .for_each_edge(w[0], [0.0; 3], |nb, _, _| found |= nb.target == w[1])
            .unwrap();
        found
    })
}

/// The v2 search of `c` equals the reference Dijkstra: complete with its cost, a corridor
/// from the start polygon to the goal polygon without a repeated polygon; partial when
/// the reference finds no path.
fn cost_is_dijkstras(
    c: &Case,
    sampling: PortalSampling,
    landmarks: bool,
) -> Result<(), TestCaseError> {
    let mut q = v2_with(sampling, landmarks);
    let mut path = Vec::new();
    let r = run(&mut q, c, u64::MAX, &mut path);
    prop_assert_eq!(path[0], c.ends.start_ref);
    prop_assert!(is_corridor(c, &path), "{:?}", path);
    let mut sorted = path.clone();
    sorted.sort();
    sorted.dedup();
    prop_assert_eq!(sorted.len(), path.len(), "a polygon repeats: {:?}", path);
    match dijkstra(c, sampling) {
        Some(best) => {
            prop_assert_eq!(r.status, PathStatus::Complete);
            prop_assert!(close(r.cost, best), "A* {} vs Dijkstra {}", r.cost, best);
            prop_assert_eq!(*path.last().unwrap(), c.ends.end_ref);
        }
        None => prop_assert_eq!(r.status, PathStatus::Partial),
    }
    Ok(())
}

fn sampling(spacing: f64, max: u8) -> PortalSampling {
    PortalSampling {
        spacing,
        max_samples: max,
    }
}

/// A search sliced `step` at a time equals the one-shot search, and a one-shot search capped
/// at N equals begin + step(N) + finish, for every N.
fn sliced_equals_one_shot(
    c: &Case,
    s: PortalSampling,
    step: u64,
    landmarks: bool,
) -> Result<(), TestCaseError> {
    let (mut q, mut sl) = (v2_with(s, landmarks), v2_with(s, landmarks));
    let mut one = Vec::new();
    let r = run(&mut q, c, u64::MAX, &mut one);
    let e = &c.ends;
    let begin = |x: &mut NavMeshQuery| {
        x.begin_path(
            &c.mesh,
            e.start_ref,
            e.end_ref,
            e.start_pos,
            e.end_pos,
            &c.filter,
        )
        .unwrap();
    };
    begin(&mut sl);
    let mut total = 0;
    loop {
        let (st, done) = sl.step_path(&c.mesh, step).unwrap();
        total += done;
        if st != PathStatus::InProgress {
            break;
        }
        prop_assert_eq!(done, step);
    }
    let mut sliced = Vec::new();
    let rs = sl.finish_path(&mut sliced).unwrap();
    prop_assert_eq!(rs.status, r.status);
    prop_assert_eq!(rs.cost.to_bits(), r.cost.to_bits());
    prop_assert_eq!(rs.iterations, r.iterations);
    prop_assert_eq!(total, r.iterations);
    prop_assert_eq!(&sliced, &one);
    for n in 0..=r.iterations + 1 {
        let mut capped = Vec::new();
        let rc = run(&mut q, c, n, &mut capped);
        begin(&mut sl);
        sl.step_path(&c.mesh, n).unwrap();
        let mut manual = Vec::new();
        let rm = sl.finish_path(&mut manual).unwrap();
        prop_assert_eq!(rc.status, rm.status);
        prop_assert_eq!(rc.cost.to_bits(), rm.cost.to_bits());
        prop_assert_eq!(rc.iterations, rm.iterations);
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

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn v2_cost_equals_a_plain_dijkstra_over_the_same_crossing_graph_on_grids(
        tx in 1u16..=3, tz in 1u16..=3, cells in prop::sample::select(vec![2u16, 4]),
        seed in any::<u64>(), swamp in 0.25f64..6.0,
        pick in (any::<usize>(), any::<usize>()),
        uv in prop::array::uniform4(0.05f64..0.95),
        spacing in prop::sample::select(vec![0.3f64, 0.7, 1.2, 100.0]), max in 1u8..=6,
        landmarks in any::<bool>(),
    ) {
        let c = case((tx, tz), cells, seed, swamp, pick, uv);
        cost_is_dijkstras(&c, sampling(spacing, max), landmarks)?;
    }

    #[test]
    fn v2_cost_equals_a_plain_dijkstra_on_jittered_triangle_meshes(
        tiles in 1i32..=2, n in 2usize..=4, bits in prop::collection::vec(any::<u8>(), 64),
        pick in (any::<usize>(), any::<usize>()), w in prop::array::uniform3(0.05f64..0.9),
        costs in prop::array::uniform3(0.3f64..4.0),
        spacing in prop::sample::select(vec![0.4f64, 1.0, 100.0]), max in 1u8..=4,
        landmarks in any::<bool>(),
    ) {
        let c = triangle_case(tiles, n, &bits, pick, w, costs);
        cost_is_dijkstras(&c, sampling(spacing, max), landmarks)?;
    }

    #[test]
    fn a_sliced_v2_search_equals_the_one_shot_search_for_every_budget(
        seed in any::<u64>(), pick in (any::<usize>(), any::<usize>()),
        uv in prop::array::uniform4(0.05f64..0.95), step in 1u64..7,
        landmarks in any::<bool>(),
    ) {
        let c = case((2, 2), 4, seed, 3.0, pick, uv);
        sliced_equals_one_shot(&c, sampling(0.7, 3), step, landmarks)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn v2_cost_equals_dijkstra_across_layers_and_off_mesh_links(
        a in (0.0f64..48.0, 0.0f64..32.0, 0usize..3), b in (0.0f64..48.0, 0.0f64..32.0, 0usize..3),
        costs in prop::array::uniform4(0.2f64..8.0), ladder in any::<bool>(), jump in any::<bool>(),
        landmarks in any::<bool>(),
    ) {
        let Some(c) = bridge_case(a, b, costs, ladder, jump) else {
            return Ok(());
        };
        cost_is_dijkstras(&c, PortalSampling::for_agent_radius(0.5), landmarks)?;
    }
}

/// A query object that searched a mesh, then searched it again after tiles were replaced
/// (their own data, or removed and added back), answers exactly as a fresh query object.
#[test]
fn after_tile_replacements_a_long_lived_v2_query_answers_as_a_fresh_one() {
    for landmarks in [false, true] {
        long_lived_answers_as_fresh(landmarks);
    }
}

fn long_lived_answers_as_fresh(landmarks: bool) {
    let mut mesh = generated_grid_mesh(4, 4, 4, 0x14_22).mesh;
    let s = PortalSampling::for_agent_radius(0.3);
    let mut old = v2_with(s, landmarks);
    let polys = walkable(&mesh);
    let pairs: Vec<(usize, usize)> = (0..12)
        .map(|k| ((k * 37) % polys.len(), (k * 91 + 5) % polys.len()))
        .collect();
    let mut path = Vec::new();
    for &(a, b) in &pairs {
        let (pa, pb) = (&polys[a], &polys[b]);
        old.find_path(
            &mesh,
            pa.0,
            pb.0,
            in_cell(&pa.1, 0.3, 0.6),
            in_cell(&pb.1, 0.7, 0.2),
            &QueryFilter::new(),
            u64::MAX,
            &mut path,
        )
        .unwrap();
    }
    let tiles: Vec<_> = mesh.tiles().map(|t| t.tile_ref()).collect();
    for (k, r) in tiles.iter().enumerate().filter(|(k, _)| k % 3 == 0) {
        if k % 2 == 0 {
            let t = mesh.remove_tile(*r).unwrap();
            mesh.add_tile(t).unwrap();
        } else {
            let t = mesh.tile(*r).unwrap().tile().clone();
            mesh.replace_tile(t).unwrap();
        }
    }
    let polys = walkable(&mesh);
    let mut compared = 0;
    for &(a, b) in &pairs {
        let (pa, pb) = (&polys[a], &polys[b]);
        let ends = (
            pa.0,
            pb.0,
            in_cell(&pa.1, 0.3, 0.6),
            in_cell(&pb.1, 0.7, 0.2),
        );
        let mut fresh = v2_with(s, landmarks);
        let (mut p1, mut p2) = (Vec::new(), Vec::new());
        let f = QueryFilter::new();
        let r1 = old
            .find_path(&mesh, ends.0, ends.1, ends.2, ends.3, &f, u64::MAX, &mut p1)
            .unwrap();
        let r2 = fresh
            .find_path(&mesh, ends.0, ends.1, ends.2, ends.3, &f, u64::MAX, &mut p2)
            .unwrap();
        assert_eq!(
            (r1.status, r1.cost.to_bits(), r1.iterations),
            (r2.status, r2.cost.to_bits(), r2.iterations)
        );
        assert_eq!(p1, p2);
        compared += usize::from(r1.status == PathStatus::Complete && p1.len() > 3);
    }
    assert!(compared >= 6, "{compared}");
}

/// With landmark estimates a v2 search finds the same optimal cost (to rounding) and, over
/// a set of far pairs on a grid with a costly swamp, expands fewer states in all.
#[test]
fn v2_landmarks_keep_the_cost_and_expand_fewer_states() {
    let mesh = generated_grid_mesh(6, 6, 4, 0x14_77).mesh;
    let s = PortalSampling::for_agent_radius(0.3);
    let (mut plain, mut alt) = (v2(s), v2_with(s, true));
    let polys = walkable(&mesh);
    let f = QueryFilter::new();
    let (mut n_plain, mut n_alt, mut found) = (0u64, 0u64, 0);
    let mut path = Vec::new();
    for k in 0..24usize {
        let (pa, pb) = (
            &polys[(k * 131) % polys.len()],
            &polys[(k * 57 + polys.len() / 2) % polys.len()],
        );
        let (a, b) = (in_cell(&pa.1, 0.4, 0.6), in_cell(&pb.1, 0.6, 0.3));
        let r1 = plain
            .find_path(&mesh, pa.0, pb.0, a, b, &f, u64::MAX, &mut path)
            .unwrap();
        let r2 = alt
            .find_path(&mesh, pa.0, pb.0, a, b, &f, u64::MAX, &mut path)
            .unwrap();
        assert_eq!(r1.status, r2.status, "pair {k}");
        if r1.status == PathStatus::Complete {
            assert!(
                close(r1.cost, r2.cost),
                "pair {k}: {} vs {}",
                r1.cost,
                r2.cost
            );
            found += 1;
        }
        n_plain += r1.iterations;
        n_alt += r2.iterations;
    }
    assert!(found >= 12, "{found}");
    assert!(n_alt < n_plain, "landmarks {n_alt} vs plain {n_plain}");
}

/// Model v2 is opt-in: a fresh query object searches with model v1, and the sampling rule
/// counts as documented.
#[test]
fn the_default_model_is_v1_and_samples_follow_the_crossing_length() {
    assert_eq!(NavMeshQuery::new().path_model(), PathModel::Centres);
    let s = sampling(1.2, 8);
    assert_eq!(s.samples(0.5), 1);
    assert_eq!(s.samples(1.2), 1);
    assert_eq!(s.samples(1.21), 2);
    assert_eq!(s.samples(3.6), 3);
    assert_eq!(s.samples(3.61), 4);
    assert_eq!(s.samples(1e9), 8);
    assert_eq!(s.samples(f64::NAN), 1);
    assert_eq!(sampling(0.0, 8).samples(5.0), 1);
    assert_eq!(sampling(f64::NAN, 8).samples(5.0), 1);
    assert_eq!(sampling(1.0, 0).samples(5.0), 1);
    let d = PortalSampling::for_agent_radius(0.6);
    assert_eq!((d.spacing, d.max_samples), (1.2, 8));
    assert_eq!(
        PortalSampling::for_agent_radius(0.0).spacing,
        PortalSampling::FALLBACK_SPACING
    );
}

/// A v2 search cut short by its budget and ended with `finish_path_partial` ends on a
/// polygon of the existing corridor (the furthest one it reached), with a corridor from the
/// start; with an empty corridor it answers as `finish_path`.
#[test]
fn a_partial_v2_search_ends_on_the_furthest_reached_polygon_of_an_existing_corridor() {
    let c = case((3, 2), 4, 0x14_23, 1.0, (0, 1000), [0.2, 0.3, 0.8, 0.6]);
    let s = PortalSampling::for_agent_radius(0.3);
    let mut q = v2(s);
    let mut full = Vec::new();
    let r = run(&mut q, &c, u64::MAX, &mut full);
    assert_eq!(r.status, PathStatus::Complete);
    assert!(full.len() > 6, "{full:?}");
    let e = &c.ends;
    let mut checked = 0;
    for budget in 1..r.iterations {
        q.begin_path(
            &c.mesh,
            e.start_ref,
            e.end_ref,
            e.start_pos,
            e.end_pos,
            &c.filter,
        )
        .unwrap();
        q.step_path(&c.mesh, budget).unwrap();
        let mut spliced = Vec::new();
        let rp = q.finish_path_partial(&full, &mut spliced).unwrap();
        assert_eq!(rp.status, PathStatus::BudgetExhausted);
        assert_eq!(spliced[0], e.start_ref);
        assert!(full.contains(spliced.last().unwrap()), "{spliced:?}");
        assert!(is_corridor(&c, &spliced));
        // Every polygon of the full corridor after the end reached is absent from the path.
        let at = full
            .iter()
            .position(|r| r == spliced.last().unwrap())
            .unwrap();
        assert!(full[at + 1..].iter().all(|r| !spliced.contains(r)));
        checked += usize::from(at > 0);
        // An empty corridor: as finish_path.
        let mut a = Vec::new();
        let mut b = Vec::new();
        q.begin_path(
            &c.mesh,
            e.start_ref,
            e.end_ref,
            e.start_pos,
            e.end_pos,
            &c.filter,
        )
        .unwrap();
        q.step_path(&c.mesh, budget).unwrap();
        let ra = q.finish_path_partial(&[], &mut a).unwrap();
        let rb = run(&mut q, &c, budget, &mut b);
        assert_eq!(
            (ra.status, ra.cost.to_bits(), &a),
            (rb.status, rb.cost.to_bits(), &b)
        );
    }
    assert!(checked > 3, "{checked}");
}

/// A sliced v2 search whose mesh state changes between steps without changing the graph
/// (a polygon's area set to the value it has) re-attaches its states (the dense index is
/// rebuilt from them) and ends exactly as the one-shot search, for several step sizes.
#[test]
fn a_sliced_v2_search_across_a_mesh_state_change_that_keeps_the_graph_equals_one_shot() {
    sliced_across_state_changes(false);
}

/// With landmark estimates, the same: each change makes the query build the new state's
/// table mid-search, and the states reached before keep their estimates (their nodes are
/// the old table's), so the expansions may differ from the one-shot search's, but the
/// search completes with its cost, from the start polygon to the goal polygon.
#[test]
fn a_sliced_v2_search_with_landmarks_across_mesh_state_changes_keeps_the_cost() {
    sliced_across_state_changes(true);
}

fn sliced_across_state_changes(landmarks: bool) {
    let mut mesh = generated_grid_mesh(4, 4, 4, 0x14_23).mesh;
    let s = PortalSampling::for_agent_radius(0.3);
    let polys = walkable(&mesh);
    let f = QueryFilter::new();
    let mut checked = 0;
    for k in 0..6 {
        let (pa, pb) = (
            &polys[(k * 41) % polys.len()],
            &polys[(k * 97 + 3) % polys.len()],
        );
        let (a, b) = (in_cell(&pa.1, 0.3, 0.6), in_cell(&pb.1, 0.7, 0.2));
        let mut one = Vec::new();
        let r = v2_with(s, landmarks)
            .find_path(&mesh, pa.0, pb.0, a, b, &f, u64::MAX, &mut one)
            .unwrap();
        if r.iterations < 8 {
            continue;
        }
        for step in [1, 3, r.iterations / 2] {
            let mut q = v2_with(s, landmarks);
            q.begin_path(&mesh, pa.0, pb.0, a, b, &f).unwrap();
            let mut total = 0;
            let mut changes = 0;
            loop {
                let (st, done) = q.step_path(&mesh, step).unwrap();
                total += done;
                if st != PathStatus::InProgress {
                    break;
                }
                let p = polys[(total as usize * 7) % polys.len()].0;
                let area = mesh.poly_area(p).unwrap();
                let before = mesh.state_id();
                mesh.set_poly_area(p, area).unwrap();
                assert_ne!(mesh.state_id(), before);
                changes += 1;
            }
            let mut sliced = Vec::new();
            let rs = q.finish_path(&mut sliced).unwrap();
            if landmarks {
                assert_eq!(rs.status, r.status, "pair {k}, step {step}");
                assert!(
                    close(rs.cost, r.cost),
                    "pair {k}: {} vs {}",
                    rs.cost,
                    r.cost
                );
                assert_eq!(sliced.first(), one.first());
                assert_eq!(sliced.last(), one.last());
            } else {
                assert_eq!(
                    (rs.status, rs.cost.to_bits(), rs.iterations, total),
                    (r.status, r.cost.to_bits(), r.iterations, r.iterations)
                );
                assert_eq!(sliced, one);
            }
            checked += usize::from(changes > 0);
        }
    }
    assert!(checked >= 6, "{checked}");
}

/// With landmark estimates, a sliced v2 search whose mesh loses polygons mid-search (flags
/// 0: the filter refuses them, so the new state's table numbers its nodes differently) ends
/// without error or panic, complete or partial, on a path from the start polygon.
#[test]
fn a_sliced_v2_search_with_landmarks_survives_polygons_refused_mid_search() {
    let base = generated_grid_mesh(4, 4, 4, 0x14_25).mesh;
    let s = PortalSampling::for_agent_radius(0.3);
    let polys = walkable(&base);
    let f = QueryFilter::new();
    let mut changed = 0;
    for k in 0..8 {
        let (pa, pb) = (
            &polys[(k * 37 + 11) % polys.len()],
            &polys[(k * 53 + 29) % polys.len()],
        );
        let (a, b) = (in_cell(&pa.1, 0.3, 0.6), in_cell(&pb.1, 0.7, 0.2));
        for step in [1, 2, 5] {
            let mut mesh = base.clone();
            let mut q = v2_with(s, true);
            q.begin_path(&mesh, pa.0, pb.0, a, b, &f).unwrap();
            let mut n = 0;
            loop {
                let (st, _) = q.step_path(&mesh, step).unwrap();
                if st != PathStatus::InProgress {
                    break;
                }
                // Refuse a low-numbered polygon (not an end): every later node shifts.
                let p = polys[n % 5].0;
                if p != pa.0 && p != pb.0 && mesh.poly_flags(p).unwrap() != 0 {
                    mesh.set_poly_flags(p, 0).unwrap();
                    changed += 1;
                }
                n += 1;
            }
            let mut path = Vec::new();
            let r = q.finish_path(&mut path).unwrap();
            assert!(
                matches!(r.status, PathStatus::Complete | PathStatus::Partial),
                "{:?}",
                r.status
            );
            assert_eq!(path.first(), Some(&pa.0));
        }
    }
    assert!(changed >= 8, "{changed}");
}

/// One long-lived query object answering a sequence of searches, with the filter and the
/// sampling changing every few searches (its crossing samples are kept across searches of
/// one mesh state, filter and sampling, and dropped when one of them changes), answers each
/// exactly as a fresh query object.
#[test]
fn a_v2_query_reused_across_searches_filters_and_samplings_answers_as_a_fresh_one() {
    let mesh = generated_grid_mesh(4, 4, 4, 0x14_23).mesh;
    let polys = walkable(&mesh);
    let mut cheap = QueryFilter::new();
    cheap.set_area_cost(0, 2.5).unwrap();
    let filters = [QueryFilter::new(), cheap];
    let samplings = [PortalSampling::for_agent_radius(0.3), sampling(0.2, 3)];
    let mut old = NavMeshQuery::new();
    let mut compared = 0;
    let mut costs = std::collections::BTreeSet::new();
    for k in 0..40usize {
        let f = filters[(k / 3) % 2];
        let s = samplings[(k / 7) % 2];
        old.set_path_model(PathModel::Portals(s));
        let (pa, pb) = (
            &polys[(k * 53) % polys.len()],
            &polys[(k * 29 + 11) % polys.len()],
        );
        let (a, b) = (in_cell(&pa.1, 0.25, 0.7), in_cell(&pb.1, 0.6, 0.35));
        let (mut p1, mut p2) = (Vec::new(), Vec::new());
        let r1 = old
            .find_path(&mesh, pa.0, pb.0, a, b, &f, u64::MAX, &mut p1)
            .unwrap();
        let r2 = v2(s)
            .find_path(&mesh, pa.0, pb.0, a, b, &f, u64::MAX, &mut p2)
            .unwrap();
        assert_eq!(
            (r1.status, r1.cost.to_bits(), r1.iterations),
            (r2.status, r2.cost.to_bits(), r2.iterations),
            "search {k}"
        );
        assert_eq!(p1, p2, "search {k}");
        if r1.status == PathStatus::Complete && p1.len() > 3 {
            compared += 1;
            costs.insert(r1.cost.to_bits());
        }
    }
    assert!(
        compared >= 12 && costs.len() >= 8,
        "{compared} {}",
        costs.len()
    );
}
