//! When an expectation applies ("after the caller presses 2", "if verification fails", "when
//! booking", "before booking"), and which of the agent's lines it lets count.

use super::super::conversation::{Conversation, Said, Side};
use super::super::outcome::{booking_stands, claims_success, passes_on};
use super::{AFTER_PRESS, BEFORE_BOOKING, IF_VERIFICATION_FAILS, WHEN_BOOKING};

/// When an expectation applies, and from which point on.
pub(super) struct Condition<'a> {
    /// Only lines after this one count (a keypad press, a failed verification).
    pub after: Option<Said<'a>>,
    /// Only lines before this one count (the booking, for "before booking").
    pub before: Option<Said<'a>>,
    /// Why it does not apply, when it does not.
    pub not_applicable: Option<String>,
}

pub(super) fn condition<'a>(conv: &'a Conversation, prompt: &str) -> Condition<'a> {
    let mut out = Condition { after: None, before: None, not_applicable: None };
    let booked = || booking_stands(conv);
    if let Some(m) = AFTER_PRESS.find(prompt) {
        let digit = m.as_str().chars().last().unwrap_or('?').to_string();
        out.after = conv.said_by(Side::Caller).find(|s| s.turn.keypad().is_some_and(|k| k.contains(&digit)));
        if out.after.is_none() {
            out.not_applicable = Some(format!("Not applicable: the caller never pressed {digit}."));
        }
    } else if IF_VERIFICATION_FAILS.is_match(prompt) {
        out.after = conv.said_by(Side::Agent).find(|s| super::super::disclosure::rejects(s.lower()));
        if out.after.is_none() {
            out.not_applicable = Some("Not applicable: verification never failed on this call.".to_owned());
        }
    } else if WHEN_BOOKING.is_match(prompt) && !booked() {
        out.not_applicable = Some("Not applicable: nothing was booked or moved on this call.".to_owned());
    } else if let Some(m) = BEFORE_BOOKING.find(prompt) {
        // A change made and later undone was still made: what came before it is what counts.
        // A request passed on ("I've sent the request over to the surgery") is the act too.
        out.before = conv.said_by(Side::Agent).find(|s| claims_success(s) || passes_on(s));
        if out.before.is_none() {
            let what = m.as_str().trim_start_matches("before ");
            out.not_applicable = Some(format!("Not applicable: the call never got as far as {what}."));
        }
    }
    out
}

/// The agent's sentences a condition lets count.
pub(super) fn window<'a>(conv: &'a Conversation, condition: &Condition<'a>) -> Vec<Said<'a>> {
    conv.said_by(Side::Agent)
        .filter(|s| condition.after.is_none_or(|a| s.order > a.order))
        .filter(|s| condition.before.is_none_or(|b| s.order < b.order))
        .collect()
}
