//! The open set of the generic engines: an indexed binary min-heap of (F, G, node) kept as
//! an array in heap order (the state format writes the slots as they lie).
//!
//! Tie-break (total order, so equal-cost searches expand in the same order everywhere):
//! smaller F first; on equal F the larger G (the deeper node) first; on equal G the
//! smaller node index first. A node is listed at most once (decrease-key, no stale slots).

/// One slot of an [`OpenSet`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpenSlot {
    /// The node.
    pub node: u32,
    /// Estimated total cost (G + weight × heuristic).
    pub f: f64,
    /// Cost so far.
    pub g: f64,
}

#[inline]
fn before(a: &OpenSlot, b: &OpenSlot) -> bool {
    if a.f != b.f {
        return a.f < b.f;
    }
    if a.g != b.g {
        return a.g > b.g;
    }
    a.node < b.node
}

const ABSENT: u32 = u32::MAX;

/// An indexed binary heap over nodes `0..node_count`.
#[derive(Debug, Clone, Default)]
pub struct OpenSet {
    slots: Vec<OpenSlot>,
    pos: Vec<u32>,
}

impl OpenSet {
    /// An empty set with room for node indexes below `node_count`.
    pub fn new(node_count: usize) -> Self {
        OpenSet {
            slots: Vec::new(),
            pos: vec![ABSENT; node_count],
        }
    }

    /// Empties the set and makes room for `node_count` nodes. Costs O(len), not O(nodes).
    pub fn reset(&mut self, node_count: usize) {
        for s in &self.slots {
            if let Some(p) = self.pos.get_mut(s.node as usize) {
                *p = ABSENT;
            }
        }
        self.slots.clear();
        if self.pos.len() != node_count {
            self.pos.clear();
            self.pos.resize(node_count, ABSENT);
        }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The slots in heap (array) order.
    pub fn slots(&self) -> &[OpenSlot] {
        &self.slots
    }

    /// The smallest slot.
    pub fn peek(&self) -> Option<&OpenSlot> {
        self.slots.first()
    }

    /// Inserts `node`, or lowers its key when it is already listed. Keys never rise: a
    /// call with a key that does not come first is ignored for a listed node.
    pub fn push_or_decrease(&mut self, node: u32, f: f64, g: f64) {
        let Some(&p) = self.pos.get(node as usize) else {
            return;
        };
        let slot = OpenSlot { node, f, g };
        if p == ABSENT {
            self.slots.push(slot);
            let i = self.slots.len() - 1;
            self.pos[node as usize] = i as u32;
            self.sift_up(i);
        } else {
            let i = p as usize;
            if before(&slot, &self.slots[i]) {
                self.slots[i] = slot;
                self.sift_up(i);
            }
        }
    }

    /// Empties the set and lays `slots` out exactly as given (heap order as saved); the
    /// caller has checked that the nodes are distinct and below `node_count`.
    pub(crate) fn restore(&mut self, node_count: usize, slots: &[OpenSlot]) {
        self.reset(node_count);
        for s in slots {
            let i = self.slots.len();
            if let Some(p) = self.pos.get_mut(s.node as usize) {
                *p = i as u32;
                self.slots.push(*s);
            }
        }
    }

    /// Removes and returns the smallest slot.
    pub fn pop(&mut self) -> Option<OpenSlot> {
        let top = *self.slots.first()?;
        let last = self.slots.pop()?;
        self.pos[top.node as usize] = ABSENT;
        if !self.slots.is_empty() {
            self.slots[0] = last;
            self.pos[last.node as usize] = 0;
            self.sift_down(0);
        }
        Some(top)
    }

    fn sift_up(&mut self, mut i: usize) {
        let item = self.slots[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if before(&item, &self.slots[parent]) {
                self.slots[i] = self.slots[parent];
                self.pos[self.slots[i].node as usize] = i as u32;
                i = parent;
            } else {
                break;
            }
        }
        self.slots[i] = item;
        self.pos[item.node as usize] = i as u32;
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.slots.len();
        let item = self.slots[i];
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && before(&self.slots[r], &self.slots[l]) {
                r
            } else {
                l
            };
            if before(&self.slots[c], &item) {
                self.slots[i] = self.slots[c];
                self.pos[self.slots[i].node as usize] = i as u32;
                i = c;
            } else {
                break;
            }
        }
        self.slots[i] = item;
        self.pos[item.node as usize] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_tie_break_order() {
        let mut h = OpenSet::new(10);
        h.push_or_decrease(5, 2.0, 1.0);
        h.push_or_decrease(3, 2.0, 1.0);
        h.push_or_decrease(7, 2.0, 1.5);
        h.push_or_decrease(1, 3.0, 0.0);
        h.push_or_decrease(9, 1.0, 0.0);
        h.push_or_decrease(1, 0.5, 0.0); // decrease
        let order: Vec<u32> = std::iter::from_fn(|| h.pop().map(|s| s.node)).collect();
        assert_eq!(order, vec![1, 9, 7, 3, 5]);
        assert!(h.is_empty());
    }

    #[test]
    fn heap_lists_a_node_once() {
        let mut h = OpenSet::new(4);
        h.push_or_decrease(2, 5.0, 0.0);
        h.push_or_decrease(2, 4.0, 0.0);
        h.push_or_decrease(2, 6.0, 0.0);
        assert_eq!(h.len(), 1);
        assert_eq!(h.pop().map(|s| s.f), Some(4.0));
    }
}

/// One slot of a [`ReplanOpenSet`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReplanSlot {
    /// The node.
    pub node: u32,
    /// Primary key: min(g, rhs) + estimate (+ km for D* Lite).
    pub key1: f64,
    /// Secondary key: min(g, rhs).
    pub key2: f64,
}

