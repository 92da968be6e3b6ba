//! [`TiledNavMesh`]: numbered tile slots with generations, the position index, add /
//! remove / replace, run-time edits, and the stitched links of every tile.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;

use onepath_format::{
    next_salt, Fingerprint, FormatError, NavMeshParams, NavTile, NavTileData, OffMeshLinkSlot,
    PolyRef, TileRef, MAX_AREA, MAX_SLOTS,
};
use smallvec::SmallVec;

use onepath_stitch::{
    admit_tile_with, end_columns, neighbour_column, restitch_scope, stitch_all, stitch_tiles,
    stitch_tiles_and_sides, ColumnIndex, Link, LinkEndIndex, OffMeshConnection, StitchError,
    TileLinks, TileSet,
};

use crate::error::MeshError;
use crate::slot_table::SlotTable;

/// A tile as the mesh holds it: the mesh's own copy of the tile (shared immutable geometry,
/// the mesh's current areas, flags and link switches) and its stitched links.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshTile {
    tile_ref: TileRef,
    origin: [f64; 3],
    tile: NavTile,
    links: TileLinks,
    /// The portal crossings of the links, by departing edge (derived, see [`PortalIndex`]).
    portals: PortalIndex,
    /// The raycast's per-polygon block (derived from the geometry and origin when the tile
    /// enters its slot, see `RayBlock`).
    ray: crate::query::RayBlock,
}

/// One portal link of a tile whose crossing exists: the covered part of the departing edge
/// as `portal_segment` computes it from the two tiles, cached so that a query walking
/// across the edge (the raycast) reads it instead of decoding the neighbour's edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PortalEntry {
    /// Index of the link among its polygon's links ([`MeshTile::poly_links`]).
    pub(crate) link: u32,
    /// The link's target.
    pub(crate) target: PolyRef,
    /// Whether an earlier link of the polygon has the same target (only then can an earlier
    /// reported crossing hide this one).
    pub(crate) shadowed: bool,
    /// Left end of the covered part, seen leaving the polygon (world).
    pub(crate) left: [f64; 3],
    /// Right end of the covered part (world).
    pub(crate) right: [f64; 3],
}

/// The portal links of a tile by departing edge: for corner slot `c` (edge `c − first
/// corner` of its polygon), `entries[first[c]..first[c + 1]]` are the portal links on that
/// edge whose covered part is not empty, in link order. A function of the tile's links and
/// the geometry of the tiles they reach, recomputed whenever the tile's links are
/// (re)stitched: every change that can alter a portal (add, replace, remove of the tile or
/// of a neighbour, a restore, a full restitch) restitches the tile. Never serialized; part
/// of the mesh's equality (a function of what is compared anyway), so the tests comparing a
/// mesh with one built at once from the same slots check it too.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct PortalIndex {
    pub(crate) first: Vec<u32>,
    pub(crate) entries: Vec<PortalEntry>,
}

impl MeshTile {
    /// The (salt, slot) of this tile generation.
    pub fn tile_ref(&self) -> TileRef {
        self.tile_ref
    }

    /// The slot index.
    pub fn slot(&self) -> u32 {
        self.tile_ref.slot
    }

    /// World origin of the tile: X/Z from the parameters (`tile_origin`), Y = the tile's OriginY.
    pub fn origin(&self) -> [f64; 3] {
        self.origin
    }

    /// World position of tile vertex `v`: origin + local, in f64 (`None` past the count).
    pub fn vertex_world(&self, v: usize) -> Option<[f64; 3]> {
        let l = self.tile.data().vertices.get(v)?;
        let o = self.origin;
        Some([
            o[0] + f64::from(l[0]),
            o[1] + f64::from(l[1]),
            o[2] + f64::from(l[2]),
        ])
    }

    /// World positions of polygon `poly`'s corners, in corner order (counter-clockwise seen
    /// from above). Empty when `poly` is out of range. Does not allocate.
    pub fn poly_world_vertices(&self, poly: usize) -> impl Iterator<Item = [f64; 3]> + '_ {
        let d = self.tile.data();
        let range = if poly < self.tile.poly_count() {
            self.tile.poly_corners(poly)
        } else {
            0..0
        };
        range.filter_map(move |c| self.vertex_world(usize::from(d.corners[c])))
    }

    /// The mesh's copy of the tile (current areas, flags and switches; as-built values in
    /// its data).
    pub fn tile(&self) -> &NavTile {
        &self.tile
    }

    /// The stitched links of the tile.
    pub fn links(&self) -> &TileLinks {
        &self.links
    }

    /// The links leaving polygon `poly`, in stitching order (empty when out of range).
    pub fn poly_links(&self, poly: usize) -> &[Link] {
        self.links.poly_links(poly)
    }

    /// The portal links on corner slot `corner`'s edge whose covered part is not empty, in
    /// link order (see [`PortalIndex`]); empty past the corners.
    pub(crate) fn edge_portals(&self, corner: usize) -> &[PortalEntry] {
        let f = &self.portals.first;
        match (f.get(corner), f.get(corner + 1)) {
            (Some(&a), Some(&b)) => self
                .portals
                .entries
                .get(a as usize..b as usize)
                .unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The raycast's per-polygon block (corners' world X/Z, per-edge neighbour, current
    /// areas and flags).
    #[inline]
    pub(crate) fn ray_block(&self) -> &crate::query::RayBlock {
        &self.ray
    }

    /// Takes `tile`, the same geometry with another current state (areas, flags, link
    /// switches), and copies its areas and flags into the raycast block.
    fn set_state(&mut self, tile: NavTile) {
        self.tile = tile;
        self.ray.copy_state(&self.tile);
    }

    /// Where each of the tile's off-mesh link slots attached, in slot order.
    pub fn off_mesh_connections(&self) -> &[OffMeshConnection] {
        self.links.off_mesh()
    }

    /// The reference of polygon `poly` of this tile generation (`None` past the count).
    pub fn poly_ref(&self, poly: u32) -> Option<PolyRef> {
        if (poly as usize) < self.tile.poly_count() {
            self.tile_ref.poly(poly)
        } else {
            None
        }
    }

    /// Polygons whose current area or flags differ from the as-built values:
    /// `(polygon, current area, current flags)`, ascending polygon.
    pub fn poly_edits(&self) -> impl Iterator<Item = (u32, u8, u16)> + '_ {
        let (a, f) = (self.tile.areas(), self.tile.flags());
        let (ba, bf) = (self.tile.as_built_areas(), self.tile.as_built_flags());
        // Most tiles of a mesh carry no edit: two slice comparisons skip the walk.
        let walk = if a[..] == ba[..] && f[..] == bf[..] {
            0
        } else {
            a.len()
        };
        (0..walk)
            .filter(move |&p| a[p] != ba[p] || f[p] != bf[p])
            .map(move |p| (p as u32, a[p], f[p]))
    }

    /// Indices of the off-mesh links currently disabled, ascending.
    pub fn disabled_links(&self) -> impl Iterator<Item = u32> + '_ {
        self.tile
            .link_enabled()
            .iter()
            .enumerate()
            .filter(|(_, &on)| !on)
            .map(|(i, _)| i as u32)
    }
}

