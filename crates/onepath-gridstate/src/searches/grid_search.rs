//! [`GridSearch`]: the specialised grid engine. With unit costs (no hooks, agent size 1,
//! every area multiplier 1.0, heuristic weight 1 or 0) it counts costs as exact
//! (straight, diagonal) step pairs — specialised A* (mode 1) or jump point search with
//! block scans or JPS+ tables (mode 3) — and otherwise falls back to the generic
//! [`GridAStar`] (mode 2).

use crate::error::GridError;
use crate::searches::astar::GridAStar;
use crate::searches::jps::{JumpEngine, JumpFinder};
use crate::searches::jps_plus::JumpTables;
use crate::searches::jump_search::JumpSearch;
use crate::searches::octile::StepPair;
use crate::searches::options::{Connectivity, DiagonalRule, GridOptions};
use crate::searches::pair_astar::PairAStar;
use crate::searches::result::{GridPath, GridPathStatus, SearchStatus};
use crate::searches::sliced::{Began, SlicedSearch};
use crate::spaces::bitgrid::BitGrid;
use crate::spaces::grid::Grid;
use crate::spaces::move_mask::MoveMasks;

/// The algorithm a [`GridSearch`] is asked to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GridAlgorithm {
    /// A*.
    #[default]
    AStar,
    /// Jump point search with block scans on bit rows.
    JumpPoint,
    /// JPS+ (precomputed jump tables, rebuilt after an edit).
    JumpPointPlus,
}

/// The engine a [`GridSearch`] picked for its options and grid (the saved `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GridEngine {
    /// Nothing begun yet (mode 0).
    #[default]
    NotBegun,
    /// Specialised A* on exact step pairs (mode 1).
    SpecialisedAStar,
    /// The generic f64 A* (mode 2, embedded kind 8).
    Generic,
    /// The generic jump point search [`JumpSearch`](crate::JumpSearch) (mode 2, embedded
    /// kind 9).
    GenericJump,
    /// Specialised jump point search (mode 3) with this finder.
    SpecialisedJump(JumpFinder),
}

/// The grid search engine: one-shot [`GridSearch::find_path`] or sliced
/// [`GridSearch::begin`] / [`GridSearch::step`] / [`GridSearch::result`].
///
/// Engine choice (documented in docs/grid-search.md): with plain options
/// ([`GridOptions::is_plain`]) and all area multipliers 1.0, `JumpPoint`/`JumpPointPlus`
/// run the jump point engine when the connectivity is 8 and the diagonal rule
/// `BothOrthogonalFree`, else the specialised A*; `AStar` runs the specialised A*. Other
/// options run, for `JumpPoint`/`JumpPointPlus`, the generic [`JumpSearch`](crate::JumpSearch)
/// when it serves them ([`JumpSearch::serves`](crate::JumpSearch::serves): 8-connectivity,
/// `BothOrthogonalFree`, no cost hook, weight 1, all area multipliers equal; agent size
/// and passability hook allowed), and otherwise the generic A*.
#[derive(Debug, Clone)]
pub struct GridSearch {
    algorithm: GridAlgorithm,
    options: GridOptions,
    engine: GridEngine,
    pair: PairAStar,
    jump: JumpEngine,
    generic: GridAStar,
    generic_jump: Option<JumpSearch>,
    masks: MoveMasks,
    bits: BitGrid,
    tables: JumpTables,
    began: Began,
}

impl GridSearch {
    /// A search running `algorithm` with `options`.
    pub fn new(algorithm: GridAlgorithm, options: GridOptions) -> Result<Self, GridError> {
        options.validate()?;
        Ok(GridSearch {
            algorithm,
            generic: GridAStar::new(options.clone())?,
            generic_jump: JumpSearch::new(options.clone()).ok(),
            options,
            engine: GridEngine::NotBegun,
            pair: PairAStar::default(),
            jump: JumpEngine::default(),
            masks: MoveMasks::default(),
            bits: BitGrid::default(),
            tables: JumpTables::default(),
            began: Began::not_begun(),
        })
    }

