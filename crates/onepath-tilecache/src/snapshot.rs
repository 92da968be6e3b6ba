//! ONTK: the tile cache snapshot (`docs/tilecache.md`, "Snapshot ONTK"): the obstacles, the
//! run-time volumes, the next ids, the queue and a complete mesh snapshot (ONPS).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use onepath_build3d::{ConvexVolume, Obstacle};
use onepath_format::bytes::{ByteReader, ByteWriter};
use onepath_format::FormatError;
use onepath_mesh::TiledNavMesh;
use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, TileLibrary};

use crate::cache::{TileCache, TileColumn};
use crate::shapes::{
    check_obstacle, check_volume, ObstacleId, VolumeId, MAX_ID, MAX_VOLUME_CORNERS,
};

/// The magic of a tile cache snapshot: `ONTK`.
pub const ONTK_MAGIC: [u8; 4] = *b"ONTK";
/// The ONTK version this library writes and reads.
pub const ONTK_VERSION: u16 = 1;
/// Most obstacles, and most volumes, an ONTK snapshot may hold (2^20).
pub const MAX_SNAPSHOT_SHAPES: usize = 1 << 20;
/// Shape byte of a cylinder (5 f64: centre x, y, z, radius, height).
pub const SHAPE_CYLINDER: u8 = 1;
/// Shape byte of a box (6 f64: min x, y, z, max x, y, z).
pub const SHAPE_BOX: u8 = 2;
/// Shape byte of an oriented box (7 f64: centre x, y, z, half x, y, z, yaw).
pub const SHAPE_ORIENTED_BOX: u8 = 3;

/// The state format's name in [`FormatError::State`].
const FORMAT: &str = "tile cache (ONTK)";

fn state(message: impl Into<String>) -> FormatError {
    FormatError::State {
        format: FORMAT,
        message: message.into(),
    }
}

/// A shape's byte and its numbers, in ONTK order.
fn obstacle_values(o: &Obstacle) -> (u8, Vec<f64>) {
    match *o {
        Obstacle::Cylinder {
            center,
            radius,
            height,
        } => (
            SHAPE_CYLINDER,
            vec![center[0], center[1], center[2], radius, height],
        ),
        Obstacle::Box { min, max } => (
            SHAPE_BOX,
            vec![min[0], min[1], min[2], max[0], max[1], max[2]],
        ),
        Obstacle::OrientedBox { center, half, yaw } => (
            SHAPE_ORIENTED_BOX,
            vec![
                center[0], center[1], center[2], half[0], half[1], half[2], yaw,
            ],
        ),
    }
}

impl TileCache {
    /// The canonical ONTK bytes of the cache's run-time state, with the mesh snapshot in
    /// `mode` (Full: self-contained; Referenced: restoring needs a [`TileLibrary`] holding
    /// the mesh's tiles). The same state in the same mode gives the same bytes everywhere.
    ///
    /// # Panics
    /// Only if the mesh snapshot exceeds `u32::MAX` bytes, which the layout cannot express.
    pub fn snapshot(&self, mode: SnapshotMode) -> Vec<u8> {
        let mesh = NavMeshSnapshot::take(&self.mesh, mode);
        let mut w = ByteWriter::new();
        w.bytes(&ONTK_MAGIC);
        w.u16(ONTK_VERSION);
        w.u16(0);
        w.u32(self.next_obstacle);
        w.u32(self.next_volume);
        w.u32(self.obstacles.len() as u32);
        for (id, o) in &self.obstacles {
            let (shape, values) = obstacle_values(o);
            w.u32(id.0);
            w.u8(shape);
            values.into_iter().for_each(|v| w.f64(v));
        }
        w.u32(self.volumes.len() as u32);
        for (id, v) in &self.volumes {
            w.u32(id.0);
            w.u8(v.area);
            w.f64(v.min_y);
            w.f64(v.max_y);
            w.u32(v.points.len() as u32);
            for p in &v.points {
                w.f64(p[0]);
                w.f64(p[1]);
            }
        }
        w.u32(self.queue.len() as u32);
        for &(x, z) in &self.queue {
            w.i32(x);
            w.i32(z);
        }
        let len = u32::try_from(mesh.len()).expect("a mesh snapshot above 4 GiB");
        w.u32(len);
        w.bytes(&mesh);
        w.into_vec()
    }

