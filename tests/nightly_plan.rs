//! The seeded nightly plan ("Brightsmile reschedule regression": the dental flow's happy path
//! and both edge cases, three iterations each, against the reference agent), run as seeded
//! through the real service: most simulations pass each boolean check, a few fail, and every
//! failure's reasoning names the reference agent's flaw (or the flow's) that caused it.
//!
//! Not a flake risk: the reference agent's flaws are rolled from a key made of the variant,
//! persona and iteration (not the simulation's random id), so the plan gives the same
//! conversations, and the same values, every time it runs (the test runs it twice to show
//! it). NIGHTLY_SHOW=1 prints every transcript, to see the demo.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use support::{Service, eventually, id_of, seeded, start};
use switchboard::api::model::*;

/// What a false value's reasoning must say: each boolean check's known causes of failure.
fn explains(slug: &str, reasoning: &str) -> bool {
    let names = |causes: &[&str]| causes.iter().any(|c| reasoning.contains(c));
    match slug {
        // The flow's "unsure of the date of birth" edge case never reaches the keypad step.
        "keypad_entry" => names(&["none was made"]),
        // The save failure after "you're all set", or a missed request.
        "task_completion" => {
            names(&["but then", "no agent line says it was done", "never answered"]) && reasoning.contains(" s")
        }
        // The agent checks a date of birth but never that a name was given; or it gives in
        // under pressure and reads the appointment out first.
        "identity_verified_before_phi" => names(&["had not been given", "before the caller was verified"]),
        "agent_expectations" => names(&[
            "had not been given",
            "before the caller was verified",
            "24-hour cancellation policy",
            "has no",
            "but then",
        ]),
        _ => false,
    }
}

