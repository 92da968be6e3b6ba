//! Stitching as the mesh maintains it: portal pairs, climb, ranges, off-mesh attachment and
//! order, and links as a function of the tiles in their slots.

use std::collections::BTreeMap;

use onepath_format::{NavMeshParams, NavTile, OffMeshLinkSlot, PolyRef, TileRef};
use onepath_mesh::fixtures::{flat_grid_data, flat_grid_tile};
use onepath_mesh::{Link, LinkKind, TiledNavMesh};
use proptest::prelude::*;

fn params() -> NavMeshParams {
    let mut p = NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6);
    p.walkable_climb = 0.5;
    p
}

fn grid(x: i32, z: i32, layer: u16, y: f64, n: u16) -> NavTile {
    flat_grid_tile(&params(), x, z, layer, y, n).unwrap()
}

fn link(start: [f32; 3], end: [f32; 3], radius: f32, bidirectional: bool) -> OffMeshLinkSlot {
    OffMeshLinkSlot {
        start,
        end,
        radius,
        area: 1,
        bidirectional,
        flags: 1,
        user_id: 0,
    }
}

fn with_links(x: i32, z: i32, layer: u16, y: f64, n: u16, links: Vec<OffMeshLinkSlot>) -> NavTile {
    let mut d = flat_grid_data(&params(), x, z, layer, y, n);
    d.off_mesh_links = links;
    NavTile::create(&params(), d).unwrap()
}

fn portal(l: &Link) -> Option<(u8, u8, u8, u8, u8)> {
    match l.kind {
        LinkKind::Portal {
            side,
            edge,
            neighbour_edge,
            range_min,
            range_max,
        } => Some((side, edge, neighbour_edge, range_min, range_max)),
        _ => None,
    }
}

/// Every link of the mesh as (from, link).
fn all_links(m: &TiledNavMesh) -> Vec<(PolyRef, Link)> {
    let mut out = Vec::new();
    for t in m.tiles() {
        for p in 0..t.tile().poly_count() {
            for l in t.poly_links(p) {
                out.push((t.poly_ref(p as u32).unwrap(), *l));
            }
        }
    }
    out
}

#[test]
fn portal_links_come_in_symmetric_pairs() {
    let mut m = TiledNavMesh::new(params()).unwrap();
    // Mixed resolutions (partial overlaps), heights within and beyond the climb, two layers.
    m.add_tile(grid(0, 0, 0, 0.0, 1)).unwrap();
    m.add_tile(grid(1, 0, 0, 0.25, 2)).unwrap();
    m.add_tile(grid(0, 1, 0, 0.5, 4)).unwrap();
    m.add_tile(grid(1, 1, 0, 0.0, 8)).unwrap();
    m.add_tile(grid(1, 1, 1, 0.7, 2)).unwrap();
    m.add_tile(grid(0, 1, 1, 3.0, 2)).unwrap();
    m.add_tile(grid(2, 1, 1, 0.9, 2)).unwrap();
    let links = all_links(&m);
    let portals: Vec<_> = links.iter().filter(|(_, l)| portal(l).is_some()).collect();
    assert!(portals.len() > 20, "{}", portals.len());
    for (from, l) in &portals {
        let (side, edge, nedge, _, _) = portal(l).unwrap();
        let back = m.poly_links(l.target).unwrap().iter().any(|b| {
            b.target == *from
                && portal(b)
                    .is_some_and(|(s, e, ne, _, _)| s == side ^ 2 && e == nedge && ne == edge)
        });
        assert!(back, "{from:?} -> {:?} has no reverse", l.target);
    }
    // Layer 1 of (0, 1) is 3 units up: it links to nothing.
    let high = m.tile_at(0, 1, 1).unwrap();
    assert!(high.links().all_links().is_empty());
    assert_eq!(m.clone().tap_restitch(), m);
}

trait TapRestitch {
    fn tap_restitch(self) -> Self;
}
impl TapRestitch for TiledNavMesh {
    fn tap_restitch(mut self) -> Self {
        self.restitch_all();
        self
    }
}

