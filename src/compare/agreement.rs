//! How far a judge can be trusted: people's labels on its values (right or wrong), per metric
//! definition and version, as the labelled count, the share where people agree with the
//! judge, and for yes/no metrics Cohen's κ between the judge's answers and the labelled
//! truth. A new version of a definition starts a new row: a changed prompt is a new judge.
//! Labels come from the service and from the console's local cache (where the service had
//! no labels route); each row says how many of its labels are the cache's. A judged value
//! with no value (DATA_MISSING: the judge abstained, or had nothing to read) cannot be
//! labelled, so it is never a judgement here; the calls people labelled say how many there
//! were, per metric.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use uuid::Uuid;

use super::stats::Agreement;
use crate::api::model::{Annotation, AnnotationLabel, CaptureStatus, MetricValueGroup};

/// One metric definition at one version.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JudgeAgreement {
    pub metric_definition_id: Uuid,
    pub name: String,
    pub version: Option<u64>,
    pub version_id: Option<Uuid>,
    /// Values people labelled.
    pub labelled: u64,
    /// Labelled right (people agree with the judge).
    pub agreed: u64,
    /// 0–100.
    pub agreement: Option<f64>,
    /// Cohen's κ between the judge's yes/no and the labelled truth; None for a metric that is
    /// not yes/no, or when chance agreement is already total (every answer the same).
    pub kappa: Option<f64>,
    /// Whether the metric answers yes/no.
    pub boolean: bool,
    /// Of `labelled`, those kept only in the console's local cache.
    pub local_labels: u64,
}

/// A judged metric's values with no value on the calls people labelled: not judgements, so
/// counted in no row's agreement or κ.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WithoutJudgement {
    pub metric_definition_id: Uuid,
    pub name: String,
    /// Values stored as DATA_MISSING: the judge abstained, or had nothing to read.
    pub values: u64,
}

/// DATA_MISSING values per metric definition in `groups` (every labelled call's metrics).
pub fn missing_values(groups: &[MetricValueGroup]) -> BTreeMap<Uuid, u64> {
    let mut out = BTreeMap::new();
    for group in groups {
        let missing =
            group.values.iter().filter(|v| v.capture_status == Some(CaptureStatus::DataMissing)).count() as u64;
        if missing > 0 {
            *out.entry(group.metric_definition_id).or_default() += missing;
        }
    }
    out
}

/// The cache mark holding labels the console made against a service without the labels
/// route (`Annotation`s, with neither version known).
pub const LOCAL_LABELS: &str = "judge-labels";

/// People's labels from both places they are kept, one per value: the service's, and the
/// local cache's where the service has none on that value.
#[derive(Debug, Clone, Default)]
pub struct Labels {
    pub labels: Vec<Annotation>,
    /// The ids of those that came from the local cache.
    pub local: HashSet<Uuid>,
}

impl Labels {
    /// `service`'s labels, then each of `cached` on a value the service has no label on.
    pub fn merge(service: Vec<Annotation>, cached: Vec<Annotation>) -> Labels {
        let value = |a: &Annotation| (a.call_id, a.metric_definition_id, a.value_index);
        let on_service: HashSet<_> = service.iter().map(value).collect();
        let mut labels = service;
        let mut local = HashSet::new();
        for label in cached.into_iter().filter(|a| !on_service.contains(&value(a))) {
            local.insert(label.id);
            labels.push(label);
        }
        Labels { labels, local }
    }
}

/// A definition at a version: its id, version number and version id.
type VersionKey = (Uuid, Option<u64>, Option<Uuid>);

