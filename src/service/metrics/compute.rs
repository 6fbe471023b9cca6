//! Service-owned metrics computed from a transcript. Each yields honest capture statuses:
//! SUCCESS with a value, NOT_APPLICABLE when the metric cannot apply to this conversation,
//! DATA_MISSING when its input is absent.

use crate::api::model::*;

/// What a computation reads: the call, its transcript and, for simulations, its flow and the
/// variant (happy path or edge case) the simulation ran.
pub struct Conversation<'a> {
    pub call: &'a Call,
    pub transcript: &'a Transcript,
    pub flow: Option<&'a CustomerFlow>,
    pub variant: Option<&'a FlowVariant>,
    /// The AGENT_TURN steps the simulated caller reached, when the simulation that made the call
    /// is being scored; `None` when a call is scored later (a collection job).
    pub walked: Option<&'a [WalkedStep]>,
}

/// An AGENT_TURN step the simulated caller reached, and when: its words are an expectation
/// judged after the call (`step_expectations`), not a gate the caller applied by matching words.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkedStep {
    /// The step for people (`step "confirm" (AGENT_TURN)`).
    pub label: String,
    pub expectation: String,
}

/// The steps a simulated caller walks: the variant's own when it has any, else the flow's
/// graph. The conversation engine walks these, and metrics about the script read the same.
pub fn script<'a>(flow: &'a CustomerFlow, variant: Option<&'a FlowVariant>) -> &'a [FlowStep] {
    match variant {
        Some(variant) if !variant.steps.is_empty() => &variant.steps,
        _ => &flow.graph,
    }
}

impl Conversation<'_> {
    fn entries(&self, side: Side) -> impl Iterator<Item = &TranscriptEntry> {
        self.transcript.entries.iter().filter(move |e| Side::of(e) == Some(side))
    }
}

/// The two sides of a conversation; background speakers belong to neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Agent,
    Customer,
}

impl Side {
    pub fn of(entry: &TranscriptEntry) -> Option<Side> {
        match entry.role.as_ref()? {
            ParticipantType::Agent => Some(Side::Agent),
            ParticipantType::Customer | ParticipantType::SimulatedCustomer => Some(Side::Customer),
            _ => None,
        }
    }

    /// The `participantRole` text values carry.
    pub fn role(self) -> &'static str {
        match self {
            Side::Agent => "agent",
            Side::Customer => "customer",
        }
    }
}

fn base(call: &Call, context: MetricContext) -> MetricValue {
    MetricValue {
        capture_status: Some(CaptureStatus::Success),
        context: Some(context),
        computed_at: None,
        value: None,
        call_id: Some(call.id),
        chat_id: None,
        error_message: None,
        participant_role: None,
        value_reasoning: None,
        confidence: Some(1.0),
        policy_ids: Vec::new(),
        segment: None,
        from_segment: None,
        to_segment: None,
        label: None,
    }
}

fn success(call: &Call, context: MetricContext, value: f64, reasoning: String) -> MetricValue {
    MetricValue { value: Some(value), value_reasoning: Some(reasoning), ..base(call, context) }
}

/// A row without a value, with the reason in `errorMessage`.
pub fn without_value(call: &Call, status: CaptureStatus, reason: impl Into<String>) -> MetricValue {
    MetricValue {
        capture_status: Some(status),
        error_message: Some(reason.into()),
        confidence: None,
        ..base(call, MetricContext::Call)
    }
}

fn segment(entry: &TranscriptEntry, index: usize, call: &Call) -> Segment {
    Segment {
        id: Some(uuid::Uuid::new_v5(&call.id, format!("entry-{index}").as_bytes())),
        text: Some(entry.text.clone()),
        start_offset_ms: Some(entry.start_offset_ms),
        end_offset_ms: Some(entry.end_offset_ms),
    }
}

fn words(text: &str) -> usize {
    text.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric)).count()
}

