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

use crate::query::graph::tie_key;

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

/// The path search's open list.
#[derive(Debug, Default, Clone)]
pub(crate) struct OpenList {
    heap: BinaryHeap<Keyed>,
}

impl OpenList {
    /// Empties the list, keeping its capacity.
    pub(crate) fn clear(&mut self) {
        self.heap.clear();
    }

    /// True when no entry is left.
    pub(crate) fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Adds the entry of `node` (polygon `poly`) with its `f` and `g`.
    pub(crate) fn push(&mut self, f: f64, g: f64, poly: PolyRef, node: u32) {
        self.heap.push(Keyed {
            f: order_key(f),
            g_inv: !order_key(g),
            tie: tie_key(poly),
            node,
        });
    }

    /// The entry [`OpenList::pop`] would return.
    pub(crate) fn peek(&self) -> Option<Open> {
        self.heap.peek().map(Keyed::open)
    }

    /// Removes and returns the first entry in the search's order.
    pub(crate) fn pop(&mut self) -> Option<Open> {
        self.heap.pop().as_ref().map(Keyed::open)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::path::OpenEntry;

    /// SplitMix64.
    fn next(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
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
    fn the_open_list_pops_in_the_order_of_the_open_entries() {
        for seed in 0..40u64 {
            let mut s = seed;
            let mut ours = OpenList::default();
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
                    let (a, b) = (ours.pop(), reference.pop());
                    assert_eq!(
                        a,
                        b.map(|e| Open {
                            g: e.g,
                            node: e.node,
                            tie: tie_key(e.poly)
                        })
                    );
                    popped += usize::from(a.is_some());
                }
                assert_eq!(
                    ours.peek().map(|e| e.node),
                    reference.peek().map(|e| e.node)
                );
                assert_eq!(ours.is_empty(), reference.is_empty());
            }
            while let Some(e) = reference.pop() {
                assert_eq!(ours.pop().map(|e| e.node), Some(e.node));
            }
            assert_eq!(ours.pop(), None);
            assert!(popped > 100);
        }
    }
}
