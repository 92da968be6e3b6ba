//! Queries on a mesh whose tiles were streamed out and back in, or edited, answer exactly
//! as on a freshly built mesh with the same tiles and edits: same polygons (by tile position
//! and index), same costs and points to the bit. Polygon references differ (slot
//! generations advance), so answers are compared through the tile position.

use onepath_format::PolyRef;
use onepath_mesh::fixtures::{bridge_and_building, bridge_and_building_tiles};
use onepath_mesh::query::{
    generated_grid_mesh, CompiledGraph, NavMeshQuery, PathCorridor, QueryFilter,
    StraightPathOptions, Vec3,
};
use onepath_mesh::{TileStreamer, TiledNavMesh};

/// A polygon by (column, row, layer, index): independent of slot generations.
fn key(mesh: &TiledNavMesh, r: PolyRef) -> (i32, i32, u16, u32) {
    let (t, p) = mesh.poly(r).unwrap();
    let (x, z, l) = t.tile().position();
    (x, z, l, p as u32)
}

fn bits(v: Vec3) -> [u64; 3] {
    v.map(f64::to_bits)
}

/// Runs a fixed battery of queries and writes every answer as text.
fn transcript(q: &mut NavMeshQuery, mesh: &TiledNavMesh, filter: &QueryFilter) -> Vec<String> {
    let mut out = Vec::new();
    let mut points = Vec::new();
    for iy in [0.0, 3.0, 3.5] {
        for ix in 0..13 {
            for iz in 0..9 {
                let p = [0.5 + ix as f64 * 3.7, iy, 0.5 + iz as f64 * 3.6];
                if let Some(n) = q
                    .find_nearest_poly(mesh, p, [1.0, 1.0, 1.0], filter)
                    .unwrap()
                {
                    out.push(format!(
                        "nearest {:?} {:?} {:?} {}",
                        bits(p),
                        key(mesh, n.poly),
                        bits(n.point),
                        n.over_poly
                    ));
                    points.push((n.poly, n.point));
                }
            }
        }
    }
    let mut path = Vec::new();
    let mut pts = Vec::new();
    let mut visited = Vec::new();
    let options = StraightPathOptions {
        all_crossings: true,
        area_crossings: false,
    };
    for k in 0..points.len().min(60) {
        let a = points[(k * 7) % points.len()];
        let b = points[(k * 13 + 5) % points.len()];
        let r = q
            .find_path(mesh, a.0, b.0, a.1, b.1, filter, 4096, &mut path)
            .unwrap();
        let ks: Vec<_> = path.iter().map(|&p| key(mesh, p)).collect();
        out.push(format!("path {:?} {} {ks:?}", r.status, r.cost.to_bits()));
        q.find_straight_path(mesh, a.1, b.1, &path, filter, options, &mut pts)
            .unwrap();
        for p in &pts {
            out.push(format!(
                "  corner {:?} {:?} {:?}",
                bits(p.pos),
                p.flags,
                key(mesh, p.poly)
            ));
        }
        let hit = q
            .raycast(mesh, a.0, a.1, b.1, filter, &mut visited)
            .unwrap();
        let ks: Vec<_> = visited.iter().map(|&p| key(mesh, p)).collect();
        out.push(format!(
            "ray {} {:?} {:?} {ks:?}",
            hit.t.to_bits(),
            bits(hit.hit_normal),
            hit.hit_edge
        ));
        let m = q
            .move_along_surface(mesh, a.0, a.1, b.1, filter, &mut visited)
            .unwrap();
        out.push(format!("move {:?} {:?}", bits(m.pos), key(mesh, m.poly)));
        let w = q
            .find_distance_to_wall(mesh, a.0, a.1, 3.0, filter)
            .unwrap();
        out.push(format!("wall {} {:?}", w.distance.to_bits(), bits(w.point)));
    }
    out
}

/// Streams columns (1, 0) and (0, 1) out and back in, tile by tile, in the original order.
fn stream_out_and_in(mesh: &mut TiledNavMesh) {
    let tiles = bridge_and_building_tiles().unwrap();
    let mut s = TileStreamer::new();
    s.queue_remove_column(1, 0);
    s.queue_remove_column(0, 1);
    for t in &tiles {
        let (x, z, _) = t.position();
        if (x, z) == (1, 0) || (x, z) == (0, 1) {
            s.queue_add(t.to_bytes());
        }
    }
    let n = s.len();
    assert_eq!(s.update(mesh, usize::MAX).unwrap(), n);
}

