//! One method per operation of the interface, grouped as the spec groups them.

use futures_util::Stream;
use reqwest::Method;
use serde::Serialize;
use uuid::Uuid;

use super::client::Client;
use super::error::Error;
use super::model::*;
use super::page::{cursor_stream, offset_stream};

/// `limit` and the cursor of a cursor-paged list, plus its filters. The cursor is sent as
/// `after`, the name the hosted interface reads on every such list (the local service reads
/// `cursor` too); the collection job list, where the spec names `cursor`, has its own query.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ListQuery {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    #[serde(rename = "after", skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Filters such as `status`, `severity` or `simulationRunPlanId`.
    #[serde(flatten)]
    pub filters: std::collections::BTreeMap<String, String>,
}

impl ListQuery {
    pub fn filter(mut self, key: &str, value: impl ToString) -> Self {
        self.filters.insert(key.to_owned(), value.to_string());
        self
    }

    pub fn limit(mut self, limit: i64) -> Self {
        self.limit = Some(limit);
        self
    }
}

/// Escapes one path segment (ids and slugs are safe, target keys may not be).
pub(crate) fn seg(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(byte as char),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

impl Client {
    /// Every item of a cursor-paged list at `path`, fetched page by page as consumed.
    pub fn list_all<T>(&self, path: &str, query: ListQuery) -> impl Stream<Item = Result<T, Error>> + use<T>
    where
        T: serde::de::DeserializeOwned,
    {
        let client = self.clone();
        let path = path.to_owned();
        cursor_stream(move |cursor| {
            let client = client.clone();
            let path = path.clone();
            let query = ListQuery { cursor, ..query.clone() };
            async move { client.get_with::<_, CursorPage<T>>(&path, &query).await }
        })
    }

    /// The same, reading each item on its own: an item that does not decode comes back as
    /// `Lenient::Unreadable` instead of failing the page.
    pub fn list_all_lenient<T>(
        &self,
        path: &str,
        query: ListQuery,
    ) -> impl Stream<Item = Result<super::page::Lenient<T>, Error>> + use<T>
    where
        T: serde::de::DeserializeOwned,
    {
        let client = self.clone();
        let path = path.to_owned();
        cursor_stream(move |cursor| {
            let client = client.clone();
            let path = path.clone();
            let query = ListQuery { cursor, ..query.clone() };
            async move {
                let page: super::page::LenientPage<T> = client.get_with(&path, &query).await?;
                let mut page = CursorPage::from(page);
                for entry in &mut page.data {
                    if let super::page::Lenient::Unreadable(why) = entry {
                        *why = client.scrub(why);
                    }
                }
                Ok(page)
            }
        })
    }

    /// One page of a cursor-paged list at `path`.
    pub async fn list_page<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        query: &ListQuery,
    ) -> Result<CursorPage<T>, Error> {
        self.get_with(path, query).await
    }

    async fn data<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<T, Error> {
        Ok(self.get::<Data<T>>(path).await?.data)
    }

    async fn write_data<B: Serialize + ?Sized, T: serde::de::DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: &B,
    ) -> Result<T, Error> {
        Ok(self.write::<B, Data<T>>(method, path, body).await?.data)
    }

    // Health

    pub async fn health(&self) -> Result<Health, Error> {
        let raw: serde_json::Value = self.get("/v1/health").await?;
        // The spec puts the members in the body, the hosted SDK inside `data`: read both.
        let mut body = raw.as_object().cloned().unwrap_or_default();
        if let Some(serde_json::Value::Object(data)) = body.remove("data") {
            for (key, value) in data {
                body.entry(key).or_insert(value);
            }
        }
        let body = serde_json::Value::Object(body);
        serde_json::from_value(body).map_err(|e| {
            // serde quotes the value it could not read: that can be an echoed key.
            self.redact(Error::Decode {
                method: "GET".into(),
                path: "/v1/health".into(),
                status: 200,
                message: e.to_string(),
            })
        })
    }

    // Config as code

    /// What applying `resources` would do (`POST /v1/config/diff`); writes nothing.
    pub async fn config_diff(
        &self,
        resources: &[serde_json::Value],
        prune: bool,
    ) -> Result<super::model::config::ConfigChanges, Error> {
        let request = serde_json::json!({ "resources": resources, "prune": prune });
        self.write_data(Method::POST, "/v1/config/diff", &request).await
    }

    /// Makes the service match `resources` (`POST /v1/config/apply`).
    pub async fn config_apply(
        &self,
        resources: &[serde_json::Value],
        prune: bool,
    ) -> Result<super::model::config::ConfigChanges, Error> {
        let request = serde_json::json!({ "resources": resources, "prune": prune });
        self.write_data(Method::POST, "/v1/config/apply", &request).await
    }

    // Simulation

    pub async fn create_run_plan(&self, input: &RunPlanInput) -> Result<RunPlanCreated, Error> {
        self.write_data(Method::POST, "/v1/simulation/plan", input).await
    }

    /// The `data` of `GET {path}` exactly as the service sent it, members this build does not
    /// know included (the console's raw view).
    pub async fn get_raw(&self, path: &str) -> Result<serde_json::Value, Error> {
        self.data(path).await
    }

    /// Changes the members `update` gives of a saved plan; the rest stay.
    pub async fn update_run_plan(&self, id: Uuid, update: &RunPlanUpdate) -> Result<RunPlan, Error> {
        self.write_data(Method::PUT, &format!("/v1/simulation/plan/{id}"), update).await
    }

    pub async fn get_run_plan(&self, id: Uuid) -> Result<RunPlan, Error> {
        self.data(&format!("/v1/simulation/plan/{id}")).await
    }

    pub async fn get_run_plan_job(&self, id: Uuid) -> Result<RunPlanJob, Error> {
        self.data(&format!("/v1/simulation/plan/job/{id}")).await
    }

    /// A run's results in one read: each simulation's check results and call-level values.
    pub async fn run_results(&self, id: Uuid) -> Result<RunResults, Error> {
        self.data(&format!("/v1/simulation/plan/job/{id}/check-results")).await
    }

    /// The job unless it is unchanged since the read that gave `etag` (a watcher's poll). With
    /// `summary`, without its simulation jobs (`?simulationJobs=none`): a service that knows the
    /// extension answers `counts` instead; one that does not sends them all the same.
    pub async fn get_run_plan_job_if_changed(
        &self,
        id: Uuid,
        summary: bool,
        etag: Option<&str>,
    ) -> Result<super::Conditional<RunPlanJob>, Error> {
        let query = if summary { "?simulationJobs=none" } else { "" };
        let path = format!("/v1/simulation/plan/job/{id}{query}");
        Ok(match self.get_if_changed::<Data<RunPlanJob>>(&path, etag).await? {
            super::Conditional::Changed { value, etag } => super::Conditional::Changed { value: value.data, etag },
            super::Conditional::Unchanged => super::Conditional::Unchanged,
        })
    }

    /// One page of a job's simulation jobs (local service extension); `status` and `outcome`
    /// filters go in `query`.
    pub async fn list_job_simulations(&self, id: Uuid, query: &ListQuery) -> Result<CursorPage<SimulationJob>, Error> {
        self.get_with(&format!("/v1/simulation/plan/job/{id}/simulation-jobs"), query).await
    }

    pub async fn run(&self, request: &RunRequest) -> Result<RunStarted, Error> {
        self.write_data(Method::POST, "/v1/simulation/run", request).await
    }

    pub async fn cancel_run_plan_job(&self, id: Uuid) -> Result<RunPlanJob, Error> {
        self.write_data(Method::POST, &format!("/v1/simulation/plan/job/{id}/cancel"), &serde_json::json!({})).await
    }

    pub async fn get_simulation_job(&self, id: Uuid) -> Result<SimulationJob, Error> {
        self.data(&format!("/v1/simulation/job/{id}")).await
    }

    // Metrics

    pub async fn get_metric_definition(&self, id_or_slug: &str) -> Result<MetricDefinition, Error> {
        self.data(&format!("/v1/metric/definitions/{}", seg(id_or_slug))).await
    }

    /// Every version of a definition, newest first.
    pub async fn metric_definition_versions(&self, id_or_slug: &str) -> Result<Vec<MetricDefinition>, Error> {
        self.data(&format!("/v1/metric/definitions/{}/versions", seg(id_or_slug))).await
    }

    pub async fn create_metric_definition(&self, input: &MetricDefinitionInput) -> Result<MetricDefinition, Error> {
        self.write_data(Method::POST, "/v1/metric/definitions", input).await
    }

    pub async fn update_metric_definition(
        &self,
        id_or_slug: &str,
        update: &MetricDefinitionUpdate,
    ) -> Result<MetricDefinition, Error> {
        self.write_data(Method::PUT, &format!("/v1/metric/definitions/{}", seg(id_or_slug)), update).await
    }

    pub async fn get_metric_variant(&self, id_or_slug: &str, variant: &str) -> Result<MetricVariant, Error> {
        self.data(&format!("/v1/metric/definitions/{}/variants/{}", seg(id_or_slug), seg(variant))).await
    }

    pub async fn update_metric_variant(
        &self,
        id_or_slug: &str,
        variant: &str,
        update: &MetricDefinitionUpdate,
    ) -> Result<MetricVariant, Error> {
        let path = format!("/v1/metric/definitions/{}/variants/{}", seg(id_or_slug), seg(variant));
        self.write_data(Method::PUT, &path, update).await
    }

    /// Edits a variant and answers the definition as the variant now configures it: the local
    /// service sends it with the variant; the hosted interface does not, so it is read back.
    pub async fn update_metric_variant_definition(
        &self,
        id_or_slug: &str,
        variant: &str,
        update: &MetricDefinitionUpdate,
    ) -> Result<MetricDefinition, Error> {
        let written = self.update_metric_variant(id_or_slug, variant, update).await?;
        match written.definition {
            Some(definition) => Ok(*definition),
            None => self.get_metric_definition(&written.metric_definition_id.to_string()).await,
        }
    }

    pub async fn create_threshold(&self, id_or_slug: &str, input: &ThresholdInput) -> Result<MetricDefinition, Error> {
        self.write_data(Method::POST, &format!("/v1/metric/definitions/{}/thresholds", seg(id_or_slug)), input).await
    }

    /// Labels a metric value on a call right or wrong (local service extension; a service
    /// without it answers 404 or 405).
    pub async fn annotate(&self, input: &AnnotationInput) -> Result<Annotation, Error> {
        self.write_data(Method::POST, routes::ANNOTATIONS, input).await
    }

    pub async fn create_policy(&self, input: &PolicyInput) -> Result<MetricPolicy, Error> {
        self.write_data(Method::POST, "/v1/metric/policies", input).await
    }

    pub async fn get_policy(&self, id: Uuid) -> Result<MetricPolicy, Error> {
        self.data(&format!("/v1/metric/policies/{id}")).await
    }

    pub async fn update_policy(&self, id: Uuid, update: &PolicyUpdate) -> Result<MetricPolicy, Error> {
        self.write_data(Method::PATCH, &format!("/v1/metric/policies/{id}"), update).await
    }

    pub async fn list_collection_jobs(&self, query: &CollectionJobQuery) -> Result<CursorPage<CollectionJob>, Error> {
        self.get_with("/v1/metric/collection-jobs", query).await
    }

    /// Every collection job matching `status`, page by page.
    pub fn collection_jobs(
        &self,
        status: Option<CollectionJobStatus>,
        page_size: Option<i64>,
    ) -> impl Stream<Item = Result<CollectionJob, Error>> + use<> {
        let client = self.clone();
        cursor_stream(move |cursor| {
            let client = client.clone();
            let query = CollectionJobQuery { limit: page_size, cursor, status: status.clone(), ..Default::default() };
            async move { client.list_collection_jobs(&query).await }
        })
    }

    pub async fn create_collection_job(&self, input: &CollectionJobInput) -> Result<CollectionJob, Error> {
        self.write_data(Method::POST, "/v1/metric/collection-jobs", input).await
    }

    pub async fn get_collection_job(&self, id: Uuid) -> Result<CollectionJob, Error> {
        self.data(&format!("/v1/metric/collection-jobs/{id}")).await
    }

    pub async fn cancel_collection_job(&self, id: Uuid) -> Result<CollectionJob, Error> {
        self.write_data(Method::POST, &format!("/v1/metric/collection-jobs/{id}/cancel"), &serde_json::json!({})).await
    }

    pub async fn collection_job_values(
        &self,
        id: Uuid,
        status: ValueStatusFilter,
    ) -> Result<Vec<MetricValueGroup>, Error> {
        let path = format!("/v1/metric/collection-jobs/{id}/metric-values");
        Ok(self.get_with::<_, Data<Vec<MetricValueGroup>>>(&path, &[("status", status.as_str())]).await?.data)
    }

    // Agents

    pub async fn get_agent_endpoint(&self, id: Uuid) -> Result<AgentEndpoint, Error> {
        self.data(&format!("/v1/agent/endpoint/{id}")).await
    }

    pub async fn update_agent_endpoint(&self, id: Uuid, update: &AgentEndpointUpdate) -> Result<AgentEndpoint, Error> {
        self.write_data(Method::PUT, &format!("/v1/agent/endpoint/{id}"), update).await
    }

    pub async fn create_agent(&self, input: &AgentInput) -> Result<Agent, Error> {
        self.write_data(Method::POST, "/v1/agent", input).await
    }

    pub async fn create_agent_endpoint(&self, input: &AgentEndpointInput) -> Result<AgentEndpoint, Error> {
        self.write_data(Method::POST, "/v1/agent/endpoint", input).await
    }

    pub async fn create_http_request_definition(
        &self,
        input: &HttpRequestDefinitionInput,
    ) -> Result<HttpRequestDefinition, Error> {
        self.write_data(Method::POST, "/v1/http-request-definition", input).await
    }

    pub async fn get_http_request_definition(&self, id: Uuid) -> Result<HttpRequestDefinition, Error> {
        self.data(&format!("/v1/http-request-definition/{id}")).await
    }

    /// Changes a definition; a header sent back masked keeps its stored value.
    pub async fn update_http_request_definition(
        &self,
        id: Uuid,
        update: &HttpRequestDefinitionUpdate,
    ) -> Result<HttpRequestDefinition, Error> {
        self.write_data(Method::PUT, &format!("/v1/http-request-definition/{id}"), update).await
    }

    // Customer flows

    pub async fn get_flow(&self, id: Uuid) -> Result<CustomerFlow, Error> {
        self.data(&format!("/v1/customer-flow/{id}")).await
    }

    pub async fn duplicate_flow(&self, id: Uuid) -> Result<CustomerFlow, Error> {
        self.write_data(Method::POST, &format!("/v1/customer-flow/{id}/duplicate"), &serde_json::json!({})).await
    }

    pub async fn create_flow(&self, input: &FlowInput) -> Result<CustomerFlow, Error> {
        self.write_data(Method::POST, "/v1/customer-flow", input).await
    }

    /// Changes the members given; a SYSTEM or voicemail flow is refused.
    pub async fn update_flow(&self, id: Uuid, update: &FlowUpdate) -> Result<CustomerFlow, Error> {
        self.write_data(Method::PUT, &format!("/v1/customer-flow/{id}"), update).await
    }

    /// Refused with 409 `flow_in_use` while an unfinished run needs the flow.
    pub async fn delete_flow(&self, id: Uuid) -> Result<Deleted, Error> {
        let path = format!("/v1/customer-flow/{id}");
        Ok(self.send::<(), (), Data<Deleted>>(Method::DELETE, &path, None, None).await?.data)
    }

    pub async fn replace_flow_graph(&self, id: Uuid, input: &GraphInput) -> Result<GraphReplaced, Error> {
        self.write_data(Method::PUT, &format!("/v1/customer-flow/{id}/graph"), input).await
    }

    pub async fn update_flow_happy_path(&self, id: Uuid, given: &VariantInput) -> Result<FlowVariant, Error> {
        self.write_data(Method::PUT, &format!("/v1/customer-flow/{id}/happy-path"), given).await
    }

    pub async fn add_flow_edge_case(&self, id: Uuid, given: &EdgeCaseInput) -> Result<FlowVariant, Error> {
        self.write_data(Method::POST, &format!("/v1/customer-flow/{id}/edge-case"), given).await
    }

    pub async fn update_flow_edge_case(
        &self,
        id: Uuid,
        case: Uuid,
        given: &VariantInput,
    ) -> Result<FlowVariant, Error> {
        self.write_data(Method::PUT, &format!("/v1/customer-flow/{id}/edge-case/{case}"), given).await
    }

    pub async fn remove_flow_edge_case(&self, id: Uuid, case: Uuid) -> Result<Deleted, Error> {
        let path = format!("/v1/customer-flow/{id}/edge-case/{case}");
        Ok(self.send::<(), (), Data<Deleted>>(Method::DELETE, &path, None, None).await?.data)
    }

    /// Makes the edge case the happy path; the old happy path becomes an edge case.
    pub async fn promote_flow_edge_case(&self, id: Uuid, case: Uuid) -> Result<FlowVariant, Error> {
        let path = format!("/v1/customer-flow/{id}/edge-case/{case}/promote");
        self.write_data(Method::POST, &path, &serde_json::json!({})).await
    }

    // Personas

    pub async fn list_personas(&self, query: &ListQuery) -> Result<CursorPage<Persona>, Error> {
        self.list_page("/v1/persona", query).await
    }

    pub async fn get_persona(&self, id: Uuid) -> Result<Persona, Error> {
        self.data(&format!("/v1/persona/{id}")).await
    }

    pub async fn create_persona(&self, fields: &PersonaFields) -> Result<Persona, Error> {
        self.write_data(Method::POST, "/v1/persona", fields).await
    }

    pub async fn delete_persona(&self, id: Uuid) -> Result<Deleted, Error> {
        Ok(self.send::<(), (), Data<Deleted>>(Method::DELETE, &format!("/v1/persona/{id}"), None, None).await?.data)
    }

    /// Deletes whatever `path` names (a flow, plan or policy route); the answer's body is not
    /// needed, only whether the service agreed.
    pub async fn delete_at(&self, path: &str) -> Result<(), Error> {
        self.send::<(), (), serde_json::Value>(Method::DELETE, path, None, None).await?;
        Ok(())
    }

    // Webhooks

    /// Creates a webhook; the answer's `signingSecret` is shown this once.
    pub async fn create_webhook(&self, input: &WebhookInput) -> Result<WebhookCreated, Error> {
        self.write_data(Method::POST, "/v1/webhook", input).await
    }

    pub async fn list_webhooks(&self, query: &ListQuery) -> Result<CursorPage<Webhook>, Error> {
        self.get_with("/v1/webhook", query).await
    }

    pub async fn get_webhook(&self, id: Uuid) -> Result<Webhook, Error> {
        self.data(&format!("/v1/webhook/{id}")).await
    }

    pub async fn delete_webhook(&self, id: Uuid) -> Result<WebhookDeleted, Error> {
        let path = format!("/v1/webhook/{id}");
        Ok(self.send::<(), (), Data<WebhookDeleted>>(Method::DELETE, &path, None, None).await?.data)
    }

    /// A webhook's delivery attempts, newest first (local service extension).
    pub async fn webhook_deliveries(&self, id: Uuid, query: &ListQuery) -> Result<CursorPage<DeliveryAttempt>, Error> {
        self.get_with(&format!("/v1/webhook/{id}/deliveries"), query).await
    }

    // Alerts

    /// Every alert with its state (local service extension).
    pub async fn list_alerts(&self) -> Result<Vec<AlertStatus>, Error> {
        self.data("/v1/alert").await
    }

    /// One alert with its state, by id or name (local service extension).
    pub async fn get_alert(&self, id_or_name: &str) -> Result<AlertStatus, Error> {
        self.data(&format!("/v1/alert/{}", seg(id_or_name))).await
    }

    // Issues

    pub async fn create_issue(&self, input: &IssueInput) -> Result<Issue, Error> {
        self.write_data(Method::POST, "/v1/issue", input).await
    }

    pub async fn get_issue(&self, id: Uuid) -> Result<Issue, Error> {
        self.data(&format!("/v1/issue/{id}")).await
    }

    pub async fn update_issue(&self, id: Uuid, update: &IssueUpdate) -> Result<Issue, Error> {
        self.write_data(Method::PATCH, &format!("/v1/issue/{id}"), update).await
    }

    // Calls

    pub async fn create_call(&self, input: &CallInput) -> Result<Call, Error> {
        self.write_data(Method::POST, "/v1/call", input).await
    }

    pub async fn get_call(&self, id: Uuid) -> Result<Call, Error> {
        self.data(&format!("/v1/call/{id}")).await
    }

    pub async fn call_transcript(&self, id: Uuid) -> Result<Transcript, Error> {
        self.data(&format!("/v1/call/{id}/transcript")).await
    }

    pub async fn call_metrics(&self, id: Uuid, status: ValueStatusFilter) -> Result<Vec<MetricValueGroup>, Error> {
        let path = format!("/v1/call/{id}/metrics");
        Ok(self.get_with::<_, Data<Vec<MetricValueGroup>>>(&path, &[("status", status.as_str())]).await?.data)
    }

    pub async fn create_chat(&self, input: &CallInput) -> Result<Chat, Error> {
        self.write_data(Method::POST, "/v1/chat", input).await
    }

    pub async fn get_chat(&self, id: Uuid) -> Result<Chat, Error> {
        self.data(&format!("/v1/chat/{id}")).await
    }

    pub async fn chat_transcript(&self, id: Uuid) -> Result<Transcript, Error> {
        self.data(&format!("/v1/chat/{id}/transcript")).await
    }

    pub async fn chat_metrics(&self, id: Uuid, status: ValueStatusFilter) -> Result<Vec<MetricValueGroup>, Error> {
        let path = format!("/v1/chat/{id}/metrics");
        Ok(self.get_with::<_, Data<Vec<MetricValueGroup>>>(&path, &[("status", status.as_str())]).await?.data)
    }

    // Knowledge bases

    pub async fn get_knowledge_base(&self, id: Uuid) -> Result<KnowledgeBase, Error> {
        self.data(&format!("/v1/knowledge-base/{id}")).await
    }

    // Benchmarks

    pub async fn list_benchmark_suites(&self) -> Result<Vec<SuiteEntry>, Error> {
        self.data("/v1/benchmark/suite").await
    }

    pub async fn list_benchmark_targets(&self, suite: &str) -> Result<Vec<Target>, Error> {
        Ok(self.get_with::<_, Data<Vec<Target>>>("/v1/benchmark/target", &[("suite", suite)]).await?.data)
    }

    pub async fn list_score_samples(
        &self,
        target_key: &str,
        query: &ScoreSampleQuery,
    ) -> Result<ScoreSamplePage, Error> {
        self.get_with(&format!("/v1/benchmark/target/{}/score-sample", seg(target_key)), query).await
    }

    /// Every score sample of a target, page by page.
    pub fn score_samples(
        &self,
        target_key: &str,
        query: ScoreSampleQuery,
    ) -> impl Stream<Item = Result<ScoreSample, Error>> + use<> {
        let client = self.clone();
        let target_key = target_key.to_owned();
        offset_stream(move |offset| {
            let client = client.clone();
            let target_key = target_key.clone();
            let query = ScoreSampleQuery { offset: Some(offset as i64), ..query.clone() };
            async move {
                let page = client.list_score_samples(&target_key, &query).await?;
                Ok((page.data, page.pagination))
            }
        })
    }
}

