//! Contours: the outline of every region traced along span edges, simplified by the
//! maximum error and split by the maximum edge length, holes joined to their outline
//! (`docs/build3d-regions.md` §6).

use crate::compact::CompactHeightfield;
use crate::region::BORDER_REG;

/// Set on a contour vertex's flags where two regions meet the border ring.
pub const BORDER_VERTEX: u32 = 0x10000;
/// Set on a contour vertex's flags when the edge it starts separates two areas.
pub const AREA_BORDER: u32 = 0x20000;
/// The neighbouring region id in a contour vertex's flags.
pub const REG_MASK: u32 = 0xFFFF;

/// One region's outline. Vertices are (x, y, z, flags) in cells of the tile (border
/// removed: x and z run 0..=tile_cells), counter-clockwise seen from above with +Z up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contour {
    /// Simplified vertices.
    pub verts: Vec<[i32; 4]>,
    /// Region id.
    pub reg: u16,
    /// Area id.
    pub area: u8,
}

fn corner_height(chf: &CompactHeightfield, reg: &[u16], i: usize, dir: usize) -> (i32, bool) {
    let s = chf.spans[i];
    let mut ch = i32::from(s.y);
    let dirp = (dir + 1) & 3;
    let key = |k: usize| u32::from(reg[k]) | (u32::from(chf.areas[k]) << 16);
    let mut regs = [0u32; 4];
    regs[0] = key(i);
    if let Some(a) = chf.neighbour(i, dir) {
        ch = ch.max(i32::from(chf.spans[a].y));
        regs[1] = key(a);
        if let Some(a2) = chf.neighbour(a, dirp) {
            ch = ch.max(i32::from(chf.spans[a2].y));
            regs[2] = key(a2);
        }
    }
    if let Some(a) = chf.neighbour(i, dirp) {
        ch = ch.max(i32::from(chf.spans[a].y));
        regs[3] = key(a);
        if let Some(a2) = chf.neighbour(a, dir) {
            ch = ch.max(i32::from(chf.spans[a2].y));
            regs[2] = key(a2);
        }
    }
    let border = u32::from(BORDER_REG);
    let mut is_border_vertex = false;
    for j in 0..4 {
        let a = j;
        let b = (j + 1) & 3;
        let c = (j + 2) & 3;
        let d = (j + 3) & 3;
        let two_same_exts = (regs[a] & regs[b] & border) != 0 && regs[a] == regs[b];
        let two_ints = ((regs[c] | regs[d]) & border) == 0;
        let ints_same_area = (regs[c] >> 16) == (regs[d] >> 16);
        let no_zeros = regs[a] != 0 && regs[b] != 0 && regs[c] != 0 && regs[d] != 0;
        if two_same_exts && two_ints && ints_same_area && no_zeros {
            is_border_vertex = true;
            break;
        }
    }
    (ch, is_border_vertex)
}