    /// The requested algorithm.
    pub fn algorithm(&self) -> GridAlgorithm {
        self.algorithm
    }

    /// The options.
    pub fn options(&self) -> &GridOptions {
        &self.options
    }

    /// The engine picked by the last `begin`.
    pub fn engine(&self) -> GridEngine {
        self.engine
    }

    /// The engine these options pick for `grid`.
    pub fn engine_for(&self, grid: &Grid) -> GridEngine {
        if !(self.options.is_plain() && grid.areas().is_uniform_one()) {
            let jump_algorithm = matches!(
                self.algorithm,
                GridAlgorithm::JumpPoint | GridAlgorithm::JumpPointPlus
            );
            if jump_algorithm && JumpSearch::serves(&self.options, grid) {
                return GridEngine::GenericJump;
            }
            return GridEngine::Generic;
        }
        let jump_ok = self.options.connectivity == Connectivity::Eight
            && self.options.diagonal_rule == DiagonalRule::BothOrthogonalFree;
        match self.algorithm {
            GridAlgorithm::JumpPoint if jump_ok => {
                GridEngine::SpecialisedJump(JumpFinder::BlockScans)
            }
            GridAlgorithm::JumpPointPlus if jump_ok => {
                GridEngine::SpecialisedJump(JumpFinder::Tables)
            }
            _ => GridEngine::SpecialisedAStar,
        }
    }

    fn generic_jump_mut(&mut self) -> Result<&mut JumpSearch, GridError> {
        self.generic_jump.as_mut().ok_or(GridError::NotBegun)
    }

    /// The status of the current search.
    pub fn status(&self) -> SearchStatus {
        match self.engine {
            GridEngine::NotBegun => SearchStatus::NotStarted,
            GridEngine::Generic => self.generic.core().status(),
            GridEngine::GenericJump => self
                .generic_jump
                .as_ref()
                .map_or(SearchStatus::NotStarted, JumpSearch::status),
            GridEngine::SpecialisedAStar => self.pair.status,
            GridEngine::SpecialisedJump(_) => self.jump.status,
        }
    }

    /// The exact cost of the found path as a step pair (specialised engines only).
    pub fn path_pair(&self) -> Option<StepPair> {
        match (self.engine, self.status()) {
            (GridEngine::SpecialisedAStar, SearchStatus::Found) => {
                Some(StepPair::new(self.pair.path_a, self.pair.path_b))
            }
            (GridEngine::SpecialisedJump(_), SearchStatus::Found) => {
                Some(StepPair::new(self.jump.path_a, self.jump.path_b))
            }
            _ => None,
        }
    }
}

/// Sliced search on a grid by the engine the algorithm and options select; cells as (x, y).
impl SlicedSearch<Grid> for GridSearch {
    type Point = (u32, u32);

    fn one_shot_budget(&self) -> u64 {
        self.options.step_budget()
    }

    /// Begins a sliced search.
    fn begin(&mut self, grid: &Grid, start: (u32, u32), goal: (u32, u32)) -> Result<(), GridError> {
        let s = grid.index(start.0, start.1)?;
        let g = grid.index(goal.0, goal.1)?;
        let engine = self.engine_for(grid);
        let zero = self.options.heuristic_weight == 0.0;
        let record = self.options.record_expansions;
        match engine {
            GridEngine::Generic | GridEngine::NotBegun => self.generic.begin(grid, start, goal)?,
            GridEngine::GenericJump => self.generic_jump_mut()?.begin(grid, start, goal)?,
            GridEngine::SpecialisedAStar => {
                self.masks
                    .ensure(grid, self.options.connectivity, self.options.diagonal_rule);
                let cells = grid.cells();
                let four = self.options.connectivity == Connectivity::Four;
                self.pair.begin(
                    grid.width(),
                    grid.height(),
                    &self.masks.masks,
                    |c| cells[c as usize] != crate::spaces::area::WALL,
                    s,
                    g,
                    zero,
                    four,
                    record,
                );
            }
            GridEngine::SpecialisedJump(finder) => {
                self.bits.ensure(grid);
                if finder == JumpFinder::Tables {
                    self.tables.ensure(grid, &self.bits);
                }
                self.jump.begin(&self.bits, finder, s, g, zero, record);
            }
        }
        self.engine = engine;
        self.began = Began::on(grid.space_key());
        Ok(())
    }

