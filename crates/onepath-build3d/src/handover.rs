//! The hand-over: a tile's polygon mesh (and detail mesh) into [`NavTileData`]
//! (`docs/build3d-polys.md` §4).

use std::cmp::Ordering;

use onepath_format::{
    orient2d_exact, DetailMesh, DetailTriangle, NavMeshParams, NavTileData, NO_PORTAL,
};

use crate::detail::{reversed_triangle, PolyDetail};
use crate::error::BuildError;
use crate::polymesh::PolyMesh;

/// How cell coordinates of one tile become stored float32 positions.
#[derive(Debug, Clone, Copy)]
pub struct TileFrame {
    /// Tile edge in cells.
    pub tile_cells: i32,
    /// Horizontal cell size.
    pub cs: f64,
    /// Vertical cell size.
    pub ch: f64,
    /// World Y of cell height 0.
    pub base_y: f64,
    /// `(float)TileSize`.
    pub tile_size_f32: f32,
}

impl TileFrame {
    /// Tile-local float32 X (or Z) of a cell line: `(float)(i · cs)`, and exactly
    /// `(float)TileSize` on the far boundary so portal edges lie on it bitwise.
    pub fn local_xz(&self, i: i32) -> f32 {
        if i == self.tile_cells {
            self.tile_size_f32
        } else {
            (f64::from(i) * self.cs) as f32
        }
    }

    /// World Y of a height in cells.
    pub fn world_y(&self, y: i32) -> f64 {
        self.base_y + f64::from(y) * self.ch
    }
}

/// The polygon (cell vertices, either winding) in the counter-clockwise order it is stored
/// in, or `None` when it is not valid for the format in its stored float32 X/Z positions.
///
/// The rules are the format's polygon rules (`NavTile::create`), evaluated with the same
/// exact predicate ([`orient2d_exact`]) on the same float32 positions that
/// [`to_tile_data`] writes: at least three distinct vertex indices, no zero-length edge,
/// every other vertex left of or on every edge with at least one strictly left, and the
/// boundary winding exactly once. The winding is decided once, exactly, from the integer
/// cell area: a polygon of zero area in cells (all corners collinear, e.g. a sliver
/// triangle of collinear contour vertices) is degenerate and rejected, even when float32
/// rounding gives it a tiny area of either sign. The order returned here is the one
/// written, so the check and the output can never disagree.
pub fn stored_ccw_order(frame: &TileFrame, verts: &[[i32; 3]], poly: &[u32]) -> Option<Vec<u32>> {
    let reversed = stored_winding(frame, verts, poly)?;
    let mut order = poly.to_vec();
    if reversed {
        order.reverse();
    }
    Some(order)
}

/// Most vertices of a polygon checked without a heap buffer (the format's 16 and then some,
/// so the merges of the polygon stage, which stay within `max_verts_per_poly`, never
/// allocate).
const STACK_VERTS: usize = 32;

/// [`stored_ccw_order`] without building the order: `Some(false)` when `poly` is valid and
/// stored as given, `Some(true)` when valid and stored reversed, `None` when not valid.
fn stored_winding(frame: &TileFrame, verts: &[[i32; 3]], poly: &[u32]) -> Option<bool> {
    let n = poly.len();
    if n < 3 {
        return None;
    }
    for i in 0..n {
        for j in i + 1..n {
            if poly[i] == poly[j] {
                return None;
            }
        }
    }
    // Positive = counter-clockwise with X right and Z up; zero = degenerate.
    let reversed = match cell_area2(verts, poly).cmp(&0) {
        Ordering::Greater => false,
        Ordering::Less => true,
        Ordering::Equal => return None,
    };
    let mut stack = [[0f32; 2]; STACK_VERTS];
    let mut heap = Vec::new();
    let pts: &mut [[f32; 2]] = if n <= STACK_VERTS {
        &mut stack[..n]
    } else {
        heap.resize(n, [0f32; 2]);
        &mut heap
    };
    for (k, p) in pts.iter_mut().enumerate() {
        let v = verts[poly[if reversed { n - 1 - k } else { k }] as usize];
        *p = [frame.local_xz(v[0]), frame.local_xz(v[2])];
    }
    ccw_in_f32(pts).then_some(reversed)
}

