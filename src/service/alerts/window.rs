//! Deciding a threshold alert's windows: which are ready (ended, and quiet since their latest
//! call), and, in one transaction per window that first claims it, each group's value, its
//! run, and what that does to the group's issue.

use std::collections::BTreeMap;
use std::time::Duration;

use super::issues::{self, Breach};
use super::threshold::{Run, Step, Threshold};
use crate::api::model::{Alert, MetricDefinition, Timestamp};
use crate::service::store::StoreResult;
use crate::service::store::{self, Conn, Kind, Store, Tx, alerts::Scored};

/// An enabled threshold alert with the metric it watches.
#[derive(Debug, Clone)]
pub struct Watched {
    pub alert: Alert,
    pub threshold: Threshold,
    pub definition_id: String,
}

/// The enabled threshold alerts whose metric (and variant, if named) exists.
pub fn watched(conn: &Conn) -> StoreResult<Vec<Watched>> {
    let alerts: Vec<Alert> = store::all(conn, Kind::Alert)?;
    let definitions: Vec<MetricDefinition> = store::all(conn, Kind::MetricDefinition)?;
    Ok(alerts
        .into_iter()
        .filter(|a| a.enabled)
        .filter_map(|alert| {
            let threshold = Threshold::of(&alert.trigger)?;
            let definition = watched_definition(&definitions, &threshold)?;
            Some(Watched { definition_id: definition.id.to_string(), alert, threshold })
        })
        .collect())
}

/// The definition whose values a threshold reads: the metric by its slug, or the workspace
/// fork of it that `metricVariant` names (by name or id).
fn watched_definition<'a>(definitions: &'a [MetricDefinition], t: &Threshold) -> Option<&'a MetricDefinition> {
    let base = definitions.iter().find(|d| d.forked_from.is_none() && d.slug_or_alias() == Some(t.metric.as_str()))?;
    let Some(variant) = t.variant.as_deref() else { return Some(base) };
    if base.variant_id.is_some_and(|id| id.to_string() == variant) {
        return Some(base);
    }
    definitions.iter().find(|d| {
        d.forked_from == Some(base.id) && (d.variant_name.as_deref() == Some(variant) || d.id.to_string() == variant)
    })
}

/// One call's value in a window.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub call_id: uuid::Uuid,
    pub group: String,
    pub value: f64,
    /// When the call arrived (unix ms): policies score it in the same transaction.
    pub arrived_ms: i64,
}

/// Decides the alert's ready windows in order, stopping at the first that is not; how many
/// this replica decided.
pub async fn decide_ready(store: &Store, alert: &Watched, now: jiff::Timestamp, quiet: Duration) -> StoreResult<usize> {
    let id = alert.alert.id.to_string();
    let last = store.read(move |c| store::alerts::last_decided(c, &id)).await?;
    let from = last.map_or(0, |w| w + alert.threshold.window_ms);
    // Only windows whose end is a quiet period past can be ready: the open window's calls
    // (every call of a run going on now) are not read again at every tick.
    let until = readable_until(&alert.threshold, now, quiet);
    if until <= from {
        return Ok(0);
    }
    let pending = {
        let (definition, threshold) = (alert.definition_id.clone(), alert.threshold.clone());
        store.read(move |c| windows(c, &definition, &threshold, from, Some(until))).await?
    };
    let mut decided = 0;
    for (window_ms, samples) in pending {
        if !ready(&alert.threshold, window_ms, &samples, now, quiet) {
            break;
        }
        let alert = alert.clone();
        if store.write(move |tx| decide(tx, &alert, window_ms, now, quiet)).await? {
            decided += 1;
        }
    }
    Ok(decided)
}

/// Decides, in one transaction, every window of every watched alert that holds calls, each at
/// the moment it would have been decided live (a quiet period after its end or its latest
/// call, whichever is later): how the seed replays its past traffic. How many were decided.
pub fn decide_all(tx: &Tx, quiet: Duration) -> StoreResult<usize> {
    let quiet_ms = quiet.as_millis() as i64;
    let mut decided = 0;
    for alert in watched(tx)? {
        let from =
            store::alerts::last_decided(tx, &alert.alert.id.to_string())?.map_or(0, |w| w + alert.threshold.window_ms);
        for (window_ms, samples) in windows(tx, &alert.definition_id, &alert.threshold, from, None)? {
            let latest = samples.iter().map(|s| s.arrived_ms).max().unwrap_or(window_ms);
            let at_ms = latest.max(window_ms + alert.threshold.window_ms) + quiet_ms;
            let at = jiff::Timestamp::from_millisecond(at_ms)
                .map_err(|e| crate::service::store::StoreError::backend(e.to_string()))?;
            decided += usize::from(decide(tx, &alert, window_ms, at, quiet)?);
        }
    }
    Ok(decided)
}

