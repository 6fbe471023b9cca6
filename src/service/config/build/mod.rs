//! The resources a bundle asks for, built as the service keeps them: references resolved by
//! name (in the bundle first, then in the workspace), ids kept from what earlier applies made,
//! and every reference that names nothing reported.

mod flow;
mod plan;

use std::collections::{BTreeMap, HashMap, HashSet};

use uuid::Uuid;

use super::ConfigViolation;
use super::decode::Entry;
use super::workspace::{Workspace, WorkspaceNames};
use crate::api::model::config::*;
use crate::api::model::headers::{is_mask, mask};
use crate::api::model::*;
use crate::api::validate::join;

/// A resource as the bundle wants it kept.
#[derive(Debug, Clone)]
pub enum Target {
    Agent(Agent, Vec<AgentEndpoint>),
    Definition(HttpRequestDefinition, BTreeMap<String, String>),
    Persona(Box<Persona>),
    Flow(Box<CustomerFlow>),
    Metric(Box<MetricDefinition>),
    Policy(MetricPolicy),
    Plan(Box<RunPlan>),
    Tool(Tool),
    Alert(Box<Alert>),
    /// A kind (or plan template) the local service does not keep, and why.
    Skipped(String),
}

impl Target {
    pub fn id(&self) -> Option<Uuid> {
        Some(match self {
            Target::Agent(a, _) => a.id,
            Target::Definition(d, _) => d.id,
            Target::Persona(p) => p.id,
            Target::Flow(f) => f.id,
            Target::Metric(m) => m.id,
            Target::Policy(p) => p.id,
            Target::Plan(p) => p.id,
            Target::Tool(t) => t.id,
            Target::Alert(a) => a.id,
            Target::Skipped(_) => return None,
        })
    }
}

/// Builds targets in the order their references need them.
pub struct Builder<'w> {
    pub workspace: &'w Workspace,
    names: WorkspaceNames,
    /// The id each bundle `KIND/NAME` gets: its record's, or a new one.
    planned: HashMap<String, Uuid>,
    pub built: HashMap<String, Target>,
    pub problems: Vec<ConfigViolation>,
    pub now: Timestamp,
}

/// The order kinds are built in: what is named before what names it.
const ORDER: &[ConfigKind] = &[
    ConfigKind::HttpRequestDefinition,
    ConfigKind::Agent,
    ConfigKind::Persona,
    ConfigKind::Metric,
    ConfigKind::Flow,
    ConfigKind::Collector,
    ConfigKind::Tool,
    ConfigKind::SimulationPlan,
    ConfigKind::Alert,
];

