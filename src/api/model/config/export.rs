//! The service's resources in the bundle's shapes: what `config export` writes, and what a diff
//! compares member by member. Pure: references come back as names through `Names`.

use std::collections::{BTreeMap, HashMap};

use uuid::Uuid;

use super::*;
use crate::api::model::*;

/// The bundle names of the resources a mapping refers to, by id. An id without a name comes
/// back as the id itself.
#[derive(Debug, Clone, Default)]
pub struct Names {
    pub agents: HashMap<Uuid, String>,
    pub definitions: HashMap<Uuid, String>,
    pub personas: HashMap<Uuid, String>,
    pub environments: HashMap<Uuid, String>,
    pub flows: HashMap<Uuid, String>,
    /// Edge cases by id: their `name`.
    pub edge_cases: HashMap<Uuid, String>,
    /// Endpoints by id: the agent's name, the endpoint's direction and value.
    pub endpoints: HashMap<Uuid, PlanAgentEndpointConfig>,
}

fn named(map: &HashMap<Uuid, String>, id: &Uuid) -> String {
    map.get(id).cloned().unwrap_or_else(|| id.to_string())
}

/// `shown` unless it says the same as `name`.
fn unless_same(shown: Option<&String>, name: &str) -> Option<String> {
    shown.filter(|s| s.as_str() != name).cloned()
}

fn prompts(expectations: &[Expectation]) -> Option<Vec<String>> {
    let list: Vec<String> = expectations.iter().filter_map(|e| e.prompt.clone()).collect();
    Some(list).filter(|l| !l.is_empty())
}

/// An agent with its endpoints, in one order whoever lists them (by number or URL, then
/// direction), so two reads of the same agent compare equal.
pub fn agent(agent: &Agent, endpoints: &[AgentEndpoint], name: &str, names: &Names) -> AgentConfig {
    let mut endpoints: Vec<&AgentEndpoint> = endpoints.iter().collect();
    endpoints.sort_by_key(|e| (e.value.clone(), e.direction.as_ref().map(|d| d.as_str().to_owned())));
    let endpoints: Vec<AgentEndpointConfig> = endpoints
        .into_iter()
        .map(|e| AgentEndpointConfig {
            value: e.value.clone(),
            endpoint_type: e.endpoint_type.clone(),
            direction: e.direction.clone(),
            environment: e.environment.clone(),
            outbound_dial_type: e.outbound_dial_type.clone(),
            outbound_dial_http_request_definition: e
                .outbound_dial_http_request_definition_id
                .map(|id| named(&names.definitions, &id)),
            unknown_fields: Default::default(),
        })
        .collect();
    AgentConfig {
        name: Some(name.to_owned()),
        display_name: unless_same(agent.name.as_ref(), name),
        description: agent.description.clone(),
        custom_id: agent.custom_id.clone(),
        prompt: agent.prompt.clone(),
        endpoints: Some(endpoints).filter(|e| !e.is_empty()),
        unknown_fields: Default::default(),
    }
}

/// An HTTP request definition, with its headers' real values (`headers`).
pub fn http_request_definition(
    definition: &HttpRequestDefinition,
    headers: BTreeMap<String, String>,
    name: &str,
) -> HttpRequestDefinitionConfig {
    HttpRequestDefinitionConfig {
        name: Some(name.to_owned()),
        url: definition.url.clone(),
        method: definition.method.clone(),
        body: definition.body.clone(),
        description: definition.description.clone(),
        headers: Some(headers).filter(|h| !h.is_empty()),
        unknown_fields: Default::default(),
    }
}

/// A persona; its `name` is its own.
pub fn persona(persona: &Persona) -> PersonaConfig {
    let f = &persona.fields;
    PersonaConfig {
        name: f.name.clone(),
        display_name: f.display_name.clone(),
        description: f.description.clone(),
        accent: f.accent.clone(),
        gender: f.gender.clone(),
        language: f.language.clone(),
        age: f.age.clone(),
        background_noise: f.background_noise.clone(),
        backstory_prompt: f.backstory_prompt.clone(),
        base_emotion: f.base_emotion.clone(),
        confirmation_style: f.confirmation_style.clone(),
        has_disfluencies: f.has_disfluencies,
        idle_message_max_spoken_count: f.idle_message_max_spoken_count,
        idle_message_reset_count_on_user_speech_enabled: f.idle_message_reset_count_on_user_speech_enabled,
        idle_messages: f.idle_messages.clone(),
        idle_timeout_seconds: f.idle_timeout_seconds,
        intent_clarity: f.intent_clarity.clone(),
        interruption: f.interruption.clone(),
        memory_reliability: f.memory_reliability.clone(),
        properties: f.properties.clone(),
        response_timing: f.response_timing.clone(),
        secondary_language: f.secondary_language.clone(),
        speech_clarity: f.speech_clarity.clone(),
        speech_pace: f.speech_pace.clone(),
        understood_languages: f.understood_languages.clone(),
        unknown_fields: Default::default(),
    }
}

