//! Exact any-angle paths: the Euclidean shortest path on the mesh's surface projection
//! (X/Z), found by an interval search in the manner of Polyanya (Cui, Harabor and Grastien,
//! IJCAI 2017), an opt-in mode next to the polygon-graph search.
//!
//! A search node is a *root* (the start or a polygon corner the path turns at, with the
//! exact length `g` of the path to it) and an *interval* (a part of a polygon edge that the
//! root sees in a straight line), with the polygon behind the interval. Expanding a node
//! projects the interval through that polygon: the parts of its other edges the root sees
//! through the interval keep the root (observable successors); the parts beside them are
//! reached by turning at an end of the interval that is a polygon corner, which becomes the
//! new root (non-observable successors). A root on the line of its interval (it turned at
//! that edge's end, or the start lies on the edge) sees all of the polygon behind it.
//! The open list is ordered by `f = g + h`, `h` the length of the shortest line from the
//! root through the interval to the goal (the goal mirrored across the interval's line when
//! it lies on the root's side), scaled by [`HEURISTIC_SCALE`] so rounding never makes it
//! overestimate; the search ends when the goal itself is popped, so the path is the
//! shortest one. A root reached again with a longer path (beyond a relative 1e-9) is
//! pruned, with every node hanging from it.
//!
//! The normative description (what is guaranteed, the tie rules and the epsilon policy) is
//! the section "Any-angle paths" of `docs/navmesh-queries.md`.

mod interval;

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use onepath_format::PolyRef;

use crate::mesh::TiledNavMesh;
use crate::query::error::QueryError;
use crate::query::filter::QueryFilter;
use crate::query::geom::{check_point, Vec3};
use crate::query::graph::{for_each_neighbour_at, Crossing, HEURISTIC_SCALE};
use crate::query::nearest::closest_point;
use crate::query::poly::{decode, decode_passing, poly_verts, PolyVerts};
use crate::query::straight::{StraightPathFlags, StraightPathPoint};

use interval::{at, dist_2d, in_cone, interval_heuristic, orient, split_edge, within, Span};

/// How an any-angle search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnyAngleStatus {
    /// The goal was reached; the path is the shortest one.
    Complete,
    /// No path joins the two polygons under the filter (across polygon edges; off-mesh
    /// links are not part of the surface).
    Unreachable,
    /// The expansion budget ran out before the goal was reached.
    BudgetExhausted,
}

/// What [`AnyAngleQuery::find_path`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnyAngleResult {
    /// How the search ended; the path is written only when [`AnyAngleStatus::Complete`].
    pub status: AnyAngleStatus,
    /// The path's length in X/Z (the sum of its segments' X/Z lengths, added from the
    /// start); 0 unless complete.
    pub length: f64,
    /// The search nodes expanded (a measure of the work done).
    pub expanded: usize,
}

/// Why an any-angle search could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AnyAngleError {
    /// A reference, position or filter argument the query layer rejects.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// The search met a polygon whose area costs another amount than the start polygon's:
    /// the shortest path is then not the cheapest, so this mode does not answer (use
    /// [`NavMeshQuery::find_path`](crate::query::NavMeshQuery::find_path), which weighs
    /// areas, or a filter that gives these areas one cost).
    #[error(
        "polygon {poly:?} has area {area} of cost {cost}, but the start polygon's area costs \
         {expected}: an any-angle path needs one cost for every polygon it may cross"
    )]
    MixedAreaCosts {
        /// The polygon met.
        poly: PolyRef,
        /// Its area.
        area: u8,
        /// The filter's cost of that area.
        cost: f64,
        /// The filter's cost of the start polygon's area.
        expected: f64,
    },
}

/// "No index" in the node and root arenas.
const NONE: u32 = u32::MAX;

/// Relative slack of root pruning: an arrival at a corner within this fraction of the best
/// known length is kept, so that paths equal up to rounding all survive.
const ROOT_SLACK: f64 = 1e-9;

/// A point the path may turn at: the start or a polygon corner.
#[derive(Debug, Clone, Copy)]
struct Root {
    pos: Vec3,
    /// Length of the path to it (X/Z).
    g: f64,
    /// The root before it on that path (`NONE` for the start).
    parent: u32,
}

