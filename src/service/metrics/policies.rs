//! Metric policies deleted: the rules of `DELETE /v1/metric/policies/{id}`.

use crate::api::model::{MetricPolicy, PolicyType, Timestamp};
use crate::service::error::{DomainError, DomainResult};
use crate::service::store::{self, Kind, Tx};

/// Deletes the policy `id` (kept, hidden from every read; jobs that named it keep their values).
/// System policies are refused.
pub fn delete(tx: &Tx, id: &str) -> DomainResult<()> {
    let policy: MetricPolicy = store::require(tx, Kind::MetricPolicy, id)?;
    if policy.policy_type == Some(PolicyType::System) {
        return Err(DomainError::invalid(
            "policyId",
            "system policies cannot be deleted; set status INACTIVE to stop it",
        ));
    }
    store::soft_delete(tx, Kind::MetricPolicy, id, &Timestamp::now().0)?;
    Ok(())
}
