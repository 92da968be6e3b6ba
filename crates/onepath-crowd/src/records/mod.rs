//! Agent records (`docs/agent-records.md`): each agent type writes and reads its own record
//! in code of its own, authoritative state only, into a [`Record`]: a flat, ordered map
//! from a field's path (`steering.request.kind`) to a [`Value`].
//!
//! - A **value** field has a declared canonical default (never the instance's current
//!   value): a value equal to its default (bit for bit) is omitted on save; a missing value
//!   loads its default.
//! - A **deep** field (a nested record) is marked by a [`Value::Branch`] entry at its path:
//!   absent, the loading shell keeps that branch as it is; present, the branch is loaded
//!   whole (its missing values load their defaults).
//!
//! The record is flat so that no transport recurses over hostile input. The `serde`
//! feature gives it two transports with the same load behaviour (both carry the same
//! [`Record`]): JSON (`Record::to_json`) and compact binary (`Record::to_postcard`).
//!
//! ```
//! use onepath_crowd::records::Value;
//! use onepath_crowd::{AgentParams, Crowd, CrowdSettings, WorldContext};
//! use onepath_mesh::fixtures::bridge_and_building;
//!
//! let mesh = bridge_and_building();
//! let world = WorldContext::new(&mesh);
//! let mut crowd = Crowd::new(CrowdSettings::default()).unwrap();
//! let id = crowd.add_agent(&mesh, [2.0, 0.0, 2.0], AgentParams::default()).unwrap();
//! crowd.turning_mut(id).unwrap().turn_rate = 1.0;
//! let record = crowd.save_agent_record(id).unwrap();
//! // Only what differs from the canonical defaults is written.
//! assert_eq!(record.get("turning.turn_rate"), Some(&Value::F64(1.0)));
//! assert_eq!(record.get("turning.can_turn"), None);
//! // Loaded into a shell (here the agent itself, turned otherwise meanwhile).
//! crowd.turning_mut(id).unwrap().turn_rate = 3.0;
//! crowd.load_agent_record(&world, id, &record).unwrap();
//! assert_eq!(crowd.agent(id).unwrap().navigator().turning.turn_rate, 1.0);
//! ```

mod agent;
pub(crate) mod grounding;
mod locomotion;
#[cfg(feature = "serde")]
mod transport;

use std::collections::BTreeMap;

use onepath_format::{FormatError, COORD_BOUND};
use onepath_mesh::query::Vec3;

pub use agent::AGENT_RECORD_VERSION;

/// The format name of record errors ([`FormatError::State`]).
pub(crate) const FORMAT: &str = "agent record";

/// One entry of a record.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Value {
    /// A flag.
    Bool(bool),
    /// A small unsigned number (counts, ids, codes).
    U32(u32),
    /// A large unsigned number (iteration limits).
    U64(u64),
    /// A number.
    F64(f64),
    /// A point or a vector.
    Vec3([f64; 3]),
    /// The mark of a present deep field (a nested record).
    Branch,
    /// A name (a heightmap layer's).
    Text(String),
}

/// A record: field paths to values, in path order.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Record {
    entries: BTreeMap<String, Value>,
}

impl Record {
    /// An empty record.
    pub fn new() -> Record {
        Record::default()
    }

    /// The value at `path`.
    pub fn get(&self, path: &str) -> Option<&Value> {
        self.entries.get(path)
    }

    /// Sets the value at `path` (a host editing a payload, or a test).
    pub fn insert(&mut self, path: impl Into<String>, value: Value) {
        self.entries.insert(path.into(), value);
    }

    /// Removes the entry at `path` and, when it is a branch, every entry under it.
    pub fn remove(&mut self, path: &str) {
        self.entries.remove(path);
        let prefix = format!("{path}.");
        self.entries.retain(|k, _| !k.starts_with(&prefix));
    }

    /// The entries, in path order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the record has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A rule broken by a record value.
pub(crate) fn broken(message: impl Into<String>) -> FormatError {
    FormatError::State {
        format: FORMAT,
        message: message.into(),
    }
}

/// Writes the fields of one record (or branch) under a path prefix.
pub(crate) struct Writer<'a> {
    rec: &'a mut Record,
    prefix: String,
}