/// One slot: its generation and the tile in it, if any.
#[derive(Debug, Clone, PartialEq)]
struct Slot {
    generation: u32,
    tile: Option<MeshTile>,
    /// [`TiledNavMesh::slot_stamp`]: a fresh value whenever the slot's tile, its current
    /// state or its links change (ignored by `==`, as [`StateId`] is).
    stamp: StateId,
}

/// A read-only view of one slot (for snapshots and tools).
#[derive(Debug, Clone, Copy)]
pub struct SlotView<'a> {
    /// Slot index.
    pub slot: u32,
    /// Current generation (salt), 1..=0xFFFFFF.
    pub generation: u32,
    /// The tile in the slot, if any.
    pub tile: Option<&'a MeshTile>,
}

/// [`ColumnGrid`] cell of a column without tiles.
const GRID_EMPTY: u32 = 0;
/// [`ColumnGrid`] cell of a column the grid does not answer (several tiles).
const GRID_MANY: u32 = u32::MAX;

/// A dense lookup of the tile columns: over a rectangle of columns, per column
/// [`GRID_EMPTY`], `slot + 1` when the column holds exactly one tile, or [`GRID_MANY`].
/// Derived from the column index and kept in step with it (every change of a column
/// updates its cell); never serialized. Equality of meshes ignores it: it holds nothing the
/// positions do not, and its extent depends on the order tiles came in.
#[derive(Debug, Clone, Default)]
struct ColumnGrid {
    /// Smallest column and row covered.
    x0: i64,
    z0: i64,
    /// Columns and rows covered (0 when the grid covers nothing).
    w: i64,
    h: i64,
    cells: Vec<u32>,
    /// After the grid was given up as too sparse: the column count at which growing it is
    /// tried again (so a sparse mesh does not rescan its columns on every new column).
    retry_at: usize,
}

impl PartialEq for ColumnGrid {
    fn eq(&self, _: &ColumnGrid) -> bool {
        true
    }
}

/// Names the state of a mesh for derived data kept outside it (a landmark table): every
/// change of the mesh takes a new value from a process-wide counter, so two meshes (or one
/// mesh at two times) with the same value hold the same state; a clone shares its
/// original's value until either changes. Never serialized and never part of an answer;
/// equality of meshes ignores it.
#[derive(Debug, Clone, Copy)]
struct StateId(u64);

impl StateId {
    fn fresh() -> StateId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        StateId(NEXT.fetch_add(1, AtomicOrdering::Relaxed))
    }
}

impl PartialEq for StateId {
    fn eq(&self, _: &StateId) -> bool {
        true
    }
}

/// The grid is not grown past this many cells, nor past [`GRID_CELLS_PER_COLUMN`] cells
/// per occupied column (a sparse mesh keeps using the position index).
const GRID_MAX_CELLS: i64 = 1 << 22;
const GRID_CELLS_PER_COLUMN: i64 = 16;

impl ColumnGrid {
    /// The cell of column (x, z), `None` outside the grid.
    fn cell(&self, x: i32, z: i32) -> Option<u32> {
        let (dx, dz) = (i64::from(x) - self.x0, i64::from(z) - self.z0);
        if dx < 0 || dz < 0 || dx >= self.w || dz >= self.h {
            return None;
        }
        self.cells.get((dz * self.w + dx) as usize).copied()
    }

    /// The cell a column of the index holds.
    fn value(columns: &ColumnIndex, x: i32, z: i32) -> u32 {
        match columns.get(&(x, z)).map(Vec::as_slice) {
            None | Some([]) => GRID_EMPTY,
            Some(&[(_, slot)]) if slot < GRID_MANY - 1 => slot + 1,
            Some(_) => GRID_MANY,
        }
    }

    /// Brings the cell of column (x, z) in step with `columns`, after that column changed;
    /// grows the grid (with a margin, so a growing mesh rebuilds it rarely) when the column
    /// lies outside, unless that would exceed the size limits.
    fn update(&mut self, x: i32, z: i32, columns: &ColumnIndex) {
        let v = ColumnGrid::value(columns, x, z);
        let (dx, dz) = (i64::from(x) - self.x0, i64::from(z) - self.z0);
        if dx >= 0 && dz >= 0 && dx < self.w && dz < self.h {
            self.cells[(dz * self.w + dx) as usize] = v;
            return;
        }
        if v == GRID_EMPTY || columns.len() < self.retry_at {
            // Outside the grid a column is looked up in the index anyway.
            return;
        }
        let (mut x0, mut z0, mut x1, mut z1) =
            (i64::from(x), i64::from(z), i64::from(x), i64::from(z));
        for &(cx, cz) in columns.keys() {
            x0 = x0.min(i64::from(cx));
            z0 = z0.min(i64::from(cz));
            x1 = x1.max(i64::from(cx));
            z1 = z1.max(i64::from(cz));
        }
        let (mx, mz) = ((x1 - x0) / 4 + 1, (z1 - z0) / 4 + 1);
        let (x0, z0, x1, z1) = (x0 - mx, z0 - mz, x1 + mx, z1 + mz);
        let (w, h) = (x1 - x0 + 1, z1 - z0 + 1);
        let limit = GRID_MAX_CELLS.min(GRID_CELLS_PER_COLUMN.saturating_mul(columns.len() as i64));
        if w.saturating_mul(h) > limit {
            *self = ColumnGrid {
                retry_at: columns.len().saturating_mul(2),
                ..ColumnGrid::default()
            };
            return;
        }
        self.retry_at = 0;
        self.x0 = x0;
        self.z0 = z0;
        self.w = w;
        self.h = h;
        self.cells.clear();
        self.cells.resize((w * h) as usize, GRID_EMPTY);
        for &(cx, cz) in columns.keys() {
            let i = (i64::from(cz) - z0) * w + (i64::from(cx) - x0);
            self.cells[i as usize] = ColumnGrid::value(columns, cx, cz);
        }
    }
}

/// A tiled navigation mesh: tiles in numbered slots, each slot with a generation, plus the
/// links stitched between them. See the crate docs for the rules.
#[derive(Debug, Clone, PartialEq)]
pub struct TiledNavMesh {
    params: NavMeshParams,
    fingerprint: Fingerprint,
    slots: Vec<Slot>,
    /// Free slot indices below `slots.len()`.
    free: BTreeSet<u32>,
    /// (column, row, layer) -> slot.
    positions: BTreeMap<(i32, i32, u16), u32>,
    /// The same positions by column, for stitching: (column, row) -> (layer, slot) ascending.
    columns: ColumnIndex,
    /// Derived from `columns` for [`TiledNavMesh::tiles_at`] (queries look up a column per
    /// call): never serialized, never compared.
    column_grid: ColumnGrid,
    /// Where the off-mesh links of the tiles end, for stitching: column -> (owner slot,
    /// link index) ascending. A function of the tiles in their slots, kept in step on every
    /// change, so a change re-attaches only the links ending where it is.
    ends: LinkEndIndex,
    /// Changes with every change of the mesh ([`TiledNavMesh::state_id`]).
    state: StateId,
}

