//! What `c` opens in the editor: one commented resource of each kind, in the bundle's shape
//! (docs/config.md), like `switchboard init`'s files. Each is valid as it stands, so the user
//! only changes what they mean to; saved unchanged, nothing is created.

/// The template of bundle kind `kind`, if the console creates that kind.
pub fn of(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "persona" => PERSONA,
        "flow" => FLOW,
        "metric" => METRIC,
        "collector" => COLLECTOR,
        "simulationPlan" => PLAN,
        "agent" => AGENT,
        "httpRequestDefinition" => HTTP_REQUEST_DEFINITION,
        _ => return None,
    })
}

const PERSONA: &str = r#"# A caller. Every member but kind, name, accent, gender and language may be left out.
kind: persona
name: new-persona          # its identity: plans and flows name it by this
# displayName: New persona
accent: US                 # US, GB, AU, IN, …
gender: FEMALE             # MALE or FEMALE
language: EN
# age: ADULT               # CHILD, TEENAGER, ADULT, ELDERLY
# baseEmotion: NEUTRAL     # CHEERFUL, CONFUSED, FRUSTRATED, RUSHED, ANXIOUS, …
# speechPace: NORMAL
# backstoryPrompt: You are calling to move an appointment.
# properties:              # {{customerName}} in a flow's lines is filled from these
#   customerName: Alex Doe
"#;

const FLOW: &str = r#"# What happens on the call: a graph of steps the caller follows in order. A step's `steps`
# with several entries are alternatives; `mergeInto` joins a branch back by `ref`.
kind: flow
type: scripted             # or improv: happyPath {persona, environment, prompt, expectations}
name: new-flow             # the apply's record; a flow's title or slug also finds it
title: New flow
# agents: [brightsmile-front-desk]   # agents by name or custom id
# adherence: LOOSE         # STRICT: the caller goes off script when an expectation fails
# branchingMode: DETERMINISTIC
expectations:              # judged after the call by the automatic agent-expectations metric
  - The agent answers the caller's question.
graph:
  - type: AGENT_TURN       # an AGENT_TURN in words is an expectation, judged after the call
    ref: greet
    content: Agent greets the caller.
  - type: CUSTOMER_TURN    # what the caller should do; CUSTOMER_VERBATIM_TURN says it word for word
    ref: ask
    content: Hi, I would like to book an appointment.
"#;

const METRIC: &str = r#"# How calls are judged. `name` is the metric's slug; plans and policies name it by this.
kind: metric
name: new_metric
displayName: New metric
type: BOOLEAN              # BOOLEAN, SCALE, NUMERIC, TEXT or CLASSIFICATION
prompt: Did the agent do what the caller asked?
# scaleMin: 1              # SCALE only
# scaleMax: 5
# contexts: [CALL]         # where it applies
"#;

const COLLECTOR: &str = r#"# A metric policy: which metrics are collected on which calls.
kind: collector
name: new-policy           # the apply's record
# displayName: New policy
modality: call             # call or chat
metrics:                   # by slug
  - task_completion
# filters:                 # groups of conditions; a call matches any group whose conditions all hold
#   - conditions:
#       - {type: CALL_PROPERTY, key: region, operator: EQUALS, value: eu}
# status: ACTIVE
"#;

const PLAN: &str = r#"# A run plan: which flows, against which agent, judged by which metrics.
kind: simulationPlan
name: New plan             # its identity: the plan's name
direction: INBOUND
maxDurationSeconds: 300
iterations: 1
agentEndpoints:            # by the agent's name or custom id (value/direction when it has several)
  - agent: brightsmile-front-desk
flows:
  - flow: Reschedule a cleaning with identity check   # by name, title or slug
    # personaOverride: dana-whitfield
    # edgeCases: [ALL]
metrics:                   # by slug; a yes/no metric is a check
  - task_completion
# schedule: {type: daily, time: "02:00", timezone: Europe/Berlin}
"#;

const AGENT: &str = r#"# An agent under test and where the simulated caller reaches it.
kind: agent
name: new-agent            # the apply's record; the agent's name or custom id also finds it
# displayName: New agent
description: The agent under test.
# customId: new-agent
endpoints:
  - type: PHONE
    value: '+15550100099'
    direction: INCOMING_AND_OUTGOING
    # outboundDialType: HTTP_REQUEST
    # outboundDialHttpRequestDefinition: my-agent-turn
"#;

const HTTP_REQUEST_DEFINITION: &str = r#"# One HTTP request per agent turn: how a simulated caller reaches an agent over HTTP.
kind: httpRequestDefinition
name: new-agent-turn       # the apply's record; agents' endpoints name it by this
url: 'http://127.0.0.1:8080/turn'
method: POST               # POST, PUT, PATCH or GET
# {{text}} is what the caller just said, {{callId}} the call, {{turn}} the agent turn.
body: '{"text": "{{text}}", "callId": "{{callId}}"}'
headers:
  Content-Type: application/json
  # Authorization: Bearer …   # a secret: better kept out of files
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::config::ConfigResource;

    #[test]
    fn every_template_is_one_valid_resource_of_its_kind() {
        for kind in ["persona", "flow", "metric", "collector", "simulationPlan", "agent", "httpRequestDefinition"] {
            let text = of(kind).unwrap();
            let documents = crate::yaml::documents(text).unwrap();
            assert_eq!(documents.len(), 1, "{kind}");
            assert_eq!(documents[0].value["kind"], kind);
            let resource = ConfigResource::decode(&documents[0].value, "resources[0]").unwrap();
            assert_eq!(resource.kind().as_str(), kind);
        }
    }
}
