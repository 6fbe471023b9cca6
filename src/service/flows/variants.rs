//! A flow's happy path and edge cases: made from a caller's members, changed in part, removed,
//! and an edge case promoted to be the happy path (the old happy path becomes an edge case).

use uuid::Uuid;

use super::{editable, editable_for, expectations, invalid, save};
use crate::api::model::*;
use crate::api::validate::{Validate, Violation, join};
use crate::service::error::{DomainError, DomainResult};
use crate::service::store::{self, Conn, Kind, Tx};

/// A variant with only its title, of a flow of `flow_type`.
pub(crate) fn blank(flow_type: &FlowType, title: &str, now: &Timestamp) -> FlowVariant {
    let improv = *flow_type == FlowType::Improv;
    FlowVariant {
        id: Uuid::new_v4(),
        title: Some(title.to_owned()),
        name: None,
        preceded_by_customer_flow_id: None,
        preceded_by_customer_flow_variant_id: None,
        is_generated: Some(false),
        include_flow_expectations: Some(true),
        created_at: Some(now.clone()),
        updated_at: Some(now.clone()),
        persona_override: None,
        environment: None,
        additional_expectations: Vec::new(),
        variant_type: Some(flow_type.clone()),
        prompt: None,
        handoff_personas: improv.then(Vec::new),
        steps: Vec::new(),
        system_key: None,
    }
}

/// `variant` with the members `given` changes; a violation (under `at`) for each that names
/// nothing or that the flow's type does not take. An edge case that names no persona or
/// environment when made takes the happy path's (`inherit`), as runs need one to play.
pub(super) fn apply(
    conn: &Conn,
    flow_type: &FlowType,
    mut variant: FlowVariant,
    given: &VariantInput,
    inherit: Option<&FlowVariant>,
    at: &str,
    out: &mut Vec<Violation>,
) -> DomainResult<FlowVariant> {
    if *flow_type != FlowType::Improv {
        for (member, present) in
            [("additionalExpectations", given.additional_expectations.is_some()), ("prompt", given.prompt.is_some())]
        {
            if present {
                let message = format!(
                    "{}: improv flows only; a {flow_type} variant is graded on the agent turns of its path",
                    join(at, member)
                );
                out.push(invalid(join(at, member), message));
            }
        }
    }
    if let Some(title) = &given.title {
        variant.title = Some(title.clone());
    }
    if let Some(set) = &given.additional_expectations {
        variant.additional_expectations = expectations(set);
    }
    if let Some(include) = given.include_flow_expectations {
        variant.include_flow_expectations = Some(include);
    }
    if let Some(prompt) = &given.prompt {
        variant.prompt = prompt.clone();
    }
    match given.persona_override_id {
        Some(Some(id)) => {
            variant.persona_override = found(conn, Kind::Persona, id, &join(at, "personaOverrideId"), out)?
        }
        Some(None) => variant.persona_override = inherit.and_then(|h| h.persona_override.clone()),
        None if inherit.is_some() && variant.persona_override.is_none() => {
            variant.persona_override = inherit.and_then(|h| h.persona_override.clone());
        }
        None => {}
    }
    match given.environment_id {
        Some(Some(id)) => {
            variant.environment = found(conn, Kind::SimulationEnvironment, id, &join(at, "environmentId"), out)?;
        }
        Some(None) => variant.environment = inherit.and_then(|h| h.environment.clone()),
        None if inherit.is_some() && variant.environment.is_none() => {
            variant.environment = inherit.and_then(|h| h.environment.clone());
        }
        None => {}
    }
    if let Some(flow) = given.preceded_by_customer_flow_id {
        if let Some(id) = flow
            && !store::exists(conn, Kind::CustomerFlow, &id.to_string())?
        {
            let param = join(at, "precededByCustomerFlowId");
            out.push(invalid(param.clone(), format!("{param}: no customer flow {id}")));
        }
        variant.preceded_by_customer_flow_id = flow;
    }
    if let Some(preceding) = given.preceded_by_customer_flow_variant_id {
        variant.preceded_by_customer_flow_variant_id = preceding;
    }
    variant.updated_at = Some(Timestamp::now());
    Ok(variant)
}

