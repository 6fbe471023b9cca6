//! A pick of a job's simulations in one statement (`sb_pick`, PostgreSQL migrations 11 to 19):
//! its room counted and that many claimed on free places of the job's, leased to the picking
//! replica, where the transaction (`Store::write_pick`) took a `BEGIN`, the job's lock, the
//! room's read, the claim and a `COMMIT`. Picks of one job by several replicas run side by
//! side, each on places no other holds. Which statuses count as what, and the mode that runs
//! alone, are the caller's (`sim::limits`), given with each pick.

use serde_json::json;

use super::db::Arg;
use super::{Kind, Pick, StoreError, StoreResult, claims};

/// What one pick of a job whose limits are its own counts and claims.
#[derive(Debug, Clone)]
pub struct InOne<'a> {
    /// What is claimed (`from` → `to`, the job's children, leased to `owner`); `from` is
    /// PENDING, the status of the index `sb_pick` walks (migration 16), which refuses others.
    pub claim: claims::Claim<'a>,
    /// The job's `maxConcurrentJobs`, at least one.
    pub max: usize,
    /// The statuses of a simulation holding a place, and of an active job.
    pub running: &'a [&'a str],
    pub active_jobs: &'a [&'a str],
    /// A retry waiting out its backoff: the transaction decides which are due.
    pub retry: &'a str,
    /// The execution mode that runs alone in the project while it runs, as plans spell it.
    pub alone_mode: &'a str,
    /// The picking replica's share of the job's places (`sim::limits::share`): `None`, the
    /// whole room.
    pub share: Option<usize>,
}

/// What a pick in one statement did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickedInOne {
    /// These simulations' bodies as written, in the order claimed (none: no room, or nothing
    /// waiting).
    Claimed(Vec<String>),
    /// The job has retries waiting: nothing done; the pick is the transaction's.
    RetriesWaiting,
}

impl InOne<'_> {
    /// `sb_pick`'s argument for this pick, its claim walking from sequence number `after` on
    /// (`None`: from the job's first).
    fn argument(&self, after: Option<i64>) -> StoreResult<String> {
        claims::refuse_events(&self.claim)?;
        let keys = Pick::job(self.claim.parent_id)
            .keys()
            .ok_or_else(|| StoreError::backend("store: a pick in one statement is a job's"))?;
        self.to_json(keys, after)
    }

    /// The pick as `sb_pick`'s argument, under the locks `keys`.
    fn to_json(&self, (scheduling, class, key): (i64, i32, i32), after: Option<i64>) -> StoreResult<String> {
        let status = serde_json::to_string(self.claim.to)?;
        Ok(json!({
            "job_kind": Kind::RunPlanJob.as_str(),
            "child_kind": self.claim.kind.as_str(),
            "job_id": self.claim.parent_id,
            "owner": self.claim.owner,
            "until_ms": self.claim.until_ms,
            "share": self.share,
            "max": self.max.max(1),
            "running": self.running,
            "active_jobs": self.active_jobs,
            "retry": self.retry,
            "alone_mode": self.alone_mode,
            "from": self.claim.from,
            "to": self.claim.to,
            "members": [["status", status]],
            "scheduling": scheduling,
            "class": class,
            "key": key,
            "wait_ms": super::postgres::PICK_WAIT.as_millis().to_string(),
            "after": after,
        })
        .to_string())
    }
}

/// One of `sb_pick`'s rows: its answer, a simulation's body and its sequence number.
type Row = (i64, Option<String>, Option<i64>);

/// `sb_pick`'s rows as a `PickedInOne`, and the sequence number of the last simulation claimed.
fn picked(rows: Vec<Row>) -> StoreResult<(PickedInOne, Option<i64>)> {
    match rows.first() {
        Some((2, None, _)) if rows.len() == 1 => Ok((PickedInOne::RetriesWaiting, None)),
        _ => {
            let last = rows.iter().filter_map(|(_, _, seq)| *seq).max();
            let bodies = rows
                .into_iter()
                .map(|(answer, body, seq)| match (answer, body, seq) {
                    (0, Some(body), Some(_)) => Ok(body),
                    other => Err(StoreError::backend(format!("store: sb_pick answered {other:?}"))),
                })
                .collect::<StoreResult<Vec<_>>>()?;
            Ok((PickedInOne::Claimed(bodies), last))
        }
    }
}

/// The statement a pick is.
const SB_PICK: &str = "SELECT answer, body, seq FROM sb_pick(?1)";

