//! The facts that identify a caller, read from the prompt's own words ("the account number
//! AND the postcode", "the last four digits of the card and the security word", "the pet's
//! name and the owner's phone number"), and whether a caller's line gives one: by its form
//! (a date with a year, a postcode, a phone number, a run of digits, a name) or, for facts
//! with no form of their own (a security word), by answering the agent's request for it.

use std::collections::BTreeSet;

use super::details::gives_birth_date;
use super::names::{gives_name, gives_proper_word};
use super::pattern::patterns;
use super::terms::terms;

mod list;
pub(super) use list::FactList;

patterns! {
    /// "(the account number AND the postcode)" after the word that asks for verification.
    PARENTHESIS = r"\b(verif\w*|confirm\w*|check\w*|authenticat\w*|identif\w*|who is calling|who's calling|account holder)\b[^(.]*\(([^)]*)\)";
    /// "verifies the X and the Y before …"
    LISTED_BEFORE = r"\b(verif(y|ies|ied)|confirms?|confirmed|checks?|authenticates?)\s+(.*?)\s+(before|prior to|until|first)\b";
    /// "… until the date of birth matches the chart"
    LISTED_UNTIL = r"\buntil\s+(.*?)\s+(match\w*|is verified|are verified|checks? out|is confirmed|are confirmed)\b";
    POSTCODE = r"\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b|\b\d{5}(-\d{4})?\b";
    PHONE = r"(\+\d{1,3}[ -]?)?\b0?\d{3,5}[ -]?\d{3}[ -]?\d{3,4}\b";
    EMAIL = r"\b[\w.+-]+@[\w-]+\.[\w.]+\b|\bat \w+ dot (com|co|org|net)\b";
    /// A house number and a street, as a caller says it ("14 Orchard Close", "flat 3, 22 canal street").
    STREET = r"\b\d{1,4}[a-z]?,? [a-z]+( [a-z]+)? (road|rd|street|st|lane|avenue|ave|close|drive|way|court|crescent|place|terrace|gardens|grove|hill|park|row|square|walk|mews)\b";
    /// A house number and a capitalised street name, as said ("88 Queens Parade").
    HOUSE = r"\b\d{1,4}[A-Za-z]?,? ([A-Z][a-z]{2,})( [A-Z][a-z]+)?\b";
    /// A postcode spelled out character by character ("L S 6, 2 Q T"), once put together.
    SPELLED_POSTCODE = r"^[A-Z]{1,2}\d[A-Z\d]?\d[A-Z]{2}$";
    DIGIT_RUN = r"\b\d[\d ]{2,}\d\b";
    FOUR_DIGITS = r"(^|[^\d ])\s*\b\d{4}\b\s*([^\d ]|$)";
    /// Four digits said one by one ("3 3 0 7"), alone: the last four read out digit by digit.
    FOUR_SPELLED = r"(^|[^\d ])\s*\b\d \d \d \d\b\s*([^\d ]|$)";
    MIXED_CODE = r"\b[a-z0-9]{5,}\b";
    /// A short code said as a letter or two and a number ("K 12", "R 7"): too short to tell
    /// from other words by its form, so it gives a code only where the code is asked for or named.
    SHORT_CODE = r"^([A-Za-z']{2,} ){0,2}[A-Z]{1,2} ?\d{1,4}$";
    /// One character said alone ("a" and "i" are words, unless spelled "as in").
    SPELLED = r"\b[b-hj-z0-9]\b( as in \w+)?|\b[ai] as in \w+";
    /// The ending of a contraction ("husband's", "didn't"): no letter spelled out.
    CONTRACTION = r"['’][a-z]+\b";
    /// The caller cannot, or will not, give it.
    WITHHELD = r"\b(don't|do not|can't|cannot) (know|remember|recall|have|find)\b|\bno idea\b|\bnot sure\b|\bdon't have time\b|\bjust tell me\b";
    /// Where a fact's head ends and a qualifier begins ("… for that address", "… the fee is paid from").
    HEAD_END = r" (for|of|on|from|under|at|in|that|which|the|to|with|we|you|they|it) ";
    /// Words lost from the transcript.
    UNCLEAR = r"\[(inaudible|unclear|crosstalk|garbled|indistinct)[^\]]*\]|\(inaudible\)|\?\?\?";
}

