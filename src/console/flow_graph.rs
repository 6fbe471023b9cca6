//! A customer flow's detail as lines for the Flows pane: header facts, expectations, the
//! flow's script, then the happy path and each edge case, steps drawn as a box-drawing tree.
//! Pure and terminal-free so it can be tested as text; the pane does the wrapping.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use uuid::Uuid;

// one_line: a line break inside a span would break the tree's columns.
use crate::api::model::{
    CustomerFlow, Expectation, FlowStep, FlowVariant, OffScriptPolicy, Persona, StepType, one_line,
};

/// Styles the graph uses; the console's theme fills this in (NO_COLOR gives all-default styles).
#[derive(Debug, Clone, Default)]
pub struct GraphStyles {
    pub heading: Style,
    pub customer: Style,
    pub agent: Style,
    pub link: Style,
    pub badge: Style,
    pub dim: Style,
}

/// Merge links quote their target briefly; the full text is on the target's own line.
const LINK_TEXT_CHARS: usize = 48;

/// The whole detail of a flow as lines: header facts (name, type, source, adherence/branching,
/// any other top-level facts), expectations, then the happy path and every edge case (each with
/// its persona override shown by name/id and its fields, variables, description), each
/// variant's steps drawn as a tree.
pub fn flow_lines(flow: &CustomerFlow, s: &GraphStyles) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled(flow.title.clone().unwrap_or_else(|| flow.id.to_string()), s.heading))];
    fact(&mut out, s, "id", Some(flow.id.to_string()));
    fact(&mut out, s, "kind", pairs(&[("type", txt(&flow.flow_type)), ("source", txt(&flow.source))]));
    let script = [("adherence", txt(&flow.script_adherence)), ("branching", txt(&flow.branching_mode))];
    fact(&mut out, s, "script", pairs(&script));
    fact(&mut out, s, "slug", flow.slug.clone());
    if let Some(policy) = &flow.off_script_policy {
        out.push(Line::from(vec![Span::styled("off-script policy: ", s.dim), Span::styled(badge(policy), s.badge)]));
    }
    let agents = flow.agents.iter().map(|a| {
        let name = a.name.clone().unwrap_or_else(|| a.id.to_string());
        a.custom_id.as_ref().map_or(name.clone(), |c| format!("{name} ({c})"))
    });
    fact(&mut out, s, "agents", list(agents.collect(), ", "));
    let metrics = flow.metrics.iter().flatten().map(|m| m.id.to_string()).collect();
    fact(&mut out, s, "metrics", list(metrics, ", "));
    fact(&mut out, s, "time", pairs(&[("created", txt(&flow.created_at)), ("updated", txt(&flow.updated_at))]));
    fact(&mut out, s, "description", flow.description.as_deref().map(one_line));

    section(&mut out, s, "Agent expectations");
    expectations(&mut out, s, "", &flow.agent_expectations);
    section(&mut out, s, "Script");
    if flow.graph.is_empty() {
        out.push(Line::from(Span::styled("(no steps)", s.dim)));
    }
    tree(&mut out, s, &flow.graph, "", &[&flow.graph]);

    match &flow.happy_path {
        Some(v) => variant(&mut out, s, flow, v, "Happy path".into()),
        None => section(&mut out, s, "Happy path: none"),
    }
    let total = flow.edge_cases.len();
    for (i, v) in flow.edge_cases.iter().enumerate() {
        variant(&mut out, s, flow, v, format!("Edge case {}/{total}", i + 1));
    }
    out
}

fn variant(out: &mut Vec<Line<'static>>, s: &GraphStyles, flow: &CustomerFlow, v: &FlowVariant, heading: String) {
    let title = v.title.clone().unwrap_or_else(|| "(untitled)".into());
    out.push(Line::default());
    out.push(Line::from(Span::styled(format!("{heading}: {title}"), s.heading)));
    let generated = v.is_generated.map(|g| if g { "yes" } else { "no" }.to_owned());
    let facts = [("id", Some(v.id.to_string())), ("type", txt(&v.variant_type)), ("generated", generated)];
    fact(out, s, "  variant", pairs(&facts));
    fact(out, s, "  system key", v.system_key.clone());
    let preceded =
        [("flow", txt(&v.preceded_by_customer_flow_id)), ("variant", txt(&v.preceded_by_customer_flow_variant_id))];
    fact(out, s, "  preceded by", pairs(&preceded));
    match &v.persona_override {
        Some(p) => persona(out, s, p),
        None => fact(out, s, "  persona", Some("no override".into())),
    }
    if let Some(env) = &v.environment {
        let noise = [
            ("name", env.name.clone()),
            ("noise", txt(&env.background_noise)),
            ("volume", txt(&env.background_noise_volume)),
        ];
        fact(out, s, "  environment", pairs(&noise));
        fact(out, s, "    description", env.description.as_deref().map(one_line));
    } else {
        // Said even when absent, so every edge case reads the same: persona, environment, expectations.
        fact(out, s, "  environment", Some("none (no background noise of its own)".into()));
    }
    if !v.additional_expectations.is_empty() {
        out.push(Line::from(Span::styled("  expectations:", s.dim)));
        expectations(out, s, "    ", &v.additional_expectations);
    }
    out.push(Line::from(Span::styled("  steps:", s.dim)));
    if v.steps.is_empty() {
        // A scripted happy path carries no steps of its own: it is the flow's script.
        let note = if flow.graph.is_empty() { "(no steps)" } else { "(none of its own; follows the script)" };
        out.push(Line::from(Span::styled(format!("  {note}"), s.dim)));
    }
    // Edge-case steps may merge back into the flow's script, so look there too.
    tree(out, s, &v.steps, "  ", &[&v.steps, &flow.graph]);
}

