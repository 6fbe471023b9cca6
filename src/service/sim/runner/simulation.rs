//! One simulation as named phases on a value: claim it (or honour a cancel), set up its call
//! (who and what it is with, and the link that reaches the agent), converse, collect the
//! metrics, and settle its end. `Simulator::simulate` runs them in that order; each phase
//! writes what it changed, checking that this replica still holds the simulation.

use std::sync::Arc;

use uuid::Uuid;

use super::Simulator;
use super::casts::{self, Cast, CastKey};
use super::failure::SimulationError;
use crate::api::model::*;
use crate::service::SimSpeed;
use crate::service::error::{DomainError, DomainResult};
use crate::service::replica::leases;
use crate::service::sim::agent_link::AgentLink;
use crate::service::sim::call_record::{build_call, insert_call};
use crate::service::sim::conversation::{Outcome, Setup, converse};
use crate::service::sim::jobs::{REPLAY_COLLECTING_MS, Retry, record_held, record_into, save_held};
use crate::service::sim::limits;
use crate::service::sim::scoring::{Collected, collection_item, score, store_values, value_rows};
use crate::service::sim::selection::{scenario_flow, simulation_variables};
use crate::service::sim::verdict::{self, CheckResult, Judged};
use crate::service::sim::work::Work;
use crate::service::store::batch::{Applied, Batch, Guard};
use crate::service::store::together::Revisions;
use crate::service::store::{self, Conn, Doc, Kind, StoreError, StoreResult, Tx, ends};

/// A claimed simulation on its way through the phases.
pub(super) struct Simulation<'a> {
    engine: &'a Simulator,
    work: &'a Work,
    job_id: String,
    record: SimulationJob,
    /// The revisions of the documents it is set up with, as its claim found them (none when
    /// the claim was decided again: they are read).
    seen: Revisions,
    /// At a real pace each phase is written as it begins. As fast as the machine allows (max
    /// speed, history replays) a phase lasts a moment: only the start and the end are, the
    /// call with the end.
    phases_written: bool,
}

/// Who and what the call is with, read once the simulation is claimed.
pub(super) struct Scene {
    endpoint: AgentEndpoint,
    agent: Option<Agent>,
    flow: CustomerFlow,
    variant: Option<FlowVariant>,
    link: AgentLink,
}

/// What collecting produced: the values and their judgement, and the call when it commits
/// with the simulation's end rather than before it.
pub(super) struct Collection {
    collected: Collected,
    call_with_end: Option<(Call, String)>,
}

