//! Repairing a layer (`docs/tilecache.md` §5, "Repairing a layer"): when the only change to a
//! layer's first-build areas is that some spans were set to 0, the regions and contours of
//! the first build are repaired instead of labelled and traced again. The result is exactly
//! what [`crate::region::layer_components`] and [`crate::contour::build_contours`] give for the
//! same areas; where that cannot be shown cheaply (a precondition fails) the layer is built
//! from scratch.

use crate::compact::{CompactHeightfield, NOT_CONNECTED};
use crate::contour::{build_contours_recorded, build_contours_reusing, Contour, LoopTable};
use crate::heightfield::NULL_AREA;
use crate::region::{layer_components_unpainted, paint_ring, BORDER_REG};

/// The working lists of [`LayerMemo::repair`], kept per thread so a tile cache's repairs
/// (one layer after another) allocate them once. Each repair clears or overwrites what it
/// reads, except `mark`, whose stamps only grow (see [`LayerMemo::repair`]).
#[derive(Default)]
struct RepairScratch {
    /// The search marks and the last stamp taken.
    mark: Vec<u32>,
    stamp_base: u32,
    /// The removed spans.
    removed: Vec<u32>,
    /// Spans each region lost.
    lost: Vec<u32>,
    /// The first span of each region after the removal.
    first: Vec<u32>,
    /// The repaired regions of every span.
    reg: Vec<u16>,
    /// The regions whose contours are traced again.
    affected: Vec<bool>,
    /// The first build's loops traced again.
    dirty: Vec<bool>,
    /// The spans whose boundary sides may have changed.
    changed: Vec<u32>,
    /// The searches of precondition (c).
    stack: Vec<u32>,
    group: Vec<u32>,
    ring: Vec<u32>,
}

thread_local! {
    static REPAIR: std::cell::RefCell<RepairScratch> = std::cell::RefCell::default();
}

/// The contours of a repaired layer, in order of their keys: the first build's contours of
/// the regions not traced again and the ones traced again.
#[derive(Clone)]
pub(crate) struct RepairedContours<'a> {
    kept: std::iter::Peekable<std::slice::Iter<'a, (u32, Contour)>>,
    affected: &'a [bool],
    fresh: std::iter::Peekable<std::slice::Iter<'a, (u32, Contour)>>,
}

impl<'a> Iterator for RepairedContours<'a> {
    type Item = &'a Contour;

    fn next(&mut self) -> Option<&'a Contour> {
        while self
            .kept
            .next_if(|(_, c)| self.affected[usize::from(c.reg)])
            .is_some()
        {}
        let take_kept = match (self.kept.peek(), self.fresh.peek()) {
            (Some(a), Some(b)) => a.0 < b.0,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if take_kept {
            self.kept.next()
        } else {
            self.fresh.next()
        }
        .map(|(_, c)| c)
    }
}

/// How many connectivity searches precondition (c) runs (1: only the one through the spans
/// around the removed ones).
const PHASES: usize = 1;

/// What the first build of a layer keeps for repairs: the areas it was built from, the
/// component of every span (ring included) and the region of every span (ring painted), each
/// component's size and first span, and every region's contours with the span its loop was
/// traced from.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerMemo {
    areas: Vec<u8>,
    comp: Vec<u16>,
    regions: Vec<u16>,
    size: Vec<u32>,
    first: Vec<u32>,
    contours: Vec<(u32, Contour)>,
    loops: LoopTable,
}

/// Why a layer was built from scratch instead of repaired (the preconditions of
/// "Repairing a layer").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScratchReason {
    /// (a) A span changed to an area other than 0 (an area volume), or the layer's spans
    /// are not those the memo was made of.
    NotOnlyRemoved,
    /// (b) A region would shrink below `MinRegionArea` or vanish, or a region smaller than
    /// that has a removed span in or next to it.
    SmallRegion,
    /// (c) A region that lost spans may be in several pieces (the ring of one group of its
    /// removed spans does not join within the 3 x 3 columns around that group).
    Split,
    /// (d) A region lost its first span and its rank among the first spans changed.
    Renumbered,
}

/// How a layer's regions and contours were obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepairOutcome {
    /// Repaired from the first build.
    Repaired,
    /// Built from scratch, for this reason.
    Scratch(ScratchReason),
}

