//! "The card was frozen during the call": the request walk, about that deed. It answers only
//! when the call speaks of doing it (its verb, or a word for it, in the caller's request or
//! the agent's deciding turn), and reads undoing it ("can you unfreeze it?", "I've lifted the
//! freeze") as not doing it.

use std::collections::BTreeSet;

use super::super::conversation::{Conversation, Said, Side};
use super::super::pattern::patterns;
use super::super::terms::{stem, terms, with_related};
use super::super::{Finding, Reading, Shape};
use super::{CALLER_CLAIM, decide, passes_on, walk};

patterns! {
    /// Undoing a thing: "lifted the freeze", "removed the block".
    REVERSES = r"\b(lift|lifted|remove|removed|take off|took off|taken off|reverse|reversed|undo|undid|cancel+ed) the (\w+)\b";
}

/// Verbs of putting something on a day, one for another: "booked in for a new day" is
/// spoken of by a call that moves or reschedules it.
const SCHEDULING: &[&str] = &["book", "rebook", "mov", "reschedul", "rearrang"];
/// Verbs of changing when something already made happens, which a new one made does not do.
const MOVING: &[&str] = &["mov", "reschedul", "rearrang"];

/// Reads whether a named thing was done ("the card was frozen during the call"): the request
/// walk, when the call speaks of doing that thing at all (its verb, or a word for it, in the
/// caller's request or in the agent's deciding turn); otherwise it cannot tell.
pub(in super::super) fn read_deed(conv: &Conversation, prompt: &str) -> Finding {
    let verb = prompt
        .split_whitespace()
        .skip_while(|w| !["was", "were", "got", "been", "now"].contains(w))
        .nth(1)
        .map(|w| stem(w.trim_matches(|c: char| !c.is_alphanumeric())))
        .unwrap_or_default();
    let also = joined_verbs(prompt);
    let walk = walk(conv, false);
    let speaks_of = |words: &BTreeSet<String>| {
        let words = with_related(words);
        words.contains(&verb)
            || also.iter().any(|v| words.contains(v))
            || (SCHEDULING.contains(&verb.as_str()) && SCHEDULING.iter().any(|w| words.contains(*w)))
    };
    let in_turn = |said: Option<Said>| said.is_some_and(|s| speaks_of(&terms(&s.turn.lower)));
    let relevant =
        speaks_of(&walk.request.words) || in_turn(walk.positive) || in_turn(walk.undone) || in_turn(walk.setback);
    if !verb.is_empty()
        && !relevant
        && let Some(finding) = nothing_done_at_all(conv, &walk)
    {
        return finding;
    }
    if verb.is_empty() || !relevant {
        return Finding::unsure(format!(
            "Cannot tell: neither the caller's request nor what the agent did speaks of \"{}\".",
            prompt.trim().trim_end_matches('.')
        ));
    }
    // The caller asking to undo it ("can you unfreeze it?"), or the agent's claim undoing it
    // ("I've lifted the freeze"); "until you unfreeze it in the app" is neither.
    let undoes =
        |lower: &str| REVERSES.captures_all(lower).iter().any(|c| c.get(2).is_some_and(|m| stem(m.as_str()) == verb));
    let asked_undo = walk.request.said.filter(|s| s.lower().contains(&format!("un{verb}")) || undoes(s.lower()));
    let did_undo = walk.positive.filter(|s| {
        let lower = s.lower();
        undoes(lower)
            || ["i've un", "have been un", "is now un", "been un"].iter().any(|p| lower.contains(&format!("{p}{verb}")))
    });
    let reversed = asked_undo.or(did_undo);
    if let Some(undid) = reversed {
        return Finding::not_met(
            Shape::DeedReversed,
            format!("Not met: what was asked or done was the opposite, undoing it: {}.", undid.quote()),
            0.75,
        );
    }
    if let Some(finding) = part_passed_on(conv, &walk).or_else(|| refused_elsewhere(&walk)) {
        return finding;
    }
    let caller_claim = conv.said_by(Side::Caller).filter(|s| CALLER_CLAIM.is_match(s.lower())).last();
    let finding = decide(conv, &walk, caller_claim);
    // Moving something is not making a new one ("book him two more hours").
    if finding.reading == Reading::Met
        && MOVING.contains(&verb.as_str())
        && let Some(new) = super::fit::made_new_not_moved(&walk)
    {
        return new;
    }
    finding
}