fn walk_contour(
    chf: &CompactHeightfield,
    reg: &[u16],
    flags: &mut [u8],
    mut i: usize,
    points: &mut Vec<[i32; 4]>,
    mut edges: Option<&mut Vec<u32>>,
) {
    let mut dir = 0usize;
    while flags[i] & (1 << dir) == 0 {
        dir += 1;
    }
    let start_dir = dir;
    let start_i = i;
    let area = chf.areas[i];
    let mut iter = 0;
    loop {
        iter += 1;
        if iter >= 40000 {
            break;
        }
        if flags[i] & (1 << dir) != 0 {
            let (py, is_border_vertex) = corner_height(chf, reg, i, dir);
            let mut px = i32::from(chf.span_x[i]);
            let mut pz = i32::from(chf.span_z[i]);
            match dir {
                0 => pz += 1,
                1 => {
                    px += 1;
                    pz += 1;
                }
                2 => px += 1,
                _ => {}
            }
            let mut r = 0u32;
            let mut is_area_border = false;
            if let Some(a) = chf.neighbour(i, dir) {
                r = u32::from(reg[a]);
                if area != chf.areas[a] {
                    is_area_border = true;
                }
            }
            if is_border_vertex {
                r |= BORDER_VERTEX;
            }
            if is_area_border {
                r |= AREA_BORDER;
            }
            points.push([px, py, pz, r as i32]);
            if let Some(e) = edges.as_deref_mut() {
                e.push((i as u32) << 2 | dir as u32);
            }
            flags[i] &= !(1 << dir);
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
}

fn distance_pt_seg_sq(x: i32, z: i32, px: i32, pz: i32, qx: i32, qz: i32) -> f64 {
    let pqx = f64::from(qx - px);
    let pqz = f64::from(qz - pz);
    let dx = f64::from(x - px);
    let dz = f64::from(z - pz);
    let d = pqx * pqx + pqz * pqz;
    let mut t = pqx * dx + pqz * dz;
    if d > 0.0 {
        t /= d;
    }
    let t = t.clamp(0.0, 1.0);
    let ex = f64::from(px) + t * pqx - f64::from(x);
    let ez = f64::from(pz) + t * pqz - f64::from(z);
    ex * ex + ez * ez
}

/// Simplified vertex: (x, y, z, index of the raw vertex), written into `out` (cleared first).
fn simplify(points: &[[i32; 4]], max_error: f32, max_edge_len: i32, out: &mut Vec<[i32; 4]>) {
    let pn = points.len();
    out.clear();
    let has_connections = points.iter().any(|p| (p[3] as u32) & REG_MASK != 0);
    if has_connections {
        for i in 0..pn {
            let ii = if i + 1 == pn { 0 } else { i + 1 };
            let a = points[i][3] as u32;
            let b = points[ii][3] as u32;
            let different_regs = (a & REG_MASK) != (b & REG_MASK);
            let area_borders = (a & AREA_BORDER) != (b & AREA_BORDER);
            if different_regs || area_borders {
                out.push([points[i][0], points[i][1], points[i][2], i as i32]);
            }
        }
    }
    if out.is_empty() {
        let mut ll = 0;
        let mut ur = 0;
        for (i, p) in points.iter().enumerate() {
            let l = points[ll];
            if p[0] < l[0] || (p[0] == l[0] && p[2] < l[2]) {
                ll = i;
            }
            let u = points[ur];
            if p[0] > u[0] || (p[0] == u[0] && p[2] > u[2]) {
                ur = i;
            }
        }
        out.push([points[ll][0], points[ll][1], points[ll][2], ll as i32]);
        out.push([points[ur][0], points[ur][1], points[ur][2], ur as i32]);
    }
    let max_err_sq = f64::from(max_error) * f64::from(max_error);
    let mut i = 0;
    while i < out.len() {
        let ii = (i + 1) % out.len();
        let (mut ax, mut az, ai) = (out[i][0], out[i][2], out[i][3] as usize);
        let (mut bx, mut bz, bi) = (out[ii][0], out[ii][2], out[ii][3] as usize);
        let (cinc, mut ci, endi);
        if bx > ax || (bx == ax && bz > az) {
            cinc = 1;
            ci = (ai + cinc) % pn;
            endi = bi;
        } else {
            cinc = pn - 1;
            ci = (bi + cinc) % pn;
            endi = ai;
            std::mem::swap(&mut ax, &mut bx);
            std::mem::swap(&mut az, &mut bz);
        }
        let mut maxd = 0.0f64;
        let mut maxi: Option<usize> = None;
        let cf = points[ci][3] as u32;
        if cf & REG_MASK == 0 || cf & AREA_BORDER != 0 {
            while ci != endi {
                let d = distance_pt_seg_sq(points[ci][0], points[ci][2], ax, az, bx, bz);
                if d > maxd {
                    maxd = d;
                    maxi = Some(ci);
                }
                // ci < pn and cinc < pn: one subtraction wraps it (no division).
                ci += cinc;
                if ci >= pn {
                    ci -= pn;
                }
            }
        }
        match maxi {
            Some(m) if maxd > max_err_sq => {
                out.insert(i + 1, [points[m][0], points[m][1], points[m][2], m as i32]);
            }
            _ => i += 1,
        }
    }
    if max_edge_len > 0 {
        let mut i = 0;
        while i < out.len() {
            let ii = (i + 1) % out.len();
            let (ax, az, ai) = (out[i][0], out[i][2], out[i][3] as usize);
            let (bx, bz, bi) = (out[ii][0], out[ii][2], out[ii][3] as usize);
            let ci = (ai + 1) % pn;
            let mut maxi: Option<usize> = None;
            // Only wall edges are split.
            if (points[ci][3] as u32) & REG_MASK == 0 {
                let dx = i64::from(bx - ax);
                let dz = i64::from(bz - az);
                let ml = i64::from(max_edge_len);
                if dx * dx + dz * dz > ml * ml {
                    let n = if bi < ai { bi + pn - ai } else { bi - ai };
                    if n > 1 {
                        maxi = Some(if bx > ax || (bx == ax && bz > az) {
                            (ai + n / 2) % pn
                        } else {
                            (ai + n.div_ceil(2)) % pn
                        });
                    }
                }
            }
            match maxi {
                Some(m) => out.insert(i + 1, [points[m][0], points[m][1], points[m][2], m as i32]),
                None => i += 1,
            }
        }
    }
    for v in out.iter_mut() {
        let bi = v[3] as usize;
        let ai = (bi + 1) % pn;
        let fa = points[ai][3] as u32;
        let fb = points[bi][3] as u32;
        v[3] = ((fa & (REG_MASK | AREA_BORDER)) | (fb & BORDER_VERTEX)) as i32;
    }
}

fn remove_degenerate(verts: &mut Vec<[i32; 4]>) {
    let mut i = 0;
    while i < verts.len() {
        let ni = (i + 1) % verts.len();
        if verts.len() > 1 && verts[i][0] == verts[ni][0] && verts[i][2] == verts[ni][2] {
            verts.remove(ni);
            continue;
        }
        i += 1;
    }
}

fn signed_area2(v: &[[i32; 4]]) -> i64 {
    let n = v.len();
    let mut a = 0i64;
    let mut j = n.wrapping_sub(1);
    for i in 0..n {
        a += i64::from(v[i][0]) * i64::from(v[j][2]) - i64::from(v[j][0]) * i64::from(v[i][2]);
        j = i;
    }
    (a + 1) / 2
}

/// Traces and simplifies every region's contour. Contours come in the order of their
/// first span; holes are joined into their region's outline.
pub fn build_contours(
    chf: &CompactHeightfield,
    reg: &[u16],
    max_error: f32,
    max_edge_len: i32,
) -> Vec<Contour> {
    build_contours_keyed(chf, reg, max_error, max_edge_len, None)
        .into_iter()
        .map(|(_, c)| c)
        .collect()
}

/// [`build_contours`] of the regions `only` marks (`only[id]`; every region when `None`),
/// each contour with the span its loop was traced from. A region's loops depend only on its
/// own spans and what lies within one cell of them, and holes are joined per region, so the
/// contours of a subset are exactly the full build's contours of those regions, and the full
/// list is every region's contours in order of their key (a span starts at most one loop).
pub fn build_contours_keyed(
    chf: &CompactHeightfield,
    reg: &[u16],
    max_error: f32,
    max_edge_len: i32,
    only: Option<&[bool]>,
) -> Vec<(u32, Contour)> {
    build_contours_with(chf, reg, max_error, max_edge_len, only, None, None)
}

/// One traced loop of a layer's first build, before holes are joined: the edge its trace
/// started from, every edge it took (`span << 2 | direction`, in order) and its simplified
/// form (`None` when that has fewer than 3 vertices and was dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracedLoop {
    /// The edge the trace started from (`span << 2 | direction`).
    pub start: u32,
    /// Every edge of the loop (`span << 2 | direction`).
    pub edges: Vec<u32>,
    /// The simplified loop, border removed (`None`: dropped).
    pub contour: Option<Contour>,
}

/// The loops of a first build, the owner of every boundary edge (`span << 2 | direction`
/// to the loop's index in `loops`, `u32::MAX` for no loop) and the boundary sides of every
/// span before tracing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoopTable {
    /// Every loop in the order traced.
    pub loops: Vec<TracedLoop>,
    /// The loop of every edge.
    pub owner: Vec<u32>,
    /// The sides of every span facing another region (bit `d` for direction `d`; 0 for spans
    /// of region 0 or of the border ring), as the first build computed them before tracing.
    pub flags: Vec<u8>,
}

