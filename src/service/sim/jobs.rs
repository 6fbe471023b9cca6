//! A run plan job's bookkeeping in the store: saving simulations (and counting each that ends
//! towards the job's verdict), retrying the ones the agent never spoke on, settling the job once
//! every test case has a final attempt, cancelling it, and recovering after a restart.

mod folded;
mod record;

use crate::service::store::Tx;

use crate::api::model::*;
use crate::service::error::{DomainError, DomainResult};
use crate::service::sim::verdict::{self, CheckResult, Tally, TallyPart};
use crate::service::store::batch::Batch;
use crate::service::store::records::StoredCollectionJob;
use crate::service::store::{self, Doc, Kind, ends};
use crate::service::store::{StoreError, StoreResult};
pub(crate) use folded::decide as decide_fold;
pub use record::{RunInputs, StoredRunPlanJob};

pub(super) fn count_simulations(tx: &Tx, job_id: &str) -> StoreResult<u64> {
    store::count_children(tx, Kind::SimulationJob, job_id, &[])
}

/// A retry of a simulation the agent never spoke on: when it dials and its place among its test
/// case's attempts.
#[derive(Debug, Clone)]
pub(crate) struct Retry {
    pub scheduled_at: Timestamp,
    pub attempt_number: u32,
}

/// Saves a simulation. One that has just ended gets an outcome if it has none and is counted
/// in its job's tally, so the job's verdict moves with it.
pub(crate) fn save_simulation(tx: &Tx, simulation: &SimulationJob, job_id: &str) -> StoreResult<()> {
    record_simulation(tx, simulation.clone(), job_id, &[], None, None)
}

/// `save_simulation` for a simulation whose row this transaction has read for writing, its
/// status then `before` (`store::held`): the status is not read again.
pub(crate) fn save_held(tx: &Tx, before: Option<&str>, simulation: &SimulationJob, job_id: &str) -> StoreResult<()> {
    record(tx, Some(before), simulation.clone(), job_id, &[], None, None)
}

/// The same, for a completed simulation with the results of the checks it was judged on. With
/// `retry`, the agent never spoke on it and its test case gets another attempt: a new
/// RETRY_SCHEDULED simulation, and this one is counted as a silent attempt, not a final one.
/// `item`: the item it counts in its job's collection job. Its end is counted by the job's
/// next fold (`settle_job`), not here: see `count_ended`.
pub(crate) fn record_simulation(
    tx: &Tx,
    simulation: SimulationJob,
    job_id: &str,
    results: &[CheckResult],
    retry: Option<Retry>,
    item: Option<ends::Item>,
) -> StoreResult<()> {
    record(tx, None, simulation, job_id, results, retry, item)
}

/// `record_simulation` for a simulation whose row this transaction has read for writing, its
/// status then `before` (`store::held`).
pub(crate) fn record_held(
    tx: &Tx,
    before: Option<&str>,
    simulation: SimulationJob,
    job_id: &str,
    results: &[CheckResult],
    retry: Option<Retry>,
    item: Option<ends::Item>,
) -> StoreResult<()> {
    record(tx, Some(before), simulation, job_id, results, retry, item)
}

/// Records a simulation; `held`: its status as this transaction read it for writing, if it has.
fn record(
    tx: &Tx,
    held: Option<Option<&str>>,
    mut simulation: SimulationJob,
    job_id: &str,
    results: &[CheckResult],
    retry: Option<Retry>,
    item: Option<ends::Item>,
) -> StoreResult<()> {
    if !write_simulation(tx, held, &mut simulation)? {
        return Ok(());
    }
    let retried = match retry {
        Some(retry) if !job_cancelled(tx, job_id)? => {
            place_retry(tx, &simulation, job_id, retry)?;
            true
        }
        _ => false,
    };
    count_ended(tx, job_id, &[Ended { simulation: &simulation, results, retried, item }])
}

