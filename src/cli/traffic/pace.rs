//! Posting calls at a steady rate until told to stop: a tick per call, each call posted on a
//! task of its own (at most `IN_FLIGHT` at once, so a slow service slows the pace rather than
//! piling up requests), every answer tallied with how long it took.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::conversation;
use crate::api::Client;

/// Requests in flight at most.
const IN_FLIGHT: usize = 64;

/// What to post, how fast and for how long.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The agents, taken in turn.
    pub agents: Vec<String>,
    pub calls_per_minute: f64,
    /// Stop after this many calls.
    pub count: Option<u64>,
    /// Stop after this long.
    pub duration: Option<Duration>,
    /// The agent that degrades, from `degrade_after` on (for `degrade_for`, if given).
    pub degrade: Option<String>,
    pub degrade_after: Duration,
    pub degrade_for: Option<Duration>,
}

impl Plan {
    /// Whether `agent`'s calls are degraded `elapsed` into the traffic.
    pub fn degraded(&self, agent: &str, elapsed: Duration) -> bool {
        self.degrade.as_deref() == Some(agent)
            && elapsed >= self.degrade_after
            && self.degrade_for.is_none_or(|span| elapsed < self.degrade_after + span)
    }
}

/// One agent's share of the traffic.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentTally {
    pub agent: String,
    pub posted: u64,
    pub refused: u64,
    /// Of those posted, how many were degraded.
    pub degraded: u64,
}

/// What the traffic did.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub agents: Vec<AgentTally>,
    /// How long each accepted `POST /v1/call` took.
    pub latencies: Vec<Duration>,
    /// When each accepted call started and when its answer came (unix ms): a window's quiet
    /// period counts from its latest arrival.
    pub arrivals: Vec<(i64, i64)>,
    /// The first refusal's message (the client's errors carry no key).
    pub first_refusal: Option<String>,
    pub elapsed: Duration,
}

impl Tally {
    pub fn posted(&self) -> u64 {
        self.agents.iter().map(|a| a.posted).sum()
    }

    pub fn refused(&self) -> u64 {
        self.agents.iter().map(|a| a.refused).sum()
    }

    /// The latency at quantile `q` (0..=1) of the accepted posts.
    pub fn latency(&self, q: f64) -> Option<Duration> {
        let mut sorted = self.latencies.clone();
        sorted.sort_unstable();
        let last = sorted.len().checked_sub(1)?;
        sorted.get(((last as f64) * q).ceil() as usize).copied()
    }
}

/// One post's outcome: the agent's index, degraded or not, and (how long it took, when the
/// call started, when it was answered) or why it failed.
type Posted = (usize, bool, Result<(Duration, i64, i64), String>);

/// Posts `plan`'s calls through `client` until its count or duration is reached or `stop`
/// resolves; then waits for the posts in flight.
pub async fn run(client: &Client, plan: &Plan, stop: impl Future<Output = ()>) -> Tally {
    let every = Duration::from_secs_f64(60.0 / plan.calls_per_minute);
    let mut ticker = tokio::time::interval(every);
    // A tick missed under load is made up at once: the rate holds on average.
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let started = Instant::now();
    let until = plan.duration.map(|d| tokio::time::Instant::from_std(started + d));
    let ends = async move {
        match until {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(stop, ends);
    let permits = Arc::new(Semaphore::new(IN_FLIGHT));
    let mut posts: JoinSet<Posted> = JoinSet::new();
    let mut tally = Tally { agents: tallies(&plan.agents), ..Tally::default() };
    let mut sent = 0_u64;
    while plan.count.is_none_or(|n| sent < n) {
        tokio::select! {
            _ = &mut stop => break,
            _ = &mut ends => break,
            _ = ticker.tick() => {}
        }
        let Ok(permit) = permits.clone().acquire_owned().await else { break };
        let index = (sent % plan.agents.len() as u64) as usize;
        let agent = plan.agents[index].clone();
        let degraded = plan.degraded(&agent, started.elapsed());
        let client = client.clone();
        posts.spawn(async move {
            let input = conversation::call(&agent, &uuid::Uuid::new_v4().to_string(), degraded, jiff::Timestamp::now());
            let started_ms = input.started_at.as_ref().and_then(|t| t.parse()).map_or(0, |t| t.as_millisecond());
            let at = Instant::now();
            let outcome = client
                .create_call(&input)
                .await
                .map(|_| (at.elapsed(), started_ms, jiff::Timestamp::now().as_millisecond()))
                .map_err(|e| e.to_string());
            drop(permit);
            (index, degraded, outcome)
        });
        sent += 1;
        while let Some(Ok(done)) = posts.try_join_next() {
            count(&mut tally, done);
        }
    }
    while let Some(done) = posts.join_next().await {
        if let Ok(done) = done {
            count(&mut tally, done);
        }
    }
    tally.elapsed = started.elapsed();
    tally
}

fn tallies(agents: &[String]) -> Vec<AgentTally> {
    agents.iter().map(|agent| AgentTally { agent: agent.clone(), ..AgentTally::default() }).collect()
}

fn count(tally: &mut Tally, (index, degraded, outcome): Posted) {
    let agent = &mut tally.agents[index];
    match outcome {
        Ok((took, started_ms, arrived_ms)) => {
            agent.posted += 1;
            agent.degraded += u64::from(degraded);
            tally.latencies.push(took);
            tally.arrivals.push((started_ms, arrived_ms));
        }
        Err(message) => {
            agent.refused += 1;
            tally.first_refusal.get_or_insert(message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_degrades_only_in_its_span() {
        let plan = Plan {
            agents: vec!["A".into(), "B".into()],
            calls_per_minute: 60.0,
            count: None,
            duration: None,
            degrade: Some("B".into()),
            degrade_after: Duration::from_secs(60),
            degrade_for: Some(Duration::from_secs(120)),
        };
        let at = Duration::from_secs;
        assert!(!plan.degraded("B", at(59)) && plan.degraded("B", at(60)) && plan.degraded("B", at(179)));
        assert!(!plan.degraded("B", at(180)) && !plan.degraded("A", at(90)));
    }

    #[test]
    fn latency_quantiles_read_the_sorted_posts() {
        let latencies = (1..=100).rev().map(Duration::from_millis).collect();
        let tally = Tally { latencies, ..Tally::default() };
        assert_eq!(tally.latency(0.99), Some(Duration::from_millis(100)));
        assert_eq!(tally.latency(0.5), Some(Duration::from_millis(51)));
        assert_eq!(Tally::default().latency(0.99), None);
    }
}
