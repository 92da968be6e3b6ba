//! [`WorldCrowd`]: one [`Crowd`] per agent class of a [`NavWorld`], stepped in class order,
//! with the host's world resources every class's crowd binds to: heightmap layers (by
//! name), moving platforms and voxel grids (by stable id).

use std::sync::{Arc, Mutex, PoisonError};

use onepath_crowd::{
    Agent, AgentId, AgentParams, Crowd, CrowdSettings, Heightmap, HeightmapGrounding, LayerName,
    LocomotionHandler, PathRequest, UpdateStats, WorldContext,
};
use onepath_format::NavMeshParams;
use onepath_gridstate::{Grid, GridError, VoxelGrid};
use onepath_mesh::TiledNavMesh;

use crate::error::{Error, Result};
use crate::world::NavWorld;

/// Layers as a [`WorldContext::heightmaps`] list, written into `out` (emptied first): their
/// order (ascending by name) kept.
fn layer_refs<'a>(
    layers: &'a [(LayerName, Arc<Heightmap>)],
    mut out: Vec<(&'a str, &'a Heightmap)>,
) -> Vec<(&'a str, &'a Heightmap)> {
    out.clear();
    out.extend(layers.iter().map(|(n, h)| (n.as_str(), &**h)));
    out
}

/// Voxel grids as a [`WorldContext::voxels`] list, written into `out` (emptied first): their
/// order (ascending by id) kept. The locks are not taken: `&mut` reaches the grids directly.
fn voxel_refs<'a>(
    voxels: &'a mut [(u32, Mutex<VoxelGrid>)],
    mut out: Vec<(u32, &'a VoxelGrid)>,
) -> Vec<(u32, &'a VoxelGrid)> {
    out.clear();
    out.extend(
        voxels
            .iter_mut()
            .map(|(id, g)| (*id, &*g.get_mut().unwrap_or_else(PoisonError::into_inner))),
    );
    out
}

/// An empty vector holding `v`'s allocation, for elements of another type of the same size
/// and alignment (the lists of borrowed world resources, kept between calls as lists of
/// plain words: a [`WorldCrowd`] cannot hold borrows of itself, nor references to its voxel
/// grids, which are not `Sync`). Safe code: the vector is emptied, and collecting an empty
/// `Vec` iterator into a vector of a same-layout type reuses its buffer (the standard
/// library's in-place collection); nothing is read or written through it.
fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

/// The buffers of the world context lists the facade builds at every update and request,
/// kept empty between calls so that a step allocates nothing for them once they are as
/// large as the host's resources (`(u32, &VoxelGrid)` and `(&str, &Heightmap)` as words of
/// the same size and alignment, see [`recycle`]).
#[derive(Debug, Default)]
struct Scratch {
    voxels: Vec<(u32, usize)>,
    layers: Vec<[usize; 3]>,
}

impl Scratch {
    /// Takes the buffers back from a context's lists (emptied).
    fn keep(&mut self, parts: HostParts<'_>) {
        self.voxels = recycle(parts.voxels);
        self.layers = recycle(parts.layers);
    }
}

/// The host's world resources of a [`WorldCrowd`], borrowed as the lists a
/// [`WorldContext`] takes (each ascending by its key, keys unique).
pub(crate) struct HostParts<'a> {
    platforms: &'a [(u32, [f64; 3])],
    voxels: Vec<(u32, &'a VoxelGrid)>,
    layers: Vec<(&'a str, &'a Heightmap)>,
}

impl<'a> HostParts<'a> {
    /// The world context of one class: its mesh, the host's grids and these parts.
    pub(crate) fn context<'c>(
        &'c self,
        mesh: &'c TiledNavMesh,
        grids: &'c [(u32, &'c Grid)],
    ) -> WorldContext<'c> {
        WorldContext {
            mesh,
            platforms: self.platforms,
            grids,
            voxels: &self.voxels,
            heightmaps: &self.layers,
        }
    }
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

