//! How far a run plan job is: counts by status, elapsed time, an ETA and throughput, computed
//! once per poll from the job's simulation jobs so drawing a 10,000-simulation job stays cheap.

use crate::api::model::{RunPlanJob, SimulationCounts, SimulationJob, SimulationJobStatus};
use crate::console::theme::Family;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Progress {
    pub total: usize,
    /// Simulations that ended, in any status.
    pub ended: usize,
    /// Simulations by status text, running ones first, then waiting, done, failed, cancelled.
    pub counts: Vec<(String, usize)>,
    pub started: Option<jiff::Timestamp>,
    /// When the job ended (its `endedAt`, else its last simulation's end once the job is over).
    pub ended_at: Option<jiff::Timestamp>,
    /// Whether the job's own status says it can no longer change.
    pub finished: bool,
    /// When each ended simulation completed, in ms after `started`, ascending.
    pub completions: Vec<i64>,
}

/// A simulation job's status as text ("—" when absent).
pub fn sim_status(sim: &SimulationJob) -> String {
    sim.status.as_ref().map(|s| s.as_str().to_string()).unwrap_or_else(|| "—".into())
}

/// Whether a simulation can no longer change: a terminal status, or an end time for statuses
/// this build does not know.
fn has_ended(sim: &SimulationJob) -> bool {
    sim.status.as_ref().is_some_and(|s| s.is_terminal()) || sim.completed_at.is_some()
}

fn rank(status: &str) -> usize {
    match Family::of(status) {
        Family::Running => 0,
        Family::Waiting => 1,
        Family::Done => 2,
        Family::Failed => 3,
        Family::Cancelled => 4,
        Family::Other => 5,
    }
}

