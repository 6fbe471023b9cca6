//! Plans really run on the local service: simulations, calls, transcripts and metrics.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

mod support;

use std::time::Duration;

use support::{Service, dental, eventually, id_of, seeded, start, start_with};
use switchboard::api::model::*;
use switchboard::service::SimSpeed;

fn plan(flow: &serde_json::Value, endpoint: &serde_json::Value, iterations: i64) -> RunPlanInput {
    RunPlanInput {
        name: Some("Engine test".into()),
        direction: Some(Direction::Inbound),
        iteration_count: Some(iterations),
        max_simulation_duration_seconds: Some(600),
        flows: Some(vec![FlowSelection {
            id: Some(id_of(flow)),
            happy_path: Some(true),
            edge_cases: Some(EdgeCases::All),
            ..Default::default()
        }]),
        agent_endpoints: Some(vec![IdRef { id: id_of(endpoint) }]),
        metrics: Some(vec![
            MetricReference::by_slug("call_duration"),
            MetricReference::by_slug("agent_response_latency"),
            MetricReference::by_slug("task_completion"),
        ]),
        ..Default::default()
    }
}

async fn run_to_end(service: &Service, input: RunPlanInput) -> RunPlanJob {
    let started = service.client.run(&RunRequest { plan: Some(input), ..Default::default() }).await.unwrap();
    let id = started.simulation_run_plan_job_id;
    eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await
}

/// The most simulations whose [startedAt, completedAt) intervals overlapped.
fn max_overlap(jobs: &[&SimulationJob]) -> usize {
    let mut edges: Vec<(jiff::Timestamp, i32)> = Vec::new();
    for job in jobs {
        let start = job.started_at.as_ref().and_then(Timestamp::parse).unwrap();
        let end = job.completed_at.as_ref().and_then(Timestamp::parse).unwrap();
        edges.push((start, 1));
        edges.push((end, -1));
    }
    edges.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut now, mut most) = (0, 0);
    for (_, delta) in edges {
        now += delta;
        most = most.max(now);
    }
    most as usize
}

#[tokio::test]
async fn a_plan_runs_to_completed_with_a_call_and_metrics_for_every_simulation() {
    completes_with_a_call_and_metrics_for_every_simulation(start(true).await).await;
}

/// At max speed a simulation's call is written with its end (its phases are not): every
/// simulation still names a call that is there, with its transcript and values.
#[tokio::test]
async fn at_max_speed_every_simulation_still_names_its_stored_call() {
    completes_with_a_call_and_metrics_for_every_simulation(at_max_speed().await).await;
}

async fn at_max_speed() -> Service {
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options { sim_speed: SimSpeed::Max, ..support::options(dir.path(), true) };
    start_with(options, dir).await
}

