//! Choosing test cases as `pytest -k` and `--last-failed` do: `--only PATTERN` keeps the test
//! cases whose flow, variant or persona name holds the pattern (case-insensitive; several
//! patterns select their union), and `--rerun-failed JOB` keeps those that did not pass in
//! that run. The plan is narrowed before it is sent, so the service runs only what is left.

use std::collections::HashSet;

use clap::Args;
use futures_util::TryStreamExt;
use uuid::Uuid;

use super::exit::Failure;
use crate::api::Client;
use crate::api::model::*;
use crate::api::operations::ListQuery;

/// The flags that narrow a run to some of its test cases.
#[derive(Debug, Clone, Default, Args)]
pub struct SelectArgs {
    /// Run only the test cases whose flow, variant or persona name holds PATTERN
    /// (case-insensitive); repeatable, selecting their union.
    #[arg(long = "only", value_name = "PATTERN")]
    pub only: Vec<String>,
    /// Run only the test cases that did not pass in this earlier run (its job id); without a
    /// plan, that run's plan.
    #[arg(long = "rerun-failed", value_name = "JOB")]
    pub rerun_failed: Option<Uuid>,
}

impl SelectArgs {
    pub fn narrows(&self) -> bool {
        !self.only.is_empty() || self.rerun_failed.is_some()
    }
}

/// One test case of a plan: a flow variant, with the persona it runs as.
struct Case<'a> {
    flow: &'a CustomerFlow,
    variant: &'a FlowVariant,
    persona: Option<Persona>,
}

impl Case<'_> {
    /// What `--only` matches: the flow's title and slug, the variant's title, the persona's
    /// name and display name.
    fn names(&self) -> impl Iterator<Item = &str> {
        let persona = self.persona.as_ref().map(|p| &p.fields);
        [
            self.flow.title.as_deref(),
            self.flow.slug.as_deref(),
            self.variant.title.as_deref(),
            persona.and_then(|p| p.name.as_deref()),
            persona.and_then(|p| p.display_name.as_deref()),
        ]
        .into_iter()
        .flatten()
    }

    /// Flow · variant (where it says more than the flow's title) · the persona as people know it.
    fn label(&self) -> String {
        let flow = self.flow.title.as_deref().or(self.flow.slug.as_deref()).unwrap_or("flow");
        let mut parts = vec![flow.to_owned()];
        let repeats = |v: &&str| v.trim().eq_ignore_ascii_case(flow.trim());
        if let Some(variant) = self.variant.title.as_deref().filter(|v| !repeats(v)) {
            parts.push(variant.to_owned());
        }
        parts.extend(self.persona.as_ref().map(Persona::label));
        parts.join(" · ")
    }
}

