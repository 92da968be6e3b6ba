//! Tile validation: every rule of "Tile contents and rules" (docs/navmesh-format.md), checked
//! in a fixed order so that the same bad tile always gives the same error:
//!
//! 1. header: Layer ≤ 1023, OriginY finite and strictly within ±2^21;
//! 2. array lengths: 1 ≤ P < 2^20 polygons, V ≤ 65 535 vertices, areas and flags one per
//!    polygon, corners / edge neighbours / edge portal sides one per polygon corner
//!    (C = Σ sizes), detail meshes 0 or P (and no detail vertices or triangles without them);
//! 3. vertices: finite, X and Z in [−TileSize, 2·TileSize], |Y| ≤ MaxLocalExtent;
//! 4. per polygon, in index order: size in 3..=MaxVertsPerPoly, area ≤ 63, corner indices
//!    < V and distinct, no zero-length X/Z edge, convex and counter-clockwise by the exact
//!    orientation predicate (every other vertex left of or on every edge, at least one
//!    strictly left of every edge, and the boundary winds exactly once: a path that visits
//!    the same positions twice under other indices is a self-overlapping shape);
//! 5. per polygon edge: neighbour index in range and not the polygon itself, the neighbour
//!    has the reversed edge naming this polygon back, no portal side on an edge with a
//!    neighbour; a portal side is 0..=3, both endpoints lie bitwise on `(float)TileSize`
//!    (sides 0, 1) or `+0.0` (sides 2, 3) of the side's axis (X for 0 and 2, Z for 1 and 3),
//!    and the edge has nonzero length along the boundary (implied by the polygon rules: an
//!    edge with both ends on one boundary line and no length along it has zero X/Z length,
//!    so step 4 reports it first; the check stays as a guard);
//! 6. detail: every mesh's vertex and triangle ranges inside their arrays, every triangle
//!    index below n + the mesh's vertex count, detail vertices finite and inside the vertex
//!    bounds;
//! 7. off-mesh link slots: coordinates finite with |v| ≤ MaxLocalExtent, radius finite and
//!    > 0, area ≤ 63.

use std::cmp::Ordering;

use smallvec::SmallVec;

use crate::error::FormatError;
use crate::orient::{orient2d_exact, xz};
use crate::params::{NavMeshParams, COORD_BOUND};
use crate::tile::{NavTileData, MAX_AREA, MAX_LAYER, NO_PORTAL};

/// Largest vertex count of a tile (corner indices are u16).
pub const MAX_TILE_VERTICES: usize = 65_535;
/// A tile has fewer polygons than this (polygon indices are 20 bits in a PolyRef).
pub const MAX_TILE_POLYS: usize = 1 << 20;

/// Checks every tile rule; the error names the polygon, edge or array.
pub(crate) fn validate_tile(params: &NavMeshParams, d: &NavTileData) -> Result<(), FormatError> {
    check_header(d)?;
    check_lengths(d)?;
    let ts = params.tile_size;
    let mle = params.max_local_extent();
    for (i, v) in d.vertices.iter().enumerate() {
        check_vertex(*v, ts, mle).map_err(|r| FormatError::malformed(format!("vertex {i}"), r))?;
    }
    let first = first_corners(&d.poly_sizes);
    for p in 0..d.poly_sizes.len() {
        check_polygon(params, d, &first, p)?;
    }
    for p in 0..d.poly_sizes.len() {
        check_adjacency(params, d, &first, p)?;
    }
    check_detail(d, ts, mle)?;
    for (i, l) in d.off_mesh_links.iter().enumerate() {
        let at = || format!("off-mesh link {i}");
        for (name, pt) in [("start", l.start), ("end", l.end)] {
            for (axis, c) in ["x", "y", "z"].iter().zip(pt) {
                if !(c.is_finite() && f64::from(c).abs() <= mle) {
                    return Err(FormatError::malformed(
                        format!("{}: {name}.{axis}", at()),
                        format!("{c} is not finite with |v| ≤ MaxLocalExtent {mle}"),
                    ));
                }
            }
        }
        if !(l.radius.is_finite() && l.radius > 0.0) {
            return Err(FormatError::malformed(
                format!("{}: radius", at()),
                format!("{} is not finite and > 0", l.radius),
            ));
        }
        if l.area > MAX_AREA {
            return Err(FormatError::malformed(
                format!("{}: area", at()),
                format!("{} is above {MAX_AREA}", l.area),
            ));
        }
    }
    Ok(())
}

