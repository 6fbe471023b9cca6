//! The calls an issue's evidence rows describe (when, which agent, how long, their metric
//! values), read one at a time for the rows on screen, so a long evidence list costs what is
//! shown; and which of a call's values fails worst.

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use crate::api::model::config::AlertOperator;
use crate::api::model::{AlertStatus, Call, Evidence, MetricType, MetricValueGroup};
use crate::console::message::{FetchError, Fetched, ListKind, Listing, Request};
use crate::console::out::Out;
use crate::console::widgets::list::ListState;

/// Rows read before the table has been drawn once (it then says how many it shows).
const FIRST_WINDOW: usize = 20;

#[derive(Default)]
pub struct EvidenceCalls {
    asked: HashSet<Uuid>,
    calls: HashMap<Uuid, Call>,
    values: HashMap<Uuid, Vec<MetricValueGroup>>,
}

impl EvidenceCalls {
    /// Asks for the calls of the rows in view (and the selected one) not asked for yet.
    pub fn ask(&mut self, evidence: &ListState<Evidence>, out: &mut Out) {
        let height = match evidence.height.get() {
            0 => FIRST_WINDOW,
            h => h,
        };
        let offset = evidence.offset.get();
        let shown = (offset..offset + height).chain([evidence.selected]).filter_map(|i| evidence.visible(i));
        for id in shown.filter_map(|e| e.call_id).collect::<Vec<_>>() {
            if self.asked.insert(id) {
                out.fetch(Request::Item(ListKind::Calls, id.to_string()));
                out.fetch(Request::CallValues(id));
            }
        }
    }

    /// Keeps a call read for a row; true when it was one.
    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        if let Request::CallValues(id) = request {
            if let Ok(Fetched::CallValues(_, groups)) = result {
                self.values.insert(*id, groups.clone());
            }
            return self.asked.contains(id);
        }
        let Request::Item(ListKind::Calls, id) = request else { return false };
        let Ok(id) = id.parse::<Uuid>() else { return false };
        if !self.asked.contains(&id) {
            return false;
        }
        if let Ok(Fetched::Item(Listing::Calls(calls))) = result
            && let Some(call) = calls.iter().find(|c| c.id == id)
        {
            self.calls.insert(id, call.clone());
        }
        true
    }

    pub fn get(&self, id: Option<Uuid>) -> Option<&Call> {
        self.calls.get(&id?)
    }

    /// The call's metric values, once read.
    pub fn values(&self, id: Option<Uuid>) -> Option<&[MetricValueGroup]> {
        self.values.get(&id?).map(Vec::as_slice)
    }
}

/// The call's value of `slug` (its latest SUCCESS value).
pub fn value_of(groups: &[MetricValueGroup], slug: &str) -> Option<f64> {
    let group = groups.iter().find(|g| g.slug.as_deref() == Some(slug))?;
    group.values.iter().rev().find_map(|v| v.value)
}

/// How badly `value` fails `alert`'s threshold: the excess over the threshold as a share of it
/// (None when it does not breach).
fn breach(alert: &AlertStatus, value: f64) -> Option<f64> {
    let t = alert.trigger.threshold_value?;
    let fails = match alert.trigger.operator.as_ref()? {
        AlertOperator::Gt => value > t,
        AlertOperator::Gte => value >= t,
        AlertOperator::Lt => value < t,
        AlertOperator::Lte => value <= t,
        AlertOperator::Unknown(_) => false,
    };
    fails.then(|| (value - t).abs() / t.abs().max(f64::EPSILON))
}

/// The call's worst failing metric: a boolean check that came out false fails wholly (1), a
/// value past a threshold alert's threshold by its excess as a share of the threshold; the
/// largest wins. `None` when nothing the console can judge fails.
pub fn worst_failing(groups: &[MetricValueGroup], alerts: &[&AlertStatus]) -> Option<(String, String)> {
    let mut worst: Option<(f64, String, String)> = None;
    for group in groups {
        let Some(slug) = group.slug.as_deref() else { continue };
        let Some(value) = group.values.iter().rev().find_map(|v| v.value) else { continue };
        let boolean = group.metric_type == Some(MetricType::Boolean);
        let mut failures: Vec<(f64, String)> = Vec::new();
        if boolean && value == 0.0 {
            failures.push((1.0, "false".into()));
        }
        for alert in alerts.iter().filter(|a| a.trigger.metric.as_deref() == Some(slug)) {
            if let Some(by) = breach(alert, value) {
                failures.push((by, crate::console::widgets::text::number(value)));
            }
        }
        for (by, text) in failures {
            if worst.as_ref().is_none_or(|(w, _, _)| by > *w) {
                worst = Some((by, slug.to_owned(), text));
            }
        }
    }
    worst.map(|(_, slug, text)| (slug, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::MetricValue;

    fn group(slug: &str, metric_type: MetricType, value: f64) -> MetricValueGroup {
        let value = MetricValue { value: Some(value), ..serde_json::from_str("{}").expect("every member is optional") };
        MetricValueGroup {
            metric_definition_id: Uuid::nil(),
            slug: Some(slug.into()),
            metric_id: None,
            name: None,
            description: None,
            metric_type: Some(metric_type),
            scope: None,
            unit: None,
            values: vec![value],
        }
    }

    fn alert_above(slug: &str, threshold: f64) -> AlertStatus {
        serde_json::from_value(serde_json::json!({
            "id": Uuid::nil(), "name": "a", "enabled": true, "state": "OK", "consecutiveWindows": 0,
            "trigger": {"type": "threshold", "metric": slug, "operator": "GT", "thresholdValue": threshold}
        }))
        .expect("an alert")
    }

    #[test]
    fn a_false_check_fails_worse_than_a_value_a_third_past_its_threshold() {
        let silence = alert_above("longest_silence", 9000.0);
        let groups = [
            group("longest_silence", MetricType::Numeric, 12000.0),
            group("identity_verified_before_phi", MetricType::Boolean, 0.0),
        ];
        assert_eq!(worst_failing(&groups, &[&silence]), Some(("identity_verified_before_phi".into(), "false".into())));
        let passed = [
            group("longest_silence", MetricType::Numeric, 12000.0),
            group("identity_verified_before_phi", MetricType::Boolean, 1.0),
        ];
        assert_eq!(worst_failing(&passed, &[&silence]), Some(("longest_silence".into(), "12000".into())));
        let calm = [group("longest_silence", MetricType::Numeric, 3000.0)];
        assert_eq!(worst_failing(&calm, &[&silence]), None);
    }
}
