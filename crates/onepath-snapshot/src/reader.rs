//! The ONPS reader: parse and validate everything, then build the new state on the side.
//!
//! Order of checks (the first failure is reported):
//! 1. magic, version (≠ 2 → [`FormatError::Version`]), flags (0);
//! 2. the parameter block (every parameter rule); for an in-place restore, bitwise equality
//!    with the mesh's parameters ([`FormatError::Fingerprint`] at `parameters`);
//! 3. the section count against the bytes that remain (8 bytes per section header);
//! 4. per section: id, reserved (0), ids strictly ascending, id known (1 only), body
//!    length against the bytes that remain; section 1 present;
//! 5. section 1: slot count (≤ body bytes / 5, then ≤ 1 048 575), then per slot in order:
//!    generation (1..=16 777 215), kind (0, 1, 2), the tile (inline: length, then every
//!    tile rule with the fingerprint first; referenced: the id, a library given, the id in
//!    it, then its fingerprint), position unique (these slot rules are the mesh's
//!    [`SlotTable`]'s), edit count (fits, ≤ polygons), each edit (polygon strictly
//!    ascending and in range, area ≤ 63, differs from as built), disabled link count (fits,
//!    ≤ links), each link index (strictly ascending, in range); the body consumed exactly;
//! 6. nothing after the last section;
//! 7. when the state is built ([`SlotTable::into_mesh`], or in place
//!    [`SlotTable::restore_into`]), the per-tile portal link cap over its tiles
//!    (`slot i: portal links`, the lowest slot of a refused pair), before any link is made.

use std::sync::Arc;

use onepath_format::bytes::ByteReader;
use onepath_format::{ContentId, FormatError, NavMeshParams, NavTile, TileReader, MAX_AREA};
use onepath_mesh::{SlotTable, TiledNavMesh};

use crate::layout::{
    EDIT_LEN, KIND_FREE, KIND_INLINE, KIND_REFERENCED, ONPS_KINDS, ONPS_MAGIC, ONPS_VERSION,
    SECTION_HEADER_LEN, SECTION_SLOTS,
};
use crate::library::TileLibrary;

/// A snapshot parsed and validated: per slot, its generation and tile (with the snapshot's
/// current areas, flags and link switches applied), checked by the mesh's [`SlotTable`].
pub(crate) struct Parsed {
    pub(crate) slots: SlotTable,
}

/// Parses and validates `bytes` completely. `library` is `None` for a restore of Full
/// snapshots only (a referenced tile is then [`FormatError::LibraryRequired`]); `live` is
/// the mesh an in-place restore targets (its parameters compared bitwise; its tiles'
/// current states shared where equal, nothing else read from it).
pub(crate) fn parse(
    bytes: &[u8],
    library: Option<&TileLibrary>,
    live: Option<&TiledNavMesh>,
) -> Result<Parsed, FormatError> {
    let mut r = ByteReader::new(bytes);
    r.header(&ONPS_MAGIC, "ONPS", ONPS_VERSION)?;
    let params = NavMeshParams::read_block(&mut r)?;
    if let Some(mesh) = live.map(TiledNavMesh::params) {
        if !params.bitwise_eq(mesh) {
            return Err(FormatError::Fingerprint {
                at: "parameters".to_string(),
                found: params.fingerprint(),
                expected: mesh.fingerprint(),
            });
        }
    }
    let sections = r.count("section count", SECTION_HEADER_LEN)?;
    let mut slots = None;
    let mut last_id = None;
    for k in 0..sections {
        let id = r.u16(&format!("section {k}: id"))?;
        let reserved = r.u16(&format!("section {k}: reserved"))?;
        if reserved != 0 {
            return Err(FormatError::malformed(
                format!("section {k}: reserved"),
                format!("{reserved} is not 0"),
            ));
        }
        if let Some(prev) = last_id {
            if id <= prev {
                return Err(FormatError::malformed(
                    format!("section {k}: id"),
                    format!("id {id} follows id {prev} (ids must be strictly ascending)"),
                ));
            }
        }
        last_id = Some(id);
        if id != SECTION_SLOTS {
            return Err(FormatError::malformed(
                format!("section {k}: id"),
                format!("unknown section id {id} (version 2 knows section 1 only)"),
            ));
        }
        let mut body = r.length_prefixed(&format!("section {k}: body length"))?;
        slots = Some(read_slots(&mut body, &params, library, live)?);
        body.expect_end("section 1 (slots): body")?;
    }
    r.expect_end("ONPS")?;
    let Some(slots) = slots else {
        return Err(FormatError::malformed(
            "section 1 (slots)",
            "missing (a snapshot must contain section 1)",
        ));
    };
    Ok(Parsed { slots })
}

