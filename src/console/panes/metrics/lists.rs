//! The three lists of the metrics tab: definitions, policies and collection jobs, with their
//! columns, cells, filters and sort orders.

use crate::console::widgets::table::Cell;
use ratatui::layout::Constraint::{Fill, Length};
use ratatui::text::{Line, Span};

use crate::api::model::*;
use crate::console::panes::section::{Section, status_cell, text_cmp};
use crate::console::theme::Theme;
use crate::console::widgets::list::by;
use crate::console::widgets::stats::gauge;
use crate::console::widgets::table::{Column, col, fitted};
use crate::console::widgets::text::{or_dash, when};

pub const DEFINITION_COLUMNS: &[Column] = &[
    col("NAME", Fill(3)),
    fitted("TYPE", 4, 14),
    col("CALCULATION", Length(11)),
    fitted("SCOPE", 5, 15),
    col("VER", Length(3)),
    fitted("CONTEXTS", 8, 16),
    col("THRESHOLD", Fill(3)),
    fitted("AGREEMENT", 9, 22),
];
pub const POLICY_COLUMNS: &[Column] = &[
    col("NAME", Fill(2)),
    fitted("STATUS", 6, 8),
    fitted("TYPE", 4, 8),
    col("MODALITY", Length(8)),
    col("METRICS", Fill(3)),
    col("WHEN", Fill(2)),
];
pub const JOB_COLUMNS: &[Column] = &[
    col("JOB", Length(8)),
    fitted("STATUS", 6, 10),
    fitted("TRIGGER", 7, 13),
    col("PROGRESS", Length(16)),
    col("FAILED", Length(6)),
    col("STARTED", Fill(1)),
];

/// Width of the job progress bar inside its column.
const GAUGE: usize = 8;

pub fn definitions() -> Section<MetricDefinition> {
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
        |a, b, c| match c {
            0 => text_cmp(Some(&name(a)), Some(&name(b))),
            1 => text_cmp(a.metric_type.as_ref().map(|t| t.as_str()), b.metric_type.as_ref().map(|t| t.as_str())),
            2 => text_cmp(
                a.calculation_type.as_ref().map(|t| t.as_str()),
                b.calculation_type.as_ref().map(|t| t.as_str()),
            ),
            3 => text_cmp(a.scope.as_ref().map(|t| t.as_str()), b.scope.as_ref().map(|t| t.as_str())),
            4 => by(a.version, b.version),
            5 => contexts(a).cmp(&contexts(b)),
            _ => by(a.threshold.is_some().then_some(0), b.threshold.is_some().then_some(0)),
        },
    )
}

pub fn policies() -> Section<MetricPolicy> {
    Section::new(
        "metric policies",
        POLICY_COLUMNS,
        |p| p.id.to_string(),
        |p| format!("{} {}", p.name.as_deref().unwrap_or(""), p.status.as_ref().map_or("", |s| s.as_str())),
        |a, b, c| match c {
            0 => text_cmp(a.name.as_deref(), b.name.as_deref()),
            1 => text_cmp(a.status.as_ref().map(|s| s.as_str()), b.status.as_ref().map(|s| s.as_str())),
            2 => text_cmp(a.policy_type.as_ref().map(|s| s.as_str()), b.policy_type.as_ref().map(|s| s.as_str())),
            3 => text_cmp(a.modality.as_ref().map(|s| s.as_str()), b.modality.as_ref().map(|s| s.as_str())),
            4 => a.metrics.len().cmp(&b.metrics.len()),
            _ => a.conditions.len().cmp(&b.conditions.len()),
        },
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
        |a, b, c| match c {
            0 => a.id.cmp(&b.id),
            1 => text_cmp(a.status.as_ref().map(|s| s.as_str()), b.status.as_ref().map(|s| s.as_str())),
            2 => text_cmp(a.triggered_by.as_ref().map(|s| s.as_str()), b.triggered_by.as_ref().map(|s| s.as_str())),
            3 => by(progress(a), progress(b)),
            4 => by(a.failed_items, b.failed_items),
            _ => by(a.started_at.as_ref(), b.started_at.as_ref()),
        },
    )
}

