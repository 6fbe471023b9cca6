//! `switchboard config export [--kind K]... [--out-dir DIR]`: the workspace as a bundle that
//! `config apply` recreates, read through the list routes of any service and mapped by
//! `api::model::config::export`. Each resource gets the name its bundle gave it where the
//! service says (the local service's `GET /v1/config/records`), else its own as the service
//! finds it by (a persona's name, a metric's slug, a plan's name, a flow's slug or title, an
//! agent's custom id or name, a policy's name, a definition's id), so an export applies to the
//! same service unchanged; alerts come from the local service's `GET /v1/alert`, without the
//! signing secret no read shows. The service's own
//! resources (system personas and flows, service-owned metrics) are left out. No secret is
//! written: a masked or secret header value comes out as `${HTTP_<DEFINITION>_<HEADER>}`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use clap::Args;
use futures_util::TryStreamExt;
use serde::de::DeserializeOwned;
use serde_json::Value;
use uuid::Uuid;

use crate::api::model::config::export::{self, Names};
use crate::api::model::config::{ConfigKind, ConfigRecordEntry, ConfigResource, PlanAgentEndpointConfig};
use crate::api::model::*;
use crate::api::operations::{ListQuery, routes};
use crate::cli::exit::{Exit, Failure, Outcome};
use crate::cli::output::{self, Format};
use crate::cli::session::Session;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Only these kinds (agent, httpRequestDefinition, persona, flow, metric, collector,
    /// simulationPlan, alert); repeatable.
    #[arg(long = "kind", value_name = "KIND")]
    pub kinds: Vec<String>,
    /// Write one file per kind here (`persona.yaml`, …) instead of every document to stdout.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// The kinds an export writes, in the order a reader meets them.
const KINDS: &[ConfigKind] = &[
    ConfigKind::HttpRequestDefinition,
    ConfigKind::Agent,
    ConfigKind::Persona,
    ConfigKind::Metric,
    ConfigKind::Flow,
    ConfigKind::Collector,
    ConfigKind::SimulationPlan,
    ConfigKind::Alert,
];

pub async fn run(args: ExportArgs, session: &Session) -> Outcome {
    let kinds = chosen(&args.kinds)?;
    let workspace = Workspace::read(session).await?;
    let resources = workspace.bundle(&kinds);
    match (&args.out_dir, session.format) {
        (Some(dir), _) => write_files(dir, &resources)?,
        (None, Format::Json) => output::emit(&output::json(&serde_json::json!({ "resources": resources }))?)?,
        (None, _) => output::emit(&documents(&resources))?,
    }
    Ok(Exit::Ok)
}

fn chosen(given: &[String]) -> Result<Vec<ConfigKind>, Failure> {
    if given.is_empty() {
        return Ok(KINDS.to_vec());
    }
    let known: Vec<&str> = KINDS.iter().map(ConfigKind::as_str).collect();
    given
        .iter()
        .map(|k| match KINDS.iter().find(|kind| kind.as_str() == k) {
            Some(kind) => Ok(kind.clone()),
            None => Err(Failure::invalid("--kind", format!("--kind {k}: one of {}", known.join(", ")))),
        })
        .collect()
}

/// Every document, separated by `---`.
fn documents(resources: &[Value]) -> String {
    resources.iter().map(crate::yaml::to_text).collect::<Vec<_>>().join("---\n")
}

fn write_files(dir: &PathBuf, resources: &[Value]) -> Result<(), Failure> {
    std::fs::create_dir_all(dir).map_err(|e| Failure::io(format!("cannot create {}", dir.display()), e))?;
    let mut by_kind: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for resource in resources {
        let kind = resource.get("kind").and_then(Value::as_str).unwrap_or("other").to_owned();
        by_kind.entry(kind).or_default().push(resource.clone());
    }
    for (kind, items) in by_kind {
        let path = dir.join(format!("{kind}.yaml"));
        std::fs::write(&path, documents(&items))
            .map_err(|e| Failure::io(format!("cannot write {}", path.display()), e))?;
        eprintln!("wrote {} ({} resource(s))", path.display(), items.len());
    }
    Ok(())
}

/// What the service holds, read once.
struct Workspace {
    records: HashMap<Uuid, String>,
    agents: Vec<Agent>,
    endpoints: Vec<AgentEndpoint>,
    definitions: Vec<HttpRequestDefinition>,
    personas: Vec<Persona>,
    environments: Vec<Value>,
    flows: Vec<CustomerFlow>,
    metrics: Vec<MetricDefinition>,
    policies: Vec<MetricPolicy>,
    plans: Vec<RunPlan>,
    /// The local service's alerts (`GET /v1/alert`; none where the route is missing).
    alerts: Vec<AlertStatus>,
}

async fn all<T: DeserializeOwned>(session: &Session, route: &str) -> Result<Vec<T>, Failure> {
    let items: Vec<T> = session.client.list_all(route, ListQuery::default().limit(50)).try_collect().await?;
    Ok(items)
}

/// A list a service may not have (404: none).
async fn optional<T: DeserializeOwned>(session: &Session, route: &str) -> Result<Vec<T>, Failure> {
    match session.client.list_all(route, ListQuery::default().limit(50)).try_collect().await {
        Ok(items) => Ok(items),
        Err(error) if error.status() == Some(404) => Ok(Vec::new()),
        Err(error) => Err(error.into()),
    }
}

impl Workspace {
    async fn read(session: &Session) -> Result<Workspace, Failure> {
        let records: Vec<ConfigRecordEntry> = match session.client.get_raw("/v1/config/records").await {
            Ok(value) => serde_json::from_value(value).unwrap_or_default(),
            Err(error) if error.status() == Some(404) => Vec::new(),
            Err(error) => return Err(error.into()),
        };
        // The lists are read side by side: an export costs the slowest list, not their sum.
        let (agents, endpoints, definitions, personas, environments, flows, metrics, policies, plans) = tokio::try_join!(
            all(session, routes::AGENTS),
            all(session, routes::AGENT_ENDPOINTS),
            all(session, routes::HTTP_REQUEST_DEFINITIONS),
            all(session, routes::PERSONAS),
            optional(session, "/v1/simulation/environment"),
            all(session, routes::FLOWS),
            all(session, routes::METRIC_DEFINITIONS),
            all(session, routes::POLICIES),
            all(session, routes::RUN_PLANS),
        )?;
        let alerts: Vec<AlertStatus> = match session.client.get_raw("/v1/alert").await {
            Ok(value) => serde_json::from_value(value).unwrap_or_default(),
            Err(error) if error.status() == Some(404) => Vec::new(),
            Err(error) => return Err(error.into()),
        };
        let records = records.into_iter().filter_map(|r| Some((r.id.parse().ok()?, r.name))).collect();
        Ok(Workspace {
            records,
            agents,
            endpoints,
            definitions,
            personas,
            environments,
            flows,
            metrics,
            policies,
            plans,
            alerts,
        })
    }

    /// The resources of `kinds`, each as the bundle writes it.
    fn bundle(&self, kinds: &[ConfigKind]) -> Vec<Value> {
        let names = self.names();
        let slugs: HashMap<Uuid, String> =
            self.metrics.iter().filter_map(|m| Some((m.id, m.slug_or_alias()?.to_owned()))).collect();
        let mut out = Vec::new();
        for kind in kinds {
            match kind {
                ConfigKind::HttpRequestDefinition => out.extend(self.definitions.iter().map(|d| {
                    let name = named(&names.definitions, &d.id);
                    let resource = export::http_request_definition(d, placeholders(d, &name), &name);
                    ConfigResource::HttpRequestDefinition(resource).to_value()
                })),
                ConfigKind::Agent => out.extend(self.agents.iter().map(|a| {
                    let endpoints: Vec<AgentEndpoint> =
                        self.endpoints.iter().filter(|e| e.agent_id == Some(a.id)).cloned().collect();
                    let name = named(&names.agents, &a.id);
                    ConfigResource::Agent(export::agent(a, &endpoints, &name, &names)).to_value()
                })),
                ConfigKind::Persona => {
                    out.extend(self.own_personas().map(|p| ConfigResource::Persona(export::persona(p)).to_value()))
                }
                ConfigKind::Metric => {
                    out.extend(self.own_metrics().map(|m| ConfigResource::Metric(export::metric(m)).to_value()))
                }
                ConfigKind::Flow => out
                    .extend(self.own_flows().map(|f| export::flow(f, &named(&names.flows, &f.id), &names).to_value())),
                ConfigKind::Collector => out.extend(self.policies.iter().filter(|p| !is_system_policy(p)).map(|p| {
                    let name = self.name_of(p.id, p.name.as_deref(), "collector");
                    ConfigResource::Collector(export::collector(p, &name, &slugs, &names.agents)).to_value()
                })),
                ConfigKind::SimulationPlan => out.extend(
                    self.plans.iter().map(|p| ConfigResource::SimulationPlan(export::plan(p, &names)).to_value()),
                ),
                ConfigKind::Alert => out.extend(self.alerts.iter().map(|a| {
                    let name = self.name_of(a.id, Some(&a.name), "alert");
                    ConfigResource::Alert(export::alert(&alert_of(a), &name)).to_value()
                })),
                _ => {}
            }
        }
        out
    }

    fn own_personas(&self) -> impl Iterator<Item = &Persona> {
        self.personas.iter().filter(|p| p.is_system != Some(true))
    }

    fn own_metrics(&self) -> impl Iterator<Item = &MetricDefinition> {
        self.metrics.iter().filter(|m| !m.is_service_owned())
    }

    fn own_flows(&self) -> impl Iterator<Item = &CustomerFlow> {
        self.flows.iter().filter(|f| f.source != Some(FlowSource::System) && !f.is_voicemail())
    }

    /// The bundle name of every resource others refer to.
    fn names(&self) -> Names {
        let mut names = Names::default();
        let mut taken: HashSet<(&str, String)> = HashSet::new();
        let mut unique = |kind: &'static str, wanted: String| {
            let mut name = wanted.clone();
            let mut n = 2;
            while !taken.insert((kind, name.clone())) {
                name = format!("{wanted}-{n}");
                n += 1;
            }
            name
        };
        for d in &self.definitions {
            // A definition has no member that names it: the service knows one by its id.
            let wanted = self.name_of(d.id, Some(&d.id.to_string()), "definition");
            names.definitions.insert(d.id, unique("definition", wanted));
        }
        for a in &self.agents {
            let wanted = self.name_of(a.id, a.custom_id.as_deref().or(a.name.as_deref()), "agent");
            names.agents.insert(a.id, unique("agent", wanted));
        }
        for p in &self.personas {
            names.personas.insert(p.id, p.fields.name.clone().unwrap_or_else(|| p.id.to_string()));
        }
        for f in &self.flows {
            let wanted = self.name_of(f.id, f.slug.as_deref().or(f.title.as_deref()), "flow");
            names.flows.insert(f.id, unique("flow", wanted));
            for edge in &f.edge_cases {
                names.edge_cases.insert(edge.id, edge.config_name());
            }
        }
        for e in &self.environments {
            if let (Some(id), Some(name)) = (e["id"].as_str().and_then(|i| i.parse().ok()), e["name"].as_str()) {
                names.environments.insert(id, name.to_owned());
            }
        }
        for e in &self.endpoints {
            let Some(agent) = e.agent_id.and_then(|a| names.agents.get(&a)).cloned() else { continue };
            let endpoint = PlanAgentEndpointConfig {
                agent: Some(agent),
                direction: e.direction.clone(),
                value: e.value.clone(),
                ..Default::default()
            };
            names.endpoints.insert(e.id, endpoint);
        }
        names
    }

    /// The name an apply gave the resource, else its own (`own`: a flow's slug or title, an
    /// agent's custom id or name, a policy's name), as written: the name the service finds it
    /// by, so the export applies again to the same service unchanged.
    fn name_of(&self, id: Uuid, own: Option<&str>, fallback: &str) -> String {
        if let Some(name) = self.records.get(&id) {
            return name.clone();
        }
        match own.map(str::trim).filter(|t| !t.is_empty()) {
            Some(own) => own.to_owned(),
            None => format!("{fallback}-{}", &id.simple().to_string()[..8]),
        }
    }
}