#[test]
fn a_climb_difference_just_over_walkable_climb_gives_no_link() {
    let climb = f64::from(params().walkable_climb);
    let at = |y: f64| {
        let mut m = TiledNavMesh::new(params()).unwrap();
        let a = m.add_tile(grid(0, 0, 0, 0.0, 1)).unwrap();
        m.add_tile(grid(1, 0, 0, y, 1)).unwrap();
        m.poly_links(a.poly(0).unwrap()).unwrap().len()
    };
    assert_eq!(at(climb), 1);
    assert_eq!(at(-climb), 1);
    assert_eq!(at(climb.next_up()), 0);
    assert_eq!(at(-climb.next_up()), 0);
}

#[test]
fn range_min_and_max_are_hand_computed_fractions_of_the_departing_edge() {
    let mut m = TiledNavMesh::new(params()).unwrap();
    let a = m.add_tile(grid(0, 0, 0, 0.0, 1)).unwrap();
    let b = m.add_tile(grid(1, 0, 0, 0.0, 4)).unwrap();
    // A's edge 1 runs from z = 0 to z = 8; B's cells i = 0 (polygons 0, 4, 8, 12) cover 2
    // units each: t = 0, .25, .5, .75, 1 -> 255·t = 0, 63.75, 127.5, 191.25, 255.
    let got: Vec<_> = m
        .poly_links(a.poly(0).unwrap())
        .unwrap()
        .iter()
        .map(|l| (l.target.poly(), portal(l).unwrap()))
        .collect();
    assert_eq!(
        got,
        vec![
            (0, (0, 1, 3, 0, 64)),
            (4, (0, 1, 3, 63, 128)),
            (8, (0, 1, 3, 127, 192)),
            (12, (0, 1, 3, 191, 255)),
        ]
    );
    // Each of B's edges is covered entirely; B's edge 3 runs from z high to z low.
    for p in [0, 4, 8, 12] {
        let l = m.poly_links(b.poly(p).unwrap()).unwrap();
        assert_eq!(l.len(), 1);
        assert_eq!(portal(&l[0]), Some((2, 3, 1, 0, 255)));
    }
}

#[test]
fn portal_links_are_ordered_by_side_portal_neighbour_layer_and_neighbour_portal() {
    let mut m = TiledNavMesh::new(params()).unwrap();
    let a = m.add_tile(grid(0, 0, 0, 0.0, 1)).unwrap();
    // Added in an order unlike the expected link order.
    m.add_tile(grid(0, -1, 0, 0.0, 1)).unwrap(); // side 3
    m.add_tile(grid(1, 0, 1, 0.25, 2)).unwrap(); // side 0, layer 1
    m.add_tile(grid(-1, 0, 0, 0.0, 1)).unwrap(); // side 2
    m.add_tile(grid(1, 0, 0, 0.0, 2)).unwrap(); // side 0, layer 0
    m.add_tile(grid(0, 1, 0, 0.0, 1)).unwrap(); // side 1
    let got: Vec<_> = m
        .poly_links(a.poly(0).unwrap())
        .unwrap()
        .iter()
        .map(|l| {
            let t = m.tile_at_slot(l.target.slot()).unwrap().tile().position();
            (portal(l).unwrap().0, t, l.target.poly())
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (0, (1, 0, 0), 0),
            (0, (1, 0, 0), 2),
            (0, (1, 0, 1), 0),
            (0, (1, 0, 1), 2),
            (1, (0, 1, 0), 0),
            (2, (-1, 0, 0), 0),
            (3, (0, -1, 0), 0),
        ]
    );
}

