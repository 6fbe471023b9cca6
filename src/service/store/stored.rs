//! The models the store keeps as documents, each saying which kind it is and what the columns
//! lists filter and sort on hold, so a write hands the store the model (`Doc::of(&agent)`)
//! rather than assembling its kind, id, time, parent and status by hand at every write.

use serde::{Serialize, Serializer};

use super::Kind;
use crate::api::model::{
    Agent, AgentEndpoint, Alert, Annotation, Call, Chat, CustomerFlow, Environment, HttpRequestDefinition, Issue,
    KnowledgeBase, MetricDefinition, MetricPolicy, Persona, RunPlan, SimulationJob, Timestamp, Tool, Webhook,
};

/// A model kept as a document of one kind.
pub trait Stored: Serialize {
    const KIND: Kind;

    /// The document's id.
    fn id(&self) -> String;

    /// When it was made (for a call or a chat, when it started: the time windows compare),
    /// if the model says; a document written without one is made now.
    fn created_at(&self) -> Option<String>;

    /// The document it is listed under (an endpoint's agent, a simulation's job).
    fn parent_id(&self) -> Option<String> {
        None
    }

    /// Its status column, for a kind listed and counted by status.
    fn status_column(&self) -> Option<&str> {
        None
    }
}

fn time(at: &Option<Timestamp>) -> Option<String> {
    at.as_ref().map(|t| t.0.clone())
}

/// Models with a uuid and an optional `createdAt`, no parent, and a status column where
/// `: status` follows (the member holding it).
macro_rules! plain {
    ($($kind:ident => $model:ty $(: $status:ident)?),* $(,)?) => {$(
        impl Stored for $model {
            const KIND: Kind = Kind::$kind;
            fn id(&self) -> String {
                self.id.to_string()
            }
            fn created_at(&self) -> Option<String> {
                time(&self.created_at)
            }
            $(fn status_column(&self) -> Option<&str> {
                self.$status.as_ref().map(|s| s.as_str())
            })?
        }
    )*};
}

plain!(
    Agent => Agent,
    HttpRequestDefinition => HttpRequestDefinition,
    Persona => Persona,
    CustomerFlow => CustomerFlow,
    MetricDefinition => MetricDefinition,
    RunPlan => RunPlan,
    // A tool names its agent, but tools are not listed under it.
    Tool => Tool,
    Alert => Alert,
    // Its status is not a column: knowledge bases are not listed by status.
    KnowledgeBase => KnowledgeBase,
    MetricPolicy => MetricPolicy: status,
    Issue => Issue: status,
);

impl Stored for AgentEndpoint {
    const KIND: Kind = Kind::AgentEndpoint;
    fn id(&self) -> String {
        self.id.to_string()
    }
    fn created_at(&self) -> Option<String> {
        time(&self.created_at)
    }
    fn parent_id(&self) -> Option<String> {
        self.agent_id.map(|id| id.to_string())
    }
}

impl Stored for Environment {
    const KIND: Kind = Kind::SimulationEnvironment;
    fn id(&self) -> String {
        self.id.unwrap_or_default().to_string()
    }
    fn created_at(&self) -> Option<String> {
        time(&self.created_at)
    }
}

impl Stored for Annotation {
    const KIND: Kind = Kind::Annotation;
    fn id(&self) -> String {
        self.id.to_string()
    }
    fn created_at(&self) -> Option<String> {
        time(&self.created_at)
    }
    fn parent_id(&self) -> Option<String> {
        Some(self.call_id.to_string())
    }
}

impl Stored for Webhook {
    const KIND: Kind = Kind::Webhook;
    fn id(&self) -> String {
        self.id.to_string()
    }
    fn created_at(&self) -> Option<String> {
        Some(self.created_at.0.clone())
    }
}

/// Where an alert's webhooks are delivered: a `Webhook`, kept as a kind of its own under the
/// alert (the model does not name its alert).
pub struct AlertTarget<'a> {
    pub webhook: &'a Webhook,
    pub alert_id: &'a str,
}

impl Serialize for AlertTarget<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.webhook.serialize(serializer)
    }
}

impl Stored for AlertTarget<'_> {
    const KIND: Kind = Kind::AlertWebhook;
    fn id(&self) -> String {
        self.webhook.id.to_string()
    }
    fn created_at(&self) -> Option<String> {
        Some(self.webhook.created_at.0.clone())
    }
    fn parent_id(&self) -> Option<String> {
        Some(self.alert_id.to_owned())
    }
}

