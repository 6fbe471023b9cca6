//! Names of resources by id (and slug), learnt from every list the app fetches, so a pane can
//! show "Dana Whitfield" where a plan or a job holds only an id.

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use crate::api::model::config::{PlanAgentEndpointConfig, export};
use crate::api::model::{AgentEndpoint, CustomerFlow, MetricDefinition, RunPlanInput, flow_and_automatic_metrics};
use crate::cache::Cache;
use crate::console::message::{FetchError, Fetched, ListKind, Listing, Request};
use crate::console::out::Out;

#[derive(Debug, Default)]
pub struct Names {
    names: HashMap<String, String>,
    /// A flow's edge cases by title, for plans that select `ALL` of them.
    edge_cases: HashMap<String, Vec<String>>,
    /// Kinds asked for (or seen) in this session.
    asked: HashSet<ListKind>,
    /// Kinds whose list has arrived (from the service or the last session's cache).
    arrived: HashSet<ListKind>,
    /// Metric definitions (by id and slug) that are checks, and those that are not.
    checks: HashMap<String, bool>,
    /// Flows by id and slug, and every metric definition by id: what a plan's runs judge
    /// beyond its own metrics is worked out from them.
    flows: HashMap<String, CustomerFlow>,
    definitions: HashMap<Uuid, MetricDefinition>,
    /// What a plan's config YAML names things by (`e` on a plan): agents, personas, endpoints.
    config: export::Names,
    endpoints: Vec<AgentEndpoint>,
}

impl Names {
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks for the lists of `kinds` not asked for in this session.
    pub fn ensure(&mut self, kinds: &[ListKind], out: &mut Out) {
        for kind in kinds {
            if self.asked.insert(*kind) {
                out.fetch(Request::List(*kind));
            }
        }
    }

    /// Lists from the last session, until fresh ones arrive.
    pub fn restore(&mut self, cache: &Cache, kinds: &[ListKind]) {
        for kind in kinds {
            if let Some((listing, _)) = kind.from_cache(cache) {
                self.learn(&listing);
            }
        }
    }

