//! The records of the motor, the locomotion handler and each locomotion mode
//! (`docs/agent-records.md`, "Motor", "Locomotion handler", "Locomotion modes"). Every
//! default here is the canonical one the document's tables give, never a live value.

use onepath_format::FormatError;

use crate::navigator::{
    ClimbLocomotion, FallLocomotion, FlyLocomotion, JumpLocomotion, LinkTraversal,
    LocomotionHandler, LocomotionKind, Motor, MoveLocomotion, PlatformLocomotion, SlideLocomotion,
    TrekCondition, WaterLocomotion,
};

use super::{broken, Reader, Value, Writer};

const ZERO: [f64; 3] = [0.0; 3];

/// The canonical defaults of every mode (Move and Fall of [`LocomotionHandler::new`], the
/// optional ones of [`LocomotionHandler::with_all_modes`]).
fn defaults() -> LocomotionHandler {
    LocomotionHandler::with_all_modes()
}

/// A nullable deep field (a link traversal): present as a branch, absent as `false`;
/// always written, so that a loaded `None` replaces the shell's traversal.
fn save_traversal(w: &mut Writer<'_>, name: &str, t: &Option<LinkTraversal>) {
    match t {
        None => {
            let p = w.path(name);
            w.rec.entries.insert(p, Value::Bool(false));
        }
        Some(t) => w.deep(name, |w| {
            w.vec3("init_pos", t.init_pos, ZERO);
            w.vec3("start", t.start, ZERO);
            w.vec3("end", t.end, ZERO);
            w.f64("elapsed", t.elapsed, 0.0);
            w.f64("duration", t.duration, 0.0);
        }),
    }
}

fn load_traversal(
    r: &Reader<'_>,
    name: &str,
    shell: Option<LinkTraversal>,
) -> Result<Option<LinkTraversal>, FormatError> {
    if let Some((_, Value::Bool(false))) = r.look(name) {
        return Ok(None);
    }
    let Some(t) = r.deep(name)? else {
        return Ok(shell);
    };
    Ok(Some(LinkTraversal {
        init_pos: t.vec3("init_pos", ZERO)?,
        start: t.vec3("start", ZERO)?,
        end: t.vec3("end", ZERO)?,
        elapsed: t.non_negative("elapsed", 0.0)?,
        duration: t.positive("duration", 0.0)?,
    }))
}

fn save_move(w: &mut Writer<'_>, m: &MoveLocomotion) {
    let d = defaults().walk;
    w.f64("speed_factor", m.speed_factor, d.speed_factor);
    w.vec3("frame_velocity", m.frame_velocity, d.frame_velocity);
}

fn load_move(r: &Reader<'_>) -> Result<MoveLocomotion, FormatError> {
    let d = defaults().walk;
    Ok(MoveLocomotion {
        speed_factor: r.non_negative("speed_factor", d.speed_factor)?,
        frame_velocity: r.vec3("frame_velocity", d.frame_velocity)?,
    })
}

fn save_fall(w: &mut Writer<'_>, f: &FallLocomotion) {
    let d = defaults().fall;
    w.f64("gravity", f.gravity, d.gravity);
    w.f64("max_fall_speed", f.max_fall_speed, d.max_fall_speed);
    w.f64(
        "max_fall_distance",
        f.max_fall_distance,
        d.max_fall_distance,
    );
    w.bool("falling", f.falling, d.falling);
    w.vec3("fall_start", f.fall_start, d.fall_start);
    if let Some(e) = f.fall_end {
        let p = w.path("fall_end");
        w.rec.entries.insert(p, Value::Vec3(e));
    }
    w.f64("vertical_speed", f.vertical_speed, d.vertical_speed);
}

fn load_fall(r: &Reader<'_>) -> Result<FallLocomotion, FormatError> {
    let d = defaults().fall;
    let fall_end = match r.look("fall_end") {
        None => None,
        Some(_) => Some(r.vec3("fall_end", ZERO)?),
    };
    Ok(FallLocomotion {
        gravity: r.f64("gravity", d.gravity)?,
        max_fall_speed: r.non_negative("max_fall_speed", d.max_fall_speed)?,
        max_fall_distance: r.non_negative("max_fall_distance", d.max_fall_distance)?,
        falling: r.bool("falling", d.falling)?,
        fall_start: r.vec3("fall_start", d.fall_start)?,
        fall_end,
        vertical_speed: r.f64("vertical_speed", d.vertical_speed)?,
    })
}

