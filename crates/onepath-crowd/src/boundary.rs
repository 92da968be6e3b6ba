//! The local boundary of an agent: the wall segments within its query range, nearest
//! first. Always a function of its recorded centre and start polygon and the current mesh
//! (`docs/crowd.md`, step 7): rebuilt around the agent when it moved a quarter of the
//! range, recomputed from the same centre when a tile it read changed (the slots' change
//! stamps, [`TiledNavMesh::slot_stamp`]).

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
    /// The polygons collected, the start polygon first.
    pub(crate) polys: Vec<PolyRef>,
    /// What the walls were read from: (slot, [`TiledNavMesh::slot_stamp`]) of every slot
    /// holding a polygon collected or a polygon one of them links to, ascending slot.
    stamps: Vec<(u32, u64)>,
    /// The [`TiledNavMesh::state_id`] at which `stamps` were last found current: while the
    /// mesh keeps it, nothing is compared.
    seen_state: u64,
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
        self.stamps.clear();
    }

    /// The start polygon of a boundary that was built (with its centre).
    pub(crate) fn inputs(&self) -> Option<(Vec3, PolyRef)> {
        self.center.zip(self.polys.first().copied())
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
        // The slots read: the collected polygons' own and those of every polygon they link
        // to (the filter reads a neighbour's flags, the walls its links).
        for &r in &self.polys {
            self.stamps.push((r.slot(), 0));
            // Every polygon collected was just read by the query: its links are there.
            for link in mesh.poly_links(r).unwrap_or(&[]) {
                self.stamps.push((link.target.slot(), 0));
            }
        }
        self.stamps.sort_unstable();
        self.stamps.dedup();
        for s in &mut self.stamps {
            // Every slot read holds a tile: it has a stamp.
            s.1 = mesh.slot_stamp(s.0).unwrap_or(0);
        }
        self.seen_state = mesh.state_id();
        self.center = Some(pos);
        Ok(())
    }

    /// True when nothing the walls were read from changed: the mesh is in the state it was
    /// in when they were last found current, or every slot read keeps its stamp (found at
    /// tile granularity, so a change elsewhere costs one comparison per slot read, once).
    pub(crate) fn is_current(&mut self, mesh: &TiledNavMesh) -> bool {
        let state = mesh.state_id();
        if state == self.seen_state {
            return true;
        }
        let current = self
            .stamps
            .iter()
            .all(|&(slot, stamp)| mesh.slot_stamp(slot) == Some(stamp));
        if current {
            self.seen_state = state;
        }
        current
    }
}
