//! The polygon mesh: each contour triangulated by ear clipping and the triangles merged
//! greedily into convex polygons of at most MaxVertsPerPoly vertices
//! (`docs/build3d-polys.md` §1–§2).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::contour::{Contour, BORDER_VERTEX};

/// Polygons over shared vertices, in tile cells (x and z 0..=tile_cells, y in cell heights
/// above the heightfield's origin).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PolyMesh {
    /// Vertices (x, y, z) in cells.
    pub verts: Vec<[i32; 3]>,
    /// Vertex indices of each polygon, in Recast's winding (clockwise with +Z up).
    pub polys: Vec<Vec<u32>>,
    /// Regions each polygon covers, ascending: one, or several when removing a border vertex
    /// joined polygons of several regions (`docs/build3d-polys.md` §2).
    pub regs: Vec<Vec<u16>>,
    /// Area of each polygon.
    pub areas: Vec<u8>,
}

#[inline]
fn area2(a: [i32; 4], b: [i32; 4], c: [i32; 4]) -> i64 {
    (i64::from(b[0]) - i64::from(a[0])) * (i64::from(c[2]) - i64::from(a[2]))
        - (i64::from(c[0]) - i64::from(a[0])) * (i64::from(b[2]) - i64::from(a[2]))
}
#[inline]
fn left(a: [i32; 4], b: [i32; 4], c: [i32; 4]) -> bool {
    area2(a, b, c) < 0
}
#[inline]
fn left_on(a: [i32; 4], b: [i32; 4], c: [i32; 4]) -> bool {
    area2(a, b, c) <= 0
}
#[inline]
fn collinear(a: [i32; 4], b: [i32; 4], c: [i32; 4]) -> bool {
    area2(a, b, c) == 0
}
#[inline]
fn vequal(a: [i32; 4], b: [i32; 4]) -> bool {
    a[0] == b[0] && a[2] == b[2]
}

fn intersect_prop(a: [i32; 4], b: [i32; 4], c: [i32; 4], d: [i32; 4]) -> bool {
    if collinear(a, b, c) || collinear(a, b, d) || collinear(c, d, a) || collinear(c, d, b) {
        return false;
    }
    (left(a, b, c) ^ left(a, b, d)) && (left(c, d, a) ^ left(c, d, b))
}

fn between(a: [i32; 4], b: [i32; 4], c: [i32; 4]) -> bool {
    if !collinear(a, b, c) {
        return false;
    }
    if a[0] != b[0] {
        (a[0] <= c[0] && c[0] <= b[0]) || (a[0] >= c[0] && c[0] >= b[0])
    } else {
        (a[2] <= c[2] && c[2] <= b[2]) || (a[2] >= c[2] && c[2] >= b[2])
    }
}

/// Whether segments ab and cd intersect, properly or improperly (cells, X/Z).
pub(crate) fn intersect(a: [i32; 4], b: [i32; 4], c: [i32; 4], d: [i32; 4]) -> bool {
    intersect_prop(a, b, c, d)
        || between(a, b, c)
        || between(a, b, d)
        || between(c, d, a)
        || between(c, d, b)
}

struct Ring<'a> {
    verts: &'a [[i32; 4]],
    idx: Vec<usize>,
    ear: Vec<bool>,
}

