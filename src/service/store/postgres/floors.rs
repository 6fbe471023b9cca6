//! Where a replica's next claim of each job's waiting simulations walks from (`sb_pick`,
//! PostgreSQL migration 19).

use std::collections::HashMap;
use std::sync::Mutex;

/// Where this replica's next claim of each job walks from: the sequence number after the last
/// simulation it claimed of the job. A claim walked the job's waiting simulations from its
/// first, through the entries every simulation already claimed leaves in the index until the
/// table is vacuumed: a walk that grew with the run, and twice as often with two replicas.
/// What waits below the floor (a simulation handed back after its replica stopped; one a pick
/// rolled back had held) is claimed by the walk from the first that follows every
/// `WALK_ALL_EVERY` claims from the floor, or when a claim from the floor finds fewer than the
/// pick's free places (at the job's tail, or with few waiting above).
#[derive(Debug, Default)]
pub struct Floors(Mutex<HashMap<String, Floor>>);

#[derive(Debug, Clone, Copy)]
struct Floor {
    after: i64,
    /// Claims from the floor since the last from the first: picks that claimed nothing (no
    /// room, retries waiting, the job's lock busy) do not count, so a walk from the first
    /// asked for waits for a pick that claims.
    since_walk: u32,
}

/// How many claims from the floor a claim from a job's first follows.
const WALK_ALL_EVERY: u32 = 32;

/// Jobs whose floors a replica keeps; past this, the floors start over (each job's next pick
/// walks from its first), so a replica that runs many jobs keeps no floor for ever.
const FLOORS_KEPT: usize = 256;

impl Floors {
    /// Where the next claim of `job` walks from: `None`, from its first.
    pub(in crate::service::store) fn next(&self, job: &str) -> Option<i64> {
        let floors = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let floor = floors.get(job)?;
        (floor.since_walk < WALK_ALL_EVERY).then_some(floor.after)
    }

    /// A claim of `job` walking from `after` (`None`: from its first) took simulations up to
    /// sequence number `last`.
    pub(in crate::service::store) fn claimed(&self, job: &str, after: Option<i64>, last: i64) {
        let mut floors = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if floors.len() >= FLOORS_KEPT && !floors.contains_key(job) {
            floors.clear();
        }
        let floor = floors.entry(job.to_owned()).or_insert(Floor { after: 0, since_walk: 0 });
        floor.after = floor.after.max(last + 1);
        floor.since_walk = if after.is_some() { floor.since_walk + 1 } else { 0 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jobs_floor_is_where_its_claims_ended_and_every_so_often_its_first() {
        let floors = Floors::default();
        assert_eq!(floors.next("j1"), None, "a job not claimed from yet: from its first");
        floors.claimed("j1", None, 41);
        floors.claimed("j1", Some(42), 17); // a straggler's claim leaves the floor where it was
        // Claims from the floor, each taking something: the 32nd is followed by one from the first.
        let mut walks = vec![Some(42)];
        while let Some(after) = floors.next("j1") {
            floors.claimed("j1", Some(after), 41);
            walks.push(floors.next("j1"));
        }
        assert_eq!(walks.len(), WALK_ALL_EVERY as usize, "{walks:?}");
        assert!(walks[..walks.len() - 1].iter().all(|after| *after == Some(42)), "{walks:?}");
        // Picks that claim nothing leave the walk from the first asked for.
        assert_eq!((floors.next("j1"), floors.next("j1")), (None, None));
        floors.claimed("j1", None, 50);
        assert_eq!(floors.next("j1"), Some(51), "from the floor again after the walk from the first");
        assert_eq!(floors.next("j2"), None, "each job its own");
    }

    #[test]
    fn floors_start_over_past_the_jobs_kept() {
        let floors = Floors::default();
        for n in 0..FLOORS_KEPT {
            floors.claimed(&format!("j{n}"), None, 1);
        }
        assert_eq!(floors.next("j0"), Some(2));
        floors.claimed("j0", Some(2), 5); // a job kept: nothing forgotten
        assert_eq!(floors.next("j1"), Some(2));
        floors.claimed("one more", None, 1);
        assert_eq!((floors.next("j1"), floors.next("one more")), (None, Some(2)), "the rest forgotten");
    }
}
