//! When the walk's reading of "was the request done?" is robust enough to answer. The walk
//! reads successes, take-backs and answers by their words, and each new desk has brought
//! wordings it did not know; these checks look at structure instead (who spoke after the
//! deciding line, whether it was questioned, whether anything unread was said) and send the
//! judge to abstain where a wording it did not read could turn the verdict.

use super::super::conversation::{Conversation, Said, Side};
use super::super::pattern::patterns;
use super::{DEFLECTION, NO_PROBLEM, NOTE_ONLY, OFFERS, RESTATES, Request, answers, claims_success};

patterns! {
    /// Words in an agent line that may qualify or take back what was done, whatever the
    /// walk made of the line.
    DOUBT = r"\b(sorry|afraid|unfortunately|however|can't|cannot|couldn't|unable to|not able to|won't be able|approv\w*|sign(ed)?[- ]?off|pending|awaiting|provisional\w*|tentative\w*|actually|wait|instead)\b";
    /// A caller line that may say the work is not what they asked, or not done.
    PUSHBACK = r"^(no|nope|wait|hang on|hold on|hmm)\b|\bthough\b|\bbut\b|\bthat's not\b|\bi (said|asked|wanted|meant|thought)\b";
    /// A caller closing contentedly, which settles nothing but questions nothing either.
    CONTENT = r"\b(thanks|thank you|cheers|brilliant|great|perfect|lovely|wonderful|that's all|that's everything|that's it|bye|goodbye)\b";
    /// A yes to "so that's done, yeah?".
    YES = r"^(yes|yeah|yep|yup|that's right|correct|it has|they have|it is|they are|they will|it will|all done|absolutely|definitely|sure is)\b";
    /// Lines that carry no content about the request: greetings, closings, manners.
    SMALL_TALK = r"\b(anything else|have a (good|nice|great|lovely)|thanks for calling|thank you for calling|goodbye|bye|take care|you're welcome)\b|^(thank you|thanks|okay|ok|right|sure|of course|no problem|no worries|certainly|great|lovely|perfect)[.!]?$";
    /// A line that negates or only allows for something.
    HEDGED = r"\b(not|isn't|aren't|wasn't|won't|can't|no|never|nothing|may|might|could|would|decision|need to|needs to)\b|n't\b";
    /// An answer in the form of a yes, a no or a plain fact of the desk.
    ANSWER_FORM = r"(^|, )(yes|yeah|yep|no|nope|not|sadly not|i'm afraid not)\b|\b(we're|we are|it's|it is|they're|they are|that's|that is|there's|there is|there are|there isn't|there aren't)( not| now| still)? (open|closed|with|at|in|on|due|ready|waiting|covered|free|included|available|an?|no|none)\b|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|tonight|morning|afternoon|evening|week|weeks|days?|hours?|minutes?|percent|pounds?|dollars?|euros?)\b";
    /// A question that asks the agent to confirm something was done ("… won't they?").
    CONFIRMING = r"\b(yeah|yes|right|won't (it|they|he|she)|will (it|they)|isn't (it|that|he|she)|hasn't (it|that|he|she)|haven't (you|they)|didn't (you|they)|aren't (they|you)|correct|is it|has it|have they|are they)\?$";
    /// The agent saying it cannot do, find or say something, in any verb ("I can't bring it
    /// forward", "I can't see their diary"); a line it cannot hear is no refusal.
    REFUSES = r"\b(can't|cannot|can not|couldn't|could not|unable to|not able to|won't be able to|isn't possible|is not possible|not possible to)\b(?: (?:actually|really|just|currently|unfortunately|still|then|even))? (\w+)";
    /// What a refusal waits for: "… until you're verified", "… without the receipt".
    PRECONDITION = r"\b(until|till|unless|without|before)\b";
    /// Where a clause that says what happens if something is not done begins: "…, otherwise
    /// we can't hand it over" sets a condition, it qualifies nothing done.
    OTHERWISE = r"[,;]? (otherwise|or else|if not)\b";
    /// A second question joined to the first in one sentence ("do you sell them, and have
    /// you got one in blue?").
    JOINED_QUESTION = r", (and|also|plus) (have|has|is|are|was|were|do|does|did|can|could|will|would|what|when|where|how|which|who|whether)\b";
    /// A question that asks someone to do something ("could you …?", "can't you …?"), not to
    /// say something ("can you tell me …?").
    ASKS_TO_DO = r"^(so |and |but |then |okay,? |well,? )?(can|could|would|will|can't|couldn't|won't|wouldn't)( not)? (you|someone|anyone|somebody|the \w+)\b";
    /// Verbs after "can you" that ask for an answer rather than a deed.
    ASKS_TO_SAY = r"^(so |and |but |then |okay,? |well,? )?[\w']+( not)? \w+( \w+)? (just )?(tell|let|confirm|check|explain|say|give me|find out|see|remind|repeat|spell|look)\b";
}

