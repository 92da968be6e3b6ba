//! [`TileLibrary`]: the tiles a host keeps, found by content id, for Referenced snapshots.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use onepath_format::{ContentId, Fingerprint, FormatError, NavMeshParams, NavTile};

/// Tiles by content id ("Tile content id"): what a Referenced snapshot names and what its
/// restore looks up.
///
/// A library belongs to one set of mesh parameters: it records their fingerprint and
/// [`TileLibrary::add`] rejects a tile built against other parameters with
/// [`FormatError::Fingerprint`]. Tiles are stored as built: a tile taken from an edited
/// mesh is stored with its as-built areas and flags and every off-mesh link on (its content
/// id ignores run-time edits, and a snapshot carries the edits itself).
///
/// Iteration is in ascending content id order (never hash order).
#[derive(Clone)]
pub struct TileLibrary {
    fingerprint: Fingerprint,
    /// The tiles, ascending by id: what iteration, equality and `Debug` show.
    tiles: BTreeMap<ContentId, NavTile>,
    /// The same tiles (sharing their geometry) for [`TileLibrary::get`], which a restore
    /// calls once per referenced slot: one probe instead of a descent comparing 32-byte
    /// keys. Never iterated, so its order reaches nothing.
    index: HashMap<ContentId, NavTile, BuildHasherDefault<IdHasher>>,
}

/// Hashes a [`ContentId`] as its first 8 bytes. An id is a SHA-256 digest, already
/// uniform; the ids in the table are those of the tiles added (digests of their bytes),
/// so the ids a snapshot names choose only which probe is made, never how the table's
/// entries collide.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // The id's bytes come in one call (after its length, a constant).
        let mut word = [0u8; 8];
        let n = bytes.len().min(8);
        word[..n].copy_from_slice(&bytes[..n]);
        self.0 = self.0.rotate_left(8) ^ u64::from_le_bytes(word);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl PartialEq for TileLibrary {
    /// The fingerprint and the tiles (the index holds the same tiles).
    fn eq(&self, other: &TileLibrary) -> bool {
        self.fingerprint == other.fingerprint && self.tiles == other.tiles
    }
}

impl fmt::Debug for TileLibrary {
    /// The fingerprint and the tiles, ascending by id (not the index, in hash order).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TileLibrary")
            .field("fingerprint", &self.fingerprint)
            .field("tiles", &self.tiles)
            .finish()
    }
}

impl TileLibrary {
    /// An empty library for tiles built against `params`.
    pub fn new(params: &NavMeshParams) -> TileLibrary {
        TileLibrary {
            fingerprint: params.fingerprint(),
            tiles: BTreeMap::new(),
            index: HashMap::default(),
        }
    }

    /// The build fingerprint every tile of the library carries.
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// Adds a tile (as built) and returns its content id. A tile already present (same id)
    /// is kept once. A tile built against other parameters is a
    /// [`FormatError::Fingerprint`] at `library tile`, and the library is unchanged.
    pub fn add(&mut self, tile: &NavTile) -> Result<ContentId, FormatError> {
        if tile.fingerprint() != self.fingerprint {
            return Err(FormatError::Fingerprint {
                at: "library tile".to_string(),
                found: tile.fingerprint(),
                expected: self.fingerprint,
            });
        }
        let id = tile.content_id();
        if let std::collections::btree_map::Entry::Vacant(slot) = self.tiles.entry(id) {
            let tile = as_built(tile)?;
            self.index.insert(id, tile.clone());
            slot.insert(tile);
        }
        Ok(id)
    }

    /// Adds every tile of `tiles` (as [`TileLibrary::add`]); stops at the first error, with
    /// the tiles before it added.
    pub fn extend<'a>(
        &mut self,
        tiles: impl IntoIterator<Item = &'a NavTile>,
    ) -> Result<(), FormatError> {
        for t in tiles {
            self.add(t)?;
        }
        Ok(())
    }

    /// The tile with this content id (as built), if the library holds it.
    pub fn get(&self, id: &ContentId) -> Option<&NavTile> {
        self.index.get(id)
    }

    /// True iff the library holds a tile with this content id.
    pub fn contains(&self, id: &ContentId) -> bool {
        self.index.contains_key(id)
    }

    /// Removes the tile with this content id; returns it if it was there.
    pub fn remove(&mut self, id: &ContentId) -> Option<NavTile> {
        self.index.remove(id);
        self.tiles.remove(id)
    }

    /// Number of tiles.
    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    /// True when the library holds no tile.
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// The tiles with their ids, ascending by id.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&ContentId, &NavTile)> + '_ {
        self.tiles.iter()
    }
}

/// The tile with its current areas, flags and link switches reset to the as-built values
/// (the shared geometry is not copied).
pub(crate) fn as_built(tile: &NavTile) -> Result<NavTile, FormatError> {
    let links = tile.data().off_mesh_links.len();
    tile.with_current_state(
        Arc::from(tile.as_built_areas()),
        Arc::from(tile.as_built_flags()),
        Arc::from(vec![true; links]),
    )
}