fn save_jump(w: &mut Writer<'_>, j: &JumpLocomotion) {
    let d = defaults().jump.unwrap_or(EMPTY_JUMP);
    w.f64("arc_per_length", j.arc_per_length, d.arc_per_length);
    w.f64("cooldown", j.cooldown, d.cooldown);
    save_traversal(w, "active", &j.active);
    w.f64("cooldown_left", j.cooldown_left, d.cooldown_left);
}

const EMPTY_JUMP: JumpLocomotion = JumpLocomotion {
    arc_per_length: 0.25,
    cooldown: 0.0,
    active: None,
    cooldown_left: 0.0,
};

fn load_jump(r: &Reader<'_>) -> Result<JumpLocomotion, FormatError> {
    let d = defaults().jump.unwrap_or(EMPTY_JUMP);
    Ok(JumpLocomotion {
        arc_per_length: r.f64("arc_per_length", d.arc_per_length)?,
        cooldown: r.non_negative("cooldown", d.cooldown)?,
        active: load_traversal(r, "active", None)?,
        cooldown_left: r.non_negative("cooldown_left", d.cooldown_left)?,
    })
}

fn save_slide(w: &mut Writer<'_>, s: &SlideLocomotion, d: &SlideLocomotion) {
    w.u32(
        "slope_area",
        u32::from(s.slope_area),
        u32::from(d.slope_area),
    );
    w.f64("speed_factor", s.speed_factor, d.speed_factor);
    w.bool("is_sliding", s.is_sliding, d.is_sliding);
}

fn area(r: &Reader<'_>, name: &str, default: u8) -> Result<u8, FormatError> {
    Ok(r.code(name, u32::from(default), 64)? as u8)
}

fn load_slide(r: &Reader<'_>, d: &SlideLocomotion) -> Result<SlideLocomotion, FormatError> {
    Ok(SlideLocomotion {
        slope_area: area(r, "slope_area", d.slope_area)?,
        speed_factor: r.non_negative("speed_factor", d.speed_factor)?,
        is_sliding: r.bool("is_sliding", d.is_sliding)?,
    })
}

fn save_water(w: &mut Writer<'_>, s: &WaterLocomotion, d: &WaterLocomotion) {
    w.u32(
        "water_area",
        u32::from(s.water_area),
        u32::from(d.water_area),
    );
    w.f64("speed_factor", s.speed_factor, d.speed_factor);
    w.f64("swim_time", s.swim_time, d.swim_time);
    w.f64("total_swim_time", s.total_swim_time, d.total_swim_time);
}

fn load_water(r: &Reader<'_>, d: &WaterLocomotion) -> Result<WaterLocomotion, FormatError> {
    Ok(WaterLocomotion {
        water_area: area(r, "water_area", d.water_area)?,
        speed_factor: r.non_negative("speed_factor", d.speed_factor)?,
        swim_time: r.non_negative("swim_time", d.swim_time)?,
        total_swim_time: r.non_negative("total_swim_time", d.total_swim_time)?,
    })
}

fn save_fly(w: &mut Writer<'_>, s: &FlyLocomotion, d: &FlyLocomotion) {
    w.f64("speed", s.speed, d.speed);
    w.f64("acceleration", s.acceleration, d.acceleration);
    w.f64(
        "gravity_compensation",
        s.gravity_compensation,
        d.gravity_compensation,
    );
    w.bool("is_flying", s.is_flying, d.is_flying);
}

fn load_fly(r: &Reader<'_>, d: &FlyLocomotion) -> Result<FlyLocomotion, FormatError> {
    Ok(FlyLocomotion {
        speed: r.non_negative("speed", d.speed)?,
        acceleration: r.non_negative("acceleration", d.acceleration)?,
        gravity_compensation: r.unit("gravity_compensation", d.gravity_compensation)?,
        is_flying: r.bool("is_flying", d.is_flying)?,
    })
}

fn save_climb(w: &mut Writer<'_>, s: &ClimbLocomotion, d: &ClimbLocomotion) {
    w.f64("min_height", s.min_height, d.min_height);
    w.f64("speed", s.speed, d.speed);
    w.f64(
        "gravity_compensation",
        s.gravity_compensation,
        d.gravity_compensation,
    );
    save_traversal(w, "active", &s.active);
}

fn load_climb(r: &Reader<'_>, d: &ClimbLocomotion) -> Result<ClimbLocomotion, FormatError> {
    Ok(ClimbLocomotion {
        min_height: r.f64("min_height", d.min_height)?,
        speed: r.non_negative("speed", d.speed)?,
        gravity_compensation: r.unit("gravity_compensation", d.gravity_compensation)?,
        active: load_traversal(r, "active", None)?,
    })
}

