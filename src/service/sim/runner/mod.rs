//! Runs run plan jobs: schedules PENDING simulations within the plan's execution mode and
//! concurrency, simulates each call at the configured speed, stores the call, collects the
//! plan's metrics into the job's collection job, and moves every status:
//! simulations PENDING → QUEUED → PROCESSING (CONNECTING → SIMULATING → COLLECTING_METRICS →
//! COMPLETED; at max speed and in replays only CONNECTING is written before the end) →
//! COMPLETED or FAILED; the job PENDING → RUNNING_SIMULATIONS → COMPLETED (FAILED if none
//! succeeded), or CANCELLING → CANCELLED. A simulation the agent never spoke on is retried,
//! when the plan asks, as a new RETRY_SCHEDULED simulation that waits out the backoff.
//!
//! Several replicas may share the store and one run: each picks simulations under the limits
//! counted in the store (`limits`), one replica at a time for a job (`store::Pick`), and leases what it picked
//! (`leases`); every write for a simulation checks that this replica still holds it, so one
//! whose lease ran out (and was handed to another replica) is left to that one.

mod failure;
mod folding;
mod scheduling;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use uuid::Uuid;

use super::agent_link::AgentLink;
use super::call_record::{build_call, insert_call};
use super::conversation::{ModelCaller, Setup, converse};
use super::jobs::{REPLAY_COLLECTING_MS, Retry, record_held, save_held, save_simulation, settle_job};
use super::limits;
use super::scoring::{Collected, collection_item, score, store_values};
use super::selection::{scenario_flow, simulation_variables};
use super::work::{JobMetrics, Work};
use crate::api::model::*;
use crate::service::SimSpeed;
use crate::service::error::{ServiceError, ServiceResult};
use crate::service::leases::{self, Worker};
use crate::service::metrics::judge::Judge;
use crate::service::store::{self, Kind, Store};
use crate::service::verdict;
use failure::SimulationError;

/// The simulation engine.
#[derive(Clone)]
pub struct Simulator {
    store: Store,
    judge: Arc<Judge>,
    speed: SimSpeed,
    base_url: String,
    http: reqwest::Client,
    wake: Arc<Notify>,
    /// Wakes the fold of simulations' ends into their jobs (`folding`).
    folds: Arc<Notify>,
    /// This replica, and how long its leases last.
    worker: Worker,
    /// Each active job's metrics, loaded when it first schedules and dropped once it ends.
    job_metrics: Arc<Mutex<HashMap<String, Arc<JobMetrics>>>>,
    /// How long an HTTP agent may take to answer one turn.
    turn_timeout: Duration,
    /// The language model that plays the caller, when the service has one (`[caller]`).
    caller: Option<Arc<ModelCaller>>,
}

impl Simulator {
    pub fn new(store: Store, judge: Arc<Judge>, speed: SimSpeed, base_url: String, worker: Worker) -> Simulator {
        Simulator {
            store,
            judge,
            speed,
            base_url,
            http: reqwest::Client::new(),
            wake: Arc::new(Notify::new()),
            folds: Arc::new(Notify::new()),
            worker,
            job_metrics: Arc::default(),
            turn_timeout: super::agent_link::TURN_TIMEOUT,
            caller: None,
        }
    }

    /// The same, giving an HTTP agent `timeout` to answer each turn.
    pub fn with_turn_timeout(self, timeout: Duration) -> Simulator {
        Simulator { turn_timeout: timeout, ..self }
    }

    /// The same, with `caller` playing the simulated callers.
    pub fn with_caller(self, caller: Option<ModelCaller>) -> Simulator {
        Simulator { caller: caller.map(Arc::new), ..self }
    }

