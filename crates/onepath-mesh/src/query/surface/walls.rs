//! Local searches over the surface: constrained movement, distance to the nearest wall,
//! polygons around a circle, and random points from a caller's random source.

use onepath_format::PolyRef;
use smallvec::SmallVec;

use crate::mesh::{MeshTile, TiledNavMesh};
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{
    check_point, closest_on_segment_2d, cross_2d, dist, lerp, point_in_poly_2d, Vec3,
};
use crate::query::graph::{
    decode, for_each_neighbour, poly_passes, poly_verts, Crossing, PolyVerts,
};
use crate::query::nearest::height_over_poly;
use crate::query::path::{Node, OpenEntry, NO_PARENT};
use crate::query::NavMeshQuery;

/// The result of [`NavMeshQuery::move_along_surface`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveResult {
    /// Where the movement ended (on the surface of `poly`).
    pub pos: Vec3,
    /// The polygon the movement ended in.
    pub poly: PolyRef,
}

/// The result of [`NavMeshQuery::find_distance_to_wall`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallHit {
    /// Distance (X/Z) from the centre to the nearest wall point, or the search radius when
    /// no wall is within it.
    pub distance: f64,
    /// The nearest wall point (the centre when none was found).
    pub point: Vec3,
    /// Unit X/Z direction from the wall point to the centre (zero when none was found).
    pub normal: Vec3,
}

/// One polygon found by [`NavMeshQuery::polys_around_circle`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CircleNode {
    /// The polygon.
    pub poly: PolyRef,
    /// The polygon it was reached from (`PolyRef::NULL` for the start).
    pub parent: PolyRef,
    /// The cost of reaching it (area-weighted distance through crossing midpoints).
    pub cost: f64,
}

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

