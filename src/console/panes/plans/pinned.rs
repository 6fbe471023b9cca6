//! Everything a run plan pins, as detail lines: endpoints, flows with their variants, persona
//! overrides and values, metrics with their conversation source, every option (defaults marked),
//! deprecated members marked deprecated, and members this build does not know.

use ratatui::text::{Line, Span};

use crate::api::model::{
    EdgeCases, MetricReference, RunPlan, RunPlanInput, RunPlanJob, Variables, percent, run_plan_limits,
};
use crate::console::panes::jobs::verdict;
use crate::console::panes::names::Names;
use crate::console::theme::Theme;
use crate::console::widgets::detail::Lines;
use crate::console::widgets::text::{duration_ms, or_dash, when};

/// A value the plan sets, or the service's default marked as such.
fn set_or<T: ToString>(value: Option<T>, default: T) -> String {
    match value {
        Some(value) => value.to_string(),
        None => format!("{} (default)", default.to_string()),
    }
}

fn yes(value: bool) -> &'static str {
    if value { "yes" } else { "no" }
}

fn seconds(s: i64) -> String {
    if s >= 60 { format!("{s} s ({})", duration_ms(s * 1000)) } else { format!("{s} s") }
}

fn texts(items: &[String]) -> String {
    if items.is_empty() {
        "— (off)".into()
    } else {
        items.iter().map(|i| format!("\"{i}\"")).collect::<Vec<_>>().join(", ")
    }
}

/// A named thing and its id, dim: `  Reschedule a cleaning  4ac0…`.
fn item(lines: &mut Lines, indent: usize, name: &str, id: &str) {
    let pad = " ".repeat(indent);
    lines.line(Line::from(vec![Span::raw(format!("{pad}{name}  ")), Span::styled(id.to_string(), lines.theme.dim())]));
}

/// `label: value` under an item, indented.
fn fact(lines: &mut Lines, indent: usize, label: &str, value: impl Into<String>) {
    let pad = " ".repeat(indent);
    let dim = lines.theme.dim();
    lines.line(Line::from(vec![Span::styled(format!("{pad}{label}: "), dim), Span::raw(value.into())]));
}

fn variables(lines: &mut Lines, indent: usize, vars: Option<&Variables>) {
    match vars.filter(|v| !v.is_empty()) {
        None => fact(lines, indent, "variables", "—"),
        Some(vars) => {
            fact(lines, indent, "variables", "");
            for (name, value) in vars {
                lines.line(Line::raw(format!("{}{{{{{name}}}}} = {value}", " ".repeat(indent + 2))));
            }
        }
    }
}

/// Whether a metric judges the run, and the bar it must clear: a check passes a run when at
/// least `minPassRate` of the simulations pass it; an observation is only measured.
fn judged(metric: &MetricReference, is_check: Option<bool>) -> String {
    let (rate, inherited) = metric.min_pass_rate_or_default();
    let bar = format!("≥ {}{}", percent(rate), if inherited { " (default)" } else { "" });
    match is_check {
        Some(true) => format!("check · passes at {bar} of simulations"),
        Some(false) if metric.min_pass_rate.is_some() => {
            format!("observation, not a check (its minPassRate {bar} has no effect; put a threshold on it)")
        }
        Some(false) => "observation, not a check".into(),
        None => format!("{bar} of simulations, if it is a check"),
    }
}

/// The metrics every run adds to the plan's own (its flows' and the automatic ones), each a
/// check at the default bar when it is one: the run's verdict judges all of them.
fn also_judged(l: &mut Lines, plan: &RunPlanInput, names: &Names) {
    match names.also_judged(plan) {
        None => {
            l.section("also judged each run");
            l.text("… (reading the flows and metrics)");
        }
        Some(extra) if extra.is_empty() => {}
        Some(extra) => {
            l.section(&format!("also judged each run ({})", extra.len()));
            for (definition, why) in extra {
                let key = definition.slug.clone().unwrap_or_else(|| definition.id.to_string());
                let name = definition.name.clone().unwrap_or_else(|| key.clone());
                item(l, 2, &format!("{name} ({why})"), &key);
                let judged = if definition.is_check() {
                    format!(
                        "check · passes at ≥ {} (default) of simulations",
                        percent(crate::api::model::DEFAULT_MIN_PASS_RATE)
                    )
                } else {
                    "observation, not a check".into()
                };
                fact(l, 4, "judged", judged);
            }
        }
    }
}

