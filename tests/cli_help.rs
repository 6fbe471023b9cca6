//! The headless face as a newcomer meets it (issue 30): help like `gh`'s on every command,
//! `--json FIELDS` and `--jq` on every read, colour only where it is wanted, and errors that say
//! what an argument wants. The real binary, against a real seeded local service.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use clap::CommandFactory;
use cli::*;
use support::{Service, start};

async fn sb(home: &std::path::Path, service: &Service, args: &[&str]) -> std::process::Output {
    run(against(home, service).args(args)).await
}

/// Every command's path under `switchboard`, from the command line's own definition.
fn command_paths(command: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
    for sub in command.get_subcommands().filter(|c| c.get_name() != "help") {
        let mut path = prefix.to_vec();
        path.push(sub.get_name().to_string());
        out.push(path.clone());
        command_paths(sub, &path, out);
    }
}

/// Whether a help section lists `flag` (at the start of a line, or after its short form).
fn defines(section: &str, flag: &str) -> bool {
    section
        .lines()
        .map(str::trim_start)
        .any(|l| l.starts_with(flag) || l.starts_with('-') && l.contains(&format!(", {flag}")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_help_has_examples_exit_codes_and_inherited_flags_apart() {
    let mut paths = Vec::new();
    command_paths(&switchboard::cli::Cli::command(), &[], &mut paths);
    assert!(paths.len() > 30, "{paths:?}");
    let home = tempfile::tempdir().unwrap();
    for path in paths {
        let mut args = path.clone();
        args.push("--help".into());
        let help = run(switchboard(home.path()).args(&args)).await;
        assert_exit(&help, 0);
        let text = stdout(&help);
        let name = path.join(" ");
        assert!(text.contains("Examples:\n  $ switchboard "), "`{name} --help` has examples:\n{text}");
        assert!(text.contains("Exit codes: 0 ok"), "`{name} --help` lists the exit codes:\n{text}");
        let (own, inherited) = text.split_once("Inherited flags:").unwrap_or_else(|| panic!("{name}:\n{text}"));
        for global in ["--base-url", "--profile", "--embedded", "--output", "--color"] {
            assert!(!defines(own, global), "`{name}`: {global} sits with the command's own flags:\n{own}");
            assert!(defines(inherited, global), "`{name}`: {global} is listed as inherited:\n{inherited}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_fields_and_jq_select_from_every_read() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let listed = sb(home.path(), &service, &["issue", "list", "--json", "id,title", "-o", "table"]).await;
    assert_exit(&listed, 0);
    let body = json(&listed);
    let first = body["data"][0].as_object().unwrap();
    assert_eq!(first.keys().collect::<Vec<_>>(), ["id", "title"], "only the named fields: {body}");
    assert!(body["pagination"]["total"].as_u64().unwrap() >= 5, "a list keeps its shape: {body}");

    let titles = sb(home.path(), &service, &["issue", "list", "--jq", ".data[].title"]).await;
    assert_exit(&titles, 0);
    let lines: Vec<String> = stdout(&titles).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), body["data"].as_array().unwrap().len());
    assert_eq!(lines[0], body["data"][0]["title"].as_str().unwrap(), "strings print bare");

    let plan = sb(home.path(), &service, &["plan", "get", SEEDED_PLAN, "--json", "name", "--jq", ".data.name"]).await;
    assert_exit(&plan, 0);
    assert_eq!(stdout(&plan), format!("{SEEDED_PLAN}\n"));
    let health = sb(home.path(), &service, &["health", "--jq", ".authenticated"]).await;
    assert_eq!(stdout(&health), "true\n");

    let unknown = sb(home.path(), &service, &["issue", "list", "--json", "id,titel,sevrity"]).await;
    assert_exit(&unknown, 2);
    let error = stderr(&unknown);
    assert!(error.contains("titel, sevrity") && error.contains("severity") && error.contains("title"), "{error}");
    let bad = sb(home.path(), &service, &["metric", "list", "--jq", ".data["]).await;
    assert_exit(&bad, 2);
    assert!(stderr(&bad).contains("--jq"), "{}", stderr(&bad));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colour_is_on_only_when_asked_or_on_a_terminal() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let plan = sb(home.path(), &service, &["plan", "list", "--jq", ".data[0].id"]).await;
    let plan = stdout(&plan).trim().to_string();
    let job = sb(home.path(), &service, &["run", &plan, "-o", "plain"]).await;
    assert_exit(&job, 0);
    let id = stdout(&job).trim().to_string();
    assert_exit(&sb(home.path(), &service, &["job", "watch", &id]).await, 0);
    let piped = sb(home.path(), &service, &["job", "get", &id, "-o", "table"]).await;
    assert!(!stdout(&piped).contains('\u{1b}'), "piped, no colour:\n{}", stdout(&piped));
    assert!(stdout(&piped).contains("VERDICT  "), "{}", stdout(&piped));
    let forced = sb(home.path(), &service, &["job", "get", &id, "-o", "table", "--color", "always"]).await;
    let forced = stdout(&forced);
    assert!(forced.contains("VERDICT  \u{1b}["), "--color always colours the verdict:\n{forced}");
    let no_color =
        run(against(home.path(), &service).env("NO_COLOR", "1").args(["job", "get", &id, "-o", "table"])).await;
    assert!(!stdout(&no_color).contains('\u{1b}'), "NO_COLOR");
    let json_forced = sb(home.path(), &service, &["job", "get", &id, "-o", "json", "--color", "always"]).await;
    assert!(!stdout(&json_forced).contains('\u{1b}'), "JSON is never coloured");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_arguments_are_refused_in_peoples_words() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let job = sb(home.path(), &service, &["job", "get", "not-a-uuid"]).await;
    assert_exit(&job, 2);
    let error = stderr(&job);
    assert!(error.contains("job id") && !error.contains("found `n`"), "{error}");
    let zero = sb(home.path(), &service, &["job", "list", "--limit", "0"]).await;
    assert_exit(&zero, 2);
    assert!(stderr(&zero).contains("1 or more"), "{}", stderr(&zero));
    let word = sb(home.path(), &service, &["issue", "list", "--limit", "ten"]).await;
    assert_exit(&word, 2);
    assert!(!stderr(&word).contains("invalid digit"), "{}", stderr(&word));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watching_an_ended_job_shows_its_counts_without_a_rate() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let job = sb(home.path(), &service, &["run", SEEDED_PLAN, "-o", "plain"]).await;
    assert_exit(&job, 0);
    let id = stdout(&job).trim().to_string();
    assert_exit(&sb(home.path(), &service, &["job", "watch", &id]).await, 0);
    let again = sb(home.path(), &service, &["job", "watch", &id]).await;
    assert_exit(&again, 0);
    let progress = stderr(&again);
    assert!(progress.contains("ended"), "the counts are shown:\n{progress}");
    assert!(!progress.contains("/s") && !progress.contains("ETA"), "no rate for a job that had ended:\n{progress}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sim_speed_on_a_service_that_is_not_throwaway_is_refused() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    for command in ["gate", "run"] {
        let output = sb(home.path(), &service, &[command, SEEDED_PLAN, "--sim-speed", "20"]).await;
        assert_exit(&output, 2);
        assert!(
            stderr(&output).contains("--sim-speed") && stderr(&output).contains("--embedded"),
            "{}",
            stderr(&output)
        );
    }
    let jobs = sb(home.path(), &service, &["job", "list", "--jq", ".data | length"]).await;
    assert_eq!(stdout(&jobs), "0\n", "nothing ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_prints_a_list_as_json_lines_or_a_table_as_asked() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let route = "/v1/metric/definitions?limit=3";
    let all = json(&sb(home.path(), &service, &["api", "GET", route, "--paginate"]).await);
    let count = all["data"].as_array().unwrap().len();
    let lines = sb(home.path(), &service, &["api", "GET", route, "--paginate", "-o", "jsonl"]).await;
    assert_exit(&lines, 0);
    let items: Vec<serde_json::Value> = stdout(&lines).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(items.len(), count, "one line per item of every page");
    assert_eq!(items[0]["id"], all["data"][0]["id"]);
    let table = sb(home.path(), &service, &["api", "GET", route, "-o", "table"]).await;
    assert_exit(&table, 0);
    let text = stdout(&table);
    let header: Vec<&str> = text.lines().next().unwrap().split_whitespace().collect();
    assert!(header.contains(&"id") && header.contains(&"slug"), "members as columns:\n{text}");
    assert_eq!(text.lines().count(), 4, "a header and three rows:\n{text}");
    let one = sb(home.path(), &service, &["api", "GET", "/v1/health", "-o", "table"]).await;
    assert!(stdout(&one).contains("authenticated  true"), "{}", stdout(&one));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_file_lists_all_its_errors_at_once_in_peoples_words() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("plan.yaml");
    let plan = format!(
        "name: Broken\ndirection: INBOUND\niterationCount: three\nmaxSimulationDurationSeconds: [60]\n\
         flows:\n  - id: {RESCHEDULE_FLOW}\n    happyPath: true\nagentEndpoints:\n  - id: {BRIGHTSMILE_ENDPOINT}\n\
         metrics:\n  - slug: call_duration\n    minPassRate: 120\n"
    );
    std::fs::write(&file, plan).unwrap();
    let output = sb(home.path(), &service, &["plan", "create", "-f", file.to_str().unwrap()]).await;
    assert_exit(&output, 2);
    let error = stderr(&output);
    assert!(error.contains("plan.yaml:3: iterationCount: must be a whole number, not \"three\""), "{error}");
    assert!(error.contains("plan.yaml:4: maxSimulationDurationSeconds: must be"), "{error}");
    assert!(error.contains("plan.yaml:12: metrics[0].minPassRate"), "every error at once:\n{error}");
    assert!(!error.contains("expected i64") && !error.contains("is required"), "{error}");
}

/// The field-selection examples of `docs/cli.md`, run as written by a shell against the seeded
/// service: each exits 0, and the `--json` and `--jq` ones print what they select.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_field_selection_examples_run_as_written() {
    let service = start(true).await;
    let outputs = support::run_documented_examples(&service, "cli.md", "JSON through [jaq]").await;
    assert_eq!(outputs.len(), 3, "the section runs three commands");
    let issues: serde_json::Value = serde_json::from_str(&outputs[0]).unwrap();
    let first = issues["data"][0].as_object().expect("an issue");
    assert_eq!(first.keys().collect::<Vec<_>>(), ["id", "severity", "title"], "only the fields named");
    assert_eq!(outputs[2].trim(), "Brightsmile reschedule regression");
}