fn edge_point(a: Vec3, b: Vec3, t: f64) -> Vec3 {
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
pub(crate) fn for_each_boundary_piece(
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

fn segment_dist2(p: Vec3, a: Vec3, b: Vec3) -> f64 {
    closest_on_segment_2d(p, a, b).1
}

impl NavMeshQuery {
    fn aux_reset(&mut self, start: PolyRef, pos: Vec3) {
        self.aux_nodes.clear();
        self.aux_index.clear();
        self.aux_open.clear();
        self.aux_nodes.push(Node {
            poly: start,
            pos,
            g: 0.0,
            f: 0.0,
            parent: NO_PARENT,
            closed: false,
        });
        self.aux_index.insert(start, 0);
    }

    /// Moves from `start_pos` (in `start_ref`) towards `end_pos`, staying on the surface:
    /// a breadth-first search (neighbours in neighbour order) over polygons whose crossing
    /// lies within the circle through both points; if `end_pos` is over a reached polygon
    /// the move ends there, otherwise at the wall point closest to `end_pos` (smaller
    /// distance wins, the first found among equals). Edges without a passable crossing are
    /// walls. `visited` receives the polygons from the start to the end polygon.
    pub fn move_along_surface(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        visited: &mut Vec<PolyRef>,
    ) -> Result<MoveResult, QueryError> {
        check_point("start_pos", start_pos)?;
        check_point("end_pos", end_pos)?;
        visited.clear();
        let (t0, p0) = decode(mesh, start_ref)?;
        if !poly_passes(t0, p0, filter) {
            return Err(QueryError::FilteredOut(start_ref));
        }
        let mid = lerp(start_pos, end_pos, 0.5);
        let radius = dist(start_pos, end_pos) * 0.5 + 0.001;
        let r2 = radius * radius;
        self.aux_reset(start_ref, start_pos);
        let mut best = (f64::INFINITY, 0u32, start_pos);
        let mut verts = PolyVerts::new();
        let mut i = 0;
        while i < self.aux_nodes.len() {
            let cur = self.aux_nodes[i].poly;
            let (tile, p) = decode(mesh, cur)?;
            poly_verts(tile, p, &mut verts);
            if point_in_poly_2d(end_pos, &verts) {
                best = (0.0, i as u32, end_pos);
                break;
            }
            let nodes = &mut self.aux_nodes;
            let index = &mut self.aux_index;
            for_each_boundary_piece(mesh, tile, p, &verts, filter, |w| match w.neighbour {
                None => {
                    let (t, d2) = closest_on_segment_2d(end_pos, w.start, w.end);
                    if d2 < best.0 {
                        best = (d2, i as u32, edge_point(w.start, w.end, t));
                    }
                }
                Some(target) => {
                    if index.contains_key(&target) || segment_dist2(mid, w.start, w.end) > r2 {
                        return;
                    }
                    index.insert(target, nodes.len() as u32);
                    nodes.push(Node {
                        poly: target,
                        pos: [0.0; 3],
                        g: 0.0,
                        f: 0.0,
                        parent: i as u32,
                        closed: false,
                    });
                }
            });
            i += 1;
        }
        let (_, node, mut pos) = best;
        let mut j = node;
        while j != NO_PARENT {
            visited.push(self.aux_nodes[j as usize].poly);
            j = self.aux_nodes[j as usize].parent;
        }
        visited.reverse();
        let poly = self.aux_nodes[node as usize].poly;
        let (t, p) = decode(mesh, poly)?;
        poly_verts(t, p, &mut verts);
        if let Some(h) = height_over_poly(t, p, &verts, pos) {
            pos[1] = h;
        }
        Ok(MoveResult { pos, poly })
    }

    /// The distance from `center` (in `start_ref`) to the nearest wall within `max_radius`
    /// (in X/Z), searching breadth-first through crossings within the current best radius.
    /// A wall is an edge without a passable crossing. Equal distances keep the first found.
    pub fn find_distance_to_wall(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        center: Vec3,
        max_radius: f64,
        filter: &QueryFilter,
    ) -> Result<WallHit, QueryError> {
        check_point("center", center)?;
        if !(max_radius.is_finite() && max_radius >= 0.0) {
            return Err(QueryError::InvalidExtent {
                what: "max_radius",
                value: max_radius,
            });
        }
        let (t0, p0) = decode(mesh, start_ref)?;
        if !poly_passes(t0, p0, filter) {
            return Err(QueryError::FilteredOut(start_ref));
        }
        self.aux_reset(start_ref, center);
        let mut r2 = max_radius * max_radius;
        let mut hit: Option<Vec3> = None;
        let mut verts = PolyVerts::new();
        let mut i = 0;
        while i < self.aux_nodes.len() {
            let cur = self.aux_nodes[i].poly;
            let (tile, p) = decode(mesh, cur)?;
            poly_verts(tile, p, &mut verts);
            // Walls first (they shrink the radius), then the crossings within it.
            for_each_boundary_piece(mesh, tile, p, &verts, filter, |w| {
                if w.neighbour.is_none() {
                    let (t, d2) = closest_on_segment_2d(center, w.start, w.end);
                    if d2 < r2 {
                        r2 = d2;
                        hit = Some(edge_point(w.start, w.end, t));
                    }
                }
            });
            let nodes = &mut self.aux_nodes;
            let index = &mut self.aux_index;
            for_each_boundary_piece(mesh, tile, p, &verts, filter, |w| {
                let Some(target) = w.neighbour else {
                    return;
                };
                if index.contains_key(&target) || segment_dist2(center, w.start, w.end) > r2 {
                    return;
                }
                index.insert(target, nodes.len() as u32);
                nodes.push(Node {
                    poly: target,
                    pos: [0.0; 3],
                    g: 0.0,
                    f: 0.0,
                    parent: i as u32,
                    closed: false,
                });
            });
            i += 1;
        }
        Ok(match hit {
            None => WallHit {
                distance: max_radius,
                point: center,
                normal: [0.0; 3],
            },
            Some(point) => {
                let d = r2.sqrt();
                let normal = if d > 0.0 {
                    [(center[0] - point[0]) / d, 0.0, (center[2] - point[2]) / d]
                } else {
                    [0.0; 3]
                };
                WallHit {
                    distance: d,
                    point,
                    normal,
                }
            }
        })
    }

    /// The polygons reachable from `start_ref` through crossings within `radius` of
    /// `center` (X/Z; an off-mesh link counts when its departure point is within), in the
    /// order a Dijkstra search settles them (cost: area cost × distance between crossing
    /// points, starting at `center`; ties: lower cost, then lower slot and polygon index). Written into
    /// `out` (cleared first).
    pub fn polys_around_circle(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        center: Vec3,
        radius: f64,
        filter: &QueryFilter,
        out: &mut Vec<CircleNode>,
    ) -> Result<(), QueryError> {
        check_point("center", center)?;
        if !(radius.is_finite() && radius >= 0.0) {
            return Err(QueryError::InvalidExtent {
                what: "radius",
                value: radius,
            });
        }
        out.clear();
        let (t0, p0) = decode(mesh, start_ref)?;
        if !poly_passes(t0, p0, filter) {
            return Err(QueryError::FilteredOut(start_ref));
        }
        let r2 = radius * radius;
        self.polys_around(mesh, start_ref, center, filter, out, |c| match *c {
            Crossing::Edge { left, right, .. } => segment_dist2(center, right, left) <= r2,
            Crossing::OffMesh { start, .. } => {
                let dx = start[0] - center[0];
                let dz = start[2] - center[2];
                dx * dx + dz * dz <= r2
            }
        })
    }

    /// The Dijkstra search of [`NavMeshQuery::polys_around_circle`] through the crossings
    /// `within` accepts.
    fn polys_around(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        center: Vec3,
        filter: &QueryFilter,
        out: &mut Vec<CircleNode>,
        within: impl Fn(&Crossing) -> bool,
    ) -> Result<(), QueryError> {
        self.aux_reset(start_ref, center);
        self.aux_open.push(OpenEntry {
            f: 0.0,
            g: 0.0,
            poly: start_ref,
            node: 0,
        });
        while let Some(e) = self.aux_open.pop() {
            let node = self.aux_nodes[e.node as usize];
            if node.closed || e.g != node.g {
                continue;
            }
            self.aux_nodes[e.node as usize].closed = true;
            out.push(CircleNode {
                poly: node.poly,
                parent: if node.parent == NO_PARENT {
                    PolyRef::NULL
                } else {
                    self.aux_nodes[node.parent as usize].poly
                },
                cost: node.g,
            });
            let (tile, p) = decode(mesh, node.poly)?;
            let ca = filter.area_cost(tile.tile().areas()[p]);
            let nodes = &mut self.aux_nodes;
            let index = &mut self.aux_index;
            let open = &mut self.aux_open;
            for_each_neighbour(mesh, tile, p, filter, |nb| {
                if !within(&nb.crossing) {
                    return;
                }
                let entry = nb.crossing.entry_point();
                let mut g = node.g + ca * dist(node.pos, entry);
                if let Crossing::OffMesh {
                    start, end, area, ..
                } = nb.crossing
                {
                    g += filter.area_cost(area) * dist(start, end);
                }
                let pos = nb.crossing.exit_point();
                let i = match index.get(&nb.target) {
                    Some(&i) => {
                        let n = &mut nodes[i as usize];
                        if n.closed || !(g < n.g) {
                            return;
                        }
                        n.g = g;
                        n.f = g;
                        n.pos = pos;
                        n.parent = e.node;
                        i
                    }
                    None => {
                        let i = nodes.len() as u32;
                        nodes.push(Node {
                            poly: nb.target,
                            pos,
                            g,
                            f: g,
                            parent: e.node,
                            closed: false,
                        });
                        index.insert(nb.target, i);
                        i
                    }
                };
                open.push(OpenEntry {
                    f: g,
                    g,
                    poly: nb.target,
                    node: i,
                });
            });
        }
        Ok(())
    }

    /// The polygons reachable from `start_ref` through crossings that touch the convex
    /// polygon `shape` (X/Z, either winding; an off-mesh link counts when its departure point
    /// is inside), in Dijkstra settle order from the shape's centre (corner average), as
    /// [`NavMeshQuery::polys_around_circle`]. A shape of fewer than 3 corners or zero area is
    /// [`QueryError::InvalidExtent`] (`shape`).
    pub fn polys_around_shape(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        shape: &[Vec3],
        filter: &QueryFilter,
        out: &mut Vec<CircleNode>,
    ) -> Result<(), QueryError> {
        out.clear();
        for v in shape {
            check_point("shape", *v)?;
        }
        let mut ccw: PolyVerts = shape.iter().copied().collect();
        let area = if ccw.len() >= 3 {
            poly_area_2d(&ccw)
        } else {
            0.0
        };
        if area == 0.0 {
            return Err(QueryError::InvalidExtent {
                what: "shape",
                value: area,
            });
        }
        if area < 0.0 {
            ccw.reverse();
        }
        let (t0, p0) = decode(mesh, start_ref)?;
        if !poly_passes(t0, p0, filter) {
            return Err(QueryError::FilteredOut(start_ref));
        }
        let center = crate::query::graph::poly_centre(&ccw);
        self.polys_around(mesh, start_ref, center, filter, out, |c| match *c {
            Crossing::Edge { left, right, .. } => {
                crate::query::geom::clip_segment_poly_2d(right, left, &ccw).is_some()
            }
            Crossing::OffMesh { start, .. } => point_in_poly_2d(start, &ccw),
        })
    }

    /// A random point on the mesh: a polygon passing `filter` chosen with probability
    /// proportional to its X/Z area (slot, then polygon order), then a triangle of its fan by
    /// area, then a uniform point in the triangle, at the surface height. `rand` must return
    /// numbers in `[0, 1)` (values outside are clamped; NaN reads as 0); it is called exactly
    /// four times when a point is found. `None` when no polygon passes the filter.
    pub fn find_random_point(
        &mut self,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        rand: &mut impl FnMut() -> f64,
    ) -> Result<Option<(PolyRef, Vec3)>, QueryError> {
        let mut next = || unit(rand());
        let mut verts = PolyVerts::new();
        let area_of = |verts: &PolyVerts| poly_area_2d(verts);
        let mut total = 0.0;
        for t in mesh.tiles() {
            for p in 0..t.tile().poly_count() {
                if poly_passes(t, p, filter) {
                    poly_verts(t, p, &mut verts);
                    total += area_of(&verts);
                }
            }
        }
        if !(total > 0.0) {
            return Ok(None);
        }
        let target = next() * total;
        let mut acc = 0.0;
        let mut chosen = None;
        'tiles: for t in mesh.tiles() {
            for p in 0..t.tile().poly_count() {
                if poly_passes(t, p, filter) {
                    poly_verts(t, p, &mut verts);
                    acc += area_of(&verts);
                    chosen = Some((t, p));
                    if target < acc {
                        break 'tiles;
                    }
                }
            }
        }
        let Some((t, p)) = chosen else {
            return Ok(None);
        };
        Ok(Some(random_point_in_poly(t, p, &mut next)?))
    }

    /// A random point in a polygon reachable from `start_ref` within `radius` of `center`
    /// (the polygons of [`NavMeshQuery::polys_around_circle`]): a polygon chosen with
    /// probability proportional to its X/Z area, in settle order, then a point in it as for
    /// [`NavMeshQuery::find_random_point`] (the point itself may lie outside the circle).
    /// `rand` is called exactly four times.
    pub fn find_random_point_around_circle(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        center: Vec3,
        radius: f64,
        filter: &QueryFilter,
        rand: &mut impl FnMut() -> f64,
    ) -> Result<(PolyRef, Vec3), QueryError> {
        let mut found = std::mem::take(&mut self.scratch_circle);
        let r = self.polys_around_circle(mesh, start_ref, center, radius, filter, &mut found);
        let result = r.and_then(|()| {
            let mut next = || unit(rand());
            let mut verts = PolyVerts::new();
            let mut total = 0.0;
            for n in &found {
                let (t, p) = decode(mesh, n.poly)?;
                poly_verts(t, p, &mut verts);
                total += poly_area_2d(&verts);
            }
            let target = next() * total;
            let mut acc = 0.0;
            let mut chosen = start_ref;
            for n in &found {
                let (t, p) = decode(mesh, n.poly)?;
                poly_verts(t, p, &mut verts);
                acc += poly_area_2d(&verts);
                chosen = n.poly;
                if target < acc {
                    break;
                }
            }
            let (t, p) = decode(mesh, chosen)?;
            random_point_in_poly(t, p, &mut next)
        });
        self.scratch_circle = found;
        result
    }

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

/// A caller's random number clamped to `[0, 1]` (NaN reads as 0).
fn unit(v: f64) -> f64 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(0.0, 1.0)
    }
}