/// List routes of the interface, by the resource they list.
pub mod routes {
    pub const AGENTS: &str = "/v1/agent";
    pub const AGENT_ENDPOINTS: &str = "/v1/agent/endpoint";
    pub const HTTP_REQUEST_DEFINITIONS: &str = "/v1/http-request-definition";
    pub const FLOWS: &str = "/v1/customer-flow";
    pub const PERSONAS: &str = "/v1/persona";
    pub const METRIC_DEFINITIONS: &str = "/v1/metric/definitions";
    pub const POLICIES: &str = "/v1/metric/policies";
    /// Labels on judged values (local service extension).
    pub const ANNOTATIONS: &str = "/v1/metric/annotations";
    pub const COLLECTION_JOBS: &str = "/v1/metric/collection-jobs";
    pub const CALLS: &str = "/v1/call";
    pub const CHATS: &str = "/v1/chat";
    pub const ISSUES: &str = "/v1/issue";
    pub const ALERTS: &str = "/v1/alert";
    pub const KNOWLEDGE_BASES: &str = "/v1/knowledge-base";
    pub const RUN_PLANS: &str = "/v1/simulation/plan";
    pub const RUN_PLAN_JOBS: &str = "/v1/simulation/plan/jobs";
    pub const TEMPLATES: &str = "/v1/simulation/template";
}

#[cfg(test)]
mod tests {
    #[test]
    fn path_segments_are_escaped() {
        assert_eq!(super::seg("acme voice/pro"), "acme%20voice%2Fpro");
        assert_eq!(super::seg("call_duration"), "call_duration");
    }
}
