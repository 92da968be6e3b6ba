//! The square grid: width × height cells, one area byte each (255 = wall).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{invalid, out_of_range, GridError};
use crate::spaces::area::{next_version, AreaCosts, WALL};
use crate::spaces::hex::HexLayout;
use crate::spaces::space::GridSpace;

/// The largest number of cells a grid may hold (the state format counts them in an i32).
pub const MAX_CELLS: u64 = i32::MAX as u64;

static NEXT_UID: AtomicU64 = AtomicU64::new(1);

/// A unique identity for a grid object; caches derived from a grid (move masks, jump
/// tables, bit rows) key on it together with the version. It never reaches a result.
pub(crate) fn fresh_uid() -> u64 {
    NEXT_UID.fetch_add(1, Ordering::Relaxed)
}

/// One cell edit, as told to listeners: the cell index (`y * width + x`) and the areas
/// before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellEdit {
    /// The edited cell, `y * width + x`.
    pub cell: u32,
    /// The area before the edit.
    pub old_area: u8,
    /// The area after the edit.
    pub new_area: u8,
}

/// A handle returned by [`Grid::add_listener`], used to remove the listener.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ListenerId(u64);

type Listener = Box<dyn FnMut(&CellEdit) + Send>;

/// How many recent edits a grid keeps for [`Grid::edits_since`]; dependents further behind
/// rebuild from scratch.
pub const EDIT_JOURNAL_LEN: usize = 4096;

/// A rectangular grid of area bytes.
///
/// * cell (x, y) has index `y * width + x`; y grows "south", x grows "east";
/// * area 255 ([`WALL`]) is blocked, every other area is walkable at the cost factor
///   [`AreaCosts::get`];
/// * [`Grid::version`] grows by one with every edit that changes a cell;
/// * listeners registered with [`Grid::add_listener`] are told every edit, in registration
///   order, and [`Grid::edits_since`] replays the recent ones to dependents that poll.
pub struct Grid {
    width: u32,
    height: u32,
    cells: Vec<u8>,
    version: u32,
    areas: AreaCosts,
    space: GridSpace,
    uid: u64,
    journal: std::collections::VecDeque<(u32, CellEdit)>,
    listeners: Vec<(ListenerId, Listener)>,
    next_listener: u64,
}

impl std::fmt::Debug for Grid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grid")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("version", &self.version)
            .field("area_version", &self.areas.version())
            .field("listeners", &self.listeners.len())
            .finish_non_exhaustive()
    }
}

impl Clone for Grid {
    /// Clones cells, areas, space and version; listeners are not cloned and the clone is a
    /// new object for caches.
    fn clone(&self) -> Self {
        Grid {
            width: self.width,
            height: self.height,
            cells: self.cells.clone(),
            version: self.version,
            areas: self.areas.clone(),
            space: self.space,
            uid: fresh_uid(),
            journal: self.journal.clone(),
            listeners: Vec::new(),
            next_listener: 0,
        }
    }
}

/// The cell count of a `width × height` grid: both at least 1, the product at most
/// [`MAX_CELLS`].
fn check_size(width: u32, height: u32) -> Result<u64, GridError> {
    if width == 0 {
        return Err(out_of_range("width", 0, 1, MAX_CELLS as i64));
    }
    if height == 0 {
        return Err(out_of_range("height", 0, 1, MAX_CELLS as i64));
    }
    let n = u64::from(width) * u64::from(height);
    if n > MAX_CELLS {
        return Err(invalid(
            "size",
            format!("{width} x {height} cells exceed {MAX_CELLS}"),
        ));
    }
    Ok(n)
}

impl Grid {
    /// A grid of `width × height` walkable cells of area 0.
    pub fn new(width: u32, height: u32) -> Result<Self, GridError> {
        Self::filled(width, height, 0)
    }

    /// A grid with every cell set to `area`.
    pub fn filled(width: u32, height: u32, area: u8) -> Result<Self, GridError> {
        let n = check_size(width, height)?;
        Ok(Grid {
            width,
            height,
            cells: vec![area; n as usize],
            version: 0,
            areas: AreaCosts::new(),
            space: GridSpace::default(),
            uid: fresh_uid(),
            journal: std::collections::VecDeque::new(),
            listeners: Vec::new(),
            next_listener: 0,
        })
    }

