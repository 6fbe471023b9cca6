//! The built-in reference agent: deterministic, domain-aware (a dental front desk, an airline
//! rebooking desk, or a generic receptionist), with realistic flaws so that metrics and
//! thresholds have something to find. Some flaws are per turn (it is sometimes slow, talks
//! over the caller, or misses what was asked); the others are per call (its system sometimes
//! fails to save a booking, it sometimes forgets the 24-hour policy, it sometimes gives in when
//! a caller presses for their appointment, and it sometimes takes a matching date of birth as
//! enough without the name it was never given). The same input always gives the same reply.
//!
//! It can also run as another build with one injected regression ([`ReferenceBuild`]), for
//! a history in which one release mishandles one edge case.

mod airline;
mod dental;

use serde::{Deserialize, Serialize};

/// What the agent hears.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Heard {
    pub text: String,
    #[serde(default)]
    pub call_id: String,
    /// Which of the agent's turns this is (0 = it answers the call).
    #[serde(default)]
    pub turn: u32,
    /// The agent's name, which picks its domain.
    #[serde(default)]
    pub agent: String,
    /// What the caller said earlier on this call, oldest first: the call so far, for an agent
    /// that keeps no state of its own (the reference agent reads it to know whether a name
    /// was given before a date of birth).
    #[serde(default)]
    pub earlier: Vec<String>,
}

/// What the agent says back.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reply {
    pub text: String,
    /// How long after the caller stopped the agent starts; negative means it talked over them.
    pub latency_ms: i64,
    /// Whether this reply ignores what was asked (a flaw).
    pub off_script: bool,
}

/// Which build of the reference agent answers. The current build is the default; the others
/// each carry exactly one regression.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReferenceBuild {
    #[default]
    Current,
    /// On a keypad "2" (choose another time) it confirms the original slot instead, and then
    /// refuses to change it: the dental flow's "presses 2" edge case fails task completion.
    IgnoresKeypadChoice,
}

impl ReferenceBuild {
    pub fn as_str(&self) -> &'static str {
        match self {
            ReferenceBuild::Current => "CURRENT",
            ReferenceBuild::IgnoresKeypadChoice => "IGNORES_KEYPAD_CHOICE",
        }
    }
}