/// After the last claim of success (or the answer that settled the request), the first line
/// that questions it: an agent line with words that may qualify it, or the caller pushing back.
pub(super) fn doubt_after<'a>(conv: &'a Conversation, done: &Said) -> Option<Said<'a>> {
    let last = conv.said_by(Side::Agent).filter(|s| s.order >= done.order && claims_success(s)).last();
    let from = last.map_or(done.order, |l| l.order);
    // An agent's "sorry, I can't" after the caller asked for something more is about that.
    let asked_more = conv.said_by(Side::Caller).find(|s| s.order > from && s.is_question()).map(|s| s.order);
    conv.said().filter(|s| s.order > from).find(|s| match s.side() {
        Side::Agent => {
            !claims_success(s)
                && !s.is_question()
                && DOUBT.is_match(unconditioned(s.lower()))
                && asked_more.is_none_or(|q| s.order < q)
        }
        Side::Caller => s.turn.keypad().is_none() && PUSHBACK.is_match(s.lower()) && !CONTENT.is_match(s.lower()),
        Side::Other => false,
    })
}

/// A confirmation question ("so that's been done, yeah?") answered without a yes: the answer
/// may be a no in words the walk does not read.
pub(super) fn unconfirmed(question: &Said, answer: &Said) -> bool {
    CONFIRMING.is_match(question.lower())
        && !YES.is_match(answer.lower().trim_start_matches(|c: char| !c.is_alphanumeric()))
}

/// Whether an answer carries something a question can be answered with by its form: a yes or a
/// no, a number, a day or time, a place, a person, an amount. Manners ("no problem") and offers
/// in words the walk did not know carry none.
pub(super) fn has_substance(answer: &Said) -> bool {
    let lower = answer.lower();
    let d = answer.details();
    // "No problem" is manners, not a "no".
    let plain = NO_PROBLEM.replace_all(lower, "");
    ANSWER_FORM.is_match(plain.trim_start_matches(|c: char| !c.is_alphanumeric() && c != ','))
        || d.particular()
        || d.place
        || lower.chars().any(|c| c.is_ascii_digit())
}

/// A question of two parts ("how heavy can it be? And what do you charge if it's over?")
/// where, after the answer, an agent line says something may be missing: the first agent
/// line from the answer on with words that may say the other part was not answered.
pub(super) fn second_part_left<'a>(conv: &'a Conversation, question: &Said, answer: &Said) -> Option<Said<'a>> {
    let asked = question.turn.sentences.iter().filter(|s| s.text.ends_with('?'));
    let two_parts = asked.clone().count() >= 2 || asked.clone().any(|s| JOINED_QUESTION.is_match(&s.lower));
    if !two_parts {
        return None;
    }
    conv.said_by(Side::Agent)
        .filter(|s| s.order >= answer.order)
        .find(|s| DOUBT.is_match(s.lower()) || HEDGED.is_match(s.lower()) && !s.is_question())
}

/// Whether a line has words that may qualify or regret something ("sorry", "can't", "instead").
pub(super) fn doubts(lower: &str) -> bool {
    DOUBT.is_match(lower)
}

/// A claim that qualifies itself ("that's in, but it needs your manager's sign-off").
pub(super) fn hedges_itself(claim: &Said) -> bool {
    DOUBT.is_match(claim.lower())
}

/// An agent statement after the request that says something the walk read as neither done nor
/// undone: it may be the request done, or the question answered, in words not known. For a
/// request to act, a line that refuses, negates or hedges is no success in other words.
pub(super) fn unread_statement<'a>(
    conv: &'a Conversation,
    after: Option<(usize, usize)>,
    question: bool,
) -> Option<Said<'a>> {
    // With no request read, from the caller's first words: the greeting comes before them.
    let after = after.or_else(|| conv.said_by(Side::Caller).next().map(|s| s.order))?;
    conv.said_by(Side::Agent).filter(|s| s.order > after).find(|s| {
        let lower = s.lower();
        !s.is_question()
            && !DEFLECTION.is_match(lower)
            && !OFFERS.is_match(lower)
            && !SMALL_TALK.is_match(lower)
            && !RESTATES.is_match(lower)
            && !NOTE_ONLY.is_match(lower)
            && lower.split_whitespace().count() >= 3
            && (question || !(DOUBT.is_match(lower) || HEDGED.is_match(lower)))
    })
}