fn edit(mesh: &mut TiledNavMesh) {
    // A muddy road polygon and the ladder switched off.
    let road = mesh.tile_at(1, 0, 0).unwrap().tile_ref();
    mesh.set_poly_area(road.poly(4).unwrap(), 7).unwrap();
    let deck = mesh.tile_at(1, 0, 1).unwrap().tile_ref();
    mesh.set_off_mesh_link_enabled(deck, 0, false).unwrap();
}

#[test]
fn queries_after_tiles_stream_out_and_in_equal_those_on_a_fresh_mesh() {
    let fresh = bridge_and_building();
    let mut streamed = bridge_and_building();
    stream_out_and_in(&mut streamed);
    // The references changed...
    let r = fresh.tile_at(1, 0, 1).unwrap().tile_ref();
    assert!(!streamed.is_valid_poly_ref(r.poly(0).unwrap()));
    let mut filter = QueryFilter::new();
    filter.set_area_cost(7, 4.0).unwrap();
    // ...the answers did not. One query object reads both meshes in turn.
    let mut q = NavMeshQuery::new();
    let a = transcript(&mut q, &fresh, &filter);
    let b = transcript(&mut q, &streamed, &filter);
    assert!(a.len() > 300);
    assert_eq!(a, b);
    // And a new query object agrees with the reused one.
    assert_eq!(transcript(&mut NavMeshQuery::new(), &streamed, &filter), a);
}

#[test]
fn queries_after_edits_equal_those_on_a_fresh_mesh_with_the_same_edits() {
    let mut fresh = bridge_and_building();
    edit(&mut fresh);
    let mut streamed = bridge_and_building();
    stream_out_and_in(&mut streamed);
    edit(&mut streamed);
    let mut filter = QueryFilter::new();
    filter.set_area_cost(7, 4.0).unwrap();
    let mut q = NavMeshQuery::new();
    let a = transcript(&mut q, &fresh, &filter);
    assert_eq!(a, transcript(&mut q, &streamed, &filter));
    // The edits matter: the unedited mesh answers differently.
    assert_ne!(a, transcript(&mut q, &bridge_and_building(), &filter));
}

#[test]
fn a_corridor_over_a_streamed_tile_is_stale_and_replans_to_the_same_route() {
    let g = generated_grid_mesh(3, 1, 4, 11);
    let mut mesh = g.mesh;
    let filter = QueryFilter::new();
    let mut q = NavMeshQuery::new();
    let ext = [2.0, 1.0, 2.0];
    let a = q
        .find_nearest_poly(&mesh, [2.0, 0.0, 8.0], ext, &filter)
        .unwrap()
        .unwrap();
    let b = q
        .find_nearest_poly(&mesh, [46.0, 0.0, 8.0], ext, &filter)
        .unwrap()
        .unwrap();
    let mut path = Vec::new();
    q.find_path(
        &mesh, a.poly, b.poly, a.point, b.point, &filter, 10_000, &mut path,
    )
    .unwrap();
    let mut c = PathCorridor::new();
    c.reset(a.poly, a.point);
    c.set_corridor(b.point, &path);
    assert!(c.is_valid(&mesh, &filter, usize::MAX));
    let before: Vec<_> = c.path().iter().map(|&p| key(&mesh, p)).collect();
    // Stream the middle column out and in: same tile, new generation.
    let mid = mesh.tile_at(1, 0, 0).unwrap().tile().to_bytes();
    let mut s = TileStreamer::new();
    s.queue_remove_column(1, 0);
    s.queue_add(mid);
    s.update(&mut mesh, 2).unwrap();
    assert!(!c.is_valid(&mesh, &filter, usize::MAX));
    c.replan(&mut q, &mesh, &filter, ext, 10_000).unwrap();
    assert!(c.is_valid(&mesh, &filter, usize::MAX));
    let after: Vec<_> = c.path().iter().map(|&p| key(&mesh, p)).collect();
    assert_eq!(before, after);
}

