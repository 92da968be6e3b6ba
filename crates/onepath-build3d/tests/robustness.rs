//! Random geometry never panics the builder, every tile it makes is valid, and a tile with
//! one layer is the same with the layer partition as with the monotone one.
//!
//! Case counts: the cheap properties run `PROPTEST_CASES` cases (12 by default); the heavy
//! random-geometry property runs `ONEPATH_HEAVY_CASES` when set, else `PROPTEST_CASES`
//! capped at 1000 (see `heavy_cases`), so CI's `PROPTEST_CASES=10000` stays within budget.

use onepath_build3d::generators::add_floor;
use onepath_build3d::{BuildConfig, Mesh3DPipeline, TriangleSoup};
use onepath_format::{NavTile, Partition};
use proptest::prelude::*;

fn env_u32(name: &str) -> Option<u32> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Cases of the cheap properties: `PROPTEST_CASES` (CI raises it), 12 by default.
fn cases() -> u32 {
    env_u32("PROPTEST_CASES").unwrap_or(12)
}

/// Cases of the heavy property (a whole multi-tile build, plain and chunked, per case: about
/// 15 ms, so 10000 cases would take minutes of CI's two cores): `ONEPATH_HEAVY_CASES` when
/// set (for long hunts, e.g. `ONEPATH_HEAVY_CASES=20000`), otherwise `PROPTEST_CASES`
/// capped at [`HEAVY_CASES_CAP`].
fn heavy_cases() -> u32 {
    heavy_cases_from(env_u32("ONEPATH_HEAVY_CASES"), env_u32("PROPTEST_CASES"))
}

/// The default cap of the heavy property's cases.
const HEAVY_CASES_CAP: u32 = 1000;

fn heavy_cases_from(heavy: Option<u32>, proptest: Option<u32>) -> u32 {
    heavy.unwrap_or_else(|| proptest.unwrap_or(12).min(HEAVY_CASES_CAP))
}

#[test]
fn heavy_property_cases_follow_onepath_heavy_cases_else_proptest_cases_capped_at_1000() {
    assert_eq!(heavy_cases_from(None, None), 12);
    assert_eq!(heavy_cases_from(None, Some(300)), 300);
    assert_eq!(heavy_cases_from(None, Some(10000)), 1000);
    assert_eq!(heavy_cases_from(Some(20000), Some(10000)), 20000);
    assert_eq!(heavy_cases_from(Some(5), None), 5);
}

fn soup_strategy() -> impl Strategy<Value = TriangleSoup> {
    (
        prop::collection::vec((0i32..60, -10i32..30, 0i32..60), 3..40),
        prop::collection::vec((0usize..40, 0usize..40, 0usize..40, 0u8..64), 1..60),
    )
        .prop_map(|(verts, tris)| {
            let n = verts.len();
            TriangleSoup {
                vertices: verts
                    .iter()
                    .map(|&(x, y, z)| {
                        [f64::from(x) * 0.35, f64::from(y) * 0.1, f64::from(z) * 0.35]
                    })
                    .collect(),
                triangles: tris
                    .iter()
                    .map(|&(a, b, c, _)| [(a % n) as u32, (b % n) as u32, (c % n) as u32])
                    .collect(),
                areas: Some(tris.iter().map(|t| t.3).collect()),
            }
        })
}

/// Random soups over a floor: the build never panics, every tile is the one
/// `NavTile::create` makes of its data, and the chunked input gives the same tiles.
///
/// Run with an explicit `TestRunner` rather than `proptest!`: the macro lets
/// `PROPTEST_CASES` override any configured case count, and this property's count is
/// [`heavy_cases`]. The runner still re-runs `robustness.proptest-regressions` first and
/// honours `PROPTEST_RNG_SEED`.
#[test]
fn random_geometry_never_panics_and_every_tile_is_valid() {
    // `ProptestConfig::default()` reads the environment (seed, persistence); the case
    // count set here is applied after it.
    let config = ProptestConfig {
        cases: heavy_cases(),
        source_file: Some(file!()),
        ..ProptestConfig::default()
    };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let result = runner.run(&(soup_strategy(), 0..3u8), |(mut soup, partition)| {
        // A floor under the random triangles so something is walkable.
        add_floor(&mut soup, 0.0, 0.0, 21.0, 21.0, 0.0);
        let partition =
            [Partition::Watershed, Partition::Monotone, Partition::Layers][usize::from(partition)];
        let cfg = BuildConfig {
            partition,
            ..BuildConfig::default()
        };
        let p = Mesh3DPipeline::new(cfg);
        let b = p.build_soup(&soup).unwrap();
        for t in &b.tiles {
            prop_assert_eq!(&NavTile::create(&b.params, t.data().clone()).unwrap(), t);
        }
        // The chunked input rasterizes the same triangles in the same order.
        let chunky = onepath_build3d::ChunkyTriMesh::new(soup, 3.0).unwrap();
        let c = p.build_chunk(&chunky).unwrap();
        prop_assert_eq!(&c.tiles, &b.tiles);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}\n{runner}");
    }
}

