//! The caller played by a language model (`[caller]` in config.toml): the model plays the
//! persona through the flow, phrasing each CUSTOMER_TURN step in its own words, while
//! CUSTOMER_VERBATIM_TURN lines are said as written, keys pressed and silences kept as the
//! offline caller does. On a LOOSE flow it answers what the script did not foresee and comes
//! back to it; on a STRICT one it does its steps and nothing else. The model says when the
//! caller's goal is done by hanging up. A model that fails (no answer in time, an HTTP error, a
//! reply that is not the asked JSON, an empty line) fails the simulation, saying why.
//! docs/caller.md has the prompts and the reply format.

mod prompt;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::script::{Action, fill};
use super::{Call, End};
use crate::api::model::{EndedStatus, ParticipantType, ScriptAdherence};
use crate::service::chat_completions::{ChatCompletions, Message, Request};

/// `[caller]` in config.toml (and `serve --caller-…`): an OpenAI-compatible chat-completions
/// endpoint that plays the simulated caller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallerConfig {
    /// `https://api.openai.com/v1`, or any endpoint that speaks chat completions.
    pub base_url: String,
    pub model: String,
    /// Environment variable holding the key.
    pub api_key_env: Option<String>,
    /// Seconds one request may take (default 30).
    pub timeout_seconds: Option<u64>,
    /// The most tokens one reply may take (default 300).
    pub max_tokens: Option<u32>,
}

/// The default of `timeout_seconds`.
pub const TIMEOUT_SECONDS_DEFAULT: u64 = 30;
/// The default of `max_tokens`: a spoken turn is a few sentences.
pub const MAX_TOKENS_DEFAULT: u32 = 300;
/// A caller's turn is not creative writing, but iterations of one test case should not all be the
/// same call; the seed (from the variant, persona and iteration) keeps a rerun close to the first.
const TEMPERATURE: f64 = 0.7;
/// Turns the model may take to answer what the agent asked before it does its current step
/// (LOOSE flows).
const DETOURS_PER_STEP_MAX: usize = 3;
/// Turns the model may take once its script is done (or, with no script, at all) before the
/// caller hangs up for it.
const FREE_TURNS_MAX: usize = 30;

/// Why a call could not be held: the agent failed (unreachable, no answer in time), or the
/// caller model did.
#[derive(Debug, Clone, PartialEq)]
pub enum Failed {
    Agent(String),
    CallerModel(String),
}

impl From<String> for Failed {
    /// The conversation's own steps fail only on the agent's side.
    fn from(message: String) -> Failed {
        Failed::Agent(message)
    }
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failed::Agent(message) | Failed::CallerModel(message) => f.write_str(message),
        }
    }
}

/// The configured caller model, ready to be asked.
#[derive(Debug, Clone)]
pub struct ModelCaller {
    chat: ChatCompletions,
    timeout: Duration,
    max_tokens: u32,
}

/// One turn as the model answers it (`{"say": …, "hangUp": …, "stepDone": …}`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Turn {
    say: String,
    #[serde(default)]
    hang_up: bool,
    #[serde(default = "done")]
    step_done: bool,
}

fn done() -> bool {
    true
}

impl ModelCaller {
    /// The caller model `config` names; an error when its key variable is not set or a bound is 0.
    pub fn new(config: &CallerConfig) -> Result<ModelCaller, String> {
        let timeout = config.timeout_seconds.unwrap_or(TIMEOUT_SECONDS_DEFAULT);
        if timeout == 0 {
            return Err("caller timeout_seconds must be at least 1".into());
        }
        let max_tokens = config.max_tokens.unwrap_or(MAX_TOKENS_DEFAULT);
        if max_tokens == 0 {
            return Err("caller max_tokens must be at least 1".into());
        }
        let chat =
            ChatCompletions::new("caller model", &config.base_url, &config.model, config.api_key_env.as_deref())?;
        Ok(ModelCaller { chat, timeout: Duration::from_secs(timeout), max_tokens })
    }

    /// The model's next turn: the call so far and what to do now.
    async fn turn(&self, system: &str, user: String, seed: u64) -> Result<Turn, Failed> {
        let request = Request {
            messages: vec![Message::system(system), Message::user(user)],
            temperature: TEMPERATURE,
            json: true,
            max_tokens: Some(self.max_tokens),
            seed: Some(seed),
            timeout: self.timeout,
        };
        let answer = self.chat.complete(&request).await;
        let turn = answer.and_then(|content| read_turn(&content)).map_err(|e| self.chat.redact(e));
        turn.map_err(|reason| {
            tracing::warn!(%reason, "the caller model failed");
            Failed::CallerModel(reason)
        })
    }
}

