//! What a simulated caller knows about themselves but the script may never say: their name and
//! date of birth, from the run's variables or the persona's properties. Once the script is
//! done, a caller asked for one of them gives it instead of hanging up on the question.

use std::collections::BTreeMap;

use super::script::fill;
use crate::api::model::Persona;

/// One thing a caller may be asked for: the words that ask, where its value is kept (the
/// first that holds one), and how the caller says it.
struct Detail {
    asked_by: &'static [&'static str],
    held_in: &'static [&'static str],
    say: fn(&str) -> String,
}

const DETAILS: &[Detail] = &[
    Detail {
        asked_by: &["full name", "your name"],
        held_in: &["patientName", "fullName", "customerName", "name"],
        say: |name| format!("My name is {name}."),
    },
    Detail {
        asked_by: &["date of birth", "birth date", "birthday"],
        held_in: &["dateOfBirth", "birthDate"],
        say: |date| format!("It's {date}."),
    },
];

/// The most a caller answers after the script: each detail once.
pub(super) const MAX_ANSWERS: usize = DETAILS.len();

/// The caller's answer to the agent's question `asked`, when it asks for a detail the caller
/// holds and has not said yet (`said`: the caller's lines so far).
pub(super) fn answer(
    asked: &str,
    said: &[String],
    variables: &BTreeMap<String, String>,
    persona: Option<&Persona>,
) -> Option<String> {
    let asked = asked.to_lowercase();
    if !asked.contains('?') {
        return None;
    }
    DETAILS.iter().filter(|d| d.asked_by.iter().any(|w| asked.contains(w))).find_map(|detail| {
        let value = detail
            .held_in
            .iter()
            .map(|key| fill(&format!("{{{{{key}}}}}"), variables, persona))
            .find(|value| !value.contains("{{") && !value.trim().is_empty())?;
        let already = said.iter().any(|line| line.to_lowercase().contains(&value.to_lowercase()));
        (!already).then(|| (detail.say)(&value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn a_caller_gives_what_is_asked_for_once() {
        let held = vars(&[("patientName", "Dana Whitfield"), ("dateOfBirth", "March 12, 1984")]);
        let asked = "Thank you. And could I have your full name, please?";
        assert_eq!(answer(asked, &[], &held, None).as_deref(), Some("My name is Dana Whitfield."));
        let said = vec!["Hi, this is dana whitfield.".to_owned()];
        assert_eq!(answer(asked, &said, &held, None), None, "already said");
        let both = "Could you tell me your full name and date of birth?";
        let said = vec!["My name is Dana Whitfield.".to_owned()];
        assert_eq!(answer(both, &said, &held, None).as_deref(), Some("It's March 12, 1984."));
    }

    #[test]
    fn only_a_question_for_a_held_detail_is_answered() {
        let held = vars(&[("patientName", "Dana Whitfield")]);
        assert_eq!(answer("I have your full name on file.", &[], &held, None), None, "not a question");
        assert_eq!(answer("Which day would work better?", &[], &held, None), None);
        assert_eq!(answer("And your date of birth?", &[], &held, None), None, "not held");
    }
}