impl LayerMemo {
    /// The memo of a layer at its first build (`sub.areas` are the first-build areas).
    pub fn new(
        sub: &CompactHeightfield,
        min_region_area: u32,
        max_error: f32,
        max_edge_len: i32,
    ) -> Self {
        let comp = layer_components_unpainted(sub, min_region_area).ids;
        let mut regions = comp.clone();
        paint_ring(sub, &mut regions);
        let nreg = comp.iter().copied().max().map_or(1, |m| usize::from(m) + 1);
        let mut size = vec![0u32; nreg];
        let mut first = vec![u32::MAX; nreg];
        for (i, &c) in comp.iter().enumerate() {
            if c != 0 {
                let c = usize::from(c);
                if size[c] == 0 {
                    first[c] = i as u32;
                }
                size[c] += 1;
            }
        }
        let (contours, loops) = build_contours_recorded(sub, &regions, max_error, max_edge_len);
        LayerMemo {
            loops,
            areas: sub.areas.clone(),
            comp,
            regions,
            size,
            first,
            contours,
        }
    }

    /// The regions and contours of `sub` (its areas as marked now), repaired from the first
    /// build when the preconditions hold, else `Err(reason)` (the caller builds from
    /// scratch). Equal, when `Ok`, to [`crate::region::layer_components`] and
    /// [`crate::contour::build_contours`] of `sub`.
    pub fn repair(
        &self,
        sub: &CompactHeightfield,
        min_region_area: u32,
        max_error: f32,
        max_edge_len: i32,
    ) -> Result<(Vec<u16>, Vec<Contour>), ScratchReason> {
        self.with_repaired(
            sub,
            min_region_area,
            max_error,
            max_edge_len,
            |regions, contours| (regions.to_vec(), contours.cloned().collect()),
        )
    }

