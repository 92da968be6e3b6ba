//! OPGS save/restore (`docs/grid-state.md`, "The contract" and "Encoding") for Grid (1), Graph (4), A* (8), Theta* (10) and graph A* (11).

mod common;

use common::{cases, graph_err, grid_err, grid_from_bytes};

use std::sync::{Arc, Mutex};

use onepath_format::bytes::ByteWriter;
use onepath_format::FormatError;
use onepath_gridstate::{
    CellEdit, Graph, GraphAStar, GraphOptions, Grid, GridAStar, GridError, GridOptions, GridPath,
    GridSpace, SearchStatus, SlicedSearch, ThetaStar, WALL,
};
use proptest::prelude::*;

fn sample_grid() -> Grid {
    let mut g = Grid::from_ascii(&[
        "..........",
        ".####.22..",
        "....#.22..",
        ".##.#.....",
        "..#...###.",
        "..#.1.....",
    ])
    .unwrap();
    g.set_area_cost(2, 2.5).unwrap();
    g.set_space(GridSpace::new(10.0, -3.0, 0.25).unwrap());
    g.set_blocked(9, 0, true).unwrap();
    g
}

fn recording() -> GridOptions {
    GridOptions {
        record_expansions: true,
        ..GridOptions::default()
    }
}

// ------------------------------------------------------------------ header

#[test]
fn header_is_magic_opgs_version_1_and_kind() {
    let bytes = sample_grid().save_state();
    assert_eq!(&bytes[..8], &[0x4F, 0x50, 0x47, 0x53, 1, 0, 1, 0]);
    let g = Graph::new(3).unwrap().save_state();
    assert_eq!(&g[..8], &[0x4F, 0x50, 0x47, 0x53, 1, 0, 4, 0]);
}

#[test]
fn a_bad_magic_is_malformed() {
    let mut bytes = sample_grid().save_state();
    bytes[0] = b'X';
    assert!(matches!(
        Grid::from_state(&bytes),
        Err(FormatError::Malformed { ref at, .. }) if at == "OPGS magic"
    ));
}

#[test]
fn an_unknown_format_version_is_a_version_error() {
    let mut bytes = sample_grid().save_state();
    bytes[4] = 2;
    assert_eq!(
        Grid::from_state(&bytes).unwrap_err(),
        FormatError::Version {
            what: "OPGS",
            found: 2,
            expected: 1
        }
    );
}

#[test]
fn another_kind_is_a_state_error_naming_it() {
    let bytes = Graph::new(3).unwrap().save_state();
    assert_eq!(
        Grid::from_state(&bytes).unwrap_err(),
        grid_err("kind 4 where kind 1 was expected")
    );
}

#[test]
fn after_the_payload_nothing_may_follow() {
    let mut bytes = sample_grid().save_state();
    bytes.push(0);
    assert_eq!(
        Grid::from_state(&bytes).unwrap_err(),
        FormatError::malformed("OPGS payload", "1 trailing bytes")
    );
    let mut g = Graph::new(2).unwrap().save_state();
    g.push(7);
    assert_eq!(
        Graph::from_state(&g).unwrap_err(),
        FormatError::malformed("OPGS payload", "1 trailing bytes")
    );
}

// ------------------------------------------------------------------ Grid (1)

#[test]
fn grid_saving_twice_without_a_change_gives_the_same_bytes() {
    let g = sample_grid();
    assert_eq!(g.save_state(), g.save_state());
}

#[test]
fn grid_save_restore_save_gives_the_same_bytes() {
    let g = sample_grid();
    let bytes = g.save_state();
    let mut other = Grid::new(10, 6).unwrap();
    other.restore_state(&bytes).unwrap();
    assert_eq!(other.save_state(), bytes);
    assert_eq!(Grid::from_state(&bytes).unwrap().save_state(), bytes);
    assert_eq!(other.version(), g.version());
    assert_eq!(other.areas(), g.areas());
    assert_eq!(other.space(), g.space());
}