/// One crowd per agent class, with the host's world resources every class's crowd binds to.
/// Agents of different classes walk different meshes and do not see each other (no
/// avoidance, no collision between them); [`WorldCrowd::update`] steps the crowds in class
/// order, each over its own class's mesh.
///
/// **Its world.** A world crowd belongs to the [`NavWorld`] it was made with
/// ([`WorldCrowd::new`] records each class's mesh parameters: the settings digest and the
/// parameter block its build fingerprint covers). Every call that takes a `world` refuses
/// another one before anything moves: another class count is [`Error::NoSuchClass`], a
/// class built with other settings [`Error::OtherWorld`] naming the class and both
/// fingerprints. The same world saved and loaded again (or restored from a
/// [`WorldSnapshot`](crate::WorldSnapshot)) is the same world.
///
/// **World resources.** The crowd's world context (`docs/crowd.md`, "World context") is the
/// host's: what agents refer to by stable id (or name), registered here once and shared by
/// every class's crowd, at every update, path request and
/// [`WorldSnapshot::restore`](crate::WorldSnapshot::restore) into this world crowd. They are
/// never in a snapshot, and a restore keeps the ones registered here. Each kind has the same
/// four calls: `set_*` (add, or replace and return the old one; a bad value is refused
/// naming it and nothing changes), `remove_*`, a getter and a listing in key order.
/// - **Heightmap layers** ([`WorldCrowd::set_heightmap`], by name): the terrain agents with
///   heightmap grounding ([`WorldCrowd::configure_heightmap_grounding`]) put their feet on,
///   held as an [`Arc`] so a host shares it with its renderer or physics without copying.
///   An agent whose layer is not registered fails to ground cleanly
///   ([`crowd::GroundingStatus::MissingLayer`](crate::crowd::GroundingStatus::MissingLayer),
///   counted in [`UpdateStats::grounding_missing_layers`]) and walks on the mesh
///   (`docs/crowd.md`, "Heightmap grounding").
/// - **Moving platforms** ([`WorldCrowd::set_platform`], by id): a lift, a ferry, a train car
///   the host moves. The host sets each platform's position for the step before
///   [`WorldCrowd::update`]; an agent attached to it ([`WorldCrowd::attach_platform`], with
///   the Platform locomotion installed) moves by the platform's displacement since the
///   last update. A removed platform detaches its riders at the next update.
/// - **Voxel grids** ([`WorldCrowd::set_voxel_grid`], by id): the air flyers plan in
///   (an agent with the Fly locomotion and a [`PathRequestKind::Voxel`](crate::crowd::PathRequestKind::Voxel)
///   request, [`WorldCrowd::request_path`]). Owned here; the host edits one through
///   [`WorldCrowd::voxel_grid_mut`].
///
/// The host's 2D grids (grid-guided agents, flow fields) stay the host's and are passed to
/// each call ([`WorldCrowd::update_with_grids`]), as [`WorldSnapshot`](crate::WorldSnapshot)
/// saves and restores them.
///
/// ```
/// use std::sync::Arc;
/// use onepath::crowd::{GroundingMode, GroundingStatus, Heightmap, HeightmapGrounding};
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
///
/// A rider on a platform the host moves one unit along X per step:
///
/// ```
/// use onepath::prelude::*;
///
/// let floor = TriangleSoup {
///     vertices: vec![[0.0, 0.0, 0.0], [0.0, 0.0, 20.0], [20.0, 0.0, 20.0], [20.0, 0.0, 0.0]],
///     triangles: vec![[0, 1, 2], [0, 2, 3]],
///     areas: None,
/// };
/// let world = NavWorld::build(&[NavSettings::default()], &floor)?;
/// let mut crowd = WorldCrowd::new(&world, CrowdSettings::default())?;
/// let rider = crowd.add_agent_with(
///     &world,
///     [3.0, 0.0, 10.0],
///     AgentParams::new(0.4),
///     LocomotionHandler::with_all_modes(),
/// )?;
/// crowd.set_platform(1, [3.0, 0.0, 10.0])?;
/// crowd.attach_platform(&world, rider, 1)?;
/// for step in 1..=10 {
///     crowd.set_platform(1, [3.0 + f64::from(step), 0.0, 10.0])?;
///     crowd.update(&world, 1.0 / 30.0)?;
/// }
/// assert!((crowd.agent(rider).unwrap().position()[0] - 13.0).abs() < 1e-9);
/// // A position that is not a world coordinate is refused, naming the platform.
/// assert!(matches!(
///     crowd.set_platform(1, [f64::NAN, 0.0, 10.0]),
///     Err(Error::Coordinate(e)) if e.what == "platform 1.x"
/// ));
/// assert_eq!(crowd.platform(1), Some([13.0, 0.0, 10.0]));
/// # Ok::<(), onepath::Error>(())
/// ```
#[derive(Debug)]
pub struct WorldCrowd {
    crowds: Vec<Crowd>,
    host: Host,
    /// The buffers of the world context lists (never state).
    scratch: Scratch,
    /// The mesh parameters of each class of the world the crowd was made for (what
    /// identifies a class: its settings digest and parameter block).
    classes: Vec<NavMeshParams>,
}

