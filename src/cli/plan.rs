//! `switchboard plan list | get PLAN | create -f FILE`. PLAN is an id or an exact name.

use clap::Subcommand;
use futures_util::TryStreamExt;
use uuid::Uuid;

use super::agent::{AgentArgs, AgentSection, HttpAgent};
use super::exit::{Exit, Failure, Outcome};
use super::input::Document;
use super::listing::{self, ListArgs};
use super::output::{self, Tabular};
use super::session::Session;
use crate::api::model::{EdgeCases, RunPlan, RunPlanInput};
use crate::api::page::Lenient;
use crate::api::{Client, ListQuery, routes};
use crate::columns::{Column, plan};

#[derive(Debug, Subcommand)]
pub enum PlanCommand {
    /// List run plans, newest first.
    List(ListArgs),
    /// Show one run plan.
    Get {
        /// The plan's id, or its exact name.
        plan: String,
    },
    /// Create a run plan from a JSON or YAML file (the body of POST /v1/simulation/plan); an
    /// `agent:` block (or --agent-url) points it at your own agent, as `gate -f` does.
    Create {
        /// The file; `-` reads stdin.
        #[arg(short = 'f', long = "file")]
        file: String,
        #[command(flatten)]
        agent: AgentArgs,
    },
}

impl Tabular for RunPlan {
    fn columns() -> Vec<Column<Self>> {
        plan::CLI.to_vec()
    }
}

/// An inline plan file (`run -f`, `gate -f`, `plan create -f`) with its `agent:` section taken
/// out: the file, the plan, and the section.
pub fn plan_file(file: &str, agent: &AgentArgs) -> Result<(Document, RunPlanInput, Option<AgentSection>), Failure> {
    let (name, documents) = Document::read_all(file)?;
    super::file_kind::refuse_bundle(&name, &documents)?;
    let mut document = Document::only(&name, documents)?;
    let section = match document.take("agent") {
        Some(value) => Some(
            serde_json::from_value::<AgentSection>(value)
                .map_err(|e| document.error("agent", &format!("agent: {e}")))?,
        ),
        None => None,
    };
    let wants_agent = agent.agent_url.is_some() || section.as_ref().is_some_and(|s| s.url.is_some());
    if wants_agent && let Some(plan) = document.value.as_object_mut() {
        // The agent's endpoint is made by the caller; a file for --agent-url needs none of its own.
        plan.entry("agentEndpoints").or_insert_with(|| serde_json::json!([{ "id": uuid::Uuid::nil() }]));
    }
    let input: RunPlanInput = document.decode("run plan")?;
    Ok((document, input, section))
}

pub async fn run(command: PlanCommand, session: &Session) -> Outcome {
    match command {
        PlanCommand::List(args) => {
            let (plans, pagination) =
                listing::fetch::<RunPlan>(&session.client, routes::RUN_PLANS, ListQuery::default(), &args).await?;
            output::list(session.format, &plans, &pagination)?;
        }
        PlanCommand::Get { plan } => {
            let plan = resolve(&session.client, &plan).await?;
            output::item_with(session.format, &plan, |plan| vec![schedule(plan), contents(&plan.plan)])?;
        }
        PlanCommand::Create { file, agent } => {
            session.may_write("plan create")?;
            let (document, mut input, section) = plan_file(&file, &agent)?;
            if let Some(agent) = HttpAgent::from(&agent, section)? {
                input.agent_endpoints = Some(vec![agent.provision(&session.client).await?]);
            }
            let created = session.client.create_run_plan(&input).await.map_err(|e| locate(&document, e))?;
            output::item(session.format, &created.run_plan)?;
        }
    }
    Ok(Exit::Ok)
}

/// A refusal of a file's contents, pointed at the line of each member the service named.
pub fn locate(document: &Document, error: crate::api::Error) -> Failure {
    let mut failure = Failure::from(error);
    let line_of = |param: &str, message: &str| document.line_of(&member_at_fault(param, message));
    let at = |line: usize| format!("{}:{line}: ", document.name);
    if let Some(line) = failure.body.param.as_deref().and_then(|p| line_of(p, &failure.body.message)) {
        failure.body.message = format!("{}{}", at(line), failure.body.message);
    }
    let violations = failure.body.details.as_mut().and_then(|d| d.get_mut("violations")).and_then(|v| v.as_array_mut());
    let Some(violations) = violations.filter(|v| !v.is_empty()) else { return failure };
    let text = |v: &serde_json::Value, member: &str| v.get(member).and_then(|m| m.as_str()).map(str::to_owned);
    let mut lines = Vec::with_capacity(violations.len());
    for violation in violations.iter_mut() {
        let (Some(param), Some(message)) = (text(violation, "param"), text(violation, "message")) else {
            lines.push(None);
            continue;
        };
        let line = line_of(&param, &message);
        if let Some(line) = line {
            violation["message"] = format!("{}{message}", at(line)).into();
        }
        lines.push(line);
    }
    // Said in the file's order, as an editor shows it, not the order the service checked in; a
    // member with no line of its own goes last.
    let mut located: Vec<(Option<usize>, serde_json::Value)> = lines.into_iter().zip(violations.drain(..)).collect();
    located.sort_by_key(|(line, _)| line.map_or((1, 0), |line| (0, line)));
    violations.extend(located.into_iter().map(|(_, violation)| violation));
    // The message and field are the first violation's, as the service sends them.
    if let Some(first) = violations.first() {
        failure.body.message = text(first, "message").unwrap_or(failure.body.message);
        failure.body.param = text(first, "param").or(failure.body.param);
    }
    failure
}