/// Writes a simulation; whether it ended with this write. One that ends gets an outcome if it
/// has none (and a cancelled one its reason).
fn write_simulation(tx: &Tx, held: Option<Option<&str>>, simulation: &mut SimulationJob) -> StoreResult<bool> {
    let id = simulation.simulation_job_id.to_string();
    let read = if held.is_none() { store::status(tx, Kind::SimulationJob, &id)? } else { None };
    let before = held.unwrap_or(read.as_deref());
    let (doc, ends_now) = rewritten(before, simulation)?;
    match held {
        Some(before) => store::held::update(tx, &doc, before)?,
        None => store::update(tx, &doc)?,
    }
    Ok(ends_now)
}

/// A simulation's document as written over one whose status was `before`, and whether it
/// ends with it: one that ends gets an outcome if it has none (a cancelled one its reason).
fn rewritten(before: Option<&str>, simulation: &mut SimulationJob) -> StoreResult<(Doc, bool)> {
    let ended_before = before.is_some_and(|s| SimulationJobStatus::from(s).is_terminal());
    let ends_now = !ended_before && simulation.status.as_ref().is_some_and(SimulationJobStatus::is_terminal);
    if ends_now && simulation.outcome.is_none() {
        simulation.outcome = match simulation.status.as_ref() {
            Some(SimulationJobStatus::Completed) | None => Some(SimulationOutcome::NotEvaluated),
            Some(status) => Some(verdict::outcome_when_not_completed(status)),
        };
        if simulation.status == Some(SimulationJobStatus::Cancelled) && simulation.error_message.is_none() {
            simulation.error_message = Some("cancelled with its run before it started".into());
        }
    }
    let doc = Doc::of(&*simulation)?;
    Ok((doc, ends_now))
}

/// Adds to `batch` what `record_held` writes for a simulation whose status was `before`, when
/// no retry is placed (a retry reads its job): the simulation, and its part for the job's
/// next fold if it ends with it. The same rows, decided without a read (`store::batch`).
pub(crate) fn record_into(
    batch: &mut Batch,
    before: Option<&str>,
    mut simulation: SimulationJob,
    job_id: &str,
    results: &[CheckResult],
    item: Option<ends::Item>,
) -> StoreResult<()> {
    let (doc, ends_now) = rewritten(before, &mut simulation)?;
    batch.update(doc, before)?;
    if ends_now {
        let part = TallyPart::ended(&simulation, results);
        batch.end(job_id, ends::End { part: serde_json::to_string(&part)?, item });
    }
    Ok(())
}

fn job_cancelled(tx: &Tx, job_id: &str) -> StoreResult<bool> {
    let status =
        store::status(tx, Kind::RunPlanJob, job_id)?.ok_or_else(|| StoreError::not_found(Kind::RunPlanJob, job_id))?;
    Ok(is_cancelled(&RunPlanJobStatus::from(status.as_str())))
}

/// Whether a caller cancelled the job (it may still be ending).
fn is_cancelled(status: &RunPlanJobStatus) -> bool {
    matches!(status, RunPlanJobStatus::Cancelling | RunPlanJobStatus::Cancelled)
}

/// The statuses of a simulation that has not ended (a retry waiting out its backoff among them).
pub(crate) fn open_statuses() -> Vec<&'static str> {
    use SimulationJobStatus as S;
    names(&[S::Pending, S::Queued, S::Processing, S::Cancelling, S::RetryScheduled])
}

/// The wire names of `statuses`, for the store's status columns.
fn names(statuses: &[SimulationJobStatus]) -> Vec<&str> {
    statuses.iter().map(SimulationJobStatus::as_str).collect()
}

/// A simulation that has just ended, to be counted in its job's tally.
struct Ended<'a> {
    simulation: &'a SimulationJob,
    results: &'a [CheckResult],
    /// A silent attempt whose test case was given another.
    retried: bool,
    /// The item it counts in its job's collection job.
    item: Option<ends::Item>,
}

/// Appends the parts of simulations that have just ended, each in a row of its own: the job's
/// row is not locked, so the ends of one run do not wait on each other (on PostgreSQL they
/// did, for most of a run's time). The job's next fold (`settle_job`) counts them.
fn count_ended(tx: &Tx, job_id: &str, ended: &[Ended]) -> StoreResult<()> {
    for end in ended {
        let part = if end.retried { TallyPart::retried() } else { TallyPart::ended(end.simulation, end.results) };
        ends::append(tx, job_id, &ends::End { part: serde_json::to_string(&part)?, item: end.item.clone() })?;
    }
    Ok(())
}

