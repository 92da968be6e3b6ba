//! Hostile sizes and encodings (issue 22, item 6): a Moving AI header cannot make the
//! reader allocate more than its text holds, and a space written with -0.0 is refused by
//! the grid, hex grid and voxel grid state readers (one state, one encoding).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use common::grid_err;
use onepath_gridstate::{
    Grid, GridError, GridSpace, HexGrid, HexLayout, VoxelGrid, VoxelSpace, MAX_CELLS,
};

/// Counts the bytes each thread asks the allocator for (tests run on several threads).
struct Counting;

thread_local! {
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to `System` unchanged; the counter is a const-initialised
// thread-local `Cell` (no allocation, no destructor).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.with(|a| a.set(a.get() + layout.size() as u64));
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.with(|a| a.set(a.get() + layout.size() as u64));
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.with(|a| a.set(a.get() + new_size as u64));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// `f`'s result and the bytes this thread allocated while it ran.
fn allocated_by<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = ALLOCATED.with(Cell::get);
    let out = f();
    (out, ALLOCATED.with(Cell::get) - before)
}

/// 29 bytes asking for 46 340 × 46 340 cells (2 GiB, within MAX_CELLS) with no rows.
const HOSTILE_HEADER: &str = "height 46340\nwidth 46340\nmap\n";

fn missing_rows(found: u32) -> GridError {
    GridError::Invalid {
        what: "Moving AI map height",
        reason: format!("the header says 46340 rows (of 46340 cells), the map has {found}"),
    }
}

#[test]
fn movingai_header_without_its_rows_fails_before_allocating_the_cells() {
    assert_eq!(HOSTILE_HEADER.len(), 29);
    const { assert!(46340u64 * 46340 <= MAX_CELLS) };
    let (r, bytes) = allocated_by(|| Grid::from_movingai(HOSTILE_HEADER));
    assert_eq!(r.unwrap_err(), missing_rows(0));
    // The error's message is all it allocates: nothing near the 2 GiB of cells.
    assert!(bytes < 4096, "{bytes} bytes allocated");

    let (r, bytes) = allocated_by(|| Grid::from_movingai_reader(HOSTILE_HEADER.as_bytes()));
    assert_eq!(r.unwrap_err(), missing_rows(0));
    assert!(bytes < 4096, "{bytes} bytes allocated");

    let path = std::env::temp_dir().join(format!("onepath-hostile-{}.map", std::process::id()));
    std::fs::write(&path, HOSTILE_HEADER).unwrap();
    let (r, bytes) = allocated_by(|| Grid::from_movingai_path(&path));
    let _ = std::fs::remove_file(&path);
    assert_eq!(r.unwrap_err(), missing_rows(0));
    assert!(bytes < 8192, "{bytes} bytes allocated");
}

#[test]
fn movingai_allocation_is_bounded_by_the_rows_present() {
    // One full row of the 46 340 declared: the text holds 46 KB, the cells would be 2 GiB.
    let text = format!("{HOSTILE_HEADER}{}\n", ".".repeat(46340));
    let (r, bytes) = allocated_by(|| Grid::from_movingai(&text));
    assert_eq!(r.unwrap_err(), missing_rows(1));
    assert!(bytes < 4096, "{bytes} bytes allocated");
    // A short row is named before anything is allocated too.
    let text = format!("{HOSTILE_HEADER}...\n");
    let (r, bytes) = allocated_by(|| Grid::from_movingai(&text));
    assert_eq!(
        r.unwrap_err(),
        GridError::Invalid {
            what: "Moving AI map",
            reason: "row 0 has 3 cells, not 46340".to_string()
        }
    );
    assert!(bytes < 4096, "{bytes} bytes allocated");
}

#[test]
fn movingai_complete_map_allocates_about_its_cells() {
    let (w, h) = (300u32, 200u32);
    let row = format!("{}\n", ".".repeat(w as usize));
    let text = format!(
        "type octile\nheight {h}\nwidth {w}\nmap\n{}\n\n",
        row.repeat(h as usize)
    );
    let (grid, bytes) = allocated_by(|| Grid::from_movingai(&text).unwrap());
    assert_eq!((grid.width(), grid.height()), (w, h));
    assert!(grid.is_walkable(299, 199));
    let cells = u64::from(w * h);
    assert!(
        bytes >= cells && bytes < 2 * cells,
        "{bytes} bytes for {cells} cells"
    );
    // One row too many is still refused, one too few names the height.
    let more = format!("{text}{row}");
    assert_eq!(
        Grid::from_movingai(&more).unwrap_err(),
        GridError::Invalid {
            what: "Moving AI map",
            reason: format!("more than {h} rows")
        }
    );
    let fewer = format!(
        "type octile\nheight {h}\nwidth {w}\nmap\n{}",
        row.repeat(199)
    );
    assert_eq!(
        Grid::from_movingai(&fewer).unwrap_err(),
        GridError::Invalid {
            what: "Moving AI map height",
            reason: format!("the header says {h} rows (of {w} cells), the map has 199")
        }
    );
}

/// The reader's error for a -0.0 in `field`.
fn negative_zero(field: &str) -> onepath_format::FormatError {
    grid_err(&format!(
        "space: invalid {field}: is -0.0; a zero is written +0.0 (one state, one encoding)"
    ))
}