fn check_header(d: &NavTileData) -> Result<(), FormatError> {
    if d.layer > MAX_LAYER {
        return Err(FormatError::malformed(
            "Layer",
            format!("{} is above {MAX_LAYER}", d.layer),
        ));
    }
    if !(d.origin_y.is_finite() && d.origin_y.abs() < COORD_BOUND) {
        return Err(FormatError::malformed(
            "OriginY",
            format!(
                "{} is not finite and strictly within ±{COORD_BOUND}",
                d.origin_y
            ),
        ));
    }
    Ok(())
}

fn check_lengths(d: &NavTileData) -> Result<(), FormatError> {
    let p = d.poly_sizes.len();
    if p == 0 || p >= MAX_TILE_POLYS {
        return Err(FormatError::malformed(
            "polygon sizes",
            format!("{p} polygons (a tile has 1 to 2^20 − 1)"),
        ));
    }
    if d.vertices.len() > MAX_TILE_VERTICES {
        return Err(FormatError::malformed(
            "vertices",
            format!(
                "{} vertices (at most {MAX_TILE_VERTICES})",
                d.vertices.len()
            ),
        ));
    }
    for (name, len) in [
        ("polygon areas", d.poly_areas.len()),
        ("polygon flags", d.poly_flags.len()),
    ] {
        if len != p {
            return Err(FormatError::malformed(
                name,
                format!("{len} entries for {p} polygons"),
            ));
        }
    }
    let c: usize = d.poly_sizes.iter().map(|&s| usize::from(s)).sum();
    for (name, len) in [
        ("corners", d.corners.len()),
        ("edge neighbours", d.edge_neighbours.len()),
        ("edge portal sides", d.edge_portal_sides.len()),
    ] {
        if len != c {
            return Err(FormatError::malformed(
                name,
                format!("{len} entries for {c} polygon corners"),
            ));
        }
    }
    let m = d.detail_meshes.len();
    if m != 0 && m != p {
        return Err(FormatError::malformed(
            "detail meshes",
            format!("{m} entries for {p} polygons (must be 0 or one per polygon)"),
        ));
    }
    if m == 0 && !d.detail_vertices.is_empty() {
        return Err(FormatError::malformed(
            "detail vertices",
            format!("{} entries but no detail meshes", d.detail_vertices.len()),
        ));
    }
    if m == 0 && !d.detail_triangles.is_empty() {
        return Err(FormatError::malformed(
            "detail triangles",
            format!("{} entries but no detail meshes", d.detail_triangles.len()),
        ));
    }
    Ok(())
}

/// Vertex bounds: finite, X and Z in [−TileSize, 2·TileSize], |Y| ≤ MaxLocalExtent.
fn check_vertex(v: [f32; 3], ts: f64, mle: f64) -> Result<(), String> {
    for (axis, c) in [("x", v[0]), ("z", v[2])] {
        let c = f64::from(c);
        if !(c.is_finite() && c >= -ts && c <= 2.0 * ts) {
            return Err(format!(
                "{axis} = {c} is not finite and within [−TileSize, 2·TileSize] = [{}, {}]",
                -ts,
                2.0 * ts
            ));
        }
    }
    let y = f64::from(v[1]);
    if !(y.is_finite() && y.abs() <= mle) {
        return Err(format!(
            "y = {y} is not finite with |y| ≤ MaxLocalExtent {mle}"
        ));
    }
    Ok(())
}

/// Index of each polygon's first corner. Sizes are u8 and P < 2^20, so no overflow.
fn first_corners(sizes: &[u8]) -> Vec<usize> {
    let mut out = Vec::with_capacity(sizes.len() + 1);
    let mut acc = 0usize;
    for &s in sizes {
        out.push(acc);
        acc += usize::from(s);
    }
    out.push(acc);
    out
}

