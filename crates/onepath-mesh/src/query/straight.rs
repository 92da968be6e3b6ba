//! String pulling: the straight path through a polygon corridor (the funnel algorithm),
//! split at off-mesh links, with optional portal-crossing points.

use onepath_format::PolyRef;

use crate::mesh::TiledNavMesh;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{check_point, cross_2d, dist_sqr_2d, intersect_segments_2d, lerp, Vec3};
use crate::query::graph::{crossing_between, Crossing};
use crate::query::nearest::closest_point;
use crate::query::poly::{decode, poly_verts, PolyVerts};
use crate::query::NavMeshQuery;

/// What a straight-path point marks (a set of bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StraightPathFlags(pub u8);

impl StraightPathFlags {
    /// The start of the path.
    pub const START: StraightPathFlags = StraightPathFlags(1);
    /// The end of the path.
    pub const END: StraightPathFlags = StraightPathFlags(2);
    /// The departure point of an off-mesh link; the next point is its arrival.
    pub const OFF_MESH_CONNECTION: StraightPathFlags = StraightPathFlags(4);
    /// A point where the path crosses a portal between two corridor polygons (only with
    /// the crossing options).
    pub const PORTAL_CROSSING: StraightPathFlags = StraightPathFlags(8);

    /// True when every bit of `other` is set.
    pub fn contains(self, other: StraightPathFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

/// Optional extra points of a straight path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StraightPathOptions {
    /// Add a point where the path crosses into a polygon of another area.
    pub area_crossings: bool,
    /// Add a point at every portal crossing.
    pub all_crossings: bool,
}

/// One point of a straight path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StraightPathPoint {
    /// World position.
    pub pos: Vec3,
    /// What the point marks.
    pub flags: StraightPathFlags,
    /// The corridor polygon the path runs in from this point on (for the departure point of
    /// an off-mesh link, the polygon it departs from; for the end, the last polygon).
    pub poly: PolyRef,
}

/// One portal of a funnel run: the crossing segment and the corridor index of the polygon
/// entered through it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Portal {
    left: Vec3,
    right: Vec3,
    poly: usize,
}

fn same_2d(a: Vec3, b: Vec3) -> bool {
    dist_sqr_2d(a, b) < 1e-18
}

fn append(out: &mut Vec<StraightPathPoint>, pos: Vec3, flags: StraightPathFlags, poly: PolyRef) {
    if let Some(last) = out.last_mut() {
        if last.pos == pos {
            // The same point again: keep one, with the later meaning.
            last.flags = StraightPathFlags(last.flags.0 | flags.0);
            last.poly = poly;
            return;
        }
    }
    out.push(StraightPathPoint { pos, flags, poly });
}

impl NavMeshQuery {
    /// The straight path from `start_pos` to `end_pos` through the corridor `path` (polygon
    /// references, consecutive ones connected under `filter`), written into `out` (cleared
    /// first). The start and end are first moved onto the first and last polygons (closest
    /// point). Corners come from the funnel algorithm in X/Z, with heights from the portal
    /// ends; an off-mesh link adds its departure point (flag
    /// [`StraightPathFlags::OFF_MESH_CONNECTION`]) and its arrival point. If two consecutive
    /// polygons are not connected (a stale corridor), the path ends at the point of the last
    /// connected polygon closest to `end_pos`, without the END flag.
    #[allow(clippy::too_many_arguments)]
    pub fn find_straight_path(
        &mut self,
        mesh: &TiledNavMesh,
        start_pos: Vec3,
        end_pos: Vec3,
        path: &[PolyRef],
        filter: &QueryFilter,
        options: StraightPathOptions,
        out: &mut Vec<StraightPathPoint>,
    ) -> Result<(), QueryError> {
        out.clear();
        check_point("start_pos", start_pos)?;
        check_point("end_pos", end_pos)?;
        let Some(&first) = path.first() else {
            return Err(QueryError::InvalidPolyRef(PolyRef::NULL));
        };
        let mut verts = PolyVerts::new();
        let closest = |r: PolyRef, pos: Vec3, verts: &mut PolyVerts| -> Result<Vec3, QueryError> {
            let (t, p) = decode(mesh, r)?;
            poly_verts(t, p, verts);
            Ok(closest_point(t, p, verts, pos).point)
        };
        let start = closest(first, start_pos, &mut verts)?;
        append(out, start, StraightPathFlags::START, first);

        let mut portals = std::mem::take(&mut self.scratch_portals);
        portals.clear();
        portals.push(Portal {
            left: start,
            right: start,
            poly: 0,
        });
        let mut complete = true;
        let mut last_poly = path.len() - 1;
        // A compiled graph that applies answers the crossings (the same ones, bit for bit).
        let graph = self.graph.clone().filter(|g| g.applies_to(mesh, filter));
        for i in 0..path.len() - 1 {
            let (a, b) = (path[i], path[i + 1]);
            let from_graph = graph
                .as_deref()
                .and_then(|g| g.crossing_between(mesh, a, b, filter));
            let walked;
            let found = match from_graph {
                Some(r) => r,
                None => {
                    walked = crossing_between(mesh, a, b, filter);
                    walked.as_ref().map(Option::as_ref).map_err(Clone::clone)
                }
            };
            let crossing = match found {
                Ok(Some(&c)) => c,
                Ok(None) | Err(QueryError::InvalidPolyRef(_)) => {
                    complete = false;
                    last_poly = i;
                    break;
                }
                Err(e) => {
                    self.scratch_portals = portals;
                    return Err(e);
                }
            };
            match crossing {
                Crossing::Edge { left, right, .. } => portals.push(Portal {
                    left,
                    right,
                    poly: i + 1,
                }),
                Crossing::OffMesh {
                    start: s, end: e, ..
                } => {
                    // The funnel so far ends at the link's departure point.
                    portals.push(Portal {
                        left: s,
                        right: s,
                        poly: i,
                    });
                    self.funnel(mesh, &portals, path, options, out)?;
                    append(out, s, StraightPathFlags::OFF_MESH_CONNECTION, path[i]);
                    append(out, e, StraightPathFlags::default(), path[i + 1]);
                    portals.clear();
                    portals.push(Portal {
                        left: e,
                        right: e,
                        poly: i + 1,
                    });
                }
            }
        }
        let end = closest(path[last_poly], end_pos, &mut verts)?;
        portals.push(Portal {
            left: end,
            right: end,
            poly: last_poly,
        });
        let r = self.funnel(mesh, &portals, path, options, out);
        self.scratch_portals = portals;
        r?;
        let flags = if complete {
            StraightPathFlags::END
        } else {
            StraightPathFlags::default()
        };
        append(out, end, flags, path[last_poly]);
        Ok(())
    }

