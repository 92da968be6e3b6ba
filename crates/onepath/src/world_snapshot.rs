//! [`WorldSnapshot`]: the run-time state of a game's navigation in one value: each agent
//! class's mesh (ONPS) or tile cache (ONTK), the host's grids (OPGS), each class's crowd
//! (ONCS), in that order, each part in its own format. Restoring is all or nothing across
//! the parts.

use onepath_crowd::{Crowd, CrowdError};
use onepath_format::FormatError;
use onepath_gridstate::Grid;
use onepath_mesh::TiledNavMesh;
use onepath_snapshot::{NavMeshSnapshot, SnapshotMode};
use onepath_tilecache::PreparedRestore;

use crate::error::{Error, Result};
use crate::navmesh::Store;
use crate::world::NavWorld;
use crate::world_crowd::WorldCrowd;

/// A class part checked and restored off to the side: a mesh restored into a copy, or a tile
/// cache's prepared two-phase restore.
enum Restored {
    Plain(Box<TiledNavMesh>),
    Cached(Box<PreparedRestore>),
}

/// The name of [`WorldSnapshot`] in its [`FormatError::State`] errors.
pub const WORLD_STATE_FORMAT: &str = "world";

/// The snapshot of one agent class's mesh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClassSnapshot {
    /// A mesh without a tile cache: its Full ONPS snapshot.
    Mesh(Vec<u8>),
    /// A mesh with a tile cache: the cache's Full ONTK snapshot (obstacles, volumes, queue
    /// and the mesh).
    TileCache(Vec<u8>),
}

impl ClassSnapshot {
    /// The part's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            ClassSnapshot::Mesh(b) | ClassSnapshot::TileCache(b) => b,
        }
    }
}

/// Meshes or tile caches (one per class, in class order), grids (with the ids the crowds
/// know them by, ascending), crowds (one per class, or none): each part in its own
/// canonical format, so the same state gives the same parts everywhere.
///
/// [`WorldSnapshot::restore`] parses and checks every part against a copy before it
/// changes anything: a failed restore leaves the world, the grids and the crowds exactly
/// as they were. The copies cost what cloning costs: a mesh's tiles are shared, a tile
/// cache's cached heightfields are copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldSnapshot {
    /// One per class, in class order.
    pub classes: Vec<ClassSnapshot>,
    /// `(grid id, OPGS bytes)`, ids ascending as given.
    pub grids: Vec<(u32, Vec<u8>)>,
    /// One ONCS per class, in class order; empty when taken without a crowd.
    pub crowds: Vec<Vec<u8>>,
}

fn broken(message: String) -> FormatError {
    FormatError::State {
        format: WORLD_STATE_FORMAT,
        message,
    }
}

impl WorldSnapshot {
    /// Takes the snapshot of `world`, the host's `grids` (id, grid; the ids the crowds'
    /// grid-guided agents name, ascending) and, when given, the crowd. The crowd's world
    /// resources (heightmap layers, platforms, voxel grids) are the host's and not in it.
    /// Taking a snapshot cannot fail.
    pub fn take(world: &NavWorld, grids: &[(u32, &Grid)], crowd: Option<&WorldCrowd>) -> Self {
        let classes = world
            .classes()
            .iter()
            .map(|c| match &c.store {
                Store::Plain(m) => {
                    ClassSnapshot::Mesh(NavMeshSnapshot::take(m, SnapshotMode::Full))
                }
                Store::Cached(t) => ClassSnapshot::TileCache(t.snapshot(SnapshotMode::Full)),
            })
            .collect();
        let grids = grids.iter().map(|(id, g)| (*id, g.save_state())).collect();
        let crowds = crowd.map_or_else(Vec::new, |c| {
            c.crowds().iter().map(Crowd::save_snapshot).collect()
        });
        WorldSnapshot {
            classes,
            grids,
            crowds,
        }
    }

