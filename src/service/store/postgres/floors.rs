//! Where a replica's next claim of each job's waiting simulations walks from (`sb_pick`,
//! PostgreSQL migration 19).

use std::collections::HashMap;
use std::sync::Mutex;

/// Where this replica's next claim of each job walks from: the sequence number after the last
/// simulation it claimed of the job. A claim walked the job's waiting simulations from its
/// first, through the entries every simulation already claimed leaves in the index until the
/// table is vacuumed: a walk that grew with the run, and twice as often with two replicas
/// (PostgreSQL migration 19). What waits below the floor (a simulation handed back after its
/// replica stopped; one a pick rolled back had held) is claimed when the walk from the floor
/// finds too few, and by every `WALK_ALL_EVERY`th pick of the job, which walks from its first.
#[derive(Debug, Default)]
pub struct Floors(Mutex<HashMap<String, Floor>>);

#[derive(Debug, Clone, Copy)]
struct Floor {
    after: i64,
    /// Picks from the floor since the last walk from the first.
    since_walk: u32,
}

/// How often a job's pick walks from its first.
const WALK_ALL_EVERY: u32 = 32;

/// Jobs whose floors a replica keeps; past this, the floors start over (each job's next pick
/// walks from its first), so a replica that runs many jobs keeps no floor for ever.
const FLOORS_KEPT: usize = 256;

impl Floors {
    /// Where the next claim of `job` walks from: `None`, from its first.
    pub(in crate::service::store) fn next(&self, job: &str) -> Option<i64> {
        let mut floors = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let floor = floors.get_mut(job)?;
        if floor.since_walk + 1 >= WALK_ALL_EVERY {
            floor.since_walk = 0;
            return None;
        }
        floor.since_walk += 1;
        Some(floor.after)
    }

    /// A claim of `job` took simulations up to sequence number `last`.
    pub(in crate::service::store) fn claimed(&self, job: &str, last: i64) {
        let mut floors = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if floors.len() >= FLOORS_KEPT && !floors.contains_key(job) {
            floors.clear();
        }
        let floor = floors.entry(job.to_owned()).or_insert(Floor { after: 0, since_walk: 0 });
        floor.after = floor.after.max(last + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jobs_floor_is_where_its_claims_ended_and_every_so_often_its_first() {
        let floors = Floors::default();
        assert_eq!(floors.next("j1"), None, "a job not claimed from yet: from its first");
        floors.claimed("j1", 41);
        floors.claimed("j1", 17); // a straggler's claim leaves the floor where it was
        let walks: Vec<Option<i64>> = (0..2 * WALK_ALL_EVERY).map(|_| floors.next("j1")).collect();
        let from_first: Vec<usize> = walks.iter().enumerate().filter(|(_, w)| w.is_none()).map(|(i, _)| i).collect();
        let every = WALK_ALL_EVERY as usize;
        assert_eq!(from_first, [every - 1, 2 * every - 1], "every {every}th pick walks from the first");
        assert!(walks.iter().flatten().all(|after| *after == 42), "{walks:?}");
        assert_eq!(floors.next("j2"), None, "each job its own");
    }

    #[test]
    fn floors_start_over_past_the_jobs_kept() {
        let floors = Floors::default();
        for n in 0..FLOORS_KEPT {
            floors.claimed(&format!("j{n}"), 1);
        }
        assert_eq!(floors.next("j0"), Some(2));
        floors.claimed("j0", 5); // a job kept: nothing forgotten
        assert_eq!(floors.next("j1"), Some(2));
        floors.claimed("one more", 1);
        assert_eq!((floors.next("j1"), floors.next("one more")), (None, Some(2)), "the rest forgotten");
    }
}
