//! What an ingested call names besides its transcript: its agents, found by id, custom id or
//! name (and created when named but not found, as the hosted interface does), the endpoints
//! they took the call on (by id, or found or created by value), and its customers.

use crate::service::store::Tx;
use uuid::Uuid;

use crate::api::model::*;
use crate::api::validate::{index, join};
use crate::service::error::{DomainError, DomainResult};
use crate::service::store::{self, Doc, Kind};

/// The agents and customers of an ingested call, in the call's shape.
pub struct Parties {
    pub agent_id: Option<Uuid>,
    pub agent_endpoint_id: Option<Uuid>,
    pub agents: Vec<CallAgent>,
    pub customers: Vec<CallCustomer>,
}

/// Resolves every agent and customer `input` names; a named id that does not exist is a 400
/// naming its path.
pub fn parties(tx: &Tx, input: &CallInput) -> DomainResult<Parties> {
    let mut agents = Vec::new();
    let many = input.agents.is_some();
    for (i, identification) in input.agent_identifications().into_iter().enumerate() {
        let at = if many { index("agents", i) } else { "agent".to_owned() };
        agents.push(agent(tx, identification, &at)?);
    }
    let mut agent_id = input.agent_id;
    let mut agent_endpoint_id = input.agent_endpoint_id;
    if let Some(first) = agents.first() {
        agent_id = agent_id.or(Some(first.id));
        agent_endpoint_id = agent_endpoint_id.or(first.endpoint.as_ref().map(|e| e.id));
    } else if let Some(id) = input.agent_id {
        let known: Option<Agent> = store::get(tx, Kind::Agent, &id.to_string())?;
        agents.extend(known.map(|a| CallAgent { id: a.id, name: a.name, endpoint: None }));
    }
    let customers = input
        .customer_inputs()
        .into_iter()
        .map(|c| CallCustomer {
            label: c.label.clone(),
            phone_number_e164: c.phone_number_e164.clone(),
            phone_number: None,
            name: None,
        })
        .collect();
    Ok(Parties { agent_id, agent_endpoint_id, agents, customers })
}

fn agent(tx: &Tx, identification: &AgentIdentification, at: &str) -> DomainResult<CallAgent> {
    let agents: Vec<Agent> = store::all(tx, Kind::Agent)?;
    let found = match (&identification.roark_id, &identification.custom_id, &identification.name) {
        (Some(id), _, _) => Some(
            agents
                .iter()
                .find(|a| a.id == *id)
                .cloned()
                .ok_or_else(|| DomainError::invalid(join(at, "roarkId"), format!("no agent {id}")))?,
        ),
        (None, Some(custom), name) => match agents.iter().find(|a| a.custom_id.as_deref() == Some(custom)) {
            Some(agent) => Some(agent.clone()),
            None if name.is_none() => {
                return Err(DomainError::invalid(join(at, "customId"), format!("no agent has the custom id {custom}")));
            }
            None => None,
        },
        (None, None, Some(name)) => agents.iter().find(|a| a.name.as_deref() == Some(name)).cloned(),
        (None, None, None) => None,
    };
    let agent = match found {
        Some(agent) => agent,
        None => {
            let at_now = Timestamp::now();
            let agent = Agent {
                id: Uuid::new_v4(),
                name: identification.name.clone(),
                description: identification.description.clone(),
                custom_id: identification.custom_id.clone(),
                prompt: None,
                created_at: Some(at_now.clone()),
                updated_at: Some(at_now.clone()),
            };
            store::insert(tx, &Doc::of(&agent)?)?;
            agent
        }
    };
    let endpoint =
        identification.endpoint.as_ref().map(|e| endpoint(tx, &agent, e, &join(at, "endpoint"))).transpose()?;
    Ok(CallAgent { id: agent.id, name: agent.name, endpoint })
}

