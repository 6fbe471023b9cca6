//! The offline caller's walk through the call: the agent answers, the caller follows the
//! script step by step, answers what it is asked, and says goodbye; or, for a voicemail flow,
//! leaves its message after the greeting.

use super::call::{Call, End};
use super::details;
use super::off_script::reach_step;
use super::opener;
use super::script::{Action, fill};
use super::voice::Voice;
use crate::api::model::*;

/// The call, walked by the offline caller (without a model): how it ended.
pub(super) async fn run(call: &mut Call<'_>, plan: Vec<Action>) -> Result<End, String> {
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
