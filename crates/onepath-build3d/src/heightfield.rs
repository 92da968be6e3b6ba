//! The solid heightfield: rasterization of triangles into spans, and the three filters
//! (`docs/build3d-spans.md` §1–§3).

use crate::config::MAX_HEIGHT_CELLS;

/// Area id of a span that is not walkable.
pub const NULL_AREA: u8 = 0;

/// A solid run of cells in one column: `[smin, smax)` in cell heights above the grid's
/// origin Y, with an area id (0 = not walkable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Bottom of the solid run (cells).
    pub smin: u16,
    /// Top of the solid run (cells); the floor an agent stands on.
    pub smax: u16,
    /// Area id (0 = not walkable).
    pub area: u8,
}

/// A grid of columns of solid spans, sorted bottom up, never overlapping.
#[derive(Debug, Clone, PartialEq)]
pub struct Heightfield {
    /// Columns along X.
    pub width: i32,
    /// Columns along Z.
    pub depth: i32,
    /// World position of the grid's minimum corner.
    pub origin: [f64; 3],
    /// Horizontal cell size.
    pub cs: f64,
    /// Vertical cell size.
    pub ch: f64,
    /// Height of the grid in cells (world extent `height_cells · ch`).
    pub height_cells: i32,
    /// Spans of each column (index `x + z·width`), bottom up.
    pub columns: Vec<Vec<Span>>,
}

impl Heightfield {
    /// An empty heightfield.
    pub fn new(
        width: i32,
        depth: i32,
        origin: [f64; 3],
        cs: f64,
        ch: f64,
        height_cells: i32,
    ) -> Self {
        let n = (width.max(0) as usize) * (depth.max(0) as usize);
        Heightfield {
            width,
            depth,
            origin,
            cs,
            ch,
            height_cells: height_cells.clamp(1, MAX_HEIGHT_CELLS),
            columns: vec![Vec::new(); n],
        }
    }

    /// An empty 0 x 0 heightfield, to be [`Heightfield::reset`] before use.
    pub(crate) fn scratch() -> Self {
        Heightfield::new(0, 0, [0.0; 3], 1.0, 1.0, 1)
    }

    /// Empties the heightfield and gives it a new grid, keeping the memory of its columns:
    /// afterwards it equals [`Heightfield::new`] with the same arguments. A builder reuses
    /// one heightfield for the tiles of one thread, so the span storage of each column is
    /// allocated once per thread instead of once per tile.
    pub fn reset(
        &mut self,
        width: i32,
        depth: i32,
        origin: [f64; 3],
        cs: f64,
        ch: f64,
        height_cells: i32,
    ) {
        let n = (width.max(0) as usize) * (depth.max(0) as usize);
        self.width = width;
        self.depth = depth;
        self.origin = origin;
        self.cs = cs;
        self.ch = ch;
        self.height_cells = height_cells.clamp(1, MAX_HEIGHT_CELLS);
        for col in &mut self.columns {
            col.clear();
        }
        self.columns.resize_with(n, Vec::new);
    }

    /// Adds the solid run `[smin, smax)` to column (x, z) by the merge rule: every existing
    /// span it overlaps or touches is absorbed (the union is kept); when the merged top is
    /// within `merge_climb` of an absorbed span's top, the larger area id wins, otherwise the
    /// new span's area stays.
    pub fn add_span(&mut self, x: i32, z: i32, smin: u16, smax: u16, area: u8, merge_climb: i32) {
        let col = &mut self.columns[(x + z * self.width) as usize];
        let mut s = Span { smin, smax, area };
        let mut i = 0;
        while i < col.len() {
            let cur = col[i];
            if cur.smin > s.smax {
                break;
            }
            if cur.smax < s.smin {
                i += 1;
                continue;
            }
            if cur.smin < s.smin {
                s.smin = cur.smin;
            }
            if cur.smax > s.smax {
                s.smax = cur.smax;
            }
            if (i32::from(s.smax) - i32::from(cur.smax)).abs() <= merge_climb {
                s.area = s.area.max(cur.area);
            }
            col.remove(i);
        }
        col.insert(i, s);
    }