fn check_polygon(
    params: &NavMeshParams,
    d: &NavTileData,
    first: &[usize],
    p: usize,
) -> Result<(), FormatError> {
    let at = |what: String| format!("polygon {p}{what}");
    let n = usize::from(d.poly_sizes[p]);
    if n < 3 || n > usize::from(params.max_verts_per_poly) {
        return Err(FormatError::malformed(
            at(": size".into()),
            format!("{n} is not in 3..={}", params.max_verts_per_poly),
        ));
    }
    if d.poly_areas[p] > MAX_AREA {
        return Err(FormatError::malformed(
            at(": area".into()),
            format!("{} is above {MAX_AREA}", d.poly_areas[p]),
        ));
    }
    let idx = &d.corners[first[p]..first[p + 1]];
    for (k, &i) in idx.iter().enumerate() {
        if usize::from(i) >= d.vertices.len() {
            return Err(FormatError::malformed(
                at(format!(": corner {k}")),
                format!(
                    "vertex index {i} is out of range ({} vertices)",
                    d.vertices.len()
                ),
            ));
        }
        if let Some(j) = idx[..k].iter().position(|&o| o == i) {
            return Err(FormatError::malformed(
                at(format!(": corner {k}")),
                format!("vertex index {i} repeats corner {j}"),
            ));
        }
    }
    let pts: SmallVec<[[f32; 2]; 16]> = idx
        .iter()
        .map(|&i| xz(d.vertices[usize::from(i)]))
        .collect();
    for k in 0..n {
        let (a, b) = (pts[k], pts[(k + 1) % n]);
        if a == b {
            return Err(FormatError::malformed(
                at(format!(": edge {k}")),
                "zero length in X/Z",
            ));
        }
    }
    for k in 0..n {
        let (a, b) = (pts[k], pts[(k + 1) % n]);
        let mut strictly_left = false;
        for (j, &c) in pts.iter().enumerate() {
            if j == k || j == (k + 1) % n {
                continue;
            }
            match orient2d_exact(a, b, c) {
                Ordering::Less => {
                    return Err(FormatError::malformed(
                        at(format!(": edge {k}")),
                        format!(
                            "vertex {j} lies right of the edge (not convex and counter-clockwise)"
                        ),
                    ))
                }
                Ordering::Greater => strictly_left = true,
                Ordering::Equal => {}
            }
        }
        if !strictly_left {
            return Err(FormatError::malformed(
                at(format!(": edge {k}")),
                "no vertex lies strictly left of the edge (zero-area polygon)",
            ));
        }
    }
    // Every turn is now left or straight, so the edge direction's angle only grows; it
    // must wind exactly once. Count the wraps from the lower half-plane of directions
    // ([π, 2π)) to the upper ([0, π)); each is decided by exact coordinate comparisons.
    let upper = |a: [f32; 2], b: [f32; 2]| b[1] > a[1] || (b[1] == a[1] && b[0] > a[0]);
    let halves: SmallVec<[bool; 16]> = (0..n).map(|k| upper(pts[k], pts[(k + 1) % n])).collect();
    let wraps = (0..n)
        .filter(|&k| !halves[k] && halves[(k + 1) % n])
        .count();
    if wraps != 1 {
        return Err(FormatError::malformed(
            at(String::new()),
            format!("the boundary winds {wraps} times (self-overlapping polygon)"),
        ));
    }
    Ok(())
}

fn check_adjacency(
    params: &NavMeshParams,
    d: &NavTileData,
    first: &[usize],
    p: usize,
) -> Result<(), FormatError> {
    let n = usize::from(d.poly_sizes[p]);
    let base = first[p];
    let tsf = params.tile_size_f32();
    for k in 0..n {
        // Built only on failure: formatting per edge would dominate a valid tile's cost.
        let at = || format!("polygon {p}: edge {k}");
        let c = base + k;
        let va = d.corners[c];
        let vb = d.corners[base + (k + 1) % n];
        let nb = d.edge_neighbours[c];
        let side = d.edge_portal_sides[c];
        if nb != 0 {
            let q = (nb - 1) as usize;
            if q >= d.poly_sizes.len() {
                return Err(FormatError::malformed(
                    at(),
                    format!(
                        "neighbour {nb} names polygon {q}, out of range ({} polygons)",
                        d.poly_sizes.len()
                    ),
                ));
            }
            if q == p {
                return Err(FormatError::malformed(
                    at(),
                    "neighbour is the polygon itself",
                ));
            }
            if side != NO_PORTAL {
                return Err(FormatError::malformed(
                    at(),
                    format!("edge has an in-tile neighbour and portal side {side}"),
                ));
            }
            let qn = usize::from(d.poly_sizes[q]);
            let qb = first[q];
            let back = (0..qn).any(|j| {
                d.corners[qb + j] == vb
                    && d.corners[qb + (j + 1) % qn] == va
                    && d.edge_neighbours[qb + j] as usize == p + 1
            });
            if !back {
                return Err(FormatError::malformed(at(),
                    format!(
                        "neighbour polygon {q} has no reversed edge ({vb} → {va}) naming polygon {p} back"
                    ),
                ));
            }
        } else if side != NO_PORTAL {
            if side > 3 {
                return Err(FormatError::malformed(
                    at(),
                    format!("portal side {side} is not 0..=3 or 0xFF"),
                ));
            }
            let a = d.vertices[usize::from(va)];
            let b = d.vertices[usize::from(vb)];
            // Side 0: +X boundary, 1: +Z, 2: −X, 3: −Z.
            let (axis, along) = if side % 2 == 0 { (0, 2) } else { (2, 0) };
            let coord = if side < 2 { tsf } else { 0.0f32 };
            for (name, v) in [("start", a), ("end", b)] {
                if v[axis].to_bits() != coord.to_bits() {
                    return Err(FormatError::malformed(
                        at(),
                        format!(
                            "portal side {side}: {name} {} = {} is not exactly {coord}",
                            if axis == 0 { "x" } else { "z" },
                            v[axis]
                        ),
                    ));
                }
            }
            if a[along] == b[along] {
                return Err(FormatError::malformed(
                    at(),
                    format!("portal side {side}: zero length along the boundary"),
                ));
            }
        }
    }
    Ok(())
}

