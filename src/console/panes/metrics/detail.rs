//! Every field of a metric definition (thresholds, scale labels, options, versions) and of a
//! metric policy, as detail lines.

use ratatui::text::{Line, Span};

use super::lists::{condition_value, conditions_text, definition_name, name, operator};
use crate::api::model::*;
use crate::console::theme::Theme;
use crate::console::widgets::detail::Lines;
use crate::console::widgets::text::{number, or_dash, when};

/// A definition's versions, fetched when its detail opens.
#[derive(Debug, Clone, PartialEq)]
pub enum Versions {
    Loading,
    Loaded(Vec<MetricDefinition>),
    Failed(String),
}

fn enum_list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let items: Vec<&str> = items.into_iter().collect();
    if items.is_empty() { "—".into() } else { items.join(", ") }
}

fn yes_no(value: Option<bool>) -> String {
    match value {
        Some(true) => "yes".into(),
        Some(false) => "no".into(),
        None => "—".into(),
    }
}

pub fn definition(
    d: &MetricDefinition,
    all: &[MetricDefinition],
    versions: Option<&Versions>,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut lines = Lines::new(theme);
    facts(&mut lines, d);
    lines.section("description").text(&or_dash(d.description.as_deref()));
    if let Some(t) = &d.threshold {
        threshold(&mut lines, t, all);
    }
    if d.boolean_true_label.is_some() || d.boolean_false_label.is_some() {
        lines
            .section("boolean labels")
            .kv("true", or_dash(d.boolean_true_label.as_deref()))
            .kv("false", or_dash(d.boolean_false_label.as_deref()));
    }
    if d.scale_min.is_some() || d.scale_max.is_some() || d.scale_labels.is_some() {
        scale(&mut lines, d);
    }
    if let Some(options) = &d.classification_options {
        classification(&mut lines, options, d.max_classifications);
    }
    if let Some(formula) = &d.formula {
        lines.section("formula").text(formula.expression());
    }
    if let Some(sources) = d.sources.as_ref().filter(|s| !s.is_empty()) {
        lines.section("sources");
        for s in sources {
            lines.line(Line::raw(format!("  {}", definition_name(all, s.source_metric_definition_id))));
        }
    }
    if let Some(kbs) = d.knowledge_base_ids.as_ref().filter(|k| !k.is_empty()) {
        lines.section("knowledge bases").list("ids", kbs.iter());
    }
    if let Some(prompt) = &d.llm_prompt {
        lines.section("judge prompt").text(prompt);
    }
    version_lines(&mut lines, d, versions);
    lines.section("record").kv("created", when(d.created_at.as_ref())).kv("updated", when(d.updated_at.as_ref()));
    lines.lines
}

/// What kind of metric it is and where it applies: the lines above its description.
fn facts(lines: &mut Lines, d: &MetricDefinition) {
    lines
        .kv("id", d.id.to_string())
        .kv("slug", or_dash(d.slug_or_alias()))
        .kv("type", or_dash(d.metric_type.as_ref().map(|t| t.as_str())))
        .kv("calculation", or_dash(d.calculation_type.as_ref().map(|t| t.as_str())))
        .kv("scope", or_dash(d.scope.as_ref().map(|t| t.as_str())))
        .kv("contexts", enum_list(d.supported_contexts.iter().map(|c| c.as_str())))
        .kv("conversation sources", enum_list(d.supported_conversation_sources.iter().map(|c| c.as_str())))
        .kv("modalities", enum_list(d.supported_modalities.iter().flatten().map(|m| m.as_str())))
        .opt("output type", d.output_type.as_ref())
        .kv("owner", or_dash(d.source.as_ref().map(|s| s.as_str())))
        .kv("version", d.version.map_or("—".into(), |v| v.to_string()))
        .opt("version id", d.version_id)
        .opt("variant id", d.variant_id)
        .kv("requires live call", yes_no(d.requires_live_conversation))
        .kv("supports variants", yes_no(d.supports_variants));
    if let Some(unit) = &d.unit {
        let text = match (&unit.name, &unit.symbol) {
            (Some(n), Some(s)) => format!("{n} ({s})"),
            (n, s) => or_dash(n.as_deref().or(s.as_deref())),
        };
        lines.kv("unit", text);
    }
}

