//! Starting runs: a plan's references checked, its combinations resolved (endpoints × flow
//! variants × iterations, or the deprecated scenarios × personas), and a PENDING job written
//! with one PENDING simulation job each and the tally its verdict will be kept in.

use crate::service::store::Tx;
use uuid::Uuid;

mod placing;
mod refusals;

use placing::Placing;

use refusals::refuse_improv_without_caller;
pub use refusals::{Caller, check_references, needs_caller_model, resolve_flow};

use super::placeholders::{self, Placeholder};
use super::selection::variables_for;
use crate::api::model::flow_and_automatic_metrics;
use crate::api::model::*;
use crate::service::error::{DomainError, DomainResult};
use crate::service::metrics::definitions;
use crate::service::sim::verdict::Tally;
use crate::service::store::{self, Doc, Kind};

use crate::service::store::StoreResult;
use std::collections::HashMap;

/// Saves a plan and, with the deprecated `autoRun`, starts it.
pub fn create_plan(tx: &Tx, input: RunPlanInput, caller: Caller) -> DomainResult<RunPlanCreated> {
    check_references(tx, &input, "")?;
    let plan = plan_of(tx, input, "")?;
    store::insert(tx, &Doc::of(&plan)?)?;
    let job = if plan.plan.auto_run == Some(true) {
        refuse_improv_without_caller(tx, &plan.plan, "", caller)?;
        Some(start_job(tx, &plan, None, "")?)
    } else {
        None
    };
    Ok(RunPlanCreated { run_plan: plan, run_plan_job: job })
}

/// A plan as it is kept (saved or run inline): every default written out, every metric named by
/// its `id` as well, how many test cases it places, and when its schedule first runs it.
pub fn plan_of(tx: &Tx, input: RunPlanInput, at: &str) -> DomainResult<RunPlan> {
    let mut plan = input.resolved();
    for reference in plan.metrics.iter_mut().flatten() {
        let key = reference.id.map(|id| id.to_string()).or(reference.slug_or_alias().map(str::to_owned));
        if let Some(definition) = key.map(|key| definitions::find(tx, &key)).transpose()?.flatten() {
            reference.id = Some(definition.id);
        }
    }
    let test_cases = combinations(tx, &plan, at)?.len() as u64;
    let now = Timestamp::now();
    Ok(RunPlan {
        id: Uuid::new_v4(),
        created_at: Some(now.clone()),
        updated_at: Some(now),
        test_case_count: Some(test_cases),
        is_config_managed: Some(false),
        template: None,
        comparison_property: None,
        comparison_baseline: None,
        evaluators: Vec::new(),
        next_run_at: None,
        plan,
    })
    .map(|mut plan| {
        plan.next_run_at = super::plans::first_run(&plan);
        plan
    })
}

/// Starts the job of a scheduled plan's slot, as the run operation would start the saved plan.
pub fn start_scheduled(tx: &Tx, plan: &RunPlan, caller: Caller) -> DomainResult<RunPlanJob> {
    check_references(tx, &plan.plan, "")?;
    refuse_improv_without_caller(tx, &plan.plan, "", caller)?;
    start_job_at(tx, plan, None, "", Timestamp::now(), JobTrigger::Scheduled)
}

/// The run operation: a saved plan by id, or an inline plan (saved when asked).
pub fn run(tx: &Tx, request: RunRequest, caller: Caller) -> DomainResult<RunStarted> {
    let at = if request.plan.is_some() { "plan" } else { "" };
    let (plan, saved) = match (request.plan_id, request.plan.clone()) {
        (Some(id), _) => {
            let plan: RunPlan = store::get(tx, Kind::RunPlan, &id.to_string())?
                .ok_or_else(|| DomainError::invalid("planId", format!("no run plan {id}")))?;
            check_references(tx, &plan.plan, "")?;
            (plan, true)
        }
        (None, Some(input)) => {
            check_references(tx, &input, "plan")?;
            let mut plan = plan_of(tx, input, "plan")?;
            let save = request.save_as_plan == Some(true);
            if save {
                store::insert(tx, &Doc::of(&plan)?)?;
            } else if let Some(saved) = saved_plan_named(tx, plan.name())? {
                // An inline copy of a saved plan (`--agent-url`, `--only`, `--rerun-failed`) is
                // one of its runs: listed, counted and shown under it, not under an id of its own.
                plan.id = saved;
            }
            (plan, save)
        }
        (None, None) => return Err(DomainError::invalid("planId", "give planId or plan")),
    };
    refuse_improv_without_caller(tx, &plan.plan, at, caller)?;
    let job = start_job(tx, &plan, request.variables.as_ref(), at)?;
    Ok(RunStarted {
        simulation_run_plan_job_id: job.simulation_run_plan_job_id,
        // An unsaved inline plan has an id of its own too (the hosted interface always names one).
        simulation_run_plan_id: Some(plan.id),
        simulation_job_count: job.simulation_job_count.unwrap_or_default(),
        saved_as_plan: saved && request.plan.is_some(),
        status: job.status,
        created_at: job.created_at,
    })
}

