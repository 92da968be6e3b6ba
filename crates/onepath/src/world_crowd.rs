//! [`WorldCrowd`]: one [`Crowd`] per agent class of a [`NavWorld`], stepped in class order.

use onepath_crowd::{Agent, AgentId, AgentParams, Crowd, CrowdSettings, UpdateStats, WorldContext};
use onepath_gridstate::Grid;

use crate::error::{Error, Result};
use crate::world::NavWorld;

/// An agent of a [`WorldCrowd`]: its class (the mesh and crowd it belongs to) and its id in
/// that class's crowd.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorldAgent {
    /// The agent class.
    pub class: usize,
    /// The id in the class's crowd.
    pub id: AgentId,
}

/// One crowd per agent class. Agents of different classes walk different meshes and do not
/// see each other (no avoidance, no collision between them); [`WorldCrowd::update`] steps
/// the crowds in class order, each over its own class's mesh.
#[derive(Debug)]
pub struct WorldCrowd {
    crowds: Vec<Crowd>,
}

impl WorldCrowd {
    /// One crowd with these settings per class of `world`.
    pub fn new(world: &NavWorld, settings: CrowdSettings) -> Result<Self> {
        let crowds = (0..world.len())
            .map(|_| Crowd::new(settings))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(WorldCrowd { crowds })
    }

    /// The crowds, in class order.
    pub fn crowds(&self) -> &[Crowd] {
        &self.crowds
    }

    /// The crowd of a class.
    pub fn crowd(&self, class: usize) -> Result<&Crowd> {
        let count = self.crowds.len();
        self.crowds
            .get(class)
            .ok_or(Error::NoSuchClass { class, count })
    }

    /// The crowd of a class, mutable (the lower API: steering, platforms, paths).
    pub fn crowd_mut(&mut self, class: usize) -> Result<&mut Crowd> {
        let count = self.crowds.len();
        self.crowds
            .get_mut(class)
            .ok_or(Error::NoSuchClass { class, count })
    }

    fn check_world(&self, world: &NavWorld) -> Result<()> {
        if world.len() != self.crowds.len() {
            return Err(Error::NoSuchClass {
                class: self.crowds.len().min(world.len()),
                count: world.len(),
            });
        }
        Ok(())
    }

    /// Adds an agent at the point of its class's mesh nearest `position`; the class is
    /// [`NavWorld::class_for`] of `params.radius`. Nothing changes on error.
    pub fn add_agent(
        &mut self,
        world: &NavWorld,
        position: impl Into<[f64; 3]>,
        params: AgentParams,
    ) -> Result<WorldAgent> {
        self.check_world(world)?;
        let class = world.class_for(params.radius);
        let mesh = world.class(class)?.mesh();
        let id = self.crowds[class].add_agent(mesh, position.into(), params)?;
        Ok(WorldAgent { class, id })
    }

    /// Removes an agent.
    pub fn remove_agent(&mut self, agent: WorldAgent) -> Result<()> {
        Ok(self.crowd_mut(agent.class)?.remove_agent(agent.id)?)
    }

    /// The agent, if it exists.
    pub fn agent(&self, agent: WorldAgent) -> Option<&Agent> {
        self.crowds.get(agent.class)?.agent(agent.id)
    }

    /// Asks the agent to walk to the point of its class's mesh nearest `target` (within the
    /// class mesh's search extents); off the mesh is [`Error::NotOnMesh`].
    pub fn request_move_target(
        &mut self,
        world: &NavWorld,
        agent: WorldAgent,
        target: impl Into<[f64; 3]>,
    ) -> Result<()> {
        self.check_world(world)?;
        let nav = world.class(agent.class)?;
        let target = target.into();
        let on = nav.nearest(target)?.ok_or(Error::NotOnMesh {
            what: "target",
            point: target,
            half_extents: nav.search_extents(),
        })?;
        Ok(self.crowds[agent.class].request_move_target(agent.id, on.poly, on.point)?)
    }

    /// One fixed step of `dt` seconds of every crowd, in class order, each over its class's
    /// mesh. A bad `dt` fails before any crowd moves. Returns each crowd's statistics.
    pub fn update(&mut self, world: &NavWorld, dt: f64) -> Result<Vec<UpdateStats>> {
        self.update_with_grids(world, &[], dt)
    }

    /// [`WorldCrowd::update`] with the host's grids (id, grid; ids ascending) that
    /// grid-guided agents plan on.
    pub fn update_with_grids(
        &mut self,
        world: &NavWorld,
        grids: &[(u32, &Grid)],
        dt: f64,
    ) -> Result<Vec<UpdateStats>> {
        self.check_world(world)?;
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(Error::Crowd(onepath_crowd::CrowdError::NotFinite {
                what: "dt",
            }));
        }
        let mut stats = Vec::with_capacity(self.crowds.len());
        for (crowd, nav) in self.crowds.iter_mut().zip(world.classes()) {
            let ctx = WorldContext {
                mesh: nav.mesh(),
                platforms: &[],
                grids,
                voxels: &[],
                heightmaps: &[],
            };
            stats.push(crowd.update(&ctx, dt)?);
        }
        Ok(stats)
    }

    pub(crate) fn replace_crowds(&mut self, crowds: Vec<Crowd>) {
        self.crowds = crowds;
    }

    /// Every crowd's state bytes ([`Crowd::write_state`]), class after class, each behind its
    /// class index (u32).
    pub fn write_state(&self, out: &mut Vec<u8>) {
        for (i, c) in self.crowds.iter().enumerate() {
            out.extend_from_slice(&(i as u32).to_le_bytes());
            c.write_state(out);
        }
    }
}