#[inline]
fn replan_before(a: &ReplanSlot, b: &ReplanSlot) -> bool {
    if a.key1 != b.key1 {
        return a.key1 < b.key1;
    }
    if a.key2 != b.key2 {
        return a.key2 < b.key2;
    }
    a.node < b.node
}

/// The open set of the LPA* / D* Lite replanners: an indexed binary min-heap of
/// (key1, key2, node) kept as an array in heap order, with removal. Tie-break: key1, then
/// key2, then the smaller node index.
#[derive(Debug, Clone, Default)]
pub struct ReplanOpenSet {
    slots: Vec<ReplanSlot>,
    pos: Vec<u32>,
}

impl ReplanOpenSet {
    /// Empties the set for `node_count` nodes.
    pub fn reset(&mut self, node_count: usize) {
        self.slots.clear();
        self.pos.clear();
        self.pos.resize(node_count, ABSENT);
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// The slots in heap order.
    pub fn slots(&self) -> &[ReplanSlot] {
        &self.slots
    }

    /// The smallest slot.
    pub fn peek(&self) -> Option<&ReplanSlot> {
        self.slots.first()
    }

    /// Empties the set and lays `slots` out exactly as given (heap order as saved); the
    /// caller has checked that the nodes are distinct and below `node_count`.
    pub(crate) fn restore(&mut self, node_count: usize, slots: &[ReplanSlot]) {
        self.reset(node_count);
        for s in slots {
            let i = self.slots.len();
            if let Some(p) = self.pos.get_mut(s.node as usize) {
                *p = i as u32;
                self.slots.push(*s);
            }
        }
    }

    /// Inserts `node` or moves it to the new key (up or down).
    pub fn upsert(&mut self, node: u32, key1: f64, key2: f64) {
        let Some(&p) = self.pos.get(node as usize) else {
            return;
        };
        let slot = ReplanSlot { node, key1, key2 };
        if p == ABSENT {
            self.slots.push(slot);
            let i = self.slots.len() - 1;
            self.place(i, slot);
            self.up(i);
        } else {
            let i = p as usize;
            self.place(i, slot);
            self.up(i);
            let j = self.pos[node as usize] as usize;
            self.down(j);
        }
    }

    /// Removes `node` if listed.
    pub fn remove(&mut self, node: u32) {
        let Some(&p) = self.pos.get(node as usize) else {
            return;
        };
        if p == ABSENT {
            return;
        }
        let i = p as usize;
        self.pos[node as usize] = ABSENT;
        let Some(last) = self.slots.pop() else { return };
        if i < self.slots.len() {
            self.place(i, last);
            self.up(i);
            let j = self.pos[last.node as usize] as usize;
            self.down(j);
        }
    }

    /// Whether a slot whose key1 is at most `key1_bound` satisfies `pred`. Only those
    /// slots are visited: a subtree whose root's key1 exceeds the bound is skipped (in a
    /// heap no slot comes before its parent, so its key1 is at least the parent's).
    pub(crate) fn any_up_to(&self, key1_bound: f64, pred: impl Fn(&ReplanSlot) -> bool) -> bool {
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            let Some(s) = self.slots.get(i) else { continue };
            if s.key1 > key1_bound {
                continue;
            }
            if pred(s) {
                return true;
            }
            stack.extend([2 * i + 1, 2 * i + 2]);
        }
        false
    }

