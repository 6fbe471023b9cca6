//! The customer's script: the flow's step graph flattened into what the customer says,
//! presses and expects, with `{{placeholders}}` filled.

use std::collections::BTreeMap;

use crate::api::model::*;

/// What the customer does next.
#[derive(Debug, Clone)]
pub(super) enum Action {
    /// Words said as written (CUSTOMER_VERBATIM_TURN, CUSTOMER_FIRST_MESSAGE).
    Say(String),
    /// What the caller should do (CUSTOMER_TURN): the offline caller says it as written, a caller
    /// model takes it as an instruction and says it in its own words.
    Instruction(String),
    Press(String),
    /// Keep quiet this many seconds, giving the agent the floor.
    Silence(i64),
    /// The agent should do what `expected` says; the policy applies when it does not.
    /// `presses_next`: the caller's next move is a keypad press (so an agent asking for keys
    /// is on script).
    Expect {
        expected: String,
        policy: Option<OffScriptPolicy>,
        presses_next: bool,
        /// The step for people, for its result after the call.
        step: String,
    },
}

/// Flattens the step graph into what the customer does. A step's `steps` follow it: one
/// continues the script; several are alternatives, of which the caller takes the first
/// (DETERMINISTIC) or one chosen by the simulation's generator (ADAPTIVE).
pub(super) fn actions(steps: &[FlowStep], adaptive: bool, rng: &mut fastrand::Rng, out: &mut Vec<Action>) {
    for step in steps {
        match step.step_type.as_ref() {
            Some(StepType::CustomerTurn) => out.extend(step.content.clone().map(Action::Instruction)),
            Some(kind) if kind.is_customer_line() => out.extend(step.content.clone().map(Action::Say)),
            Some(StepType::CustomerDtmf) => {
                let digits = step.dtmf_digits.clone().filter(|d| !d.trim().is_empty());
                out.push(Action::Press(digits.unwrap_or_else(|| keys(step.content.as_deref()))));
            }
            Some(StepType::CustomerSilence) => out.push(Action::Silence(step.silence_duration_seconds.unwrap_or(3))),
            Some(StepType::AgentTurn | StepType::AgentDtmf) => out.push(Action::Expect {
                expected: step.content.clone().unwrap_or_default(),
                policy: step.off_script_policy.clone(),
                presses_next: false,
                step: step.label(),
            }),
            // Voicemail, handoff and scenario-link steps have nothing for the caller to say here.
            Some(StepType::Voicemail | StepType::CustomerHandoff | StepType::ScenarioLink) => {}
            _ => out.extend(step.content.clone().map(Action::Say)),
        }
        match step.steps.len() {
            0 => {}
            1 => actions(&step.steps, adaptive, rng, out),
            n => {
                let pick = if adaptive { rng.usize(..n) } else { 0 };
                actions(std::slice::from_ref(&step.steps[pick]), adaptive, rng, out);
            }
        }
    }
}

/// Marks each expectation whose next action is a keypad press: the agent asking for keys there
/// is what the script foresaw.
pub(super) fn mark_presses(plan: &mut [Action]) {
    for at in 0..plan.len() {
        let next_presses = matches!(plan.get(at + 1), Some(Action::Press(_)));
        if let Some(Action::Expect { presses_next, .. }) = plan.get_mut(at) {
            *presses_next = next_presses;
        }
    }
}

/// The keys a keypad step presses when it has no `dtmfDigits`: the digits its content names
/// ("Press 2 to choose another time" presses 2), or 1 when it names none.
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
        let Some(end) = rest[start..].find("}}") else {
            // An unclosed `{{` is text.
            out.push_str(&rest[start..]);
            rest = "";
            break;
        };
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
    fn an_unclosed_placeholder_is_left_as_written() {
        let filled = fill("Call me at {{phone", &BTreeMap::new(), None);
        assert_eq!(filled, "Call me at {{phone");
        let values = BTreeMap::from([("pin".to_owned(), "4821".to_owned())]);
        assert_eq!(fill("{{pin}}# then {{ other", &values, None), "4821# then {{ other");
    }

    #[test]
    fn a_keypad_step_presses_the_keys_it_names() {
        assert_eq!(keys(Some("Press 2 to choose another time")), "2");
        assert_eq!(keys(Some("Enter 1234# for the PIN")), "1234#");
        assert_eq!(keys(Some("Press the confirm key")), "1");
        assert_eq!(keys(None), "1");
    }
}
