//! What an apply would change: each bundle resource compared, in the bundle's shapes, with what
//! is kept (create, update with the members that change, or noop), and the deletes a prune makes.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use uuid::Uuid;

use super::build::{Builder, Target};
use super::decode::Entry;
use super::workspace::{ConfigRecord, Workspace};
use crate::api::model::config::export::{self, Names};
use crate::api::model::config::*;
use crate::api::model::headers::{is_secret, mask};
use crate::api::validate::clip;

/// One planned change, with what writing it needs.
#[derive(Debug, Clone)]
pub struct Planned {
    pub change: ConfigChange,
    /// What to keep (creates and updates).
    pub target: Option<Target>,
    /// What to delete (prunes), and the record that made it.
    pub record: Option<ConfigRecord>,
}

/// The names a mapping needs, from the workspace and the bundle's targets.
pub fn names(workspace: &Workspace, builder: &Builder, entries: &[Entry]) -> (Names, HashMap<Uuid, String>) {
    let mut names = Names::default();
    let mut slugs = HashMap::new();
    for a in workspace.agents.values() {
        let name = a.custom_id.clone().or(a.name.clone()).unwrap_or_else(|| a.id.to_string());
        names.agents.insert(a.id, name);
    }
    for p in workspace.personas.values() {
        names.personas.insert(p.id, p.fields.name.clone().unwrap_or_else(|| p.id.to_string()));
    }
    for f in workspace.flows.values() {
        names.flows.insert(f.id, f.slug.clone().or(f.title.clone()).unwrap_or_else(|| f.id.to_string()));
        edge_case_names(f, &mut names);
    }
    for e in workspace.environments.values() {
        if let (Some(id), Some(name)) = (e.id, &e.name) {
            names.environments.insert(id, name.clone());
        }
    }
    for m in workspace.metrics.values() {
        slugs.insert(m.id, m.slug_or_alias().unwrap_or_default().to_owned());
    }
    for record in &workspace.records {
        let map = match record.kind {
            ConfigKind::Agent => &mut names.agents,
            ConfigKind::Persona => &mut names.personas,
            ConfigKind::Flow => &mut names.flows,
            ConfigKind::HttpRequestDefinition => &mut names.definitions,
            _ => continue,
        };
        map.insert(record.id, record.name.clone());
    }
    let mut endpoints = workspace.endpoints.clone();
    for entry in entries {
        let Some(target) = builder.built.get(&entry.key) else { continue };
        let Some(id) = target.id() else { continue };
        match target {
            Target::Agent(_, own) => {
                names.agents.insert(id, entry.name.clone());
                endpoints.retain(|e| e.agent_id != Some(id));
                endpoints.extend(own.iter().cloned());
            }
            Target::Persona(_) => drop(names.personas.insert(id, entry.name.clone())),
            Target::Flow(flow) => {
                names.flows.insert(id, entry.name.clone());
                edge_case_names(flow, &mut names);
            }
            Target::Definition(..) => drop(names.definitions.insert(id, entry.name.clone())),
            Target::Metric(_) => drop(slugs.insert(id, entry.name.clone())),
            _ => {}
        }
    }
    for e in endpoints {
        let agent = e.agent_id.map(|a| names.agents.get(&a).cloned().unwrap_or_else(|| a.to_string()));
        let shown = PlanAgentEndpointConfig { agent, direction: e.direction, value: e.value, ..Default::default() };
        names.endpoints.insert(e.id, shown);
    }
    (names, slugs)
}

fn edge_case_names(flow: &crate::api::model::CustomerFlow, names: &mut Names) {
    for case in &flow.edge_cases {
        let name = case.config_name();
        names.edge_cases.insert(case.id, name);
    }
}

/// A target in the bundle's shape.
pub fn config_of(target: &Target, name: &str, names: &Names, slugs: &HashMap<Uuid, String>) -> Value {
    let resource = match target {
        Target::Agent(agent, endpoints) => ConfigResource::Agent(export::agent(agent, endpoints, name, names)),
        Target::Definition(definition, headers) => {
            ConfigResource::HttpRequestDefinition(export::http_request_definition(definition, headers.clone(), name))
        }
        Target::Persona(persona) => ConfigResource::Persona(export::persona(persona)),
        Target::Flow(flow) => export::flow(flow, name, names),
        Target::Metric(metric) => ConfigResource::Metric(export::metric(metric)),
        Target::Policy(policy) => ConfigResource::Collector(export::collector(policy, name, slugs, &names.agents)),
        Target::Plan(plan) => ConfigResource::SimulationPlan(export::plan(plan, names)),
        Target::Tool(tool) => ConfigResource::Tool(export::tool(tool, names)),
        Target::Alert(alert) => ConfigResource::Alert(export::alert(alert, name)),
        Target::Skipped(_) => return Value::Null,
    };
    resource.to_value()
}