/// [`build_contours_keyed`] of every region, and the loops it traced with their edges.
pub fn build_contours_recorded(
    chf: &CompactHeightfield,
    reg: &[u16],
    max_error: f32,
    max_edge_len: i32,
) -> (Vec<(u32, Contour)>, LoopTable) {
    let mut table = LoopTable::default();
    let out = build_contours_with(
        chf,
        reg,
        max_error,
        max_edge_len,
        None,
        None,
        Some(&mut table),
    );
    table.owner = vec![u32::MAX; chf.span_count() * 4];
    for (k, l) in table.loops.iter().enumerate() {
        for &e in &l.edges {
            table.owner[e as usize] = k as u32;
        }
    }
    (out, table)
}

/// [`build_contours_keyed`] of the regions `only` marks, taking over the loops of `old`
/// that `dirty` does not mark: when the scan reaches the edge such a loop started from, the
/// loop is not walked again but its edges are taken and its simplified form kept. This is
/// exact when every span the loop's edges start from has, within one cell, the regions and
/// areas it had when `old` was traced (a walk reads nothing farther), which the caller marks.
/// The boundary sides of the spans are `old`'s, computed again only for the spans `changed`
/// lists: every span whose region changed since `old` and every span with a link to one
/// (listing a span twice is allowed).
#[allow(clippy::too_many_arguments)]
pub fn build_contours_reusing(
    chf: &CompactHeightfield,
    reg: &[u16],
    max_error: f32,
    max_edge_len: i32,
    only: &[bool],
    old: &LoopTable,
    dirty: &[bool],
    changed: &[u32],
) -> Vec<(u32, Contour)> {
    build_contours_with(
        chf,
        reg,
        max_error,
        max_edge_len,
        Some(only),
        Some((old, dirty, changed)),
        None,
    )
}

