//! The open-span (compact) heightfield: walkable floors with their clearance and links to
//! the neighbouring columns, erosion by the agent radius, area volumes and the distance
//! field (`docs/build3d-spans.md` §4–§6).

use crate::heightfield::{Heightfield, NULL_AREA};

/// "No link" in [`CompactSpan::con`].
pub const NOT_CONNECTED: u32 = u32::MAX;

/// An open span: the floor `y` of a solid span and the free height `h` above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactSpan {
    /// Floor height in cells.
    pub y: u16,
    /// Free height above the floor in cells (clamped to 255).
    pub h: u8,
    /// Linked span in each direction (−x, +z, +x, −z), or [`NOT_CONNECTED`].
    pub con: [u32; 4],
}

/// The open spans of a grid, column by column (X fastest), each column bottom up.
///
/// The span graph (`spans[..].con`, `span_x`, `span_z`) depends only on the geometry, never on
/// areas, so a tile cache can keep it and copy only `areas` per rebuild.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactHeightfield {
    /// Columns along X.
    pub width: i32,
    /// Columns along Z.
    pub depth: i32,
    /// Border cells on each side (not part of the tile).
    pub border: i32,
    /// World position of the grid's minimum corner.
    pub origin: [f64; 3],
    /// Horizontal cell size.
    pub cs: f64,
    /// Vertical cell size.
    pub ch: f64,
    /// Agent height in cells.
    pub walkable_height: i32,
    /// Agent climb in cells.
    pub walkable_climb: i32,
    /// First span of each column.
    pub cell_first: Vec<u32>,
    /// Span count of each column.
    pub cell_count: Vec<u32>,
    /// The spans.
    pub spans: Vec<CompactSpan>,
    /// Column X of each span.
    pub span_x: Vec<u16>,
    /// Column Z of each span.
    pub span_z: Vec<u16>,
    /// Area id of each span (0 = not walkable).
    pub areas: Vec<u8>,
}

impl CompactHeightfield {
    /// Builds the open spans of every walkable solid span and links them: span A links to
    /// the first span B of the neighbouring column (bottom up) with
    /// `|B.y − A.y| ≤ climb` and `min(tops) − max(floors) ≥ walkable_height`.
    pub fn build(hf: &Heightfield, border: i32, walkable_height: i32, walkable_climb: i32) -> Self {
        Self::build_with(
            CompactStorage::default(),
            hf,
            border,
            walkable_height,
            walkable_climb,
        )
    }

    /// [`CompactHeightfield::build`] in the memory `hf` keeps from the last compact
    /// heightfield handed back to it ([`Heightfield::recycle_compact`]); the result is the
    /// same. A builder's worker reuses one solid heightfield for all its tiles, and with it
    /// the compact arrays.
    pub fn build_in(
        hf: &mut Heightfield,
        border: i32,
        walkable_height: i32,
        walkable_climb: i32,
    ) -> Self {
        let storage = std::mem::take(&mut hf.compact_storage);
        Self::build_with(storage, hf, border, walkable_height, walkable_climb)
    }

