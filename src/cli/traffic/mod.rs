//! `switchboard traffic`: production-like calls posted to a service through `POST /v1/call`
//! at a steady rate, so that alerts fire and resolve live and the analytics path can be
//! load-tested. Ctrl-C or SIGTERM ends it with a summary, as `--for` and `--count` do.

pub mod conversation;
pub mod pace;

use std::time::Duration;

use clap::Args;
use serde::Serialize;

use super::exit::{Exit, Failure, Outcome};
use super::output::{self, Tabular, or_dash};
use super::run::parse_duration;
use super::session::Session;
use super::signals::Signals;
use crate::columns::Column;

/// The seeded agents, answered as the reference agent answers their domains.
pub const DEFAULT_AGENTS: &[&str] = &["Brightsmile Dental — Front Desk", "SkyBridge Air — Rebooking Desk"];
/// The fastest pace asked for: a thousand calls a second.
const MAX_CALLS_PER_MINUTE: f64 = 60_000.0;

#[derive(Debug, Args)]
pub struct TrafficArgs {
    /// Calls posted per minute, spread evenly.
    #[arg(long, default_value_t = 60.0, value_name = "N")]
    pub calls_per_minute: f64,
    /// Stop after this long (30s, 10m, 1h); without it, run until Ctrl-C.
    #[arg(long = "for", value_name = "DURATION", value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Stop after this many calls.
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// An agent whose calls to post, by name (found, or created); repeat for several, taken in
    /// turn. Default: the two seeded agents.
    #[arg(long = "agent", value_name = "NAME")]
    pub agents: Vec<String>,
    /// This agent (one of --agent) degrades: slow on every turn, so its latency, silence and
    /// duration metrics score worse.
    #[arg(long, value_name = "NAME")]
    pub degrade: Option<String>,
    /// With --degrade: it degrades this long after the start (default at once).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "degrade")]
    pub degrade_after: Option<Duration>,
    /// With --degrade: it recovers after degrading this long (default: never).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "degrade")]
    pub degrade_for: Option<Duration>,
}

impl TrafficArgs {
    /// The plan the flags say, or every problem with them at once.
    pub fn plan(self) -> Result<pace::Plan, Failure> {
        let agents: Vec<String> = match self.agents.is_empty() {
            true => DEFAULT_AGENTS.iter().map(|a| (*a).to_owned()).collect(),
            false => self.agents,
        };
        let mut problems = Vec::new();
        let rate = self.calls_per_minute;
        if !(rate > 0.0 && rate <= MAX_CALLS_PER_MINUTE) {
            problems.push((
                "--calls-per-minute",
                format!("must be above 0 and at most {MAX_CALLS_PER_MINUTE}, not {rate}"),
            ));
        }
        if self.count == Some(0) {
            problems.push(("--count", "must be at least 1".to_owned()));
        }
        if let Some(blank) = agents.iter().find(|a| a.trim().is_empty()) {
            problems.push(("--agent", format!("an agent needs a name, not {blank:?}")));
        }
        if let Some(degrade) = self.degrade.as_ref().filter(|d| !agents.contains(d)) {
            problems.push((
                "--degrade",
                format!("{degrade:?} is not one of the agents posted for ({})", agents.join(", ")),
            ));
        }
        if !problems.is_empty() {
            return Err(invalid(&problems));
        }
        Ok(pace::Plan {
            agents,
            calls_per_minute: rate,
            count: self.count,
            duration: self.duration,
            degrade: self.degrade,
            degrade_after: self.degrade_after.unwrap_or_default(),
            degrade_for: self.degrade_for,
        })
    }
}

/// Exit 2 naming every flag at fault, each a violation of the error body.
fn invalid(problems: &[(&str, String)]) -> Failure {
    let mut text = "traffic cannot start:".to_owned();
    for (param, message) in problems {
        text.push_str(&format!("\n  {param}: {message}"));
    }
    let mut failure = Failure::invalid(problems[0].0, text);
    let violations: Vec<_> = problems
        .iter()
        .map(|(param, message)| serde_json::json!({"param": param, "code": "invalid_parameter", "message": message}))
        .collect();
    failure.body.details = Some(serde_json::json!({ "violations": violations }));
    failure
}

/// What the traffic did, as printed at its end.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub posted: u64,
    pub refused: u64,
    pub seconds: f64,
    /// What ended it: `count`, `for`, or the signal.
    pub stopped_by: String,
    pub latency_p50_ms: Option<f64>,
    pub latency_p99_ms: Option<f64>,
    pub agents: Vec<pace::AgentTally>,
    pub first_refusal: Option<String>,
}

/// What the traffic did: a value only the CLI makes, so its columns stand beside it rather
/// than in `crate::columns`, which holds the columns of what the service serves.
const SUMMARY: &[Column<Summary>] = &[
    Column::text("POSTED", |x: &Summary| x.posted.to_string()),
    Column::text("REFUSED", |x: &Summary| x.refused.to_string()),
    Column::text("SECONDS", |x: &Summary| format!("{:.1}", x.seconds)),
    Column::text("STOPPED BY", |x: &Summary| x.stopped_by.clone()),
    Column::text("P50 MS", |x: &Summary| or_dash(x.latency_p50_ms.map(|ms| format!("{ms:.1}")))),
    Column::text("P99 MS", |x: &Summary| or_dash(x.latency_p99_ms.map(|ms| format!("{ms:.1}")))),
    Column::text("FIRST REFUSAL", |x: &Summary| or_dash(x.first_refusal.as_ref())),
];

/// Each agent's share of the traffic (AGENTS).
const AGENTS: &[Column<pace::AgentTally>] = &[
    Column::text("AGENT", |a: &pace::AgentTally| a.agent.clone()),
    Column::text("POSTED", |a: &pace::AgentTally| a.posted.to_string()),
    Column::text("REFUSED", |a: &pace::AgentTally| a.refused.to_string()),
    Column::text("DEGRADED", |a: &pace::AgentTally| a.degraded.to_string()),
];

impl Tabular for Summary {
    fn columns() -> Vec<Column<Self>> {
        SUMMARY.to_vec()
    }
}

fn agents_text(summary: &Summary) -> Vec<String> {
    vec![format!("AGENTS\n{}", output::table_of(AGENTS, &summary.agents))]
}

/// Posts `plan`'s calls, then prints what it did.
pub async fn run(plan: pace::Plan, session: &Session) -> Outcome {
    if session.read_only {
        return Err(Failure::usage("traffic posts calls, and --read-only refuses every write"));
    }
    let mut signals = Signals::listen();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let stop = async move {
        let signal = signals.recv().await;
        let _ = tx.send(signal);
    };
    let tally = pace::run(&session.client, &plan, stop).await;
    let signal = rx.await.ok();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let stopped_by = match signal {
        Some(signal) => signal.name().to_owned(),
        None if plan.count.is_some_and(|n| tally.posted() + tally.refused() >= n) => "count".to_owned(),
        None => "for".to_owned(),
    };
    let summary = Summary {
        posted: tally.posted(),
        refused: tally.refused(),
        seconds: tally.elapsed.as_secs_f64(),
        stopped_by,
        latency_p50_ms: tally.latency(0.5).map(ms),
        latency_p99_ms: tally.latency(0.99).map(ms),
        first_refusal: tally.first_refusal.clone(),
        agents: tally.agents,
    };
    output::item_with(session.format, &summary, agents_text)?;
    // Stopping it is how it ends: a summary, and success unless every call was refused.
    match (summary.posted, summary.refused) {
        (0, refused) if refused > 0 => Ok(Exit::Failed),
        _ => Ok(Exit::Ok),
    }
}
