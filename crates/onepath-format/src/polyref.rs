//! Polygon and tile references: salt (24 bits) | slot (20 bits) | polygon (20 bits).

use std::fmt;

/// Bits of the salt (slot generation).
pub const SALT_BITS: u32 = 24;
/// Bits of the slot index.
pub const SLOT_BITS: u32 = 20;
/// Bits of the polygon index.
pub const POLY_BITS: u32 = 20;
/// Largest salt value.
pub const MAX_SALT: u32 = (1 << SALT_BITS) - 1;
/// A mesh has at most this many slots (slot indices 0..MAX_SLOTS).
pub const MAX_SLOTS: u32 = (1 << SLOT_BITS) - 1;
/// Largest polygon index + 1 (a tile has fewer than 2^20 polygons).
pub const MAX_POLYS: u32 = 1 << POLY_BITS;

/// The next generation of a slot: `(salt + 1) & 0xFFFFFF`, skipping 0.
pub fn next_salt(salt: u32) -> u32 {
    let s = (salt.wrapping_add(1)) & MAX_SALT;
    if s == 0 {
        1
    } else {
        s
    }
}

/// A reference to one polygon of one tile generation. Zero is "no polygon".
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PolyRef(pub u64);

impl PolyRef {
    /// The invalid reference.
    pub const NULL: PolyRef = PolyRef(0);

    /// Encodes (salt, slot, polygon); `None` when a part is out of range or salt is 0.
    pub fn new(salt: u32, slot: u32, poly: u32) -> Option<PolyRef> {
        if salt == 0 || salt > MAX_SALT || slot > MAX_SLOTS || poly >= MAX_POLYS {
            return None;
        }
        Some(PolyRef(
            (u64::from(salt) << (SLOT_BITS + POLY_BITS))
                | (u64::from(slot) << POLY_BITS)
                | u64::from(poly),
        ))
    }

    /// The salt (slot generation) part.
    pub fn salt(self) -> u32 {
        (self.0 >> (SLOT_BITS + POLY_BITS)) as u32 & MAX_SALT
    }

    /// The slot part.
    pub fn slot(self) -> u32 {
        (self.0 >> POLY_BITS) as u32 & ((1 << SLOT_BITS) - 1)
    }

    /// The polygon index part.
    pub fn poly(self) -> u32 {
        self.0 as u32 & (MAX_POLYS - 1)
    }

    /// True for the zero value.
    pub fn is_null(self) -> bool {
        self.0 == 0
    }

    /// The tile part.
    pub fn tile(self) -> TileRef {
        TileRef {
            salt: self.salt(),
            slot: self.slot(),
        }
    }
}

impl fmt::Debug for PolyRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PolyRef(salt {}, slot {}, poly {})",
            self.salt(),
            self.slot(),
            self.poly()
        )
    }
}

/// A reference to one tile generation: (salt, slot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct TileRef {
    /// Slot generation (1..=0xFFFFFF when issued).
    pub salt: u32,
    /// Slot index.
    pub slot: u32,
}

impl TileRef {
    /// A polygon of this tile generation.
    pub fn poly(self, poly: u32) -> Option<PolyRef> {
        PolyRef::new(self.salt, self.slot, poly)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode() {
        let r = PolyRef::new(0xABCDEF, 0x12345, 0xFFFFF).unwrap();
        assert_eq!((r.salt(), r.slot(), r.poly()), (0xABCDEF, 0x12345, 0xFFFFF));
        assert_eq!(r.0 >> 40, 0xABCDEF);
    }

    #[test]
    fn salt_zero_is_never_issued() {
        assert!(PolyRef::new(0, 1, 1).is_none());
        assert_eq!(next_salt(MAX_SALT), 1);
        assert_eq!(next_salt(1), 2);
    }

    #[test]
    fn out_of_range_parts_rejected() {
        assert!(PolyRef::new(1, MAX_SLOTS + 1, 0).is_none());
        assert!(PolyRef::new(1, 0, MAX_POLYS).is_none());
        assert!(PolyRef::new(MAX_SALT + 1, 0, 0).is_none());
    }
}
