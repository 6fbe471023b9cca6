//! The call as it goes: its transcript on the simulated clock, each line said by the caller or
//! the agent, and the ends a line can bring (an end-call phrase or reason, silence, the
//! maximum duration).

use super::Setup;
use super::opener;
use super::script::fill;
use super::voice::Voice;
use crate::api::model::*;
use crate::service::metrics::compute::WalkedStep;
use crate::service::metrics::judge::{Answer, Judge, Question};
use crate::service::sim::agent_link::AgentLink;
use crate::service::sim::reference_agent::Heard;

/// One call in progress: its setup, what has been said so far on its clock, and the caller's
/// voice and dice.
pub(super) struct Call<'a> {
    pub(super) setup: &'a Setup<'a>,
    pub(super) agent: &'a AgentLink,
    pub(super) judge: &'a Judge,
    pub(super) entries: Vec<TranscriptEntry>,
    pub(super) clock: i64,
    pub(super) agent_turns: u32,
    pub(super) voice: Voice,
    pub(super) rng: fastrand::Rng,
    /// Whether the agent's latest reply ignored what was asked.
    pub(super) last_off_script: bool,
    /// The call id the agent hears: stable for the reference agent, the real one otherwise.
    pub(super) heard_call_id: String,
    pub(super) walked: Vec<WalkedStep>,
}

/// Why the call ended, once it has.
pub(super) type End = (EndedStatus, String);

