//! The detail mesh: per polygon, extra vertices and triangles that follow the floor's height
//! (`docs/build3d-polys.md` §3).

/// One polygon's detail: extra vertices (tile-local X and Z, world Y) and triangles whose indices
/// address the polygon's own vertices first (`0..n`) then the extra ones (`n..`), with edge
/// flags (bit k: edge k lies on the polygon boundary).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolyDetail {
    /// Extra vertices: tile-local X and Z, world Y.
    pub verts: Vec<[f64; 3]>,
    /// Triangles: three vertex indices and edge flags.
    pub tris: Vec<[u8; 4]>,
}

impl PolyDetail {
    /// Renumbers for the polygon's vertex order reversed (`n` vertices): polygon vertex `i`
    /// becomes `n − 1 − i`, and each triangle is reversed too so it keeps its facing.
    pub fn reverse_polygon(&mut self, n: usize) {
        for t in self.tris.iter_mut() {
            *t = reversed_triangle(*t, n);
        }
    }
}

/// One detail triangle (three vertex indices and edge flags) renumbered for its polygon's
/// `n` vertices reversed ([`PolyDetail::reverse_polygon`]).
pub(crate) fn reversed_triangle(mut t: [u8; 4], n: usize) -> [u8; 4] {
    let n8 = n as u8;
    for v in t.iter_mut().take(3) {
        if *v < n8 {
            *v = n8 - 1 - *v;
        }
    }
    // (a, b, c) -> (a, c, b): new edge 0 = old edge 2, new 1 = old 1, new 2 = old 0.
    t.swap(1, 2);
    let f = t[3];
    t[3] = ((f >> 2) & 1) | (f & 2) | ((f & 1) << 2);
    t
}

use crate::compact::CompactHeightfield;
use crate::config::VoxelConfig;
use crate::handover::TileFrame;
use crate::polymesh::PolyMesh;

fn dist2_xz(a: [f64; 3], b: [f64; 3]) -> f64 {
    let dx = b[0] - a[0];
    let dz = b[2] - a[2];
    dx * dx + dz * dz
}

/// Triangulates a convex hull (indices into `verts`; those below `nin` are polygon
/// vertices): start from the ear (a polygon vertex in the middle) with the shortest
/// perimeter (ties: the first), then walk left or right, whichever closing triangle has the
/// shorter new edges (ties: right). Edge flags mark hull edges.
pub fn triangulate_hull(verts: &[[f64; 3]], hull: &[usize], nin: usize) -> Vec<[u8; 4]> {
    let mut tris = Vec::with_capacity(hull.len().saturating_sub(2));
    hull_triangles(verts, hull, nin, &mut tris);
    let (mut pos, mut out) = (Vec::new(), Vec::with_capacity(tris.len()));
    with_hull_flags(&tris, hull, verts.len(), &mut pos, &mut out);
    out
}

/// The triangles of [`triangulate_hull`] (vertex indices, no flags), written into `tris`
/// (cleared first).
fn hull_triangles(verts: &[[f64; 3]], hull: &[usize], nin: usize, tris: &mut Vec<[usize; 3]>) {
    let nh = hull.len();
    let next = |i: usize| (i + 1) % nh;
    let prev = |i: usize| (i + nh - 1) % nh;
    let (mut start, mut left, mut right) = (0, 1, nh - 1);
    let mut dmin = f64::INFINITY;
    for i in 0..nh {
        if hull[i] >= nin {
            continue;
        }
        let (pi, ni) = (prev(i), next(i));
        let (pv, cv, nv) = (verts[hull[pi]], verts[hull[i]], verts[hull[ni]]);
        let d = dist2_xz(pv, cv) + dist2_xz(cv, nv) + dist2_xz(nv, pv);
        if d < dmin {
            start = i;
            left = ni;
            right = pi;
            dmin = d;
        }
    }
    tris.clear();
    tris.push([hull[start], hull[left], hull[right]]);
    while next(left) != right {
        let nleft = next(left);
        let nright = prev(right);
        let (cvl, nvl, cvr, nvr) = (
            verts[hull[left]],
            verts[hull[nleft]],
            verts[hull[right]],
            verts[hull[nright]],
        );
        let dleft = dist2_xz(cvl, nvl) + dist2_xz(nvl, cvr);
        let dright = dist2_xz(cvr, nvr) + dist2_xz(cvl, nvr);
        if dleft < dright {
            tris.push([hull[left], hull[nleft], hull[right]]);
            left = nleft;
        } else {
            tris.push([hull[left], hull[nright], hull[right]]);
            right = nright;
        }
    }
}

