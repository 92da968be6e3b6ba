//! [`PathCorridor`]: the polygon corridor an agent follows from its position to its target.

use onepath_format::PolyRef;

use crate::mesh::TiledNavMesh;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{dist_sqr_2d, Vec3};
use crate::query::graph::{crossing_between, Crossing};
use crate::query::path::{PathResult, PathStatus};
use crate::query::poly::{decode, poly_passes};
use crate::query::straight::{StraightPathFlags, StraightPathOptions, StraightPathPoint};
use crate::query::NavMeshQuery;

/// The corridor an agent follows: its position (in the first polygon), its target (in the
/// last) and the polygons between, kept up to date as both move.
///
/// The corridor holds polygon references, so it notices when the mesh changed under it:
/// [`PathCorridor::is_valid`] is false as soon as one of the polygons it looks at is no
/// longer valid (its tile was removed, replaced or streamed out and in: the slot's
/// generation advanced) or no longer passes the filter (a door closed). The agent then
/// calls [`PathCorridor::replan`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PathCorridor {
    pos: Vec3,
    target: Vec3,
    path: Vec<PolyRef>,
}

/// Merges `visited` (a walk that started in the corridor's first polygon) into the start
/// of `path`: the new corridor runs back along `visited` from its last polygon to the
/// furthest polygon both share, then on along `path`.
fn merge_start_moved(path: &mut Vec<PolyRef>, visited: &[PolyRef]) {
    let mut common = None;
    'outer: for i in (0..visited.len()).rev() {
        for j in (0..path.len()).rev() {
            if path[j] == visited[i] {
                common = Some((j, i));
                break 'outer;
            }
        }
    }
    let Some((fp, fv)) = common else {
        return;
    };
    path.splice(..=fp, visited[fv..].iter().rev().copied());
}

/// Merges `visited` (a walk that started in the corridor's last polygon) into its end.
fn merge_end_moved(path: &mut Vec<PolyRef>, visited: &[PolyRef]) {
    let mut common = None;
    'outer: for (i, v) in visited.iter().enumerate() {
        for j in (0..path.len()).rev() {
            if path[j] == *v {
                common = Some((j, i));
                break 'outer;
            }
        }
    }
    let Some((fp, fv)) = common else {
        return;
    };
    path.truncate(fp + 1);
    path.extend_from_slice(&visited[fv + 1..]);
}

/// Replaces the start of `path` by the shortcut `visited` (a walk from the first polygon
/// that rejoins the corridor further on).
fn merge_start_shortcut(path: &mut Vec<PolyRef>, visited: &[PolyRef]) {
    let mut common = None;
    'outer: for i in (0..visited.len()).rev() {
        for j in (0..path.len()).rev() {
            if path[j] == visited[i] {
                common = Some((j, i));
                break 'outer;
            }
        }
    }
    let Some((fp, fv)) = common else {
        return;
    };
    if fv == 0 {
        return;
    }
    path.splice(..fp, visited[..fv].iter().copied());
}

impl PathCorridor {
    /// An empty corridor (call [`PathCorridor::reset`]).
    pub fn new() -> PathCorridor {
        PathCorridor::default()
    }

    /// The agent stands at `pos` in `poly`; the corridor is that one polygon and the target
    /// is `pos`.
    pub fn reset(&mut self, poly: PolyRef, pos: Vec3) {
        self.path.clear();
        self.path.push(poly);
        self.pos = pos;
        self.target = pos;
    }

    /// Sets the target and the corridor (a path from the current first polygon, e.g. from
    /// [`NavMeshQuery::find_path`]). An empty `path` keeps the current corridor.
    pub fn set_corridor(&mut self, target: Vec3, path: &[PolyRef]) {
        if path.is_empty() {
            return;
        }
        self.target = target;
        self.path.clear();
        self.path.extend_from_slice(path);
    }

    /// The agent's position.
    pub fn pos(&self) -> Vec3 {
        self.pos
    }

    /// The target position.
    pub fn target(&self) -> Vec3 {
        self.target
    }

    /// The corridor's polygons, the agent's polygon first.
    pub fn path(&self) -> &[PolyRef] {
        &self.path
    }

    /// The polygon the agent is in (`PolyRef::NULL` when empty).
    pub fn first_poly(&self) -> PolyRef {
        self.path.first().copied().unwrap_or(PolyRef::NULL)
    }

    /// The polygon of the target (`PolyRef::NULL` when empty).
    pub fn last_poly(&self) -> PolyRef {
        self.path.last().copied().unwrap_or(PolyRef::NULL)
    }

