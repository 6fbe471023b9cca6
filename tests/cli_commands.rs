//! Every headless read and write against a real seeded local service: each output format,
//! each exit code, input files with their errors, `run`, `job watch`, `api`, `completion`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

#[path = "support/cli.rs"]
mod cli;
mod support;

use cli::*;
use serde_json::Value;
use support::{Service, start};

async fn sb(home: &std::path::Path, service: &Service, args: &[&str]) -> std::process::Output {
    run(against(home, service).args(args)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_list_prints_a_table_json_jsonl_and_plain_from_one_definition() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let table = sb(home.path(), &service, &["plan", "list", "--output", "table"]).await;
    assert_exit(&table, 0);
    let text = stdout(&table);
    let header = text.lines().next().unwrap();
    assert!(header.starts_with("ID") && header.contains("NAME") && header.contains("ITERATIONS"), "{text}");
    assert!(text.contains(SEEDED_PLAN), "{text}");

    // Piped, `auto` is JSON in the interface's own shape.
    let auto = sb(home.path(), &service, &["plan", "list"]).await;
    let body = json(&auto);
    assert_eq!(body["data"][0]["name"], SEEDED_PLAN);
    assert_eq!(body["pagination"]["hasMore"], false);
    assert_eq!(body["pagination"]["total"], 1);

    let jsonl = sb(home.path(), &service, &["plan", "list", "-o", "jsonl"]).await;
    let lines: Vec<Value> = stdout(&jsonl).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["name"], SEEDED_PLAN);

    let plain = sb(home.path(), &service, &["plan", "list", "-o", "plain"]).await;
    let fields: Vec<String> = stdout(&plain).lines().next().unwrap().split('\t').map(str::to_string).collect();
    assert_eq!(fields[1], SEEDED_PLAN);
    assert!(fields[0].parse::<uuid::Uuid>().is_ok(), "{fields:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_walk_pages_up_to_the_limit_and_say_where_to_go_on() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let all = json(&sb(home.path(), &service, &["metric", "list", "--limit", "500"]).await);
    let total = all["data"].as_array().unwrap().len();
    assert!(total >= 14, "{total}");
    let two = json(&sb(home.path(), &service, &["metric", "list", "--limit", "2"]).await);
    assert_eq!(two["data"].as_array().unwrap().len(), 2);
    assert_eq!(two["pagination"]["hasMore"], true);
    let cursor = two["pagination"]["nextCursor"].as_str().unwrap().to_string();
    let next = json(&sb(home.path(), &service, &["metric", "list", "--limit", "2", "--cursor", &cursor]).await);
    assert_ne!(next["data"][0]["id"], two["data"][0]["id"]);
    let paged = json(&sb(home.path(), &service, &["api", "GET", "/v1/metric/definitions?limit=3", "--paginate"]).await);
    assert_eq!(paged["data"].as_array().unwrap().len(), total, "--paginate follows every cursor");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_get_finds_by_id_or_exact_name_and_not_found_is_exit_4() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let by_name = json(&sb(home.path(), &service, &["plan", "get", SEEDED_PLAN]).await);
    let id = by_name["data"]["id"].as_str().unwrap().to_string();
    let by_id = json(&sb(home.path(), &service, &["plan", "get", &id]).await);
    assert_eq!(by_id, by_name);
    let table = stdout(&sb(home.path(), &service, &["plan", "get", &id, "-o", "table"]).await);
    assert!(
        table.contains("METRICS (bar: minPassRate") && table.contains("task_completion: 80 % (default)"),
        "{table}"
    );
    assert!(table.contains("SCHEDULE  none (runs when started)\nNEXT RUN  -"), "{table}");
    // A scheduled plan shows when it next runs.
    let key = format!("Bearer {}", service.running.api_key.expose());
    let schedule = serde_json::json!({"schedule": {"type": "daily", "time": "09:00", "timezone": "Europe/Berlin"}});
    let path = format!("/v1/simulation/plan/{id}");
    let body = Some(serde_json::to_vec(&schedule).unwrap());
    let (status, _, _) = support::raw(&service.base_url(), reqwest::Method::PUT, &path, Some(&key), body).await;
    assert_eq!(status, 200);
    let scheduled = json(&sb(home.path(), &service, &["plan", "get", &id]).await);
    let next = scheduled["data"]["nextRunAt"].as_str().expect("a next run").to_owned();
    let table = stdout(&sb(home.path(), &service, &["plan", "get", &id, "-o", "table"]).await);
    assert!(
        table.contains("SCHEDULE  daily 09:00 Europe/Berlin") && table.contains(&format!("NEXT RUN  {next}")),
        "{table}"
    );

    let missing = sb(home.path(), &service, &["plan", "get", "No such plan"]).await;
    assert_exit(&missing, 4);
    assert!(stderr(&missing).starts_with("error: no run plan is named \"No such plan\""), "{}", stderr(&missing));
    let missing = sb(home.path(), &service, &["plan", "get", &uuid::Uuid::new_v4().to_string()]).await;
    assert_exit(&missing, 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_create_reads_yaml_and_names_the_field_and_line_of_each_error() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let good = format!(
        "# a nightly plan\nname: From YAML\ndirection: INBOUND\nmaxSimulationDurationSeconds: 120\nflows:\n  - id: {RESCHEDULE_FLOW}\n    happyPath: true\nagentEndpoints:\n  - id: {BRIGHTSMILE_ENDPOINT}\nmetrics:\n  - slug: task_completion\n    minPassRate: 90\n"
    );
    let file = home.path().join("plan.yaml");
    std::fs::write(&file, &good).unwrap();
    let created = sb(home.path(), &service, &["plan", "create", "-f", file.to_str().unwrap()]).await;
    assert_exit(&created, 0);
    let id: uuid::Uuid = json(&created)["data"]["id"].as_str().unwrap().parse().unwrap();
    let plan = service.client.get_run_plan(id).await.unwrap();
    assert_eq!(plan.plan.metrics.unwrap()[0].min_pass_rate, Some(90.0));

    // Locally checked: the rules of the input type, each with its line.
    let bad = good
        .replace("minPassRate: 90", "minPassRate: 120")
        .replace("happyPath: true", "happyPath: true\n    sideQuest: yes");
    std::fs::write(&file, &bad).unwrap();
    let refused = sb(home.path(), &service, &["plan", "create", "-f", file.to_str().unwrap()]).await;
    assert_exit(&refused, 2);
    let error = stderr(&refused);
    let path = file.to_str().unwrap();
    assert!(error.contains(&format!("{path}:8: unknown field flows[0].sideQuest")), "{error}");
    assert!(error.contains(&format!("{path}:13: metrics[0].minPassRate must be between 0 and 100")), "{error}");

    // Decoding errors too, and as the spec's error body with --output json.
    std::fs::write(&file, good.replace("maxSimulationDurationSeconds: 120", "maxSimulationDurationSeconds: soon"))
        .unwrap();
    let refused = sb(home.path(), &service, &["plan", "create", "-f", path, "--output", "json"]).await;
    assert_exit(&refused, 2);
    let body: Value = serde_json::from_slice(&refused.stderr).unwrap();
    assert_eq!(body["param"], "maxSimulationDurationSeconds");
    assert!(body["message"].as_str().unwrap().contains(&format!("{path}:4:")), "{body}");

    // Checked by the service: an id that does not exist, pointed at its line.
    std::fs::write(&file, good.replace(BRIGHTSMILE_ENDPOINT, &uuid::Uuid::new_v4().to_string())).unwrap();
    let refused = sb(home.path(), &service, &["plan", "create", "-f", path]).await;
    assert_exit(&refused, 2);
    assert!(
        stderr(&refused).contains(&format!("{path}:9:")) && stderr(&refused).contains("agentEndpoints[0].id"),
        "{}",
        stderr(&refused)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_prints_the_job_id_and_job_commands_follow_it_to_its_verdict() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let always = duration_check(&service.client, true).await;
    create_plan(&service.client, &plan_input("Watched", Some((&always, 100.0)), 2)).await;
    let started =
        sb(home.path(), &service, &["run", "Watched", "--var", "patientName=Ada Lovelace", "-o", "plain"]).await;
    assert_exit(&started, 0);
    let id = stdout(&started).trim().to_string();
    let job_id: uuid::Uuid = id.parse().unwrap();

    let watched = sb(home.path(), &service, &["job", "watch", &id]).await;
    assert_exit(&watched, 0);
    let job = json(&watched);
    assert_eq!(job["data"]["status"], "COMPLETED");
    assert_eq!(job["data"]["verdict"]["passed"], true);
    let progress = stderr(&watched);
    assert!(
        progress.lines().any(|l| l.contains("COMPLETED · 2/2 ended")),
        "one plain line per change when piped:\n{progress}"
    );

    // The runtime value reached the caller's lines.
    let call = job["data"]["simulationJobs"][0]["callId"].as_str().unwrap().parse().unwrap();
    let transcript = service.client.call_transcript(call).await.unwrap();
    assert!(transcript.entries.iter().any(|e| e.text.contains("Ada Lovelace")), "{transcript:?}");

    let table = stdout(&sb(home.path(), &service, &["job", "get", &id, "-o", "table"]).await);
    assert!(
        table.contains("VERDICT  PASSED") && table.contains("SIMULATIONS") && table.contains("Call lasted"),
        "{table}"
    );
    let listed = json(&sb(home.path(), &service, &["job", "list", "--plan", "Watched", "--status", "completed"]).await);
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    assert_eq!(listed["data"][0]["simulationRunPlanJobId"], id.as_str());
    let table = stdout(&sb(home.path(), &service, &["job", "list", "-o", "table"]).await);
    assert!(table.lines().any(|l| l.starts_with(&id) && l.contains("PASSED") && l.contains("Watched")), "{table}");

    // Cancelling an ended job is refused by the service: exit 2 (1 is only for a FAILED run).
    let refused = sb(home.path(), &service, &["job", "cancel", &id]).await;
    assert_exit(&refused, 2);
    assert!(stderr(&refused).contains("400"), "{}", stderr(&refused));
    assert_exit(&sb(home.path(), &service, &["job", "get", &uuid::Uuid::new_v4().to_string()]).await, 4);

    // run --wait ends with the verdict.
    let waited = sb(home.path(), &service, &["run", "Watched", "--wait", "-o", "table"]).await;
    assert_exit(&waited, 0);
    assert!(stdout(&waited).contains("VERDICT  PASSED"), "{}", stdout(&waited));
    assert!(service.client.get_run_plan_job(job_id).await.unwrap().verdict.unwrap().passed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issues_are_listed_filed_and_updated_with_flags_checked() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let open = json(&sb(home.path(), &service, &["issue", "list", "--status", "open"]).await);
    let issues = open["data"].as_array().unwrap();
    assert!(!issues.is_empty() && issues.iter().all(|i| i["status"] == "OPEN"), "{open}");
    // Newest first, as the help says: by when each was raised.
    let all = json(&sb(home.path(), &service, &["issue", "list"]).await);
    let raised: Vec<&str> = all["data"].as_array().unwrap().iter().map(|i| i["createdAt"].as_str().unwrap()).collect();
    assert!(raised.len() > 2 && raised.windows(2).all(|w| w[0] >= w[1]), "newest first: {raised:?}");
    let call = support::seed("calls")[0]["id"].as_str().unwrap().to_string();
    let filed = sb(
        home.path(),
        &service,
        &["issue", "create", "--title", "Agent skipped verification", "--severity", "high", "--evidence", &call],
    )
    .await;
    assert_exit(&filed, 0);
    let issue = json(&filed)["data"].clone();
    assert_eq!(
        (issue["severity"].as_str(), issue["evidence"][0]["callId"].as_str()),
        (Some("HIGH"), Some(call.as_str()))
    );
    let id = issue["id"].as_str().unwrap();
    let updated = json(&sb(home.path(), &service, &["issue", "update", id, "--status", "resolved"]).await);
    assert_eq!(updated["data"]["status"], "RESOLVED");
    let table = stdout(&sb(home.path(), &service, &["issue", "get", id, "-o", "table"]).await);
    assert!(table.contains("EVIDENCE") && table.contains(&call), "{table}");
    // The evidence is its kind, its call's whole id and when it was observed, as sent.
    let observed = issue["evidence"][0]["observedAt"].as_str().unwrap_or("—");
    let evidence: Vec<&str> = table.lines().skip_while(|l| *l != "EVIDENCE").skip(1).take(2).collect();
    assert_eq!(
        evidence,
        [format!("KIND  ID{}  OBSERVED", " ".repeat(call.len() - 2)), format!("call  {call}  {observed}")]
    );

    let refused = sb(home.path(), &service, &["issue", "create", "--title", "x", "--severity", "urgent"]).await;
    assert_exit(&refused, 2);
    assert!(stderr(&refused).contains("--severity is one of LOW, MEDIUM, HIGH, CRITICAL"), "{}", stderr(&refused));
    let read_only = sb(home.path(), &service, &["--read-only", "issue", "create", "--title", "x"]).await;
    assert_exit(&read_only, 3);
    assert_exit(&sb(home.path(), &service, &["issue", "get", &uuid::Uuid::new_v4().to_string()]).await, 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metric_values_call_and_bench_reads() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let metrics = stdout(&sb(home.path(), &service, &["metric", "list", "-o", "jsonl", "--limit", "100"]).await);
    assert!(metrics.lines().any(|l| serde_json::from_str::<Value>(l).unwrap()["slug"] == "call_duration"));
    let job = support::seed("metric_collection_jobs")[0]["id"].as_str().unwrap().to_string();
    let values = json(&sb(home.path(), &service, &["metric", "values", &job, "--status", "all"]).await);
    assert!(values["data"].as_array().is_some_and(|g| !g.is_empty() && g[0]["values"].is_array()), "{values}");
    let table = stdout(&sb(home.path(), &service, &["metric", "values", &job, "-o", "table"]).await);
    assert!(table.starts_with("METRIC") && table.contains("SUCCESS"), "{table}");

    let call = support::seed("calls")[0]["id"].as_str().unwrap().to_string();
    let with_transcript = json(&sb(home.path(), &service, &["call", "get", &call, "--transcript"]).await);
    assert_eq!(with_transcript["data"]["id"], call.as_str());
    assert!(!with_transcript["transcript"]["entries"].as_array().unwrap().is_empty());
    let table = stdout(&sb(home.path(), &service, &["call", "get", &call, "--transcript", "-o", "table"]).await);
    assert!(table.contains("TRANSCRIPT") && table.contains("agent"), "{table}");

    let suites = json(&sb(home.path(), &service, &["bench", "suites"]).await);
    assert_eq!(suites["data"][0]["suite"], "voice-agent-reception-v1");
    let samples = stdout(
        &sb(
            home.path(),
            &service,
            &[
                "bench",
                "samples",
                "acme-voice-pro",
                "--suite",
                "voice-agent-reception-v1",
                "--condition",
                "quiet-room",
                "-o",
                "plain",
            ],
        )
        .await,
    );
    assert!(!samples.is_empty() && samples.lines().all(|l| l.starts_with("quiet-room\t")), "{samples}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_reaches_any_route_and_every_failure_has_its_exit_code() {
    let service = start(true).await;
    let home = tempfile::tempdir().unwrap();
    let health = json(&sb(home.path(), &service, &["api", "GET", "/v1/health"]).await);
    assert_eq!(health["authenticated"], true);
    let body = home.path().join("issue.json");
    std::fs::write(&body, r#"{"title": "From api", "severity": "LOW"}"#).unwrap();
    let created = sb(home.path(), &service, &["api", "POST", "/v1/issue", "-d", &format!("@{}", body.display())]).await;
    assert_exit(&created, 0);
    assert_eq!(json(&created)["data"]["title"], "From api");

    // 2: refused (400) before anything ran; the spec's error body on stderr with --output json.
    let refused = sb(home.path(), &service, &["api", "POST", "/v1/issue", "-d", "{}", "--output", "json"]).await;
    assert_exit(&refused, 2);
    let error: Value = serde_json::from_slice(&refused.stderr).unwrap();
    assert_eq!((error["type"].as_str(), error["param"].as_str()), (Some("validation"), Some("title")));
    // 2: usage.
    assert_exit(&sb(home.path(), &service, &["plan", "list", "--no-such-flag"]).await, 2);
    // 3: the key is refused.
    let wrong = run(switchboard(home.path())
        .args(["health", "--base-url", &service.base_url()])
        .env("SWITCHBOARD_API_KEY", "sk-wrong-7f6e5d"))
    .await;
    assert_exit(&wrong, 3);
    assert!(stderr(&wrong).contains("401") && !stderr(&wrong).contains("sk-wrong-7f6e5d"), "{}", stderr(&wrong));
    // 4: not found.
    assert_exit(&sb(home.path(), &service, &["api", "GET", "/v1/nothing-here"]).await, 4);
    // 5: nothing listens there.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let unreachable =
        run(switchboard(home.path()).args(["plan", "list", "--base-url", &closed_url]).env("SWITCHBOARD_API_KEY", "k"))
            .await;
    assert_exit(&unreachable, 5);
    assert!(stderr(&unreachable).contains("cannot reach the service"), "{}", stderr(&unreachable));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_lists_exit_codes_completion_prints_a_script_and_the_console_needs_a_terminal() {
    let home = tempfile::tempdir().unwrap();
    let help = run(switchboard(home.path()).arg("--help")).await;
    assert_exit(&help, 0);
    for word in ["gate", "plan", "job", "api", "login", "Exit codes: 0 ok", "6 gate TIMED_OUT"] {
        assert!(stdout(&help).contains(word), "{word}: {}", stdout(&help));
    }
    let completion = run(switchboard(home.path()).args(["completion", "bash"])).await;
    assert_exit(&completion, 0);
    assert!(stdout(&completion).contains("_switchboard") && stdout(&completion).contains("gate"));

    let console = run(&mut switchboard(home.path())).await;
    assert_exit(&console, 2);
    assert!(stderr(&console).contains("the console needs a terminal"), "{}", stderr(&console));
    assert!(!stderr(&console).contains("os error"), "{}", stderr(&console));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_runs_a_command_on_a_throwaway_seeded_service() {
    let home = tempfile::tempdir().unwrap();
    let listed = json(&run(switchboard(home.path()).args(["--embedded", "plan", "list"])).await);
    assert_eq!(listed["data"][0]["name"], SEEDED_PLAN);
    // Throwaway: what one command writes, the next does not see.
    let filed = run(switchboard(home.path()).args(["--embedded", "issue", "create", "--title", "Gone after"])).await;
    assert_exit(&filed, 0);
    let issues = json(&run(switchboard(home.path()).args(["--embedded", "issue", "list", "--limit", "100"])).await);
    assert!(issues["data"].as_array().unwrap().iter().all(|i| i["title"] != "Gone after"));
    assert!(!home.path().join("data").join("switchboard").join("service").exists(), "nothing is kept in the data dir");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn job_watch_wakes_on_the_jobs_events_not_only_on_its_poll() {
    // Slow enough that the job still runs when the watch first reads it.
    let dir = tempfile::tempdir().unwrap();
    let options = switchboard::service::Options {
        sim_speed: switchboard::service::SimSpeed::Factor(20.0),
        ..support::options(dir.path(), true)
    };
    let service = support::start_with(options, dir).await;
    let home = tempfile::tempdir().unwrap();
    // An hour between polls: only the event stream can tell the watch that the job ended.
    let config = home.path().join("config").join("switchboard");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "poll_interval_ms = 3600000\n").unwrap();
    let always = duration_check(&service.client, true).await;
    let plan = create_plan(&service.client, &plan_input("Woken", Some((&always, 100.0)), 2)).await;
    let run = switchboard::api::model::RunRequest { plan_id: Some(plan), ..Default::default() };
    let id = service.client.run(&run).await.unwrap().simulation_run_plan_job_id.to_string();
    let watched =
        tokio::time::timeout(std::time::Duration::from_secs(120), sb(home.path(), &service, &["job", "watch", &id]))
            .await
            .expect("the watch ends with the job, well before its next poll");
    assert_exit(&watched, 0);
    assert_eq!(json(&watched)["data"]["status"], "COMPLETED");
    assert!(stderr(&watched).contains("RUNNING"), "the watch saw the job running first:\n{}", stderr(&watched));
}
