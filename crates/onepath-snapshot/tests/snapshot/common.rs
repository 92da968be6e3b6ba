//! Shared fixtures: a small edited mesh, a hand-written ONPS encoder (independent of the
//! crate's writer), and comparisons of everything observable about a mesh.

use onepath_format::bytes::ByteWriter;
use onepath_format::{FormatError, NavMeshParams, NavTile, OffMeshLinkSlot, PolyRef, TileRef};
use onepath_mesh::fixtures::{flat_grid_data, flat_grid_tile};
use onepath_mesh::query::{NavMeshQuery, QueryFilter, StraightPathOptions};
use onepath_mesh::{NavMeshDebug, NavMeshSerializer, TiledNavMesh};
use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, TileLibrary};

/// Parameters of the small meshes: tiles of 8, cells of 0.25, climb 0.5.
pub fn params() -> NavMeshParams {
    let mut p = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
    p.walkable_climb = 0.5;
    p
}

/// Two off-mesh links inside the tile, both attached (start and end on the tile).
pub fn links() -> Vec<OffMeshLinkSlot> {
    let link = |start: [f32; 3], end: [f32; 3], user_id| OffMeshLinkSlot {
        start,
        end,
        radius: 1.0,
        area: 1,
        bidirectional: true,
        flags: 1,
        user_id,
    };
    vec![
        link([2.0, 0.0, 2.0], [6.0, 0.0, 6.0], 1),
        link([6.0, 0.0, 2.0], [2.0, 0.0, 6.0], 2),
    ]
}

/// A flat 2 × 2 tile at (x, z, layer) with the two off-mesh links of [`links`].
pub fn linked_tile(p: &NavMeshParams, x: i32, z: i32, layer: u16, origin_y: f64) -> NavTile {
    let mut d = flat_grid_data(p, x, z, layer, origin_y, 2);
    d.off_mesh_links = links();
    NavTile::create(p, d).unwrap()
}

/// Slot 0: flat 2 × 2 tile (0, 0), generation 2 (replaced), area of polygon 1 set to 5.
/// Slot 1: linked tile (1, 0), generation 1, flags of polygon 3 set to 0x10, link 1 off.
/// Slot 2: free, generation 2.
pub fn small_mesh() -> TiledNavMesh {
    let p = params();
    let mut m = TiledNavMesh::new(p).unwrap();
    m.add_tile(flat_grid_tile(&p, 0, 0, 0, 0.0, 2).unwrap())
        .unwrap();
    let b = m.add_tile(linked_tile(&p, 1, 0, 0, 0.0)).unwrap();
    let c = m
        .add_tile(flat_grid_tile(&p, 0, 1, 0, 0.0, 2).unwrap())
        .unwrap();
    m.remove_tile(c).unwrap();
    let (a, _) = m
        .replace_tile(flat_grid_tile(&p, 0, 0, 0, 0.0, 2).unwrap())
        .unwrap();
    m.set_poly_area(a.poly(1).unwrap(), 5).unwrap();
    m.set_poly_flags(b.poly(3).unwrap(), 0x10).unwrap();
    m.set_off_mesh_link_enabled(b, 1, false).unwrap();
    m
}

/// A library holding the as-built tiles of `mesh`.
pub fn library_of(mesh: &TiledNavMesh) -> TileLibrary {
    let mut lib = TileLibrary::new(mesh.params());
    lib.extend(mesh.tiles().map(|t| t.tile())).unwrap();
    lib
}

/// How a hand-written slot names its tile.
#[derive(Debug, Clone)]
pub enum Entry {
    /// Kind 0.
    Free,
    /// Kind 1 with these tile bytes.
    Inline(Vec<u8>),
    /// Kind 2 with this content id.
    Referenced([u8; 32]),
}

/// One hand-written slot.
#[derive(Debug, Clone)]
pub struct SlotBytes {
    pub generation: u32,
    pub entry: Entry,
    pub edits: Vec<(u32, u8, u16)>,
    pub disabled: Vec<u32>,
}

