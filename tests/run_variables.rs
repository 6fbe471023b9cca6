//! `{{name}}` in a flow's lines is filled from the flow selection's variables however the flow
//! was chosen: by id or by slug (a selection by slug lost them, and the caller said "My name is
//! {{customerName}}").
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::time::Duration;

use support::{eventually, id_of, seeded, start};
use switchboard::api::model::*;

#[tokio::test]
async fn a_flow_chosen_by_slug_speaks_its_selections_variables() {
    let service = start(true).await;
    let endpoint = id_of(&seeded("agent_endpoints", |_| true)[0]);
    let plan: RunPlanInput = serde_json::from_value(serde_json::json!({
        "name": "By slug",
        "direction": "INBOUND",
        "maxSimulationDurationSeconds": 300,
        "agentEndpoints": [{"id": endpoint}],
        "flows": [{
            "slug": "appointment-reschedule-basic",
            "happyPath": true,
            "variables": {"customerName": "Sam Tester", "verificationDetail": "May 2, 1990"}
        }],
        "metrics": [{"slug": "call_duration"}],
    }))
    .unwrap();
    let started = service.client.run(&RunRequest { plan: Some(plan), ..Default::default() }).await.unwrap();
    let job = eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(started.simulation_run_plan_job_id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await;
    let simulation = &job.simulation_jobs[0];
    let kept = &simulation.run_plan.as_ref().unwrap().variables;
    assert_eq!(kept.get("customerName").map(String::as_str), Some("Sam Tester"), "{kept:?}");
    let transcript = service.client.call_transcript(simulation.call_id.unwrap()).await.unwrap();
    let caller: Vec<&str> = transcript
        .entries
        .iter()
        .filter(|e| e.role == Some(ParticipantType::Customer))
        .map(|e| e.text.as_str())
        .collect();
    assert!(caller.iter().any(|line| line.contains("Sam Tester")), "{caller:#?}");
    assert!(caller.iter().all(|line| !line.contains("{{")), "every placeholder filled: {caller:#?}");
}