/// One row per (definition, version), by name then version; `names` gives definitions' names,
/// `local` the ids of labels that came from the local cache.
pub fn agreement(
    annotations: &[Annotation],
    local: &HashSet<Uuid>,
    names: &BTreeMap<Uuid, String>,
) -> Vec<JudgeAgreement> {
    let mut groups: BTreeMap<VersionKey, Vec<&Annotation>> = BTreeMap::new();
    for annotation in annotations {
        let key = (annotation.metric_definition_id, annotation.version, annotation.version_id);
        groups.entry(key).or_default().push(annotation);
    }
    let mut rows: Vec<JudgeAgreement> = groups
        .into_iter()
        .map(|((id, version, version_id), labels)| {
            let boolean = labels.iter().all(|a| a.answers().is_some());
            let agreed = labels.iter().filter(|a| a.label == AnnotationLabel::Right).count() as u64;
            let labelled = labels.len() as u64;
            let kappa = if boolean { Agreement::of(labels.iter().filter_map(|a| a.answers())).kappa } else { None };
            JudgeAgreement {
                metric_definition_id: id,
                name: names.get(&id).cloned().unwrap_or_else(|| id.to_string()),
                version,
                version_id,
                labelled,
                agreed,
                agreement: (labelled > 0).then(|| agreed as f64 * 100.0 / labelled as f64),
                kappa,
                boolean,
                local_labels: labels.iter().filter(|a| local.contains(&a.id)).count() as u64,
            }
        })
        .collect();
    rows.sort_by(|a, b| a.name.cmp(&b.name).then(a.version.cmp(&b.version)));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(metric: Uuid, version: u64, judge: bool, right: bool) -> Annotation {
        Annotation {
            id: Uuid::new_v4(),
            call_id: Uuid::new_v4(),
            metric_definition_id: metric,
            value_index: 0,
            label: if right { AnnotationLabel::Right } else { AnnotationLabel::Wrong },
            note: None,
            judge_value: Some(if judge { 1.0 } else { 0.0 }),
            judge_label: None,
            boolean: true,
            version_id: Some(Uuid::from_u128(u128::from(version))),
            version: Some(version),
            created_at: None,
            updated_at: None,
        }
    }

    #[test]
    fn each_version_is_its_own_row_with_its_own_kappa() {
        let metric = Uuid::new_v4();
        let names = BTreeMap::from([(metric, "Verified".to_owned())]);
        let labels = vec![
            // Version 1: the judge is right every time, on both answers: κ 1.
            label(metric, 1, true, true),
            label(metric, 1, false, true),
            label(metric, 1, true, true),
            label(metric, 1, false, true),
            // Version 2: the judge always says yes and people say it is wrong half the time.
            label(metric, 2, true, true),
            label(metric, 2, true, false),
        ];
        let rows = agreement(&labels, &HashSet::new(), &names);
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].version, rows[0].labelled, rows[0].agreed, rows[0].kappa), (Some(1), 4, 4, Some(1.0)));
        assert_eq!(rows[0].agreement, Some(100.0));
        assert_eq!((rows[1].version, rows[1].labelled, rows[1].agreed), (Some(2), 2, 1));
        assert_eq!(rows[1].kappa, Some(0.0), "a judge that always says yes agrees only by chance");
    }

    #[test]
    fn cached_labels_count_where_the_service_has_none_on_that_value_and_are_said_to_be_local() {
        let metric = Uuid::new_v4();
        let on_service = label(metric, 1, true, true);
        // The same value labelled in the cache too: the service's label wins.
        let shadowed = Annotation { id: Uuid::new_v4(), label: AnnotationLabel::Wrong, ..on_service.clone() };
        // A value only the cache has a label on, with no version known.
        let cached = Annotation { version: None, version_id: None, ..label(metric, 1, true, false) };
        let labels = Labels::merge(vec![on_service.clone()], vec![shadowed, cached.clone()]);
        assert_eq!(labels.labels.len(), 2);
        assert_eq!(labels.local, HashSet::from([cached.id]));
        let rows = agreement(&labels.labels, &labels.local, &BTreeMap::new());
        assert_eq!(rows.len(), 2, "a label of unknown version is a row of its own: {rows:#?}");
        let service_row = rows.iter().find(|r| r.version == Some(1)).unwrap();
        assert_eq!((service_row.labelled, service_row.agreed, service_row.local_labels), (1, 1, 0));
        let cache_row = rows.iter().find(|r| r.version.is_none()).unwrap();
        assert_eq!((cache_row.labelled, cache_row.agreed, cache_row.local_labels), (1, 0, 1));
    }

    #[test]
    fn values_without_a_judgement_are_counted_per_metric() {
        let (judged, other) = (Uuid::new_v4(), Uuid::new_v4());
        let value = |status: CaptureStatus| -> crate::api::model::MetricValue {
            serde_json::from_value(serde_json::json!({"captureStatus": status.as_str()})).unwrap()
        };
        let group = |id: Uuid, values: Vec<crate::api::model::MetricValue>| -> MetricValueGroup {
            serde_json::from_value(serde_json::json!({"metricDefinitionId": id, "values": values})).unwrap()
        };
        let groups = [
            group(judged, vec![value(CaptureStatus::DataMissing), value(CaptureStatus::Success)]),
            group(judged, vec![value(CaptureStatus::DataMissing)]),
            group(other, vec![value(CaptureStatus::Success), value(CaptureStatus::NotApplicable)]),
        ];
        assert_eq!(missing_values(&groups), BTreeMap::from([(judged, 2)]), "only DATA_MISSING is without a value");
    }

    #[test]
    fn a_metric_that_is_not_yes_or_no_has_agreement_but_no_kappa() {
        let metric = Uuid::new_v4();
        let mut scale = label(metric, 1, true, false);
        scale.boolean = false;
        scale.judge_value = Some(4.0);
        let rows = agreement(&[scale], &HashSet::new(), &BTreeMap::new());
        assert_eq!((rows[0].labelled, rows[0].agreed, rows[0].kappa, rows[0].boolean), (1, 0, None, false));
        assert_eq!(rows[0].name, metric.to_string(), "a definition without a name is named by its id");
    }
}
