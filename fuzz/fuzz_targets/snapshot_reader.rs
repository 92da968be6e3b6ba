//! Fuzzes the ONPS reader (`onepath-snapshot`): any bytes give a typed error or a mesh, never
//! a panic; a failed in-place restore leaves the target mesh equal to what it was; an
//! accepted snapshot restores the same mesh both ways and snapshots back to a Full snapshot
//! that restores to it again without a library (`restore_full`, which otherwise accepts
//! only what the library restore accepts, as the same mesh). Each input is read twice: as given, and after a valid header
//! (magic, version, flags, the target's parameter block) so mutations reach the sections.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use onepath_format::{NavMeshParams, NavTile, NavTileData, OffMeshLinkSlot};
use onepath_snapshot::{NavMeshSnapshot, SnapshotMode, TileLibrary, TiledNavMesh};

/// The parameters of the fuzz seeds (as the `tile_reader` target).
fn params() -> NavMeshParams {
    NavMeshParams::new([0.0, 0.0, 0.0], 8.0, 0.25, 6)
}

/// One square polygon covering tile (x, z), every edge a portal; optionally one off-mesh
/// link across it.
fn square_tile(p: &NavMeshParams, x: i32, z: i32, link: bool) -> NavTile {
    let data = NavTileData {
        tile_x: x,
        tile_z: z,
        vertices: vec![[0.0, 0.0, 0.0], [8.0, 0.0, 0.0], [8.0, 0.0, 8.0], [0.0, 0.0, 8.0]],
        poly_sizes: vec![4],
        poly_areas: vec![0],
        poly_flags: vec![1],
        corners: vec![0, 1, 2, 3],
        edge_neighbours: vec![0; 4],
        edge_portal_sides: vec![3, 0, 1, 2],
        off_mesh_links: if link {
            vec![OffMeshLinkSlot {
                start: [2.0, 0.0, 2.0],
                end: [6.0, 0.0, 6.0],
                radius: 1.0,
                area: 1,
                bidirectional: true,
                flags: 1,
                user_id: 1,
            }]
        } else {
            Vec::new()
        },
        ..Default::default()
    };
    NavTile::create(p, data).expect("the fuzz fixture tile is valid")
}

/// The target mesh (slot 0: tile (0, 0) with an area edit; slot 1: free, generation 2;
/// slot 2: tile (1, 0) with its link off) and a library of both tiles.
fn setup() -> &'static (TiledNavMesh, TileLibrary) {
    static SETUP: OnceLock<(TiledNavMesh, TileLibrary)> = OnceLock::new();
    SETUP.get_or_init(|| {
        let p = params();
        let a = square_tile(&p, 0, 0, false);
        let b = square_tile(&p, 0, 1, false);
        let c = square_tile(&p, 1, 0, true);
        let mut lib = TileLibrary::new(&p);
        for t in [&a, &b, &c] {
            lib.add(t).expect("same parameters");
        }
        let mut mesh = TiledNavMesh::new(p).expect("valid parameters");
        let ra = mesh.add_tile(a).expect("free position");
        let rb = mesh.add_tile(b).expect("free position");
        let rc = mesh.add_tile(c).expect("free position");
        mesh.remove_tile(rb).expect("present");
        mesh.set_poly_area(ra.poly(0).expect("polygon 0"), 5).expect("valid edit");
        mesh.set_off_mesh_link_enabled(rc, 0, false).expect("link 0");
        (mesh, lib)
    })
}

fn check(bytes: &[u8], mesh: &TiledNavMesh, lib: &TileLibrary) {
    let fresh = NavMeshSnapshot::restore(bytes, lib);
    // Without a library: whatever is accepted is accepted with one too, as the same mesh.
    let alone = NavMeshSnapshot::restore_full(bytes);
    if let Ok(m) = &alone {
        assert_eq!(fresh.as_ref().ok(), Some(m));
    }
    let mut alone_target = mesh.clone();
    if NavMeshSnapshot::restore_full_in_place(&mut alone_target, bytes).is_err() {
        assert!(&alone_target == mesh, "a failed restore_full must leave the mesh untouched");
    }
    let mut target = mesh.clone();
    match NavMeshSnapshot::restore_in_place(&mut target, bytes, lib) {
        Err(_) => assert!(&target == mesh, "a failed restore must leave the mesh untouched"),
        Ok(()) => {
            assert_eq!(fresh.as_ref().ok(), Some(&target));
            let again = NavMeshSnapshot::take(&target, SnapshotMode::Full);
            let back = NavMeshSnapshot::restore_full(&again).expect("a Full snapshot restores");
            assert!(back == target, "a Full snapshot restores the same mesh");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let (mesh, lib) = setup();
    check(data, mesh, lib);
    // The same input after a valid header: magic, version 2, flags 0, parameter block.
    let mut patched = Vec::with_capacity(76 + data.len());
    patched.extend_from_slice(b"ONPS");
    patched.extend_from_slice(&2u16.to_le_bytes());
    patched.extend_from_slice(&0u16.to_le_bytes());
    patched.extend_from_slice(&mesh.params().to_block());
    patched.extend_from_slice(data);
    check(&patched, mesh, lib);
});
