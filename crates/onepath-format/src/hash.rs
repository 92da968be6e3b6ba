//! [`SplitMix64Hasher`]: a fast hasher for lookup tables keyed by small integers
//! (polygon references, cell pairs), shared by the crates above.
//!
//! Only for tables that are looked up, never iterated into an output: iteration order of a
//! `HashMap` is not part of any answer or byte in OnePath, whatever the hasher.

use std::hash::Hasher;

/// Folds each `u64` written into the state with SplitMix64's finaliser, so every input bit
/// reaches the low bits a table indexes with (a bare multiply would leave high bits out).
/// Bytes are folded one at a time; integer keys should be written with `write_u64` (which
/// `u64`, `u32` through `as`, and tuples of them do).
///
/// ```
/// use std::collections::HashMap;
/// use std::hash::BuildHasherDefault;
/// use onepath_format::hash::SplitMix64Hasher;
///
/// let mut m: HashMap<u64, u32, BuildHasherDefault<SplitMix64Hasher>> = HashMap::default();
/// m.insert(7 << 32 | 9, 1);
/// assert_eq!(m.get(&(7 << 32 | 9)), Some(&1));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct SplitMix64Hasher(u64);

impl Hasher for SplitMix64Hasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, v: u64) {
        let mut z = self.0 ^ v;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        self.0 = z ^ (z >> 31);
    }
}