    fn build_with(
        storage: CompactStorage,
        hf: &Heightfield,
        border: i32,
        walkable_height: i32,
        walkable_climb: i32,
    ) -> Self {
        let w = hf.width;
        let d = hf.depth;
        let ncols = (w.max(0) as usize) * (d.max(0) as usize);
        let CompactStorage {
            mut cell_first,
            mut cell_count,
            mut spans,
            mut span_x,
            mut span_z,
            mut areas,
        } = storage;
        // Every column's entry is written below, in column order.
        cell_first.clear();
        cell_count.clear();
        cell_first.reserve(ncols);
        cell_count.reserve(ncols);
        // Sized once, for at most every solid span (only the column lengths are read, not
        // the spans: one pass less over the columns' memory).
        let walkable = hf.columns.iter().map(Vec::len).sum();
        spans.clear();
        areas.clear();
        span_x.clear();
        span_z.clear();
        spans.reserve(walkable);
        areas.reserve(walkable);
        span_x.reserve(walkable);
        span_z.reserve(walkable);
        const MAX_H: i32 = crate::config::MAX_HEIGHT_CELLS;
        for z in 0..d {
            for x in 0..w {
                let c = (x + z * w) as usize;
                let col = &hf.columns[c];
                let first = spans.len() as u32;
                for (si, s) in col.iter().enumerate() {
                    if s.area == NULL_AREA {
                        continue;
                    }
                    let bot = i32::from(s.smax);
                    let top = col.get(si + 1).map_or(MAX_H, |n| i32::from(n.smin));
                    spans.push(CompactSpan {
                        y: bot.clamp(0, 0xFFFF) as u16,
                        h: (top - bot).clamp(0, 0xFF) as u8,
                        con: [NOT_CONNECTED; 4],
                    });
                    areas.push(s.area);
                    span_x.push(x as u16);
                    span_z.push(z as u16);
                }
                cell_first.push(first);
                cell_count.push(spans.len() as u32 - first);
                // Links, one pair of neighbouring columns at a time, while the column is in
                // cache: this column with the one before it along X (direction −x, and +x
                // back) and along Z (−z, and +z back), both complete. A link goes to the
                // first span of the other column that passes `connects`, which is symmetric,
                // so a pair of one-span columns (most of open ground) needs one test for both
                // directions; every link is still decided by the rule above alone.
                let here = first as usize..spans.len();
                if here.is_empty() {
                    continue;
                }
                let range = |c: usize| {
                    let f = cell_first[c] as usize;
                    f..f + cell_count[c] as usize
                };
                let (hgt, climb) = (walkable_height, walkable_climb);
                if x > 0 {
                    link_columns(&mut spans, here.clone(), range(c - 1), 0, hgt, climb);
                }
                if z > 0 {
                    link_columns(&mut spans, here, range(c - w as usize), 3, hgt, climb);
                }
            }
        }
        CompactHeightfield {
            width: w,
            depth: d,
            border,
            origin: hf.origin,
            cs: hf.cs,
            ch: hf.ch,
            walkable_height,
            walkable_climb,
            cell_first,
            cell_count,
            spans,
            span_x,
            span_z,
            areas,
        }
    }

    /// The same grid (sizes, border, origin, agent values) with no spans.
    pub fn clone_header(&self) -> CompactHeightfield {
        CompactHeightfield {
            width: self.width,
            depth: self.depth,
            border: self.border,
            origin: self.origin,
            cs: self.cs,
            ch: self.ch,
            walkable_height: self.walkable_height,
            walkable_climb: self.walkable_climb,
            cell_first: Vec::new(),
            cell_count: Vec::new(),
            spans: Vec::new(),
            span_x: Vec::new(),
            span_z: Vec::new(),
            areas: Vec::new(),
        }
    }

    /// Number of spans.
    pub fn span_count(&self) -> usize {
        self.spans.len()
    }

    /// The span range of column (x, z).
    pub fn column(&self, x: i32, z: i32) -> std::ops::Range<usize> {
        let c = (x + z * self.width) as usize;
        let f = self.cell_first[c] as usize;
        f..f + self.cell_count[c] as usize
    }

    /// The linked span of `i` in direction `dir`, if any.
    #[inline]
    pub fn neighbour(&self, i: usize, dir: usize) -> Option<usize> {
        let c = self.spans[i].con[dir];
        (c != NOT_CONNECTED).then_some(c as usize)
    }

    /// Erosion: every walkable span closer than `radius` cells (chamfer distance 2 per side
    /// step, 3 per diagonal step, in half cells) to a non-walkable span or a missing link
    /// becomes non-walkable.
    pub fn erode(&mut self, radius: i32) {
        let n = self.spans.len();
        let mut dist = vec![0xFFu8; n];
        for i in 0..n {
            if self.areas[i] == NULL_AREA {
                dist[i] = 0;
                continue;
            }
            let mut nc = 0;
            for dir in 0..4 {
                if let Some(a) = self.neighbour(i, dir) {
                    if self.areas[a] != NULL_AREA {
                        nc += 1;
                    }
                }
            }
            if nc != 4 {
                dist[i] = 0;
            }
        }
        chamfer(&self.spans, &mut dist, 2, 3, u8::saturating_add);
        let thr = (radius * 2).min(255) as u8;
        for i in 0..n {
            if dist[i] < thr {
                self.areas[i] = NULL_AREA;
            }
        }
    }