/// What kind of fact identifies the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FactKind {
    /// A person's full name.
    FullName,
    /// A name on its own: a surname, a first name, a pet's or a child's name.
    Name,
    BirthDate,
    Postcode,
    Phone,
    Email,
    /// An address, or a line of one.
    Address,
    /// The last few digits of a card or account.
    LastDigits,
    /// An account, member, card or booking number or code; a registration or licence, said
    /// as letters and digits.
    Code,
    /// A security word, password, PIN or answer: it has no form to recognise, only an answer.
    Secret,
    /// Something else the prompt names; given only by answering a request for it.
    Other,
}

/// One identifying fact as the prompt names it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Fact {
    pub kind: FactKind,
    /// The prompt's words for it, as written ("the security word").
    pub label: String,
    /// Its content words, to tell when the agent asks for it or the caller names it.
    pub words: BTreeSet<String>,
    /// Facts of one group are alternatives ("the date of birth or the licence number").
    pub group: usize,
}

/// Words that name the fact's owner or its place, not the fact.
const OWNER_WORDS: &[&str] = &[
    "patient", "caller", "customer", "passeng", "owner", "account", "holder", "member", "client", "person", "file",
    "on", "card", "user", "pet", "booking",
];

impl Fact {
    fn of(part: &str) -> Option<Fact> {
        let label = part.trim().trim_matches(',').trim().trim_start_matches("the ").trim().to_owned();
        if label.is_empty() || ["guardian", "parent", "authori", "minor"].iter().any(|w| label.contains(w)) {
            return None;
        }
        // "the account number for that address" is an account number: the kind is read from
        // the words before a qualifier, and from the whole label when those say nothing.
        let head = HEAD_END.find(&label).map_or(label.as_str(), |m| &label[..m.start()]);
        let (kind, named_by) = match kind_of(head) {
            FactKind::Other => (kind_of(&label), label.as_str()),
            kind => (kind, head),
        };
        let words: BTreeSet<String> =
            terms(named_by).into_iter().filter(|t| !OWNER_WORDS.contains(&t.as_str())).collect();
        Some(Fact { kind, label, words, group: 0 })
    }

    /// Whether a caller's line gives this fact by its form alone.
    pub fn given_by_form(&self, lower: &str, original: &str) -> bool {
        match self.kind {
            FactKind::BirthDate => gives_birth_date(lower),
            FactKind::FullName => gives_name(&unspelled(original)),
            FactKind::Name => gives_name(&unspelled(original)) || gives_proper_word(&unspelled(original)),
            FactKind::Postcode => {
                POSTCODE.is_match(original)
                    || POSTCODE.is_match(&lower.to_uppercase())
                    || spelled_runs(original).iter().any(|run| SPELLED_POSTCODE.is_match(run))
            }
            FactKind::Phone => PHONE.is_match(lower),
            FactKind::Email => EMAIL.is_match(lower),
            FactKind::Address => STREET.is_match(lower) || gives_house(original),
            FactKind::LastDigits => FOUR_DIGITS.is_match(lower) || FOUR_SPELLED.is_match(lower),
            FactKind::Code => gives_number(lower) || (gives_code(lower) && !only_postcode(lower, original)),
            FactKind::Secret | FactKind::Other => false,
        }
    }

    /// Whether a line gives this fact as a short code ("K 12") where the fact is asked for or
    /// named ("locker K 12"): a code the desk keeps short has no longer form to be told by.
    pub fn given_short(&self, lower: &str, original: &str, asked: bool) -> bool {
        // The kind first: the pattern runs for every fact of every turn.
        self.kind == FactKind::Code
            && original.split([',', ';', '.', '!']).any(|part| SHORT_CODE.is_match(part.trim()))
            && (asked || self.head_named_in(lower))
    }

