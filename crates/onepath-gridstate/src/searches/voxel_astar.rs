//! A* on a [`VoxelGrid`]: its options, its moves and estimates, and its engine.
//!
//! **Keys.** A k-axis move costs √k times the entered voxel's area multiplier. When every
//! area multiplier is the same value m and the heuristic weight is 1 or 0 (*exact mode*),
//! a cost so far is kept as its step counts (a, b, c) — a unit, b √2 and c √3 steps, cost
//! m·(a + b√2 + c√3) — and so is the estimate, and keys are compared *exactly* (see
//! [`cmp_steps`]): equally good paths have equal keys whatever the order of their moves,
//! so the "larger g first" tie-break sends the search straight along a plateau instead of
//! over it (f64 sums of 1, √2 and √3 differ in their last bits along equally good paths,
//! never tie, and the search used to fan out over the whole plateau). Otherwise
//! (*f64 mode*: differing multipliers, or another weight) a cost so far is an f64 sum of
//! the move costs, f = g + weight × estimate × smallest multiplier, as the generic A* does.
//!
//! **Pop order** (both modes): the smaller f, then the larger g, then the smaller node
//! index. The open list is a 4-ary heap with lazy deletion (`open_lists/quad.rs`): an
//! improved voxel is pushed again (its new key comes first, the estimate being the same),
//! an entry whose voxel has nothing left to expand is dropped when met and is not an
//! iteration. The order is total, so any heap pops the same sequence.
//!
//! **Pruning** (exact mode, 26 neighbours, `BothOrthogonalFree`): a voxel generates only
//! the moves natural for a move that reached it at its cost, and those whose canonical
//! alternative is blocked ([`Prune`]: the rule and why no optimal cost is lost). Equal-cost
//! arrivals are all kept, and a voxel reached at its cost by another move after its
//! expansion is expanded again for the moves that arrival adds.
//!
//! **Memory.** Per-voxel records (cost so far, the first move that reached the voxel at
//! it, the moves that reached it, were expanded and were generated) live in pages of 4³
//! voxels taken when a search first generates a move into them (`open_lists/paged.rs`),
//! kept and reused by the next search: a search costs memory in proportion to the voxels
//! it touches, not to the grid.
//!
//! **An expansion's reads.** The free voxels of the 3 × 3 × 3 neighbourhood come as one
//! 27-bit mask read from the grid's chunks row by row (`VoxelGrid::free_mask`: each chunk
//! keeps, beside its area bytes, one 16-bit word of free voxels per row along x, so a row
//! of the neighbourhood is three bits of one word, or of two on a chunk's x face); exact
//! mode copies no areas (every move's cost is its step class). The rule is tested only for the moves the
//! pruning keeps, and each page of records the kept moves enter is found with one walk of
//! the page tables (none for the pages the last group of the same lowest page found; the
//! popped voxel's record is read through the last group's pages when its page is one of
//! them). None of this changes what a search does: the same successors, the same pop
//! sequence, the same path.

use std::cmp::Ordering;
use std::f64::consts::SQRT_2;

use crate::error::GridError;
use crate::open_lists::paged::PagedRecords;
use crate::open_lists::quad::QuadHeap;
use crate::searches::options::{check_weight, DiagonalRule};
use crate::searches::result::{GridPath, GridPathStatus, SearchStatus};
use crate::searches::sliced::{Began, SlicedSearch, SpaceKey};
use crate::spaces::voxel::VoxelGrid;

/// √3 as the f64 nearest to it (`3f64.sqrt()`, correctly rounded).
const SQRT_3: f64 = 1.732_050_807_568_877_2;

/// Neighbourhood of a voxel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum VoxelConnectivity {
    /// Faces (cost 1).
    Six,
    /// Faces and edges (cost √2 for an edge move).
    Eighteen,
    /// Faces, edges and corners (cost √3 for a corner move).
    #[default]
    TwentySix,
}

/// Options of a voxel query. The diagonal rule applies to multi-axis moves: the
/// *orthogonal neighbours* of a move are the cells reached by each strict, non-empty
/// subset of its axis steps; `Always` ignores them, `NoCornerCutting` needs at least one
/// passable, `BothOrthogonalFree` needs all passable (every voxel of the move's bounding
/// box free, the rule of the Moving AI 3D benchmark).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VoxelOptions {
    /// 6, 18 or 26 neighbours.
    pub connectivity: VoxelConnectivity,
    /// Multi-axis move rule.
    pub diagonal_rule: DiagonalRule,
    /// Heuristic weight (finite, ≥ 0).
    pub heuristic_weight: f64,
    /// Tier-1 iteration cap (0 = unlimited).
    pub iteration_budget: u64,
    /// Record expanded voxels.
    pub record_expansions: bool,
}

impl Default for VoxelOptions {
    fn default() -> Self {
        VoxelOptions {
            connectivity: VoxelConnectivity::TwentySix,
            diagonal_rule: DiagonalRule::BothOrthogonalFree,
            heuristic_weight: 1.0,
            iteration_budget: 0,
            record_expansions: false,
        }
    }
}

/// One move of the neighbourhood.
#[derive(Debug, Clone, Copy)]
struct Move {
    /// Index of the target in the 3 × 3 × 3 neighbourhood.
    cell: u8,
    /// Axes moved minus one (0: unit, 1: √2, 2: √3).
    class: u8,
    d: [i8; 3],
    /// Neighbourhood bits of the orthogonal neighbours (strict non-empty subsets).
    sides: u32,
}

/// The `via` of the start (reached by no move; above every move index).
const VIA_START: u32 = 31;

/// The moves allowed by the connectivity, in neighbourhood order (z, then y, then x).
fn move_table(connectivity: VoxelConnectivity) -> Vec<Move> {
    let max_axes = match connectivity {
        VoxelConnectivity::Six => 1,
        VoxelConnectivity::Eighteen => 2,
        VoxelConnectivity::TwentySix => 3,
    };
    let bit = |d: [i8; 3]| (d[0] + 1) as u32 + 3 * (d[1] + 1) as u32 + 9 * (d[2] + 1) as u32;
    let mut out = Vec::new();
    for dz in -1i8..=1 {
        for dy in -1i8..=1 {
            for dx in -1i8..=1 {
                let d = [dx, dy, dz];
                let axes = d.iter().filter(|&&v| v != 0).count();
                if axes == 0 || axes > max_axes {
                    continue;
                }
                let mut sides = 0u32;
                for mask in 1u32..7 {
                    let sub = [0, 1, 2].map(|k| if mask >> k & 1 == 1 { d[k] } else { 0 });
                    let uses_moved_axes_only = (0..3).all(|k| mask >> k & 1 == 0 || d[k] != 0);
                    if uses_moved_axes_only && sub != d {
                        sides |= 1 << bit(sub);
                    }
                }
                out.push(Move {
                    cell: bit(d) as u8,
                    class: (axes - 1) as u8,
                    d,
                    sides,
                });
            }
        }
    }
    out
}

/// The sign of p + q√2 (exact; |p|, |q| < 2^125).
fn sign_sqrt2(p: i128, q: i128) -> Ordering {
    match (p.cmp(&0), q.cmp(&0)) {
        (Ordering::Equal, s) | (s, Ordering::Equal) => s,
        (a, b) if a == b => a,
        (a, _) => {
            // Opposite signs: |p| against |q|√2, i.e. p² against 2q².
            let pp = wide_square(p.unsigned_abs(), 1);
            let qq = wide_square(q.unsigned_abs(), 2);
            match pp.cmp(&qq) {
                Ordering::Greater => a,
                Ordering::Less => a.reverse(),
                Ordering::Equal => Ordering::Equal,
            }
        }
    }
}