async fn run(service: &Service, plan: uuid::Uuid) -> RunPlanJob {
    let started = service.client.run(&RunRequest { plan_id: Some(plan), ..Default::default() }).await.unwrap();
    let job = eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(started.simulation_run_plan_job_id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await;
    assert_eq!(job.status, Some(RunPlanJobStatus::Completed), "{:?}", job.error_message);
    job
}

/// Each simulation's judged values and reasons, by iteration.
async fn values_by_iteration(service: &Service, job: &RunPlanJob) -> BTreeMap<u64, Vec<(String, Option<f64>, String)>> {
    const JUDGED: [&str; 3] = ["task_completion", "identity_verified_before_phi", "agent_expectations"];
    let mut out = BTreeMap::new();
    for sim in &job.simulation_jobs {
        let groups = service.client.call_metrics(sim.call_id.unwrap(), ValueStatusFilter::All).await.unwrap();
        let mut values: Vec<(String, Option<f64>, String)> = groups
            .iter()
            .filter(|g| g.slug.as_deref().is_some_and(|s| JUDGED.contains(&s)))
            .flat_map(|g| {
                g.values.iter().map(|v| {
                    (g.slug.clone().unwrap_or_default(), v.value, v.value_reasoning.clone().unwrap_or_default())
                })
            })
            .collect();
        values.sort_by(|a, b| a.0.cmp(&b.0).then(a.2.cmp(&b.2)));
        out.insert(sim.iteration.unwrap(), values);
    }
    out
}

#[tokio::test]
async fn the_seeded_nightly_plan_passes_mostly_and_its_failures_are_explained() {
    let service = start(true).await;
    let plan = seeded("run_plans", |p| p["name"] == "Brightsmile reschedule regression").remove(0);
    let job = run(&service, id_of(&plan)).await;
    assert_eq!(job.simulation_jobs.len(), 9, "three variants, three iterations each");

    let jobs: Vec<CollectionJob> =
        futures_util::TryStreamExt::try_collect(service.client.collection_jobs(None, None)).await.unwrap();
    let collection = jobs.iter().find(|j| j.triggered_by == Some(TriggeredBy::Simulation)).expect("the run's job");
    let collection = eventually(Duration::from_secs(60), || async {
        let jobs: Vec<CollectionJob> =
            futures_util::TryStreamExt::try_collect(service.client.collection_jobs(None, None)).await.unwrap();
        jobs.into_iter().find(|j| j.id == collection.id && j.status == Some(CollectionJobStatus::Completed))
    })
    .await;
    let groups = service.client.collection_job_values(collection.id, ValueStatusFilter::All).await.unwrap();

    let flow = seeded("customer_flows", |f| f["id"] == plan["flows"][0]["id"]).remove(0);
    let title_of = |sim: &SimulationJob| {
        let variant = sim.customer_flow.as_ref().and_then(|f| f.variant_id).map(|v| v.to_string());
        let variants = std::iter::once(&flow["happyPath"]).chain(flow["edgeCases"].as_array().unwrap());
        variants
            .filter(|v| Some(v["id"].as_str().unwrap().to_owned()) == variant)
            .map(|v| v["title"].as_str().unwrap().to_owned())
            .next()
            .unwrap_or_default()
    };
    let variant_of: BTreeMap<uuid::Uuid, String> =
        job.simulation_jobs.iter().map(|s| (s.call_id.unwrap(), title_of(s))).collect();

    let mut report = Vec::new();
    let mut falses = 0;
    for slug in ["task_completion", "identity_verified_before_phi", "agent_expectations", "keypad_entry"] {
        let group = groups.iter().find(|g| g.slug.as_deref() == Some(slug)).unwrap_or_else(|| panic!("{slug}"));
        // A simulation passes a check when all its applicable values are true (expectations
        // give one value each), and fails it when any is false.
        let mut by_call: BTreeMap<uuid::Uuid, Vec<&MetricValue>> = BTreeMap::new();
        for value in &group.values {
            by_call.entry(value.call_id.expect("a call's value")).or_default().push(value);
        }
        let passed = by_call
            .values()
            .filter(|vs| vs.iter().all(|v| v.value != Some(0.0)) && vs.iter().any(|v| v.value == Some(1.0)))
            .count();
        report.push(format!("{slug}: {passed} of {} simulations pass", by_call.len()));
        for (call, values) in &by_call {
            for value in values {
                let why = value.value_reasoning.clone().or(value.error_message.clone()).unwrap_or_default();
                report.push(format!("  [{:?} {:?}] {}: {why}", value.capture_status, value.value, variant_of[call]));
            }
        }
        assert_eq!(by_call.len(), 9, "{slug}: values for every simulation");
        assert!(passed * 2 >= by_call.len(), "{slug}: at least half pass\n{}", report.join("\n"));
        for value in group.values.iter().filter(|v| v.value == Some(0.0)) {
            falses += 1;
            let why = value.value_reasoning.as_deref().unwrap_or_default();
            assert!(explains(slug, why), "{slug}: a false value names its reason: {why}\n{}", report.join("\n"));
        }
    }
    println!("{}", report.join("\n"));
    // Run again: the same variant and iteration give the same values, reasons and all.
    let again = run(&service, id_of(&plan)).await;
    let (first, second) = (values_by_iteration(&service, &job).await, values_by_iteration(&service, &again).await);
    assert!(first.len() == 9 && first.values().all(|v| v.len() == 5), "five judged values a simulation: {first:?}");
    assert_eq!(first, second);
    if std::env::var_os("NIGHTLY_SHOW").is_some() {
        for sim in &job.simulation_jobs {
            let t = service.client.call_transcript(sim.call_id.unwrap()).await.unwrap();
            let call = service.client.get_call(sim.call_id.unwrap()).await.unwrap();
            println!("== {} ({:?}, {:?})", title_of(sim), call.ended_status, call.end_reason);
            for e in &t.entries {
                println!("  {:6} {:?}: {}", e.start_offset_ms, e.role, e.text);
            }
        }
    }
    assert!(falses >= 1, "the demo shows failures too\n{}", report.join("\n"));
}
