//! Events: what changed, as the hosted service's webhooks name it. The local service streams
//! them (`GET /v1/events`, Server-Sent Events, our extension) and delivers them to webhooks.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::{IntoParams, ToSchema};

use super::common::Timestamp;
use crate::api::validate::{Checks, Validate, join, quote};
use crate::api::wire_enum::WireEnum;
use crate::wire_enum;

wire_enum! {
    /// The kinds of event, exactly as the hosted SDK enumerates webhook event types.
    pub enum EventType {
        CallAnalysisCompleted = "CALL_ANALYSIS_COMPLETED",
        CallAnalysisFailed = "CALL_ANALYSIS_FAILED",
        CallAnalysisCancelled = "CALL_ANALYSIS_CANCELLED",
        CallEvaluationCompleted = "CALL_EVALUATION_COMPLETED",
        CallEvaluationFailed = "CALL_EVALUATION_FAILED",
        SimulationRunPlanJobStarted = "SIMULATION_RUN_PLAN_JOB_STARTED",
        SimulationRunPlanJobCompleted = "SIMULATION_RUN_PLAN_JOB_COMPLETED",
        SimulationRunPlanJobFailed = "SIMULATION_RUN_PLAN_JOB_FAILED",
        SimulationRunPlanJobCancelled = "SIMULATION_RUN_PLAN_JOB_CANCELLED",
        SimulationJobStarted = "SIMULATION_JOB_STARTED",
        SimulationJobCompleted = "SIMULATION_JOB_COMPLETED",
        SimulationJobFailed = "SIMULATION_JOB_FAILED",
        SimulationJobCancelled = "SIMULATION_JOB_CANCELLED",
        MetricCollectionJobCompleted = "METRIC_COLLECTION_JOB_COMPLETED",
        MetricCollectionJobFailed = "METRIC_COLLECTION_JOB_FAILED",
        ChatAnalysisCompleted = "CHAT_ANALYSIS_COMPLETED",
        ChatAnalysisFailed = "CHAT_ANALYSIS_FAILED",
        IssueOpened = "ISSUE_OPENED",
        IssueResolved = "ISSUE_RESOLVED",
    }
}

/// One event: its place in the stream (`id`, also the SSE event id), its type, the resource it
/// is about and that resource as a read of it answered when the change committed.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Increasing; resume a stream after it with `Last-Event-ID`.
    pub id: String,
    #[serde(rename = "type")]
    pub event_type: EventType,
    pub created_at: Timestamp,
    /// The resource's id (a simulation job's, an issue's …).
    pub resource_id: String,
    /// The resource's parent where it has one (a simulation job's run plan job).
    pub parent_id: Option<String>,
    /// The resource as `GET` answered it when the change committed; absent when the stream was
    /// asked for `data=none`. Kept as its JSON text: a watcher of a big run reads hundreds a
    /// second and decodes only the few it shows, and the service sends the stored text as it is.
    #[schema(value_type = Option<Object>)]
    pub data: Option<Box<serde_json::value::RawValue>>,
}

impl Event {
    /// The resource, decoded; an error when the event came without it (`data=none`).
    pub fn data_as<T: serde::de::DeserializeOwned>(&self) -> serde_json::Result<T> {
        let data = self.data.as_ref().map_or("null", |d| d.get());
        serde_json::from_str(data)
    }
}

wire_enum! {
    /// Whether each event carries its resource (`GET /v1/events?data=`, local extension).
    pub enum EventDataIncluded { All = "all", Omitted = "none" }
}

wire_enum! {
    /// Whether `resourceId` takes in its resources' children (`GET /v1/events?children=`).
    pub enum EventChildrenIncluded { All = "all", Omitted = "none" }
}

/// The most resources one event query names.
pub const EVENT_RESOURCES_MAX: usize = 100;

/// Query of `GET /v1/events`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct EventQuery {
    /// Only these types, comma-separated (`SIMULATION_JOB_COMPLETED,ISSUE_OPENED`).
    pub kind: Option<String>,
    /// Alias of `kind`.
    pub types: Option<String>,
    /// Only events about these resources (comma-separated, up to 100) or about their children
    /// (a run plan job's id gives the job's events and its simulations').
    pub resource_id: Option<String>,
    /// `none`: only events about the `resourceId` resources themselves, not their children (a
    /// watcher of a big run names the job and the rows it shows); `all` (the default) adds
    /// their children's.
    pub children: Option<String>,
    /// Resume after this event id (as `Last-Event-ID` does); `0` replays every event kept.
    /// Without either the stream starts with the next change.
    pub after: Option<u64>,
    /// `none`: events without their resource (`data`), for a watcher that only needs to know
    /// what changed; `all` (the default) sends each event's resource.
    pub data: Option<String>,
}

impl EventQuery {
    /// Only events of these types, from the next change on.
    pub fn of_types(types: &[EventType]) -> EventQuery {
        let kind = types.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",");
        EventQuery { kind: Some(kind), ..Default::default() }
    }

    /// The same events without their resources (`data=none`): for a watcher that only needs to
    /// know what changed.
    pub fn without_data(self) -> EventQuery {
        EventQuery { data: Some(EventDataIncluded::Omitted.as_str().to_owned()), ..self }
    }
}

