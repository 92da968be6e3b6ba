//! [`SlotTable`]: the slots of a mesh under construction, validated entry by entry. The one
//! place where the rules of a slot table are checked: ONPM ([`NavMeshSerializer`]), ONPS
//! (`onepath-snapshot`) and [`TiledNavMesh::from_slots`] all build through it.
//!
//! Rules, in the order [`SlotTable::push`] checks them for each slot: at most
//! [`MAX_SLOTS`] slots; a generation in `1..=MAX_SALT`; a tile built against the table's
//! parameters; a (column, row, layer) position no earlier slot holds. A byte reader also
//! checks each slot's kind byte against the kinds its layout defines
//! ([`SlotTable::check_kind`]). A reader calls [`SlotTable::check_generation`] as soon as
//! it has read the generation and pushes the slot as soon as it has read the tile, so the
//! first broken field of the input is the one reported; `push` checks every rule itself
//! (each position looked up once, and not at all when it follows every earlier one in
//! (row, column, layer) order, as the tiles of a mesh built row by row do), so a table
//! never holds an entry that was not checked. A reader that reads a tile's current state
//! after its slot ([`SlotTable::set_last_state`]) changes only what no rule looks at.
//!
//! [`NavMeshSerializer`]: crate::NavMeshSerializer

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use onepath_format::{
    Fingerprint, FormatError, NavMeshParams, NavTile, TileReader, MAX_SALT, MAX_SLOTS,
};
use onepath_stitch::{check_all, StitchError, TileSet};

use crate::error::MeshError;
use crate::mesh::TiledNavMesh;

/// A broken slot table entry. Converts into the [`FormatError`] a reader reports (the `at`
/// names the slot and the field: `slot count`, `slot 3: generation`, `slot 3: kind`,
/// `slot 3`, `slot 3: position`) and into the [`MeshError`] of
/// [`TiledNavMesh::from_slots`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SlotTableError {
    /// The parameters break a parameter rule.
    Parameters(FormatError),
    /// More slots than [`MAX_SLOTS`].
    TooManySlots {
        /// The slot count asked for.
        count: usize,
    },
    /// A generation outside `1..=MAX_SALT`.
    Generation {
        /// The slot.
        slot: u32,
        /// The generation given.
        generation: u32,
    },
    /// A kind byte the layout does not define.
    Kind {
        /// The slot.
        slot: u32,
        /// The kind byte read.
        kind: u8,
        /// The names of the kinds the layout defines, kind 0 first.
        kinds: &'static [&'static str],
    },
    /// A tile built against other parameters than the table's.
    Fingerprint {
        /// The slot.
        slot: u32,
        /// The tile's fingerprint.
        found: Fingerprint,
        /// The fingerprint of the table's parameters.
        expected: Fingerprint,
    },
    /// A tile refused by the per-tile portal link cap: it and a tile facing it would have
    /// more overlapping portal edge pairs than the cap allows (the stitch error names both
    /// tiles, the side, the counts and the bound). Checked over the whole table when it
    /// becomes a mesh.
    PortalLinkCap(StitchError),
    /// A tile at a position an earlier slot holds.
    Position {
        /// The slot.
        slot: u32,
        /// Tile column.
        x: i32,
        /// Tile row.
        z: i32,
        /// Layer.
        layer: u16,
        /// The earlier slot at the same position.
        other: u32,
    },
}