fn named(map: &HashMap<Uuid, String>, id: &Uuid) -> String {
    map.get(id).cloned().unwrap_or_else(|| id.to_string())
}

fn is_system_policy(policy: &MetricPolicy) -> bool {
    policy.policy_type == Some(PolicyType::System)
}

/// The definition's headers with every secret value (masked by the service, or named in
/// `secretHeaders`) as a `${…}` placeholder, filled from the environment by `config apply`.
fn placeholders(definition: &HttpRequestDefinition, name: &str) -> BTreeMap<String, String> {
    let secret: HashSet<String> = definition.secret_headers.iter().flatten().map(|h| h.to_ascii_lowercase()).collect();
    let mut out = BTreeMap::new();
    for (header, value) in definition.headers.iter().flatten() {
        let text = value.as_str().unwrap_or_default();
        let masked = text.contains('•') || secret.contains(&header.to_ascii_lowercase());
        let kept = if masked { format!("${{{}}}", placeholder_name(name, header)) } else { text.to_owned() };
        out.insert(header.clone(), kept);
    }
    out
}

/// `HTTP_<DEFINITION>_<HEADER>`, upper case, every other character `_`; a definition named by
/// its id goes by the id's first eight characters.
pub fn placeholder_name(definition: &str, header: &str) -> String {
    let clean = |s: &str| {
        s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect::<String>()
    };
    let definition = if Uuid::parse_str(definition).is_ok() { &definition[..8] } else { definition };
    format!("HTTP_{}_{}", clean(definition), clean(header))
}