/// The end of the last window that may be decided at `now` (unix ms): a later one ends less
/// than a quiet period before `now`, so `ready` refuses it whatever its calls.
fn readable_until(threshold: &Threshold, now: jiff::Timestamp, quiet: Duration) -> i64 {
    let quiet_ms = quiet.as_millis() as i64;
    let last_start = threshold.window_of(now.as_millisecond() - quiet_ms - threshold.window_ms);
    last_start + threshold.window_ms
}

/// Whether a window may be decided at `now`: its end and its latest arrival are a quiet
/// period past.
fn ready(threshold: &Threshold, window_ms: i64, samples: &[Sample], now: jiff::Timestamp, quiet: Duration) -> bool {
    let quiet_ms = quiet.as_millis() as i64;
    let latest = samples.iter().map(|s| s.arrived_ms).max().unwrap_or(i64::MIN);
    let now_ms = now.as_millisecond();
    now_ms >= window_ms + threshold.window_ms + quiet_ms && now_ms >= latest.saturating_add(quiet_ms)
}

/// Decides one window, claiming it first; false when it was not ready or already decided.
fn decide(tx: &Tx, alert: &Watched, window_ms: i64, now: jiff::Timestamp, quiet: Duration) -> StoreResult<bool> {
    let t = &alert.threshold;
    let mut found = windows(tx, &alert.definition_id, t, window_ms, Some(window_ms + t.window_ms))?;
    let samples = found.remove(&window_ms).unwrap_or_default();
    // What this transaction reads is the last word: a call that came meanwhile waits its turn.
    if !ready(t, window_ms, &samples, now, quiet) {
        return Ok(false);
    }
    let alert_id = alert.alert.id.to_string();
    if !store::alerts::claim(tx, &alert_id, window_ms, &Timestamp::from(now).0)? {
        return Ok(false);
    }
    let mut groups: BTreeMap<&str, Vec<&Sample>> = BTreeMap::new();
    for sample in &samples {
        groups.entry(sample.group.as_str()).or_default().push(sample);
    }
    for (group, samples) in groups {
        let values: Vec<f64> = samples.iter().map(|s| s.value).collect();
        let value = t.measure(&values);
        store::alerts::put_value(tx, &alert_id, group, window_ms, value, values.len())?;
        let run: Run = store::alerts::run(tx, &alert_id, group)?
            .map(|body| serde_json::from_str(&body))
            .transpose()?
            .unwrap_or_default();
        let (mut next, step) = super::threshold::step(t, &run, window_ms, value);
        if step == Step::Skipped {
            continue;
        }
        let evidence = samples.iter().filter(|s| t.implicates(s.value)).map(|s| s.call_id).collect();
        let breach = Breach {
            alert: &alert.alert,
            threshold: t,
            group,
            window_ms,
            value: value.unwrap_or_default(),
            run: &next,
            evidence,
            now,
        };
        next.issue_id = issues::act(tx, &breach, step, run.issue_id)?;
        store::alerts::put_run(tx, &alert_id, group, &serde_json::to_string(&next)?)?;
    }
    Ok(true)
}

/// The samples of the alert's metric by window, on calls started from `from_ms` (and before
/// `to_ms`): each call's latest value, grouped as the alert groups.
pub fn windows(
    conn: &Conn,
    definition_id: &str,
    t: &Threshold,
    from_ms: i64,
    to_ms: Option<i64>,
) -> StoreResult<BTreeMap<i64, Vec<Sample>>> {
    // Stored starts compare as text; a second's margin each side, then parsed times decide.
    let text = |ms: i64| jiff::Timestamp::from_millisecond(ms).map(|at| Timestamp::from(at).0).ok();
    let from = text(from_ms - 1_000).unwrap_or_else(|| "0000".to_owned());
    let to = to_ms.and_then(|ms| text(ms + 1_000)).unwrap_or_else(|| "9999".to_owned());
    let rows = store::alerts::scored(conn, definition_id, &from, &to)?;
    let mut latest: BTreeMap<String, Scored> = BTreeMap::new();
    for row in rows {
        latest.insert(row.call_id.clone(), row);
    }
    let mut by_window: BTreeMap<i64, Vec<Sample>> = BTreeMap::new();
    for row in latest.into_values() {
        let Some(sample) = sample(t, row) else { continue };
        let window = t.window_of(sample.0);
        if sample.0 >= from_ms && to_ms.is_none_or(|to| sample.0 < to) {
            by_window.entry(window).or_default().push(sample.1);
        }
    }
    Ok(by_window)
}