#[test]
fn grid_layout_is_width_height_version_space_areas_cells() {
    let mut g = Grid::new(3, 2).unwrap();
    g.set_area(1, 1, 7).unwrap();
    let b = g.save_state();
    assert_eq!(b.len(), 8 + 12 + 24 + 4 + 255 * 8 + 6);
    assert_eq!(&b[8..20], &[3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0]);
    assert_eq!(&b[20..44], &[0u8; 24]);
    assert_eq!(&b[44..48], &[0, 0, 0, 0]);
    assert_eq!(&b[48..56], &1.0f64.to_le_bytes());
    assert_eq!(&b[b.len() - 6..], &[0, 0, 0, 0, 7, 0]);
}

#[test]
fn grid_restore_requires_the_same_width_and_height() {
    let bytes = sample_grid().save_state();
    let mut other = Grid::new(6, 10).unwrap();
    assert_eq!(
        other.restore_state(&bytes).unwrap_err(),
        grid_err("size 10 x 6 does not match the grid's 6 x 10")
    );
}

fn grid_bytes_with(edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut b = sample_grid().save_state();
    edit(&mut b);
    b
}

#[test]
fn grid_restore_validates_before_it_changes_anything() {
    let mut g = Grid::new(10, 6).unwrap();
    g.set_blocked(0, 0, true).unwrap();
    let before = g.save_state();
    let told = Arc::new(Mutex::new(0usize));
    let t = told.clone();
    g.add_listener(move |_| *t.lock().unwrap() += 1);
    // The last multiplier (area 254) is NaN: everything before it is fine.
    let bytes = grid_bytes_with(|b| {
        let at = 48 + 254 * 8;
        b[at..at + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    });
    assert_eq!(
        g.restore_state(&bytes).unwrap_err(),
        grid_err("area 254 multiplier NaN is not finite and > 0")
    );
    assert_eq!(g.save_state(), before);
    assert_eq!(*told.lock().unwrap(), 0);
    // A short cell array.
    let short = {
        let mut b = sample_grid().save_state();
        b.pop();
        b
    };
    assert!(matches!(
        g.restore_state(&short),
        Err(FormatError::Malformed { ref at, .. }) if at == "cells"
    ));
    assert_eq!(g.save_state(), before);
}

#[test]
fn grid_space_follows_the_constructor_rules() {
    let bytes = grid_bytes_with(|b| b[36..44].copy_from_slice(&0.0f64.to_le_bytes()));
    // origin (10, -3) with cell size 0 is not the all-zero default.
    assert_eq!(
        Grid::from_state(&bytes).unwrap_err(),
        grid_err("space: invalid cell size: 0 is not in (0, 2^21]")
    );
    let bytes = grid_bytes_with(|b| b[20..28].copy_from_slice(&4.0e6f64.to_le_bytes()));
    assert_eq!(
        Grid::from_state(&bytes).unwrap_err(),
        grid_err("space: invalid origin x: 4000000 is not finite with |v| <= 2^21")
    );
}

#[test]
fn grid_counts_and_versions_are_non_negative() {
    let bytes = grid_bytes_with(|b| b[16..20].copy_from_slice(&(-1i32).to_le_bytes()));
    assert_eq!(
        Grid::from_state(&bytes).unwrap_err(),
        grid_err("version -1 is negative")
    );
    let bytes = grid_bytes_with(|b| b[44..48].copy_from_slice(&(-5i32).to_le_bytes()));
    assert_eq!(
        Grid::from_state(&bytes).unwrap_err(),
        grid_err("areas version -5 is negative")
    );
    let bytes = grid_bytes_with(|b| b[8..12].copy_from_slice(&(-10i32).to_le_bytes()));
    assert_eq!(
        Grid::from_state(&bytes).unwrap_err(),
        grid_err("size -10 x 6 is not at least 1 x 1")
    );
}

#[test]
fn grid_cell_count_is_bounded_by_the_bytes_left() {
    let bytes = grid_bytes_with(|b| {
        b[8..12].copy_from_slice(&40000i32.to_le_bytes());
        b[12..16].copy_from_slice(&40000i32.to_le_bytes());
    });
    assert!(matches!(
        Grid::from_state(&bytes),
        Err(FormatError::Malformed { ref at, .. }) if at == "cells"
    ));
    let bytes = grid_bytes_with(|b| {
        b[8..12].copy_from_slice(&i32::MAX.to_le_bytes());
        b[12..16].copy_from_slice(&3i32.to_le_bytes());
    });
    assert_eq!(
        Grid::from_state(&bytes).unwrap_err(),
        grid_err("2147483647 x 3 cells exceed 2147483647")
    );
}

#[test]
fn restoring_a_grid_tells_listeners_each_differing_cell_in_ascending_order() {
    let target = {
        let mut g = Grid::new(4, 3).unwrap();
        g.set_blocked(3, 0, true).unwrap();
        g.set_area(1, 2, 5).unwrap();
        g.set_area(0, 1, 9).unwrap();
        g.save_state()
    };
    let mut g = Grid::new(4, 3).unwrap();
    g.set_area(0, 1, 9).unwrap(); // same as the target: not an edit
    g.set_area(2, 2, 1).unwrap(); // differs: back to 0
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    g.add_listener(move |e: &CellEdit| s.lock().unwrap().push(*e));
    g.restore_state(&target).unwrap();
    let e = |cell, old_area, new_area| CellEdit {
        cell,
        old_area,
        new_area,
    };
    assert_eq!(
        *seen.lock().unwrap(),
        vec![e(3, 0, WALL), e(9, 5 - 5, 5), e(10, 1, 0)]
    );
    assert_eq!(g.save_state(), target);
}

#[test]
fn nothing_derived_is_trusted_across_a_grid_restore() {
    // A search begun before the restore sees a changed grid even when the version repeats.
    let mut g = Grid::new(5, 5).unwrap();
    let v0 = g.save_state();
    g.set_blocked(2, 2, true).unwrap();
    let mut s = GridAStar::new(GridOptions::default()).unwrap();
    s.begin(&g, (0, 0), (4, 4)).unwrap();
    g.restore_state(&v0).unwrap();
    g.set_blocked(1, 1, true).unwrap(); // version 1 again, other timeline
    assert_eq!(g.version(), 1);
    assert_eq!(
        s.step(&g, 10).unwrap_err(),
        GridError::Stale { began: 1, now: 1 }
    );
}

// ------------------------------------------------------------------ Graph (4)

fn sample_graph() -> Graph {
    let mut g = Graph::new(6).unwrap();
    g.add_undirected(0, 1, 1.5).unwrap();
    g.add_edge(1, 2, 2.0).unwrap();
    let dead = g.add_edge(2, 5, 0.5).unwrap();
    g.add_edge(2, 3, 0.0).unwrap();
    g.add_undirected(3, 5, 4.25).unwrap();
    g.remove_edge(dead).unwrap();
    g
}

#[test]
fn graph_saving_twice_without_a_change_gives_the_same_bytes() {
    let g = sample_graph();
    assert_eq!(g.save_state(), g.save_state());
}

#[test]
fn graph_save_restore_save_gives_the_same_bytes() {
    let bytes = sample_graph().save_state();
    let mut other = Graph::new(2).unwrap();
    other.restore_state(&bytes).unwrap();
    assert_eq!(other.save_state(), bytes);
    assert_eq!(other.node_count(), 6);
    assert_eq!(Graph::from_state(&bytes).unwrap().save_state(), bytes);
}

#[test]
fn graph_layout_is_node_count_edge_count_and_edges_in_id_order() {
    let mut g = Graph::new(3).unwrap();
    let id = g.add_edge(2, 0, 0.5).unwrap();
    g.remove_edge(id).unwrap();
    let b = g.save_state();
    let mut w = ByteWriter::new();
    w.bytes(b"OPGS");
    w.u16(1);
    w.u16(4);
    w.i32(3);
    w.i32(1);
    w.i32(2);
    w.i32(0);
    w.f64(0.5);
    w.u8(0);
    assert_eq!(b, w.into_vec());
}

#[test]
fn a_graph_state_names_its_node_count_outright_up_to_2_pow_26() {
    let mut w = ByteWriter::new();
    w.bytes(b"OPGS");
    w.u16(1);
    w.u16(4);
    w.i32(1 << 26);
    w.i32(0);
    let g = Graph::from_state(w.as_slice()).unwrap();
    assert_eq!(g.node_count(), 1 << 26);
    let mut w = ByteWriter::new();
    w.bytes(b"OPGS");
    w.u16(1);
    w.u16(4);
    w.i32((1 << 26) + 1);
    w.i32(0);
    assert_eq!(
        Graph::from_state(w.as_slice()).unwrap_err(),
        graph_err("node count 67108865 out of range 0..=2^26")
    );
}

fn graph_with_edge(from: i32, to: i32, weight: f64, alive: u8) -> Vec<u8> {
    let mut w = ByteWriter::new();
    w.bytes(b"OPGS");
    w.u16(1);
    w.u16(4);
    w.i32(4);
    w.i32(2);
    w.i32(0);
    w.i32(1);
    w.f64(1.0);
    w.u8(1);
    w.i32(from);
    w.i32(to);
    w.f64(weight);
    w.u8(alive);
    w.into_vec()
}

#[test]
fn graph_edges_have_endpoints_below_the_node_count_and_finite_non_negative_weights() {
    assert_eq!(
        Graph::from_state(&graph_with_edge(4, 1, 1.0, 1)).unwrap_err(),
        graph_err("edge 1: edge from 4 out of range 0..4")
    );
    assert_eq!(
        Graph::from_state(&graph_with_edge(1, -1, 1.0, 1)).unwrap_err(),
        graph_err("edge 1: edge to -1 out of range 0..4")
    );
    assert_eq!(
        Graph::from_state(&graph_with_edge(1, 2, -0.5, 1)).unwrap_err(),
        graph_err("edge 1: weight -0.5 is not finite and >= 0")
    );
    assert_eq!(
        Graph::from_state(&graph_with_edge(1, 2, f64::NAN, 1)).unwrap_err(),
        graph_err("edge 1: weight NaN is not finite and >= 0")
    );
    assert_eq!(
        Graph::from_state(&graph_with_edge(1, 2, f64::INFINITY, 1)).unwrap_err(),
        graph_err("edge 1: weight inf is not finite and >= 0")
    );
    assert_eq!(
        Graph::from_state(&graph_with_edge(1, 2, 1.0, 2)).unwrap_err(),
        graph_err("edge 1: edge alive flag 2 is not 0 or 1")
    );
    assert!(Graph::from_state(&graph_with_edge(1, 2, 0.0, 0)).is_ok());
}

#[test]
fn graph_edge_count_is_bounded_by_the_bytes_left() {
    let mut b = graph_with_edge(1, 2, 1.0, 1);
    b[12..16].copy_from_slice(&3i32.to_le_bytes());
    assert!(matches!(
        Graph::from_state(&b),
        Err(FormatError::Malformed { ref at, .. }) if at == "edge count"
    ));
    b[12..16].copy_from_slice(&(-1i32).to_le_bytes());
    assert_eq!(
        Graph::from_state(&b).unwrap_err(),
        graph_err("edge count -1 is negative")
    );
}

#[test]
fn graph_restore_validates_before_it_changes_anything() {
    let mut g = sample_graph();
    let before = g.save_state();
    let v = g.version();
    assert_eq!(
        g.restore_state(&graph_with_edge(1, 2, 1.0, 3)).unwrap_err(),
        graph_err("edge 1: edge alive flag 3 is not 0 or 1")
    );
    assert_eq!(g.save_state(), before);
    assert_eq!(g.version(), v);
}

// ------------------------------------------------------------------ searches (8, 10, 11)

/// Hand-built kind 8/10/11 bytes.
struct SearchBytes {
    kind: u16,
    n: i32,
    status: u8,
    weight: f64,
    start: i32,
    goal: i32,
    expanded: i32,
    iterations: i32,
    cost: f64,
    visited: Vec<(i32, u8, f64, i32)>,
    open: Vec<(i32, f64, f64)>,
    expansions: Vec<i32>,
}

impl SearchBytes {
    /// A valid in-progress A* state on a 3 × 1 open grid, start 0, goal 2, one expansion.
    fn base() -> Self {
        SearchBytes {
            kind: 8,
            n: 3,
            status: 1,
            weight: 1.0,
            start: 0,
            goal: 2,
            expanded: 1,
            iterations: 1,
            cost: 0.0,
            visited: vec![(0, 1, 0.0, -1), (1, 0, 1.0, 0)],
            open: vec![(1, 2.0, 1.0)],
            expansions: vec![],
        }
    }
    fn bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new();
        w.bytes(b"OPGS");
        w.u16(1);
        w.u16(self.kind);
        w.i32(self.n);
        w.u8(self.status);
        w.f64(self.weight);
        w.i32(self.start);
        w.i32(self.goal);
        w.i32(self.expanded);
        w.i32(self.iterations);
        w.f64(self.cost);
        if self.status != 0 {
            w.i32(self.visited.len() as i32);
            for &(n, c, g, p) in &self.visited {
                w.i32(n);
                w.u8(c);
                w.f64(g);
                w.i32(p);
            }
            w.i32(self.open.len() as i32);
            for &(n, f, g) in &self.open {
                w.i32(n);
                w.f64(f);
                w.f64(g);
            }
            w.i32(self.expansions.len() as i32);
            for &e in &self.expansions {
                w.i32(e);
            }
        }
        w.into_vec()
    }
}