    /// Runs at most `max_iterations` iterations on the same (unchanged) grid.
    fn step(&mut self, grid: &Grid, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.began.check(grid.space_key())?;
        Ok(match self.engine {
            GridEngine::Generic | GridEngine::NotBegun => {
                self.generic.step(grid, max_iterations)?
            }
            GridEngine::GenericJump => self.generic_jump_mut()?.step(grid, max_iterations)?,
            GridEngine::SpecialisedAStar => self.pair.step(&self.masks.masks, max_iterations),
            GridEngine::SpecialisedJump(finder) => {
                let tables = if finder == JumpFinder::Tables {
                    Some(&self.tables)
                } else {
                    None
                };
                self.jump.step(&self.bits, tables, max_iterations)
            }
        })
    }

    /// The result so far (`BudgetExhausted` while in progress).
    fn result(&self) -> Result<GridPath, GridError> {
        self.began.begun()?;
        let (status, expanded, iterations, record, expansions) = match self.engine {
            GridEngine::Generic | GridEngine::NotBegun => return self.generic.result(),
            GridEngine::GenericJump => {
                return match &self.generic_jump {
                    Some(j) => j.result(),
                    None => Err(GridError::NotBegun),
                }
            }
            GridEngine::SpecialisedAStar => {
                let p = &self.pair;
                (p.status, p.expanded, p.iterations, p.record, &p.expansions)
            }
            GridEngine::SpecialisedJump(_) => {
                let j = &self.jump;
                (j.status, j.expanded, j.iterations, j.record, &j.expansions)
            }
        };
        let status = GridPathStatus::of(status);
        let (nodes, cost) = if status == GridPathStatus::Found {
            let nodes = match self.engine {
                GridEngine::SpecialisedAStar => self.pair.path(),
                _ => self.jump.path(),
            };
            (nodes, self.path_pair().map_or(0.0, StepPair::to_f64))
        } else {
            (Vec::new(), 0.0)
        };
        Ok(GridPath {
            status,
            nodes,
            cost,
            expanded,
            iterations,
            expansions: record.then(|| expansions.clone()),
        })
    }
}

