//! ONCS, the canonical binary snapshot of a whole crowd (`docs/agent-records.md`,
//! "Canonical crowd snapshot"): what rollback saves and restores. The same state gives the
//! same bytes on every platform (explicit little-endian, agents in id order, no hash
//! order); the reader follows the hostile-bytes rules (every count checked against the
//! bytes that remain, typed errors naming the field and the agent) and a restore is all or
//! nothing.

mod grounding;
mod guides;
mod read;
mod write;

pub(crate) use read::rebuilt_turn;

use onepath_gridstate::SlicedSearch;
use onepath_mesh::query::NavMeshQuery;

use crate::agent::{AgentState, TargetState};
use crate::boundary::BoundaryScratch;
use crate::crowd::{poly_usable, Crowd};
use crate::error::CrowdError;
use crate::grid::ProximityGrid;
use crate::queue::PathQueue;
use crate::world::WorldContext;

/// The locomotion kind of a code (its `as u8` value; codes above 7 read as Platform).
pub(crate) fn locomotion_kind_of(code: u8) -> crate::LocomotionKind {
    read::locomotion_kind(code)
}

/// The magic the snapshot opens with.
pub const ONCS_MAGIC: &[u8; 4] = b"ONCS";
/// The layout version this crate writes and reads.
pub const ONCS_VERSION: u16 = 1;

impl Crowd {
    /// The canonical snapshot of the crowd (ONCS): settings, the proximity grid's cell
    /// size (its input; its contents are rebuilt every update), every agent in id order,
    /// the path queue with the search in progress (by the iterations it used), the grid
    /// queue. Restoring it with [`Crowd::restore_snapshot`] into a crowd bound to the same
    /// mesh and world gives a crowd whose updates continue bit for bit as this one's.
    pub fn save_snapshot(&self) -> Vec<u8> {
        write::write_crowd(self)
    }