/// The saved plan named `name`, when exactly one is (found by the stored member, no plan
/// decoded: a run asks this of every saved plan).
fn saved_plan_named(tx: &Tx, name: &str) -> DomainResult<Option<Uuid>> {
    let named = store::ids_where(tx, Kind::RunPlan, "$.name", name, 2)?;
    match named.as_slice() {
        [id] => Uuid::parse_str(id).map(Some).map_err(|e| DomainError::fault(format!("run plan {id}: {e}"))),
        _ => Ok(None),
    }
}

/// One simulation to run: which endpoint, flow variant (or scenario), persona and noise.
struct Combination {
    endpoint: AgentEndpoint,
    flow: Option<JobFlow>,
    scenario: Option<ScenarioSummary>,
    persona: Option<Persona>,
    noise: JobBackgroundNoise,
    /// The values its flow selection (and edge case entry) gives, however the flow was chosen.
    selected: Variables,
    /// Which iteration of its test case it is, from 0.
    iteration: usize,
}

/// A variant's test case as it is resolved: the flow it runs, the scenario it stands for, the
/// persona, the background noise, the values its selection gives, and the placeholders it uses.
struct Variant {
    flow: Option<JobFlow>,
    scenario: Option<ScenarioSummary>,
    persona: Option<Persona>,
    noise: JobBackgroundNoise,
    selected: Variables,
    placeholders: Vec<Placeholder>,
    /// Where the plan chose it (`flows[1]`), for people.
    chosen_at: String,
}

/// The noise a call has: the variant's environment's, else the persona's.
fn noise_of(variant: Option<&FlowVariant>, persona: Option<&Persona>) -> JobBackgroundNoise {
    if let Some(environment) = variant.and_then(|v| v.environment.as_ref())
        && let Some(noise) = environment.background_noise.clone()
    {
        let volume = environment.background_noise_volume.unwrap_or(DEFAULT_NOISE_VOLUME);
        return JobBackgroundNoise {
            background_noise: noise,
            background_noise_volume: volume,
            source: NoiseSource::Environment,
        };
    }
    let noise = persona.and_then(|p| p.fields.background_noise.clone()).unwrap_or(BackgroundNoise::None);
    let volume = if noise == BackgroundNoise::None { 0.0 } else { DEFAULT_NOISE_VOLUME };
    JobBackgroundNoise { background_noise: noise, background_noise_volume: volume, source: NoiseSource::Persona }
}

/// The volume of a persona's background noise (the hosted environment default).
const DEFAULT_NOISE_VOLUME: f64 = 0.1;