/// The deed's other verbs, joined to its first by "and" or "or" ("was taken and put on the
/// ticket"): a call that speaks of any of them speaks of the deed.
fn joined_verbs(prompt: &str) -> Vec<String> {
    let words: Vec<&str> = prompt.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric())).collect();
    let participle = |w: &str| {
        w.len() > 2
            && (w.ends_with("ed") || w.ends_with("en") || ["put", "set", "sent", "done", "made", "kept"].contains(&w))
    };
    words.windows(2).filter(|p| ["and", "or"].contains(&p[0]) && participle(p[1])).map(|p| stem(p[1])).collect()
}

/// A claim of the deed, then a refusal that shares nothing with it but the verb ("I book you
/// Thursday" … "I cannot book the second one on the plan"): the refusal may be of another
/// part, and the deed done on the first still stand.
fn refused_elsewhere(walk: &super::Walk) -> Option<Finding> {
    let (done, back) = (walk.claimed.or(walk.positive)?, walk.undone?);
    if back.side() != Side::Agent || super::RETRACTION.is_match(back.lower()) || done.order >= back.order {
        return None;
    }
    let (claim, refusal) = (terms(done.lower()), terms(back.lower()));
    let shared: Vec<&String> = claim.intersection(&refusal).collect();
    let refused: Vec<String> =
        super::REFUSAL.captures_all(back.lower()).iter().filter_map(|c| c.get(3)).map(|m| stem(m.as_str())).collect();
    let verb_only = !refused.is_empty() && shared.iter().all(|w| refused.contains(&stem(w)));
    (super::cannot_do(back.lower()) && verb_only).then(|| {
        Finding::unsure(format!(
            "Cannot tell: the agent said {} and later {}, which shares nothing with it but the verb: whether that \
             refusal takes back what was done or is about another part is not clear.",
            done.quote(),
            back.quote()
        ))
    })
}

/// A call on which the agent claimed nothing done at all, and the request was read as left
/// undone (a refusal, a setback, the caller giving up): no deed was done on it, whatever its
/// verb. Where the request reading is unsure, or anything was claimed, this says nothing.
fn nothing_done_at_all(conv: &Conversation, walk: &super::Walk) -> Option<Finding> {
    let claimed_any = conv.said_by(Side::Agent).any(|s| super::claims_success(&s)) || walk.claimed.is_some();
    if claimed_any {
        return None;
    }
    let undone = decide(conv, walk, None);
    (undone.reading == Reading::NotMet).then(|| {
        Finding::not_met(
            Shape::NothingDoneAtAll,
            format!("{} The agent claimed nothing done on the call, so nothing was.", undone.why),
            0.7,
        )
    })
}

/// A deed done, then a part of it passed on to someone else, then a "not yet": the "not yet"
/// may be about the part passed on, and the deed still stand (two months put on hold, the third
/// awaiting the manager).
fn part_passed_on(conv: &Conversation, walk: &super::Walk) -> Option<Finding> {
    let (done, back) = (walk.claimed.or(walk.positive)?, walk.undone?);
    let passed = conv.said_by(Side::Agent).find(|s| s.order > done.order && s.order < back.order && passes_on(s))?;
    Some(Finding::unsure(format!(
        "Cannot tell: the agent said {}, then passed part of it on, {}, and later {}: whether that takes back what \
         was done or only the part passed on is not clear.",
        done.quote(),
        passed.quote(),
        back.quote()
    )))
}