/// k·v² as a 256-bit (high, low) pair, for v < 2^126 and k ≤ 2.
fn wide_square(v: u128, k: u128) -> (u128, u128) {
    let w = v * k; // < 2^127
    let (a0, a1) = (v & u128::from(u64::MAX), v >> 64);
    let (b0, b1) = (w & u128::from(u64::MAX), w >> 64);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let mid = (p00 >> 64) + (p01 & u128::from(u64::MAX)) + (p10 & u128::from(u64::MAX));
    let lo = (p00 & u128::from(u64::MAX)) | (mid << 64);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (hi, lo)
}

/// The exact sign of p + q√2 + r√3 for |p|, |q|, |r| < 2^34.
///
/// First the f64 value: its error is below (|p| + 2|q| + 2|r|)·2^-51 (the constants
/// √2 and √3 are within 2^-53 relative, each product and sum adds a relative 2^-53),
/// so a value farther from 0 than twice that has the right sign. Nearer 0, exactly: with
/// A = p + q√2 and B = r√3, signs that agree (or a zero) decide; otherwise |A| against
/// |B| is the sign of A² − B² = (p² + 2q² − 3r²) + 2pq·√2, again the sign of m + n√2,
/// decided by comparing m² with 2n² in 256 bits. 1, √2 and √3 are linearly independent
/// over the rationals, so the value is 0 only when p = q = r = 0.
#[inline]
pub(crate) fn sign_steps(p: i64, q: i64, r: i64) -> Ordering {
    if p == 0 && q == 0 && r == 0 {
        return Ordering::Equal;
    }
    let v = p as f64 + q as f64 * SQRT_2 + r as f64 * SQRT_3;
    let bound = (p.unsigned_abs() + 2 * q.unsigned_abs() + 2 * r.unsigned_abs()) as f64
        * (1.0 / (1u64 << 50) as f64);
    if v > bound {
        return Ordering::Greater;
    }
    if v < -bound {
        return Ordering::Less;
    }
    exact_sign_steps(p, q, r)
}

/// [`sign_steps`] without the f64 shortcut.
#[inline(never)]
fn exact_sign_steps(p: i64, q: i64, r: i64) -> Ordering {
    let (p, q, r) = (i128::from(p), i128::from(q), i128::from(r));
    let a = sign_sqrt2(p, q);
    let b = r.cmp(&0);
    if a == Ordering::Equal || a == b {
        return b.then(a);
    }
    if b == Ordering::Equal {
        return a;
    }
    // Opposite signs: whichever of |A| and |B| is larger.
    match sign_sqrt2(p * p + 2 * q * q - 3 * r * r, 2 * p * q) {
        Ordering::Less => b,
        _ => a,
    }
}

/// Compares the costs a + b√2 + c√3 of two step counts exactly.
#[inline]
pub(crate) fn cmp_steps(x: [u64; 3], y: [u64; 3]) -> Ordering {
    sign_steps(
        x[0] as i64 - y[0] as i64,
        x[1] as i64 - y[1] as i64,
        x[2] as i64 - y[2] as i64,
    )
}

/// How a mode keeps a cost so far.
trait Cost: Copy + Default + PartialEq + std::fmt::Debug {
    /// The estimate's representation.
    type H: Copy + std::fmt::Debug;
    /// Whether [`Cost::step`] reads the multiplier.
    const MULTIPLIED: bool;
    /// `self` plus one move of `class` into a voxel of multiplier `mult`.
    fn step(self, class: u8, mult: f64) -> Self;
    /// True when `self` is a strictly smaller cost than `other`.
    fn less(self, other: Self) -> bool;
    /// f order of (g, h) pairs, then the larger g first.
    fn key_cmp(a: (Self, Self::H), b: (Self, Self::H)) -> Ordering;
    /// The cost as an f64 (times `scale`).
    fn value(self, scale: f64) -> f64;
}

/// Exact mode: step counts (unit, √2, √3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Steps([u32; 3]);

impl Steps {
    #[inline]
    fn wide(self) -> [u64; 3] {
        self.0.map(u64::from)
    }
}

impl Cost for Steps {
    type H = Steps;
    const MULTIPLIED: bool = false;

    #[inline(always)]
    fn step(self, class: u8, _mult: f64) -> Self {
        // No indexing by `class`: the counts stay in registers.
        let [a, b, c] = self.0;
        Steps([
            a.saturating_add(u32::from(class == 0)),
            b.saturating_add(u32::from(class == 1)),
            c.saturating_add(u32::from(class == 2)),
        ])
    }

    #[inline(always)]
    fn less(self, other: Self) -> bool {
        let [a, b, c] = self.0;
        let [x, y, z] = other.0;
        if a <= x && b <= y && c <= z {
            return self != other;
        }
        if a >= x && b >= y && c >= z {
            return false;
        }
        cmp_steps(self.wide(), other.wide()) == Ordering::Less
    }

    #[inline]
    fn key_cmp(a: (Self, Steps), b: (Self, Steps)) -> Ordering {
        let fa = [0, 1, 2].map(|k| u64::from(a.0 .0[k]) + u64::from(a.1 .0[k]));
        let fb = [0, 1, 2].map(|k| u64::from(b.0 .0[k]) + u64::from(b.1 .0[k]));
        if fa != fb {
            let o = cmp_steps(fa, fb);
            if o != Ordering::Equal {
                return o;
            }
        }
        if a.0 == b.0 {
            return Ordering::Equal;
        }
        cmp_steps(b.0.wide(), a.0.wide())
    }

    fn value(self, scale: f64) -> f64 {
        let [a, b, c] = self.0.map(f64::from);
        (a + b * SQRT_2 + c * SQRT_3) * scale
    }
}

/// f64 mode: sums of move costs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Sum(f64);

impl Cost for Sum {
    type H = f64;
    const MULTIPLIED: bool = true;

    #[inline]
    fn step(self, class: u8, mult: f64) -> Self {
        let base = match class {
            0 => 1.0,
            1 => SQRT_2,
            _ => SQRT_3,
        };
        Sum(self.0 + base * mult)
    }

    #[inline]
    fn less(self, other: Self) -> bool {
        self.0 < other.0
    }

    #[inline]
    fn key_cmp(a: (Self, f64), b: (Self, f64)) -> Ordering {
        let (fa, fb) = (a.0 .0 + a.1, b.0 .0 + b.1);
        fa.total_cmp(&fb).then(b.0 .0.total_cmp(&a.0 .0))
    }

    fn value(self, _scale: f64) -> f64 {
        self.0
    }
}

/// Record of a voxel the current search touched (20 bytes in exact mode).
#[derive(Debug, Clone, Copy, Default)]
struct Rec<G> {
    g: G,
    /// Bits 0–25: the moves (bit k for move k of the table) that reached the voxel at its
    /// cost so far, bit 26 ([`START_BIT`]) for the start; bits 27–31: the index of the
    /// first of them ([`VIA_START`] for the start). 0: untouched.
    dirs: u32,
    /// Bits 0–25: the moves its expansions generated so far (a move generated again at
    /// the same cost changes nothing, so an expansion for a later arrival skips them);
    /// [`EXPANDED`]; [`QUEUED`].
    flags: u32,
}

impl<G> Rec<G> {
    /// A record reached first by move `via` (or [`VIA_START`]) with `dirs` at cost `g`,
    /// queued.
    #[inline]
    fn reached(g: G, via: u32, dirs: u32) -> Rec<G> {
        Rec {
            g,
            dirs: dirs | via << 27,
            flags: QUEUED,
        }
    }

    /// The index of the first move that reached it at its cost ([`VIA_START`]: none).
    #[inline]
    fn via(&self) -> usize {
        (self.dirs >> 27) as usize
    }
}

/// The moves of `dirs` or `flags`.
const MOVE_BITS: u32 = (1 << 26) - 1;
/// The `dirs` bit of the start (no move reached it: every move leaves it).
const START_BIT: u32 = 1 << 26;
/// `flags`: expanded at least once (without pruning: closed).
const EXPANDED: u32 = 1 << 30;
/// `flags`: an entry of the voxel's current cost is in the open list and not yet popped.
const QUEUED: u32 = 1 << 31;