/// The X/Z area of a convex counter-clockwise polygon (its fan, summed in order).
fn poly_area_2d(verts: &[Vec3]) -> f64 {
    let mut a = 0.0;
    for k in 1..verts.len() - 1 {
        a += cross_2d(verts[0], verts[k], verts[k + 1]) * 0.5;
    }
    a
}

/// A point in polygon `p`: a fan triangle by area (one random number), then a uniform point
/// in it (two), at the surface height.
fn random_point_in_poly(
    t: &MeshTile,
    p: usize,
    next: &mut impl FnMut() -> f64,
) -> Result<(PolyRef, Vec3), QueryError> {
    let mut verts = PolyVerts::new();
    poly_verts(t, p, &mut verts);
    let pick = next() * poly_area_2d(&verts);
    let mut acc = 0.0;
    let mut k = 1;
    while k + 2 < verts.len() {
        acc += cross_2d(verts[0], verts[k], verts[k + 1]) * 0.5;
        if pick < acc {
            break;
        }
        k += 1;
    }
    let (a, b, c) = (verts[0], verts[k], verts[k + 1]);
    let s = next();
    let r = next();
    let sq = s.sqrt();
    let (wa, wb, wc) = (1.0 - sq, sq * (1.0 - r), sq * r);
    let mut pt = [
        a[0] * wa + b[0] * wb + c[0] * wc,
        a[1] * wa + b[1] * wb + c[1] * wc,
        a[2] * wa + b[2] * wb + c[2] * wc,
    ];
    if let Some(h) = height_over_poly(t, p, &verts, pt) {
        pt[1] = h;
    }
    let r = t
        .poly_ref(p as u32)
        .ok_or(QueryError::InvalidPolyRef(PolyRef::NULL))?;
    Ok((r, pt))
}