    /// Marks every walkable span whose column centre lies inside the convex volume (X/Z,
    /// boundary included) and whose floor lies in `[min_y, max_y]` with the volume's area.
    pub fn mark_convex_volume(&mut self, vol: &ConvexVolume) {
        if vol.points.len() < 3 {
            return;
        }
        let mut bmin = [f64::INFINITY; 2];
        let mut bmax = [f64::NEG_INFINITY; 2];
        for p in &vol.points {
            bmin[0] = bmin[0].min(p[0]);
            bmin[1] = bmin[1].min(p[1]);
            bmax[0] = bmax[0].max(p[0]);
            bmax[1] = bmax[1].max(p[1]);
        }
        let x0 = (((bmin[0] - self.origin[0]) / self.cs).floor() as i64)
            .clamp(0, i64::from(self.width)) as i32;
        let x1 = (((bmax[0] - self.origin[0]) / self.cs).floor() as i64)
            .clamp(-1, i64::from(self.width) - 1) as i32;
        let z0 = (((bmin[1] - self.origin[2]) / self.cs).floor() as i64)
            .clamp(0, i64::from(self.depth)) as i32;
        let z1 = (((bmax[1] - self.origin[2]) / self.cs).floor() as i64)
            .clamp(-1, i64::from(self.depth) - 1) as i32;
        for z in z0..=z1 {
            for x in x0..=x1 {
                let cx = self.origin[0] + (f64::from(x) + 0.5) * self.cs;
                let cz = self.origin[2] + (f64::from(z) + 0.5) * self.cs;
                if !vol.contains_xz(cx, cz) {
                    continue;
                }
                for i in self.column(x, z) {
                    if self.areas[i] == NULL_AREA {
                        continue;
                    }
                    let fy = self.origin[1] + f64::from(self.spans[i].y) * self.ch;
                    if fy >= vol.min_y && fy <= vol.max_y {
                        self.areas[i] = vol.area;
                    }
                }
            }
        }
    }

    /// The distance field: for each span, twice the chamfer distance (in cells) to the
    /// nearest span with a missing link or a link to another area, then a 3×3 box blur
    /// (values ≤ 1 kept). Returns the field and its maximum.
    pub fn distance_field(&self) -> (Vec<u16>, u16) {
        let n = self.spans.len();
        let mut src = vec![0xFFFFu16; n];
        for i in 0..n {
            let mut nc = 0;
            for dir in 0..4 {
                if let Some(a) = self.neighbour(i, dir) {
                    if self.areas[a] == self.areas[i] {
                        nc += 1;
                    }
                }
            }
            if nc != 4 {
                src[i] = 0;
            }
        }
        chamfer(&self.spans, &mut src, 2, 3, u16::saturating_add);
        let mut max_dist = 0u16;
        for &d in &src {
            max_dist = max_dist.max(d);
        }
        // Box blur.
        let mut dst = vec![0u16; n];
        for i in 0..n {
            let cd = u32::from(src[i]);
            if cd <= 1 {
                dst[i] = cd as u16;
                continue;
            }
            let mut d = cd;
            for dir in 0..4 {
                if let Some(a) = self.neighbour(i, dir) {
                    d += u32::from(src[a]);
                    match self.neighbour(a, (dir + 1) & 3) {
                        Some(aa) => d += u32::from(src[aa]),
                        None => d += cd,
                    }
                } else {
                    d += cd * 2;
                }
            }
            dst[i] = ((d + 5) / 9) as u16;
        }
        (dst, max_dist)
    }
}

