//! Waiting for a run plan job: polled until it ends, a deadline passes or a signal comes,
//! with a progress bar (counts, rate, ETA) on a terminal and one plain line per change when
//! piped, both on stderr so stdout carries only the result. A few failed reads in a row are
//! tolerated; the service may be restarting.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use uuid::Uuid;

use super::exit::Failure;
use super::signals::{Signal, Signals};
use crate::api::model::{RunPlanJob, SimulationCounts, SimulationJobStatus, SimulationOutcome};
use crate::api::{Client, Conditional};

/// Failed reads in a row that a watch tolerates; the next one ends it.
pub const TOLERATED_FAILURES: u32 = 5;

/// How a watch ended.
pub enum Watched {
    Ended(RunPlanJob),
    /// The deadline passed; the job as last read.
    TimedOut(Option<RunPlanJob>),
    Interrupted(Signal, Option<RunPlanJob>),
}

/// Counts failed reads in a row.
#[derive(Debug, Default)]
pub struct Tolerance {
    in_a_row: u32,
}

impl Tolerance {
    /// Records a read; false once more than `TOLERATED_FAILURES` have failed in a row.
    pub fn record(&mut self, ok: bool) -> bool {
        self.in_a_row = if ok { 0 } else { self.in_a_row + 1 };
        self.in_a_row <= TOLERATED_FAILURES
    }
}

/// Polls job `id` every `poll` until it ends, `deadline` passes, or a signal arrives.
pub async fn watch(
    client: &Client,
    id: Uuid,
    poll: Duration,
    deadline: Option<Instant>,
    signals: &mut Signals,
) -> Result<Watched, Failure> {
    let mut progress = Progress::new();
    let mut tolerance = Tolerance::default();
    let mut last: Option<RunPlanJob> = None;
    // The last read's tag: an unchanged job is answered 304 and costs neither bytes nor decoding.
    let mut etag: Option<String> = None;
    // The job is polled without its simulations (counts and verdict only) where the service
    // offers that, and read whole once it has ended.
    let mut summary = true;
    // Where the service streams events, a change wakes the watch at once (the job ending is
    // seen within moments, not a poll later); polling goes on beside it either way.
    let changed = std::sync::Arc::new(tokio::sync::Notify::new());
    let _stream = Wake(tokio::spawn(wake_on_events(client.clone(), id, changed.clone())));
    loop {
        // The deadline holds during a read too: a hanging or retrying service does not stretch it.
        let read = tokio::select! {
            read = client.get_run_plan_job_if_changed(id, summary, etag.as_deref()) => read,
            signal = signals.recv() => {
                progress.finish();
                return Ok(Watched::Interrupted(signal, last));
            }
            () = until(deadline) => {
                progress.finish();
                return Ok(Watched::TimedOut(last));
            }
        };
        match read {
            Ok(Conditional::Unchanged) => {
                tolerance.record(true);
            }
            Ok(Conditional::Changed { value: job, etag: tag }) => {
                etag = tag;
                tolerance.record(true);
                // A service that does not know the extension sent the simulations anyway.
                summary &= job.counts.is_some();
                progress.show(&job);
                if is_ended(&job) {
                    progress.finish();
                    let job = if summary { whole(client, id).await? } else { job };
                    return Ok(Watched::Ended(job));
                }
                last = Some(job);
            }
            // A service that refuses the parameter is read the plain way from now on.
            Err(error) if summary && error.status() == Some(400) => {
                summary = false;
                etag = None;
                continue;
            }
            Err(error) => {
                let transient = error.is_unreachable() || error.status().is_some_and(|s| s == 429 || s >= 500);
                if !transient || !tolerance.record(false) {
                    progress.finish();
                    let tries = if transient {
                        format!(" ({} reads in a row failed)", TOLERATED_FAILURES + 1)
                    } else {
                        String::new()
                    };
                    return Err(Failure::from(error).context(format!("cannot read run plan job {id}{tries}")));
                }
                progress.note(&format!("could not read the job ({error}); trying again"));
            }
        }
        let mut wait = poll;
        if let Some(deadline) = deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                progress.finish();
                return Ok(Watched::TimedOut(last));
            }
            wait = wait.min(left);
        }
        let read_at = Instant::now() + EVENT_GAP.min(wait);
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            // An event: read again, but not more often than every EVENT_GAP.
            _ = async { changed.notified().await; tokio::time::sleep_until(read_at.into()).await } => {}
            signal = signals.recv() => {
                progress.finish();
                return Ok(Watched::Interrupted(signal, last));
            }
        }
    }
}