/// `bytes` with the f64 at `at` replaced by -0.0.
fn with_negative_zero(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at..at + 8].copy_from_slice(&(-0.0f64).to_le_bytes());
    b
}

/// Restoring `bad` into `target` fails naming `field` and leaves its state unchanged.
fn refused_in_place<T>(
    target: &mut T,
    save: impl Fn(&T) -> Vec<u8>,
    restore: impl Fn(&mut T, &[u8]) -> Result<(), onepath_format::FormatError>,
    bad: &[u8],
    field: &str,
) {
    let before = save(target);
    assert_eq!(restore(target, bad).unwrap_err(), negative_zero(field));
    assert_eq!(save(target), before, "a refused restore changes nothing");
}

/// The Space fields of a kind 1 state (after header, width, height, version) and their
/// names; a kind 2 state has its layout before the version, 4 bytes further.
const GRID_SPACE_FIELDS: [(usize, &str); 3] = [
    (20, "space origin x"),
    (28, "space origin y"),
    (36, "space cell size"),
];

#[test]
fn grid_state_with_negative_zero_space_is_refused() {
    let unassigned = Grid::new(4, 3).unwrap();
    let mut placed = Grid::new(4, 3).unwrap();
    placed.set_space(GridSpace::new(0.0, 0.0, 0.5).unwrap());
    for grid in [&unassigned, &placed] {
        let bytes = grid.save_state();
        assert_eq!(Grid::from_state(&bytes).unwrap().save_state(), bytes);
        for (at, field) in GRID_SPACE_FIELDS {
            if field == "space cell size" && grid.space().cell_size() != 0.0 {
                continue; // a nonzero field: no zero to flip
            }
            let bad = with_negative_zero(&bytes, at);
            assert_eq!(Grid::from_state(&bad).unwrap_err(), negative_zero(field));
            let mut target = Grid::filled(4, 3, 7).unwrap();
            refused_in_place(
                &mut target,
                Grid::save_state,
                Grid::restore_state,
                &bad,
                field,
            );
        }
    }
}

#[test]
fn hex_grid_state_with_negative_zero_space_is_refused() {
    let hex = HexGrid::new(5, 4, HexLayout::EvenRowsRight).unwrap();
    let bytes = hex.save_state();
    for (at, field) in GRID_SPACE_FIELDS {
        let bad = with_negative_zero(&bytes, at + 4);
        assert_eq!(HexGrid::from_state(&bad).unwrap_err(), negative_zero(field));
    }
}

#[test]
fn voxel_state_with_negative_zero_space_is_refused() {
    // Header 8, three sizes 12, default area 1, version 4: the space starts at byte 25.
    let fields = [
        (25, "space origin x"),
        (33, "space origin y"),
        (41, "space origin z"),
        (49, "space cell size"),
    ];
    let unassigned = VoxelGrid::new(5, 4, 3, 0).unwrap();
    let mut placed = VoxelGrid::new(5, 4, 3, 0).unwrap();
    placed.set_space(VoxelSpace::new([0.0, 2.0, 0.0], 0.25).unwrap());
    for grid in [&unassigned, &placed] {
        let bytes = grid.save_state();
        assert_eq!(VoxelGrid::from_state(&bytes).unwrap().save_state(), bytes);
        for (at, field) in fields {
            if f64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) != 0.0 {
                continue; // a nonzero field: no zero to flip
            }
            let bad = with_negative_zero(&bytes, at);
            assert_eq!(
                VoxelGrid::from_state(&bad).unwrap_err(),
                negative_zero(field)
            );
            let mut target = VoxelGrid::new(5, 4, 3, 0).unwrap();
            target.set_area(1, 1, 1, 9).unwrap();
            let (save, restore) = (VoxelGrid::save_state, VoxelGrid::restore_state);
            refused_in_place(&mut target, save, restore, &bad, field);
        }
    }
}

#[test]
fn spaces_store_a_negative_zero_as_positive_zero() {
    let s = GridSpace::new(-0.0, 3.0, 1.0).unwrap();
    assert_eq!(s.origin_x().to_bits(), 0.0f64.to_bits());
    let s = GridSpace::new(-0.0, -0.0, -0.0).unwrap();
    assert_eq!(s, GridSpace::default());
    assert_eq!(s.origin_x().to_bits(), 0.0f64.to_bits());
    let mut grid = Grid::new(2, 2).unwrap();
    grid.set_space(GridSpace::new(-0.0, -0.0, 2.0).unwrap());
    let bytes = grid.save_state();
    assert_eq!(Grid::from_state(&bytes).unwrap().save_state(), bytes);

    let v = VoxelSpace::new([-0.0, 1.0, -0.0], 1.0).unwrap();
    assert!(v
        .origin()
        .iter()
        .all(|o| o.to_bits() != (-0.0f64).to_bits()));
    let mut vox = VoxelGrid::new(2, 2, 2, 0).unwrap();
    vox.set_space(v);
    let bytes = vox.save_state();
    assert_eq!(VoxelGrid::from_state(&bytes).unwrap().save_state(), bytes);
}