// A game engine keeps a `WorldCrowd` as a shared resource: it stays `Send` and `Sync`
// (checked at compile time).
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<WorldCrowd>();
};

/// The host's grids must ascend by id, each id once (the crowds look them up by binary
/// search): else [`GridError::Invalid`] at `grids` naming the two ids.
fn check_grid_ids(grids: &[(u32, &Grid)]) -> Result<()> {
    for w in grids.windows(2) {
        if w[0].0 >= w[1].0 {
            return Err(Error::Grid(GridError::Invalid {
                what: "grids",
                reason: format!(
                    "grid ids must ascend, each once: id {} follows id {}",
                    w[1].0, w[0].0
                ),
            }));
        }
    }
    Ok(())
}

/// The host's world resources of a [`WorldCrowd`]: shared by every class's crowd, never in
/// a snapshot. Each list ascending by its key, keys unique.
#[derive(Debug, Default)]
struct Host {
    /// Heightmap layers by name (byte order).
    heightmaps: Vec<(LayerName, Arc<Heightmap>)>,
    /// Moving platforms (id, position this step).
    platforms: Vec<(u32, [f64; 3])>,
    /// Voxel grids by id. A voxel grid is `Send` but not `Sync` (its edit listeners are
    /// `Send` closures), so each sits behind a lock to keep [`WorldCrowd`] `Sync` (a game
    /// engine's shared resource); the crowd's own calls take `&mut` and never lock.
    voxels: Vec<(u32, Mutex<VoxelGrid>)>,
}

impl Host {
    /// The resources as the lists a [`WorldContext`] takes (in new buffers).
    fn parts(&mut self) -> HostParts<'_> {
        HostParts {
            platforms: &self.platforms,
            voxels: voxel_refs(&mut self.voxels, Vec::new()),
            layers: layer_refs(&self.heightmaps, Vec::new()),
        }
    }

    /// [`Host::parts`] in the buffers of `scratch` (give them back with [`Scratch::keep`]).
    fn parts_in(&mut self, scratch: &mut Scratch) -> HostParts<'_> {
        HostParts {
            platforms: &self.platforms,
            voxels: voxel_refs(
                &mut self.voxels,
                recycle(std::mem::take(&mut scratch.voxels)),
            ),
            layers: layer_refs(
                &self.heightmaps,
                recycle(std::mem::take(&mut scratch.layers)),
            ),
        }
    }
}

/// The key's slot in a list ascending by key: `Ok(i)` holds it, `Err(i)` is where it goes.
fn find<K: Ord + ?Sized, T>(list: &[T], key: &K, of: impl Fn(&T) -> &K) -> Result<usize, usize> {
    list.binary_search_by(|e| of(e).cmp(key))
}

impl WorldCrowd {
    /// One crowd with these settings per class of `world`, and no world resources yet; the
    /// world crowd is `world`'s from now on (its calls refuse another world:
    /// [`Error::OtherWorld`]). Settings the crowd refuses are [`Error::Crowd`] naming the
    /// setting.
    pub fn new(world: &NavWorld, settings: CrowdSettings) -> Result<Self> {
        let crowds = (0..world.len())
            .map(|_| Crowd::new(settings))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(WorldCrowd {
            crowds,
            host: Host::default(),
            scratch: Scratch::default(),
            classes: world.classes().iter().map(|c| *c.mesh().params()).collect(),
        })
    }

    /// The crowds, in class order.
    pub fn crowds(&self) -> &[Crowd] {
        &self.crowds
    }

    /// The crowd of a class; out of range is [`Error::NoSuchClass`].
    pub fn crowd(&self, class: usize) -> Result<&Crowd> {
        let count = self.crowds.len();
        self.crowds
            .get(class)
            .ok_or(Error::NoSuchClass { class, count })
    }

    /// The crowd of a class, mutable, for the lower API (steering and turning tuning,
    /// agent parameters, saving agent records); out of range is [`Error::NoSuchClass`].
    /// Calls that take a [`WorldContext`] have a facade form here that passes the world
    /// resources registered on this world crowd (update, attach_platform, request_path), or
    /// go through [`WorldCrowd::with_context`].
    pub fn crowd_mut(&mut self, class: usize) -> Result<&mut Crowd> {
        let count = self.crowds.len();
        self.crowds
            .get_mut(class)
            .ok_or(Error::NoSuchClass { class, count })
    }