/// The slots of `mesh` as a snapshot in `mode` describes them, computed from the mesh's
/// public accessors (not from the crate's writer).
pub fn slots_of(mesh: &TiledNavMesh, mode: SnapshotMode) -> Vec<SlotBytes> {
    mesh.slots()
        .map(|s| match s.tile {
            None => SlotBytes {
                generation: s.generation,
                entry: Entry::Free,
                edits: Vec::new(),
                disabled: Vec::new(),
            },
            Some(t) => {
                let tile = t.tile();
                let ba = tile.as_built_areas();
                let bf = tile.as_built_flags();
                let edits = (0..tile.poly_count())
                    .filter(|&p| tile.areas()[p] != ba[p] || tile.flags()[p] != bf[p])
                    .map(|p| (p as u32, tile.areas()[p], tile.flags()[p]))
                    .collect();
                let disabled = (0..tile.link_enabled().len())
                    .filter(|&l| !tile.link_enabled()[l])
                    .map(|l| l as u32)
                    .collect();
                SlotBytes {
                    generation: s.generation,
                    entry: match mode {
                        SnapshotMode::Full => Entry::Inline(tile.to_bytes()),
                        SnapshotMode::Referenced => Entry::Referenced(tile.content_id().0),
                    },
                    edits,
                    disabled,
                }
            }
        })
        .collect()
}

/// The body of section 1 for these slots.
pub fn slots_body(slots: &[SlotBytes]) -> Vec<u8> {
    let mut w = ByteWriter::new();
    w.u32(slots.len() as u32);
    for s in slots {
        w.u32(s.generation);
        match &s.entry {
            Entry::Free => {
                w.u8(0);
                continue;
            }
            Entry::Inline(b) => {
                w.u8(1);
                w.u32(b.len() as u32);
                w.bytes(b);
            }
            Entry::Referenced(id) => {
                w.u8(2);
                w.bytes(id);
            }
        }
        w.u32(s.edits.len() as u32);
        for &(p, a, f) in &s.edits {
            w.u32(p);
            w.u8(a);
            w.u16(f);
        }
        w.u32(s.disabled.len() as u32);
        for &l in &s.disabled {
            w.u32(l);
        }
    }
    w.into_vec()
}

/// A whole ONPS file: header with `params`, then `(id, reserved, body)` sections.
pub fn onps(params: &NavMeshParams, sections: &[(u16, u16, Vec<u8>)]) -> Vec<u8> {
    let mut w = ByteWriter::new();
    w.bytes(b"ONPS");
    w.u16(2);
    w.u16(0);
    params.write_block(&mut w);
    w.u32(sections.len() as u32);
    for (id, reserved, body) in sections {
        w.u16(*id);
        w.u16(*reserved);
        w.u32(body.len() as u32);
        w.bytes(body);
    }
    w.into_vec()
}

/// A snapshot with the one slots section holding `slots`.
pub fn onps_slots(params: &NavMeshParams, slots: &[SlotBytes]) -> Vec<u8> {
    onps(params, &[(1, 0, slots_body(slots))])
}

/// A slot's generation and its tile's (column, row, layer).
pub type SlotSummary = (u32, Option<(i32, i32, u16)>);

/// Everything observable about a mesh without queries: ONPM bytes, both snapshots, the
/// debug geometry (polygons with current values, stitched links), slots and generations.
#[derive(Debug, PartialEq)]
pub struct Observed {
    pub onpm: Vec<u8>,
    pub full: Vec<u8>,
    pub referenced: Vec<u8>,
    pub debug: NavMeshDebug,
    pub slots: Vec<SlotSummary>,
}

pub fn observe(mesh: &TiledNavMesh) -> Observed {
    Observed {
        onpm: NavMeshSerializer::write_mesh(mesh),
        full: NavMeshSnapshot::take(mesh, SnapshotMode::Full),
        referenced: NavMeshSnapshot::take(mesh, SnapshotMode::Referenced),
        debug: NavMeshDebug::collect(mesh),
        slots: mesh
            .slots()
            .map(|s| (s.generation, s.tile.map(|t| t.tile().position())))
            .collect(),
    }
}

