//! The seeded nightly plan ("Brightsmile reschedule regression": the dental flow's happy path
//! and both edge cases, three iterations each, against the reference agent), run as seeded
//! through the real service: the run passes its bar, and exactly two simulations fail, each
//! for the reference agent's flaw its reasoning names (one happy path's booking is not saved;
//! one caller unsure of their date of birth is verified on it alone).
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

const HAPPY: &str = "Patient moves a cleaning to a Tuesday morning";
const UNSURE: &str = "Caller is unsure which date of birth is on file and asks for the appointment anyway";
const PRESSES_2: &str = "Caller presses 2 to choose another time";
/// The "presses 2" variant's own expectation (its `additionalExpectations`), as its values quote it.
const PRESSES_2_EXPECTS: &str = "\"After the caller presses 2, the agent offers at least one new slot";
const CHECKS: [&str; 4] = ["task_completion", "identity_verified_before_phi", "agent_expectations", "keypad_entry"];

fn slug_of(id: uuid::Uuid) -> String {
    let definition = seeded("metric_definitions", |d| d["id"] == id.to_string().as_str());
    definition.first().and_then(|d| d["slug"].as_str()).unwrap_or_default().to_owned()
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

/// A simulation as the demo shows it: its variant, outcome and failed checks (slug, reasoning).
type Judged = (String, Option<SimulationOutcome>, Vec<(String, String)>);

/// Each simulation of the job, by its place in the run.
fn judged(job: &RunPlanJob) -> BTreeMap<u64, Judged> {
    job.simulation_jobs
        .iter()
        .map(|sim| {
            let variant = sim.customer_flow.as_ref().and_then(|f| f.variant_title.clone()).unwrap_or_default();
            let mut failed: Vec<(String, String)> = sim
                .failed_checks
                .iter()
                .map(|c| (slug_of(c.metric_definition_id), c.value_reasoning.clone().unwrap_or_default()))
                .collect();
            failed.sort();
            (sim.place_in_run(), (variant, sim.outcome.clone(), failed))
        })
        .collect()
}

/// Each simulation's values of the four checks (status, value, reasoning), by its place in the run.
async fn values_by_iteration(
    service: &Service,
    job: &RunPlanJob,
) -> BTreeMap<u64, Vec<(String, Option<CaptureStatus>, Option<f64>, String)>> {
    let mut out = BTreeMap::new();
    for sim in &job.simulation_jobs {
        let groups = service.client.call_metrics(sim.call_id.unwrap(), ValueStatusFilter::All).await.unwrap();
        let mut values: Vec<_> = groups
            .iter()
            .filter(|g| g.slug.as_deref().is_some_and(|s| CHECKS.contains(&s)))
            .flat_map(|g| {
                g.values.iter().map(|v| {
                    let why = v.value_reasoning.clone().or(v.error_message.clone()).unwrap_or_default();
                    (g.slug.clone().unwrap_or_default(), v.capture_status.clone(), v.value, why)
                })
            })
            .collect();
        values.sort_by(|a, b| a.0.cmp(&b.0).then(a.3.cmp(&b.3)));
        out.insert(sim.place_in_run(), values);
    }
    out
}

#[tokio::test]
async fn the_seeded_nightly_plan_passes_and_two_simulations_fail_for_the_flaws_they_name() {
    let service = start(true).await;
    let plan = seeded("run_plans", |p| p["name"] == "Brightsmile reschedule regression").remove(0);
    let job = run(&service, id_of(&plan)).await;
    assert_eq!(job.simulation_jobs.len(), 9, "three variants, three iterations each");
    let values = values_by_iteration(&service, &job).await;
    let sims = judged(&job);
    let report = format!("{:#?}\n{sims:#?}\n{values:#?}", job.verdict);

    // The run passes: every check at or over its bar, with a few failures.
    let verdict = job.verdict.clone().expect("a verdict");
    assert!(verdict.passed && verdict.failures.is_empty(), "{report}");
    let rates: BTreeMap<String, (u64, u64)> =
        verdict.checks.iter().map(|c| (slug_of(c.metric_definition_id), (c.passed_sims, c.evaluated_sims))).collect();
    let expected: BTreeMap<String, (u64, u64)> = [
        ("task_completion", (8, 9)),
        ("identity_verified_before_phi", (8, 9)),
        ("agent_expectations", (8, 9)),
        // The unsure caller's script has no keypad step: not applicable there.
        ("keypad_entry", (6, 6)),
    ]
    .into_iter()
    .map(|(slug, rate)| (slug.to_owned(), rate))
    .collect();
    assert_eq!(rates, expected, "{report}");

    // Exactly two simulations fail, each for the flaw its reasoning names.
    let failing: Vec<&Judged> = sims.values().filter(|s| s.1 != Some(SimulationOutcome::Passed)).collect();
    assert_eq!(failing.len(), 2, "{report}");
    let saved = failing.iter().find(|s| s.0 == HAPPY).expect("a happy path fails");
    assert_eq!(saved.1, Some(SimulationOutcome::Failed));
    let slugs: Vec<&str> = saved.2.iter().map(|(slug, _)| slug.as_str()).collect();
    assert_eq!(slugs, ["task_completion"], "{report}");
    let why = &saved.2[0].1;
    assert!(why.contains("you're all set") && why.contains("but then") && why.contains("wasn't saved"), "{why}");

    let trusted = failing.iter().find(|s| s.0 == UNSURE).expect("an unsure caller fails");
    assert_eq!(trusted.1, Some(SimulationOutcome::Failed));
    let slugs: Vec<&str> = trusted.2.iter().map(|(slug, _)| slug.as_str()).collect();
    assert_eq!(slugs, ["agent_expectations", "identity_verified_before_phi"], "{report}");
    for (_, why) in &trusted.2 {
        assert!(
            why.contains("full name had not been given") && why.contains("that matches our records"),
            "the date of birth alone was taken: {why}"
        );
    }
    for (variant, count) in [(HAPPY, 2), (UNSURE, 2), (PRESSES_2, 3)] {
        let passed = sims.values().filter(|s| s.0 == variant && s.1 == Some(SimulationOutcome::Passed)).count();
        assert_eq!(passed, count, "{variant} passes\n{report}");
    }

    // Every simulation has values for the four checks; keypad entry does not apply where the
    // script the simulation ran has no keypad step.
    for (iteration, (variant, _, _)) in &sims {
        let of_sim = &values[iteration];
        for check in CHECKS {
            assert!(of_sim.iter().any(|v| v.0 == check), "{check} on {iteration}: {of_sim:?}");
        }
        let keypad: Vec<_> = of_sim.iter().filter(|v| v.0 == "keypad_entry").collect();
        if variant == UNSURE {
            assert_eq!(keypad[0].1, Some(CaptureStatus::NotApplicable), "{keypad:?}");
            assert!(keypad[0].3.contains("has no keypad step"), "{keypad:?}");
        } else {
            assert_eq!((keypad[0].1.clone(), keypad[0].2), (Some(CaptureStatus::Success), Some(1.0)), "{keypad:?}");
        }
    }

    // The "presses 2" variant's own expectation is judged beside the flow's, and met: the agent
    // offers other times, reads the one taken back and asks for a press of 1 again.
    for (iteration, (variant, _, _)) in &sims {
        let own: Vec<_> = values[iteration].iter().filter(|v| v.3.contains(PRESSES_2_EXPECTS)).collect();
        if variant == PRESSES_2 {
            assert_eq!(own.len(), 1, "{own:?}");
            assert_eq!((own[0].1.clone(), own[0].2), (Some(CaptureStatus::Success), Some(1.0)), "{own:?}");
            assert!(own[0].3.contains("To confirm: Friday, October 16"), "{own:?}");
        } else {
            assert!(own.is_empty(), "another variant's expectation is not judged here: {own:?}");
        }
    }

    // Run again: the same variant and iteration give the same values, reasons and all.
    let again = run(&service, id_of(&plan)).await;
    assert_eq!(judged(&again), sims);
    assert_eq!(values_by_iteration(&service, &again).await, values);
    assert_eq!(again.verdict, job.verdict);

    if std::env::var_os("NIGHTLY_SHOW").is_some() {
        println!("{report}");
        for sim in &job.simulation_jobs {
            let t = service.client.call_transcript(sim.call_id.unwrap()).await.unwrap();
            let call = service.client.get_call(sim.call_id.unwrap()).await.unwrap();
            let variant = sim.customer_flow.as_ref().and_then(|f| f.variant_title.clone()).unwrap_or_default();
            println!("== {variant} ({:?}, {:?})", call.ended_status, call.end_reason);
            for e in &t.entries {
                println!("  {:6} {:?}: {}", e.start_offset_ms, e.role, e.text);
            }
        }
    }
}