fn persona(out: &mut Vec<Line<'static>>, s: &GraphStyles, p: &Persona) {
    let f = &p.fields;
    let who = [("name", f.name.clone()), ("id", Some(p.id.to_string())), ("system", txt(&p.is_system))];
    fact(out, s, "  persona", Some(format!("{} ({})", p.label(), pairs(&who).unwrap_or_default())));
    let languages = f.understood_languages.as_ref().and_then(|l| list(l.iter().map(|x| x.to_string()).collect(), ","));
    let traits = [
        ("language", txt(&f.language)),
        ("secondary", txt(&f.secondary_language)),
        ("understands", languages),
        ("accent", txt(&f.accent)),
        ("age", txt(&f.age)),
        ("gender", txt(&f.gender)),
        ("noise", txt(&f.background_noise)),
        ("pace", txt(&f.speech_pace)),
        ("clarity", txt(&f.speech_clarity)),
        ("emotion", txt(&f.base_emotion)),
        ("intent", txt(&f.intent_clarity)),
        ("confirms", txt(&f.confirmation_style)),
        ("memory", txt(&f.memory_reliability)),
        ("timing", txt(&f.response_timing)),
        ("interrupts", txt(&f.interruption)),
        ("disfluencies", txt(&f.has_disfluencies)),
    ];
    fact(out, s, "    traits", pairs(&traits));
    fact(out, s, "    description", f.description.as_deref().map(one_line));
    let vars = f.properties.iter().flatten().map(|(k, v)| match v {
        serde_json::Value::String(text) => format!("{k}={}", one_line(text)),
        other => format!("{k}={other}"),
    });
    fact(out, s, "    variables", list(vars.collect(), " · "));
    let idle_lines = f.idle_messages.iter().flatten().map(|m| format!("\"{}\"", one_line(m)));
    let idle = [
        ("after", f.idle_timeout_seconds.map(|n| format!("{n}s"))),
        ("max spoken", txt(&f.idle_message_max_spoken_count)),
        ("reset on speech", txt(&f.idle_message_reset_count_on_user_speech_enabled)),
        ("says", list(idle_lines.collect(), " | ")),
    ];
    fact(out, s, "    idle", pairs(&idle));
    fact(out, s, "    backstory", f.backstory_prompt.as_deref().map(one_line));
}

/// Draws `steps` under `prefix`; `scopes` are where merge targets are looked up, in order.
fn tree(out: &mut Vec<Line<'static>>, s: &GraphStyles, steps: &[FlowStep], prefix: &str, scopes: &[&[FlowStep]]) {
    for (i, step) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        let (branch, carry) = if last { ("└─ ", "   ") } else { ("├─ ", "│  ") };
        let inner = format!("{prefix}{carry}");
        let mut spans = vec![Span::styled(format!("{prefix}{branch}"), s.dim)];
        spans.extend(step_spans(step, s));
        out.push(Line::from(spans));
        for target in &step.merge_into_node_ids {
            let link = format!("↪ merges into {}", link_label(target, scopes));
            out.push(Line::from(vec![Span::styled(inner.clone(), s.dim), Span::styled(link, s.link)]));
        }
        tree(out, s, &step.steps, &inner, scopes);
    }
}

