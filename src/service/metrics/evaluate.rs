//! Evaluates any metric definition on one conversation: computed service-owned metrics,
//! LLM-judged ones through the judge, and thresholds over their source's values.

use std::collections::HashMap;

use uuid::Uuid;

use super::compute::{self, Conversation, without_value};
use super::judge::{Answer, Judge, Question, Standing, Verdict};
use super::threshold;
use crate::api::model::*;
use crate::service::store::StoreResult;
use crate::service::store::{self, Kind};

/// Every definition and every knowledge base's text, read once for a batch of evaluations.
pub struct Catalog {
    pub definitions: HashMap<Uuid, MetricDefinition>,
    pub knowledge: HashMap<Uuid, String>,
}

impl Catalog {
    pub fn load(conn: &crate::service::store::Conn) -> StoreResult<Catalog> {
        let definitions =
            store::all::<MetricDefinition>(conn, Kind::MetricDefinition)?.into_iter().map(|d| (d.id, d)).collect();
        let knowledge = store::knowledge::all(conn)?
            .into_iter()
            .filter_map(|(id, text)| Some((Uuid::parse_str(&id).ok()?, text)))
            .collect();
        Ok(Catalog { definitions, knowledge })
    }

    pub fn library<'a>(&'a self, judge: &'a Judge) -> Library<'a> {
        Library { definitions: &self.definitions, knowledge: &self.knowledge, judge }
    }
}

/// What evaluation may look up: every definition (for threshold sources) and knowledge text.
pub struct Library<'a> {
    pub definitions: &'a HashMap<Uuid, MetricDefinition>,
    pub knowledge: &'a HashMap<Uuid, String>,
    pub judge: &'a Judge,
}

/// For a task-completion definition without a prompt of its own.
const TASK_COMPLETION_PROMPT: &str = "Identify what the caller wanted from the call. Answer true if, by the end of \
     the call, that request was completed (booked, changed, cancelled, answered or refunded as asked), and false if the \
     caller left without it.";

/// What a value the offline judge abstained on says after its reason.
pub const ABSTAINED: &str = "The offline judge gives no value rather than a guess, so this value is not evaluated (a \
     check is then missing its verdict); set a judge model under [judge] in config.toml to have it judged.";

/// Every value `definition` yields for the conversation (at least one row, honest status).
pub async fn evaluate(
    definition: &MetricDefinition,
    conv: &Conversation<'_>,
    library: &Library<'_>,
) -> Vec<MetricValue> {
    evaluate_depth(definition, conv, library, 0).await
}

fn evaluate_depth<'a>(
    definition: &'a MetricDefinition,
    conv: &'a Conversation<'a>,
    library: &'a Library<'a>,
    depth: usize,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = Vec<MetricValue>> + Send + 'a>> {
    Box::pin(async move {
        let call = conv.call;
        if depth > 4 {
            return vec![without_value(call, CaptureStatus::Error, "threshold sources nest too deeply")];
        }
        let slug = definition.slug_or_alias().unwrap_or_default();
        if definition.is_service_owned()
            && let Some(values) = compute::compute(slug, conv)
        {
            return values;
        }
        match (slug, definition.calculation_type.as_ref()) {
            ("agent_expectations", _) if definition.is_service_owned() => expectations(conv, library).await,
            ("step_expectations", _) if definition.is_service_owned() => {
                super::step_expectations::evaluate(conv, library).await
            }
            ("task_completion", _) if definition.is_service_owned() => {
                let prompt = definition.llm_prompt.as_deref().unwrap_or(TASK_COMPLETION_PROMPT);
                judged(conv, library, prompt, Answer::Boolean, false, None).await
            }
            (_, Some(CalculationType::LlmJudge)) => {
                let Some(prompt) = definition.llm_prompt.as_deref() else {
                    return vec![without_value(call, CaptureStatus::Error, "the metric has no llmPrompt")];
                };
                let knowledge = definition
                    .knowledge_base_ids
                    .iter()
                    .flatten()
                    .filter_map(|id| library.knowledge.get(id))
                    .map(String::as_str)
                    .next();
                judged(conv, library, prompt, answer_for(definition), false, knowledge).await
            }
            (_, Some(CalculationType::Threshold)) => thresholded(definition, conv, library, depth).await,
            (_, Some(CalculationType::Formula)) => formula(definition, conv, library, depth).await,
            _ => vec![without_value(
                call,
                CaptureStatus::Error,
                format!("the local service cannot compute {} metrics", calc_name(definition)),
            )],
        }
    })
}