/// Narrows `plan` to the chosen test cases; refuses (exit 2) when none is left, naming the
/// plan (`label`). `earlier` is the run `--rerun-failed` names, read once by the caller.
pub async fn narrow(
    client: &Client,
    plan: &mut RunPlanInput,
    args: &SelectArgs,
    earlier: Option<&RunPlanJob>,
    label: &PlanRef<'_>,
) -> Result<(), Failure> {
    if !args.narrows() {
        return Ok(());
    }
    if !plan.runs_flows() {
        return Err(Failure::usage("--only and --rerun-failed choose among a plan's flows; this plan runs none"));
    }
    let earlier = earlier.map(|run| failed_cases(run, label)).transpose()?;
    let failed = earlier.as_ref().map(|e| &e.failed);
    let patterns: Vec<String> = args.only.iter().map(|p| p.to_lowercase()).collect();
    let mut kept = Vec::new();
    let mut seen = Vec::new();
    for selection in plan.flow_selections() {
        let flow = resolve(client, selection).await?;
        let mut narrowed = selection.clone();
        let mut happy_kept = false;
        let mut edges_kept = Vec::new();
        for (case, edge) in cases(client, &flow, selection).await? {
            let named = patterns.is_empty()
                || case.names().any(|name| patterns.iter().any(|p| name.to_lowercase().contains(p.as_str())));
            let chosen = named && failed.as_ref().is_none_or(|f| f.contains(&(flow.id, case.variant.id)));
            seen.push(case.label());
            match (chosen, edge) {
                (false, _) => {}
                (true, None) => happy_kept = true,
                (true, Some(edge)) => edges_kept.push(edge),
            }
        }
        if !happy_kept && edges_kept.is_empty() {
            continue;
        }
        narrowed.happy_path = Some(happy_kept);
        narrowed.edge_cases = (!edges_kept.is_empty()).then_some(EdgeCases::List(edges_kept));
        kept.push(narrowed);
    }
    if kept.is_empty() {
        let mut message = format!("no test case of plan {label} is chosen");
        if !args.only.is_empty() {
            message.push_str(&format!(" by --only {}", args.only.join(", --only ")));
        }
        if let Some(earlier) = &earlier {
            message.push_str(&format!(" among those that did not pass in run {}", earlier.job));
            message.push_str(&earlier.why_none(client, label.id).await);
        }
        message.push_str(&format!("; its test cases are:\n  {}", seen.join("\n  ")));
        return Err(Failure::invalid(if args.only.is_empty() { "--rerun-failed" } else { "--only" }, message));
    }
    plan.flows = Some(kept);
    Ok(())
}

/// The flow a selection names, by id or by slug.
async fn resolve(client: &Client, selection: &FlowSelection) -> Result<CustomerFlow, Failure> {
    if let Some(id) = selection.id {
        return Ok(client.get_flow(id).await?);
    }
    let slug = selection.slug.clone().unwrap_or_default();
    let flows = client.list_all::<CustomerFlow>(crate::api::operations::routes::FLOWS, ListQuery::default().limit(50));
    let mut flows = std::pin::pin!(flows);
    let mut slugs = Vec::new();
    while let Some(flow) = flows.try_next().await? {
        if flow.slug.as_deref() == Some(slug.as_str()) {
            return Ok(flow);
        }
        slugs.extend(flow.slug);
    }
    let hint = crate::api::suggest::did_you_mean(&slug, slugs.iter().map(String::as_str));
    Err(Failure::invalid("flows", format!("no customer flow with slug {slug}{hint}")))
}

/// The selection's test cases in order: the happy path (no edge entry), then its edge cases,
/// each with the entry that selects it.
async fn cases<'f>(
    client: &Client,
    flow: &'f CustomerFlow,
    selection: &FlowSelection,
) -> Result<Vec<(Case<'f>, Option<EdgeCaseSelection>)>, Failure> {
    let override_persona = match selection.persona_override_id {
        Some(id) => Some(client.get_persona(id).await?),
        None => None,
    };
    let persona_of = |variant: &FlowVariant| override_persona.clone().or_else(|| variant.persona_override.clone());
    let mut out = Vec::new();
    if selection.happy_path == Some(true)
        && let Some(happy) = &flow.happy_path
    {
        out.push((Case { flow, variant: happy, persona: persona_of(happy) }, None));
    }
    match &selection.edge_cases {
        Some(EdgeCases::All) => {
            for edge in &flow.edge_cases {
                let entry = EdgeCaseSelection { id: Some(edge.id), ..Default::default() };
                out.push((Case { flow, variant: edge, persona: persona_of(edge) }, Some(entry)));
            }
        }
        Some(EdgeCases::List(list)) => {
            for entry in list {
                let Some(edge) = flow.edge_cases.iter().find(|e| Some(e.id) == entry.id) else { continue };
                let persona = match entry.persona_override_id {
                    Some(id) => Some(client.get_persona(id).await?),
                    None => persona_of(edge),
                };
                out.push((Case { flow, variant: edge, persona }, Some(entry.clone())));
            }
        }
        None => {}
    }
    Ok(out)
}

