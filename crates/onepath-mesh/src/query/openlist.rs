//! The open list of the path search: a binary heap whose entries carry their order as
//! integers, so that one comparison of two machine words decides almost every pair.
//!
//! The order is the search's (see `OpenEntry` in `path.rs`): smallest `f`, then largest
//! `g`, then lowest tie key, then lowest node pops first, with `f` and `g` compared by
//! `f64::total_cmp`. [`order_key`] maps an `f64` to a `u64` whose unsigned order is exactly
//! `total_cmp`'s (and back, bit for bit), so comparing `(key(f), !key(g), tie, node)` as
//! integers is that order. No two entries of one search are equal under it (a node is
//! pushed again only with a strictly smaller `g`), so the pop sequence is fixed by the
//! entries alone, whatever the heap's layout.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use onepath_format::PolyRef;

use crate::query::poly::tie_key;

/// An open-list entry. The heap pops the smallest `f`, then the largest `g` (the deeper
/// node), then the lowest (slot, polygon) ([`tie_key`]). Entries made stale by a later improvement stay in the
/// heap and are skipped when popped.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpenEntry {
    pub(crate) f: f64,
    pub(crate) g: f64,
    pub(crate) poly: PolyRef,
    pub(crate) node: u32,
}

impl PartialEq for OpenEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for OpenEntry {}
impl PartialOrd for OpenEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OpenEntry {
    /// "Greater" pops first (BinaryHeap is a max-heap).
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .f
            .total_cmp(&self.f)
            .then(self.g.total_cmp(&other.g))
            .then(tie_key(other.poly).cmp(&tie_key(self.poly)))
            .then(other.node.cmp(&self.node))
    }
}

/// `x`'s bits mapped so that unsigned integer order is `f64::total_cmp` order: negative
/// values (sign bit set) have all bits flipped, the others only the sign bit.
pub(crate) fn order_key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// The inverse of [`order_key`]: the very bits of the `f64` it was made from.
pub(crate) fn from_order_key(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// An open entry with its order packed: pops first when `(f, inverted g, tie, node)` is
/// smallest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Keyed {
    f: u64,
    /// `!order_key(g)`: a larger `g` is smaller here.
    g_inv: u64,
    tie: u64,
    node: u32,
}

impl PartialOrd for Keyed {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Keyed {
    /// "Greater" pops first (`BinaryHeap` is a max-heap), so the comparison is reversed.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.f, other.g_inv, other.tie, other.node)
            .cmp(&(self.f, self.g_inv, self.tie, self.node))
    }
}

/// An entry taken from (or looked at on) the open list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Open {
    /// The `g` it was pushed with (the same bits).
    pub(crate) g: f64,
    /// Its node.
    pub(crate) node: u32,
    /// [`tie_key`] of its polygon: the reference without the salt.
    pub(crate) tie: u64,
}

impl Keyed {
    fn open(&self) -> Open {
        Open {
            g: from_order_key(!self.g_inv),
            node: self.node,
            tie: self.tie,
        }
    }
}

/// The path search's open list: a binary heap of the entries (`low`), or, in radix mode
/// (allowed for searches with landmarks, turned on once the list is large), a radix heap over
/// the `f` keys in front of it. In radix mode entries whose `f` key is not
/// above the last key taken out (`last`) wait in `low`; every other entry waits unsorted in
/// bucket `b`, the bit length of `key ^ last`, so a bucket holds keys sharing the bits of
/// `last` above bit `b − 1`. When `low` runs empty, the lowest non-empty bucket is split:
/// `last` becomes its smallest key, whose entries go to `low`, the rest to lower buckets.
/// Every entry in a bucket has a key above every key in `low`, so `low`'s top is always the
/// first entry in the search's order: the pop sequence is that of a binary heap of all
/// entries in either mode, also when keys arrive out of order.
///
/// Radix mode pays when many entries share few `f` values (a landmark heuristic on a grid,
/// where equally good polygons have exactly equal `f`): measured −16 % on the generated
/// grid with 8 landmarks, +13 % with the plain heuristic, which therefore keeps the plain
/// binary heap.
#[derive(Debug, Clone)]
pub(crate) struct OpenList {
    low: BinaryHeap<Keyed>,
    buckets: [Vec<Keyed>; 65],
    /// Bit `b` set when bucket `b` is not empty.
    used: u128,
    last: u64,
    len: usize,
    /// Radix mode is on.
    radix: bool,
    /// Radix mode may be turned on (it is, once the list holds `radix_from` entries).
    radix_allowed: bool,
    radix_from: usize,
}

