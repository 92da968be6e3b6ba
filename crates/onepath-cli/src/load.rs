//! Reading any OnePath file into what the other commands look at: the mesh it holds (if
//! any), its header values, and how to write it again canonically.
//!
//! Every file goes through its own crate's validating reader (ONPM, ONPS, OPGS objects); the
//! few structures read here (the ONPT and ONTK headers, the OPGS object kind) go through a
//! [`ByteReader`] whose every read checks the bytes that remain and names its field, so no
//! input makes this module panic.

use onepath::{NavMesh, NavWorld};
use onepath_format::bytes::ByteReader;
use onepath_format::{FormatError, NavMeshParams, NavTile, ONPT_HEADER_LEN};
use onepath_gridstate::{Graph, Grid, HexGrid, VoxelGrid};
use onepath_mesh::{NavMeshSerializer, TiledNavMesh};
use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, TileLibrary};

use crate::detect::{unknown_magic, FileKind};

/// The header of one tile (ONPT), readable without the mesh's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct TileHeader {
    /// The fingerprint of the parameters the tile was built against.
    pub fingerprint: onepath_format::Fingerprint,
    /// Tile column.
    pub x: i32,
    /// Tile row.
    pub z: i32,
    /// Layer.
    pub layer: u16,
    /// World Y of the tile's origin.
    pub origin_y: f64,
    /// Vertex, polygon, corner, detail mesh, detail vertex, detail triangle and off-mesh
    /// link counts.
    pub counts: [u32; 7],
}

/// The run-time lists of a tile cache snapshot (ONTK), around its mesh snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct TileCacheSummary {
    /// The id the next obstacle gets.
    pub next_obstacle: u32,
    /// The id the next volume gets.
    pub next_volume: u32,
    /// Obstacles in force.
    pub obstacles: u32,
    /// Run-time area volumes in force.
    pub volumes: u32,
    /// Tile columns waiting in the rebuild queue.
    pub queued: u32,
    /// Offset of the mesh snapshot in the file, and its length.
    pub mesh_span: (usize, usize),
}

/// The object an OPGS state holds.
#[derive(Debug)]
pub enum GridObject {
    /// A square grid (kind 1).
    Grid(Grid),
    /// A hex grid (kind 2).
    Hex(HexGrid),
    /// A voxel grid (kind 3).
    Voxel(VoxelGrid),
    /// A graph (kind 4).
    Graph(Graph),
    /// A search or replanner state (kinds 5 to 12): restoring it needs the object it was
    /// saved against, so only its kind is read.
    Search(u16),
}

/// Names of the OPGS object kinds, kind 1 first (`docs/grid-state.md`).
pub const OPGS_KINDS: [&str; 12] = [
    "grid",
    "hex grid",
    "voxel grid",
    "graph",
    "grid replanner",
    "hex replanner",
    "flow field",
    "A* search",
    "jump point search",
    "Theta* search",
    "graph A* search",
    "grid search",
];

/// A file read and validated.
#[derive(Debug)]
pub enum Loaded {
    /// A tile: its header, and the tile itself when parameters were given to check it
    /// against.
    Tile(TileHeader, Option<(NavMeshParams, NavTile)>),
    /// A mesh (ONPM).
    Mesh(TiledNavMesh),
    /// A mesh with its settings (ONNM).
    NavMesh(Box<NavMesh>),
    /// Agent classes (ONNW) and the class the other commands look at.
    World(Box<NavWorld>, usize),
    /// A mesh snapshot (ONPS): its mode and the mesh it restores.
    Snapshot(SnapshotMode, TiledNavMesh),
    /// A tile cache snapshot (ONTK): its lists and the mesh its snapshot restores.
    TileCache(TileCacheSummary, SnapshotMode, TiledNavMesh),
    /// A grid or graph state (OPGS).
    GridState(GridObject),
}

/// What a reader may be given besides the file: the parameters an ONPT is checked against,
/// the tiles a Referenced snapshot names, the agent radius that picks a world's class.
#[derive(Debug, Default)]
pub struct Context {
    /// Parameters and tiles from a mesh file (`--with FILE`).
    pub mesh: Option<TiledNavMesh>,
    /// The agent radius whose class of an ONNW world is meant (`--class R`;
    /// [`NavWorld::class_for`]); class 0 when absent.
    pub class_radius: Option<f64>,
}

impl Context {
    fn library(&self, params: &NavMeshParams) -> Option<TileLibrary> {
        let mesh = self.mesh.as_ref()?;
        let mut library = TileLibrary::new(params);
        // A tile built against other parameters is simply not found (the snapshot's own
        // fingerprint check then names the slot).
        let _ = library.extend(mesh.tiles().map(|t| t.tile()));
        Some(library)
    }
}

/// A reader error, kept apart from "a file of another kind" so callers can say which.
pub type LoadResult<T> = Result<T, String>;

fn fmt_err(e: FormatError) -> String {
    e.to_string()
}

