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

/// How one occupied slot names its tile.
enum TileEntry {
    Inline(Vec<u8>),
    Referenced(ContentId),
}

/// An occupied slot's tile entry, polygon edits `(polygon, area, flags)` and disabled links.
type TileState = (TileEntry, Vec<(u32, u8, u16)>, Vec<u32>);

/// One slot as written: generation, and for a tile its entry, edits and switches.
struct SlotEntry {
    generation: u32,
    tile: Option<TileState>,
}

impl SlotEntry {
    fn len(&self) -> usize {
        5 + match &self.tile {
            None => 0,
            Some((entry, edits, links)) => {
                let t = match entry {
                    TileEntry::Inline(b) => 4 + b.len(),
                    TileEntry::Referenced(_) => 32,
                };
                t + 4 + EDIT_LEN * edits.len() + 4 + 4 * links.len()
            }
        }
    }
}

/// Writes the snapshot of `mesh` in `mode` (see [`crate::NavMeshSnapshot::take`]); `id_of`
/// gives a tile's content id.
pub(crate) fn write(
    mesh: &TiledNavMesh,
    mode: SnapshotMode,
    id_of: &mut dyn FnMut(&NavTile) -> ContentId,
) -> Vec<u8> {
    let slots: Vec<SlotEntry> = mesh
        .slots()
        .map(|s| SlotEntry {
            generation: s.generation,
            tile: s.tile.map(|t| {
                let entry = match mode {
                    SnapshotMode::Full => TileEntry::Inline(t.tile().to_bytes()),
                    SnapshotMode::Referenced => TileEntry::Referenced(id_of(t.tile())),
                };
                (
                    entry,
                    t.poly_edits().collect(),
                    t.disabled_links().collect(),
                )
            }),
        })
        .collect();
    let body_len = 4 + slots.iter().map(SlotEntry::len).sum::<usize>();
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
    for s in &slots {
        w.u32(s.generation);
        match &s.tile {
            None => w.u8(KIND_FREE),
            Some((entry, edits, links)) => {
                match entry {
                    TileEntry::Inline(b) => {
                        w.u8(KIND_INLINE);
                        // Fits: the whole body length was checked against u32 above.
                        w.u32(b.len() as u32);
                        w.bytes(b);
                    }
                    TileEntry::Referenced(id) => {
                        w.u8(KIND_REFERENCED);
                        w.bytes(&id.0);
                    }
                }
                w.u32(edits.len() as u32);
                for &(p, area, flags) in edits {
                    w.u32(p);
                    w.u8(area);
                    w.u16(flags);
                }
                w.u32(links.len() as u32);
                for &l in links {
                    w.u32(l);
                }
            }
        }
    }
    debug_assert_eq!(w.len(), size);
    w.into_vec()
}

/// One remembered content id, with the geometry it belongs to (held, so its address cannot
/// be reused by another tile while the entry lives).
#[derive(Debug, Clone)]
struct CachedId {
    _geometry: Arc<TileGeometry>,
    id: ContentId,
    last_used: u64,
}

/// Takes snapshots repeatedly, remembering the content id of each tile it has seen, so a
/// Referenced snapshot every frame hashes only tiles new since the previous one.
///
/// The bytes are exactly those of [`NavMeshSnapshot::take`](crate::NavMeshSnapshot::take):
/// the cache only skips recomputing a tile's id. Entries are found by the identity of the
/// tile's shared immutable geometry and its fingerprint (a tile's id is a function of both);
/// each entry holds the geometry, so the identity cannot be reused while it is cached. After
/// each snapshot the entries of tiles no longer in the mesh are dropped.
#[derive(Debug, Clone, Default)]
pub struct SnapshotWriter {
    ids: BTreeMap<(usize, Fingerprint), CachedId>,
    epoch: u64,
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
        self.epoch += 1;
        let epoch = self.epoch;
        let ids = &mut self.ids;
        let bytes = write(mesh, mode, &mut |t: &NavTile| {
            let key = (Arc::as_ptr(t.geometry()) as usize, t.fingerprint());
            let e = ids.entry(key).or_insert_with(|| CachedId {
                _geometry: Arc::clone(t.geometry()),
                id: t.content_id(),
                last_used: epoch,
            });
            e.last_used = epoch;
            e.id
        });
        if mode == SnapshotMode::Referenced {
            self.ids.retain(|_, e| e.last_used == epoch);
        }
        bytes
    }

    /// Number of tile ids remembered.
    pub fn cached(&self) -> usize {
        self.ids.len()
    }

    /// Forgets every remembered id.
    pub fn clear(&mut self) {
        self.ids.clear();
    }
}
