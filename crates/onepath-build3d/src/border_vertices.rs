//! Border-vertex removal (`docs/build3d-polys.md` §2, "Border vertices"): a vertex where two
//! regions of a tile meet its border ring is taken out of the polygon mesh, and the polygons
//! around it are re-made without it, so that a tile's portal edges end only where the
//! walkable surface itself changes along the tile boundary (a wall, a change of area) — the
//! places the neighbouring tile sees too. Regions are a tile's own choice; without this, two
//! tiles facing a boundary split it at different places, and on a slope one side's straight
//! edge passes above or below the other side's vertex by more than the climb.
//!
//! The rule is all or nothing per vertex: the vertex goes only when every polygon around it
//! has the same area, it lies strictly inside the straight line of the two outline edges it
//! joins, the remaining edges chain into one simple outline, that outline triangulates
//! completely, the new polygons pass the merge veto and they cover exactly the same area in
//! cells. Otherwise the mesh is left as it was and the vertex stays (costing a link, never a
//! hole).

use crate::polymesh::{merge_polygons, triangulate, ConvexCheck, PolyMesh};

/// Removes, in vertex order, every vertex flagged in `on_border` (indexed like
/// `mesh.verts`; missing entries are unflagged) that the rule allows. `on_border` is used
/// up: it ends with the flags of the vertices left.
pub(crate) fn remove_border_vertices(
    mesh: &mut PolyMesh,
    on_border: &mut Vec<bool>,
    nvp: usize,
    convex_ok: &ConvexCheck<'_>,
) {
    let flags = on_border;
    flags.resize(mesh.verts.len(), false);
    let mut v = 0;
    while v < mesh.verts.len() {
        if flags[v] {
            if let Some(fill) = refill(mesh, v as u32, nvp, convex_ok) {
                apply(mesh, v as u32, fill);
                flags.remove(v);
                // The next vertex now has index v.
                continue;
            }
        }
        v += 1;
    }
}

/// The polygons that replace the ones around a removed vertex.
struct Refill {
    /// Indices of the polygons that contain the vertex (ascending).
    around: Vec<usize>,
    /// The new polygons (mesh vertex indices, mesh winding).
    polys: Vec<Vec<u32>>,
    /// The regions the old polygons covered (ascending); every new polygon covers them.
    regs: Vec<u16>,
    /// The area id all the old polygons share.
    area: u8,
}

/// Twice the signed area of a polygon in cells (X/Z).
fn area2(verts: &[[i32; 3]], poly: &[u32]) -> i64 {
    let n = poly.len();
    let mut a = 0i64;
    for i in 0..n {
        let p = verts[poly[i] as usize];
        let q = verts[poly[(i + 1) % n] as usize];
        a += i64::from(p[0]) * i64::from(q[2]) - i64::from(q[0]) * i64::from(p[2]);
    }
    a
}

/// Whether `p` lies strictly between `a` and `b` on the straight segment ab (cells, X/Z).
fn strictly_inside_segment(a: [i32; 3], b: [i32; 3], p: [i32; 3]) -> bool {
    let (ax, az) = (i64::from(a[0]), i64::from(a[2]));
    let (bx, bz) = (i64::from(b[0]), i64::from(b[2]));
    let (px, pz) = (i64::from(p[0]), i64::from(p[2]));
    let cross = (bx - ax) * (pz - az) - (px - ax) * (bz - az);
    if cross != 0 {
        return false;
    }
    let dot = (px - ax) * (bx - ax) + (pz - az) * (bz - az);
    let len2 = (bx - ax) * (bx - ax) + (bz - az) * (bz - az);
    dot > 0 && dot < len2
}