/// Polygon references to probe: every current one, the same with the neighbouring salts
/// (stale or future), one past every polygon count and every slot count, and the null and
/// all-ones values.
pub fn probe_refs(meshes: &[&TiledNavMesh]) -> Vec<PolyRef> {
    let mut out = vec![PolyRef::NULL, PolyRef(u64::MAX)];
    for m in meshes {
        for s in m.slots() {
            let polys = s.tile.map_or(1, |t| t.tile().poly_count() as u32 + 1);
            // Salt 0 is never issued: forged.
            out.push(PolyRef(u64::from(s.slot) << 20));
            for salt in [
                s.generation.saturating_sub(1),
                s.generation,
                s.generation + 1,
            ] {
                for p in 0..polys {
                    if let Some(r) = PolyRef::new(salt, s.slot, p) {
                        out.push(r);
                    }
                }
            }
        }
        if let Some(r) = (TileRef {
            salt: 1,
            slot: m.slot_count(),
        })
        .poly(0)
        {
            out.push(r);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// For each probe: validity, current area and flags, and links (as comparable values).
pub fn ref_behaviour(mesh: &TiledNavMesh, refs: &[PolyRef]) -> Vec<String> {
    refs.iter()
        .map(|&r| {
            format!(
                "{:?} {} {:?} {:?} {:?}",
                r,
                mesh.is_valid_poly_ref(r),
                mesh.poly_area(r),
                mesh.poly_flags(r),
                mesh.poly_links(r)
            )
        })
        .collect()
}

/// Asserts a malformed error located exactly at `at`.
#[track_caller]
pub fn assert_malformed_at<T: std::fmt::Debug>(r: Result<T, FormatError>, at: &str) {
    match r {
        Err(FormatError::Malformed { at: found, reason }) => {
            assert_eq!(found, at, "reason: {reason}")
        }
        other => panic!("expected Malformed at {at:?}, got {other:?}"),
    }
}

/// Query probe points: the X/Z centre of the first and last polygon of each tile of
/// `mesh` (slot order), at most `max`.
pub fn probe_points(mesh: &TiledNavMesh, max: usize) -> Vec<[f64; 3]> {
    let debug = NavMeshDebug::collect(mesh);
    let mut out = Vec::new();
    for t in mesh.tiles() {
        let first = t.poly_ref(0).unwrap();
        let last = t.poly_ref(t.tile().poly_count() as u32 - 1).unwrap();
        for r in [first, last] {
            let poly = debug.polygons.iter().find(|p| p.poly == r).unwrap();
            let n = poly.outline.len() as f64;
            let c = poly.outline.iter().fold([0.0; 3], |a, v| {
                [a[0] + v[0] / n, a[1] + v[1] / n, a[2] + v[2] / n]
            });
            out.push(c);
        }
    }
    out.truncate(max);
    out
}

/// The filters the query battery runs under: default, area costs, an excluded flag.
pub fn probe_filters() -> Vec<QueryFilter> {
    let mut costly = QueryFilter::new();
    costly.set_area_cost(1, 10.0).unwrap();
    costly.set_area_cost(5, 3.5).unwrap();
    costly.set_area_cost(2, 0.5).unwrap();
    let mut exclude = QueryFilter::new();
    exclude.set_exclude_flags(0x2);
    vec![QueryFilter::new(), costly, exclude]
}

/// Every query result (nearest, path, string pulling, raycast) for the probe points under
/// the probe filters, as exact Debug text (f64 printed round-trip exact).
pub fn query_battery(mesh: &TiledNavMesh, points: &[[f64; 3]]) -> Vec<String> {
    query_battery_with(&mut NavMeshQuery::new(), mesh, points)
}

/// [`query_battery`] with a caller's query object (its buffers and caches reused).
pub fn query_battery_with(
    q: &mut NavMeshQuery,
    mesh: &TiledNavMesh,
    points: &[[f64; 3]],
) -> Vec<String> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    let mut corners = Vec::new();
    let mut visited = Vec::new();
    for filter in probe_filters() {
        let nearest: Vec<_> = points
            .iter()
            .map(|&p| q.find_nearest_poly(mesh, p, [2.0, 5.0, 2.0], &filter))
            .collect();
        out.push(format!("{nearest:?}"));
        let found: Vec<_> = nearest
            .iter()
            .filter_map(|n| n.clone().ok().flatten())
            .collect();
        for (i, a) in found.iter().enumerate() {
            for b in found.iter().skip(i + 1).step_by(2) {
                let r = q.find_path(
                    mesh, a.poly, b.poly, a.point, b.point, &filter, 4096, &mut path,
                );
                out.push(format!("path {r:?} {path:?}"));
                if r.is_ok() && !path.is_empty() {
                    let s = q.find_straight_path(
                        mesh,
                        a.point,
                        b.point,
                        &path,
                        &filter,
                        StraightPathOptions::default(),
                        &mut corners,
                    );
                    out.push(format!("straight {s:?} {corners:?}"));
                }
                let hit = q.raycast(mesh, a.poly, a.point, b.point, &filter, &mut visited);
                out.push(format!("raycast {hit:?} {visited:?}"));
            }
        }
    }
    out
}
