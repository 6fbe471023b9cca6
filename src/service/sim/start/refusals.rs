//! What refuses a run before anything is written: references the plan names that do not exist,
//! and improv variants with no steps when no caller model can improvise them.

use crate::api::model::*;
use crate::api::validate::{Violation, ViolationCode};
use crate::service::error::{DomainError, DomainResult};
use crate::service::metrics::definitions;
use crate::service::store::{self, Conn, Kind, Tx};
use serde::de::DeserializeOwned;

/// Every id the plan names must exist now; every failure is listed at once, each naming its
/// path. The flows its selections name, in their order, so that the rest of a run's start
/// reads none of them again.
pub fn check_references(tx: &Tx, plan: &RunPlanInput, at: &str) -> DomainResult<Vec<CustomerFlow>> {
    let path = |p: String| if at.is_empty() { p } else { format!("{at}.{p}") };
    let mut refused = Vec::new();
    let mut refuse = |param: String, message: String| {
        refused.push(Violation { message: format!("{param}: {message}"), param, code: ViolationCode::InvalidParameter })
    };
    for (i, endpoint) in plan.agent_endpoints.iter().flatten().enumerate() {
        if !store::exists(tx, Kind::AgentEndpoint, &endpoint.id.to_string())? {
            refuse(path(format!("agentEndpoints[{i}].id")), format!("no agent endpoint {}", endpoint.id));
        }
    }
    for (i, metric) in plan.metrics.iter().flatten().enumerate() {
        let key = metric.id.map(|id| id.to_string()).or(metric.slug_or_alias().map(str::to_owned)).unwrap_or_default();
        if definitions::find(tx, &key)?.is_none() {
            let member = if metric.id.is_some() { "id" } else { "slug" };
            let hint = match metric.id {
                Some(_) => String::new(),
                None => slug_hint(tx, Kind::MetricDefinition, &key, |d: &MetricDefinition| d.slug.as_deref())?,
            };
            refuse(path(format!("metrics[{i}].{member}")), format!("no metric definition {key}{hint}"));
        }
    }
    for (i, persona) in plan.personas.iter().flatten().enumerate() {
        if !store::exists(tx, Kind::Persona, &persona.id.to_string())? {
            refuse(path(format!("personas[{i}].id")), format!("no persona {}", persona.id));
        }
    }
    let mut flows = Vec::with_capacity(plan.flow_selections().len());
    for (i, selection) in plan.flow_selections().iter().enumerate() {
        let flow = match resolve_flow(tx, selection) {
            Ok(flow) => flow,
            Err(DomainError::Invalid { message, .. }) => {
                refuse(path(format!("flows[{i}].{}", flow_member(selection))), message);
                continue;
            }
            Err(failure) => return Err(failure),
        };
        if flow.is_voicemail() && plan.direction == Some(Direction::Inbound) {
            refuse(path(format!("flows[{i}].id")), "a voicemail flow needs an OUTBOUND plan".into());
        }
        if let Some(persona) = selection.persona_override_id
            && !store::exists(tx, Kind::Persona, &persona.to_string())?
        {
            refuse(path(format!("flows[{i}].personaOverrideId")), format!("no persona {persona}"));
        }
        if let Some(EdgeCases::List(list)) = &selection.edge_cases {
            for (j, edge) in list.iter().enumerate() {
                if !flow.edge_cases.iter().any(|e| Some(e.id) == edge.id) {
                    let id = edge.id.map(|id| id.to_string()).unwrap_or_default();
                    refuse(path(format!("flows[{i}].edgeCases[{j}].id")), format!("flow has no edge case {id}"));
                }
            }
        }
        if selection.happy_path == Some(true) && flow.happy_path.is_none() {
            refuse(path(format!("flows[{i}].happyPath")), "this flow has no happy path".into());
        }
        flows.push(flow);
    }
    DomainError::check(refused)?;
    Ok(flows)
}

/// Who plays the simulated callers: the offline caller, or a language model (`[caller]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    Offline,
    Model,
}