    /// `world` must be the world the crowd was made for: the same class count
    /// ([`Error::NoSuchClass`]) and per class the same mesh parameters (bitwise, settings
    /// digest included: [`Error::OtherWorld`] naming the first class that differs).
    pub(crate) fn check_world(&self, world: &NavWorld) -> Result<()> {
        if world.len() != self.crowds.len() {
            return Err(Error::NoSuchClass {
                class: self.crowds.len().min(world.len()),
                count: world.len(),
            });
        }
        for (class, (made, nav)) in self.classes.iter().zip(world.classes()).enumerate() {
            let given = nav.mesh().params();
            if !made.bitwise_eq(given) {
                return Err(Error::OtherWorld {
                    class,
                    expected: made.fingerprint(),
                    found: given.fingerprint(),
                });
            }
        }
        Ok(())
    }

    /// Adds an agent with the Move and Fall locomotions at the point of its class's mesh
    /// nearest `position`; the class is [`NavWorld::class_for`] of `params.radius`. Errors:
    /// a `world` of another class count ([`Error::NoSuchClass`]) or another build ([`Error::OtherWorld`]), a position that is not a
    /// world coordinate ([`Error::Coordinate`] naming it, `position.x`), parameters the
    /// crowd refuses, a full crowd or a position off the mesh ([`Error::Crowd`]). Nothing
    /// changes on error.
    pub fn add_agent(
        &mut self,
        world: &NavWorld,
        position: impl Into<[f64; 3]>,
        params: AgentParams,
    ) -> Result<WorldAgent> {
        self.add_agent_with(world, position, params, LocomotionHandler::new())
    }

    /// [`WorldCrowd::add_agent`] with the given locomotion modes
    /// ([`LocomotionHandler::with_all_modes`], or [`LocomotionHandler::new`] with the
    /// optional modes set): the Platform mode to ride platforms, the Fly mode to follow voxel
    /// paths, Jump, Climb, Slide, Water for off-mesh links and areas. A handler the crowd
    /// refuses is [`Error::Crowd`] naming the value; nothing changes on error.
    pub fn add_agent_with(
        &mut self,
        world: &NavWorld,
        position: impl Into<[f64; 3]>,
        params: AgentParams,
        locomotion: LocomotionHandler,
    ) -> Result<WorldAgent> {
        self.check_world(world)?;
        let position = position.into();
        NavMeshParams::check_point("position", position)?;
        let class = world.class_for(params.radius);
        let mesh = world.class(class)?.mesh();
        let id = self.crowds[class].add_agent_with(mesh, position, params, locomotion)?;
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
        let layers = &mut self.host.heightmaps;
        match find(layers, name.as_str(), |(n, _)| n.as_str()) {
            Ok(i) => Ok(Some(std::mem::replace(&mut layers[i].1, layer))),
            Err(i) => {
                layers.insert(i, (name, layer));
                Ok(None)
            }
        }
    }

    /// Unregisters the heightmap layer `name` and returns it (`None` when there is none).
    /// Agents grounded on it fail to ground from the next update on, unless another layer
    /// of theirs is registered.
    pub fn remove_heightmap(&mut self, name: &str) -> Option<Arc<Heightmap>> {
        let layers = &mut self.host.heightmaps;
        let i = find(layers, name, |(n, _)| n.as_str()).ok()?;
        Some(layers.remove(i).1)
    }

    /// The heightmap layer registered as `name`.
    pub fn heightmap(&self, name: &str) -> Option<&Arc<Heightmap>> {
        let layers = &self.host.heightmaps;
        let i = find(layers, name, |(n, _)| n.as_str()).ok()?;
        Some(&layers[i].1)
    }

    /// The registered heightmap layers (name, layer), ascending by name (byte order).
    pub fn heightmaps(&self) -> impl Iterator<Item = (&str, &Arc<Heightmap>)> {
        self.host.heightmaps.iter().map(|(n, h)| (n.as_str(), h))
    }

    /// Places the moving platform `id` at `position` for the next update: adds it, or moves
    /// it and returns where it was. The host calls this for each platform it moves before
    /// each [`WorldCrowd::update`]; riders move by the platform's displacement since the
    /// update before. A position that is not a world coordinate (finite, within ±2^21) is
    /// [`Error::Coordinate`] naming `platform {id}.x` (`.y`, `.z`); nothing changes on
    /// error.
    pub fn set_platform(
        &mut self,
        id: u32,
        position: impl Into<[f64; 3]>,
    ) -> Result<Option<[f64; 3]>> {
        let position = position.into();
        NavMeshParams::check_point(&format!("platform {id}"), position)?;
        let platforms = &mut self.host.platforms;
        match find(platforms, &id, |(k, _)| k) {
            Ok(i) => Ok(Some(std::mem::replace(&mut platforms[i].1, position))),
            Err(i) => {
                platforms.insert(i, (id, position));
                Ok(None)
            }
        }
    }

