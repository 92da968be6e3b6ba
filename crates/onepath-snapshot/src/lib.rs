//! # onepath-snapshot
//!
//! Snapshots of a [`TiledNavMesh`]'s dynamic state as bytes (ONPS, `docs/navmesh-snapshot.md`)
//! and their all-or-nothing restore, for hosts that roll back and resimulate.
//!
//! A snapshot stores what can change after construction: every slot with its generation,
//! the tile in it (Full: its as-built ONPT bytes inline; Referenced: its 32-byte content
//! id, found again in a [`TileLibrary`]), the polygon edits as differences from the
//! as-built areas and flags, and the disabled off-mesh links. Stitched links are derived
//! and rebuilt on restore by the same deterministic stitching.
//!
//! ## Invariants
//! - The writer is canonical: the same state in the same mode gives the same bytes on
//!   every platform ([`NavMeshSnapshot::take`]). Edits are written only where the current
//!   area or flags differ from the as-built values, ascending polygon; disabled links
//!   strictly ascending.
//! - The reader never panics on any input: every count is checked against the bytes that
//!   remain before anything is allocated, and every failure is a
//!   [`FormatError`] naming the section, slot, edit or field. Tiles built against other
//!   parameters are [`FormatError::Fingerprint`].
//! - A restore parses and validates everything first, and only then builds the new mesh
//!   (stitched once in slot order) or, in place ([`NavMeshSnapshot::restore_in_place`]),
//!   changes the mesh into it: the slots found unchanged (same generation, same geometry)
//!   keep their tiles' links, only the others are replaced and restitched around, with the
//!   same result as a new mesh. An error leaves the mesh untouched.
//! - [`SnapshotWriter`] writes the same bytes as [`NavMeshSnapshot::take`], caching tile
//!   content ids between snapshots (for a Referenced snapshot every frame).
//! - Restored meshes equal the mesh the snapshot was taken from: same slots, generations,
//!   tiles, current areas, flags and switches, links; the same snapshot and ONPM bytes; the
//!   same valid and invalid polygon references.
//!
//! ## Contents
//! - [`NavMeshSnapshot`]: `take`, `restore` (a new mesh), `restore_in_place`, and for Full
//!   snapshots `restore_full` / `restore_full_in_place` (no library); the same on the mesh
//!   through [`TiledNavMeshSnapshotExt`];
//! - [`SnapshotWriter`]: repeated snapshots with tile content ids cached;
//! - [`TileLibrary`]: tiles by content id, for Referenced snapshots;
//! - [`layout`]: the ONPS constants and [`SnapshotMode`].
//!
//! The layout, restore order and error kinds are written out in `docs/navmesh-snapshot.md`.
//!
//! ## Example
//! ```
//! use onepath_format::{FormatError, NavTile};
//! use onepath_mesh::fixtures::bridge_and_building;
//! use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, TileLibrary};
//!
//! // A small test mesh (onepath-mesh's `fixtures` feature, on for this crate's tests).
//! let mut mesh = bridge_and_building();
//! let mut library = TileLibrary::new(mesh.params());
//! library.extend(mesh.tiles().map(|t| t.tile())).unwrap();
//!
//! let door = mesh.tile_at(0, 1, 0).unwrap().poly_ref(0).unwrap();
//! let saved = NavMeshSnapshot::take(&mesh, SnapshotMode::Referenced);
//!
//! // Mutate: close a door, drop a tile.
//! mesh.set_poly_flags(door, 0).unwrap();
//! let bridge = mesh.tile_at(1, 0, 1).unwrap().tile_ref();
//! mesh.remove_tile(bridge).unwrap();
//!
//! // Roll back in place: the same bytes, the same references.
//! NavMeshSnapshot::restore_in_place(&mut mesh, &saved, &library).unwrap();
//! assert_eq!(NavMeshSnapshot::take(&mesh, SnapshotMode::Referenced), saved);
//! assert!(mesh.is_valid_poly_ref(bridge.poly(0).unwrap()));
//!
//! // A Full snapshot needs no library; a Referenced one given none names its first slot.
//! let full = NavMeshSnapshot::take(&mesh, SnapshotMode::Full);
//! let copy = NavMeshSnapshot::restore_full(&full).unwrap();
//! assert_eq!(copy, mesh);
//! assert_eq!(
//!     NavMeshSnapshot::restore_full(&saved),
//!     Err(FormatError::LibraryRequired { at: "slot 0".to_string() })
//! );
//!
//! // Hostile bytes are typed errors and change nothing.
//! let mut bad = full.clone();
//! bad[4] = 3;
//! assert!(matches!(
//!     NavMeshSnapshot::restore_in_place(&mut mesh, &bad, &library),
//!     Err(FormatError::Version { found: 3, .. })
//! ));
//! assert_eq!(mesh, copy);
//! ```
#![forbid(unsafe_code)]

pub mod layout;
pub mod library;
pub mod normative;
mod reader;
mod writer;

use onepath_format::FormatError;

pub use layout::{
    SnapshotMode, KIND_FREE, KIND_INLINE, KIND_REFERENCED, ONPS_HEADER_LEN, ONPS_KINDS, ONPS_MAGIC,
    ONPS_VERSION, SECTION_SLOTS,
};
pub use library::TileLibrary;
/// The mesh type snapshots are taken from and restored into (re-exported for convenience).
pub use onepath_mesh::TiledNavMesh;
pub use writer::SnapshotWriter;