    /// The straight path from the position to the target along the corridor (see
    /// [`NavMeshQuery::find_straight_path`]); leading points within `0.01` of the position in
    /// X/Z are dropped (an off-mesh departure point never is), so the first point is the next
    /// corner to steer to.
    pub fn find_corners(
        &self,
        query: &mut NavMeshQuery,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        out: &mut Vec<StraightPathPoint>,
    ) -> Result<(), QueryError> {
        query.find_straight_path(
            mesh,
            self.pos,
            self.target,
            &self.path,
            filter,
            StraightPathOptions::default(),
            out,
        )?;
        // Drop leading points the agent already stands on, except an off-mesh departure
        // (the agent must see it to cross the link).
        let pos = self.pos;
        let skip = out
            .iter()
            .take_while(|c| {
                !c.flags.contains(StraightPathFlags::OFF_MESH_CONNECTION)
                    && dist_sqr_2d(c.pos, pos) <= 0.0001
            })
            .count();
        out.drain(..skip);
        Ok(())
    }

    /// Moves the position towards `new_pos` along the surface (constrained by walls) and
    /// trims or extends the start of the corridor by the polygons crossed. Returns false
    /// (and changes nothing) when the corridor is empty.
    pub fn move_position(
        &mut self,
        query: &mut NavMeshQuery,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        new_pos: Vec3,
    ) -> Result<bool, QueryError> {
        let Some(&first) = self.path.first() else {
            return Ok(false);
        };
        let mut visited = std::mem::take(&mut query.scratch_refs);
        let r = query.move_along_surface(mesh, first, self.pos, new_pos, filter, &mut visited);
        let ok = match r {
            Ok(m) => {
                merge_start_moved(&mut self.path, &visited);
                self.pos = m.pos;
                Ok(true)
            }
            Err(e) => Err(e),
        };
        query.scratch_refs = visited;
        ok
    }

    /// Moves the target towards `new_target` along the surface from the last polygon and
    /// adjusts the end of the corridor.
    pub fn move_target(
        &mut self,
        query: &mut NavMeshQuery,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        new_target: Vec3,
    ) -> Result<bool, QueryError> {
        let Some(&last) = self.path.last() else {
            return Ok(false);
        };
        let mut visited = std::mem::take(&mut query.scratch_refs);
        let r = query.move_along_surface(mesh, last, self.target, new_target, filter, &mut visited);
        let ok = match r {
            Ok(m) => {
                merge_end_moved(&mut self.path, &visited);
                self.target = m.pos;
                Ok(true)
            }
            Err(e) => Err(e),
        };
        query.scratch_refs = visited;
        ok
    }

    /// Visibility optimisation: casts a ray from the position towards `next` (the next
    /// corner, or a point further along), at most `range` away in X/Z; when the ray reaches
    /// it, the polygons the ray crossed replace the start of the corridor up to where they
    /// rejoin it.
    pub fn optimize_path_visibility(
        &mut self,
        query: &mut NavMeshQuery,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        next: Vec3,
        range: f64,
    ) -> Result<(), QueryError> {
        let Some(&first) = self.path.first() else {
            return Ok(());
        };
        let mut goal = next;
        let d2 = dist_sqr_2d(self.pos, goal);
        if d2 > range * range && d2 > 0.0 {
            let s = range / d2.sqrt();
            goal = [
                self.pos[0] + (goal[0] - self.pos[0]) * s,
                goal[1],
                self.pos[2] + (goal[2] - self.pos[2]) * s,
            ];
        }
        let mut visited = std::mem::take(&mut query.scratch_refs);
        let r = query.raycast(mesh, first, self.pos, goal, filter, &mut visited);
        let out = match r {
            Ok(hit) => {
                if hit.reached_end() {
                    merge_start_shortcut(&mut self.path, &visited);
                }
                Ok(())
            }
            Err(e) => Err(e),
        };
        query.scratch_refs = visited;
        out
    }

    /// Topology optimisation: a path search from the position to the target with at most
    /// `max_iterations` expansions; if its last polygon lies on the corridor, the search's
    /// path replaces the corridor up to there. Returns whether the corridor changed.
    pub fn optimize_path_topology(
        &mut self,
        query: &mut NavMeshQuery,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        max_iterations: u64,
    ) -> Result<bool, QueryError> {
        if self.path.len() < 3 {
            return Ok(false);
        }
        let (first, last) = (self.path[0], self.path[self.path.len() - 1]);
        let mut found = std::mem::take(&mut query.scratch_refs);
        let r = query.find_path(
            mesh,
            first,
            last,
            self.pos,
            self.target,
            filter,
            max_iterations,
            &mut found,
        );
        let changed = match r {
            Ok(_) => match found.last() {
                Some(end) => match self.path.iter().rposition(|p| p == end) {
                    Some(j) if found[..] != self.path[..=j] => {
                        self.path.splice(..=j, found.iter().copied());
                        Ok(true)
                    }
                    _ => Ok(false),
                },
                None => Ok(false),
            },
            Err(e) => Err(e),
        };
        query.scratch_refs = found;
        changed
    }

    /// Crossing an off-mesh link: when the corridor's next step from its first polygon is an
    /// off-mesh link (under `filter`), drops the first polygon, puts the position at the
    /// link's arrival point and returns (departure, arrival). `None` (nothing changes) when
    /// the next step is not an off-mesh link.
    pub fn move_over_off_mesh_connection(
        &mut self,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
    ) -> Result<Option<(Vec3, Vec3)>, QueryError> {
        if self.path.len() < 2 {
            return Ok(None);
        }
        match crossing_between(mesh, self.path[0], self.path[1], filter)? {
            Some(Crossing::OffMesh { start, end, .. }) => {
                self.path.remove(0);
                self.pos = end;
                Ok(Some((start, end)))
            }
            _ => Ok(None),
        }
    }

