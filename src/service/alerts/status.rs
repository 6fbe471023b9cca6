//! Where each alert stands, from its groups' runs: what the read routes answer.

use super::threshold::Run;
use crate::api::model::{Alert, AlertGroupStatus, AlertState, AlertStatus, Timestamp};
use crate::service::error::ServiceResult;
use crate::service::store::{self, Conn};

/// The alert with its groups' states.
pub fn of(conn: &Conn, alert: Alert) -> ServiceResult<AlertStatus> {
    let mut groups = Vec::new();
    for (group, body) in store::alerts::runs(conn, &alert.id.to_string())? {
        let run: Run = serde_json::from_str(&body)?;
        groups.push(group_status(group, &run));
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
        groups,
        created_at: alert.created_at,
        updated_at: alert.updated_at,
    })
}

fn group_status(group: String, run: &Run) -> AlertGroupStatus {
    let state = match (run.issue_id, run.breaching) {
        (Some(_), _) => AlertState::Open,
        (None, 0) => AlertState::Ok,
        (None, _) => AlertState::Breaching,
    };
    let consecutive_windows = if state == AlertState::Ok { run.clean } else { run.breaching };
    let plan_id = group.strip_prefix("plan:").map(str::to_owned);
    AlertGroupStatus {
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
pub fn all(conn: &Conn) -> ServiceResult<Vec<AlertStatus>> {
    let alerts: Vec<Alert> = store::all(conn, store::Kind::Alert)?;
    alerts.into_iter().map(|alert| of(conn, alert)).collect()
}

/// One alert by its id, its bundle `name`, or the name people see.
pub fn find(conn: &Conn, id_or_name: &str) -> ServiceResult<Option<AlertStatus>> {
    use crate::api::model::config::ConfigKind;
    use crate::service::config::ConfigRecord;
    let records: Vec<ConfigRecord> = store::all(conn, store::Kind::ConfigRecord)?;
    let recorded = records.iter().find(|r| r.kind == ConfigKind::Alert && r.name == id_or_name).map(|r| r.id);
    let alerts: Vec<Alert> = store::all(conn, store::Kind::Alert)?;
    let found =
        alerts.into_iter().find(|a| Some(a.id) == recorded || a.id.to_string() == id_or_name || a.name == id_or_name);
    found.map(|alert| of(conn, alert)).transpose()
}
