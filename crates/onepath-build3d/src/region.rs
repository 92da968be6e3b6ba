//! Region partitions (`docs/build3d-regions.md`): watershed on the distance field,
//! monotone sweeps, and the region clean-up (island removal, merging, renumbering) they share.

use crate::compact::{CompactHeightfield, NOT_CONNECTED};
use crate::heightfield::{DIR_X, DIR_Z, NULL_AREA};

/// Bit set on the region id of the tile's border ring.
pub const BORDER_REG: u16 = 0x8000;

/// The region of every span (0 = none; [`BORDER_REG`] set = border ring) and the number of
/// regions (ids `1..count` after renumbering).
#[derive(Debug, Clone, PartialEq)]
pub struct Regions {
    /// Region id per span.
    pub ids: Vec<u16>,
    /// One more than the largest non-border region id.
    pub count: u16,
}

const LOG_LEVELS_PER_STACK: u32 = 1;
const NB_STACKS: usize = 8;

#[derive(Clone, Copy)]
struct LevelEntry {
    x: i32,
    z: i32,
    i: i64,
}

/// The spans of columns `x0..x1` of row `z`: one contiguous range, because spans are stored
/// column by column with X fastest (empty when `x0 >= x1`).
fn row_spans(chf: &CompactHeightfield, z: i32, x0: i32, x1: i32) -> std::ops::Range<usize> {
    if x0 >= x1 {
        return 0..0;
    }
    let first = chf.column(x0, z).start;
    let last = chf.column(x1 - 1, z).end;
    first..last
}

/// Paints the border ring with four border regions; returns the next free id. The four
/// rectangles (−x side, +x side, −z side, +z side, each `border` cells deep) are painted in
/// that order, a later one over an earlier one where they overlap; each walkable span is
/// written once here with the id of the last rectangle that holds it.
fn paint_border(chf: &CompactHeightfield, reg: &mut [u16]) -> u16 {
    paint_border_where(chf, reg, |_, _| true)
}

/// [`paint_border`] for the spans of a layer's components: only a span that belongs to a
/// region (a non-zero id) takes a border id; the others stay 0.
fn paint_border_kept(chf: &CompactHeightfield, reg: &mut [u16]) {
    paint_border_where(chf, reg, |_, r| r != 0);
}

/// Paints the border ring over the walkable spans `keep` accepts (given the span and its
/// id so far).
fn paint_border_where(
    chf: &CompactHeightfield,
    reg: &mut [u16],
    keep: impl Fn(usize, u16) -> bool,
) -> u16 {
    let w = chf.width;
    let h = chf.depth;
    if chf.border <= 0 {
        return 1;
    }
    let bw = w.min(chf.border);
    let bh = h.min(chf.border);
    let mut paint = |range: std::ops::Range<usize>, rect: u16| {
        for i in range {
            if chf.areas[i] != NULL_AREA && keep(i, reg[i]) {
                reg[i] = rect | BORDER_REG;
            }
        }
    };
    for z in 0..h {
        if z >= h - bh {
            paint(row_spans(chf, z, 0, w), 4);
        } else if z < bh {
            paint(row_spans(chf, z, 0, w), 3);
        } else {
            // +x before −x where they overlap (a grid narrower than two borders).
            paint(row_spans(chf, z, 0, bw.min(w - bw)), 1);
            paint(row_spans(chf, z, w - bw, w), 2);
        }
    }
    5
}

