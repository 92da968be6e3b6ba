//! Off-mesh links: attaching each end of a link slot to a polygon
//! (`docs/navmesh-stitching.md` §3.2). The 3D builder bakes authored links by the same score
//! ([`best_poly_in_data`], on tile data before it is a tile).

use std::cell::OnceCell;
use std::ops::Range;

use onepath_format::{NavMeshParams, NavTile, NavTileData, OffMeshLinkSlot, PolyRef};

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
    let indexes = PolyIndexes::new(set);
    let count = set
        .get(slot)
        .map_or(0, |o| o.tile.data().off_mesh_links.len());
    (0..count)
        .filter_map(|i| attach_one(set, &indexes, slot, i, &mut 0))
        .collect()
}

/// The tile column an off-mesh link slot of the tile `d` ends in: the owning column offset
/// by `floor(end.x / TileSize)`, `floor(end.z / TileSize)`; `None` outside the i32 range
/// (such an end attaches nowhere). A function of the owning tile alone.
pub fn link_end_column(
    params: &NavMeshParams,
    d: &NavTileData,
    link: &OffMeshLinkSlot,
) -> Option<(i32, i32)> {
    let (_, column) = end_offset(params, d, link);
    let (Ok(cx), Ok(cz)) = (i32::try_from(column.0), i32::try_from(column.1)) else {
        return None;
    };
    Some((cx, cz))
}

/// `floor(end / TileSize)` along X and Z, and the end column as i64.
fn end_offset(
    params: &NavMeshParams,
    d: &NavTileData,
    link: &OffMeshLinkSlot,
) -> ((f64, f64), (i64, i64)) {
    let ts = params.tile_size;
    let dx = (f64::from(link.end[0]) / ts).floor();
    let dz = (f64::from(link.end[2]) / ts).floor();
    let column = (
        i64::from(d.tile_x) + dx as i64,
        i64::from(d.tile_z) + dz as i64,
    );
    ((dx, dz), column)
}

/// Attaches off-mesh link slot `link` of the tile in `slot` through the polygon indexes
/// of a stitching pass; adds the number of polygons scored to `scored`. `None` when the
/// slot is free or has no such link.
pub(crate) fn attach_one(
    set: &TileSet<'_>,
    indexes: &PolyIndexes,
    slot: u32,
    link: usize,
    scored: &mut u64,
) -> Option<OffMeshConnection> {
    let owner = set.get(slot)?;
    let params = set.params();
    let d = owner.tile.data();
    let l = d.off_mesh_links.get(link)?;
    let (ox, oz) = params.tile_origin(d.tile_x, d.tile_z);
    let climb = f64::from(params.walkable_climb);
    let (start_poly, end_poly) = attach_link(set, indexes, slot, owner.tile, l, climb, scored);
    Some(OffMeshConnection {
        start: [
            ox + f64::from(l.start[0]),
            d.origin_y + f64::from(l.start[1]),
            oz + f64::from(l.start[2]),
        ],
        end: [
            ox + f64::from(l.end[0]),
            d.origin_y + f64::from(l.end[1]),
            oz + f64::from(l.end[2]),
        ],
        start_poly,
        end_poly,
    })
}

fn attach_link(
    set: &TileSet<'_>,
    indexes: &PolyIndexes,
    slot: u32,
    owner: &NavTile,
    link: &OffMeshLinkSlot,
    climb: f64,
    scored: &mut u64,
) -> (Option<PolyRef>, Option<PolyRef>) {
    let d = owner.data();
    let radius = f64::from(link.radius);
    let start = [
        f64::from(link.start[0]),
        d.origin_y + f64::from(link.start[1]),
        f64::from(link.start[2]),
    ];
    let start_poly = indexes
        .get(slot, owner)
        .best_poly(owner, start, radius, climb, scored)
        .and_then(|(p, _)| set.poly_ref(slot, p));

    let ts = set.params().tile_size;
    let ((dx, dz), _) = end_offset(set.params(), d, link);
    let end_y = d.origin_y + f64::from(link.end[1]);
    let mut end_poly = None;
    if let Some((cx, cz)) = link_end_column(set.params(), d, link) {
        let local = [
            f64::from(link.end[0]) - dx * ts,
            end_y,
            f64::from(link.end[2]) - dz * ts,
        ];
        let mut best: Option<f64> = None;
        // Layers ascend, so a strictly smaller score is needed to move to a higher layer.
        for &(_, s) in set.column(cx, cz) {
            let Some(t) = set.get(s) else { continue };
            let index = indexes.get(s, t.tile);
            if let Some((p, score)) = index.best_poly(t.tile, local, radius, climb, scored) {
                if best.map_or(true, |b| score < b) {
                    best = Some(score);
                    end_poly = set.poly_ref(s, p);
                }
            }
        }
    }
    (start_poly, end_poly)
}

/// The polygon indexes of a stitching pass, one per slot, each built the first time an
/// attachment asks for it (only tiles an off-mesh link reaches pay for one).
pub(crate) struct PolyIndexes {
    slots: Vec<OnceCell<PolyIndex>>,
}

impl PolyIndexes {
    /// No index built yet, room for every slot of `set` (none when no tile has an
    /// off-mesh link, so nothing can ask for one).
    pub(crate) fn new(set: &TileSet<'_>) -> PolyIndexes {
        let len = if set.has_off_mesh_links() {
            set.slot_len()
        } else {
            0
        };
        PolyIndexes {
            slots: (0..len).map(|_| OnceCell::new()).collect(),
        }
    }