/// The two chamfer passes of erosion and the distance field over `dist` (one value per span):
/// forwards in span order from the −x and −z neighbours (side step `side`, diagonal `diag`
/// through the −x neighbour's −z link and the −z neighbour's +x link), then backwards from +x
/// and +z (diagonals through +x's +z link and +z's −x link). Each span takes the least of its
/// own value and its candidates; a candidate is never the span itself, so taking the least of
/// all of them at once is the same as relaxing them one after another.
fn chamfer<T: Copy + Ord>(
    spans: &[CompactSpan],
    dist: &mut [T],
    side: T,
    diag: T,
    add: impl Fn(T, T) -> T,
) {
    let link = |c: u32| (c != NOT_CONNECTED).then_some(c as usize);
    let relax = |dist: &[T], mut m: T, i: usize, first: usize, second: usize| {
        if let Some(a) = link(spans[i].con[first]) {
            m = m.min(add(dist[a], side));
            if let Some(aa) = link(spans[a].con[second]) {
                m = m.min(add(dist[aa], diag));
            }
        }
        m
    };
    for i in 0..spans.len() {
        let m = relax(dist, dist[i], i, 0, 3);
        dist[i] = relax(dist, m, i, 3, 2);
    }
    for i in (0..spans.len()).rev() {
        let m = relax(dist, dist[i], i, 2, 1);
        dist[i] = relax(dist, m, i, 1, 0);
    }
}

/// Whether open spans `a` and `b` of neighbouring columns link: floors within the climb and
/// a common free interval of at least the walkable height (symmetric in `a` and `b`).
#[inline(always)]
fn connects(a: CompactSpan, b: CompactSpan, walkable_height: i32, walkable_climb: i32) -> bool {
    let bot = i32::from(a.y).max(i32::from(b.y));
    let top = (i32::from(a.y) + i32::from(a.h)).min(i32::from(b.y) + i32::from(b.h));
    top - bot >= walkable_height && (i32::from(b.y) - i32::from(a.y)).abs() <= walkable_climb
}

/// Links the spans of column `a` in direction `dir` to those of its neighbour column `b`,
/// and `b`'s back in the opposite direction: each span to the first span of the other
/// column (bottom up) that it [`connects`] with.
#[inline(always)]
fn link_columns(
    spans: &mut [CompactSpan],
    a: std::ops::Range<usize>,
    b: std::ops::Range<usize>,
    dir: usize,
    walkable_height: i32,
    walkable_climb: i32,
) {
    let back = (dir + 2) & 3;
    if a.len() == 1 && b.len() == 1 {
        let (i, k) = (a.start, b.start);
        if connects(spans[i], spans[k], walkable_height, walkable_climb) {
            spans[i].con[dir] = k as u32;
            spans[k].con[back] = i as u32;
        }
        return;
    }
    link_columns_general(spans, a, b, dir, walkable_height, walkable_climb);
}

/// [`link_columns`] for columns of any span count.
#[inline(never)]
fn link_columns_general(
    spans: &mut [CompactSpan],
    a: std::ops::Range<usize>,
    b: std::ops::Range<usize>,
    dir: usize,
    walkable_height: i32,
    walkable_climb: i32,
) {
    let back = (dir + 2) & 3;
    for i in a.clone() {
        let s = spans[i];
        if let Some(k) = b
            .clone()
            .find(|&k| connects(s, spans[k], walkable_height, walkable_climb))
        {
            spans[i].con[dir] = k as u32;
        }
    }
    for k in b {
        let s = spans[k];
        if let Some(i) = a
            .clone()
            .find(|&i| connects(s, spans[i], walkable_height, walkable_climb))
        {
            spans[k].con[back] = i as u32;
        }
    }
}

/// The arrays of a compact heightfield no longer needed, kept for the next one (their
/// capacity, not their contents: every build clears them first).
#[derive(Clone, Default)]
pub(crate) struct CompactStorage {
    cell_first: Vec<u32>,
    cell_count: Vec<u32>,
    spans: Vec<CompactSpan>,
    span_x: Vec<u16>,
    span_z: Vec<u16>,
    areas: Vec<u8>,
}