/// Canonical pruning of 26-connected moves under the bounding-box rule (exact mode).
///
/// A voxel n reached by move d from p = n − d generates move m (t = n + m) when m is
/// *natural* for d (every axis step of m is one of d's: m ⊆ d) or when the *canonical
/// alternative* from p to t is blocked. With v = d + m, the alternative is the single
/// move v when every |v_k| ≤ 1 (strictly cheaper than d then m: √k ≤ √3 < 2), else
/// a = sign(v) then v − a (the free-space optimum for v); it needs every voxel of its
/// moves' bounding boxes free, all of them inside n's 3 × 3 × 3 neighbourhood (p and t
/// are, and the alternative is monotone between them), so the test is one mask.
///
/// Why no optimal cost is lost: take any optimal path and, wherever two consecutive moves
/// (d, m) are neither natural nor blocked, replace them by the alternative. A strictly
/// cheaper alternative cannot occur on an optimal path; an equal one keeps the cost and
/// the number of moves, and its first move a moves on more axes than d (m cancels no
/// step of d, or the free alternative would be cheaper, so m has an axis d lacks), so the
/// sequence of
/// move classes grows lexicographically: the replacements end, on an optimal path whose
/// every pair is natural or blocked, which the pruned search keeps. Since moves tie,
/// a record keeps every move that reached it at its cost (`dirs`) and a voxel is expanded
/// again for a move that arrives after its expansion at the same cost.
#[derive(Debug, Clone)]
struct Prune {
    /// Per move d: the moves natural for it (bits by move index).
    natural: [u32; 26],
    /// Per d and neighbourhood cell c: the moves m whose canonical alternative needs c
    /// free (built from, per (d, m), the cells the alternative needs free, none when m
    /// returns to p: always pruned), so the moves a wall unprunes are one lookup per wall
    /// of the neighbourhood instead of one test per move.
    blocked_by: [[u32; 27]; 26],
}

impl Prune {
    /// The tables for the 26-move table `moves`.
    fn new(moves: &[Move]) -> Prune {
        let cell = |v: [i8; 3]| (v[0] + 1) as u32 + 3 * (v[1] + 1) as u32 + 9 * (v[2] + 1) as u32;
        // Every voxel of the bounding box of the move `a` from `from`.
        let bbox = |from: [i8; 3], a: [i8; 3]| {
            let mut out = 0u32;
            for mask in 0u32..8 {
                let s = [0, 1, 2].map(|k| if mask >> k & 1 == 1 { a[k] } else { 0 });
                out |= 1 << cell([0, 1, 2].map(|k| from[k] + s[k]));
            }
            out
        };
        let mut natural = [0u32; 26];
        let mut alternative = [[0u32; 26]; 26];
        for (i, d) in moves.iter().enumerate() {
            let p = d.d.map(|v| -v);
            for (j, m) in moves.iter().enumerate() {
                if (0..3).all(|k| m.d[k] == 0 || m.d[k] == d.d[k]) {
                    natural[i] |= 1 << j;
                }
                let v = [0, 1, 2].map(|k| d.d[k] + m.d[k]);
                alternative[i][j] = if v == [0; 3] {
                    0
                } else if v.iter().all(|c| c.abs() <= 1) {
                    bbox(p, v)
                } else {
                    let a = v.map(i8::signum);
                    let w = [0, 1, 2].map(|k| p[k] + a[k]);
                    bbox(p, a) | bbox(w, [0, 1, 2].map(|k| v[k] - a[k]))
                };
            }
        }
        let mut blocked_by = [[0u32; 27]; 26];
        for (row, alt) in blocked_by.iter_mut().zip(&alternative) {
            for (j, &need) in alt.iter().enumerate() {
                for (c, cell) in row.iter_mut().enumerate() {
                    *cell |= (need >> c & 1) << j;
                }
            }
        }
        Prune {
            natural,
            blocked_by,
        }
    }

    /// The moves a voxel reached by the moves `pending` (or the start) generates, among
    /// `allowed`, with `free` the free cells of its neighbourhood.
    #[inline]
    fn successors(&self, pending: u32, allowed: u32, free: u32) -> u32 {
        if pending & START_BIT != 0 {
            return allowed;
        }
        // A move m is unpruned by d when some cell its alternative needs is a wall.
        let walls = !free & ((1 << 27) - 1);
        let mut out = 0u32;
        let mut rest = pending;
        while rest != 0 {
            let d = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let (Some(&nat), Some(by)) = (self.natural.get(d), self.blocked_by.get(d)) else {
                continue;
            };
            out |= nat;
            let mut w = walls;
            while w != 0 {
                let c = w.trailing_zeros() as usize;
                w &= w - 1;
                out |= by.get(c).copied().unwrap_or(0);
            }
        }
        out & allowed
    }
}

/// An open-list entry: its order is the pop order (std's heap is a max-heap, so the
/// entry that pops first is the greatest); the voxel's cost so far is read from its
/// record when it pops (the first entry of a voxel to pop is the one of its current cost:
/// a later improvement has the same estimate and a smaller cost, so it comes first).
trait OpenEntry<G: Cost>: Ord + Copy + std::fmt::Debug {
    /// The entry of `node` (as [`OpenEntry::pack`] gives it) with cost so far `g` and
    /// estimate `h`.
    fn new(g: G, h: G::H, node: u32, q: &Query) -> Self;
    /// Its node, packed.
    fn node(&self) -> u32;
    /// The node of voxel `t` as the entry holds it: an order of nodes that is the order
    /// of their indexes `x + sx·(y + sy·z)` (the last tie-break).
    fn pack(t: (u32, u32, u32), q: &Query) -> u32;
    /// The voxel of a packed node.
    fn unpack(node: u32, q: &Query) -> (u32, u32, u32);
}

/// An entry that keeps its cost and estimate and compares them with [`Cost::key_cmp`].
#[derive(Debug, Clone, Copy)]
struct Entry<G: Cost> {
    g: G,
    h: G::H,
    node: u32,
}

impl<G: Cost> PartialEq for Entry<G> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<G: Cost> Eq for Entry<G> {}
impl<G: Cost> PartialOrd for Entry<G> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<G: Cost> Ord for Entry<G> {
    fn cmp(&self, other: &Self) -> Ordering {
        G::key_cmp((other.g, other.h), (self.g, self.h)).then(other.node.cmp(&self.node))
    }
}

impl<G: Cost> OpenEntry<G> for Entry<G> {
    #[inline]
    fn new(g: G, h: G::H, node: u32, _q: &Query) -> Self {
        Entry { g, h, node }
    }
    #[inline]
    fn node(&self) -> u32 {
        self.node
    }
    #[inline]
    fn pack(t: (u32, u32, u32), q: &Query) -> u32 {
        t.0 + q.size[0] * (t.1 + q.size[1] * t.2)
    }
    #[inline]
    fn unpack(node: u32, q: &Query) -> (u32, u32, u32) {
        xyz(q.size, node)
    }
}

/// ⌊√2 · 2^127⌋.
const SQRT2_127: u128 = 0xb504_f333_f9de_6484_597d_89b3_754a_be9f;
/// ⌊√3 · 2^127⌋.
const SQRT3_127: u128 = 0xddb3_d742_c265_539d_92ba_16b8_3c5c_1dc4;

/// Grids whose voxel count plus the three sizes stays below this use [`FixedEntry`].
const FIXED_LIMIT: u64 = 1 << 28;

/// The fixed-point scale of [`FixedEntry`] keys for a grid: `S = 3·⌈log2 N⌉ + 8` where
/// N = voxels + size x + size y + size z bounds every step count of a cost so far (a
/// cost so far counts the steps of a path without repeated voxels) or of an estimate
/// plus one (each count at most the sum of the sizes), so N also bounds every count of
/// an f. With `R_k = round(√k · 2^(S+32))`: `r2`, `r3`.
#[derive(Debug, Clone, Copy, Default)]
struct FixedScale {
    s: u32,
    r2: u128,
    r3: u128,
}