fn calc_name(definition: &MetricDefinition) -> String {
    definition.calculation_type.as_ref().map_or("uncategorised".into(), |c| c.as_str().to_owned())
}

fn answer_for(definition: &MetricDefinition) -> Answer {
    match definition.metric_type {
        Some(MetricType::Scale) => Answer::Scale {
            min: definition.scale_min.unwrap_or(1),
            max: definition.scale_max.unwrap_or(5),
            labels: definition.scale_labels.clone().unwrap_or_default(),
        },
        Some(MetricType::Classification) => Answer::Classification {
            options: definition
                .classification_options
                .iter()
                .flatten()
                .map(|o| (o.label.clone().unwrap_or_default(), o.description.clone().unwrap_or_default()))
                .collect(),
        },
        _ => Answer::Boolean,
    }
}

pub(super) async fn judged(
    conv: &Conversation<'_>,
    library: &Library<'_>,
    prompt: &str,
    answer: Answer,
    agent_only: bool,
    knowledge: Option<&str>,
) -> Vec<MetricValue> {
    let question = Question { prompt, answer, transcript: conv.transcript, agent_only, knowledge };
    vec![verdict_value(conv.call, library.judge.judge(&question).await)]
}

fn verdict_value(call: &Call, verdict: Result<Verdict, String>) -> MetricValue {
    match verdict {
        Ok(v) if v.standing == Standing::NotApplicable => {
            let mut value = without_value(call, CaptureStatus::NotApplicable, v.reasoning.clone());
            value.value_reasoning = Some(v.reasoning);
            value
        }
        Ok(v) if v.standing == Standing::Abstained => {
            let why = format!("{} {ABSTAINED}", v.reasoning);
            let mut value = without_value(call, CaptureStatus::DataMissing, why.clone());
            value.value_reasoning = Some(why);
            value
        }
        Ok(v) => {
            let mut value = without_value(call, CaptureStatus::Success, "");
            value.error_message = None;
            value.value = Some(v.value);
            value.label = v.label;
            value.value_reasoning = Some(v.reasoning);
            value.confidence = Some(v.confidence);
            value
        }
        Err(message) => without_value(call, CaptureStatus::Error, format!("judge failed: {message}")),
    }
}

/// One judged value per expectation of the flow (and of the variant that ran).
async fn expectations(conv: &Conversation<'_>, library: &Library<'_>) -> Vec<MetricValue> {
    let expectations = expectations_of(conv);
    if expectations.is_empty() {
        return vec![without_value(
            conv.call,
            CaptureStatus::NotApplicable,
            "the conversation has no agent expectations",
        )];
    }
    let mut out = Vec::new();
    for expectation in expectations {
        let prompt = expectation.prompt.as_deref().unwrap_or_default();
        let mut values = judged(conv, library, prompt, Answer::Boolean, true, None).await;
        for value in &mut values {
            let reasoning = value.value_reasoning.take().unwrap_or_default();
            value.value_reasoning = Some(format!("Expectation \"{prompt}\": {reasoning}"));
        }
        out.extend(values);
    }
    out
}

/// The flow's expectations (unless the variant that ran leaves them out) and the variant's own.
fn expectations_of<'a>(conv: &Conversation<'a>) -> Vec<&'a Expectation> {
    let flow_own = conv.variant.is_none_or(|v| v.include_flow_expectations != Some(false));
    let from_flow = conv.flow.filter(|_| flow_own).map(|f| f.agent_expectations.as_slice()).unwrap_or_default();
    let from_variant = conv.variant.map(|v| v.additional_expectations.as_slice()).unwrap_or_default();
    from_flow.iter().chain(from_variant).collect()
}

