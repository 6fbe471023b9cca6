//! The request as slots: what deed the caller asked for (a change of something that exists, a
//! new one, a cancellation, or a question), the times it must fit ("five's the only time I can
//! do", "before 10", "only after five") and, for a question, each part asked ("how much …, and
//! have you got …?") with the kind of value that answers it. Values are typed (a day of the
//! month, a weekday, minutes of the day), so a line is matched by what it says, not by the words
//! it shares with the request.

use std::collections::BTreeSet;

use super::super::conversation::{Conversation, Said, Side};
use super::super::details::WEEKDAYS;
use super::super::pattern::patterns;

patterns! {
    /// A day of the month: "the 28th", "12th of May", "May 12".
    DAY_NUMBER = r"\b(\d{1,2})(?:st|nd|rd|th)\b|\b(?:january|february|march|april|may|june|july|august|september|october|november|december) (\d{1,2})\b";
    WEEKDAY = format!(r"\b({WEEKDAYS})\b");
    /// A clock time: "3pm", "9:30", "at 3", "five o'clock", "half ten".
    CLOCK = r"\b(\d{1,2})(?::(\d{2}))? ?(am|pm|a\.m\.|p\.m\.)|\b(\d{1,2}):(\d{2})\b|\b(?:at|till|until|before|after|by|from) (\d{1,2})\b(?: ?(?:o'clock|o clock))?(?:[^:\d%]|$)|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2}) o'clock\b|\bhalf (one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})\b|\b(?:at|before|after|by) (one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b";
    /// A number that says how many of something, after which an "at 3" is no clock time.
    SPAN_UNIT = r"^ ?(days?|weeks?|months?|years?|hours?|minutes?|mins?|working|business|percent|pounds?|dollars?|euros?)\b";
    /// A line saying what already is, and stays: the state before the call, not a change.
    STANDS = r"\b(already|still|stays|staying|remains|currently|at the moment|existing|as it is|as it was|the one you (have|had|already have))\b";
    /// The caller saying a time is the one they need, not one they mention.
    EXCLUSIVE = r"\b(only|has to be|have to be|must be|needs? to be|same time)\b";
    /// A change of something that exists.
    MOVE = r"\b(move|moving|moved|change|changing|reschedul\w*|rearrang\w*|swap|switch|bring (it|\w+) forward|push (it|\w+) back|put (it|\w+) back|sooner|earlier|later)\b|\binstead\b";
    /// Something new made.
    NEW = r"\b(book|add|another|more|new|extra|sign (me|him|her|us) up)\b";
    CANCEL = r"\b(cancel|cancell?ing|call off)\b";
    /// A question word and the value that answers it.
    ASKS_AMOUNT = r"^(and |also |so )?(how much|what (does|do|will|would) it cost|what's the (price|cost|charge|fee)|what (is|are) the (price|cost|charge|fee)s?)\b";
    ASKS_WHEN = r"^(and |also |so )?(when|what time|what day|which day|how soon)\b";
    ASKS_HOW_MANY = r"^(and |also |so )?(how many|how long)\b";
    /// A part that asks for a deed ("can you put it on?") rather than a fact.
    ASKS_DEED = r"^(and |also |so |then )?(can|could|would|will) (you|someone|anyone)\b";
    /// A question joined to another in one sentence: where to cut it.
    JOINS = r", (?:and|also|plus) ";
}

/// Minutes of the day a spoken time may mean: "3" is 3 am or 3 pm; "3pm" only the one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Clock(pub BTreeSet<u32>);

impl Clock {
    fn of(hour: u32, minute: u32, meridiem: Option<&str>) -> Option<Clock> {
        if hour > 23 || minute > 59 {
            return None;
        }
        let h = hour % 12;
        let set = match meridiem.map(|m| m.starts_with('p')) {
            Some(true) => [(h + 12) * 60 + minute].into(),
            Some(false) => [h * 60 + minute].into(),
            None if hour > 12 || hour == 0 => [hour * 60 + minute].into(),
            None => [h * 60 + minute, (h + 12) * 60 + minute].into(),
        };
        Some(Clock(set))
    }

    /// The likelier reading of a time said without am or pm, for a bound: the hours of a
    /// working day (7 to 11 in the morning, 12 to 6 in the afternoon).
    fn likely(&self) -> u32 {
        let working = self.0.iter().copied().find(|m| (7 * 60..19 * 60).contains(m));
        working.unwrap_or_else(|| self.0.iter().copied().next().unwrap_or(0))
    }

