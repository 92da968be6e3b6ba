//! The 2D builder hand-over: world-space polygons → tile-local [`NavTileData`].

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::error::FormatError;
use crate::orient::{orient2d_exact, xz};
use crate::params::NavMeshParams;
use crate::tile::{NavTileData, NO_PORTAL};

/// Default polygon area when the caller gives none.
pub const DEFAULT_AREA: u8 = 0;
/// Default polygon flags when the caller gives none.
pub const DEFAULT_FLAGS: u16 = 1;

/// Turns polygons already cut to one tile into tile data ("Hand-over from builders",
/// 2D builder).
#[derive(Debug, Clone, Copy, Default)]
pub struct NavTileAssembler;

impl NavTileAssembler {
    /// Assembles one tile from world-space polygons that share vertices by index.
    ///
    /// - `world_vertices`: world X, Y, Z (each must pass the coordinate rule); kept in
    ///   order, one tile vertex per world vertex (at most 65 535).
    /// - `poly_sizes` / `indices`: polygon p owns the next `poly_sizes[p]` (3..=
    ///   MaxVertsPerPoly) indices into `world_vertices`; at least one polygon.
    /// - `areas` / `flags`: one per polygon, or `None` for area 0 and flags 1.
    ///
    /// Each coordinate becomes tile-local in f64 (`x − tileOriginX`, `y − origin_y`,
    /// `z − tileOriginZ`, one rounding each), X and Z within `CellSize/1024` of 0 or of
    /// TileSize snap onto that boundary, then the value is rounded to f32. A polygon whose
    /// exact signed area is negative (clockwise) is reversed, keeping its first corner
    /// (`a, b, c, d` → `a, d, c, b`). An edge whose vertex pair appears in exactly two
    /// polygons, in opposite directions, joins them; any other edge is a wall, and a wall
    /// with both ends on the same tile boundary and nonzero length along it becomes a portal
    /// of that side (0: x = TileSize, 1: z = TileSize, 2: x = 0, 3: z = 0). Detail and
    /// off-mesh link slots are left empty.
    ///
    /// The input is checked only as far as the hand-over needs (counts, index ranges,
    /// coordinate rule); [`crate::NavTile::create`] validates the result against every tile
    /// rule.
    #[allow(clippy::too_many_arguments)]
    pub fn from_polygons(
        params: &NavMeshParams,
        tile_x: i32,
        tile_z: i32,
        layer: u16,
        origin_y: f64,
        world_vertices: &[[f64; 3]],
        poly_sizes: &[u8],
        indices: &[u32],
        areas: Option<&[u8]>,
        flags: Option<&[u16]>,
    ) -> Result<NavTileData, FormatError> {
        NavMeshParams::check_coordinate("origin_y", origin_y)?;
        let p = poly_sizes.len();
        if p == 0 {
            return Err(FormatError::malformed("poly_sizes", "no polygons"));
        }
        if world_vertices.len() > crate::MAX_TILE_VERTICES {
            return Err(FormatError::malformed(
                "world_vertices",
                format!(
                    "{} vertices (a tile holds at most {})",
                    world_vertices.len(),
                    crate::MAX_TILE_VERTICES
                ),
            ));
        }
        let mut corner_count = 0usize;
        for (i, &s) in poly_sizes.iter().enumerate() {
            if s < 3 || u16::from(s) > params.max_verts_per_poly {
                return Err(FormatError::malformed(
                    format!("poly_sizes[{i}]"),
                    format!("{s} is not in 3..={}", params.max_verts_per_poly),
                ));
            }
            corner_count += usize::from(s);
        }
        if indices.len() != corner_count {
            return Err(FormatError::malformed(
                "indices",
                format!(
                    "{} indices for {corner_count} polygon corners",
                    indices.len()
                ),
            ));
        }
        if let Some((k, &i)) = indices
            .iter()
            .enumerate()
            .find(|(_, &i)| i as usize >= world_vertices.len())
        {
            return Err(FormatError::malformed(
                format!("indices[{k}]"),
                format!("{i} is out of range ({} vertices)", world_vertices.len()),
            ));
        }
        if let Some(a) = areas {
            if a.len() != p {
                return Err(FormatError::malformed(
                    "areas",
                    format!("{} values for {p} polygons", a.len()),
                ));
            }
        }
        if let Some(f) = flags {
            if f.len() != p {
                return Err(FormatError::malformed(
                    "flags",
                    format!("{} values for {p} polygons", f.len()),
                ));
            }
        }

        let (ox, oz) = params.tile_origin(tile_x, tile_z);
        let ts = params.tile_size;
        let snap = params.cell_size / 1024.0;
        let to_local_xz = |w: f64, o: f64| -> f32 {
            let l = w - o;
            if (l - 0.0).abs() <= snap {
                0.0
            } else if (l - ts).abs() <= snap {
                ts as f32
            } else {
                l as f32
            }
        };
        let mut vertices = Vec::with_capacity(world_vertices.len());
        for (i, w) in world_vertices.iter().enumerate() {
            NavMeshParams::check_point(&format!("world_vertices[{i}]"), *w)?;
            vertices.push([
                to_local_xz(w[0], ox),
                (w[1] - origin_y) as f32,
                to_local_xz(w[2], oz),
            ]);
        }

        // Orient every polygon counter-clockwise. Indices fit u16 (≤ 65 535 vertices).
        let mut corners: Vec<u16> = Vec::with_capacity(corner_count);
        let mut start = 0usize;
        for &s in poly_sizes {
            let poly = &indices[start..start + usize::from(s)];
            start += usize::from(s);
            let pts: Vec<[f32; 2]> = poly.iter().map(|&i| xz(vertices[i as usize])).collect();
            // For a convex polygon every fan triangle has the polygon's orientation or
            // none; the first decided one gives it.
            let clockwise = (1..pts.len() - 1)
                .map(|k| orient2d_exact(pts[0], pts[k], pts[k + 1]))
                .find(|o| *o != Ordering::Equal)
                == Some(Ordering::Less);
            if clockwise {
                corners.push(poly[0] as u16);
                corners.extend(poly[1..].iter().rev().map(|&i| i as u16));
            } else {
                corners.extend(poly.iter().map(|&i| i as u16));
            }
        }

        // Every polygon edge by its unordered vertex pair, in (polygon, edge) order.
        let mut first = Vec::with_capacity(p);
        let mut acc = 0usize;
        for &s in poly_sizes {
            first.push(acc);
            acc += usize::from(s);
        }
        let edge = |poly: usize, k: usize| -> (u16, u16) {
            let n = usize::from(poly_sizes[poly]);
            (corners[first[poly] + k], corners[first[poly] + (k + 1) % n])
        };
        let mut by_pair: BTreeMap<(u16, u16), Vec<(usize, usize)>> = BTreeMap::new();
        for (poly, &s) in poly_sizes.iter().enumerate() {
            for k in 0..usize::from(s) {
                let (a, b) = edge(poly, k);
                by_pair
                    .entry((a.min(b), a.max(b)))
                    .or_default()
                    .push((poly, k));
            }
        }
        let tsf = ts as f32;
        let mut edge_neighbours = vec![0u32; corner_count];
        let mut edge_portal_sides = vec![NO_PORTAL; corner_count];
        for (poly, &s) in poly_sizes.iter().enumerate() {
            for k in 0..usize::from(s) {
                let (a, b) = edge(poly, k);
                let users = &by_pair[&(a.min(b), a.max(b))];
                let c = first[poly] + k;
                if users.len() == 2 {
                    let (q, j) = if users[0] == (poly, k) {
                        users[1]
                    } else {
                        users[0]
                    };
                    if q != poly && edge(q, j) == (b, a) {
                        edge_neighbours[c] = q as u32 + 1;
                        continue;
                    }
                }
                let (va, vb) = (vertices[usize::from(a)], vertices[usize::from(b)]);
                let on = |axis: usize, coord: f32| {
                    va[axis].to_bits() == coord.to_bits()
                        && vb[axis].to_bits() == coord.to_bits()
                        && va[2 - axis] != vb[2 - axis]
                };
                edge_portal_sides[c] = if on(0, tsf) {
                    0
                } else if on(2, tsf) {
                    1
                } else if on(0, 0.0) {
                    2
                } else if on(2, 0.0) {
                    3
                } else {
                    NO_PORTAL
                };
            }
        }

        Ok(NavTileData {
            tile_x,
            tile_z,
            layer,
            origin_y,
            vertices,
            poly_sizes: poly_sizes.to_vec(),
            poly_areas: areas.map_or_else(|| vec![DEFAULT_AREA; p], <[u8]>::to_vec),
            poly_flags: flags.map_or_else(|| vec![DEFAULT_FLAGS; p], <[u16]>::to_vec),
            corners,
            edge_neighbours,
            edge_portal_sides,
            ..NavTileData::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NavTile;

    fn params() -> NavMeshParams {
        NavMeshParams::new([100.0, 5.0, -50.0], 8.0, 0.25, 6)
    }

    /// Tile (1, 2) spans world x 108..116, z -34..-26.
    fn world_square_pair() -> Vec<[f64; 3]> {
        vec![
            [108.0, 7.0, -34.0],
            [112.0, 7.0, -34.0],
            [116.0, 7.0, -34.0],
            [116.0, 7.0, -26.0],
            [112.0, 7.0, -26.0],
            [108.0, 7.0, -26.0],
        ]
    }

    #[test]
    fn from_polygons_derives_adjacency_portals_and_defaults() {
        let d = NavTileAssembler::from_polygons(
            &params(),
            1,
            2,
            3,
            6.0,
            &world_square_pair(),
            &[4, 4],
            &[0, 1, 4, 5, 1, 2, 3, 4],
            None,
            None,
        )
        .unwrap();
        assert_eq!(d.vertices[3], [8.0, 1.0, 8.0]);
        assert_eq!(d.corners, vec![0, 1, 4, 5, 1, 2, 3, 4]);
        assert_eq!(d.edge_neighbours, vec![0, 2, 0, 0, 0, 0, 0, 1]);
        assert_eq!(
            d.edge_portal_sides,
            vec![3, NO_PORTAL, 1, 2, 3, 0, 1, NO_PORTAL]
        );
        assert_eq!(d.poly_areas, vec![DEFAULT_AREA; 2]);
        assert_eq!(d.poly_flags, vec![DEFAULT_FLAGS; 2]);
        assert_eq!((d.tile_x, d.tile_z, d.layer, d.origin_y), (1, 2, 3, 6.0));
        NavTile::create(&params(), d).unwrap();
    }

    #[test]
    fn clockwise_polygons_are_reversed_keeping_the_first_corner() {
        let d = NavTileAssembler::from_polygons(
            &params(),
            1,
            2,
            0,
            0.0,
            &world_square_pair(),
            &[4, 4],
            &[0, 5, 4, 1, 1, 2, 3, 4],
            Some(&[7, 8]),
            Some(&[3, 4]),
        )
        .unwrap();
        assert_eq!(&d.corners[..4], &[0, 1, 4, 5]);
        assert_eq!(d.edge_neighbours, vec![0, 2, 0, 0, 0, 0, 0, 1]);
        assert_eq!((d.poly_areas, d.poly_flags), (vec![7, 8], vec![3, 4]));
    }

    #[test]
    fn coordinates_within_a_1024th_cell_of_a_boundary_snap_onto_it() {
        let mut w = world_square_pair();
        let eps = 0.25 / 1024.0;
        w[2][0] = 116.0 - eps; // snaps to x = TileSize
        w[3][0] = 116.0 + eps * 0.5; // snaps to x = TileSize
        w[0][2] = -34.0 - eps; // snaps to z = 0 (+0.0)
        w[4][0] = 112.0 + eps; // interior: no snapping
        let d = NavTileAssembler::from_polygons(
            &params(),
            1,
            2,
            0,
            0.0,
            &w,
            &[4, 4],
            &[0, 1, 4, 5, 1, 2, 3, 4],
            None,
            None,
        )
        .unwrap();
        assert_eq!(d.vertices[2][0].to_bits(), 8.0f32.to_bits());
        assert_eq!(d.vertices[3][0].to_bits(), 8.0f32.to_bits());
        assert_eq!(d.vertices[0][2].to_bits(), 0.0f32.to_bits());
        assert_eq!(d.vertices[4][0], (4.0 + eps) as f32);
        let outside = [116.0 + 2.0 * eps, 7.0, -30.0];
        let mut w2 = world_square_pair();
        w2[3] = outside;
        let d2 = NavTileAssembler::from_polygons(
            &params(),
            1,
            2,
            0,
            0.0,
            &w2,
            &[4, 4],
            &[0, 1, 4, 5, 1, 2, 3, 4],
            None,
            None,
        )
        .unwrap();
        // Vertex 3 is off the boundary, so edge 2 → 3 of polygon 1 is no portal.
        assert_eq!(d2.edge_portal_sides[5], NO_PORTAL);
    }

    #[test]
    fn an_edge_shared_by_three_polygons_stays_a_wall() {
        let w = vec![
            [110.0, 0.0, -30.0],
            [112.0, 0.0, -30.0],
            [111.0, 0.0, -32.0],
            [111.0, 0.0, -28.0],
            [111.0, 0.0, -27.0],
        ];
        let d = NavTileAssembler::from_polygons(
            &params(),
            1,
            2,
            0,
            0.0,
            &w,
            &[3, 3, 3],
            &[0, 2, 1, 0, 1, 3, 1, 0, 4],
            None,
            None,
        )
        .unwrap();
        // Polygon 2 (1, 0, 4) is clockwise and becomes (1, 4, 0); edge 0 → 1 has three users.
        assert_eq!(d.edge_neighbours, vec![0; 9]);
    }

    #[test]
    fn hand_over_checks_counts_indices_and_the_coordinate_rule() {
        let p = params();
        let w = world_square_pair();
        let call = |w: &[[f64; 3]], sizes: &[u8], idx: &[u32], areas: Option<&[u8]>| {
            NavTileAssembler::from_polygons(&p, 1, 2, 0, 0.0, w, sizes, idx, areas, None)
        };
        let at = |r: Result<NavTileData, FormatError>| match r {
            Err(FormatError::Malformed { at, .. }) => at,
            other => panic!("{other:?}"),
        };
        assert_eq!(at(call(&w, &[], &[], None)), "poly_sizes");
        assert_eq!(at(call(&w, &[7], &[0; 7], None)), "poly_sizes[0]");
        assert_eq!(at(call(&w, &[4], &[0, 1, 4], None)), "indices");
        assert_eq!(at(call(&w, &[3], &[0, 1, 6], None)), "indices[2]");
        assert_eq!(at(call(&w, &[3], &[0, 1, 4], Some(&[0, 0]))), "areas");
        let mut bad = w.clone();
        bad[1][2] = f64::NAN;
        assert_eq!(
            at(call(&bad, &[3], &[0, 1, 4], None)),
            "world_vertices[1].z"
        );
    }
}
