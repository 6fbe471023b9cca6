//! A run as wide as the seeded world allows: every test case of the seeded flows but the
//! voicemail one (ten), on one endpoint, `simulations / 10` iterations each. Shared by the
//! tests and the benchmarks that run thousands of simulations.

use futures_util::TryStreamExt;
use switchboard::api::Client;
use switchboard::api::model::*;

/// The plan of about `simulations` simulations, scoring `metrics` (slugs).
pub async fn wide_plan(
    client: &Client,
    name: &str,
    simulations: u64,
    max_concurrent: i64,
    metrics: &[&str],
) -> RunPlanInput {
    let flows: Vec<CustomerFlow> =
        client.list_all("/v1/customer-flow", Default::default()).try_collect().await.unwrap();
    let flows: Vec<&CustomerFlow> =
        flows.iter().filter(|f| f.flow_type != Some(FlowType::Voicemail) && f.happy_path.is_some()).collect();
    let test_cases: u64 = flows.iter().map(|f| 1 + f.edge_cases.len() as u64).sum();
    assert_eq!(test_cases, 10, "the seeded flows' test cases changed");
    let endpoints: Vec<AgentEndpoint> =
        client.list_all("/v1/agent/endpoint", Default::default()).try_collect().await.unwrap();
    let endpoint = endpoints.iter().find(|e| e.outbound_dial_type != Some(OutboundDialType::HttpRequest)).unwrap();
    RunPlanInput {
        name: Some(name.to_owned()),
        direction: Some(Direction::Inbound),
        iteration_count: Some((simulations / test_cases) as i64),
        max_concurrent_jobs: Some(max_concurrent),
        max_simulation_duration_seconds: Some(600),
        flows: Some(
            flows
                .iter()
                .map(|f| FlowSelection {
                    id: Some(f.id),
                    happy_path: Some(true),
                    edge_cases: Some(EdgeCases::All),
                    variables: Some(values_for(f)),
                    ..Default::default()
                })
                .collect(),
        ),
        agent_endpoints: Some(vec![IdRef { id: endpoint.id }]),
        metrics: Some(metrics.iter().map(|slug| MetricReference::by_slug(*slug)).collect()),
        ..Default::default()
    }
}

/// What a flow's lines need that its personas do not give: the basic reschedule flow's caller's
/// name and verification detail.
fn values_for(flow: &CustomerFlow) -> Variables {
    match flow.slug.as_deref() {
        Some("appointment-reschedule-basic") => [("customerName", "Sam Rivera"), ("verificationDetail", "May 2, 1990")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
        _ => Variables::new(),
    }
}
