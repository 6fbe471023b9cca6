//! `step_expectations`: what each AGENT_TURN step the simulated caller reached says the agent
//! does, judged after the call, one value per step in script order. The offline caller speaks
//! its lines whatever the agent's wording, so a step written in words is not a gate it applies
//! while calling; its result is shown per step (call view, reports) as information, never as a
//! check of the verdict (`MetricDefinition::is_check`).

use super::compute::{Conversation, WalkedStep, script, without_value};
use super::evaluate::{Library, judged};
use super::judge::Answer;
use crate::api::model::*;

/// One value per step reached; NOT_APPLICABLE when none was.
pub async fn evaluate(conv: &Conversation<'_>, library: &Library<'_>) -> Vec<MetricValue> {
    let steps = match walked(conv) {
        Ok(steps) => steps,
        Err(why) => return vec![without_value(conv.call, CaptureStatus::NotApplicable, why)],
    };
    if steps.is_empty() {
        let why = "the caller reached no AGENT_TURN step written in words";
        return vec![without_value(conv.call, CaptureStatus::NotApplicable, why)];
    }
    let mut out = Vec::new();
    for step in steps {
        for mut value in judged(conv, library, &step.expectation, Answer::Boolean, true, None).await {
            // Every text the value carries names its step.
            let said = |text: String| format!("{} \"{}\": {text}", step.label, step.expectation);
            value.value_reasoning = value.value_reasoning.take().map(said);
            value.error_message = value.error_message.take().map(said);
            out.push(value);
        }
    }
    out
}

/// The steps the caller reached, as the simulation recorded them; for a call scored later, the
/// script's one path when it has no choice the caller made by chance.
fn walked(conv: &Conversation<'_>) -> Result<Vec<WalkedStep>, String> {
    if let Some(walked) = conv.walked {
        return Ok(walked.to_vec());
    }
    let Some(flow) = conv.flow else { return Err("the call ran no flow".into()) };
    let mut out = Vec::new();
    let adaptive = flow.branching_mode == Some(BranchingMode::Adaptive);
    if !first_path(script(flow, conv.variant), adaptive, &mut out) {
        return Err("which branch of the script the caller took is known only while its simulation is scored".into());
    }
    Ok(out)
}

/// The AGENT_TURN steps along the first alternative of every branch; false when a branch was
/// chosen by chance (ADAPTIVE), so the path cannot be told.
fn first_path(steps: &[FlowStep], adaptive: bool, out: &mut Vec<WalkedStep>) -> bool {
    for step in steps {
        let expectation = step.content.as_deref().map(str::trim).filter(|c| !c.is_empty());
        if let (Some(StepType::AgentTurn | StepType::AgentDtmf), Some(expectation)) = (&step.step_type, expectation) {
            out.push(WalkedStep { label: step.label(), expectation: expectation.to_owned() });
        }
        if step.steps.len() > 1 && adaptive {
            return false;
        }
        if !first_path(step.steps.first().map(std::slice::from_ref).unwrap_or_default(), adaptive, out) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(reference: &str, kind: StepType, next: Vec<FlowStep>) -> FlowStep {
        FlowStep {
            step_type: Some(kind),
            step_ref: Some(reference.into()),
            content: Some(format!("Agent does {reference}")),
            steps: next,
            ..Default::default()
        }
    }

    fn graph() -> Vec<FlowStep> {
        let branch = vec![
            step("left", StepType::AgentTurn, vec![step("after-left", StepType::AgentTurn, vec![])]),
            step("right", StepType::AgentTurn, vec![]),
        ];
        vec![step("greet", StepType::AgentTurn, vec![]), step("ask", StepType::CustomerTurn, branch)]
    }

    #[test]
    fn a_call_scored_later_takes_the_first_alternative_of_each_branch_unless_chance_chose() {
        let mut walked = Vec::new();
        assert!(first_path(&graph(), false, &mut walked));
        let labels: Vec<&str> = walked.iter().map(|w| w.label.as_str()).collect();
        assert_eq!(
            labels,
            ["step \"greet\" (AGENT_TURN)", "step \"left\" (AGENT_TURN)", "step \"after-left\" (AGENT_TURN)"]
        );
        assert!(!first_path(&graph(), true, &mut Vec::new()), "an ADAPTIVE branch cannot be told");
    }
}