/// Entries from which an open list allowed radix mode turns it on (below, the binary heap is
/// as fast or faster: measured on nav_test, whose searches keep a few dozen entries).
const RADIX_FROM: usize = 256;

impl Default for OpenList {
    fn default() -> Self {
        OpenList {
            low: BinaryHeap::new(),
            buckets: std::array::from_fn(|_| Vec::new()),
            used: 0,
            last: 0,
            len: 0,
            radix: false,
            radix_allowed: false,
            radix_from: RADIX_FROM,
        }
    }
}

impl OpenList {
    /// Empties the list, keeping its capacity, and says whether radix mode may be turned on
    /// (when it grows large). The mode changes speed only, never the pop order.
    pub(crate) fn reset(&mut self, radix_allowed: bool) {
        self.clear();
        self.radix = false;
        self.radix_allowed = radix_allowed;
    }

    /// Turns radix mode on: `last` becomes the smallest key and the entries above it leave
    /// `low` for their buckets.
    #[cold]
    fn enter_radix(&mut self) {
        self.radix = true;
        let all = std::mem::take(&mut self.low).into_vec();
        self.last = all.iter().map(|e| e.f).min().unwrap_or(0);
        for x in all {
            self.place(x);
        }
    }

    /// Empties the list, keeping its capacity.
    pub(crate) fn clear(&mut self) {
        self.low.clear();
        while self.used != 0 {
            let b = self.used.trailing_zeros() as usize;
            self.buckets[b].clear();
            self.used &= self.used - 1;
        }
        self.last = 0;
        self.len = 0;
    }

    /// True when no entry is left.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn place(&mut self, x: Keyed) {
        if !self.radix || x.f <= self.last {
            self.low.push(x);
        } else {
            let b = (64 - (x.f ^ self.last).leading_zeros()) as usize;
            self.buckets[b].push(x);
            self.used |= 1 << b;
        }
    }

    /// Adds the entry of `node` (polygon `poly`) with its `f` and `g`.
    pub(crate) fn push(&mut self, f: f64, g: f64, poly: PolyRef, node: u32) {
        self.len += 1;
        self.place(Keyed {
            f: order_key(f),
            g_inv: !order_key(g),
            tie: tie_key(poly),
            node,
        });
        if self.radix_allowed && !self.radix && self.len >= self.radix_from {
            self.enter_radix();
        }
    }

    /// Moves the entries with the next smallest key into `low` when it is empty.
    fn refill(&mut self) {
        if !self.low.is_empty() || self.used == 0 {
            return;
        }
        let b = self.used.trailing_zeros() as usize;
        self.used &= !(1u128 << b);
        let mut bucket = std::mem::take(&mut self.buckets[b]);
        let min = bucket.iter().map(|e| e.f).min().unwrap_or(self.last);
        self.last = min;
        for x in bucket.drain(..) {
            self.place(x);
        }
        // Keep the bucket's allocation for later.
        self.buckets[b] = bucket;
    }

    /// The entry [`OpenList::pop`] would return.
    pub(crate) fn peek(&mut self) -> Option<Open> {
        self.refill();
        self.low.peek().map(Keyed::open)
    }

    /// Removes and returns the first entry in the search's order.
    pub(crate) fn pop(&mut self) -> Option<Open> {
        self.refill();
        let x = self.low.pop()?;
        self.len -= 1;
        Some(x.open())
    }
}

/// A run head of [`RunOpenList`]: the run's first remaining entry and where the rest of
/// the run waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Head {
    key: Keyed,
    /// The run's remaining entries after `key`, sorted into pop order:
    /// `RunOpenList::store[start..end]`.
    start: u32,
    end: u32,
}

/// The longest run: an expansion's entries beyond it are pushed as further runs (the
/// insertion sort is quadratic in the run's length). Measured (callgrind, v2 searches):
/// 4 takes 0.6 % fewer instructions than 8 on nav_test, 2.2 % on the sloped terrain, 0.8 %
/// on the generated grid; one run per expansion kept as a small heap (no limit) 15 % more
/// on the sloped terrain, whose large polygons make long runs.
const RUN: usize = 4;

/// True when `a` pops before `b` (the order of [`Keyed`], spelled out as integers).
#[inline(always)]
fn first(a: &Keyed, b: &Keyed) -> bool {
    (a.f, a.g_inv, a.tie, a.node) < (b.f, b.g_inv, b.tie, b.node)
}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    /// The order of the heads' entries (no two entries of one search are equal).
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