/// The member of the file a refusal is about. A `{{variable}}` a test case leaves unfilled is
/// refused as `variables.NAME` (the run's variables could fill it), its message naming the flow
/// selection that chose the test case (`flows[0]: …`): that selection's line is where a value
/// goes.
fn member_at_fault(param: &str, message: &str) -> String {
    let param = param.trim_start_matches("plan.");
    let selection = message.split(": ").find(|part| part.starts_with("flows[") && part.ends_with(']'));
    match selection {
        Some(selection) if param.starts_with("variables.") => selection.to_owned(),
        _ => param.to_owned(),
    }
}

/// When a plan runs by itself, for `plan get` in a table.
fn schedule(plan: &RunPlan) -> String {
    let schedule = plan.plan.schedule.as_ref().map_or_else(|| "none (runs when started)".to_owned(), |s| s.summary());
    let next = plan.next_run_at.as_ref().map_or_else(|| "-".to_owned(), |t| t.to_string());
    format!("SCHEDULE  {schedule}\nNEXT RUN  {next}\n")
}

/// What a plan runs, for `plan get` in a table.
fn contents(plan: &RunPlanInput) -> String {
    let mut text = String::from("FLOWS\n");
    for flow in plan.flows.iter().flatten() {
        let name = flow.slug.clone().or(flow.id.map(|id| id.to_string())).unwrap_or_default();
        let edge = match &flow.edge_cases {
            Some(EdgeCases::All) => "every edge case".to_string(),
            Some(EdgeCases::List(list)) => format!("{} edge case(s)", list.len()),
            None => "no edge cases".into(),
        };
        let happy = if flow.happy_path == Some(true) { "happy path + " } else { "" };
        text.push_str(&format!("  {name}: {happy}{edge}\n"));
    }
    text.push_str("METRICS (bar: minPassRate, 80 % when unset)\n");
    for metric in plan.metrics.iter().flatten() {
        let name =
            metric.slug_or_alias().map(str::to_string).or(metric.id.map(|id| id.to_string())).unwrap_or_default();
        let (bar, inherited) = metric.min_pass_rate_or_default();
        let bar = if inherited { format!("{bar} % (default)") } else { format!("{bar} %") };
        text.push_str(&format!("  {name}: {bar}\n"));
    }
    text
}

/// A plan by id, or by exact name; several plans of one name are a usage error listing them.
pub async fn resolve(client: &Client, plan: &str) -> Result<RunPlan, Failure> {
    if let Ok(id) = plan.parse::<Uuid>() {
        return client.get_run_plan(id).await.map_err(|e| match e.status() {
            Some(404) => Failure::not_found(format!("no run plan has the id {id}")),
            _ => e.into(),
        });
    }
    // One plan the client cannot read does not stop the others being found by name.
    let listed: Vec<Lenient<RunPlan>> =
        client.list_all_lenient::<RunPlan>(routes::RUN_PLANS, ListQuery::default().limit(50)).try_collect().await?;
    let unreadable = listed.iter().filter(|p| matches!(p, Lenient::Unreadable(_))).count();
    let named: Vec<RunPlan> = listed
        .into_iter()
        .filter_map(|p| match p {
            Lenient::Item(p) if p.name() == plan => Some(p),
            _ => None,
        })
        .collect();
    match named.as_slice() {
        [one] => Ok(one.clone()),
        [] => {
            let unread = match unreadable {
                0 => String::new(),
                n => format!("; {n} listed plans could not be read, and one may be it: pass the plan's id"),
            };
            Err(Failure::not_found(format!(
                "no run plan is named {plan:?} (names must match exactly; `switchboard plan list` shows them){unread}"
            )))
        }
        many => {
            let ids: Vec<String> = many.iter().map(|p| p.id.to_string()).collect();
            Err(Failure::invalid(
                "plan",
                format!("{} run plans are named {plan:?}; pass one of their ids: {}", many.len(), ids.join(", ")),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The service lists what it refuses in the order it checked; the file's reader gets them in
    /// line order, the message and field the first line's.
    #[test]
    fn a_refusal_of_a_plan_file_is_said_in_line_order() {
        let yaml =
            "name: Mine\ndirection: INBOUND\nflows:\n  - slug: move-apointment\nmetrics:\n  - slug: task_completon\n";
        let document = Document::parse("mine.yaml", yaml).unwrap();
        let body = serde_json::json!({"type": "validation", "code": "invalid_parameter",
            "message": "metrics[0].slug: no metric definition task_completon", "param": "metrics[0].slug",
            "details": {"violations": [
                {"param": "metrics[0].slug", "code": "invalid_parameter", "message": "metrics[0].slug: no metric definition task_completon"},
                {"param": "flows[0].slug", "code": "invalid_parameter", "message": "flows[0].slug: no customer flow move-apointment"}]}});
        let error = crate::api::Error::Api(Box::new(crate::api::error::ApiError::from_response(
            400,
            body.to_string().as_bytes(),
            None,
        )));
        let failure = locate(&document, error);
        assert_eq!(failure.body.param.as_deref(), Some("flows[0].slug"));
        assert!(failure.body.message.starts_with("mine.yaml:4: flows[0].slug"), "{}", failure.body.message);
        let described = failure.describe();
        let lines: Vec<&str> = described.lines().collect();
        assert_eq!(lines.len(), 2, "{described}");
        assert!(lines[1].trim_start().starts_with("mine.yaml:6: metrics[0].slug"), "{described}");
    }
}