impl Ring<'_> {
    fn n(&self) -> usize {
        self.idx.len()
    }
    fn next(&self, i: usize) -> usize {
        if i + 1 >= self.n() {
            0
        } else {
            i + 1
        }
    }
    fn prev(&self, i: usize) -> usize {
        if i == 0 {
            self.n() - 1
        } else {
            i - 1
        }
    }
    fn v(&self, i: usize) -> [i32; 4] {
        self.verts[self.idx[i]]
    }
    fn diagonalie(&self, i: usize, j: usize, loose: bool) -> bool {
        let d0 = self.v(i);
        let d1 = self.v(j);
        let (xlo, xhi) = (d0[0].min(d1[0]), d0[0].max(d1[0]));
        let (zlo, zhi) = (d0[2].min(d1[2]), d0[2].max(d1[2]));
        let n = self.n();
        let mut p1 = self.v(0);
        for k in 0..n {
            let k1 = if k + 1 == n { 0 } else { k + 1 };
            let p0 = p1;
            p1 = self.v(k1);
            // Disjoint boxes (X/Z): no common point, so neither test can hit (a proper
            // crossing and a vertex between the other's ends both lie in both boxes).
            if p0[0].min(p1[0]) > xhi
                || p0[0].max(p1[0]) < xlo
                || p0[2].min(p1[2]) > zhi
                || p0[2].max(p1[2]) < zlo
            {
                continue;
            }
            if k == i || k1 == i || k == j || k1 == j {
                continue;
            }
            if vequal(d0, p0) || vequal(d1, p0) || vequal(d0, p1) || vequal(d1, p1) {
                continue;
            }
            let hit = if loose {
                intersect_prop(d0, d1, p0, p1)
            } else {
                intersect(d0, d1, p0, p1)
            };
            if hit {
                return false;
            }
        }
        true
    }
    fn in_cone(&self, i: usize, j: usize, loose: bool) -> bool {
        let pi = self.v(i);
        let pj = self.v(j);
        let pi1 = self.v(self.next(i));
        let pin1 = self.v(self.prev(i));
        if left_on(pin1, pi, pi1) {
            if loose {
                return left_on(pi, pj, pin1) && left_on(pj, pi, pi1);
            }
            return left(pi, pj, pin1) && left(pj, pi, pi1);
        }
        !(left_on(pi, pj, pi1) && left_on(pj, pi, pin1))
    }
    fn diagonal(&self, i: usize, j: usize, loose: bool) -> bool {
        self.in_cone(i, j, loose) && self.diagonalie(i, j, loose)
    }
    fn dist_sq(&self, i: usize, j: usize) -> i64 {
        let a = self.v(i);
        let b = self.v(j);
        let dx = i64::from(b[0] - a[0]);
        let dz = i64::from(b[2] - a[2]);
        dx * dx + dz * dz
    }
}

/// Ear-clipping triangulation of a simple contour (indices into `verts`). The ear with the
/// shortest closing diagonal goes first (ties: the lowest position in the ring). Returns
/// the triangles and whether the whole contour was triangulated (a contour that touches
/// itself can leave a rest with no ear, even by the loose test; the triangles cut until
/// then are kept).
pub fn triangulate(verts: &[[i32; 4]]) -> (Vec<[usize; 3]>, bool) {
    let mut scratch = RingScratch::default();
    let mut tris = Vec::with_capacity(verts.len().saturating_sub(2));
    let complete = triangulate_into(verts, &mut scratch, &mut tris);
    (tris, complete)
}

/// The ring buffers of [`triangulate`], kept across contours.
#[derive(Default)]
pub(crate) struct RingScratch {
    idx: Vec<usize>,
    ear: Vec<bool>,
}

/// [`triangulate`] into `tris` (cleared first) with the ring buffers of `scratch`; returns
/// whether the whole contour was triangulated.
pub(crate) fn triangulate_into(
    verts: &[[i32; 4]],
    scratch: &mut RingScratch,
    tris: &mut Vec<[usize; 3]>,
) -> bool {
    let n = verts.len();
    tris.clear();
    let mut idx = std::mem::take(&mut scratch.idx);
    let mut ear = std::mem::take(&mut scratch.ear);
    idx.clear();
    idx.extend(0..n);
    ear.clear();
    ear.resize(n, false);
    let mut r = Ring { verts, idx, ear };
    let complete = clip_ears(&mut r, tris);
    scratch.idx = r.idx;
    scratch.ear = r.ear;
    complete
}