/// The open list of model v2 (`portals.rs`): the entries of one expansion are pushed as
/// one or more **runs** ([`RunOpenList::push_run`]; up to [`RUN`] entries each), sorted into
/// pop order, and only each run's first remaining entry waits in a binary heap; popping a
/// head puts the next entry of its run in its place. The heap then holds the first
/// remaining entry of every run, so its top is the first of all remaining entries in the
/// search's order (the order of [`OpenList`]: `f`, then larger `g`, then tie key, then
/// node; no two entries of a search are equal under it): the pop sequence is exactly that
/// of one heap of all entries, whatever the runs are. The gain is that an entry enters the
/// heap only when the one before it in its run has been popped, so the many entries a
/// search never reaches cost a short insertion sort instead of a heap insertion, and the
/// heap stays small.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunOpenList {
    heap: BinaryHeap<Head>,
    /// One run head kept outside `heap` (the best head of the latest push, while it stays
    /// ahead): a pop takes the first of it and `heap`'s top, so a search that keeps taking
    /// the entries it has just pushed does not move them through the heap.
    front: Option<Head>,
    /// Every run pushed since the last reset, one after another, each sorted in place
    /// (popped entries and each run's head stay), then the run being collected
    /// (`store[collect..]`, [`RunOpenList::add`]).
    store: Vec<Keyed>,
    /// Where the run being collected starts in `store`.
    collect: usize,
}

impl RunOpenList {
    /// Empties the list, keeping its capacity.
    pub(crate) fn reset(&mut self) {
        self.heap.clear();
        self.front = None;
        self.store.clear();
        self.collect = 0;
    }

