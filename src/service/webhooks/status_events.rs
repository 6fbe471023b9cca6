//! Which changes are events: a document entering a status the hosted service's webhooks name.
//! The store asks on every insert and update, so no route or engine can change a status
//! without its event, and the event commits with the change.

use super::store::Kind;
use crate::api::model::{CollectionJobStatus, EventType, IssueStatus, RunPlanJobStatus, SimulationJobStatus};

/// The event a document's move from `before` (`None` when it is new) to `after` announces.
/// Only a change of status is an event: rewriting a document in the same status is not.
/// The store keeps a status as its wire text; each kind reads it as its own typed status.
pub fn event_for(kind: Kind, before: Option<Option<&str>>, after: Option<&str>) -> Option<EventType> {
    let after = after?;
    let before = before.flatten();
    if before == Some(after) {
        return None;
    }
    match kind {
        Kind::RunPlanJob => run_plan_job(before.map(RunPlanJobStatus::from), after.into()),
        Kind::SimulationJob => simulation_job(after.into()),
        Kind::CollectionJob => collection_job(after.into()),
        Kind::Issue => issue(after.into()),
        _ => None,
    }
}

fn run_plan_job(before: Option<RunPlanJobStatus>, after: RunPlanJobStatus) -> Option<EventType> {
    use RunPlanJobStatus::*;
    match after {
        Running | RunningSimulations if !before.as_ref().is_some_and(has_started) => {
            Some(EventType::SimulationRunPlanJobStarted)
        }
        Completed => Some(EventType::SimulationRunPlanJobCompleted),
        Failed | TimedOut => Some(EventType::SimulationRunPlanJobFailed),
        Cancelled => Some(EventType::SimulationRunPlanJobCancelled),
        _ => None,
    }
}

fn simulation_job(after: SimulationJobStatus) -> Option<EventType> {
    use SimulationJobStatus::*;
    match after {
        // A retry starts the simulation again: each attempt announces its start.
        Processing => Some(EventType::SimulationJobStarted),
        Completed => Some(EventType::SimulationJobCompleted),
        Failed | TimedOut => Some(EventType::SimulationJobFailed),
        Cancelled => Some(EventType::SimulationJobCancelled),
        _ => None,
    }
}

fn collection_job(after: CollectionJobStatus) -> Option<EventType> {
    match after {
        CollectionJobStatus::Completed => Some(EventType::MetricCollectionJobCompleted),
        CollectionJobStatus::Failed => Some(EventType::MetricCollectionJobFailed),
        _ => None,
    }
}

fn issue(after: IssueStatus) -> Option<EventType> {
    match after {
        IssueStatus::Open => Some(EventType::IssueOpened),
        IssueStatus::Resolved => Some(EventType::IssueResolved),
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
fn has_started(status: &RunPlanJobStatus) -> bool {
    use RunPlanJobStatus::*;
    matches!(status, Running | RunningSimulations | EndingSimulations | Cancelling)
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
    fn each_kind_reads_its_own_statuses_and_an_unknown_one_is_no_event() {
        let job = |before, after| event_for(Kind::RunPlanJob, before, after);
        assert_eq!(job(Some(Some("CANCELLING")), Some("RUNNING_SIMULATIONS")), None, "it had started");
        assert_eq!(job(Some(Some("QUEUED")), Some("TIMED_OUT")), Some(EventType::SimulationRunPlanJobFailed));
        assert_eq!(job(Some(Some("RUNNING")), Some("PAUSED")), None, "a status this build does not know");
        let collection = |after| event_for(Kind::CollectionJob, Some(Some("PROCESSING")), Some(after));
        assert_eq!(collection("FAILED"), Some(EventType::MetricCollectionJobFailed));
        assert_eq!(collection("CANCELED"), None);
        assert_eq!(event_for(Kind::SimulationJob, None, Some("CANCELLED")), Some(EventType::SimulationJobCancelled));
        assert_eq!(event_for(Kind::SimulationJob, None, Some("RETRY_SCHEDULED")), None);
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
