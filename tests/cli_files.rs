//! A newcomer's own plan files and bundles (issue 28, "runs you can keep"): every error of a
//! file at once, with its line; did-you-mean on bundle fields as on plan files; a name from the
//! other format answered with its name here; a bundle given for a plan file (and the reverse)
//! refused saying what to run instead; `SWITCHBOARD_BASE_URL` never shown as a required flag.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use cli::*;

/// docs/cli.md's plan file with a missing required `id`, a member of the wrong type and unknown
/// members (one of them the bundle's name), which used to be reported one round at a time, and
/// the refusal the page shows for it, as the page has them.
fn documented_refusal() -> (String, Vec<String>) {
    let dedent = |text: &str| text.lines().map(|l| l.strip_prefix("  ").unwrap_or(l).to_owned()).collect::<Vec<_>>();
    let plan = dedent(&yaml_block("cli.md", "happyPaht")).join("\n") + "\n";
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md")).unwrap();
    let from = page.find("error: plan.yaml is not a valid run plan:").expect("docs/cli.md shows the refusal");
    let answer = page[from..].split("```").next().unwrap();
    (plan, dedent(answer).into_iter().filter(|l| !l.trim().is_empty()).collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_of_a_plan_file_comes_at_once_with_its_line() {
    let home = tempfile::tempdir().unwrap();
    let service = support::start(true).await;
    let file = home.path().join("plan.yaml");
    let (plan, answer) = documented_refusal();
    std::fs::write(&file, plan).unwrap();
    let output = run(against(home.path(), &service).args(["gate", "-f", file.to_str().unwrap()])).await;
    assert_exit(&output, 2);
    let text = stderr(&output);
    let name = file.display();
    for line in [
        format!("{name}:3: maxSimulationDurationSeconds: must be a whole number, not \"sixty\""),
        format!(
            "{name}:4: unknown field iterations: `iterations` is the bundle's name; in a plan file it is `iterationCount`"
        ),
        format!("{name}:6: agentEndpoints[0].id is required"),
        format!("{name}:9: unknown field flows[0].happyPaht; did you mean `happyPath`?"),
        format!("{name}:10: unknown field flows[1].flow: `flow` is the bundle's name; in a plan file it is `slug`"),
    ] {
        assert!(text.contains(&line), "{line:?} in one refusal:\n{text}");
    }
    // And the page's refusal, as it shows it.
    for line in answer {
        let line = line.replace("plan.yaml", &name.to_string());
        assert!(text.contains(&line), "docs/cli.md's {line:?} in the refusal:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bundle_field_typo_gets_did_you_mean_and_a_plan_file_name_gets_the_bundles() {
    let home = tempfile::tempdir().unwrap();
    let service = support::start(true).await;
    let file = home.path().join("bundle.yaml");
    std::fs::write(
        &file,
        "kind: persona\nname: sam\naccent: US\ngender: FEMALE\nlanguage: EN\nbackstroyPrompt: a patient\n---\nkind: simulationPlan\nname: p\ndirection: INBOUND\nmaxSimulationDurationSeconds: 60\niterationCount: 2\nagentEndpoints:\n  - agent: my-agent\nflows:\n  - slug: move-appointment\nmetrics: []\n",
    )
    .unwrap();
    let output = run(against(home.path(), &service).args(["config", "diff", "-f", file.to_str().unwrap()])).await;
    assert_exit(&output, 2);
    let text = stderr(&output);
    let name = file.display();
    for line in [
        format!("{name}:6: persona/sam: unknown field backstroyPrompt; did you mean `backstoryPrompt`?"),
        format!(
            "{name}:11: simulationPlan/p: unknown field maxSimulationDurationSeconds: `maxSimulationDurationSeconds` is the plan file's name; in a bundle it is `maxDurationSeconds`"
        ),
        format!(
            "{name}:12: simulationPlan/p: unknown field iterationCount: `iterationCount` is the plan file's name; in a bundle it is `iterations`"
        ),
        format!(
            "{name}:16: simulationPlan/p: unknown field flows[0].slug: `slug` is the plan file's name; in a bundle it is `flow`"
        ),
    ] {
        assert!(text.contains(&line), "{line:?} in the refusal:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bundle_given_as_a_plan_file_and_a_plan_file_given_as_a_bundle_say_what_to_run() {
    let home = tempfile::tempdir().unwrap();
    let service = support::start(true).await;
    let bundle = home.path().join("suite.yaml");
    std::fs::write(
        &bundle,
        "kind: persona\nname: sam\naccent: US\ngender: FEMALE\nlanguage: EN\n---\nkind: simulationPlan\nname: Smoke\n",
    )
    .unwrap();
    let bundle = bundle.to_str().unwrap();
    let output = run(against(home.path(), &service).args(["gate", "-f", bundle])).await;
    assert_exit(&output, 2);
    let text = stderr(&output);
    assert!(text.contains(&format!("{bundle} is a bundle")), "{text}");
    assert!(text.contains(&format!("`switchboard gate \"Smoke\" --suite {bundle}`")), "{text}");
    assert!(text.contains(&format!("`switchboard config apply -f {bundle}`")), "{text}");

    let plan = home.path().join("plan.yaml");
    std::fs::write(&plan, "name: Nightly\ndirection: INBOUND\nmaxSimulationDurationSeconds: 60\n").unwrap();
    let plan = plan.to_str().unwrap();
    let output = run(against(home.path(), &service).args(["config", "apply", "-f", plan])).await;
    assert_exit(&output, 2);
    let text = stderr(&output);
    assert!(text.contains(&format!("{plan}:1: this is a plan file")), "{text}");
    assert!(text.contains(&format!("`switchboard gate -f {plan}`")), "{text}");

    // A `kind` that is not text is neither: either command names the member and its line.
    let odd = home.path().join("odd.yaml");
    std::fs::write(&odd, "name: Nightly\nkind: 5\n").unwrap();
    let odd = odd.to_str().unwrap();
    for args in [vec!["gate", "-f", odd], vec!["config", "apply", "-f", odd]] {
        let output = run(against(home.path(), &service).args(&args)).await;
        assert_exit(&output, 2);
        let text = stderr(&output);
        assert!(text.contains(&format!("{odd}:2: kind must be a string, not 5")), "{args:?}: {text}");
        assert!(!text.contains("is a bundle"), "{args:?}: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_base_url_from_the_environment_is_never_shown_as_a_required_flag() {
    let home = tempfile::tempdir().unwrap();
    let output =
        run(switchboard(home.path()).env("SWITCHBOARD_BASE_URL", "http://127.0.0.1:9").args(["config", "apply"])).await;
    assert_exit(&output, 2);
    let text = stderr(&output);
    assert!(text.contains("Usage: switchboard config apply --file <PATH>..."), "{text}");
    assert!(!text.contains("--base-url"), "the environment's value is no flag the user left out:\n{text}");

    // A kept data dir is opened whatever the environment names for other commands.
    let kept = home.path().join("kept");
    let output = run(switchboard(home.path()).env("SWITCHBOARD_BASE_URL", "http://127.0.0.1:9").args([
        "--data-dir",
        kept.to_str().unwrap(),
        "job",
        "list",
        "-o",
        "json",
    ]))
    .await;
    assert!(!stderr(&output).contains("cannot be used with"), "{}", stderr(&output));
    assert_exit(&output, 0);
}

/// A plan file no saved plan is named as: its first run saves it, later runs are that plan's
/// runs (one plan id, `job list --plan NAME`), and a changed file updates it, saying what changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_of_one_plan_file_are_one_plans_runs_and_a_change_is_said() {
    let home = tempfile::tempdir().unwrap();
    let service = support::start(true).await;
    let file = home.path().join("mine.yaml");
    let plan = |seconds: u32| {
        format!(
            "name: Mine\ndirection: INBOUND\nmaxSimulationDurationSeconds: {seconds}\nagentEndpoints:\n  - id: {BRIGHTSMILE_ENDPOINT}\nflows:\n  - id: {RESCHEDULE_FLOW}\n    happyPath: true\nmetrics:\n  - slug: call_duration\n"
        )
    };
    std::fs::write(&file, plan(300)).unwrap();
    let path = file.to_str().unwrap();
    let start = async || run(against(home.path(), &service).args(["run", "-f", path, "-o", "json"])).await;

    let first = start().await;
    assert_exit(&first, 0);
    assert!(stderr(&first).contains("plan \"Mine\": saved from"), "{}", stderr(&first));
    let plan_id = json(&first)["data"]["simulationRunPlanId"].as_str().unwrap().to_owned();

    let second = start().await;
    assert_exit(&second, 0);
    assert_eq!(json(&second)["data"]["simulationRunPlanId"], plan_id.as_str(), "the same plan");
    assert!(!stderr(&second).contains("saved from") && !stderr(&second).contains("updated"), "{}", stderr(&second));

    std::fs::write(&file, plan(200)).unwrap();
    let third = start().await;
    assert_exit(&third, 0);
    assert_eq!(json(&third)["data"]["simulationRunPlanId"], plan_id.as_str());
    let said = stderr(&third);
    assert!(said.contains(&format!("plan \"Mine\": {path} changed (maxSimulationDurationSeconds); updated")), "{said}");
    let saved = service.client.get_run_plan(plan_id.parse().unwrap()).await.unwrap();
    assert_eq!(saved.plan.max_simulation_duration_seconds, Some(200));

    let listed = run(against(home.path(), &service).args(["job", "list", "--plan", "Mine", "-o", "json"])).await;
    assert_exit(&listed, 0);
    assert_eq!(json(&listed)["data"].as_array().unwrap().len(), 3, "every run of the file is the plan's");
}

/// A metric slug no definition has is refused at its line with the one it was likely meant to be.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misspelt_metric_slug_gets_did_you_mean_at_its_line() {
    let home = tempfile::tempdir().unwrap();
    let service = support::start(true).await;
    let file = home.path().join("typo.yaml");
    std::fs::write(
        &file,
        format!("name: Typo\ndirection: INBOUND\nmaxSimulationDurationSeconds: 60\nagentEndpoints:\n  - id: {BRIGHTSMILE_ENDPOINT}\nflows:\n  - id: {RESCHEDULE_FLOW}\n    happyPath: true\nmetrics:\n  - slug: task_completon\n"),
    )
    .unwrap();
    let output = run(against(home.path(), &service).args(["gate", "-f", file.to_str().unwrap()])).await;
    assert_exit(&output, 2);
    let text = stderr(&output);
    assert!(text.contains(":10: "), "at its line: {text}");
    assert!(text.contains("no metric definition task_completon; did you mean `task_completion`?"), "{text}");
    let plans = run(against(home.path(), &service).args(["plan", "list", "-o", "json"])).await;
    let plans = json(&plans);
    assert!(
        plans["data"].as_array().unwrap().iter().all(|p| p["name"] != "Typo"),
        "a refused run saves no plan: {plans}"
    );
}

/// A changed plan file whose run is refused leaves its saved plan as it was: the update is
/// written only once the run has started.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_run_leaves_a_changed_plan_files_saved_plan_as_it_was() {
    let home = tempfile::tempdir().unwrap();
    let service = support::start(true).await;
    let file = home.path().join("kept.yaml");
    let plan = |seconds: u32, metric: &str| {
        format!(
            "name: Kept\ndirection: INBOUND\nmaxSimulationDurationSeconds: {seconds}\nagentEndpoints:\n  - id: {BRIGHTSMILE_ENDPOINT}\nflows:\n  - id: {RESCHEDULE_FLOW}\n    happyPath: true\nmetrics:\n  - slug: {metric}\n"
        )
    };
    let path = file.to_str().unwrap();
    let start = async || run(against(home.path(), &service).args(["run", "-f", path, "-o", "json"])).await;
    std::fs::write(&file, plan(300, "call_duration")).unwrap();
    let first = start().await;
    assert_exit(&first, 0);
    let plan_id: uuid::Uuid = json(&first)["data"]["simulationRunPlanId"].as_str().unwrap().parse().unwrap();
    let saved = service.client.get_run_plan(plan_id).await.unwrap();

    // Two changes, one of them a metric no definition has: the service refuses the run.
    std::fs::write(&file, plan(200, "call_duraton")).unwrap();
    let refused = start().await;
    assert_exit(&refused, 2);
    let said = stderr(&refused);
    assert!(said.contains("no metric definition call_duraton"), "{said}");
    assert!(!said.contains("updated"), "a refused run updates nothing:\n{said}");
    let after = service.client.get_run_plan(plan_id).await.unwrap();
    assert_eq!(after.plan.max_simulation_duration_seconds, Some(300));
    assert_eq!(after, saved, "the saved plan as it was");
}
