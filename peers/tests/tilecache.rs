//! The tile cache comparison's two sides run the same history and come back to where they
//! started: after 16 cylinders added and removed, DetourTileCache's navmesh has its tiles and
//! polygons again, and OnePath's mesh holds the first build's tiles byte for byte.

use onepath_peers::tilecache::{
    city_level, cycle_cylinders, cycle_settings, DetourTileCacheRun, OnePathTileCacheRun,
};

#[test]
fn both_tile_caches_come_back_to_their_first_build_after_the_cycle() {
    let level = city_level();
    let settings = cycle_settings(64);
    let cylinders = cycle_cylinders(&level).unwrap();

    let mut detour = DetourTileCacheRun::build(&level, &settings).unwrap();
    let before = detour.counts();
    assert!(before.0 > 0 && before.1 > 0);
    let r = detour
        .add_cylinder(cylinders[5].0, cylinders[5].1, cylinders[5].2)
        .unwrap();
    assert!(detour.update_all().unwrap() >= 1);
    detour.remove(r).unwrap();
    detour.update_all().unwrap();
    detour.cycles(&cylinders).unwrap();
    assert_eq!(detour.counts(), before);

    let mut onepath = OnePathTileCacheRun::build(&level, &settings).unwrap();
    let first: Vec<Vec<u8>> = onepath
        .cache
        .mesh()
        .tiles()
        .map(|t| t.tile().to_bytes())
        .collect();
    onepath.cycles(&cylinders).unwrap();
    let s = onepath.cache.stats();
    assert!(s.rebuilt > 0 && s.first_build > 0);
    let after: Vec<Vec<u8>> = onepath
        .cache
        .mesh()
        .tiles()
        .map(|t| t.tile().to_bytes())
        .collect();
    assert_eq!(after, first);
}