    /// Whether a line names this fact ("my account number is", "the word is").
    /// `said` is the line's terms, worked out once a turn (`Turn::terms`).
    pub fn named_in_terms(&self, said: &BTreeSet<String>) -> bool {
        let named = !self.words.is_empty() && self.words.iter().all(|w| said.contains(w));
        named || (self.kind == FactKind::Secret && (said.contains("word") || said.contains("password")))
    }

    /// Whether a line names the fact's first word, or a short form of it ("reg" for
    /// "registration of the vehicle", "policy" for "policy number").
    pub fn head_named_in(&self, lower: &str) -> bool {
        let Some(head) = self
            .label
            .split(|c: char| !c.is_alphanumeric())
            .find(|w| w.len() >= 3 && !OWNER_WORDS.contains(w) && terms(w).len() == 1)
        else {
            return false;
        };
        lower.split(|c: char| !c.is_alphanumeric()).any(|w| w.len() >= 3 && head.starts_with(w))
    }

    /// Whether the fact can be told from its form, so that a line that names it but does not
    /// carry that form does not give it.
    pub fn has_form(&self) -> bool {
        !matches!(self.kind, FactKind::Secret | FactKind::Other)
    }
}

/// The kind of fact a label names, by its words.
fn kind_of(label: &str) -> FactKind {
    let has = |w: &str| label.contains(w);
    if has("date of birth") || has("dob") || has("birth") || has("born") {
        FactKind::BirthDate
    } else if has("last name") || has("surname") || has("family name") {
        FactKind::Name
    } else if has("full name") || label == "name" || has("patient's name") || has("caller's name") {
        FactKind::FullName
    } else if has("name") {
        FactKind::Name
    } else if has("last") && (has("digit") || has("four") || has("4")) {
        // "the phone number's last four digits" are digits, not a phone number.
        FactKind::LastDigits
    } else if has("postcode") || has("post code") || has("zip") || has("postal code") {
        FactKind::Postcode
    } else if has("phone") || has("mobile") || has("telephone") {
        FactKind::Phone
    } else if has("email") {
        FactKind::Email
    } else if has("address") {
        FactKind::Address
    } else if ["word", "password", "passphrase", "pin", "passcode", "secret", "answer", "security"]
        .iter()
        .any(|w| label.split(|c: char| !c.is_alphanumeric()).any(|p| p == *w || p.starts_with(w)))
    {
        FactKind::Secret
    } else if [
        "number",
        "code",
        "reference",
        "id",
        "account",
        "registration",
        "reg",
        "plate",
        "licence",
        "license",
        "serial",
    ]
    .iter()
    .any(|w| label.split(|c: char| !c.is_alphanumeric()).any(|p| p == *w))
    {
        FactKind::Code
    } else {
        FactKind::Other
    }
}

/// The facts a verification prompt names, in order; empty when it names none ("the caller's
/// identity"), and then whatever the agent asks for is what identifies.
pub(super) fn facts_named(prompt_lower: &str) -> Vec<Fact> {
    fact_list(prompt_lower).facts
}

/// The facts a verification prompt names and how many of them must be given.
pub(super) fn fact_list(prompt_lower: &str) -> FactList {
    let listed = PARENTHESIS
        .captures(prompt_lower)
        .and_then(|c| c.get(2))
        .or_else(|| LISTED_UNTIL.captures(prompt_lower).and_then(|c| c.get(1)))
        .or_else(|| LISTED_BEFORE.captures(prompt_lower).and_then(|c| c.get(3)));
    let Some(listed) = listed else {
        return FactList::default();
    };
    if listed.as_str().contains("identity") && !listed.as_str().contains('(') {
        return FactList::default();
    }
    let before = prompt_lower.get(listed.start().saturating_sub(40)..listed.start()).unwrap_or("");
    FactList::read(listed.as_str(), before)
}

