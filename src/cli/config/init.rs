//! `switchboard init [DIR] [--agent-url URL]`: a starter suite for the user's own agent, one
//! file per kind with every member commented, that `config apply -f DIR` and
//! `gate "Smoke" --embedded --suite DIR` run unchanged; and a CI workflow to copy.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::cli::exit::{Exit, Failure, Outcome};

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Where to write the suite (created; must be empty or absent).
    #[arg(default_value = "suite")]
    pub dir: PathBuf,
    /// Your agent's URL: one HTTP request per turn of the simulated caller (see docs/cli.md).
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8080/turn")]
    pub agent_url: String,
}

/// The plan the suite's gate runs.
pub const PLAN: &str = "Smoke";

pub fn run(args: InitArgs) -> Outcome {
    if args.agent_url.contains('\'') || args.agent_url.contains('\n') || args.agent_url.trim().is_empty() {
        return Err(Failure::invalid("--agent-url", "--agent-url must be one URL (no quotes or line breaks)"));
    }
    let occupied = std::fs::read_dir(&args.dir).map(|mut d| d.next().is_some()).unwrap_or(false);
    if occupied {
        return Err(Failure::invalid(
            "DIR",
            format!("{} is not empty: init writes a new suite and overwrites nothing", args.dir.display()),
        ));
    }
    for (name, text) in files(&args.agent_url) {
        write(&args.dir.join(name), &text)?;
    }
    println!(
        "Wrote a starter suite to {dir}/ for the agent at {url}.\n\
         Try it:   switchboard config diff -f {dir}\n\
         Run it:   switchboard gate {PLAN:?} --embedded --suite {dir}\n\
         CI:       copy {dir}/ci/switchboard.yml to .github/workflows/",
        dir = args.dir.display(),
        url = args.agent_url,
    );
    Ok(Exit::Ok)
}

fn write(path: &Path, text: &str) -> Result<(), Failure> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Failure::io(format!("cannot create {}", dir.display()), e))?;
    }
    std::fs::write(path, text).map_err(|e| Failure::io(format!("cannot write {}", path.display()), e))
}

/// The suite's files, by path under DIR.
pub fn files(agent_url: &str) -> Vec<(&'static str, String)> {
    vec![
        ("agent.yaml", AGENT.replace("AGENT_URL", agent_url)),
        ("personas.yaml", PERSONAS.to_string()),
        ("flows.yaml", FLOWS.to_string()),
        ("metrics.yaml", METRICS.to_string()),
        ("plan.yaml", PLAN_FILE.replace("PLAN_NAME", PLAN)),
        ("ci/switchboard.yml", WORKFLOW.replace("PLAN_NAME", PLAN).replace("AGENT_URL", agent_url)),
    ]
}

const AGENT: &str = r#"# Your agent, and how the simulated caller reaches it: one HTTP request per agent turn.
# `config apply -f DIR` reads every *.yaml here; each document is one resource, named by `name`
# (its identity: rename it and apply makes a new one and prunes the old).
kind: httpRequestDefinition
name: my-agent-turn
url: 'AGENT_URL'          # ${VARIABLE}s are filled from the environment by the CLI
method: POST               # POST, PUT, PATCH or GET
# The body of each request: {{text}} is what the caller just said, {{callId}} the call, {{turn}}
# the agent turn (0 answers the call), {{agent}} the agent's name. Your agent answers
# {"text": "..."} (or reply, message, response).
body: '{"text": "{{text}}", "callId": "{{callId}}", "turn": {{turn}}, "agent": "{{agent}}"}'
headers:
  Content-Type: application/json
  # Authorization: Bearer ${AGENT_TOKEN}   # a secret stays in the environment, never here
---
kind: agent
name: my-agent
displayName: My agent
description: The agent under test, dialled over HTTP.
endpoints:
  - type: PHONE
    value: '+15550100001'            # never dialled: the HTTP request definition is
    direction: INCOMING_AND_OUTGOING
    outboundDialType: HTTP_REQUEST
    outboundDialHttpRequestDefinition: my-agent-turn
"#;

const PERSONAS: &str = r#"# Who calls. Every member but kind, name, accent, gender and language may be left out.
kind: persona
name: sam-rivera
displayName: Sam Rivera
accent: US                 # US, GB, AU, IN, …
gender: MALE               # MALE or FEMALE
language: EN
age: ADULT                 # CHILD, TEENAGER, ADULT, ELDERLY
baseEmotion: NEUTRAL       # CHEERFUL, CONFUSED, FRUSTRATED, RUSHED, ANXIOUS, …
speechPace: NORMAL
backstoryPrompt: You are Sam Rivera, calling on your lunch break to move an appointment.
properties:                # {{customerName}} in a flow's lines is filled from these
  customerName: Sam Rivera
"#;