    /// Reads a Moving AI `.map` file from `path` (the format of [`Grid::from_movingai`]);
    /// a file that cannot be read is [`GridError::Unreadable`].
    pub fn from_movingai_path(path: impl AsRef<std::path::Path>) -> Result<Self, GridError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| GridError::Unreadable {
            what: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::from_movingai(&text)
    }

    /// Reads a Moving AI `.map` file from `reader` to its end (the format of
    /// [`Grid::from_movingai`]); a read that fails, or text that is not UTF-8, is
    /// [`GridError::Unreadable`].
    pub fn from_movingai_reader(mut reader: impl std::io::Read) -> Result<Self, GridError> {
        let mut text = String::new();
        reader
            .read_to_string(&mut text)
            .map_err(|e| GridError::Unreadable {
                what: "reader".to_string(),
                reason: e.to_string(),
            })?;
        Self::from_movingai(&text)
    }

    /// Reads a Moving AI `.map` file (`type octile`, `height`, `width`, `map`, rows).
    /// `.`, `G` and `S` are walkable (area 0); every other character is a wall.
    ///
    /// The rows are checked (count and lengths) before the width × height cells are
    /// allocated, so the allocation is never larger than the text: a header asking for
    /// 2^31 cells over missing rows fails at once with an error naming the height.
    pub fn from_movingai(text: &str) -> Result<Self, GridError> {
        let mut lines = text.lines();
        let mut width = None;
        let mut height = None;
        for line in lines.by_ref() {
            let line = line.trim();
            if line == "map" {
                break;
            }
            let mut parts = line.split_whitespace();
            match (parts.next(), parts.next()) {
                (Some("width"), Some(v)) => width = v.parse::<u32>().ok(),
                (Some("height"), Some(v)) => height = v.parse::<u32>().ok(),
                _ => {}
            }
        }
        let (Some(w), Some(h)) = (width, height) else {
            return Err(invalid("Moving AI map", "missing width or height"));
        };
        check_size(w, h)?;
        let rows = lines.map(|line| line.trim_end_matches(['\r', '\n']));
        let mut y = 0u32;
        for row in rows.clone() {
            if row.is_empty() && y >= h {
                continue;
            }
            if y >= h {
                return Err(invalid("Moving AI map", format!("more than {h} rows")));
            }
            if row.len() != w as usize {
                return Err(invalid(
                    "Moving AI map",
                    format!("row {y} has {} cells, not {w}", row.len()),
                ));
            }
            y += 1;
        }
        if y != h {
            return Err(invalid(
                "Moving AI map height",
                format!("the header says {h} rows (of {w} cells), the map has {y}"),
            ));
        }
        // Every row is there: the cells take no more bytes than the text.
        let mut grid = Grid::new(w, h)?;
        for (row, cells) in rows
            .filter(|row| !row.is_empty())
            .zip(grid.cells.chunks_exact_mut(w as usize))
        {
            for (cell, ch) in cells.iter_mut().zip(row.bytes()) {
                *cell = match ch {
                    b'.' | b'G' | b'S' => 0,
                    _ => WALL,
                };
            }
        }
        Ok(grid)
    }

    /// Builds a grid from rows of text: `#` is a wall, `.` area 0, a digit `d` area d.
    pub fn from_ascii(rows: &[&str]) -> Result<Self, GridError> {
        let h = u32::try_from(rows.len()).map_err(|_| invalid("rows", "too many rows"))?;
        let w = rows.first().map_or(0, |r| r.len());
        let w = u32::try_from(w).map_err(|_| invalid("rows", "row too long"))?;
        let mut grid = Grid::new(w, h)?;
        for (y, row) in rows.iter().enumerate() {
            if row.len() != w as usize {
                return Err(invalid(
                    "rows",
                    format!("row {y} has length {}, not {w}", row.len()),
                ));
            }
            for (x, ch) in row.bytes().enumerate() {
                grid.cells[y * w as usize + x] = match ch {
                    b'#' => WALL,
                    b'0'..=b'9' => ch - b'0',
                    _ => 0,
                };
            }
        }
        Ok(grid)
    }

