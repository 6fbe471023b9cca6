//! Writes on a metric definition: `T` a threshold on it (the count field only for COUNT, the
//! participant role only for TURN or SEGMENT sources) and `E` an edit of its editable fields
//! with a change reason — through the workspace variant route for a service-owned metric; and
//! `d` on a policy (asked first).

use crate::api::model::{
    AggregationMode, MetricDefinition, MetricDefinitionUpdate, MetricPolicy, MetricType, ParticipantRole,
    ThresholdInput, ThresholdOperator,
};
use crate::api::validate::{Checks, Validate, Violation};
use crate::console::message::{Deletion, ListKind, Write};
use crate::console::out::Out;
use crate::console::widgets::confirm::Confirm;
use crate::console::widgets::form::{Field, Form};
use crate::console::widgets::modal::Modal;

/// The variant a service-owned metric is forked under for this workspace.
pub const WORKSPACE_VARIANT: &str = "workspace";

fn threshold(form: &Form, c: &mut Checks) -> ThresholdInput {
    ThresholdInput {
        name: form.opt("name"),
        operator: form.opt("operator").map(|v| ThresholdOperator::from(v.as_str())),
        value: form.opt("value"),
        aggregation_mode: form.opt("aggregationMode").map(|v| AggregationMode::from(v.as_str())),
        count_threshold: form.integer("countThreshold", c),
        source_participant_role: form.opt("sourceParticipantRole").map(|v| ParticipantRole::from(v.as_str())),
        ..Default::default()
    }
}

pub fn create_threshold(modal: &mut Modal, source: &MetricDefinition) {
    let mut fields = vec![
        Field::text("name", "name", "", "required · the new yes/no metric"),
        Field::choice::<ThresholdOperator>("operator", "operator", None, false),
        Field::text("value", "value", "", "required · compared with each value"),
        Field::choice("aggregationMode", "aggregation", Some(&AggregationMode::Each), false),
        Field::text("countThreshold", "count", "", "required for COUNT · at least 0")
            .when("aggregationMode", &["COUNT"]),
    ];
    if source.has_participant_contexts() {
        fields.push(Field::choice::<ParticipantRole>("sourceParticipantRole", "participant role", None, true));
    }
    let checked = source.clone();
    let check = move |form: &Form| -> Vec<Violation> {
        let mut c = Checks::default();
        let input = threshold(form, &mut c);
        let mut violations = c.into_violations();
        violations.extend(input.validate());
        violations.extend(input.validate_against(&checked));
        violations
    };
    let id = source.id.to_string();
    let title = format!("threshold on {}", source.name.as_deref().unwrap_or("the metric"));
    modal.form(Form::new(title, fields, check), move |form| {
        Write::CreateThreshold(id.clone(), Box::new(threshold(form, &mut Checks::default())))
    });
}

/// Only what changed goes in the update (an unchanged field stays out of the new version).
fn changed(form: &Form, param: &str, current: Option<&str>) -> Option<String> {
    form.opt(param).filter(|v| Some(v.as_str()) != current)
}

fn update(form: &Form, current: &MetricDefinition, c: &mut Checks) -> MetricDefinitionUpdate {
    let number = |param: &str, was: Option<i64>, c: &mut Checks| form.integer(param, c).filter(|n| Some(*n) != was);
    MetricDefinitionUpdate {
        name: changed(form, "name", current.name.as_deref()),
        llm_prompt: changed(form, "llmPrompt", current.llm_prompt.as_deref()),
        boolean_true_label: changed(form, "booleanTrueLabel", current.boolean_true_label.as_deref()),
        boolean_false_label: changed(form, "booleanFalseLabel", current.boolean_false_label.as_deref()),
        scale_min: number("scaleMin", current.scale_min, c),
        scale_max: number("scaleMax", current.scale_max, c),
        change_reason: form.opt("changeReason"),
        ..Default::default()
    }
}