impl std::str::FromStr for ReferenceBuild {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "CURRENT" => Ok(ReferenceBuild::Current),
            "IGNORES_KEYPAD_CHOICE" => Ok(ReferenceBuild::IgnoresKeypadChoice),
            other => Err(format!("unknown reference build \"{other}\" (CURRENT or IGNORES_KEYPAD_CHOICE)")),
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Domain {
    Dental,
    Airline,
    Generic,
}

fn domain(agent: &str) -> Domain {
    let agent = agent.to_lowercase();
    if ["dental", "dentist", "smile", "clinic"].iter().any(|w| agent.contains(w)) {
        Domain::Dental
    } else if ["air", "flight", "rebook", "airline"].iter().any(|w| agent.contains(w)) {
        Domain::Airline
    } else {
        Domain::Generic
    }
}

/// A stable number from the call and turn, so flaws land on the same turns every run.
fn roll(call_id: &str, turn: u32, salt: u64) -> u64 {
    // FNV-1a: tiny, stable across builds and platforms.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325 ^ salt;
    for byte in call_id.bytes().chain(turn.to_le_bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

// The salts only decide which calls a flaw lands on; these were picked so that the seeded
// nightly plan (whose calls the conversation engine keys on variant, persona and iteration)
// shows two flaws, each on one call (one happy path's booking is not saved; one caller unsure
// of their date of birth is verified on it alone), misses no step and forgets no policy: a
// demo with both outcomes that passes its bar, the same every run. They also keep the
// pressure flaw off the unsure caller of the QA journey's two-edge-case plan.
const MISS_SALT: u64 = 28;
const SAVE_SALT: u64 = 14;
const POLICY_SALT: u64 = 7;
const PRESSURE_SALT: u64 = 8;
const BIRTH_DATE_ALONE_SALT: u64 = 9;

/// The flaws of one call, chosen once from its id.
#[derive(Debug, Clone, Copy, Default)]
struct CallFlaws {
    /// The booking system fails right after the agent says it is booked.
    save_fails: bool,
    /// The confirmation leaves out the 24-hour cancellation policy.
    forgets_policy: bool,
    /// Pressed for the appointment before verification, it gives in.
    discloses_under_pressure: bool,
    /// A matching date of birth is enough: it never asks for the name it was not given.
    accepts_birth_date_alone: bool,
}

impl CallFlaws {
    fn of(call_id: &str) -> CallFlaws {
        CallFlaws {
            save_fails: roll(call_id, 0, SAVE_SALT).is_multiple_of(6),
            forgets_policy: roll(call_id, 0, POLICY_SALT).is_multiple_of(6),
            discloses_under_pressure: roll(call_id, 0, PRESSURE_SALT).is_multiple_of(4),
            accepts_birth_date_alone: roll(call_id, 0, BIRTH_DATE_ALONE_SALT).is_multiple_of(4),
        }
    }
}

fn has(text: &str, words: &[&str]) -> bool {
    words.iter().any(|w| text.contains(w))
}

/// The current build's reply to one caller line.
pub fn reply(heard: &Heard) -> Reply {
    reply_as(ReferenceBuild::Current, heard)
}

/// One build's reply to one caller line.
pub fn reply_as(build: ReferenceBuild, heard: &Heard) -> Reply {
    reply_keyed(build, heard, &heard.call_id, &heard.call_id)
}

/// The current build's reply to a line heard over HTTP (`POST /demo/agent`). The call id a
/// runner sends there is `<simulation job id>-<iteration>`, new every run, so the flaws are
/// rolled from what is the same every run instead: the agent's name and the iteration for the
/// call's flaws, and those with the caller's line for a turn's. A plan run twice against it
/// gives the same calls, as it does in-process.
pub fn reply_over_http(heard: &Heard) -> Reply {
    let call = stable_call_key(heard);
    let line = format!("{call}|{}", heard.text);
    reply_keyed(ReferenceBuild::Current, heard, &call, &line)
}

/// The agent's name and the iteration the call id ends with (the whole id when it ends with
/// none: a caller of its own that keeps one id per call).
fn stable_call_key(heard: &Heard) -> String {
    let iteration = heard
        .call_id
        .rsplit_once('-')
        .map(|(_, n)| n)
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    match iteration {
        Some(n) => format!("{}|{n}", heard.agent),
        None => format!("{}|{}", heard.agent, heard.call_id),
    }
}

/// A reply with the call's flaws rolled from `call_key` and the turn's from `turn_key`.
fn reply_keyed(build: ReferenceBuild, heard: &Heard, call_key: &str, turn_key: &str) -> Reply {
    let text = heard.text.to_lowercase();
    let domain = domain(&heard.agent);
    let slow = roll(turn_key, heard.turn, 1).is_multiple_of(7);
    let misses = heard.turn > 0 && roll(turn_key, heard.turn, MISS_SALT).is_multiple_of(9);
    let talks_over = heard.turn > 0 && roll(turn_key, heard.turn, 3).is_multiple_of(8);
    let base_latency = 450 + (roll(turn_key, heard.turn, 4) % 500) as i64;
    let latency_ms = if talks_over {
        -(300 + (roll(turn_key, heard.turn, 5) % 600) as i64)
    } else if slow {
        2500 + (roll(turn_key, heard.turn, 6) % 2000) as i64
    } else {
        base_latency
    };
    if misses {
        return Reply {
            text: "Let me check on that for you. Is there anything else I can help with?".into(),
            latency_ms,
            off_script: true,
        };
    }
    let flaws = CallFlaws::of(call_key);
    let line = if heard.turn == 0 {
        match domain {
            Domain::Dental => "Thank you for calling Brightsmile Dental. How can I help you today?",
            Domain::Airline => "SkyBridge Air rebooking desk, how can I help you today?",
            Domain::Generic => "Hello, thanks for calling. How can I help you today?",
        }
        .to_owned()
    } else if has(&text, &["goodbye", "bye", "that's all", "that is all", "nothing else"]) {
        "Thank you for calling. Goodbye!".to_owned()
    } else {
        match domain {
            Domain::Dental => dental::reply(&text, &heard.earlier, build, flaws),
            Domain::Airline => airline::reply(&text),
            Domain::Generic => airline::generic(&text),
        }
    };
    Reply { text: line, latency_ms, off_script: false }
}

#[cfg(test)]
mod tests;
