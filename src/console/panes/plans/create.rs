//! `c`: a new run plan. The form opens once the endpoints, flows, metrics and personas it
//! offers have arrived. Each picked flow brings its own fields (happy path, edge cases `ALL` or
//! picked ones, persona override, variables) and each picked metric its conversation source;
//! every option shows its default, and the deprecated members are there, marked as such.

use uuid::Uuid;

use super::run::parse_variables;
use crate::api::model::{
    AgentEndpoint, ConversationSource, CustomerFlow, Direction, EdgeCaseSelection, EdgeCases, ExecutionMode,
    FlowSelection, FlowVariant, IdRef, MetricDefinition, MetricReference, Persona, RunPlanInput, ScenarioSelection,
    run_plan_limits::*,
};
use crate::api::validate::{Checks, Validate, Violation};
use crate::api::wire_enum::WireEnum;
use crate::console::message::{FetchError, Fetched, ListKind, Listed, Listing, Request, Write};
use crate::console::pane::Out;
use crate::console::widgets::form::{Field, Form, NO, Opt, YES};

/// What the form offers, asked for fresh each time it opens.
const KINDS: [ListKind; 4] =
    [ListKind::AgentEndpoints, ListKind::Flows, ListKind::MetricDefinitions, ListKind::Personas];

/// The edge-case choices of a flow: none, every one (`ALL`, also ones added later), or picked.
const EDGE_NONE: &str = "";
const EDGE_ALL: &str = "ALL";
const EDGE_PICKED: &str = "picked";

#[derive(Default, Clone)]
struct Choices {
    endpoints: Option<Vec<AgentEndpoint>>,
    flows: Option<Vec<CustomerFlow>>,
    metrics: Option<Vec<MetricDefinition>>,
    personas: Option<Vec<Persona>>,
}

impl Choices {
    fn take(&mut self, listing: &Listing) {
        fn put<T: Listed + Clone>(slot: &mut Option<Vec<T>>, listing: &Listing) {
            if let Some(items) = T::take(listing) {
                *slot = Some(items.clone());
            }
        }
        put(&mut self.endpoints, listing);
        put(&mut self.flows, listing);
        put(&mut self.metrics, listing);
        put(&mut self.personas, listing);
    }

    fn complete(&self) -> bool {
        self.endpoints.is_some() && self.flows.is_some() && self.metrics.is_some() && self.personas.is_some()
    }
}

/// The create form, from `c` until its choices arrive.
#[derive(Default)]
pub struct Create {
    gathering: Option<Choices>,
}

impl Create {
    pub fn start(&mut self, out: &mut Out) {
        self.gathering = Some(Choices::default());
        KINDS.iter().for_each(|kind| out.fetch(Request::List(*kind)));
    }

    /// Takes the lists it waits for and opens the form when it has them all. Personas are
    /// optional (only overrides use them); without any of the others there is no plan to make.
    /// True when the form opened.
    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, out: &mut Out) -> bool {
        let (Some(choices), Request::List(kind)) = (&mut self.gathering, request) else { return false };
        if !KINDS.contains(kind) {
            return false;
        }
        match result {
            Ok(Fetched::List(listing)) => choices.take(listing),
            Err(_) if *kind == ListKind::Personas => choices.personas = Some(Vec::new()),
            Err(error) => {
                self.gathering = None;
                out.error(format!("cannot create a plan without the {}: {}", kind.label(), error.message));
                return true;
            }
            Ok(_) => return false,
        }
        if !choices.complete() {
            return false;
        }
        let choices = self.gathering.take().unwrap_or_default();
        open(&mut out.modal, choices);
        true
    }
}

fn flow_param(id: &Uuid, what: &str) -> String {
    format!("flow:{id}.{what}")
}

fn metric_param(value: &str) -> String {
    format!("metric:{value}.conversationSource")
}

/// A metric is picked by its slug when it has one, else by id.
fn metric_value(m: &MetricDefinition) -> String {
    m.slug.clone().unwrap_or_else(|| m.id.to_string())
}

fn flow_label(f: &CustomerFlow) -> String {
    let kind = f.flow_type.as_ref().map(|t| format!(" ({})", t.as_str())).unwrap_or_default();
    format!("{}{kind}", f.title.as_deref().unwrap_or("untitled flow"))
}