impl CompactStorage {
    /// The memory of `chf`.
    pub(crate) fn of(chf: CompactHeightfield) -> Self {
        CompactStorage {
            cell_first: chf.cell_first,
            cell_count: chf.cell_count,
            spans: chf.spans,
            span_x: chf.span_x,
            span_z: chf.span_z,
            areas: chf.areas,
        }
    }
}

/// Kept memory is no part of a heightfield's value: any two are equal.
impl PartialEq for CompactStorage {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for CompactStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompactStorage")
            .field("span_capacity", &self.spans.capacity())
            .finish()
    }
}

/// A convex volume that sets the area id of eroded walkable spans (a build-time area
/// volume): a convex polygon in X/Z (world, any winding) and a floor-height range.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvexVolume {
    /// The polygon's corners as (x, z).
    pub points: Vec<[f64; 2]>,
    /// Lowest floor height marked (world Y, included).
    pub min_y: f64,
    /// Highest floor height marked (world Y, included).
    pub max_y: f64,
    /// Area id given (0 makes the spans non-walkable).
    pub area: u8,
}

impl ConvexVolume {
    /// Whether (x, z) lies inside or on the polygon (even-odd crossing test, edges
    /// included).
    pub fn contains_xz(&self, x: f64, z: f64) -> bool {
        let pts = &self.points;
        let n = pts.len();
        // Inside a convex polygon (either winding, boundary included) iff the point is not
        // strictly right of one edge and strictly left of another.
        let mut pos = false;
        let mut neg = false;
        for i in 0..n {
            let a = pts[i];
            let b = pts[(i + 1) % n];
            let cr = (b[0] - a[0]) * (z - a[1]) - (b[1] - a[1]) * (x - a[0]);
            if cr > 0.0 {
                pos = true;
            } else if cr < 0.0 {
                neg = true;
            }
            if pos && neg {
                return false;
            }
        }
        true
    }
}

