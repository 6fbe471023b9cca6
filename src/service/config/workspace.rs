//! The workspace as an apply sees it: the records of what earlier applies made, every resource
//! a bundle can name or change, and the open jobs whose plans must keep what they use.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::api::model::config::ConfigKind;
use crate::api::model::*;
use crate::service::agents::request_definitions::current_headers;
use crate::service::error::DomainResult;
use crate::service::store::{self, Conn, Kind};
use crate::service::vault::Vault;

/// What an apply made for a bundle's `KIND/NAME` (kept as its own document, id `KIND/NAME`), so
/// that a later apply changes that resource and prune deletes only what applies made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigRecord {
    pub kind: ConfigKind,
    pub name: String,
    pub id: Uuid,
    /// The seed's name for a resource it made (the seeded alerts): an apply finds it by that
    /// name and changes it in place, but a prune never deletes it, as nothing applied made it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub seeded: bool,
}

impl ConfigRecord {
    pub fn key(&self) -> String {
        crate::api::model::config::config_key(&self.kind, &self.name)
    }
}

/// The store kind a bundle kind becomes.
pub fn store_kind(kind: &ConfigKind) -> Option<Kind> {
    Some(match kind {
        ConfigKind::Agent => Kind::Agent,
        ConfigKind::HttpRequestDefinition => Kind::HttpRequestDefinition,
        ConfigKind::Persona => Kind::Persona,
        ConfigKind::Flow => Kind::CustomerFlow,
        ConfigKind::Collector => Kind::MetricPolicy,
        ConfigKind::Metric => Kind::MetricDefinition,
        ConfigKind::SimulationPlan => Kind::RunPlan,
        ConfigKind::Alert => Kind::Alert,
        ConfigKind::Tool => Kind::Tool,
        _ => return None,
    })
}

/// Everything an apply reads, read once.
pub struct Workspace {
    pub records: Vec<ConfigRecord>,
    pub agents: HashMap<Uuid, Agent>,
    pub endpoints: Vec<AgentEndpoint>,
    pub definitions: HashMap<Uuid, HttpRequestDefinition>,
    /// The real header values of every definition (to compare, and for the masks an edit
    /// sends back to stand for them).
    pub headers: HashMap<Uuid, BTreeMap<String, String>>,
    pub personas: HashMap<Uuid, Persona>,
    pub environments: HashMap<Uuid, Environment>,
    pub flows: HashMap<Uuid, CustomerFlow>,
    pub metrics: HashMap<Uuid, MetricDefinition>,
    pub policies: HashMap<Uuid, MetricPolicy>,
    pub plans: HashMap<Uuid, RunPlan>,
    pub tools: HashMap<Uuid, Tool>,
    pub alerts: HashMap<Uuid, Alert>,
    /// Ids of the plans, flows, personas and agents an open run plan job uses.
    pub in_use: HashSet<Uuid>,
}

fn by_id<T: serde::de::DeserializeOwned>(
    conn: &Conn,
    kind: Kind,
    id: impl Fn(&T) -> Uuid,
) -> DomainResult<HashMap<Uuid, T>> {
    Ok(store::all::<T>(conn, kind)?.into_iter().map(|t| (id(&t), t)).collect())
}

impl Workspace {
    pub fn read(conn: &Conn, vault: &Vault) -> DomainResult<Workspace> {
        let records: Vec<ConfigRecord> = store::all(conn, Kind::ConfigRecord)?;
        let definitions = by_id(conn, Kind::HttpRequestDefinition, |d: &HttpRequestDefinition| d.id)?;
        let mut headers = HashMap::new();
        for definition in definitions.values() {
            headers.insert(definition.id, current_headers(conn, vault, definition)?);
        }
        let endpoints: Vec<AgentEndpoint> = store::all(conn, Kind::AgentEndpoint)?;
        let mut workspace = Workspace {
            records,
            agents: by_id(conn, Kind::Agent, |a: &Agent| a.id)?,
            endpoints,
            definitions,
            headers,
            personas: by_id(conn, Kind::Persona, |p: &Persona| p.id)?,
            environments: by_id(conn, Kind::SimulationEnvironment, |e: &Environment| e.id.unwrap_or_default())?,
            flows: by_id(conn, Kind::CustomerFlow, |f: &CustomerFlow| f.id)?,
            metrics: by_id(conn, Kind::MetricDefinition, |m: &MetricDefinition| m.id)?,
            policies: by_id(conn, Kind::MetricPolicy, |p: &MetricPolicy| p.id)?,
            plans: by_id(conn, Kind::RunPlan, |p: &RunPlan| p.id)?,
            tools: by_id(conn, Kind::Tool, |t: &Tool| t.id)?,
            alerts: by_id(conn, Kind::Alert, |a: &Alert| a.id)?,
            in_use: HashSet::new(),
        };
        workspace.in_use = workspace.open_job_uses(conn)?;
        Ok(workspace)
    }

