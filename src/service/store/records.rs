//! The collection job as the store keeps it: the model's members and the ones its engines keep
//! beside them, read and written whole as one typed record. A stored body that does not
//! decode is an error, never a default.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use uuid::Uuid;

use super::error::StoreResult;
use super::{Conn, Doc, Kind, Stored, Tx, docs};
use crate::api::model::{CollectionJob, CollectionJobInput};

/// A stored metric collection job.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredCollectionJob {
    #[serde(flatten)]
    pub job: CollectionJob,
    /// What was asked for (never sent: `Kind::internal_members`).
    pub request: Option<CollectionJobInput>,
    /// The run plan job whose simulations it scores.
    pub simulation_run_plan_job_id: Option<Uuid>,
    /// Members this record does not name (older bodies), kept as they were.
    #[serde(flatten)]
    pub rest: serde_json::Map<String, serde_json::Value>,
}

impl StoredCollectionJob {
    /// A new record of `job` with the request it runs.
    pub fn new(job: CollectionJob, request: CollectionJobInput) -> Self {
        StoredCollectionJob { job, request: Some(request), simulation_run_plan_job_id: None, rest: Default::default() }
    }

    /// The job `id`; not found when there is none.
    pub fn load(conn: &Conn, id: &str) -> StoreResult<Self> {
        docs::require(conn, Kind::CollectionJob, id)
    }

    /// The job `id`, if there is one.
    pub fn find(conn: &Conn, id: &str) -> StoreResult<Option<Self>> {
        docs::get(conn, Kind::CollectionJob, id)
    }

    pub fn insert(&self, tx: &Tx) -> StoreResult<()> {
        docs::insert(tx, &Doc::of(self)?)
    }

    /// Writes the record over the stored one; its status column follows its status.
    pub fn save(&self, tx: &Tx) -> StoreResult<()> {
        docs::update(tx, &Doc::of(self)?)
    }
}

impl Stored for StoredCollectionJob {
    const KIND: Kind = Kind::CollectionJob;
    fn id(&self) -> String {
        self.job.id.to_string()
    }
    fn created_at(&self) -> Option<String> {
        self.job.created_at.as_ref().map(|t| t.0.clone())
    }
    fn status_column(&self) -> Option<&str> {
        self.job.status.as_ref().map(|s| s.as_str())
    }
}

/// A member kept as it is stored and decoded where it is used: a record whose member does not
/// decode still reads (a job whose plan was damaged can be failed with that reason), and the
/// engine that needs the member gets the decode error, never a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Kept<T> {
    stored: serde_json::Value,
    #[serde(skip)]
    kind: std::marker::PhantomData<T>,
}

impl<T: Serialize + serde::de::DeserializeOwned> Kept<T> {
    pub fn new(value: &T) -> serde_json::Result<Self> {
        Ok(Kept { stored: serde_json::to_value(value)?, kind: std::marker::PhantomData })
    }

    /// The member, or why it does not decode.
    pub fn decode(&self) -> serde_json::Result<T> {
        T::deserialize(&self.stored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::CollectionJobStatus;

    #[test]
    fn a_stored_job_reads_and_writes_back_every_member_it_held() {
        let body = serde_json::json!({
            "id": "00000000-0000-4000-8000-000000000002", "status": "PROCESSING", "totalItems": 3,
            "completedItems": 1, "failedItems": 0, "startedAt": "2026-01-01T00:00:00Z", "completedAt": null,
            "errorMessage": null, "policyIds": [], "createdAt": "2026-01-01T00:00:00Z",
            "request": {"metrics": [{"id": "00000000-0000-4000-8000-000000000007"}]},
            "simulationRunPlanJobId": "00000000-0000-4000-8000-000000000001", "olderMember": {"kept": true},
        });
        let stored: StoredCollectionJob = serde_json::from_value(body.clone()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stored.job.status, Some(CollectionJobStatus::Processing));
        assert_eq!(serde_json::to_value(&stored).unwrap_or_else(|e| panic!("{e}")), body);
    }

    #[test]
    fn a_kept_member_that_does_not_decode_is_an_error_where_it_is_used() {
        let kept: Kept<CollectionJobInput> =
            serde_json::from_value(serde_json::json!("not a request")).unwrap_or_else(|e| panic!("{e}"));
        let error = kept.decode().err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("invalid type"), "{error}");
    }
}