pub fn name(d: &MetricDefinition) -> String {
    d.name.clone().or_else(|| d.slug_or_alias().map(str::to_string)).unwrap_or_else(|| d.id.to_string())
}

fn contexts(d: &MetricDefinition) -> String {
    let all: Vec<&str> = d.supported_contexts.iter().map(|c| c.as_str()).collect();
    if all.is_empty() { "—".into() } else { all.join(",") }
}

fn progress(j: &CollectionJob) -> Option<f64> {
    Some(j.completed_items? as f64 / j.total_items?.max(1) as f64)
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

pub fn definition_cells(
    d: &MetricDefinition,
    all: &[MetricDefinition],
    agreement: Option<&crate::compare::JudgeAgreement>,
    local: bool,
) -> Vec<Cell<'static>> {
    let enum_text = |t: Option<&str>| Cell::from(or_dash(t));
    vec![
        Cell::from(name(d)),
        enum_text(d.metric_type.as_ref().map(|t| t.as_str())),
        enum_text(d.calculation_type.as_ref().map(|t| t.as_str())),
        enum_text(d.scope.as_ref().map(|t| t.as_str())),
        Cell::from(d.version.map_or("—".into(), |v| v.to_string())),
        Cell::from(contexts(d)),
        Cell::from(match &d.threshold {
            Some(t) => threshold_text(t, &definition_name(all, t.source_metric_definition_id)),
            None => "—".into(),
        }),
        Cell::from(agreement_text(agreement, local)),
    ]
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

pub fn policy_cells(
    p: &MetricPolicy,
    definitions: &[MetricDefinition],
    agents: &[Agent],
    theme: &Theme,
) -> Vec<Cell<'static>> {
    let metrics: Vec<String> = p.metrics.iter().map(|m| definition_name(definitions, Some(m.id))).collect();
    vec![
        Cell::from(or_dash(p.name.as_deref())),
        status_cell(theme, p.status.as_ref().map(|s| s.as_str())),
        Cell::from(or_dash(p.policy_type.as_ref().map(|s| s.as_str()))),
        Cell::from(or_dash(p.modality.as_ref().map(|s| s.as_str()))),
        Cell::from(format!("{} · {}", metrics.len(), metrics.join(", "))),
        Cell::from(conditions_text(p, agents)),
    ]
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

pub fn job_cells(j: &CollectionJob, theme: &Theme) -> Vec<Cell<'static>> {
    vec![
        Cell::from(j.id.to_string()[..8].to_string()),
        status_cell(theme, j.status.as_ref().map(|s| s.as_str())),
        Cell::from(or_dash(j.triggered_by.as_ref().map(|s| s.as_str()))),
        Cell::from(progress_line(j, theme)),
        Cell::from(j.failed_items.map_or("—".into(), |n| n.to_string())),
        Cell::from(when(j.started_at.as_ref())),
    ]
}

/// Draws a section; below `stats::WIDE` cells its last column is left out when `narrow_drops`,
/// so names keep room.
pub fn draw<T: Clone + serde::Serialize + serde::de::DeserializeOwned>(
    section: &Section<T>,
    narrow_drops: bool,
    frame: &mut ratatui::Frame,
    area: ratatui::layout::Rect,
    theme: &Theme,
    row: &dyn Fn(&T) -> Vec<Cell<'static>>,
    hidden: usize,
) {
    // `hidden` trailing columns are not shown at all (AGREEMENT before anything is labelled);
    // a narrow screen drops one more.
    let drop = usize::from(narrow_drops && area.width < crate::console::widgets::stats::WIDE);
    let columns = &section.columns[..section.columns.len().saturating_sub(hidden + drop)];
    let view = crate::console::widgets::table::TableView {
        title: section.title.to_string(),
        columns,
        row,
        focused: true,
        empty: "nothing here yet",
    };
    crate::console::widgets::table::draw(frame, area, &section.list, view, theme);
}