    /// [`LayerMemo::repair`] handing the regions and contours to `f` instead of returning
    /// them (the regions in a buffer kept per thread, the contours taken over from the first
    /// build without copies).
    pub(crate) fn with_repaired<R>(
        &self,
        sub: &CompactHeightfield,
        min_region_area: u32,
        max_error: f32,
        max_edge_len: i32,
        f: impl FnOnce(&[u16], RepairedContours<'_>) -> R,
    ) -> Result<R, ScratchReason> {
        REPAIR.with_borrow_mut(|sc| {
            let fresh = self.repair_in(sub, min_region_area, max_error, max_edge_len, sc)?;
            let contours = RepairedContours {
                kept: self.contours.iter().peekable(),
                affected: &sc.affected,
                fresh: fresh.iter().peekable(),
            };
            Ok(f(&sc.reg, contours))
        })
    }

    /// The repair itself: `Ok` with the contours traced again (by key), the regions in
    /// `sc.reg` and the regions traced again in `sc.affected`.
    fn repair_in(
        &self,
        sub: &CompactHeightfield,
        min_region_area: u32,
        max_error: f32,
        max_edge_len: i32,
        sc: &mut RepairScratch,
    ) -> Result<Vec<(u32, Contour)>, ScratchReason> {
        let RepairScratch {
            mark,
            stamp_base,
            removed,
            lost,
            first,
            reg,
            affected,
            dirty,
            changed,
            stack,
            group,
            ring,
        } = sc;
        let n = sub.span_count();
        // (Past 0x7FFE components several share the last id; never repaired.)
        if sub.areas.len() != self.areas.len() || n != self.areas.len() || self.size.len() > 0x7FFF
        {
            return Err(ScratchReason::NotOnlyRemoved);
        }
        // (a) The removed spans.
        removed.clear();
        // Sixteen spans at a time: most of a layer is as first built, so equal blocks are
        // skipped with one comparison each; a block that differs is read span by span.
        const BLOCK: usize = 16;
        for (k, (now, was)) in sub
            .areas
            .chunks(BLOCK)
            .zip(self.areas.chunks(BLOCK))
            .enumerate()
        {
            if now == was {
                continue;
            }
            for (j, (&now, &was)) in now.iter().zip(was).enumerate() {
                if now != was {
                    if now != NULL_AREA {
                        return Err(ScratchReason::NotOnlyRemoved);
                    }
                    removed.push((k * BLOCK + j) as u32);
                }
            }
        }
        let nreg = self.size.len();
        lost.clear();
        lost.resize(nreg, 0);
        for &x in removed.iter() {
            let c = usize::from(self.comp[x as usize]);
            if c != 0 {
                lost[c] += 1;
            }
        }
        // (b) Sizes: no region that lost spans falls below the minimum or vanishes, and no
        // region below the minimum (kept only for another area or the ring next to it) has a
        // removed span in it or linked to it.
        for c in 1..nreg {
            if lost[c] > 0 && (self.size[c] - lost[c] < min_region_area || self.size[c] == lost[c])
            {
                return Err(ScratchReason::SmallRegion);
            }
        }
        for &x in removed.iter() {
            let x = x as usize;
            let mut near = [self.comp[x]; 5];
            for d in 0..4 {
                let a = sub.spans[x].con[d];
                if a != NOT_CONNECTED {
                    near[d + 1] = self.comp[a as usize];
                }
            }
            // Spans linked to `x` from a column next to it (links need not be mutual).
            let mut small = near
                .iter()
                .any(|&c| c != 0 && self.size[usize::from(c)] < min_region_area);
            for_each_linking(sub, x, |j| {
                let c = self.comp[j];
                small |= c != 0 && self.size[usize::from(c)] < min_region_area;
            });
            if small {
                return Err(ScratchReason::SmallRegion);
            }
        }
        // (c) Every region that lost spans is still one piece under the −x/−z links. The
        // removed spans of a region fall into groups (joined by −x/−z links among
        // themselves); if the live spans of the region next to one group (its ring) all
        // reach each other, every path of the first build through that group can go round
        // it instead, so it suffices that each group's ring is joined. (One ring over all
        // groups would have to join separate holes, which a search near them cannot.)
        let budget = (n / 4).max(256);
        // The marks of the searches: a buffer kept per thread, each repair taking the stamps
        // after the last one's (it uses at most one per region and three per group), so
        // marks left by earlier repairs never equal this one's.
        let stamps = 1 + nreg as u64 + 3 * removed.len() as u64;
        if mark.len() < n {
            mark.resize(n, 0);
        }
        if u64::from(*stamp_base) + stamps >= u64::from(u32::MAX) {
            mark.fill(0);
            *stamp_base = 0;
        }
        let mut stamp = *stamp_base;
        *stamp_base += stamps as u32;
        let searches = [stack, group, ring];
        self.check_split(sub, removed, lost, budget, mark, &mut stamp, searches)?;
        // (d) Numbering: regions stay in order of their first spans.
        first.clear();
        first.extend_from_slice(&self.first);
        for c in 1..nreg {
            if lost[c] == 0 || sub.areas[first[c] as usize] != NULL_AREA {
                continue;
            }
            let c16 = c as u16;
            let from = first[c] as usize;
            first[c] = (from..n)
                .find(|&j| self.comp[j] == c16 && sub.areas[j] != NULL_AREA)
                .map_or(u32::MAX, |j| j as u32);
        }
        let mut prev = None;
        for &f in first.iter().skip(1) {
            if f == u32::MAX {
                continue;
            }
            if prev.is_some_and(|p| p >= f) {
                return Err(ScratchReason::Renumbered);
            }
            prev = Some(f);
        }
        let (w, h) = (sub.width, sub.depth);
        // Regions: the first build's, removed spans 0.
        reg.clear();
        reg.extend_from_slice(&self.regions);
        for &x in removed.iter() {
            reg[x as usize] = 0;
        }
        // Contours: a region's loops read its spans and the spans within one cell of them,
        // so only regions with a span in the 3 x 3 columns around a removed span change
        // (each column of a layer holds at most one span, but every span of those columns is
        // taken).
        affected.clear();
        affected.resize(nreg, false);
        // The loops with an edge from a span within one cell of a removed span are traced
        // again; every other loop of an affected region is taken over as it was.
        dirty.clear();
        dirty.resize(self.loops.loops.len(), false);
        // The spans whose boundary sides may differ from the first build's: the removed ones
        // and those linked to one, all within those columns.
        changed.clear();
        for &x in removed.iter() {
            let x = x as usize;
            let old = self.regions[x];
            if old != 0 && old & BORDER_REG == 0 {
                affected[usize::from(old)] = true;
            }
            let (cx, cz) = (i32::from(sub.span_x[x]), i32::from(sub.span_z[x]));
            for zz in (cz - 1).max(0)..=(cz + 1).min(h - 1) {
                for xx in (cx - 1).max(0)..=(cx + 1).min(w - 1) {
                    for j in sub.column(xx, zz) {
                        changed.push(j as u32);
                        for d in 0..4 {
                            let o = self.loops.owner[j * 4 + d];
                            if let Some(v) = dirty.get_mut(o as usize) {
                                *v = true;
                            }
                        }
                        let r = reg[j];
                        if r != 0 && r & BORDER_REG == 0 {
                            affected[usize::from(r)] = true;
                        }
                    }
                }
            }
        }
        Ok(build_contours_reusing(
            sub,
            reg,
            max_error,
            max_edge_len,
            affected,
            &self.loops,
            dirty,
            changed,
        ))
    }

    /// Precondition (c) for the regions that lost spans, with `mark` (at least a span long,
    /// no entry above `*stamp`) for its searches and `[stack, group, ring]` as their lists.
    #[allow(clippy::too_many_arguments)]
    fn check_split(
        &self,
        sub: &CompactHeightfield,
        removed: &[u32],
        lost: &[u32],
        budget: usize,
        mark: &mut [u32],
        stamp: &mut u32,
        [stack, group, ring]: [&mut Vec<u32>; 3],
    ) -> Result<(), ScratchReason> {
        let nreg = self.size.len();
        let (w, h) = (sub.width, sub.depth);
        for c in 1..nreg {
            if lost[c] == 0 {
                continue;
            }
            let c16 = c as u16;
            let alive = |j: usize| self.comp[j] == c16 && sub.areas[j] != NULL_AREA;
            let gone = |j: usize| self.comp[j] == c16 && sub.areas[j] == NULL_AREA;
            // Removed spans of this region already put in a group carry `grouped`.
            *stamp += 1;
            let grouped = *stamp;
            for &x0 in removed {
                let x0 = x0 as usize;
                if self.comp[x0] != c16 || mark[x0] == grouped {
                    continue;
                }
                // The group of `x0`.
                group.clear();
                group.push(x0 as u32);
                mark[x0] = grouped;
                let mut head = 0;
                while head < group.len() {
                    let s = group[head] as usize;
                    head += 1;
                    for_each_edge(sub, s, |j| {
                        if mark[j] != grouped && gone(j) {
                            mark[j] = grouped;
                            group.push(j as u32);
                        }
                    });
                }
                // Its ring: live spans of the region joined by a −x/−z edge to it.
                ring.clear();
                for &x in group.iter() {
                    for_each_edge(sub, x as usize, |j| {
                        if alive(j) {
                            ring.push(j as u32);
                        }
                    });
                }
                ring.sort_unstable();
                ring.dedup();
                if ring.len() <= 1 {
                    continue;
                }
                // First through the live spans of the region in the 3 x 3 columns around the
                // group (where the ring lies: a hole closes there), then, if that does not
                // join the ring, through the whole region within the budget.
                *stamp += 2;
                let near = *stamp - 1;
                for &x in group.iter() {
                    let x = x as usize;
                    let (cx, cz) = (i32::from(sub.span_x[x]), i32::from(sub.span_z[x]));
                    for zz in (cz - 1).max(0)..=(cz + 1).min(h - 1) {
                        for xx in (cx - 1).max(0)..=(cx + 1).min(w - 1) {
                            for j in sub.column(xx, zz) {
                                if alive(j) {
                                    mark[j] = near;
                                }
                            }
                        }
                    }
                }
                let is_ring = |j: u32| ring.binary_search(&j).is_ok();
                let mut joined = false;
                for (phase, visit) in [(0, near), (1, 0)].into_iter().take(PHASES) {
                    // Phase 0 visits spans marked `near`; phase 1 any live span of the region.
                    let mut in_ring = ring.len() - 1;
                    let mut visited = 0usize;
                    stack.clear();
                    stack.push(ring[0]);
                    let seen = *stamp + phase;
                    if phase == 1 {
                        *stamp += 1;
                    }
                    mark[ring[0] as usize] = seen;
                    let mut head = 0;
                    while head < stack.len() && in_ring > 0 {
                        let s = stack[head] as usize;
                        head += 1;
                        visited += 1;
                        if phase == 1 && visited > budget {
                            break;
                        }
                        for_each_edge(sub, s, |j| {
                            let m = mark[j];
                            let open = if phase == 0 { m == visit } else { m != seen };
                            if open && alive(j) {
                                mark[j] = seen;
                                if is_ring(j as u32) {
                                    in_ring -= 1;
                                }
                                stack.push(j as u32);
                            }
                        });
                    }
                    if in_ring == 0 {
                        joined = true;
                        break;
                    }
                }
                if !joined {
                    return Err(ScratchReason::Split);
                }
            }
        }
        Ok(())
    }
}

/// Calls `f` for every span joined to `i` by a −x or −z link, either way: `i`'s own −x and
/// −z links and the spans of the +x and +z columns whose −x / −z link is `i`.
fn for_each_edge(chf: &CompactHeightfield, i: usize, mut f: impl FnMut(usize)) {
    for d in [0usize, 3] {
        let a = chf.spans[i].con[d];
        if a != NOT_CONNECTED {
            f(a as usize);
        }
    }
    let (x, z) = (i32::from(chf.span_x[i]), i32::from(chf.span_z[i]));
    if x + 1 < chf.width {
        for j in chf.column(x + 1, z) {
            if chf.spans[j].con[0] == i as u32 {
                f(j);
            }
        }
    }
    if z + 1 < chf.depth {
        for j in chf.column(x, z + 1) {
            if chf.spans[j].con[3] == i as u32 {
                f(j);
            }
        }
    }
}

/// Calls `f` for every span of the four columns next to `i` that has a link to `i`.
fn for_each_linking(chf: &CompactHeightfield, i: usize, mut f: impl FnMut(usize)) {
    let (x, z) = (i32::from(chf.span_x[i]), i32::from(chf.span_z[i]));
    for (dx, dz) in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
        let (xx, zz) = (x + dx, z + dz);
        if xx < 0 || zz < 0 || xx >= chf.width || zz >= chf.depth {
            continue;
        }
        for j in chf.column(xx, zz) {
            if chf.spans[j].con.contains(&(i as u32)) {
                f(j);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::tests::flat;
    use crate::contour::build_contours;
    use crate::region::layer_components;

    const ERR: f32 = 1.3;
    const EDGE: i32 = 12;

    /// A memo of `chf` and the same layer with the spans `removed` picks set to area 0.
    fn removed(
        chf: &CompactHeightfield,
        min: u32,
        gone: impl Fn(i32, i32) -> bool,
    ) -> (LayerMemo, CompactHeightfield) {
        let memo = LayerMemo::new(chf, min, ERR, EDGE);
        let mut now = chf.clone();
        for i in 0..now.span_count() {
            if gone(i32::from(now.span_x[i]), i32::from(now.span_z[i])) {
                now.areas[i] = NULL_AREA;
            }
        }
        (memo, now)
    }

    #[test]
    fn a_repaired_layer_equals_the_from_scratch_regions_and_contours() {
        // Two rectangles; a 2 x 2 hole is cut in the first, the second is kept as built.
        let chf = flat(18, 18, 1, |x, _| x < 8 || (10..17).contains(&x));
        let (memo, now) = removed(&chf, 8, |x, z| (3..5).contains(&x) && (6..8).contains(&z));
        let (reg, contours) = memo.repair(&now, 8, ERR, EDGE).expect("repairable");
        let scratch = layer_components(&now, 8).ids;
        assert_eq!(reg, scratch);
        assert_eq!(contours, build_contours(&now, &scratch, ERR, EDGE));
        assert_eq!(contours.len(), 2, "{contours:?}");
        // And with nothing removed it gives back the first build.
        let (reg0, c0) = memo.repair(&chf, 8, ERR, EDGE).unwrap();
        assert_eq!(c0, build_contours(&chf, &reg0, ERR, EDGE));
    }

    #[test]
    fn loops_far_from_the_removed_spans_are_taken_over_and_the_holes_joined_again() {
        // One region with three holes; spans are removed next to the middle hole (it grows)
        // and in open floor (a new hole), so the outline and the other holes are kept while
        // the changed loops are traced again and all holes joined anew.
        let holes = [(4, 4), (12, 10), (20, 16)];
        let chf = flat(26, 22, 1, |x, z| {
            !holes
                .iter()
                .any(|&(hx, hz)| (hx..hx + 2).contains(&x) && (hz..hz + 2).contains(&z))
        });
        for gone in [
            (|x: i32, z: i32| (14..16).contains(&x) && (10..13).contains(&z))
                as fn(i32, i32) -> bool,
            |x, z| (6..8).contains(&x) && (15..17).contains(&z),
            |x, z| x == 21 && z == 5,
        ] {
            let (memo, now) = removed(&chf, 8, gone);
            let (reg, contours) = memo.repair(&now, 8, ERR, EDGE).expect("repairable");
            let scratch = layer_components(&now, 8).ids;
            assert_eq!(reg, scratch);
            assert_eq!(contours, build_contours(&now, &scratch, ERR, EDGE));
            assert_eq!(contours.len(), 1, "holes joined into one outline");
        }
        // The memo's loops: the outline and the three holes.
        let memo = LayerMemo::new(&chf, 8, ERR, EDGE);
        assert_eq!(memo.loops.loops.len(), 4);
    }

    #[test]
    fn an_area_changed_to_another_than_zero_is_built_from_scratch() {
        let chf = flat(12, 12, 0, |_, _| true);
        let memo = LayerMemo::new(&chf, 0, ERR, EDGE);
        let mut now = chf.clone();
        now.areas[40] = 5;
        assert_eq!(
            memo.repair(&now, 0, ERR, EDGE),
            Err(ScratchReason::NotOnlyRemoved)
        );
    }

    #[test]
    fn a_region_falling_below_the_minimum_is_built_from_scratch() {
        // 36 spans, minimum 30, 8 removed.
        let chf = flat(6, 6, 0, |_, _| true);
        let (memo, now) = removed(&chf, 30, |x, z| z < 2 && x < 4);
        assert_eq!(
            memo.repair(&now, 30, ERR, EDGE),
            Err(ScratchReason::SmallRegion)
        );
        // A small region (kept for the other area next to it) with a removed span next to it.
        let mut chf2 = flat(12, 4, 0, |_, _| true);
        for i in 0..chf2.span_count() {
            if chf2.span_x[i] >= 10 {
                chf2.areas[i] = 7;
            }
        }
        let (memo2, now2) = removed(&chf2, 30, |x, z| x == 9 && z == 0);
        assert_eq!(
            memo2.repair(&now2, 30, ERR, EDGE),
            Err(ScratchReason::SmallRegion)
        );
    }

    #[test]
    fn a_region_cut_in_two_is_built_from_scratch() {
        let chf = flat(12, 12, 0, |_, _| true);
        let (memo, now) = removed(&chf, 0, |x, _| x == 5);
        assert_eq!(memo.repair(&now, 0, ERR, EDGE), Err(ScratchReason::Split));
        // Cut almost through: one span still joins the halves, so it is one piece.
        let (memo, now) = removed(&chf, 0, |x, z| x == 5 && z != 11);
        assert!(memo
            .repair(&now, 0, ERR, EDGE)
            .is_ok_and(|(reg, _)| { reg == layer_components(&now, 0).ids }));
    }

    #[test]
    fn separate_holes_in_one_region_are_repaired_and_a_cut_among_them_is_not() {
        // Two holes far apart in one region (as two obstacles in one tile): each hole's ring
        // joins around it, though the two rings reach each other only far from both.
        let chf = flat(40, 12, 0, |_, _| true);
        let (memo, now) = removed(&chf, 0, |x, z| {
            ((4..7).contains(&x) || (30..33).contains(&x)) && (4..7).contains(&z)
        });
        let (reg, contours) = memo
            .repair(&now, 0, ERR, EDGE)
            .expect("two holes, one piece");
        let scratch = layer_components(&now, 0).ids;
        assert_eq!(reg, scratch);
        assert_eq!(contours, build_contours(&now, &scratch, ERR, EDGE));
        // A hole plus a cut right through the layer elsewhere: two pieces.
        let (memo, now) = removed(&chf, 0, |x, z| {
            ((4..7).contains(&x) && (4..7).contains(&z)) || x == 30
        });
        assert_eq!(memo.repair(&now, 0, ERR, EDGE), Err(ScratchReason::Split));
    }

    #[test]
    fn a_region_whose_first_span_moves_past_another_is_built_from_scratch() {
        // Region 1 (x < 3) starts at (0, 0), region 2 (x >= 6) at (6, 0); removing region 1's
        // first two rows starts it at (0, 2), after region 2's first span.
        let chf = flat(12, 10, 0, |x, _| !(3..6).contains(&x));
        let (memo, now) = removed(&chf, 0, |x, z| x < 3 && z < 2);
        assert_eq!(
            memo.repair(&now, 0, ERR, EDGE),
            Err(ScratchReason::Renumbered)
        );
        // Removing region 2's first row keeps the order: (6, 1) still comes after (0, 0).
        let (memo, now) = removed(&chf, 0, |x, z| x >= 6 && z == 0);
        let (reg, _) = memo.repair(&now, 0, ERR, EDGE).expect("order kept");
        assert_eq!(reg, layer_components(&now, 0).ids);
    }
}
