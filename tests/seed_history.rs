//! The seeded world's history: the nightly plan's last three runs, replayed when a service
//! with `seed_history` starts. Each is a finished, judged job dated on its night; the two older
//! pass, and the newest (the reference agent as a build that ignores a keypad choice of
//! another time) fails task completion on the three "presses 2" simulations. The console's
//! jobs list shows the same verdicts.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

#[path = "console/harness.rs"]
mod harness;

use std::collections::BTreeSet;
use std::time::Duration;

use harness::Harness;
use support::{Service, eventually, seeded, start_with};
use switchboard::api::ListQuery;
use switchboard::api::model::*;

const PLAN: &str = "Brightsmile reschedule regression";
const PRESSES_2: &str = "Caller presses 2 to choose another time";
const NIGHTS: [&str; 3] = ["2026-10-28", "2026-10-29", "2026-10-30"];

async fn service_with_history() -> Service {
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options { seed_history: true, ..support::options(dir.path(), true) };
    start_with(options, dir).await
}

/// The seeded plan's jobs, oldest first, once every one of them has ended.
async fn finished_history(service: &Service) -> Vec<RunPlanJob> {
    let plan: uuid::Uuid = seeded("run_plans", |p| p["name"] == PLAN)[0]["id"].as_str().unwrap().parse().unwrap();
    let listed = eventually(Duration::from_secs(120), || async {
        let listed: Vec<RunPlanJob> = futures_util::TryStreamExt::try_collect(
            service.client.list_all("/v1/simulation/plan/jobs", ListQuery::default()),
        )
        .await
        .unwrap();
        let mut jobs: Vec<RunPlanJob> = listed.into_iter().filter(|j| j.simulation_run_plan_id == Some(plan)).collect();
        jobs.sort_by_key(|j| j.created_at.as_ref().and_then(Timestamp::parse));
        let ended = jobs.iter().all(|j| j.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal));
        (!jobs.is_empty() && ended).then_some(jobs)
    })
    .await;
    // The list leaves out the simulations; each job in full carries them.
    let mut full = Vec::new();
    for job in listed {
        full.push(service.client.get_run_plan_job(job.simulation_run_plan_job_id).await.unwrap());
    }
    full
}

/// The UTC day of a timestamp, as `YYYY-MM-DD`.
fn day(at: Option<&Timestamp>) -> String {
    at.and_then(Timestamp::parse).map(|t| t.to_string()).unwrap_or_default().chars().take(10).collect()
}

fn ms_between(from: Option<&Timestamp>, to: Option<&Timestamp>) -> i64 {
    let (from, to) = (from.and_then(Timestamp::parse).unwrap(), to.and_then(Timestamp::parse).unwrap());
    to.as_millisecond() - from.as_millisecond()
}

/// Each night reads as a paced run would: its calls last as long as their transcripts, each
/// simulation holds its call and its scoring, and the job takes minutes from its night's start.
async fn plausible_times(service: &Service, history: &[RunPlanJob]) {
    for job in history {
        let night = day(job.created_at.as_ref());
        assert_eq!(job.started_at, job.created_at, "{night}: started when it was scheduled");
        let took = ms_between(job.started_at.as_ref(), job.ended_at.as_ref());
        assert!((120_000..1_800_000).contains(&took), "{night}: a job of minutes, not {took} ms");
        for sim in &job.simulation_jobs {
            let call = service.client.get_call(sim.call_id.unwrap()).await.unwrap();
            let transcript = service.client.call_transcript(call.id).await.unwrap();
            let spoken = transcript.entries.iter().map(|e| e.end_offset_ms).max().unwrap();
            let length = call.duration_ms.unwrap();
            assert!(length >= spoken && length >= 10_000, "{night}: a call of {length} ms, its transcript {spoken} ms");
            assert_eq!(call.started_at, sim.started_at, "{night}: the call starts with its simulation");
            assert_eq!(ms_between(call.started_at.as_ref(), call.ended_at.as_ref()), length, "{night}");
            let held = ms_between(sim.started_at.as_ref(), sim.completed_at.as_ref());
            assert!(held > length, "{night}: simulation held {held} ms for a call of {length} ms");
            assert!(ms_between(job.started_at.as_ref(), sim.started_at.as_ref()) > 0, "{night}: after its job started");
            assert!(ms_between(sim.completed_at.as_ref(), job.ended_at.as_ref()) > 0, "{night}: before its job ended");
        }
    }
}