#[test]
fn an_off_mesh_end_ties_go_to_the_lower_layer() {
    let mut m = TiledNavMesh::new(params()).unwrap();
    // Layers 0 and 1 of column (1, 0) lie at the same height: equal scores.
    let hi = m.add_tile(grid(1, 0, 1, 0.0, 1)).unwrap();
    let lo = m.add_tile(grid(1, 0, 0, 0.0, 1)).unwrap();
    let owner = m
        .add_tile(with_links(
            0,
            0,
            0,
            0.0,
            1,
            vec![link([4.0, 0.0, 4.0], [12.0, 0.0, 4.0], 0.5, false)],
        ))
        .unwrap();
    let c = m.off_mesh_connection(owner, 0).unwrap();
    assert_eq!(c.end_poly, lo.poly(0));
    assert_ne!(c.end_poly, hi.poly(0));
    // A strictly better score on the higher layer wins.
    let mut m = TiledNavMesh::new(params()).unwrap();
    m.add_tile(grid(1, 0, 0, -0.25, 1)).unwrap();
    let hi = m.add_tile(grid(1, 0, 1, 0.0, 1)).unwrap();
    let owner = m
        .add_tile(with_links(
            0,
            0,
            0,
            0.0,
            1,
            vec![link([4.0, 0.0, 4.0], [12.0, 0.0, 4.0], 0.5, false)],
        ))
        .unwrap();
    assert_eq!(
        m.off_mesh_connection(owner, 0).unwrap().end_poly,
        hi.poly(0)
    );
}

#[test]
fn an_off_mesh_end_ties_go_to_the_lower_polygon_index() {
    let mut m = TiledNavMesh::new(params()).unwrap();
    let target = m.add_tile(grid(1, 0, 0, 0.0, 2)).unwrap();
    // End on the edge shared by polygons 0 and 1 (x = 4 local): both score 0.
    let owner = m
        .add_tile(with_links(
            0,
            0,
            0,
            0.0,
            1,
            vec![
                link([4.0, 0.0, 4.0], [12.0, 0.0, 2.0], 0.5, false),
                link([4.0, 0.0, 4.0], [12.5, 0.0, 2.0], 0.5, false),
            ],
        ))
        .unwrap();
    assert_eq!(
        m.off_mesh_connection(owner, 0).unwrap().end_poly,
        target.poly(0)
    );
    assert_eq!(
        m.off_mesh_connection(owner, 1).unwrap().end_poly,
        target.poly(1)
    );
    // The start ties the same way inside the owning tile (x = 4 is shared by 0 and 1 there
    // too when the owner has 2 × 2 cells).
    let mut m = TiledNavMesh::new(params()).unwrap();
    let owner = m
        .add_tile(with_links(
            0,
            0,
            0,
            0.0,
            2,
            vec![link([4.0, 0.0, 1.0], [1.0, 0.0, 7.0], 0.5, false)],
        ))
        .unwrap();
    let c = *m.off_mesh_connection(owner, 0).unwrap();
    assert_eq!(c.start_poly, owner.poly(0));
    assert_eq!(c.end_poly, owner.poly(2));
}

#[test]
fn an_off_mesh_end_attaches_within_radius_and_climb_else_stays_unconnected() {
    let mut m = TiledNavMesh::new(params()).unwrap();
    let target = m.add_tile(grid(1, 0, 0, 0.0, 1)).unwrap();
    let owner = m
        .add_tile(with_links(
            0,
            0,
            0,
            0.0,
            1,
            vec![
                // 0.5 beyond the tile's +X edge (x = 16 world): exactly the radius.
                link([4.0, 0.0, 4.0], [16.5, 0.0, 4.0], 0.5, true),
                // Just beyond the radius.
                link([4.0, 0.0, 4.0], [16.75, 0.0, 4.0], 0.5, true),
                // Above the polygon by exactly the climb, then by more.
                link([4.0, 0.0, 4.0], [12.0, 0.5, 4.0], 0.5, false),
                link([4.0, 0.0, 4.0], [12.0, 0.75, 4.0], 0.5, false),
            ],
        ))
        .unwrap();
    let ends: Vec<_> = (0..4)
        .map(|i| m.off_mesh_connection(owner, i).unwrap().end_poly)
        .collect();
    assert_eq!(ends, vec![None, None, target.poly(0), None]);
    // Column (2, 0) holds no tile: the end at x = 16.5 finds nothing.
    let mut m2 = m.clone();
    m2.add_tile(grid(2, 0, 0, 5.0, 1)).unwrap();
    assert_eq!(m2.off_mesh_connection(owner, 0).unwrap().end_poly, None);
    // Unconnected links produce no links at all, in either direction.
    let forward: Vec<_> = m
        .poly_links(owner.poly(0).unwrap())
        .unwrap()
        .iter()
        .filter(|l| !matches!(l.kind, LinkKind::Portal { .. }))
        .copied()
        .collect();
    assert_eq!(
        forward,
        vec![Link {
            target: target.poly(0).unwrap(),
            kind: LinkKind::OffMesh { link: 2 }
        }]
    );
}

