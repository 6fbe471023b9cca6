//! Why a simulation counts for no check when the service gives no reason (NOT_EVALUATED with
//! neither an invalidation nor an error): the checks that have no value on its call, with the
//! judge's own words (the offline judge abstaining, a check that does not apply), read from the
//! call's metric values. Evidence for people, so "only 6 of 9 simulations were scored" names
//! them; the verdict stays the service's.

pub use crate::api::model::UnscoredCheck;
use crate::api::model::{CaptureStatus, MetricValueGroup, VerdictCheck};

/// The checks with no successful value among a call's metric values, in the verdict's order.
pub fn unscored_checks(groups: &[MetricValueGroup], checks: &[VerdictCheck]) -> Vec<UnscoredCheck> {
    checks
        .iter()
        .filter_map(|check| {
            let values =
                groups.iter().find(|g| g.metric_definition_id == check.metric_definition_id).map(|g| &g.values);
            let values = values.map(Vec::as_slice).unwrap_or_default();
            if values.iter().any(|v| v.capture_status == Some(CaptureStatus::Success)) {
                return None;
            }
            // The judge's own words first: an abstention says more than "not applicable".
            let value = values.iter().find(|v| v.value_reasoning.is_some()).or(values.first());
            Some(UnscoredCheck {
                metric_definition_id: check.metric_definition_id,
                metric_name: check.name(),
                capture_status: value.and_then(|v| v.capture_status.clone()),
                reasoning: value.and_then(|v| v.value_reasoning.clone().or_else(|| v.error_message.clone())),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn group(id: Uuid, statuses: &[(&str, Option<&str>)]) -> MetricValueGroup {
        let values: Vec<_> = statuses
            .iter()
            .map(|(status, reason)| serde_json::json!({"captureStatus": status, "valueReasoning": reason}))
            .collect();
        serde_json::from_value(serde_json::json!({"metricDefinitionId": id, "values": values})).unwrap()
    }

    fn check(id: Uuid, name: &str) -> VerdictCheck {
        serde_json::from_value(serde_json::json!({
            "metricDefinitionId": id, "metricName": name, "evaluatedSims": 0, "passedSims": 0,
            "passRate": null, "minPassRate": 80.0, "inherited": false, "passed": false
        }))
        .unwrap()
    }

    #[test]
    fn a_check_without_a_successful_value_is_named_with_the_judges_words() {
        let (scored, abstained, absent) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let groups = [
            group(scored, &[("SUCCESS", Some("Met"))]),
            group(abstained, &[("NOT_APPLICABLE", None), ("DATA_MISSING", Some("Cannot tell:\nno line says it"))]),
        ];
        let checks = [check(scored, "Task completion"), check(abstained, "Sincere"), check(absent, "Keypad entry")];
        let words: Vec<String> = unscored_checks(&groups, &checks).iter().map(UnscoredCheck::in_words).collect();
        assert_eq!(words, ["Sincere: Cannot tell: no line says it", "Keypad entry: no value on this call"]);
    }
}