    /// Width in cells.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in cells.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// `width * height`.
    pub fn cell_count(&self) -> usize {
        self.cells.len()
    }

    /// The cell edit version: 0 at creation, +1 per changing edit (wraps to 0 after
    /// `i32::MAX`).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The area multipliers.
    pub fn areas(&self) -> &AreaCosts {
        &self.areas
    }

    /// Sets the multiplier of one area (see [`AreaCosts::set`]).
    pub fn set_area_cost(&mut self, area: u8, multiplier: f64) -> Result<(), GridError> {
        self.areas.set(area, multiplier)
    }

    /// The world placement.
    pub fn space(&self) -> GridSpace {
        self.space
    }

    /// Replaces the world placement.
    pub fn set_space(&mut self, space: GridSpace) {
        self.space = space;
    }

    /// All cells, row-major.
    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    /// A key that changes whenever cells may have changed (identity and version); derived
    /// caches compare it.
    pub(crate) fn cache_key(&self) -> (u64, u32) {
        (self.uid, self.version)
    }

    /// The key a sliced search checks at each step (identity and version).
    pub(crate) fn space_key(&self) -> crate::searches::sliced::SpaceKey {
        crate::searches::sliced::SpaceKey {
            identity: self.uid,
            version: u64::from(self.version),
        }
    }

    /// The cells of `path` as (x, y), start to goal (for a path found on this grid, or on
    /// the [`HexGrid`](crate::HexGrid) whose grid this is, as (column, row)).
    ///
    /// ```
    /// use onepath_gridstate::{Grid, GridOptions, GridAStar, SlicedSearch};
    ///
    /// let grid = Grid::from_ascii(&["....", ".##."]).unwrap();
    /// let path = GridAStar::new(GridOptions::default())
    ///     .unwrap()
    ///     .find_path(&grid, (1, 0), (3, 0))
    ///     .unwrap();
    /// assert_eq!(path.nodes, vec![1, 2, 3]);
    /// assert_eq!(grid.path_xy(&path), vec![(1, 0), (2, 0), (3, 0)]);
    /// ```
    pub fn path_xy(&self, path: &crate::searches::result::GridPath) -> Vec<(u32, u32)> {
        path.nodes.iter().map(|&c| self.xy(c)).collect()
    }

    /// The index of (x, y), checked.
    pub fn index(&self, x: u32, y: u32) -> Result<u32, GridError> {
        if x >= self.width {
            return Err(out_of_range(
                "x",
                i64::from(x),
                0,
                i64::from(self.width) - 1,
            ));
        }
        if y >= self.height {
            return Err(out_of_range(
                "y",
                i64::from(y),
                0,
                i64::from(self.height) - 1,
            ));
        }
        Ok(y * self.width + x)
    }

    /// The (x, y) of a cell index (not checked against the size).
    pub fn xy(&self, cell: u32) -> (u32, u32) {
        (cell % self.width, cell / self.width)
    }

    /// The area of (x, y).
    pub fn area(&self, x: u32, y: u32) -> Result<u8, GridError> {
        let i = self.index(x, y)?;
        Ok(self.cells[i as usize])
    }