/// A search node: a root and the interval `right`..`left` it sees on an edge of polygon
/// `from`, with `poly` the polygon behind the interval. A goal node (`goal`) stands for the
/// last segment, from its root to the end point.
#[derive(Debug, Clone, Copy)]
struct Node {
    root: u32,
    right: Vec3,
    left: Vec3,
    /// Whether `right` / `left` is an end of its crossing segment (a corner the path may
    /// turn at).
    right_end: bool,
    left_end: bool,
    /// The root lies on the interval's segment and so sees all of `poly`.
    collinear: bool,
    goal: bool,
    poly: PolyRef,
    from: PolyRef,
    /// The node whose expansion made this one (`NONE` for the start's).
    parent: u32,
}

/// An open-list entry. Pops in one total order: smaller `f`, then larger `g` (deeper
/// first), then the node made first.
#[derive(Debug, Clone, Copy)]
struct Open {
    f: f64,
    g: f64,
    node: u32,
}

impl PartialEq for Open {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Open {}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Open {
    /// Greater pops first ([`BinaryHeap`] is a max-heap).
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .f
            .total_cmp(&self.f)
            .then(self.g.total_cmp(&other.g))
            .then(other.node.cmp(&self.node))
    }
}

/// A multiply-rotate hasher for the root table's keys (position bits). Lookups only: no
/// output ever depends on the table's order.
#[derive(Debug, Default, Clone, Copy)]
struct PointHasher(u64);

impl Hasher for PointHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(26) ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type RootTable = HashMap<(u64, u64, u64), f64, BuildHasherDefault<PointHasher>>;

/// Per corner position: whether the walkable surface ends there (see
/// [`AnyAngleQuery::is_corner`]).
type CornerTable = HashMap<(u64, u64, u64), bool, BuildHasherDefault<PointHasher>>;

/// (root, polygon) pairs of the nodes whose root lies on their interval: such a node sees
/// all of its polygon, so a second one is redundant (and around a corner with open polygons
/// all round, the turn would otherwise circle for ever).
type SeenWhole = HashSet<(u32, u64), BuildHasherDefault<PointHasher>>;

fn key(p: Vec3) -> (u64, u64, u64) {
    (p[0].to_bits(), p[1].to_bits(), p[2].to_bits())
}

fn same_2d(a: Vec3, b: Vec3) -> bool {
    a[0] == b[0] && a[2] == b[2]
}

/// The most polygons a corner test walks round one point before it counts the point as a
/// corner anyway (a turn allowed where none is needed costs time, never a wrong answer).
const MAX_FAN: usize = 32;

/// True when an arrival of length `g` is beaten by the best known `best`.
fn beaten(g: f64, best: f64) -> bool {
    g > best + ROOT_SLACK * best.max(1.0)
}

/// Per polygon met in a search: where its crossings lie in the crossing arena.
type CrossingIndex = HashMap<u64, (u32, u32), BuildHasherDefault<PointHasher>>;

/// One edge crossing of a polygon.
#[derive(Debug, Clone, Copy)]
struct EdgeCrossing {
    target: PolyRef,
    right: Vec3,
    left: Vec3,
}

/// The search's constant inputs.
struct Ends<'a> {
    mesh: &'a TiledNavMesh,
    filter: &'a QueryFilter,
    goal_poly: PolyRef,
    goal: Vec3,
    cost: f64,
}