/// Each caller gives the name their persona holds (the plan pins one only for the persona that
/// has none): Harold Jennings never says he is Dana Whitfield.
async fn callers_say_their_own_names(service: &Service, history: &[RunPlanJob]) {
    const NAMES: [&str; 2] = ["Dana Whitfield", "Harold Jennings"];
    let mut heard = BTreeSet::new();
    for sim in history.iter().flat_map(|j| &j.simulation_jobs) {
        let persona = sim.persona.as_ref().unwrap();
        let own = persona.fields.properties.as_ref().and_then(|p| p.get("patientName")).and_then(|n| n.as_str());
        let transcript = service.client.call_transcript(sim.call_id.unwrap()).await.unwrap();
        let said: String = transcript
            .entries
            .iter()
            .filter(|e| e.role == Some(ParticipantType::Customer))
            .map(|e| format!("{}\n", e.text))
            .collect();
        let expected = own.unwrap_or("Dana Whitfield"); // the name the plan gives a nameless persona
        for name in NAMES.into_iter().filter(|n| said.contains(n)) {
            assert_eq!(name, expected, "{} says:\n{said}", persona.label());
            heard.insert((persona.label(), name));
        }
    }
    let heard: Vec<_> = heard.into_iter().map(|(persona, name)| format!("{persona}: {name}")).collect();
    assert_eq!(
        heard,
        ["Dana Whitfield: Dana Whitfield", "Harold Jennings: Harold Jennings"],
        "each patient gives their name"
    );
}

/// The places in the run (`placement`) of the simulations that did not pass: the same place
/// is the same test case and iteration on every night.
fn failing_iterations(job: &RunPlanJob) -> BTreeSet<u64> {
    job.simulation_jobs
        .iter()
        .filter(|s| s.outcome != Some(SimulationOutcome::Passed))
        .map(|s| s.place_in_run())
        .collect()
}

/// The "presses 2" variant's own expectation's value on a simulation's call.
async fn own_expectation(service: &Service, sim: &SimulationJob) -> MetricValue {
    const PROMPT: &str = "\"After the caller presses 2, the agent offers at least one new slot";
    let groups = service.client.call_metrics(sim.call_id.unwrap(), ValueStatusFilter::All).await.unwrap();
    let group = groups.iter().find(|g| g.slug.as_deref() == Some("agent_expectations")).unwrap();
    let own = group.values.iter().find(|v| v.value_reasoning.as_deref().is_some_and(|r| r.contains(PROMPT)));
    own.cloned().unwrap_or_else(|| panic!("the variant's expectation is judged: {:#?}", group.values))
}

/// A first start returns once the history has ended: a newcomer never sees last month's night
/// PENDING or running.
#[tokio::test]
async fn a_first_start_shows_the_history_already_ended() {
    let service = service_with_history().await;
    let jobs: Vec<RunPlanJob> = futures_util::TryStreamExt::try_collect(
        service.client.list_all("/v1/simulation/plan/jobs", ListQuery::default()),
    )
    .await
    .unwrap();
    assert_eq!(jobs.len(), 3, "{jobs:#?}");
    for job in &jobs {
        assert_eq!(job.status, Some(RunPlanJobStatus::Completed), "{:?}", job.created_at);
    }
}

