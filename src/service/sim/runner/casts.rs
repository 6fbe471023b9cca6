//! The documents a simulation is set up with (its endpoint, the endpoint's agent, its flow),
//! kept per job: every simulation of a job names the same few, so they are read once and
//! again only when one changed. Each simulation's claim answers their revisions
//! (`Store::apply_progress_seeing`), so a change to an agent mid-run reaches every simulation
//! claimed after it, as a read at every set-up did; the cache of a job is dropped when the job
//! is no longer active. An HTTP agent's request definition, with its secrets opened, is not
//! kept: it is read at each set-up that dials it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use uuid::Uuid;

use crate::api::model::{Agent, AgentEndpoint, CustomerFlow};
use crate::service::store::Kind;
use crate::service::store::together::{Revisions, Three};

/// The documents a simulation is set up with, as stored at `revisions`.
#[derive(Debug)]
pub(super) struct Cast {
    pub revisions: Revisions,
    pub endpoint: AgentEndpoint,
    pub agent: Option<Agent>,
    pub flow: Option<CustomerFlow>,
}

/// Which documents: the endpoint and the flow a simulation names.
pub(super) type CastKey = (Uuid, Option<Uuid>);

/// The three documents `key` names, for a read or their revisions.
pub(super) fn three(key: CastKey) -> Three {
    Three {
        first: (Kind::AgentEndpoint, key.0.to_string()),
        named: (Kind::Agent, "$.agentId".to_owned()),
        other: key.1.map(|flow| (Kind::CustomerFlow, flow.to_string())),
    }
}

/// Each active job's casts.
#[derive(Debug, Default)]
pub(super) struct Casts {
    by_job: Mutex<HashMap<String, HashMap<CastKey, Arc<Cast>>>>,
}

impl Casts {
    /// The cast kept for `job_id`'s `key`, if it is still at `revisions` (the endpoint present).
    pub(super) fn get(&self, job_id: &str, key: CastKey, revisions: &Revisions) -> Option<Arc<Cast>> {
        revisions[0].as_ref()?; // no endpoint: never a hit
        let by_job = self.by_job.lock().unwrap_or_else(|e| e.into_inner());
        by_job.get(job_id)?.get(&key).filter(|cast| &cast.revisions == revisions).cloned()
    }

    /// Keeps `cast` for `job_id`'s `key`, in place of what was kept.
    pub(super) fn put(&self, job_id: &str, key: CastKey, cast: Arc<Cast>) {
        let mut by_job = self.by_job.lock().unwrap_or_else(|e| e.into_inner());
        by_job.entry(job_id.to_owned()).or_default().insert(key, cast);
    }

    /// Drops the casts of every job `active` does not name.
    pub(super) fn retain(&self, active: impl Fn(&str) -> bool) {
        self.by_job.lock().unwrap_or_else(|e| e.into_inner()).retain(|job_id, _| active(job_id));
    }

    /// How many jobs have casts kept.
    #[cfg(test)]
    pub(super) fn jobs(&self) -> usize {
        self.by_job.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cast(revisions: Revisions) -> Arc<Cast> {
        let endpoint: AgentEndpoint =
            serde_json::from_value(serde_json::json!({ "id": Uuid::nil() })).unwrap_or_else(|e| panic!("{e:?}"));
        Arc::new(Cast { revisions, endpoint, agent: None, flow: None })
    }

    #[test]
    fn a_cast_is_kept_while_its_revisions_hold_and_dropped_with_its_job() {
        let casts = Casts::default();
        let key = (Uuid::nil(), None);
        let at = [Some("1".to_owned()), Some("2".to_owned()), None];
        casts.put("j1", key, cast(at.clone()));
        assert!(casts.get("j1", key, &at).is_some(), "the same revisions: kept");
        let agent_changed = [Some("1".to_owned()), Some("3".to_owned()), None];
        assert!(casts.get("j1", key, &agent_changed).is_none(), "the agent was written since");
        assert!(casts.get("j2", key, &at).is_none(), "another job's are its own");
        assert!(casts.get("j1", (Uuid::nil(), Some(Uuid::nil())), &at).is_none(), "another flow");
        assert!(casts.get("j1", key, &[None, None, None]).is_none(), "no endpoint: never a hit");
        casts.retain(|job| job == "j2");
        assert_eq!(casts.jobs(), 0, "j1 ended");
        assert!(casts.get("j1", key, &at).is_none());
    }
}
