//! Runs metric collection jobs: PENDING → PROCESSING → COMPLETED (or FAILED), advancing
//! `completedItems`/`failedItems` per call, keeping exactly the values each job produced.
//! Cancelling stops after the call in hand; what was computed is kept. A job is leased to the
//! replica that runs it; one whose replica stopped starts over on another (`hand_back`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use uuid::Uuid;

use super::compute::Conversation;
use super::evaluate::{Catalog, evaluate, policy_matches};
use super::judge::Judge;
use crate::api::model::*;
use crate::service::error::DomainError;
use crate::service::replica::leases::{self, Worker};
use crate::service::store::records::StoredCollectionJob;
use crate::service::store::{self, Kind, Store, Tx};
use crate::service::store::{StoreError, StoreResult};

/// The background runner of collection jobs.
#[derive(Clone)]
pub struct Collector {
    store: Store,
    judge: Arc<Judge>,
    wake: Arc<Notify>,
    worker: Worker,
}

/// What one job computes.
struct Plan {
    definitions: Vec<MetricDefinition>,
    calls: Vec<Uuid>,
    chats: Vec<Uuid>,
    policy_ids: Vec<Uuid>,
}

impl Collector {
    pub fn new(store: Store, judge: Arc<Judge>, worker: Worker) -> Collector {
        Collector { store, judge, wake: Arc::new(Notify::new()), worker }
    }