    /// Rasterizes one triangle (world coordinates) with area id `area`.
    pub fn rasterize_triangle(&mut self, v: [[f64; 3]; 3], area: u8, merge_climb: i32) {
        let cs = self.cs;
        let ch = self.ch;
        let bmin = self.origin;
        let bmax = [
            bmin[0] + f64::from(self.width) * cs,
            bmin[1] + f64::from(self.height_cells) * ch,
            bmin[2] + f64::from(self.depth) * cs,
        ];
        let mut tmin = v[0];
        let mut tmax = v[0];
        for p in &v[1..] {
            for k in 0..3 {
                tmin[k] = tmin[k].min(p[k]);
                tmax[k] = tmax[k].max(p[k]);
            }
        }
        if tmin[0] > bmax[0] || tmax[0] < bmin[0] || tmin[2] > bmax[2] || tmax[2] < bmin[2] {
            return;
        }
        if tmin[1] > bmax[1] || tmax[1] < bmin[1] {
            return;
        }
        let w = self.width;
        let h = self.depth;
        let by = bmax[1] - bmin[1];
        let z0 = floor_i32((tmin[2] - bmin[2]) / cs).clamp(-1, h - 1);
        let z1 = floor_i32((tmax[2] - bmin[2]) / cs).clamp(0, h - 1);

        // Buffers reused across cuts: the triangle's rest after each row cut (two in turn),
        // the row's rest after each cell cut (two in turn; the row itself lands in the first),
        // and the cell.
        let mut rows = [Poly::from_triangle(v), Poly::EMPTY];
        let mut row_src = 0;
        let mut cells = [Poly::EMPTY; 2];
        let mut cell = Poly::EMPTY;
        for z in z0..=z1 {
            let cell_z = bmin[2] + f64::from(z) * cs;
            let (poly_in, rest) = source_and_rest(&mut rows, row_src);
            divide_poly(poly_in, cell_z + cs, 2, &mut cells[0], rest);
            row_src ^= 1;
            let row = &cells[0];
            if row.n < 3 || z < 0 {
                continue;
            }
            let mut min_x = row.v[0][0];
            let mut max_x = row.v[0][0];
            for p in &row.v[1..row.n] {
                min_x = min_x.min(p[0]);
                max_x = max_x.max(p[0]);
            }
            let x0 = floor_i32((min_x - bmin[0]) / cs);
            let x1 = floor_i32((max_x - bmin[0]) / cs);
            if x1 < 0 || x0 >= w {
                continue;
            }
            let x0 = x0.clamp(-1, w - 1);
            let x1 = x1.clamp(0, w - 1);
            let mut cell_src = 0;
            for x in x0..=x1 {
                let cx = bmin[0] + f64::from(x) * cs;
                let (row_rest, rest) = source_and_rest(&mut cells, cell_src);
                divide_poly(row_rest, cx + cs, 0, &mut cell, rest);
                cell_src ^= 1;
                if cell.n < 3 || x < 0 {
                    continue;
                }
                let mut smin = cell.v[0][1];
                let mut smax = cell.v[0][1];
                for p in &cell.v[1..cell.n] {
                    smin = smin.min(p[1]);
                    smax = smax.max(p[1]);
                }
                smin -= bmin[1];
                smax -= bmin[1];
                if smax < 0.0 || smin > by {
                    continue;
                }
                let smin = smin.max(0.0);
                let smax = smax.min(by);
                let ismin = floor_i32(smin / ch).clamp(0, MAX_HEIGHT_CELLS);
                let ismax = ceil_i32(smax / ch).clamp(ismin + 1, MAX_HEIGHT_CELLS);
                self.add_span(x, z, ismin as u16, ismax as u16, area, merge_climb);
            }
        }
    }

    /// Filter 1 (low-hanging obstacles): a non-walkable span whose top is within `climb`
    /// of the top of the walkable span right below it takes that span's area.
    pub fn filter_low_hanging_obstacles(&mut self, climb: i32) {
        for col in &mut self.columns {
            let mut prev_walkable = false;
            let mut prev_area = NULL_AREA;
            let mut prev_top = 0i32;
            for s in col.iter_mut() {
                let walkable = s.area != NULL_AREA;
                if !walkable && prev_walkable && (i32::from(s.smax) - prev_top).abs() <= climb {
                    s.area = prev_area;
                }
                prev_walkable = walkable;
                prev_area = s.area;
                prev_top = i32::from(s.smax);
            }
        }
    }