    /// Restores an ONTK snapshot whose mesh snapshot may name tiles by content id (found in
    /// `library`). Everything is parsed and checked first (obstacle and volume values go
    /// through their checks again; every queued tile must be one this cache holds), then the
    /// mesh is restored in place (all or nothing), then the lists are swapped in; any error
    /// leaves the cache and its mesh untouched. The cache must have been built from the same
    /// geometry and settings. After a restore the next rebuild of each tile runs in full.
    pub fn restore(&mut self, bytes: &[u8], library: &TileLibrary) -> Result<(), FormatError> {
        self.restore_with(bytes, Some(library))
    }

    /// [`TileCache::restore`] of a snapshot whose mesh snapshot is Full (no library): a
    /// referenced tile is [`FormatError::LibraryRequired`].
    pub fn restore_full(&mut self, bytes: &[u8]) -> Result<(), FormatError> {
        self.restore_with(bytes, None)
    }

    fn restore_with(
        &mut self,
        bytes: &[u8],
        library: Option<&TileLibrary>,
    ) -> Result<(), FormatError> {
        let parsed = parse(bytes, self)?;
        restore_mesh(&mut self.mesh, parsed.mesh, library)?;
        self.install(parsed.lists());
        Ok(())
    }

    /// The first half of a two-phase restore: parses and checks an ONTK snapshot (named
    /// tiles found in `library`) against this cache and restores its mesh into a copy of the
    /// cache's mesh, changing nothing. [`TileCache::apply_restore`] then installs it without
    /// any further check that could fail. A host that restores several objects all or
    /// nothing (`onepath::WorldSnapshot` does) prepares every part first, reads the
    /// prepared mesh ([`PreparedRestore::mesh`]) where a later part needs it (a crowd), and
    /// applies only when every part succeeded; nothing of the cache's cached heightfields is
    /// copied. Errors as [`TileCache::restore`].
    pub fn prepare_restore(
        &self,
        bytes: &[u8],
        library: &TileLibrary,
    ) -> Result<PreparedRestore, FormatError> {
        self.prepare_with(bytes, Some(library))
    }

    /// [`TileCache::prepare_restore`] of a snapshot whose mesh snapshot is Full (no
    /// library), as [`TileCache::restore_full`].
    pub fn prepare_restore_full(&self, bytes: &[u8]) -> Result<PreparedRestore, FormatError> {
        self.prepare_with(bytes, None)
    }

    fn prepare_with(
        &self,
        bytes: &[u8],
        library: Option<&TileLibrary>,
    ) -> Result<PreparedRestore, FormatError> {
        let parsed = parse(bytes, self)?;
        let mut mesh = self.mesh.clone();
        restore_mesh(&mut mesh, parsed.mesh, library)?;
        Ok(PreparedRestore {
            lists: parsed.lists(),
            mesh,
            tiles: self.tiles.keys().copied().collect(),
        })
    }

    /// The second half of a two-phase restore: installs what
    /// [`TileCache::prepare_restore`] checked, exactly as [`TileCache::restore`] would have.
    /// The prepared state must come from this cache, or one built from the same geometry and
    /// settings; one prepared for a cache with other tiles is refused
    /// ([`FormatError::State`], nothing changes). Obstacles and volumes added or removed
    /// between the two halves are replaced by the snapshot's, as by a plain restore.
    pub fn apply_restore(&mut self, prepared: PreparedRestore) -> Result<(), FormatError> {
        if prepared.mesh.params() != self.mesh.params()
            || !prepared
                .tiles
                .iter()
                .copied()
                .eq(self.tiles.keys().copied())
        {
            return Err(state(
                "the prepared restore was made for a tile cache with other tiles or settings",
            ));
        }
        self.mesh = prepared.mesh;
        self.install(prepared.lists);
        Ok(())
    }