    /// Runs the funnel over `portals` (first and last are points) and appends the corners
    /// strictly between its ends, with crossing points when asked.
    fn funnel(
        &self,
        mesh: &TiledNavMesh,
        portals: &[Portal],
        path: &[PolyRef],
        options: StraightPathOptions,
        out: &mut Vec<StraightPathPoint>,
    ) -> Result<(), QueryError> {
        let n = portals.len();
        let mut apex = portals[0].left;
        let mut apex_i = 0;
        let (mut left, mut right) = (apex, apex);
        let (mut li, mut ri) = (0, 0);
        let mut i = 1;
        while i < n {
            let (l, r) = (portals[i].left, portals[i].right);
            if cross_2d(apex, right, r) >= 0.0 {
                if same_2d(apex, right) || cross_2d(apex, left, r) < 0.0 {
                    right = r;
                    ri = i;
                } else {
                    self.crossings(mesh, portals, path, options, apex, apex_i, left, li, out)?;
                    append(
                        out,
                        left,
                        StraightPathFlags::default(),
                        path[portals[li].poly],
                    );
                    apex = left;
                    apex_i = li;
                    right = apex;
                    ri = apex_i;
                    i = apex_i + 1;
                    continue;
                }
            }
            if cross_2d(apex, left, l) <= 0.0 {
                if same_2d(apex, left) || cross_2d(apex, right, l) > 0.0 {
                    left = l;
                    li = i;
                } else {
                    self.crossings(mesh, portals, path, options, apex, apex_i, right, ri, out)?;
                    append(
                        out,
                        right,
                        StraightPathFlags::default(),
                        path[portals[ri].poly],
                    );
                    apex = right;
                    apex_i = ri;
                    left = apex;
                    li = apex_i;
                    i = apex_i + 1;
                    continue;
                }
            }
            i += 1;
        }
        let end = portals[n - 1].left;
        self.crossings(mesh, portals, path, options, apex, apex_i, end, n - 1, out)
    }

    /// Appends the points where segment `a → b` (a on portal `ai`, b on portal `bi`) crosses
    /// the portals strictly between, when the options ask for them.
    #[allow(clippy::too_many_arguments)]
    fn crossings(
        &self,
        mesh: &TiledNavMesh,
        portals: &[Portal],
        path: &[PolyRef],
        options: StraightPathOptions,
        a: Vec3,
        ai: usize,
        b: Vec3,
        bi: usize,
        out: &mut Vec<StraightPathPoint>,
    ) -> Result<(), QueryError> {
        if !(options.all_crossings || options.area_crossings) || bi <= ai + 1 {
            return Ok(());
        }
        for p in &portals[ai + 1..bi] {
            let before = path[p.poly - 1];
            let after = path[p.poly];
            if !options.all_crossings && mesh.poly_area(before) == mesh.poly_area(after) {
                continue;
            }
            let Some((_, t)) = intersect_segments_2d(a, b, p.right, p.left) else {
                continue;
            };
            let pos = lerp(p.right, p.left, t.clamp(0.0, 1.0));
            append(out, pos, StraightPathFlags::PORTAL_CROSSING, after);
        }
        Ok(())
    }
}
