//! Policies score calls as they arrive: each ACTIVE policy that selects an ingested call has
//! its computed metrics (those worked out from the transcript, with no judge) scored in the
//! call's own transaction, so a window's values are there the moment its calls are and an
//! alert never decides a window between a call and its score. LLM-judged metrics wait for a
//! collection job, as before.

use std::collections::HashSet;

use super::compute::{self, Conversation};
use super::evaluate::policy_matches;
use crate::api::model::*;
use crate::service::error::DomainResult;
use crate::service::store::{self, Kind, Tx, values::ValueKey};

/// Scores `call` with the computed metrics of every ACTIVE policy that selects it. Values are
/// kept under the policy's id as their job, computed at `now`.
pub fn score(tx: &Tx, call: &Call, transcript: &Transcript, now: &Timestamp) -> DomainResult<()> {
    let policies: Vec<MetricPolicy> = store::all(tx, Kind::MetricPolicy)?;
    let endpoint: Option<AgentEndpoint> = match call.agent_endpoint_id {
        Some(id) => store::get(tx, Kind::AgentEndpoint, &id.to_string())?,
        None => None,
    };
    let conv = Conversation { call, transcript, flow: None, variant: None, walked: None };
    let mut scored = HashSet::new();
    let call_id = call.id.to_string();
    for policy in policies.iter().filter(|p| p.status == Some(PolicyStatus::Active)) {
        if !policy_matches(policy, call, endpoint.as_ref()) {
            continue;
        }
        let job_id = policy.id.to_string();
        for metric in policy.metrics.iter().filter(|m| scored.insert(m.id)) {
            let definition_id = metric.id.to_string();
            let Some(definition) = store::get::<MetricDefinition>(tx, Kind::MetricDefinition, &definition_id)? else {
                continue;
            };
            let Some(values) = definition.slug_or_alias().and_then(|slug| compute::compute(slug, &conv)) else {
                continue;
            };
            let key =
                ValueKey { job_id: &job_id, definition_id: &definition_id, call_id: Some(&call_id), chat_id: None };
            for mut value in values {
                value.computed_at = Some(now.clone());
                value.policy_ids = vec![policy.id];
                store::values::put(tx, &key, &value)?;
            }
        }
    }
    Ok(())
}
