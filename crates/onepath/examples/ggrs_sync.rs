//! Rollback with GGRS: a `ggrs::SyncTestSession` (two players, check distance 7) drives a
//! navigation world: the city level with a tile cache, a crowd, a grid with a D* Lite
//! replanner and a flow field. Each frame the players' inputs add or remove obstacles,
//! retarget groups of agents and edit grid cells. Saving a frame stores OnePath's snapshots
//! (the tile cache's ONTK with its mesh in Referenced mode, the crowd's ONCS, the grid's,
//! the replanner's and the flow field's OPGS); loading restores them in place; the checksum
//! is the SHA-256 of the saved bytes. Every frame GGRS rolls back 7 frames, simulates them
//! again and compares the checksums: one differing byte fails the run.
//!
//! ```text
//! cargo run --release -p onepath --example ggrs_sync                 # sync test, 3 000 frames
//! cargo run --release -p onepath --example ggrs_sync -- sync FRAMES AGENTS
//! cargo run --release -p onepath --example ggrs_sync -- record FILE FRAMES
//! cargo run --release -p onepath --example ggrs_sync -- replay FILE
//! cargo run --release -p onepath --example ggrs_sync -- measure FRAMES AGENTS
//! cargo run --release -p onepath --example ggrs_sync -- check FRAMES AGENTS
//! ```
//!
//! `record` writes the inputs and each frame's checksum; `replay` (another process, another
//! build profile or thread count: `cargo xtask replay-check`) simulates the recorded inputs
//! and fails at the first frame whose checksum differs. `measure` prints bytes per saved
//! frame and save / load times (timing loop, not a test; `docs/perf/rollback.md`). `check`
//! rolls back 7 frames from every frame without GGRS and names the part that differs.
//!
//! The game saves at any point of its frame as it is: the crowd runs with its default path
//! budget (a search in progress over a rebuilt tile is saved and continued exactly), the
//! replanner may be saved between a start move and the replan after it, and corridors keep
//! the crowd's own stale-corridor rule across a restore.
#![allow(dead_code)]

use std::error::Error;
use std::time::{Duration, Instant};

use ggrs::{Config, GgrsRequest, PlayerType, PredictRepeatLast, SessionBuilder};
use onepath::build::generators::{city, CityParams};
use onepath::build::Obstacle;
use onepath::crowd::{AgentParams, CrowdSettings};
use onepath::grid::{Grid, GridFlowField, GridOptions, GridReplanner, ReplanAlgorithm};
use onepath::prelude::*;
use onepath::snapshot::{SnapshotMode, TileLibrary};
use sha2::{Digest, Sha256};

type Res<T> = Result<T, Box<dyn Error>>;

/// The grid's size (cells).
pub const GRID: u32 = 24;
/// Frames per second of the simulation.
const DT: f64 = 1.0 / 30.0;
/// At most this many obstacles stand at once (an add beyond it removes the oldest).
const MAX_OBSTACLES: usize = 6;
/// Agents retargeted together (agent index modulo this is the group).
const GROUPS: usize = 8;
/// The seed of the players' input generators.
pub const INPUT_SEED: u64 = 0x5eed_0f0e_7a7b;

/// The GGRS configuration: an input is one packed `u32` per player, a saved state is the
/// bytes of [`Game::save`].
pub struct Nav;

impl Config for Nav {
    type Input = u32;
    type InputPredictor = PredictRepeatLast;
    type State = Vec<u8>;
    type Address = u16;
}

