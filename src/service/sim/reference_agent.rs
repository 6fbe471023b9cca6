//! The built-in reference agent: deterministic, domain-aware (a dental front desk, an airline
//! rebooking desk, or a generic receptionist), with realistic flaws so that metrics and
//! thresholds have something to find: it is sometimes slow, sometimes misses what was asked,
//! and sometimes talks over the caller. The same input always gives the same reply.

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

fn has(text: &str, words: &[&str]) -> bool {
    words.iter().any(|w| text.contains(w))
}

/// The agent's reply to one caller line.
pub fn reply(heard: &Heard) -> Reply {
    let text = heard.text.to_lowercase();
    let domain = domain(&heard.agent);
    let slow = roll(&heard.call_id, heard.turn, 1).is_multiple_of(7);
    let misses = heard.turn > 0 && roll(&heard.call_id, heard.turn, 2).is_multiple_of(9);
    let talks_over = heard.turn > 0 && roll(&heard.call_id, heard.turn, 3).is_multiple_of(8);
    let base_latency = 450 + (roll(&heard.call_id, heard.turn, 4) % 500) as i64;
    let latency_ms = if talks_over {
        -(300 + (roll(&heard.call_id, heard.turn, 5) % 600) as i64)
    } else if slow {
        2500 + (roll(&heard.call_id, heard.turn, 6) % 2000) as i64
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
    let line = if heard.turn == 0 {
        match domain {
            Domain::Dental => "Thank you for calling Brightsmile Dental. How can I help you today?",
            Domain::Airline => "SkyBridge Air rebooking desk, how can I help you today?",
            Domain::Generic => "Hello, thanks for calling. How can I help you today?",
        }
        .to_owned()
    } else if has(&text, &["goodbye", "bye", "that's all", "that is all", "nothing else"]) {
        "Thank you for calling. Goodbye!".to_owned()
    } else if has(&text, &["[dtmf"]) {
        "Thank you, that's confirmed.".to_owned()
    } else {
        match domain {
            Domain::Dental => dental(&text),
            Domain::Airline => airline(&text),
            Domain::Generic => generic(&text),
        }
    };
    Reply { text: line, latency_ms, off_script: false }
}

fn dental(text: &str) -> String {
    if has(text, &["birth", "born", "19", "20"])
        && has(text, &["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec", "/"])
    {
        "Thank you, you're verified. I have openings on Tuesday at 9 AM or Thursday at 2 PM. Which works better?".into()
    } else if has(text, &["reschedul", "move", "change", "appointment", "book", "cleaning", "check-up", "checkup"]) {
        "I can help with that. Before I look at your appointment, can you confirm your full name and date of birth?"
            .into()
    } else if has(text, &["tuesday", "thursday", "monday", "wednesday", "friday", "works", "that one"]) {
        "You're booked. Please press 1 to confirm the new time.".into()
    } else if has(text, &["insurance", "cover", "delta", "aetna", "cigna"]) {
        "We accept most major PPO plans, including Delta Dental, Aetna and Cigna. I can note your plan on the visit."
            .into()
    } else if has(text, &["cancel"]) {
        "I can cancel that. Cancellations less than 24 hours ahead carry a 50 dollar fee. Shall I go ahead?".into()
    } else if has(text, &["pain", "hurt", "emergency", "swollen"]) {
        "I'm sorry you're in pain. We keep same-day emergency slots; I can offer 11:30 today.".into()
    } else {
        "Of course. Could you tell me a little more about what you need?".into()
    }
}

fn airline(text: &str) -> String {
    if has(text, &["confirmation", "booking", "code", "reference"]) && text.chars().any(|c| c.is_ascii_digit()) {
        "Thank you, I found your booking. The first available seat is on the 7:05 AM flight tomorrow, or 6:40 PM today on standby. Which would you like?".into()
    } else if has(text, &["cancel", "delay", "missed", "rebook", "flight"]) {
        "I'm sorry about the disruption. Can I have your six-character confirmation code?".into()
    } else if has(text, &["hotel", "voucher", "meal", "compensation", "refund"]) {
        "For weather disruptions we can't issue a voucher, but I can offer a discounted rate at partner hotels or a full refund of the unused segment.".into()
    } else if has(text, &["7:05", "morning", "tomorrow", "tonight", "standby", "that one", "works", "take"]) {
        "Done, you're rebooked and your new boarding pass is on its way by email.".into()
    } else if has(text, &["seat", "aisle", "window"]) {
        "I have aisle seat 14C available and I've assigned it to you.".into()
    } else {
        "I understand. Could you tell me what happened with your trip?".into()
    }
}

fn generic(text: &str) -> String {
    if text.contains('?') {
        "That's a good question. Let me look into it and get back to you right away.".into()
    } else {
        "I understand. How else can I help?".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heard(text: &str, turn: u32, agent: &str) -> Heard {
        Heard { text: text.into(), call_id: "call-1".into(), turn, agent: agent.into() }
    }

    #[test]
    fn the_same_input_gives_the_same_reply() {
        let h = heard("I need to reschedule my cleaning", 1, "Brightsmile Dental — Front Desk");
        assert_eq!(reply(&h), reply(&h));
    }

    #[test]
    fn it_answers_in_its_domain() {
        let greeting = reply(&heard("", 0, "Brightsmile Dental — Front Desk"));
        assert!(greeting.text.contains("Brightsmile"));
        let airline = reply(&heard("hello", 0, "SkyBridge Air — Rebooking Desk"));
        assert!(airline.text.contains("SkyBridge"));
    }

    #[test]
    fn flaws_appear_at_realistic_rates() {
        let (mut slow, mut over, mut misses) = (0, 0, 0);
        for n in 0..2000 {
            let h = Heard {
                text: "I need to move my appointment".into(),
                call_id: format!("call-{n}"),
                turn: 1 + n % 5,
                agent: "dental".into(),
            };
            let r = reply(&h);
            slow += usize::from(r.latency_ms > 2000);
            over += usize::from(r.latency_ms < 0);
            misses += usize::from(r.off_script);
        }
        for (name, count) in [("slow", slow), ("talks over", over), ("misses", misses)] {
            assert!((80..=400).contains(&count), "{name}: {count} of 2000");
        }
    }

    #[test]
    fn goodbye_is_answered_with_goodbye() {
        let r = reply(&heard("No, that's all, goodbye", 3, "dental"));
        assert!(r.off_script || r.text.contains("Goodbye"));
    }
}