/// Reusable buffers of the any-angle search; keep one and reuse it (a search in steady state
/// does not allocate).
///
/// # Example
/// ```
/// use onepath_mesh::fixtures::bridge_and_building;
/// use onepath_mesh::query::{AnyAngleQuery, AnyAngleStatus, NavMeshQuery, QueryFilter};
///
/// let mesh = bridge_and_building();
/// let mut q = NavMeshQuery::new();
/// let filter = QueryFilter::new();
/// let ext = [1.0, 2.0, 1.0];
/// let a = q.find_nearest_poly(&mesh, [2.0, 0.0, 8.0], ext, &filter).unwrap().unwrap();
/// let b = q.find_nearest_poly(&mesh, [46.0, 0.0, 8.0], ext, &filter).unwrap().unwrap();
///
/// let mut any = AnyAngleQuery::new();
/// let mut path = Vec::new();
/// let r = any
///     .find_path(&mesh, a.poly, b.poly, a.point, b.point, &filter, 100_000, &mut path)
///     .unwrap();
/// assert_eq!(r.status, AnyAngleStatus::Complete);
/// assert_eq!(path.first().unwrap().pos, a.point);
/// assert_eq!(path.last().unwrap().pos, b.point);
/// // Never shorter than the straight line between the ends, in X/Z.
/// let (dx, dz) = (b.point[0] - a.point[0], b.point[2] - a.point[2]);
/// assert!(r.length >= (dx * dx + dz * dz).sqrt());
/// ```
#[derive(Debug, Default)]
pub struct AnyAngleQuery {
    nodes: Vec<Node>,
    roots: Vec<Root>,
    open: BinaryHeap<Open>,
    best: RootTable,
    whole: SeenWhole,
    corners: CornerTable,
    /// The edge crossings of every polygon met so far in the search, per polygon in
    /// neighbour order (computed once per search: a polygon is often expanded from several
    /// roots, and the corner test walks round polygons too).
    crossings: Vec<EdgeCrossing>,
    crossing_index: CrossingIndex,
    chain: Vec<u32>,
    verts: PolyVerts,
}

impl AnyAngleQuery {
    /// A query object with empty buffers.
    pub fn new() -> AnyAngleQuery {
        AnyAngleQuery::default()
    }

    /// The Euclidean shortest path in X/Z from `start_pos` on polygon `start_ref` to
    /// `end_pos` on polygon `end_ref`, across the edges of polygons that pass `filter`,
    /// written into `out` (cleared first) as its points: the start and end moved onto their
    /// polygons (closest point, heights from the detail mesh), and between them the polygon
    /// corners the path turns at (heights from the corners, as the straight path has them).
    /// Each point's `poly` is the polygon the path runs in from it on (for the end, the end
    /// polygon); the start has [`StraightPathFlags::START`], the end
    /// [`StraightPathFlags::END`].
    ///
    /// Every polygon the search enters must cost what the start polygon's area costs, else
    /// [`AnyAngleError::MixedAreaCosts`]. Off-mesh links are not used. At most
    /// `max_expansions` nodes are expanded; past that the status is
    /// [`AnyAngleStatus::BudgetExhausted`] and `out` stays empty, as it does for
    /// [`AnyAngleStatus::Unreachable`].
    #[allow(clippy::too_many_arguments)]
    pub fn find_path(
        &mut self,
        mesh: &TiledNavMesh,
        start_ref: PolyRef,
        end_ref: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        max_expansions: usize,
        out: &mut Vec<StraightPathPoint>,
    ) -> Result<AnyAngleResult, AnyAngleError> {
        out.clear();
        check_point("start_pos", start_pos).map_err(QueryError::from)?;
        check_point("end_pos", end_pos).map_err(QueryError::from)?;
        let (st, sp) = decode_passing(mesh, start_ref, filter)?;
        let (et, ep) = decode_passing(mesh, end_ref, filter)?;
        let cost = filter.area_cost(st.tile().areas()[sp]);
        let end_area = et.tile().areas()[ep];
        if filter.area_cost(end_area) != cost {
            return Err(AnyAngleError::MixedAreaCosts {
                poly: end_ref,
                area: end_area,
                cost: filter.area_cost(end_area),
                expected: cost,
            });
        }
        poly_verts(st, sp, &mut self.verts);
        let start = closest_point(st, sp, &self.verts, start_pos).point;
        poly_verts(et, ep, &mut self.verts);
        let goal = closest_point(et, ep, &self.verts, end_pos).point;
        let ends = Ends {
            mesh,
            filter,
            goal_poly: end_ref,
            goal,
            cost,
        };
        let mut result = AnyAngleResult {
            status: AnyAngleStatus::Unreachable,
            length: 0.0,
            expanded: 0,
        };
        if start_ref == end_ref {
            // A polygon is convex: the straight segment stays on it.
            out.push(point(start, StraightPathFlags::START, start_ref));
            push_point(out, point(goal, StraightPathFlags::END, end_ref));
            result.status = AnyAngleStatus::Complete;
            result.length = dist_2d(start, goal);
            return Ok(result);
        }

        self.nodes.clear();
        self.roots.clear();
        self.open.clear();
        self.best.clear();
        self.whole.clear();
        self.corners.clear();
        self.crossings.clear();
        self.crossing_index.clear();
        self.roots.push(Root {
            pos: start,
            g: 0.0,
            parent: NONE,
        });
        self.best.insert(key(start), 0.0);
        self.start_nodes(&ends, start_ref, start)?;

        while let Some(top) = self.open.pop() {
            let n = self.nodes[top.node as usize];
            if n.goal {
                result.status = AnyAngleStatus::Complete;
                result.length = top.g;
                self.write_path(&ends, top.node, start, out);
                return Ok(result);
            }
            let root = self.roots[n.root as usize];
            if self
                .best
                .get(&key(root.pos))
                .is_some_and(|&b| beaten(root.g, b))
            {
                // A shorter path reached this root since: everything here is beaten.
                continue;
            }
            if result.expanded >= max_expansions {
                result.status = AnyAngleStatus::BudgetExhausted;
                return Ok(result);
            }
            result.expanded += 1;
            self.expand(&ends, top.node)?;
        }
        Ok(result)
    }