impl EventQuery {
    /// The resources asked about, none meaning every resource.
    pub fn resource_ids(&self) -> Vec<String> {
        let listed = self.resource_id.iter().flat_map(|text| text.split(','));
        listed.map(str::trim).filter(|id| !id.is_empty()).map(str::to_owned).collect()
    }

    /// The types asked for, none meaning every type.
    pub fn types(&self) -> Vec<EventType> {
        let listed = [self.kind.as_deref(), self.types.as_deref()];
        listed
            .into_iter()
            .flatten()
            .flat_map(|text| text.split(','))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(EventType::from)
            .collect()
    }
}

impl Validate for EventQuery {
    fn check(&self, c: &mut Checks, at: &str) {
        for (param, text) in [("kind", &self.kind), ("types", &self.types)] {
            for value in text.iter().flat_map(|t| t.split(',')).map(str::trim).filter(|t| !t.is_empty()) {
                if !EventType::from(value).is_known() {
                    let known = <EventType as WireEnum>::known_list();
                    c.invalid(join(at, param), format!("{param} {} is not one of {known}", quote(value)));
                }
            }
        }
        if let Some(data) = &self.data
            && !EventDataIncluded::from(data.as_str()).is_known_value()
        {
            let known = <EventDataIncluded as WireEnum>::known_list();
            c.invalid(join(at, "data"), format!("data {} is not one of {known}", quote(data)));
        }
        if let Some(children) = &self.children
            && !EventChildrenIncluded::from(children.as_str()).is_known_value()
        {
            let known = <EventChildrenIncluded as WireEnum>::known_list();
            c.invalid(join(at, "children"), format!("children {} is not one of {known}", quote(children)));
        }
        for (param, text) in [("kind", &self.kind), ("types", &self.types)] {
            if let Some(text) = text
                && !c.has(&join(at, param))
                && !matches(&kinds_pattern(), text)
            {
                c.invalid(join(at, param), format!("{param} must be event types, comma-separated, without spaces"));
            }
        }
        if let Some(text) = &self.resource_id {
            let ids: Vec<&str> = text.split(',').collect();
            let uuid = regex::Regex::new(&format!("^{UUID}$"));
            if let Some(bad) = ids.iter().find(|id| !uuid.as_ref().is_ok_and(|u| u.is_match(id))) {
                let message = format!("resourceId must be UUIDs, comma-separated; {} is not one", quote(bad));
                c.invalid(join(at, "resourceId"), message);
            } else if ids.len() > EVENT_RESOURCES_MAX {
                c.invalid(
                    join(at, "resourceId"),
                    format!("resourceId names {} resources; at most {EVENT_RESOURCES_MAX}", ids.len()),
                );
            }
        }
    }
}

/// A hyphenated UUID, unanchored: a piece of the patterns below.
const UUID: &str = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

fn matches(pattern: &str, text: &str) -> bool {
    regex::Regex::new(pattern).is_ok_and(|p| p.is_match(text))
}

/// `kind` and `types`: known event types, comma-separated.
pub fn kinds_pattern() -> String {
    let one = EventType::KNOWN.iter().map(|t| t.as_str()).collect::<Vec<_>>().join("|");
    format!("^({one})(,({one}))*$")
}

/// `resourceId`: hyphenated UUIDs, comma-separated, up to `EVENT_RESOURCES_MAX`.
pub fn resource_ids_pattern() -> String {
    format!("^{UUID}(,{UUID}){{0,{}}}$", EVENT_RESOURCES_MAX - 1)
}

/// The schemas of `GET /v1/events`' text parameters: what `validate()` above accepts.
pub fn event_query_schemas() -> Vec<(&'static str, serde_json::Value)> {
    let kinds = serde_json::json!({ "type": "string", "pattern": kinds_pattern() });
    let included =
        |known: String| serde_json::json!({ "type": "string", "enum": known.split(", ").collect::<Vec<_>>() });
    vec![
        ("kind", kinds.clone()),
        ("types", kinds),
        ("resourceId", serde_json::json!({ "type": "string", "pattern": resource_ids_pattern() })),
        ("children", included(<EventChildrenIncluded as WireEnum>::known_list())),
        ("data", included(<EventDataIncluded as WireEnum>::known_list())),
    ]
}

/// One message of the stream as Server-Sent Events carry it: `id`, `event` (the type) and
/// `data`, an `Event` as JSON text.
pub fn event_message_schema(event: serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "required": ["id", "event", "data"],
        "properties": {
            "id": { "type": "string", "pattern": "^[0-9]+$" },
            "event": { "type": "string", "enum": EventType::KNOWN.iter().map(|t| t.as_str()).collect::<Vec<_>>() },
            "data": { "type": "string", "contentMediaType": "application/json", "contentSchema": event },
        }
    })
}
