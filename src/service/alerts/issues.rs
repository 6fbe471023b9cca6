//! The issues threshold alerts open, extend and resolve: one open issue per fingerprint
//! (alert + group), its title and summary saying what breached, by how much and over which
//! window; evidence (the calls that breached, up to the issue's limit) while it stays open.

use uuid::Uuid;

use super::threshold::{Run, Step, Threshold};
use crate::api::model::issue_limits::EVIDENCE_MAX;
use crate::api::model::{Agent, Alert, Evidence, Issue, IssueSource, IssueStatus, Severity, Timestamp};
use crate::service::issues::{ORGANIZATION_ID, PROJECT_ID, issue_doc};
use crate::service::store::StoreResult;
use crate::service::store::{self, Kind, Tx};

/// The group of BY_AGENT calls that name no agent.
pub const NO_AGENT: &str = "no-agent";

/// A decided window of one group, as an issue tells it.
pub struct Breach<'a> {
    pub alert: &'a Alert,
    pub threshold: &'a Threshold,
    /// The agent's id under BY_AGENT; empty otherwise.
    pub group: &'a str,
    pub window_ms: i64,
    pub value: f64,
    /// The group's run with this window counted.
    pub run: &'a Run,
    /// The window's calls whose values breached.
    pub evidence: Vec<Uuid>,
    pub now: jiff::Timestamp,
}

/// The fingerprint of an alert's group: one open issue per fingerprint.
pub fn fingerprint(alert_id: Uuid, group: &str) -> String {
    match group {
        "" => format!("alert:{alert_id}"),
        plan if plan.starts_with("plan:") => format!("alert:{alert_id}:{plan}"),
        agent => format!("alert:{alert_id}:agent:{agent}"),
    }
}

/// The id of the issue a group's run opens in a window: derived, not drawn, so an issue is
/// the same whichever replica opens it and the seeded world comes out the same every time.
fn issue_id(fingerprint: &str, window_ms: i64) -> Uuid {
    Uuid::new_v5(&Uuid::NAMESPACE_OID, format!("{fingerprint}@{window_ms}").as_bytes())
}

/// Does what `step` says to the group's issue (`open`, the one it has); the group's open issue after.
pub fn act(tx: &Tx, breach: &Breach, step: Step, open: Option<Uuid>) -> StoreResult<Option<Uuid>> {
    let current = still_open(tx, open)?;
    match (step, current) {
        (Step::Open | Step::Extend, Some(issue)) => extend(tx, breach, issue).map(Some),
        // Resolved by a person meanwhile: this breach opens the next one.
        (Step::Open | Step::Extend, None) => {
            let windows = if step == Step::Open { breach.run.breaching } else { 1 };
            open_issue(tx, breach, windows).map(Some)
        }
        (Step::Resolve, Some(issue)) => resolve(tx, issue, breach.now).map(|_| None),
        (Step::Resolve, None) => Ok(None),
        (_, issue) => Ok(issue.map(|i| i.id)),
    }
}

fn open_issue(tx: &Tx, breach: &Breach, windows: u32) -> StoreResult<Uuid> {
    let agent = match breach.group {
        "" | NO_AGENT => None,
        id => store::get::<Agent>(tx, Kind::Agent, id)?.and_then(|a| a.name),
    };
    let (title, summary) = describe(breach, agent.as_deref());
    let fingerprint = fingerprint(breach.alert.id, breach.group);
    let id = issue_id(&fingerprint, breach.window_ms);
    let mut issue = new_issue(id, breach.alert, fingerprint, title, summary, windows, breach.now);
    add_evidence(&mut issue, breach);
    store::insert(tx, &issue_doc(&issue)?)?;
    Ok(issue.id)
}

/// The severity of the issues `alert` opens: its own, else MEDIUM (an alert that says none
/// opens issues of the middle rank, as Opsgenie's default P3 does, so none is unranked).
pub fn severity(alert: &Alert) -> Severity {
    alert.severity.clone().unwrap_or(Severity::Medium)
}

/// An OPEN issue an alert opens, of its severity, `events` its first `eventCount`.
pub fn new_issue(
    id: Uuid,
    alert: &Alert,
    fingerprint: String,
    title: String,
    summary: String,
    events: u32,
    now: jiff::Timestamp,
) -> Issue {
    let at = Timestamp::from(now);
    Issue {
        id,
        organization_id: Some(ORGANIZATION_ID),
        project_id: Some(PROJECT_ID),
        alert_id: Some(alert.id),
        source: Some(IssueSource::TrendAlert),
        title: Some(title),
        summary: Some(summary),
        severity: Some(severity(alert)),
        status: Some(IssueStatus::Open),
        fingerprint: Some(fingerprint),
        event_count: Some(u64::from(events)),
        last_event_at: Some(at.clone()),
        opened_at: Some(at.clone()),
        resolved_at: None,
        assignee_user_id: None,
        evidence: Vec::new(),
        created_at: Some(at.clone()),
        updated_at: Some(at),
    }
}