/// The triangles (indices into `nverts` vertices) with their hull edge flags, into `out`
/// (cleared first): bit k when edge k joins two vertices consecutive on `hull`. `pos` is
/// scratch.
fn with_hull_flags(
    tris: &[[usize; 3]],
    hull: &[usize],
    nverts: usize,
    pos: &mut Vec<usize>,
    out: &mut Vec<[u8; 4]>,
) {
    let nh = hull.len();
    pos.clear();
    pos.resize(nverts, usize::MAX);
    for (k, &h) in hull.iter().enumerate() {
        pos[h] = k;
    }
    let pos: &[usize] = pos;
    let on_hull = |a: usize, b: usize| {
        pos[a] != usize::MAX
            && pos[b] != usize::MAX
            && ((pos[a] + 1) % nh == pos[b] || (pos[b] + 1) % nh == pos[a])
    };
    out.clear();
    out.extend(tris.iter().map(|t| {
        let mut f = 0u8;
        for k in 0..3 {
            if on_hull(t[k], t[(k + 1) % 3]) {
                f |= 1 << k;
            }
        }
        [t[0] as u8, t[1] as u8, t[2] as u8, f]
    }));
}

/// Most vertices (polygon and extra) of one polygon's detail.
pub const MAX_DETAIL_VERTS: usize = 127;
/// Most samples along one polygon edge.
pub const MAX_EDGE_SAMPLES: usize = 32;

/// Heights of the floor a polygon covers, read from the compact heightfield.
struct HeightSource<'a> {
    chf: &'a CompactHeightfield,
    regions: &'a [u16],
    frame: &'a TileFrame,
}

impl HeightSource<'_> {
    /// The floor height (world) at tile-local (x, z) of the regions `regs`: the spans of
    /// those regions in the point's cell, else in the ring of 8 cells around it, else the ring of
    /// 16 beyond (rings in −z rows first, then along +x); the span closest in height to
    /// `ref_y` wins, ties to the first. The cell is `floor(x / cs + 0.01)` (a point on a cell
    /// line belongs to the cell after it). `None`: no span of the regions within 2 cells.
    fn height(&self, x: f64, z: f64, regs: &[u16], ref_y: f64) -> Option<f64> {
        let chf = self.chf;
        let b = chf.border;
        let ix = (x / chf.cs + 0.01).floor() as i32 + b;
        let iz = (z / chf.cs + 0.01).floor() as i32 + b;
        for r in 0..=2i32 {
            let mut best: Option<(f64, f64)> = None;
            for dz in -r..=r {
                for dx in -r..=r {
                    if dx.abs().max(dz.abs()) != r {
                        continue;
                    }
                    let (cx, cz) = (ix + dx, iz + dz);
                    if cx < 0 || cz < 0 || cx >= chf.width || cz >= chf.depth {
                        continue;
                    }
                    for i in chf.column(cx, cz) {
                        if !regs.contains(&self.regions[i]) {
                            continue;
                        }
                        let y = self.frame.world_y(i32::from(chf.spans[i].y));
                        let d = (y - ref_y).abs();
                        if best.map_or(true, |(bd, _)| d < bd) {
                            best = Some((d, y));
                        }
                    }
                }
            }
            if let Some((_, y)) = best {
                return Some(y);
            }
        }
        None
    }
}