/// Runs `read` on a copy of `r` with no field name and, only when that fails, again on
/// `r` with the name `field()`: a valid input formats no name, and a broken one fails with
/// exactly the error the named read gives.
fn named<'a, T>(
    r: &mut ByteReader<'a>,
    field: impl FnOnce() -> String,
    read: impl Fn(&mut ByteReader<'a>, &str) -> Result<T, FormatError>,
) -> Result<T, FormatError> {
    let mut probe = r.clone();
    match read(&mut probe, "") {
        Ok(v) => {
            *r = probe;
            Ok(v)
        }
        Err(_) => read(r, &field()),
    }
}

/// Reads section 1. `live` is the mesh an in-place restore targets.
fn read_slots(
    r: &mut ByteReader<'_>,
    params: &NavMeshParams,
    library: Option<&TileLibrary>,
    live: Option<&TiledNavMesh>,
) -> Result<SlotTable, FormatError> {
    let count = r.count("slot count", 5)?;
    let mut table = SlotTable::new(params, count)?;
    // The parameters hashed once, not per tile (inline or referenced).
    let tiles = *table.tile_reader();
    for i in 0..count {
        if !push_referenced_head(r, &mut table, &tiles, library) {
            let generation = named(r, || format!("slot {i}: generation"), |r, f| r.u32(f))?;
            table.check_generation(generation)?;
            let kind = named(r, || format!("slot {i}: kind"), |r, f| r.u8(f))?;
            if table.check_kind(kind, ONPS_KINDS)? == KIND_FREE {
                table.push(generation, None)?;
                continue;
            }
            let tile = read_tile(r, i, kind, &tiles, library)?;
            // The slot rules (fingerprint, position) before the state, as the layout
            // orders the checks; the state changes nothing they looked at.
            table.push(generation, Some(tile))?;
        }
        if skip_as_built_state(r) {
            continue;
        }
        let live = live
            .and_then(|m| m.tile_at_slot(i as u32))
            .map(|t| t.tile());
        table.set_last_state(|tile| read_state(r, i, tile, live))?;
    }
    Ok(table)
}

/// Bytes of the head of a referenced slot: generation (4), kind (1), content id (32).
const REFERENCED_HEAD_LEN: usize = 37;

/// The head of the next slot (generation, kind, tile) when it names a tile of `library`
/// by content id (most slots of a per-frame snapshot) and passes every check: pushed, `r`
/// past it, `true`, without the named reads of the general path. Otherwise nothing is
/// read or pushed and the result is `false`: the general path reads the head and reports
/// its first broken field. Both accept the same heads and push the same entry.
fn push_referenced_head(
    r: &mut ByteReader<'_>,
    table: &mut SlotTable,
    tiles: &TileReader,
    library: Option<&TileLibrary>,
) -> bool {
    let Some(library) = library else {
        return false;
    };
    let mut probe = r.clone();
    let Ok(b) = probe.bytes(REFERENCED_HEAD_LEN, "") else {
        return false;
    };
    let (Ok(generation), Ok(id)) = (
        <[u8; 4]>::try_from(&b[..4]),
        <[u8; 32]>::try_from(&b[5..37]),
    ) else {
        return false;
    };
    if b[4] != KIND_REFERENCED {
        return false;
    }
    let Some(tile) = library.get(&ContentId(id)) else {
        return false;
    };
    // `push` checks the generation, the fingerprint (the parameters' own) and the position.
    if tile.fingerprint() != tiles.fingerprint()
        || table
            .push(u32::from_le_bytes(generation), Some(tile.clone()))
            .is_err()
    {
        return false;
    }
    *r = probe;
    true
}

/// Reads the tile entry of slot `i` (kind 1 or 2, checked by the caller), as built.
fn read_tile(
    r: &mut ByteReader<'_>,
    i: usize,
    kind: u8,
    tiles: &TileReader,
    library: Option<&TileLibrary>,
) -> Result<NavTile, FormatError> {
    if kind == KIND_INLINE {
        let body =
            named(r, || format!("slot {i}: tile length"), |r, f| r.u32(f)).and_then(|len| {
                named(
                    r,
                    || format!("slot {i}: tile"),
                    |r, f| r.bytes(len as usize, f),
                )
            })?;
        return tiles
            .read(body)
            .map_err(|e| e.within(format!("slot {i}: tile")));
    }
    // KIND_REFERENCED, the last kind ONPS_KINDS names.
    let id = ContentId(named(
        r,
        || format!("slot {i}: content id"),
        |r, f| r.array::<32>(f),
    )?);
    let Some(library) = library else {
        return Err(FormatError::LibraryRequired {
            at: format!("slot {i}"),
        });
    };
    let Some(tile) = library.get(&id) else {
        return Err(FormatError::malformed(
            format!("slot {i}: content id"),
            format!("tile {id} is not in the tile library"),
        ));
    };
    let expected = tiles.fingerprint();
    if tile.fingerprint() != expected {
        return Err(FormatError::Fingerprint {
            at: format!("slot {i}: referenced tile"),
            found: tile.fingerprint(),
            expected,
        });
    }
    // Library tiles are stored as built; the clone shares the geometry.
    Ok(tile.clone())
}

