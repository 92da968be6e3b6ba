//! Off-mesh links: attaching each end of a link slot to a polygon
//! (`docs/navmesh-stitching.md` §3.2). The 3D builder bakes authored links by the same score
//! ([`best_poly_in_data`], on tile data before it is a tile).

use std::ops::Range;

use onepath_format::{NavTile, NavTileData, OffMeshLinkSlot, PolyRef};

use crate::links::OffMeshConnection;
use crate::tiles::TileSet;

/// How well a point fits a polygon: `distance² + dy²`, where `distance` is the horizontal
/// distance from the point to the polygon (0 inside or on the boundary; Euclidean to the
/// nearest edge point otherwise) and `dy` the vertical distance outside the polygon's vertex
/// height range. `None` when `distance > radius` or `dy > climb`.
///
/// `p` is in the tile's frame: X/Z tile-local (f64), Y world.
pub fn attach_score(
    tile: &NavTile,
    poly: usize,
    p: [f64; 3],
    radius: f64,
    climb: f64,
) -> Option<f64> {
    polygon_score(tile.data(), tile.poly_corners(poly), p, radius, climb)
}

/// [`attach_score`] for the polygon whose corners are `d.corners[corners]`, on tile data that
/// need not be a created tile yet (a builder baking authored links uses the stitching rule
/// before [`NavTile::create`]). Panics if a corner or vertex index is out of range, which a
/// created tile's data and a builder's output never have.
pub fn polygon_score(
    d: &NavTileData,
    corners: Range<usize>,
    p: [f64; 3],
    radius: f64,
    climb: f64,
) -> Option<f64> {
    let n = corners.len();
    let mut inside = true;
    let mut best_d2 = f64::INFINITY;
    let mut ymin = f64::INFINITY;
    let mut ymax = f64::NEG_INFINITY;
    for k in 0..n {
        let a = d.vertices[usize::from(d.corners[corners.start + k])];
        let b = d.vertices[usize::from(d.corners[corners.start + (k + 1) % n])];
        let (ax, az) = (f64::from(a[0]), f64::from(a[2]));
        let (bx, bz) = (f64::from(b[0]), f64::from(b[2]));
        let y = d.origin_y + f64::from(a[1]);
        ymin = ymin.min(y);
        ymax = ymax.max(y);
        let (ex, ez) = (bx - ax, bz - az);
        let (px, pz) = (p[0] - ax, p[2] - az);
        // Counter-clockwise polygon: the inside is left of (or on) every edge.
        if ex * pz - ez * px < 0.0 {
            inside = false;
        }
        let len2 = ex * ex + ez * ez;
        let t = if len2 > 0.0 {
            ((px * ex + pz * ez) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (qx, qz) = (px - ex * t, pz - ez * t);
        best_d2 = best_d2.min(qx * qx + qz * qz);
    }
    let d2 = if inside { 0.0 } else { best_d2 };
    if !(d2.sqrt() <= radius) {
        return None;
    }
    let dy = if p[1] < ymin {
        ymin - p[1]
    } else if p[1] > ymax {
        p[1] - ymax
    } else {
        0.0
    };
    if !(dy <= climb) {
        return None;
    }
    Some(d2 + dy * dy)
}

/// The polygon of `tile` with the smallest score for `p` (ties: lower polygon index), with
/// its score.
pub fn best_poly(tile: &NavTile, p: [f64; 3], radius: f64, climb: f64) -> Option<(u32, f64)> {
    lowest_score((0..tile.poly_count()).map(|poly| attach_score(tile, poly, p, radius, climb)))
}

/// [`best_poly`] on tile data that need not be a created tile yet (polygons in the order of
/// `poly_sizes`); the index rule of [`polygon_score`] applies.
pub fn best_poly_in_data(
    d: &NavTileData,
    p: [f64; 3],
    radius: f64,
    climb: f64,
) -> Option<(u32, f64)> {
    let mut first = 0usize;
    lowest_score(d.poly_sizes.iter().map(|&size| {
        let corners = first..first + usize::from(size);
        first = corners.end;
        polygon_score(d, corners, p, radius, climb)
    }))
}

/// The index and value of the smallest score; equal scores keep the lower index.
fn lowest_score(scores: impl Iterator<Item = Option<f64>>) -> Option<(u32, f64)> {
    let mut best: Option<(u32, f64)> = None;
    for (poly, score) in scores.enumerate() {
        if let Some(s) = score {
            // Strictly smaller only: equal scores keep the lower polygon index.
            if best.map_or(true, |(_, b)| s < b) {
                best = Some((poly as u32, s));
            }
        }
    }
    best
}

/// Attaches every off-mesh link slot of the tile in `slot`, in slot order.
///
/// The start attaches to a polygon of the owning tile. The end's column is the owning
/// column offset by `floor(end.x / TileSize)`, `floor(end.z / TileSize)`; in a tile of that
/// column the end's local X is `end.x − dx·TileSize` (likewise Z) and its world Y
/// `OriginY(owner) + end.y`. Among every layer of that column the smallest score wins; ties
/// go to the lower layer, then the lower polygon index.
pub fn attach_links(set: &TileSet<'_>, slot: u32) -> Vec<OffMeshConnection> {
    let Some(owner) = set.get(slot) else {
        return Vec::new();
    };
    let params = set.params();
    let climb = f64::from(params.walkable_climb);
    let d = owner.tile.data();
    let (tx, tz) = (d.tile_x, d.tile_z);
    let (ox, oz) = params.tile_origin(tx, tz);
    d.off_mesh_links
        .iter()
        .map(|l| attach_link(set, slot, owner.tile, l, climb))
        .map(|(start_poly, end_poly, link)| OffMeshConnection {
            start: [
                ox + f64::from(link.start[0]),
                d.origin_y + f64::from(link.start[1]),
                oz + f64::from(link.start[2]),
            ],
            end: [
                ox + f64::from(link.end[0]),
                d.origin_y + f64::from(link.end[1]),
                oz + f64::from(link.end[2]),
            ],
            start_poly,
            end_poly,
        })
        .collect()
}

fn attach_link<'l>(
    set: &TileSet<'_>,
    slot: u32,
    owner: &NavTile,
    link: &'l OffMeshLinkSlot,
    climb: f64,
) -> (Option<PolyRef>, Option<PolyRef>, &'l OffMeshLinkSlot) {
    let d = owner.data();
    let radius = f64::from(link.radius);
    let start = [
        f64::from(link.start[0]),
        d.origin_y + f64::from(link.start[1]),
        f64::from(link.start[2]),
    ];
    let start_poly =
        best_poly(owner, start, radius, climb).and_then(|(p, _)| set.poly_ref(slot, p));

    let ts = set.params().tile_size;
    let ex = f64::from(link.end[0]);
    let ez = f64::from(link.end[2]);
    let dx = (ex / ts).floor();
    let dz = (ez / ts).floor();
    let end_y = d.origin_y + f64::from(link.end[1]);
    let column = (
        i64::from(d.tile_x) + dx as i64,
        i64::from(d.tile_z) + dz as i64,
    );
    let mut end_poly = None;
    if let (Ok(cx), Ok(cz)) = (i32::try_from(column.0), i32::try_from(column.1)) {
        let local = [ex - dx * ts, end_y, ez - dz * ts];
        let mut best: Option<f64> = None;
        // Layers ascend, so a strictly smaller score is needed to move to a higher layer.
        for &(_, s) in set.column(cx, cz) {
            let Some(t) = set.get(s) else { continue };
            if let Some((p, score)) = best_poly(t.tile, local, radius, climb) {
                if best.map_or(true, |b| score < b) {
                    best = Some(score);
                    end_poly = set.poly_ref(s, p);
                }
            }
        }
    }
    (start_poly, end_poly, link)
}
