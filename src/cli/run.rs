//! `switchboard run PLAN [--var KEY=VALUE]... [-f FILE] [--wait]`: starts a run of a saved
//! plan or an inline plan from a file and prints the run plan job id; `--wait` watches it.
//! What to run (`RunSpec`) is shared with `gate`.

use std::time::Duration;

use clap::Args;

use super::agent::{AgentArgs, HttpAgent};
use super::exit::{Exit, Failure, Outcome};
use super::input::Document;
use super::output::{self, Format};
use super::plan;
use super::select::{self, SelectArgs};
use super::session::Session;
use super::signals::Signals;
use super::watch;
use futures_util::TryStreamExt;

use crate::api::ListQuery;
use crate::api::model::{CustomerFlow, RunPlanInput, RunRequest, RunStarted, RunVariables, Variables};
use crate::service::SimSpeed;

/// What to run: a saved plan, or an inline plan from a file, with values and an agent.
#[derive(Debug, Clone, Args)]
pub struct RunSpec {
    /// The saved plan: its id or exact name (or give -f FILE).
    pub plan: Option<String>,
    /// An inline plan, JSON or YAML (the body of POST /v1/simulation/plan); `-` reads stdin.
    #[arg(short = 'f', long = "file", conflicts_with = "plan")]
    pub file: Option<String>,
    /// A runtime value for `{{KEY}}` in the flows' lines; repeatable.
    #[arg(long = "var", value_name = "KEY=VALUE")]
    pub vars: Vec<String>,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    /// A bundle (file or directory) applied first, as `config apply -f PATH` would: one line
    /// tests an agent with the team's own flows, personas, metrics and plans.
    #[arg(long = "suite", value_name = "PATH")]
    pub suite: Vec<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub spec: RunSpec,
    /// Wait for the run to end, like `job watch`.
    #[arg(long)]
    pub wait: bool,
    /// With --embedded only: simulated seconds per wall second, or `max` (the default).
    #[arg(long)]
    pub sim_speed: Option<SimSpeed>,
}

/// A run ready to start.
pub struct Prepared {
    pub request: RunRequest,
    /// The saved plan's name, or the inline plan's.
    pub plan_name: Option<String>,
    /// The inline plan's file, to point the service's refusals at their line.
    document: Option<Document>,
    /// What the plan file changed in its saved plan, written once the run has started.
    plan_update: Option<super::plan_keep::Update>,
}