/// One polygon found by [`NavMeshQuery::find_local_neighbourhood`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalNode {
    /// The polygon.
    pub poly: PolyRef,
    /// The polygon it was reached from (`PolyRef::NULL` for the start).
    pub parent: PolyRef,
}

/// True when two convex polygons overlap in X/Z by more than `eps` along every separating
/// axis candidate (their edge normals); polygons that only touch do not overlap.
fn overlap_poly_poly_2d(a: &[Vec3], b: &[Vec3], eps: f64) -> bool {
    let axes = |p: &[Vec3]| -> SmallVec<[(f64, f64); 16]> {
        let n = p.len();
        (0..n)
            .map(|k| {
                let (u, v) = (p[k], p[(k + 1) % n]);
                (v[2] - u[2], -(v[0] - u[0]))
            })
            .collect()
    };
    let project = |p: &[Vec3], ax: (f64, f64)| {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for v in p {
            let d = v[0] * ax.0 + v[2] * ax.1;
            lo = lo.min(d);
            hi = hi.max(d);
        }
        (lo, hi)
    };
    for ax in axes(a).into_iter().chain(axes(b)) {
        let (amin, amax) = project(a, ax);
        let (bmin, bmax) = project(b, ax);
        if amin + eps > bmax || amax - eps < bmin {
            return false;
        }
    }
    true
}