fn save_platform(w: &mut Writer<'_>, s: &PlatformLocomotion) {
    for (name, id) in [("attached", s.attached), ("previous", s.previous)] {
        if let Some(id) = id {
            let p = w.path(name);
            w.rec.entries.insert(p, Value::U32(id));
        }
    }
    w.vec3("local_offset", s.local_offset, ZERO);
    w.vec3("last_platform_pos", s.last_platform_pos, ZERO);
    w.vec3("tracked_velocity", s.tracked_velocity, ZERO);
}

fn load_platform(r: &Reader<'_>) -> Result<PlatformLocomotion, FormatError> {
    let id = |name: &str| -> Result<Option<u32>, FormatError> {
        match r.look(name) {
            None => Ok(None),
            Some(_) => Ok(Some(r.u32(name, 0)?)),
        }
    };
    Ok(PlatformLocomotion {
        attached: id("attached")?,
        previous: id("previous")?,
        local_offset: r.vec3("local_offset", ZERO)?,
        last_platform_pos: r.vec3("last_platform_pos", ZERO)?,
        tracked_velocity: r.vec3("tracked_velocity", ZERO)?,
    })
}

/// The locomotion handler's record: `in_control`, `installed`, `mode` and a deep slot per
/// mode (`move`, `fall` always; the optional ones when installed).
pub(crate) fn save_handler(w: &mut Writer<'_>, h: &LocomotionHandler) {
    let d = defaults();
    let required = LocomotionKind::Move.bit() | LocomotionKind::Fall.bit();
    w.bool("in_control", h.in_control, true);
    w.u32(
        "installed",
        u32::from(installed_bits(h)),
        u32::from(required),
    );
    w.u32("mode", h.mode as u32, LocomotionKind::Move as u32);
    w.deep("move", |w| save_move(w, &h.walk));
    w.deep("fall", |w| save_fall(w, &h.fall));
    if let Some(j) = &h.jump {
        w.deep("jump", |w| save_jump(w, j));
    }
    if let (Some(s), Some(sd)) = (&h.slide, &d.slide) {
        w.deep("slide", |w| save_slide(w, s, sd));
    }
    if let (Some(s), Some(sd)) = (&h.water, &d.water) {
        w.deep("water", |w| save_water(w, s, sd));
    }
    if let (Some(s), Some(sd)) = (&h.fly, &d.fly) {
        w.deep("fly", |w| save_fly(w, s, sd));
    }
    if let (Some(s), Some(sd)) = (&h.climb, &d.climb) {
        w.deep("climb", |w| save_climb(w, s, sd));
    }
    if let Some(p) = &h.platform {
        w.deep("platform", |w| save_platform(w, p));
    }
}

/// The installed kinds as the optional modes present say (Move and Fall always).
fn installed_bits(h: &LocomotionHandler) -> u8 {
    let mut c = *h;
    c.refresh_installed();
    c.installed
}

