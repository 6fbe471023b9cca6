//! `c` in the plans tab: a new run plan as a form, saved on the seeded service and then run.

use futures_util::TryStreamExt;
use switchboard::api::ListQuery;
use switchboard::api::model::{CustomerFlow, EdgeCases, MetricDefinition, RunPlan, RunPlanInput};
use switchboard::api::routes;
use switchboard::console::message::{Effect, Write};
use switchboard::console::tab::Tab;

use crate::assert_screen;
use crate::harness::Harness;

async fn all<T: serde::de::DeserializeOwned + Send + 'static>(h: &Harness, route: &str) -> Vec<T> {
    h.client.list_all::<T>(route, ListQuery::default().limit(50)).try_collect().await.unwrap()
}

fn sent_plans(h: &Harness) -> Vec<RunPlanInput> {
    let sent = h.performed.iter().filter_map(|e| match e {
        Effect::Write(Write::CreatePlan(input)) => Some((**input).clone()),
        _ => None,
    });
    sent.collect()
}

/// The flows as the flows tab lists them (by title), which is how the form offers them.
async fn flows_in_tab_order(h: &Harness) -> Vec<CustomerFlow> {
    let mut flows: Vec<CustomerFlow> = all(h, routes::FLOWS).await;
    flows.sort_by_key(|f| f.title.clone().unwrap_or_default().to_lowercase());
    flows
}

/// The first seeded flow with edge cases, and where it is in the list the form offers.
fn flow_with_edge_cases(flows: &[CustomerFlow]) -> (usize, &CustomerFlow) {
    flows.iter().enumerate().find(|(_, f)| f.edge_cases.len() > 1).expect("a seeded flow with edge cases")
}

/// Moves a pick's cursor `by` options on and picks that one.
async fn pick(h: &mut Harness, by: usize) {
    for _ in 0..by {
        h.key("right").await;
    }
    h.key("space").await;
}

/// Opens the form and fills it: a flow with one picked edge case, a persona override and
/// variables; two metrics; two iterations (the required max duration is left to the test).
async fn fill(h: &mut Harness, flow_at: usize) {
    h.keys(&["1", "E"]).await;
    h.type_text("QA regression").await;
    h.keys(&["tab", "tab", "tab", "space", "tab"]).await;
    pick(h, flow_at).await;
    // The first flow's own fields: happy path (yes), edge cases → picked, the first one.
    h.keys(&["tab", "tab", "right", "right", "tab", "space"]).await;
    // The picked edge case's own persona and values, then the flow's.
    h.keys(&["tab", "right", "right", "tab"]).await;
    h.type_text("seat=aisle").await;
    h.keys(&["tab", "right", "tab"]).await;
    h.type_text("date=tomorrow").await;
    h.keys(&["tab", "space", "right", "space", "tab", "tab", "tab"]).await;
    h.type_text("2").await;
}

#[tokio::test]
async fn a_new_plan_is_saved_with_every_choice_then_runs() {
    let mut h = Harness::seeded().await;
    let flows = flows_in_tab_order(&h).await;
    let (flow_at, expected) = flow_with_edge_cases(&flows);
    fill(&mut h, flow_at).await;
    let screen = h.render(160, 48);
    assert!(screen.contains("new run plan"), "{screen}");
    for _ in 0..2 {
        h.key("tab").await;
    }
    assert!(h.render(160, 48).contains("max duration  default 600 s"), "{}", h.render(160, 48));
    // An error in the form's words, with the interface's name after them; nothing is sent.
    h.type_text("0").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("✗ Max duration (maxSimulationDurationSeconds) must be between 1 and 7200"), "{screen}");
    h.key("enter").await;
    assert!(sent_plans(&h).is_empty(), "an invalid duration: nothing is sent");
    h.key("ctrl-u").await;
    h.type_text("120").await;
    assert_screen!("plan_form_filled_160x48", h.render(160, 48));
    h.keys(&["enter", "enter"]).await;

    let sent = sent_plans(&h);
    assert_eq!(sent.len(), 1, "sent once on a double enter");
    let input = &sent[0];
    let metrics: Vec<MetricDefinition> = all(&h, routes::METRIC_DEFINITIONS).await;
    let flow = &input.flows.as_ref().unwrap()[0];
    assert_eq!(flow.id, Some(expected.id));
    assert_eq!(flow.happy_path, Some(true));
    let Some(EdgeCases::List(cases)) = &flow.edge_cases else { panic!("picked edge cases: {flow:?}") };
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0].id, Some(expected.edge_cases[0].id));
    assert!(cases[0].persona_override_id.is_some());
    assert_ne!(cases[0].persona_override_id, flow.persona_override_id, "the second persona, not the first");
    assert_eq!(cases[0].variables.as_ref().unwrap().get("seat").map(String::as_str), Some("aisle"));
    assert!(flow.persona_override_id.is_some());
    assert_eq!(flow.variables.as_ref().unwrap().get("date").map(String::as_str), Some("tomorrow"));
    let picked: Vec<_> = input.metrics.as_ref().unwrap().iter().map(|m| m.slug.clone()).collect();
    assert_eq!(picked, vec![metrics[0].slug.clone(), metrics[1].slug.clone()], "by slug, in the list's order");
    assert_eq!(input.iteration_count, Some(2));
    assert_eq!(input.max_simulation_duration_seconds, Some(120));
    assert_eq!((input.auto_run, input.scenarios.as_ref(), input.execution_mode.as_ref()), (None, None, None));

    // Saved on the service, selected in the list, and `R` runs it.
    let plans: Vec<RunPlan> = all(&h, routes::RUN_PLANS).await;
    let saved = plans.iter().find(|p| p.plan.name.as_deref() == Some("QA regression")).expect("saved");
    assert_eq!(saved.plan.flows.as_ref().unwrap()[0].variables, flow.variables);
    assert_eq!(h.app.pane().selection().map(|s| s.id), Some(saved.id.to_string()));
    let toasts: Vec<&str> = h.app.toasts.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(toasts, ["created the plan QA regression · R runs it"], "one toast for one write");
    // The personas picked over the variants' own do not give what the flow's lines use: the
    // run is refused before anything runs, each unfilled name marked on its own field.
    h.keys(&["R", "enter"]).await;
    let screen = h.render(160, 48);
    assert_eq!(h.app.tab, Tab::Plans, "{screen}");
    assert!(screen.contains("fix ✗ patientName, dateOfBirth, currentAppointment"), "{screen}");
    h.type_text("Dana Whitfield").await;
    h.key("tab").await;
    h.type_text("March 12, 1984").await;
    h.key("tab").await;
    h.type_text("Thursday, October 8 at 9:00 AM").await;
    h.key("enter").await;
    assert_eq!(h.app.tab, Tab::Jobs, "given the values, the run opens in the jobs tab: {}", h.render(160, 48));
}