    /// The readings in waking hours (7 am to 9 pm), or all of them if none is: "after four" is
    /// not 4 in the morning.
    fn plausible(&self) -> Vec<u32> {
        let waking: Vec<u32> = self.0.iter().copied().filter(|m| (7 * 60..21 * 60).contains(m)).collect();
        if waking.is_empty() { self.0.iter().copied().collect() } else { waking }
    }

    fn meets(&self, other: &Clock) -> bool {
        !self.0.is_disjoint(&other.0)
    }
}

/// How a request constrains the time of what is done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TimeSlot {
    At(Clock),
    Before(Clock),
    After(Clock),
}

impl TimeSlot {
    /// Whether a time stated for what was done fits this slot: it breaks it when every reading
    /// of both times (am or pm, where not said) does, and is in doubt when only the likelier does.
    pub fn fit(&self, done: &Clock) -> Fit {
        let (limit, late_is_bad) = match self {
            TimeSlot::At(want) => return if want.meets(done) { Fit::Fits } else { Fit::Breaks },
            TimeSlot::Before(limit) => (limit, true),
            TimeSlot::After(limit) => (limit, false),
        };
        let breaks = |d: u32, l: u32| if late_is_bad { d >= l } else { d < l };
        if !breaks(done.likely(), limit.likely()) {
            Fit::Fits
        } else if done.plausible().iter().all(|d| limit.plausible().iter().all(|l| breaks(*d, *l))) {
            Fit::Breaks
        } else {
            Fit::Unsure
        }
    }

    pub fn describe(&self) -> &'static str {
        match self {
            TimeSlot::At(_) => "at the time the caller asked for",
            TimeSlot::Before(_) => "before the time the caller gave",
            TimeSlot::After(_) => "after the time the caller gave",
        }
    }
}

/// How a stated time fits a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fit {
    Fits,
    Breaks,
    Unsure,
}

/// Dates and times a line states, typed.
#[derive(Debug, Default, Clone)]
pub(super) struct Values {
    pub days: BTreeSet<u32>,
    pub weekdays: BTreeSet<String>,
    pub clocks: Vec<Clock>,
}

impl Values {
    pub fn of(lower: &str) -> Values {
        let days = DAY_NUMBER
            .captures_all(lower)
            .iter()
            .filter_map(|c| c.get(1).or(c.get(2))?.as_str().parse().ok())
            .filter(|d| (1..=31).contains(d))
            .collect();
        let weekdays = WEEKDAY.find_all(lower).iter().map(|m| m.as_str().to_owned()).collect();
        Values { days, weekdays, clocks: clocks(lower).into_iter().map(|(_, _, c)| c).collect() }
    }

    pub fn is_empty(&self) -> bool {
        self.days.is_empty() && self.weekdays.is_empty() && self.clocks.is_empty()
    }

    /// Whether every date and time here is already in `known`: a weekday counts as known when
    /// a day of the month beside it is.
    pub fn all_in(&self, known: &Values) -> bool {
        let days = self.days.iter().all(|d| known.days.contains(d));
        let weekdays = !self.days.is_empty() || self.weekdays.iter().all(|w| known.weekdays.contains(w));
        let clocks = self.clocks.iter().all(|c| known.clocks.iter().any(|k| k.meets(c)));
        days && weekdays && clocks
    }

    pub fn extend(&mut self, other: Values) {
        self.days.extend(other.days);
        self.weekdays.extend(other.weekdays);
        self.clocks.extend(other.clocks);
    }
}

fn word_number(word: &str) -> Option<u32> {
    let words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
    words.iter().position(|w| *w == word).map(|i| i as u32 + 1).or_else(|| word.parse().ok())
}

/// Each clock time in a line, with where its match starts and how long it is.
fn clocks(lower: &str) -> Vec<(usize, usize, Clock)> {
    CLOCK
        .captures_all(lower)
        .iter()
        .filter_map(|c| {
            let whole = c.get(0)?;
            let num = |i: usize| c.get(i).and_then(|m| word_number(m.as_str()));
            let minute = |i: usize| c.get(i).and_then(|m| m.as_str().parse().ok()).unwrap_or(0);
            let clock = if let Some(h) = num(1) {
                Clock::of(h, minute(2), c.get(3).map(|m| m.as_str()))
            } else if let Some(h) = num(4) {
                Clock::of(h, minute(5), None)
            } else if let Some(h) = num(6) {
                // "at 3 working days" is a span.
                let rest = &lower[c.get(6)?.end()..];
                (!SPAN_UNIT.is_match(rest)).then(|| Clock::of(h, 0, None)).flatten()
            } else if let Some(h) = num(7) {
                Clock::of(h, 0, None)
            } else if let Some(h) = num(8) {
                Clock::of(h, 30, None)
            } else {
                Clock::of(num(9)?, 0, None)
            };
            Some((whole.start(), whole.len(), clock?))
        })
        .collect()
}