impl super::Store {
    /// Picks for a job whose limits are its own in one statement, its own transaction, as an
    /// engine's progress: PostgreSQL only (SQLite's picks are its one writer's transactions).
    pub async fn pick_in_one(&self, pick: InOne<'_>) -> StoreResult<PickedInOne> {
        let job = pick.claim.parent_id.to_owned();
        let floors = match &*self.engine {
            super::Engine::Postgres(postgres) => postgres.floors(),
            super::Engine::Sqlite(_) => {
                return Err(StoreError::backend("store: a pick is one statement on PostgreSQL only"));
            }
        };
        let after = floors.next(&job);
        let json = pick.argument(after)?;
        // A turn among the progress writes, as the ends it starts simulations for take: picks
        // beside them only had more backends share the database's cores (docs/performance.md,
        // stop 53). Holding it, the pick may wait for a transaction's pick (`write_pick`),
        // which takes no turn and so always gets on; the job's lock up to `PICK_WAIT`, the
        // scheduling lock until that pick's short transaction ends. With one turn a replica
        // (three replicas or more) its other progress waits meanwhile.
        self.progress_blocking(move |store| match &*store.engine {
            super::Engine::Postgres(postgres) => {
                let rows = postgres.rows(SB_PICK, &[Arg::from(&json)], |r| Ok((r.take(0)?, r.take(1)?, r.take(2)?)))?;
                let (picked, last) = picked(rows)?;
                if let Some(last) = last {
                    postgres.floors().claimed(&job, after, last);
                }
                Ok(picked)
            }
            super::Engine::Sqlite(_) => Err(StoreError::backend("store: a pick is one statement on PostgreSQL only")),
        })
        .await
        .map_err(StoreError::backend)?
    }
}

/// The pick in one statement inside the caller's transaction, whose locks and claims it then
/// holds until its end: another replica's pick caught mid-way, for tests.
#[cfg(test)]
pub fn pick_in(tx: &super::Tx, pick: InOne<'_>) -> StoreResult<PickedInOne> {
    pick_after_in(tx, pick, None).map(|(picked, _)| picked)
}

/// The same, its claim walking from sequence number `after`; with the last claimed.
#[cfg(test)]
pub fn pick_after_in(tx: &super::Tx, pick: InOne<'_>, after: Option<i64>) -> StoreResult<(PickedInOne, Option<i64>)> {
    picked(tx.query(SB_PICK, &[Arg::from(&pick.argument(after)?)], |r| Ok((r.take(0)?, r.take(1)?, r.take(2)?)))?)
}

/// A pick for job `job` from `from`, whose limits stand in no one's way (one place, no
/// share), by `me`: for tests.
#[cfg(test)]
pub fn plain(from: &str) -> InOne<'_> {
    InOne {
        claim: claims::Claim {
            kind: Kind::SimulationJob,
            parent_id: "job",
            from,
            to: "QUEUED",
            owner: "me",
            until_ms: 0,
        },
        max: 1,
        running: &[],
        active_jobs: &[],
        retry: "RETRY_SCHEDULED",
        alone_mode: "SEQUENTIAL_PROJECT",
        share: None,
    }
}

/// The scans of each index so far, for tests. A connection's counts not yet reported count as
/// the transaction's, so a statement's are the difference between two reads.
#[cfg(test)]
pub fn index_scans(tx: &super::Tx, indexes: &[&str]) -> StoreResult<Vec<i64>> {
    let scans = |index: &&str| -> StoreResult<i64> {
        let sql = format!("SELECT pg_stat_get_xact_numscans('{index}'::regclass)");
        Ok(tx.value(&sql, &[])?.unwrap_or_default())
    };
    indexes.iter().map(scans).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::store::test_server::TestServer;

    /// `sb_pick` claims through an index of PENDING simulations alone (migration 16), so it
    /// refuses a pick from any other status rather than claim PENDING ones in its stead.
    #[test]
    fn a_pick_in_one_statement_claims_pending_simulations_only() {
        let store = TestServer::fresh_store();
        let picked = store.write_blocking(|tx| pick_in(tx, plain("PENDING")));
        assert_eq!(picked.ok(), Some(PickedInOne::Claimed(Vec::new())), "nothing waiting, nothing claimed");
        let refused = store.write_blocking(|tx| pick_in(tx, plain("RETRY_SCHEDULED"))).map(|_| ()).unwrap_err();
        assert!(refused.to_string().contains("claims PENDING simulations, not RETRY_SCHEDULED"), "{refused}");
    }
}
