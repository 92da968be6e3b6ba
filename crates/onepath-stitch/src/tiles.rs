//! The set of tiles stitching reads: which tile (and generation) sits in which slot, and
//! which slots make up a tile column.

use std::borrow::Cow;
use std::collections::BTreeMap;

use onepath_format::{NavMeshParams, NavTile, PolyRef};

/// A tile in its slot, as stitching sees it.
#[derive(Debug, Clone, Copy)]
pub struct SlotTile<'a> {
    /// The slot's current generation (salt), used in the references links carry.
    pub salt: u32,
    /// The tile.
    pub tile: &'a NavTile,
}

/// A column index: (column, row) -> (layer, slot) pairs, ascending by layer. A mesh can keep
/// one up to date and lend it to [`TileSet::with_columns`] instead of having it rebuilt.
pub type ColumnIndex = BTreeMap<(i32, i32), Vec<(u16, u32)>>;

/// The tiles of a mesh in their slots, with a column index. Stitching is a function of this
/// value only.
#[derive(Debug, Clone)]
pub struct TileSet<'a> {
    params: &'a NavMeshParams,
    slots: Vec<Option<SlotTile<'a>>>,
    /// (column, row) -> (layer, slot), ascending by layer.
    columns: Cow<'a, ColumnIndex>,
    off_mesh_tiles: usize,
}

impl<'a> TileSet<'a> {
    /// The set of `(slot, salt, tile)` entries. Slots must be distinct and positions
    /// unique (the mesh guarantees both); a later entry for a slot replaces an earlier one.
    pub fn new(
        params: &'a NavMeshParams,
        tiles: impl IntoIterator<Item = (u32, u32, &'a NavTile)>,
    ) -> TileSet<'a> {
        let (slots, off_mesh_tiles) = Self::slot_table(tiles);
        let mut columns = ColumnIndex::new();
        for (i, s) in slots.iter().enumerate() {
            if let Some(s) = s {
                let (x, z, layer) = s.tile.position();
                columns.entry((x, z)).or_default().push((layer, i as u32));
            }
        }
        for v in columns.values_mut() {
            v.sort_unstable();
        }
        TileSet {
            params,
            slots,
            columns: Cow::Owned(columns),
            off_mesh_tiles,
        }
    }

    /// The same set with a column index the caller keeps: it must list exactly the
    /// occupied slots by their tiles' positions, ascending by layer (a mesh maintains it on
    /// every edit). Entries naming a free slot are skipped.
    pub fn with_columns(
        params: &'a NavMeshParams,
        tiles: impl IntoIterator<Item = (u32, u32, &'a NavTile)>,
        columns: &'a ColumnIndex,
    ) -> TileSet<'a> {
        let (slots, off_mesh_tiles) = Self::slot_table(tiles);
        TileSet {
            params,
            slots,
            columns: Cow::Borrowed(columns),
            off_mesh_tiles,
        }
    }

    #[allow(clippy::type_complexity)]
    fn slot_table(
        tiles: impl IntoIterator<Item = (u32, u32, &'a NavTile)>,
    ) -> (Vec<Option<SlotTile<'a>>>, usize) {
        let mut slots: Vec<Option<SlotTile<'a>>> = Vec::new();
        for (slot, salt, tile) in tiles {
            let i = slot as usize;
            if slots.len() <= i {
                slots.resize(i + 1, None);
            }
            slots[i] = Some(SlotTile { salt, tile });
        }
        let off_mesh_tiles = slots
            .iter()
            .flatten()
            .filter(|s| !s.tile.data().off_mesh_links.is_empty())
            .count();
        (slots, off_mesh_tiles)
    }

    /// The mesh parameters.
    pub fn params(&self) -> &'a NavMeshParams {
        self.params
    }

    /// One past the highest slot index holding a tile.
    pub fn slot_len(&self) -> usize {
        self.slots.len()
    }

    /// The tile in `slot`, if any.
    pub fn get(&self, slot: u32) -> Option<SlotTile<'a>> {
        self.slots.get(slot as usize).copied().flatten()
    }

    /// Occupied slots in ascending order.
    pub fn occupied(&self) -> impl Iterator<Item = (u32, SlotTile<'a>)> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.map(|s| (i as u32, s)))
    }

    /// The (layer, slot) pairs of the tile column (column, row), ascending by layer.
    pub fn column(&self, x: i32, z: i32) -> &[(u16, u32)] {
        self.columns.get(&(x, z)).map_or(&[], Vec::as_slice)
    }

    /// True when at least one tile has an off-mesh link slot (then every edit restitches
    /// every tile).
    pub fn has_off_mesh_links(&self) -> bool {
        self.off_mesh_tiles > 0
    }

    /// The reference of polygon `poly` of the tile in `slot`.
    pub(crate) fn poly_ref(&self, slot: u32, poly: u32) -> Option<PolyRef> {
        let s = self.get(slot)?;
        PolyRef::new(s.salt, slot, poly)
    }
}