/// The format's polygon rules on positions in counter-clockwise order: no zero-length
/// edge, every other vertex left of or on every edge with at least one strictly left, and
/// the boundary winding exactly once.
fn ccw_in_f32(pts: &[[f32; 2]]) -> bool {
    let n = pts.len();
    for i in 0..n {
        if pts[i] == pts[(i + 1) % n] {
            return false;
        }
    }
    for i in 0..n {
        let (a, b) = (pts[i], pts[(i + 1) % n]);
        let mut strict = false;
        for (k, &c) in pts.iter().enumerate() {
            if k == i || k == (i + 1) % n {
                continue;
            }
            match orient2d_exact(a, b, c) {
                Ordering::Less => return false,
                Ordering::Greater => strict = true,
                Ordering::Equal => {}
            }
        }
        if !strict {
            return false;
        }
    }
    // Every turn is left or straight: the edge directions must wrap from the lower half
    // plane of directions to the upper exactly once (the format's self-overlap rule).
    let upper = |k: usize| {
        let (a, b) = (pts[k % n], pts[(k + 1) % n]);
        b[1] > a[1] || (b[1] == a[1] && b[0] > a[0])
    };
    let wraps = (0..n).filter(|&k| !upper(k) && upper(k + 1)).count();
    wraps == 1
}

/// Whether the polygon (cell vertices, either winding) is valid for the format in its
/// stored float32 X/Z positions: [`stored_ccw_order`] accepts it.
pub fn convex_in_f32(frame: &TileFrame, verts: &[[i32; 3]], poly: &[u32]) -> bool {
    stored_winding(frame, verts, poly).is_some()
}

/// Twice the signed area in cells, positive when counter-clockwise with X right, Z up.
fn cell_area2(verts: &[[i32; 3]], poly: &[u32]) -> i64 {
    let n = poly.len();
    let mut a = 0i64;
    for i in 0..n {
        let p = verts[poly[i] as usize];
        let q = verts[poly[(i + 1) % n] as usize];
        a += i64::from(p[0]) * i64::from(q[2]) - i64::from(q[0]) * i64::from(p[2]);
    }
    a
}

/// Fills a tile's data from its polygon mesh: counter-clockwise polygons, adjacency from
/// reversed shared edges (an edge used by other than two polygons is a wall), portal sides
/// for wall edges lying on the tile boundary, areas, flags, and the detail mesh when given
/// (one entry per polygon). Polygons that [`stored_ccw_order`] rejects (not valid in
/// float32, or of zero area in cells) are left out. Returns
/// `None` when no polygon remains.
#[allow(clippy::too_many_arguments)]
pub fn to_tile_data(
    params: &NavMeshParams,
    frame: &TileFrame,
    tile_x: i32,
    tile_z: i32,
    layer: u16,
    mesh: &PolyMesh,
    detail: Option<&[PolyDetail]>,
    flags: u16,
) -> Result<Option<NavTileData>, BuildError> {
    to_tile_data_in(
        &mut TileScratch::default(),
        params,
        frame,
        tile_x,
        tile_z,
        layer,
        mesh,
        detail,
        flags,
    )
}

/// The working lists of [`to_tile_data`], kept from one tile to the next so the hand-over
/// allocates only the tile data it returns.
#[derive(Default)]
pub(crate) struct TileScratch {
    /// Kept polygons: (mesh polygon, reversed, first corner in `ring`).
    polys: Vec<(usize, bool, usize)>,
    /// The corners of the kept polygons, counter-clockwise.
    ring: Vec<u32>,
    /// Compacted index of each mesh vertex (`u32::MAX`: unused).
    remap: Vec<u32>,
    /// The mesh vertices used, in order of first use.
    used: Vec<u32>,
    /// The directed edges by start vertex and where each start's run begins.
    out_first: Vec<u32>,
    fill: Vec<u32>,
    out: Vec<(u32, u32)>,
}

