//! Polygon primitives every query reads: a polygon's corners in world space, its centre,
//! the midpoint of a crossing, the shared segment of a portal, reference decoding, the
//! tie key of every tie-break and the filter test. One definition each, so that every
//! query (and every cached copy of a value) computes with the same operations in the
//! same order.

use smallvec::SmallVec;

use onepath_format::{PolyRef, NO_PORTAL};

use crate::mesh::{MeshTile, PortalEntry, PortalIndex, TiledNavMesh};
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{lerp, Vec3};
use crate::LinkKind;

/// A polygon outline in world space (at most 16 corners).
pub type PolyVerts = SmallVec<[Vec3; 16]>;

/// World position of a tile-local vertex: `origin + f64(local)`, per component.
pub(crate) fn world(origin: [f64; 3], v: [f32; 3]) -> Vec3 {
    [
        origin[0] + f64::from(v[0]),
        origin[1] + f64::from(v[1]),
        origin[2] + f64::from(v[2]),
    ]
}

/// Fills `out` with the world-space corners of polygon `p` of `tile`, in corner order.
pub(crate) fn poly_verts(tile: &MeshTile, p: usize, out: &mut PolyVerts) {
    out.clear();
    let d = tile.tile().data();
    let o = tile.origin();
    for c in tile.tile().poly_corners(p) {
        out.push(world(o, d.vertices[usize::from(d.corners[c])]));
    }
}

/// The centre of a polygon: the average of its corners, summed in corner order.
pub(crate) fn poly_centre(verts: &[Vec3]) -> Vec3 {
    let mut c = [0.0; 3];
    for v in verts {
        c[0] += v[0];
        c[1] += v[1];
        c[2] += v[2];
    }
    let n = verts.len() as f64;
    [c[0] / n, c[1] / n, c[2] / n]
}

/// The order of polygons in every tie-break: slot, then polygon index (the reference without
/// its salt), so that answers do not depend on slot generations: a tile streamed out and
/// back in (same slot, new salt) answers exactly as before.
pub fn tie_key(r: PolyRef) -> u64 {
    r.0 & ((1u64 << 40) - 1)
}

/// Decodes a reference or names it in [`QueryError::InvalidPolyRef`].
pub(crate) fn decode(mesh: &TiledNavMesh, r: PolyRef) -> Result<(&MeshTile, usize), QueryError> {
    mesh.poly(r).map_err(|_| QueryError::InvalidPolyRef(r))
}

/// Decodes a reference that must also pass `filter` (a query's start polygon):
/// [`QueryError::InvalidPolyRef`] or [`QueryError::FilteredOut`] naming it.
pub(crate) fn decode_passing<'m>(
    mesh: &'m TiledNavMesh,
    r: PolyRef,
    filter: &QueryFilter,
) -> Result<(&'m MeshTile, usize), QueryError> {
    let (t, p) = decode(mesh, r)?;
    if !poly_passes(t, p, filter) {
        return Err(QueryError::FilteredOut(r));
    }
    Ok((t, p))
}

/// True when the polygon's current flags pass the filter.
pub(crate) fn poly_passes(tile: &MeshTile, p: usize, filter: &QueryFilter) -> bool {
    filter.passes_flags(tile.tile().flags()[p])
}

/// The midpoint of `a` and `b`, per component `(a + b)·0.5`: the point the cost model
/// measures an edge crossing through.
#[inline]
pub(crate) fn midpoint(a: Vec3, b: Vec3) -> Vec3 {
    [
        (a[0] + b[0]) * 0.5,
        (a[1] + b[1]) * 0.5,
        (a[2] + b[2]) * 0.5,
    ]
}

/// `a + (b − a)·t`, but exactly `b` at `t = 1` (and `a` at 0).
fn edge_point(a: Vec3, b: Vec3, t: f64) -> Vec3 {
    if t >= 1.0 {
        b
    } else {
        lerp(a, b, t)
    }
}

/// Rows: every polygon of the mesh numbered in slot order, then polygon order. Returns the
/// row of polygon 0 of each slot (`u32::MAX` for an empty slot) and the row count, or
/// `None` when the rows would not fit in `u32` (the compiled graph and the v2 landmark
/// table number their polygons this way).
pub(crate) fn slot_rows(mesh: &TiledNavMesh) -> Option<(Vec<u32>, usize)> {
    let mut slot_base = vec![u32::MAX; mesh.slot_count() as usize];
    let mut rows = 0usize;
    for (s, base) in slot_base.iter_mut().enumerate() {
        if let Some(t) = mesh.tile_at_slot(s as u32) {
            *base = u32::try_from(rows).ok()?;
            rows = rows.checked_add(t.tile().poly_count())?;
        }
    }
    u32::try_from(rows).ok()?;
    Some((slot_base, rows))
}