/// Skips the state of a slot when it is the as-built state: an edit count of 0 and a
/// disabled link count of 0, which [`read_state`] always accepts (returning `None`).
fn skip_as_built_state(r: &mut ByteReader<'_>) -> bool {
    let mut probe = r.clone();
    if probe.bytes(8, "").is_ok_and(|b| b == [0; 8]) {
        *r = probe;
        return true;
    }
    false
}

/// The current areas, flags and link switches of a tile.
type State = (Arc<[u8]>, Arc<[u16]>, Arc<[bool]>);

/// Reads the polygon edits and disabled links of slot `i`, whose tile (as built) is
/// `tile`: its current state, `None` when that is the as-built state. `live` is the tile
/// in the same slot of the mesh an in-place restore targets: where the state read equals
/// its current state, the result shares its arrays instead of allocating new ones (so an
/// unchanged slot allocates nothing).
fn read_state(
    r: &mut ByteReader<'_>,
    i: usize,
    tile: &NavTile,
    live: Option<&NavTile>,
) -> Result<Option<State>, FormatError> {
    let edits = read_edits(r, i, tile)?;
    let disabled = read_disabled(r, i, tile)?;
    if edits.is_empty() && disabled.is_empty() {
        return Ok(None);
    }
    let (areas, flags) = match live.filter(|l| edits_match(tile, &edits, l)) {
        Some(live) => (Arc::clone(live.areas()), Arc::clone(live.flags())),
        None if edits.is_empty() => (Arc::clone(tile.areas()), Arc::clone(tile.flags())),
        None => (
            edited(tile.as_built_areas(), edits.iter().map(|(p, a, _)| (p, a))),
            edited(tile.as_built_flags(), edits.iter().map(|(p, _, f)| (p, f))),
        ),
    };
    let switches = match live.filter(|l| switches_match(tile, &disabled, l)) {
        Some(live) => Arc::clone(live.link_enabled()),
        None if disabled.is_empty() => Arc::clone(tile.link_enabled()),
        None => {
            let all_on = vec![true; tile.data().off_mesh_links.len()];
            edited(&all_on, disabled.iter().map(|l| (l, false)))
        }
    };
    Ok(Some((areas, flags, switches)))
}

/// `built` with the values of `changes` (index, value; ascending, in range) put in, in
/// one allocation.
fn edited<T: Copy>(built: &[T], changes: impl Iterator<Item = (usize, T)>) -> Arc<[T]> {
    let apply = |values: &mut [T]| {
        for (k, v) in changes {
            if let Some(slot) = values.get_mut(k) {
                *slot = v;
            }
        }
    };
    let mut out: Arc<[T]> = Arc::from(built);
    match Arc::get_mut(&mut out) {
        // A new `Arc` is its only owner: always this arm.
        Some(values) => apply(values),
        None => {
            let mut values = built.to_vec();
            apply(&mut values);
            out = Arc::from(values);
        }
    }
    out
}

/// The validated polygon edits of a slot: [`EDIT_LEN`] bytes each, polygons strictly
/// ascending and in range.
struct Edits<'a>(&'a [u8]);

impl Edits<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// (polygon, area, flags), ascending polygon.
    fn iter(&self) -> impl Iterator<Item = (usize, u8, u16)> + '_ {
        self.0.chunks_exact(EDIT_LEN).map(|e| {
            let p = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
            (p as usize, e[4], u16::from_le_bytes([e[5], e[6]]))
        })
    }
}

/// The validated disabled links of a slot: 4 bytes each, strictly ascending and in range.
struct Disabled<'a>(&'a [u8]);

impl Disabled<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The link indices, ascending.
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0
            .chunks_exact(4)
            .map(|l| u32::from_le_bytes([l[0], l[1], l[2], l[3]]) as usize)
    }
}