fn build_contours_with(
    chf: &CompactHeightfield,
    reg: &[u16],
    max_error: f32,
    max_edge_len: i32,
    only: Option<&[bool]>,
    reuse: Option<(&LoopTable, &[bool], &[u32])>,
    record: Option<&mut LoopTable>,
) -> Vec<(u32, Contour)> {
    SCRATCH.with_borrow_mut(|scratch| {
        let mut contours = trace_contours(
            chf,
            reg,
            max_error,
            max_edge_len,
            only,
            reuse,
            record,
            scratch,
        );
        merge_holes(&mut contours, &mut scratch.holes);
        contours
    })
}

/// The per-span buffers of [`build_contours`], kept per thread so a tile cache's rebuilds
/// (one layer after another) allocate them once.
#[derive(Default)]
struct ContourScratch {
    /// Which sides of each span still have an untraced boundary edge.
    flags: Vec<u8>,
    /// The region of every span and a 0 after the last.
    regx: Vec<u16>,
    /// The raw vertices of the loop being traced.
    raw: Vec<[i32; 4]>,
    /// Its simplified vertices.
    simp: Vec<[i32; 4]>,
    /// The lists of [`merge_holes`].
    holes: HoleScratch,
}

/// The working lists of [`merge_holes`].
#[derive(Default)]
struct HoleScratch {
    /// Twice the signed area of every contour.
    winding: Vec<i64>,
    /// The regions with a contour, ascending.
    regs: Vec<u16>,
    /// The contours joined into another or dropped.
    remove: Vec<bool>,
    /// The holes of one region, and each with its leftmost vertex.
    holes: Vec<usize>,
    hole_info: Vec<(i32, i32, usize, usize)>,
    /// The candidate diagonals from one hole vertex (shortest first).
    diags: Vec<(i64, usize)>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<ContourScratch> = std::cell::RefCell::default();
}

