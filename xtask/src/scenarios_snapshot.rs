//! `navmesh/snapshot-bytes`: the scenario of docs/navmesh-snapshot.md. Snapshot, mutate,
//! restore, continue, in both modes; hashes the snapshot bytes, the ONPM bytes, the
//! stitched links and query answers at every step, and checks on the way that a restore
//! gives back the snapshot's bytes and that carrying on repeats the same hashes.

use std::sync::Arc;

use onepath_format::bytes::ByteWriter;
use onepath_format::{PolyRef, TileRef};
use onepath_mesh::fixtures::{bridge_and_building, bridge_and_building_tiles};
use onepath_mesh::query::{
    generated_grid_mesh, CompiledGraph, NavMeshQuery, QueryFilter, StraightPathOptions,
};
use onepath_mesh::{NavMeshDebug, NavMeshSerializer, TiledNavMesh};
use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, TileLibrary};

use crate::hash_matrix::Recorder;
use crate::scenarios_mesh::link_bytes;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Paths between the centroids of every polygon and those of a few others, nearest-polygon
/// answers at the centroids, and straight paths: all as canonical bytes. With `graph`, the
/// query object searches on that compiled graph.
pub(crate) fn query_bytes(
    mesh: &TiledNavMesh,
    graph: Option<Arc<CompiledGraph>>,
) -> Result<Vec<u8>, String> {
    let dbg = NavMeshDebug::collect(mesh);
    let centroids: Vec<[f64; 3]> = dbg
        .polygons
        .iter()
        .map(|p| {
            let n = p.outline.len() as f64;
            let mut c = [0.0; 3];
            for v in &p.outline {
                for k in 0..3 {
                    c[k] += v[k];
                }
            }
            [c[0] / n, c[1] / n, c[2] / n]
        })
        .collect();
    let mut q = NavMeshQuery::new();
    q.set_compiled_graph(graph);
    let filter = query_filter()?;
    let mut w = ByteWriter::new();
    let mut nearest = Vec::new();
    for c in &centroids {
        let n = q
            .find_nearest_poly(mesh, *c, [1.0, 2.0, 1.0], &filter)
            .map_err(err)?;
        match n {
            Some(n) => {
                w.u64(n.poly.0);
                for v in n.point {
                    w.f64(v);
                }
                nearest.push(Some((n.poly, n.point)));
            }
            None => {
                w.u64(0);
                nearest.push(None);
            }
        }
    }
    let mut path: Vec<PolyRef> = Vec::new();
    let mut straight = Vec::new();
    let count = nearest.len();
    for i in (0..count).step_by(3) {
        for j in [(i + 1) % count, (i * 7 + 5) % count, count - 1] {
            let (Some((a, pa)), Some((b, pb))) = (nearest[i], nearest[j]) else {
                continue;
            };
            let r = q
                .find_path(mesh, a, b, pa, pb, &filter, 4096, &mut path)
                .map_err(err)?;
            w.u8(r.status as u8);
            w.f64(r.cost);
            w.u32(r.iterations as u32);
            w.u32(path.len() as u32);
            for p in &path {
                w.u64(p.0);
            }
            let end = if path.last() == Some(&b) { pb } else { pa };
            q.find_straight_path(
                mesh,
                pa,
                end,
                &path,
                &filter,
                StraightPathOptions::default(),
                &mut straight,
            )
            .map_err(err)?;
            w.u32(straight.len() as u32);
            for s in &straight {
                for v in s.pos {
                    w.f64(v);
                }
                w.u8(s.flags.0);
                w.u64(s.poly.0);
            }
        }
    }
    Ok(w.into_vec())
}

/// The filter of [`query_bytes`]: area 2 costs 3.
fn query_filter() -> Result<QueryFilter, String> {
    let mut filter = QueryFilter::new();
    filter.set_area_cost(2, 3.0).map_err(err)?;
    Ok(filter)
}

/// `navmesh/compiled-queries`: the answers of [`query_bytes`] on a compiled graph with 8
/// landmarks and on one with the exact distance table (sharper heuristics: the same costs,
/// other expansion counts and, on ties, other paths), on the fixture before and after a
/// round of mutations (the graphs rebuilt for each state) and on a generated 8 × 8 tile
/// mesh; and the landmarks chosen.
pub(crate) fn compiled_queries(rec: &mut Recorder) -> Result<(), String> {
    let filter = query_filter()?;
    let step = |rec: &mut Recorder, name: &str, mesh: &TiledNavMesh| -> Result<(), String> {
        let graph = CompiledGraph::build(mesh, &filter, 8).map_err(err)?;
        let mut w = ByteWriter::new();
        for r in graph.landmarks() {
            w.u64(r.0);
        }
        rec.record(format!("{name}/landmarks"), &w.into_vec());
        let bytes = query_bytes(mesh, Some(Arc::new(graph)))?;
        rec.record(format!("{name}/queries"), &bytes);
        let exact = CompiledGraph::build_exact(mesh, &filter).map_err(err)?;
        let bytes = query_bytes(mesh, Some(Arc::new(exact)))?;
        rec.record(format!("{name}/exact-queries"), &bytes);
        Ok(())
    };
    let mut mesh = bridge_and_building();
    step(rec, "fixture/built", &mesh)?;
    mutate(&mut mesh, 0)?;
    step(rec, "fixture/mutated", &mesh)?;
    let g = generated_grid_mesh(8, 8, 4, 0x5eed);
    step(rec, "generated-8x8", &g.mesh)?;
    Ok(())
}

