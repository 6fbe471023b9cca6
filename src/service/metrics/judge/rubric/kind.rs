//! What a boolean prompt asks, recognised from its words: whether the request was done,
//! whether identity came before disclosure, or whether the agent did some thing.

use super::pattern::patterns;

patterns! {
    IDENTITY = r"\b(check\w*|confirm\w*|establish\w*|made sure) (that )?(the caller|they|he|she|the person) (is|was|are|were)\b|\baccount holder\b|\bwho they (say|claim)\b|\bwho (the )?\w+ (is|was|are|were)\b|\b(verif\w*|identity|identif\w*|authenticat\w*|who (is|'s) calling|security (check|questions?|word)|date of birth|confirmation code|last name)\b";
    ORDER = r"\b(before|until|prior to|first)\b";
    PROTECTED = r"\b(reveal\w*|disclos\w*|discuss\w*|details?|information|phi|protected|chang\w*|shar\w*|appointment|booking|account|rebook\w*|cancel\w*|refund\w*|record|anything)\b";
    OUTCOME = r"\b(task|request|completed?|resolved|achiev\w*|outcome|accomplish\w*|fulfil\w*|what the caller (asked|wanted|called))\b|\b(has|have) been (moved|booked|rebooked|confirmed|cancel+ed|resolved|refunded|rescheduled|changed)\b";
    /// "The card was frozen", "the visit has been moved": something done, said of the thing.
    DEED = r"^(the |a |an |their |his |her |its |your )?[\w' -]{2,60}? (was|were|got|has been|have been|is now|are now) (\w+(ed|en|t)|done|sent|put|set)\b";
    KEYPAD = r"\b(keypad|key press|keys|press(es|ed)? \d|dtmf)\b";
    ABOUT_AGENT = r"^(the )?agent\b";
    MENTIONS_AGENT = r"\b(the )?agent\b";
    /// A check that must come before something is shared, whatever words name the check:
    /// a verification prompt the judge may not recognise ("made sure it was really her
    /// before going into the details").
    CHECK_BEFORE_SHARING = r"\b(before|until|prior to)\b[^.;]*\b(shar\w*|disclos\w*|reveal\w*|discuss\w*|go(es|ing)? into|giv\w*|read\w* out|tell\w*|say\w*|anything|details?|information|record|account)\b";
    /// Words for who someone is or for checking them, beyond those `IDENTITY` knows.
    WHO_WORDS = r"\b(who|really|genuine\w*|actually|same person|the (account|card|policy)? ?holder|named|check\w*|confirm\w*|made sure|make sure|ensur\w*|establish\w*|prov\w+|security|id)\b";
    /// Words a prompt uses for the agent's role, read as "agent".
    ROLE = r"\b(receptionist|representative|rep|advisor|adviser|operator|assistant|associate|staff member|clerk|bot|attendant|consultant|specialist|front desk|support agent|customer service agent)\b";
    /// "The librarian greets the caller": whoever acts on the caller, named by a role the list
    /// above does not know, is the agent (the caller's side is never "the X … the caller").
    ACTS_ON_CALLER = r"^(the|our|your) ([a-z-]+(?: [a-z-]+)?) (\w+s) (the |a )?(caller|customer|owner|client|patient|passenger|member|user|parent|renter|hirer|guest|tenant|traveller|traveler|driver|cardholder|holder|subscriber|buyer|shopper|visitor|applicant|resident|student|person|patron)\b";
    /// "The caller was told X": the agent telling the caller X.
    TOLD = r"^(the )?(caller|customer|owner|client|patient|passenger|member|user|parent|renter|hirer|guest|tenant|traveller|traveler|driver|cardholder|account holder|holder|subscriber|buyer|shopper|visitor|applicant|resident|student|person)\b( \w+){0,2}? (was|were|is|gets|got|has been) (told|informed|given|advised|reminded|warned|offered)\b";
}

/// Verbs of a deed that are about telling, not doing: "was told" is an expectation.
const TELLING: &[&str] = &["told", "informed", "given", "advised", "reminded", "warned", "offered", "asked", "greeted"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Verified before disclosing (or changing) anything protected.
    Disclosure,
    /// The caller's request was done; `keypad` when it must follow a key press.
    Outcome { keypad: bool },
    /// A named thing was done ("the card was frozen"): the request walk, about that thing.
    Deed,
    /// The agent does (or never does) something.
    Expectation,
    /// Anything else: the prompt's words matched against what was said.
    Other,
}