/// The issue `id` while it is open (ACKNOWLEDGED counts as open).
pub fn still_open(tx: &Tx, id: Option<Uuid>) -> StoreResult<Option<Issue>> {
    let Some(id) = id else { return Ok(None) };
    Ok(store::get::<Issue>(tx, Kind::Issue, &id.to_string())?
        .filter(|issue| issue.status != Some(IssueStatus::Resolved)))
}

/// One more event of an open issue: `eventCount` and `lastEventAt`.
pub fn count_event(issue: &mut Issue, now: jiff::Timestamp) {
    let at = Timestamp::from(now);
    issue.event_count = Some(issue.event_count.unwrap_or(0) + 1);
    issue.last_event_at = Some(at.clone());
    issue.updated_at = Some(at);
}

fn extend(tx: &Tx, breach: &Breach, mut issue: Issue) -> StoreResult<Uuid> {
    count_event(&mut issue, breach.now);
    add_evidence(&mut issue, breach);
    store::update(tx, &issue_doc(&issue)?)?;
    Ok(issue.id)
}

/// Resolves an open issue (`resolvedAt`).
pub fn resolve(tx: &Tx, mut issue: Issue, now: jiff::Timestamp) -> StoreResult<()> {
    let at = Timestamp::from(now);
    issue.status = Some(IssueStatus::Resolved);
    issue.resolved_at = Some(at.clone());
    issue.updated_at = Some(at);
    store::update(tx, &issue_doc(&issue)?)
}

/// The window's breaching calls, while the issue has room for them.
fn add_evidence(issue: &mut Issue, breach: &Breach) {
    let observed = Timestamp::from(breach.now);
    for call in &breach.evidence {
        if issue.evidence.len() >= EVIDENCE_MAX {
            break;
        }
        if issue.evidence.iter().any(|e| e.call_id == Some(*call)) {
            continue;
        }
        let entry = Evidence {
            id: Some(Uuid::new_v5(&issue.id, call.as_bytes())),
            call_id: Some(*call),
            chat_id: None,
            observed_at: Some(observed.clone()),
        };
        issue.evidence.push(entry);
    }
}

/// The title and summary of an opening breach: what breached, by how much, over which window.
pub fn describe(breach: &Breach, agent: Option<&str>) -> (String, String) {
    let t = breach.threshold;
    let what = format!("{} of {}", t.aggregation.as_str(), t.metric);
    let for_agent = match (agent, breach.group) {
        (_, "") => String::new(),
        (Some(name), _) => format!(" for agent {name}"),
        (None, id) => format!(" for agent {id}"),
    };
    let (op, limit, value) = (t.operator.symbol(), number(t.threshold), number(breach.value));
    let title = format!("{}: {what} {value} {op} {limit}{for_agent}", breach.alert.name);
    let side = if breach.value >= t.threshold { "above" } else { "below" };
    let by = number((breach.value - t.threshold).abs());
    let span = |ms: i64| jiff::Timestamp::from_millisecond(ms).map(|at| at.strftime("%Y-%m-%d %H:%M").to_string());
    let window = match (span(breach.window_ms), span(breach.window_ms + t.window_ms)) {
        (Ok(start), Ok(end)) => format!("{start}–{end} UTC"),
        _ => "an unreadable window".to_owned(),
    };
    let runs = breach.run.breaching;
    let summary = format!(
        "{what}{for_agent} was {value} over {window}, {by} {side} the threshold ({op} {limit}); \
         {runs} consecutive breaching window{} of {} min.",
        if runs == 1 { "" } else { "s" },
        t.window_ms / 60_000
    );
    (title, summary)
}

/// A value as people read it: at most two decimals, no trailing zeros.
fn number(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::config::AlertTriggerConfig;
    use crate::service::alerts::threshold::{Aggregation, Operator};

    #[test]
    fn the_title_and_summary_say_what_breached_by_how_much_and_when() {
        let alert = Alert {
            id: Uuid::nil(),
            name: "Slow answers".into(),
            trigger: AlertTriggerConfig::default(),
            actions: None,
            enabled: true,
            severity: None,
            created_at: None,
            updated_at: None,
        };
        let threshold = Threshold {
            aggregation: Aggregation::Mean,
            operator: Operator::Gt,
            threshold: 2.0,
            metric: "agent_response_latency".into(),
            window_ms: 300_000,
            min_samples: 1,
            open_after: 2,
            resolve_after: 1,
            by_agent: true,
            variant: None,
        };
        let run = Run { breaching: 2, ..Run::default() };
        let breach = Breach {
            alert: &alert,
            threshold: &threshold,
            group: "a1",
            window_ms: 1_764_205_200_000,
            value: 3.456,
            run: &run,
            evidence: Vec::new(),
            now: jiff::Timestamp::UNIX_EPOCH,
        };
        let (title, summary) = describe(&breach, Some("Front desk"));
        assert_eq!(title, "Slow answers: MEAN of agent_response_latency 3.46 > 2 for agent Front desk");
        assert_eq!(
            summary,
            "MEAN of agent_response_latency for agent Front desk was 3.46 over 2025-11-27 01:00–2025-11-27 01:05 UTC, \
             1.46 above the threshold (> 2); 2 consecutive breaching windows of 5 min."
        );
        assert_eq!(fingerprint(Uuid::nil(), "a1"), format!("alert:{}:agent:a1", Uuid::nil()));
    }
}
