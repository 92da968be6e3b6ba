//! The searches on a [`HexGrid`]: A* and the LPA* / D* Lite replanner (the moves and the
//! estimate are those of `spaces/hex.rs`).

use crate::error::{invalid, GridError};
use crate::searches::astar::AStarCore;
use crate::searches::options::GridOptions;
use crate::searches::replan::{ReplanAlgorithm, ReplanCore};
use crate::searches::result::{GridPath, SearchStatus};
use crate::searches::sliced::{version_key, Began, SlicedSearch};
use crate::spaces::hex::{HexGrid, HexView};

fn check_hex_options(o: &GridOptions) -> Result<(), GridError> {
    o.validate()?;
    if o.agent_size != 1 {
        return Err(invalid("agent size", "hex grids support agent size 1 only"));
    }
    Ok(())
}

/// A* on a [`HexGrid`] (6-connected; connectivity and diagonal rule of the options are
/// not used; agent size must be 1).
#[derive(Debug, Clone)]
pub struct HexAStar {
    options: GridOptions,
    core: AStarCore,
    began: Began,
}

impl HexAStar {
    /// A search with these options.
    pub fn new(options: GridOptions) -> Result<Self, GridError> {
        check_hex_options(&options)?;
        Ok(HexAStar {
            options,
            core: AStarCore::default(),
            began: Began::not_begun(),
        })
    }
}

/// Sliced A* on a hex grid; cells as (column, row).
impl SlicedSearch<HexGrid> for HexAStar {
    type Point = (u32, u32);

    fn one_shot_budget(&self) -> u64 {
        self.options.step_budget()
    }

    /// Begins a sliced search.
    fn begin(
        &mut self,
        hex: &HexGrid,
        start: (u32, u32),
        goal: (u32, u32),
    ) -> Result<(), GridError> {
        let s = hex.grid().index(start.0, start.1)?;
        let g = hex.grid().index(goal.0, goal.1)?;
        let view = HexView::new(hex, &self.options);
        self.core.begin(
            &view,
            s,
            g,
            self.options.heuristic_weight,
            self.options.record_expansions,
        );
        self.began = Began::on(version_key(hex.grid().version()));
        Ok(())
    }

    /// Runs at most `max_iterations` iterations.
    fn step(&mut self, hex: &HexGrid, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.began.check(version_key(hex.grid().version()))?;
        let view = HexView::new(hex, &self.options);
        Ok(self.core.step(&view, max_iterations))
    }

    /// The result so far.
    fn result(&self) -> Result<GridPath, GridError> {
        self.began.begun()?;
        Ok(self.core.result())
    }
}

/// LPA* / D* Lite on a [`HexGrid`]; edits are read from the grid's journal.
#[derive(Debug, Clone)]
pub struct HexReplanner {
    options: GridOptions,
    core: ReplanCore,
    seen: (u64, u32),
    area_version: u32,
    status: SearchStatus,
}

impl HexReplanner {
    /// A replanner from `start` to `goal`.
    pub fn new(
        hex: &HexGrid,
        algorithm: ReplanAlgorithm,
        options: GridOptions,
        start: (u32, u32),
        goal: (u32, u32),
    ) -> Result<Self, GridError> {
        check_hex_options(&options)?;
        let s = hex.grid().index(start.0, start.1)?;
        let g = hex.grid().index(goal.0, goal.1)?;
        let record = options.record_expansions;
        Ok(HexReplanner {
            core: ReplanCore::new(algorithm, hex.grid().cell_count(), s, g, record),
            options,
            seen: hex.grid().cache_key(),
            area_version: hex.grid().areas().version(),
            status: SearchStatus::NotStarted,
        })
    }

    /// Reads the grid's edits since the last replan into pending entries (see
    /// [`GridReplanner::sync`](crate::GridReplanner::sync): call it before saving when the
    /// grid was edited after the last replan).
    pub fn sync(&mut self, hex: &HexGrid) -> Result<(), GridError> {
        if hex.grid().cell_count() != self.core.node_count {
            return Err(invalid(
                "hex grid",
                "not the size the replanner was created for",
            ));
        }
        if hex.grid().areas().version() != self.area_version {
            self.area_version = hex.grid().areas().version();
            self.core.invalidate_all();
        }
        let key = hex.grid().cache_key();
        if key != self.seen {
            let edits = if key.0 == self.seen.0 {
                hex.grid().edits_since(self.seen.1)
            } else {
                None
            };
            self.seen = key;
            match edits {
                Some(e) => e
                    .iter()
                    .for_each(|ed| self.core.push_pending(ed.cell, true)),
                None => self.core.invalidate_all(),
            }
        }
        Ok(())
    }

    /// Moves the start.
    pub fn set_start(&mut self, hex: &HexGrid, start: (u32, u32)) -> Result<(), GridError> {
        let s = hex.grid().index(start.0, start.1)?;
        let view = HexView::new(hex, &self.options);
        self.core.set_start(&view, s);
        Ok(())
    }

    /// Sets the goal.
    pub fn set_goal(&mut self, hex: &HexGrid, goal: (u32, u32)) -> Result<(), GridError> {
        let g = hex.grid().index(goal.0, goal.1)?;
        self.core.set_goal(g);
        Ok(())
    }

    /// Runs at most `max_iterations` iterations of the replan.
    pub fn step(&mut self, hex: &HexGrid, max_iterations: u64) -> Result<SearchStatus, GridError> {
        self.sync(hex)?;
        let view = HexView::new(hex, &self.options);
        self.status = self.core.step(&view, max_iterations);
        Ok(self.status)
    }

    /// Replans to completion and returns the path.
    pub fn replan(&mut self, hex: &HexGrid) -> Result<GridPath, GridError> {
        self.step(hex, self.options.step_budget())?;
        self.result(hex)
    }

    /// The result of the last replan.
    pub fn result(&self, hex: &HexGrid) -> Result<GridPath, GridError> {
        let view = HexView::new(hex, &self.options);
        self.core.result(&view, self.status)
    }

    /// The search state.
    pub fn core(&self) -> &ReplanCore {
        &self.core
    }
}

/// Save and restore (OPGS kind 6, `docs/grid-state.md`).
impl HexReplanner {
    /// The replanner's state (kind 6), laid out as kind 5.
    pub fn save_state(&self, hex: &HexGrid) -> Vec<u8> {
        crate::searches::replan::write_replanner(
            crate::state::kind::HEX_REPLANNER,
            hex.grid().width(),
            hex.grid().height(),
            self.area_version,
            &self.core,
        )
    }

    /// Restores a saved state in place (same hex grid size and algorithm; `hex` is the
    /// restored hex grid). Checked before anything changes.
    pub fn restore_state(
        &mut self,
        hex: &HexGrid,
        bytes: &[u8],
    ) -> Result<(), onepath_format::FormatError> {
        if hex.grid().cell_count() != self.core.node_count {
            return Err(crate::state::Family::Grid
                .err("the hex grid is not the size the replanner was created for"));
        }
        let head = crate::searches::replan::read_replanner(
            bytes,
            crate::state::kind::HEX_REPLANNER,
            hex.grid().width(),
            hex.grid().height(),
            self.core.mode,
        )?;
        self.core.install(head.saved);
        self.area_version = head.area_version;
        self.seen = hex.grid().cache_key();
        let view = HexView::new(hex, &self.options);
        self.status = self.core.restored_status(&view);
        Ok(())
    }
}