impl From<SlotTableError> for FormatError {
    fn from(e: SlotTableError) -> FormatError {
        match e {
            SlotTableError::Parameters(e) => e,
            SlotTableError::TooManySlots { count } => {
                FormatError::malformed("slot count", format!("{count} is above {MAX_SLOTS}"))
            }
            SlotTableError::Generation { slot, generation } => FormatError::malformed(
                format!("slot {slot}: generation"),
                format!("{generation} is not in 1..={MAX_SALT}"),
            ),
            SlotTableError::Kind { slot, kind, kinds } => FormatError::malformed(
                format!("slot {slot}: kind"),
                format!("{kind} is not {}", KindList(kinds)),
            ),
            SlotTableError::Fingerprint {
                slot,
                found,
                expected,
            } => FormatError::Fingerprint {
                at: format!("slot {slot}"),
                found,
                expected,
            },
            SlotTableError::PortalLinkCap(e) => {
                let StitchError::PortalLinkCap { slot, .. } = e;
                FormatError::malformed(format!("slot {slot}: portal links"), e.to_string())
            }
            SlotTableError::Position {
                slot,
                x,
                z,
                layer,
                other,
            } => FormatError::malformed(
                format!("slot {slot}: position"),
                format!("({x}, {z}, layer {layer}) is also the position of slot {other}"),
            ),
        }
    }
}

impl From<SlotTableError> for MeshError {
    fn from(e: SlotTableError) -> MeshError {
        match e {
            SlotTableError::TooManySlots { .. } => MeshError::SlotsExhausted,
            SlotTableError::Position {
                x, z, layer, other, ..
            } => MeshError::OccupiedPosition {
                x,
                z,
                layer,
                slot: other,
            },
            SlotTableError::PortalLinkCap(e) => MeshError::PortalLinkCap(e),
            other => MeshError::Format(other.into()),
        }
    }
}

impl fmt::Display for SlotTableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        FormatError::from(self.clone()).fmt(f)
    }
}

impl std::error::Error for SlotTableError {}

/// "0 (free), 1 (inline tile) or 2 (referenced tile)".
struct KindList(&'static [&'static str]);

impl fmt::Display for KindList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let last = self.0.len().saturating_sub(1);
        for (k, name) in self.0.iter().enumerate() {
            let sep = match k {
                0 => "",
                k if k == last => " or ",
                _ => ", ",
            };
            write!(f, "{sep}{k} ({name})")?;
        }
        Ok(())
    }
}

/// The slots of a mesh under construction: per slot index, in order, its generation and
/// its tile, if any. Every entry was checked by [`SlotTable::push`], so
/// [`SlotTable::into_mesh`] cannot fail.
#[derive(Debug, Clone)]
pub struct SlotTable {
    /// The parameters with their fingerprint (hashed once).
    tiles: TileReader,
    slots: Vec<(u32, Option<NavTile>)>,
    /// (column, row, layer) -> slot, of the tiles pushed so far.
    positions: Positions,
}

/// A tile position: (column, row, layer).
type Position = (i32, i32, u16);

/// A position as (row, column, layer), the order of [`Positions`]: the order of a mesh
/// built row by row.
type RowMajor = (i32, i32, u16);

fn row_major((x, z, layer): Position) -> RowMajor {
    (z, x, layer)
}

/// The positions of the tiles pushed so far, with the slot of each: those that came in
/// ascending row-major order (each above every earlier one, so unique without a lookup)
/// in a sorted vector, the others in a map. A table of tiles in that order (a mesh built
/// row by row, and every snapshot or ONPM of it) costs one comparison per tile; any other
/// order costs what a map costs, a lookup and an insertion.
#[derive(Debug, Clone)]
struct Positions {
    /// Ascending, each above every position pushed before it.
    run: Vec<(RowMajor, u32)>,
    /// The positions that were not above every earlier one.
    rest: BTreeMap<RowMajor, u32>,
}

impl Positions {
    /// The slot holding `at`, if any.
    fn get(&self, at: Position) -> Option<u32> {
        let key = row_major(at);
        if let Ok(k) = self.run.binary_search_by(|(p, _)| p.cmp(&key)) {
            return Some(self.run[k].1);
        }
        self.rest.get(&key).copied()
    }