impl Stored for Call {
    const KIND: Kind = Kind::Call;
    fn id(&self) -> String {
        self.id.to_string()
    }
    /// When it started, in UTC with milliseconds, so windows and `startedAfter` compare it as
    /// text (a time that does not parse is kept as given).
    fn created_at(&self) -> Option<String> {
        let started = self.started_at.as_ref()?;
        Some(started.parse().map_or_else(|| started.0.clone(), |at| Timestamp::from(at).0))
    }
    /// A simulation's call is listed under its run plan job.
    fn parent_id(&self) -> Option<String> {
        self.simulation_run_plan_job_id.map(|id| id.to_string())
    }
}

impl Stored for Chat {
    const KIND: Kind = Kind::Chat;
    fn id(&self) -> String {
        self.id.to_string()
    }
    fn created_at(&self) -> Option<String> {
        time(&self.started_at)
    }
}

impl Stored for SimulationJob {
    const KIND: Kind = Kind::SimulationJob;
    fn id(&self) -> String {
        self.simulation_job_id.to_string()
    }
    fn created_at(&self) -> Option<String> {
        time(&self.created_at)
    }
    fn parent_id(&self) -> Option<String> {
        self.simulation_run_plan_job_id.map(|id| id.to_string())
    }
    fn status_column(&self) -> Option<&str> {
        self.status.as_ref().map(|s| s.as_str())
    }
}

#[cfg(test)]
mod tests {
    use serde::de::DeserializeOwned;
    use serde_json::json;

    use super::*;
    use crate::service::store::Doc;

    fn model<T: DeserializeOwned>(value: serde_json::Value) -> T {
        serde_json::from_value(value).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_simulation_is_kept_under_its_job_with_its_status() {
        let simulation: SimulationJob = model(json!({
            "simulationJobId": "7a0c8a2e-3f0e-4f43-9d35-8c6f2f1d0a01",
            "simulationRunPlanJobId": "7a0c8a2e-3f0e-4f43-9d35-8c6f2f1d0a02",
            "status": "RUNNING",
            "createdAt": "2026-01-01T00:00:00.000Z",
            "failedChecks": []
        }));
        let doc = Doc::of(&simulation).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(doc.kind, Kind::SimulationJob);
        assert_eq!(doc.id, "7a0c8a2e-3f0e-4f43-9d35-8c6f2f1d0a01");
        assert_eq!(doc.parent_id.as_deref(), Some("7a0c8a2e-3f0e-4f43-9d35-8c6f2f1d0a02"));
        assert_eq!((doc.status.as_deref(), doc.created_at.as_str()), (Some("RUNNING"), "2026-01-01T00:00:00.000Z"));
        assert_eq!(doc.body, serde_json::to_string(&simulation).unwrap_or_default());
    }

    #[test]
    fn a_call_is_windowed_by_when_it_started_in_utc_with_milliseconds() {
        let call: Call = model(json!({
            "id": "7a0c8a2e-3f0e-4f43-9d35-8c6f2f1d0a03",
            "startedAt": "2026-03-01T10:00:00+02:00",
            "createdAt": "2026-03-02T00:00:00.000Z",
            "agents": [],
            "customers": []
        }));
        let doc = Doc::of(&call).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!((doc.kind, doc.created_at.as_str()), (Kind::Call, "2026-03-01T08:00:00.000Z"));
        assert_eq!(doc.parent_id, None, "a call posted from outside is under no job");
    }

    #[test]
    fn an_alerts_webhook_is_its_own_kind_under_the_alert() {
        let webhook: Webhook = model(json!({
            "id": "7a0c8a2e-3f0e-4f43-9d35-8c6f2f1d0a04",
            "url": "https://hooks.example/alert",
            "events": [],
            "headers": {},
            "secretHeaders": [],
            "createdAt": "2026-01-02T00:00:00.000Z",
            "updatedAt": "2026-01-02T00:00:00.000Z"
        }));
        let doc = Doc::of(&AlertTarget { webhook: &webhook, alert_id: "alert-1" }).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!((doc.kind, doc.parent_id.as_deref()), (Kind::AlertWebhook, Some("alert-1")));
        assert_eq!(doc.body, serde_json::to_string(&webhook).unwrap_or_default(), "the body is the webhook");
        assert_eq!(Doc::of(&webhook).unwrap_or_else(|e| panic!("{e:?}")).parent_id, None);
    }

    #[test]
    fn an_endpoint_is_listed_under_its_agent_and_made_now_without_a_time() {
        let endpoint: AgentEndpoint = model(json!({
            "id": "7a0c8a2e-3f0e-4f43-9d35-8c6f2f1d0a05",
            "agentId": "7a0c8a2e-3f0e-4f43-9d35-8c6f2f1d0a06"
        }));
        let before = Timestamp::now().0;
        let doc = Doc::of(&endpoint).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(doc.parent_id.as_deref(), Some("7a0c8a2e-3f0e-4f43-9d35-8c6f2f1d0a06"));
        assert!(doc.created_at >= before, "{} is not now", doc.created_at);
    }
}