/// The least time between two reads woken by events.
const EVENT_GAP: Duration = Duration::from_millis(200);

/// Stops the event task when the watch ends.
struct Wake(tokio::task::JoinHandle<()>);

impl Drop for Wake {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Follows the job's events and wakes the watch on each; ends quietly where the service has
/// no event stream (the watch polls).
async fn wake_on_events(client: Client, id: Uuid, changed: std::sync::Arc<tokio::sync::Notify>) {
    // Only that something changed matters here: the events come without their resources.
    let query =
        crate::api::model::EventQuery { resource_id: Some(id.to_string()), ..Default::default() }.without_data();
    let mut last: Option<String> = None;
    for _ in 0..5 {
        let Ok(mut stream) = client.events(&query, last.as_deref()).await else { return };
        while let Ok(Some(event)) = stream.next().await {
            last = Some(event.id);
            changed.notify_one();
        }
    }
}

/// The ended job with its simulations, for the report.
async fn whole(client: &Client, id: Uuid) -> Result<RunPlanJob, Failure> {
    client
        .get_run_plan_job(id)
        .await
        .map_err(|error| Failure::from(error).context(format!("cannot read run plan job {id}")))
}

/// Resolves at the deadline; never without one.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline.into()).await,
        None => std::future::pending().await,
    }
}

/// Whether a job can no longer change.
pub fn is_ended(job: &RunPlanJob) -> bool {
    job.status.as_ref().is_some_and(|s| s.is_terminal()) || job.ended_at.is_some()
}

/// What is shown of a job's progress.
struct Counts {
    total: u64,
    ended: u64,
    /// `STATUS n` for each simulation status present, in first-seen order.
    by_status: Vec<(String, u64)>,
    passed: u64,
    failed: u64,
}

impl Counts {
    fn of(job: &RunPlanJob) -> Counts {
        if let Some(counts) = &job.counts {
            return Counts::counted(counts);
        }
        let sims = &job.simulation_jobs;
        let mut by_status: Vec<(String, u64)> = Vec::new();
        for sim in sims {
            let status = sim.status.as_ref().map(|s| s.to_string()).unwrap_or_else(|| "—".into());
            match by_status.iter_mut().find(|(s, _)| *s == status) {
                Some((_, n)) => *n += 1,
                None => by_status.push((status, 1)),
            }
        }
        let ended = sims.iter().filter(|s| s.status.as_ref().is_some_and(|st| st.is_terminal())).count() as u64;
        let outcome = |o: SimulationOutcome| sims.iter().filter(|s| s.outcome.as_ref() == Some(&o)).count() as u64;
        Counts {
            total: (sims.len() as u64).max(job.simulation_job_count.unwrap_or(0)),
            ended,
            by_status,
            passed: outcome(SimulationOutcome::Passed),
            failed: outcome(SimulationOutcome::Failed) + outcome(SimulationOutcome::Error),
        }
    }

    /// From the service's `counts` (a summary read carries no simulations).
    fn counted(counts: &SimulationCounts) -> Counts {
        let ended = counts
            .by_status
            .iter()
            .filter(|(status, _)| SimulationJobStatus::from(status.as_str()).is_terminal())
            .map(|(_, n)| n)
            .sum();
        let outcome = |o: SimulationOutcome| counts.by_outcome.get(o.as_str()).copied().unwrap_or(0);
        Counts {
            total: counts.total,
            ended,
            by_status: counts.by_status.iter().map(|(s, n)| (s.clone(), *n)).collect(),
            passed: outcome(SimulationOutcome::Passed),
            failed: outcome(SimulationOutcome::Failed) + outcome(SimulationOutcome::Error),
        }
    }