    /// True when (x, y) lies inside the grid and is not a wall. Never fails.
    pub fn is_walkable(&self, x: i64, y: i64) -> bool {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return false;
        }
        self.cells[(y as u64 * u64::from(self.width) + x as u64) as usize] != WALL
    }

    /// Sets the area of (x, y). A change bumps the version, is journalled and told to every
    /// listener; setting the same area is not an edit.
    pub fn set_area(&mut self, x: u32, y: u32, area: u8) -> Result<(), GridError> {
        let i = self.index(x, y)?;
        let old = self.cells[i as usize];
        if old == area {
            return Ok(());
        }
        self.cells[i as usize] = area;
        self.version = next_version(self.version);
        let edit = CellEdit {
            cell: i,
            old_area: old,
            new_area: area,
        };
        if self.journal.len() == EDIT_JOURNAL_LEN {
            self.journal.pop_front();
        }
        self.journal.push_back((self.version, edit));
        for (_, l) in self.listeners.iter_mut() {
            l(&edit);
        }
        Ok(())
    }

    /// Makes (x, y) a wall (`true`) or area 0 (`false`).
    pub fn set_blocked(&mut self, x: u32, y: u32, blocked: bool) -> Result<(), GridError> {
        self.set_area(x, y, if blocked { WALL } else { 0 })
    }

    /// Registers a listener told every cell edit (in registration order).
    pub fn add_listener(&mut self, listener: impl FnMut(&CellEdit) + Send + 'static) -> ListenerId {
        let id = ListenerId(self.next_listener);
        self.next_listener += 1;
        self.listeners.push((id, Box::new(listener)));
        id
    }

    /// Removes a listener; false when the id is unknown.
    pub fn remove_listener(&mut self, id: ListenerId) -> bool {
        let before = self.listeners.len();
        self.listeners.retain(|(i, _)| *i != id);
        before != self.listeners.len()
    }

    /// The edits made after `version`, oldest first, if the journal still holds them all
    /// (`None`: the dependent is too far behind, or the version is not from this timeline,
    /// and must rebuild).
    pub fn edits_since(&self, version: u32) -> Option<Vec<CellEdit>> {
        if version == self.version {
            return Some(Vec::new());
        }
        let pos = self
            .journal
            .iter()
            .position(|(v, _)| *v == next_version(version))?;
        if self.journal.back().map(|(v, _)| *v) != Some(self.version) {
            return None;
        }
        Some(self.journal.iter().skip(pos).map(|(_, e)| *e).collect())
    }
}

/// Save and restore (OPGS kind 1, `docs/grid-state.md`).
impl Grid {
    /// The grid's state: i32 width, height, version, Space, Areas, the cells row-major.
    /// Saving twice without a change gives the same bytes.
    pub fn save_state(&self) -> Vec<u8> {
        self.save_as(GridKind::Square)
    }

    /// The state as kind 1 (square) or kind 2 (hex, with its layout).
    pub(crate) fn save_as(&self, kind: GridKind) -> Vec<u8> {
        use crate::state::*;
        let mut w = onepath_format::bytes::ByteWriter::with_capacity(
            8 + 16 + 24 + 4 + 2040 + self.cells.len(),
        );
        write_header(
            &mut w,
            match kind {
                GridKind::Square => kind::GRID,
                GridKind::Hex(_) => kind::HEX_GRID,
            },
        );
        write_u32_as_i32(&mut w, self.width);
        write_u32_as_i32(&mut w, self.height);
        if let GridKind::Hex(layout) = kind {
            w.i32(layout as i32);
        }
        write_u32_as_i32(&mut w, self.version);
        write_space(&mut w, &self.space);
        write_areas(&mut w, &self.areas);
        w.bytes(&self.cells);
        w.into_vec()
    }

    /// A new grid from a saved state (no listeners, empty edit journal).
    pub fn from_state(bytes: &[u8]) -> Result<Grid, onepath_format::FormatError> {
        Ok(Self::from_state_as(bytes, ReadKind::Exactly(GridKind::Square))?.0)
    }

    /// A new grid from a kind 1 or kind 2 state, and the layout it names (the default for
    /// kind 1).
    pub(crate) fn from_state_as(
        bytes: &[u8],
        kind: ReadKind,
    ) -> Result<(Grid, HexLayout), onepath_format::FormatError> {
        let s = SavedGrid::read(bytes, None, kind)?;
        let grid = Grid {
            width: s.width,
            height: s.height,
            cells: s.cells.to_vec(),
            version: s.version,
            areas: s.areas,
            space: s.space,
            uid: fresh_uid(),
            journal: std::collections::VecDeque::new(),
            listeners: Vec::new(),
            next_listener: 0,
        };
        Ok((grid, s.layout))
    }