fn line3() -> Grid {
    Grid::new(3, 1).unwrap()
}

fn restore_astar(b: &SearchBytes) -> Result<GridAStar, FormatError> {
    let grid = line3();
    let mut s = GridAStar::new(GridOptions::default()).unwrap();
    s.restore_state(&grid, &b.bytes())?;
    Ok(s)
}

#[test]
fn a_hand_built_astar_state_restores_and_finishes() {
    let grid = line3();
    let mut s = GridAStar::new(GridOptions::default()).unwrap();
    s.restore_state(&grid, &SearchBytes::base().bytes())
        .unwrap();
    assert_eq!(s.step(&grid, 10).unwrap(), SearchStatus::Found);
    let r = s.result().unwrap();
    assert_eq!(r.nodes, vec![0, 1, 2]);
    assert_eq!(r.cost, 2.0);
    // The restored state saves to the bytes it was read from.
    let s2 = restore_astar(&SearchBytes::base()).unwrap();
    assert_eq!(s2.save_state(&grid), SearchBytes::base().bytes());
}

#[test]
fn search_node_count_and_weight_must_match_the_restoring_search() {
    let mut b = SearchBytes::base();
    b.n = 4;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("node count 4 does not match the search's 3")
    );
    let mut b = SearchBytes::base();
    b.weight = 1.5;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("heuristic weight 1.5 does not match the search's 1")
    );
    b.weight = f64::NAN;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("heuristic weight is NaN")
    );
}