/// Watershed partition: regions grow from the highest distance-field levels down, two
/// levels at a time; each step first expands existing regions (8 iterations), then floods
/// new regions from the spans still unassigned at that level, in span order.
pub fn watershed(
    chf: &CompactHeightfield,
    min_region_area: u32,
    merge_region_area: u32,
) -> Regions {
    let n = chf.span_count();
    let (dist, max_dist) = chf.distance_field();
    let mut reg = vec![0u16; n];
    let mut rdist = vec![0u16; n];
    let mut region_id = paint_border(chf, &mut reg);
    let mut level: u32 = (u32::from(max_dist) + 1) & !1;
    let expand_iters = 8;
    let mut stacks: Vec<Vec<LevelEntry>> = vec![Vec::new(); NB_STACKS];
    let mut flood_stack: Vec<LevelEntry> = Vec::new();
    let mut s_id: usize = NB_STACKS - 1;
    while level > 0 {
        level = level.saturating_sub(2);
        s_id = (s_id + 1) & (NB_STACKS - 1);
        if s_id == 0 {
            sort_cells_by_level(level, chf, &reg, &dist, &mut stacks);
        } else {
            let (prev, cur) = stacks.split_at_mut(s_id);
            let src = &prev[s_id - 1];
            for e in src {
                if e.i < 0 || reg[e.i as usize] != 0 {
                    continue;
                }
                cur[0].push(*e);
            }
        }
        expand_regions(
            expand_iters,
            level,
            chf,
            &mut reg,
            &mut rdist,
            &mut stacks[s_id],
            false,
        );
        let entries = stacks[s_id].clone();
        for e in entries {
            if e.i >= 0
                && reg[e.i as usize] == 0
                && flood_region(
                    e,
                    level,
                    region_id,
                    chf,
                    &dist,
                    &mut reg,
                    &mut rdist,
                    &mut flood_stack,
                )
            {
                if region_id == 0x7FFF {
                    // Out of region ids: leave the rest to expansion.
                    break;
                }
                region_id += 1;
            }
        }
    }
    let mut stack = Vec::new();
    expand_regions(
        expand_iters * 8,
        0,
        chf,
        &mut reg,
        &mut rdist,
        &mut stack,
        true,
    );
    let seeds = RegionSeeds::of(&reg, usize::from(region_id) + 1);
    let count = merge_and_filter_regions(
        chf,
        &mut reg,
        region_id,
        &seeds,
        min_region_area,
        merge_region_area,
    );
    Regions { ids: reg, count }
}

fn sort_cells_by_level(
    start_level: u32,
    chf: &CompactHeightfield,
    reg: &[u16],
    dist: &[u16],
    stacks: &mut [Vec<LevelEntry>],
) {
    let start = (start_level >> LOG_LEVELS_PER_STACK) as i64;
    for s in stacks.iter_mut() {
        s.clear();
    }
    for i in 0..chf.span_count() {
        if chf.areas[i] == NULL_AREA || reg[i] != 0 {
            continue;
        }
        let lvl = i64::from(dist[i] >> LOG_LEVELS_PER_STACK);
        let sid = (start - lvl).max(0);
        if sid >= NB_STACKS as i64 {
            continue;
        }
        stacks[sid as usize].push(LevelEntry {
            x: i32::from(chf.span_x[i]),
            z: i32::from(chf.span_z[i]),
            i: i as i64,
        });
    }
}