    /// Swaps in a checked snapshot's lists; every cached tile's next rebuild runs in full.
    fn install(&mut self, lists: Lists) {
        self.next_obstacle = lists.next_obstacle;
        self.next_volume = lists.next_volume;
        self.obstacles = lists.obstacles;
        self.volumes = lists.volumes;
        self.queued = lists.queue.iter().copied().collect();
        self.queue = lists.queue;
        for t in self.tiles.values_mut() {
            t.forget_last();
        }
    }
}

/// Restores a mesh snapshot into `mesh` in place (all or nothing), Referenced with a library,
/// Full without.
fn restore_mesh(
    mesh: &mut TiledNavMesh,
    bytes: &[u8],
    library: Option<&TileLibrary>,
) -> Result<(), FormatError> {
    match library {
        Some(lib) => NavMeshSnapshot::restore_in_place(mesh, bytes, lib),
        None => NavMeshSnapshot::restore_full_in_place(mesh, bytes),
    }
    .map_err(|e| e.within("mesh snapshot"))
}

/// An ONTK snapshot checked against a tile cache, its mesh already restored into a copy:
/// the first half of a two-phase restore ([`TileCache::prepare_restore`]), installed by
/// [`TileCache::apply_restore`].
#[derive(Debug, Clone)]
pub struct PreparedRestore {
    lists: Lists,
    mesh: TiledNavMesh,
    /// The cache's tiles (row, column) it was checked against.
    tiles: Vec<(i32, i32)>,
}

impl PreparedRestore {
    /// The mesh as it will be after [`TileCache::apply_restore`].
    pub fn mesh(&self) -> &TiledNavMesh {
        &self.mesh
    }
}

/// The obstacle, volume and queue lists of a checked ONTK snapshot.
#[derive(Debug, Clone)]
struct Lists {
    next_obstacle: u32,
    next_volume: u32,
    obstacles: BTreeMap<ObstacleId, Obstacle>,
    volumes: BTreeMap<VolumeId, ConvexVolume>,
    queue: VecDeque<TileColumn>,
}

/// An ONTK snapshot parsed and checked against the cache, its mesh snapshot not yet read.
struct Parsed<'a> {
    next_obstacle: u32,
    next_volume: u32,
    obstacles: BTreeMap<ObstacleId, Obstacle>,
    volumes: BTreeMap<VolumeId, ConvexVolume>,
    queue: VecDeque<TileColumn>,
    mesh: &'a [u8],
}

impl Parsed<'_> {
    fn lists(self) -> Lists {
        Lists {
            next_obstacle: self.next_obstacle,
            next_volume: self.next_volume,
            obstacles: self.obstacles,
            volumes: self.volumes,
            queue: self.queue,
        }
    }
}

fn next_id(r: &mut ByteReader<'_>, field: &str) -> Result<u32, FormatError> {
    let v = r.u32(field)?;
    if !(1..=MAX_ID).contains(&v) {
        return Err(state(format!("{field} {v} is not within 1 to 2^31 - 1")));
    }
    Ok(v)
}

/// Reads an id that must be above `previous` and below `next`.
fn entry_id(
    r: &mut ByteReader<'_>,
    what: &str,
    i: usize,
    previous: u32,
    next: u32,
) -> Result<u32, FormatError> {
    let id = r.u32(&format!("{what} {i}: id"))?;
    if id == 0 || id <= previous || id >= next {
        return Err(state(format!(
            "{what} {i}: id {id} is not ascending, above 0 and below the next id {next}"
        )));
    }
    Ok(id)
}

fn shape_count(r: &mut ByteReader<'_>, field: &str, min_len: usize) -> Result<usize, FormatError> {
    let n = r.u32(field)? as usize;
    if n > MAX_SNAPSHOT_SHAPES {
        return Err(state(format!("{field} {n} is above 2^20")));
    }
    r.check_fits(field, n, min_len)?;
    Ok(n)
}

