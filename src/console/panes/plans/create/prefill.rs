//! `D` on a plan: the create form filled with the plan's values, so a variant of it is a few
//! edits away. Only what the plan sets is filled; the rest keeps the form's defaults.

use super::fields::{edge_param, flow_param, metric_param, metric_value, min_pass_rate_param};
use super::{EDGE_ALL, EDGE_PICKED};
use crate::api::model::{EdgeCases, FlowSelection, MetricDefinition, MetricReference, RunPlanInput, Variables};
use crate::api::wire_enum::WireEnum;
use crate::console::widgets::form::{Form, NO, YES};

/// Fills `form` from `plan`, named "copy of …" so it is not mistaken for the original.
pub(super) fn prefill(form: &mut Form, plan: &RunPlanInput, metrics: &[MetricDefinition]) {
    let mut set = |param: &str, value: String| {
        if let Some(field) = form.field_mut(param) {
            field.set(&value);
        }
    };
    set("name", format!("copy of {}", plan.name.as_deref().unwrap_or("a plan")));
    let number = |n: Option<i64>| n.map(|n| n.to_string());
    let texts = [
        ("description", plan.description.clone()),
        ("direction", plan.direction.as_ref().map(|d| d.text().to_string())),
        ("iterationCount", number(plan.iteration_count)),
        ("maxConcurrentJobs", number(plan.max_concurrent_jobs)),
        ("maxSimulationDurationSeconds", number(plan.max_simulation_duration_seconds)),
        ("silenceTimeoutSeconds", number(plan.silence_timeout_seconds)),
        ("endCallPhrases", plan.end_call_phrases.as_ref().map(|p| listed(p))),
        ("endCallReasons", plan.end_call_reasons.as_ref().map(|r| listed(r))),
        ("executionMode", plan.execution_mode.as_ref().map(|m| m.text().to_string())),
    ];
    for (param, value) in texts {
        value.into_iter().for_each(|v| set(param, v));
    }
    let flags = [
        ("includeFlowMetrics", plan.include_flow_metrics),
        ("includeAutomaticMetrics", plan.include_automatic_metrics),
        ("enrichWithLiveConversation", plan.enrich_with_live_conversation),
        ("autoRun", plan.auto_run),
    ];
    for (param, on) in flags {
        on.into_iter().for_each(|on| set(param, if on { YES } else { NO }.to_string()));
    }
    let ids = |refs: &Option<Vec<crate::api::model::IdRef>>| {
        refs.iter().flatten().map(|r| r.id.to_string()).collect::<Vec<_>>().join(",")
    };
    set("agentEndpoints", ids(&plan.agent_endpoints));
    set("personas", ids(&plan.personas));
    for flow in plan.flows.iter().flatten() {
        prefill_flow(form, flow);
    }
    for reference in plan.metrics.iter().flatten() {
        prefill_metric(form, reference, metrics);
    }
}

/// `k=v, k=v`, as the variables fields take them.
fn pairs(variables: &Variables) -> String {
    variables.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
}

fn listed(items: &[String]) -> String {
    if items.is_empty() { "none".into() } else { items.join(", ") }
}

fn prefill_flow(form: &mut Form, flow: &FlowSelection) {
    let Some(id) = flow.id else { return };
    let mut set = |param: String, value: String| {
        if let Some(field) = form.field_mut(&param) {
            field.set(&value);
        }
    };
    set("flows".into(), id.to_string());
    set(flow_param(&id, "happyPath"), if flow.happy_path == Some(false) { NO } else { YES }.to_string());
    if let Some(persona) = flow.persona_override_id {
        set(flow_param(&id, "personaOverrideId"), persona.to_string());
    }
    if let Some(variables) = &flow.variables {
        set(flow_param(&id, "variables"), pairs(variables));
    }
    match &flow.edge_cases {
        Some(EdgeCases::All) => set(flow_param(&id, "edgeCases"), EDGE_ALL.into()),
        Some(EdgeCases::List(cases)) => {
            set(flow_param(&id, "edgeCases"), EDGE_PICKED.into());
            for case in cases {
                let Some(case_id) = case.id else { continue };
                set(flow_param(&id, "edgeCaseIds"), case_id.to_string());
                if let Some(persona) = case.persona_override_id {
                    set(edge_param(&case_id, "personaOverrideId"), persona.to_string());
                }
                if let Some(variables) = &case.variables {
                    set(edge_param(&case_id, "variables"), pairs(variables));
                }
            }
        }
        None => {}
    }
}

/// A metric is picked as the form names it: by slug when it has one, else by id.
fn prefill_metric(form: &mut Form, reference: &MetricReference, metrics: &[MetricDefinition]) {
    let known = metrics.iter().find(|m| {
        Some(m.id) == reference.id || (reference.slug.is_some() && m.slug.as_deref() == reference.slug.as_deref())
    });
    let Some(value) = known.map(metric_value) else { return };
    let mut set = |param: String, text: String| {
        if let Some(field) = form.field_mut(&param) {
            field.set(&text);
        }
    };
    set("metrics".into(), value.clone());
    if let Some(source) = &reference.conversation_source {
        set(metric_param(&value), source.text().to_string());
    }
    if let Some(rate) = reference.min_pass_rate {
        set(min_pass_rate_param(&value), rate.to_string());
    }
}
