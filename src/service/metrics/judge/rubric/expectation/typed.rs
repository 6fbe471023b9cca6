//! What an expectation asks the agent to tell, read as a type of value ("which day the crew
//! will come" asks for a day, "how much it costs" for an amount, "the lid will be free" for an
//! amount of nothing), and the values of each type a sentence carries by its form. A line that
//! shares the expectation's words but carries no value of its type tells nothing of it.

use super::super::conversation::Said;
use super::super::details::Details;
use super::super::pattern::patterns;
use super::super::terms::terms;
use super::DURATION;

patterns! {
    /// A concept that asks something other than a value: a reason, a way, a yes or no.
    NOT_A_VALUE = r"^(that )?(why|how to|how they|how he|how she|how you|what to|whether|if|where|who|whom|what happens|until when|by when|till when)\b";
    SPAN_ASKED = r"\bhow long\b";
    /// "the collection day", "the date the permit starts", not "the day pass".
    DAY_ASKED = r"\b(which|what) (day|date)\b|\bthe ([\w-]+ )?(day|date)( (the|when|that|of|on|their|they|it|its|his|her|your|our|for|a|an|[a-z]+'ll)\b|\.?$)";
    TIME_ASKED = r"\bwhat time\b|\bthe time (of|when|at|that)\b";
    WHEN_ASKED = r"^(that )?when\b";
    AMOUNT_ASKED = r"\bhow much\b|\b(price|prices|cost|costs|amount|total)\b";
    /// The expectation says the thing costs nothing: "the new lid will be free".
    FREE_SAID = r"\b(is|are|will be|would be|be) (free|free of charge|at no cost)\b|\bno (charge|fee|cost)\b|\bnothing to pay\b|\bwithout (a |any )?charge\b";
    /// The expectation says a charge stands: "the session will still be charged".
    CHARGE_SAID = r"\b(is|are|will|still|be|been) (still )?(charged|payable|billed)\b|\bstill (has|have) to pay\b|\bstill pays?\b|\b(charge|fee|cost|bill)s? (will |would |is going to )?(stay|stand|remain)s?\b";
    /// "By five", "in two hours", "in half an hour": a time of day or a lead time in words.
    TIME_IN_WORDS = r"\bby (one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})\b(?: (o'clock|am|pm|tonight|today|tomorrow))?(?:[^\w]|$)|\bin (half an hour|an hour|a couple of hours|(one|two|three|four|five|six|\d+) (hours?|minutes?))\b|\bend of (the )?(day|week)\b|\b(this|next) (week|month)\b";
    /// A moment said without a day or a time: said, but not checkably.
    VAGUE_MOMENT = r"\b(soon|shortly|later on|in a bit|in a while|asap|as soon as|any time now|once)\b";
    /// A bound, not a value: "over 5,000", "anything over a week", "up to 500 pounds".
    BOUND = r"\b(over|above|under|below|more than|less than|up to|at least|at most|no more than|anything over) (£|\$|€)?\d[\d,.]*( (pounds?|dollars?|euros?|percent))?\b|\b(over|above|under|more than|less than|up to|at least|anything over) (a|an|one|two|three|four|five|six|seven|\d+) (working |business )?(minutes?|hours?|days?|weeks?|months?|years?)\b";
    /// An amount of nothing: "free", "no charge".
    ZERO = r"\bfree\b|\bno (extra )?(charge|fee|cost)\b|\bat no (extra )?cost\b|\bnothing to pay\b|\bwon't cost\b|\bwithout (a |any )?charge\b|\bcost you nothing\b";
    /// A charge in words: "it's still charged", "you'll be billed".
    CHARGED_WORDS = r"\b(charged|billed|payable)\b|\b(fee|charge) (applies|stands)\b";
}

/// The type of value an expectation asks the agent to tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Object {
    /// A weekday, a date, "tomorrow".
    Day,
    /// A clock time, "by five", "in two hours".
    Time,
    /// "When": a day, a time or a lead time.
    Moment,
    /// "How long": a span.
    Span,
    /// A price or amount; `Some(true)` when it must be nothing, `Some(false)` a charge.
    Amount(Option<bool>),
}

impl Object {
    /// The type `concept` (what the agent must tell, as `super::concept` gives it) asks for.
    pub fn of(concept: &str) -> Option<Object> {
        let concept = concept.trim();
        if NOT_A_VALUE.is_match(concept) {
            return None;
        }
        if SPAN_ASKED.is_match(concept) {
            Some(Object::Span)
        } else if FREE_SAID.is_match(concept) {
            Some(Object::Amount(Some(true)))
        } else if CHARGE_SAID.is_match(concept) {
            Some(Object::Amount(Some(false)))
        } else if AMOUNT_ASKED.is_match(concept) {
            Some(Object::Amount(None))
        } else if DAY_ASKED.is_match(concept) {
            Some(Object::Day)
        } else if TIME_ASKED.is_match(concept) {
            Some(Object::Time)
        } else if WHEN_ASKED.is_match(concept) {
            Some(Object::Moment)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Object::Day => "a day or date",
            Object::Time => "a time",
            Object::Moment => "a day, a time or a lead time",
            Object::Span => "a span of time",
            Object::Amount(Some(true)) => "that it costs nothing",
            Object::Amount(Some(false)) => "that it is charged",
            Object::Amount(None) => "an amount",
        }
    }