fn clip_ears(r: &mut Ring<'_>, tris: &mut Vec<[usize; 3]>) -> bool {
    let n = r.n();
    for i in 0..n {
        let i2 = r.next(r.next(i));
        let i1 = r.next(i);
        r.ear[i1] = r.diagonal(i, i2, false);
    }
    while r.n() > 3 {
        let mut best: Option<(i64, usize)> = None;
        for i in 0..r.n() {
            let i1 = r.next(i);
            if r.ear[i1] {
                let len = r.dist_sq(i, r.next(i1));
                if best.map_or(true, |(b, _)| len < b) {
                    best = Some((len, i));
                }
            }
        }
        if best.is_none() {
            for i in 0..r.n() {
                let i1 = r.next(i);
                let i2 = r.next(i1);
                if r.diagonal(i, i2, true) {
                    let len = r.dist_sq(i, i2);
                    if best.map_or(true, |(b, _)| len < b) {
                        best = Some((len, i));
                    }
                }
            }
        }
        let Some((_, i)) = best else {
            return false;
        };
        let mut i1 = r.next(i);
        let i2 = r.next(i1);
        tris.push([r.idx[i], r.idx[i1], r.idx[i2]]);
        r.idx.remove(i1);
        r.ear.remove(i1);
        if i1 >= r.n() {
            i1 = 0;
        }
        let i = r.prev(i1);
        let pi = r.prev(i);
        r.ear[i] = r.diagonal(pi, i1, false);
        let ni1 = r.next(i1);
        r.ear[i1] = r.diagonal(i, ni1, false);
    }
    tris.push([r.idx[0], r.idx[1], r.idx[2]]);
    true
}

fn uleft(a: [i32; 3], b: [i32; 3], c: [i32; 3]) -> bool {
    (i64::from(b[0]) - i64::from(a[0])) * (i64::from(c[2]) - i64::from(a[2]))
        - (i64::from(c[0]) - i64::from(a[0])) * (i64::from(b[2]) - i64::from(a[2]))
        < 0
}

/// The merge value of two polygons sharing an edge: the squared length of that edge when
/// the merged polygon stays convex (strictly, in cells) and within `nvp` vertices.
/// `(i + 1) % n` for `i < n`, without a division (it sits in the merge's inner loops).
#[inline]
fn next(i: usize, n: usize) -> usize {
    if i + 1 == n {
        0
    } else {
        i + 1
    }
}

fn merge_value(
    pa: &[u32],
    pb: &[u32],
    verts: &[[i32; 3]],
    nvp: usize,
) -> Option<(i64, usize, usize)> {
    let na = pa.len();
    let nb = pb.len();
    if na + nb - 2 > nvp {
        return None;
    }
    let mut found = None;
    'outer: for i in 0..na {
        let (mut va0, mut va1) = (pa[i], pa[next(i, na)]);
        if va0 > va1 {
            std::mem::swap(&mut va0, &mut va1);
        }
        for j in 0..nb {
            let (mut vb0, mut vb1) = (pb[j], pb[next(j, nb)]);
            if vb0 > vb1 {
                std::mem::swap(&mut vb0, &mut vb1);
            }
            if va0 == vb0 && va1 == vb1 {
                found = Some((i, j));
                break 'outer;
            }
        }
    }
    let (ea, eb) = found?;
    let v = |k: u32| verts[k as usize];
    if !uleft(v(pa[(ea + na - 1) % na]), v(pa[ea]), v(pb[(eb + 2) % nb])) {
        return None;
    }
    if !uleft(v(pb[(eb + nb - 1) % nb]), v(pb[eb]), v(pa[(ea + 2) % na])) {
        return None;
    }
    let a = v(pa[ea]);
    let b = v(pa[(ea + 1) % na]);
    let dx = i64::from(a[0] - b[0]);
    let dz = i64::from(a[2] - b[2]);
    Some((dx * dx + dz * dz, ea, eb))
}

/// A veto on merges: given the mesh vertices and a merged polygon, whether to allow it.
pub type ConvexCheck<'a> = dyn Fn(&[[i32; 3]], &[u32]) -> bool + 'a;