    fn summary(&self, job: &RunPlanJob) -> String {
        let status = job.status.as_ref().map(|s| s.to_string()).unwrap_or_else(|| "—".into());
        let counts: Vec<String> = self.by_status.iter().map(|(s, n)| format!("{s} {n}")).collect();
        let mut text = format!("{status} · {}/{} ended · {}", self.ended, self.total, counts.join(" · "));
        if self.passed + self.failed > 0 {
            text.push_str(&format!(" · passed {} · failed {}", self.passed, self.failed));
        }
        text
    }
}

/// A bar on a terminal, lines otherwise.
struct Progress {
    bar: Option<ProgressBar>,
    last_line: String,
    started: Instant,
    /// Simulations already ended when the watch began: a rate counts only those it saw end.
    ended_before: Option<u64>,
}

impl Progress {
    fn new() -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template("{msg}\n{wide_bar} {pos}/{len} ended · {per_sec} · ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar
        });
        Progress { bar, last_line: String::new(), started: Instant::now(), ended_before: None }
    }

    fn show(&mut self, job: &RunPlanJob) {
        let counts = Counts::of(job);
        let summary = counts.summary(job);
        let ended_before = *self.ended_before.get_or_insert(counts.ended);
        let seen = counts.ended.saturating_sub(ended_before);
        // A job that had ended before the watch began has no rate to show, only its counts.
        let no_rate = seen == 0 && counts.ended >= counts.total;
        match &self.bar {
            Some(bar) if no_rate => bar.set_message(summary),
            Some(bar) => {
                bar.set_length(counts.total);
                bar.set_position(counts.ended);
                bar.set_message(summary);
            }
            None if summary != self.last_line && no_rate => {
                eprintln!("[{:>5.1}s] {summary}", self.started.elapsed().as_secs_f64());
                self.last_line = summary;
            }
            None if summary != self.last_line => {
                let elapsed = self.started.elapsed().as_secs_f64();
                let rate = if elapsed > 0.0 { seen as f64 / elapsed } else { 0.0 };
                let eta = match counts.total.saturating_sub(counts.ended) {
                    0 => "0s".to_string(),
                    _ if rate <= 0.0 => "—".into(),
                    left => format!("{:.0}s", left as f64 / rate),
                };
                eprintln!("[{:>5.1}s] {summary} · {rate:.1}/s · ETA {eta}", elapsed);
                self.last_line = summary;
            }
            None => {}
        }
    }

    fn note(&self, message: &str) {
        match &self.bar {
            Some(bar) => bar.println(format!("warning: {message}")),
            None => eprintln!("warning: {message}"),
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_read_is_shown_from_its_counts() {
        let job: RunPlanJob = serde_json::from_value(serde_json::json!({
            "simulationRunPlanJobId": "00000000-0000-0000-0000-0000000000aa", "status": "RUNNING",
            "simulationJobs": [],
            "counts": { "total": 10, "byStatus": { "COMPLETED": 4, "FAILED": 1, "RUNNING": 2, "QUEUED": 3 },
                        "byOutcome": { "PASSED": 3, "FAILED": 1, "ERROR": 1 } }
        }))
        .unwrap();
        let counts = Counts::of(&job);
        assert_eq!((counts.total, counts.ended, counts.passed, counts.failed), (10, 5, 3, 2));
        assert!(counts.summary(&job).starts_with("RUNNING · 5/10 ended"), "{}", counts.summary(&job));
    }

    #[test]
    fn five_failed_reads_in_a_row_are_tolerated_and_the_sixth_is_not() {
        let mut tolerance = Tolerance::default();
        for _ in 0..TOLERATED_FAILURES {
            assert!(tolerance.record(false));
        }
        assert!(tolerance.record(true), "a good read starts the count again");
        for _ in 0..TOLERATED_FAILURES {
            assert!(tolerance.record(false));
        }
        assert!(!tolerance.record(false));
    }
}
