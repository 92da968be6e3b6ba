//! Queries over a Detour navmesh the way RecastDemo's NavMeshTesterTool makes them:
//! `findNearestPoly` with half extents (2, 4, 2), `findPath` over at most 256 polygons with a
//! 2048-node query, `findStraightPath` (no crossing options, at most 256 corners; a partial
//! path's end is first clamped to its last polygon), and `raycast`.

pub use crate::ffi::{
    DetourMeshParams, DetourNavMesh, DetourQuery, QueryFilter, RaycastResult, StraightPoint,
    TileData,
};

use crate::error::PeerError;
use crate::mesh_data::DetourTileInput;
use crate::metrics::{PathEngine, PathOutcome};

/// `dtCreateNavMeshData` for one tile, after [`DetourTileInput::validate`]: any input is
/// either refused with a [`PeerError`] or turned into a tile blob Detour can follow safely.
pub fn create_tile_data(input: &DetourTileInput) -> Result<TileData, PeerError> {
    crate::ffi::create_nav_mesh_data(input)
}

/// The tester tool's search box half extents.
pub const HALF_EXTENTS: [f32; 3] = [2.0, 4.0, 2.0];
/// The tester tool's largest corridor and straight path (`MAX_POLYS`).
pub const MAX_POLYS: usize = 256;
/// The demo's query node pool size.
pub const MAX_NODES: i32 = 2048;

/// Detour's query layer with the demo's defaults (default filter: every area costs 1, every
/// flag included; [`MAX_NODES`] nodes, [`MAX_POLYS`] polygons unless
/// [`DetourEngine::with_limits`] says otherwise).
#[derive(Debug)]
pub struct DetourEngine<'m> {
    query: DetourQuery<'m>,
    filter: QueryFilter,
    max_polys: usize,
}

/// A point snapped onto the mesh.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Snapped {
    /// Detour polygon reference.
    pub poly: u32,
    /// Nearest point on that polygon.
    pub pos: [f32; 3],
}

impl<'m> DetourEngine<'m> {
    /// A query over `mesh` with [`MAX_NODES`] nodes and the default filter.
    pub fn new(mesh: &'m DetourNavMesh) -> Result<Self, PeerError> {
        Self::with_limits(mesh, MAX_NODES, MAX_POLYS)
    }

    /// A query over `mesh` with `max_nodes` nodes (1..=65535) and corridors / straight paths
    /// of at most `max_polys` polygons / corners, for meshes larger than the demo's (a far
    /// path over thousands of polygons needs more than 2048 nodes and 256 polygons).
    pub fn with_limits(
        mesh: &'m DetourNavMesh,
        max_nodes: i32,
        max_polys: usize,
    ) -> Result<Self, PeerError> {
        Ok(DetourEngine {
            query: DetourQuery::new(mesh, max_nodes)?,
            filter: QueryFilter::default(),
            max_polys: max_polys.max(1),
        })
    }

    /// The underlying query, for calls this engine does not wrap.
    pub fn query(&self) -> &DetourQuery<'m> {
        &self.query
    }

    /// `findNearestPoly` within [`HALF_EXTENTS`].
    pub fn snap(&self, p: [f32; 3]) -> Result<Option<Snapped>, PeerError> {
        Ok(self
            .query
            .find_nearest_poly(p, HALF_EXTENTS, &self.filter)?
            .map(|(poly, pos)| Snapped { poly, pos }))
    }

    /// Corridor and straight path between two snapped points.
    pub fn path(&self, start: Snapped, end: Snapped) -> Result<PathOutcome, PeerError> {
        let (corridor, partial) = self.query.find_path(
            start.poly,
            end.poly,
            start.pos,
            end.pos,
            &self.filter,
            self.max_polys,
        )?;
        let Some(&last) = corridor.last() else {
            return Ok(PathOutcome {
                corridor_len: 0,
                partial: true,
                corners: Vec::new(),
            });
        };
        // As the tester tool: a partial path ends at the point of its last polygon nearest
        // to the requested end.
        let end_pos = if last != end.poly {
            self.query.closest_point_on_poly(last, end.pos)?
        } else {
            end.pos
        };
        let corners =
            self.query
                .find_straight_path(start.pos, end_pos, &corridor, self.max_polys, 0)?;
        Ok(PathOutcome {
            corridor_len: corridor.len(),
            partial: partial || last != end.poly,
            corners: corners.iter().map(|c| c.pos).collect(),
        })
    }

    /// `findPath` alone: the corridor between two snapped points and Detour's partial flag.
    pub fn corridor(&self, start: Snapped, end: Snapped) -> Result<(Vec<u32>, bool), PeerError> {
        self.query.find_path(
            start.poly,
            end.poly,
            start.pos,
            end.pos,
            &self.filter,
            self.max_polys,
        )
    }

    /// The corridor through Detour's sliced search (the A* of [`DetourEngine::corridor`], which
    /// may return another corridor: seen on a square grid), with the number of iterations
    /// (nodes expanded) it took.
    pub fn corridor_counted(
        &mut self,
        start: Snapped,
        end: Snapped,
    ) -> Result<(Vec<u32>, bool, usize), PeerError> {
        self.query.find_path_counted(
            start.poly,
            end.poly,
            start.pos,
            end.pos,
            &self.filter,
            self.max_polys,
        )
    }

    /// `findStraightPath` alone along a given corridor (for instance OnePath's, mapped to
    /// Detour references): the corner positions.
    pub fn straight_path_along(
        &self,
        start: [f32; 3],
        end: [f32; 3],
        corridor: &[u32],
    ) -> Result<Vec<[f32; 3]>, PeerError> {
        Ok(self
            .query
            .find_straight_path(start, end, corridor, self.max_polys, 0)?
            .iter()
            .map(|c| c.pos)
            .collect())
    }

    /// `raycast` from a snapped point toward `end`.
    pub fn raycast(&self, start: Snapped, end: [f32; 3]) -> Result<RaycastResult, PeerError> {
        self.query
            .raycast(start.poly, start.pos, end, &self.filter, self.max_polys)
    }
}

impl PathEngine for DetourEngine<'_> {
    fn straight_path(
        &mut self,
        start: [f32; 3],
        end: [f32; 3],
    ) -> Result<Option<PathOutcome>, PeerError> {
        let (Some(s), Some(e)) = (self.snap(start)?, self.snap(end)?) else {
            return Ok(None);
        };
        self.path(s, e).map(Some)
    }
}
