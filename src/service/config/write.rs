//! Writing a planned apply, inside the caller's one transaction: creates and updates in the
//! order references need, then the deletes, and the records of what applies made.

use uuid::Uuid;

use super::build::Target;
use super::changes::Planned;
use super::workspace::{ConfigRecord, store_kind};
use crate::api::model::config::*;
use crate::api::model::*;
use crate::service::agents::request_definitions;
use crate::service::alerts;
use crate::service::error::DomainResult;
use crate::service::metrics::definitions;
use crate::service::sim::start;
use crate::service::store::StoreResult;
use crate::service::store::{self, Doc, Kind, Tx};
use crate::service::vault::Vault;

/// Writes every change that is to be made; the changes come back with what the writes learnt
/// (a new definition's or alert's signing secret).
pub fn write(tx: &Tx, vault: &Vault, planned: &mut [Planned], stale: &[ConfigRecord]) -> DomainResult<()> {
    let now = Timestamp::now().0;
    for record in stale {
        store::soft_delete(tx, Kind::ConfigRecord, &record.id.to_string(), &now)?;
    }
    for step in planned.iter_mut() {
        let Some(target) = &step.target else { continue };
        let create = step.change.op == ConfigOp::Create;
        keep(tx, vault, target, create, &now, &mut step.change)?;
        if create {
            if let Some(old) = &step.record {
                store::soft_delete(tx, Kind::ConfigRecord, &old.id.to_string(), &now)?;
            }
            let id = target.id().unwrap_or_default();
            let record =
                ConfigRecord { kind: step.change.kind.clone(), name: step.change.name.clone(), id, seeded: false };
            // A record is not a model: it carries no time of its own, so it is made at the apply's.
            upsert(tx, &Doc::new(Kind::ConfigRecord, id, &record, &now)?)?;
        }
    }
    for step in planned.iter().filter(|s| s.change.op == ConfigOp::Delete && s.change.status == ChangeStatus::Applied) {
        let Some(record) = &step.record else { continue };
        let id = record.id.to_string();
        if let Some(kind) = store_kind(&record.kind) {
            store::soft_delete(tx, kind, &id, &now)?;
        }
        if record.kind == ConfigKind::Alert {
            alerts::actions::forget(tx, &id)?;
        }
        if record.kind == ConfigKind::Agent {
            for endpoint in store::children::<AgentEndpoint>(tx, Kind::AgentEndpoint, &id)? {
                store::soft_delete(tx, Kind::AgentEndpoint, &endpoint.id.to_string(), &now)?;
            }
        }
        store::soft_delete(tx, Kind::ConfigRecord, &id, &now)?;
    }
    Ok(())
}

/// Inserts a document, or rewrites the one kept under its id.
fn upsert(tx: &Tx, doc: &Doc) -> StoreResult<()> {
    if store::exists(tx, doc.kind, &doc.id)? { store::update(tx, doc) } else { store::insert(tx, doc) }
}

fn keep(
    tx: &Tx,
    vault: &Vault,
    target: &Target,
    create: bool,
    now: &str,
    change: &mut ConfigChange,
) -> DomainResult<()> {
    match target {
        Target::Agent(agent, endpoints) => {
            upsert(tx, &Doc::of(agent)?)?;
            let agent_id = agent.id.to_string();
            for old in store::children::<AgentEndpoint>(tx, Kind::AgentEndpoint, &agent_id)? {
                if !endpoints.iter().any(|e| e.id == old.id) {
                    store::soft_delete(tx, Kind::AgentEndpoint, &old.id.to_string(), now)?;
                }
            }
            for endpoint in endpoints {
                upsert(tx, &Doc::of(endpoint)?)?;
            }
        }
        Target::Definition(definition, headers) => {
            if create {
                request_definitions::create(tx, vault, definition.clone(), headers)?;
                change.signing_secret = Some(format!("whsec_{}", Uuid::new_v4().simple()));
            } else {
                let update = HttpRequestDefinitionUpdate {
                    url: definition.url.clone(),
                    method: definition.method.clone(),
                    body: Some(definition.body.clone().map_or(serde_json::Value::Null, serde_json::Value::String)),
                    description: Some(definition.description.clone().unwrap_or_default()),
                    headers: Some(headers.clone()),
                    secret_headers: None,
                    unknown_fields: Default::default(),
                };
                request_definitions::update(tx, vault, &definition.id.to_string(), update)?;
                // The members an update leaves as they were when not given.
                let mut kept: HttpRequestDefinition =
                    store::require(tx, Kind::HttpRequestDefinition, &definition.id.to_string())?;
                kept.description = definition.description.clone();
                kept.is_config_managed = Some(true);
                upsert(tx, &Doc::of(&kept)?)?;
            }
        }
        Target::Persona(persona) => upsert(tx, &Doc::of(persona.as_ref())?)?,
        Target::Flow(flow) => upsert(tx, &Doc::of(flow.as_ref())?)?,
        Target::Metric(metric) => definitions::save(tx, metric, create)?,
        Target::Policy(policy) => upsert(tx, &Doc::of(policy)?)?,
        Target::Plan(plan) => {
            let flows = start::check_references(tx, &plan.plan, "")?;
            let mut kept = start::plan_of(tx, plan.plan.clone(), &flows, "")?;
            kept.id = plan.id;
            kept.created_at = plan.created_at.clone();
            kept.is_config_managed = Some(true);
            upsert(tx, &Doc::of(&kept)?)?
        }
        Target::Tool(tool) => upsert(tx, &Doc::of(tool)?)?,
        Target::Alert(alert) => {
            upsert(tx, &Doc::of(&**alert)?)?;
            change.signing_secret = alerts::actions::keep(tx, vault, alert)?;
        }
        Target::Skipped(_) => {}
    }
    Ok(())
}