/// Folds the ends appended for a job into it: its tally, verdict and attempt summary (the
/// job's status column and those members alone: the job's document, several KB, is not
/// decoded and encoded again; SQLite sets them in place), and the items they count in its
/// collection job. The job's row is locked by the caller (`settle_job`).
fn fold_ends(tx: &Tx, job_id: &str, job_status: &str) -> StoreResult<()> {
    let taken = ends::take(tx, job_id)?;
    if taken.is_empty() {
        return Ok(());
    }
    count_items(tx, &taken)?;
    // Jobs from before verdicts have no tally.
    let Some(tally) = store::member(tx, Kind::RunPlanJob, job_id, "$.tally")? else { return Ok(()) };
    let mut tally: Tally = serde_json::from_str(&tally)?;
    for end in &taken {
        tally.add_part(&serde_json::from_str(&end.part)?);
    }
    let status = RunPlanJobStatus::from(job_status);
    store::set_members(tx, Kind::RunPlanJob, job_id, &fold_members(&tally, &status)?)
}

/// The members of a job that a fold sets once its parts are added to `tally`.
fn fold_members(tally: &Tally, status: &RunPlanJobStatus) -> StoreResult<Vec<(&'static str, String)>> {
    Ok(vec![
        ("$.tally", serde_json::to_string(tally)?),
        ("$.verdict", serde_json::to_string(&tally.verdict(status))?),
        ("$.attemptSummary", serde_json::to_string(&tally.attempt_summary())?),
    ])
}

/// Counts ended simulations' items in their collection job: done or failed, and the time of
/// the last, set in place (the collection job is not decoded and written again); its status
/// stays (PROCESSING, or CANCELED by a caller while the run goes on).
fn count_items(tx: &Tx, taken: &[ends::End]) -> StoreResult<()> {
    for (collection_id, done, failed, at) in items_by_collection(taken) {
        if !store::exists(tx, Kind::CollectionJob, collection_id)? {
            continue; // gone: nothing to count in (a missing one must not hold the job's fold)
        }
        let read = |path| -> StoreResult<u64> {
            let counted = store::member(tx, Kind::CollectionJob, collection_id, path)?;
            Ok(counted.and_then(|n| n.parse::<u64>().ok()).unwrap_or(0))
        };
        let (done, failed) = (read("$.completedItems")? + done, read("$.failedItems")? + failed);
        store::set_members(
            tx,
            Kind::CollectionJob,
            collection_id,
            &[
                ("$.completedItems", done.to_string()),
                ("$.failedItems", failed.to_string()),
                ("$.updatedAt", at.into()),
            ],
        )?;
    }
    Ok(())
}

/// The ended simulations' items by collection job, in the order first met: how many done, how
/// many failed, and the last one's time.
fn items_by_collection(taken: &[ends::End]) -> Vec<(&str, u64, u64, &str)> {
    let mut by_collection: Vec<(&str, u64, u64, &str)> = Vec::new();
    for item in taken.iter().filter_map(|end| end.item.as_ref()) {
        let index = match by_collection.iter().position(|(id, ..)| *id == item.collection_id) {
            Some(index) => index,
            None => {
                by_collection.push((&item.collection_id, 0, 0, ""));
                by_collection.len() - 1
            }
        };
        let Some(counted) = by_collection.get_mut(index) else { continue };
        if item.failed {
            counted.2 += 1;
        } else {
            counted.1 += 1;
        }
        counted.3 = &item.at;
    }
    by_collection
}

