//! The simulation trigger: when a run of a plan ends (in the transaction that ends it), each
//! enabled simulation alert watching that plan (its `plan`, or every plan when it names none)
//! judges the run's outcome. An outcome in `conditions` opens an issue for the alert and plan,
//! or counts one more event on the one open; an outcome not listed resolves it. A cancelled run
//! has no outcome and changes nothing.

use uuid::Uuid;

use super::issues;
use super::threshold::Run;
use crate::api::model::config::{AlertTriggerType, ConfigKind, SimulationCondition};
use crate::api::model::{Alert, RunPlan, RunPlanJobStatus, Verdict};
use crate::service::config::ConfigRecord;
use crate::service::issues::issue_doc;
use crate::service::store::StoreResult;
use crate::service::store::{self, Kind, Tx};

/// A run that has just ended, as the trigger reads it.
pub struct EndedRun<'a> {
    pub job_id: &'a str,
    pub plan_id: Uuid,
    pub status: &'a RunPlanJobStatus,
    pub verdict: Option<&'a Verdict>,
}

/// What a run's end comes to: FAILURE when it did not complete, THRESHOLD_FAILED when it
/// completed and its verdict failed, SUCCESS when it completed otherwise (a plan with nothing
/// to judge has no verdict and fails no threshold); none when it was cancelled.
pub fn outcome(status: &RunPlanJobStatus, verdict: Option<&Verdict>) -> Option<SimulationCondition> {
    match status {
        RunPlanJobStatus::Completed if verdict.is_some_and(|v| !v.passed) => Some(SimulationCondition::ThresholdFailed),
        RunPlanJobStatus::Completed => Some(SimulationCondition::Success),
        RunPlanJobStatus::Failed | RunPlanJobStatus::TimedOut => Some(SimulationCondition::Failure),
        _ => None,
    }
}

/// The group a plan's runs keep under its alert; the fingerprint adds the alert.
pub fn group(plan_id: Uuid) -> String {
    format!("plan:{plan_id}")
}

/// Acts on every simulation alert that watches the ended run's plan.
pub fn run_ended(tx: &Tx, run: &EndedRun) -> StoreResult<()> {
    let Some(outcome) = outcome(run.status, run.verdict) else { return Ok(()) };
    let alerts: Vec<Alert> = store::all(tx, Kind::Alert)?;
    let watching: Vec<Alert> = alerts
        .into_iter()
        .filter(|a| a.enabled && a.trigger.trigger_type == Some(AlertTriggerType::Simulation))
        .collect();
    if watching.is_empty() {
        return Ok(());
    }
    let Some(plan) = store::get::<RunPlan>(tx, Kind::RunPlan, &run.plan_id.to_string())? else { return Ok(()) };
    let records: Vec<ConfigRecord> = store::all(tx, Kind::ConfigRecord)?;
    for alert in watching.iter().filter(|a| watches(a, &plan, &records)) {
        judge(tx, alert, &plan, run, &outcome)?;
    }
    Ok(())
}

/// Whether the alert's `plan` names this plan (by its bundle name, or the plan's own name).
fn watches(alert: &Alert, plan: &RunPlan, records: &[ConfigRecord]) -> bool {
    let Some(name) = alert.trigger.plan.as_deref() else { return true };
    let recorded = records.iter().any(|r| r.kind == ConfigKind::SimulationPlan && r.name == name && r.id == plan.id);
    recorded || plan.name() == name
}

fn judge(tx: &Tx, alert: &Alert, plan: &RunPlan, run: &EndedRun, outcome: &SimulationCondition) -> StoreResult<()> {
    let (alert_id, group) = (alert.id.to_string(), group(plan.id));
    let kept: Run = serde_json::from_str(&store::alerts::claim_run(tx, &alert_id, &group)?)?;
    let fires = alert.trigger.conditions.iter().flatten().any(|c| c == outcome);
    let now = jiff::Timestamp::now();
    let open = issues::still_open(tx, kept.issue_id)?;
    let next = match (fires, open) {
        (true, Some(mut issue)) => {
            issues::count_event(&mut issue, now);
            store::update(tx, &issue_doc(&issue)?)?;
            Run { breaching: kept.breaching + 1, clean: 0, issue_id: Some(issue.id), ..Run::default() }
        }
        (true, None) => {
            let (title, summary) = describe(alert, plan, run, outcome);
            let fingerprint = issues::fingerprint(alert.id, &group);
            let issue = issues::new_issue(uuid::Uuid::new_v4(), alert, fingerprint, title, summary, 1, now);
            store::insert(tx, &issue_doc(&issue)?)?;
            Run { breaching: kept.breaching + 1, clean: 0, issue_id: Some(issue.id), ..Run::default() }
        }
        (false, open) => {
            if let Some(issue) = open {
                issues::resolve(tx, issue, now)?;
            }
            Run { breaching: 0, clean: kept.clean + 1, issue_id: None, ..Run::default() }
        }
    };
    store::alerts::put_run(tx, &alert_id, &group, &serde_json::to_string(&next)?)
}

/// The title and summary of the issue a run opens: which plan, which run, what it came to.
fn describe(alert: &Alert, plan: &RunPlan, run: &EndedRun, outcome: &SimulationCondition) -> (String, String) {
    let name = match plan.name() {
        "" => plan.id.to_string(),
        name => name.to_owned(),
    };
    let title = format!("{}: a run of {name} ended {}", alert.name, outcome.as_str());
    let failing: Vec<String> = run
        .verdict
        .map(|v| {
            v.failing_checks().iter().map(|c| format!("{} {:.0} %", c.name(), c.pass_rate.unwrap_or(0.0))).collect()
        })
        .unwrap_or_default();
    let checks = match failing.is_empty() {
        true => String::new(),
        false => format!("; failing checks: {}", failing.join(", ")),
    };
    let summary =
        format!("Run {} of plan {name} ended {} ({}){checks}.", run.job_id, run.status.as_str(), outcome.as_str());
    (title, summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(passed: bool) -> Verdict {
        Verdict { passed, score: None, checks: Vec::new(), failures: Vec::new() }
    }

    #[test]
    fn a_run_comes_to_success_failure_or_threshold_failed_and_a_cancelled_one_to_nothing() {
        use RunPlanJobStatus::*;
        use SimulationCondition as C;
        assert_eq!(outcome(&Completed, Some(&verdict(true))), Some(C::Success));
        assert_eq!(outcome(&Completed, None), Some(C::Success));
        assert_eq!(outcome(&Completed, Some(&verdict(false))), Some(C::ThresholdFailed));
        assert_eq!(outcome(&Failed, Some(&verdict(true))), Some(C::Failure));
        assert_eq!(outcome(&TimedOut, None), Some(C::Failure));
        assert_eq!(outcome(&Cancelled, None), None);
        assert_eq!(outcome(&RunningSimulations, None), None);
    }
}
