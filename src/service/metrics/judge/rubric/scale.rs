//! Scale answers. Empathy and politeness are read from what the agent did with the caller's
//! situation: acknowledging it, easing the pace, handling an objection without restating a
//! rule, not talking over the caller. Any other scale is not one it rates: it abstains.

use super::conversation::{Conversation, Said, Side};
use super::pattern::patterns;

patterns! {
    ASPECT = r"\b(empath\w*|warm\w*|acknowledg\w*|caring|compassion\w*|polite\w*|courteous\w*|respect\w*|rude\w*|friendl\w*|tone|manner\w*)\b";
    ACKNOWLEDGES = r"\b(i'm|i am) (so |very |really )?sorry\b|\bi understand\b|\bcompletely understand\b|\bi know (that|how|it's)\b|\bthat must be\b|\bthat sounds\b|\b(frustrating|tough spot|stressful|not well|must be hard)\b|\bi apologi[sz]e\b|\bmy apologies\b|\bcongratulations\b|\bhope (she|he|you|your)\b|\btake care\b|\bsafe travels\b|\bwelcome to the\b|\bget some rest\b|\bthanks for your patience\b|\bthank you for understanding\b|\bbest of luck\b|\boh no\b";
    EASES = r"\btake your time\b|\bno rush\b|\bno problem\b|\bno worries\b|\bwhenever you're ready\b|\bi'm still here\b|\blet's get you in\b|\bof course\b|\bhappy to help\b|\bwonderful\b|\bi can help right now\b|\bdon't worry\b";
    OBJECTION = r"\b(seriously|wait|doesn't sound right|you cancelled|it was your|your cancellation|i didn't change|i thought|not fair|ridiculous|you're kidding)\b";
    RULE = r"\b(applies|policy|only (for|on|when)|is waived only|rules?)\b";
    /// The caller asking for a moment ("let me write that down").
    NEEDS_TIME = r"\blet me (write|think|check|find|get|grab)\b|\bhold on\b|\bone (moment|sec|second)\b|\bjust a (moment|sec|second)\b";
    DISMISSES = r"\bcan't help you\b|\bnothing (else )?i can do\b|\bcalm down\b|\bnot my problem\b|\bi already told you\b";
}

/// Whether the judge can rate what a scale prompt asks: the agent's manner.
pub(super) fn knows(prompt: &str) -> bool {
    ASPECT.is_match(prompt)
}

/// A manner scale's verdict before labelling: (value, reasoning, confidence).
pub(super) fn read(conv: &Conversation, min: i64, max: i64) -> (f64, String, f64) {
    rate_manner(conv, min, max)
}

fn rate_manner(conv: &Conversation, min: i64, max: i64) -> (f64, String, f64) {
    let agent: Vec<Said> = conv.said_by(Side::Agent).collect();
    let acknowledged: Vec<&Said> = agent.iter().filter(|s| ACKNOWLEDGES.is_match(s.lower())).collect();
    let eased: Vec<&Said> = agent.iter().filter(|s| EASES.is_match(s.lower())).collect();
    let dismissed: Vec<&Said> = agent.iter().filter(|s| DISMISSES.is_match(s.lower())).collect();
    let curt = curt_replies(conv);
    let talked_over = conv
        .turns
        .windows(2)
        .filter(|p| p[0].side == Side::Caller && p[1].side == Side::Agent && p[1].start_ms < p[0].end_ms)
        .count();
    // Waiting in silence while the caller takes the moment they asked for.
    let waited = conv
        .turns
        .windows(2)
        .filter(|p| p[0].side == Side::Caller && p[1].side == Side::Caller && NEEDS_TIME.is_match(&p[0].lower))
        .count();
    let score = 3.0 + waited.min(1) as f64 + 0.5 * acknowledged.len().min(3) as f64 + 0.25 * eased.len().min(2) as f64
        - 1.25 * curt.len() as f64
        - 0.5 * talked_over as f64
        - 1.5 * dismissed.len() as f64;
    // The scale's own ends, with 3 of 5 as "neutral".
    let span = (max - min) as f64;
    let value = (min as f64 + (score - 1.0) / 4.0 * span).round().clamp(min as f64, max as f64);
    let mut why = format!("Rated {value}:");
    let mut parts = Vec::new();
    if let Some(s) = acknowledged.first() {
        parts.push(format!(" acknowledged the caller {} time(s), e.g. {}", acknowledged.len(), s.quote()));
    }
    if let Some(s) = eased.first() {
        parts.push(format!(" eased the pace {} time(s), e.g. {}", eased.len(), s.quote()));
    }
    if let Some(s) = curt.first() {
        parts.push(format!(" met an objection with a rule: {}", s.quote()));
    }
    if waited > 0 {
        parts.push(" waited while the caller took a moment".to_owned());
    }
    if talked_over > 0 {
        parts.push(format!(" talked over the caller {talked_over} time(s)"));
    }
    if let Some(s) = dismissed.first() {
        parts.push(format!(" was dismissive: {}", s.quote()));
    }
    if parts.is_empty() {
        parts.push(" polite and transactional, with no acknowledgement of the caller's situation".to_owned());
    }
    why.push_str(&parts.join(";"));
    why.push('.');
    (value, why, 0.6)
}

/// Agent replies that answer a caller's objection by restating a rule.
fn curt_replies(conv: &Conversation) -> Vec<Said<'_>> {
    let mut out = Vec::new();
    for pair in conv.turns.windows(2) {
        let (caller, agent) = (&pair[0], &pair[1]);
        if caller.side != Side::Caller || agent.side != Side::Agent || !OBJECTION.is_match(&caller.lower) {
            continue;
        }
        let rule = agent.sentences.iter().enumerate().find(|(_, s)| RULE.is_match(&s.lower));
        if let Some((i, sentence)) = rule {
            out.push(Said { turn: agent, sentence, order: (agent.index, i) });
        }
    }
    out
}