fn orient(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> f64 {
    (b[0] - a[0]) * (c[2] - a[2]) - (b[2] - a[2]) * (c[0] - a[0])
}

fn dist_pt_seg_sq_3d(p: [f64; 3], a: [f64; 3], b: [f64; 3]) -> f64 {
    let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let e = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
    let dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    let mut t = d[0] * e[0] + d[1] * e[1] + d[2] * e[2];
    if dd > 0.0 {
        t /= dd;
    }
    let t = t.clamp(0.0, 1.0);
    let q = [
        a[0] + t * d[0] - p[0],
        a[1] + t * d[1] - p[1],
        a[2] + t * d[2] - p[2],
    ];
    q[0] * q[0] + q[1] * q[1] + q[2] * q[2]
}

/// A triangulation of a convex hull that takes points one at a time (split, then Lawson
/// flips while the opposite vertex lies strictly inside a circumcircle; hull edges never
/// flip). Triangles turn the same way as the hull (`sign`).
struct Triangulation {
    tris: Vec<[usize; 3]>,
    sign: f64,
}

impl Triangulation {
    fn o(&self, v: &[[f64; 3]], a: usize, b: usize, c: usize) -> f64 {
        self.sign * orient(v[a], v[b], v[c])
    }

    fn find_edge(&self, a: usize, b: usize) -> Option<(usize, usize)> {
        for (t, tri) in self.tris.iter().enumerate() {
            for k in 0..3 {
                if tri[k] == a && tri[(k + 1) % 3] == b {
                    return Some((t, k));
                }
            }
        }
        None
    }

    fn in_circle(&self, v: &[[f64; 3]], a: usize, b: usize, c: usize, d: usize) -> bool {
        // Positive when d lies inside the circle through a, b, c (turning `sign`).
        let (ax, az) = (v[a][0] - v[d][0], v[a][2] - v[d][2]);
        let (bx, bz) = (v[b][0] - v[d][0], v[b][2] - v[d][2]);
        let (cx, cz) = (v[c][0] - v[d][0], v[c][2] - v[d][2]);
        let det = (ax * ax + az * az) * (bx * cz - cx * bz)
            - (bx * bx + bz * bz) * (ax * cz - cx * az)
            + (cx * cx + cz * cz) * (ax * bz - bx * az);
        self.sign * det > 0.0
    }

    /// Inserts vertex `p` (inside the hull). Returns false when no triangle holds it.
    fn insert(&mut self, v: &[[f64; 3]], p: usize, stack: &mut Vec<(usize, usize)>) -> bool {
        let mut found = None;
        for (t, tri) in self.tris.iter().enumerate() {
            let o = [
                self.o(v, tri[0], tri[1], p),
                self.o(v, tri[1], tri[2], p),
                self.o(v, tri[2], tri[0], p),
            ];
            if o.iter().all(|&x| x > 0.0) {
                found = Some((t, None));
                break;
            }
            if o.iter().all(|&x| x >= 0.0) && found.is_none() {
                let k = o.iter().position(|&x| x == 0.0);
                found = Some((t, k));
            }
        }
        let Some((t, on_edge)) = found else {
            return false;
        };
        let [a, b, c] = self.tris[t];
        stack.clear();
        match on_edge {
            None => {
                self.tris[t] = [a, b, p];
                self.tris.push([b, c, p]);
                self.tris.push([c, a, p]);
                stack.extend([(a, b), (b, c), (c, a)]);
            }
            Some(k) => {
                let tri = self.tris[t];
                let (ea, eb, ec) = (tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]);
                self.tris[t] = [ea, p, ec];
                self.tris.push([p, eb, ec]);
                stack.extend([(eb, ec), (ec, ea)]);
                if let Some((t2, k2)) = self.find_edge(eb, ea) {
                    let d = self.tris[t2][(k2 + 2) % 3];
                    self.tris[t2] = [eb, p, d];
                    self.tris.push([p, ea, d]);
                    stack.extend([(ea, d), (d, eb)]);
                }
            }
        }
        let mut guard = 0;
        while let Some((u, w)) = stack.pop() {
            guard += 1;
            if guard > 4096 {
                break;
            }
            // Triangle (u, w, p) and its neighbour across (u, w): (w, u, x).
            let Some((t1, _)) = self.find_edge(u, w) else {
                continue;
            };
            let Some((t2, k2)) = self.find_edge(w, u) else {
                continue;
            };
            let x = self.tris[t2][(k2 + 2) % 3];
            if self.in_circle(v, u, w, p, x) {
                self.tris[t1] = [u, x, p];
                self.tris[t2] = [x, w, p];
                stack.push((u, x));
                stack.push((x, w));
            }
        }
        true
    }

    /// Height error of sample `s` against the triangle holding it (`None`: outside).
    fn error(&self, v: &[[f64; 3]], s: [f64; 3]) -> Option<f64> {
        for tri in &self.tris {
            let (a, b, c) = (v[tri[0]], v[tri[1]], v[tri[2]]);
            let area = self.sign * orient(a, b, c);
            if area <= 0.0 {
                continue;
            }
            let w0 = self.sign * orient(b, c, s);
            let w1 = self.sign * orient(c, a, s);
            let w2 = self.sign * orient(a, b, s);
            if w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0 {
                let y = (w0 * a[1] + w1 * b[1] + w2 * c[1]) / area;
                return Some((s[1] - y).abs());
            }
        }
        None
    }
}