    /// True when the first `max_look_ahead` polygons of the corridor are all valid in
    /// `mesh` and pass `filter`. A false answer means the corridor is stale (its tiles were
    /// removed, replaced or streamed, or a polygon's flags changed): call
    /// [`PathCorridor::replan`].
    pub fn is_valid(
        &self,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        max_look_ahead: usize,
    ) -> bool {
        !self.path.is_empty()
            && self
                .path
                .iter()
                .take(max_look_ahead)
                .all(|&r| match decode(mesh, r) {
                    Ok((t, p)) => poly_passes(t, p, filter),
                    Err(_) => false,
                })
    }

    /// Keeps the longest prefix of the corridor whose polygons are valid and pass `filter`,
    /// and moves the target onto its last polygon (closest point). When even the first
    /// polygon is unusable the corridor becomes `[safe_poly]` at `safe_pos`. Returns whether
    /// the corridor changed.
    pub fn trim_invalid_path(
        &mut self,
        query: &NavMeshQuery,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        safe_poly: PolyRef,
        safe_pos: Vec3,
    ) -> Result<bool, QueryError> {
        let usable =
            |r: PolyRef| matches!(decode(mesh, r), Ok((t, p)) if poly_passes(t, p, filter));
        let n = self.path.iter().take_while(|&&r| usable(r)).count();
        if n == self.path.len() && n > 0 {
            return Ok(false);
        }
        if n == 0 {
            self.reset(safe_poly, safe_pos);
            return Ok(true);
        }
        self.path.truncate(n);
        self.target = query
            .closest_point_on_poly(mesh, self.path[n - 1], self.target)?
            .point;
        Ok(true)
    }

    /// Plans the corridor again: the start is the first polygon if still valid and passing,
    /// else the polygon nearest the position within `half_extents`; the goal likewise for the
    /// last polygon and the target. Then a path search of at most `max_iterations`. Without
    /// a start polygon the corridor is emptied and the status is
    /// [`PathStatus::Partial`] with cost 0.
    pub fn replan(
        &mut self,
        query: &mut NavMeshQuery,
        mesh: &TiledNavMesh,
        filter: &QueryFilter,
        half_extents: Vec3,
        max_iterations: u64,
    ) -> Result<PathResult, QueryError> {
        let usable =
            |r: PolyRef| matches!(decode(mesh, r), Ok((t, p)) if poly_passes(t, p, filter));
        let start = match self.path.first() {
            Some(&r) if usable(r) => Some((r, self.pos)),
            _ => query
                .find_nearest_poly(mesh, self.pos, half_extents, filter)?
                .map(|n| (n.poly, n.point)),
        };
        let goal = match self.path.last() {
            Some(&r) if usable(r) => Some((r, self.target)),
            _ => query
                .find_nearest_poly(mesh, self.target, half_extents, filter)?
                .map(|n| (n.poly, n.point)),
        };
        let (Some((s, spos)), Some((g, gpos))) = (start, goal) else {
            self.path.clear();
            return Ok(PathResult {
                status: PathStatus::Partial,
                cost: 0.0,
                iterations: 0,
            });
        };
        let mut found = std::mem::take(&mut query.scratch_refs);
        let r = query.find_path(mesh, s, g, spos, gpos, filter, max_iterations, &mut found);
        if r.is_ok() {
            self.pos = spos;
            self.target = gpos;
            self.path.clear();
            self.path.extend_from_slice(&found);
        }
        query.scratch_refs = found;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(i: u32) -> PolyRef {
        PolyRef::new(1, 0, i).unwrap()
    }

    #[test]
    fn moving_forward_trims_the_corridor_start() {
        let mut path = vec![r(0), r(1), r(2), r(3)];
        merge_start_moved(&mut path, &[r(0), r(1), r(2)]);
        assert_eq!(path, vec![r(2), r(3)]);
    }

    #[test]
    fn stepping_off_the_corridor_leads_back_to_it() {
        let mut path = vec![r(0), r(1), r(2)];
        merge_start_moved(&mut path, &[r(0), r(9)]);
        assert_eq!(path, vec![r(9), r(0), r(1), r(2)]);
    }

    #[test]
    fn moving_the_target_extends_the_corridor_end() {
        let mut path = vec![r(0), r(1), r(2)];
        merge_end_moved(&mut path, &[r(2), r(5), r(6)]);
        assert_eq!(path, vec![r(0), r(1), r(2), r(5), r(6)]);
    }

    #[test]
    fn a_visible_shortcut_replaces_the_corridor_start() {
        let mut path = vec![r(0), r(1), r(2), r(3), r(4)];
        merge_start_shortcut(&mut path, &[r(0), r(7), r(3)]);
        assert_eq!(path, vec![r(0), r(7), r(3), r(4)]);
    }
}
