//! The columns of metric definitions (`switchboard metric list|get`, the console's metrics
//! tab), metric policies, collection jobs and the values they produced (`metric values`).

use ratatui::layout::Constraint::{Fill, Length};

use super::{Column, Holds, by, fit, fixed, or_dash, text_cmp};
use crate::api::model::{CollectionJob, MetricDefinition, MetricPolicy, MetricValue, MetricValueGroup};

/// A column of an optional wire enum, shown as `—` when missing and sorted by its text.
macro_rules! enum_column {
    ($title:expr, $width:expr, |$x:ident: &$ty:ty| $value:expr) => {
        Column::new($title, $width, |$x: &$ty| or_dash($value.map(|v| v.as_str()))).by(|a: &$ty, b: &$ty| {
            let text = |$x: &$ty| $value.map(|v| v.as_str().to_string());
            text_cmp(text(a).as_deref(), text(b).as_deref())
        })
    };
}

/// A definition's name for people: its name, else its slug, else its id.
pub fn name(d: &MetricDefinition) -> String {
    d.name.clone().or_else(|| d.slug_or_alias().map(str::to_string)).unwrap_or_else(|| d.id.to_string())
}

/// The contexts it may be collected in, `—` for none.
pub fn contexts(d: &MetricDefinition) -> String {
    let all: Vec<&str> = d.supported_contexts.iter().map(|c| c.as_str()).collect();
    if all.is_empty() { "—".into() } else { all.join(",") }
}

pub const ID: Column<MetricDefinition> = Column::text("ID", |d: &MetricDefinition| d.id.to_string());

pub const SLUG: Column<MetricDefinition> = Column::text("SLUG", |d: &MetricDefinition| or_dash(d.slug_or_alias()));

/// The name as sent (empty when it has none); the console falls back to the slug or id.
pub const NAME: Column<MetricDefinition> =
    Column::new("NAME", fixed(Fill(3)), |d: &MetricDefinition| d.name.clone().unwrap_or_default())
        .by(|a, b| text_cmp(Some(&name(a)), Some(&name(b))));

pub const TYPE: Column<MetricDefinition> =
    enum_column!("TYPE", fit(4, 14), |d: &MetricDefinition| d.metric_type.as_ref());

pub const CALCULATION: Column<MetricDefinition> =
    enum_column!("CALCULATION", fixed(Length(11)), |d: &MetricDefinition| d.calculation_type.as_ref());

pub const SCOPE: Column<MetricDefinition> = enum_column!("SCOPE", fit(5, 15), |d: &MetricDefinition| d.scope.as_ref());

pub const VERSION: Column<MetricDefinition> =
    Column::new("VER", fixed(Length(3)), |d: &MetricDefinition| or_dash(d.version)).by(|a, b| by(a.version, b.version));

pub const CONTEXTS: Column<MetricDefinition> =
    Column::new("CONTEXTS", fit(8, 16), contexts).by(|a, b| contexts(a).cmp(&contexts(b)));

/// Whether it is a check (a pass/fail a verdict counts).
pub const CHECK: Column<MetricDefinition> =
    Column::text("CHECK", |d: &MetricDefinition| if d.is_check() { "yes" } else { "no" }.into());

/// What `metric list` and `metric get` print.
pub const CLI: &[Column<MetricDefinition>] = &[ID, SLUG, NAME, TYPE, CALCULATION, CHECK, VERSION];

pub const POLICY_NAME: Column<MetricPolicy> =
    Column::new("NAME", fixed(Fill(2)), |p: &MetricPolicy| or_dash(p.name.as_deref()))
        .by(|a, b| text_cmp(a.name.as_deref(), b.name.as_deref()));

pub const POLICY_STATUS: Column<MetricPolicy> = enum_column!("STATUS", fit(6, 8), |p: &MetricPolicy| p.status.as_ref());

pub const POLICY_TYPE: Column<MetricPolicy> =
    enum_column!("TYPE", fit(4, 8), |p: &MetricPolicy| p.policy_type.as_ref());