    /// What the open run plan jobs use: their plan, its flows and persona overrides, the flows'
    /// personas, and the agents of its endpoints.
    fn open_job_uses(&self, conn: &Conn) -> DomainResult<HashSet<Uuid>> {
        let open: Vec<&str> =
            RunPlanJobStatus::KNOWN.iter().filter(|s| !s.is_terminal()).map(RunPlanJobStatus::as_str).collect();
        let mut used = HashSet::new();
        for (_, parent, body) in store::in_status(conn, Kind::RunPlanJob, &open)? {
            used.extend(parent.and_then(|p| Uuid::parse_str(&p).ok()));
            #[derive(Deserialize)]
            struct JobPlan {
                plan: Option<RunPlanInput>,
            }
            let Some(plan) = serde_json::from_str::<JobPlan>(&body)?.plan else { continue };
            for selection in plan.flow_selections() {
                used.extend(selection.id);
                used.extend(selection.persona_override_id);
                if let Some(flow) = selection.id.and_then(|id| self.flows.get(&id)) {
                    let variants = flow.happy_path.iter().chain(&flow.edge_cases);
                    used.extend(variants.filter_map(|v| v.persona_override.as_ref()).map(|p| p.id));
                }
            }
            for endpoint in plan.agent_endpoints.iter().flatten() {
                let agent = self.endpoints.iter().find(|e| e.id == endpoint.id).and_then(|e| e.agent_id);
                used.extend(agent);
            }
        }
        Ok(used)
    }

    /// The record of `KIND/NAME`, when an apply made it and the resource is still there.
    pub fn record(&self, kind: &ConfigKind, name: &str) -> Option<&ConfigRecord> {
        self.records.iter().find(|r| &r.kind == kind && r.name == name && self.exists(&r.kind, &r.id))
    }

    /// The resource `KIND/NAME` stands for: the one an apply made under that name, else one
    /// made any other way (the seed, the routes, the console) that the name stands for alone,
    /// which an apply then changes in place, as its own routes would, but never records, so a
    /// prune never deletes it. A persona goes by its name, a metric by its slug, a plan by its
    /// name, a flow by its slug or title, an agent by its custom id or name, a policy by its
    /// name, an HTTP definition by its id (nothing else names it). A name two resources share
    /// stands for neither (an apply makes a new one), and what the service owns (system
    /// personas, policies and flows, service-owned metrics, voicemail flows) is never taken.
    pub fn resident(&self, kind: &ConfigKind, name: &str) -> Option<Uuid> {
        if let Some(record) = self.record(kind, name) {
            return Some(record.id);
        }
        match kind {
            ConfigKind::Persona => self
                .personas
                .values()
                .find(|p| p.fields.name.as_deref() == Some(name) && p.is_system != Some(true))
                .map(|p| p.id),
            ConfigKind::Metric => {
                self.metrics.values().find(|m| m.slug_or_alias() == Some(name) && !m.is_service_owned()).map(|m| m.id)
            }
            ConfigKind::SimulationPlan => self.plans.values().find(|p| p.name() == name).map(|p| p.id),
            ConfigKind::Flow => {
                let ours = || self.flows.values().filter(|f| !f.is_voicemail() && f.source != Some(FlowSource::System));
                only(ours().filter(|f| f.slug.as_deref() == Some(name)).map(|f| f.id))
                    .or_else(|| only(ours().filter(|f| f.title.as_deref() == Some(name)).map(|f| f.id)))
            }
            ConfigKind::Agent => {
                only(self.agents.values().filter(|a| a.custom_id.as_deref() == Some(name)).map(|a| a.id))
                    .or_else(|| only(self.agents.values().filter(|a| a.name.as_deref() == Some(name)).map(|a| a.id)))
            }
            ConfigKind::Collector => only(
                self.policies
                    .values()
                    .filter(|p| p.name.as_deref() == Some(name) && p.policy_type != Some(PolicyType::System))
                    .map(|p| p.id),
            ),
            ConfigKind::HttpRequestDefinition => {
                Uuid::parse_str(name).ok().filter(|id| self.definitions.contains_key(id))
            }
            _ => None,
        }
    }