impl<'w> Builder<'w> {
    pub fn new(workspace: &'w Workspace, entries: &[Entry], gone: &HashSet<Uuid>) -> Builder<'w> {
        let planned = entries
            .iter()
            .map(|e| {
                let kind = e.resource.kind();
                let id = workspace.resident(&kind, &e.name).unwrap_or_else(Uuid::new_v4);
                (e.key.clone(), id)
            })
            .collect();
        Builder {
            workspace,
            names: workspace.names(gone),
            planned,
            built: HashMap::new(),
            problems: Vec::new(),
            now: Timestamp::now(),
        }
    }

    /// Every entry's target, in kind order; problems gathered in `problems`.
    pub fn build_all(&mut self, entries: &[Entry]) {
        for kind in ORDER {
            for entry in entries.iter().filter(|e| &e.resource.kind() == kind) {
                let target = self.build(entry);
                self.built.insert(entry.key.clone(), target);
            }
        }
        for entry in entries {
            if !self.built.contains_key(&entry.key) {
                let target = self.build(entry);
                self.built.insert(entry.key.clone(), target);
            }
        }
    }

    fn build(&mut self, entry: &Entry) -> Target {
        let id = self.planned.get(&entry.key).copied().unwrap_or_else(Uuid::new_v4);
        match &entry.resource {
            ConfigResource::HttpRequestDefinition(c) => self.definition(id, c, entry),
            ConfigResource::Agent(c) => self.agent(id, c, entry),
            ConfigResource::Persona(c) => self.persona(id, c),
            ConfigResource::Metric(c) => self.metric(id, c),
            ConfigResource::ScriptedFlow(c) => self.scripted_flow(id, c, entry),
            ConfigResource::ImprovFlow(c) => self.improv_flow(id, c, entry),
            ConfigResource::Collector(c) => self.policy(id, c, entry),
            ConfigResource::Tool(c) => self.tool(id, c, entry),
            ConfigResource::SimulationPlan(c) => self.plan(id, c, entry),
            ConfigResource::Alert(c) => self.alert(id, c, entry),
            ConfigResource::QaSimulationPlan(_) => {
                Target::Skipped("the local service does not run question-answer-check plans".into())
            }
            other => Target::Skipped(format!("the local service does not keep {} resources", other.kind())),
        }
    }

    /// The id a name refers to in `kind`: the bundle's resource, else the workspace's.
    pub fn resolve(&self, kind: &ConfigKind, name: &str) -> Option<Uuid> {
        self.planned.get(&config_key(kind, name)).copied().or_else(|| self.names.get(kind, name))
    }

    /// The same, reporting a name that refers to nothing at `param` of `entry`.
    pub fn reference(&mut self, entry: &Entry, param: &str, kind: &ConfigKind, name: &str) -> Option<Uuid> {
        let found = self.resolve(kind, name);
        if found.is_none() {
            let prefix = format!("{}/", kind.as_str());
            let in_bundle = self.planned.keys().filter_map(|key| key.strip_prefix(&prefix));
            let in_workspace = self.names.by_kind.get(kind.as_str()).into_iter().flat_map(|names| names.keys());
            let hint = crate::api::suggest::did_you_mean(name, in_bundle.chain(in_workspace.map(String::as_str)));
            let message = format!("{param}: no {kind} named {} in the bundle or the workspace{hint}", quoted(name));
            self.problems.push(ConfigViolation::invalid(&entry.key, param, message));
        }
        found
    }

    pub fn problem(&mut self, entry: &Entry, param: &str, message: String) {
        self.problems.push(ConfigViolation::invalid(&entry.key, param, message));
    }

    /// The created-at of what is kept under `id` (now for a new resource).
    fn created(&self, existing: Option<&Timestamp>) -> Option<Timestamp> {
        Some(existing.cloned().unwrap_or_else(|| self.now.clone()))
    }

    /// An agent as bundle targets and the workspace have it.
    pub fn agent_copy(&self, id: &Uuid) -> Option<(Agent, Vec<AgentEndpoint>)> {
        match self.built.values().find(|t| t.id() == Some(*id)) {
            Some(Target::Agent(agent, endpoints)) => Some((agent.clone(), endpoints.clone())),
            _ => self.workspace.agents.get(id).map(|a| (a.clone(), self.workspace.endpoints_of(id))),
        }
    }

    pub fn persona_copy(&self, id: &Uuid) -> Option<Persona> {
        match self.built.values().find(|t| t.id() == Some(*id)) {
            Some(Target::Persona(persona)) => Some((**persona).clone()),
            _ => self.workspace.personas.get(id).cloned(),
        }
    }

    pub fn flow_copy(&self, id: &Uuid) -> Option<CustomerFlow> {
        match self.built.values().find(|t| t.id() == Some(*id)) {
            Some(Target::Flow(flow)) => Some((**flow).clone()),
            _ => self.workspace.flows.get(id).cloned(),
        }
    }

    fn definition(&mut self, id: Uuid, c: &HttpRequestDefinitionConfig, entry: &Entry) -> Target {
        let existing = self.workspace.definitions.get(&id);
        let headers = self.unmasked(id, c.headers.clone().unwrap_or_default(), entry);
        let body = c.body.clone();
        let definition = HttpRequestDefinition {
            id,
            scope: Some(RequestScope::AgentOutboundDial),
            description: c.description.clone(),
            url: c.url.clone(),
            method: Some(c.method.clone().unwrap_or(HttpMethod::Post)),
            parsed_body: body.as_deref().and_then(|b| serde_json::from_str(b).ok()),
            body,
            headers: None,
            secret_headers: existing.and_then(|d| d.secret_headers.clone()),
            is_config_managed: Some(true),
            signing_secret: None,
            created_at: self.created(existing.and_then(|d| d.created_at.as_ref())),
            updated_at: Some(self.now.clone()),
        };
        Target::Definition(definition, headers)
    }

    /// `headers` with each mask a read shows (as the console's editor writes a secret header)
    /// replaced by the value it stands for, as an update route takes a mask sent back.
    fn unmasked(&mut self, id: Uuid, headers: BTreeMap<String, String>, entry: &Entry) -> BTreeMap<String, String> {
        let kept = self.workspace.headers.get(&id);
        let mut out = BTreeMap::new();
        for (name, value) in headers {
            if !is_mask(&value) {
                out.insert(name, value);
                continue;
            }
            let real = kept.and_then(|k| k.iter().find(|(key, _)| key.eq_ignore_ascii_case(&name))).map(|(_, v)| v);
            match real {
                Some(real) if mask(real) == value => {
                    out.insert(name, real.clone());
                }
                _ => self.problem(
                    entry,
                    &join(&format!("{}.headers", entry.at), &name),
                    format!(
                        "headers.{name}: {value} stands for a value this definition keeps, and it keeps none \
                         that reads so; write the value itself (or ${{VARIABLE}} with the CLI)"
                    ),
                ),
            }
        }
        out
    }

    fn agent(&mut self, id: Uuid, c: &AgentConfig, entry: &Entry) -> Target {
        let existing = self.workspace.agents.get(&id);
        let agent = Agent {
            id,
            name: c.display_name.clone().or(c.name.clone()),
            description: c.description.clone(),
            custom_id: c.custom_id.clone(),
            prompt: c.prompt.clone(),
            created_at: self.created(existing.and_then(|a| a.created_at.as_ref())),
            updated_at: Some(self.now.clone()),
        };
        let kept = self.workspace.endpoints_of(&id);
        let mut endpoints = Vec::new();
        for (i, e) in c.endpoints.iter().flatten().enumerate() {
            let at = join(&format!("{}.endpoints[{i}]", entry.at), "outboundDialHttpRequestDefinition");
            let definition = e.outbound_dial_http_request_definition.as_deref();
            let definition =
                definition.and_then(|name| self.reference(entry, &at, &ConfigKind::HttpRequestDefinition, name));
            // The same number or URL keeps its endpoint (and the plans that call it).
            let same =
                kept.iter().find(|k| k.value == e.value && !endpoints.iter().any(|n: &AgentEndpoint| n.id == k.id));
            endpoints.push(AgentEndpoint {
                id: same.map_or_else(Uuid::new_v4, |k| k.id),
                agent_id: Some(id),
                endpoint_type: Some(e.endpoint_type.clone().unwrap_or(EndpointType::Phone)),
                value: e.value.clone(),
                environment: Some(e.environment.clone().unwrap_or_else(|| "production".into())),
                direction: Some(e.direction.clone().unwrap_or(EndpointDirection::Incoming)),
                outbound_dial_type: Some(e.outbound_dial_type.clone().unwrap_or(OutboundDialType::None)),
                outbound_dial_http_request_definition_id: definition,
                created_at: self.created(same.and_then(|k| k.created_at.as_ref())),
                updated_at: Some(self.now.clone()),
            });
        }
        Target::Agent(agent, endpoints)
    }

    fn persona(&mut self, id: Uuid, c: &PersonaConfig) -> Target {
        let existing = self.workspace.personas.get(&id);
        Target::Persona(Box::new(Persona {
            id,
            is_system: Some(false),
            phone_number: None,
            created_at: self.created(existing.and_then(|p| p.created_at.as_ref())),
            updated_at: Some(self.now.clone()),
            fields: c.fields().with_defaults(),
        }))
    }

    fn metric(&mut self, id: Uuid, c: &MetricConfig) -> Target {
        let existing = self.workspace.metrics.get(&id);
        let slug = c.name.clone().unwrap_or_default();
        let metric_type = c.metric_type.clone();
        let options = c.options.as_ref().map(|options| {
            options
                .iter()
                .map(|o| ClassificationOption {
                    label: o.label.clone(),
                    description: o.description.clone(),
                    display_order: o.display_order,
                })
                .collect()
        });
        let labels = c.scale_labels.as_ref().map(|labels| {
            labels
                .iter()
                .map(|l| ScaleLabel {
                    range_min: l.range_min,
                    range_max: l.range_max,
                    label: l.label.clone(),
                    display_order: l.display_order,
                    description: l.description.clone(),
                    color_hex: l.color_hex.clone(),
                })
                .collect()
        });
        Target::Metric(Box::new(MetricDefinition {
            id,
            slug: Some(slug.clone()),
            metric_id: Some(slug.clone()),
            variant_id: Some(existing.and_then(|m| m.variant_id).unwrap_or_else(Uuid::new_v4)),
            version_id: Some(Uuid::new_v4()),
            name: Some(c.display_name.clone().unwrap_or(slug)),
            description: Some(existing.and_then(|m| m.description.clone()).unwrap_or_default()),
            metric_type: metric_type.clone(),
            scope: Some(c.scope.clone().unwrap_or(MetricScope::Global)),
            participant_role: c.participant_role.clone(),
            supported_contexts: c.contexts.clone().unwrap_or_else(|| vec![MetricContext::Call]),
            supported_conversation_sources: vec![ConversationSource::Simulated, ConversationSource::Live],
            requires_live_conversation: Some(false),
            supports_variants: Some(false),
            calculation_type: Some(CalculationType::LlmJudge),
            llm_prompt: c.prompt.clone(),
            boolean_true_label: c.true_label.clone(),
            boolean_false_label: c.false_label.clone(),
            source: Some(DefinitionSource::Custom),
            output_type: metric_type,
            version: Some(existing.and_then(|m| m.version).map_or(1, |v| v + 1)),
            supported_modalities: Some(vec![Modality::Call, Modality::Chat]),
            scale_min: c.scale_min,
            scale_max: c.scale_max,
            scale_labels: labels,
            classification_options: options,
            max_classifications: c.max_selections,
            created_at: self.created(existing.and_then(|m| m.created_at.as_ref())),
            updated_at: Some(self.now.clone()),
            ..Default::default()
        }))
    }

    fn policy(&mut self, id: Uuid, c: &CollectorConfig, entry: &Entry) -> Target {
        let existing = self.workspace.policies.get(&id);
        let mut metrics = Vec::new();
        for (i, metric) in c.metrics.iter().flatten().enumerate() {
            let param = format!("{}.metrics[{i}]", entry.at);
            let Some(name) = metric.metric() else { continue };
            let Some(metric_id) = self.reference(entry, &param, &ConfigKind::Metric, name) else { continue };
            let settings = match metric {
                CollectorMetric::Name(_) => None,
                CollectorMetric::Detail(detail) => {
                    let mut members = serde_json::to_value(detail).ok().and_then(|v| v.as_object().cloned());
                    members.iter_mut().for_each(|m| drop(m.remove("metric")));
                    members.filter(|m| !m.is_empty())
                }
            };
            metrics.push(PolicyMetric { id: metric_id, settings });
        }
        let mut conditions = Vec::new();
        for (g, group) in c.filters.iter().flatten().enumerate() {
            let mut kept = Vec::new();
            for (i, x) in group.conditions.iter().flatten().enumerate() {
                let at = join(&entry.at, &format!("filters[{g}].conditions[{i}].value"));
                kept.push(Condition {
                    condition_key: x.key.clone(),
                    condition_value: self.condition_value(entry, &at, x),
                    condition_type: x.condition_type.clone(),
                    condition_operator: Some(x.operator.clone().unwrap_or(ConditionOperator::Equals)),
                });
            }
            conditions.push(ConditionGroup { conditions: kept });
        }
        Target::Policy(MetricPolicy {
            id,
            name: c.display_name.clone().or(c.name.clone()),
            policy_type: Some(PolicyType::User),
            status: Some(c.status.clone().unwrap_or(PolicyStatus::Active)),
            modality: c.modality.clone(),
            conditions,
            metrics,
            created_at: self.created(existing.and_then(|p| p.created_at.as_ref())),
            updated_at: Some(self.now.clone()),
        })
    }

    /// A condition's value as the policy keeps it: an AGENT condition names its agent by bundle
    /// name (or id), kept as the agent's id, which is what calls carry.
    fn condition_value(&mut self, entry: &Entry, at: &str, x: &CollectorConditionConfig) -> Option<String> {
        let value = x.value.as_deref()?;
        if x.condition_type != Some(ConditionType::Agent) {
            return Some(value.to_owned());
        }
        let known =
            |id: &Uuid| self.workspace.agents.contains_key(id) || self.built.values().any(|t| t.id() == Some(*id));
        match Uuid::parse_str(value) {
            Ok(id) if known(&id) => Some(value.to_owned()),
            _ => self.reference(entry, at, &ConfigKind::Agent, value).map(|id| id.to_string()),
        }
    }

    fn tool(&mut self, id: Uuid, c: &ToolConfig, entry: &Entry) -> Target {
        let existing = self.workspace.tools.get(&id);
        let param = join(&entry.at, "agent");
        let agent_id = c.agent.as_deref().and_then(|name| self.reference(entry, &param, &ConfigKind::Agent, name));
        Target::Tool(Tool {
            id,
            name: c.name.clone().unwrap_or_default(),
            agent_id,
            description: c.description.clone(),
            expected_result: c.expected_result.clone(),
            handler: c.handler.clone(),
            invocation_criteria: c.invocation_criteria.clone(),
            parameters: c.parameters.clone(),
            created_at: self.created(existing.and_then(|t| t.created_at.as_ref())),
            updated_at: Some(self.now.clone()),
        })
    }

    fn alert(&mut self, id: Uuid, c: &AlertConfig, entry: &Entry) -> Target {
        let existing = self.workspace.alerts.get(&id);
        let trigger = c.trigger.clone().unwrap_or_default();
        if let Some(metric) = &trigger.metric {
            self.reference(entry, &format!("{}.trigger.metric", entry.at), &ConfigKind::Metric, metric);
        }
        if let Some(plan) = &trigger.plan {
            self.reference(entry, &format!("{}.trigger.plan", entry.at), &ConfigKind::SimulationPlan, plan);
        }
        Target::Alert(Box::new(Alert {
            id,
            name: c.display_name.clone().or(c.name.clone()).unwrap_or_default(),
            trigger,
            actions: c.actions.clone(),
            enabled: c.enabled.unwrap_or(true),
            severity: c.severity.clone(),
            created_at: self.created(existing.and_then(|a| a.created_at.as_ref())),
            updated_at: Some(self.now.clone()),
        }))
    }

    /// An environment by name: seeded, or made with the environment routes.
    pub fn environment(&mut self, entry: &Entry, param: &str, name: &str) -> Option<Environment> {
        let found = self.names.environments.get(name).and_then(|id| self.workspace.environments.get(id)).cloned();
        if found.is_none() {
            let message = format!("{param}: no simulation environment named {}", quoted(name));
            self.problem(entry, param, message);
        }
        found
    }
}

pub fn quoted(text: &str) -> String {
    crate::api::validate::quote(text)
}