    /// Checks that polygon `r`, which the search enters, has the start polygon's cost.
    fn check_cost(&self, ends: &Ends<'_>, r: PolyRef) -> Result<(), AnyAngleError> {
        let (tile, p) = decode(ends.mesh, r)?;
        let area = tile.tile().areas()[p];
        let cost = ends.filter.area_cost(area);
        if cost != ends.cost {
            return Err(AnyAngleError::MixedAreaCosts {
                poly: r,
                area,
                cost,
                expected: ends.cost,
            });
        }
        Ok(())
    }

    /// The range in `self.crossings` of the edge crossings of polygon `r` under the filter
    /// (in neighbour order), computed on first use.
    fn crossings_of(
        &mut self,
        ends: &Ends<'_>,
        r: PolyRef,
    ) -> Result<std::ops::Range<usize>, QueryError> {
        if let Some(&(start, len)) = self.crossing_index.get(&r.0) {
            return Ok(start as usize..(start + len) as usize);
        }
        let (tile, p) = decode(ends.mesh, r)?;
        let start = self.crossings.len();
        let crossings = &mut self.crossings;
        for_each_neighbour_at(ends.mesh, tile, p, ends.filter, |nb, _, _| {
            if let Crossing::Edge { left, right, .. } = nb.crossing {
                crossings.push(EdgeCrossing {
                    target: nb.target,
                    right,
                    left,
                });
            }
        });
        let end = self.crossings.len();
        self.crossing_index
            .insert(r.0, (start as u32, (end - start) as u32));
        Ok(start..end)
    }

    /// The nodes of the start: root = the start point, one per edge crossing of the start
    /// polygon, the whole crossing as the interval.
    fn start_nodes(
        &mut self,
        ends: &Ends<'_>,
        start_ref: PolyRef,
        start: Vec3,
    ) -> Result<(), AnyAngleError> {
        for i in self.crossings_of(ends, start_ref)? {
            let c = self.crossings[i];
            let inside = orient(c.right, c.left, start) > 0.0;
            if !inside && !within(start, c.right, c.left) {
                // On the edge's line beyond this crossing: it sees nothing through it.
                continue;
            }
            let node = Node {
                root: 0,
                right: c.right,
                left: c.left,
                right_end: true,
                left_end: true,
                collinear: !inside,
                goal: false,
                poly: c.target,
                from: start_ref,
                parent: NONE,
            };
            self.push(ends, node);
        }
        Ok(())
    }