/// Builds the polygon mesh of a tile's contours. `convex_ok` is asked about every merge
/// (with the merged vertex list) and can veto it (the hand-over uses it to keep polygons
/// convex in stored float32 positions too). Vertices where two regions meet the tile's
/// border ring are then removed where the rule of `docs/build3d-polys.md` §2 ("Border
/// vertices") allows.
pub fn build_poly_mesh(contours: &[Contour], nvp: usize, convex_ok: &ConvexCheck<'_>) -> PolyMesh {
    let mut mesh = PolyMesh::default();
    build_poly_mesh_into(
        &mut PolyScratch::default(),
        &mut mesh,
        contours,
        nvp,
        convex_ok,
    );
    mesh
}

/// The buffers of [`build_poly_mesh`], kept from one contour (and one build) to the next so
/// the polygon stage allocates little more than the polygons it returns.
#[derive(Default)]
pub(crate) struct PolyScratch {
    weld: Weld,
    on_border: Vec<bool>,
    /// Mesh vertex of each vertex of the contour.
    map: Vec<u32>,
    ring: RingScratch,
    tris: Vec<[usize; 3]>,
    /// The polygons of one contour.
    polys: Vec<Vec<u32>>,
    merge: MergeScratch,
    /// Region lists of an earlier mesh, for the next polygons.
    spare_regs: Vec<Vec<u16>>,
}

/// [`build_poly_mesh`] with the buffers of `sc`, into `mesh` (whatever it held is replaced;
/// its polygon and region lists are reused for the new polygons).
pub(crate) fn build_poly_mesh_into<'c, I>(
    sc: &mut PolyScratch,
    mesh: &mut PolyMesh,
    contours: I,
    nvp: usize,
    convex_ok: &ConvexCheck<'_>,
) where
    I: IntoIterator<Item = &'c Contour>,
    I::IntoIter: Clone,
{
    let contours = contours.into_iter();
    // At most every contour vertex, and a triangle per contour vertex beyond two: the
    // mesh's lists are reserved once.
    let (mut nverts, mut ntris) = (0, 0);
    for c in contours.clone().filter(|c| c.verts.len() >= 3) {
        nverts += c.verts.len();
        ntris += c.verts.len() - 2;
    }
    let PolyScratch {
        weld,
        on_border,
        map,
        ring,
        tris,
        polys,
        merge,
        spare_regs,
    } = sc;
    merge.spare.append(&mut mesh.polys);
    spare_regs.append(&mut mesh.regs);
    mesh.verts.clear();
    mesh.areas.clear();
    mesh.verts.reserve(nverts);
    mesh.polys.reserve(ntris);
    mesh.regs.reserve(ntris);
    mesh.areas.reserve(ntris);
    weld.clear();
    on_border.clear();
    polys.clear();
    // Every polygon buffer holds up to `nvp` vertices, so merges never grow one.
    let cap = nvp.max(3);
    for c in contours {
        if c.verts.len() < 3 {
            continue;
        }
        triangulate_into(&c.verts, ring, tris);
        map.clear();
        for v in &c.verts {
            let k = add_vertex(&mut mesh.verts, weld, [v[0], v[1], v[2]]);
            on_border.resize(mesh.verts.len(), false);
            if (v[3] as u32) & BORDER_VERTEX != 0 {
                on_border[k as usize] = true;
            }
            map.push(k);
        }
        for t in tris.iter() {
            let (a, b, cc) = (map[t[0]], map[t[1]], map[t[2]]);
            if a != b && a != cc && b != cc {
                let mut poly = merge.spare.pop().unwrap_or_else(|| Vec::with_capacity(cap));
                poly.clear();
                poly.extend([a, b, cc]);
                polys.push(poly);
            }
        }
        if polys.is_empty() {
            continue;
        }
        merge_polygons_in(merge, polys, &mesh.verts, nvp, convex_ok);
        for p in polys.drain(..) {
            mesh.polys.push(p);
            let mut regs = spare_regs.pop().unwrap_or_default();
            regs.clear();
            regs.push(c.reg);
            mesh.regs.push(regs);
            mesh.areas.push(c.area);
        }
    }
    crate::border_vertices::remove_border_vertices(mesh, on_border, nvp, convex_ok);
}

