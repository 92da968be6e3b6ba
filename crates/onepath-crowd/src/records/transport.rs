//! The record transports of the `serde` feature: JSON (serde_json) and compact binary
//! (postcard). Both carry the same [`Record`], so an agent loads the same through either.

use onepath_format::FormatError;

use crate::error::CrowdError;
use crate::navigator::AgentId;
use crate::world::WorldContext;
use crate::Crowd;

use super::Record;

impl Record {
    /// The record as JSON (an object of one `entries` map, paths in order).
    pub fn to_json(&self) -> Result<String, CrowdError> {
        serde_json::to_string(self).map_err(|e| {
            CrowdError::State(FormatError::malformed("agent record JSON", e.to_string()))
        })
    }

    /// A record from JSON: [`CrowdError::State`] (malformed, naming the line and column)
    /// for text that is not a record.
    pub fn from_json(text: &str) -> Result<Record, CrowdError> {
        serde_json::from_str(text).map_err(|e| {
            CrowdError::State(FormatError::malformed("agent record JSON", e.to_string()))
        })
    }

    /// The record in postcard's compact binary form.
    pub fn to_postcard(&self) -> Result<Vec<u8>, CrowdError> {
        postcard::to_allocvec(self).map_err(|e| {
            CrowdError::State(FormatError::malformed("agent record binary", e.to_string()))
        })
    }

    /// A record from postcard bytes: [`CrowdError::State`] for bytes that are not a
    /// record, trailing bytes included. The record is flat, so no input drives a deep
    /// recursion; lengths are checked against the bytes by postcard before they are read.
    pub fn from_postcard(bytes: &[u8]) -> Result<Record, CrowdError> {
        let (rec, rest) = postcard::take_from_bytes::<Record>(bytes).map_err(|e| {
            CrowdError::State(FormatError::malformed("agent record binary", e.to_string()))
        })?;
        if !rest.is_empty() {
            return Err(CrowdError::State(FormatError::malformed(
                "agent record binary",
                format!("{} trailing bytes", rest.len()),
            )));
        }
        Ok(rec)
    }
}

impl Crowd {
    /// [`Crowd::save_agent_record`] as JSON.
    pub fn save_agent_json(&self, id: AgentId) -> Result<String, CrowdError> {
        self.save_agent_record(id)?.to_json()
    }

    /// [`Crowd::load_agent_record`] from JSON. Text that is not a record changes nothing.
    pub fn load_agent_json(
        &mut self,
        world: &WorldContext<'_>,
        id: AgentId,
        text: &str,
    ) -> Result<(), CrowdError> {
        let rec = Record::from_json(text)?;
        self.load_agent_record(world, id, &rec)
    }

    /// [`Crowd::save_agent_record`] in postcard's binary form.
    pub fn save_agent_postcard(&self, id: AgentId) -> Result<Vec<u8>, CrowdError> {
        self.save_agent_record(id)?.to_postcard()
    }

    /// [`Crowd::load_agent_record`] from postcard bytes. Bytes that are not a record change
    /// nothing.
    pub fn load_agent_postcard(
        &mut self,
        world: &WorldContext<'_>,
        id: AgentId,
        bytes: &[u8],
    ) -> Result<(), CrowdError> {
        let rec = Record::from_postcard(bytes)?;
        self.load_agent_record(world, id, &rec)
    }
}