/// One step on one line: who speaks told apart by a text marker, not only colour; any other
/// type (including ones this build does not know) as a `[TYPE]` badge.
fn step_spans(step: &FlowStep, s: &GraphStyles) -> Vec<Span<'static>> {
    let text = step.content.as_deref().map(one_line).unwrap_or_else(|| "(no text)".into());
    let mut spans = match &step.step_type {
        Some(kind) if kind.is_customer_line() => {
            vec![Span::styled("customer ▸ ", s.customer), Span::styled(text, s.customer)]
        }
        Some(StepType::CustomerDtmf) => {
            let keys = step.dtmf_digits.as_deref().map(|d| format!("[keys {d}] ")).unwrap_or_default();
            vec![Span::styled("customer ▸ ", s.customer), Span::styled(format!("{keys}{text}"), s.customer)]
        }
        Some(StepType::AgentTurn) => vec![Span::styled("agent ◂ ", s.agent), Span::styled(text, s.agent)],
        other => {
            let kind = other.as_ref().map_or("untyped", |t| t.as_str());
            vec![Span::styled(format!("[{kind}] "), s.badge), Span::raw(text)]
        }
    };
    if let Some(r) = &step.step_ref {
        spans.push(Span::styled(format!("  #{r}"), s.dim));
    }
    if let Some(policy) = &step.off_script_policy {
        spans.push(Span::styled(format!("  {}", badge(policy)), s.badge));
    }
    spans
}

/// `[off-script: SAY then MOVE_ON · max 2 · wait 4s · says "…"]`
fn badge(p: &OffScriptPolicy) -> String {
    let mut head: Vec<String> = p.reaction.iter().map(|r| r.to_string()).collect();
    head.extend(p.then.iter().map(|t| format!("then {t}")));
    let mut parts = vec![head.join(" ")];
    parts.extend(p.max_attempts.map(|n| format!("max {n}")));
    parts.extend(p.wait_seconds.map(|n| format!("wait {n}s")));
    parts.extend(p.say_line.as_deref().map(|l| format!("says \"{}\"", one_line(l))));
    let body = parts.into_iter().filter(|p| !p.is_empty()).collect::<Vec<_>>().join(" · ");
    if body.is_empty() { "[off-script]".into() } else { format!("[off-script: {body}]") }
}

/// The target step's text, shortened, and its `#ref` (as on the target's own line); else the
/// raw id as sent, so a dangling link stays visible.
fn link_label(target: &str, scopes: &[&[FlowStep]]) -> String {
    let id = target.trim().parse::<Uuid>().ok();
    let found = id.and_then(|id| scopes.iter().find_map(|steps| find(steps, id)));
    let label = found.and_then(|st| {
        let r = st.step_ref.as_ref().map(|r| format!("#{r}"));
        list(st.content.as_deref().map(short).into_iter().chain(r).collect(), "  ")
    });
    label.unwrap_or_else(|| target.to_owned())
}

fn find(steps: &[FlowStep], id: Uuid) -> Option<&FlowStep> {
    steps.iter().find_map(|st| if st.node_id == Some(id) { Some(st) } else { find(&st.steps, id) })
}

fn expectations(out: &mut Vec<Line<'static>>, s: &GraphStyles, indent: &str, items: &[Expectation]) {
    if items.is_empty() {
        out.push(Line::from(Span::styled(format!("{indent}(none)"), s.dim)));
    }
    for e in items {
        let text = e.prompt.as_deref().map(one_line).or_else(|| txt(&e.id)).unwrap_or_else(|| "(empty)".into());
        out.push(Line::from(format!("{indent}• {text}")));
    }
}

fn section(out: &mut Vec<Line<'static>>, s: &GraphStyles, title: &str) {
    out.push(Line::default());
    out.push(Line::from(Span::styled(title.to_owned(), s.heading)));
}

/// `label: value`, or nothing when the value is absent: missing facts are left out, not blank.
fn fact(out: &mut Vec<Line<'static>>, s: &GraphStyles, label: &str, value: Option<String>) {
    if let Some(value) = value {
        out.push(Line::from(vec![Span::styled(format!("{label}: "), s.dim), Span::raw(value)]));
    }
}

/// `key value · key value` over the present values; `None` when none is.
fn pairs(items: &[(&str, Option<String>)]) -> Option<String> {
    list(items.iter().filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} {v}"))).collect(), " · ")
}

fn list(items: Vec<String>, sep: &str) -> Option<String> {
    (!items.is_empty()).then(|| items.join(sep))
}

fn txt<T: ToString>(value: &Option<T>) -> Option<String> {
    value.as_ref().map(T::to_string)
}