/// The values of a service-owned metric, or None when `slug` is not one computed here.
pub fn compute(slug: &str, conv: &Conversation) -> Option<Vec<MetricValue>> {
    let call = conv.call;
    let entries = &conv.transcript.entries;
    Some(match slug {
        "call_duration" => {
            let ms = call.duration_ms.or_else(|| entries.iter().map(|e| e.end_offset_ms).max());
            match ms {
                Some(ms) => {
                    vec![success(call, MetricContext::Call, ms as f64 / 1000.0, format!("the call lasted {ms} ms"))]
                }
                None => {
                    vec![without_value(call, CaptureStatus::DataMissing, "the call has no duration and no transcript")]
                }
            }
        }
        "agent_turn_count" | "customer_turn_count" => {
            let side = if slug == "agent_turn_count" { Side::Agent } else { Side::Customer };
            if entries.is_empty() {
                return Some(vec![without_value(call, CaptureStatus::DataMissing, "the call has no transcript")]);
            }
            let count = conv.entries(side).count();
            vec![success(
                call,
                MetricContext::Call,
                count as f64,
                format!("{count} {} turns in the transcript", side.role()),
            )]
        }
        "agent_response_latency" => response_latency(conv),
        "interruption_count" => interruptions(conv),
        "longest_silence" => longest_silence(conv),
        "words_per_minute" => words_per_minute(conv),
        "end_call_reason" => match &call.ended_status {
            Some(status) => match end_call_option(status) {
                Some((order, label)) => {
                    let mut value = success(call, MetricContext::Call, order, format!("Ended status {status}."));
                    value.label = Some(label.to_owned());
                    vec![value]
                }
                None => vec![without_value(
                    call,
                    CaptureStatus::NotApplicable,
                    format!("{status} is not one of the reasons"),
                )],
            },
            None => vec![without_value(call, CaptureStatus::DataMissing, "the call does not say how it ended")],
        },
        "keypad_entry" => keypad_entry(conv),
        _ => return None,
    })
}

/// The option of the service-owned end-call-reason classification (its `displayOrder` and
/// label, as assets/seed/metric_definitions.json defines them) that an ended status falls in.
fn end_call_option(status: &EndedStatus) -> Option<(f64, &'static str)> {
    Some(match status {
        EndedStatus::CustomerEndedCall => (1.0, "Customer hung up"),
        EndedStatus::AgentEndedCall | EndedStatus::AgentSaidEndCallPhrase => (2.0, "Agent ended call"),
        EndedStatus::SilenceTimeOut => (3.0, "Silence timeout"),
        EndedStatus::VoiceMailReached => (4.0, "Voicemail reached"),
        EndedStatus::MaxDurationReached => (5.0, "Maximum duration reached"),
        _ => return None,
    })
}

/// Per agent turn that answers a customer turn: the gap between them; and the call's average.
fn response_latency(conv: &Conversation) -> Vec<MetricValue> {
    let call = conv.call;
    let entries = &conv.transcript.entries;
    let mut turns = Vec::new();
    for (i, pair) in entries.windows(2).enumerate() {
        let (before, after) = (&pair[0], &pair[1]);
        if Side::of(before) == Some(Side::Customer) && Side::of(after) == Some(Side::Agent) {
            let latency = (after.start_offset_ms - before.end_offset_ms).max(0);
            // A turn's value spans the caller's line and the agent's answer: the hosted
            // interface's SEGMENT_RANGE (its values have no TURN context).
            let mut value = success(
                call,
                MetricContext::SegmentRange,
                latency as f64,
                format!("the agent answered {latency} ms after the caller stopped"),
            );
            value.participant_role = Some(Side::Agent.role().into());
            value.from_segment = Some(segment(before, i, call));
            value.to_segment = Some(segment(after, i + 1, call));
            value.segment = Some(segment(after, i + 1, call));
            turns.push(value);
        }
    }
    if turns.is_empty() {
        let mut missing = without_value(call, CaptureStatus::DataMissing, "no agent turn follows a caller turn");
        missing.participant_role = Some(Side::Agent.role().into());
        return vec![missing];
    }
    let average = turns.iter().filter_map(|v| v.value).sum::<f64>() / turns.len() as f64;
    let mut call_value =
        success(call, MetricContext::Call, average.round(), format!("average over {} agent responses", turns.len()));
    call_value.participant_role = Some(Side::Agent.role().into());
    let mut out = vec![call_value];
    out.extend(turns);
    out
}