fn expand_regions(
    max_iter: u32,
    level: u32,
    chf: &CompactHeightfield,
    reg: &mut [u16],
    rdist: &mut [u16],
    stack: &mut Vec<LevelEntry>,
    fill_stack: bool,
) {
    if fill_stack {
        stack.clear();
        for i in 0..chf.span_count() {
            if reg[i] == 0 && chf.areas[i] != NULL_AREA {
                stack.push(LevelEntry {
                    x: i32::from(chf.span_x[i]),
                    z: i32::from(chf.span_z[i]),
                    i: i as i64,
                });
            }
        }
    } else {
        for e in stack.iter_mut() {
            if e.i >= 0 && reg[e.i as usize] != 0 {
                e.i = -1;
            }
        }
    }
    let mut iter = 0;
    let mut dirty: Vec<(usize, u16, u16)> = Vec::new();
    while !stack.is_empty() {
        let mut failed = 0;
        dirty.clear();
        for e in stack.iter_mut() {
            if e.i < 0 {
                failed += 1;
                continue;
            }
            let i = e.i as usize;
            let mut r = reg[i];
            let mut d2 = 0xFFFFu16;
            let area = chf.areas[i];
            for dir in 0..4 {
                let Some(a) = chf.neighbour(i, dir) else {
                    continue;
                };
                if chf.areas[a] != area {
                    continue;
                }
                if reg[a] > 0 && reg[a] & BORDER_REG == 0 && u32::from(rdist[a]) + 2 < u32::from(d2)
                {
                    r = reg[a];
                    d2 = rdist[a] + 2;
                }
            }
            if r != 0 {
                e.i = -1;
                dirty.push((i, r, d2));
            } else {
                failed += 1;
            }
        }
        for &(i, r, d) in &dirty {
            reg[i] = r;
            rdist[i] = d;
        }
        if failed == stack.len() {
            break;
        }
        if level > 0 {
            iter += 1;
            if iter >= max_iter {
                break;
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn flood_region(
    start: LevelEntry,
    level: u32,
    r: u16,
    chf: &CompactHeightfield,
    dist: &[u16],
    reg: &mut [u16],
    rdist: &mut [u16],
    stack: &mut Vec<LevelEntry>,
) -> bool {
    let i0 = start.i as usize;
    let area = chf.areas[i0];
    stack.clear();
    stack.push(start);
    reg[i0] = r;
    rdist[i0] = 0;
    let lev = level.saturating_sub(2);
    let mut count = 0;
    while let Some(e) = stack.pop() {
        let ci = e.i as usize;
        let mut ar = 0u16;
        'dirs: for dir in 0..4 {
            let Some(a) = chf.neighbour(ci, dir) else {
                continue;
            };
            if chf.areas[a] != area {
                continue;
            }
            let nr = reg[a];
            if nr & BORDER_REG != 0 {
                continue;
            }
            if nr != 0 && nr != r {
                ar = nr;
                break 'dirs;
            }
            if let Some(aa) = chf.neighbour(a, (dir + 1) & 3) {
                if chf.areas[aa] != area {
                    continue;
                }
                let nr2 = reg[aa];
                if nr2 != 0 && nr2 != r {
                    ar = nr2;
                    break 'dirs;
                }
            }
        }
        if ar != 0 {
            reg[ci] = 0;
            continue;
        }
        count += 1;
        for dir in 0..4 {
            let Some(a) = chf.neighbour(ci, dir) else {
                continue;
            };
            if chf.areas[a] != area {
                continue;
            }
            if u32::from(dist[a]) >= lev && reg[a] == 0 {
                reg[a] = r;
                rdist[a] = 0;
                stack.push(LevelEntry {
                    x: e.x + DIR_X[dir],
                    z: e.z + DIR_Z[dir],
                    i: a as i64,
                });
            }
        }
    }
    count > 0
}

/// Monotone partition: each row (increasing Z) is swept along X; a run of spans takes the
/// region of the row below when that is its only −z neighbour region and that region
/// continues into exactly this run, otherwise it opens a new region. Each row's spans are
/// read as one range of `chf.spans`, which the heightfield's layout (column by column, X
/// fastest) guarantees.
pub fn monotone(chf: &CompactHeightfield, min_region_area: u32, merge_region_area: u32) -> Regions {
    let n = chf.span_count();
    let w = chf.width;
    let h = chf.depth;
    let mut reg = vec![0u16; n];
    let mut id = paint_border(chf, &mut reg);
    /// A run of one row: the one region below it (0 none yet, `MULTI` several), how many
    /// of its spans touch that region, and the id it gets.
    #[derive(Clone, Copy)]
    struct Sweep {
        id: u16,
        ns: u32,
        nei: u16,
    }
    const MULTI: u16 = 0xFFFF;
    // Run of each span of the current row (spans of other rows are never read).
    let mut run_of = vec![u32::MAX; n];
    let mut prev: Vec<u32> = Vec::new();
    let mut sweeps: Vec<Sweep> = Vec::new();
    // The row's walkable spans, in sweep order.
    let mut walked: Vec<u32> = Vec::new();
    // Span count and first span of every region, counted as the sweep writes the ids (the
    // sweep visits the spans in index order, so a region's first write is its first span).
    let mut seeds = RegionSeeds::default();
    let border = chf.border;
    let areas = &chf.areas[..];
    let spans = &chf.spans[..];
    for z in border..h - border {
        prev.clear();
        prev.resize(usize::from(id) + 1, 0);
        sweeps.clear();
        walked.clear();
        // The row's spans inside the tile, in column order (the sweep's order).
        for i in row_spans(chf, z, border, w - border) {
            let area = areas[i];
            if area == NULL_AREA {
                continue;
            }
            // Continue the run of the −x neighbour (same area, inside the tile: only spans of
            // this row inside the tile, which the border ring never holds, have a run).
            let mut run = u32::MAX;
            let a = spans[i].con[0];
            if a != NOT_CONNECTED {
                let a = a as usize;
                if run_of[a] != u32::MAX && area == areas[a] {
                    run = run_of[a];
                }
            }
            if run == u32::MAX {
                run = sweeps.len() as u32;
                sweeps.push(Sweep {
                    id: 0,
                    ns: 0,
                    nei: 0,
                });
            }
            // The region below (−z, same area, not border).
            let a = spans[i].con[3];
            if a != NOT_CONNECTED {
                let a = a as usize;
                let nr = reg[a];
                if nr != 0 && nr & BORDER_REG == 0 && area == areas[a] {
                    let sw = &mut sweeps[run as usize];
                    if sw.nei == 0 || sw.nei == nr {
                        sw.nei = nr;
                        sw.ns += 1;
                        prev[usize::from(nr)] += 1;
                    } else {
                        sw.nei = MULTI;
                    }
                }
            }
            run_of[i] = run;
            walked.push(i as u32);
        }
        // A run whose spans below all lie in one region, which reaches this row only
        // through this run, continues that region; any other run takes a new id.
        for s in sweeps.iter_mut() {
            if s.nei != MULTI && s.nei != 0 && prev[usize::from(s.nei)] == s.ns {
                s.id = s.nei;
            } else {
                s.id = id;
                if id < 0x7FFF {
                    id += 1;
                }
            }
        }
        seeds.grow(usize::from(id) + 1);
        for &i in &walked {
            let i = i as usize;
            let r = sweeps[run_of[i] as usize].id;
            reg[i] = r;
            seeds.add(r, i);
            run_of[i] = u32::MAX;
        }
    }
    let count = merge_and_filter_regions(
        chf,
        &mut reg,
        id,
        &seeds,
        min_region_area,
        merge_region_area,
    );
    Regions { ids: reg, count }
}

/// The regions of one layer (`docs/build3d-regions.md` §4, "Regions of a layer"): the
/// connected components of spans of one non-zero area under the −x and −z links (border
/// ring included), numbered 1, 2, … in order of their first span. A component of fewer than
/// `min_region_area` spans none of whose spans is linked to a walkable span of another area
/// is dropped (id 0) and takes no number. Then the spans of the border ring that belong to a
/// region take the border ring's ids (§1); they never have a contour.
///
/// One pass over the spans in index order labels each walkable span from its −x and −z
/// neighbours (both come earlier), uniting their labels where they differ (the smaller
/// label is the root, so a component's root is the label of its first span); sizes and
/// the other-area flag are counted in the same pass.
pub fn layer_components(chf: &CompactHeightfield, min_region_area: u32) -> Regions {
    let mut r = components(chf, min_region_area);
    paint_border_kept(chf, &mut r.ids);
    r
}

fn components(chf: &CompactHeightfield, min_region_area: u32) -> Regions {
    let n = chf.span_count();
    let areas = &chf.areas[..];
    let spans = &chf.spans[..];
    let mut label = vec![u32::MAX; n];
    // Per provisional label: its parent, span count and whether a walkable span of another
    // area is linked to one of its spans.
    let mut parent: Vec<u32> = Vec::new();
    let mut size: Vec<u32> = Vec::new();
    let mut other: Vec<bool> = Vec::new();
    fn find(parent: &mut [u32], mut l: u32) -> u32 {
        while parent[l as usize] != l {
            let p = parent[l as usize];
            let gp = parent[p as usize];
            parent[l as usize] = gp;
            l = gp;
        }
        l
    }
    let (w, h, b) = (chf.width, chf.depth, chf.border);
    for i in 0..n {
        let area = areas[i];
        if area == NULL_AREA {
            continue;
        }
        let mut l = u32::MAX;
        // A span linked to a walkable span of another area, or in the border ring, keeps
        // its component whatever its size.
        let (x, z) = (i32::from(chf.span_x[i]), i32::from(chf.span_z[i]));
        let mut mixed = x < b || z < b || x >= w - b || z >= h - b;
        for d in [0usize, 3] {
            let a = spans[i].con[d];
            if a == NOT_CONNECTED {
                continue;
            }
            let a = a as usize;
            let aa = areas[a];
            if aa == NULL_AREA {
                continue;
            }
            let la = label[a];
            if aa != area {
                mixed = true;
                // `la` is set: every walkable span before `i` has a label.
                other[la as usize] = true;
                continue;
            }
            if l == u32::MAX {
                l = la;
            } else if la != l {
                let (ra, rl) = (find(&mut parent, la), find(&mut parent, l));
                if ra != rl {
                    let (lo, hi) = if ra < rl { (ra, rl) } else { (rl, ra) };
                    parent[hi as usize] = lo;
                }
                l = l.min(la);
            }
        }
        if l == u32::MAX {
            l = parent.len() as u32;
            parent.push(l);
            size.push(0);
            other.push(false);
        }
        size[l as usize] += 1;
        other[l as usize] |= mixed;
        label[i] = l;
    }
    // Resolve: labels in creation order, so roots come in order of their component's first
    // span; sizes and flags are summed into the root first.
    let nl = parent.len();
    for l in 0..nl {
        let r = find(&mut parent, l as u32) as usize;
        parent[l] = r as u32;
        if r != l {
            size[r] += size[l];
            other[r] |= other[l];
        }
    }
    let mut id_of = vec![0u16; nl];
    let mut next: u16 = 1;
    for l in 0..nl {
        let r = parent[l] as usize;
        if r == l {
            if size[l] >= min_region_area || other[l] {
                id_of[l] = next;
                if next < 0x7FFF {
                    next += 1;
                }
            }
        } else {
            id_of[l] = id_of[r];
        }
    }
    let mut reg = vec![0u16; n];
    for i in 0..n {
        let l = label[i];
        if l != u32::MAX {
            reg[i] = id_of[l as usize];
        }
    }
    Regions {
        ids: reg,
        count: next,
    }
}

/// [`layer_components`] before the border ring is painted: every span of a kept component,
/// the ring's included, holds its component's number.
pub(crate) fn layer_components_unpainted(
    chf: &CompactHeightfield,
    min_region_area: u32,
) -> Regions {
    components(chf, min_region_area)
}

/// Paints the border ring's ids over the spans of `ids` that belong to a region (the last
/// step of [`layer_components`]).
pub(crate) fn paint_ring(chf: &CompactHeightfield, ids: &mut [u16]) {
    paint_border_kept(chf, ids);
}

/// Per region id: how many spans hold it and the first of them (`u32::MAX`: none).
#[derive(Default)]
struct RegionSeeds {
    counts: Vec<u32>,
    first: Vec<u32>,
}

impl RegionSeeds {
    /// Counts the ids `1..nreg` of `reg` (border ids and ids past `nreg` are not counted).
    fn of(reg: &[u16], nreg: usize) -> Self {
        let mut seeds = RegionSeeds::default();
        seeds.grow(nreg);
        for (i, &r) in reg.iter().enumerate() {
            if r != 0 && usize::from(r) < nreg {
                seeds.add(r, i);
            }
        }
        seeds
    }

    /// Makes room for the ids `0..nreg`.
    fn grow(&mut self, nreg: usize) {
        if self.counts.len() < nreg {
            self.counts.resize(nreg, 0);
            self.first.resize(nreg, u32::MAX);
        }
    }

    /// Span `i` holds id `r` (spans added in increasing index order).
    #[inline]
    fn add(&mut self, r: u16, i: usize) {
        let r = usize::from(r);
        if self.counts[r] == 0 {
            self.first[r] = i as u32;
        }
        self.counts[r] += 1;
    }
}

#[derive(Clone, Default)]
struct Region {
    span_count: u32,
    id: u16,
    area: u8,
    remap: bool,
    visited: bool,
    overlap: bool,
    connections: Vec<u16>,
    floors: Vec<u16>,
}

fn is_solid_edge(chf: &CompactHeightfield, reg: &[u16], i: usize, dir: usize) -> bool {
    let r = chf.neighbour(i, dir).map_or(0, |a| reg[a]);
    r != reg[i]
}

fn walk_region_contour(
    chf: &CompactHeightfield,
    reg: &[u16],
    mut i: usize,
    mut dir: usize,
    cont: &mut Vec<u16>,
) {
    let start_dir = dir;
    let start_i = i;
    let mut cur_reg = chf.neighbour(i, dir).map_or(0, |a| reg[a]);
    cont.push(cur_reg);
    let mut iter = 0;
    loop {
        iter += 1;
        if iter >= 40000 {
            break;
        }
        if is_solid_edge(chf, reg, i, dir) {
            let r = chf.neighbour(i, dir).map_or(0, |a| reg[a]);
            if r != cur_reg {
                cur_reg = r;
                cont.push(cur_reg);
            }
            dir = (dir + 1) & 3;
        } else {
            let Some(ni) = chf.neighbour(i, dir) else {
                return;
            };
            i = ni;
            dir = (dir + 3) & 3;
        }
        if start_i == i && start_dir == dir {
            break;
        }
    }
    remove_adjacent_duplicates(cont);
}

fn remove_adjacent_duplicates(cont: &mut Vec<u16>) {
    let mut j = 0;
    while cont.len() > 1 && j < cont.len() {
        let nj = (j + 1) % cont.len();
        if cont[j] == cont[nj] {
            cont.remove(j);
        } else {
            j += 1;
        }
    }
}

fn add_unique_floor(r: &mut Region, id: u16) {
    if !r.floors.contains(&id) {
        r.floors.push(id);
    }
}

fn can_merge(a: &Region, b: &Region) -> bool {
    if a.area != b.area {
        return false;
    }
    let n = a.connections.iter().filter(|&&c| c == b.id).count();
    if n > 1 {
        return false;
    }
    !a.floors.contains(&b.id)
}

fn merge_regions(regions: &mut [Region], ai: usize, bi: usize) -> bool {
    let aid = regions[ai].id;
    let bid = regions[bi].id;
    let acon = regions[ai].connections.clone();
    let bcon = regions[bi].connections.clone();
    let Some(insa) = acon.iter().position(|&c| c == bid) else {
        return false;
    };
    let Some(insb) = bcon.iter().position(|&c| c == aid) else {
        return false;
    };
    let mut merged = Vec::with_capacity(acon.len() + bcon.len());
    for k in 0..acon.len() - 1 {
        merged.push(acon[(insa + 1 + k) % acon.len()]);
    }
    for k in 0..bcon.len() - 1 {
        merged.push(bcon[(insb + 1 + k) % bcon.len()]);
    }
    remove_adjacent_duplicates(&mut merged);
    regions[ai].connections = merged;
    let bfloors = regions[bi].floors.clone();
    for f in bfloors {
        add_unique_floor(&mut regions[ai], f);
    }
    regions[ai].span_count += regions[bi].span_count;
    regions[bi].span_count = 0;
    regions[bi].connections.clear();
    true
}

fn replace_neighbour(r: &mut Region, old: u16, new: u16) {
    let mut changed = false;
    for c in r.connections.iter_mut() {
        if *c == old {
            *c = new;
            changed = true;
        }
    }
    for f in r.floors.iter_mut() {
        if *f == old {
            *f = new;
        }
    }
    if changed {
        remove_adjacent_duplicates(&mut r.connections);
    }
}

/// Island removal, merging of small regions and renumbering (shared by every partition).
/// Returns the region count (ids `1..count`).
fn merge_and_filter_regions(
    chf: &CompactHeightfield,
    reg: &mut [u16],
    max_id: u16,
    seeds: &RegionSeeds,
    min_area: u32,
    merge_area: u32,
) -> u16 {
    let nreg = usize::from(max_id) + 1;
    let mut regions: Vec<Region> = (0..nreg)
        .map(|i| Region {
            id: i as u16,
            span_count: seeds.counts.get(i).copied().unwrap_or(0),
            ..Region::default()
        })
        .collect();
    // Floors, span by span in index order, read only in columns of several spans (a column's
    // spans are consecutive, so such a column starts where two neighbouring spans share x/z).
    let n = reg.len();
    let mut start = 0;
    while start + 1 < n {
        if chf.span_x[start] != chf.span_x[start + 1] || chf.span_z[start] != chf.span_z[start + 1]
        {
            start += 1;
            continue;
        }
        let col = chf.column(i32::from(chf.span_x[start]), i32::from(chf.span_z[start]));
        for i in col.clone() {
            let r = usize::from(reg[i]);
            if r == 0 || r >= nreg {
                continue;
            }
            for j in col.clone() {
                if i == j {
                    continue;
                }
                let f = usize::from(reg[j]);
                if f == 0 || f >= nreg {
                    continue;
                }
                if f == r {
                    regions[r].overlap = true;
                }
                add_unique_floor(&mut regions[r], f as u16);
            }
        }
        start = col.end.max(start + 1);
    }
    // Area and neighbour ring of every region, walked from its first span with a solid edge
    // (in index order).
    for (r, region) in regions.iter_mut().enumerate() {
        let Some(&first) = seeds.first.get(r) else {
            break;
        };
        if r == 0 || first == u32::MAX {
            continue;
        }
        for i in first as usize..reg.len() {
            if usize::from(reg[i]) != r {
                continue;
            }
            region.area = chf.areas[i];
            if let Some(dir) = (0..4).find(|&d| is_solid_edge(chf, reg, i, d)) {
                let mut cont = Vec::new();
                walk_region_contour(chf, reg, i, dir, &mut cont);
                region.connections = cont;
                break;
            }
        }
    }
    // Remove islands smaller than the minimum area.
    let mut stack = Vec::new();
    let mut trace = Vec::new();
    for i in 0..nreg {
        let r = &regions[i];
        if r.id == 0 || r.id & BORDER_REG != 0 || r.span_count == 0 || r.visited {
            continue;
        }
        let mut connects_to_border = false;
        let mut span_count = 0u32;
        stack.clear();
        trace.clear();
        regions[i].visited = true;
        stack.push(i);
        while let Some(ri) = stack.pop() {
            span_count += regions[ri].span_count;
            trace.push(ri);
            for k in 0..regions[ri].connections.len() {
                let c = regions[ri].connections[k];
                if c & BORDER_REG != 0 {
                    connects_to_border = true;
                    continue;
                }
                let ci = usize::from(c);
                if ci >= nreg
                    || regions[ci].visited
                    || regions[ci].id == 0
                    || regions[ci].id & BORDER_REG != 0
                {
                    continue;
                }
                stack.push(ci);
                regions[ci].visited = true;
            }
        }
        if span_count < min_area && !connects_to_border {
            for &t in &trace {
                regions[t].span_count = 0;
                regions[t].id = 0;
            }
        }
    }
    // Merge small regions into neighbours.
    loop {
        let mut merge_count = 0;
        for i in 0..nreg {
            let r = &regions[i];
            if r.id == 0 || r.id & BORDER_REG != 0 || r.overlap || r.span_count == 0 {
                continue;
            }
            if r.span_count > merge_area && r.connections.contains(&0) {
                continue;
            }
            let mut smallest = u32::MAX;
            let mut merge_id = r.id;
            for &c in &r.connections {
                if c & BORDER_REG != 0 {
                    continue;
                }
                let m = &regions[usize::from(c)];
                if m.id == 0 || m.id & BORDER_REG != 0 || m.overlap {
                    continue;
                }
                if m.span_count < smallest && can_merge(r, m) && can_merge(m, r) {
                    smallest = m.span_count;
                    merge_id = m.id;
                }
            }
            if merge_id != r.id {
                let old = r.id;
                let target = usize::from(merge_id);
                if merge_regions(&mut regions, target, i) {
                    for rg in regions.iter_mut() {
                        if rg.id == 0 || rg.id & BORDER_REG != 0 {
                            continue;
                        }
                        if rg.id == old {
                            rg.id = merge_id;
                        }
                        replace_neighbour(rg, old, merge_id);
                    }
                    merge_count += 1;
                }
            }
        }
        if merge_count == 0 {
            break;
        }
    }
    // Compress ids in order of the old ids.
    // An id that never kept a span (the flood's spare id) takes no number.
    for (i, r) in regions.iter_mut().enumerate() {
        r.remap =
            r.id != 0 && r.id & BORDER_REG == 0 && (r.span_count > 0 || usize::from(r.id) != i);
    }
    // Each step gives the id of region i, and of every later region holding the same id, the
    // next number. While that id is larger than every number given so far, the regions
    // holding it are exactly the ones it held after merging (listed once, in index order);
    // the first step where it is not falls back to scanning every later region.
    let mut holders: Vec<Vec<u32>> = vec![Vec::new(); nreg];
    for (k, r) in regions.iter().enumerate() {
        if let Some(h) = holders.get_mut(usize::from(r.id)) {
            h.push(k as u32);
        }
    }
    let mut gen = 0u16;
    let mut scan = false;
    for i in 0..nreg {
        if !regions[i].remap {
            continue;
        }
        let old = regions[i].id;
        gen += 1;
        scan |= old < gen || usize::from(old) >= nreg;
        if scan {
            for r in regions[i..].iter_mut() {
                if r.id == old {
                    r.id = gen;
                    r.remap = false;
                }
            }
        } else {
            for &k in &holders[usize::from(old)] {
                let r = &mut regions[k as usize];
                if k as usize >= i && r.id == old {
                    r.id = gen;
                    r.remap = false;
                }
            }
        }
    }
    let ids: Vec<u16> = regions.iter().map(|r| r.id).collect();
    for r in reg.iter_mut() {
        if *r & BORDER_REG == 0 {
            *r = ids[usize::from(*r)];
        }
    }
    gen + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::tests::flat;

    #[test]
    fn an_open_square_is_one_watershed_region() {
        let chf = flat(20, 20, 0, |_, _| true);
        let r = watershed(&chf, 0, 0);
        assert_eq!(r.count, 2);
        assert!(r.ids.iter().all(|&id| id == 1));
    }

    #[test]
    fn border_ring_spans_get_border_regions() {
        let chf = flat(20, 20, 3, |_, _| true);
        let r = watershed(&chf, 0, 0);
        for i in 0..chf.span_count() {
            let (x, z) = (i32::from(chf.span_x[i]), i32::from(chf.span_z[i]));
            let in_border = x < 3 || z < 3 || x >= 17 || z >= 17;
            assert_eq!(
                r.ids[i] & BORDER_REG != 0,
                in_border,
                "span {i} at ({x}, {z})"
            );
        }
    }

    #[test]
    fn separate_islands_smaller_than_the_minimum_area_are_removed() {
        // Two islands, 4 x 4 (16 spans) and 8 x 8 (64 spans).
        let chf = flat(20, 10, 0, |x, z| {
            (x < 4 && z < 4) || ((10..18).contains(&x) && z < 8)
        });
        let r = watershed(&chf, 20, 0);
        let small: Vec<u16> = (0..chf.span_count())
            .filter(|&i| chf.span_x[i] < 4)
            .map(|i| r.ids[i])
            .collect();
        let big: Vec<u16> = (0..chf.span_count())
            .filter(|&i| chf.span_x[i] >= 10)
            .map(|i| r.ids[i])
            .collect();
        assert!(small.iter().all(|&id| id == 0));
        assert!(big.iter().all(|&id| id != 0));
    }

    fn id_at(chf: &CompactHeightfield, r: &Regions, x: i32, z: i32) -> u16 {
        r.ids[chf.column(x, z).start]
    }

    #[test]
    fn layer_components_are_numbered_in_order_of_their_first_span() {
        // Two rectangles: the one whose first span comes first (lower z) is region 1.
        let chf = flat(12, 12, 0, |x, z| (x >= 6 && z < 4) || (x < 4 && z >= 6));
        let r = layer_components(&chf, 0);
        assert_eq!(id_at(&chf, &r, 8, 1), 1);
        assert_eq!(id_at(&chf, &r, 1, 8), 2);
        assert_eq!(r.count, 3);
    }

    #[test]
    fn a_u_shape_is_one_layer_component_where_monotone_splits_it() {
        // Spans of the arms come before the base joins them (the base is at high z), so the
        // labelling must unite two labels.
        let chf = flat(12, 12, 0, |x, z| z >= 9 || !(3..9).contains(&x));
        let r = layer_components(&chf, 0);
        let ids: std::collections::BTreeSet<u16> =
            r.ids.iter().copied().filter(|&id| id != 0).collect();
        assert_eq!(ids.into_iter().collect::<Vec<_>>(), vec![1]);
        assert_eq!(r.count, 2);
        let m = monotone(&chf, 0, 0);
        assert_ne!(
            m.ids[chf.column(1, 1).start],
            m.ids[chf.column(10, 1).start]
        );
    }

    #[test]
    fn a_small_layer_component_is_dropped_unless_another_area_or_the_border_touches_it() {
        // A 3 x 3 island (9 spans) and a 6 x 6 one (36 spans), min area 10: the small one goes
        // and the large one becomes region 1.
        let island = |x: i32, z: i32| {
            ((2..5).contains(&x) && (2..5).contains(&z))
                || ((8..14).contains(&x) && (8..14).contains(&z))
        };
        let chf = flat(18, 18, 0, island);
        let r = layer_components(&chf, 10);
        assert_eq!(id_at(&chf, &r, 3, 3), 0);
        assert_eq!(id_at(&chf, &r, 10, 10), 1);
        assert_eq!(r.count, 2);
        // The same small island next to a strip of another area is kept (and so is the strip,
        // 3 spans, for the same reason).
        let mut chf2 = flat(18, 18, 0, |x, z| {
            island(x, z) || (x == 5 && (2..5).contains(&z))
        });
        for i in 0..chf2.span_count() {
            if chf2.span_x[i] == 5 {
                chf2.areas[i] = 7;
            }
        }
        let r2 = layer_components(&chf2, 10);
        assert_eq!(id_at(&chf2, &r2, 3, 3), 1);
        assert_eq!(id_at(&chf2, &r2, 5, 3), 2);
        assert_eq!(id_at(&chf2, &r2, 10, 10), 3);
        // With a border of 3 and min area 20, an 11-span piece lying mostly in the ring is
        // kept: its ring spans take ring ids, its two interior spans region 1.
        let chf3 = flat(18, 18, 3, |x, z| (x < 4 && z < 2) || (x == 3 && z < 5));
        let r3 = layer_components(&chf3, 20);
        assert_eq!(id_at(&chf3, &r3, 0, 0) & BORDER_REG, BORDER_REG);
        assert_eq!(id_at(&chf3, &r3, 3, 4), 1);
    }

    #[test]
    fn monotone_splits_a_u_shape_where_its_arms_join() {
        // A U opening to +z: the two arms are separate runs in their rows and become
        // different regions from the base.
        let chf = flat(12, 12, 0, |x, z| z < 3 || !(3..9).contains(&x));
        let r = monotone(&chf, 0, 0);
        let left_arm = r.ids[chf.column(1, 10).start];
        let right_arm = r.ids[chf.column(10, 10).start];
        assert_ne!(left_arm, right_arm);
        assert!(left_arm != 0 && right_arm != 0);
    }
}
