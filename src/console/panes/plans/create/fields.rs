//! The fields of the run plan form: the plan's own, each flow's (shown while it is picked),
//! each picked edge case's, each metric's source, then every option with its default.

use uuid::Uuid;

use super::{Choices, EDGE_ALL, EDGE_NONE, EDGE_PICKED};
use crate::api::model::{
    AgentEndpoint, ConversationSource, CustomerFlow, DEFAULT_MIN_PASS_RATE, Direction, ExecutionMode, FlowVariant,
    MetricDefinition, Persona, run_plan_limits::*,
};
use crate::api::wire_enum::WireEnum;
use crate::console::widgets::form::{Field, Opt};
use crate::console::widgets::text::phone;

/// Seconds a simulation may last when the form leaves it blank: the service requires a value,
/// and ten minutes lets every seeded flow finish.
pub(super) const MAX_DURATION_DEFAULT: i64 = 600;

pub(super) fn flow_param(id: &Uuid, what: &str) -> String {
    format!("flow:{id}.{what}")
}

pub(super) fn metric_param(value: &str) -> String {
    format!("metric:{value}.conversationSource")
}

/// The field of a picked check's `minPassRate`.
pub(super) fn min_pass_rate_param(value: &str) -> String {
    format!("metric:{value}.minPassRate")
}

/// A metric is picked by its slug when it has one, else by id.
pub(super) fn metric_value(m: &MetricDefinition) -> String {
    m.slug.clone().unwrap_or_else(|| m.id.to_string())
}

fn flow_label(f: &CustomerFlow) -> String {
    let kind = f.flow_type.as_ref().map(|t| format!(" ({})", t.as_str())).unwrap_or_default();
    format!("{}{kind}", f.title.as_deref().unwrap_or("untitled flow"))
}

fn persona_options(personas: &[Persona]) -> Vec<Opt> {
    personas.iter().map(|p| Opt::new(p.id.to_string(), p.label())).collect()
}

pub(super) fn fields(choices: &Choices) -> Vec<Field> {
    let (endpoints, flows) = (choices.endpoints.as_deref().unwrap_or(&[]), choices.flows.as_deref().unwrap_or(&[]));
    let (metrics, personas) = (choices.metrics.as_deref().unwrap_or(&[]), choices.personas.as_deref().unwrap_or(&[]));
    let agents = choices.agents.as_deref().unwrap_or(&[]);
    let endpoint_label = |e: &AgentEndpoint| {
        let agent = agents.iter().find(|a| Some(a.id) == e.agent_id).and_then(|a| a.name.as_deref());
        let number = e.value.as_deref().map(phone);
        let kind = e.endpoint_type.as_ref().map(|t| t.as_str());
        let parts = [agent, number.as_deref(), e.environment.as_deref(), kind];
        parts.into_iter().flatten().collect::<Vec<_>>().join(" · ")
    };
    // As the flows tab lists them: by title.
    let mut flows: Vec<&CustomerFlow> = flows.iter().collect();
    flows.sort_by(|a, b| crate::console::panes::section::text_cmp(a.title.as_deref(), b.title.as_deref()));
    let mut fields = vec![
        Field::text("name", "name", "", "required · at least 1 character"),
        Field::text("description", "description", "", "optional"),
        Field::choice::<Direction>("direction", "direction", None, false)
            .with_hint(format!("required · one of {}", Direction::known_list())),
        Field::pick(
            "agentEndpoints",
            "agent endpoints",
            endpoints.iter().map(|e| Opt::new(e.id.to_string(), endpoint_label(e))).collect(),
            "required · at least 1 · type or ←→ to find, space picks",
        ),
        Field::pick(
            "flows",
            "flows",
            flows.iter().map(|f| Opt::new(f.id.to_string(), flow_label(f))).collect(),
            "required · at least 1 · each picked flow adds its options below",
        ),
    ];
    for flow in &flows {
        fields.extend(flow_fields(flow, personas));
    }
    let by = |m: &MetricDefinition| if m.slug.is_some() { "slug" } else { "id" };
    let metric_options = metrics.iter().map(|m| {
        let name = m.name.as_deref().unwrap_or("unnamed");
        Opt::new(metric_value(m), format!("{name} (by {} {})", by(m), metric_value(m)))
    });
    fields.push(Field::pick(
        "metrics",
        "metrics",
        metric_options.collect(),
        "required · at least 1 · by slug, or by id when the metric has none",
    ));
    for metric in metrics {
        let mut sources: Vec<Opt> =
            metric.supported_conversation_sources.iter().map(|s| Opt::new(s.as_str(), s.as_str())).collect();
        if sources.is_empty() {
            sources = ConversationSource::known().iter().map(|s| Opt::new(s.as_str(), s.as_str())).collect();
        }
        let label = format!("  ↳ {}: conversation source", metric.name.as_deref().unwrap_or("metric"));
        let field = Field::options(metric_param(&metric_value(metric)), label, sources, Some("SIMULATED"), false)
            .with_hint("default SIMULATED · LIVE scores the real call (needs live enrichment)");
        fields.push(field.when_picked("metrics", metric_value(metric)));
        // Only a check judges the run; an observation's bar would have no effect.
        if metric.is_check() {
            let label = format!("  ↳ {}: min pass rate (%)", metric.name.as_deref().unwrap_or("metric"));
            let hint =
                format!("default {DEFAULT_MIN_PASS_RATE} · 0–100 · the share of simulations that must pass this check");
            let field = Field::text(min_pass_rate_param(&metric_value(metric)), label, "", hint);
            fields.push(field.when_picked("metrics", metric_value(metric)));
        }
    }
    fields.extend(option_fields(personas));
    fields
}

