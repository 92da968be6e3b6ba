//! "Authoring: off-mesh links" of `docs/navmesh-format.md` / the format text, rule by rule,
//! for plain builds and for tile-cache rebuilds.

mod common;

use onepath::build::{BuildError, Obstacle, TriangleSoup};
use onepath::format::{
    CoordinateError, NavSettings, OffMeshLinkDefinition, OffMeshLinkSlot, Partition,
};
use onepath::mesh::LinkKind;
use onepath::prelude::*;

fn link(start: [f64; 3], end: [f64; 3], user_id: u32) -> OffMeshLinkDefinition {
    OffMeshLinkDefinition {
        start,
        end,
        radius: 0.6,
        bidirectional: false,
        area: 5,
        flags: 0x10,
        user_id,
    }
}

fn with_links(mut s: NavSettings, links: Vec<OffMeshLinkDefinition>) -> NavSettings {
    s.set_off_mesh_links(links).unwrap();
    s
}

/// The user ids of the slots of every tile, by position.
fn slots(nav: &NavMesh) -> Vec<((i32, i32, u16), Vec<u32>)> {
    let mut v: Vec<_> = nav
        .mesh()
        .tiles()
        .map(|t| {
            let d = t.tile().data();
            (
                t.tile().position(),
                d.off_mesh_links
                    .iter()
                    .map(|l| l.user_id)
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    v.sort();
    v
}

fn slot_of(nav: &NavMesh, user_id: u32) -> ((i32, i32, u16), OffMeshLinkSlot, f64) {
    for t in nav.mesh().tiles() {
        let d = t.tile().data();
        if let Some(l) = d.off_mesh_links.iter().find(|l| l.user_id == user_id) {
            return (t.tile().position(), *l, d.origin_y);
        }
    }
    panic!("link {user_id} is in no tile");
}

#[test]
fn rule_1_a_link_whose_start_column_has_no_tile_is_dropped() {
    // A 15 x 15 floor: tile columns 0 and 1 (tile size 9.6). Column 2 holds nothing.
    let s = with_links(
        NavSettings::default(),
        vec![
            link([25.0, 0.0, 5.0], [5.0, 0.0, 5.0], 1),
            link([5.0, 0.0, 5.0], [12.0, 0.0, 5.0], 2),
        ],
    );
    let nav = NavMesh::build(&s, &common::floor(15.0)).unwrap();
    let all: Vec<u32> = slots(&nav).into_iter().flat_map(|(_, ids)| ids).collect();
    assert_eq!(all, vec![2]);
}

/// A floor at y = 0 and a slab at y = 4 over the same columns: two layers per column with
/// the Layers partition.
fn two_floors() -> (NavSettings, TriangleSoup) {
    let mut soup = common::floor(15.0);
    common::add_floor(&mut soup, 1.0, 1.0, 14.0, 14.0, 4.0);
    let mut s = NavSettings::default();
    s.set_partition(Partition::Layers);
    (s, soup)
}

#[test]
fn rule_2_the_layer_nearest_the_start_by_the_stitching_score_holds_the_link() {
    let (s, soup) = two_floors();
    let plain = NavMesh::build(&s, &soup).unwrap();
    assert!(
        plain.mesh().tiles_at(0, 0).count() >= 2,
        "two layers in column (0, 0)"
    );
    let layer_at = |y: f64| -> u16 {
        plain
            .mesh()
            .tiles_at(0, 0)
            .find(|t| {
                let d = t.tile().data();
                let ys = d.vertices.iter().map(|v| f64::from(v[1]) + d.origin_y);
                ys.clone().all(|h| (h - y).abs() < 0.5)
            })
            .map(|t| t.tile().position().2)
            .expect("a layer at that height")
    };
    let (lower, upper) = (layer_at(0.0), layer_at(4.0));
    assert_ne!(lower, upper);
    let s = with_links(
        s,
        vec![
            // On the slab.
            link([5.0, 4.0, 5.0], [5.0, 0.0, 0.5], 1),
            // On the ground, under the slab.
            link([5.0, 0.2, 5.0], [5.0, 4.0, 9.0], 2),
            // Within reach of no layer (2 above the slab, beyond the climb of 0.9): lowest.
            link([5.0, 6.0, 5.0], [5.0, 0.0, 0.5], 3),
        ],
    );
    let nav = NavMesh::build(&s, &soup).unwrap();
    assert_eq!(slot_of(&nav, 1).0, (0, 0, upper));
    assert_eq!(slot_of(&nav, 2).0, (0, 0, lower));
    assert_eq!(slot_of(&nav, 3).0, (0, 0, lower.min(upper)));
}

#[test]
fn rule_3_slot_values_are_float_of_world_minus_the_tile_origin() {
    let start = [12.3, 0.1, 3.7];
    let end = [2.25, 0.0, 14.1]; // another column: in the start tile's frame
    let s = with_links(NavSettings::default(), vec![link(start, end, 7)]);
    let nav = NavMesh::build(&s, &common::floor(15.0)).unwrap();
    let ((x, z, _), l, oy) = slot_of(&nav, 7);
    assert_eq!((x, z), (1, 0));
    let (ox, oz) = nav.mesh().params().tile_origin(1, 0);
    assert_eq!(
        l.start,
        [
            (start[0] - ox) as f32,
            (start[1] - oy) as f32,
            (start[2] - oz) as f32
        ]
    );
    assert_eq!(
        l.end,
        [
            (end[0] - ox) as f32,
            (end[1] - oy) as f32,
            (end[2] - oz) as f32
        ]
    );
    assert_eq!(
        (l.radius, l.area, l.flags, l.bidirectional),
        (0.6, 5, 0x10, false)
    );
    // The link is stitched: its start polygon leaves by an off-mesh link.
    let on = nav.nearest(start).unwrap().unwrap();
    let links = nav.mesh().poly_links(on.poly).unwrap();
    assert!(links
        .iter()
        .any(|k| matches!(k.kind, LinkKind::OffMesh { .. })));
}

#[test]
fn rule_3_an_end_beyond_max_local_extent_in_x_or_z_fails_the_build_naming_the_link() {
    // Cell size 0.3: MaxLocalExtent 16384 · 0.3 = 4915.2.
    let s = with_links(
        NavSettings::default(),
        vec![
            link([5.0, 0.0, 5.0], [6.0, 0.0, 5.0], 1),
            link([5.0, 0.0, 5.0], [5.0, 0.0, 5000.0], 2),
        ],
    );
    assert_eq!(
        NavMesh::build(&s, &common::floor(15.0)).unwrap_err(),
        Error::Build(BuildError::Coordinate(CoordinateError {
            what: "OffMeshLinks[1].end.z".to_string(),
            value: 5000.0,
            bound: 16384.0 * 0.3,
        }))
    );
    // Non-finite and out-of-bound numbers, a radius not above 0 and an area above 63 are
    // refused by the settings already, naming the link.
    let mut settings = NavSettings::default();
    let mut bad = link([5.0, 0.0, 5.0], [6.0, 0.0, 5.0], 1);
    bad.start[1] = f64::INFINITY;
    assert_eq!(
        settings.set_off_mesh_links(vec![bad]).unwrap_err().what,
        "OffMeshLinks[0].start.y"
    );
    bad = link([5.0, 0.0, 5.0], [6.0, 0.0, 5.0], 1);
    bad.radius = -1.0;
    assert_eq!(
        settings.set_off_mesh_links(vec![bad]).unwrap_err().what,
        "OffMeshLinks[0].radius"
    );
    bad.radius = 0.5;
    bad.area = 64;
    assert_eq!(
        settings.set_off_mesh_links(vec![bad]).unwrap_err().what,
        "OffMeshLinks[0].area"
    );
}

#[test]
fn rule_3_a_start_or_end_beyond_max_local_extent_in_height_is_dropped() {
    let s = with_links(
        NavSettings::default(),
        vec![
            link([5.0, 5000.0, 5.0], [6.0, 0.0, 5.0], 1),
            link([5.0, 0.0, 5.0], [6.0, -5000.0, 5.0], 2),
            link([5.0, 0.0, 5.0], [6.0, 0.0, 5.0], 3),
        ],
    );
    let nav = NavMesh::build(&s, &common::floor(15.0)).unwrap();
    let all: Vec<u32> = slots(&nav).into_iter().flat_map(|(_, ids)| ids).collect();
    assert_eq!(all, vec![3]);
}

#[test]
fn rule_4_links_are_appended_in_definition_order() {
    let s = with_links(
        NavSettings::default(),
        vec![
            link([5.0, 0.0, 5.0], [6.0, 0.0, 5.0], 10),
            link([12.0, 0.0, 5.0], [13.0, 0.0, 5.0], 20),
            link([3.0, 0.0, 3.0], [4.0, 0.0, 3.0], 30),
            link([12.0, 0.0, 12.0], [13.0, 0.0, 12.0], 40),
            link([8.0, 0.0, 1.0], [8.0, 0.0, 2.0], 50),
        ],
    );
    let nav = NavMesh::build(&s, &common::floor(15.0)).unwrap();
    let by_tile: Vec<_> = slots(&nav)
        .into_iter()
        .filter(|(_, ids)| !ids.is_empty())
        .collect();
    assert_eq!(
        by_tile,
        vec![
            ((0, 0, 0), vec![10, 30, 50]),
            ((1, 0, 0), vec![20]),
            ((1, 1, 0), vec![40]),
        ]
    );
}

#[test]
fn tile_cache_rebuilds_bake_the_links_by_the_same_rules() {
    let (s, soup) = two_floors();
    let s = with_links(
        s,
        vec![
            link([5.0, 4.0, 5.0], [5.0, 0.0, 0.5], 1),
            link([5.0, 0.2, 5.0], [5.0, 4.0, 9.0], 2),
            link([25.0, 0.0, 5.0], [5.0, 0.0, 5.0], 3),
            link([3.0, 4.0, 3.0], [3.0, 0.0, 0.5], 4),
            link([12.0, 0.0, 0.5], [13.0, 0.0, 0.5], 5),
        ],
    );
    let plain = NavMesh::build(&s, &soup).unwrap();
    let mut cached = NavMesh::build_with_tile_cache(&s, &soup).unwrap();
    assert_eq!(slots(&cached), slots(&plain));
    // A barrel on the ground in column (0, 0) and one in (1, 0): both columns rebuild.
    let barrels = [[7.0, 0.0, 7.0], [11.0, 0.0, 3.0]];
    let ids: Vec<_> = barrels
        .iter()
        .map(|&c| {
            cached
                .add_obstacle(Obstacle::Cylinder {
                    center: c,
                    radius: 0.8,
                    height: 1.5,
                })
                .unwrap()
        })
        .collect();
    assert!(cached.update_all().unwrap().rebuilt >= 2);
    // A fresh build with the barrels among the pipeline's obstacles is what the rebuilt
    // tiles must equal, links included.
    let mut pipeline = onepath::build::Mesh3DPipeline::from_settings(&s).unwrap();
    for &c in &barrels {
        pipeline.obstacles.push(Obstacle::Cylinder {
            center: c,
            radius: 0.8,
            height: 1.5,
        });
    }
    let fresh = pipeline.build_soup(&soup).unwrap();
    for t in &fresh.tiles {
        let (x, z, l) = t.position();
        let mine = cached.mesh().tile_at(x, z, l).unwrap().tile();
        assert_eq!(mine.data().off_mesh_links, t.data().off_mesh_links);
        assert!(mine.to_bytes() == t.to_bytes());
    }
    assert_eq!(slots(&cached), slots(&plain));
    for id in ids {
        cached.remove_obstacle(id).unwrap();
    }
    cached.update_all().unwrap();
    assert_eq!(slots(&cached), slots(&plain));
}