/// The buffers of one polygon's detail, kept from one polygon (and one build) to the next
/// so the detail stage allocates only what it returns.
#[derive(Default)]
pub(crate) struct DetailScratch {
    /// The polygon's vertices (tile-local X/Z, world Y).
    poly: Vec<[f64; 3]>,
    /// The polygon's vertices and then the extra ones.
    verts: Vec<[f64; 3]>,
    /// The hull (indices into `verts`).
    hull: Vec<usize>,
    /// The triangles being built.
    tris: Vec<[usize; 3]>,
    /// The samples of one edge.
    edge: Vec<[f64; 3]>,
    /// The samples of one edge kept by the simplification.
    idx: Vec<usize>,
    /// The interior samples and whether each was added.
    samples: Vec<[f64; 3]>,
    added: Vec<bool>,
    /// The edges to check for flips after an insertion.
    stack: Vec<(usize, usize)>,
    /// Each vertex's position on the hull.
    pos: Vec<usize>,
}

/// The detail of one polygon (vertices tile-local X/Z, world Y, in the polygon's order),
/// with `sc`'s buffers (the polygon itself is `sc.poly`), written into `out` (whatever it
/// held is replaced, its memory reused).
fn poly_detail(
    sc: &mut DetailScratch,
    regs: &[u16],
    hs: &HeightSource<'_>,
    sample_dist: f64,
    max_error: f64,
    out: &mut PolyDetail,
) {
    let DetailScratch {
        poly,
        verts,
        hull,
        tris,
        edge,
        idx,
        samples,
        added,
        stack,
        pos,
    } = sc;
    let poly: &[[f64; 3]] = poly;
    let nin = poly.len();
    verts.clear();
    verts.extend_from_slice(poly);
    hull.clear();
    if sample_dist > 0.0 {
        for i in 0..nin {
            let j = (i + nin - 1) % nin;
            let (mut vj, mut vi) = (poly[j], poly[i]);
            // Each edge is sampled in one direction (X ascending, then Z) so the two polygons
            // sharing it get the same points.
            let swapped = if vj[0] == vi[0] {
                vj[2] > vi[2]
            } else {
                vj[0] > vi[0]
            };
            if swapped {
                std::mem::swap(&mut vj, &mut vi);
            }
            let (dx, dy, dz) = (vi[0] - vj[0], vi[1] - vj[1], vi[2] - vj[2]);
            let d = (dx * dx + dz * dz).sqrt();
            let mut nn = 1 + (d / sample_dist).floor() as usize;
            nn = nn.min(MAX_EDGE_SAMPLES - 1);
            nn = nn.min(MAX_DETAIL_VERTS.saturating_sub(1 + verts.len()).max(1));
            edge.clear();
            for k in 0..=nn {
                let u = k as f64 / nn as f64;
                let p = [vj[0] + dx * u, vj[1] + dy * u, vj[2] + dz * u];
                let y = if k == 0 || k == nn {
                    p[1]
                } else {
                    hs.height(p[0], p[2], regs, p[1]).unwrap_or(p[1])
                };
                edge.push([p[0], y, p[2]]);
            }
            idx.clear();
            idx.extend([0usize, nn]);
            let mut k = 0;
            while k + 1 < idx.len() {
                let (a, b) = (idx[k], idx[k + 1]);
                let mut maxd = 0.0;
                let mut maxi = None;
                for m in a + 1..b {
                    let dev = dist_pt_seg_sq_3d(edge[m], edge[a], edge[b]);
                    if dev > maxd {
                        maxd = dev;
                        maxi = Some(m);
                    }
                }
                match maxi {
                    Some(m) if maxd > max_error * max_error => idx.insert(k + 1, m),
                    _ => k += 1,
                }
            }
            hull.push(j);
            let inner = &idx[1..idx.len() - 1];
            let mut add = |m: usize| {
                if verts.len() >= MAX_DETAIL_VERTS {
                    return false;
                }
                hull.push(verts.len());
                verts.push(edge[m]);
                true
            };
            if swapped {
                for &m in inner.iter().rev() {
                    if !add(m) {
                        break;
                    }
                }
            } else {
                for &m in inner {
                    if !add(m) {
                        break;
                    }
                }
            }
        }
    } else {
        hull.extend(0..nin);
    }
    // The hull above starts at the last polygon vertex; rotate so it starts at vertex 0.
    if let Some(z) = hull.iter().position(|&h| h == 0) {
        hull.rotate_left(z);
    }
    let mut area2 = 0.0;
    for i in 0..nin {
        let (a, b) = (poly[i], poly[(i + 1) % nin]);
        area2 += a[0] * b[2] - b[0] * a[2];
    }
    hull_triangles(verts, hull, nin, tris);
    let mut tri = Triangulation {
        tris: std::mem::take(tris),
        sign: if area2 > 0.0 { 1.0 } else { -1.0 },
    };
    if sample_dist > 0.0 {
        // Interior samples on a grid aligned to the tile origin, at least half a sample
        // distance inside the polygon.
        let (mut bmin, mut bmax) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for p in poly {
            bmin = [bmin[0].min(p[0]), bmin[1].min(p[2])];
            bmax = [bmax[0].max(p[0]), bmax[1].max(p[2])];
        }
        let (x0, x1) = (
            (bmin[0] / sample_dist).floor() as i64,
            (bmax[0] / sample_dist).ceil() as i64,
        );
        let (z0, z1) = (
            (bmin[1] / sample_dist).floor() as i64,
            (bmax[1] / sample_dist).ceil() as i64,
        );
        samples.clear();
        for z in z0..z1 {
            for x in x0..x1 {
                let (px, pz) = (x as f64 * sample_dist, z as f64 * sample_dist);
                if inside_distance(poly, area2, px, pz) < sample_dist / 2.0 {
                    continue;
                }
                let ref_y = tri.interpolate(verts, px, pz).unwrap_or(poly[0][1]);
                if let Some(y) = hs.height(px, pz, regs, ref_y) {
                    samples.push([px, y, pz]);
                }
            }
        }
        added.clear();
        added.resize(samples.len(), false);
        for _ in 0..samples.len() {
            if verts.len() >= MAX_DETAIL_VERTS {
                break;
            }
            let mut best: Option<(f64, usize)> = None;
            for (i, s) in samples.iter().enumerate() {
                if added[i] {
                    continue;
                }
                if let Some(e) = tri.error(verts, *s) {
                    if best.map_or(true, |(bd, _)| e > bd) {
                        best = Some((e, i));
                    }
                }
            }
            let Some((e, i)) = best else { break };
            if e <= max_error {
                break;
            }
            added[i] = true;
            verts.push(samples[i]);
            let p = verts.len() - 1;
            if !tri.insert(verts, p, stack) {
                verts.pop();
            }
        }
    }
    with_hull_flags(&tri.tris, hull, verts.len(), pos, &mut out.tris);
    *tris = tri.tris;
    out.verts.clear();
    out.verts.extend_from_slice(&verts[nin..]);
}