impl<'a> Simulation<'a> {
    /// Claims the simulation, or honours a cancel, in one transaction so neither is lost;
    /// `None` when it is not to run.
    pub(super) async fn claim(
        engine: &'a Simulator,
        work: &'a Work,
    ) -> Result<Option<Simulation<'a>>, SimulationError> {
        let (job_id, id) = (work.job_id.clone(), work.simulation.simulation_job_id.to_string());
        let (now, owner) = (work.now(), engine.worker.owner.clone());
        let claimed = match claim_as_picked(engine, work).await? {
            Some(claimed) => Some(claimed),
            // Not as it was picked (a cancel met it): decided again from what is stored.
            None => engine
                .store
                .write_progress(move |tx| claim_row(tx, &id, &job_id, &owner, &now))
                .await?
                .map(|record| (record, Revisions::default())),
        };
        let phases_written = matches!(engine.speed, SimSpeed::Factor(_)) && work.replay.is_none();
        Ok(claimed.map(|(record, seen)| Simulation {
            engine,
            work,
            job_id: work.job_id.clone(),
            record,
            seen,
            phases_written,
        }))
    }

    /// Reads who and what the call is with (kept for its job while unchanged, `casts`), and
    /// how the agent is reached.
    pub(super) async fn set_up(&self) -> DomainResult<Scene> {
        let (cast, definition) = self.cast().await?;
        let (endpoint, agent) = (cast.endpoint.clone(), cast.agent.clone());
        let flow = cast.flow.clone().unwrap_or_else(|| scenario_flow(&self.record));
        let variant = self
            .record
            .customer_flow
            .as_ref()
            .and_then(|f| f.variant_id)
            .and_then(|v| flow.happy_path.iter().chain(&flow.edge_cases).find(|variant| variant.id == v).cloned());
        let link = self.link(definition)?;
        Ok(Scene { endpoint, agent, flow, variant, link })
    }

    /// The endpoint, its agent and the flow: as kept for the job when their revisions are
    /// those the claim saw, else read (and kept); with an HTTP agent's request definition.
    async fn cast(&self) -> DomainResult<(Arc<Cast>, Option<HttpRequestDefinition>)> {
        let endpoint_id =
            self.record.agent_endpoint.as_ref().map(|e| e.id).ok_or_else(|| DomainError::fault("no endpoint"))?;
        let key = (endpoint_id, self.record.customer_flow.as_ref().map(|f| f.id));
        let (store, vault) = (self.engine.store.clone(), self.engine.store.vault());
        if let Some(cast) = self.engine.casts.get(&self.job_id, key, &self.seen) {
            if !dials_http(&cast.endpoint) {
                return Ok((cast, None));
            }
            let endpoint = cast.endpoint.clone();
            let definition = store.read(move |c| read_definition(c, &vault, &endpoint)).await?;
            return Ok((cast, definition));
        }
        let (cast, definition) = store
            .read(move |c| -> DomainResult<_> {
                let cast = read_cast(c, key)?;
                let definition = read_definition(c, &vault, &cast.endpoint)?;
                Ok((cast, definition))
            })
            .await?;
        let cast = Arc::new(cast);
        self.engine.casts.put(&self.job_id, key, cast.clone());
        Ok((cast, definition))
    }

    /// The agent over HTTP when its endpoint has a request definition; the reference agent
    /// otherwise (a replayed night may have it answer as another of its builds).
    fn link(&self, definition: Option<HttpRequestDefinition>) -> DomainResult<AgentLink> {
        let engine = self.engine;
        Ok(match definition {
            Some(definition) => AgentLink::Http {
                http: engine.http.clone(),
                definition: Box::new(definition),
                base_url: engine.base_url.clone(),
                turn_timeout: engine.turn_timeout,
            },
            None => match self.work.replay.as_ref().and_then(|r| r.reference_build.as_deref()) {
                Some(build) => AgentLink::ReferenceBuild(build.parse().map_err(DomainError::fault)?),
                None => AgentLink::Reference,
            },
        })
    }

    /// Holds the conversation, then waits out its simulated length.
    pub(super) async fn converse(&mut self, scene: &Scene) -> Result<Outcome, SimulationError> {
        self.record.processing_status = Some(ProcessingStatus::Simulating);
        let saving = async {
            if self.phases_written { self.engine.save(self.record.clone(), &self.job_id).await } else { Ok(()) }
        };
        let variables = simulation_variables(Some(&self.work.plan), self.work.variables.as_ref(), &self.record);
        let setup = self.setup(scene, &variables);
        // The status commits while the conversation goes on; a failed write stops the
        // conversation at once.
        let conversing = async { Ok(converse(&setup, &scene.link, &self.engine.judge).await) };
        let ((), outcome) = tokio::try_join!(saving, conversing)?;
        // The conversation's error (an unreachable agent, a caller model that failed) is the
        // simulation's errorMessage.
        let outcome = outcome.map_err(SimulationError::Conversation)?;
        if self.work.replay.is_none() {
            self.engine.pace(outcome.duration_ms).await; // history replays as fast as it can
        }
        self.work.pass(outcome.duration_ms + REPLAY_COLLECTING_MS);
        Ok(outcome)
    }

    /// How the call is set up, from the plan and the scene.
    fn setup<'s>(&'s self, scene: &'s Scene, variables: &'s std::collections::BTreeMap<String, String>) -> Setup<'s> {
        let (plan, record) = (&self.work.plan, &self.record);
        Setup {
            // Keyed on the place in the run, as before iterations were numbered per test case,
            // so the seeded conversations stay the same.
            call_id: format!("{}-{}", record.simulation_job_id, record.place_in_run()),
            flow: &scene.flow,
            variant: scene.variant.as_ref(),
            persona: record.persona.as_ref(),
            variables,
            end_call_phrases: plan.end_call_phrases_or_default(),
            end_call_reasons: plan.end_call_reasons.clone().unwrap_or_default(),
            silence_timeout_ms: plan.silence_timeout_seconds_or_default() * 1000,
            max_duration_ms: plan.max_simulation_duration_seconds.unwrap_or(600) * 1000,
            agent_name: scene.agent.as_ref().and_then(|a| a.name.clone()).unwrap_or_else(|| "the agent".into()),
            // The seeded history replays with the offline caller, as it was recorded: a first
            // start must not send the demo world's nights to a paid model.
            caller: self.engine.caller.as_deref().filter(|_| self.work.replay.is_none()),
        }
    }

    /// Builds the call and computes the plan's metrics on it: while the call commits (at a real
    /// pace), before it commits with the end (as fast as possible), or after a live call it
    /// waited for (a provisioned number).
    pub(super) async fn collect(&mut self, scene: &Scene, outcome: &Outcome) -> Result<Collection, SimulationError> {
        let call_id = Uuid::new_v4();
        self.record.processing_status = Some(ProcessingStatus::CollectingMetrics);
        self.record.call_id = Some(call_id);
        let work = self.work;
        let call = build_call(
            call_id,
            work,
            &self.record,
            &scene.endpoint,
            scene.agent.as_ref(),
            outcome,
            scene.variant.as_ref(),
        );
        let (collected, call_with_end) = match self.record.roark_phone_number.clone() {
            None if self.phases_written => {
                let storing = self.engine.store_call(&call, &work.job_id, &self.record, &outcome.transcript);
                let collecting = async { Ok(self.score(&call, scene, outcome, None).await) };
                (tokio::try_join!(storing, collecting)?.1, None)
            }
            None => {
                let end = (call.clone(), serde_json::to_string(&outcome.transcript)?);
                (self.score(&call, scene, outcome, None).await, Some(end))
            }
            Some(number) => (self.collect_live(&call, scene, outcome, &number).await?, None),
        };
        Ok(Collection { collected, call_with_end })
    }

    /// Commits the call, waits for the live call posted from the provisioned number, and
    /// scores the two together.
    async fn collect_live(
        &mut self,
        call: &Call,
        scene: &Scene,
        outcome: &Outcome,
        number: &str,
    ) -> Result<Collected, SimulationError> {
        let (engine, work) = (self.engine, self.work);
        engine.store_call(call, &work.job_id, &self.record, &outcome.transcript).await?;
        self.record.processing_status = Some(ProcessingStatus::WaitingForLiveConversation);
        let started = work.now();
        self.record.enrichment = Some(Enrichment {
            requested: true,
            outcome: EnrichmentOutcome::Waiting,
            wait_started_at: Some(started.clone()),
            wait_ended_at: None,
        });
        engine.save(self.record.clone(), &self.job_id).await?;
        let found = engine.wait_for_live_call(number, self.record.started_at.clone()).await?;
        self.record.enrichment = Some(Enrichment {
            requested: true,
            outcome: if found.is_some() { EnrichmentOutcome::Merged } else { EnrichmentOutcome::TimedOut },
            wait_started_at: Some(started),
            wait_ended_at: Some(work.now()),
        });
        self.record.processing_status = Some(ProcessingStatus::CollectingMetrics);
        Ok(self.score(call, scene, outcome, found.as_ref()).await)
    }

    async fn score(
        &self,
        call: &Call,
        scene: &Scene,
        outcome: &Outcome,
        live: Option<&(Call, Transcript)>,
    ) -> Collected {
        let flow_variant = (&scene.flow, scene.variant.as_ref());
        score(&self.engine.judge, self.work, call, &outcome.transcript, flow_variant, &outcome.walked, live).await
    }

    /// Ends the simulation: its values, its end and its part in its job commit together. The
    /// job itself is not locked (a retry aside): its next fold counts the part and settles it.
    pub(super) async fn settle(mut self, outcome: &Outcome, collection: Collection) -> Result<(), SimulationError> {
        let Collection { collected: Collected { judged, rows }, call_with_end } = collection;
        let (results, retry) = self.judge(outcome, judged);
        let work = self.work;
        let item = collection_item(&work.metrics.collection_id, &rows, &work.now())?;
        if retry.is_none() {
            // As this replica left it (PROCESSING): the end decided here, applied in one
            // statement; otherwise decided again below from what is stored.
            let batch = self.end_batch(call_with_end.as_ref(), &rows, &results, &item)?;
            if self.engine.store.apply_progress(batch).await? == Applied::Written {
                return Ok(());
            }
        }
        let (collection_id, owner, job_id) =
            (work.metrics.collection_id.clone(), self.engine.worker.owner.clone(), self.job_id);
        let simulation = self.record;
        self.engine
            .store
            .write_progress(move |tx| -> StoreResult<_> {
                let id = simulation.simulation_job_id.to_string();
                // The lease checked and given back, and the row claimed, in one statement.
                let before = store::held::give_back(tx, Kind::SimulationJob, &id, &owner)?
                    .ok_or_else(|| leases::lost(Kind::SimulationJob, &id))?;
                if let Some((call, transcript)) = &call_with_end {
                    insert_call(tx, call, transcript)?;
                }
                store_values(tx, &rows, &collection_id)?;
                record_held(
                    tx,
                    before.as_deref(),
                    simulation.clone(),
                    &job_id,
                    &results,
                    retry.clone(),
                    Some(item.clone()),
                )
            })
            .await?;
        Ok(())
    }

    /// The end's writes, under the lease, for a simulation still PROCESSING: its call (when it
    /// commits with the end), its values, itself and its part in its job; the lease given back.
    fn end_batch(
        &self,
        call_with_end: Option<&(Call, String)>,
        rows: &[(Uuid, MetricValue)],
        results: &[CheckResult],
        item: &ends::Item,
    ) -> StoreResult<Batch> {
        let id = self.record.simulation_job_id.to_string();
        let mut batch = Batch::under(Guard {
            kind: Kind::SimulationJob,
            id,
            owner: self.engine.worker.owner.to_string(),
            status: Some(SimulationJobStatus::Processing.as_str().to_owned()),
            parent_in: None,
            release: true,
        });
        if let Some((call, transcript)) = call_with_end {
            batch.insert(Doc::of(call)?)?;
            batch.transcript(&call.id.to_string(), transcript.clone());
        }
        batch.values(value_rows(rows, &self.work.metrics.collection_id)?);
        let processing = Some(SimulationJobStatus::Processing.as_str());
        record_into(&mut batch, processing, self.record.clone(), &self.job_id, results, Some(item.clone()))?;
        Ok(batch)
    }

    /// Marks the simulation completed with its judgement, or not evaluated (and retried, when
    /// the plan says so) when the agent never said a word: its check results, and its retry.
    fn judge(&mut self, outcome: &Outcome, judged: Judged) -> (Vec<CheckResult>, Option<Retry>) {
        let simulation = &mut self.record;
        simulation.processing_status = Some(ProcessingStatus::Completed);
        simulation.status = Some(SimulationJobStatus::Completed);
        simulation.completed_at = Some(self.work.now());
        if !verdict::agent_never_spoke(&outcome.transcript) {
            simulation.outcome = Some(judged.outcome);
            simulation.failed_checks = judged.failed_checks;
            // A check left without a value is named beside every other check's result,
            // whether the simulation is NOT_EVALUATED or FAILED on another check.
            if !judged.unscored.is_empty() {
                simulation.unscored_checks = judged.unscored;
                simulation.judged_checks = judged.judged;
            }
            return (judged.results, None);
        }
        simulation.outcome = Some(SimulationOutcome::NotEvaluated);
        simulation.invalidation = Some(Invalidation {
            invalidated_at: simulation.completed_at.clone(),
            reason: InvalidationReason::AgentNeverSpoke,
            detail: Some("the agent answered and never said a word, so there was nothing to grade".into()),
        });
        (Vec::new(), self.engine.retry_for(self.work, &self.record))
    }
}