impl RunSpec {
    /// Reads the plan (saved or inline), the values and the agent, and makes the request.
    pub async fn prepare(&self, session: &Session) -> Result<Prepared, Failure> {
        let variables = variables(&self.vars)?;
        if !self.suite.is_empty() {
            super::config::apply_suite(session, &self.suite).await?;
        }
        // The run `--rerun-failed` names, read once: its plan, its failures and its agent.
        let earlier = match self.select.rerun_failed {
            Some(job) => Some(session.client.get_run_plan_job(job).await?),
            None => None,
        };
        let mut file_plan = None;
        let (mut plan_id, mut inline, plan_name, section, document) = match (&self.plan, &self.file) {
            (Some(plan), None) => {
                let plan = plan::resolve(&session.client, plan).await?;
                (Some(plan.id), None, Some(plan.name().to_string()), None, None)
            }
            (None, Some(file)) => {
                let (document, input, section) = plan::plan_file(file, &self.agent)?;
                let name = input.name.clone();
                file_plan = Some(input.clone());
                (None, Some(input), name, section, Some(document))
            }
            (None, None) => match &earlier {
                // A rerun without a plan runs the earlier run's own.
                Some(run) => {
                    let plan = select::plan_of_job(&session.client, run).await?;
                    (Some(plan.id), None, Some(plan.name().to_string()), None, None)
                }
                None => return Err(Failure::usage("name a saved plan (its id or exact name) or give -f FILE")),
            },
            _ => return Err(Failure::usage("name a saved plan (its id or exact name) or give -f FILE")),
        };
        if self.select.narrows() {
            let label = select::PlanRef { name: plan_name.as_deref(), id: plan_id, file: self.file.as_deref() };
            // The chosen test cases run as an inline copy of a saved plan.
            let mut input = match (inline.take(), plan_id.take()) {
                (Some(input), _) => input,
                (None, Some(id)) => session.client.get_run_plan(id).await?.plan.as_input(),
                (None, None) => return Err(Failure::usage("no plan to choose test cases from")),
            };
            select::narrow(&session.client, &mut input, &self.select, earlier.as_ref(), &label).await?;
            if let Some(run) = &earlier {
                // What that run ran: an inline copy's agent (`--agent-url`), not the saved plan's.
                let endpoints = select::endpoints_of_job(run);
                if !endpoints.is_empty() {
                    input.agent_endpoints = Some(endpoints);
                }
            }
            inline = Some(input);
        }
        let mut own_agent = None;
        if let Some(agent) = HttpAgent::from(&self.agent, section)? {
            session.may_write("--agent-url")?;
            // The agent's endpoint replaces the plan's: a saved plan runs as an inline copy.
            let mut input = match inline.take() {
                Some(input) => input,
                None => match plan_id.take() {
                    Some(id) => session.client.get_run_plan(id).await?.plan.as_input(),
                    None => return Err(Failure::usage("no plan to point at the agent")),
                },
            };
            let endpoints = vec![agent.provision(&session.client).await?];
            input.agent_endpoints = Some(endpoints.clone());
            own_agent = Some(endpoints);
            inline = Some(input);
        }
        let (mut save_as_plan, mut plan_update) = (None, None);
        if let (Some(document), Some(file_plan)) = (&document, file_plan) {
            session.may_write("run")?;
            let narrowed = self.select.narrows();
            match super::plan_keep::keep(session, document, file_plan, own_agent, narrowed).await? {
                super::plan_keep::Kept::Found => {}
                super::plan_keep::Kept::SaveWithRun => save_as_plan = Some(true),
                super::plan_keep::Kept::Update(update) => plan_update = Some(update),
            }
        }
        warn_unused_variables(session, plan_id, inline.as_ref(), &variables).await;
        let request = RunRequest {
            plan_id,
            plan: inline,
            variables: (!variables.is_empty()).then_some(RunVariables::Flat(variables)),
            save_as_plan,
            ..Default::default()
        };
        Ok(Prepared { request, plan_name, document, plan_update })
    }
}

/// Warns of each `--var` no flow of the plan uses (a typo fills nothing and the run goes on
/// without it). Best effort: when the flows cannot be read, nothing is said.
async fn warn_unused_variables(
    session: &Session,
    plan_id: Option<uuid::Uuid>,
    inline: Option<&RunPlanInput>,
    variables: &Variables,
) {
    if variables.is_empty() {
        return;
    }
    let saved = match (inline, plan_id) {
        (None, Some(id)) => session.client.get_run_plan(id).await.ok().map(|p| p.plan.as_input()),
        _ => None,
    };
    let Some(plan) = inline.or(saved.as_ref()) else { return };
    let mut used = Vec::new();
    // Flows chosen by slug are found in one listing, read once.
    let mut listed: Option<Vec<CustomerFlow>> = None;
    for selection in plan.flow_selections() {
        let flow = match (&selection.id, &selection.slug) {
            (Some(id), _) => session.client.get_flow(*id).await.ok(),
            (None, Some(slug)) => {
                if listed.is_none() {
                    let all = session.client.list_all("/v1/customer-flow", ListQuery::default()).try_collect();
                    listed = Some(all.await.unwrap_or_default());
                }
                listed.iter().flatten().find(|f| f.slug.as_deref() == Some(slug)).cloned()
            }
            (None, None) => None,
        };
        let Some(flow) = flow else { return };
        used.extend(flow.variables());
    }
    for name in variables.keys().filter(|name| !used.contains(name)) {
        eprintln!("warning: --var {name}: no flow this plan runs uses {{{{{name}}}}}; it fills nothing");
    }
}

/// `--var KEY=VALUE` pairs.
fn variables(pairs: &[String]) -> Result<Variables, Failure> {
    let mut variables = Variables::new();
    for pair in pairs {
        match pair.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => {
                variables.insert(key.trim().to_string(), value.to_string());
            }
            _ => return Err(Failure::invalid("--var", format!("--var takes KEY=VALUE, not {pair:?}"))),
        }
    }
    Ok(variables)
}