/// Save and restore (OPGS kind 12, `docs/grid-state.md`).
impl GridSearch {
    /// The search's state (kind 12): u8 mode (0 not begun, 1 specialised A*, 2 generic,
    /// 3 specialised jump point), i32 width, i32 height, then the mode's fields. `grid` is
    /// the grid the search runs on.
    ///
    /// The expansion list of modes 1 and 3 is not part of the format: a restored search
    /// recording expansions records those made after the restore.
    pub fn save_state(&self, grid: &Grid) -> Vec<u8> {
        use crate::state::*;
        let mut w = onepath_format::bytes::ByteWriter::new();
        write_header(&mut w, kind::GRID_SEARCH);
        let mode = match self.engine {
            GridEngine::NotBegun => 0,
            GridEngine::SpecialisedAStar => 1,
            GridEngine::Generic | GridEngine::GenericJump => 2,
            GridEngine::SpecialisedJump(_) => 3,
        };
        w.u8(mode);
        write_u32_as_i32(&mut w, grid.width());
        write_u32_as_i32(&mut w, grid.height());
        match self.engine {
            GridEngine::NotBegun => {}
            GridEngine::SpecialisedAStar => {
                let p = &self.pair;
                w.u8(status_code(p.status));
                w.u8(u8::from(p.zero_estimate));
                for v in [
                    p.start,
                    p.goal,
                    p.expanded,
                    p.iterations,
                    p.path_a,
                    p.path_b,
                ] {
                    write_u32_as_i32(&mut w, v);
                }
                let cells: Vec<u32> = p.visited_cells().collect();
                write_u32_as_i32(&mut w, cells.len() as u32);
                for c in cells {
                    let (a, b, f) = p.saved_entry(c);
                    write_u32_as_i32(&mut w, c);
                    write_u32_as_i32(&mut w, a);
                    write_u32_as_i32(&mut w, b);
                    w.u8(f);
                }
            }
            GridEngine::Generic => {
                let core = self.generic.core();
                let width = grid.width().max(1);
                let (s, g) = (core.start, core.goal);
                for v in [s % width, s / width, g % width, g / width] {
                    write_u32_as_i32(&mut w, v);
                }
                let inner = self.generic.save_state(grid);
                write_u32_as_i32(&mut w, inner.len() as u32);
                w.bytes(&inner);
            }
            GridEngine::GenericJump => {
                let width = grid.width().max(1);
                let (inner, (s, g)) = match &self.generic_jump {
                    Some(j) => (j.save_state(grid), j.start_goal()),
                    None => (Vec::new(), (0, 0)),
                };
                for v in [s % width, s / width, g % width, g / width] {
                    write_u32_as_i32(&mut w, v);
                }
                write_u32_as_i32(&mut w, inner.len() as u32);
                w.bytes(&inner);
            }
            GridEngine::SpecialisedJump(finder) => {
                let j = &self.jump;
                w.u8(finder as u8);
                w.u8(status_code(j.status));
                w.u8(u8::from(j.zero_estimate));
                for v in [
                    j.start,
                    j.goal,
                    j.expanded,
                    j.iterations,
                    j.path_a,
                    j.path_b,
                ] {
                    write_u32_as_i32(&mut w, v);
                }
                let entries = j.saved_entries();
                write_u32_as_i32(&mut w, entries.len() as u32);
                for (c, a, b, p, f) in entries {
                    write_u32_as_i32(&mut w, c);
                    write_u32_as_i32(&mut w, a);
                    write_u32_as_i32(&mut w, b);
                    if p == crate::open_lists::buffers::NO_NODE {
                        w.i32(-1);
                    } else {
                        write_u32_as_i32(&mut w, p);
                    }
                    w.u8(f);
                }
                w.f64(j.level);
                write_u32_as_i32(&mut w, j.heap.len() as u32);
                for &(f, t) in &j.heap {
                    w.f64(f);
                    w.u64(t);
                }
                write_u32_as_i32(&mut w, j.stack.len() as u32);
                for &c in &j.stack {
                    write_u32_as_i32(&mut w, c);
                }
            }
        }
        w.into_vec()
    }