/// SplitMix64: the deterministic generator of the inputs and of the points they pick.
#[derive(Debug, Clone, Copy)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A number in [0, 1) (53 bits, exact).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The input of `player` at `frame`: a pure function of the seed, the frame and the
/// player (what the input callback of a real game would read from a pad). Bits 0..3: the
/// action (0 none, 1 add an obstacle, 2 remove one, 3 retarget a group, 4 edit a cell),
/// bits 3..32: its parameter.
pub fn input_for(frame: u32, player: usize) -> u32 {
    let mut r = Rng::new(INPUT_SEED ^ (u64::from(frame) << 1) ^ player as u64);
    let roll = r.next_u64() % 100;
    let action = match roll {
        0..=4 => 1,
        5..=8 => 2,
        9..=18 => 3,
        19..=48 => 4,
        _ => 0,
    };
    let param = (r.next_u64() as u32) >> 3;
    (param << 3) | action
}

/// The game state: the world with its tile cache, the crowd, the grid with its replanner
/// and flow field. The tile library holds the tiles the Referenced mesh snapshots name
/// (content-addressed and append-only: it is not rolled back).
pub struct Game {
    /// The frame about to be simulated.
    pub frame: u32,
    world: NavWorld,
    crowd: WorldCrowd,
    grid: Grid,
    replanner: GridReplanner,
    flow: GridFlowField,
    library: TileLibrary,
}

fn part<'a>(bytes: &mut &'a [u8], what: &str) -> Res<&'a [u8]> {
    if bytes.len() < 4 {
        return Err(format!("saved frame: {what} length past the end").into());
    }
    let n = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
    let rest = &bytes[4..];
    if rest.len() < n {
        return Err(format!("saved frame: {what} holds {n} bytes, {} remain", rest.len()).into());
    }
    let (p, tail) = rest.split_at(n);
    *bytes = tail;
    Ok(p)
}

fn push_part(out: &mut Vec<u8>, p: &[u8]) {
    out.extend_from_slice(&(p.len() as u32).to_le_bytes());
    out.extend_from_slice(p);
}

impl Game {
    /// The city level with a tile cache, `agents` agents walking to seeded targets, a
    /// [`GRID`]² grid with a D* Lite replanner corner to corner and a flow field toward
    /// its centre.
    pub fn new(agents: usize) -> Res<Game> {
        let soup = city(&CityParams::default());
        let nav = NavMesh::build_with_tile_cache(&NavSettings::default(), &soup)?;
        let world = NavWorld::from_classes(vec![nav])?;
        let mut library = TileLibrary::new(world.class(0)?.mesh().params());
        library.extend(world.class(0)?.mesh().tiles().map(|t| t.tile()))?;
        let mut crowd = WorldCrowd::new(
            &world,
            CrowdSettings {
                max_agents: agents.max(1),
                ..CrowdSettings::default()
            },
        )?;
        let mut rng = Rng::new(1);
        let nav = world.class(0)?;
        for _ in 0..agents {
            let from = nav
                .random_point(&mut || rng.unit())?
                .ok_or("no point on the city mesh")?;
            let to = nav
                .random_point(&mut || rng.unit())?
                .ok_or("no point on the city mesh")?;
            let a = crowd.add_agent(&world, from.point, AgentParams::new(0.5))?;
            crowd.request_move_target(&world, a, to.point)?;
        }
        let grid = Grid::new(GRID, GRID)?;
        let replanner = GridReplanner::new(
            &grid,
            ReplanAlgorithm::DStarLite,
            GridOptions::default(),
            (0, 0),
            (GRID - 1, GRID - 1),
        )?;
        let flow = GridFlowField::new(&grid, &[(GRID / 2, GRID / 2)], GridOptions::default())?;
        Ok(Game {
            frame: 0,
            world,
            crowd,
            grid,
            replanner,
            flow,
            library,
        })
    }

    /// The saved bytes of the frame: frame number, ONTK (mesh Referenced), ONCS, the grid's,
    /// the replanner's and the flow field's OPGS, each behind its length (u32 LE).
    pub fn save(&self) -> Res<Vec<u8>> {
        let tc = self
            .world
            .class(0)?
            .tile_cache()
            .ok_or("the city class has no tile cache")?;
        let mut out = Vec::new();
        out.extend_from_slice(&self.frame.to_le_bytes());
        push_part(&mut out, &tc.snapshot(SnapshotMode::Referenced));
        push_part(&mut out, &self.crowd.crowd(0)?.save_snapshot());
        push_part(&mut out, &self.grid.save_state());
        push_part(&mut out, &self.replanner.save_state());
        push_part(&mut out, &self.flow.save_state(&self.grid));
        Ok(out)
    }

