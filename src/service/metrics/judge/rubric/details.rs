//! The concrete details a line can carry, in any desk's words: days and dates, times and time
//! windows, people (a title or "with" and a name), money, measured quantities and codes (a
//! reference, an identifier such as "SB 1116" or "seat 27E"). Matched on normalised
//! lower-case text, and on the text as said where capitals tell a name or a code.

use super::pattern::patterns;

pub(super) const MONTHS: &str = r"january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec";
pub(super) const WEEKDAYS: &str = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday";
/// Ordinals that name a day ("the fifteenth"); "the first" is more often "the first option".
const DAY_ORDINALS: &str = r"fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-\w+|thirtieth|thirty-first";
const ORDINALS: &str = r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-\w+|thirtieth|thirty-first";
/// Units after a number that make it a quantity rather than a time ("3 to 5 working days").
const UNITS: &str = r"days?|working|business|weeks?|months?|years?|hours?|minutes?|mins?|pounds?|dollars?|euros?|percent|%|mg|ml|kg|g|tablets?|homes?|meg|mb|gb|mbps|times";

patterns! {
    WEEKDAY = format!(r"\b({WEEKDAYS})\b");
    MONTH_DAY = format!(r"\b({MONTHS})\.? (\d{{1,2}}(st|nd|rd|th)?|{ORDINALS})\b|\bthe (\d{{1,2}}(st|nd|rd|th)|{DAY_ORDINALS})\b|\b\d{{1,2}}(st|nd|rd|th)? of ({MONTHS})\b");
    RELATIVE_DAY = r"\b(today|tomorrow|tonight|yesterday|this (morning|afternoon|evening)|next week)\b";
    CLOCK = r"\b\d{1,2}(:\d{2})? ?(am|pm|a\.m\.?|p\.m\.?)(\W|$)|\b\d{1,2}:\d{2}\b|\bnoon\b|\b\d{1,2} o'clock\b|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(-| )?(thirty|fifteen|forty-five|o'clock)\b";
    /// "at 3", "8 till 12", "between 8 and 1", but not "3 to 5 working days".
    AT_HOUR = format!(r"\bat \d{{1,2}}\b(?:[^:\d]|$)|\b(between )?\d{{1,2}}(:\d{{2}})? (till|until|to|and|-) \d{{1,2}}(:\d{{2}})?\b( (?:{UNITS})\b)?");
    DAYPART = r"\b(morning|afternoon|evening) (slot|appointment|visit|window)\b|\ball[- ]day\b";
    TITLED = r"\b(dr|doctor|mr|mrs|ms|miss|nurse|prof|professor)\.? [a-z]+";
    /// "with Maya": on the text as said, so that "with us" is not a person.
    WITH_NAMED = r"\bwith (Dr\.? |Doctor |Nurse )?[A-Z][a-z]+";
    MONEY = r"[$£€]\s?\d|\b\d[\d,.]* ?(pounds?|dollars?|euros?|quid|bucks|p)\b|\b(pounds?|dollars?|euros?)\b|\bbalance\b|\byou owe\b|\boutstanding\b|\bcomes to\b|\bcopay\b";
    QUANTITY = format!(r"\b\d[\d,.]* ?(mg|ml|kg|percent|%|tablets?|meg|mb|gb|mbps)\b|\b(half|quarter|one|two|three) (a )?tablets?\b|\b(one |a )?hundred percent\b|\b\w+ percent\b");
    /// A reference read out: "refund reference", "order number", a code like "DSP-4471".
    REFERENCE = r"\b(refund|confirmation|booking|order|dispute|case|ticket|reference) (reference|code|number|id)( is| stays| remains)?\b|\b[a-z]{2,4}-\d{3,}\b|\breference\b";
    /// An identifier as said: "SB 1116", "seat 27E", "NW-55210".
    IDENTIFIER = r"\b[A-Z]{1,3} ?-?\d{2,5}[A-Z]?\b|\b(?i:seat|gate|room|bay|platform|order|unit) \d{1,4}[A-Za-z]?\b";
    /// A street address: a number and a street ("14 Mill Lane").
    ADDRESS = r"\b\d{1,4}[A-Za-z]? [A-Z][a-z]+( [A-Z][a-z]+)? (Road|Rd|Street|St|Lane|Ln|Avenue|Ave|Close|Drive|Way|Court|Crescent|Place|Terrace|Gardens|Grove|Hill|Park|Row|Square|Walk|Mews)\b";
    /// A place named as said: a street ("Harbour Road") or premises ("our Leeds city branch").
    PLACE = r"\b[A-Z][a-z]+( [A-Z][a-z]+)? (Road|Rd|Street|St|Lane|Avenue|Ave|Drive|Way|Square|Park)\b|\b(?i:at|from|to|in) (?i:our|the) ([\w-]+ ){1,3}(?i:branch|office|store|depot|desk|centre|center|terminal|site|location|counter)\b";
    YEAR = r"\b(19|20)\d{2}\b|\bnineteen[- ]\w+|\btwo thousand\b|\btwenty[- ](oh|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)\b";
    MONTH = format!(r"\b({MONTHS})\b");
    NUMERIC_DATE = r"\b\d{1,2}[/-]\d{1,2}[/-]\d{2,4}\b|\b(19|20)\d{2}-\d{2}-\d{2}\b";
}

