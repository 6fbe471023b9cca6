//! The three lists of the metrics tab: definitions, policies and collection jobs, with their
//! columns as the console draws them.

use std::collections::HashMap;

use ratatui::layout::Constraint::Fill;
use ratatui::text::{Line, Span};

use super::Metrics;
use crate::api::model::*;
use crate::columns::{Column, by, fit, fixed, metric};
use crate::console::panes::section::{Section, status_cell};
use crate::console::theme::Theme;
use crate::console::widgets::stats::gauge;
use crate::console::widgets::table::{self, Cell, Columns, Context, Shown};
use crate::console::widgets::text::{or_dash, when};

/// What a definition's row draws on besides the definition: built once a frame.
pub struct DefinitionRows {
    /// The names of the definitions thresholds compare (their source metric).
    pub names: HashMap<uuid::Uuid, String>,
    pub agreement: Vec<crate::compare::JudgeAgreement>,
    /// Whether the labels are this machine's own, not the service's.
    pub local: bool,
}

pub const DEFINITION_COLUMNS: &[Shown<MetricDefinition, DefinitionRows>] = &[
    Shown::drawn(metric::NAME, |d, _| Cell::from(name(d))),
    Shown::plain(metric::TYPE),
    Shown::plain(metric::CALCULATION),
    Shown::plain(metric::SCOPE),
    Shown::plain(metric::VERSION),
    Shown::plain(metric::CONTEXTS),
    Shown::drawn(THRESHOLD, |d, cx| {
        Cell::from(match &d.threshold {
            Some(t) => threshold_text(t, &source_name(&cx.of.names, t.source_metric_definition_id)),
            None => "—".into(),
        })
    }),
    Shown::drawn(AGREEMENT, |d, cx| {
        let row = cx.of.agreement.iter().find(|r| r.metric_definition_id == d.id);
        Cell::from(agreement_text(row, cx.of.local))
    }),
];

/// Definitions with a threshold sort before those without.
fn by_threshold(a: &MetricDefinition, b: &MetricDefinition) -> std::cmp::Ordering {
    by(a.threshold.is_some().then_some(0), b.threshold.is_some().then_some(0))
}

/// What a definition's threshold compares, its source by id (the console names it).
const THRESHOLD: Column<MetricDefinition> = Column::new("THRESHOLD", fixed(Fill(3)), |d: &MetricDefinition| {
    d.threshold.as_ref().map_or("—".into(), |t| {
        threshold_text(t, &or_dash(t.source_metric_definition_id.map(|id| id.to_string()).as_deref()))
    })
})
.by(by_threshold);

/// People's agreement with the judge: only the pane knows the labels. Sorted as THRESHOLD.
const AGREEMENT: Column<MetricDefinition> = Column::new("AGREEMENT", fit(9, 22), |_| "—".into()).by(by_threshold);

/// Drawn for the metrics pane, which knows the definitions and the agents.
pub const POLICY_COLUMNS: &[Shown<MetricPolicy, Metrics>] = &[
    Shown::plain(metric::POLICY_NAME),
    Shown::drawn(metric::POLICY_STATUS, |p, cx| status_cell(cx.theme, p.status.as_ref().map(|s| s.as_str()))),
    Shown::plain(metric::POLICY_TYPE),
    Shown::plain(metric::POLICY_MODALITY),
    Shown::drawn(metric::POLICY_METRICS, |p, cx| {
        let all = &cx.of.definitions.list.items;
        let metrics: Vec<String> = p.metrics.iter().map(|m| definition_name(all, Some(m.id))).collect();
        Cell::from(format!("{} · {}", metrics.len(), metrics.join(", ")))
    }),
    Shown::drawn(metric::POLICY_WHEN, |p, cx| Cell::from(conditions_text(p, &cx.of.agents))),
];

pub const JOB_COLUMNS: &[Shown<CollectionJob>] = &[
    Shown::plain(metric::JOB_ID),
    Shown::drawn(metric::JOB_STATUS, |j, cx| status_cell(cx.theme, j.status.as_ref().map(|s| s.as_str()))),
    Shown::plain(metric::JOB_TRIGGER),
    Shown::drawn(metric::JOB_PROGRESS, |j, cx| Cell::from(progress_line(j, cx.theme))),
    Shown::plain(metric::JOB_FAILED),
    Shown::drawn(metric::JOB_STARTED, |j, _| Cell::from(when(j.started_at.as_ref()))),
];

/// Width of the job progress bar inside its column.
const GAUGE: usize = 8;

pub fn definitions() -> Section<MetricDefinition, DefinitionRows> {
    Section::new(
        "metric definitions",
        DEFINITION_COLUMNS,
        |d| d.id.to_string(),
        |d| {
            format!(
                "{} {} {} {}",
                name(d),
                d.slug_or_alias().unwrap_or(""),
                d.metric_type.as_ref().map_or("", |t| t.as_str()),
                d.calculation_type.as_ref().map_or("", |t| t.as_str())
            )
        },
    )
}

pub fn policies() -> Section<MetricPolicy, Metrics> {
    Section::new(
        "metric policies",
        POLICY_COLUMNS,
        |p| p.id.to_string(),
        |p| format!("{} {}", p.name.as_deref().unwrap_or(""), p.status.as_ref().map_or("", |s| s.as_str())),
    )
}

pub fn jobs() -> Section<CollectionJob> {
    Section::new(
        "collection jobs",
        JOB_COLUMNS,
        |j| j.id.to_string(),
        |j| {
            format!(
                "{} {} {}",
                j.id,
                j.status.as_ref().map_or("", |s| s.as_str()),
                j.triggered_by.as_ref().map_or("", |s| s.as_str())
            )
        },
    )
}