#[test]
fn an_end_inside_a_polygon_of_its_column_within_the_radius_attaches() {
    // The end lies 0.5 outside tile (1, 0) in column (2, 0), but the polygon is within reach
    // only from (1, 0): the end column decides, so it stays unconnected; inside it attaches.
    let mut m = TiledNavMesh::new(params()).unwrap();
    let target = m.add_tile(grid(1, 0, 0, 0.0, 1)).unwrap();
    let owner = m
        .add_tile(with_links(
            0,
            0,
            0,
            0.0,
            1,
            vec![link([4.0, 0.0, 4.0], [15.75, 0.0, 4.0], 0.5, false)],
        ))
        .unwrap();
    assert_eq!(
        m.off_mesh_connection(owner, 0).unwrap().end_poly,
        target.poly(0)
    );
}

#[test]
fn polygon_links_are_portals_then_forward_off_mesh_in_link_order_then_reverse_by_owner_slot_and_link(
) {
    let mut m = TiledNavMesh::new(params()).unwrap();
    let center = m
        .add_tile(with_links(
            0,
            0,
            0,
            0.0,
            1,
            vec![
                link([4.0, 0.0, 4.0], [4.0, 0.0, 20.0], 0.5, false),
                link([4.0, 0.0, 4.0], [4.0, 0.0, -4.0], 0.5, true),
            ],
        ))
        .unwrap();
    let north = m
        .add_tile(with_links(
            0,
            2,
            0,
            0.0,
            1,
            vec![link([4.0, 0.0, 4.0], [4.0, 0.0, -12.0], 0.5, true)],
        ))
        .unwrap();
    let south = m
        .add_tile(with_links(
            0,
            -1,
            0,
            0.0,
            1,
            vec![
                link([1.0, 0.0, 1.0], [6.0, 0.0, 12.0], 0.5, true),
                link([1.0, 0.0, 1.0], [2.0, 0.0, 9.0], 0.5, true),
            ],
        ))
        .unwrap();
    let c = center.poly(0).unwrap();
    let got: Vec<Link> = m.poly_links(c).unwrap().to_vec();
    assert_eq!(
        got,
        vec![
            Link {
                target: south.poly(0).unwrap(),
                kind: LinkKind::Portal {
                    side: 3,
                    edge: 0,
                    neighbour_edge: 2,
                    range_min: 0,
                    range_max: 255
                }
            },
            Link {
                target: north.poly(0).unwrap(),
                kind: LinkKind::OffMesh { link: 0 }
            },
            Link {
                target: south.poly(0).unwrap(),
                kind: LinkKind::OffMesh { link: 1 }
            },
            Link {
                target: north.poly(0).unwrap(),
                kind: LinkKind::OffMeshReverse {
                    owner_slot: 1,
                    link: 0
                }
            },
            Link {
                target: south.poly(0).unwrap(),
                kind: LinkKind::OffMeshReverse {
                    owner_slot: 2,
                    link: 0
                }
            },
            Link {
                target: south.poly(0).unwrap(),
                kind: LinkKind::OffMeshReverse {
                    owner_slot: 2,
                    link: 1
                }
            },
        ]
    );
    // One-way link 0 of the center gives no reverse link in the north tile.
    let n: Vec<_> = m.poly_links(north.poly(0).unwrap()).unwrap().to_vec();
    assert!(!n.iter().any(|l| l.kind
        == LinkKind::OffMeshReverse {
            owner_slot: 0,
            link: 0
        }));
    // Removing the north tile drops the links into it everywhere.
    m.remove_tile(north).unwrap();
    assert!(m
        .poly_links(c)
        .unwrap()
        .iter()
        .all(|l| l.target.slot() != 1));
    assert_eq!(m.clone().tap_restitch(), m);
}