/// The replacement for the polygons around `rem`, or `None` when the rule keeps it.
fn refill(mesh: &PolyMesh, rem: u32, nvp: usize, convex_ok: &ConvexCheck<'_>) -> Option<Refill> {
    let around: Vec<usize> = (0..mesh.polys.len())
        .filter(|&p| mesh.polys[p].contains(&rem))
        .collect();
    // An unused vertex (all its triangles were degenerate) has nothing to re-make.
    let area = mesh.areas[*around.first()?];
    if around.iter().any(|&p| mesh.areas[p] != area) {
        return None;
    }
    // The outline edges that do not touch `rem` (the rest of the outline), and the edges
    // that do ("spokes"), counted by their other end: a spoke used once is an outline edge.
    let mut rest: Vec<(u32, u32)> = Vec::new();
    let mut spokes: Vec<(u32, u32)> = Vec::new();
    for &p in &around {
        let poly = &mesh.polys[p];
        let n = poly.len();
        for k in 0..n {
            let (a, b) = (poly[k], poly[(k + 1) % n]);
            if a != rem && b != rem {
                rest.push((a, b));
                continue;
            }
            let other = if a == rem { b } else { a };
            match spokes.iter_mut().find(|s| s.0 == other) {
                Some(s) => s.1 += 1,
                None => spokes.push((other, 1)),
            }
        }
    }
    // Fewer than three edges left cannot make a polygon (the tip of a lone triangle).
    if rest.len() < 3 {
        return None;
    }
    let open: Vec<u32> = spokes.iter().filter(|s| s.1 == 1).map(|s| s.0).collect();
    // Exactly two outline edges meet at a vertex on the mesh outline; other counts mean
    // polygons that only touch there, or a vertex inside the mesh: both stay.
    let [u, w] = open[..] else {
        return None;
    };
    let v = |k: u32| mesh.verts[k as usize];
    if !strictly_inside_segment(v(u), v(w), v(rem)) {
        return None;
    }
    let hole = chain(&rest)?;
    let (first, last) = (hole[0], hole[hole.len() - 1]);
    if !((first == u && last == w) || (first == w && last == u)) {
        return None;
    }
    let cells: Vec<[i32; 4]> = hole
        .iter()
        .map(|&k| {
            let p = v(k);
            [p[0], p[1], p[2], 0]
        })
        .collect();
    let (tris, complete) = triangulate(&cells);
    if !complete {
        return None;
    }
    let mut polys: Vec<Vec<u32>> = tris
        .iter()
        .map(|t| vec![hole[t[0]], hole[t[1]], hole[t[2]]])
        .collect();
    merge_polygons(&mut polys, &mesh.verts, nvp, convex_ok);
    let old: i64 = around
        .iter()
        .map(|&p| area2(&mesh.verts, &mesh.polys[p]).abs())
        .sum();
    let mut new = 0i64;
    for p in &polys {
        let a = area2(&mesh.verts, p).abs();
        if a == 0 || !convex_ok(&mesh.verts, p) {
            return None;
        }
        new += a;
    }
    if new != old {
        return None;
    }
    let mut regs: Vec<u16> = around
        .iter()
        .flat_map(|&p| mesh.regs[p].iter().copied())
        .collect();
    regs.sort_unstable();
    regs.dedup();
    Some(Refill {
        around,
        polys,
        regs,
        area,
    })
}

/// The directed edges chained into one open path (its vertices, first to last), or `None`
/// when they do not form a single simple path.
fn chain(edges: &[(u32, u32)]) -> Option<Vec<u32>> {
    // The path starts where an edge starts that no edge ends in.
    let start = edges.iter().find(|e| !edges.iter().any(|f| f.1 == e.0))?.0;
    let mut path = vec![start];
    let mut used = vec![false; edges.len()];
    let mut at = start;
    for _ in 0..edges.len() {
        let mut next = None;
        for (i, e) in edges.iter().enumerate() {
            if !used[i] && e.0 == at {
                if next.is_some() {
                    // Two ways on: the outline touches itself here.
                    return None;
                }
                next = Some(i);
            }
        }
        let i = next?;
        used[i] = true;
        at = edges[i].1;
        if path.contains(&at) {
            return None;
        }
        path.push(at);
    }
    Some(path)
}

