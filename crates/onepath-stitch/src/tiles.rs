//! The set of tiles stitching reads: which tile (and generation) sits in which slot, and
//! which slots make up a tile column.

use std::borrow::Cow;
use std::collections::BTreeMap;

use onepath_format::{NavMeshParams, NavTile, PolyRef};

use crate::off_mesh::link_end_column;

/// A tile in its slot, as stitching sees it.
#[derive(Debug, Clone, Copy)]
pub struct SlotTile<'a> {
    /// The slot's current generation (salt), used in the references links carry.
    pub salt: u32,
    /// The tile.
    pub tile: &'a NavTile,
}

/// A column index: (column, row) -> (layer, slot) pairs, ascending by layer. A mesh can keep
/// one up to date and lend it to [`TileSet::with_indexes`] instead of having it rebuilt.
pub type ColumnIndex = BTreeMap<(i32, i32), Vec<(u16, u32)>>;

/// Where off-mesh links end: per tile column, the (owner slot, link index) of every link
/// slot whose end lies in that column ([`link_end_column`]), ascending. A function of the
/// tiles in their slots (each entry of its owner alone), so a mesh can keep one up to date
/// tile by tile and lend it to [`TileSet::with_indexes`]: it is what lets a change
/// re-attach only the links that end where the change is.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LinkEndIndex {
    columns: BTreeMap<(i32, i32), Vec<(u32, u32)>>,
}

impl LinkEndIndex {
    /// An empty index.
    pub fn new() -> LinkEndIndex {
        LinkEndIndex::default()
    }

    /// Records the link ends of `tile`, placed in `slot` (whose entries must not be present).
    pub fn add_tile(&mut self, params: &NavMeshParams, slot: u32, tile: &NavTile) {
        let d = tile.data();
        for (i, l) in d.off_mesh_links.iter().enumerate() {
            let Some(column) = link_end_column(params, d, l) else {
                continue;
            };
            let key = (slot, i as u32);
            let v = self.columns.entry(column).or_default();
            // The links of one tile come in ascending order, so for a tile added after
            // every other owner of the column this appends.
            let at = v.partition_point(|&e| e < key);
            v.insert(at, key);
        }
    }

    /// Forgets the link ends of `tile`, which was in `slot`.
    pub fn remove_tile(&mut self, params: &NavMeshParams, slot: u32, tile: &NavTile) {
        for column in end_columns(params, tile) {
            if let Some(v) = self.columns.get_mut(&column) {
                v.retain(|&(s, _)| s != slot);
                if v.is_empty() {
                    self.columns.remove(&column);
                }
            }
        }
    }

    /// The (owner slot, link index) of the links ending in column (x, z), ascending.
    pub fn at(&self, x: i32, z: i32) -> &[(u32, u32)] {
        self.columns.get(&(x, z)).map_or(&[], Vec::as_slice)
    }

    /// True when no link end is recorded.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }
}

/// The end column of every off-mesh link slot of `tile` that has one, in link order
/// (repeats included).
pub fn end_columns<'t>(
    params: &'t NavMeshParams,
    tile: &'t NavTile,
) -> impl Iterator<Item = (i32, i32)> + 't {
    let d = tile.data();
    d.off_mesh_links
        .iter()
        .filter_map(move |l| link_end_column(params, d, l))
}

/// The tiles of a mesh in their slots, with a column index and a [`LinkEndIndex`].
/// Stitching is a function of the tiles only; the indexes are derived from them.
#[derive(Debug, Clone)]
pub struct TileSet<'a> {
    params: &'a NavMeshParams,
    slots: Vec<Option<SlotTile<'a>>>,
    /// (column, row) -> (layer, slot), ascending by layer.
    columns: Cow<'a, ColumnIndex>,
    /// Column -> the links ending there.
    ends: Cow<'a, LinkEndIndex>,
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
        let mut ends = LinkEndIndex::new();
        if off_mesh_tiles > 0 {
            for (i, s) in slots.iter().enumerate() {
                if let Some(s) = s {
                    ends.add_tile(params, i as u32, s.tile);
                }
            }
        }
        TileSet {
            params,
            slots,
            columns: Cow::Owned(columns),
            ends: Cow::Owned(ends),
            off_mesh_tiles,
        }
    }

    /// The same set with a column index and a link end index the caller keeps: `columns`
    /// must list exactly the occupied slots by their tiles' positions, ascending by layer,
    /// and `ends` exactly the link ends of the tiles in their slots (a mesh maintains both
    /// on every edit). Entries naming a free slot are skipped.
    pub fn with_indexes(
        params: &'a NavMeshParams,
        tiles: impl IntoIterator<Item = (u32, u32, &'a NavTile)>,
        columns: &'a ColumnIndex,
        ends: &'a LinkEndIndex,
    ) -> TileSet<'a> {
        let (slots, off_mesh_tiles) = Self::slot_table(tiles);
        TileSet {
            params,
            slots,
            columns: Cow::Borrowed(columns),
            ends: Cow::Borrowed(ends),
            off_mesh_tiles,
        }
    }

    #[allow(clippy::type_complexity)]
    fn slot_table(
        tiles: impl IntoIterator<Item = (u32, u32, &'a NavTile)>,
    ) -> (Vec<Option<SlotTile<'a>>>, usize) {
        let tiles = tiles.into_iter();
        // A mesh lists its slots in order, so the upper bound is usually the table's length.
        let mut slots: Vec<Option<SlotTile<'a>>> =
            Vec::with_capacity(tiles.size_hint().1.unwrap_or(0));
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

    /// The (owner slot, link index) of the off-mesh links ending in column (x, z),
    /// ascending.
    pub fn link_ends_at(&self, x: i32, z: i32) -> &[(u32, u32)] {
        self.ends.at(x, z)
    }

    /// True when at least one tile has an off-mesh link slot.
    pub fn has_off_mesh_links(&self) -> bool {
        self.off_mesh_tiles > 0
    }

    /// The reference of polygon `poly` of the tile in `slot`.
    pub(crate) fn poly_ref(&self, slot: u32, poly: u32) -> Option<PolyRef> {
        let s = self.get(slot)?;
        PolyRef::new(s.salt, slot, poly)
    }
}