impl<'a> Writer<'a> {
    pub(crate) fn root(rec: &'a mut Record) -> Writer<'a> {
        Writer {
            rec,
            prefix: String::new(),
        }
    }

    fn path(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    fn put(&mut self, name: &str, v: Value, default: Value) {
        let same = match (&v, &default) {
            (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
            (Value::Vec3(a), Value::Vec3(b)) => {
                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
            _ => v == default,
        };
        if !same {
            let p = self.path(name);
            self.rec.entries.insert(p, v);
        }
    }

    pub(crate) fn bool(&mut self, name: &str, v: bool, default: bool) {
        self.put(name, Value::Bool(v), Value::Bool(default));
    }

    pub(crate) fn u32(&mut self, name: &str, v: u32, default: u32) {
        self.put(name, Value::U32(v), Value::U32(default));
    }

    pub(crate) fn u64(&mut self, name: &str, v: u64, default: u64) {
        self.put(name, Value::U64(v), Value::U64(default));
    }

    pub(crate) fn f64(&mut self, name: &str, v: f64, default: f64) {
        self.put(name, Value::F64(v), Value::F64(default));
    }

    pub(crate) fn vec3(&mut self, name: &str, v: Vec3, default: Vec3) {
        self.put(name, Value::Vec3(v), Value::Vec3(default));
    }

    /// An optional name: written when present.
    pub(crate) fn opt_text(&mut self, name: &str, v: Option<&str>) {
        if let Some(v) = v {
            let p = self.path(name);
            self.rec.entries.insert(p, Value::Text(v.to_owned()));
        }
    }

    /// A deep field: its mark, then its fields under `name.`.
    pub(crate) fn deep(&mut self, name: &str, f: impl FnOnce(&mut Writer<'_>)) {
        let p = self.path(name);
        self.rec.entries.insert(p.clone(), Value::Branch);
        let mut w = Writer {
            rec: self.rec,
            prefix: format!("{p}."),
        };
        f(&mut w);
    }
}

/// Reads the fields of one record (or branch) under a path prefix; every look names the
/// field's whole path in its error.
#[derive(Clone)]
pub(crate) struct Reader<'a> {
    rec: &'a Record,
    prefix: String,
}

impl<'a> Reader<'a> {
    pub(crate) fn root(rec: &'a Record) -> Reader<'a> {
        Reader {
            rec,
            prefix: String::new(),
        }
    }

    pub(crate) fn path(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    fn look(&self, name: &str) -> Option<(String, &'a Value)> {
        let p = self.path(name);
        self.rec.entries.get(&p).map(|v| (p, v))
    }

    fn wrong(path: &str, want: &str, got: &Value) -> FormatError {
        broken(format!("{path} holds {got:?}, not {want}"))
    }

    pub(crate) fn bool(&self, name: &str, default: bool) -> Result<bool, FormatError> {
        match self.look(name) {
            None => Ok(default),
            Some((_, Value::Bool(b))) => Ok(*b),
            Some((p, v)) => Err(Self::wrong(&p, "a flag", v)),
        }
    }

    pub(crate) fn u32(&self, name: &str, default: u32) -> Result<u32, FormatError> {
        match self.look(name) {
            None => Ok(default),
            Some((_, Value::U32(n))) => Ok(*n),
            Some((p, v)) => Err(Self::wrong(&p, "a u32", v)),
        }
    }

    /// A code in `0..n`.
    pub(crate) fn code(&self, name: &str, default: u32, n: u32) -> Result<u32, FormatError> {
        let c = self.u32(name, default)?;
        if c >= n {
            return Err(broken(format!(
                "{} = {c} is not one of 0..{n}",
                self.path(name)
            )));
        }
        Ok(c)
    }

    pub(crate) fn u64(&self, name: &str, default: u64) -> Result<u64, FormatError> {
        match self.look(name) {
            None => Ok(default),
            Some((_, Value::U64(n))) => Ok(*n),
            Some((p, v)) => Err(Self::wrong(&p, "a u64", v)),
        }
    }

    /// A finite number.
    pub(crate) fn f64(&self, name: &str, default: f64) -> Result<f64, FormatError> {
        match self.look(name) {
            None => Ok(default),
            Some((p, Value::F64(x))) => {
                if !x.is_finite() {
                    return Err(broken(format!("{p} = {x} is not finite")));
                }
                Ok(*x)
            }
            Some((p, v)) => Err(Self::wrong(&p, "a number", v)),
        }
    }

    /// A finite number `>= 0`.
    pub(crate) fn non_negative(&self, name: &str, default: f64) -> Result<f64, FormatError> {
        let x = self.f64(name, default)?;
        if x < 0.0 {
            return Err(broken(format!("{} = {x} is negative", self.path(name))));
        }
        Ok(x)
    }

    /// A finite number `> 0`.
    pub(crate) fn positive(&self, name: &str, default: f64) -> Result<f64, FormatError> {
        let x = self.f64(name, default)?;
        if x <= 0.0 {
            return Err(broken(format!("{} = {x} must be > 0", self.path(name))));
        }
        Ok(x)
    }

    /// A finite number within `[0, 1]`.
    pub(crate) fn unit(&self, name: &str, default: f64) -> Result<f64, FormatError> {
        let x = self.f64(name, default)?;
        if !(0.0..=1.0).contains(&x) {
            return Err(broken(format!(
                "{} = {x} is not within [0, 1]",
                self.path(name)
            )));
        }
        Ok(x)
    }

    /// An optional name (none when missing).
    pub(crate) fn opt_text(&self, name: &str) -> Result<Option<&'a str>, FormatError> {
        match self.look(name) {
            None => Ok(None),
            Some((_, Value::Text(t))) => Ok(Some(t.as_str())),
            Some((p, v)) => Err(Self::wrong(&p, "a name", v)),
        }
    }

    /// The path of field `name` (for an error about its value).
    pub(crate) fn path_of(&self, name: &str) -> String {
        self.path(name)
    }

    /// A vector, every coordinate finite and within ±2^21.
    pub(crate) fn vec3(&self, name: &str, default: Vec3) -> Result<Vec3, FormatError> {
        match self.look(name) {
            None => Ok(default),
            Some((p, Value::Vec3(v))) => {
                if !v.iter().all(|c| c.is_finite() && c.abs() < COORD_BOUND) {
                    return Err(broken(format!(
                        "{p} = {v:?} is not finite or lies outside ±2^21"
                    )));
                }
                Ok(*v)
            }
            Some((p, v)) => Err(Self::wrong(&p, "a vector", v)),
        }
    }

    /// The deep field `name`, when present.
    pub(crate) fn deep(&self, name: &str) -> Result<Option<Reader<'a>>, FormatError> {
        match self.look(name) {
            None => Ok(None),
            Some((p, Value::Branch)) => Ok(Some(Reader {
                rec: self.rec,
                prefix: format!("{p}."),
            })),
            Some((p, v)) => Err(Self::wrong(&p, "a branch", v)),
        }
    }
}
