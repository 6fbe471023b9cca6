//! What the caller does on reaching an agent step: the step noted for judging after the call,
//! and the off-script policy applied to what the caller can tell now.

use super::call::{Call, End};
use super::checkable;
use super::script::fill;
use crate::api::model::*;
use crate::service::metrics::compute::WalkedStep;

/// The caller reaches an agent step: it is noted for judging after the call, and the
/// off-script policy applies to what the caller can decide now.
pub(super) async fn reach_step(
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
pub(super) fn asks_for_keys(said: &str) -> bool {
    let lower = said.to_lowercase();
    let press = ["press ", "enter "].iter().any(|verb| {
        lower.match_indices(verb).any(|(at, _)| {
            let rest = &lower[at + verb.len()..];
            rest.starts_with(|c: char| c.is_ascii_digit() || c == '#' || c == '*')
        })
    });
    press || lower.contains("keypad") || lower.contains("pound key") || lower.contains("star key")
}
