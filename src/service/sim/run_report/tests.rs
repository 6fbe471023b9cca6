//! A run's results surface what the store fails to read rather than building the report
//! without it (a collection job that does not decode is not a run without one).

use serde_json::json;

use super::*;
use crate::service::error::DomainError;
use crate::service::store::{Doc, Store, StoreError};

const JOB: &str = "00000000-0000-4000-8000-000000000001";
const COLLECTION: &str = "00000000-0000-4000-8000-000000000002";
const AT: &str = "2026-01-01T00:00:00Z";

/// A finished job whose collection job is stored as `collection`.
fn store_with(collection: serde_json::Value) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e:?}"));
    let store = Store::open_sqlite(&dir.path().join("t.db")).unwrap_or_else(|e| panic!("{e:?}"));
    let job =
        json!({ "simulationRunPlanJobId": JOB, "status": "COMPLETED", "createdAt": AT, "collectionJobId": COLLECTION });
    store
        .write_blocking(|tx| -> StoreResult<()> {
            store::insert(tx, &Doc::new(Kind::RunPlanJob, JOB, &job, AT)?.status(Some("COMPLETED")))?;
            store::insert(tx, &Doc::new(Kind::CollectionJob, COLLECTION, &collection, AT)?.status(Some("COMPLETED")))
        })
        .unwrap_or_else(|e| panic!("{e:?}"));
    (dir, store)
}

#[test]
fn a_run_reads_its_collection_job() {
    let (_dir, store) = store_with(json!({ "id": COLLECTION, "status": "COMPLETED", "createdAt": AT }));
    let results = store.read_blocking(|c| run_results(c, JOB));
    assert!(results.is_ok(), "{results:?}");
}

#[test]
fn a_collection_job_the_store_cannot_read_fails_the_results() {
    let (_dir, store) = store_with(json!({ "id": COLLECTION, "status": "COMPLETED", "createdAt": 17 }));
    let results = store.read_blocking(|c| run_results(c, JOB));
    assert!(matches!(results, Err(DomainError::Store(StoreError::Backend(_)))), "{results:?}");
}
