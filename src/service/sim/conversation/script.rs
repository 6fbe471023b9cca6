//! The customer's script: the flow's step graph flattened into what the customer says,
//! presses and expects, with `{{placeholders}}` filled.

use std::collections::BTreeMap;

use crate::api::model::*;

/// What the customer does next.
#[derive(Debug, Clone)]
pub(super) enum Action {
    Say(String),
    Press(String),
    /// The agent should do what `expected` says; the policy applies when it does not.
    Expect {
        expected: String,
        policy: Option<OffScriptPolicy>,
    },
}

/// Flattens the step graph into what the customer does, choosing one path at each branch.
pub(super) fn actions(steps: &[FlowStep], probabilistic: bool, rng: &mut fastrand::Rng, out: &mut Vec<Action>) {
    for step in steps {
        match step.step_type.as_ref() {
            Some(StepType::Branch) if !step.steps.is_empty() => {
                let pick = if probabilistic { rng.usize(..step.steps.len()) } else { 0 };
                let chosen = &step.steps[pick];
                actions(std::slice::from_ref(chosen), probabilistic, rng, out);
                continue;
            }
            Some(StepType::CustomerLine) => out.extend(step.content.clone().map(Action::Say)),
            Some(StepType::KeypadEntry) => out.push(Action::Press(keys(step.content.as_deref()))),
            Some(StepType::AgentTurn) => out.push(Action::Expect {
                expected: step.content.clone().unwrap_or_default(),
                policy: step.off_script_policy.clone(),
            }),
            _ => out.extend(step.content.clone().map(Action::Say)),
        }
        actions(&step.steps, probabilistic, rng, out);
    }
}

/// The keys a keypad step presses: the digits its content names ("Press 2 to choose another
/// time" presses 2), or 1 when it names none.
fn keys(content: Option<&str>) -> String {
    let digits: String = content
        .unwrap_or_default()
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit() || *c == '#' || *c == '*')
        .collect();
    if digits.is_empty() { "1".to_owned() } else { digits }
}

/// Fills `{{name}}` from the variables, then from the persona's properties.
pub(super) fn fill(text: &str, variables: &BTreeMap<String, String>, persona: Option<&Persona>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find("}}") else { break };
        let name = rest[start + 2..start + end].trim();
        let property = persona
            .and_then(|p| p.fields.properties.as_ref())
            .and_then(|props| props.get(name))
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned));
        match variables.get(name).cloned().or(property) {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[start..start + end + 2]),
        }
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keypad_step_presses_the_keys_it_names() {
        assert_eq!(keys(Some("Press 2 to choose another time")), "2");
        assert_eq!(keys(Some("Enter 1234# for the PIN")), "1234#");
        assert_eq!(keys(Some("Press the confirm key")), "1");
        assert_eq!(keys(None), "1");
    }
}