#[test]
fn search_status_must_be_defined_and_start_goal_in_range() {
    let mut b = SearchBytes::base();
    b.status = 4;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("search status 4 is undefined")
    );
    let mut b = SearchBytes::base();
    b.goal = 3;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("goal 3 out of range 0..3")
    );
    let mut b = SearchBytes::base();
    b.status = 0;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("a search that has not started has start and goal -1")
    );
    let mut b = SearchBytes::base();
    b.expanded = 2;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("expanded 2 exceeds iterations 1")
    );
    let mut b = SearchBytes::base();
    b.iterations = -1;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("iterations -1 is negative")
    );
}

#[test]
fn visited_nodes_are_in_range_increasing_and_flags_are_0_or_1() {
    let mut b = SearchBytes::base();
    b.visited = vec![(1, 0, 1.0, 0), (0, 1, 0.0, -1)];
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("visited node 0 does not follow 1 in increasing order")
    );
    let mut b = SearchBytes::base();
    b.visited[1].0 = 3;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("visited node 3 out of range 0..3")
    );
    let mut b = SearchBytes::base();
    b.visited[0].1 = 2;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("visited closed flag 2 is not 0 or 1")
    );
    let mut b = SearchBytes::base();
    b.visited[1].2 = f64::NAN;
    assert_eq!(restore_astar(&b).unwrap_err(), grid_err("visited g is NaN"));
    let mut b = SearchBytes::base();
    b.visited[1].2 = -1.0;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("visited node 1: g -1 is not finite and >= 0")
    );
    let mut b = SearchBytes::base();
    b.visited = vec![(0, 1, 0.0, -1); 4];
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("visited count 4 exceeds 3")
    );
}