/// Whether a line gives (part of) a code: letters and digits mixed, or characters spelled
/// one by one.
pub(super) fn gives_code(lower: &str) -> bool {
    let mixed = MIXED_CODE.find_all(lower).iter().any(|m| {
        let s = m.as_str();
        s.chars().any(|c| c.is_ascii_digit()) && s.chars().any(|c| c.is_ascii_alphabetic())
    });
    mixed || spelled(lower) >= 3
}

/// How many characters a line spells one by one, not counting a contraction's "s" or "t".
fn spelled(lower: &str) -> usize {
    SPELLED.find_all(&CONTRACTION.replace_all(lower, "")).len()
}

/// A line without the characters said one by one ("A S H 4 4 0 1, Moreau" is "Moreau"): a
/// spelled code's capitals are not a name.
fn unspelled(original: &str) -> String {
    let kept: Vec<&str> = original
        .split_whitespace()
        .filter(|t| t.trim_matches(|c: char| !c.is_alphanumeric()).chars().count() != 1)
        .collect();
    kept.join(" ")
}

/// Runs of characters said one by one, put together ("L S 6, 2 Q T" is "LS62QT"); a word
/// of two or more characters ends a run.
fn spelled_runs(original: &str) -> Vec<String> {
    let mut runs = vec![String::new()];
    for token in original.split_whitespace() {
        let bare = token.trim_matches(|c: char| !c.is_alphanumeric());
        match (bare.chars().count() == 1, runs.last_mut()) {
            (true, Some(run)) => run.push_str(&bare.to_uppercase()),
            _ => runs.push(String::new()),
        }
    }
    runs.retain(|r| r.chars().count() >= 5 && r.chars().any(|c| c.is_ascii_alphabetic()));
    runs
}

/// Whether the characters a line spells out are a postcode ("E L 2, 3 P W") and nothing else
/// in it is a code: a postcode is not an account's code.
fn only_postcode(lower: &str, original: &str) -> bool {
    let runs = spelled_runs(original);
    let mixed = MIXED_CODE.find_all(lower).iter().any(|m| {
        let s = m.as_str();
        s.chars().any(|c| c.is_ascii_digit()) && s.chars().any(|c| c.is_ascii_alphabetic())
    });
    !mixed && !runs.is_empty() && runs.iter().all(|run| SPELLED_POSTCODE.is_match(run))
}

/// Whether a line gives a house number and a named street ("16 Brook Meadow"), as said: a
/// number followed by a capitalised word that is not a month or a day.
fn gives_house(original: &str) -> bool {
    HOUSE
        .captures_all(original)
        .iter()
        .any(|c| c.get(1).is_some_and(|w| !super::details::is_calendar_word(&w.as_str().to_lowercase())))
}

/// Whether a line gives an account-like number: five digits or more, or four that are not a
/// year.
fn gives_number(lower: &str) -> bool {
    DIGIT_RUN.find_all(lower).iter().any(|m| {
        let digits: String = m.as_str().chars().filter(char::is_ascii_digit).collect();
        let year = digits.len() == 4 && (digits.starts_with("19") || digits.starts_with("20"));
        digits.len() >= 5 || (digits.len() == 4 && !year)
    })
}

/// Whether a line is only a code being spelled (the spelling a caller should be let finish).
pub(super) fn is_spelling(lower: &str) -> bool {
    spelled(lower) >= 3 || lower.contains(" as in ")
}

/// Whether the caller says they cannot or will not give what was asked.
pub(super) fn withholds(lower: &str) -> bool {
    WITHHELD.is_match(lower)
}

