//! The list of identifying facts as a prompt writes it, with whether it asks for all of them
//! ("X and Y", "X plus Y"), any one ("X or Y", "either X or Y") or a count ("two of X, Y and
//! Z"). Each fact belongs to a group; a group is given by any one of its facts, and the
//! caller is verified when enough groups are given.

use super::super::pattern::patterns;
use super::Fact;

patterns! {
    /// "any two of", "at least two of": a count of the facts listed.
    COUNT = r"\b(?:any |at least )?(one|two|three|four|[1-4]) of\b";
    /// What joins facts that must all be given.
    ALL = r",? and |,? plus |,? as well as |,? along with ";
    /// What joins alternatives, of which one is enough.
    ANY = r",? or |,? either ";
    COMMA = r", ";
}

/// The facts a prompt lists and how many of their groups must be given.
#[derive(Debug, Clone, Default, PartialEq)]
pub(in super::super) struct FactList {
    /// The facts in the prompt's order; `Fact::group` ties alternatives together.
    pub facts: Vec<Fact>,
    /// How many groups must be given: every group, or the prompt's count.
    pub needed: usize,
}

impl FactList {
    /// Reads `listed`, the prompt's words for the facts; `before` is the prompt's text just
    /// before them, where "two of the following" may stand.
    pub fn read(listed: &str, before: &str) -> FactList {
        let listed = listed.trim().trim_start_matches(':').trim();
        let count = COUNT
            .captures(listed)
            .or_else(|| COUNT.captures(before))
            .and_then(|c| c.get(1))
            .map(|m| number(m.as_str()));
        let body = COUNT.find(listed).map_or(listed, |m| listed[m.end()..].trim_start_matches(':').trim());
        let groups: Vec<Vec<&str>> = match count {
            // With a count, "and" and "or" only join the list.
            Some(_) => {
                split(body, &[&ALL, &ANY]).into_iter().flat_map(|p| split(p, &[&COMMA])).map(|p| vec![p]).collect()
            }
            None if !ALL.is_match(body) && ANY.is_match(body) => vec![split(body, &[&ANY, &COMMA])],
            None => split(body, &[&ALL])
                .into_iter()
                .flat_map(|part| {
                    if ANY.is_match(part) {
                        vec![split(part, &[&ANY, &COMMA])]
                    } else {
                        split(part, &[&COMMA]).into_iter().map(|p| vec![p]).collect()
                    }
                })
                .collect(),
        };
        let mut facts = Vec::new();
        let mut group = 0;
        for alternatives in groups {
            let read: Vec<Fact> = alternatives.into_iter().filter_map(Fact::of).collect();
            if read.is_empty() {
                continue;
            }
            facts.extend(read.into_iter().map(|f| Fact { group, ..f }));
            group += 1;
        }
        let needed = count.map_or(group, |n| n.min(group));
        FactList { facts, needed }
    }

    /// How many groups there are.
    pub fn groups(&self) -> usize {
        self.facts.iter().map(|f| f.group + 1).max().unwrap_or(0)
    }

    /// The groups not given, by their labels ("the date of birth or the licence number"),
    /// when fewer than the needed number are given; empty once enough are.
    pub fn missing(&self, given: &[bool]) -> Vec<String> {
        let open: Vec<usize> = (0..self.groups()).filter(|g| !self.group_given(*g, given)).collect();
        if self.groups() - open.len() >= self.needed {
            return Vec::new();
        }
        open.into_iter().map(|g| self.label(g)).collect()
    }

    /// Whether any fact of group `g` is given.
    pub fn group_given(&self, g: usize, given: &[bool]) -> bool {
        self.facts.iter().zip(given).any(|(f, given)| f.group == g && *given)
    }

    /// A group's label: its alternatives joined by "or".
    pub fn label(&self, g: usize) -> String {
        let labels: Vec<&str> = self.facts.iter().filter(|f| f.group == g).map(|f| f.label.as_str()).collect();
        labels.join(" or ")
    }

    /// Every group's label, as the prompt asks for them.
    pub fn names(&self) -> String {
        let labels: Vec<String> = (0..self.groups()).map(|g| self.label(g)).collect();
        match self.needed < self.groups() {
            true => format!("{} of {}", self.needed, labels.join(", ")),
            false => labels.join(" and "),
        }
    }
}

fn split<'t>(text: &'t str, by: &[&super::super::pattern::Pattern]) -> Vec<&'t str> {
    let mut parts = vec![text];
    for pattern in by {
        parts = parts.into_iter().flat_map(|p| pattern.split(p)).collect();
    }
    parts.into_iter().map(|p| p.trim().trim_start_matches("either ").trim()).filter(|p| !p.is_empty()).collect()
}

fn number(word: &str) -> usize {
    match word {
        "one" | "1" => 1,
        "two" | "2" => 2,
        "three" | "3" => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FactKind, fact_list};
    use super::*;

    fn list(prompt: &str) -> FactList {
        fact_list(&prompt.to_lowercase())
    }

    fn kinds(list: &FactList) -> Vec<(FactKind, usize)> {
        list.facts.iter().map(|f| (f.kind, f.group)).collect()
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(all_patterns().iter().all(|p| p.compiles()));
    }

    #[test]
    fn every_fact_joined_by_and_must_be_given() {
        use FactKind::*;
        let both =
            list("checked the caller (the street address AND the plot agreement number for that address) before");
        assert_eq!(kinds(&both), [(Address, 0), (Code, 1)], "the number for an address is a number");
        assert_eq!(both.needed, 2);
        assert_eq!(both.missing(&[true, false]), ["plot agreement number for that address"]);
        assert!(both.missing(&[true, true]).is_empty());
        let digits = list("confirmed the hirer (the hire number plus the mobile number's last four digits) before");
        assert_eq!(kinds(&digits), [(Code, 0), (LastDigits, 1)], "a number's last four digits are digits");
    }

    #[test]
    fn alternatives_joined_by_or_need_only_one() {
        use FactKind::*;
        let either = list(
            "checked the caller (the season ticket number AND either the date of birth or the passport number) before",
        );
        assert_eq!(kinds(&either), [(Code, 0), (BirthDate, 1), (Code, 1)]);
        assert_eq!(either.needed, 2);
        assert!(either.missing(&[true, false, true]).is_empty(), "the passport number stands for the date of birth");
        assert_eq!(either.missing(&[true, false, false]), ["date of birth or passport number"]);
        let one = list("verified the caller (the berth number or the mooring reference) before");
        assert_eq!(kinds(&one), [(Code, 0), (Code, 0)]);
        assert_eq!(one.needed, 1);
        assert!(one.missing(&[false, true]).is_empty());
    }

    #[test]
    fn a_stated_count_needs_that_many() {
        use FactKind::*;
        let two = list("verified the caller (any two of: the full name, the date of birth, the postcode) before");
        assert_eq!(kinds(&two), [(FullName, 0), (BirthDate, 1), (Postcode, 2)]);
        assert_eq!(two.needed, 2);
        assert_eq!(two.missing(&[false, true, false]).len(), 2, "one of two is not enough");
        assert!(two.missing(&[true, false, true]).is_empty());
        assert!(two.names().starts_with("2 of "), "{}", two.names());
    }
}
