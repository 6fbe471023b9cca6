//! Tests as code on the command line: `init` writes a starter suite that `config diff`,
//! `config apply` and `gate --suite` run unchanged against an agent written here; every
//! refusal names the file and the line, all at once, exit 2, with nothing written; secrets
//! come from the environment; `diff --exit-code` and `-o json` are what scripts read.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use std::path::Path;

use cli::*;
use futures_util::TryStreamExt;
use serde_json::{Value, json};

/// An agent in its own words: greets, moves the appointment and says the new time back.
async fn turn(body: String) -> axum::Json<Value> {
    let heard: Value = serde_json::from_str(&body).unwrap_or_default();
    let text = heard["text"].as_str().unwrap_or_default().to_lowercase();
    let reply = if heard["turn"] == 0 {
        "Hi, this is Sam at the front desk, how can I help you today?"
    } else if text.contains("goodbye") || text.contains("thank") {
        "You're welcome. Goodbye!"
    } else {
        "Done: I've moved your appointment to Tuesday at 9:30 AM. To confirm, your new time is Tuesday at 9:30 AM."
    };
    axum::Json(json!({ "text": reply }))
}

async fn agent() -> String {
    let app = axum::Router::new().route("/turn", axum::routing::post(turn));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/turn", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

fn init(home: &Path, url: &str) -> std::path::PathBuf {
    let dir = home.join("suite");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .env("HOME", home)
        .args(["init", dir.to_str().unwrap(), "--agent-url", url])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_then_diff_apply_and_a_gate_with_the_suite_pass_against_the_users_agent() {
    let home = tempfile::tempdir().unwrap();
    let url = agent().await;
    let suite = init(home.path(), &url);
    let service = support::start(true).await;
    let dir = suite.to_str().unwrap();

    let diff = run(against(home.path(), &service).args(["config", "diff", "-f", dir, "--exit-code"])).await;
    assert_exit(&diff, 1);
    let text = stdout(&diff);
    for key in ["+ flow/move-appointment", "+ persona/sam-rivera", "+ simulationPlan/Smoke", "+ metric/politeness"] {
        assert!(text.contains(key), "{key} in the plan:\n{text}");
    }
    assert!(text.contains("Plan: 8 to create, 0 to update, 0 to delete"), "{text}");

    let apply = run(against(home.path(), &service).args(["config", "apply", "-f", dir])).await;
    assert_exit(&apply, 0);
    assert!(stdout(&apply).contains("Applied: 8 created"), "{}", stdout(&apply));
    let again = run(against(home.path(), &service).args(["config", "diff", "-f", dir, "--exit-code"])).await;
    assert_exit(&again, 0);
    assert!(stdout(&again).contains("No changes"), "{}", stdout(&again));

    // One CI line: a throwaway service, the suite applied, the plan run against the agent.
    let gate = run(switchboard(home.path()).args(["gate", "Smoke", "--embedded", "--suite", dir, "-o", "json"])).await;
    assert_exit(&gate, 0);
    let report = json(&gate);
    assert_eq!(report["result"], "PASSED", "{report:#}");
    assert!(stderr(&gate).contains("+ flow/move-appointment"), "the suite's changes are told: {}", stderr(&gate));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_problem_of_a_bundle_is_named_with_its_file_and_line_and_nothing_is_written() {
    let home = tempfile::tempdir().unwrap();
    let service = support::start(true).await;
    let dir = home.path().join("bundle");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("a-personas.yaml"),
        "kind: persona\nname: ok-persona\naccent: US\ngender: FEMALE\nlanguage: EN\n---\nkind: persona\nname: martian\naccent: MARS\ngender: FEMALE\nlanguage: EN\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("b-plan.json"),
        "{\"kind\": \"simulationPlan\", \"name\": \"p\", \"direction\": \"INBOUND\",\n \"maxDurationSeconds\": 60,\n \"agentEndpoints\": [{\"agent\": \"nobody\"}],\n \"flows\": [{\"flow\": \"no-such-flow\"}],\n \"metrics\": []}\n",
    )
    .unwrap();
    let before = service.client.list_personas(&Default::default()).await.unwrap().data.len();
    let output = run(against(home.path(), &service).args(["config", "apply", "-f", dir.to_str().unwrap()])).await;
    assert_exit(&output, 2);
    let text = stderr(&output);
    assert!(text.contains("a-personas.yaml:9: persona/martian: accent"), "the accent, at its line:\n{text}");
    assert!(text.contains("b-plan.json:3: simulationPlan/p"), "the agent reference, at its line:\n{text}");
    assert!(text.contains("b-plan.json:4: simulationPlan/p"), "the flow reference, at its line:\n{text}");
    let after = service.client.list_personas(&Default::default()).await.unwrap().data.len();
    assert_eq!(before, after, "nothing was written, the good persona included");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_come_from_the_environment_and_an_unset_one_is_named() {
    let home = tempfile::tempdir().unwrap();
    let service = support::start(true).await;
    let file = home.path().join("agent.yaml");
    std::fs::write(
        &file,
        "kind: httpRequestDefinition\nname: dial\nurl: https://agent.example/turn\nheaders:\n  Authorization: Bearer ${AGENT_TOKEN}\n",
    )
    .unwrap();
    let unset = run(against(home.path(), &service).env_remove("AGENT_TOKEN").args([
        "config",
        "apply",
        "-f",
        file.to_str().unwrap(),
    ]))
    .await;
    assert_exit(&unset, 2);
    assert!(
        stderr(&unset)
            .contains("agent.yaml:5: httpRequestDefinition/dial: headers.Authorization: ${AGENT_TOKEN} is not set"),
        "{}",
        stderr(&unset)
    );

    let set = run(against(home.path(), &service).env("AGENT_TOKEN", "tok-123").args([
        "config",
        "apply",
        "-f",
        file.to_str().unwrap(),
        "-o",
        "json",
    ]))
    .await;
    assert_exit(&set, 0);
    let body = json(&set);
    assert_eq!(body["data"]["summary"]["create"], 1, "-o json prints the interface's answer: {body:#}");
    assert!(!String::from_utf8_lossy(&set.stdout).contains("tok-123"), "the secret is never printed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_partial_bundle_prunes_the_first_unless_told_not_to() {
    let home = tempfile::tempdir().unwrap();
    let service = support::start(true).await;
    let both = home.path().join("both.yaml");
    let one = home.path().join("one.yaml");
    let persona = |name: &str| format!("kind: persona\nname: {name}\naccent: US\ngender: MALE\nlanguage: EN\n");
    std::fs::write(&both, format!("{}---\n{}", persona("keep-me"), persona("drop-me"))).unwrap();
    std::fs::write(&one, persona("keep-me")).unwrap();
    assert_exit(&run(against(home.path(), &service).args(["config", "apply", "-f", both.to_str().unwrap()])).await, 0);

    let kept =
        run(against(home.path(), &service).args(["config", "apply", "-f", one.to_str().unwrap(), "--no-prune"])).await;
    assert_exit(&kept, 0);
    assert!(stdout(&kept).contains("No changes"), "{}", stdout(&kept));

    let diff = run(against(home.path(), &service).args(["config", "diff", "-f", one.to_str().unwrap()])).await;
    assert!(stdout(&diff).contains("- persona/drop-me"), "the delete is shown first:\n{}", stdout(&diff));
    // Piped (no terminal to ask on): the apply goes ahead, as in CI.
    let pruned = run(against(home.path(), &service).args(["config", "apply", "-f", one.to_str().unwrap()])).await;
    assert_exit(&pruned, 0);
    assert!(
        stdout(&pruned).contains("- persona/drop-me") && stdout(&pruned).contains("1 deleted"),
        "{}",
        stdout(&pruned)
    );
}

/// `config export` writes the workspace as a bundle that `config apply` recreates: exported
/// from one service and applied to another, the first bundle finds nothing to change there; a
/// secret header comes out as a `${…}` placeholder, never in clear.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_applies_to_another_service_and_recreates_the_bundle_without_secrets() {
    let home = tempfile::tempdir().unwrap();
    let suite = init(home.path(), "http://127.0.0.1:9/turn");
    let agent = suite.join("agent.yaml");
    let text = std::fs::read_to_string(&agent).unwrap();
    std::fs::write(
        &agent,
        text.replace("  # Authorization: Bearer ${AGENT_TOKEN}", "  Authorization: Bearer ${AGENT_TOKEN}"),
    )
    .unwrap();
    let suite = suite.to_str().unwrap();
    let token = ("AGENT_TOKEN", "tok-secret-4242");

    let first = support::start(false).await;
    let second = support::start(false).await;
    for service in [&first, &second] {
        let environment = json!({"name": "Quiet home", "backgroundNoise": "NONE"});
        let created: Value = service
            .client
            .send(reqwest::Method::POST, "/v1/simulation/environment", None::<&()>, Some(&environment))
            .await
            .unwrap();
        assert!(created["data"]["id"].is_string(), "{created}");
    }
    let applied = run(against(home.path(), &first).env(token.0, token.1).args(["config", "apply", "-f", suite])).await;
    assert_exit(&applied, 0);

    let out = home.path().join("exported");
    let export = run(against(home.path(), &first).args(["config", "export", "--out-dir", out.to_str().unwrap()])).await;
    assert_exit(&export, 0);
    let files: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    for kind in
        ["agent.yaml", "httpRequestDefinition.yaml", "persona.yaml", "flow.yaml", "metric.yaml", "simulationPlan.yaml"]
    {
        assert!(files.iter().any(|f| f == kind), "{kind} among {files:?}");
    }
    let exported = std::fs::read_to_string(out.join("httpRequestDefinition.yaml")).unwrap();
    assert!(exported.contains("${HTTP_MY_AGENT_TURN_AUTHORIZATION}"), "a placeholder:\n{exported}");
    assert!(!exported.contains(token.1), "never the secret:\n{exported}");

    // The export recreates the bundle on the same service (nothing to change) and on another.
    let same = run(against(home.path(), &first)
        .env("HTTP_MY_AGENT_TURN_AUTHORIZATION", format!("Bearer {}", token.1))
        .args(["config", "diff", "-f", out.to_str().unwrap(), "--exit-code"]))
    .await;
    assert_exit(&same, 0);
    let moved = run(against(home.path(), &second)
        .env("HTTP_MY_AGENT_TURN_AUTHORIZATION", format!("Bearer {}", token.1))
        .args(["config", "apply", "-f", out.to_str().unwrap()]))
    .await;
    assert_exit(&moved, 0);
    let back =
        run(against(home.path(), &second).env(token.0, token.1).args(["config", "diff", "-f", suite, "--exit-code"]))
            .await;
    assert_exit(&back, 0);
}

/// The seeded workspace exported applies to the same service unchanged: each resource made
/// another way is written under the name the service finds it by (a flow's title, an agent's
/// custom id, a policy's name, a definition's id), so adopting a workspace as code starts from
/// "no changes", not from copies of everything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_of_the_seeded_workspace_applies_to_it_unchanged() {
    let home = tempfile::tempdir().unwrap();
    let service = support::start(true).await;
    let out = home.path().join("exported");
    let export =
        run(against(home.path(), &service).args(["config", "export", "--out-dir", out.to_str().unwrap()])).await;
    assert_exit(&export, 0);
    let flows = std::fs::read_to_string(out.join("flow.yaml")).unwrap();
    assert!(flows.contains("name: Reschedule a cleaning with identity check"), "{flows}");
    let same =
        run(against(home.path(), &service).args(["config", "diff", "-f", out.to_str().unwrap(), "--exit-code"])).await;
    assert_exit(&same, 0);
    assert!(stdout(&same).contains("0 to create, 0 to update, 0 to delete"), "{}", stdout(&same));
}

/// The plan file of docs/cli.md that runs a bundle's own flow, as written: a flow an apply
/// makes has its `name` as its slug, so `gate -f` selects it by `slug:` and passes against the
/// user's agent; the plan file's per-metric bar is its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_file_selects_a_bundle_flow_by_its_name() {
    let home = tempfile::tempdir().unwrap();
    let url = agent().await;
    let suite = init(home.path(), &url);
    let service = support::start(true).await;
    let apply = run(against(home.path(), &service).args(["config", "apply", "-f", suite.to_str().unwrap()])).await;
    assert_exit(&apply, 0);
    let flows: Vec<switchboard::api::model::CustomerFlow> =
        service.client.list_all("/v1/customer-flow", Default::default()).try_collect().await.unwrap();
    let ours = flows.iter().find(|f| f.title.as_deref() == Some("Move an appointment")).unwrap();
    assert_eq!(ours.slug.as_deref(), Some("move-appointment"), "the bundle name is the flow's slug");

    let block = yaml_block("cli.md", "slug: move-appointment")
        .lines()
        .map(|l| l.strip_prefix("  ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    let file = home.path().join("own-flow.yaml");
    std::fs::write(&file, block).unwrap();
    let gate = run(against(home.path(), &service).args([
        "gate",
        "-f",
        file.to_str().unwrap(),
        "--agent-url",
        &url,
        "-o",
        "json",
    ]))
    .await;
    assert_exit(&gate, 0);
    let report = json(&gate);
    assert_eq!(report["result"], "PASSED", "{report:#}");
    let checks = report["verdict"]["checks"].as_array().unwrap();
    assert!(checks.iter().any(|c| c["minPassRate"] == 90.0), "the plan file's bar holds on its check: {checks:#?}");
}

/// A bundle plan's metrics are names (the hosted bundle's `List[str]`): a per-metric bar there
/// is refused at its line, naming the field and where a bar goes instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_per_metric_bar_in_a_bundle_plan_is_refused_saying_where_a_bar_goes() {
    let home = tempfile::tempdir().unwrap();
    let service = support::start(true).await;
    let file = home.path().join("plan.yaml");
    std::fs::write(
        &file,
        "kind: simulationPlan\nname: p\ndirection: INBOUND\nmaxDurationSeconds: 60\nagentEndpoints:\n  - agent: my-agent\nflows:\n  - flow: move-appointment\nmetrics:\n  - slug: confirms_new_time\n    minPassRate: 90\n",
    )
    .unwrap();
    let output = run(against(home.path(), &service).args(["config", "diff", "-f", file.to_str().unwrap()])).await;
    assert_exit(&output, 2);
    let text = stderr(&output);
    assert!(text.contains("plan.yaml:10: simulationPlan/p"), "the entry, at its line:\n{text}");
    for words in ["metrics[0]", "per-metric bar (minPassRate)", "`- confirms_new_time`", "gate -f", "--min-pass-rate"] {
        assert!(text.contains(words), "{words:?} in the refusal:\n{text}");
    }
}

/// A bundle reference that is nearly a name the bundle has gets the name it was likely meant
/// to be, at its line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misspelt_reference_in_a_bundle_gets_did_you_mean() {
    let home = tempfile::tempdir().unwrap();
    let suite = init(home.path(), "http://127.0.0.1:9/turn");
    let plan = suite.join("plan.yaml");
    let text = std::fs::read_to_string(&plan).unwrap();
    std::fs::write(&plan, text.replace("  - flow: move-appointment", "  - flow: move-apointment")).unwrap();
    let service = support::start(true).await;
    let output = run(against(home.path(), &service).args(["config", "diff", "-f", suite.to_str().unwrap()])).await;
    assert_exit(&output, 2);
    let text = stderr(&output);
    assert!(text.contains("plan.yaml:11: simulationPlan/Smoke"), "the reference, at its line:\n{text}");
    assert!(text.contains("\"move-apointment\"") && text.contains("did you mean `move-appointment`?"), "{text}");
}

/// A `{{variable}}` in a bundle's flow that no persona's properties or saved plan's variables
/// give is likely a typo: `config diff` and `config apply` warn on the flow's change, naming
/// the step and the name it was likely meant to be; the apply still goes ahead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variable_nothing_fills_is_warned_of_by_diff_and_apply() {
    let home = tempfile::tempdir().unwrap();
    let suite = init(home.path(), "http://127.0.0.1:9/turn");
    let flows = suite.join("flows.yaml");
    let text = std::fs::read_to_string(&flows).unwrap();
    std::fs::write(&flows, text.replace("Hi, this is {{customerName}}.", "Hi, this is {{custmerName}}.")).unwrap();
    let service = support::start(true).await;
    let dir = suite.to_str().unwrap();
    for command in ["diff", "apply"] {
        let output = run(against(home.path(), &service).args(["config", command, "-f", dir])).await;
        assert_exit(&output, 0);
        let text = stdout(&output);
        assert!(text.contains("+ flow/move-appointment"), "{text}");
        assert!(
            text.contains("warning: step \"ask\" (CUSTOMER_TURN) uses {{custmerName}}")
                && text.contains("did you mean `customerName`?"),
            "{command} warns of the typo:\n{text}"
        );
        assert!(!text.contains("{{customerName}}"), "what a persona gives is not warned of:\n{text}");
    }
}