/// A flow: improv when its type says so, scripted otherwise.
pub fn flow(flow: &CustomerFlow, name: &str, names: &Names) -> ConfigResource {
    let title = unless_same(flow.title.as_ref(), name);
    let agents: Vec<String> = flow.agents.iter().map(|a| named(&names.agents, &a.id)).collect();
    let agents = Some(agents).filter(|a| !a.is_empty());
    if flow.flow_type == Some(FlowType::Improv) {
        let happy = flow.happy_path.as_ref();
        let environment = happy.and_then(|h| h.environment.as_ref()).and_then(|e| e.id);
        let persona = happy.and_then(|h| h.persona_override.as_ref()).map(|p| p.id);
        let flow_title = flow.title.clone().unwrap_or_else(|| name.to_owned());
        let happy_path = happy.map(|h| HappyPathConfig {
            environment: environment.map(|id| named(&names.environments, &id)),
            persona: persona.map(|id| named(&names.personas, &id)),
            expectations: prompts(&h.additional_expectations),
            prompt: h.prompt.clone(),
            title: unless_same(h.title.as_ref(), &flow_title),
            unknown_fields: Default::default(),
        });
        let edge_cases: Vec<EdgeCaseConfig> = flow
            .edge_cases
            .iter()
            .map(|e| {
                let case_name = e.config_name();
                let own_environment = e.environment.as_ref().and_then(|x| x.id).filter(|id| Some(*id) != environment);
                let own_persona = e.persona_override.as_ref().map(|p| p.id).filter(|id| Some(*id) != persona);
                EdgeCaseConfig {
                    environment: own_environment.map(|id| named(&names.environments, &id)),
                    expectations: prompts(&e.additional_expectations),
                    include_flow_expectations: e.include_flow_expectations,
                    persona: own_persona.map(|id| named(&names.personas, &id)),
                    prompt: e.prompt.clone(),
                    title: unless_same(e.title.as_ref(), &case_name),
                    name: Some(case_name),
                    unknown_fields: Default::default(),
                }
            })
            .collect();
        return ConfigResource::ImprovFlow(ImprovFlowConfig {
            name: Some(name.to_owned()),
            title,
            description: flow.description.clone(),
            agents: Some(agents.unwrap_or_default()),
            happy_path,
            edge_cases: Some(edge_cases).filter(|e| !e.is_empty()),
            expectations: prompts(&flow.agent_expectations),
            unknown_fields: Default::default(),
        });
    }
    let mut refs = HashMap::new();
    node_refs(&flow.graph, &mut refs);
    ConfigResource::ScriptedFlow(ScriptedFlowConfig {
        name: Some(name.to_owned()),
        title,
        description: flow.description.clone(),
        graph: Some(flow.graph.iter().map(|s| step(s, &refs, names)).collect()),
        adherence: flow.script_adherence.clone(),
        agents,
        branching_mode: flow.branching_mode.clone(),
        expectations: prompts(&flow.agent_expectations),
        off_script: flow.off_script_policy.as_ref().map(off_script),
        unknown_fields: Default::default(),
    })
}

/// Each step's node id, with the `ref` a merge names it by (the node id when it has none).
fn node_refs(steps: &[FlowStep], out: &mut HashMap<String, String>) {
    for s in steps {
        if let Some(node) = s.node_id {
            out.insert(node.to_string(), s.step_ref.clone().unwrap_or_else(|| node.to_string()));
        }
        node_refs(&s.steps, out);
    }
}

fn off_script(policy: &OffScriptPolicy) -> OffScriptConfig {
    OffScriptConfig {
        max_attempts: policy.max_attempts,
        reaction: policy.reaction.clone(),
        say_line: policy.say_line.clone(),
        then: policy.then.clone(),
        wait_seconds: policy.wait_seconds,
        unknown_fields: Default::default(),
    }
}