/// The plan's identity, latest job, endpoints and flows; then its metrics and options (two
/// columns on wide screens, one after the other on narrow ones).
pub fn lines(
    plan: &RunPlan,
    latest: Option<&RunPlanJob>,
    // How many jobs the plan has; None when the service does not list jobs.
    runs: Option<usize>,
    names: &Names,
    theme: &Theme,
) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let p = &plan.plan;
    let mut l = Lines::new(theme);
    identity(&mut l, plan);
    latest_job(&mut l, latest, runs);
    endpoints(&mut l, p, names);
    flows(&mut l, p, names);
    let left = std::mem::take(&mut l.lines);
    metrics(&mut l, p, names);
    also_judged(&mut l, p, names);
    options(&mut l, p);
    deprecated(&mut l, p, names);
    if !p.unknown_fields.is_empty() {
        l.section("other members (not known to this build)");
        l.json_fields(&serde_json::Value::Object(p.unknown_fields.clone()), &[]);
    }
    (left, l.lines)
}

/// Its id, direction, times, schedule and description.
fn identity(l: &mut Lines, plan: &RunPlan) {
    let p = &plan.plan;
    l.kv("id", plan.id.to_string())
        .kv("direction", or_dash(p.direction.as_ref().map(|d| d.as_str())))
        .kv("created", when(plan.created_at.as_ref()))
        .kv("updated", when(plan.updated_at.as_ref()))
        .kv("schedule", p.schedule.as_ref().map_or_else(|| "— (runs when started)".to_owned(), |s| s.summary()))
        .kv("next run", when(plan.next_run_at.as_ref()));
    if let Some(description) = &p.description {
        l.section("description").text(description);
    }
}

/// The newest job and its verdict, or why there is none.
fn latest_job(l: &mut Lines, latest: Option<&RunPlanJob>, runs: Option<usize>) {
    l.section("latest job");
    match latest {
        Some(job) => {
            let verdict = match &job.verdict {
                Some(_) => format!("{} · score {}", job.verdict_word(), verdict::score(job)),
                None => "— (nothing to judge)".into(),
            };
            let hint = Line::styled("  enter opens it in the jobs tab", l.theme.dim());
            l.status("status", job.status.as_ref().map(|s| s.as_str()))
                .status("verdict", Some(&verdict))
                .kv("job", job.simulation_run_plan_job_id.to_string())
                .kv("created", when(job.created_at.as_ref()))
                .kv("simulations", job.simulation_job_count.map(|n| n.to_string()).unwrap_or_else(|| "—".into()))
                .kv("runs of this plan", runs.map(|n| n.to_string()).unwrap_or_else(|| "—".into()))
                .line(hint);
        }
        None if runs.is_some() => {
            l.text("not run yet");
        }
        None => {
            l.text("unknown: this service does not list run plan jobs");
        }
    }
}

fn endpoints(l: &mut Lines, p: &RunPlanInput, names: &Names) {
    let endpoints = p.agent_endpoints.as_deref().unwrap_or_default();
    l.section(&format!("agent endpoints ({})", endpoints.len()));
    for endpoint in endpoints {
        item(l, 2, names.get(endpoint.id).unwrap_or("endpoint"), &endpoint.id.to_string());
    }
}

/// Each flow with its happy path, edge cases, persona override and variables.
fn flows(l: &mut Lines, p: &RunPlanInput, names: &Names) {
    let flows = p.flows.as_deref().unwrap_or_default();
    l.section(&format!("flows ({})", flows.len()));
    for flow in flows {
        let key = flow.id.map(|id| id.to_string()).or(flow.slug.clone()).unwrap_or_default();
        item(l, 2, names.get(&key).unwrap_or("flow"), &key);
        fact(l, 4, "happy path", yes(flow.happy_path == Some(true)));
        edge_cases(l, flow.edge_cases.as_ref(), &key, names);
        let persona = flow.persona_override_id.map(|id| names.or_key(id));
        fact(l, 4, "persona override", persona.unwrap_or_else(|| "— (each variant's own persona)".into()));
        variables(l, 4, flow.variables.as_ref());
    }
}