/// One optional mode: not installed → none; installed, its branch present → loaded whole;
/// absent → the shell's mode, or the mode's defaults when the shell has none.
fn optional<T: Copy>(
    r: &Reader<'_>,
    installed: u8,
    kind: LocomotionKind,
    name: &str,
    shell: Option<T>,
    default: T,
    load: impl FnOnce(&Reader<'_>) -> Result<T, FormatError>,
) -> Result<Option<T>, FormatError> {
    if installed & kind.bit() == 0 {
        return Ok(None);
    }
    match r.deep(name)? {
        Some(b) => Ok(Some(load(&b)?)),
        None => Ok(Some(shell.unwrap_or(default))),
    }
}

pub(crate) fn load_handler(
    r: &Reader<'_>,
    shell: &LocomotionHandler,
) -> Result<LocomotionHandler, FormatError> {
    let d = defaults();
    let required = LocomotionKind::Move.bit() | LocomotionKind::Fall.bit();
    let installed = r.u32("installed", u32::from(required))?;
    if installed > 0xFF || installed as u8 & required != required {
        return Err(broken(format!(
            "{}installed = {installed:#x} must hold Move and Fall and no bit above 7",
            r.prefix
        )));
    }
    let installed = installed as u8;
    let mode = super::super::snapshot::locomotion_kind_of(r.code("mode", 0, 8)? as u8);
    let mut h = LocomotionHandler {
        in_control: r.bool("in_control", true)?,
        installed,
        mode,
        walk: match r.deep("move")? {
            Some(b) => load_move(&b)?,
            None => shell.walk,
        },
        fall: match r.deep("fall")? {
            Some(b) => load_fall(&b)?,
            None => shell.fall,
        },
        jump: optional(
            r,
            installed,
            LocomotionKind::Jump,
            "jump",
            shell.jump,
            EMPTY_JUMP,
            load_jump,
        )?,
        slide: None,
        water: None,
        fly: None,
        climb: None,
        platform: None,
    };
    let (ds, dw, df, dc, dp) = match (d.slide, d.water, d.fly, d.climb, d.platform) {
        (Some(s), Some(w), Some(f), Some(c), Some(p)) => (s, w, f, c, p),
        _ => return Err(broken("the optional modes' defaults are missing")),
    };
    h.slide = optional(
        r,
        installed,
        LocomotionKind::Slide,
        "slide",
        shell.slide,
        ds,
        |b| load_slide(b, &ds),
    )?;
    h.water = optional(
        r,
        installed,
        LocomotionKind::Water,
        "water",
        shell.water,
        dw,
        |b| load_water(b, &dw),
    )?;
    h.fly = optional(
        r,
        installed,
        LocomotionKind::Fly,
        "fly",
        shell.fly,
        df,
        |b| load_fly(b, &df),
    )?;
    h.climb = optional(
        r,
        installed,
        LocomotionKind::Climb,
        "climb",
        shell.climb,
        dc,
        |b| load_climb(b, &dc),
    )?;
    h.platform = optional(
        r,
        installed,
        LocomotionKind::Platform,
        "platform",
        shell.platform,
        dp,
        load_platform,
    )?;
    if mode != LocomotionKind::Move && mode != LocomotionKind::Fall && installed & mode.bit() == 0 {
        return Err(broken(format!(
            "{}mode = {mode:?} is not installed",
            r.prefix
        )));
    }
    clear_disabled(&mut h);
    Ok(h)
}

/// A mode that is not the one in control holds no transient state: a payload that still
/// carries some (a stale jump, a swim timer) is cleared on load.
fn clear_disabled(h: &mut LocomotionHandler) {
    let mode = h.mode;
    if mode != LocomotionKind::Fall {
        h.fall.falling = false;
        h.fall.fall_end = None;
        h.fall.vertical_speed = 0.0;
    }
    if mode != LocomotionKind::Jump {
        if let Some(j) = h.jump.as_mut() {
            j.active = None;
        }
    }
    if mode != LocomotionKind::Climb {
        if let Some(c) = h.climb.as_mut() {
            c.active = None;
        }
    }
    if mode != LocomotionKind::Slide {
        if let Some(s) = h.slide.as_mut() {
            s.is_sliding = false;
        }
    }
    if mode != LocomotionKind::Water {
        if let Some(w) = h.water.as_mut() {
            w.swim_time = 0.0;
        }
    }
    if mode != LocomotionKind::Fly {
        if let Some(f) = h.fly.as_mut() {
            f.is_flying = false;
        }
    }
    if mode != LocomotionKind::Platform {
        if let Some(p) = h.platform.as_mut() {
            if p.attached.is_some() {
                p.previous = p.attached.take();
            }
            p.tracked_velocity = ZERO;
        }
    }
}

fn trek_code(t: TrekCondition) -> u32 {
    match t {
        TrekCondition::Grounded => 0,
        TrekCondition::Airborne => 1,
        TrekCondition::OnLink => 2,
        TrekCondition::OnPlatform => 3,
    }
}

fn trek(c: u32) -> TrekCondition {
    match c {
        0 => TrekCondition::Grounded,
        1 => TrekCondition::Airborne,
        2 => TrekCondition::OnLink,
        _ => TrekCondition::OnPlatform,
    }
}

/// The motor's record: conditions, `initialized`, the deep `handler`.
pub(crate) fn save_motor(w: &mut Writer<'_>, m: &Motor) {
    w.u32("condition", trek_code(m.condition), 0);
    w.u32("previous_condition", trek_code(m.previous_condition), 0);
    w.bool("initialized", m.initialized, false);
    w.deep("handler", |w| save_handler(w, &m.handler));
}

pub(crate) fn load_motor(r: &Reader<'_>, shell: &Motor) -> Result<Motor, FormatError> {
    Ok(Motor {
        condition: trek(r.code("condition", 0, 4)?),
        previous_condition: trek(r.code("previous_condition", 0, 4)?),
        initialized: r.bool("initialized", false)?,
        handler: match r.deep("handler")? {
            Some(b) => load_handler(&b, &shell.handler)?,
            None => shell.handler,
        },
    })
}