/// The buffers of [`merge_polygons`], kept across calls.
#[derive(Default)]
pub(crate) struct MergeScratch {
    /// The candidate merge of a pair.
    merged: Vec<u32>,
    /// The pair values.
    value: Vec<i64>,
    /// Per polygon, its edge neighbours (only the first `polys.len()` are in use).
    adj: Vec<Vec<u32>>,
    /// The buffers of [`edge_neighbours`].
    first: Vec<u32>,
    fill: Vec<u32>,
    by_low: Vec<(u32, u32)>,
    /// The neighbours of a merged polygon being gathered.
    union: Vec<u32>,
    /// Polygon buffers merged away, for the next polygons.
    spare: Vec<Vec<u32>>,
}

/// Merges polygons (in place) greedily into convex polygons of at most `nvp` vertices:
/// each round merges the pair (j < k) sharing the longest edge whose merge stays convex and
/// passes `convex_ok` (strictly longer wins, so the first pair on ties); the merged polygon
/// replaces the first and the last polygon takes the second's place.
pub(crate) fn merge_polygons(
    polys: &mut Vec<Vec<u32>>,
    verts: &[[i32; 3]],
    nvp: usize,
    convex_ok: &ConvexCheck<'_>,
) {
    merge_polygons_in(&mut MergeScratch::default(), polys, verts, nvp, convex_ok);
}

/// [`merge_polygons`] with the buffers of `sc` (the buffers of polygons merged away go to
/// `sc.spare`).
pub(crate) fn merge_polygons_in(
    sc: &mut MergeScratch,
    polys: &mut Vec<Vec<u32>>,
    verts: &[[i32; 3]],
    nvp: usize,
    convex_ok: &ConvexCheck<'_>,
) {
    if nvp <= 3 {
        return;
    }
    // A pair's merge value depends on its two polygons only (the vertices never move), so
    // it is computed once per pair and again only for the pairs of a polygon that changed
    // (the merged one, and the last one moved into the removed one's place): O(P) checks per
    // round instead of O(P²). `value[j * p + k]` (j < k) is the value of pair (j, k) when it
    // can merge and its merge passes `convex_ok`, else `NO_MERGE`; the round takes the first
    // pair in (j, k) order with the largest value, exactly the pair the full scan would
    // (strictly larger wins in that scan, and a pair failing `convex_ok` is skipped).
    const NO_MERGE: i64 = -1;
    let p = polys.len();
    if p < 2 {
        return;
    }
    if p > MAX_TABLE_POLYS {
        return merge_polygons_by_scan(polys, verts, nvp, convex_ok);
    }
    let MergeScratch {
        merged,
        value,
        adj,
        first,
        fill,
        by_low,
        union,
        spare,
    } = sc;
    merged.clear();
    merged.reserve(nvp.max(3));
    value.clear();
    value.resize(p * p, NO_MERGE);
    let pair_value =
        |polys: &[Vec<u32>], merged: &mut Vec<u32>, j: usize, k: usize| match merge_value(
            &polys[j], &polys[k], verts, nvp,
        ) {
            Some((val, ea, eb)) => {
                merged_into(merged, &polys[j], &polys[k], ea, eb);
                if convex_ok(verts, merged) {
                    val
                } else {
                    NO_MERGE
                }
            }
            None => NO_MERGE,
        };
    // A pair sharing no edge (as an unordered pair of vertex indexes) cannot merge
    // (`merge_value` is `None`), so only the pairs of `adj` are computed: per polygon, the
    // polygons sharing an edge with it, a symmetric superset kept through the merges (a
    // merged polygon's edges are some of its two polygons' edges).
    if adj.len() < p {
        adj.resize_with(p, || Vec::with_capacity(4));
    }
    let adj = &mut adj[..p];
    edge_neighbours(polys, adj, first, fill, by_low);
    for (j, near) in adj.iter().enumerate() {
        for &k in near {
            let k = k as usize;
            if k > j {
                value[j * p + k] = pair_value(polys, merged, j, k);
            }
        }
    }
    loop {
        let n = polys.len();
        let mut best: Option<(i64, usize, usize)> = None;
        // Only pairs of `adj` can have a value; its lists are ascending, so the pairs are
        // visited in (j, k) order as the full scan of the table would.
        for (j, near) in adj.iter().enumerate().take(n.saturating_sub(1)) {
            for &k in near {
                let k = k as usize;
                if k <= j {
                    continue;
                }
                let val = value[j * p + k];
                if val != NO_MERGE && best.map_or(true, |b| val > b.0) {
                    best = Some((val, j, k));
                }
            }
        }
        let Some((_, pa, pb)) = best else {
            break;
        };
        let Some((_, ea, eb)) = merge_value(&polys[pa], &polys[pb], verts, nvp) else {
            break;
        };
        // The merged polygon takes the candidate buffer; the replaced polygon's becomes it.
        merged_into(merged, &polys[pa], &polys[pb], ea, eb);
        std::mem::swap(&mut polys[pa], merged);
        spare.push(polys.swap_remove(pb));
        let n = polys.len();
        merge_neighbours(adj, n + 1, pa, pb, union);
        // Only the values of the pairs of `adj` are read, and each is written when the pair
        // enters it. The last polygon now sits at `pb`: its pairs move with it.
        if pb < n {
            let last = n;
            for &q in &adj[pb] {
                let q = q as usize;
                let (a, b) = if q < last { (q, last) } else { (last, q) };
                let v = value[a * p + b];
                let (c, d) = if q < pb { (q, pb) } else { (pb, q) };
                value[c * p + d] = v;
            }
        }
        // The merged polygon's pairs are new.
        for &q in &adj[pa] {
            let q = q as usize;
            let (a, b) = if q < pa { (q, pa) } else { (pa, q) };
            value[a * p + b] = pair_value(polys, merged, a, b);
        }
    }
}