impl FixedScale {
    /// The scale for a grid of `size`, or `None` when N ≥ 2^28.
    fn of(size: [u32; 3]) -> Option<FixedScale> {
        let n = size.iter().map(|&v| u64::from(v)).product::<u64>()
            + size.iter().map(|&v| u64::from(v)).sum::<u64>();
        if n >= FIXED_LIMIT {
            return None;
        }
        let bits = 64 - (n - 1).leading_zeros(); // ⌈log2 n⌉, n ≥ 4
        let s = 3 * bits + 8; // ≤ 92
        let shift = 95 - s; // R at 2^(s+32) from the constants at 2^127
        let round = |c: u128| (c >> shift) + (c >> (shift - 1) & 1);
        Some(FixedScale {
            s,
            r2: round(SQRT2_127),
            r3: round(SQRT3_127),
        })
    }

    /// round(v · R / 2^32) for v < 2^28 and R < 2^125: two 64 × 64-bit products.
    #[inline(always)]
    fn times(v: u32, r: u128) -> u128 {
        let v = u128::from(v);
        let (hi, lo) = (r >> 64, r & u128::from(u64::MAX));
        ((v * hi) << 32) + ((v * lo + (1 << 31)) >> 32)
    }

    /// K(a, b, c) = a·2^S + round(b√2·2^S) + round(c√3·2^S) (each rounding within
    /// 1/2 + 2^-4 units: R_k is within 1 of √k·2^(S+32), and b/2^32 < 2^-4).
    ///
    /// Why it orders exactly: two different counts whose differences p, q, r are at most
    /// N have |p + q√2 + r√3| ≥ 1/(4.1464·N)^3 (the product of the value's four
    /// conjugates p ± q√2 ± r√3 is a non-zero integer, 1, √2 and √3 being independent
    /// over the rationals, and each of the other three is at most N(1 + √2 + √3)), so
    /// their keys differ by at least 2^S/(71.29·N^3) − 2.25 ≥ 256/71.29 − 2.25 > 1.3 units,
    /// with the sign of the real difference; equal counts have equal keys. The key is below
    /// 4.15·2^28·2^92 < 2^123.
    #[inline(always)]
    fn key(&self, t: [u32; 3]) -> u128 {
        (u128::from(t[0]) << self.s) + Self::times(t[1], self.r2) + Self::times(t[2], self.r3)
    }
}

/// The exact order of estimates by their step counts, as u64 keys (the tie-break of
/// [`FixedEntry`] on equal f: on an exactly equal f, the larger g is the smaller
/// estimate h = f − g, so ordering by h gives the same pops as ordering by g).
///
/// `K(a, b, c) = a·2^E + b·B + c·C` with `B = round(√2·2^E)`, `C = round(√3·2^E)`: linear,
/// no rounding of its own. An estimate's counts are sums of axis distances, each below
/// M = the sum of the three sizes, so two different counts differ by p, q, r with |p|, |q|, |r| < M and
/// |p + q√2 + r√3| ≥ 1/(4.1464·M)^3 (the argument of [`FixedScale::key`]); their keys
/// differ by that times 2^E, within |q| + |r| < 2M (B and C are within 1 of √2·2^E and
/// √3·2^E), so `2^E ≥ 143·M^4 > 2M·(4.1464·M)^3` gives the sign of the real difference;
/// equal counts have equal keys. Keys stay below 5·M·2^E, checked to fit in 64 bits.
#[derive(Debug, Clone, Copy, Default)]
struct EstimateScale {
    e: u32,
    b: u64,
    c: u64,
}

impl EstimateScale {
    /// The scale for a grid of `size`, or `None` when 5·M·2^E does not fit in 64 bits
    /// (sizes summing to more than about 1 600).
    fn of(size: [u32; 3]) -> Option<EstimateScale> {
        let m = size.iter().map(|&v| u128::from(v)).sum::<u128>().max(1);
        let need = m.checked_pow(4)?.checked_mul(143)?;
        let e = 128 - (need - 1).leading_zeros(); // ⌈log2 need⌉
        if e > 63 || m.checked_mul(5)?.checked_shl(e)? > u128::from(u64::MAX) {
            return None;
        }
        let shift = 127 - e; // ≥ 64
        let round = |c: u128| ((c >> shift) + (c >> (shift - 1) & 1)) as u64;
        Some(EstimateScale {
            e,
            b: round(SQRT2_127),
            c: round(SQRT3_127),
        })
    }

    /// K(t) (t's counts below M).
    #[inline(always)]
    fn key(&self, t: [u32; 3]) -> u64 {
        (u64::from(t[0]) << self.e) + u64::from(t[1]) * self.b + u64::from(t[2]) * self.c
    }
}

/// The tie-break of a [`FixedEntry`] on equal f: the greater pops first.
trait Tie: Ord + Copy + std::fmt::Debug {
    /// The tie key of cost so far `g` and estimate `h`.
    fn of(g: Steps, h: Steps, q: &Query) -> Self;
}

/// The estimate's key, reversed (the smaller estimate, i.e. the larger g, first).
impl Tie for u64 {
    #[inline(always)]
    fn of(_g: Steps, h: Steps, q: &Query) -> Self {
        u64::MAX - q.estimate.key(h.0)
    }
}

/// g's fixed-point key (grids too large for [`EstimateScale`]): the larger g first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct GKey([u64; 2]);

impl PartialOrd for GKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for GKey {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        let wide = |v: [u64; 2]| u128::from(v[0]) << 64 | u128::from(v[1]);
        wide(self.0).cmp(&wide(other.0))
    }
}

impl Tie for GKey {
    #[inline(always)]
    fn of(g: Steps, _h: Steps, q: &Query) -> Self {
        let v = q.fixed.key(g.0);
        GKey([(v >> 64) as u64, v as u64])
    }
}

/// The entry of exact mode on grids below [`FIXED_LIMIT`]: the fixed-point key of f (see
/// [`FixedScale::key`]) compared as an integer, then the tie key `T` (the larger g: by
/// the estimate's key when the grid allows it, 32 bytes an entry, else by g's), then the
/// smaller node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FixedEntry<T> {
    f: [u64; 2],
    tie: T,
    node: u32,
}

impl<T: Tie> PartialOrd for FixedEntry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: Tie> Ord for FixedEntry<T> {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        // As u128s (two word compares, not a slice comparison), the later keys only on
        // a tie.
        let wide = |v: [u64; 2]| u128::from(v[0]) << 64 | u128::from(v[1]);
        let (fa, fb) = (wide(other.f), wide(self.f));
        if fa != fb {
            return fa.cmp(&fb);
        }
        if self.tie != other.tie {
            return self.tie.cmp(&other.tie);
        }
        other.node.cmp(&self.node)
    }
}

impl<T: Tie> OpenEntry<Steps> for FixedEntry<T> {
    #[inline]
    fn new(g: Steps, h: Steps, node: u32, q: &Query) -> Self {
        let f = [0, 1, 2].map(|k| g.0[k] + h.0[k]); // each below N < 2^28
        let v = q.fixed.key(f);
        FixedEntry {
            f: [(v >> 64) as u64, v as u64],
            tie: T::of(g, h, q),
            node,
        }
    }
    #[inline]
    fn node(&self) -> u32 {
        self.node
    }
    /// Bit fields `x | y << bx | z << (bx + by)` with `bx = ⌈log2 sx⌉`, `by = ⌈log2 sy⌉`
    /// (no division when it pops). Both this and the index order nodes by z, then y,
    /// then x (x < 2^bx, y < 2^by), so the tie-break is the same; the fields fit in 32
    /// bits as the grid has fewer than 2^28 voxels (the three roundings up add less than
    /// 3 bits).
    #[inline]
    fn pack(t: (u32, u32, u32), q: &Query) -> u32 {
        t.0 | t.1 << q.pack[0] | t.2 << q.pack[1]
    }
    #[inline]
    fn unpack(node: u32, q: &Query) -> (u32, u32, u32) {
        let [bx, bxy] = q.pack;
        (
            node & ((1 << bx) - 1),
            (node >> bx) & ((1 << (bxy - bx)) - 1),
            node >> bxy,
        )
    }
}

