//! What a simulation uses, resolved from its plan: variables, metrics and, for the deprecated
//! scenarios, a stand-in flow.

use std::collections::BTreeMap;

use crate::service::store::Conn;
use uuid::Uuid;

use crate::api::model::*;
use crate::service::store::StoreResult;

/// A stand-in flow for a deprecated scenario: the customer states the scenario and listens.
pub(super) fn scenario_flow(simulation: &SimulationJob) -> CustomerFlow {
    let description = simulation
        .scenario
        .as_ref()
        .and_then(|s| s.description.clone())
        .unwrap_or_else(|| "I have a question about my account.".into());
    serde_json::from_value(serde_json::json!({
        "id": simulation.scenario.as_ref().map_or(Uuid::nil(), |s| s.id),
        "type": "IMPROV",
        "graph": [{"type": "CUSTOMER_TURN", "content": description}]
    }))
    .unwrap_or_else(|_| unreachable!("a fixed, valid flow"))
}

/// Values for one simulation: what its flow selection and edge case entry give (`selected`),
/// then the run's own, which win.
pub(crate) fn variables_for(
    selected: Variables,
    runtime: Option<&RunVariables>,
    flow: Option<&JobFlow>,
) -> BTreeMap<String, String> {
    let mut out = selected;
    match runtime {
        Some(RunVariables::Flat(map)) => out.extend(map.clone()),
        Some(RunVariables::PerFlow(list)) => {
            for entry in list {
                let same_flow = entry.flow_id.is_some() && entry.flow_id == flow.map(|f| f.id);
                let same_variant = match (entry.happy_path, entry.edge_case_id) {
                    (Some(true), _) => flow.and_then(|f| f.happy_path) == Some(true),
                    (_, Some(edge)) => flow.and_then(|f| f.variant_id) == Some(edge),
                    _ => true,
                };
                if same_flow && same_variant {
                    out.extend(entry.variables.clone());
                }
            }
        }
        None => {}
    }
    out
}

/// A simulation's values: those resolved when its run started and kept with it, or, for one
/// started by an older build, worked out again from its plan and run.
pub(crate) fn simulation_variables(
    plan: Option<&RunPlanInput>,
    runtime: Option<&RunVariables>,
    simulation: &SimulationJob,
) -> Variables {
    match (simulation.run_plan.as_ref(), plan) {
        (Some(run_plan), _) => run_plan.variables.clone(),
        (None, Some(plan)) => {
            variables_for(selected_by_id(plan, simulation), runtime, simulation.customer_flow.as_ref())
        }
        (None, None) => Variables::new(),
    }
}

/// What a plan's flow selections give a simulation, for one started before its values were
/// kept with it: selections by id only (a selection by slug cannot be told from here).
fn selected_by_id(plan: &RunPlanInput, simulation: &SimulationJob) -> Variables {
    let mut out = Variables::new();
    let flow = simulation.customer_flow.as_ref();
    for selection in plan.flow_selections() {
        if selection.id.is_some() && selection.id == flow.map(|f| f.id) {
            out.extend(selection.variables.clone().unwrap_or_default());
            if let Some(EdgeCases::List(list)) = &selection.edge_cases {
                for edge in list.iter().filter(|e| e.id.is_some() && e.id == flow.and_then(|f| f.variant_id)) {
                    out.extend(edge.variables.clone().unwrap_or_default());
                }
            }
        }
    }
    out
}

/// The plan's own metrics, by id or slug.
pub(super) fn plan_metric_ids(conn: &Conn, plan: &RunPlanInput) -> StoreResult<Vec<(Uuid, ConversationSource)>> {
    let mut ids = Vec::new();
    for reference in plan.metrics.iter().flatten() {
        let key =
            reference.id.map(|id| id.to_string()).or(reference.slug_or_alias().map(str::to_owned)).unwrap_or_default();
        if let Ok(definition) = crate::service::metrics::definitions::resolve(conn, &key) {
            ids.push((definition.id, reference.conversation_source_or_default()));
        }
    }
    Ok(ids)
}