    /// Tells the runner a job is waiting.
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// Runs jobs as they arrive; a timer catches anything a wake-up missed.
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                if let Err(e) = self.run_pending().await {
                    tracing::error!("collection runner: {e}");
                }
                tokio::select! {
                    _ = self.wake.notified() => {}
                    _ = tokio::time::sleep(Duration::from_secs(2)) => {}
                }
            }
        })
    }

    /// Runs every PENDING job, oldest first.
    pub async fn run_pending(&self) -> StoreResult<()> {
        loop {
            let next: Option<String> = self
                .store
                .read(|c| -> StoreResult<_> {
                    let pending = store::in_status(c, Kind::CollectionJob, &[CollectionJobStatus::Pending.as_str()])?;
                    Ok(pending.into_iter().next().map(|(id, _, _)| id))
                })
                .await?;
            let Some(id) = next else { return Ok(()) };
            match self.run(&id).await {
                Ok(()) => {}
                // Another replica took the job over (or claimed it first).
                Err(e @ StoreError::LeaseLost { .. }) => tracing::info!("collection job {id}: {e}"),
                Err(e) => {
                    // The job's errorMessage is public: a store fault reads as the service's
                    // answer to a caller would, its cause only in the log.
                    let (message, owner) = (DomainError::Store(e).told(), self.worker.owner.clone());
                    self.store
                        .write(move |tx| {
                            leases::require_held(tx, Kind::CollectionJob, &id, &owner)?;
                            finish(tx, &id, CollectionJobStatus::Failed, Some(&message))
                        })
                        .await
                        .or_else(|e| match e {
                            StoreError::LeaseLost { .. } => Ok(()),
                            e => Err(e),
                        })?;
                }
            }
        }
    }

    async fn run(&self, id: &str) -> StoreResult<()> {
        let job_id = id.to_owned();
        let worker = self.worker.clone();
        let plan = self
            .store
            .write(move |tx| {
                let mut stored = StoredCollectionJob::load(tx, &job_id)?;
                // Every replica sees the job waiting; the first to claim it runs it.
                if stored.job.status != Some(CollectionJobStatus::Pending) {
                    return Err(leases::lost(Kind::CollectionJob, &job_id));
                }
                let plan = plan_job(tx, &stored)?;
                let job = &mut stored.job;
                job.status = Some(CollectionJobStatus::Processing);
                job.started_at = Some(Timestamp::now());
                job.total_items = Some((plan.calls.len() + plan.chats.len()) as u64);
                stored.save(tx)?;
                store::leases::take(tx, Kind::CollectionJob, &job_id, &worker.owner, worker.until_ms())?;
                Ok(plan)
            })
            .await?;
        let catalog = self.store.read(Catalog::load).await?;
        let library = catalog.library(&self.judge);
        let items = plan.calls.iter().map(|id| (*id, false)).chain(plan.chats.iter().map(|id| (*id, true)));
        for (item_id, is_chat) in items {
            let key = item_id.to_string();
            let (call, transcript, flow, variant_id) = self.store.read(move |c| conversation(c, &key, is_chat)).await?;
            let variant =
                flow.as_ref().and_then(|f| f.happy_path.iter().chain(&f.edge_cases).find(|v| Some(v.id) == variant_id));
            let conv =
                Conversation { call: &call, transcript: &transcript, flow: flow.as_ref(), variant, walked: None };
            let mut values = Vec::new();
            for definition in &plan.definitions {
                for mut value in evaluate(definition, &conv, &library).await {
                    value.computed_at = Some(Timestamp::now());
                    value.policy_ids = plan.policy_ids.clone();
                    if is_chat {
                        value.chat_id = value.call_id.take();
                    }
                    values.push((definition.id, value));
                }
            }
            let (job_id, owner) = (id.to_owned(), self.worker.owner.clone());
            let cancelled = self
                .store
                .write(move |tx| -> StoreResult<_> {
                    leases::require_held(tx, Kind::CollectionJob, &job_id, &owner)?;
                    let mut stored = StoredCollectionJob::load(tx, &job_id)?;
                    if stored.job.status == Some(CollectionJobStatus::Canceled) {
                        return Ok(true);
                    }
                    let failed = values.iter().any(|(_, v)| v.capture_status == Some(CaptureStatus::Error));
                    for (definition_id, value) in &values {
                        let (call, chat) = (value.call_id.map(|c| c.to_string()), value.chat_id.map(|c| c.to_string()));
                        let key = store::values::ValueKey {
                            job_id: &job_id,
                            definition_id: &definition_id.to_string(),
                            call_id: call.as_deref(),
                            chat_id: chat.as_deref(),
                        };
                        store::values::put(tx, &key, value)?;
                    }
                    let job = &mut stored.job;
                    let counted = if failed { &mut job.failed_items } else { &mut job.completed_items };
                    *counted = Some(counted.unwrap_or(0) + 1);
                    job.updated_at = Some(Timestamp::now());
                    stored.save(tx)?;
                    Ok(false)
                })
                .await?;
            if cancelled {
                return Ok(());
            }
        }
        let (job_id, owner) = (id.to_owned(), self.worker.owner.clone());
        self.store
            .write(move |tx| {
                leases::require_held(tx, Kind::CollectionJob, &job_id, &owner)?;
                let job = StoredCollectionJob::load(tx, &job_id)?.job;
                let total = job.total_items.unwrap_or(0);
                if total > 0 && job.failed_items == Some(total) {
                    let message = "every item failed; see the values' errorMessage";
                    finish(tx, &job_id, CollectionJobStatus::Failed, Some(message))
                } else {
                    finish(tx, &job_id, CollectionJobStatus::Completed, None)
                }
            })
            .await
    }
}

