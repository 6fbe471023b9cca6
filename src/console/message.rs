//! Everything that happens to the console becomes a `Message`; everything it asks the
//! outside world to do is an `Effect`. `update` turns one into the other.

use std::time::Duration;

use crossterm::event::KeyEvent;
use uuid::Uuid;

use crate::api::model::*;
use crate::api::{Error, routes};

/// Lists fetched whole (cursor pages walked to the end, up to `LIST_CAP` items).
macro_rules! list_kinds {
    ($($kind:ident($ty:ty) = $route:expr, $label:literal;)*) => {
        /// A list the console shows.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ListKind { $($kind),* }

        /// A fetched list, typed.
        #[derive(Debug, Clone)]
        pub enum Listing { $($kind(Vec<$ty>)),* }

        impl ListKind {
            pub const ALL: &[ListKind] = &[$(ListKind::$kind),*];

            pub fn route(self) -> &'static str {
                match self { $(ListKind::$kind => $route),* }
            }

            /// Where one item is read (`GET`), or None for a kind the interface reads only as a list.
            pub fn item_path(self, id: &str) -> Option<String> {
                let id = crate::api::operations::seg(id);
                match self {
                    ListKind::RunPlanJobs => Some(format!("/v1/simulation/plan/job/{id}")),
                    ListKind::Agents => None,
                    other => Some(format!("{}/{id}", other.route())),
                }
            }

            /// Plural noun for messages ("this service does not list run plans").
            pub fn label(self) -> &'static str {
                match self { $(ListKind::$kind => $label),* }
            }

            /// Key of the list in the local cache.
            pub fn cache_key(self) -> &'static str {
                self.route()
            }

            /// The whole list, and why each item that could not be read was skipped.
            pub(super) async fn fetch(self, client: &crate::api::Client) -> Result<(Listing, Vec<String>), Error> {
                use futures_util::{StreamExt, TryStreamExt};
                use crate::api::page::Lenient;
                let query = crate::api::ListQuery::default().limit(LIST_PAGE);
                let mut unreadable = Vec::new();
                let listing = match self {
                    $(ListKind::$kind => {
                        let all: Vec<Lenient<$ty>> =
                            client.list_all_lenient::<$ty>($route, query).take(LIST_CAP).try_collect().await?;
                        let mut items = Vec::with_capacity(all.len());
                        for entry in all {
                            match entry {
                                Lenient::Item(item) => items.push(item),
                                Lenient::Unreadable(why) => unreadable.push(why),
                            }
                        }
                        Listing::$kind(items)
                    }),*
                };
                Ok((listing, unreadable))
            }

            pub fn from_cache(self, cache: &crate::cache::Cache) -> Option<(Listing, Timestamp)> {
                match self {
                    $(ListKind::$kind => cache.list::<$ty>(self.cache_key()).map(|(items, at)| (Listing::$kind(items), at))),*
                }
            }
        }

        $(
            impl Listed for $ty {
                const KIND: ListKind = ListKind::$kind;

                fn take(listing: &Listing) -> Option<&Vec<Self>> {
                    match listing {
                        Listing::$kind(items) => Some(items),
                        #[allow(unreachable_patterns, reason = "a listing with one kind has no other arm")]
                        _ => None,
                    }
                }
            }
        )*

        impl Listing {
            pub fn kind(&self) -> ListKind {
                match self { $(Listing::$kind(_) => ListKind::$kind),* }
            }

            pub fn len(&self) -> usize {
                match self { $(Listing::$kind(items) => items.len()),* }
            }

            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            pub fn store(&self, cache: &mut crate::cache::Cache) {
                match self { $(Listing::$kind(items) => cache.put_list(self.kind().cache_key(), items)),* }
            }
        }
    };
}

/// An item type of one list kind: which kind, and how to find its items in a `Listing`.
pub trait Listed: Sized {
    const KIND: ListKind;
    fn take(listing: &Listing) -> Option<&Vec<Self>>;
}

/// The cache key of the benchmark suites (not a paged list, so not a `ListKind`).
pub const SUITES_CACHE_KEY: &str = "benchmark-suites";

/// Page size used when walking a list.
pub const LIST_PAGE: i64 = 50;
/// The most items of one list the console keeps; the pane says when there were more.
pub const LIST_CAP: usize = 5_000;

