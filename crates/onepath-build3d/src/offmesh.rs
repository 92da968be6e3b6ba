//! Baking authored off-mesh links into the tiles that hold their starts ("Authoring" in
//! navmesh-format.txt).

use onepath_format::{
    CoordinateError, NavMeshParams, NavTileData, OffMeshLinkDefinition, OffMeshLinkSlot,
};

use crate::error::BuildError;

/// The attachment score of world point `p` to the nearest polygon of a tile by the stitching
/// rule: horizontal distance to the polygon (0 inside) within `radius`, height outside the
/// polygon's vertex range within `climb`; score `d² + dy²`; `None` when no polygon is in
/// reach.
pub fn attach_score(
    params: &NavMeshParams,
    d: &NavTileData,
    p: [f64; 3],
    radius: f64,
) -> Option<f64> {
    let (ox, oz) = params.tile_origin(d.tile_x, d.tile_z);
    let climb = f64::from(params.walkable_climb);
    let mut best: Option<f64> = None;
    let mut first = 0usize;
    for &size in &d.poly_sizes {
        let n = usize::from(size);
        let corners = &d.corners[first..first + n];
        first += n;
        let pts: Vec<[f64; 3]> = corners
            .iter()
            .map(|&c| {
                let v = d.vertices[usize::from(c)];
                [
                    ox + f64::from(v[0]),
                    d.origin_y + f64::from(v[1]),
                    oz + f64::from(v[2]),
                ]
            })
            .collect();
        // Horizontal distance: 0 inside (counter-clockwise polygon), else to the nearest edge.
        let mut inside = true;
        let mut dmin = f64::INFINITY;
        for i in 0..n {
            let a = pts[i];
            let b = pts[(i + 1) % n];
            let cross = (b[0] - a[0]) * (p[2] - a[2]) - (b[2] - a[2]) * (p[0] - a[0]);
            if cross < 0.0 {
                inside = false;
            }
            let (ex, ez) = (b[0] - a[0], b[2] - a[2]);
            let len2 = ex * ex + ez * ez;
            let mut t = if len2 > 0.0 {
                ((p[0] - a[0]) * ex + (p[2] - a[2]) * ez) / len2
            } else {
                0.0
            };
            t = t.clamp(0.0, 1.0);
            let qx = a[0] + ex * t - p[0];
            let qz = a[2] + ez * t - p[2];
            dmin = dmin.min((qx * qx + qz * qz).sqrt());
        }
        let dh = if inside { 0.0 } else { dmin };
        if dh > radius {
            continue;
        }
        let ymin = pts.iter().map(|q| q[1]).fold(f64::INFINITY, f64::min);
        let ymax = pts.iter().map(|q| q[1]).fold(f64::NEG_INFINITY, f64::max);
        let dy = if p[1] < ymin {
            ymin - p[1]
        } else if p[1] > ymax {
            p[1] - ymax
        } else {
            0.0
        };
        if dy > climb {
            continue;
        }
        let score = dh * dh + dy * dy;
        if best.map_or(true, |b| score < b) {
            best = Some(score);
        }
    }
    best
}

/// Appends each authored link, in definition order, to the tile holding its start: the
/// start's column (no tile there: dropped), the layer whose polygon is nearest the start
/// (ties and no polygon in reach: the lowest layer), slot values `(float)(world − origin)`.
/// An end farther than MaxLocalExtent from the start tile's origin in X or Z is an error
/// naming `OffMeshLinks[i]`; a start or end farther than MaxLocalExtent above or below the
/// tile's OriginY drops the link. `tiles` must be in tile order.
pub fn bake_off_mesh_links(
    params: &NavMeshParams,
    links: &[OffMeshLinkDefinition],
    tiles: &mut [NavTileData],
) -> Result<(), BuildError> {
    let mle = params.max_local_extent();
    for (i, l) in links.iter().enumerate() {
        l.validate(i)?;
        let (tx, tz) = params.world_to_tile(l.start[0], l.start[2]);
        let (ox, oz) = params.tile_origin(tx, tz);
        for (k, (v, o)) in [(l.end[0], ox), (l.end[2], oz)].into_iter().enumerate() {
            if (v - o).abs() > mle {
                return Err(BuildError::Coordinate(CoordinateError {
                    what: format!("OffMeshLinks[{i}].end.{}", ["x", "z"][k]),
                    value: v,
                    bound: mle,
                }));
            }
        }
        // The column's layers, lowest layer first.
        let mut column: Vec<usize> = (0..tiles.len())
            .filter(|&t| tiles[t].tile_x == tx && tiles[t].tile_z == tz)
            .collect();
        if column.is_empty() {
            continue;
        }
        column.sort_by_key(|&t| tiles[t].layer);
        let mut best = column[0];
        let mut best_score: Option<f64> = None;
        for &t in &column {
            if let Some(s) = attach_score(params, &tiles[t], l.start, l.radius) {
                if best_score.map_or(true, |b| s < b) {
                    best_score = Some(s);
                    best = t;
                }
            }
        }
        let d = &mut tiles[best];
        let oy = d.origin_y;
        if (l.start[1] - oy).abs() > mle || (l.end[1] - oy).abs() > mle {
            continue;
        }
        d.off_mesh_links.push(OffMeshLinkSlot {
            start: [
                (l.start[0] - ox) as f32,
                (l.start[1] - oy) as f32,
                (l.start[2] - oz) as f32,
            ],
            end: [
                (l.end[0] - ox) as f32,
                (l.end[1] - oy) as f32,
                (l.end[2] - oz) as f32,
            ],
            radius: l.radius as f32,
            area: l.area,
            bidirectional: l.bidirectional,
            flags: l.flags,
            user_id: l.user_id,
        });
    }
    Ok(())
}
