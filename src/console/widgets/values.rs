//! Metric values as table rows: shared by a job's values, a call's values and the metrics tab.
//! A value that was not computed shows its capture status as text, never colour alone.

use std::sync::Arc;

use ratatui::layout::Constraint::{Fill, Length};
use ratatui::text::Line;

use super::detail::Lines;
use super::list::by;
use super::table::{Cell, Context, Shown};
use super::text::{fit, number, offset_ms, or_dash, when};
use crate::api::model::{MetricType, MetricValue, MetricValueGroup, Segment};
use crate::columns::{Column, fixed};
use crate::console::marks::MARKER;
use crate::console::theme::Theme;

/// The metric a value belongs to, shared by all its values.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricLabel {
    pub id: uuid::Uuid,
    pub name: String,
    pub unit: Option<String>,
    /// True for BOOLEAN metrics, thresholds among them: 1 and 0 read as true and false.
    pub yes_no: bool,
}

/// One value with its metric: a row of a values table.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueRow {
    pub metric: Arc<MetricLabel>,
    pub value: MetricValue,
    /// Its place among its metric's values on the conversation, from 0 (what a label names).
    pub index: usize,
}

impl serde::Serialize for ValueRow {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("ValueRow", 3)?;
        s.serialize_field("metricDefinitionId", &self.metric.id)?;
        s.serialize_field("metric", &self.metric.name)?;
        s.serialize_field("value", &self.value)?;
        s.end()
    }
}

/// Flattens a job's or call's value groups into rows, one per value.
pub fn rows(groups: &[MetricValueGroup]) -> Vec<ValueRow> {
    let mut out = Vec::new();
    for group in groups {
        let metric = Arc::new(MetricLabel {
            id: group.metric_definition_id,
            name: crate::columns::metric::group_name(group),
            unit: group.unit.as_ref().and_then(|u| u.symbol.clone().or_else(|| u.name.clone())),
            yes_no: group.metric_type == Some(MetricType::Boolean),
        });
        out.extend(group.values.iter().enumerate().map(|(index, value)| ValueRow {
            metric: metric.clone(),
            value: value.clone(),
            index,
        }));
    }
    out
}

/// How many characters of a step's text a row keeps: enough to tell the steps apart.
const STEP_TEXT: usize = 32;

/// A value about one script step, named by the step as the script names it (`Step 7: Agent
/// offers another …`, `Step "offer": …`), first so a narrow column still shows it (the
/// metric's name would take all the room; its detail names it).
pub fn step_name(row: &ValueRow) -> Option<String> {
    let (reference, text) = row.value.step()?;
    let short = match text.char_indices().nth(STEP_TEXT) {
        // Cut after the last whole word that fits.
        Some((cut, next)) => {
            let head = &text[..cut];
            let words = if next == ' ' { head } else { head.rsplit_once(' ').map_or(head, |(words, _)| words) };
            format!("{words}…")
        }
        None => text.to_string(),
    };
    Some(if reference.is_empty() { format!("Step: {short}") } else { format!("Step {reference}: {short}") })
}

pub const METRIC: Column<ValueRow> = Column::new("METRIC", fixed(Fill(2)), |r: &ValueRow| r.metric.name.clone())
    .by(|a, b| a.metric.name.cmp(&b.metric.name));
/// The call's or chat's id, short.
pub const CONVERSATION: Column<ValueRow> = Column::new("CALL/CHAT", fixed(Length(10)), |r: &ValueRow| short(r))
    .by(|a, b| conversation_id(a).cmp(&conversation_id(b)));
pub const CONTEXT: Column<ValueRow> =
    Column::new("CONTEXT", fixed(Length(13)), |r: &ValueRow| or_dash(r.value.context.as_ref().map(|c| c.as_str())))
        .by(|a, b| by(a.value.context.as_ref().map(|c| c.as_str()), b.value.context.as_ref().map(|c| c.as_str())));
pub const ROLE: Column<ValueRow> =
    Column::new("ROLE", fixed(Length(8)), |r: &ValueRow| or_dash(r.value.participant_role.as_deref()))
        .by(|a, b| by(a.value.participant_role.as_deref(), b.value.participant_role.as_deref()));
/// The value when captured, else its capture status.
pub const VALUE: Column<ValueRow> = Column::new("VALUE / STATUS", fixed(Fill(1)), |r: &ValueRow| {
    shown(r).filter(|_| status_str(r) == "SUCCESS").unwrap_or_else(|| status(r))
})
.by(|a, b| by(a.value.value, b.value.value).then_with(|| status(a).cmp(&status(b))));
pub const CONF: Column<ValueRow> = Column::new("CONF", fixed(Length(5)), |r: &ValueRow| {
    r.value.confidence.map(|c| format!("{c:.2}")).unwrap_or_else(|| "—".into())
})
.by(|a, b| by(a.value.confidence, b.value.confidence));
pub const COMPUTED: Column<ValueRow> =
    Column::new("COMPUTED", fixed(Length(19)), |r: &ValueRow| when(r.value.computed_at.as_ref()))
        .by(|a, b| by(a.value.computed_at.as_ref(), b.value.computed_at.as_ref()));