impl Call<'_> {
    /// Adds a line to the transcript. `maxSimulationDurationSeconds` is a hard cap: a line
    /// that would start after it is never said, and one that would run past it is cut off.
    pub(super) fn push(&mut self, role: ParticipantType, start: i64, text: String, speaking: i64) {
        let cap = self.setup.max_duration_ms;
        if start >= cap {
            self.clock = cap;
            return;
        }
        let participant = if role == ParticipantType::Agent { "agent" } else { "customer" };
        let end = (start + speaking.max(200)).min(cap);
        self.entries.push(TranscriptEntry {
            start_offset_ms: start.max(0),
            end_offset_ms: end,
            text,
            role: Some(role),
            participant_id: Some(participant.into()),
        });
        self.clock = self.clock.max(end);
    }

    pub(super) fn over_time(&self) -> Option<End> {
        (self.clock >= self.setup.max_duration_ms).then(|| {
            (EndedStatus::MaxDurationReached, format!("reached the maximum of {} s", self.setup.max_duration_ms / 1000))
        })
    }

    pub(super) fn phrase_in(&self, text: &str) -> Option<String> {
        let lower = text.to_lowercase();
        self.setup.end_call_phrases.iter().find(|p| !p.trim().is_empty() && lower.contains(&p.to_lowercase())).cloned()
    }

    /// What the caller has said so far.
    pub(super) fn caller_lines(&self) -> Vec<String> {
        self.entries.iter().filter(|e| e.role == Some(ParticipantType::Customer)).map(|e| e.text.clone()).collect()
    }

    /// When the caller's next line starts: after their pause, or, for a caller who interrupts,
    /// over the end of a longer agent turn (some turns for OCCASIONAL, most for HEAVY).
    pub(super) fn customer_starts(&mut self) -> i64 {
        let agent_turn = self.entries.last().filter(|e| e.role == Some(ParticipantType::Agent));
        if let Some(turn) = agent_turn
            && self.voice.cuts_in > 0.0
            && turn.end_offset_ms - turn.start_offset_ms >= 2_500
            && self.rng.f64() < self.voice.cuts_in
        {
            return turn.end_offset_ms - 300 - self.rng.i64(0..600);
        }
        self.clock + self.voice.response_ms
    }

    pub(super) async fn customer_says(&mut self, text: String) -> Result<Option<End>, String> {
        let earlier = self.caller_lines();
        let mut line = text;
        // Keys are tones, not words: nobody says "um" on a keypad.
        if self.voice.disfluent && !line.starts_with("[DTMF") && self.rng.bool() {
            line = format!("Um, {}", opener::lowercase_first(&line));
        }
        let start = self.customer_starts();
        let speaking = self.voice.speaking_ms(&line);
        self.push(ParticipantType::Customer, start, line.clone(), speaking);
        if let Some(end) = self.over_time() {
            return Ok(Some(end));
        }
        if let Some(phrase) = self.phrase_in(&line) {
            return Ok(Some((
                EndedStatus::CustomerEndedCall,
                format!("the customer said the end-call phrase \"{phrase}\""),
            )));
        }
        self.agent_answers(&line, earlier).await
    }

    /// The agent's reply to `heard`, with what the caller said before it (`earlier`).
    pub(super) async fn agent_answers(&mut self, heard: &str, earlier: Vec<String>) -> Result<Option<End>, String> {
        let reply = self
            .agent
            .reply(&Heard {
                text: heard.to_owned(),
                call_id: self.heard_call_id.clone(),
                turn: self.agent_turns,
                agent: self.setup.agent_name.clone(),
                earlier,
            })
            .await?;
        self.agent_turns += 1;
        if reply.latency_ms > self.setup.silence_timeout_ms {
            self.clock += self.setup.silence_timeout_ms;
            if let Some(end) = self.over_time() {
                self.clock = self.setup.max_duration_ms;
                return Ok(Some(end));
            }
            let seconds = self.setup.silence_timeout_ms / 1000;
            return Ok(Some((EndedStatus::SilenceTimeOut, format!("nobody spoke for {seconds} s"))));
        }
        let caller_stopped = self.entries.last().map_or(self.clock, |e| e.end_offset_ms);
        let start = caller_stopped + reply.latency_ms;
        let speaking = Voice::of(None).speaking_ms(&reply.text);
        self.push(ParticipantType::Agent, start, reply.text.clone(), speaking);
        self.last_off_script = reply.off_script;
        if let Some(end) = self.over_time() {
            return Ok(Some(end));
        }
        if let Some(phrase) = self.phrase_in(&reply.text) {
            return Ok(Some((EndedStatus::AgentEndedCall, format!("the agent said the end-call phrase \"{phrase}\""))));
        }
        self.reason_met().await
    }

    /// The caller presses keys (`{{placeholders}}` filled): tones, heard as `[DTMF 1]`.
    pub(super) async fn press(&mut self, keys: &str) -> Result<Option<End>, String> {
        let keys = fill(keys, self.setup.variables, self.setup.persona);
        self.customer_says(format!("[DTMF {keys}]")).await
    }

    /// The caller keeps quiet for `seconds`; the agent has the floor.
    pub(super) async fn keep_quiet(&mut self, seconds: i64) -> Result<Option<End>, String> {
        self.clock = (self.clock + seconds.clamp(0, 3_600) * 1000).min(self.setup.max_duration_ms);
        match self.over_time() {
            Some(end) => Ok(Some(end)),
            None => {
                let earlier = self.caller_lines();
                self.agent_answers("", earlier).await
            }
        }
    }

    /// An end-call reason judged true against the conversation so far.
    pub(super) async fn reason_met(&self) -> Result<Option<End>, String> {
        for reason in &self.setup.end_call_reasons {
            let transcript =
                Transcript { entries: self.entries.clone(), participants: Vec::new(), transcription_source: None };
            let question = Question {
                prompt: reason,
                answer: Answer::Boolean,
                transcript: &transcript,
                agent_only: true,
                knowledge: None,
            };
            if let Ok(verdict) = self.judge.judge(&question).await
                && verdict.holds()
            {
                // The reason is judged on the agent's turns: the agent has done what ends the call.
                return Ok(Some((EndedStatus::AgentEndedCall, format!("end-call reason met: {reason}"))));
            }
        }
        Ok(None)
    }
}