    /// Removes the platform `id` and returns its position (`None` when there is none). Its
    /// riders are detached at the next update and stand where they are (`docs/crowd.md`,
    /// "Platforms").
    pub fn remove_platform(&mut self, id: u32) -> Option<[f64; 3]> {
        let platforms = &mut self.host.platforms;
        let i = find(platforms, &id, |(k, _)| k).ok()?;
        Some(platforms.remove(i).1)
    }

    /// The position of the platform `id`, as last set.
    pub fn platform(&self, id: u32) -> Option<[f64; 3]> {
        let platforms = &self.host.platforms;
        let i = find(platforms, &id, |(k, _)| k).ok()?;
        Some(platforms[i].1)
    }

    /// The platforms (id, position), ascending by id.
    pub fn platforms(&self) -> impl Iterator<Item = (u32, [f64; 3])> + '_ {
        self.host.platforms.iter().copied()
    }

    /// Registers `grid` as the voxel grid `id` that flyers plan in, for every class's crowd
    /// from the next update on; a grid already registered as `id` is replaced and returned.
    /// Voxel (x, y, z) spans `origin + [x, x + 1) × cell` of the grid's
    /// [`VoxelSpace`](crate::grid::VoxelSpace) on the world's X, Y and Z. Flyers guided on
    /// a replaced grid keep their path; a new request plans on the new grid.
    pub fn set_voxel_grid(&mut self, id: u32, grid: VoxelGrid) -> Option<VoxelGrid> {
        let voxels = &mut self.host.voxels;
        match find(voxels, &id, |(k, _)| k) {
            Ok(i) => {
                let old = std::mem::replace(&mut voxels[i].1, Mutex::new(grid));
                Some(old.into_inner().unwrap_or_else(PoisonError::into_inner))
            }
            Err(i) => {
                voxels.insert(i, (id, Mutex::new(grid)));
                None
            }
        }
    }

    /// Unregisters the voxel grid `id` and returns it (`None` when there is none). Flyers
    /// whose request still waits for a path on it get no path (`NoPath`).
    pub fn remove_voxel_grid(&mut self, id: u32) -> Option<VoxelGrid> {
        let voxels = &mut self.host.voxels;
        let i = find(voxels, &id, |(k, _)| k).ok()?;
        Some(
            voxels
                .remove(i)
                .1
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// The voxel grid `id`. It takes `&mut self` because the grid sits behind a lock that
    /// keeps [`WorldCrowd`] `Sync` (see the struct): `&mut` reaches it without locking, so
    /// no read can block.
    pub fn voxel_grid(&mut self, id: u32) -> Option<&VoxelGrid> {
        self.voxel_grid_mut(id).map(|g| &*g)
    }

    /// The voxel grid `id`, to edit (walls that open and close, `VoxelGrid::set_area`).
    pub fn voxel_grid_mut(&mut self, id: u32) -> Option<&mut VoxelGrid> {
        let voxels = &mut self.host.voxels;
        let i = find(voxels, &id, |(k, _)| k).ok()?;
        Some(
            voxels[i]
                .1
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// The ids of the registered voxel grids, ascending.
    pub fn voxel_grid_ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.host.voxels.iter().map(|(id, _)| *id)
    }

    /// The crowds (class order) and the host's world resources as context lists, for a
    /// [`WorldSnapshot::restore`](crate::WorldSnapshot::restore).
    pub(crate) fn split(&mut self) -> (&[Crowd], HostParts<'_>) {
        (&self.crowds, self.host.parts())
    }

    /// Configures the agent's heightmap grounding ([`Crowd::configure_heightmap_grounding`]:
    /// mode, preferred and active layer, ground offset, snap tolerance); its layers are
    /// looked up among the ones registered here at each update. An agent of no class is
    /// [`Error::NoSuchClass`], an unknown agent [`Error::Crowd`]; nothing changes on error.
    pub fn configure_heightmap_grounding(
        &mut self,
        agent: WorldAgent,
        grounding: HeightmapGrounding,
    ) -> Result<()> {
        Ok(self
            .crowd_mut(agent.class)?
            .configure_heightmap_grounding(agent.id, grounding)?)
    }

    /// Attaches the agent to the registered platform `platform` ([`Crowd::attach_platform`]):
    /// from the next update on it moves with the platform, keeping its offset from it,
    /// until [`WorldCrowd::detach_platform`] or the platform's removal. Errors: an agent of
    /// no class ([`Error::NoSuchClass`]), an unknown agent, no platform `platform`
    /// registered (`CrowdError::UnknownContext` naming the platform id), or an agent
    /// without the Platform locomotion (`CrowdError::InvalidSetting` naming the mode; both
    /// [`Error::Crowd`]). Nothing changes on error.
    pub fn attach_platform(
        &mut self,
        world: &NavWorld,
        agent: WorldAgent,
        platform: u32,
    ) -> Result<()> {
        self.with_context(world, agent.class, &[], |crowd, ctx| {
            crowd.attach_platform(ctx, agent.id, platform)
        })??;
        Ok(())
    }

    /// Detaches the agent from its platform: it walks again from where it stands. An agent
    /// not on a platform stays as it is. An agent of no class is [`Error::NoSuchClass`], an
    /// unknown agent [`Error::Crowd`].
    pub fn detach_platform(&mut self, agent: WorldAgent) -> Result<()> {
        Ok(self.crowd_mut(agent.class)?.detach_platform(agent.id)?)
    }

    /// Removes an agent (its id is never handed out again). An agent of no class is
    /// [`Error::NoSuchClass`], an unknown agent [`Error::Crowd`].
    pub fn remove_agent(&mut self, agent: WorldAgent) -> Result<()> {
        Ok(self.crowd_mut(agent.class)?.remove_agent(agent.id)?)
    }

    /// The agent, if it exists.
    pub fn agent(&self, agent: WorldAgent) -> Option<&Agent> {
        self.crowds.get(agent.class)?.agent(agent.id)
    }

    /// Asks the agent to walk to the point of its class's mesh nearest `target`, found as
    /// the crowd finds its targets: within the crowd's placement box
    /// ([`Crowd::placement_extents`]: 2, 1.5, 2 × `max_agent_radius`, DetourCrowd's query
    /// extents, the box a target whose polygon goes stale is placed again with) for the
    /// agent's query filter. Off the mesh is [`Error::NotOnMesh`] (with that box), an agent
    /// of no class [`Error::NoSuchClass`], an unknown agent [`Error::Crowd`], a target that
    /// is not a world coordinate [`Error::Coordinate`] naming it (`target.x`).
    pub fn request_move_target(
        &mut self,
        world: &NavWorld,
        agent: WorldAgent,
        target: impl Into<[f64; 3]>,
    ) -> Result<()> {
        self.check_world(world)?;
        let nav = world.class(agent.class)?;
        let crowd = &mut self.crowds[agent.class];
        let filter = crowd
            .agent(agent.id)
            .ok_or(onepath_crowd::CrowdError::UnknownAgent(agent.id))?
            .params()
            .filter;
        let on = nav.place_with("target", target.into(), crowd.placement_extents(), &filter)?;
        Ok(crowd.request_move_target(agent.id, on.poly, on.point)?)
    }

    /// Asks the agent for a path of any kind ([`Crowd::request_path`]): a navmesh corridor,
    /// or a guide planned on the world resources registered here, such as a voxel path for
    /// a flyer ([`PathRequestKind::Voxel`](crate::crowd::PathRequestKind::Voxel), the
    /// request's `context_id` naming a voxel grid of [`WorldCrowd::set_voxel_grid`]).
    /// Requests on the host's 2D grids take them:
    /// [`WorldCrowd::request_path_with_grids`]. Errors: an agent of no class
    /// ([`Error::NoSuchClass`]); an unknown agent, a voxel grid not registered or a target
    /// off it or in a solid voxel (`CrowdError::OffGrid` naming the grid id), a voxel
    /// request for an agent without the Fly mode ([`Error::Crowd`]). Nothing changes on
    /// error.
    pub fn request_path(
        &mut self,
        world: &NavWorld,
        agent: WorldAgent,
        request: PathRequest,
    ) -> Result<()> {
        self.request_path_with_grids(world, &[], agent, request)
    }

    /// Asks a flyer to fly to `target` through the registered voxel grid `voxel_grid`: the
    /// [`PathRequestKind::Voxel`](crate::crowd::PathRequestKind::Voxel) request of
    /// [`WorldCrowd::request_path`] ([`PathRequest::voxel`]) with the agent's radius as its
    /// unit size and no other limit. At the next update the path is searched in the voxel grid and the agent takes
    /// off; at a target in the air it hovers, at one on its mesh it lands and walks again
    /// (`docs/crowd.md`, "Voxel guide and the Fly mode"). Errors as
    /// [`WorldCrowd::request_path`]'s: an agent without the Fly locomotion, not walking or
    /// flying, standing in no free voxel, a voxel grid not registered or a target off it
    /// or in a solid voxel; a target coordinate that is not finite
    /// (`CrowdError::InvalidRequest` naming it, `target.x`). Nothing changes on error.
    pub fn request_flight(
        &mut self,
        world: &NavWorld,
        agent: WorldAgent,
        voxel_grid: u32,
        target: impl Into<[f64; 3]>,
    ) -> Result<()> {
        let radius = self
            .crowd(agent.class)?
            .agent(agent.id)
            .ok_or(onepath_crowd::CrowdError::UnknownAgent(agent.id))?
            .params()
            .radius;
        let request = PathRequest::voxel(voxel_grid, target.into())?.with_unit_size(radius)?;
        self.request_path(world, agent, request)
    }

    /// [`WorldCrowd::request_path`] with the host's grids (id, grid; ids ascending, else
    /// [`Error::Grid`] naming the ids) that grid A*, flow-field, hybrid and replanner
    /// requests plan on (`context_id` names the grid; one missing, or a target off it or on
    /// a blocked cell, is `CrowdError::OffGrid`).
    pub fn request_path_with_grids(
        &mut self,
        world: &NavWorld,
        grids: &[(u32, &Grid)],
        agent: WorldAgent,
        request: PathRequest,
    ) -> Result<()> {
        self.with_context(world, agent.class, grids, |crowd, ctx| {
            crowd.request_path(ctx, agent.id, request)
        })??;
        Ok(())
    }

    /// Runs `f` on the crowd of `class` with the world context the facade's own calls
    /// build: the class's mesh, the host's `grids` (id, grid; ids ascending) and the world
    /// resources registered here. It is the way to the lower calls that take a
    /// [`WorldContext`] and have no facade form: loading an agent record
    /// ([`Crowd::load_agent_record`], whose platform or voxel grid ids are then checked
    /// against the ones registered here), prewarming a flow field
    /// ([`Crowd::prewarm_flow_field`]), restoring one class's crowd snapshot
    /// ([`Crowd::restore_snapshot`]). Errors: a `world` of another class count or a class out
    /// of range ([`Error::NoSuchClass`]), a `world` of another build ([`Error::OtherWorld`]),
    /// grids out of id order ([`Error::Grid`]); then `f`
    /// is not called. What `f` returns is returned as it is.
    ///
    /// ```
    /// use onepath::crowd::CrowdError;
    /// use onepath::prelude::*;
    ///
    /// # let floor = TriangleSoup {
    /// #     vertices: vec![[0.0, 0.0, 0.0], [0.0, 0.0, 20.0], [20.0, 0.0, 20.0], [20.0, 0.0, 0.0]],
    /// #     triangles: vec![[0, 1, 2], [0, 2, 3]],
    /// #     areas: None,
    /// # };
    /// let world = NavWorld::build(&[NavSettings::default()], &floor)?;
    /// let mut crowd = WorldCrowd::new(&world, CrowdSettings::default())?;
    /// let all = LocomotionHandler::with_all_modes();
    /// let rider = crowd.add_agent_with(&world, [3.0, 0.0, 3.0], AgentParams::new(0.4), all)?;
    /// crowd.set_platform(2, [3.0, 0.0, 3.0])?;
    /// crowd.attach_platform(&world, rider, 2)?;
    /// let record = crowd.crowd(0)?.save_agent_record(rider.id)?;
    /// // Loaded into the agent's shell against the registered platforms: it must be there.
    /// crowd.with_context(&world, 0, &[], |c, ctx| c.load_agent_record(ctx, rider.id, &record))??;
    /// crowd.remove_platform(2);
    /// let e = crowd.with_context(&world, 0, &[], |c, ctx| c.load_agent_record(ctx, rider.id, &record))?;
    /// assert!(matches!(e, Err(CrowdError::UnknownContext { what: "platform", id: 2, .. })));
    /// # Ok::<(), onepath::Error>(())
    /// ```
    pub fn with_context<R>(
        &mut self,
        world: &NavWorld,
        class: usize,
        grids: &[(u32, &Grid)],
        f: impl FnOnce(&mut Crowd, &WorldContext<'_>) -> R,
    ) -> Result<R> {
        self.check_world(world)?;
        check_grid_ids(grids)?;
        let mesh = world.class(class)?.mesh();
        let crowd = &mut self.crowds[class];
        let parts = self.host.parts_in(&mut self.scratch);
        let r = f(crowd, &parts.context(mesh, grids));
        self.scratch.keep(parts);
        Ok(r)
    }

    /// One fixed step of `dt` seconds of every crowd, in class order, each over its class's
    /// mesh and the world resources registered here (heightmap layers, platforms at the
    /// positions set for this step, voxel grids). A `dt` that is negative or not finite is
    /// [`Error::Crowd`] and fails before any crowd moves; a `world` of another class count
    /// is [`Error::NoSuchClass`], one of another build [`Error::OtherWorld`]. Returns each
    /// crowd's statistics, in class order.
    pub fn update(&mut self, world: &NavWorld, dt: f64) -> Result<Vec<UpdateStats>> {
        self.update_with_grids(world, &[], dt)
    }

    /// [`WorldCrowd::update`] with the host's grids (id, grid; ids ascending, each once,
    /// else [`Error::Grid`] naming the ids, before any crowd moves) that grid-guided agents
    /// plan on.
    pub fn update_with_grids(
        &mut self,
        world: &NavWorld,
        grids: &[(u32, &Grid)],
        dt: f64,
    ) -> Result<Vec<UpdateStats>> {
        self.check_world(world)?;
        check_grid_ids(grids)?;
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(Error::Crowd(onepath_crowd::CrowdError::NotFinite {
                what: "dt",
            }));
        }
        let parts = self.host.parts_in(&mut self.scratch);
        let mut stats = Vec::with_capacity(self.crowds.len());
        let mut failed = None;
        for (crowd, nav) in self.crowds.iter_mut().zip(world.classes()) {
            match crowd.update(&parts.context(nav.mesh(), grids), dt) {
                Ok(s) => stats.push(s),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        self.scratch.keep(parts);
        match failed {
            Some(e) => Err(e.into()),
            None => Ok(stats),
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;

    #[test]
    fn recycling_keeps_the_buffer_across_element_types() {
        let words: Vec<(u32, usize)> = Vec::with_capacity(8);
        let at = words.as_ptr() as usize;
        let refs: Vec<(u32, &VoxelGrid)> = recycle(words);
        assert_eq!((refs.capacity(), refs.as_ptr() as usize), (8, at));
        let back: Vec<(u32, usize)> = recycle(refs);
        assert_eq!((back.capacity(), back.as_ptr() as usize), (8, at));
        let layers: Vec<[usize; 3]> = Vec::with_capacity(5);
        let at = layers.as_ptr() as usize;
        let refs: Vec<(&str, &Heightmap)> = recycle(layers);
        assert_eq!((refs.capacity(), refs.as_ptr() as usize), (5, at));
    }

    #[test]
    fn updates_and_requests_reuse_the_context_buffers() {
        let floor = TriangleSoup {
            vertices: vec![
                [0.0, 0.0, 0.0],
                [0.0, 0.0, 20.0],
                [20.0, 0.0, 20.0],
                [20.0, 0.0, 0.0],
            ],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
            areas: None,
        };
        let world = NavWorld::build(&[NavSettings::default()], &floor).unwrap();
        let mut crowd = WorldCrowd::new(&world, CrowdSettings::default()).unwrap();
        for id in [4, 1, 9] {
            crowd.set_voxel_grid(id, VoxelGrid::new(4, 4, 4, 0).unwrap());
        }
        for name in ["rock", "sand"] {
            let layer = Heightmap::new([0.0, 0.0], 1.0, 4, 4, vec![0.0; 16]).unwrap();
            crowd.set_heightmap(name, Arc::new(layer)).unwrap();
        }
        let a = crowd
            .add_agent(&world, [3.0, 0.0, 3.0], AgentParams::new(0.4))
            .unwrap();
        crowd.update(&world, 1.0 / 30.0).unwrap();
        let held = |c: &WorldCrowd| {
            (
                c.scratch.voxels.as_ptr() as usize,
                c.scratch.voxels.capacity(),
                c.scratch.layers.as_ptr() as usize,
                c.scratch.layers.capacity(),
            )
        };
        let first = held(&crowd);
        assert!(first.1 >= 3 && first.3 >= 2, "{first:?}");
        assert!(crowd.scratch.voxels.is_empty() && crowd.scratch.layers.is_empty());
        let target = PathRequest::navmesh([12.0, 0.0, 12.0]).unwrap();
        crowd.request_path(&world, a, target).unwrap();
        for _ in 0..5 {
            crowd.update(&world, 1.0 / 30.0).unwrap();
            assert_eq!(held(&crowd), first);
        }
        // A refused update leaves them as they were.
        assert!(matches!(
            crowd.update(&world, f64::NAN),
            Err(Error::Crowd(onepath_crowd::CrowdError::NotFinite {
                what: "dt"
            }))
        ));
        assert_eq!(held(&crowd), first);
    }
}