async fn completes_with_a_call_and_metrics_for_every_simulation(service: Service) {
    let (flow, endpoint) = dental();
    let variants = 1 + flow["edgeCases"].as_array().unwrap().len();
    let job = run_to_end(&service, plan(&flow, &endpoint, 2)).await;
    assert_eq!(job.status, Some(RunPlanJobStatus::Completed), "{:?}", job.error_message);
    assert_eq!(job.simulation_jobs.len(), variants * 2);
    assert!(job.started_at.is_some() && job.ended_at.is_some());
    for simulation in &job.simulation_jobs {
        assert_eq!(simulation.status, Some(SimulationJobStatus::Completed), "{:?}", simulation.error_message);
        assert_eq!(simulation.processing_status, Some(ProcessingStatus::Completed));
        let call_id = simulation.call_id.expect("a call");
        let call = service.client.get_call(call_id).await.unwrap();
        assert_eq!(call.simulation_job_id, Some(simulation.simulation_job_id));
        assert!(call.duration_ms.unwrap() > 0 && call.ended_status.is_some() && call.end_reason.is_some());
        let transcript = service.client.call_transcript(call_id).await.unwrap();
        assert!(transcript.entries.len() >= 4);
        // The simulated caller's lines are CUSTOMER entries; its participant says it is simulated.
        assert!(transcript.entries.iter().any(|e| e.role == Some(ParticipantType::Customer)));
        assert!(transcript.entries.iter().all(|e| e.role != Some(ParticipantType::SimulatedCustomer)));
        assert!(transcript.participants.iter().any(|p| p.participant_type == Some(ParticipantType::SimulatedCustomer)));
        assert_eq!(transcript.transcription_source, Some(TranscriptionSource::SimulationAgentRealtime));
        let metrics = service.client.call_metrics(call_id, ValueStatusFilter::All).await.unwrap();
        for slug in ["call_duration", "agent_response_latency", "task_completion", "agent_expectations", "keypad_entry"]
        {
            let group =
                metrics.iter().find(|g| g.slug.as_deref() == Some(slug)).unwrap_or_else(|| panic!("{slug} missing"));
            assert!(group.values.iter().all(|v| v.capture_status.is_some()));
        }
    }
    // One collection job, triggered by the simulation, holds every value.
    let jobs: Vec<CollectionJob> =
        futures_util::TryStreamExt::try_collect(service.client.collection_jobs(None, None)).await.unwrap();
    let triggered: Vec<_> = jobs.iter().filter(|j| j.triggered_by == Some(TriggeredBy::Simulation)).collect();
    assert_eq!(triggered.len(), 1);
    assert_eq!(triggered[0].status, Some(CollectionJobStatus::Completed));
    assert_eq!(triggered[0].total_items, Some(job.simulation_jobs.len() as u64));
}

#[tokio::test]
async fn parallel_runs_at_most_max_concurrent_jobs_at_once() {
    let service = start(true).await;
    let (flow, endpoint) = dental();
    let mut input = plan(&flow, &endpoint, 3);
    input.max_concurrent_jobs = Some(2);
    let job = run_to_end(&service, input).await;
    let all: Vec<&SimulationJob> = job.simulation_jobs.iter().collect();
    let most = max_overlap(&all);
    assert!(most <= 2, "{most} ran at once");
    assert_eq!(most, 2, "parallel mode does run simulations side by side");
}

#[tokio::test]
async fn sequential_modes_never_overlap() {
    let dir = tempfile::tempdir().unwrap();
    let options =
        switchboard::service::Options { sim_speed: SimSpeed::Factor(300.0), ..support::options(dir.path(), true) };
    let service = start_with(options, dir).await;
    let (flow, endpoint) = dental();
    // Two jobs of one saved plan, SEQUENTIAL_SAME_RUN_PLAN: never two at once across both.
    let mut same = plan(&flow, &endpoint, 2);
    same.execution_mode = Some(ExecutionMode::SequentialSameRunPlan);
    same.max_concurrent_jobs = Some(5);
    let saved = service.client.create_run_plan(&same).await.unwrap().run_plan;
    let a = service.client.run(&RunRequest { plan_id: Some(saved.id), ..Default::default() }).await.unwrap();
    let b = service.client.run(&RunRequest { plan_id: Some(saved.id), ..Default::default() }).await.unwrap();
    let mut sims = Vec::new();
    for id in [a.simulation_run_plan_job_id, b.simulation_run_plan_job_id] {
        let job = eventually(Duration::from_secs(120), || async {
            let job = service.client.get_run_plan_job(id).await.unwrap();
            job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
        })
        .await;
        sims.extend(job.simulation_jobs);
    }
    assert_eq!(max_overlap(&sims.iter().collect::<Vec<_>>()), 1);

    let mut project = plan(&flow, &endpoint, 2);
    project.execution_mode = Some(ExecutionMode::SequentialProject);
    project.max_concurrent_jobs = Some(5);
    let job = run_to_end(&service, project).await;
    assert_eq!(max_overlap(&job.simulation_jobs.iter().collect::<Vec<_>>()), 1);
}

