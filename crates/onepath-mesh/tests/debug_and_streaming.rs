//! Debug geometry and the tile streamer.

use onepath_format::{FormatError, NavMeshParams, NavTile, OffMeshLinkSlot, TileRef};
use onepath_mesh::fixtures::{flat_grid_data, flat_grid_tile};
use onepath_mesh::{LinkKind, MeshError, NavMeshDebug, StreamOp, TileStreamer, TiledNavMesh};

fn params() -> NavMeshParams {
    let mut p = NavMeshParams::new([100.0, 2.0, -50.0], 8.0, 0.25, 6);
    p.walkable_climb = 0.5;
    p
}

fn grid(x: i32, z: i32, layer: u16, y: f64, n: u16) -> NavTile {
    flat_grid_tile(&params(), x, z, layer, y, n).unwrap()
}

#[test]
fn debug_geometry_lists_world_outlines_areas_flags_and_links_in_slot_polygon_link_order() {
    let p = params();
    let mut m = TiledNavMesh::new(p).unwrap();
    let a = m.add_tile(grid(0, 0, 0, 1.0, 1)).unwrap();
    let mut d = flat_grid_data(&p, 1, 0, 0, 1.25, 2);
    d.off_mesh_links.push(OffMeshLinkSlot {
        start: [6.0, 0.0, 6.0],
        end: [-4.0, 0.0, 4.0],
        radius: 0.5,
        area: 1,
        bidirectional: true,
        flags: 1,
        user_id: 3,
    });
    let b = m.add_tile(NavTile::create(&p, d).unwrap()).unwrap();
    m.set_poly_area(a.poly(0).unwrap(), 7).unwrap();
    let dbg = NavMeshDebug::collect(&m);

    assert_eq!(dbg.polygons.len(), 5);
    let first = &dbg.polygons[0];
    assert_eq!(first.poly, a.poly(0).unwrap());
    assert_eq!((first.area, first.flags), (7, 1));
    assert_eq!(
        first.outline,
        vec![
            [100.0, 1.0, -50.0],
            [108.0, 1.0, -50.0],
            [108.0, 1.0, -42.0],
            [100.0, 1.0, -42.0]
        ]
    );
    assert_eq!(dbg.polygons[1].outline[0], [108.0, 1.25, -50.0]);

    let segs: Vec<_> = dbg.links.iter().map(|l| (l.from, l.to, l.a, l.b)).collect();
    // A's polygon: two portals (B's polygons 0 and 2: z 0..4 and 4..8 along x = 8), then the
    // reverse off-mesh link; B's polygon 0 the portal back; B's polygon 3 the forward link.
    let a0 = a.poly(0).unwrap();
    assert_eq!(
        segs,
        vec![
            (
                a0,
                b.poly(0).unwrap(),
                [108.0, 1.0, -50.0],
                [108.0, 1.0, -46.0]
            ),
            (
                a0,
                b.poly(2).unwrap(),
                [108.0, 1.0, -46.0],
                [108.0, 1.0, -42.0]
            ),
            (
                a0,
                b.poly(3).unwrap(),
                [104.0, 1.25, -46.0],
                [114.0, 1.25, -44.0]
            ),
            (
                b.poly(0).unwrap(),
                a0,
                [108.0, 1.25, -50.0],
                [108.0, 1.25, -46.0]
            ),
            (
                b.poly(2).unwrap(),
                a0,
                [108.0, 1.25, -46.0],
                [108.0, 1.25, -42.0]
            ),
            (
                b.poly(3).unwrap(),
                a0,
                [114.0, 1.25, -44.0],
                [104.0, 1.25, -46.0]
            ),
        ]
    );
    assert_eq!(
        dbg.links[2].kind,
        LinkKind::OffMeshReverse {
            owner_slot: 1,
            link: 0
        }
    );
    assert_eq!(dbg.links[5].kind, LinkKind::OffMesh { link: 0 });
}