fn parse<'a>(bytes: &'a [u8], cache: &TileCache) -> Result<Parsed<'a>, FormatError> {
    let mut r = ByteReader::new(bytes);
    r.header(&ONTK_MAGIC, "ONTK", ONTK_VERSION)?;
    let next_obstacle = next_id(&mut r, "next obstacle id")?;
    let next_volume = next_id(&mut r, "next volume id")?;

    let count = shape_count(&mut r, "obstacle count", 13)?;
    let mut obstacles = BTreeMap::new();
    let mut previous = 0;
    for i in 0..count {
        let id = entry_id(&mut r, "obstacle", i, previous, next_obstacle)?;
        previous = id;
        let shape = r.u8(&format!("obstacle {i}: shape"))?;
        let n = match shape {
            SHAPE_CYLINDER => 5,
            SHAPE_BOX => 6,
            SHAPE_ORIENTED_BOX => 7,
            s => {
                return Err(state(format!(
                    "obstacle {i}: shape {s} is not 1 (cylinder), 2 (box) or 3 (oriented box)"
                )))
            }
        };
        let f = r
            .chunks::<8>(n, &format!("obstacle {i}: values"))?
            .map(f64::from_le_bytes)
            .collect::<Vec<_>>();
        let o = match shape {
            SHAPE_CYLINDER => Obstacle::Cylinder {
                center: [f[0], f[1], f[2]],
                radius: f[3],
                height: f[4],
            },
            SHAPE_BOX => Obstacle::Box {
                min: [f[0], f[1], f[2]],
                max: [f[3], f[4], f[5]],
            },
            _ => Obstacle::OrientedBox {
                center: [f[0], f[1], f[2]],
                half: [f[3], f[4], f[5]],
                yaw: f[6],
            },
        };
        check_obstacle(&o).map_err(|e| state(format!("obstacle {i} (id {id}): {e}")))?;
        obstacles.insert(ObstacleId(id), o);
    }

    let count = shape_count(&mut r, "volume count", 41)?;
    let mut volumes = BTreeMap::new();
    let mut previous = 0;
    for i in 0..count {
        let id = entry_id(&mut r, "volume", i, previous, next_volume)?;
        previous = id;
        let area = r.u8(&format!("volume {i}: area"))?;
        let min_y = r.f64(&format!("volume {i}: min y"))?;
        let max_y = r.f64(&format!("volume {i}: max y"))?;
        let k = r.u32(&format!("volume {i}: corner count"))? as usize;
        if !(3..=MAX_VOLUME_CORNERS).contains(&k) {
            return Err(state(format!(
                "volume {i}: corner count {k} is not within 3 to {MAX_VOLUME_CORNERS}"
            )));
        }
        let points = r
            .chunks::<16>(k, &format!("volume {i}: corners"))?
            .map(|b| {
                let x: [u8; 8] = b[..8].try_into().expect("16-byte chunk");
                let z: [u8; 8] = b[8..].try_into().expect("16-byte chunk");
                [f64::from_le_bytes(x), f64::from_le_bytes(z)]
            })
            .collect();
        let v = ConvexVolume {
            points,
            min_y,
            max_y,
            area,
        };
        check_volume(&v).map_err(|e| state(format!("volume {i} (id {id}): {e}")))?;
        volumes.insert(VolumeId(id), v);
    }

    let q = r.u32("queue length")? as usize;
    if q > cache.tiles.len() {
        return Err(state(format!(
            "queue length {q} is above the {} cached tiles",
            cache.tiles.len()
        )));
    }
    r.check_fits("queue length", q, 8)?;
    let mut queue = VecDeque::with_capacity(q);
    let mut seen = BTreeSet::new();
    for i in 0..q {
        let x = r.i32(&format!("queued tile {i}: column"))?;
        let z = r.i32(&format!("queued tile {i}: row"))?;
        if !cache.tiles.contains_key(&(z, x)) {
            return Err(state(format!(
                "queued tile {i}: ({x}, {z}) is not a tile this cache holds"
            )));
        }
        if !seen.insert((x, z)) {
            return Err(state(format!(
                "queued tile {i}: ({x}, {z}) is queued twice"
            )));
        }
        queue.push_back((x, z));
    }
    let mesh = r.length_prefixed_bytes("mesh snapshot length", "mesh snapshot")?;
    r.expect_end("ONTK")?;
    Ok(Parsed {
        next_obstacle,
        next_volume,
        obstacles,
        volumes,
        queue,
        mesh,
    })
}
