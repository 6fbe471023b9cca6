//! The concrete details a line can carry: dates, times, providers, treatments, money,
//! insurance, flights, seats and references, and the identity facts a caller gives (date of
//! birth, name, confirmation code). Matched on normalised lower-case text unless noted.

use super::pattern::patterns;

const MONTHS: &str = r"january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec";
const WEEKDAYS: &str = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday";
/// Ordinals that name a day ("the fifteenth"); "the first" is more often "the first option".
const DAY_ORDINALS: &str = r"fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-\w+|thirtieth|thirty-first";
const ORDINALS: &str = r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-\w+|thirtieth|thirty-first";

patterns! {
    WEEKDAY = format!(r"\b({WEEKDAYS})\b");
    MONTH_DAY = format!(r"\b({MONTHS})\.? (\d{{1,2}}(st|nd|rd|th)?|{ORDINALS})\b|\bthe (\d{{1,2}}(st|nd|rd|th)|{DAY_ORDINALS})\b");
    CLOCK = r"\b\d{1,2}(:\d{2})? ?(am|pm|a\.m\.?|p\.m\.?)(\W|$)|\b\d{1,2}:\d{2}\b|\bnoon\b|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(-| )?(thirty|fifteen|forty-five|o'clock)\b";
    PROVIDER_LOWER = r"\bdr\.? [a-z]+|\bdoctor [a-z]+|\bhygienist\b|\bdentist\b";
    /// "with Maya": on the original text, so that "with us" is not a provider.
    PROVIDER_NAMED = r"\bwith (Dr\.? )?[A-Z][a-z]+";
    TREATMENT = r"\b(cleaning|check-?up|exam|filling|crown|root canal|x-rays?|scaling|denture|whitening|extraction|implant|fluoride|sealants?|consultation|follow-up|preparation|deep cleaning)s?\b";
    MONEY = r"\$\s?\d|\bdollars?\b|\bbalance\b|\byou owe\b|\boutstanding\b|\bcopay\b";
    INSURANCE = r"\b(delta dental|delta|aetna|cigna|metlife|guardian (dental|plan|ppo)|ppo|dhmo|insurance|plan|coverage|covers|covered|deductible|benefits)\b";
    FLIGHT = r"\b(sb|cp)\s?\d{2,4}\b|\bflight \d{2,4}\b";
    SEAT = r"\bseats? \d{1,2}[a-k]\b|\b(aisle|window|middle) seat \d{1,2}[a-k]\b";
    REFERENCE = r"\b(refund|confirmation|booking) (reference|code|number)( is| stays| remains)?\b|\b[a-z]{2}-\d{4,}\b";
    YEAR = r"\b(19|20)\d{2}\b|\bnineteen[- ]\w+|\btwo thousand\b|\btwenty[- ](oh|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)\b";
    MONTH = format!(r"\b({MONTHS})\b");
    NUMERIC_DATE = r"\b\d{1,2}[/-]\d{1,2}[/-]\d{2,4}\b|\b(19|20)\d{2}-\d{2}-\d{2}\b";
    NAME = r"\b[A-Z][a-z']+(-[A-Z][a-z']+)? [A-Z][a-z']+(-[A-Z][a-z']+)?\b";
    INTRODUCES = r"\b(?i:my name is|name's|this is|it's|i'm|name is) [A-Z][a-z']+|\b[A-Z](-[A-Z]){2,}\b";
    CODE = r"\b[a-z0-9]{6}\b";
    /// One character said alone ("a" and "i" are words, unless spelled "as in").
    SPELLED = r"\b[b-hj-z0-9]\b( as in \w+)?|\b[ai] as in \w+";
}

/// Which kinds of detail a sentence carries.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Details {
    pub date: bool,
    pub time: bool,
    pub provider: bool,
    pub treatment: bool,
    pub money: bool,
    pub insurance: bool,
    pub flight: bool,
    pub seat: bool,
    pub reference: bool,
}

impl Details {
    /// `lower` is the normalised text, `original` the text as said (for names).
    pub fn of(lower: &str, original: &str) -> Details {
        Details {
            date: WEEKDAY.is_match(lower) || MONTH_DAY.is_match(lower),
            time: CLOCK.is_match(lower),
            provider: PROVIDER_LOWER.is_match(lower) || named_provider(original),
            treatment: TREATMENT.is_match(lower),
            money: MONEY.is_match(lower),
            insurance: INSURANCE.is_match(lower),
            flight: FLIGHT.is_match(lower),
            seat: SEAT.is_match(lower),
            reference: REFERENCE.is_match(lower),
        }
    }

    /// Details that say something about one patient's record.
    pub fn protected(&self) -> bool {
        self.date || self.time || self.provider || self.treatment || self.money || self.insurance
    }

    /// The names of the details present, for reasoning.
    pub fn names(&self) -> Vec<&'static str> {
        let all = [
            (self.date, "date"),
            (self.time, "time"),
            (self.provider, "provider"),
            (self.treatment, "treatment"),
            (self.money, "amount"),
            (self.insurance, "insurance"),
            (self.flight, "flight number"),
            (self.seat, "seat"),
            (self.reference, "reference"),
        ];
        all.iter().filter(|(present, _)| *present).map(|(_, name)| *name).collect()
    }
}

