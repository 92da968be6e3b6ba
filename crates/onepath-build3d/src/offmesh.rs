//! Baking authored off-mesh links into the tiles that hold their starts
//! (`docs/build3d-polys.md` §5).

use onepath_format::{
    CoordinateError, NavMeshParams, NavTileData, OffMeshLinkDefinition, OffMeshLinkSlot,
};
use onepath_stitch::best_poly_in_data;

use crate::error::BuildError;

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
    let climb = f64::from(params.walkable_climb);
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
        // The stitching rule (stitch's own code), in its frame: X/Z tile-local, Y world.
        let local = [l.start[0] - ox, l.start[1], l.start[2] - oz];
        let mut best = column[0];
        let mut best_score: Option<f64> = None;
        for &t in &column {
            if let Some((_, s)) = best_poly_in_data(&tiles[t], local, l.radius, climb) {
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