/// Writes the retry of `silent`: the same test case (endpoint, flow variant, persona,
/// iteration) as a new simulation, RETRY_SCHEDULED until its `scheduledAt`. Its job's metric
/// collection grows by one item.
fn place_retry(tx: &Tx, silent: &SimulationJob, job_id: &str, retry: Retry) -> StoreResult<()> {
    let created = Timestamp::now();
    let next = SimulationJob {
        simulation_job_id: uuid::Uuid::new_v4(),
        status: Some(SimulationJobStatus::RetryScheduled),
        processing_status: Some(ProcessingStatus::Pending),
        created_at: Some(created.clone()),
        started_at: None,
        completed_at: None,
        call_id: None,
        error_message: None,
        outcome: None,
        failed_checks: Vec::new(),
        unscored_checks: Vec::new(),
        judged_checks: Vec::new(),
        invalidation: None,
        attempt_number: Some(retry.attempt_number),
        retry_of_simulation_job_id: Some(silent.simulation_job_id),
        scheduled_at: Some(retry.scheduled_at),
        failure_owner: None,
        enrichment: silent.enrichment.as_ref().map(|e| Enrichment {
            requested: e.requested,
            outcome: if e.requested { EnrichmentOutcome::UnknownOutcome } else { EnrichmentOutcome::NotRequested },
            wait_started_at: None,
            wait_ended_at: None,
        }),
        ..silent.clone()
    };
    let doc = Doc::of(&next)?;
    store::insert(tx, &doc)?;
    if let Some(collection_id) = StoredRunPlanJob::load(tx, job_id)?.collection_job_id {
        let mut collection = StoredCollectionJob::load(tx, &collection_id.to_string())?;
        collection.job.total_items = Some(collection.job.total_items.unwrap_or(0) + 1);
        collection.save(tx)?;
    }
    Ok(())
}

/// Moves a job's retries whose time has come (`now`, on the job's clock) to PENDING.
pub(crate) fn release_due_retries(tx: &Tx, job_id: &str, now: &Timestamp) -> StoreResult<()> {
    let due: Vec<SimulationJob> =
        store::children_with_status(tx, Kind::SimulationJob, job_id, SimulationJobStatus::RetryScheduled.as_str())?;
    let now = now.parse();
    for mut simulation in due {
        let at = simulation.scheduled_at.as_ref().and_then(Timestamp::parse);
        if at.is_none_or(|at| now.is_some_and(|now| at <= now)) {
            simulation.status = Some(SimulationJobStatus::Pending);
            save_simulation(tx, &simulation, job_id)?;
        }
    }
    Ok(())
}

/// How a job of the seeded history runs: on a clock of its own that starts on the night it
/// stands for, as fast as the machine allows, against the reference agent as one of its builds.
/// Its simulations are laid out on that clock as a paced run would have made them (`lay_out`),
/// so the history reads as calls of a minute or two in a run of minutes. Kept on the job (an
/// internal member) so that a restart mid-seeding resumes it the same way.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Replay {
    /// When the job started, on its own clock.
    pub starts_at: Timestamp,
    /// The reference agent's build, by name (`reference_agent::ReferenceBuild`).
    pub reference_build: Option<String>,
}

/// A replayed simulation's place on its job's clock: the plan's concurrent slots each dial in
/// turn, a few seconds apart, and each simulation holds its slot long enough for the longest
/// seeded call and its scoring.
const FIRST_DIAL_MS: i64 = 4_000;
const SLOT_STAGGER_MS: i64 = 1_500;
const SLOT_MS: i64 = 150_000;
/// How long a replayed simulation's metrics take to collect after its call ends.
pub const REPLAY_COLLECTING_MS: i64 = 3_000;

impl Replay {
    /// Now, on this job's clock: the wall clock, or a replay's start.
    pub fn now(replay: Option<&Replay>) -> Timestamp {
        replay.map_or_else(Timestamp::now, |r| r.starts_at.clone())
    }

    /// When the simulation at `position` (its place in the run) starts, with `slots` running at once.
    pub fn lay_out(&self, position: u64, slots: i64) -> Timestamp {
        let (position, slots) = (position as i64, slots.max(1));
        let offset = FIRST_DIAL_MS + (position / slots) * SLOT_MS + (position % slots) * SLOT_STAGGER_MS;
        later(&self.starts_at, offset)
    }
}