/// What is kept for a record, as a target (to map it the same way).
pub fn kept(workspace: &Workspace, kind: &ConfigKind, id: &Uuid) -> Option<Target> {
    Some(match kind {
        ConfigKind::Agent => Target::Agent(workspace.agents.get(id)?.clone(), workspace.endpoints_of(id)),
        ConfigKind::HttpRequestDefinition => Target::Definition(
            workspace.definitions.get(id)?.clone(),
            workspace.headers.get(id).cloned().unwrap_or_default(),
        ),
        ConfigKind::Persona => Target::Persona(Box::new(workspace.personas.get(id)?.clone())),
        ConfigKind::Flow => Target::Flow(Box::new(workspace.flows.get(id)?.clone())),
        ConfigKind::Metric => Target::Metric(Box::new(workspace.metrics.get(id)?.clone())),
        ConfigKind::Collector => Target::Policy(workspace.policies.get(id)?.clone()),
        ConfigKind::SimulationPlan => Target::Plan(Box::new(workspace.plans.get(id)?.clone())),
        ConfigKind::Tool => Target::Tool(workspace.tools.get(id)?.clone()),
        ConfigKind::Alert => Target::Alert(Box::new(workspace.alerts.get(id)?.clone())),
        _ => return None,
    })
}

/// Every change, in bundle order, then the deletes.
pub fn plan(workspace: &Workspace, builder: &Builder, entries: &[Entry], gone: &[ConfigRecord]) -> Vec<Planned> {
    let (names, slugs) = names(workspace, builder, entries);
    let fillable = super::fillable::names(workspace, builder, gone);
    let mut out = Vec::with_capacity(entries.len() + gone.len());
    for entry in entries {
        let kind = entry.resource.kind();
        let Some(target) = builder.built.get(&entry.key).cloned() else { continue };
        let mut change = ConfigChange {
            config_key: entry.key.clone(),
            kind: kind.clone(),
            name: entry.name.clone(),
            op: ConfigOp::Noop,
            status: ChangeStatus::Applied,
            id: target.id().map(|id| id.to_string()),
            detail: None,
            error: None,
            project: None,
            signing_secret: None,
        };
        if let Target::Skipped(why) = &target {
            change.status = ChangeStatus::Skipped;
            change.detail = Some(why.clone());
            out.push(Planned { change, target: None, record: None });
            continue;
        }
        let record = workspace.record(&kind, &entry.name);
        let current = workspace.resident(&kind, &entry.name).and_then(|id| kept(workspace, &kind, &id));
        match current {
            None => change.op = ConfigOp::Create,
            Some(current) => {
                let mut before = config_of(&current, &entry.name, &names, &slugs);
                let mut after = config_of(&target, &entry.name, &names, &slugs);
                let mut differences = Vec::new();
                differ("", &before, &after, &mut differences);
                unshown_differences(&current, &target, &mut differences);
                if let (Target::Definition(definition, _), false) = (&target, differences.is_empty()) {
                    // Said again with secret header values as reads show them.
                    let marked = definition.secret_headers.clone().unwrap_or_default();
                    hide_secret_headers(&mut before, &mut after, &marked);
                    differences.clear();
                    differ("", &before, &after, &mut differences);
                }
                if !differences.is_empty() {
                    change.op = ConfigOp::Update;
                    change.detail = Some(differences.join("; "));
                }
            }
        }
        if let (Target::Alert(alert), false) = (&target, change.op == ConfigOp::Noop) {
            let warning = crate::service::alerts::actions::warning(alert);
            change.detail = [change.detail.take(), warning].into_iter().flatten().reduce(|a, b| format!("{a}; {b}"));
        }
        if let (Target::Flow(flow), false) = (&target, change.op == ConfigOp::Noop) {
            let warnings = super::fillable::warnings(flow, &fillable);
            change.detail = [change.detail.take(), warnings].into_iter().flatten().reduce(|a, b| format!("{a}\n{b}"));
        }
        let target = (change.op != ConfigOp::Noop).then_some(target);
        out.push(Planned { change, target, record: record.cloned() });
    }
    for record in gone {
        let mut change = ConfigChange {
            config_key: record.key(),
            kind: record.kind.clone(),
            name: record.name.clone(),
            op: ConfigOp::Delete,
            status: ChangeStatus::Applied,
            id: Some(record.id.to_string()),
            detail: Some("no longer in the bundle (prune)".into()),
            error: None,
            project: None,
            signing_secret: None,
        };
        if workspace.in_use.contains(&record.id) {
            change.status = ChangeStatus::Failed;
            change.error = Some(format!(
                "{} is in use by a run plan job that has not finished; it is kept until the job ends",
                record.key()
            ));
        }
        out.push(Planned { change, target: None, record: Some(record.clone()) });
    }
    out
}