    /// Removes and returns the smallest slot.
    pub fn pop(&mut self) -> Option<ReplanSlot> {
        let top = *self.slots.first()?;
        self.remove(top.node);
        Some(top)
    }

    #[inline]
    fn place(&mut self, i: usize, s: ReplanSlot) {
        self.slots[i] = s;
        self.pos[s.node as usize] = i as u32;
    }

    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if replan_before(&self.slots[i], &self.slots[p]) {
                let (a, b) = (self.slots[i], self.slots[p]);
                self.place(i, b);
                self.place(p, a);
                i = p;
            } else {
                break;
            }
        }
    }

    fn down(&mut self, mut i: usize) {
        let n = self.slots.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && replan_before(&self.slots[r], &self.slots[l]) {
                r
            } else {
                l
            };
            if replan_before(&self.slots[c], &self.slots[i]) {
                let (a, b) = (self.slots[i], self.slots[c]);
                self.place(i, b);
                self.place(c, a);
                i = c;
            } else {
                break;
            }
        }
    }
}

#[cfg(test)]
mod replan_tests {
    use super::*;

    #[test]
    fn replan_set_updates_and_removes() {
        let mut h = ReplanOpenSet::default();
        h.reset(8);
        for (n, k) in [(0u32, 5.0), (1, 3.0), (2, 4.0), (3, 3.0), (4, 9.0)] {
            h.upsert(n, k, 0.0);
        }
        h.upsert(4, 1.0, 0.0); // up
        h.upsert(1, 10.0, 0.0); // down
        h.remove(2);
        let order: Vec<u32> = std::iter::from_fn(|| h.pop().map(|s| s.node)).collect();
        assert_eq!(order, vec![4, 3, 0, 1]);
    }

    #[test]
    fn any_up_to_finds_a_slot_behind_the_top_and_skips_subtrees_above_the_bound() {
        let mut h = ReplanOpenSet::default();
        h.reset(64);
        // The top ties at 10.0; one ulp above it a slot with a smaller key2 (the replanners'
        // stop-test case); then 60 slots far above.
        let above = f64::from_bits(10.0f64.to_bits() + 1);
        h.upsert(0, 10.0, 5.0);
        h.upsert(1, above, 4.0);
        for n in 2..62 {
            h.upsert(n, 100.0 + f64::from(n), 0.0);
        }
        assert_eq!(h.peek().map(|s| s.node), Some(0));
        let visited = std::cell::Cell::new(0u32);
        let found = h.any_up_to(10.0 + 1e-8, |s| {
            visited.set(visited.get() + 1);
            s.key2 < 5.0
        });
        assert!(found);
        assert!(visited.get() <= 2, "{} slots visited", visited.get());
        visited.set(0);
        assert!(!h.any_up_to(10.0 + 1e-8, |s| {
            visited.set(visited.get() + 1);
            s.key2 < 4.0
        }));
        // Only the two slots within the bound are looked at, not the 60 above it.
        assert_eq!(visited.get(), 2);
    }
}
