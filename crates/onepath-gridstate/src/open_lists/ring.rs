//! A bucket ring: the open list of a search whose keys stay in a narrow window above the
//! smallest one (A* with a consistent estimate on a grid: a successor's f exceeds its
//! parent's by at most twice the longest step, so every open f lies within 2√2 of the
//! smallest).
//!
//! Entries are `u128` keys whose bits from `SHIFT` up are the bucket (the caller packs f in
//! fixed point there, so buckets are ranges of f); [`RING`] consecutive buckets live in a
//! ring of vectors with a bit mask of the non-empty ones. The bucket being popped (the
//! current one) is kept sorted, so the pop order is the order of the keys, exactly as one
//! heap over all entries gives: buckets are popped in increasing order, and a bucket holds
//! every entry of its range. Buckets are small (a handful of entries), so sorting one
//! when it becomes current and inserting the rare push into the current one cost less
//! than a heap's pops. A push below the current bucket or beyond the window
//! is refused (and queues nothing) so the caller can switch to an unrestricted heap.
//!
//! Entries are never updated in place: a caller that improves a key pushes a new entry,
//! and entries it no longer wants are dropped by the `stale` predicate given to
//! [`BucketRing::peek`].

/// Buckets in the ring (a power of two, a multiple of 64).
pub(crate) const RING: u64 = 256;
const WORDS: usize = (RING / 64) as usize;
/// Buckets up to this size are filtered and insertion-sorted in one pass.
const SMALL_BUCKET: usize = 16;

/// See the module docs.
#[derive(Debug, Clone)]
pub(crate) struct BucketRing<const SHIFT: u32> {
    /// Number of the current bucket, which is `level`.
    cur: u64,
    /// True when nothing is queued, so `cur` may move to a push outside the window.
    empty: bool,
    /// `ring[i % RING]` holds the entries of bucket i, for cur < i < cur + RING.
    ring: Box<[Vec<u128>; RING as usize]>,
    /// Bit i % RING set when that bucket is non-empty.
    mask: [u64; WORDS],
    /// The current bucket, sorted in decreasing order (the smallest key last).
    level: Vec<u128>,
}

impl<const SHIFT: u32> Default for BucketRing<SHIFT> {
    /// An empty ring whose bucket number is `key >> SHIFT`.
    fn default() -> Self {
        BucketRing {
            cur: 0,
            empty: true,
            ring: Box::new(std::array::from_fn(|_| Vec::new())),
            mask: [0; WORDS],
            level: Vec::new(),
        }
    }
}

