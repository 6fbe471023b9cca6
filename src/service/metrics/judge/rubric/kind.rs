//! What a boolean prompt asks, recognised from its words: whether the request was done,
//! whether identity came before disclosure, or whether the agent did some thing.

use super::pattern::patterns;

patterns! {
    IDENTITY = r"\b(verif\w*|identity|authenticat\w*|date of birth|confirmation code|last name)\b";
    ORDER = r"\b(before|until|prior to|first)\b";
    PROTECTED = r"\b(reveal\w*|disclos\w*|discuss\w*|details?|information|phi|protected|chang\w*|shar\w*|appointment|booking|account|rebook\w*|cancel\w*|refund\w*)\b";
    OUTCOME = r"\b(task|request|completed?|resolved|achiev\w*|outcome|accomplish\w*|fulfil\w*|what the caller (asked|wanted|called))\b|\b(has|have) been (moved|booked|rebooked|confirmed|cancel+ed|resolved|refunded|rescheduled|changed)\b";
    KEYPAD = r"\b(keypad|key press|keys|press(es|ed)? \d|dtmf)\b";
    ABOUT_AGENT = r"^(the )?agent\b";
    MENTIONS_AGENT = r"\b(the )?agent\b";
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Verified before disclosing (or changing) anything protected.
    Disclosure,
    /// The caller's request was done; `keypad` when it must follow a key press.
    Outcome { keypad: bool },
    /// The agent does (or never does) something.
    Expectation,
    /// Anything else: the prompt's words matched against what was said.
    Other,
}

/// `lower` is the normalised prompt.
pub(super) fn of(lower: &str) -> Kind {
    if IDENTITY.is_match(lower) && ORDER.is_match(lower) && PROTECTED.is_match(lower) {
        Kind::Disclosure
    } else if OUTCOME.is_match(lower) && !ABOUT_AGENT.is_match(lower) || lower.contains("completed what the caller") {
        Kind::Outcome { keypad: KEYPAD.is_match(lower) }
    } else if MENTIONS_AGENT.is_match(lower) {
        Kind::Expectation
    } else {
        Kind::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        assert!(all_patterns().iter().all(|p| p.compiles()));
    }

    #[test]
    fn seeded_prompts_are_recognised() {
        let of = |p: &str| of(&p.to_lowercase());
        assert_eq!(
            of(
                "Read the transcript. Identify what the caller wanted from the call. Answer true if, by the end of the call, that request was completed"
            ),
            Kind::Outcome { keypad: false }
        );
        assert_eq!(
            of(
                "The agent completed what the caller asked for: the request was confirmed, booked, rebooked, resolved or all set"
            ),
            Kind::Outcome { keypad: false }
        );
        assert_eq!(
            of("The caller's appointment has been moved and confirmed with a keypad press"),
            Kind::Outcome { keypad: true }
        );
        assert_eq!(
            of("Agent verifies the patient's full name and date of birth before discussing any appointment details."),
            Kind::Disclosure
        );
        assert_eq!(
            of("Agent verifies the confirmation code and the passenger's last name before changing the booking."),
            Kind::Disclosure
        );
        assert_eq!(
            of(
                "Agent does not reveal the appointment date, time or treatment until the date of birth matches the chart."
            ),
            Kind::Disclosure
        );
        assert_eq!(
            of("Agent mentions the 24-hour cancellation policy when booking or moving an appointment."),
            Kind::Expectation
        );
        assert_eq!(
            of("Agent reads back the final appointment date, time and provider before ending the call."),
            Kind::Expectation
        );
        assert_eq!(
            of(
                "After the caller presses 2, the agent offers at least one new slot and reads it back before asking for confirmation again."
            ),
            Kind::Expectation
        );
        assert_eq!(of("The weather was discussed"), Kind::Other);
    }
}
