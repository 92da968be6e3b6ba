//! Grid objects: versions, listeners and the edit journal, spaces, area multipliers,
//! Moving AI parsing, debug descriptions.

use std::sync::{Arc, Mutex};

use onepath_gridstate::{
    AreaCosts, CellEdit, Grid, GridAlgorithm, GridDebug, GridError, GridOptions, GridPathStatus,
    GridSearch, GridSpace, SlicedSearch, EDIT_JOURNAL_LEN, WALL,
};

#[test]
fn version_grows_with_every_changing_edit_only() {
    let mut g = Grid::new(4, 3).unwrap();
    assert_eq!(g.version(), 0);
    g.set_area(1, 1, 7).unwrap();
    g.set_area(1, 1, 7).unwrap(); // same area: not an edit
    g.set_blocked(2, 2, true).unwrap();
    assert_eq!(g.version(), 2);
    assert_eq!(g.area(2, 2).unwrap(), WALL);
}

#[test]
fn listeners_are_told_every_edit_in_order() {
    let mut g = Grid::new(4, 3).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = Arc::clone(&seen);
    let id = g.add_listener(move |e| s2.lock().unwrap().push(*e));
    g.set_area(1, 0, 5).unwrap();
    g.set_area(1, 0, 5).unwrap();
    g.set_blocked(3, 2, true).unwrap();
    assert!(g.remove_listener(id));
    g.set_area(0, 0, 1).unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            CellEdit {
                cell: 1,
                old_area: 0,
                new_area: 5
            },
            CellEdit {
                cell: 11,
                old_area: 0,
                new_area: WALL
            }
        ]
    );
    assert!(!g.remove_listener(id));
}

#[test]
fn journal_replays_recent_edits_and_refuses_older_ones() {
    let mut g = Grid::new(8, 8).unwrap();
    g.set_area(0, 0, 1).unwrap();
    let v = g.version();
    g.set_area(1, 0, 2).unwrap();
    g.set_area(2, 0, 3).unwrap();
    assert_eq!(
        g.edits_since(v)
            .unwrap()
            .iter()
            .map(|e| e.cell)
            .collect::<Vec<_>>(),
        vec![1, 2]
    );
    assert_eq!(g.edits_since(g.version()).unwrap(), vec![]);
    for k in 0..=EDIT_JOURNAL_LEN as u32 {
        g.set_area(k % 8, (k / 8) % 8, (k % 200) as u8 + 10)
            .unwrap();
    }
    assert_eq!(g.edits_since(v), None);
}

#[test]
fn space_and_area_rules_are_checked() {
    assert_eq!(GridSpace::new(0.0, 0.0, 0.0).unwrap(), GridSpace::default());
    assert!(matches!(
        GridSpace::new(1.0, 2.0, 0.0),
        Err(GridError::Invalid {
            what: "cell size",
            ..
        })
    ));
    assert!(matches!(
        GridSpace::new(3e6, 0.0, 1.0),
        Err(GridError::Invalid {
            what: "origin x",
            ..
        })
    ));
    assert!(matches!(
        GridSpace::new(0.0, f64::NAN, 1.0),
        Err(GridError::Invalid {
            what: "origin y",
            ..
        })
    ));
    let s = GridSpace::new(10.0, -4.0, 0.5).unwrap();
    assert_eq!(s.cell_center(2, 3), (11.25, -2.25));
    assert_eq!(s.cell_at(11.3, -2.2), Some((2, 3)));
    let mut a = AreaCosts::new();
    assert!(matches!(
        a.set(WALL, 2.0),
        Err(GridError::Invalid { what: "area", .. })
    ));
    assert!(matches!(
        a.set(3, 0.0),
        Err(GridError::Invalid {
            what: "area multiplier",
            ..
        })
    ));
    assert!(matches!(
        a.set(3, f64::INFINITY),
        Err(GridError::Invalid {
            what: "area multiplier",
            ..
        })
    ));
    a.set(3, 2.0).unwrap();
    a.set(3, 2.0).unwrap();
    assert_eq!(
        (a.version(), a.get(3), a.get(WALL), a.is_uniform_one()),
        (1, 2.0, f64::INFINITY, false)
    );
    assert!(matches!(
        Grid::new(0, 5),
        Err(GridError::OutOfRange { what: "width", .. })
    ));
    assert!(matches!(
        Grid::new(65536, 65536),
        Err(GridError::Invalid { what: "size", .. })
    ));
}

#[test]
fn moving_ai_maps_parse() {
    let g = Grid::from_movingai("type octile\nheight 2\nwidth 3\nmap\n.@T\nGS.\n").unwrap();
    assert_eq!((g.width(), g.height()), (3, 2));
    assert_eq!(g.cells(), &[0, WALL, WALL, 0, 0, 0]);
    assert!(Grid::from_movingai("type octile\nheight 2\nwidth 3\nmap\n...\n").is_err());
}

#[test]
fn a_moving_ai_map_reads_the_same_from_text_a_reader_and_a_path() {
    let text = "type octile\nheight 2\nwidth 3\nmap\n.@T\nGS.\n";
    let from_text = Grid::from_movingai(text).unwrap();
    let from_reader = Grid::from_movingai_reader(text.as_bytes()).unwrap();
    assert_eq!(from_reader.save_state(), from_text.save_state());
    let path = std::env::temp_dir().join(format!("onepath-movingai-{}.map", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let from_path = Grid::from_movingai_path(&path);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(from_path.unwrap().save_state(), from_text.save_state());
    // What cannot be read names the source.
    let missing = path.with_extension("absent");
    match Grid::from_movingai_path(&missing) {
        Err(GridError::Unreadable { what, .. }) => assert_eq!(what, missing.display().to_string()),
        other => panic!("expected Unreadable, got {other:?}"),
    }
    assert!(matches!(
        Grid::from_movingai_reader(&[0xFFu8, 0xFE][..]),
        Err(GridError::Unreadable { ref what, .. }) if what == "reader"
    ));
}

#[test]
fn debug_description_lists_cells_and_recorded_expansions() {
    let grid = Grid::from_ascii(&["...", ".#.", "..."]).unwrap();
    let mut gs = GridSearch::new(
        GridAlgorithm::AStar,
        GridOptions {
            record_expansions: true,
            ..GridOptions::default()
        },
    )
    .unwrap();
    let r = gs.find_path(&grid, (0, 0), (2, 2)).unwrap();
    let d = GridDebug::describe(&grid, &r);
    assert_eq!(d.status, GridPathStatus::Found);
    assert_eq!(d.path.first(), Some(&(0, 0)));
    assert_eq!(d.path.last(), Some(&(2, 2)));
    assert_eq!(d.cost, 4.0);
    assert_eq!(
        d.expanded.as_ref().map(Vec::len),
        Some(d.expanded_count as usize)
    );
    assert_eq!(d.expanded.as_ref().and_then(|e| e.first()), Some(&(0, 0)));
}
