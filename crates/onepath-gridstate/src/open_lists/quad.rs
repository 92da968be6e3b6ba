//! A 4-ary max-heap with lazy deletion (no decrease-key), for the voxel engine's open
//! list: half the levels of a binary heap, so a pop moves an entry down half as many
//! times (each step compares four children that lie in one or two cache lines).
//!
//! Order: the greatest entry pops first, as `std::collections::BinaryHeap`. Under a total
//! order whose only ties are between equal entries (the voxel keys end on the node
//! index), every correct heap pops the same sequence, so this heap and std's make the same
//! searches.

/// Children per node.
const ARITY: usize = 4;

/// A 4-ary max-heap kept as an array in heap order.
#[derive(Debug, Clone)]
pub(crate) struct QuadHeap<E> {
    slots: Vec<E>,
}

impl<E> Default for QuadHeap<E> {
    fn default() -> Self {
        QuadHeap { slots: Vec::new() }
    }
}

impl<E: Ord + Copy> QuadHeap<E> {
    /// Empties the heap (its capacity is kept).
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
    }

    /// Room held, in entries.
    pub(crate) fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// The greatest entry.
    #[inline]
    pub(crate) fn peek(&self) -> Option<&E> {
        self.slots.first()
    }

    /// Adds `e`.
    #[inline(always)]
    pub(crate) fn push(&mut self, e: E) {
        let mut i = self.slots.len();
        self.slots.push(e);
        // The hole moves up while its parent is smaller.
        while i > 0 {
            let parent = (i - 1) / ARITY;
            let p = self.slots[parent];
            if p >= e {
                break;
            }
            self.slots[i] = p;
            i = parent;
        }
        self.slots[i] = e;
    }

    /// Removes and returns the greatest entry.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<E> {
        let last = self.slots.pop()?;
        let len = self.slots.len();
        if len == 0 {
            return Some(last);
        }
        let top = self.slots[0];
        // The last entry sinks from the root through the greatest children.
        let mut i = 0;
        loop {
            let first = i * ARITY + 1;
            if first >= len {
                break;
            }
            let end = (first + ARITY).min(len);
            let mut best = first;
            let mut best_e = self.slots[first];
            for c in first + 1..end {
                let ce = self.slots[c];
                if ce > best_e {
                    best = c;
                    best_e = ce;
                }
            }
            if best_e <= last {
                break;
            }
            self.slots[i] = best_e;
            i = best;
        }
        self.slots[i] = last;
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BinaryHeap;

    #[test]
    fn pops_the_same_sequence_as_std_binary_heap() {
        // Interleaved pushes and pops of keys with repeats, against std's heap.
        let mut ours = QuadHeap::default();
        let mut std_heap = BinaryHeap::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..5_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = ((x % 97) as u32, round % 13);
            if x % 3 == 0 {
                assert_eq!(ours.pop(), std_heap.pop(), "round {round}");
            } else {
                ours.push(key);
                std_heap.push(key);
            }
            assert_eq!(ours.peek(), std_heap.peek(), "round {round}");
        }
        while let Some(e) = std_heap.pop() {
            assert_eq!(ours.pop(), Some(e));
        }
        assert_eq!(ours.pop(), None);
    }
}
