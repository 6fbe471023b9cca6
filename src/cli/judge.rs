//! `switchboard judge agreement [--metric M]` and `switchboard judge label CALL METRIC
//! right|wrong`: how far each judge agrees with people's labels on its values, per metric
//! definition and version (labelled count, agreement, Cohen's κ), and labelling a value from
//! a script. Labels are a local service extension (`/v1/metric/annotations`); where a service
//! has no such route the console keeps its `+`/`-` labels in the local cache, and agreement
//! counts those too, saying which they are. A service without labels anywhere is said to
//! have none, never shown as full agreement. A judged value with no value (DATA_MISSING: the
//! offline judge abstained, or there was nothing to read) cannot be labelled and is no
//! judgement; the report says how many the labelled calls hold, per judged metric.

use std::collections::BTreeMap;

use clap::{Subcommand, ValueEnum};
use serde::Serialize;
use uuid::Uuid;

use super::exit::{Exit, Failure, Outcome};
use super::output::{self, Format, table_of};
use super::session::Session;
use crate::api::Error;
use crate::api::model::{Annotation, AnnotationInput, AnnotationLabel, CalculationType};
use crate::columns::agreement as agreement_columns;
use crate::compare::agreement::{LOCAL_LABELS, Labels, WithoutJudgement, missing_values};
use crate::compare::{JudgeAgreement, agreement};