#[tokio::test]
async fn the_http_dialled_agent_is_reached_through_its_request_definition() {
    let service = start(true).await;
    let endpoint = seeded("agent_endpoints", |e| e["outboundDialType"] == "HTTP_REQUEST").remove(0);
    let agent = endpoint["agentId"].as_str().unwrap().to_owned();
    let flow =
        seeded("customer_flows", |f| f["type"] == "SCRIPTED" && f["agents"][0]["id"] == agent.as_str()).remove(0);
    let mut input = plan(&flow, &endpoint, 1);
    input.flows.as_mut().unwrap()[0].edge_cases = None;
    let job = run_to_end(&service, input).await;
    assert_eq!(job.status, Some(RunPlanJobStatus::Completed), "{:?}", job.simulation_jobs[0].error_message);
    let transcript = service.client.call_transcript(job.simulation_jobs[0].call_id.unwrap()).await.unwrap();
    assert!(transcript.entries[0].text.contains("SkyBridge"), "{:?}", transcript.entries[0]);
}

/// A simulation mid-call when the service stops ran in its memory; the next start (on SQLite at
/// once, on PostgreSQL once the stopped one's lease runs out) runs it again from its start, to
/// its end, once.
#[tokio::test]
async fn a_restart_runs_an_interrupted_simulation_again_and_never_leaves_a_job_running() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let lease = Duration::from_secs(2);
    let slow =
        switchboard::service::Options { sim_speed: SimSpeed::Factor(2.0), lease, ..support::options(&path, true) };
    let service = start_with(slow, dir).await;
    let (flow, endpoint) = dental();
    let started =
        service.client.run(&RunRequest { plan: Some(plan(&flow, &endpoint, 1)), ..Default::default() }).await.unwrap();
    let id = started.simulation_run_plan_job_id;
    let interrupted = eventually(Duration::from_secs(30), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        let running: Vec<_> = job
            .simulation_jobs
            .iter()
            .filter(|s| s.status == Some(SimulationJobStatus::Processing))
            .map(|s| s.simulation_job_id)
            .collect();
        (!running.is_empty()).then_some((running, job.simulation_jobs.len()))
    })
    .await;
    let Service { running, dir, .. } = service;
    running.shutdown().await.unwrap();

    let again = start_with(switchboard::service::Options { lease, ..support::options(&path, true) }, dir).await;
    let job = eventually(Duration::from_secs(90), || async {
        let job = again.client.get_run_plan_job(id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await;
    assert_eq!(job.simulation_jobs.len(), interrupted.1, "no simulation was added or lost");
    for simulation in &job.simulation_jobs {
        assert_eq!(simulation.status, Some(SimulationJobStatus::Completed), "{simulation:?}");
        assert!(simulation.call_id.is_some(), "{simulation:?}");
    }
    assert!(interrupted.0.iter().all(|id| job.simulation_jobs.iter().any(|s| s.simulation_job_id == *id)));
    assert_eq!(job.status, Some(RunPlanJobStatus::Completed));
}

#[tokio::test]
async fn a_job_cancelled_before_any_simulation_starts_is_cancelled_at_once() {
    // Simulated time at twice wall time: the first job's calls take tens of seconds, so the
    // second job is certainly still waiting behind it when it is cancelled.
    let dir = tempfile::tempdir().unwrap();
    let slow = switchboard::service::Options { sim_speed: SimSpeed::Factor(2.0), ..support::options(dir.path(), true) };
    let service = start_with(slow, dir).await;
    let (flow, endpoint) = dental();
    // A saved plan's second job waits behind the first under SEQUENTIAL_SAME_RUN_PLAN.
    let mut input = plan(&flow, &endpoint, 2);
    input.execution_mode = Some(ExecutionMode::SequentialSameRunPlan);
    let saved = service.client.create_run_plan(&input).await.unwrap().run_plan;
    let first = service.client.run(&RunRequest { plan_id: Some(saved.id), ..Default::default() }).await.unwrap();
    let second = service.client.run(&RunRequest { plan_id: Some(saved.id), ..Default::default() }).await.unwrap();
    let cancelled = service.client.cancel_run_plan_job(second.simulation_run_plan_job_id).await.unwrap();
    assert_eq!(cancelled.status, Some(RunPlanJobStatus::Cancelled), "nothing was mid-call: cancelled at once");
    // The answer is the job's summary: its counts say every simulation was cancelled.
    let counts = cancelled.counts.clone().expect("the answer counts the simulations");
    assert!(counts.total > 0);
    assert_eq!(counts.by_status.get("CANCELLED"), Some(&counts.total), "{counts:?}");
    assert!(cancelled.ended_at.is_some());
    let first_job = service.client.get_run_plan_job(first.simulation_run_plan_job_id).await.unwrap();
    assert!(!first_job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal), "the first job was still running");
    let id = second.simulation_run_plan_job_id;
    let job = service.client.get_run_plan_job(id).await.unwrap();
    assert_eq!(job.status, Some(RunPlanJobStatus::Cancelled));
    assert!(job.simulation_jobs.iter().all(|s| s.status == Some(SimulationJobStatus::Cancelled)));
    let err = service.client.cancel_run_plan_job(id).await.unwrap_err();
    assert_eq!(err.status(), Some(400), "an ended job cannot be cancelled again");
}

fn live_plan(flow: &serde_json::Value, endpoint: &serde_json::Value) -> RunPlanInput {
    let mut input = plan(flow, endpoint, 1);
    input.flows.as_mut().unwrap()[0].edge_cases = None;
    input.enrich_with_live_conversation = Some(true);
    input.metrics = Some(vec![
        MetricReference::by_slug("call_duration"),
        MetricReference {
            conversation_source: Some(ConversationSource::Live),
            ..MetricReference::by_slug("agent_turn_count")
        },
    ]);
    input
}

async fn live_value(service: &Service, job: &RunPlanJob) -> MetricValue {
    let call = job.simulation_jobs[0].call_id.unwrap();
    let groups = service.client.call_metrics(call, ValueStatusFilter::All).await.unwrap();
    let group =
        groups.iter().find(|g| g.slug.as_deref() == Some("agent_turn_count")).expect("the LIVE metric has a row");
    group.values[0].clone()
}

#[tokio::test]
async fn live_enrichment_scores_live_metrics_on_the_matching_real_call() {
    let service = start(true).await;
    let (flow, endpoint) = dental();
    let started = service
        .client
        .run(&RunRequest { plan: Some(live_plan(&flow, &endpoint)), ..Default::default() })
        .await
        .unwrap();
    let id = started.simulation_run_plan_job_id;
    let number = eventually(Duration::from_secs(30), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        let sim = &job.simulation_jobs[0];
        (sim.status == Some(SimulationJobStatus::Processing))
            .then(|| sim.roark_phone_number.clone().expect("a provisioned number"))
    })
    .await;
    let entry = |start: i64, text: &str, role: ParticipantType| TranscriptEntry {
        start_offset_ms: start,
        end_offset_ms: start + 1500,
        text: text.into(),
        role: Some(role),
        participant_id: None,
    };
    let real = CallInput {
        to_number: Some(number),
        started_at: Some(Timestamp::now()),
        transcript: Some(TranscriptInput::Full(Transcript {
            entries: vec![
                entry(0, "Brightsmile Dental, this is Maya.", ParticipantType::Agent),
                entry(2000, "Hi, I'd like to move my cleaning.", ParticipantType::Customer),
                entry(4000, "Sure, what's your date of birth?", ParticipantType::Agent),
                entry(6000, "March 12, 1984.", ParticipantType::Customer),
                entry(8000, "You're moved to Tuesday at 9.", ParticipantType::Agent),
            ],
            participants: Vec::new(),
            transcription_source: None,
        })),
        ..Default::default()
    };
    let posted = service.client.create_call(&real).await.unwrap();
    let job = eventually(Duration::from_secs(60), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await;
    assert_eq!(job.status, Some(RunPlanJobStatus::Completed));
    let value = live_value(&service, &job).await;
    assert_eq!(value.capture_status, Some(CaptureStatus::Success));
    assert_eq!(value.value, Some(3.0), "three agent turns in the real call");
    assert!(value.value_reasoning.unwrap().contains(&posted.id.to_string()));
}

#[tokio::test]
async fn without_a_real_call_live_metrics_yield_no_value_and_the_simulation_still_completes() {
    completes_without_a_real_call(start(true).await).await;
}

#[tokio::test]
async fn at_max_speed_a_live_enriched_simulation_still_completes() {
    completes_without_a_real_call(at_max_speed().await).await;
}

async fn completes_without_a_real_call(service: Service) {
    let (flow, endpoint) = dental();
    let job = run_to_end(&service, live_plan(&flow, &endpoint)).await;
    assert_eq!(job.status, Some(RunPlanJobStatus::Completed));
    let value = live_value(&service, &job).await;
    assert_eq!(value.capture_status, Some(CaptureStatus::DataMissing));
    assert_eq!(value.value, None);
    let call = job.simulation_jobs[0].call_id.unwrap();
    let groups = service.client.call_metrics(call, ValueStatusFilter::Success).await.unwrap();
    assert!(groups.iter().any(|g| g.slug.as_deref() == Some("call_duration")), "simulated metrics are still scored");
}

#[tokio::test]
async fn runtime_variables_fill_the_customers_lines() {
    let service = start(true).await;
    let (flow, endpoint) = dental();
    let text = flow.to_string();
    let names: Vec<String> =
        ["patientName", "dateOfBirth", "currentAppointment", "customerName", "lastName", "verificationDetail"]
            .iter()
            .filter(|n| text.contains(&format!("{{{{{n}}}}}")))
            .map(|n| n.to_string())
            .collect();
    assert!(!names.is_empty(), "the dental flow uses placeholders");
    let values: std::collections::BTreeMap<String, String> =
        names.iter().map(|n| (n.clone(), format!("Zq-{n}"))).collect();
    let mut input = plan(&flow, &endpoint, 1);
    input.flows.as_mut().unwrap()[0].edge_cases = None;
    let started = service
        .client
        .run(&RunRequest {
            plan: Some(input),
            variables: Some(RunVariables::Flat(values.clone())),
            ..Default::default()
        })
        .await
        .unwrap();
    let id = started.simulation_run_plan_job_id;
    let job = eventually(Duration::from_secs(60), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await;
    let transcript = service.client.call_transcript(job.simulation_jobs[0].call_id.unwrap()).await.unwrap();
    let customer: Vec<&str> = transcript
        .entries
        .iter()
        .filter(|e| e.role == Some(ParticipantType::Customer))
        .map(|e| e.text.as_str())
        .collect();
    assert!(customer.iter().all(|line| names.iter().all(|n| !line.contains(&format!("{{{{{n}}}}}")))), "{customer:?}");
    assert!(customer.iter().any(|line| line.contains("Zq-")), "a runtime value was spoken: {customer:?}");
}

#[tokio::test]
async fn end_call_phrases_silence_and_max_duration_each_end_calls() {
    let service = start(true).await;
    let (flow, endpoint) = dental();
    async fn ended(service: &Service, job: &RunPlanJob) -> Vec<EndedStatus> {
        let mut statuses = Vec::new();
        for s in &job.simulation_jobs {
            statuses.push(service.client.get_call(s.call_id.unwrap()).await.unwrap().ended_status.unwrap());
        }
        statuses
    }
    let mut phrase = plan(&flow, &endpoint, 1);
    phrase.flows.as_mut().unwrap()[0].edge_cases = None;
    phrase.end_call_phrases = Some(vec!["verified".into(), "confirm your full name".into()]);
    let job = run_to_end(&service, phrase).await;
    assert_eq!(ended(&service, &job).await, vec![EndedStatus::AgentEndedCall]);

    // The cap is hard: no call lasts longer, and no line ends after it.
    for cap in [1, 5] {
        let mut limit = plan(&flow, &endpoint, 1);
        limit.max_simulation_duration_seconds = Some(cap);
        let job = run_to_end(&service, limit).await;
        let statuses = ended(&service, &job).await;
        assert!(statuses.iter().all(|s| *s == EndedStatus::MaxDurationReached), "{cap} s: {statuses:?}");
        for s in &job.simulation_jobs {
            let call = s.call_id.unwrap();
            let duration = service.client.get_call(call).await.unwrap().duration_ms.unwrap();
            assert!(duration <= cap * 1000, "{cap} s cap, a {duration} ms call");
            for entry in service.client.call_transcript(call).await.unwrap().entries {
                assert!(entry.end_offset_ms <= cap * 1000, "{cap} s cap, a line ends at {} ms", entry.end_offset_ms);
            }
        }
    }

    let mut silence = plan(&flow, &endpoint, 4);
    silence.silence_timeout_seconds = Some(1);
    silence.end_call_phrases = Some(Vec::new());
    let job = run_to_end(&service, silence).await;
    let statuses = ended(&service, &job).await;
    assert!(statuses.contains(&EndedStatus::SilenceTimeOut), "a slow reply (over 1 s) ends some call: {statuses:?}");
}

#[tokio::test]
async fn deprecated_scenarios_run_once_per_persona() {
    let service = start(true).await;
    let (_, endpoint) = dental();
    let personas: Vec<IdRef> =
        seeded("personas", |p| p["isSystem"] == false).iter().take(2).map(|p| IdRef { id: id_of(p) }).collect();
    let scenario = uuid::Uuid::new_v4();
    let input = RunPlanInput {
        name: Some("Legacy scenarios".into()),
        direction: Some(Direction::Inbound),
        max_simulation_duration_seconds: Some(300),
        scenarios: Some(vec![ScenarioSelection { id: Some(scenario), ..Default::default() }]),
        personas: Some(personas.clone()),
        agent_endpoints: Some(vec![IdRef { id: id_of(&endpoint) }]),
        metrics: Some(vec![MetricReference::by_slug("call_duration")]),
        ..Default::default()
    };
    let job = run_to_end(&service, input).await;
    assert_eq!(job.status, Some(RunPlanJobStatus::Completed));
    assert_eq!(job.simulation_jobs.len(), 2, "one scenario × two personas");
    let used: std::collections::HashSet<_> =
        job.simulation_jobs.iter().filter_map(|s| s.persona.as_ref().map(|p| p.id)).collect();
    assert_eq!(used, personas.iter().map(|p| p.id).collect());
    assert!(job.simulation_jobs.iter().all(|s| s.scenario.as_ref().map(|sc| sc.id) == Some(scenario)));
}

#[tokio::test]
async fn a_runs_collection_job_cancelled_while_it_runs_stays_cancelled() {
    // Simulated time at fifty times wall time, one simulation at a time: the run lasts seconds,
    // long enough to cancel its collection job while simulations are still to end.
    let dir = tempfile::tempdir().unwrap();
    let slow =
        switchboard::service::Options { sim_speed: SimSpeed::Factor(50.0), ..support::options(dir.path(), true) };
    let service = start_with(slow, dir).await;
    let (flow, endpoint) = dental();
    let mut input = plan(&flow, &endpoint, 2);
    input.max_concurrent_jobs = Some(1);
    let started = service.client.run(&RunRequest { plan: Some(input), ..Default::default() }).await.unwrap();
    let collection = eventually(Duration::from_secs(60), || async {
        let jobs: Vec<CollectionJob> =
            futures_util::TryStreamExt::try_collect(service.client.collection_jobs(None, None)).await.unwrap();
        jobs.into_iter().find(|j| j.triggered_by == Some(TriggeredBy::Simulation))
    })
    .await;
    let cancelled = service.client.cancel_collection_job(collection.id).await.unwrap();
    assert_eq!(cancelled.status, Some(CollectionJobStatus::Canceled));
    let id = started.simulation_run_plan_job_id;
    let job = eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await;
    let ended_after = job.simulation_jobs.iter().filter(|s| s.completed_at > cancelled.completed_at).count();
    assert!(ended_after > 0, "simulations ended after the cancel, so their values were written after it");
    let read = service.client.get_collection_job(collection.id).await.unwrap();
    assert_eq!(read.status, Some(CollectionJobStatus::Canceled), "the run's end did not complete it again");
    // The status column agrees with the document: a filtered list finds it where it is.
    let canceled: Vec<CollectionJob> = futures_util::TryStreamExt::try_collect(
        service.client.collection_jobs(Some(CollectionJobStatus::Canceled), None),
    )
    .await
    .unwrap();
    assert!(canceled.iter().any(|j| j.id == collection.id));
    let processing: Vec<CollectionJob> = futures_util::TryStreamExt::try_collect(
        service.client.collection_jobs(Some(CollectionJobStatus::Processing), None),
    )
    .await
    .unwrap();
    assert!(processing.iter().all(|j| j.id != collection.id), "listed as PROCESSING after it was cancelled");
}

/// The set-up's documents are kept per job (issue 33) but a change mid-run reaches every
/// simulation started after it, as a read at every set-up did.
#[tokio::test]
async fn an_agent_renamed_mid_run_is_seen_by_every_simulation_started_after() {
    let dir = tempfile::tempdir().unwrap();
    let options =
        switchboard::service::Options { sim_speed: SimSpeed::Factor(100.0), ..support::options(dir.path(), true) };
    let service = start_with(options, dir).await;
    let (flow, endpoint) = dental();
    let agent_id = endpoint["agentId"].as_str().unwrap().to_owned();
    let mut input = plan(&flow, &endpoint, 3);
    input.execution_mode = Some(ExecutionMode::SequentialSameRunPlan);
    let started = service.client.run(&RunRequest { plan: Some(input), ..Default::default() }).await.unwrap();
    let id = started.simulation_run_plan_job_id;
    let completed = |s: &SimulationJob| s.status == Some(SimulationJobStatus::Completed);
    eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.simulation_jobs.iter().any(completed).then_some(())
    })
    .await;
    let key = format!("Bearer {}", service.running.api_key.expose());
    let body = serde_json::to_vec(&serde_json::json!({ "name": "Renamed Mid-Run" })).unwrap();
    let path = format!("/v1/agent/{agent_id}");
    let (status, _, _) = support::raw(&service.base_url(), reqwest::Method::PUT, &path, Some(&key), Some(body)).await;
    assert_eq!(status, 200);
    let renamed_at = jiff::Timestamp::now();

    let job = eventually(Duration::from_secs(120), || async {
        let job = service.client.get_run_plan_job(id).await.unwrap();
        job.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal).then_some(job)
    })
    .await;
    let mut names = Vec::new();
    for simulation in &job.simulation_jobs {
        let call = service.client.get_call(simulation.call_id.unwrap()).await.unwrap();
        let started = simulation.started_at.as_ref().and_then(Timestamp::parse).unwrap();
        names.push((started, call.agents[0].name.clone().unwrap_or_default()));
    }
    names.sort();
    assert_ne!(names[0].1, "Renamed Mid-Run", "the first simulation ended before the change");
    let after: Vec<_> = names.iter().filter(|(started, _)| *started > renamed_at).collect();
    assert!(!after.is_empty(), "simulations started after the change: {names:?}");
    assert!(after.iter().all(|(_, name)| name == "Renamed Mid-Run"), "{names:?}");
}