    /// Records `at` for `slot`, or returns the slot already holding it (then nothing
    /// changes).
    fn insert(&mut self, at: Position, slot: u32) -> Result<(), u32> {
        let key = row_major(at);
        let above_all = self.run.last().map_or(true, |(last, _)| key > *last)
            && self
                .rest
                .last_key_value()
                .map_or(true, |(last, _)| key > *last);
        if above_all {
            self.run.push((key, slot));
            return Ok(());
        }
        if let Ok(k) = self.run.binary_search_by(|(p, _)| p.cmp(&key)) {
            return Err(self.run[k].1);
        }
        match self.rest.entry(key) {
            Entry::Occupied(o) => Err(*o.get()),
            Entry::Vacant(v) => {
                v.insert(slot);
                Ok(())
            }
        }
    }
}

impl SlotTable {
    /// An empty table for tiles built against `params`, with room for `count` slots.
    /// Checks the parameters, then `count` against [`MAX_SLOTS`]. A reader checks `count`
    /// against the bytes that remain first (it reserves `count` entries).
    pub fn new(params: &NavMeshParams, count: usize) -> Result<SlotTable, SlotTableError> {
        params.validate().map_err(SlotTableError::Parameters)?;
        if count > MAX_SLOTS as usize {
            return Err(SlotTableError::TooManySlots { count });
        }
        Ok(SlotTable {
            tiles: TileReader::new(params),
            slots: Vec::with_capacity(count),
            positions: Positions {
                run: Vec::with_capacity(count),
                rest: BTreeMap::new(),
            },
        })
    }

    /// The parameters the table's tiles are built against.
    pub fn params(&self) -> &NavMeshParams {
        self.tiles.params()
    }

    /// A reader of tiles against the table's parameters, their fingerprint already
    /// computed: what a byte reader reads the table's tiles with.
    pub fn tile_reader(&self) -> &TileReader {
        &self.tiles
    }

    /// Number of slots pushed; the index the next slot gets.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when no slot was pushed.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The slots pushed, in order.
    pub fn slots(&self) -> &[(u32, Option<NavTile>)] {
        &self.slots
    }

    /// The index of the next slot (fits in u32: [`SlotTable::push`] keeps the count at
    /// most [`MAX_SLOTS`]).
    fn next_slot(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Checks the generation of the next slot: `1..=MAX_SALT`.
    pub fn check_generation(&self, generation: u32) -> Result<(), SlotTableError> {
        if generation == 0 || generation > MAX_SALT {
            return Err(SlotTableError::Generation {
                slot: self.next_slot(),
                generation,
            });
        }
        Ok(())
    }

    /// Checks the kind byte of the next slot against the kinds a layout defines (`kinds`
    /// names them, kind 0 first) and returns it.
    pub fn check_kind(
        &self,
        kind: u8,
        kinds: &'static [&'static str],
    ) -> Result<u8, SlotTableError> {
        if usize::from(kind) >= kinds.len() {
            return Err(SlotTableError::Kind {
                slot: self.next_slot(),
                kind,
                kinds,
            });
        }
        Ok(kind)
    }

    /// Checks the fingerprint of the tile of the next slot.
    fn check_fingerprint(&self, tile: &NavTile) -> Result<(), SlotTableError> {
        if tile.fingerprint() != self.tiles.fingerprint() {
            return Err(SlotTableError::Fingerprint {
                slot: self.next_slot(),
                found: tile.fingerprint(),
                expected: self.tiles.fingerprint(),
            });
        }
        Ok(())
    }

    /// The error for the tile of the next slot at `(x, z, layer)`, held by slot `other`.
    fn position_error(&self, (x, z, layer): (i32, i32, u16), other: u32) -> SlotTableError {
        SlotTableError::Position {
            slot: self.next_slot(),
            x,
            z,
            layer,
            other,
        }
    }

    /// Checks the tile of the next slot: its fingerprint, then that no earlier slot holds
    /// its position ([`SlotTable::push`] checks the same).
    pub fn check_tile(&self, tile: &NavTile) -> Result<(), SlotTableError> {
        self.check_fingerprint(tile)?;
        let at = tile.position();
        if let Some(other) = self.positions.get(at) {
            return Err(self.position_error(at, other));
        }
        Ok(())
    }

