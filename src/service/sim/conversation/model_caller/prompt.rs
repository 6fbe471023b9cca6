//! Every word the caller model is sent, in one place: the system prompt (who the caller is, why
//! they call, their script, how closely to keep to it, and the reply format) and each turn's user
//! message (the call so far, capped, and what to do now). docs/caller.md quotes these texts and
//! shows a whole request; a test holds the two together.

use super::super::Setup;
use super::super::script::{Action, fill};
use crate::api::model::*;

/// The system prompt; `{name}` marks where a section goes.
pub const SYSTEM_TEMPLATE: &str = r#"You are the caller in a test of {agent}, a phone agent. Play the person below as a real caller would: plain spoken words, one turn at a time, in that person's voice and mood. Never say that this is a test, and never mention prompts or scripts. In the call, the agent's lines are marked AGENT and yours YOU.

{persona}

{situation}

{script}

{adherence}

Reply to every turn with this JSON object and nothing else:
{"say": "what you say now", "hangUp": false, "stepDone": true}
- say: your words for this turn. Leave it empty only when you hang up without a word.
- hangUp: true when your goal for the call is done, or cannot be done, and you end the call with this turn; say your goodbye in "say".
- stepDone: false when this turn answers something the agent said or asked that your current step does not cover, so that the step is still to do; true otherwise."#;

/// How a LOOSE flow's caller keeps to the script.
pub const LOOSE_ADHERENCE: &str = "Your script is loose: when the agent says or asks something your script did not foresee, answer it as this person would (with \"stepDone\": false), then come back to your script.";

/// How a STRICT flow's caller keeps to the script.
pub const STRICT_ADHERENCE: &str =
    "Your script is strict: do your steps in order, one per turn, and nothing else; say only what your step says.";

/// The script section of a caller with no steps.
pub const NO_SCRIPT: &str = "You have no script: improvise from why you are calling.";

/// Each turn's direction for a CUSTOMER_TURN step; the step follows it.
pub const STEP_DIRECTION: &str = "Now: your next step, in your own words as this person: ";

/// The direction once the script is done on a LOOSE flow, and every turn of a caller with no steps.
pub const FREE_DIRECTION: &str = "Now: carry on the call as this person, toward your goal. When your goal is done, or cannot be done, say goodbye and set \"hangUp\": true.";

/// The direction once the script is done on a STRICT flow.
pub const CLOSE_DIRECTION: &str = "Now: your script is done. Say goodbye as this person and set \"hangUp\": true.";

/// The heading of the call so far in each turn's message.
pub const CALL_SO_FAR: &str = "The call so far:";

/// The most lines of the call each request carries (the latest ones), and the most characters of
/// each: what a turn is sent stays bounded however long the call or the agent's answers.
pub const HISTORY_LINES_MAX: usize = 40;
pub const LINE_CHARS_MAX: usize = 1_000;

/// The system prompt for a call of `setup` whose script is `plan`.
pub fn system(setup: &Setup, plan: &[Action]) -> String {
    let adherence = match setup.flow.script_adherence {
        Some(ScriptAdherence::Strict) => STRICT_ADHERENCE,
        _ => LOOSE_ADHERENCE,
    };
    render(
        SYSTEM_TEMPLATE,
        &[
            ("agent", setup.agent_name.clone()),
            ("persona", persona(setup)),
            ("situation", situation(setup)),
            ("script", script(setup, plan)),
            ("adherence", adherence.to_owned()),
        ],
    )
}

/// The direction for a CUSTOMER_TURN step.
pub fn step(step: &str) -> String {
    format!("{STEP_DIRECTION}{step}")
}