impl<const SHIFT: u32> BucketRing<SHIFT> {
    /// Empties the queue.
    pub(crate) fn clear(&mut self) {
        for w in 0..WORDS {
            let mut m = self.mask[w];
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                self.ring[w * 64 + i].clear();
            }
            self.mask[w] = 0;
        }
        self.level.clear();
        self.cur = 0;
        self.empty = true;
    }

    /// Empties the queue and makes the bucket of `key` the current one (for refilling it
    /// with entries whose smallest key is `key`).
    pub(crate) fn reset_at(&mut self, key: u128) {
        self.clear();
        self.cur = (key >> SHIFT) as u64;
        self.empty = false;
    }

    /// Queues `key`. Returns false, queueing nothing, when it lies below the current
    /// bucket or beyond the ring's window.
    #[inline]
    pub(crate) fn push(&mut self, key: u128) -> bool {
        let b = (key >> SHIFT) as u64;
        if self.empty {
            // Nothing queued: the window may move, but only when it must, so later pushes
            // at or above the old current bucket stay accepted.
            self.empty = false;
            if b < self.cur || b - self.cur >= RING {
                self.cur = b;
            }
        }
        if b == self.cur {
            let at = self.level.partition_point(|&k| k > key);
            self.level.insert(at, key);
            return true;
        }
        if b < self.cur || b - self.cur >= RING {
            return false;
        }
        let slot = (b % RING) as usize;
        self.ring[slot].push(key);
        self.mask[slot / 64] |= 1 << (slot % 64);
        true
    }

    /// The smallest key for which `stale(key)` is false, left in the queue; stale entries
    /// met on the way are dropped.
    #[inline]
    pub(crate) fn peek(&mut self, mut stale: impl FnMut(u128) -> bool) -> Option<u128> {
        loop {
            while let Some(&k) = self.level.last() {
                if !stale(k) {
                    return Some(k);
                }
                self.level.pop();
            }
            if !self.advance(&mut stale) {
                self.empty = true;
                return None;
            }
        }
    }

    /// Removes the entry [`BucketRing::peek`] returned last.
    #[inline]
    pub(crate) fn pop_peeked(&mut self) {
        self.level.pop();
    }

    /// Makes the next non-empty bucket (after the current one, the level being empty)
    /// current, moving its live entries, sorted, into the level. False when none is left.
    fn advance(&mut self, stale: &mut impl FnMut(u128) -> bool) -> bool {
        let Some(step) = self.next_nonempty() else {
            return false;
        };
        self.cur += step;
        let slot = (self.cur % RING) as usize;
        self.mask[slot / 64] &= !(1 << (slot % 64));
        let mut entries = std::mem::take(&mut self.ring[slot]);
        if entries.len() <= SMALL_BUCKET {
            // Filter and insertion-sort in one pass into the (empty) level.
            let level = &mut self.level;
            for &k in &entries {
                if stale(k) {
                    continue;
                }
                let mut i = level.len();
                level.push(k);
                while i > 0 && level[i - 1] < k {
                    level[i] = level[i - 1];
                    i -= 1;
                }
                level[i] = k;
            }
            entries.clear();
            self.ring[slot] = entries;
        } else {
            entries.retain(|&k| !stale(k));
            entries.sort_unstable_by(|a, b| b.cmp(a));
            // The level is empty: it takes the bucket's vector, and the bucket keeps the
            // level's old allocation.
            let spare = std::mem::replace(&mut self.level, entries);
            self.ring[slot] = spare;
        }
        true
    }

    /// Distance (1..RING) from the current bucket to the next non-empty one (the current
    /// bucket's own ring slot is always empty: its entries are in the level).
    #[inline]
    fn next_nonempty(&self) -> Option<u64> {
        let s = self.cur % RING;
        let start = (s + 1) % RING;
        let w0 = (start / 64) as usize;
        let off = start % 64;
        let found = if self.mask[w0] >> off != 0 {
            w0 as u64 * 64 + u64::from((self.mask[w0] >> off << off).trailing_zeros())
        } else if let Some(w) = (1..WORDS)
            .map(|k| (w0 + k) % WORDS)
            .find(|&w| self.mask[w] != 0)
        {
            w as u64 * 64 + u64::from(self.mask[w].trailing_zeros())
        } else {
            // Wrapped round to the bits of the first word below `start`.
            let low = self.mask[w0] & ((1u64 << off) - 1);
            if low == 0 {
                return None;
            }
            w0 as u64 * 64 + u64::from(low.trailing_zeros())
        };
        Some((found + RING - s) % RING)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Test keys: bucket in the bits from 16 up, the rest below.
    const SHIFT: u32 = 16;

    proptest! {
        // Pops come out in key order, exactly as sorting gives, when pushes interleave
        // with pops and stay within the window above the last bucket popped.
        #[test]
        fn pops_in_key_order(
            start in 0u128..1_000_000,
            ops in proptest::collection::vec((any::<bool>(), 0u128..(RING as u128), 0u128..(1 << SHIFT)), 1..400),
        ) {
            let mut q = BucketRing::<SHIFT>::default();
            q.reset_at(start << SHIFT);
            let mut model: Vec<u128> = Vec::new();
            let mut last = start;
            for (pop, db, low) in ops {
                if pop {
                    model.sort();
                    let want = if model.is_empty() { None } else { Some(model.remove(0)) };
                    prop_assert_eq!(q.peek(|_| false), want);
                    if let Some(w) = want {
                        q.pop_peeked();
                        last = w >> SHIFT;
                    }
                } else {
                    let k = ((last + db) << SHIFT) | low;
                    prop_assert!(q.push(k));
                    model.push(k);
                }
            }
            model.sort();
            for w in model {
                prop_assert_eq!(q.peek(|_| false), Some(w));
                q.pop_peeked();
            }
            prop_assert_eq!(q.peek(|_| false), None);
        }

        #[test]
        fn stale_entries_are_skipped(keys in proptest::collection::vec(0u128..(64 << SHIFT), 1..100), dead in any::<u64>()) {
            let mut q = BucketRing::<SHIFT>::default();
            q.reset_at(0);
            for &k in &keys {
                prop_assert!(q.push(k));
            }
            let is_dead = |k: u128| (dead >> (k % 64)) & 1 == 1;
            let mut want: Vec<u128> = keys.iter().copied().filter(|&k| !is_dead(k)).collect();
            want.sort();
            for w in want {
                prop_assert_eq!(q.peek(is_dead), Some(w));
                q.pop_peeked();
            }
            prop_assert_eq!(q.peek(is_dead), None);
        }
    }

    #[test]
    fn pushes_outside_the_window_are_refused() {
        let b = |bucket: u128, low: u128| (bucket << SHIFT) | low;
        let mut q = BucketRing::<SHIFT>::default();
        q.reset_at(b(10, 5));
        assert!(!q.push(b(9, 7)));
        assert!(!q.push(b(10 + RING as u128, 0)));
        assert!(q.push(b(9 + RING as u128, 1)));
        assert!(q.push(b(10, 0)));
        assert_eq!(q.peek(|_| false), Some(b(10, 0)));
        q.pop_peeked();
        assert_eq!(q.peek(|_| false), Some(b(9 + RING as u128, 1)));
        q.pop_peeked();
        assert_eq!(q.peek(|_| false), None);
        // Empty: the next push may land anywhere.
        assert!(q.push(b(1000, 0)));
        assert_eq!(q.peek(|_| false), Some(b(1000, 0)));
    }
}