    /// Restores a saved state in place. `grid` is the (restored) grid; its size must match
    /// and the search must pick the saved engine (mode, and for mode 3 the finder) from its
    /// options and that grid; the zero-estimate flag must match the heuristic weight.
    /// Checked before anything changes ([`onepath_format::FormatError::State`] names
    /// the mismatch or the broken rule).
    pub fn restore_state(
        &mut self,
        grid: &Grid,
        bytes: &[u8],
    ) -> Result<(), onepath_format::FormatError> {
        use crate::state::*;
        let fam = Family::Grid;
        let mut r = onepath_format::bytes::ByteReader::new(bytes);
        read_header(&mut r, kind::GRID_SEARCH, fam)?;
        let mode = r.u8("mode")?;
        if mode > 3 {
            return Err(fam.err(format!("mode {mode} is undefined")));
        }
        let width = r.i32("width")?;
        let height = r.i32("height")?;
        if i64::from(width) != i64::from(grid.width())
            || i64::from(height) != i64::from(grid.height())
        {
            return Err(fam.err(format!(
                "size {width} x {height} does not match the grid's {} x {}",
                grid.width(),
                grid.height()
            )));
        }
        let engine = self.engine_for(grid);
        let picked = match engine {
            GridEngine::NotBegun => 0,
            GridEngine::SpecialisedAStar => 1,
            GridEngine::Generic | GridEngine::GenericJump => 2,
            GridEngine::SpecialisedJump(_) => 3,
        };
        if mode != 0 && mode != picked {
            return Err(fam.err(format!(
                "mode {mode} but the options and grid select mode {picked}"
            )));
        }
        let zero = self.options.heuristic_weight == 0.0;
        match mode {
            0 => {
                expect_end(&r)?;
                self.engine = GridEngine::NotBegun;
                self.began = Began::not_begun();
            }
            1 => {
                let (scalars, entries) = read_mode1(&mut r, grid, zero)?;
                expect_end(&r)?;
                self.masks
                    .ensure(grid, self.options.connectivity, self.options.diagonal_rule);
                let scalars = crate::searches::pair_astar::PairScalars {
                    four: self.options.connectivity == Connectivity::Four,
                    ..scalars
                };
                self.pair.restore(
                    grid.width(),
                    grid.height(),
                    grid.cell_count(),
                    scalars,
                    self.options.record_expansions,
                    &entries,
                );
                self.engine = engine;
                self.began = Began::on(grid.space_key());
            }
            2 => {
                let w = grid.width();
                let n = grid.cell_count();
                let mut xy = [0u32; 4];
                for (i, name) in ["start x", "start y", "goal x", "goal y"]
                    .iter()
                    .enumerate()
                {
                    let max = if i % 2 == 0 { w } else { grid.height() };
                    let v = r.i32(name)?;
                    if v < 0 || i64::from(v) >= i64::from(max) {
                        return Err(fam.err(format!("{name} {v} out of range 0..{max}")));
                    }
                    xy[i] = v as u32;
                }
                let len = read_count(&mut r, fam, "embedded state length", usize::MAX, 1)?;
                let inner = r.bytes(len, "embedded state")?;
                expect_end(&r)?;
                let mut ir = onepath_format::bytes::ByteReader::new(inner);
                let (inner_kind, weight) = if engine == GridEngine::GenericJump {
                    (kind::JUMP, 1.0)
                } else {
                    (kind::ASTAR, self.options.heuristic_weight)
                };
                read_header(&mut ir, inner_kind, fam).map_err(|e| e.within("embedded state"))?;
                let st =
                    read_search(&mut ir, fam, n, weight).map_err(|e| e.within("embedded state"))?;
                expect_end(&ir)?;
                let (s, g) = (xy[1] * w + xy[0], xy[3] * w + xy[2]);
                if st.status == crate::searches::result::SearchStatus::NotStarted
                    || st.start != s
                    || st.goal != g
                {
                    return Err(fam.err(format!(
                        "embedded search (start {}, goal {}) is not the begun search from {s} to {g}",
                        st.start, st.goal
                    )));
                }
                if engine == GridEngine::GenericJump {
                    let Some(j) = self.generic_jump.as_mut() else {
                        return Err(fam.err("mode 2 jump point search without jump options"));
                    };
                    j.check_grid(grid, &st)?;
                    j.install_state(grid, st);
                } else {
                    self.generic.install_state(grid, st);
                }
                self.engine = engine;
                self.began = Began::on(grid.space_key());
            }
            _ => {
                let GridEngine::SpecialisedJump(finder) = engine else {
                    return Err(fam.err("mode 3 but the options and grid select another mode"));
                };
                let st = read_mode3(&mut r, grid, zero, finder)?;
                expect_end(&r)?;
                self.bits.ensure(grid);
                if finder == JumpFinder::Tables {
                    self.tables.ensure(grid, &self.bits);
                }
                self.jump.restore(
                    grid.cell_count(),
                    grid.width(),
                    st,
                    self.options.record_expansions,
                );
                self.engine = engine;
                self.began = Began::on(grid.space_key());
            }
        }
        Ok(())
    }
}