    /// Restores bytes of [`Game::save`] in place: the tile cache (and its mesh), the grid,
    /// the replanner and flow field over the restored grid, the crowd over the restored mesh.
    pub fn load(&mut self, bytes: &[u8]) -> Res<()> {
        if bytes.len() < 4 {
            return Err("saved frame: shorter than its frame number".into());
        }
        let frame = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let mut rest = &bytes[4..];
        let ontk = part(&mut rest, "tile cache")?;
        let oncs = part(&mut rest, "crowd")?;
        let grid = part(&mut rest, "grid")?;
        let replanner = part(&mut rest, "replanner")?;
        let flow = part(&mut rest, "flow field")?;
        if !rest.is_empty() {
            return Err(format!("saved frame: {} bytes after the flow field", rest.len()).into());
        }
        let nav = self.world.class_mut(0)?;
        nav.tile_cache_mut()
            .ok_or("the city class has no tile cache")?
            .restore(ontk, &self.library)?;
        self.grid.restore_state(grid)?;
        self.replanner.restore_state(&self.grid, replanner)?;
        self.flow.restore_state(&self.grid, flow)?;
        let stale = self
            .crowd
            .with_context(&self.world, 0, &[], |crowd, ctx| {
                crowd.restore_snapshot(ctx, oncs)
            })??;
        if std::env::var_os("GGRS_DEBUG").is_some() && stale > 0 {
            eprintln!("frame {frame}: {stale} stale corridors");
        }
        self.frame = frame;
        Ok(())
    }

    fn apply(&mut self, input: u32) -> Res<()> {
        let param = input >> 3;
        let mut r = Rng::new(u64::from(param) ^ (u64::from(self.frame) << 32));
        match input & 7 {
            1 => {
                let tc = self.world.class(0)?.tile_cache().ok_or("no tile cache")?;
                let oldest = tc.obstacles().next().map(|(id, _)| id);
                if tc.obstacles().len() >= MAX_OBSTACLES {
                    if let Some(id) = oldest {
                        self.world.class_mut(0)?.remove_obstacle(id)?;
                    }
                } else if let Some(p) = self.world.class(0)?.random_point(&mut || r.unit())? {
                    let radius = 0.6 + 0.6 * r.unit();
                    self.world.class_mut(0)?.add_obstacle(Obstacle::Cylinder {
                        center: p.point,
                        radius,
                        height: 2.0,
                    })?;
                }
            }
            2 => {
                let tc = self.world.class(0)?.tile_cache().ok_or("no tile cache")?;
                let n = tc.obstacles().len();
                if n > 0 {
                    let id = tc.obstacles().nth(param as usize % n).map(|(id, _)| id);
                    if let Some(id) = id {
                        self.world.class_mut(0)?.remove_obstacle(id)?;
                    }
                }
            }
            3 => {
                let group = param as usize % GROUPS;
                let nav = self.world.class(0)?;
                if let Some(to) = nav.random_point(&mut || r.unit())? {
                    let ids: Vec<_> = self
                        .crowd
                        .crowd(0)?
                        .agents()
                        .iter()
                        .map(|a| a.id())
                        .collect();
                    for (i, id) in ids.into_iter().enumerate() {
                        if i % GROUPS == group {
                            let agent = WorldAgent { class: 0, id };
                            self.crowd
                                .request_move_target(&self.world, agent, to.point)?;
                        }
                    }
                }
            }
            4 => {
                let (x, y) = (param % GRID, (param / GRID) % GRID);
                let area = self.grid.area(x, y)?;
                self.grid
                    .set_area(x, y, if area == 255 { 1 } else { 255 })?;
            }
            _ => {}
        }
        Ok(())
    }

