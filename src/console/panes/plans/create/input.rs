//! The run plan input a filled form stands for: only what was chosen is sent.

use uuid::Uuid;

use super::fields::{MAX_DURATION_DEFAULT, edge_param, flow_param, metric_param, min_pass_rate_param};
use super::{EDGE_ALL, EDGE_PICKED};
use crate::api::model::{
    ConversationSource, Direction, EdgeCaseSelection, EdgeCases, ExecutionMode, FlowSelection, IdRef, MetricReference,
    RunPlanInput, ScenarioSelection,
};
use crate::api::validate::Checks;
use crate::console::panes::plans::run::variables;
use crate::console::widgets::form::{Field, Form, NO, YES};

/// A yes/no field, sent only when it differs from the service's default.
fn flag(form: &Form, param: &str, default: bool) -> Option<bool> {
    let on = form.value(param) == YES;
    (form.value(param) == NO || on).then_some(on).filter(|on| *on != default)
}

/// Comma-separated text: none when blank (the default), empty for `none`.
fn list(form: &Form, param: &str) -> Option<Vec<String>> {
    let text = form.opt(param)?;
    if text.eq_ignore_ascii_case("none") {
        return Some(Vec::new());
    }
    Some(text.split(',').map(|p| p.trim().to_string()).collect())
}

fn uuid(text: &str, param: &str, c: &mut Checks) -> Option<Uuid> {
    let parsed = text.parse().ok();
    if parsed.is_none() {
        c.invalid(param, format!("{text:?} is not an id"));
    }
    parsed
}

fn flow_selection(form: &Form, id: &str, c: &mut Checks) -> FlowSelection {
    let flow = id.parse::<Uuid>().unwrap_or_default();
    let param = |what: &str| flow_param(&flow, what);
    let edge_cases = match form.value(&param("edgeCases")).as_str() {
        EDGE_ALL => Some(EdgeCases::All),
        EDGE_PICKED => {
            let picked = form.field(&param("edgeCaseIds")).map(Field::picked).unwrap_or_default();
            let picked = picked.iter().filter_map(|v| v.parse::<Uuid>().ok()).map(|case| EdgeCaseSelection {
                id: Some(case),
                persona_override_id: form.opt(&edge_param(&case, "personaOverrideId")).and_then(|p| p.parse().ok()),
                variables: variables(form, &edge_param(&case, "variables"), c),
            });
            Some(EdgeCases::List(picked.collect()))
        }
        _ => None,
    };
    FlowSelection {
        id: Some(flow),
        happy_path: Some(form.value(&param("happyPath")) == YES),
        edge_cases,
        persona_override_id: form.opt(&param("personaOverrideId")).and_then(|p| p.parse().ok()),
        variables: variables(form, &param("variables"), c),
        ..Default::default()
    }
}

fn metric_reference(form: &Form, value: &str, c: &mut Checks) -> MetricReference {
    let source =
        form.opt(&metric_param(value)).filter(|s| s != "SIMULATED").map(|s| ConversationSource::from(s.as_str()));
    let mut reference = match value.parse::<Uuid>() {
        Ok(id) => MetricReference { id: Some(id), ..Default::default() },
        Err(_) => MetricReference::by_slug(value),
    };
    reference.conversation_source = source;
    // Left blank, the bar is the service's default (80 %); the range is validate()'s to check.
    let param = min_pass_rate_param(value);
    reference.min_pass_rate = form.opt(&param).and_then(|text| {
        let rate = text.trim().trim_end_matches('%').trim().parse::<f64>().ok().filter(|r| r.is_finite());
        if rate.is_none() {
            c.invalid(&param, format!("{text:?} is not a number of percent"));
        }
        rate
    });
    reference
}

/// Picked values of `param`, or none when nothing is picked.
fn picked(form: &Form, param: &str) -> Option<Vec<String>> {
    Some(form.field(param)?.picked()).filter(|p| !p.is_empty())
}

pub(super) fn input(form: &Form, c: &mut Checks) -> RunPlanInput {
    let ids = |param: &str| {
        picked(form, param).map(|p| p.iter().map(|id| IdRef { id: id.parse().unwrap_or_default() }).collect())
    };
    let scenarios = list(form, "scenarios").filter(|s| !s.is_empty()).map(|ids| {
        let ids = ids.iter().filter_map(|id| uuid(id, "scenarios", c));
        ids.map(|id| ScenarioSelection { id: Some(id), ..Default::default() }).collect()
    });
    RunPlanInput {
        name: form.opt("name"),
        description: form.opt("description"),
        direction: form.opt("direction").map(|d| Direction::from(d.as_str())),
        iteration_count: form.integer("iterationCount", c),
        max_concurrent_jobs: form.integer("maxConcurrentJobs", c),
        max_simulation_duration_seconds: form.integer("maxSimulationDurationSeconds", c).or(Some(MAX_DURATION_DEFAULT)),
        silence_timeout_seconds: form.integer("silenceTimeoutSeconds", c),
        end_call_phrases: list(form, "endCallPhrases"),
        end_call_reasons: list(form, "endCallReasons"),
        execution_mode: form.opt("executionMode").filter(|m| m != "PARALLEL").map(|m| ExecutionMode::from(m.as_str())),
        scenarios,
        flows: picked(form, "flows").map(|ids| ids.iter().map(|id| flow_selection(form, id, c)).collect()),
        personas: ids("personas"),
        agent_endpoints: ids("agentEndpoints"),
        metrics: picked(form, "metrics").map(|values| values.iter().map(|v| metric_reference(form, v, c)).collect()),
        include_flow_metrics: flag(form, "includeFlowMetrics", true),
        include_automatic_metrics: flag(form, "includeAutomaticMetrics", true),
        enrich_with_live_conversation: flag(form, "enrichWithLiveConversation", false),
        auto_run: flag(form, "autoRun", false),
        ..Default::default()
    }
}