    /// True when no entry is left (the run being collected does not count).
    pub(crate) fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.front.is_none()
    }

    /// Adds the entry of `node` (polygon `poly`) with its `f` and `g` to the run being
    /// collected; it counts once [`RunOpenList::push_run`] is called.
    #[inline]
    pub(crate) fn add(&mut self, f: f64, g: f64, poly: PolyRef, node: u32) {
        self.store.push(Keyed {
            f: order_key(f),
            g_inv: !order_key(g),
            tie: tie_key(poly),
            node,
        });
    }

    /// Pushes the entries added since the last call as one run.
    pub(crate) fn push_run(&mut self) {
        let mut at = self.collect;
        for run in self.store[self.collect..].chunks_mut(RUN) {
            // Sorted into pop order in place (insertion sort); the first entry becomes the
            // head, the rest wait where they are.
            for j in 1..run.len() {
                let x = run[j];
                let mut k = j;
                while k > 0 && first(&x, &run[k - 1]) {
                    run[k] = run[k - 1];
                    k -= 1;
                }
                run[k] = x;
            }
            let h = Head {
                key: run[0],
                start: (at + 1) as u32,
                end: (at + run.len()) as u32,
            };
            match self.front {
                Some(f) if first(&h.key, &f.key) => {
                    self.heap.push(f);
                    self.front = Some(h);
                }
                Some(_) => self.heap.push(h),
                None => self.front = Some(h),
            }
            at += run.len();
        }
        self.collect = at;
    }

    /// True when the front head pops before every head in the heap.
    #[inline(always)]
    fn front_first(&self) -> bool {
        match (&self.front, self.heap.peek()) {
            (Some(f), Some(t)) => first(&f.key, &t.key),
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// The entry [`RunOpenList::pop`] would return.
    pub(crate) fn peek(&self) -> Option<Open> {
        if self.front_first() {
            self.front.map(|h| h.key.open())
        } else {
            self.heap.peek().map(|h| h.key.open())
        }
    }

    /// Removes and returns the first entry in the search's order.
    pub(crate) fn pop(&mut self) -> Option<Open> {
        if self.front_first() {
            let f = self.front.as_mut()?;
            let out = f.key.open();
            if f.start < f.end {
                f.key = self.store[f.start as usize];
                f.start += 1;
            } else {
                self.front = None;
            }
            return Some(out);
        }
        let mut top = self.heap.peek_mut()?;
        let out = top.key.open();
        if top.start < top.end {
            top.key = self.store[top.start as usize];
            top.start += 1;
            // `top` dropped here: the head sifts down to its place.
        } else {
            std::collections::binary_heap::PeekMut::pop(top);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64.
    fn next(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The two open lists under test, popped alike.
    trait Pops {
        fn pop_open(&mut self) -> Option<Open>;
        fn peek_open(&mut self) -> Option<Open>;
        fn no_entry(&self) -> bool;
    }

    /// Both lists have `pop`, `peek` and `is_empty` of the same meaning.
    macro_rules! pops {
        ($($list:ty),*) => {$(
            impl Pops for $list {
                fn pop_open(&mut self) -> Option<Open> {
                    self.pop()
                }
                fn peek_open(&mut self) -> Option<Open> {
                    self.peek()
                }
                fn no_entry(&self) -> bool {
                    self.is_empty()
                }
            }
        )*};
    }
    pops!(OpenList, RunOpenList);

    /// Both lists show the same next entry and agree on being empty.
    fn same_head(ours: &mut impl Pops, reference: &BinaryHeap<OpenEntry>) {
        assert_eq!(
            ours.peek_open().map(|e| e.node),
            reference.peek().map(|e| e.node)
        );
        assert_eq!(ours.no_entry(), reference.is_empty());
    }

    /// Pops one entry from both lists and checks they agree; true when one was popped.
    fn pop_both(ours: &mut impl Pops, reference: &mut BinaryHeap<OpenEntry>) -> bool {
        let (a, b) = (ours.pop_open(), reference.pop());
        assert_eq!(
            a,
            b.map(|e| Open {
                g: e.g,
                node: e.node,
                tie: tie_key(e.poly)
            })
        );
        a.is_some()
    }

    /// Pops both lists to the end, checking the order.
    fn drain_both(ours: &mut impl Pops, reference: &mut BinaryHeap<OpenEntry>) {
        while let Some(e) = reference.pop() {
            assert_eq!(ours.pop_open().map(|e| e.node), Some(e.node));
        }
        assert_eq!(ours.pop_open(), None);
    }

    #[test]
    fn the_order_key_orders_as_total_cmp_and_gives_back_the_same_bits() {
        let mut s = 7;
        let mut xs = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        xs.extend([
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e300,
            -1e300,
        ]);
        for _ in 0..200 {
            xs.push(f64::from_bits(next(&mut s)));
        }
        for &a in &xs {
            assert_eq!(from_order_key(order_key(a)).to_bits(), a.to_bits());
            for &b in &xs {
                assert_eq!(
                    order_key(a).cmp(&order_key(b)),
                    a.total_cmp(&b),
                    "{a:e} {b:e}"
                );
            }
        }
    }

    #[test]
    fn the_run_open_list_pops_in_the_order_of_the_open_entries() {
        for seed in 0..40u64 {
            let mut s = seed;
            let mut ours = RunOpenList::default();
            let mut reference = BinaryHeap::new();
            let mut popped = 0;
            let mut node = 0u32;
            for _ in 0..400 {
                if next(&mut s) % 3 != 0 {
                    // One expansion's 0..20 entries (split into runs of at most `RUN`); few
                    // distinct values, so every tie rule counts.
                    for _ in 0..next(&mut s) % 20 {
                        let f = (next(&mut s) % 7) as f64 * 0.5;
                        let g = (next(&mut s) % 4) as f64 * 0.25;
                        let salt = 1 + (next(&mut s) % 2) as u32;
                        let poly = PolyRef::new(
                            salt,
                            (next(&mut s) % 3) as u32,
                            (next(&mut s) % 5) as u32,
                        )
                        .unwrap();
                        ours.add(f, g, poly, node);
                        reference.push(OpenEntry { f, g, poly, node });
                        node += 1;
                    }
                    ours.push_run();
                } else {
                    popped += usize::from(pop_both(&mut ours, &mut reference));
                }
                same_head(&mut ours, &reference);
            }
            drain_both(&mut ours, &mut reference);
            assert!(popped > 50);
        }
    }

    #[test]
    fn the_open_list_pops_in_the_order_of_the_open_entries() {
        for seed in 0..40u64 {
            let mut s = seed;
            let mut ours = OpenList::default();
            // Plain, radix from the start, radix turned on part way.
            ours.reset(seed % 3 != 0);
            ours.radix_from = [0, 1, 40][(seed % 3) as usize];
            let mut reference = BinaryHeap::new();
            let mut popped = 0;
            for step in 0..600u32 {
                // Few distinct f / g / polygon values, so that every tie rule is exercised
                // (two salts of one slot and polygon share a tie key).
                if next(&mut s) % 3 != 0 {
                    let f = (next(&mut s) % 7) as f64 * 0.5;
                    let g = (next(&mut s) % 4) as f64 * 0.25;
                    let salt = 1 + (next(&mut s) % 2) as u32;
                    let poly =
                        PolyRef::new(salt, (next(&mut s) % 3) as u32, (next(&mut s) % 5) as u32)
                            .unwrap();
                    ours.push(f, g, poly, step);
                    reference.push(OpenEntry {
                        f,
                        g,
                        poly,
                        node: step,
                    });
                } else {
                    popped += usize::from(pop_both(&mut ours, &mut reference));
                }
                same_head(&mut ours, &reference);
            }
            drain_both(&mut ours, &mut reference);
            assert!(popped > 100);
        }
    }
}
