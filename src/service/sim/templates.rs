//! Templates: one ready-made regression run per flow that can run, in the hosted template
//! shape (`slug`, `title`, `flows`, `metrics`, `thresholds`, …) with the runnable `plan` the
//! local service adds.

use crate::service::store::Conn;
use uuid::Uuid;

use super::placeholders;
use crate::api::model::*;
use crate::service::error::DomainResult;
use crate::service::metrics::definitions;
use crate::service::store::{self, Kind};

/// The metrics every template measures: how long the call took, and whether the task got done.
const METRICS: &[&str] = &["call_duration", "task_completion"];
const MAX_DURATION_SECONDS: i64 = 300;

/// Every template, one per flow that is not a voicemail flow and has something to run as it
/// is. A template covers the variants whose personas give every `{{placeholder}}` their lines
/// use: the others need values only the person running them has, and a run would be refused.
pub fn all(conn: &Conn) -> DomainResult<Vec<RunPlanTemplate>> {
    let flows: Vec<CustomerFlow> = store::all(conn, Kind::CustomerFlow)?;
    let endpoints: Vec<AgentEndpoint> = store::all(conn, Kind::AgentEndpoint)?;
    let mut metrics: Vec<MetricDefinition> = Vec::new();
    for slug in METRICS {
        metrics.extend(definitions::find(conn, slug)?);
    }
    Ok(flows
        .into_iter()
        .filter(|f| !f.is_voicemail())
        .map(runnable_part)
        .filter(|(f, _)| f.happy_path.is_some() || !f.edge_cases.is_empty())
        .filter_map(|(flow, every_edge_case)| {
            let flow = &flow;
            let endpoint =
                endpoints.iter().find(|e| flow.agents.iter().any(|a| Some(a.id) == e.agent_id)).or(endpoints.first())?;
            Some(template(flow, every_edge_case, endpoint, &metrics))
        })
        .collect())
}

/// The flow with only the variants that run as they are, and whether every edge case does.
fn runnable_part(mut flow: CustomerFlow) -> (CustomerFlow, bool) {
    // What runs on any service: no values only the user has, no improvising without steps.
    let runs = |variant: &FlowVariant| {
        placeholders::runs_as_is(&flow, variant) && !super::start::needs_caller_model(&flow, variant)
    };
    let happy_path = flow.happy_path.clone().filter(|v| runs(v));
    let edge_cases: Vec<FlowVariant> = flow.edge_cases.iter().filter(|v| runs(v)).cloned().collect();
    let every_edge_case = edge_cases.len() == flow.edge_cases.len();
    flow.happy_path = happy_path;
    flow.edge_cases = edge_cases;
    (flow, every_edge_case)
}

fn template(
    flow: &CustomerFlow,
    every_edge_case: bool,
    endpoint: &AgentEndpoint,
    metrics: &[MetricDefinition],
) -> RunPlanTemplate {
    let flow_title = flow.title.clone().unwrap_or_default();
    let title = format!("{flow_title} regression");
    let reference = |d: &MetricDefinition| TemplateMetric { id: d.id, slug: d.slug.clone().unwrap_or_default() };
    let plan = RunPlanInput {
        name: Some(title.clone()),
        direction: Some(Direction::Inbound),
        max_simulation_duration_seconds: Some(MAX_DURATION_SECONDS),
        flows: Some(vec![FlowSelection {
            id: Some(flow.id),
            happy_path: Some(flow.happy_path.is_some()),
            edge_cases: match (flow.edge_cases.is_empty(), every_edge_case) {
                (true, _) => None,
                (false, true) => Some(EdgeCases::All),
                (false, false) => Some(EdgeCases::List(
                    flow.edge_cases
                        .iter()
                        .map(|e| EdgeCaseSelection { id: Some(e.id), ..Default::default() })
                        .collect(),
                )),
            },
            ..Default::default()
        }]),
        agent_endpoints: Some(vec![IdRef { id: endpoint.id }]),
        metrics: Some(METRICS.iter().map(|slug| MetricReference::by_slug(*slug)).collect()),
        ..Default::default()
    };
    RunPlanTemplate {
        id: Some(Uuid::new_v5(&flow.id, b"template")),
        slug: Some(format!("{}-regression", kebab(flow.slug.as_deref().unwrap_or(&flow_title)))),
        title: Some(title.clone()),
        name: Some(title),
        description: Some(format!(
            "Runs {} of \"{flow_title}\" against the flow's agent and measures {}.",
            match (flow.happy_path.is_some(), flow.edge_cases.len()) {
                (true, 0) => "the happy path".to_owned(),
                (true, n) => format!("the happy path and all {n} edge cases"),
                (false, n) => format!("all {n} edge cases"),
            },
            METRICS.join(" and ")
        )),
        category: Some("regression".into()),
        flows: vec![TemplateFlow {
            id: flow.id,
            slug: flow.slug.clone(),
            title: flow_title,
            happy_path: flow.happy_path.as_ref().map(|v| TemplateVariant {
                id: None,
                slug: None,
                title: v.title.clone().unwrap_or_default(),
            }),
            edge_cases: flow
                .edge_cases
                .iter()
                .map(|v| TemplateVariant { id: Some(v.id), slug: None, title: v.title.clone().unwrap_or_default() })
                .collect(),
        }],
        metrics: metrics.iter().map(reference).collect(),
        thresholds: metrics.iter().filter(|d| d.is_check()).map(reference).collect(),
        include_flow_metrics: Some(true),
        default_end_call_reasons: Vec::new(),
        default_max_simulation_duration_seconds: Some(MAX_DURATION_SECONDS),
        sweep: None,
        plan: Some(plan),
    }
}

/// `Reschedule a cleaning` → `reschedule-a-cleaning`.
fn kebab(text: &str) -> String {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::service::error::DomainError;
    use crate::service::store::{Doc, Store, StoreError, StoreResult};

    /// A store holding one metric definition stored as `definition`.
    fn store_with(definition: serde_json::Value) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e:?}"));
        let store = Store::open_sqlite(&dir.path().join("t.db")).unwrap_or_else(|e| panic!("{e:?}"));
        let id = "00000000-0000-4000-8000-000000000003";
        store
            .write_blocking(|tx| -> StoreResult<()> {
                store::insert(tx, &Doc::new(Kind::MetricDefinition, id, &definition, "2026-01-01T00:00:00Z")?)
            })
            .unwrap_or_else(|e| panic!("{e:?}"));
        (dir, store)
    }

    #[test]
    fn a_template_metric_the_store_cannot_read_fails_the_list() {
        let id = "00000000-0000-4000-8000-000000000003";
        let (_dir, store) = store_with(json!({ "id": id, "slug": "call_duration", "name": "Call duration" }));
        let found = store.read_blocking(|c| definitions::find(c, "call_duration"));
        assert!(matches!(found, Ok(Some(_))), "{found:?}");
        assert!(matches!(store.read_blocking(|c| definitions::find(c, "none_such")), Ok(None)));

        let (_dir, store) = store_with(json!({ "id": id, "slug": "call_duration", "name": 17 }));
        let listed = store.read_blocking(all);
        assert!(matches!(listed, Err(DomainError::Store(StoreError::Backend(_)))), "{listed:?}");
    }
}