    /// Restores the snapshot into the objects it was taken from (or ones made the same
    /// way: the same classes, each with or without a tile cache as then, the grids with the
    /// same ids and sizes, a crowd exactly when the snapshot has one).
    ///
    /// Every part is checked and restored off to the side first, in order (classes, grids,
    /// then the crowds against the restored meshes and grids): a mesh into a copy, a tile
    /// cache through its two-phase restore (`TileCache::prepare_restore_full`, which copies
    /// the cache's mesh but not its cached heightfields), a grid into a copy; only when
    /// every part succeeded are they installed. Errors: a part count, kind or grid id that does not match is
    /// [`FormatError::State`] (format `"world"`) naming it; a part's own error comes with
    /// the part named (`class 1`, `grid 7`, `crowd 0`); a world crowd not made for `world`
    /// is [`Error::NoSuchClass`] or [`Error::OtherWorld`] (`WorldCrowd`, "Its world"). On
    /// error nothing changes.
    ///
    /// The crowds are restored against the world resources registered on the given
    /// [`WorldCrowd`] (heightmap layers, moving platforms, voxel grids:
    /// [`WorldCrowd::set_heightmap`], [`WorldCrowd::set_platform`],
    /// [`WorldCrowd::set_voxel_grid`]), which the restore keeps: they are the host's, never
    /// in a snapshot, so the host registers them (platforms at their positions of the
    /// snapshot's step) before restoring. An agent riding a platform, or a flyer guided
    /// in a voxel grid, that the world crowd lacks fails the restore with
    /// [`Error::MissingContext`] naming the crowd, the agent and the id (a grid missing from
    /// `grids` the same way); nothing changes. A grounded agent whose layer is not
    /// registered restores all the same and fails to ground cleanly at its first update
    /// (`MissingLayer`), then grounds once the host registers the layer.
    pub fn restore(
        &self,
        world: &mut NavWorld,
        grids: &mut [(u32, &mut Grid)],
        crowd: Option<&mut WorldCrowd>,
    ) -> Result<()> {
        if let Some(c) = crowd.as_deref() {
            c.check_world(world)?;
        }
        if self.classes.len() != world.len() {
            return Err(broken(format!(
                "{} classes in the snapshot, {} in the world",
                self.classes.len(),
                world.len()
            ))
            .into());
        }
        // Classes.
        let mut stores = Vec::with_capacity(self.classes.len());
        for (i, (part, nav)) in self.classes.iter().zip(world.classes()).enumerate() {
            let at = |e: FormatError| e.within(format!("class {i}"));
            let store = match (part, &nav.store) {
                (ClassSnapshot::Mesh(b), Store::Plain(m)) => {
                    let mut m = m.clone();
                    NavMeshSnapshot::restore_full_in_place(&mut m, b).map_err(at)?;
                    Restored::Plain(m)
                }
                (ClassSnapshot::TileCache(b), Store::Cached(t)) => {
                    // Checked against the cache and its mesh restored into a copy of the
                    // mesh; the cached heightfields are not copied.
                    Restored::Cached(Box::new(t.prepare_restore_full(b).map_err(at)?))
                }
                (ClassSnapshot::Mesh(_), Store::Cached(_)) => {
                    return Err(broken(format!(
                        "class {i}: the snapshot holds a mesh, the class has a tile cache"
                    ))
                    .into())
                }
                (ClassSnapshot::TileCache(_), Store::Plain(_)) => {
                    return Err(broken(format!(
                        "class {i}: the snapshot holds a tile cache, the class has none"
                    ))
                    .into())
                }
            };
            stores.push(store);
        }
        // Grids.
        if self.grids.len() != grids.len() {
            return Err(broken(format!(
                "{} grids in the snapshot, {} given",
                self.grids.len(),
                grids.len()
            ))
            .into());
        }
        let mut restored_grids = Vec::with_capacity(grids.len());
        for ((id, bytes), (gid, grid)) in self.grids.iter().zip(grids.iter()) {
            if id != gid {
                return Err(
                    broken(format!("grid id {gid} given where the snapshot has {id}")).into(),
                );
            }
            let mut g = (**grid).clone();
            g.restore_state(bytes)
                .map_err(|e| e.within(format!("grid {id}")))?;
            restored_grids.push((*id, g));
        }
        // Crowds, against the restored meshes and grids.
        let mut new_crowds = Vec::new();
        let mut crowd = crowd;
        match (crowd.as_deref_mut(), self.crowds.is_empty()) {
            (None, true) => {}
            (None, false) => {
                return Err(broken("the snapshot holds crowds; no crowd given".to_string()).into())
            }
            (Some(_), true) => {
                return Err(broken("a crowd given; the snapshot holds none".to_string()).into())
            }
            (Some(c), false) => {
                let (old_crowds, host) = c.split();
                if self.crowds.len() != old_crowds.len() {
                    return Err(broken(format!(
                        "{} crowds in the snapshot, {} in the world crowd",
                        self.crowds.len(),
                        old_crowds.len()
                    ))
                    .into());
                }
                let grid_refs: Vec<(u32, &Grid)> =
                    restored_grids.iter().map(|(id, g)| (*id, g)).collect();
                for (i, ((bytes, old), store)) in
                    self.crowds.iter().zip(old_crowds).zip(&stores).enumerate()
                {
                    let mesh = match store {
                        Restored::Plain(m) => &**m,
                        Restored::Cached(p) => p.mesh(),
                    };
                    let mut fresh = Crowd::new(*old.settings())?;
                    let ctx = host.context(mesh, &grid_refs);
                    fresh.restore_snapshot(&ctx, bytes).map_err(|e| match e {
                        CrowdError::State(f) => Error::Format(f.within(format!("crowd {i}"))),
                        CrowdError::UnknownContext { agent, what, id } => Error::MissingContext {
                            class: i,
                            agent,
                            what,
                            id,
                        },
                        other => Error::Crowd(other),
                    })?;
                    new_crowds.push(fresh);
                }
            }
        }
        // Every part is good: swap them in (grids first: their restore is the only step
        // that returns a Result, and it was checked on a copy).
        for ((_, grid), (id, g)) in grids.iter_mut().zip(&self.grids) {
            // The same bytes were restored into a copy of this very grid above, so this
            // cannot fail; the grid's own restore keeps its listeners and tells them.
            grid.restore_state(g)
                .map_err(|e| e.within(format!("grid {id}")))?;
        }
        for (nav, restored) in world.classes_mut().iter_mut().zip(stores) {
            match (restored, &mut nav.store) {
                (Restored::Plain(m), store) => *store = Store::Plain(m),
                (Restored::Cached(p), Store::Cached(t)) => t
                    .apply_restore(*p)
                    .expect("a restore prepared from this very tile cache"),
                (Restored::Cached(_), Store::Plain(_)) => {
                    unreachable!("a tile cache part was checked against a class with a cache")
                }
            }
        }
        if let Some(c) = crowd {
            c.replace_crowds(new_crowds);
        }
        Ok(())
    }
}