/// Per polygon, the other polygons sharing an edge with it (as an unordered pair of vertex
/// indexes), ascending.
fn edge_neighbours(
    polys: &[Vec<u32>],
    adj: &mut [Vec<u32>],
    first: &mut Vec<u32>,
    fill: &mut Vec<u32>,
    by_low: &mut Vec<(u32, u32)>,
) {
    // Edges as (larger vertex, polygon) grouped by their smaller vertex (a counting sort
    // over the contour's vertex range), then matched within each group.
    for a in adj.iter_mut() {
        a.clear();
    }
    let (Some(&lo), Some(&hi)) = (polys.iter().flatten().min(), polys.iter().flatten().max())
    else {
        return;
    };
    let range = (hi - lo) as usize + 1;
    first.clear();
    first.resize(range + 1, 0);
    let edges = |f: &mut dyn FnMut(u32, u32, u32)| {
        for (i, poly) in polys.iter().enumerate() {
            let n = poly.len();
            for k in 0..n {
                let (a, b) = (poly[k], poly[next(k, n)]);
                f(a.min(b) - lo, a.max(b), i as u32);
            }
        }
    };
    edges(&mut |a, _, _| first[a as usize + 1] += 1);
    for v in 0..range {
        first[v + 1] += first[v];
    }
    fill.clear();
    fill.extend_from_slice(first);
    by_low.clear();
    by_low.resize(first[range] as usize, (0, 0));
    edges(&mut |a, b, i| {
        by_low[fill[a as usize] as usize] = (b, i);
        fill[a as usize] += 1;
    });
    for v in 0..range {
        let group = &by_low[first[v] as usize..first[v + 1] as usize];
        for (x, &(bx, ix)) in group.iter().enumerate() {
            for &(by, iy) in &group[x + 1..] {
                if bx == by && ix != iy {
                    adj[ix as usize].push(iy);
                    adj[iy as usize].push(ix);
                }
            }
        }
    }
    for a in adj.iter_mut() {
        a.sort_unstable();
        a.dedup();
    }
}