impl TiledNavMesh {
    /// An empty mesh over validated `params`.
    pub fn new(params: NavMeshParams) -> Result<TiledNavMesh, MeshError> {
        params.validate()?;
        Ok(TiledNavMesh::empty(params))
    }

    /// An empty mesh over `params`, which the caller validated.
    fn empty(params: NavMeshParams) -> TiledNavMesh {
        TiledNavMesh {
            fingerprint: params.fingerprint(),
            params,
            slots: Vec::new(),
            free: BTreeSet::new(),
            positions: BTreeMap::new(),
            columns: ColumnIndex::new(),
            column_grid: ColumnGrid::default(),
            ends: LinkEndIndex::new(),
            state: StateId::fresh(),
        }
    }

    /// A complete mesh from its slots: `(generation, tile)` per slot index, in order. Checks
    /// the parameters, the slot count, then per slot its generation (1..=0xFFFFFF), its
    /// tile's fingerprint and the uniqueness of its position (the rules of [`SlotTable`],
    /// which the mesh and snapshot readers build through), then stitches once in slot
    /// order. This is how a new state is built on the side.
    pub fn from_slots(
        params: NavMeshParams,
        slots: Vec<(u32, Option<NavTile>)>,
    ) -> Result<TiledNavMesh, MeshError> {
        let mut table = SlotTable::new(&params, slots.len())?;
        for (generation, tile) in slots {
            table.push(generation, tile)?;
        }
        Ok(table.into_mesh()?)
    }

    /// Makes this mesh the mesh of slots a [`SlotTable`] checked against the mesh's own
    /// parameters (the result equals [`TiledNavMesh::from_checked_slots`] of them), keeping
    /// what did not change: a slot with the same generation and a tile of the same geometry
    /// ([`same_geometry`]) keeps its tile's links and takes the new current areas, flags
    /// and switches; only the slots that differ are taken out and put in, and only what
    /// they can affect is restitched. Fails only on the portal link cap, checked first
    /// for the pairs the slots that differ make (the others were checked when they came
    /// in), with the error [`onepath_stitch::check_all`] gives for the whole new state;
    /// then the mesh is unchanged.
    pub(crate) fn assign_checked_slots(
        &mut self,
        slots: Vec<(u32, Option<NavTile>)>,
    ) -> Result<(), StitchError> {
        let old_len = self.slots.len();
        let new_len = slots.len();
        // The slots whose tile (or the generation of their tile) changes.
        let differs = |i: usize, new: Option<&(u32, Option<NavTile>)>| {
            let old = self.slots.get(i);
            match (old, new) {
                (Some(o), Some((g, t))) => match (&o.tile, t) {
                    (None, None) => false,
                    (Some(mt), Some(t)) => o.generation != *g || !same_geometry(&mt.tile, t),
                    _ => true,
                },
                (Some(o), None) => o.tile.is_some(),
                (None, Some((_, t))) => t.is_some(),
                (None, None) => false,
            }
        };
        let changed: Vec<usize> = (0..old_len.max(new_len))
            .filter(|&i| differs(i, slots.get(i)))
            .collect();
        self.check_cap_of_changes(&slots, &changed)?;
        if changed.len() * 2 > self.tile_count().max(1) {
            // Most tiles differ: building the new state whole costs less than the edits.
            *self = TiledNavMesh::from_checked_slots(self.params, slots);
            return Ok(());
        }
        self.state = StateId::fresh();
        let mut columns = BTreeSet::new();
        let mut departed = BTreeSet::new();
        for &i in &changed {
            if let Some(s) = self.slots.get_mut(i) {
                s.stamp = StateId::fresh();
            }
            if let Some(mt) = self.slots.get_mut(i).and_then(|s| s.tile.take()) {
                let tile = self.unplace(i as u32, mt);
                let (x, z, _) = tile.position();
                columns.insert((x, z));
                departed.extend(end_columns(&self.params, &tile));
            }
        }
        // Dropped slots are empty now; their indexes leave the free set.
        self.slots.truncate(new_len);
        let _ = self.free.split_off(&(new_len as u32));
        let mut changed = changed.into_iter().peekable();
        for (i, (generation, tile)) in slots.into_iter().enumerate() {
            let slot = i as u32;
            let is_changed = changed.next_if_eq(&i).is_some();
            if i == self.slots.len() {
                self.slots.push(Slot {
                    generation,
                    tile: None,
                    stamp: StateId::fresh(),
                });
            }
            self.slots[i].generation = generation;
            match tile {
                None => {
                    self.free.insert(slot);
                }
                Some(tile) if is_changed => {
                    self.free.remove(&slot);
                    let (x, z, layer) = tile.position();
                    columns.insert((x, z));
                    self.ends.add_tile(&self.params, slot, &tile);
                    let mt = self.mesh_tile(
                        TileRef {
                            salt: generation,
                            slot,
                        },
                        tile,
                    );
                    self.slots[i].tile = Some(mt);
                    self.place(x, z, layer, slot);
                }
                Some(tile) => {
                    // Same generation, same geometry: the links stay; the current state is
                    // the snapshot's.
                    let s = &mut self.slots[i];
                    if let Some(mt) = s.tile.as_mut() {
                        let same = mt.tile.areas() == tile.areas()
                            && mt.tile.flags() == tile.flags()
                            && mt.tile.link_enabled() == tile.link_enabled();
                        if !same {
                            s.stamp = StateId::fresh();
                        }
                        mt.set_state(tile);
                    }
                }
            }
        }
        if !columns.is_empty() {
            let columns: Vec<(i32, i32)> = columns.into_iter().collect();
            let departed: Vec<(i32, i32)> = departed.into_iter().collect();
            self.restitch(&columns, &departed);
        }
        Ok(())
    }

