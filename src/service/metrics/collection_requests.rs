//! Collection jobs asked for through the interface: created (every metric, policy and
//! conversation named must exist), cancelled while open, and read back as exactly the values
//! each produced. The engine that runs them is `collector`.

use crate::service::store::{Conn, Tx};
use uuid::Uuid;

use super::value_groups::value_groups;
use crate::api::model::*;
use crate::service::error::{DomainError, DomainResult};
use crate::service::store::records::StoredCollectionJob;
use crate::service::store::{self, Kind};

/// Creates a PENDING job for the collector to run.
pub fn create(tx: &Tx, input: CollectionJobInput) -> DomainResult<CollectionJob> {
    let checks: [(&str, Kind, Vec<Uuid>); 4] = [
        ("metrics", Kind::MetricDefinition, input.metrics.iter().flatten().map(|m| m.id).collect()),
        ("policyIds", Kind::MetricPolicy, input.policy_ids.clone().unwrap_or_default()),
        ("callIds", Kind::Call, input.call_ids.clone().unwrap_or_default()),
        ("chatIds", Kind::Chat, input.chat_ids.clone().unwrap_or_default()),
    ];
    for (member, kind, ids) in &checks {
        for (i, id) in ids.iter().enumerate() {
            if !store::exists(tx, *kind, &id.to_string())? {
                let param = if *member == "metrics" { format!("metrics[{i}].id") } else { format!("{member}[{i}]") };
                return Err(DomainError::invalid(&param, format!("{param}: no {} {id}", kind.label())));
            }
        }
    }
    let at = Timestamp::now();
    let items = input.call_ids.as_ref().map_or(0, Vec::len) + input.chat_ids.as_ref().map_or(0, Vec::len);
    let job = CollectionJob {
        id: Uuid::new_v4(),
        status: Some(CollectionJobStatus::Pending),
        triggered_by: Some(TriggeredBy::UserApi),
        total_items: Some(items as u64),
        completed_items: Some(0),
        failed_items: Some(0),
        started_at: None,
        completed_at: None,
        error_message: None,
        policy_ids: input.policy_ids.clone().unwrap_or_default(),
        created_at: Some(at.clone()),
        updated_at: Some(at.clone()),
    };
    StoredCollectionJob::new(job.clone(), input).insert(tx)?;
    Ok(job)
}

/// Cancels a job that has not ended; what was computed is kept.
pub fn cancel(tx: &Tx, id: &str) -> DomainResult<CollectionJob> {
    let mut stored = StoredCollectionJob::load(tx, id)?;
    let job = &mut stored.job;
    if let Some(status) = job.status.as_ref().filter(|s| s.is_terminal()) {
        return Err(DomainError::invalid("jobId", format!("the job has already ended ({})", status.as_str())));
    }
    let at = Timestamp::now();
    job.status = Some(CollectionJobStatus::Canceled);
    job.completed_at = Some(at.clone());
    job.updated_at = Some(at);
    stored.save(tx)?;
    Ok(stored.job)
}

/// Exactly the values job `id` produced, grouped by metric, even where later jobs overwrote them.
pub fn values(c: &Conn, id: &str, filter: &ValueStatusFilter) -> DomainResult<Vec<MetricValueGroup>> {
    StoredCollectionJob::load(c, id)?;
    value_groups(c, store::values::of_job(c, id)?, filter)
}