/// A threshold: the source's successful values (for the chosen participant), compared.
async fn thresholded(
    definition: &MetricDefinition,
    conv: &Conversation<'_>,
    library: &Library<'_>,
    depth: usize,
) -> Vec<MetricValue> {
    let call = conv.call;
    let Some(t) = &definition.threshold else {
        return vec![without_value(call, CaptureStatus::Error, "the threshold metric has no threshold")];
    };
    let source = t
        .source_variant_id
        .and_then(|v| library.definitions.get(&v))
        .or_else(|| t.source_metric_definition_id.and_then(|id| library.definitions.get(&id)));
    let Some(source) = source else {
        return vec![without_value(call, CaptureStatus::Error, "the threshold's source metric no longer exists")];
    };
    let Some(target) = t.threshold_value.as_deref().and_then(parse_target) else {
        return vec![without_value(call, CaptureStatus::Error, "the threshold value is not a number or boolean")];
    };
    let source_values = evaluate_depth(source, conv, library, depth + 1).await;
    let role = t.source_participant_role.as_ref().map(|r| r.as_str().to_ascii_lowercase());
    // A CALL-level aggregate beside per-turn values would count twice: prefer the finer rows
    // (SEGMENT_RANGE now; TURN in values stored by older builds).
    let has_turns =
        source_values.iter().any(|x| matches!(x.context, Some(MetricContext::Turn | MetricContext::SegmentRange)));
    let numbers: Vec<f64> = source_values
        .iter()
        .filter(|v| v.capture_status == Some(CaptureStatus::Success))
        .filter(|v| {
            role.as_ref().is_none_or(|r| v.participant_role.as_deref().map(str::to_ascii_lowercase).as_ref() == Some(r))
        })
        .filter(|v| !(has_turns && v.context == Some(MetricContext::Call)))
        .filter_map(|v| v.value)
        .collect();
    let mode = t.aggregation_mode.clone().unwrap_or(AggregationMode::Each);
    let operator = t.operator.clone().unwrap_or(ThresholdOperator::Unknown(String::new()));
    match threshold::evaluate(&mode, &operator, target, t.count_threshold, &numbers) {
        Some(outcome) => {
            let mut value = without_value(call, CaptureStatus::Success, "");
            value.error_message = None;
            value.value = Some(if outcome.fired { 1.0 } else { 0.0 });
            value.confidence = Some(1.0);
            let name = source.name.as_deref().unwrap_or("source");
            value.value_reasoning = Some(format!("{name}: {}", outcome.explanation));
            vec![value]
        }
        None if numbers.is_empty() => {
            let reason = format!("{} produced no value to compare", source.name.as_deref().unwrap_or("the source"));
            vec![without_value(call, CaptureStatus::DataMissing, reason)]
        }
        None => vec![without_value(
            call,
            CaptureStatus::Error,
            "the threshold's operator or mode is not one this service knows",
        )],
    }
}

/// A derived metric: its formula over each source's call-level value, named by slug.
async fn formula(
    definition: &MetricDefinition,
    conv: &Conversation<'_>,
    library: &Library<'_>,
    depth: usize,
) -> Vec<MetricValue> {
    let call = conv.call;
    let Some(text) = definition.formula.as_ref().map(Formula::expression) else {
        return vec![without_value(call, CaptureStatus::Error, "the derived metric has no formula")];
    };
    let mut values = HashMap::new();
    let mut missing = Vec::new();
    for source in definition.sources.iter().flatten() {
        let id = source.source_variant_id.or(source.source_metric_definition_id);
        let Some(source) = id.and_then(|id| library.definitions.get(&id)) else {
            return vec![without_value(call, CaptureStatus::Error, "a source of the formula no longer exists")];
        };
        let slug = source.slug_or_alias().unwrap_or_default().to_owned();
        let computed = evaluate_depth(source, conv, library, depth + 1).await;
        let call_value = computed
            .iter()
            .filter(|v| v.capture_status == Some(CaptureStatus::Success))
            .find(|v| v.context == Some(MetricContext::Call) || v.context.is_none())
            .and_then(|v| v.value);
        match call_value {
            Some(value) => {
                values.insert(slug, value);
            }
            None => missing.push(slug),
        }
    }
    let needed = super::formula::names(text);
    if let Some(name) = needed.iter().find(|n| missing.contains(n)) {
        return vec![without_value(call, CaptureStatus::DataMissing, format!("{name} has no value for this call"))];
    }
    match super::formula::evaluate(text, &values) {
        Ok(result) => {
            let mut value = without_value(call, CaptureStatus::Success, "");
            value.error_message = None;
            value.value = Some(result);
            value.confidence = Some(1.0);
            let inputs: Vec<String> =
                needed.iter().filter_map(|n| values.get(n).map(|v| format!("{n} = {v}"))).collect();
            value.value_reasoning = Some(format!("{text} with {}", inputs.join(", ")));
            vec![value]
        }
        Err(message) => vec![without_value(call, CaptureStatus::Error, message)],
    }
}

