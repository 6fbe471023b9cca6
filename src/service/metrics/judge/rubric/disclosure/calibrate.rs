//! When a verification reading is robust enough to answer. "Nothing private was disclosed"
//! rests on recognising every way an agent can read a record out, and "not verified" on
//! recognising every way a caller can give a fact; each new desk has brought ways the judge
//! did not know ("I can't see any request from yesterday", a registration spelled out). These
//! checks find the lines where such a wording could hide and send the judge to abstain.

use super::super::conversation::{Conversation, Said, Side, Turn};
use super::super::identity::gives_code;
use super::super::outcome::claims_success;
use super::super::pattern::patterns;
use super::{Ask, OFFER, REQUESTS, asks_for, new_to_the_call};

patterns! {
    /// A statement about the caller's thing or a look at the record, in any words.
    ABOUT_THEIRS = r"\b(your|his|her|their|[a-z]+'s) [a-z-]+( [a-z-]+)? (is|are|was|were|has|have|had|came|went|got|will|'s)\b|\b(can|can't|cannot|don't|do) see\b|\bhere (we are|it is|you are)\b|\b(it|that|this|they)('s| is| are| was| were) (due|ready|waiting|booked|down|with|at|on|already|still)\b";
}

/// The first agent statement, after the caller first spoke and before `until` (the turn the
/// caller was verified at, or the whole call), that may read the caller's record out in words
/// the judge does not know: a day or a number new to the call, or a statement about their
/// things. Offers and requests are not, nor what the agent has just done once the caller
/// was verified, nor what the agent says of the fact it is asking for ("it's on the back of
/// the card") in a turn that asks for one, unless it reads a code out.
pub(super) fn unread_disclosure<'a>(conv: &'a Conversation, ask: &Ask, until: Option<&Turn>) -> Option<Said<'a>> {
    let from = conv.said_by(Side::Caller).next()?.order;
    conv.said_by(Side::Agent).filter(|s| s.order > from && until.is_none_or(|t| s.turn.index < t.index)).find(|s| {
        let lower = s.lower();
        // With the caller never verified, what the agent says it did may read the record too
        // ("I've got her on tonight's 6.30 spin and Saturday's yoga").
        let news = claims_success(s) && until.is_some();
        if s.is_question() || REQUESTS.is_match(lower) || OFFER.is_match(lower) || news {
            return false;
        }
        let details = s.details();
        let earlier = &conv.turns[..s.turn.index];
        // Explaining where to find it carries no code of its own; "your reference is …" does.
        let asking = ask.list.facts.iter().any(|f| asks_for(s.turn, f)) && !gives_code(lower);
        (details.particular() && new_to_the_call(lower, earlier)) || (ABOUT_THEIRS.is_match(lower) && !asking)
    })
}
