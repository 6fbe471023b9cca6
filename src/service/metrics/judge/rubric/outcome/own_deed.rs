//! "I've dispatched recovery", "we've waived the fee": the agent reporting an act of its own in
//! any verb, which is a claim of success unless the verb only looks, asks or passes on ("I've
//! checked", "I've asked the team", "I've forwarded it").

use super::super::pattern::patterns;

patterns! {
    OWN_DEED = r"\b(i've|i have|we've|we have)( just| now| also| already| gone ahead and| successfully)? ([a-z]+ed|brought|taken|given|made|kept|held|paid|set|cut|split|shut|sold|bought|undone|withdrawn)\b";
}

/// Past forms that report looking, asking or passing on, not doing what was asked.
const NOT_DEEDS: &str = "checked looked noticed asked tried needed wanted wondered talked listened received noted \
    flagged escalated passed forwarded referred explained mentioned called managed started decided realised realized \
    learned pulled opened accessed located verified searched reviewed discussed helped answered waited worked seemed \
    used offered suggested recommended informed contacted messaged tested spotted confirmed expected hoped assumed \
    followed monitored traced tracked investigated";

/// Where the agent reports an act of its own, if it does.
pub(in super::super) fn own_deed_at(lower: &str) -> Option<usize> {
    OWN_DEED.captures_all(lower).iter().find_map(|c| {
        let verb = c.get(3)?.as_str();
        let looks_only = NOT_DEEDS.split_whitespace().any(|w| w == verb);
        (!looks_only).then(|| c.get(0).map_or(0, |m| m.start()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        assert!(all_patterns().iter().all(|p| p.compiles()));
    }

    #[test]
    fn an_act_in_any_verb_is_a_deed_but_looking_and_passing_on_are_not() {
        assert!(own_deed_at("right, i've dispatched our recovery partner to you.").is_some());
        assert!(own_deed_at("we've waived the fee this once.").is_some());
        assert!(own_deed_at("i've brought the fitting forward a week.").is_some(), "an irregular verb");
        assert!(own_deed_at("i've checked your account.").is_none());
        assert!(own_deed_at("i've forwarded it to billing.").is_none());
    }
}
