//! A path on a mesh as `path` and `render --path` report it: the nearest polygons of the
//! two points, the polygon corridor, the straight path and its length.

use onepath_mesh::query::{
    NavMeshQuery, PathStatus, QueryFilter, StraightPathOptions, StraightPathPoint,
};
use onepath_mesh::TiledNavMesh;
use serde::Serialize;

/// How far around each point the nearest polygon is looked for (half extents, world units):
/// the facade's default, so `path` answers as `onepath::NavMesh::find_path` does.
pub const SEARCH_EXTENTS: [f64; 3] = onepath::DEFAULT_SEARCH_EXTENTS;
/// Polygons a path search may expand (the facade's default).
pub const MAX_ITERATIONS: u64 = onepath::DEFAULT_MAX_ITERATIONS;

/// The nearest polygon of one end.
#[derive(Debug, Clone, Serialize)]
pub struct End {
    /// The point asked for.
    pub query: [f64; 3],
    /// The polygon reference (its raw 64-bit value).
    pub poly: u64,
    /// Slot of its tile.
    pub slot: u32,
    /// Polygon index in the tile.
    pub index: u32,
    /// The point of the polygon nearest the query.
    pub point: [f64; 3],
}

/// A path between two points.
#[derive(Debug, Clone, Serialize)]
pub struct Route {
    /// The start's nearest polygon.
    pub start: End,
    /// The goal's nearest polygon.
    pub goal: End,
    /// `complete`, `partial` (goal unreachable: ends closest to it) or `budget exhausted`.
    pub status: &'static str,
    /// Path cost in the query cost model.
    pub cost: f64,
    /// Polygons expanded.
    pub iterations: u64,
    /// The polygon corridor (raw references), start first.
    pub corridor: Vec<u64>,
    /// The straight path's corners, start first.
    pub straight: Vec<[f64; 3]>,
    /// The straight path's length (sum of the 3D segment lengths).
    pub length: f64,
}

/// Why there is no route.
#[derive(Debug, Clone, PartialEq)]
pub enum RouteError {
    /// No polygon within [`SEARCH_EXTENTS`] of this end (`"start"` or `"goal"`) at this point.
    NoPolygon(&'static str, [f64; 3]),
    /// The query refused its arguments (a coordinate outside the coordinate rule).
    Query(String),
}

impl std::fmt::Display for RouteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RouteError::NoPolygon(which, p) => write!(
                f,
                "no polygon within ({}, {}, {}) of the {which} ({}, {}, {})",
                SEARCH_EXTENTS[0], SEARCH_EXTENTS[1], SEARCH_EXTENTS[2], p[0], p[1], p[2]
            ),
            RouteError::Query(m) => f.write_str(m),
        }
    }
}

/// Finds the route from `a` to `b` on `mesh` under `filter`.
pub fn find(
    mesh: &TiledNavMesh,
    filter: &QueryFilter,
    a: [f64; 3],
    b: [f64; 3],
) -> Result<Route, RouteError> {
    let q_err = |e: onepath_mesh::QueryError| RouteError::Query(e.to_string());
    let mut q = NavMeshQuery::new();
    let start = q
        .find_nearest_poly(mesh, a, SEARCH_EXTENTS, filter)
        .map_err(q_err)?
        .ok_or(RouteError::NoPolygon("start", a))?;
    let goal = q
        .find_nearest_poly(mesh, b, SEARCH_EXTENTS, filter)
        .map_err(q_err)?
        .ok_or(RouteError::NoPolygon("goal", b))?;
    let mut corridor = Vec::new();
    let r = q
        .find_path(
            mesh,
            start.poly,
            goal.poly,
            start.point,
            goal.point,
            filter,
            MAX_ITERATIONS,
            &mut corridor,
        )
        .map_err(q_err)?;
    let mut corners: Vec<StraightPathPoint> = Vec::new();
    // A partial path ends in the polygon closest to the goal: aim at the goal all the same
    // (the straight path stops at that polygon's nearest point).
    q.find_straight_path(
        mesh,
        start.point,
        goal.point,
        &corridor,
        filter,
        StraightPathOptions::default(),
        &mut corners,
    )
    .map_err(q_err)?;
    let straight: Vec<[f64; 3]> = corners.iter().map(|c| c.pos).collect();
    let length = straight
        .windows(2)
        .map(|w| {
            let d = [w[1][0] - w[0][0], w[1][1] - w[0][1], w[1][2] - w[0][2]];
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
        })
        .sum();
    let end = |query: [f64; 3], n: &onepath_mesh::query::NearestPoly| End {
        query,
        poly: n.poly.0,
        slot: n.poly.slot(),
        index: n.poly.poly(),
        point: n.point,
    };
    Ok(Route {
        start: end(a, &start),
        goal: end(b, &goal),
        status: match r.status {
            PathStatus::Complete => "complete",
            PathStatus::Partial => "partial",
            PathStatus::BudgetExhausted => "budget exhausted",
            PathStatus::InProgress => "in progress",
        },
        cost: r.cost,
        iterations: r.iterations,
        corridor: corridor.iter().map(|p| p.0).collect(),
        straight,
        length,
    })
}

/// The route as text.
pub fn to_text(r: &Route) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let p = |v: [f64; 3]| format!("({:.3}, {:.3}, {:.3})", v[0], v[1], v[2]);
    for (name, e) in [("start", &r.start), ("goal", &r.goal)] {
        let _ = writeln!(
            s,
            "{name}: {} -> polygon {} of slot {} at {}",
            p(e.query),
            e.index,
            e.slot,
            p(e.point)
        );
    }
    let _ = writeln!(
        s,
        "path: {}, {} polygons, cost {:.3}, {} iterations",
        r.status,
        r.corridor.len(),
        r.cost,
        r.iterations
    );
    let _ = writeln!(
        s,
        "straight path: {} corners, length {:.3}",
        r.straight.len(),
        r.length
    );
    for c in &r.straight {
        let _ = writeln!(s, "  {}", p(*c));
    }
    s
}
