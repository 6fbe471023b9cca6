//! Which version of a metric definition scored a value. Values are not stamped with one; a run
//! (and any collection job) reads its definitions when it starts, so the version that scored it
//! is the newest one whose `updatedAt` is not after the job's `createdAt`.

use std::collections::HashMap;

use crate::service::store::Conn;

use crate::api::model::{MetricDefinition, Timestamp};
use crate::service::error::DomainResult;
use crate::service::store::{self, Kind};

/// The definition as it stood at `at`: the newest stored version updated at or before it, else
/// the oldest version (the definition is older than its first recorded change), else the
/// current document. None for a definition that no longer exists anywhere.
pub fn definition_at(conn: &Conn, definition_id: &str, at: &Timestamp) -> DomainResult<Option<MetricDefinition>> {
    let bodies = crate::service::store::versions::all_raw(conn, definition_id)?;
    let when = at.parse();
    let mut oldest = None;
    for body in bodies {
        let version: MetricDefinition = serde_json::from_str(&body)?;
        let updated = version.updated_at.as_ref().and_then(Timestamp::parse);
        if let (Some(when), Some(updated)) = (when, updated)
            && updated <= when
        {
            return Ok(Some(version));
        }
        oldest = Some(version);
    }
    match oldest {
        Some(version) => Ok(Some(version)),
        None => Ok(store::get(conn, Kind::MetricDefinition, definition_id)?),
    }
}

/// `definition_at` for many definitions at one instant, each read once.
#[derive(Default)]
pub struct AtInstant {
    seen: HashMap<String, Option<MetricDefinition>>,
}

impl AtInstant {
    pub fn get(&mut self, conn: &Conn, definition_id: &str, at: &Timestamp) -> DomainResult<Option<&MetricDefinition>> {
        if !self.seen.contains_key(definition_id) {
            let found = definition_at(conn, definition_id, at)?;
            self.seen.insert(definition_id.to_owned(), found);
        }
        Ok(self.seen.get(definition_id).and_then(Option::as_ref))
    }
}