fn endpoint(
    tx: &Tx,
    agent: &Agent,
    identification: &EndpointIdentification,
    at: &str,
) -> DomainResult<CallAgentEndpoint> {
    let endpoint: AgentEndpoint = match (&identification.id, &identification.value) {
        (Some(id), _) => store::get(tx, Kind::AgentEndpoint, &id.to_string())?
            .ok_or_else(|| DomainError::invalid(join(at, "id"), format!("no agent endpoint {id}")))?,
        (None, Some(value)) => {
            let existing: Vec<AgentEndpoint> = store::all(tx, Kind::AgentEndpoint)?;
            match existing.into_iter().find(|e| e.agent_id == Some(agent.id) && e.value.as_deref() == Some(value)) {
                Some(endpoint) => endpoint,
                None => create_endpoint(tx, agent, identification, value)?,
            }
        }
        (None, None) => return Err(DomainError::invalid(at, "name the endpoint by id, or by type and value")),
    };
    Ok(CallAgentEndpoint {
        id: endpoint.id,
        environment: endpoint.environment.clone(),
        phone_number_e164: endpoint.value.clone().filter(|v| v.starts_with('+')),
    })
}

fn create_endpoint(
    tx: &Tx,
    agent: &Agent,
    identification: &EndpointIdentification,
    value: &str,
) -> DomainResult<AgentEndpoint> {
    let kind = identification.endpoint_type.clone().unwrap_or(EndpointType::Phone);
    let direction = identification.direction.clone().unwrap_or(EndpointDirection::Incoming);
    let at = Timestamp::now();
    let endpoint = AgentEndpoint {
        id: Uuid::new_v4(),
        agent_id: Some(agent.id),
        endpoint_type: Some(kind),
        value: Some(value.to_owned()),
        environment: Some("production".into()),
        direction: Some(direction),
        outbound_dial_type: Some(OutboundDialType::None),
        outbound_dial_http_request_definition_id: None,
        created_at: Some(at.clone()),
        updated_at: Some(at.clone()),
    };
    store::insert(tx, &Doc::of(&endpoint)?)?;
    Ok(endpoint)
}

/// Keeps an ingested call as `POST /v1/call` does (its transcript, its parties) and has the
/// policies score it in the same transaction; `id` and `now` come from the caller, so the
/// seed ingests its production calls through this very path, deterministically.
pub fn call(tx: &Tx, id: Uuid, input: CallInput, now: &Timestamp) -> DomainResult<Call> {
    let parties = parties(tx, &input)?;
    let ingested = crate::service::calls::conversations::ingest(tx, id, &input)?;
    let (started_at, duration_ms) = (ingested.started_at.clone(), ingested.duration_ms);
    let call = Call {
        id,
        call_direction: Some(input.direction().cloned().unwrap_or(Direction::Inbound)),
        direction: None,
        project_id: Some(crate::service::PROJECT_ID),
        recording_url_access: Some(if input.recording_url.is_some() {
            RecordingUrlAccess::Available
        } else {
            RecordingUrlAccess::NotAvailable
        }),
        recording_url: input.recording_url,
        status: Some(CallStatus::Ended),
        ended_status: input.ended_status,
        duration_ms: Some(duration_ms),
        started_at: Some(started_at.clone()),
        ended_at: ingested.ended_at,
        simulation_job_id: None,
        simulation_run_plan_job_id: None,
        agent_id: parties.agent_id,
        agent_endpoint_id: parties.agent_endpoint_id,
        agents: parties.agents,
        customers: parties.customers,
        from_number: input.from_number,
        to_number: input.to_number,
        external_id: input.external_id,
        properties: input.properties,
        background_noise: None,
        end_reason: None,
        created_at: Some(now.clone()),
        updated_at: Some(now.clone()),
    };
    store::insert(tx, &Doc::of(&call)?)?;
    let transcript = store::transcripts::get(tx, &call.id.to_string())?;
    crate::service::metrics::live::score(tx, &call, &transcript, now)?;
    Ok(call)
}
