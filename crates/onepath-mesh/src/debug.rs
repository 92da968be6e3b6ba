//! Debug geometry ("Debug geometry"): plain data describing every polygon and every stitched
//! link of a mesh in world space, for drawing and for golden dumps.

use onepath_format::PolyRef;
use onepath_stitch::{boundary_axis, edge_at, portal_overlap, LinkKind};

use crate::mesh::{MeshTile, TiledNavMesh};

/// One polygon: its reference, world-space outline (counter-clockwise seen from above, X
/// right and Z up), current area and flags.
#[derive(Debug, Clone, PartialEq)]
pub struct DebugPolygon {
    /// The polygon.
    pub poly: PolyRef,
    /// World-space corners: tile origin + local vertex, in f64.
    pub outline: Vec<[f64; 3]>,
    /// Current area.
    pub area: u8,
    /// Current flags.
    pub flags: u16,
}

/// One stitched link as a world-space segment: for a portal the covered part of the shared
/// edge (along the departing polygon's edge, from the lower to the upper boundary
/// coordinate); for an off-mesh link from departure to arrival (start to end for `OffMesh`,
/// end to start for `OffMeshReverse`).
#[derive(Debug, Clone, PartialEq)]
pub struct DebugLink {
    /// The polygon the link leaves.
    pub from: PolyRef,
    /// The polygon the link leads to.
    pub to: PolyRef,
    /// The link's kind.
    pub kind: LinkKind,
    /// Segment start.
    pub a: [f64; 3],
    /// Segment end.
    pub b: [f64; 3],
}

/// Every polygon and link of a mesh, in slot / polygon / link order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NavMeshDebug {
    /// Polygons in slot, then polygon order.
    pub polygons: Vec<DebugPolygon>,
    /// Links in slot, then polygon, then link order.
    pub links: Vec<DebugLink>,
}

impl NavMeshDebug {
    /// Collects the debug geometry of `mesh`.
    pub fn collect(mesh: &TiledNavMesh) -> NavMeshDebug {
        let mut out = NavMeshDebug::default();
        for t in mesh.tiles() {
            let tile = t.tile();
            let d = tile.data();
            let o = t.origin();
            for p in 0..tile.poly_count() {
                let Some(from) = t.poly_ref(p as u32) else {
                    continue;
                };
                let outline = tile
                    .poly_corners(p)
                    .map(|c| {
                        let v = d.vertices[usize::from(d.corners[c])];
                        world(o, [f64::from(v[0]), f64::from(v[1]), f64::from(v[2])])
                    })
                    .collect();
                out.polygons.push(DebugPolygon {
                    poly: from,
                    outline,
                    area: tile.areas()[p],
                    flags: tile.flags()[p],
                });
                for l in t.poly_links(p) {
                    if let Some((a, b)) = segment(mesh, t, p, l.kind, l.target) {
                        out.links.push(DebugLink {
                            from,
                            to: l.target,
                            kind: l.kind,
                            a,
                            b,
                        });
                    }
                }
            }
        }
        out
    }
}

/// World point of a tile-local point: tile origin (X, OriginY, Z) + local, in f64.
fn world(o: [f64; 3], local: [f64; 3]) -> [f64; 3] {
    [o[0] + local[0], o[1] + local[1], o[2] + local[2]]
}

fn segment(
    mesh: &TiledNavMesh,
    t: &MeshTile,
    p: usize,
    kind: LinkKind,
    target: PolyRef,
) -> Option<([f64; 3], [f64; 3])> {
    match kind {
        LinkKind::Portal {
            side,
            edge,
            neighbour_edge,
            ..
        } => {
            let axis = boundary_axis(side);
            let a = edge_at(t.tile(), p, usize::from(edge), axis)?;
            let (nt, np) = mesh.poly(target).ok()?;
            let b = edge_at(nt.tile(), np, usize::from(neighbour_edge), axis)?;
            let ov = portal_overlap(&a, &b, f64::INFINITY)?;
            let d = t.tile().data();
            let c = t.tile().poly_corners(p).start + usize::from(edge);
            let v = d.vertices[usize::from(d.corners[c])];
            let o = t.origin();
            // Heights are world already; X/Z are tile-local.
            let at = |u: f64| {
                let h = a.height_at(u);
                if axis == 2 {
                    [o[0] + f64::from(v[0]), h, o[2] + u]
                } else {
                    [o[0] + u, h, o[2] + f64::from(v[2])]
                }
            };
            Some((at(ov.lo), at(ov.hi)))
        }
        LinkKind::OffMesh { link } => {
            let c = t.off_mesh_connections().get(link as usize)?;
            Some((c.start, c.end))
        }
        LinkKind::OffMeshReverse { owner_slot, link } => {
            let owner = mesh.tile_at_slot(owner_slot)?;
            let c = owner.off_mesh_connections().get(link as usize)?;
            Some((c.end, c.start))
        }
    }
}