/// The fixed fields shared by modes 1 and 3.
fn read_fixed(
    r: &mut onepath_format::bytes::ByteReader<'_>,
    n: usize,
    zero: bool,
) -> Result<crate::searches::pair_astar::PairScalars, onepath_format::FormatError> {
    use crate::state::*;
    let fam = Family::Grid;
    let status = read_status(r, fam)?;
    if status == SearchStatus::NotStarted {
        return Err(fam.err("a begun search has a status other than not started"));
    }
    let z = read_flag(r, fam, "zero estimate")?;
    if z != zero {
        return Err(fam.err(format!(
            "zero estimate {z} does not match the search's heuristic weight"
        )));
    }
    let start = read_node(r, fam, "start", n)?;
    let goal = read_node(r, fam, "goal", n)?;
    let expanded = read_nonneg(r, fam, "expanded")?;
    let iterations = read_nonneg(r, fam, "iterations")?;
    let path_a = read_nonneg(r, fam, "path a")?;
    let path_b = read_nonneg(r, fam, "path b")?;
    if expanded > iterations {
        return Err(fam.err(format!(
            "expanded {expanded} exceeds iterations {iterations}"
        )));
    }
    Ok(crate::searches::pair_astar::PairScalars {
        status,
        zero_estimate: z,
        four: false,
        start,
        goal,
        expanded,
        iterations,
        path_a,
        path_b,
    })
}

type Mode1Entries = Vec<(u32, u32, u32, u8)>;

fn read_mode1(
    r: &mut onepath_format::bytes::ByteReader<'_>,
    grid: &Grid,
    zero: bool,
) -> Result<(crate::searches::pair_astar::PairScalars, Mode1Entries), onepath_format::FormatError> {
    use crate::spaces::move_mask::PAIR_DIRS;
    use crate::state::*;
    let fam = Family::Grid;
    let n = grid.cell_count();
    let sc = read_fixed(r, n, zero)?;
    let count = read_count(r, fam, "visited count", n, 13)?;
    let mut entries: Mode1Entries = Vec::with_capacity(count);
    for _ in 0..count {
        let cell = read_node(r, fam, "visited cell", n)?;
        if let Some(&(prev, ..)) = entries.last() {
            if cell <= prev {
                return Err(fam.err(format!(
                    "visited cell {cell} does not follow {prev} in increasing order"
                )));
            }
        }
        let a = read_nonneg(r, fam, "visited a")?;
        let b = read_nonneg(r, fam, "visited b")?;
        let f = r.u8("visited flags")?;
        if f > 15 {
            return Err(fam.err(format!("cell {cell}: flags {f} use bits above 3")));
        }
        if grid.cells()[cell as usize] == crate::spaces::area::WALL {
            return Err(fam.err(format!("visited cell {cell} is a wall")));
        }
        entries.push((cell, a, b, f));
    }
    let find = |c: u32| entries.binary_search_by_key(&c, |e| e.0).ok();
    let w = i64::from(grid.width());
    let h = i64::from(grid.height());
    for &(cell, a, b, f) in &entries {
        if cell == sc.start {
            if (a, b) != (0, 0) {
                return Err(fam.err(format!("the start has cost ({a}, {b}), not 0")));
            }
            continue;
        }
        let d = usize::from((f >> 1) & 7);
        let (dx, dy) = PAIR_DIRS[d];
        let (x, y) = (i64::from(cell) % w, i64::from(cell) / w);
        let (px, py) = (x + i64::from(dx), y + i64::from(dy));
        if px < 0 || py < 0 || px >= w || py >= h {
            return Err(fam.err(format!("cell {cell}: the parent direction leaves the grid")));
        }
        let p = (py * w + px) as u32;
        let ok = match find(p) {
            Some(i) => {
                let (_, pa, pb, pf) = entries[i];
                let (ea, eb) = if d < 4 {
                    (pa.checked_add(1), Some(pb))
                } else {
                    (Some(pa), pb.checked_add(1))
                };
                pf & 1 == 1 && ea == Some(a) && eb == Some(b)
            }
            None => false,
        };
        if !ok {
            return Err(fam.err(format!(
                "cell {cell}: parent {p} is not a closed visited cell one step cheaper"
            )));
        }
    }
    if sc.status == SearchStatus::Found {
        match find(sc.goal) {
            Some(i)
                if entries[i].3 & 1 == 1
                    && (entries[i].1, entries[i].2) == (sc.path_a, sc.path_b) => {}
            _ => return Err(fam.err("a found search has its goal closed with the reported pair")),
        }
    }
    Ok((sc, entries))
}

