//! Everything a run plan pins, as detail lines: endpoints, flows with their variants, persona
//! overrides and values, metrics with their conversation source, every option (defaults marked),
//! deprecated members marked deprecated, and members this build does not know.

use ratatui::text::{Line, Span};

use crate::api::model::{EdgeCases, MetricReference, RunPlan, RunPlanJob, Variables, percent, run_plan_limits};
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
fn also_judged(l: &mut Lines, plan: &crate::api::model::RunPlanInput, names: &Names) {
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
    l.kv("id", plan.id.to_string())
        .kv("direction", or_dash(p.direction.as_ref().map(|d| d.as_str())))
        .kv("created", when(plan.created_at.as_ref()))
        .kv("updated", when(plan.updated_at.as_ref()))
        .kv("schedule", p.schedule.as_ref().map_or_else(|| "— (runs when started)".to_owned(), |s| s.summary()))
        .kv("next run", when(plan.next_run_at.as_ref()));
    if let Some(description) = &p.description {
        l.section("description").text(description);
    }

    l.section("latest job");
    match latest {
        Some(job) => {
            let verdict = match &job.verdict {
                Some(_) => format!("{} · score {}", job.verdict_word(), verdict::score(job)),
                None => "— (nothing to judge)".into(),
            };
            l.status("status", job.status.as_ref().map(|s| s.as_str()))
                .status("verdict", Some(&verdict))
                .kv("job", job.simulation_run_plan_job_id.to_string())
                .kv("created", when(job.created_at.as_ref()))
                .kv("simulations", job.simulation_job_count.map(|n| n.to_string()).unwrap_or_else(|| "—".into()))
                .kv("runs of this plan", runs.map(|n| n.to_string()).unwrap_or_else(|| "—".into()))
                .line(Line::styled("  enter opens it in the jobs tab", theme.dim()));
        }
        None if runs.is_some() => {
            l.text("not run yet");
        }
        None => {
            l.text("unknown: this service does not list run plan jobs");
        }
    }

    let endpoints = p.agent_endpoints.as_deref().unwrap_or_default();
    l.section(&format!("agent endpoints ({})", endpoints.len()));
    for endpoint in endpoints {
        item(&mut l, 2, names.get(endpoint.id).unwrap_or("endpoint"), &endpoint.id.to_string());
    }

    let flows = p.flows.as_deref().unwrap_or_default();
    l.section(&format!("flows ({})", flows.len()));
    for flow in flows {
        let key = flow.id.map(|id| id.to_string()).or(flow.slug.clone()).unwrap_or_default();
        item(&mut l, 2, names.get(&key).unwrap_or("flow"), &key);
        fact(&mut l, 4, "happy path", yes(flow.happy_path == Some(true)));
        match &flow.edge_cases {
            None => {
                fact(&mut l, 4, "edge cases", "none");
            }
            Some(EdgeCases::All) => {
                let known = names.edge_cases(&key).map(|titles| format!(" ({}): {}", titles.len(), titles.join(", ")));
                fact(&mut l, 4, "edge cases", format!("ALL{}", known.unwrap_or_default()));
            }
            Some(EdgeCases::List(list)) => {
                fact(&mut l, 4, "edge cases", format!("{} selected", list.len()));
                for edge in list {
                    let id = edge.id.map(|id| id.to_string()).unwrap_or_default();
                    item(&mut l, 6, names.get(&id).unwrap_or("edge case"), &id);
                    if let Some(persona) = edge.persona_override_id {
                        fact(&mut l, 8, "persona override", names.or_key(persona));
                    }
                    variables(&mut l, 8, edge.variables.as_ref());
                }
            }
        }
        let persona = flow.persona_override_id.map(|id| names.or_key(id));
        fact(&mut l, 4, "persona override", persona.unwrap_or_else(|| "— (each variant's own persona)".into()));
        variables(&mut l, 4, flow.variables.as_ref());
    }

    let left = std::mem::take(&mut l.lines);
    let metrics = p.metrics.as_deref().unwrap_or_default();
    l.section(&format!("metrics ({})", metrics.len()));
    for metric in metrics {
        // The slug reads better than the id; a saved plan carries both.
        let key = metric.slug_or_alias().map(str::to_string).or(metric.id.map(|id| id.to_string())).unwrap_or_default();
        item(&mut l, 2, names.get(&key).unwrap_or("metric"), &key);
        let source = set_or(metric.conversation_source.as_ref().map(|s| s.as_str()), "SIMULATED");
        fact(&mut l, 4, "conversation source", source);
        fact(&mut l, 4, "judged", judged(metric, names.is_check(&key)));
        if metric.metric_id.is_some() {
            fact(&mut l, 4, "metricId", "deprecated alias of slug");
        }
    }
    also_judged(&mut l, p, names);

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
        l.line(Line::styled(format!("  each call is held open up to {wait} for the real recording"), theme.dim()));
    }

    // A saved plan lists both deprecated lists, empty when unused: only a used one is shown.
    let scenarios = p.scenarios.as_deref().filter(|s| !s.is_empty());
    let personas = p.personas.as_deref().filter(|s| !s.is_empty());
    if scenarios.is_some() || personas.is_some() || p.auto_run.is_some() {
        l.section("deprecated members");
        let style = theme.status("DEPRECATED");
        for scenario in scenarios.unwrap_or_default() {
            let id = scenario.id.map(|id| id.to_string()).unwrap_or_default();
            l.line(Line::from(vec![Span::styled("  scenario (deprecated)  ", style), Span::styled(id, theme.dim())]));
            variables(&mut l, 4, scenario.variables.as_ref());
        }
        if let Some(personas) = personas {
            let names: Vec<String> = personas.iter().map(|r| names.or_key(r.id)).collect();
            l.line(Line::from(vec![Span::styled("  personas (deprecated)  ", style), Span::raw(names.join(", "))]));
        }
        if let Some(auto_run) = p.auto_run {
            l.line(Line::from(vec![Span::styled("  autoRun (deprecated)   ", style), Span::raw(yes(auto_run))]));
        }
    }

    if !p.unknown_fields.is_empty() {
        l.section("other members (not known to this build)");
        l.json_fields(&serde_json::Value::Object(p.unknown_fields.clone()), &[]);
    }
    (left, l.lines)
}