/// `at`, `ms` milliseconds later (`at` itself if it is not a time).
pub(crate) fn later(at: &Timestamp, ms: i64) -> Timestamp {
    let moved = at.parse().and_then(|t| t.checked_add(jiff::SignedDuration::from_millis(ms)).ok());
    moved.map_or_else(|| at.clone(), Timestamp::from)
}

/// Has a job run as a replay (see `Replay`).
pub fn set_replay(tx: &Tx, job_id: &str, replay: &Replay) -> StoreResult<()> {
    let mut job = StoredRunPlanJob::load(tx, job_id)?;
    job.replay = Some(replay.clone());
    job.save(tx)
}

/// Folds the ends appended for the job into it (`fold_ends`), then ends the job once every
/// simulation has ended, and closes its collection job.
pub fn settle_job(tx: &Tx, job_id: &str) -> StoreResult<()> {
    fold_job(tx, job_id).map(|_| ())
}

/// Whether a job's fold may have left it open for want of one more fold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Folded {
    /// As it should be: open with simulations still to end, or ended before this fold.
    Done,
    /// Settled by this fold: every simulation ended, the job's status final (its places free
    /// for the jobs that wait on it).
    Settled,
    /// Its last open simulations ended while this fold ran (between its count and its take,
    /// which PostgreSQL's snapshots per statement allow): counted open, their parts taken, the
    /// job left open with nothing more to wake a fold. The next fold settles it.
    Again,
}

/// `settle_job`, saying whether the job must be folded once more (`Folded::Again`).
pub fn fold_job(tx: &Tx, job_id: &str) -> StoreResult<Folded> {
    // Called at every fold: the status column and the kept counts decide, and the job's
    // document is read only when it ends. The job's row is locked first, so folds of one job
    // take turns.
    let status =
        store::status(tx, Kind::RunPlanJob, job_id)?.ok_or_else(|| StoreError::not_found(Kind::RunPlanJob, job_id))?;
    let count = |statuses: &[&str]| store::count_children(tx, Kind::SimulationJob, job_id, statuses);
    // Counted before the ends are taken: a simulation counted ended here committed its end
    // before, so the fold below takes it and a job never settles without one of its parts. A
    // retry waiting out its backoff keeps the run open: it settles once every test case has a
    // final attempt.
    use SimulationJobStatus as S;
    let open_names = open_statuses();
    let open = count(&open_names)?;
    fold_ends(tx, job_id, &status)?;
    if RunPlanJobStatus::from(status.as_str()).is_terminal() {
        return Ok(Folded::Done); // an ended job never changes again (but for a late end's part)
    }
    if open > 0 {
        return Ok(if count(&open_names)? == 0 { Folded::Again } else { Folded::Done });
    }
    let mut stored = StoredRunPlanJob::load(tx, job_id)?;
    let completed = count(&names(&[S::Completed]))?;
    let status = if stored.status() == RunPlanJobStatus::Cancelling {
        RunPlanJobStatus::Cancelled
    } else if completed > 0 {
        RunPlanJobStatus::Completed
    } else {
        RunPlanJobStatus::Failed
    };
    if stored.job.status.as_ref() == Some(&status) {
        return Ok(Folded::Done);
    }
    let now = ended_at(tx, job_id, stored.replay.as_ref())?;
    let job = &mut stored.job;
    job.status = Some(status.clone());
    job.ended_at = Some(now.clone());
    if status == RunPlanJobStatus::Failed {
        job.error_message = Some("no simulation succeeded; see each simulation's errorMessage".into());
    }
    stored.save(tx)?;
    if let Some(collection_id) = stored.collection_job_id {
        close_collection(tx, &collection_id.to_string(), &status, now)?;
    }
    Ok(Folded::Settled)
}

/// Closes an ended job's collection job, unless a caller cancelled it while the run went on (it
/// stays CANCELED).
fn close_collection(tx: &Tx, id: &str, job_status: &RunPlanJobStatus, now: Timestamp) -> StoreResult<()> {
    let mut collection = StoredCollectionJob::load(tx, id)?;
    let job = &mut collection.job;
    if job.status.as_ref().is_some_and(CollectionJobStatus::is_terminal) {
        return Ok(());
    }
    job.status = Some(if *job_status == RunPlanJobStatus::Cancelled {
        CollectionJobStatus::Canceled
    } else {
        CollectionJobStatus::Completed
    });
    job.completed_at = Some(now.clone());
    job.updated_at = Some(now);
    collection.save(tx)
}