fn persona_options(personas: &[Persona]) -> Vec<Opt> {
    personas.iter().map(|p| Opt::new(p.id.to_string(), p.label())).collect()
}

fn fields(choices: &Choices) -> Vec<Field> {
    let (endpoints, flows) = (choices.endpoints.as_deref().unwrap_or(&[]), choices.flows.as_deref().unwrap_or(&[]));
    let (metrics, personas) = (choices.metrics.as_deref().unwrap_or(&[]), choices.personas.as_deref().unwrap_or(&[]));
    let endpoint_label = |e: &AgentEndpoint| {
        let parts = [e.value.as_deref(), e.environment.as_deref(), e.endpoint_type.as_ref().map(|t| t.as_str())];
        parts.into_iter().flatten().collect::<Vec<_>>().join(" · ")
    };
    let mut fields = vec![
        Field::text("name", "name", "", "required · at least 1 character"),
        Field::text("description", "description", "", "optional"),
        Field::choice::<Direction>("direction", "direction", None, false)
            .with_hint(format!("required · one of {}", Direction::known_list())),
        Field::pick(
            "agentEndpoints",
            "agent endpoints",
            endpoints.iter().map(|e| Opt::new(e.id.to_string(), endpoint_label(e))).collect(),
            "required · at least 1 · ←→ browse, space picks",
        ),
        Field::pick(
            "flows",
            "flows",
            flows.iter().map(|f| Opt::new(f.id.to_string(), flow_label(f))).collect(),
            "required · at least 1 · each picked flow adds its options below",
        ),
    ];
    for flow in flows {
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

fn edge_param(case: &Uuid, what: &str) -> String {
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
            "max duration (s)",
            "",
            format!("required · at least {MAX_SIMULATION_DURATION_SECONDS_MIN} · per simulation"),
        ),
        Field::text(
            "silenceTimeoutSeconds",
            "silence timeout (s)",
            "",
            format!("default {SILENCE_TIMEOUT_SECONDS_DEFAULT} · at least {SILENCE_TIMEOUT_SECONDS_MIN}"),
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

fn variables(form: &Form, param: &str, c: &mut Checks) -> Option<crate::api::model::Variables> {
    match parse_variables(&form.value(param)) {
        Ok(vars) => (!vars.is_empty()).then_some(vars),
        Err(message) => {
            c.invalid(param, message);
            None
        }
    }
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

fn metric_reference(form: &Form, value: &str) -> MetricReference {
    let source =
        form.opt(&metric_param(value)).filter(|s| s != "SIMULATED").map(|s| ConversationSource::from(s.as_str()));
    let mut reference = match value.parse::<Uuid>() {
        Ok(id) => MetricReference { id: Some(id), ..Default::default() },
        Err(_) => MetricReference::by_slug(value),
    };
    reference.conversation_source = source;
    reference
}

/// Picked values of `param`, or none when nothing is picked.
fn picked(form: &Form, param: &str) -> Option<Vec<String>> {
    Some(form.field(param)?.picked()).filter(|p| !p.is_empty())
}

fn input(form: &Form, c: &mut Checks) -> RunPlanInput {
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
        max_simulation_duration_seconds: form.integer("maxSimulationDurationSeconds", c),
        silence_timeout_seconds: form.integer("silenceTimeoutSeconds", c),
        end_call_phrases: list(form, "endCallPhrases"),
        end_call_reasons: list(form, "endCallReasons"),
        execution_mode: form.opt("executionMode").filter(|m| m != "PARALLEL").map(|m| ExecutionMode::from(m.as_str())),
        scenarios,
        flows: picked(form, "flows").map(|ids| ids.iter().map(|id| flow_selection(form, id, c)).collect()),
        personas: ids("personas"),
        agent_endpoints: ids("agentEndpoints"),
        metrics: picked(form, "metrics").map(|values| values.iter().map(|v| metric_reference(form, v)).collect()),
        include_flow_metrics: flag(form, "includeFlowMetrics", true),
        include_automatic_metrics: flag(form, "includeAutomaticMetrics", true),
        enrich_with_live_conversation: flag(form, "enrichWithLiveConversation", false),
        auto_run: flag(form, "autoRun", false),
        ..Default::default()
    }
}

/// `flows[1].happyPath` is the field of the second picked flow; `metrics[0].conversationSource`
/// that of the first picked metric.
fn rename(form: &Form, param: &str) -> Option<String> {
    let (array, rest) = param.split_once('[')?;
    let (index, rest) = rest.split_once(']')?;
    let value = form.field(array)?.picked().into_iter().nth(index.parse().ok()?)?;
    match array {
        // `flows[0].edgeCases[1].variables` is the second picked edge case's own field.
        "flows" => match rest.strip_prefix(".edgeCases") {
            Some(case) if case.starts_with('[') => {
                let picked = format!("flow:{value}.edgeCaseIds");
                let renamed = rename(form, &format!("{picked}{case}"))?;
                Some(renamed).filter(|r| form.field(r).is_some()).or(Some(format!("flow:{value}{rest}")))
            }
            _ => Some(format!("flow:{value}{rest}")),
        },
        "metrics" if rest.starts_with(".conversationSource") => Some(metric_param(&value)),
        _ if array.ends_with(".edgeCaseIds") => Some(format!("edge:{value}{rest}")),
        _ => None,
    }
}

fn check(form: &Form) -> Vec<Violation> {
    let mut c = Checks::default();
    let input = input(form, &mut c);
    let mut violations = c.into_violations();
    violations.extend(input.validate());
    violations
}

fn open(modal: &mut crate::console::widgets::modal::Modal, choices: Choices) {
    let form = Form::new("new run plan", fields(&choices), check).with_rename(rename);
    modal.form(form, |form| Write::CreatePlan(Box::new(input(form, &mut Checks::default()))));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_on_the_second_picked_flow_lands_on_its_field() {
        let flows: Vec<CustomerFlow> = (0..3)
            .map(|i| {
                serde_json::from_value(serde_json::json!({"id": Uuid::from_u128(i + 1), "title": format!("f{i}")}))
                    .unwrap()
            })
            .collect();
        let choices = Choices {
            flows: Some(flows.clone()),
            endpoints: Some(vec![]),
            metrics: Some(vec![]),
            personas: Some(vec![]),
        };
        let mut form = Form::new("t", fields(&choices), |_| vec![]).with_rename(rename);
        let picks = form.field_mut("flows").unwrap();
        picks.set_picked(&flows[0].id.to_string(), true);
        picks.set_picked(&flows[2].id.to_string(), true);
        assert_eq!(rename(&form, "flows[1].happyPath"), Some(format!("flow:{}.happyPath", flows[2].id)));
        form.failed(&crate::console::message::WriteError {
            unreachable: false,
            message: "no".into(),
            fields: vec![("flows[1].happyPath".into(), "nothing to run".into())],
        });
        let param = flow_param(&flows[2].id, "happyPath");
        assert_eq!(form.field(&param).unwrap().error.as_deref(), Some("nothing to run"));
    }

    #[test]
    fn an_error_on_a_picked_edge_case_lands_on_its_own_field() {
        let case = |i: u128| serde_json::json!({"id": Uuid::from_u128(100 + i), "title": format!("case {i}")});
        let flow: CustomerFlow = serde_json::from_value(
            serde_json::json!({"id": Uuid::from_u128(1), "title": "f", "edgeCases": [case(0), case(1)]}),
        )
        .unwrap();
        let choices = Choices {
            flows: Some(vec![flow.clone()]),
            endpoints: Some(vec![]),
            metrics: Some(vec![]),
            personas: Some(vec![]),
        };
        let mut form = Form::new("t", fields(&choices), |_| vec![]).with_rename(rename);
        form.field_mut("flows").unwrap().set_picked(&flow.id.to_string(), true);
        let picked = flow_param(&flow.id, "edgeCaseIds");
        form.field_mut(&picked).unwrap().set_picked(&Uuid::from_u128(101).to_string(), true);
        form.focus_on(&flow_param(&flow.id, "edgeCases"));
        for _ in 0..2 {
            form.key(crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Right));
        }
        assert_eq!(form.value(&flow_param(&flow.id, "edgeCases")), EDGE_PICKED);
        let variables = edge_param(&Uuid::from_u128(101), "variables");
        assert_eq!(rename(&form, "flows[0].edgeCases[0].variables").as_deref(), Some(variables.as_str()));
        let unknown = rename(&form, "flows[0].edgeCases[0].id");
        assert_eq!(unknown, Some(format!("flow:{}.edgeCases[0].id", flow.id)), "owned by the edge-case choice");
    }
}