    /// Whether a caller model plays the callers (an improv variant with no steps needs one).
    pub fn caller(&self) -> super::start::Caller {
        if self.caller.is_some() { super::start::Caller::Model } else { super::start::Caller::Offline }
    }

    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// Schedules as work arrives (what a stopped replica left is handed back by `lease_keeper`).
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                if let Err(e) = self.schedule().await {
                    tracing::error!("simulation scheduler: {}", e.body.message);
                }
                tokio::select! {
                    _ = self.wake.notified() => {}
                    _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                }
            }
        })
    }

    /// One simulation, start to finish; its slot is released whatever happens.
    async fn run(&self, work: Work) {
        let work = Arc::new(work);
        let id = work.simulation.simulation_job_id;
        let settled = {
            let (engine, work) = (self.clone(), work.clone());
            // A panic fails the simulation like any error instead of leaving it PROCESSING.
            tokio::spawn(async move { engine.simulate(&work).await })
                .await
                .unwrap_or_else(|panic| Err(ServiceError::internal(format!("simulation {id}: {panic}")).into()))
        };
        if let Err(SimulationError::Service(e)) = &settled
            && e.body.code == leases::LOST
        {
            // Another replica took the simulation over; what it does with it is its own.
            tracing::info!("simulation {id}: {}", e.body.message);
            self.wake();
            return;
        }
        if let Err(e) = &settled {
            let (message, owner) = e.failure();
            let job_id = work.job_id.clone();
            let now = work.now();
            let worker = self.worker.clone();
            self.write_until_landed("failing a simulation", move |tx| {
                let id = id.to_string();
                if !store::leases::held_by(tx, Kind::SimulationJob, &id, &worker.owner)? {
                    return Ok(()); // taken over meanwhile
                }
                let mut simulation: SimulationJob = store::require(tx, Kind::SimulationJob, &id)?;
                if !simulation.status.as_ref().is_some_and(SimulationJobStatus::is_terminal) {
                    simulation.status = Some(SimulationJobStatus::Failed);
                    simulation.error_message = Some(message.clone());
                    simulation.completed_at = Some(now.clone());
                    simulation.failure_owner = Some(owner.clone());
                    save_simulation(tx, &simulation, &job_id)?;
                }
                store::leases::release(tx, Kind::SimulationJob, &id)
            })
            .await;
        }
        if !matches!(settled, Ok(true)) {
            let job_id = work.job_id.clone();
            self.write_until_landed("settling run plan job", move |tx| settle_job(tx, &job_id)).await;
        }
        self.wake();
    }

    /// Writes an end that must not be lost while the service runs (a simulation's failure, its
    /// job's settling): a failed write (a busy lock, say) is tried again for up to a minute, so
    /// a passing error never leaves a simulation PROCESSING and its job open. After that, its
    /// lease runs out and the sweep (`leases`) hands it back.
    async fn write_until_landed<F>(&self, what: &'static str, write: F)
    where
        F: Fn(&crate::service::store::Tx) -> ServiceResult<()> + Send + Sync + 'static,
    {
        let write = Arc::new(write);
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        let mut pause = Duration::from_millis(20);
        loop {
            let attempt = write.clone();
            let Err(e) = self.store.write_progress(move |tx| attempt(tx)).await else { return };
            // Only the store's own failures pass; a missing simulation or job will stay missing.
            if !e.status.is_server_error() {
                tracing::error!("{what}: {}", e.body.message);
                return;
            }
            if std::time::Instant::now() >= deadline {
                tracing::error!("{what}: {}; gave up, its lease will run out and hand it back", e.body.message);
                return;
            }
            tracing::warn!("{what}: {}; trying again", e.body.message);
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(2));
        }
    }

    /// Runs the simulation; `true` once its end is recorded and its job settled with it.
    async fn simulate(&self, work: &Work) -> Result<bool, SimulationError> {
        let job_id = work.job_id.clone();
        // Claim the simulation, or honour a cancel, in one transaction so neither is lost.
        let claimed = {
            let (job_id, id) = (job_id.clone(), work.simulation.simulation_job_id.to_string());
            let now = work.now();
            let owner = self.worker.owner.clone();
            self.store
                .write_progress(move |tx| {
                    let now = now.clone();
                    // The lease, the status and the body in one read of the simulation's row.
                    let held = store::held::read(tx, Kind::SimulationJob, &id)?
                        .filter(|held| held.lease_owner.as_deref() == Some(&*owner))
                        .ok_or_else(|| leases::lost(Kind::SimulationJob, &id))?;
                    // The job's status column, not its document (read at every simulation's start),
                    // and without claiming the job: a cancel meanwhile meets this simulation's row,
                    // which this write holds, and leaves a started simulation to end.
                    let job = store::peek_status(tx, Kind::RunPlanJob, &job_id)?
                        .ok_or_else(|| ServiceError::not_found(Kind::RunPlanJob.label(), &job_id))?;
                    let mut current: SimulationJob = serde_json::from_str(&held.body)?;
                    let before = held.status.as_deref();
                    let job_open = limits::ACTIVE_JOBS.contains(&RunPlanJobStatus::from(job.as_str()));
                    if !job_open || current.status != Some(SimulationJobStatus::Queued) {
                        if !current.status.as_ref().is_some_and(SimulationJobStatus::is_terminal) {
                            current.status = Some(SimulationJobStatus::Cancelled);
                            current.completed_at = Some(now.clone());
                            save_held(tx, before, &current, &job_id)?;
                        }
                        store::leases::release(tx, Kind::SimulationJob, &id)?;
                        return Ok(None);
                    }
                    current.status = Some(SimulationJobStatus::Processing);
                    current.processing_status = Some(ProcessingStatus::Connecting);
                    current.started_at = Some(now);
                    save_held(tx, before, &current, &job_id)?;
                    Ok(Some(current))
                })
                .await?
        };
        let Some(mut simulation) = claimed else { return Ok(false) };

        let endpoint_id =
            simulation.agent_endpoint.as_ref().map(|e| e.id).ok_or_else(|| ServiceError::internal("no endpoint"))?;
        let flow_id = simulation.customer_flow.as_ref().map(|f| f.id);
        let vault = self.store.vault();
        let (endpoint, agent, flow, definition) = self
            .store
            .read(move |c| {
                // The endpoint, its agent and the flow in one read (one round trip on PostgreSQL).
                let (endpoint_id, flow_id) = (endpoint_id.to_string(), flow_id.map(|f| f.to_string()));
                let [endpoint, agent, flow] = store::together::get_three_raw(
                    c,
                    (Kind::AgentEndpoint, &endpoint_id),
                    (Kind::Agent, "$.agentId"),
                    flow_id.as_deref().map(|f| (Kind::CustomerFlow, f)),
                )?;
                let endpoint: AgentEndpoint = serde_json::from_str(
                    &endpoint.ok_or_else(|| ServiceError::not_found(Kind::AgentEndpoint.label(), &endpoint_id))?,
                )?;
                let agent: Option<Agent> = agent.map(|a| serde_json::from_str(&a)).transpose()?;
                let flow: Option<CustomerFlow> = flow.map(|f| serde_json::from_str(&f)).transpose()?;
                let definition: Option<HttpRequestDefinition> = match endpoint.outbound_dial_type {
                    Some(OutboundDialType::HttpRequest) => endpoint
                        .outbound_dial_http_request_definition_id
                        .map(|d| crate::service::secrets::definition_to_dial(c, &vault, &d.to_string()))
                        .transpose()?
                        .flatten(),
                    _ => None,
                };
                Ok((endpoint, agent, flow, definition))
            })
            .await?;
        let flow = flow.unwrap_or_else(|| scenario_flow(&simulation));
        let variant = simulation
            .customer_flow
            .as_ref()
            .and_then(|f| f.variant_id)
            .and_then(|v| flow.happy_path.iter().chain(&flow.edge_cases).find(|variant| variant.id == v).cloned());
        let link = match definition {
            Some(definition) => AgentLink::Http {
                http: self.http.clone(),
                definition: Box::new(definition),
                base_url: self.base_url.clone(),
                turn_timeout: self.turn_timeout,
            },
            // A replayed night may have the reference agent answer as another of its builds.
            None => match work.replay.as_ref().and_then(|r| r.reference_build.as_deref()) {
                Some(build) => AgentLink::ReferenceBuild(build.parse().map_err(ServiceError::internal)?),
                None => AgentLink::Reference,
            },
        };
        // At a real pace each phase is written as it begins. As fast as the machine allows (max
        // speed, history replays) a phase lasts a moment: only the start and the end are, the
        // call with the end.
        let phases_written = matches!(self.speed, SimSpeed::Factor(_)) && work.replay.is_none();
        simulation.processing_status = Some(ProcessingStatus::Simulating);
        let saving = async { if phases_written { self.save(simulation.clone(), &job_id).await } else { Ok(()) } };

        let call_id = Uuid::new_v4();
        let variables = simulation_variables(Some(&work.plan), work.variables.as_ref(), &simulation);
        let setup = Setup {
            call_id: format!("{}-{}", simulation.simulation_job_id, simulation.iteration.unwrap_or(0)),
            flow: &flow,
            variant: variant.as_ref(),
            persona: simulation.persona.as_ref(),
            variables: &variables,
            end_call_phrases: work.plan.end_call_phrases_or_default(),
            end_call_reasons: work.plan.end_call_reasons.clone().unwrap_or_default(),
            silence_timeout_ms: work.plan.silence_timeout_seconds_or_default() * 1000,
            max_duration_ms: work.plan.max_simulation_duration_seconds.unwrap_or(600) * 1000,
            agent_name: agent.as_ref().and_then(|a| a.name.clone()).unwrap_or_else(|| "the agent".into()),
            // The seeded history replays with the offline caller, as it was recorded: a first
            // start must not send the demo world's nights to a paid model.
            caller: self.caller.as_deref().filter(|_| work.replay.is_none()),
        };
        // The status commits while the conversation goes on; a failed write stops the
        // conversation at once.
        let conversing = async { Ok(converse(&setup, &link, &self.judge).await) };
        let ((), outcome) = tokio::try_join!(saving, conversing)?;
        // The conversation's error (an unreachable agent, a caller model that failed) is the
        // simulation's errorMessage.
        let outcome = outcome.map_err(SimulationError::Conversation)?;
        if work.replay.is_none() {
            self.pace(outcome.duration_ms).await; // history replays as fast as it can
        }
        work.pass(outcome.duration_ms + REPLAY_COLLECTING_MS);

        simulation.processing_status = Some(ProcessingStatus::CollectingMetrics);
        simulation.call_id = Some(call_id);
        let call = build_call(call_id, work, &simulation, &endpoint, agent.as_ref(), &outcome, variant.as_ref());
        let transcript = &outcome.transcript;
        let flow_variant = (&flow, variant.as_ref());
        let mut call_with_end = None;
        let Collected { judged, rows } = match simulation.roark_phone_number.clone() {
            // The call is committed while its metrics are computed.
            None if phases_written => {
                let storing = self.store_call(&call, &work.job_id, &simulation, transcript);
                let collecting = async {
                    Ok(score(&self.judge, work, &call, transcript, flow_variant, &outcome.walked, None).await)
                };
                tokio::try_join!(storing, collecting)?.1
            }
            None => {
                call_with_end = Some((call.clone(), serde_json::to_string(transcript)?));
                score(&self.judge, work, &call, transcript, flow_variant, &outcome.walked, None).await
            }
            Some(number) => {
                self.store_call(&call, &work.job_id, &simulation, transcript).await?;
                simulation.processing_status = Some(ProcessingStatus::WaitingForLiveConversation);
                let started = work.now();
                simulation.enrichment = Some(Enrichment {
                    requested: true,
                    outcome: EnrichmentOutcome::Waiting,
                    wait_started_at: Some(started.clone()),
                    wait_ended_at: None,
                });
                self.save(simulation.clone(), &job_id).await?;
                let found = self.wait_for_live_call(&number, simulation.started_at.clone()).await?;
                simulation.enrichment = Some(Enrichment {
                    requested: true,
                    outcome: if found.is_some() { EnrichmentOutcome::Merged } else { EnrichmentOutcome::TimedOut },
                    wait_started_at: Some(started),
                    wait_ended_at: Some(work.now()),
                });
                simulation.processing_status = Some(ProcessingStatus::CollectingMetrics);
                score(&self.judge, work, &call, transcript, flow_variant, &outcome.walked, found.as_ref()).await
            }
        };

        simulation.processing_status = Some(ProcessingStatus::Completed);
        simulation.status = Some(SimulationJobStatus::Completed);
        simulation.completed_at = Some(work.now());
        let silent = verdict::agent_never_spoke(&outcome.transcript);
        let results = if silent {
            simulation.outcome = Some(SimulationOutcome::NotEvaluated);
            simulation.invalidation = Some(Invalidation {
                invalidated_at: simulation.completed_at.clone(),
                reason: InvalidationReason::AgentNeverSpoke,
                detail: Some("the agent answered and never said a word, so there was nothing to grade".into()),
            });
            Vec::new()
        } else {
            simulation.outcome = Some(judged.outcome);
            simulation.failed_checks = judged.failed_checks;
            judged.results
        };
        let retry = silent.then(|| self.retry_for(work, &simulation)).flatten();
        // The values, the simulation's end and its part in its job commit together; the job
        // itself is not locked (a retry aside): its next fold counts the part and settles it.
        let item = collection_item(&work.metrics.collection_id, &rows, &work.now())?;
        let collection_id = work.metrics.collection_id.clone();
        let owner = self.worker.owner.clone();
        self.store
            .write_progress(move |tx| {
                let id = simulation.simulation_job_id.to_string();
                // The lease checked and given back, and the row claimed, in one statement.
                let before = store::held::give_back(tx, Kind::SimulationJob, &id, &owner)?
                    .ok_or_else(|| leases::lost(Kind::SimulationJob, &id))?;
                let retry = retry.clone();
                let simulation = simulation.clone();
                if let Some((call, transcript)) = &call_with_end {
                    insert_call(tx, call, transcript, &job_id)?;
                }
                store_values(tx, &rows, &collection_id)?;
                record_held(tx, before.as_deref(), simulation, &job_id, &results, retry, Some(item.clone()))
            })
            .await?;
        // Its part in the job's tally and collection job is counted by the next fold.
        self.folds.notify_one();
        Ok(true)
    }

    /// The retry a silent simulation gets, if its plan retries and it has attempts left: when it
    /// dials (the plan's backoff in simulated seconds, on the job's clock) and its place.
    fn retry_for(&self, work: &Work, simulation: &SimulationJob) -> Option<Retry> {
        let attempt = simulation.attempt_number.unwrap_or(1);
        let max_attempts = work.plan.max_no_response_retries_or_default().max(0) as u32 + 1;
        if attempt >= max_attempts {
            return None;
        }
        let backoff_ms = work.plan.no_response_retry_backoff_seconds_or_default().max(0) * 1000;
        let wall_ms = match self.speed {
            SimSpeed::Max => 0,
            SimSpeed::Factor(factor) if work.replay.is_none() => (backoff_ms as f64 / factor).round() as i64,
            SimSpeed::Factor(_) => 0, // history replays as fast as it can
        };
        let now = work.now().parse().unwrap_or_else(jiff::Timestamp::now);
        let at = now.checked_add(jiff::SignedDuration::from_millis(wall_ms)).unwrap_or(now);
        Some(Retry { scheduled_at: Timestamp::from(at), attempt_number: attempt + 1 })
    }

    /// Holds the simulation open (up to 15 simulated minutes) for a call posted to
    /// `POST /v1/call` that used the provisioned number and started inside the window.
    async fn wait_for_live_call(
        &self,
        number: &str,
        started: Option<Timestamp>,
    ) -> ServiceResult<Option<(Call, Transcript)>> {
        let window_start = started.as_ref().and_then(Timestamp::parse).unwrap_or_else(jiff::Timestamp::now);
        let window = jiff::SignedDuration::from_secs(run_plan_limits::LIVE_ENRICHMENT_WAIT_SECONDS);
        let window_end = window_start.checked_add(window).unwrap_or(window_start);
        let wall = match self.speed {
            SimSpeed::Max => Duration::ZERO,
            SimSpeed::Factor(f) => Duration::from_secs_f64(run_plan_limits::LIVE_ENRICHMENT_WAIT_SECONDS as f64 / f),
        };
        let deadline = std::time::Instant::now() + wall;
        loop {
            let number = number.to_owned();
            let found = self
                .store
                .read(move |c| {
                    let body = store::newest_by_any(c, Kind::Call, &["$.toNumber", "$.fromNumber"], &number)?;
                    let Some(body) = body else { return Ok(None) };
                    let call: Call = serde_json::from_str(&body)?;
                    let transcript: Transcript = store::transcripts::get(c, &call.id.to_string())?;
                    Ok(Some((call, transcript)))
                })
                .await?;
            if let Some((call, transcript)) = found {
                let inside = call
                    .started_at
                    .as_ref()
                    .and_then(Timestamp::parse)
                    .is_some_and(|s| s >= window_start && s <= window_end);
                if inside {
                    return Ok(Some((call, transcript)));
                }
            }
            if std::time::Instant::now() >= deadline {
                return Ok(None);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Simulated time against wall time.
    async fn pace(&self, simulated_ms: i64) {
        match self.speed {
            SimSpeed::Max => tokio::task::yield_now().await,
            SimSpeed::Factor(factor) => {
                tokio::time::sleep(Duration::from_secs_f64(simulated_ms.max(0) as f64 / 1000.0 / factor)).await;
            }
        }
    }

    async fn save(&self, simulation: SimulationJob, job_id: &str) -> ServiceResult<()> {
        let (job_id, owner) = (job_id.to_owned(), self.worker.owner.clone());
        self.store
            .write_progress(move |tx| {
                let id = simulation.simulation_job_id.to_string();
                leases::require_held(tx, Kind::SimulationJob, &id, &owner)?;
                save_simulation(tx, &simulation, &job_id)
            })
            .await
    }

    /// Writes the call and its transcript, and the simulation (now naming the call) with them.
    async fn store_call(
        &self,
        call: &Call,
        job_id: &str,
        simulation: &SimulationJob,
        transcript: &Transcript,
    ) -> ServiceResult<()> {
        let (stored, transcript, job_id) = (call.clone(), serde_json::to_string(transcript)?, job_id.to_owned());
        let (simulation, owner) = (simulation.clone(), self.worker.owner.clone());
        self.store
            .write_progress(move |tx| {
                let id = simulation.simulation_job_id.to_string();
                leases::require_held(tx, Kind::SimulationJob, &id, &owner)?;
                insert_call(tx, &stored, &transcript, &job_id)?;
                save_simulation(tx, &simulation, &job_id)
            })
            .await
    }
}