fn read_mode3(
    r: &mut onepath_format::bytes::ByteReader<'_>,
    grid: &Grid,
    zero: bool,
    expected_finder: JumpFinder,
) -> Result<crate::searches::jps::JumpState, onepath_format::FormatError> {
    use crate::open_lists::buffers::NO_NODE;
    use crate::searches::jps::{jump_slot_before, JumpState, JUMP_DIRS};
    use crate::state::*;
    let fam = Family::Grid;
    let n = grid.cell_count();
    let finder = match r.u8("finder")? {
        0 => JumpFinder::BlockScans,
        1 => JumpFinder::Tables,
        v => return Err(fam.err(format!("finder {v} is undefined"))),
    };
    if finder != expected_finder {
        return Err(fam.err(format!(
            "finder {:?} does not match the search's {:?}",
            finder, expected_finder
        )));
    }
    let sc = read_fixed(r, n, zero)?;
    let count = read_count(r, fam, "visited count", n, 17)?;
    let mut entries: Vec<(u32, u32, u32, u32, u8)> = Vec::with_capacity(count);
    for _ in 0..count {
        let cell = read_node(r, fam, "visited cell", n)?;
        if let Some(&(prev, ..)) = entries.last() {
            if cell <= prev {
                return Err(fam.err(format!(
                    "visited cell {cell} does not follow {prev} in increasing order"
                )));
            }
        }
        let a = read_nonneg(r, fam, "visited a")?;
        let b = read_nonneg(r, fam, "visited b")?;
        let p = r.i32("visited parent")?;
        let parent = if p == -1 {
            NO_NODE
        } else if p < 0 || p as usize >= n {
            return Err(fam.err(format!("cell {cell}: parent {p} out of range")));
        } else {
            p as u32
        };
        let f = r.u8("visited flags")?;
        if f > 15 {
            return Err(fam.err(format!("cell {cell}: flags {f} use bits above 3")));
        }
        if grid.cells()[cell as usize] == crate::spaces::area::WALL {
            return Err(fam.err(format!("visited cell {cell} is a wall")));
        }
        entries.push((cell, a, b, parent, f));
    }
    let find = |c: u32| entries.binary_search_by_key(&c, |e| e.0).ok();
    let w = i64::from(grid.width());
    let mut closed = 0u64;
    for &(cell, a, b, parent, f) in &entries {
        if f & 1 == 1 {
            closed += 1;
        }
        if cell == sc.start {
            if (a, b) != (0, 0) || parent != NO_NODE {
                return Err(fam.err("the start has cost 0 and no parent"));
            }
            if (f & 1 == 1) != (sc.iterations > 0) {
                return Err(fam.err("the start is closed exactly when something has popped"));
            }
            continue;
        }
        let Some(pi) = (parent != NO_NODE).then(|| find(parent)).flatten() else {
            return Err(fam.err(format!("cell {cell}: parent {parent} is not visited")));
        };
        let (_, pa, pb, _, pf) = entries[pi];
        if pf & 1 != 1 {
            return Err(fam.err(format!("cell {cell}: parent {parent} is not closed")));
        }
        let (x, y) = (i64::from(cell) % w, i64::from(cell) / w);
        let (px, py) = (i64::from(parent) % w, i64::from(parent) / w);
        let (dx, dy) = (x - px, y - py);
        let (adx, ady) = (dx.unsigned_abs(), dy.unsigned_abs());
        let (lo, hi) = (adx.min(ady), adx.max(ady));
        let grows = (
            u64::from(pa) + (hi - lo) == u64::from(a),
            u64::from(pb) + lo == u64::from(b),
        );
        let d = usize::from((f >> 1) & 7);
        let (ddx, ddy) = (i64::from(JUMP_DIRS[d].0), i64::from(JUMP_DIRS[d].1));
        let k = hi as i64;
        let along = k > 0 && dx == k * ddx && dy == k * ddy;
        if !(grows.0 && grows.1 && along) {
            return Err(fam.err(format!(
                "cell {cell}: not a valid hop from parent {parent} in direction {d}"
            )));
        }
    }
    let goal_closed = find(sc.goal).is_some_and(|i| entries[i].4 & 1 == 1);
    if goal_closed != (sc.status == SearchStatus::Found) {
        return Err(fam.err("the goal is closed exactly when the status is found"));
    }
    if goal_closed {
        let i = find(sc.goal).unwrap_or(0);
        if (entries[i].1, entries[i].2) != (sc.path_a, sc.path_b) {
            return Err(fam.err("the goal's pair is not the reported path pair"));
        }
    }
    if u64::from(sc.iterations) != closed {
        return Err(fam.err(format!(
            "iterations {} do not equal the {closed} closed cells",
            sc.iterations
        )));
    }
    let want_expanded = if sc.status == SearchStatus::Found {
        sc.iterations.saturating_sub(1)
    } else {
        sc.iterations
    };
    if sc.expanded != want_expanded {
        return Err(fam.err(format!("expanded {} is not {want_expanded}", sc.expanded)));
    }
    let level = r.f64("level")?;
    if level.is_nan() != (sc.iterations == 0) {
        return Err(fam.err("the level is NaN exactly when nothing has popped"));
    }
    // Every entry was pushed by the start or by one of at most 8 jumps of an expansion.
    let max_entries = (1 + 8 * u64::from(sc.iterations)).min(usize::MAX as u64) as usize;
    let hc = read_count(r, fam, "heap count", max_entries, 16)?;
    let mut heap = Vec::with_capacity(hc);
    let mut has_entry = vec![false; entries.len()];
    for i in 0..hc {
        let f = read_f64(r, fam, "heap F")?;
        let t = r.u64("heap T")?;
        let cell = t as u32;
        let Some(ei) = find(cell) else {
            return Err(fam.err(format!("heap slot {i} names cell {cell}, not visited")));
        };
        has_entry[ei] = true;
        let e = (f, t);
        if i > 0 && jump_slot_before(&e, &heap[(i - 1) / 2]) {
            return Err(fam.err(format!("heap slot {i} comes before its parent slot")));
        }
        heap.push(e);
    }
    let sc_count = read_count(r, fam, "stack count", max_entries - hc, 4)?;
    let mut stack = Vec::with_capacity(sc_count);
    for i in 0..sc_count {
        let cell = read_node(r, fam, "stack cell", n)?;
        let Some(ei) = find(cell) else {
            return Err(fam.err(format!("stack entry {i} names cell {cell}, not visited")));
        };
        has_entry[ei] = true;
        stack.push(cell);
    }
    for (i, e) in entries.iter().enumerate() {
        if e.4 & 1 == 0 && !has_entry[i] {
            return Err(fam.err(format!("open cell {} has no entry", e.0)));
        }
    }
    if sc.status == SearchStatus::NoPath && (hc > 0 || sc_count > 0) {
        return Err(fam.err("a search that ran out of cells has no entries"));
    }
    Ok(JumpState {
        finder,
        status: sc.status,
        zero_estimate: sc.zero_estimate,
        start: sc.start,
        goal: sc.goal,
        expanded: sc.expanded,
        iterations: sc.iterations,
        path_a: sc.path_a,
        path_b: sc.path_b,
        entries,
        level,
        heap,
        stack,
    })
}
