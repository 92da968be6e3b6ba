//! Scenarios over tiles and the tiled mesh: `format/tile-bytes`, `mesh/stitch`.

use onepath_format::bytes::ByteWriter;
use onepath_format::{NavMeshParams, NavTile, TileRef};
use onepath_mesh::fixtures::{
    bridge_and_building_params, bridge_and_building_tiles, flat_grid_tile,
};
use onepath_mesh::{LinkKind, NavMeshSerializer, TiledNavMesh};

use crate::hash_matrix::Recorder;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Canonical bytes of every stitched link, off-mesh attachment and link switch of a mesh,
/// in slot / polygon / link order (links are derived and not in ONPM, so they are hashed
/// from here).
pub(crate) fn link_bytes(mesh: &TiledNavMesh) -> Vec<u8> {
    let mut w = ByteWriter::new();
    for t in mesh.tiles() {
        w.u32(t.slot());
        let n = t.tile().poly_count();
        w.u32(n as u32);
        for p in 0..n {
            let links = t.poly_links(p);
            w.u32(links.len() as u32);
            for l in links {
                w.u64(l.target.0);
                match l.kind {
                    LinkKind::Portal {
                        side,
                        edge,
                        neighbour_edge,
                        range_min,
                        range_max,
                    } => {
                        w.u8(0);
                        w.bytes(&[side, edge, neighbour_edge, range_min, range_max]);
                    }
                    LinkKind::OffMesh { link } => {
                        w.u8(1);
                        w.u32(link);
                    }
                    LinkKind::OffMeshReverse { owner_slot, link } => {
                        w.u8(2);
                        w.u32(owner_slot);
                        w.u32(link);
                    }
                }
            }
        }
        for c in t.off_mesh_connections() {
            for v in c.start.iter().chain(c.end.iter()) {
                w.f64(*v);
            }
            w.u64(c.start_poly.map_or(0, |r| r.0));
            w.u64(c.end_poly.map_or(0, |r| r.0));
        }
        for on in t.tile().link_enabled().iter() {
            w.u8(u8::from(*on));
        }
    }
    w.into_vec()
}

fn record_mesh(rec: &mut Recorder, step: &str, mesh: &TiledNavMesh) {
    rec.record(format!("{step}/onpm"), &NavMeshSerializer::write_mesh(mesh));
    rec.record(format!("{step}/links"), &link_bytes(mesh));
}

/// The ONPT bytes (as built and current) and content ids of hand-built tiles: the
/// bridge-and-building fixture (multi-layer, off-mesh links, areas) and flat grids.
pub(crate) fn format_tile_bytes(rec: &mut Recorder) -> Result<(), String> {
    let params = bridge_and_building_params();
    for (i, t) in bridge_and_building_tiles().map_err(err)?.iter().enumerate() {
        let (x, z, l) = t.position();
        let step = format!("bridge-and-building-{i}-{x}_{z}_{l}");
        let bytes = t.to_bytes();
        rec.record(format!("{step}/onpt"), &bytes);
        rec.record(format!("{step}/content-id"), &t.content_id().0);
        let back = NavTile::from_bytes(&bytes, &params).map_err(err)?;
        if back.to_bytes() != bytes {
            return Err(format!("{step}: ONPT does not round-trip"));
        }
    }
    let grid = NavMeshParams::new([-64.0, 2.5, 128.0], 8.0, 0.25, 6);
    for (i, (x, z, n)) in [(0, 0, 1), (-3, 7, 2), (5, -2, 4)].into_iter().enumerate() {
        let t = flat_grid_tile(&grid, x, z, 0, 1.25 * f64::from(i as u8), n).map_err(err)?;
        rec.record(format!("flat-grid-{i}/onpt"), &t.to_bytes());
    }
    Ok(())
}

/// A history of adds, removes, replaces, area/flag edits and link switches on the
/// bridge-and-building fixture, hashing ONPM and the stitched links at every step.
pub(crate) fn mesh_stitch(rec: &mut Recorder) -> Result<(), String> {
    let params = bridge_and_building_params();
    let tiles = bridge_and_building_tiles().map_err(err)?;
    let mut mesh = TiledNavMesh::new(params).map_err(err)?;
    let mut refs: Vec<TileRef> = Vec::new();
    for (i, t) in tiles.iter().enumerate() {
        refs.push(mesh.add_tile(t.clone()).map_err(err)?);
        record_mesh(rec, &format!("add-{i}"), &mesh);
    }
    // Edits: the first polygon of every tile gets area 7, the last one flags 0x8001.
    for (i, r) in refs.iter().enumerate() {
        let n = mesh.tile(*r).ok_or("tile vanished")?.tile().poly_count() as u32;
        mesh.set_poly_area(r.poly(0).ok_or("poly 0")?, 7)
            .map_err(err)?;
        mesh.set_poly_flags(r.poly(n - 1).ok_or("last poly")?, 0x8001)
            .map_err(err)?;
        record_mesh(rec, &format!("edit-{i}"), &mesh);
    }
    // Switch off every off-mesh link, one at a time, then the first back on.
    let with_links: Vec<(TileRef, usize)> = mesh
        .tiles()
        .map(|t| (t.tile_ref(), t.tile().data().off_mesh_links.len()))
        .filter(|(_, n)| *n > 0)
        .collect();
    for (r, n) in &with_links {
        for k in 0..*n {
            mesh.set_off_mesh_link_enabled(*r, k as u32, false)
                .map_err(err)?;
            record_mesh(rec, &format!("switch-off-{}-{k}", r.slot), &mesh);
        }
    }
    if let Some((r, _)) = with_links.first() {
        mesh.set_off_mesh_link_enabled(*r, 0, true).map_err(err)?;
        record_mesh(rec, "switch-on", &mesh);
    }
    // Remove the middle tile, replace the first one with its as-built self (new salt,
    // edits reset), remove a whole column, then add everything missing back.
    let mid = refs[refs.len() / 2];
    let removed = mesh.remove_tile(mid).map_err(err)?;
    record_mesh(rec, "remove-middle", &mesh);
    let first = tiles[0].clone();
    mesh.replace_tile(first).map_err(err)?;
    record_mesh(rec, "replace-first", &mesh);
    let (cx, cz, _) = tiles[tiles.len() - 1].position();
    let column = mesh.remove_column(cx, cz);
    record_mesh(
        rec,
        &format!("remove-column-{cx}_{cz}-{}", column.len()),
        &mesh,
    );
    mesh.add_tile(removed).map_err(err)?;
    record_mesh(rec, "re-add-middle", &mesh);
    for (i, t) in column.into_iter().enumerate() {
        mesh.add_tile(t).map_err(err)?;
        record_mesh(rec, &format!("re-add-column-{i}"), &mesh);
    }
    // ONPM round trip keeps the bytes (and stitches to the same links).
    let bytes = NavMeshSerializer::write_mesh(&mesh);
    let back = NavMeshSerializer::read_mesh(&bytes).map_err(err)?;
    if NavMeshSerializer::write_mesh(&back) != bytes {
        return Err("ONPM does not round-trip".into());
    }
    record_mesh(rec, "read-back", &back);
    Ok(())
}