/// Narrower than this, the values table leaves out when a value was computed, so the values
/// and their capture statuses keep room to be read.
pub const WIDE: u16 = 100;

/// A values table (a job's, the metrics tab's); a marked call or chat shows `MARKER` before its id.
pub const COLUMNS: &[Shown<ValueRow>] = &[
    Shown::plain(METRIC),
    Shown::drawn(CONVERSATION, |r, cx| match cx.marks.contains(conversation_id(r)) {
        true => Cell::from(format!("{MARKER}{}", short(r))).style(cx.theme.key()),
        false => Cell::from(short(r)),
    }),
    Shown::plain(CONTEXT),
    Shown::plain(ROLE),
    Shown::drawn(VALUE, value_cell),
    Shown::plain(CONF),
    Shown::plain(COMPUTED).at_least(WIDE),
];

/// A value, or its capture status as text in the status's colour.
pub fn value_cell<X>(row: &ValueRow, cx: &Context<'_, X>) -> Cell<'static> {
    let status = status(row);
    match (status.as_str(), shown(row)) {
        ("SUCCESS", Some(shown)) => Cell::from(shown),
        (_, _) => Cell::from(status.clone()).style(cx.theme.status(&status)),
    }
}

/// The first eight characters of the value's call or chat id.
fn short(row: &ValueRow) -> String {
    conversation_id(row).map(|id| id.to_string()[..8].to_string()).unwrap_or_else(|| "—".into())
}

/// The capture status text ("SUCCESS" when absent but a value is there).
pub fn status(row: &ValueRow) -> String {
    status_str(row).to_string()
}

/// `status` without allocating, for filtering and summing 100,000 rows.
pub fn status_str(row: &ValueRow) -> &str {
    match &row.value.capture_status {
        Some(status) => status.as_str(),
        None if row.value.value.is_some() => "SUCCESS",
        None => "—",
    }
}

/// The value as a reader wants it: its label, or the number with its unit.
pub fn shown(row: &ValueRow) -> Option<String> {
    let v = &row.value;
    if let Some(label) = &v.label {
        return Some(label.clone());
    }
    // A yes/no metric (a threshold among them) with no label of its own reads as true/false.
    if row.metric.yes_no {
        match v.value? {
            1.0 => return Some("true".into()),
            0.0 => return Some("false".into()),
            _ => {}
        }
    }
    let number = number(v.value?);
    Some(match &row.metric.unit {
        Some(unit) => format!("{number} {unit}"),
        None => number,
    })
}

pub fn conversation_id(row: &ValueRow) -> Option<uuid::Uuid> {
    row.value.call_id.or(row.value.chat_id)
}

/// What `/` searches in a row.
pub fn haystack(row: &ValueRow) -> String {
    format!(
        "{} {} {} {}",
        row.metric.name,
        status(row),
        shown(row).unwrap_or_default(),
        conversation_id(row).map(|id| id.to_string()).unwrap_or_default()
    )
}

/// A value's detail: what it is, why (`valueReasoning`), and the segments it points at.
pub fn detail(row: &ValueRow, theme: &Theme) -> Vec<Line<'static>> {
    let v = &row.value;
    let mut lines = Lines::new(theme);
    lines.kv("metric", row.metric.name.clone());
    lines.status("capture status", Some(&status(row)));
    lines.kv("value", shown(row).unwrap_or_else(|| "— (not computed)".into()));
    lines.opt("confidence", v.confidence.map(|c| format!("{c:.2}")));
    lines.opt("call", v.call_id).opt("chat", v.chat_id);
    lines.opt("context", v.context.as_ref().map(|c| c.as_str().to_string()));
    lines.opt("participant role", v.participant_role.as_ref());
    lines.kv("computed at", when(v.computed_at.as_ref()));
    if !v.policy_ids.is_empty() {
        lines.list("policies", v.policy_ids.iter());
    }
    if let Some(error) = &v.error_message {
        lines.section("error").text(error);
    }
    lines.section("reasoning").text(&or_dash(v.value_reasoning.as_deref()));
    let segments: Vec<(&str, &Segment)> = [("segment", &v.segment), ("from", &v.from_segment), ("to", &v.to_segment)]
        .into_iter()
        .filter_map(|(name, s)| s.as_ref().map(|s| (name, s)))
        .collect();
    if !segments.is_empty() {
        lines.section("segments");
        for (name, s) in segments {
            let at = match (s.start_offset_ms, s.end_offset_ms) {
                (Some(a), Some(b)) => format!("{}–{}", offset_ms(a), offset_ms(b)),
                (Some(a), None) => offset_ms(a),
                _ => "—".into(),
            };
            lines.kv(name, format!("{at}  {}", fit(s.text.as_deref().unwrap_or(""), 400)));
        }
    }
    lines.lines
}