fn named_provider(original: &str) -> bool {
    PROVIDER_NAMED.find_all(original).iter().any(|m| {
        let word = m.as_str().rsplit(' ').next().unwrap_or("").to_lowercase();
        !is_calendar_word(&word) && !NOT_NAMES.contains(&word.as_str())
    })
}

fn is_calendar_word(word: &str) -> bool {
    MONTHS.split('|').any(|m| m == word) || WEEKDAYS.split('|').any(|d| d == word)
}

/// Capitalised words that are not people.
const NOT_NAMES: &[&str] = &[
    "i",
    "hi",
    "hello",
    "yes",
    "yeah",
    "no",
    "sure",
    "okay",
    "ok",
    "oh",
    "um",
    "uh",
    "well",
    "thanks",
    "thank",
    "please",
    "brightsmile",
    "dental",
    "delta",
    "aetna",
    "cigna",
    "metlife",
    "guardian",
    "ppo",
    "dhmo",
    "pdp",
    "plus",
    "skybridge",
    "air",
    "cascade",
    "pacific",
    "dr",
    "doctor",
    "mr",
    "mrs",
    "ms",
    "my",
    "it's",
    "this",
    "that",
    "the",
    "and",
    "is",
    "am",
    "pm",
    "sb",
    "cp",
    "o'hare",
    "terminal",
    "concourse",
    "front",
    "desk",
    "let",
    "just",
    "sorry",
    "look",
    "hey",
    "great",
    "perfect",
    "alright",
    "right",
    "actually",
    "honestly",
    "dear",
    "good",
    "morning",
    "afternoon",
    "evening",
    "our",
    "your",
    "his",
    "her",
    "their",
    "we",
    "you",
    "he",
    "she",
    "they",
    "it",
    "a",
    "an",
    "in",
    "on",
    "at",
    "to",
    "for",
    "from",
    "of",
    "can",
    "could",
    "do",
    "does",
    "will",
    "would",
    "what",
    "when",
    "where",
    "why",
    "how",
    "is",
];

/// Whether a caller's line gives a date of birth (a date with a year).
pub(super) fn gives_birth_date(lower: &str) -> bool {
    NUMERIC_DATE.is_match(lower) || (MONTH.is_match(lower) && YEAR.is_match(lower))
}

/// Whether a caller's line (as said) gives a person's name: two capitalised words that are
/// not calendar words or company names, an introduction, or a name spelled out.
pub(super) fn gives_name(original: &str) -> bool {
    let is_name = |candidate: &str| {
        candidate.split([' ', '-']).all(|w| {
            let w = w.to_lowercase();
            !is_calendar_word(&w) && !NOT_NAMES.contains(&w.as_str())
        })
    };
    NAME.find_all(original).iter().any(|m| is_name(m.as_str()))
        || INTRODUCES.find_all(original).iter().any(|m| {
            let last = m.as_str().rsplit(' ').next().unwrap_or("");
            m.as_str().contains('-') || is_name(last)
        })
}

/// Whether a caller's line gives (part of) a booking code: six letters and digits mixed, or
/// characters spelled one by one.
pub(super) fn gives_code(lower: &str) -> bool {
    let mixed = CODE.find_all(lower).iter().any(|m| {
        let s = m.as_str();
        s.chars().any(|c| c.is_ascii_digit()) && s.chars().any(|c| c.is_ascii_alphabetic())
    });
    mixed || SPELLED.find_all(lower).len() >= 3
}

/// Whether a line is only a code being spelled (the spelling a caller should be let finish).
pub(super) fn is_spelling(lower: &str) -> bool {
    SPELLED.find_all(lower).len() >= 3 || lower.contains(" as in ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn details(text: &str) -> Details {
        Details::of(&super::super::conversation::normalise(text), text)
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(all_patterns().iter().all(|p| p.compiles()));
    }

    #[test]
    fn details_are_recognised() {
        let d = details("I see your cleaning on Thursday, October 8 at 9:00 AM with Maya.");
        assert!(d.date && d.time && d.provider && d.treatment && d.protected());
        let d = details("You're on SB 1116 at 11:35 AM, seat 27E.");
        assert!(d.flight && d.time && d.seat && !d.provider);
        assert!(!details("We can help with that.").protected());
        assert!(details("Your refund reference is RF-880241.").reference);
    }

    #[test]
    fn identity_facts_are_recognised() {
        assert!(gives_birth_date("march twelfth, nineteen eighty-four."));
        assert!(gives_birth_date("sure, it's march 12, 1984."));
        assert!(!gives_birth_date("tuesday at 9:30 works for me."));
        assert!(gives_name("Dana Whitfield, March 12, 1984."));
        assert!(gives_name("Hi, this is Kevin Park."));
        assert!(gives_name("Raman. R-A-M-A-N."));
        assert!(!gives_name("Sure, it's March 12, 1984."));
        assert!(!gives_name("Yes, Delta Dental PPO through my work."));
        assert!(!gives_name("T9HB3D. Our Orlando flight was cancelled."));
        assert!(gives_code("it's k7qx2m. my flight was cancelled."));
        assert!(gives_code("sure, it's f as in frank, 5, r as in romeo, j"));
        assert!(!gives_code("my flight to chicago was cancelled."));
    }
}