/// A flow's edge cases: none, all of them (named when known), or those selected.
fn edge_cases(l: &mut Lines, edge_cases: Option<&EdgeCases>, flow: &str, names: &Names) {
    match edge_cases {
        None => {
            fact(l, 4, "edge cases", "none");
        }
        Some(EdgeCases::All) => {
            let known = names.edge_cases(flow).map(|titles| format!(" ({}): {}", titles.len(), titles.join(", ")));
            fact(l, 4, "edge cases", format!("ALL{}", known.unwrap_or_default()));
        }
        Some(EdgeCases::List(list)) => {
            fact(l, 4, "edge cases", format!("{} selected", list.len()));
            for edge in list {
                let id = edge.id.map(|id| id.to_string()).unwrap_or_default();
                item(l, 6, names.get(&id).unwrap_or("edge case"), &id);
                if let Some(persona) = edge.persona_override_id {
                    fact(l, 8, "persona override", names.or_key(persona));
                }
                variables(l, 8, edge.variables.as_ref());
            }
        }
    }
}

/// The plan's own metrics, each with its conversation source and how it judges a run.
fn metrics(l: &mut Lines, p: &RunPlanInput, names: &Names) {
    let metrics = p.metrics.as_deref().unwrap_or_default();
    l.section(&format!("metrics ({})", metrics.len()));
    for metric in metrics {
        // The slug reads better than the id; a saved plan carries both.
        let key = metric.slug_or_alias().map(str::to_string).or(metric.id.map(|id| id.to_string())).unwrap_or_default();
        item(l, 2, names.get(&key).unwrap_or("metric"), &key);
        let source = set_or(metric.conversation_source.as_ref().map(|s| s.as_str()), "SIMULATED");
        fact(l, 4, "conversation source", source);
        fact(l, 4, "judged", judged(metric, names.is_check(&key)));
        if metric.metric_id.is_some() {
            fact(l, 4, "metricId", "deprecated alias of slug");
        }
    }
}

/// Every option, the service's defaults marked.
fn options(l: &mut Lines, p: &RunPlanInput) {
    l.section("options")
        .kv("iterations", set_or(p.iteration_count, run_plan_limits::ITERATION_COUNT_DEFAULT))
        .kv("max concurrent jobs", set_or(p.max_concurrent_jobs, run_plan_limits::MAX_CONCURRENT_JOBS_DEFAULT))
        .kv("max call duration", or_dash(p.max_simulation_duration_seconds.map(seconds).as_deref()))
        .kv(
            "silence timeout",
            set_or(p.silence_timeout_seconds.map(seconds), seconds(run_plan_limits::SILENCE_TIMEOUT_SECONDS_DEFAULT)),
        )
        .kv(
            "end call phrases",
            set_or(p.end_call_phrases.as_deref().map(texts), texts(&p.end_call_phrases_or_default())),
        )
        .kv("end call reasons", set_or(p.end_call_reasons.as_deref().map(texts), texts(&[])))
        .kv("execution mode", set_or(p.execution_mode.as_ref().map(|m| m.as_str()), "PARALLEL"))
        .kv("flow metrics", set_or(p.include_flow_metrics.map(yes), "yes"))
        .kv("automatic metrics", set_or(p.include_automatic_metrics.map(yes), "yes"))
        .kv("live enrichment", set_or(p.enrich_with_live_conversation.map(yes), "no"));
    if p.enrich_with_live_conversation == Some(true) {
        let wait = duration_ms(run_plan_limits::LIVE_ENRICHMENT_WAIT_SECONDS * 1000);
        l.line(Line::styled(format!("  each call is held open up to {wait} for the real recording"), l.theme.dim()));
    }
}

/// The deprecated members a plan uses (a saved plan lists both deprecated lists, empty when
/// unused: only a used one is shown).
fn deprecated(l: &mut Lines, p: &RunPlanInput, names: &Names) {
    let scenarios = p.scenarios.as_deref().filter(|s| !s.is_empty());
    let personas = p.personas.as_deref().filter(|s| !s.is_empty());
    if scenarios.is_none() && personas.is_none() && p.auto_run.is_none() {
        return;
    }
    l.section("deprecated members");
    let (style, dim) = (l.theme.status("DEPRECATED"), l.theme.dim());
    for scenario in scenarios.unwrap_or_default() {
        let id = scenario.id.map(|id| id.to_string()).unwrap_or_default();
        l.line(Line::from(vec![Span::styled("  scenario (deprecated)  ", style), Span::styled(id, dim)]));
        variables(l, 4, scenario.variables.as_ref());
    }
    if let Some(personas) = personas {
        let names: Vec<String> = personas.iter().map(|r| names.or_key(r.id)).collect();
        l.line(Line::from(vec![Span::styled("  personas (deprecated)  ", style), Span::raw(names.join(", "))]));
    }
    if let Some(auto_run) = p.auto_run {
        l.line(Line::from(vec![Span::styled("  autoRun (deprecated)   ", style), Span::raw(yes(auto_run))]));
    }
}