    /// Words of the concept that name the type rather than what it is about.
    pub fn type_words(self) -> &'static [&'static str] {
        match self {
            Object::Day => &["day", "date", "which", "what"],
            Object::Time => &["time", "what"],
            Object::Moment => &["when"],
            Object::Span => &["how", "long"],
            Object::Amount(_) => &[
                "how", "much", "price", "prices", "cost", "costs", "amount", "total", "free", "charge", "charged",
                "fee", "still", "pay", "payable", "billed",
            ],
        }
    }

    /// What a sentence carries of this type: the right value, another value that answers in
    /// another type (a span for a day, a price for "free"), a vague moment, or nothing.
    pub fn carried(self, said: &Said) -> Carried {
        let v = Values::of(said);
        let right = match self {
            Object::Day => v.day,
            Object::Time => v.time,
            Object::Moment => v.day || v.time || v.span,
            Object::Span => v.span,
            Object::Amount(None) => v.amount || v.zero,
            Object::Amount(Some(true)) => v.zero,
            Object::Amount(Some(false)) => (v.amount || v.charged) && !v.zero,
        };
        let other = match self {
            Object::Day => v.span || v.time,
            Object::Time => v.span,
            Object::Moment | Object::Amount(None) => false,
            Object::Span => false,
            Object::Amount(Some(true)) => v.amount,
            Object::Amount(Some(false)) => v.zero,
        };
        let vague = matches!(self, Object::Day | Object::Time | Object::Moment) && v.vague;
        if right {
            Carried::Value
        } else if other {
            Carried::OtherKind
        } else if vague {
            Carried::Vague
        } else {
            Carried::Nothing
        }
    }
}

/// What a sentence carries of the type asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Carried {
    Value,
    OtherKind,
    Vague,
    Nothing,
}

/// The values a sentence carries by their form.
#[derive(Debug, Default, Clone, Copy)]
struct Values {
    day: bool,
    time: bool,
    span: bool,
    amount: bool,
    zero: bool,
    charged: bool,
    vague: bool,
}

impl Values {
    fn of(said: &Said) -> Values {
        let lower = said.lower();
        let d = said.details();
        // A bound ("anything over a week") limits a value; it is not one.
        let unbound = BOUND.replace_all(lower, "");
        let amount = Details::of(&unbound, &unbound).money || super::unsaid::bare_figure(&unbound);
        Values {
            day: d.date,
            time: d.time || TIME_IN_WORDS.is_match(lower),
            span: DURATION.is_match(&unbound),
            amount,
            zero: ZERO.is_match(lower),
            charged: CHARGED_WORDS.is_match(lower),
            vague: VAGUE_MOMENT.is_match(lower),
        }
    }
}

/// Whether a line carries an amount by its form: a currency, not a bare figure or "free".
pub(super) fn by_form(said: &Said) -> bool {
    said.details().money
}

/// The concept's words about what it is about, without the words naming its type.
pub(super) fn subject(concept: &str, object: Object) -> std::collections::BTreeSet<String> {
    let skip: std::collections::BTreeSet<String> = terms(&object.type_words().join(" "));
    terms(concept).into_iter().filter(|t| !skip.contains(t)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::ParticipantType::Agent;
    use crate::service::metrics::judge::rubric::conversation::Conversation;
    use crate::service::metrics::judge::rubric::tests::transcript;

    fn carried(object: Object, line: &str) -> Carried {
        let conv = Conversation::read(&transcript(&[(Agent, line)]));
        let said = conv.said().next().unwrap();
        object.carried(&said)
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(all_patterns().iter().all(|p| p.compiles()));
    }

    #[test]
    fn the_type_asked_is_read_from_the_expectation() {
        assert_eq!(Object::of("which day the glazier will call round"), Some(Object::Day));
        assert_eq!(Object::of("the date the permit starts"), Some(Object::Day));
        assert_eq!(Object::of("when the kiln will be fired"), Some(Object::Moment));
        assert_eq!(Object::of("how long the varnish takes to cure"), Some(Object::Span));
        assert_eq!(Object::of("how much the engraving costs"), Some(Object::Amount(None)));
        assert_eq!(Object::of("the spare oar will be free"), Some(Object::Amount(Some(true))));
        assert_eq!(Object::of("the missed tasting will still be charged"), Some(Object::Amount(Some(false))));
        assert_eq!(Object::of("why the kiln is closed"), None, "a reason is no value");
        assert_eq!(Object::of("whether the 3rd of May is free"), None, "a yes or no is not an amount");
        assert_eq!(Object::of("until when the permit can be changed"), None, "a limit is read elsewhere");
        assert_eq!(Object::of("to keep the receipt"), None);
        assert_eq!(Object::of("the caller a code for the day pass"), None, "a day pass is no day");
        assert_eq!(Object::of("the pick-up day"), Some(Object::Day));
    }

    #[test]
    fn a_value_is_carried_by_its_form_not_by_shared_words() {
        assert_eq!(carried(Object::Day, "The glazier comes Thursday the 9th."), Carried::Value);
        assert_eq!(carried(Object::Day, "The glazier has noted your window."), Carried::Nothing);
        assert_eq!(carried(Object::Day, "The glazier will be out within three working days."), Carried::OtherKind);
        assert_eq!(carried(Object::Moment, "The kiln is fired in four days."), Carried::Value);
        assert_eq!(carried(Object::Moment, "It'll be ready by five."), Carried::Value);
        assert_eq!(carried(Object::Moment, "It'll be ready soon."), Carried::Vague);
        assert_eq!(carried(Object::Amount(None), "Engraving is 14 pounds a line."), Carried::Value);
        assert_eq!(carried(Object::Amount(Some(true)), "The spare oar is 30 pounds."), Carried::OtherKind);
        assert_eq!(carried(Object::Amount(Some(true)), "The spare oar comes at no cost."), Carried::Value);
        assert_eq!(carried(Object::Amount(Some(false)), "The tasting's off, but it's still charged."), Carried::Value);
    }
}