#[test]
fn queries_after_an_onpm_round_trip_equal_those_before_references_included() {
    let mut mesh = bridge_and_building();
    // An area edit survives ONPM (as the new as-built value); link switches do not exist there.
    let road = mesh.tile_at(1, 0, 0).unwrap().tile_ref();
    mesh.set_poly_area(road.poly(4).unwrap(), 7).unwrap();
    let back = onepath_mesh::NavMeshSerializer::read_mesh(
        &onepath_mesh::NavMeshSerializer::write_mesh(&mesh),
    )
    .unwrap();
    let mut filter = QueryFilter::new();
    filter.set_area_cost(7, 4.0).unwrap();
    let mut q = NavMeshQuery::new();
    let a = transcript(&mut q, &mesh, &filter);
    assert_eq!(a, transcript(&mut q, &back, &filter));
    // Same slots and generations: the very same references answer.
    let mut path = (Vec::new(), Vec::new());
    let s = q
        .find_nearest_poly(&mesh, [2.0, 0.0, 2.0], [1.0; 3], &filter)
        .unwrap()
        .unwrap();
    let e = q
        .find_nearest_poly(&mesh, [28.0, 0.0, 30.0], [1.0; 3], &filter)
        .unwrap()
        .unwrap();
    let r0 = q
        .find_path(
            &mesh,
            s.poly,
            e.poly,
            s.point,
            e.point,
            &filter,
            1000,
            &mut path.0,
        )
        .unwrap();
    let r1 = q
        .find_path(
            &back,
            s.poly,
            e.poly,
            s.point,
            e.point,
            &filter,
            1000,
            &mut path.1,
        )
        .unwrap();
    assert_eq!((r0, &path.0), (r1, &path.1));
}

#[test]
fn several_query_objects_read_one_mesh_at_once_and_agree() {
    let mesh = bridge_and_building();
    let mut filter = QueryFilter::new();
    filter.set_area_cost(2, 1.5).unwrap();
    let alone = transcript(&mut NavMeshQuery::new(), &mesh, &filter);
    let (a, b) = std::thread::scope(|s| {
        let ta = s.spawn(|| transcript(&mut NavMeshQuery::new(), &mesh, &filter));
        let tb = s.spawn(|| transcript(&mut NavMeshQuery::new(), &mesh, &filter));
        (ta.join().unwrap(), tb.join().unwrap())
    });
    assert_eq!(a, alone);
    assert_eq!(b, alone);
}

/// A query object with a compiled graph (16 landmarks) built for `mesh` as it is now.
fn compiled(mesh: &TiledNavMesh, filter: &QueryFilter) -> NavMeshQuery {
    let mut q = NavMeshQuery::new();
    let graph = CompiledGraph::build(mesh, filter, 16).unwrap();
    q.set_compiled_graph(Some(std::sync::Arc::new(graph)));
    q
}

#[test]
fn with_compiled_graphs_streamed_and_edited_meshes_answer_as_fresh_ones() {
    let mut filter = QueryFilter::new();
    filter.set_area_cost(7, 4.0).unwrap();
    let fresh = bridge_and_building();
    let mut streamed = bridge_and_building();
    stream_out_and_in(&mut streamed);
    let a = transcript(&mut compiled(&fresh, &filter), &fresh, &filter);
    assert_eq!(
        a,
        transcript(&mut compiled(&streamed, &filter), &streamed, &filter)
    );
    let (mut fresh_e, mut streamed_e) = (fresh.clone(), streamed.clone());
    edit(&mut fresh_e);
    edit(&mut streamed_e);
    let b = transcript(&mut compiled(&fresh_e, &filter), &fresh_e, &filter);
    assert_eq!(
        b,
        transcript(&mut compiled(&streamed_e, &filter), &streamed_e, &filter)
    );
    // A graph of the state before the edits is stale: the search walks the tiles and answers
    // as a query object without a graph.
    let mut stale = compiled(&streamed, &filter);
    assert_eq!(
        transcript(&mut stale, &streamed_e, &filter),
        transcript(&mut NavMeshQuery::new(), &streamed_e, &filter)
    );
}