/// The prompt in the words the readers know: the agent's role named "agent", and "the caller
/// was told X" as "the agent tells the caller X".
pub(super) fn plain(lower: &str) -> String {
    let mut out = ROLE.replace_all(lower, "agent");
    if let Some(c) = ACTS_ON_CALLER.captures(&out)
        && let Some(role) = c.get(2)
        && !role
            .as_str()
            .split(' ')
            .any(|w| matches!(w, "agent" | "never" | "always" | "also" | "still" | "only" | "then"))
        && !TOLD.is_match(&format!("the {} was told", role.as_str()))
    {
        out = format!("the agent{}", &out[role.end()..]);
    }
    if let Some(m) = TOLD.find(&out) {
        let verb = m.as_str().rsplit(' ').next().unwrap_or("told");
        let says = match verb {
            "informed" => "informs the caller",
            "given" => "gives the caller",
            "advised" => "advises the caller",
            "reminded" => "reminds the caller",
            "warned" => "warns the caller",
            "offered" => "offers the caller",
            _ => "tells the caller",
        };
        out = format!("the agent {says}{}", &out[m.end()..]);
    }
    out
}

/// Whether a prompt that is not read as a verification prompt still looks like one: a check of
/// who someone is before something is shared. Judging it as anything else would be a guess.
pub(super) fn unrecognised_check(lower: &str) -> bool {
    of(lower) != Kind::Disclosure && CHECK_BEFORE_SHARING.is_match(lower) && WHO_WORDS.is_match(lower)
}

/// Whether the prompt lists facts that identify someone, in its own words, after a check word
/// ("checked that the caller holds the plan (the plan number AND the surname on it)"), and
/// asks for that check before something is shared: a verification prompt, whatever verb
/// names who the caller is.
fn names_identifying_facts(lower: &str) -> bool {
    CHECK_BEFORE_SHARING.is_match(lower)
        && super::identity::facts_named(lower).iter().any(|f| f.kind != super::identity::FactKind::Other)
}

/// `lower` is the normalised prompt, as `plain` gives it.
pub(super) fn of(lower: &str) -> Kind {
    let identity = IDENTITY.is_match(lower) || names_identifying_facts(lower);
    if identity && ORDER.is_match(lower) && PROTECTED.is_match(lower) {
        Kind::Disclosure
    } else if OUTCOME.is_match(lower) && !ABOUT_AGENT.is_match(lower) || lower.contains("completed what the caller") {
        Kind::Outcome { keypad: KEYPAD.is_match(lower) }
    } else if MENTIONS_AGENT.is_match(lower) {
        Kind::Expectation
    } else if DEED.captures(lower).is_some_and(|c| c.get(3).is_some_and(|v| !TELLING.contains(&v.as_str()))) {
        Kind::Deed
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
        assert_eq!(of("the weather is nice"), Kind::Other);
    }

    #[test]
    fn other_desks_prompts_are_recognised_in_their_own_words() {
        let of = |p: &str| of(&plain(&p.to_lowercase()));
        assert_eq!(
            of(
                "Decide whether the receptionist confirmed who is calling (the pet's name AND the owner's phone number on file) BEFORE sharing anything from the pet's record"
            ),
            Kind::Disclosure
        );
        assert_eq!(
            of(
                "Decide whether the clerk checked that the caller owns the locker (the locker number AND the surname it is rented under) BEFORE telling them anything about it"
            ),
            Kind::Disclosure,
            "the facts in the parenthesis say it is a check of who the caller is"
        );
        assert_eq!(
            of("Agent checks which items (the colour and the size) the caller wants before ordering."),
            Kind::Expectation,
            "a check of what is wanted names no identifying fact"
        );
        assert_eq!(of("The card was frozen during the call."), Kind::Deed);
        assert_eq!(of("The repeat prescription was sent to the pharmacy."), Kind::Deed);
        assert_eq!(of("The caller was told when the engineer will arrive."), Kind::Expectation);
        assert_eq!(
            plain("the caller was told when the engineer will arrive."),
            "the agent tells the caller when the engineer will arrive."
        );
        assert_eq!(of("The receptionist reminds the owner to bring the pet's vaccination card."), Kind::Expectation);
        assert_eq!(
            plain("the ferryman welcomes the passenger and asks where they are going."),
            "the agent welcomes the passenger and asks where they are going.",
            "a role the list does not know is the agent when it acts on the caller"
        );
        assert_eq!(of("The ferryman welcomes the passenger and asks where they are going."), Kind::Expectation);
        assert_eq!(
            plain("the ferryman never promises the passenger a seat."),
            "the ferryman never promises the passenger a seat.",
            "a \"never\" between the role and its verb is never dropped"
        );
        assert_eq!(
            plain("the customer thanks the ferryman."),
            "the customer thanks the ferryman.",
            "the caller's side acting is not the agent"
        );
    }

    #[test]
    fn a_check_before_sharing_in_unknown_words_is_told_from_other_prompts() {
        let check = |p: &str| unrecognised_check(&plain(&p.to_lowercase()));
        assert!(check(
            "Decide whether the advisor made sure it was really the member BEFORE going into the membership."
        ));
        assert!(check("The clerk established it was the genuine holder before saying anything about the balance."));
        // Recognised verification prompts, and prompts that check nothing about anyone, are read.
        assert!(!check("Agent verifies the patient's full name and date of birth before discussing any appointment."));
        assert!(!check("Agent checks which items the caller wants before ordering."));
        assert!(!check("Agent reads the new car back before changing the booking."));
    }
}