list_kinds! {
    RunPlans(RunPlan) = routes::RUN_PLANS, "run plans";
    RunPlanJobs(RunPlanJob) = routes::RUN_PLAN_JOBS, "run plan jobs";
    MetricDefinitions(MetricDefinition) = routes::METRIC_DEFINITIONS, "metric definitions";
    Policies(MetricPolicy) = routes::POLICIES, "metric policies";
    CollectionJobs(CollectionJob) = routes::COLLECTION_JOBS, "collection jobs";
    Issues(Issue) = routes::ISSUES, "issues";
    Flows(CustomerFlow) = routes::FLOWS, "customer flows";
    Personas(Persona) = routes::PERSONAS, "personas";
    Agents(Agent) = routes::AGENTS, "agents";
    AgentEndpoints(AgentEndpoint) = routes::AGENT_ENDPOINTS, "agent endpoints";
    KnowledgeBases(KnowledgeBase) = routes::KNOWLEDGE_BASES, "knowledge bases";
    HttpDefinitions(HttpRequestDefinition) = routes::HTTP_REQUEST_DEFINITIONS, "HTTP request definitions";
    Calls(Call) = routes::CALLS, "calls";
    Alerts(AlertStatus) = routes::ALERTS, "alerts";
}

/// One read the console asks of the service.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Health,
    List(ListKind),
    /// One item of a list, by id (how a user opens what a service does not list).
    Item(ListKind, String),
    RunPlanJob(Uuid),
    /// A job as a watcher reads it: without its simulation jobs where the service can leave
    /// them out (it then sends `counts`), and nothing when unchanged since the read that gave
    /// `etag`.
    JobSummary {
        id: Uuid,
        etag: Option<String>,
    },
    /// A page of a job's simulation jobs (the rows on screen), where the service pages them.
    JobWindow {
        id: Uuid,
        query: crate::api::ListQuery,
    },
    SimulationJob(Uuid),
    /// A call with its transcript and metric values (all statuses).
    Conversation(Uuid),
    /// A call's SUCCESS metric values, for an evidence row.
    CallValues(Uuid),
    /// The same for a chat.
    ChatConversation(Uuid),
    CollectionValues(Uuid, ValueStatusFilter),
    /// Every version of a metric definition (by id or slug), newest first.
    MetricVersions(String),
    BenchmarkSuites,
    BenchmarkTargets(String),
    ScoreSamples {
        target: String,
        query: ScoreSampleQuery,
    },
    /// A resource as the service sends it, for the raw view (`v`): the path of its `GET`.
    Raw(String),
    /// Every label on judged values (a local service extension).
    Annotations,
    /// Two run plan jobs read and compared, base then head (client-side, any service).
    Comparison {
        base: Uuid,
        head: Uuid,
    },
    /// A plan's last `runs` ended runs read for how steady each test case × check was
    /// (client-side, any service).
    Flaky {
        plan: Uuid,
        runs: usize,
    },
}

/// What a request brought back.
#[derive(Debug, Clone)]
pub enum Fetched {
    Health(Health),
    /// A whole list, and why each item that could not be read was left out.
    List(Listing, Vec<String>),
    Item(Listing),
    RunPlanJob(Box<RunPlanJob>),
    /// `Request::JobSummary`: the job and its tag, or `None` when it is unchanged (304).
    JobSummary {
        job: Option<Box<RunPlanJob>>,
        etag: Option<String>,
    },
    JobWindow(Box<CursorPage<SimulationJob>>),
    SimulationJob(Box<SimulationJob>),
    Conversation(Box<Conversation>),
    CallValues(Uuid, Vec<MetricValueGroup>),
    CollectionValues(Uuid, ValueStatusFilter, Vec<MetricValueGroup>),
    MetricVersions(String, Vec<MetricDefinition>),
    BenchmarkSuites(Vec<SuiteEntry>),
    BenchmarkTargets(String, Vec<Target>),
    ScoreSamples(String, ScoreSampleQuery, Box<ScoreSamplePage>),
    /// The body of a `Request::Raw`.
    Raw(serde_json::Value),
    /// Two runs compared (`Request::Comparison`).
    Comparison(Box<crate::compare::Diff>),
    /// A plan's stability over its last runs (`Request::Flaky`).
    Flaky(Box<crate::compare::flaky::PlanStability>),
    Annotations(Vec<Annotation>),
}

/// A call as the transcript view needs it.
#[derive(Debug, Clone)]
pub struct Conversation {
    /// The call, or None for a chat.
    pub call: Option<Call>,
    pub chat: Option<Chat>,
    pub transcript: Transcript,
    pub metrics: Vec<MetricValueGroup>,
}

