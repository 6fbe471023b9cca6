//! One simulated call on a simulated clock: the customer walks the flow's step graph,
//! speaking with the persona's traits; the agent answers each line; the call ends on an
//! end-call phrase, an end-call reason, silence, the maximum duration or the end of the flow.

mod checkable;
mod details;
mod model_caller;
mod opener;
mod script;

use std::collections::BTreeMap;

pub use model_caller::{CallerConfig, Failed, ModelCaller};
use script::{Action, actions, fill};

use super::agent_link::AgentLink;
use super::reference_agent::Heard;
use crate::api::model::*;
use crate::service::metrics::compute::{WalkedStep, script as steps_of};
use crate::service::metrics::judge::{Answer, Judge, Question};

/// How the call is set up.
pub struct Setup<'a> {
    pub call_id: String,
    pub flow: &'a CustomerFlow,
    pub variant: Option<&'a FlowVariant>,
    pub persona: Option<&'a Persona>,
    pub variables: &'a BTreeMap<String, String>,
    pub end_call_phrases: Vec<String>,
    pub end_call_reasons: Vec<String>,
    pub silence_timeout_ms: i64,
    pub max_duration_ms: i64,
    pub agent_name: String,
    /// The language model that plays the caller, when the service has one (`[caller]`).
    pub caller: Option<&'a ModelCaller>,
}

/// How the call went.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub transcript: Transcript,
    pub ended_status: EndedStatus,
    pub end_reason: String,
    pub duration_ms: i64,
    /// The AGENT_TURN steps the caller reached, to be judged after the call.
    pub walked: Vec<WalkedStep>,
}

/// A key for the call that is the same every time the same variant runs as the same
/// iteration. The runner names calls `<simulation job id>-<iteration>`; the job id is new
/// each run, so the reference agent (whose flaws are rolled from the call id) and the
/// customer's voice are keyed on the variant, persona and iteration instead, and a plan run
/// twice gives the same conversations.
fn stable_key(setup: &Setup) -> String {
    let iteration = setup
        .call_id
        .rsplit_once('-')
        .map(|(_, n)| n)
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    let Some(iteration) = iteration else { return setup.call_id.clone() };
    let variant = setup.variant.map_or(setup.flow.id, |v| v.id);
    match setup.persona {
        Some(persona) => format!("{variant}-{}-{iteration}", persona.id),
        None => format!("{variant}-{iteration}"),
    }
}

/// The persona's voice: pace, timing, disfluencies, mood and memory.
struct Voice {
    words_per_minute: f64,
    response_ms: i64,
    disfluent: bool,
    opener: Option<&'static str>,
    forgets: f64,
    /// The share of the agent's longer turns the caller starts talking over.
    cuts_in: f64,
}

impl Voice {
    fn of(persona: Option<&Persona>) -> Voice {
        let Some(p) = persona.map(|p| &p.fields) else {
            return Voice {
                words_per_minute: 150.0,
                response_ms: 700,
                disfluent: false,
                opener: None,
                forgets: 0.0,
                cuts_in: 0.0,
            };
        };
        Voice {
            words_per_minute: match p.speech_pace {
                Some(SpeechPace::SuperSlow) => 95.0,
                Some(SpeechPace::Slow) => 115.0,
                Some(SpeechPace::Fast) => 190.0,
                Some(SpeechPace::SuperFast) => 230.0,
                _ => 150.0,
            },
            response_ms: match p.response_timing {
                Some(ResponseTiming::Quick | ResponseTiming::BargeIn) => 250,
                Some(ResponseTiming::Relaxed) => 1600,
                _ => 700,
            },
            disfluent: p.has_disfluencies == Some(true),
            opener: match p.base_emotion {
                Some(BaseEmotion::Frustrated | BaseEmotion::Angry) => Some("Look, "),
                Some(BaseEmotion::Anxious) => Some("Sorry, I'm a bit flustered. "),
                Some(BaseEmotion::Cheerful) => Some("Hi there! "),
                Some(BaseEmotion::Confused) => Some("Sorry, I'm a little confused. "),
                Some(BaseEmotion::Skeptical) => Some("Hm. "),
                Some(BaseEmotion::Rushed) => Some("I'm in a hurry, so quickly: "),
                Some(BaseEmotion::Distracted) => Some("Sorry, one second... okay. "),
                Some(BaseEmotion::Sad) => Some("Hi... "),
                _ => None,
            },
            forgets: match p.memory_reliability {
                Some(MemoryReliability::Low) => 0.3,
                _ => 0.0,
            },
            cuts_in: match p.interruption {
                Some(Interruption::Occasional) => 0.3,
                Some(Interruption::Heavy) => 0.7,
                _ => 0.0,
            },
        }
    }