/// The claim in one statement: the simulation as it was picked (QUEUED, leased to this
/// replica) goes PROCESSING (CONNECTING), if it is still QUEUED and its job still open; `None`
/// when either moved (nothing written).
/// With it, the revisions of the documents it is set up with.
async fn claim_as_picked(
    engine: &Simulator,
    work: &Work,
) -> Result<Option<(SimulationJob, Revisions)>, SimulationError> {
    let queued = SimulationJobStatus::Queued;
    if work.simulation.status.as_ref() != Some(&queued) {
        return Ok(None);
    }
    let mut current = work.simulation.clone();
    current.status = Some(SimulationJobStatus::Processing);
    current.processing_status = Some(ProcessingStatus::Connecting);
    current.started_at = Some(work.now());
    let open = limits::active_job_names().into_iter().map(str::to_owned).collect();
    let mut batch = Batch::under(Guard {
        kind: Kind::SimulationJob,
        id: current.simulation_job_id.to_string(),
        owner: engine.worker.owner.to_string(),
        status: Some(queued.as_str().to_owned()),
        parent_in: Some((Kind::RunPlanJob, work.job_id.clone(), open)),
        release: false,
    });
    record_into(&mut batch, Some(queued.as_str()), current.clone(), &work.job_id, &[], None)?;
    let seeing =
        current.agent_endpoint.as_ref().map(|e| casts::three((e.id, current.customer_flow.as_ref().map(|f| f.id))));
    Ok(match engine.store.apply_progress_seeing(batch, seeing).await? {
        (Applied::Written, seen) => Some((current, seen)),
        (Applied::Moved, _) => None,
    })
}