/// Which metrics and which calls a job covers: its own metrics and its policies' metrics, on
/// its calls, or (with policies and no calls) on every call a policy selects.
fn plan_job(tx: &crate::service::store::Tx, stored: &StoredCollectionJob) -> StoreResult<Plan> {
    let request = stored.request.clone().unwrap_or_default();
    let policy_ids = stored.job.policy_ids.clone();
    let policies: Vec<MetricPolicy> = policy_ids
        .iter()
        .filter_map(|id| store::get(tx, Kind::MetricPolicy, &id.to_string()).transpose())
        .collect::<StoreResult<_>>()?;
    let mut metric_ids: Vec<Uuid> = request.metrics.iter().flatten().map(|m| m.id).collect();
    for policy in &policies {
        metric_ids.extend(policy.metrics.iter().map(|m| m.id));
    }
    let mut seen = std::collections::HashSet::new();
    metric_ids.retain(|id| seen.insert(*id));
    let definitions = metric_ids
        .iter()
        .map(|id| store::get::<MetricDefinition>(tx, Kind::MetricDefinition, &id.to_string()))
        .filter_map(Result::transpose)
        .collect::<StoreResult<Vec<_>>>()?;
    let mut calls = request.call_ids.unwrap_or_default();
    if calls.is_empty() && !policies.is_empty() {
        let endpoints: HashMap<Uuid, AgentEndpoint> =
            store::all::<AgentEndpoint>(tx, Kind::AgentEndpoint)?.into_iter().map(|e| (e.id, e)).collect();
        for call in store::all::<Call>(tx, Kind::Call)? {
            let endpoint = call.agent_endpoint_id.and_then(|id| endpoints.get(&id));
            if policies.iter().any(|p| policy_matches(p, &call, endpoint)) {
                calls.push(call.id);
            }
        }
    }
    Ok(Plan { definitions, calls, chats: request.chat_ids.unwrap_or_default(), policy_ids })
}

/// A call (or a chat, read as one) with its transcript and, for a simulated call, its flow.
fn conversation(
    conn: &crate::service::store::Conn,
    id: &str,
    is_chat: bool,
) -> StoreResult<(Call, Transcript, Option<CustomerFlow>, Option<Uuid>)> {
    let call: Call = if is_chat {
        let chat: Chat = store::require(conn, Kind::Chat, id)?;
        serde_json::from_value(
            serde_json::json!({"id": chat.id, "startedAt": chat.started_at, "agentId": chat.agent_id}),
        )?
    } else {
        store::require(conn, Kind::Call, id)?
    };
    let transcript = store::transcripts::get(conn, id)?;
    // A simulated call is read with the flow and variant its simulation ran.
    let ran = match call.simulation_job_id {
        Some(job) => {
            store::get::<SimulationJob>(conn, Kind::SimulationJob, &job.to_string())?.and_then(|j| j.customer_flow)
        }
        None => None,
    };
    let flow = ran
        .as_ref()
        .map(|f| store::get::<CustomerFlow>(conn, Kind::CustomerFlow, &f.id.to_string()))
        .transpose()?
        .flatten();
    Ok((call, transcript, flow, ran.and_then(|f| f.variant_id)))
}

/// Ends a job (unless a caller cancelled it) and its lease.
fn finish(tx: &Tx, id: &str, status: CollectionJobStatus, error: Option<&str>) -> StoreResult<()> {
    store::leases::release(tx, Kind::CollectionJob, id)?;
    let mut stored = StoredCollectionJob::load(tx, id)?;
    let job = &mut stored.job;
    if job.status == Some(CollectionJobStatus::Canceled) {
        return Ok(());
    }
    let now = Timestamp::now();
    job.status = Some(status);
    job.completed_at = Some(now.clone());
    job.updated_at = Some(now);
    if let Some(error) = error {
        job.error_message = Some(error.to_owned());
    }
    stored.save(tx)
}

/// Hands back a job whose replica stopped renewing its lease while running it: the values it
/// had written are forgotten and it waits to start over, unless its leases have run out
/// `MAX_EXPIRIES` times (it fails). A job no longer running (a caller cancelled it) is left.
pub(crate) fn hand_back(tx: &Tx, id: &str, exhausted: bool) -> StoreResult<()> {
    let mut stored = StoredCollectionJob::load(tx, id)?;
    if stored.job.status != Some(CollectionJobStatus::Processing) {
        return Ok(());
    }
    if exhausted {
        let message =
            format!("interrupted: the service running this job stopped {} times before it ended", leases::MAX_EXPIRIES);
        return finish(tx, id, CollectionJobStatus::Failed, Some(&message));
    }
    store::values::delete_of_job(tx, id)?;
    let job = &mut stored.job;
    job.status = Some(CollectionJobStatus::Pending);
    job.started_at = None;
    job.completed_items = Some(0);
    job.failed_items = Some(0);
    job.updated_at = Some(Timestamp::now());
    stored.save(tx)
}
