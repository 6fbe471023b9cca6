//! "Tells the caller what happens next": an agent line, once the caller has said what they
//! want, that says what comes after the call: who will do what and when ("you'll get an
//! email tonight", "the engineer will text you", "someone will ring you about Friday",
//! "it'll be ready to collect tomorrow"), or what the caller must do next ("you'd need to ring
//! back on Wednesday", "transferring you to retentions").

use super::super::conversation::{Conversation, Said, Side};
use super::super::pattern::patterns;
use super::super::{Finding, Shape};

patterns! {
    PROMPT = r"\bwhat (happens|will happen|comes) next\b|\bnext steps?\b|\bwhat to expect\b|\bwhat (will|would) happen\b";
    /// Something that will happen after the call, or that the caller must do.
    NEXT = r"\b(you'll|you will|we'll|we will|they'll|they will|he'll|she'll|it'll|it will|that'll|that will|(?:[a-z]+) will|(is|are) going to|you won't|it won't|you will not)\b [a-z]|\b(should|ought to) (arrive|be with you|reach you|be ready|come)\b|\b(you'd|you'll|you will|you) need to\b|\bnext step\b|\btransferr?ing you\b|\bput(ting)? you through\b|\b(i'll|we'll) (re)?(pass|send|email|text|ring|call|get|ask|let|transfer|put|post|have|forward|issue)\b|\bto (call|ring|contact|text|email|phone) you\b|\b(would like|wants|needs) to (see|go through|talk|discuss|call|ring|check)\b|\b(comes?|arrives?|goes) (by post|live|out)\b|\bwithin \w+ (working |business )?(days?|hours?|weeks?)\b|\bstarts on\b";
    /// Futures that are only courtesy or an offer, not what happens next.
    NOT_NEXT = r"\b(will|'ll) (that be|be all|there be anything)\b|\bwould you like\b|\bshall i\b|\bhave a (nice|good|great|lovely)\b|\bit will be (my|our) pleasure\b|\bwill that work\b";
}

pub(super) fn read(conv: &Conversation, prompt: &str) -> Option<Finding> {
    if !PROMPT.is_match(prompt) {
        return None;
    }
    // What comes next is said once the caller has said what they want.
    let from = conv.said_by(Side::Caller).find(|s| s.turn.keypad().is_none()).map(|s| s.order);
    let said: Vec<Said> = conv.said_by(Side::Agent).filter(|s| from.is_none_or(|f| s.order > f)).collect();
    let next = said.iter().rfind(|s| !s.is_question() && NEXT.is_match(s.lower()) && !NOT_NEXT.is_match(s.lower()));
    Some(match (next, said.last()) {
        (Some(s), _) => {
            Finding::met(Shape::NextStepTold, format!("Met: the agent said what happens next: {}.", s.quote()), 0.8)
        }
        (None, Some(last)) if !super::says_anything(&said) => Finding::not_met(
            Shape::NothingStatedAfterRequest,
            format!(
                "Not met: the agent stated nothing after the caller's request; its last line was {}.",
                last.quote()
            ),
            0.7,
        ),
        // What comes next is said in too many ways to conclude it never was.
        (None, Some(last)) => Finding::unsure(format!(
            "Cannot tell: no agent line says what happens after the call in words the offline judge knows; its last \
             line was {}.",
            last.quote()
        )),
        (None, None) => Finding::not_met(
            Shape::NothingStatedAfterRequest,
            "Not met: the agent said nothing after the caller's request.".to_owned(),
            0.6,
        ),
    })
}