/// The claim's transaction: the simulation goes PROCESSING (CONNECTING) if it is still QUEUED
/// in an open job; otherwise it is cancelled, if it has not ended, and let go.
fn claim_row(tx: &Tx, id: &str, job_id: &str, owner: &str, now: &Timestamp) -> StoreResult<Option<SimulationJob>> {
    // The lease, the status and the body in one read of the simulation's row.
    let held = store::held::read(tx, Kind::SimulationJob, id)?
        .filter(|held| held.lease_owner.as_deref() == Some(owner))
        .ok_or_else(|| leases::lost(Kind::SimulationJob, id))?;
    // The job's status column, not its document (read at every simulation's start), and
    // without claiming the job: a cancel meanwhile meets this simulation's row, which this
    // write holds, and leaves a started simulation to end.
    let job = store::peek_status(tx, Kind::RunPlanJob, job_id)?
        .ok_or_else(|| StoreError::not_found(Kind::RunPlanJob, job_id))?;
    let mut current: SimulationJob = serde_json::from_str(&held.body)?;
    let before = held.status.as_deref();
    let job_open = limits::ACTIVE_JOBS.contains(&RunPlanJobStatus::from(job.as_str()));
    if !job_open || current.status != Some(SimulationJobStatus::Queued) {
        if !current.status.as_ref().is_some_and(SimulationJobStatus::is_terminal) {
            current.status = Some(SimulationJobStatus::Cancelled);
            current.completed_at = Some(now.clone());
            save_held(tx, before, &current, job_id)?;
        }
        store::leases::release(tx, Kind::SimulationJob, id)?;
        return Ok(None);
    }
    current.status = Some(SimulationJobStatus::Processing);
    current.processing_status = Some(ProcessingStatus::Connecting);
    current.started_at = Some(now.clone());
    save_held(tx, before, &current, job_id)?;
    Ok(Some(current))
}