fn step(s: &FlowStep, refs: &HashMap<String, String>, names: &Names) -> ConfigFlowStep {
    let merge: Vec<String> =
        s.merge_into_node_ids.iter().map(|id| refs.get(id).cloned().unwrap_or(id.clone())).collect();
    let stage = s.stage.as_ref().map(|stage| match (stage.analyze, stage.required) {
        (None, None) => StageConfig::Name(stage.name.clone()),
        (analyze, required) => StageConfig::Detail(StageDetail {
            name: Some(stage.name.clone()),
            analyze,
            required,
            unknown_fields: Default::default(),
        }),
    });
    let steps: Vec<ConfigFlowStep> = s.steps.iter().map(|n| step(n, refs, names)).collect();
    // Only what the step's type takes (a stored step may carry more, which nothing reads), so
    // the bundle applies again.
    let takes = |member| s.step_type.as_ref().is_none_or(|t| t.takes(member));
    ConfigFlowStep {
        step_type: s.step_type.clone(),
        content: s.content.clone().filter(|_| takes(StepMember::Content)),
        dtmf_digits: s.dtmf_digits.clone().filter(|_| takes(StepMember::DtmfDigits)),
        flow: s.linked_customer_flow_id.map(|id| named(&names.flows, &id)),
        handoff_persona: s.handoff_persona_id.map(|id| named(&names.personas, &id)),
        merge_into: Some(merge).filter(|m| !m.is_empty()),
        off_script: s.off_script_policy.as_ref().filter(|_| takes(StepMember::OffScript)).map(off_script),
        step_ref: s.step_ref.clone(),
        required_for_valid_run: None,
        silence_duration_seconds: s.silence_duration_seconds,
        stage,
        steps: Some(steps).filter(|s| !s.is_empty()),
        unknown_fields: Default::default(),
    }
}

/// A metric; its `name` is its slug.
pub fn metric(definition: &MetricDefinition) -> MetricConfig {
    let slug = definition.slug_or_alias().unwrap_or_default().to_owned();
    MetricConfig {
        display_name: unless_same(definition.name.as_ref(), &slug),
        name: Some(slug),
        prompt: definition.llm_prompt.clone(),
        metric_type: definition.metric_type.clone(),
        contexts: Some(definition.supported_contexts.clone()).filter(|c| !c.is_empty()),
        false_label: definition.boolean_false_label.clone(),
        true_label: definition.boolean_true_label.clone(),
        max_selections: definition.max_classifications,
        options: definition.classification_options.as_ref().map(|options| {
            options
                .iter()
                .map(|o| MetricOptionConfig {
                    display_order: o.display_order,
                    label: o.label.clone(),
                    description: o.description.clone(),
                    unknown_fields: Default::default(),
                })
                .collect()
        }),
        participant_role: definition.participant_role.clone(),
        scale_labels: definition.scale_labels.as_ref().map(|labels| {
            labels
                .iter()
                .map(|l| ScaleLabelConfig {
                    display_order: l.display_order,
                    label: l.label.clone(),
                    range_max: l.range_max,
                    range_min: l.range_min,
                    color_hex: l.color_hex.clone(),
                    description: l.description.clone(),
                    unknown_fields: Default::default(),
                })
                .collect()
        }),
        scale_max: definition.scale_max,
        scale_min: definition.scale_min,
        scope: definition.scope.clone(),
        unknown_fields: Default::default(),
    }
}

/// A condition's value as a bundle writes it: an AGENT condition's agent by its bundle name.
fn condition_value(condition: &Condition, agents: &HashMap<Uuid, String>) -> Option<String> {
    let value = condition.condition_value.as_deref()?;
    match (&condition.condition_type, Uuid::parse_str(value)) {
        (Some(ConditionType::Agent), Ok(id)) => Some(named(agents, &id)),
        _ => Some(value.to_owned()),
    }
}