/// A threshold operator as a symbol; unknown operators as their wire text.
pub fn operator(op: &ThresholdOperator) -> &str {
    match op {
        ThresholdOperator::GreaterThan => ">",
        ThresholdOperator::GreaterThanOrEquals => "≥",
        ThresholdOperator::LessThan => "<",
        ThresholdOperator::LessThanOrEquals => "≤",
        ThresholdOperator::Equals => "=",
        ThresholdOperator::NotEquals => "≠",
        other => other.as_str(),
    }
}

/// `Call duration > 120 · AVERAGE`: what a threshold compares.
pub fn threshold_text(t: &Threshold, source: &str) -> String {
    let mut text = format!(
        "{source} {} {}",
        t.operator.as_ref().map_or("?", operator),
        t.threshold_value.as_deref().unwrap_or("?")
    );
    if let Some(mode) = &t.aggregation_mode {
        text.push_str(" · ");
        text.push_str(mode.as_str());
    }
    if let Some(n) = t.count_threshold {
        text.push_str(&format!(" ≥{n}×"));
    }
    text
}

pub use crate::columns::metric::name;

/// The name of definition `id` if it is known, else the id.
fn source_name(names: &HashMap<uuid::Uuid, String>, id: Option<uuid::Uuid>) -> String {
    let Some(id) = id else { return "—".into() };
    names.get(&id).cloned().unwrap_or_else(|| id.to_string())
}

/// The names of the definitions `all`'s thresholds compare.
pub fn source_names(all: &[MetricDefinition]) -> HashMap<uuid::Uuid, String> {
    let sources = all.iter().filter_map(|d| d.threshold.as_ref()?.source_metric_definition_id);
    sources.filter_map(|id| Some((id, name(all.iter().find(|d| d.id == id)?)))).collect()
}

/// The name of definition `id` if it is listed, else the id.
pub fn definition_name(definitions: &[MetricDefinition], id: Option<uuid::Uuid>) -> String {
    let Some(id) = id else { return "—".into() };
    definitions.iter().find(|d| d.id == id).map(name).unwrap_or_else(|| id.to_string())
}

/// The AGREEMENT cell: people's labels on the definition's current version, with Cohen's κ
/// for a yes/no metric (`κ 0.62 · 14`), or the share labelled right.
pub fn agreement_text(row: Option<&crate::compare::JudgeAgreement>, local: bool) -> String {
    let Some(row) = row else { return "—".into() };
    let local = if local { " (local)" } else { "" };
    match (row.kappa, row.agreement) {
        (Some(k), _) => format!("κ {k:.2} · {}{local}", row.labelled),
        (None, Some(a)) => format!("{} · {}{local}", crate::api::model::percent(a), row.labelled),
        (None, None) => "—".into(),
    }
}

/// A condition's value, with the agent's name when it names a known agent.
pub fn condition_value(c: &Condition, agents: &[Agent]) -> String {
    let value = or_dash(c.condition_value.as_deref());
    if c.condition_key.as_deref() == Some("agentId")
        && let Some(name) = agents.iter().find(|a| a.id.to_string() == value).and_then(|a| a.name.clone())
    {
        return name;
    }
    value
}

/// `agentId = …` conditions: groups are alternatives, conditions inside a group all hold.
pub fn conditions_text(p: &MetricPolicy, agents: &[Agent]) -> String {
    if p.conditions.iter().all(|g| g.conditions.is_empty()) {
        return format!("every {}", p.modality.as_ref().map_or("call or chat", |m| m.as_str()));
    }
    let groups: Vec<String> = p
        .conditions
        .iter()
        .map(|g| {
            let all: Vec<String> = g
                .conditions
                .iter()
                .map(|c| {
                    let op = match &c.condition_operator {
                        Some(ConditionOperator::NotEquals) => "≠".to_string(),
                        Some(ConditionOperator::Equals) | None => "=".to_string(),
                        Some(other) => other.as_str().to_string(),
                    };
                    format!("{} {op} {}", or_dash(c.condition_key.as_deref()), condition_value(c, agents))
                })
                .collect();
            all.join(" and ")
        })
        .collect();
    groups.join(" or ")
}

/// `████████ 13/14`: a job's progress bar and items, in the colour of its status.
pub fn progress_line(j: &CollectionJob, theme: &Theme) -> Line<'static> {
    let status = j.status.as_ref().map_or("—", |s| s.as_str());
    let (done, total) = (j.completed_items.unwrap_or(0), j.total_items.unwrap_or(0));
    Line::from(vec![
        Span::styled(gauge(done, total, GAUGE), theme.status(status)),
        Span::raw(format!(" {done}/{total}")),
    ])
}

/// Draws a section; below `values::WIDE` cells its last column is left out when `narrow_drops`,
/// so names keep room.
pub fn draw<T: Clone + serde::Serialize + serde::de::DeserializeOwned, X>(
    section: &Section<T, X>,
    narrow_drops: bool,
    frame: &mut ratatui::Frame,
    area: ratatui::layout::Rect,
    context: Context<'_, X>,
    hidden: usize,
) {
    // `hidden` trailing columns are not shown at all (AGREEMENT before anything is labelled);
    // a narrow screen drops one more.
    let drop = usize::from(narrow_drops && area.width < crate::console::widgets::values::WIDE);
    let columns = &section.columns[..section.columns.len().saturating_sub(hidden + drop)];
    let view = Columns { title: section.title.to_string(), columns, context, focused: true, empty: "nothing here yet" };
    table::draw_columns(frame, area, &section.list, view);
}