/// Endpoints × resolved variants × iterations (or scenarios × personas), as the spec says.
/// More than `SIMULATIONS_PER_RUN_MAX` is refused, naming `iterationCount` under `at`, before
/// any of them is built.
fn combinations(tx: &Tx, plan: &RunPlanInput, at: &str) -> DomainResult<Combinations> {
    let endpoints: Vec<AgentEndpoint> = plan
        .agent_endpoints
        .iter()
        .flatten()
        .map(|e| store::require(tx, Kind::AgentEndpoint, &e.id.to_string()))
        .collect::<StoreResult<_>>()?;
    let mut variants: Vec<Variant> = Vec::new();
    for (i, selection) in plan.flow_selections().iter().enumerate() {
        let flow = resolve_flow(tx, selection)?;
        let selection_persona: Option<Persona> =
            selection.persona_override_id.map(|id| store::require(tx, Kind::Persona, &id.to_string())).transpose()?;
        let job_flow = |variant: &FlowVariant, happy: bool| JobFlow {
            id: flow.id,
            title: flow.title.clone(),
            variant_id: Some(variant.id),
            variant_title: variant.title.clone(),
            happy_path: Some(happy),
        };
        let scenario = |variant: &FlowVariant| ScenarioSummary { id: variant.id, description: variant.title.clone() };
        let selected = selection.variables.clone().unwrap_or_default();
        let mut push = |variant: &FlowVariant, happy: bool, persona: Option<Persona>, own: Option<&Variables>| {
            let noise = noise_of(Some(variant), persona.as_ref());
            let mut values = selected.clone();
            values.extend(own.cloned().unwrap_or_default());
            variants.push(Variant {
                flow: Some(job_flow(variant, happy)),
                scenario: Some(scenario(variant)),
                persona,
                noise,
                selected: values,
                placeholders: placeholders::used_by(&flow, Some(variant)),
                chosen_at: format!("flows[{i}]"),
            });
        };
        if selection.happy_path == Some(true)
            && let Some(happy) = &flow.happy_path
        {
            push(happy, true, selection_persona.clone().or(happy.persona_override.clone()), None);
        }
        match &selection.edge_cases {
            Some(EdgeCases::All) => {
                for edge in &flow.edge_cases {
                    push(edge, false, selection_persona.clone().or(edge.persona_override.clone()), None);
                }
            }
            Some(EdgeCases::List(list)) => {
                for chosen in list {
                    let Some(edge) = flow.edge_cases.iter().find(|e| Some(e.id) == chosen.id) else { continue };
                    let own: Option<Persona> = chosen
                        .persona_override_id
                        .map(|id| store::require(tx, Kind::Persona, &id.to_string()))
                        .transpose()?;
                    let persona = own.or(selection_persona.clone()).or(edge.persona_override.clone());
                    push(edge, false, persona, chosen.variables.as_ref());
                }
            }
            None => {}
        }
    }
    if !plan.runs_flows() {
        for scenario in plan.scenarios.iter().flatten() {
            for persona in plan.personas.iter().flatten() {
                let persona: Persona = store::require(tx, Kind::Persona, &persona.id.to_string())?;
                let summary = ScenarioSummary { id: scenario.id.unwrap_or_default(), description: None };
                let noise = noise_of(None, Some(&persona));
                variants.push(Variant {
                    flow: None,
                    scenario: Some(summary),
                    persona: Some(persona),
                    noise,
                    selected: Variables::new(),
                    placeholders: Vec::new(),
                    chosen_at: String::new(),
                });
            }
        }
    }
    let iterations = plan.iteration_count_or_default().max(0) as usize;
    let count = endpoints.len().saturating_mul(variants.len()).saturating_mul(iterations);
    let max = run_plan_limits::SIMULATIONS_PER_RUN_MAX as usize;
    if count > max {
        let param = if at.is_empty() { "iterationCount".to_owned() } else { format!("{at}.iterationCount") };
        let message = format!(
            "this run would create {count} simulations ({iterations} iterations × {} test cases × {} agent \
             endpoints); at most {max} are allowed",
            variants.len(),
            endpoints.len()
        );
        return Err(DomainError::invalid(param, message));
    }
    Ok(Combinations { endpoints, variants, iterations })
}

/// A run's test cases, made one at a time as they are written.
struct Combinations {
    endpoints: Vec<AgentEndpoint>,
    variants: Vec<Variant>,
    iterations: usize,
}

impl Combinations {
    fn len(&self) -> usize {
        self.endpoints.len() * self.variants.len() * self.iterations
    }

    /// Refuses the run when a test case would leave a `{{placeholder}}` unfilled, naming every
    /// one at once.
    fn check_filled(&self, runtime: Option<&RunVariables>) -> DomainResult<()> {
        let mut refused = Vec::new();
        for variant in &self.variants {
            if variant.placeholders.is_empty() {
                continue;
            }
            let values = variables_for(variant.selected.clone(), runtime, variant.flow.as_ref());
            let case = match &variant.flow {
                Some(flow) => format!(
                    "{}: flow \"{}\", variant \"{}\"{}",
                    variant.chosen_at,
                    flow.title.as_deref().unwrap_or("untitled"),
                    flow.variant_title.as_deref().unwrap_or("untitled"),
                    variant.persona.as_ref().map(|p| format!(", persona \"{}\"", p.label())).unwrap_or_default()
                ),
                None => "the scenario".to_owned(),
            };
            for violation in placeholders::unfilled(&variant.placeholders, &values, variant.persona.as_ref(), &case) {
                // Each test case that lacks a name is named: the same name may be missing from
                // several flows, each needing it given in its own selection.
                if !refused.contains(&violation) {
                    refused.push(violation);
                }
            }
        }
        DomainError::check(refused)
    }

