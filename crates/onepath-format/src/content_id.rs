//! The tile content id: SHA-256 of a tile's ONPT bytes with its as-built areas and flags.

use std::fmt;

use sha2::{Digest, Sha256};

use crate::tile::NavTile;

/// A tile's content id: the SHA-256 digest of [`NavTile::to_bytes`] (as-built areas and
/// flags, fingerprint included). Two tiles have the same id iff they have the same bytes
/// (up to SHA-256 collisions). Displays as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContentId(pub [u8; 32]);

impl ContentId {
    /// The content id of arbitrary bytes (SHA-256).
    pub fn of_bytes(bytes: &[u8]) -> ContentId {
        ContentId(Sha256::digest(bytes).into())
    }
}

impl fmt::Display for ContentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for ContentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ContentId({self})")
    }
}

impl NavTile {
    /// The tile's content id: SHA-256 of its as-built ONPT bytes. Current areas and flags
    /// do not change it.
    pub fn content_id(&self) -> ContentId {
        ContentId::of_bytes(&self.to_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_id_displays_as_lowercase_hex() {
        let id = ContentId::of_bytes(b"abc");
        assert_eq!(
            id.to_string(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
