//! [`TileLibrary`]: the tiles a host keeps, found by content id, for Referenced snapshots.

use std::collections::BTreeMap;
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
#[derive(Debug, Clone, PartialEq)]
pub struct TileLibrary {
    fingerprint: Fingerprint,
    tiles: BTreeMap<ContentId, NavTile>,
}

impl TileLibrary {
    /// An empty library for tiles built against `params`.
    pub fn new(params: &NavMeshParams) -> TileLibrary {
        TileLibrary {
            fingerprint: params.fingerprint(),
            tiles: BTreeMap::new(),
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
            slot.insert(as_built(tile)?);
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
        self.tiles.get(id)
    }

    /// True iff the library holds a tile with this content id.
    pub fn contains(&self, id: &ContentId) -> bool {
        self.tiles.contains_key(id)
    }

    /// Removes the tile with this content id; returns it if it was there.
    pub fn remove(&mut self, id: &ContentId) -> Option<NavTile> {
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