    fn speaking_ms(&self, text: &str) -> i64 {
        let words = text.split_whitespace().count().max(1) as f64;
        (words / self.words_per_minute * 60_000.0).round() as i64
    }
}

struct Call<'a> {
    setup: &'a Setup<'a>,
    agent: &'a AgentLink,
    judge: &'a Judge,
    entries: Vec<TranscriptEntry>,
    clock: i64,
    agent_turns: u32,
    voice: Voice,
    rng: fastrand::Rng,
    /// Whether the agent's latest reply ignored what was asked.
    last_off_script: bool,
    /// The call id the agent hears: stable for the reference agent, the real one otherwise.
    heard_call_id: String,
    walked: Vec<WalkedStep>,
}

/// Why the call ended, once it has.
type End = (EndedStatus, String);

impl Call<'_> {
    /// Adds a line to the transcript. `maxSimulationDurationSeconds` is a hard cap: a line
    /// that would start after it is never said, and one that would run past it is cut off.
    fn push(&mut self, role: ParticipantType, start: i64, text: String, speaking: i64) {
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

    fn over_time(&self) -> Option<End> {
        (self.clock >= self.setup.max_duration_ms).then(|| {
            (EndedStatus::MaxDurationReached, format!("reached the maximum of {} s", self.setup.max_duration_ms / 1000))
        })
    }

    fn phrase_in(&self, text: &str) -> Option<String> {
        let lower = text.to_lowercase();
        self.setup.end_call_phrases.iter().find(|p| !p.trim().is_empty() && lower.contains(&p.to_lowercase())).cloned()
    }

    /// What the caller has said so far.
    fn caller_lines(&self) -> Vec<String> {
        self.entries.iter().filter(|e| e.role == Some(ParticipantType::Customer)).map(|e| e.text.clone()).collect()
    }

    /// When the caller's next line starts: after their pause, or, for a caller who interrupts,
    /// over the end of a longer agent turn (some turns for OCCASIONAL, most for HEAVY).
    fn customer_starts(&mut self) -> i64 {
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

    async fn customer_says(&mut self, text: String) -> Result<Option<End>, String> {
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
    async fn agent_answers(&mut self, heard: &str, earlier: Vec<String>) -> Result<Option<End>, String> {
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
    async fn press(&mut self, keys: &str) -> Result<Option<End>, String> {
        let keys = fill(keys, self.setup.variables, self.setup.persona);
        self.customer_says(format!("[DTMF {keys}]")).await
    }

    /// The caller keeps quiet for `seconds`; the agent has the floor.
    async fn keep_quiet(&mut self, seconds: i64) -> Result<Option<End>, String> {
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
    async fn reason_met(&self) -> Result<Option<End>, String> {
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

/// Whether the agent's latest line leaves the caller on script. The offline caller decides
/// only what it can be sure of, never by matching the agent's wording against the step's:
/// the agent said it went off script (the reference agent's planted flaws do), or asked for
/// keys the script does not press next, or, when the flow's adherence is STRICT, missed an
/// expectation whose content can be checked (a quoted phrase, a number, a `/regex/`). An
/// expectation in plain words is judged after the call, not here.
fn on_script(call: &Call, expected: &str, presses_next: bool) -> bool {
    if call.last_off_script {
        return false;
    }
    let said = call.entries.iter().rev().find(|e| e.role == Some(ParticipantType::Agent)).map(|e| e.text.as_str());
    let Some(said) = said else { return true };
    if !presses_next && asks_for_keys(said) {
        return false;
    }
    let strict = call.setup.flow.script_adherence == Some(ScriptAdherence::Strict);
    !strict || checkable::holds(expected, said).unwrap_or(true)
}

/// Whether an agent's line asks the caller to press keys ("press 1", "enter your PIN followed
/// by the pound key", "using your keypad").
fn asks_for_keys(said: &str) -> bool {
    let lower = said.to_lowercase();
    let press = ["press ", "enter "].iter().any(|verb| {
        lower.match_indices(verb).any(|(at, _)| {
            let rest = &lower[at + verb.len()..];
            rest.starts_with(|c: char| c.is_ascii_digit() || c == '#' || c == '*')
        })
    });
    press || lower.contains("keypad") || lower.contains("pound key") || lower.contains("star key")
}

/// Runs the whole call.
pub async fn converse(setup: &Setup<'_>, agent: &AgentLink, judge: &Judge) -> Result<Outcome, Failed> {
    let key = stable_key(setup);
    let seed = key.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    let mut call = Call {
        setup,
        agent,
        judge,
        entries: Vec::new(),
        clock: 0,
        agent_turns: 0,
        voice: Voice::of(setup.persona),
        rng: fastrand::Rng::with_seed(seed),
        last_off_script: false,
        heard_call_id: if agent.is_reference() { key } else { setup.call_id.clone() },
        walked: Vec::new(),
    };
    let steps = steps_of(setup.flow, setup.variant);
    let adaptive = setup.flow.branching_mode == Some(BranchingMode::Adaptive);
    let mut plan = Vec::new();
    actions(steps, adaptive, &mut call.rng, &mut plan);
    script::mark_presses(&mut plan);
    let end = match setup.caller {
        Some(model) => model_caller::run(&mut call, plan, model).await?,
        None => run(&mut call, plan).await?,
    };
    let (ended_status, end_reason) = end;
    let duration_ms =
        call.entries.iter().map(|e| e.end_offset_ms).max().unwrap_or(0).max(call.clock).min(setup.max_duration_ms);
    Ok(Outcome {
        transcript: Transcript {
            entries: call.entries,
            participants: vec![
                Participant::new("agent", ParticipantType::Agent),
                Participant::new("customer", ParticipantType::SimulatedCustomer),
            ],
            transcription_source: None,
        },
        ended_status,
        end_reason,
        duration_ms,
        walked: call.walked,
    })
}

async fn run(call: &mut Call<'_>, plan: Vec<Action>) -> Result<End, String> {
    if call.setup.flow.is_voicemail() {
        return voicemail(call, plan).await;
    }
    // The agent answers the call.
    call.clock = 800.min(call.setup.max_duration_ms);
    if let Some(end) = call.agent_answers("", Vec::new()).await? {
        return Ok(end);
    }
    let persona = call.setup.persona;
    let mut first = true;
    let mut last_line = String::new();
    for action in plan {
        let end = match action {
            Action::Say(text) | Action::Instruction(text) => {
                let mut line = fill(&text, call.setup.variables, persona);
                if first && let Some(opener) = call.voice.opener {
                    line = opener::with_opener(opener, &line);
                }
                first = false;
                last_line = line.clone();
                let end = call.customer_says(line).await?;
                // A caller with a poor memory asks for details again.
                if end.is_none() && call.voice.forgets > 0.0 && call.rng.f64() < call.voice.forgets {
                    call.customer_says("Sorry, could you repeat that?".into()).await?
                } else {
                    end
                }
            }
            Action::Press(keys) => call.press(&keys).await?,
            Action::Silence(seconds) => call.keep_quiet(seconds).await?,
            Action::Expect { expected, policy, presses_next, step } => {
                reach_step(call, &expected, policy, presses_next, step, &last_line).await?
            }
        };
        if let Some(end) = end {
            return Ok(end);
        }
    }
    // The script is done. A caller does not hang up on a question: asked for something they
    // hold that the script never says (their name, say), they give it first.
    for _ in 0..details::MAX_ANSWERS {
        let asked = match call.entries.last() {
            Some(last) if last.role == Some(ParticipantType::Agent) => last.text.clone(),
            _ => break,
        };
        let said = call.caller_lines();
        let Some(answer) = details::answer(&asked, &said, call.setup.variables, persona) else { break };
        if let Some(end) = call.customer_says(answer).await? {
            return Ok(end);
        }
    }
    // The flow is done: the customer says goodbye, or simply hangs up.
    let farewell = call
        .setup
        .end_call_phrases
        .first()
        .map_or("Thanks, that's everything.".to_owned(), |p| format!("Thanks, {p}."));
    if let Some(end) = call.customer_says(farewell).await? {
        return Ok(end);
    }
    Ok((EndedStatus::CustomerEndedCall, "the flow was completed".into()))
}

/// The caller reaches an agent step: it is noted for judging after the call, and the
/// off-script policy applies to what the caller can decide now.
async fn reach_step(
    call: &mut Call<'_>,
    expected: &str,
    policy: Option<OffScriptPolicy>,
    presses_next: bool,
    step: String,
    last_line: &str,
) -> Result<Option<End>, String> {
    let expected = fill(expected, call.setup.variables, call.setup.persona);
    if !expected.trim().is_empty() {
        call.walked.push(WalkedStep { label: step, expectation: expected.clone() });
    }
    let policy = policy.or_else(|| call.setup.flow.off_script_policy.clone());
    off_script(call, &expected, presses_next, policy, last_line).await
}

/// Applies the off-script policy until the agent is back on script or the attempts run out.
async fn off_script(
    call: &mut Call<'_>,
    expected: &str,
    presses_next: bool,
    policy: Option<OffScriptPolicy>,
    last_line: &str,
) -> Result<Option<End>, String> {
    if on_script(call, expected, presses_next) {
        return Ok(None);
    }
    let Some(policy) = policy else { return Ok(None) };
    let attempts = policy.max_attempts.unwrap_or(1).max(1);
    for _ in 0..attempts {
        let end = match policy.reaction {
            Some(OffScriptReaction::Say | OffScriptReaction::Respond) => {
                let line = policy.say_line.clone().unwrap_or_else(|| "Sorry, that's not what I asked.".into());
                call.customer_says(line).await?
            }
            Some(OffScriptReaction::Repeat) if !last_line.is_empty() => {
                call.customer_says(last_line.to_owned()).await?
            }
            // Stay silent: wait, and let the agent speak again.
            _ => call.keep_quiet(policy.wait_seconds.unwrap_or(3)).await?,
        };
        if end.is_some() {
            return Ok(end);
        }
        if on_script(call, expected, presses_next) {
            return Ok(None);
        }
    }
    match policy.then {
        Some(OffScriptThen::HangUp | OffScriptThen::HangUpInvalidate) => Ok(Some((
            EndedStatus::CustomerEndedCall,
            format!("the customer hung up after {attempts} off-script replies"),
        ))),
        _ => Ok(None),
    }
}

/// A voicemail flow: the greeting plays, the customer leaves the message, the call ends.
async fn voicemail(call: &mut Call<'_>, plan: Vec<Action>) -> Result<End, String> {
    call.clock = 1200.min(call.setup.max_duration_ms);
    let greeting = format!("You've reached {}. Please leave a message after the tone.", call.setup.agent_name);
    let speaking = Voice::of(None).speaking_ms(&greeting);
    call.push(ParticipantType::Agent, call.clock, greeting, speaking);
    for action in plan {
        if let Some(end) = call.over_time() {
            return Ok(end);
        }
        if let Action::Say(text) | Action::Instruction(text) = action {
            let line = fill(&text, call.setup.variables, call.setup.persona);
            let start = call.clock + 600;
            let speaking = call.voice.speaking_ms(&line);
            call.push(ParticipantType::Customer, start, line, speaking);
        }
    }
    if let Some(end) = call.over_time() {
        return Ok(end);
    }
    Ok((EndedStatus::VoiceMailReached, "the call reached voicemail".into()))
}

#[cfg(test)]
mod tests;
