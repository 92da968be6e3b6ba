//! `onepath info`: what a file is, its version, parameters, fingerprint, tiles, polygons,
//! slots and content ids, as text or as JSON.

use std::collections::BTreeMap;

use onepath_format::NavMeshParams;
use onepath_mesh::TiledNavMesh;
use onepath_snapshot::SnapshotMode;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::detect::FileKind;
use crate::load::{GridObject, Loaded, OPGS_KINDS};

/// Everything `info` reports about a file. Serialised as is by `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct Info {
    /// The path given.
    pub file: String,
    /// The magic (`"ONPM"`).
    pub kind: &'static str,
    /// What the kind holds.
    pub description: &'static str,
    /// The format version in the file.
    pub version: u16,
    /// File length in bytes.
    pub bytes: usize,
    /// SHA-256 of the file's bytes (lowercase hex).
    pub sha256: String,
    /// The mesh parameters, for navigation files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<ParamsInfo>,
    /// The parameters' fingerprint (hex), for navigation files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// Slots of the mesh (free ones included).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slots: Option<u32>,
    /// Tiles in the mesh.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiles: Option<usize>,
    /// Polygons of all tiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub polygons: Option<usize>,
    /// One entry per tile, in slot order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tile_list: Vec<TileInfo>,
    /// Kind-specific values (snapshot mode, grid size, tile cache lists, ...), by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub details: BTreeMap<&'static str, Value>,
}

/// The parameter block, field by field.
#[derive(Debug, Clone, Serialize)]
pub struct ParamsInfo {
    /// World origin of tile (0, 0).
    pub origin: [f64; 3],
    /// Tile edge length.
    pub tile_size: f64,
    /// Voxel cell size.
    pub cell_size: f64,
    /// Largest polygon size.
    pub max_verts_per_poly: u16,
    /// Largest step an agent climbs.
    pub walkable_climb: f32,
    /// Agent radius.
    pub agent_radius: f32,
    /// Agent height.
    pub agent_height: f32,
    /// Steepest walkable slope (degrees).
    pub agent_max_slope: f32,
    /// First 8 bytes of the settings digest (hex, 16 digits).
    pub settings_digest: String,
}

impl ParamsInfo {
    /// The block of `p`.
    pub fn of(p: &NavMeshParams) -> Self {
        ParamsInfo {
            origin: [p.origin_x, p.origin_y, p.origin_z],
            tile_size: p.tile_size,
            cell_size: p.cell_size,
            max_verts_per_poly: p.max_verts_per_poly,
            walkable_climb: p.walkable_climb,
            agent_radius: p.agent_radius,
            agent_height: p.agent_height,
            agent_max_slope: p.agent_max_slope,
            settings_digest: format!("{:016x}", p.settings_digest),
        }
    }
}

/// One tile.
#[derive(Debug, Clone, Serialize)]
pub struct TileInfo {
    /// Its slot (absent for a lone ONPT).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot: Option<u32>,
    /// The slot's generation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<u32>,
    /// Tile column.
    pub x: i32,
    /// Tile row.
    pub z: i32,
    /// Layer.
    pub layer: u16,
    /// Polygons.
    pub polygons: u32,
    /// Vertices.
    pub vertices: u32,
    /// Authored off-mesh link slots.
    pub off_mesh_links: u32,
    /// Content id: SHA-256 of the as-built ONPT bytes (absent when the tile could not be
    /// read without parameters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_id: Option<String>,
}

