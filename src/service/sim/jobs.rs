//! A run plan job's bookkeeping in the store: saving simulations, settling the job once all
//! have ended, and recovering after a restart.

use rusqlite::{Transaction, params};
use serde_json::Value;

use crate::api::model::*;
use crate::service::error::ServiceResult;
use crate::service::store::{self, Doc, Kind};

pub(super) fn count_simulations(tx: &Transaction, job_id: &str) -> ServiceResult<u64> {
    Ok(tx.query_row(
        "SELECT COUNT(*) FROM docs WHERE kind = 'simulation_job' AND parent_id = ?1",
        params![job_id],
        |r| r.get::<_, i64>(0),
    )? as u64)
}

pub(super) fn save_simulation(tx: &Transaction, simulation: &SimulationJob, job_id: &str) -> ServiceResult<()> {
    let status = simulation.status.as_ref().map(|s| s.as_str());
    let created = simulation.created_at.clone().map(|t| t.0).unwrap_or_default();
    store::update(
        tx,
        &Doc::new(Kind::SimulationJob, simulation.simulation_job_id, simulation, created)?
            .status(status)
            .parent(Some(job_id)),
    )
}

pub(super) fn save_job(tx: &Transaction, job_id: &str, job: &Value) -> ServiceResult<()> {
    let created = job["createdAt"].as_str().unwrap_or_default().to_owned();
    let plan = job["simulationRunPlanId"].as_str().map(str::to_owned);
    let status = job["status"].as_str().map(str::to_owned);
    store::update(
        tx,
        &Doc::new(Kind::RunPlanJob, job_id, job, created)?.status(status.as_deref()).parent(plan.as_deref()),
    )
}

/// Ends the job once every simulation has ended, and closes its collection job.
pub fn settle_job(tx: &Transaction, job_id: &str) -> ServiceResult<()> {
    let mut job: Value = store::require(tx, Kind::RunPlanJob, job_id)?;
    if matches!(job["status"].as_str(), Some("COMPLETED" | "FAILED" | "CANCELLED" | "TIMED_OUT")) {
        return Ok(()); // an ended job never changes again
    }
    let count = |statuses: &str| -> rusqlite::Result<i64> {
        tx.prepare_cached(&format!(
            "SELECT COUNT(*) FROM docs WHERE kind = 'simulation_job' AND parent_id = ?1 AND status IN ({statuses})"
        ))?
        .query_row(params![job_id], |r| r.get(0))
    };
    if count("'PENDING', 'QUEUED', 'PROCESSING'")? > 0 {
        return Ok(());
    }
    let completed = count("'COMPLETED'")?;
    let status = if job["status"] == "CANCELLING" {
        "CANCELLED"
    } else if completed > 0 {
        "COMPLETED"
    } else {
        "FAILED"
    };
    if job["status"] == status {
        return Ok(());
    }
    let now = serde_json::to_value(Timestamp::now())?;
    job["status"] = status.into();
    job["endedAt"] = now.clone();
    if status == "FAILED" {
        job["errorMessage"] = "no simulation succeeded; see each simulation's errorMessage".into();
    }
    save_job(tx, job_id, &job)?;
    if let Some(collection_id) = job["collectionJobId"].as_str() {
        let mut collection: Value = store::require(tx, Kind::CollectionJob, collection_id)?;
        let final_status = if status == "CANCELLED" { "CANCELED" } else { "COMPLETED" };
        collection["status"] = final_status.into();
        collection["completedAt"] = now.clone();
        collection["updatedAt"] = now;
        let created = collection["createdAt"].as_str().unwrap_or_default().to_owned();
        store::update(
            tx,
            &Doc::new(Kind::CollectionJob, collection_id, &collection, created)?.status(Some(final_status)),
        )?;
    }
    Ok(())
}

/// After a restart: a simulation that was mid-call cannot be resumed (its conversation lived in
/// memory), so it is FAILED with the reason; queued ones go back to PENDING and run again.
pub(super) fn recover(tx: &Transaction) -> ServiceResult<()> {
    let interrupted: Vec<(String, String)> = tx
        .prepare(
            "SELECT body, parent_id FROM docs WHERE kind = 'simulation_job' AND status IN ('QUEUED', 'PROCESSING')",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut jobs = std::collections::BTreeSet::new();
    for (body, job_id) in interrupted {
        let mut simulation: SimulationJob = serde_json::from_str(&body)?;
        if simulation.status == Some(SimulationJobStatus::Queued) {
            simulation.status = Some(SimulationJobStatus::Pending);
        } else {
            simulation.status = Some(SimulationJobStatus::Failed);
            simulation.error_message =
                Some("interrupted: the service restarted while this simulation was running".into());
            simulation.completed_at = Some(Timestamp::now());
        }
        save_simulation(tx, &simulation, &job_id)?;
        jobs.insert(job_id);
    }
    let cancelling: Vec<String> = tx
        .prepare("SELECT id FROM docs WHERE kind = 'run_plan_job' AND status = 'CANCELLING'")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for job_id in jobs.into_iter().chain(cancelling) {
        settle_job(tx, &job_id)?;
    }
    Ok(())
}