impl ConvexVolume {
    /// Checks the volume: at least 3 points, every number finite and within ±2^21,
    /// `min_y ≤ max_y`, area ≤ 63. The error names `volumes[index]` and the value.
    pub fn validate(&self, index: usize) -> Result<(), crate::error::BuildError> {
        use crate::error::BuildError;
        let name = format!("volumes[{index}]");
        if self.points.len() < 3 {
            return Err(BuildError::input(
                format!("{name}.points"),
                format!("{} points; at least 3 needed", self.points.len()),
            ));
        }
        let ok = |v: f64| v.is_finite() && v.abs() < onepath_format::COORD_BOUND;
        for (k, p) in self.points.iter().enumerate() {
            if !ok(p[0]) || !ok(p[1]) {
                return Err(BuildError::input(
                    format!("{name}.points[{k}]"),
                    "not finite and strictly within ±2^21",
                ));
            }
        }
        if !ok(self.min_y) || !ok(self.max_y) || self.min_y > self.max_y {
            return Err(BuildError::input(
                format!("{name}.min_y"),
                "heights must be finite, within ±2^21 and min_y ≤ max_y",
            ));
        }
        if self.area > 63 {
            return Err(BuildError::input(
                format!("{name}.area"),
                format!("{} is above 63", self.area),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A `w × d` grid with a flat walkable floor (top at 1) in every column where `solid`
    /// says so.
    pub(crate) fn flat(
        w: i32,
        d: i32,
        border: i32,
        solid: impl Fn(i32, i32) -> bool,
    ) -> CompactHeightfield {
        let mut hf = Heightfield::new(w, d, [0.0; 3], 1.0, 1.0, 100);
        for z in 0..d {
            for x in 0..w {
                if solid(x, z) {
                    hf.add_span(x, z, 0, 1, 63, 1);
                }
            }
        }
        CompactHeightfield::build(&hf, border, 2, 1)
    }

    fn walkable(chf: &CompactHeightfield) -> usize {
        chf.areas.iter().filter(|&&a| a != NULL_AREA).count()
    }

    #[test]
    fn spans_link_to_the_first_neighbour_within_climb_and_clearance() {
        let mut hf = Heightfield::new(2, 1, [0.0; 3], 1.0, 1.0, 100);
        hf.add_span(0, 0, 0, 1, 63, 1);
        hf.add_span(1, 0, 0, 2, 63, 1); // one higher: within climb 1
        hf.add_span(1, 0, 20, 21, 63, 1);
        let chf = CompactHeightfield::build(&hf, 0, 2, 1);
        assert_eq!(chf.span_count(), 3);
        assert_eq!(chf.neighbour(0, 2), Some(1));
        assert_eq!(chf.neighbour(1, 0), Some(0));
        assert_eq!(chf.neighbour(2, 0), None, "19 cells up is beyond the climb");
    }

    #[test]
    fn a_build_in_recycled_memory_equals_a_fresh_build() {
        // A larger grid first (its memory is handed back), then a smaller one with stacked
        // floors and holes in the same heightfield: each equals its fresh build.
        let mut hf = Heightfield::new(7, 6, [0.0; 3], 1.0, 1.0, 100);
        for z in 0..6 {
            for x in 0..7 {
                hf.add_span(x, z, 0, 1 + (x % 2) as u16, 63, 1);
            }
        }
        let fresh = CompactHeightfield::build(&hf, 1, 2, 1);
        let chf = CompactHeightfield::build_in(&mut hf, 1, 2, 1);
        assert_eq!(chf, fresh);
        hf.recycle_compact(chf);
        hf.reset(4, 3, [1.0, 2.0, 3.0], 0.5, 0.25, 50);
        for z in 0..3 {
            for x in 0..4 {
                if (x + z) % 3 != 0 {
                    hf.add_span(x, z, 0, 2, 63, 1);
                    hf.add_span(x, z, 6, 7, if x == 1 { 0 } else { 5 }, 1);
                }
            }
        }
        let fresh = CompactHeightfield::build(&hf, 0, 3, 2);
        let reused = CompactHeightfield::build_in(&mut hf, 0, 3, 2);
        assert_eq!(reused, fresh);
        assert_eq!(reused.cell_first.len(), 12);
        assert!(
            reused.spans.capacity() >= 42,
            "the first grid's span memory was reused"
        );
    }

    #[test]
    fn erosion_removes_spans_closer_than_the_radius_to_the_edge() {
        // 10 x 10 floor: the outer ring has a missing link (distance 0), the next ring 2;
        // radius 2 removes both (distance < 4): 6 x 6 remain.
        let mut chf = flat(10, 10, 0, |_, _| true);
        chf.erode(2);
        assert_eq!(walkable(&chf), 36);
        let mut chf = flat(10, 10, 0, |_, _| true);
        chf.erode(0);
        assert_eq!(walkable(&chf), 100);
    }

    #[test]
    fn distance_field_grows_by_two_per_cell_from_the_edge() {
        let chf = flat(9, 9, 0, |_, _| true);
        let (dist, max) = chf.distance_field();
        // The edge ring is 0 and each ring inwards adds 2: the centre (4 rings in) is 8 before
        // the blur, which is the maximum returned; the blurred centre stays above 6.
        assert_eq!(max, 8);
        assert_eq!(dist[0], 0);
        assert!(dist[4 + 4 * 9] >= 6);
    }

    #[test]
    fn convex_volume_marks_spans_whose_cell_centre_is_inside() {
        let mut chf = flat(6, 6, 0, |_, _| true);
        chf.mark_convex_volume(&ConvexVolume {
            points: vec![[1.0, 1.0], [3.0, 1.0], [3.0, 3.0], [1.0, 3.0]],
            min_y: 0.0,
            max_y: 2.0,
            area: 5,
        });
        // Cell centres 1.5 and 2.5 on each axis lie inside: 4 spans.
        assert_eq!(chf.areas.iter().filter(|&&a| a == 5).count(), 4);
    }
}