pub const POLICY_MODALITY: Column<MetricPolicy> =
    enum_column!("MODALITY", fixed(Length(8)), |p: &MetricPolicy| p.modality.as_ref());

/// How many metrics it collects; the console names them.
pub const POLICY_METRICS: Column<MetricPolicy> =
    Column::new("METRICS", fixed(Fill(3)), |p: &MetricPolicy| p.metrics.len().to_string())
        .by(|a, b| a.metrics.len().cmp(&b.metrics.len()));

/// How many condition groups say when it applies; the console spells them out.
pub const POLICY_WHEN: Column<MetricPolicy> =
    Column::new("WHEN", fixed(Fill(2)), |p: &MetricPolicy| p.conditions.len().to_string())
        .by(|a, b| a.conditions.len().cmp(&b.conditions.len()));

fn progress(j: &CollectionJob) -> Option<f64> {
    Some(j.completed_items? as f64 / j.total_items?.max(1) as f64)
}

/// A collection job by the first eight characters of its id.
pub const JOB_ID: Column<CollectionJob> =
    Column::new("JOB", fixed(Length(8)), |j: &CollectionJob| j.id.to_string()[..8].to_string())
        .by(|a, b| a.id.cmp(&b.id));

pub const JOB_STATUS: Column<CollectionJob> = enum_column!("STATUS", fit(6, 10), |j: &CollectionJob| j.status.as_ref());

pub const JOB_TRIGGER: Column<CollectionJob> =
    enum_column!("TRIGGER", fit(7, 13), |j: &CollectionJob| j.triggered_by.as_ref());

/// Items done of all: `13/14`.
pub const JOB_PROGRESS: Column<CollectionJob> = Column::new("PROGRESS", fixed(Length(16)), |j: &CollectionJob| {
    format!("{}/{}", j.completed_items.unwrap_or(0), j.total_items.unwrap_or(0))
})
.by(|a, b| by(progress(a), progress(b)));

pub const JOB_FAILED: Column<CollectionJob> =
    Column::new("FAILED", fixed(Length(6)), |j: &CollectionJob| or_dash(j.failed_items))
        .by(|a, b| by(a.failed_items, b.failed_items));

pub const JOB_STARTED: Column<CollectionJob> =
    Column::new("STARTED", fixed(Fill(1)), |j: &CollectionJob| or_dash(j.started_at.as_ref()))
        .by(|a, b| by(a.started_at.as_ref(), b.started_at.as_ref()));

/// A value's metric for people: its name, else its slug, else its id.
pub fn group_name(group: &MetricValueGroup) -> String {
    group.name.clone().or_else(|| group.slug.clone()).unwrap_or_else(|| group.metric_definition_id.to_string())
}

pub const VALUE_METRIC: Column<MetricValueGroup> = Column::text("METRIC", group_name);

/// The call's (else the chat's) whole id.
pub const VALUE_CALL: Column<MetricValue> = Column::text("CALL", |v: &MetricValue| or_dash(v.call_id.or(v.chat_id)));

pub const VALUE_STATUS: Column<MetricValue> =
    Column::text("STATUS", |v: &MetricValue| or_dash(v.capture_status.as_ref()));

/// Its label, else its number.
pub const VALUE_VALUE: Column<MetricValue> =
    Column::text("VALUE", |v: &MetricValue| or_dash(v.label.clone().or(v.value.map(|n| n.to_string()))));

/// The judge's reasoning, else why it was not captured.
pub const VALUE_REASONING: Column<MetricValue> = Column::text("REASONING", |v: &MetricValue| {
    v.value_reasoning.clone().or(v.error_message.clone()).unwrap_or_default()
});

/// What `metric values` prints, on any row that holds a value and its metric's group.
pub const fn values<R: Holds<MetricValueGroup> + Holds<MetricValue>>() -> [Column<R>; 5] {
    [
        crate::column_on!(VALUE_METRIC, R),
        crate::column_on!(VALUE_CALL, R),
        crate::column_on!(VALUE_STATUS, R),
        crate::column_on!(VALUE_VALUE, R),
        crate::column_on!(VALUE_REASONING, R),
    ]
}