/// Turns that start before the other side has finished.
fn interruptions(conv: &Conversation) -> Vec<MetricValue> {
    let call = conv.call;
    let entries = &conv.transcript.entries;
    if entries.is_empty() {
        return vec![without_value(call, CaptureStatus::DataMissing, "the call has no transcript")];
    }
    let mut turns = Vec::new();
    for (i, pair) in entries.windows(2).enumerate() {
        let (before, after) = (&pair[0], &pair[1]);
        let different = Side::of(before).is_some() && Side::of(after).is_some() && Side::of(before) != Side::of(after);
        if different && after.start_offset_ms < before.end_offset_ms {
            let overlap = before.end_offset_ms - after.start_offset_ms;
            let side = Side::of(after).map_or("someone", Side::role);
            let mut value = success(
                call,
                MetricContext::SegmentRange,
                1.0,
                format!("the {side} started {overlap} ms before the other finished"),
            );
            value.participant_role = Some(side.into());
            value.from_segment = Some(segment(before, i, call));
            value.to_segment = Some(segment(after, i + 1, call));
            value.segment = Some(segment(after, i + 1, call));
            turns.push(value);
        }
    }
    let count = turns.len();
    let mut out = vec![success(call, MetricContext::Call, count as f64, format!("{count} overlapping turns"))];
    out.extend(turns);
    out
}

/// The longest stretch in which nobody spoke.
fn longest_silence(conv: &Conversation) -> Vec<MetricValue> {
    let call = conv.call;
    let entries = &conv.transcript.entries;
    if entries.len() < 2 {
        return vec![without_value(call, CaptureStatus::DataMissing, "fewer than two turns: no silence to measure")];
    }
    let mut spoken_until = entries[0].end_offset_ms;
    let (mut longest, mut at) = (0, 0);
    for (i, entry) in entries.iter().enumerate().skip(1) {
        let gap = entry.start_offset_ms - spoken_until;
        if gap > longest {
            (longest, at) = (gap, i);
        }
        spoken_until = spoken_until.max(entry.end_offset_ms);
    }
    let mut value =
        success(call, MetricContext::Call, longest as f64, format!("{longest} ms of silence before turn {}", at + 1));
    if longest > 0 {
        value.segment = Some(segment(&entries[at], at, call));
    }
    vec![value]
}

/// Speaking pace of each side: words over the time that side was speaking.
fn words_per_minute(conv: &Conversation) -> Vec<MetricValue> {
    let call = conv.call;
    [Side::Agent, Side::Customer]
        .into_iter()
        .map(|side| {
            // Keypad tones are key presses, not speech.
            let (count, ms) = conv.entries(side).filter(|e| !is_keypad_tone(e)).fold((0usize, 0i64), |(w, ms), e| {
                (w + words(&e.text), ms + (e.end_offset_ms - e.start_offset_ms).max(0))
            });
            let mut value = if count == 0 || ms == 0 {
                without_value(call, CaptureStatus::DataMissing, format!("the {} never spoke", side.role()))
            } else {
                let wpm = count as f64 / (ms as f64 / 60_000.0);
                success(call, MetricContext::Call, wpm.round(), format!("{count} words in {ms} ms of speech"))
            };
            value.participant_role = Some(side.role().into());
            value
        })
        .collect()
}

fn is_keypad_tone(entry: &TranscriptEntry) -> bool {
    entry.text.trim_start().starts_with("[DTMF")
}

fn has_keypad_step(steps: &[FlowStep]) -> bool {
    steps.iter().any(|s| s.step_type == Some(StepType::CustomerDtmf) || has_keypad_step(&s.steps))
}

/// Whether the caller pressed keys where the script the simulation ran asks for it. Another
/// variant's keypad step says nothing about this call: an edge case that never reaches the
/// keypad is not a call that failed to press it.
fn keypad_entry(conv: &Conversation) -> Vec<MetricValue> {
    let call = conv.call;
    let Some(flow) = conv.flow else {
        return vec![without_value(call, CaptureStatus::NotApplicable, "the call ran no flow")];
    };
    if !has_keypad_step(script(flow, conv.variant)) {
        let reason = match conv.variant.and_then(|v| v.title.as_deref()) {
            Some(title) => format!("the script this call ran (\"{title}\") has no keypad step"),
            None => "the flow has no keypad step".to_owned(),
        };
        return vec![without_value(call, CaptureStatus::NotApplicable, reason)];
    }
    let pressed = conv.entries(Side::Customer).find(|e| is_keypad_tone(e));
    let (value, reasoning) = match pressed {
        Some(entry) => (1.0, format!("keys pressed at {} ms: {}", entry.start_offset_ms, entry.text)),
        None => (0.0, "the script asks for a key press and none was made".to_owned()),
    };
    vec![success(call, MetricContext::Call, value, reasoning)]
}

#[cfg(test)]
mod tests;
