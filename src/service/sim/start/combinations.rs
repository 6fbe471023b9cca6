//! A run's combinations: endpoints × the flow variants its selections resolve to ×
//! iterations (or the deprecated scenarios × personas), each variant with its persona, noise,
//! values and placeholders, refused whole when it would make too many simulations or leave a
//! placeholder unfilled.

use crate::api::model::*;
use crate::service::error::{DomainError, DomainResult};
use crate::service::sim::placeholders::{self, Placeholder};
use crate::service::sim::selection::variables_for;
use crate::service::store::{self, Kind, StoreResult, Tx};

/// One simulation to run: which endpoint, flow variant (or scenario), persona and noise.
pub(super) struct Combination {
    pub(super) endpoint: AgentEndpoint,
    pub(super) flow: Option<JobFlow>,
    pub(super) scenario: Option<ScenarioSummary>,
    pub(super) persona: Option<Persona>,
    pub(super) noise: JobBackgroundNoise,
    /// The values its flow selection (and edge case entry) gives, however the flow was chosen.
    pub(super) selected: Variables,
    /// Which iteration of its test case it is, from 0.
    pub(super) iteration: usize,
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
/// any of them is built. `flows` are those the plan's selections name, in order.
pub(super) fn combinations(
    tx: &Tx,
    plan: &RunPlanInput,
    flows: &[CustomerFlow],
    at: &str,
) -> DomainResult<Combinations> {
    let endpoints: Vec<AgentEndpoint> = plan
        .agent_endpoints
        .iter()
        .flatten()
        .map(|e| store::require(tx, Kind::AgentEndpoint, &e.id.to_string()))
        .collect::<StoreResult<_>>()?;
    let mut variants: Vec<Variant> = Vec::new();
    for (i, (selection, flow)) in plan.flow_selections().iter().zip(flows).enumerate() {
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
                placeholders: placeholders::used_by(flow, Some(variant)),
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
        // Each persona read once, not once a scenario (and none without a scenario).
        let personas: Vec<Persona> = match plan.scenarios.as_deref() {
            Some([_, ..]) => plan
                .personas
                .iter()
                .flatten()
                .map(|p| store::require(tx, Kind::Persona, &p.id.to_string()))
                .collect::<StoreResult<_>>()?,
            _ => Vec::new(),
        };
        for scenario in plan.scenarios.iter().flatten() {
            for persona in &personas {
                let persona = persona.clone();
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
pub(super) struct Combinations {
    endpoints: Vec<AgentEndpoint>,
    variants: Vec<Variant>,
    iterations: usize,
}

impl Combinations {
    pub(super) fn len(&self) -> usize {
        self.endpoints.len() * self.variants.len() * self.iterations
    }

    /// Refuses the run when a test case would leave a `{{placeholder}}` unfilled, naming every
    /// one at once.
    pub(super) fn check_filled(&self, runtime: Option<&RunVariables>) -> DomainResult<()> {
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
    pub(super) fn iter(&self) -> impl Iterator<Item = Combination> + '_ {
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
