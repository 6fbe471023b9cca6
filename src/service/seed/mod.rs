//! The seeded world: one coherent, deterministic demo kept as readable JSON in assets/seed,
//! embedded in the binary and written into a fresh data dir in one transaction.

use crate::service::store::Tx;
use serde_json::Value;

use super::error::{DomainError, DomainResult};
use super::store::scores::SampleKey;
use super::store::values::ValueKey;
use super::store::{self, Doc, Kind, Store};

/// The seed files, embedded so the binary needs nothing beside it.
pub mod files {
    pub const AGENTS: &str = include_str!("../../../assets/seed/agents.json");
    pub const AGENT_ENDPOINTS: &str = include_str!("../../../assets/seed/agent_endpoints.json");
    pub const HTTP_REQUEST_DEFINITIONS: &str = include_str!("../../../assets/seed/http_request_definitions.json");
    pub const PERSONAS: &str = include_str!("../../../assets/seed/personas.json");
    pub const CUSTOMER_FLOWS: &str = include_str!("../../../assets/seed/customer_flows.json");
    pub const METRIC_DEFINITIONS: &str = include_str!("../../../assets/seed/metric_definitions.json");
    pub const METRIC_POLICIES: &str = include_str!("../../../assets/seed/metric_policies.json");
    pub const CALLS: &str = include_str!("../../../assets/seed/calls.json");
    pub const COLLECTION_JOBS: &str = include_str!("../../../assets/seed/metric_collection_jobs.json");
    pub const ISSUES: &str = include_str!("../../../assets/seed/issues.json");
    pub const KNOWLEDGE_BASES: &str = include_str!("../../../assets/seed/knowledge_bases.json");
    pub const BENCHMARKS: &str = include_str!("../../../assets/seed/benchmarks.json");
    pub const RUN_PLANS: &str = include_str!("../../../assets/seed/run_plans.json");
    pub const SIMULATION_ENVIRONMENTS: &str = include_str!("../../../assets/seed/simulation_environments.json");
    pub const ALERTS: &str = include_str!("../../../assets/seed/alerts.json");
    pub const PRODUCTION_CALLS: &str = include_str!("../../../assets/seed/production_calls.json");
}

const SEEDED: &str = "seeded_at";

mod history;
mod production;

/// Waits, up to a minute, for the seeded history's jobs to end: a first start then shows the
/// last nights finished, never PENDING. Past the minute they go on in the background.
pub async fn wait_for_history(store: &Store) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(20));
    loop {
        tick.tick().await;
        match store.read(history::settled).await {
            Ok(true) => return,
            Ok(false) if std::time::Instant::now() < deadline => {}
            Ok(false) => return tracing::warn!("the seeded history is still running after a minute"),
            Err(e) => return tracing::warn!("cannot read the seeded history: {e}"),
        }
    }
}

/// Seeds the store unless it was seeded before (or holds data of its own); with `history`, also
/// the seeded plan's nightly runs of the three nights before that instant, which the simulation
/// engine then runs. Replicas starting together on one database seed it once: the first seeds,
/// the others find it seeded.
pub fn seed_if_empty(store: &Store, history: Option<jiff::Timestamp>) -> DomainResult<bool> {
    store.write_blocking_alone(store::Alone::Seeding, |tx| {
        if store::meta(tx, SEEDED)?.is_some() {
            return Ok(false);
        }
        seed(tx)?;
        if let Some(before) = history {
            history::nightly_runs(tx, before)?;
        }
        store::set_meta(tx, SEEDED, &crate::api::model::Timestamp::now().0)?;
        Ok(true)
    })
}

fn parse(name: &str, text: &str) -> DomainResult<Value> {
    serde_json::from_str(text).map_err(|e| DomainError::fault(format!("seed file {name}: {e}")))
}

