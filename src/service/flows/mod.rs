//! Customer flows as callers make and change them: create, update, delete, the graph, the happy
//! path and edge cases. Every problem with a body is reported at once (400 with
//! `details.violations`); flows the service owns (SYSTEM, voicemail) are refused whole.

pub mod duplicate;
pub mod graph;
mod variants;

use uuid::Uuid;

pub(crate) use variants::blank as blank_variant;
pub use variants::{add_edge_case, promote_edge_case, remove_edge_case, update_edge_case, update_happy_path};

use crate::api::model::*;
use crate::api::validate::{Validate, Violation, ViolationCode, index};
use crate::service::error::{DomainError, DomainResult};
use crate::service::store::StoreResult;
use crate::service::store::{self, Conn, Doc, Kind, Tx};

/// The code of the 409 that refuses to delete a flow an unfinished run needs.
pub const FLOW_IN_USE: &str = "flow_in_use";

fn invalid(param: impl Into<String>, message: impl Into<String>) -> Violation {
    Violation { param: param.into(), code: ViolationCode::InvalidParameter, message: message.into() }
}

/// The flow `id`, refused when the service owns it: its curated (SYSTEM) flows are shared by
/// every workspace and voicemail flows drive its own voicemail calls, so callers duplicate them
/// rather than change them.
pub fn editable(conn: &Conn, id: &str) -> DomainResult<CustomerFlow> {
    let flow: CustomerFlow = store::require(conn, Kind::CustomerFlow, id)?;
    if flow.is_voicemail() {
        return Err(DomainError::invalid(
            "flowId",
            format!(
                "flow {id} is a voicemail flow: voicemail flows are service-managed and cannot be changed or deleted"
            ),
        ));
    }
    if flow.source == Some(FlowSource::System) {
        return Err(DomainError::invalid(
            "flowId",
            format!(
                "flow {id} is a system flow (source SYSTEM), curated by the service: duplicate it \
                 (POST /v1/customer-flow/{id}/duplicate) and change the copy"
            ),
        ));
    }
    Ok(flow)
}

/// The flow `id` as `editable` gives it; when it is not, a body that breaks rules of its own
/// is still answered with those (a body's 400 comes before the record's 404).
pub(crate) fn editable_for(conn: &Conn, id: &str, problems: &[Violation]) -> DomainResult<CustomerFlow> {
    editable(conn, id).map_err(
        |refused| {
            if problems.is_empty() { refused } else { DomainError::Refused(problems.to_vec()) }
        },
    )
}

fn save(tx: &Tx, flow: &mut CustomerFlow) -> StoreResult<()> {
    flow.updated_at = Some(Timestamp::now());
    store::update(tx, &Doc::of(&*flow)?)
}

fn expectations(input: &[ExpectationInput]) -> Vec<Expectation> {
    input.iter().map(|e| Expectation { id: Some(Uuid::new_v4()), prompt: e.prompt.clone() }).collect()
}

/// The agents `ids` name, as the copies a flow holds; a violation for each that names none.
fn agents(conn: &Conn, ids: &[Uuid], out: &mut Vec<Violation>) -> DomainResult<Vec<Agent>> {
    let mut found = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        match store::get::<Agent>(conn, Kind::Agent, &id.to_string())? {
            Some(agent) => found.push(agent),
            None => out.push(invalid(index("agentIds", i), format!("{}: no agent {id}", index("agentIds", i)))),
        }
    }
    Ok(found)
}

/// Makes a flow from `input` and keeps it.
pub fn create(tx: &Tx, input: &FlowInput) -> DomainResult<CustomerFlow> {
    let mut out = input.validate();
    let flow_type = input.flow_type.clone().unwrap_or(FlowType::Scripted);
    let agents = agents(tx, input.agent_ids.as_deref().unwrap_or_default(), &mut out)?;
    let now = Timestamp::now();
    let title = input.title.clone().unwrap_or_default();
    let mut flow = CustomerFlow {
        id: Uuid::new_v4(),
        title: Some(title.clone()),
        source: Some(FlowSource::Custom),
        description: input.description.clone(),
        created_at: Some(now.clone()),
        updated_at: Some(now.clone()),
        agents,
        agent_expectations: expectations(input.agent_expectations.as_deref().unwrap_or_default()),
        flow_type: Some(flow_type.clone()),
        script_adherence: None,
        off_script_policy: None,
        branching_mode: None,
        happy_path: None,
        edge_cases: Vec::new(),
        graph: Vec::new(),
        slug: None,
        metrics: None,
    };
    match flow_type {
        FlowType::Scripted => {
            flow.script_adherence = Some(input.script_adherence.clone().unwrap_or(ScriptAdherence::Loose));
            flow.branching_mode = Some(input.branching_mode.clone().unwrap_or(BranchingMode::Deterministic));
            flow.off_script_policy = input.off_script_policy.clone();
            let steps = input.graph.as_deref().unwrap_or_default();
            if input.graph.is_some() {
                flow.graph = graph::build(tx, &flow_type, steps, "graph", &mut out)?;
            }
            // A scripted flow's happy path is its graph, run as the plan's personas.
            flow.happy_path = Some(variants::blank(&flow_type, &title, &now));
        }
        _ => {
            let given = input.happy_path.clone().unwrap_or_default();
            let happy = variants::blank(&flow_type, &title, &now);
            let happy = variants::apply(tx, &flow_type, happy, &given, None, "happyPath", &mut out)?;
            for (i, case) in input.edge_cases.iter().flatten().enumerate() {
                let blank = variants::blank(&flow_type, case.title.as_deref().unwrap_or_default(), &now);
                let at = index("edgeCases", i);
                flow.edge_cases.push(variants::apply(tx, &flow_type, blank, case, Some(&happy), &at, &mut out)?);
            }
            flow.happy_path = Some(happy);
        }
    }
    DomainError::check(out)?;
    store::insert(tx, &Doc::of(&flow)?)?;
    Ok(flow)
}

