//! "Offers X": an agent line, after the point the prompt names (a keypad press, a failed
//! verification), that puts X on the table. A callback, a slot or a flight have their own
//! signs; anything else is matched as a concept. "…and reads it back before asking for
//! confirmation" also wants the offered slot read back with a request to confirm.

use super::super::conversation::Said;
use super::super::details::Details;
use super::super::pattern::patterns;
use super::super::terms::{coverage, terms};
use super::super::{Finding, Shape};

patterns! {
    PROMPT = r"\b(offers?|suggests?|proposes?)\b";
    OFFERING = r"\b(i have|we have|i've got|there's|there is|has|have|i can offer|how about|would you like|is available|are available|is open|openings?|i can (put|move|book|get|have|offer)|we can|the (latest|earliest|next) (is|one|slot|flight|available|\\w+ is)|is the (latest|earliest|next))\b";
    CALLBACK = r"\bcall (you )?back\b|\bcallback\b|\bcall you\b|\bhave (someone|our office|\w+) call\b";
    CONFIRM_ASK = r"\bpress 1\b|\bto confirm\b|\bshall i\b|\bwould you like\b|\bdoes that work\b|\bwould that work\b";
    READS_BACK = r"\breads? (it |them )?back\b";
    /// Something booked for a time: an offer of it carries a day, a time or an identifier.
    BOOKABLE = r"\b(slot|time|appointment|day|date|visit|booking|table|seat|place|room|ticket|session|class)\b";
}

pub(super) fn read(said: &[Said], prompt: &str, concept: &str) -> Option<Finding> {
    if !PROMPT.is_match(prompt) {
        return None;
    }
    let general = !CALLBACK.is_match(concept) && !BOOKABLE.is_match(concept) && !Details::of(concept, concept).time;
    let offered = if CALLBACK.is_match(concept) {
        said.iter().find(|s| CALLBACK.is_match(s.lower()))
    } else if BOOKABLE.is_match(concept) || Details::of(concept, concept).time {
        // Something to be booked: an offer carrying a day, a time or an identifier.
        said.iter().find(|s| {
            let d = s.details();
            OFFERING.is_match(s.lower()) && (d.date || d.time || d.identifier)
        })
    } else {
        let wanted = terms(concept);
        said.iter().find(|s| {
            let (anchored, share) = coverage(&wanted, s.terms());
            anchored && share >= 0.5
        })
    };
    let Some(offer) = offered else {
        // An offer sharing some of the concept's words may be it, in other words.
        let wanted = terms(concept);
        let near = |s: &&Said| OFFERING.is_match(s.lower()) && coverage(&wanted, s.terms()).1 > 0.0;
        if let Some(near) = said.iter().find(near).filter(|_| general) {
            return Some(Finding::unsure(format!(
                "Cannot tell: the agent offered {}, which may be {concept} in other words.",
                near.quote()
            )));
        }
        let why = match said.first() {
            Some(first) => format!("Not met: the agent never offered {concept}; it said {}.", first.quote()),
            None => format!("Not met: the agent never offered {concept}."),
        };
        return Some(Finding::not_met(Shape::NeverOffered, why, 0.75));
    };
    if READS_BACK.is_match(prompt) {
        let read_back = said.iter().filter(|s| s.order >= offer.order).find(|s| {
            let d = s.details();
            (d.date || d.time) && CONFIRM_ASK.is_match(s.lower())
        });
        return Some(match read_back {
            Some(back) => Finding::met(
                Shape::OfferReadBack,
                format!(
                    "Met: the agent offered {} and read it back asking to confirm: {}.",
                    offer.quote(),
                    back.quote()
                ),
                0.8,
            ),
            None => Finding::not_met(
                Shape::OfferReadBack,
                format!("Not met: the agent offered {} but never read it back asking to confirm.", offer.quote()),
                0.75,
            ),
        });
    }
    Some(Finding::met(Shape::Offered, format!("Met: the agent offered it: {}.", offer.quote()), 0.8))
}