/// The part of edge `edge` of polygon `p` shared with edge `nedge` of polygon `q` of the
/// neighbouring tile, as (left, right) on `p`'s edge: the intersection of the two edges'
/// intervals along the boundary axis (Z for sides 0 and 2, X for 1 and 3).
pub(crate) fn portal_segment(
    tile: &MeshTile,
    p: usize,
    edge: u8,
    side: u8,
    other: &MeshTile,
    q: usize,
    nedge: u8,
) -> Option<(Vec3, Vec3)> {
    let ends = |t: &MeshTile, poly: usize, e: u8| -> Option<(Vec3, Vec3)> {
        let d = t.tile().data();
        let c = t.tile().poly_corners(poly);
        let n = c.len();
        let e = usize::from(e);
        if e >= n {
            return None;
        }
        if d.edge_portal_sides[c.start + e] == NO_PORTAL {
            return None;
        }
        let a = world(t.origin(), d.vertices[usize::from(d.corners[c.start + e])]);
        let b = world(
            t.origin(),
            d.vertices[usize::from(d.corners[c.start + (e + 1) % n])],
        );
        Some((a, b))
    };
    let (a, b) = ends(tile, p, edge)?;
    let (c, d) = ends(other, q, nedge)?;
    let u = if side & 1 == 0 { 2 } else { 0 };
    let lo = a[u].min(b[u]).max(c[u].min(d[u]));
    let hi = a[u].max(b[u]).min(c[u].max(d[u]));
    if !(hi > lo) {
        return None;
    }
    let span = b[u] - a[u];
    let t0 = ((lo - a[u]) / span).clamp(0.0, 1.0);
    let t1 = ((hi - a[u]) / span).clamp(0.0, 1.0);
    let (tmin, tmax) = if t0 <= t1 { (t0, t1) } else { (t1, t0) };
    // Edge k runs from corner k (right, seen leaving) to corner k + 1 (left).
    Some((edge_point(a, b, tmax), edge_point(a, b, tmin)))
}

/// The portal index of `tile` (see [`PortalIndex`]): per corner slot, the portal links on
/// that edge whose target decodes and whose covered part ([`portal_segment`]) is not empty,
/// in link order, with that part. The filter is not applied here (flags change at run time;
/// the reader tests the target's flags).
///
/// Written into `index` (its old content is dropped, its buffers reused); `found` is scratch
/// (one polygon's entries as (edge, entry) in link order: the entries of corner slot `e` are
/// those with edge `e`, in the same order).
pub(crate) fn portal_index(
    mesh: &TiledNavMesh,
    tile: &MeshTile,
    index: &mut PortalIndex,
    found: &mut Vec<(u8, PortalEntry)>,
) {
    let t = tile.tile();
    let corner_count = t.data().corners.len();
    index.first.clear();
    index.first.reserve(corner_count + 1);
    index.entries.clear();
    for p in 0..t.poly_count() {
        let corners = t.poly_corners(p);
        found.clear();
        let links = tile.poly_links(p);
        for (i, link) in links.iter().enumerate() {
            let LinkKind::Portal {
                side,
                edge,
                neighbour_edge,
                ..
            } = link.kind
            else {
                continue;
            };
            let Ok((tt, tp)) = mesh.poly(link.target) else {
                continue;
            };
            let Some((left, right)) = portal_segment(tile, p, edge, side, tt, tp, neighbour_edge)
            else {
                continue;
            };
            // `portal_segment` refuses an edge past the polygon's corners.
            found.push((
                edge,
                PortalEntry {
                    link: i as u32,
                    target: link.target,
                    shadowed: links[..i].iter().any(|l| l.target == link.target),
                    left,
                    right,
                },
            ));
        }
        for e in 0..corners.len() {
            index.first.push(index.entries.len() as u32);
            index.entries.extend(
                found
                    .iter()
                    .filter(|(edge, _)| usize::from(*edge) == e)
                    .map(|&(_, entry)| entry),
            );
        }
    }
    index.first.push(index.entries.len() as u32);
}