    /// One frame: the inputs in player order, one tile of the rebuild queue, the crowd
    /// step, a replan (the start moves one cell along the path every fourth frame; at the
    /// goal start and goal swap) and 64 settles of the flow field.
    pub fn step(&mut self, inputs: &[u32]) -> Res<()> {
        for &i in inputs {
            self.apply(i)?;
        }
        let stats = self.world.class_mut(0)?.update(1)?;
        if stats.layers_built > 0 {
            let mesh = self.world.class(0)?.mesh();
            self.library.extend(mesh.tiles().map(|t| t.tile()))?;
        }
        self.crowd.update(&self.world, DT)?;
        let path = self.replanner.replan(&self.grid)?;
        if self.frame % 4 == 0 {
            match path.nodes.len() {
                0 => {}
                1 => {
                    let g = self.grid.xy(path.nodes[0]);
                    let back = (GRID - 1 - g.0, GRID - 1 - g.1);
                    self.replanner.set_goal(&self.grid, back)?;
                }
                _ => {
                    let next = self.grid.xy(path.nodes[1]);
                    self.replanner.set_start(&self.grid, next)?;
                }
            }
        }
        self.flow.step(&self.grid, 64)?;
        self.frame += 1;
        Ok(())
    }
}

/// The checksum of saved bytes: the first 16 bytes of their SHA-256, big-endian.
pub fn checksum(bytes: &[u8]) -> u128 {
    let d = Sha256::digest(bytes);
    let mut b = [0u8; 16];
    b.copy_from_slice(&d[..16]);
    u128::from_be_bytes(b)
}

/// What a sync test did.
#[derive(Debug, Default)]
pub struct SyncReport {
    /// Frames advanced.
    pub frames: u32,
    /// Saves, loads and simulated frames GGRS asked for.
    pub saves: u64,
    /// Loads.
    pub loads: u64,
    /// Simulated frames (first runs and resimulations).
    pub steps: u64,
    /// Bytes of the last saved frame.
    pub bytes: usize,
    /// Time in saves (snapshot + checksum) and loads.
    pub save_time: Duration,
    /// Time in loads.
    pub load_time: Duration,
    /// Time in the whole run.
    pub total: Duration,
}

/// Runs a GGRS sync test of `frames` frames (two players, check distance 7) over a game of
/// `agents` agents. A checksum mismatch is an error naming the frames.
pub fn sync_test(frames: u32, agents: usize) -> Res<SyncReport> {
    let mut session = SessionBuilder::<Nav>::new()
        .with_num_players(2)?
        .with_check_distance(7)
        .add_player(PlayerType::Local, 0)?
        .add_player(PlayerType::Local, 1)?
        .start_synctest_session()?;
    let mut game = Game::new(agents)?;
    let mut report = SyncReport::default();
    let start = Instant::now();
    for frame in 0..frames {
        for player in 0..2 {
            session.add_local_input(player, input_for(frame, player))?;
        }
        let requests = session
            .advance_frame()
            .map_err(|e| format!("frame {frame}: {e}"))?;
        for request in requests {
            match request {
                GgrsRequest::SaveGameState { cell, frame: f } => {
                    let t = Instant::now();
                    if game.frame as i32 != f {
                        return Err(
                            format!("asked to save frame {f} at frame {}", game.frame).into()
                        );
                    }
                    let bytes = game.save()?;
                    let sum = checksum(&bytes);
                    report.bytes = bytes.len();
                    cell.save(f, Some(bytes), Some(sum));
                    report.save_time += t.elapsed();
                    report.saves += 1;
                }
                GgrsRequest::LoadGameState { cell, frame: f } => {
                    let t = Instant::now();
                    let bytes = cell.load().ok_or(format!("no state saved for frame {f}"))?;
                    game.load(&bytes)?;
                    report.load_time += t.elapsed();
                    report.loads += 1;
                }
                GgrsRequest::AdvanceFrame { inputs } => {
                    let inputs: Vec<u32> = inputs.iter().map(|(i, _)| *i).collect();
                    game.step(&inputs)?;
                    report.steps += 1;
                }
            }
        }
        report.frames += 1;
    }
    report.total = start.elapsed();
    Ok(report)
}