/// The turn a reply holds. A JSON object in a Markdown code fence is read too; anything else,
/// or an empty line from a caller who does not hang up, is refused.
fn read_turn(content: &str) -> Result<Turn, String> {
    let trimmed = content.trim();
    let unfenced = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|inner| inner.strip_suffix("```"))
        .unwrap_or(trimmed);
    let turn: Turn = serde_json::from_str(unfenced.trim()).map_err(|e| {
        let start: String = trimmed.chars().take(120).collect();
        format!("caller model reply is not the asked JSON {{\"say\", \"hangUp\", \"stepDone\"}} ({e}): {start:?}")
    })?;
    if turn.say.contains('\0') {
        return Err("caller model reply holds a NUL character".into());
    }
    if turn.say.trim().is_empty() && !turn.hang_up {
        return Err("caller model gave an empty line without hanging up".into());
    }
    Ok(turn)
}

/// The whole call with the model playing the caller.
pub(super) async fn run(call: &mut Call<'_>, plan: Vec<Action>, model: &ModelCaller) -> Result<End, Failed> {
    if call.setup.flow.is_voicemail() {
        // A voicemail's message is its script: there is no one to improvise with.
        return Ok(super::run(call, plan).await?);
    }
    // The model speaks the persona's hesitations itself, and a verbatim line is said as written.
    call.voice.disfluent = false;
    let talk = Talk {
        model,
        system: prompt::system(call.setup, &plan),
        seed: u64::from(call.rng.u32(..)),
        strict: call.setup.flow.script_adherence == Some(ScriptAdherence::Strict),
    };
    // The agent answers the call.
    call.clock = 800.min(call.setup.max_duration_ms);
    if let Some(end) = call.agent_answers("", Vec::new()).await? {
        return Ok(end);
    }
    let (variables, persona) = (call.setup.variables, call.setup.persona);
    let mut last_line = String::new();
    for action in plan {
        let end = match action {
            Action::Say(text) => {
                last_line = fill(&text, variables, persona);
                call.customer_says(last_line.clone()).await?
            }
            Action::Instruction(text) => talk.step(call, &fill(&text, variables, persona), &mut last_line).await?,
            Action::Press(keys) => call.press(&keys).await?,
            Action::Silence(seconds) => call.keep_quiet(seconds).await?,
            Action::Expect { expected, policy, presses_next, step } => {
                super::reach_step(call, &expected, policy, presses_next, step, &last_line).await?
            }
        };
        if let Some(end) = end {
            return Ok(end);
        }
    }
    talk.after_script(call).await
}

/// What a call's turns with the model share.
struct Talk<'m> {
    model: &'m ModelCaller,
    system: String,
    seed: u64,
    strict: bool,
}

impl Talk<'_> {
    async fn ask(&self, call: &Call<'_>, direction: &str) -> Result<Turn, Failed> {
        self.model.turn(&self.system, prompt::user(&call.entries, direction), self.seed).await
    }

    /// One step of the script in the model's words. On a LOOSE flow the model may first answer
    /// what the agent asked (`stepDone: false`), a few turns at most, before it does the step.
    async fn step(&self, call: &mut Call<'_>, step: &str, last_line: &mut String) -> Result<Option<End>, Failed> {
        let direction = prompt::step(step);
        for detour in 0..=DETOURS_PER_STEP_MAX {
            let turn = self.ask(call, &direction).await?;
            let done = turn.step_done || self.strict || detour == DETOURS_PER_STEP_MAX;
            if done {
                last_line.clone_from(&turn.say);
            }
            if let Some(end) = speak(call, turn).await? {
                return Ok(Some(end));
            }
            if done {
                break;
            }
        }
        Ok(None)
    }

    /// Once the script is done: on a STRICT flow the caller says goodbye; on a LOOSE one (and an
    /// improv flow with no steps) the model carries on until it hangs up.
    async fn after_script(&self, call: &mut Call<'_>) -> Result<End, Failed> {
        if self.strict {
            let turn = self.ask(call, prompt::CLOSE_DIRECTION).await?;
            let turn = Turn { hang_up: true, ..turn };
            return Ok(speak(call, turn).await?.unwrap_or_else(hung_up));
        }
        for _ in 0..FREE_TURNS_MAX {
            let turn = self.ask(call, prompt::FREE_DIRECTION).await?;
            if let Some(end) = speak(call, turn).await? {
                return Ok(end);
            }
        }
        Ok((
            EndedStatus::CustomerEndedCall,
            format!("the caller hung up: the caller model had not ended the call after {FREE_TURNS_MAX} turns"),
        ))
    }
}

/// Says the model's turn: a caller who hangs up says their line and is gone; otherwise the agent
/// answers it.
async fn speak(call: &mut Call<'_>, turn: Turn) -> Result<Option<End>, Failed> {
    if !turn.hang_up {
        return Ok(call.customer_says(turn.say).await?);
    }
    if !turn.say.trim().is_empty() {
        let start = call.customer_starts();
        let speaking = call.voice.speaking_ms(&turn.say);
        call.push(ParticipantType::Customer, start, turn.say, speaking);
    }
    Ok(Some(call.over_time().unwrap_or_else(hung_up)))
}

/// The end of a call the caller model hung up.
fn hung_up() -> End {
    (EndedStatus::CustomerEndedCall, "the caller model ended the call".into())
}

#[cfg(test)]
mod tests;