/// Takes and restores navmesh snapshots (ONPS). See the crate docs for the contract; for a
/// Referenced snapshot every frame, [`SnapshotWriter`] remembers tile content ids.
#[derive(Debug, Clone, Copy, Default)]
pub struct NavMeshSnapshot;

impl NavMeshSnapshot {
    /// The canonical snapshot bytes of `mesh` in `mode`: header, parameter block, and
    /// section 1 with every slot in order (generation; free, inline tile or content id; the
    /// polygon edits that differ from the as-built values, ascending polygon; the disabled
    /// off-mesh links, ascending).
    ///
    /// # Panics
    /// Only if the slots section would exceed `u32::MAX` bytes (more than 4 GiB of inline
    /// tiles), which the layout cannot express.
    pub fn take(mesh: &TiledNavMesh, mode: SnapshotMode) -> Vec<u8> {
        writer::write(mesh, mode, &mut |_, t| t.content_id())
    }

    /// Restores `bytes` as a new mesh. Referenced tiles are looked up in `library` (a Full
    /// snapshot needs none of its tiles; a mixture of entries is accepted). Never panics.
    ///
    /// Errors: [`FormatError::Version`] for a version other than 2;
    /// [`FormatError::Fingerprint`] for an inline or library tile built against other
    /// parameters; [`FormatError::Malformed`] naming the section, slot, edit or field for
    /// everything else, including a pair of facing tiles over the per-tile portal link cap
    /// (`slot i: portal links`, the lowest slot of the pair; checked after everything was
    /// parsed, before any link is made).
    pub fn restore(bytes: &[u8], library: &TileLibrary) -> Result<TiledNavMesh, FormatError> {
        reader::build(reader::parse(bytes, Some(library), None)?)
    }

    /// Restores a Full snapshot (every tile inline) as a new mesh, with no tile library.
    /// Never panics. Errors as [`NavMeshSnapshot::restore`]; a slot naming a tile by content
    /// id (Referenced) is [`FormatError::LibraryRequired`] at the first such slot
    /// (`slot 3`), after the bytes before it were checked.
    pub fn restore_full(bytes: &[u8]) -> Result<TiledNavMesh, FormatError> {
        reader::build(reader::parse(bytes, None, None)?)
    }

    /// Replaces the state of `mesh` with the snapshot's, keeping the object. The snapshot's
    /// parameters must equal the mesh's bitwise (else [`FormatError::Fingerprint`] at
    /// `parameters`). Everything is parsed and validated first; then the slots that differ
    /// from the mesh's (generation, or tile geometry) are replaced and restitched around,
    /// the others keep their links and take the snapshot's areas, flags and switches, so the
    /// cost follows the change, not the mesh. That step cannot fail; the result equals
    /// [`NavMeshSnapshot::restore`] of the same bytes, and any error leaves `mesh`
    /// untouched. Errors as [`NavMeshSnapshot::restore`].
    pub fn restore_in_place(
        mesh: &mut TiledNavMesh,
        bytes: &[u8],
        library: &TileLibrary,
    ) -> Result<(), FormatError> {
        reader::parse(bytes, Some(library), Some(mesh))?
            .slots
            .restore_into(mesh)?;
        Ok(())
    }

    /// [`NavMeshSnapshot::restore_in_place`] of a Full snapshot, with no tile library:
    /// errors as [`NavMeshSnapshot::restore_full`], and any error leaves `mesh` untouched.
    pub fn restore_full_in_place(mesh: &mut TiledNavMesh, bytes: &[u8]) -> Result<(), FormatError> {
        reader::parse(bytes, None, Some(mesh))?
            .slots
            .restore_into(mesh)?;
        Ok(())
    }
}

/// Snapshot methods on [`TiledNavMesh`] itself (`mesh.snapshot(mode)`,
/// `mesh.restore(bytes, library)`, `mesh.restore_full(bytes)`), as `docs/navmesh-snapshot.md` names them.
pub trait TiledNavMeshSnapshotExt {
    /// [`NavMeshSnapshot::take`] of this mesh.
    fn snapshot(&self, mode: SnapshotMode) -> Vec<u8>;
    /// [`NavMeshSnapshot::restore_in_place`] into this mesh.
    fn restore(&mut self, bytes: &[u8], library: &TileLibrary) -> Result<(), FormatError>;
    /// [`NavMeshSnapshot::restore_full_in_place`] into this mesh (a Full snapshot, no
    /// library).
    fn restore_full(&mut self, bytes: &[u8]) -> Result<(), FormatError>;
}

impl TiledNavMeshSnapshotExt for TiledNavMesh {
    fn snapshot(&self, mode: SnapshotMode) -> Vec<u8> {
        NavMeshSnapshot::take(self, mode)
    }

    fn restore(&mut self, bytes: &[u8], library: &TileLibrary) -> Result<(), FormatError> {
        NavMeshSnapshot::restore_in_place(self, bytes, library)
    }

    fn restore_full(&mut self, bytes: &[u8]) -> Result<(), FormatError> {
        NavMeshSnapshot::restore_full_in_place(self, bytes)
    }
}