fn parse_target(text: &str) -> Option<f64> {
    match text.trim() {
        "true" => Some(1.0),
        "false" => Some(0.0),
        other => other.parse().ok(),
    }
}

/// Whether a policy selects a call: no groups means every call; otherwise some group whose
/// conditions all hold.
pub fn policy_matches(policy: &MetricPolicy, call: &Call, endpoint: Option<&AgentEndpoint>) -> bool {
    if policy.conditions.is_empty() {
        return true;
    }
    policy.conditions.iter().any(|group| group.conditions.iter().all(|c| condition_holds(c, call, endpoint)))
}

/// One condition: this service's `{agentId: <id>}`-style keys and the call's own properties,
/// or the hosted form `{conditionType: AGENT, conditionKey: <agent id>}`.
fn condition_holds(condition: &Condition, call: &Call, endpoint: Option<&AgentEndpoint>) -> bool {
    let key = condition.condition_key.as_deref().unwrap_or_default();
    if condition.condition_type == Some(ConditionType::Agent) && Uuid::parse_str(key).is_ok() {
        let matches = call.agent_id.map(|id| id.to_string()).as_deref() == Some(key);
        return if condition.condition_operator == Some(ConditionOperator::NotEquals) { !matches } else { matches };
    }
    let actual = match key {
        "agentId" => call.agent_id.map(|id| id.to_string()),
        "agentEndpointId" => call.agent_endpoint_id.map(|id| id.to_string()),
        "direction" => call.direction().map(|d| d.to_string()),
        "environment" => endpoint.and_then(|e| e.environment.clone()),
        other => call.properties.as_ref().and_then(|p| p.get(other)).map(|v| match v {
            serde_json::Value::String(text) => text.clone(),
            value => value.to_string(),
        }),
    };
    let expected = condition.condition_value.as_deref().unwrap_or_default();
    let Some(actual) = actual else {
        return condition.condition_operator == Some(ConditionOperator::NotEquals);
    };
    let numbers = actual.trim().parse::<f64>().ok().zip(expected.trim().parse::<f64>().ok());
    match condition.condition_operator.as_ref().unwrap_or(&ConditionOperator::Equals) {
        ConditionOperator::NotEquals => actual != expected,
        ConditionOperator::Contains => actual.contains(expected),
        ConditionOperator::StartsWith => actual.starts_with(expected),
        ConditionOperator::GreaterThan => numbers.is_some_and(|(a, e)| a > e),
        ConditionOperator::LessThan => numbers.is_some_and(|(a, e)| a < e),
        ConditionOperator::GreaterThanOrEquals => numbers.is_some_and(|(a, e)| a >= e),
        ConditionOperator::LessThanOrEquals => numbers.is_some_and(|(a, e)| a <= e),
        _ => actual == expected,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "a test fails by panicking")]

    use super::*;

    fn call() -> Call {
        serde_json::from_value(serde_json::json!({"id": "6f1c2d40-1b4a-4c6e-9a51-0d2f6a3e8b11"})).unwrap()
    }

    /// A flow expecting `flow` of the agent whose happy path adds `variant` (and keeps the
    /// flow's unless `include` is false).
    fn flow_with(flow: &[&str], variant: &[&str], include: bool) -> CustomerFlow {
        let prompts = |ps: &[&str]| ps.iter().map(|p| serde_json::json!({"prompt": p})).collect::<Vec<_>>();
        serde_json::from_value(serde_json::json!({
            "id": Uuid::from_u128(1),
            "agentExpectations": prompts(flow),
            "offScriptPolicy": null,
            "happyPath": {
                "id": Uuid::from_u128(2), "precededByCustomerFlowId": null,
                "precededByCustomerFlowVariantId": null, "personaOverride": null, "environment": null,
                "includeFlowExpectations": include, "additionalExpectations": prompts(variant)
            }
        }))
        .unwrap()
    }

    /// The expectations judged on a short call of `flow`'s happy path, by their prompts.
    async fn judged_prompts(flow: &CustomerFlow) -> Vec<String> {
        let transcript: Transcript = serde_json::from_value(serde_json::json!({"entries": [
            {"startOffsetMs": 0, "endOffsetMs": 900, "text": "Library desk, how can I help?", "role": "AGENT"},
            {"startOffsetMs": 1000, "endOffsetMs": 1900, "text": "I'd like to renew a book.", "role": "CUSTOMER"},
        ], "participants": []}))
        .unwrap();
        let call = call();
        let conv = Conversation {
            call: &call,
            transcript: &transcript,
            flow: Some(flow),
            variant: flow.happy_path.as_ref(),
            walked: None,
        };
        let (definitions, knowledge) = (HashMap::new(), HashMap::new());
        let library = Library { definitions: &definitions, knowledge: &knowledge, judge: &Judge::Rubric };
        let values = expectations(&conv, &library).await;
        let quoted = |v: &MetricValue| v.value_reasoning.clone()?.split('"').nth(1).map(str::to_owned);
        values.iter().filter_map(quoted).collect()
    }

    #[tokio::test]
    async fn a_variants_own_expectations_are_judged_beside_the_flows_unless_it_leaves_those_out() {
        let both = flow_with(&["Agent greets the caller"], &["Agent asks for the library card"], true);
        assert_eq!(judged_prompts(&both).await, ["Agent greets the caller", "Agent asks for the library card"]);
        let own = flow_with(&["Agent greets the caller"], &["Agent asks for the library card"], false);
        assert_eq!(judged_prompts(&own).await, ["Agent asks for the library card"]);
        let only_variant = flow_with(&[], &["Agent asks for the library card"], true);
        assert_eq!(judged_prompts(&only_variant).await, ["Agent asks for the library card"]);
        // The check is collected for such a flow even though the flow itself expects nothing.
        let check = MetricDefinition {
            id: Uuid::from_u128(9),
            slug: Some("agent_expectations".into()),
            source: Some(DefinitionSource::System),
            ..Default::default()
        };
        let all = HashMap::from([(check.id, check)]);
        let collected = flow_and_automatic_metrics(&RunPlanInput::default(), &only_variant, &all, &[]);
        assert!(collected.iter().any(|d| d.id == Uuid::from_u128(9)), "{collected:#?}");
    }

    #[test]
    fn each_standing_of_a_verdict_is_stored_with_its_own_status() {
        let answered = Verdict {
            value: 1.0,
            label: None,
            reasoning: "Met: done.".into(),
            confidence: 0.8,
            standing: Standing::Answered,
            shape: None,
        };
        let stored = verdict_value(&call(), Ok(answered));
        assert_eq!((stored.capture_status, stored.value), (Some(CaptureStatus::Success), Some(1.0)));

        let stored = verdict_value(&call(), Ok(Verdict::not_applicable("Not applicable: nothing booked.".into())));
        assert_eq!((stored.capture_status, stored.value), (Some(CaptureStatus::NotApplicable), None));

        // An abstention stores no value: DATA_MISSING, saying why and where a model is set.
        let stored = verdict_value(&call(), Ok(Verdict::abstain("Cannot tell: the answer is inaudible.".into())));
        assert_eq!(
            (stored.capture_status, stored.value, stored.confidence),
            (Some(CaptureStatus::DataMissing), None, None)
        );
        let why = stored.value_reasoning.unwrap();
        assert!(
            why.starts_with("Cannot tell: the answer is inaudible.") && why.contains("[judge] in config.toml"),
            "{why}"
        );
        assert_eq!(stored.error_message.as_deref(), Some(why.as_str()));

        let stored = verdict_value(&call(), Err("timed out".into()));
        assert_eq!(stored.capture_status, Some(CaptureStatus::Error));
    }
}