/// Reads `bytes` as whatever OnePath file its magic says it is.
pub fn load(bytes: &[u8], ctx: &Context) -> LoadResult<(FileKind, Loaded)> {
    let kind = FileKind::detect(bytes).ok_or_else(|| unknown_magic(bytes))?;
    let loaded = match kind {
        FileKind::Onpt => {
            let header = tile_header(bytes).map_err(fmt_err)?;
            let tile = match &ctx.mesh {
                Some(m) => {
                    let params = *m.params();
                    let tile = NavTile::from_bytes(bytes, &params).map_err(fmt_err)?;
                    Some((params, tile))
                }
                None => None,
            };
            Loaded::Tile(header, tile)
        }
        FileKind::Onpm => Loaded::Mesh(NavMeshSerializer::read_mesh(bytes).map_err(fmt_err)?),
        FileKind::Onnm => Loaded::NavMesh(Box::new(NavMesh::load(bytes).map_err(fmt_err)?)),
        FileKind::Onnw => {
            let world = NavWorld::load(bytes).map_err(fmt_err)?;
            let class = ctx.class_radius.map_or(0, |r| world.class_for(r));
            Loaded::World(Box::new(world), class)
        }
        FileKind::Onps => {
            let (mode, mesh) = snapshot(bytes, ctx)?;
            Loaded::Snapshot(mode, mesh)
        }
        FileKind::Ontk => {
            let summary = tile_cache_summary(bytes).map_err(fmt_err)?;
            let (start, len) = summary.mesh_span;
            let (mode, mesh) = snapshot(&bytes[start..start + len], ctx)
                .map_err(|e| format!("mesh snapshot: {e}"))?;
            Loaded::TileCache(summary, mode, mesh)
        }
        FileKind::Opgs => Loaded::GridState(grid_object(bytes).map_err(fmt_err)?),
    };
    Ok((kind, loaded))
}

/// The bytes an object's own writer gives for what was read: equal to the file exactly
/// when the file is canonical. `None` when the file holds state that needs another object
/// to be re-read (an OPGS search, an ONPT without parameters).
pub fn rewrite(bytes: &[u8], loaded: &Loaded) -> Option<Vec<u8>> {
    Some(match loaded {
        Loaded::Tile(_, Some((_, tile))) => NavMeshSerializer::write_tile(tile),
        Loaded::Tile(_, None) => return None,
        Loaded::Mesh(mesh) => NavMeshSerializer::write_mesh(mesh),
        Loaded::NavMesh(nav) => nav.save(),
        Loaded::World(world, _) => world.save(),
        Loaded::Snapshot(mode, mesh) => NavMeshSnapshot::take(mesh, *mode),
        Loaded::TileCache(summary, mode, mesh) => {
            // The lists before the mesh snapshot were walked field by field (each value
            // read once, in order): they are kept as read; the mesh snapshot is re-taken.
            let (start, _) = summary.mesh_span;
            let inner = NavMeshSnapshot::take(mesh, *mode);
            let mut out = bytes[..start - 4].to_vec();
            out.extend_from_slice(&(inner.len() as u32).to_le_bytes());
            out.extend_from_slice(&inner);
            out
        }
        Loaded::GridState(GridObject::Grid(g)) => g.save_state(),
        Loaded::GridState(GridObject::Hex(g)) => g.save_state(),
        Loaded::GridState(GridObject::Voxel(g)) => g.save_state(),
        Loaded::GridState(GridObject::Graph(g)) => g.save_state(),
        Loaded::GridState(GridObject::Search(_)) => return None,
    })
}

/// The mesh a loaded file holds, if any.
pub fn mesh_of(loaded: &Loaded) -> Option<&TiledNavMesh> {
    match loaded {
        Loaded::Mesh(m) | Loaded::Snapshot(_, m) | Loaded::TileCache(_, _, m) => Some(m),
        Loaded::NavMesh(nav) => Some(nav.mesh()),
        Loaded::World(world, class) => world.class(*class).ok().map(NavMesh::mesh),
        _ => None,
    }
}

fn snapshot(bytes: &[u8], ctx: &Context) -> LoadResult<(SnapshotMode, TiledNavMesh)> {
    match NavMeshSnapshot::restore_full(bytes) {
        Ok(mesh) => Ok((SnapshotMode::Full, mesh)),
        Err(FormatError::LibraryRequired { at }) => {
            // The parameter block follows the 8-byte header; restore_full has read it.
            let mut r = ByteReader::new(&bytes[8..]);
            let params = NavMeshParams::read_block(&mut r).map_err(fmt_err)?;
            let library = ctx.library(&params).ok_or_else(|| {
                format!(
                    "{at} names its tile by content id (a Referenced snapshot): give the mesh \
                     that holds the tiles with --with MESH"
                )
            })?;
            let mesh = NavMeshSnapshot::restore(bytes, &library).map_err(fmt_err)?;
            Ok((SnapshotMode::Referenced, mesh))
        }
        Err(e) => Err(fmt_err(e)),
    }
}