    /// Restores a snapshot written by [`Crowd::save_snapshot`]: the crowd takes its
    /// settings, agents and queues (the host restores the mesh, or the tile cache, and the
    /// grids first: the world is what the snapshot is checked against).
    ///
    /// All or nothing: on error the crowd is exactly as it was. Errors:
    /// [`CrowdError::State`] for malformed bytes or a broken rule (naming the field and the
    /// agent), [`CrowdError::UnknownContext`] when an agent's grid guide or platform names
    /// an id `world` lacks, [`CrowdError::ContextOrder`] when a list of `world` does not
    /// ascend.
    ///
    /// Corridors are restored as saved and checked against the mesh by the update's own
    /// rule (the first [`CHECK_LOOKAHEAD`](crate::CHECK_LOOKAHEAD) polygons at every
    /// update: a stale one is trimmed and planned again when it comes within them), so that
    /// the restored crowd continues exactly as the one that never left. Derived values are
    /// rebuilt, not read: the local boundary from its recorded centre and start polygon,
    /// the buffered turn from the velocity; the search in progress is begun again and its
    /// iterations replayed by the next update on that update's mesh (as the live queue does
    /// whenever the mesh changed under it); neighbours and corners at the next update.
    /// Returns the number of walking agents whose corridor holds a polygon the mesh no
    /// longer has (or whose flags their filter refuses).
    pub fn restore_snapshot(
        &mut self,
        world: &WorldContext<'_>,
        bytes: &[u8],
    ) -> Result<usize, CrowdError> {
        world.check_order()?;
        let mut read = read::read_crowd(bytes).map_err(CrowdError::State)?;
        // Every context id is checked before anything changes.
        for ra in &read.agents {
            let a = &ra.agent;
            if let Some(g) = &a.grid {
                let grid = world.grid(g.grid_id).ok_or(CrowdError::UnknownContext {
                    agent: a.id(),
                    what: "grid",
                    id: g.grid_id,
                })?;
                if g.goal.0 >= grid.width() || g.goal.1 >= grid.height() {
                    return Err(CrowdError::State(read::broken(format!(
                        "agent {}: grid guide goal ({}, {}) lies off grid {} ({} × {} cells)",
                        a.id().0,
                        g.goal.0,
                        g.goal.1,
                        g.grid_id,
                        grid.width(),
                        grid.height()
                    ))));
                }
            }
            if let Some(p) = a.nav.motor.handler.platform.and_then(|p| p.attached) {
                if world.platform(p).is_none() {
                    return Err(CrowdError::UnknownContext {
                        agent: a.id(),
                        what: "platform",
                        id: p,
                    });
                }
            }
            crate::guides::check_context(world, a)?;
        }
        for ra in &mut read.agents {
            crate::guides::install_replanner(world, &mut ra.agent)?;
        }
        // From here on nothing fails: the parts are built aside, then swapped in.
        let mesh = world.mesh;
        let mut query = NavMeshQuery::new();
        let mut scratch = BoundaryScratch::default();
        let mut agents = Vec::with_capacity(read.agents.len());
        let mut stale = 0;
        for ra in read.agents {
            let mut a = ra.agent;
            // The live update's filter (a standing request's override included).
            let filter = a.corridor_filter();
            if let Some((centre, start)) = ra.boundary {
                let range = a.params.collision_query_range;
                if a.boundary
                    .update(
                        &mut query,
                        mesh,
                        &filter,
                        start,
                        centre,
                        range,
                        &mut scratch,
                    )
                    .is_err()
                {
                    a.boundary.reset();
                }
            }
            // Corridors are checked by the update's rule (its first `CHECK_LOOKAHEAD`
            // polygons, every update), not here: a restore that trimmed a stale polygon
            // further along would make the restored crowd differ from the one that never
            // left. Stale corridors are only counted.
            let fresh = a
                .corridor
                .path()
                .iter()
                .all(|&r| poly_usable(mesh, r, &filter));
            if a.state == AgentState::Walking && !fresh {
                stale += 1;
            }
            agents.push(a);
        }
        let index = |agents: &[crate::Agent], id| agents.binary_search_by_key(&id, |a| a.id()).ok();
        // The search in progress is begun again and its iterations replayed by the next
        // update, on the mesh of that update, exactly as the live queue does after any
        // change of the mesh (`queue.rs`): nothing is searched here.
        let queue = PathQueue {
            pending: read.pending.into(),
            active: read.active,
            ..PathQueue::default()
        };
        let mut grid_search = self.grid_search.clone();
        let mut grid_active = read.grid_active;
        if let Some((id, serial, used, start)) = read.grid_active {
            if let Some(i) = index(&agents, id) {
                let a = &mut agents[i];
                let current = a.serial == serial && a.target_state == TargetState::WaitingForPath;
                let grid = a
                    .grid
                    .as_ref()
                    .and_then(|g| world.grid(g.grid_id).map(|w| (g.goal, w)));
                if let (true, Some((goal, grid))) = (current, grid) {
                    let replayed = crate::crowd::grid_search_for(
                        &mut grid_search,
                        crate::crowd::request_weight(a),
                    )
                    .is_ok()
                        && grid_search.begin(grid, start, goal).is_ok()
                        && (used == 0 || grid_search.step(grid, used).is_ok());
                    if !replayed {
                        // As the update does when a grid search cannot begin.
                        grid_active = None;
                        a.target_state = TargetState::NoPath;
                        a.nav.steering.should_move = false;
                    }
                }
            }
        }
        let r = read.settings.max_agent_radius;
        self.settings = read.settings;
        self.agents = agents;
        self.next_id = read.next_id;
        self.queue = queue;
        self.grid_queue = read.grid_queue.into();
        self.grid_active = grid_active;
        self.grid_search = grid_search;
        // The shared flow fields are rebuilt from the grids (never state).
        self.guides.forget_fields();
        self.grid = ProximityGrid::new(r * 3.0);
        self.placement_extents = [r * 2.0, r * 1.5, r * 2.0];
        Ok(stale)
    }
}