/// Why a request failed, as much as the console needs to react.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchError {
    pub kind: FailureKind,
    /// The client's message: the service's own words when it answered (never the key).
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    NotFound,
    Unreachable,
    /// The service refused the key (401).
    Rejected,
    Other,
}

impl From<Error> for FetchError {
    fn from(error: Error) -> Self {
        let kind = match &error {
            e if e.is_unreachable() => FailureKind::Unreachable,
            e if e.status() == Some(404) => FailureKind::NotFound,
            e if e.status() == Some(401) => FailureKind::Rejected,
            _ => FailureKind::Other,
        };
        FetchError { kind, message: error.to_string() }
    }
}

/// Input to `update`.
#[derive(Debug, Clone)]
pub enum Message {
    Key(KeyEvent),
    Paste(String),
    Resize(u16, u16),
    /// The poll timer.
    Tick,
    /// Time to try the service again after a disconnection.
    Reconnect,
    Fetched {
        request: Request,
        result: Box<Result<Fetched, FetchError>>,
    },
    /// A write finished.
    Written {
        write: Write,
        result: Box<Result<Written, WriteError>>,
    },
    /// Changes the service announced on the event stream the console watches, a few at a time.
    Events(Vec<Event>),
    /// The editor closed on a resource's YAML: the text as saved, or why it could not run.
    Edited {
        edit: Box<Edit>,
        result: Result<String, String>,
    },
    /// SIGTERM, or the terminal went away.
    Terminate,
}

/// Output of `update`: work for the runtime.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Fetch(Request),
    /// ConfigChange something on the service (never sent in read-only mode, never twice at once).
    Write(Write),
    /// Send `Message::Reconnect` after this long.
    ReconnectAfter(Duration),
    /// Write this text to the system clipboard through the terminal (OSC 52).
    Copy(String),
    /// Persist the cache file.
    SaveCache,
    /// Remember a small fact in the cache between sessions (the issues seen on the last visit);
    /// the app stores it and saves the cache.
    SetMark(String, serde_json::Value),
    /// Watch the service's event stream with this filter (replacing any watch), or stop.
    Watch(Option<EventQuery>),
    /// Hand the terminal to the user's editor on this text; `Message::Edited` brings it back.
    Edit(Box<Edit>),
}

/// A resource opened in the editor as its config YAML (k9s' `e`), or a new one from a
/// template (`c`): applied alone through the config routes, never pruning.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    /// The bundle kind (`persona`, `flow`, …).
    pub kind: String,
    /// `KIND/NAME`, or `KIND (new)` while creating.
    pub title: String,
    /// The text handed to the editor (with the errors of the last try as comments on top).
    pub text: String,
    /// What the user saved, read as one resource; set once the editor has closed.
    pub resource: Option<serde_json::Value>,
    /// Opened from a resource the service has (`e`), not from a template (`c`).
    pub existing: bool,
}

/// One change the console asks of the service.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    UpdateIssue(Uuid, IssueUpdate),
    /// Save a new run plan.
    CreatePlan(Box<RunPlanInput>),
    /// Run a saved plan (with runtime variables).
    Run(Box<RunRequest>),
    /// A threshold on the metric with this id (or slug).
    CreateThreshold(String, Box<ThresholdInput>),
    /// Edit a metric definition; with a variant, the workspace's fork of a service-owned one.
    UpdateMetric {
        id: String,
        variant: Option<String>,
        update: Box<MetricDefinitionUpdate>,
    },
    CreatePersona(Box<PersonaFields>),
    DeletePersona(Uuid),
    /// Delete a flow, plan or policy through its own route (asked first).
    Delete(Deletion),
    DuplicateFlow(Uuid),
    UpdateEndpoint(Uuid, AgentEndpointUpdate),
    CreatePolicy(Box<PolicyInput>),
    UpdatePolicy(Uuid, PolicyUpdate),
    CancelJob(Uuid),
    /// File an issue (from the marked calls).
    CreateIssue(Box<IssueInput>),
    /// Start a collection job (policies or metrics, over the marked calls or the policies' own).
    StartCollection(Box<CollectionJobInput>),
    /// Label a judged value right or wrong (a local service extension).
    Annotate(Box<AnnotationInput>),
    /// What applying the edited resource would change (`POST /v1/config/diff`, no prune).
    ConfigDiff(Box<Edit>),
    /// Apply the edited resource alone (`POST /v1/config/apply`, no prune).
    ConfigApply(Box<Edit>),
}