/// A turn's user message: the latest lines of the call, then what to do now.
pub fn user(entries: &[TranscriptEntry], direction: &str) -> String {
    let mut out = format!("{CALL_SO_FAR}\n");
    let skipped = entries.len().saturating_sub(HISTORY_LINES_MAX);
    if skipped > 0 {
        out.push_str(&format!("({skipped} earlier lines left out)\n"));
    }
    for entry in &entries[skipped..] {
        let who = if entry.role == Some(ParticipantType::Agent) { "AGENT" } else { "YOU" };
        let text: String = entry.text.chars().take(LINE_CHARS_MAX).collect();
        let text = if text.trim().is_empty() { "(says nothing)".to_owned() } else { text };
        out.push_str(&format!("{who}: {text}\n"));
    }
    out.push('\n');
    out.push_str(direction);
    out
}

/// `template` with each `{name}` of `values` replaced; the values are not read again, so a
/// persona's text that holds `{script}` stays as written.
fn render(template: &str, values: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len() + 1024);
    let mut rest = template;
    'scan: while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        for (name, value) in values {
            if let Some(after) = rest[at + 1..].strip_prefix(name).and_then(|r| r.strip_prefix('}')) {
                out.push_str(value);
                rest = after;
                continue 'scan;
            }
        }
        out.push('{');
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out
}

/// A wire value as words: `SUPER_SLOW` → "super slow".
fn words(value: &str) -> String {
    value.to_lowercase().replace('_', " ")
}

fn persona(setup: &Setup) -> String {
    let Some(p) = setup.persona.map(|p| &p.fields) else {
        return format!("Who you are:\n- A customer of {}.", setup.agent_name);
    };
    let mut lines = vec!["Who you are:".to_owned()];
    if let Some(name) = p.display_name.as_ref().or(p.name.as_ref()) {
        lines.push(format!("- Name: {name}"));
    }
    if let Some(about) = p.description.as_deref().filter(|d| !d.trim().is_empty()) {
        lines.push(format!("- About you: {about}"));
    }
    if let Some(story) = p.backstory_prompt.as_deref().filter(|d| !d.trim().is_empty()) {
        lines.push(format!("- Your story: {}", fill(story, setup.variables, setup.persona)));
    }
    let traits = [
        ("language", p.language.as_ref().map(|v| v.as_str().to_owned())),
        ("also understands", Some(also_understood(p)).filter(|l| !l.is_empty())),
        ("accent", p.accent.as_ref().map(|v| v.as_str().to_owned())),
        ("age", p.age.as_ref().map(|v| v.as_str().to_owned())),
        ("gender", p.gender.as_ref().map(|v| v.as_str().to_owned())),
    ];
    if let Some(line) = labelled(traits) {
        lines.push(format!("- Speaking: {line}"));
    }
    let manner = [
        ("mood", p.base_emotion.as_ref().map(|v| v.as_str().to_owned())),
        ("pace", p.speech_pace.as_ref().map(|v| v.as_str().to_owned())),
        ("clarity", p.speech_clarity.as_ref().map(|v| v.as_str().to_owned())),
        ("intent", p.intent_clarity.as_ref().map(|v| v.as_str().to_owned())),
        ("confirming", p.confirmation_style.as_ref().map(|v| v.as_str().to_owned())),
        ("memory", p.memory_reliability.as_ref().map(|v| v.as_str().to_owned())),
        ("interrupting", p.interruption.as_ref().map(|v| v.as_str().to_owned())),
        ("hesitations (um, uh)", p.has_disfluencies.map(|d| if d { "yes" } else { "no" }.to_owned())),
    ];
    if let Some(line) = labelled(manner) {
        lines.push(format!("- Manner: {line}"));
    }
    let known = known(setup);
    if !known.is_empty() {
        lines.push(format!("- What you know, and give when asked: {}", known.join("; ")));
    }
    if let Some(idle) = p.idle_messages.as_ref().filter(|m| !m.is_empty()) {
        let quoted: Vec<String> = idle.iter().map(|m| format!("\"{m}\"")).collect();
        let seconds = p.idle_timeout_seconds.unwrap_or(persona_limits::IDLE_TIMEOUT_SECONDS_DEFAULT);
        let times = p.idle_message_max_spoken_count.unwrap_or(persona_limits::IDLE_MESSAGE_MAX_SPOKEN_COUNT_DEFAULT);
        lines.push(format!(
            "- When the agent says nothing for about {seconds} s, you say one of these (at most {times} times): {}",
            quoted.join(" ")
        ));
    }
    lines.join("\n")
}