#[tokio::test]
async fn the_nightly_history_holds_three_judged_nights_the_newest_with_a_regression() {
    let service = service_with_history().await;
    let history = finished_history(&service).await;
    assert_eq!(history.len(), 3, "three nights: {history:#?}");

    for (job, night) in history.iter().zip(NIGHTS) {
        assert_eq!(job.status, Some(RunPlanJobStatus::Completed), "{night}: {:?}", job.error_message);
        assert_eq!(day(job.created_at.as_ref()), night);
        assert_eq!(job.simulation_jobs.len(), 9, "{night}");
        for sim in &job.simulation_jobs {
            assert_eq!(sim.status, Some(SimulationJobStatus::Completed), "{night}");
            assert_eq!(day(sim.started_at.as_ref()), night, "started on its night");
            assert_eq!(day(sim.completed_at.as_ref()), night, "completed on its night");
            assert!(sim.outcome.is_some(), "{night}: judged");
        }
        assert!(job.verdict.is_some(), "{night}: a verdict");
    }

    let (older, newest) = (&history[..2], &history[2]);
    for job in older {
        let verdict = job.verdict.as_ref().unwrap();
        assert!(verdict.passed && verdict.failures.is_empty(), "{}: {verdict:#?}", day(job.created_at.as_ref()));
        assert!(!failing_iterations(job).is_empty(), "a passing night still shows a failure or two");
    }
    assert_eq!(failing_iterations(&older[0]), failing_iterations(&older[1]), "the same build, the same calls");

    // The newest night fails on task completion, because of the presses-2 edge case.
    let verdict = newest.verdict.as_ref().unwrap();
    assert!(!verdict.passed, "{verdict:#?}");
    let task_completion = seeded("metric_definitions", |d| d["slug"] == "task_completion")[0]["id"].clone();
    let below = verdict.failures.iter().find_map(|f| match f {
        VerdictFailure::MetricBelowMinPassRate { metric_definition_id, pass_rate, min_pass_rate, .. }
            if metric_definition_id.to_string() == task_completion.as_str().unwrap() =>
        {
            Some((*pass_rate, *min_pass_rate))
        }
        _ => None,
    });
    let (rate, bar) = below.unwrap_or_else(|| panic!("task completion below its bar: {verdict:#?}"));
    assert!(rate < bar, "{rate} < {bar}");
    let presses_2: BTreeSet<u64> = newest
        .simulation_jobs
        .iter()
        .filter(|s| s.customer_flow.as_ref().and_then(|f| f.variant_title.as_deref()) == Some(PRESSES_2))
        .map(|s| s.place_in_run())
        .collect();
    assert_eq!(presses_2.len(), 3);
    let expected: BTreeSet<u64> = presses_2.union(&failing_iterations(&older[1])).copied().collect();
    assert_eq!(failing_iterations(newest), expected, "the regression and whatever the older nights fail");
    for sim in newest.simulation_jobs.iter().filter(|s| presses_2.contains(&s.place_in_run())) {
        let failed = sim.failed_checks.iter().find(|c| c.metric_definition_id.to_string() == task_completion);
        let why = failed.and_then(|c| c.value_reasoning.clone()).unwrap_or_default();
        assert!(why.contains("can't change it"), "the agent refused the other time: {:#?}", sim.failed_checks);
    }

    // The README's figures for the newest night: the variant's expectation takes agent
    // expectations to 5 of 9 as well.
    let agent_expectations = seeded("metric_definitions", |d| d["slug"] == "agent_expectations")[0]["id"].clone();
    let rates: Vec<(u64, u64)> = verdict
        .checks
        .iter()
        .filter(|c| [&task_completion, &agent_expectations].iter().any(|id| c.metric_definition_id.to_string() == **id))
        .map(|c| (c.passed_sims, c.evaluated_sims))
        .collect();
    assert_eq!(rates, [(5, 9), (5, 9)], "{verdict:#?}");
    assert_eq!(verdict.score.map(f64::round), Some(75.0), "{verdict:#?}");

    // The variant's own expectation is judged on every night: met by the current build, not met
    // by the one that keeps the original time (it offers nothing after the press of 2).
    for (job, met) in [(&older[1], true), (newest, false)] {
        for sim in job.simulation_jobs.iter().filter(|s| presses_2.contains(&s.place_in_run())) {
            let own = own_expectation(&service, sim).await;
            assert_eq!((own.capture_status.clone(), own.value), (Some(CaptureStatus::Success), Some(f64::from(met))));
            let why = own.value_reasoning.unwrap_or_default();
            assert!(why.contains(if met { ": Met:" } else { ": Not met:" }), "{why}");
        }
    }

    plausible_times(&service, &history).await;
    callers_say_their_own_names(&service, &history).await;

    // The console's jobs list: PASSED, PASSED, FAILED, newest first on screen.
    let mut h = Harness::on(service, None).await;
    h.key("2").await;
    let screen = h.render(160, 48);
    let words: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains(PLAN))
        .filter_map(|l| ["PASSED", "FAILED"].into_iter().find(|w| l.contains(w)))
        .collect();
    assert_eq!(words, ["FAILED", "PASSED", "PASSED"], "newest first:\n{screen}");
}