/// Reads and checks the polygon edits of slot `i` (count, then each edit: polygon strictly
/// ascending and in range, area ≤ 63, differs from as built).
fn read_edits<'a>(
    r: &mut ByteReader<'a>,
    i: usize,
    tile: &NavTile,
) -> Result<Edits<'a>, FormatError> {
    let polys = tile.poly_count();
    let edits = named(
        r,
        || format!("slot {i}: edit count"),
        |r, f| r.count(f, EDIT_LEN),
    )?;
    if edits > polys {
        return Err(FormatError::malformed(
            format!("slot {i}: edit count"),
            format!("{edits} edits for a tile of {polys} polygons"),
        ));
    }
    // The count was checked against the bytes that remain: the read cannot fall short.
    let bytes = r.bytes(edits * EDIT_LEN, "")?;
    let (areas, flags) = (tile.as_built_areas(), tile.as_built_flags());
    let mut prev: Option<u32> = None;
    for (k, e) in bytes.chunks_exact(EDIT_LEN).enumerate() {
        let at = |field: &str| format!("slot {i}: edit {k}: {field}");
        let p = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
        let area = e[4];
        let f = u16::from_le_bytes([e[5], e[6]]);
        if let Some(prev) = prev {
            if p <= prev {
                return Err(FormatError::malformed(
                    at("polygon"),
                    format!("{p} follows {prev} (edits must be strictly ascending)"),
                ));
            }
        }
        prev = Some(p);
        let pi = p as usize;
        if pi >= polys {
            return Err(FormatError::malformed(
                at("polygon"),
                format!("{p} is out of range (the tile has {polys} polygons)"),
            ));
        }
        if area > MAX_AREA {
            return Err(FormatError::malformed(
                at("area"),
                format!("{area} is above {MAX_AREA}"),
            ));
        }
        if area == areas[pi] && f == flags[pi] {
            return Err(FormatError::malformed(
                at("polygon"),
                format!("the edit of polygon {p} equals its as-built area and flags"),
            ));
        }
    }
    Ok(Edits(bytes))
}

/// Reads and checks the disabled links of slot `i` (count, then each index: strictly
/// ascending, in range).
fn read_disabled<'a>(
    r: &mut ByteReader<'a>,
    i: usize,
    tile: &NavTile,
) -> Result<Disabled<'a>, FormatError> {
    let link_count = tile.data().off_mesh_links.len();
    let disabled = named(
        r,
        || format!("slot {i}: disabled link count"),
        |r, f| r.count(f, 4),
    )?;
    if disabled > link_count {
        return Err(FormatError::malformed(
            format!("slot {i}: disabled link count"),
            format!("{disabled} disabled links for a tile of {link_count} off-mesh links"),
        ));
    }
    // The count was checked against the bytes that remain: the read cannot fall short.
    let bytes = r.bytes(disabled * 4, "")?;
    let mut prev: Option<u32> = None;
    for (k, l) in bytes.chunks_exact(4).enumerate() {
        let l = u32::from_le_bytes([l[0], l[1], l[2], l[3]]);
        let at = || format!("slot {i}: disabled link {k}");
        if let Some(prev) = prev {
            if l <= prev {
                return Err(FormatError::malformed(
                    at(),
                    format!("{l} follows {prev} (indices must be strictly ascending)"),
                ));
            }
        }
        prev = Some(l);
        if l as usize >= link_count {
            return Err(FormatError::malformed(
                at(),
                format!("{l} is out of range (the tile has {link_count} off-mesh links)"),
            ));
        }
    }
    Ok(Disabled(bytes))
}

/// True when `live`'s current areas and flags are those of `tile` (as built) with `edits`
/// applied.
fn edits_match(tile: &NavTile, edits: &Edits<'_>, live: &NavTile) -> bool {
    let (built_a, built_f) = (tile.as_built_areas(), tile.as_built_flags());
    let (live_a, live_f) = (&live.areas()[..], &live.flags()[..]);
    if live_a.len() != built_a.len() || live_f.len() != built_f.len() {
        return false;
    }
    let mut next = 0;
    for (p, area, f) in edits.iter() {
        if live_a[next..p] != built_a[next..p]
            || live_f[next..p] != built_f[next..p]
            || (live_a[p], live_f[p]) != (area, f)
        {
            return false;
        }
        next = p + 1;
    }
    live_a[next..] == built_a[next..] && live_f[next..] == built_f[next..]
}

/// True when `live`'s current link switches are all on but the `disabled` ones.
fn switches_match(tile: &NavTile, disabled: &Disabled<'_>, live: &NavTile) -> bool {
    let live = &live.link_enabled()[..];
    if live.len() != tile.data().off_mesh_links.len() {
        return false;
    }
    let mut next = 0;
    for l in disabled.iter() {
        if live[next..l].iter().any(|&on| !on) || live[l] {
            return false;
        }
        next = l + 1;
    }
    live[next..].iter().all(|&on| on)
}

/// Builds the complete new mesh from validated slots: slots and generations placed exactly,
/// stitched once in slot order, after the per-tile portal link cap over every tile (the one
/// rule that needs every slot: `slot i: portal links`).
pub(crate) fn build(parsed: Parsed) -> Result<TiledNavMesh, FormatError> {
    Ok(parsed.slots.into_mesh()?)
}