/// [`edge_neighbours`] after polygon `pb` was merged into `pa` (`pa < pb`) and the last of
/// the `n` polygons moved into `pb`'s place: `pa` gets both polygons' neighbours, every list
/// names `pa` for `pb` and `pb` for the moved polygon, and the lists of the `n − 1`
/// polygons left are `adj[..n − 1]` (`adj[n − 1]` is left empty). A symmetric superset of
/// the polygons sharing an edge stays one. `union` is scratch.
fn merge_neighbours(adj: &mut [Vec<u32>], n: usize, pa: usize, pb: usize, union: &mut Vec<u32>) {
    let (a, b) = (pa as u32, pb as u32);
    let mut from_b = std::mem::take(&mut adj[pb]);
    for &q in &from_b {
        if q != a {
            rename(&mut adj[q as usize], b, a);
        }
    }
    union.clear();
    union.extend_from_slice(&adj[pa]);
    union.extend_from_slice(&from_b);
    union.retain(|&q| q != a && q != b);
    union.sort_unstable();
    union.dedup();
    adj[pa].clear();
    adj[pa].extend_from_slice(union);
    from_b.clear();
    adj[pb] = from_b;
    let last = n - 1;
    adj.swap(pb, last);
    if pb < last {
        for i in 0..adj[pb].len() {
            let q = adj[pb][i];
            rename(&mut adj[q as usize], last as u32, b);
        }
    }
}

/// Renames `from` to `to` in an ascending list without repeats (kept so).
fn rename(list: &mut Vec<u32>, from: u32, to: u32) {
    if let Ok(i) = list.binary_search(&from) {
        list.remove(i);
        if let Err(j) = list.binary_search(&to) {
            list.insert(j, to);
        }
    }
}

/// Most polygons of one contour whose pair values [`merge_polygons`] keeps in a table (8 MB
/// at most); a larger contour is merged by [`merge_polygons_by_scan`], with the same result.
const MAX_TABLE_POLYS: usize = 1024;

/// [`merge_polygons`] without the table: every round checks every pair again.
fn merge_polygons_by_scan(
    polys: &mut Vec<Vec<u32>>,
    verts: &[[i32; 3]],
    nvp: usize,
    convex_ok: &ConvexCheck<'_>,
) {
    // The candidate merge of each pair, written into one buffer.
    let mut merged = Vec::with_capacity(2 * nvp);
    loop {
        let mut best: Option<(i64, usize, usize, usize, usize)> = None;
        for j in 0..polys.len().saturating_sub(1) {
            for k in j + 1..polys.len() {
                if let Some((val, ea, eb)) = merge_value(&polys[j], &polys[k], verts, nvp) {
                    if best.map_or(true, |b| val > b.0) {
                        merged_into(&mut merged, &polys[j], &polys[k], ea, eb);
                        if convex_ok(verts, &merged) {
                            best = Some((val, j, k, ea, eb));
                        }
                    }
                }
            }
        }
        let Some((_, pa, pb, ea, eb)) = best else {
            break;
        };
        merged_into(&mut merged, &polys[pa], &polys[pb], ea, eb);
        std::mem::swap(&mut polys[pa], &mut merged);
        polys.swap_remove(pb);
    }
}

/// The merge of `pa` and `pb` along their shared edge (`ea` of `pa`, `eb` of `pb`): `pa`
/// from the vertex after the edge round to its start, then `pb` likewise.
fn merged_into(out: &mut Vec<u32>, pa: &[u32], pb: &[u32], ea: usize, eb: usize) {
    out.clear();
    let na = pa.len();
    let nb = pb.len();
    for i in 0..na - 1 {
        out.push(pa[(ea + 1 + i) % na]);
    }
    for i in 0..nb - 1 {
        out.push(pb[(eb + 1 + i) % nb]);
    }
}