impl Triangulation {
    fn interpolate(&self, v: &[[f64; 3]], x: f64, z: f64) -> Option<f64> {
        let s = [x, 0.0, z];
        self.error(v, s)
    }
}

/// Distance from (x, z) to the polygon's boundary when inside, negative (−1) outside.
fn inside_distance(poly: &[[f64; 3]], area2: f64, x: f64, z: f64) -> f64 {
    let n = poly.len();
    let sign = if area2 > 0.0 { 1.0 } else { -1.0 };
    let p = [x, 0.0, z];
    let mut dmin = f64::INFINITY;
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        if sign * orient(a, b, p) < 0.0 {
            return -1.0;
        }
        let a2 = [a[0], 0.0, a[2]];
        let b2 = [b[0], 0.0, b[2]];
        dmin = dmin.min(dist_pt_seg_sq_3d(p, a2, b2).sqrt());
    }
    dmin
}

/// The detail mesh of every polygon (one entry per polygon of `mesh`): polygon edges
/// sampled every `detail_sample_distance` and simplified to `detail_max_error`, the hull
/// triangulated, then interior samples added where the surface is off by more than
/// `detail_max_error` (largest error first, ties to the lowest sample). With a sample
/// distance of 0 the polygon is only triangulated.
pub fn build_detail(
    mesh: &PolyMesh,
    chf: &CompactHeightfield,
    regions: &[u16],
    frame: &TileFrame,
    vc: &VoxelConfig,
) -> Vec<PolyDetail> {
    let mut out = Vec::with_capacity(mesh.polys.len());
    build_detail_into(
        &mut DetailScratch::default(),
        &mut out,
        mesh,
        chf,
        regions,
        frame,
        vc,
    );
    out
}