    /// Whether the resource a record names is still there.
    pub fn exists(&self, kind: &ConfigKind, id: &Uuid) -> bool {
        match kind {
            ConfigKind::Agent => self.agents.contains_key(id),
            ConfigKind::HttpRequestDefinition => self.definitions.contains_key(id),
            ConfigKind::Persona => self.personas.contains_key(id),
            ConfigKind::Flow => self.flows.contains_key(id),
            ConfigKind::Collector => self.policies.contains_key(id),
            ConfigKind::Metric => self.metrics.contains_key(id),
            ConfigKind::SimulationPlan => self.plans.contains_key(id),
            ConfigKind::Alert => self.alerts.contains_key(id),
            ConfigKind::Tool => self.tools.contains_key(id),
            _ => false,
        }
    }

    pub fn endpoints_of(&self, agent: &Uuid) -> Vec<AgentEndpoint> {
        self.endpoints.iter().filter(|e| e.agent_id.as_ref() == Some(agent)).cloned().collect()
    }

    /// Resources by the names a bundle may use for them (records' names first, then each kind's
    /// own: an agent's name or custom id, a persona's name, a flow's title or slug, a metric's
    /// slug, a plan's name, an environment's name), leaving out the ids in `gone`.
    pub fn names(&self, gone: &HashSet<Uuid>) -> WorkspaceNames {
        let mut names = WorkspaceNames::default();
        for record in &self.records {
            if !gone.contains(&record.id) && self.exists(&record.kind, &record.id) {
                names.add(&record.kind, &record.name, record.id);
            }
        }
        let live = |id: &Uuid| !gone.contains(id);
        for agent in self.agents.values().filter(|a| live(&a.id)) {
            for name in agent.name.iter().chain(&agent.custom_id) {
                names.add(&ConfigKind::Agent, name, agent.id);
            }
        }
        for persona in self.personas.values().filter(|p| live(&p.id)) {
            if let Some(name) = &persona.fields.name {
                names.add(&ConfigKind::Persona, name, persona.id);
            }
        }
        for flow in self.flows.values().filter(|f| live(&f.id)) {
            for name in flow.title.iter().chain(&flow.slug) {
                names.add(&ConfigKind::Flow, name, flow.id);
            }
        }
        for metric in self.metrics.values().filter(|m| live(&m.id)) {
            if let Some(slug) = metric.slug_or_alias() {
                names.add(&ConfigKind::Metric, slug, metric.id);
            }
        }
        for plan in self.plans.values().filter(|p| live(&p.id)) {
            names.add(&ConfigKind::SimulationPlan, plan.name(), plan.id);
        }
        // No member of an HTTP definition names it (only an apply's record does), so one made
        // another way is named by its id: the console writes an agent's seeded definition so.
        for definition in self.definitions.values().filter(|d| live(&d.id)) {
            names.add(&ConfigKind::HttpRequestDefinition, &definition.id.to_string(), definition.id);
        }
        for environment in self.environments.values() {
            if let (Some(name), Some(id)) = (&environment.name, environment.id) {
                names.environments.entry(name.clone()).or_insert(id);
            }
        }
        names
    }
}

/// The one id `ids` holds, when it holds exactly one.
fn only(mut ids: impl Iterator<Item = Uuid>) -> Option<Uuid> {
    let first = ids.next()?;
    ids.next().is_none().then_some(first)
}

/// Workspace resources by name, per kind: the first resource to take a name keeps it.
#[derive(Debug, Default)]
pub struct WorkspaceNames {
    pub by_kind: HashMap<String, HashMap<String, Uuid>>,
    pub environments: HashMap<String, Uuid>,
}

impl WorkspaceNames {
    fn add(&mut self, kind: &ConfigKind, name: &str, id: Uuid) {
        self.by_kind.entry(kind.as_str().to_owned()).or_default().entry(name.to_owned()).or_insert(id);
    }

    pub fn get(&self, kind: &ConfigKind, name: &str) -> Option<Uuid> {
        self.by_kind.get(kind.as_str()).and_then(|m| m.get(name)).copied()
    }
}