/// Every region's loops, traced and simplified (holes not yet joined), each with the span it was
/// traced from; the loops of `reuse` it may take over, and where it records the loops it
/// traces.
#[allow(clippy::too_many_arguments)]
fn trace_contours(
    chf: &CompactHeightfield,
    reg: &[u16],
    max_error: f32,
    max_edge_len: i32,
    only: Option<&[bool]>,
    reuse: Option<(&LoopTable, &[bool], &[u32])>,
    mut record: Option<&mut LoopTable>,
    scratch: &mut ContourScratch,
) -> Vec<(u32, Contour)> {
    let n = chf.span_count();
    let ContourScratch {
        flags,
        regx,
        raw,
        simp,
        holes: _,
    } = scratch;
    flags.clear();
    // Reused sides: `old`'s, those of the changed spans computed again below.
    let reused = match reuse {
        Some((old, _, changed)) if old.flags.len() == n => {
            flags.extend_from_slice(&old.flags);
            Some(changed)
        }
        _ => {
            flags.resize(n, 0);
            None
        }
    };
    // The regions with a 0 after the last span, which a missing link (NOT_CONNECTED, past
    // every span) reads: a span's region is never 0 here, so that side is open.
    regx.clear();
    regx.extend_from_slice(&reg[..n]);
    regx.push(0u16);
    // Plain slices from here on, so their lengths are known once.
    let flags: &mut [u8] = flags;
    let regx: &[u16] = regx;
    let at = |c: u32| regx[(c as usize).min(n)];
    let wanted = |r: u16| match only {
        Some(only) => only.get(usize::from(r)).copied().unwrap_or(false),
        None => true,
    };
    let sides = |r: u16, s: &crate::compact::CompactSpan| {
        if r == 0 || r & BORDER_REG != 0 {
            return 0;
        }
        let same = |d: usize| u8::from(at(s.con[d]) == r) << d;
        (same(0) | same(1) | same(2) | same(3)) ^ 0xF
    };
    if let Some(changed) = reused {
        // Spans of regions `only` leaves out keep `old`'s sides; the scan skips them.
        for &j in changed {
            let j = j as usize;
            if let (Some(f), Some(&r), Some(s)) = (flags.get_mut(j), reg.get(j), chf.spans.get(j)) {
                *f = sides(r, s);
            }
        }
    } else {
        for ((f, &r), s) in flags.iter_mut().zip(reg).zip(&chf.spans) {
            if wanted(r) {
                *f = sides(r, s);
            }
        }
    }
    if let Some(rec) = record.as_deref_mut() {
        rec.flags.clear();
        rec.flags.extend_from_slice(flags);
    }
    let border = chf.border;
    let mut contours: Vec<(u32, Contour)> = Vec::new();
    for i in 0..n {
        if flags[i] == 0 || flags[i] == 0xF {
            flags[i] = 0;
            continue;
        }
        let r = reg[i];
        if r == 0 || r & BORDER_REG != 0 || !wanted(r) {
            continue;
        }
        if let Some((old, dirty, _)) = reuse {
            let start = (i as u32) << 2 | flags[i].trailing_zeros();
            let o = old.owner.get(start as usize).copied().unwrap_or(u32::MAX);
            if let Some(l) = old.loops.get(o as usize) {
                if l.start == start && !dirty.get(o as usize).copied().unwrap_or(true) {
                    for &e in &l.edges {
                        flags[(e >> 2) as usize] &= !(1u8 << (e & 3));
                    }
                    if let Some(c) = &l.contour {
                        contours.push((i as u32, c.clone()));
                    }
                    continue;
                }
            }
        }
        raw.clear();
        let mut edges = record.as_ref().map(|_| Vec::new());
        walk_contour(chf, reg, flags, i, raw, edges.as_mut());
        if raw.is_empty() {
            continue;
        }
        simplify(raw, max_error, max_edge_len, simp);
        remove_degenerate(simp);
        let contour = (simp.len() >= 3).then(|| Contour {
            verts: simp
                .iter()
                .map(|p| [p[0] - border, p[1], p[2] - border, p[3]])
                .collect(),
            reg: r,
            area: chf.areas[i],
        });
        if let (Some(rec), Some(edges)) = (record.as_deref_mut(), edges) {
            let start = edges.first().copied().unwrap_or((i as u32) << 2);
            rec.loops.push(TracedLoop {
                start,
                edges,
                contour: contour.clone(),
            });
        }
        if let Some(contour) = contour {
            contours.push((i as u32, contour));
        }
    }
    contours
}