/// What a threshold metric compares, and how.
fn threshold(lines: &mut Lines, t: &Threshold, all: &[MetricDefinition]) {
    let source = definition_name(all, t.source_metric_definition_id);
    let op = t.operator.as_ref().map(|o| format!("{} ({})", o.as_str(), operator(o)));
    lines
        .section("threshold")
        .kv("source", source)
        .kv("operator", or_dash(op.as_deref()))
        .kv("value", or_dash(t.threshold_value.as_deref()))
        .kv("aggregation", or_dash(t.aggregation_mode.as_ref().map(|m| m.as_str())))
        .opt("count threshold", t.count_threshold)
        .opt("participant role", t.source_participant_role.as_ref())
        .opt("source variant", t.source_variant_id);
}

/// A scale's range and its labelled bands, in display order.
fn scale(lines: &mut Lines, d: &MetricDefinition) {
    lines.section("scale").kv(
        "range",
        format!(
            "{} to {}",
            d.scale_min.map_or("—".into(), |v| v.to_string()),
            d.scale_max.map_or("—".into(), |v| v.to_string())
        ),
    );
    let mut labels = d.scale_labels.clone().unwrap_or_default();
    labels.sort_by_key(|l| l.display_order);
    for l in labels {
        let range = match (l.range_min, l.range_max) {
            (Some(a), Some(b)) if a == b => number(a),
            (a, b) => format!("{}–{}", a.map_or("…".into(), number), b.map_or("…".into(), number)),
        };
        let about = l.description.map(|d| format!(" · {d}")).unwrap_or_default();
        lines.kv(&format!("  {range}"), format!("{}{about}", or_dash(l.label.as_deref())));
    }
}

/// A classification's options, in display order.
fn classification(lines: &mut Lines, options: &[ClassificationOption], at_most: Option<i64>) {
    lines.section("classification options");
    lines.opt("at most", at_most);
    let mut options = options.to_vec();
    options.sort_by_key(|o| o.display_order);
    for o in options {
        let about = o.description.map(|d| format!(" · {d}")).unwrap_or_default();
        lines.line(Line::raw(format!("  {}{about}", or_dash(o.label.as_deref()))));
    }
}

/// The definition's versions, its current one marked, as far as they are loaded.
fn version_lines(lines: &mut Lines, d: &MetricDefinition, versions: Option<&Versions>) {
    let theme = lines.theme;
    lines.section("versions");
    match versions {
        None | Some(Versions::Loading) => {
            lines.line(Line::styled("  loading…", theme.dim()));
        }
        Some(Versions::Failed(message)) => {
            lines.line(Line::styled(format!("  could not load: {message}"), theme.error()));
        }
        Some(Versions::Loaded(versions)) => {
            for v in versions {
                let current = if v.version_id.is_some() && v.version_id == d.version_id { " (current)" } else { "" };
                lines.line(Line::from(vec![
                    Span::styled(
                        format!("  v{}{current}", v.version.map_or("?".into(), |n| n.to_string())),
                        theme.heading(),
                    ),
                    Span::raw(format!("  {}  {}", when(v.updated_at.as_ref()), or_dash(v.change_reason.as_deref()))),
                ]));
            }
        }
    }
}

pub fn policy(
    p: &MetricPolicy,
    definitions: &[MetricDefinition],
    agents: &[Agent],
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut lines = Lines::new(theme);
    lines
        .kv("id", p.id.to_string())
        .status("status", p.status.as_ref().map(|s| s.as_str()))
        .kv("type", or_dash(p.policy_type.as_ref().map(|s| s.as_str())))
        .kv("modality", or_dash(p.modality.as_ref().map(|s| s.as_str())));
    lines.section("applies when").text(&conditions_text(p, agents));
    for (g, group) in p.conditions.iter().enumerate() {
        for c in &group.conditions {
            lines.kv(
                &format!("  group {}", g + 1),
                format!(
                    "{} {} {} ({})",
                    or_dash(c.condition_key.as_deref()),
                    or_dash(c.condition_operator.as_ref().map(|o| o.as_str())),
                    condition_value(c, agents),
                    or_dash(c.condition_type.as_ref().map(|t| t.as_str())),
                ),
            );
        }
    }
    lines.section(&format!("metrics ({})", p.metrics.len()));
    for m in &p.metrics {
        let slug = definitions.iter().find(|d| d.id == m.id).and_then(|d| d.slug_or_alias()).unwrap_or("");
        lines.line(Line::from(vec![
            Span::raw(format!("  {}  ", definition_name(definitions, Some(m.id)))),
            Span::styled(slug.to_string(), theme.dim()),
        ]));
    }
    lines.section("record").kv("created", when(p.created_at.as_ref())).kv("updated", when(p.updated_at.as_ref()));
    lines.lines
}

/// The title of a definition's detail.
pub fn definition_title(d: &MetricDefinition) -> String {
    name(d)
}
