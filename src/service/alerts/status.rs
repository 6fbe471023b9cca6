//! Where each alert stands, from its groups' runs: what the read routes answer.

use super::threshold::{Run, Threshold};
use crate::api::model::{Alert, AlertGroupStatus, AlertState, AlertStatus, AlertWindow, Timestamp};
use crate::service::store::StoreResult;
use crate::service::store::{self, Conn};

/// How many of a group's latest windows one alert's read carries.
pub const WINDOWS_READ: usize = 48;

/// The alert with its groups' states, each with its latest `windows` decided windows.
pub fn of(conn: &Conn, alert: Alert, windows: usize) -> StoreResult<AlertStatus> {
    let mut groups = Vec::new();
    let threshold = Threshold::of(&alert.trigger);
    let alert_id = alert.id.to_string();
    for (group, body) in store::alerts::runs(conn, &alert_id)? {
        let run: Run = serde_json::from_str(&body)?;
        let mut status = group_status(alert.id, group, &run);
        if windows > 0 {
            let key = status.agent_id.clone().unwrap_or_default();
            let values = store::alerts::values(conn, &alert_id, &key, windows)?;
            status.windows = values.into_iter().filter_map(|v| window(threshold.as_ref(), v)).collect();
        }
        groups.push(status);
    }
    let top = groups.iter().max_by_key(|g| (rank(&g.state), g.last_window_start.clone().map(|t| t.0)));
    Ok(AlertStatus {
        state: top.map_or(AlertState::Ok, |g| g.state.clone()),
        consecutive_windows: top.map_or(0, |g| g.consecutive_windows),
        last_window_start: top.and_then(|g| g.last_window_start.clone()),
        last_value: top.and_then(|g| g.last_value),
        action_status: super::actions::statuses(&alert),
        id: alert.id,
        name: alert.name,
        trigger: alert.trigger,
        actions: alert.actions,
        enabled: alert.enabled,
        severity: alert.severity,
        groups,
        created_at: alert.created_at,
        updated_at: alert.updated_at,
    })
}

/// A stored `(window ms, value, samples)` as the wire tells it.
fn window(threshold: Option<&Threshold>, (window_ms, value, samples): (i64, Option<f64>, i64)) -> Option<AlertWindow> {
    let start = Timestamp::from(jiff::Timestamp::from_millisecond(window_ms).ok()?);
    let breaching = matches!((threshold, value), (Some(t), Some(v)) if t.breaches(v));
    Some(AlertWindow { start, value, samples: samples.max(0) as u64, breaching })
}

fn group_status(alert_id: uuid::Uuid, group: String, run: &Run) -> AlertGroupStatus {
    let state = match (run.issue_id, run.breaching) {
        (Some(_), _) => AlertState::Open,
        (None, 0) => AlertState::Ok,
        (None, _) => AlertState::Breaching,
    };
    let consecutive_windows = if state == AlertState::Ok { run.clean } else { run.breaching };
    let plan_id = group.strip_prefix("plan:").map(str::to_owned);
    AlertGroupStatus {
        fingerprint: Some(super::issues::fingerprint(alert_id, &group)),
        windows: Vec::new(),
        agent_id: (!group.is_empty() && plan_id.is_none()).then_some(group),
        plan_id,
        state,
        consecutive_windows,
        last_window_start: run
            .last_window_ms
            .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
            .map(Timestamp::from),
        last_value: run.last_value,
        issue_id: run.issue_id,
    }
}

fn rank(state: &AlertState) -> u8 {
    match state {
        AlertState::Open => 2,
        AlertState::Breaching => 1,
        _ => 0,
    }
}

/// Every alert with its state, in the order they were made.
pub fn all(conn: &Conn) -> StoreResult<Vec<AlertStatus>> {
    let alerts: Vec<Alert> = store::all(conn, store::Kind::Alert)?;
    alerts.into_iter().map(|alert| of(conn, alert, 0)).collect()
}

/// One alert by its id, its bundle `name`, or the name people see, with its groups' latest
/// windows.
pub fn find(conn: &Conn, id_or_name: &str) -> StoreResult<Option<AlertStatus>> {
    use crate::api::model::config::ConfigKind;
    use crate::service::config::ConfigRecord;
    let records: Vec<ConfigRecord> = store::all(conn, store::Kind::ConfigRecord)?;
    let recorded = records.iter().find(|r| r.kind == ConfigKind::Alert && r.name == id_or_name).map(|r| r.id);
    let alerts: Vec<Alert> = store::all(conn, store::Kind::Alert)?;
    let found =
        alerts.into_iter().find(|a| Some(a.id) == recorded || a.id.to_string() == id_or_name || a.name == id_or_name);
    found.map(|alert| of(conn, alert, WINDOWS_READ)).transpose()
}
