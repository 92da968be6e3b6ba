//! A large generated mesh for benches and cross-checks, and a plain-data view of any mesh
//! (world vertices, polygon index lists, neighbour links) so another implementation can be
//! fed the same polygons.

use std::collections::BTreeMap;

use onepath_format::{NavMeshParams, NavTile, PolyRef};

use crate::fixtures::flat_grid_data;
use crate::mesh::TiledNavMesh;
use crate::query::geom::Vec3;
use crate::query::poly::{poly_verts, PolyVerts};
use crate::LinkKind;

/// Area given to "swamp" cells of [`generated_grid_mesh`].
pub const GENERATED_SWAMP_AREA: u8 = 1;

/// A generated mesh and how it was made.
#[derive(Debug, Clone)]
pub struct GeneratedMesh {
    /// The mesh: `tiles_x × tiles_z` tiles in slots row by row (Z outer, X inner).
    pub mesh: TiledNavMesh,
    /// Tile columns.
    pub tiles_x: u16,
    /// Tile rows.
    pub tiles_z: u16,
    /// Cells per tile side (each cell one square polygon).
    pub cells: u16,
}

/// SplitMix64: a tiny deterministic generator (the same numbers everywhere).
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A flat mesh of `tiles_x × tiles_z` tiles of 16 units (cell size 0.25, polygons up to 6
/// corners), each covered by `cells × cells` square polygons (`cells` a power of two, at
/// most 64). From `seed`, about one cell in eight is blocked (flags 0, which no filter
/// admits) and about one in six is swamp (area [`GENERATED_SWAMP_AREA`]); the rest is area 0,
/// flags 1. `generated_grid_mesh(32, 32, 4, seed)` has 1 024 tiles and 16 384 polygons.
///
/// # Panics
/// When [`try_generated_grid_mesh`] fails: `cells` above 254 (a tile would exceed 65 535
/// vertices) or more tiles than the mesh has slots. Use that function for other inputs.
pub fn generated_grid_mesh(tiles_x: u16, tiles_z: u16, cells: u16, seed: u64) -> GeneratedMesh {
    match try_generated_grid_mesh(tiles_x, tiles_z, cells, seed) {
        Ok(g) => g,
        Err(e) => panic!("generated_grid_mesh({tiles_x}, {tiles_z}, {cells}, {seed}): {e}"),
    }
}

/// [`generated_grid_mesh`], returning the tile or mesh error instead of panicking.
pub fn try_generated_grid_mesh(
    tiles_x: u16,
    tiles_z: u16,
    cells: u16,
    seed: u64,
) -> Result<GeneratedMesh, crate::MeshError> {
    let params = NavMeshParams::new([0.0, 0.0, 0.0], 16.0, 0.25, 6);
    let mut mesh = TiledNavMesh::new(params)?;
    let mut rng = seed;
    for z in 0..i32::from(tiles_z) {
        for x in 0..i32::from(tiles_x) {
            let mut d = flat_grid_data(&params, x, z, 0, 0.0, cells);
            for p in 0..d.poly_flags.len() {
                let r = splitmix(&mut rng) % 48;
                if r < 6 {
                    d.poly_flags[p] = 0;
                } else if r < 14 {
                    d.poly_areas[p] = GENERATED_SWAMP_AREA;
                }
            }
            mesh.add_tile(NavTile::create(&params, d)?)?;
        }
    }
    Ok(GeneratedMesh {
        mesh,
        tiles_x,
        tiles_z,
        cells,
    })
}

/// One polygon as plain data.
#[derive(Debug, Clone, PartialEq)]
pub struct PlainPolygon {
    /// The polygon's reference in the mesh.
    pub poly: PolyRef,
    /// Indices into [`PlainPolygons::vertices`], counter-clockwise (X right, Z up).
    pub vertices: Vec<u32>,
    /// Per edge (edge k from vertex k to k + 1): the polygons across it (in-tile neighbour
    /// or portal links, in link order); empty for a wall.
    pub neighbours: Vec<Vec<PolyRef>>,
    /// Off-mesh links leaving the polygon: (target, departure, arrival).
    pub off_mesh: Vec<(PolyRef, Vec3, Vec3)>,
    /// Current area.
    pub area: u8,
    /// Current flags.
    pub flags: u16,
}

/// Every polygon of a mesh as plain world-space data, in slot / polygon order, with
/// vertices shared by exact position.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlainPolygons {
    /// World-space vertices, in first-use order.
    pub vertices: Vec<Vec3>,
    /// The polygons.
    pub polygons: Vec<PlainPolygon>,
}

impl PlainPolygons {
    /// The plain data of `mesh`.
    pub fn from_mesh(mesh: &TiledNavMesh) -> PlainPolygons {
        let mut out = PlainPolygons::default();
        let mut index: BTreeMap<[u64; 3], u32> = BTreeMap::new();
        let mut verts = PolyVerts::new();
        for t in mesh.tiles() {
            let d = t.tile().data();
            for p in 0..t.tile().poly_count() {
                let Some(poly) = t.poly_ref(p as u32) else {
                    continue;
                };
                poly_verts(t, p, &mut verts);
                let vertices = verts
                    .iter()
                    .map(|v| {
                        *index.entry(v.map(f64::to_bits)).or_insert_with(|| {
                            out.vertices.push(*v);
                            (out.vertices.len() - 1) as u32
                        })
                    })
                    .collect();
                let corners = t.tile().poly_corners(p);
                let mut neighbours = vec![Vec::new(); corners.len()];
                for (k, c) in corners.clone().enumerate() {
                    let nb = d.edge_neighbours[c];
                    if nb != 0 {
                        if let Some(r) = t.poly_ref(nb - 1) {
                            neighbours[k].push(r);
                        }
                    }
                }
                let mut off_mesh = Vec::new();
                for l in t.poly_links(p) {
                    match l.kind {
                        LinkKind::Portal { edge, .. } => {
                            if let Some(e) = neighbours.get_mut(usize::from(edge)) {
                                e.push(l.target);
                            }
                        }
                        LinkKind::OffMesh { link } => {
                            if let Some(c) = t.off_mesh_connections().get(link as usize) {
                                off_mesh.push((l.target, c.start, c.end));
                            }
                        }
                        LinkKind::OffMeshReverse { owner_slot, link } => {
                            if let Some(c) = mesh
                                .tile_at_slot(owner_slot)
                                .and_then(|o| o.off_mesh_connections().get(link as usize))
                            {
                                off_mesh.push((l.target, c.end, c.start));
                            }
                        }
                    }
                }
                out.polygons.push(PlainPolygon {
                    poly,
                    vertices,
                    neighbours,
                    off_mesh,
                    area: t.tile().areas()[p],
                    flags: t.tile().flags()[p],
                });
            }
        }
        out
    }
}