    /// Filter 2 (ledges): a walkable span becomes non-walkable when a neighbour floor
    /// (or the grid's outside) lies more than `climb` below it with room to stand, or when the
    /// reachable neighbour floors differ among themselves by more than `climb`.
    pub fn filter_ledge_spans(&mut self, walkable_height: i32, climb: i32) {
        let w = self.width;
        let h = self.depth;
        let max_h = MAX_HEIGHT_CELLS;
        let mut to_clear = Vec::new();
        for z in 0..h {
            for x in 0..w {
                let col = &self.columns[(x + z * w) as usize];
                for (si, s) in col.iter().enumerate() {
                    if s.area == NULL_AREA {
                        continue;
                    }
                    let bot = i32::from(s.smax);
                    let top = col.get(si + 1).map_or(max_h, |n| i32::from(n.smin));
                    let mut minh = max_h;
                    let mut asmin = bot;
                    let mut asmax = bot;
                    for dir in 0..4 {
                        // Already a ledge: the other directions cannot change that.
                        if minh < -climb {
                            break;
                        }
                        let dx = x + DIR_X[dir];
                        let dz = z + DIR_Z[dir];
                        if dx < 0 || dz < 0 || dx >= w || dz >= h {
                            minh = minh.min(-climb - bot);
                            continue;
                        }
                        let ncol = &self.columns[(dx + dz * w) as usize];
                        let nbot = -climb;
                        let ntop = ncol.first().map_or(max_h, |n| i32::from(n.smin));
                        if top.min(ntop) - bot.max(nbot) > walkable_height {
                            minh = minh.min(nbot - bot);
                        }
                        for (ni, ns) in ncol.iter().enumerate() {
                            let nbot = i32::from(ns.smax);
                            let ntop = ncol.get(ni + 1).map_or(max_h, |n| i32::from(n.smin));
                            if top.min(ntop) - bot.max(nbot) > walkable_height {
                                minh = minh.min(nbot - bot);
                                if (nbot - bot).abs() <= climb {
                                    asmin = asmin.min(nbot);
                                    asmax = asmax.max(nbot);
                                }
                            }
                        }
                    }
                    if minh < -climb || asmax - asmin > climb {
                        to_clear.push(((x + z * w) as usize, si));
                    }
                }
            }
        }
        for (c, si) in to_clear {
            self.columns[c][si].area = NULL_AREA;
        }
    }

    /// Filter 3 (low clearance): a walkable span with less than `walkable_height` cells of
    /// free space above its top becomes non-walkable.
    pub fn filter_low_height_spans(&mut self, walkable_height: i32) {
        for col in &mut self.columns {
            for si in 0..col.len() {
                let bot = i32::from(col[si].smax);
                let top = col
                    .get(si + 1)
                    .map_or(MAX_HEIGHT_CELLS, |n| i32::from(n.smin));
                if top - bot < walkable_height {
                    col[si].area = NULL_AREA;
                }
            }
        }
    }
}

/// Column offsets of the four directions, in the order −x, +z, +x, −z.
pub const DIR_X: [i32; 4] = [-1, 0, 1, 0];
/// Row offsets of the four directions, in the order −x, +z, +x, −z.
pub const DIR_Z: [i32; 4] = [0, 1, 0, -1];

#[derive(Clone, Copy)]
struct Poly {
    v: [[f64; 3]; 12],
    n: usize,
}

impl Poly {
    const EMPTY: Poly = Poly {
        v: [[0.0; 3]; 12],
        n: 0,
    };

    fn from_triangle(t: [[f64; 3]; 3]) -> Self {
        let mut v = [[0.0; 3]; 12];
        v[..3].copy_from_slice(&t);
        Poly { v, n: 3 }
    }
    fn push(&mut self, p: [f64; 3]) {
        // A convex polygon clipped by axis lines gains at most one vertex per cut; 12 slots
        // cover a triangle cut twice (and more), so this never overflows.
        if self.n < self.v.len() {
            self.v[self.n] = p;
            self.n += 1;
        }
    }
}

/// Splits a convex polygon by the line `axis = offset` into the part below (`<=`) and the
/// part above. Points on the line go to both.
/// Both outputs are written in place (their old contents are dropped): the rasterizer reuses
/// its buffers instead of returning two fresh polygons per cut.
fn divide_poly(input: &Poly, offset: f64, axis: usize, below: &mut Poly, above: &mut Poly) {
    below.n = 0;
    above.n = 0;
    let n = input.n;
    if n == 0 {
        return;
    }
    let mut d = [0.0f64; 12];
    for i in 0..n {
        d[i] = offset - input.v[i][axis];
    }
    let mut j = n - 1;
    for i in 0..n {
        let ina = d[j] >= 0.0;
        let inb = d[i] >= 0.0;
        if ina != inb {
            let s = d[j] / (d[j] - d[i]);
            let a = input.v[j];
            let b = input.v[i];
            let p = [
                a[0] + (b[0] - a[0]) * s,
                a[1] + (b[1] - a[1]) * s,
                a[2] + (b[2] - a[2]) * s,
            ];
            below.push(p);
            above.push(p);
            if d[i] > 0.0 {
                below.push(b);
            } else if d[i] < 0.0 {
                above.push(b);
            }
        } else {
            if d[i] >= 0.0 {
                below.push(input.v[i]);
                if d[i] != 0.0 {
                    j = i;
                    continue;
                }
            }
            above.push(input.v[i]);
        }
        j = i;
    }
}