/// A metric policy, its metrics named by slug (`slugs`, by id) and the agents its AGENT
/// conditions pick by their bundle names (`agents`, by id; an agent without one by its id).
pub fn collector(
    policy: &MetricPolicy,
    name: &str,
    slugs: &HashMap<Uuid, String>,
    agents: &HashMap<Uuid, String>,
) -> CollectorConfig {
    let metrics = policy
        .metrics
        .iter()
        .map(|m| {
            let metric = named(slugs, &m.id);
            match m.settings.as_ref().filter(|s| !s.is_empty()) {
                None => CollectorMetric::Name(metric),
                Some(settings) => {
                    let mut members = settings.clone();
                    members.insert("metric".into(), metric.into());
                    let detail = serde_json::from_value(serde_json::Value::Object(members)).unwrap_or_default();
                    CollectorMetric::Detail(detail)
                }
            }
        })
        .collect();
    let filters = policy
        .conditions
        .iter()
        .map(|group| CollectorFilterConfig {
            conditions: Some(
                group
                    .conditions
                    .iter()
                    .map(|c| CollectorConditionConfig {
                        key: c.condition_key.clone(),
                        condition_type: c.condition_type.clone(),
                        operator: c.condition_operator.clone(),
                        value: condition_value(c, agents),
                        unknown_fields: Default::default(),
                    })
                    .collect(),
            ),
            unknown_fields: Default::default(),
        })
        .collect::<Vec<_>>();
    CollectorConfig {
        name: Some(name.to_owned()),
        display_name: unless_same(policy.name.as_ref(), name),
        metrics: Some(metrics),
        modality: policy.modality.clone(),
        filters: Some(filters).filter(|f| !f.is_empty()),
        status: policy.status.clone(),
        unknown_fields: Default::default(),
    }
}

/// A saved plan; its `name` is its own.
pub fn plan(plan: &RunPlan, names: &Names) -> SimulationPlanConfig {
    let p = &plan.plan;
    let endpoints = p
        .agent_endpoints
        .iter()
        .flatten()
        .map(|e| {
            names
                .endpoints
                .get(&e.id)
                .cloned()
                .unwrap_or_else(|| PlanAgentEndpointConfig { agent: Some(e.id.to_string()), ..Default::default() })
        })
        .collect();
    let flows = p
        .flow_selections()
        .iter()
        .map(|f| PlanFlowConfig {
            flow: f.id.map(|id| named(&names.flows, &id)),
            system: f.slug.clone(),
            happy_path: f.happy_path,
            edge_cases: match &f.edge_cases {
                None => None,
                Some(EdgeCases::All) => Some(vec!["ALL".to_owned()]),
                Some(EdgeCases::List(list)) => {
                    Some(list.iter().filter_map(|e| e.id).map(|id| named(&names.edge_cases, &id)).collect())
                }
            },
            persona_override: f.persona_override_id.map(|id| named(&names.personas, &id)),
            unknown_fields: Default::default(),
        })
        .collect();
    let metrics = p
        .metrics
        .iter()
        .flatten()
        .map(|m| m.slug_or_alias().map(str::to_owned).or(m.id.map(|id| id.to_string())).unwrap_or_default())
        .collect();
    SimulationPlanConfig {
        name: p.name.clone(),
        description: p.description.clone(),
        agent_endpoints: Some(endpoints),
        direction: p.direction.clone(),
        flows: Some(flows),
        max_duration_seconds: p.max_simulation_duration_seconds,
        metrics: Some(metrics),
        end_call_phrases: p.end_call_phrases.clone(),
        end_call_reasons: p.end_call_reasons.clone(),
        enrich_with_live_conversation: p.enrich_with_live_conversation,
        execution_mode: p.execution_mode.clone(),
        include_automatic_metrics: p.include_automatic_metrics,
        include_flow_metrics: p.include_flow_metrics,
        iterations: p.iteration_count,
        max_concurrent_jobs: p.max_concurrent_jobs,
        max_no_response_retries: p.max_no_response_retries,
        no_response_retry_backoff_seconds: p.no_response_retry_backoff_seconds,
        schedule: plan.plan.schedule.clone(),
        silence_timeout_seconds: p.silence_timeout_seconds,
        template: None,
        unknown_fields: Default::default(),
    }
}

/// A tool; its `name` is its own.
pub fn tool(tool: &Tool, names: &Names) -> ToolConfig {
    ToolConfig {
        name: Some(tool.name.clone()),
        agent: tool.agent_id.map(|id| named(&names.agents, &id)),
        description: tool.description.clone(),
        expected_result: tool.expected_result.clone(),
        handler: tool.handler.clone(),
        invocation_criteria: tool.invocation_criteria.clone(),
        parameters: tool.parameters.clone(),
        unknown_fields: Default::default(),
    }
}

/// An alert.
pub fn alert(alert: &Alert, name: &str) -> AlertConfig {
    AlertConfig {
        name: Some(name.to_owned()),
        display_name: unless_same(Some(&alert.name), name),
        trigger: Some(alert.trigger.clone()),
        actions: alert.actions.clone(),
        enabled: Some(alert.enabled),
        severity: alert.severity.clone(),
        unknown_fields: Default::default(),
    }
}