fn array(name: &str, text: &str) -> DomainResult<Vec<Value>> {
    match parse(name, text)? {
        Value::Array(items) => Ok(items),
        _ => Err(DomainError::fault(format!("seed file {name} is not an array"))),
    }
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

fn created(value: &Value) -> String {
    text(value, "createdAt").or(text(value, "startedAt")).unwrap_or("2026-10-01T00:00:00Z").to_owned()
}

/// Inserts plain documents: id from `id`, status and parent from the named members. The seed
/// files are kept as JSON, not decoded into models, so their documents are assembled by hand.
fn insert_all(tx: &Tx, kind: Kind, items: &[Value], status: Option<&str>, parent: Option<&str>) -> DomainResult<()> {
    for item in items {
        let id = text(item, "id").ok_or_else(|| DomainError::fault(format!("a seeded {} has no id", kind.label())))?;
        let doc = Doc::new(kind, id, item, created(item))?
            .status(status.and_then(|s| text(item, s)))
            .parent(parent.and_then(|p| text(item, p)));
        store::insert(tx, &doc)?;
    }
    Ok(())
}

fn seed(tx: &Tx) -> DomainResult<()> {
    use files::*;
    insert_all(tx, Kind::Agent, &array("agents", AGENTS)?, None, None)?;
    insert_all(tx, Kind::AgentEndpoint, &array("agent_endpoints", AGENT_ENDPOINTS)?, None, Some("agentId"))?;
    insert_all(
        tx,
        Kind::HttpRequestDefinition,
        &array("http_request_definitions", HTTP_REQUEST_DEFINITIONS)?,
        None,
        None,
    )?;
    insert_all(tx, Kind::Persona, &array("personas", PERSONAS)?, None, None)?;
    insert_all(tx, Kind::CustomerFlow, &array("customer_flows", CUSTOMER_FLOWS)?, None, None)?;
    let definitions = array("metric_definitions", METRIC_DEFINITIONS)?;
    insert_all(tx, Kind::MetricDefinition, &definitions, None, None)?;
    for definition in &definitions {
        let version = definition.get("version").and_then(Value::as_i64).unwrap_or(1);
        store::versions::put(tx, text(definition, "id").unwrap_or_default(), version, &definition.to_string())?;
    }
    insert_all(tx, Kind::MetricPolicy, &array("metric_policies", METRIC_POLICIES)?, Some("status"), None)?;
    for mut call in array("calls", CALLS)? {
        let transcript = call.as_object_mut().and_then(|c| c.remove("transcript")).unwrap_or(Value::Null);
        insert_all(tx, Kind::Call, std::slice::from_ref(&call), None, Some("simulationRunPlanJobId"))?;
        if !transcript.is_null() {
            store::transcripts::put(tx, text(&call, "id").unwrap_or_default(), &transcript.to_string())?;
        }
    }
    for mut job in array("metric_collection_jobs", COLLECTION_JOBS)? {
        let groups = job.as_object_mut().and_then(|j| j.remove("values")).unwrap_or(Value::Null);
        insert_all(tx, Kind::CollectionJob, std::slice::from_ref(&job), Some("status"), None)?;
        for group in groups.as_array().into_iter().flatten() {
            let definition_id = text(group, "metricDefinitionId").unwrap_or_default();
            for value in group.get("values").and_then(Value::as_array).into_iter().flatten() {
                let key = ValueKey {
                    job_id: text(&job, "id").unwrap_or_default(),
                    definition_id,
                    call_id: text(value, "callId"),
                    chat_id: text(value, "chatId"),
                };
                let columns = store::values::ValueColumns::of_json(value);
                store::values::put_raw(tx, &key, &columns, &value.to_string())?;
            }
        }
    }
    // Lists are newest first by when a document was kept: the issues go in by their own time.
    let mut issues = array("issues", ISSUES)?;
    issues.sort_by(|a, b| text(a, "createdAt").cmp(&text(b, "createdAt")));
    insert_all(tx, Kind::Issue, &issues, Some("status"), None)?;
    for mut base in array("knowledge_bases", KNOWLEDGE_BASES)? {
        let content = base.as_object_mut().and_then(|b| b.remove("content"));
        insert_all(tx, Kind::KnowledgeBase, std::slice::from_ref(&base), Some("status"), None)?;
        if let Some(Value::String(content)) = content {
            store::knowledge::put(tx, text(&base, "id").unwrap_or_default(), &content)?;
        }
    }
    seed_benchmarks(tx)?;
    insert_all(tx, Kind::RunPlan, &array("run_plans", RUN_PLANS)?, None, None)?;
    insert_all(
        tx,
        Kind::SimulationEnvironment,
        &array("simulation_environments", SIMULATION_ENVIRONMENTS)?,
        None,
        None,
    )?;
    // Last: the alerts' issues come after the hand-filed ones, as they were raised later.
    production::seed(tx, ALERTS, PRODUCTION_CALLS)?;
    Ok(())
}

/// The seeded (curated) environments' ids: shared, never changed or deleted by a caller.
pub fn seeded_environment_ids() -> Vec<uuid::Uuid> {
    let list: Vec<Value> = serde_json::from_str(files::SIMULATION_ENVIRONMENTS).unwrap_or_default();
    list.iter().filter_map(|e| text(e, "id")).filter_map(|id| uuid::Uuid::parse_str(id).ok()).collect()
}

fn seed_benchmarks(tx: &Tx) -> DomainResult<()> {
    let benchmarks = parse("benchmarks", files::BENCHMARKS)?;
    let list = |key: &str| benchmarks.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    for suite in list("suites") {
        let name = text(&suite, "suite").unwrap_or_default();
        // Benchmarks are seed JSON, not models: id, time and parent are read from their members.
        store::insert(tx, &Doc::new(Kind::BenchmarkSuite, name, &suite, created(&suite))?)?;
    }
    for target in list("targets") {
        let id = format!(
            "{}/{}/{}",
            text(&target, "suite").unwrap_or_default(),
            text(&target, "targetKey").unwrap_or_default(),
            text(&target, "suiteVersion").unwrap_or_default()
        );
        let at = text(&target, "publishedAt").unwrap_or("2026-10-01T00:00:00Z").to_owned();
        store::insert(tx, &Doc::new(Kind::BenchmarkTarget, id, &target, at)?.parent(text(&target, "suite")))?;
    }
    for mut sample in list("scoreSamples") {
        let object = sample.as_object_mut().ok_or_else(|| DomainError::fault("a score sample is not an object"))?;
        let target_key = object.remove("targetKey");
        let suite = object.remove("suite");
        let version = object.remove("suiteVersion");
        let str_of = |v: &Option<Value>| v.as_ref().and_then(Value::as_str).unwrap_or_default().to_owned();
        let key = SampleKey {
            target_key: &str_of(&target_key),
            suite: &str_of(&suite),
            suite_version: &str_of(&version),
            condition_key: text(&sample, "conditionKey"),
            metric_key: text(&sample, "metricKey"),
        };
        store::scores::put(tx, &key, &sample.to_string())?;
    }
    Ok(())
}