    /// Appends the next slot after checking, in order: the slot limit, the generation, and
    /// for a tile its fingerprint and position (one lookup of the position). On error the
    /// table is unchanged.
    pub fn push(&mut self, generation: u32, tile: Option<NavTile>) -> Result<(), SlotTableError> {
        if self.slots.len() >= MAX_SLOTS as usize {
            return Err(SlotTableError::TooManySlots {
                count: self.slots.len() + 1,
            });
        }
        self.check_generation(generation)?;
        if let Some(tile) = &tile {
            self.check_fingerprint(tile)?;
            let slot = self.next_slot();
            let at = tile.position();
            if let Err(other) = self.positions.insert(at, slot) {
                return Err(self.position_error(at, other));
            }
        }
        self.slots.push((generation, tile));
        Ok(())
    }

    /// Gives the tile of the last slot pushed the current areas, flags and off-mesh link
    /// switches `state` returns for it (`None`: keep them), through
    /// [`NavTile::with_current_state`]: its geometry, fingerprint and position, which the
    /// rules checked, stay. For a reader that reads a tile's current state after pushing
    /// its slot. Errors, the table unchanged: those of `state`, the lengths or an area
    /// that `with_current_state` rejects (within `slot N`), or no tile in the last slot
    /// (`slot table`).
    #[allow(clippy::type_complexity)]
    pub fn set_last_state(
        &mut self,
        state: impl FnOnce(
            &NavTile,
        ) -> Result<Option<(Arc<[u8]>, Arc<[u16]>, Arc<[bool]>)>, FormatError>,
    ) -> Result<(), FormatError> {
        let count = self.slots.len();
        let Some((_, Some(tile))) = self.slots.last_mut() else {
            return Err(FormatError::malformed(
                "slot table",
                format!("the last of {count} slots holds no tile to give a current state"),
            ));
        };
        if let Some((areas, flags, link_enabled)) = state(tile)? {
            *tile = tile
                .with_current_state(areas, flags, link_enabled)
                .map_err(|e| e.within(format!("slot {}", count - 1)))?;
        }
        Ok(())
    }

    /// Checks every tile of the table against the per-tile portal link cap
    /// ([`onepath_stitch::check_all`] in slot order; [`SlotTableError::PortalLinkCap`] of
    /// the lowest slot of a refused pair). O(n log n) in the portal edges; no link is made.
    pub fn check_cap(&self) -> Result<(), SlotTableError> {
        let set = TileSet::new(
            self.tiles.params(),
            self.slots
                .iter()
                .enumerate()
                .filter_map(|(i, (g, t))| t.as_ref().map(|t| (i as u32, *g, t))),
        );
        check_all(&set).map_err(SlotTableError::PortalLinkCap)
    }

    /// The mesh of these slots: every slot with its exact generation (free slots
    /// included), stitched once in slot order, after [`SlotTable::check_cap`] (the only
    /// rule that needs every slot, so the only error left).
    pub fn into_mesh(self) -> Result<TiledNavMesh, SlotTableError> {
        self.check_cap()?;
        Ok(TiledNavMesh::from_checked_slots(
            *self.tiles.params(),
            self.slots,
        ))
    }

    /// Makes `mesh` the mesh of these slots, equal to [`SlotTable::into_mesh`], keeping the
    /// tiles and links of the slots that are unchanged (same generation, same geometry) and
    /// restitching only around those that differ. Parameters that are not bitwise those of
    /// `mesh` replace it whole. The portal link cap is checked first (in place, only for
    /// the pairs the differing slots make; the error is the one [`SlotTable::into_mesh`]
    /// gives); on error `mesh` is unchanged.
    pub fn restore_into(self, mesh: &mut TiledNavMesh) -> Result<(), SlotTableError> {
        if self.tiles.params().bitwise_eq(mesh.params()) {
            mesh.assign_checked_slots(self.slots)
                .map_err(SlotTableError::PortalLinkCap)
        } else {
            *mesh = self.into_mesh()?;
            Ok(())
        }
    }
}