    /// Restores a saved state in place. The state must have this grid's width and height;
    /// everything is checked before anything changes (on error the grid is unchanged).
    ///
    /// Listeners are told each cell that differs as an ordinary edit, in ascending cell
    /// order; afterwards the grid is a new object for derived caches (flow fields,
    /// replanners, HPA* hierarchies and searches begun before the restore rebuild or report
    /// `Stale`), and the edit journal is emptied: versions can repeat after a rollback, so
    /// nothing derived is trusted across a restore.
    pub fn restore_state(&mut self, bytes: &[u8]) -> Result<(), onepath_format::FormatError> {
        self.restore_as(bytes, GridKind::Square)
    }

    /// Restores a state of exactly this kind (for kind 2: this layout).
    pub(crate) fn restore_as(
        &mut self,
        bytes: &[u8],
        kind: GridKind,
    ) -> Result<(), onepath_format::FormatError> {
        let s = SavedGrid::read(
            bytes,
            Some((self.width, self.height)),
            ReadKind::Exactly(kind),
        )?;
        for (i, (&new, old)) in s.cells.iter().zip(self.cells.iter_mut()).enumerate() {
            if *old != new {
                let edit = CellEdit {
                    cell: i as u32,
                    old_area: *old,
                    new_area: new,
                };
                *old = new;
                for (_, l) in self.listeners.iter_mut() {
                    l(&edit);
                }
            }
        }
        self.version = s.version;
        self.areas = s.areas;
        self.space = s.space;
        self.journal.clear();
        self.uid = fresh_uid();
        Ok(())
    }
}

/// The OPGS kind a grid's state is written or read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GridKind {
    /// Kind 1, a square grid.
    Square,
    /// Kind 2, a hex grid with this layout.
    Hex(HexLayout),
}

/// What a grid state read accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReadKind {
    /// Exactly this kind (for a hex grid: this layout).
    Exactly(GridKind),
    /// Kind 2 with either layout (a new hex grid takes the layout the state names).
    AnyHex,
}

struct SavedGrid<'a> {
    width: u32,
    height: u32,
    version: u32,
    space: GridSpace,
    areas: AreaCosts,
    cells: &'a [u8],
    layout: HexLayout,
}

impl<'a> SavedGrid<'a> {
    fn read(
        bytes: &'a [u8],
        expect: Option<(u32, u32)>,
        read_kind: ReadKind,
    ) -> Result<Self, onepath_format::FormatError> {
        use crate::state::*;
        let fam = Family::Grid;
        let mut r = onepath_format::bytes::ByteReader::new(bytes);
        let hex = read_kind != ReadKind::Exactly(GridKind::Square);
        read_header(&mut r, if hex { kind::HEX_GRID } else { kind::GRID }, fam)?;
        let width = r.i32("width")?;
        let height = r.i32("height")?;
        let mut saved_layout = HexLayout::default();
        if hex {
            let l = r.i32("layout")?;
            saved_layout = crate::spaces::hex::layout_from_i32(l)
                .ok_or_else(|| fam.err(format!("layout {l} is undefined")))?;
            if let ReadKind::Exactly(GridKind::Hex(want)) = read_kind {
                if saved_layout != want {
                    let want = want as i32;
                    return Err(fam.err(format!("layout {l} does not match the hex grid's {want}")));
                }
            }
        }
        if let Some((ew, eh)) = expect {
            if i64::from(width) != i64::from(ew) || i64::from(height) != i64::from(eh) {
                return Err(fam.err(format!(
                    "size {width} x {height} does not match the grid's {ew} x {eh}"
                )));
            }
        }
        if width < 1 || height < 1 {
            return Err(fam.err(format!("size {width} x {height} is not at least 1 x 1")));
        }
        let n = u64::from(width as u32) * u64::from(height as u32);
        if n > MAX_CELLS {
            return Err(fam.err(format!("{width} x {height} cells exceed {MAX_CELLS}")));
        }
        r.check_fits("cells", n as usize, 1)?;
        let version = read_nonneg(&mut r, fam, "version")?;
        let space = read_space(&mut r)?;
        let areas = read_areas(&mut r)?;
        let cells = r.bytes(n as usize, "cells")?;
        expect_end(&r)?;
        Ok(SavedGrid {
            width: width as u32,
            height: height as u32,
            version,
            space,
            areas,
            cells,
            layout: saved_layout,
        })
    }
}