/// An improv variant with no steps has nothing for the offline caller to say: without a caller
/// model the run is refused, naming every such variant and how to configure a model.
/// `flows` are those the plan's selections name, in order (`check_references`).
pub(super) fn refuse_improv_without_caller(
    plan: &RunPlanInput,
    flows: &[CustomerFlow],
    at: &str,
    caller: Caller,
) -> DomainResult<()> {
    if caller == Caller::Model {
        return Ok(());
    }
    let mut refused = Vec::new();
    for (i, (selection, flow)) in plan.flow_selections().iter().zip(flows).enumerate() {
        let mut chosen: Vec<(String, &FlowVariant)> = Vec::new();
        if selection.happy_path == Some(true)
            && let Some(happy) = &flow.happy_path
        {
            chosen.push(("happyPath".into(), happy));
        }
        match &selection.edge_cases {
            Some(EdgeCases::All) => {
                chosen.extend(flow.edge_cases.iter().enumerate().map(|(j, e)| (format!("edgeCases[{j}]"), e)));
            }
            Some(EdgeCases::List(list)) => {
                for (j, picked) in list.iter().enumerate() {
                    let edge = flow.edge_cases.iter().find(|e| Some(e.id) == picked.id);
                    chosen.extend(edge.map(|e| (format!("edgeCases[{j}]"), e)));
                }
            }
            None => {}
        }
        for (member, variant) in chosen {
            if !needs_caller_model(flow, variant) {
                continue;
            }
            let param =
                if at.is_empty() { format!("flows[{i}].{member}") } else { format!("{at}.flows[{i}].{member}") };
            let message = format!(
                "{param}: the improv variant \"{}\" ({}) of flow \"{}\" has no steps, and this service has no caller model to \
                 improvise it: configure one under [caller] in config.toml (base_url, model, api_key_env), or start \
                 the service with switchboard serve --caller-base-url URL --caller-model MODEL",
                variant.title.as_deref().unwrap_or("untitled"),
                variant.id,
                flow.title.as_deref().unwrap_or("untitled"),
            );
            let code = ViolationCode::InvalidParameter;
            refused.push(Violation { param, code, message });
        }
    }
    DomainError::check(refused)
}

fn flow_member(selection: &FlowSelection) -> &'static str {
    if selection.id.is_some() { "id" } else { "slug" }
}

/// "; did you mean `slug`?" for a slug no resource of `kind` has, when one of theirs is close:
/// the one hint of a plan's references by slug (a metric, a flow).
fn slug_hint<T: DeserializeOwned>(
    conn: &Conn,
    kind: Kind,
    slug: &str,
    slug_of: impl Fn(&T) -> Option<&str>,
) -> DomainResult<String> {
    let all: Vec<T> = store::all(conn, kind)?;
    Ok(crate::api::suggest::did_you_mean(slug, all.iter().filter_map(slug_of)))
}

/// The flows a plan's selections name, in order: each read once.
pub fn resolve_flows(conn: &Conn, plan: &RunPlanInput) -> DomainResult<Vec<CustomerFlow>> {
    plan.flow_selections().iter().map(|selection| resolve_flow(conn, selection)).collect()
}

/// The flow a selection names, by id or by slug.
pub fn resolve_flow(tx: &Conn, selection: &FlowSelection) -> DomainResult<CustomerFlow> {
    let found = match (&selection.id, &selection.slug) {
        (Some(id), _) => store::get(tx, Kind::CustomerFlow, &id.to_string())?,
        (None, Some(slug)) => store::find_by(tx, Kind::CustomerFlow, "$.slug", slug)?,
        (None, None) => None,
    };
    if let Some(flow) = found {
        return Ok(flow);
    }
    let name = selection.id.map(|i| i.to_string()).or(selection.slug.clone()).unwrap_or_default();
    let hint = match &selection.slug {
        Some(slug) if selection.id.is_none() => {
            slug_hint(tx, Kind::CustomerFlow, slug, |f: &CustomerFlow| f.slug.as_deref())?
        }
        _ => String::new(),
    };
    Err(DomainError::invalid("flows", format!("no customer flow {name}{hint}")))
}

/// Whether only a caller model can run the variant: it improvises and has no steps to say.
pub fn needs_caller_model(flow: &CustomerFlow, variant: &FlowVariant) -> bool {
    let improv = [&flow.flow_type, &variant.variant_type].contains(&&Some(FlowType::Improv));
    improv && crate::service::metrics::compute::script(flow, Some(variant)).is_empty()
}
