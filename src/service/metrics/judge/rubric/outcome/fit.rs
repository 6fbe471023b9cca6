//! Whether the line read as "done" fits the request's slots (`slots.rs`): a time the agent
//! states that breaks the caller's ("Done, at 3" for a caller who can only do five) is not the
//! request done; a time lost from that line ("[inaudible]") where the caller set one cannot be
//! checked; a question of several parts is answered only when each part that asks for a kind
//! of value (an amount, a day or time, a number) gets one; a new thing made is not an existing
//! thing moved.

use std::collections::BTreeSet;

use super::super::conversation::{Conversation, Said, Side};
use super::super::identity::is_unclear;
use super::super::pattern::patterns;
use super::super::terms::terms;
use super::super::{Finding, Shape};
use super::slots::{self, Deed, Fit, Values, Wants};
use super::{SETBACK, Walk, calibrate, claims_success, passes_on};

patterns! {
    /// A bound the caller sets on when the deed must be: "before the weekend", "by Friday".
    BY_WHEN = r"\b(before|by|no later than|in time for) (the |this |next )?(weekend|week|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|end of)\b";
}

/// The deciding line's turn from that line on: where its values are said ("Done. Wednesday at 3").
fn deciding_turn<'a>(done: &Said<'a>) -> impl Iterator<Item = &'a str> + 'a {
    done.turn.sentences[done.order.1..].iter().map(|s| s.lower.as_str())
}

/// A reading of "done" that the request's slots overturn or leave in doubt; None when it fits.
pub(super) fn misfit(conv: &Conversation, walk: &Walk) -> Option<Finding> {
    let done = walk.positive?;
    let request = walk.request.said?;
    let wanted = slots::time_slots(request.turn.sentences.iter().map(|s| s.lower.as_str()));
    // "Before the weekend", "by Friday": a bound on the deed that a lost word may break.
    let bounded = BY_WHEN.is_match(&request.turn.lower);
    if (!wanted.is_empty() || bounded)
        && let Some(lost) = deciding_turn(&done).find(|l| is_unclear(l))
    {
        return Some(Finding::unsure(format!(
            "Cannot tell: the caller asked {} with a time it must fit, and the agent's {} is partly lost from the \
             transcript (\"{lost}\").",
            request.quote(),
            done.quote()
        )));
    }
    if let Some(finding) = time_misfit(&request, &done, &wanted) {
        return Some(finding);
    }
    walk.request.question.and_then(|q| part_unanswered(conv, &q))
}

/// A time stated with the deed that breaks a time the caller set.
fn time_misfit(request: &Said, done: &Said, wanted: &[slots::TimeSlot]) -> Option<Finding> {
    let stated = deciding_turn(done).flat_map(|l| Values::of(l).clocks).next()?;
    let (slot, fit) = wanted.iter().map(|w| (w, w.fit(&stated))).find(|(_, f)| *f != Fit::Fits)?;
    let why = format!(
        "the caller asked {} and the agent said {}, with a time not {}",
        request.quote(),
        done.quote(),
        slot.describe()
    );
    Some(match fit {
        Fit::Breaks => Finding::not_met(Shape::TimeBreaksSlot, format!("Not met: {why}: not what was asked."), 0.8),
        _ => Finding::unsure(format!("Cannot tell: {why} on the likelier reading of the times (am or pm unsaid).")),
    })
}