impl Progress {
    pub fn of(job: &RunPlanJob, sims: &[SimulationJob]) -> Progress {
        let total = sims.len().max(job.simulation_job_count.unwrap_or(0) as usize);
        let mut counts: Vec<(String, usize)> = Vec::new();
        for sim in sims {
            let status = sim_status(sim);
            match counts.iter_mut().find(|(s, _)| *s == status) {
                Some((_, n)) => *n += 1,
                None => counts.push((status, 1)),
            }
        }
        counts.sort_by(|(a, _), (b, _)| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
        let started = job
            .started_at
            .as_ref()
            .or(job.created_at.as_ref())
            .and_then(|t| t.parse())
            .or_else(|| sims.iter().filter_map(|s| s.started_at.as_ref()?.parse()).min());
        let mut completions: Vec<i64> = match started {
            Some(start) => sims
                .iter()
                .filter(|s| has_ended(s))
                .filter_map(|s| s.completed_at.as_ref()?.parse())
                .map(|t| (t.as_millisecond() - start.as_millisecond()).max(0))
                .collect(),
            None => Vec::new(),
        };
        completions.sort_unstable();
        let finished = job.has_ended();
        let last = started.zip(completions.last()).map(|(s, ms)| s + jiff::SignedDuration::from_millis(*ms));
        let ended_at = job.ended_at.as_ref().and_then(|t| t.parse()).or(if finished { last } else { None });
        Progress {
            total,
            ended: sims.iter().filter(|s| has_ended(s)).count(),
            counts,
            started,
            ended_at,
            finished,
            completions,
        }
    }

    /// The same from the job's `counts` alone (a service that pages the simulations), with
    /// `before`'s completions carried on: what ended since the last read ended by `now`, so the
    /// throughput builds up while the view is open without reading a simulation.
    pub fn of_counts(job: &RunPlanJob, counts: &SimulationCounts, before: &Progress, now: jiff::Timestamp) -> Progress {
        let mut listed: Vec<(String, usize)> = counts.by_status.iter().map(|(s, n)| (s.clone(), *n as usize)).collect();
        listed.retain(|(_, n)| *n > 0);
        listed.sort_by(|(a, _), (b, _)| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
        let ended: usize =
            listed.iter().filter(|(s, _)| SimulationJobStatus::from(s.as_str()).is_terminal()).map(|(_, n)| n).sum();
        let started = job.started_at.as_ref().or(job.created_at.as_ref()).and_then(|t| t.parse());
        let mut completions = before.completions.clone();
        if let Some(start) = started
            && ended > before.ended
            && before.started.is_some()
        {
            let at = (now.as_millisecond() - start.as_millisecond()).max(0);
            completions.extend(std::iter::repeat_n(at, ended - before.ended));
        }
        let finished = job.has_ended();
        let ended_at = job.ended_at.as_ref().and_then(|t| t.parse()).or(if finished { Some(now) } else { None });
        Progress {
            total: (counts.total as usize).max(job.simulation_job_count.unwrap_or(0) as usize),
            ended,
            counts: listed,
            started,
            ended_at,
            finished,
            completions,
        }
    }

    pub fn ratio(&self) -> f64 {
        if self.total == 0 { if self.finished { 1.0 } else { 0.0 } } else { self.ended as f64 / self.total as f64 }
    }

    /// How long the job has run: to its end, or to `now` while it runs.
    pub fn elapsed_ms(&self, now: jiff::Timestamp) -> Option<i64> {
        let start = self.started?;
        let end = self.ended_at.unwrap_or(now);
        Some((end.as_millisecond() - start.as_millisecond()).max(0))
    }

    /// Time left at the rate so far; None when finished or nothing has ended yet.
    pub fn eta_ms(&self, now: jiff::Timestamp) -> Option<i64> {
        if self.finished || self.ended == 0 || self.ended >= self.total {
            return None;
        }
        let elapsed = self.elapsed_ms(now)?;
        Some(elapsed * (self.total - self.ended) as i64 / self.ended as i64)
    }

    /// Simulations ended per `interval_ms`, oldest first, the last `width` intervals only.
    pub fn throughput(&self, now: jiff::Timestamp, interval_ms: i64, width: usize) -> Vec<u64> {
        let interval = interval_ms.max(1);
        let span = self.elapsed_ms(now).unwrap_or(0).max(self.completions.last().copied().unwrap_or(0));
        let buckets = (span / interval + 1) as usize;
        let first = buckets.saturating_sub(width);
        let mut out = vec![0u64; buckets - first];
        for ms in &self.completions {
            let bucket = (ms / interval) as usize;
            if bucket >= first {
                out[bucket - first] += 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn job(status: &str, sims: serde_json::Value) -> (RunPlanJob, Vec<SimulationJob>) {
        let job: RunPlanJob = serde_json::from_value(json!({
            "simulationRunPlanJobId": "00000000-0000-4000-8000-000000000001",
            "status": status,
            "startedAt": "2026-01-01T00:00:00Z",
            "endedAt": null,
            "simulationJobs": sims,
        }))
        .unwrap();
        let sims = job.simulation_jobs.clone();
        (job, sims)
    }

    fn sim(n: u8, status: &str, completed: Option<&str>) -> serde_json::Value {
        json!({ "simulationJobId": format!("00000000-0000-4000-8000-0000000001{n:02}"), "status": status, "completedAt": completed })
    }

    #[test]
    fn counts_elapsed_eta_and_throughput() {
        let (job, sims) = job(
            "RUNNING_SIMULATIONS",
            json!([
                sim(1, "COMPLETED", Some("2026-01-01T00:00:01.500Z")),
                sim(2, "FAILED", Some("2026-01-01T00:00:03Z")),
                sim(3, "PROCESSING", None),
                sim(4, "PENDING", None),
            ]),
        );
        let p = Progress::of(&job, &sims);
        assert_eq!((p.ended, p.total), (2, 4));
        let order: Vec<&str> = p.counts.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(order, ["PROCESSING", "PENDING", "COMPLETED", "FAILED"]);
        let now: jiff::Timestamp = "2026-01-01T00:00:04Z".parse().unwrap();
        assert_eq!(p.elapsed_ms(now), Some(4_000));
        assert_eq!(p.eta_ms(now), Some(4_000));
        assert_eq!(p.throughput(now, 1_000, 80), vec![0, 1, 0, 1, 0]);
        assert_eq!(p.throughput(now, 1_000, 2), vec![1, 0], "only the last intervals that fit");
    }

    #[test]
    fn a_finished_job_ends_at_its_last_simulation_and_has_no_eta() {
        let (job, sims) =
            job("TIMED_OUT", json!([sim(1, "TIMED_OUT", Some("2026-01-01T00:00:02Z")), sim(2, "CANCELLED", None)]));
        let p = Progress::of(&job, &sims);
        assert!(p.finished);
        assert_eq!(p.ratio(), 1.0);
        let later: jiff::Timestamp = "2026-01-02T00:00:00Z".parse().unwrap();
        assert_eq!(p.elapsed_ms(later), Some(2_000));
        assert_eq!(p.eta_ms(later), None);
    }
}