/// Simulates `frames` frames without rollback and returns each frame's inputs and the
/// checksum of the state saved before it, plus the checksum after the last frame.
pub fn record(frames: u32, agents: usize) -> Res<(Vec<[u32; 2]>, Vec<u128>)> {
    let mut game = Game::new(agents)?;
    let mut inputs = Vec::with_capacity(frames as usize);
    let mut sums = Vec::with_capacity(frames as usize + 1);
    for frame in 0..frames {
        sums.push(checksum(&game.save()?));
        let i = [input_for(frame, 0), input_for(frame, 1)];
        game.step(&i)?;
        inputs.push(i);
    }
    sums.push(checksum(&game.save()?));
    Ok((inputs, sums))
}

/// Simulates recorded inputs and compares each frame's checksum with the recorded ones;
/// the first differing frame is the error.
pub fn replay(agents: usize, inputs: &[[u32; 2]], sums: &[u128]) -> Res<()> {
    if sums.len() != inputs.len() + 1 {
        return Err(format!("{} inputs and {} checksums", inputs.len(), sums.len()).into());
    }
    let mut game = Game::new(agents)?;
    for (frame, i) in inputs.iter().enumerate() {
        let got = checksum(&game.save()?);
        if got != sums[frame] {
            return Err(format!(
                "frame {frame}: checksum {got:032x}, recorded {:032x}",
                sums[frame]
            )
            .into());
        }
        game.step(i)?;
    }
    let got = checksum(&game.save()?);
    if got != sums[inputs.len()] {
        return Err(format!(
            "after the last frame: checksum {got:032x}, recorded {:032x}",
            sums[inputs.len()]
        )
        .into());
    }
    Ok(())
}

/// The agents of a recorded run (`record` and `replay` use the same).
pub const REPLAY_AGENTS: usize = 64;

/// Writes a recording as text: `frame input0 input1 checksum` per line, then `end checksum`.
pub fn write_recording(inputs: &[[u32; 2]], sums: &[u128]) -> String {
    let mut s = String::new();
    for (f, (i, c)) in inputs.iter().zip(sums).enumerate() {
        s.push_str(&format!("{f} {} {} {c:032x}\n", i[0], i[1]));
    }
    if let Some(last) = sums.last() {
        s.push_str(&format!("end {last:032x}\n"));
    }
    s
}

/// Reads [`write_recording`]'s text back.
pub fn read_recording(text: &str) -> Res<(Vec<[u32; 2]>, Vec<u128>)> {
    let mut inputs = Vec::new();
    let mut sums = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let bad = || {
            format!(
                "recording line {}: `{line}` is not `frame input input checksum`",
                n + 1
            )
        };
        match w.as_slice() {
            ["end", c] => sums.push(u128::from_str_radix(c, 16).map_err(|_| bad())?),
            [f, a, b, c] => {
                if f.parse::<usize>().map_err(|_| bad())? != inputs.len() {
                    return Err(bad().into());
                }
                inputs.push([a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?]);
                sums.push(u128::from_str_radix(c, 16).map_err(|_| bad())?);
            }
            _ => return Err(bad().into()),
        }
    }
    Ok((inputs, sums))
}

