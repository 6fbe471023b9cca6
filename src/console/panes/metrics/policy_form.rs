//! `c` in the policies section: a new metric policy. Modality comes first, then only the
//! metrics that support it (one pick per modality, shown while it is chosen), then up to
//! `GROUPS` condition groups — alternatives, each `key=value, key=value` that must all hold.

use crate::api::model::{
    Agent, CONDITION_KEYS, ConditionGroupInput, ConditionInput, MetricDefinition, Modality, PolicyInput, PolicyMetric,
    PolicyStatus,
};
use crate::api::validate::{Checks, Validate, Violation};
use crate::api::wire_enum::WireEnum;
use crate::console::message::Write;
use crate::console::widgets::form::{Field, Form, Opt};
use crate::console::widgets::modal::Modal;

/// Condition groups the form offers, each shown once the one before it is filled.
const GROUPS: usize = 4;

fn metrics_param(modality: &str) -> String {
    format!("metrics:{modality}")
}

fn group_param(g: usize) -> String {
    format!("conditions[{g}]")
}

fn fields(definitions: &[MetricDefinition]) -> Vec<Field> {
    let mut fields = vec![
        Field::choice::<Modality>("modality", "modality", Some(&Modality::Call), false)
            .with_hint(format!("required · one of {} · decides which metrics it may use", Modality::known_list())),
        Field::text("name", "name", "", "required · at least 1 character"),
    ];
    for modality in Modality::known() {
        let supported = definitions.iter().filter(|d| d.supports_modality(modality));
        let options = supported.map(|d| Opt::new(d.id.to_string(), d.name.as_deref().unwrap_or("unnamed")));
        let hint = format!("required · at least 1 · only metrics supporting {}", modality.as_str());
        let field = Field::pick(metrics_param(modality.as_str()), "metrics", options.collect(), hint);
        fields.push(field.when("modality", if *modality == Modality::Call { &["call"] } else { &["chat"] }));
    }
    fields.push(Field::choice("status", "status", Some(&PolicyStatus::Active), false));
    let keys = CONDITION_KEYS.join(", ");
    for g in 0..GROUPS {
        let label =
            if g == 0 { "conditions (none: every call)".to_string() } else { format!("or conditions ({})", g + 1) };
        let hint = match g {
            0 => format!("key=value, … all hold · keys {keys}"),
            _ => "optional · key=value, … · fires when any group holds".to_string(),
        };
        let field = Field::text(group_param(g), label, "", hint);
        fields.push(if g == 0 { field } else { field.when_filled(group_param(g - 1)) });
    }
    fields
}

/// An agent condition may name the agent; the service gets its id.
fn condition(pair: &str, agents: &[Agent], param: &str, c: &mut Checks) -> Option<ConditionInput> {
    let Some((key, value)) = pair.split_once('=').map(|(k, v)| (k.trim(), v.trim())) else {
        c.invalid(param, format!("{pair:?} is not key=value"));
        return None;
    };
    let value = match key {
        "agentId" if value.parse::<uuid::Uuid>().is_err() => {
            match agents.iter().find(|a| a.name.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(value))) {
                Some(agent) => agent.id.to_string(),
                None => {
                    c.invalid(param, format!("no agent is named {value:?} (give its name or id)"));
                    return None;
                }
            }
        }
        _ => value.to_string(),
    };
    Some(ConditionInput { condition_key: Some(key.to_string()), condition_value: Some(value), ..Default::default() })
}

fn input(form: &Form, agents: &[Agent], c: &mut Checks) -> PolicyInput {
    let modality = form.value("modality");
    let picked = form.field(&metrics_param(&modality)).map(Field::picked).unwrap_or_default();
    let metrics = picked.iter().filter_map(|id| id.parse::<uuid::Uuid>().ok()).map(PolicyMetric::from);
    let mut groups = Vec::new();
    for g in 0..GROUPS {
        let param = group_param(g);
        let Some(text) = form.opt(&param) else { continue };
        let pairs = text.split(',').map(str::trim).filter(|p| !p.is_empty());
        let conditions = pairs.filter_map(|pair| condition(pair, agents, &param, c)).collect();
        groups.push(ConditionGroupInput { conditions });
    }
    PolicyInput {
        name: form.opt("name"),
        modality: Some(Modality::from(modality.as_str())).filter(|_| !modality.is_empty()),
        metrics: Some(metrics.collect()).filter(|m: &Vec<PolicyMetric>| !m.is_empty()),
        status: form.opt("status").map(|s| PolicyStatus::from(s.as_str())),
        conditions: (!groups.is_empty()).then_some(groups),
        ..Default::default()
    }
}

/// `metrics…` is the pick of the chosen modality. Condition groups are sent without the
/// empty ones, so `conditions[1]` is the second filled group.
fn rename(form: &Form, param: &str) -> Option<String> {
    if let Some(rest) = param.strip_prefix("metrics") {
        return Some(format!("{}{rest}", metrics_param(&form.value("modality"))));
    }
    let (index, rest) = param.strip_prefix("conditions[")?.split_once(']')?;
    let filled = (0..GROUPS).filter(|g| form.opt(&group_param(*g)).is_some());
    filled.clone().nth(index.parse().ok()?).map(|g| format!("{}{rest}", group_param(g)))
}

pub fn open(modal: &mut Modal, definitions: &[MetricDefinition], agents: &[Agent]) {
    let checked = agents.to_vec();
    let check = move |form: &Form| -> Vec<Violation> {
        let mut c = Checks::default();
        let input = input(form, &checked, &mut c);
        let mut violations = c.into_violations();
        violations.extend(input.validate());
        violations
    };
    let form = Form::new("new metric policy", fields(definitions), check).with_rename(rename);
    let agents = agents.to_vec();
    modal.form(form, move |form| Write::CreatePolicy(Box::new(input(form, &agents, &mut Checks::default()))));
}
