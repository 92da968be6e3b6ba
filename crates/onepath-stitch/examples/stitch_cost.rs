//! Measures stitching on crafted and ordinary tiles (the figures of `docs/perf/stitch.md`).
//!
//! `cargo run --release -p onepath-stitch --example stitch_cost -- CASE [N]`, CASE one of
//! `nested` (two tiles of N thin triangles whose portal edges all overlap), `staggered` (two
//! tiles of N thin triangles whose edges split the boundary at offset points), `links` (one
//! tile of N × N cells with N² off-mesh links between cell centres) and `grid` (32 × 32 flat
//! tiles of N × N cells, default 4: the shape of the mesh crate's generated mesh). Prints
//! the ONPT bytes of the tiles, the link count and the best of five `stitch_all` times; run
//! it under `/usr/bin/time -v` for the peak memory.

use std::time::Instant;

use onepath_format::NavTile;
use onepath_stitch::{stitch_all, TileSet};

#[path = "../tests/crafted/mod.rs"]
mod crafted;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let case = args.get(1).map_or("grid", String::as_str);
    let default = if case == "grid" { 4 } else { 2400 };
    let n: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(default);
    let p = crafted::params();
    let tiles: Vec<NavTile> = match case {
        "nested" => vec![
            crafted::thin_triangles(&p, 0, 0, 0.0, &crafted::nested(&p, n), &[], Vec::new()),
            crafted::thin_triangles(&p, 1, 0, 0.0, &[], &crafted::nested(&p, n), Vec::new()),
        ],
        "staggered" => vec![
            crafted::thin_triangles(
                &p,
                0,
                0,
                0.0,
                &crafted::partition(&p, n, 0.0),
                &[],
                Vec::new(),
            ),
            crafted::thin_triangles(
                &p,
                1,
                0,
                0.0,
                &[],
                &crafted::partition(&p, n, 0.5),
                Vec::new(),
            ),
        ],
        "links" => vec![crafted::square_cells(
            &p,
            0,
            0,
            0,
            0.0,
            n,
            crafted::cell_links(&p, n, n * n),
        )],
        "grid" => (0..32)
            .flat_map(|z| (0..32).map(move |x| (x, z)))
            .map(|(x, z)| {
                let mut t = crafted::square_cells(&p, x, z, 0, 0.0, n, Vec::new())
                    .data()
                    .clone();
                // Every boundary edge a portal, as in the generated mesh.
                for c in 0..t.corners.len() {
                    let (a, b) = (
                        t.vertices[usize::from(t.corners[c])],
                        t.vertices[usize::from(t.corners[c - c % 4 + (c + 1) % 4])],
                    );
                    for (side, axis, at) in [(0u8, 0, 16.0), (1, 2, 16.0), (2, 0, 0.0), (3, 2, 0.0)]
                    {
                        if a[axis] == at && b[axis] == at {
                            t.edge_portal_sides[c] = side;
                        }
                    }
                }
                NavTile::create(&p, t).expect("grid tile")
            })
            .collect(),
        other => panic!("unknown case {other}"),
    };
    let bytes: usize = tiles.iter().map(|t| t.to_bytes().len()).sum();
    let set = TileSet::new(&p, tiles.iter().enumerate().map(|(i, t)| (i as u32, 1, t)));
    let mut best = f64::INFINITY;
    let mut links = 0usize;
    for _ in 0..5 {
        let t0 = Instant::now();
        let all = stitch_all(&set);
        best = best.min(t0.elapsed().as_secs_f64());
        links = all.iter().flatten().map(|l| l.all_links().len()).sum();
    }
    println!("case {case} n {n}: {} tiles, {bytes} ONPT bytes, {links} links, stitch_all best of 5 {:.3} ms", tiles.len(), best * 1e3);
}