/// The alert a read shows, without its state: what a bundle writes.
fn alert_of(read: &AlertStatus) -> Alert {
    Alert {
        id: read.id,
        name: read.name.clone(),
        trigger: read.trigger.clone(),
        actions: read.actions.clone(),
        enabled: read.enabled,
        severity: read.severity.clone(),
        created_at: read.created_at.clone(),
        updated_at: read.updated_at.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_placeholders_read_as_people_expect() {
        assert_eq!(placeholder_name("my-agent-turn", "Authorization"), "HTTP_MY_AGENT_TURN_AUTHORIZATION");
        let by_id = placeholder_name("899c6d12-9f0e-58c8-8311-d0c7fe47b6a4", "X-Api-Key");
        assert_eq!(by_id, "HTTP_899C6D12_X_API_KEY");
        let definition: HttpRequestDefinition = serde_json::from_value(serde_json::json!({
            "id": "6a1f0d5e-0000-4000-8000-000000000001", "url": "https://a.example",
            "headers": {"Authorization": "••••1234", "Accept": "application/json"}, "secretHeaders": ["Authorization"]
        }))
        .unwrap();
        let headers = placeholders(&definition, "dial");
        assert_eq!(headers["Authorization"], "${HTTP_DIAL_AUTHORIZATION}");
        assert_eq!(headers["Accept"], "application/json");
    }
}