/// Changes the members `update` gives; scripted-only members are refused on an improv flow.
pub fn update(tx: &Tx, id: &str, update: &FlowUpdate) -> DomainResult<CustomerFlow> {
    let mut out = update.validate();
    let mut flow = editable_for(tx, id, &out)?;
    let scripted = flow.flow_type == Some(FlowType::Scripted);
    if !scripted {
        for (member, given) in [
            ("branchingMode", update.branching_mode.is_some()),
            ("offScriptPolicy", update.off_script_policy.is_some()),
            ("scriptAdherence", update.script_adherence.is_some()),
        ] {
            if given {
                out.push(invalid(member, format!("{member}: scripted flows only; this flow is IMPROV")));
            }
        }
    }
    if let Some(ids) = &update.agent_ids {
        if !scripted && ids.is_empty() {
            out.push(invalid("agentIds", "agentIds: an improv flow keeps at least one agent"));
        }
        flow.agents = agents(tx, ids, &mut out)?;
    }
    DomainError::check(out)?;
    if let Some(title) = &update.title {
        flow.title = Some(title.clone());
    }
    if let Some(description) = &update.description {
        flow.description = description.clone();
    }
    if let Some(given) = &update.agent_expectations {
        flow.agent_expectations = expectations(given);
    }
    if let Some(mode) = &update.branching_mode {
        flow.branching_mode = Some(mode.clone());
    }
    if let Some(policy) = &update.off_script_policy {
        flow.off_script_policy = policy.clone();
    }
    if let Some(adherence) = &update.script_adherence {
        flow.script_adherence = Some(adherence.clone());
    }
    save(tx, &mut flow)?;
    Ok(flow)
}

/// Hides the flow from every read. Refused with 409 `flow_in_use` while a job of a plan that
/// runs it has not ended (it reads the flow as it goes).
pub fn delete(tx: &Tx, id: &str) -> DomainResult<()> {
    editable(tx, id)?;
    let open: Vec<&str> = RunPlanJobStatus::KNOWN.iter().filter(|s| !s.is_terminal()).map(|s| s.as_str()).collect();
    for (job, plan) in store::ids_in_status(tx, Kind::RunPlanJob, &open)? {
        let Some(plan_id) = plan else { continue };
        let Some(plan) = store::get::<RunPlan>(tx, Kind::RunPlan, &plan_id)? else { continue };
        let flows = plan.plan.flow_selections().iter().filter_map(|f| f.id);
        let scenarios = plan.plan.scenarios.iter().flatten().filter_map(|s| s.id);
        if flows.chain(scenarios).any(|f| f.to_string() == id) {
            let status = store::peek_status(tx, Kind::RunPlanJob, &job)?.unwrap_or_default();
            let message = format!(
                "customer flow {id} is in use: job {job} of run plan {plan_id} is {status}; cancel it \
                 (POST /v1/simulation/plan/job/{job}/cancel) or let it end, then delete the flow"
            );
            return Err(DomainError::conflict("flowId", FLOW_IN_USE, message));
        }
    }
    store::soft_delete(tx, Kind::CustomerFlow, id, &Timestamp::now().0)?;
    Ok(())
}

/// Replaces a scripted flow's graph. Dropping merges the flow had needs `allowUnmerge`; the
/// happy path and edge cases are kept (they name personas, not paths, here).
pub fn replace_graph(tx: &Tx, id: &str, input: &GraphInput) -> DomainResult<GraphReplaced> {
    let mut out = input.validate();
    let mut flow = editable_for(tx, id, &out)?;
    let flow_type = flow.flow_type.clone().unwrap_or(FlowType::Scripted);
    if flow_type != FlowType::Scripted {
        let message = format!("graph: only a SCRIPTED flow has a graph; this flow is {flow_type}");
        return Err(DomainError::Refused(vec![invalid("graph", message)]));
    }
    let steps = match &input.graph {
        Some(steps) => graph::build(tx, &flow_type, steps, "graph", &mut out)?,
        None => Vec::new(),
    };
    DomainError::check(out)?;
    let kept = graph::node_ids(&steps);
    let new_merges = graph::merges(&steps);
    let dropped: Vec<_> = graph::merges(&flow.graph)
        .into_iter()
        .filter(|(node, target)| kept.contains(node) && !new_merges.contains(&(*node, target.clone())))
        .collect();
    if !dropped.is_empty() && input.allow_unmerge != Some(true) {
        let (node, target) = &dropped[0];
        let message = format!(
            "allowUnmerge: the graph drops {} merge(s) the flow had (step {node} into {target}); \
             send allowUnmerge: true to confirm",
            dropped.len()
        );
        return Err(DomainError::Refused(vec![invalid("allowUnmerge", message)]));
    }
    let warnings = dropped.iter().map(|(node, target)| format!("step {node} no longer merges into {target}")).collect();
    flow.graph = steps;
    save(tx, &mut flow)?;
    Ok(GraphReplaced {
        edge_cases: flow.edge_cases,
        graph: flow.graph,
        happy_path: flow.happy_path,
        variants_reshaped: false,
        warnings,
    })
}
