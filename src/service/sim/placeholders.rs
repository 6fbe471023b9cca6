//! The `{{name}}` placeholders a flow variant uses, and the refusal of a run that would leave one
//! unfilled: a caller saying "My name is {{customerName}}" tests nothing, so the run is refused
//! before any simulation starts, naming the variable and the step that uses it.

use std::collections::BTreeMap;

use crate::api::model::*;
use crate::api::validate::{Violation, ViolationCode};
use crate::service::metrics::compute::script as steps_of;

/// One placeholder and where it is first used.
#[derive(Debug, Clone, PartialEq)]
pub struct Placeholder {
    pub name: String,
    /// The step that uses it, for people: `step "greet-1" (CUSTOMER_TURN)`, or the variant's brief.
    pub used_in: String,
}

/// The names between `{{` and `}}` in `text`, trimmed, in order.
pub fn names_in(text: &str) -> impl Iterator<Item = &str> {
    text.split("{{").skip(1).filter_map(|rest| rest.split_once("}}").map(|(name, _)| name.trim()))
}

/// Every placeholder the variant's steps (and its improvising caller's brief) use, each once.
pub fn used_by(flow: &CustomerFlow, variant: Option<&FlowVariant>) -> Vec<Placeholder> {
    let mut out = Vec::new();
    let improvises =
        flow.flow_type == Some(FlowType::Improv) || variant.is_some_and(|v| v.variant_type == Some(FlowType::Improv));
    if improvises && let Some(brief) = variant.and_then(|v| v.prompt.as_deref()) {
        add(&mut out, brief, || "the variant's prompt".to_owned());
    }
    walk(steps_of(flow, variant), &mut out);
    out
}

fn walk(steps: &[FlowStep], out: &mut Vec<Placeholder>) {
    for step in steps {
        for text in [step.content.as_deref(), step.dtmf_digits.as_deref()].into_iter().flatten() {
            add(out, text, || step.label());
        }
        walk(&step.steps, out);
    }
}

fn add(out: &mut Vec<Placeholder>, text: &str, used_in: impl Fn() -> String) {
    for name in names_in(text) {
        if !name.is_empty() && !out.iter().any(|p| p.name == name) {
            out.push(Placeholder { name: name.to_owned(), used_in: used_in() });
        }
    }
}

/// Whether a persona's properties give `name`.
fn persona_gives(persona: Option<&Persona>, name: &str) -> bool {
    persona.and_then(|p| p.fields.properties.as_ref()).is_some_and(|props| props.contains_key(name))
}

/// Whether the variant runs as it is: its persona gives every placeholder its lines use.
pub fn runs_as_is(flow: &CustomerFlow, variant: &FlowVariant) -> bool {
    used_by(flow, Some(variant)).iter().all(|p| persona_gives(variant.persona_override.as_ref(), &p.name))
}

/// The refusals for one test case: each placeholder neither `values` nor the persona gives.
/// `case` names the flow and variant for people.
pub fn unfilled(
    used: &[Placeholder],
    values: &BTreeMap<String, String>,
    persona: Option<&Persona>,
    case: &str,
) -> Vec<Violation> {
    used.iter()
        .filter(|p| !values.contains_key(&p.name) && !persona_gives(persona, &p.name))
        .map(|p| Violation {
            param: format!("variables.{}", p.name),
            code: ViolationCode::InvalidParameter,
            message: format!(
                "{case}: {} uses {{{{{}}}}}, which no run variable, flow selection or persona property gives; set \
                 it in the run's variables or the flow selection's variables",
                p.used_in, p.name
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(reference: &str, kind: StepType, content: &str, next: Vec<FlowStep>) -> FlowStep {
        FlowStep {
            step_type: Some(kind),
            step_ref: Some(reference.into()),
            content: Some(content.into()),
            steps: next,
            ..Default::default()
        }
    }

    #[test]
    fn names_are_read_trimmed_and_unclosed_braces_are_not_names() {
        let names: Vec<&str> = names_in("Hi {{ customerName }}, {{code}} and {{open").collect();
        assert_eq!(names, ["customerName", "code"]);
    }

    #[test]
    fn each_placeholder_is_named_once_with_the_first_step_that_uses_it() {
        let graph = vec![step(
            "greet",
            StepType::CustomerTurn,
            "I'm {{name}}",
            vec![step("again", StepType::CustomerVerbatimTurn, "{{name}} again, code {{code}}", vec![])],
        )];
        let flow: CustomerFlow = serde_json::from_value(serde_json::json!({"id": uuid::Uuid::nil()})).unwrap();
        let flow = CustomerFlow { graph, ..flow };
        let used = used_by(&flow, None);
        assert_eq!(
            used,
            [
                Placeholder { name: "name".into(), used_in: "step \"greet\" (CUSTOMER_TURN)".into() },
                Placeholder { name: "code".into(), used_in: "step \"again\" (CUSTOMER_VERBATIM_TURN)".into() },
            ]
        );
        let values = BTreeMap::from([("name".to_owned(), "Ana".to_owned())]);
        let refused = unfilled(&used, &values, None, "flow \"F\"");
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].param, "variables.code");
        assert!(refused[0].message.contains("step \"again\" (CUSTOMER_VERBATIM_TURN) uses {{code}}"), "{}", refused[0]);
    }
}