/// [`build_detail`] with the buffers of `sc`, into `out[..mesh.polys.len()]` (`out` is
/// lengthened as needed; the entries it had are overwritten, their memory reused, and any
/// beyond the polygons are left as they were).
pub(crate) fn build_detail_into(
    sc: &mut DetailScratch,
    out: &mut Vec<PolyDetail>,
    mesh: &PolyMesh,
    chf: &CompactHeightfield,
    regions: &[u16],
    frame: &TileFrame,
    vc: &VoxelConfig,
) {
    let hs = HeightSource {
        chf,
        regions,
        frame,
    };
    if out.len() < mesh.polys.len() {
        out.resize_with(mesh.polys.len(), PolyDetail::default);
    }
    for (p, poly) in mesh.polys.iter().enumerate() {
        sc.poly.clear();
        sc.poly.extend(poly.iter().map(|&v| {
            let c = mesh.verts[v as usize];
            [
                f64::from(frame.local_xz(c[0])),
                frame.world_y(c[1]),
                f64::from(frame.local_xz(c[2])),
            ]
        }));
        poly_detail(
            sc,
            &mesh.regs[p],
            &hs,
            vc.detail_sample_distance,
            vc.detail_max_error,
            &mut out[p],
        );
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reversing_a_polygon_keeps_boundary_flags_on_the_same_edges() {
        // Triangle (0, 1, 2) of a triangle polygon, edges 0 and 1 on the boundary.
        let mut d = PolyDetail {
            verts: Vec::new(),
            tris: vec![[0, 1, 2, 0b011]],
        };
        d.reverse_polygon(3);
        // Vertices become (2, 1, 0) then (2, 0, 1): edges (2,0) (0,1) (1,2) in new numbering
        // are old (0,2) (2,1) (1,0): old edge 2, 1, 0 -> flags bit0 = old bit2 (0),
        // bit1 = old bit1 (1), bit2 = old bit0 (1).
        assert_eq!(d.tris[0], [2, 0, 1, 0b110]);
    }

    #[test]
    fn hull_triangulation_of_a_convex_polygon_covers_it_with_n_minus_2_triangles() {
        let v = [
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 2.0],
            [1.0, 0.0, 3.0],
            [2.0, 0.0, 2.0],
            [2.0, 0.0, 0.0],
        ];
        let hull: Vec<usize> = (0..5).collect();
        let t = triangulate_hull(&v, &hull, 5);
        assert_eq!(t.len(), 3);
        let mut area = 0.0;
        for tri in &t {
            let (a, b, c) = (
                v[usize::from(tri[0])],
                v[usize::from(tri[1])],
                v[usize::from(tri[2])],
            );
            area += orient(a, b, c) / 2.0;
        }
        // Same turning as the hull (here clockwise with +Z up: negative), total = polygon area.
        assert_eq!(area, -5.0);
    }
}
