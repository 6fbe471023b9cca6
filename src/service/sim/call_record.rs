//! The call a simulation made, as `POST /v1/call` would have stored it, and its writing.

use uuid::Uuid;

use super::conversation::Outcome;
use super::work::Work;
use crate::api::model::*;
use crate::service::store::StoreResult;
use crate::service::store::{self, Doc};

/// The call a simulation made, as `POST /v1/call` would have stored it.
pub(super) fn build_call(
    call_id: Uuid,
    work: &Work,
    simulation: &SimulationJob,
    endpoint: &AgentEndpoint,
    agent: Option<&Agent>,
    outcome: &Outcome,
    variant: Option<&FlowVariant>,
) -> Call {
    let started = simulation.started_at.clone().unwrap_or_else(Timestamp::now);
    let ended = started
        .parse()
        .and_then(|s| s.checked_add(jiff::SignedDuration::from_millis(outcome.duration_ms)).ok())
        .map(Timestamp::from);
    let noise = variant
        .and_then(|v| v.environment.as_ref())
        .and_then(|e| e.background_noise.clone())
        .or_else(|| simulation.persona.as_ref().and_then(|p| p.fields.background_noise.clone()))
        .map(|n| n.to_string());
    let direction = work.plan.direction.clone().unwrap_or(Direction::Inbound);
    Call {
        id: call_id,
        call_direction: Some(direction),
        direction: None,
        project_id: Some(crate::service::PROJECT_ID),
        recording_url_access: Some(RecordingUrlAccess::NotAvailable),
        recording_url: None,
        status: Some(CallStatus::Ended),
        ended_status: Some(outcome.ended_status.clone()),
        duration_ms: Some(outcome.duration_ms),
        started_at: Some(started.clone()),
        ended_at: ended,
        simulation_job_id: Some(simulation.simulation_job_id),
        simulation_run_plan_job_id: Uuid::parse_str(&work.job_id).ok(),
        agent_id: endpoint.agent_id,
        agent_endpoint_id: Some(endpoint.id),
        agents: agent
            .map(|a| {
                vec![CallAgent {
                    id: a.id,
                    name: a.name.clone(),
                    endpoint: Some(CallAgentEndpoint {
                        id: endpoint.id,
                        environment: endpoint.environment.clone(),
                        phone_number_e164: endpoint.value.clone().filter(|v| v.starts_with('+')),
                    }),
                }]
            })
            .unwrap_or_default(),
        customers: simulation
            .persona
            .as_ref()
            .map(|p| {
                vec![CallCustomer {
                    label: Some(p.label()),
                    phone_number_e164: p.phone_number.clone(),
                    phone_number: None,
                    name: Some(p.label()),
                }]
            })
            .unwrap_or_default(),
        from_number: None,
        to_number: endpoint.value.clone(),
        external_id: None,
        properties: None,
        background_noise: noise,
        end_reason: Some(outcome.end_reason.clone()),
        created_at: Some(work.now()),
        updated_at: Some(work.now()),
    }
}

/// Inserts a simulation's call (a child of its run plan job) and the call's transcript.
pub(super) fn insert_call(tx: &crate::service::store::Tx, call: &Call, transcript: &str) -> StoreResult<()> {
    store::insert(tx, &Doc::of(call)?)?;
    store::transcripts::put(tx, &call.id.to_string(), transcript)
}