/// The fields a picked flow brings, shown only while it is picked.
fn flow_fields(flow: &CustomerFlow, personas: &[Persona]) -> Vec<Field> {
    let id = flow.id;
    let name = flow.title.as_deref().unwrap_or("flow");
    let label = |what: &str| format!("  ↳ {name}: {what}");
    let shown = |f: Field| f.when_picked("flows", id.to_string());
    let mut fields =
        vec![shown(Field::yes_no(flow_param(&id, "happyPath"), label("happy path"), true, "runs the flow as written"))];
    if !flow.edge_cases.is_empty() {
        let options = vec![
            Opt::new(EDGE_NONE, "none"),
            Opt::new(EDGE_ALL, "ALL (every edge case, also ones added later)"),
            Opt::new(EDGE_PICKED, "picked ones"),
        ];
        let hint = format!("default none · {} edge cases", flow.edge_cases.len());
        let edge_cases = Field::options(flow_param(&id, "edgeCases"), label("edge cases"), options, None, false);
        fields.push(shown(edge_cases.with_hint(hint)));
        let cases =
            flow.edge_cases.iter().map(|v| Opt::new(v.id.to_string(), v.title.as_deref().unwrap_or("edge case")));
        let picked =
            Field::pick(flow_param(&id, "edgeCaseIds"), label("which edge cases"), cases.collect(), "at least 1");
        // Only while "picked ones" is chosen (a field has one condition; the edge-case choice
        // is itself hidden, and so empty, while the flow is not picked).
        fields.push(picked.when(flow_param(&id, "edgeCases"), &[EDGE_PICKED]));
        for case in &flow.edge_cases {
            fields.extend(edge_case_fields(&id, case, personas));
        }
    }
    fields.push(shown(
        Field::options(
            flow_param(&id, "personaOverrideId"),
            label("persona override"),
            persona_options(personas),
            None,
            true,
        )
        .with_hint("default the flow's own persona"),
    ));
    fields.push(shown(Field::text(
        flow_param(&id, "variables"),
        label("variables"),
        "",
        "optional · k=v, k=v · fills {{name}}",
    )));
    fields
}

pub(super) fn edge_param(case: &Uuid, what: &str) -> String {
    format!("edge:{case}.{what}")
}

/// A picked edge case's own persona override and values, shown while it is picked (and so
/// hidden with the pick when the flow or "picked ones" is not chosen).
fn edge_case_fields(flow: &Uuid, case: &FlowVariant, personas: &[Persona]) -> Vec<Field> {
    let name = case.title.as_deref().unwrap_or("edge case");
    let label = |what: &str| format!("      ↳ {name}: {what}");
    let persona = Field::options(
        edge_param(&case.id, "personaOverrideId"),
        label("persona"),
        persona_options(personas),
        None,
        true,
    )
    .with_hint("default the flow's override, else its own");
    let variables = Field::text(edge_param(&case.id, "variables"), label("variables"), "", "optional · k=v, k=v");
    let picked = flow_param(flow, "edgeCaseIds");
    vec![persona.when_picked(&picked, case.id.to_string()), variables.when_picked(picked, case.id.to_string())]
}

/// Every option with its default, then the deprecated members.
fn option_fields(personas: &[Persona]) -> Vec<Field> {
    let modes = ExecutionMode::known().iter().map(|m| Opt::new(m.as_str(), m.as_str())).collect();
    vec![
        Field::text(
            "iterationCount",
            "iterations",
            "",
            format!("default {ITERATION_COUNT_DEFAULT} · {ITERATION_COUNT_MIN}–{ITERATION_COUNT_MAX} per test case"),
        ),
        Field::text(
            "maxConcurrentJobs",
            "concurrency",
            "",
            format!("default {MAX_CONCURRENT_JOBS_DEFAULT} · at least {MAX_CONCURRENT_JOBS_MIN}"),
        ),
        Field::text(
            "maxSimulationDurationSeconds",
            "max duration",
            "",
            format!(
                "default {MAX_DURATION_DEFAULT} s · at least {MAX_SIMULATION_DURATION_SECONDS_MIN} s · per simulation"
            ),
        ),
        Field::text(
            "silenceTimeoutSeconds",
            "silence timeout",
            "",
            format!("default {SILENCE_TIMEOUT_SECONDS_DEFAULT} s · at least {SILENCE_TIMEOUT_SECONDS_MIN} s"),
        ),
        Field::text(
            "endCallPhrases",
            "end-call phrases",
            "",
            format!("default {END_CALL_PHRASE_DEFAULT} · comma-separated · `none` turns it off"),
        ),
        Field::text(
            "endCallReasons",
            "end-call reasons",
            "",
            "default none · comma-separated conditions judged on the call",
        ),
        Field::options("executionMode", "execution mode", modes, Some("PARALLEL"), false)
            .with_hint(format!("default PARALLEL · one of {}", ExecutionMode::known_list())),
        Field::yes_no("includeFlowMetrics", "flow metrics", true, "also collects each flow's own metrics"),
        Field::yes_no("includeAutomaticMetrics", "automatic metrics", true, "the run may add metrics from flows"),
        Field::yes_no(
            "enrichWithLiveConversation",
            "live enrichment",
            false,
            "holds each call up to 15 min for the real one",
        ),
        Field::text("scenarios", "scenarios (deprecated: use flows)", "", "optional · scenario ids, comma-separated"),
        Field::pick("personas", "personas (deprecated: goes with scenarios)", persona_options(personas), "optional"),
        Field::yes_no("autoRun", "auto run (deprecated: run with R)", false, "starts a job on save"),
    ]
}