fn check_detail(d: &NavTileData, ts: f64, mle: f64) -> Result<(), FormatError> {
    for (i, v) in d.detail_vertices.iter().enumerate() {
        check_vertex(*v, ts, mle)
            .map_err(|r| FormatError::malformed(format!("detail vertex {i}"), r))?;
    }
    let dv = d.detail_vertices.len() as u64;
    let dt = d.detail_triangles.len() as u64;
    for (p, m) in d.detail_meshes.iter().enumerate() {
        let at = || format!("polygon {p}: detail mesh");
        let v_end = u64::from(m.vertex_base) + u64::from(m.vertex_count);
        if v_end > dv {
            return Err(FormatError::malformed(
                at(),
                format!(
                    "vertex range {}..{v_end} exceeds the {dv} detail vertices",
                    m.vertex_base
                ),
            ));
        }
        let t_end = u64::from(m.triangle_base) + u64::from(m.triangle_count);
        if t_end > dt {
            return Err(FormatError::malformed(
                at(),
                format!(
                    "triangle range {}..{t_end} exceeds the {dt} detail triangles",
                    m.triangle_base
                ),
            ));
        }
        let limit = u64::from(d.poly_sizes[p]) + u64::from(m.vertex_count);
        for t in u64::from(m.triangle_base)..t_end {
            let tri = d.detail_triangles[t as usize];
            if let Some(k) = tri.v.iter().position(|&i| u64::from(i) >= limit) {
                return Err(FormatError::malformed(
                    format!("polygon {p}: detail triangle {t}"),
                    format!(
                        "index {k} = {} is not below {limit} (polygon vertices + detail vertices)",
                        tri.v[k]
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tile::{DetailMesh, DetailTriangle, OffMeshLinkSlot};

    include!("test_tiles.rs");

    #[track_caller]
    fn assert_rejected_at(d: &NavTileData, at_expected: &str) {
        match validate_tile(&params(), d) {
            Err(FormatError::Malformed { at, .. }) => assert_eq!(at, at_expected),
            other => panic!("expected a malformed error at {at_expected}, got {other:?}"),
        }
    }

    #[test]
    fn a_valid_tile_passes_every_rule() {
        validate_tile(&params(), &two_quads()).unwrap();
    }

    #[test]
    fn layer_is_0_to_1023() {
        let mut d = two_quads();
        d.layer = 1024;
        assert_rejected_at(&d, "Layer");
        d.layer = 1023;
        validate_tile(&params(), &d).unwrap();
    }

    #[test]
    fn tile_origin_y_is_finite_within_the_bound() {
        let mut d = two_quads();
        d.origin_y = COORD_BOUND;
        assert_rejected_at(&d, "OriginY");
        d.origin_y = f64::NAN;
        assert_rejected_at(&d, "OriginY");
    }

    #[test]
    fn a_tile_has_at_least_one_polygon() {
        let d = NavTileData::default();
        assert_rejected_at(&d, "polygon sizes");
    }

    #[test]
    fn a_tile_has_fewer_than_2_pow_20_polygons() {
        let mut d = two_quads();
        d.poly_sizes = vec![3; MAX_TILE_POLYS];
        assert_rejected_at(&d, "polygon sizes");
    }

    #[test]
    fn a_tile_has_at_most_65535_vertices() {
        let mut d = two_quads();
        d.vertices.resize(MAX_TILE_VERTICES, [0.0; 3]);
        validate_tile(&params(), &d).unwrap();
        d.vertices.push([0.0; 3]);
        assert_rejected_at(&d, "vertices");
    }

    #[test]
    fn areas_and_flags_are_one_per_polygon() {
        let mut d = two_quads();
        d.poly_areas.pop();
        assert_rejected_at(&d, "polygon areas");
        let mut d = two_quads();
        d.poly_flags.push(0);
        assert_rejected_at(&d, "polygon flags");
    }

    #[test]
    fn corner_arrays_are_one_per_polygon_corner() {
        let mut d = two_quads();
        d.corners.pop();
        assert_rejected_at(&d, "corners");
        let mut d = two_quads();
        d.edge_neighbours.pop();
        assert_rejected_at(&d, "edge neighbours");
        let mut d = two_quads();
        d.edge_portal_sides.push(NO_PORTAL);
        assert_rejected_at(&d, "edge portal sides");
    }

    #[test]
    fn detail_meshes_are_none_or_one_per_polygon() {
        let mut d = two_quads();
        d.detail_meshes.pop();
        assert_rejected_at(&d, "detail meshes");
        let mut d = two_quads();
        d.detail_meshes.clear();
        assert_rejected_at(&d, "detail vertices");
        d.detail_vertices.clear();
        assert_rejected_at(&d, "detail triangles");
        d.detail_triangles.clear();
        validate_tile(&params(), &d).unwrap();
    }

    #[test]
    fn vertex_x_and_z_lie_within_minus_one_to_two_tile_sizes() {
        let mut d = two_quads();
        d.vertices.push([-8.0, 0.0, 16.0]);
        validate_tile(&params(), &d).unwrap();
        d.vertices.push([16.0 + 16.0 * f32::EPSILON, 0.0, 0.0]);
        assert_rejected_at(&d, "vertex 7");
        let mut d = two_quads();
        d.vertices.push([0.0, 0.0, -8.0 - 8.0 * f32::EPSILON]);
        assert_rejected_at(&d, "vertex 6");
        let mut d = two_quads();
        d.vertices.push([f32::NAN, 0.0, 0.0]);
        assert_rejected_at(&d, "vertex 6");
    }

    #[test]
    fn vertex_y_is_within_max_local_extent() {
        let mut d = two_quads();
        let mle = params().max_local_extent() as f32;
        d.vertices.push([0.0, -mle, 0.0]);
        validate_tile(&params(), &d).unwrap();
        d.vertices.push([0.0, mle * (1.0 + f32::EPSILON), 0.0]);
        assert_rejected_at(&d, "vertex 7");
    }

    #[test]
    fn polygon_size_is_3_to_max_verts_per_poly() {
        let mut p = params();
        p.max_verts_per_poly = 3;
        match validate_tile(&p, &two_quads()) {
            Err(FormatError::Malformed { at, .. }) => assert_eq!(at, "polygon 0: size"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn polygon_area_is_at_most_63() {
        let mut d = two_quads();
        d.poly_areas[1] = 64;
        assert_rejected_at(&d, "polygon 1: area");
    }

    #[test]
    fn corner_indices_refer_to_existing_vertices() {
        let mut d = two_quads();
        d.corners[6] = 6;
        assert_rejected_at(&d, "polygon 1: corner 2");
    }

    #[test]
    fn polygon_vertex_indices_are_distinct() {
        let mut d = two_quads();
        // 0, 1, 4, 0: index 0 twice.
        d.corners[3] = 0;
        assert_rejected_at(&d, "polygon 0: corner 3");
    }

    #[test]
    fn no_zero_length_edge_in_x_z() {
        let mut d = two_quads();
        // Vertex 6 has vertex 4's X/Z but another height.
        d.vertices.push([4.0, 1.0, 8.0]);
        d.poly_sizes[0] = 5;
        d.corners.insert(3, 6);
        d.edge_neighbours.insert(3, 0);
        d.edge_portal_sides.insert(3, 1);
        assert_rejected_at(&d, "polygon 0: edge 2");
    }

    #[test]
    fn clockwise_polygon_is_rejected() {
        let mut d = two_quads();
        d.corners[..4].reverse(); // 5, 4, 1, 0
        d.edge_neighbours[..4].copy_from_slice(&[0, 0, 0, 0]);
        d.edge_portal_sides[..4].copy_from_slice(&[NO_PORTAL; 4]);
        d.edge_neighbours[7] = 0;
        assert_rejected_at(&d, "polygon 0: edge 0");
    }

    #[test]
    fn non_convex_polygon_is_rejected() {
        let mut d = two_quads();
        // Pull vertex 4 of polygon 0 (corner 2) inwards: the quad becomes a dart.
        d.vertices[4] = [1.0, 0.0, 2.0];
        d.edge_portal_sides[2] = NO_PORTAL;
        d.edge_portal_sides[6] = NO_PORTAL;
        // Edge 1 (1 → 4) has vertex 5 on its right.
        assert_rejected_at(&d, "polygon 0: edge 1");
    }

    #[test]
    fn collinear_vertices_are_allowed() {
        let mut d = two_quads();
        // Polygon 0 becomes 0, 1, 4, 5, 6 with vertex 6 halfway down its west edge.
        d.vertices.push([0.0, 0.0, 4.0]);
        d.poly_sizes[0] = 5;
        d.corners.insert(4, 6);
        d.edge_neighbours.insert(4, 0);
        d.edge_portal_sides.insert(4, 2);
        d.detail_meshes[1].triangle_base = 2;
        validate_tile(&params(), &d).unwrap();
    }

    #[test]
    fn zero_area_polygon_is_rejected() {
        let mut d = two_quads();
        d.vertices.push([2.0, 0.0, 0.0]);
        d.poly_sizes.push(3);
        d.poly_areas.push(0);
        d.poly_flags.push(0);
        d.corners.extend([0, 6, 1]);
        d.edge_neighbours.extend([0, 0, 0]);
        d.edge_portal_sides.extend([NO_PORTAL; 3]);
        d.detail_meshes.push(DetailMesh::default());
        assert_rejected_at(&d, "polygon 2: edge 0");
    }

    #[test]
    fn star_shape_is_rejected() {
        // A regular pentagram: vertices of a pentagon visited in order 0, 2, 4, 1, 3.
        let mut d = two_quads();
        let pent: [[f32; 3]; 5] = [
            [4.0, 0.0, 1.0],
            [7.0, 0.0, 3.0],
            [6.0, 0.0, 7.0],
            [2.0, 0.0, 7.0],
            [1.0, 0.0, 3.0],
        ];
        d.vertices.extend(pent);
        d.poly_sizes.push(5);
        d.poly_areas.push(0);
        d.poly_flags.push(0);
        d.corners.extend([6, 8, 10, 7, 9]);
        d.edge_neighbours.extend([0; 5]);
        d.edge_portal_sides.extend([NO_PORTAL; 5]);
        d.detail_meshes.push(DetailMesh::default());
        assert_rejected_at(&d, "polygon 2: edge 0");
    }

    #[test]
    fn polygon_winding_twice_is_rejected() {
        // A square visited twice under other indices: every vertex is left of or on every
        // edge, but the boundary overlaps itself.
        let mut d = two_quads();
        let sq: [[f32; 3]; 4] = [
            [1.0, 0.0, 1.0],
            [3.0, 0.0, 1.0],
            [3.0, 0.0, 3.0],
            [1.0, 0.0, 3.0],
        ];
        d.vertices.extend(sq);
        d.vertices.extend(sq);
        let mut p = params();
        p.max_verts_per_poly = 8;
        d.poly_sizes.push(8);
        d.poly_areas.push(0);
        d.poly_flags.push(0);
        d.corners.extend(6..14);
        d.edge_neighbours.extend([0; 8]);
        d.edge_portal_sides.extend([NO_PORTAL; 8]);
        d.detail_meshes.push(DetailMesh::default());
        match validate_tile(&p, &d) {
            Err(FormatError::Malformed { at, reason }) => {
                assert_eq!(at, "polygon 2");
                assert!(reason.contains("winds 2 times"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn neighbour_must_name_an_existing_polygon() {
        let mut d = two_quads();
        d.edge_neighbours[1] = 3;
        assert_rejected_at(&d, "polygon 0: edge 1");
    }

    #[test]
    fn neighbour_must_be_another_polygon() {
        let mut d = two_quads();
        d.edge_neighbours[1] = 1;
        assert_rejected_at(&d, "polygon 0: edge 1");
    }

    #[test]
    fn neighbour_must_have_the_reversed_edge_naming_it_back() {
        let mut d = two_quads();
        d.edge_neighbours[7] = 0; // polygon 1 no longer names polygon 0 back
        assert_rejected_at(&d, "polygon 0: edge 1");
        let mut d = two_quads();
        // Polygon 0's edge 0 (0 → 1) names polygon 1, which has no edge 1 → 0.
        d.edge_neighbours[0] = 2;
        d.edge_portal_sides[0] = NO_PORTAL;
        assert_rejected_at(&d, "polygon 0: edge 0");
    }

    #[test]
    fn an_edge_with_a_neighbour_has_no_portal_side() {
        let mut d = two_quads();
        d.edge_portal_sides[7] = 2;
        assert_rejected_at(&d, "polygon 1: edge 3");
    }

    #[test]
    fn portal_side_is_0_to_3() {
        let mut d = two_quads();
        d.edge_portal_sides[0] = 4;
        assert_rejected_at(&d, "polygon 0: edge 0");
    }

    #[test]
    fn portal_edge_lies_exactly_on_its_boundary() {
        let mut d = two_quads();
        d.edge_portal_sides[0] = 1; // edge 0 → 1 lies on z = 0, not z = TileSize
        assert_rejected_at(&d, "polygon 0: edge 0");
        let mut d = two_quads();
        d.vertices[2][0] = 8.0 - 8.0 * f32::EPSILON; // one ulp inside the +X boundary
        assert_rejected_at(&d, "polygon 1: edge 1");
    }

    #[test]
    fn portal_on_minus_boundary_is_positive_zero_bitwise() {
        let mut d = two_quads();
        d.vertices[5][0] = -0.0;
        assert_rejected_at(&d, "polygon 0: edge 3");
    }

    #[test]
    fn portal_edge_lies_on_the_axis_of_its_side() {
        let mut d = two_quads();
        // Edge 5 → 0 lies on x = 0 (side 2); as side 3 both ends would need z = 0.
        d.edge_portal_sides[3] = 3;
        assert_rejected_at(&d, "polygon 0: edge 3");
    }

    #[test]
    fn detail_vertex_range_lies_inside_the_array() {
        let mut d = two_quads();
        d.detail_meshes[1].vertex_count = 2;
        assert_rejected_at(&d, "polygon 1: detail mesh");
    }

    #[test]
    fn detail_triangle_range_lies_inside_the_array() {
        let mut d = two_quads();
        d.detail_meshes[1].triangle_base = u32::MAX;
        assert_rejected_at(&d, "polygon 1: detail mesh");
    }

    #[test]
    fn detail_triangle_index_refers_to_polygon_or_detail_vertices() {
        let mut d = two_quads();
        d.detail_triangles[1].v[2] = 4; // polygon 0 has 4 vertices and no detail vertex
        assert_rejected_at(&d, "polygon 0: detail triangle 1");
        let mut d = two_quads();
        d.detail_triangles[2].v[2] = 5; // polygon 1: 4 + 1 detail vertex
        assert_rejected_at(&d, "polygon 1: detail triangle 2");
    }

    #[test]
    fn detail_vertices_are_finite_inside_the_vertex_bounds() {
        let mut d = two_quads();
        d.detail_vertices[0][1] = f32::INFINITY;
        assert_rejected_at(&d, "detail vertex 0");
    }

    #[test]
    fn off_mesh_link_coordinates_are_within_max_local_extent() {
        let mut d = two_quads();
        d.off_mesh_links[0].end[2] = 4096.0 * (1.0 + f32::EPSILON);
        assert_rejected_at(&d, "off-mesh link 0: end.z");
        d.off_mesh_links[0].end[2] = -4096.0;
        validate_tile(&params(), &d).unwrap();
    }

    #[test]
    fn off_mesh_link_radius_is_above_zero() {
        let mut d = two_quads();
        d.off_mesh_links[0].radius = 0.0;
        assert_rejected_at(&d, "off-mesh link 0: radius");
    }

    #[test]
    fn off_mesh_link_area_is_at_most_63() {
        let mut d = two_quads();
        d.off_mesh_links[0].area = 64;
        assert_rejected_at(&d, "off-mesh link 0: area");
    }
}