/// The record `id` of `kind`, or a violation at `param` naming what is missing.
fn found<T: serde::de::DeserializeOwned>(
    conn: &Conn,
    kind: Kind,
    id: Uuid,
    param: &str,
    out: &mut Vec<Violation>,
) -> DomainResult<Option<T>> {
    let record = store::get(conn, kind, &id.to_string())?;
    if record.is_none() {
        out.push(invalid(param, format!("{param}: no {} {id}", kind.label())));
    }
    Ok(record)
}

fn flow_type(flow: &CustomerFlow) -> FlowType {
    flow.flow_type.clone().unwrap_or(FlowType::Scripted)
}

fn edge_case_at(flow: &CustomerFlow, edge_case: &str) -> DomainResult<usize> {
    flow.edge_cases
        .iter()
        .position(|e| e.id.to_string() == edge_case)
        .ok_or_else(|| DomainError::not_found("edge case", edge_case))
}

/// Changes the members of the happy path that `given` names.
pub fn update_happy_path(tx: &Tx, id: &str, given: &VariantInput) -> DomainResult<FlowVariant> {
    let mut out = given.validate();
    let mut flow = editable_for(tx, id, &out)?;
    let kind = flow_type(&flow);
    let happy = flow
        .happy_path
        .clone()
        .unwrap_or_else(|| blank(&kind, flow.title.as_deref().unwrap_or_default(), &Timestamp::now()));
    if kind == FlowType::Improv && matches!(given.persona_override_id, Some(None)) {
        out.push(invalid("personaOverrideId", "personaOverrideId: an improv flow's happy path keeps a persona"));
    }
    let happy = apply(tx, &kind, happy, given, None, "", &mut out)?;
    DomainError::check(out)?;
    flow.happy_path = Some(happy.clone());
    save(tx, &mut flow)?;
    Ok(happy)
}

/// Adds an edge case, inheriting from the happy path what it does not name.
pub fn add_edge_case(tx: &Tx, id: &str, given: &EdgeCaseInput) -> DomainResult<FlowVariant> {
    let mut out = given.validate();
    let mut flow = editable_for(tx, id, &out)?;
    if flow.edge_cases.len() >= flow_limits::EDGE_CASES_MAX {
        out.push(invalid("flowId", format!("flowId: a flow has at most {} edge cases", flow_limits::EDGE_CASES_MAX)));
    }
    let kind = flow_type(&flow);
    let fresh = blank(&kind, given.0.title.as_deref().unwrap_or_default(), &Timestamp::now());
    let case = apply(tx, &kind, fresh, &given.0, flow.happy_path.as_ref(), "", &mut out)?;
    DomainError::check(out)?;
    flow.edge_cases.push(case.clone());
    save(tx, &mut flow)?;
    Ok(case)
}

/// Changes the members of an edge case that `given` names; a null persona or environment
/// takes the happy path's again.
pub fn update_edge_case(tx: &Tx, id: &str, edge_case: &str, given: &VariantInput) -> DomainResult<FlowVariant> {
    let mut out = given.validate();
    let mut flow = editable_for(tx, id, &out)?;
    let at = edge_case_at(&flow, edge_case)
        .map_err(|missing| if out.is_empty() { missing } else { DomainError::Refused(out.clone()) })?;
    let kind = flow_type(&flow);
    let case = apply(tx, &kind, flow.edge_cases[at].clone(), given, flow.happy_path.as_ref(), "", &mut out)?;
    DomainError::check(out)?;
    flow.edge_cases[at] = case.clone();
    save(tx, &mut flow)?;
    Ok(case)
}

/// Removes an edge case from the flow.
pub fn remove_edge_case(tx: &Tx, id: &str, edge_case: &str) -> DomainResult<Uuid> {
    let mut flow = editable(tx, id)?;
    let at = edge_case_at(&flow, edge_case)?;
    let removed = flow.edge_cases.remove(at);
    save(tx, &mut flow)?;
    Ok(removed.id)
}

/// Makes an edge case the happy path; the old happy path takes its place among the edge cases.
pub fn promote_edge_case(tx: &Tx, id: &str, edge_case: &str) -> DomainResult<FlowVariant> {
    let mut flow = editable(tx, id)?;
    let at = edge_case_at(&flow, edge_case)?;
    let mut promoted = flow.edge_cases.remove(at);
    if let Some(mut old) = flow.happy_path.take() {
        old.updated_at = Some(Timestamp::now());
        flow.edge_cases.insert(at, old);
    }
    promoted.updated_at = Some(Timestamp::now());
    flow.happy_path = Some(promoted.clone());
    save(tx, &mut flow)?;
    Ok(promoted)
}