impl Write {
    /// What the write does, for toasts ("update issue").
    pub fn label(&self) -> &'static str {
        match self {
            Write::UpdateIssue(..) => "update the issue",
            Write::CreatePlan(_) => "create the plan",
            Write::Run(_) => "run the plan",
            Write::CreateThreshold(..) => "create the threshold",
            Write::UpdateMetric { .. } => "edit the metric",
            Write::CreatePersona(_) => "create the persona",
            Write::DeletePersona(_) => "delete the persona",
            Write::Delete(_) => "delete it",
            Write::DuplicateFlow(_) => "duplicate the flow",
            Write::UpdateEndpoint(..) => "update the endpoint",
            Write::CreatePolicy(_) => "create the policy",
            Write::UpdatePolicy(..) => "update the policy",
            Write::CancelJob(_) => "cancel the job",
            Write::CreateIssue(_) => "file the issue",
            Write::StartCollection(_) => "start the collection job",
            Write::Annotate(_) => "label the value",
            Write::ConfigDiff(_) => "compare the edit",
            Write::ConfigApply(_) => "apply the edit",
        }
    }
}

/// A resource to delete, and the route that deletes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Deletion {
    pub kind: ListKind,
    pub id: Uuid,
    /// `flow Appointment booking`, for the dialog and the toasts.
    pub what: String,
}

impl Deletion {
    /// The kind's delete route (the hosted service's paths).
    pub fn path(&self) -> String {
        let base = match self.kind {
            ListKind::Flows => "/v1/customer-flow",
            ListKind::RunPlans => "/v1/simulation/plan",
            ListKind::Policies => "/v1/metric/policies",
            _ => "/v1/persona",
        };
        format!("{base}/{}", self.id)
    }
}

/// What a write brought back.
#[derive(Debug, Clone)]
pub enum Written {
    Issue(Box<Issue>),
    Started(Box<RunStarted>),
    Plan(Box<RunPlanCreated>),
    Metric(Box<MetricDefinition>),
    Persona(Box<Persona>),
    Deleted(Uuid),
    Flow(Box<CustomerFlow>),
    Endpoint(Box<AgentEndpoint>),
    Policy(Box<MetricPolicy>),
    Job(Box<RunPlanJob>),
    CollectionJob(Box<CollectionJob>),
    Annotation(Box<Annotation>),
    /// What a config diff or apply did or would do.
    Config(Box<crate::api::model::config::ConfigChanges>),
}

/// Why a write failed, with the fields at fault so a form can show each under its field.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteError {
    pub unreachable: bool,
    /// The service refused the key this write (403): it may read but not write.
    pub forbidden: bool,
    /// The service has no such route (404 or 405 not about a field): an extension it lacks.
    pub missing_route: bool,
    pub message: String,
    /// `(param, message)`: the error's `param`, then every `details.violations` entry.
    pub fields: Vec<(String, String)>,
}

impl From<Error> for WriteError {
    fn from(error: Error) -> Self {
        let mut fields = Vec::new();
        if let Some(api) = error.api() {
            let violations = api.details.as_ref().and_then(|d| d.get("violations")).and_then(|v| v.as_array());
            for v in violations.into_iter().flatten() {
                if let (Some(param), Some(message)) = (v["param"].as_str(), v["message"].as_str()) {
                    fields.push((param.to_string(), message.to_string()));
                }
            }
            if let Some(param) = &api.param
                && !fields.iter().any(|(p, _)| p == param)
            {
                fields.insert(0, (param.clone(), api.message.clone()));
            }
        }
        let forbidden = error.status() == Some(403);
        let missing_route = matches!(error.status(), Some(404 | 405)) && fields.is_empty();
        WriteError { unreachable: error.is_unreachable(), forbidden, missing_route, message: error.to_string(), fields }
    }
}

/// How a toast reads: a note, or an error (which also goes to the log file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Error,
}

/// The selected resource, for copy and the raw view.
#[derive(Debug, Clone)]
pub struct Selection {
    pub id: String,
    /// The item as the console decoded it (members it does not know are not kept).
    pub json: serde_json::Value,
    /// Where the service serves it whole (`GET`), for the raw view.
    pub path: Option<String>,
}

impl Selection {
    pub fn of<T: serde::Serialize>(id: impl ToString, item: &T) -> Selection {
        Selection { id: id.to_string(), json: serde_json::to_value(item).unwrap_or_default(), path: None }
    }

    /// The same, readable as sent at `path`.
    pub fn at(mut self, path: Option<String>) -> Selection {
        self.path = path;
        self
    }
}