    /// Endpoint by endpoint, variant by variant, each variant's iterations together.
    fn iter(&self) -> impl Iterator<Item = Combination> + '_ {
        self.endpoints.iter().flat_map(move |endpoint| {
            self.variants.iter().flat_map(move |variant| {
                (0..self.iterations).map(move |iteration| Combination {
                    endpoint: endpoint.clone(),
                    flow: variant.flow.clone(),
                    scenario: variant.scenario.clone(),
                    persona: variant.persona.clone(),
                    noise: variant.noise.clone(),
                    selected: variant.selected.clone(),
                    iteration,
                })
            })
        })
    }
}

/// Creates a PENDING run plan job and one PENDING simulation job per combination.
fn start_job(tx: &Tx, plan: &RunPlan, variables: Option<&RunVariables>, at_path: &str) -> DomainResult<RunPlanJob> {
    start_job_at(tx, plan, variables, at_path, Timestamp::now(), JobTrigger::TriggeredFromApi)
}

/// The same, created at `at` by `trigger` (the seeded history's nights are SCHEDULED).
pub fn start_job_at(
    tx: &Tx,
    plan: &RunPlan,
    variables: Option<&RunVariables>,
    at_path: &str,
    at: Timestamp,
    trigger: JobTrigger,
) -> DomainResult<RunPlanJob> {
    let agents = store::all::<Agent>(tx, Kind::Agent)?.into_iter().map(|a| (a.id, a)).collect();
    let combinations = combinations(tx, &plan.plan, at_path)?;
    combinations.check_filled(variables)?;
    let placing = Placing { plan, variables, job_id: Uuid::new_v4(), at: &at, agents };
    let mut placed: u64 = 0;
    let mut inserts = store::Inserts::new(tx);
    for (placement, combo) in combinations.iter().enumerate() {
        placing.place(&mut inserts, placement, combo)?;
        placed += 1;
    }
    inserts.finish()?;
    let tally = Tally::new(plan_checks(tx, &plan.plan)?, placed);
    placing.place_job(tx, tally, placed, trigger)
}

/// The metrics a run is judged by, with the bar each must clear: the plan's own at the bar its
/// reference sets, then the flows' and the automatic ones at the default. Metrics the run will
/// skip (live-only without live enrichment) are left out. Which of them are checks is
/// `verdict::is_check`'s to say.
fn plan_checks(tx: &Tx, plan: &RunPlanInput) -> DomainResult<Vec<(MetricDefinition, f64, bool)>> {
    let live = plan.enrich_with_live_conversation == Some(true);
    let runs = |d: &MetricDefinition| live || d.requires_live_conversation != Some(true);
    let mut out: Vec<(MetricDefinition, f64, bool)> = Vec::new();
    for reference in plan.metrics.iter().flatten() {
        let key = reference.id.map(|id| id.to_string()).or(reference.slug_or_alias().map(str::to_owned));
        let Some(definition) = key.map(|key| definitions::find(tx, &key)).transpose()?.flatten() else { continue };
        if runs(&definition) && !out.iter().any(|(d, ..)| d.id == definition.id) {
            let (rate, inherited) = reference.min_pass_rate_or_default();
            out.push((definition, rate, inherited));
        }
    }
    if plan.runs_flows() {
        let all: HashMap<Uuid, MetricDefinition> =
            store::all::<MetricDefinition>(tx, Kind::MetricDefinition)?.into_iter().map(|d| (d.id, d)).collect();
        let chosen: Vec<MetricDefinition> = out.iter().map(|(d, ..)| d.clone()).collect();
        for selection in plan.flow_selections() {
            let flow = resolve_flow(tx, selection)?;
            for definition in flow_and_automatic_metrics(plan, &flow, &all, &chosen) {
                if runs(&definition) && !out.iter().any(|(d, ..)| d.id == definition.id) {
                    out.push((definition, DEFAULT_MIN_PASS_RATE, true));
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
