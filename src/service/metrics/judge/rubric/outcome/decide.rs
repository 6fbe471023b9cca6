//! Deciding "was the request done?" from the walk: the last word on the request, after the
//! checks that send the judge to abstain (an answer in doubt, a success the call may not
//! bear out, an unread statement) and the caller giving up.

use super::super::conversation::{Conversation, Said, Side};
use super::super::identity::is_unclear;
use super::super::{Finding, Shape};
use super::{
    DEFLECTION, GIVES_UP, OFFERS, Request, WITHHOLDS, Walk, YES_NO_QUESTION, YES_OR_NO, answers, calibrate,
    claims_success, fit, passed_on, success_at,
};

pub(super) fn decide(conv: &Conversation, walk: &Walk, caller_claim: Option<Said>) -> Finding {
    if let Some(unsure) = answer_in_doubt(conv, walk) {
        return unsure;
    }
    let Walk { request, positive, recovered_from, undone, .. } = walk;
    match (*positive, *undone) {
        (Some(done), None) if let Some(left) = gave_up_after(conv, &done) => Finding::not_met(
            Shape::GaveUpAfterReply,
            format!("Not met: after the agent said {} the caller gave up on it, {}.", done.quote(), left.quote()),
            0.75,
        ),
        (Some(done), None) if let Some(unsure) = fragile_success(conv, request, &done) => unsure,
        (Some(done), None) => {
            let (shape, mut why) = match (request.question, success_at(&done).is_some()) {
                (Some(q), false) => (
                    Shape::QuestionAnswered,
                    format!("Met: the caller asked {} and the agent answered {}", q.quote(), done.quote()),
                ),
                _ => (Shape::SuccessUnquestioned, format!("Met: the agent said {}", done.quote())),
            };
            if let Some(error) = recovered_from {
                why.push_str(&format!(" (after first saying {})", error.quote()));
            }
            why.push_str(", and nothing later took it back.");
            Finding::met(shape, why, 0.85)
        }
        (Some(done), Some(back)) if back.side() == Side::Caller => Finding::not_met(
            Shape::CallerCorrected,
            format!(
                "Not met: the agent said {} but the caller said {}: not what was asked.",
                done.quote(),
                back.quote()
            ),
            0.8,
        ),
        (Some(done), Some(back)) if let Some(yes) = calibrate::affirmed_before(conv, &back) => {
            Finding::unsure(format!(
                "Cannot tell: the agent said {} and later {}, but opened that reply with {}: the two readings of the call \
             conflict.",
                done.quote(),
                back.quote(),
                yes.quote()
            ))
        }
        (Some(done), Some(back)) => Finding::not_met(
            Shape::ClaimTakenBack,
            format!("Not met: the agent said {} but then {}.", done.quote(), back.quote()),
            0.85,
        ),
        (None, Some(back)) => {
            let mut why = format!("Not met: the agent said {}, and nothing later completed the request.", back.quote());
            claim_note(&mut why, caller_claim);
            Finding::not_met(Shape::RefusalStands, why, 0.8)
        }
        (None, None) => nothing_done(conv, walk, caller_claim),
    }
}

/// Notes the caller's own claim of what the agent never did.
fn claim_note(why: &mut String, caller_claim: Option<Said>) {
    if let Some(claim) = caller_claim {
        why.push_str(&format!(" The caller's own {} is not the agent doing it.", claim.quote()));
    }
}

/// Abstains where the answer to a question is in doubt: the agent answered and said it cannot
/// say more, or the answer is partly lost from the transcript. A yes or a no to a yes-or-no
/// question stands even when what follows it is lost.
fn answer_in_doubt(conv: &Conversation, walk: &Walk) -> Option<Finding> {
    let Walk { request, positive, undone, .. } = walk;
    let q = request.question?;
    let answered = positive.filter(|done| success_at(done).is_none());
    if let (Some(done), None) = (answered, undone)
        && let Some(held) = conv.said_by(Side::Agent).find(|s| s.order >= done.order && WITHHOLDS.is_match(s.lower()))
    {
        return Some(Finding::unsure(format!(
            "Cannot tell: the caller asked {} and the agent answered {} but also said {}: whether that is what the \
             caller wanted is not clear.",
            q.quote(),
            done.quote(),
            held.quote()
        )));
    }
    let lost = match (answered, positive, undone) {
        // A sentence lost later in the answering turn may be the answer itself.
        (Some(done), ..) => Some(done).filter(|d| {
            let rest = &d.turn.sentences[d.order.1.min(d.turn.sentences.len())..];
            rest.iter().any(|s| is_unclear(&s.lower)) && !yes_or_no_to(&q, d)
        }),
        (None, None, None) => conv.said_by(Side::Agent).find(|s| s.order > q.order && is_unclear(s.lower())),
        _ => None,
    }?;
    Some(Finding::unsure(format!(
        "Cannot tell: the caller asked {} and the agent's answer {} is partly lost from the transcript.",
        q.quote(),
        lost.quote()
    )))
}