/// Replaces the polygons around `rem` by the refill (appended after the others, which keep
/// their order) and deletes the vertex, renumbering the later ones.
fn apply(mesh: &mut PolyMesh, rem: u32, fill: Refill) {
    let mut keep = vec![true; mesh.polys.len()];
    for &p in &fill.around {
        keep[p] = false;
    }
    let mut k = 0;
    mesh.polys.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    let mut k = 0;
    mesh.regs.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    let mut k = 0;
    mesh.areas.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    for p in fill.polys {
        mesh.polys.push(p);
        mesh.regs.push(fill.regs.clone());
        mesh.areas.push(fill.area);
    }
    mesh.verts.remove(rem as usize);
    for p in &mut mesh.polys {
        for i in p.iter_mut() {
            if *i > rem {
                *i -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn any(_: &[[i32; 3]], _: &[u32]) -> bool {
        true
    }

    /// Two quads side by side along the tile boundary z = 0, meeting at (4, 0): the shared
    /// vertex on the boundary is removed and the boundary becomes one edge.
    fn two_quads() -> PolyMesh {
        PolyMesh {
            // 0 (0,0) 1 (4,0) 2 (8,0) 3 (8,4) 4 (4,4) 5 (0,4)
            verts: vec![
                [0, 0, 0],
                [4, 1, 0],
                [8, 2, 0],
                [8, 2, 4],
                [4, 1, 4],
                [0, 0, 4],
            ],
            // Recast's winding (clockwise with +Z up): (0,0) -> (0,4) -> (4,4) -> (4,0).
            polys: vec![vec![0, 5, 4, 1], vec![1, 4, 3, 2]],
            regs: vec![vec![1], vec![2]],
            areas: vec![63, 63],
        }
    }

    #[test]
    fn a_border_vertex_between_two_regions_is_removed_and_the_boundary_is_one_edge() {
        let mut m = two_quads();
        remove_border_vertices(&mut m, &mut vec![false, true], 6, &any);
        assert_eq!(m.verts.len(), 5);
        assert!(!m.verts.contains(&[4, 1, 0]));
        // One boundary edge from (0,0) to (8,0) in some polygon.
        let (a, b) = (0u32, 1u32); // (0,0) and (8,0) after renumbering
        assert_eq!(m.verts[b as usize], [8, 2, 0]);
        let has_edge = m.polys.iter().any(|p| {
            (0..p.len()).any(|k| {
                let (x, y) = (p[k], p[(k + 1) % p.len()]);
                (x, y) == (a, b) || (x, y) == (b, a)
            })
        });
        assert!(has_edge, "{:?}", m.polys);
        let total: i64 = m.polys.iter().map(|p| area2(&m.verts, p).abs()).sum();
        assert_eq!(total, 2 * 32);
        assert!(m.regs.iter().all(|r| r == &vec![1, 2]));
    }

    #[test]
    fn a_vertex_where_the_outline_turns_stays() {
        // The same quads with the middle boundary vertex moved off the line: removing it
        // would change the outline, so the mesh is left exactly as it was.
        let mut m = two_quads();
        m.verts[1] = [4, 1, 1];
        let before = m.clone();
        remove_border_vertices(&mut m, &mut vec![false, true], 6, &any);
        assert_eq!(m, before);
    }

    #[test]
    fn polygons_of_different_areas_keep_their_shared_border_vertex() {
        let mut m = two_quads();
        m.areas[1] = 5;
        let before = m.clone();
        remove_border_vertices(&mut m, &mut vec![false, true], 6, &any);
        assert_eq!(m, before);
    }

    #[test]
    fn a_vetoed_refill_leaves_the_mesh_as_it_was() {
        let mut m = two_quads();
        let before = m.clone();
        let veto_all = |_: &[[i32; 3]], _: &[u32]| false;
        remove_border_vertices(&mut m, &mut vec![false, true], 6, &veto_all);
        assert_eq!(m, before);
    }
}