fn record(
    rec: &mut Recorder,
    step: &str,
    mesh: &TiledNavMesh,
    mode: SnapshotMode,
) -> Result<(), String> {
    let snap = NavMeshSnapshot::take(mesh, mode);
    let queries = query_bytes(mesh, None)?;
    // A compiled graph without landmarks changes no answer: checked here, not recorded.
    let graph = CompiledGraph::build(mesh, &query_filter()?, 0).map_err(err)?;
    if query_bytes(mesh, Some(Arc::new(graph)))? != queries {
        return Err(format!(
            "{step}: the queries on a compiled graph answer otherwise"
        ));
    }
    let parts = [
        ("snapshot", snap),
        ("onpm", NavMeshSerializer::write_mesh(mesh)),
        ("links", link_bytes(mesh)),
        ("queries", queries),
    ];
    for (what, bytes) in parts {
        rec.record(format!("{step}/{what}"), &bytes);
    }
    Ok(())
}

/// One run of mutations: edits, a link switch, a removal and a replacement.
fn mutate(mesh: &mut TiledNavMesh, round: u32) -> Result<(), String> {
    let refs: Vec<TileRef> = mesh.tiles().map(|t| t.tile_ref()).collect();
    let first = refs[0];
    mesh.set_poly_area(first.poly(0).ok_or("poly 0")?, 2 + round as u8)
        .map_err(err)?;
    mesh.set_poly_flags(first.poly(0).ok_or("poly 0")?, 0x0003)
        .map_err(err)?;
    let with_link = mesh
        .tiles()
        .find(|t| !t.tile().data().off_mesh_links.is_empty())
        .map(|t| t.tile_ref());
    if let Some(t) = with_link {
        mesh.set_off_mesh_link_enabled(t, 0, false).map_err(err)?;
    }
    let last = *refs.last().ok_or("no tile")?;
    let removed = mesh.remove_tile(last).map_err(err)?;
    let tiles = bridge_and_building_tiles().map_err(err)?;
    mesh.replace_tile(tiles[1].clone()).map_err(err)?;
    mesh.add_tile(removed).map_err(err)?;
    Ok(())
}

pub(crate) fn snapshot_bytes(rec: &mut Recorder) -> Result<(), String> {
    for (mode, name) in [
        (SnapshotMode::Full, "full"),
        (SnapshotMode::Referenced, "referenced"),
    ] {
        let mut mesh = bridge_and_building();
        let mut library = TileLibrary::new(mesh.params());
        for t in bridge_and_building_tiles().map_err(err)? {
            library.add(&t).map_err(err)?;
        }
        // A mesh with history: one round of mutations before the snapshot.
        mutate(&mut mesh, 0)?;
        record(rec, &format!("{name}/before"), &mesh, mode)?;
        let snap = NavMeshSnapshot::take(&mesh, mode);
        let before = NavMeshSerializer::write_mesh(&mesh);
        // Mutate, then restore in place.
        mutate(&mut mesh, 1)?;
        record(rec, &format!("{name}/mutated"), &mesh, mode)?;
        NavMeshSnapshot::restore_in_place(&mut mesh, &snap, &library).map_err(err)?;
        if NavMeshSnapshot::take(&mesh, mode) != snap
            || NavMeshSerializer::write_mesh(&mesh) != before
        {
            return Err(format!(
                "{name}: restore does not give the snapshot's state back"
            ));
        }
        record(rec, &format!("{name}/restored"), &mesh, mode)?;
        // Carry on: the same mutation after the restore repeats the mutated state.
        mutate(&mut mesh, 1)?;
        let again = NavMeshSnapshot::take(&mesh, mode);
        record(rec, &format!("{name}/continued"), &mesh, mode)?;
        // Restore as a new mesh from the continued snapshot, and compare.
        let fresh = NavMeshSnapshot::restore(&again, &library).map_err(err)?;
        if NavMeshSnapshot::take(&fresh, mode) != again {
            return Err(format!("{name}: restore as a new mesh differs"));
        }
        record(rec, &format!("{name}/restored-new"), &fresh, mode)?;
    }
    Ok(())
}
