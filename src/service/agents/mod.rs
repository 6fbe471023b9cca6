//! Agents changed: the rules of `PUT /v1/agent/{id}` (the routes hand their validated input here).

pub(super) mod knowledge;
pub(super) mod request_definitions;

// The module's files name their neighbours as `super::…`, as they did on the flat floor.
use super::{secrets, vault};

use super::error::{self, DomainResult};
use super::store::{self, Doc, Kind, Tx};
use crate::api::model::{Agent, AgentUpdate, Timestamp};

/// Applies an update to the agent `id`; the agent as stored.
pub fn update(tx: &Tx, id: &str, update: AgentUpdate) -> DomainResult<Agent> {
    let mut agent = update.apply_to(store::require(tx, Kind::Agent, id)?);
    agent.updated_at = Some(Timestamp::now());
    store::update(tx, &Doc::of(&agent)?)?;
    Ok(agent)
}