/// A refusal that still stands: an agent line after the caller first spoke that says it
/// cannot do, find or say something, with no claim of anything done after it. A refusal
/// after the deciding line `done` and a caller's question asking for more is about that,
/// not the request. Whatever the walk read as the answer, the request may be what was
/// refused.
pub(super) fn standing_refusal<'a>(conv: &'a Conversation, request: &Request, done: &Said) -> Option<Said<'a>> {
    let from = conv.said_by(Side::Caller).next()?.order;
    // The request first answered, if it was before the deciding line.
    let answered = request
        .question
        .and_then(|q| conv.said_by(Side::Agent).find(|s| s.order > q.order && answers(s)))
        .filter(|a| a.order < done.order);
    let done = answered.as_ref().unwrap_or(done);
    let refusal = conv
        .said_by(Side::Agent)
        .filter(|s| s.order > from && !s.is_question() && refuses_outright(s.lower()))
        .filter(|s| !side_request(conv, done, s))
        .last()?;
    let done_after = conv.said_by(Side::Agent).any(|s| s.order > refusal.order && claims_success(&s));
    (!done_after).then_some(refusal)
}

/// A take-back in an agent turn that opens with a yes to the caller's question ("Is the first one
/// still on?" — "Definitely. …, nothing's changed on it."): the yes may be what the caller
/// wanted, and the negation be about something else. Returns the yes.
pub(super) fn affirmed_before<'a>(conv: &'a Conversation, back: &Said<'a>) -> Option<Said<'a>> {
    if back.side() != Side::Agent || back.order.1 == 0 {
        return None;
    }
    let asked = conv.turns[..back.turn.index].iter().rev().find(|t| t.side != Side::Other)?;
    let question = asked.side == Side::Caller && asked.sentences.iter().any(|s| s.text.ends_with('?'));
    let first = back.turn.sentences.first()?;
    let yes = YES.is_match(first.lower.trim_start_matches(|c: char| !c.is_alphanumeric()));
    (question && yes).then_some(Said { turn: back.turn, sentence: first, order: (back.turn.index, 0) })
}

/// Whether a line says the agent cannot do, find or say something (not that it cannot hear).
pub(in super::super) fn cannot_do(lower: &str) -> bool {
    REFUSES
        .captures_all(lower)
        .iter()
        .any(|c| c.get(2).is_some_and(|v| !["hear", "thank", "wait"].contains(&v.as_str())))
}

/// A refusal with no precondition after it: "I can't share that until you're verified" waits
/// for something the call may then give.
fn refuses_outright(lower: &str) -> bool {
    let lower = unconditioned(lower);
    REFUSES.captures_all(lower).iter().filter_map(|c| c.get(0)).any(|m| {
        let refused = cannot_do(m.as_str());
        refused && !PRECONDITION.is_match(&lower[m.end()..])
    })
}

/// A line up to an "otherwise" clause, which only says what happens if a condition is not met.
fn unconditioned(lower: &str) -> &str {
    OTHERWISE.find(lower).map_or(lower, |m| &lower[..m.start()])
}

/// Whether a refusal answers a caller's question asked after the request was done or answered.
fn side_request(conv: &Conversation, done: &Said, refusal: &Said) -> bool {
    let claimed = conv.said_by(Side::Agent).find(|s| s.order < refusal.order && claims_success(s));
    let first = claimed.map_or(done.order, |c| c.order.min(done.order));
    conv.said_by(Side::Caller).any(|q| q.order > first && q.order < refusal.order && q.is_question())
}

/// A question asking someone to do something ("could you take it off?") whose reply states a
/// fact but neither opens with a yes or a no nor claims it done: a reading of the record in
/// reply is not the deed.
pub(super) fn deed_asked_not_done(question: &Said, reply: &Said) -> bool {
    let lower = question.lower();
    let reply_lower = reply.lower().trim_start_matches(|c: char| !c.is_alphanumeric());
    ASKS_TO_DO.is_match(lower)
        && !ASKS_TO_SAY.is_match(lower)
        && !YES.is_match(reply_lower)
        && !reply_lower.starts_with("no")
        && !claims_success(reply)
}