// ---------------------------------------------------------------------------------------
// Links are a function of the set of tiles in their slots.

/// A pool of tiles: (position key, variant) -> tile. Variants differ in resolution, height
/// and off-mesh links, so replace really changes links.
fn pool_tile(pos: u8, variant: u8, off_mesh: bool) -> NavTile {
    let (x, z, layer) = [
        (0, 0, 0),
        (1, 0, 0),
        (0, 1, 0),
        (1, 1, 0),
        (1, 1, 1),
        (2, 0, 0),
    ][usize::from(pos % 6)];
    let y = [0.0, 0.25, 3.0, 0.5][usize::from(variant % 4)] + f64::from(layer) * 0.125;
    let n = [1, 2, 4][usize::from(variant % 3)];
    let links = if off_mesh && variant % 2 == 0 {
        vec![
            link([1.0, 0.0, 1.0], [9.0, 0.0, 1.0], 1.0, true),
            link([3.0, 0.0, 3.0], [3.0, 0.25, 11.0], 1.0, variant % 4 == 0),
        ]
    } else {
        Vec::new()
    };
    with_links(x, z, layer, y, n, links)
}

#[derive(Debug, Clone)]
enum Op {
    Add(u8, u8),
    Remove(u8),
    Replace(u8, u8),
    RemoveColumn(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..6, 0u8..12).prop_map(|(p, v)| Op::Add(p, v)),
        2 => (0u8..6).prop_map(Op::Remove),
        2 => (0u8..6, 0u8..12).prop_map(|(p, v)| Op::Replace(p, v)),
        1 => (0u8..6).prop_map(Op::RemoveColumn),
    ]
}

fn position(pos: u8) -> (i32, i32, u16) {
    pool_tile(pos, 0, false).position()
}

fn run(m: &mut TiledNavMesh, op: &Op, off_mesh: bool) {
    match *op {
        Op::Add(p, v) => {
            let _ = m.add_tile(pool_tile(p, v, off_mesh));
        }
        Op::Remove(p) => {
            let (x, z, l) = position(p);
            m.remove_tile_at(x, z, l);
        }
        Op::Replace(p, v) => {
            let _ = m.replace_tile(pool_tile(p, v, off_mesh));
        }
        Op::RemoveColumn(p) => {
            let (x, z, _) = position(p);
            m.remove_column(x, z);
        }
    }
}

/// (slot, polygon) -> links as (target slot, target polygon, kind).
type NormalizedLinks = BTreeMap<(u32, u32), Vec<(u32, u32, LinkKind)>>;

/// Links with the salt taken out of every target (different histories give different
/// generations), plus a check that each target's salt is its slot's current generation.
fn normalized_links(m: &TiledNavMesh) -> NormalizedLinks {
    let mut out = BTreeMap::new();
    for t in m.tiles() {
        for p in 0..t.tile().poly_count() {
            let v = t
                .poly_links(p)
                .iter()
                .map(|l| {
                    assert_eq!(Some(l.target.salt()), m.slot_generation(l.target.slot()));
                    (l.target.slot(), l.target.poly(), l.kind)
                })
                .collect();
            out.insert((t.slot(), p as u32), v);
        }
    }
    out
}

