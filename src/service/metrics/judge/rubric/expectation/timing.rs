//! "Lets the caller finish": read from the timing, not the words. An agent turn that starts
//! before the caller's turn has ended talks over them; when the prompt is about spelling a
//! code, only the caller's spelling counts.

use super::super::conversation::{Conversation, Side, clip, seconds};
use super::super::identity::{gives_code, is_spelling};
use super::super::pattern::patterns;
use super::super::{Finding, Shape};

patterns! {
    PROMPT = r"\blets? the caller finish\b|\binterrupt|\btalks? over\b|\bcuts? (the caller )?off\b|\bbefore responding\b|\bwaits? (for|until) the caller\b";
}

pub(super) fn read(conv: &Conversation, prompt: &str) -> Option<Finding> {
    if !PROMPT.is_match(prompt) {
        return None;
    }
    let spelling = prompt.contains("spell") || prompt.contains("code");
    let counts = |lower: &str| !spelling || is_spelling(lower) || gives_code(lower);
    let mut checked = 0;
    for pair in conv.turns.windows(2) {
        let (caller, agent) = (&pair[0], &pair[1]);
        if caller.side != Side::Caller || agent.side != Side::Agent || !counts(&caller.lower) {
            continue;
        }
        checked += 1;
        if agent.start_ms < caller.end_ms {
            return Some(Finding::not_met(
                Shape::SpokeOver,
                format!(
                    "Not met: the agent started \"{}\" at {} while the caller was still saying \"{}\" (until {}).",
                    clip(&agent.text),
                    agent.at(),
                    clip(&caller.text),
                    seconds(caller.end_ms)
                ),
                0.9,
            ));
        }
    }
    Some(if checked == 0 {
        Finding::not_applicable(Shape::NothingSpelled, "Not applicable: the caller never spelled a code.".to_owned())
    } else {
        Finding::met(
            Shape::WaitedEachTime,
            format!("Met: the agent waited for the caller to finish each time ({checked} caller turns checked)."),
            0.85,
        )
    })
}
