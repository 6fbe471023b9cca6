//! What the simulation limits count (`sim::limits`), read in one statement: the active jobs
//! with their running simulations and execution modes, and the asking job's own counts. On
//! PostgreSQL each statement is a round trip, and a pick read these in five or more, twice.

use super::db::{Arg, Conn, Dialect};
use super::{Kind, StoreResult};

/// An active job, as the limits count it.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveJob {
    pub id: String,
    /// Its run plan's id (its parent), if it has one.
    pub plan_id: Option<String>,
    /// Its simulations in the running statuses.
    pub running: u64,
    /// Its plan's `executionMode` (`None` when it has none).
    pub mode: Option<String>,
}

/// Everything the limits of one job's pick count.
#[derive(Debug, Clone, PartialEq)]
pub struct Places {
    pub active: Vec<ActiveJob>,
    /// The job's own simulations in the running statuses, and in the waiting ones.
    pub running: u64,
    pub waiting: u64,
    /// The job's simulations the asking replica holds.
    pub mine: usize,
}

/// Which statuses count as what.
pub struct Statuses<'a> {
    pub active_jobs: &'a [&'a str],
    pub running: &'a [&'a str],
    pub waiting: &'a [&'a str],
}

/// Reads what job `job_id`'s limits count, with what replica `owner` holds of it (`None`: not
/// counted; a replica alone, whose share is the whole room, has no use for it, and a replica
/// that knows what it holds counts it itself, `sim::limits::places_with_held`).
pub fn read<'a>(conn: &Conn, job_id: &'a str, owner: Option<&'a str>, statuses: &Statuses<'a>) -> StoreResult<Places> {
    let owner = owner.map_or(Arg::Null, Arg::from);
    let mut args: Vec<Arg<'a>> =
        vec![Kind::SimulationJob.as_str().into(), Kind::RunPlanJob.as_str().into(), job_id.into(), owner];
    let mut list = |statuses: &[&'a str]| {
        let first = args.len() + 1;
        args.extend(statuses.iter().map(|s| Arg::from(*s)));
        (first..first + statuses.len()).map(|n| format!("?{n}")).collect::<Vec<_>>().join(", ")
    };
    let (running, active, waiting) = (list(statuses.running), list(statuses.active_jobs), list(statuses.waiting));
    let counted = |parent: &str, of: &str| {
        format!(
            "(SELECT CAST(coalesce(sum(live), 0) AS BIGINT) FROM child_counts c \
             WHERE c.parent_id = {parent} AND c.kind = ?1 AND c.status IN ({of}))"
        )
    };
    // One process holds a SQLite store: its replica alone, never sharing. The replica's own
    // are found by its leases (`docs_leased`) alone: the fence (`OFFSET 0`) keeps the job's
    // filter out of that scan, or the planner, its statistics taken before the run was
    // created, walks every simulation of the job (6 ms at 4,000, issue 33). Not counted at
    // all for a replica alone.
    let (mode, mine) = match conn.dialect() {
        Dialect::Sqlite => ("json_extract(d.body, '$.plan.executionMode')", "0"),
        Dialect::Postgres => (
            "(d.body #>> '{plan,executionMode}')",
            "CASE WHEN CAST(?4 AS TEXT) IS NULL THEN 0 ELSE \
             (SELECT count(*) FROM (SELECT kind, parent_id FROM docs WHERE lease_owner = ?4 OFFSET 0) AS l \
             WHERE l.kind = ?1 AND l.parent_id = ?3) END",
        ),
    };
    let sql = format!(
        "SELECT 0, d.id, d.parent_id, {}, {mode}, 0, 0 FROM docs d \
         WHERE d.kind = ?2 AND d.status IN ({active}) AND d.deleted_at IS NULL \
         UNION ALL SELECT 1, NULL, NULL, {}, NULL, {}, {mine}",
        counted("d.id", &running),
        counted("?3", &running),
        counted("?3", &waiting),
    );
    let rows = conn.query(&sql, &args, |r| {
        let count = |n: i64| n.max(0) as u64;
        Ok((
            r.take::<i64>(0)?,
            r.take::<Option<String>>(1)?,
            r.take::<Option<String>>(2)?,
            count(r.take(3)?),
            r.take::<Option<String>>(4)?,
            [count(r.take(5)?), count(r.take(6)?)],
        ))
    })?;
    let mut places = Places { active: Vec::new(), running: 0, waiting: 0, mine: 0 };
    for (tag, id, plan_id, running, mode, [waiting, mine]) in rows {
        match (tag, id) {
            (0, Some(id)) => places.active.push(ActiveJob { id, plan_id, running, mode }),
            _ => {
                places.running = running;
                places.waiting = waiting;
                places.mine = mine as usize;
            }
        }
    }
    Ok(places)
}