/// The open list: a 4-ary max-heap and a *held* entry that comes before every entry
/// of the heap (along a plateau the successor that pops next is usually the one just
/// pushed: holding it saves its push and pop through the heap). The pop order is the
/// heap's order over all entries, held or not.
#[derive(Debug, Clone)]
struct OpenList<E> {
    heap: QuadHeap<E>,
    held: Option<E>,
}

impl<E: Ord + Copy> OpenList<E> {
    fn clear(&mut self) {
        self.heap.clear();
        self.held = None;
    }

    #[inline(always)]
    fn push(&mut self, e: E) {
        match self.held {
            Some(h) if e > h => {
                self.heap.push(h);
                self.held = Some(e);
            }
            Some(_) => self.heap.push(e),
            None => match self.heap.peek() {
                Some(top) if *top >= e => self.heap.push(e),
                _ => self.held = Some(e),
            },
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<E> {
        self.held.take().or_else(|| self.heap.pop())
    }

    fn capacity(&self) -> usize {
        self.heap.capacity() + 1
    }
}

/// The engine of one mode.
#[derive(Debug, Clone)]
struct Engine<G: Cost, E> {
    records: PagedRecords<Rec<G>>,
    open: OpenList<E>,
}

impl<G: Cost, E: Ord + Copy> Default for Engine<G, E> {
    fn default() -> Self {
        Engine {
            records: PagedRecords::default(),
            open: OpenList {
                heap: QuadHeap::default(),
                held: None,
            },
        }
    }
}

/// What a search fixes at `begin`.
#[derive(Debug, Clone, Copy, Default)]
struct Query {
    size: [u32; 3],
    start: (u32, u32, u32),
    goal: (u32, u32, u32),
    /// Exact mode: the common multiplier; f64 mode: weight × smallest multiplier.
    scale: f64,
    status: SearchStatus,
    expanded: u32,
    iterations: u32,
    /// The goal's cost so far once found.
    cost: f64,
    /// The scale of fixed-point keys (exact mode on grids below [`FIXED_LIMIT`]).
    fixed: FixedScale,
    /// [`FixedEntry`]'s packed nodes: the shifts of y and z (`⌈log2 sx⌉`,
    /// `⌈log2 sx⌉ + ⌈log2 sy⌉`).
    pack: [u32; 2],
    /// The scale of estimate keys ([`Mode::Exact`]).
    estimate: EstimateScale,
}

/// ⌈log2 v⌉ for v ≥ 1.
fn ceil_log2(v: u32) -> u32 {
    32 - v.saturating_sub(1).leading_zeros()
}

/// Sorted axis distances (lo, mid, hi) between two voxels.
#[inline]
fn sorted_distances(a: (u32, u32, u32), b: (u32, u32, u32)) -> [u32; 3] {
    let mut d = [a.0.abs_diff(b.0), a.1.abs_diff(b.1), a.2.abs_diff(b.2)];
    if d[0] > d[1] {
        d.swap(0, 1);
    }
    if d[1] > d[2] {
        d.swap(1, 2);
    }
    if d[0] > d[1] {
        d.swap(0, 1);
    }
    d
}

/// The least step counts between two voxels through free space: 6 — lo + mid + hi unit
/// steps; 18 — (lo + mid) √2 steps and hi − lo − mid unit steps when hi ≥ lo + mid,
/// else ⌊T/2⌋ √2 steps and T mod 2 unit steps (T = lo + mid + hi); 26 — lo √3 steps,
/// mid − lo √2 steps, hi − mid unit steps. A distance of the lattice, so consistent.
#[inline]
fn estimate_steps(c: VoxelConnectivity, a: (u32, u32, u32), b: (u32, u32, u32)) -> Steps {
    let [lo, mid, hi] = sorted_distances(a, b);
    match c {
        VoxelConnectivity::Six => Steps([lo.saturating_add(mid).saturating_add(hi), 0, 0]),
        VoxelConnectivity::Eighteen => {
            let pair = lo + mid; // each below 2^31 (the grid has at most i32::MAX voxels)
            if hi >= pair {
                Steps([hi - pair, pair, 0])
            } else {
                let t = u64::from(pair) + u64::from(hi);
                Steps([(t % 2) as u32, (t / 2) as u32, 0])
            }
        }
        VoxelConnectivity::TwentySix => Steps([hi - mid, mid - lo, lo]),
    }
}

/// The estimate of f64 mode: the step counts' cost times weight × smallest multiplier.
#[inline]
fn estimate_sum(c: VoxelConnectivity, a: (u32, u32, u32), b: (u32, u32, u32), scale: f64) -> f64 {
    if scale == 0.0 {
        return 0.0;
    }
    estimate_steps(c, a, b).value(1.0) * scale
}

impl<G: Cost, E: OpenEntry<G>> Engine<G, E> {
    fn begin(&mut self, q: &Query, start_h: G::H) {
        self.records.reset(q.size);
        self.open.clear();
        let (x, y, z) = q.start;
        if let Some(r) = self.records.get_mut(x, y, z) {
            *r = Rec::reached(G::default(), VIA_START, START_BIT);
            self.open
                .push(E::new(G::default(), start_h, E::pack(q.start, q), q));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        grid: &VoxelGrid,
        q: &mut Query,
        moves: &[Move],
        rule: DiagonalRule,
        prune: Option<&Prune>,
        record: &mut Option<Vec<u32>>,
        max_iterations: u64,
        h: impl Fn((u32, u32, u32)) -> G::H,
    ) {
        let mut done = 0u64;
        let [sx, sy, _] = q.size;
        let mut needs = [0u32; 26];
        for (n, m) in needs.iter_mut().zip(moves) {
            *n = match rule {
                DiagonalRule::BothOrthogonalFree => (1 << m.cell) | m.sides,
                _ => 1 << m.cell,
            };
        }
        let needs = &needs[..moves.len().min(26)];
        let all_moves = (1u32 << needs.len()) - 1;
        while q.status == SearchStatus::InProgress {
            let Some(top) = self.open.pop() else {
                q.status = SearchStatus::NoPath;
                break;
            };
            let (x, y, z) = E::unpack(top.node(), q);
            let Some(r) = self.records.get_mut_near(x, y, z) else {
                continue;
            };
            if r.flags & QUEUED == 0 {
                continue; // an entry of an older cost, or expanded: dropped, not an iteration
            }
            if done >= max_iterations {
                // Back where it was: it is the first of every entry, so it is held again.
                self.open.push(top);
                break;
            }
            done += 1;
            q.iterations = q.iterations.saturating_add(1);
            r.flags = (r.flags & !QUEUED) | EXPANDED;
            let top_g = r.g;
            if (x, y, z) == q.goal {
                q.cost = top_g.value(q.scale);
                q.status = SearchStatus::Found;
                break;
            }
            // The areas only where a move's cost reads them (f64 mode).
            let areas = G::MULTIPLIED.then(|| grid.neighbourhood(x, y, z));
            let free = grid.free_mask(x, y, z);
            let allowed_of = |candidates: u32| {
                let mut allowed = 0u32;
                let mut rest = candidates;
                if rule == DiagonalRule::NoCornerCutting {
                    while rest != 0 {
                        let k = rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        let Some(m) = moves.get(k) else { break };
                        let ok = free >> m.cell & 1 == 1 && (m.class == 0 || free & m.sides != 0);
                        allowed |= u32::from(ok) << k;
                    }
                } else {
                    // Always: the target free; BothOrthogonalFree: its whole bounding box.
                    while rest != 0 {
                        let k = rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        let Some(&need) = needs.get(k) else { break };
                        allowed |= u32::from(free & need == need) << k;
                    }
                }
                allowed
            };
            let mut next = match prune {
                Some(p) => {
                    // Every arrival: those of earlier expansions generate nothing new. The
                    // moves the pruning keeps, then which of them the rule allows (the same
                    // set as pruning the allowed moves, fewer tests).
                    let arrivals = r.dirs & (MOVE_BITS | START_BIT);
                    let kept = p.successors(arrivals, all_moves, free) & !r.flags & MOVE_BITS;
                    let next = allowed_of(kept);
                    r.flags |= next;
                    next
                }
                None => allowed_of(all_moves),
            };
            q.expanded = q.expanded.saturating_add(1);
            if let Some(list) = record.as_mut() {
                list.push(x + sx * (y + sy * z));
            }
            let cells = if moves.len() == 26 {
                // The 26 moves are the cells but the centre, in cell order.
                (next & ((1 << 13) - 1)) | (next >> 13) << 14
            } else {
                let mut cells = 0u32;
                let mut rest = next;
                while rest != 0 {
                    let k = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    if let Some(m) = moves.get(k) {
                        cells |= 1 << m.cell;
                    }
                }
                cells
            };
            let wanted = PagedRecords::<Rec<G>>::wanted_pages(x, y, z, cells);
            let group = self.records.group_of(x, y, z, wanted);
            while next != 0 {
                let k = next.trailing_zeros() as usize;
                next &= next - 1;
                let Some(m) = moves.get(k) else { break };
                // Inside the grid: the neighbourhood reads outside voxels as walls.
                let t = (
                    x.wrapping_add_signed(i32::from(m.d[0])),
                    y.wrapping_add_signed(i32::from(m.d[1])),
                    z.wrapping_add_signed(i32::from(m.d[2])),
                );
                let mult = match &areas {
                    Some(areas) => grid.areas().get(areas[usize::from(m.cell)]),
                    None => 1.0,
                };
                let Some(r) = self.records.in_group(&group, t.0, t.1, t.2) else {
                    continue;
                };
                let g = top_g.step(m.class, mult);
                let bit = 1u32 << k;
                if r.dirs == 0 || g.less(r.g) {
                    if prune.is_none() && r.flags & EXPANDED != 0 {
                        continue; // closed (without pruning, expanded once)
                    }
                    *r = Rec::reached(g, k as u32, bit);
                } else if prune.is_some() && g == r.g && r.dirs & bit == 0 {
                    // Another move of the same cost: the voxel must generate its
                    // successors too; a new entry only when none is queued.
                    r.dirs |= bit;
                    if r.flags & QUEUED != 0 {
                        continue;
                    }
                    r.flags |= QUEUED;
                } else {
                    continue;
                }
                self.open.push(E::new(g, h(t), E::pack(t, q), q));
            }
        }
    }

    /// The voxels from the start to the goal (the goal's record reached).
    fn path(&self, q: &Query, moves: &[Move]) -> Vec<u32> {
        let [sx, sy, _] = q.size;
        // A path has at least as many voxels as the largest axis distance plus one.
        let [_, _, far] = sorted_distances(q.start, q.goal);
        let mut out = Vec::with_capacity(far as usize + 1);
        let mut p = q.goal;
        let limit = self.records.records_taken();
        loop {
            out.push(p.0 + sx * (p.1 + sy * p.2));
            let r = self.records.get(p.0, p.1, p.2);
            let Some(m) = moves.get(r.via()) else {
                break;
            };
            if out.len() > limit {
                break;
            }
            p = (
                p.0.wrapping_add_signed(-i32::from(m.d[0])),
                p.1.wrapping_add_signed(-i32::from(m.d[1])),
                p.2.wrapping_add_signed(-i32::from(m.d[2])),
            );
        }
        out.reverse();
        out
    }
}

#[inline]
fn xyz(size: [u32; 3], node: u32) -> (u32, u32, u32) {
    let x = node % size[0];
    let r = node / size[0];
    (x, r % size[1], r / size[1])
}

/// Which mode the current search runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Mode {
    /// Exact step counts, fixed-point keys ([`FixedEntry`]), ties by the estimate's key.
    #[default]
    Exact,
    /// As [`Mode::Exact`], ties by g's fixed-point key (sizes summing to more than about
    /// 1 600).
    ExactG,
    /// Exact step counts compared with [`cmp_steps`] (grids of N ≥ 2^28).
    ExactWide,
    /// f64 sums.
    Sum,
}

/// A* on a [`VoxelGrid`] (moves, estimates, keys and memory: the module documentation and
/// `docs/grid-search.md`).
///
/// ```
/// use onepath_gridstate::{GridPathStatus, SlicedSearch, VoxelAStar, VoxelGrid, VoxelOptions, WALL};
///
/// // An empty 32³ box but for one wall: every optimal path across it ties.
/// let mut level = VoxelGrid::new(32, 32, 32, 0).unwrap();
/// level.set_area(5, 5, 5, WALL).unwrap();
/// let mut search = VoxelAStar::new(VoxelOptions::default()).unwrap();
/// let path = search.find_path(&level, (0, 0, 0), (31, 20, 9)).unwrap();
/// assert_eq!(path.status, GridPathStatus::Found);
/// // Exact keys (one multiplier for every area): 9 √3 + 11 √2 + 11 unit steps, and the
/// // search goes straight along the plateau instead of over it.
/// assert!(search.exact_keys());
/// let want = 9.0 * 3f64.sqrt() + 11.0 * 2f64.sqrt() + 11.0;
/// assert!((path.cost - want).abs() < 1e-12);
/// assert_eq!(path.nodes.len(), 32);
/// assert!(path.expanded < 40);
/// ```
#[derive(Debug, Clone)]
pub struct VoxelAStar {
    options: VoxelOptions,
    moves: Vec<Move>,
    /// Canonical pruning tables (26 neighbours, bounding-box rule).
    prune: Option<Prune>,
    mode: Mode,
    query: Query,
    exact: Engine<Steps, FixedEntry<u64>>,
    exact_g: Engine<Steps, FixedEntry<GKey>>,
    wide: Engine<Steps, Entry<Steps>>,
    sum: Engine<Sum, Entry<Sum>>,
    expansions: Option<Vec<u32>>,
    began: Began,
    /// Tests: exact mode compares with [`cmp_steps`] on any grid.
    force_wide: bool,
    /// Tests: exact mode breaks ties by g's key on any grid below [`FIXED_LIMIT`].
    force_g_tie: bool,
    /// Tests: no canonical pruning.
    no_pruning: bool,
}

impl VoxelAStar {
    /// A search with these options.
    pub fn new(options: VoxelOptions) -> Result<Self, GridError> {
        check_weight(options.heuristic_weight)?;
        Ok(VoxelAStar {
            options,
            moves: move_table(options.connectivity),
            prune: (options.connectivity == VoxelConnectivity::TwentySix
                && options.diagonal_rule == DiagonalRule::BothOrthogonalFree)
                .then(|| Prune::new(&move_table(VoxelConnectivity::TwentySix))),
            mode: Mode::Exact,
            query: Query::default(),
            exact: Engine::default(),
            exact_g: Engine::default(),
            wide: Engine::default(),
            sum: Engine::default(),
            expansions: None,
            began: Began::not_begun(),
            force_wide: false,
            force_g_tie: false,
            no_pruning: false,
        })
    }

    /// True when the search begun last compares exact step counts (every area
    /// multiplier equal, heuristic weight 1 or 0); false for f64 sums.
    pub fn exact_keys(&self) -> bool {
        self.mode != Mode::Sum
    }

    /// Bytes the search holds between searches (its page tables and pages, the open
    /// lists' capacity): what the largest search so far touched, not the grid's size.
    pub fn bytes_held(&self) -> usize {
        self.exact.records.bytes_held()
            + self.exact_g.records.bytes_held()
            + self.wide.records.bytes_held()
            + self.sum.records.bytes_held()
            + self.exact.open.capacity() * size_of::<FixedEntry<u64>>()
            + self.exact_g.open.capacity() * size_of::<FixedEntry<GKey>>()
            + self.wide.open.capacity() * size_of::<Entry<Steps>>()
            + self.sum.open.capacity() * size_of::<Entry<Sum>>()
    }
}

/// The key of a voxel grid for the stale check: its version and its area multipliers'.
fn space_key(grid: &VoxelGrid) -> SpaceKey {
    SpaceKey {
        identity: u64::from(grid.areas().version()),
        version: u64::from(grid.version()),
    }
}

/// Sliced A* on a voxel grid; cells as (x, y, z).
impl SlicedSearch<VoxelGrid> for VoxelAStar {
    type Point = (u32, u32, u32);

    fn one_shot_budget(&self) -> u64 {
        crate::searches::sliced::one_shot_cap(self.options.iteration_budget)
    }

    /// Begins a sliced search.
    fn begin(
        &mut self,
        grid: &VoxelGrid,
        start: (u32, u32, u32),
        goal: (u32, u32, u32),
    ) -> Result<(), GridError> {
        grid.index(start.0, start.1, start.2)?;
        grid.index(goal.0, goal.1, goal.2)?;
        let areas = grid.areas();
        let m = areas.multipliers()[0];
        let w = self.options.heuristic_weight;
        let uniform = areas.is_uniform();
        let fixed = FixedScale::of(grid.size()).filter(|_| !self.force_wide);
        let estimate = EstimateScale::of(grid.size()).filter(|_| !self.force_g_tie);
        self.mode = match (uniform && (w == 1.0 || w == 0.0), fixed) {
            (true, Some(_)) if estimate.is_some() => Mode::Exact,
            (true, Some(_)) => Mode::ExactG,
            (true, None) => Mode::ExactWide,
            (false, _) => Mode::Sum,
        };
        self.query = Query {
            size: grid.size(),
            start,
            goal,
            scale: match self.mode {
                Mode::Exact | Mode::ExactG | Mode::ExactWide => m,
                Mode::Sum => w * areas.min_multiplier(),
            },
            status: SearchStatus::InProgress,
            fixed: fixed.unwrap_or_default(),
            pack: {
                let [sx, sy, _] = grid.size();
                [ceil_log2(sx), ceil_log2(sx) + ceil_log2(sy)]
            },
            estimate: estimate.unwrap_or_default(),
            ..Query::default()
        };
        self.expansions = self.options.record_expansions.then(Vec::new);
        let walk =
            |p: (u32, u32, u32)| grid.is_walkable(i64::from(p.0), i64::from(p.1), i64::from(p.2));
        let c = self.options.connectivity;
        let steps = if w == 0.0 {
            Steps::default()
        } else {
            estimate_steps(c, start, goal)
        };
        let q = &self.query;
        match self.mode {
            Mode::Exact => self.exact.begin(q, steps),
            Mode::ExactG => self.exact_g.begin(q, steps),
            Mode::ExactWide => self.wide.begin(q, steps),
            Mode::Sum => self.sum.begin(q, estimate_sum(c, start, goal, q.scale)),
        }
        if !walk(start) || !walk(goal) {
            self.query.status = SearchStatus::NoPath;
        }
        self.began = Began::on(space_key(grid));
        Ok(())
    }

    /// Runs at most `max_iterations` iterations.
    fn step(&mut self, grid: &VoxelGrid, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.began.check(space_key(grid))?;
        let c = self.options.connectivity;
        let goal = self.query.goal;
        let rule = self.options.diagonal_rule;
        let zero = self.options.heuristic_weight == 0.0;
        let steps = move |t| {
            if zero {
                Steps::default()
            } else {
                estimate_steps(c, t, goal)
            }
        };
        let (q, moves, rec) = (&mut self.query, &self.moves, &mut self.expansions);
        let prune = self.prune.as_ref().filter(|_| !self.no_pruning);
        match self.mode {
            Mode::Exact => self
                .exact
                .step(grid, q, moves, rule, prune, rec, max_iterations, steps),
            Mode::ExactG => {
                self.exact_g
                    .step(grid, q, moves, rule, prune, rec, max_iterations, steps)
            }
            Mode::ExactWide => {
                self.wide
                    .step(grid, q, moves, rule, prune, rec, max_iterations, steps)
            }
            Mode::Sum => {
                let scale = q.scale;
                self.sum
                    .step(grid, q, moves, rule, None, rec, max_iterations, |t| {
                        estimate_sum(c, t, goal, scale)
                    })
            }
        }
        Ok(self.query.status)
    }

    /// The result so far.
    fn result(&self) -> Result<GridPath, GridError> {
        self.began.begun()?;
        let q = &self.query;
        let status = GridPathStatus::of(q.status);
        let found = status == GridPathStatus::Found;
        Ok(GridPath {
            status,
            nodes: match (found, self.mode) {
                (false, _) => Vec::new(),
                (true, Mode::Exact) => self.exact.path(q, &self.moves),
                (true, Mode::ExactG) => self.exact_g.path(q, &self.moves),
                (true, Mode::ExactWide) => self.wide.path(q, &self.moves),
                (true, Mode::Sum) => self.sum.path(q, &self.moves),
            },
            cost: if found { q.cost } else { 0.0 },
            expanded: q.expanded,
            iterations: q.iterations,
            expansions: self.expansions.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spaces::area::WALL;

    #[test]
    fn wide_square_is_the_full_product() {
        assert_eq!(wide_square(1 << 69, 1), (1 << 10, 0));
        assert_eq!(wide_square(1 << 69, 2), (1 << 11, 0));
        let v = (1u128 << 64) + 3;
        // (2^64 + 3)² = 2^128 + 6·2^64 + 9.
        assert_eq!(wide_square(v, 1), (1, (6u128 << 64) + 9));
        assert_eq!(wide_square(u128::from(u64::MAX), 1).0, 0);
    }

    #[test]
    fn exact_sign_agrees_with_f64_where_the_value_is_far_from_zero() {
        for p in -12i64..=12 {
            for q in -12i64..=12 {
                for r in -12i64..=12 {
                    let v = p as f64 + q as f64 * SQRT_2 + r as f64 * SQRT_3;
                    let want = if v.abs() < 1e-9 {
                        Ordering::Equal
                    } else if v > 0.0 {
                        Ordering::Greater
                    } else {
                        Ordering::Less
                    };
                    assert_eq!(exact_sign_steps(p, q, r), want, "{p} {q} {r}");
                    assert_eq!(sign_steps(p, q, r), want, "{p} {q} {r}");
                }
            }
        }
    }

    #[test]
    fn near_ties_are_ordered_exactly() {
        // Pell: 665857² − 2·470832² = 1, so 665857 − 470832√2 ≈ 7.5e-7 > 0.
        assert_eq!(sign_sqrt2(665_857, -470_832), Ordering::Greater);
        assert_eq!(sign_sqrt2(-665_857, 470_832), Ordering::Less);
        // Near 2^33: 10 812 186 007² − 2·7 645 370 045² = −1, so p + q√2 ≈ −4.6e-11, far
        // below the f64 rounding of terms near 10^10: the exact branch decides.
        let (p, q) = (10_812_186_007i64, -7_645_370_045i64);
        assert_eq!(sign_steps(p, q, 0), Ordering::Less);
        assert_eq!(sign_steps(-p, -q, 0), Ordering::Greater);
        assert_eq!(exact_sign_steps(p, q, 0), Ordering::Less);
        assert_eq!(
            exact_sign_steps(4_478_554_083, -3_166_815_962, 0),
            Ordering::Greater
        );
        // With √3: r√3 against the same near-zero pair.
        assert_eq!(exact_sign_steps(p, q, 1), Ordering::Greater);
        assert_eq!(exact_sign_steps(p, q, -1), Ordering::Less);
    }

    #[test]
    fn the_move_table_holds_the_bounding_box_sides() {
        let t = move_table(VoxelConnectivity::TwentySix);
        assert_eq!(t.len(), 26);
        let corner = t.iter().find(|m| m.d == [1, 1, 1]).unwrap();
        assert_eq!((corner.class, corner.sides.count_ones()), (2, 6));
        let edge = t.iter().find(|m| m.d == [1, -1, 0]).unwrap();
        assert_eq!((edge.class, edge.sides.count_ones()), (1, 2));
        assert_eq!(move_table(VoxelConnectivity::Eighteen).len(), 18);
        assert_eq!(move_table(VoxelConnectivity::Six).len(), 6);
    }

    #[test]
    fn the_18_estimate_is_the_free_space_distance() {
        let e = |d: (u32, u32, u32)| estimate_steps(VoxelConnectivity::Eighteen, (0, 0, 0), d).0;
        assert_eq!(e((5, 1, 1)), [3, 2, 0]);
        assert_eq!(e((2, 2, 2)), [0, 3, 0]);
        assert_eq!(e((3, 2, 2)), [1, 3, 0]);
    }

    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// A grid of `size` with up to `max_walls` % walls (the share drawn first) and two
    /// voxels of it, all from `next`.
    fn random_case(
        next: &mut impl FnMut() -> u64,
        size: [u32; 3],
        max_walls: u64,
    ) -> (VoxelGrid, (u32, u32, u32), (u32, u32, u32)) {
        let mut g = VoxelGrid::new(size[0], size[1], size[2], 0).unwrap();
        let walls = next() % max_walls;
        for z in 0..size[2] {
            for y in 0..size[1] {
                for x in 0..size[0] {
                    if next() % 100 < walls {
                        g.set_area(x, y, z, WALL).unwrap();
                    }
                }
            }
        }
        let mut pt = || [0, 1, 2].map(|k| (next() % u64::from(size[k])) as u32);
        let (s, t) = (pt(), pt());
        (g, (s[0], s[1], s[2]), (t[0], t[1], t[2]))
    }

    #[test]
    fn fixed_point_keys_pop_in_the_order_of_the_exact_comparison() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
        for case in 0..40u32 {
            let size = [
                3 + (next() % 12) as u32,
                3 + (next() % 12) as u32,
                3 + (next() % 12) as u32,
            ];
            let (g, s, t) = random_case(&mut next, size, 30);
            let o = VoxelOptions {
                connectivity: [
                    VoxelConnectivity::Six,
                    VoxelConnectivity::Eighteen,
                    VoxelConnectivity::TwentySix,
                ][(case % 3) as usize],
                heuristic_weight: if case % 7 == 0 { 0.0 } else { 1.0 },
                record_expansions: true,
                ..VoxelOptions::default()
            };
            let mut fixed = VoxelAStar::new(o).unwrap();
            let mut by_g = VoxelAStar::new(o).unwrap();
            by_g.force_g_tie = true;
            let mut wide = VoxelAStar::new(o).unwrap();
            wide.force_wide = true;
            let a = fixed.find_path(&g, s, t).unwrap();
            let b = wide.find_path(&g, s, t).unwrap();
            let c = by_g.find_path(&g, s, t).unwrap();
            assert_eq!(
                (fixed.mode, by_g.mode, wide.mode),
                (Mode::Exact, Mode::ExactG, Mode::ExactWide)
            );
            // The same pops, so the same expansions in the same order and the same path.
            assert_eq!(a, b, "case {case}");
            assert_eq!(c, b, "case {case}");
        }
    }

    #[test]
    fn pruning_keeps_the_exact_cost_and_generates_fewer_moves() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        let (mut pruned_total, mut plain_total) = (0u64, 0u64);
        for case in 0..60u32 {
            let size = [8 + (next() % 16) as u32, 8 + (next() % 16) as u32, 8];
            let (g, s, t) = random_case(&mut next, size, 35);
            let o = VoxelOptions {
                heuristic_weight: if case % 5 == 0 { 0.0 } else { 1.0 },
                ..VoxelOptions::default()
            };
            let mut pruned = VoxelAStar::new(o).unwrap();
            let mut plain = VoxelAStar::new(o).unwrap();
            plain.no_pruning = true;
            let a = pruned.find_path(&g, s, t).unwrap();
            let b = plain.find_path(&g, s, t).unwrap();
            assert_eq!(a.status, b.status, "case {case}");
            // The same step counts, so the same f64 cost to the bit.
            assert_eq!(a.cost.to_bits(), b.cost.to_bits(), "case {case}");
            pruned_total += pruned.exact.records.records_taken() as u64;
            plain_total += plain.exact.records.records_taken() as u64;
        }
        assert!(
            pruned_total < plain_total,
            "{pruned_total} >= {plain_total}"
        );
    }

    #[test]
    fn the_free_mask_is_the_neighbourhood_without_walls() {
        // Chunk faces, grid faces, chunks never written (the default area: free or a
        // wall) and written ones.
        let mut next = xorshift(0x51_7cc1_b727_220au64);
        for default in [0u8, WALL] {
            let mut g = VoxelGrid::new(35, 18, 20, default).unwrap();
            for _ in 0..900 {
                let (x, y, z) = (
                    (next() % 35) as u32,
                    (next() % 18) as u32,
                    (next() % 12) as u32, // z ≥ 16 stays unwritten
                );
                // Bytes next to the wall's 255 and around the bit-7 boundary too.
                let area = [WALL, WALL, 0, 1, 127, 128, 254][(next() % 7) as usize];
                g.set_area(x, y, z, area).unwrap();
            }
            // The rows' free words are rebuilt from the bytes when a state is read.
            let restored = VoxelGrid::from_state(&g.save_state()).unwrap();
            let mut walls = 0;
            for z in 0..20 {
                for y in 0..18 {
                    for x in 0..35 {
                        let want = g
                            .neighbourhood(x, y, z)
                            .iter()
                            .enumerate()
                            .fold(0u32, |m, (k, &a)| m | u32::from(a != WALL) << k);
                        assert_eq!(g.free_mask(x, y, z), want, "{x} {y} {z} default {default}");
                        assert_eq!(restored.free_mask(x, y, z), want, "{x} {y} {z} restored");
                        walls += u32::from(g.area(x, y, z).unwrap() == WALL);
                    }
                }
            }
            // Both kinds of voxel occur in both grids.
            assert!(walls > 100 && walls < 35 * 18 * 20 - 100, "{walls}");
        }
    }

    #[test]
    fn the_fixed_scale_follows_the_grid() {
        let f = FixedScale::of([256, 128, 256]).unwrap();
        // N = 2^23 + 640 → ⌈log2 N⌉ = 24, S = 80.
        assert_eq!(f.s, 80);
        assert_eq!(FixedScale::key(&f, [1, 0, 0]), 1u128 << 80);
        let two = (2f64.sqrt() * 2f64.powi(80)) as u128;
        assert!(FixedScale::key(&f, [0, 1, 0]).abs_diff(two) < 1 << 28);
        assert!(FixedScale::of([1 << 14, 1 << 14, 1]).is_none());
        // M = 640: 143·640^4 ≈ 2^44.4, E = 45; keys below 5·640·2^45 < 2^57.
        let e = EstimateScale::of([256, 128, 256]).unwrap();
        assert_eq!(e.e, 45);
        assert_eq!(e.key([1, 0, 0]), 1 << 45);
        assert_eq!(e.b, (2f64.sqrt() * 2f64.powi(45)).round() as u64);
        // M = 1 600 fits, M = 1 700 does not (5·M·2^E above 2^64): ties by g's key.
        assert!(EstimateScale::of([600, 500, 500]).is_some());
        assert!(EstimateScale::of([700, 500, 500]).is_none());
    }
}