/// Whether the answer opens with a plain yes or no to a question that asks for one ("is it
/// coming today?" — "Yes, it's on the van, with you by [inaudible]").
fn yes_or_no_to(question: &Said, answer: &Said) -> bool {
    YES_NO_QUESTION.is_match(question.lower()) && YES_OR_NO.is_match(answer.lower())
}

/// A caller giving up on the request ("just leave it", "don't bother") after an agent line
/// that answered it with regret or an alternative, and no success after: the caller left
/// without what they wanted.
fn gave_up_after<'a>(conv: &'a Conversation, done: &Said) -> Option<Said<'a>> {
    let regretted = |s: &Said| calibrate::doubts(s.lower()) || OFFERS.is_match(s.lower());
    let gave_up = conv.said_by(Side::Caller).filter(|s| s.order > done.order).find(|s| GIVES_UP.is_match(s.lower()))?;
    let before = conv.said_by(Side::Agent).filter(|s| s.order >= done.order && s.order < gave_up.order);
    let after_success = conv.said_by(Side::Agent).any(|s| s.order > gave_up.order && claims_success(&s));
    let no_success = conv.said_by(Side::Agent).all(|s| !claims_success(&s));
    (no_success && !after_success && before.into_iter().any(|s| regretted(&s))).then_some(gave_up)
}

/// On a call where the agent claimed nothing done, the caller giving up ("forget it") after an
/// agent line with regret or an alternative: the caller left without what they asked for.
fn gave_up_unserved(conv: &Conversation) -> Option<(Said<'_>, Said<'_>)> {
    if conv.said_by(Side::Agent).any(|s| claims_success(&s)) {
        return None;
    }
    let from = conv.said_by(Side::Caller).next()?.order;
    let gave_up = conv.said_by(Side::Caller).filter(|s| s.order > from).find(|s| GIVES_UP.is_match(s.lower()))?;
    let regret = conv
        .said_by(Side::Agent)
        .filter(|s| s.order > from && s.order < gave_up.order)
        .find(|s| calibrate::doubts(s.lower()) || OFFERS.is_match(s.lower()))?;
    Some((regret, gave_up))
}

/// The caller giving up on something ("leave it") between the request and the claim: a part of
/// the request may have been dropped, and the claim be about the rest.
fn gave_up_before<'a>(conv: &'a Conversation, request: &Request, done: &Said) -> Option<Said<'a>> {
    let from = request.said.map_or((0, 0), |r| r.order);
    conv.said_by(Side::Caller).find(|s| s.order > from && s.order < done.order && GIVES_UP.is_match(s.lower()))
}

/// Nothing done and nothing taken back: a setback, a request passed on, an unread statement
/// (abstain), or a request left undone.
fn nothing_done(conv: &Conversation, walk: &Walk, caller_claim: Option<Said>) -> Finding {
    let Walk { request, setback, unpressed, .. } = walk;
    let (setback, unpressed) = (*setback, *unpressed);
    let (shape, mut why) = match (unpressed, setback, request.question, request.said) {
        (Some(s), _, _, _) => {
            (Shape::KeypadMissing, format!("Not met: the agent said {} but no keypad press came before it.", s.quote()))
        }
        (None, Some(s), _, _) => {
            (Shape::SetbackLeft, format!("Not met: the request was left undone; the agent said {}.", s.quote()))
        }
        (None, None, _, _) if let Some((regret, left)) = gave_up_unserved(conv) => (
            Shape::GaveUpUnserved,
            format!(
                "Not met: the agent said {} and the caller gave up on it, {}; nothing was claimed done on the call.",
                regret.quote(),
                left.quote()
            ),
        ),
        (None, None, _, Some(r)) if let Some(note) = passed_on(conv, &r) => {
            return Finding::unsure(format!(
                "Cannot tell: the caller asked {} and the agent passed it on, {}: whether passing it on is what the \
                 caller wanted is not clear.",
                r.quote(),
                note.quote()
            ));
        }
        (None, None, _, r)
            if let Some(unread) = calibrate::unread_statement(conv, r.map(|r| r.order), request.question.is_some()) =>
        {
            return Finding::unsure(format!(
                "Cannot tell: no agent line says in words the offline judge knows that the request was done or \
                 answered, but the agent said {}, which may say so in other words.",
                unread.quote()
            ));
        }
        (None, None, Some(q), _) => (
            Shape::QuestionUnanswered,
            format!("Not met: the caller asked {} and the agent never answered it.", q.quote()),
        ),
        (None, None, None, Some(r)) => (
            Shape::NoSuccessClaimed,
            format!("Not met: the caller asked {} and no agent line says it was done.", r.quote()),
        ),
        (None, None, None, None) => {
            (Shape::NoSuccessClaimed, "Not met: no agent line says the request was done.".to_owned())
        }
    };
    let after = request.said.map(|r| r.order);
    let deflected = conv
        .said_by(Side::Agent)
        .filter(|s| after.is_none_or(|a| s.order > a) && DEFLECTION.is_match(s.lower()))
        .find(|s| s.lower().starts_with("let me") || s.lower().starts_with("i'll"));
    if let Some(d) = deflected.filter(|_| setback.is_none()) {
        why.push_str(&format!(" The agent put it off with {}.", d.quote()));
    }
    if let Some(last) = conv.last_agent().filter(|l| setback.is_none_or(|s| s.turn.index != l.turn.index)) {
        why.push_str(&format!(" The agent's last line was {}.", last.quote()));
    }
    claim_note(&mut why, caller_claim);
    Finding::not_met(shape, why, if conv.last_agent().is_some() { 0.75 } else { 0.5 })
}