/// The input polygon and the output "rest" of a cut, from a pair of buffers used in turn.
fn source_and_rest(buffers: &mut [Poly; 2], source: usize) -> (&Poly, &mut Poly) {
    let (first, second) = buffers.split_at_mut(1);
    if source == 0 {
        (&first[0], &mut second[0])
    } else {
        (&second[0], &mut first[0])
    }
}

/// `x.floor() as i32` (saturating, NaN → 0) without the libm call: truncate, then step
/// down when truncation rounded up. Exact: both conversions are exact or saturate alike.
#[inline]
fn floor_i32(x: f64) -> i32 {
    let t = x as i32;
    if f64::from(t) > x {
        t.saturating_sub(1)
    } else {
        t
    }
}

/// `x.ceil() as i32` (saturating, NaN → 0) without the libm call.
#[inline]
fn ceil_i32(x: f64) -> i32 {
    let t = x as i32;
    if f64::from(t) < x {
        t.saturating_add(1)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_and_ceil_to_i32_equal_the_libm_forms_with_saturation() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999_999_999_999_999_6,
            -2.999_999_999_999_999_6,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::from(i32::MAX),
            f64::from(i32::MAX) + 0.5,
            f64::from(i32::MAX) + 1.0,
            f64::from(i32::MIN),
            f64::from(i32::MIN) - 0.5,
            f64::from(i32::MIN) + 0.5,
            f64::from(i32::MIN) - 1.0,
            1e300,
            -1e300,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
        ];
        for k in -2000..2000 {
            let x = f64::from(k) * 0.3 / 0.7 + 1e-3;
            xs.extend([
                x,
                f64::from_bits(x.to_bits() + 1),
                f64::from_bits(x.to_bits() - 1),
            ]);
        }
        for x in xs {
            assert_eq!(floor_i32(x), x.floor() as i32, "floor {x}");
            assert_eq!(ceil_i32(x), x.ceil() as i32, "ceil {x}");
        }
    }

    #[test]
    fn overlapping_spans_merge_into_their_union() {
        let mut hf = Heightfield::new(1, 1, [0.0; 3], 1.0, 1.0, 100);
        hf.add_span(0, 0, 0, 5, 0, 1);
        hf.add_span(0, 0, 10, 12, 0, 1);
        hf.add_span(0, 0, 4, 10, 7, 1);
        assert_eq!(
            hf.columns[0],
            vec![Span {
                smin: 0,
                smax: 12,
                area: 7
            }]
        );
    }

    #[test]
    fn merged_span_keeps_larger_area_only_when_tops_are_within_climb() {
        let mut hf = Heightfield::new(1, 1, [0.0; 3], 1.0, 1.0, 100);
        hf.add_span(0, 0, 0, 10, 9, 1);
        hf.add_span(0, 0, 2, 4, 3, 1);
        // The merged top is 10, equal to the absorbed span's top: the larger area (9) wins.
        assert_eq!(hf.columns[0][0].area, 9);
        let mut hf = Heightfield::new(1, 1, [0.0; 3], 1.0, 1.0, 100);
        hf.add_span(0, 0, 0, 4, 9, 1);
        hf.add_span(0, 0, 2, 10, 3, 1);
        assert_eq!(
            hf.columns[0][0],
            Span {
                smin: 0,
                smax: 10,
                area: 3
            }
        );
    }

    #[test]
    fn flat_triangle_rasterizes_one_span_per_covered_cell() {
        let mut hf = Heightfield::new(4, 4, [0.0; 3], 1.0, 0.5, 100);
        hf.rasterize_triangle([[0.0, 1.0, 0.0], [0.0, 1.0, 4.0], [4.0, 1.0, 0.0]], 5, 1);
        let filled = hf.columns.iter().filter(|c| !c.is_empty()).count();
        // Every cell the triangle touches with positive area (the 10 cells on or below the
        // diagonal) gets exactly one span with top at 1.0 / 0.5 = 2.
        assert_eq!(filled, 10);
        for c in hf.columns.iter().filter(|c| !c.is_empty()) {
            assert_eq!(c.len(), 1);
            assert_eq!(c[0].smax, 3);
            assert_eq!(c[0].smin, 2);
        }
    }

    #[test]
    fn low_clearance_spans_are_not_walkable() {
        let mut hf = Heightfield::new(1, 1, [0.0; 3], 1.0, 1.0, 100);
        hf.add_span(0, 0, 0, 1, 63, 1);
        hf.add_span(0, 0, 5, 6, 63, 1);
        hf.filter_low_height_spans(5);
        assert_eq!(hf.columns[0][0].area, NULL_AREA);
        assert_eq!(hf.columns[0][1].area, 63);
    }
}