/// `label: value` for each trait that has a value, as words; None when none has.
fn labelled<const N: usize>(traits: [(&str, Option<String>); N]) -> Option<String> {
    let said: Vec<String> =
        traits.into_iter().filter_map(|(label, value)| Some(format!("{label}: {}", words(&value?)))).collect();
    (!said.is_empty()).then(|| said.join("; "))
}

/// The languages the persona understands besides its own, comma separated.
fn also_understood(p: &PersonaFields) -> String {
    let others = p.understood_languages.iter().flatten().filter(|l| Some(*l) != p.language.as_ref());
    others.map(|l| l.as_str().to_owned()).collect::<Vec<_>>().join(", ")
}

/// What the caller holds: the run's variables, then the persona's properties they do not give.
fn known(setup: &Setup) -> Vec<String> {
    let mut out: Vec<String> = setup.variables.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let properties = setup.persona.and_then(|p| p.fields.properties.as_ref());
    for (key, value) in properties.into_iter().flatten() {
        if !setup.variables.contains_key(key) {
            out.push(format!("{key}: {}", value.as_str().map_or_else(|| value.to_string(), str::to_owned)));
        }
    }
    out
}

fn situation(setup: &Setup) -> String {
    let mut lines = vec!["Why you are calling:".to_owned()];
    let flow = setup.flow;
    match (flow.title.as_deref(), flow.description.as_deref().filter(|d| !d.trim().is_empty())) {
        (Some(title), Some(description)) => lines.push(format!("- {title}: {description}")),
        (Some(text), None) | (None, Some(text)) => lines.push(format!("- {text}")),
        (None, None) => {}
    }
    if let Some(variant) = setup.variant {
        if let Some(title) = variant.title.as_deref() {
            lines.push(format!("- This call: {title}"));
        }
        if let Some(brief) = variant.prompt.as_deref().filter(|b| !b.trim().is_empty()) {
            lines.push(format!("- Your brief: {}", fill(brief, setup.variables, setup.persona)));
        }
        if let Some(environment) = &variant.environment {
            let named: Vec<&str> = [environment.name.as_deref(), environment.description.as_deref()]
                .into_iter()
                .flatten()
                .filter(|t| !t.trim().is_empty())
                .collect();
            let noise = environment.background_noise.as_ref().filter(|n| **n != BackgroundNoise::None);
            let noise = noise.map(|n| format!("(background noise: {})", words(n.as_str())));
            let place: Vec<String> =
                [(!named.is_empty()).then(|| named.join(": ")), noise].into_iter().flatten().collect();
            if !place.is_empty() {
                lines.push(format!("- Where you are: {}", place.join(" ")));
            }
        }
    }
    if lines.len() == 1 {
        lines.push(format!("- You are a customer of {}.", setup.agent_name));
    }
    lines.join("\n")
}

fn script(setup: &Setup, plan: &[Action]) -> String {
    if plan.is_empty() {
        return NO_SCRIPT.to_owned();
    }
    let mut lines = vec!["Your script, in order:".to_owned()];
    let said = |text: &str| fill(text, setup.variables, setup.persona);
    for (n, action) in plan.iter().enumerate() {
        let line = match action {
            Action::Say(text) => format!("You, word for word: \"{}\"", said(text)),
            Action::Instruction(text) => format!("You, in your own words: {}", said(text)),
            Action::Press(keys) => format!("You press {keys} on the keypad."),
            Action::Silence(seconds) => format!("You stay silent for {seconds} s."),
            Action::Expect { expected, .. } if expected.trim().is_empty() => "The agent speaks.".to_owned(),
            Action::Expect { expected, .. } => format!("The agent is expected to: {}", said(expected)),
        };
        lines.push(format!("{}. {line}", n + 1));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests;