/// Joins every hole (a contour of negative area) into the outline of its region.
fn merge_holes(contours: &mut Vec<(u32, Contour)>, sc: &mut HoleScratch) {
    let HoleScratch {
        winding,
        regs,
        remove,
        holes,
        hole_info,
        diags,
    } = sc;
    winding.clear();
    winding.extend(contours.iter().map(|(_, c)| signed_area2(&c.verts)));
    if !winding.iter().any(|&w| w < 0) {
        return;
    }
    regs.clear();
    regs.extend(contours.iter().map(|(_, c)| c.reg));
    regs.sort_unstable();
    regs.dedup();
    remove.clear();
    remove.resize(contours.len(), false);
    for &r in regs.iter() {
        let mut outline = None;
        holes.clear();
        for (ci, (_, c)) in contours.iter().enumerate() {
            if c.reg != r {
                continue;
            }
            if winding[ci] > 0 {
                if outline.is_none() {
                    outline = Some(ci);
                }
            } else {
                holes.push(ci);
            }
        }
        let Some(oi) = outline else {
            // A region made only of holes cannot be polygonized; drop them.
            for &h in holes.iter() {
                remove[h] = true;
            }
            continue;
        };
        if holes.is_empty() {
            continue;
        }
        // Leftmost vertex of each hole (min x, then min z); holes in that order.
        hole_info.clear();
        hole_info.extend(holes.iter().map(|&h| {
            let v = &contours[h].1.verts;
            let mut best = 0;
            for (k, p) in v.iter().enumerate() {
                if p[0] < v[best][0] || (p[0] == v[best][0] && p[2] < v[best][2]) {
                    best = k;
                }
            }
            (v[best][0], v[best][2], h, best)
        }));
        hole_info.sort();
        for hi in 0..hole_info.len() {
            let (_, _, h, leftmost) = hole_info[hi];
            let hole = &contours[h].1.verts;
            let outline_v = &contours[oi].1.verts;
            let mut found: Option<(usize, usize)> = None;
            let mut best_vertex = leftmost;
            for _ in 0..hole.len() {
                let corner = hole[best_vertex];
                diags.clear();
                for j in 0..outline_v.len() {
                    if in_cone(j, outline_v, corner) {
                        let dx = i64::from(outline_v[j][0] - corner[0]);
                        let dz = i64::from(outline_v[j][2] - corner[2]);
                        diags.push((dx * dx + dz * dz, j));
                    }
                }
                diags.sort();
                for &(_, j) in diags.iter() {
                    let pt = outline_v[j];
                    let mut hit = intersect_seg_contour(pt, corner, Some(j), outline_v);
                    for &(_, _, other, _) in &hole_info[hi..] {
                        if hit {
                            break;
                        }
                        hit |= intersect_seg_contour(pt, corner, None, &contours[other].1.verts);
                    }
                    if !hit {
                        found = Some((j, best_vertex));
                        break;
                    }
                }
                if found.is_some() {
                    break;
                }
                best_vertex = (best_vertex + 1) % hole.len();
            }
            if let Some((ia, ib)) = found {
                let mut merged = Vec::with_capacity(outline_v.len() + hole.len() + 2);
                for k in 0..=outline_v.len() {
                    merged.push(outline_v[(ia + k) % outline_v.len()]);
                }
                for k in 0..=hole.len() {
                    merged.push(hole[(ib + k) % hole.len()]);
                }
                contours[oi].1.verts = merged;
                remove[h] = true;
            } else {
                remove[h] = true;
            }
        }
    }
    let mut k = 0;
    contours.retain(|_| {
        let keep = !remove[k];
        k += 1;
        keep
    });
}

