//! What an expectation asks of the agent, in its own words: the prompt without "Agent" and its
//! verb in front, the addressee, or the condition behind.

use super::{ADDRESSEE, CONCEPT_END, LIMIT_START, MANNER, VERB};

/// What the agent should do, without "Agent" in front or conditions behind.
pub(super) fn concept(prompt: &str) -> String {
    let body = MANNER.find(prompt).map_or(prompt.to_owned(), |m| {
        let rest = prompt[m.end()..].trim_start().trim_start_matches("and ").to_owned();
        format!("{}{rest}", &prompt[..m.start()])
    });
    let body = VERB.find(&body).map_or(body.as_str(), |m| &body[m.end()..]).trim().to_owned();
    let body = without_addressee(&body);
    // "until when the room can be changed" asks for the limit: its "when" ends nothing.
    let skip = LIMIT_START.find(&body).map_or(0, |m| m.end());
    let cut = CONCEPT_END.find(&body[skip..]).map_or(body.len(), |m| m.start() + skip);
    body[..cut].trim().trim_end_matches('.').to_owned()
}

/// "the member when payments restart" is "when payments restart"; "the caller that …" is "…".
fn without_addressee(body: &str) -> String {
    if LIMIT_START.is_match(body) {
        return body.to_owned();
    }
    let Some(m) = ADDRESSEE.captures(body) else { return body.to_owned() };
    let (Some(whole), Some(noun), Some(word)) = (m.get(0), m.get(2), m.get(3)) else { return body.to_owned() };
    // "the date that applies to …" names what to tell, not whom.
    if KINDS_TOLD.contains(&noun.as_str()) {
        return body.to_owned();
    }
    let keep = if ["that", "about"].contains(&word.as_str()) { whole.end() } else { word.start() };
    body[keep..].to_owned()
}

/// Nouns for a kind of value to tell, which an addressee never is.
const KINDS_TOLD: &[&str] =
    &["date", "day", "time", "window", "amount", "price", "cost", "charge", "fee", "deadline", "number", "reason"];