#[test]
fn parent_links_lead_only_to_visited_nodes_that_cost_no_more_without_cycles() {
    let mut b = SearchBytes::base();
    b.visited[1].3 = 2;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("node 1: parent 2 is not visited")
    );
    let mut b = SearchBytes::base();
    b.visited[1].3 = 7;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("visited node 1: parent 7 out of range")
    );
    let mut b = SearchBytes::base();
    b.visited[0].2 = 3.0;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("node 1: parent 0 costs more (3 > 1)")
    );
    // Equal costs may still not loop.
    let mut b = SearchBytes::base();
    b.visited = vec![(0, 1, 1.0, 1), (1, 0, 1.0, 0)];
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("parent links of node 0 form a cycle")
    );
    let mut b = SearchBytes::base();
    b.visited = vec![(0, 1, 0.0, -1), (1, 0, 1.0, 1)];
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("parent links of node 1 form a cycle")
    );
}

#[test]
fn heaps_may_not_list_a_node_twice_and_f_g_are_not_nan() {
    let mut b = SearchBytes::base();
    b.open = vec![(1, 2.0, 1.0), (1, 2.0, 1.0)];
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("open set slot 1: node 1 is listed twice")
    );
    let mut b = SearchBytes::base();
    b.open[0].1 = f64::NAN;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("open set F is NaN")
    );
    let mut b = SearchBytes::base();
    b.open[0].2 = f64::NAN;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("open set G is NaN")
    );
    let mut b = SearchBytes::base();
    b.open[0].0 = 0;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("open node 0 is closed")
    );
    let mut b = SearchBytes::base();
    b.open[0].0 = 2;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("open node 2 is not visited")
    );
    let mut b = SearchBytes::base();
    b.open[0].0 = -2;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("open set node -2 out of range 0..3")
    );
}