/// Abstains on a success the call may not bear out: a confirmation question answered without
/// a yes, or a later line that questions it (see `calibrate`).
fn fragile_success(conv: &Conversation, request: &Request, done: &Said) -> Option<Finding> {
    refused_after_all(conv, request, done)
        .or_else(|| fragile_claim(conv, request, done))
        .or_else(|| unsure_answer(conv, request, done))
        .or_else(|| {
            calibrate::doubt_after(conv, done).map(|doubt| {
                Finding::unsure(format!(
                    "Cannot tell: the agent said {} but later {}, which may qualify or take it back in words the offline \
                     judge does not read.",
                    done.quote(),
                    doubt.quote()
                ))
            })
        })
}

/// A refusal that stands after the claim: "not met" when it refuses the very deed asked.
fn refused_after_all(conv: &Conversation, request: &Request, done: &Said) -> Option<Finding> {
    let refusal = calibrate::standing_refusal(conv, request, done)?;
    if fit::refuses_the_deed(request.said.as_ref(), &refusal) {
        return Some(Finding::not_met(
            Shape::RefusedTheVeryDeed,
            format!(
                "Not met: the caller asked {} and the agent said {}, refusing that very deed, and claimed nothing \
                 done after it.",
                request.said.map_or_else(String::new, |r| r.quote()),
                refusal.quote()
            ),
            0.75,
        ));
    }
    Some(Finding::unsure(format!(
        "Cannot tell: the agent said {} but also {}, and claimed nothing done after that refusal: what it could \
         not do may be the request.",
        done.quote(),
        refusal.quote()
    )))
}

/// A claim of success the call qualifies: something given up or handed on before, or hedged.
fn fragile_claim(conv: &Conversation, request: &Request, done: &Said) -> Option<Finding> {
    success_at(done)?;
    if let Some(left) = gave_up_before(conv, request, done) {
        return Some(Finding::unsure(format!(
            "Cannot tell: the agent said {} but the caller had given up on something before, {}: whether that was \
             part of the request is not clear.",
            done.quote(),
            left.quote()
        )));
    }
    if let Some(handed) = super::part_handed_off(conv, request) {
        return Some(Finding::unsure(format!(
            "Cannot tell: the agent said {} but also {}, handing part of the request to someone else: whether all \
             of it was done is not clear.",
            done.quote(),
            handed.quote()
        )));
    }
    if calibrate::hedges_itself(done) {
        return Some(Finding::unsure(format!(
            "Cannot tell: the agent said {}, a claim qualified in the same breath, in words the offline judge does \
             not read.",
            done.quote()
        )));
    }
    None
}

/// An answer to a question that may not answer it (no claim of a deed was made).
fn unsure_answer(conv: &Conversation, request: &Request, done: &Said) -> Option<Finding> {
    if success_at(done).is_some() {
        return None;
    }
    if let Some(q) = request.question
        && calibrate::deed_asked_not_done(&q, done)
    {
        return Some(Finding::unsure(format!(
            "Cannot tell: the caller asked {} and the agent replied {}, which neither says yes or no nor that it was \
             done: a reading of what already stands is not the thing asked for.",
            q.quote(),
            done.quote()
        )));
    }
    let substantial_answer =
        || conv.said_by(Side::Agent).any(|s| s.order >= done.order && answers(&s) && calibrate::has_substance(&s));
    if let Some(q) = request.question
        && !substantial_answer()
    {
        return Some(Finding::unsure(format!(
            "Cannot tell: the caller asked {} and the agent's reply {} carries no yes, no, number, day or other fact \
             the offline judge can read as the answer.",
            q.quote(),
            done.quote()
        )));
    }
    if let Some(q) = request.question
        && let Some(rest) = calibrate::second_part_left(conv, &q, done)
        && !fit::parts_answered(conv, &q)
    {
        return Some(Finding::unsure(format!(
            "Cannot tell: the caller asked two things, {} among them, and after the answer {} the agent said {}: \
             whether both were answered is not clear.",
            q.quote(),
            done.quote(),
            rest.quote()
        )));
    }
    if let Some(q) = request.question
        && calibrate::unconfirmed(&q, done)
    {
        return Some(Finding::unsure(format!(
            "Cannot tell: the caller asked {} and the agent answered {} without a yes: whether that confirms it is \
             not clear.",
            q.quote(),
            done.quote()
        )));
    }
    None
}