/// Reads the ONPT header (magic, version, flags, fingerprint, position, counts) and checks
/// that the counts give the file's length.
pub fn tile_header(bytes: &[u8]) -> Result<TileHeader, FormatError> {
    let mut r = ByteReader::new(bytes);
    r.header(
        &onepath_format::ONPT_MAGIC,
        "ONPT",
        onepath_format::FORMAT_VERSION,
    )?;
    let fingerprint = onepath_format::Fingerprint(r.array::<16>("fingerprint")?);
    let x = r.i32("TileX")?;
    let z = r.i32("TileZ")?;
    let layer = r.u16("Layer")?;
    r.u16("tile header reserved")?;
    let origin_y = r.f64("OriginY")?;
    let mut counts = [0u32; 7];
    for (c, name) in counts.iter_mut().zip([
        "vertex count",
        "polygon count",
        "corner count",
        "detail mesh count",
        "detail vertex count",
        "detail triangle count",
        "off-mesh link count",
    ]) {
        *c = r.u32(name)?;
    }
    debug_assert_eq!(r.position(), ONPT_HEADER_LEN);
    let c = counts.map(|c| c as usize);
    let want = onepath_format::onpt_len(c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
    if want != Some(bytes.len()) {
        return Err(FormatError::malformed(
            "ONPT length",
            match want {
                Some(n) => format!("the header counts imply {n} bytes, {} given", bytes.len()),
                None => "the header counts overflow the address space".to_string(),
            },
        ));
    }
    Ok(TileHeader {
        fingerprint,
        x,
        z,
        layer,
        origin_y,
        counts,
    })
}

/// Walks an ONTK snapshot's lists (`docs/tilecache.md`, "Snapshot ONTK") to the mesh
/// snapshot, checking each count against the bytes that remain; the values themselves are
/// the tile cache's to check (it needs the level), so only their layout is read here.
pub fn tile_cache_summary(bytes: &[u8]) -> Result<TileCacheSummary, FormatError> {
    let mut r = ByteReader::new(bytes);
    r.header(
        &onepath_tilecache::ONTK_MAGIC,
        "ONTK",
        onepath_tilecache::ONTK_VERSION,
    )?;
    let next_obstacle = r.u32("next obstacle id")?;
    let next_volume = r.u32("next volume id")?;
    // An obstacle is at least 4 + 1 + 5 × 8 bytes.
    let obstacles = r.count("obstacle count", 45)?;
    for i in 0..obstacles {
        r.u32(&format!("obstacle {i}: id"))?;
        let n = match r.u8(&format!("obstacle {i}: shape"))? {
            1 => 5,
            2 => 6,
            3 => 7,
            s => {
                return Err(FormatError::malformed(
                    format!("obstacle {i}: shape"),
                    format!("{s} is not 1 (cylinder), 2 (box) or 3 (oriented box)"),
                ))
            }
        };
        r.bytes(8 * n, &format!("obstacle {i}: values"))?;
    }
    // A volume is at least 4 + 1 + 8 + 8 + 4 bytes.
    let volumes = r.count("volume count", 25)?;
    for i in 0..volumes {
        r.bytes(4 + 1 + 16, &format!("volume {i}: id, area and heights"))?;
        let corners = r.count(&format!("volume {i}: corner count"), 16)?;
        r.bytes(16 * corners, &format!("volume {i}: corners"))?;
    }
    let queued = r.count("queue length", 8)?;
    r.bytes(8 * queued, "queue")?;
    let len = r.count("mesh snapshot length", 1)?;
    let start = r.position();
    r.bytes(len, "mesh snapshot")?;
    r.expect_end("ONTK")?;
    Ok(TileCacheSummary {
        next_obstacle,
        next_volume,
        obstacles: obstacles as u32,
        volumes: volumes as u32,
        queued: queued as u32,
        mesh_span: (start, len),
    })
}

/// The OPGS object kind (the u16 after magic and version).
pub fn opgs_kind(bytes: &[u8]) -> Result<u16, FormatError> {
    let mut r = ByteReader::new(bytes);
    r.magic(&onepath_gridstate::STATE_MAGIC, "OPGS magic")?;
    let v = r.u16("OPGS format version")?;
    if v != onepath_gridstate::STATE_VERSION {
        return Err(FormatError::Version {
            what: "OPGS",
            found: v,
            expected: onepath_gridstate::STATE_VERSION,
        });
    }
    r.u16("OPGS object kind")
}

fn grid_object(bytes: &[u8]) -> Result<GridObject, FormatError> {
    Ok(match opgs_kind(bytes)? {
        1 => GridObject::Grid(Grid::from_state(bytes)?),
        2 => GridObject::Hex(HexGrid::from_state(bytes)?),
        3 => GridObject::Voxel(VoxelGrid::from_state(bytes)?),
        4 => GridObject::Graph(Graph::from_state(bytes)?),
        k @ 5..=12 => GridObject::Search(k),
        k => {
            return Err(FormatError::malformed(
                "OPGS object kind",
                format!("{k} is not a kind of docs/grid-state.md (1 to 12)"),
            ))
        }
    })
}