/// When a job that has just settled ended: now, or for a replay, a moment after its last
/// simulation ended on its clock.
fn ended_at(tx: &Tx, job_id: &str, replay: Option<&Replay>) -> StoreResult<Timestamp> {
    let Some(replay) = replay else { return Ok(Timestamp::now()) };
    let simulations: Vec<SimulationJob> = store::children(tx, Kind::SimulationJob, job_id)?;
    let last = simulations.iter().filter_map(|s| s.completed_at.as_ref()).max_by_key(|t| t.parse());
    Ok(later(last.unwrap_or(&replay.starts_at), 1_000))
}

/// Hands back a simulation whose replica stopped renewing its lease (it died, or lost the
/// store) while the simulation was picked or running: its conversation lived in that replica's
/// memory, so it runs again from its start (a call it had stored is removed), unless its run
/// was cancelled meanwhile (it is cancelled) or its leases have run out `MAX_EXPIRIES` times
/// (it fails, rather than be tried for ever). Its job settles.
pub(crate) fn hand_back(tx: &Tx, id: &str, job_id: &str, exhausted: bool) -> StoreResult<()> {
    let mut simulation: SimulationJob = store::require(tx, Kind::SimulationJob, id)?;
    if !matches!(simulation.status, Some(SimulationJobStatus::Queued | SimulationJobStatus::Processing)) {
        return settle_job(tx, job_id); // ended (or not started) meanwhile: nothing to run again
    }
    let job_status = store::status(tx, Kind::RunPlanJob, job_id)?.unwrap_or_default();
    let replay = store::member(tx, Kind::RunPlanJob, job_id, "$.replay")?;
    let replay = replay.map(|r| serde_json::from_str::<Option<Replay>>(&r)).transpose()?.flatten();
    let now = Replay::now(replay.as_ref());
    if is_cancelled(&RunPlanJobStatus::from(job_status.as_str())) {
        simulation.status = Some(SimulationJobStatus::Cancelled);
        simulation.completed_at = Some(now);
    } else if exhausted {
        simulation.status = Some(SimulationJobStatus::Failed);
        simulation.failure_owner = Some(FailureOwner::Roark);
        simulation.error_message = Some(format!(
            "interrupted: the service running this simulation stopped {} times before it ended",
            crate::service::replica::leases::MAX_EXPIRIES
        ));
        simulation.completed_at = Some(now);
    } else {
        if let Some(call) = simulation.call_id.take() {
            store::soft_delete(tx, Kind::Call, &call.to_string(), &now.0)?;
        }
        simulation.status = Some(SimulationJobStatus::Pending);
        simulation.processing_status = Some(ProcessingStatus::Pending);
        simulation.started_at = None;
    }
    save_simulation(tx, &simulation, job_id)?;
    settle_job(tx, job_id)
}

/// The job's retries waiting out their backoff, soonest first.
pub fn pending_retries(conn: &crate::service::store::Conn, job_id: &str) -> StoreResult<Vec<PendingRetry>> {
    let job = StoredRunPlanJob::load(conn, job_id)?;
    let waiting: Vec<SimulationJob> =
        store::children_with_status(conn, Kind::SimulationJob, job_id, SimulationJobStatus::RetryScheduled.as_str())?;
    if waiting.is_empty() {
        return Ok(Vec::new());
    }
    // Retries are placed from the job's plan: a job with retries and no plan is broken.
    let plan = job.plan()?.ok_or_else(|| StoreError::backend(format!("run plan job {job_id} has no plan")))?;
    let max_attempts = plan.max_no_response_retries_or_default().max(0) as u32 + 1;
    let mut retries: Vec<PendingRetry> = waiting
        .into_iter()
        .map(|simulation| PendingRetry {
            attempt_number: simulation.attempt_number.unwrap_or(2),
            max_attempts,
            scheduled_at: simulation.scheduled_at,
            simulation_job_id: simulation.simulation_job_id,
        })
        .collect();
    retries.sort_by_key(|r| r.scheduled_at.as_ref().and_then(Timestamp::parse));
    Ok(retries)
}

