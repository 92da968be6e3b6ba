//! [`WorldCrowd`]: one [`Crowd`] per agent class of a [`NavWorld`], stepped in class order,
//! with the host's heightmap layers that grounded agents put their feet on.

use std::sync::Arc;

use onepath_crowd::{
    Agent, AgentId, AgentParams, Crowd, CrowdSettings, Heightmap, HeightmapGrounding, LayerName,
    UpdateStats, WorldContext,
};
use onepath_gridstate::Grid;

use crate::error::{Error, Result};
use crate::world::NavWorld;

/// Layers as a [`WorldContext::heightmaps`] list: their order (ascending by name) kept.
fn layer_refs(layers: &[(LayerName, Arc<Heightmap>)]) -> Vec<(&str, &Heightmap)> {
    layers.iter().map(|(n, h)| (n.as_str(), &**h)).collect()
}

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
///
/// **Heightmap layers.** The host registers the terrain layers that agents with heightmap
/// grounding ([`WorldCrowd::configure_heightmap_grounding`]) put their feet on by name
/// ([`WorldCrowd::set_heightmap`]); every class's crowd sees the same layers, at every
/// update and at a [`WorldSnapshot::restore`](crate::WorldSnapshot::restore) into this
/// world crowd. A layer is a world resource the host owns (held as an [`Arc`], so a host
/// shares it with its renderer or physics without copying): it is never in a snapshot,
/// and a restore keeps the layers registered here. An agent whose layer is not registered
/// fails to ground cleanly ([`crowd::GroundingStatus::MissingLayer`](crate::crowd::GroundingStatus::MissingLayer),
/// counted in [`UpdateStats::grounding_missing_layers`]) and walks on the mesh
/// (`docs/crowd.md`, "Heightmap grounding").
///
/// ```
/// use std::sync::Arc;
/// use onepath::build::TriangleSoup;
/// use onepath::crowd::{AgentParams, CrowdSettings, GroundingMode, GroundingStatus};
/// use onepath::crowd::{Heightmap, HeightmapGrounding};
/// use onepath::prelude::*;
///
/// let floor = TriangleSoup {
///     vertices: vec![[0.0, 0.0, 0.0], [0.0, 0.0, 20.0], [20.0, 0.0, 20.0], [20.0, 0.0, 0.0]],
///     triangles: vec![[0, 1, 2], [0, 2, 3]],
///     areas: None,
/// };
/// let world = NavWorld::build(&[NavSettings::default()], &floor)?;
/// let mut crowd = WorldCrowd::new(&world, CrowdSettings::default())?;
/// // Terrain 0.2 above the floor, 21 × 21 samples one unit apart.
/// let terrain = Heightmap::new([0.0, 0.0], 1.0, 21, 21, vec![0.2; 21 * 21])?;
/// crowd.set_heightmap("terrain", Arc::new(terrain))?;
/// let agent = crowd.add_agent(&world, [3.0, 0.0, 3.0], AgentParams::new(0.4))?;
/// let grounding = HeightmapGrounding::new(GroundingMode::Always).with_preferred_layer("terrain")?;
/// crowd.configure_heightmap_grounding(agent, grounding)?;
/// crowd.update(&world, 1.0 / 30.0)?;
/// let g = crowd.agent(agent).unwrap().navigator().grounding;
/// assert_eq!(g.status(), GroundingStatus::Grounded);
/// assert!((g.foot_height().unwrap() - 0.2).abs() < 1e-6);
/// # Ok::<(), onepath::Error>(())
/// ```
#[derive(Debug)]
pub struct WorldCrowd {
    crowds: Vec<Crowd>,
    /// The host's heightmap layers, ascending by name (byte order), names unique.
    heightmaps: Vec<(LayerName, Arc<Heightmap>)>,
}

impl WorldCrowd {
    /// One crowd with these settings per class of `world`.
    pub fn new(world: &NavWorld, settings: CrowdSettings) -> Result<Self> {
        let crowds = (0..world.len())
            .map(|_| Crowd::new(settings))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(WorldCrowd {
            crowds,
            heightmaps: Vec::new(),
        })
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

    /// Registers `layer` as the heightmap layer `name` (1 to 32 bytes of UTF-8, else
    /// [`onepath_crowd::CrowdError::InvalidLayerName`]; nothing changes on error), for
    /// every class's crowd from the next update on. A layer already registered under
    /// `name` is replaced and returned.
    pub fn set_heightmap(
        &mut self,
        name: &str,
        layer: Arc<Heightmap>,
    ) -> Result<Option<Arc<Heightmap>>> {
        let name = LayerName::new(name)?;
        match self.find_heightmap(name.as_str()) {
            Ok(i) => Ok(Some(std::mem::replace(&mut self.heightmaps[i].1, layer))),
            Err(i) => {
                self.heightmaps.insert(i, (name, layer));
                Ok(None)
            }
        }
    }

    /// Unregisters the heightmap layer `name` and returns it (`None` when there is none).
    /// Agents grounded on it fail to ground from the next update on, unless another layer
    /// of theirs is registered.
    pub fn remove_heightmap(&mut self, name: &str) -> Option<Arc<Heightmap>> {
        let i = self.find_heightmap(name).ok()?;
        Some(self.heightmaps.remove(i).1)
    }

    /// The heightmap layer registered as `name`.
    pub fn heightmap(&self, name: &str) -> Option<&Arc<Heightmap>> {
        let i = self.find_heightmap(name).ok()?;
        Some(&self.heightmaps[i].1)
    }

    /// The registered heightmap layers (name, layer), ascending by name (byte order).
    pub fn heightmaps(&self) -> impl Iterator<Item = (&str, &Arc<Heightmap>)> {
        self.heightmaps.iter().map(|(n, h)| (n.as_str(), h))
    }

    fn find_heightmap(&self, name: &str) -> std::result::Result<usize, usize> {
        self.heightmaps
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
    }

    /// The registered layers as a [`WorldContext::heightmaps`] list (ascending, unique).
    pub(crate) fn heightmap_refs(&self) -> Vec<(&str, &Heightmap)> {
        layer_refs(&self.heightmaps)
    }

    /// Configures the agent's heightmap grounding ([`Crowd::configure_heightmap_grounding`]:
    /// mode, preferred and active layer, ground offset, snap tolerance); its layers are
    /// looked up among the ones registered here at each update. Nothing changes on error.
    pub fn configure_heightmap_grounding(
        &mut self,
        agent: WorldAgent,
        grounding: HeightmapGrounding,
    ) -> Result<()> {
        Ok(self
            .crowd_mut(agent.class)?
            .configure_heightmap_grounding(agent.id, grounding)?)
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
    /// mesh and the registered heightmap layers. A bad `dt` fails before any crowd moves.
    /// Returns each crowd's statistics.
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
        let layers = layer_refs(&self.heightmaps);
        let mut stats = Vec::with_capacity(self.crowds.len());
        for (crowd, nav) in self.crowds.iter_mut().zip(world.classes()) {
            let ctx = WorldContext {
                mesh: nav.mesh(),
                platforms: &[],
                grids,
                voxels: &[],
                heightmaps: &layers,
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