/// Builds `soup` (plus the property test's floor) with every partition, plain and chunked,
/// and checks that every tile is the one `NavTile::create` makes of its data.
fn assert_every_tile_valid(mut soup: TriangleSoup) {
    add_floor(&mut soup, 0.0, 0.0, 21.0, 21.0, 0.0);
    for partition in [Partition::Watershed, Partition::Monotone, Partition::Layers] {
        let cfg = BuildConfig {
            partition,
            ..BuildConfig::default()
        };
        let p = Mesh3DPipeline::new(cfg);
        let b = p.build_soup(&soup).unwrap();
        assert!(!b.tiles.is_empty());
        for t in &b.tiles {
            assert_eq!(&NavTile::create(&b.params, t.data().clone()).unwrap(), t);
        }
        let chunky = onepath_build3d::ChunkyTriMesh::new(soup.clone(), 3.0).unwrap();
        assert_eq!(p.build_chunk(&chunky).unwrap().tiles, b.tiles);
    }
}

/// Regression (CI, `PROPTEST_CASES=10000`): ear clipping cut a triangle from three contour
/// vertices collinear in cells; float32 rounding gave it a tiny area, the winding test took
/// zero cell area as clockwise, the hand-over stored it unreversed and `NavTile::create`
/// rejected tile (1, 0) ("polygon 18: edge 0: vertex 2 lies right of the edge").
/// `docs/build3d-polys.md` §4: a polygon of zero area in cells is degenerate and left out.
#[test]
fn a_polygon_of_zero_area_in_cells_is_left_out_and_never_reaches_the_format() {
    assert_every_tile_valid(TriangleSoup {
        vertices: vec![
            [10.149999999999999, -0.6000000000000001, 10.85],
            [0.0, 0.0, 0.0],
            [20.65, 0.7000000000000001, 2.8],
            [16.099999999999998, 1.6, 16.099999999999998],
            [16.45, 1.9000000000000001, 1.4],
            [18.9, -0.8, 16.45],
            [17.15, 0.0, 18.9],
            [0.0, 0.0, 0.0],
            [18.549999999999997, 1.9000000000000001, 12.25],
            [18.2, 1.2000000000000002, 12.95],
        ],
        triangles: vec![
            [2, 8, 0],
            [5, 2, 3],
            [5, 9, 2],
            [2, 5, 4],
            [8, 4, 0],
            [2, 7, 5],
            [0, 3, 2],
        ],
        areas: Some(vec![0, 1, 0, 0, 1, 0, 2]),
    });
}

#[test]
fn a_tile_with_one_layer_is_the_same_with_the_layer_partition() {
    let mut soup = TriangleSoup::default();
    add_floor(&mut soup, 0.0, 0.0, 25.0, 18.0, 0.5);
    let build = |partition| {
        let cfg = BuildConfig {
            partition,
            ..BuildConfig::default()
        };
        Mesh3DPipeline::new(cfg)
            .build_soup(&soup)
            .unwrap()
            .tiles
            .iter()
            .map(NavTile::to_bytes)
            .collect::<Vec<_>>()
    };
    assert_eq!(build(Partition::Layers), build(Partition::Monotone));
}

fn odd_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(-1.0),
        1 => Just(0.0),
        1 => Just(1e-300),
        1 => Just(3e6),
        30 => 0.05f64..1.0,
    ]
}

fn odd_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        1 => Just(f32::NAN),
        1 => Just(-1.0f32),
        1 => Just(0.0f32),
        1 => Just(1e9f32),
        20 => 0.0f32..3.0
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn odd_settings_give_an_error_or_valid_tiles_never_a_panic(
        cs in odd_f64(),
        ch in odd_f64(),
        tile_cells in 2u32..48,
        height in odd_f32(),
        radius in odd_f32(),
        climb in odd_f32(),
        slope in odd_f32(),
        nvp in 2u16..18,
        edge in odd_f64(),
        sample in odd_f64(),
        area in 0u8..70,
    ) {
        let cfg = BuildConfig {
            cell_size: cs,
            cell_height: ch,
            tile_size: BuildConfig::tile_size_of_cells(tile_cells, cs),
            agent_height: height,
            agent_radius: radius,
            walkable_climb: climb,
            agent_max_slope: slope * 30.0,
            max_verts_per_poly: nvp,
            max_edge_length: edge,
            detail_sample_distance: sample,
            area,
            ..BuildConfig::default()
        };
        let mut soup = TriangleSoup::default();
        add_floor(&mut soup, 0.0, 0.0, 6.0, 6.0, 0.0);
        if let Ok(b) = Mesh3DPipeline::new(cfg.clone()).build_soup(&soup) {
            prop_assert!(cfg.validate().is_ok());
            for t in &b.tiles {
                prop_assert_eq!(&NavTile::create(&b.params, t.data().clone()).unwrap(), t);
            }
        }
    }
}
