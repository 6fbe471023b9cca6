//! Which metrics a run judges beyond the plan's own: the flow's own metrics
//! (`includeFlowMetrics`) and the automatic ones (`includeAutomaticMetrics`: agent
//! expectations where the flow has expectations, keypad entry where it has keypad steps, step
//! expectations where it has agent steps). The service runs them; the console shows them.

use std::collections::HashMap;

use uuid::Uuid;

use super::{CustomerFlow, FlowStep, MetricDefinition, RunPlanInput, StepType};

/// Whether any step under `steps` is of `kind`.
pub fn has_step(steps: &[FlowStep], kind: &StepType) -> bool {
    steps.iter().any(|s| s.step_type.as_ref() == Some(kind) || has_step(&s.steps, kind))
}

/// The flow's own metrics and the automatic ones, as the plan's flags allow.
pub fn flow_and_automatic_metrics(
    plan: &RunPlanInput,
    flow: &CustomerFlow,
    all: &HashMap<Uuid, MetricDefinition>,
    chosen: &[MetricDefinition],
) -> Vec<MetricDefinition> {
    let mut extra: Vec<MetricDefinition> = Vec::new();
    let mut add = |d: &MetricDefinition| {
        if !chosen.iter().chain(extra.iter()).any(|c| c.id == d.id) {
            extra.push(d.clone());
        }
    };
    if plan.include_flow_metrics_or_default() {
        for id in flow.metrics.iter().flatten() {
            if let Some(d) = all.get(&id.id) {
                add(d);
            }
        }
    }
    if plan.include_automatic_metrics_or_default() {
        let by_slug = |slug: &str| all.values().find(|d| d.is_service_owned() && d.slug.as_deref() == Some(slug));
        // A variant's own expectations are judged as the flow's are (as keypad and step checks
        // look at every variant's steps).
        let expectations = !flow.agent_expectations.is_empty()
            || flow.happy_path.iter().chain(&flow.edge_cases).any(|v| !v.additional_expectations.is_empty());
        if expectations && let Some(d) = by_slug("agent_expectations") {
            add(d);
        }
        let keypad = has_step(&flow.graph, &StepType::CustomerDtmf)
            || flow.happy_path.iter().chain(&flow.edge_cases).any(|v| has_step(&v.steps, &StepType::CustomerDtmf));
        if keypad && let Some(d) = by_slug("keypad_entry") {
            add(d);
        }
        let has_agent_step =
            |steps: &[FlowStep]| has_step(steps, &StepType::AgentTurn) || has_step(steps, &StepType::AgentDtmf);
        let agent_turns = has_agent_step(&flow.graph)
            || flow.happy_path.iter().chain(&flow.edge_cases).any(|v| has_agent_step(&v.steps));
        if agent_turns && let Some(d) = by_slug("step_expectations") {
            add(d);
        }
    }
    extra
}