/// The report for `bytes`, read as `loaded`, found at `file`.
pub fn describe(file: &str, bytes: &[u8], kind: FileKind, loaded: &Loaded) -> Info {
    let mut info = Info {
        file: file.to_string(),
        kind: kind.magic(),
        description: kind.description(),
        version: u16::from_le_bytes([bytes[4], bytes[5]]),
        bytes: bytes.len(),
        sha256: hex(&Sha256::digest(bytes)),
        params: None,
        fingerprint: None,
        slots: None,
        tiles: None,
        polygons: None,
        tile_list: Vec::new(),
        details: BTreeMap::new(),
    };
    match loaded {
        Loaded::Tile(h, tile) => {
            info.fingerprint = Some(h.fingerprint.to_string());
            info.tiles = Some(1);
            info.polygons = Some(h.counts[1] as usize);
            if let Some((params, _)) = tile {
                info.params = Some(ParamsInfo::of(params));
            }
            info.tile_list.push(TileInfo {
                slot: None,
                generation: None,
                x: h.x,
                z: h.z,
                layer: h.layer,
                polygons: h.counts[1],
                vertices: h.counts[0],
                off_mesh_links: h.counts[6],
                content_id: tile.as_ref().map(|(_, t)| t.content_id().to_string()),
            });
            info.details.insert("origin_y", h.origin_y.into());
        }
        Loaded::Mesh(mesh) => describe_mesh(&mut info, mesh),
        Loaded::NavMesh(nav) => {
            describe_mesh(&mut info, nav.mesh());
            info.details
                .insert("settings", settings_value(nav.settings()));
        }
        Loaded::World(world, class) => {
            let classes: Vec<Value> = world
                .classes()
                .iter()
                .map(|c| {
                    let m = c.mesh();
                    serde_json::json!({
                        "agent_radius": c.settings().agent_radius(),
                        "agent_height": c.settings().agent_height(),
                        "tiles": m.tile_count(),
                        "polygons": m.tiles().map(|t| t.tile().poly_count()).sum::<usize>(),
                        "fingerprint": m.fingerprint().to_string(),
                    })
                })
                .collect();
            if let Ok(c) = world.class(*class) {
                describe_mesh(&mut info, c.mesh());
                info.details
                    .insert("settings", settings_value(c.settings()));
            }
            info.details.insert("class", (*class).into());
            info.details.insert("classes", classes.into());
        }
        Loaded::Snapshot(mode, mesh) => {
            describe_mesh(&mut info, mesh);
            info.details.insert("mode", mode_name(*mode).into());
            edits(&mut info, mesh);
        }
        Loaded::TileCache(s, mode, mesh) => {
            describe_mesh(&mut info, mesh);
            info.details.insert("mode", mode_name(*mode).into());
            info.details.insert("obstacles", s.obstacles.into());
            info.details.insert("volumes", s.volumes.into());
            info.details.insert("queued_tiles", s.queued.into());
            info.details
                .insert("next_obstacle_id", s.next_obstacle.into());
            info.details.insert("next_volume_id", s.next_volume.into());
            edits(&mut info, mesh);
        }
        Loaded::GridState(obj) => describe_grid(&mut info, obj),
    }
    info
}

fn describe_mesh(info: &mut Info, mesh: &TiledNavMesh) {
    info.params = Some(ParamsInfo::of(mesh.params()));
    info.fingerprint = Some(mesh.fingerprint().to_string());
    info.slots = Some(mesh.slot_count());
    info.tiles = Some(mesh.tile_count());
    let mut polygons = 0;
    for s in mesh.slots() {
        let Some(t) = s.tile else { continue };
        let tile = t.tile();
        let (x, z, layer) = tile.position();
        let d = tile.data();
        polygons += tile.poly_count();
        info.tile_list.push(TileInfo {
            slot: Some(s.slot),
            generation: Some(s.generation),
            x,
            z,
            layer,
            polygons: tile.poly_count() as u32,
            vertices: d.vertices.len() as u32,
            off_mesh_links: d.off_mesh_links.len() as u32,
            content_id: Some(tile.content_id().to_string()),
        });
    }
    info.polygons = Some(polygons);
}

fn settings_value(s: &onepath::NavSettings) -> Value {
    serde_json::to_value(s).unwrap_or(Value::Null)
}

fn edits(info: &mut Info, mesh: &TiledNavMesh) {
    let edits: usize = mesh.tiles().map(|t| t.poly_edits().count()).sum();
    let disabled: usize = mesh.tiles().map(|t| t.disabled_links().count()).sum();
    info.details.insert("polygon_edits", edits.into());
    info.details.insert("disabled_links", disabled.into());
}