/// Save / load figures of a plain run (timing loop, not a test).
#[derive(Debug)]
pub struct Measure {
    /// Frames measured.
    pub frames: usize,
    /// Bytes per saved frame: mean and largest.
    pub bytes_mean: usize,
    /// Largest saved frame.
    pub bytes_max: usize,
    /// The mean of the parts: ONTK (Referenced), ONCS, the three OPGS together.
    pub parts_mean: [usize; 3],
    /// The mean ONTK size had the mesh been saved Full instead.
    pub full_ontk_mean: usize,
    /// Save (snapshots + SHA-256), per frame: median and worst.
    pub save: [Duration; 2],
    /// Load (restore in place), per frame: median and worst.
    pub load: [Duration; 2],
    /// Simulating a frame: median and worst.
    pub step: [Duration; 2],
}

fn median_worst(mut v: Vec<Duration>) -> [Duration; 2] {
    v.sort_unstable();
    [v[v.len() / 2], v[v.len() - 1]]
}

/// Simulates `frames` frames of `agents` agents; after each, saves (snapshots and
/// checksum), then loads the saved bytes back in place, and times both.
pub fn measure(frames: u32, agents: usize) -> Res<Measure> {
    let mut game = Game::new(agents)?;
    let (mut saves, mut loads, mut steps) = (Vec::new(), Vec::new(), Vec::new());
    let (mut bytes, mut bytes_max, mut full) = (0usize, 0usize, 0usize);
    let mut parts = [0usize; 3];
    for f in 0..frames {
        let t = Instant::now();
        game.step(&[input_for(f, 0), input_for(f, 1)])?;
        steps.push(t.elapsed());
        let t = Instant::now();
        let saved = game.save()?;
        std::hint::black_box(checksum(&saved));
        saves.push(t.elapsed());
        let t = Instant::now();
        game.load(&saved)?;
        loads.push(t.elapsed());
        bytes += saved.len();
        bytes_max = bytes_max.max(saved.len());
        let mut rest = &saved[4..];
        parts[0] += part(&mut rest, "tile cache")?.len();
        parts[1] += part(&mut rest, "crowd")?.len();
        parts[2] += rest.len() - 12;
        let tc = game.world.class(0)?.tile_cache().ok_or("no tile cache")?;
        full += tc.snapshot(SnapshotMode::Full).len();
    }
    let n = frames.max(1) as usize;
    Ok(Measure {
        frames: n,
        bytes_mean: bytes / n,
        bytes_max,
        parts_mean: parts.map(|p| p / n),
        full_ontk_mean: full / n,
        save: median_worst(saves),
        load: median_worst(loads),
        step: median_worst(steps),
    })
}

fn arg<T: std::str::FromStr>(args: &[String], i: usize, default: T) -> Res<T> {
    match args.get(i) {
        None => Ok(default),
        Some(a) => a
            .parse()
            .map_err(|_| format!("argument {i}: `{a}` is not a number").into()),
    }
}

fn profile() -> &'static str {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
}