    /// The portal link cap over the state `slots` describes, of which only the slots
    /// `changed` (ascending) differ from this mesh: every pair of facing tiles the cap can
    /// refuse has a tile in a changed slot (a pair of unchanged tiles passed when they came
    /// in, and the rule is one per pair). On failure, the error of the lowest slot of any
    /// refused pair, checked against the whole new state: what
    /// [`onepath_stitch::check_all`] of that state gives.
    fn check_cap_of_changes(
        &self,
        slots: &[(u32, Option<NavTile>)],
        changed: &[usize],
    ) -> Result<(), StitchError> {
        // The new tiles of the changed slots, by column: (layer, slot, tile).
        let mut fresh: BTreeMap<(i32, i32), Vec<LayerTile<'_>>> = BTreeMap::new();
        for &i in changed {
            if let Some((_, Some(t))) = slots.get(i) {
                let (x, z, layer) = t.position();
                fresh.entry((x, z)).or_default().push((layer, i as u32, t));
            }
        }
        // The tiles of column (x, z) in the new state, ascending layer.
        let column = |x: i32, z: i32| -> Vec<(u32, &NavTile)> {
            let mut out: Vec<LayerTile<'_>> = self
                .columns
                .get(&(x, z))
                .into_iter()
                .flatten()
                .filter(|&&(_, slot)| changed.binary_search(&(slot as usize)).is_err())
                .filter_map(|&(layer, slot)| {
                    let t = self.slots.get(slot as usize)?.tile.as_ref()?;
                    Some((layer, slot, &t.tile))
                })
                .collect();
            out.extend(fresh.get(&(x, z)).into_iter().flatten().copied());
            out.sort_unstable_by_key(|&(layer, _, _)| layer);
            out.into_iter().map(|(_, slot, t)| (slot, t)).collect()
        };
        let tile_of = |slot: u32| -> Option<&NavTile> {
            if changed.binary_search(&(slot as usize)).is_ok() {
                slots.get(slot as usize)?.1.as_ref()
            } else {
                Some(&self.slots.get(slot as usize)?.tile.as_ref()?.tile)
            }
        };
        let mut lowest: Option<u32> = None;
        for group in fresh.values() {
            for &(_, slot, tile) in group {
                if admit_tile_with(slot, tile, &column).is_ok() {
                    continue;
                }
                // Refused: this slot and every tile it makes a refused pair with.
                let mut low = slot;
                let (x, z, _) = tile.position();
                for side in 0..4u8 {
                    let Some((nx, nz)) = neighbour_column(x, z, side) else {
                        continue;
                    };
                    for (other, t) in column(nx, nz) {
                        let alone = admit_tile_with(slot, tile, |cx, cz| {
                            ((cx, cz) == (nx, nz)).then_some((other, t))
                        });
                        if alone.is_err() {
                            low = low.min(other);
                        }
                    }
                }
                lowest = Some(lowest.map_or(low, |l| l.min(low)));
            }
        }
        match lowest.and_then(|s| tile_of(s).map(|t| (s, t))) {
            Some((slot, tile)) => admit_tile_with(slot, tile, &column),
            None => Ok(()),
        }
    }

    /// The mesh of slots a [`SlotTable`] checked: validated parameters, at most
    /// [`MAX_SLOTS`] slots, generations in range, tiles of these parameters at distinct
    /// positions.
    pub(crate) fn from_checked_slots(
        params: NavMeshParams,
        slots: Vec<(u32, Option<NavTile>)>,
    ) -> TiledNavMesh {
        let mut mesh = TiledNavMesh::empty(params);
        mesh.slots.reserve_exact(slots.len());
        for (i, (generation, tile)) in slots.into_iter().enumerate() {
            let slot = i as u32;
            let tile = match tile {
                None => {
                    mesh.free.insert(slot);
                    None
                }
                Some(tile) => {
                    let (x, z, layer) = tile.position();
                    mesh.place(x, z, layer, slot);
                    mesh.ends.add_tile(&mesh.params, slot, &tile);
                    Some(mesh.mesh_tile(
                        TileRef {
                            salt: generation,
                            slot,
                        },
                        tile,
                    ))
                }
            };
            mesh.slots.push(Slot {
                generation,
                tile,
                stamp: StateId::fresh(),
            });
        }
        mesh.restitch_all();
        mesh
    }

    fn mesh_tile(&self, tile_ref: TileRef, tile: NavTile) -> MeshTile {
        let d = tile.data();
        let (ox, oz) = self.params.tile_origin(d.tile_x, d.tile_z);
        let origin = [ox, d.origin_y, oz];
        MeshTile {
            tile_ref,
            origin,
            ray: crate::query::RayBlock::build(&tile, origin),
            tile,
            links: TileLinks::default(),
            portals: PortalIndex::default(),
        }
    }

    /// Checks `tile`, about to sit in `slot`, against the portal link cap with the tiles
    /// of the mesh facing it (its own column is not looked at, so the tile it replaces
    /// does not count). Changes nothing.
    fn check_cap(&self, slot: u32, tile: &NavTile) -> Result<(), MeshError> {
        admit_tile_with(slot, tile, |x, z| {
            self.tiles_at(x, z).map(|t| (t.slot(), &t.tile))
        })
        .map_err(MeshError::PortalLinkCap)
    }

    fn check_fingerprint(&self, tile: &NavTile, at: &str) -> Result<(), MeshError> {
        if tile.fingerprint() != self.fingerprint {
            return Err(FormatError::Fingerprint {
                at: at.to_string(),
                found: tile.fingerprint(),
                expected: self.fingerprint,
            }
            .into());
        }
        Ok(())
    }

    /// A value naming the mesh's current state: it changes with every change of the mesh
    /// (a tile added, replaced or removed, an area, flag or link switch set, a restitch), and
    /// no other mesh of the process has it unless it is an unchanged clone. Derived data kept
    /// outside the mesh (a [`CompiledGraph`](crate::query::CompiledGraph) table) compares it to know
    /// whether it is still current. Not deterministic across runs, never serialized, never an
    /// answer, ignored by `==`.
    pub fn state_id(&self) -> u64 {
        self.state.0
    }

    /// The mesh parameters.
    pub fn params(&self) -> &NavMeshParams {
        &self.params
    }

    /// The build fingerprint of the parameters (every tile carries the same).
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// Number of slots (occupied and free). Slots are never dropped: a freed slot keeps its
    /// advanced generation for the next tile.
    pub fn slot_count(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Number of tiles.
    pub fn tile_count(&self) -> usize {
        self.positions.len()
    }

    /// The generation (salt) of `slot`, or `None` past the slot count.
    pub fn slot_generation(&self, slot: u32) -> Option<u32> {
        self.slots.get(slot as usize).map(|s| s.generation)
    }

    /// A value naming the current contents of `slot` (`None` past the slot count), as
    /// [`TiledNavMesh::state_id`] names the whole mesh's: it changes whenever the slot's
    /// tile (added, replaced, removed), its current state (an area, flag or link switch)
    /// or its links (a restitch after a change nearby, a restore) change, and stays when
    /// only other slots change. Derived data read from a few tiles (a crowd agent's local
    /// boundary) compares it with `==` to know whether it is still current. From a
    /// process-wide counter: not deterministic across runs, never serialized, never an
    /// answer, ignored by `==` of meshes.
    pub fn slot_stamp(&self, slot: u32) -> Option<u64> {
        self.slots.get(slot as usize).map(|s| s.stamp.0)
    }

    /// Every slot in order, with its generation and tile.
    pub fn slots(&self) -> impl ExactSizeIterator<Item = SlotView<'_>> + '_ {
        self.slots.iter().enumerate().map(|(i, s)| SlotView {
            slot: i as u32,
            generation: s.generation,
            tile: s.tile.as_ref(),
        })
    }

    /// The tiles in slot order.
    pub fn tiles(&self) -> impl Iterator<Item = &MeshTile> + '_ {
        self.slots.iter().filter_map(|s| s.tile.as_ref())
    }