#[test]
fn a_found_search_has_its_goal_closed_and_expansions_are_bounded() {
    let mut b = SearchBytes::base();
    b.status = 2;
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("a found search has its goal closed")
    );
    let mut b = SearchBytes::base();
    b.expansions = vec![0, 1];
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("expanded list holds 2 nodes, more than expanded 1")
    );
    let mut b = SearchBytes::base();
    b.expansions = vec![5];
    assert_eq!(
        restore_astar(&b).unwrap_err(),
        grid_err("expanded list node 5 out of range 0..3")
    );
}

#[test]
fn a_failed_search_restore_leaves_the_search_unchanged() {
    let grid = sample_grid();
    let mut s = GridAStar::new(recording()).unwrap();
    s.begin(&grid, (0, 0), (9, 5)).unwrap();
    s.step(&grid, 5).unwrap();
    let before = s.save_state(&grid);
    let mut b = SearchBytes::base();
    b.n = 60;
    b.open[0].1 = f64::NAN;
    assert_eq!(
        s.restore_state(&grid, &b.bytes()).unwrap_err(),
        grid_err("open set F is NaN")
    );
    assert_eq!(s.save_state(&grid), before);
}

#[test]
fn graph_search_errors_are_graph_state_errors() {
    let g = sample_graph().compile();
    let mut s = GraphAStar::new(GraphOptions::default()).unwrap();
    let mut b = SearchBytes::base();
    b.kind = 11;
    b.n = 6;
    b.visited[1].3 = 5;
    assert_eq!(
        s.restore_state(&g, &b.bytes()).unwrap_err(),
        graph_err("node 1: parent 5 is not visited")
    );
    b.kind = 8;
    assert_eq!(
        s.restore_state(&g, &b.bytes()).unwrap_err(),
        graph_err("kind 8 where kind 11 was expected")
    );
}

#[test]
fn a_search_that_never_began_saves_and_restores_as_not_started() {
    let grid = sample_grid();
    let s = GridAStar::new(GridOptions::default()).unwrap();
    let bytes = s.save_state(&grid);
    let mut t = GridAStar::new(GridOptions::default()).unwrap();
    t.begin(&grid, (0, 0), (3, 0)).unwrap();
    t.restore_state(&grid, &bytes).unwrap();
    assert_eq!(t.result().unwrap_err(), GridError::NotBegun);
    assert_eq!(t.save_state(&grid), bytes);
}

// ------------------------------------------------------------------ property tests

fn random_grid(w: u32, h: u32, cells: &[u8]) -> Grid {
    let mut g = grid_from_bytes(w, h, cells, |c| match c % 8 {
        0 | 1 => WALL,
        2 => 1,
        _ => 0,
    });
    g.set_area_cost(1, 1.75).unwrap();
    g
}