/// The welding index: for each (x, z) the most recently added vertex there, and for each
/// vertex the one added before it at the same (x, z) (so a column's vertices are visited
/// newest first). Only looked up, never iterated, so the hash order reaches no output.
#[derive(Default)]
struct Weld {
    latest: HashMap<u64, u32, BuildHasherDefault<WeldHasher>>,
    earlier: Vec<u32>,
}

impl Weld {
    /// Forgets every vertex (keeping the memory).
    fn clear(&mut self) {
        self.latest.clear();
        self.earlier.clear();
    }
}

/// No vertex (end of a column's chain).
const NO_VERTEX: u32 = u32::MAX;

/// A multiplicative hash of one `u64` key (an x/z pair), far cheaper than the default
/// SipHash; the keys are not chosen by an adversary (they are cell coordinates of a tile).
#[derive(Default)]
struct WeldHasher(u64);

impl Hasher for WeldHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (self.0.rotate_left(5) ^ k).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Welds a vertex: an existing vertex with the same x and z and a height within 2 cells
/// (the most recently added such vertex) is reused.
fn add_vertex(verts: &mut Vec<[i32; 3]>, weld: &mut Weld, v: [i32; 3]) -> u32 {
    let key = (u64::from(v[0] as u32) << 32) | u64::from(v[2] as u32);
    let newest = weld.latest.get(&key).copied().unwrap_or(NO_VERTEX);
    let mut k = newest;
    while k != NO_VERTEX {
        if (verts[k as usize][1] - v[1]).abs() <= 2 {
            return k;
        }
        k = weld.earlier[k as usize];
    }
    let k = verts.len() as u32;
    verts.push(v);
    weld.earlier.push(newest);
    weld.latest.insert(key, k);
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_contour_triangulates_into_two_triangles() {
        let v = [[0, 0, 0, 0], [0, 0, 4, 0], [4, 0, 4, 0], [4, 0, 0, 0]];
        let (t, complete) = triangulate(&v);
        assert!(complete);
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn the_merge_table_picks_the_same_merges_as_the_full_scan() {
        // Star-shaped contours with jagged radii (simple polygons), triangulated, then merged
        // with and without the pair table, with a veto that turns some merges down.
        let mut seed = 0x2545_f491_u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) as i32
        };
        for n in [5usize, 12, 40, 90, 250] {
            let verts4: Vec<[i32; 4]> = (0..n)
                .map(|k| {
                    let a = std::f64::consts::TAU * k as f64 / n as f64;
                    let r = f64::from(20 + next() % 30);
                    [
                        (100.0 + r * libm::cos(a)) as i32,
                        0,
                        (100.0 - r * libm::sin(a)) as i32,
                        0,
                    ]
                })
                .collect();
            let (tris, _) = triangulate(&verts4);
            let verts: Vec<[i32; 3]> = verts4.iter().map(|v| [v[0], v[1], v[2]]).collect();
            let polys: Vec<Vec<u32>> = tris
                .iter()
                .map(|t| t.iter().map(|&i| i as u32).collect())
                .collect();
            for nvp in [4, 6, 12] {
                let veto = |_: &[[i32; 3]], p: &[u32]| {
                    p.iter().map(|&v| v as usize).sum::<usize>() % 3 != 0
                };
                let all = |_: &[[i32; 3]], _: &[u32]| true;
                let checks: [&ConvexCheck<'_>; 2] = [&all, &veto];
                for check in checks {
                    let mut table = polys.clone();
                    merge_polygons(&mut table, &verts, nvp, check);
                    let mut scan = polys.clone();
                    merge_polygons_by_scan(&mut scan, &verts, nvp, check);
                    assert_eq!(table, scan, "{n} vertices, nvp {nvp}");
                }
            }
        }
    }
}