/// The time slots a caller's request sets: a bound ("before 10") wherever it is said, and a
/// time the caller says is the one they need ("same time, five o'clock", "five's the only
/// time"); a time merely mentioned ("I start work at half ten") sets none.
pub(super) fn time_slots<'a>(request_turn: impl Iterator<Item = &'a str>) -> Vec<TimeSlot> {
    let mut slots = Vec::new();
    for lower in request_turn {
        let mut exact = Vec::new();
        let mut bounded = false;
        for (at, len, clock) in clocks(lower) {
            // The bound word is inside the match ("before 10") or just before it ("by half ten").
            let first = lower[at..at + len].split_whitespace().next().unwrap_or("");
            let lead: Vec<&str> = lower[..at].split_whitespace().rev().take(2).chain([first]).collect();
            let said = |words: &[&str]| lead.iter().any(|w| words.contains(w));
            if said(&["before", "by", "latest"]) {
                slots.push(TimeSlot::Before(clock));
                bounded = true;
            } else if said(&["after", "earliest"]) {
                slots.push(TimeSlot::After(clock));
                bounded = true;
            } else {
                exact.push(clock);
            }
        }
        // Beside a bound, another time is the reason for it ("before 10, I start at half ten").
        if !bounded && EXCLUSIVE.is_match(lower) {
            slots.extend(exact.into_iter().map(TimeSlot::At));
        }
    }
    slots
}

/// What deed the caller asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Deed {
    /// A change to something that exists (moved, sooner, instead).
    Change,
    /// Something new.
    New,
    Cancel,
    Unknown,
}

pub(super) fn deed_of(lower: &str) -> Deed {
    if CANCEL.is_match(lower) {
        Deed::Cancel
    } else if MOVE.is_match(lower) {
        Deed::Change
    } else if NEW.is_match(lower) {
        Deed::New
    } else {
        Deed::Unknown
    }
}

/// What value answers a part of a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wants {
    Amount,
    When,
    Count,
    /// A deed, not a fact: answered by doing it.
    Deed,
    /// Anything: a yes, a no, a fact.
    Any,
}

impl Wants {
    fn of(part: &str) -> Wants {
        let part = part.trim_start_matches(|c: char| !c.is_alphanumeric());
        if ASKS_AMOUNT.is_match(part) {
            Wants::Amount
        } else if ASKS_WHEN.is_match(part) {
            Wants::When
        } else if ASKS_HOW_MANY.is_match(part) {
            Wants::Count
        } else if ASKS_DEED.is_match(part) && !part.contains(" tell ") && !part.contains(" confirm ") {
            Wants::Deed
        } else {
            Wants::Any
        }
    }

    /// Whether an agent line carries a value of this kind.
    pub fn carried_by(self, said: &Said) -> bool {
        let d = said.details();
        let digits = said.lower().chars().any(|c| c.is_ascii_digit());
        match self {
            Wants::Amount => d.money || d.quantity || said.lower().contains("free"),
            Wants::When => d.date || d.time,
            Wants::Count => digits || d.quantity || d.date || d.time,
            Wants::Deed | Wants::Any => true,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Wants::Amount => "an amount",
            Wants::When => "a day or a time",
            Wants::Count => "a number",
            Wants::Deed => "a deed",
            Wants::Any => "an answer",
        }
    }
}

/// Each part of a caller's question turn: its text and the value that answers it. A turn of
/// one part gives one.
pub(super) fn parts<'a>(question: &'a Said) -> Vec<(&'a str, Wants)> {
    question
        .turn
        .sentences
        .iter()
        .filter(|s| s.text.ends_with('?'))
        .flat_map(|s| JOINS.split(&s.lower))
        .map(|p| (p, Wants::of(p)))
        .collect()
}

/// The dates and times said to stand already: what any line but `but` says already is, still
/// is, or stays ("which is the one you already have", "it stays on the 28th"). A caller's
/// question ("could it still be the 9th?") is a wish, not the state.
pub(super) fn existing(conv: &Conversation, but: (usize, usize)) -> Values {
    let mut known = Values::default();
    for s in conv.said().filter(|s| s.order != but && s.side() != Side::Other && !s.is_question()) {
        if STANDS.is_match(s.lower()) {
            known.extend(Values::of(s.lower()));
        }
    }
    known
}