/// Which kinds of detail a sentence carries.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Details {
    pub date: bool,
    pub time: bool,
    pub person: bool,
    pub money: bool,
    pub quantity: bool,
    pub identifier: bool,
    pub reference: bool,
    pub address: bool,
    /// A place to go: a street or premises; not particular to one caller's record.
    pub place: bool,
}

impl Details {
    /// `lower` is the normalised text, `original` the text as said (for names and codes).
    pub fn of(lower: &str, original: &str) -> Details {
        let hour = AT_HOUR.find_all(lower).iter().any(|m| !ends_in_unit(m.as_str()));
        Details {
            date: WEEKDAY.is_match(lower) || MONTH_DAY.is_match(lower) || RELATIVE_DAY.is_match(lower),
            time: CLOCK.is_match(lower) || hour || DAYPART.is_match(lower),
            person: TITLED.is_match(lower) || named_person(original),
            money: MONEY.is_match(lower),
            quantity: QUANTITY.is_match(lower),
            identifier: IDENTIFIER.find_all(original).iter().any(|m| !is_clock_word(m.as_str())),
            reference: REFERENCE.is_match(lower),
            address: ADDRESS.is_match(original),
            place: ADDRESS.is_match(original) || PLACE.is_match(original),
        }
    }

    /// Details that say something particular about one caller's record.
    pub fn particular(&self) -> bool {
        self.date || self.time || self.person || self.money || self.quantity || self.address
    }

    /// The names of the details present, for reasoning.
    pub fn names(&self) -> Vec<&'static str> {
        let all = [
            (self.date, "date"),
            (self.time, "time"),
            (self.person, "person"),
            (self.money, "amount"),
            (self.quantity, "quantity"),
            (self.identifier, "identifier"),
            (self.reference, "reference"),
            (self.address, "address"),
        ];
        all.iter().filter(|(present, _)| *present).map(|(_, name)| *name).collect()
    }
}

/// "8 till 12 working days" is a span of days, not a time.
fn ends_in_unit(found: &str) -> bool {
    found.split_whitespace().last().is_some_and(|w| !w.chars().any(|c| c.is_ascii_digit()) && w != "-")
}

/// "AM 10" and "PM 2" are not codes.
fn is_clock_word(found: &str) -> bool {
    let lead = found.split(|c: char| c.is_ascii_digit() || c == ' ' || c == '-').next().unwrap_or("");
    ["AM", "PM", "A", "I"].contains(&lead)
}

fn named_person(original: &str) -> bool {
    WITH_NAMED.find_all(original).iter().any(|m| {
        let word = m.as_str().rsplit(' ').next().unwrap_or("").to_lowercase();
        !is_calendar_word(&word) && !super::names::is_common_word(&word)
    })
}

pub(super) fn is_calendar_word(word: &str) -> bool {
    MONTHS.split('|').any(|m| m == word) || WEEKDAYS.split('|').any(|d| d == word)
}

/// Whether a line gives a date of birth (a date with a year).
pub(super) fn gives_birth_date(lower: &str) -> bool {
    NUMERIC_DATE.is_match(lower) || (MONTH.is_match(lower) && YEAR.is_match(lower))
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
    fn details_are_recognised_in_any_desk_s_words() {
        let d = details("I see your visit on Thursday, October 8 at 9:00 AM with Maya.");
        assert!(d.date && d.time && d.person && d.particular());
        let d = details("You're on SB 1116 at 11:35 AM, seat 27E.");
        assert!(d.identifier && d.time && !d.person);
        assert!(!details("We can help with that.").particular());
        assert!(details("Your refund reference is RF-880241.").reference);
        let d = details("I've got your engineer down for Thursday the 14th, between 8 and 1.");
        assert!(d.date && d.time);
        assert!(details("Rocky's on 5 mg, half a tablet twice a day.").quantity);
        assert!(details("Your last bill was 46 pounds 80.").money);
        assert!(!details("It'll arrive in 3 to 5 working days.").time, "a span of days is not a time");
        assert!(details("Max's check-up at 3 is cancelled.").time);
    }

    #[test]
    fn a_birth_date_has_a_year() {
        assert!(gives_birth_date("march twelfth, nineteen eighty-four."));
        assert!(gives_birth_date("sure, it's march 12, 1984."));
        assert!(!gives_birth_date("tuesday at 9:30 works for me."));
    }
}