/// A persona the bundle rewrites gives only the properties the bundle leaves it: one it
/// removes fills nothing any more, so a changed flow that uses it is warned of.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_property_the_bundle_removes_from_its_persona_fills_nothing() {
    let home = tempfile::tempdir().unwrap();
    let suite = init(home.path(), "http://127.0.0.1:9/turn");
    let service = support::start(true).await;
    let dir = suite.to_str().unwrap();
    let apply = run(against(home.path(), &service).args(["config", "apply", "-f", dir])).await;
    assert_exit(&apply, 0);
    assert!(!stdout(&apply).contains("warning:"), "the persona gives {{{{customerName}}}}:\n{}", stdout(&apply));

    let edit = |file: &str, from: &str, to: &str| {
        let path = suite.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{from:?} in {file}");
        std::fs::write(&path, text.replace(from, to)).unwrap();
    };
    edit("personas.yaml", "  customerName: Sam Rivera", "  nickname: Sam");
    edit("flows.yaml", "Tuesday morning would be perfect.", "Tuesday morning works.");
    let diff = run(against(home.path(), &service).args(["config", "diff", "-f", dir])).await;
    assert_exit(&diff, 0);
    let text = stdout(&diff);
    assert!(text.contains("~ flow/move-appointment"), "{text}");
    assert!(text.contains("uses {{customerName}}, which no persona's properties"), "the removed property:\n{text}");
}
