//! Which changes are events: a document entering a status the hosted service's webhooks name.
//! The store asks on every insert and update, so no route or engine can change a status
//! without its event, and the event commits with the change.

use super::store::Kind;
use crate::api::model::EventType;

/// The event a document's move from `before` (`None` when it is new) to `after` announces.
/// Only a change of status is an event: rewriting a document in the same status is not.
pub fn event_for(kind: Kind, before: Option<Option<&str>>, after: Option<&str>) -> Option<EventType> {
    let after = after?;
    let before = before.flatten();
    if before == Some(after) {
        return None;
    }
    use EventType::*;
    match (kind, after) {
        (Kind::RunPlanJob, "RUNNING" | "RUNNING_SIMULATIONS") if !has_started(before) => {
            Some(SimulationRunPlanJobStarted)
        }
        (Kind::RunPlanJob, "COMPLETED") => Some(SimulationRunPlanJobCompleted),
        (Kind::RunPlanJob, "FAILED" | "TIMED_OUT") => Some(SimulationRunPlanJobFailed),
        (Kind::RunPlanJob, "CANCELLED") => Some(SimulationRunPlanJobCancelled),
        // A retry starts the simulation again: each attempt announces its start.
        (Kind::SimulationJob, "PROCESSING") => Some(SimulationJobStarted),
        (Kind::SimulationJob, "COMPLETED") => Some(SimulationJobCompleted),
        (Kind::SimulationJob, "FAILED" | "TIMED_OUT") => Some(SimulationJobFailed),
        (Kind::SimulationJob, "CANCELLED") => Some(SimulationJobCancelled),
        (Kind::CollectionJob, "COMPLETED") => Some(MetricCollectionJobCompleted),
        (Kind::CollectionJob, "FAILED") => Some(MetricCollectionJobFailed),
        (Kind::Issue, "OPEN") => Some(IssueOpened),
        (Kind::Issue, "RESOLVED") => Some(IssueResolved),
        _ => None,
    }
}

/// The alert a document's events also go to (its `webhooks`): the one that opened an issue.
pub fn alert_of(kind: Kind, body: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Opened {
        alert_id: Option<uuid::Uuid>,
    }
    if kind != Kind::Issue {
        return None;
    }
    serde_json::from_str::<Opened>(body).ok()?.alert_id.map(|id| id.to_string())
}

/// Whether a run plan job in `status` has already started running.
fn has_started(status: Option<&str>) -> bool {
    matches!(status, Some("RUNNING" | "RUNNING_SIMULATIONS" | "ENDING_SIMULATIONS" | "CANCELLING"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_of_status_is_an_event_and_a_rewrite_is_not() {
        let sim = |before, after| event_for(Kind::SimulationJob, before, after);
        assert_eq!(sim(Some(Some("PENDING")), Some("PROCESSING")), Some(EventType::SimulationJobStarted));
        assert_eq!(sim(Some(Some("PROCESSING")), Some("PROCESSING")), None);
        assert_eq!(sim(Some(Some("PROCESSING")), Some("COMPLETED")), Some(EventType::SimulationJobCompleted));
        assert_eq!(sim(Some(Some("PROCESSING")), Some("TIMED_OUT")), Some(EventType::SimulationJobFailed));
        assert_eq!(sim(None, Some("PENDING")), None);
    }

    #[test]
    fn a_run_starts_once_and_an_issue_opens_when_made_or_reopened() {
        let job = |before, after| event_for(Kind::RunPlanJob, before, after);
        assert_eq!(job(Some(Some("PENDING")), Some("RUNNING")), Some(EventType::SimulationRunPlanJobStarted));
        assert_eq!(job(Some(Some("RUNNING")), Some("RUNNING_SIMULATIONS")), None);
        assert_eq!(job(Some(Some("RUNNING")), Some("CANCELLED")), Some(EventType::SimulationRunPlanJobCancelled));
        let issue = |before, after| event_for(Kind::Issue, before, after);
        assert_eq!(issue(None, Some("OPEN")), Some(EventType::IssueOpened));
        assert_eq!(issue(Some(Some("RESOLVED")), Some("OPEN")), Some(EventType::IssueOpened));
        assert_eq!(issue(Some(Some("OPEN")), Some("ACKNOWLEDGED")), None);
        assert_eq!(issue(Some(Some("ACKNOWLEDGED")), Some("RESOLVED")), Some(EventType::IssueResolved));
        assert_eq!(event_for(Kind::Persona, None, Some("OPEN")), None);
    }

    #[test]
    fn an_issue_an_alert_opened_names_the_alert_its_events_also_go_to() {
        let alert = uuid::Uuid::new_v4();
        let body = format!(r#"{{"id": "{}", "alertId": "{alert}", "status": "OPEN"}}"#, uuid::Uuid::new_v4());
        assert_eq!(alert_of(Kind::Issue, &body), Some(alert.to_string()));
        assert_eq!(alert_of(Kind::Issue, r#"{"status": "OPEN"}"#), None);
        assert_eq!(alert_of(Kind::RunPlanJob, &body), None);
    }
}
