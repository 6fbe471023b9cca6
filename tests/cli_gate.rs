//! `switchboard gate` against a real local service: passing and failing on purpose by the
//! service's verdict, `--min-pass-rate`, a run with nothing to judge, a timeout, and the reports
//! (JUnit checked against the vendored schema, JSON, Markdown, GitHub's summary and outputs).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;
#[path = "support/xsd.rs"]
mod xsd;

use cli::*;
use support::{Service, start};

/// The gate's report as JSON, unless `args` ask for another output.
async fn gate(home: &std::path::Path, service: &Service, args: &[&str]) -> std::process::Output {
    let json: &[&str] = if args.contains(&"--output") { &[] } else { &["-o", "json"] };
    run(against(home, service).arg("gate").args(json).args(args)).await
}

fn schema_errors(xml: &str) -> Vec<String> {
    let xsd =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/junit/jenkins.xsd")).unwrap();
    let xsd = roxmltree::Document::parse(&xsd).unwrap();
    let doc = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("not XML ({e}):\n{xml}"));
    xsd::Schema::new(&xsd).validate(&doc)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_whose_checks_clear_passes_with_reports_and_github_outputs() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let always = duration_check(&service.client, true).await;
    create_plan(&service.client, &plan_input("Gate passes", Some((&always, 100.0)), 2)).await;
    let out = home.path().join("out");
    let (summary, outputs) = (home.path().join("summary.md"), home.path().join("outputs.txt"));
    let (junit, json_path, markdown) = (out.join("junit.xml"), out.join("gate.json"), out.join("gate.md"));
    let output = run(against(home.path(), &service)
        .args([
            "gate",
            "-o",
            "json",
            "Gate passes",
            "--junit",
            junit.to_str().unwrap(),
            "--json",
            json_path.to_str().unwrap(),
        ])
        .args(["--markdown", markdown.to_str().unwrap()])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs))
    .await;
    assert_exit(&output, 0);

    let report: serde_json::Value = json(&output);
    assert_eq!(report["result"], "PASSED");
    assert_eq!(report["schemaVersion"], 1);
    assert_eq!(report["verdict"]["passed"], true);
    assert_eq!(report["perSimulationDetail"], true);
    assert_eq!(report["simulations"].as_array().unwrap().len(), 2);
    for sim in report["simulations"].as_array().unwrap() {
        assert_eq!(sim["outcome"], "PASSED", "{sim}");
    }
    let on_disk: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(on_disk, report, "the file and stdout carry the same report");

    // The verdict is the service's: the job it names passed there too.
    let job_id: uuid::Uuid = report["runPlanJobId"].as_str().unwrap().parse().unwrap();
    let job = service.client.get_run_plan_job(job_id).await.unwrap();
    assert!(job.verdict.unwrap().passed);

    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(schema_errors(&xml), Vec::<String>::new(), "{xml}");
    assert!(xml.contains("Call lasted") && xml.contains("failures=\"0\""), "{xml}");
    let md = std::fs::read_to_string(&markdown).unwrap();
    assert!(md.contains("PASSED") && md.contains("| Call lasted | 100 % (2/2) | 100 % |"), "{md}");
    assert_eq!(std::fs::read_to_string(&summary).unwrap().trim(), md.trim(), "the step summary is the Markdown report");
    let outputs = std::fs::read_to_string(&outputs).unwrap();
    assert!(outputs.contains("verdict=PASSED\n"), "{outputs}");
    assert!(outputs.contains("pass-rate=100.0\n"), "{outputs}");
    assert!(outputs.contains(&format!("job-id={job_id}\n")), "{outputs}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_whose_minimum_cannot_be_met_fails_and_every_report_says_why() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let never = duration_check(&service.client, false).await;
    create_plan(&service.client, &plan_input("Gate fails", Some((&never, 100.0)), 2)).await;
    let junit = home.path().join("junit.xml");
    let markdown = home.path().join("gate.md");
    let output = run(against(home.path(), &service)
        .args(["gate", "Gate fails", "--junit", junit.to_str().unwrap(), "--markdown", markdown.to_str().unwrap()])
        .args(["--output", "table"])
        .env("GITHUB_ACTIONS", "true"))
    .await;
    assert_exit(&output, 1);
    let text = stdout(&output);
    assert!(text.starts_with("gate FAILED"), "{text}");
    assert!(text.contains("Call was instant passed 0 % of simulations, below its minimum of 100 %"), "{text}");
    assert!(
        stderr(&output).contains("::error title=switchboard gate::Call was instant passed 0 %25 of simulations"),
        "failures become annotations under GitHub Actions:\n{}",
        stderr(&output)
    );

    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(schema_errors(&xml), Vec::<String>::new(), "{xml}");
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some("Call was instant"))
        .unwrap();
    assert_eq!(suite.attribute("tests"), Some("3"), "the bar and one case per simulation");
    assert_eq!(suite.attribute("failures"), Some("3"));
    let failures: Vec<_> = suite.descendants().filter(|n| n.has_tag_name("failure")).collect();
    assert!(
        failures
            .iter()
            .any(|f| f.attribute("type") == Some("CHECK_FAILED") && f.text().unwrap_or("").contains("reasoning: "))
    );
    let cases: Vec<_> =
        suite.descendants().filter(|n| n.has_tag_name("testcase")).filter_map(|n| n.attribute("name")).collect();
    let named = |n: &str| cases.iter().any(|c| c.starts_with("Reschedule") && c.ends_with(&format!(" · #{n}")));
    assert!(named("1") && named("2"), "named by flow, variant, persona and iteration: {cases:?}");
    // Each failed simulation's case carries its conversation, with times, in its own system-out.
    let failed_cases: Vec<_> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase") && n.children().any(|c| c.has_tag_name("failure")))
        .filter(|n| n.attribute("name").is_some_and(|name| name.starts_with("Reschedule")))
        .collect();
    assert_eq!(failed_cases.len(), 2);
    for case in failed_cases {
        let out = case.children().find(|c| c.has_tag_name("system-out")).expect("the case's own system-out");
        let text = out.text().unwrap_or_default();
        assert!(
            text.lines().next().is_some_and(|l| l.starts_with('[') && l.contains("–") && l.contains(" s] Agent: ")),
            "{text}"
        );
        assert!(text.contains("] Caller: "), "{text}");
    }

    let md = std::fs::read_to_string(&markdown).unwrap();
    assert!(md.contains("## ❌ FAILED") && md.contains("### Worst failing simulations"), "{md}");
    // Each failing simulation's turns around its failure, folded.
    assert_eq!(md.matches("the turns around the failure</summary>").count(), 2, "{md}");
    assert!(md.contains("**Agent**: ") && md.contains("**Caller**: "), "{md}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn min_pass_rate_raises_each_checks_bar_and_never_lowers_one() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let never = duration_check(&service.client, false).await;
    let always = duration_check(&service.client, true).await;
    // A bar of 0 lets a check that never passes through; raising it fails the run.
    create_plan(&service.client, &plan_input("Low bar", Some((&never, 0.0)), 1)).await;
    assert_exit(&gate(home.path(), &service, &["Low bar"]).await, 0);
    let output = gate(home.path(), &service, &["Low bar", "--min-pass-rate", "10"]).await;
    assert_exit(&output, 1);
    let report = json(&output);
    assert_eq!(report["minPassRate"], 10.0);
    assert_eq!(report["serviceVerdict"]["passed"], true, "the service's own verdict is kept beside the raised one");
    assert_eq!(report["verdict"]["checks"][0]["minPassRate"], 10.0);
    assert_eq!(report["verdict"]["failures"][0]["type"], "METRIC_BELOW_MIN_PASS_RATE");

    // A check whose own bar is higher keeps it.
    create_plan(&service.client, &plan_input("High bar", Some((&always, 100.0)), 1)).await;
    let output = gate(home.path(), &service, &["High bar", "--min-pass-rate", "50"]).await;
    assert_exit(&output, 0);
    assert_eq!(json(&output)["verdict"]["checks"][0]["minPassRate"], 100.0);

    let output = gate(home.path(), &service, &["High bar", "--min-pass-rate", "101"]).await;
    assert_exit(&output, 2);
    assert!(stderr(&output).contains("--min-pass-rate"), "{}", stderr(&output));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_with_nothing_to_judge_fails_and_says_how_to_add_a_check() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    create_plan(&service.client, &plan_input("Observations only", None, 1)).await;
    let junit = home.path().join("junit.xml");
    let output = gate(home.path(), &service, &["Observations only", "--junit", junit.to_str().unwrap()]).await;
    assert_exit(&output, 1);
    let report = json(&output);
    assert_eq!(report["result"], "FAILED");
    assert!(report["verdict"].is_null());
    let message = report["message"].as_str().unwrap();
    assert!(
        message.contains("never a pass") && message.contains("thresholds") && message.contains("minPassRate"),
        "{message}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(schema_errors(&xml), Vec::<String>::new(), "{xml}");
    assert!(xml.contains("NO_VERDICT"), "{xml}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_outlasts_the_timeout_is_timed_out_and_cancelled_when_asked() {
    // Real time: a simulated call of a minute takes a minute, so the run outlasts a 1 s timeout.
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options {
        sim_speed: switchboard::service::SimSpeed::Factor(1.0),
        ..support::options(dir.path(), true)
    };
    let service = support::start_with(options, dir).await;
    let home = tempfile::tempdir().unwrap();
    let always = duration_check(&service.client, true).await;
    create_plan(&service.client, &plan_input("Slow", Some((&always, 100.0)), 1)).await;

    let output = gate(home.path(), &service, &["Slow", "--timeout", "1s"]).await;
    assert_exit(&output, 6);
    let report = json(&output);
    assert_eq!(report["result"], "TIMED_OUT");
    let left_running: uuid::Uuid = report["runPlanJobId"].as_str().unwrap().parse().unwrap();
    let job = service.client.get_run_plan_job(left_running).await.unwrap();
    assert!(!job.status.unwrap().is_terminal(), "without --cancel-on-exit the run goes on");

    let output =
        gate(home.path(), &service, &["Slow", "--timeout", "1s", "--no-fail-on-timeout", "--cancel-on-exit"]).await;
    assert_exit(&output, 0);
    assert!(stderr(&output).contains("warning: gate TIMED_OUT"), "{}", stderr(&output));
    let cancelled: uuid::Uuid = json(&output)["runPlanJobId"].as_str().unwrap().parse().unwrap();
    let status = service.client.get_run_plan_job(cancelled).await.unwrap().status.unwrap().to_string();
    assert!(status == "CANCELLING" || status == "CANCELLED", "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flaky_checks_are_listed_apart_from_failures_and_still_count_against_the_verdict() {
    // The seeded nightly plan: three iterations of each test case, one of which disagrees with
    // itself on a check (a booking not saved on one of its calls).
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let markdown = home.path().join("gate.md");
    let output = gate(home.path(), &service, &[SEEDED_PLAN, "--markdown", markdown.to_str().unwrap()]).await;
    let report = json(&output);
    let flaky = report["flakyChecks"].as_array().unwrap();
    assert!(!flaky.is_empty(), "{report:#}");
    for check in flaky {
        let (failed, judged) = (check["failed"].as_u64().unwrap(), check["judged"].as_u64().unwrap());
        assert!(failed > 0 && failed < judged, "some iterations failed, not all: {check:#}");
        // It still counts: the check's pass rate over the run is below 100 %.
        let pooled = report["verdict"]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["metricDefinitionId"] == check["metricDefinitionId"])
            .unwrap();
        assert!(pooled["passedSims"].as_u64() < pooled["evaluatedSims"].as_u64(), "{pooled:#}");
    }
    let md = std::fs::read_to_string(&markdown).unwrap();
    let section = md.split("**Flaky**").nth(1).unwrap_or_else(|| panic!("no flaky section: {md}"));
    assert!(md.find("**Flaky**") > md.find("**Failures**").or(Some(0)), "{md}");
    assert!(section.contains("they still count against the verdict"), "{md}");
    let first = flaky[0]["metricName"].as_str().unwrap();
    assert!(section.contains(first) && section.contains("failed 1 of 3 iterations"), "{md}");

    let table = gate(home.path(), &service, &[SEEDED_PLAN, "--output", "table"]).await;
    let text = stdout(&table);
    assert!(text.contains("FLAKY    iterations disagree (they still count against the verdict)"), "{text}");
    assert!(text.contains("  ~ ") && text.contains(first), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_json_report_carries_each_simulations_transcript_unless_told_not_to() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let always = duration_check(&service.client, true).await;
    create_plan(&service.client, &plan_input("With transcripts", Some((&always, 100.0)), 1)).await;
    let output = gate(home.path(), &service, &["With transcripts"]).await;
    assert_exit(&output, 0);
    let report = json(&output);
    let sim = &report["simulations"][0];
    let turns = sim["transcript"].as_array().unwrap_or_else(|| panic!("a transcript: {sim}"));
    assert!(turns.len() >= 2, "{sim}");
    let call = service.client.call_transcript(sim["callId"].as_str().unwrap().parse().unwrap()).await.unwrap();
    assert_eq!(turns.len(), call.entries.len(), "every turn of the call");
    for (turn, entry) in turns.iter().zip(&call.entries) {
        assert_eq!(turn["text"], entry.text.as_str());
        assert_eq!(turn["startOffsetMs"], entry.start_offset_ms);
        assert_eq!(turn["endOffsetMs"], entry.end_offset_ms);
        assert!(turn["role"].is_string(), "{turn}");
    }

    let output = gate(home.path(), &service, &["With transcripts", "--no-transcripts"]).await;
    assert_exit(&output, 0);
    assert!(json(&output)["simulations"][0].get("transcript").is_none(), "left out");
}

/// Piped, as in a CI log, the gate prints the summary people read, not a JSON document; `-o
/// json` asks for the document.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_piped_gate_prints_the_summary_unless_asked_for_json() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let always = duration_check(&service.client, true).await;
    create_plan(&service.client, &plan_input("Piped gate", Some((&always, 100.0)), 1)).await;
    let output = run(against(home.path(), &service).args(["gate", "Piped gate"])).await;
    assert_exit(&output, 0);
    let text = stdout(&output);
    assert!(text.starts_with("gate PASSED · run plan job "), "{text}");
    assert!(serde_json::from_str::<serde_json::Value>(&text).is_err(), "not a JSON document:\n{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simulations_the_judge_could_not_score_are_named_with_its_words() {
    use switchboard::api::model::{CalculationType, MetricDefinitionInput, MetricType};
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    // A yes/no check the offline judge cannot decide from the agent's words: it abstains, and
    // the service says only "Only 0 of 1 simulations were scored".
    let input = MetricDefinitionInput {
        name: Some("Sounds sincere".into()),
        metric_type: Some(MetricType::Boolean),
        calculation_type: Some(CalculationType::LlmJudge),
        llm_prompt: Some("Did the agent sound sincere and warm throughout?".into()),
        ..Default::default()
    };
    let slug = service.client.create_metric_definition(&input).await.unwrap().slug.unwrap();
    // A check that passes on every call: its result stays visible beside the one not scored.
    let always = duration_check(&service.client, true).await;
    let mut plan = plan_input("Undecidable", Some((&slug, 80.0)), 1);
    plan.metrics.get_or_insert_default().push(switchboard::api::model::MetricReference::by_slug(&always));
    create_plan(&service.client, &plan).await;
    let output = gate(home.path(), &service, &["Undecidable"]).await;
    assert_exit(&output, 1);
    let report = json(&output);
    let sims = report["simulations"].as_array().unwrap();
    assert!(!sims.is_empty(), "{report:#}");
    for sim in sims {
        assert_eq!(sim["outcome"], "NOT_EVALUATED", "{sim:#}");
        assert!(sim["invalidation"].is_null() && sim["errorMessage"].is_null(), "no reason from the service: {sim:#}");
        let unscored = sim["unscoredChecks"].as_array().unwrap_or_else(|| panic!("unscoredChecks: {sim:#}"));
        let sincere =
            unscored.iter().find(|c| c["metricName"] == "Sounds sincere").unwrap_or_else(|| panic!("{sim:#}"));
        assert_eq!(sincere["captureStatus"], "DATA_MISSING", "{sincere:#}");
        assert!(!sincere["reasoning"].as_str().unwrap_or_default().is_empty(), "the judge's words: {sincere:#}");
        let judged = sim["judgedChecks"].as_array().unwrap_or_else(|| panic!("judgedChecks: {sim:#}"));
        assert!(judged.iter().any(|c| c["metricName"] == "Call lasted" && c["passed"] == true), "{sim:#}");
    }
    let jobs = report["runPlanJobId"].as_str().unwrap().to_owned();
    // The summary a CI log shows names them under NOT SCORED, with the judge's words.
    let reasoning = sims[0]["unscoredChecks"][0]["reasoning"].as_str().unwrap();
    let opening: String = reasoning.split_whitespace().take(5).collect::<Vec<_>>().join(" ");
    let (md, xml) = (home.path().join("gate.md"), home.path().join("junit.xml"));
    let (md_path, xml_path) = (md.to_str().unwrap(), xml.to_str().unwrap());
    let args = ["Undecidable", "--output", "table", "--markdown", md_path, "--junit", xml_path];
    let output = gate(home.path(), &service, &args).await;
    assert_exit(&output, 1);
    let text = stdout(&output);
    let section = text.split("NOT SCORED").nth(1).unwrap_or_else(|| panic!("no NOT SCORED section: {text}"));
    let said = format!("not scored: Sounds sincere ({opening}");
    assert!(section.contains(&said) && section.contains("passed: Call lasted"), "{section}");
    // The Markdown and JUnit reports say why too, and what passed.
    let md = std::fs::read_to_string(&md).unwrap();
    let section = md.split("### Not scored").nth(1).unwrap_or_else(|| panic!("no Not scored section: {md}"));
    assert!(section.contains(&said) && section.contains("passed: Call lasted"), "{section}");
    let xml = std::fs::read_to_string(&xml).unwrap();
    assert_eq!(schema_errors(&xml), Vec::<String>::new(), "{xml}");
    assert!(xml.contains(&format!("<skipped message=\"not evaluated: Sounds sincere: {opening}")), "{xml}");
    assert!(xml.contains(&format!("<skipped message=\"passed on this call, not counted: {said}")), "{xml}");
    // `job get` says the same in its WHY.
    let output = run(against(home.path(), &service).args(["job", "get", &jobs, "--output", "table"])).await;
    let text = stdout(&output);
    assert!(text.contains(&said) && text.contains("passed: Call lasted"), "{text}");
}