const FLOWS: &str = r#"# What happens on the call. A scripted flow is a graph of steps the caller follows in
# order; a step's `steps` with several entries are alternatives (the happy path takes the
# first, an ADAPTIVE flow may take another), and `mergeInto` joins a branch back by `ref`.
kind: flow
type: scripted
name: move-appointment
title: Move an appointment
agents: [my-agent]
adherence: LOOSE           # STRICT: the caller goes off script when a checkable expectation fails
branchingMode: DETERMINISTIC
expectations:              # judged after the call by the automatic agent-expectations metric
  - The agent confirms the new appointment time before the call ends.
graph:
  - type: AGENT_TURN       # an AGENT_TURN in words is an expectation, judged after the call
    ref: greet
    content: Agent greets the caller and asks how it can help.
  - type: CUSTOMER_TURN    # what the caller should do; CUSTOMER_VERBATIM_TURN says it word for word
    ref: ask
    content: Hi, this is {{customerName}}. I need to move my appointment to next week.
    steps:
      - type: CUSTOMER_TURN            # the happy path
        ref: morning
        content: Tuesday morning would be perfect.
      - type: CUSTOMER_TURN            # an edge case: a constraint the agent must meet
        ref: evening
        content: I can only come after six in the evening.
        mergeInto: [confirm]
  - type: AGENT_TURN
    ref: confirm
    content: Agent confirms the new time.
  - type: CUSTOMER_TURN
    ref: goodbye
    content: Great, thank you. Goodbye.
---
# An improv flow: the caller improvises from a prompt (needs a caller model, [caller] in
# config.toml, to run; apply and diff take it either way).
kind: flow
type: improv
name: vague-caller
title: A caller who is not sure what they need
agents: [my-agent]
happyPath:
  persona: sam-rivera
  environment: Quiet home  # a seeded simulation environment
  prompt: You want to change something about your booking but are not sure what.
  expectations:
    - The agent asks questions until it knows what the caller wants.
"#;

const METRICS: &str = r#"# How calls are judged. `name` is the metric's slug; plans name metrics by it.
kind: metric
name: confirms_new_time
displayName: Confirms the new time
type: BOOLEAN              # BOOLEAN, SCALE, NUMERIC, TEXT or CLASSIFICATION
prompt: Did the agent read back the new appointment time to the caller?
---
kind: metric
name: politeness
displayName: Politeness
type: SCALE
scaleMin: 1
scaleMax: 5
prompt: How polite was the agent, from 1 (rude) to 5 (warm and courteous)?
"#;

const PLAN_FILE: &str = r#"# A run plan: which flows, against which agent, judged by which metrics.
# `switchboard gate "PLAN_NAME" --embedded --suite DIR` applies this suite and runs it.
kind: simulationPlan
name: PLAN_NAME
direction: INBOUND
maxDurationSeconds: 300
iterations: 1
agentEndpoints:
  - agent: my-agent
flows:
  - flow: move-appointment
    personaOverride: sam-rivera   # who calls; fills {{customerName}} from its properties
metrics:                   # a yes/no metric is a check: the run passes when enough simulations pass it
  - confirms_new_time
  - politeness             # a scale is an observation, measured and shown
# schedule: {type: daily, time: "02:00", timezone: Europe/Berlin}   # runs by itself
"#;

const WORKFLOW: &str = r#"# Copy to .github/workflows/switchboard.yml: every pull request runs the suite offline
# against this build of your agent. Start your agent in the step before the gate.
name: agent tests
on: [pull_request]
jobs:
  simulated-callers:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
      - uses: dtolnay/rust-toolchain@stable
      - run: cargo install --locked --git https://github.com/${{ vars.SWITCHBOARD_REPOSITORY }} switchboard
      - name: start the agent
        run: ./start-agent.sh &   # yours: it must answer at AGENT_URL
      - name: gate
        run: switchboard gate "PLAN_NAME" --embedded --suite suite --junit reports/junit.xml --markdown reports/summary.md
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_but_the_workflow_reads_as_a_bundle() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files("http://127.0.0.1:9/turn") {
            write(&dir.path().join(name), &text).unwrap();
        }
        let bundle = super::super::Bundle::read(&[dir.path().to_path_buf()]).unwrap();
        let keys: Vec<String> = (0..bundle.resources.len()).filter_map(|i| bundle.config_key(i)).collect();
        assert_eq!(
            keys,
            [
                "httpRequestDefinition/my-agent-turn",
                "agent/my-agent",
                "flow/move-appointment",
                "flow/vague-caller",
                "metric/confirms_new_time",
                "metric/politeness",
                "persona/sam-rivera",
                "simulationPlan/Smoke"
            ]
        );
        assert_eq!(bundle.resources[0]["url"], "http://127.0.0.1:9/turn");
    }
}