    /// Projects node `id`'s interval through the polygon behind it.
    fn expand(&mut self, ends: &Ends<'_>, id: u32) -> Result<(), AnyAngleError> {
        let n = self.nodes[id as usize];
        self.check_cost(ends, n.poly)?;
        let crossings = self.crossings_of(ends, n.poly)?;
        let root = self.roots[n.root as usize].pos;
        // Turning roots at the interval's ends, made on first use (`Some(NONE)`: pruned).
        let mut right_root: Option<u32> = None;
        let mut left_root: Option<u32> = None;

        if n.poly == ends.goal_poly {
            let g = ends.goal;
            let last = if n.collinear || in_cone(root, n.right, n.left, g) {
                n.root
            } else if orient(root, n.right, g) < 0.0 {
                *right_root.get_or_insert_with(|| self.turn(ends, &n, n.right, n.right_end))
            } else if orient(root, n.left, g) > 0.0 {
                *left_root.get_or_insert_with(|| self.turn(ends, &n, n.left, n.left_end))
            } else {
                NONE
            };
            if last != NONE {
                let r = self.roots[last as usize];
                let total = r.g + dist_2d(r.pos, g);
                self.nodes.push(Node {
                    root: last,
                    right: g,
                    left: g,
                    right_end: false,
                    left_end: false,
                    collinear: false,
                    goal: true,
                    poly: n.poly,
                    from: n.poly,
                    parent: id,
                });
                self.open.push(Open {
                    f: total,
                    g: total,
                    node: (self.nodes.len() - 1) as u32,
                });
            }
        }

        for i in crossings {
            let c = self.crossings[i];
            if c.target == n.from {
                continue;
            }
            let successor = |root: u32, span: Span| Node {
                root,
                right: at(c.right, c.left, span.lo),
                left: at(c.right, c.left, span.hi),
                right_end: span.lo <= 0.0,
                left_end: span.hi >= 1.0,
                collinear: false,
                goal: false,
                poly: c.target,
                from: n.poly,
                parent: id,
            };
            if n.collinear {
                // The root is on this polygon's boundary: it sees all of it.
                self.push(ends, successor(n.root, Span { lo: 0.0, hi: 1.0 }));
                continue;
            }
            let split = split_edge(root, n.right, n.left, c.right, c.left);
            if let Some(s) = split.seen {
                self.push(ends, successor(n.root, s));
            }
            if let Some(s) = split.right_hidden {
                let r =
                    *right_root.get_or_insert_with(|| self.turn(ends, &n, n.right, n.right_end));
                if r != NONE {
                    self.push(ends, successor(r, s));
                }
            }
            if let Some(s) = split.left_hidden {
                let r = *left_root.get_or_insert_with(|| self.turn(ends, &n, n.left, n.left_end));
                if r != NONE {
                    self.push(ends, successor(r, s));
                }
            }
        }
        Ok(())
    }

    /// A new root at `at`, an end of node `n`'s interval, reached from `n`'s root; `NONE`
    /// when the path may not turn there (`at` is not an end of its crossing, or the
    /// walkable surface goes all round it, so that a shortest path never turns there) or a
    /// shorter path to that point is known.
    fn turn(&mut self, ends: &Ends<'_>, n: &Node, at: Vec3, is_end: bool) -> u32 {
        if !is_end || !self.is_corner(ends, n.poly, at) {
            return NONE;
        }
        let from = n.root;
        let parent = self.roots[from as usize];
        let g = parent.g + dist_2d(parent.pos, at);
        let best = self.best.entry(key(at)).or_insert(f64::INFINITY);
        if beaten(g, *best) {
            return NONE;
        }
        if g < *best {
            *best = g;
        }
        self.roots.push(Root {
            pos: at,
            g,
            parent: from,
        });
        (self.roots.len() - 1) as u32
    }

    /// Whether the walkable surface ends at `v`, a point on the boundary of polygon `poly`:
    /// false only when the polygons round `v`, walked crossing to crossing from `poly`,
    /// close the circle with a crossing leaving and one arriving at `v` in each (a wall or a
    /// refused neighbour at `v` stops the walk: a corner). Cached per point for the search.
    fn is_corner(&mut self, ends: &Ends<'_>, poly: PolyRef, v: Vec3) -> bool {
        if let Some(&c) = self.corners.get(&key(v)) {
            return c;
        }
        let c = self.walk_round(ends, poly, v);
        self.corners.insert(key(v), c);
        c
    }