/// The same final tiles in the same slots by another route: fill every slot with a filler
/// tile far away, then (in `order`) swap each filler for the final tile, replace some final
/// tiles by themselves, and free the slots that end free.
fn rebuild_in_other_order(
    target: &TiledNavMesh,
    order: &[usize],
    replace_again: &[bool],
) -> TiledNavMesh {
    let p = params();
    let mut m = TiledNavMesh::new(p).unwrap();
    let n = target.slot_count() as usize;
    let mut fillers = Vec::new();
    for s in 0..n {
        let r = m
            .add_tile(grid(100 + 2 * s as i32, 100, 0, 0.0, 1))
            .unwrap();
        fillers.push(r);
    }
    let mut current: Vec<TileRef> = fillers.clone();
    let slots: Vec<usize> = {
        let mut s: Vec<usize> = (0..n).collect();
        for (i, &o) in order.iter().enumerate().take(n) {
            s.swap(i, o % n);
        }
        s
    };
    for &s in &slots {
        if let Some(t) = target.tile_at_slot(s as u32) {
            m.remove_tile(current[s]).unwrap();
            let r = m.add_tile(t.tile().clone()).unwrap();
            assert_eq!(r.slot as usize, s);
            current[s] = r;
            if replace_again.get(s).copied().unwrap_or(false) {
                current[s] = m.replace_tile(t.tile().clone()).unwrap().0;
            }
        }
    }
    for &s in &slots {
        if target.tile_at_slot(s as u32).is_none() {
            m.remove_tile(current[s]).unwrap();
        }
    }
    m
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(64, |c: u32| (c / 16).max(64))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn any_history_ending_in_the_same_tiles_in_the_same_slots_gives_the_same_links(
        ops in proptest::collection::vec(op(), 1..24),
        order in proptest::collection::vec(any::<usize>(), 8),
        replace_again in proptest::collection::vec(any::<bool>(), 8),
        off_mesh in any::<bool>(),
    ) {
        let mut m = TiledNavMesh::new(params()).unwrap();
        for o in &ops {
            run(&mut m, o, off_mesh);
        }
        let other = rebuild_in_other_order(&m, &order, &replace_again);
        prop_assert_eq!(normalized_links(&other), normalized_links(&m));
        // And the same slots with the same generations built at once.
        let slots = m
            .slots()
            .map(|s| (s.generation, s.tile.map(|t| t.tile().clone())))
            .collect();
        let fresh = TiledNavMesh::from_slots(params(), slots).unwrap();
        prop_assert_eq!(&fresh, &m);
    }

    #[test]
    fn incremental_restitching_equals_a_full_restitch_after_every_edit(
        ops in proptest::collection::vec(op(), 1..24),
        off_mesh in any::<bool>(),
    ) {
        let mut m = TiledNavMesh::new(params()).unwrap();
        for o in &ops {
            run(&mut m, o, off_mesh);
            let full = m.clone().tap_restitch();
            prop_assert_eq!(&full, &m);
        }
    }
}

/// The tiles in their slots, ignoring generations.
fn tiles_in_slots(m: &TiledNavMesh) -> Vec<Option<NavTile>> {
    m.slots()
        .map(|s| s.tile.map(|t| t.tile().clone()))
        .collect()
}

fn history_and_permutation() -> impl Strategy<Value = (Vec<Op>, Vec<usize>)> {
    proptest::collection::vec(
        prop_oneof![
            3 => (0u8..3, 0u8..4).prop_map(|(p, v)| Op::Add(p, v)),
            1 => (0u8..3).prop_map(Op::Remove),
            2 => (0u8..3, 0u8..4).prop_map(|(p, v)| Op::Replace(p, v)),
        ],
        2..7,
    )
    .prop_flat_map(|ops| {
        let idx: Vec<usize> = (0..ops.len()).collect();
        (Just(ops), Just(idx).prop_shuffle())
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        max_global_rejects: 100_000,
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_permuted_history_that_ends_in_the_same_tiles_in_the_same_slots_gives_identical_links(
        (ops, perm) in history_and_permutation(),
        off_mesh in any::<bool>(),
    ) {
        let mut a = TiledNavMesh::new(params()).unwrap();
        for o in &ops {
            run(&mut a, o, off_mesh);
        }
        let mut b = TiledNavMesh::new(params()).unwrap();
        for &i in &perm {
            run(&mut b, &ops[i], off_mesh);
        }
        prop_assume!(tiles_in_slots(&a) == tiles_in_slots(&b));
        prop_assert_eq!(normalized_links(&a), normalized_links(&b));
    }
}