/// Ends a job the engine cannot run (its plan cannot be read, or it carries text the store
/// cannot keep): every simulation not yet ended fails with `reason`, and so does the job, so
/// that one bad job is reported rather than retried for ever in front of the others.
pub fn fail(tx: &Tx, id: &str, reason: &str) -> StoreResult<()> {
    let Some(status) = store::status(tx, Kind::RunPlanJob, id)? else { return Ok(()) };
    if RunPlanJobStatus::from(status.as_str()).is_terminal() {
        return Ok(());
    }
    let at = Timestamp::now();
    let unfinished = [
        SimulationJobStatus::Pending,
        SimulationJobStatus::Queued,
        SimulationJobStatus::Processing,
        SimulationJobStatus::RetryScheduled,
    ];
    end_each(tx, id, &unfinished, |simulation| {
        simulation.status = Some(SimulationJobStatus::Failed);
        simulation.failure_owner = Some(FailureOwner::Roark);
        simulation.error_message = Some(reason.to_owned());
        simulation.completed_at = Some(at.clone());
    })?;
    settle_job(tx, id)?;
    let mut job = StoredRunPlanJob::load(tx, id)?;
    if job.status() == RunPlanJobStatus::Failed {
        job.job.error_message = Some(reason.to_owned());
        job.save(tx)?;
    }
    Ok(())
}

/// Ends every simulation of job `id` in one of `statuses` as `end` says, a page at a time: each
/// one ended leaves its status, so the next page is the next one waiting, and a
/// 100,000-simulation job is never read whole. Their parts are folded into the job's tally by
/// the caller's `settle_job`, once.
fn end_each(tx: &Tx, id: &str, statuses: &[SimulationJobStatus], end: impl Fn(&mut SimulationJob)) -> StoreResult<()> {
    for waiting in statuses {
        loop {
            let page = store::children_in_status_raw(tx, Kind::SimulationJob, id, waiting.as_str(), 500)?;
            if page.is_empty() {
                break;
            }
            let mut ended_now = Vec::with_capacity(page.len());
            for body in page {
                let mut simulation: SimulationJob = serde_json::from_str(&body)?;
                end(&mut simulation);
                if write_simulation(tx, None, &mut simulation)? {
                    ended_now.push(simulation);
                }
            }
            let ended: Vec<Ended> = ended_now
                .iter()
                .map(|simulation| Ended { simulation, results: &[], retried: false, item: None })
                .collect();
            count_ended(tx, id, &ended)?;
        }
    }
    Ok(())
}

/// Cancels a job: it moves to CANCELLING, and every simulation not yet started is CANCELLED.
/// A simulation mid-call belongs to the engine: it finishes, then the job settles.
pub fn cancel(tx: &Tx, id: &str) -> DomainResult<()> {
    let status = store::status(tx, Kind::RunPlanJob, id)?.ok_or_else(|| DomainError::not_found("run plan job", id))?;
    if RunPlanJobStatus::from(status.as_str()).is_terminal() {
        return Err(DomainError::invalid("jobId", format!("the job has already ended ({status})")));
    }
    let at = Timestamp::now();
    let waiting = [SimulationJobStatus::Pending, SimulationJobStatus::Queued, SimulationJobStatus::RetryScheduled];
    end_each(tx, id, &waiting, |simulation| {
        simulation.status = Some(SimulationJobStatus::Cancelled);
        simulation.completed_at = Some(at.clone());
    })?;
    let mut job = StoredRunPlanJob::load(tx, id)?;
    job.job.status = Some(RunPlanJobStatus::Cancelling);
    job.save(tx)?;
    // With nothing mid-call, nobody else would end the job: it is CANCELLED now.
    Ok(settle_job(tx, id)?)
}

#[cfg(test)]
mod tests;