/// The editable fields of `definition` (a derived metric takes only a new name).
fn editable(d: &MetricDefinition) -> Vec<Field> {
    let text = |param, label, value: Option<&str>, hint: &str| Field::text(param, label, value.unwrap_or(""), hint);
    let mut fields = vec![text("name", "name", d.name.as_deref(), "at least 1 character")];
    if !d.is_derived() {
        if d.llm_prompt.is_some() {
            fields.push(text("llmPrompt", "prompt", d.llm_prompt.as_deref(), "at least 1 character"));
        }
        if d.metric_type == Some(MetricType::Boolean) {
            fields.push(text("booleanTrueLabel", "true label", d.boolean_true_label.as_deref(), "optional"));
            fields.push(text("booleanFalseLabel", "false label", d.boolean_false_label.as_deref(), "optional"));
        }
        if d.metric_type == Some(MetricType::Scale) {
            let min = d.scale_min.map(|n| n.to_string());
            let max = d.scale_max.map(|n| n.to_string());
            fields.push(text("scaleMin", "scale min", min.as_deref(), "whole number · below max"));
            fields.push(text("scaleMax", "scale max", max.as_deref(), "whole number · above min"));
        }
    }
    fields.push(text("changeReason", "change reason", None, "required · kept with the version"));
    fields
}

pub fn edit_definition(modal: &mut Modal, definition: &MetricDefinition) {
    let current = definition.clone();
    let check = move |form: &Form| -> Vec<Violation> {
        let mut c = Checks::default();
        let update = update(form, &current, &mut c);
        c.required("", "changeReason", &update.change_reason);
        let mut violations = c.into_violations();
        violations.extend(update.validate());
        violations.extend(update.validate_against(&current));
        violations
    };
    let name = definition.name.as_deref().unwrap_or("metric");
    let version = definition.version.map_or("?".to_string(), |v| v.to_string());
    let owned = definition.is_service_owned();
    let title = match owned {
        true => format!("edit {name} for this workspace (service-owned) · version {version}"),
        false => format!("edit {name} · version {version}"),
    };
    let current = definition.clone();
    let variant = owned.then(|| WORKSPACE_VARIANT.to_string());
    modal.form(Form::new(title, editable(definition), check), move |form| {
        let mut update = update(form, &current, &mut Checks::default());
        if variant.is_some() {
            // A variant's `name` is the variant's own (the hosted interface renames the variant
            // with it): the workspace's variant keeps the service's metric name.
            update.name = None;
        }
        Write::UpdateMetric { id: current.id.to_string(), variant: variant.clone(), update: Box::new(update) }
    });
}

/// Says what a metric write made: the new threshold, or the version before and after an edit
/// (`before` is the list as it was, not yet fetched again).
pub fn announce(write: &Write, after: &MetricDefinition, before: &[MetricDefinition], out: &mut Out) {
    let version = |d: Option<&MetricDefinition>| d.and_then(|d| d.version).map_or("?".into(), |v| v.to_string());
    match write {
        Write::CreateThreshold(..) => {
            out.info(format!("created the threshold {}", after.slug_or_alias().unwrap_or("metric")))
        }
        Write::UpdateMetric { id, variant, .. } => {
            let was = before.iter().find(|d| d.id.to_string() == *id);
            let place = if variant.is_some() { " (this workspace's variant)" } else { "" };
            let name = after.name.as_deref().unwrap_or("metric");
            out.info(format!("{name}: version {} → {}{place}", version(was), version(Some(after))));
        }
        _ => {}
    }
}

/// Asks before deleting `policy`; the service refuses one it keeps for itself, with its reason.
pub fn delete_policy(policy: &MetricPolicy, out: &mut Out) {
    let what = format!("policy {}", policy.name.as_deref().unwrap_or("(unnamed)"));
    let question = format!("Delete the {what}? Its collected values stay; this cannot be undone.");
    let deletion = Deletion { kind: ListKind::Policies, id: policy.id, what };
    out.modal.confirm(Confirm::new("delete policy", question, Write::Delete(deletion)));
}