    /// Learns from any list or item fetched; true when a name was learnt.
    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        match (request, result) {
            (_, Ok(Fetched::List(listing, _) | Fetched::Item(listing))) => {
                if matches!(request, Request::List(_)) {
                    self.asked.insert(listing.kind());
                }
                self.learn(listing)
            }
            _ => false,
        }
    }

    /// Whether every list of `kinds` has arrived.
    pub fn has(&self, kinds: &[ListKind]) -> bool {
        kinds.iter().all(|k| self.arrived.contains(k))
    }

    fn learn(&mut self, listing: &Listing) -> bool {
        self.arrived.insert(listing.kind());
        let before = self.names.len();
        let mut put = |key: String, name: Option<String>| {
            if let Some(name) = name.filter(|n| !n.is_empty()) {
                self.names.insert(key, name);
            }
        };
        match listing {
            Listing::RunPlans(plans) => plans.iter().for_each(|p| put(p.id.to_string(), p.plan.name.clone())),
            Listing::Personas(personas) => personas.iter().for_each(|p| {
                self.config.personas.extend(p.fields.name.clone().map(|n| (p.id, n)));
                put(p.id.to_string(), Some(p.label()))
            }),
            Listing::Agents(agents) => {
                for a in agents {
                    let name = a.custom_id.clone().or(a.name.clone()).unwrap_or_else(|| a.id.to_string());
                    self.config.agents.insert(a.id, name);
                }
                return false;
            }
            Listing::AgentEndpoints(endpoints) => endpoints.iter().for_each(|e| {
                self.endpoints.retain(|kept| kept.id != e.id);
                self.endpoints.push(e.clone());
                let name = match (&e.value, &e.environment) {
                    (Some(value), Some(env)) => Some(format!("{value} ({env})")),
                    (value, _) => value.clone(),
                };
                put(e.id.to_string(), name)
            }),
            Listing::MetricDefinitions(metrics) => {
                self.definitions.extend(metrics.iter().map(|m| (m.id, m.clone())));
                for m in metrics {
                    put(m.id.to_string(), m.name.clone());
                    self.checks.insert(m.id.to_string(), m.is_check());
                    if let Some(slug) = &m.slug {
                        put(slug.clone(), m.name.clone());
                        self.checks.insert(slug.clone(), m.is_check());
                    }
                }
            }
            Listing::Flows(flows) => {
                for flow in flows {
                    let name = flow.slug.clone().or(flow.title.clone()).unwrap_or_else(|| flow.id.to_string());
                    self.config.flows.insert(flow.id, name);
                    for case in &flow.edge_cases {
                        let name = case.name.clone().or(case.title.clone());
                        self.config.edge_cases.extend(name.map(|n| (case.id, n)));
                    }
                    self.flows.insert(flow.id.to_string(), flow.clone());
                    if let Some(slug) = &flow.slug {
                        self.flows.insert(slug.clone(), flow.clone());
                    }
                    put(flow.id.to_string(), flow.title.clone());
                    if let Some(slug) = &flow.slug {
                        put(slug.clone(), flow.title.clone());
                    }
                    for variant in flow.happy_path.iter().chain(&flow.edge_cases) {
                        put(variant.id.to_string(), variant.title.clone());
                    }
                    let titles: Vec<String> =
                        flow.edge_cases.iter().map(|e| e.title.clone().unwrap_or_else(|| e.id.to_string())).collect();
                    self.edge_cases.insert(flow.id.to_string(), titles.clone());
                    if let Some(slug) = &flow.slug {
                        self.edge_cases.insert(slug.clone(), titles);
                    }
                }
            }
            _ => return false,
        }
        self.names.len() != before || matches!(listing, Listing::Flows(_))
    }

    /// The metrics each run of `plan` judges beyond its own, each with why (`the flow's` or
    /// `automatic`), as the service adds them; None until the flows and metrics are known.
    pub fn also_judged(&self, plan: &RunPlanInput) -> Option<Vec<(MetricDefinition, &'static str)>> {
        if self.definitions.is_empty() || (plan.runs_flows() && self.flows.is_empty()) {
            return None;
        }
        let chosen: Vec<MetricDefinition> = plan
            .metrics
            .iter()
            .flatten()
            .filter_map(|m| {
                let key = m.id.map(|id| id.to_string()).or(m.slug_or_alias().map(str::to_owned))?;
                self.definitions.values().find(|d| d.id.to_string() == key || d.slug.as_deref() == Some(&key)).cloned()
            })
            .collect();
        let mut extra: Vec<(MetricDefinition, &'static str)> = Vec::new();
        for selection in plan.flow_selections() {
            let key = selection.id.map(|id| id.to_string()).or(selection.slug.clone()).unwrap_or_default();
            let Some(flow) = self.flows.get(&key) else { continue };
            let taken: Vec<MetricDefinition> = chosen.iter().chain(extra.iter().map(|(d, _)| d)).cloned().collect();
            for definition in flow_and_automatic_metrics(plan, flow, &self.definitions, &taken) {
                let own = flow.metrics.iter().flatten().any(|m| m.id == definition.id);
                extra.push((definition, if own { "the flow's" } else { "automatic" }));
            }
        }
        Some(extra)
    }

    /// The bundle names a plan's config YAML refers to, from the lists learnt so far (an id
    /// stands in for what is not known yet).
    pub fn config_names(&self) -> export::Names {
        let mut names = self.config.clone();
        for e in &self.endpoints {
            let agent = e.agent_id.map(|a| names.agents.get(&a).cloned().unwrap_or_else(|| a.to_string()));
            let shown = PlanAgentEndpointConfig {
                agent,
                direction: e.direction.clone(),
                value: e.value.clone(),
                ..Default::default()
            };
            names.endpoints.insert(e.id, shown);
        }
        names
    }

    /// The name of `key` (an id or slug), when known.
    pub fn get(&self, key: impl ToString) -> Option<&str> {
        self.names.get(&key.to_string()).map(String::as_str)
    }

    /// The name, else the key itself.
    pub fn or_key(&self, key: impl ToString) -> String {
        let key = key.to_string();
        self.names.get(&key).cloned().unwrap_or(key)
    }

    /// Whether metric `key` (an id or slug) is a check, when the metric is known.
    pub fn is_check(&self, key: &str) -> Option<bool> {
        self.checks.get(key).copied()
    }

    /// The titles of a flow's edge cases, when the flow is known.
    pub fn edge_cases(&self, flow: &str) -> Option<&[String]> {
        self.edge_cases.get(flow).map(Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_names_by_id_and_slug_from_any_list() {
        let mut names = Names::new();
        let metric: crate::api::model::MetricDefinition = serde_json::from_value(serde_json::json!({
            "id": "6a1f0d5e-0000-4000-8000-000000000001", "slug": "call_duration", "name": "Call duration"
        }))
        .unwrap();
        let request = Request::List(ListKind::MetricDefinitions);
        let changed = names.fetched(&request, &Ok(Fetched::List(Listing::MetricDefinitions(vec![metric]), Vec::new())));
        assert!(changed);
        assert_eq!(names.get("call_duration"), Some("Call duration"));
        assert_eq!(names.get("6a1f0d5e-0000-4000-8000-000000000001"), Some("Call duration"));
        assert_eq!(names.or_key("nope"), "nope");
        let mut out = Out::default();
        names.ensure(&[ListKind::MetricDefinitions, ListKind::Flows], &mut out);
        assert_eq!(out.effects.len(), 1, "lists already fetched are not asked for again");
    }
}