/// Runs the example (also called by the crate's `tests/ggrs_sync.rs`).
pub fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("sync") => {
            let frames = arg(&args, 1, 3000)?;
            let agents = arg(&args, 2, 64)?;
            let r = sync_test(frames, agents)?;
            println!(
                "ggrs sync test: {} frames, check distance 7, {agents} agents: {} saves, {} loads, {} simulated frames, 0 mismatches; {} bytes per saved frame; {:.2?} total",
                r.frames, r.saves, r.loads, r.steps, r.bytes, r.total
            );
        }
        Some("record") => {
            let file = args.get(1).ok_or("record FILE [FRAMES]")?;
            let frames = arg(&args, 2, 300)?;
            let (inputs, sums) = record(frames, REPLAY_AGENTS)?;
            std::fs::write(file, write_recording(&inputs, &sums))?;
            println!(
                "recorded {frames} frames to {file} ({} build, rayon threads: {})",
                profile(),
                rayon::current_num_threads()
            );
        }
        Some("replay") => {
            let file = args.get(1).ok_or("replay FILE")?;
            let (inputs, sums) = read_recording(&std::fs::read_to_string(file)?)?;
            replay(REPLAY_AGENTS, &inputs, &sums)?;
            println!(
                "replayed {} frames of {file} ({} build, rayon threads: {}): every checksum equal",
                inputs.len(),
                profile(),
                rayon::current_num_threads()
            );
        }
        Some("measure") => {
            let frames = arg(&args, 1, 1000)?;
            let agents = arg(&args, 2, 64)?;
            let m = measure(frames, agents)?;
            println!(
                "{agents} agents, {} frames ({} build, rayon threads: {}): {} bytes per saved frame (largest {}; ONTK Referenced {}, ONCS {}, OPGS x3 {}; ONTK Full would be {}); save {:.1?} median, {:.1?} worst; load {:.1?} median, {:.1?} worst; step {:.1?} median, {:.1?} worst",
                m.frames, profile(), rayon::current_num_threads(), m.bytes_mean, m.bytes_max,
                m.parts_mean[0], m.parts_mean[1], m.parts_mean[2], m.full_ontk_mean,
                m.save[0], m.save[1], m.load[0], m.load[1], m.step[0], m.step[1]
            );
            let r = sync_test(frames, agents)?;
            let per = |d: Duration| d / r.frames;
            println!(
                "  ggrs sync test, check distance 7, {} frames: {:.1?} per frame in all, of which OnePath's saves {:.1?} ({} per frame) and loads {:.1?} ({:.2} per frame); 0 mismatches",
                r.frames, per(r.total), per(r.save_time), r.saves / u64::from(r.frames), per(r.load_time),
                r.loads as f64 / f64::from(r.frames)
            );
        }
        Some("check") => {
            let frames = arg(&args, 1, 300)?;
            let agents = arg(&args, 2, 64)?;
            check_rollbacks(frames, agents, 7)?;
            println!("every rollback of 7 frames over {frames} frames gave the same bytes");
        }
        Some(other) => {
            return Err(
                format!("unknown mode `{other}` (sync, record, replay, measure, check)").into(),
            )
        }
    }
    Ok(())
}

/// The parts of saved bytes that differ (names), for a failing check's message.
pub fn differing_parts(a: &[u8], b: &[u8]) -> Res<Vec<&'static str>> {
    let names = ["tile cache", "crowd", "grid", "replanner", "flow field"];
    let (mut x, mut y) = (&a[4.min(a.len())..], &b[4.min(b.len())..]);
    let mut out = Vec::new();
    if a.get(..4) != b.get(..4) {
        out.push("frame");
    }
    for n in names {
        if part(&mut x, n)? != part(&mut y, n)? {
            out.push(n);
        }
    }
    Ok(out)
}

/// Saves at every frame of a plain run, then for each frame restores its state, simulates
/// `distance` frames again and compares with the first run; the first difference is the
/// error, naming the frame and the parts.
pub fn check_rollbacks(frames: u32, agents: usize, distance: u32) -> Res<()> {
    let mut game = Game::new(agents)?;
    let mut states = vec![game.save()?];
    let inputs: Vec<[u32; 2]> = (0..frames)
        .map(|f| [input_for(f, 0), input_for(f, 1)])
        .collect();
    for i in &inputs {
        game.step(i)?;
        states.push(game.save()?);
    }
    for from in 0..frames.saturating_sub(distance) {
        game.load(&states[from as usize])?;
        let again = game.save()?;
        if again != states[from as usize] {
            let d = differing_parts(&again, &states[from as usize])?;
            return Err(format!("frame {from}: saved again after a load, differs in {d:?}").into());
        }
        for f in from..from + distance {
            game.step(&inputs[f as usize])?;
            let s = game.save()?;
            if s != states[f as usize + 1] {
                let d = differing_parts(&s, &states[f as usize + 1])?;
                return Err(format!(
                    "frame {}: after a rollback to frame {from}, differs in {d:?}",
                    f + 1
                )
                .into());
            }
        }
    }
    Ok(())
}
