//! People's labels on judged values: one per value (call, metric, index), replaced when the
//! value is labelled again, kept with the judge's value and the definition version that gave it.

use crate::service::store::Tx;
use uuid::Uuid;

use super::error::{DomainError, DomainResult};
use super::metrics::versions::definition_at;
use super::store::values::judged_value;
use super::store::{self, Doc, Kind};
use crate::api::model::*;

/// Labels a value, replacing an earlier label on it; true when the label is new.
pub fn annotate(tx: &Tx, input: AnnotationInput) -> DomainResult<(Annotation, bool)> {
    let (Some(call), Some(definition_id), Some(label)) = (input.call_id, input.metric_definition_id, input.label)
    else {
        return Err(DomainError::invalid("callId", "callId, metricDefinitionId and label are required"));
    };
    if !store::exists(tx, Kind::Call, &call.to_string())? {
        return Err(DomainError::invalid("callId", format!("no call {call}")));
    }
    let definition: MetricDefinition = store::get(tx, Kind::MetricDefinition, &definition_id.to_string())?
        .ok_or_else(|| DomainError::invalid("metricDefinitionId", format!("no metric definition {definition_id}")))?;
    let index = input.value_index.unwrap_or(0).max(0) as u64;
    let Some(judged) = judged_value(tx, &call.to_string(), &definition_id.to_string(), index)? else {
        return Err(DomainError::invalid(
            "valueIndex",
            format!(
                "call {call} has no value {index} of {} (count from 0)",
                definition.name.clone().unwrap_or_default()
            ),
        ));
    };
    let status = &judged.status;
    if *status != CaptureStatus::Success {
        return Err(DomainError::invalid(
            "valueIndex",
            format!("value {index} is {status}: only a value the judge gave (SUCCESS) can be labelled right or wrong"),
        ));
    }
    let job: Option<CollectionJob> = store::get(tx, Kind::CollectionJob, &judged.collection_job)?;
    let at = job.and_then(|j| j.created_at).unwrap_or_else(Timestamp::now);
    let version = definition_at(tx, &definition_id.to_string(), &at)?;
    // One label per value: its id is derived from the value's place.
    let id = Uuid::new_v5(&call, format!("{definition_id}/{index}").as_bytes());
    let earlier: Option<Annotation> = store::get(tx, Kind::Annotation, &id.to_string())?;
    let now = Timestamp::now();
    let annotation = Annotation {
        id,
        call_id: call,
        metric_definition_id: definition_id,
        value_index: index,
        label,
        note: input.note,
        judge_value: judged.value,
        judge_label: judged.label,
        boolean: definition.metric_type == Some(MetricType::Boolean) || definition.is_check(),
        version_id: version.as_ref().and_then(|v| v.version_id),
        version: version.as_ref().and_then(|v| v.version),
        created_at: Some(earlier.as_ref().and_then(|e| e.created_at.clone()).unwrap_or_else(|| now.clone())),
        updated_at: Some(now),
    };
    let doc = Doc::of(&annotation)?;
    let is_new = earlier.is_none();
    if is_new {
        store::insert(tx, &doc)?
    } else {
        store::update(tx, &doc)?
    }
    Ok((annotation, is_new))
}
