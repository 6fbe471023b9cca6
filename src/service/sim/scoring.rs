//! Scoring a simulation: the job's metrics computed on its call, the simulation judged by the
//! ones that are checks, and the values written into the job's collection job with its end.

use uuid::Uuid;

use super::work::{JobMetrics, Work};
use crate::api::model::flow_and_automatic_metrics;
use crate::api::model::*;
use crate::service::metrics::compute::{Conversation, WalkedStep};
use crate::service::metrics::evaluate::evaluate;
use crate::service::metrics::judge::Judge;
use crate::service::sim::verdict;
use crate::service::store;
use crate::service::store::StoreResult;
use crate::service::store::values::StoredValue;

/// Computes the job's metrics on the call, and judges the simulation by the ones that are
/// checks; the values are written with the simulation's end.
pub(super) async fn score(
    judge: &Judge,
    work: &Work,
    call: &Call,
    transcript: &Transcript,
    (flow, variant): (&CustomerFlow, Option<&FlowVariant>),
    walked: &[WalkedStep],
    live_call: Option<&(Call, Transcript)>,
) -> Collected {
    let JobMetrics { catalog, chosen, live_sourced, .. } = &*work.metrics;
    // The plan's own, borrowed from what the job shares (`work.metrics`), then the flow's and
    // the automatic ones this simulation adds.
    let extra = flow_and_automatic_metrics(&work.plan, flow, &catalog.definitions, chosen);
    let definitions: Vec<&MetricDefinition> = chosen.iter().chain(&extra).collect();
    let library = catalog.library(judge);
    let conversation = Conversation { call, transcript, flow: Some(flow), variant, walked: Some(walked) };
    let live = work.plan.enrich_with_live_conversation == Some(true);
    let mut rows = Vec::new();
    let mut checks = Vec::new();
    for &definition in &definitions {
        if definition.requires_live_conversation == Some(true) && !live {
            continue; // silently skipped without live enrichment, as the spec says
        }
        if verdict::is_check(definition) {
            checks.push(definition);
        }
        let from_live =
            live && (live_sourced.contains(&definition.id) || definition.requires_live_conversation == Some(true));
        let values = match (from_live, live_call) {
            (false, _) => evaluate(definition, &conversation, &library).await,
            (true, Some((real, real_transcript))) => {
                let on_real =
                    Conversation { call: real, transcript: real_transcript, flow: Some(flow), variant, walked: None };
                let mut values = evaluate(definition, &on_real, &library).await;
                for value in &mut values {
                    value.call_id = Some(call.id);
                    let reasoning = value.value_reasoning.take().unwrap_or_default();
                    value.value_reasoning = Some(format!("Scored on the live call {}: {reasoning}", real.id));
                }
                values
            }
            (true, None) => vec![crate::service::metrics::compute::without_value(
                call,
                CaptureStatus::DataMissing,
                "no live call used the provisioned number within the simulation window",
            )],
        };
        for mut value in values {
            value.computed_at = Some(work.now());
            rows.push((definition.id, value));
        }
    }
    Collected { judged: verdict::judge_simulation(&checks, &rows), rows }
}

/// A simulation's metric values and the judgement made of them, to be written with its end.
pub(super) struct Collected {
    pub judged: verdict::Judged,
    pub rows: Vec<(Uuid, MetricValue)>,
}

/// Stores a simulation's values in its job's collection job, in one statement.
pub(super) fn store_values(
    tx: &crate::service::store::Tx,
    rows: &[(Uuid, MetricValue)],
    collection_id: &str,
) -> StoreResult<()> {
    store::values::put_stored(tx, &value_rows(rows, collection_id)?)
}

/// A simulation's values as the rows they are kept in, in its job's collection job.
pub(super) fn value_rows(rows: &[(Uuid, MetricValue)], collection_id: &str) -> StoreResult<Vec<StoredValue>> {
    rows.iter()
        .map(|(definition, value)| {
            let (definition_id, call) = (definition.to_string(), value.call_id.map(|c| c.to_string()));
            let key = store::values::ValueKey {
                job_id: collection_id,
                definition_id: &definition_id,
                call_id: call.as_deref(),
                chat_id: None,
            };
            StoredValue::of(&key, value)
        })
        .collect()
}

/// The item a simulation's values count in its job's collection job: done, or failed (any
/// value captured with an error), at `now`. Counted by the job's next fold.
pub(super) fn collection_item(
    collection_id: &str,
    rows: &[(Uuid, MetricValue)],
    now: &Timestamp,
) -> StoreResult<store::ends::Item> {
    let failed = rows.iter().any(|(_, v)| v.capture_status == Some(CaptureStatus::Error));
    Ok(store::ends::Item { collection_id: collection_id.to_owned(), failed, at: serde_json::to_string(now)? })
}