fn describe_grid(info: &mut Info, obj: &GridObject) {
    let kind = match obj {
        GridObject::Grid(_) => 1,
        GridObject::Hex(_) => 2,
        GridObject::Voxel(_) => 3,
        GridObject::Graph(_) => 4,
        GridObject::Search(k) => *k,
    };
    info.details
        .insert("object", OPGS_KINDS[usize::from(kind - 1)].into());
    info.details.insert("object_kind", kind.into());
    match obj {
        GridObject::Grid(g) => grid_details(info, g),
        GridObject::Hex(h) => {
            grid_details(info, h.grid());
            info.details
                .insert("hex_layout", format!("{:?}", h.layout()).into());
        }
        GridObject::Voxel(v) => {
            info.details.insert("size", v.size().to_vec().into());
        }
        GridObject::Graph(g) => {
            info.details.insert("nodes", g.node_count().into());
            info.details.insert("edges", g.edge_count().into());
        }
        GridObject::Search(_) => {
            info.details.insert(
                "note",
                "a search state: restoring it needs the object it was saved against".into(),
            );
        }
    }
}

fn grid_details(info: &mut Info, g: &onepath_gridstate::Grid) {
    info.details.insert("width", g.width().into());
    info.details.insert("height", g.height().into());
    let walls = g
        .cells()
        .iter()
        .filter(|&&c| c == onepath_gridstate::WALL)
        .count();
    info.details.insert("walls", walls.into());
    info.details.insert("grid_version", g.version().into());
}

/// `"full"` or `"referenced"`.
pub fn mode_name(mode: SnapshotMode) -> &'static str {
    match mode {
        SnapshotMode::Full => "full",
        SnapshotMode::Referenced => "referenced",
    }
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The report as text, one `name: value` per line, tiles as a table.
pub fn to_text(info: &Info) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "{}: {} ({})", info.file, info.kind, info.description);
    let _ = writeln!(s, "version: {}", info.version);
    let _ = writeln!(s, "bytes: {}", info.bytes);
    let _ = writeln!(s, "sha256: {}", info.sha256);
    if let Some(p) = &info.params {
        let _ = writeln!(
            s,
            "params: origin ({}, {}, {}), tile size {}, cell size {}, max verts/poly {}",
            p.origin[0], p.origin[1], p.origin[2], p.tile_size, p.cell_size, p.max_verts_per_poly
        );
        let _ = writeln!(
            s,
            "agent: height {}, radius {}, climb {}, max slope {}°; settings digest {}",
            p.agent_height, p.agent_radius, p.walkable_climb, p.agent_max_slope, p.settings_digest
        );
    }
    if let Some(f) = &info.fingerprint {
        let _ = writeln!(s, "fingerprint: {f}");
    }
    if let Some(n) = info.slots {
        let _ = writeln!(s, "slots: {n}");
    }
    if let Some(n) = info.tiles {
        let _ = writeln!(s, "tiles: {n}");
    }
    if let Some(n) = info.polygons {
        let _ = writeln!(s, "polygons: {n}");
    }
    for (k, v) in &info.details {
        let v = match v {
            Value::String(t) => t.clone(),
            other => other.to_string(),
        };
        let _ = writeln!(s, "{k}: {v}");
    }
    if !info.tile_list.is_empty() {
        let _ = writeln!(
            s,
            "{:>6} {:>5} {:>5} {:>5} {:>6} {:>8} {:>8} {:>8}  content id",
            "slot", "gen", "x", "z", "layer", "polygons", "vertices", "off-mesh"
        );
        for t in &info.tile_list {
            let opt = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
            let _ = writeln!(
                s,
                "{:>6} {:>5} {:>5} {:>5} {:>6} {:>8} {:>8} {:>8}  {}",
                opt(t.slot),
                opt(t.generation),
                t.x,
                t.z,
                t.layer,
                t.polygons,
                t.vertices,
                t.off_mesh_links,
                t.content_id
                    .as_deref()
                    .unwrap_or("(needs parameters: --with MESH)")
            );
        }
    }
    s
}