#[tokio::test]
async fn the_form_at_both_sizes_and_its_deprecated_members() {
    let mut h = Harness::seeded().await;
    h.keys(&["1", "E"]).await;
    assert_screen!("plan_form_80x24", h.render(80, 24));
    // Scrolled to the end: the options with their defaults, the deprecated members last.
    h.key("shift-tab").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("auto run (deprecated: run with R)"), "{screen}");
    assert_screen!("plan_form_end_160x48", screen);
}

#[tokio::test]
async fn the_services_refusal_lands_under_the_field_it_names() {
    let mut h = Harness::seeded().await;
    let flows = flows_in_tab_order(&h).await;
    let voicemail = flows.iter().position(CustomerFlow::is_voicemail).expect("a seeded voicemail flow");
    h.keys(&["1", "E"]).await;
    h.type_text("Voicemail inbound").await;
    h.keys(&["tab", "tab", "tab", "space", "tab"]).await;
    pick(&mut h, voicemail).await;
    // Its happy path, persona override and variables, then the first metric, its source,
    // iterations, concurrency and the duration.
    h.keys(&["tab", "tab", "tab", "tab", "space", "tab", "tab", "tab", "tab"]).await;
    h.type_text("60").await;
    h.key("enter").await;
    assert_eq!(sent_plans(&h).len(), 1, "the console's own check passes");
    let screen = h.render(160, 48);
    assert!(screen.contains("needs an OUTBOUND plan"), "the service's error, under the flows: {screen}");
    assert!(screen.contains("Voicemail inbound"), "what was typed stays: {screen}");
}

#[tokio::test]
async fn pickers_name_the_agent_list_as_their_tab_and_filter_as_you_type() {
    let mut h = Harness::seeded().await;
    // The flows tab's first flow is the form's first flow.
    h.key("5").await;
    let first = h.app.pane().selection().expect("a flow").json["title"].as_str().unwrap().to_string();
    h.keys(&["1", "E", "tab", "tab", "tab"]).await;
    h.type_text("front").await;
    let screen = h.render(160, 48);
    let endpoint = "[ ] Brightsmile Dental — Front Desk · +1 503 555 0123 · production · PHONE ▸  1/1 matching /front";
    assert!(screen.contains(endpoint), "the endpoint names its agent: {screen}");
    h.key("tab").await;
    assert!(h.render(160, 48).contains(&format!("[ ] {first} (")), "{}", h.render(160, 48));
    // Typing narrows the flows; ←→ move among those that match, space picks the one shown.
    h.type_text("skybridge").await;
    let screen = h.render(160, 48);
    assert!(
        screen.contains("[ ] Rebook after a SkyBridge cancellation (SCRIPTED) ▸  1/1 matching /skybridge"),
        "{screen}"
    );
    assert_screen!("plan_form_filtered_80x24", h.render(80, 24));
    h.keys(&["right", "space"]).await;
    let form = h.app.modal.current_form().unwrap();
    let flows = flows_in_tab_order(&h).await;
    let skybridge = flows.iter().find(|f| f.title.as_deref() == Some("Rebook after a SkyBridge cancellation")).unwrap();
    assert_eq!(form.field("flows").unwrap().picked(), vec![skybridge.id.to_string()]);
    h.key("backspace").await;
    assert!(h.render(160, 48).contains("matching /skybridg"), "backspace edits the filter");
}

