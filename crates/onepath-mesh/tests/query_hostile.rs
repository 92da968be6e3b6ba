//! Hostile arguments never panic: forged references, non-finite or out-of-range
//! coordinates, negative or huge extents all give a typed error or an answer.

use onepath_format::PolyRef;
use onepath_mesh::fixtures::bridge_and_building;
use onepath_mesh::query::{
    NavMeshQuery, PathCorridor, QueryError, QueryFilter, StraightPathOptions,
};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

fn coord() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -20.0f64..60.0,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(-3.0e6),
        1 => Just(2_097_152.0),
    ]
}

fn point() -> impl Strategy<Value = [f64; 3]> {
    [coord(), coord(), coord()]
}

/// A reference that is sometimes valid (salt 1, slots 0..=7, small polygon index) and
/// sometimes forged.
fn poly_ref() -> impl Strategy<Value = PolyRef> {
    prop_oneof![
        3 => (0u32..8, 0u32..20).prop_map(|(s, p)| PolyRef::new(1, s, p).unwrap()),
        1 => any::<u64>().prop_map(PolyRef),
        1 => Just(PolyRef::NULL),
    ]
}

fn expected(e: &QueryError) -> bool {
    matches!(
        e,
        QueryError::InvalidPolyRef(_)
            | QueryError::CoordinateOutOfRange(_)
            | QueryError::InvalidExtent { .. }
            | QueryError::FilteredOut(_)
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn hostile_arguments_never_panic_and_fail_with_a_typed_error(
        a in poly_ref(), b in poly_ref(), p in point(), e in point(), ext in point(),
        radius in coord(), budget in 0u64..64, path in prop::collection::vec(poly_ref(), 0..6),
    ) {
        let mesh = bridge_and_building();
        let f = QueryFilter::new();
        let mut q = NavMeshQuery::new();
        let mut refs = Vec::new();
        let check = |r: Result<(), QueryError>| -> Result<(), TestCaseError> {
            if let Err(err) = r {
                prop_assert!(expected(&err), "unexpected {err:?}");
            }
            Ok(())
        };
        check(q.find_nearest_poly(&mesh, p, ext, &f).map(|_| ()))?;
        check(q.query_polygons(&mesh, p, ext, &f, &mut refs))?;
        check(q.closest_point_on_poly(&mesh, a, p).map(|_| ()))?;
        check(q.poly_height(&mesh, a, p).map(|_| ()))?;
        check(q.find_path(&mesh, a, b, p, e, &f, budget, &mut refs).map(|_| ()))?;
        check(q.find_straight_path(&mesh, p, e, &path, &f, StraightPathOptions { all_crossings: true, area_crossings: true }, &mut Vec::new()))?;
        check(q.raycast(&mesh, a, p, e, &f, &mut refs).map(|_| ()))?;
        check(q.move_along_surface(&mesh, a, p, e, &f, &mut refs).map(|_| ()))?;
        check(q.find_distance_to_wall(&mesh, a, p, radius, &f).map(|_| ()))?;
        check(q.polys_around_circle(&mesh, a, p, radius, &f, &mut Vec::new()))?;
        check(q.find_local_neighbourhood(&mesh, a, p, radius, &f, budget as usize, &mut Vec::new()))?;
        check(q.poly_wall_segments(&mesh, a, &f, &mut Vec::new()))?;
        check(q.polys_around_shape(&mesh, a, &[p, e, ext], &f, &mut Vec::new()))?;
        check(q.find_random_point_around_circle(&mesh, a, p, radius, &f, &mut || radius).map(|_| ()))?;
        let mut c = PathCorridor::new();
        c.reset(a, p);
        c.set_corridor(e, &path);
        check(c.move_position(&mut q, &mesh, &f, e).map(|_| ()))?;
        check(c.move_target(&mut q, &mesh, &f, p).map(|_| ()))?;
        check(c.optimize_path_visibility(&mut q, &mesh, &f, e, 10.0))?;
        check(c.optimize_path_topology(&mut q, &mesh, &f, budget).map(|_| ()))?;
        check(c.move_over_off_mesh_connection(&mesh, &f).map(|_| ()))?;
        check(c.replan(&mut q, &mesh, &f, [1.0, 1.0, 1.0], budget).map(|_| ()))?;
    }
}

#[test]
fn a_non_finite_query_point_names_its_component() {
    let mesh = bridge_and_building();
    let mut q = NavMeshQuery::new();
    let r = q.find_nearest_poly(&mesh, [1.0, f64::NAN, 1.0], [1.0; 3], &QueryFilter::new());
    assert!(matches!(r, Err(QueryError::CoordinateOutOfRange(e)) if e.what == "center.y"));
}