/// A stored row as a sample, with its call's start (unix ms); `None` when it does not parse.
fn sample(t: &Threshold, row: Scored) -> Option<(i64, Sample)> {
    let started = Timestamp(row.started_at).parse()?.as_millisecond();
    let arrived = row.arrived_at.and_then(|at| Timestamp(at).parse());
    let arrived_ms = arrived.map_or(started, |at| at.as_millisecond());
    let group = match t.by_agent {
        true => row.agent_id.unwrap_or_else(|| issues::NO_AGENT.to_owned()),
        false => String::new(),
    };
    Some((started, Sample { call_id: row.call_id.parse().ok()?, group, value: row.value, arrived_ms }))
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;
    use crate::api::model::config::{AlertAggregation, AlertOperator, AlertTriggerConfig, AlertTriggerType};

    fn definition(slug: &str, forked_from: Option<Uuid>, variant: Option<&str>) -> MetricDefinition {
        let id = Uuid::new_v4();
        let variant_id = Some(if forked_from.is_some() { id } else { Uuid::new_v4() });
        MetricDefinition {
            id,
            slug: Some(slug.into()),
            variant_id,
            forked_from,
            variant_name: variant.map(Into::into),
            ..Default::default()
        }
    }

    fn on(variant: Option<&str>) -> Threshold {
        let trigger = AlertTriggerConfig {
            trigger_type: Some(AlertTriggerType::Threshold),
            aggregation: Some(AlertAggregation::Mean),
            metric: Some("call_duration".into()),
            metric_variant: variant.map(Into::into),
            operator: Some(AlertOperator::Gt),
            threshold_value: Some(1.0),
            window_minutes: Some(1),
            ..Default::default()
        };
        Threshold::of(&trigger).expect("a threshold trigger")
    }

    #[test]
    fn metric_variant_picks_the_fork_it_names_and_nothing_when_there_is_none() {
        let base = definition("call_duration", None, None);
        let strict = definition("call_duration__strict", Some(base.id), Some("Strict"));
        let other = definition("words_per_minute__strict", Some(Uuid::new_v4()), Some("Strict"));
        let all = [other.clone(), strict.clone(), base.clone()];
        let picked = |variant: Option<&str>| watched_definition(&all, &on(variant)).map(|d| d.id);
        assert_eq!(picked(None), Some(base.id));
        assert_eq!(picked(Some("Default")), Some(base.id));
        assert_eq!(picked(Some(&base.variant_id.unwrap().to_string())), Some(base.id));
        assert_eq!(picked(Some("Strict")), Some(strict.id));
        assert_eq!(picked(Some(&strict.id.to_string())), Some(strict.id));
        assert_eq!(picked(Some("Lenient")), None, "a variant that does not exist watches nothing");
    }

    #[test]
    fn the_windows_read_end_where_ready_stops_deciding() {
        let t = on(None);
        let quiet = Duration::from_secs(10);
        let start = jiff::Timestamp::from_millisecond(1_790_000_000_000).unwrap();
        // Instants around a window's boundary, the quiet period and a millisecond either side.
        for offset_ms in [0, 1, 9_999, 10_000, 10_001, t.window_ms - 1, t.window_ms, t.window_ms + 10_000] {
            let now = start.checked_add(jiff::SignedDuration::from_millis(offset_ms)).unwrap();
            let until = readable_until(&t, now, quiet);
            assert_eq!(until % t.window_ms, 0, "a window's end");
            assert!(ready(&t, until - t.window_ms, &[], now, quiet), "the last window read may be decided");
            assert!(!ready(&t, until, &[], now, quiet), "the first window not read may not");
        }
    }
}
