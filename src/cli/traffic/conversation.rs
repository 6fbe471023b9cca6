//! One production-like call: a caller's lines answered by the reference agent (its planted
//! flaws rolled from the call's key, as in a simulation), timed like speech, posted as it would
//! be once the call ended. A degraded agent is slow on every turn and loses the thread now and
//! then, so latency, silence and duration metrics score it worse.

use crate::api::model::{AgentIdentification, CallInput, Direction, InterfaceType, ParticipantType, TranscriptEntry};
use crate::api::model::{Timestamp, TranscriptInput};
use crate::service::sim::reference_agent::{self, Heard, ReferenceBuild};

/// How long a word takes to say (ms).
const WORD_MS: i64 = 320;
/// What a degraded agent adds to every reply's latency (ms), before its own jitter.
const DEGRADED_DELAY_MS: i64 = 3_000;

/// What a caller says to an agent of each domain, in order; the last line ends the call.
fn caller_lines(agent: &str) -> &'static [&'static str] {
    let agent = agent.to_lowercase();
    if ["dental", "dentist", "smile", "clinic"].iter().any(|w| agent.contains(w)) {
        &[
            "Hi, I need to reschedule my cleaning appointment.",
            "My name is Jordan Lee and my date of birth is March 3rd 1985.",
            "Thursday afternoon would work best.",
            "Great, that's all, goodbye.",
        ]
    } else if ["air", "flight", "rebook"].iter().any(|w| agent.contains(w)) {
        &[
            "My flight was cancelled and I need to rebook.",
            "The confirmation code is QX4821.",
            "The morning flight tomorrow is fine.",
            "Thanks, that's all, bye.",
        ]
    } else {
        &["Hi, what are your opening hours?", "Can I talk to someone about my bill?", "Thank you, that's all."]
    }
}

fn words(text: &str) -> i64 {
    text.split_whitespace().count().max(1) as i64
}

/// The transcript of one call of `agent`, its flaws rolled from `key`; degraded, it is slower.
pub fn transcript(agent: &str, key: &str, degraded: bool) -> Vec<TranscriptEntry> {
    let mut entries = Vec::new();
    let mut at = 0_i64;
    let mut earlier = Vec::new();
    let mut said = |role: ParticipantType, text: String, start: i64| {
        let end = start + words(&text) * WORD_MS;
        entries.push(TranscriptEntry {
            start_offset_ms: start,
            end_offset_ms: end,
            text,
            role: Some(role),
            participant_id: None,
        });
        end
    };
    let lines = caller_lines(agent);
    for turn in 0..=lines.len() {
        // Turn 0 the agent answers the call; then each caller line gets its reply.
        let text = if turn == 0 { String::new() } else { lines[turn - 1].to_owned() };
        if turn > 0 {
            at = said(ParticipantType::Customer, text.clone(), at);
        }
        let heard = Heard {
            text: text.clone(),
            call_id: key.to_owned(),
            turn: turn as u32,
            agent: agent.to_owned(),
            earlier: earlier.clone(),
        };
        let reply = reference_agent::reply_as(ReferenceBuild::Current, &heard);
        let mut latency = reply.latency_ms;
        if degraded {
            latency = latency.max(0) + DEGRADED_DELAY_MS + (turn as i64 * 700) % 1_500;
        }
        // Talking over the caller starts before they stopped, never before the call did.
        at = said(ParticipantType::Agent, reply.text, (at + latency).max(0));
        if turn > 0 {
            earlier.push(text);
        }
    }
    entries
}

/// The call as `POST /v1/call` takes it, ended at `ended_at`.
pub fn call(agent: &str, key: &str, degraded: bool, ended_at: jiff::Timestamp) -> CallInput {
    let entries = transcript(agent, key, degraded);
    let duration = entries.iter().map(|e| e.end_offset_ms).max().unwrap_or(0);
    let started = ended_at - jiff::SignedDuration::from_millis(duration);
    CallInput {
        call_direction: Some(Direction::Inbound),
        interface_type: Some(InterfaceType::Phone),
        agent: Some(AgentIdentification { name: Some(agent.to_owned()), ..Default::default() }),
        started_at: Some(Timestamp::from(started)),
        properties: Some(serde_json::Map::from_iter([("source".to_owned(), "switchboard traffic".into())])),
        transcript: Some(TranscriptInput::Entries(entries)),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn latencies(entries: &[TranscriptEntry]) -> Vec<i64> {
        entries
            .windows(2)
            .filter(|w| w[1].role == Some(ParticipantType::Agent))
            .map(|w| w[1].start_offset_ms - w[0].end_offset_ms)
            .collect()
    }

    #[test]
    fn a_call_alternates_caller_and_agent_and_ends_with_a_goodbye() {
        let entries = transcript("Brightsmile Dental — Front Desk", "k1", false);
        assert_eq!(entries.len(), 9);
        assert_eq!(entries[0].role, Some(ParticipantType::Agent));
        assert!(entries[0].text.contains("Brightsmile"), "{}", entries[0].text);
        assert!(entries.iter().all(|e| e.end_offset_ms > e.start_offset_ms && e.start_offset_ms >= 0));
        assert_eq!(transcript("Brightsmile Dental — Front Desk", "k1", false), entries, "the same key, the same call");
    }

    #[test]
    fn a_degraded_agent_is_slower_on_every_turn() {
        let healthy = latencies(&transcript("SkyBridge Air — Rebooking Desk", "k2", false));
        let degraded = latencies(&transcript("SkyBridge Air — Rebooking Desk", "k2", true));
        assert!(
            healthy.iter().zip(&degraded).all(|(h, d)| d >= &DEGRADED_DELAY_MS && d > h),
            "{healthy:?} {degraded:?}"
        );
    }

    #[test]
    fn the_call_started_its_duration_before_it_ended() {
        let ended = jiff::Timestamp::from_second(1_800_000_000).unwrap();
        let input = call("Front desk", "k3", false, ended);
        let started: jiff::Timestamp = input.started_at.unwrap().0.parse().unwrap();
        let (entries, _) = input.transcript.as_ref().unwrap().entries();
        assert_eq!(ended.as_millisecond() - started.as_millisecond(), entries.last().unwrap().end_offset_ms);
    }
}