/// A question of several parts where one that asks for a kind of value got none from any agent
/// line after it, or one that asks for a deed saw nothing done.
fn part_unanswered(conv: &Conversation, question: &Said) -> Option<Finding> {
    let parts = slots::parts(question);
    if parts.len() < 2 {
        return None;
    }
    let after: Vec<Said> = conv.said_by(Side::Agent).filter(|s| s.order > question.order).collect();
    let (part, wants) = parts.into_iter().find(|(_, wants)| match wants {
        Wants::Any => false,
        Wants::Deed => !after.iter().any(claims_success),
        w => !after.iter().any(|s| !s.is_question() && w.carried_by(s)),
    })?;
    let part = part.trim().trim_end_matches('?');
    let left = after.iter().find(|s| SETBACK.is_match(s.lower()) || passes_on(s));
    match (wants, left) {
        (Wants::Deed, Some(left)) => Some(Finding::not_met(
            Shape::PartLeftUndone,
            format!(
                "Not met: the caller asked {} and no agent line does the part \"{part}\"; the agent said {}.",
                question.quote(),
                left.quote()
            ),
            0.75,
        )),
        _ if wants == Wants::Deed || after.iter().any(|s| is_unclear(s.lower())) => Some(Finding::unsure(format!(
            "Cannot tell: the caller asked {} and no agent line the offline judge can read does the part \"{part}\".",
            question.quote()
        ))),
        _ => Some(Finding::not_met(
            Shape::PartUnanswered,
            format!(
                "Not met: the caller asked {}, and no agent line answers the part \"{part}\" with {}.",
                question.quote(),
                wants.name()
            ),
            0.75,
        )),
    }
}

/// Words that ask rather than name what is asked about.
const ASKING: &[&str] = &["how", "much", "many", "long", "who", "why", "way", "tell", "know", "wonder"];

/// Whether every part of a question of several parts has its answer: a value of the kind it
/// asks for, a claim of the deed it asks for, or, for any other part, an agent line with
/// something in it (a yes, a no, a fact) that names what the part asks about and does not
/// hedge. Where they all do, "did it answer both?" is settled.
pub(super) fn parts_answered(conv: &Conversation, question: &Said) -> bool {
    let parts = slots::parts(question);
    let after: Vec<Said> = conv.said_by(Side::Agent).filter(|s| s.order > question.order).collect();
    let answers = |s: &&Said| !s.is_question() && calibrate::has_substance(s) && !calibrate::doubts(s.lower());
    let about = |i: usize| -> BTreeSet<String> {
        let others: BTreeSet<String> =
            parts.iter().enumerate().filter(|(j, _)| *j != i).flat_map(|(_, (p, _))| terms(p)).collect();
        terms(parts[i].0).into_iter().filter(|t| !others.contains(t) && !ASKING.contains(&t.as_str())).collect()
    };
    parts.len() >= 2
        && parts.iter().enumerate().all(|(i, (_, wants))| match wants {
            Wants::Deed => after.iter().any(claims_success),
            Wants::Any => {
                let object = about(i);
                !object.is_empty() && after.iter().filter(answers).any(|s| !s.terms().is_disjoint(&object))
            }
            w => after.iter().filter(answers).any(|s| w.carried_by(s)),
        })
}

/// For a deed of moving something: the call made a new one instead. The caller asked for
/// something new ("can you add …", "book me …") and neither that request nor the agent's claim
/// speaks of changing what was there.
pub(super) fn made_new_not_moved(walk: &Walk) -> Option<Finding> {
    let (request, done) = (walk.request.said?, walk.positive?);
    let asked = slots::deed_of(&request.turn.lower);
    let claimed = slots::deed_of(&done.turn.lower);
    (asked == Deed::New && claimed != Deed::Change && claimed != Deed::Cancel).then(|| {
        Finding::not_met(
            Shape::MadeNewNotMoved,
            format!(
                "Not met: the caller asked for something new, {}, and the agent said {}: a new one made is not an \
                 existing one moved.",
                request.quote(),
                done.quote()
            ),
            0.75,
        )
    })
}

/// A refusal whose deed is the one the caller asked for ("we can't move it" to "can you get me
/// an earlier one?"): the request itself refused.
pub(super) fn refuses_the_deed(request: Option<&Said>, refusal: &Said) -> bool {
    let asked = request.map_or(Deed::Unknown, |r| slots::deed_of(&r.turn.lower));
    asked != Deed::Unknown && slots::deed_of(refusal.lower()) == asked
}

/// A claim that only reads back what already stood ("so I've got you down for the 28th", when
/// the 28th is "the one you already have"): its dates and times are all the existing state's,
/// and it reports no act of the agent's own.
pub(super) fn reads_back(said: &Said, existing: &Values) -> bool {
    let values = Values::of(said.lower());
    !values.is_empty() && values.all_in(existing) && super::own_deed_at(said.lower()).is_none()
}