fn short(text: &str) -> String {
    let text = one_line(text);
    if text.chars().count() <= LINK_TEXT_CHARS {
        return text;
    }
    text.chars().take(LINK_TEXT_CHARS - 1).chain(['…']).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SEED: &str = include_str!("../../assets/seed/customer_flows.json");

    fn plain(flow: &CustomerFlow) -> String {
        let lines = flow_lines(flow, &GraphStyles::default());
        let text = lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>());
        text.collect::<Vec<_>>().join("\n")
    }

    /// The seeded "Reschedule a cleaning" flow: branches, merges, badges, keypad, edge cases.
    fn seeded() -> String {
        let flows: Vec<CustomerFlow> = serde_json::from_str(SEED).unwrap();
        plain(&flows[0])
    }

    fn has(text: &str, needle: &str) {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }

    fn render(json: serde_json::Value) -> String {
        plain(&serde_json::from_value(json).unwrap())
    }

    #[test]
    fn nesting_draws_tree_prefixes_and_speaker_markers() {
        let text = seeded();
        for expected in [
            "├─ agent ◂ Agent greets the caller as Brightsmile Dental",
            "├─ agent ◂ Agent confirms the existing cleaning on {{currentAppointment}}",
            "│  ├─ customer ▸ Do you have anything next Tuesday morning?  #prefer-morning",
            "│  │  └─ agent ◂ Agent offers Tuesday at 9:30 AM with the hygienist.",
            "│  └─ customer ▸ Actually, I can only come after work.",
            "│     └─ agent ◂ Agent explains the latest slot",
            "├─ customer ▸ [keys 1] Press 1 to confirm",
            "└─ customer ▸ Great, thank you so much. Goodbye.  #goodbye",
        ] {
            has(&text, expected);
        }
    }

    #[test]
    fn merge_links_resolve_to_the_target_text_or_show_the_raw_id() {
        let text = seeded();
        has(&text, "│  │        ↪ merges into Agent reads back the new date, time and provide…  #read-back");
        let node = "93ccc6d6-e490-5962-9c29-e3621d049f2a";
        let text = render(json!({
            "id": Uuid::nil(),
            "graph": [{"type": "AGENT_TURN", "nodeId": node, "content": "Read back"}],
            "edgeCases": [{"id": Uuid::nil(), "steps": [
                {"type": "CUSTOMER_TURN", "content": "Hm", "mergeIntoNodeIds": [node.to_uppercase(), "nowhere"]}
            ]}]
        }));
        has(&text, "  └─ customer ▸ Hm\n     ↪ merges into Read back\n     ↪ merges into nowhere");
    }

    #[test]
    fn off_script_policies_show_as_badges() {
        let text = seeded();
        has(&text, "off-script policy: [off-script: SAY then MOVE_ON · max 2 · wait 4s · says");
        has(&text, "Sure, it's {{dateOfBirth}}.  #give-dob  [off-script: REPEAT then HANG_UP · max 2");
    }

    #[test]
    fn every_edge_case_says_its_environment_beside_its_persona() {
        let text = render(json!({
            "id": Uuid::nil(),
            "type": "IMPROV",
            "edgeCases": [
                {"id": Uuid::nil(), "title": "Noisy", "environment": {"name": "Airport café", "backgroundNoise": "CAFE"},
                 "additionalExpectations": [{"prompt": "The agent repeats the gate number."}]},
                {"id": Uuid::nil(), "title": "Quiet"}
            ]
        }));
        let noisy = &text[text.find("Noisy").expect(&text)..text.find("Quiet").expect(&text)];
        has(
            noisy,
            "  persona: no override
  environment: name Airport café · noise CAFE",
        );
        has(noisy, "  expectations:");
        has(&text[text.find("Quiet").expect(&text)..], "  environment: none (no background noise of its own)");
    }

    #[test]
    fn edge_cases_show_their_persona_override() {
        let text = seeded();
        let case = text.find("Edge case 1/2: Caller is unsure which date of birth").expect(&text);
        let rest = &text[case..];
        has(rest, "  persona: Harold Jennings (name harold-jennings · id ");
        has(rest, "dateOfBirth=1949-11-30 · ");
        has(rest, "  └─ customer ▸ Let me think... it's {{dateOfBirth}}, I believe.");
        has(&text, "Edge case 2/2: Caller presses 2 to choose another time");
    }

    #[test]
    fn unknown_enum_values_render_as_their_text() {
        let text = render(json!({"id": Uuid::nil(), "type": "OUTBOUND", "graph": [
            {"type": "HOLD_MUSIC", "content": "Please hold", "offScriptPolicy": {"reaction": "SING"}},
            {"content": "No type"}
        ]}));
        has(&text, "type OUTBOUND");
        has(&text, "├─ [HOLD_MUSIC] Please hold  [off-script: SING]");
        has(&text, "└─ [untyped] No type");
    }

    #[test]
    fn an_empty_flow_renders_without_panic() {
        let text = render(json!({"id": Uuid::nil(), "offScriptPolicy": {}, "happyPath": {"id": Uuid::nil()}}));
        assert!(text.starts_with("00000000-0000-0000-0000-000000000000\n"), "{text}");
        has(&text, "[off-script]");
        has(&text, "Happy path: (untitled)");
        has(&render(json!({"id": Uuid::nil(), "graph": [{}]})), "└─ [untyped] (no text)");
        has(&render(json!({"id": Uuid::nil()})), "Happy path: none");
    }

    #[test]
    fn seeded_flow_snapshot() {
        insta::assert_snapshot!(seeded());
    }
}