#[derive(Debug, Subcommand)]
pub enum JudgeCommand {
    /// Per metric definition and version: values labelled, agreement with the judge, Cohen's κ.
    Agreement {
        /// Only this metric (id or slug).
        #[arg(long)]
        metric: Option<String>,
    },
    /// Label a judged value on a call right or wrong (labelling it again replaces the label).
    Label {
        /// The call the value is on.
        call: Uuid,
        /// The metric (id or slug).
        metric: String,
        #[arg(value_enum)]
        label: Verdict,
        /// Which of the metric's values on the call, from 0 (for a metric with one value, 0).
        #[arg(long, default_value_t = 0)]
        index: u32,
        /// Why, in your words.
        #[arg(long)]
        note: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Verdict {
    Right,
    Wrong,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    schema_version: u32,
    /// Per definition and version, by name then version.
    judges: &'a [JudgeAgreement],
    /// Whether the service keeps labels (it has the labels route).
    service_labels: bool,
    /// Labels counted from the console's local cache, and where it is; null when none were.
    local_cache: Option<&'a LocalCache>,
    /// Per judged metric, its values with no value on the labelled calls (not judgements, so
    /// not counted above); null when the calls' metrics could not be read.
    without_judgement: Option<&'a [WithoutJudgement]>,
}

/// The console's local cache, where it kept labels the service could not.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LocalCache {
    path: String,
    labels: usize,
}

pub async fn run(command: JudgeCommand, session: &Session) -> Outcome {
    match command {
        JudgeCommand::Agreement { metric } => agreement_report(session, metric.as_deref()).await,
        JudgeCommand::Label { call, metric, label, index, note } => {
            if session.read_only {
                return Err(Failure::new(Exit::Usage, "read_only", "read-only: labelling is a write"));
            }
            let definition = session.client.get_metric_definition(&metric).await?;
            let input = AnnotationInput {
                call_id: Some(call),
                metric_definition_id: Some(definition.id),
                value_index: Some(i64::from(index)),
                label: Some(match label {
                    Verdict::Right => AnnotationLabel::Right,
                    Verdict::Wrong => AnnotationLabel::Wrong,
                }),
                note,
                ..Default::default()
            };
            let annotation = session.client.annotate(&input).await.map_err(no_route)?;
            let text = match session.format.resolve() {
                Format::Json | Format::Jsonl => output::json(&annotation)?,
                _ => format!(
                    "labelled {} on call {call} {} (the judge said {})\n",
                    definition.name.as_deref().unwrap_or("the value"),
                    annotation.label,
                    judged(&annotation)
                ),
            };
            output::emit(&text)?;
            Ok(Exit::Ok)
        }
    }
}

/// What the judge said, briefly.
fn judged(annotation: &Annotation) -> String {
    match (annotation.answers(), &annotation.judge_label, annotation.judge_value) {
        (Some((true, _)), _, _) => "yes".into(),
        (Some((false, _)), _, _) => "no".into(),
        (None, Some(label), _) => label.clone(),
        (None, None, Some(value)) => format!("{value}"),
        _ => "—".into(),
    }
}

/// Whether the service has no labels route (a 404 or 405 that names no parameter).
fn is_no_route(error: &Error) -> bool {
    matches!(error.status(), Some(404 | 405)) && error.api().is_none_or(|a| a.param.is_none())
}

/// A service without the labels route says so in words, not as a bare 404.
fn no_route(error: Error) -> Failure {
    if is_no_route(&error) {
        return no_labels();
    }
    Failure::from(error)
}

fn no_labels() -> Failure {
    Failure::new(
        Exit::NotFound,
        "no_annotations",
        "this service keeps no labels on judged values (POST/GET /v1/metric/annotations is a local service \
             extension): label in the console, which keeps them in the local cache, or use the local service",
    )
}

async fn agreement_report(session: &Session, metric: Option<&str>) -> Outcome {
    let client = &session.client;
    let metric = match metric {
        Some(m) => Some(client.get_metric_definition(m).await?.id),
        None => None,
    };
    let service = match crate::compare::fetch::labels(client, metric).await {
        Ok(labels) => Some(labels),
        Err(error) if is_no_route(&error) => None,
        Err(error) => return Err(Failure::from(error)),
    };
    let cache = session.console_cache();
    let cached: Vec<Annotation> = cache
        .as_ref()
        .and_then(|c| c.mark::<Vec<Annotation>>(LOCAL_LABELS))
        .unwrap_or_default()
        .into_iter()
        .filter(|a| metric.is_none_or(|m| a.metric_definition_id == m))
        .collect();
    let service_labels = service.is_some();
    let labels = match service {
        Some(labels) => Labels::merge(labels, cached),
        None if !cached.is_empty() => Labels::merge(Vec::new(), cached),
        // No labels anywhere: the words, not an empty table.
        None => return Err(no_labels()),
    };
    let local_cache = match (&cache, labels.local.len()) {
        (Some(cache), n) if n > 0 => Some(LocalCache { path: cache.path().display().to_string(), labels: n }),
        _ => None,
    };
    let mut names = BTreeMap::new();
    for id in labels.labels.iter().map(|a| a.metric_definition_id) {
        if let std::collections::btree_map::Entry::Vacant(entry) = names.entry(id)
            && let Ok(definition) = client.get_metric_definition(&id.to_string()).await
        {
            entry.insert(definition.name.unwrap_or_else(|| id.to_string()));
        }
    }
    let rows = agreement(&labels.labels, &labels.local, &names);
    if rows.is_empty() {
        // Nothing to agree on is not a report: exit 4, as docs/cli.md says.
        return Err(Failure::new(Exit::NotFound, "no_annotations", render(&rows).trim_end()));
    }
    let without = without_judgement(session, &labels.labels, metric).await;
    let text = match session.format.resolve() {
        Format::Json | Format::Jsonl => output::json(&Report {
            schema_version: 1,
            judges: &rows,
            service_labels,
            local_cache: local_cache.as_ref(),
            without_judgement: without.as_deref(),
        })?,
        _ => {
            let mut text = render(&rows);
            match &without {
                Some(without) => text.push_str(&render_without(without)),
                None => text.push_str(
                    "the labelled calls' metrics could not be read: values without a judgement are not counted\n",
                ),
            }
            if !service_labels {
                text.push_str(
                    "this service keeps no labels (POST/GET /v1/metric/annotations is a local service extension): \
                     only the console's local cache is counted\n",
                );
            }
            if let Some(local) = &local_cache {
                text.push_str(&format!(
                    "{} label(s) counted as local in LABELLED came from the console's local cache {}, kept there \
                     where the service had no labels route; their metric version is not known\n",
                    local.labels, local.path
                ));
            }
            text
        }
    };
    output::emit(&text)?;
    Ok(Exit::Ok)
}

/// The judged metrics' values with no value on the calls people labelled, per metric; None
/// when the calls' metrics could not be read.
async fn without_judgement(
    session: &Session,
    labels: &[Annotation],
    metric: Option<Uuid>,
) -> Option<Vec<WithoutJudgement>> {
    let client = &session.client;
    let mut calls: Vec<Uuid> = labels.iter().map(|a| a.call_id).collect();
    calls.sort();
    calls.dedup();
    let groups = match crate::compare::fetch::calls_metrics(client, calls).await {
        Ok(groups) => groups,
        Err(error) => {
            tracing::warn!("reading the labelled calls' metrics failed: {error}");
            return None;
        }
    };
    let mut out = Vec::new();
    for (id, values) in missing_values(&groups).into_iter().filter(|(id, _)| metric.is_none_or(|m| m == *id)) {
        // Only a judge's metrics: a computed metric missing its input is not a judgement withheld.
        let Ok(definition) = client.get_metric_definition(&id.to_string()).await else { continue };
        if definition.calculation_type == Some(CalculationType::LlmJudge) {
            let name = definition.name.unwrap_or_else(|| id.to_string());
            out.push(WithoutJudgement { metric_definition_id: id, name, values });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Some(out)
}

fn render_without(without: &[WithoutJudgement]) -> String {
    without
        .iter()
        .map(|w| {
            format!(
                "{}: {} value(s) on the labelled calls have no judgement (DATA_MISSING: the judge abstained, or had \
                 nothing to read); they cannot be labelled and are not counted above\n",
                w.name, w.values
            )
        })
        .collect()
}

fn render(rows: &[JudgeAgreement]) -> String {
    if rows.is_empty() {
        return "no labelled values yet: label one with + or - in the console's call view, or \
                `switchboard judge label CALL METRIC right|wrong`\n"
            .into();
    }
    table_of(agreement_columns::CLI, rows)
}