#[test]
fn debug_portal_segments_cover_only_the_shared_part() {
    let mut m = TiledNavMesh::new(params()).unwrap();
    let a = m.add_tile(grid(0, 0, 0, 0.0, 4)).unwrap();
    m.add_tile(grid(0, 1, 0, 0.0, 1)).unwrap();
    let dbg = NavMeshDebug::collect(&m);
    // A's cell (1, 3) (polygon 13) borders the +Z tile along x 2..4, z = 8.
    let l = dbg
        .links
        .iter()
        .find(|l| l.from == a.poly(13).unwrap())
        .unwrap();
    // Heights are the tile's OriginY + y (the mesh origin's Y plays no part).
    assert_eq!((l.a, l.b), ([102.0, 0.0, -42.0], [104.0, 0.0, -42.0]));
}

#[test]
fn streamed_operations_apply_in_queue_order_at_most_max_at_a_time() {
    let mut m = TiledNavMesh::new(params()).unwrap();
    let mut s = TileStreamer::new();
    s.queue_add(grid(0, 0, 0, 0.0, 1).to_bytes());
    s.queue_add(grid(1, 0, 0, 0.0, 1).to_bytes());
    s.queue_add(grid(1, 0, 1, 4.0, 1).to_bytes());
    s.queue_replace(grid(1, 0, 0, 0.0, 2).to_bytes());
    s.queue_remove_column(1, 0);
    s.queue_load(grid(1, 0, 0, 0.0, 1).to_bytes());
    s.queue_load(grid(1, 0, 0, 0.0, 1).to_bytes());
    assert_eq!(s.update(&mut m, 2), Ok(2));
    assert_eq!(s.len(), 5);
    // Links stitch after every operation.
    assert_eq!(
        m.poly_links(TileRef { salt: 1, slot: 0 }.poly(0).unwrap())
            .unwrap()
            .len(),
        1
    );
    assert_eq!(s.update(&mut m, 2), Ok(2));
    assert_eq!(
        m.tile_at(1, 0, 0).unwrap().tile_ref(),
        TileRef { salt: 2, slot: 1 }
    );
    assert_eq!(
        m.poly_links(TileRef { salt: 1, slot: 0 }.poly(0).unwrap())
            .unwrap()
            .len(),
        2
    );
    assert_eq!(s.update(&mut m, 10), Ok(3));
    assert!(s.is_empty());
    // Out and in again: same tile bytes and position, new slot generations.
    let back = m.tile_at(1, 0, 0).unwrap();
    assert_eq!(back.tile_ref(), TileRef { salt: 4, slot: 1 });
    assert_eq!(m.slot_generation(2), Some(2));
    assert_eq!(m.clone().restitch_all_and(), m);
}

trait Restitched {
    fn restitch_all_and(self) -> Self;
}
impl Restitched for TiledNavMesh {
    fn restitch_all_and(mut self) -> Self {
        self.restitch_all();
        self
    }
}

#[test]
fn a_failing_operation_leaves_the_queue_before_its_error_propagates() {
    let mut m = TiledNavMesh::new(params()).unwrap();
    let mut s = TileStreamer::new();
    let mut other = params();
    other.settings_digest = 1;
    s.queue_add(grid(0, 0, 0, 0.0, 1).to_bytes());
    s.queue_add(flat_grid_tile(&other, 1, 0, 0, 0.0, 1).unwrap().to_bytes());
    s.queue_add(grid(0, 0, 0, 0.0, 1).to_bytes());
    s.queue_add(vec![1, 2, 3]);
    s.queue_add(grid(2, 0, 0, 0.0, 1).to_bytes());
    let e = s.update(&mut m, 10).unwrap_err();
    assert_eq!(
        e,
        MeshError::Format(FormatError::Fingerprint {
            at: "streamed tile".into(),
            found: other.fingerprint(),
            expected: params().fingerprint()
        })
    );
    assert_eq!(s.len(), 3);
    let before = m.clone();
    assert_eq!(
        s.update(&mut m, 10).unwrap_err(),
        MeshError::OccupiedPosition {
            x: 0,
            z: 0,
            layer: 0,
            slot: 0
        }
    );
    assert_eq!(m, before);
    assert!(matches!(
        s.update(&mut m, 10).unwrap_err(),
        MeshError::Format(FormatError::Malformed { .. })
    ));
    assert_eq!(
        s.pending().collect::<Vec<_>>(),
        vec![&StreamOp::Add(grid(2, 0, 0, 0.0, 1).to_bytes())]
    );
    assert_eq!(s.update(&mut m, 10), Ok(1));
    assert_eq!(m.tile_count(), 2);
}
