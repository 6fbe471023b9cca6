//! Fees: "never charges a fee" is broken by an actual charge; "tells the caller there is no
//! fee, and charges none" also needs the waiver said out loud, and is broken by quoting a
//! fee as well. A fee is any fee, charge, surcharge, penalty or price difference.

use super::super::conversation::Said;
use super::super::outcome::claims_success;
use super::super::pattern::patterns;
use super::super::{Finding, Shape};

patterns! {
    CHARGED = r"\b(i've|i have|we've|we have|has been|have been|was|were|i'll|we'll|will be) charged\b|\bcharged ([\w-]+ ){0,4}(dollars|pounds|euros|to (your|the) card)\b|\bi've charged\b";
    QUOTED = r"\b(there is|there's|there would be|there will be|that's|it's|is|would be|there'd be) an? ([\w-]+ ){0,4}(fee|charge|surcharge|difference|penalty)\b|\bthe ([\w-]+ )?(fee|charge|surcharge|penalty) (applies|of)\b|\b\w+ difference of\b|\bdifference applies\b|\bfor ([\w-]+ ){1,4}(dollars|pounds|euros)\?";
    WAIVED = r"\bno ([\w-]+ )?(fee|charge|cost|surcharge|difference|penalty)s?\b|\bat no (extra )?(cost|charge)\b|\bwithout (a |any )?([\w-]+ )?(fee|charge)\b|\bfree of charge\b|\bno extra (cost|charge)\b|\bnot (be )?charged\b|\bno cost\b|\bwaived?\b";
    PROMPT_FEE = r"\b(fee|fees|surcharge|\w+ difference|charges?|charged|penalty)\b";
    /// The prompt asking for a time or a limit, where the fee is only what it is about.
    ASKS_WHEN = r"\b(until when|by when|how long)\b";
    PROMPT_TELLS = r"\b(tells|says|informs|explains|mentions|states)\b";
}

pub(super) fn read(said: &[Said], prompt: &str) -> Option<Finding> {
    // "Told until when it can be cancelled free of charge" asks for a time, not about a fee.
    if !PROMPT_FEE.is_match(prompt) || ASKS_WHEN.is_match(prompt) {
        return None;
    }
    let must_tell = PROMPT_TELLS.is_match(prompt);
    let charged = said.iter().find(|s| CHARGED.is_match(s.lower()));
    let quoted = said.iter().find(|s| QUOTED.is_match(s.lower()) && !WAIVED.is_match(s.lower()));
    let waived = said.iter().find(|s| WAIVED.is_match(s.lower()));
    if let Some(s) = charged {
        return Some(Finding::not_met(
            Shape::Charged,
            format!("Not met: the agent charged the caller: {}.", s.quote()),
            0.85,
        ));
    }
    if must_tell {
        if let Some(s) = quoted {
            return Some(Finding::not_met(
                Shape::FeeQuoted,
                format!("Not met: the agent quoted a fee: {}.", s.quote()),
                0.8,
            ));
        }
        return Some(match waived {
            Some(s) => Finding::met(
                Shape::NoChargeSaid,
                format!("Met: the agent said {} and charged nothing.", s.quote()),
                0.8,
            ),
            None => {
                let mut why =
                    "Not met: the agent charged nothing but never told the caller there was no fee".to_owned();
                match said.iter().find(|s| claims_success(s)).or(said.last()) {
                    Some(s) => why.push_str(&format!("; it went ahead with {}.", s.quote())),
                    None => why.push('.'),
                }
                Finding::not_met(Shape::NoChargeUntold, why, 0.7)
            }
        });
    }
    Some(match waived {
        Some(s) => {
            Finding::met(Shape::NoChargeSaid, format!("Met: the agent charged nothing and said {}.", s.quote()), 0.8)
        }
        None => Finding::met(Shape::NoFeeLine, "Met: no agent line charges a fee.".to_owned(), 0.7),
    })
}
