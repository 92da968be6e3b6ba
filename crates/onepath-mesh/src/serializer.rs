//! ONPM: a mesh as a file ("Mesh (ONPM)"; the table is in `docs/navmesh-stitching.md`).
//!
//! | off | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `ONPM` |
//! | 4 | 2 | version 2 |
//! | 6 | 2 | flags 0 |
//! | 8 | 68 | parameter block |
//! | 76 | 4 | slot count S (≤ 1 048 575 and ≤ remaining bytes / 5) |
//! | 80 | … | per slot: generation u32 (1..=0xFFFFFF), kind u8 (0 free, 1 tile); kind 1: u32 length, then ONPT bytes with the tile's *current* areas and flags |
//!
//! Nothing may follow. Link switches are not stored; reading makes the stored (current)
//! areas and flags the as-built ones, turns every link on, and stitches once.

use onepath_format::bytes::{ByteReader, ByteWriter};
use onepath_format::{FormatError, NavMeshParams, NavTile, FORMAT_VERSION, PARAMS_BLOCK_LEN};

use crate::mesh::TiledNavMesh;
use crate::slot_table::SlotTable;

/// The ONPM magic, "ONPM".
pub const ONPM_MAGIC: [u8; 4] = *b"ONPM";
/// Bytes before the slot count: magic, version, flags, parameter block.
pub const ONPM_HEADER_LEN: usize = 8 + PARAMS_BLOCK_LEN;
/// The slot kinds of ONPM, kind 0 first: 0 free, 1 a tile (u32 length, then ONPT bytes).
pub const ONPM_KINDS: &[&str] = &["free", "tile"];

/// Reads and writes meshes (ONPM) and tiles (ONPT) as files.
#[derive(Debug, Clone, Copy, Default)]
pub struct NavMeshSerializer;

impl NavMeshSerializer {
    /// The canonical ONPM bytes of `mesh`: every slot with its generation, every tile with
    /// its current areas and flags; no link switches.
    pub fn write_mesh(mesh: &TiledNavMesh) -> Vec<u8> {
        let tiles: Vec<Option<Vec<u8>>> = mesh
            .slots()
            .map(|s| s.tile.map(|t| t.tile().to_bytes_current()))
            .collect();
        let size = ONPM_HEADER_LEN
            + 4
            + tiles
                .iter()
                .map(|t| 5 + t.as_ref().map_or(0, |b| 4 + b.len()))
                .sum::<usize>();
        let mut w = ByteWriter::with_capacity(size);
        w.bytes(&ONPM_MAGIC);
        w.u16(FORMAT_VERSION);
        w.u16(0);
        mesh.params().write_block(&mut w);
        w.u32(tiles.len() as u32);
        for (s, t) in mesh.slots().zip(&tiles) {
            w.u32(s.generation);
            match t {
                None => w.u8(0),
                Some(b) => {
                    w.u8(1);
                    w.u32(b.len() as u32);
                    w.bytes(b);
                }
            }
        }
        debug_assert_eq!(w.len(), size);
        w.into_vec()
    }

    /// Reads ONPM bytes into a new mesh. Never panics. Checks, in order: magic, version
    /// (≠ 2 → [`FormatError::Version`]), flags (0), the parameter block, the slot count
    /// against the bytes that remain and the slot limit, then per slot its generation, kind
    /// and tile (read against the parameters: fingerprint first, then every tile rule), the
    /// uniqueness of positions, that nothing follows, and finally the per-tile portal link
    /// cap over every tile (`slot i: portal links`, naming the lowest slot of a refused
    /// pair of facing tiles; see [`onepath_stitch::cap`]). Errors name the slot. The slot
    /// rules are those of [`SlotTable`], checked as each field is read.
    pub fn read_mesh(bytes: &[u8]) -> Result<TiledNavMesh, FormatError> {
        let mut r = ByteReader::new(bytes);
        r.header(&ONPM_MAGIC, "ONPM", FORMAT_VERSION)?;
        let params = NavMeshParams::read_block(&mut r)?;
        let count = r.count("slot count", 5)?;
        let mut table = SlotTable::new(&params, count)?;
        // The parameters hashed once for every tile, not per tile.
        let tiles = *table.tile_reader();
        for i in 0..count {
            let generation = r.u32(&format!("slot {i}: generation"))?;
            table.check_generation(generation)?;
            let tile = match table.check_kind(r.u8(&format!("slot {i}: kind"))?, ONPM_KINDS)? {
                0 => None,
                _ => {
                    // Kind 1, the only other kind ONPM_KINDS names.
                    let body = r.length_prefixed_bytes(
                        &format!("slot {i}: tile length"),
                        &format!("slot {i}: tile"),
                    )?;
                    let tile = tiles
                        .read(body)
                        .map_err(|e| e.within(format!("slot {i}: tile")))?;
                    Some(tile)
                }
            };
            table.push(generation, tile)?;
        }
        r.expect_end("ONPM")?;
        Ok(table.into_mesh()?)
    }

    /// The ONPT bytes of a tile with its current areas and flags.
    pub fn write_tile(tile: &NavTile) -> Vec<u8> {
        tile.to_bytes_current()
    }

    /// Reads ONPT bytes against the mesh's parameters (fingerprint first, then every rule).
    pub fn read_tile(bytes: &[u8], params: &NavMeshParams) -> Result<NavTile, FormatError> {
        NavTile::from_bytes(bytes, params)
    }
}
