//! [`NavMeshQuery::poly_wall_segments`], and the boundary pieces of a polygon (walls and
//! crossed parts of its edges) that the flood queries read.

use onepath_format::PolyRef;
use smallvec::SmallVec;

use crate::mesh::{MeshTile, TiledNavMesh};
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{closest_on_segment_2d, lerp, Vec3};
use crate::query::graph::{for_each_neighbour, Crossing};
use crate::query::poly::{decode, poly_verts, PolyVerts};
use crate::query::NavMeshQuery;

/// A piece of a polygon's boundary: a wall, or the part of an edge crossed into a neighbour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallSegment {
    /// Start of the piece (nearer the edge's first corner).
    pub start: Vec3,
    /// End of the piece.
    pub end: Vec3,
    /// Edge index in the polygon.
    pub edge: u8,
    /// The neighbour across it, `None` for a wall.
    pub neighbour: Option<PolyRef>,
}

/// Parameter of `x` along edge `a → b` in X/Z.
fn edge_param(a: Vec3, b: Vec3, x: Vec3) -> f64 {
    let (ex, ez) = (b[0] - a[0], b[2] - a[2]);
    let len2 = ex * ex + ez * ez;
    if len2 > 0.0 {
        (((x[0] - a[0]) * ex + (x[2] - a[2]) * ez) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The point at parameter `t` of edge `a → b`: exactly `a` at 0 (or below) and `b` at 1 (or
/// above).
pub(super) fn edge_point(a: Vec3, b: Vec3, t: f64) -> Vec3 {
    if t <= 0.0 {
        a
    } else if t >= 1.0 {
        b
    } else {
        lerp(a, b, t)
    }
}

/// Gaps shorter than this (as an edge parameter) between crossings are not walls.
const GAP_EPS: f64 = 1e-9;

/// Calls `f` with every boundary piece of polygon `p` (corners `verts`), edge by edge and
/// along each edge: the parts crossed into a neighbour passing `filter` (edge crossings
/// only), and the walls between and around them.
pub(super) fn for_each_boundary_piece(
    mesh: &TiledNavMesh,
    tile: &MeshTile,
    p: usize,
    verts: &[Vec3],
    filter: &QueryFilter,
    mut f: impl FnMut(WallSegment),
) {
    let n = verts.len();
    // (edge, t0, t1, neighbour) of every crossing, then sorted per edge along the edge.
    let mut pieces: SmallVec<[(u8, f64, f64, PolyRef); 16]> = SmallVec::new();
    for_each_neighbour(mesh, tile, p, filter, |nb| {
        if let Crossing::Edge { left, right, edge } = nb.crossing {
            let k = usize::from(edge);
            let (a, b) = (verts[k], verts[(k + 1) % n]);
            pieces.push((
                edge,
                edge_param(a, b, right),
                edge_param(a, b, left),
                nb.target,
            ));
        }
    });
    pieces.sort_by(|x, y| {
        x.0.cmp(&y.0)
            .then(x.1.total_cmp(&y.1))
            .then(x.2.total_cmp(&y.2))
    });
    let mut i = 0;
    for k in 0..n {
        let (a, b) = (verts[k], verts[(k + 1) % n]);
        let edge = k as u8;
        let mut cur = 0.0f64;
        while i < pieces.len() && usize::from(pieces[i].0) == k {
            let (_, t0, t1, nb) = pieces[i];
            if t0 > cur + GAP_EPS {
                f(WallSegment {
                    start: edge_point(a, b, cur),
                    end: edge_point(a, b, t0),
                    edge,
                    neighbour: None,
                });
            }
            f(WallSegment {
                start: edge_point(a, b, t0),
                end: edge_point(a, b, t1),
                edge,
                neighbour: Some(nb),
            });
            cur = cur.max(t1);
            i += 1;
        }
        if cur < 1.0 - GAP_EPS {
            f(WallSegment {
                start: edge_point(a, b, cur),
                end: b,
                edge,
                neighbour: None,
            });
        }
    }
}

/// The squared X/Z distance from `p` to segment `a → b`.
pub(super) fn segment_dist2(p: Vec3, a: Vec3, b: Vec3) -> f64 {
    closest_on_segment_2d(p, a, b).1
}

impl NavMeshQuery {
    /// The boundary of polygon `r` as pieces, edge by edge and along each edge: walls
    /// (`neighbour: None`) and the parts crossed into neighbours passing `filter`. A portal
    /// edge only partly covered by the neighbouring tile is a crossing there and a wall
    /// elsewhere. Written into `out` (cleared first).
    pub fn poly_wall_segments(
        &self,
        mesh: &TiledNavMesh,
        r: PolyRef,
        filter: &QueryFilter,
        out: &mut Vec<WallSegment>,
    ) -> Result<(), QueryError> {
        out.clear();
        let (t, p) = decode(mesh, r)?;
        let mut verts = PolyVerts::new();
        poly_verts(t, p, &mut verts);
        for_each_boundary_piece(mesh, t, p, &verts, filter, |w| out.push(w));
        Ok(())
    }
}