#[tokio::test]
async fn a_check_takes_its_own_minimum_pass_rate_and_an_observation_none() {
    let mut h = Harness::seeded().await;
    h.keys(&["1", "E"]).await;
    h.type_text("Judged by task completion").await;
    h.keys(&["tab", "tab", "tab"]).await;
    h.type_text("front").await;
    h.keys(&["space", "tab"]).await;
    h.type_text("identity").await;
    // The flow's happy path, edge cases, persona override and variables, then the metrics.
    h.keys(&["space", "tab", "tab", "tab", "tab", "tab"]).await;
    h.type_text("task").await;
    h.key("space").await;
    h.keys(&["backspace", "backspace", "backspace", "backspace"]).await; // the filter, not the pick
    h.type_text("duration").await;
    h.key("space").await;
    let screen = h.render(160, 48);
    // The check brings a bar; the reading (call duration) does not.
    assert!(screen.contains("↳ Task completion: min pass rate (%)"), "{screen}");
    assert!(!screen.contains("↳ Call duration: min pass rate"), "{screen}");
    let form = h.app.modal.current_form().unwrap();
    assert!(form.field("metric:task_completion.minPassRate").is_some());
    assert!(form.field("metric:call_duration.minPassRate").is_none());
    while !h.render(160, 48).contains("▸   ↳ Task completion: min pass rate (%)") {
        h.key("tab").await;
    }
    assert!(h.render(160, 48).contains("default 80 · 0–100"), "{}", h.render(160, 48));
    h.type_text("150").await;
    let screen = h.render(160, 48);
    assert!(screen.contains("must be between 0 and 100"), "an out-of-range bar, under its field: {screen}");
    h.key("enter").await;
    assert!(sent_plans(&h).is_empty(), "nothing is sent while the bar is out of range");
    h.key("ctrl-u").await;
    h.type_text("90").await;
    h.key("enter").await;
    let sent = sent_plans(&h);
    assert_eq!(sent.len(), 1, "{}", h.render(160, 48));
    let plans: Vec<RunPlan> = all(&h, routes::RUN_PLANS).await;
    let saved = plans.iter().find(|p| p.name() == "Judged by task completion").expect("saved");
    let metrics = saved.plan.metrics.clone().unwrap();
    let rate = |slug: &str| metrics.iter().find(|m| m.slug.as_deref() == Some(slug)).unwrap().min_pass_rate;
    assert_eq!(rate("task_completion"), Some(90.0));
    assert_eq!(rate("call_duration"), None, "no bar for an observation: the default applies");
}

/// `D` on a plan opens the create form filled with that plan's values (not `y`, which copies
/// the id); sent unchanged but for the name, the copy runs what the original runs.
#[tokio::test]
async fn shift_d_duplicates_the_selected_plan_into_the_create_form() {
    let mut h = Harness::seeded().await;
    h.key("D").await;
    let form = h.app.modal.current_form().expect("the create form opens, filled");
    assert_eq!(form.value("name"), "copy of Brightsmile reschedule regression");
    assert_eq!(form.value("iterationCount"), "3");
    assert_eq!(form.value("maxSimulationDurationSeconds"), "300");
    assert_eq!(form.value("endCallPhrases"), "goodbye");
    let flow = "4ac0ac43-3a5c-5293-9370-3b46530ffc59";
    assert_eq!(form.value("flows"), flow);
    assert_eq!(form.value(&format!("flow:{flow}.edgeCases")), "picked");
    assert!(form.value(&format!("flow:{flow}.variables")).contains("dateOfBirth=March 12, 1984"));
    let mut metrics: Vec<String> = form.value("metrics").split(',').map(str::to_owned).collect();
    metrics.sort();
    assert_eq!(metrics, ["agent_response_latency", "call_duration", "task_completion"]);
    assert!(!form.has_errors(), "a copy of a valid plan is valid");
    assert_screen!("plan_duplicate_80x24", h.render(80, 24));

    h.key("enter").await;
    let plans: Vec<RunPlan> = all(&h, routes::RUN_PLANS).await;
    let original = plans.iter().find(|p| p.name() == "Brightsmile reschedule regression").unwrap();
    let copy = plans.iter().find(|p| p.name() == "copy of Brightsmile reschedule regression").expect("saved");
    assert_ne!(copy.id, original.id);
    let runs = |p: &RunPlan| {
        (p.plan.flows.clone(), p.plan.agent_endpoints.clone(), p.plan.iteration_count, p.plan.end_call_reasons.clone())
    };
    assert_eq!(runs(copy), runs(original));
    let slugs = |p: &RunPlan| {
        let mut slugs = p.plan.metrics.iter().flatten().map(|m| m.slug.clone()).collect::<Vec<_>>();
        slugs.sort();
        slugs
    };
    assert_eq!(slugs(copy), slugs(original));
}