/// Starts the run; a refused inline plan points at the line of the member at fault.
pub async fn start(session: &Session, prepared: &Prepared) -> Result<RunStarted, Failure> {
    session.may_write("run")?;
    let started = session.client.run(&prepared.request).await.map_err(|error| match &prepared.document {
        Some(document) => plan::locate(document, error),
        None => error.into(),
    })?;
    if let (true, Some(name), Some(document), Some(id)) =
        (started.saved_as_plan, &prepared.plan_name, &prepared.document, started.simulation_run_plan_id)
    {
        eprintln!("{}", super::plan_keep::saved_from(name, &document.name, id));
    }
    if let (Some(update), Some(document)) = (&prepared.plan_update, &prepared.document) {
        // The run has started: a plan left as it was is said, not made the run's failure.
        if let Err(failure) = super::plan_keep::update(session, document, update).await {
            eprintln!("the saved plan was not updated: {}", failure.body.message);
        }
    }
    Ok(started)
}

/// Prepares the run unless a signal comes first: Ctrl-C while a plan is being resolved ends
/// the command before anything is started.
pub async fn prepare_or_stop(spec: &RunSpec, session: &Session, signals: &mut Signals) -> Result<Prepared, Outcome> {
    tokio::select! {
        prepared = spec.prepare(session) => prepared.map_err(Err),
        signal = signals.recv() => {
            eprintln!("{}; no run was started", signal.name());
            Err(Ok(signal.exit()))
        }
    }
}

pub async fn run(args: RunArgs, session: &Session) -> Outcome {
    let mut signals = Signals::listen();
    let prepared = match prepare_or_stop(&args.spec, session, &mut signals).await {
        Ok(prepared) => prepared,
        Err(outcome) => return outcome,
    };
    let started = start(session, &prepared).await?;
    let id = started.simulation_run_plan_job_id;
    if !args.wait {
        if session.throwaway {
            eprintln!("warning: --embedded without --wait: the throwaway service stops now, and the run with it");
        }
        match session.format.resolve() {
            Format::Json | Format::Jsonl => output::emit(&output::json(&serde_json::json!({ "data": started }))?)?,
            _ => output::emit(&format!("{id}\n"))?,
        }
        return Ok(Exit::Ok);
    }
    eprintln!("started run plan job {id} ({})", super::output::counted(started.simulation_job_count, "simulation"));
    super::job::finish_watch(
        session,
        id,
        watch::watch(&session.client, id, session.poll_interval, None, &mut signals).await?,
    )
}

/// A duration like `30m`, `90s`, `1h30m` or `45` (seconds).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if let Ok(seconds) = text.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0)
            .then(|| Duration::from_secs_f64(seconds))
            .ok_or_else(|| format!("{text:?} is not a duration"));
    }
    let mut total = 0.0;
    let mut number = String::new();
    for c in text.chars() {
        match c {
            '0'..='9' | '.' => number.push(c),
            'h' | 'm' | 's' if !number.is_empty() => {
                let value: f64 = number.parse().map_err(|_| format!("{text:?} is not a duration"))?;
                total += value
                    * match c {
                        'h' => 3600.0,
                        'm' => 60.0,
                        _ => 1.0,
                    };
                number.clear();
            }
            _ => return Err(format!("{text:?} is not a duration (try 30m, 90s or 1h30m)")),
        }
    }
    if !number.is_empty() || text.is_empty() {
        return Err(format!("{text:?} is not a duration (try 30m, 90s or 1h30m)"));
    }
    Ok(Duration::from_secs_f64(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_ci_timeouts() {
        assert_eq!(parse_duration("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("2.5s"), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("5x").is_err());
    }

    #[test]
    fn vars_are_key_value_pairs() {
        let vars = variables(&["patientName=Dana Whitfield".into(), "x=a=b".into()]).unwrap();
        assert_eq!(vars["patientName"], "Dana Whitfield");
        assert_eq!(vars["x"], "a=b");
        assert_eq!(variables(&["novalue".into()]).unwrap_err().body.param.as_deref(), Some("--var"));
    }
}
