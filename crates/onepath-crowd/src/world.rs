//! [`WorldContext`]: what a crowd binds to at each update (the mesh, the platforms the
//! host moves, the grids and voxel grids guides plan on, the heightmap layers agents ground
//! their feet on). The context is host binding, never agent state: agents refer to its
//! parts by stable ids (layers by name) only; a layer's samples are never saved with
//! agents.

use onepath_gridstate::{Grid, VoxelGrid};
use onepath_mesh::query::Vec3;
use onepath_mesh::TiledNavMesh;

use crate::error::CrowdError;
use crate::heightmap::Heightmap;

/// The world an update runs in: the mesh, the host's moving platforms (id, position)
/// ascending by id, its grids and voxel grids by id, its heightmap layers by name.
#[derive(Debug, Clone, Copy)]
pub struct WorldContext<'a> {
    /// The mesh agents walk.
    pub mesh: &'a TiledNavMesh,
    /// Platforms (id, position this step), ascending by id, ids unique.
    pub platforms: &'a [(u32, Vec3)],
    /// Grids that grid-guided agents plan on (id, grid), ascending by id, ids unique; a
    /// grid's world placement (`GridSpace`) maps its X/Y to the mesh's X/Z.
    pub grids: &'a [(u32, &'a Grid)],
    /// Voxel grids that flyers plan on (id, grid), ascending by id, ids unique; voxel
    /// (x, y, z) spans `origin + [x, x + 1) × cell` on the world's X, Y and Z (a cell size
    /// of 0, unassigned, counts as 1).
    pub voxels: &'a [(u32, &'a VoxelGrid)],
    /// Heightmap layers agents ground their feet on (name, layer), ascending by name (byte
    /// order), names unique.
    pub heightmaps: &'a [(&'a str, &'a Heightmap)],
}

impl<'a> WorldContext<'a> {
    /// A world of `mesh` without platforms.
    pub fn new(mesh: &'a TiledNavMesh) -> WorldContext<'a> {
        WorldContext {
            mesh,
            platforms: &[],
            grids: &[],
            voxels: &[],
            heightmaps: &[],
        }
    }

    /// Checks that the lists ascend, each id (layer name) once, as the crowd's binary
    /// searches need: [`CrowdError::ContextOrder`] naming the list and the two ids out of
    /// order. The crowd calls it wherever it takes a context (update, path requests,
    /// platform attachment, record loads, snapshot restores, flow-field prewarms) before
    /// anything moves; one pass over each list.
    pub fn check_order(&self) -> Result<(), CrowdError> {
        ascending("platforms", self.platforms.iter().map(|p| p.0))?;
        ascending("grids", self.grids.iter().map(|g| g.0))?;
        ascending("voxels", self.voxels.iter().map(|g| g.0))?;
        ascending("heightmaps", self.heightmaps.iter().map(|h| h.0))
    }

    /// The grid `id`.
    pub fn grid(&self, id: u32) -> Option<&'a Grid> {
        self.grids
            .binary_search_by_key(&id, |g| g.0)
            .ok()
            .map(|i| self.grids[i].1)
    }

    /// The voxel grid `id`.
    pub fn voxel(&self, id: u32) -> Option<&'a VoxelGrid> {
        self.voxels
            .binary_search_by_key(&id, |g| g.0)
            .ok()
            .map(|i| self.voxels[i].1)
    }

    /// The heightmap layer registered as `name`.
    pub fn heightmap(&self, name: &str) -> Option<&'a Heightmap> {
        self.heightmaps
            .binary_search_by(|h| h.0.cmp(name))
            .ok()
            .map(|i| self.heightmaps[i].1)
    }

    /// The position of platform `id` this step.
    pub fn platform(&self, id: u32) -> Option<Vec3> {
        self.platforms
            .binary_search_by_key(&id, |p| p.0)
            .ok()
            .map(|i| self.platforms[i].1)
    }
}

/// [`CrowdError::ContextOrder`] at the first key of `keys` not greater than the one before.
fn ascending<K: PartialOrd + std::fmt::Display>(
    list: &'static str,
    keys: impl Iterator<Item = K>,
) -> Result<(), CrowdError> {
    let mut before: Option<K> = None;
    for k in keys {
        if let Some(b) = &before {
            if k <= *b {
                return Err(CrowdError::ContextOrder {
                    list,
                    previous: b.to_string(),
                    next: k.to_string(),
                });
            }
        }
        before = Some(k);
    }
    Ok(())
}