fn finish_grid_astar(grid: &Grid, start: (u32, u32), goal: (u32, u32), n: u64) -> GridPath {
    let mut s = GridAStar::new(recording()).unwrap();
    s.begin(grid, start, goal).unwrap();
    s.step(grid, n).unwrap();
    let bytes = s.save_state(grid);
    assert_eq!(bytes, s.save_state(grid));
    // Restore the grid too, into a fresh grid, then the search into a fresh search.
    let grid2 = Grid::from_state(&grid.save_state()).unwrap();
    let mut t = GridAStar::new(recording()).unwrap();
    t.restore_state(&grid2, &bytes).unwrap();
    assert_eq!(t.save_state(&grid2), bytes);
    t.step(&grid2, u64::MAX).unwrap();
    t.result().unwrap()
}

fn finish_theta(grid: &Grid, start: (u32, u32), goal: (u32, u32), n: u64) -> GridPath {
    let mut s = ThetaStar::new(recording()).unwrap();
    s.begin(grid, start, goal).unwrap();
    s.step(grid, n).unwrap();
    let bytes = s.save_state(grid);
    let grid2 = Grid::from_state(&grid.save_state()).unwrap();
    let mut t = ThetaStar::new(recording()).unwrap();
    t.restore_state(&grid2, &bytes).unwrap();
    assert_eq!(t.save_state(&grid2), bytes);
    t.step(&grid2, u64::MAX).unwrap();
    t.result().unwrap()
}

fn random_graph(n: u32, edges: &[(u32, u32, u8)]) -> Graph {
    let mut g = Graph::new(n).unwrap();
    for &(a, b, w) in edges {
        let id = g.add_edge(a % n, b % n, f64::from(w % 8) * 0.5).unwrap();
        if w >= 240 {
            g.remove_edge(id).unwrap();
        }
    }
    g
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]

    #[test]
    fn astar_stepped_n_saved_restored_and_finished_equals_the_uninterrupted_search(
        w in 2u32..14, h in 2u32..14, cells in proptest::collection::vec(any::<u8>(), 196),
        sx in 0u32..14, sy in 0u32..14, gx in 0u32..14, gy in 0u32..14, n in 0u64..60,
    ) {
        let grid = random_grid(w, h, &cells);
        let (start, goal) = ((sx % w, sy % h), (gx % w, gy % h));
        let mut full = GridAStar::new(recording()).unwrap();
        let expected = full.find_path(&grid, start, goal).unwrap();
        prop_assert_eq!(finish_grid_astar(&grid, start, goal, n), expected);
    }

    #[test]
    fn theta_stepped_n_saved_restored_and_finished_equals_the_uninterrupted_search(
        w in 2u32..12, h in 2u32..12, cells in proptest::collection::vec(any::<u8>(), 144),
        sx in 0u32..12, sy in 0u32..12, gx in 0u32..12, gy in 0u32..12, n in 0u64..40,
    ) {
        let grid = random_grid(w, h, &cells);
        let (start, goal) = ((sx % w, sy % h), (gx % w, gy % h));
        let mut full = ThetaStar::new(recording()).unwrap();
        let expected = full.find_path(&grid, start, goal).unwrap();
        prop_assert_eq!(finish_theta(&grid, start, goal, n), expected);
    }

    #[test]
    fn graph_astar_stepped_n_saved_restored_and_finished_equals_the_uninterrupted_search(
        nodes in 1u32..40, edges in proptest::collection::vec((any::<u32>(), any::<u32>(), any::<u8>()), 0..120),
        s in any::<u32>(), g in any::<u32>(), n in 0u64..50,
    ) {
        let graph = random_graph(nodes, &edges);
        let (s, g) = (s % nodes, g % nodes);
        let opts = GraphOptions { record_expansions: true, ..GraphOptions::default() };
        let csr = graph.compile();
        let expected = GraphAStar::new(opts).unwrap().find_path(&csr, s, g).unwrap();
        let mut a = GraphAStar::new(opts).unwrap();
        a.begin(&csr, s, g).unwrap();
        a.step(&csr, n).unwrap();
        let bytes = a.save_state(&csr);
        // The graph goes through its own state too.
        let graph2 = Graph::from_state(&graph.save_state()).unwrap();
        prop_assert_eq!(graph2.save_state(), graph.save_state());
        let csr2 = graph2.compile();
        let mut b = GraphAStar::new(opts).unwrap();
        b.restore_state(&csr2, &bytes).unwrap();
        prop_assert_eq!(b.save_state(&csr2), bytes);
        b.step(&csr2, u64::MAX).unwrap();
        prop_assert_eq!(b.result().unwrap(), expected);
    }
}