/// Whether words are missing from the transcript here ("[inaudible]").
pub(super) fn is_unclear(lower: &str) -> bool {
    UNCLEAR.is_match(lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(prompt: &str) -> Vec<FactKind> {
        facts_named(&prompt.to_lowercase()).iter().map(|f| f.kind).collect()
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(all_patterns().iter().all(|p| p.compiles()));
    }

    #[test]
    fn the_prompt_names_the_facts_in_its_own_words() {
        use FactKind::*;
        assert_eq!(
            kinds(
                "Decide whether the agent verified the caller's identity (full name AND date of birth, plus guardian status for a minor) BEFORE revealing"
            ),
            [FullName, BirthDate]
        );
        assert_eq!(
            kinds("Agent verifies the confirmation code and the passenger's last name before changing the booking."),
            [Code, Name]
        );
        assert_eq!(
            kinds(
                "Decide whether the agent verified the caller (the last four digits of the card AND the security word) BEFORE discussing"
            ),
            [LastDigits, Secret]
        );
        assert_eq!(
            kinds(
                "the receptionist confirmed who is calling (the pet's name AND the owner's phone number on file) BEFORE sharing"
            ),
            [Name, Phone]
        );
        assert_eq!(
            kinds(
                "whether the advisor checked that the caller is the account holder (the customer reference AND the first line of the supply address) BEFORE telling"
            ),
            [Code, Address]
        );
        assert_eq!(kinds("verified (the account number AND the postcode on the account) before"), [Code, Postcode]);
        assert_eq!(
            kinds("verified the caller (the policy number AND the registration of the insured vehicle) BEFORE"),
            [Code, Code]
        );
        assert_eq!(
            kinds("Agent does not reveal the appointment date until the date of birth matches the chart."),
            [BirthDate]
        );
        assert!(kinds("Agent confirms the caller's identity before discussing the existing appointment.").is_empty());
    }

    #[test]
    fn facts_are_given_by_their_form() {
        let fact = |label: &str| Fact::of(label).unwrap();
        let gives = |f: &Fact, text: &str| f.given_by_form(&text.to_lowercase(), text);
        assert!(gives(&fact("postcode"), "It's LS6 2QT."));
        assert!(gives(&fact("postcode"), "Q R 7, 4 W Z."), "a postcode spelled out");
        assert!(gives(&fact("postcode"), "X Y 7 7 1 2 0 3, and B T 9, 1 L L."), "after a code, past the word");
        assert!(!gives(&fact("postcode"), "X Y 7 7 1 2 0 3."), "a code is not a postcode");
        assert!(gives(&fact("phone number"), "The number's 07700 900 233."));
        assert!(gives(&fact("account number"), "It's 40 22 71 86 3."));
        assert!(gives(&fact("last four digits"), "Last four are 8063 and the word is Pembroke."));
        assert!(gives(&fact("pet's name"), "She's called Misty, and the number's 07700 900 233."));
        assert!(!gives(&fact("security word"), "Lighthouse."), "a word has no form: only an answer gives it");
        assert!(!gives(&fact("surname"), "K W L 3 0 9 2."), "a spelled code's capitals are no name");
        assert!(gives(&fact("surname"), "K W L 3 0 9 2, and it's Ferreira."));
        assert!(gives_code("it's k7qx2m. my flight was cancelled."));
        assert!(gives_code("sure, it's f as in frank, 5, r as in romeo, j"));
        assert!(fact("registration of the vehicle").given_by_form("k x 19 o r t.", "K X 19 O R T."));
        assert!(!gives_code("my flight to chicago was cancelled."));
        assert!(!gives_code("my husband's bag didn't come out, we'd waited ages."), "contractions spell nothing");
        assert!(is_unclear("yes, it's [inaudible] and the postcode is [inaudible]."));
    }

    #[test]
    fn the_last_four_may_be_said_digit_by_digit_but_not_inside_a_longer_code() {
        let last_four = Fact::of("last four digits of the savings account").unwrap();
        let gives = |text: &str| last_four.given_by_form(&text.to_lowercase(), text);
        assert!(gives("5 2 9 1."));
        assert!(gives("Q T 7 7 2 0 1, and it ends 8 4 4 6."));
        assert!(!gives("Q T 7 7 2 0 1 8."), "the tail of a longer code is not the last four");
        assert!(!gives("It's 5 2 9."), "three digits are not four");
    }
}
