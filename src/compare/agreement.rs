//! How far a judge can be trusted: people's labels on its values (right or wrong), per metric
//! definition and version, as the labelled count, the share where people agree with the
//! judge, and for yes/no metrics Cohen's κ between the judge's answers and the labelled
//! truth. A new version of a definition starts a new row: a changed prompt is a new judge.

use std::collections::BTreeMap;

use serde::Serialize;
use uuid::Uuid;

use super::stats::Agreement;
use crate::api::model::{Annotation, AnnotationLabel};

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
}

/// A definition at a version: its id, version number and version id.
type VersionKey = (Uuid, Option<u64>, Option<Uuid>);

/// One row per (definition, version), by name then version; `names` gives definitions' names.
pub fn agreement(annotations: &[Annotation], names: &BTreeMap<Uuid, String>) -> Vec<JudgeAgreement> {
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
        let rows = agreement(&labels, &names);
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].version, rows[0].labelled, rows[0].agreed, rows[0].kappa), (Some(1), 4, 4, Some(1.0)));
        assert_eq!(rows[0].agreement, Some(100.0));
        assert_eq!((rows[1].version, rows[1].labelled, rows[1].agreed), (Some(2), 2, 1));
        assert_eq!(rows[1].kappa, Some(0.0), "a judge that always says yes agrees only by chance");
    }

    #[test]
    fn a_metric_that_is_not_yes_or_no_has_agreement_but_no_kappa() {
        let metric = Uuid::new_v4();
        let mut scale = label(metric, 1, true, false);
        scale.boolean = false;
        scale.judge_value = Some(4.0);
        let rows = agreement(&[scale], &BTreeMap::new());
        assert_eq!((rows[0].labelled, rows[0].agreed, rows[0].kappa, rows[0].boolean), (1, 0, None, false));
        assert_eq!(rows[0].name, metric.to_string(), "a definition without a name is named by its id");
    }
}
