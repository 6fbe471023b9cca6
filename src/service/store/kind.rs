//! The kinds of document the store keeps, and what each is called.

/// The kinds of document kept in `docs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Agent,
    AgentEndpoint,
    HttpRequestDefinition,
    Persona,
    CustomerFlow,
    MetricDefinition,
    MetricPolicy,
    CollectionJob,
    Call,
    Chat,
    Issue,
    KnowledgeBase,
    RunPlan,
    RunPlanJob,
    SimulationJob,
    BenchmarkSuite,
    BenchmarkTarget,
    Annotation,
    Webhook,
    /// Which resource a config bundle's `KIND/NAME` made (`service::config`).
    ConfigRecord,
    Tool,
    Alert,
    /// Where an alert's `webhooks` are delivered: one per URL, its parent the alert.
    AlertWebhook,
    SimulationEnvironment,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Agent => "agent",
            Kind::AgentEndpoint => "agent_endpoint",
            Kind::HttpRequestDefinition => "http_request_definition",
            Kind::Persona => "persona",
            Kind::CustomerFlow => "customer_flow",
            Kind::MetricDefinition => "metric_definition",
            Kind::MetricPolicy => "metric_policy",
            Kind::CollectionJob => "collection_job",
            Kind::Call => "call",
            Kind::Chat => "chat",
            Kind::Issue => "issue",
            Kind::KnowledgeBase => "knowledge_base",
            Kind::RunPlan => "run_plan",
            Kind::RunPlanJob => "run_plan_job",
            Kind::SimulationJob => "simulation_job",
            Kind::BenchmarkSuite => "benchmark_suite",
            Kind::BenchmarkTarget => "benchmark_target",
            Kind::Annotation => "metric_value_annotation",
            Kind::Webhook => "webhook",
            Kind::ConfigRecord => "config_record",
            Kind::Tool => "tool",
            Kind::Alert => "alert",
            Kind::AlertWebhook => "alert_webhook",
            Kind::SimulationEnvironment => "simulation_environment",
        }
    }

    /// Members kept in the stored document for the engines, never sent to callers.
    pub fn internal_members(self) -> &'static [&'static str] {
        match self {
            Kind::RunPlanJob => &["plan", "variables", "tally", "replay"],
            Kind::CollectionJob => &["request"],
            // Sealed apart since issue 27 (`secrets`) and taken out of older bodies at start;
            // a body that still held it would not show it.
            Kind::Webhook => &["signingSecret"],
            _ => &[],
        }
    }

    /// How the resource is named in messages ("no persona …").
    pub fn label(self) -> &'static str {
        match self {
            Kind::Agent => "agent",
            Kind::AgentEndpoint => "agent endpoint",
            Kind::HttpRequestDefinition => "HTTP request definition",
            Kind::Persona => "persona",
            Kind::CustomerFlow => "customer flow",
            Kind::MetricDefinition => "metric definition",
            Kind::MetricPolicy => "metric policy",
            Kind::CollectionJob => "metric collection job",
            Kind::Call => "call",
            Kind::Chat => "chat",
            Kind::Issue => "issue",
            Kind::KnowledgeBase => "knowledge base",
            Kind::RunPlan => "run plan",
            Kind::RunPlanJob => "run plan job",
            Kind::SimulationJob => "simulation job",
            Kind::BenchmarkSuite => "benchmark suite",
            Kind::BenchmarkTarget => "benchmark target",
            Kind::Annotation => "metric value annotation",
            Kind::Webhook => "webhook",
            Kind::ConfigRecord => "config record",
            Kind::Tool => "tool",
            Kind::Alert => "alert",
            Kind::AlertWebhook => "alert webhook",
            Kind::SimulationEnvironment => "simulation environment",
        }
    }
}