impl NavMeshQuery {
    /// The polygons around `center` an agent of `radius` may touch, without overlaps: a
    /// breadth-first search from `start_ref` through edge crossings within `radius` (X/Z),
    /// in neighbour order, skipping any polygon that overlaps (in X/Z, by more than `1e-4`
    /// world units along some axis) a polygon already found — so of two layers over the same
    /// ground only the one reached first counts. At most `max_results` polygons, start first.
    #[allow(clippy::too_many_arguments)]
    pub fn find_local_neighbourhood(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        center: Vec3,
        radius: f64,
        filter: &QueryFilter,
        max_results: usize,
        out: &mut Vec<LocalNode>,
    ) -> Result<(), QueryError> {
        check_point("center", center)?;
        if !(radius.is_finite() && radius >= 0.0) {
            return Err(QueryError::InvalidExtent {
                what: "radius",
                value: radius,
            });
        }
        out.clear();
        let (t0, p0) = decode(mesh, start_ref)?;
        if !poly_passes(t0, p0, filter) {
            return Err(QueryError::FilteredOut(start_ref));
        }
        if max_results == 0 {
            return Ok(());
        }
        let r2 = radius * radius;
        self.aux_reset(start_ref, center);
        out.push(LocalNode {
            poly: start_ref,
            parent: PolyRef::NULL,
        });
        let (mut va, mut vb) = (PolyVerts::new(), PolyVerts::new());
        let mut i = 0;
        let mut candidates: SmallVec<[PolyRef; 16]> = SmallVec::new();
        while i < self.aux_nodes.len() {
            let cur = self.aux_nodes[i].poly;
            let (tile, p) = decode(mesh, cur)?;
            candidates.clear();
            for_each_neighbour(mesh, tile, p, filter, |nb| {
                if let Crossing::Edge { left, right, .. } = nb.crossing {
                    if segment_dist2(center, right, left) <= r2 {
                        candidates.push(nb.target);
                    }
                }
            });
            for &target in &candidates {
                if self.aux_index.contains_key(&target) {
                    continue;
                }
                // Visited either way: an overlapping polygon is not tried again.
                self.aux_index.insert(target, self.aux_nodes.len() as u32);
                let (tt, tp) = decode(mesh, target)?;
                poly_verts(tt, tp, &mut va);
                let mut overlaps = false;
                for n in out.iter() {
                    let (ot, op) = decode(mesh, n.poly)?;
                    poly_verts(ot, op, &mut vb);
                    if overlap_poly_poly_2d(&va, &vb, 1e-4) {
                        overlaps = true;
                        break;
                    }
                }
                if overlaps {
                    continue;
                }
                self.aux_nodes.push(Node {
                    poly: target,
                    pos: [0.0; 3],
                    g: 0.0,
                    f: 0.0,
                    parent: i as u32,
                    closed: false,
                });
                out.push(LocalNode {
                    poly: target,
                    parent: cur,
                });
                if out.len() >= max_results {
                    return Ok(());
                }
            }
            i += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x: f64, z: f64, s: f64) -> [Vec3; 4] {
        [
            [x, 0.0, z],
            [x + s, 0.0, z],
            [x + s, 0.0, z + s],
            [x, 0.0, z + s],
        ]
    }

    #[test]
    fn touching_polygons_do_not_overlap_and_stacked_ones_do() {
        assert!(!overlap_poly_poly_2d(
            &square(0.0, 0.0, 1.0),
            &square(1.0, 0.0, 1.0),
            1e-4
        ));
        assert!(!overlap_poly_poly_2d(
            &square(0.0, 0.0, 1.0),
            &square(1.0, 1.0, 1.0),
            1e-4
        ));
        assert!(overlap_poly_poly_2d(
            &square(0.0, 0.0, 1.0),
            &square(0.5, 0.5, 1.0),
            1e-4
        ));
        // A layer above: same outline, other height.
        let mut up = square(0.0, 0.0, 1.0);
        for v in &mut up {
            v[1] = 3.0;
        }
        assert!(overlap_poly_poly_2d(&square(0.0, 0.0, 1.0), &up, 1e-4));
    }
}
