//! The canonical ONPS writer: one state and one mode, one sequence of bytes.

use std::collections::BTreeMap;
use std::sync::Arc;

use onepath_format::bytes::ByteWriter;
use onepath_format::{ContentId, Fingerprint, NavTile, TileGeometry};
use onepath_mesh::TiledNavMesh;

use crate::layout::{
    SnapshotMode, EDIT_LEN, KIND_FREE, KIND_INLINE, KIND_REFERENCED, ONPS_HEADER_LEN, ONPS_MAGIC,
    ONPS_VERSION, SECTION_HEADER_LEN, SECTION_SLOTS,
};

/// Writes the snapshot of `mesh` in `mode` (see [`crate::NavMeshSnapshot::take`]); `id_of`
/// gives the content id of the tile in a slot. Two passes over the slots, the first for
/// the size (and, Full, each tile's bytes), the second writing; a Referenced snapshot
/// allocates nothing per slot.
pub(crate) fn write(
    mesh: &TiledNavMesh,
    mode: SnapshotMode,
    id_of: &mut dyn FnMut(u32, &NavTile) -> ContentId,
) -> Vec<u8> {
    let mut inline: Vec<Vec<u8>> = Vec::new();
    let mut body_len = 4usize;
    for s in mesh.slots() {
        body_len += 5;
        if let Some(t) = s.tile {
            body_len += match mode {
                SnapshotMode::Full => {
                    inline.push(t.tile().to_bytes());
                    4 + inline.last().map_or(0, Vec::len)
                }
                SnapshotMode::Referenced => 32,
            };
            body_len += 4 + EDIT_LEN * t.poly_edits().count() + 4 + 4 * t.disabled_links().count();
        }
    }
    let mut inline = inline.into_iter();
    // The layout stores the body length as a u32; only a Full snapshot of more than 4 GiB
    // of tiles could exceed it.
    let body_len_u32 =
        u32::try_from(body_len).expect("the slots section of a snapshot exceeds 4 GiB");
    let size = ONPS_HEADER_LEN + 4 + SECTION_HEADER_LEN + body_len;
    let mut w = ByteWriter::with_capacity(size);
    w.bytes(&ONPS_MAGIC);
    w.u16(ONPS_VERSION);
    w.u16(0);
    mesh.params().write_block(&mut w);
    w.u32(1);
    w.u16(SECTION_SLOTS);
    w.u16(0);
    w.u32(body_len_u32);
    w.u32(mesh.slot_count());
    for s in mesh.slots() {
        w.u32(s.generation);
        let Some(t) = s.tile else {
            w.u8(KIND_FREE);
            continue;
        };
        match mode {
            SnapshotMode::Full => {
                let b = inline.next().unwrap_or_default();
                w.u8(KIND_INLINE);
                // Fits: the whole body length was checked against u32 above.
                w.u32(b.len() as u32);
                w.bytes(&b);
            }
            SnapshotMode::Referenced => {
                w.u8(KIND_REFERENCED);
                w.bytes(&id_of(s.slot, t.tile()).0);
            }
        }
        // Fit: at most one edit per polygon and one index per link, counts of a u32 body.
        w.u32(t.poly_edits().count() as u32);
        for (p, area, flags) in t.poly_edits() {
            w.u32(p);
            w.u8(area);
            w.u16(flags);
        }
        w.u32(t.disabled_links().count() as u32);
        for l in t.disabled_links() {
            w.u32(l);
        }
    }
    debug_assert_eq!(w.len(), size);
    w.into_vec()
}

/// One remembered content id, with the geometry and fingerprint it belongs to (the
/// geometry held, so its address cannot be reused by another tile while the entry lives).
#[derive(Debug, Clone)]
struct CachedId {
    geometry: Arc<TileGeometry>,
    fingerprint: Fingerprint,
    id: ContentId,
}

impl CachedId {
    /// True when this is the entry of `tile` (a tile's id is a function of its geometry and
    /// fingerprint).
    fn is_of(&self, tile: &NavTile) -> bool {
        Arc::ptr_eq(&self.geometry, tile.geometry()) && self.fingerprint == tile.fingerprint()
    }
}

/// Takes snapshots repeatedly, remembering the content id of each tile it has seen, so a
/// Referenced snapshot every frame hashes only tiles new since the previous one.
///
/// The bytes are exactly those of [`NavMeshSnapshot::take`](crate::NavMeshSnapshot::take):
/// the cache only skips recomputing a tile's id. Entries are kept per slot and found by the
/// identity of the tile's shared immutable geometry and its fingerprint (a tile's id is a
/// function of both); a tile that moved to another slot is found among the other slots'
/// entries. Each entry holds the geometry, so the identity cannot be reused while it is
/// cached. After each Referenced snapshot the cache holds exactly the entries of the
/// mesh's tiles, one per occupied slot.
#[derive(Debug, Clone, Default)]
pub struct SnapshotWriter {
    slots: Vec<Option<CachedId>>,
}

impl SnapshotWriter {
    /// A writer with an empty cache.
    pub fn new() -> SnapshotWriter {
        SnapshotWriter::default()
    }

    /// The snapshot of `mesh` in `mode`: the same bytes as
    /// [`NavMeshSnapshot::take`](crate::NavMeshSnapshot::take).
    ///
    /// # Panics
    /// As [`NavMeshSnapshot::take`](crate::NavMeshSnapshot::take).
    pub fn take(&mut self, mesh: &TiledNavMesh, mode: SnapshotMode) -> Vec<u8> {
        if mode == SnapshotMode::Full {
            return write(mesh, mode, &mut |_, t| t.content_id());
        }
        let slots = &mut self.slots;
        slots.resize(mesh.slot_count() as usize, None);
        // Built at the first miss: the ids of every entry by (geometry, fingerprint), for
        // a tile that moved between slots.
        let mut moved: Option<BTreeMap<(usize, Fingerprint), ContentId>> = None;
        let bytes = write(mesh, mode, &mut |slot, t| {
            let i = slot as usize;
            if let Some(e) = slots[i].as_ref().filter(|e| e.is_of(t)) {
                return e.id;
            }
            let key = (Arc::as_ptr(t.geometry()) as usize, t.fingerprint());
            let index = moved.get_or_insert_with(|| {
                slots
                    .iter()
                    .flatten()
                    .map(|e| ((Arc::as_ptr(&e.geometry) as usize, e.fingerprint), e.id))
                    .collect()
            });
            // The index was built in this pass from entries that held their geometry then,
            // and the mesh holds `t`'s geometry throughout; no geometry is allocated while
            // the mesh is borrowed, so an address found here is `t`'s geometry itself.
            let id = match index.get(&key) {
                Some(&id) => id,
                None => t.content_id(),
            };
            slots[i] = Some(CachedId {
                geometry: Arc::clone(t.geometry()),
                fingerprint: t.fingerprint(),
                id,
            });
            id
        });
        for s in mesh.slots().filter(|s| s.tile.is_none()) {
            self.slots[s.slot as usize] = None;
        }
        bytes
    }

    /// Number of tile ids remembered.
    pub fn cached(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// Forgets every remembered id.
    pub fn clear(&mut self) {
        self.slots.clear();
    }
}