/// Reads the endpoint, its agent and the flow `key` names, with their revisions, in one
/// statement (one round trip on PostgreSQL).
fn read_cast(c: &Conn, key: CastKey) -> DomainResult<Cast> {
    let ([endpoint, agent, flow], revisions) = store::together::get_three_revised(c, &casts::three(key))?;
    let endpoint: AgentEndpoint =
        serde_json::from_str(&endpoint.ok_or_else(|| StoreError::not_found(Kind::AgentEndpoint, &key.0.to_string()))?)?;
    let agent: Option<Agent> = agent.map(|a| serde_json::from_str(&a)).transpose()?;
    let flow: Option<CustomerFlow> = flow.map(|f| serde_json::from_str(&f)).transpose()?;
    Ok(Cast { revisions, endpoint, agent, flow })
}

/// Whether the endpoint is dialled over HTTP (through its request definition).
fn dials_http(endpoint: &AgentEndpoint) -> bool {
    matches!(endpoint.outbound_dial_type, Some(OutboundDialType::HttpRequest))
}

/// An HTTP agent's request definition, with its secrets opened for dialling.
fn read_definition(
    c: &Conn,
    vault: &crate::service::vault::Vault,
    endpoint: &AgentEndpoint,
) -> DomainResult<Option<HttpRequestDefinition>> {
    if !dials_http(endpoint) {
        return Ok(None);
    }
    Ok(endpoint
        .outbound_dial_http_request_definition_id
        .map(|d| crate::service::secrets::definition_to_dial(c, vault, &d.to_string()))
        .transpose()?
        .flatten())
}