    fn get(&self, slot: u32, tile: &NavTile) -> &PolyIndex {
        self.slots[slot as usize].get_or_init(|| PolyIndex::new(tile))
    }
}

/// One node of a flattened bounding-volume tree over a tile's polygons, in depth-first
/// order: a leaf holds a polygon; an inner node holds the index just past its subtree, so
/// a query skips a subtree whose box misses in one step.
#[derive(Debug, Clone, Copy)]
struct BoundsNode {
    /// Tile-local X, world Y, tile-local Z: exactly the values [`polygon_score`] reads.
    min: [f64; 3],
    max: [f64; 3],
    /// Leaf: the polygon index. Inner: `u32::MAX`.
    poly: u32,
    /// Inner: index of the first node after the subtree.
    escape: u32,
}

/// The bounds of every polygon of a tile (X/Z of its corners, world Y of its vertex
/// heights) in a bounding-volume tree, so that attaching a point scores only the polygons
/// whose bounds lie within reach: `radius` horizontally, `climb` vertically.
struct PolyIndex {
    nodes: Vec<BoundsNode>,
    /// The largest coordinate magnitude of any bound: scales the rounding margin.
    extent: f64,
}

impl PolyIndex {
    fn new(tile: &NavTile) -> PolyIndex {
        let d = tile.data();
        let mut items: Vec<BoundsNode> = (0..tile.poly_count())
            .map(|p| {
                let mut min = [f64::INFINITY; 3];
                let mut max = [f64::NEG_INFINITY; 3];
                for c in tile.poly_corners(p) {
                    let v = d.vertices[usize::from(d.corners[c])];
                    let v = [
                        f64::from(v[0]),
                        d.origin_y + f64::from(v[1]),
                        f64::from(v[2]),
                    ];
                    for a in 0..3 {
                        min[a] = min[a].min(v[a]);
                        max[a] = max[a].max(v[a]);
                    }
                }
                BoundsNode {
                    min,
                    max,
                    poly: p as u32,
                    escape: 0,
                }
            })
            .collect();
        let extent = items
            .iter()
            .flat_map(|n| n.min.iter().chain(&n.max))
            .fold(0.0f64, |m, v| m.max(v.abs()));
        let mut nodes = Vec::with_capacity(2 * items.len());
        subdivide(&mut items, &mut nodes);
        PolyIndex { nodes, extent }
    }

    /// [`lowest_score`] over the polygons whose bounds can be within reach of `p`, with
    /// the same result as scoring every polygon (the smallest score, ties to the lower
    /// polygon index). Adds the number of polygons scored to `scored`.
    fn best_poly(
        &self,
        tile: &NavTile,
        p: [f64; 3],
        radius: f64,
        climb: f64,
        scored: &mut u64,
    ) -> Option<(u32, f64)> {
        // The score is computed in f64 from the same coordinates, so a polygon it accepts
        // lies within reach up to a few rounding errors of these magnitudes; the margin is
        // many orders of magnitude wider, and only makes the search score a few more.
        let margin = 1e-9 * (self.extent + p[0].abs() + p[1].abs() + p[2].abs() + radius + climb);
        let reach = [radius + margin, climb + margin, radius + margin];
        let within = |n: &BoundsNode| {
            (0..3).all(|a| p[a] >= n.min[a] - reach[a] && p[a] <= n.max[a] + reach[a])
        };
        let mut best: Option<(u32, f64)> = None;
        let mut i = 0;
        while let Some(n) = self.nodes.get(i) {
            let hit = within(n);
            if n.poly != u32::MAX {
                if hit {
                    *scored += 1;
                    let s = attach_score(tile, n.poly as usize, p, radius, climb);
                    if let Some(s) = s {
                        // Scores are never NaN, so this is the scan's rule in any order.
                        if best.map_or(true, |(bp, b)| s < b || (s == b && n.poly < bp)) {
                            best = Some((n.poly, s));
                        }
                    }
                }
                i += 1;
            } else if hit {
                i += 1;
            } else {
                i = n.escape as usize;
            }
        }
        best
    }
}

/// Appends the subtree of `items` to `nodes`: median split along the longer horizontal
/// axis of their bounds, equal centres ordered by polygon index.
fn subdivide(items: &mut [BoundsNode], nodes: &mut Vec<BoundsNode>) {
    match items {
        // A created tile has at least one polygon; an empty input adds nothing.
        [] => return,
        [one] => {
            nodes.push(*one);
            return;
        }
        _ => {}
    }
    let mut min = [f64::INFINITY; 3];
    let mut max = [f64::NEG_INFINITY; 3];
    for n in items.iter() {
        for a in 0..3 {
            min[a] = min[a].min(n.min[a]);
            max[a] = max[a].max(n.max[a]);
        }
    }
    let at = nodes.len();
    nodes.push(BoundsNode {
        min,
        max,
        poly: u32::MAX,
        escape: 0,
    });
    let axis = if max[0] - min[0] >= max[2] - min[2] {
        0
    } else {
        2
    };
    items.sort_unstable_by(|x, y| {
        (x.min[axis] + x.max[axis])
            .total_cmp(&(y.min[axis] + y.max[axis]))
            .then(x.poly.cmp(&y.poly))
    });
    let (left, right) = items.split_at_mut(items.len() / 2);
    subdivide(left, nodes);
    subdivide(right, nodes);
    nodes[at].escape = nodes.len() as u32;
}
