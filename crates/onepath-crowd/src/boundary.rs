//! The local boundary of an agent: the wall segments within its query range, nearest
//! first, rebuilt when it moved a quarter of the range or a polygon it read changed.

use onepath_format::PolyRef;
use onepath_mesh::query::{LocalNode, NavMeshQuery, QueryError, QueryFilter, Vec3, WallSegment};
use onepath_mesh::TiledNavMesh;

use crate::geom::dist_pt_seg_sqr_2d;

/// Polygons of the neighbourhood read.
pub(crate) const MAX_LOCAL_POLYS: usize = 16;
/// Wall segments kept.
pub(crate) const MAX_LOCAL_SEGS: usize = 8;

/// The walls around an agent.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct LocalBoundary {
    pub(crate) center: Option<Vec3>,
    /// (squared distance, start, end), nearest first (the earlier found among equals).
    pub(crate) segments: Vec<(f64, Vec3, Vec3)>,
    pub(crate) polys: Vec<PolyRef>,
}

/// The buffers of a boundary update, reused between agents.
#[derive(Debug, Default)]
pub(crate) struct BoundaryScratch {
    nodes: Vec<LocalNode>,
    walls: Vec<WallSegment>,
}

impl LocalBoundary {
    pub(crate) fn reset(&mut self) {
        self.center = None;
        self.segments.clear();
        self.polys.clear();
    }

    /// Collects the walls within `range` of `pos` from the overlap-free neighbourhood of
    /// `start`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn update(
        &mut self,
        query: &mut NavMeshQuery,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        start: PolyRef,
        pos: Vec3,
        range: f64,
        scratch: &mut BoundaryScratch,
    ) -> Result<(), QueryError> {
        self.reset();
        query.find_local_neighbourhood(
            mesh,
            start,
            pos,
            range,
            filter,
            MAX_LOCAL_POLYS,
            &mut scratch.nodes,
        )?;
        let r2 = range * range;
        for n in &scratch.nodes {
            self.polys.push(n.poly);
            query.poly_wall_segments(mesh, n.poly, filter, &mut scratch.walls)?;
            for w in scratch.walls.iter().filter(|w| w.neighbour.is_none()) {
                let d2 = dist_pt_seg_sqr_2d(pos, w.start, w.end);
                if d2 > r2 {
                    continue;
                }
                // Insert after every segment not farther (stable: the earlier found first).
                let at = self.segments.partition_point(|s| s.0 <= d2);
                if at >= MAX_LOCAL_SEGS {
                    continue;
                }
                self.segments.insert(at, (d2, w.start, w.end));
                self.segments.truncate(MAX_LOCAL_SEGS);
            }
        }
        self.center = Some(pos);
        Ok(())
    }

    /// True when every polygon read is still valid and passes `filter`.
    pub(crate) fn is_valid(&self, mesh: &TiledNavMesh, filter: &QueryFilter) -> bool {
        // `poly_flags` fails exactly for a reference `is_valid_poly_ref` refuses.
        self.center.is_some()
            && self
                .polys
                .iter()
                .all(|&r| mesh.poly_flags(r).is_ok_and(|f| filter.passes_flags(f)))
    }
}