/// An earlier run's test cases that did not pass, for `--rerun-failed`.
struct Earlier {
    job: Uuid,
    /// The plan that run ran, when it was saved.
    plan_id: Option<Uuid>,
    /// (flow, variant) of each test case whose final attempt did not pass.
    failed: HashSet<(Uuid, Uuid)>,
}

impl Earlier {
    /// Why none of its failures is in the plan: it had none, or it ran another plan.
    async fn why_none(&self, client: &Client, plan: Option<Uuid>) -> String {
        let job = self.job;
        if self.failed.is_empty() {
            return format!(": run {job} has no test case that did not pass, so there is nothing to rerun");
        }
        let other = match self.plan_id.filter(|id| Some(*id) != plan) {
            Some(id) => match client.get_run_plan(id).await {
                Ok(other) => format!(", and run {job} ran plan \"{}\" (id {id})", other.name()),
                Err(_) => format!(", and run {job} ran plan {id}"),
            },
            None => String::new(),
        };
        format!(": none of its {} failed test case(s) is in this plan{other}", self.failed.len())
    }
}

/// A plan as refusals name it: `"Nightly" (id …)`, or the inline plan's name and file.
pub struct PlanRef<'a> {
    pub name: Option<&'a str>,
    pub id: Option<Uuid>,
    pub file: Option<&'a str>,
}

impl std::fmt::Display for PlanRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name {
            Some(name) => write!(f, "\"{name}\"")?,
            None => f.write_str("(unnamed)")?,
        }
        match (self.id, self.file) {
            (Some(id), _) => write!(f, " (id {id})"),
            (None, Some(file)) => write!(f, " (from {file})"),
            (None, None) => Ok(()),
        }
    }
}

/// The test cases that did not pass in `job`: a final attempt whose outcome is not PASSED
/// (FAILED, NOT_EVALUATED, an error).
fn failed_cases(run: &RunPlanJob, label: &PlanRef<'_>) -> Result<Earlier, Failure> {
    let job = run.simulation_run_plan_job_id;
    if !run.status.as_ref().is_some_and(RunPlanJobStatus::is_terminal) {
        let message = format!("run {job} has not ended: wait for it, then rerun plan {label}");
        return Err(Failure::invalid("--rerun-failed", message));
    }
    let failed = run
        .simulation_jobs
        .iter()
        .filter(|s| s.invalidation.is_none() && s.outcome != Some(SimulationOutcome::Passed))
        .filter_map(|s| s.customer_flow.as_ref().and_then(|f| Some((f.id, f.variant_id?))))
        .collect();
    Ok(Earlier { job, plan_id: run.simulation_run_plan_id, failed })
}

/// The agent endpoints a run's simulations dialled, in first-seen order: a rerun of a run of an
/// inline copy (`--agent-url`) dials them again, not the saved plan's.
pub fn endpoints_of_job(run: &RunPlanJob) -> Vec<IdRef> {
    let mut endpoints: Vec<IdRef> = Vec::new();
    for id in run.simulation_jobs.iter().filter_map(|s| s.agent_endpoint.as_ref().map(|e| e.id)) {
        if !endpoints.iter().any(|e| e.id == id) {
            endpoints.push(IdRef { id });
        }
    }
    endpoints
}

/// The plan a rerun runs when none is named: the earlier run's own, when it was saved.
pub async fn plan_of_job(client: &Client, run: &RunPlanJob) -> Result<RunPlan, Failure> {
    let job = run.simulation_run_plan_job_id;
    let unsaved = || {
        Failure::invalid(
            "--rerun-failed",
            format!("run {job} ran a plan that was not saved: name the plan (or -f FILE) too"),
        )
    };
    let id = run.simulation_run_plan_id.ok_or_else(unsaved)?;
    match client.get_run_plan(id).await {
        Ok(plan) => Ok(plan),
        Err(crate::api::Error::Api(api)) if api.status == 404 => Err(unsaved()),
        Err(error) => Err(error.into()),
    }
}