/// [`to_tile_data`] with the working lists of `sc`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn to_tile_data_in(
    sc: &mut TileScratch,
    params: &NavMeshParams,
    frame: &TileFrame,
    tile_x: i32,
    tile_z: i32,
    layer: u16,
    mesh: &PolyMesh,
    detail: Option<&[PolyDetail]>,
    flags: u16,
) -> Result<Option<NavTileData>, BuildError> {
    let TileScratch {
        polys,
        ring,
        remap,
        used,
        out_first,
        fill,
        out,
    } = sc;
    // Keep valid polygons, counter-clockwise: (mesh polygon, reversed, first corner in
    // `ring`), the corners of all of them in one list.
    polys.clear();
    ring.clear();
    for (p, poly) in mesh.polys.iter().enumerate() {
        let Some(reversed) = stored_winding(frame, &mesh.verts, poly) else {
            continue;
        };
        polys.push((p, reversed, ring.len()));
        if reversed {
            ring.extend(poly.iter().rev());
        } else {
            ring.extend_from_slice(poly);
        }
    }
    let (polys, ring): (&[(usize, bool, usize)], &[u32]) = (polys, ring);
    let corners_of = |k: usize| -> &[u32] {
        let (p, _, first) = polys[k];
        &ring[first..first + mesh.polys[p].len()]
    };
    if polys.is_empty() {
        return Ok(None);
    }
    // Compact the vertices to those used, in order of first use.
    remap.clear();
    remap.resize(mesh.verts.len(), u32::MAX);
    used.clear();
    for &v in ring {
        if remap[v as usize] == u32::MAX {
            remap[v as usize] = used.len() as u32;
            used.push(v);
        }
    }
    if used.len() > usize::from(u16::MAX) {
        return Err(BuildError::input(
            format!("tile ({tile_x}, {tile_z})"),
            format!("{} vertices exceed the tile limit of 65535", used.len()),
        ));
    }
    // Vertical origin: the lowest vertex (polygon or detail).
    let mut min_y = i32::MAX;
    for &v in used.iter() {
        min_y = min_y.min(mesh.verts[v as usize][1]);
    }
    let mut origin_y = frame.world_y(min_y);
    if let Some(lowest) = detail
        .into_iter()
        .flat_map(|d| polys.iter().map(move |&(p, _, _)| &d[p]))
        .flat_map(|d| d.verts.iter().map(|v| v[1]))
        .reduce(f64::min)
    {
        origin_y = origin_y.min(lowest);
    }
    let limit = params.max_local_extent();
    let local_y = |wy: f64| -> Result<f32, BuildError> {
        let y = wy - origin_y;
        if y.abs() > limit {
            return Err(BuildError::input(
                format!("tile ({tile_x}, {tile_z})"),
                format!(
                    "a floor {y} above the tile's lowest vertex exceeds MaxLocalExtent {limit}"
                ),
            ));
        }
        Ok(y as f32)
    };
    let mut data = NavTileData {
        tile_x,
        tile_z,
        layer,
        origin_y,
        ..NavTileData::default()
    };
    let np = polys.len();
    data.vertices.reserve_exact(used.len());
    data.poly_sizes.reserve_exact(np);
    data.poly_areas.reserve_exact(np);
    data.poly_flags.reserve_exact(np);
    data.corners.reserve_exact(ring.len());
    data.edge_neighbours.reserve_exact(ring.len());
    data.edge_portal_sides.reserve_exact(ring.len());
    if let Some(d) = detail {
        let of_kept = || polys.iter().map(|&(p, _, _)| &d[p]);
        data.detail_meshes.reserve_exact(np);
        data.detail_vertices
            .reserve_exact(of_kept().map(|d| d.verts.len()).sum());
        data.detail_triangles
            .reserve_exact(of_kept().map(|d| d.tris.len()).sum());
    }
    for &v in used.iter() {
        let c = mesh.verts[v as usize];
        data.vertices.push([
            frame.local_xz(c[0]),
            local_y(frame.world_y(c[1]))?,
            frame.local_xz(c[2]),
        ]);
    }
    // Directed edges by start vertex (compacted index): `out[out_first[a]..out_first[a +
    // 1]]` holds (end vertex, polygon) of every edge leaving `a`, in polygon order.
    let nv = used.len();
    out_first.clear();
    out_first.resize(nv + 1, 0);
    for &v in ring {
        out_first[remap[v as usize] as usize + 1] += 1;
    }
    for a in 0..nv {
        out_first[a + 1] += out_first[a];
    }
    fill.clear();
    fill.extend_from_slice(&out_first[..nv]);
    out.clear();
    out.resize(ring.len(), (0, 0));
    for k in 0..polys.len() {
        let poly = corners_of(k);
        let n = poly.len();
        for e in 0..n {
            let a = remap[poly[e] as usize] as usize;
            let b = remap[poly[(e + 1) % n] as usize];
            out[fill[a] as usize] = (b, k as u32);
            fill[a] += 1;
        }
    }
    let edges_from = |a: u32| {
        let a = a as usize;
        &out[out_first[a] as usize..out_first[a + 1] as usize]
    };
    let tc = frame.tile_cells;
    for (p, &(mp, reversed, _)) in polys.iter().enumerate() {
        let poly = corners_of(p);
        let n = poly.len();
        data.poly_sizes.push(n as u8);
        data.poly_areas.push(mesh.areas[mp]);
        data.poly_flags.push(flags);
        for k in 0..n {
            let a = poly[k];
            let b = poly[(k + 1) % n];
            let (ca, cb) = (remap[a as usize], remap[b as usize]);
            data.corners.push(ca as u16);
            // The edge is shared when it is used once each way, by two polygons.
            let fwd = edges_from(ca).iter().filter(|e| e.0 == cb).count();
            let mut rev = edges_from(cb).iter().filter(|e| e.0 == ca);
            let neighbour = match (rev.next(), rev.next()) {
                (Some(&(_, q)), None) if fwd == 1 && q as usize != p => q + 1,
                _ => 0,
            };
            data.edge_neighbours.push(neighbour);
            let mut side = NO_PORTAL;
            if neighbour == 0 {
                let va = mesh.verts[a as usize];
                let vb = mesh.verts[b as usize];
                if va[0] == tc && vb[0] == tc && va[2] != vb[2] {
                    side = 0;
                } else if va[2] == tc && vb[2] == tc && va[0] != vb[0] {
                    side = 1;
                } else if va[0] == 0 && vb[0] == 0 && va[2] != vb[2] {
                    side = 2;
                } else if va[2] == 0 && vb[2] == 0 && va[0] != vb[0] {
                    side = 3;
                }
            }
            data.edge_portal_sides.push(side);
        }
        if let Some(d) = detail.map(|d| &d[mp]) {
            let vertex_base = data.detail_vertices.len() as u32;
            let triangle_base = data.detail_triangles.len() as u32;
            for v in &d.verts {
                data.detail_vertices
                    .push([v[0] as f32, local_y(v[1])?, v[2] as f32]);
            }
            for t in &d.tris {
                // `stored_winding` either keeps the order or reverses it.
                let t = if reversed {
                    reversed_triangle(*t, n)
                } else {
                    *t
                };
                data.detail_triangles.push(DetailTriangle {
                    v: [t[0], t[1], t[2]],
                    edge_flags: t[3],
                });
            }
            data.detail_meshes.push(DetailMesh {
                vertex_base,
                vertex_count: d.verts.len() as u32,
                triangle_base,
                triangle_count: d.tris.len() as u32,
            });
        }
    }
    if data.detail_meshes.len() != data.poly_sizes.len() {
        data.detail_meshes.clear();
        data.detail_vertices.clear();
        data.detail_triangles.clear();
    }
    Ok(Some(data))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame() -> TileFrame {
        TileFrame {
            tile_cells: 32,
            cs: 0.3,
            ch: 0.2,
            base_y: 0.0,
            tile_size_f32: 9.6,
        }
    }

    #[test]
    fn a_polygon_of_zero_area_in_cells_is_degenerate_and_rejected() {
        // (30, 28) lies on the segment (29, 31)–(32, 22) in cells; in float32 the rounded
        // positions (9.0, 8.4), (8.7, 9.3), (9.6, 6.6) are not exactly collinear.
        let verts = [[30, 0, 28], [29, 0, 31], [32, 0, 22]];
        let f = frame();
        let pts: Vec<[f32; 2]> = verts
            .iter()
            .map(|v| [f.local_xz(v[0]), f.local_xz(v[2])])
            .collect();
        assert_ne!(orient2d_exact(pts[0], pts[1], pts[2]), Ordering::Equal);
        assert_eq!(cell_area2(&verts, &[0, 1, 2]), 0);
        assert_eq!(stored_ccw_order(&f, &verts, &[0, 1, 2]), None);
        assert_eq!(stored_ccw_order(&f, &verts, &[2, 1, 0]), None);
        assert!(!convex_in_f32(&f, &verts, &[0, 1, 2]));
    }

    #[test]
    fn polygons_are_stored_counter_clockwise_in_the_order_checked() {
        let verts = [[0, 0, 0], [4, 0, 0], [4, 0, 4], [0, 0, 4]];
        let f = frame();
        // Counter-clockwise (X right, Z up) is kept; Recast's clockwise order is reversed.
        assert_eq!(
            stored_ccw_order(&f, &verts, &[0, 1, 2, 3]),
            Some(vec![0, 1, 2, 3])
        );
        assert_eq!(
            stored_ccw_order(&f, &verts, &[3, 2, 1, 0]),
            Some(vec![0, 1, 2, 3])
        );
        // A repeated index or a non-convex corner is rejected.
        assert_eq!(stored_ccw_order(&f, &verts, &[0, 1, 2, 0]), None);
        let dart = [[0, 0, 0], [4, 0, 0], [1, 0, 1], [0, 0, 4]];
        assert_eq!(stored_ccw_order(&f, &dart, &[0, 1, 2, 3]), None);
    }
}