#[inline]
fn area2(a: [i32; 4], b: [i32; 4], c: [i32; 4]) -> i64 {
    (i64::from(b[0]) - i64::from(a[0])) * (i64::from(c[2]) - i64::from(a[2]))
        - (i64::from(c[0]) - i64::from(a[0])) * (i64::from(b[2]) - i64::from(a[2]))
}
#[inline]
fn left(a: [i32; 4], b: [i32; 4], c: [i32; 4]) -> bool {
    area2(a, b, c) < 0
}
#[inline]
fn left_on(a: [i32; 4], b: [i32; 4], c: [i32; 4]) -> bool {
    area2(a, b, c) <= 0
}
#[inline]
fn vequal(a: [i32; 4], b: [i32; 4]) -> bool {
    a[0] == b[0] && a[2] == b[2]
}

fn in_cone(i: usize, verts: &[[i32; 4]], pj: [i32; 4]) -> bool {
    let n = verts.len();
    let pi = verts[i];
    let pi1 = verts[(i + 1) % n];
    let pin1 = verts[(i + n - 1) % n];
    if left_on(pin1, pi, pi1) {
        return left(pi, pj, pin1) && left(pj, pi, pi1);
    }
    !(left_on(pi, pj, pi1) && left_on(pj, pi, pin1))
}

fn intersect_seg_contour(d0: [i32; 4], d1: [i32; 4], i: Option<usize>, verts: &[[i32; 4]]) -> bool {
    let n = verts.len();
    for k in 0..n {
        let k1 = (k + 1) % n;
        if i == Some(k) || i == Some(k1) {
            continue;
        }
        let p0 = verts[k];
        let p1 = verts[k1];
        if vequal(d0, p0) || vequal(d1, p0) || vequal(d0, p1) || vequal(d1, p1) {
            continue;
        }
        if crate::polymesh::intersect(d0, d1, p0, p1) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::tests::flat;
    use crate::region::watershed;

    #[test]
    fn a_rectangle_region_traces_to_its_four_corners() {
        let chf = flat(12, 8, 0, |x, z| (2..10).contains(&x) && (1..7).contains(&z));
        let r = watershed(&chf, 0, 0);
        let c = build_contours(&chf, &r.ids, 1.3, 0);
        assert_eq!(c.len(), 1);
        let mut xz: Vec<(i32, i32)> = c[0].verts.iter().map(|v| (v[0], v[2])).collect();
        xz.sort_unstable();
        assert_eq!(xz, vec![(2, 1), (2, 7), (10, 1), (10, 7)]);
    }

    #[test]
    fn long_wall_edges_are_split_at_the_max_edge_length() {
        let chf = flat(24, 6, 0, |x, z| (1..23).contains(&x) && (1..5).contains(&z));
        let r = watershed(&chf, 0, 0);
        let c = build_contours(&chf, &r.ids, 1.3, 6);
        assert_eq!(c.len(), 1);
        let v = &c[0].verts;
        for i in 0..v.len() {
            let (a, b) = (v[i], v[(i + 1) % v.len()]);
            let d2 = (a[0] - b[0]).pow(2) + (a[2] - b[2]).pow(2);
            assert!(d2 <= 36, "edge {i} of length² {d2}");
        }
    }

    #[test]
    fn a_hole_is_joined_into_its_region_outline() {
        // A ring: 12 x 12 square with a 4 x 4 hole in the middle, one region.
        let chf = flat(14, 14, 0, |x, z| {
            (1..13).contains(&x)
                && (1..13).contains(&z)
                && !((5..9).contains(&x) && (5..9).contains(&z))
        });
        let ids = vec![1u16; chf.span_count()];
        let c = build_contours(&chf, &ids, 1.3, 0);
        assert_eq!(c.len(), 1, "the hole is merged into the outline");
        assert_eq!(c[0].verts.len(), 4 + 4 + 2);
    }
}