    /// Free slot indices below the slot count, ascending.
    pub fn free_slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.free.iter().copied()
    }

    /// The tile in `slot`, if any.
    pub fn tile_at_slot(&self, slot: u32) -> Option<&MeshTile> {
        self.slots.get(slot as usize)?.tile.as_ref()
    }

    /// The tile of this generation, or `None` when the reference is stale or unknown.
    pub fn tile(&self, r: TileRef) -> Option<&MeshTile> {
        let s = self.slots.get(r.slot as usize)?;
        if s.generation != r.salt {
            return None;
        }
        s.tile.as_ref()
    }

    /// The mesh's copy of the tile (current areas, flags and switches), or `None` when the
    /// reference is stale or unknown.
    pub fn get_tile(&self, r: TileRef) -> Option<&NavTile> {
        self.tile(r).map(MeshTile::tile)
    }

    /// The tile at (column, row, layer).
    pub fn tile_at(&self, x: i32, z: i32, layer: u16) -> Option<&MeshTile> {
        let slot = *self.positions.get(&(x, z, layer))?;
        self.tile_at_slot(slot)
    }

    /// The tiles of column (x, z), ascending by layer. Does not allocate.
    pub fn tiles_at(&self, x: i32, z: i32) -> impl Iterator<Item = &MeshTile> + '_ {
        // A column holding one tile (or none) is answered by the dense grid; any other, or
        // one outside the grid, by the position index (the same tiles in the same order).
        let (one, many) = match self.column_grid.cell(x, z) {
            Some(GRID_EMPTY) => (None, None),
            Some(c) if c != GRID_MANY => (Some(c - 1), None),
            _ => (
                None,
                Some(self.positions.range((x, z, 0)..=(x, z, u16::MAX))),
            ),
        };
        one.into_iter()
            .chain(many.into_iter().flatten().map(|(_, &slot)| slot))
            .filter_map(move |slot| self.tile_at_slot(slot))
    }

    /// The tile column (column, row) holding world point (x, z), after checking the
    /// coordinate rule ([`MeshError::CoordinateOutOfRange`] names the value and the bound).
    pub fn column_at_point(&self, x: f64, z: f64) -> Result<(i32, i32), MeshError> {
        NavMeshParams::check_coordinate("x", x)?;
        NavMeshParams::check_coordinate("z", z)?;
        Ok(self.params.world_to_tile(x, z))
    }

    /// True iff `r`'s slot exists, holds a tile, has generation `r.salt()` and the tile has
    /// polygon `r.poly()`. The null reference and every forged value are invalid.
    pub fn is_valid_poly_ref(&self, r: PolyRef) -> bool {
        self.poly(r).is_ok()
    }

    /// Decodes a polygon reference: the tile and the polygon index, or
    /// [`MeshError::InvalidPolyRef`].
    pub fn poly(&self, r: PolyRef) -> Result<(&MeshTile, usize), MeshError> {
        let t = self.tile(r.tile()).ok_or(MeshError::InvalidPolyRef(r))?;
        let p = r.poly() as usize;
        if r.salt() == 0 || p >= t.tile.poly_count() {
            return Err(MeshError::InvalidPolyRef(r));
        }
        Ok((t, p))
    }

    /// The links leaving the polygon, in stitching order.
    pub fn poly_links(&self, r: PolyRef) -> Result<&[Link], MeshError> {
        let (t, p) = self.poly(r)?;
        Ok(t.poly_links(p))
    }

    /// The polygon's current area.
    pub fn poly_area(&self, r: PolyRef) -> Result<u8, MeshError> {
        let (t, p) = self.poly(r)?;
        Ok(t.tile.areas()[p])
    }

    /// The polygon's current flags.
    pub fn poly_flags(&self, r: PolyRef) -> Result<u16, MeshError> {
        let (t, p) = self.poly(r)?;
        Ok(t.tile.flags()[p])
    }

    /// Whether off-mesh link `link` of the tile is enabled (links start enabled).
    pub fn off_mesh_link_enabled(&self, r: TileRef, link: u32) -> Result<bool, MeshError> {
        let t = self.tile(r).ok_or(MeshError::StaleTileRef(r))?;
        let sw = t.tile.link_enabled();
        sw.get(link as usize)
            .copied()
            .ok_or(MeshError::LinkOutOfRange {
                link,
                count: sw.len() as u32,
            })
    }

    /// Where off-mesh link `link` of the tile attached.
    pub fn off_mesh_connection(
        &self,
        r: TileRef,
        link: u32,
    ) -> Result<&OffMeshConnection, MeshError> {
        let t = self.tile(r).ok_or(MeshError::StaleTileRef(r))?;
        let c = t.off_mesh_connections();
        c.get(link as usize).ok_or(MeshError::LinkOutOfRange {
            link,
            count: c.len() as u32,
        })
    }

    /// Adds a tile into the lowest free slot. Checks, in order: the fingerprint
    /// ([`FormatError::Fingerprint`]), the position ([`MeshError::OccupiedPosition`]), a free
    /// slot ([`MeshError::SlotsExhausted`]), the portal link cap against every tile facing
    /// it ([`MeshError::PortalLinkCap`], naming the tile and the slot it would take); a
    /// refused tile changes nothing. Restitches what the new tile can affect: its
    /// column and the four side neighbours, the owners of off-mesh links ending in its
    /// column, and the tiles where its own links end.
    pub fn add_tile(&mut self, tile: NavTile) -> Result<TileRef, MeshError> {
        self.check_fingerprint(&tile, "added tile")?;
        let (x, z, layer) = tile.position();
        if let Some(&slot) = self.positions.get(&(x, z, layer)) {
            return Err(MeshError::OccupiedPosition { x, z, layer, slot });
        }
        let slot = match self.free.first() {
            Some(&s) => s,
            None if self.slots.len() < MAX_SLOTS as usize => self.slots.len() as u32,
            None => return Err(MeshError::SlotsExhausted),
        };
        self.check_cap(slot, &tile)?;
        if slot as usize == self.slots.len() {
            self.slots.push(Slot {
                generation: 1,
                tile: None,
                stamp: StateId::fresh(),
            });
        }
        self.free.remove(&slot);
        let tile_ref = TileRef {
            salt: self.slots[slot as usize].generation,
            slot,
        };
        self.ends.add_tile(&self.params, slot, &tile);
        let mt = self.mesh_tile(tile_ref, tile);
        self.slots[slot as usize].tile = Some(mt);
        self.slots[slot as usize].stamp = StateId::fresh();
        self.place(x, z, layer, slot);
        self.restitch_column((x, z), &[], Some(slot));
        Ok(tile_ref)
    }

    /// Whether `tile` passes the portal link cap against the tiles that face it now: the cap
    /// check [`TiledNavMesh::add_tile`] and [`TiledNavMesh::replace_tile`] make, with the same
    /// error ([`MeshError::PortalLinkCap`], naming the slot the tile holds at its position, else
    /// the slot `add_tile` would give it). Changes nothing. Only tiles in the four side
    /// columns face a tile, so a host that swaps several layers of one column (the tile cache)
    /// can check each new layer first and then swap them all or none.
    pub fn check_portal_link_cap(&self, tile: &NavTile) -> Result<(), MeshError> {
        let (x, z, layer) = tile.position();
        let slot = match self.positions.get(&(x, z, layer)) {
            Some(&s) => s,
            None => self
                .free
                .first()
                .copied()
                .unwrap_or(self.slots.len() as u32),
        };
        self.check_cap(slot, tile)
    }

    /// Replaces the tile at the new tile's position: the slot stays, its generation advances
    /// (old references become invalid even if the new tile is identical), and the position's
    /// edits reset to the new tile's current values. Checks the fingerprint first, then that a
    /// tile is at the position ([`MeshError::NoTileAtPosition`]), then the portal link cap
    /// against every tile facing it ([`MeshError::PortalLinkCap`]); a refused tile changes
    /// nothing. Returns the removed tile.
    pub fn replace_tile(&mut self, tile: NavTile) -> Result<(TileRef, NavTile), MeshError> {
        self.replace_tile_inner(tile, true)
    }

    /// [`TiledNavMesh::replace_tile`] without the portal link cap check, for a host that has
    /// just made that very check with [`TiledNavMesh::check_portal_link_cap`] on this tile and
    /// changed nothing in the four side columns since (the tile cache's all-or-nothing swap of
    /// a column: the check reads only the side columns, and the slot at the position is the
    /// one both name). The fingerprint and the position are still checked. Not a public
    /// interface: a tile over the cap would be stitched.
    #[doc(hidden)]
    pub fn replace_tile_cap_checked(
        &mut self,
        tile: NavTile,
    ) -> Result<(TileRef, NavTile), MeshError> {
        self.replace_tile_inner(tile, false)
    }

    fn replace_tile_inner(
        &mut self,
        tile: NavTile,
        check_cap: bool,
    ) -> Result<(TileRef, NavTile), MeshError> {
        self.check_fingerprint(&tile, "replacing tile")?;
        let (x, z, layer) = tile.position();
        let Some(&slot) = self.positions.get(&(x, z, layer)) else {
            return Err(MeshError::NoTileAtPosition { x, z, layer });
        };
        if check_cap {
            self.check_cap(slot, &tile)?;
        }
        if let Some(old) = &self.slots[slot as usize].tile {
            self.ends.remove_tile(&self.params, slot, &old.tile);
        }
        self.ends.add_tile(&self.params, slot, &tile);
        let s = &mut self.slots[slot as usize];
        s.generation = next_salt(s.generation);
        s.stamp = StateId::fresh();
        let tile_ref = TileRef {
            salt: s.generation,
            slot,
        };
        let mt = self.mesh_tile(tile_ref, tile);
        let old = self.slots[slot as usize]
            .tile
            .replace(mt)
            .expect("positions index names an occupied slot");
        let departed: Vec<(i32, i32)> = end_columns(&self.params, &old.tile).collect();
        self.restitch_column((x, z), &departed, Some(slot));
        Ok((tile_ref, old.tile))
    }

    /// Removes the tile of this generation, advancing the slot's generation and freeing it.
    /// Returns the mesh's copy of the tile (current values).
    pub fn remove_tile(&mut self, r: TileRef) -> Result<NavTile, MeshError> {
        if self.tile(r).is_none() {
            return Err(MeshError::StaleTileRef(r));
        }
        let tile = self.take_slot(r.slot);
        let (x, z, _) = tile.position();
        let departed: Vec<(i32, i32)> = end_columns(&self.params, &tile).collect();
        self.restitch_column((x, z), &departed, None);
        Ok(tile)
    }

    /// Removes the tile at (column, row, layer), if any (as [`TiledNavMesh::remove_tile`]).
    pub fn remove_tile_at(&mut self, x: i32, z: i32, layer: u16) -> Option<NavTile> {
        let r = self.tile_at(x, z, layer)?.tile_ref;
        self.remove_tile(r).ok()
    }

    /// Removes every layer of the column (x, z), lowest layer first, each as one removal
    /// (slot freed, generation advanced); restitches once. Returns the removed tiles in that
    /// order.
    pub fn remove_column(&mut self, x: i32, z: i32) -> Vec<NavTile> {
        let slots: Vec<u32> = self
            .positions
            .range((x, z, 0)..=(x, z, u16::MAX))
            .map(|(_, &s)| s)
            .collect();
        if slots.is_empty() {
            return Vec::new();
        }
        let removed: Vec<NavTile> = slots.into_iter().map(|s| self.take_slot(s)).collect();
        let departed: Vec<(i32, i32)> = removed
            .iter()
            .flat_map(|t| end_columns(&self.params, t))
            .collect();
        self.restitch_column((x, z), &departed, None);
        removed
    }

    /// Records a tile position in both indexes.
    fn place(&mut self, x: i32, z: i32, layer: u16, slot: u32) {
        self.positions.insert((x, z, layer), slot);
        let col = self.columns.entry((x, z)).or_default();
        let at = col.partition_point(|&(l, _)| l < layer);
        col.insert(at, (layer, slot));
        self.column_grid.update(x, z, &self.columns);
    }

    fn take_slot(&mut self, slot: u32) -> NavTile {
        let s = &mut self.slots[slot as usize];
        let mt = s.tile.take().expect("caller checked the slot is occupied");
        s.generation = next_salt(s.generation);
        s.stamp = StateId::fresh();
        self.free.insert(slot);
        self.unplace(slot, mt)
    }

    /// Forgets the position and link ends of `mt`, just taken out of `slot`.
    fn unplace(&mut self, slot: u32, mt: MeshTile) -> NavTile {
        let (x, z, layer) = mt.tile.position();
        self.positions.remove(&(x, z, layer));
        if let Some(col) = self.columns.get_mut(&(x, z)) {
            col.retain(|&(l, _)| l != layer);
            if col.is_empty() {
                self.columns.remove(&(x, z));
            }
        }
        self.column_grid.update(x, z, &self.columns);
        self.ends.remove_tile(&self.params, slot, &mt.tile);
        mt.tile
    }

    /// Sets a polygon's current area (0..=63). Checks the reference, then the area.
    pub fn set_poly_area(&mut self, r: PolyRef, area: u8) -> Result<(), MeshError> {
        let (_, p) = self.poly(r)?;
        if area > MAX_AREA {
            return Err(MeshError::AreaOutOfRange { area });
        }
        self.edit(r.slot(), |t| {
            let mut a = t.areas().to_vec();
            a[p] = area;
            t.with_current_state(
                a.into(),
                Arc::clone(t.flags()),
                Arc::clone(t.link_enabled()),
            )
        })
    }

    /// Sets a polygon's current flags.
    pub fn set_poly_flags(&mut self, r: PolyRef, flags: u16) -> Result<(), MeshError> {
        let (_, p) = self.poly(r)?;
        self.edit(r.slot(), |t| {
            let mut f = t.flags().to_vec();
            f[p] = flags;
            t.with_current_state(
                Arc::clone(t.areas()),
                f.into(),
                Arc::clone(t.link_enabled()),
            )
        })
    }

    /// Turns an off-mesh link of the tile on or off (links start enabled). The switch does not
    /// change the stitched links; queries read it.
    pub fn set_off_mesh_link_enabled(
        &mut self,
        r: TileRef,
        link: u32,
        enabled: bool,
    ) -> Result<(), MeshError> {
        self.off_mesh_link_enabled(r, link)?;
        self.edit(r.slot, |t| {
            let mut sw = t.link_enabled().to_vec();
            sw[link as usize] = enabled;
            t.with_current_state(Arc::clone(t.areas()), Arc::clone(t.flags()), sw.into())
        })
    }

    /// Applies a copy-on-write change to the current state of the tile in `slot` (checked
    /// occupied by the caller). The caller's `NavTile` and other copies never change.
    fn edit(
        &mut self,
        slot: u32,
        f: impl FnOnce(&NavTile) -> Result<NavTile, FormatError>,
    ) -> Result<(), MeshError> {
        let s = &mut self.slots[slot as usize];
        let mt = s.tile.as_mut().expect("caller validated the reference");
        let edited = f(&mt.tile)?;
        mt.set_state(edited);
        s.stamp = StateId::fresh();
        self.state = StateId::fresh();
        Ok(())
    }

    /// Recomputes every tile's links from scratch, in slot order, with a column index built
    /// afresh from the tiles (not the one the mesh maintains). The result always equals the
    /// incrementally maintained links.
    pub fn restitch_all(&mut self) {
        self.state = StateId::fresh();
        let set = TileSet::new(
            &self.params,
            self.slots
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.tile.as_ref().map(|t| (i as u32, s.generation, &t.tile))),
        );
        let all = stitch_all(&set);
        drop(set);
        for (s, links) in self.slots.iter_mut().zip(all) {
            s.stamp = StateId::fresh();
            if let (Some(t), Some(l)) = (s.tile.as_mut(), links) {
                t.links = l;
            }
        }
        let every: Vec<u32> = (0..self.slots.len() as u32).collect();
        self.reindex_portals(&every);
    }

    /// Recomputes the portal index of the tiles in `slots` (after their links changed; the
    /// tiles their portals reach are in place).
    fn reindex_portals(&mut self, slots: &[u32]) {
        let mut found = Vec::new();
        for &slot in slots {
            // The old index's buffers are reused for the new one.
            let Some(mut index) = self
                .slots
                .get_mut(slot as usize)
                .and_then(|s| s.tile.as_mut())
                .map(|t| std::mem::take(&mut t.portals))
            else {
                continue;
            };
            if let Some(t) = self.slots[slot as usize].tile.as_ref() {
                crate::query::portal_index(self, t, &mut index, &mut found);
            }
            if let Some(t) = self.slots[slot as usize].tile.as_mut() {
                t.portals = index;
            }
        }
    }

    fn tile_set(&self) -> TileSet<'_> {
        TileSet::with_indexes(
            &self.params,
            self.slots
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.tile.as_ref().map(|t| (i as u32, s.generation, &t.tile))),
            &self.columns,
            &self.ends,
        )
    }

    /// Restitches what a change of the tiles in `columns` can affect
    /// ([`restitch_scope`]); `departed` are the end columns of the off-mesh links of the
    /// tiles that left.
    fn restitch(&mut self, columns: &[(i32, i32)], departed: &[(i32, i32)]) {
        self.state = StateId::fresh();
        let set = self.tile_set();
        let scope = restitch_scope(&set, columns, departed);
        let fresh = stitch_tiles(&set, &scope);
        drop(set);
        self.take_links(fresh, &[]);
    }

    /// [`TiledNavMesh::restitch`] after a change of the one column (x, z) where at most one
    /// tile came in (`placed`, its slot; the others there stayed or left), with the same
    /// links. With no off-mesh link in the mesh and none departed it restitches less: the
    /// placed tile whole, each tile of the four side columns only on its side facing the
    /// column ([`stitch_tiles_and_sides`]), and no other tile of the column (a tile's portal
    /// links face only the side columns). Every slot of the scope gets a new stamp either
    /// way.
    fn restitch_column(
        &mut self,
        (x, z): (i32, i32),
        departed: &[(i32, i32)],
        placed: Option<u32>,
    ) {
        let set = self.tile_set();
        if !departed.is_empty() || set.has_off_mesh_links() {
            drop(set);
            return self.restitch(&[(x, z)], departed);
        }
        let full = placed.as_slice();
        let kept: SmallVec<[u32; 4]> = set
            .column(x, z)
            .iter()
            .map(|&(_, s)| s)
            .filter(|&s| Some(s) != placed)
            .collect();
        // A side column holds one or two layers almost always.
        let mut sides: SmallVec<[(u32, u8, &TileLinks); 8]> = SmallVec::new();
        for side in 0..4u8 {
            let Some((nx, nz)) = neighbour_column(x, z, side) else {
                continue;
            };
            for &(_, s) in set.column(nx, nz) {
                if let Some(t) = self.slots[s as usize].tile.as_ref() {
                    sides.push((s, side ^ 2, &t.links));
                }
            }
        }
        let fresh = stitch_tiles_and_sides(&set, full, &sides);
        drop(sides);
        drop(set);
        self.state = StateId::fresh();
        self.take_links(fresh, &kept);
    }

    /// Sets the links of the restitched slots and their portal indexes, and a new stamp for
    /// them and for the `kept` slots.
    fn take_links(&mut self, fresh: Vec<(u32, TileLinks)>, kept: &[u32]) {
        for &slot in kept {
            let s = &mut self.slots[slot as usize];
            if s.tile.is_some() {
                s.stamp = StateId::fresh();
            }
        }
        let mut touched = Vec::with_capacity(fresh.len());
        for (slot, links) in fresh {
            let s = &mut self.slots[slot as usize];
            if let Some(t) = s.tile.as_mut() {
                t.links = links;
                s.stamp = StateId::fresh();
                touched.push(slot);
            }
        }
        self.reindex_portals(&touched);
    }
}