/// What changes in a member the service derives and the bundle's shape cannot show, so that
/// comparing the two as bundle resources (`config_of`) misses it. Only a flow's `slug` is such
/// a member: the builder makes it from the bundle `name` (`flow_slug`), and a flow an earlier
/// apply made without one gets it. Every other member a target has is one its bundle resource
/// gives, one kept as it was (ids, a flow's metrics), or one set alike on every apply (times,
/// `source: CUSTOM`), so no other member needs a case here.
fn unshown_differences(current: &Target, target: &Target, out: &mut Vec<String>) {
    if let (Target::Flow(was), Target::Flow(will)) = (current, target)
        && was.slug != will.slug
    {
        let text = |slug: &Option<String>| slug.as_ref().map_or(Value::Null, |s| Value::from(s.as_str()));
        differ("slug", &text(&was.slug), &text(&will.slug), out);
    }
}

/// The records a prune deletes: made by an apply (not the seed), still there, not in the bundle.
pub fn gone(workspace: &Workspace, entries: &[Entry]) -> Vec<ConfigRecord> {
    let wanted: HashSet<&str> = entries.iter().map(|e| e.key.as_str()).collect();
    let mut out: Vec<ConfigRecord> = workspace
        .records
        .iter()
        .filter(|r| !r.seeded && !wanted.contains(r.key().as_str()) && workspace.exists(&r.kind, &r.id))
        .cloned()
        .collect();
    // Whatever names others goes last (plans before flows, flows before personas).
    let rank = |k: &ConfigKind| match k {
        ConfigKind::Alert => 0,
        ConfigKind::SimulationPlan => 1,
        ConfigKind::Tool | ConfigKind::Collector => 2,
        ConfigKind::Flow => 3,
        ConfigKind::Metric | ConfigKind::Persona => 4,
        ConfigKind::Agent => 5,
        _ => 6,
    };
    out.sort_by(|a, b| rank(&a.kind).cmp(&rank(&b.kind)).then(a.name.cmp(&b.name)));
    out
}

/// Secret header values of both sides replaced by their masks; a secret changed to one with the
/// same mask reads as a new secret.
fn hide_secret_headers(before: &mut Value, after: &mut Value, marked: &[String]) {
    let old = before.get("headers").and_then(Value::as_object).cloned().unwrap_or_default();
    let hide = |side: &mut Value, other: &serde_json::Map<String, Value>, is_after: bool| {
        let Some(headers) = side.get_mut("headers").and_then(Value::as_object_mut) else { return };
        for (name, value) in headers.iter_mut().filter(|(name, _)| is_secret(name, marked)) {
            let real = value.as_str().unwrap_or_default().to_owned();
            let was = other.get(name).and_then(Value::as_str);
            let shown = mask(&real);
            let same_mask = was.is_some_and(|w| w != real && mask(w) == shown);
            *value = Value::String(if is_after && same_mask { format!("{shown} (a new value)") } else { shown });
        }
    };
    let new = after.get("headers").and_then(Value::as_object).cloned().unwrap_or_default();
    hide(before, &new, false);
    hide(after, &old, true);
}

/// The members at which `before` and `after` differ, as `path: old → new`.
fn differ(at: &str, before: &Value, after: &Value, out: &mut Vec<String>) {
    if before == after {
        return;
    }
    match (before, after) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for key in keys {
                let path = if at.is_empty() { key.clone() } else { format!("{at}.{key}") };
                differ(&path, a.get(key).unwrap_or(&Value::Null), b.get(key).unwrap_or(&Value::Null), out);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differ(&format!("{at}[{i}]"), x, y, out);
            }
        }
        _ => out.push(format!("{at}: {} → {}", shown(before), shown(after))),
    }
}

fn shown(value: &Value) -> String {
    match value {
        Value::Null => "(none)".into(),
        other => clip(&other.to_string(), 80),
    }
}