    fn walk_round(&mut self, ends: &Ends<'_>, first: PolyRef, v: Vec3) -> bool {
        let mut cur = first;
        for _ in 0..MAX_FAN {
            let Ok(range) = self.crossings_of(ends, cur) else {
                return true;
            };
            // Seen from inside, a crossing leaving `v` has it as its right end, one
            // arriving at `v` as its left end (also where `v` lies inside an edge of
            // `cur` between two portal crossings). Either missing: a wall touches `v`.
            let cs = &self.crossings[range];
            let next = cs.iter().find(|c| same_2d(c.right, v)).map(|c| c.target);
            let back = cs.iter().any(|c| same_2d(c.left, v));
            match next {
                Some(q) if back => {
                    if q == first {
                        return false;
                    }
                    cur = q;
                }
                _ => return true,
            }
        }
        true
    }

    /// Adds `node` to the open list, unless its interval is a point, lies on a line through
    /// its root beyond the root (seen edge-on: nothing is seen through it), or its root lies
    /// on it and already has a node that sees all of that polygon.
    fn push(&mut self, ends: &Ends<'_>, mut node: Node) {
        if node.right[0] == node.left[0] && node.right[2] == node.left[2] {
            return;
        }
        let root = self.roots[node.root as usize];
        if !node.collinear {
            let o = orient(root.pos, node.right, node.left);
            if o < 0.0 || (o == 0.0 && !within(root.pos, node.right, node.left)) {
                return;
            }
            node.collinear = o == 0.0;
        }
        if node.collinear && !self.whole.insert((node.root, node.poly.0)) {
            return;
        }
        let h = if node.collinear {
            dist_2d(root.pos, ends.goal)
        } else {
            interval_heuristic(root.pos, node.right, node.left, ends.goal)
        };
        self.nodes.push(node);
        self.open.push(Open {
            f: root.g + h * HEURISTIC_SCALE,
            g: root.g,
            node: (self.nodes.len() - 1) as u32,
        });
    }

    /// Writes the path ending in goal node `goal`: the start, the roots it turns at, the end.
    fn write_path(
        &mut self,
        ends: &Ends<'_>,
        goal: u32,
        start: Vec3,
        out: &mut Vec<StraightPathPoint>,
    ) {
        self.chain.clear();
        let mut i = goal;
        while i != NONE {
            self.chain.push(i);
            i = self.nodes[i as usize].parent;
        }
        // Walking from the start, the first node of each root tells the polygon the path
        // leaves that root in: the polygon it sees through the interval, or the one behind
        // the interval when the root lies on it.
        let mut last_root = NONE;
        for &i in self.chain.iter().rev() {
            let n = self.nodes[i as usize];
            if n.root == last_root {
                continue;
            }
            last_root = n.root;
            let poly = if n.collinear { n.poly } else { n.from };
            let r = self.roots[n.root as usize];
            let flags = if r.parent == NONE {
                StraightPathFlags::START
            } else {
                StraightPathFlags::default()
            };
            let pos = if r.parent == NONE { start } else { r.pos };
            push_point(out, point(pos, flags, poly));
        }
        push_point(
            out,
            point(ends.goal, StraightPathFlags::END, ends.goal_poly),
        );
    }
}

fn point(pos: Vec3, flags: StraightPathFlags, poly: PolyRef) -> StraightPathPoint {
    StraightPathPoint { pos, flags, poly }
}

/// Appends `p`, merging it into the last point when both are the same position.
fn push_point(out: &mut Vec<StraightPathPoint>, p: StraightPathPoint) {
    if let Some(last) = out.last_mut() {
        if last.pos == p.pos {
            last.flags = StraightPathFlags(last.flags.0 | p.flags.0);
            last.poly = p.poly;
            return;
        }
    }
    out.push(p);
}