/// A tile of a column with its layer and slot: (layer, slot, tile).
type LayerTile<'a> = (u16, u32, &'a NavTile);

/// True when two tiles have the same geometry bit for bit (the same shared geometry, or
/// equal data with every float compared by its bits) and fingerprint: then their links in
/// the same slot and neighbourhood are the same, and so are their content ids. Every field
/// of the data is written to the tile's bytes at a fixed width after its count, so for
/// two tiles this is exactly `a.to_bytes() == b.to_bytes()` (which also writes the
/// data's own areas and flags, not the current ones), without writing them.
pub fn same_geometry(a: &NavTile, b: &NavTile) -> bool {
    a.fingerprint() == b.fingerprint()
        && (Arc::ptr_eq(a.geometry(), b.geometry()) || same_data_bits(a.data(), b.data()))
}

/// Field by field (a new field of the data is a compile error here): integers by value,
/// floats by their bits, so +0.0 and -0.0 differ as their bytes do.
fn same_data_bits(a: &NavTileData, b: &NavTileData) -> bool {
    fn vec3s(a: &[[f32; 3]], b: &[[f32; 3]]) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x.map(f32::to_bits) == y.map(f32::to_bits))
    }
    fn link(a: &OffMeshLinkSlot, b: &OffMeshLinkSlot) -> bool {
        let OffMeshLinkSlot {
            start,
            end,
            radius,
            area,
            bidirectional,
            flags,
            user_id,
        } = a;
        vec3s(&[*start, *end], &[b.start, b.end])
            && radius.to_bits() == b.radius.to_bits()
            && (*area, *bidirectional, *flags, *user_id)
                == (b.area, b.bidirectional, b.flags, b.user_id)
    }
    let NavTileData {
        tile_x,
        tile_z,
        layer,
        origin_y,
        vertices,
        poly_sizes,
        poly_areas,
        poly_flags,
        corners,
        edge_neighbours,
        edge_portal_sides,
        detail_meshes,
        detail_vertices,
        detail_triangles,
        off_mesh_links,
    } = a;
    (*tile_x, *tile_z, *layer) == (b.tile_x, b.tile_z, b.layer)
        && origin_y.to_bits() == b.origin_y.to_bits()
        && vec3s(vertices, &b.vertices)
        && *poly_sizes == b.poly_sizes
        && *poly_areas == b.poly_areas
        && *poly_flags == b.poly_flags
        && *corners == b.corners
        && *edge_neighbours == b.edge_neighbours
        && *edge_portal_sides == b.edge_portal_sides
        && *detail_meshes == b.detail_meshes
        && vec3s(detail_vertices, &b.detail_vertices)
        && *detail_triangles == b.detail_triangles
        && off_mesh_links.len() == b.off_mesh_links.len()
        && off_mesh_links
            .iter()
            .zip(&b.off_mesh_links)
            .all(|(x, y)| link(x, y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::flat_grid_data;

    #[test]
    fn same_geometry_compares_floats_by_their_bits() {
        let p = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
        let a = NavTile::create(&p, flat_grid_data(&p, 0, 0, 0, 0.0, 2)).unwrap();
        let b = NavTile::create(&p, flat_grid_data(&p, 0, 0, 0, 0.0, 2)).unwrap();
        // Equal data in separate geometries, and the same geometry with other edits.
        assert!(same_geometry(&a, &b));
        let mut edited = a.areas().to_vec();
        edited[0] = 5;
        let c = a
            .with_current_state(
                edited.into(),
                Arc::clone(a.flags()),
                Arc::clone(a.link_enabled()),
            )
            .unwrap();
        assert!(same_geometry(&a, &c));
        // -0.0 equals 0.0 as a float, not as bytes: another geometry.
        let mut d = flat_grid_data(&p, 0, 0, 0, 0.0, 2);
        d.vertices[0][1] = -0.0;
        let negative = NavTile::create(&p, d).unwrap();
        assert_eq!(negative.data(), a.data());
        assert!(!same_geometry(&a, &negative));
        // Exactly equal bytes, the data's own areas and flags (not the current ones).
        for (x, y) in [(&a, &b), (&a, &c), (&a, &negative), (&c, &negative)] {
            assert_eq!(same_geometry(x, y), x.to_bytes() == y.to_bytes());
        }
        assert_ne!(a.to_bytes(), negative.to_bytes());
    }

    #[test]
    fn slot_stamps_change_with_the_slot_its_state_and_its_links_only() {
        let p = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
        let tile = |x, z| NavTile::create(&p, flat_grid_data(&p, x, z, 0, 0.0, 2)).unwrap();
        let stamps = |m: &TiledNavMesh| -> Vec<u64> {
            (0..m.slot_count())
                .map(|s| m.slot_stamp(s).unwrap())
                .collect()
        };
        // Slot 0 at (0, 0), slot 1 far away at (5, 5), slot 2 at (0, 5) (also apart).
        let mut mesh = TiledNavMesh::new(p).unwrap();
        mesh.add_tile(tile(0, 0)).unwrap();
        mesh.add_tile(tile(5, 5)).unwrap();
        mesh.add_tile(tile(0, 5)).unwrap();
        assert_eq!(mesh.slot_stamp(3), None);
        let moved = |before: &[u64], after: &[u64]| -> Vec<bool> {
            before.iter().zip(after).map(|(b, a)| b != a).collect()
        };
        // A neighbour of slot 0 comes in (slot 3): slot 0 is restitched, the others stay.
        let s = stamps(&mesh);
        let r = mesh.add_tile(tile(1, 0)).unwrap();
        assert_eq!(r.slot, 3);
        let t = stamps(&mesh);
        assert_eq!(moved(&s, &t[..3]), [true, false, false]);
        // Replaced: its own slot and the neighbour's.
        mesh.replace_tile(tile(1, 0)).unwrap();
        let u = stamps(&mesh);
        assert_eq!(moved(&t, &u), [true, false, false, true]);
        // A flag of the neighbour: its slot only (the links are not the flags).
        let poly = mesh.tile_at(1, 0, 0).unwrap().poly_ref(0).unwrap();
        mesh.set_poly_flags(poly, 2).unwrap();
        let v = stamps(&mesh);
        assert_eq!(moved(&u, &v), [false, false, false, true]);
        // A clone shares the values until either changes; equality ignores them.
        let saved = mesh.clone();
        assert_eq!(stamps(&saved), v);
        // Removed: its slot and the neighbour it was stitched to.
        mesh.remove_tile_at(1, 0, 0).unwrap();
        let w = stamps(&mesh);
        assert_eq!(moved(&v, &w), [true, false, false, true]);
        assert_eq!(stamps(&saved), v, "the clone kept its values");
        // Restored from the slots of the saved state, in place: the slot that came back and
        // its neighbour change, the slots apart keep their values.
        let restore = |mesh: &mut TiledNavMesh, from: &TiledNavMesh| {
            let mut table = SlotTable::new(from.params(), from.slot_count() as usize).unwrap();
            for sv in from.slots() {
                table
                    .push(sv.generation, sv.tile.map(|t| t.tile().clone()))
                    .unwrap();
            }
            table.restore_into(mesh).unwrap();
        };
        restore(&mut mesh, &saved);
        assert_eq!(mesh, saved);
        let x = stamps(&mesh);
        assert_eq!(moved(&w, &x), [true, false, false, true]);
        // A restore that changes only a flag of a slot apart: that slot alone.
        let mut edited = mesh.clone();
        let far = edited.tile_at(5, 5, 0).unwrap().poly_ref(1).unwrap();
        edited.set_poly_flags(far, 4).unwrap();
        restore(&mut mesh, &edited);
        assert_eq!(mesh, edited);
        let y = stamps(&mesh);
        assert_eq!(moved(&x, &y), [false, true, false, false]);
        // Restoring the same state changes nothing.
        restore(&mut mesh, &edited);
        assert_eq!(stamps(&mesh), y);
        // A full restitch: every slot.
        mesh.restitch_all();
        assert_eq!(moved(&y, &stamps(&mesh)), [true; 4]);
    }
}
